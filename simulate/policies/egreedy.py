"""``cascade-egreedy(eps=0.05)``: epsilon-greedy with the cascade observations (a baseline).

At step ``t``, with probability ``eps`` a uniformly random list, else the K largest
empirical means ``S(e)/T(e)`` (ties to the smaller id); observations and ``w_0`` as for
CascadeUCB1 (:mod:`.ucb1`). Both draws come from the run's policy stream
(:mod:`simulate.rng`), so a run is a pure function of its keys and the users' draws
are the same as under any other policy (common random numbers): the coin is sub-draw 1
of (t, item 0) -- explore iff it is ``< eps`` -- and the random list is the K largest of
the sub-draws 0 of (t, e), the draws of ``uniform-random``. So ``eps = 1`` shows
``uniform-random``'s lists and ``eps = 0`` is the greedy policy.
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
from cascading_bandits.simulate.rng import POLICY, uniform


@numba.njit(**NJIT)
def kernel(env, params, ukey, pkey, regret_out, counts_out, trace):
    code, attract, satisfy, gamma, K, n, order, fstar, checkpoints, lazy = env
    eps = params[0]
    L = attract.size
    S, N = observe_w0(ukey, attract)
    st = step_buffers(L, K)
    idx, taken, sel, lst, clicks, scratch = st
    cum, j = 0.0, np.int64(0)  # not a literal 0: play compiles once
    for t in range(1, n + 1):
        if uniform(pkey, POLICY, t, 0, L, 1) < eps:
            for e in range(L):
                idx[e] = uniform(pkey, POLICY, t, e, L, 0)
        else:
            for e in range(L):
                idx[e] = S[e] / N[e]
        select_top(idx, K, st[1], st[2])
        cum, j, _, _ = play(
            t, S, N, ukey, cum, j, code, attract, satisfy, gamma, K, order, fstar, checkpoints,
            sel, lst, clicks, scratch, trace, regret_out,
        )  # fmt: skip
    finish(N, counts_out)


DECL = register_policy(
    "cascade-egreedy",
    params=(Param("eps", 0.05, 0.0, 1.0, doc="probability of a uniformly random list"),),
    kernel=kernel,
    reference="reference.egreedy:reference_run",
    summary="epsilon-greedy on the empirical means (baseline)",
)
