"""Storage of cell results in open formats: ``.npz`` arrays + ``.json`` parameters and provenance.

Layout: ``OUT/<experiment>/<cell_id>.npz`` (``checkpoints``, ``regret``, ``counts``; loads
with ``numpy.load(..., allow_pickle=False)``) and ``OUT/<experiment>/<cell_id>.json``
(``format``, ``params``, ``seed``, ``arrays``, ``provenance``, ``summary``; strict JSON).

Integrity (format 2):

* identity -- a stored cell is the result of its ``params`` *and* its ``seed`` (the entropy
  and spawn key of the cell's SeedSequence); :func:`stored_identity` reads both, and the
  sweep refuses to resume a directory written with another seed;
* content -- ``arrays`` holds the SHA-256 of each array (little-endian bytes, C order) with
  its dtype and shape; :func:`load_result` recomputes them and refuses any mismatch
  (a file edited after it was written), naming the file;
* completeness -- each file is written to a temporary file in the same directory and moved
  into place with ``os.replace`` (atomic on POSIX), the ``.npz`` first and the ``.json``
  last. A cell is *stored* when both files exist; one file alone is the remnant of an
  interrupted write (or of a deletion) and does not count. Unreadable or truncated files
  raise a one-line ValueError naming the file and the remedy, never a traceback.

Nothing is overwritten unless ``overwrite=True``.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import zipfile
from pathlib import Path

import numpy as np

from cascading_bandits.simulate.results import CellResult

__all__ = [
    "save_result",
    "load_result",
    "load_results",
    "cell_paths",
    "cell_state",
    "stored_params",
    "stored_identity",
    "array_digest",
    "FORMAT",
]

#: 2: seed identity and SHA-256 content hashes (1 had neither and is refused on load)
FORMAT = 2

#: (name, dtype) of the arrays of a cell, in the .npz
_ARRAYS = (("checkpoints", "<i8"), ("regret", "<f8"), ("counts", "<i8"))


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


def save_result(result: CellResult, out_dir, *, overwrite: bool = False) -> Path:
    """Write one cell atomically; ValueError if it is stored and ``overwrite`` is False.

    One file without the other (an interrupted write, a deleted ``.npz``) is not a stored
    cell and is replaced. Returns the ``.json`` path.
    """
    p = result.params
    npz, js = cell_paths(out_dir, p["experiment"], p["cell_id"])
    if not overwrite and npz.exists() and js.exists():
        raise ValueError(
            f"{js} already exists; refusing to overwrite it (pass overwrite=True / --overwrite)"
        )
    arrays = {name: np.asarray(getattr(result, name), dtype=dt) for name, dt in _ARRAYS}
    doc = {
        "format": FORMAT,
        "params": p,
        "seed": _seed_of(result.provenance),
        "arrays": {name: array_digest(a) for name, a in arrays.items()},
        "provenance": result.provenance,
        "summary": result.summary(),
    }
    text = json.dumps(doc, indent=1, allow_nan=False)  # strict JSON: fails before any write
    if js.exists():
        js.unlink()  # an orphan .json (its .npz gone) must not pair with the new .npz mid-write
    _atomic_write(npz, lambda f: np.savez(f, **arrays))
    _atomic_write(js, lambda f: f.write(text.encode()))
    return js


def _read_doc(js: Path) -> dict:
    """The parsed ``.json`` of a cell; ValueError naming the file if it is not a format-2 cell."""
    try:
        doc = json.loads(js.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        what = "is empty" if js.exists() and js.stat().st_size == 0 else f"is unreadable ({exc})"
        raise ValueError(f"stored cell {js} {what}; {_remedy(js)}") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("params"), dict):
        raise ValueError(f"stored cell {js} is not a cell record (no 'params'); {_remedy(js)}")
    if doc.get("format") != FORMAT:
        raise ValueError(
            f"stored cell {js} has format {doc.get('format')!r}, not {FORMAT} (no seed identity "
            f"or content hashes to verify it against); {_remedy(js)}"
        )
    if not isinstance(doc.get("arrays"), dict):
        raise ValueError(f"stored cell {js} has no content hashes ('arrays'); {_remedy(js)}")
    return doc


def stored_identity(out_dir, experiment: str, cell_id: str) -> tuple[dict, dict | None] | None:
    """(params, seed) of a stored cell, or None if it is not stored (see :func:`cell_state`).

    ``seed`` is ``{"entropy": str, "spawn_key": [int, ...]}`` (None if the result carried no
    seed). ValueError naming the file if the ``.json`` is unreadable or of another format.
    """
    if cell_state(out_dir, experiment, cell_id) != "stored":
        return None
    doc = _read_doc(cell_paths(out_dir, experiment, cell_id)[1])
    return doc["params"], doc.get("seed")


def stored_params(out_dir, experiment: str, cell_id: str) -> dict | None:
    """Parameters of a stored cell, or None if there is none (see :func:`stored_identity`)."""
    ident = stored_identity(out_dir, experiment, cell_id)
    return None if ident is None else ident[0]


def load_result(json_path) -> CellResult:
    """Read one cell from its ``.json`` path (the ``.npz`` beside it), verifying its hashes.

    ValueError (one line naming the file and the remedy) if either file is missing,
    truncated or unreadable, or if an array differs from the SHA-256 recorded at write time.
    """
    js = Path(json_path)
    doc = _read_doc(js)
    npz = js.with_suffix(".npz")
    if not npz.exists():
        raise ValueError(f"stored cell {js} has no {npz.name} beside it; {_remedy(js)}")
    arrays = {}
    try:
        with np.load(npz, allow_pickle=False) as z:
            for name, _ in _ARRAYS:
                arrays[name] = z[name]
    except KeyError as exc:
        raise ValueError(f"stored arrays {npz} lack {exc}; {_remedy(js)}") from None
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as exc:
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise ValueError(f"stored arrays {npz} are unreadable ({reason}); {_remedy(js)}") from None
    for name, a in arrays.items():
        if array_digest(a) != doc["arrays"].get(name):
            raise ValueError(
                f"stored arrays {npz}: '{name}' does not match the SHA-256 recorded in {js.name} "
                f"(changed after it was written); {_remedy(js)}"
            )
    try:
        return CellResult(
            doc["params"],
            arrays["checkpoints"],
            arrays["regret"],
            arrays["counts"],
            doc.get("provenance", {}),
        )
    except ValueError as exc:
        raise ValueError(f"stored cell {js} is inconsistent ({exc}); {_remedy(js)}") from None


def load_results(out_dir, name: str) -> list[CellResult]:
    """Every stored cell of experiment ``name`` under ``out_dir``, hashes verified.

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
