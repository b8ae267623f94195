"""The KL-UCB kernels over the distinct states grow their tables mid-run and keep the plain
loop's decisions.

cascade-klucb and ranked-klucb(-rba) at L >= GROUP_MIN(_RANKED) run their steps in a helper
that returns to the kernel when a step's moves need more slots than a table has free; the
kernel grows the tables, makes that step's moves and resumes. The instances here are chosen
so that this happens (checked from the trace: more distinct (S, N) states than the first
tables hold), and the lazy runs must equal the plain ones step for step.
"""

import numpy as np
import pytest
from registry_cases import assert_lazy_equals_plain

from cascading_bandits.simulate.models import make_model
from cascading_bandits.simulate.policies._klucb_select import GROUP_MIN, GROUP_MIN_RANKED
from cascading_bandits.simulate.policies._klucb_states import _CAP0
from cascading_bandits.simulate.rng import ATTRACT, policy_keys, uniform_py, users_keys

L = 128


def _weights(lo, hi):
    return tuple(float(w) for w in np.round(np.linspace(lo, hi, L), 4))


def _args(policy, weights, K, n, seed):
    m = make_model("cascade", weights, K, 1.0, 1.0)
    ss = np.random.SeedSequence(seed)
    uk, pk = users_keys(ss, weights, 1), policy_keys(ss, 1)
    return (m, policy, "best-first", n, uk, pk, np.array([n])), uk


def _cascade_states(weights, K, lists, clicks, ukey):
    """Largest number of distinct (S, N) states of cascade-klucb's items after a step's
    moves, from its trace (S, N start at Algorithm 1's observation of w_0)."""
    N = np.ones(L, np.int64)
    S = np.array([uniform_py(int(ukey), ATTRACT, 0, e, L, 0) < weights[e] for e in range(L)],
                 np.int64)  # fmt: skip
    most = 0
    for lst, cl in zip(lists, clicks, strict=True):
        hit = np.flatnonzero(cl == 1)
        nobs = hit[-1] + 1 if hit.size else K
        for k in range(nobs):
            N[lst[k]] += 1
            S[lst[k]] += cl[k]
        most = max(most, len(set(zip(S.tolist(), N.tolist(), strict=True))))
    return most


def _ranked_states(K, lists, clicks):
    """Largest number of distinct (S, N) states in one of ranked-klucb's bandits (each
    updates the item it shows with its position's click)."""
    N = np.zeros((K, L), np.int64)
    S = np.zeros((K, L), np.int64)
    most = 0
    for lst, cl in zip(lists, clicks, strict=True):
        for k in range(K):
            N[k, lst[k]] += 1
            S[k, lst[k]] += cl[k]
        most = max(most, *(len(set(zip(S[k].tolist(), N[k].tolist(), strict=True)))
                           for k in range(K)))  # fmt: skip
    return most


def test_instances_take_the_grouped_path():
    assert L >= GROUP_MIN and L >= GROUP_MIN_RANKED


def test_cascade_klucb_grows_and_equals_plain():
    """K = 24 of 128 items of weights 0.02..0.3, 3000 steps: more than _CAP0 - K states
    alive after a step (61 of _CAP0 = 64 slots), so that the next step finds fewer than K
    free and the kernel grows the table before its moves."""
    from cascading_bandits.simulate.engine import simulate_runs

    K, n = 24, 3000
    w = _weights(0.02, 0.3)
    args, uk = _args("cascade-klucb", w, K, n, 11)
    assert_lazy_equals_plain(args)
    r = simulate_runs(*args, threads=1, lazy=True, trace_steps=n)
    assert _cascade_states(w, K, r[2][0], r[3][0], uk[0]) > _CAP0 - K


@pytest.mark.parametrize("policy", ["ranked-klucb", "ranked-klucb-rba"])
def test_ranked_klucb_grows_and_equals_plain(policy):
    """K = 2 bandits on 128 items of weights 0.3..0.7, 8000 steps: ranked-klucb's first
    bandit holds more than _CAP0 states (a table grew); RBA's rule on the same instance."""
    from cascading_bandits.simulate.engine import simulate_runs

    K, n = 2, 8000
    args, _ = _args(policy, _weights(0.3, 0.7), K, n, 11)
    assert_lazy_equals_plain(args)
    if policy == "ranked-klucb":
        r = simulate_runs(*args, threads=1, lazy=True, trace_steps=n)
        assert _ranked_states(K, r[2][0], r[3][0]) > _CAP0
