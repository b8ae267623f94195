"""CascadeTS threshold sampler: a re-choice of thresholds (``_tune``, ``_place``) against
plain re-statements of what it computes, bit for bit.

``_tune`` computes each distinct state's mass once per step of its search; ``_place`` memoises
each state's masses, rates and buckets and writes each row of ``ix`` once. A faster
re-choice may not change a number: the thresholds and the bucket order decide which
random numbers each item gets, so the runs' numbers (golden cells) depend on them. The
references below are the definitions, one search per level and one item at a time, in
Python over :func:`_envelope_mass`'s twin.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from cascading_bandits.simulate.jitopts import python_twin
from cascading_bandits.simulate.policies import _ts_threshold as ts

_mass = python_twin(ts._envelope_mass)
_state = python_twin(ts._state)
_tune = python_twin(ts._tune)
_place = python_twin(ts._place)
_census = python_twin(ts._census)
_memo = python_twin(ts._memo)
_set_taus = python_twin(ts._set_taus)


def _posteriors(L, scale, seed):
    """(S, N) of L items: N - 1 geometric of mean about ``scale`` (N >= 1, as after w_0), a
    few leaders with many observations, clicks binomial."""
    rng = np.random.default_rng(seed)
    N = (1 + rng.geometric(1.0 / scale, L)).astype(np.int64)
    N[: min(4, L)] = 40 * scale
    S = rng.binomial(N, rng.uniform(0.01, 0.6, L)).astype(np.int64)
    return S, N


def _reference_taus(K, a, b, S, N, fx, prev):
    """Two searches, each on its own, over the states (S, N) with N < MEMO_N in increasing
    (N, S) (log B from lgamma), then the items with N >= MEMO_N one by one in increasing id
    (their own log B), each state's mass capped at 1 and weighted by its items: from each
    level's threshold in ``prev`` (0 in logit if none was set), a bracket of half-width
    TUNE_W doubled outward until the sum crosses the target, then bisected to TUNE_TOL."""
    count = {}
    for e in range(S.size):
        if N[e] < ts.MEMO_N:
            key = (int(N[e]), int(S[e]))
            count[key] = count.get(key, 0) + 1
    lbeta = python_twin(ts._lbeta)
    states = [
        [a + s, b + (n - s), lbeta(a + s, b + (n - s)), float(c)]
        for (n, s), c in sorted(count.items())
    ]
    for e in range(S.size):
        if N[e] >= ts.MEMO_N:
            states.append([a + S[e], b + (N[e] - S[e]), fx[e, ts.JLB], 1.0])

    def above(x, target):
        tau = 1.0 / (1.0 + math.exp(-x))
        lt, l1t = -math.log1p(math.exp(-x)), -math.log1p(math.exp(x))
        tot = 0.0
        for sa, sb, sl, sc in states:
            tot += sc * min(_mass(sa, sb, sl, tau, lt, l1t), 1.0)
            if tot > target:
                return True
        return False

    out = []
    for lv, target in enumerate((K + ts.T1, K + ts.T2)):
        x0 = 0.0
        if prev[ts.EPOCH] > 0:
            x0 = min(max(prev[2 + lv] - prev[4 + lv], -40.0), 40.0)
        w = ts.TUNE_W
        lo, hi = max(x0 - w, -40.0), min(x0 + w, 40.0)
        while lo > -40.0 and not above(lo, target):
            hi, w = lo, 2 * w
            lo = max(lo - w, -40.0)
        while hi < 40.0 and above(hi, target):
            lo, w = hi, 2 * w
            hi = min(hi + w, 40.0)
        while hi - lo > ts.TUNE_TOL:
            mid = 0.5 * (lo + hi)
            if above(mid, target):
                lo = mid
            else:
                hi = mid
        assert lo == -40.0 or above(lo, target)
        assert hi == 40.0 or not above(hi, target)
        out.append(1.0 / (1.0 + math.exp(-hi)))
    taus = prev.copy()  # the thresholds, their logs and the epoch (ts.EPOCH)
    _set_taus(taus, out[0], out[1])
    return taus


def _states(S, N):
    """(scnt, big, nbig, lbt): the census of the states (:func:`ts._census`) and an empty
    log B table, the arguments of ``_tune`` after the thresholds."""
    M = ts.MEMO_N * (ts.MEMO_N + 1) // 2
    scnt, big = np.empty(M, np.int64), np.empty(S.size, np.int64)
    nbig = _census(S, N, scnt, big)
    return scnt, big, nbig, np.full(M, math.nan)


def test_census_counts_the_states_and_lists_the_items_beyond():
    S, N = _posteriors(500, 30, seed=3)
    scnt, big, nbig, _ = _states(S, N)
    small = N < ts.MEMO_N
    assert big[:nbig].tolist() == np.flatnonzero(~small).tolist()
    want = np.zeros_like(scnt)
    np.add.at(want, (N * (N + 1) // 2 + S)[small], 1)
    assert scnt.tolist() == want.tolist() and 0 < nbig < 500


@pytest.mark.parametrize(
    ("L", "scale", "K", "prior"),
    [(128, 1, 1, (1.0, 1.0)), (300, 10, 4, (2.0, 3.0)), (2048, 20, 4, (1.0, 1.0)),
     (700, 300, 16, (1.0, 1.0))],
)  # fmt: skip
def test_tune_gives_the_two_searches_thresholds(L, scale, K, prior):
    a, b = prior
    S, N = _posteriors(L, scale, seed=L + K)
    it, ix, fx, *_ = _state(L, a, b, S, N)
    taus = np.zeros(7)  # the thresholds, their logs and the epoch (ts.EPOCH)
    _tune(K, a, b, S, N, fx, taus, *_states(S, N))
    assert taus.tobytes() == _reference_taus(K, a, b, S, N, fx, np.zeros(7)).tobytes()
    # a second choice starts from the first's thresholds: after more observations of every
    # item (the search moves down), and again at the same posteriors
    N2 = N + 3 * scale
    S2 = S + scale // 2
    _, _, fx2, *_ = _state(L, a, b, S2, N2)
    for SS, NN, ff in ((S2, N2, fx2), (S2, N2, fx2), (S, N, fx)):
        prev = taus.copy()
        _tune(K, a, b, SS, NN, ff, taus, *_states(SS, NN))
        assert taus.tobytes() == _reference_taus(K, a, b, SS, NN, ff, prev).tobytes()
        assert taus[ts.EPOCH] == prev[ts.EPOCH] + 1


def test_place_gives_each_items_own_masses_and_the_id_order():
    L, K, a, b = 1500, 4, 1.0, 1.0
    S, N = _posteriors(L, 15, seed=7)
    it, ix, fx, mass, perm, start, res, dl, memo = _state(L, a, b, S, N)
    taus = np.zeros(7)  # the thresholds, their logs and the epoch (ts.EPOCH)
    _tune(K, a, b, S, N, fx, taus, *_states(S, N))
    ctr = np.zeros(2, np.int64)
    _place(a, b, S, N, it, ix, fx, perm, start, taus, ctr, memo)
    bucket = python_twin(ts._bucket)
    rate = python_twin(ts._rate)
    for lv in range(2):
        segs = np.empty(L, np.int64)
        for e in range(L):
            u = _mass(a + S[e], b + (N[e] - S[e]), fx[e, ts.JLB], taus[lv], taus[2 + lv],
                      taus[4 + lv])  # fmt: skip
            assert it[e, ts.IR + lv] == rate(u)
            segs[e] = bucket(u)
            assert ix[e, ts.JSEG + lv] == segs[e]
        # the bucket order: by bucket, items in increasing id within one, positions inverse
        order = np.lexsort((np.arange(L), segs))
        assert perm[lv].tolist() == order.tolist()
        counts = np.bincount(segs, minlength=ts.NB)
        assert start[lv].tolist() == [0, *np.cumsum(counts).tolist()]
        for q in range(L):
            assert ix[perm[lv, q], ts.JPOS + lv] == q
        assert (ix[:, ts.JFLAG] == 0).all()
