"""``cascade-ts(prior=1,1)``: Thompson sampling with the cascade observations.

``theta_t(e) ~ Beta(a + S(e), b + T(e) - S(e))`` with the prior ``Beta(a, b)``
(``prior=a,b``, default the uniform prior 1,1), the observations of CascadeUCB1 (:mod:`.ucb1`;
``w_0`` included), drawn by :func:`simulate.rng.beta_draw` from the run's policy key (a
pure function of (key, t, e)); the K largest samples are listed. ``a, b >= 1`` (the
Gamma sampler's range).
"""

from __future__ import annotations

import numba
import numpy as np

from cascading_bandits.simulate.policies.kernel import (
    NJIT,
    finish,
    observe_w0,
    play,
    select_top,
    step_buffers,
)
from cascading_bandits.simulate.policies.registry import Param, register_policy
from cascading_bandits.simulate.rng import beta_draw


@numba.njit(**NJIT)
def kernel(env, params, ukey, pkey, regret_out, counts_out, trace):
    code, attract, satisfy, gamma, K, n, order, fstar, checkpoints, lazy = env
    a, b = params[0], params[1]
    L = attract.size
    S, N = observe_w0(ukey, attract)
    st = step_buffers(L, K)
    idx, taken, sel, lst, clicks, scratch = st
    cum, j = 0.0, np.int64(0)  # not a literal 0: play compiles once
    for t in range(1, n + 1):
        for e in range(L):
            idx[e] = beta_draw(a + S[e], b + (N[e] - S[e]), pkey, t, e, L)
        select_top(idx, K, st[1], st[2])
        cum, j, _, _ = play(
            t, S, N, ukey, cum, j, code, attract, satisfy, gamma, K, order, fstar, checkpoints,
            sel, lst, clicks, scratch, trace, regret_out,
        )  # fmt: skip
    finish(N, counts_out)


DECL = register_policy(
    "cascade-ts",
    params=(Param("prior", (1.0, 1.0), 1.0, doc="Beta prior a,b", size=2),),
    kernel=kernel,
    reference="reference.ts:reference_run",
    summary="Thompson sampling, Beta(a, b) prior (a later baseline the paper lacks)",
)
