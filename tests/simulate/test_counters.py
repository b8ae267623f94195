"""Proof counters (simulate.counters) against a plain reference, identities and expectations.

The reference below is written from the paper (Theorem 1's events and permutation, the bad
events of Appendix A) with the index formulas of ``cascading_bandits.bounds`` (one step at a
time, plain loops); it shares nothing with the numba replay but the trace it reads.
"""

import math

import numpy as np
import pytest
from scipy import stats

from cascading_bandits.bounds.decomposition import (
    conditional_regret,
    recommended_list,
    theorem1_alpha,
    theorem1_permutation,
)
from cascading_bandits.bounds.indices import cascade_klucb_index, ucb1_index, ucb1_radius
from cascading_bandits.simulate.counters import (
    initial_weights,
    replay_counters,
    run_counters,
    traced_runs,
)
from cascading_bandits.simulate.experiments import Cell, b_lb_cell
from cascading_bandits.simulate.rng import policy_keys, uniform_py, users_keys
from cascading_bandits.simulate.runner import run_cell

INSTANCES = {
    # distinct gaps, unsorted ids (pi_t and Delta_{e,e*} matter), and a tie among optimal items
    "mixed": ((0.3, 0.05, 0.6, 0.2, 0.45, 0.1, 0.45), 3),
    "blb": ((0.2, 0.2, 0.05, 0.05, 0.05), 2),
}


def reference_counters(weights, K, policy, order, lists, clicks, w0, tau, c=3.0):
    """Plain per-step computation of every counter of simulate.counters."""
    w = [float(x) for x in weights]
    L = len(w)
    items = sorted(range(L), key=lambda e: -w[e])  # the paper's items 1..L (ties: lower id)
    rank = {e: r for r, e in enumerate(items)}
    S = [int(x) for x in w0]
    N = [1] * L
    z = lambda: [[0] * K for _ in range(L - K)]  # noqa: E731
    G, Gg, M, Mg, Mbg = z(), z(), z(), z(), z()
    out = dict.fromkeys(
        ("bad_steps", "regret", "regret_bad", "thm1_upper_good", "thm1_exact", "thm1_exact_good"),
        0.0,
    )
    mism = 0
    n = len(lists)
    below = [0] * K
    bpath = [0.0] * (L - K)
    opt_w = [w[e] for e in items[:K]]
    for t in range(1, len(lists) + 1):
        A = [int(x) for x in lists[t - 1]]
        means = np.array(S, float) / np.array(N, float)
        if policy == "cascade-ucb1":
            U = ucb1_index(means, np.array(N, float), t)
            rad = ucb1_radius(t - 1.0, np.array(N, float))
            bad = any(abs(w[e] - means[e]) >= rad[e] for e in range(L))  # E_t, eq. (10)
        else:
            U = cascade_klucb_index(means, np.array(N, float), t, c)
            bad = any(w[e] > U[e] for e in items[:K])  # E_t of the KL-UCB proof
        for j, e in enumerate(items[:K]):
            below[j] += U[e] < w[e]
        # the index of each item at the horizon's radius / threshold (binomial bounds' B-part)
        if policy == "cascade-ucb1":
            Un = np.asarray(means) + ucb1_radius(n - 1.0, np.array(N, float))
        else:
            Un = cascade_klucb_index(means, np.array(N, float), n, c)
        want = recommended_list(U, K, "decreasing" if order == "best-first" else "increasing")
        mism += want != A
        pi = theorem1_permutation(A, w, K)
        click = [k for k in range(K) if clicks[t - 1][k] == 1]
        C = click[-1] if click else K  # 0-based position of the click (K: none)
        r_t = float(conditional_regret(A, w, K))
        out["regret"] += r_t
        if bad:
            out["bad_steps"] += 1
            out["regret_bad"] += r_t
        for k in range(K):
            e, es = A[k], pi[k]
            if rank[e] < K:
                continue
            i, j = rank[e] - K, rank[es]
            d = w[es] - w[e]
            if not bad:
                out["thm1_upper_good"] += d * math.prod(1 - w[a] for a in A[:k])
            if k <= C and k < K:  # observed: no click above position k
                tail = math.prod(1 - w[p] for p in pi[k + 1 :])
                G[i][j] += 1
                bpath[i] += max([o - w[e] for o in opt_w if o <= Un[e]], default=0.0)
                out["thm1_exact"] += d * tail
                low = N[e] <= tau[i][j]
                M[i][j] += low
                if not bad:
                    Gg[i][j] += 1
                    out["thm1_exact_good"] += d * tail
                    Mg[i][j] += low
                    Mbg[i][j] += not low
        for k in range(min(C + 1, K)):
            N[A[k]] += 1
            S[A[k]] += k == C
    out.update(G=G, G_good=Gg, M=M, M_good=Mg, Mbar_good=Mbg, T=N, mismatches=mism)
    out.update(below=below, bpath=bpath)
    return out


def _trace(weights, K, policy, order, n, seed, runs=1):
    from cascading_bandits.simulate.models import CascadeModel

    ss = np.random.SeedSequence(seed)
    uk, pk = users_keys(ss, weights, runs), policy_keys(ss, runs)
    _, counts, lists, clicks = traced_runs(CascadeModel(weights, K), policy, order, n, 3.0, uk, pk)
    return uk, counts, lists, clicks


@pytest.mark.parametrize("instance", sorted(INSTANCES))
@pytest.mark.parametrize("policy", ["cascade-ucb1", "cascade-klucb"])
@pytest.mark.parametrize("order", ["best-first", "worst-first"])
def test_replay_equals_reference(instance, policy, order):
    weights, K = INSTANCES[instance]
    n = 1500
    uk, counts, lists, clicks = _trace(weights, K, policy, order, n, seed=11)
    w0 = initial_weights(weights, uk[0])
    # w_0 is the users' step-0 draw (checked against the independent integer SplitMix64)
    L = len(weights)
    assert w0.tolist() == [int(uniform_py(uk[0], 0, 0, e, L) < weights[e]) for e in range(L)]
    rng = np.random.default_rng(5)
    tau = rng.uniform(2, 60, size=(L - K, K))  # finite thresholds so M, Mbar both move
    got = replay_counters(weights, K, policy, order, lists[0], clicks[0], w0, tau)
    ref = reference_counters(weights, K, policy, order, lists[0], clicks[0], w0, tau)
    assert got["mismatches"] == 0 and ref["mismatches"] == 0
    for name in ("G", "G_good", "M", "M_good", "Mbar_good", "T", "below"):
        assert np.asarray(got[name]).tolist() == np.asarray(ref[name]).tolist(), name
    assert got["bpath"] == pytest.approx(ref["bpath"], rel=1e-12, abs=1e-12)
    assert sum(ref["bpath"]) > 0  # the B-part moved
    assert got["bad_steps"] == ref["bad_steps"]
    if policy == "cascade-ucb1":
        assert got["bad_steps"] >= 1  # c_{0,s} = 0 (small-t rule): E_1 holds
    for name in ("regret", "regret_bad", "thm1_upper_good", "thm1_exact", "thm1_exact_good"):
        assert got[name] == pytest.approx(ref[name], rel=1e-12, abs=1e-9), name
    assert np.asarray(got["T"]).tolist() == counts[0].tolist()  # the engine's T_n(e)


def test_replay_detects_a_foreign_trace():
    """A trace that is not the policy's (lists swapped) shows up as mismatches."""
    weights, K = INSTANCES["mixed"]
    uk, _, lists, clicks = _trace(weights, K, "cascade-klucb", "best-first", 400, seed=3)
    w0 = initial_weights(weights, uk[0])
    got = replay_counters(
        weights, K, "cascade-klucb", "worst-first", lists[0], clicks[0], w0, check=True
    )
    assert got["mismatches"] > 0


@pytest.mark.parametrize("policy", ["cascade-ucb1", "cascade-klucb"])
@pytest.mark.parametrize("order", ["best-first", "worst-first"])
def test_identity_and_engine_agreement(policy, order):
    """sum_{e*} #G_{e,e*} = T_n(e) - 1 per suboptimal e; regret = run_cell's; counters off
    changes nothing (the same seed gives run_cell's numbers)."""
    cell = b_lb_cell("t", 8, 3, 0.2, 0.1, policy, order, horizon=3000, runs=4)
    pc = run_counters(cell, 7, max_trace_bytes=2 * 3000 * 3 * 8 * 3)  # chunks of 3 and 1 runs
    inst_rank = np.argsort(-np.array(cell.weights), kind="stable")
    sub = inst_rank[cell.K :]
    np.testing.assert_array_equal(pc.G.sum(axis=2), pc.T[:, sub] - 1)
    assert (pc.mismatches == 0).all()
    rc = run_cell(cell, 7)
    np.testing.assert_array_equal(pc.T, rc.counts)
    np.testing.assert_allclose(pc.engine_regret, rc.final_regret, rtol=0, atol=0)
    np.testing.assert_allclose(pc.regret, rc.final_regret, rtol=1e-12)
    assert (pc.G_good <= pc.G).all() and (pc.M_good + pc.Mbar_good == pc.G_good).all()


def test_theorem1_in_expectation():
    """E[thm1_exact] = E[regret] (Theorem 1's proof: equality in conditional expectation), and
    alpha * upper <= regret <= upper on the good steps, statistically (99.9%, t intervals)."""
    w, K = (0.5, 0.4, 0.3, 0.25, 0.1), 3
    cell = Cell("t", "thm1", "cascade", w, K, "cascade-ucb1", "worst-first", 400, 300)
    pc = run_counters(cell, 123)
    q = stats.t.ppf(0.9995, pc.runs - 1)

    def ci(x):
        return x.mean(), q * x.std(ddof=1) / math.sqrt(x.size)

    m, h = ci(pc.thm1_exact - pc.regret)
    assert abs(m) <= h, (m, h)
    assert h < 0.05 * pc.regret.mean()  # the test has teeth: the interval is narrow
    good = pc.regret - pc.regret_bad
    m, h = ci(pc.thm1_upper_good - good)
    assert m - h > 0  # strict here: the upper sum drops the tail factors (1 - w(pi(j))) < 1
    m, h = ci(good - theorem1_alpha(w, K) * pc.thm1_upper_good)
    assert m - h > 0


def test_bad_input():
    weights, K = INSTANCES["mixed"]
    lists = np.zeros((3, K), np.int64) + np.arange(K)
    clicks = np.zeros((3, K), np.int64)
    w0 = np.zeros(len(weights), np.int64)
    with pytest.raises(ValueError, match="policy"):
        replay_counters(weights, K, "cascade-ts", "best-first", lists, clicks, w0)
    with pytest.raises(ValueError, match="tau"):
        replay_counters(weights, K, "cascade-ucb1", "best-first", lists, clicks, w0, np.ones(3))
    with pytest.raises(ValueError, match="w0"):
        replay_counters(weights, K, "cascade-ucb1", "best-first", lists, clicks, w0[:-1])
    with pytest.raises(ValueError, match="lists"):
        replay_counters(weights, K, "cascade-ucb1", "best-first", lists[:, :2], clicks, w0)
    with pytest.raises(ValueError, match="order"):
        replay_counters(weights, K, "cascade-ucb1", "sideways", lists, clicks, w0)
    dbn = b_lb_cell("t", 8, 3, 0.2, 0.1, "cascade-klucb", model="dbn", nu=0.7, horizon=10, runs=1)
    with pytest.raises(ValueError, match="model"):
        run_counters(dbn, 0)
    with pytest.raises(TypeError, match="cell"):
        run_counters({"policy": "cascade-ucb1"}, 0)
