"""The ziggurat normals behind CascadeTS's Gamma variates (simulate.rng).

The tables are derived again in mpmath, the kernels' draws equal the pure-Python
reference's bit for bit on every path of the sampler (fast, wedge, tail), and the normal,
Gamma and Beta draws pass Kolmogorov-Smirnov tests against SciPy's distributions.
"""

from __future__ import annotations

import math

import mpmath as mp
import numba
import numpy as np
import pytest
from reference.ts import beta_py, bisect_root, normal_py
from scipy import stats

from cascading_bandits.simulate.rng import (
    ZIG_F,
    ZIG_N,
    ZIG_R,
    ZIG_X,
    _normal_draw,
    beta_draw,
    policy_keys,
)

KEY = int(policy_keys(np.random.SeedSequence(77), 1)[0])


def _closure(r):
    """x_(N-1) (1 - f(x_(N-1))) - v for the ziggurat from r (negative: it closes too early)."""
    f = lambda x: mp.exp(-x * x / 2)  # noqa: E731
    v = r * f(r) + mp.sqrt(mp.pi / 2) * mp.erfc(r / mp.sqrt(2))
    x = r
    for _ in range(1, ZIG_N - 1):
        y = v / x + f(x)
        if y >= 1:
            return mp.mpf(-1)
        x = mp.sqrt(-2 * mp.log(y))
    return x * (1 - f(x)) - v


def test_r_is_the_root_of_the_closure():
    """ZIG_R (Marsaglia and Tsang's 3.6541528853610088 for 256 layers) is, to float64, the
    r whose layers close at the top: bisection of the closure at 40 digits."""
    with mp.workdps(40):
        # 64 halvings: the bracket is then 0.3 / 2**64 < 2e-20 wide, inside the tolerance
        r = bisect_root(_closure, mp.mpf("3.5"), mp.mpf("3.8"))
        assert abs(float(r) - ZIG_R) <= 2e-16 * ZIG_R


def test_every_layer_has_the_same_area():
    """Base strip plus tail, then each rectangle [0, x_i] x [f(x_i), f(x_(i+1))]: all of area
    v to 1e-13 relative, from the float64 tables; f tabulated correctly rounded."""
    assert ZIG_X.shape == ZIG_F.shape == (ZIG_N + 1,)
    assert ZIG_X[1] == ZIG_R and ZIG_X[-1] == 0.0 and ZIG_F[-1] == 1.0
    assert np.all(np.diff(ZIG_X[1:]) < 0)
    with mp.workdps(40):
        f = lambda x: mp.exp(-(mp.mpf(x) ** 2) / 2)  # noqa: E731
        r = mp.mpf(ZIG_R)
        v = r * f(r) + mp.sqrt(mp.pi / 2) * mp.erfc(r / mp.sqrt(2))
        assert abs(mp.mpf(ZIG_X[0]) * f(r) / v - 1) < 1e-15
        for i in range(1, ZIG_N):
            area = mp.mpf(ZIG_X[i]) * (f(ZIG_X[i + 1]) - f(ZIG_X[i]))
            assert abs(area / v - 1) < 1e-13, i
        for i in range(ZIG_N + 1):
            assert ZIG_F[i] == float(f(ZIG_X[i])), i


@numba.njit
def _paths(key, n):
    """Counters (t, e) of n first normal draws: sub-draws used (1 = fast, 2 = wedge, 3+ =
    tail or a restart), and the draws. Shapes (n,), (n,)."""
    used = np.empty(n, np.int64)
    x = np.empty(n)
    for t in range(n):
        x[t], used[t] = _normal_draw(key, t, 3, 8, 0)
    return used, x


def test_kernel_equals_reference_on_every_path():
    """Bit-equal draws and sub-draw counts on the fast path, the wedges and the tail."""
    used, x = _paths(np.uint64(KEY), 400_000)
    tail = np.flatnonzero(np.abs(x) > ZIG_R)
    wedge = np.flatnonzero((used == 2) & (np.abs(x) <= ZIG_R))
    restart = np.flatnonzero((used >= 2) & (np.abs(x) <= ZIG_R) & (used != 2))
    fast = np.flatnonzero(used == 1)
    assert len(tail) >= 20 and len(wedge) >= 100 and len(restart) >= 20
    assert 0.985 < len(fast) / len(x) < 0.993  # the ziggurat's 98.8%
    picks = np.concatenate([fast[:300], wedge[:300], restart[:100], tail])
    for t in picks:
        want, j = normal_py(KEY, int(t), 3, 8, 0)
        assert (x[t], used[t]) == (want, j), t
    # the draws of either sign
    assert (x[fast[:300]] < 0).any() and (x[fast[:300]] > 0).any()
    assert (x[tail] < 0).any() and (x[tail] > 0).any()


def test_normals_pass_kolmogorov_smirnov():
    _, x = _paths(np.uint64(KEY ^ 0x5A5A), 3_000_000)
    assert stats.kstest(x, "norm").pvalue > 1e-3
    # the tail beyond r: |x| - r given |x| > r against the normal's tail there
    tail = np.abs(x[np.abs(x) > ZIG_R])
    sf_r = stats.norm.sf(ZIG_R)
    p = stats.kstest(tail, lambda y: 1 - stats.norm.sf(y) / sf_r).pvalue
    assert len(tail) > 600 and p > 1e-3
    assert abs(np.mean(x)) < 5 / math.sqrt(len(x)) and abs(np.var(x) - 1) < 0.01


@numba.njit
def _betas(a, b, key, n):
    out = np.empty(n)
    for t in range(n):
        out[t] = beta_draw(a, b, key, t, 1, 4)
    return out


@pytest.mark.parametrize("a,b", [(1.0, 1.0), (2.0, 5.0), (30.0, 3.0), (1.0, 400.0), (1.5, 1.25)])
def test_beta_draws_pass_kolmogorov_smirnov(a, b):
    """X / (X + Y) of two Marsaglia-Tsang Gamma variates is Beta(a, b); 200,000 draws."""
    x = _betas(a, b, np.uint64(KEY), 200_000)
    assert stats.kstest(x, "beta", args=(a, b)).pvalue > 1e-3


def test_beta_draws_equal_the_reference():
    for t, (a, b) in enumerate([(1.0, 1.0), (2.0, 5.0), (30.0, 3.0), (1.0, 400.0), (7.5, 2.0)]):
        for e in range(4):
            assert beta_draw(a, b, np.uint64(KEY), t, e, 4) == beta_py(a, b, KEY, t, e, 4)
