"""``cascading bench``: throughput of the engine and wall time of the paper's sweep.

Figures are measured here and printed, never asserted in tests. Throughput is
run-steps per second (runs x horizon / wall time) of :func:`simulate.run_cell` on
B_LB(L, K, 0.2, 0.15), after a warm-up call that compiles the kernels; ``cpu`` is the
process CPU time over the same interval (numba threads included). Each cell is timed
``repeat`` times and the medians are printed: on a shared machine one call's speed moves
by a third from one second to the next, and a single call would report that noise.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

DEFAULT_POLICIES = ("cascade-klucb", "cascade-ucb1", "cascade-ts", "ranked-klucb")

#: timed calls per throughput cell (``--repeat``)
REPEAT = 5


def throughput(
    policy="cascade-klucb",
    L=16,
    K=4,
    *,
    runs=20,
    horizon=100_000,
    threads=None,
    model="cascade",
    lazy=True,
    repeat=1,
) -> dict:
    """Measure one cell ``repeat`` times (the same seeds each time).

    Returns a dict: ``wall_s``, ``cpu_s``, ``run_steps_per_s`` (wall) and
    ``run_steps_per_cpu_s``, each the median over the repeats, and the lists
    ``wall_s_all``, ``cpu_s_all`` of every repeat.
    """
    import statistics

    import numpy as np

    if isinstance(repeat, bool) or not isinstance(repeat, int) or repeat < 1:
        raise ValueError(f"repeat must be a positive integer, got {repeat!r}")

    from cascading_bandits.simulate.engine import simulate_runs
    from cascading_bandits.simulate.experiments import b_lb_cell, default_checkpoints
    from cascading_bandits.simulate.rng import policy_keys, users_keys

    kw = dict(model="dbn", nu=0.7, gamma=0.7) if model == "dbn" else {}
    cell = b_lb_cell("bench", L, K, 0.2, 0.15, policy, horizon=horizon, runs=runs, **kw)
    m = cell.click_model()
    ss = np.random.SeedSequence(0)
    uk, pk = users_keys(ss, cell.weights, runs), policy_keys(ss, runs)
    cp = default_checkpoints(horizon)
    args = (m, cell.policy, "best-first", horizon, uk, pk, cp)
    simulate_runs(
        m, cell.policy, "best-first", 50, uk[:2], pk[:2], np.array([50]), threads=threads, lazy=lazy
    )
    walls, cpus = [], []
    for _ in range(repeat):
        w0, c0 = time.perf_counter(), time.process_time()
        simulate_runs(*args, threads=threads, lazy=lazy)
        walls.append(time.perf_counter() - w0)
        cpus.append(time.process_time() - c0)
    steps = runs * horizon
    return {
        "policy": policy,
        "model": model,
        "L": L,
        "K": K,
        "runs": runs,
        "horizon": horizon,
        "lazy": lazy,
        "threads": threads,
        "repeat": repeat,
        "wall_s": round(statistics.median(walls), 3),
        "cpu_s": round(statistics.median(cpus), 3),
        "run_steps_per_s": statistics.median(steps / w for w in walls),
        "run_steps_per_cpu_s": statistics.median(steps / c for c in cpus),
        "wall_s_all": walls,
        "cpu_s_all": cpus,
    }


def sweep_walltime(
    names=("table1", "table2", "dbn"),
    *,
    runs=20,
    horizon=100_000,
    workers=None,
    seed=0,
    out_dir=None,
) -> dict:
    """Wall time of the experiments ``names`` from scratch (fresh output directory) in one pool."""
    from cascading_bandits.simulate.sweep import run_experiments

    with tempfile.TemporaryDirectory() as tmp:
        out = out_dir or tmp
        t0 = time.perf_counter()
        res = run_experiments(
            list(names), out, runs=runs, horizon=horizon, workers=workers, seed=seed, progress=False
        )
        wall = time.perf_counter() - t0
    steps = sum(r.runs * int(r.checkpoints[-1]) for r in res)
    return {
        "experiments": list(names),
        "cells": len(res),
        "runs": runs,
        "horizon": horizon,
        "workers": workers or os.cpu_count(),
        "wall_s": round(wall, 2),
        "run_steps": steps,
        "run_steps_per_s": steps / wall,
    }


def add_arguments(p: argparse.ArgumentParser) -> None:
    from cascading_bandits.reports.cli import add_force, integer, integer_list

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

    from cascading_bandits.reports.cli import given
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
        from cascading_bandits.reports.cli import emit_json

        emit_json({"throughput": rows, "sweep": sweep})
    return 0
