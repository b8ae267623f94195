"""Theorem 1 (regret decomposition), exact with fractions."""

from fractions import Fraction as F

import numpy as np
import pytest
from _bounds_strategies import weights_and_list
from _twins import twins
from hypothesis import given, settings

from cascading_bandits.bounds import CascadeInstance
from cascading_bandits.bounds.decomposition import (
    event_probabilities,
    expected_reward,
    optimal_items,
    recommended_list,
    sorted_items,
    theorem1_alpha,
    theorem1_bounds,
    theorem1_from_ucbs,
    theorem1_permutation,
    theorem1_sum,
)
from cascading_bandits.bounds.lemma1 import expectation_by_enumeration

W = [F(1, 10), F(1, 2), F(3, 10), F(1, 5)]  # sorted: items 1 (1/2), 2 (3/10), 3 (1/5), 0 (1/10)


def test_hand_case_two_suboptimal_items():
    A = [0, 3]  # both suboptimal (K = 2, optimal items are 1 and 2)
    assert optimal_items(W, 2) == [1, 2]
    assert sorted_items(W) == [1, 2, 3, 0]
    assert theorem1_permutation(A, W, 2) == [1, 2]
    P = event_probabilities(A, W, 2)
    assert P.shape == (4, 2)
    # rows by rank: item 0 is rank 4 (row 3), item 3 rank 3 (row 2); columns: items 1, 2
    assert P[3, 0] == 1 and P[2, 1] == F(9, 10)
    assert sum(P.ravel()) == F(19, 10)
    lower, exact, upper = theorem1_bounds(A, W, 2)
    # E_t[R] = (9/10)(4/5) - (1/2)(7/10) = 37/100; S = (1/2 - 1/10) + (3/10 - 1/5)(9/10) = 49/100
    assert exact == F(37, 100) and upper == F(49, 100) and lower == F(1, 2) * F(49, 100)
    assert lower <= exact <= upper


def test_optimal_item_kept_at_its_position():
    A = [3, 1]  # item 1 is optimal and stays at position 2; item 2 fills position 1
    assert theorem1_permutation(A, W, 2) == [2, 1]
    lower, exact, upper = theorem1_bounds(A, W, 2)
    # only position 1 contributes: Delta = 3/10 - 1/5, examined with probability 1
    assert upper == F(1, 10)
    # exact: (4/5)(1/2) - (1/2)(7/10) = 1/20 = Delta * (1 - w(pi(2)))
    assert exact == F(1, 20) == F(1, 10) * (1 - F(1, 2))


def test_optimal_list_has_zero_regret_and_events():
    for A in ([1, 2], [2, 1]):
        lower, exact, upper = theorem1_bounds(A, W, 2)
        assert lower == exact == upper == 0


def test_float_path_matches_exact():
    w = [float(x) for x in W]
    lo, ex, up = theorem1_bounds([0, 3], w, 2)
    assert isinstance(ex, float) and isinstance(up, float)
    assert ex == pytest.approx(0.37, abs=1e-15) and up == pytest.approx(0.49, abs=1e-15)
    inst = CascadeInstance(w, 2)
    assert theorem1_bounds([0, 3], inst) == (lo, ex, up)


def test_expected_reward_and_recommended_list():
    assert expected_reward([1, 2], W) == 1 - F(1, 2) * F(7, 10)
    assert expected_reward([1, 2], [0.5, 0.5, 0.5]) == 0.75
    assert recommended_list([0.3, 0.9, 0.1, 0.5], 2) == [1, 3]
    assert recommended_list([0.3, 0.9, 0.1, 0.5], 2, order="increasing") == [3, 1]
    assert recommended_list([0.5, 0.5, 0.5], 2) == [0, 1]  # ties: lower index first


def test_alpha():
    assert theorem1_alpha(W, 3) == F(1, 4)
    assert theorem1_alpha(W, 1) == 1


@pytest.mark.parametrize(
    "call, msg",
    [
        (lambda: theorem1_bounds([0, 0], W, 2), "repeat"),
        (lambda: theorem1_bounds([0], W, 2), "exactly K = 2"),
        (lambda: theorem1_bounds([0, 9], W, 2), "item indices"),
        (lambda: theorem1_bounds([0, 1], W, 5), "K must satisfy"),
        (lambda: theorem1_bounds([0, 1], [0.1, 1.5, 0.2], 2), r"\[0, 1\]"),
        (lambda: theorem1_bounds([0, 1], [0.1, 0.5], None), "K is required"),
        (lambda: recommended_list([0.1, 0.2], 2, order="sideways"), "unknown order"),
        (lambda: theorem1_bounds([0, 1], CascadeInstance([0.1, 0.5, 0.2], 2), 1), "disagrees"),
    ],
)
def test_bad_input(call, msg):
    with pytest.raises(ValueError, match=msg):
        call()


def _exact_regret_by_enumeration(A, w, K):
    """f(A*, w) - f(A, w) by summing over all outcomes of the items involved (independent check)."""
    opt = sorted(range(len(w)), key=lambda e: -w[e])[:K]
    return expectation_by_enumeration(
        w, set(A) | set(opt), lambda val: max(val[e] for e in opt) - max(val[a] for a in A)
    )


# 50 examples in the default run, the 150 it had in the slow tier
@twins(
    50,
    150,
    dict(case=weights_and_list()),
    examples=[
        (([F(1, 10), F(1, 2), F(3, 10), F(1, 5)], 2, [0, 3]),),
        (([F(1), F(1), F(0)], 2, [2, 0]),),
        (([F(1, 2), F(1, 2), F(1, 2)], 2, [2, 1]),),
    ],
)
def test_theorem1_on_random_lists(case):
    w, K, A = case
    lower, exact, upper = theorem1_bounds(A, w, K)
    assert all(isinstance(x, F) for x in (lower, exact, upper))
    assert lower <= exact <= upper
    assert exact == _exact_regret_by_enumeration(A, w, K)
    pi = theorem1_permutation(A, w, K)
    opt = optimal_items(w, K)
    assert sorted(pi) == sorted(opt)
    for a, p in zip(A, pi, strict=True):
        assert w[a] <= w[p]
        if a in opt:
            assert p == a
    # proof of Theorem 1:
    # exact regret = sum_k Delta_{a_k, pi(k)} P(examined) prod_{j>k} (1 - w(pi(j)))
    formula, examined = F(0), F(1)
    for k, (a, p) in enumerate(zip(A, pi, strict=True)):
        tail = F(1)
        for q in pi[k + 1 :]:
            tail *= 1 - w[q]
        formula += (w[p] - w[a]) * examined * tail
        examined *= 1 - w[a]
    assert formula == exact
    # event probabilities: each position contributes its examination probability once
    P = event_probabilities(A, w, K)
    assert sum(P.ravel()) == sum(
        np.prod([1 - w[a] for a in A[:k]], dtype=object) if k else F(1) for k in range(K)
    )
    assert theorem1_sum(A, w, K) == upper


@settings(max_examples=60)
@given(weights_and_list())
def test_ucb_list_gives_permutation_with_larger_ucbs(case):
    w, K, A = case
    # any UCB vector whose top K are A: U = 2 on A, w elsewhere
    U = [2.0 if e in A else float(w[e]) for e in range(len(w))]
    A_t = recommended_list(U, K)
    assert sorted(A_t) == sorted(A)
    pi = theorem1_permutation(A_t, w, K)
    assert all(U[a] >= U[p] for a, p in zip(A_t, pi, strict=True))


def test_theorem1_from_ucbs():
    U = [0.9, 0.2, 0.1, 0.95]  # top 2: items 3, 0 (both suboptimal for W)
    res = theorem1_from_ucbs(U, W, 2)
    assert res["A"] == [3, 0] and res["pi"] == [1, 2]
    # by hand: A* = {1, 2}, f(A*) = 1 - (1/2)(7/10) = 13/20, f(A) = 1 - (4/5)(9/10) = 7/25,
    # so R = 37/100; S = (1/2 - 1/5) * 1 + (3/10 - 1/10)(1 - 1/5) = 23/50; alpha = 1/2
    assert (res["lower"], res["regret"], res["upper"]) == (F(23, 100), F(37, 100), F(23, 50))
    assert all(U[a] >= U[p] for a, p in zip(res["A"], res["pi"], strict=True))
    assert res["alpha"] == F(1, 2)
    with pytest.raises(ValueError, match="one UCB per item"):
        theorem1_from_ucbs([0.1, 0.2], W, 2)
