"""Exact lazy selection of the items of largest KL-UCB index (cascade-klucb, ranked-klucb).

Bracketed lazy selection, for small L, taking the plain loop's decisions bit for bit
(tests/simulate: lazy == plain == reference); documented below, next to the code. From
L = GROUP_MIN (cascade-klucb), GROUP_MIN_RANKED (ranked-klucb) on, the kernels select over
the distinct (S, N) states instead (:mod:`._klucb_states`).
"""

from __future__ import annotations

import numba
import numpy as np

from cascading_bandits.bounds.indices import klucb_threshold_scalar
from cascading_bandits.bounds.kl import kl_scalar, klucb_scalar
from cascading_bandits.simulate.policies.kernel import HOT

__all__ = ["PAD", "GROW", "GROUP_MIN", "GROUP_MIN_RANKED", "epoch"]


# --------------------------------------------------------------------------
# Lazy exact KL-UCB selection
# --------------------------------------------------------------------------
# The top-K by KL-UCB index needs the exact index (klucb_scalar, ~200 ns) of few items.
# For an item with mean p, count T and threshold th, the root q* of
# h(q) = kl(p, q) - th / T is bracketed from any reference point q0 in (p, 1) with one
# kl evaluation, because h is convex and increasing on [p, 1):
#   * the Newton step q0 - h(q0) / h'(q0) is >= q* (a tangent lies below h);
#   * if h(q0) < 0 then q0 <= q*; else the secant through (p, -th/T) and (q0, h(q0))
#     meets 0 at or below q* (a chord lies above h).
# Both ends are widened by PAD = 1e-10, far above the float error of these formulas and
# of klucb_scalar (<= 1e-12 from the true root), so the bracket holds the value
# klucb_scalar returns.
#
# Upper bounds: the index is nondecreasing in th, so an item whose (mean, count) did not
# change keeps as an upper bound its bracket's top at the threshold of the end t_ep of the
# current epoch (epochs grow geometrically); it stays valid after an unattractive
# observation too (the index is nondecreasing in the mean and nonincreasing in the count);
# an attractive observation voids it. Each step brackets the incumbents (the previous
# list), then every item whose upper bound reaches tau (the K-th largest lower end so far),
# drops the brackets that end below the final tau, and pops the list from the brackets;
# where two overlap, a second-order bracket (_refine) and then klucb_scalar settle it.
# The decisions are those of the plain loop, bit for bit (tests/simulate: lazy == plain ==
# reference). The guarantee rests on klucb_scalar's documented accuracy (1e-12 << PAD).
# Measured (B_LB(16, 4, 0.2, 0.15), t ~ 2e4): 4.4 brackets, 0.01 klucb_scalar calls a step.
PAD = 1e-10
GROW = 64  # epochs of upper bounds: the epoch starting at t ends at t + t // GROW + 1


@numba.njit(**HOT)
def epoch(t, c, t_ep, th_ep):
    """(end, threshold log t + c log log t at the end) of the upper bounds' epoch holding
    step t: the same until step ``t_ep`` has passed, then ``t + t // GROW + 1``."""
    if t > t_ep:
        t_ep = t + t // GROW + 1
        th_ep = klucb_threshold_scalar(float(t_ep), c)
    return t_ep, th_ep


@numba.njit(**HOT)
def _bracket(p, T, th, q0):
    """(lo, hi, exact, q_next): klucb_scalar(p, T, th) lies in [lo, hi]; exact if lo == hi."""
    if T <= 0.0 or p <= 0.0 or p >= 1.0 or th <= 0.0 or not (p < q0 < 1.0):
        v = klucb_scalar(p, T, th)
        return v, v, True, v
    r = th / T
    g = kl_scalar(p, q0) - r
    d = (q0 - p) / (q0 * (1.0 - q0))
    hi = q0 - g / d
    if hi > 1.0:
        hi = 1.0
    lo = p + (q0 - p) * (r / (r + g)) if g >= 0.0 else q0
    return lo - PAD, hi + PAD, False, hi


@numba.njit(**HOT)
def _mean(S, N, e):
    return S[e] / N[e] if N[e] > 0 else 0.0


@numba.njit(**HOT)
def _add_candidate(S, N, q, th, lo, hi, ex, stamp, sv, cl, nc, e):
    r = _bracket(_mean(S, N, e), float(N[e]), th, q[e])
    lo[e], hi[e], q[e] = r[0], r[1], r[3]
    ex[e] = 2 if r[2] else 0
    stamp[e] = sv
    cl[nc] = e
    return nc + 1


@numba.njit(**HOT)
def _push_top(tops, m, x):
    """Keep tops[:m] = the m largest values pushed so far, decreasing (tops starts at -inf)."""
    if x <= tops[m - 1]:
        return
    i = m - 1
    while i > 0 and tops[i - 1] < x:
        tops[i] = tops[i - 1]
        i -= 1
    tops[i] = x


@numba.njit(**HOT)
def _lazy_prepare(
    S, N, q, ub, ubt, ubn, t, th, t_ep, th_ep, inc, ninc, m, lo, hi, ex, stamp, sv, cl, tops
):
    """Bracket the items that may be among the m largest indices; returns their number.

    Candidates get ``stamp[e] = sv`` and are listed in ``cl``. tau, the m-th largest
    ``lo`` among the candidates so far (starting with the incumbents ``inc[:ninc]``, items
    likely to be on top, e.g. the previous list), is at most the m-th largest index; an
    item whose upper bound ``ub[e]`` is below tau cannot be among the m largest, nor can a
    candidate whose bracket ends below the final tau (it is dropped). Upper bounds hold
    for steps <= ``ubt[e]``; expired ones are refreshed at the epoch's end ``t_ep``
    (threshold ``th_ep``).
    """
    nc = np.int64(0)  # not a literal: callees compile once
    for i in range(m):
        tops[i] = -np.inf
    for i in range(ninc):
        e = inc[i]
        if stamp[e] != sv:
            nc = _add_candidate(S, N, q, th, lo, hi, ex, stamp, sv, cl, nc, e)
            _push_top(tops, m, lo[e])
    for e in range(S.size):
        if stamp[e] == sv:
            continue
        if ubt[e] < t:
            r = _bracket(_mean(S, N, e), float(N[e]), th_ep, q[e])
            ub[e] = r[1]
            ubt[e] = t_ep
            ubn[e] = N[e]
        if ub[e] >= tops[m - 1]:
            nc = _add_candidate(S, N, q, th, lo, hi, ex, stamp, sv, cl, nc, e)
            _push_top(tops, m, lo[e])
    tau = tops[m - 1]
    kept = np.int64(0)
    for i in range(nc):
        e = cl[i]
        if hi[e] < tau:
            stamp[e] = -1  # not a candidate after all (so an expansion re-brackets it)
            if ubn[e] != N[e]:  # its upper bound is stale: tighten it (see _lazy_retire)
                r = _bracket(_mean(S, N, e), float(N[e]), th_ep, q[e])
                ub[e] = r[1]
                ubt[e] = t_ep
                ubn[e] = N[e]
        else:
            cl[kept] = e
            kept += 1
    return kept


@numba.njit(**HOT)
def _lazy_retire(S, N, q, ub, ubt, ubn, t_ep, th_ep, cl, nc, tk):
    """Tighten the stale upper bounds of the candidates not taken (they lost this step).

    An upper bound is stale if the item was observed since it was computed
    (``ubn[e] != N[e]``): it is still valid after unattractive observations but loose,
    and the item would be bracketed at every step until the epoch ends.
    """
    for i in range(nc):
        if not tk[i]:
            e = cl[i]
            if ubn[e] != N[e]:
                r = _bracket(_mean(S, N, e), float(N[e]), th_ep, q[e])
                ub[e] = r[1]
                ubt[e] = t_ep
                ubn[e] = N[e]


@numba.njit(**HOT)
def _refine(S, N, q, th, lo, hi, ex, e):
    """Second-order bracket of item e's index from the Newton point q1 = q[e] >= root.

    With g1 = h(q1) >= 0 and h' increasing, root >= q1 - g1 / h'(l) for any l <= root
    (here the current lo): the bracket shrinks from O(d) to O(d^2) for one more kl.
    """
    p = _mean(S, N, e)
    T = float(N[e])
    q1 = q[e]
    ex[e] = 1
    if not (p < q1 < 1.0):
        return
    r = th / T
    g1 = kl_scalar(p, q1) - r
    d1 = (q1 - p) / (q1 * (1.0 - q1))
    h1 = q1 - g1 / d1
    if h1 > 1.0:
        h1 = 1.0
    if g1 < 0.0:
        l1 = q1
    else:
        lc = lo[e] + PAD
        if not (p < lc < 1.0):
            return
        l1 = q1 - g1 / ((lc - p) / (lc * (1.0 - lc)))
    if l1 - PAD > lo[e]:
        lo[e] = l1 - PAD
    if h1 + PAD < hi[e]:
        hi[e] = h1 + PAD
    q[e] = h1


@numba.njit(**HOT)
def _lazy_pop(S, N, q, th, lo, hi, ex, cl, nc, tk):
    """The next item in (index desc, id asc) order among the candidates not taken yet.

    Takes the two largest by (hi desc, id asc); the first is next if its lo is above the
    second's hi, else the brackets are refined (:func:`_refine`), then klucb_scalar settles
    what still overlaps. ``ex[e]``: 0 bracket, 1 refined bracket, 2 exact. Returns -1 if
    none is left.
    """
    while True:
        ia = -1
        ib = -1
        for i in range(nc):
            if tk[i]:
                continue
            e = cl[i]
            if ia < 0:
                ia = i
                continue
            a = cl[ia]
            if hi[e] > hi[a] or (hi[e] == hi[a] and e < a):
                ib = ia
                ia = i
            elif ib < 0:
                ib = i
            else:
                b = cl[ib]
                if hi[e] > hi[b] or (hi[e] == hi[b] and e < b):
                    ib = i
        if ia < 0:
            return -1
        a = cl[ia]
        if ib < 0:
            break
        b = cl[ib]
        if lo[a] > hi[b]:
            break
        if ex[a] == 0:
            _refine(S, N, q, th, lo, hi, ex, a)
        elif ex[b] == 0:
            _refine(S, N, q, th, lo, hi, ex, b)
        elif ex[a] == 1:
            v = klucb_scalar(_mean(S, N, a), float(N[a]), th)
            lo[a], hi[a], ex[a], q[a] = v, v, 2, v
        elif ex[b] == 1:
            v = klucb_scalar(_mean(S, N, b), float(N[b]), th)
            lo[b], hi[b], ex[b], q[b] = v, v, 2, v
        else:
            break  # both exact: a is the max of (value desc, id asc); none can tie above it
    tk[ia] = True
    return a


# --------------------------------------------------------------------------
# Large L: selection over the distinct states (_klucb_states)
# --------------------------------------------------------------------------
# With many items most of them share their (successes, observations) state with others,
# hence their index too, so the brackets above overlap by the thousand; from these L on
# the kernels select over the distinct states instead (:mod:`._klucb_states`).
# Measured (B_LB(L, 4, 0.2, 0.15), 20 runs, run-steps per CPU-second, states vs
# bracketed): cascade-klucb, 1e5 steps: L = 64: 1.8M vs 1.8M, 80: 1.7M vs 1.6M, 96: 1.7M
# vs 1.4M, 128: 1.7M vs 1.05M, 256: 1.3M vs 0.41M (3e5 steps: L = 96: 1.67M vs 1.45M,
# 128: 1.74M vs 1.43M, 256: 1.75M vs 0.71M); ranked-klucb, 1e5 steps: L = 24: 0.55M vs
# 0.60M, 32: 0.61M vs 0.55M, 48: 0.58M vs 0.45M (3e4 steps: L = 64: 443k vs 217k, 128:
# 371k vs 99k, 256: 507k vs 34k).
GROUP_MIN = 96  # cascade-klucb
GROUP_MIN_RANKED = 32  # ranked-klucb(-rba)
