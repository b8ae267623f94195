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

__all__ = [
    "DEFAULT_POLICIES",
    "DEFAULT_L",
    "REPEAT",
    "SWEEP_EXPERIMENTS",
    "throughput",
    "throughput_cells",
    "sweep_walltime",
    "estimate",
]

DEFAULT_POLICIES = ("cascade-klucb", "cascade-ucb1", "cascade-ts", "ranked-klucb")

#: numbers of items of the throughput cells by default
DEFAULT_L = (16, 2048)
#: timed calls per throughput cell (``--repeat``)
REPEAT = 5
#: the experiments :func:`sweep_walltime` runs by default
SWEEP_EXPERIMENTS = ("table1", "table2", "dbn")
#: from this many items on, a throughput cell runs a tenth of the horizon
LARGE_L = 1024


def throughput_cells(policies=DEFAULT_POLICIES, Ls=DEFAULT_L, *, horizon=100_000, plain=False):
    """The cells a throughput benchmark times, in order: ``(policy, L, horizon, lazy)``.

    Cells with ``L >= LARGE_L`` run a tenth of ``horizon`` (at least 1 step); ``plain`` adds
    the plain (non-lazy) loop of each KL-UCB policy after its lazy one.
    """
    out = []
    for L in Ls:
        n = horizon if L < LARGE_L else max(1, horizon // 10)
        for pol in policies:
            for lazy in [True, False] if plain and "klucb" in str(pol) else [True]:
                out.append((pol, L, n, lazy))
    return out


def estimate(
    policies=DEFAULT_POLICIES,
    Ls=DEFAULT_L,
    K=4,
    *,
    runs=20,
    horizon=100_000,
    repeat=REPEAT,
    plain=False,
    threads=None,
    sweep=False,
    sweep_runs=None,
    sweep_horizon=None,
    workers=None,
) -> dict:
    """Memory (bytes) and wall time (seconds) of a benchmark, before any work.

    Parameters
    ----------
    policies, Ls, K, runs, horizon, plain, threads
        The throughput cells (:func:`throughput_cells`), each simulated ``repeat`` times (the
        warm-up call, 2 runs x 50 steps, is not counted). Empty ``policies`` or ``Ls``: no
        throughput part.
    repeat : int >= 1
        Timed calls per cell: they add time, not memory (one call's arrays at a time).
    sweep : bool
        Also :func:`sweep_walltime` of :data:`SWEEP_EXPERIMENTS` at ``sweep_runs`` x
        ``sweep_horizon`` (default ``runs`` x ``horizon``) on ``workers`` processes.

    Returns
    -------
    dict with ``bytes`` (the largest of the parts: they run one after the other) and
    ``seconds`` (their sum), from :func:`simulate.sweep.estimate`.
    """
    from cascading_bandits.simulate.sweep import estimate as cells_estimate

    repeat = int(repeat)
    if repeat < 1:
        raise ValueError(f"repeat must be a positive integer, got {repeat!r}")
    need = {"bytes": 0.0, "seconds": 0.0}
    for pol, L, n, lazy in throughput_cells(policies, Ls, horizon=horizon, plain=plain):
        one = cells_estimate([(L, K, pol, runs, n, lazy)], threads=threads)
        need["bytes"] = max(need["bytes"], one["bytes"])
        need["seconds"] += repeat * one["seconds"]
    if sweep:
        from cascading_bandits.simulate.experiments import get_experiment

        cells = [c for name in SWEEP_EXPERIMENTS for c in get_experiment(name)]
        r = runs if sweep_runs is None else sweep_runs
        h = horizon if sweep_horizon is None else sweep_horizon
        sw = cells_estimate(
            [(c.L, c.K, c.policy, r, h) for c in cells], workers=workers or os.cpu_count() or 1
        )
        need = {
            "bytes": max(need["bytes"], sw["bytes"]),
            "seconds": need["seconds"] + sw["seconds"],
        }
    return need


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
    names=SWEEP_EXPERIMENTS,
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
