"""The brackets of the lazy KL-UCB selection hold the index klucb_scalar returns.

simulate.policies._klucb_select brackets the KL-UCB index of an item from a cached
reference point (one kl evaluation per state, none per step while the state lasts). The
selection is exact only if every bracket holds klucb_scalar's value at every threshold
the reference serves; these tests check that directly, on random and extreme states
(S = 0, S = N, N = 0, counts in the billions, thresholds of t = 1, 2, 3), and against
the root computed with mpmath.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from _twins import twins
from hypothesis import strategies as st

from cascading_bandits.bounds.indices import klucb_threshold_scalar
from cascading_bandits.bounds.kl import kl_mp, klucb_index_mp, klucb_scalar
from cascading_bandits.simulate.jitopts import python_twin
from cascading_bandits.simulate.policies import _klucb_select as sel


def _state(s, n):
    S = np.array([s], np.int64)
    N = np.array([n], np.int64)
    F, Ist = np.zeros((1, sel.FW)), np.zeros((1, sel.IW), np.int64)  # the empty state
    return S, N, F, Ist


def _bracket_now(S, N, F, Ist, th):
    if Ist[0, sel.KN] != N[0]:
        python_twin(sel._set_ref)(S, N, F, Ist, 0, th)
    p = S[0] / N[0] if N[0] > 0 else 0.0
    assert F[0, sel.P] == p  # the reference's p is the mean, bit for bit
    lo, hi, qn = python_twin(sel._bracket_ref)(N, F, 0, th)
    F[0, sel.QN] = qn
    return p, lo, hi


def _holds(p, n, th, lo, hi):
    v = klucb_scalar(p, float(n), th)
    assert lo <= v <= hi, (p, n, th, lo, v, hi)
    if lo == hi:  # exact: it must be klucb_scalar's value itself
        assert lo == v
    return v


counts = st.one_of(st.integers(0, 60), st.integers(61, 10**6), st.integers(10**9, 4 * 10**9))


# The three property tests below draw a fifth of their examples in the default run; the
# slow tier (``pytest -m slow``) runs the same checks with the full counts (``*_many``).
_SERVES = dict(
    n=counts,
    frac=st.floats(0.0, 1.0),
    t0=st.integers(1, 10**7),
    steps=st.lists(st.integers(0, 5000), min_size=1, max_size=6),
    c=st.sampled_from([0.0, 3.0]),
    q_next=st.floats(0.0, 1.0),
)


@twins(60, 300, _SERVES)
def test_brackets_hold_the_index_over_the_thresholds_a_reference_serves(
    n, frac, t0, steps, c, q_next
):
    s = int(round(frac * n))
    S, N, F, Ist = _state(s, n)
    F[0, sel.QN] = q_next  # any earlier Newton point, valid or not
    t = t0
    for dt in steps:  # the reference is set once, then serves later (larger) thresholds
        t += dt
        th = klucb_threshold_scalar(float(t), c)
        p, lo, hi = _bracket_now(S, N, F, Ist, th)
        _holds(p, n, th, lo, hi)


_FOLLOW = dict(
    n=st.integers(1, 10**5),
    frac=st.floats(0.0, 1.0),
    t=st.integers(1, 10**6),
    moves=st.lists(st.tuples(st.booleans(), st.integers(0, 50)), min_size=1, max_size=8),
)


@twins(40, 200, _FOLLOW)
def test_brackets_follow_the_state_and_refinement_keeps_the_index(n, frac, t, moves):
    """Observations move the reference (a new state); _refine tightens a bracket."""
    s = int(round(frac * n))
    S, N, F, Ist = _state(s, n)
    for click, dt in moves:
        t += dt
        th = klucb_threshold_scalar(float(t), 3.0)
        p, lo, hi = _bracket_now(S, N, F, Ist, th)
        F[0, sel.LO], F[0, sel.HI] = lo, hi
        Ist[0, sel.EX] = 2 if lo == hi else 0
        v = _holds(p, N[0], th, lo, hi)
        if Ist[0, sel.EX] == 0:
            python_twin(sel._refine)(S, N, F, Ist, th, 0)
            lo2, hi2 = F[0, sel.LO], F[0, sel.HI]
            assert lo <= lo2 <= v <= hi2 <= hi
        S[0] += click
        N[0] += 1


@pytest.mark.parametrize(
    "s, n, t",
    [(1, 5, 3), (3, 10, 100), (20, 100, 10**4), (2, 10**6, 10**5), (10**8, 10**9, 10**6)],
)
def test_brackets_hold_the_mpmath_root(s, n, t):
    """The bracket holds the true root (mpmath, 50 digits), not only klucb_scalar's value."""
    S, N, F, Ist = _state(s, n)
    th = klucb_threshold_scalar(float(t), 3.0)
    F[0, sel.QN] = min(1.0 - 1e-9, s / n + math.sqrt(th / (2 * n)))  # a Pinsker-like start
    p, lo, hi = _bracket_now(S, N, F, Ist, th)
    root = float(klucb_index_mp(s / n, n, th))
    assert lo <= root <= hi
    assert hi - lo < 0.5  # a bracket, not the trivial [0, 1]


_ENCLOSE = dict(
    n=counts.filter(lambda n: n >= 2),
    frac=st.floats(0.0, 1.0),
    moves=st.lists(st.tuples(st.booleans(), st.integers(1, 3)), min_size=1, max_size=12),
    lift=st.floats(1e-6, 0.5),
)


@twins(60, 300, _ENCLOSE)
def test_a_reference_encloses_kl_at_the_states_it_serves(n, frac, moves, lift):
    """Later states reuse the reference (no logarithm): their enclosure [KLO, KHI] holds
    kl(p, q0), computed with mpmath at 50 digits, and KHI is the stored reciprocal's."""
    s = int(round(frac * n))
    S, N, F, Ist = _state(s, n)
    p0 = s / n
    F[0, sel.QN] = min(1.0 - 1e-12, p0 + lift * (1.0 - p0))  # a point above the mean
    th = klucb_threshold_scalar(1e4, 3.0)
    for click, k in moves:
        python_twin(sel._set_ref)(S, N, F, Ist, 0, th)
        if F[0, sel.IK0] != 0.0:  # not a closed form: the reference is in use
            p, q0 = S[0] / N[0], F[0, sel.Q0]
            assert F[0, sel.P] == p and p < q0 < 1.0
            exact = kl_mp(p, q0, dps=50)
            assert F[0, sel.KLO] <= exact <= F[0, sel.KHI], (p, q0, F[0, sel.KLO], F[0, sel.KHI])
            assert F[0, sel.IK0] == 1.0 / F[0, sel.KHI]
            assert 1 <= Ist[0, sel.NT] <= sel.TAYLOR
        S[0] += k if click else 0
        N[0] += k


def test_a_reference_serves_taylor_states_then_is_renewed():
    """No logarithm for TAYLOR - 1 states after a reference is made, then a new one."""
    S, N, F, Ist = _state(200, 1000)
    th = klucb_threshold_scalar(1e4, 3.0)
    F[0, sel.QN] = 0.25
    seen = []
    for _ in range(2 * sel.TAYLOR):
        python_twin(sel._set_ref)(S, N, F, Ist, 0, th)
        seen.append(int(Ist[0, sel.NT]))
        assert F[0, sel.KLO] < F[0, sel.KHI] or Ist[0, sel.NT] == 1
        N[0] += 1  # an unattractive observation: p falls, q0 stays above it
    assert seen == list(range(1, sel.TAYLOR + 1)) * 2


def test_closed_index_is_klucb_scalar_bit_for_bit():
    """_klucb_select._closed_index repeats klucb_scalar's closed forms (T <= 0, p <= 0 or
    >= 1, th <= 0) inline and calls it otherwise: the same double in every case."""
    from cascading_bandits.bounds.kl import klucb_scalar
    from cascading_bandits.simulate.jitopts import python_twin
    from cascading_bandits.simulate.policies import _klucb_select as ks

    closed = python_twin(ks._closed_index)
    rng = np.random.default_rng(20261127)
    ps = [0.0, 1.0, 5e-324, 0.5, 1.0 - 2.0**-53, *rng.random(40)]
    Ts = [0.0, -1.0, 1.0, 3.0, 1e9, *rng.integers(1, 10**6, 10).astype(float)]
    ths = [0.0, -2.0, 1e-300, 1.0, 11.5, 1e3, math.inf]
    n = 0
    for p in ps:
        for T in Ts:
            for th in ths:
                a, b = closed(p, T, th), klucb_scalar(p, T, th)
                assert a == b or (math.isnan(a) and math.isnan(b)), (p, T, th, a, b)
                n += 1
    assert n == len(ps) * len(Ts) * len(ths)
