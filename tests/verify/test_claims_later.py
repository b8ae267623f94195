"""verify.claims_later: each claim holds, is registered for `cascading verify`, and fails
when the formula it checks is wrong (mutations)."""

import json
import math

import pytest

from cascading_bandits import verify
from cascading_bandits.bounds import later
from cascading_bandits.bounds.lower import theorem4_general_coefficient
from cascading_bandits.reports.cli import main
from cascading_bandits.verify.claims_later import orders_residuals
from cascading_bandits.verify.registry import get_claim
from cascading_bandits.verify.verdict import FAILS, HOLDS

IDS = [
    "later.corollary2",
    "later.corollary3",
    "later.graves_lai",
    "later.graves_lai.theorem4",
    "later.orders",
]


def test_registered_and_listed():
    ids = {c.id for c in verify.available_claims()}
    assert set(IDS) | {"later.corollary2.mc", "later.corollary3.mc"} <= ids


@pytest.mark.parametrize("cid", IDS)
def test_holds(cid):
    v = get_claim(cid).run(examples=10, seed=3)
    assert v.status == HOLDS, (v.counterexample, v.notes)
    assert v.instances >= 1 and v.min_slack is not None and v.min_slack >= -1e-12
    json.dumps(v.to_dict(), allow_nan=False)


def test_sympy_residuals_zero():
    assert orders_residuals() == (0, 0, 0, 0)


def test_corollary2_fails_if_closed_form_is_not_the_minimum(monkeypatch):
    real = later.theorem2_gapfree_bound
    monkeypatch.setattr(later, "theorem2_gapfree_bound", lambda L, K, n: 1.01 * real(L, K, n))
    assert get_claim("later.corollary2").run(examples=5, seed=0).status == FAILS


def test_corollary3_fails_with_a_too_small_weight_factor(monkeypatch):
    # c_w = min(1, w(1)) is too small: 1/kl(p, q) ~ 2 q (1 - q)/Delta^2 for small gaps
    monkeypatch.setattr(later, "theorem3_gapfree_weight_factor", lambda w: min(1.0, w))
    assert get_claim("later.corollary3").run(examples=30, seed=0).status == FAILS


def test_graves_lai_fails_without_the_product_factor(monkeypatch):
    # claiming sum_i Delta_{i,K}/kl (alpha = 1) as the constant: dual infeasible for some list
    def excess_alpha_one(inst, items, K=None, exact=True):
        from fractions import Fraction

        w = [Fraction(float(x)) for x in inst.sorted_weights]
        o = later.list_examination(inst, items, exact=True)
        rhs = sum((w[inst.K - 1] - w[x]) * o[k] for k, x in enumerate(items) if x >= inst.K)
        return later.list_regret(inst, items, exact=True) - rhs

    monkeypatch.setattr(later, "list_regret_excess", excess_alpha_one)
    v = get_claim("later.graves_lai").run(examples=10, seed=0)
    assert v.status == FAILS and v.counterexample is not None


def test_theorem4_relation_fails_if_constants_swapped(monkeypatch):
    monkeypatch.setattr(later, "graves_lai_coefficient", theorem4_general_coefficient)
    assert get_claim("later.graves_lai.theorem4").run(examples=20, seed=0).status == FAILS


def test_orders_fail_with_a_wrong_rate(monkeypatch):
    monkeypatch.setattr(later, "zhong_lower_order", lambda L, K, n: math.sqrt(n * L * K * 2))
    assert get_claim("later.orders").run(examples=5, seed=0).status == FAILS


def test_cli_runs_the_later_claims(capsys):
    code = main(["verify", "--claim", "later.orders", "--examples", "3", "--json"])
    out = capsys.readouterr().out
    assert code == 0
    assert "later.orders" in out and '"holds"' in out
