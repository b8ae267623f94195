"""ts-cascade's selection over the states (ts_cascade.top_states) against its definition.

top_states prunes with an approximate index (two products of a state's factors, no square
root or division) within a slack of the exact one, then ranks the states left by the exact
index. Checked here: the slack bounds the approximation's error, and the list is
``kernel.select_top`` on every item's exact index (the plain loop's), ties included: many
items per state, states of bit-identical index (z = 0: index w, so (1, 2) and (2, 4) tie),
z of both signs and extreme, incumbents of any kind.
"""

from __future__ import annotations

import math

import numba
import numpy as np
import pytest

from cascading_bandits.simulate.policies import ts_cascade as tsc
from cascading_bandits.simulate.policies._index_states import PAD, index_buffers
from cascading_bandits.simulate.policies._klucb_states import states_new
from cascading_bandits.simulate.policies.kernel import select_top


@numba.njit
def _both(S, N, t, z, inc, ninc, K):
    """(top_states' list, select_top's list on the plain loop's indices)."""
    L = S.size
    sinfo, sval, bits, perm, pub, table, tmask, islot, meta = states_new(
        S.reshape((1, L)), N.reshape((1, L))
    )
    si, sv, bi, pe, isl, me = sinfo[0], sval[0], bits[0], perm[0], islot[0], meta[0]
    for i in range(me[0]):
        tsc._factors(pe[i], si, sv)
    tops, cand, cur = index_buffers(L, K)
    out = np.zeros(K, np.int64)
    for k in range(ninc):
        out[k] = inc[k]  # the incumbents are read from out itself, as in the kernel
    g = math.log(t + 1.0)
    tsc.top_states(t, z, g, math.sqrt(g), out, ninc, K, isl, si, sv, bi, pe, me, tops, cand,
                   cur, out)  # fmt: skip
    idx = np.empty(L)
    for e in range(L):  # kernel_plain's operations
        w = S[e] / N[e] if N[e] > 0 else 0.0
        r = g / (N[e] + 1.0)
        idx[e] = w + z * max(math.sqrt(w * (1.0 - w) * g / (N[e] + 1.0)), r)
    ref = np.zeros(K, np.int64)
    select_top(idx, K, np.empty(L, np.bool_), ref)
    return out, ref


@numba.njit
def _approx_error(s, n, t, z):
    """(|u - exact index|, the slack top_states allows) of state (s, n) at step t."""
    L = 1
    S = np.full(L, s)
    N = np.full(L, n)
    sinfo, sval, bits, perm, pub, table, tmask, islot, meta = states_new(
        S.reshape((1, L)), N.reshape((1, L))
    )
    sl = perm[0, 0]
    tsc._factors(sl, sinfo[0], sval[0])
    g = math.log(t + 1.0)
    sg = math.sqrt(g)
    a = sval[0, sl, tsc._FA] * sg
    b = sval[0, sl, tsc._FB] * g
    u = sval[0, sl, tsc._W] + z * (a if a > b else b)
    w = s / n if n > 0 else 0.0
    v = w + z * max(math.sqrt(w * (1.0 - w) * g / (n + 1.0)), g / (n + 1.0))
    return abs(u - v), tsc.SLACK * (1.0 + abs(z) * (g + sg)) + PAD


def _states(rng, L, nmax, smax_frac):
    N = rng.integers(0, nmax + 1, L).astype(np.int64)
    S = np.minimum(N, rng.integers(0, nmax + 1, L)) if smax_frac else np.zeros(L, np.int64)
    return np.minimum(S, N).astype(np.int64), N


@pytest.mark.parametrize("seed", range(6))
def test_top_states_is_select_top(seed):
    rng = np.random.default_rng(seed)
    for case in range(60):
        L = int(rng.integers(4, 300))
        K = int(rng.integers(1, min(L, 16) + 1))
        S, N = _states(rng, L, int(rng.choice([1, 2, 4, 30, 5000])), case % 5)
        t = int(rng.choice([1, 2, 50, 10**5, 10**9]))
        z = float(rng.choice([0.0, -0.0, rng.normal(), -abs(rng.normal()) * 4, 8.3, -8.3]))
        ninc = int(rng.integers(0, K + 1))
        inc = rng.choice(L, K, replace=False).astype(np.int64)
        out, ref = _both(S, N, t, z, inc, ninc, K)
        assert out.tolist() == ref.tolist(), (seed, case, L, K, t, z)


def test_states_of_equal_index_merge_their_ids():
    # z = 0: the index is w, so (1, 2), (2, 4) and (3, 6) are one value over three states
    S = np.array([2, 1, 3, 0, 1, 2, 3, 0], np.int64)
    N = np.array([4, 2, 6, 1, 2, 4, 6, 0], np.int64)
    for K in range(1, 8):
        out, ref = _both(S, N, 100, 0.0, np.zeros(K, np.int64), 0, K)
        assert out.tolist() == ref.tolist()
    assert _both(S, N, 100, 0.0, np.zeros(6, np.int64), 0, 6)[0].tolist() == [0, 1, 2, 4, 5, 6]


def test_approximate_index_within_its_slack():
    rng = np.random.default_rng(3)
    worst = 0.0
    for _ in range(3000):
        n = int(rng.choice([0, 1, 2, int(rng.integers(1, 10**7))]))
        s = int(rng.integers(0, n + 1))
        t = int(rng.choice([1, int(rng.integers(1, 10**9))]))
        z = float(rng.normal() * rng.choice([1.0, 8.0]))
        err, slack = _approx_error(s, n, t, z)
        assert err <= slack
        worst = max(worst, err / slack)
    assert worst < 0.01  # the slack is far above the error: a few ulps against 1e-12
