"""The report builder: the only place in ``reports`` that writes files.

:func:`build_report` runs (or resumes from stored results) the paper's experiments through
:func:`simulate.sweep.run_experiment`, computes the tables of :mod:`reports.tables`, draws the
figures of :mod:`reports.figures`, runs ``verify`` and writes into ``out``::

    out/report.md            the report (Markdown, figures linked beside it)
    out/report.json          every number the report prints, machine-readable
    out/figures/*.png, *.pdf each figure in both formats
    out/results/             stored simulation results (unless ``results_dir`` is given)

Existing report files are never replaced unless ``overwrite=True``; stored simulation
results are reused (a sweep resumes), never overwritten.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import math
import os
import platform
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import numpy as np

from cascading_bandits.reports import figures as F
from cascading_bandits.reports import tables as T
from cascading_bandits.reports.paper import citation, figure1_meta, table_meta

#: the paper's scale (Section 5): n = 1e5 steps, 20 runs
PAPER_HORIZON, PAPER_RUNS = 100_000, 20
#: ``--quick``: enough to exercise every code path in seconds
QUICK_HORIZON, QUICK_RUNS = 2_000, 3
EXPERIMENTS = ("table1", "table2", "dbn")
#: figure stem -> what it shows (the Markdown caption's first words)
FIGURES = ("figure1", "bounds_vs_empirical", "scaling", "order", "policies")
REPORT_FILES = ("report.md", "report.json")
#: Table 1 rows shown in the policies figure (CascadeTS alongside the paper's policies)
POLICY_PANELS = ((16, 2, 0.15), (16, 8, 0.15), (16, 2, 0.075))


@dataclass
class Settings:
    """What to run and where to write.

    ``runs`` and ``horizon`` default to the paper's scale (or the quick one).
    """

    out: Path
    results: Path | None = None
    quick: bool = False
    runs: int | None = None
    horizon: int | None = None
    seed: int = 0
    workers: int | None = None
    scheduler: str | None = None
    overwrite: bool = False
    progress: bool = True
    verify_examples: int | None = None
    curve_points: int | None = None
    command: str = ""
    timings: dict = field(default_factory=dict)
    #: experiment -> (cells found stored before this run, cells), filled by run_experiments
    reused: dict = field(default_factory=dict)
    #: "tables" / "verify" / "figures" -> True when read from the results directory's cache
    cached: dict = field(default_factory=dict)

    def __post_init__(self):
        from cascading_bandits.bounds import _validate as V

        self.out = Path(self.out)
        self.results = Path(self.results) if self.results is not None else self.out / "results"
        if self.runs is None:
            self.runs = QUICK_RUNS if self.quick else PAPER_RUNS
        if self.horizon is None:
            self.horizon = QUICK_HORIZON if self.quick else PAPER_HORIZON
        self.runs = V.positive_int("runs", self.runs, minimum=2)
        self.horizon = V.positive_int("horizon", self.horizon, minimum=10)
        self.seed = V.positive_int("seed", self.seed, minimum=0)
        if self.workers is not None:
            self.workers = V.positive_int("workers", self.workers)
        if self.verify_examples is None:
            self.verify_examples = 5 if self.quick else 50
        self.verify_examples = V.positive_int("verify_examples", self.verify_examples)
        if self.curve_points is None:
            self.curve_points = 6 if self.quick else 12
        self.curve_points = V.positive_int("curve_points", self.curve_points, minimum=2)


def planned_files(out) -> list[Path]:
    """Every report file :func:`build_report` writes into ``out`` (results excluded)."""
    out = Path(out)
    files = [out / f for f in REPORT_FILES]
    for stem in FIGURES:
        files += [out / "figures" / f"{stem}.png", out / "figures" / f"{stem}.pdf"]
    for stem in table_names():
        files += [out / "tables" / f"{stem}.csv", out / "tables" / f"{stem}.tex"]
    return files


def check_writable(out, overwrite: bool) -> None:
    """Refuse (ValueError) to replace existing report files unless ``overwrite``."""
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise ValueError(f"--out {out} exists and is not a directory")
    if overwrite:
        return
    existing = [p for p in planned_files(out) if p.exists()]
    if existing:
        names = ", ".join(str(p.relative_to(out)) for p in existing[:3])
        more = f" and {len(existing) - 3} more" if len(existing) > 3 else ""
        raise ValueError(
            f"{out} already holds a report ({names}{more}); pass --overwrite to "
            "replace it or choose another --out"
        )


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _atomic_write(path: Path, write) -> None:
    """Write through a temporary file in the same directory, then rename over ``path``."""
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


def _save_figure(fig, out: Path, stem: str) -> list[str]:
    paths = []
    for ext in ("png", "pdf"):
        path = out / "figures" / f"{stem}.{ext}"
        _atomic_write(path, lambda tmp, ext=ext: fig.savefig(tmp, format=ext, dpi=F.DPI))
        paths.append(str(path.relative_to(out)))
        # the layout (in inches) is the same for both formats: solve it once, not per save
        fig.set_layout_engine("none")
    return paths


# ---------------------------------------------------------------------------
# running / loading results
# ---------------------------------------------------------------------------
#: extra simulator experiments the report uses: cascade-ts on Table 1 rows, the other
#: reading of the ranked-bandit reward in the DBN setting
EXTRA_POLICIES = ("cascade-ts", "ranked-klucb-rba")


def available_experiments() -> list[str]:
    """The paper's experiments plus any extra simulator experiment with cells of
    :data:`EXTRA_POLICIES` (shown beside the paper's policies)."""
    from cascading_bandits.simulate import experiments as E

    names = list(EXPERIMENTS)
    for name in getattr(E, "EXPERIMENTS", ()):
        if name in names:
            continue
        try:
            cells = E.get_experiment(name)
        except ValueError:
            continue
        if any(getattr(c, "policy", None) in EXTRA_POLICIES for c in cells):
            names.append(name)
    return names


def run_experiments(s: Settings) -> dict:
    """Run or resume every experiment at ``s.runs`` x ``s.horizon``; returns name -> results.

    All experiments share one pool, costliest cells first (no idle worker at the end of
    each experiment, one start-up of the workers). Raises ValueError if stored results in
    ``s.results`` were made at another scale.
    """
    from cascading_bandits.simulate.experiments import get_experiment
    from cascading_bandits.simulate.store import stored_params
    from cascading_bandits.simulate.sweep import run_experiments as sweep_experiments

    names = available_experiments()
    sizes = []
    for name in names:
        # a report reuses stored results but never replaces them: refuse another scale up front
        cells = get_experiment(name)
        stored = 0
        for cell in cells:
            old = stored_params(s.results, name, cell.cell_id)
            stored += old is not None
            if old is not None and (old.get("horizon"), old.get("runs")) != (s.horizon, s.runs):
                raise ValueError(
                    f"{s.results} holds {name} results at n = {old.get('horizon')}, "
                    f"{old.get('runs')} runs, but this report asks for n = {s.horizon}, {s.runs} "
                    "runs; pass another --results directory (stored results are never overwritten)"
                )
        s.reused[name] = (stored, len(cells))
        sizes.append(len(cells))
    t0 = time.perf_counter()
    try:
        flat = sweep_experiments(
            names,
            s.results,
            runs=s.runs,
            horizon=s.horizon,
            seed=s.seed,
            workers=s.workers,
            scheduler=s.scheduler,
            overwrite=False,
            progress=s.progress,
        )
    except ValueError as exc:
        if "stored cell" not in str(exc):
            raise
        # the sweep's own hint names its overwrite switch; a report never replaces results
        why = str(exc).split("; use another output directory")[0]
        raise ValueError(
            f"cannot reuse the results stored in {s.results}: {why}; pass another "
            "--results directory (cascading report never replaces stored results)"
        ) from exc
    s.timings["simulate:all"] = time.perf_counter() - t0
    out = {}
    i = 0
    for name, size in zip(names, sizes, strict=True):
        res = flat[i : i + size]
        i += size
        for r in res:
            n, runs = int(r.checkpoints[-1]), int(np.asarray(r.regret).shape[0])
            if (n, runs) != (s.horizon, s.runs):
                raise ValueError(
                    f"stored results in {s.results} for {name} have n = {n}, {runs} runs, but this "
                    f"report asks for n = {s.horizon}, {s.runs} runs; "
                    "use another --results directory"
                )
        out[name] = list(res)
    return out


# ---------------------------------------------------------------------------
# cache of what verify and the bounds compute, in the results directory
# ---------------------------------------------------------------------------
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


def _cache_path(results: Path, kind: str, key: dict) -> Path:
    digest = hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:20]
    return Path(results) / CACHE_DIR / f"{kind}-{digest}.json"


def cache_load(results: Path, kind: str, key: dict):
    """The value cached for ``key`` (a JSON-native dict), or None when there is none, it is
    unreadable, or it was stored for another key (a hash collision or a stale file)."""
    path = _cache_path(results, kind, key)
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
    path = _cache_path(results, kind, key)
    text = json.dumps(
        {"schema": CACHE_SCHEMA, "kind": kind, "key": key, "value": value},
        default=_json_default,
    )
    try:
        _atomic_write(path, lambda tmp: Path(tmp).write_text(text, encoding="utf-8"))
    except OSError:
        return False
    return True


def verify_cache_key(s: Settings) -> dict:
    """What verify's verdicts and caveats depend on: the code of bounds, verify and simulate
    (its Monte-Carlo claims run the engine), the number of examples and the seed."""
    return {
        "code": code_version("bounds", "verify", "simulate"),
        "examples": s.verify_examples,
        "seed": s.seed,
        "budget": 1.0,
    }


def _verify_value(examples: int, seed: int, budget: float) -> dict:
    """``verify.run_all`` and ``verify.caveats`` as plain JSON values (a worker's job too)."""
    from cascading_bandits import verify

    t0 = time.perf_counter()
    verdicts = verify.run_all(examples=examples, seed=seed, budget=budget)
    cav = verify.caveats()
    value = {
        "verdicts": [v.to_dict() if hasattr(v, "to_dict") else dict(vars(v)) for v in verdicts],
        "caveats": [c.to_dict() if hasattr(c, "to_dict") else dict(vars(c)) for c in cav],
    }
    # through JSON once, so a fresh and a cached report hold identical values
    value = json.loads(json.dumps(value, default=_json_default))
    return {"value": value, "seconds": time.perf_counter() - t0}


def _verify_cached(s: Settings, key=None):
    """The cached verify answer of ``s`` (dict) or None; None too if verify is not installed.

    ``key``: :func:`verify_cache_key` of ``s`` if the caller has it (it hashes the sources).
    """
    import importlib.util

    if importlib.util.find_spec("cascading_bandits.verify") is None:
        return None
    hit = cache_load(s.results, "verify", key or verify_cache_key(s))
    if (
        isinstance(hit, dict)
        and isinstance(hit.get("verdicts"), list)
        and isinstance(hit.get("caveats"), list)
    ):
        return hit
    return None


def _verify_child(conn, examples: int, seed: int, budget: float) -> None:
    """Body of the process of :class:`VerifyBeside`: send ``("ok", answer)`` or
    ``("error", exception)`` through ``conn``."""
    from cascading_bandits.bounds._pystack import deep_call

    try:
        out = ("ok", deep_call(_verify_value, examples, seed, budget))
    except Exception as exc:  # noqa: BLE001 - raised again in the parent
        out = ("error", exc)
    try:
        conn.send(out)
    except BrokenPipeError:  # the parent is gone: nobody wants the answer
        pass
    except Exception as exc:  # noqa: BLE001 - an exception that does not pickle
        conn.send(("error", RuntimeError(f"verify failed: {type(out[1]).__name__}: {exc}")))
    conn.close()


class VerifyBeside:
    """verify running in a process of its own (:func:`start_verify`).

    :meth:`result` waits for its answer (the dict of :func:`_verify_value`); :meth:`stop`
    ends the process when the report fails before it needs the answer. The process is
    daemonic, and sends its one answer through a pipe: it never outlives the report (a
    pool worker left behind by a failed report used to wait for work forever).
    """

    def __init__(self, examples: int, seed: int, budget: float):
        import multiprocessing

        ctx = multiprocessing.get_context("spawn")  # numba's threads do not survive fork
        self._conn, child = ctx.Pipe(duplex=False)
        self._proc = ctx.Process(
            target=_verify_child,
            args=(child, examples, seed, budget),
            name="cascading-verify",
            daemon=True,
        )
        self._proc.start()
        child.close()  # so that recv sees EOF if the process dies without an answer

    def result(self) -> dict:
        try:
            kind, value = self._conn.recv()
        except EOFError:
            self._proc.join()
            raise RuntimeError(
                f"the verify process ended without an answer (exit code {self._proc.exitcode})"
            ) from None
        self._proc.join()
        self._conn.close()
        if kind == "error":
            raise value
        return value

    def running(self) -> bool:
        return self._proc.is_alive()

    def stop(self) -> None:
        if self._proc.is_alive():
            self._proc.terminate()
        self._proc.join()
        self._conn.close()


def start_verify(s: Settings):
    """Start verify in a process of its own, to run while the simulation does: a
    :class:`VerifyBeside`.

    None (verify then runs after the simulation, in this process) if the answer is cached,
    verify is not installed, or the run is serial (``workers == 1``). The simulation's
    workers and this process share the cores, so the report's wall time approaches the total
    CPU time over the cores instead of simulation + verify.
    """
    import importlib.util

    if s.workers == 1 or importlib.util.find_spec("cascading_bandits.verify") is None:
        return None
    key = verify_cache_key(s)
    if _verify_cached(s, key) is not None:
        return None
    return VerifyBeside(s.verify_examples, s.seed, key["budget"])


def run_verify(s: Settings, pending=None) -> dict:
    """``verify.run_all`` and ``verify.caveats`` as plain dicts, or why they are unavailable.

    The answer is cached in ``s.results`` under :func:`verify_cache_key`, and reused when the
    key matches (``s.cached["verify"]`` tells which happened). ``pending``: what
    :func:`start_verify` returned (or any object with ``result()``), whose answer is taken
    instead of running verify here.
    """
    import importlib.util

    t0 = time.perf_counter()
    if pending is None and importlib.util.find_spec("cascading_bandits.verify") is None:
        return {
            "available": False,
            "reason": "verify.run_all / verify.caveats not available "
            "(no module named 'cascading_bandits.verify')",
        }
    key = verify_cache_key(s)  # once: it hashes the sources of bounds, verify and simulate
    hit = None if pending is not None else _verify_cached(s, key)
    if hit is not None:
        s.cached["verify"] = True
        s.timings["verify"] = time.perf_counter() - t0
        return {"available": True, **hit}
    try:
        if pending is not None:
            done = pending.result()
            s.timings["verify_beside"] = done["seconds"]
        else:
            done = _verify_value(s.verify_examples, s.seed, key["budget"])
    except (ImportError, AttributeError) as exc:
        return {
            "available": False,
            "reason": f"verify.run_all / verify.caveats not available ({exc})",
        }
    value = done["value"]
    s.cached["verify"] = False
    cache_store(s.results, "verify", key, value)
    s.timings["verify"] = time.perf_counter() - t0
    return {"available": True, **value}


# ---------------------------------------------------------------------------
# the report's content
# ---------------------------------------------------------------------------
def _bound_curve_grid(horizon: int, points: int) -> np.ndarray:
    return np.unique(np.geomspace(10, horizon, points).astype(np.int64))


class BoundMemo:
    """:func:`reports.tables.bounds_at`, :func:`reports.tables.bound_curves` and
    :func:`reports.tables.registry_bounds_at` remembered by their arguments, in a JSON-native
    dict (what :func:`collect` reads from and writes to the cache). ``missed`` counts the
    computations that were not found."""

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


def collect(
    results: dict, horizon: int, curve_points: int = 12, memo: BoundMemo | None = None
) -> dict:
    """All tables of the report (pure: no I/O). ``results`` maps experiment name -> results.

    The bound curves are evaluated at ``curve_points`` horizons, log-spaced from 10 to ``horizon``
    (Theorem 3 optimises eps at each, which costs about 0.1 s per point). ``memo`` (a
    :class:`BoundMemo`) supplies and remembers the bound values.
    """
    memo = BoundMemo() if memo is None else memo
    allres = [r for rs in results.values() for r in rs]
    t1 = T.compare_table("table1", allres)
    t2 = T.compare_table("table2", allres)
    bounds = T.bound_rows(allres, bounds=memo.bounds_at)
    registry = T.registry_bound_rows(bounds, bounds=memo.registry_at)
    curves = {}
    for b in bounds:
        curves[(b.L, b.K, b.delta)] = memo.bound_curves(
            b.L, b.K, b.p, b.delta, _bound_curve_grid(horizon, curve_points)
        )
    return {
        "table1": t1,
        "table2": t2,
        "bounds": bounds,
        "bounds_registry": registry,
        "curves": curves,
        "scaling": T.scaling_rows(allres),
        "order": T.order_rows(allres),
        "dbn": T.dbn_rows(allres),
        "all": allres,
    }


def _git_commit() -> str:
    try:
        return (
            subprocess.run(
                ["git", "rev-parse", "--short", "HEAD"],
                capture_output=True,
                text=True,
                cwd=Path(__file__).resolve().parent,
                timeout=10,
            ).stdout.strip()
            or "unknown"
        )
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def _mark_counts(rows) -> str:
    counts = {}
    for r in rows:
        counts[r.mark] = counts.get(r.mark, 0) + 1
    order = ("ok", "borderline", "disagree", "n/a", "not run")
    return ", ".join(f"{counts[k]} {k}" for k in order if k in counts)


# ---------------------------------------------------------------------------
# the report's sections: each a Markdown builder, the tables it exports, its JSON
# ---------------------------------------------------------------------------
@dataclass
class Context:
    """What every section builder reads: the settings, the tables' data, verify's verdicts
    and caveats (:func:`run_verify`), the written figures (stem -> paths)."""

    s: Settings
    data: dict
    verify: dict
    figures: dict
    _tables: dict = field(default_factory=dict)

    def table(self, name: str, builder) -> T.Table | None:
        """``builder(self)`` once per name (a section's Markdown and the exports share it)."""
        if name not in self._tables:
            self._tables[name] = builder(self)
        return self._tables[name]


@dataclass(frozen=True)
class Section:
    """One part of the report.

    ``markdown(ctx) -> str`` ('' leaves the section out); ``tables``: ``(name, builder)``
    pairs, each ``builder(ctx) -> reports.tables.Table | None``, written as
    ``tables/<name>.csv`` and ``.tex``; ``json(ctx)``: extra JSON stored under ``name``
    in report.json (the paper's tables are stored there already).
    """

    name: str
    markdown: object
    tables: tuple = ()
    json: object = None


def _pm_cell(mean, se):
    return T.PM(mean, se) if mean is not None else "-"


# -- Tables 1 and 2 -----------------------------------------------------------
def _compare_table(name: str, title: str):
    def build(ctx: Context) -> T.Table | None:
        rows = ctx.data[name]
        if not rows:
            return None
        by = {}
        for r in rows:
            by.setdefault((r.L, r.K, r.delta), {})[r.policy] = r
        out = []
        for (L, K, d), cells in by.items():
            line = [str(L), str(K), f"{d:g}"]
            for pol in ("cascade-ucb1", "cascade-klucb"):
                c = cells[pol]
                line += [
                    _pm_cell(c.ours_mean, c.ours_se),
                    T.PM(c.paper_mean, c.paper_se),
                    T.Num(c.z, 2),
                    c.mark,
                ]
            out.append(tuple(line))
        meta = table_meta(name)
        return T.Table(
            name,
            f"{title}: regret at n = {ctx.s.horizon:,}, mean ± standard error over {ctx.s.runs} "
            f"runs, against the paper's (n = {meta['horizon']:,}, {meta['runs']} runs); "
            "z = (ours − paper) / sqrt(se_ours² + se_paper²).",
            ("L", "K", "Δ", "UCB1 ours", "UCB1 paper", "UCB1 z", "UCB1 mark")
            + ("KL-UCB ours", "KL-UCB paper", "KL-UCB z", "KL-UCB mark"),
            tuple(out),
            "rrrrrrlrrrl",
        )

    return build


def _compare_md(name: str, title: str, builder):
    def md(ctx: Context) -> str:
        meta = table_meta(name)
        t = ctx.table(name, builder)
        return (
            f"## {title}\n\n"
            f"Regret at n = {ctx.s.horizon:,} on B_LB(L, K, p = {meta['p']:g}, Δ), mean ± standard "
            f"error over {ctx.s.runs} runs, next to the paper's (n = {meta['horizon']:,}, "
            f"{meta['runs']} runs). z = (ours − paper) / sqrt(se_ours² + se_paper²); "
            "|z| < 2 ok, < 3 borderline, else disagree.\n\n"
            + (t.markdown() + "\n" if t else "*No stored results for this table.*\n")
        )

    return md


_T1 = ("table1", "Table 1: best-first order (Section 5.1)")
_T2 = ("table2", "Table 2: worst-first order (Section 5.2)")
_table1_table = _compare_table(*_T1)
_table2_table = _compare_table(*_T2)


# -- bounds -------------------------------------------------------------------
def _bounds_table(ctx: Context) -> T.Table | None:
    if not ctx.data["bounds"]:
        return None
    rows = []
    for b in ctx.data["bounds"]:
        rows.append(
            (
                str(b.L),
                str(b.K),
                f"{b.delta:g}",
                f"{b.n:,}",
                T.Num(b.theorem4_coefficient, 4, sig=True),
                T.Num(b.theorem4, 4, sig=True),
                T.Num(b.theorem2, 4, sig=True),
                T.Num(b.theorem3, 4, sig=True),
                T.Num(b.theorem3_eps, 3, sig=True),
                T.Num(b.theorem3_C, 4, sig=True),
                T.Num(b.ucb1_over_theorem2, 3),
                T.Num(b.klucb_over_theorem3, 3),
                T.Num(b.ucb1_over_theorem4, 2),
                T.Num(b.klucb_over_theorem4, 2),
            )
        )
    return T.Table(
        "bounds",
        "Theorems 2, 3 (optimised ε) and the Theorem 4 rate at the horizon n on the Table 1 "
        "configurations, and the empirical mean regret over each bound.",
        (
            "L",
            "K",
            "Δ",
            "n",
            "Thm 4 coef",
            "Thm 4 at n",
            "Thm 2 at n",
            "Thm 3 at n",
            "ε*",
            "C",
            "UCB1 / Thm 2",
            "KL-UCB / Thm 3",
            "UCB1 / Thm 4",
            "KL-UCB / Thm 4",
        ),
        tuple(rows),
    )


def _registry_table(ctx: Context) -> T.Table | None:
    rows = ctx.data.get("bounds_registry") or []
    if not rows:
        return None
    return T.Table(
        "bounds_registry",
        "Every registered bound with a constant that covers CascadeUCB1 (alpha = 1.5) or "
        "CascadeKL-UCB (c = 3), at the horizon n on the Table 1 configurations, beside the "
        "policy's mean regret ± standard error and the ratio empirical / bound.",
        ("L", "K", "Δ", "n", "bound", "kind", "policy", "value at n", "empirical")
        + ("empirical / bound", "not applied"),
        tuple(
            (
                str(r.L),
                str(r.K),
                f"{r.delta:g}",
                f"{r.n:,}",
                r.bound,
                f"{r.kind}, gap-{r.gap}",
                r.policy,
                T.Num(r.value, 4, sig=True),
                _pm_cell(r.mean, r.se),
                T.Num(r.ratio, 3, sig=True),
                f"needs {r.premise}" if r.premise else "",
            )
            for r in rows
        ),
        "rrrrlllrrrl",
    )


def _registry_md(ctx: Context) -> str:
    """The registry's bounds per configuration: the range of each ratio, the full table
    folded below it."""
    t = ctx.table("bounds_registry", _registry_table)
    if t is None:
        return ""
    by = {}
    for r in ctx.data["bounds_registry"]:
        by.setdefault((r.bound, r.policy), []).append(r)
    lines = []
    for (name, pol), rs in by.items():
        ratios = [r.ratio for r in rs if r.ratio is not None]
        rng = f"{min(ratios):.3g} to {max(ratios):.3g}" if ratios else "no ratio"
        missing = sum(r.value is None for r in rs)
        skip = f" (not applied on {missing} of {len(rs)})" if missing else ""
        lines.append(f"| {name} | {rs[0].title} | {rs[0].kind} | {pol} | {rng}{skip} |")
    return (
        "\nEvery bound with a constant in the registry (`cascading ledger` lists them) that "
        "covers CascadeUCB1 or CascadeKL-UCB at the paper's parameters, lower bounds about "
        "every consistent policy with both; empirical / bound over the Table 1 rows "
        "(`tables/bounds_registry.csv` holds every value):\n\n"
        "| bound | title | kind | policy | empirical / bound |\n"
        "| :--- | :--- | :--- | :--- | :--- |\n"
        + "\n".join(lines)
        + "\n\n<details><summary>Every registered bound on every Table 1 row</summary>\n\n"
        + t.markdown()
        + "\n\n</details>\n"
    )


def _bounds_md(ctx: Context) -> str:
    t = ctx.table("bounds", _bounds_table)
    if t is None:
        return ""
    md = (
        "## Bounds against the evidence (Table 1 rows)\n\n"
        "Theorem 4's lower bound is asymptotic (liminf R(n)/log n ≥ coefficient, for consistent "
        "algorithms); it is shown as coefficient × log n at the horizon. Theorem 3 is evaluated "
        "with its constant C = K L C₂(ε)/n^β(ε) + 7 K log log n at the ε that minimises the bound "
        "at n. Ratios are empirical mean regret / bound.\n\n" + t.markdown() + "\n"
    )
    if "bounds_vs_empirical" in ctx.figures:
        md += (
            "\n![Regret against n with the bounds](figures/bounds_vs_empirical.png)\n\n"
            "*Regret against n (log-log, one y-scale for all panels) for every Table 1 "
            "configuration: mean over runs with 95% bands (solid; at this scale most bands are "
            "narrower than the line), Theorems 2 and 3 (dashed) and the asymptotic Theorem 4 "
            "rate (dash-dotted).* "
            "([PDF](figures/bounds_vs_empirical.pdf))\n"
        )
    return md + _registry_md(ctx)


# -- scaling --------------------------------------------------------------------
_KINDS = {"L": 0, "Delta": 1, "K": 2}


def _scaling_table(ctx: Context) -> T.Table | None:
    if not ctx.data["scaling"]:
        return None
    rows = sorted(ctx.data["scaling"], key=lambda r: (_KINDS.get(r.vary, 3), r.fixed, r.frm, r.to))
    return T.Table(
        "scaling",
        "Regret ratio between Table 1 configurations that differ in one parameter, against the "
        "ratio of the bounds' log n coefficients.",
        ("vary", "fixed", "from → to", "policy", "ours", "Thm 2", "Thm 3", "Thm 4"),
        tuple(
            (
                r.vary.replace("Delta", "Δ"),
                r.fixed.replace("delta", "Δ"),
                f"{r.frm} → {r.to}",
                r.policy,
                T.PM(r.ratio, r.ratio_se, 3),
                T.Num(r.predicted_theorem2, 3),
                T.Num(r.predicted_theorem3, 3),
                T.Num(r.predicted_theorem4, 3),
            )
            for r in rows
        ),
        "llllrrrr",
    )


def _scaling_md(ctx: Context) -> str:
    t = ctx.table("scaling", _scaling_table)
    if t is None:
        return ""
    md = (
        "## Scaling in L, Δ and K against the bounds\n\n"
        "Ratio of regret at the horizon between two Table 1 configurations that differ in one "
        "parameter, against the ratio of the bounds' log n coefficients (Theorem 2: Σ 12/Δ; "
        "Theorem 3 at ε = 0; Theorem 4).\n\n" + t.markdown() + "\n"
    )
    if "scaling" in ctx.figures:
        md += "\n![Scaling](figures/scaling.png)\n"
    return md


# -- order ----------------------------------------------------------------------
def _order_table(ctx: Context) -> T.Table | None:
    if not ctx.data["order"]:
        return None
    return T.Table(
        "order",
        "Worst-first over best-first regret at the horizon (Table 2 / Table 1), ours and the "
        "paper's.",
        ("L", "K", "Δ", "policy", "ours worst/best", "paper worst/best"),
        tuple(
            (
                str(r.L),
                str(r.K),
                f"{r.delta:g}",
                r.policy,
                T.PM(r.ratio, r.ratio_se, 3),
                T.Num(r.paper_ratio, 3),
            )
            for r in ctx.data["order"]
        ),
        "rrrlrr",
    )


def _order_md(ctx: Context) -> str:
    t = ctx.table("order", _order_table)
    if t is None:
        return ""
    md = "## Worst-first against best-first (Table 2 / Table 1)\n\n" + t.markdown() + "\n"
    if "order" in ctx.figures:
        md += "\n![Worst-first against best-first](figures/order.png)\n"
    return md


# -- Figure 1 -------------------------------------------------------------------
def _dbn_table(ctx: Context) -> T.Table | None:
    if not ctx.data["dbn"]:
        return None
    return T.Table(
        "figure1",
        "DBN click model: regret at the horizon of CascadeKL-UCB and a ranked-bandit policy, "
        "and their paired ratio.",
        (
            "ν",
            "γ",
            "ranked policy",
            "CascadeKL-UCB",
            "ranked",
            "ranked / cascade",
            f"in [{T.ABOUT_THREE[0]}, {T.ABOUT_THREE[1]}]",
        ),
        tuple(
            (
                f"{r.nu:g}",
                f"{r.gamma:g}",
                r.ranked_policy,
                T.PM(r.cascade_mean, r.cascade_se),
                T.PM(r.ranked_mean, r.ranked_se),
                T.PM(r.ratio, r.ratio_se, 2),
                "yes" if r.about_three else "no",
            )
            for r in ctx.data["dbn"]
        ),
        "rrlrrrr",
    )


def _dbn_md(ctx: Context) -> str:
    t = ctx.table("figure1", _dbn_table)
    if t is None:
        return ""
    f1 = figure1_meta()
    md = (
        "## Figure 1: the DBN model, CascadeKL-UCB against RankedKL-UCB (Sections 5.3-5.4)\n\n"
        f"DBN click model on B_LB(L = {f1['L']}, K = {f1['K']}, p = {f1['p']:g}, "
        f"Δ = {f1['delta']:g}) with satisfaction ν and persistence γ. The ratio is paired over "
        "runs (both policies face the same users). The figure shows the simulator's default "
        "ranked-bandit reading (`ranked-klucb`); other readings it stores appear in the table.\n\n"
        + t.markdown()
        + "\n"
    )
    if "figure1" in ctx.figures:
        md += "\n![Figure 1](figures/figure1.png)\n"
    return md


# -- CascadeTS ------------------------------------------------------------------
def _policies_table(ctx: Context) -> T.Table | None:
    rows = []
    pols = ("cascade-ucb1", "cascade-klucb", "cascade-ts")
    for b in ctx.data["bounds"]:
        cells = [
            T.select_one(
                ctx.data["all"],
                model="cascade",
                order="best-first",
                L=b.L,
                K=b.K,
                delta=b.delta,
                policy=pol,
            )
            for pol in pols
        ]
        if cells[2] is None:
            continue
        rows.append(
            (str(b.L), str(b.K), f"{b.delta:g}")
            + tuple(T.PM(*T.mean_se(T.final_regret(r))) if r is not None else "-" for r in cells)
        )
    if not rows:
        return None
    return T.Table(
        "policies",
        "CascadeTS alongside the paper's policies, best-first: regret at the horizon, mean ± "
        "standard error.",
        ("L", "K", "Δ", "CascadeUCB1", "CascadeKL-UCB", "CascadeTS"),
        tuple(rows),
    )


def _policies_json(ctx: Context) -> list:
    """The CascadeTS table's numbers: one dict per configuration and policy."""
    t = ctx.table("policies", _policies_table)
    if t is None:
        return []
    out = []
    for row in t.rows:
        L, K, d = int(row[0]), int(row[1]), float(row[2])
        for pol, cell in zip(("cascade-ucb1", "cascade-klucb", "cascade-ts"), row[3:], strict=True):
            mean, se = (cell.mean, cell.se) if isinstance(cell, T.PM) else (None, None)
            out.append({"L": L, "K": K, "delta": d, "policy": pol, "mean": mean, "se": se})
    return out


def _policies_md(ctx: Context) -> str:
    if "policies" not in ctx.figures:
        return ""
    t = ctx.table("policies", _policies_table)
    return (
        "## CascadeTS alongside the paper's policies\n\n"
        "Thompson sampling with Beta(1 + clicks, 1 + non-clicks) posteriors, same observation "
        "model, best-first, on Table 1 configurations.\n\n"
        + (t.markdown() + "\n\n" if t else "")
        + "The figure shows three of these rows; regret at n, mean ± standard error.\n\n"
        "![CascadeTS](figures/policies.png)\n"
    )


# -- verification and caveats ---------------------------------------------------
def _verify_table(ctx: Context) -> T.Table | None:
    v = ctx.verify
    if not v.get("available"):
        return None
    return T.Table(
        "verify",
        "Every claim of the paper checked by cascading verify: method, domain, number of "
        "instances, smallest slack and verdict.",
        ("claim", "paper", "method", "domain", "instances", "min slack", "verdict"),
        tuple(
            (
                f"`{d.get('claim_id')}`",
                str(d.get("reference", "")),
                str(d.get("method", "")),
                str(d.get("domain", "")),
                str(d.get("instances", "")),
                T.Num(d.get("min_slack"), 4, sig=True) if d.get("min_slack") is not None else "-",
                str(d.get("status")),
            )
            for d in v["verdicts"]
        ),
        "lllllrl",
    )


def _verify_md(ctx: Context) -> str:
    v = ctx.verify
    head = "## Verification (`cascading verify`)\n\n"
    if not v.get("available"):
        return head + (
            "*`verify` is not available in this checkout, so no claim was checked here.* "
            f"({v.get('reason', '')})\n"
        )
    t = ctx.table("verify", _verify_table)
    md = head + _verdict_sentence(v) + "\n\n" + t.markdown() + "\n"
    failed = [d for d in v["verdicts"] if d.get("status") == "fails"]
    for d in failed:
        md += f"\n**`{d['claim_id']}` fails**: {d.get('notes') or d.get('statement', '')}\n"
    return md


def _verdict_sentence(v: dict) -> str:
    """'N claims checked; none fails (h hold, u undecided).' from verify's verdicts."""
    ds = v["verdicts"]
    count = {}
    for d in ds:
        count[d.get("status")] = count.get(d.get("status"), 0) + 1
    failed = [d["claim_id"] for d in ds if d.get("status") == "fails"]
    parts = [f"{count.get('holds', 0)} hold"]
    if count.get("undecided"):
        parts.append(f"{count['undecided']} undecided")
    head = f"{len(ds)} claims checked; "
    if failed:
        return head + f"**{len(failed)} fail: {', '.join(failed)}** ({', '.join(parts)})."
    return head + f"none fails ({', '.join(parts)})."


#: one line per caveat of ``verify.caveats()`` for the report's lead, by caveat id, with the
#: kind it was written for; a caveat whose kind differs (its evidence changed) or that is
#: not listed falls back to the first sentence of its ``truth``
CAVEAT_HEADLINES = {
    "peeling-lp-constraints": (
        "erratum",
        "the peeling LP in the proofs of Theorems 2 and 3 is not solved by the printed m* "
        "under the printed constraints (its optimum can exceed 2/Δ_K); the nested constraints "
        "the proof implies repair it, and the theorems stand.",
    ),
    "hoeffding-index-shift": (
        "erratum",
        "the (π²/3) L bound on the bad events is derived for the radius c_{t,s}, not the "
        "algorithm's c_{t−1,s}; redone, the per-item constant exceeds π²/3, and Theorem 2's "
        "constant survives only through a sharper count.",
    ),
    "lemma2-integral-range": (
        "erratum",
        "the proof of Lemma 2 integrates 1/kl(p, p + x) up to x = 1, where p + x > 1 is not a "
        "probability; integrating up to Δ_1 ≤ 1 − p repairs it (Lemma 2 stands).",
    ),
    "theorem3-small-n": (
        "unstated-condition",
        "Theorem 3's bound can be negative for n < 3 (log log n < 0); it needs n ≥ 3 or "
        "log log n replaced by max(log log n, 0).",
    ),
    "klucb-regime": (
        "imprecise",
        "with the theorems' constants the KL-UCB bound is below the UCB1 bound for all Δ above "
        "about e^−6K, a far wider range than the discussion's Δ = Ω(e^−K).",
    ),
    "example-l-2k": (
        "imprecise",
        "in the lower-bound example the optimal list is found at expected step L/(2K) + 1/2 "
        "(when K divides L), not L/(2K): right as an order of magnitude.",
    ),
    "lemma1-independence": (
        "premise-needed",
        "Lemma 1 needs independent weights: with two items sharing one coin it fails.",
    ),
    "lemma1-premise": (
        "premise-unneeded",
        "Lemma 1 holds without its premise 'a_i = b_j only if i = j', but its proof's "
        "term-by-term factorisation needs it.",
    ),
    "lemma2-order": (
        "premise-unneeded",
        "Lemma 2 does not need p_1 ≥ … ≥ p_K, only p_k > p.",
    ),
    "ucb1-peeling-order": (
        "premise-unneeded",
        "the peeling inequality holds for unsorted gaps; the ordering is needed only for m* "
        "to solve the peeling LP.",
    ),
    "initialization-regret": (
        "unstated-condition",
        "R(n) leaves out the O(L) initialisation steps; counting them adds O(L) to every "
        "bound and leaves the log n terms unchanged.",
    ),
    "theorem1-list-premise": (
        "premise-unneeded",
        "Theorem 1's regret bounds hold for every K-permutation; only the UCB inequality of "
        "its proof needs a top-K list.",
    ),
    "theorem1-alpha": (
        "imprecise",
        "the best constant in Theorem 1's lower bound is ∏_{j<K} (1 − w(j)), which can be many "
        "times (1 − w(1))^(K−1); the two are equal on B_LB, so Theorem 4 stands.",
    ),
    "gc-loglog-small-n": (
        "unstated-condition",
        "Theorem 3's bad-event term 7 K log log n (from Garivier and Cappé) holds only from "
        "n = 48 on.",
    ),
    "theorem4-large-p": (
        "imprecise",
        "Theorem 4 matches Theorem 3 up to log(1/Δ) only for p = O(1/K); the gap grows "
        "exponentially in pK.",
    ),
}

#: caveat kind -> how the report names it
CAVEAT_KINDS = {
    "erratum": ("erratum", "errata"),
    "unstated-condition": ("unstated condition", "unstated conditions"),
    "premise-needed": ("premise needed", "premises needed"),
    "premise-unneeded": ("premise not needed", "premises not needed"),
    "imprecise": ("imprecise statement", "imprecise statements"),
}


def caveat_headline(c: dict) -> str:
    """One line for a caveat (dict of ``verify.Caveat``): its entry in
    :data:`CAVEAT_HEADLINES` if the kind matches, else the first sentence of its ``truth``."""
    kind, text = CAVEAT_HEADLINES.get(c.get("id"), (None, None))
    if text is not None and kind == c.get("kind"):
        return text
    truth = str(c.get("truth") or c.get("paper_says") or "")
    cut = truth.find(". ")
    return truth if cut < 0 else truth[: cut + 1]


def _evidence_value(x) -> str:
    if isinstance(x, bool) or x is None:
        return str(x)
    if isinstance(x, float):
        return T.fmt_sig(x, 6)
    if isinstance(x, (list, tuple)):
        return "(" + ", ".join(_evidence_value(v) for v in x) + ")"
    if isinstance(x, dict):
        return "; ".join(f"{k} = {_evidence_value(v)}" for k, v in x.items())
    return str(x)


def evidence_table(evidence: dict) -> str:
    """A caveat's evidence as a Markdown table, nothing cut.

    A dict of dicts that share their keys (one instance per entry) becomes one row per
    entry and one column per key; any other dict one row per key.
    """
    if not isinstance(evidence, dict) or not evidence:
        return f"`{_evidence_value(evidence)}`"
    vals = list(evidence.values())
    if all(isinstance(v, dict) for v in vals) and len({tuple(v) for v in vals}) == 1:
        cols = list(vals[0])
        rows = [[str(k)] + [_evidence_value(v[c]) for c in cols] for k, v in evidence.items()]
        return T.markdown_table(["instance", *cols], rows, align="l" + "r" * len(cols))
    rows = [[str(k), _evidence_value(v)] for k, v in evidence.items()]
    return T.markdown_table(["evidence", "value"], rows, align="ll")


def _md_inline(text: str) -> str:
    # the paper's notation uses * and _; keep Markdown from reading them as emphasis
    return str(text).replace("*", "\\*").replace("_", "\\_")


def _caveats_md(ctx: Context) -> str:
    v = ctx.verify
    if not v.get("available") or not v.get("caveats"):
        return ""
    md = (
        "## Caveats: where the paper is wrong as printed or needs a condition\n\n"
        "Each caveat in one line, the numbers that show it, and the test that fails if the "
        "evidence stops showing it.\n"
    )
    for c in v["caveats"]:
        kind = CAVEAT_KINDS.get(c.get("kind"), (c.get("kind"), ""))[0]
        md += (
            f"\n### `{c.get('id')}` ({kind})\n\n"
            f"{_md_inline(caveat_headline(c))}\n\n"
            f"- pinned test: `{c.get('test')}`\n"
            f"- claims: {', '.join(f'`{x}`' for x in c.get('claims') or [])}\n\n"
            f"{evidence_table(c.get('evidence'))}\n\n"
            "<details><summary>The paper's statement and the full finding</summary>\n\n"
            f"- *the paper:* {_md_inline(c.get('paper_says'))}\n"
            f"- *in full:* {_md_inline(c.get('truth'))}\n\n"
            "</details>\n"
        )
    return md


# -- the lead -------------------------------------------------------------------
def _registry_upper(data: dict) -> list:
    """The rows of the registry's upper bounds that have a ratio empirical / bound."""
    return [r for r in data.get("bounds_registry", []) if r.kind == "upper" and r.ratio is not None]


def _timing_line(ctx: Context) -> str:
    s, tm = ctx.s, ctx.s.timings
    sim = sum(v for k, v in tm.items() if k.startswith("simulate:"))
    total_cells = sum(t for _, t in s.reused.values())
    reused = sum(r for r, _ in s.reused.values())
    cpu = [r.provenance.get("seconds") for r in ctx.data["all"] if hasattr(r, "provenance")]
    cpu = [float(c) for c in cpu if isinstance(c, (int, float))]
    if total_cells and reused == total_cells:
        simtxt = f"simulation reused from stored results ({reused} cells, loaded in {sim:.1f} s)"
    elif reused:
        simtxt = (
            f"simulation {sim:.1f} s ({total_cells - reused} cells computed, {reused} reused "
            "from stored results)"
        )
    else:
        simtxt = f"simulation {sim:.1f} s"
    cached = [k for k in ("tables", "verify", "figures") if s.cached.get(k)]
    parts = [simtxt]
    for k in ("tables", "verify", "figures", "total"):
        if k == "verify" and "verify_beside" in tm:
            parts.append(
                f"verify {tm['verify_beside']:.1f} s beside the simulation "
                f"(then {tm['verify']:.1f} s waited)"
            )
        elif k in tm:
            parts.append(f"{k} {tm[k]:.1f} s" + (" (cached)" if k in cached else ""))
    line = "- wall time: " + ", ".join(parts)
    # a reused result costs ~0 s here; its provenance keeps what computing it took
    if cpu:
        line += (
            f"\n- compute time recorded in the stored cells' provenance: {sum(cpu):.1f} s "
            f"over {len(cpu)} cells (summed over workers)"
        )
    return line


def _glance_md(ctx: Context) -> str:
    s, data, v = ctx.s, ctx.data, ctx.verify
    f1 = figure1_meta()
    lines = ["## At a glance\n"]
    add = lines.append
    if v.get("available"):
        add(f"- **Verification** (`cascading verify`): {_verdict_sentence(v)}")
        cav = v.get("caveats") or []
        errata = [c for c in cav if c.get("kind") == "erratum"]
        if errata:
            add(f"- **Errata of the paper** ({len(errata)}, each pinned by a test; see Caveats):")
            for c in errata:
                add(f"  - `{c.get('id')}`: {_md_inline(caveat_headline(c))}")
        others = {}
        for c in cav:
            if c.get("kind") != "erratum":
                others[c.get("kind")] = others.get(c.get("kind"), 0) + 1
        if others:
            add(
                f"- **Further caveats** ({sum(others.values())}): "
                + ", ".join(
                    f"{n} {CAVEAT_KINDS.get(k, (k, k))[0 if n == 1 else 1]}"
                    for k, n in others.items()
                )
                + " (see Caveats)."
            )
    else:
        add(f"- **Verification**: not run ({v.get('reason', 'verify unavailable')}).")
    both = data["table1"] + data["table2"]
    repro = (
        f"- **Reproduction** at n = {s.horizon:,}, {s.runs} runs: Table 1 "
        f"{_mark_counts(data['table1'])}; Table 2 {_mark_counts(data['table2'])}"
    )
    ranked = [r for r in data["dbn"] if r.ranked_policy == "ranked-klucb"]
    if ranked:
        repro += (
            f"; Figure 1 ranked / cascade {min(r.ratio for r in ranked):.2f} to "
            f"{max(r.ratio for r in ranked):.2f} (paper: about {f1['ranked_over_cascade']:g})"
        )
    if data["bounds"]:
        ratios = [b.ucb1_over_theorem2 for b in data["bounds"] if b.ucb1_mean is not None]
        ratios += [b.klucb_over_theorem3 for b in data["bounds"] if b.klucb_mean is not None]
        upper = _registry_upper(data)
        names = list(dict.fromkeys(r.bound for r in upper))
        ratios += [r.ratio for r in upper]
        which = (
            f"the {len(names)} registered upper bounds with constants, Theorems 2 and 3 among them"
            if names
            else "Theorems 2, 3"
        )
        if ratios:
            repro += (
                f"; every mean regret below its upper bounds ({which})"
                if max(ratios) < 1
                else f"; **a mean regret exceeds an upper bound ({which})**"
            )
    add(repro + ".")
    run = [r for r in both if r.z is not None and not math.isnan(r.z)]
    if run:
        ss = T.sign_summary(both)
        rel = [r.ours_mean / r.paper_mean for r in run if r.paper_mean]
        add(
            f"- **Systematic difference from the paper**: ours is below the paper in {ss.below} "
            f"of {ss.cells} cells, above in {ss.above}; mean z = {ss.mean_z:+.2f} (about "
            f"0 ± {1 / math.sqrt(ss.cells):.2f} without bias), sign test p = {ss.p_value:.2g}; "
            f"median ours / paper = {float(np.median(rel)):.3f}."
        )
    if (s.horizon, s.runs) != (PAPER_HORIZON, PAPER_RUNS):
        add(
            f"\n> **Not at the paper's scale** (the paper uses n = {PAPER_HORIZON:,} and "
            f"{PAPER_RUNS} runs). The z-scores below compare different horizons and are not a "
            "test of reproduction; this report exercises the pipeline only."
        )
    return "\n".join(lines) + "\n"


def _provenance_md(ctx: Context) -> str:
    s = ctx.s
    return (
        "## How this report was made\n\n"
        f"- generated {_dt.datetime.now(_dt.UTC).strftime('%Y-%m-%d %H:%M UTC')} by "
        f"`{s.command or 'cascading_bandits.reports.build.build_report'}`, git commit "
        f"`{_git_commit()}`, Python {platform.python_version()}\n"
        f"- scale: n = {s.horizon:,} steps, {s.runs} runs per cell, root seed {s.seed}; "
        f"stored results in `{s.results}`\n"
        f"{_timing_line(ctx)}\n"
        "- every table is also in `tables/` as CSV (full precision) and LaTeX (booktabs)\n"
    )


def _summary_md(ctx: Context) -> str:
    data, f1 = ctx.data, figure1_meta()
    lines = ["## Summary\n"]
    add = lines.append
    add(f"- Table 1 (best-first): {_mark_counts(data['table1'])}.")
    add(f"- Table 2 (worst-first): {_mark_counts(data['table2'])}.")
    both = data["table1"] + data["table2"]
    if any(r.z is not None for r in both):
        ss = T.sign_summary(both)
        add(
            f"- Direction: ours is below the paper in {ss.below} of {ss.cells} cells and above in "
            f"{ss.above}; mean z = {ss.mean_z:+.2f} (about 0 ± {1 / math.sqrt(ss.cells):.2f} "
            f"without bias); two-sided sign test p = {ss.p_value:.2g}."
        )
    for r in (r for r in both if r.mark in ("disagree", "borderline")):
        add(
            f"  - {r.table} L={r.L} K={r.K} Δ={r.delta:g} {r.policy}: ours "
            f"{T.fmt_pm(r.ours_mean, r.ours_se)} vs paper {T.fmt_pm(r.paper_mean, r.paper_se)}, "
            f"z = {T.fmt(r.z, 2)} ({r.mark})"
        )
    for pol in dict.fromkeys(r.ranked_policy for r in data["dbn"]):
        rs = [r for r in data["dbn"] if r.ranked_policy == pol]
        add(
            f"- Figure 1: {pol} / cascade-klucb regret at n = {rs[0].n:,} for (ν, γ) = "
            + ", ".join(f"({r.nu:g}, {r.gamma:g}): {r.ratio:.2f}" for r in rs)
            + (
                f" (paper: about {f1['ranked_over_cascade']:g})."
                if pol == "ranked-klucb"
                else " (another reading of the ranked-bandit reward, not the paper's Figure 1)."
            )
        )
    if data["bounds"]:
        lo = min(b.ucb1_over_theorem2 for b in data["bounds"] if b.ucb1_mean is not None)
        hi = max(b.ucb1_over_theorem2 for b in data["bounds"] if b.ucb1_mean is not None)
        klo = min(b.klucb_over_theorem3 for b in data["bounds"] if b.klucb_mean is not None)
        khi = max(b.klucb_over_theorem3 for b in data["bounds"] if b.klucb_mean is not None)
        verdict = (
            "below 1 in every row: the mean regret at n is below both upper bounds"
            if max(hi, khi) < 1
            else "**above 1 in some row: a mean regret exceeds its upper bound at n**"
        )
        add(
            f"- Upper bounds: CascadeUCB1 / Theorem 2 = {lo:.3f} to {hi:.3f}; "
            f"CascadeKL-UCB / Theorem 3 = {klo:.3f} to {khi:.3f} ({verdict})."
        )
        upper = _registry_upper(data)
        if upper:
            worst = max(upper, key=lambda r: r.ratio)
            names = list(dict.fromkeys(r.bound for r in upper))
            verdict = (
                "below 1 in every row"
                if worst.ratio < 1
                else f"**above 1 in some row: {worst.bound} on {worst.policy} at L = {worst.L}, "
                f"K = {worst.K}, Δ = {worst.delta:g}**"
            )
            add(
                f"- Every registered upper bound with a constant ({', '.join(names)}): "
                f"empirical / bound = {min(r.ratio for r in upper):.3g} to {worst.ratio:.3g} "
                f"({verdict})."
            )
        lb = [b.klucb_over_theorem4 for b in data["bounds"] if b.klucb_mean is not None]
        add(
            f"- CascadeKL-UCB regret / the Theorem 4 rate (coefficient × log n) at n: "
            f"{min(lb):.2f} to {max(lb):.2f}."
        )
    if data["order"]:
        ours = sum(r.ratio < 1 for r in data["order"])
        paper = sum(r.paper_ratio < 1 for r in data["order"])
        add(
            f"- Worst-first has lower regret than best-first in {ours} of {len(data['order'])} "
            f"cells (paper: {paper} of {len(data['order'])})."
        )
    return "\n".join(lines) + "\n"


#: the report, in order. To add a section (e.g. a ledger of later papers' bounds), insert a
#: :class:`Section` here; its tables are exported and its JSON stored with the others.
SECTIONS = [
    Section("glance", _glance_md),
    Section("provenance", _provenance_md),
    Section("summary", _summary_md),
    Section("table1", _compare_md(*_T1, _table1_table), (("table1", _table1_table),)),
    Section("table2", _compare_md(*_T2, _table2_table), (("table2", _table2_table),)),
    Section(
        "bounds",
        _bounds_md,
        (("bounds", _bounds_table), ("bounds_registry", _registry_table)),
    ),
    Section("scaling", _scaling_md, (("scaling", _scaling_table),)),
    Section("order", _order_md, (("order", _order_table),)),
    Section("figure1", _dbn_md, (("figure1", _dbn_table),)),
    Section("policies", _policies_md, (("policies", _policies_table),), _policies_json),
    Section("verification", _verify_md, (("verify", _verify_table),)),
    Section("caveats", _caveats_md),
]

# beyond the paper: the ledger of later bounds and the profiled proofs, before verification
from cascading_bandits.reports import later_sections as _later  # noqa: E402

for _sec in (
    Section("ledger", _later._ledger_md, (("ledger", _later._ledger_table),), _later._ledger_json),
    Section(
        "ledger_found",
        _later._ledger_found_md,
        (("ledger_found", _later._ledger_found_table),),
        _later._ledger_found_json,
    ),
    Section("search", _later._search_md),
    Section("profile", _later._profile_md),
):
    SECTIONS.insert([x.name for x in SECTIONS].index("verification"), _sec)

# every registered bound against Table 1, the chains before and after, the stored worst case
from cascading_bandits.reports import sharper_section as _sharper  # noqa: E402

SECTIONS.insert(
    [x.name for x in SECTIONS].index("verification"),
    Section(
        "sharper",
        _sharper.sharper_md,
        (("sharper_bounds", _sharper.bounds_table), ("sharper_factors", _sharper.factors_table)),
        _sharper.sharper_json,
    ),
)


def table_names(sections=None) -> list[str]:
    """File stems of every table the sections can export (``tables/<stem>.csv``, ``.tex``)."""
    return [name for sec in (SECTIONS if sections is None else sections) for name, _ in sec.tables]


def export_tables(ctx: Context, sections=None) -> dict:
    """name -> :class:`reports.tables.Table` for every table the data supports."""
    out = {}
    for sec in SECTIONS if sections is None else sections:
        for name, builder in sec.tables:
            t = ctx.table(name, builder)
            if t is not None:
                out[name] = t
    return out


def render_markdown(
    s: Settings, data: dict, verify_data: dict, figures: dict, sections=None
) -> str:
    """The report as Markdown (pure: returns the text); ``sections`` defaults to
    :data:`SECTIONS`."""
    ctx = Context(s, data, verify_data, figures)
    return _render(ctx, sections)


def _render(ctx: Context, sections=None) -> str:
    parts = [
        "# Cascading bandits: the paper reproduced, bounds against evidence\n",
        f"Reproduction of the experiments and bounds of {citation()}\n",
    ]
    for sec in SECTIONS if sections is None else sections:
        md = sec.markdown(ctx)
        if md:
            parts.append(md)
    return "\n".join(parts)


def to_json(s: Settings, data: dict, verify_data: dict, figures: dict, sections=None) -> dict:
    """Every number of the report, JSON-ready."""
    out = {
        "citation": citation(),
        "git_commit": _git_commit(),
        "horizon": s.horizon,
        "runs": s.runs,
        "seed": s.seed,
        "results_dir": str(s.results),
        "timings": s.timings,
        "reused_cells": {k: {"reused": r, "cells": t} for k, (r, t) in s.reused.items()},
        "cached": dict(s.cached),
        "original_compute_seconds": _original_seconds(data),
        "table1": T.as_dicts(data["table1"]),
        "table2": T.as_dicts(data["table2"]),
        "bounds": T.as_dicts(data["bounds"]),
        "bounds_registry": T.as_dicts(data.get("bounds_registry", [])),
        "bound_curves": [
            {
                "L": L,
                "K": K,
                "delta": d,
                **{
                    k: {"n": [int(x) for x in n], "value": [float(y) for y in v]}
                    for k, (n, v) in c.items()
                },
            }
            for (L, K, d), c in data["curves"].items()
        ],
        "scaling": T.as_dicts(data["scaling"]),
        "order": T.as_dicts(data["order"]),
        "dbn": T.as_dicts(data["dbn"]),
        "verify": verify_data,
        "figures": figures,
    }
    ctx = Context(s, data, verify_data, figures)
    for sec in SECTIONS if sections is None else sections:
        if sec.json is not None and sec.name not in out:
            out[sec.name] = sec.json(ctx)
    return out


def _original_seconds(data: dict) -> float | None:
    cpu = [r.provenance.get("seconds") for r in data["all"] if hasattr(r, "provenance")]
    cpu = [float(c) for c in cpu if isinstance(c, (int, float))]
    return sum(cpu) if cpu else None


def draw_figures(data: dict) -> dict:
    """stem -> Figure for every figure the data supports."""
    figs = {}
    allres = data["all"]
    if data["dbn"]:
        figs["figure1"] = F.figure1(allres, data["dbn"])
    if data["bounds"]:
        figs["bounds_vs_empirical"] = F.bounds_vs_empirical(
            [r for r in allres if r.params.get("policy") in ("cascade-ucb1", "cascade-klucb")],
            data["curves"],
        )
    if data["scaling"]:
        figs["scaling"] = F.scaling_figure(data["scaling"])
    if data["order"]:
        figs["order"] = F.order_figure(data["order"])
    if any(r.params.get("policy") == "cascade-ts" for r in allres):
        figs["policies"] = F.policies_figure(allres, POLICY_PANELS)
    return figs


def figures_cache_key(data: dict) -> dict:
    """What the figures depend on: the code of reports.figures and reports.tables, the
    matplotlib version, and a SHA-256 of every number drawn (each result's parameters,
    checkpoints and regret, the bound curves and the rows of the figure tables)."""
    import matplotlib

    h = hashlib.sha256()
    for r in data["all"]:
        h.update(json.dumps(r.params, sort_keys=True, default=_json_default).encode())
        for a in (r.checkpoints, r.regret):
            a = np.ascontiguousarray(a)
            h.update(f"{a.dtype.str}{a.shape}".encode())
            h.update(a.tobytes())
    for (L, K, d), c in sorted(data["curves"].items()):
        h.update(f"{L} {K} {d!r}".encode())
        for k in sorted(c):
            n, v = c[k]
            h.update(k.encode() + np.asarray(n, np.int64).tobytes())
            h.update(np.asarray(v, np.float64).tobytes())
    for name in ("dbn", "scaling", "order", "bounds"):
        h.update(json.dumps(T.as_dicts(data[name]), default=_json_default).encode())
    return {
        "code": code_version("reports.figures", "reports.tables"),
        "matplotlib": matplotlib.__version__,
        "data": h.hexdigest(),
    }


def write_figures(s: Settings, data: dict) -> dict:
    """Draw the figures into ``s.out/figures`` (stem -> written paths), or copy them from the
    results directory's cache when they were drawn from the same numbers by the same code
    (``s.cached["figures"]`` tells which happened)."""
    key = figures_cache_key(data)
    folder = _cache_path(s.results, "figures", key).with_suffix("")
    hit = cache_load(s.results, "figures", key)
    if isinstance(hit, dict) and all(
        isinstance(v, list) and all((folder / Path(p).name).is_file() for p in v)
        for v in hit.values()
    ):
        written = {}
        for stem, paths in hit.items():
            for rel in paths:
                blob = (folder / Path(rel).name).read_bytes()
                _atomic_write(s.out / rel, lambda tmp, b=blob: Path(tmp).write_bytes(b))
            written[stem] = list(paths)
        s.cached["figures"] = True
        return written
    figs = draw_figures(data)
    s.out.mkdir(parents=True, exist_ok=True)
    written = {stem: _save_figure(fig, s.out, stem) for stem, fig in figs.items()}
    s.cached["figures"] = False
    try:
        for paths in written.values():
            for rel in paths:
                blob = (s.out / rel).read_bytes()
                _atomic_write(folder / Path(rel).name, lambda tmp, b=blob: Path(tmp).write_bytes(b))
    except OSError:
        return written
    cache_store(s.results, "figures", key, written)
    return written


def _simulate_and_tabulate(s: Settings, pending, profile: bool):
    """The simulation (and proof profiles), the tables' numbers, and verify's answer:
    ``(verify_data, data)`` for :func:`build_report`."""
    results = run_experiments(s)
    if profile:
        from cascading_bandits.reports.profile_report import profile_grid

        t1 = time.perf_counter()
        profile_grid(runs=s.runs, horizon=s.horizon, seed=s.seed, out=s.results / "profile")
        s.timings["profile"] = time.perf_counter() - t1
    t1 = time.perf_counter()
    key = bounds_cache_key()
    stored = cache_load(s.results, "bounds", key)
    memo = BoundMemo(stored if isinstance(stored, dict) else None)
    data = collect(results, s.horizon, s.curve_points, memo=memo)
    s.cached["tables"] = memo.missed == 0
    if memo.missed:
        cache_store(s.results, "bounds", key, memo.values)
    s.timings["tables"] = time.perf_counter() - t1
    return run_verify(s, pending), data


def build_report(
    out,
    *,
    results_dir=None,
    quick=False,
    runs=None,
    horizon=None,
    seed=0,
    workers=None,
    scheduler=None,
    overwrite=False,
    progress=True,
    verify_examples=None,
    curve_points=None,
    command="",
    profile=False,
) -> Path:
    """Run or reuse the experiments and write the report into ``out``; returns ``out/report.md``.

    Parameters
    ----------
    out : path
        Report directory (created if missing).
    results_dir : path, optional
        Where simulation results are stored and reused (default ``out/results``).
    quick : bool
        Small n and few runs (``QUICK_HORIZON``, ``QUICK_RUNS``) for smoke tests.
    runs, horizon : int, optional
        Override the scale (default: the paper's, or the quick one).
    seed : int
        Root seed of the sweeps and of ``verify``.
    workers, scheduler
        Passed to :func:`simulate.sweep.run_experiment`.
    overwrite : bool
        Replace existing report files (never stored results).
    verify_examples : int, optional
        Random instances per claim for ``verify.run_all`` (default 50, quick 5).
    curve_points : int, optional
        Horizons at which the bound curves are evaluated (default 12, quick 6).
    profile : bool
        Also profile the proofs of Theorems 2 and 3 (section "Where the bounds lose") on
        B_LB(16, 2, 0.2, 0.15) and B_LB(16, 8, 0.2, 0.075), both orders, at the report's scale,
        and the binomial bounds' chain on the same counted runs (section "Sharper bounds");
        the chains are stored under ``<results>/profile`` and reused. Without it, the section
        shows stored chains if there are any.
    """
    s = Settings(
        out=out,
        results=results_dir,
        quick=quick,
        runs=runs,
        horizon=horizon,
        seed=seed,
        workers=workers,
        scheduler=scheduler,
        overwrite=overwrite,
        progress=progress,
        verify_examples=verify_examples,
        curve_points=curve_points,
        command=command,
    )
    check_writable(s.out, s.overwrite)
    t0 = time.perf_counter()
    pending = start_verify(s)
    try:
        verify_data, data = _simulate_and_tabulate(s, pending, profile)
    except BaseException:
        if pending is not None:
            pending.stop()  # the report fails: verify's answer is not wanted
        raise
    t1 = time.perf_counter()
    s.out.mkdir(parents=True, exist_ok=True)
    written = write_figures(s, data)
    s.timings["figures"] = time.perf_counter() - t1
    s.timings["total"] = time.perf_counter() - t0
    ctx = Context(s, data, verify_data, written)
    md = _render(ctx)
    js = to_json(s, data, verify_data, written)

    def write_text(text):
        return lambda tmp: Path(tmp).write_text(text, encoding="utf-8")

    exported = {}
    for name, table in export_tables(ctx).items():
        _atomic_write(s.out / "tables" / f"{name}.csv", write_text(table.csv()))
        _atomic_write(s.out / "tables" / f"{name}.tex", write_text(table.latex()))
        exported[name] = [f"tables/{name}.csv", f"tables/{name}.tex"]
    js["tables"] = exported
    _atomic_write(
        s.out / "report.json",
        write_text(json.dumps(js, indent=1, allow_nan=False, default=_json_default) + "\n"),
    )
    _atomic_write(s.out / "report.md", write_text(md))
    return s.out / "report.md"


def _json_default(x):
    if isinstance(x, (np.integer,)):
        return int(x)
    if isinstance(x, (np.floating,)):
        v = float(x)
        return None if math.isnan(v) else v
    if isinstance(x, tuple):
        return list(x)
    raise TypeError(f"not JSON-serialisable: {type(x).__name__}")
