"""The engine takes the reference's decisions, bit for bit, on the same random numbers.

Coverage: every policy x click model x order (cascade-ucb1, cascade-klucb, cascade-ts, oracle,
uniform-random in both orders, ranked-klucb and ranked-klucb-rba best-first; cascade and DBN
models) = 24 combinations, on two
instances (B_LB with many ties; weights including 0 and 1), for 1200 steps, with the lazy
KL-UCB selection and with the plain loop; plus lazy == plain for 30000 steps.
"""

import numpy as np
import pytest
from reference import beta_py, reference_run

from cascading_bandits.bounds.instance import b_lb
from cascading_bandits.simulate.engine import simulate_runs
from cascading_bandits.simulate.models import make_model
from cascading_bandits.simulate.policies import ORDERS, POLICIES, order_code, policy_code
from cascading_bandits.simulate.rng import beta_draw, policy_keys, uniform, uniform_py, users_keys

STEPS = 1200
INSTANCES = {
    "blb": (tuple(b_lb(8, 3, 0.2, 0.1).weights), 3),
    "edges": ((0.9, 0.0, 0.35, 1.0, 0.05, 0.35, 0.6, 0.12), 3),
}
COMBOS = [
    (pol, model, order)
    for pol in POLICIES
    for model in ("cascade", "dbn")
    for order in ORDERS
    if not (pol.startswith("ranked") and order == "worst-first")
]


def _keys(weights, runs=1, seed=2024):
    ss = np.random.SeedSequence(seed)
    return users_keys(ss, weights, runs), policy_keys(ss, runs)


def test_coverage_is_complete():
    assert len(COMBOS) == 24
    assert {c[0] for c in COMBOS} == set(POLICIES)


@pytest.mark.parametrize("instance", sorted(INSTANCES))
@pytest.mark.parametrize("policy,model,order", COMBOS)
@pytest.mark.parametrize("lazy", [True, False], ids=["lazy", "plain"])
def test_engine_equals_reference(policy, model, order, instance, lazy):
    weights, K = INSTANCES[instance]
    nu, gamma = (0.7, 0.7) if model == "dbn" else (1.0, 1.0)
    m = make_model(model, weights, K, nu, gamma)
    uk, pk = _keys(weights)
    cp = np.arange(1, STEPS + 1)
    regret, counts, trace, clicks = simulate_runs(
        m,
        policy_code(policy),
        order_code(order, policy),
        STEPS,
        3.0,
        uk,
        pk,
        cp,
        threads=1,
        lazy=lazy,
        trace_steps=STEPS,
    )
    lists, ref_clicks, ref_regret, ref_counts = reference_run(
        model, weights, K, policy, order, STEPS, 3.0, uk[0], pk[0], nu, gamma
    )
    ref_lists = np.array(lists)
    diff = np.nonzero((trace[0] != ref_lists).any(axis=1))[0]
    assert diff.size == 0, (
        f"first different list at t = {diff[0] + 1}: {trace[0][diff[0]]} vs {ref_lists[diff[0]]}"
    )
    np.testing.assert_array_equal(clicks[0], np.array(ref_clicks))
    np.testing.assert_array_equal(regret[0], np.array(ref_regret))
    np.testing.assert_array_equal(counts[0], np.array(ref_counts))


@pytest.mark.parametrize("policy,model,order", [c for c in COMBOS if "klucb" in c[0]])
def test_lazy_equals_plain_long(policy, model, order):
    weights, K = tuple(b_lb(16, 4, 0.2, 0.15).weights), 4
    m = make_model(
        model, weights, K, 0.7 if model == "dbn" else 1.0, 0.7 if model == "dbn" else 1.0
    )
    uk, pk = _keys(weights, runs=2, seed=5)
    n = 30000
    cp = np.unique(np.linspace(1, n, 300).astype(np.int64))
    args = (m, policy_code(policy), order_code(order, policy), n, 3.0, uk, pk, cp)
    r1, c1, t1, _ = simulate_runs(*args, threads=1, lazy=True, trace_steps=n)
    r2, c2, t2, _ = simulate_runs(*args, threads=1, lazy=False, trace_steps=n)
    np.testing.assert_array_equal(t1, t2)
    np.testing.assert_array_equal(r1, r2)
    np.testing.assert_array_equal(c1, c2)


def test_uniform_numba_equals_python():
    for key in (0, 1, 2**63 + 12345, 2**64 - 1):
        for s, t, e, w, j in [
            (0, 0, 0, 16, 0),
            (1, 99999, 2047, 2048, 0),
            (3, 5, 3, 8, 255),
            (2, 7, 1, 4, 9),
        ]:
            assert uniform(np.uint64(key), s, t, e, w, j) == uniform_py(key, s, t, e, w, j)


def test_beta_numba_equals_python():
    key = np.uint64(987654321)
    for a, b, t, e in [
        (1.0, 1.0, 1, 0),
        (3.0, 7.0, 2, 5),
        (1.0, 500.0, 10, 1),
        (4000.0, 20.0, 9, 7),
    ]:
        assert beta_draw(a, b, key, t, e, 8) == beta_py(a, b, int(key), t, e, 8)


@pytest.mark.slow
@pytest.mark.parametrize("policy,model,order", COMBOS)
def test_engine_equals_reference_long(policy, model, order):
    """5000 steps on B_LB(16, 4, 0.2, 0.15), the Section 5.3 instance (slow: CI's -m slow)."""
    weights, K, n = tuple(b_lb(16, 4, 0.2, 0.15).weights), 4, 5000
    nu, gamma = (0.7, 0.7) if model == "dbn" else (1.0, 1.0)
    m = make_model(model, weights, K, nu, gamma)
    uk, pk = _keys(weights, seed=31)
    pol, odr = policy_code(policy), order_code(order, policy)
    _, counts, trace, _ = simulate_runs(
        m, pol, odr, n, 3.0, uk, pk, np.array([n]), threads=1, trace_steps=n
    )
    lists, _, _, ref_counts = reference_run(
        model, weights, K, policy, order, n, 3.0, uk[0], pk[0], nu, gamma
    )
    np.testing.assert_array_equal(trace[0], np.array(lists))
    np.testing.assert_array_equal(counts[0], np.array(ref_counts))
