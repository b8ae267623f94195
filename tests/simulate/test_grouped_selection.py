"""The grouped lazy KL-UCB selections (large L: many items share a state, see engine.GROUP_MIN).

On B_LB(300, 4, 0.2, 0.15) hundreds of items have identical (successes, observations)
states, hence identical indices, every step: the lazy engine (selection over the distinct
states, _klucb_states; ranked-klucb: one state table per bandit) must take the plain
loop's decisions bit for bit, and the reference's, also at the smallest L that select
over the states. Weights 0, 1 and 1/2 add ties across states (every S == N state has
index 1.0 exactly) and S == 0 states; the state table itself (hash, slot recycling and
growth, bitsets) is checked against a direct computation under random moves.
"""

import numpy as np
import pytest
from reference import reference_run
from registry_cases import assert_lazy_equals_plain

from cascading_bandits.bounds.indices import klucb_threshold_scalar
from cascading_bandits.bounds.instance import b_lb
from cascading_bandits.bounds.kl import klucb_scalar
from cascading_bandits.simulate.engine import GROUP_MIN, GROUP_MIN_RANKED, simulate_runs
from cascading_bandits.simulate.jitopts import python_twin
from cascading_bandits.simulate.models import make_model
from cascading_bandits.simulate.policies import _klucb_states as kst
from cascading_bandits.simulate.policies import kernel as kern
from cascading_bandits.simulate.rng import policy_keys, users_keys

# the helpers are compiled for kernels only: their Python-callable twins (same source)
_home, states_grow, states_move, states_new, states_top, select_top = (
    python_twin(f)
    for f in (kst._home, kst.states_grow, kst.states_move, kst.states_new, kst.states_top,
              kern.select_top)
)  # fmt: skip

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


#: steps of test_grouped_equals_plain: its default cases (the plain loop of the ranked
#: policies at L = 300 is slow: 6000 steps were 5 CPU s of the default run) and the slow tier's
SHORT, LONG = 3000, 6000


def _plain_cases():
    """(policy, model, order, steps): KLUCB_COMBOS over LONG steps in the slow tier (CI's
    -m slow); those on the cascade model over SHORT steps in the default run too. The
    default run takes the grouped path on the DBN model in test_grouped_equals_plain_ties
    (every combo, 3000 steps) and test_grouped_equals_plain_at_threshold (every policy,
    5000 steps)."""
    slow = [pytest.param(*c, LONG, marks=(pytest.mark.slow,)) for c in KLUCB_COMBOS]
    return [pytest.param(*c, SHORT) for c in KLUCB_COMBOS if c[1] == "cascade"] + slow


def test_plain_cases_cover_every_combo():
    """Every combo over LONG steps in the slow tier; the cascade ones over SHORT by default."""
    cases = _plain_cases()
    assert sorted(p.values[:3] for p in cases if p.marks) == sorted(KLUCB_COMBOS)
    assert all(p.values[3] == LONG for p in cases if p.marks)
    default = [p.values for p in cases if not p.marks]
    assert sorted(v[:3] for v in default) == sorted(c for c in KLUCB_COMBOS if c[1] == "cascade")
    assert all(v[3] == SHORT for v in default)


@pytest.mark.parametrize("policy,model,order,n", _plain_cases())
def test_grouped_equals_plain(policy, model, order, n):
    """``n`` steps on B_LB(300, 4, 0.2, 0.15), 200 checkpoints: the lazy selection over the
    states takes the plain loop's decisions."""
    weights = tuple(b_lb(L, K, 0.2, 0.15).weights)
    m, _, _ = _model(model, weights, K)
    ss = np.random.SeedSequence(11)
    uk, pk = users_keys(ss, weights, 2), policy_keys(ss, 2)
    cp = np.unique(np.linspace(1, n, 200).astype(np.int64))
    args = (m, policy, order, n, uk, pk, cp)
    assert_lazy_equals_plain(args)


def _ties_weights(L):
    """L weights cycling through 0, 1, 0.5 and 0.05: many S == N and S == 0 states."""
    return tuple(float(w) for w in np.resize([0.0, 1.0, 0.5, 0.05], L))


@pytest.mark.parametrize("policy,model,order", KLUCB_COMBOS)
def test_grouped_equals_plain_ties(policy, model, order):
    weights = _ties_weights(L)
    m, _, _ = _model(model, weights, K)
    ss = np.random.SeedSequence(13)
    uk, pk = users_keys(ss, weights, 2), policy_keys(ss, 2)
    n = 3000
    args = (m, policy, order, n, uk, pk, np.array([n]))
    assert_lazy_equals_plain(args)


@pytest.mark.parametrize("model", ["cascade", "dbn"])
@pytest.mark.parametrize(
    "policy,L_",
    [
        ("cascade-klucb", GROUP_MIN),
        ("ranked-klucb", GROUP_MIN_RANKED),
        ("ranked-klucb-rba", GROUP_MIN_RANKED),
    ],
)
def test_grouped_equals_plain_at_threshold(policy, L_, model):
    weights = tuple(b_lb(L_, K, 0.2, 0.15).weights)
    m, _, _ = _model(model, weights, K)
    ss = np.random.SeedSequence(16)
    uk, pk = users_keys(ss, weights, 2), policy_keys(ss, 2)
    n = 5000
    args = (m, policy, "best-first", n, uk, pk, np.array([n]))
    assert_lazy_equals_plain(args)


def _lookup(s, n, sinfo, table, tmask):
    """Slot of state (s, n) found by linear probing from its home entry, or -1."""
    i = _home(s, n, tmask)
    while table[i] >= 0:
        sl = table[i]
        if sinfo[sl, 0] == s and sinfo[sl, 1] == n:
            return sl
        i = (i + 1) & tmask
    return -1


def _check_table(S, N, tab):
    """The state table ``tab`` (rows of states_new's arrays) describes S, N (L,) exactly."""
    sinfo, sval, bits, perm, pub, table, tmask, islot, meta = tab
    alive = perm[: meta[0]]
    keys = {(int(S[e]), int(N[e])) for e in range(S.size)}
    assert len(alive) == len(keys) and len(set(alive.tolist())) == len(alive)
    assert sorted(perm.tolist()) == list(range(perm.size))
    for pos, sl in enumerate(alive):
        assert sinfo[sl, 7] == pos
        # pub: the bound of the state at that position, computed in the epoch meta[1] (or inf)
        if np.isfinite(pub[pos]):
            assert pub[pos] == sval[sl, 0] and sinfo[sl, 3] == meta[1]
    for sl in alive:
        s, n = int(sinfo[sl, 0]), int(sinfo[sl, 1])
        assert _lookup(s, n, sinfo, table, tmask) == sl
        members = np.nonzero((S == s) & (N == n))[0]
        assert sinfo[sl, 2] == members.size
        # bit b of word w is item 64 w + b (little-endian bytes, least significant bit first)
        flags = np.unpackbits(bits[sl].astype("<u8").view(np.uint8), bitorder="little")
        assert np.flatnonzero(flags).tolist() == members.tolist()
        assert all(islot[e] == sl for e in members)
        # the scans' word range: no item below word HINT (6) nor above word TOP (9)
        assert sinfo[sl, 6] <= members[0] >> 6 and sinfo[sl, 9] >= members[-1] >> 6
    # states_pick's sorted run perm[:meta[2]]: bounds of the epoch meta[1], increasing
    run = pub[: meta[2]]
    assert 0 <= meta[2] <= meta[0] and np.isfinite(run).all() and (np.diff(run) >= 0).all()
    for sl in perm[meta[0] :]:
        assert not bits[sl].any()
    assert (table >= 0).sum() == len(alive)


def _plain_top(S, N, th, m):
    idx = np.array(
        [klucb_scalar(S[e] / N[e] if N[e] else 0.0, float(N[e]), th) for e in range(S.size)]
    )
    out = np.zeros(m, np.int64)
    select_top(idx, m, np.empty(S.size, np.bool_), out)
    return out


@pytest.mark.parametrize("L_,nmax,seed", [(300, 25, 0), (130, 12, 1), (64, 12, 2)])
def test_state_table_under_random_moves(L_, nmax, seed):
    """Two tables (as ranked-klucb's bandits) of random counts with many states (> the
    initial 64 slots: growth), then random observations; after each step every table is
    exact and states_top is select_top's list on the exact indices (ties: S == N, S == 0,
    S == 1 over many N, and N == 0 in the second table)."""
    rng = np.random.default_rng(seed)
    N = rng.integers(1, nmax, (2, L_)).astype(np.int64)
    N[1] -= 1
    kind = rng.integers(0, 4, (2, L_))
    S = np.where(
        kind == 0, 0, np.where(kind == 1, N, np.where(kind == 2, 1, rng.integers(0, N + 1)))
    )
    S = np.minimum(S, N).astype(np.int64)
    tab = list(states_new(S, N))
    for b in range(2):
        _check_table(S[b], N[b], [x if i == 6 else x[b] for i, x in enumerate(tab)])
    m = 5
    tops, cand, cur = np.empty(m), np.empty(L_, np.int64), np.empty(L_, np.int64)
    sel = np.zeros((2, m), np.int64)
    ninc, t_ep, th_ep = 0, 0, 0.0
    for t in range(1, 120):
        th = klucb_threshold_scalar(float(t), 3.0)
        if t > t_ep:
            t_ep = t + t // 8 + 1
            th_ep = klucb_threshold_scalar(float(t_ep), 3.0)
        sinfo, sval, bits, perm, pub, table, tmask, islot, meta = tab
        if perm.shape[1] - meta[:, 0].max() < m:
            tab[:7] = states_grow(sinfo, sval, bits, perm, pub, table)
            sinfo, sval, bits, perm, pub, table, tmask = tab[:7]
        for b in range(2):
            states_top(t, th, t_ep, th_ep, sel[b], ninc, m, islot[b], sinfo[b], sval[b],
                       bits[b], perm[b], pub[b], meta[b], tops, cand, cur, sel[b])  # fmt: skip
            np.testing.assert_array_equal(sel[b], _plain_top(S[b], N[b], th, m))
            moved = rng.choice(L_, size=m, replace=False) if t % 3 else sel[b].copy()
            for e in moved:
                N[b, e] += 1
                S[b, e] += rng.integers(0, 2)
                states_move(e, S[b], N[b], islot[b], sinfo[b], sval[b], bits[b], perm[b],
                            pub[b], table[b], tmask, meta[b])  # fmt: skip
            _check_table(S[b], N[b], [x if i == 6 else x[b] for i, x in enumerate(tab)])
        ninc = m


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


@pytest.mark.parametrize("model", ["cascade", "dbn"])
def test_grouped_equals_reference_ties(model):
    weights = _ties_weights(L)
    m, nu, gamma = _model(model, weights, K)
    ss = np.random.SeedSequence(14)
    uk, pk = users_keys(ss, weights, 1), policy_keys(ss, 1)
    n = 600
    _, counts, trace, _ = simulate_runs(
        m, "cascade-klucb", "best-first", n, uk, pk, np.array([n]), threads=1, trace_steps=n
    )
    lists, _, _, ref_counts = reference_run(
        model, weights, K, "cascade-klucb", "best-first", n, uk[0], pk[0], nu, gamma
    )
    np.testing.assert_array_equal(trace[0], np.array(lists))
    np.testing.assert_array_equal(counts[0], np.array(ref_counts))


@pytest.mark.slow
@pytest.mark.parametrize("model", ["cascade", "dbn"])
def test_grouped_equals_plain_2048(model):
    """cascade-klucb on the benchmark's instance B_LB(2048, 4, 0.2, 0.15), 2e4 steps."""
    weights = tuple(b_lb(2048, K, 0.2, 0.15).weights)
    m, _, _ = _model(model, weights, K)
    ss = np.random.SeedSequence(15)
    uk, pk = users_keys(ss, weights, 2), policy_keys(ss, 2)
    n = 20000
    args = (m, "cascade-klucb", "best-first", n, uk, pk, np.array([n]))
    assert_lazy_equals_plain(args, threads=2)


@pytest.mark.parametrize("policy", ["ranked-klucb", "ranked-klucb-rba"])
@pytest.mark.parametrize("L_,n", [(2048, 1500), (65536, 120)])
def test_ranked_grouped_equals_plain_large_L(policy, L_, n):
    """ranked-klucb's K state tables (per-bandit rows taken in the step's helpers, brackets
    from each state's kept reference point) at the benchmark's item counts."""
    weights = tuple(b_lb(L_, K, 0.2, 0.15).weights)
    m, _, _ = _model("cascade", weights, K)
    ss = np.random.SeedSequence(17)
    uk, pk = users_keys(ss, weights, 1), policy_keys(ss, 1)
    args = (m, policy, "best-first", n, uk, pk, np.unique(np.linspace(1, n, 30).astype(np.int64)))
    assert_lazy_equals_plain(args)


@pytest.mark.slow
def test_ranked_grouped_equals_plain_2048_long():
    """ranked-klucb on B_LB(2048, 4, 0.2, 0.15) for 2e4 steps (states with many
    observations, references moved by many thresholds)."""
    weights = tuple(b_lb(2048, K, 0.2, 0.15).weights)
    m, _, _ = _model("cascade", weights, K)
    ss = np.random.SeedSequence(19)
    uk, pk = users_keys(ss, weights, 2), policy_keys(ss, 2)
    n = 20000
    assert_lazy_equals_plain((m, "ranked-klucb", "best-first", n, uk, pk, np.array([n])), threads=2)
