"""Negative tests: each check reports ``fails`` on a planted false statement.

A check that cannot fail proves nothing. Here each kind of check is handed a statement known to
be false -- a bound below the true regret, a Theorem 1 bound on the wrong side of the exact
conditional regret -- and must say so; and its reported slack is pinned on a fixed instance,
so that a slack measuring the wrong difference is caught.
"""

from fractions import Fraction as F

import numpy as np
import pytest
from scipy import stats

from cascading_bandits.bounds.decomposition import theorem1_bounds
from cascading_bandits.verify import claims_montecarlo as MC
from cascading_bandits.verify import claims_theorem1 as T1
from cascading_bandits.verify.registry import CheckContext, get_claim
from cascading_bandits.verify.verdict import FAILS, HOLDS, UNDECIDED

# ---------------------------------------------------------------------------------------
# Monte-Carlo comparison (theorem2.mc, theorem3.mc)
# ---------------------------------------------------------------------------------------


def _synthetic_regret(mean, sd, runs, seed=0):
    """(runs, m) normal 'regrets' with the given column means."""
    rng = np.random.default_rng(seed)
    return np.asarray(mean) + sd * rng.standard_normal((runs, len(mean)))


def test_limits_bracket_the_mean_at_the_stated_confidence():
    reg = _synthetic_regret([10.0, 50.0, 100.0], 5.0, 200)
    out = MC.compare_with_bound(reg, np.array([1e3, 1e3, 1e3]), 0.999)
    mean = reg.mean(axis=0)
    se = reg.std(axis=0, ddof=1) / np.sqrt(200)
    tq = stats.t.ppf(0.999, 199)
    assert tq > 3  # the upper 0.1% point, not the lower one
    np.testing.assert_allclose(out["upper"], mean + tq * se, rtol=1e-12)
    np.testing.assert_allclose(out["lower"], mean - tq * se, rtol=1e-12)
    assert (out["lower"] < out["mean"]).all() and (out["mean"] < out["upper"]).all()
    assert out["status"] == HOLDS


def test_bound_below_the_regret_fails():
    reg = _synthetic_regret([10.0, 50.0, 100.0], 5.0, 200)
    true_mean = np.array([10.0, 50.0, 100.0])
    assert MC.compare_with_bound(reg, 0.5 * true_mean)["status"] == FAILS


def test_bound_at_the_mean_is_undecided():
    # the mean lies inside its own confidence interval: neither holds nor fails
    reg = _synthetic_regret([10.0, 50.0, 100.0], 5.0, 200)
    out = MC.compare_with_bound(reg, reg.mean(axis=0))
    assert out["status"] == UNDECIDED
    # just above the mean but below the upper limit: still undecided
    out = MC.compare_with_bound(reg, reg.mean(axis=0) + out["se"])
    assert out["status"] == UNDECIDED


def test_compare_rejects_bad_input():
    reg = _synthetic_regret([1.0, 2.0], 1.0, 5)
    with pytest.raises(ValueError, match="bound"):
        MC.compare_with_bound(reg, [1.0])
    with pytest.raises(ValueError, match="regret"):
        MC.compare_with_bound(reg[:1], [1.0, 2.0])
    with pytest.raises(ValueError, match="confidence"):
        MC.compare_with_bound(reg, [1.0, 2.0], 0.001)


def _ctx(seed=0, budget=0.2):
    return CheckContext(examples=1, rng=np.random.default_rng(seed), budget=budget)


def test_monte_carlo_check_fails_on_half_the_true_regret():
    """End to end through the simulator: a 'bound' at half the regret must be refuted."""
    from cascading_bandits.simulate import run_cell

    # the true regret, estimated on other seeds with many runs
    truth = {}
    for _label, cell in MC._cells("cascade-ucb1", 1000, 200):
        res = run_cell(cell, 12345)
        truth[tuple(cell.weights)] = (res.checkpoints, res.regret.mean(axis=0))

    def half(inst, n):
        cp, mean = truth[tuple(inst.weights)]
        return 0.5 * float(mean[np.searchsorted(cp, n)])

    out = MC._mc_check(_ctx(), "cascade-ucb1", half, 50)
    assert out.status == FAILS, out.notes
    cex = out.counterexample
    assert cex["lower_limit"] > cex["bound"] > 0
    assert out.min_slack < 0

    # and the same check with a generous bound (twice the regret plus the noise) holds
    def double(inst, n):
        cp, mean = truth[tuple(inst.weights)]
        return 2.0 * float(mean[np.searchsorted(cp, n)]) + 50.0

    out = MC._mc_check(_ctx(), "cascade-ucb1", double, 50)
    assert out.status == HOLDS, out.notes
    assert 0 < out.min_slack < 1


# ---------------------------------------------------------------------------------------
# Theorem 1 (exact): planted bounds on the wrong side, and the slack pinned
# ---------------------------------------------------------------------------------------

W = [F(1, 10), F(1, 2), F(3, 10), F(1, 5)]  # optimal for K = 2: items 1, 2
A = [3, 0]  # both suboptimal: R = 37/100, S = 23/50, alpha = 1/2


def _fixed_draw(ctx):
    return W, 2, [0.0, 0.0, 0.0, 1.0], A


def test_theorem1_slacks_pinned_on_a_fixed_instance(monkeypatch):
    monkeypatch.setattr(T1, "_draw", _fixed_draw)
    lower, exact, upper = F(23, 100), F(37, 100), F(23, 50)  # by hand, see test_decomposition
    up = T1._bounds_check(_ctx(), "upper")
    lo = T1._bounds_check(_ctx(), "lower")
    assert up.status == lo.status == HOLDS
    assert (upper - exact) / upper == F(9, 46) and up.min_slack == float(F(9, 46))
    assert (exact - lower) / upper == F(7, 23) and lo.min_slack == float(F(7, 23))


def test_theorem1_lower_fails_on_a_planted_lower_bound_above_the_regret(monkeypatch):
    def planted(A, w, K):
        lower, exact, upper = theorem1_bounds(A, w, K)
        return (exact + upper) / 2, exact, upper  # > exact wherever S > R

    monkeypatch.setattr(T1, "theorem1_bounds", planted)
    out = get_claim("theorem1.lower").run(examples=40, seed=0)
    assert out.status == FAILS
    cex = out.counterexample
    assert F(cex["lower"]) > F(cex["regret"]) and cex["slack"] < 0


def test_theorem1_upper_fails_on_a_planted_upper_bound_below_the_regret(monkeypatch):
    def planted(A, w, K):
        lower, exact, upper = theorem1_bounds(A, w, K)
        return lower, exact, (lower + exact) / 2 if exact > lower else upper

    monkeypatch.setattr(T1, "theorem1_bounds", planted)
    out = get_claim("theorem1.upper").run(examples=40, seed=0)
    assert out.status == FAILS
    cex = out.counterexample
    assert F(cex["upper"]) < F(cex["regret"]) and cex["slack"] < 0


def test_theorem1_fails_when_the_regret_disagrees_with_enumeration(monkeypatch):
    def planted(A, w, K):
        lower, exact, upper = theorem1_bounds(A, w, K)
        return lower, exact * F(101, 100), upper

    monkeypatch.setattr(T1, "theorem1_bounds", planted)
    out = get_claim("theorem1.upper").run(examples=20, seed=0)
    assert out.status == FAILS and "enumerat" in out.notes
