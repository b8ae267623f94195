"""Eqs. (7)-(9) on B_LB(L, K, 1/K, Delta), and where the KL-UCB bound drops below UCB1's."""

import math

import mpmath
import numpy as np
import pytest

from cascading_bandits.bounds import b_lb
from cascading_bandits.bounds.discussion import (
    discussion_orders,
    eq7_lower_order,
    eq8_ucb1_orders,
    eq9_klucb_order,
    klucb_below_ucb1_delta,
    leading_ratio_klucb_ucb1,
)
from cascading_bandits.bounds.lower import theorem4_coefficient
from cascading_bandits.bounds.upper import (
    theorem2_leading_coefficient,
    theorem3_leading_coefficient,
)


def _kl(p, q):
    return p * math.log(p / q) + (1 - p) * math.log((1 - p) / (1 - q))


def test_hand_values_K2():
    # p = 1/2, Delta = 1/4: kl(1/4, 1/2) = 3/4 log 3 - log 2
    k = 0.75 * math.log(3) - math.log(2)
    assert k == pytest.approx(_kl(0.25, 0.5), rel=1e-14)
    assert eq7_lower_order(6, 2, 0.25) == pytest.approx(4 * 0.25 / k, rel=1e-14)
    assert eq9_klucb_order(6, 2, 0.25) == pytest.approx(4 * 0.25 * (1 + math.log(4)) / k, rel=1e-14)
    forms = eq8_ucb1_orders(6, 2, 0.25)
    assert forms[0] == pytest.approx(16.0) and forms[1] == pytest.approx(16.0)
    assert forms[2] == pytest.approx(4 * 0.25 / (0.25 * k), rel=1e-14)
    assert forms[3] == pytest.approx(2 * 4 * 0.25 / k, rel=1e-14)
    d = discussion_orders(6, 2, 0.25)
    assert d["eq7"] == eq7_lower_order(6, 2, 0.25) and d["eq8"] == forms


@pytest.mark.parametrize("K", [2, 3, 4, 8])
@pytest.mark.parametrize("delta_frac", [1e-6, 1e-3, 0.1, 0.5, 0.99])
def test_chain_of_eq8_and_relation_to_theorems(K, delta_frac):
    L = 3 * K
    delta = delta_frac / K
    f = eq8_ucb1_orders(L, K, delta)
    # form 2 <= form 3 because kl(p - Delta, p) <= Delta^2 / (p (1 - p));
    # form 3 <= 2 form 4 for p = 1/K
    assert f[1] <= f[2] * (1 + 1e-12)
    assert f[2] <= 2 * f[3] * (1 + 1e-12)
    # eq. (7) is Theorem 4 without (1 - 1/K)^(K-1) >= 1/e; eq. (8) form 1 is Theorem 2 / 12
    inst = b_lb(L, K, 1.0 / K, delta)
    alpha = (1 - 1 / K) ** (K - 1)
    assert alpha >= 1 / math.e
    assert theorem4_coefficient(inst) == pytest.approx(
        alpha * eq7_lower_order(L, K, delta), rel=1e-9
    )
    assert theorem2_leading_coefficient(inst) == pytest.approx(12 * f[0], rel=1e-9)
    assert theorem3_leading_coefficient(inst) == pytest.approx(
        eq9_klucb_order(L, K, delta), rel=1e-9
    )


def test_mp_agrees_with_float():
    with mpmath.workdps(50):
        v = eq9_klucb_order(16, 4, 0.15, dps=50)
        assert isinstance(v, mpmath.mpf)
        assert abs(v - eq9_klucb_order(16, 4, 0.15)) <= 2.3e-16 * v


@pytest.mark.parametrize("K", [2, 4, 8])
def test_crossover(K):
    d = klucb_below_ucb1_delta(K)
    with mpmath.workdps(300):
        r = leading_ratio_klucb_ucb1(K, d, dps=300)
        assert abs(r - 1) < mpmath.mpf("1e-20")
    # the ratio is monotone: above 1 to the left of d, below 1 to the right, on a log grid
    xs = np.linspace(math.log(float(d)) - 20, math.log(1 / K) - 1e-3, 60)
    vals = [float(leading_ratio_klucb_ucb1(K, mpmath.exp(x), dps=120)) for x in xs]
    assert all((v > 1) == (x < math.log(float(d))) for v, x in zip(vals, xs, strict=True))
    assert all(b < a for a, b in zip(vals, vals[1:], strict=False))
    # the paper's regime Delta = Omega(e^-K) is far inside the true one
    assert d < math.exp(-K) * 1e-8
    # against the theorems themselves on a representable Delta just above / below
    if float(d) > 1e-12:  # p - Delta must differ from p in float64
        for fac, below in ((2.0, True), (0.5, False)):
            inst = b_lb(2 * K, K, 1.0 / K, float(d) * fac)
            t3, t2 = theorem3_leading_coefficient(inst), theorem2_leading_coefficient(inst)
            assert (t3 < t2) == below


def test_K1_and_bad_input():
    assert klucb_below_ucb1_delta(1) == 0
    assert eq7_lower_order(4, 1, 0.5) == 0.0  # p = 1: kl(1 - Delta, 1) = inf
    with pytest.raises(ValueError, match="delta must satisfy"):
        eq7_lower_order(16, 4, 0.3)
    with pytest.raises(ValueError, match="K must satisfy"):
        eq9_klucb_order(3, 4, 0.1)
