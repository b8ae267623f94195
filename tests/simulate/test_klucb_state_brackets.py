"""The state selection's brackets hold the index klucb_scalar returns.

simulate.policies._klucb_states brackets the KL-UCB index of a state (S, N) from what the
state keeps: a reference point with kl there, its p and 1 / N (a bracket then costs no
logarithm and no division), and, for S = 0, the closed-form index at an earlier threshold
(no exp). The selection is exact only if every bracket holds klucb_scalar's value, at every
threshold, up or down, while the kept values serve; these tests check that directly, on
random and extreme states, with the settling (:func:`_settle`) and exact (:func:`_exact`)
steps the selection takes between brackets.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from cascading_bandits.bounds.indices import klucb_threshold_scalar
from cascading_bandits.bounds.kl import klucb_scalar
from cascading_bandits.simulate.jitopts import python_twin
from cascading_bandits.simulate.policies import _klucb_states as ks


def _slot(s, n, q0):
    """One slot of state (s, n), as _add opens it, with reference point q0."""
    sinfo = np.zeros((1, ks._NF), np.int64)
    sval = np.zeros((1, ks._NV))
    sinfo[0, ks._S], sinfo[0, ks._N] = s, n
    sinfo[0, ks._RF] = -1
    sval[0, ks._Q] = q0
    sval[0, ks._K0] = -1.0
    return sinfo, sval


def _holds(s, n, th, lo, hi, exact):
    v = klucb_scalar(s / n if n > 0 else 0.0, float(n), th)
    assert lo <= v <= hi, (s, n, th, lo, v, hi)
    if exact:
        assert lo == hi == v
    return v


counts = st.one_of(st.integers(0, 60), st.integers(61, 10**6), st.integers(10**9, 4 * 10**9))


@settings(max_examples=300, deadline=None)
@given(
    n=counts,
    frac=st.sampled_from([0.0, 1.0]) | st.floats(0.0, 1.0),
    q0=st.floats(0.0, 1.0),
    t0=st.integers(1, 10**7),
    steps=st.lists(st.integers(-3000, 3000), min_size=1, max_size=12),
    settle=st.lists(st.booleans(), min_size=12, max_size=12),
    c=st.sampled_from([0.0, 3.0]),
)
def test_state_brackets_hold_the_index(n, frac, q0, t0, steps, settle, c):
    """Brackets of one state at thresholds that move up and down (as at the epoch ends'
    thresholds and the steps between) hold klucb_scalar's value; settling an overlap
    narrows the bracket and keeps the value inside, and the exact step is the value."""
    s = int(round(frac * n))
    sinfo, sval = _slot(s, n, q0)
    bracket = python_twin(ks._bracket_state)
    t = t0
    for i, dt in enumerate(steps):
        t = max(1, t + dt)
        th = klucb_threshold_scalar(float(t), c)
        lo, hi, exact = bracket(0, th, sinfo, sval)
        v = _holds(s, n, th, lo, hi, exact)
        if settle[i] and not exact:  # an overlap in states_top at step t
            sval[0, ks._LO], sval[0, ks._HI] = lo, hi
            sinfo[0, ks._EX] = 0
            python_twin(ks._settle)(0, t, th, sinfo, sval)
            lo2, hi2 = sval[0, ks._LO], sval[0, ks._HI]
            assert lo <= lo2 <= v <= hi2 <= hi
            if sinfo[0, ks._EX] == 1:
                assert lo2 == hi2 == v


@settings(max_examples=100, deadline=None)
@given(n=st.integers(1, 10**6), t0=st.integers(3, 10**6), span=st.integers(1, 10**5))
def test_zero_success_states_keep_their_closed_form_value(n, t0, span):
    """A state of S = 0 gets the exact closed form once, then brackets without exp over
    the steps that follow (kept r0), each holding klucb_scalar's value, and a new exact
    value once the threshold has moved too far for the kept one."""
    sinfo, sval = _slot(0, n, 0.0)
    bracket = python_twin(ks._bracket_state)
    lo, hi, exact = bracket(0, klucb_threshold_scalar(float(t0), 3.0), sinfo, sval)
    assert exact and sval[0, ks._K0] == ks._ZREF
    kept = 0
    for t in np.unique(np.linspace(t0, t0 + span, 25).astype(np.int64)):
        th = klucb_threshold_scalar(float(t), 3.0)
        lo, hi, exact = bracket(0, th, sinfo, sval)
        _holds(0, n, th, lo, hi, exact)
        kept += not exact
        assert sval[0, ks._K0] == ks._ZREF
    assert kept > 0  # at t0 itself, at least, the kept value serves
