"""The engine against the paper's semantics, without going through tests/simulate/reference.py.

The equivalence tests compare the engine with a plain reference; a misreading written into
both survives them. These tests check the paper's rules directly:

* **replay** -- from the engine's own lists and clicks, rebuild the learner's state with the
  paper's observation rule (eq. (2): positions up to the click are observed, the clicked one
  attractive; no click, all K observed unattractive; DBN: the *last* click, Section 5.3) and
  check that every list is the top K of the paper's index on that state (CascadeUCB1:
  ``w_hat + sqrt(1.5 log(t - 1) / T)``; CascadeKL-UCB: ``log t + 3 log log t``), in
  decreasing order (Table 1, best-first) or increasing order (Table 2, worst-first), and that
  the final counts and the recorded regret are what the trace implies (on an 8-item instance
  in the cascade and DBN models, and on Table 1's first row, B_LB(16, 2, 0.2, 0.15), at
  reduced scale);
* **constructed state** -- with weights 1 and 0 every click is known in advance, so the step at
  which CascadeUCB1 first explores the worse item is a closed-form function of its constant;
* **oracle** -- its list is the best list by brute force over all ordered lists, in the cascade
  and the DBN model (per-item satisfaction probabilities, so ``rho`` alone ranks differently);
* **exact expected regret** -- for the first steps of tiny instances, the expected cumulative
  regret by enumerating every initial sample ``w_0`` and every click outcome, against the
  engine's mean over many runs (|z| < 5 at every step: a false alarm has probability below
  6e-7 per step);
* the paper's experiments use c = 3 (Section 3.2).

The engine is called only through :func:`cascading_bandits.simulate.engine.simulate_runs`
(:func:`_engine_trace` for lists and clicks; many runs for the expected regret).
"""

from __future__ import annotations

import functools
import itertools
import math

import numpy as np
import pytest

from cascading_bandits.bounds.instance import b_lb
from cascading_bandits.bounds.kl import klucb_index
from cascading_bandits.simulate.engine import simulate_runs
from cascading_bandits.simulate.experiments import Cell, b_lb_cell, get_experiment
from cascading_bandits.simulate.models import CascadeModel, DBNModel
from cascading_bandits.simulate.rng import policy_keys, users_keys

# ---------------------------------------------------------------------------------------
# the one place that calls the engine for lists and clicks
# ---------------------------------------------------------------------------------------


def _engine_trace(model, policy, order, horizon, seed=0, c=3.0):
    """One run of the engine: (regret (n,), counts (L,), lists (n, K), clicks (n, K), w0 (L,)).

    ``w0`` is the initial observed sample (Algorithm 1; the users' ATTRACT draw of step 0).
    """
    from cascading_bandits.simulate.engine import simulate_runs
    from cascading_bandits.simulate.rng import ATTRACT, policy_keys, uniform_py, users_keys

    ss = np.random.SeedSequence(seed)
    rho = np.array(model.weights if isinstance(model, CascadeModel) else model.rho)
    uk, pk = users_keys(ss, tuple(rho), 1), policy_keys(ss, 1)
    spec = f"cascade-klucb(c={float(c)!r})" if policy == "cascade-klucb" else policy
    regret, counts, lists, clicks = simulate_runs(
        model,
        spec,
        order,
        horizon,
        uk,
        pk,
        np.arange(1, horizon + 1),
        threads=1,
        trace_steps=horizon,
    )
    w0 = np.array(
        [uniform_py(int(uk[0]), ATTRACT, 0, e, rho.size) < rho[e] for e in range(rho.size)]
    )
    return regret[0], counts[0], lists[0], clicks[0], w0.astype(np.int64)


# ---------------------------------------------------------------------------------------
# the paper's rules, written here from the paper
# ---------------------------------------------------------------------------------------


def ucb1_index(S, N, t, const=1.5):
    """Section 3.2: U_t(e) = w_hat + c_{t-1,T}, c_{t,s} = sqrt(1.5 log t / s) (small-t rule)."""
    lg = math.log(t - 1) if t - 1 > 1 else 0.0
    return S / N + np.sqrt(const * lg / N)


def klucb_threshold(t, c=3.0):
    """Section 3.2: log t + 3 log log t (log t -> 0 at t <= 1, log log t -> 0 at t <= e)."""
    lg = math.log(t) if t > 1 else 0.0
    llg = math.log(math.log(t)) if t > math.e else 0.0
    return lg + c * llg


def paper_index(policy, S, N, t):
    if policy == "cascade-ucb1":
        return ucb1_index(S, N, t)
    return klucb_index(S / N, N.astype(float), klucb_threshold(t))


def observe(S, N, lst, clicks):
    """eq. (2) and Section 5.3: positions up to the last click observed, the click attractive."""
    hit = np.flatnonzero(clicks)
    last = int(hit[-1]) if hit.size else -1
    seen = lst[: last + 1] if last >= 0 else lst
    N[seen] += 1
    if last >= 0:
        S[lst[last]] += 1


def reward(model, lst):
    """Expected reward of a list: cascade 1 - prod(1 - w); DBN probability of satisfaction."""
    if isinstance(model, CascadeModel):
        return 1.0 - math.prod(1.0 - model.weights[e] for e in lst)
    total, reach = 0.0, 1.0
    for e in lst:
        wb = model.rho[e] * model.nu[e]
        total += reach * wb
        reach *= model.gamma * (1.0 - wb)
    return total


def best_reward(model):
    return max(reward(model, p) for p in itertools.permutations(range(model.L), model.K))


W8 = (0.6, 0.5, 0.45, 0.3, 0.25, 0.2, 0.1, 0.05)
MODELS = {
    "cascade": CascadeModel(W8, 3),
    "dbn": DBNModel(W8, 3, nu=0.7, gamma=0.7),
    # Table 1 / Table 2, first row: B_LB(16, 2, 0.2, 0.15), at reduced scale (one run)
    "table-row1": CascadeModel(tuple(b_lb(16, 2, 0.2, 0.15).weights), 2),
}
TIE = 1e-12  # indices closer than this are a tie as far as float evaluation order goes


@pytest.mark.parametrize("model_name", sorted(MODELS))
@pytest.mark.parametrize("order", ["best-first", "worst-first"])
@pytest.mark.parametrize("policy", ["cascade-ucb1", "cascade-klucb"])
def test_replay_lists_counts_and_regret(policy, order, model_name):
    model = MODELS[model_name]
    n = 1500
    regret, counts, lists, clicks, w0 = _engine_trace(model, policy, order, n, seed=7)
    L, K = model.L, model.K
    S, N = w0.copy(), np.ones(L, np.int64)  # Algorithm 1: T_0 = 1, w_hat = w_0
    fstar, cum = best_reward(model), 0.0
    explored = 0
    for t in range(1, n + 1):
        lst, clk = lists[t - 1], clicks[t - 1]
        assert len(set(lst.tolist())) == K
        idx = paper_index(policy, S, N, t)
        shown = idx[lst]
        rest = np.delete(idx, lst)
        # the K items of largest index (up to float ties) ...
        assert rest.size == 0 or shown.min() >= rest.max() - TIE, (t, lst, idx)
        # ... in decreasing (best-first) or increasing (worst-first) order of the index
        steps = np.diff(shown)
        if order == "best-first":
            assert (steps <= TIE).all(), (t, lst, shown)
        else:
            assert (steps >= -TIE).all(), (t, lst, shown)
        explored += (steps != 0).any()
        if isinstance(model, CascadeModel):
            assert clk.sum() <= 1  # the cascade user clicks at most once
        observe(S, N, lst, clk)
        cum += fstar - reward(model, lst)
        assert regret[t - 1] == pytest.approx(cum, rel=1e-9, abs=1e-12)
    assert explored > n // 10  # the order checks were not vacuous
    np.testing.assert_array_equal(counts, N)  # T_n(e): the observation rule, counted here


def test_dbn_learner_reads_the_last_click():
    """With several clicks, only the last one counts as attractive (Section 5.3)."""
    model = DBNModel((0.9, 0.85, 0.8, 0.1, 0.05), 3, nu=0.2, gamma=1.0)
    n = 400
    _, counts, lists, clicks, w0 = _engine_trace(model, "cascade-klucb", "best-first", n, seed=3)
    multi = int((clicks.sum(axis=1) >= 2).sum())
    assert multi > n // 4  # many steps have two or more clicks
    S, N = w0.copy(), np.ones(model.L, np.int64)
    for t in range(1, n + 1):
        observe(S, N, lists[t - 1], clicks[t - 1])
    np.testing.assert_array_equal(counts, N)
    # the first-click reading observes fewer positions: its counts are different
    N1 = np.ones(model.L, np.int64)
    for t in range(1, n + 1):
        lst, clk = lists[t - 1], clicks[t - 1]
        hit = np.flatnonzero(clk)
        first = int(hit[0]) if hit.size else model.K - 1
        N1[lst[: first + 1]] += 1
    assert N1.sum() < N.sum()


# ---------------------------------------------------------------------------------------
# constructed state: the UCB1 constant
# ---------------------------------------------------------------------------------------


def _first_exploration(const):
    """w = (1, 0), K = 1: item 0 is clicked at every step it is shown, so before item 1 is
    first shown, T(0) = t and w_hat(0) = 1 at step t, and T(1) = 1, w_hat(1) = 0. Item 1 is
    shown first at the smallest t with sqrt(const log(t-1)) > 1 + sqrt(const log(t-1) / t)."""
    for t in range(1, 10_000):
        S = np.array([t, 0])
        N = np.array([t, 1])
        idx = ucb1_index(S, N, t, const)
        if idx[1] > idx[0]:
            return t
    raise AssertionError("no exploration")


def test_ucb1_radius_constant_on_a_constructed_state():
    t15, t2 = _first_exploration(1.5), _first_exploration(2.0)
    assert (t15, t2) == (7, 6)  # the constant is visible in the trace
    model = CascadeModel((1.0, 0.0), 1)
    _, counts, lists, clicks, w0 = _engine_trace(model, "cascade-ucb1", "best-first", 200)
    assert w0.tolist() == [1, 0]
    shown1 = np.flatnonzero(lists[:, 0] == 1) + 1
    assert shown1[0] == t15
    np.testing.assert_array_equal(clicks[:, 0], (lists[:, 0] == 0).astype(np.int64))
    # and the whole sequence: replayed with the paper's index on the known state
    S, N = w0.copy(), np.ones(2, np.int64)
    for t in range(1, 201):
        idx = ucb1_index(S, N, t)
        expect = 1 if idx[1] > idx[0] else 0  # ties go to the smaller id
        assert lists[t - 1, 0] == expect, t
        observe(S, N, lists[t - 1], clicks[t - 1])
    np.testing.assert_array_equal(counts, N)


# ---------------------------------------------------------------------------------------
# the oracle
# ---------------------------------------------------------------------------------------

ORACLE_MODELS = {
    "cascade": CascadeModel((0.2, 0.7, 0.05, 0.5, 0.3), 3),
    # rho alone ranks 0 > 1 > 2 > 3 > 4; rho * nu ranks 3 > 2 > 4 > 1 > 0
    "dbn": DBNModel((0.9, 0.8, 0.7, 0.6, 0.5), 3, nu=(0.1, 0.3, 0.6, 0.9, 0.7), gamma=0.8),
    "dbn-gamma1": DBNModel((0.9, 0.8, 0.7, 0.6, 0.5), 2, nu=(0.1, 0.3, 0.6, 0.9, 0.7)),
}


@pytest.mark.parametrize("name", sorted(ORACLE_MODELS))
def test_oracle_shows_the_best_list(name):
    model = ORACLE_MODELS[name]
    perms = list(itertools.permutations(range(model.L), model.K))
    values = [reward(model, p) for p in perms]
    best = max(values)
    best_lists = {p for p, v in zip(perms, values, strict=True) if v >= best - 1e-15}
    regret, _, lists, _, _ = _engine_trace(model, "oracle", "best-first", 50)
    for lst in lists:
        assert tuple(lst.tolist()) in best_lists
    assert (regret == 0).all()
    _, _, lists_w, _, _ = _engine_trace(model, "oracle", "worst-first", 5)
    np.testing.assert_array_equal(lists_w, lists[:5, ::-1])


# ---------------------------------------------------------------------------------------
# exact expected regret of the first steps, by enumeration
# ---------------------------------------------------------------------------------------


def _outcomes(model, lst):
    """Every click vector on ``lst`` with its probability (cascade and DBN users)."""
    K = len(lst)
    if isinstance(model, CascadeModel):
        out, reach = [], 1.0
        for k, e in enumerate(lst):
            w = model.weights[e]
            out.append((tuple(int(i == k) for i in range(K)), reach * w))
            reach *= 1.0 - w
        out.append(((0,) * K, reach))
        return out
    res = {}

    def add(clicks, p):
        res[clicks] = res.get(clicks, 0.0) + p

    def walk(k, clicks, p):
        """Position k is examined with probability p (Section 5.3's user)."""
        if p == 0.0:
            return
        e = lst[k]
        rho, nu = model.rho[e], model.nu[e]
        go_on = model.gamma if k + 1 < K else 0.0
        clicked = clicks[:k] + (1,) + clicks[k + 1 :]
        add(clicked, p * rho * nu)  # attracted and satisfied: the user stops
        # attracted but not satisfied, or not attracted: on to k + 1 with probability gamma
        for clk, q in ((clicked, p * rho * (1.0 - nu)), (clicks, p * (1.0 - rho))):
            add(clk, q * (1.0 - go_on))
            if go_on > 0.0:
                walk(k + 1, clk, q * go_on)

    walk(0, (0,) * K, 1.0)
    return list(res.items())


def exact_expected_regret(model, policy, order, n):
    """E[R(t)] for t = 1..n, over w_0 and every click outcome of steps 1..n-1.

    Forward over the steps: the probability of each learner state (S, N) before step t
    (paths reaching the same state are merged, so each state's list is computed once).
    A copy of the array :func:`_exact_expected_regret` computes once per (frozen, hashable)
    model and arguments: test_enumeration_tells_the_readings_apart asks again for four of
    the settings of test_expected_regret_of_the_first_steps (about 0.2 CPU s each).
    """
    return _exact_expected_regret(model, policy, order, n).copy()


@functools.cache
def _exact_expected_regret(model, policy, order, n):
    """:func:`exact_expected_regret`, computed."""
    L, K = model.L, model.K
    rho = model.weights if isinstance(model, CascadeModel) else model.rho
    fstar = best_reward(model)
    per_step = np.zeros(n)
    level = {}
    for w0 in itertools.product((0, 1), repeat=L):
        p0 = math.prod(rho[e] if w0[e] else 1.0 - rho[e] for e in range(L))
        key = (w0, (1,) * L)
        level[key] = level.get(key, 0.0) + p0
    for t in range(1, n + 1):
        nxt = {}
        for (S, N), p in level.items():
            if p == 0.0:
                continue
            idx = paper_index(policy, np.array(S, np.int64), np.array(N, np.int64), t)
            top = sorted(range(L), key=lambda e: (-idx[e], e))[:K]
            lst = top if order == "best-first" else top[::-1]
            per_step[t - 1] += p * (fstar - reward(model, lst))
            if t == n:
                continue
            for clicks, q in _outcomes(model, lst):
                S2, N2 = np.array(S, np.int64), np.array(N, np.int64)
                observe(S2, N2, np.array(lst), np.array(clicks))
                key = (tuple(S2.tolist()), tuple(N2.tolist()))
                nxt[key] = nxt.get(key, 0.0) + p * q
        level = nxt
    return np.cumsum(per_step)


def test_outcome_probabilities():
    cas = CascadeModel((0.3, 0.6, 0.1), 3)
    outs = dict(_outcomes(cas, [1, 0, 2]))
    assert outs[(1, 0, 0)] == 0.6 and outs[(0, 1, 0)] == pytest.approx(0.4 * 0.3)
    assert outs[(0, 0, 0)] == pytest.approx(0.4 * 0.7 * 0.9)
    dbn = DBNModel((0.3, 0.6, 0.1), 3, 0.4, 0.7)
    outs = dict(_outcomes(dbn, [1, 0, 2]))
    assert math.fsum(outs.values()) == pytest.approx(1.0, abs=1e-15)
    # both of the first two clicked: 0.6 (not satisfied 0.6) gamma 0.3 (then stop or go on)
    both = outs[(1, 1, 0)] + outs[(1, 1, 1)]
    assert both == pytest.approx(0.6 * 0.6 * 0.7 * 0.3)
    # no click at all: not attracted at each position and persisting twice
    assert outs[(0, 0, 0)] == pytest.approx(
        0.4 * 0.7 * 0.7 * 0.7 * 0.9 + 0.4 * 0.7 * 0.7 * 0.3 + 0.4 * 0.3
    )


TINY = {
    "cascade": ("cascade", (0.7, 0.5, 0.4, 0.1), 2, 1.0, 1.0),
    "dbn": ("dbn", (0.7, 0.5, 0.4, 0.1), 2, 0.6, 0.8),
}


@functools.cache
def _tiny_keys(w, runs):
    """The runs' keys, made once for all the cases below (SeedSequence takes 36 us a key,
    3 s for 2 x 40,000; run_cell's own keys are tested in test_seeds_crn)."""
    ss = np.random.SeedSequence(2015)
    return users_keys(ss, w, runs), policy_keys(ss, runs)


@pytest.mark.parametrize("name", sorted(TINY))
@pytest.mark.parametrize("order", ["best-first", "worst-first"])
@pytest.mark.parametrize("policy", ["cascade-ucb1", "cascade-klucb"])
def test_expected_regret_of_the_first_steps(policy, order, name):
    kind, w, K, nu, gamma = TINY[name]
    n, runs = 6, 40_000
    model = CascadeModel(w, K) if kind == "cascade" else DBNModel(w, K, nu, gamma)
    exact = exact_expected_regret(model, policy, order, n)
    uk, pk = _tiny_keys(w, runs)
    regret = simulate_runs(model, policy, order, n, uk, pk, np.arange(1, n + 1), threads=1)[0]
    mean = regret.mean(axis=0)
    se = regret.std(axis=0, ddof=1) / math.sqrt(runs)
    z = (mean - exact) / np.maximum(se, 1e-12)
    assert (np.abs(z) < 5).all(), (exact, mean, z)
    assert exact[-1] > 0.1  # the instance is not trivial: the learner does pay regret


def test_enumeration_tells_the_readings_apart():
    """The enumeration is sensitive to the rules it is meant to pin (its own negative test)."""
    model = DBNModel((0.7, 0.5, 0.4, 0.1), 2, 0.6, 0.8)
    best = exact_expected_regret(model, "cascade-klucb", "best-first", 6)
    worst = exact_expected_regret(model, "cascade-klucb", "worst-first", 6)
    assert abs(best[-1] - worst[-1]) > 0.01
    cas = CascadeModel((0.7, 0.5, 0.4, 0.1), 2)
    b = exact_expected_regret(cas, "cascade-ucb1", "best-first", 6)
    assert abs(b[-1] - exact_expected_regret(cas, "cascade-klucb", "best-first", 6)[-1]) > 0.01


# ---------------------------------------------------------------------------------------
# the paper's constant c = 3
# ---------------------------------------------------------------------------------------


def test_paper_experiments_use_c_3():
    """Section 3.2: the KL-UCB threshold is log t + 3 log log t in every experiment."""
    assert b_lb_cell("x", 16, 2, 0.2, 0.15, "cascade-klucb").c == 3.0
    assert Cell("x", "y", "cascade", (0.5, 0.2), 1, "cascade-klucb").c == 3.0
    for name in ("table1", "table2", "dbn"):
        cells = get_experiment(name)
        assert cells and all(c.c == 3.0 for c in cells)
