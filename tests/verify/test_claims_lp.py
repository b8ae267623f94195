"""The nested-LP claim behind theorem2-lp / theorem3-lp: holds, and fails when it should."""

from fractions import Fraction as F

import numpy as np

from cascading_bandits import verify
from cascading_bandits.verify import claims_lp


def test_certificate_by_hand():
    # gaps 3/10, 1/10; tau 1, 4: m* = (1, 3), value 3/10 + 3/10 = 3/5 = dual 1 * 2/10 + 4 * 1/10
    p_ok, d_ok, pv, dv = claims_lp.nested_lp_certificate([F(3, 10), F(1, 10)], [F(1), F(4)])
    assert (p_ok, d_ok, pv, dv) == (True, True, F(3, 5), F(3, 5))
    assert abs(claims_lp.nested_lp_highs([0.3, 0.1], [1.0, 4.0]) - 0.6) < 1e-9


def test_certificate_refuses_decreasing_tau_and_increasing_gaps():
    assert not claims_lp.nested_lp_certificate([F(3, 10), F(1, 10)], [F(4), F(1)])[0]
    assert not claims_lp.nested_lp_certificate([F(1, 10), F(3, 10)], [F(1), F(4)])[1]


def test_claim_holds():
    (v,) = verify.run_all(examples=10, claims=["sharp.nested_lp"])
    assert v.status == verify.HOLDS and v.instances > 10


def test_claim_fails_when_a_registered_coefficient_is_off(monkeypatch):
    real = claims_lp.theorem3_prepeeling_coefficient
    monkeypatch.setattr(claims_lp, "theorem3_prepeeling_coefficient", lambda i: real(i) * 0.999)
    (v,) = verify.run_all(examples=5, claims=["sharp.nested_lp"])
    assert v.status == verify.FAILS
    assert v.counterexample["bound"] == "klucb"


def test_nested_lp_highs_many_solves_each_block():
    # one HiGHS call over independent blocks gives each block's own optimum (scales differ
    # by orders of magnitude: each block is normalised before the solve)
    rng = np.random.default_rng(3)
    lps = []
    for _ in range(40):
        K = int(rng.integers(1, 6))
        g = sorted(rng.uniform(1e-3, 1, K), reverse=True)
        tau = sorted(rng.uniform(1, 1e6, K))
        lps.append((g, tau))
    many = claims_lp.nested_lp_highs_many(lps)
    for (g, tau), v in zip(lps, many, strict=True):
        assert abs(v - claims_lp.nested_lp_highs(g, tau)) <= 1e-9 * v
