"""Run-steps per CPU-second of every policy at several L, one thread (figures, no asserts).

    python benchmarks/policy_speed.py                        # every policy, L = 16, 2048, 65536
    python benchmarks/policy_speed.py --policies cascade-ucb1,oracle --L 2048 --horizon 20000

Each cell is ``runs`` runs of ``horizon`` steps of B_LB(L, K, 0.2, 0.15) (Section 4.3,
eq. (6); cascade model, best-first), run by :func:`simulate.engine.simulate_runs` with
``threads=1`` and the policy's fast kernel (``lazy=True``; ``--plain``: the plain loops,
``lazy=False``), after a short warm-up run that compiles or loads the kernel. The figure
is ``runs * horizon`` over the process CPU time of the timed call, the median of
``--repeat`` calls (same seeds each time). One line per cell, also as JSON with
``--json``. Only the public API is used, so the same script
measures an older tree (``PYTHONPATH`` pointing at it) for before/after figures.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time

DEFAULT_L = (16, 2048, 65536)


def _positive_ints(text: str, what: str) -> list:
    msg = f"{what} must be comma-separated positive integers, got {text!r}"
    try:
        out = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise SystemExit(msg) from None
    if not out or min(out) < 1:
        raise SystemExit(msg)
    return out


def measure(
    policy: str, L: int, K: int, runs: int, horizon: int, repeat: int, seed: int = 0, lazy=True
):
    """(median run-steps per CPU-second, CPU seconds of each repeat) of one cell."""
    import numpy as np

    from cascading_bandits.bounds.instance import b_lb
    from cascading_bandits.simulate.engine import simulate_runs
    from cascading_bandits.simulate.models import make_model
    from cascading_bandits.simulate.rng import policy_keys, users_keys

    w = tuple(b_lb(L, K, 0.2, 0.15).weights)
    model = make_model("cascade", w, K)
    ss = np.random.SeedSequence(seed)
    uk, pk = users_keys(ss, w, runs), policy_keys(ss, runs)
    cp = np.unique(np.linspace(1, horizon, 10).astype(np.int64))
    kw = dict(threads=1, lazy=lazy)
    simulate_runs(model, policy, "best-first", 20, uk[:1], pk[:1], np.array([20]), **kw)
    cpus = []
    for _ in range(repeat):
        c0 = time.process_time()
        simulate_runs(model, policy, "best-first", horizon, uk, pk, cp, **kw)
        cpus.append(time.process_time() - c0)
    return statistics.median(runs * horizon / max(c, 1e-9) for c in cpus), cpus


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--policies", default="", help="comma-separated specs (default: every one)")
    p.add_argument("--L", default=",".join(map(str, DEFAULT_L)), help="item counts")
    p.add_argument("--K", type=int, default=4)
    p.add_argument("--runs", type=int, default=2)
    p.add_argument("--horizon", type=int, default=100_000)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--json", action="store_true", help="one JSON object per line")
    p.add_argument("--plain", action="store_true", help="the plain loops (lazy=False)")
    args = p.parse_args(argv)
    from cascading_bandits.simulate.policies import parse_policies, policy_names

    specs = (
        [s.text for s in parse_policies(args.policies)] if args.policies else list(policy_names())
    )
    Ls = _positive_ints(args.L, "--L")
    for name, v in (("--K", args.K), ("--runs", args.runs), ("--horizon", args.horizon),
                    ("--repeat", args.repeat)):  # fmt: skip
        if v < 1:
            raise SystemExit(f"{name} must be a positive integer, got {v}")
    if args.K > min(Ls):
        raise SystemExit(f"--K ({args.K}) must be at most the smallest L ({min(Ls)})")
    for spec in specs:
        for L in Ls:
            rate, cpus = measure(
                spec, L, args.K, args.runs, args.horizon, args.repeat, lazy=not args.plain
            )
            if args.json:
                row = dict(policy=spec, L=L, K=args.K, runs=args.runs, horizon=args.horizon,
                           plain=args.plain, run_steps_per_cpu_s=rate, cpu_s=cpus)  # fmt: skip
                print(json.dumps(row), flush=True)
            else:
                print(
                    f"{spec:<22} L={L:<6} {rate:>13,.0f} run-steps/CPU-s  "
                    f"({args.runs} x {args.horizon} steps, median of {args.repeat})",
                    flush=True,
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
