"""Corruption fuzz of a stored cell, fixed seed: truncations, flipped bytes, damaged zip
directories, swapped arrays, other dtypes and JSON of other types (hashes left stale or
re-computed to match).

Every corrupted cell must either be refused by :func:`simulate.store.load_result` with a
one-line ValueError naming one of its two files, or load to exactly the numbers that were
stored (a change the formats ignore, e.g. a zip timestamp, or a re-sealed record whose
metadata is still of its types); no other exception. A record re-sealed around other
arrays (their hashes re-computed) may load only as written and only if it is a result the
engine could produce (:func:`simulate.results.check_result`), e.g. the counts of another
seed's run of the same cell: that is a forgery no check of the file can tell. The sweep
given the same directory refuses or resumes, and never rewrites either file.
"""

import io
import json

import numpy as np
import pytest

from cascading_bandits.simulate.experiments import b_lb_cell
from cascading_bandits.simulate.results import check_result
from cascading_bandits.simulate.store import array_digest, load_result, record_digest
from cascading_bandits.simulate.sweep import run_cells

SEED = 20250
#: mutations per kind (the test prints and checks the total)
PLAN = {
    "truncate-npz": 40,
    "truncate-json": 40,
    "flip-npz": 80,
    "flip-json": 60,
    "zip-directory": 70,
    "swap-arrays": 60,
    "dtype": 40,
    "json-type": 120,
}
TYPED_VALUES = (None, True, 0, -1, 1.5, 1e308, "x", "", [], {}, [1, 2], {"a": 1}, [[0.5]])


def _npz_bytes(arrays):
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    return buf.getvalue()


def _seal(doc, arrays=None):
    doc = json.loads(json.dumps(doc))
    if arrays is not None:
        for k, a in arrays.items():
            doc["arrays"][k] = array_digest(a)
    doc["record_sha256"] = record_digest(doc)
    return json.dumps(doc).encode()


def _flip(b, rng, lo=0, hi=None):
    b = bytearray(b)
    hi = len(b) if hi is None else hi
    for _ in range(int(rng.integers(1, 9))):
        i = int(rng.integers(lo, hi))
        b[i] ^= int(rng.integers(1, 256))
    return bytes(b)


def _nodes(x, path=()):
    """Every (path, value) of a parsed JSON document, the root excluded."""
    if isinstance(x, dict):
        for k, v in x.items():
            yield (*path, k), v
            yield from _nodes(v, (*path, k))
    elif isinstance(x, list):
        for i, v in enumerate(x):
            yield (*path, i), v
            yield from _nodes(v, (*path, i))


def _kind(v):
    return "number" if isinstance(v, (int, float)) and not isinstance(v, bool) else type(v)


def _mutations(npz, js, doc, arrays, other):
    """Yield (kind, npz bytes, json bytes, sealed) for the plan, from one generator of SEED;
    ``sealed`` is None when the record's hashes were left as they were, else the arrays
    written (their hashes and the record's re-computed to match)."""
    rng = np.random.default_rng(SEED)
    cd = npz.find(b"PK\x01\x02")
    names = sorted(arrays)
    for _ in range(PLAN["truncate-npz"]):
        yield "truncate-npz", npz[: int(rng.integers(0, len(npz)))], js, None
    for _ in range(PLAN["truncate-json"]):
        yield "truncate-json", npz, js[: int(rng.integers(0, len(js)))], None
    for _ in range(PLAN["flip-npz"]):
        yield "flip-npz", _flip(npz, rng), js, None
    for _ in range(PLAN["flip-json"]):
        yield "flip-json", npz, _flip(js, rng), None
    for i in range(PLAN["zip-directory"]):
        if i % 7 == 0:  # the encrypted flag or an unknown compression, on one member's entry
            b = bytearray(npz)
            at = [j for j in range(len(b)) if b[j : j + 4] == b"PK\x01\x02"]
            j = at[int(rng.integers(0, len(at)))]
            if i % 2:
                b[j + 8] |= 1
            else:
                b[j + 10 : j + 12] = int(rng.choice([12, 14, 97, 99, 1000])).to_bytes(2, "little")
            yield "zip-directory", bytes(b), js, None
        else:
            yield "zip-directory", _flip(npz, rng, lo=cd), js, None
    for _ in range(PLAN["swap-arrays"]):
        new = dict(arrays)
        a, b = rng.choice(names, 2, replace=False)
        choice = int(rng.integers(0, 4))
        if choice == 0:  # two arrays exchanged
            new[a], new[b] = arrays[b], arrays[a]
        elif choice == 1:  # another cell's array
            new[a] = other[a]
        elif choice == 2 and arrays[a].dtype.kind == "f":  # random reals, any magnitude
            new[a] = rng.standard_normal(arrays[a].shape) * 10.0 ** int(rng.integers(0, 300))
        elif choice == 2:  # random integers of the same shape
            new[a] = rng.integers(-(10**6), 10**6, arrays[a].shape)
        else:  # a row or column too few
            new[a] = arrays[a][..., :-1] if rng.integers(0, 2) else arrays[a][:-1]
        if rng.integers(0, 2):
            yield "swap-arrays", _npz_bytes(new), _seal(doc, new), new
        else:
            yield "swap-arrays", _npz_bytes(new), js, None
    for _ in range(PLAN["dtype"]):
        new = dict(arrays)
        a = names[int(rng.integers(0, 3))]
        dt = ["<f4", "<i4", "<u8", "|b1", "<c16", ">f8", ">i8", "<f2", "<U8"][
            int(rng.integers(0, 9))
        ]
        new[a] = arrays[a].astype(dt)
        if rng.integers(0, 2):
            yield "dtype", _npz_bytes(new), _seal(doc, new), new
        else:
            yield "dtype", _npz_bytes(new), js, None
    nodes = list(_nodes(doc))
    for _ in range(PLAN["json-type"]):
        path, old = nodes[int(rng.integers(0, len(nodes)))]
        new_doc = json.loads(json.dumps(doc))
        d = new_doc
        for k in path[:-1]:
            d = d[k]
        if isinstance(d, dict) and rng.integers(0, 4) == 0:
            del d[path[-1]]
        else:
            pool = [v for v in TYPED_VALUES if _kind(v) != _kind(old)]
            d[path[-1]] = pool[int(rng.integers(0, len(pool)))]
        if rng.integers(0, 2):
            yield "json-type", npz, _seal(new_doc), arrays
        else:
            new_doc["record_sha256"] = doc["record_sha256"]
            yield "json-type", npz, json.dumps(new_doc).encode(), None


def _same(res, ref):
    return (
        res.params == ref.params
        and res.provenance["seed_entropy"] == ref.provenance["seed_entropy"]
        and res.provenance["seed_spawn_key"] == ref.provenance["seed_spawn_key"]
        and all(
            np.array_equal(getattr(res, k), getattr(ref, k))
            for k in ("checkpoints", "regret", "counts")
        )
    )


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    cell = b_lb_cell("fz", 8, 2, 0.3, 0.15, "cascade-klucb", horizon=300, runs=2)
    d = tmp_path_factory.mktemp("fuzz")
    (ref,) = run_cells([cell], d, seed=11, workers=1, progress=False)
    js = d / "fz" / f"{cell.cell_id}.json"
    (other,) = run_cells([cell], tmp_path_factory.mktemp("other"), seed=12, workers=1,
                         progress=False)  # fmt: skip
    other = {k: getattr(other, k) for k in ("checkpoints", "regret", "counts")}
    return cell, d, js, ref, other


def test_corruption_fuzz(base, capsys):
    cell, d, js, ref, other = base
    npz_path = js.with_suffix(".npz")
    npz, jsb = npz_path.read_bytes(), js.read_bytes()
    doc = json.loads(jsb)
    arrays = {k: getattr(ref, k) for k in ("checkpoints", "regret", "counts")}
    tally = {}
    for kind, nb, jb, sealed in _mutations(npz, jsb, doc, arrays, other):
        npz_path.write_bytes(nb)
        js.write_bytes(jb)
        try:
            res = load_result(js)
        except ValueError as exc:
            msg = str(exc)
            assert "\n" not in msg and (str(js) in msg or str(npz_path) in msg), (kind, msg)
            outcome = "refused"
        else:
            if _same(res, ref):
                outcome = "loaded unchanged"
            else:
                # only a re-sealed record may load changed, and then exactly as written and
                # as a result the engine could produce (another seed's counts, say)
                assert sealed is not None, f"{kind}: a changed cell was loaded as valid"
                for k, a in sealed.items():
                    np.testing.assert_array_equal(getattr(res, k), a)
                check_result(res)
                outcome = "loaded as re-sealed"
        # the sweep on the same directory: refuses or resumes, never rewrites a file
        try:
            (got,) = run_cells([cell], d, seed=11, workers=1, progress=False)
        except ValueError as exc:
            assert "\n" not in str(exc), (kind, str(exc))
            assert outcome == "refused" or "other parameters" in str(exc), (kind, str(exc))
        else:
            assert outcome != "refused" and _same(got, res), kind
        assert npz_path.read_bytes() == nb and js.read_bytes() == jb, f"{kind}: file rewritten"
        tally.setdefault(kind, {}).setdefault(outcome, 0)
        tally[kind][outcome] += 1
    total = sum(sum(v.values()) for v in tally.values())
    with capsys.disabled():
        print(f"\ncorruption fuzz (seed {SEED}): {total} corruptions: {tally}")
    assert total == sum(PLAN.values()) == 510
    refused = sum(v.get("refused", 0) for v in tally.values())
    assert refused >= 0.9 * total  # most corruptions change what is read
    for kind in ("truncate-json", "truncate-npz", "dtype"):
        assert tally[kind].get("loaded unchanged", 0) == 0, (kind, tally[kind])
