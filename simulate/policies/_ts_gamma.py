"""The plain CascadeTS loop, and its kernel below INVERSION_MIN_L items (Gamma-ratio draws).

A module without SciPy (:mod:`simulate.special`): CascadeTS below INVERSION_MIN_L items
draws its samples as Gamma ratios (:func:`simulate.rng.beta_draw`) and compiles neither
the inversion draws nor their SciPy entry points (a first L = 16 compile: 4.5 s with
them, 3.8 s without).
"""

from __future__ import annotations

import math

import numba
import numpy as np

from cascading_bandits.simulate.policies.kernel import (
    HOT,
    NJIT,
    finish,
    helper,
    observe_w0,
    play,
    select_top,
    step_buffers,
)
from cascading_bandits.simulate.rng import _gamma_dc

__all__ = ["plain_loop", "kernel_gamma"]


@numba.njit(cache=True, inline="always")
def plain_loop(env, params, ukey, pkey, regret_out, counts_out, trace, sample):
    """Every item's Thompson sample ``sample(a, b, pkey, t, e, L)`` every step, the K
    largest listed (ties to the smaller id); inlined in each kernel, ``sample`` a numba
    function (:func:`simulate.rng.beta_draw`, or the rule ``_ts_kernels.draw``)."""
    code, attract, satisfy, gamma, K, n, order, fstar, checkpoints, lazy = env
    a, b = params[0], params[1]
    L = attract.size
    S, N = observe_w0(ukey, attract)
    st = step_buffers(L, K)
    idx, taken, sel, lst, clicks, scratch = st
    cum, j = 0.0, np.int64(0)  # not a literal 0: play compiles once
    for t in range(1, n + 1):
        for e in range(L):
            idx[e] = sample(a + S[e], b + (N[e] - S[e]), pkey, t, e, L)
        select_top(idx, K, st[1], st[2])
        cum, j, _, _ = play(
            t, S, N, ukey, cum, j, code, attract, satisfy, gamma, K, order, fstar, checkpoints,
            sel, lst, clicks, scratch, trace, regret_out,
        )  # fmt: skip
    finish(N, counts_out)


@helper(HOT)
def _constants(a, b, S, N, e, dc):
    """``dc[e]`` = (d, cc) of item e's two Gamma draws, as :func:`simulate.rng._gamma_draw`
    computes them from its posterior Beta(a + S, b + N - S)."""
    x, y = a + S[e], b + (N[e] - S[e])
    da, db = x - 1.0 / 3.0, y - 1.0 / 3.0
    dc[e, 0], dc[e, 1] = da, 1.0 / math.sqrt(9.0 * da)
    dc[e, 2], dc[e, 3] = db, 1.0 / math.sqrt(9.0 * db)


@numba.njit(**NJIT)
def kernel_gamma(env, params, ukey, pkey, regret_out, counts_out, trace):
    """The CascadeTS kernel below INVERSION_MIN_L items: Gamma-ratio samples (the rule of
    ``_ts_kernels.draw`` there, without its inversion branch), :func:`plain_loop`'s numbers.

    The constants ``d`` and ``1 / sqrt(9 d)`` of each item's two Marsaglia-Tsang draws
    are kept per item and recomputed only when the item is observed (a square root and a
    division per Gamma draw, with the two conversions, were about a fifth of a step at
    L = 16)."""
    code, attract, satisfy, gamma, K, n, order, fstar, checkpoints, lazy = env
    a, b = params[0], params[1]
    L = attract.size
    S, N = observe_w0(ukey, attract)
    st = step_buffers(L, K)
    idx, taken, sel, lst, clicks, scratch = st
    dc = np.empty(4 * L).reshape((L, 4))  # 1-d allocators only (docs/design.md)
    for e in range(L):
        _constants(a, b, S, N, e, dc)
    cum, j = 0.0, np.int64(0)  # not a literal 0: play compiles once
    for t in range(1, n + 1):
        for e in range(L):
            x, i = _gamma_dc(dc[e, 0], dc[e, 1], pkey, t, e, L, np.int64(0))
            y, i = _gamma_dc(dc[e, 2], dc[e, 3], pkey, t, e, L, i)
            idx[e] = x / (x + y)
        select_top(idx, K, st[1], st[2])
        cum, j, nobs, _ = play(
            t, S, N, ukey, cum, j, code, attract, satisfy, gamma, K, order, fstar, checkpoints,
            sel, lst, clicks, scratch, trace, regret_out,
        )  # fmt: skip
        for k in range(nobs):
            _constants(a, b, S, N, lst[k], dc)
    finish(N, counts_out)
