"""``cascading report``: run (or reuse) the paper's experiments and write the report."""

from __future__ import annotations

import argparse
import sys
import time

HELP = (
    "reproduce the paper's Tables 1-2 and Figure 1, set the bounds against the evidence, "
    "and write a Markdown report with figures"
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--out", default="report", metavar="DIR", help="report directory (default: ./report)"
    )
    parser.add_argument(
        "--results",
        default=None,
        metavar="DIR",
        help="where simulation results are stored and reused (default: DIR/results)",
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="small n and few runs, for a smoke test (not a reproduction)",
    )
    parser.add_argument("--runs", type=int, default=None, help="runs per cell (default 20)")
    parser.add_argument("--horizon", type=int, default=None, help="steps n (default 100000)")
    parser.add_argument("--workers", type=int, default=None, help="worker processes for the sweeps")
    parser.add_argument(
        "--scheduler",
        default=None,
        metavar="ADDRESS",
        help="run the sweeps on a Dask cluster at ADDRESS",
    )
    parser.add_argument("--seed", type=int, default=0, help="root seed (default 0)")
    parser.add_argument(
        "--verify-examples",
        type=int,
        default=None,
        metavar="N",
        help="random instances per claim in the verify section",
    )
    parser.add_argument(
        "--overwrite",
        action="store_true",
        help="replace existing report files in DIR (stored results are always reused)",
    )
    parser.add_argument("--no-progress", action="store_true", help="hide progress bars")


def run(args) -> int:
    from cascading_bandits.reports.build import build_report

    t0 = time.perf_counter()
    command = (
        "cascading report " + " ".join(sys.argv[2:]) if len(sys.argv) > 1 else "cascading report"
    )
    path = build_report(
        args.out,
        results_dir=args.results,
        quick=args.quick,
        runs=args.runs,
        horizon=args.horizon,
        seed=args.seed,
        workers=args.workers,
        scheduler=args.scheduler,
        overwrite=args.overwrite,
        progress=not args.no_progress,
        verify_examples=args.verify_examples,
        command=command,
    )
    print(f"report written to {path} ({time.perf_counter() - t0:.1f} s)")
    return 0
