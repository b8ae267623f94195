"""Wall time of ``cascading report``: from scratch, then rebuilt from the stored results.

Both runs are whole processes (``python -m cascading_bandits.reports.cli report``) in a
temporary directory, so imports, numba's cached compilation, the simulation, verify, the
tables, the figures and the writing are all counted. The rebuild reads the results (and the
cache of verify and the bounds) that the first run stored, into a new report directory.

    python benchmarks/report_time.py              # the paper's scale (n = 1e5, 20 runs)
    python benchmarks/report_time.py --quick      # seconds, a smoke test of the benchmark
    python benchmarks/report_time.py --cold       # from an empty numba cache (fresh install)

Prints one line per run: its wall time, the CPU seconds of the report's process tree (the
report, its sweep workers and its verify processes; the machine's other load is not in
it), the report's own breakdown (report.json "timings", and the total less the
simulation: the work left after the sweep) and, when numba compiled kernels, their number
and the compile seconds the engine printed: wall seconds, while the report's other
processes (sweep workers, verify, the early work) share the cores, so their sum exceeds the
CPU spent compiling (on 2 cores with five busy processes, by about twice). Kernels a process
loaded after waiting for another one's compilation are listed apart.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

#: the engine's line after a first compile (simulate.engine)
_COMPILED = re.compile(r"compiled the (.+?) kernel in ([0-9.]+) s")
#: the engine's line when another process compiled the kernel while this one waited for it
_WAITED = re.compile(r"loaded the (.+?) kernel from numba's cache after ([0-9.]+) s")


def run_report(out: Path, results: Path, extra: list[str], env=None):
    """(wall s, CPU s of the process tree, report.json timings, [(kernel, compile s)],
    [(kernel, s waited for another process's compilation)])."""
    cmd = [sys.executable, "-m", "cascading_bandits.reports.cli", "report"]
    cmd += ["--out", str(out), "--results", str(results), "--no-progress", *extra]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stderr}")
    timings = json.loads((out / "report.json").read_text())["timings"]
    compiled = [(m[1], float(m[2])) for m in _COMPILED.finditer(proc.stderr)]
    waited = [(m[1], float(m[2])) for m in _WAITED.finditer(proc.stderr)]
    return wall, cpu, timings, compiled, waited


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="the quick scale instead of the paper's")
    ap.add_argument("--workers", type=int, default=None, help="worker processes for the sweeps")
    ap.add_argument(
        "--rebuilds", type=int, default=1, help="rebuilds from the stored results (default 1)"
    )
    ap.add_argument("--keep", metavar="DIR", help="work in DIR (kept) instead of a temporary one")
    ap.add_argument(
        "--cold",
        action="store_true",
        help="the first run from an empty numba cache (NUMBA_CACHE_DIR in the work directory; "
        "the rebuilds then use the cache it filled)",
    )
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
        env = None
        if args.cold:
            cache = work / "numba-cache"
            if cache.exists() and any(cache.iterdir()):
                raise SystemExit(f"{cache} is not empty: a cold time needs an empty numba cache")
            env = dict(os.environ, NUMBA_CACHE_DIR=str(cache))
        runs = [("from scratch" + (" (empty numba cache)" if args.cold else ""), "scratch")]
        runs += [
            (f"rebuild {i + 1} from stored results", f"rebuild{i}") for i in range(args.rebuilds)
        ]
        for label, sub in runs:
            wall, cpu, tm, compiled, waited = run_report(work / sub, results, extra, env)
            line = f"{label}: {wall:.1f} s wall, {cpu:.1f} s CPU  (report's own: {_fmt(tm)})"
            if compiled:
                secs = sum(t for _, t in compiled)
                line += f"\n  {len(compiled)} kernels compiled, {secs:.1f} s: " + ", ".join(
                    f"{k} {t:.1f}" for k, t in compiled
                )
            if waited:
                line += "\n  loaded after another process compiled them: " + ", ".join(
                    f"{k} (waited {t:.1f} s)" for k, t in waited
                )
            print(line, flush=True)
    return 0


def _fmt(tm: dict) -> str:
    sim = sum(v for k, v in tm.items() if k.startswith("simulate:"))
    parts = [f"simulation {sim:.1f} s"]
    parts += [f"{k} {tm[k]:.1f} s" for k in ("tables", "verify", "figures", "total") if k in tm]
    if "total" in tm and "simulate:all" in tm:
        # the work left once the sweep is done (figures, sections, waiting for verify): what
        # the report's schedule can overlap with the simulation or spread over the cores
        parts.append(f"after the simulation {tm['total'] - tm['simulate:all']:.1f} s")
    return ", ".join(parts)


if __name__ == "__main__":
    sys.exit(main())
