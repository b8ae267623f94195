"""The grouped lazy KL-UCB selection (large L: many items share a state, see engine.GROUP_MIN).

On B_LB(300, 4, 0.2, 0.15) hundreds of items have identical (successes, observations)
states, hence identical indices, every step: the lazy engine (state cache, one pass with
upper bounds) must take the plain loop's decisions bit for bit, and the reference's.
"""

import numpy as np
import pytest
from reference import reference_run

from cascading_bandits.bounds.instance import b_lb
from cascading_bandits.simulate.engine import GROUP_MIN, GROUP_MIN_RANKED, simulate_runs
from cascading_bandits.simulate.models import make_model
from cascading_bandits.simulate.rng import policy_keys, users_keys

L, K = 300, 4
KLUCB_COMBOS = [
    (pol, model, order)
    for pol in ("cascade-klucb", "ranked-klucb", "ranked-klucb-rba")
    for model in ("cascade", "dbn")
    for order in ("best-first", "worst-first")
    if not (pol.startswith("ranked") and order == "worst-first")
]


def _model(model, weights, K):
    nu, gamma = (0.7, 0.7) if model == "dbn" else (1.0, 1.0)
    return make_model(model, weights, K, nu, gamma), nu, gamma


def test_instance_takes_the_grouped_path():
    assert L >= GROUP_MIN and L >= GROUP_MIN_RANKED


@pytest.mark.parametrize("policy,model,order", KLUCB_COMBOS)
def test_grouped_equals_plain(policy, model, order):
    weights = tuple(b_lb(L, K, 0.2, 0.15).weights)
    m, _, _ = _model(model, weights, K)
    ss = np.random.SeedSequence(11)
    uk, pk = users_keys(ss, weights, 2), policy_keys(ss, 2)
    n = 6000
    cp = np.unique(np.linspace(1, n, 200).astype(np.int64))
    args = (m, policy, order, n, uk, pk, cp)
    r1, c1, t1, k1 = simulate_runs(*args, threads=1, lazy=True, trace_steps=n)
    r2, c2, t2, k2 = simulate_runs(*args, threads=1, lazy=False, trace_steps=n)
    np.testing.assert_array_equal(t1, t2)
    np.testing.assert_array_equal(k1, k2)
    np.testing.assert_array_equal(r1, r2)
    np.testing.assert_array_equal(c1, c2)


@pytest.mark.parametrize("policy", ["cascade-klucb", "ranked-klucb"])
def test_grouped_equals_reference(policy):
    weights = tuple(b_lb(L, K, 0.2, 0.15).weights)
    m, nu, gamma = _model("cascade", weights, K)
    ss = np.random.SeedSequence(12)
    uk, pk = users_keys(ss, weights, 1), policy_keys(ss, 1)
    n = 800
    _, counts, trace, _ = simulate_runs(
        m, policy, "best-first", n, uk, pk, np.array([n]), threads=1, trace_steps=n
    )
    lists, _, _, ref_counts = reference_run(
        "cascade", weights, K, policy, "best-first", n, uk[0], pk[0], nu, gamma
    )
    np.testing.assert_array_equal(trace[0], np.array(lists))
    np.testing.assert_array_equal(counts[0], np.array(ref_counts))
