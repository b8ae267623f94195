"""``uniform-random``: a uniformly random list each step (baseline and test instrument).

Its index is the policy stream's uniform of (t, e) (:mod:`simulate.rng`); the K largest
of L iid uniforms are a uniformly random list. Observations as for the cascade learners.
Each uniform is a fresh counter-based draw, so a step draws all L of them
(:func:`.kernel.top_uniforms`, one pass, no index array): O(L) a step.
"""

from __future__ import annotations

import numba
import numpy as np

from cascading_bandits.simulate.policies.kernel import (
    NJIT,
    finish,
    observe_w0,
    play,
    step_buffers,
    top_uniforms,
)
from cascading_bandits.simulate.policies.registry import register_policy


@numba.njit(**NJIT)
def kernel(env, params, ukey, pkey, regret_out, counts_out, trace):
    code, attract, satisfy, gamma, K, n, order, fstar, checkpoints, lazy = env
    L = attract.size
    S, N = observe_w0(ukey, attract)
    st = step_buffers(L, K)
    idx, taken, sel, lst, clicks, scratch = st
    cum, j = 0.0, np.int64(0)  # not a literal 0: play compiles once
    for t in range(1, n + 1):
        top_uniforms(pkey, t, L, K, scratch, sel)
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
