"""``ts-cascade``: TS-Cascade, Thompson sampling with one shared Gaussian sample per step.

Source: Cheung, Tan and Zhong, "Thompson Sampling for Cascading Bandits", AISTATS 2019,
and Zhong, Cheung and Tan, "Thompson Sampling Algorithms for Cascading Bandits", JMLR 22
(2021) (arXiv 1810.01187), algorithm "TS-Cascade". The formula below is the one of the
authors' public code (repository zixinzh/2021-JMLR, file ``TSCascade_jmlr.m``), read line
by line; the algorithm box of the paper could not be retrieved here, so the paper's
statement is NOT checked against it.

At step ``t = 1..n``, with ``N(e)`` the observations of item ``e`` so far and ``w(e)``
their mean (``w = 0`` while ``N = 0``)::

    Z_t ~ N(0, 1), one draw shared by all items
    sigma_t(e) = max( sqrt(w(e) (1 - w(e)) log(t + 1) / (N(e) + 1)),  log(t + 1) / (N(e) + 1) )
    theta_t(e) = w(e) + Z_t sigma_t(e)

(in the code: ``sigma1 = log(t+1)./(N+1)``, ``sigma2 = sqrt(mu.*(1-mu).*log(t+1)./(N+1))``,
``theta = mu + theta_all(t).*sigma``: the second term carries ``log``, not ``sqrt(log)``,
and the empirical variance ``w (1 - w)`` no extra factor). The K largest ``theta`` are
listed (ties to the smaller id, as ``sort(..., 'descend')`` of the code, which is stable).

Differences from the project's cascade learners (:mod:`.ucb1`), all from the code:
no initial observation ``w_0`` -- every item starts at ``N = 0``, ``w = 0``, so step 1
lists items ``0..K-1`` (all ``theta`` equal); ``w`` is kept as clicks / observations
(``S/N``, correctly rounded; the code's running update ``(N w + W) / (N + 1)`` is the
same number up to rounding). Observations follow the project's rule (eq. (2); DBN: the
last click). ``counts`` follow the registry's convention ``T_n(e) = 1 + observations in
steps 1..n`` (Algorithm 1's ``T_0 = 1``): here that is ``N_n(e) + 1``, the very
denominator of ``sigma``, although TS-Cascade makes no step-0 observation.

``Z_t`` is a pure function of (policy key, t): Box-Muller of the policy stream's sub-draws
0 and 1 of (t, index 0), ``Z = sqrt(-2 log(1 - u1)) cos(2 pi u2)`` (``u1 < 1``, so finite).

Given ``Z_t``, ``theta_t(e)`` is a pure function of the state ``(S(e), N(e))``, so
``lazy=True`` (the default) selects, from STATES_MIN = 96 items on (the plain loop below),
the K largest over the distinct states
(:mod:`._index_states`): the same lists bit for bit, at a cost per step that depends on
the number of alive states, not on L; ``lazy=False`` is the plain loop.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from cascading_bandits.simulate.policies._index_states import (
    STATES_MIN,
    TSCASCADE,
    index_buffers,
    index_top,
    next_epoch,
    step_consts,
)
from cascading_bandits.simulate.policies._klucb_states import (
    states_grow,
    states_move,
    states_new,
)
from cascading_bandits.simulate.policies.kernel import NJIT, play, select_top, step_buffers
from cascading_bandits.simulate.policies.registry import register_policy
from cascading_bandits.simulate.rng import POLICY, uniform


@numba.njit(**NJIT)
def shared_normal(pkey, t, L):
    """Z_t: standard normal of step t by Box-Muller of policy sub-draws 0, 1 of (t, item 0)."""
    u1 = uniform(pkey, POLICY, t, 0, L, 0)
    u2 = uniform(pkey, POLICY, t, 0, L, 1)
    return math.sqrt(-2.0 * math.log1p(-u1)) * math.cos(2.0 * math.pi * u2)


@numba.njit(**NJIT)
def kernel_plain(env, params, ukey, pkey, regret_out, counts_out, trace):
    """Every index every step (the definition; lazy=False)."""
    code, attract, satisfy, gamma, K, n, order, fstar, checkpoints, lazy = env
    L = attract.size
    S = np.zeros(L, np.int64)  # clicks observed
    N = np.zeros(L, np.int64)  # observations (no w_0)
    st = step_buffers(L, K)
    idx, taken, sel, lst, clicks, scratch = st
    cum, j = 0.0, np.int64(0)  # not a literal 0: play compiles once
    for t in range(1, n + 1):
        z = shared_normal(pkey, t, L)
        lg = math.log(t + 1.0)
        for e in range(L):
            w = S[e] / N[e] if N[e] > 0 else 0.0
            r = lg / (N[e] + 1.0)
            sigma = max(math.sqrt(w * (1.0 - w) * lg / (N[e] + 1.0)), r)
            idx[e] = w + z * sigma
        select_top(idx, K, st[1], st[2])
        cum, j, _, _ = play(
            t, S, N, ukey, cum, j, code, attract, satisfy, gamma, K, order, fstar, checkpoints,
            sel, lst, clicks, scratch, trace, regret_out,
        )  # fmt: skip
    for e in range(L):
        counts_out[e] = N[e] + 1  # the registry's T_n = 1 + observations in steps 1..n


@numba.njit(**NJIT)
def kernel_states(env, params, ukey, pkey, regret_out, counts_out, trace):
    """The K largest over the distinct states (lazy=True; :mod:`._index_states`)."""
    code, attract, satisfy, gamma, K, n, order, fstar, checkpoints, lazy = env
    L = attract.size
    S = np.zeros(L, np.int64)  # clicks observed
    N = np.zeros(L, np.int64)  # observations (no w_0)
    st = step_buffers(L, K)
    idx, taken, sel, lst, clicks, scratch = st
    sinfo, sval, bits, perm, pub, table, tmask, islot, meta = states_new(
        S.reshape((1, L)), N.reshape((1, L))
    )
    si, sv, bi, pe, pu = sinfo[0], sval[0], bits[0], perm[0], pub[0]
    ta, isl, me = table[0], islot[0], meta[0]
    tops, cand, cur = index_buffers(L, K)
    kind = np.int64(TSCASCADE)
    ninc = np.int64(0)  # not literals: callees compile once
    t_ep = np.int64(0)
    g_ep = 0.0
    cum, j = 0.0, np.int64(0)
    for t in range(1, n + 1):
        if t > t_ep:
            t_ep = next_epoch(t, t_ep)
            g_ep = step_consts(kind, t_ep, params)
        z = shared_normal(pkey, t, L)
        g = step_consts(kind, t, params)
        index_top(kind, t, z, g, t_ep, g_ep, params, sel, ninc, K, isl, si, sv, bi, pe, pu,
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
        for k in range(nobs):
            states_move(lst[k], S, N, isl, si, sv, bi, pe, pu, ta, tmask, me)
    for e in range(L):
        counts_out[e] = N[e] + 1  # the registry's T_n = 1 + observations in steps 1..n


def kernel(L, lazy):
    """The kernel a run uses: only that one is compiled (the plain loop below STATES_MIN
    items, where it is the faster of the two)."""
    return kernel_states if lazy and L >= STATES_MIN else kernel_plain


DECL = register_policy(
    "ts-cascade",
    kernel=kernel,
    reference="reference.ts_cascade:reference_run",
    summary="TS-Cascade (Zhong, Cheung, Tan, JMLR 2021): one shared Gaussian per step, "
    "no initial observation",
    uses_lazy=True,
    # plain loop: L indices and a one-pass selection a step (kernel.select_top); measured
    # (one thread, B_LB(L, K, 0.2, 0.15)) 8.6 us a step at L = 2048, K = 4, little more at K = 16
    plain_step_s=lambda L, K: 4.6e-9 * L + 1e-7 * K,
)
