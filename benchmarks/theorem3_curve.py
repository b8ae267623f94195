"""Theorem 3 with eps optimised per horizon, on a curve of horizons: mpmath path vs float path.

Run from the project root::

    python benchmarks/theorem3_curve.py                     # both instances, before and after
    python benchmarks/theorem3_curve.py --before-horizons 0 # the old path on every horizon (slow)
    python benchmarks/theorem3_curve.py --only new --case L32   # one path, one instance

Instances: ``small``, four items (0.3, 0.2, 0.1, 0.05) with K = 2 and 146 horizons; ``L32``,
L = 32, K = 8 with distinct weights (uniform on [0.01, 0.6], seed 7) and 150 horizons. The
horizons are log-spaced integers in [1, 1e7].

* before: ``upper._theorem3_bound_reference`` per horizon, the previous implementation
  (grid of 49 eps, then Brent; C_2, beta from an mpmath root per pair and eps, cached).
  It costs seconds per horizon on L32, so by default it runs on ``--before-horizons``
  horizons spread over the curve and the time for the whole curve is extrapolated
  linearly (printed as such); ``--before-horizons 0`` runs it on every horizon.
* after: ``upper.theorem3_curve`` on the whole curve, best of ``--repeats`` calls after
  one warm-up call (the first call is printed too).

Wall and CPU seconds of this process are printed (CPU time is the steadier figure on a
shared machine).

Also printed: the largest relative difference between the two paths on the horizons
where both ran.
"""

from __future__ import annotations

import argparse
import os
import platform
import time

import numpy as np

import cascading_bandits.bounds.garivier_cappe  # noqa: F401  (imported here, not timed)
from cascading_bandits.bounds import CascadeInstance
from cascading_bandits.bounds.upper import _theorem3_bound_reference, theorem3_curve


def _cases():
    w32 = np.random.default_rng(7).uniform(0.01, 0.6, 32)
    return {
        "small": (CascadeInstance((0.3, 0.2, 0.1, 0.05), 2), 146),
        "L32": (CascadeInstance(tuple(w32), 8), 150),
    }


def _horizons(count):
    return np.round(np.logspace(0, 7, count))


def _before(inst, ns, count, form):
    if count <= 0:
        idx = np.arange(ns.size)
    elif count == 1:
        idx = np.array([ns.size // 2])
    else:
        idx = np.unique(np.linspace(0, ns.size - 1, count).astype(int))
    t0, c0 = time.perf_counter(), time.process_time()
    vals = np.array([_theorem3_bound_reference(inst, int(ns[i]), form) for i in idx])
    dt, cpu = time.perf_counter() - t0, time.process_time() - c0
    return idx, vals, dt, cpu, ns.size / idx.size


def _after(inst, ns, repeats, form):
    t0, c0 = time.perf_counter(), time.process_time()
    vals = theorem3_curve(inst, ns, form=form)
    first = time.perf_counter() - t0
    best, best_cpu = first, time.process_time() - c0
    for _ in range(repeats):
        t0, c0 = time.perf_counter(), time.process_time()
        theorem3_curve(inst, ns, form=form)
        dt, cpu = time.perf_counter() - t0, time.process_time() - c0
        if dt < best:
            best, best_cpu = dt, cpu
    return vals, first, best, best_cpu


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--case", choices=("small", "L32", "all"), default="all")
    ap.add_argument("--only", choices=("old", "new", "both"), default="both")
    ap.add_argument("--form", choices=("paper", "proof"), default="paper")
    ap.add_argument(
        "--before-horizons",
        type=int,
        default=None,
        help="horizons for the old path (default 12 on small, 1 on L32; 0 = all)",
    )
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args(argv)
    print(
        f"python {platform.python_version()}, {platform.machine()}, {os.cpu_count()} cpus, "
        f"form={args.form}"
    )
    for name, (inst, count) in _cases().items():
        if args.case not in ("all", name):
            continue
        ns = _horizons(count)
        pairs = len({(a, b) for a in inst.suboptimal_weights for b in inst.optimal_weights})
        print(
            f"\n[{name}] L={inst.L} K={inst.K}, {pairs} distinct (w(e), w(e*)) pairs, "
            f"{ns.size} horizons in [1, 1e7]"
        )
        new = None
        if args.only in ("new", "both"):
            new, first, best, best_cpu = _after(inst, ns, args.repeats, args.form)
            print(
                f"  after : theorem3_curve       {best:9.3f} s wall, {best_cpu:9.3f} s cpu for "
                f"the curve (best of {args.repeats} after a first call of {first:.3f} s)"
            )
        if args.only in ("old", "both"):
            nb = args.before_horizons
            if nb is None:
                nb = 12 if name == "small" else 1
            idx, old, dt, cpu, scale = _before(inst, ns, nb, args.form)
            label = (
                "measured"
                if idx.size == ns.size
                else (
                    f"extrapolated x{scale:.0f} from {idx.size} horizon(s), "
                    f"{dt:.2f} s wall measured"
                )
            )
            print(
                f"  before: mpmath reference     {dt * scale:9.3f} s wall, {cpu * scale:9.3f} s cpu"
                f" for the curve ({label}); {cpu / idx.size:.3f} s cpu per horizon"
            )
            if new is not None:
                rel = np.max(np.abs(new[idx] / old - 1))
                print(
                    f"  speed-up (cpu) {cpu * scale / best_cpu:.0f}x; max |new/old - 1| = "
                    f"{rel:.2e} on {idx.size} horizon(s)"
                )


if __name__ == "__main__":
    main()
