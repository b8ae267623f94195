"""``cascading bench``: throughput of the engine and wall time of the paper's sweep.

The measurements are :mod:`simulate.bench`'s; this module declares the options, checks
them, guards the resources and prints the figures.
"""

from __future__ import annotations

import argparse

from cascading_bandits.simulate.bench import DEFAULT_POLICIES, REPEAT, sweep_walltime, throughput


def add_arguments(p: argparse.ArgumentParser) -> None:
    from cascading_bandits.reports.cli.common import add_force, integer, integer_list

    p.add_argument(
        "--what",
        choices=("throughput", "sweep", "all"),
        default="throughput",
        help="throughput (default), sweep (table1 + table2 + dbn from scratch) or all",
    )
    t = p.add_argument_group("throughput (--what throughput or all)")
    t.add_argument(
        "--policy",
        default=None,
        help="comma-separated policy specs, e.g. cascade-klucb(c=0) (default "
        + ",".join(DEFAULT_POLICIES)
        + ")",
    )
    t.add_argument(
        "--L",
        type=integer_list("--L"),
        default=None,
        help="comma-separated numbers of items (default 16,2048)",
    )
    t.add_argument("--K", type=integer("--K"), default=None, help="list length (default 4)")
    t.add_argument(
        "--threads",
        type=integer("--threads"),
        default=None,
        help="numba threads (default all; at most numba's NUMBA_NUM_THREADS)",
    )
    t.add_argument(
        "--plain", action="store_true", help="also time the plain (non-lazy) KL-UCB loop"
    )
    t.add_argument(
        "--repeat",
        type=integer("--repeat"),
        default=None,
        help=f"timed calls per cell; the medians are printed (default {REPEAT})",
    )
    p.add_argument("--runs", type=integer("--runs"), default=20, help="runs (default 20)")
    p.add_argument(
        "--horizon",
        type=integer("--horizon"),
        default=100_000,
        help="steps (default 1e5; throughput at L >= 1024 uses a tenth)",
    )
    p.add_argument(
        "--workers",
        type=integer("--workers"),
        default=None,
        help="processes for --what sweep (default all cores)",
    )
    p.add_argument(
        "--json",
        action="store_true",
        help='print one JSON object: {"throughput": [one object per cell], '
        '"sweep": object or null}',
    )
    add_force(p)


def _check(args):
    """Options that the chosen --what would ignore are errors; resources are estimated."""
    import os

    from cascading_bandits.reports.cli.common import given
    from cascading_bandits.simulate.sweep import check_resources, estimate

    if args.what == "sweep":
        extra = given(args, "policy", "L", "K", "threads", "plain", "repeat")
        if extra:
            raise ValueError(f"{' '.join(extra)}: for --what throughput or all, not sweep")
    if args.what == "throughput" and args.workers is not None:
        raise ValueError("--workers: for --what sweep or all, not throughput")
    cores = os.cpu_count() or 1
    if args.workers is not None and args.workers > cores:
        raise ValueError(f"--workers must be <= {cores} (the cores of this machine)")
    if args.threads is not None:
        import numba

        top = numba.config.NUMBA_NUM_THREADS
        if args.threads > top:
            raise ValueError(
                f"--threads must be <= {top} (numba's NUMBA_NUM_THREADS), got {args.threads}"
            )
    specs = []
    if args.what in ("throughput", "all"):
        from cascading_bandits.simulate.policies import parse_policies

        pols = [x.text for x in parse_policies(args.policy or ",".join(DEFAULT_POLICIES))]
        # the timed calls, and one more for the warm-up call that compiles the kernel
        reps = (args.repeat or REPEAT) + 1
        for L in args.L or [16, 2048]:
            n = args.horizon if L < 1024 else max(1, args.horizon // 10)
            specs += [(L, args.K or 4, pol, args.runs * reps, n) for pol in pols]
    need = estimate(specs, threads=args.threads) if specs else {"bytes": 0, "seconds": 0.0}
    if args.what in ("sweep", "all"):
        from cascading_bandits.simulate.experiments import get_experiment

        cells = [c for n in ("table1", "table2", "dbn") for c in get_experiment(n)]
        sw = estimate(
            [(c.L, c.K, c.policy, args.runs, args.horizon) for c in cells],
            workers=args.workers or cores,
        )
        need = {
            "bytes": max(need["bytes"], sw["bytes"]),
            "seconds": need["seconds"] + sw["seconds"],
        }
    check_resources(
        need["bytes"],
        need["seconds"],
        force=args.force,
        what=f"this benchmark (--runs {args.runs} x --horizon {args.horizon})",
    )


def run(args) -> int:
    from cascading_bandits.simulate.policies import parse_policies

    _check(args)
    horizon = args.horizon
    K = args.K or 4
    rows, sweep = [], None
    if args.what in ("throughput", "all"):
        for L in args.L or [16, 2048]:
            for pol in [x.text for x in parse_policies(args.policy or ",".join(DEFAULT_POLICIES))]:
                n = horizon if L < 1024 else max(1, horizon // 10)
                variants = [True, False] if args.plain and "klucb" in pol else [True]
                for lazy in variants:
                    r = throughput(
                        pol,
                        L,
                        K,
                        runs=args.runs,
                        horizon=n,
                        threads=args.threads,
                        lazy=lazy,
                        repeat=args.repeat or REPEAT,
                    )
                    rows.append(r)
                    if not args.json:
                        tag = "" if lazy else " (plain loop)"
                        print(
                            f"{pol:>15}{tag} L={L:<5} K={K}: "
                            f"{r['run_steps_per_s']:>12,.0f} run-steps/s "
                            f"({r['runs']} runs x {r['horizon']} steps in "
                            f"{r['wall_s']:.2f} s wall, "
                            f"{r['run_steps_per_cpu_s']:,.0f} per CPU-second; "
                            f"medians of {r['repeat']})",
                            flush=True,
                        )
    if args.what in ("sweep", "all"):
        sweep = sweep_walltime(runs=args.runs, horizon=horizon, workers=args.workers)
        if not args.json:
            r = sweep
            print(
                f"table1 + table2 + dbn ({r['cells']} cells, {r['runs']} runs x "
                f"{r['horizon']} steps, "
                f"{r['workers']} workers): {r['wall_s']:.1f} s wall "
                f"({r['run_steps_per_s']:,.0f} run-steps/s)"
            )
    if args.json:
        from cascading_bandits.reports.cli.common import emit_json

        emit_json({"throughput": rows, "sweep": sweep})
    return 0
