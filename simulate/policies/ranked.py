"""``ranked-klucb(c=3)``, ``ranked-klucb-rba(c=3)``: ranked bandits with KL-UCB.

Ranked bandits (Radlinski, Kleinberg and Joachims, ICML 2008) with KL-UCB. One KL-UCB
bandit over the L items per position ``k = 1..K``, each with its own counts ``N_k(e)``,
``S_k(e)``, all using the global step ``t`` in ``log t + c log log t`` and starting from
no observation (an unplayed item has index 1, so each bandit first tries the items in id
order). Bandit ``k`` picks ``a_k`` (largest index, ties to the smaller id). Duplicate
rule: if ``a_k`` is already shown above, position ``k`` shows the best item of bandit
``k``'s own ranking that is not yet shown (RBA allows "an arbitrary unselected
document"; this is a deterministic choice of one).

Reward (the two readings differ only here):

* ``ranked-klucb``: bandit ``k`` updates the item it *showed* at position ``k`` with 1 if
  position ``k`` was clicked, else 0 -- each position learns the click rate of what it
  shows. This is the reading that reproduces Section 5.4's "about three times" the
  regret of CascadeKL-UCB; it is the one in the ``dbn`` experiment.
* ``ranked-klucb-rba``: RBA's rule as printed: bandit ``k`` updates its own pick ``a_k``
  with 1 iff position ``k`` was clicked *and* shows ``a_k``, so a pick that was replaced
  as a duplicate is rewarded 0. On B_LB, whose K optimal items are equally attractive,
  the bandits of lower positions keep colliding with the upper ones and its regret is
  about 10-18 times CascadeKL-UCB's at n = 1e5.

In the DBN model every clicked position counts as clicked. Only ``best-first`` applies
(positions are the bandits'). ``counts`` are the number of steps at which ``e`` was
shown at a position ``<= C`` (the cascade observation rule).
"""

from __future__ import annotations

import numba
import numpy as np

from cascading_bandits.bounds.indices import klucb_threshold_scalar
from cascading_bandits.bounds.kl import klucb_scalar
from cascading_bandits.simulate.models import list_reward, respond
from cascading_bandits.simulate.policies._klucb_select import (
    FW,
    GROUP_MIN_RANKED,
    IW,
    _lazy_select,
    epoch,
)
from cascading_bandits.simulate.policies._klucb_states import (
    states_grow,
    states_move,
    states_new,
    states_pick,
)
from cascading_bandits.simulate.policies.kernel import (
    HOT,
    INNER,
    NJIT,
    falses,
    finish,
    helper,
    select_top,
    zeros_f,
)
from cascading_bandits.simulate.policies.registry import Param, register_policy


@helper(HOT)
def _feedback(t, K, lst, chosen, clicks, S, N, ubt, counts, cum, j, model, attract, satisfy,
              gamma, fstar, checkpoints, ukey, scratch, trace, regret_out, rba, voids):  # fmt: skip
    """Show ``lst``, update the K bandits, count and add the regret; returns (cum, j).

    RBA: bandit k updates its own pick, rewarded only if it was shown and clicked;
    otherwise bandit k updates the item it showed with that position's click. An attractive
    update voids the item's stored upper bound (``ubt[k, e] = inf``, the bracketed
    selection's U) if ``voids`` (the other selections keep no such bound: their ``ubt`` may
    be a dummy).
    The arrays come unpacked from ``env`` once before the step loop: a HOT helper (no
    runtime) counts no references of its arguments, and unpacking ``env`` here each step
    did.
    """
    respond(model, attract, satisfy, gamma, lst, K, t, ukey, clicks)
    if t <= trace.shape[0]:
        for k in range(K):  # element-wise: a slice assignment compiles a shape-error path (s)
            trace[t - 1, 0, k] = lst[k]
            trace[t - 1, 1, k] = clicks[k]
    last = -1
    for k in range(K):
        if clicks[k] == 1:
            last = k
        e = chosen[k] if rba else lst[k]
        N[k, e] += 1
        if clicks[k] == 1 and lst[k] == e:
            S[k, e] += 1
            if voids:
                ubt[k, e] = np.inf
    nobs = last + 1 if last >= 0 else K
    for k in range(nobs):
        counts[lst[k]] += 1
    cum += fstar - list_reward(model, attract, satisfy, gamma, lst, K, scratch)
    if t == checkpoints[j]:
        regret_out[j] = cum
        j += 1
    return cum, j


# The per-bandit rows of the state tables are taken inside HOT helpers: a view made in the
# kernel (which has numba's runtime) counts references, and 15 views per bandit a step were
# most of a ranked-klucb step at L = 2048.
@helper(HOT)
def _pick_k(k, t, th, t_ep, th_ep, chosen, lst, shown, islot, sinfo, sval, bits, perm, pub,
            meta, cand, cur):  # fmt: skip
    """Bandit k's (pick, shown item): states_pick on its table, the items ``lst[:k]`` shown
    above; incumbents: its previous shown item ``lst[k]`` and pick ``chosen[k]``."""
    return states_pick(
        t, th, t_ep, th_ep, lst[k], chosen[k], lst, k, shown, islot[k], sinfo[k], sval[k],
        bits[k], perm[k], pub[k], meta[k], cand, cur,
    )  # fmt: skip


@helper(HOT)
def _lazy_k(k, S, N, F, Ist, U, t, th, t_ep, th_ep, incr, shown, tops, out):
    """Bandit k's bracketed selection (its pick, then its best item not ``shown``); returns
    the number of items popped into ``out``."""
    # np.int64(1): a literal 1 compiled _lazy_select a second time beside klucb's int64
    one = np.int64(1)
    return _lazy_select(
        S[k], N[k], F[k], Ist[k], U[k], t, th, t_ep, th_ep, incr, np.int64(2), one, shown, one,
        tops, out,
    )  # fmt: skip


@helper(HOT)
def _move_k(k, e, S, N, islot, sinfo, sval, bits, perm, pub, table, tmask, meta):
    """Move item e, just updated by bandit k, to its new state in bandit k's table."""
    states_move(
        e,
        S[k],
        N[k],
        islot[k],
        sinfo[k],
        sval[k],
        bits[k],
        perm[k],
        pub[k],
        table[k],
        tmask,
        meta[k],
    )


# Allocations: in INNER helpers, and only of the signatures of simulate.policies.kernel
# (zeros_f, falses), reshaped where 2-d or 3-d: the 2-d and 3-d np.zeros here were about
# 1 s of a first ranked-klucb compile.
@helper(INNER)
def _state(K, L):
    """(S, N, counts, shown, order_k, chosen, lst, incr, clicks, scratch) of a run."""
    return (
        np.zeros(K * L, np.int64).reshape((K, L)),
        np.zeros(K * L, np.int64).reshape((K, L)),
        np.zeros(L, np.int64),
        falses(L),
        np.zeros(L, np.int64),
        np.zeros(K, np.int64),
        np.zeros(K, np.int64),
        np.zeros(K + 1, np.int64),
        np.zeros(K, np.int64),
        np.empty(K),
    )


@helper(INNER)
def _plain_buffers(K, L):
    """(idx (L,) float, taken (L,) bool, ubt (1, 1) float: a dummy) of the plain loop."""
    return np.empty(L), np.empty(L, np.bool_), np.empty(1).reshape((1, 1))


@helper(INNER)
def _bracketed_buffers(K, L):
    """(F (K, L, FW) float, Ist (K, L, IW) int, all zeros; U (K, L + 1) float, no valid
    bound; tops (K,) float): one bracketed selection's state per bandit (_klucb_select)."""
    F = zeros_f(K * L * FW).reshape((K, L, FW))
    U = np.empty(K * (L + 1)).reshape((K, L + 1))
    for k in range(K):
        for e in range(L):
            U[k, e] = np.inf
        U[k, L] = -1.0  # no epoch yet
    return F, np.zeros(K * L * IW, np.int64).reshape((K, L, IW)), U, np.empty(K)


@helper(INNER)
def _grouped_buffers(K, L):
    """(ubt (1, 1) float: a dummy, cand (L,) int, cur (L,) int)."""
    ubt = np.empty(1).reshape((1, 1))
    return ubt, np.zeros(L, np.int64), np.zeros(L, np.int64)


@numba.njit(inline="always", **NJIT)
def _run_plain(env, c, ukey, regret_out, counts_out, trace, rba):
    """Every index of every bandit each step (the definition; lazy=False)."""
    model, attract, satisfy, gamma, K, n, _, fstar, checkpoints, _ = env
    L = attract.size
    S, N, counts, shown, order_k, chosen, lst, incr, clicks, scratch = _state(K, L)
    idx, taken, ubt = _plain_buffers(K, L)  # ubt unused: no bounds
    cum, j = 0.0, np.int64(0)
    for t in range(1, n + 1):
        th = klucb_threshold_scalar(float(t), c)
        for e in range(L):
            shown[e] = False
        for k in range(K):
            for e in range(L):
                m = S[k, e] / N[k, e] if N[k, e] > 0 else 0.0
                idx[e] = klucb_scalar(m, float(N[k, e]), th)
            select_top(idx, k + 1, taken, order_k)  # bandit k's first k+1 items
            chosen[k] = order_k[0]
            for i in range(k + 1):
                if not shown[order_k[i]]:
                    lst[k] = order_k[i]
                    break
            shown[lst[k]] = True
        cum, j = _feedback(
            t, K, lst, chosen, clicks, S, N, ubt, counts, cum, j, model, attract, satisfy, gamma,
            fstar, checkpoints, ukey, scratch, trace, regret_out, rba, False,
        )  # fmt: skip
    finish(counts, counts_out)


@numba.njit(inline="always", **NJIT)
def _run_lazy(env, c, ukey, regret_out, counts_out, trace, rba):
    """Bracketed lazy selection per bandit (L < GROUP_MIN_RANKED; see _klucb_select)."""
    model, attract, satisfy, gamma, K, n, _, fstar, checkpoints, _ = env
    L = attract.size
    S, N, counts, shown, order_k, chosen, lst, incr, clicks, scratch = _state(K, L)
    F, Ist, U, tops = _bracketed_buffers(K, L)  # per bandit, the bracketed selection's state
    ubt = U  # _feedback voids the bounds of updated items there
    t_ep = np.int64(0)
    th_ep = 0.0
    cum, j = 0.0, np.int64(0)
    for t in range(1, n + 1):
        th = klucb_threshold_scalar(float(t), c)
        t_ep, th_ep = epoch(t, c, t_ep, th_ep)
        for k in range(K):
            # bandit k needs its best item not shown above and its pick, the largest index:
            # tau is the largest lower end of a candidate not shown (_lazy_prepare, m = 1;
            # the (k + 1)-th largest lower end with the k items above as incumbents
            # bracketed 22 items a step, L = 16), incumbents its previous item and pick
            incr[0] = lst[k]
            incr[1] = chosen[k]
            npop = _lazy_k(k, S, N, F, Ist, U, t, th, t_ep, th_ep, incr, shown, tops, order_k)
            chosen[k] = order_k[0]
            a = order_k[npop - 1]  # duplicates: bandit k's next best unshown item
            lst[k] = a
            shown[a] = True
        cum, j = _feedback(
            t, K, lst, chosen, clicks, S, N, ubt, counts, cum, j, model, attract, satisfy, gamma,
            fstar, checkpoints, ukey, scratch, trace, regret_out, rba, True,
        )  # fmt: skip
        for k in range(K):  # shown is all False between steps: O(K), not O(L), a step
            shown[lst[k]] = False
    finish(counts, counts_out)


@helper(HOT)
def _grouped_steps(
    t, n, c, K, model, attract, satisfy, gamma, fstar, checkpoints, ukey, trace, regret_out,
    rba, S, N, counts, shown, chosen, lst, clicks, scratch, ubt, cand, cur, sinfo, sval, bits,
    perm, pub, table, tmask, islot, meta, cum, j, t_ep, th_ep, moves,
):  # fmt: skip
    """Step t - 1's moves (one per bandit) if ``moves``, then steps t, t + 1, ... of
    :func:`_run_grouped`, until step n is done or a table is full before a step's moves.
    Returns ``(t, cum, j, t_ep, th_ep, moves)``: t > n when done, else the next step, and
    whether step t - 1's moves are left to make after the tables grow (the kernel calls
    again with them).

    The loop lives in a helper without numba's runtime: the kernel's loop reassigns the
    tables when they grow, and numba then counted a reference of each of those six arrays
    every step (an atomic increment and decrement each). The moves have one call site,
    here (the kernel made them after a growth itself before: one more inlined copy of
    states_move for LLVM to optimise).
    """
    while True:
        if moves:
            for k in range(K):  # bandit k updated one item (_feedback)
                e = chosen[k] if rba else lst[k]
                _move_k(k, e, S, N, islot, sinfo, sval, bits, perm, pub, table, tmask, meta)
        if t > n:
            return t, cum, j, t_ep, th_ep, moves
        th = klucb_threshold_scalar(float(t), c)
        t_ep, th_ep = epoch(t, c, t_ep, th_ep)
        for k in range(K):
            a, b = _pick_k(k, t, th, t_ep, th_ep, chosen, lst, shown, islot, sinfo, sval, bits,
                           perm, pub, meta, cand, cur)  # fmt: skip
            chosen[k] = a
            lst[k] = b  # duplicates: bandit k's best item not shown above
            shown[b] = True
        cum, j = _feedback(
            t, K, lst, chosen, clicks, S, N, ubt, counts, cum, j, model, attract, satisfy, gamma,
            fstar, checkpoints, ukey, scratch, trace, regret_out, rba, False,
        )  # fmt: skip
        for k in range(K):  # shown is all False between steps: O(K), not O(L), a step
            shown[lst[k]] = False
        t += 1
        moves = True
        for k in range(K):  # a move may open one state per table: the caller grows them
            if meta[k, 0] == perm.shape[1]:
                return t, cum, j, t_ep, th_ep, moves


@numba.njit(inline="always", **NJIT)
def _run_grouped(env, c, ukey, regret_out, counts_out, trace, rba):
    """Selection over the distinct states, one state table per bandit (L >= GROUP_MIN_RANKED;
    see _klucb_states)."""
    model, attract, satisfy, gamma, K, n, _, fstar, checkpoints, _ = env
    L = attract.size
    S, N, counts, shown, order_k, chosen, lst, incr, clicks, scratch = _state(K, L)
    ubt, cand, cur = _grouped_buffers(K, L)  # ubt unused: the bounds are the tables'
    sinfo, sval, bits, perm, pub, table, tmask, islot, meta = states_new(S, N)
    t_ep = np.int64(0)
    th_ep = 0.0
    cum, j = 0.0, np.int64(0)
    t = np.int64(1)
    moves = np.bool_(False)  # not a literal: _grouped_steps compiles once
    while True:  # once, and once more after each growth of the tables
        t, cum, j, t_ep, th_ep, moves = _grouped_steps(
            t, n, c, K, model, attract, satisfy, gamma, fstar, checkpoints, ukey, trace,
            regret_out, rba, S, N, counts, shown, chosen, lst, clicks, scratch, ubt, cand, cur,
            sinfo, sval, bits, perm, pub, table, tmask, islot, meta, cum, j, t_ep, th_ep, moves,
        )  # fmt: skip
        if t > n:  # (step n's moves, if left, change no decision)
            break
        g = states_grow(sinfo, sval, bits, perm, pub, table)  # then step t - 1's moves
        sinfo, sval, bits, perm, pub, table, tmask = g
    finish(counts, counts_out)


# One thin kernel per selection, shared by the two reward rules: the rule is a run-time
# flag, the hidden constant after c in ``params`` (registry ``consts``: 0 ranked-klucb, 1
# RBA), so a process that runs both compiles each selection once (one kernel per rule was
# a second compile of the whole selection: 5.6 s of CPU at L = 16 from an empty cache).
@numba.njit(**NJIT)
def kernel_plain(env, params, ukey, pkey, regret_out, counts_out, trace):
    _run_plain(env, params[0], ukey, regret_out, counts_out, trace, params[1] != 0.0)


@numba.njit(**NJIT)
def kernel_lazy(env, params, ukey, pkey, regret_out, counts_out, trace):
    _run_lazy(env, params[0], ukey, regret_out, counts_out, trace, params[1] != 0.0)


@numba.njit(**NJIT)
def kernel_grouped(env, params, ukey, pkey, regret_out, counts_out, trace):
    _run_grouped(env, params[0], ukey, regret_out, counts_out, trace, params[1] != 0.0)


def kernel(L, lazy):
    """The kernel a ranked-klucb or ranked-klucb-rba run uses (the rule: ``params[1]``)."""
    if not lazy:
        return kernel_plain
    return kernel_grouped if L >= GROUP_MIN_RANKED else kernel_lazy


_C = Param("c", 3.0, 0.0, doc="constant c in log t + c log log t")


def _plain_step_s(L, K):
    # every index of every bandit a step; measured (one thread, B_LB(L, 4, 0.2, 0.15)):
    # 17 us a step at L = 16, 121 us at L = 128 (RBA: 18 and 117 us)
    return 2.4e-7 * L * K


DECL = register_policy(
    "ranked-klucb",
    params=(_C,),
    kernel=kernel,
    reference="reference.ranked:reference_run",
    summary="ranked bandits with KL-UCB, one per position (the dbn experiment's reading)",
    orders=("best-first",),
    uses_lazy=True,
    plain_step_s=_plain_step_s,
    consts=(0.0,),  # the reward rule: the item shown
)
DECL_RBA = register_policy(
    "ranked-klucb-rba",
    params=(_C,),
    kernel=kernel,
    reference="reference.ranked:reference_run_rba",
    summary="ranked bandits with KL-UCB, RBA's reward rule as printed",
    orders=("best-first",),
    uses_lazy=True,
    plain_step_s=_plain_step_s,
    consts=(1.0,),  # the reward rule: the bandit's own pick (RBA)
)
