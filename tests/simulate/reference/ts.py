"""cascade-ts(prior=a,b): Beta(a + S, b + T - S) samples.

Pure-Python Marsaglia-Tsang (with the ziggurat normals of simulate.rng) below
INVERSION_MIN_L items, SciPy's betaincinv of the policy uniform from there on (the
policy's definition, simulate.policies.ts).
"""

import math

from scipy.special import betainc, betaincinv

from cascading_bandits.simulate.policies.ts import INVERSION_MIN_L
from cascading_bandits.simulate.rng import (
    EXP_ZIG_F,
    EXP_ZIG_R,
    EXP_ZIG_X,
    POLICY,
    ZIG_F,
    ZIG_R,
    ZIG_X,
    bits_py,
)

from .common import cascade_run, policy_bits, policy_u


def normal_py(key, t, e, L, j):
    """Standard normal by the ziggurat of simulate.rng (its tables), from sub-draws j, ..."""
    while True:
        z = policy_bits(key, t, e, L, j)
        j += 1
        i, neg = z & 255, (z >> 8) & 1
        x = (z >> 11) * 2.0**-53 * float(ZIG_X[i])
        if x < float(ZIG_X[i + 1]):
            return (-x if neg else x), j
        if i == 0:
            while True:
                e1 = -math.log1p(-policy_u(key, t, e, L, j)) / ZIG_R
                e2 = -math.log1p(-policy_u(key, t, e, L, j + 1))
                j += 2
                if e2 + e2 > e1 * e1:
                    return (-(ZIG_R + e1) if neg else ZIG_R + e1), j
        f0, f1 = float(ZIG_F[i]), float(ZIG_F[i + 1])
        y = f0 + policy_u(key, t, e, L, j) * (f1 - f0)
        j += 1
        if y < math.exp(-0.5 * x * x):
            return (-x if neg else x), j


def bisect_root(g, lo, hi, halvings=64):
    """The left end of [lo, hi] after ``halvings`` bisections of an increasing ``g`` with
    g(lo) < 0 < g(hi) (asserted): the ziggurats' r from their closures, in mpmath."""
    assert g(lo) < 0 < g(hi)
    for _ in range(halvings):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if g(mid) < 0 else (lo, mid)
    return lo


def seq_bits_py(key, t, L, c):
    """Draw c of step t's sequence of the threshold sampler (simulate.policies._ts_threshold),
    64 bits: ``bits(key, POLICY, t, 32 L + c // 256, 64 L, c % 256)``."""
    return bits_py(key, POLICY, t, 32 * L + c // 256, 64 * L, c % 256)


def exp_py(key, t, L, c):
    """Exp(1) by the exponential ziggurat of simulate.rng (its tables) from draws c, c + 1,
    ... of step t's sequence; returns (draw, next unused draw number)."""
    acc = 0.0
    while True:
        z = seq_bits_py(key, t, L, c)
        c += 1
        i = z & 255
        x = (z >> 11) * 2.0**-53 * float(EXP_ZIG_X[i])
        if x < float(EXP_ZIG_X[i + 1]):
            return acc + x, c
        if i == 0:
            acc += EXP_ZIG_R
            continue
        f0, f1 = float(EXP_ZIG_F[i]), float(EXP_ZIG_F[i + 1])
        y = f0 + (seq_bits_py(key, t, L, c) >> 11) * 2.0**-53 * (f1 - f0)
        c += 1
        if y < math.exp(-x):
            return acc + x, c


def _gamma(a, key, t, e, L, j):
    d = a - 1.0 / 3.0
    cc = 1.0 / math.sqrt(9.0 * d)
    while True:
        x, j = normal_py(key, t, e, L, j)
        u3 = 1.0 - policy_u(key, t, e, L, j)
        j += 1
        v = 1.0 + cc * x
        if v <= 0.0:
            continue
        v = v * v * v
        if u3 < 1.0 - 0.0331 * x * x * x * x or math.log(u3) < 0.5 * x * x + d * (
            1.0 - v + math.log(v)
        ):
            return d * v, j


def beta_py(a, b, key, t, e, L):
    x, j = _gamma(a, key, t, e, L, 0)
    y, _ = _gamma(b, key, t, e, L, j)
    return x / (x + y)


def beta_quantile_py(a, b, u):
    """SciPy's u-quantile if betainc maps it back to u within 1e-9, else bisection."""
    x = float(betaincinv(a, b, u))
    if 0.0 <= x <= 1.0 and abs(float(betainc(a, b, x)) - u) <= 1e-9:
        return x
    lo, hi = 0.0, 1.0
    while True:
        mid = 0.5 * (lo + hi)
        if mid <= lo or mid >= hi:
            return hi
        if float(betainc(a, b, mid)) < u:
            lo = mid
        else:
            hi = mid


def beta_inverse_py(a, b, key, t, e, L):
    """The u-quantile of Beta(a, b), u the policy stream's sub-draw 0 of (t, e)."""
    return beta_quantile_py(a, b, policy_u(key, t, e, L, 0))


def _index(S, N, t, spec, pkey, score):
    a, b = spec["prior"]
    L = len(S)
    draw = beta_inverse_py if L >= INVERSION_MIN_L else beta_py
    return [draw(a + S[e], b + (N[e] - S[e]), pkey, t, e, L) for e in range(L)]


def reference_run(*args):
    return cascade_run(_index, *args)
