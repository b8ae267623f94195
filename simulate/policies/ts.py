"""``cascade-ts(prior=1,1)``: Thompson sampling with the cascade observations.

``theta_t(e) ~ Beta(a + S(e), b + T(e) - S(e))`` with the prior ``Beta(a, b)``
(``prior=a,b``, default the uniform prior 1,1; a, b >= 1), the observations of CascadeUCB1
(:mod:`.ucb1`; ``w_0`` included); the K largest samples are listed (ties to the smaller
id). The plain loop (``lazy=False``, the definition) draws every item's sample every
step, a pure function of (policy key, t, e) drawn from the policy stream:

* below :data:`INVERSION_MIN_L` items (the rule of ``draw``; the kernel is
  :func:`._ts_gamma.kernel_gamma`), as X / (X + Y) with
  Gamma variates by Marsaglia and Tsang from ziggurat normals (:func:`simulate.rng.beta_draw`,
  about 50 ns; engine version 4, Box-Muller normals before);
* from :data:`INVERSION_MIN_L` items on, by inversion, ``theta_t(e) = I^{-1}(u_t(e))``
  (:func:`simulate.special.beta_inverse_draw`, SciPy's quantile, about 1.5 us).

Both are exact Beta draws; the rule only fixes which random numbers a run uses.

Threshold sampler (``lazy=True``, the default; L >= INVERSION_MIN_L)
--------------------------------------------------------------------
:mod:`._ts_threshold` (its docstring gives the construction) lists, each step, the K
largest of L independent samples of the posteriors -- the plain loop's law of the list,
set and order, exactly -- while drawing only the samples above a threshold: a few heads
in full, the other items through an envelope of their density above the threshold,
chosen among all by a Poisson process over buckets of their envelope masses, with an
exact completion below the threshold when fewer than K exceed it. Its cost a step is
O(#buckets + number of samples above the threshold) plus O(1) per observed item, with
an O(L) step now and then to re-choose the thresholds. It uses the random numbers in
another way than the plain loop, so the two kernels give the same law but NOT the same
numbers (tests/simulate/test_ts_threshold.py: chi-square tests of the lists' law on
every path, regret curves). Below INVERSION_MIN_L items both flags run the Gamma-ratio
plain loop (the same numbers).
"""

from __future__ import annotations

import importlib

from cascading_bandits.simulate.policies._ts_gamma import kernel_gamma
from cascading_bandits.simulate.policies._ts_rule import INVERSION_MIN_L
from cascading_bandits.simulate.policies.registry import Param, register_policy

__all__ = ["INVERSION_MIN_L", "kernel", "DECL"]

#: the numba functions of the plain loop, defined in :mod:`._ts_kernels` and reached
#: here on first use
_KERNEL_NAMES = ("draw", "kernel_plain")


def _kernels():
    return importlib.import_module("cascading_bandits.simulate.policies._ts_kernels")


def __getattr__(name):
    # PEP 562: ts.kernel_plain etc. without importing SciPy when the module is imported
    if name in _KERNEL_NAMES:
        return getattr(_kernels(), name)
    if name == "kernel_threshold":
        return _threshold().kernel_threshold
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _threshold():
    return importlib.import_module("cascading_bandits.simulate.policies._ts_threshold")


def kernel(L, lazy):
    """The kernel a run uses: only that one is compiled. Below INVERSION_MIN_L items the
    Gamma-ratio loop (no SciPy: :mod:`._ts_gamma`), else the threshold sampler (lazy) or
    the plain loop with inversion draws (SciPy imported on first use)."""
    if L < INVERSION_MIN_L:
        return kernel_gamma
    return _threshold().kernel_threshold if lazy else _kernels().kernel_plain


DECL = register_policy(
    "cascade-ts",
    params=(Param("prior", (1.0, 1.0), 1.0, doc="Beta prior a,b", size=2),),
    kernel=kernel,
    reference="reference.ts:reference_run",
    summary="Thompson sampling, Beta(a, b) prior (a later baseline the paper lacks)",
    uses_lazy=True,
    # no plain_step_s: the engine must not run the plain loop in place of the threshold
    # sampler (lazy=None), whose numbers differ (same law); the plain loop's inversion
    # draws cost one Beta quantile per item a step, 46 us a step at L = 128
)
