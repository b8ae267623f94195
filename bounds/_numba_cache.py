"""Where numba caches the compiled kernels: a directory named by a digest of their sources.

numba re-compiles a cached function only when the file that defines it changes. The
simulator's kernels are built from helpers in other files (``simulate/rng.py``,
``simulate/policies/kernel.py``, ``bounds/kl.py``, ...), so after an in-place upgrade a
kernel whose own file did not change would load machine code built from the old helpers:
other numbers, or the old speed, without a word. Importing this module (``bounds`` and
``simulate`` do it first) points numba's cache at ``<base>/<digest>``, where the digest
covers every ``.py`` file of ``cascading_bandits.bounds`` and ``cascading_bandits.simulate``
(policies included): any edit there starts a fresh cache, an unchanged install reuses its
own. ``<base>`` is ``$NUMBA_CACHE_DIR`` if set, else ``$XDG_CACHE_HOME/cascading-bandits/numba``
(``~/.cache/...``). If that directory cannot be created, numba's default is left alone.

numba's cache setting is process-wide: kernels of your own modules imported after this
one are cached under the same directory.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import numba

__all__ = ["source_digest", "cache_dir"]

_PACKAGES = ("bounds", "simulate")


def source_digest(dirs) -> str:
    """sha256 (hex, 16 characters) of the relative paths and contents of the ``.py`` files
    under each directory of ``dirs`` (an iterable of paths), in sorted order."""
    h = hashlib.sha256()
    for d in dirs:
        d = Path(d)
        if not d.is_dir():
            raise ValueError(f"source directory {d} does not exist")
        for f in sorted(d.rglob("*.py")):
            h.update(str(f.relative_to(d.parent)).encode())
            h.update(b"\0")
            h.update(f.read_bytes())
    return h.hexdigest()[:16]


def cache_dir() -> Path:
    """The cache directory of this install: ``<base>/<source_digest of bounds, simulate>``."""
    here = Path(__file__).resolve().parent  # the bounds package; simulate is its sibling
    base = os.environ.get("NUMBA_CACHE_DIR")
    if base:
        root = Path(base)
    else:
        xdg = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
        root = Path(xdg) / "cascading-bandits" / "numba"
    return root / source_digest(here.parent / p for p in _PACKAGES)


def _configure() -> None:
    try:
        d = cache_dir()
        d.mkdir(parents=True, exist_ok=True)
    except (OSError, ValueError):
        return  # read-only home or an unusual layout: numba's own default
    numba.config.CACHE_DIR = str(d)


_configure()
