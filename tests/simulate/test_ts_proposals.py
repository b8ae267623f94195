"""The threshold sampler's envelope proposals (simulate.policies._ts_threshold._propose).

A proposal above tau is accepted with f(x) / envelope(x), first by a cheap test from lower
bounds of log1p multiplied out by their denominators, then by the exact ``w < exp(lr)``.
Here: the bounds are proved (sympy) and checked (mpmath); the cheap test never accepts
what the exact one rejects (hypothesis); the kernel's proposals equal a pure-Python
reference bit for bit; and the accepted values follow Beta(a, b) given > tau with the
acceptance rate q / U of the envelope (Kolmogorov-Smirnov and binomial tests), on each
branch of the proposal (ziggurat, inversion, lam = 0, lam < 0).
"""

from __future__ import annotations

import math

import mpmath as mp
import numba
import numpy as np
import pytest
import sympy as sp
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from reference.ts import exp_py, seq_bits_py
from scipy import stats

from cascading_bandits.simulate.jitopts import python_twin
from cascading_bandits.simulate.policies._ts_threshold import _envelope_mass, _lam, _propose
from cascading_bandits.simulate.rng import policy_keys

KEY = int(policy_keys(np.random.SeedSequence(79), 1)[0])
L = 6
LN2 = math.log(2.0)


# --------------------------------------------------------------------------
# the lower bounds of log1p
# --------------------------------------------------------------------------
def test_lower_bound_of_log1p_x_is_proved():
    """g(x) = log(1 + x) - x (6 + 3x) / (6 + 6x + x^2): g(0) = 0 and g'(x) = x^4 / ((1 + x)
    (6 + 6x + x^2)^2) >= 0 on x >= 0, so g >= 0 there."""
    x = sp.symbols("x", nonnegative=True)
    g = sp.log(1 + x) - x * (6 + 3 * x) / (6 + 6 * x + x**2)
    assert g.subs(x, 0) == 0
    assert sp.simplify(sp.diff(g, x) - x**4 / ((1 + x) * (6 + 6 * x + x**2) ** 2)) == 0
    # the bound is tight to fifth order (a Pade approximant): g = x^5 / 180 + O(x^6)
    assert sp.series(g, x, 0, 6).removeO() == x**5 / 180


def test_lower_bound_of_log1p_minus_y_is_proved():
    """h(y) = log(1 - y) + y (6 - 5y) / ((1 - y) (6 - 2y)): h(0) = 0 and h'(y) = y^3 /
    ((1 - y)^2 (3 - y)^2) >= 0 on [0, 1), so h >= 0 there: log1p(-y) >= -y (6 - 5y) /
    ((1 - y) (6 - 2y))."""
    y = sp.symbols("y", nonnegative=True)
    h = sp.log(1 - y) + y * (6 - 5 * y) / ((1 - y) * (6 - 2 * y))
    assert h.subs(y, 0) == 0
    assert sp.simplify(sp.diff(h, y) - y**3 / ((1 - y) ** 2 * (3 - y) ** 2)) == 0
    assert sp.series(h, y, 0, 5).removeO() == y**4 / 36


def test_lower_bounds_on_a_grid():
    """Both bounds at 40 digits on grids up to x = 1e6 and y = 1 - 1e-12: never above."""
    with mp.workdps(40):
        for x in [mp.mpf(10) ** k for k in np.linspace(-8, 6, 400)]:
            assert mp.log1p(x) - x * (6 + 3 * x) / (6 + 6 * x + x * x) >= 0, x
        ys = [mp.mpf(10) ** k for k in np.linspace(-8, -1e-3, 300)]
        ys += [1 - mp.mpf(10) ** -k for k in np.linspace(1, 12, 100)]
        for y in ys:
            assert mp.log1p(-y) + y * (6 - 5 * y) / ((1 - y) * (6 - 2 * y)) >= 0, y


# --------------------------------------------------------------------------
# the cheap test never accepts what the exact one rejects
# --------------------------------------------------------------------------
def cheap_accepts(a, b, tau, s, w):
    """The kernel's multiplied-out test, its float expression as written in _propose."""
    itau, ih = 1.0 / tau, 1.0 / (1.0 - tau)
    lam = (b - 1.0) / (1.0 - tau) - (a - 1.0) / tau
    x, y = s * itau, min(s * ih, 1.0 - 2.0**-53)
    d1, d2 = 6.0 + x * (6.0 + x), (1.0 - y) * (6.0 - 2.0 * y)
    return (w - 1.0 - lam * s) * (d1 * d2) < (a - 1.0) * (x * (6.0 + 3.0 * x)) * d2 - (b - 1.0) * (
        y * (6.0 - 5.0 * y)
    ) * d1


def exact_lr(a, b, tau, s):
    """lr = (a-1) log1p(s/tau) + (b-1) log1p(-s/(1-tau)) + lam s at 40 digits (lam the
    float the proposal used; an mpf)."""
    lam = (b - 1.0) / (1.0 - tau) - (a - 1.0) / tau
    with mp.workdps(40):
        tt, ss = mp.mpf(tau), mp.mpf(s)
        return (a - 1) * mp.log1p(ss / tt) + (b - 1) * mp.log1p(-ss / (1 - tt)) + mp.mpf(lam) * ss


@settings(max_examples=400, deadline=None, derandomize=True)
@given(
    a=st.floats(1.0, 200.0),
    b=st.floats(1.0, 2000.0),
    tau=st.floats(1e-6, 1.0 - 1e-6),
    lfrac=st.floats(-12.0, 0.0, exclude_max=True),
    w=st.floats(0.0, 1.0, exclude_max=True),
    at_boundary=st.booleans(),
)
def test_cheap_test_never_accepts_what_the_exact_test_rejects(a, b, tau, lfrac, w, at_boundary):
    """For s in (0, 1 - tau) and w in [0, 1): cheap accepts => w < exp(lr) at 40 digits.
    s / (1 - tau) = 10^lfrac spans 12 decades (lr from about -1e-20 down); half the examples
    put w at the smallest float >= exp(lr) (the exact test's boundary, where a cheap test
    too generous by any margin would accept)."""
    h = 1.0 - tau
    s = 10.0**lfrac * h
    assume(0.0 < s < h and mp.mpf(s) < 1 - mp.mpf(tau))
    lr = exact_lr(a, b, tau, s)
    with mp.workdps(40):
        if at_boundary:
            e = mp.exp(lr)
            w = float(e)
            if w < e:
                w = math.nextafter(w, 2.0)
            assume(w < 1.0)
        if cheap_accepts(a, b, tau, s, w):
            assert w < mp.exp(lr), (a, b, tau, s, w)


# --------------------------------------------------------------------------
# the kernel's proposals
# --------------------------------------------------------------------------
@numba.njit
def _proposals(a, b, tau, key, L, t0, n):
    """_propose at steps t0, ..., t0 + n - 1, each from the start of its step's sequence:
    the results (tau + s, or -1.0) and the sequence's draws each used. Shapes (n,), (n,)."""
    itau, ih, lam = 1.0 / tau, 1.0 / (1.0 - tau), _lam(a, b, tau)
    out = np.empty(n)
    used = np.empty(n, np.int64)
    ctr = np.zeros(2, np.int64)
    for k in range(n):
        ctr[0] = 0
        out[k] = _propose(a, b, tau, itau, ih, lam, key, t0 + k, L, ctr)
        used[k] = ctr[0]
    return out, used


@numba.njit
def _mass(a, b, lb, tau):
    return _envelope_mass(a, b, lb, tau, math.log(tau), math.log1p(-tau))


def _unit_py(z):
    return (z >> 11) * 2.0**-53


def propose_py(a, b, tau, key, t, L):
    """Pure-Python _propose from draw 0 of step t's sequence: (result, draws used)."""
    h = 1.0 - tau
    lam = (b - 1.0) / (1.0 - tau) - (a - 1.0) / tau
    c = 0
    if lam * h >= LN2:
        e, c = exp_py(key, t, L, c)
        s = e / lam
        while not s < h:
            e, c = exp_py(key, t, L, c)
            s = e / lam
    else:
        v = _unit_py(seq_bits_py(key, t, L, c))
        c += 1
        s = v * h if lam == 0.0 else -math.log1p(v * math.expm1(-lam * h)) / lam
    if not 0.0 < s < h:
        return -1.0, c
    w = _unit_py(seq_bits_py(key, t, L, c))
    c += 1
    if cheap_accepts(a, b, tau, s, w):
        return tau + s, c
    x, y = s * (1.0 / tau), s * (1.0 / (1.0 - tau))
    lr = (a - 1.0) * math.log1p(x) + (b - 1.0) * math.log1p(-y) + lam * s
    return (tau + s if w < math.exp(lr) else -1.0), c


#: (a, b, tau): lam (1 - tau) >= log 2 (the ziggurat: 23, and 1.0 with many redraws past
#: 1 - tau), 0 < lam (1 - tau) < log 2 (inversion), lam = 0 (v h), lam < 0 (tau below the
#: mode), a = 1
CASES = {
    "ziggurat": (3.0, 30.0, 0.25),
    "ziggurat-redraw": (2.0, 3.0, 0.5),
    "inversion": (3.0, 3.0, 0.55),
    "lam-zero": (4.0, 4.0, 0.5),
    "lam-negative": (20.0, 5.0, 0.7),
    "lam-negative-2": (6.0, 3.0, 0.5),
    "a-one": (1.0, 10.0, 0.2),
}


def test_cases_cover_the_branches():
    lam = python_twin(_lam)
    lh = {k: lam(*v) * (1.0 - v[2]) for k, v in CASES.items()}
    assert lh["ziggurat"] > 20 and LN2 <= lh["ziggurat-redraw"] < 1.5 and lh["a-one"] >= LN2
    assert 0.0 < lh["inversion"] < LN2 and lh["lam-zero"] == 0.0
    assert lh["lam-negative"] < 0.0 and lh["lam-negative-2"] < 0.0


@pytest.mark.parametrize("case", sorted(CASES))
def test_cheap_test_decides_most_acceptances(case):
    """Not vacuous: on proposals from the envelope (by inversion), the cheap test accepts
    nothing the exact test rejects, and a share of what it accepts: 98% with tau well above
    the mode (lam (1 - tau) = 23, the sampler's usual case), about half with lam < 0 (the
    proposals crowd towards 1, where the bound of log1p(-y) is loose)."""
    a, b, tau = CASES[case]
    rng = np.random.default_rng(5)
    h, lam = 1.0 - tau, (b - 1.0) / (1.0 - tau) - (a - 1.0) / tau
    n_exact = n_cheap = 0
    for vi, wi in rng.random((4000, 2)):
        s = vi * h if lam == 0.0 else -math.log1p(vi * math.expm1(-lam * h)) / lam
        if not 0.0 < s < h:
            continue
        ex = wi < mp.exp(exact_lr(a, b, tau, s))
        ch = cheap_accepts(a, b, tau, s, wi)
        assert ex or not ch, (s, wi)
        n_exact += ex
        n_cheap += ch
    assert n_exact > 300
    assert n_cheap >= (0.95 if case in ("ziggurat", "a-one") else 0.4) * n_exact


@pytest.mark.parametrize("case", sorted(CASES))
def test_kernel_equals_reference(case):
    """Bit-equal results and draw counts for 3,000 steps (accepted and rejected)."""
    a, b, tau = CASES[case]
    out, used = _proposals(a, b, tau, np.uint64(KEY), L, 0, 3000)
    assert (out > 0).any() and (out < 0).any()
    if case.startswith("ziggurat"):
        assert (used > 2).any()  # a wedge, a tail or a redraw
    for t in range(3000):
        assert (out[t], used[t]) == propose_py(a, b, tau, KEY, t, L), t


def _envelope_mass_mp(a, b, tau):
    """U = f(tau) int_0^(1-tau) exp(-lam s) ds at 40 digits (f the Beta(a, b) density)."""
    with mp.workdps(40):
        a, b, tau = mp.mpf(a), mp.mpf(b), mp.mpf(tau)
        h = 1 - tau
        lam = (b - 1) / h - (a - 1) / tau
        f = tau ** (a - 1) * h ** (b - 1) / mp.beta(a, b)
        return f * h if lam == 0 else f * -mp.expm1(-lam * h) / lam


@pytest.mark.parametrize("case", sorted(CASES))
def test_accepted_proposals_follow_the_conditional_beta(case):
    """200,000 proposals: the accepted values are Beta(a, b) given > tau (KS), accepted at
    the rate q / U, q = 1 - I_tau(a, b), U the envelope mass (4 binomial standard
    deviations); the module's _envelope_mass agrees with U at 40 digits to 1e-12."""
    a, b, tau = CASES[case]
    n = 200_000
    out, _ = _proposals(a, b, tau, np.uint64(KEY ^ 0xC3), L, 1, n)
    acc = out[out > 0]
    assert np.all((acc > tau) & (acc < 1.0)) and np.all(out[out <= 0] == -1.0)
    U = _envelope_mass_mp(a, b, tau)
    lb = math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b)
    assert abs(_mass(a, b, lb, tau) / float(U) - 1) < 1e-12
    q = stats.beta.sf(tau, a, b)
    p = q / float(U)
    assert 0.01 < p <= 1.0
    assert abs(len(acc) - n * p) < 4 * math.sqrt(n * p * (1 - p)), (len(acc), n * p)
    ftau = stats.beta.cdf(tau, a, b)
    pv = stats.kstest(acc, lambda x: (stats.beta.cdf(x, a, b) - ftau) / (1 - ftau)).pvalue
    assert pv > 1e-3, pv
