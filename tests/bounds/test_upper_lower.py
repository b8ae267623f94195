"""Theorems 2, 3 and 4: hand values, mpmath agreement, orderings between the bounds."""

import math

import mpmath
import numpy as np
import pytest
from _bounds_strategies import instances
from _twins import twins
from hypothesis import example

from cascading_bandits.bounds import CascadeInstance, b_lb
from cascading_bandits.bounds.garivier_cappe import klucb_loglog_term, klucb_tail_constants
from cascading_bandits.bounds.lower import (
    blb_parameters,
    theorem4_blb_coefficient,
    theorem4_bound,
    theorem4_coefficient,
    theorem4_general_coefficient,
    theorem4_sharp_coefficient,
)
from cascading_bandits.bounds.upper import (
    theorem2_bound,
    theorem2_leading_coefficient,
    theorem2_prepeeling,
    theorem2_prepeeling_coefficient,
    theorem3_bound,
    theorem3_constant,
    theorem3_details,
    theorem3_leading_coefficient,
    theorem3_log_term,
    theorem3_optimal_eps,
    theorem3_prepeeling,
    theorem3_prepeeling_coefficient,
    theorem3_tail_constants,
)

PAPER = b_lb(16, 2, 0.2, 0.15)
SMALL = CascadeInstance((0.1, 0.5, 0.3), 2)  # sorted 0.5, 0.3 | 0.1


def _kl(p, q):
    return p * math.log(p / q) + (1 - p) * math.log((1 - p) / (1 - q))


# -- Theorem 2 ----------------------------------------------------------------


def test_theorem2_by_hand_three_items():
    # one suboptimal item (0.1), Delta_{e,K} = 0.3 - 0.1 = 0.2: 12/0.2 = 60
    assert theorem2_leading_coefficient(SMALL) == pytest.approx(60.0, rel=1e-14)
    n = 1000
    assert theorem2_bound(SMALL, n) == pytest.approx(60 * math.log(n) + math.pi**2, rel=1e-14)
    # pre-peeling: gaps (0.4, 0.2): 1/0.4 + 0.2 (1/0.2^2 - 1/0.4^2) = 6.25
    assert theorem2_prepeeling_coefficient(SMALL) == pytest.approx(6.25, rel=1e-14)
    assert theorem2_prepeeling(SMALL, n) == pytest.approx(
        37.5 * math.log(n) + math.pi**2, rel=1e-14
    )


def test_theorem2_paper_instance():
    assert theorem2_leading_coefficient(PAPER) == pytest.approx(14 * 12 / 0.15, rel=1e-13)
    # equal gaps: the bracket is 1/Delta per item
    assert theorem2_prepeeling_coefficient(PAPER) == pytest.approx(14 / 0.15, rel=1e-13)


def test_horizon_arrays_and_small_n():
    ns = np.array([1, 2, 3, 10, 100])
    vals = theorem2_bound(SMALL, ns)
    assert vals.shape == (5,) and vals[0] == pytest.approx(math.pi**2)
    assert np.all(np.diff(vals) > 0)
    # n = 1, 2: log log n is dropped (small-t rule), log 1 = 0
    assert theorem3_log_term(SMALL, 1, 0.5) == 0.0
    assert theorem3_log_term(SMALL, 2, 0.0) == pytest.approx(
        theorem3_leading_coefficient(SMALL) * math.log(2), rel=1e-14
    )


def test_plain_weights_accepted():
    assert theorem2_bound(([0.1, 0.5, 0.3], 2), 100) == theorem2_bound(SMALL, 100)
    assert theorem2_bound([0.1, 0.5, 0.3], 100, K=2) == theorem2_bound(SMALL, 100)


# -- Theorem 3 ----------------------------------------------------------------


def test_theorem3_leading_by_hand():
    d = 0.2
    expected = d * (1 + math.log(1 / d)) / _kl(0.1, 0.3)
    assert theorem3_leading_coefficient(SMALL) == pytest.approx(expected, rel=1e-13)
    # pre-peeling (Lemma 2's left side) with p = 0.1, p_1 = 0.5, p_2 = 0.3
    pre = 0.4 / _kl(0.1, 0.5) + 0.2 * (1 / _kl(0.1, 0.3) - 1 / _kl(0.1, 0.5))
    assert theorem3_prepeeling_coefficient(SMALL) == pytest.approx(pre, rel=1e-13)
    n, eps = 10**4, 0.25
    f = math.log(n) + 3 * math.log(math.log(n))
    assert theorem3_log_term(SMALL, n, eps) == pytest.approx(1.25 * expected * f, rel=1e-13)


def test_theorem3_constant_by_hand():
    n, eps = 10**5, 0.5
    C2, beta = theorem3_tail_constants(SMALL, eps)
    assert C2.shape == (1, 2)
    c_a, b_a = klucb_tail_constants(0.1, 0.5, eps)
    c_b, b_b = klucb_tail_constants(0.1, 0.3, eps)
    assert (C2[0, 0], beta[0, 0], C2[0, 1], beta[0, 1]) == (c_a, b_a, c_b, b_b)
    tails = [c_a * n**-b_a, c_b * n**-b_b]
    ll = math.log(math.log(n))
    paper = 2 * 3 * max(tails) + 7 * 2 * ll
    proof = 0.4 * tails[0] + 0.2 * tails[1] + 2 * klucb_loglog_term(n)
    assert theorem3_constant(SMALL, n, eps) == pytest.approx(paper, rel=1e-12)
    assert theorem3_constant(SMALL, n, eps, form="proof") == pytest.approx(proof, rel=1e-12)
    bound = theorem3_log_term(SMALL, n, eps) + paper
    assert theorem3_bound(SMALL, n, eps=eps) == pytest.approx(bound, rel=1e-12)
    pre = theorem3_prepeeling(SMALL, n, eps)
    assert pre <= bound
    d = theorem3_details(SMALL, n, eps=eps)
    assert (
        d["eps"] == eps and not d["eps_optimised"] and d["bound"] == pytest.approx(bound, rel=1e-12)
    )


def test_theorem3_optimal_eps_beats_a_fine_grid():
    n = 10**5
    for form in ("paper", "proof"):
        e = theorem3_optimal_eps(PAPER, n, form=form)
        best = theorem3_bound(PAPER, n, eps=e, form=form)
        grid = np.logspace(-3, 1.5, 400)
        vals = [theorem3_bound(PAPER, n, eps=x, form=form) for x in grid]
        assert best <= min(vals) * (1 + 1e-9)
        assert theorem3_bound(PAPER, n, form=form) == pytest.approx(best, rel=1e-12)
        # a local minimum: nearby eps is not better
        assert best <= theorem3_bound(PAPER, n, eps=e * 1.01, form=form)
        assert best <= theorem3_bound(PAPER, n, eps=e / 1.01, form=form)


def test_theorem3_forms_and_small_n():
    # the proof's form has the valid K F(n) in place of 7 K log log n;
    # it is below the paper's for n >= 48
    n = 10**4
    assert theorem3_constant(PAPER, n, 0.5, form="proof") < theorem3_constant(PAPER, n, 0.5)
    # n = 2: log log n < 0 is dropped, the paper's C has only the tail term
    C2, beta = theorem3_tail_constants(PAPER, 0.5)
    assert theorem3_constant(PAPER, 2, 0.5) == pytest.approx(
        2 * 16 * C2[0, 0] * 2 ** -beta[0, 0], rel=1e-12
    )
    assert np.all(np.isfinite(theorem3_bound(PAPER, [1, 2, 3])))


# -- Theorem 4 ----------------------------------------------------------------


def test_theorem4_by_hand():
    # B_LB(4, 2, 1/2, 1/4): 2 * 1/4 * 1/2 / kl(1/4, 1/2), kl = 3/4 log 3 - log 2
    inst = b_lb(4, 2, 0.5, 0.25)
    expected = 0.25 / (0.75 * math.log(3) - math.log(2))
    assert theorem4_coefficient(inst) == pytest.approx(expected, rel=1e-14)
    assert theorem4_blb_coefficient(4, 2, 0.5, 0.25) == pytest.approx(expected, rel=1e-14)
    assert theorem4_bound(inst, 100) == pytest.approx(expected * math.log(100), rel=1e-14)
    assert blb_parameters(inst) == (4, 2, 0.5, 0.25)
    assert blb_parameters(SMALL) is None


def test_theorem4_general_by_hand():
    inst = CascadeInstance((0.5, 0.4, 0.3, 0.1), 3)
    term = 0.2 / _kl(0.1, 0.3)
    assert theorem4_general_coefficient(inst) == pytest.approx(0.25 * term, rel=1e-13)
    assert theorem4_sharp_coefficient(inst) == pytest.approx(0.5 * 0.6 * term, rel=1e-13)
    assert theorem4_coefficient(inst) == theorem4_general_coefficient(inst)


@pytest.mark.parametrize(
    "L, K, p, delta",
    [
        (16, 2, 0.2, 0.15),
        (32, 8, 0.2, 0.075),
        (5, 1, 0.9, 0.5),
        (9, 4, 0.25, 0.01),
        (3, 2, 1.0, 0.5),
    ],
)
def test_theorem4_general_equals_blb(L, K, p, delta):
    inst = b_lb(L, K, p, delta)
    gen = theorem4_general_coefficient(inst, dps=50)
    blb = theorem4_coefficient(inst, dps=50)  # the B_LB formula (the instance is detected as B_LB)
    assert blb_parameters(inst) is not None
    with mpmath.workdps(50):
        assert abs(gen - blb) <= mpmath.mpf("1e-45") * (1 + abs(blb))
    assert theorem4_general_coefficient(inst) == pytest.approx(
        theorem4_coefficient(inst), rel=1e-14
    )
    # B_LB parameters as the user gave them (delta not recomputed from the weights)
    assert theorem4_blb_coefficient(L, K, p, delta) == pytest.approx(float(blb), rel=1e-12)


def test_bad_input():
    with pytest.raises(ValueError, match="unique optimal set"):
        theorem2_bound(CascadeInstance((0.5, 0.3, 0.3), 2), 100)
    with pytest.raises(ValueError, match="n must be an integer"):
        theorem2_bound(PAPER, 0)
    with pytest.raises(ValueError, match="n must be an integer"):
        theorem3_bound(PAPER, 10.5, eps=0.1)
    with pytest.raises(ValueError, match="eps must be > 0"):
        theorem3_bound(PAPER, 100, eps=0.0)
    with pytest.raises(ValueError, match="unknown form"):
        theorem3_bound(PAPER, 100, eps=0.1, form="loose")
    with pytest.raises(ValueError, match="delta must satisfy"):
        theorem4_blb_coefficient(4, 2, 0.2, 0.3)
    with pytest.raises(ValueError, match=r"n must be an integer in \[1, 1e300\] or an array"):
        theorem2_bound(PAPER, [10, 0])
    # the horizon rule (bounds._validate): integers in [1, 1e300], beyond float64 refused
    for f in (theorem2_bound, theorem3_bound, theorem4_bound):
        with pytest.raises(ValueError, match=r"n must be an integer in \[1, 1e300\]"):
            f(PAPER, 10**400)
        with pytest.raises(ValueError, match=r"\[1, 1e300\]"):
            f(PAPER, [10, 10**301])
        assert math.isfinite(f(PAPER, 10**300)) and math.isfinite(f(PAPER, 1e300))


# -- agreement with mpmath, orderings --------------------------------------------


# 20 examples in the default run, the 60 it had in the slow tier
@twins(
    20,
    60,
    dict(inst=instances()),
    examples=[
        (CascadeInstance((1.0, 0.5, 0.0), 1),),
        (CascadeInstance((0.2, 0.2, 0.05, 0.05), 2),),
    ],
)
@example(CascadeInstance((0.5, 0.5 - 1e-3, 1e-9), 1))
def test_coefficients_match_mpmath(inst):
    for f in (
        theorem2_leading_coefficient,
        theorem3_leading_coefficient,
        theorem4_general_coefficient,
        theorem4_sharp_coefficient,
    ):
        x, ref = f(inst), f(inst, dps=50)
        assert abs(x - ref) <= 2.3e-16 * abs(ref)  # one rounding (module docstrings)


# 20 examples in the default run, the 60 it had in the slow tier
@twins(
    20,
    60,
    dict(inst=instances()),
    examples=[
        (CascadeInstance((1.0, 0.5, 0.0), 1),),
        (CascadeInstance((0.9, 0.3, 0.2, 0.0), 2),),
    ],
)
def test_bounds_are_ordered(inst):
    n = 10**5
    t4 = theorem4_general_coefficient(inst)
    assert t4 <= theorem4_sharp_coefficient(inst) * (1 + 1e-12)
    assert theorem4_sharp_coefficient(inst) <= theorem3_leading_coefficient(inst) * (1 + 1e-12)
    assert theorem3_prepeeling_coefficient(inst) <= theorem3_leading_coefficient(inst) * (1 + 1e-12)
    assert t4 <= theorem2_leading_coefficient(inst)
    assert theorem2_prepeeling(inst, n) <= theorem2_bound(inst, n) * (1 + 1e-12)
    eps = 0.3
    assert theorem3_prepeeling(inst, n, eps) <= theorem3_bound(inst, n, eps=eps) * (1 + 1e-12)
    assert theorem3_constant(inst, n, eps) >= 0


# 15 examples in the default run, the 40 it had in the slow tier
@twins(
    15,
    40,
    dict(inst=instances()),
    examples=[
        (CascadeInstance((0.5, 0.5 - 1e-9, 0.5 - 2e-9), 1),),
        (CascadeInstance((0.3, 0.2 + 1e-7, 0.2, 0.1), 2),),
    ],
)
def test_prepeeling_coefficients_rounded_once(inst):
    from fractions import Fraction

    from cascading_bandits.bounds.peeling import lemma2_lhs, ucb1_peeling_lhs

    s = [Fraction(float(x)) for x in inst.sorted_weights]
    exact = sum(ucb1_peeling_lhs([o - we for o in s[: inst.K]]) for we in s[inst.K :])
    assert theorem2_prepeeling_coefficient(inst) == float(exact)
    with mpmath.workdps(60):
        opt = [mpmath.mpf(float(x)) for x in inst.optimal_weights]
        ref = mpmath.fsum(lemma2_lhs(mpmath.mpf(float(w)), opt) for w in inst.suboptimal_weights)
        got = theorem3_prepeeling_coefficient(inst)
        assert abs(got - ref) <= 2.3e-16 * abs(ref)
