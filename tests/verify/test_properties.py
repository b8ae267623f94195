"""Hypothesis properties of the paper's inequalities, with the known hard cases pinned.

These drive the same checks as the registry, through the strategies of verify.strategies, so
that hypothesis can shrink a counterexample if a bound or a check is ever wrong.
"""

from fractions import Fraction

import mpmath
from _twins import twins
from hypothesis import strategies as st

from cascading_bandits.bounds.decomposition import (
    recommended_list,
    theorem1_bounds,
    theorem1_permutation,
)
from cascading_bandits.bounds.lemma1 import lemma1_expectation, lemma1_expectation_enumerated
from cascading_bandits.bounds.peeling import (
    lemma2_lhs,
    lemma2_rhs,
    ucb1_peeling_lhs,
    ucb1_peeling_rhs,
)
from cascading_bandits.verify import strategies as S
from cascading_bandits.verify.claims_appendix import hoeffding_tail_exact, peeling_lp_certificate
from cascading_bandits.verify.claims_theorem1 import regret_by_enumeration

H = S.HARD_LEMMA2


# Each check below: a third of its examples in the default run (the pinned hard cases
# always), the count it had in the slow tier.
@twins(20, 60, dict(inst=S.lemma2_instances()), examples=[(h,) for h in H[:7]])
def test_lemma2(inst):
    p, qs = inst
    with mpmath.workdps(50):
        P, Q = mpmath.mpf(p), [mpmath.mpf(q) for q in qs]
        assert lemma2_lhs(P, Q) <= lemma2_rhs(P, Q) * (1 + mpmath.mpf(10) ** -40)


@twins(25, 80, dict(g=S.gaps_fraction()), examples=[(S.HARD_GAPS[i],) for i in (0, 1, 3, 4)])
def test_ucb1_peeling_and_lp(g):
    assert ucb1_peeling_lhs(g) <= ucb1_peeling_rhs(g)
    # exact sum-of-squares form of the slack
    r = [g[-1] / d for d in g]
    sos = r[0] + sum((r[k] - r[k - 1]) ** 2 / r[k] for k in range(1, len(g)))
    assert g[-1] * (ucb1_peeling_rhs(g) - ucb1_peeling_lhs(g)) == sos
    p_ok, d_ok, pv, dv = peeling_lp_certificate(g)
    assert p_ok and d_ok and pv == dv == ucb1_peeling_lhs(g)


@twins(
    20,
    60,
    dict(inst=S.hoeffding_instances()),
    examples=[(S.HARD_HOEFFDING[i],) for i in (0, 1, 3, 5)],
)
def test_hoeffding_exact(inst):
    w, s, t = inst
    prob, margin = hoeffding_tail_exact(w, s, t)
    assert 0 <= prob <= 1
    assert prob <= Fraction(2, t**3)


def test_hoeffding_hand_values():
    # s = 1, w = 1/2, t = 2: c = sqrt(1.5 log 2) = 1.02 > 1/2, so the deviation never reaches it
    assert hoeffding_tail_exact(Fraction(1, 2), 1, 2)[0] == 0
    # t = 1: c = 0, the event is certain
    assert hoeffding_tail_exact(Fraction(1, 3), 5, 1)[0] == 1
    # s = 4, w = 1/2, t = 4: c^2 = 1.5 log 4 / 4 = 0.52, |k/4 - 1/2| >= 0.72 never;
    # t = 2 -> c = 0.51:
    # only k = 0 or 4 (deviation 1/2 < 0.51: none)
    assert hoeffding_tail_exact(Fraction(1, 2), 4, 2)[0] == 0


@st.composite
def theorem1_instances(draw):
    w, K = draw(S.cascades(L_max=6))
    U = draw(st.lists(st.integers(0, 3), min_size=len(w), max_size=len(w)))
    return w, K, [float(u) for u in U]


@twins(
    20,
    60,
    dict(inst=theorem1_instances()),
    examples=[
        (([Fraction(1), Fraction(1, 2), Fraction(1, 2)], 2, [0.0, 1.0, 1.0]),),  # ties, w(1) = 1
        (([Fraction(0)] * 3, 2, [1.0, 1.0, 1.0]),),  # all zero
    ],
)
def test_theorem1(inst):
    w, K, U = inst
    A = recommended_list(U, K)
    lower, exact, upper = theorem1_bounds(A, w, K)
    assert lower <= exact <= upper
    assert exact == regret_by_enumeration(A, w, K)
    pi = theorem1_permutation(A, w, K)
    assert all(U[A[k]] >= U[pi[k]] and w[A[k]] <= w[pi[k]] for k in range(K))


@st.composite
def lemma1_instances(draw):
    w, K = draw(S.cascades(L_max=6))
    A, B = draw(S.lists_premise(len(w), K))
    return A, B, w


@twins(
    20,
    60,
    dict(inst=lemma1_instances()),
    examples=[
        (([0, 1, 2], [0, 1, 2], [Fraction(1, 2)] * 3),),  # A = B
        (([0, 1], [2, 3], [Fraction(1), Fraction(0), Fraction(1, 3), Fraction(1)]),),
    ],
)
def test_lemma1(inst):
    A, B, w = inst
    lhs, rhs = lemma1_expectation(A, B, w)
    assert lhs == rhs == lemma1_expectation_enumerated(A, B, w)


def test_strategies_respect_premises():
    import numpy as np

    rng = np.random.default_rng(0)
    for _ in range(200):
        p, qs = S.draw_lemma2(rng)
        assert 0 < p < qs[-1] and qs == sorted(qs, reverse=True) and qs[0] <= 1
        g = S.draw_gaps_fraction(rng)
        assert g == sorted(g, reverse=True) and g[-1] > 0
        w, K = S.draw_cascade(rng)
        A, B = S.draw_lists_premise(rng, len(w), K)
        assert all(a != b for i, a in enumerate(A) for j, b in enumerate(B) if i != j)
        assert len(set(B)) == K
