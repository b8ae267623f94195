"""Every formula tolerance of the sampled claims, pinned from both sides.

A claim that compares a float64 formula with an independent reference (40-digit mpmath, exact
rationals, an LP solver) allows a stated rounding error. Each test here plants an error in the
function the claim checks, just beyond the stated tolerance (the claim must fail) and well inside
it (the claim must hold). A tolerance loosened (1e-12 -> 1e-9) lets the first plant pass; one
tightened below the natural rounding would fail the second, so both directions are pinned.

The plants replace the value with the exact reference times ``1 + r`` (or ``1 - r``): the
slack the claim computes is then ``-r`` at every sampled point, whatever the natural slack.
"""

import math

import mpmath
import numpy as np
import pytest

from cascading_bandits.bounds import later, lower, peeling, sharp, upper
from cascading_bandits.bounds.instance import CascadeInstance
from cascading_bandits.bounds.kl import kl_mp
from cascading_bandits.bounds.lower import blb_parameters, theorem4_coefficient
from cascading_bandits.bounds.registry import Bound, Covers
from cascading_bandits.verify import claims_bounds as CB
from cascading_bandits.verify import claims_lower as CL
from cascading_bandits.verify import claims_lp as CLP
from cascading_bandits.verify import claims_sharp as CS
from cascading_bandits.verify import claims_upper as CU
from cascading_bandits.verify.registry import CheckContext, get_claim
from cascading_bandits.verify.verdict import FAILS, HOLDS


def _run(cid, examples=4, seed=0):
    v = get_claim(cid).run(examples=examples, seed=seed)
    assert v.status in (HOLDS, FAILS), (cid, v.status, v.notes)
    return v.status


def _expect(r, tol):
    """The verdict a plant of relative size ``r`` must get under tolerance ``tol``."""
    return FAILS if r > tol else HOLDS


def _scaled(monkeypatch, module, name, factor):
    real = getattr(module, name)
    monkeypatch.setattr(module, name, lambda *a, **k: real(*a, **k) * factor)


# the plants: (tolerance, relative error beyond it, relative error well inside it)
def _sizes(tol):
    return [2 * tol, tol / 10]


# ---------------------------------------------------------------------------------------
# theorem4 (claims_lower)
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("r", _sizes(1e-12))
def test_theorem4_formula_tolerance(monkeypatch, r):
    """bounds.lower's constant vs the paper's formula at 40 digits: 1e-12 relative."""
    _scaled(monkeypatch, CL, "theorem4_formula_mp", 1 + r)
    assert _run("theorem4") == _expect(r, 1e-12)


@pytest.mark.parametrize("r", _sizes(1e-12))
def test_theorem4_below_theorem3_tolerance_on_b_lb(monkeypatch, r):
    """On B_LB: the lower constant may exceed Theorem 3's coefficient by 1e-12 relative."""
    real = upper.theorem3_leading_coefficient

    def planted(inst, *a, **k):
        if blb_parameters(inst) is None:
            return real(inst, *a, **k)
        return theorem4_coefficient(inst) * (1 - r)

    monkeypatch.setattr(upper, "theorem3_leading_coefficient", planted)
    assert _run("theorem4") == _expect(r, 1e-12)


@pytest.mark.parametrize("r", _sizes(1e-12))
def test_theorem4_below_theorem2_tolerance_on_general_instances(monkeypatch, r):
    """On general instances (Theorem 2's coefficient is compared there only): 1e-12."""
    real = upper.theorem2_leading_coefficient

    def planted(inst, *a, **k):
        c = theorem4_coefficient(inst)
        return c * (1 - r) if c > 0 else real(inst, *a, **k)

    monkeypatch.setattr(upper, "theorem2_leading_coefficient", planted)
    assert _run("theorem4") == _expect(r, 1e-12)


def test_theorem4_plant_of_the_issue_fails(monkeypatch):
    """A 1e-10 relative error in the constant itself (issue 25) is a failure."""
    _scaled(monkeypatch, lower, "theorem4_coefficient", 1 + 1e-10)
    assert _run("theorem4") == FAILS


# ---------------------------------------------------------------------------------------
# theorem2, theorem3 (claims_upper)
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("r", _sizes(1e-12))
def test_theorem2_formula_tolerance(monkeypatch, r):
    _scaled(monkeypatch, CU, "theorem2_formula_mp", 1 + r)
    assert _run("theorem2", examples=2) == _expect(r, 1e-12)


@pytest.mark.parametrize("r", _sizes(1e-12))
def test_theorem2_prepeeling_tolerance(monkeypatch, r):
    monkeypatch.setattr(
        upper,
        "theorem2_prepeeling",
        lambda inst, n, K=None: upper.theorem2_bound(inst, n) * (1 + r),
    )
    assert _run("theorem2", examples=2) == _expect(r, 1e-12)


@pytest.mark.parametrize("r", _sizes(1e-12))
def test_theorem3_coefficient_tolerance(monkeypatch, r):
    lead = upper.theorem3_leading_coefficient
    monkeypatch.setattr(
        upper, "theorem3_prepeeling_coefficient", lambda inst, K=None: lead(inst) * (1 + r)
    )
    assert _run("theorem3", examples=2) == _expect(r, 1e-12)


@pytest.mark.parametrize("r", _sizes(1e-12))
def test_theorem3_bound_tolerance(monkeypatch, r):
    bound = upper.theorem3_bound
    monkeypatch.setattr(
        upper,
        "theorem3_prepeeling",
        lambda inst, n, eps, K=None, form="paper": bound(inst, n, eps) * (1 + r),
    )
    assert _run("theorem3", examples=2) == _expect(r, 1e-12)


# ---------------------------------------------------------------------------------------
# bound.<lower> against the upper bounds (claims_bounds.LOWER_TOL)
# ---------------------------------------------------------------------------------------


def _toy(kind, evaluate, **kw):
    return Bound(
        name=f"toy-tol-{kind}",
        title="toy",
        label="toy",
        kind=kind,
        form="constant",
        gap="dependent",
        covers=(Covers("cascade-ucb1", **kw),),
        evaluate=evaluate,
        source="tests/verify/test_tolerances.py",
        rate="10 log n",
        asymptotic=kind == "lower",
    )


@pytest.mark.parametrize("r", _sizes(1e-12))
def test_lower_bound_claim_tolerance(monkeypatch, r):
    assert CB.LOWER_TOL == 1e-12
    up = _toy("upper", lambda inst, n: 10 * np.log(np.asarray(n, dtype=float)), alpha=1.5)
    low = _toy("lower", lambda inst, n: (1 + r) * 10 * np.log(np.asarray(n, dtype=float)))
    monkeypatch.setattr(CB, "all_bounds", lambda: [up, low])
    out = CB.lower_check(low, CheckContext(1, np.random.default_rng(0), 1.0))
    assert out.status == _expect(r, 1e-12)
    assert out.min_slack == pytest.approx(-r, rel=1e-3)


# ---------------------------------------------------------------------------------------
# claims_later
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("r", _sizes(1e-12))
def test_corollary2_closed_form_tolerance(monkeypatch, r):
    """The closed form may exceed the grid's minimum by 1e-12 relative."""
    best = later.theorem2_gapfree_bound
    monkeypatch.setattr(later, "theorem2_gapfree_split", lambda L, K, n, g: best(L, K, n) * (1 - r))
    assert _run("later.corollary2", examples=2) == _expect(r / (1 - r), 1e-12)


@pytest.mark.parametrize("r", _sizes(1e-13))
def test_corollary3_kl_lower_tolerance(monkeypatch, r):
    monkeypatch.setattr(later, "kl_quadratic_lower", lambda p, q: float(kl_mp(p, q)) * (1 + r))
    assert _run("later.corollary3", examples=2) == _expect(r, 1e-13)


@pytest.mark.parametrize("r", _sizes(1e-13))
def test_corollary3_bracket_tolerance(monkeypatch, r):
    factor = later.theorem3_gapfree_weight_factor

    def lhs(p, qs):
        return factor(float(qs[0])) / (mpmath.mpf(qs[-1]) - p) * (1 + r)

    monkeypatch.setattr(peeling, "lemma2_lhs", lhs)
    assert _run("later.corollary3", examples=2) == _expect(r, 1e-13)


@pytest.mark.parametrize("r", _sizes(1e-7))
def test_graves_lai_lp_tolerance(monkeypatch, r):
    closed = later.graves_lai_coefficient
    monkeypatch.setattr(later, "graves_lai_lp_coefficient", lambda inst: closed(inst) * (1 + r))
    assert _run("later.graves_lai", examples=2) == _expect(r, 1e-7)


@pytest.mark.parametrize("r", _sizes(1e-12))
def test_graves_lai_theorem4_quotient_tolerance(monkeypatch, r):
    _scaled(monkeypatch, later, "graves_lai_coefficient", 1 + r)
    assert _run("later.graves_lai.theorem4", examples=3) == _expect(r, 1e-12)


@pytest.mark.parametrize("r", [3e-15, 1e-16])
def test_orders_vial_tolerance(monkeypatch, r):
    v = later.vial_minimax_lower_order
    monkeypatch.setattr(later, "vial_cascadeucb1_lower_order", lambda L, K, n: v(L, K, n) * (1 - r))
    assert _run("later.orders", examples=3) == _expect(r, 1e-15)


@pytest.mark.parametrize("r", _sizes(1e-13))
def test_orders_corollary3_cap_tolerance(monkeypatch, r):
    def lead(L, K, n, eps, w_max=1.0):
        f = math.log(n) + 3 * max(math.log(math.log(n)), 0) if n > math.e else math.log(n)
        return 4 * math.sqrt((1 + eps) * f * L * n) * (1 + r)

    monkeypatch.setattr(later, "theorem3_gapfree_leading", lead)
    assert _run("later.orders", examples=3) == _expect(r, 1e-13)


# ---------------------------------------------------------------------------------------
# claims_sharp, claims_lp
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("r", _sizes(1e-12))
def test_a_part_closed_form_tolerance(monkeypatch, r):
    _scaled(monkeypatch, sharp, "ucb1_miss_probability", 1 + r)
    assert _run("sharp.a_part", examples=4) == _expect(r, 1e-12)


@pytest.mark.parametrize("policy", ["cascade-ucb1", "cascade-klucb"])
@pytest.mark.parametrize("d", _sizes(1e-12))
def test_a_part_exact_probability_tolerance(monkeypatch, d, policy):
    """Each policy's bound may fall below the exact miss probability by 1e-12 (absolute)."""
    from cascading_bandits.bounds.garivier_cappe import theorem10_bound

    def planted(w, t, pol, param, dps=30):
        if pol != policy:
            return 0.0  # the other policy's comparison has its full slack
        if pol == "cascade-ucb1":
            return sharp.ucb1_miss_probability(t, param) + d
        return float(theorem10_bound(t, param)) + d

    monkeypatch.setattr(CS, "exact_miss_probability", planted)
    assert _run("sharp.a_part", examples=4) == _expect(d, 1e-12)


@pytest.mark.parametrize("r", _sizes(1e-7))
def test_nested_lp_highs_tolerance(monkeypatch, r):
    real = CLP.nested_lp_highs_many
    monkeypatch.setattr(CLP, "nested_lp_highs_many", lambda lps: [v * (1 + r) for v in real(lps)])
    assert _run("sharp.nested_lp", examples=2) == _expect(r, 1e-7)


@pytest.mark.parametrize("r", _sizes(1e-9))
def test_nested_lp_registered_coefficient_tolerance(monkeypatch, r):
    _scaled(monkeypatch, CLP, "theorem2_prepeeling_coefficient", 1 + r)
    assert _run("sharp.nested_lp", examples=2) == _expect(r, 1e-9)


def test_instances_are_what_the_plants_assume():
    """The B_LB plant needs B_LB draws, the general one none: blb_parameters tells them apart."""
    assert blb_parameters(CascadeInstance((0.2, 0.2, 0.05, 0.05), 2)) is not None
    assert blb_parameters(CascadeInstance((0.7, 0.6, 0.5, 0.2), 2)) is None
