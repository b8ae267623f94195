"""Input validation shared by every public function of the toolkit.

Each checker raises ``ValueError`` naming the argument, what was wrong and
what is allowed, so that the CLI can print it as a one-line message.
"""

from __future__ import annotations

import math
import numbers

import numpy as np


def _describe(x) -> str:
    a = np.asarray(x)
    if a.ndim == 0:
        return repr(a.item())
    return f"array of shape {a.shape}"


def as_float_array(name: str, x, *, ndim: int | None = None) -> np.ndarray:
    """Convert ``x`` to a float64 array, rejecting non-numeric input and NaN."""
    if isinstance(x, (str, bytes)):
        raise ValueError(f"{name} must be numeric, got the string {x!r}")
    try:
        a = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be numeric, got {x!r}") from exc
    if ndim is not None and a.ndim != ndim:
        raise ValueError(f"{name} must be a {ndim}-dimensional array, got shape {a.shape}")
    if np.isnan(a).any():
        raise ValueError(f"{name} must not contain NaN")
    return a


def probabilities(name: str, x, *, ndim: int | None = None, open_low=False, open_high=False):
    """Validate probabilities: finite floats in [0, 1] (optionally open at an end)."""
    a = as_float_array(name, x, ndim=ndim)
    low_bad = (a <= 0) if open_low else (a < 0)
    high_bad = (a >= 1) if open_high else (a > 1)
    bad = low_bad | high_bad
    if bad.any():
        lo = "(0" if open_low else "[0"
        hi = "1)" if open_high else "1]"
        first = float(a[bad].flat[0])
        raise ValueError(f"{name} must lie in {lo}, {hi}; got {first!r}")
    return a


def probability(name: str, x, *, open_low=False, open_high=False) -> float:
    """Validate one probability and return it as a Python float."""
    _scalar(name, x)
    return float(probabilities(name, x, ndim=0, open_low=open_low, open_high=open_high))


def _scalar(name: str, x) -> None:
    if isinstance(x, bool) or not isinstance(x, (numbers.Real, np.ndarray, np.generic)):
        raise ValueError(f"{name} must be a real number, got {x!r}")
    if isinstance(x, np.ndarray) and x.ndim != 0:
        raise ValueError(f"{name} must be a scalar, got an array of shape {x.shape}")


def positive_real(name: str, x, *, allow_zero=False, allow_inf=False) -> float:
    """Validate a real number > 0 (or >= 0 with ``allow_zero``); finite unless ``allow_inf``."""
    _scalar(name, x)
    v = float(x)
    if math.isnan(v):
        raise ValueError(f"{name} must not be NaN")
    if math.isinf(v) and not allow_inf:
        raise ValueError(f"{name} must be finite, got {v}")
    if v < 0 or (v == 0 and not allow_zero):
        need = ">= 0" if allow_zero else "> 0"
        raise ValueError(f"{name} must be {need}, got {x!r}")
    return v


def positive_int(name: str, x, *, minimum: int = 1) -> int:
    """Validate an integer >= ``minimum`` (floats equal to an integer, e.g. 1e5, are accepted)."""
    if isinstance(x, bool):
        raise ValueError(f"{name} must be an integer >= {minimum}, got {x!r}")
    if isinstance(x, (numbers.Integral, np.integer)):
        v = int(x)
    elif (
        isinstance(x, (numbers.Real, np.floating))
        and math.isfinite(float(x))
        and float(x).is_integer()
    ):
        v = int(x)
    else:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {x!r}")
    if v < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {v}")
    return v


def list_size(K, L) -> int:
    """Validate the list length K against the number of items L: 1 <= K <= L."""
    K = positive_int("K", K)
    if K > L:
        raise ValueError(f"K must satisfy 1 <= K <= L = {L}, got K = {K}")
    return K


def choice(name: str, x, allowed) -> str:
    """Validate that ``x`` is one of ``allowed`` names."""
    if x not in allowed:
        raise ValueError(f"unknown {name} {x!r}; allowed: {', '.join(map(str, allowed))}")
    return x


def b_lb_parameters(L, K, p, delta):
    """Validate B_LB(L, K, p, Delta) (eq. 6): ``1 <= K <= L``, ``0 < Delta < p <= 1``."""
    L = positive_int("L", L)
    K = list_size(K, L)
    p = probability("p", p, open_low=True)
    delta = positive_real("delta", delta)
    if not delta < p:
        raise ValueError(f"delta must satisfy 0 < delta < p = {p}, got {delta}")
    return L, K, p, delta
