"""``cascade-ts(prior=1,1)``: Thompson sampling with the cascade observations.

``theta_t(e) ~ Beta(a + S(e), b + T(e) - S(e))`` with the prior ``Beta(a, b)``
(``prior=a,b``, default the uniform prior 1,1; a, b >= 1), the observations of CascadeUCB1
(:mod:`.ucb1`; ``w_0`` included); the K largest samples are listed (ties to the smaller
id). Each sample is a pure function of (policy key, t, e), drawn from the policy stream:

* below :data:`INVERSION_MIN_L` items (one rule, :func:`draw`), as X / (X + Y) with
  Gamma variates by Marsaglia and Tsang from ziggurat normals (:func:`simulate.rng.beta_draw`,
  about 50 ns; engine version 4, Box-Muller normals before);
* from :data:`INVERSION_MIN_L` items on, by inversion, ``theta_t(e) = I^{-1}(u_t(e))``
  (:func:`simulate.rng.beta_inverse_draw`, SciPy's quantile, about 1.5 us), which is
  monotone in the uniform ``u_t(e)`` and so allows the lazy selection below.

Both are exact Beta draws; the rule only fixes which random numbers a run uses. Below the
threshold drawing all L samples is cheaper than the lazy selection's few quantiles
(measured, 2e4 steps, K = 4: at L = 128 all samples 87k run-steps/s against 62k lazy; at
L = 256, 58k against 79k).

Lazy exact selection (``lazy=True``, the default; L >= INVERSION_MIN_L)
-----------------------------------------------------------------------
The lazy kernel keeps two thresholds ``x1 > x2`` and every item's CDF there,
``c_i(e) = I_{x_i}(a_e, b_e)``, recomputed only for the items a step observes (their
posterior changed). Since ``theta <= x`` iff ``u <= I_x(a, b)``, a step draws every item's
uniform (a few ns) and computes the quantile only for the items with
``u > c_1(e) - MARGIN``; every other item has ``theta <= x1``. If at least K of the
quantiles exceed ``x1``, the K largest of them are the K largest overall -- the plain
loop's list, ties included. Otherwise the items with ``u > c_2(e) - MARGIN`` join, and if
that still leaves fewer than K above ``x2`` the step computes every quantile (the plain
step) and re-centres the thresholds on that step's order statistics: ``x1`` (``x2``) the
(K + M1)-th ((K + M2)-th) largest sample. It re-centres too when the expected number of
samples above ``x1``, ``sum_e (1 - c_1(e))`` (kept up to date), leaves
[K + 0.5, K + 4 M1].

Why no item is missed: the sample ``theta = beta_quantile(a, b, u)`` has
``I_theta(a, b) <= u + ROUNDTRIP_TOL`` (checked for every draw, :mod:`simulate.special`),
so an item with ``u <= I_x(a, b) - MARGIN`` has ``I_theta < I_x``, hence ``theta < x``,
as long as MARGIN (1e-6) exceeds ROUNDTRIP_TOL (1e-9) plus the CDF's own error (about
1e-15); it costs about ``L * MARGIN`` extra quantiles a step.
``tests/simulate``: lazy == plain == reference, step by step.
Measured (B_LB(2048, 4, 0.2, 0.15), 1e4 steps): 7.4 quantiles a step, 26 full steps and
1217 second-level steps in 10,000.
"""

from __future__ import annotations

import numba
import numpy as np

from cascading_bandits.simulate.policies.kernel import (
    HOT,
    INNER,
    NJIT,
    finish,
    helper,
    observe_w0,
    play,
    select_top,
    step_buffers,
)
from cascading_bandits.simulate.policies.registry import Param, register_policy
from cascading_bandits.simulate.rng import POLICY, beta_draw, beta_inverse_draw, uniform
from cascading_bandits.simulate.special import beta_quantile, betainc

#: u-space margin of the lazy selection (see the module docstring)
MARGIN = 1e-6
#: targets of the thresholds: about K + M1 (K + M2) samples above x1 (x2)
M1, M2 = 4, 16
#: the number of items from which the samples are drawn by inversion (module docstring)
INVERSION_MIN_L = 128


@numba.njit(**NJIT)
def draw(a, b, pkey, t, e, L):
    """The Thompson sample of item e at step t: Gamma ratio below INVERSION_MIN_L items,
    inversion from there on (module docstring)."""
    if L < INVERSION_MIN_L:
        return beta_draw(a, b, pkey, t, e, L)
    return beta_inverse_draw(a, b, pkey, t, e, L)


@numba.njit(**NJIT)
def kernel_plain(env, params, ukey, pkey, regret_out, counts_out, trace):
    """Every item's sample every step (the definition; the kernel below INVERSION_MIN_L
    items, and lazy=False)."""
    code, attract, satisfy, gamma, K, n, order, fstar, checkpoints, lazy = env
    a, b = params[0], params[1]
    L = attract.size
    S, N = observe_w0(ukey, attract)
    st = step_buffers(L, K)
    idx, taken, sel, lst, clicks, scratch = st
    cum, j = 0.0, np.int64(0)  # not a literal 0: play compiles once
    for t in range(1, n + 1):
        for e in range(L):
            idx[e] = draw(a + S[e], b + (N[e] - S[e]), pkey, t, e, L)
        select_top(idx, K, st[1], st[2])
        cum, j, _, _ = play(
            t, S, N, ukey, cum, j, code, attract, satisfy, gamma, K, order, fstar, checkpoints,
            sel, lst, clicks, scratch, trace, regret_out,
        )  # fmt: skip
    finish(N, counts_out)


@helper(HOT)
def _top_among(idx, cand, nc, K, out):
    """``out[:K]`` = the K candidates of largest ``idx``, decreasing, ties to the smaller id."""
    for k in range(K):
        best = -1
        for i in range(nc):
            e = cand[i]
            if e < 0:
                continue
            if best < 0:
                best = i
                continue
            f = cand[best]
            if idx[e] > idx[f] or (idx[e] == idx[f] and e < f):
                best = i
        out[k] = cand[best]
        cand[best] = -1 - cand[best]  # taken (restored below)
    for i in range(nc):
        if cand[i] < 0:
            cand[i] = -1 - cand[i]


@helper(INNER)
def _recentre(S, N, a, b, idx, K, c1, c2, dirty2):
    """Thresholds on this step's samples ``idx`` (all L of them); every item's CDF there.

    Returns (x1, x2, E1) with E1 = sum_e (1 - c1[e]), the expected number above x1.
    """
    L = idx.size
    # the (K + M1)-th and (K + M2)-th largest samples (the smallest if L is below): an
    # insertion buffer of the m largest, not np.sort (whose compilation took 1.5 s)
    m = min(K + M2, L)
    top = np.empty(m)  # decreasing; the m <= L samples (finite) fill every slot
    for i in range(m):  # by hand: np.full compiles one more kernel
        top[i] = -np.inf
    for e in range(L):
        x = idx[e]
        if x > top[m - 1]:
            i = m - 1
            while i > 0 and top[i - 1] < x:
                top[i] = top[i - 1]
                i -= 1
            top[i] = x
    x1 = top[min(K + M1, L) - 1]
    x2 = top[m - 1]
    E1 = 0.0
    for e in range(L):
        ae, be = a + S[e], b + (N[e] - S[e])
        c1[e] = betainc(ae, be, x1, 0)
        c2[e] = betainc(ae, be, x2, 0)
        dirty2[e] = False
        E1 += 1.0 - c1[e]
    return x1, x2, E1


@helper(INNER)
def _lazy_buffers(L):
    """(u, c1, c2 (L,) float, dirty2 (L,) bool, cand (L,) int): the lazy kernel's work
    arrays, c1, c2 zero and dirty2 False. Allocated in a helper like ``step_buffers``:
    numba compiles a numpy allocator once per signature and per caller's options."""
    dirty2 = np.empty(L, np.bool_)
    for e in range(L):
        dirty2[e] = False
    return np.empty(L), np.zeros(L), np.zeros(L), dirty2, np.empty(L, np.int64)


@numba.njit(**NJIT)
def kernel_lazy(env, params, ukey, pkey, regret_out, counts_out, trace):
    """The plain kernel's decisions, drawing few quantiles a step (module docstring)."""
    code, attract, satisfy, gamma, K, n, order, fstar, checkpoints, lazy = env
    a, b = params[0], params[1]
    L = attract.size
    S, N = observe_w0(ukey, attract)
    st = step_buffers(L, K)
    idx, taken, sel, lst, clicks, scratch = st
    u, c1, c2, dirty2, cand = _lazy_buffers(L)
    x1, x2, E1 = 0.0, 0.0, 0.0
    full = True
    cum, j = 0.0, np.int64(0)  # not a literal 0: play compiles once
    for t in range(1, n + 1):
        if not full:
            nc = np.int64(0)
            for e in range(L):
                ue = uniform(pkey, POLICY, t, e, L, 0)
                u[e] = ue
                if ue > c1[e] - MARGIN:
                    cand[nc] = e
                    nc += 1
            above = 0
            for i in range(nc):
                e = cand[i]
                idx[e] = beta_quantile(a + S[e], b + (N[e] - S[e]), u[e])
                if idx[e] > x1:
                    above += 1
            if above < K:  # level 2: the items between x2 and x1 join
                n1 = nc
                for e in range(L):
                    if u[e] > c1[e] - MARGIN:
                        continue
                    if dirty2[e]:
                        c2[e] = betainc(a + S[e], b + (N[e] - S[e]), x2, 0)
                        dirty2[e] = False
                    if u[e] > c2[e] - MARGIN:
                        cand[nc] = e
                        nc += 1
                above = 0
                for i in range(nc):
                    e = cand[i]
                    if i >= n1:
                        idx[e] = beta_quantile(a + S[e], b + (N[e] - S[e]), u[e])
                    if idx[e] > x2:
                        above += 1
                if above < K:
                    full = True
            if not full:
                _top_among(idx, cand, nc, K, sel)
        if full:
            for e in range(L):
                idx[e] = draw(a + S[e], b + (N[e] - S[e]), pkey, t, e, L)
            select_top(idx, K, st[1], st[2])
            x1, x2, E1 = _recentre(S, N, a, b, idx, K, c1, c2, dirty2)
            full = False
        cum, j, nobs, _ = play(
            t, S, N, ukey, cum, j, code, attract, satisfy, gamma, K, order, fstar, checkpoints,
            sel, lst, clicks, scratch, trace, regret_out,
        )  # fmt: skip
        for k in range(nobs):  # their posteriors changed: so did their CDFs at x1, x2
            e = lst[k]
            c = betainc(a + S[e], b + (N[e] - S[e]), x1, 0)
            E1 += c1[e] - c
            c1[e] = c
            dirty2[e] = True
        if E1 < K + 0.5 or E1 > K + 4 * M1:
            full = True
    finish(N, counts_out)


def kernel(L, lazy):
    """The kernel a run uses: only that one is compiled."""
    return kernel_lazy if lazy and L >= INVERSION_MIN_L else kernel_plain


DECL = register_policy(
    "cascade-ts",
    params=(Param("prior", (1.0, 1.0), 1.0, doc="Beta prior a,b", size=2),),
    kernel=kernel,
    reference="reference.ts:reference_run",
    summary="Thompson sampling, Beta(a, b) prior (a later baseline the paper lacks)",
    uses_lazy=True,
)
