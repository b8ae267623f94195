"""Exact KL-UCB top-K selection over the distinct (successes, observations) states.

cascade-klucb (:func:`states_top`, the K best) for L >= GROUP_MIN, ranked-klucb(-rba)
(:func:`states_pick`, a bandit's pick and its best item not shown above) for L >=
GROUP_MIN_RANKED (one table per bandit); :mod:`._klucb_select` has the bracketed
selection for smaller L. The decisions are those of the plain loop bit for bit
(tests/simulate: lazy == plain == reference, golden; test_ranked_pick).

Why states: the index of an item is a pure function of its state (S, N) and the step,
and CascadeKL-UCB explores unobserved-looking items in waves (all items of the best
state, in id order, then the next state), so the L items sit in very few distinct
states. Measured on B_LB(2048, 4, 0.2, 0.15), alive states per step (mean / max):
t < 1e3: 5 / 6, 1e3..1e4: 9 / 14, 1e4..3e4: 16 / 24, 3e4..1e5: 28 / 37; on L = 256
t in 3e4..1e5: 27 / 31. Of those, 1.2 to 4 (max 14) have an upper bound at or above the
K-th largest index. A step therefore scans the alive states instead of the L items, and
brackets the few that may be on top (:func:`_bracket_state`). A state does not change, so
it keeps its reference point q0 with kl(p, q0): a bracket at any threshold costs a few
flops and no logarithm, and one kl is spent only when the reference moves (a new state,
a bracket wider than LOOSE, an overlap: :func:`_settle`). Measured on ranked-klucb,
B_LB(2048, 4, 0.2, 0.15), t in 5e4..1e5, per bandit and step: 3.1 to 4.5 candidates,
0.34 to 0.40 kl, 0.06 to 0.07 klucb_scalar (overlaps) and 0.5 to 1 closed-form indices
(S = 0 or N = 0); a kl every bracket before.

Layout (one "state table" per run; a slot per alive state, recycled when it empties):

* ``sinfo[slot]`` (int64): S, N, number of items (CNT), epoch end of the upper bound
  (UBT), step of the last bracket (BT, also the "candidate this step" mark), whether
  the bracket is exact (EX), word hint (no item below word HINT of the bitset),
  position in ``perm`` (POS), an id cursor for merging ties (CUR), the top word (no item
  above word TOP), the number of its items emitted by a merge so far (OUT), the step of
  its last refinement (RF);
* ``sval[slot]``: the upper bound (UB), the step's bracket (LO, HI), the reference point
  of the brackets (Q: a Newton point, above the root, or an exact index; a new state takes
  that of the state its first item came from) with kl(p, Q) (K0, < 0: not computed yet),
  1 / h'(Q) (ID0) and 1 / K0 (IK), and the last bracket's Newton point (QN); with a
  kl, the state's p and 1 / N (P, IN: no division a bracket); a state of S = 0 keeps
  its closed-form index at r0 = th / N instead (Q, P = r0, IN; K0 = _ZREF);
* ``bits[slot]``: the state's items as a bitset of L bits (int64 words), for the
  smallest ids of a state in order;
* ``perm``: the slots, alive ones first (``meta[0]`` of them), then the free ones; for
  :func:`states_pick` the first ``meta[2]`` alive ones are sorted by increasing ``pub``
  (:func:`states_move` keeps that run's order when a state of it empties; the other
  selections leave ``meta[2]`` at 0);
* ``pub``: beside ``perm``, the upper bound of the alive state at each position, valid for
  the epoch ending at ``meta[1]`` (+inf: not computed in that epoch yet). A step's scan
  skips a state on this one contiguous load, without reading the state's rows (by
  sampling a ranked-klucb run of n = 1e6 at L = 2048, the scan was about a fifth of a
  step; the gain of this array was within the noise of a loaded machine);
* ``table``: open-addressing hash (linear probing, backward-shift deletion) from (S, N)
  to the slot, of at least 4 entries per slot (so at least 3/4 of them empty), rebuilt
  when the slots double: sized by the alive states, not by L, it stays in the fastest
  caches (at L = 65,536 a table of 2 L entries was 1 MB, a cache miss a probe);
* ``islot[e]``: item e's slot.

The upper bound of a state, the top of its bracket at the threshold of the epoch's end
(:func:`._klucb_select.epoch`) + PAD, bounds its index at every step of the epoch (the
root is nondecreasing in the threshold; klucb_scalar is within 1e-12 of it) and never
goes stale within the epoch, as a state does not change: observed items move to another
state instead.
"""

from __future__ import annotations

import math

import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

from cascading_bandits.bounds.kl import klucb_scalar
from cascading_bandits.simulate.policies._klucb_select import (
    PAD,
    _closed_index,
    _ends,
    _log_ratios,
    cold,
)
from cascading_bandits.simulate.policies.kernel import HOT, INNER, helper, zeros_f

__all__ = ["states_empty", "states_new", "states_grow", "states_move", "states_top", "states_pick"]

# fields of sinfo
_S, _N, _CNT, _UBT, _BT, _EX, _HINT, _POS, _CUR, _TOP, _OUT, _RF = range(12)
_NF = 12
# fields of sval
_UB, _LO, _HI, _Q, _K0, _ID0, _IK, _QN, _P, _IN = 0, 1, 2, 3, 4, 5, 6, 7, 8, 9
_NV = 10
_ZREF = -2.0  # _K0 of an S = 0 state whose closed-form index at r0 (in _P) is kept
LOOSE = 1e-5  # a bracket wider than this moves the state's reference to its Newton point
# states_pick inserts the states out of its sorted run when more than this many are out (at
# L = 2048, n = 1e5, callgrind, instructions a step: 0: 4,445; 1: 4,249; 2: 4,289; 3: 4,350)
_UNSORTED = 1
_CAP0 = 64  # slots at the start; doubled when fewer than K are free before a step's moves


@helper(HOT)
def _home(s, n, tmask):
    h = n * 0x9E3779B1 + s * 0x85EBCA77
    h ^= h >> 15
    return h & tmask


@helper(HOT)
def _join(e, sl, bits, sinfo, islot):
    """Item e joins the alive state in slot sl: its bit, the count, the first/last word
    markers of the bitset and ``islot[e]``."""
    u = np.uint64(e)  # item, word and slot unsigned: no negative-index fix on their uses
    us = np.uint64(sl)
    w = e >> 6
    bits[us, u >> np.uint64(6)] |= np.int64(1) << (e & 63)
    sinfo[us, _CNT] += 1
    if w < sinfo[us, _HINT]:
        sinfo[us, _HINT] = w
    if w > sinfo[us, _TOP]:
        sinfo[us, _TOP] = w
    islot[u] = sl


@helper(HOT)
def _add(e, s, n, q0, islot, sinfo, sval, bits, perm, pub, table, tmask, meta):
    """Put item e in state (s, n), opening a slot for the state if it has none.

    A new state takes ``q0`` as the reference point of its first bracket (0: none). Needs
    a free slot (``meta[0] < perm.size``) when the state is new.
    """
    # the state's slot, or the empty entry ending its probe run; the entry's index read
    # unsigned (as the ids: no negative-index fix on the probes)
    um = np.uint64(tmask)
    i = np.uint64(_home(s, n, tmask))
    while True:
        sl = table[i]
        if sl < 0:
            break
        us = np.uint64(sl)  # (unsigned: as the entry's index)
        if sinfo[us, _S] == s and sinfo[us, _N] == n:
            break
        i = (i + np.uint64(1)) & um
    if sl < 0:  # a new state: open a slot (table[i] is the empty entry found)
        pos = meta[0]
        sl = perm[pos]
        meta[0] = pos + 1
        sinfo[sl, _S] = s
        sinfo[sl, _N] = n
        sinfo[sl, _CNT] = 0
        sinfo[sl, _UBT] = -1
        sinfo[sl, _BT] = -1
        sinfo[sl, _EX] = 0  # (index_top: not known saturated)
        sinfo[sl, _HINT] = bits.shape[1]
        sinfo[sl, _TOP] = 0
        sinfo[sl, _POS] = pos
        pub[pos] = np.inf
        sval[sl, _Q] = q0
        sval[sl, _K0] = -1.0  # no kl at the reference point yet
        table[i] = sl
    _join(e, sl, bits, sinfo, islot)


@helper(HOT)
def _append(e, sl, islot, sinfo, bits):
    """Put item e in slot sl, which holds items of ids below e only (states_new's order):
    what :func:`_add` does for an existing state, without the hash probe."""
    w = e >> 6
    bits[sl, w] |= np.int64(1) << (e & 63)
    sinfo[sl, _CNT] += 1
    if w > sinfo[sl, _TOP]:
        sinfo[sl, _TOP] = w
    islot[e] = sl


@helper(HOT)
def _unhash(sl, sinfo, table, tmask):
    """Delete slot sl from the hash, shifting later entries of its probe run back."""
    um = np.uint64(tmask)  # entry indices unsigned: no negative-index fix on the probes
    one = np.uint64(1)
    i = np.uint64(_home(sinfo[sl, _S], sinfo[sl, _N], tmask))
    while table[i] != sl:
        i = (i + one) & um
    j = i
    while True:
        j = (j + one) & um
        o = table[j]
        if o < 0:
            break
        k = np.uint64(_home(sinfo[o, _S], sinfo[o, _N], tmask))
        # o stays if its home lies cyclically in (i, j]: moving it to i would hide it
        if (i < j and i < k <= j) or (i > j and (k > i or k <= j)):
            continue
        table[i] = o
        i = j
    table[i] = -1


@helper(HOT)
def _out_of_run(sl, pos, sinfo, perm, pub, meta):
    """Take slot sl at position pos out of states_pick's sorted run ``perm[:meta[2]]`` if it
    is in it (the gap closed, the order kept); returns its position, now out of the run."""
    ns = meta[2]
    if pos < ns:
        for q in range(pos, ns - 1):
            o = perm[q + 1]
            perm[q] = o
            pub[q] = pub[q + 1]
            sinfo[o, _POS] = q
        pos = ns - 1  # sl now sits at the run's end, out of it
        perm[pos] = sl
        sinfo[sl, _POS] = pos
        meta[2] = pos
    return pos


@helper(HOT)
def _free(sl, sinfo, perm, pub, meta):
    """Free slot sl, emptied and out of the hash: it leaves the alive states (out of
    states_pick's sorted run first), the last alive slot taking its position."""
    last = meta[0] - 1
    pos = _out_of_run(sl, sinfo[sl, _POS], sinfo, perm, pub, meta)
    o = perm[last]  # swap with the last alive slot, which takes sl's position
    perm[pos] = o
    pub[pos] = pub[last]
    sinfo[o, _POS] = pos
    perm[last] = sl
    sinfo[sl, _POS] = last
    meta[0] = last


@helper(HOT)
def states_move(e, S, N, islot, sinfo, sval, bits, perm, pub, table, tmask, meta):
    """Move item e, just observed, from its old state to (S[e], N[e]) (needs a free slot).

    A new state starts its brackets from the old state's reference point: one
    observation moves the index little. An item alone in its state (an exploited item,
    most moves of cascade-ucbv and cascade-egreedy) whose new state is not alive keeps its
    slot and its position, renamed in place: no bitset, count or position to change (the
    old path freed the slot and reopened it at the last alive position; the scans meet the
    states in another order, the same lists: callgrind, L = 2048, 5 runs x 1e4, cascade-ucbv
    3,839 -> 3,663 instructions a step, cascade-ucb1 2,077 -> 2,103).
    """
    u = np.uint64(e)  # item and slot ids unsigned: their uses skip numba's negative-index fix
    sl = np.uint64(islot[u])
    if sinfo[sl, _CNT] == 1:  # e alone: sl empties or is renamed; out of the hash first
        _unhash(sl, sinfo, table, tmask)
        s = S[u]
        n = N[u]
        um = np.uint64(tmask)  # (entry indices unsigned, as in _add)
        i = np.uint64(_home(s, n, tmask))  # the new state's slot, or the empty entry ending
        while True:  # its probe run
            o = table[i]
            if o < 0:
                break
            uo = np.uint64(o)
            if sinfo[uo, _S] == s and sinfo[uo, _N] == n:
                break
            i = (i + np.uint64(1)) & um
        w = u >> 6
        if o < 0:  # rename sl in place (its position too): a new state, of the one item e
            pub[_out_of_run(sl, sinfo[sl, _POS], sinfo, perm, pub, meta)] = np.inf
            sinfo[sl, _S] = s
            sinfo[sl, _N] = n
            sinfo[sl, _UBT] = -1
            sinfo[sl, _BT] = -1
            sinfo[sl, _EX] = 0
            sinfo[sl, _HINT] = w
            sinfo[sl, _TOP] = w
            sval[sl, _K0] = -1.0  # _Q, the reference point, is the old state's: kept
            table[i] = sl
            return
        bit = np.int64(1) << (e & 63)  # into the alive state o; sl freed
        bits[sl, w] &= ~bit
        sinfo[sl, _CNT] = 0
        _free(sl, sinfo, perm, pub, meta)
        _join(e, o, bits, sinfo, islot)
        return
    q0 = sval[sl, _Q]
    # take e out of its state, which keeps other items
    bits[sl, u >> 6] &= ~(np.int64(1) << (e & 63))
    sinfo[sl, _CNT] -= 1
    _add(e, S[u], N[u], q0, islot, sinfo, sval, bits, perm, pub, table, tmask, meta)


# The tables are allocated 1-d with the allocators every kernel compiles anyway and
# reshaped (kernel.zeros_f): the 2-d and 3-d np.zeros / np.empty here were five more
# numpy allocators to compile (about 0.7 s of a first compile at L = 2048).
@helper(INNER)
def _new_table(B, cap):
    """(table (B, size) all -1, size - 1): the hashes of B tables of ``cap`` slots, size the
    least power of two >= max(64, 4 cap)."""
    tsize = 64
    while tsize < 4 * cap:
        tsize *= 2
    table = np.zeros(B * tsize, np.int64).reshape((B, tsize))  # filled by hand (np.full: one
    # more allocator to compile)
    for b in range(B):
        for i in range(tsize):
            table[b, i] = -1
    return table, tsize - 1


@helper(INNER)
def states_grow(sinfo, sval, bits, perm, pub, table):
    """(sinfo, sval, bits, perm, pub, table, tmask) of the B tables with twice the slots
    (the new ones free) and a hash of twice the size (the alive states inserted again)."""
    B, cap = perm.shape
    W = bits.shape[2]
    si = np.zeros(B * 2 * cap * _NF, np.int64).reshape((B, 2 * cap, _NF))
    sv = zeros_f(B * 2 * cap * _NV).reshape((B, 2 * cap, _NV))
    bi = np.zeros(B * 2 * cap * W, np.int64).reshape((B, 2 * cap, W))
    pe = np.zeros(B * 2 * cap, np.int64).reshape((B, 2 * cap))
    pu = np.empty(B * 2 * cap).reshape((B, 2 * cap))
    # element-wise copies: a slice assignment compiles numba's shape-error path (seconds)
    for b in range(B):
        for i in range(cap):
            for f in range(_NF):
                si[b, i, f] = sinfo[b, i, f]
            for f in range(_NV):
                sv[b, i, f] = sval[b, i, f]
            for w in range(bits.shape[2]):
                bi[b, i, w] = bits[b, i, w]
            pe[b, i] = perm[b, i]
            pu[b, i] = pub[b, i]
        for i in range(cap, 2 * cap):
            pe[b, i] = i
            pu[b, i] = np.inf
    ta, tmask = _new_table(B, 2 * cap)
    for b in range(B):
        for i in range(table.shape[1]):
            sl = table[b, i]
            if sl >= 0:
                j = _home(si[b, sl, _S], si[b, sl, _N], tmask)
                while ta[b, j] >= 0:
                    j = (j + 1) & tmask
                ta[b, j] = sl
    return si, sv, bi, pe, pu, ta, tmask


@helper(INNER)
def states_empty(B, L):
    """B empty state tables for L items: :func:`states_new`'s arrays before its first item
    (``meta[:, 1] = -1``), in its order; ``B`` and ``L`` int64 (one compile for both callers,
    states_new and ``_index_states.w0_table``)."""
    W = (L + 63) // 64
    sinfo = np.zeros(B * _CAP0 * _NF, np.int64).reshape((B, _CAP0, _NF))
    sval = zeros_f(B * _CAP0 * _NV).reshape((B, _CAP0, _NV))
    bits = np.zeros(B * _CAP0 * W, np.int64).reshape((B, _CAP0, W))
    perm = np.zeros(B * _CAP0, np.int64).reshape((B, _CAP0))
    pub = np.empty(B * _CAP0).reshape((B, _CAP0))
    for b in range(B):
        for i in range(_CAP0):
            perm[b, i] = i
            pub[b, i] = np.inf
    table, tmask = _new_table(B, np.int64(_CAP0))  # (not a literal: states_grow's signature)
    islot = np.zeros(B * L, np.int64).reshape((B, L))
    # alive states, epoch of pub, length of states_pick's sorted run (0: none)
    meta = np.zeros(3 * B, np.int64).reshape((B, 3))
    for b in range(B):
        meta[b, 1] = -1
    return sinfo, sval, bits, perm, pub, table, tmask, islot, meta


@helper(INNER)
def states_new(S, N):
    """B state tables, one per row of the counts S, N (B, L) (ranked-klucb: one per bandit).

    Returns ``(sinfo, sval, bits, perm, pub, table, tmask, islot, meta)`` (module docstring),
    each with a leading axis of B; the helpers take one table's rows (``sinfo[b]``...).
    """
    B, L = S.shape
    sinfo, sval, bits, perm, pub, table, tmask, islot, meta = states_empty(B, L)
    for b in range(B):
        sl = np.int64(-1)  # the state of the previous item: the next one is often in it too
        # (no probe); not a literal -1, which typed a second _append
        for e in range(L):
            if sl >= 0 and S[b, e] == sinfo[b, sl, _S] and N[b, e] == sinfo[b, sl, _N]:
                _append(e, sl, islot[b], sinfo[b], bits[b])
                continue
            if meta[b, 0] == perm.shape[1]:
                sinfo, sval, bits, perm, pub, table, tmask = states_grow(
                    sinfo, sval, bits, perm, pub, table
                )
            _add(e, S[b, e], N[b, e], 0.0, islot[b], sinfo[b], sval[b], bits[b], perm[b],
                 pub[b], table[b], tmask, meta[b])  # fmt: skip
            sl = islot[b, e]
    return sinfo, sval, bits, perm, pub, table, tmask, islot, meta


@helper(HOT)
def _first(sl, sinfo, bits):
    """Smallest item id of slot sl (which has items); moves the word hint up to it."""
    w = sinfo[sl, _HINT]
    while bits[sl, w] == 0:
        w += 1
    sinfo[sl, _HINT] = w
    return (w << 6) + trailing_zeros(bits[sl, w])


@helper(HOT)
def _next(sl, e, sinfo, bits):
    """Smallest item id of slot sl above e, or -1. The scan stops at the slot's top word
    (at large L a state's items may lie in a few of thousands of words)."""
    w = e >> 6
    b = e & 63
    x = bits[sl, w] & ~((np.int64(2) << b) - 1)  # the bits above b (none if b == 63)
    top = sinfo[sl, _TOP]
    while x == 0:
        w += 1
        if w > top:
            return -1
        x = bits[sl, w]
    return (w << 6) + trailing_zeros(x)


@helper(HOT)
def _advance(sl, e, sinfo, bits):
    """Cursor of a merge after slot sl emitted e: its next id, or -1 once all its items
    are out (no scan for the last one)."""
    o = sinfo[sl, _OUT] + 1
    sinfo[sl, _OUT] = o
    if o >= sinfo[sl, _CNT]:
        return -1
    return _next(sl, e, sinfo, bits)


@cold
def _exact(sl, th, sinfo, sval):
    """Settle slot sl's bracket to its exact index (klucb_scalar, as the plain loop); the
    index becomes the state's reference point."""
    s = sinfo[sl, _S]
    n = sinfo[sl, _N]
    v = klucb_scalar(s / n if n > 0 else 0.0, float(n), th)
    sval[sl, _LO] = v
    sval[sl, _HI] = v
    sval[sl, _Q] = v
    sval[sl, _K0] = -1.0
    sinfo[sl, _EX] = 1


@helper(HOT)
def _bracket_state(sl, th, sinfo, sval):
    """(lo, hi, exact) with slot sl's index klucb_scalar(S/N, N, th) in [lo, hi]; sets
    ``sval[sl, _QN]`` to the bracket's Newton point.

    From the state's reference point ``q0 = sval[sl, _Q]`` in (p, 1) and ``kl(p, q0)``,
    ``1 / h'(q0)``, ``1 / kl(p, q0)``, computed once per reference (``_K0 < 0``: not yet)
    and kept, with the state's p and 1 / N: a state does not change, so a bracket at any
    threshold costs a few flops, no logarithm and no division
    (:func:`._klucb_select._ends`; ``th * (1 / N)`` for ``th / N`` moves the ends by a few
    ulps, far inside PAD, as in the bracketed selection). A state of S = 0 brackets its
    closed-form index from the one kept at an earlier threshold (no exp) while the
    bracket is narrower than about LOOSE. Other closed-form indices (N = 0, p = 1,
    th <= 0) and a reference outside (p, 1) give the exact index
    (:func:`._klucb_select._closed_index`: klucb_scalar, its closed forms inline); a new
    reference's kl is :func:`_kl_ref`'s (called).
    """
    k0 = sval[sl, _K0]
    if not (k0 >= 0.0 and th > 0.0):  # no kept reference that serves
        if k0 == _ZREF and th > 0.0:  # (only a state of S = 0 < N keeps _ZREF)
            # p = 0: klucb_scalar's closed form -expm1(-r), r = th / N, from its value q0
            # at a kept r0 (_P holds r0): 1 - q = (1 - q0) exp(-d), d = r - r0, and 1 - d <=
            # exp(-d) <= 1 - d + d^2 for |d| <= 1; the terms' rounding and expm1's (an ulp)
            # are far inside PAD. No exp, no division a step.
            d = th * sval[sl, _IN] - sval[sl, _P]
            if d * d <= LOOSE:
                u = 1.0 - sval[sl, _Q]
                sval[sl, _QN] = sval[sl, _Q]  # an overlap settles it exactly (_settle)
                return 1.0 - u * (1.0 - d + d * d) - PAD, 1.0 - u * (1.0 - d) + PAD, False
        s = sinfo[sl, _S]
        n = sinfo[sl, _N]
        p = s / n if n > 0 else 0.0
        q0 = sval[sl, _Q]
        if s == 0 and n > 0 and th > 0.0:  # at a new r0, kept (_ZREF)
            r0 = th / float(n)
            v = -math.expm1(-r0)  # klucb_scalar(0.0, n, th)'s own operations (no call)
            sval[sl, _QN] = v
            sval[sl, _Q] = v
            sval[sl, _P] = r0
            sval[sl, _IN] = 1.0 / float(n)
            sval[sl, _K0] = _ZREF
            return v, v, True
        if n <= 0 or p <= 0.0 or p >= 1.0 or th <= 0.0 or not (p < q0 < 1.0):
            v = _closed_index(p, float(n), th)  # (klucb_scalar's value; its closed forms inline)
            sval[sl, _QN] = v
            sval[sl, _Q] = v  # the next reference (in (p, 1) unless the index has a closed form)
            sval[sl, _K0] = -1.0
            return v, v, True
        # a new reference: kl(p, q0) (kl_scalar's value, from its log ratios) and the rest
        k0 = _kl_ref(p, q0)
        sval[sl, _K0] = k0
        sval[sl, _ID0] = q0 * (1.0 - q0) / (q0 - p)
        sval[sl, _IK] = 1.0 / k0
        sval[sl, _P] = p
        sval[sl, _IN] = 1.0 / float(n)
    # from the reference (kept, or just made: _P, _Q, _IN, _ID0, _IK are its, as above)
    lo, hi, qn = _ends(
        sval[sl, _P], sval[sl, _Q], th * sval[sl, _IN], k0, k0, sval[sl, _ID0], sval[sl, _IK]
    )
    sval[sl, _QN] = qn
    if hi - lo > LOOSE:  # the root has moved away from q0: the next bracket starts from qn
        sval[sl, _Q] = qn
        sval[sl, _K0] = -1.0
    return lo, hi, False


@cold
def _kl_ref(p, q):
    """kl(p, q) for 0 < p < q < 1, kl_scalar's value bit for bit (from its own log ratios),
    called: one copy of its logarithms for every bracket site (scalars in and out: a call
    moves three machine words, where an array argument moves seven or nine)."""
    a, b = _log_ratios(p, q)
    return p * a + (1.0 - p) * b


@cold
def _settle(sl, t, th, sinfo, sval):
    """Narrow slot sl's bracket, which overlaps another: the first time in step t move the
    reference to its Newton point (one kl; the bracket shrinks to second order), else the
    exact index (klucb_scalar)."""
    if sinfo[sl, _RF] != t:
        sinfo[sl, _RF] = t
        qn = sval[sl, _QN]
        if qn != sval[sl, _Q]:
            sval[sl, _Q] = qn
            sval[sl, _K0] = -1.0
            lo, hi, ex = _bracket_state(sl, th, sinfo, sval)
            if lo > sval[sl, _LO]:
                sval[sl, _LO] = lo
            if hi < sval[sl, _HI]:
                sval[sl, _HI] = hi
            if ex:
                sval[sl, _LO] = lo
                sval[sl, _HI] = hi
                sinfo[sl, _EX] = 1
            return
    _exact(sl, th, sinfo, sval)


@helper(HOT)
def _epoch_bound(sl, q, t_ep, th_ep, sinfo, sval, pub):
    """Slot sl's upper bound of its index until the epoch's end (threshold ``th_ep``),
    bracketed once an epoch and kept in ``sval[sl, _UB]`` and, for the alive state at
    position q >= 0, in ``pub[q]`` (the scans' skip list)."""
    if sinfo[sl, _UBT] != t_ep:
        r = _bracket_state(sl, th_ep, sinfo, sval)
        sval[sl, _UB] = r[1] + PAD  # PAD also when exact: th <= th_ep may round above
        sinfo[sl, _UBT] = t_ep
        if q >= 0:
            pub[q] = sval[sl, _UB]
    return sval[sl, _UB]


@helper(HOT)
def _bracket_candidate(sl, t, th, sinfo, sval):
    """Bracket candidate slot sl's index at step t (its ends, exactness and step stamp
    kept in the tables); returns the lower end."""
    r = _bracket_state(sl, th, sinfo, sval)
    sval[sl, _LO] = r[0]
    sval[sl, _HI] = r[1]
    sinfo[sl, _EX] = 1 if r[2] else 0
    sinfo[sl, _BT] = t
    return r[0]


@helper(HOT)
def _smallest_next(cur, g, sinfo):
    """The position in ``cur[:g]`` of the state whose next item (``_CUR``) has the
    smallest id, -1 when every one is exhausted: one step of merging the ids of states
    of bit-identical index in increasing order."""
    b = -1
    for x in range(g):
        e = sinfo[cur[x], _CUR]
        if e >= 0 and (b < 0 or e < sinfo[cur[b], _CUR]):
            b = x
    return b


@helper(HOT)
def _emit(sl, sinfo, bits, out, k, m):
    """Append the smallest ids of slot sl to out[k:m]; returns the new k."""
    e = _first(sl, sinfo, bits)
    c = sinfo[sl, _CNT]
    while k < m:
        out[k] = e
        k += 1
        c -= 1
        if c == 0:  # its last item: no scan for another
            break
        e = _next(sl, e, sinfo, bits)
    return k


@helper(HOT)
def states_top(
    t, th, t_ep, th_ep, inc, ninc, m, islot, sinfo, sval, bits, perm, pub, meta, tops, cand,
    cur, out,
):  # fmt: skip
    """``out[:m]`` = the m items of largest KL-UCB index, decreasing, ties to the smaller id.

    The same list as :func:`simulate.policies.kernel.select_top` on
    ``klucb_scalar(S[e] / N[e], N[e], th)``. Each candidate state gets a bracket of its
    index (:func:`_bracket_state`, from its reference point: no kl once made). tau, the
    m-th largest lower end (with multiplicity) among the candidates so far, starting with
    the states of the incumbents ``inc[:ninc]`` (items likely to be on top), is at most
    the m-th largest index; a state whose upper bound is below tau has none of the m
    items and is not bracketed, nor kept if its bracket ends below the final tau. The
    states are then taken by decreasing index: one whose bracket is above every other's
    goes first; overlapping ones get their exact index (klucb_scalar), and states of
    bit-identical index merge their ids. Upper bounds are (re)computed at the epoch's end
    ``t_ep`` (threshold ``th_ep``). ``cand`` and ``cur`` are work arrays of at least the
    number of alive states; ``tops`` of m.
    """
    for i in range(m):
        tops[i] = -np.inf
    if meta[1] != t_ep:  # a new epoch: every bound is to be computed again
        for i in range(meta[0]):
            pub[i] = np.inf
        meta[1] = t_ep
    nc = np.int64(0)  # not a literal: callees compile once
    thr = -np.inf  # tops[m - 1], kept in a register (the scan compares every state to it)
    for i in range(ninc + meta[0]):  # the incumbents' states, then every alive state
        if i >= ninc and pub[i - ninc] < thr:  # pub: this epoch's bound (or inf)
            continue
        # slot and item ids read unsigned: their uses skip numba's negative-index fix
        sl = np.uint64(islot[np.uint64(inc[i])] if i < ninc else perm[i - ninc])
        if sinfo[sl, _BT] == t:
            continue
        if i >= ninc:
            if _epoch_bound(sl, i - ninc, t_ep, th_ep, sinfo, sval, pub) < thr:
                continue
        # a candidate: bracket its index, list it, push its lower end once per item
        x = _bracket_candidate(sl, t, th, sinfo, sval)
        cand[nc] = sl
        nc += 1
        if x > thr:  # tops[:m]: the m largest, decreasing; x r times, in one shift
            # (positions unsigned: no negative-index fix; q + r for q - r >= j)
            r = np.uint64(min(sinfo[sl, _CNT], m))
            um = np.uint64(m)
            j = um - np.uint64(1)  # x goes after the entries >= x: at j, the first below it
            while j > np.uint64(0) and tops[j - np.uint64(1)] < x:
                j -= np.uint64(1)
            q = um
            while q > j + r:
                q -= np.uint64(1)
                tops[q] = tops[q - r]
            q = min(j + r, um)
            while q > j:
                q -= np.uint64(1)
                tops[q] = x
            thr = tops[um - np.uint64(1)]
    tau = thr
    nk = 0
    for i in range(nc):
        sl = np.uint64(cand[i])  # slot ids unsigned here too
        if sval[sl, _HI] >= tau:
            cand[nk] = sl
            nk += 1
    k = 0
    while k < m and nk > 0:
        ia = 0  # the kept candidate of highest upper end
        for i in range(1, nk):
            if sval[np.uint64(cand[i]), _HI] > sval[np.uint64(cand[ia]), _HI]:
                ia = i
        a = np.uint64(cand[ia])
        if sinfo[a, _EX] == 0:
            lo = sval[a, _LO]
            clash = False
            for i in range(nk):
                if i != ia and sval[np.uint64(cand[i]), _HI] >= lo:
                    clash = True
                    break
            if clash:
                _settle(a, t, th, sinfo, sval)
                continue
            k = _emit(a, sinfo, bits, out, k, m)  # above every other state
            nk -= 1
            cand[ia] = cand[nk]
            continue
        v = sval[a, _HI]  # exact; every other index is <= v: settle those that may be v
        ng = 0
        for i in range(nk):
            c = np.uint64(cand[i])
            if i != ia and sval[c, _HI] >= v:
                if sinfo[c, _EX] == 0:
                    _settle(c, t, th, sinfo, sval)
                    if sinfo[c, _EX] == 0 and sval[c, _HI] >= v:
                        _exact(c, th, sinfo, sval)
                if sval[c, _HI] == v:
                    ng += 1
        if ng == 0:
            k = _emit(a, sinfo, bits, out, k, m)
            nk -= 1
            cand[ia] = cand[nk]
            continue
        # the states of index exactly v: their ids merged in increasing order
        g = 0
        i = 0
        while i < nk:
            c = np.uint64(cand[i])
            if sinfo[c, _EX] == 1 and sval[c, _HI] == v:
                cur[g] = c
                g += 1
                sinfo[c, _CUR] = _first(c, sinfo, bits)
                sinfo[c, _OUT] = 0
                nk -= 1
                cand[i] = cand[nk]
            else:
                i += 1
        while k < m:
            b = _smallest_next(cur, g, sinfo)
            if b < 0:
                break
            c = np.uint64(cur[b])
            e = sinfo[c, _CUR]
            out[k] = e
            k += 1
            sinfo[c, _CUR] = _advance(c, e, sinfo, bits)


@helper(HOT)
def _pick_visit(sl, q, t, th, t_ep, th_ep, tau, nc, above, nab, islot, sinfo, sval, pub, cand):
    """states_pick's look at slot sl (at position q of the alive states; q < 0: its bound
    is not to be checked): (tau, nc) after it, sl listed in ``cand`` if a candidate."""
    if sinfo[sl, _BT] == t:  # bracketed already in step t
        return tau, nc
    if q >= 0:
        if _epoch_bound(sl, q, t_ep, th_ep, sinfo, sval, pub) < tau:
            return tau, nc
    # a candidate: bracket its index, list it; its lower end is tau's if it is above and
    # the state holds an item not shown (surely if it has more than nab)
    lo = _bracket_candidate(sl, t, th, sinfo, sval)
    cand[nc] = sl
    nc += 1
    if lo > tau:
        c = sinfo[sl, _CNT]
        if c <= nab:
            for j in range(nab):
                if islot[np.uint64(above[j])] == sl:  # (an item id: unsigned)
                    c -= 1
        if c > 0:
            tau = lo
    return tau, nc


@helper(HOT)
def _sort_run(ns, na, t_ep, th_ep, sinfo, sval, perm, pub, meta):
    """Extend the sorted run ``perm[:ns]`` (bounds of the epoch t_ep increasing) to all
    ``na`` alive states, bracketing the bounds not computed yet (insertion: the unsorted
    ones are few, or all of them at an epoch's first step, when the states are few or the
    epoch long)."""
    for q in range(ns, na):
        o = np.uint64(perm[q])  # slot ids unsigned: no negative-index fix on their uses
        v = _epoch_bound(o, q, t_ep, th_ep, sinfo, sval, pub)
        j = q
        while j > 0 and pub[j - 1] > v:
            x = np.uint64(perm[j - 1])
            perm[j] = x
            pub[j] = pub[j - 1]
            sinfo[x, _POS] = j
            j -= 1
        perm[j] = o
        pub[j] = v
        sinfo[o, _POS] = j
    meta[2] = na


@helper(HOT)
def states_pick(
    t, th, t_ep, th_ep, i0, i1, above, nab, shown, islot, sinfo, sval, bits, perm, pub, meta,
    cand, cur,
):  # fmt: skip
    """(a, b): the item of largest KL-UCB index and the one of largest index not ``shown``
    (ties to the smaller id), ``shown`` holding exactly the items ``above[:nab]``.

    Bandit k of ranked-klucb: its pick and the item it shows, the first item not shown
    above in :func:`states_top`'s list of its ``nab + 1`` best, without that list: tau is
    the largest lower end among the candidate states that hold an item not shown (at
    least the (nab + 1)-th largest lower end, with multiplicity, states_top's, as at
    most nab of those are shown), and the states are taken by decreasing index, their
    ids in increasing order (merged across states of bit-identical index), until an item
    not shown comes out. No list of lower ends to keep sorted, fewer candidates, and
    usually one item emitted. Candidates, brackets, upper bounds and settling are
    states_top's; the incumbents are the states of items ``i0`` and ``i1`` (the bandit's
    previous shown item and pick), ``cand`` and ``cur`` work arrays of at least the
    number of alive states. The alive states are kept sorted by their bound of the epoch
    (``pub``): a run ``perm[:meta[2]]`` of increasing bounds, then the few states opened
    since (at most ``_UNSORTED`` at a step's start, plus the moves of one step), which
    are looked at first and then inserted into the run; the run is scanned from its
    largest bound and the scan stops at the first below tau (tau only grows during the
    scan, so every state left is below it). A new epoch empties the run (every bound is
    computed again) and its first step sorts them all. By callgrind at L = 2048, n = 1e5:
    5,103 -> 4,249 instructions a step against a scan of every state four at a time.
    """
    if meta[1] != t_ep:  # a new epoch: every bound is to be computed again, none sorted
        for i in range(meta[0]):
            pub[i] = np.inf
        meta[1] = t_ep
        meta[2] = 0
    na = meta[0]
    ns = meta[2]
    tau = -np.inf
    nc = np.int64(0)  # not a literal: callees compile once
    neg = np.int64(-1)  # no position: the bound is not looked at
    # slot and item ids read unsigned: their uses skip numba's negative-index fix
    sl = np.uint64(islot[np.uint64(i0)])
    tau, nc = _pick_visit(sl, neg, t, th, t_ep, th_ep, tau, nc, above, nab, islot, sinfo, sval,
                          pub, cand)  # fmt: skip
    sl = np.uint64(islot[np.uint64(i1)])
    tau, nc = _pick_visit(sl, neg, t, th, t_ep, th_ep, tau, nc, above, nab, islot, sinfo, sval,
                          pub, cand)  # fmt: skip
    for q in range(ns, na):  # the unsorted states (few: see _UNSORTED)
        if pub[q] >= tau:  # pub: this epoch's bound (or inf)
            sl = np.uint64(perm[q])
            tau, nc = _pick_visit(sl, q, t, th, t_ep, th_ep, tau, nc, above, nab, islot, sinfo,
                                  sval, pub, cand)  # fmt: skip
    q = ns - 1
    while q >= 0 and pub[q] >= tau:  # the sorted run, largest bound first: stop below tau
        sl = np.uint64(perm[q])
        tau, nc = _pick_visit(sl, neg, t, th, t_ep, th_ep, tau, nc, above, nab, islot, sinfo,
                              sval, pub, cand)  # fmt: skip
        q -= 1
    if ns == 0 or na - ns > _UNSORTED:
        _sort_run(ns, na, t_ep, th_ep, sinfo, sval, perm, pub, meta)
    nk = 0
    for i in range(nc):
        sl = np.uint64(cand[i])
        if sval[sl, _HI] >= tau:
            cand[nk] = sl
            nk += 1
    pick = np.int64(-1)
    while nk > 0:
        ia = 0  # the kept candidate of highest upper end
        for i in range(1, nk):
            if sval[np.uint64(cand[i]), _HI] > sval[np.uint64(cand[ia]), _HI]:
                ia = i
        a = np.uint64(cand[ia])
        g = 0  # the states whose items come next: cur[:g]
        if sinfo[a, _EX] == 0:
            lo = sval[a, _LO]
            clash = False
            for i in range(nk):
                if i != ia and sval[np.uint64(cand[i]), _HI] >= lo:
                    clash = True
                    break
            if clash:
                _settle(a, t, th, sinfo, sval)
                continue
            cur[0] = a  # above every other state
            g = 1
            nk -= 1
            cand[ia] = cand[nk]
        else:
            v = sval[a, _HI]  # exact; every other index is <= v: settle those that may be v
            for i in range(nk):
                c = np.uint64(cand[i])
                if i != ia and sval[c, _HI] >= v and sinfo[c, _EX] == 0:
                    _settle(c, t, th, sinfo, sval)
                    if sinfo[c, _EX] == 0 and sval[c, _HI] >= v:
                        _exact(c, th, sinfo, sval)
            i = 0  # the states of index exactly v (a among them): ids merged, increasing
            while i < nk:
                c = np.uint64(cand[i])
                if sinfo[c, _EX] == 1 and sval[c, _HI] == v:
                    cur[g] = c
                    g += 1
                    nk -= 1
                    cand[i] = cand[nk]
                else:
                    i += 1
        for x in range(g):
            c = np.uint64(cur[x])
            sinfo[c, _CUR] = _first(c, sinfo, bits)
            sinfo[c, _OUT] = 0
        while True:
            b = _smallest_next(cur, g, sinfo)
            if b < 0:
                break
            c = np.uint64(cur[b])
            e = sinfo[c, _CUR]
            if pick < 0:
                pick = e
            if not shown[e]:
                return pick, e
            sinfo[c, _CUR] = _advance(c, e, sinfo, bits)
    return pick, pick  # not reached: tau's state, kept, holds an item not shown
