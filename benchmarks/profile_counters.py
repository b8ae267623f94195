"""Cost of the proof counters (simulate.counters) against the engine alone; decisions unchanged.

Run from the project root::

    python benchmarks/profile_counters.py                      # B_LB(16, 8, 0.2, 0.075), n = 1e5
    python benchmarks/profile_counters.py --runs 4 --horizon 2e4 --what off   # one mode only

Modes (single thread, best of ``--repeats``, after one warm-up call that compiles):

``off``       ``simulate.runner.run_cell``: the engine as every experiment calls it (counters off);
``trace``     the engine with ``trace_steps = n`` (what the counters read);
``counters``  ``simulate.counters.run_counters(check=False)``: trace + replay;
``checked``   ``run_counters(check=True)``: the replay also recomputes every index and compares
              the top K with the engine's list.

Prints run-steps per second per mode and policy, and checks that the regret of every run is the
same with and without counters (the decisions are the engine's own in every mode).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from cascading_bandits.bounds.profile import proof_thresholds
from cascading_bandits.simulate.counters import run_counters, traced_runs
from cascading_bandits.simulate.experiments import b_lb_cell
from cascading_bandits.simulate.rng import policy_keys, users_keys
from cascading_bandits.simulate.runner import as_seed_sequence, run_cell

MODES = ("off", "trace", "counters", "checked")


def _time(fn, repeats):
    fn()  # compile / warm up
    best, out = float("inf"), None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--L", type=int, default=16)
    ap.add_argument("--K", type=int, default=8)
    ap.add_argument("--p", type=float, default=0.2)
    ap.add_argument("--delta", type=float, default=0.075)
    ap.add_argument("--runs", type=int, default=4)
    ap.add_argument("--horizon", type=float, default=1e5)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--what", default=",".join(MODES), help="comma-separated modes")
    ap.add_argument("--policy", default="cascade-ucb1,cascade-klucb")
    a = ap.parse_args(argv)
    n = int(a.horizon)
    modes = [m for m in a.what.split(",") if m]
    for pol in a.policy.split(","):
        cell = b_lb_cell("bench", a.L, a.K, a.p, a.delta, pol, horizon=n, runs=a.runs)
        tau, _ = proof_thresholds(cell.weights, cell.K, pol, n)
        ss = as_seed_sequence(0)
        uk, pk = users_keys(ss, cell.weights, a.runs), policy_keys(ss, a.runs)
        fns = {
            "off": lambda cell=cell: run_cell(cell, 0, threads=1).final_regret,
            "trace": lambda cell=cell, uk=uk, pk=pk: traced_runs(
                cell.click_model(), cell.policy, cell.order, n, cell.c, uk, pk, threads=1
            )[0],
            "counters": lambda cell=cell, tau=tau: (
                run_counters(cell, 0, tau, threads=1, check=False).engine_regret
            ),
            "checked": lambda cell=cell, tau=tau: (
                run_counters(cell, 0, tau, threads=1, check=True).regret
            ),
        }
        regrets = {}
        for m in modes:
            sec, reg = _time(fns[m], a.repeats)
            regrets[m] = np.asarray(reg)
            print(
                f"{pol:14s} {m:9s} B_LB({a.L},{a.K},{a.p:g},{a.delta:g}) n={n:g} runs={a.runs}: "
                f"{sec:7.3f} s, {a.runs * n / sec / 1e6:6.2f} M run-steps/s",
                flush=True,
            )
        base = next(iter(regrets.values()))
        same = all(np.allclose(r, base, rtol=1e-12, atol=0) for r in regrets.values())
        print(f"{pol:14s} regret identical across modes: {same}")
        if not same:
            return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
