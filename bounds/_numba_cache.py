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

Each edit or upgrade leaves the previous digest's directory behind (about 30 MB once every
kernel is compiled). Importing this module marks its own directory as used (its mtime) and
removes the sibling directories named like a digest (16 hexadecimal characters; nothing else
under ``<base>`` is touched) that are neither among the :data:`KEEP` most recently used nor
used within the last :data:`KEEP_SECONDS`: a second install sharing the base (another
environment, another version) keeps its kernels while it is in use, and a developer's cache
stays bounded. A process that has not imported the package within that time and then compiles
a new kernel finds its directory gone: numba re-creates it on its next import.

numba's cache setting is process-wide: kernels of your own modules imported after this
one are cached under the same directory.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import time
from pathlib import Path

import numba

__all__ = ["source_digest", "cache_dir", "prune", "KEEP", "KEEP_SECONDS"]

_PACKAGES = ("bounds", "simulate")

#: sibling digest directories always kept, the most recently used first
KEEP = 8
#: and every digest directory used within this many seconds (one day)
KEEP_SECONDS = 86_400.0

_DIGEST = re.compile(r"[0-9a-f]{16}")


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


def prune(current, keep: int = KEEP, keep_seconds: float = KEEP_SECONDS, now=None) -> list:
    """Remove old digest directories beside ``current``; return the removed paths.

    Parameters
    ----------
    current : path
        This install's cache directory (``<base>/<digest>``); never removed.
    keep : int
        How many other digest directories to keep, the most recently used (mtime) first.
    keep_seconds : float
        Digest directories used within this many seconds of ``now`` are kept as well.
    now : float, optional
        The time to compare with (``time.time()`` by default).

    Only directories of ``current.parent`` named by 16 lowercase hexadecimal characters
    are candidates; a directory that cannot be removed (permissions, another process) is
    left as it is.
    """
    if isinstance(keep, bool) or not isinstance(keep, int) or keep < 0:
        raise ValueError(f"keep must be an integer >= 0, got {keep!r}")
    if not keep_seconds >= 0:  # NaN too
        raise ValueError(f"keep_seconds must be >= 0, got {keep_seconds!r}")
    current = Path(current)
    now = time.time() if now is None else now
    others = []
    try:
        entries = list(current.parent.iterdir())
    except OSError:
        return []
    for e in entries:
        if e.name == current.name or not _DIGEST.fullmatch(e.name):
            continue
        try:
            if e.is_symlink() or not e.is_dir():
                continue
            others.append((e.stat().st_mtime, e))
        except OSError:
            continue
    others.sort(key=lambda x: x[0], reverse=True)
    removed = []
    for mtime, e in others[keep:]:
        if now - mtime <= keep_seconds:
            continue
        shutil.rmtree(e, ignore_errors=True)
        if not e.exists():
            removed.append(e)
    return removed


def _configure() -> None:
    try:
        d = cache_dir()
        d.mkdir(parents=True, exist_ok=True)
        os.utime(d)  # "used now": prune keeps the directories in use
    except (OSError, ValueError):
        return  # read-only home or an unusual layout: numba's own default
    numba.config.CACHE_DIR = str(d)
    prune(d)


_configure()
