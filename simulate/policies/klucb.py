"""``cascade-klucb(c=3)``: CascadeKL-UCB (Algorithm 1 with the KL-UCB index, Section 3.2).

At step ``t`` the index of item ``e`` is ``klucb_scalar(S(e)/T(e), T(e), log t + c log log t)``
(:mod:`bounds.kl`, :func:`bounds.indices.klucb_threshold_scalar`, small-t rule); the
paper's ``c`` is 3. Observations and ``w_0`` as for CascadeUCB1 (:mod:`.ucb1`).
``lazy=True`` (the default) selects the top K without computing every index, exactly
(:mod:`._klucb_select`, bracketed, for L < GROUP_MIN; :mod:`._klucb_states`, over the
distinct (S, T) states, from there on).
"""

from __future__ import annotations

import numba
import numpy as np

from cascading_bandits.bounds.indices import klucb_threshold_scalar
from cascading_bandits.bounds.kl import klucb_scalar
from cascading_bandits.simulate.policies._klucb_select import (
    FW,
    GROUP_MIN,
    IW,
    _lazy_select,
    epoch,
)
from cascading_bandits.simulate.policies._klucb_states import (
    states_grow,
    states_move,
    states_new,
    states_top,
)
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
from cascading_bandits.simulate.policies.registry import Param, register_policy


@numba.njit(**NJIT)
def kernel_plain(env, params, ukey, pkey, regret_out, counts_out, trace):
    """Every index every step (the definition; lazy=False)."""
    code, attract, satisfy, gamma, K, n, order, fstar, checkpoints, lazy = env
    c = params[0]
    L = attract.size
    S, N = observe_w0(ukey, attract)
    st = step_buffers(L, K)
    idx, taken, sel, lst, clicks, scratch = st
    cum, j = 0.0, np.int64(0)  # not a literal 0: play compiles once
    for t in range(1, n + 1):
        th = klucb_threshold_scalar(float(t), c)
        for e in range(L):
            idx[e] = klucb_scalar(S[e] / N[e], float(N[e]), th)
        select_top(idx, K, st[1], st[2])
        cum, j, _, _ = play(
            t, S, N, ukey, cum, j, code, attract, satisfy, gamma, K, order, fstar, checkpoints,
            sel, lst, clicks, scratch, trace, regret_out,
        )  # fmt: skip
    finish(N, counts_out)


@helper(INNER)
def _bracketed_buffers(L, K):
    """(F (L, FW) float, Ist (L, IW) int, U (L + 1,) float, tops (K,) float, shown (L,) bool,
    all False): the bracketed selection's per-item state (_klucb_select; U: no valid bound).

    Allocated in a helper like :func:`step_buffers`: numba compiles a numpy allocator once
    per signature and per caller's options, so the kernel's own np.empty(K) was a second
    compile of step_buffers' one.
    """
    shown = falses(L)  # nothing is shown before the list is chosen
    # 1-d allocations of the signatures step_buffers and observe_w0 compile anyway,
    # reshaped: np.zeros of a 2-d shape compiled two more allocators (0.4 s)
    F = zeros_f(L * FW).reshape((L, FW))
    U = np.empty(L + 1)
    for e in range(L):
        U[e] = np.inf
    U[L] = -1.0  # no epoch yet
    return F, np.zeros(L * IW, np.int64).reshape((L, IW)), U, np.empty(K), shown


@numba.njit(**NJIT)
def kernel_bracketed(env, params, ukey, pkey, regret_out, counts_out, trace):
    """Lazy exact selection with brackets (L < GROUP_MIN; see _klucb_select)."""
    code, attract, satisfy, gamma, K, n, order, fstar, checkpoints, lazy = env
    c = params[0]
    L = attract.size
    S, N = observe_w0(ukey, attract)
    st = step_buffers(L, K)
    idx, taken, sel, lst, clicks, scratch = st
    F, Ist, U, tops, shown = _bracketed_buffers(L, K)
    ninc = np.int64(0)  # not literals: callees compile once
    t_ep = np.int64(0)
    th_ep = 0.0
    cum, j = 0.0, np.int64(0)
    for t in range(1, n + 1):
        th = klucb_threshold_scalar(float(t), c)
        t_ep, th_ep = epoch(t, c, t_ep, th_ep)
        _lazy_select(S, N, F, Ist, U, t, th, t_ep, th_ep, sel, ninc, K, shown, K, tops, sel)
        ninc = K
        cum, j, nobs, last = play(
            t, S, N, ukey, cum, j, code, attract, satisfy, gamma, K, order, fstar, checkpoints,
            sel, lst, clicks, scratch, trace, regret_out,
        )  # fmt: skip
        if last >= 0:
            U[lst[last]] = np.inf  # its index may have grown: the stored upper bound is void
    finish(N, counts_out)


@helper(INNER)
def _grouped_buffers(L, K):
    """(tops (K,) float, cand (L,) int, cur (L,) int): the grouped selection's work arrays
    (allocated in a helper, like :func:`_bracketed_buffers`)."""
    return np.empty(K), np.zeros(L, np.int64), np.zeros(L, np.int64)


@helper(HOT)
def _grouped_steps(
    t, n, c, K, code, attract, satisfy, gamma, order, fstar, checkpoints, trace, regret_out,
    ukey, S, N, sel, lst, clicks, scratch, isl, si, sv, bi, pe, pu, ta, tmask, me, tops, cand,
    cur, cum, j, ninc, t_ep, th_ep, nobs,
):  # fmt: skip
    """The moves of step t - 1 (``lst[:nobs]``), then steps t, t + 1, ... of
    :func:`kernel_grouped` on one state table, until step n is done or a step's moves need
    more slots than are free.

    Returns ``(t, cum, j, ninc, t_ep, th_ep, nobs)``: t > n when done, else the next step,
    the moves of step t - 1 (``lst[:nobs]``) left to make after the tables grow (the
    kernel calls again with them). The loop lives in a helper without numba's runtime
    because the kernel's loop reassigns the tables when they grow, and numba then counted
    a reference of each of those eleven arrays every step (an atomic increment and
    decrement each: 22 runtime calls a step). The moves have one call site, here: each
    inlined copy of states_move was more code for LLVM to optimise (the kernel made the
    moves after a growth itself before).
    """
    while True:
        for k in range(nobs):  # step t - 1's moves
            states_move(lst[k], S, N, isl, si, sv, bi, pe, pu, ta, tmask, me)
        if t > n:
            return t, cum, j, ninc, t_ep, th_ep, nobs
        th = klucb_threshold_scalar(float(t), c)
        t_ep, th_ep = epoch(t, c, t_ep, th_ep)
        states_top(t, th, t_ep, th_ep, sel, ninc, K, isl, si, sv, bi, pe, pu, me, tops, cand, cur,
                   sel)  # fmt: skip
        ninc = K
        cum, j, nobs, last = play(
            t, S, N, ukey, cum, j, code, attract, satisfy, gamma, K, order, fstar, checkpoints,
            sel, lst, clicks, scratch, trace, regret_out,
        )  # fmt: skip
        t += 1
        if pe.size - me[0] < K:  # each move may open one state: the caller grows the tables
            return t, cum, j, ninc, t_ep, th_ep, nobs


@numba.njit(**NJIT)
def kernel_grouped(env, params, ukey, pkey, regret_out, counts_out, trace):
    """Lazy exact selection over the distinct states (L >= GROUP_MIN; see _klucb_states)."""
    code, attract, satisfy, gamma, K, n, order, fstar, checkpoints, lazy = env
    c = params[0]
    L = attract.size
    S, N = observe_w0(ukey, attract)
    st = step_buffers(L, K)
    idx, taken, sel, lst, clicks, scratch = st
    sinfo, sval, bits, perm, pub, table, tmask, islot, meta = states_new(
        S.reshape((1, L)), N.reshape((1, L))
    )
    # one table: its rows, taken once (a view made per step costs reference counting)
    si, sv, bi, pe, pu = sinfo[0], sval[0], bits[0], perm[0], pub[0]
    ta, isl, me = table[0], islot[0], meta[0]
    tops, cand, cur = _grouped_buffers(L, K)
    ninc = np.int64(0)  # not literals: callees compile once
    t_ep = np.int64(0)
    th_ep = 0.0
    cum, j = 0.0, np.int64(0)
    t = np.int64(1)
    nobs = np.int64(0)
    while True:  # once, and once more after each growth of the tables
        t, cum, j, ninc, t_ep, th_ep, nobs = _grouped_steps(
            t, n, c, K, code, attract, satisfy, gamma, order, fstar, checkpoints, trace,
            regret_out, ukey, S, N, sel, lst, clicks, scratch, isl, si, sv, bi, pe, pu, ta, tmask,
            me, tops, cand, cur, cum, j, ninc, t_ep, th_ep, nobs,
        )  # fmt: skip
        if t > n:  # (step n's moves, if left, change no decision)
            break
        g = states_grow(sinfo, sval, bits, perm, pub, table)  # then step t - 1's moves
        sinfo, sval, bits, perm, pub, table, tmask = g
        si, sv, bi, pe, pu, ta = sinfo[0], sval[0], bits[0], perm[0], pub[0], table[0]
    finish(N, counts_out)


def kernel(L, lazy):
    """The kernel a run uses: only that one is compiled."""
    if not lazy:
        return kernel_plain
    return kernel_grouped if L >= GROUP_MIN else kernel_bracketed


DECL = register_policy(
    "cascade-klucb",
    params=(Param("c", 3.0, 0.0, doc="constant c in log t + c log log t"),),
    kernel=kernel,
    reference="reference.klucb:reference_run",
    summary="CascadeKL-UCB (Algorithm 1, KL-UCB index; c = 3 is the paper's)",
    uses_lazy=True,
    # plain loop: one klucb_scalar per item a step; measured (one thread, B_LB(L, 4, 0.2,
    # 0.15)) 4.2 us a step at L = 16, 33 us at L = 128
    plain_step_s=lambda L, K: 2.6e-7 * L,
)
