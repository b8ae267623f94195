"""Statistical sanity of the engine against exactly computed expectations."""

import itertools
import math

import numpy as np
import pytest

from cascading_bandits.simulate import run_cell
from cascading_bandits.simulate.experiments import Cell, b_lb_cell
from cascading_bandits.simulate.models import make_model


@pytest.mark.parametrize(
    "model,order", [("cascade", "best-first"), ("cascade", "worst-first"), ("dbn", "best-first")]
)
def test_oracle_has_zero_regret(model, order):
    kw = dict(model="dbn", nu=0.7, gamma=0.7) if model == "dbn" else {}
    res = run_cell(b_lb_cell("t", 10, 3, 0.3, 0.1, "oracle", order, horizon=2000, runs=2, **kw), 0)
    assert (res.regret == 0.0).all()


@pytest.mark.parametrize("model", ["cascade", "dbn"])
def test_uniform_random_matches_exact_expectation(model):
    w = (0.6, 0.1, 0.35, 0.2, 0.05, 0.5)
    K, nu, g = 3, (0.8 if model == "dbn" else 1.0), (0.6 if model == "dbn" else 1.0)
    m = make_model(model, w, K, nu, g)
    fstar = m.expected_reward(m.optimal_list())
    regs = np.array([fstar - m.expected_reward(lst) for lst in itertools.permutations(range(6), K)])
    mean, sd = regs.mean(), regs.std()
    n, runs = 20000, 4
    res = run_cell(
        Cell("t", "u", model, w, K, "uniform-random", horizon=n, runs=runs, nu=nu, gamma=g), 3
    )
    per_step = res.regret[:, -1].sum() / (n * runs)
    assert abs(per_step - mean) < 5 * sd / math.sqrt(n * runs)


def test_regret_grows_like_log_n():
    """KL-UCB: equal increments per doubling of n (log growth), not doubling ones (linear)."""
    cell = b_lb_cell("t", 8, 2, 0.3, 0.2, "cascade-klucb", horizon=32000, runs=8)
    res = run_cell(cell, 1, checkpoints=[4000, 8000, 16000, 32000])
    m = res.regret.mean(axis=0)
    inc = np.diff(m)
    assert (inc > 0).all()
    ratios = inc[1:] / inc[:-1]
    assert (ratios < 1.4).all() and (ratios > 0.6).all(), ratios


def test_suboptimal_counts_match_regret_on_blb():
    """On B_LB with K = 1 the regret is Delta times the plays of suboptimal items, so the
    expected-regret record and the counts must agree: R(n) = Delta * (sum_{e>1} T_n(e) - 1 each)."""
    cell = b_lb_cell("t", 5, 1, 0.4, 0.25, "cascade-ucb1", horizon=3000, runs=3)
    res = run_cell(cell, 2)
    # with K = 1 every shown item is observed; T_n(e) - 1 = number of steps e was shown
    shown_sub = (res.counts[:, 1:] - 1).sum(axis=1)
    np.testing.assert_allclose(res.regret[:, -1], 0.25 * shown_sub, rtol=1e-12)
