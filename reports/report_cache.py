"""The report's cache: what verify, the bounds and the figures compute, kept in the results
directory and keyed by the code and the inputs it came from.

A value is stored as ``<results>/report-cache/<kind>-<digest>.json`` holding its kind, its
key (a JSON-native dict: the :func:`code_version` of the code that computed it and its
inputs) and the value; a figure's files sit in the folder of the same name. A value is read
back only if the file's kind and key equal the ones asked for, so a hash collision, a stale
file or another version of the code is recomputed, never trusted. The cache never holds a
stored simulation result.
"""

from __future__ import annotations

import hashlib
import json
import platform
from functools import cache
from pathlib import Path

import numpy as np

from cascading_bandits.reports import tables as T
from cascading_bandits.reports.report_files import (
    atomic_write,
    copy_file,
    json_default,
    save_figure,
)

__all__ = [
    "CACHE_DIR",
    "CACHE_SCHEMA",
    "code_version",
    "cache_path",
    "cache_load",
    "cache_store",
    "cached_figures",
    "cached_figures_hit",
    "store_figures",
    "BoundMemo",
    "bounds_cache_key",
]

#: folder of the results directory holding the cache (never a stored result)
CACHE_DIR = "report-cache"
#: bump when the cached values change meaning
CACHE_SCHEMA = 1
_CODE_PACKAGES = ("bounds", "verify", "simulate", "reports")


@cache
def code_version(*modules: str) -> str:
    """SHA-256 over the Python source of ``cascading_bandits.<module>`` for each module: a
    package (``"bounds"``: relative path and bytes of every ``.py`` file in it) or one module
    (``"reports.tables"``), and the versions of the numerical libraries. Any edit of the code
    a cached value came from invalidates it, committed or not.
    """
    import importlib.util
    from importlib import metadata

    h = hashlib.sha256()
    for mod in modules:
        if mod.split(".")[0] not in _CODE_PACKAGES:
            raise ValueError(
                f"module must be in one of the packages {', '.join(_CODE_PACKAGES)}, got {mod!r}"
            )
        spec = importlib.util.find_spec(f"cascading_bandits.{mod}")
        if spec is None:
            raise ValueError(f"no module cascading_bandits.{mod}")
        if spec.submodule_search_locations:
            files = [
                (root, f)
                for root in spec.submodule_search_locations
                for f in sorted(Path(root).rglob("*.py"))
            ]
        else:
            files = [(Path(spec.origin).parent, Path(spec.origin))]
        for root, f in files:
            h.update(f"{mod}/{f.relative_to(root).as_posix()}\0".encode())
            h.update(f.read_bytes())
    for dist in ("numpy", "scipy", "mpmath", "sympy", "numba"):
        try:
            h.update(f"{dist}={metadata.version(dist)}\0".encode())
        except metadata.PackageNotFoundError:
            h.update(f"{dist}=-\0".encode())
    h.update(platform.python_version().encode())
    return h.hexdigest()


def cache_path(results: Path, kind: str, key: dict) -> Path:
    """The file that holds the value of ``kind`` cached for ``key`` (it may not exist)."""
    digest = hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:20]
    return Path(results) / CACHE_DIR / f"{kind}-{digest}.json"


def cache_load(results: Path, kind: str, key: dict):
    """The value cached for ``key`` (a JSON-native dict), or None when there is none, it is
    unreadable, or it was stored for another key (a hash collision or a stale file)."""
    path = cache_path(results, kind, key)
    try:
        blob = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(blob, dict) or blob.get("schema") != CACHE_SCHEMA:
        return None
    if blob.get("kind") != kind or blob.get("key") != key or "value" not in blob:
        return None
    return blob["value"]


def cache_store(results: Path, kind: str, key: dict, value) -> bool:
    """Store ``value`` (JSON-serialisable) for ``key``, atomically; False if the results
    directory is not writable (the report is then built without a cache)."""
    path = cache_path(results, kind, key)
    text = json.dumps(
        {"schema": CACHE_SCHEMA, "kind": kind, "key": key, "value": value},
        default=json_default,
    )
    try:
        atomic_write(path, lambda tmp: Path(tmp).write_text(text, encoding="utf-8"))
    except OSError:
        return False
    return True


def cached_figures_hit(results: Path, kind: str, key: dict) -> dict | None:
    """The figures cached for ``key`` (stem -> paths relative to the report directory), or
    None if they are not, or if a cached file is missing."""
    folder = cache_path(Path(results), kind, key).with_suffix("")
    hit = cache_load(Path(results), kind, key)
    if isinstance(hit, dict) and all(
        isinstance(v, list) and all((folder / Path(p).name).is_file() for p in v)
        for v in hit.values()
    ):
        return hit
    return None


def cached_figures(results: Path, out: Path, kind: str, key: dict, draw) -> tuple[dict, bool]:
    """Figures written into ``out/figures``: copied from the cache when they were drawn for
    ``key`` before, else drawn by ``draw()`` (stem -> matplotlib Figure), written, and their
    files kept in the cache.

    Returns
    -------
    (written, hit) : dict stem -> paths relative to ``out`` (PNG, PDF), and whether the files
        came from the cache. A cached file gone missing means drawing again; a results
        directory that is not writable means no cache, not a failed report.
    """
    results, out = Path(results), Path(out)
    folder = cache_path(results, kind, key).with_suffix("")
    hit = cached_figures_hit(results, kind, key)
    if hit is not None:
        for paths in hit.values():
            for rel in paths:
                copy_file(folder / Path(rel).name, out / rel)
        return {stem: list(paths) for stem, paths in hit.items()}, True
    return store_figures(results, out, kind, key, draw()), False


def store_figures(results: Path, out: Path, kind: str, key: dict, figs: dict) -> dict:
    """Write ``figs`` (stem -> matplotlib Figure) into ``out/figures`` and keep their files
    in the cache under ``key`` (:func:`cached_figures`); returns stem -> paths relative to
    ``out``."""
    results, out = Path(results), Path(out)
    folder = cache_path(results, kind, key).with_suffix("")
    out.mkdir(parents=True, exist_ok=True)
    written = {stem: save_figure(fig, out, stem) for stem, fig in figs.items()}
    try:
        for paths in written.values():
            for rel in paths:
                copy_file(out / rel, folder / Path(rel).name)
    except OSError:  # a read-only results directory: the report goes on without a cache
        return written
    cache_store(results, kind, key, written)
    return written


class BoundMemo:
    """:func:`reports.tables.bounds_at`, :func:`reports.tables.bound_curves` and
    :func:`reports.tables.registry_bounds_at` remembered by their arguments, in a JSON-native
    dict (what the report reads from and writes to the cache under :func:`bounds_cache_key`).
    ``missed`` counts the computations that were not found."""

    def __init__(self, stored: dict | None = None):
        self.values = dict(stored or {})
        self.missed = 0

    def _get(self, key, compute):
        if key not in self.values:
            self.missed += 1
            self.values[key] = compute()
        return self.values[key]

    def bounds_at(self, L, K, p, delta, n) -> dict:
        key = f"at L={int(L)} K={int(K)} p={float(p)!r} delta={float(delta)!r} n={int(n)}"
        return dict(self._get(key, lambda: T.bounds_at(L, K, p, delta, n)))

    def registry_at(self, L, K, p, delta, n) -> dict:
        """Every registered bound on the Table 1 policies; keyed by the registered names too,
        so a bound registered since (in a catalog module or at run time) is computed."""
        from cascading_bandits.bounds.registry import bound_names

        key = (
            f"registry L={int(L)} K={int(K)} p={float(p)!r} delta={float(delta)!r} n={int(n)} "
            f"bounds={','.join(bound_names(form='constant'))}"
        )
        return dict(self._get(key, lambda: T.registry_bounds_at(L, K, p, delta, n)))

    def bound_curves(self, L, K, p, delta, ns) -> dict:
        ns = np.asarray(ns, dtype=np.int64)
        key = (
            f"curves L={int(L)} K={int(K)} p={float(p)!r} delta={float(delta)!r} "
            f"n={','.join(str(int(n)) for n in ns)}"
        )

        def compute():
            c = T.bound_curves(L, K, p, delta, ns)
            return {k: [float(x) for x in v] for k, (_, v) in c.items()}

        return {
            k: (ns, np.asarray(v, dtype=np.float64)) for k, v in self._get(key, compute).items()
        }


def bounds_cache_key() -> dict:
    """What the bound numbers depend on: the code of bounds and the source of the functions
    of reports.tables that call it (the arguments of each value are its key inside the cached
    dict)."""
    import inspect

    src = "".join(
        inspect.getsource(f)
        for f in (T.bounds_at, T.bound_curves, T.registry_bounds_at, T.paper_policy)
    )
    return {
        "code": code_version("bounds"),
        "functions": hashlib.sha256(src.encode()).hexdigest(),
    }
