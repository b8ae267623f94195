"""Long runs for the asymptotic constant R(n) / log n (CascadeKL-UCB and CascadeUCB1).

Run from the project root (CPU heavy: about 4 x 20 runs of 1e7 steps)::

    python benchmarks/asymptotic_runs.py --out results/asymptotic --runs 20 --horizon 1e7

Runs are done in chunks of ``--chunk`` runs, round robin over the cells, so that whenever
the script is stopped every cell has about the same number of finished runs. Each chunk
is stored as ``OUT/<cell_id>/runs-<r0>-<r1>.npz`` (``checkpoints``, ``regret``, ``counts``)
and ``.json`` (parameters, seed, seconds), written atomically; finished chunks are skipped
on a restart. Run r uses the same keys as run r of ``simulate.runner.run_cell`` with the
same seed (keys are per run index), so chunks are the runs of one cell.
:func:`cascading_bandits.reports.profile_report.load_asymptotic` reads them.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

import numpy as np

from cascading_bandits.simulate.engine import simulate_runs
from cascading_bandits.simulate.experiments import b_lb_cell
from cascading_bandits.simulate.rng import policy_keys, users_keys
from cascading_bandits.simulate.runner import as_seed_sequence

INSTANCES = ((16, 2, 0.2, 0.15), (16, 8, 0.2, 0.075))
POLICIES = ("cascade-klucb", "cascade-ucb1")


def checkpoints(n: int) -> np.ndarray:
    """About 60 log-spaced steps from 100 to n, with every power of ten, shape (m,) int64."""
    geo = np.round(np.geomspace(100, n, 60)).astype(np.int64)
    dec = 10 ** np.arange(2, int(np.log10(n)) + 1)
    return np.unique(np.concatenate([geo, dec[dec <= n], [n]]).astype(np.int64))


def _atomic(path: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    os.chmod(tmp, 0o644)
    os.replace(tmp, path)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="results/asymptotic")
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--chunk", type=int, default=2)
    ap.add_argument("--horizon", type=float, default=1e7)
    ap.add_argument("--seed", type=int, default=2015)
    ap.add_argument("--order", default="best-first")
    ap.add_argument("--threads", type=int, default=1)
    a = ap.parse_args(argv)
    n = int(a.horizon)
    cp = checkpoints(n)
    ss = as_seed_sequence(a.seed)
    cells = [
        b_lb_cell("asymptotic", L, K, p, d, pol, a.order, horizon=n, runs=a.runs)
        for (L, K, p, d) in INSTANCES
        for pol in POLICIES
    ]
    for r0 in range(0, a.runs, a.chunk):
        r1 = min(a.runs, r0 + a.chunk)
        for cell in cells:
            d = Path(a.out) / cell.cell_id
            d.mkdir(parents=True, exist_ok=True)
            stem = d / f"runs-{r0:03d}-{r1:03d}"
            if stem.with_suffix(".json").exists():
                continue
            # the cell's seed: the same SeedSequence for every cell (users shared per instance)
            uk = users_keys(ss, cell.weights, r1)[r0:r1]
            pk = policy_keys(ss, r1)[r0:r1]
            t0 = time.perf_counter()
            regret, counts = simulate_runs(
                cell.click_model(),
                cell.policy,
                cell.order,
                n,
                uk,
                pk,
                cp,
                threads=a.threads,
            )
            sec = time.perf_counter() - t0
            buf = tempfile.SpooledTemporaryFile()
            np.savez(buf, checkpoints=cp, regret=regret, counts=counts)
            buf.seek(0)
            _atomic(stem.with_suffix(".npz"), buf.read())
            doc = {
                "params": cell.params,
                "runs": [r0, r1],
                "seed": a.seed,
                "seconds": round(sec, 2),
            }
            _atomic(stem.with_suffix(".json"), json.dumps(doc, indent=1).encode())
            print(f"{cell.cell_id} runs {r0}-{r1}: {sec:.1f} s, R(n) = {regret[:, -1]}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
