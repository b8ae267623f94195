"""Misspecification campaign: cascade learners, CascadeTS, RankedKL-UCB and TopRank on the real
click-log instances under cascade, PBM and DCM users (simulate.misspecification).

Writes one JSON document (the campaign's cells, its summary, the command and the wall time) and
prints the summary table. The report's section "Misspecification" renders the copy shipped in
the package (reports/data/misspecification.json); to refresh it:

    python benchmarks/misspecification.py --horizon 100000 --runs 20 \
        --json reports/data/misspecification.json --out results-misspec

``--out`` stores every cell (resumable: an interrupted campaign continues where it stopped).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

from cascading_bandits.simulate import misspecification as M
from cascading_bandits.simulate.real_instances import real_instance_names


def _commit() -> str:
    """The checkout's commit (with '+dirty' for uncommitted changes), read without locks."""
    import subprocess

    here = os.path.dirname(os.path.abspath(__file__))
    try:
        c = subprocess.run(
            ["git", "-C", here, "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10
        ).stdout.strip()
        d = subprocess.run(
            [
                "git",
                "--no-optional-locks",
                "-C",
                here,
                "status",
                "--porcelain",
                "--untracked-files=no",
            ],
            capture_output=True,
            text=True,
            timeout=10,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return (c or "unknown") + ("+dirty" if d else "")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--horizon", type=int, default=100_000)
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--models", default=",".join(M.DEFAULT_MODELS))
    ap.add_argument("--policies", default=",".join(M.DEFAULT_POLICIES))
    ap.add_argument(
        "--names", default="", help="comma-separated real instances (default: all :top)"
    )
    ap.add_argument("--limit", type=int, default=0, help="first N instances only (0: all)")
    ap.add_argument("--out", default=None, help="store the cells here (resumable)")
    ap.add_argument(
        "--workers", type=int, default=1, help="processes per cell (same numbers for any count)"
    )
    ap.add_argument("--json", default=None, help="write the campaign here (refuses to overwrite)")
    ap.add_argument("--overwrite", action="store_true")
    a = ap.parse_args(argv)
    if a.json and os.path.exists(a.json) and not a.overwrite:
        print(f"error: {a.json} exists; pass --overwrite to replace it", file=sys.stderr)
        return 2
    names = [s for s in a.names.split(",") if s] or list(real_instance_names(top=True))
    if a.limit:
        names = names[: a.limit]
    t0 = time.time()

    def progress(done, total, name, model):
        el = time.time() - t0
        print(f"[{done}/{total}] {name} {model}  {el:.0f} s", file=sys.stderr, flush=True)

    try:
        doc = M.campaign(
            names,
            a.models.split(","),
            policies=a.policies.split(","),
            horizon=a.horizon,
            runs=a.runs,
            seed=a.seed,
            out=a.out,
            workers=a.workers,
            progress=progress,
        )
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    doc["wall_seconds"] = time.time() - t0
    doc["git_commit"] = _commit()
    doc["command"] = "python benchmarks/misspecification.py " + " ".join(
        x for x in (argv if argv is not None else sys.argv[1:]) if not x.startswith("--overwrite")
    )
    print(f"{len(doc['cells'])} cells in {doc['wall_seconds']:.0f} s")
    print(f"{'model':8} {'policy':14} {'mean R(n)':>10} {'median':>9} {'wins':>5} {'decisive':>8}")
    for r in sorted(doc["summary"]["table"], key=lambda r: (r["model"], r["mean_regret"])):
        print(
            f"{r['model']:8} {r['policy']:14} {r['mean_regret']:10.1f} {r['median_regret']:9.1f}"
            f" {r['wins']:5d} {r['decisive_wins']:8d}"
        )
    if a.json:
        tmp = a.json + ".tmp"
        with open(tmp, "w") as fh:
            json.dump(doc, fh, allow_nan=False)
        os.replace(tmp, a.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
