"""Peeling lemmas: hand values, exact/mp/interval arithmetics, the inequalities on random inputs."""

import math
from fractions import Fraction as F

import mpmath
import pytest
from _bounds_strategies import sorted_gaps
from _twins import twins
from hypothesis import strategies as st

from cascading_bandits.bounds.peeling import (
    lemma2_lhs,
    lemma2_rewritten,
    lemma2_rhs,
    ucb1_peeling_lhs,
    ucb1_peeling_rhs,
    ucb1_peeling_solution,
)


def _kl(p, q):
    return p * math.log(p / q) + (1 - p) * math.log((1 - p) / (1 - q))


def test_ucb1_hand_values():
    # [1/0.4 + 0.2 (1/0.04 - 1/0.16)] = 2.5 + 3.75
    assert ucb1_peeling_lhs([F(2, 5), F(1, 5)]) == F(25, 4)
    assert ucb1_peeling_rhs([F(2, 5), F(1, 5)]) == 10
    assert ucb1_peeling_lhs([0.4, 0.2]) == pytest.approx(6.25, rel=1e-15)
    assert ucb1_peeling_solution([F(1, 2), F(1, 4)]) == [4, 12]
    # equal gaps: the bracket is 1/Delta, half of the lemma's 2/Delta
    assert ucb1_peeling_lhs([F(1, 10)] * 5) == 10


def test_ucb1_arithmetics_agree():
    g = [F(9, 10), F(1, 2), F(1, 7), F(1, 100)]
    exact = ucb1_peeling_lhs(g)
    assert isinstance(exact, F)
    with mpmath.workdps(50):
        mp = ucb1_peeling_lhs([mpmath.mpf(x.numerator) / x.denominator for x in g])
        assert abs(mp - mpmath.mpf(exact.numerator) / exact.denominator) < mpmath.mpf("1e-45")
    box = ucb1_peeling_lhs([mpmath.iv.mpf(x.numerator) / x.denominator for x in g])
    assert box.a <= mpmath.mpf(exact.numerator) / exact.denominator <= box.b
    assert ucb1_peeling_lhs([float(x) for x in g]) == pytest.approx(float(exact), rel=1e-14)


def test_lemma2_hand_value_K1():
    # K = 1: both sides are Delta/kl times 1 and (1 + log(1/Delta))
    p, q = 0.1, 0.3
    assert lemma2_lhs(p, [q]) == pytest.approx(0.2 / _kl(p, q), rel=1e-14)
    assert lemma2_rhs(p, [q]) == pytest.approx(0.2 * (1 + math.log(5)) / _kl(p, q), rel=1e-14)


def test_lemma2_hand_value_K2():
    p, p1, p2 = 0.05, 0.4, 0.2
    lhs = 0.35 / _kl(p, p1) + 0.15 * (1 / _kl(p, p2) - 1 / _kl(p, p1))
    assert lemma2_lhs(p, [p1, p2]) == pytest.approx(lhs, rel=1e-14)
    assert lemma2_rewritten(p, [p1, p2]) == pytest.approx(lhs, rel=1e-14)


def test_lemma2_mp_and_interval():
    with mpmath.workdps(60):
        p, ps = mpmath.mpf("0.05"), [mpmath.mpf("0.4"), mpmath.mpf("0.3"), mpmath.mpf("0.2")]
        lhs = lemma2_lhs(p, ps)
        ref = sum(
            (ps[k] - p)
            * (1 / mpmath.mpf(_kl_mp(p, ps[k])) - (1 / _kl_mp(p, ps[k - 1]) if k else 0))
            for k in range(3)
        )
        assert abs(lhs - ref) < mpmath.mpf("1e-55")
        assert lemma2_rhs(p, ps) > lhs
    # Fractions are evaluated in mpmath
    assert isinstance(lemma2_lhs(F(1, 20), [F(2, 5)]), mpmath.mpf)
    box_l = lemma2_lhs(mpmath.iv.mpf([0.05, 0.0501]), [0.4, 0.3, 0.2])
    for pt in (0.05, 0.05005, 0.0501):
        v = lemma2_lhs(pt, [0.4, 0.3, 0.2])
        assert box_l.a <= v <= box_l.b


def _kl_mp(p, q):
    return p * mpmath.log(p / q) + (1 - p) * mpmath.log((1 - p) / (1 - q))


def test_lemma2_kl_infinite_term():
    # p_1 = 1: kl(p, 1) = inf, the term Delta_1/kl vanishes (1/inf = 0)
    v = lemma2_lhs(0.05, [1.0, 0.3])
    assert v == pytest.approx(0.25 / _kl(0.05, 0.3), rel=1e-14)


@pytest.mark.parametrize(
    "call, msg",
    [
        (lambda: ucb1_peeling_lhs([0.1, 0.2]), "sorted decreasingly"),
        (lambda: ucb1_peeling_lhs([0.2, 0.0]), "> 0"),
        (lambda: ucb1_peeling_rhs([]), "at least one"),
        (lambda: ucb1_peeling_lhs([0.2, float("nan")]), "NaN|finite"),
        (lambda: lemma2_lhs(0.3, [0.4, 0.3]), "p_K > p"),
        (lambda: lemma2_lhs(0.1, [0.2, 0.4]), "sorted decreasingly"),
        (lambda: lemma2_rhs(0.1, [1.4]), r"\[0, 1\]"),
        (lambda: lemma2_lhs(0.1, "0.4"), "string"),
    ],
)
def test_bad_input(call, msg):
    with pytest.raises(ValueError, match=msg):
        call()


# default run 40 examples (the same checks), the slow tier 200 (the default had 200: 5 s)
@twins(40, 200, dict(g=sorted_gaps(exact=True)), examples=[([F(1), F(1, 1000)],)])
def test_ucb1_peeling_lemma_exact(g):
    lhs, rhs = ucb1_peeling_lhs(g), ucb1_peeling_rhs(g)
    assert lhs <= rhs
    # the bracket is sum Delta_k m*_k of the LP solution
    assert lhs == sum(d * m for d, m in zip(g, ucb1_peeling_solution(g), strict=True))
    assert all(m >= 0 for m in ucb1_peeling_solution(g))


@st.composite
def lemma2_args(draw):
    K = draw(st.integers(1, 6))
    p = draw(st.floats(0.0, 0.98))
    ps = draw(st.lists(st.floats(p + 1e-3, 1.0), min_size=K, max_size=K))
    ps = [min(x, 1.0) for x in sorted(ps, reverse=True)]
    return p, ps


# default run 50 examples (the same checks), the slow tier 200 (the default had 200: 2 s)
@twins(
    50,
    200,
    dict(args=lemma2_args()),
    examples=[((0.0, [1.0, 0.5]),), ((0.5, [0.501, 0.501]),), ((0.9, [1.0, 0.95, 0.91]),)],
)
def test_lemma2_holds_and_rewriting_is_exact(args):
    p, ps = args
    lhs, rhs = lemma2_lhs(p, ps), lemma2_rhs(p, ps)
    assert lhs <= rhs * (1 + 1e-12)
    assert lemma2_rewritten(p, ps) == pytest.approx(lhs, rel=1e-12, abs=1e-300)
    with mpmath.workdps(40):
        ref = lemma2_lhs(mpmath.mpf(p), [mpmath.mpf(x) for x in ps])
        assert abs(lhs - ref) <= 1e-12 * abs(ref) + 1e-300
