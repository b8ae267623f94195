"""``oracle``: told the truth; a baseline and test instrument.

It shows the model's optimal list (:meth:`optimal_list` of :mod:`simulate.models`), so its
expected regret is exactly 0 under every click model:

* cascade: the K largest ``w(e)``, decreasing (ties to the smaller id);
* DBN: the K largest ``rho(e) nu(e)``, decreasing;
* PBM and DCM: the rearrangement pairing (docs/click_models.md, "Optimal lists"): the i-th
  most attractive item at the position of the i-th largest position weight ``q_k``
  (``kappa_k``; ``1 - lam_k``), items ties to the smaller id, positions ties to the upper
  one. ``w`` alone is right only for a non-increasing ``kappa`` (non-decreasing ``lam``).

Its list is "the items by decreasing index" of the other policies with the index read as
"the best list in position order", so ``worst-first`` shows that list reversed. It goes
through the same observation and counting code as the cascade learners; T(e) starts at 1
(``w_0``), whose clicks it never reads, so it draws none (as :func:`.kernel.counts_w0`).
Its list never changes, so it is chosen once, before the first step (O(L)); a step costs
O(K) (showing the list, observing, counting).
"""

from __future__ import annotations

import numba
import numpy as np

from cascading_bandits.simulate.models import DBN, DCM, PBM
from cascading_bandits.simulate.policies.kernel import (
    NJIT,
    play,
    select_top,
    step_buffers,
)
from cascading_bandits.simulate.policies.registry import register_policy


@numba.njit(**NJIT)
def kernel(env, params, ukey, pkey, regret_out, counts_out, trace):
    code, attract, satisfy, gamma, K, n, order, fstar, checkpoints, lazy = env
    L = attract.size
    # T(e) counted in counts_out itself (T_0(e) = 1, no draws of w_0: counts_w0's N) and no
    # copy at the end; S, which play counts clicks into, is never read. At L = 65,536 a
    # run's set-up (O(L)) is about half of its work: three passes over L less
    S = np.zeros(L, np.int64)
    N = counts_out
    for e in range(L):
        N[e] = 1
    st = step_buffers(L, K)
    idx, taken, sel, lst, clicks, scratch = st
    if code == PBM or code == DCM:
        # rearrangement pairing: items by decreasing w into `clicks`, positions by decreasing
        # q (kappa; 1 - lam, in satisfy[:K]) into `lst` (both rewritten by every step)
        select_top(attract, K, taken, clicks)
        for k in range(K):
            scratch[k] = satisfy[k] if code == PBM else 1.0 - satisfy[k]
        select_top(scratch, K, taken, lst)
        for i in range(K):
            sel[lst[i]] = clicks[i]
    elif code == DBN:
        for e in range(L):
            idx[e] = attract[e] * satisfy[e]
        select_top(idx, K, taken, sel)
    else:
        select_top(attract, K, taken, sel)
    # sel: the list of every step, the truth never moves
    cum, j = 0.0, np.int64(0)  # not a literal 0: play compiles once
    for t in range(1, n + 1):
        cum, j, _, _ = play(
            t, S, N, ukey, cum, j, code, attract, satisfy, gamma, K, order, fstar, checkpoints,
            sel, lst, clicks, scratch, trace, regret_out,
        )  # fmt: skip


DECL = register_policy(
    "oracle",
    kernel=kernel,
    reference="reference.baselines:oracle_run",
    summary="knows the weights: the optimal list, regret 0 (test instrument)",
)
