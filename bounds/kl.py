"""Bernoulli Kullback-Leibler divergence and the KL-UCB index (Section 3.2).

One definition, three arithmetics
---------------------------------
The divergence

    kl(p, q) = p log(p / q) + (1 - p) log((1 - p) / (1 - q))

is written once, in :func:`_make_kl`, against a context that supplies
``log(x / y)`` and ``inf`` (the float and mp contexts share one accurate
``log(x / y)``, :func:`_make_log_ratio`; intervals use the plain quotient). From it we derive

* :func:`kl_mp` -- arbitrary precision (``mpmath.mp``, at the caller's ``mp.dps``
  or a local ``dps``),
* :func:`kl_iv` -- interval enclosures (``mpmath.iv``), used by ``verify`` for
  certificates,
* :func:`kl` -- a numpy ufunc compiled by numba (broadcasting, any shape),
* :func:`kl_scalar` -- the same, as a numba ``njit`` scalar for other kernels.

Conventions: ``0 log 0 = 0``; ``kl(p, q) = inf`` when ``q in {0, 1}`` and
``p != q`` (the support of Bernoulli(p) is not in that of Bernoulli(q)).
The form used is ``p log1p(-(q-p)/q) + (1-p) log1p((q-p)/(1-q))`` (with
``p log(p/q)`` when ``p < q/2``, where ``1 - (q-p)/q`` would lose ``p/q``, and
likewise for ``1 - p < (1 - q)/2``): near
``q = p`` both terms are O(q - p) with O(eps) relative error each, so the
float64 result has absolute error of order ``eps * (|q - p| + kl)``, and the
KL-UCB root found from it is accurate to about ``eps`` (see below).

KL-UCB index
------------
:func:`klucb_index` computes ``max{q in [mean, 1] : count * kl(mean, q) <= threshold}``,
the CascadeKL-UCB upper confidence bound of Section 3.2 with ``threshold =
log t + c log log t`` (see :func:`bounds.indices.klucb_threshold`). Guarantee:
absolute error at most 1e-12 against the 50-digit mpmath root over means in
[0, 1] (0 and 1 included), counts in [1, 1e12] and thresholds in [0, 1e4];
the test suite and ``benchmarks/klucb_index.py`` search for the worst case.

Method: safeguarded Newton iteration started from an upper bound on the root.
``kl(p, .)`` is convex and increasing on [p, 1), so Newton iterates started to
the right of the root decrease monotonically to it and never overshoot. The
start is the least of three upper bounds on the root ``q*`` of ``kl(p, q) = r``:

* Pinsker, ``kl >= 2 (q - p)^2``:            ``q* <= p + sqrt(r / 2)``;
* the lower-tail bound ``kl >= (q - p)^2 / (2q)`` for ``q >= p``:
  ``q* <= p + r + sqrt(r^2 + 2 p r)`` (tight when p is small);
* ``kl(p, q) >= -H(p) - (1 - p) log(1 - q)`` (drop ``-p log q >= 0``):
  ``q* <= 1 - exp(-(r + H(p)) / (1 - p))`` (tight when q* is near 1).

Special cases are closed form: ``count = 0`` gives 1 (nothing observed),
``mean = 1`` gives 1, ``threshold = 0`` gives ``mean``, and ``mean = 0`` gives
``1 - exp(-threshold / count)`` because ``kl(0, q) = -log(1 - q)``.
"""

from __future__ import annotations

import math

import mpmath
import numba
import numpy as np
from numba.extending import register_jitable

from cascading_bandits.bounds import _validate as V
from cascading_bandits.bounds._rawmp import kl_mpf

__all__ = [
    "kl",
    "kl_mp",
    "kl_iv",
    "kl_scalar",
    "klucb_index",
    "klucb_index_mp",
    "klucb_scalar",
    "kl_upper_root_mp",
]


def _make_kl(log_ratio, inf):
    """The one definition of the Bernoulli KL divergence, for a given arithmetic.

    ``log_ratio(x, y, d) = log(x / y)`` with ``d = y - x`` supplied by the caller (so
    it is formed before ``1 - p`` and ``1 - q`` round) and ``inf`` come from the
    context (math, mpmath.mp, mpmath.iv). The equality tests are exact: for
    intervals they fire only on the degenerate intervals [0, 0] and [1, 1], so
    enclosures stay valid.
    """

    def _kl(p, q):
        """Bernoulli ``kl(p, q)`` in one arithmetic; no input checks (:func:`kl` checks)."""
        d = q - p
        if p == 0:
            a = 0.0 * d  # 0 log 0 = 0 (typed like d)
        elif q == 0:
            a = p * inf  # inf for p > 0; an interval p containing 0 gives [0, inf]
        else:
            a = p * log_ratio(p, q, d)  # p log(p / q)
        if p == 1:
            b = 0.0 * d
        elif q == 1:
            b = (1 - p) * inf
        else:
            b = (1 - p) * log_ratio(1 - p, 1 - q, -d)  # (1 - p) log((1 - p) / (1 - q))
        return a + b

    return _kl


def _make_log_ratio(log, log1p):
    """``log(x / y)`` for ``0 < x``, ``0 < y`` given ``d = y - x``, accurate in floating point.

    Near ``x = y`` it is ``log1p(-d / y)`` (no cancellation); for ``x < y / 2`` the
    ratio is formed directly, since ``1 - d/y`` would lose ``x / y``; tiny ``y`` is
    first scaled by ``2**600`` (exact), and where ``x / y`` would overflow the
    logs are subtracted (the result is >= 690, so nothing cancels).
    """

    def _log_ratio(x, y, d):
        if y < 1e-300:
            if x > 1e300 * y:  # x / y would overflow; log x - log y >= 690 loses nothing
                return log(x) - log(y)
            # rescale by 2**600 (exact: a power of two) so that y is a normal number
            x, y, d = x * 2.0**600, y * 2.0**600, d * 2.0**600
        if d > 0.5 * y:
            return log(x / y)
        return log1p(-d / y)

    return _log_ratio


def _iv_log_ratio(x, y, d):
    # Intervals: x / y of two nonnegative enclosures stays >= 0, so the log is
    # defined; 1 - d/y enclosed independently could dip below 0.
    return mpmath.iv.log(x / y)


_kl_py_mp = _make_kl(_make_log_ratio(mpmath.mp.log, mpmath.mp.log1p), mpmath.mp.inf)
_kl_py_iv = _make_kl(_iv_log_ratio, mpmath.iv.inf)

#: numba scalar form, callable from other njit kernels.
_log_ratio_scalar = numba.njit(cache=True, error_model="numpy", no_cfunc_wrapper=True)(
    _make_log_ratio(math.log, math.log1p)
)
# kl_scalar's log ratio is a plain function numba compiles into it (register_jitable), not
# the dispatcher above: numba keys a closure's cache entry by a pickle of its cells, and a
# dispatcher pickles with a uuid drawn in each process, so a closure over one missed the cache
# in every process and recompiled (0.5 s of CPU at its first call from Python).
kl_scalar = numba.njit(cache=True, error_model="numpy", no_cfunc_wrapper=True)(
    _make_kl(register_jitable(_make_log_ratio(math.log, math.log1p)), math.inf)
)


@numba.vectorize(cache=True)  # compiled on first use (float64 after validation)
def _kl_ufunc(p, q):
    return kl_scalar(p, q)


def kl(p, q):
    """Bernoulli KL divergence ``D_KL(p || q)`` (Section 3.2), vectorised.

    Parameters
    ----------
    p, q : array_like of float in [0, 1]
        Broadcast against each other.

    Returns
    -------
    ndarray or float
        ``kl(p, q)`` with the broadcast shape; ``inf`` where it is infinite.
        Absolute error of order ``eps * (|q - p| + kl)``.
    """
    p = V.probabilities("p", p)
    q = V.probabilities("q", q)
    V.broadcast(p=p, q=q)
    out = _kl_ufunc(p, q)
    return float(out) if np.ndim(out) == 0 else out


def kl_mp(p, q, dps: int | None = None):
    """Bernoulli KL divergence in arbitrary precision (mpmath ``mp`` context).

    Parameters
    ----------
    p, q : number or str (parsed exactly by mpmath) in [0, 1]
    dps : int, optional
        Decimal digits to work at; the global ``mp.dps`` is restored afterwards.
        Default: the current ``mp.dps``.
    """
    dps = mpmath.mp.dps if dps is None else V.digits(dps)  # None: the caller's context
    with mpmath.workdps(dps):
        pp, qq = _as_mpf("p", p), _as_mpf("q", q)
        _check_mp_prob("p", pp)
        _check_mp_prob("q", qq)
        # _kl_py_mp's arithmetic on the raw mpf tuples (bounds._rawmp: the same operations at
        # the same precision and rounding, the same bits; 2x faster, the mpf objects around
        # each step were half the cost of a 50-digit evaluation)
        return mpmath.mp.make_mpf(kl_mpf(pp._mpf_, qq._mpf_, mpmath.mp.prec))


def kl_iv(p, q):
    """Interval enclosure of the Bernoulli KL divergence over boxes (``mpmath.iv``).

    Parameters
    ----------
    p, q : mpmath.iv.mpf intervals (or numbers / [lo, hi] pairs) within [0, 1]

    Returns
    -------
    mpmath.iv.mpf
        An interval containing ``kl(p', q')`` for every ``p'`` in ``p`` and ``q'`` in ``q``
        (at the current ``iv.prec``). It is valid but loose where ``p`` touches 0 or 1 or
        ``q`` touches 0 or 1 without being the degenerate interval.
    """
    pi, qi = _as_iv("p", p), _as_iv("q", q)
    for name, x in (("p", pi), ("q", qi)):
        if x.a < 0 or x.b > 1:
            raise ValueError(f"{name} must lie in [0, 1], got the interval {x}")
    return _kl_py_iv(pi, qi)


_NUMBER_TYPES = (int, float, np.integer, np.floating, mpmath.mpf, str)


def _as_mpf(name, x):
    """``mpmath.mpf(x)`` for a real number or a numeric string; a ValueError naming it."""
    if isinstance(x, np.ndarray) and x.ndim == 0 and x.dtype.kind in "iuf":
        x = x.item()
    if x is None or isinstance(x, (bool, np.bool_)) or not isinstance(x, _NUMBER_TYPES):
        raise ValueError(f"{name} must be a real number or a numeric string, got {V.show(x)}")
    try:
        return mpmath.mpf(x.item() if isinstance(x, np.generic) else x)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a real number in [0, 1], got {V.show(x)}") from exc


def _as_iv(name, x):
    """An ``iv.mpf`` from an interval, a number or a ``[lo, hi]`` pair (checked, named)."""
    if isinstance(x, mpmath.iv.mpf):
        out = x
    elif isinstance(x, (list, tuple)):
        if len(x) != 2:
            raise ValueError(f"{name} must be an [lo, hi] pair, got {len(x)} values")
        lo, hi = (_as_mpf(name, v) for v in x)
        if not lo <= hi:
            raise ValueError(f"{name} must be an [lo, hi] pair with lo <= hi, got {V.show(x)}")
        out = mpmath.iv.mpf([lo, hi])
    else:
        out = mpmath.iv.mpf(_as_mpf(name, x))
    if mpmath.isnan(out.a) or mpmath.isnan(out.b):
        raise ValueError(f"{name} must not be NaN")
    return out


def _check_mp_prob(name, x):
    if mpmath.isnan(x) or x < 0 or x > 1:
        raise ValueError(f"{name} must lie in [0, 1], got {x}")


# --------------------------------------------------------------------------
# KL-UCB index
# --------------------------------------------------------------------------


@numba.njit(cache=True, error_model="numpy", no_cfunc_wrapper=True)
def klucb_scalar(mean, count, threshold):
    """KL-UCB index for one item; no input checks (for use inside njit kernels).

    Returns ``max{q in [mean, 1] : count * kl(mean, q) <= threshold}``.
    """
    p = mean
    if count <= 0.0 or p >= 1.0:
        return 1.0
    r = threshold / count
    if r <= 0.0:
        return p
    if p <= 0.0:
        return -math.expm1(-r)
    if r == math.inf:
        return 1.0
    # Three upper bounds on the root (module docstring); start at the least.
    h = -(p * math.log(p) + (1.0 - p) * math.log1p(-p))
    hi = -math.expm1(-(r + h) / (1.0 - p))
    hi2 = p + math.sqrt(0.5 * r)
    if hi2 < hi:
        hi = hi2
    hi3 = p + r + math.sqrt(r * r + 2.0 * p * r)
    if hi3 < hi:
        hi = hi3
    if hi >= 1.0:
        hi = 1.0 - 2.0**-53  # largest double below 1
        if kl_scalar(p, hi) <= r:
            return 1.0
    q = hi
    for _ in range(100):
        g = kl_scalar(p, q) - r
        if g <= 0.0:
            break
        step = g * q * (1.0 - q) / (q - p)  # g / (d kl / dq)
        qn = q - step
        if qn <= p:  # cannot happen in exact arithmetic (convexity); bisect to stay safe
            qn = 0.5 * (p + q)
        if q - qn <= 1e-16:
            q = qn
            break
        q = qn
    if q < p:
        q = p
    return q


@numba.vectorize(cache=True)  # compiled on first use (float64 after validation)
def _klucb_ufunc(mean, count, threshold):
    return klucb_scalar(mean, count, threshold)


def klucb_index(mean, count, threshold):
    """CascadeKL-UCB upper confidence bound (Section 3.2), vectorised.

    ``U = max{q in [mean, 1] : count * kl(mean, q) <= threshold}``.

    Parameters
    ----------
    mean : array_like of float in [0, 1]
        Empirical attraction ``w_hat_{T}(e)``.
    count : array_like of float >= 0
        Number of observations ``T``; 0 gives the index 1.
    threshold : array_like of float >= 0
        Exploration level, ``log t + c log log t`` in the paper
        (:func:`bounds.indices.klucb_threshold`).

    Returns
    -------
    ndarray or float
        The broadcast shape of the inputs. Absolute error <= 1e-12 against the
        50-digit mpmath root on means in [0, 1], counts in [1, 1e12],
        thresholds in [0, 1e4] (module docstring).
    """
    mean = V.probabilities("mean", mean)
    count = V.as_float_array("count", count)
    threshold = V.as_float_array("threshold", threshold)
    if (count < 0).any() or np.isinf(count).any():
        raise ValueError("count must be finite and >= 0")
    if (threshold < 0).any():
        raise ValueError("threshold must be >= 0")
    V.broadcast(mean=mean, count=count, threshold=threshold)
    with np.errstate(over="ignore"):  # threshold / count for a tiny count: the index is 1
        out = _klucb_ufunc(mean, count, threshold)
    return float(out) if np.ndim(out) == 0 else out


def kl_upper_root_mp(p, r, dps: int = 50):
    """``max{q in [p, 1] : kl(p, q) <= r}`` by bisection in ``dps``-digit arithmetic.

    The reference for :func:`klucb_index` (with ``r = threshold / count``). Bisection on
    the monotone function ``kl(p, .)`` is slow but has no failure mode: after
    ``prec + 10`` halvings the bracket is below the working precision.
    """
    dps = V.digits(dps)
    with mpmath.workdps(dps):
        p = _as_mpf("p", p)
        r = _as_mpf("r", r)
        _check_mp_prob("p", p)
        if r < 0 or mpmath.isnan(r):
            raise ValueError(f"r must be >= 0, got {r}")
        if p == 1 or mpmath.isinf(r):
            return mpmath.mpf(1)
        if r == 0:
            return p
        lo, hi = p, mpmath.mpf(1)
        for _ in range(mpmath.mp.prec + 10):
            mid = (lo + hi) / 2
            if _kl_py_mp(p, mid) <= r:
                lo = mid
            else:
                hi = mid
        return lo


def klucb_index_mp(mean, count, threshold, dps: int = 50):
    """High-precision KL-UCB index: the reference for :func:`klucb_index`."""
    with mpmath.workdps(V.digits(dps)):
        mean = _as_mpf("mean", mean)
        _check_mp_prob("mean", mean)
        count = _as_mpf("count", count)
        threshold = _as_mpf("threshold", threshold)
        for name, x in (("count", count), ("threshold", threshold)):
            if mpmath.isnan(x) or x < 0:
                raise ValueError(f"{name} must be a number >= 0, got {x}")
        if mpmath.isinf(count):
            raise ValueError("count must be finite")
        if count == 0:
            return mpmath.mpf(1)
        return kl_upper_root_mp(mean, threshold / count, dps)
