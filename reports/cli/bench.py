"""``cascading bench``: throughput of the engine and wall time of the paper's sweep.

The measurements are :mod:`simulate.bench`'s; this module declares the options, checks
them, guards the resources and prints the figures.
"""

from __future__ import annotations

import argparse


def add_arguments(p: argparse.ArgumentParser) -> None:
    from cascading_bandits.reports.cli.common import add_workers, integer, integer_list, name_list
    from cascading_bandits.simulate.bench import DEFAULT_L, DEFAULT_POLICIES, REPEAT

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
        type=name_list("--policy", "policy specs"),
        help="comma-separated policy specs, e.g. cascade-klucb(c=0) (default "
        + ",".join(DEFAULT_POLICIES)
        + ")",
    )
    t.add_argument(
        "--L",
        type=integer_list("--L"),
        default=None,
        help="comma-separated numbers of items (default "
        + ",".join(map(str, DEFAULT_L))
        + "; from 1024 items on a tenth of --horizon)",
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
    add_workers(
        p, "processes for --what sweep or all, at most the number of cores (default: all cores)"
    )
    p.add_argument(
        "--json",
        action="store_true",
        help='print one JSON object: {"throughput": [one object per cell], '
        '"sweep": object or null}',
    )


def _check(args):
    """Options that the chosen --what would ignore are errors; the policies, parsed."""
    from cascading_bandits.reports.cli.common import check_workers, given
    from cascading_bandits.simulate.bench import DEFAULT_POLICIES
    from cascading_bandits.simulate.policies import parse_policy

    if args.what == "sweep":
        extra = given(args, "policy", "L", "K", "threads", "plain", "repeat")
        if extra:
            raise ValueError(f"{' '.join(extra)}: for --what throughput or all, not sweep")
    if args.what == "throughput" and args.workers is not None:
        raise ValueError("--workers: for --what sweep or all, not throughput")
    check_workers(args.workers)
    if args.threads is not None:
        import numba

        top = numba.config.NUMBA_NUM_THREADS
        if args.threads > top:
            raise ValueError(
                f"--threads must be <= {top} (numba's NUMBA_NUM_THREADS), got {args.threads}"
            )
    if args.what == "sweep":
        return []
    from cascading_bandits.bounds import _validate as V
    from cascading_bandits.simulate.bench import DEFAULT_L

    for L in args.L or DEFAULT_L:
        V.b_lb_parameters(L, args.K or 4, 0.2, 0.15)  # B_LB(L, K, 0.2, 0.15) is benchmarked
    pols = [parse_policy(x).text for x in (args.policy or DEFAULT_POLICIES)]
    if len(set(pols)) != len(pols):
        raise ValueError(f"--policy names a policy twice: {','.join(args.policy)}")
    return pols


def cost(args):
    """:func:`simulate.bench.estimate` of the cells and sweep asked for."""
    from cascading_bandits.simulate.bench import DEFAULT_L, REPEAT, estimate

    pols = _check(args)
    need = estimate(
        pols,
        args.L or DEFAULT_L,
        args.K or 4,
        runs=args.runs,
        horizon=args.horizon,
        repeat=args.repeat or REPEAT,
        plain=args.plain,
        threads=args.threads,
        sweep=args.what in ("sweep", "all"),
        workers=args.workers,
    )
    reps = f", --repeat {args.repeat or REPEAT}" if args.what != "sweep" else ""
    return need, f"this benchmark (--runs {args.runs} x --horizon {args.horizon}{reps})"


def run(args) -> int:
    from cascading_bandits.simulate.bench import (
        DEFAULT_L,
        REPEAT,
        sweep_walltime,
        throughput,
        throughput_cells,
    )

    pols = _check(args)
    horizon = args.horizon
    K = args.K or 4
    rows, sweep = [], None
    if args.what in ("throughput", "all"):
        for pol, L, n, lazy in throughput_cells(
            pols, args.L or DEFAULT_L, horizon=horizon, plain=args.plain
        ):
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
