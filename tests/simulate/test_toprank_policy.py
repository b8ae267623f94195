"""TopRank (simulate.policies.toprank) beyond the registry-driven equivalence test.

The kernel peels its blocks again only from the first block that gained an edge; the
reference (tests/simulate/reference/toprank.py) peels them from scratch: the partition
helper is checked against that on random relations (cycles included), and whole runs
long enough to build several blocks are checked step by step. Then what the policy must
do: delta = 1 means 1/n, every click counts (not the last one), the order inside a block
is uniformly random, the learned list is the optimal one, L beyond the limit and the
worst-first order are refused; and the inequality behind the gap-free bound,
E sum_pairs N_ij <= 2 K^2 n (docs/toprank.md), on the reference's statistics.
"""

import math

import numpy as np
import pytest
from reference.common import clicks_py, setting
from reference.toprank import blocks_of, reference_run
from scipy import stats

from cascading_bandits.bounds.toprank import toprank_threshold_scalar
from cascading_bandits.simulate.engine import simulate_runs
from cascading_bandits.simulate.models import make_model
from cascading_bandits.simulate.policies import order_code, parse_policy
from cascading_bandits.simulate.policies.toprank import MAX_ITEMS, partition_from
from cascading_bandits.simulate.rng import POLICY, policy_keys, uniform_py, users_keys


def _keys(weights, runs=1, seed=2024):
    ss = np.random.SeedSequence(seed)
    return users_keys(ss, weights, runs), policy_keys(ss, runs)


def _run(model, w, K, policy, n, runs=1, seed=2024, **kw):
    m = make_model(model, w, K, **kw)
    uk, pk = _keys(w, runs, seed)
    out = simulate_runs(
        m, policy, "best-first", n, uk, pk, np.arange(1, n + 1), threads=1, trace_steps=n
    )
    return out, uk, pk


# ---------------------------------------------------------------------------------------
# the partition: incremental peeling == peeling from scratch
# ---------------------------------------------------------------------------------------
def _partition(G_set, L, d0=0, state=None):
    """partition_from (plain Python execution of its source) on a set relation."""
    G = np.zeros(L * L, np.bool_)
    for a, b in G_set:
        G[a * L + b] = True
    if state is None:
        perm, bstart, blk = np.arange(L), np.zeros(L + 1, np.int64), np.zeros(L, np.int64)
        bstart[1] = L
    else:
        perm, bstart, blk = (x.copy() for x in state)
    nb = partition_from.py_func(G, L, d0, perm, bstart, blk, np.zeros(L, np.int64))
    blocks = [sorted(perm[bstart[d] : bstart[d + 1]].tolist()) for d in range(nb)]
    assert all(blk[e] == d for d, b in enumerate(blocks) for e in b)
    return blocks, (perm, bstart, blk)


def test_partition_from_scratch_equals_the_reference_peeling():
    rng = np.random.default_rng(5)
    cycles = 0
    for _ in range(300):
        L = int(rng.integers(1, 9))
        G = {(a, b) for a in range(L) for b in range(L) if a != b and rng.random() < 0.2}
        want = blocks_of(G, L)
        cycles += len(want[-1]) > 1 and any((a, b) in G for a in want[-1] for b in want[-1])
        assert _partition(G, L)[0] == want, (L, sorted(G))
    assert cycles > 10  # the fallback (a rest without minimal items) was exercised


def test_partition_again_from_the_block_that_gained_an_edge():
    """The kernel's case: edges added inside block d0 only, peeled again from d0."""
    rng = np.random.default_rng(6)
    tried = 0
    for _ in range(400):
        L = int(rng.integers(2, 9))
        # an acyclic relation: edges from higher to lower ids of a random order
        rank = rng.permutation(L)
        G = {(a, b) for a in range(L) for b in range(L) if rank[a] > rank[b] and rng.random() < 0.3}
        blocks, state = _partition(G, L)
        d0 = int(rng.integers(len(blocks)))
        b = blocks[d0]
        if len(b) < 2:
            continue
        new = {(x, y) for x in b for y in b if x != y and rng.random() < 0.3}
        G2 = G | new
        assert _partition(G2, L, d0, state)[0] == blocks_of(G2, L), (L, sorted(G2), d0)
        tried += 1
    assert tried > 100


# ---------------------------------------------------------------------------------------
# whole runs, step by step, with many blocks
# ---------------------------------------------------------------------------------------
CASES = [
    ("cascade", (0.95, 0.8, 0.6, 0.45, 0.3, 0.2, 0.1, 0.05, 0.03, 0.01), 4, {}),
    ("pbm", (0.95, 0.8, 0.6, 0.45, 0.3, 0.2, 0.1, 0.05), 3, {}),
    ("dbn", (0.95, 0.8, 0.6, 0.45, 0.3, 0.2, 0.1, 0.05), 3, {"nu": 0.5, "gamma": 0.8}),
    ("dcm", (0.95, 0.8, 0.6, 0.45, 0.3, 0.2, 0.1, 0.05), 3, {}),
]


@pytest.mark.parametrize("model,w,K,kw", CASES, ids=[c[0] for c in CASES])
def test_kernel_equals_reference_over_many_blocks(model, w, K, kw):
    n, spec = 2500, "toprank(delta=0.05)"
    (regret, counts, lists, clicks), uk, pk = _run(model, w, K, spec, n, **kw)
    out = {}
    ref = reference_run(
        model, w, K, parse_policy(spec), "best-first", n, uk[0], pk[0],
        kw.get("nu", 1.0), kw.get("gamma", 1.0), out=out,
    )  # fmt: skip
    assert out["blocks"] >= 3 and len(out["G"]) >= 8  # the partial order was built
    ref_lists = np.array(ref[0])
    diff = np.flatnonzero((lists[0] != ref_lists).any(axis=1))
    assert diff.size == 0, f"first different list at t = {diff[0] + 1}"
    np.testing.assert_array_equal(clicks[0], np.array(ref[1]))
    np.testing.assert_array_equal(regret[0], np.array(ref[2]))
    np.testing.assert_array_equal(counts[0], np.array(ref[3]))


def test_delta_one_means_one_over_the_horizon():
    w, K, n = (0.9, 0.6, 0.4, 0.3, 0.1, 0.05), 2, 1500
    a = _run("cascade", w, K, "toprank", n)[0][2]
    b = _run("cascade", w, K, f"toprank(delta={1 / n!r})", n)[0][2]
    c = _run("cascade", w, K, "toprank(delta=0.5)", n)[0][2]
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


def test_every_click_counts_not_only_the_last():
    """In the DBN model with nu < 1 a user clicks several items: the kernel follows the
    reference that updates its pairs from all clicks, and leaves one fed the last click."""
    model, w, K, nu, gamma, n = "dbn", (0.9, 0.85, 0.8, 0.3, 0.2, 0.1), 3, 0.2, 1.0, 1500
    (_, _, lists, clicks), uk, pk = _run(model, w, K, "toprank(delta=0.05)", n, nu=nu, gamma=gamma)
    assert (clicks[0].sum(axis=1) >= 2).sum() > 100  # many multi-click steps
    last_only = _last_click_run(model, w, K, 0.05, n, uk[0], pk[0], nu, gamma)
    assert not np.array_equal(lists[0], np.array(last_only))


def _last_click_run(model, weights, K, delta, horizon, ukey, pkey, nu, gamma):
    """The reference's TopRank, but C_i = 1 for the last clicked item only."""
    rho, nus, g, _, _ = setting(model, weights, K, nu, gamma)
    L = len(rho)
    G, S, N, lists = set(), {}, {}, []
    for t in range(1, horizon + 1):
        blocks = blocks_of(G, L)
        block = {e: d for d, b in enumerate(blocks) for e in b}
        u = [uniform_py(int(pkey), POLICY, t, e, L) for e in range(L)]
        lst = sorted(range(L), key=lambda e: (block[e], -u[e], e))[:K]
        clicks = clicks_py(model, rho, nus, g, lst, t, int(ukey))
        C = [0] * L
        last = max((k for k in range(K) if clicks[k]), default=-1)
        if last >= 0:
            C[lst[last]] = 1
        for b in blocks:
            for i in b:
                for j in b:
                    if i != j:
                        S[i, j] = S.get((i, j), 0) + C[i] - C[j]
                        N[i, j] = N.get((i, j), 0) + abs(C[i] - C[j])
        for (i, j), nij in N.items():
            if nij > 0 and S[i, j] >= toprank_threshold_scalar(float(nij), delta):
                G.add((j, i))
        lists.append(lst)
    return lists


def test_the_order_inside_a_block_is_uniformly_random():
    """At step 1 the relation is empty: one block, so the list shown is a uniformly random
    ordered choice of K of the L items (chi-square over 2400 policy keys)."""
    w, K, runs = (0.7, 0.5, 0.3, 0.1), 2, 2400
    m = make_model("cascade", w, K)
    uk, pk = _keys(w, runs, seed=9)
    _, _, lists, _ = simulate_runs(
        m, "toprank", "best-first", 1, uk, pk, np.array([1]), threads=1, trace_steps=1
    )
    L = len(w)
    code = lists[:, 0, 0] * L + lists[:, 0, 1]
    seen = np.bincount(code, minlength=L * L).reshape(L, L)
    assert np.all(np.diag(seen) == 0)
    obs = seen[~np.eye(L, dtype=bool)]
    assert obs.size == math.perm(L, K)
    p = stats.chisquare(obs).pvalue
    assert p > 1e-4, (obs, p)
    # and it is the policy stream's order: decreasing uniform of (1, e)
    for r in range(20):
        u = [uniform_py(int(pk[r]), POLICY, 1, e, L) for e in range(L)]
        assert lists[r, 0].tolist() == sorted(range(L), key=lambda e: (-u[e], e))[:K]


@pytest.mark.parametrize("model", ["cascade", "pbm", "dbn", "dcm"])
def test_it_learns_the_optimal_list(model):
    w, K, n = (0.9, 0.6, 0.3, 0.05, 0.05, 0.05), 2, 20000
    kw = {"nu": 0.7, "gamma": 0.7} if model == "dbn" else {}
    m = make_model(model, w, K, **kw)
    uk, pk = _keys(w, 3, seed=7)
    regret, _, lists, _ = simulate_runs(
        m, "toprank", "best-first", n, uk, pk, np.array([n // 2, n]), threads=1, trace_steps=n
    )
    assert np.all(lists[:, -2000:] == np.array([0, 1]))  # the best items, best first
    assert np.all(regret[:, 1] - regret[:, 0] < 0.05 * regret[:, 0])  # no regret late on


def test_too_many_items_and_worst_first_are_refused():
    K = 2
    w = tuple(np.linspace(0.9, 0.01, MAX_ITEMS + 1))
    m = make_model("cascade", w, K)
    uk, pk = _keys(w[:4])
    with pytest.raises(ValueError, match=f"at most L = {MAX_ITEMS} items"):
        simulate_runs(m, "toprank", "best-first", 10, uk, pk, np.array([10]), threads=1)
    with pytest.raises(ValueError, match="toprank allows only order best-first"):
        order_code("worst-first", "toprank")
    for bad in ("toprank(delta=0)", "toprank(delta=1.5)", "toprank(delta=-0.1)"):
        with pytest.raises(ValueError, match=r"delta must be finite and in \(0, 1\]"):
            parse_policy(bad)


def test_pairs_of_the_best_items_are_compared_at_most_2_K2_n_times():
    """The ingredient of the gap-free bound derived in docs/toprank.md: the pairs (i, j),
    i <= K, i < j (by decreasing attractiveness) differ in at most 2 K^2 n rounds in
    expectation. Mean over runs of the reference's N, on instances with many clicks."""
    n = 400
    for model, w, K, nu in [
        ("cascade", (0.5,) * 8, 2, 1.0),  # one block throughout
        ("dbn", (0.9,) * 6, 3, 0.2),  # about K clicks a step
        ("cascade", (0.9, 0.8, 0.7, 0.2, 0.1, 0.05), 3, 1.0),
    ]:
        rank = {e: r for r, e in enumerate(sorted(range(len(w)), key=lambda e: (-w[e], e)))}
        totals = []
        for r in range(4):
            uk, pk = _keys(w, 1, seed=100 + r)
            out = {}
            reference_run(
                model, w, K, parse_policy("toprank"), "best-first", n, uk[0], pk[0], nu, 1.0,
                out=out,
            )  # fmt: skip
            totals.append(
                sum(v for (i, j), v in out["N"].items() if rank[i] < rank[j] and rank[i] < K)
            )
        assert 0 < np.mean(totals) <= 2 * K * K * n, (model, w, K, totals)
