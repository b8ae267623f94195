"""The batched engine: many independent runs of one (model, policy, order) cell.

Each run is one call of :func:`_run` (numba, no Python objects); runs are
independent and write their own rows, so the results do not depend on how the
runs are spread over threads. The policies and models are documented in
:mod:`simulate.policies` and :mod:`simulate.models`.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from bounds.indices import klucb_threshold_scalar, safe_log
from bounds.kl import klucb_scalar
from simulate.models import list_reward, respond
from simulate.policies import KLUCB, RANKED, UCB1
from simulate.rng import ATTRACT, beta_draw, uniform

__all__ = ["simulate_runs"]


@numba.njit(cache=True)
def _select_top(idx, K, taken, out):
    """``out[:K]`` = the K items of largest ``idx``, decreasing, ties to the smaller id."""
    L = idx.size
    for e in range(L):
        taken[e] = False
    for k in range(K):
        best = -1
        for e in range(L):
            if taken[e]:
                continue
            if best < 0 or idx[e] > idx[best]:
                best = e
        taken[best] = True
        out[k] = best


@numba.njit(cache=True)
def _run_cascade_learner(model, policy, order, attract, satisfy, gamma, K, n, c, fstar,
                         ukey, pkey, checkpoints, regret_out, counts_out):
    L = attract.size
    S = np.zeros(L, np.int64)
    N = np.ones(L, np.int64)
    for e in range(L):  # Algorithm 1: observe w_0
        if uniform(ukey, ATTRACT, 0, e, L, 0) < attract[e]:
            S[e] = 1
    idx = np.empty(L)
    taken = np.empty(L, np.bool_)
    lst = np.empty(K, np.int64)
    sel = np.empty(K, np.int64)
    clicks = np.zeros(K, np.int64)
    scratch = np.empty(K)
    cum = 0.0
    j = 0
    for t in range(1, n + 1):
        if policy == UCB1:
            lg = safe_log(t - 1.0)
            for e in range(L):
                idx[e] = S[e] / N[e] + math.sqrt(1.5 * lg / N[e])
        elif policy == KLUCB:
            th = klucb_threshold_scalar(float(t), c)
            for e in range(L):
                idx[e] = klucb_scalar(S[e] / N[e], float(N[e]), th)
        else:  # TS
            for e in range(L):
                idx[e] = beta_draw(1.0 + S[e], 1.0 + (N[e] - S[e]), pkey, t, e, L)
        _select_top(idx, K, taken, sel)
        for k in range(K):
            lst[k] = sel[k] if order == 0 else sel[K - 1 - k]
        respond(model, attract, satisfy, gamma, lst, K, t, ukey, clicks)
        last = -1
        for k in range(K):
            if clicks[k] == 1:
                last = k
        nobs = last + 1 if last >= 0 else K
        for k in range(nobs):
            e = lst[k]
            N[e] += 1
            if k == last:
                S[e] += 1
        cum += fstar - list_reward(model, attract, satisfy, gamma, lst, K, scratch)
        if t == checkpoints[j]:
            regret_out[j] = cum
            j += 1
    for e in range(L):
        counts_out[e] = N[e]


@numba.njit(cache=True)
def _run_ranked(model, attract, satisfy, gamma, K, n, c, fstar, ukey, checkpoints, regret_out, counts_out):
    L = attract.size
    S = np.zeros((K, L), np.int64)
    N = np.zeros((K, L), np.int64)
    counts = np.zeros(L, np.int64)
    idx = np.empty(L)
    taken = np.empty(L, np.bool_)
    shown = np.zeros(L, np.bool_)
    order_k = np.empty(L, np.int64)
    chosen = np.empty(K, np.int64)
    lst = np.empty(K, np.int64)
    clicks = np.zeros(K, np.int64)
    scratch = np.empty(K)
    cum = 0.0
    j = 0
    for t in range(1, n + 1):
        th = klucb_threshold_scalar(float(t), c)
        for e in range(L):
            shown[e] = False
        for k in range(K):
            for e in range(L):
                m = S[k, e] / N[k, e] if N[k, e] > 0 else 0.0
                idx[e] = klucb_scalar(m, float(N[k, e]), th)
            _select_top(idx, k + 1, taken, order_k)  # bandit k's first k+1 items
            chosen[k] = order_k[0]
            for i in range(k + 1):
                if not shown[order_k[i]]:
                    lst[k] = order_k[i]
                    break
            shown[lst[k]] = True
        respond(model, attract, satisfy, gamma, lst, K, t, ukey, clicks)
        last = -1
        for k in range(K):
            if clicks[k] == 1:
                last = k
            N[k, chosen[k]] += 1
            if clicks[k] == 1 and lst[k] == chosen[k]:
                S[k, chosen[k]] += 1
        nobs = last + 1 if last >= 0 else K
        for k in range(nobs):
            counts[lst[k]] += 1
        cum += fstar - list_reward(model, attract, satisfy, gamma, lst, K, scratch)
        if t == checkpoints[j]:
            regret_out[j] = cum
            j += 1
    for e in range(L):
        counts_out[e] = counts[e]


@numba.njit(cache=True)
def _run(model, policy, order, attract, satisfy, gamma, K, n, c, fstar, ukey, pkey,
         checkpoints, regret_out, counts_out):
    if policy == RANKED:
        _run_ranked(model, attract, satisfy, gamma, K, n, c, fstar, ukey, checkpoints, regret_out,
                    counts_out)
    else:
        _run_cascade_learner(model, policy, order, attract, satisfy, gamma, K, n, c, fstar, ukey, pkey,
                             checkpoints, regret_out, counts_out)


@numba.njit(cache=True)
def _run_all_serial(model, policy, order, attract, satisfy, gamma, K, n, c, fstar, ukeys, pkeys,
                    checkpoints, regret, counts):
    for r in range(ukeys.size):
        _run(model, policy, order, attract, satisfy, gamma, K, n, c, fstar, ukeys[r], pkeys[r],
             checkpoints, regret[r], counts[r])


@numba.njit(cache=True, parallel=True)
def _run_all_parallel(model, policy, order, attract, satisfy, gamma, K, n, c, fstar, ukeys, pkeys,
                      checkpoints, regret, counts):
    for r in numba.prange(ukeys.size):
        _run(model, policy, order, attract, satisfy, gamma, K, n, c, fstar, ukeys[r], pkeys[r],
             checkpoints, regret[r], counts[r])


def simulate_runs(model, policy: int, order: int, horizon: int, c: float, ukeys, pkeys, checkpoints,
                  threads: int | None = None):
    """Run ``len(ukeys)`` independent runs of one cell.

    Parameters
    ----------
    model : CascadeModel or DBNModel
    policy, order : int
        Codes from :mod:`simulate.policies`.
    horizon : int
        Number of steps n.
    c : float
        KL-UCB constant in ``log t + c log log t``.
    ukeys, pkeys : ndarray (runs,) uint64
        Users' and policy keys of the runs (:mod:`simulate.rng`).
    checkpoints : ndarray (m,) int64
        Increasing steps in 1..horizon, the last one = horizon.
    threads : int, optional
        1 runs serially; otherwise numba threads over runs (default: numba's setting).

    Returns
    -------
    regret : ndarray (runs, m) float64
        Cumulative expected regret at the checkpoints.
    counts : ndarray (runs, L) int64
        Final observation counts T_n(e).
    """
    attract, satisfy, gamma = model.kernel_args()
    fstar = model.expected_reward(model.optimal_list())
    ukeys = np.ascontiguousarray(ukeys, dtype=np.uint64)
    pkeys = np.ascontiguousarray(pkeys, dtype=np.uint64)
    checkpoints = np.ascontiguousarray(checkpoints, dtype=np.int64)
    runs = ukeys.size
    regret = np.zeros((runs, checkpoints.size))
    counts = np.zeros((runs, attract.size), np.int64)
    args = (model.code, int(policy), int(order), attract, satisfy, float(gamma), int(model.K),
            int(horizon), float(c), float(fstar), ukeys, pkeys, checkpoints, regret, counts)
    if threads == 1 or runs == 1:
        _run_all_serial(*args)
    else:
        prev = numba.get_num_threads()
        if threads is not None:
            numba.set_num_threads(min(int(threads), numba.config.NUMBA_NUM_THREADS))
        try:
            _run_all_parallel(*args)
        finally:
            numba.set_num_threads(prev)
    return regret, counts

