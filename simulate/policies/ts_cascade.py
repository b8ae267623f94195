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
the K largest over the distinct states (:func:`top_states`, on the state tables of
:mod:`._klucb_states`): the same lists bit for bit, at a cost per step that depends on
the number of alive states (about 25 at L = 2048 up to n = 1e5), not on L; ``lazy=False``
is the plain loop. :func:`top_states` prunes with an approximate index, two products of
factors a state keeps for its life, not with the epoch bounds of
:func:`._index_states.index_top` (TS-Cascade's bound moves with ``Z_t``, so that one made
a square root or two per state and epoch and priced every incumbent exactly).
"""

from __future__ import annotations

import math

import numba
import numpy as np

from cascading_bandits.simulate.policies._index_states import (
    PAD,
    STATES_MIN,
    TSCASCADE,
    _push,
    emit_above,
    index_buffers,
    index_of,
)
from cascading_bandits.simulate.policies._klucb_states import (
    _CNT,
    _N,
    _S,
    _UBT,
    states_grow,
    states_move,
    states_new,
)
from cascading_bandits.simulate.policies.kernel import (
    HOT,
    NJIT,
    helper,
    play,
    select_top,
    step_buffers,
)
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


# sval columns of a state here (the state tables of :mod:`._klucb_states`, whose helpers
# write only its columns _Q = 3 and _K0 = 4, on a new state): w, the two sigma factors
# below, the step's exact index (3: _Q, overwritten, never read as a reference point
# here), the step's upper end of the approximate index
_W, _FA, _FB, _V, _HIU = 0, 1, 2, 3, 5
_READY = 1  # sinfo[_UBT] of a state whose factors are in sval (_add opens a state at -1)

#: relative slack of the approximate index (below); its error is a few ulps (2**-52 each)
SLACK = 1e-12


@helper(HOT)
def _factors(sl, sinfo, sval):
    """A new state's w and its sigma factors ``sqrt(w (1 - w) / (N + 1))`` and
    ``1 / (N + 1)``: a state never changes, so they are computed once in its life."""
    s = sinfo[sl, _S]
    n = sinfo[sl, _N]
    w = s / n if n > 0 else 0.0
    sval[sl, _W] = w
    sval[sl, _FA] = math.sqrt(w * (1.0 - w) / (n + 1.0))
    sval[sl, _FB] = 1.0 / (n + 1.0)
    sinfo[sl, _UBT] = _READY


@helper(HOT)
def top_states(t, z, g, sg, inc, ninc, m, islot, sinfo, sval, bits, perm, meta, tops, cand,
               cur, out):  # fmt: skip
    """``out[:m]`` = the m items of largest TS-Cascade index at step t, decreasing, ties to
    the smaller id: :func:`.kernel.select_top` on every item's index, bit for bit.

    ``g = log(t + 1)``, ``sg = sqrt(g)``, ``z`` the step's shared normal; ``inc[:ninc]``
    the incumbents (the previous list; may be ``out`` itself, read before it is written);
    the state tables of :mod:`._klucb_states` (``meta[0]`` alive states, their slots
    ``perm[:meta[0]]``), every alive state's factors computed (:func:`_factors`).

    Pass 1: every alive state's index approximated from its factors,
    ``u = w + z max(FA sg, FB g)`` (two products, no square root or division a state),
    within ``d = SLACK (1 + |z| (g + sg)) + PAD`` of the exact index (each factor and
    product is a few ulps off; sigma <= max(g, sg / 2)). The m-th largest ``u`` with
    multiplicity (a state of c items counts c times) over any set of states, less ``d``,
    is at most the m-th largest exact index: so a state with ``u`` below that, less
    another ``d``, holds none of the m items. The incumbents' states give that bound
    before the scan, the states scanned raise it.
    Pass 2: the exact index (:func:`._index_states.index_of`, the plain loop's operations)
    of the states left, and tau, the m-th largest of those with multiplicity: the m-th
    largest of all. The states of index >= tau are emitted by decreasing index, the ids
    of states of bit-identical index merged in increasing order
    (:func:`._index_states.emit_above`, as :func:`._index_states.index_top` does).
    """
    d2 = 2.0 * (SLACK * (1.0 + abs(z) * (g + sg)) + PAD)
    for i in range(m):
        tops[i] = -np.inf
    for i in range(ninc):  # the incumbents' distinct states
        sl = islot[inc[i]]
        dup = False
        for x in range(i):
            if islot[inc[x]] == sl:
                dup = True
        if dup:
            continue
        a = sval[sl, _FA] * sg
        b = sval[sl, _FB] * g
        _push(tops, m, sval[sl, _W] + z * (a if a > b else b), sinfo[sl, _CNT])
    top0 = tops[m - 1]
    for i in range(m):
        tops[i] = -np.inf
    thr = top0 - d2
    nc = np.int64(0)  # not a literal: callees compile once
    for i in range(meta[0]):
        sl = np.uint64(perm[i])  # unsigned: its uses skip numba's negative-index fix
        a = sval[sl, _FA] * sg
        b = sval[sl, _FB] * g
        u = sval[sl, _W] + z * (a if a > b else b)
        if u < thr:
            continue
        sval[sl, _HIU] = u
        cand[nc] = sl
        nc += 1
        _push(tops, m, u, sinfo[sl, _CNT])
        x = tops[m - 1] - d2
        if x > thr:
            thr = x
    lo = thr
    for i in range(m):
        tops[i] = -np.inf
    nk = 0
    kind = np.int64(TSCASCADE)
    for i in range(nc):
        sl = np.uint64(cand[i])
        if sval[sl, _HIU] < lo:
            continue
        v = index_of(kind, sinfo[sl, _S], sinfo[sl, _N], g, z, tops)  # (no params read)
        sval[sl, _V] = v
        cand[nk] = sl
        nk += 1
        _push(tops, m, v, sinfo[sl, _CNT])
    emit_above(tops, cand, nk, m, sinfo, sval, bits, cur, out)


@numba.njit(**NJIT)
def kernel_states(env, params, ukey, pkey, regret_out, counts_out, trace):
    """The K largest over the distinct states (lazy=True; :func:`top_states`)."""
    code, attract, satisfy, gamma, K, n, order, fstar, checkpoints, lazy = env
    L = attract.size
    S = np.zeros(L, np.int64)  # clicks observed
    N = np.zeros(L, np.int64)  # observations (no w_0)
    st = step_buffers(L, K)
    idx, taken, sel, lst, clicks, scratch = st
    sinfo, sval, bits, perm, pub, table, tmask, islot, meta = states_new(
        S.reshape((1, L)), N.reshape((1, L))
    )
    # one table: its rows, taken once (a view made per step costs reference counting)
    si, sv, bi, pe, pu = sinfo[0], sval[0], bits[0], perm[0], pub[0]
    ta, isl, me = table[0], islot[0], meta[0]
    tops, cand, cur = index_buffers(L, K)
    for i in range(me[0]):
        _factors(pe[i], si, sv)
    ninc = np.int64(0)  # not literals: callees compile once
    cum, j = 0.0, np.int64(0)
    for t in range(1, n + 1):
        z = shared_normal(pkey, t, L)
        g = math.log(t + 1.0)  # the plain loop's lg
        top_states(t, z, g, math.sqrt(g), sel, ninc, K, isl, si, sv, bi, pe, me, tops, cand,
                   cur, sel)  # fmt: skip
        ninc = K
        cum, j, nobs, last = play(
            t, S, N, ukey, cum, j, code, attract, satisfy, gamma, K, order, fstar, checkpoints,
            sel, lst, clicks, scratch, trace, regret_out,
        )  # fmt: skip
        if pe.size - me[0] < K:  # each move may open one state
            gr = states_grow(sinfo, sval, bits, perm, pub, table)
            sinfo, sval, bits, perm, pub, table, tmask = gr
            si, sv, bi, pe, pu, ta = sinfo[0], sval[0], bits[0], perm[0], pub[0], table[0]
        for k in range(nobs):
            e = lst[k]
            states_move(e, S, N, isl, si, sv, bi, pe, pu, ta, tmask, me)
            if si[isl[e], _UBT] != _READY:  # a new state
                _factors(isl[e], si, sv)
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
