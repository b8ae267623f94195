"""Before/after run-steps per CPU-second of each policy: paired, alternating runs of two trees.

    git worktree add /tmp/before <old commit>
    python benchmarks/paired_speed.py --before /tmp/before --policies cascade-ucb1,cascade-ts \\
        --L 2048,65536 --rounds 5

Each round runs ``benchmarks/policy_speed.py --json`` once with the old tree and once with
this one (the order alternates from round to round, so slow drifts of a shared machine
fall on both), each in a fresh process, for every (policy, L) cell. The old tree is
imported through a temporary ``cascading_bandits`` directory of links to its four
packages put first on ``PYTHONPATH``, and measured with its own ``policy_speed.py``.
Printed per cell: the median over rounds of each tree's run-steps per CPU-second (each
already the median of ``--repeat`` timed calls), and the median of the per-round ratios
new/old. Figures only, nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
PACKAGES = ("bounds", "simulate", "verify", "reports")


def _shim(tree: Path, where: Path) -> Path:
    """A directory holding ``cascading_bandits/<pkg>`` links to ``tree``'s packages."""
    ns = where / "cascading_bandits"
    ns.mkdir()
    for pkg in PACKAGES:
        if not (tree / pkg / "__init__.py").is_file():
            raise SystemExit(f"--before {tree} has no {pkg}/__init__.py: not a project tree")
        (ns / pkg).symlink_to(tree / pkg, target_is_directory=True)
    return where


def _measure(tree: Path, pythonpath: str | None, args, policy: str, L: int) -> float:
    cmd = [sys.executable, str(tree / "benchmarks" / "policy_speed.py"), "--json",
           "--policies", policy, "--L", str(L), "--runs", str(args.runs),
           "--horizon", str(args.horizon), "--repeat", str(args.repeat)]  # fmt: skip
    env = dict(os.environ)
    if pythonpath:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [pythonpath, env.get("PYTHONPATH")]))
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=tempfile.gettempdir())
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{proc.stderr.strip()[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])["run_steps_per_cpu_s"]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", required=True, help="a checkout of the old commit")
    ap.add_argument("--policies", required=True, help="comma-separated policy specs")
    ap.add_argument("--L", default="2048,65536")
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--horizon", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--json", action="store_true", help="one JSON object per cell")
    args = ap.parse_args(argv)
    before = Path(args.before).resolve()
    Ls = [int(x) for x in args.L.split(",") if x.strip()]
    if args.rounds < 1 or args.repeat < 1 or args.runs < 1 or args.horizon < 1 or not Ls:
        raise SystemExit("--rounds, --repeat, --runs, --horizon and --L must be positive")
    with tempfile.TemporaryDirectory() as tmp:
        shim = str(_shim(before, Path(tmp)))
        for policy in [p.strip() for p in args.policies.split(",") if p.strip()]:
            for L in Ls:
                old, new = [], []
                for r in range(args.rounds):
                    pair = [(before, shim, old), (HERE, None, new)]
                    for tree, pp, out in pair if r % 2 == 0 else pair[::-1]:
                        out.append(_measure(tree, pp, args, policy, L))
                ratios = [n / o for n, o in zip(new, old, strict=True)]
                row = dict(policy=policy, L=L, runs=args.runs, horizon=args.horizon,
                           rounds=args.rounds, before=statistics.median(old),
                           after=statistics.median(new), ratio=statistics.median(ratios),
                           ratios=ratios)  # fmt: skip
                if args.json:
                    print(json.dumps(row), flush=True)
                else:
                    print(
                        f"{policy:<18} L={L:<6} before {row['before']:>12,.0f}  after "
                        f"{row['after']:>12,.0f} run-steps/CPU-s  ratio {row['ratio']:.2f} "
                        f"(range {min(ratios):.2f}-{max(ratios):.2f}, {args.rounds} rounds)",
                        flush=True,
                    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
