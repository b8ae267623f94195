"""CascadeTS at large L: run-steps per CPU-second on B_LB(L, 4, 0.2, 0.15) (figures, no asserts).

    python benchmarks/ts_large_L.py                    # L = 2048, K = 4, 4 runs x 5000 steps
    python benchmarks/ts_large_L.py --L 256,2048 --horizon 20000
    python benchmarks/ts_large_L.py --L 2048,65536 --horizon 100000 --stats

From L = 128 items on, cascade-ts's default kernel is the threshold sampler
(simulate.policies._ts_threshold: the samples above a threshold only, the plain loop's law);
below that, one Gamma-ratio sample per item.
The CPU time is the process's, one thread.

``--stats`` also runs one run of the threshold sampler's loop itself
(``_ts_threshold.run_threshold``) and prints its counters per step: the O(L) events
(re-choices of the thresholds, completions below the second threshold), the second-level
steps, and the work of a step (head draws, samples known, Poisson points, envelope
proposals); with the CPU time of that run and of a 20-step run (the set-up's share).
"""

import argparse
import sys
import time

import numpy as np

from cascading_bandits.simulate.bench import throughput


def _stats(L: int, K: int, horizon: int) -> str:
    from cascading_bandits.bounds.instance import b_lb
    from cascading_bandits.simulate.models import make_model
    from cascading_bandits.simulate.policies._ts_threshold import NSTATS, STATS, run_threshold
    from cascading_bandits.simulate.rng import policy_keys, users_keys

    w = tuple(b_lb(L, K, 0.2, 0.15).weights)
    ss = np.random.SeedSequence(0)
    m = make_model("cascade", w, K)
    uk, pk = users_keys(ss, w, 1), policy_keys(ss, 1)
    attract, satisfy, gamma = m.kernel_args()
    fstar = float(m.expected_reward(m.optimal_list()))

    def one(n):
        env = (int(m.code), attract, satisfy, float(gamma), K, n, 0, fstar, np.array([n]), True)
        st = np.zeros(NSTATS, np.int64)
        t0 = time.process_time()
        run_threshold(env, np.array([1.0, 1.0]), uk[0], pk[0], np.zeros(1),
                      np.zeros(L, np.int64), np.zeros((0, 2, K), np.int64), st)  # fmt: skip
        return time.process_time() - t0, st

    one(20)  # compile or load the kernel
    short, _ = one(20)
    cpu, st = one(horizon)
    per = ", ".join(f"{k} {v / horizon:.3g}" for k, v in zip(STATS, st.tolist(), strict=True))
    return (
        f"  run_threshold, 1 run x {horizon} steps: {cpu:.3f} s CPU "
        f"({horizon / max(cpu, 1e-9):,.0f} steps/s; a 20-step run {1e3 * short:.1f} ms); "
        f"per step: {per}; totals: rebuilds {st[0]}, completions {st[2]}"
    )


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--L", default="2048")
    p.add_argument("--K", type=int, default=4)
    p.add_argument("--runs", type=int, default=4)
    p.add_argument("--horizon", type=int, default=5000)
    p.add_argument("--policy", default="cascade-ts")
    p.add_argument("--stats", action="store_true", help="the threshold sampler's counters")
    args = p.parse_args(argv)
    for L in [int(x) for x in args.L.split(",")]:
        r = throughput(args.policy, L, args.K, runs=args.runs, horizon=args.horizon, threads=1)
        print(
            f"{args.policy} L={L} K={args.K}: {r['run_steps_per_cpu_s']:,.0f} run-steps per "
            f"CPU-second ({r['runs']} runs x {r['horizon']} steps, {r['cpu_s']:.2f} s CPU)",
            flush=True,
        )
        if args.stats:
            if L < 128:
                print("  (no threshold sampler below 128 items)")
            else:
                print(_stats(L, args.K, args.horizon), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
