"""Building blocks of the policies' run kernels (numba): the parts every cascade learner shares.

A cascade learner's kernel (signature :data:`simulate.policies.registry.KERNEL_SIGNATURE`)
reads as::

    code, attract, satisfy, gamma, K, n, order, fstar, checkpoints, lazy = env
    S, N = observe_w0(ukey, attract)          # Algorithm 1's initial observation
    idx, taken, sel, lst, clicks, scratch = step_buffers(attract.size, K)
    cum, j = 0.0, np.int64(0)                  # not a literal 0: callees compile once
    for t in range(1, n + 1):
        ...fill idx (the index of every item)...
        select_top(idx, K, taken, sel)         # the K largest, ties to the smaller id
        cum, j, nobs, last = play(
            t, S, N, ukey, cum, j, code, attract, satisfy, gamma, K, order, fstar, checkpoints,
            sel, lst, clicks, scratch, trace, regret_out,
        )  # fmt: skip
    finish(N, counts_out)

:func:`play` shows the list in the cell's order, asks the click model, records the
trace, applies the cascade observation rule (eq. (2); DBN: the last click) and the
regret. Only these functions and the policy's own index are compiled for a policy.
"""

from __future__ import annotations

import numpy as np

from cascading_bandits.simulate.jitopts import HOT, INNER, NJIT, helper, python_twin
from cascading_bandits.simulate.models import list_reward, respond
from cascading_bandits.simulate.rng import ATTRACT, POLICY, uniform

__all__ = [
    "select_top", "top_uniforms", "observe_w0", "counts_w0", "step_buffers", "zeros_f", "falses",
    "play", "finish", "NJIT", "INNER", "HOT", "helper", "python_twin",
]  # fmt: skip


@helper(HOT)
def select_top(idx, K, taken, out):
    """``out[:K]`` = the K items of largest ``idx`` (L,), decreasing, ties to the smaller id.

    One pass over the items (O(L) and O(K) per entry into the top K; ``idx`` without NaN):
    the first K are insertion-sorted, then an item enters only with a value strictly above
    the current K-th and is placed after the values equal to it, so among equal values the
    smaller id stays first. ``K`` passes of "the largest item not taken" took 4 L
    comparisons for K = 4 (a run's set-up at L = 65,536 was mostly that). ``taken`` (L,)
    bool is no longer read; the argument stays, with ``step_buffers``' array for it, so that
    a policy kernel written to the module's template (``select_top(idx, K, taken, sel)``)
    keeps compiling.
    """
    L = idx.size
    m = K if K < L else L
    thr = 0.0  # the current K-th value, read from e = m on
    for e in range(L):
        v = idx[e]
        if e < m:
            k = e  # filling: the end of the list
        elif v > thr:
            k = m - 1  # replaces the K-th
        else:
            continue
        while k > 0 and idx[out[k - 1]] < v:
            out[k] = out[k - 1]
            k -= 1
        out[k] = e
        if e >= m - 1:
            thr = idx[out[m - 1]]


@helper(HOT)
def top_uniforms(pkey, t, L, K, tops, out):
    """``out[:K]`` = the K items of largest policy uniform (sub-draw 0 of (t, e)), decreasing,
    ties to the smaller id: :func:`select_top` on those L uniforms, in one pass.

    Each uniform is a fresh counter-based draw, so every one of the L is drawn (O(L) a
    step); only those above the K-th largest so far (``tops[:K]``, decreasing) are inserted,
    and a later item enters only with a strictly larger draw (ties to the smaller id).
    """
    for k in range(K):
        tops[k] = -1.0
    for e in range(L):
        u = uniform(pkey, POLICY, t, e, L, 0)
        if u > tops[K - 1]:
            k = K - 1
            while k > 0 and tops[k - 1] < u:
                tops[k] = tops[k - 1]
                out[k] = out[k - 1]
                k -= 1
            tops[k] = u
            out[k] = e


# numba compiles a numpy allocator per shape type, dtype and caller's options (0.1-0.3 s
# each): kernels allocate with np.zeros(n, np.int64), np.empty(n), np.empty(n, np.bool_)
# only (reshaped where 2-d or 3-d), and fill float zeros and False by these helpers.
@helper(INNER)
def zeros_f(n):
    """np.zeros(n) (float64) through np.empty(n)."""
    a = np.empty(n)
    for i in range(n):
        a[i] = 0.0
    return a


@helper(INNER)
def falses(n):
    """np.zeros(n, np.bool_) through np.empty(n, np.bool_)."""
    a = np.empty(n, np.bool_)
    for i in range(n):
        a[i] = False
    return a


@helper(INNER)
def observe_w0(ukey, attract):
    """(S, N) after Algorithm 1's initial observation of w_0: T_0(e) = 1, S_0(e) = w_0(e)."""
    L = attract.size
    S = np.zeros(L, np.int64)
    N = np.zeros(L, np.int64)  # not np.ones: one numpy allocator less to compile
    for e in range(L):
        N[e] = 1
        if uniform(ukey, ATTRACT, 0, e, L, 0) < attract[e]:
            S[e] = 1
    return S, N


@helper(INNER)
def counts_w0(L):
    """(S, N) after the initial observation of w_0, for a policy that never reads S (the
    oracle, uniform-random): N = 1 as :func:`observe_w0`'s, S = 0 in place of w_0's draws.

    Every draw is counter-based (a hash of its step, stream and item), so leaving out the L
    draws of w_0 changes no later draw: the lists, clicks, regret and counts T_n(e) are
    :func:`observe_w0`'s, bit for bit; the run's set-up saves L hashes (about a third of it
    at L = 65,536).
    """
    S = np.zeros(L, np.int64)
    N = np.zeros(L, np.int64)
    for e in range(L):
        N[e] = 1
    return S, N


@helper(INNER)
def step_buffers(L, K):
    """(idx (L,) float, taken (L,) bool, sel (K,) int, lst (K,) int, clicks (K,) int,
    scratch (K,) float): the work arrays of one step."""
    return (
        np.empty(L),
        np.empty(L, np.bool_),
        np.zeros(K, np.int64),
        np.zeros(K, np.int64),
        np.zeros(K, np.int64),
        np.empty(K),
    )


@helper(HOT)
def play(
    t, S, N, ukey, cum, j, code, attract, satisfy, gamma, K, order, fstar, checkpoints,
    sel, lst, clicks, scratch, trace, regret_out,
):  # fmt: skip
    """Show ``sel`` (items by decreasing index) at step t; observe, count, add the regret.

    Returns ``(cum, j, nobs, last)``: the cumulative regret, the next checkpoint's
    number, the number of observed positions and the position of the last click (-1).
    Takes the arrays themselves, unpacked once from ``env``/``st`` before the step loop:
    numba counts references of arrays taken out of a tuple, and doing that every step
    cost about a quarter of a CascadeKL-UCB step.
    """
    for k in range(K):
        lst[k] = sel[k] if order == 0 else sel[K - 1 - k]
    respond(code, attract, satisfy, gamma, lst, K, t, ukey, clicks)
    if t <= trace.shape[0]:
        for k in range(K):  # element-wise: a slice assignment compiles a shape-error path (s)
            trace[t - 1, 0, k] = lst[k]
            trace[t - 1, 1, k] = clicks[k]
    last = -1
    for k in range(K):
        if clicks[k] == 1:
            last = k
    nobs = last + 1 if last >= 0 else K
    for k in range(nobs):
        e = np.uint64(lst[k])  # an item id, unsigned: N[e], S[e] skip numba's negative-index fix
        N[e] += 1
        if k == last:
            S[e] += 1
    cum += fstar - list_reward(code, attract, satisfy, gamma, lst, K, scratch)
    if t == checkpoints[j]:
        regret_out[j] = cum
        j += 1
    return cum, j, nobs, last


@helper(HOT)
def finish(N, counts_out):
    """Copy the final observation counts T_n(e)."""
    for e in range(N.size):
        counts_out[e] = N[e]
