"""Exploration terms and UCB indices of CascadeUCB1 and CascadeKL-UCB (Section 3.2).

Small-t rule
------------
The paper's confidence terms use ``log t`` and ``log log t``, which are
undefined or negative for small t: ``log(t - 1)`` is ``-inf`` at t = 1 in the
UCB1 radius ``c_{t-1,s}``, and ``log log t`` is undefined at t = 1 and negative
for 1 < t < e. This toolkit uses, everywhere (bounds, policies, reference
implementations):

* ``log`` of a time is taken as ``log(max(t, 1))``, so it is 0 for t <= 1;
* ``log log t`` is taken as ``max(log log t, 0)``, i.e. dropped for t <= e.

Thus ``klucb_threshold(t, c) = log t + c * max(log log t, 0)`` is >= 0 and
nondecreasing in t, equal to ``log t`` for t <= e; and the UCB1 radius
``c_{t,s} = sqrt(1.5 log max(t, 1) / s)`` is 0 at t = 0 and t = 1.
For t >= 3 (so t > e) the rule changes nothing.

Other edge rules
----------------
* Times are finite and at most ``1e300`` (``_validate.MAX_HORIZON``, as horizons).
* A UCB1 observation count ``s`` (``count``) must be >= 1: the radius ``sqrt(1.5 log t / s)``
  grows without bound as ``s -> 0`` (a subnormal count gave ``inf``), and a policy computes
  an index only for an item observed at least once (each item is observed once first).
  Counts need not be integers (counts in the billions are exact in float64 up to 2^53).
* KL-UCB counts may be 0 (the index is then 1, :func:`bounds.kl.klucb_index`).
* Means 0 and 1 are allowed everywhere; the UCB1 index may exceed 1, as in the paper.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from cascading_bandits.bounds import _validate as V
from cascading_bandits.bounds.kl import klucb_index

__all__ = [
    "safe_log",
    "safe_loglog",
    "klucb_threshold",
    "klucb_threshold_scalar",
    "ucb1_radius",
    "ucb1_radius_scalar",
    "ucb1_index",
    "cascade_klucb_index",
]


@numba.njit(cache=True, no_cfunc_wrapper=True)
def safe_log(t):
    """``log(max(t, 1))``: the small-t rule for ``log t`` (module docstring); no input checks."""
    return math.log(t) if t > 1.0 else 0.0


@numba.njit(cache=True, no_cfunc_wrapper=True)
def safe_loglog(t):
    """``max(log log t, 0)``: the small-t rule for ``log log t`` (0 for t <= e); no input checks."""
    return math.log(math.log(t)) if t > math.e else 0.0


@numba.njit(cache=True, no_cfunc_wrapper=True)
def klucb_threshold_scalar(t, c):
    """``log t + c log log t`` under the small-t rule; no input checks."""
    return safe_log(t) + c * safe_loglog(t)


@numba.njit(cache=True, no_cfunc_wrapper=True)
def ucb1_radius_scalar(t, s, alpha):
    """``sqrt(alpha log t / s)`` under the small-t rule; no input checks.

    With ``alpha = 1.5`` this is the CascadeUCB1 radius ``c_{t,s}`` (Section 3.2); the
    policies and their reference implementation call this one definition with
    ``t = step - 1``.
    """
    return math.sqrt(alpha * safe_log(t) / s)


def _check_times(name, t, minimum):
    try:
        a = V.as_float_array(name, t)
    except ValueError as exc:
        raise ValueError(
            f"{name} must be a time (a number in [{minimum}, 1e300]) or an array of them, "
            f"got {V.show(t)}"
        ) from exc
    bad = ~((a >= minimum) & (a <= V.MAX_HORIZON))
    if bad.any():
        raise ValueError(
            f"{name} must be finite, >= {minimum} and <= 1e300, got {float(a[bad].flat[0])}"
        )
    return a


def _check_counts(name, s):
    """UCB1 observation counts: finite and >= 1 (module docstring, Other edge rules)."""
    a = V.as_float_array(name, s)
    bad = ~((a >= 1) & np.isfinite(a))
    if bad.any():
        raise ValueError(
            f"{name} (number of observations) must be finite and >= 1, got {float(a[bad].flat[0])}"
        )
    return a


def klucb_threshold(t, c=3.0):
    """Exploration level ``log t + c log log t`` of CascadeKL-UCB (Section 3.2; c = 3 in the paper).

    Parameters
    ----------
    t : array_like of float >= 1
        Time step (the index ``U_t`` uses ``t``, not ``t - 1``).
    c : float >= 0
        Constant in front of ``log log t``.

    Returns
    -------
    ndarray or float, shape of ``t``. Small-t rule in the module docstring.
    """
    t = _check_times("t", t, 1)
    c = V.positive_real("c", c, allow_zero=True)
    out = np.where(t > 1, np.log(np.maximum(t, 1)), 0.0)
    ll = np.where(t > math.e, np.log(np.log(np.maximum(t, math.e))), 0.0)
    out = out + c * ll
    return float(out) if out.ndim == 0 else out


def ucb1_radius(t, s):
    """``c_{t,s} = sqrt(1.5 log t / s)``, the CascadeUCB1 confidence radius (Section 3.2).

    Parameters
    ----------
    t : array_like of float >= 0
        Time argument (``t - 1`` at step t); ``log t`` follows the small-t rule.
    s : array_like of float >= 1
        Number of observations (module docstring: a count below 1 is refused).
    """
    t = _check_times("t", t, 0)
    s = _check_counts("s", s)
    V.broadcast(t=t, s=s)
    out = np.sqrt(1.5 * np.where(t > 1, np.log(np.maximum(t, 1)), 0.0) / s)
    return float(out) if out.ndim == 0 else out


def ucb1_index(mean, count, t):
    """CascadeUCB1 index at step t: ``U_t(e) = w_hat + c_{t-1, T_{t-1}(e)}`` (Section 3.2).

    Parameters
    ----------
    mean, count : array_like
        Empirical mean in [0, 1] and observation count >= 1, broadcast together.
    t : array_like of float >= 1
        Current step; the radius uses ``t - 1``. The index may exceed 1, as in the paper.
    """
    mean = V.probabilities("mean", mean)
    t = _check_times("t", t, 1)
    count = _check_counts("count", count)
    V.broadcast(mean=mean, count=count, t=t)
    out = mean + ucb1_radius(t - 1.0, count)
    return float(out) if np.ndim(out) == 0 else out


def cascade_klucb_index(mean, count, t, c=3.0):
    """CascadeKL-UCB index at step t: ``klucb_index(mean, count, log t + c log log t)``."""
    thr = klucb_threshold(t, c)
    V.broadcast(mean=V.as_float_array("mean", mean), count=V.as_float_array("count", count), t=thr)
    return klucb_index(mean, count, thr)
