"""``cascading report``: run (or reuse) the paper's experiments and write the report."""

from __future__ import annotations

import argparse
import sys
import time


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from cascading_bandits.reports.cli.common import add_workers, directory, integer, text

    parser.add_argument(
        "--out",
        default="report",
        metavar="DIR",
        type=directory("--out"),
        help="report directory (default: ./report)",
    )
    parser.add_argument(
        "--results",
        default=None,
        metavar="DIR",
        type=directory("--results"),
        help="where simulation results are stored and reused (default: DIR/results)",
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="small n and few runs, for a smoke test (not a reproduction)",
    )
    parser.add_argument(
        "--runs", type=integer("--runs", 2), default=None, help="runs per cell (default 20)"
    )
    parser.add_argument(
        "--horizon", type=integer("--horizon", 10), default=None, help="steps n (default 1e5)"
    )
    add_workers(
        parser, "worker processes for the sweeps, at most the number of cores (default: all)"
    )
    parser.add_argument(
        "--scheduler",
        default=None,
        type=text("--scheduler", "a Dask scheduler's address"),
        metavar="ADDRESS",
        help="run the sweeps on a Dask cluster at ADDRESS",
    )
    parser.add_argument(
        "--seed", type=integer("--seed", 0), default=0, help="root seed (default 0)"
    )
    parser.add_argument(
        "--examples",
        type=integer("--examples"),
        default=None,
        metavar="N",
        help="random instances per claim in the verify section (default 50, 5 with --quick)",
    )
    parser.add_argument(
        "--overwrite",
        action="store_true",
        help="replace existing report files in DIR (stored results are always reused)",
    )
    parser.add_argument(
        "--profile",
        action="store_true",
        help="also profile the proofs of Theorems 2 and 3 on two B_LB instances, both orders "
        "(section 'Where the bounds lose'; a few minutes; stored and reused)",
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress report on stderr")
    parser.add_argument(
        "--json",
        action="store_true",
        help='print one JSON object: {"report", "json", "results", "seconds"} (absolute paths)',
    )


def _scale(args):
    """(runs, horizon, examples) of this report."""
    from cascading_bandits.reports.build import PAPER_HORIZON, PAPER_RUNS, QUICK_HORIZON, QUICK_RUNS

    runs = args.runs or (QUICK_RUNS if args.quick else PAPER_RUNS)
    horizon = args.horizon or (QUICK_HORIZON if args.quick else PAPER_HORIZON)
    examples = args.examples or (5 if args.quick else 50)
    return runs, horizon, examples


def cost(args):
    """:func:`simulate.sweep.estimate` of every experiment's cells, plus the verify section
    (:func:`simulate.sweep.verify_seconds`)."""
    import os

    from cascading_bandits.reports.cli.common import check_workers
    from cascading_bandits.simulate.experiments import EXPERIMENTS, get_experiment
    from cascading_bandits.simulate.sweep import estimate, verify_seconds

    check_workers(args.workers, args.scheduler)
    if not str(args.out).strip():
        raise ValueError("--out must name a directory, got an empty path")
    runs, horizon, examples = _scale(args)
    specs = [(c.L, c.K, c.policy, runs, horizon) for n in EXPERIMENTS for c in get_experiment(n)]
    need = estimate(specs, workers=args.workers or os.cpu_count() or 1)
    # as verify.registry.estimate_seconds at budget 1 (not imported: verify's claims load
    # in 2 s, and the report runs them in a process of its own)
    need["seconds"] += verify_seconds(examples)
    what = f"this report (--runs {runs} x --horizon {horizon}, --examples {examples}"
    if args.profile:  # profile_grid's cells, one after the other (simulate.counters.estimate)
        import inspect

        from cascading_bandits.reports.profile_report import profile_grid
        from cascading_bandits.simulate.counters import estimate as counted

        p = inspect.signature(profile_grid).parameters
        cells = [
            (L, K)
            for L, K, _, _ in p["instances"].default
            for _ in p["policies"].default
            for _ in p["orders"].default
        ]
        for L, K in cells:
            one = counted(L, K, runs, horizon)
            need["bytes"] = max(need["bytes"], one["bytes"])
            need["seconds"] += one["seconds"]
        what += f", --profile: {len(cells)} profiled cells"
    return need, what + ")"


def _check(args):
    """Directories and the scheduler, before anything is computed."""
    from cascading_bandits.reports.cli.common import check_scheduler, out_dir

    dirs = [("--out", args.out)] + ([] if args.results is None else [("--results", args.results)])
    for option, d in dirs:  # both refused before either is created
        out_dir(d, option, create=False)
    if args.scheduler is not None:
        check_scheduler(args.scheduler)
    out, results = out_dir(args.out, "--out"), None
    if args.results is not None:
        results = out_dir(args.results, "--results")
    return out, results


def run(args) -> int:
    from cascading_bandits.reports.build import build_report

    t0 = time.perf_counter()
    out, results = _check(args)
    command = (
        "cascading report " + " ".join(sys.argv[2:]) if len(sys.argv) > 1 else "cascading report"
    )
    path = build_report(
        out,
        results_dir=results,
        quick=args.quick,
        runs=args.runs,
        horizon=args.horizon,
        seed=args.seed,
        workers=args.workers,
        scheduler=args.scheduler,
        overwrite=args.overwrite,
        progress=not args.no_progress and not args.json,
        verify_examples=args.examples,
        command=command,
        profile=args.profile,
    )
    path = path.absolute()
    secs = time.perf_counter() - t0
    if args.json:
        from cascading_bandits.reports.cli.common import emit_json

        emit_json(
            {
                "report": str(path),
                "json": str(path.with_name("report.json")),
                "results": str(results or out / "results"),
                "seconds": secs,
            }
        )
    else:
        print(f"report written to {path} ({secs:.1f} s)")
    return 0
