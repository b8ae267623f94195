"""Cold start: wall and CPU time of the first ``cascading simulate`` of a policy on a fresh install.

Each measurement runs ``cascading simulate`` in a new process whose ``NUMBA_CACHE_DIR``
is a new empty temporary directory, so numba compiles everything the command needs
(what a fresh install does once); then the same command again with that cache (warm).
Figures are printed, never asserted.

    python benchmarks/cold_start.py                       # cascade-klucb, cascade-ucb1
    python benchmarks/cold_start.py --policies cascade-ts,ranked-klucb --repeat 3
    python benchmarks/cold_start.py --policies cascade-klucb --L 2048   # large-L kernels
    python benchmarks/cold_start.py --policies cascade-klucb --horizon 100000  # paper scale

The command is ``cascading simulate --L 16 --K 4 --p 0.2 --delta 0.15 --policy P
--horizon 1000 --runs 20 --no-progress`` (B_LB(16, 4, 0.2, 0.15), 20 runs: the work is
a few milliseconds, so the figure is start-up plus compilation). A run that short uses
a lazy policy's plain loop while its lazy selection is not compiled and the plain loop
is estimated at 2 CPU seconds or less (``simulate.engine.pick_kernel``; the terminal
then names the ``plain-loop`` kernel): ``--horizon 100000`` (the paper's scale) or a
large ``--L`` (2048) measures the lazy kernel's first compile. KL-UCB policies select
with another lazy kernel from L = 48 (ranked) or 96 (cascade) on.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _cascading() -> list:
    exe = Path(sys.executable).with_name("cascading")
    if exe.exists():
        return [str(exe)]
    return [sys.executable, "-c", "import sys; from cascading_bandits.reports.cli import main; "
            "sys.exit(main())"]  # fmt: skip


def measure(policy: str, cache_dir: str, L: int = 16, horizon: int = 1000, runs: int = 20):
    """(wall s, CPU s of the child, stderr) of one ``cascading simulate`` with that cache."""
    cmd = _cascading() + [
        "simulate", "--L", str(L), "--K", "4", "--p", "0.2", "--delta", "0.15",
        "--policy", policy, "--horizon", str(horizon), "--runs", str(runs), "--no-progress",
    ]  # fmt: skip
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if out.returncode != 0:
        raise SystemExit(f"command failed ({out.returncode}): {' '.join(cmd)}\n{out.stderr}")
    return wall, cpu, out.stderr


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--policies", default="cascade-klucb,cascade-ucb1")
    p.add_argument("--repeat", type=int, default=1, help="cold measurements per policy")
    p.add_argument("--L", type=int, default=16, help="number of items (default 16)")
    p.add_argument("--horizon", type=int, default=1000, help="steps (default 1000)")
    p.add_argument("--runs", type=int, default=20, help="runs (default 20)")
    args = p.parse_args(argv)
    if args.repeat < 1:
        p.error("--repeat must be >= 1")
    if args.L < 4:
        p.error("--L must be >= 4 (the list has K = 4 items)")
    if args.horizon < 1 or args.runs < 1:
        p.error("--horizon and --runs must be >= 1")
    from cascading_bandits.simulate.policies import parse_policies

    for pol in [s.text for s in parse_policies(args.policies)]:
        cold, cold_cpu, warm = [], [], []
        notice = ""
        for _ in range(args.repeat):
            d = tempfile.mkdtemp(prefix="numba-cold-")
            try:
                w, c, err = measure(pol, d, args.L, args.horizon, args.runs)
                cold.append(w)
                cold_cpu.append(c)
                notice = next((ln for ln in err.splitlines() if "compil" in ln), notice)
                warm.append(measure(pol, d, args.L, args.horizon, args.runs)[0])
            finally:
                shutil.rmtree(d, ignore_errors=True)
        print(
            f"{pol:>16} L={args.L} {args.runs}x{args.horizon}: "
            f"cold {statistics.median(cold):5.1f} s wall "
            f"({statistics.median(cold_cpu):.1f} s CPU), warm {statistics.median(warm):4.1f} s wall"
            f"  [{args.repeat} run(s), median]  terminal said: {notice!r}",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
