"""Wall time of ``cascading report``: from scratch, then rebuilt from the stored results.

Both runs are whole processes (``python -m cascading_bandits.reports.cli report``) in a
temporary directory, so imports, numba's cached compilation, the simulation, verify, the
tables, the figures and the writing are all counted. The rebuild reads the results (and the
cache of verify and the bounds) that the first run stored, into a new report directory.

    python benchmarks/report_time.py              # the paper's scale (n = 1e5, 20 runs)
    python benchmarks/report_time.py --quick      # seconds, a smoke test of the benchmark

Prints one line per run and the report's own breakdown (report.json "timings").
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def run_report(out: Path, results: Path, extra: list[str]) -> tuple[float, dict]:
    cmd = [sys.executable, "-m", "cascading_bandits.reports.cli", "report"]
    cmd += ["--out", str(out), "--results", str(results), "--no-progress", *extra]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stderr}")
    timings = json.loads((out / "report.json").read_text())["timings"]
    return wall, timings


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="the quick scale instead of the paper's")
    ap.add_argument("--workers", type=int, default=None, help="worker processes for the sweeps")
    ap.add_argument(
        "--rebuilds", type=int, default=1, help="rebuilds from the stored results (default 1)"
    )
    ap.add_argument("--keep", metavar="DIR", help="work in DIR (kept) instead of a temporary one")
    args = ap.parse_args(argv)
    if args.rebuilds < 1:
        ap.error("--rebuilds must be >= 1")
    extra = ["--quick"] if args.quick else []
    if args.workers is not None:
        extra += ["--workers", str(args.workers)]
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"cores {os.cpu_count()}, load average (1 min) {load:.2f} at the start")
    with tempfile.TemporaryDirectory(prefix="report-time-") as tmp:
        work = Path(args.keep) if args.keep else Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        results = work / "results"
        if results.exists() and any(results.iterdir()):
            raise SystemExit(f"{results} is not empty: a from-scratch time needs a fresh one")
        wall, tm = run_report(work / "scratch", results, extra)
        print(f"from scratch: {wall:.1f} s  (report's own: {_fmt(tm)})")
        for i in range(args.rebuilds):
            wall, tm = run_report(work / f"rebuild{i}", results, extra)
            print(f"rebuild {i + 1} from stored results: {wall:.1f} s  (report's own: {_fmt(tm)})")
    return 0


def _fmt(tm: dict) -> str:
    sim = sum(v for k, v in tm.items() if k.startswith("simulate:"))
    parts = [f"simulation {sim:.1f} s"]
    parts += [f"{k} {tm[k]:.1f} s" for k in ("tables", "verify", "figures", "total") if k in tm]
    return ", ".join(parts)


if __name__ == "__main__":
    sys.exit(main())
