"""``uniform-random``: a uniformly random list each step (baseline and test instrument).

The list is the first K entries of a Fisher-Yates shuffle of the L items, drawn from the
policy stream with a map of the <= K entries moved (:func:`._random_list.random_list`):
uniform over the ordered K-lists, K draws and O(K^2) work a step, whatever L.
Observations as for the cascade learners.
"""

from __future__ import annotations

import numba
import numpy as np

from cascading_bandits.simulate.policies._random_list import list_buffers, random_list
from cascading_bandits.simulate.policies.kernel import (
    NJIT,
    counts_w0,
    finish,
    play,
    step_buffers,
)
from cascading_bandits.simulate.policies.registry import register_policy


@numba.njit(**NJIT)
def kernel(env, params, ukey, pkey, regret_out, counts_out, trace):
    code, attract, satisfy, gamma, K, n, order, fstar, checkpoints, lazy = env
    L = attract.size
    S, N = counts_w0(L)  # S is never read: no draws of w_0
    st = step_buffers(L, K)
    idx, taken, sel, lst, clicks, scratch = st
    keys, vals = list_buffers(K)
    cum, j = 0.0, np.int64(0)  # not a literal 0: play compiles once
    for t in range(1, n + 1):
        random_list(pkey, t, L, K, keys, vals, sel)
        cum, j, _, _ = play(
            t, S, N, ukey, cum, j, code, attract, satisfy, gamma, K, order, fstar, checkpoints,
            sel, lst, clicks, scratch, trace, regret_out,
        )  # fmt: skip
    finish(N, counts_out)


DECL = register_policy(
    "uniform-random",
    kernel=kernel,
    reference="reference.baselines:random_run",
    summary="a uniformly random list each step (baseline)",
)
