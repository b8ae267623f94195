"""Throughput of the engine and wall time of the paper's sweep: what ``cascading bench`` measures.

Figures are measured here and printed by the command line, never asserted in tests.
Throughput is run-steps per second (runs x horizon / wall time) of the engine on
B_LB(L, K, 0.2, 0.15), after a warm-up call that compiles the kernels; ``cpu`` is the
process CPU time over the same interval (numba threads included). Each cell is timed
``repeat`` times and the medians are reported: on a shared machine one call's speed moves
by a third from one second to the next, and a single call would report that noise.
"""

from __future__ import annotations

import os
import tempfile
import time

__all__ = ["DEFAULT_POLICIES", "REPEAT", "throughput", "sweep_walltime"]

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
