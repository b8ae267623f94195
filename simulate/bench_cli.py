"""``cascading bench``: throughput of the engine and wall time of the paper's sweep.

Figures are measured here and printed, never asserted in tests. Throughput is
run-steps per second (runs x horizon / wall time) of :func:`simulate.run_cell` on
B_LB(L, K, 0.2, 0.15), after a warm-up call that compiles the kernels; ``cpu`` is the
process CPU time over the same interval (numba threads included).
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time

HELP = "benchmark the simulator: run-steps/s per policy and the paper-scale sweep's wall time"

DEFAULT_POLICIES = ("cascade-klucb", "cascade-ucb1", "cascade-ts", "ranked-klucb")


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
) -> dict:
    """Measure one cell; returns a dict with run_steps_per_s (wall) and cpu seconds."""
    import numpy as np

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
    w0, c0 = time.perf_counter(), time.process_time()
    simulate_runs(*args, threads=threads, lazy=lazy)
    wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    return {
        "policy": policy,
        "model": model,
        "L": L,
        "K": K,
        "runs": runs,
        "horizon": horizon,
        "lazy": lazy,
        "threads": threads,
        "wall_s": round(wall, 3),
        "cpu_s": round(cpu, 3),
        "run_steps_per_s": runs * horizon / wall,
        "run_steps_per_cpu_s": runs * horizon / cpu,
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
    p.add_argument(
        "--what", default="throughput", help="throughput, sweep or all (default throughput)"
    )
    p.add_argument(
        "--policies",
        default=",".join(DEFAULT_POLICIES),
        help="comma-separated policy specs, e.g. cascade-klucb(c=0)",
    )
    p.add_argument(
        "--L", default="16,2048", help="comma-separated numbers of items (default 16,2048)"
    )
    p.add_argument("--K", type=int, default=4, help="list length (default 4)")
    p.add_argument("--runs", type=int, default=20, help="runs (default 20)")
    p.add_argument(
        "--horizon", type=float, default=1e5, help="steps (default 1e5; L >= 1024 uses a tenth)"
    )
    p.add_argument(
        "--threads", type=int, default=None, help="numba threads for throughput (default all)"
    )
    p.add_argument(
        "--workers", type=int, default=None, help="processes for the sweep (default all cores)"
    )
    p.add_argument(
        "--plain", action="store_true", help="also time the plain (non-lazy) KL-UCB loop"
    )
    p.add_argument("--json", action="store_true", help="print JSON lines")


def run(args) -> int:
    from cascading_bandits.bounds import _validate as V
    from cascading_bandits.simulate.policies import parse_policies

    V.choice("--what", args.what, ("throughput", "sweep", "all"))
    horizon = V.positive_int("horizon", args.horizon)
    rows = []
    if args.what in ("throughput", "all"):
        for L in [V.positive_int("L", int(x)) for x in args.L.split(",")]:
            for pol in [x.text for x in parse_policies(args.policies)]:
                n = horizon if L < 1024 else max(1, horizon // 10)
                variants = [True, False] if args.plain and "klucb" in pol else [True]
                for lazy in variants:
                    r = throughput(
                        pol, L, args.K, runs=args.runs, horizon=n, threads=args.threads, lazy=lazy
                    )
                    rows.append(r)
                    if not args.json:
                        tag = "" if lazy else " (plain loop)"
                        print(
                            f"{pol:>15}{tag} L={L:<5} K={args.K}: "
                            f"{r['run_steps_per_s']:>12,.0f} run-steps/s "
                            f"({r['runs']} runs x {r['horizon']} steps in "
                            f"{r['wall_s']:.2f} s wall, "
                            f"{r['run_steps_per_cpu_s']:,.0f} per CPU-second)",
                            flush=True,
                        )
    if args.what in ("sweep", "all"):
        r = sweep_walltime(runs=args.runs, horizon=horizon, workers=args.workers)
        rows.append(r)
        if not args.json:
            print(
                f"table1 + table2 + dbn ({r['cells']} cells, {r['runs']} runs x "
                f"{r['horizon']} steps, "
                f"{r['workers']} workers): {r['wall_s']:.1f} s wall "
                f"({r['run_steps_per_s']:,.0f} run-steps/s)"
            )
    if args.json:
        for r in rows:
            print(json.dumps(r))
    return 0
