"""Storage of cell results in open formats: ``.npz`` arrays + ``.json`` parameters and provenance.

Layout: ``OUT/<experiment>/<cell_id>.npz`` (``checkpoints``, ``regret``, ``counts``; loads
with ``numpy.load(..., allow_pickle=False)``) and ``OUT/<experiment>/<cell_id>.json``
(``format``, ``params``, ``seed``, ``arrays``, ``provenance``, ``summary``,
``record_sha256``; strict JSON).

Integrity (format 3):

* identity -- a stored cell is the result of its ``params`` *and* its ``seed`` (the entropy
  and spawn key of the cell's SeedSequence, :func:`simulate.sweep.cell_seed`);
  :func:`stored_identity` reads both, and the sweep refuses to resume a directory written
  with another seed;
* content -- ``arrays`` holds the SHA-256 of each of the three arrays (little-endian bytes,
  C order) with its dtype and shape, and ``record_sha256`` the SHA-256 of the rest of the
  record (:func:`record_digest`); :func:`load_result` recomputes them all and refuses any
  mismatch (a file changed after it was written);
* meaning -- a loaded cell must also be a result the engine can produce: the record's
  fields of their types, the arrays of the recorded dtypes and shapes, and
  :func:`simulate.results.check_result` (sizes consistent with runs, L and the horizon,
  finite regret non-decreasing and non-negative up to the documented rounding, counts
  within what runs of that horizon observe). A file replaced by another with re-computed
  hashes is refused too;
* completeness -- each file is written to a temporary file in the same directory and moved
  into place with ``os.replace`` (atomic on POSIX), the ``.npz`` first and the ``.json``
  last. A cell is *stored* when both files exist; one file alone is the remnant of an
  interrupted write (or of a deletion) and does not count.

Any damage to a stored file -- truncated, bytes changed, a broken zip directory, an
encrypted or unknown-compression member, a missing or extra array, another dtype or
shape, JSON of another type -- raises a one-line ValueError naming the file, what is
wrong and the remedy, never another exception. Nothing is overwritten unless
``overwrite=True``.

Format 2 (before the content hash of the record and before cells were seeded by what they
compute) and format 1 are refused on load, naming the file.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import tempfile
import zipfile
from pathlib import Path

import numpy as np

from cascading_bandits.simulate.results import CellResult, check_params, check_result

__all__ = [
    "save_result",
    "load_result",
    "load_results",
    "cell_paths",
    "cell_state",
    "stored_params",
    "stored_identity",
    "array_digest",
    "record_digest",
    "read_npz_members",
    "exc_reason",
    "FORMAT",
]

#: 3: record hash and seeds keyed by a cell's content; 2: seed identity and array hashes
#: (seeds keyed by the cell's name); 1: neither. Only 3 is read.
FORMAT = 3

#: (name, dtype) of the arrays of a cell, in the .npz
_ARRAYS = (("checkpoints", "<i8"), ("regret", "<f8"), ("counts", "<i8"))

#: provenance keys every stored cell records (:func:`simulate.runner.provenance_base`) and
#: a check of each value's type
_PROVENANCE = {
    "seed_entropy": lambda v: isinstance(v, str) and v.isdigit(),
    "seed_spawn_key": lambda v: _int_list(v, 2**32),
    "users_key": lambda v: isinstance(v, str),
    "policy_key": lambda v: isinstance(v, str),
    "rng": lambda v: isinstance(v, str),
    "engine_version": lambda v: _is_int(v),
    "versions": lambda v: (
        isinstance(v, dict) and all(isinstance(x, str) or x is None for x in v.values())
    ),
    "git_commit": lambda v: v is None or isinstance(v, str),
    "git_dirty": lambda v: v is None or isinstance(v, bool),
    "seconds": lambda v: _is_num(v) and v >= 0,
}
_PROVENANCE_TEXT = {
    "seed_entropy": "a string of decimal digits",
    "seed_spawn_key": "a list of integers in [0, 2**32)",
    "engine_version": "an integer",
    "versions": "a dict of package -> version string or null",
    "git_commit": "a string or null",
    "git_dirty": "true, false or null",
    "seconds": "a number >= 0",
}
_HEX64 = re.compile(r"[0-9a-f]{64}")


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_num(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _int_list(v, bound) -> bool:
    return isinstance(v, list) and all(_is_int(x) and 0 <= x < bound for x in v)


def cell_paths(out_dir, experiment: str, cell_id: str) -> tuple[Path, Path]:
    """(npz path, json path) of a cell."""
    d = Path(out_dir) / experiment
    return d / f"{cell_id}.npz", d / f"{cell_id}.json"


def array_digest(a) -> dict:
    """SHA-256 of an array's little-endian C-order bytes, with its dtype and shape."""
    a = np.asarray(a)
    le = np.ascontiguousarray(a, dtype=a.dtype.newbyteorder("<"))
    return {
        "sha256": hashlib.sha256(le.tobytes()).hexdigest(),
        "dtype": le.dtype.str,
        "shape": [int(s) for s in a.shape],
    }


def record_digest(doc: dict) -> str:
    """SHA-256 of a cell record without its ``record_sha256``: canonical JSON (sorted keys,
    no spaces, ASCII), which reads back to the same text (floats print as their shortest
    round-tripping repr)."""
    body = {k: v for k, v in doc.items() if k != "record_sha256"}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), allow_nan=False)
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def _remedy(js: Path) -> str:
    npz = js.with_suffix(".npz")
    return (
        f"delete {js.name} and {npz.name} in {js.parent} to recompute the cell, "
        "or rerun with --overwrite (overwrite=True)"
    )


def _atomic_write(path: Path, write) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o644)  # mkstemp makes 0600; results are meant to be shared
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _seed_of(provenance: dict) -> dict | None:
    """The seed identity (entropy, spawn key) recorded by :func:`simulate.runner.run_cell`."""
    if "seed_entropy" not in provenance:
        return None
    return {
        "entropy": str(provenance["seed_entropy"]),
        "spawn_key": [int(x) for x in provenance.get("seed_spawn_key", [])],
    }


def cell_state(out_dir, experiment: str, cell_id: str) -> str:
    """``"stored"`` (both files), ``"missing"`` (neither), ``"npz-only"`` or ``"json-only"``."""
    npz, js = cell_paths(out_dir, experiment, cell_id)
    a, b = npz.exists(), js.exists()
    return {(True, True): "stored", (False, False): "missing", (True, False): "npz-only"}.get(
        (a, b), "json-only"
    )


def _check_record(doc, fail) -> None:
    """Every field of a cell record of its type; ``fail(what)`` raises (it names the file)."""
    if not isinstance(doc, dict):
        fail(f"is not a cell record (a JSON object), it holds a {type(doc).__name__}")
    if not isinstance(doc.get("params"), dict):
        fail("is not a cell record ('params' must be an object)")
    if doc.get("format") != FORMAT:
        fail(
            f"has format {doc.get('format')!r:.20}, not {FORMAT} (format 2 and older keyed "
            "cells' seeds by their names and hashed the arrays only; this version cannot "
            "resume or verify them)"
        )
    if doc.get("record_sha256") != record_digest(doc):
        fail("does not match its record_sha256 (changed after it was written)")
    seed = doc.get("seed")
    if (
        not isinstance(seed, dict)
        or set(seed) != {"entropy", "spawn_key"}
        or not (isinstance(seed["entropy"], str) and seed["entropy"].isdigit())
        or not _int_list(seed["spawn_key"], 2**32)
    ):
        fail(
            "has a malformed 'seed' (must be {'entropy': decimal string, 'spawn_key': "
            f"[integers in [0, 2**32)]}}), got {seed!r:.60}"
        )
    arrays = doc.get("arrays")
    names = [n for n, _ in _ARRAYS]
    if not isinstance(arrays, dict) or sorted(arrays) != sorted(names):
        fail(f"must hash exactly the arrays {', '.join(names)} in 'arrays', got {arrays!r:.60}")
    for name, dt in _ARRAYS:
        a = arrays[name]
        if (
            not isinstance(a, dict)
            or set(a) != {"sha256", "dtype", "shape"}
            or not (isinstance(a["sha256"], str) and _HEX64.fullmatch(a["sha256"]))
            or a["dtype"] != dt
            or not _int_list(a["shape"], 2**63)
        ):
            fail(
                f"has a malformed arrays['{name}'] (must be {{'sha256': 64 hex digits, "
                f"'dtype': '{dt}', 'shape': [integers >= 0]}}), got {a!r:.80}"
            )
    prov = doc.get("provenance")
    if not isinstance(prov, dict):
        fail(f"has a 'provenance' that is not an object but {type(prov).__name__}")
    for key, ok in _PROVENANCE.items():
        if key not in prov:
            fail(f"lacks provenance['{key}']")
        if not ok(prov[key]):
            want = _PROVENANCE_TEXT.get(key, "a string")
            fail(f"has provenance['{key}'] = {prov[key]!r:.40}, which must be {want}")
    if _seed_of(prov) != seed:
        fail("has a 'seed' that differs from its provenance's seed_entropy / seed_spawn_key")
    if not isinstance(doc.get("summary"), dict):
        fail(f"has a 'summary' that is not an object but {type(doc.get('summary')).__name__}")
    p = doc["params"]
    try:
        check_params(p)
    except ValueError as exc:
        fail(f"has bad parameters ({exc})")
    shapes = {n: tuple(arrays[n]["shape"]) for n in names}
    m = shapes["checkpoints"]
    runs, L = p.get("runs"), p.get("L")
    want = {"checkpoints": m, "regret": (runs, *m), "counts": (runs, L)}
    for n in names:
        if len(m) != 1 or shapes[n] != want[n]:
            fail(
                f"records arrays['{n}'] of shape {list(shapes[n])}, but params (runs = "
                f"{runs!r:.20}, L = {L!r:.20}) and checkpoints {list(m)} ask for "
                f"{list(want[n]) if len(m) == 1 else '(m,)'}"
            )


def _reject_constant(name):
    raise ValueError(f"non-standard JSON constant {name}")


def _finite_float(text):
    x = float(text)
    if not math.isfinite(x):  # 1e999 parses as inf without passing parse_constant
        raise ValueError(f"number {text[:30]} out of the float range")
    return x


def _read_doc(js: Path) -> dict:
    """The parsed, type-checked ``.json`` of a cell; ValueError naming the file otherwise."""

    def fail(what):
        raise ValueError(f"stored cell {js} {what}; {_remedy(js)}")

    try:
        raw = js.read_bytes()
    except OSError as exc:
        fail(f"is unreadable ({exc.strerror or exc_reason(exc)})")
    if not raw:
        fail("is empty")
    try:
        doc = json.loads(
            raw.decode("utf-8"), parse_constant=_reject_constant, parse_float=_finite_float
        )
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        fail(f"is unreadable ({exc_reason(exc)})")
    _check_record(doc, fail)
    return doc


class _Damaged(Exception):
    """What :func:`read_npz_members` found wrong, before the caller names its file."""


def _npy_member(zf: zipfile.ZipFile, name: str, meta: dict | None) -> np.ndarray:
    """One ``.npy`` member. Its header is checked before any data is read: it must not hold
    Python objects, must account for exactly the bytes the zip directory gives the member
    (a damaged header cannot make the loader allocate more than the file holds) and, with
    ``meta`` (a record's ``{"dtype", "shape"}``), must be C-ordered of that dtype and shape."""
    member = f"{name}.npy"
    info = zf.getinfo(member)
    with zf.open(info) as f:
        version = np.lib.format.read_magic(f)
        if version == (1, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_1_0(f)
        elif version == (2, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_2_0(f)
        else:
            raise _Damaged(f"holds '{member}' of .npy version {version}, not 1.0 or 2.0")
        if dtype.hasobject:
            raise _Damaged(f"holds '{member}' of Python objects (dtype {dtype})")
        if meta is not None and (
            fortran or dtype.str != meta["dtype"] or list(shape) != meta["shape"]
        ):
            raise _Damaged(
                f"holds '{member}' of {dtype.str} of shape {list(shape)}"
                f"{' (Fortran order)' if fortran else ''}; the record says {meta['dtype']} "
                f"of shape {meta['shape']}"
            )
        nbytes = dtype.itemsize * math.prod(shape)
        if nbytes != info.file_size - f.tell():
            raise _Damaged(
                f"holds '{member}' whose header says shape {list(shape)} of {dtype.str} "
                f"({nbytes} bytes) where the member has {info.file_size - f.tell()}"
            )
        data = f.read(nbytes + 1)  # to the end: zipfile checks the CRC-32 there
    if len(data) != nbytes:
        raise _Damaged(f"holds '{member}' truncated to {len(data)} of {nbytes} bytes")
    order = "F" if fortran else "C"
    return np.frombuffer(data, dtype=dtype).reshape(shape, order=order).copy()


def read_npz_members(npz, names, fail, meta: dict | None = None) -> dict:
    """Exactly the arrays ``names`` of the zip ``npz`` (``<name>.npy`` members), read without
    pickle and checked member by member (:func:`_npy_member`); ``meta`` maps a name to the
    dtype and shape its record gives. Any damage -- other members, a broken zip, an
    encrypted or unknown-compression member, a bad header, short data, a CRC mismatch --
    calls ``fail(what)`` (which must raise, naming the file) with one line, never another
    exception. The stored cells (:func:`load_result`) and the asymptotic benchmark's chunks
    (``reports.profile_report.load_asymptotic``) share it."""
    try:
        with zipfile.ZipFile(npz) as zf:
            have = sorted(zf.namelist())
            want = sorted(f"{n}.npy" for n in names)
            if have != want:
                raise _Damaged(f"holds {have}, not exactly {want}")
            return {n: _npy_member(zf, n, None if meta is None else meta[n]) for n in names}
    except _Damaged as exc:
        fail(str(exc))
    # anything a damaged zip or .npy raises (BadZipFile, RuntimeError for an encrypted
    # member, NotImplementedError for an unknown compression, zlib.error, EOFError, struct
    # errors, OSError, MemoryError, ...) means the file is damaged
    except Exception as exc:  # noqa: BLE001
        fail(f"is unreadable ({exc_reason(exc)})")
    raise AssertionError("fail() returned")  # pragma: no cover


def exc_reason(exc) -> str:
    """One line naming an exception: its type and the first line of its text (120 characters)."""
    text = str(exc).splitlines()[0] if str(exc) else ""
    return f"{type(exc).__name__}: {text[:120]}" if text else type(exc).__name__


#: summary keys added after format 3 was introduced; their values are also in ``params``,
#: which the record's hash covers, so an older record without them is still whole
_SUMMARY_ADDED = ("kappa", "lam")


def _summary_mismatch(stored: dict, result: CellResult) -> str | None:
    want = result.summary()
    for k, v in want.items():
        if k in _SUMMARY_ADDED and k not in stored:
            continue  # written before the summary repeated it; params (hashed) hold it
        got = stored.get(k, "(missing)")
        if isinstance(v, float) and _is_num(got):
            if not math.isclose(got, v, rel_tol=1e-9, abs_tol=1e-12):
                return f"summary['{k}'] = {got!r} but the arrays give {v!r}"
        elif got != v or type(got) is not type(v):
            return f"summary['{k}'] = {got!r:.40} but the record gives {v!r:.40}"
    return None


def _record(result: CellResult) -> dict:
    p = result.params
    arrays = {name: np.asarray(getattr(result, name), dtype=dt) for name, dt in _ARRAYS}
    doc = {
        "format": FORMAT,
        "params": p,
        "seed": _seed_of(result.provenance),
        "arrays": {name: array_digest(a) for name, a in arrays.items()},
        "provenance": result.provenance,
        "summary": result.summary(),
    }
    # strict JSON through a round trip (tuples become lists, as they will read back)
    doc = json.loads(json.dumps(doc, allow_nan=False))
    doc["record_sha256"] = record_digest(doc)
    return doc, arrays


def save_result(result: CellResult, out_dir, *, overwrite: bool = False) -> Path:
    """Write one cell atomically; ValueError if it is stored and ``overwrite`` is False.

    The result must pass what loading checks (:func:`load_result`): a record that could
    not be read back is refused before anything is written. One file without the other
    (an interrupted write, a deleted ``.npz``) is not a stored cell and is replaced.
    Returns the ``.json`` path.
    """
    if not isinstance(result, CellResult):
        raise ValueError(f"result must be a CellResult, got {type(result).__name__}")
    p = result.params
    try:
        check_result(result)
    except ValueError as exc:
        raise ValueError(f"refusing to store cell {p.get('cell_id')!r:.60}: {exc}") from None
    npz, js = cell_paths(out_dir, p["experiment"], p["cell_id"])
    if not overwrite and npz.exists() and js.exists():
        raise ValueError(
            f"{js} already exists; refusing to overwrite it (pass overwrite=True / --overwrite)"
        )
    try:
        doc, arrays = _record(result)  # strict JSON: fails before any write
    except (TypeError, ValueError) as exc:
        raise ValueError(
            f"refusing to store cell {p['cell_id']!r}: its record is not strict JSON ({exc})"
        ) from None

    def fail(what):
        raise ValueError(f"refusing to store cell {p['cell_id']!r}: its record {what}")

    _check_record(doc, fail)
    text = json.dumps(doc, indent=1, allow_nan=False)
    if js.exists():
        js.unlink()  # an orphan .json (its .npz gone) must not pair with the new .npz mid-write
    _atomic_write(npz, lambda f: np.savez(f, **arrays))
    _atomic_write(js, lambda f: f.write(text.encode()))
    return js


def stored_identity(out_dir, experiment: str, cell_id: str) -> tuple[dict, dict] | None:
    """(params, seed) of a stored cell, or None if it is not stored (see :func:`cell_state`).

    ``seed`` is ``{"entropy": str, "spawn_key": [int, ...]}``. ValueError naming the file
    if the ``.json`` is unreadable, of another format or damaged (:func:`load_result`'s
    checks of the record; the arrays are not read).
    """
    if cell_state(out_dir, experiment, cell_id) != "stored":
        return None
    doc = _read_doc(cell_paths(out_dir, experiment, cell_id)[1])
    return doc["params"], doc["seed"]


def stored_params(out_dir, experiment: str, cell_id: str) -> dict | None:
    """Parameters of a stored cell, or None if there is none (see :func:`stored_identity`)."""
    ident = stored_identity(out_dir, experiment, cell_id)
    return None if ident is None else ident[0]


def load_result(json_path) -> CellResult:
    """Read one cell from its ``.json`` path (the ``.npz`` beside it), verifying it.

    ValueError (one line naming the file, what is wrong and the remedy) if either file is
    missing, truncated, unreadable or damaged, if the record or an array differs from the
    SHA-256 recorded at write time, or if the cell is not a result the engine can produce
    (module docstring; :func:`simulate.results.check_result`).
    """
    js = Path(json_path)
    doc = _read_doc(js)
    npz = js.with_suffix(".npz")
    if not npz.exists():
        raise ValueError(f"stored cell {js} has no {npz.name} beside it; {_remedy(js)}")

    def fail(what):
        raise ValueError(f"stored arrays {npz} {what}; {_remedy(js)}")

    arrays = read_npz_members(npz, [n for n, _ in _ARRAYS], fail, doc["arrays"])
    for name, a in arrays.items():
        if array_digest(a) != doc["arrays"][name]:
            fail(
                f"'{name}' does not match the SHA-256 recorded in {js.name} "
                "(changed after it was written)"
            )
    try:
        res = CellResult(
            doc["params"],
            arrays["checkpoints"],
            arrays["regret"],
            arrays["counts"],
            doc["provenance"],
        )
        check_result(res)
    except ValueError as exc:
        raise ValueError(f"stored cell {js} is not a valid result ({exc}); {_remedy(js)}") from None
    bad = _summary_mismatch(doc["summary"], res)
    if bad:
        raise ValueError(f"stored cell {js} is not a valid result ({bad}); {_remedy(js)}")
    return res


def load_results(out_dir, name: str) -> list[CellResult]:
    """Every stored cell of experiment ``name`` under ``out_dir``, verified (:func:`load_result`).

    Ordered as in :func:`simulate.experiments.get_experiment` when the cell ids are the
    experiment's, then by cell id. ValueError if there is no such directory.
    """
    d = Path(out_dir) / name
    if not d.is_dir():
        raise ValueError(f"no stored results for experiment {name!r} under {Path(out_dir)}")
    rank = {}
    try:
        from cascading_bandits.simulate.experiments import get_experiment

        rank = {c.cell_id: i for i, c in enumerate(get_experiment(name))}
    except ValueError:
        pass
    paths = [p for p in d.glob("*.json") if p.with_suffix(".npz").exists()]
    paths.sort(key=lambda p: (rank.get(p.stem, len(rank)), p.stem))
    return [load_result(p) for p in paths]
