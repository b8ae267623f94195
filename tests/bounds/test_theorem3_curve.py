"""Theorem 3 on arrays of horizons (fast float path) against the mpmath reference path."""

import math
import sys

import mpmath
import numpy as np
import pytest
from _bounds_strategies import instances
from _twins import twins
from hypothesis import strategies as st

from cascading_bandits.bounds import (
    CascadeInstance,
    b_lb,
    theorem2_bound,
    theorem2_curve,
    theorem3_bound,
    theorem3_curve,
    theorem4_bound,
    theorem4_curve,
)
from cascading_bandits.bounds.garivier_cappe import (
    _loglog_terms,
    klucb_loglog_term,
    klucb_tail_constants,
    klucb_tail_constants_array,
    klucb_tail_constants_mp,
)
from cascading_bandits.bounds.lower import theorem4_sharp_coefficient
from cascading_bandits.bounds.upper import (
    _theorem3_bound_reference,
    theorem3_optimal_eps,
)

# the B_LB rows of Table 1 of the paper (p = 0.2)
TABLE1 = [
    (16, 2, 0.15),
    (16, 4, 0.15),
    (16, 8, 0.15),
    (32, 2, 0.15),
    (32, 4, 0.15),
    (32, 8, 0.15),
    (16, 2, 0.075),
    (16, 4, 0.075),
    (16, 8, 0.075),
]


def _distinct(L, K, seed):
    w = np.random.default_rng(seed).uniform(0.01, 0.6, L)
    return CascadeInstance(tuple(w), K)


# -- C2, beta in float64 -------------------------------------------------------


@st.composite
def pairs(draw):
    kind = draw(st.sampled_from(["uniform", "close", "tiny_mu", "near_one", "small"]))
    if kind == "uniform":
        a, b = sorted(draw(st.lists(st.floats(0, 1), min_size=2, max_size=2)))
    elif kind == "close":
        a = draw(st.floats(1e-3, 0.99))
        b = a + (1 - a) * 10 ** draw(st.floats(-8, -1))
    elif kind == "tiny_mu":
        a = 10 ** draw(st.floats(-300, -1))
        b = draw(st.floats(0.2, 1.0))
    elif kind == "near_one":
        b = 1 - 10 ** draw(st.floats(-15, -1))
        a = b * draw(st.floats(0, 1))
    else:
        a = draw(st.floats(0, 0.01))
        b = a + 10 ** draw(st.floats(-6, -2))
    eps = 10 ** draw(st.floats(-6, 3))
    return a, b, eps


# 40 examples (each a 50-digit mpmath root) in the default run; the slow tier draws 150
# through the same check.
@twins(40, 150, dict(pair=pairs()), examples=[((5e-324, 2.2250738585e-313, 1.0),)])
def test_float_constants_match_mpmath_to_1e12(pair):
    # examples: (5e-324, 2.2250738585e-313, 1.0) was found by hypothesis: C2 = 1.1e312
    mu, ms, eps = pair
    if not mu < ms:
        return
    ref = klucb_tail_constants_mp(mu, ms, eps, dps=50)
    if ref["C2"] > 0.999 * sys.float_info.max:  # e.g. mu, ms subnormal: C2 ~ 1/kl(r, mu)
        with pytest.raises(ValueError, match="exceed the float64 range"):
            klucb_tail_constants_array(mu, ms, eps)
        return
    C2, beta = klucb_tail_constants_array(mu, ms, eps)
    for got, want in ((C2, ref["C2"]), (beta, ref["beta"])):
        if want in (0, mpmath.inf):
            assert float(got) == float(want)
        else:
            assert abs(mpmath.mpf(float(got)) / want - 1) < 1e-12, (mu, ms, eps, got, want)


def test_float_constants_edges_and_broadcast():
    # mu = 0: (1, inf); mu* = 1: beta = 0 and C2 from r = (mu + eps)/(1 + eps)
    C2, beta = klucb_tail_constants_array([0.0, 0.3, 0.1], [0.5, 1.0, 0.4], 0.5)
    assert (C2[0], beta[0]) == (1.0, math.inf)
    assert beta[1] == 0.0
    assert C2[1] == pytest.approx(klucb_tail_constants(0.3, 1.0, 0.5)[0], rel=1e-13)
    C2, beta = klucb_tail_constants_array(0.1, 0.4, np.array([[0.1], [1.0], [10.0]]))
    assert C2.shape == (3, 1) and np.all(np.diff(C2[:, 0]) < 0) and np.all(np.diff(beta[:, 0]) > 0)
    with pytest.raises(ValueError, match="mu_star"):
        klucb_tail_constants_array(0.5, 0.4, 0.1)
    with pytest.raises(ValueError, match="eps"):
        klucb_tail_constants_array(0.1, 0.4, -1.0)
    with pytest.raises(ValueError, match="broadcast"):
        klucb_tail_constants_array([0.1, 0.2], [0.3, 0.4, 0.5], 1.0)


def test_loglog_terms_equal_the_scalar_sum_bit_for_bit():
    ns = np.array([1, 2, 3, 47, 48, 1000, 2**20, 2**20 + 1, 12345, 1, 10**8])
    got = _loglog_terms(ns, 3.0)
    assert np.array_equal(got, [klucb_loglog_term(int(n)) for n in ns])


def test_theorem10_in_blocks_equals_one_pass_bit_for_bit():
    """_theorem10_large and _chunk_sum evaluate Theorem 10's terms in cache-sized blocks: the
    same bits as _theorem10_general over the whole array at once, and the same chunk sums."""
    from cascading_bandits.bounds.garivier_cappe import (
        _T10_BLOCK,
        _chunk_sum,
        _theorem10_general,
        _theorem10_large,
    )

    t = np.arange(3, 3 + 3 * _T10_BLOCK + 1001, dtype=np.float64)  # not whole blocks
    for c in (0.0, 1.0, 3.0, 7.5):
        assert np.array_equal(_theorem10_large(t, c), _theorem10_general(t, c))
    for start, stop in ((1, 2**20), (5 * 2**20 + 1, 6 * 2**20), (9 * 2**20 + 1, 10**7)):
        one = _theorem10_general(np.arange(start, stop + 1, dtype=np.float64), 3.0)
        assert _chunk_sum.__wrapped__(start, stop, 3.0) == float(np.sum(one))


# -- Theorem 3 curve = the mpmath path -----------------------------------------


def _check_against_reference(inst, ns, form="paper"):
    """New == mpmath path to 1e-9 relative, or lower and genuine.

    Where the minimum over eps is a kink (the worst pair of the paper form changes), the
    mpmath path's Brent search (xatol 1e-10 on log eps) stops up to a few 1e-9 above the
    minimum; the golden-section search may then find a lower value, which must be the
    bound at the eps it returns, evaluated with the mpmath constants.
    """
    got = theorem3_curve(inst, ns, form=form)
    for n, g in zip(ns, got, strict=True):
        want = _theorem3_bound_reference(inst, n, form)
        assert g <= want * (1 + 1e-9), (inst, n, form, g, want)
        if g < want * (1 - 1e-9):
            e = theorem3_optimal_eps(inst, n, form=form)
            assert g == pytest.approx(theorem3_bound(inst, n, eps=e, form=form), rel=1e-12)
            assert g >= want * (1 - 1e-7), (inst, n, form, g, want)


@pytest.mark.parametrize("L, K, delta", TABLE1)
def test_table1_rows_equal_the_mpmath_path(L, K, delta):
    _check_against_reference(b_lb(L, K, 0.2, delta), [1, 30, 10**5, 10**7])


def test_distinct_weights_equal_the_mpmath_path():
    _check_against_reference(_distinct(8, 3, 0), [100, 10**5])
    _check_against_reference(_distinct(5, 2, 1), [10**4], form="proof")


@pytest.mark.slow
def test_distinct_weights_L32_K8_equal_the_mpmath_path():
    # about 12 s per horizon on the mpmath path
    _check_against_reference(_distinct(32, 8, 7), [10**3, 10**5])


# 2 random instances in the default run (each about 0.3 CPU s on the mpmath path; the Table 1
# rows, distinct and edge weights above and below take the same path), 12 in the slow tier
# (the default had 6)
@twins(
    2,
    12,
    dict(
        inst=instances(max_L=5), form=st.sampled_from(["paper", "proof"]), n=st.integers(1, 10**6)
    ),
)
def test_random_instances_equal_the_mpmath_path(inst, form, n):
    _check_against_reference(inst, [n], form=form)


def test_edge_weights_equal_the_mpmath_path():
    # mu = 0 pairs (beta = inf) and mu* = 1 pairs (beta = 0)
    _check_against_reference(CascadeInstance((1.0, 0.4, 0.0, 0.2), 2), [1, 2, 10**4])
    _check_against_reference(CascadeInstance((1.0, 0.4, 0.0, 0.2), 2), [5, 10**4], form="proof")


def test_fixed_eps_equals_the_scalar_bound():
    inst = _distinct(10, 3, 2)
    ns = np.array([1, 7, 100, 10**6])
    for form in ("paper", "proof"):
        for eps in (1e-4, 0.3, 50.0):
            got = theorem3_curve(inst, ns, eps=eps, form=form)
            want = theorem3_bound(inst, ns, eps=eps, form=form)
            np.testing.assert_allclose(got, want, rtol=1e-11, atol=0)


def test_curve_shapes_and_theorem3_bound_delegation():
    inst = b_lb(16, 2, 0.2, 0.15)
    ns = np.array([[10, 100], [1000, 10**5]])
    got = theorem3_curve(inst, ns)
    assert got.shape == (2, 2)
    assert np.array_equal(theorem3_bound(inst, ns), got)
    assert theorem3_bound(inst, 1000) == got[1, 0]
    assert theorem3_curve(inst, []).shape == (0,)
    # the optimised bound is a minimum over eps: nearby eps (mpmath constants) are not lower
    for n in (100, 10**5):
        e = theorem3_optimal_eps(inst, n)
        best = theorem3_bound(inst, n, eps=e)
        assert best == pytest.approx(theorem3_bound(inst, n), rel=1e-11)
        assert best <= theorem3_bound(inst, n, eps=e * 1.001) * (1 + 1e-13)
        assert best <= theorem3_bound(inst, n, eps=e / 1.001) * (1 + 1e-13)


def test_curve_rejects_bad_input():
    inst = b_lb(16, 2, 0.2, 0.15)
    with pytest.raises(ValueError, match="horizons must"):
        theorem3_curve(inst, [10, 0])
    with pytest.raises(ValueError, match="eps"):
        theorem3_curve(inst, [10], eps=-1.0)
    with pytest.raises(ValueError, match="form"):
        theorem3_curve(inst, [10], form="loose")
    with pytest.raises(ValueError, match="c must be 3"):
        theorem3_curve(inst, [10], c=2.0)
    # c enters the log term and F(n) of the proof form
    lo = theorem3_curve(inst, [10**5], eps=0.5, form="proof", c=2.0)
    hi = theorem3_curve(inst, [10**5], eps=0.5, form="proof", c=3.0)
    assert lo[0] != hi[0]


# -- Theorems 2 and 4 curves -------------------------------------------------------


def test_theorem2_and_theorem4_curves():
    inst = _distinct(12, 4, 3)
    ns = np.array([1, 10, 10**5])
    assert np.array_equal(theorem2_curve(inst, ns), theorem2_bound(inst, ns))
    assert np.array_equal(theorem4_curve(inst, ns), theorem4_bound(inst, ns))
    sharp = theorem4_curve(inst, ns, kind="sharp")
    np.testing.assert_allclose(sharp, theorem4_sharp_coefficient(inst) * np.log(ns), rtol=1e-15)
    assert np.all(sharp >= theorem4_curve(inst, ns))
    with pytest.raises(ValueError, match="kind"):
        theorem4_curve(inst, ns, kind="loose")


# -- regret-free instances: K = L or every gap 0 ------------------------------------


@pytest.mark.parametrize("weights, K", [((0.3, 0.2), 2), ((0.4, 0.4, 0.4), 1), ((0.0,), 1)])
def test_regret_free_instances_have_zero_bounds(weights, K):
    from cascading_bandits.bounds import lower, upper

    inst = CascadeInstance(weights, K)
    assert inst.regret_free
    ns = np.array([1, 10, 10**5])
    for f in (theorem2_curve, theorem3_curve, theorem4_curve):
        assert np.array_equal(f(inst, ns), np.zeros(3))
    assert theorem3_curve(inst, ns, eps=0.5, form="proof").tolist() == [0.0] * 3
    assert theorem2_bound(inst, 100) == 0.0 and upper.theorem2_prepeeling(inst, 100) == 0.0
    assert theorem3_bound(inst, 100) == 0.0 and theorem3_bound(inst, 100, eps=0.1) == 0.0
    assert upper.theorem3_constant(inst, 100, 0.1) == 0.0
    assert upper.theorem3_prepeeling(inst, 100, 0.1) == 0.0
    assert upper.theorem3_log_term(inst, 100, 0.1) == 0.0
    for coef in (
        upper.theorem2_leading_coefficient,
        upper.theorem2_prepeeling_coefficient,
        upper.theorem3_leading_coefficient,
        upper.theorem3_prepeeling_coefficient,
        lower.theorem4_coefficient,
        lower.theorem4_general_coefficient,
        lower.theorem4_sharp_coefficient,
    ):
        assert coef(inst) == 0.0
    d = upper.theorem3_details(inst, 1000)
    assert d["regret_free"] and d["bound"] == 0.0 and d["C2"] is None and d["beta"] is None
    assert d["eps"] == theorem3_optimal_eps(inst, 1000) == 1e-6
    if inst.K == inst.L:
        C2, beta = upper.theorem3_tail_constants(inst, 0.5)
        assert C2.shape == beta.shape == (0, inst.K)
    else:
        with pytest.raises(ValueError, match="undefined"):
            upper.theorem3_tail_constants(inst, 0.5)


def test_non_unique_optimum_still_refused():
    # w(K) = w(K+1) but not every gap 0: some lists are suboptimal, the theorems do not apply
    with pytest.raises(ValueError, match="unique optimal set"):
        theorem3_curve(CascadeInstance((0.5, 0.2, 0.2), 2), [10])
