"""ranked-klucb's selection over a bandit's states (``_klucb_states.states_pick``).

Bandit k of ranked-klucb picks the item of largest KL-UCB index and shows its best item not
shown above (ties to the smaller id). ``states_pick`` finds the two over the distinct
(S, N) states without listing the k + 1 best; here it is checked against the definition
(every item's exact index, ``klucb_scalar``, sorted by index then id) on tables of random
counts with many ties (S == N, S == 0, S == 1 over many N, N == 0), many states (the
tables grow), random sets of shown items (none to four, some of them in the top states)
and random moves, over thresholds that cross several epochs of upper bounds.
"""

import numpy as np
import pytest

from cascading_bandits.bounds.indices import klucb_threshold_scalar
from cascading_bandits.bounds.kl import klucb_scalar
from cascading_bandits.simulate.jitopts import python_twin
from cascading_bandits.simulate.policies import _klucb_states as kst

# the helpers are compiled for kernels only: their Python-callable twins (same source)
states_new, states_grow, states_move, states_pick = (
    python_twin(f) for f in (kst.states_new, kst.states_grow, kst.states_move, kst.states_pick)
)


def _check_run(sinfo, sval, perm, pub, meta):
    """The alive states' positions, and states_pick's sorted run perm[:meta[2]]: bounds of
    the epoch meta[1] (each its state's), increasing."""
    na, ns = meta[0], meta[2]
    assert 0 <= ns <= na
    for pos in range(na):
        assert sinfo[perm[pos], kst._POS] == pos
    for pos in range(ns):
        sl = perm[pos]
        assert sinfo[sl, kst._UBT] == meta[1] and pub[pos] == sval[sl, kst._UB]
        assert pos == 0 or pub[pos - 1] <= pub[pos]


def _definition(S, N, th, shown):
    """(pick, best item not shown) from every item's exact index: index desc, id asc."""
    idx = [klucb_scalar(S[e] / N[e] if N[e] else 0.0, float(N[e]), th) for e in range(S.size)]
    order = sorted(range(S.size), key=lambda e: (-idx[e], e))
    return order[0], next(e for e in order if not shown[e])


@pytest.mark.parametrize("L_,nmax,seed", [(300, 25, 0), (130, 12, 1), (64, 6, 2)])
def test_pick_is_the_definition(L_, nmax, seed):
    rng = np.random.default_rng(seed)
    B = 2
    N = rng.integers(1, nmax, (B, L_)).astype(np.int64)
    N[1] -= 1  # N == 0 items in the second table
    kind = rng.integers(0, 4, (B, L_))
    S = np.where(
        kind == 0, 0, np.where(kind == 1, N, np.where(kind == 2, 1, rng.integers(0, N + 1)))
    )
    S = np.minimum(S, N).astype(np.int64)
    tab = list(states_new(S, N))
    cand, cur = np.zeros(L_, np.int64), np.zeros(L_, np.int64)
    shown = np.zeros(L_, np.bool_)
    t_ep, th_ep = 0, 0.0
    prev = np.zeros((B, 2), np.int64)
    checked_dup = 0
    sorted_runs = 0
    for t in range(1, 150):
        th = klucb_threshold_scalar(float(t), 3.0)
        if t > t_ep:
            t_ep = t + t // 8 + 1
            th_ep = klucb_threshold_scalar(float(t_ep), 3.0)
        sinfo, sval, bits, perm, pub, table, tmask, islot, meta = tab
        if perm.shape[1] - meta[:, 0].max() < 4:
            tab[:7] = states_grow(sinfo, sval, bits, perm, pub, table)
            sinfo, sval, bits, perm, pub, table, tmask = tab[:7]
        for b in range(B):
            want = _definition(S[b], N[b], th, np.zeros(L_, np.bool_))
            # items shown above: none to four, drawn among the best items (duplicates of
            # the pick) or anywhere
            nab = int(rng.integers(0, 5))
            pool = [want[0]] + list(rng.choice(L_, size=6, replace=False))
            above = np.array(list(dict.fromkeys(pool))[:nab], np.int64)
            nab = above.size
            shown[:] = False
            shown[above] = True
            # incumbents: this table's previous shown item and pick
            got = states_pick(t, th, t_ep, th_ep, prev[b, 1], prev[b, 0], above, nab, shown,
                              islot[b], sinfo[b], sval[b], bits[b], perm[b], pub[b], meta[b],
                              cand, cur)  # fmt: skip
            exp = _definition(S[b], N[b], th, shown)
            assert tuple(int(x) for x in got) == exp, (t, b, above.tolist())
            _check_run(sinfo[b], sval[b], perm[b], pub[b], meta[b])
            sorted_runs += meta[b, 2] > 1
            checked_dup += exp[0] != exp[1]
            prev[b] = got
            moved = rng.choice(L_, size=3, replace=False) if t % 3 else np.array(got)
            for e in dict.fromkeys(moved.tolist()):
                N[b, e] += 1
                S[b, e] += rng.integers(0, 2)
                states_move(e, S[b], N[b], islot[b], sinfo[b], sval[b], bits[b], perm[b],
                            pub[b], table[b], tmask, meta[b])  # fmt: skip
            _check_run(sinfo[b], sval[b], perm[b], pub[b], meta[b])  # the run kept by moves
    assert sorted_runs > 100  # the picks scanned sorted runs
    assert checked_dup > 20  # the pick was shown above often enough to test the rule
