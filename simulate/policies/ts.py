"""``cascade-ts(prior=1,1)``: Thompson sampling with the cascade observations.

``theta_t(e) ~ Beta(a + S(e), b + T(e) - S(e))`` with the prior ``Beta(a, b)``
(``prior=a,b``, default the uniform prior 1,1; a, b >= 1), the observations of CascadeUCB1
(:mod:`.ucb1`; ``w_0`` included); the K largest samples are listed (ties to the smaller
id). Each sample is a pure function of (policy key, t, e), drawn from the policy stream:

* below :data:`INVERSION_MIN_L` items (the rule of ``draw``; the kernel is
  :func:`._ts_gamma.kernel_gamma`), as X / (X + Y) with
  Gamma variates by Marsaglia and Tsang from ziggurat normals (:func:`simulate.rng.beta_draw`,
  about 50 ns; engine version 4, Box-Muller normals before);
* from :data:`INVERSION_MIN_L` items on, by inversion, ``theta_t(e) = I^{-1}(u_t(e))``
  (:func:`simulate.special.beta_inverse_draw`, SciPy's quantile, about 1.5 us), which is
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

import importlib

from cascading_bandits.simulate.policies._ts_gamma import kernel_gamma
from cascading_bandits.simulate.policies._ts_rule import INVERSION_MIN_L, M1, M2, MARGIN
from cascading_bandits.simulate.policies.registry import Param, register_policy

__all__ = ["MARGIN", "M1", "M2", "INVERSION_MIN_L", "kernel", "DECL"]

#: the numba functions, defined in :mod:`._ts_kernels` and reached here on first use
_KERNEL_NAMES = ("draw", "kernel_plain", "kernel_lazy", "_top_among", "_recentre", "_lazy_buffers")


def _kernels():
    return importlib.import_module("cascading_bandits.simulate.policies._ts_kernels")


def __getattr__(name):
    # PEP 562: ts.kernel_lazy etc. without importing SciPy when the module is imported
    if name in _KERNEL_NAMES:
        return getattr(_kernels(), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def kernel(L, lazy):
    """The kernel a run uses: only that one is compiled. Below INVERSION_MIN_L items the
    Gamma-ratio loop (no SciPy: :mod:`._ts_gamma`), else the lazy or the plain loop with
    inversion draws (SciPy imported on first use)."""
    if L < INVERSION_MIN_L:
        return kernel_gamma
    k = _kernels()
    return k.kernel_lazy if lazy else k.kernel_plain


DECL = register_policy(
    "cascade-ts",
    params=(Param("prior", (1.0, 1.0), 1.0, doc="Beta prior a,b", size=2),),
    kernel=kernel,
    reference="reference.ts:reference_run",
    summary="Thompson sampling, Beta(a, b) prior (a later baseline the paper lacks)",
    uses_lazy=True,
    # the plain loop's inversion draws (L >= INVERSION_MIN_L): one Beta quantile per item a
    # step; measured (one thread, B_LB(L, 4, 0.2, 0.15)) 46 us a step at L = 128, 118 us at
    # L = 512
    plain_step_s=lambda L, K: 3.6e-7 * L,
)
