"""The closed-form index policies' selection over the distinct (S, N) states (_index_states).

cascade-ucb1, cascade-ucbv, cascade-egreedy and ts-cascade select their list over the
states with ``lazy=True`` and compute every index with ``lazy=False``: the two must take
the same decisions bit for bit, and the reference's, on instances where many items share
a state (B_LB at L = 300, 2048 and 65,536) and where states of different (S, N) tie
exactly (weights 0, 1 and 1/2: UCB-V clips many indices to 1, the greedy means S/N of
different states coincide, TS-Cascade starts with every item in one state). The upper
bounds by which the selection skips states are checked against the exact index on random
states and steps, for both signs of TS-Cascade's shared normal; the one-pass random list
against select_top.
"""

import math

import numpy as np
import pytest
from reference import reference_run
from registry_cases import assert_lazy_equals_plain

from cascading_bandits.bounds.instance import b_lb
from cascading_bandits.simulate.engine import simulate_runs
from cascading_bandits.simulate.jitopts import python_twin
from cascading_bandits.simulate.models import make_model
from cascading_bandits.simulate.policies import _index_states as ist
from cascading_bandits.simulate.policies import get_policy
from cascading_bandits.simulate.policies import kernel as kern
from cascading_bandits.simulate.rng import POLICY, policy_keys, uniform_py, users_keys

POLICIES = ("cascade-ucb1", "cascade-ucbv", "cascade-egreedy(eps=0.2)", "ts-cascade")
index_of, step_consts, set_bound, next_epoch = (
    python_twin(f) for f in (ist.index_of, ist.step_consts, ist._set_bound, ist.next_epoch)
)
top_uniforms, select_top = python_twin(kern.top_uniforms), python_twin(kern.select_top)


def _ties_weights(L):
    return tuple(float(w) for w in np.resize([0.0, 1.0, 0.5, 0.05], L))


def _args(weights, K, policy, n, model="cascade", order="best-first", seed=3, runs=2):
    nu, gamma = (0.7, 0.7) if model == "dbn" else (1.0, 1.0)
    m = make_model(model, weights, K, nu, gamma)
    ss = np.random.SeedSequence(seed)
    uk, pk = users_keys(ss, weights, runs), policy_keys(ss, runs)
    cp = np.unique(np.linspace(1, n, 50).astype(np.int64))
    return (m, policy, order, n, uk, pk, cp)


def test_instances_take_the_states_path():
    assert 160 >= ist.STATES_MIN and 300 >= ist.STATES_MIN


def test_kernels_chosen():
    for name in ("cascade-ucb1", "cascade-ucbv", "cascade-egreedy", "ts-cascade"):
        decl = get_policy(name)
        assert decl.uses_lazy
        for L in (ist.STATES_MIN, 2048):
            assert decl.kernel_for(L, True).py_func.__name__ == "kernel_states"
            assert decl.kernel_for(L, False).py_func.__name__ == "kernel_plain"
        # below STATES_MIN the plain loop is the faster one (same decisions)
        assert decl.kernel_for(ist.STATES_MIN - 1, True).py_func.__name__ == "kernel_plain"


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("model,order", [("cascade", "best-first"), ("dbn", "worst-first")])
def test_states_equal_plain_blb(policy, model, order):
    args = _args(tuple(b_lb(300, 4, 0.2, 0.15).weights), 4, policy, 5000, model, order)
    assert_lazy_equals_plain(args)


@pytest.mark.parametrize("policy", POLICIES)
def test_states_equal_plain_ties(policy):
    """Exact ties across states (S == N, S == 0, UCB-V's clip at 1) go to the smaller id."""
    assert_lazy_equals_plain(_args(_ties_weights(300), 5, policy, 3000, seed=7))


@pytest.mark.parametrize("policy", POLICIES)
def test_states_equal_plain_large_L(policy):
    """L = 2048 with K = 1 and L = 65,536 items (short: the plain loop is O(L K) a step)."""
    assert_lazy_equals_plain(_args(tuple(b_lb(2048, 1, 0.2, 0.15).weights), 1, policy, 3000))
    assert_lazy_equals_plain(
        _args(tuple(b_lb(65536, 4, 0.2, 0.15).weights), 4, policy, 400, runs=1)
    )


@pytest.mark.parametrize("policy", POLICIES)
def test_states_equal_reference(policy):
    w, K, n = _ties_weights(160), 3, 600
    m, _, order, _, uk, pk, cp = _args(w, K, policy, n, seed=5, runs=1)
    _, counts, lists, clicks = simulate_runs(
        m, policy, order, n, uk, pk, cp, threads=1, lazy=True, trace_steps=n
    )
    ref_lists, ref_clicks, _, ref_counts = reference_run(
        "cascade", w, K, policy, order, n, uk[0], pk[0], 1.0, 1.0
    )
    np.testing.assert_array_equal(lists[0], np.array(ref_lists))
    np.testing.assert_array_equal(clicks[0], np.array(ref_clicks))
    np.testing.assert_array_equal(counts[0], np.array(ref_counts))


@pytest.mark.parametrize(
    "kind,params",
    [
        (ist.UCB1, (1.5,)),
        (ist.UCB1, (0.0,)),
        (ist.UCBV, (4.0, 6.0)),
        (ist.UCBV, (0.5, 0.0)),
        (ist.GREEDY, (0.05,)),
    ],
)
def test_bounds_hold(kind, params):
    """A state's bound, made at step t0 for the epoch ending at t_ep, is >= its exact index
    at every step t0..t_ep."""
    rng = np.random.default_rng(kind)
    p = np.array(params + (0.0,), dtype=np.float64)
    sinfo = np.zeros((1, 9), np.int64)
    sval = np.zeros((1, 4))
    kind = np.int64(kind)
    for _ in range(400):
        t0 = int(rng.integers(1, 10**6))
        t_ep = next_epoch(t0, 0)
        n = int(rng.integers(1, 5000))
        s = int(rng.integers(0, n + 1))
        sinfo[0, 0], sinfo[0, 1] = s, n
        g0, g_ep = step_consts(kind, t0, p), step_consts(kind, t_ep, p)
        set_bound(kind, 0, sinfo, sval, g0, g_ep, t_ep, p)
        assert sinfo[0, 3] == t_ep
        for t in {t0, t0 + 1, (t0 + t_ep) // 2, t_ep}:
            g = step_consts(kind, t, p)
            for z in (0.0, 2.5, -2.5, float(rng.normal())):
                v = index_of(kind, s, n, g, z, p)
                assert v <= sval[0, 0], (s, n, t0, t, t_ep, z)
                assert math.isfinite(v)


def test_index_of_is_the_plain_formula():
    """index_of, with the step constant, is the plain loops' expression bit for bit."""
    from cascading_bandits.bounds.indices import ucb1_radius_scalar

    rng = np.random.default_rng(1)
    for _ in range(300):
        t = int(rng.integers(1, 10**6))
        n = int(rng.integers(1, 10**4))
        s = int(rng.integers(0, n + 1))
        a15 = np.array([1.5])
        g = step_consts(np.int64(ist.UCB1), t, a15)
        assert index_of(np.int64(ist.UCB1), s, n, g, 0.0, a15) == s / n + ucb1_radius_scalar(
            t - 1.0, n, 1.5
        )
        ab = np.array([4.0, 6.0])
        lg = math.log(float(t))
        w = s / n
        u = min(w + (math.sqrt(4.0 * (w * (1.0 - w)) * lg / n) + 6.0 * lg / n), 1.0)
        g = step_consts(np.int64(ist.UCBV), t, ab)
        assert index_of(np.int64(ist.UCBV), s, n, g, 0.0, ab) == u
        z = float(rng.normal())
        lg = math.log(t + 1.0)
        sig = max(math.sqrt(w * (1.0 - w) * lg / (n + 1.0)), lg / (n + 1.0))
        g = step_consts(np.int64(ist.TSCASCADE), t, ab)
        assert index_of(np.int64(ist.TSCASCADE), s, n, g, z, ab) == w + z * sig


@pytest.mark.parametrize("L,K", [(1, 1), (5, 5), (40, 3), (1000, 7)])
def test_top_uniforms_is_select_top(L, K):
    key = np.uint64(99991)
    tops, out = np.empty(K), np.zeros(K, np.int64)
    for t in (1, 2, 77):
        top_uniforms(key, t, L, K, tops, out)
        idx = np.array([uniform_py(int(key), POLICY, t, e, L, 0) for e in range(L)])
        want = np.zeros(K, np.int64)
        select_top(idx, K, np.empty(L, np.bool_), want)
        np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("L", [1, 2, 63, 64, 65, 300, 2048, 65536])
def test_w0_table_is_states_new(L):
    """w0_table builds states_new's table of w_0 (N = 1, S in {0, 1}), array for array:
    random S, all 0, all 1, and one 1 at the end (the second state's first item last)."""
    from cascading_bandits.simulate.policies import _klucb_states as kst

    w0_table, states_new = python_twin(ist.w0_table), python_twin(kst.states_new)
    rng = np.random.default_rng(L)
    last = np.zeros(L, np.int64)
    last[-1] = 1
    for S in (
        (rng.random(L) < 0.2).astype(np.int64),
        np.zeros(L, np.int64),
        np.ones(L, np.int64),
        last,
    ):
        got = w0_table(S)
        want = states_new(S.reshape((1, L)), np.ones((1, L), np.int64))
        assert len(got) == len(want)
        for a, b in zip(got, want, strict=True):
            if isinstance(b, np.ndarray):
                assert a.dtype == b.dtype and a.shape == b.shape
                np.testing.assert_array_equal(a, b)
            else:
                assert a == b


def test_merge_smallest_is_the_smallest_ids():
    """_merge_smallest on states of spread ids (a word scan may cross hundreds of words):
    out[k:] holds the smallest ids of the union of the states, increasing, as far as they
    reach; the ids before k are kept."""
    from cascading_bandits.simulate.policies import _klucb_states as kst

    merge, states_new = python_twin(ist._merge_smallest), python_twin(kst.states_new)
    rng = np.random.default_rng(5)
    L = 9000
    for _ in range(60):
        # a few states of (S, N) = (s, 3), their items drawn far apart or in runs
        ns = int(rng.integers(1, 6))
        S = rng.integers(0, ns + 1, L)
        if rng.random() < 0.5:  # sparse: most items in state (ns, 3), few in the others
            S = np.where(rng.random(L) < 0.003, S, ns)
        sinfo, sval, bits, perm, pub, table, tmask, islot, meta = states_new(
            S.reshape((1, L)).astype(np.int64), np.full((1, L), 3, np.int64)
        )
        si, bi = sinfo[0], bits[0]
        slots = np.unique(islot[0])
        g = rng.choice(slots, size=int(rng.integers(1, slots.size + 1)), replace=False)
        m = int(rng.integers(1, 9))
        k = int(rng.integers(0, m))
        out = np.full(m, -7, np.int64)
        cur = np.zeros(slots.size, np.int64)
        cur[: g.size] = g
        k2 = merge(cur, np.int64(g.size), si, bi, out, np.int64(k), np.int64(m))
        ids = np.sort(np.flatnonzero(np.isin(islot[0], g)))[: m - k]
        assert k2 == k + ids.size
        np.testing.assert_array_equal(out[k:k2], ids)
        assert (out[:k] == -7).all()
