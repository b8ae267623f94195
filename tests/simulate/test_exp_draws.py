"""The exponential ziggurat behind the threshold sampler's proposals and Poisson gaps.

The tables (simulate.rng.EXP_ZIG_X, EXP_ZIG_F) are derived again in mpmath, the kernel's
Exp(1) draws (simulate.policies._ts_threshold._exp1) equal the pure-Python reference's bit
for bit on every path of the sampler (fast, wedge, restart, tail), with the same number of
draws of the step's sequence, and pass Kolmogorov-Smirnov tests against SciPy's Exp(1).
"""

from __future__ import annotations

import math

import mpmath as mp
import numba
import numpy as np
from reference.ts import bisect_root, exp_py
from scipy import stats

from cascading_bandits.simulate.policies._ts_threshold import _exp1
from cascading_bandits.simulate.rng import EXP_ZIG_F, EXP_ZIG_R, EXP_ZIG_X, ZIG_N, policy_keys

KEY = int(policy_keys(np.random.SeedSequence(78), 1)[0])
#: items of the step (the sequence's counters depend on L)
L = 5


def _closure(r):
    """x_(N-1) (1 - f(x_(N-1))) - v for the exponential ziggurat from r (negative: it closes
    too early)."""
    v = (r + 1) * mp.exp(-r)
    x = r
    for _ in range(1, ZIG_N - 1):
        y = v / x + mp.exp(-x)
        if y >= 1:
            return mp.mpf(-1)
        x = -mp.log(y)
    return x * (1 - mp.exp(-x)) - v


def test_r_is_the_root_of_the_closure():
    """EXP_ZIG_R (Marsaglia and Tsang's 7.69711747013104972 for 256 layers) is, to float64,
    the r whose layers close at the top: bisection of the closure at 40 digits."""
    with mp.workdps(40):
        # 64 halvings: the bracket is then 0.4 / 2**64 < 3e-20 wide, inside the tolerance
        r = bisect_root(_closure, mp.mpf("7.5"), mp.mpf("7.9"))
        assert abs(float(r) - EXP_ZIG_R) <= 2e-16 * EXP_ZIG_R


def test_every_layer_has_the_same_area():
    """Base strip plus tail, then each rectangle [0, x_i] x [f(x_i), f(x_(i+1))]: all of area
    v = (r + 1) exp(-r) to 1e-13 relative, from the float64 tables; f correctly rounded.

    The top layer's area is v plus the closure's residual at r rounded to float64 (the
    closure moves by 2.9e-13 v an ulp of r here, against 0.6e-13 v for the normal's): within
    1.5e-13 (half an ulp), and equal to that residual."""
    assert EXP_ZIG_X.shape == EXP_ZIG_F.shape == (ZIG_N + 1,)
    assert EXP_ZIG_X[1] == EXP_ZIG_R and EXP_ZIG_X[-1] == 0.0 and EXP_ZIG_F[-1] == 1.0
    assert np.all(np.diff(EXP_ZIG_X) < 0)
    with mp.workdps(40):
        f = lambda x: mp.exp(-mp.mpf(x))  # noqa: E731
        r = mp.mpf(EXP_ZIG_R)
        v = (r + 1) * f(r)
        # the base layer: width x_0 = v / f(r) = r + 1 at height f(r)
        assert abs(mp.mpf(EXP_ZIG_X[0]) * f(r) / v - 1) < 1e-15
        assert abs(EXP_ZIG_X[0] - (EXP_ZIG_R + 1)) < 4e-15
        for i in range(1, ZIG_N - 1):
            area = mp.mpf(EXP_ZIG_X[i]) * (f(EXP_ZIG_X[i + 1]) - f(EXP_ZIG_X[i]))
            assert abs(area / v - 1) < 1e-13, i
        top = mp.mpf(EXP_ZIG_X[ZIG_N - 1]) * (1 - f(EXP_ZIG_X[ZIG_N - 1]))
        assert abs(top / v - 1) < 1.5e-13
        assert abs((top - v) / v - _closure(r) / v) < 1e-15
        for i in range(ZIG_N + 1):
            assert EXP_ZIG_F[i] == float(f(EXP_ZIG_X[i])), i


@numba.njit
def _draws(key, n, L, c0):
    """The Exp(1) draws of steps 0, ..., n - 1 from draw c0 of each step's sequence, and the
    sequence's draws each used. Shapes (n,), (n,)."""
    x = np.empty(n)
    used = np.empty(n, np.int64)
    ctr = np.zeros(2, np.int64)
    for t in range(n):
        ctr[0] = c0
        x[t] = _exp1(key, t, L, ctr)
        used[t] = ctr[0] - c0
    return x, used


def test_kernel_equals_reference_on_every_path():
    """Bit-equal draws and draw counts on the fast path, the wedges (accepted at once, or
    rejected and started over) and the tail; from the start of the sequence and across a
    block of 256 sub-draws (c0 = 254: the counter's index moves on at c = 256)."""
    n = 400_000
    # P(fast) = mean of x_(i+1) / x_i over the layers (0.978 for 256 layers)
    p = float(np.mean(EXP_ZIG_X[1:] / EXP_ZIG_X[:-1]))
    for c0 in (0, 254):
        x, used = _draws(np.uint64(KEY), n, L, c0)
        tail = np.flatnonzero(x > EXP_ZIG_R)
        wedge = np.flatnonzero((used == 2) & (x <= EXP_ZIG_R))
        restart = np.flatnonzero((used >= 3) & (x <= EXP_ZIG_R))
        fast = np.flatnonzero(used == 1)
        assert len(tail) >= 100 and len(wedge) >= 1000 and len(restart) >= 20
        assert abs(len(fast) - n * p) < 4 * math.sqrt(n * p * (1 - p))
        picks = np.concatenate([fast[:300], wedge[:300], restart[:100], tail[:100]])
        for t in picks:
            want, c = exp_py(KEY, int(t), L, c0)
            assert (x[t], used[t]) == (want, c - c0), (c0, t)


def test_draws_pass_kolmogorov_smirnov():
    """1,000,000 draws against Exp(1); their excess beyond r (the tail, r plus a new draw)
    against Exp(1) too; the fraction beyond r is exp(-r) within 4 binomial standard
    deviations."""
    x, _ = _draws(np.uint64(KEY ^ 0x5A5A), 1_000_000, 3, 0)
    assert stats.kstest(x, "expon").pvalue > 1e-3
    # the first 20,000 alone (a coarser look at the body)
    assert stats.kstest(x[:20_000], "expon").pvalue > 1e-3
    tail = x[x > EXP_ZIG_R]
    p = math.exp(-EXP_ZIG_R)
    sd = math.sqrt(len(x) * p * (1 - p))
    assert abs(len(tail) - len(x) * p) < 4 * sd
    assert stats.kstest(tail - EXP_ZIG_R, "expon").pvalue > 1e-3
    assert abs(np.mean(x) - 1) < 5 / math.sqrt(len(x)) and abs(np.var(x) - 1) < 0.01
