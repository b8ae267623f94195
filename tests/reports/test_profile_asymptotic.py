"""load_asymptotic on damaged benchmark chunks: one line naming the file, never a raw error.

The chunks are written as benchmarks/asymptotic_runs.py writes them (``runs-<r0>-<r1>.npz``
with ``checkpoints``, ``regret``, ``counts`` and a ``.json`` with ``params`` and ``runs``);
tests/bounds/test_profile.py runs the script itself.
"""

import json
import shutil
import struct

import numpy as np
import pytest

from cascading_bandits.reports.profile_report import load_asymptotic
from cascading_bandits.simulate.experiments import b_lb_cell
from cascading_bandits.simulate.runner import run_cell

CELL = b_lb_cell("asymptotic", 8, 2, 0.2, 0.15, "cascade-ucb1", horizon=300, runs=4)
RES = run_cell(CELL, 0, checkpoints=np.array([30, 100, 300]))


def _write(d, r0, r1, *, cell=CELL, res=RES, **arrays):
    sub = d / cell.cell_id
    sub.mkdir(parents=True, exist_ok=True)
    stem = sub / f"runs-{r0:03d}-{r1:03d}"
    a = {
        "checkpoints": res.checkpoints,
        "regret": res.regret[r0:r1],
        "counts": res.counts[r0:r1],
    }
    a.update(arrays)
    np.savez(stem.with_suffix(".npz"), **a)
    doc = {"params": cell.params, "runs": [r0, r1], "seed": 0, "seconds": 0.1}
    stem.with_suffix(".json").write_text(json.dumps(doc, indent=1))
    return stem


@pytest.fixture
def good(tmp_path):
    d = tmp_path / "asym"
    stems = [_write(d, 0, 2), _write(d, 2, 4)]
    return d, stems


def test_intact_chunks_load_in_run_order(good):
    d, _ = good
    data = load_asymptotic(d)[CELL.cell_id]
    np.testing.assert_array_equal(data["regret"], RES.regret)
    np.testing.assert_array_equal(data["counts"], RES.counts)
    np.testing.assert_array_equal(data["checkpoints"], RES.checkpoints)
    assert data["params"] == json.loads(json.dumps(CELL.params))


def _refused(d, *fragments):
    with pytest.raises(ValueError) as info:
        load_asymptotic(d)
    msg = str(info.value)
    assert "\n" not in msg and msg.startswith("benchmark chunk "), msg
    for f in fragments:
        assert f in msg, (f, msg)
    return msg


def _central_directory_patch(npz, offset_in_header, fmt, value):
    """Set a field of every entry of the zip's central directory (signature PK\\1\\2)."""
    raw = bytearray(npz.read_bytes())
    i = raw.find(b"PK\x01\x02")
    assert i >= 0
    while i >= 0:
        struct.pack_into(fmt, raw, i + offset_in_header, value)
        i = raw.find(b"PK\x01\x02", i + 4)
    npz.write_bytes(bytes(raw))


def _edit_json(stem, fn):
    js = stem.with_suffix(".json")
    doc = json.loads(js.read_text())
    fn(doc)
    js.write_text(json.dumps(doc))


CASES = {
    # the .json
    "json truncated": (lambda s: s.with_suffix(".json").write_bytes(
        s.with_suffix(".json").read_bytes()[:40]), ["runs-000-002.json", "unreadable"]),
    "json empty": (lambda s: s.with_suffix(".json").write_bytes(b""), ["unreadable"]),
    "json not utf-8": (lambda s: s.with_suffix(".json").write_bytes(b"\xff\xfe{"),
                       ["UnicodeDecodeError"]),
    "json NaN": (lambda s: s.with_suffix(".json").write_text('{"params": NaN}'),
                 ["non-standard JSON constant NaN"]),
    "json deeply nested": (lambda s: s.with_suffix(".json").write_text("[" * 200_000),
                           ["unreadable"]),
    "json a list": (lambda s: s.with_suffix(".json").write_text("[]"), ["'params' object"]),
    "params a string": (lambda s: _edit_json(s, lambda d: d.update(params="x")),
                        ["'params' object"]),
    "params without K": (lambda s: _edit_json(s, lambda d: d["params"].pop("K")),
                         ["bad params", "lack K"]),
    "weights out of range": (lambda s: _edit_json(s, lambda d: d["params"].update(
        weights=[1.5] * 8)), ["bad params", "weights"]),
    "runs missing": (lambda s: _edit_json(s, lambda d: d.pop("runs")), ["'runs' = None"]),
    "runs not the name's": (lambda s: _edit_json(s, lambda d: d.update(runs=[0, 3])),
                            ["'runs' = [0, 3]"]),
    "runs beyond the cell": (lambda s: (_edit_json(s, lambda d: d.update(runs=[0, 9])),
                                        s.with_suffix(".json").rename(s.with_name(
                                            "runs-000-009.json")),
                                        s.with_suffix(".npz").rename(s.with_name(
                                            "runs-000-009.npz"))),
                             ["runs 0-9 of a cell of 4 runs"]),
    "other cell's chunk": (lambda s: _edit_json(s, lambda d: d["params"].update(
        cell_id="elsewhere")), ["is of cell 'elsewhere'"]),
    # the .npz
    "npz missing": (lambda s: s.with_suffix(".npz").unlink(), ["has no runs-000-002.npz"]),
    "npz truncated": (lambda s: s.with_suffix(".npz").write_bytes(
        s.with_suffix(".npz").read_bytes()[:300]), ["runs-000-002.npz", "unreadable"]),
    "npz empty": (lambda s: s.with_suffix(".npz").write_bytes(b""), ["unreadable"]),
    "npz data flipped": (lambda s: _flip(s.with_suffix(".npz"), 200), ["unreadable"]),
    "npz 'encrypted'": (lambda s: _central_directory_patch(s.with_suffix(".npz"), 8, "<H", 1),
                        ["unreadable"]),
    "npz unknown compression": (
        lambda s: _central_directory_patch(s.with_suffix(".npz"), 10, "<H", 99), ["unreadable"]),
    "npz a member short": (lambda s: _rewrite_npz(s, drop="counts"), ["not exactly"]),
    "npz an extra member": (lambda s: _rewrite_npz(s, extra=np.zeros(2)), ["not exactly"]),
    "npz of objects": (lambda s: _rewrite_npz(s, regret=np.array([[1, "a", None]] * 2,
                                                                 dtype=object)),
                       ["Python objects"]),
    "regret of another shape": (lambda s: _rewrite_npz(s, regret=RES.regret[:3]),
                                ["runs 0-2", "one row per run of regret"]),
    "regret NaN": (lambda s: _rewrite_npz(s, regret=np.where(RES.regret[:2] > 0, np.nan, 0)),
                   ["regret must be finite"]),
    "regret negative": (lambda s: _rewrite_npz(s, regret=-1 - RES.regret[:2]),
                        ["regret must be >= 0"]),
    "regret falling": (lambda s: _rewrite_npz(s, regret=RES.regret[:2, ::-1] + 1e-3),
                       ["non-decreasing"]),
    "counts of another shape": (lambda s: _rewrite_npz(s, counts=RES.counts[:2, :5]),
                                ["counts must have shape (2, 8)"]),
    "checkpoints strings": (lambda s: _rewrite_npz(s, checkpoints=np.array(["a", "b", "c"])),
                            ["checkpoints must be"]),
}  # fmt: skip


def _flip(path, at):
    raw = bytearray(path.read_bytes())
    raw[at] ^= 0xFF
    path.write_bytes(bytes(raw))


def _rewrite_npz(stem, drop=None, **arrays):
    npz = stem.with_suffix(".npz")
    with np.load(npz) as z:
        a = {k: z[k] for k in z.files if k != drop}
    a.update(arrays)
    npz.unlink()
    np.savez(npz, **a)


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_damaged_chunk_is_one_line_naming_the_file(good, case):
    d, stems = good
    damage, fragments = CASES[case]
    damage(stems[0])
    _refused(d, *fragments)


def test_header_claiming_more_than_the_member_holds(good):
    """A .npy header whose shape asks for more bytes than the zip member holds (a valid zip,
    CRC and all) is refused before the data is read: nothing of what the header claims is
    allocated."""
    import io
    import zipfile

    d, stems = good
    npz = stems[0].with_suffix(".npz")
    with np.load(npz) as z:
        a = {k: z[k] for k in z.files}
    npz.unlink()
    with zipfile.ZipFile(npz, "w") as zf:
        for name, arr in a.items():
            buf = io.BytesIO()
            np.save(buf, arr)
            raw = buf.getvalue()
            if name == "regret":
                assert raw.count(b"'shape': (2, 3)") == 1
                raw = raw.replace(b"'shape': (2, 3)", b"'shape': (2, 9)")
            zf.writestr(f"{name}.npy", raw)
    _refused(d, "runs-000-002.npz", "header says shape [2, 9]", "(144 bytes)", "has 48")


def test_chunks_of_one_cell_must_agree(good, tmp_path):
    d, stems = good
    # overlapping runs
    _write(d, 1, 3)
    _refused(d, "runs-001-003.json", "holds runs 1-3, which another chunk holds")
    for p in stems[0].parent.glob("runs-001-003.*"):
        p.unlink()
    # other checkpoints
    other = run_cell(CELL, 0, checkpoints=np.array([50, 300]))
    shutil.rmtree(d)
    _write(d, 0, 2)
    _write(d, 2, 4, res=other)
    _refused(d, "runs-002-004.json", "other checkpoints")
    # other params (another seed-free field of the same cell id)
    shutil.rmtree(d)
    _write(d, 0, 2)
    s = _write(d, 2, 4)
    _edit_json(s, lambda doc: doc["params"].update(experiment="other"))
    _refused(d, "runs-002-004.json", "other params")


def test_random_damage_never_escapes_as_another_error(good):
    """Truncations and byte flips anywhere in either file: the chunk loads intact data or
    is refused in one line naming it; no KeyError, zipfile, json or numpy error escapes."""
    d, stems = good
    rng = np.random.default_rng(5)
    files = [stems[0].with_suffix(".npz"), stems[0].with_suffix(".json")]
    originals = {f: f.read_bytes() for f in files}
    refused = 0
    for trial in range(160):
        f = files[trial % 2]
        raw = bytearray(originals[f])
        if trial % 4 < 2:
            raw = raw[: int(rng.integers(0, len(raw)))]
        else:
            for at in rng.integers(0, len(raw), size=int(rng.integers(1, 4))):
                raw[at] ^= int(rng.integers(1, 256))
        f.write_bytes(bytes(raw))
        try:
            data = load_asymptotic(d)[CELL.cell_id]
        except ValueError as exc:
            msg = str(exc)
            assert "\n" not in msg and msg.startswith(f"benchmark chunk {f.parent}"), msg
            refused += 1
        else:  # a flip the format does not see (e.g. in JSON whitespace): the data is intact
            np.testing.assert_array_equal(data["regret"], RES.regret)
            np.testing.assert_array_equal(data["counts"], RES.counts)
        f.write_bytes(originals[f])
    assert refused > 120
