"""The numba code of ``cascade-ts`` from INVERSION_MIN_L items on (:mod:`simulate.policies.ts`
describes the policy and its lazy exact selection): a module of its own because it calls
SciPy's Beta functions (:mod:`simulate.special`), which the other policies, and CascadeTS
below the threshold (:mod:`._ts_gamma`), neither import nor compile.
:func:`simulate.policies.ts.kernel` imports it on the first such run.
"""

from __future__ import annotations

import numba
import numpy as np

from cascading_bandits.simulate.policies._ts_gamma import plain_loop
from cascading_bandits.simulate.policies._ts_rule import INVERSION_MIN_L, M1, M2, MARGIN
from cascading_bandits.simulate.policies.kernel import (
    HOT,
    INNER,
    NJIT,
    falses,
    finish,
    helper,
    observe_w0,
    play,
    select_top,
    step_buffers,
    zeros_f,
)
from cascading_bandits.simulate.rng import POLICY, beta_draw, uniform
from cascading_bandits.simulate.special import beta_inverse_draw, beta_quantile, betainc

__all__ = ["draw", "kernel_plain", "kernel_lazy"]


@numba.njit(**NJIT)
def draw(a, b, pkey, t, e, L):
    """The Thompson sample of item e at step t: Gamma ratio below INVERSION_MIN_L items,
    inversion from there on (module docstring)."""
    if L < INVERSION_MIN_L:
        return beta_draw(a, b, pkey, t, e, L)
    return beta_inverse_draw(a, b, pkey, t, e, L)


@numba.njit(**NJIT)
def kernel_plain(env, params, ukey, pkey, regret_out, counts_out, trace):
    """Every item's sample every step by :func:`draw` (the definition, any L; the kernel
    of lazy=False from INVERSION_MIN_L items on)."""
    plain_loop(env, params, ukey, pkey, regret_out, counts_out, trace, draw)


@helper(HOT)
def _top_among(idx, cand, nc, K, out):
    """``out[:K]`` = the K candidates of largest ``idx``, decreasing, ties to the smaller id."""
    for k in range(K):
        best = -1
        for i in range(nc):
            e = cand[i]
            if e < 0:
                continue
            if best < 0:
                best = i
                continue
            f = cand[best]
            if idx[e] > idx[f] or (idx[e] == idx[f] and e < f):
                best = i
        out[k] = cand[best]
        cand[best] = -1 - cand[best]  # taken (restored below)
    for i in range(nc):
        if cand[i] < 0:
            cand[i] = -1 - cand[i]


@helper(INNER)
def _recentre(S, N, a, b, idx, K, c1, c2, dirty2):
    """Thresholds on this step's samples ``idx`` (all L of them); every item's CDF there.

    Returns (x1, x2, E1) with E1 = sum_e (1 - c1[e]), the expected number above x1.
    """
    L = idx.size
    # the (K + M1)-th and (K + M2)-th largest samples (the smallest if L is below): an
    # insertion buffer of the m largest, not np.sort (whose compilation took 1.5 s)
    m = min(K + M2, L)
    top = np.empty(m)  # decreasing; the m <= L samples (finite) fill every slot
    for i in range(m):  # by hand: np.full compiles one more kernel
        top[i] = -np.inf
    for e in range(L):
        x = idx[e]
        if x > top[m - 1]:
            i = m - 1
            while i > 0 and top[i - 1] < x:
                top[i] = top[i - 1]
                i -= 1
            top[i] = x
    x1 = top[min(K + M1, L) - 1]
    x2 = top[m - 1]
    E1 = 0.0
    for e in range(L):
        ae, be = a + S[e], b + (N[e] - S[e])
        c1[e] = betainc(ae, be, x1, 0)
        c2[e] = betainc(ae, be, x2, 0)
        dirty2[e] = False
        E1 += 1.0 - c1[e]
    return x1, x2, E1


@helper(INNER)
def _lazy_buffers(L):
    """(u, c1, c2 (L,) float, dirty2 (L,) bool, cand (L,) int): the lazy kernel's work
    arrays, c1, c2 zero and dirty2 False. Allocated in a helper like ``step_buffers``:
    numba compiles a numpy allocator once per signature and per caller's options."""
    return np.empty(L), zeros_f(L), zeros_f(L), falses(L), np.zeros(L, np.int64)


@numba.njit(**NJIT)
def kernel_lazy(env, params, ukey, pkey, regret_out, counts_out, trace):
    """The plain kernel's decisions, drawing few quantiles a step (module docstring)."""
    code, attract, satisfy, gamma, K, n, order, fstar, checkpoints, lazy = env
    a, b = params[0], params[1]
    L = attract.size
    S, N = observe_w0(ukey, attract)
    st = step_buffers(L, K)
    idx, taken, sel, lst, clicks, scratch = st
    u, c1, c2, dirty2, cand = _lazy_buffers(L)
    x1, x2, E1 = 0.0, 0.0, 0.0
    full = True
    cum, j = 0.0, np.int64(0)  # not a literal 0: play compiles once
    for t in range(1, n + 1):
        if not full:
            nc = np.int64(0)
            for e in range(L):
                ue = uniform(pkey, POLICY, t, e, L, 0)
                u[e] = ue
                if ue > c1[e] - MARGIN:
                    cand[nc] = e
                    nc += 1
            above = 0
            for i in range(nc):
                e = cand[i]
                idx[e] = beta_quantile(a + S[e], b + (N[e] - S[e]), u[e])
                if idx[e] > x1:
                    above += 1
            if above < K:  # level 2: the items between x2 and x1 join
                n1 = nc
                for e in range(L):
                    if u[e] > c1[e] - MARGIN:
                        continue
                    if dirty2[e]:
                        c2[e] = betainc(a + S[e], b + (N[e] - S[e]), x2, 0)
                        dirty2[e] = False
                    if u[e] > c2[e] - MARGIN:
                        cand[nc] = e
                        nc += 1
                above = 0
                for i in range(nc):
                    e = cand[i]
                    if i >= n1:
                        idx[e] = beta_quantile(a + S[e], b + (N[e] - S[e]), u[e])
                    if idx[e] > x2:
                        above += 1
                if above < K:
                    full = True
            if not full:
                _top_among(idx, cand, nc, K, sel)
        if full:
            for e in range(L):
                idx[e] = draw(a + S[e], b + (N[e] - S[e]), pkey, t, e, L)
            select_top(idx, K, st[1], st[2])
            x1, x2, E1 = _recentre(S, N, a, b, idx, K, c1, c2, dirty2)
            full = False
        cum, j, nobs, _ = play(
            t, S, N, ukey, cum, j, code, attract, satisfy, gamma, K, order, fstar, checkpoints,
            sel, lst, clicks, scratch, trace, regret_out,
        )  # fmt: skip
        for k in range(nobs):  # their posteriors changed: so did their CDFs at x1, x2
            e = lst[k]
            c = betainc(a + S[e], b + (N[e] - S[e]), x1, 0)
            E1 += c1[e] - c
            c1[e] = c
            dirty2[e] = True
        if E1 < K + 0.5 or E1 > K + 4 * M1:
            full = True
    finish(N, counts_out)
