"""Lemma 1: symbolic proof for K = 1..6, the induction chain, and the exact expectation form."""

from fractions import Fraction as F

import pytest
import sympy
from _bounds_strategies import fraction_weights
from _twins import twins
from hypothesis import strategies as st

from cascading_bandits.bounds.lemma1 import (
    lemma1_expectation,
    lemma1_expectation_enumerated,
    lemma1_identity,
    lemma1_induction_chain,
    lemma1_symbols,
    lemma1_terms,
    premise_holds,
    prove_lemma1,
    prove_lemma1_induction_step,
)


@pytest.mark.parametrize("K", range(1, 7))
def test_identity_and_induction_step_proved(K):
    assert prove_lemma1(K)
    assert prove_lemma1_induction_step(K)
    assert sympy.expand(lemma1_identity(K)) == 0


def test_identity_hand_case_K2():
    x, y = lemma1_symbols(2)
    # x1 x2 - y1 y2 = (x1 - y1) y2 + x1 (x2 - y2)
    expected = x[0] * x[1] - y[0] * y[1] - ((x[0] - y[0]) * y[1] + x[0] * (x[1] - y[1]))
    assert sympy.expand(lemma1_identity(2) - expected) == 0


def test_identity_expression_is_not_trivially_zero():
    # the unexpanded expression carries both sides; a wrong sign would not expand to 0
    e = lemma1_identity(3)
    assert e != 0
    x, y = lemma1_symbols(3)
    assert sympy.expand(e + 2 * (x[0] - y[0]) * y[1] * y[2]) != 0


def test_induction_chain_detects_a_broken_step():
    chain = lemma1_induction_chain(4)
    names = [c[0] for c in chain]
    assert names == ["E0=E1", "E1=E2", "hypothesis", "E2=E3", "E3=E4"]
    _, left, right = chain[3]
    x, y = lemma1_symbols(4)
    assert sympy.expand(left - right) == 0
    assert sympy.expand(left - right * (1 + x[0] - x[0] * y[0])) != 0


def test_expectation_hand_case():
    w = [F(1, 2), F(1, 3), F(1, 5), F(1, 7)]
    lhs, rhs = lemma1_expectation([0, 1], [2, 3], w)
    # 1/2 * 1/3 - 1/5 * 1/7 = 1/6 - 1/35 = 29/210
    assert lhs == rhs == F(29, 210)
    # right side by hand: (1/2 - 1/5) * 1/7 + 1/2 * (1/3 - 1/7)
    assert rhs == F(3, 10) * F(1, 7) + F(1, 2) * (F(1, 3) - F(1, 7))


def test_premise_enforced_and_termwise_factorisation_fails_without_it():
    w = [F(1, 2), F(1, 3), F(1, 5), F(1, 7)]
    with pytest.raises(ValueError, match="a_i = b_j only if i = j"):
        lemma1_expectation([0, 1], [2, 0], w)
    lhs, rhs = lemma1_expectation([0, 1], [2, 0], w, check_premise=False)
    # the statement survives (its right side is the identity at the means) ...
    assert lhs == rhs == F(1, 15)
    # ... but the proof's term-by-term factorisation does not: E[(w0 - w2) w0] = 1/2 - 1/10
    terms = lemma1_terms([0, 1], [2, 0], w)
    assert terms[0] == (F(2, 5), F(3, 20))
    assert any(a != b for a, b in terms)


def test_floats_are_converted_exactly():
    lhs, rhs = lemma1_expectation([0], [1], [0.1, 0.3])
    assert lhs == F(0.1) - F(0.3) and rhs == lhs


@pytest.mark.parametrize(
    "A, B, w, msg",
    [
        ([0, 0], [1, 2], [0.1, 0.2, 0.3], "repeated"),
        ([0, 5], [1, 2], [0.1, 0.2, 0.3], "item indices"),
        ([0], [1, 2], [0.1, 0.2, 0.3], "same length"),
        ([0], [1], [0.1, 1.2], r"\[0, 1\]"),
        ([0], [1], [0.1, float("nan")], "finite"),
        ([0.5], [1], [0.1, 0.2], "integer"),
    ],
)
def test_bad_input(A, B, w, msg):
    with pytest.raises(ValueError, match=msg):
        lemma1_expectation(A, B, w)


@st.composite
def two_lists(draw, premise=True):
    w = draw(fraction_weights(min_L=2, max_L=8))
    L = len(w)
    K = draw(st.integers(1, L // 2 if premise else L))
    A = list(draw(st.permutations(range(L)))[:K])
    if premise:
        # B: each b_j is a_j or an item outside A, distinct
        others = [e for e in range(L) if e not in A]
        others = list(draw(st.permutations(others)))
        B = [A[j] if draw(st.booleans()) else others.pop() for j in range(K)]
    else:
        B = list(draw(st.permutations(range(L)))[:K])
    return A, B, w


# 50 examples in the default run, the 150 it had in the slow tier (each exact rational
# enumeration is about 4 ms)
@twins(
    50,
    150,
    dict(case=two_lists()),
    examples=[(([0, 1], [2, 3], [F(1, 2), F(1, 3), F(1, 5), F(1, 7)]),)],
)
def test_lemma1_holds_under_premise_and_matches_enumeration(case):
    A, B, w = case
    assert premise_holds(A, B)
    lhs, rhs = lemma1_expectation(A, B, w)
    assert lhs == rhs
    assert lhs == lemma1_expectation_enumerated(A, B, w)
    assert all(a == b for a, b in lemma1_terms(A, B, w))


@twins(35, 100, dict(case=two_lists(premise=False)))  # default 35, the 100 it had slow
def test_left_side_is_the_exact_expectation_for_any_lists(case):
    A, B, w = case
    lhs, _ = lemma1_expectation(A, B, w, check_premise=False)
    assert lhs == lemma1_expectation_enumerated(A, B, w)
    # the sum of the exact term expectations is the left side (the identity, in expectation)
    assert sum(t[0] for t in lemma1_terms(A, B, w)) == lhs
