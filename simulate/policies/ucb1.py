"""``cascade-ucb1(alpha=1.5)``: CascadeUCB1 (Algorithm 1 with the UCB1 index, Section 3.2).

At step ``t = 1..n`` the index of item ``e`` is
``U_t(e) = S(e)/T(e) + sqrt(alpha log(t-1) / T(e))`` -- :func:`bounds.indices.ucb1_radius_scalar`,
the one definition, with the small-t rule of :mod:`bounds.indices` (the radius is 0 for
t <= 2). ``alpha = 1.5`` is the paper's ``c_{t-1,T}``; other values scale the
exploration. ``S(e)`` counts observed attractions, ``T(e)`` observations, starting from
Algorithm 1's ``w_0`` (``T_0(e) = 1``); the mean is the correctly rounded ``S/T``.

``lazy=True`` (the default) selects, from STATES_MIN = 96 items on, the top K over the
distinct (S, T) states (:mod:`._index_states`): the same lists bit for bit, at a cost per
step that depends on the number of alive states, not on L; ``lazy=False``, and any run on
fewer items, is the plain loop.
"""

from __future__ import annotations

import numba
import numpy as np

from cascading_bandits.bounds.indices import ucb1_radius_scalar
from cascading_bandits.simulate.policies._index_states import STATES_MIN, UCB1, index_loop
from cascading_bandits.simulate.policies.kernel import (
    NJIT,
    finish,
    observe_w0,
    play,
    select_top,
    step_buffers,
)
from cascading_bandits.simulate.policies.registry import Param, register_policy


@numba.njit(**NJIT)
def kernel_plain(env, params, ukey, pkey, regret_out, counts_out, trace):
    """Every index every step (the definition; lazy=False)."""
    code, attract, satisfy, gamma, K, n, order, fstar, checkpoints, lazy = env
    alpha = params[0]
    S, N = observe_w0(ukey, attract)
    st = step_buffers(attract.size, K)
    idx, taken, sel, lst, clicks, scratch = st
    cum, j = 0.0, np.int64(0)  # not a literal 0: play compiles once
    for t in range(1, n + 1):
        for e in range(attract.size):
            idx[e] = S[e] / N[e] + ucb1_radius_scalar(t - 1.0, N[e], alpha)
        select_top(idx, K, st[1], st[2])
        cum, j, _, _ = play(
            t, S, N, ukey, cum, j, code, attract, satisfy, gamma, K, order, fstar, checkpoints,
            sel, lst, clicks, scratch, trace, regret_out,
        )  # fmt: skip
    finish(N, counts_out)


@numba.njit(**NJIT)
def kernel_states(env, params, ukey, pkey, regret_out, counts_out, trace):
    """The top K over the distinct states (lazy=True; :mod:`._index_states`)."""
    index_loop(env, params, ukey, regret_out, counts_out, trace, np.int64(UCB1))


def kernel(L, lazy):
    """The kernel a run uses: only that one is compiled (the plain loop below STATES_MIN
    items, where it is the faster of the two)."""
    return kernel_states if lazy and L >= STATES_MIN else kernel_plain


DECL = register_policy(
    "cascade-ucb1",
    params=(Param("alpha", 1.5, 0.0, doc="exploration factor in sqrt(alpha log(t-1) / T)"),),
    kernel=kernel,
    reference="reference.ucb1:reference_run",
    summary="CascadeUCB1 (Algorithm 1, UCB1 index; alpha = 1.5 is the paper's)",
    uses_lazy=True,
    # plain loop: L indices and a one-pass selection a step (kernel.select_top); measured
    # (one thread, B_LB(L, K, 0.2, 0.15)) 7.7 us a step at L = 2048, K = 4, little more at K = 16
    plain_step_s=lambda L, K: 3.8e-9 * L + 1e-7 * K,
)
