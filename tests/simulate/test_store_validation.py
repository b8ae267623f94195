"""What loading a stored cell checks: every array's hash, what a result must satisfy, the
rounding tolerance at its edge, damaged zip directories and JSON of the wrong types.

Each refusal must be a one-line ValueError naming the file and the property.
"""

import json
import shutil
import struct

import numpy as np
import pytest

import cascading_bandits.simulate.results as results_mod
from cascading_bandits.simulate import run_cell
from cascading_bandits.simulate.experiments import Cell, b_lb_cell
from cascading_bandits.simulate.models import MODEL_NAMES
from cascading_bandits.simulate.policies import get_policy, policy_names
from cascading_bandits.simulate.results import (
    ROUNDING_PER_STEP,
    CellResult,
    check_result,
    regret_rounding,
)
from cascading_bandits.simulate.store import (
    array_digest,
    load_result,
    record_digest,
    save_result,
)
from cascading_bandits.simulate.sweep import run_cells

W = (0.5, 0.4, 0.3, 0.2, 0.1, 0.1)


def _cell(**kw):
    base = dict(horizon=500, runs=3)
    base.update(kw)
    return b_lb_cell("exp", 8, 2, 0.3, 0.15, "cascade-klucb", **base)


@pytest.fixture(scope="module")
def stored(tmp_path_factory):
    """(directory, json path, result) of one stored cell, copied by each test that alters it."""
    d = tmp_path_factory.mktemp("one")
    res = run_cell(_cell(), 1)
    return d, save_result(res, d), res


def _copy(stored, tmp_path):
    d, js, res = stored
    out = tmp_path / "d"
    shutil.copytree(d, out)
    return out / js.relative_to(d), res


def _arrays(js):
    with np.load(js.with_suffix(".npz"), allow_pickle=False) as z:
        return {k: z[k] for k in z.files}


def _write_npz(js, arrays):
    with open(js.with_suffix(".npz"), "wb") as f:
        np.savez(f, **arrays)


def _reseal(js, arrays=None, edit=None):
    """Rewrite a stored cell with other arrays and/or JSON, hashes recomputed to match."""
    doc = json.loads(js.read_text())
    if arrays is not None:
        arrays = {**_arrays(js), **arrays}
        _write_npz(js, arrays)
        for k, a in arrays.items():
            doc["arrays"][k] = array_digest(a)
    if edit is not None:
        edit(doc)
    doc["record_sha256"] = record_digest(doc)
    js.write_text(json.dumps(doc))


def _refused(js, *fragments):
    """load_result must raise one line naming the file (json or npz) and each fragment."""
    with pytest.raises(ValueError) as exc:
        load_result(js)
    msg = str(exc.value)
    assert "\n" not in msg and (str(js) in msg or str(js.with_suffix(".npz")) in msg), msg
    for f in fragments:
        assert f in msg, msg
    return msg


# --- the hash covers every array ------------------------------------------------------


def _plausible(name, a):
    """A change to array ``name`` that leaves a result the engine could have produced."""
    a = a.copy()
    if name == "checkpoints":
        j = int(np.nonzero(np.diff(a) > 1)[0][0])  # room to move checkpoint j up by one
        a[j] += 1
    elif name == "regret":
        a[0, -1] = np.nextafter(a[0, -1], np.inf)  # one ulp
    else:
        a[0, [0, 1]] = a[0, [1, 0]]  # two items' counts exchanged in one run
    return a


@pytest.mark.parametrize("name", ["checkpoints", "regret", "counts"])
def test_the_hash_covers_every_array(stored, tmp_path, name):
    js, res = _copy(stored, tmp_path)
    arrays = _arrays(js)
    arrays[name] = _plausible(name, arrays[name])
    _write_npz(js, arrays)  # the record keeps the hashes of the originals
    _refused(js, f"'{name}' does not match the SHA-256", "--overwrite")
    # the change is plausible: with its hash re-computed the cell loads, so only the hash
    # of this very array stands between the change and the user
    _reseal(js, {name: arrays[name]})
    back = load_result(js)
    np.testing.assert_array_equal(getattr(back, name), arrays[name])
    assert not np.array_equal(getattr(back, name), getattr(res, name))


def test_the_record_hash_covers_the_json(stored, tmp_path):
    js, _ = _copy(stored, tmp_path)
    doc = json.loads(js.read_text())
    doc["provenance"]["git_commit"] = "0" * 40  # plausible, well typed
    js.write_text(json.dumps(doc))
    _refused(js, "record_sha256")


# --- replaced arrays with re-computed hashes ------------------------------------------


def _reg(f):
    return ("regret", f)


def _set(a, idx, v):
    a = a.astype(np.float64 if a.dtype.kind == "f" else a.dtype).copy()
    a[idx] = v
    return a


def _fall(r):
    r = r.copy()
    j = int(np.nonzero(r[0] > 1.0)[0][0])
    r[0, j + 1] = r[0, j] - 0.5
    return r


SWAPS = {
    "negative regret": (_reg(lambda r: -np.abs(r) - 1.0), "regret must be >= 0"),
    "NaN regret": (_reg(lambda r: _set(r, (1, 5), np.nan)), "regret must be finite"),
    "infinite regret": (_reg(lambda r: _set(r, (1, 5), np.inf)), "regret must be finite"),
    "1e300 regret": (_reg(lambda r: _set(r, (0, -1), 1e300)), "regret must be <= t f*"),
    "falling regret": (_reg(_fall), "regret must be non-decreasing"),
    "regret of another runs": (_reg(lambda r: r[:2]), "arrays['regret'] of shape"),
    "counts of the wrong shape": (("counts", lambda c: c[:, :-1]), "arrays['counts'] of shape"),
    "negative counts": (("counts", lambda c: _set(c, (0, 3), -1)), "counts must be >= 0"),
    "counts beyond n + 1": (("counts", lambda c: _set(c, (0, 3), 502)), "<= horizon + 1"),
    "too many observations": (("counts", lambda c: c * 0 + 501), "add up to at most L + K n"),
    "a checkpoint at step 0": (
        ("checkpoints", lambda c: c - 1),
        "checkpoints must increase strictly from a step >= 1",
    ),
    "last checkpoint not the horizon": (
        ("checkpoints", lambda c: _set(c, -1, 499)),
        "last checkpoint must be the horizon 500",
    ),
    "float32 regret": (_reg(lambda r: r.astype(np.float32)), "malformed arrays['regret']"),
    "float counts": (("counts", lambda c: c.astype(np.float64)), "malformed arrays['counts']"),
    "int32 checkpoints": (
        ("checkpoints", lambda c: c.astype(np.int32)),
        "malformed arrays['checkpoints']",
    ),
}


@pytest.mark.parametrize("case", list(SWAPS))
def test_replaced_arrays_with_recomputed_hashes_are_refused(stored, tmp_path, case):
    (name, f), fragment = SWAPS[case]
    js, _ = _copy(stored, tmp_path)
    arrays = _arrays(js)
    _reseal(js, {name: f(arrays[name])})
    _refused(js, fragment, "--overwrite")


def test_summary_must_agree_with_the_arrays(stored, tmp_path):
    js, _ = _copy(stored, tmp_path)

    def edit(doc):
        doc["summary"]["mean_regret"] *= 2

    _reseal(js, edit=edit)
    _refused(js, "summary['mean_regret']")


# --- the rounding tolerance at its edge ------------------------------------------------


def _params(horizon, runs=1, **kw):
    return Cell(
        "e", "c", "cascade", (0.5, 0.3, 0.1), 2, "oracle", horizon=horizon, runs=runs, **kw
    ).params


def test_rounding_bound_is_the_documented_formula():
    assert ROUNDING_PER_STEP == 21 * 2.0**-53
    assert regret_rounding(2, 1) == 42 * 2.0**-53
    assert regret_rounding(3, 10, fstar=2.5) == 21 * 3 * 2.5 * 10 * 2.0**-53
    assert regret_rounding(3, 10, fstar=0.5) == regret_rounding(3, 10)  # S = max(1, f*)


def test_a_fall_of_exactly_the_tolerance_passes_and_one_ulp_more_fails():
    tau = float(regret_rounding(2, 1))
    x = 0.5  # 0.5 - tau is exact: spacing 2**-54 below 0.5, tau = 84 * 2**-54
    assert (x - tau) + tau == x and (x - tau) - x == -tau
    ok = CellResult(_params(2), [1, 2], [[x, x - tau]], [[1, 1, 1]])
    check_result(ok)
    below = np.nextafter(x - tau, -np.inf)
    bad = CellResult(_params(2), [1, 2], [[x, below]], [[1, 1, 1]])
    with pytest.raises(ValueError, match="non-decreasing up to rounding"):
        check_result(bad)


def test_a_negative_value_of_exactly_the_tolerance_passes_and_one_ulp_more_fails():
    tau = float(regret_rounding(2, 3))
    check_result(CellResult(_params(3), [3], [[-tau]], [[1, 2, 2]]))
    with pytest.raises(ValueError, match=r"regret must be >= 0 up to rounding"):
        check_result(CellResult(_params(3), [3], [[np.nextafter(-tau, -1.0)]], [[1, 2, 2]]))


def test_the_tolerance_is_needed_by_genuine_results(monkeypatch):
    """The oracle's optimal list shown worst-first under DBN with gamma = 1 has the optimal
    reward, but its computed regret falls below zero: accepted, and refused without the
    tolerance."""
    cell = Cell(
        "e", "c", "dbn", (0.27, 0.041, 0.017, 0.813, 0.913, 0.607, 0.729, 0.544), 5,
        "oracle", "worst-first", horizon=50, runs=1, nu=0.7, gamma=1.0,
    )  # fmt: skip
    res = run_cell(cell, 3)
    assert res.regret.min() < 0 and (np.diff(res.regret[0]) < 0).any()
    check_result(res)
    monkeypatch.setattr(results_mod, "ROUNDING_PER_STEP", 0.0)
    with pytest.raises(ValueError, match="regret must be"):
        check_result(res)


def _every_cell():
    for name in policy_names():
        decl = get_policy(name)
        for model in MODEL_NAMES:
            for order in decl.orders:
                kw = {"nu": 0.7, "gamma": 0.8} if model == "dbn" else {}
                try:
                    yield Cell("e", f"{name}-{model}-{order}", model, W, 3, name, order,
                               horizon=300, runs=2, **kw)  # fmt: skip
                except ValueError:  # a policy that does not run under this model
                    continue


def test_every_policy_and_model_passes_the_checks():
    cells = list(_every_cell())
    assert len(cells) >= 2 * len(policy_names())
    for cell in cells:
        check_result(run_cell(cell, 5, threads=1))


# --- CellResult names the argument ---------------------------------------------------


@pytest.mark.parametrize(
    "kw, msg",
    [
        ({"params": "x"}, "params must be a dict"),
        ({"provenance": "x"}, "provenance must be a dict"),
        ({"checkpoints": []}, "checkpoints must be a non-empty 1-d array of integers"),
        ({"checkpoints": [1.5, 2]}, "checkpoints must be a 1-d array of integers"),
        ({"checkpoints": [2, 2]}, "checkpoints must increase strictly from a step >= 1"),
        ({"checkpoints": [0, 2]}, "checkpoints must increase strictly from a step >= 1"),
        ({"regret": [[1.0, 2.0, 3.0]]}, r"regret must have shape \(runs >= 1, 2\)"),
        ({"regret": [["a", "b"]]}, "regret must be an array of real numbers"),
        ({"regret": [[1.0, np.nan]]}, "regret must be finite"),
        ({"counts": [[1, 2]] * 2}, r"counts must have shape \(1, L >= 1\)"),
        ({"counts": [[1.5, 2]]}, "counts must be an array of integers"),
        ({"counts": [[-1, 2]]}, "counts must be >= 0"),
    ],
)
def test_cellresult_messages_name_the_argument(kw, msg):
    args = {"params": {}, "checkpoints": [1, 2], "regret": [[0.0, 0.5]], "counts": [[1, 2]]}
    args.update(kw)
    with pytest.raises(ValueError, match=msg):
        CellResult(**args)


# --- damaged zip directories and JSON of the wrong types -----------------------------


def _patch_central(npz, offset, value, fmt="<H"):
    """Write ``value`` at ``offset`` of every central-directory entry of the zip."""
    b = bytearray(npz.read_bytes())
    i = b.find(b"PK\x01\x02")
    assert i > 0
    while i >= 0:
        struct.pack_into(fmt, b, i + offset, value)
        i = b.find(b"PK\x01\x02", i + 4)
    npz.write_bytes(bytes(b))


@pytest.mark.parametrize(
    "offset, value, what",
    [(8, 0x1, "RuntimeError"), (10, 97, "NotImplementedError"), (42, 10**6, "")],
    ids=["encrypted", "unknown-compression", "wrong-offset"],
)
def test_a_damaged_zip_directory_is_a_value_error(stored, tmp_path, offset, value, what):
    js, _ = _copy(stored, tmp_path)
    npz = js.with_suffix(".npz")
    _patch_central(npz, offset, value, "<I" if offset == 42 else "<H")
    with pytest.raises(Exception) as raw:  # what numpy alone raises for it
        with np.load(npz, allow_pickle=False) as z:
            z["regret"]
    assert what in type(raw.value).__name__
    _refused(js, "unreadable")


@pytest.mark.parametrize(
    "path, value, fragment",
    [
        (("provenance",), "abc", "'provenance' that is not an object"),
        (("seed",), "0", "malformed 'seed'"),
        (("arrays",), [], "must hash exactly the arrays"),
        (("arrays", "regret", "shape"), "3", "malformed arrays['regret']"),
        (("params", "runs"), "3", "params['runs'] must be an integer >= 1"),
        (("params", "weights"), "0.5,0.4", "params['weights'] must be a non-empty list"),
        (("params", "K"), 2.0, "params['K'] must be an integer >= 1"),
        (("params", "model"), 7, "params['model'] must be one of"),
        (("provenance", "engine_version"), "4", "provenance['engine_version']"),
        (("provenance", "seed_spawn_key"), [-1], "provenance['seed_spawn_key']"),
        (("summary",), None, "'summary' that is not an object"),
        (("format",), "3", "has format '3'"),
    ],
)
def test_json_of_the_wrong_types_is_refused_even_resealed(stored, tmp_path, path, value, fragment):
    js, _ = _copy(stored, tmp_path)

    def edit(doc):
        d = doc
        for k in path[:-1]:
            d = d[k]
        d[path[-1]] = value

    _reseal(js, edit=edit)
    _refused(js, fragment)


def test_the_sweep_refuses_a_damaged_cell_and_leaves_it_alone(tmp_path):
    cell = _cell(runs=2, horizon=300)
    run_cells([cell], tmp_path, seed=4, workers=1, progress=False)
    js = tmp_path / "exp" / f"{cell.cell_id}.json"
    _reseal(js, edit=lambda doc: doc.__setitem__("provenance", "a string"))
    before = {p.name: p.read_bytes() for p in (tmp_path / "exp").iterdir()}
    with pytest.raises(ValueError, match="'provenance' that is not an object") as exc:
        run_cells([cell], tmp_path, seed=4, workers=1, progress=False)
    assert str(js) in str(exc.value) and "\n" not in str(exc.value)
    assert {p.name: p.read_bytes() for p in (tmp_path / "exp").iterdir()} == before
    again = run_cells([cell], tmp_path, seed=4, workers=1, progress=False, overwrite=True)
    assert load_result(js).params == again[0].params


def test_save_refuses_what_load_would_refuse(tmp_path):
    res = run_cell(_cell(runs=2, horizon=300), 1)
    bad = CellResult(res.params, res.checkpoints, res.regret * -1, res.counts, res.provenance)
    with pytest.raises(ValueError, match="refusing to store .* regret must be >= 0"):
        save_result(bad, tmp_path)
    no_seed = CellResult(res.params, res.checkpoints, res.regret, res.counts, {})
    with pytest.raises(ValueError, match="refusing to store"):
        save_result(no_seed, tmp_path)
    assert not list(tmp_path.rglob("*.np*")) and not list(tmp_path.rglob("*.json"))
