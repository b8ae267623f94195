"""SciPy's regularized incomplete beta function and its inverse, callable from numba kernels.

Thompson sampling draws ``theta = I^{-1}_{a,b}(u)`` from one counter-based uniform ``u``
(:func:`beta_inverse_draw`): the inverse-CDF draw is monotone in ``u``, which is what
lets the lazy CascadeTS kernel decide ``theta <= x`` from ``u <= I_x(a, b)`` without the
quantile. Both functions are SciPy's own (``scipy.special.betaincinv`` and
``scipy.special.betainc``, Boost's ``ibeta_inv``/``ibeta``), reached through the C entry
points of ``scipy.special.cython_special``: the kernels and the pure-Python reference of
the test suite therefore compute the very same bits.

The entry points are registered with LLVM under fixed symbol names, so kernels calling
them are cached by name, not by address, and load in a fresh process (this module must be
imported before such a kernel runs: every module whose numba code calls them imports it).
Only the modules that need them import this one (:mod:`simulate.policies._ts_kernels`,
loaded by the first CascadeTS run on INVERSION_MIN_L items or more): the other runs neither
import SciPy's special functions (0.05-0.09 s once numba has imported scipy.linalg, which
it does on its first compile or cache load; 0.26-0.33 s alone) nor compile the kernels
that call them.

SciPy's quantile is not always right: in SciPy 1.17.1 ``betaincinv(1000, b, u)`` (and
``betaincinv(a, 1000, u)``) is wrong for about 4% of u when the other parameter exceeds
1000 -- ``betainc`` at the result misses u by up to 0.94 -- and elsewhere the round trip
``betainc(a, b, betaincinv(a, b, u)) - u`` reaches 4e-10 (a = 10, b = 1e7).
:func:`beta_quantile` therefore checks every quantile against the CDF and, where the
round trip misses u by more than :data:`ROUNDTRIP_TOL`, takes the bisection root of the
CDF instead. ``betainc`` itself agrees with mpmath to about 1e-15 relative (test suite).
"""

from __future__ import annotations

import llvmlite.binding as llvm
import numba
from numba import types
from numba.extending import get_cython_function_address

from cascading_bandits.simulate.rng import POLICY, uniform

__all__ = ["betaincinv", "betainc", "beta_quantile", "beta_inverse_draw", "ROUNDTRIP_TOL"]

_SIG = types.double(types.double, types.double, types.double, types.intc)


def _bind(cython_name: str, symbol: str):
    # double f(double a, double b, double x, int skip_dispatch): the double ("fuse_0") variant
    address = get_cython_function_address("scipy.special.cython_special", cython_name)
    llvm.add_symbol(symbol, address)
    return types.ExternalFunction(symbol, _SIG)


#: ``betaincinv(a, b, u, 0)``: the u-quantile of Beta(a, b) (numba-callable; last argument 0)
betaincinv = _bind("__pyx_fuse_0betaincinv", "cascading_bandits_betaincinv")
#: ``betainc(a, b, x, 0)``: I_x(a, b), the CDF of Beta(a, b) at x (numba-callable; last argument 0)
betainc = _bind("__pyx_fuse_0betainc", "cascading_bandits_betainc")

#: the largest |betainc(a, b, x) - u| :func:`beta_quantile` accepts from SciPy's quantile x
ROUNDTRIP_TOL = 1e-9


@numba.njit(cache=True, nogil=True, error_model="numpy", no_cfunc_wrapper=True)
def beta_quantile(a, b, u):
    """The u-quantile of Beta(a, b): SciPy's, checked against the CDF, else bisection.

    Returns ``x = betaincinv(a, b, u)`` if ``|betainc(a, b, x) - u| <= ROUNDTRIP_TOL``,
    else ``min{x : betainc(a, b, x) >= u}`` over the floats of [0, 1] (bisection to the
    last bit). Either way ``betainc(a, b, x)`` is within ROUNDTRIP_TOL of u, up to one
    float step of x. Scalars in, scalar out; a, b > 0, u in [0, 1].
    """
    x = betaincinv(a, b, u, 0)
    if 0.0 <= x <= 1.0 and abs(betainc(a, b, x, 0) - u) <= ROUNDTRIP_TOL:
        return x
    lo, hi = 0.0, 1.0
    for _ in range(1100):  # halves the bracket down to the smallest subnormal at most
        mid = 0.5 * (lo + hi)
        if mid <= lo or mid >= hi:
            break
        if betainc(a, b, mid, 0) < u:
            lo = mid
        else:
            hi = mid
    return hi


@numba.njit(cache=True, inline="always")
def beta_inverse_draw(a, b, key, t, index, width):
    """Beta(a, b) draw (any a, b > 0) by inversion: the u-quantile, ``u`` the policy
    stream's sub-draw 0 of (t, index) (:func:`simulate.rng.uniform`).

    A pure function of (key, t, index) whose CDF value is u to within
    :data:`ROUNDTRIP_TOL` (what lazy selection needs; see :mod:`simulate.policies.ts`);
    :func:`beta_quantile`.
    """
    return beta_quantile(a, b, uniform(key, POLICY, t, index, width, 0))
