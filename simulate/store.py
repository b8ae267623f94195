"""Storage of cell results in open formats: ``.npz`` arrays + ``.json`` parameters and provenance.

Layout: ``OUT/<experiment>/<cell_id>.npz`` (``checkpoints``, ``regret``, ``counts``; loads
with ``numpy.load(..., allow_pickle=False)``) and ``OUT/<experiment>/<cell_id>.json``
(``params``, ``provenance``, ``summary``). Each file is written to a temporary file in
the same directory and moved into place with ``os.replace`` (atomic on POSIX); the
``.json`` is written last, so a cell is complete exactly when its ``.json`` exists and
its arrays load. Nothing is overwritten unless ``overwrite=True``.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import numpy as np

from cascading_bandits.simulate.results import CellResult

__all__ = ["save_result", "load_result", "load_results", "cell_paths", "stored_params", "FORMAT"]

FORMAT = 1


def cell_paths(out_dir, experiment: str, cell_id: str) -> tuple[Path, Path]:
    """(npz path, json path) of a cell."""
    d = Path(out_dir) / experiment
    return d / f"{cell_id}.npz", d / f"{cell_id}.json"


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


def save_result(result: CellResult, out_dir, *, overwrite: bool = False) -> Path:
    """Write one cell atomically; ValueError if it exists and ``overwrite`` is False.

    A cell exists once its ``.json`` does; an ``.npz`` without it is the remnant of an
    interrupted write and is replaced. Returns the ``.json`` path.
    """
    p = result.params
    npz, js = cell_paths(out_dir, p["experiment"], p["cell_id"])
    if not overwrite and js.exists():
        raise ValueError(
            f"{js} already exists; refusing to overwrite it (pass overwrite=True / --overwrite)"
        )
    _atomic_write(
        npz,
        lambda f: np.savez(
            f, checkpoints=result.checkpoints, regret=result.regret, counts=result.counts
        ),
    )
    doc = {
        "format": FORMAT,
        "params": p,
        "provenance": result.provenance,
        "summary": result.summary(),
    }
    _atomic_write(js, lambda f: f.write(json.dumps(doc, indent=1, allow_nan=True).encode()))
    return js


def stored_params(out_dir, experiment: str, cell_id: str) -> dict | None:
    """Parameters of a complete stored cell, or None if there is none."""
    npz, js = cell_paths(out_dir, experiment, cell_id)
    if not (js.exists() and npz.exists()):
        return None
    return json.loads(js.read_text())["params"]


def load_result(json_path) -> CellResult:
    """Read one cell from its ``.json`` path (the ``.npz`` beside it)."""
    js = Path(json_path)
    doc = json.loads(js.read_text())
    with np.load(js.with_suffix(".npz"), allow_pickle=False) as z:
        return CellResult(
            doc["params"], z["checkpoints"], z["regret"], z["counts"], doc.get("provenance", {})
        )


def load_results(out_dir, name: str) -> list[CellResult]:
    """Every complete cell stored for experiment ``name`` under ``out_dir``.

    Ordered as in :func:`simulate.experiments.get_experiment` when the cell ids are the
    experiment's, then by cell id. ValueError if there is no such directory.
    """
    d = Path(out_dir) / name
    if not d.is_dir():
        raise ValueError(f"no stored results for experiment {name!r} under {out_dir}")
    rank = {}
    try:
        from cascading_bandits.simulate.experiments import get_experiment

        rank = {c.cell_id: i for i, c in enumerate(get_experiment(name))}
    except ValueError:
        pass
    paths = [p for p in d.glob("*.json") if p.with_suffix(".npz").exists()]
    paths.sort(key=lambda p: (rank.get(p.stem, len(rank)), p.stem))
    return [load_result(p) for p in paths]
