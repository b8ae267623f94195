"""Writing the report's files: atomic writes, figures in PNG and PDF, JSON of numpy values.

Every file of the report, its cache and the stored proof chains is written through
:func:`atomic_write`: to a temporary file in the same directory, renamed over the target,
so a reader never sees a half-written file and an interrupted report leaves the old one.
"""

from __future__ import annotations

import math
import os
import tempfile
from pathlib import Path

import numpy as np

__all__ = ["atomic_write", "save_figure", "json_default", "write_text", "copy_file"]


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def atomic_write(path: Path, write) -> None:
    """Write ``path`` through ``write(tmp)`` on a temporary file in the same directory, then
    rename it over ``path`` (created with the mode a plain ``open`` would give it)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem}.", suffix=path.suffix)
    os.close(fd)
    try:
        write(tmp)
        # mkstemp makes the file private (0600); give it the mode a plain open() would
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise


def write_text(path: Path, text: str) -> None:
    """:func:`atomic_write` of ``text`` (UTF-8)."""
    atomic_write(path, lambda tmp: Path(tmp).write_text(text, encoding="utf-8"))


def copy_file(src: Path, dst: Path) -> None:
    """:func:`atomic_write` of the bytes of ``src`` into ``dst``."""
    blob = Path(src).read_bytes()
    atomic_write(dst, lambda tmp: Path(tmp).write_bytes(blob))


def save_figure(fig, out: Path, stem: str) -> list[str]:
    """Write ``fig`` as ``out/figures/<stem>.png`` and ``.pdf``; returns the two paths
    relative to ``out``, at the figures' resolution (:data:`reports.figures.DPI`)."""
    from cascading_bandits.reports.figures import DPI

    out = Path(out)
    paths = []
    for ext in ("png", "pdf"):
        path = out / "figures" / f"{stem}.{ext}"
        atomic_write(path, lambda tmp, ext=ext: fig.savefig(tmp, format=ext, dpi=DPI))
        paths.append(str(path.relative_to(out)))
        # the layout (in inches) is the same for both formats: solve it once, not per save
        fig.set_layout_engine("none")
    return paths


def json_default(x):
    """``json.dumps(default=)`` for numpy scalars (NaN -> None) and tuples."""
    if isinstance(x, np.integer):
        return int(x)
    if isinstance(x, np.floating):
        v = float(x)
        return None if math.isnan(v) else v
    if isinstance(x, tuple):
        return list(x)
    raise TypeError(f"not JSON-serialisable: {type(x).__name__}")
