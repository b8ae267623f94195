"""The report builder: runs (or reuses) the experiments, computes the tables, runs verify,
draws the figures, and writes the report, one section after another.

:func:`build_report` runs or resumes the paper's experiments through
:func:`simulate.sweep.run_experiments`, computes the tables of :mod:`reports.tables` (the
bound values through the cache of :mod:`reports.report_cache`), takes verify's answer
(:mod:`reports.report_verify`, computed beside the simulation), draws the figures of
:mod:`reports.figures`, renders the sections of :data:`SECTIONS` (one module
``reports/section_<name>.py`` each) and writes into ``out``::

    out/report.md            the report (Markdown, figures linked beside it)
    out/report.json          every number the report prints, machine-readable
    out/figures/*.png, *.pdf each figure in both formats
    out/tables/*.csv, *.tex  each table as CSV (full precision) and booktabs LaTeX
    out/results/             stored simulation results (unless ``results_dir`` is given)

Existing report files are never replaced unless ``overwrite=True``; stored simulation
results are reused (a sweep resumes), never overwritten. The sections import nothing of
this module.
"""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path

import numpy as np

from cascading_bandits.reports import tables as T
from cascading_bandits.reports.paper import citation
from cascading_bandits.reports.report_cache import (
    CACHE_DIR,
    BoundMemo,
    bounds_cache_key,
    cache_load,
    cache_store,
    cached_figures,
    cached_figures_hit,
    code_version,
    store_figures,
)
from cascading_bandits.reports.report_files import (  # noqa: F401 - reports.cli's names
    atomic_write as _atomic_write,
)
from cascading_bandits.reports.report_files import json_default as _json_default
from cascading_bandits.reports.report_files import write_text
from cascading_bandits.reports.report_verify import (
    VerifyBeside,
    run_verify,
    start_verify,
    verify_cache_key,
)
from cascading_bandits.reports.section_base import (
    PAPER_HORIZON,
    PAPER_RUNS,
    QUICK_HORIZON,
    QUICK_RUNS,
    VERIFY_PENDING,
    Context,
    Section,
    Settings,
    git_commit,
)
from cascading_bandits.reports.section_bounds import BOUNDS
from cascading_bandits.reports.section_caveats import CAVEATS
from cascading_bandits.reports.section_figure1 import FIGURE1
from cascading_bandits.reports.section_glance import GLANCE
from cascading_bandits.reports.section_ledger import LEDGER, LEDGER_FOUND
from cascading_bandits.reports.section_misspec import MISSPEC
from cascading_bandits.reports.section_order import ORDER
from cascading_bandits.reports.section_paper_tables import TABLE1, TABLE2
from cascading_bandits.reports.section_policies import POLICIES
from cascading_bandits.reports.section_profile import PROFILE
from cascading_bandits.reports.section_provenance import PROVENANCE, original_seconds
from cascading_bandits.reports.section_scaling import SCALING
from cascading_bandits.reports.section_search import SEARCH
from cascading_bandits.reports.section_sharper import SHARPER
from cascading_bandits.reports.section_verify import VERIFICATION

__all__ = [
    "PAPER_HORIZON",
    "PAPER_RUNS",
    "QUICK_HORIZON",
    "QUICK_RUNS",
    "Settings",
    "Context",
    "Section",
    "SECTIONS",
    "build_report",
    "planned_files",
    "check_writable",
    "available_experiments",
    "run_experiments",
    "run_verify",
    "start_verify",
    "collect",
    "draw_figures",
    "write_figures",
    "render_markdown",
    "to_json",
    "export_tables",
    "table_names",
    "code_version",
    "cache_load",
    "cache_store",
    "CACHE_DIR",
    "BoundMemo",
    "bounds_cache_key",
    "VerifyBeside",
    "verify_cache_key",
]

EXPERIMENTS = ("table1", "table2", "dbn")
#: figure stem -> what it shows (the Markdown caption's first words)
FIGURES = ("figure1", "bounds_vs_empirical", "scaling", "order", "policies")
REPORT_FILES = ("report.md", "report.json")
#: Table 1 rows shown in the policies figure (CascadeTS alongside the paper's policies)
POLICY_PANELS = ((16, 2, 0.15), (16, 8, 0.15), (16, 2, 0.075))

#: the report, in order: the lead, the paper's experiments, the bounds, beyond the paper
#: (ledger, searches, sharper bounds, profiled proofs), then verify and its caveats. To add a
#: section, write a module ``reports/section_<name>.py`` defining a :class:`Section` and
#: insert it here; its tables are exported and its JSON stored with the others.
SECTIONS = [
    GLANCE,
    PROVENANCE,
    TABLE1,
    TABLE2,
    BOUNDS,
    SCALING,
    ORDER,
    FIGURE1,
    POLICIES,
    LEDGER,
    LEDGER_FOUND,
    SEARCH,
    PROFILE,
    SHARPER,
    MISSPEC,
    VERIFICATION,
    CAVEATS,
]


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


def run_experiments(s: Settings, executor=None) -> dict:
    """Run or resume every experiment at ``s.runs`` x ``s.horizon``; returns name -> results.

    All experiments share one pool, costliest cells first (no idle worker at the end of
    each experiment, one start-up of the workers): ``executor`` if given (the caller's, not
    shut down here; :func:`start_pool`), else the sweep's own. Raises ValueError if stored
    results in ``s.results`` were made at another scale.
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
            executor=executor,
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


def start_pool(s: Settings):
    """The sweep's worker processes, forked now (:func:`simulate.sweep.start_forked_pool`),
    for :func:`run_experiments`; the caller shuts the pool down. None (the sweep then makes
    its own pool, or runs serially) for a serial run (``s.workers == 1``), a Dask
    scheduler, when every cell is stored already, or when forking is not safe.

    Called before the report's early work starts its thread: the workers, forked from a
    process that has imported the simulator, start their first cell at once instead of
    importing numpy, numba and the simulator again (as spawned workers do).
    """
    import os

    from cascading_bandits.simulate.experiments import get_experiment
    from cascading_bandits.simulate.store import stored_params
    from cascading_bandits.simulate.sweep import start_forked_pool

    workers = s.workers or os.cpu_count() or 1
    if workers == 1 or s.scheduler is not None:
        return None
    names = available_experiments()
    if all(
        stored_params(s.results, name, cell.cell_id) is not None
        for name in names
        for cell in get_experiment(name)
    ):
        return None
    return start_forked_pool(workers)  # numba set up once for the workers (prepare_target)


def _bound_curve_grid(horizon: int, points: int) -> np.ndarray:
    return np.unique(np.geomspace(10, horizon, points).astype(np.int64))


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
    return _render(Context(s, data, verify_data, figures), sections)


def _render(ctx: Context, sections=None, done=None) -> str:
    """The report's Markdown; ``done``: section name -> its Markdown, written already."""
    parts = [
        "# Cascading bandits: the paper reproduced, bounds against evidence\n",
        f"Reproduction of the experiments and bounds of {citation()}\n",
    ]
    for sec in SECTIONS if sections is None else sections:
        md = done[sec.name] if done and sec.name in done else sec.markdown(ctx)
        if md:
            parts.append(md)
    return "\n".join(parts)


def to_json(s: Settings, data: dict, verify_data: dict, figures: dict, sections=None) -> dict:
    """Every number of the report, JSON-ready."""
    return _to_json(Context(s, data, verify_data, figures), sections)


def _to_json(ctx: Context, sections=None) -> dict:
    s, data = ctx.s, ctx.data
    out = {
        "citation": citation(),
        "git_commit": git_commit(),
        "horizon": s.horizon,
        "runs": s.runs,
        "seed": s.seed,
        "results_dir": str(s.results),
        "timings": s.timings,
        "reused_cells": {k: {"reused": r, "cells": t} for k, (r, t) in s.reused.items()},
        "cached": dict(s.cached),
        "original_compute_seconds": original_seconds(data),
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
        "verify": ctx.verify,
        "figures": ctx.figures,
    }
    for sec in SECTIONS if sections is None else sections:
        if sec.json is not None and sec.name not in out:
            out[sec.name] = sec.json(ctx)
    return out


def draw_figures(data: dict) -> dict:
    """stem -> Figure for every figure the data supports."""
    from cascading_bandits.reports import figures as F

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
    written, hit = cached_figures(
        s.results, s.out, "figures", figures_cache_key(data), lambda: draw_figures(data)
    )
    s.cached["figures"] = hit
    return written


def _figures_child(conn, results, out, key: dict, figs: dict) -> None:
    """Body of the process of :class:`_FiguresBeside`: :func:`store_figures`, then send
    ``("ok", (written, seconds))`` or ``("error", exception)``."""
    try:
        t0 = time.perf_counter()
        written = store_figures(results, out, "figures", key, figs)
        out_msg = ("ok", (written, time.perf_counter() - t0))
    except BaseException as exc:  # noqa: BLE001 - raised again in the parent
        out_msg = ("error", exc)
    try:
        conn.send(out_msg)
    except Exception as exc:  # noqa: BLE001 - an exception that does not pickle
        conn.send(("error", RuntimeError(f"writing the figures failed: {exc!r}")))
    conn.close()


class _FiguresBeside:
    """:func:`write_figures`, the figures rendered and written by a forked process while
    this one writes the sections.

    After the simulation the report's remaining work ran on one core: the figures (5 to 7
    CPU seconds at the paper's scale, nearly all of it matplotlib rendering them to PNG and
    PDF) and then the sections' Markdown (the sharper-bounds figures, the ledger, the
    tables), which needs only the figures' stems. So the figures are made here
    (:func:`draw_figures`, a fraction of a second) and their files rendered beside. The
    process is forked: it has the figures already, which a spawned process would import
    matplotlib for and be sent. Forking is safe here: the report's other threads (the early
    work, the sweep's executor) have ended, and the child renders and writes files only (no
    numba). Cached figures are copied, as by :func:`write_figures`.

    ``written``: stem -> paths (relative to the report directory), known at once;
    :meth:`join` waits for the files (an error in the child is raised there) and returns
    the seconds the child spent writing them. Without the ``fork`` start method or a
    second core, the files are written in this process.
    """

    def __init__(self, s: Settings, data: dict):
        import multiprocessing
        import os

        self.started = False
        key = figures_cache_key(data)
        hit = cached_figures_hit(s.results, "figures", key)
        beside = (os.cpu_count() or 1) >= 2 and "fork" in multiprocessing.get_all_start_methods()
        if hit is not None or not beside:
            self.written, s.cached["figures"] = cached_figures(
                s.results, s.out, "figures", key, lambda: draw_figures(data)
            )
            return
        figs = draw_figures(data)
        s.cached["figures"] = False
        # as store_figures (save_figure) names them
        self.written = {stem: [f"figures/{stem}.png", f"figures/{stem}.pdf"] for stem in figs}
        ctx = multiprocessing.get_context("fork")
        self.conn, child = ctx.Pipe(duplex=False)
        self.proc = ctx.Process(
            target=_figures_child,
            args=(child, s.results, s.out, key, figs),
            name="cascading-figures",
            daemon=True,
        )
        self.proc.start()
        child.close()  # recv sees EOF if the process dies without an answer
        self.started = True

    def join(self) -> float:
        """Wait for the figures' files; the seconds the child spent writing them."""
        if not self.started:
            return 0.0
        self.started = False
        try:
            kind, value = self.conn.recv()
        except EOFError:
            kind, value = (
                "error",
                RuntimeError(
                    f"the figures' process ended without an answer (exit code {self.proc.exitcode})"
                ),
            )
        finally:
            self.conn.close()
        self.proc.join()
        if kind == "error":
            raise value
        written, seconds = value
        if written != self.written:  # the sections linked self.written
            raise RuntimeError(f"figures written {written}, planned {self.written}")
        return seconds

    def stop(self) -> None:
        if self.started and self.proc.is_alive():
            self.proc.terminate()
            self.proc.join()


def prefetch_bounds(memo: BoundMemo, horizon: int, curve_points: int) -> None:
    """Fill ``memo`` with what :func:`collect` asks of it for the Table 1 configurations at
    ``horizon``: the bounds, the registered bounds and the bound curves. They depend on the
    instances only, not on the simulated regret; the same calls with the same arguments,
    so :func:`collect` then reads the same numbers (an argument that differs is computed
    there as before)."""
    from cascading_bandits.reports.tables import paper_table, table_meta

    p = float(table_meta("table1")["p"])
    grid = _bound_curve_grid(horizon, curve_points)
    seen = set()
    for c in paper_table("table1"):
        if (c.L, c.K, c.delta) in seen:
            continue
        seen.add((c.L, c.K, c.delta))
        memo.bounds_at(c.L, c.K, p, c.delta, horizon)
        memo.registry_at(c.L, c.K, p, c.delta, horizon)
        memo.bound_curves(c.L, c.K, p, c.delta, grid)


class _Early:
    """The report's work that needs no simulated result, in a thread while the simulation
    runs (the main thread only waits for the sweep's workers then): the bound values
    (:func:`prefetch_bounds`) and each section's ``early`` part (figures of stored data,
    drawn into the figure cache). It shortens what is left to do, on one core, after the
    last cell. :meth:`join` re-raises what the thread raised."""

    def __init__(self, s: Settings, memo: BoundMemo, sections):
        import threading

        self.error = None

        def work():
            try:
                prefetch_bounds(memo, s.horizon, s.curve_points)
                ctx = Context(s, {}, VERIFY_PENDING, {})
                for sec in sections:
                    if sec.early is not None:
                        sec.early(ctx)
            except BaseException as exc:  # noqa: BLE001 - re-raised by join()
                self.error = exc

        self.thread = threading.Thread(target=work, name="cascading-report-early", daemon=True)
        self.thread.start()

    def join(self) -> None:
        self.thread.join()
        if self.error is not None:
            raise self.error


def _simulate_and_tabulate(s: Settings, profile: bool) -> dict:
    """The simulation (and proof profiles) and the tables' numbers (:func:`collect`); the
    bound values and the figures of stored data are computed meanwhile (:class:`_Early`)."""
    key = bounds_cache_key()
    stored = cache_load(s.results, "bounds", key)
    memo = BoundMemo(stored if isinstance(stored, dict) else None)
    s.out.mkdir(parents=True, exist_ok=True)
    pool = start_pool(s)  # forked before the early work's thread exists
    try:
        early = _Early(s, memo, SECTIONS)
        try:
            results = run_experiments(s, executor=pool)
            if pool is not None:
                pool.shutdown(wait=True)
                pool = None
            if profile:
                from cascading_bandits.reports.profile_report import profile_grid

                t1 = time.perf_counter()
                profile_grid(runs=s.runs, horizon=s.horizon, seed=s.seed, out=s.results / "profile")
                s.timings["profile"] = time.perf_counter() - t1
        finally:
            early.join()
    finally:
        if pool is not None:  # the sweep failed
            pool.shutdown(wait=True, cancel_futures=True)
    t1 = time.perf_counter()
    data = collect(results, s.horizon, s.curve_points, memo=memo)
    s.cached["tables"] = memo.missed == 0
    if memo.missed:
        cache_store(s.results, "bounds", key, memo.values)
    s.timings["tables"] = time.perf_counter() - t1
    return data


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
    figures = None
    try:
        data = _simulate_and_tabulate(s, profile)
        # the figures need no verdict: drawn while verify (beside) finishes on the other core,
        # in a process of their own while this one writes the sections (_FiguresBeside)
        t1 = time.perf_counter()
        s.out.mkdir(parents=True, exist_ok=True)
        figures = _FiguresBeside(s, data)
        made = time.perf_counter() - t1  # the figures made (or copied from the cache)
        # one context: the Markdown, the exported tables and report.json share every table;
        # the sections that need no verdict are written while verify finishes beside
        ctx = Context(s, data, VERIFY_PENDING, figures.written)
        done = {sec.name: sec.markdown(ctx) for sec in SECTIONS if not sec.reads_verify}
        s.timings["figures"] = made + figures.join()
        ctx.verify = run_verify(s, pending)
    except BaseException:
        if pending is not None:
            pending.stop()  # the report fails: verify's answer is not wanted
        if figures is not None:
            figures.stop()
        raise
    s.timings["total"] = time.perf_counter() - t0
    md = _render(ctx, done=done)
    js = _to_json(ctx)
    exported = {}
    for name, table in export_tables(ctx).items():
        write_text(s.out / "tables" / f"{name}.csv", table.csv())
        write_text(s.out / "tables" / f"{name}.tex", table.latex())
        exported[name] = [f"tables/{name}.csv", f"tables/{name}.tex"]
    js["tables"] = exported
    text = json.dumps(js, indent=1, allow_nan=False, default=_json_default) + "\n"
    write_text(s.out / "report.json", text)
    write_text(s.out / "report.md", md)
    return s.out / "report.md"
