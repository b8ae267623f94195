"""Exact top-K selection over the distinct (S, N) states for closed-form index policies.

CascadeUCB1 (:mod:`.ucb1`), CascadeUCB-V (:mod:`.cascade_ucbv`), the greedy step of
cascade-egreedy (:mod:`.egreedy`) and TS-Cascade (:mod:`.ts_cascade`) give item ``e`` at
step ``t`` an index that is a pure function of its state ``(S(e), N(e))`` and of the step
(TS-Cascade: also of the step's one shared normal ``Z_t``). Items of one state have the same
index, bit for bit, so the K largest indices (ties to the smaller id) are found over the
distinct states, as CascadeKL-UCB does from GROUP_MIN items on (:mod:`._klucb_states`,
whose state tables -- hash from (S, N) to a slot, a bitset of the slot's items -- this
module uses as they are). Between two steps only the <= K observed items change state, so
the tables are updated in O(K) and a step's work depends on the number of alive states
(tens on B_LB(2048, 4, 0.2, 0.15) up to n = 1e5, fewer at L = 65,536 up to the same n),
not on L.

Per step: the states of the incumbents (the previous list) get their exact index first;
tau, the m-th largest of these with multiplicity (a state of c items counts c times), is
a lower bound on the m-th largest index. Every other alive state is skipped if an upper
bound of its index is below tau, else its exact index is computed and tau raised. The
states whose index is >= the final tau hold the m items; they are emitted by decreasing
index, and the ids of states of bit-identical index merged in increasing order: the list
of :func:`.kernel.select_top` on every item's index, ties included.

Upper bounds. UCB1, UCB-V and the greedy index are nondecreasing in t (``log(t - 1)``,
``log t``: every floating-point operation of the formula is monotone, so the computed
index is too), so the index computed at the end ``t_ep`` of the current epoch (epochs grow
geometrically, :func:`._klucb_select.epoch`), plus PAD, bounds it at every step of the
epoch; it is computed once per state and epoch. A state never changes (observed items
move to another state), so a bound holds until its epoch ends. TS-Cascade's index moves
with ``Z_t``'s sign, so it selects with :func:`.ts_cascade.top_states` (its own pruning)
and shares :func:`index_of`, :func:`step_consts` and :func:`emit_above` with this one.

Tests: tests/simulate/test_selection_index_states.py (lazy == plain == reference at L up
to 2048 with ties across states, the bound property on every state).
"""

from __future__ import annotations

import math

import numba
import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

from cascading_bandits.bounds.indices import safe_log
from cascading_bandits.simulate.policies._klucb_select import GROW
from cascading_bandits.simulate.policies._klucb_states import (
    _BT,
    _CNT,
    _EX,
    _N,
    _S,
    _TOP,
    _UBT,
    _add,
    _first,
    _next,
    states_empty,
    states_grow,
    states_move,
)
from cascading_bandits.simulate.policies.kernel import (
    HOT,
    INNER,
    finish,
    helper,
    observe_w0,
    play,
    step_buffers,
)

__all__ = [
    "UCB1", "UCBV", "GREEDY", "TSCASCADE", "PAD", "STATES_MIN", "index_of", "step_consts",
    "index_top", "next_epoch", "index_buffers", "index_loop", "w0_table",
]  # fmt: skip

#: the number of items from which the policies select over the states; below it their
#: plain loop is faster (measured, one thread, B_LB(L, 4, 0.2, 0.15), 5e4 steps, states /
#: plain run-steps per CPU-second: cascade-ucb1 L = 64: 1.3M / 2.1M, 128: 1.27M / 0.86M;
#: ts-cascade 64: 1.66M / 1.77M, 128: 1.62M / 0.94M) and both take the same decisions
STATES_MIN = 96

#: index kinds (np.int64 at the call sites: one compilation)
UCB1, UCBV, GREEDY, TSCASCADE = 0, 1, 2, 3

#: slack added to every upper bound (the bounds are exact by monotonicity; this guards
#: against a libm ``log`` that is not monotone to the last ulp)
PAD = 1e-12

# columns of the state tables' float rows (sval of _klucb_states; its _Q column, which
# states_move copies from an item's old state, is _V here and is read only when _BT == t)
_A, _V = 0, 3  # the upper bound of the epoch, the step's exact index


@helper(HOT)
def step_consts(kind, t, params):
    """The index's per-step constant ``g`` at step t: the one the plain loop computes for
    every item (UCB1 ``alpha * log(t - 1)``, UCB-V ``log t``, TS-Cascade ``log(t + 1)``,
    greedy 0), in the plain loop's operations."""
    if kind == UCB1:
        return params[0] * safe_log(t - 1.0)
    if kind == UCBV:
        return math.log(float(t))
    if kind == TSCASCADE:
        return math.log(t + 1.0)
    return 0.0


@helper(HOT)
def _sigma(w, n, g):
    """TS-Cascade's sigma (ts_cascade.kernel's operations)."""
    r = g / (n + 1.0)
    return max(math.sqrt(w * (1.0 - w) * g / (n + 1.0)), r)


@helper(HOT)
def index_of(kind, s, n, g, z, params):
    """The index of a state (s, n) given the step's constant ``g`` (:func:`step_consts`) and
    TS-Cascade's shared normal ``z``: the plain loop's value, bit for bit."""
    if kind == UCB1:
        return s / n + math.sqrt(g / n)
    if kind == UCBV:
        w = s / n
        u = w + (math.sqrt(params[0] * (w * (1.0 - w)) * g / n) + params[1] * g / n)
        return u if u < 1.0 else 1.0
    if kind == GREEDY:
        return s / n
    w = s / n if n > 0 else 0.0
    return w + z * _sigma(w, n, g)


#: an unclipped UCB-V index at least this is 1 at every later step of the state (below)
SATURATED = 1.0 + 1e-9


@helper(HOT)
def _ucbv_index(sl, sinfo, g, params):
    """Slot sl's UCB-V index at the step of constant g: :func:`index_of`'s, bit for bit.

    The unclipped index only grows with t (module docstring), so a state whose index
    reached SATURATED (above 1 by far more than any rounding of log t) is clipped to 1 at
    every later step: it is marked (``_EX``, unused by these kinds; a new state starts at
    0) and its index taken without a division or a square root. In the bench's
    conditions (L = 2048, n = 1e4) most candidates are such states (``6 log t / N >= 1``
    for N up to about 50)."""
    if sinfo[sl, _EX] == 1:
        return 1.0
    n = sinfo[sl, _N]
    w = sinfo[sl, _S] / n
    u = w + (math.sqrt(params[0] * (w * (1.0 - w)) * g / n) + params[1] * g / n)
    if u < 1.0:
        return u
    if u >= SATURATED:
        sinfo[sl, _EX] = 1
    return 1.0


@helper(HOT)
def _set_bound(kind, sl, sinfo, sval, g, g_ep, t_ep, params):
    """Slot sl's upper bound for the steps up to ``t_ep`` (module docstring)."""
    s = sinfo[sl, _S]
    n = sinfo[sl, _N]
    sval[sl, _A] = index_of(kind, s, n, g_ep, 0.0, params) + PAD
    sinfo[sl, _UBT] = t_ep


@helper(HOT)
def _push(tops, m, x, cnt):
    """Insert x, cnt times (at most m), into tops[:m], the m largest so far, decreasing."""
    for _ in range(min(cnt, m)):
        if x <= tops[m - 1]:
            return
        j = m - 1
        while j > 0 and tops[j - 1] < x:
            tops[j] = tops[j - 1]
            j -= 1
        tops[j] = x


@helper(HOT)
def index_top(
    kind, t, z, g, t_ep, g_ep, params, inc, ninc, m, islot, sinfo, sval, bits, perm, pub,
    meta, tops, cand, cur, out,
):  # fmt: skip
    """``out[:m]`` = the m items of largest index, decreasing, ties to the smaller id.

    Parameters
    ----------
    kind : int64
        :data:`UCB1`, :data:`UCBV` or :data:`GREEDY` (TS-Cascade has
        :func:`.ts_cascade.top_states`).
    t : int
        The step; ``g`` its constant (:func:`step_consts`); ``z`` is passed to
        :func:`index_of`, which these kinds ignore.
    t_ep, g_ep : int, float
        End of the bounds' epoch holding t and the constant of step ``t_ep``.
    params : ndarray
        The policy's parameters (UCB-V: a, b).
    inc : ndarray (ninc,) int
        Incumbents (the previous list); may be ``out`` itself (read before it is written).
    m : int
        Items wanted.
    islot, sinfo, sval, bits, perm, pub, meta
        One state table (:mod:`._klucb_states`; ``pub`` holds the bounds by position).
    tops (m,), cand, cur (>= alive states) : work arrays.
    """
    for i in range(m):
        tops[i] = -np.inf
    if meta[1] != t_ep:  # a new epoch: every bound is to be computed again
        for i in range(meta[0]):
            pub[i] = np.inf
        meta[1] = t_ep
    nc = np.int64(0)  # not a literal: callees compile once
    for i in range(ninc):  # the incumbents' states first: tau from them
        sl = np.uint64(islot[inc[i]])  # unsigned: its uses skip numba's negative-index fix
        if sinfo[sl, _BT] != t:
            nc = _visit(kind, sl, t, z, g, params, sinfo, sval, tops, m, cand, nc)
    tau = tops[m - 1]  # in a register: the loop's stores could alias tops
    for p in range(meta[0]):  # then every alive state whose bound reaches tau
        if pub[p] < tau:  # pub: this epoch's bound (or inf)
            continue
        sl = np.uint64(perm[p])
        if sinfo[sl, _BT] == t:
            continue
        if sinfo[sl, _UBT] != t_ep:
            _set_bound(kind, sl, sinfo, sval, g, g_ep, t_ep, params)
            pub[p] = sval[sl, _A]
            if sval[sl, _A] < tau:
                continue
        nc = _visit(kind, sl, t, z, g, params, sinfo, sval, tops, m, cand, nc)
        tau = tops[m - 1]
    emit_above(tops, cand, nc, m, sinfo, sval, bits, cur, out)


@helper(HOT)
def _visit(kind, sl, t, z, g, params, sinfo, sval, tops, m, cand, nc):
    """Slot sl's exact index at step t, kept (``_V``, ``_BT``), sl made the candidate nc
    and pushed into tops; returns nc + 1."""
    if kind == UCBV:
        v = _ucbv_index(sl, sinfo, g, params)
    else:
        v = index_of(kind, sinfo[sl, _S], sinfo[sl, _N], g, z, params)
    sval[sl, _V] = v
    sinfo[sl, _BT] = t
    cand[nc] = sl
    _push(tops, m, v, sinfo[sl, _CNT])
    return nc + 1


@helper(HOT)
def _next_below(sl, e, lim, sinfo, bits):
    """Smallest item id of slot sl above e and below ``lim``, or -1: :func:`._klucb_states._next`
    with the word scan stopped at ``lim``'s word too (callgrind, cascade-ucbv L = 2048: 2,430
    instructions a step, 2,455 with the scan bounded by ``lim`` alone). A state's
    items may lie far apart (at L = 65,536, cascade-egreedy's explored items sit anywhere
    in 1,024 words): a merge whose list is full wants only the ids below its last one."""
    w = e >> 6
    b = e & 63
    x = bits[sl, w] & ~((np.int64(2) << b) - 1)  # the bits above b (none if b == 63)
    top = min(sinfo[sl, _TOP], (lim - 1) >> 6)
    while x == 0:
        w += 1
        if w > top:
            return -1
        x = bits[sl, w]
    f = (w << 6) + trailing_zeros(x)
    return f if f < lim else -1


@helper(HOT)
def _insert_id(e, out, k, nb, r):
    """Insert id e into ``out[k:k + nb]`` (increasing, at most r ids; when full, e is below
    its last, which it replaces); returns the new nb."""
    if nb == r:
        j = r - 1
    else:
        j = nb
        nb += 1
    while j > 0 and out[k + j - 1] > e:
        out[k + j] = out[k + j - 1]
        j -= 1
    out[k + j] = e
    return nb


@helper(HOT)
def _merge_smallest(cur, g_n, sinfo, bits, out, k, m):
    """``out[k:m]``, as far as they reach: the smallest ids of the slots ``cur[:g_n]``
    (states of bit-identical index), increasing; returns the new k.

    ``out[k:k + nb]`` is kept as the sorted list of the nb smallest ids seen so far (at
    most m - k). A state's ids come in increasing order, so its scan stops at the first id
    not below the list's last once the list is full: most tied states cost one ``_first``
    and one comparison. The ids of distinct states are distinct, so the list is the k-way
    merge of their ids cut at m - k (the merge by cursors cost about a third of a
    cascade-ucbv step at L = 2048, where about six states tie at index 1). Once the list
    is full, the scan for a state's next id stops at the list's last id
    (:func:`_next_below`): a state's ids may lie far apart (at L = 65,536, cascade-egreedy
    scanned about 65 words a step for ids the full list then rejected). Taking every
    state's first id before any state's second (to fill the list sooner) cut that scan
    further but cost UCB-V at L = 2048 about 9% a step (callgrind): dropped."""
    r = m - k
    nb = np.int64(0)  # not a literal: _insert_id compiles once
    for x in range(g_n):
        sl = np.uint64(cur[x])
        e = _first(sl, sinfo, bits)
        if nb == r and e >= out[k + r - 1]:
            continue
        c = sinfo[sl, _CNT]
        while True:
            nb = _insert_id(e, out, k, nb, r)
            c -= 1
            if c == 0:  # its last item: no scan for another
                break
            if nb < r:
                e = _next(sl, e, sinfo, bits)
            else:  # only an id below the list's last can enter
                e = _next_below(sl, e, out[k + r - 1], sinfo, bits)
                if e < 0:
                    break
    return k + nb


@helper(HOT)
def _emit_one(sl, sinfo, bits, out, k, m):
    """Append the smallest ids of slot sl to ``out[k:m]`` (k < m); returns the new k. As
    :func:`._klucb_states._emit`, without the scan for an id after the last one wanted."""
    e = _first(sl, sinfo, bits)
    c = sinfo[sl, _CNT]
    while True:
        out[k] = e
        k += 1
        c -= 1
        if c == 0 or k >= m:
            return k
        e = _next(sl, e, sinfo, bits)


@helper(HOT)
def emit_above(tops, cand, nc, m, sinfo, sval, bits, cur, out):
    """``out[:m]``: the items of the candidate states ``cand[:nc]`` whose exact index
    (``sval[sl, _V]``) is at least ``tau = tops[m - 1]``, by decreasing index, the ids of
    states of bit-identical index merged in increasing order (ties to the smaller id, as
    :func:`.kernel.select_top`). ``tops[:m]`` are the m largest indices of the candidates
    with multiplicity, decreasing, so tau's states fill ``out[:m]`` and ``tops[0]`` is the
    largest index. ``cand`` is reordered, ``cur`` is work space. The last step of
    :func:`index_top` and of ``ts_cascade.top_states``.

    The first pass takes out the states of index ``tops[0]``, keeps the other candidates
    at least tau and finds their largest index; each later pass takes out the states of
    the largest index left and finds the next largest. The passes keep the candidates'
    order: :func:`index_top` lists the incumbents' states first, and when many states tie
    (UCB-V at index 1) the incumbents hold the smallest ids, so :func:`_merge_smallest`
    fills the list from them and rejects each other state on its first id."""
    tau = tops[m - 1]
    v = tops[0]
    g_n = np.int64(0)  # the candidates of index exactly v (in order; not a literal: one compile)
    nk = 0  # the others at least tau, kept in cand (in order)
    vmax = -np.inf  # their largest index
    for i in range(nc):
        sl = np.uint64(cand[i])
        x = sval[sl, _V]
        if x == v:
            cur[g_n] = sl
            g_n += 1
        elif x >= tau:
            cand[nk] = sl
            nk += 1
            if x > vmax:
                vmax = x
    k = np.int64(0)  # not a literal: the merges compile once
    while True:
        if g_n == 1:
            k = _emit_one(np.uint64(cur[0]), sinfo, bits, out, k, m)
        else:
            k = _merge_smallest(cur, g_n, sinfo, bits, out, k, m)
        if k >= m or nk == 0:
            return
        v = vmax
        vmax = -np.inf
        g_n = 0
        nl = 0
        for i in range(nk):
            c = np.uint64(cand[i])
            x = sval[c, _V]
            if x == v:
                cur[g_n] = c
                g_n += 1
            else:
                cand[nl] = c
                nl += 1
                if x > vmax:
                    vmax = x
        nk = nl


@helper(HOT)
def next_epoch(t, t_ep):
    """End of the bounds' epoch holding step t: ``t_ep`` until it has passed, then
    ``t + t // GROW + 1`` (the epochs of :func:`._klucb_select.epoch`)."""
    if t > t_ep:
        return t + t // GROW + 1
    return t_ep


@helper(INNER)
def index_buffers(L, K):
    """(tops (K,) float, cand (L,) int, cur (L,) int): :func:`index_top`'s work arrays
    (allocated in a helper, with the allocators every kernel compiles anyway). L may be
    the slots of the state table (``perm.size``, at least the alive states), allocated
    again when the table grows."""
    return np.empty(K), np.zeros(L, np.int64), np.zeros(L, np.int64)


@helper(INNER)
def w0_table(S):
    """The state table of Algorithm 1's initial observation (``S`` (L,) in {0, 1}, N = 1:
    :func:`.kernel.observe_w0`'s): ``states_new(S.reshape((1, L)), N.reshape((1, L)))``,
    array for array, built a word of the bitsets at a time.

    ``states_new`` takes the items one by one (a hash probe or an append each, through
    row views that numba reference-counts: about 70 instructions an item, a third of a
    cascade-egreedy run's set-up at L = 65,536). Here the two states (0, 1) and (1, 1)
    are opened by ``_add`` for their first items, as states_new opens them (item 0's state
    in slot 0, the other in slot 1), then every item's bit, slot and the counts are set
    from one pass over S.
    """
    L = S.size
    W = (L + 63) // 64
    # states_new's arrays for B = 1 (tests compare the two builds)
    sinfo, sval, bits, perm, pub, table, tmask, islot, meta = states_empty(np.int64(1), L)
    si, sv, bi, pe, pu = sinfo[0], sval[0], bits[0], perm[0], pub[0]
    ta, isl, me = table[0], islot[0], meta[0]
    one = np.int64(1)  # not literals: _add compiles once (states_new's types)
    e1 = np.int64(0)
    _add(e1, S[0], one, 0.0, isl, si, sv, bi, pe, pu, ta, tmask, me)
    while e1 < L and S[e1] == S[0]:
        e1 += 1
    if e1 < L:
        _add(e1, S[e1], one, 0.0, isl, si, sv, bi, pe, pu, ta, tmask, me)
    sl1 = isl[0] if S[0] == 1 else (isl[e1] if e1 < L else 0)  # the slot of (1, 1)
    sl0 = isl[0] if S[0] == 0 else (isl[e1] if e1 < L else 0)  # of (0, 1)
    c1 = 0
    last0 = -1
    last1 = -1
    for w in range(W):
        lo = w << 6
        hi = min(lo + 64, L)
        m1 = np.int64(0)
        for e in range(lo, hi):
            if S[e] != 0:
                m1 |= np.int64(1) << (e - lo)
                isl[e] = sl1
                last1 = e
                c1 += 1
            else:
                isl[e] = sl0
                last0 = e
        full = np.int64(-1) if hi - lo == 64 else (np.int64(1) << (hi - lo)) - 1
        if m1 != 0:
            bi[sl1, w] |= m1
        if full & ~m1 != 0:
            bi[sl0, w] |= full & ~m1
    if last1 >= 0:
        si[sl1, _CNT] = c1
        si[sl1, _TOP] = last1 >> 6
    if last0 >= 0:
        si[sl0, _CNT] = L - c1
        si[sl0, _TOP] = last0 >> 6
    return sinfo, sval, bits, perm, pub, table, tmask, islot, meta


@numba.njit(cache=True, inline="always")
def index_loop(env, params, ukey, regret_out, counts_out, trace, kind):
    """A cascade learner (Algorithm 1: ``w_0``, then the K largest indices each step) whose
    index is of ``kind``, selected over the states; inlined in each policy's kernel."""
    code, attract, satisfy, gamma, K, n, order, fstar, checkpoints, lazy = env
    S, N = observe_w0(ukey, attract)
    st = step_buffers(1, K)  # its idx and taken (L,) are not read here: one element each
    idx, taken, sel, lst, clicks, scratch = st
    sinfo, sval, bits, perm, pub, table, tmask, islot, meta = w0_table(S)
    # one table: its rows, taken once (a view made per step costs reference counting)
    si, sv, bi, pe, pu = sinfo[0], sval[0], bits[0], perm[0], pub[0]
    ta, isl, me = table[0], islot[0], meta[0]
    # work arrays of one entry per slot, not per item (1 MB zeroed a run at L = 65,536)
    tops, cand, cur = index_buffers(pe.size, K)
    ninc = np.int64(0)  # not literals: callees compile once
    t_ep = np.int64(0)
    g_ep = 0.0
    cum, j = 0.0, np.int64(0)
    for t in range(1, n + 1):
        if t > t_ep:
            t_ep = next_epoch(t, t_ep)
            g_ep = step_consts(kind, t_ep, params)
        g = step_consts(kind, t, params)
        index_top(kind, t, 0.0, g, t_ep, g_ep, params, sel, ninc, K, isl, si, sv, bi, pe, pu,
                  me, tops, cand, cur, sel)  # fmt: skip
        ninc = K
        cum, j, nobs, last = play(
            t, S, N, ukey, cum, j, code, attract, satisfy, gamma, K, order, fstar, checkpoints,
            sel, lst, clicks, scratch, trace, regret_out,
        )  # fmt: skip
        if pe.size - me[0] < K:  # each move may open one state
            g = states_grow(sinfo, sval, bits, perm, pub, table)
            sinfo, sval, bits, perm, pub, table, tmask = g
            si, sv, bi, pe, pu, ta = sinfo[0], sval[0], bits[0], perm[0], pub[0], table[0]
            tops, cand, cur = index_buffers(pe.size, K)
        for k in range(nobs):
            states_move(lst[k], S, N, isl, si, sv, bi, pe, pu, ta, tmask, me)
    finish(N, counts_out)
