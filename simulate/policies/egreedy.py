"""``cascade-egreedy(eps=0.05)``: epsilon-greedy with the cascade observations (a baseline).

At step ``t``, with probability ``eps`` a uniformly random list, else the K largest
empirical means ``S(e)/T(e)`` (ties to the smaller id); observations and ``w_0`` as for
CascadeUCB1 (:mod:`.ucb1`). Both draws come from the run's policy stream
(:mod:`simulate.rng`), so a run is a pure function of its keys and the users' draws
are the same as under any other policy (common random numbers): the coin is sub-draw 1
of (t, item 0) -- explore iff it is ``< eps`` -- and the random list is
``uniform-random``'s (:func:`._random_list.random_list`: the first K entries of a
Fisher-Yates shuffle, O(K) a step). So ``eps = 1`` shows ``uniform-random``'s lists and
``eps = 0`` is the greedy policy.

``lazy=True`` (the default) takes, from STATES_MIN = 96 items on (:mod:`._index_states`;
the plain loop below), the greedy list over the distinct (S, T) states
(:mod:`._index_states`, a cost per step independent of L); ``lazy=False`` is the plain
loop (every mean, then the K largest). Same lists, bit for bit.
"""

from __future__ import annotations

import numba
import numpy as np

from cascading_bandits.simulate.policies._index_states import (
    GREEDY,
    STATES_MIN,
    index_buffers,
    index_top,
    w0_table,
)
from cascading_bandits.simulate.policies._klucb_states import states_grow, states_move
from cascading_bandits.simulate.policies._random_list import list_buffers, random_list
from cascading_bandits.simulate.policies.kernel import (
    NJIT,
    finish,
    observe_w0,
    play,
    select_top,
    step_buffers,
)
from cascading_bandits.simulate.policies.registry import Param, register_policy
from cascading_bandits.simulate.rng import POLICY, uniform


@numba.njit(**NJIT)
def kernel_plain(env, params, ukey, pkey, regret_out, counts_out, trace):
    """Every index every step (the definition; lazy=False)."""
    code, attract, satisfy, gamma, K, n, order, fstar, checkpoints, lazy = env
    eps = params[0]
    L = attract.size
    S, N = observe_w0(ukey, attract)
    st = step_buffers(L, K)
    idx, taken, sel, lst, clicks, scratch = st
    keys, vals = list_buffers(K)
    cum, j = 0.0, np.int64(0)  # not a literal 0: play compiles once
    for t in range(1, n + 1):
        if uniform(pkey, POLICY, t, 0, L, 1) < eps:
            random_list(pkey, t, L, K, keys, vals, sel)
        else:
            for e in range(L):
                idx[e] = S[e] / N[e]
            select_top(idx, K, st[1], st[2])
        cum, j, _, _ = play(
            t, S, N, ukey, cum, j, code, attract, satisfy, gamma, K, order, fstar, checkpoints,
            sel, lst, clicks, scratch, trace, regret_out,
        )  # fmt: skip
    finish(N, counts_out)


@numba.njit(**NJIT)
def kernel_states(env, params, ukey, pkey, regret_out, counts_out, trace):
    """Greedy lists over the distinct states (lazy=True)."""
    code, attract, satisfy, gamma, K, n, order, fstar, checkpoints, lazy = env
    eps = params[0]
    L = attract.size
    S, N = observe_w0(ukey, attract)
    st = step_buffers(1, K)  # its idx and taken (L,) are not read here: one element each
    idx, taken, sel, lst, clicks, scratch = st
    sinfo, sval, bits, perm, pub, table, tmask, islot, meta = w0_table(S)
    si, sv, bi, pe, pu = sinfo[0], sval[0], bits[0], perm[0], pub[0]
    ta, isl, me = table[0], islot[0], meta[0]
    tops, cand, cur = index_buffers(pe.size, K)  # one entry per slot (again when it grows)
    keys, vals = list_buffers(K)
    kind = np.int64(GREEDY)
    ninc = np.int64(0)  # not literals: callees compile once
    t_ep = np.int64(np.iinfo(np.int64).max)  # the greedy index does not move: one epoch
    cum, j = 0.0, np.int64(0)
    for t in range(1, n + 1):
        if uniform(pkey, POLICY, t, 0, L, 1) < eps:
            random_list(pkey, t, L, K, keys, vals, sel)
        else:
            index_top(kind, t, 0.0, 0.0, t_ep, 0.0, params, sel, ninc, K, isl, si, sv, bi, pe,
                      pu, me, tops, cand, cur, sel)  # fmt: skip
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


def kernel(L, lazy):
    """The kernel a run uses: only that one is compiled (the plain loop below STATES_MIN
    items, where it is the faster of the two)."""
    return kernel_states if lazy and L >= STATES_MIN else kernel_plain


DECL = register_policy(
    "cascade-egreedy",
    params=(Param("eps", 0.05, 0.0, 1.0, doc="probability of a uniformly random list"),),
    kernel=kernel,
    reference="reference.egreedy:reference_run",
    summary="epsilon-greedy on the empirical means (baseline)",
    uses_lazy=True,
    # plain loop: L draws or means and a one-pass selection a step (kernel.select_top); measured
    # (one thread, B_LB(L, K, 0.2, 0.15)) 4.0 us a step at L = 2048, K = 4, little more at K = 16
    plain_step_s=lambda L, K: 2.0e-9 * L + 5e-8 * K,
)
