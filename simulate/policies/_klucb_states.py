"""Exact KL-UCB top-K selection over the distinct (successes, observations) states.

cascade-klucb for L >= GROUP_MIN (:mod:`._klucb_select` has the schemes for smaller L and
for ranked-klucb). The decisions are those of the plain loop bit for bit (tests/simulate:
lazy == plain == reference, golden).

Why states: the index of an item is a pure function of its state (S, N) and the step,
and CascadeKL-UCB explores unobserved-looking items in waves (all items of the best
state, in id order, then the next state), so the L items sit in very few distinct
states. Measured on B_LB(2048, 4, 0.2, 0.15), alive states per step (mean / max):
t < 1e3: 5 / 6, 1e3..1e4: 9 / 14, 1e4..3e4: 16 / 24, 3e4..1e5: 28 / 37; on L = 256
t in 3e4..1e5: 27 / 31. Of those, 1.2 to 4 (max 14) have an upper bound at or above the
K-th largest index. A step therefore scans the alive states instead of the L items.

Layout (one "state table" per run; a slot per alive state, recycled when it empties):

* ``sinfo[slot]`` (int64): S, N, number of items, epoch end of the upper bound (UBT),
  step of the exact index (VALT, also the "candidate this step" mark), word hint (no
  item below word HINT of the bitset), position in ``perm``;
* ``sval[slot]``: the upper bound (UB) and the step's exact index (VAL);
* ``bits[slot]``: the state's items as a bitset of L bits (int64 words), for the
  smallest ids of a state in order;
* ``perm``: the slots, alive ones first (``meta[0]`` of them), then the free ones;
* ``table``: open-addressing hash (linear probing, backward-shift deletion) from (S, N)
  to the slot; at most L states are alive, so at least half of its >= 2 L entries are
  empty;
* ``islot[e]``: item e's slot.

The upper bound of a state, klucb_scalar at the threshold of the epoch's end
(:func:`._klucb_select.epoch`) + PAD, bounds its index at every step of the epoch (the
root is nondecreasing in the threshold; klucb_scalar is within 1e-12 of it) and never
goes stale within the epoch, as a state does not change: observed items move to another
state instead.
"""

from __future__ import annotations

import numba
import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

from cascading_bandits.bounds.kl import klucb_scalar
from cascading_bandits.simulate.policies._klucb_select import PAD
from cascading_bandits.simulate.policies.kernel import HOT, NJIT

__all__ = ["states_new", "states_grow", "states_move", "states_top"]

# fields of sinfo
_S, _N, _CNT, _UBT, _VALT, _HINT, _POS = 0, 1, 2, 3, 4, 5, 6
_NF = 7
# fields of sval
_UB, _VAL = 0, 1
_CAP0 = 64  # slots at the start; doubled when fewer than K are free before a step's moves


@numba.njit(**HOT)
def _home(s, n, tmask):
    h = n * 0x9E3779B1 + s * 0x85EBCA77
    h ^= h >> 15
    return h & tmask


@numba.njit(**HOT)
def _lookup(s, n, sinfo, table, tmask):
    """Slot of state (s, n), or -1."""
    i = _home(s, n, tmask)
    while True:
        sl = table[i]
        if sl < 0:
            return -1
        if sinfo[sl, _S] == s and sinfo[sl, _N] == n:
            return sl
        i = (i + 1) & tmask


@numba.njit(**HOT)
def _unhash(sl, sinfo, table, tmask):
    """Delete slot sl from the hash, shifting later entries of its probe run back."""
    i = _home(sinfo[sl, _S], sinfo[sl, _N], tmask)
    while table[i] != sl:
        i = (i + 1) & tmask
    j = i
    while True:
        j = (j + 1) & tmask
        o = table[j]
        if o < 0:
            break
        k = _home(sinfo[o, _S], sinfo[o, _N], tmask)
        # o stays if its home lies cyclically in (i, j]: moving it to i would hide it
        if (i < j and i < k <= j) or (i > j and (k > i or k <= j)):
            continue
        table[i] = o
        i = j
    table[i] = -1


@numba.njit(**HOT)
def _add(e, s, n, islot, sinfo, bits, perm, table, tmask, meta):
    """Put item e in state (s, n), opening a slot for the state if it has none.

    Needs a free slot (``meta[0] < perm.size``) when the state is new.
    """
    sl = _lookup(s, n, sinfo, table, tmask)
    if sl < 0:
        pos = meta[0]
        sl = perm[pos]
        meta[0] = pos + 1
        sinfo[sl, _S] = s
        sinfo[sl, _N] = n
        sinfo[sl, _CNT] = 0
        sinfo[sl, _UBT] = -1
        sinfo[sl, _VALT] = -1
        sinfo[sl, _HINT] = bits.shape[1]
        sinfo[sl, _POS] = pos
        i = _home(s, n, tmask)
        while table[i] >= 0:
            i = (i + 1) & tmask
        table[i] = sl
    w = e >> 6
    bits[sl, w] |= np.int64(1) << (e & 63)
    sinfo[sl, _CNT] += 1
    if w < sinfo[sl, _HINT]:
        sinfo[sl, _HINT] = w
    islot[e] = sl


@numba.njit(**HOT)
def _remove(e, islot, sinfo, bits, perm, table, tmask, meta):
    """Take item e out of its state; an emptied state frees its slot (bitset all zero)."""
    sl = islot[e]
    bits[sl, e >> 6] &= ~(np.int64(1) << (e & 63))
    c = sinfo[sl, _CNT] - 1
    sinfo[sl, _CNT] = c
    if c == 0:
        _unhash(sl, sinfo, table, tmask)
        last = meta[0] - 1
        pos = sinfo[sl, _POS]
        o = perm[last]  # swap with the last alive slot, which takes sl's position
        perm[pos] = o
        sinfo[o, _POS] = pos
        perm[last] = sl
        sinfo[sl, _POS] = last
        meta[0] = last


@numba.njit(**HOT)
def states_move(e, S, N, islot, sinfo, bits, perm, table, tmask, meta):
    """Move item e, just observed, from its old state to (S[e], N[e]) (needs a free slot)."""
    _remove(e, islot, sinfo, bits, perm, table, tmask, meta)
    _add(e, S[e], N[e], islot, sinfo, bits, perm, table, tmask, meta)


@numba.njit(**NJIT)
def states_grow(sinfo, sval, bits, perm):
    """The slot arrays with twice the slots (the new ones free); the alive ones kept."""
    cap = perm.size
    si = np.zeros((2 * cap, _NF), np.int64)
    sv = np.zeros((2 * cap, 2))
    bi = np.zeros((2 * cap, bits.shape[1]), np.int64)
    pe = np.arange(2 * cap)
    si[:cap] = sinfo
    sv[:cap] = sval
    bi[:cap] = bits
    pe[:cap] = perm
    return si, sv, bi, pe


@numba.njit(**NJIT)
def states_new(S, N):
    """The state table of items with counts (S, N).

    Returns ``(sinfo, sval, bits, perm, table, tmask, islot, meta)`` (module docstring).
    """
    L = S.size
    W = (L + 63) // 64
    sinfo = np.zeros((_CAP0, _NF), np.int64)
    sval = np.zeros((_CAP0, 2))
    bits = np.zeros((_CAP0, W), np.int64)
    perm = np.arange(_CAP0)
    tsize = 64
    while tsize < 2 * L:
        tsize *= 2
    table = np.full(tsize, -1, np.int64)
    islot = np.empty(L, np.int64)
    meta = np.zeros(1, np.int64)
    for e in range(L):
        if meta[0] == perm.size:
            sinfo, sval, bits, perm = states_grow(sinfo, sval, bits, perm)
        _add(e, S[e], N[e], islot, sinfo, bits, perm, table, tsize - 1, meta)
    return sinfo, sval, bits, perm, table, tsize - 1, islot, meta


@numba.njit(**HOT)
def _first(sl, sinfo, bits):
    """Smallest item id of slot sl (which has items); moves the word hint up to it."""
    w = sinfo[sl, _HINT]
    while bits[sl, w] == 0:
        w += 1
    sinfo[sl, _HINT] = w
    return (w << 6) + trailing_zeros(bits[sl, w])


@numba.njit(**HOT)
def _next(sl, e, bits):
    """Smallest item id of slot sl above e, or -1."""
    w = e >> 6
    b = e & 63
    x = bits[sl, w] & ~((np.int64(2) << b) - 1)  # the bits above b (none if b == 63)
    W = bits.shape[1]
    while x == 0:
        w += 1
        if w == W:
            return -1
        x = bits[sl, w]
    return (w << 6) + trailing_zeros(x)


@numba.njit(**HOT)
def _push_top(tops, m, x, c):
    """Push value x c times into tops[:m], the m largest pushed so far, decreasing."""
    for _ in range(min(c, m)):
        if x <= tops[m - 1]:
            return
        i = m - 1
        while i > 0 and tops[i - 1] < x:
            tops[i] = tops[i - 1]
            i -= 1
        tops[i] = x


@numba.njit(**HOT)
def _candidate(sl, t, th, sinfo, sval, cand, nc, tops, m):
    """Make slot sl a candidate of step t: its exact index, listed in cand, pushed."""
    s = sinfo[sl, _S]
    n = sinfo[sl, _N]
    v = klucb_scalar(s / n if n > 0 else 0.0, float(n), th)
    sval[sl, _VAL] = v
    sinfo[sl, _VALT] = t
    cand[nc] = sl
    _push_top(tops, m, v, sinfo[sl, _CNT])
    return nc + 1


@numba.njit(**HOT)
def states_top(
    t, th, t_ep, th_ep, inc, ninc, m, islot, sinfo, sval, bits, perm, meta, tops, cand, cur,
    out,
):  # fmt: skip
    """``out[:m]`` = the m items of largest KL-UCB index, decreasing, ties to the smaller id.

    The same list as :func:`simulate.policies.kernel.select_top` on
    ``klucb_scalar(S[e] / N[e], N[e], th)``. tau, the m-th largest index (with
    multiplicity) among the states whose index is known so far, starting with those of
    the incumbents ``inc[:ninc]`` (items likely to be on top), is at most the final m-th
    largest; a state whose upper bound is below tau has none of the m items and is
    skipped without its index. Upper bounds are (re)computed at the epoch's end ``t_ep``
    (threshold ``th_ep``). ``cand`` and ``cur`` are work arrays of at least the number of
    alive states; ``tops`` of m.
    """
    for i in range(m):
        tops[i] = -np.inf
    nc = np.int64(0)  # not a literal: callees compile once
    for i in range(ninc):
        sl = islot[inc[i]]
        if sinfo[sl, _VALT] != t:
            nc = _candidate(sl, t, th, sinfo, sval, cand, nc, tops, m)
    for i in range(meta[0]):
        sl = perm[i]
        if sinfo[sl, _VALT] == t:
            continue
        if sinfo[sl, _UBT] != t_ep:
            s = sinfo[sl, _S]
            n = sinfo[sl, _N]
            sval[sl, _UB] = klucb_scalar(s / n if n > 0 else 0.0, float(n), th_ep) + PAD
            sinfo[sl, _UBT] = t_ep
        if sval[sl, _UB] >= tops[m - 1]:
            nc = _candidate(sl, t, th, sinfo, sval, cand, nc, tops, m)
    # the candidates that reach the final tau, by decreasing index (insertion sort: few)
    tau = tops[m - 1]
    nk = 0
    for i in range(nc):
        sl = cand[i]
        v = sval[sl, _VAL]
        if v < tau:
            continue
        j = nk
        while j > 0 and sval[cand[j - 1], _VAL] < v:
            cand[j] = cand[j - 1]
            j -= 1
        cand[j] = sl
        nk += 1
    # take the items state by state; states of bit-identical index merge their ids
    k = 0
    i = 0
    while k < m and i < nk:
        v = sval[cand[i], _VAL]
        g = i + 1
        while g < nk and sval[cand[g], _VAL] == v:
            g += 1
        if g == i + 1:
            sl = cand[i]
            e = _first(sl, sinfo, bits)
            while k < m and e >= 0:
                out[k] = e
                k += 1
                e = _next(sl, e, bits)
        else:
            for a in range(i, g):
                cur[a] = _first(cand[a], sinfo, bits)
            while k < m:
                b = -1
                for a in range(i, g):
                    if cur[a] >= 0 and (b < 0 or cur[a] < cur[b]):
                        b = a
                if b < 0:
                    break
                out[k] = cur[b]
                k += 1
                cur[b] = _next(cand[b], cur[b], bits)
        i = g
