"""``oracle``: told the truth; a baseline and test instrument.

Its index is ``w(e)`` (DBN: ``rho(e) nu(e)``), so it shows the optimal list and its regret
is exactly 0. It goes through the same observation and counting code as the cascade
learners (``w_0`` included). Its list never changes, so it is chosen once, before the
first step: a step costs O(K) (showing the list, observing, counting).
"""

from __future__ import annotations

import numba
import numpy as np

from cascading_bandits.simulate.models import DBN
from cascading_bandits.simulate.policies.kernel import (
    NJIT,
    finish,
    observe_w0,
    play,
    select_top,
    step_buffers,
)
from cascading_bandits.simulate.policies.registry import register_policy


@numba.njit(**NJIT)
def kernel(env, params, ukey, pkey, regret_out, counts_out, trace):
    code, attract, satisfy, gamma, K, n, order, fstar, checkpoints, lazy = env
    L = attract.size
    S, N = observe_w0(ukey, attract)
    st = step_buffers(L, K)
    idx, taken, sel, lst, clicks, scratch = st
    for e in range(L):
        idx[e] = attract[e] * satisfy[e] if code == DBN else attract[e]
    select_top(idx, K, st[1], st[2])  # the list of every step: the index never moves
    cum, j = 0.0, np.int64(0)  # not a literal 0: play compiles once
    for t in range(1, n + 1):
        cum, j, _, _ = play(
            t, S, N, ukey, cum, j, code, attract, satisfy, gamma, K, order, fstar, checkpoints,
            sel, lst, clicks, scratch, trace, regret_out,
        )  # fmt: skip
    finish(N, counts_out)


DECL = register_policy(
    "oracle",
    kernel=kernel,
    reference="reference.baselines:oracle_run",
    summary="knows the weights: the optimal list, regret 0 (test instrument)",
)
