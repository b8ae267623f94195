"""CascadeTS at large L: run-steps per CPU-second on B_LB(L, 4, 0.2, 0.15) (figures, no asserts).

    python benchmarks/ts_large_L.py                    # L = 2048, K = 4, 4 runs x 5000 steps
    python benchmarks/ts_large_L.py --L 256,2048 --horizon 20000

From L = 128 items on, cascade-ts's default kernel is the threshold sampler
(simulate.policies._ts_threshold: the samples above a threshold only, the plain loop's law);
below that, one Gamma-ratio sample per item.
The CPU time is the process's, one thread.
"""

import argparse
import sys

from cascading_bandits.simulate.bench import throughput


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--L", default="2048")
    p.add_argument("--K", type=int, default=4)
    p.add_argument("--runs", type=int, default=4)
    p.add_argument("--horizon", type=int, default=5000)
    p.add_argument("--policy", default="cascade-ts")
    args = p.parse_args(argv)
    for L in [int(x) for x in args.L.split(",")]:
        r = throughput(args.policy, L, args.K, runs=args.runs, horizon=args.horizon, threads=1)
        print(
            f"{args.policy} L={L} K={args.K}: {r['run_steps_per_cpu_s']:,.0f} run-steps per "
            f"CPU-second ({r['runs']} runs x {r['horizon']} steps, {r['cpu_s']:.2f} s CPU)",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
