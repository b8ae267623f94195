"""Accuracy search and throughput of ``bounds.klucb_index`` (the simulator's hot path).

Run from the project root::

    python benchmarks/klucb_index.py          # 20000 random points; throughput at 1e6 and 1e7
    python benchmarks/klucb_index.py --points 2000 --sizes 1e6   # quicker

(a) Accuracy. The index ``max{q in [mean, 1] : count kl(mean, q) <= threshold}`` is
compared with a 50-digit mpmath root over the whole domain of the guarantee: means
in [0, 1] (exact 0 and 1, log-uniform near 0 down to 1e-300, log-uniform near 1 down
to 1 - 1e-16, uniform), counts log-uniform in [1, 1e12] (with the end points),
thresholds log-uniform in [1e-12, 1e4] plus exact 0 and 1e4. Then a local refinement
(hill climbing by random multiplicative perturbations of shrinking size) around the
worst points. Prints the worst absolute error, where it occurs, and how many points
were evaluated.

The reference root is computed in mpmath (50 digits) by Newton's method started to
the right of the root (``kl(p, .)`` is convex and increasing on [p, 1], so Newton
from the right decreases monotonically to the root), and *certified*: the result
``q`` must satisfy ``kl(p, q - h) <= r < kl(p, q + h)`` with ``h = 1e-40``; where this
fails, or the root lies within 1e-13 of 1, the script falls back to
``bounds.kl.kl_upper_root_mp`` (bisection, no failure mode).

(b) Throughput, single-threaded (the numba ufunc is not parallel): indices per
second for arrays of each ``--sizes`` element count, at typical simulator inputs
(means in [0, 0.3] with 10% exact 0, integer counts log-uniform in [1, 1e5],
threshold ``log t + 3 log log t`` at t uniform in [1, 1e5]) and over the whole
domain. Best of ``--repeats`` runs; both the validated public function and the raw
ufunc (what ``klucb_index`` calls after validation) are timed.
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import time

import mpmath
import numpy as np

from cascading_bandits.bounds.indices import klucb_threshold
from cascading_bandits.bounds.kl import _klucb_ufunc, kl_mp, kl_upper_root_mp, klucb_index

DPS = 50


# --------------------------------------------------------------------------
# sampling
# --------------------------------------------------------------------------


def sample_domain(rng, m):
    """m points (mean, count, threshold) spread over the whole guaranteed domain."""
    kind = rng.choice(5, size=m, p=[0.04, 0.04, 0.30, 0.30, 0.32])
    mean = np.empty(m)
    mean[kind == 0] = 0.0
    mean[kind == 1] = 1.0
    k2 = kind == 2
    mean[k2] = 10.0 ** rng.uniform(-300, 0, k2.sum())
    k3 = kind == 3
    mean[k3] = 1.0 - 10.0 ** rng.uniform(-16, 0, k3.sum())
    k4 = kind == 4
    mean[k4] = rng.random(k4.sum())
    count = 10.0 ** rng.uniform(0, 12, m)
    ends = rng.random(m)
    count[ends < 0.02] = 1.0
    count[(ends >= 0.02) & (ends < 0.04)] = 1e12
    integer = rng.random(m) < 0.5
    count[integer] = np.maximum(1.0, np.floor(count[integer]))
    threshold = 10.0 ** rng.uniform(-12, 4, m)
    tk = rng.random(m)
    threshold[tk < 0.03] = 0.0
    threshold[(tk >= 0.03) & (tk < 0.06)] = 1e4
    return np.clip(mean, 0.0, 1.0), count, threshold


def sample_typical(rng, m):
    """Inputs as the simulator produces them on the paper's problems (n = 1e5)."""
    mean = rng.uniform(0.0, 0.3, m)
    mean[rng.random(m) < 0.1] = 0.0
    count = np.floor(10.0 ** rng.uniform(0, 5, m))
    t = rng.integers(1, 100_001, m).astype(np.float64)
    return mean, count, klucb_threshold(t)


# --------------------------------------------------------------------------
# reference
# --------------------------------------------------------------------------


def reference(p, count, threshold, guess):
    """50-digit KL-UCB index (certified Newton, bisection fallback); returns (mpf, method)."""
    with mpmath.workdps(DPS):
        p = mpmath.mpf(p)
        if count == 0:
            return mpmath.mpf(1), "closed"
        r = mpmath.mpf(threshold) / mpmath.mpf(count)
        if p == 1:
            return mpmath.mpf(1), "closed"
        if r == 0:
            return p, "closed"
        if p == 0:
            return -mpmath.expm1(-r), "closed"
        h = mpmath.mpf("1e-40")
        q = mpmath.mpf(min(max(float(guess), float(p)), 1.0))
        step = mpmath.mpf("1e-12")
        # move right of the root
        for _ in range(60):
            if q + step >= 1:
                return kl_upper_root_mp(p, r, DPS), "bisection"
            if kl_mp(p, q + step) > r:
                q = q + step
                break
            step *= 4
        else:
            return kl_upper_root_mp(p, r, DPS), "bisection"
        if 1 - q < mpmath.mpf("1e-13"):
            return kl_upper_root_mp(p, r, DPS), "bisection"
        for _ in range(200):
            g = kl_mp(p, q) - r
            dq = g * q * (1 - q) / (q - p)
            q_new = q - dq
            if q_new <= p:
                q_new = (p + q) / 2
            if abs(q - q_new) < mpmath.mpf("1e-48"):
                q = q_new
                break
            q = q_new
        if kl_mp(p, q - h) <= r < kl_mp(p, q + h):
            return q, "newton"
        return kl_upper_root_mp(p, r, DPS), "bisection"


def errors(mean, count, threshold):
    got = _klucb_ufunc(mean, count, threshold)
    out = np.empty(mean.size)
    methods = {}
    for i in range(mean.size):
        ref, how = reference(mean[i], count[i], threshold[i], got[i])
        methods[how] = methods.get(how, 0) + 1
        with mpmath.workdps(DPS):
            out[i] = float(abs(mpmath.mpf(float(got[i])) - ref))
    return out, got, methods


def _perturb(rng, x, scale):
    mean, count, threshold = x
    if mean > 0.5 and mean < 1:
        tail = (1 - mean) * math.exp(rng.normal(0, scale))
        mean = min(1.0, max(0.0, 1 - tail))
    elif 0 < mean <= 0.5:
        mean = min(1.0, mean * math.exp(rng.normal(0, scale)))
    count = min(1e12, max(1.0, count * math.exp(rng.normal(0, scale))))
    if threshold > 0:
        threshold = min(1e4, threshold * math.exp(rng.normal(0, scale)))
    return mean, count, threshold


def accuracy(rng, points, refine_top, refine_steps):
    t0 = time.perf_counter()
    mean, count, threshold = sample_domain(rng, points)
    err, got, methods = errors(mean, count, threshold)
    n_eval = points
    order = np.argsort(err)[::-1][:refine_top]
    best = [(err[i], (mean[i], count[i], threshold[i])) for i in order]
    refined = []
    for e0, x0 in best:
        e_best, x_best = e0, x0
        for step in range(refine_steps):
            scale = 1.0 * 0.97**step
            cands = [_perturb(rng, x_best, scale) for _ in range(4)]
            arr = [np.array([c[j] for c in cands]) for j in range(3)]
            e, _, m = errors(*arr)
            for k, v in m.items():
                methods[k] = methods.get(k, 0) + v
            n_eval += len(cands)
            j = int(np.argmax(e))
            if e[j] > e_best:
                e_best, x_best = float(e[j]), cands[j]
        refined.append((e_best, x_best))
    all_pts = [(float(err[i]), (mean[i], count[i], threshold[i])) for i in range(points)] + refined
    worst_err, worst_x = max(all_pts, key=lambda t: t[0])
    elapsed = time.perf_counter() - t0
    return {
        "worst": worst_err,
        "where": worst_x,
        "evaluated": n_eval,
        "random": points,
        "methods": methods,
        "hist": {lim: int(np.sum(err > lim)) for lim in (1e-16, 1e-15, 1e-14, 1e-13, 1e-12)},
        "seconds": elapsed,
    }


# --------------------------------------------------------------------------
# throughput
# --------------------------------------------------------------------------


def throughput(fn, args, repeats):
    best = math.inf
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn(*args)
        best = min(best, time.perf_counter() - t0)
    return args[0].size / best, best


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--points", type=int, default=20000, help="random points for the accuracy search"
    )
    ap.add_argument("--refine-top", type=int, default=20, help="worst points refined locally")
    ap.add_argument("--refine-steps", type=int, default=60, help="hill-climbing steps per point")
    ap.add_argument("--sizes", default="1e6,1e7", help="array sizes for throughput, comma list")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--seed", type=int, default=20150706)
    ap.add_argument("--skip-accuracy", action="store_true")
    args = ap.parse_args(argv)
    rng = np.random.default_rng(args.seed)

    print(
        f"machine: {platform.machine()} {platform.processor() or ''}, {os.cpu_count()} CPUs, "
        f"Python {platform.python_version()}, numpy {np.__version__}"
    )
    klucb_index(np.array([0.5]), np.array([1.0]), np.array([1.0]))  # compile / load cache

    if not args.skip_accuracy:
        print("\n(a) accuracy against the 50-digit mpmath root")
        res = accuracy(rng, args.points, args.refine_top, args.refine_steps)
        m, c, t = (float(v) for v in res["where"])
        got = float(_klucb_ufunc(m, c, t))
        print(
            f"points evaluated: {res['evaluated']} ({res['random']} random + local refinement "
            f"of the {args.refine_top} worst, {args.refine_steps} steps x 4 candidates each)"
        )
        print(f"reference methods: {res['methods']}")
        print(f"worst absolute error: {res['worst']:.3e}")
        print(f"  at mean = {m!r}, count = {c!r}, threshold = {t!r}; index = {got!r}")
        print(
            "  random points with error above 1e-16/1e-15/1e-14/1e-13/1e-12: "
            + "/".join(str(v) for v in res["hist"].values())
        )
        print(
            f"  guarantee 1e-12: {'holds' if res['worst'] <= 1e-12 else 'VIOLATED'} "
            f"on every point evaluated ({res['seconds']:.1f} s)"
        )

    print(f"\n(b) throughput, single thread (best of {args.repeats})")
    print(f"{'inputs':<14} {'size':>10} {'klucb_index (validated)':>26} {'raw ufunc':>18}")
    for size in [int(float(s)) for s in args.sizes.split(",")]:
        for name, sampler in (("typical", sample_typical), ("whole domain", sample_domain)):
            x = sampler(rng, size)
            rate_v, _ = throughput(klucb_index, x, args.repeats)
            rate_u, _ = throughput(_klucb_ufunc, x, args.repeats)
            print(f"{name:<14} {size:>10.0e} {rate_v / 1e6:>19.2f} M/s {rate_u / 1e6:>13.2f} M/s")
            del x


if __name__ == "__main__":
    main()
