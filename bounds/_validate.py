"""Input validation shared by every public function of the toolkit.

Each checker raises ``ValueError`` (never ``TypeError``, also for None, strings, complex or
arbitrary objects) naming the argument, what was wrong and what is allowed, so that the CLI
can print it as a one-line message.

Horizons. Every horizon ``n`` (and time step ``t``) that enters a formula of :mod:`bounds` is
an integer in ``[1, MAX_HORIZON]`` (``1e300``), checked once here (:func:`horizon`,
:func:`horizons`). The formulas evaluate in float64 (``log n``, ``sqrt(n log n)``,
``n^-beta``): a Python int beyond the float64 range such as ``10**400`` cannot be converted
(it was an OverflowError) and is refused with a ValueError, as is anything above ``1e300``.
``1e300`` leaves room for the factors the bounds multiply ``n`` by; a bound whose value at
an accepted n still leaves the float64 range raises a ValueError naming n.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

#: Largest number of items L of B_LB(L, K, p, Delta) (and of the discussion's orders): the
#: instance stores L weights and the bounds sum over them in mpmath, so L = 1e6 already
#: takes seconds; larger L is refused with a ValueError instead of a MemoryError.
MAX_ITEMS = 10**6

#: Largest horizon (and time step) accepted by the bounds' formulas: module docstring.
MAX_HORIZON = 1e300


def _plain(x):
    """``x`` with numpy scalars (also inside lists and tuples) as Python numbers."""
    if isinstance(x, np.generic):
        return x.item()
    if isinstance(x, (list, tuple)) and len(x) <= 100:
        return type(x)(_plain(v) for v in x) if isinstance(x, tuple) else [_plain(v) for v in x]
    return x


def show(x) -> str:
    """A short, plain rendering of a user's value for an error message (no numpy reprs)."""
    if isinstance(x, np.ndarray):
        return f"an array of shape {x.shape}" if x.ndim else show(x.item())
    x = _plain(x)
    if isinstance(x, (list, tuple)) and any(isinstance(v, np.ndarray) for v in x):
        return f"a {type(x).__name__} of {len(x)} values"
    text = repr(x)
    return text if len(text) <= 60 else text[:57] + "..."


def ndim(x) -> int:
    """``np.ndim(x)``, or -1 for a ragged nested sequence (numpy refuses those)."""
    try:
        return np.ndim(x)
    except ValueError:
        return -1


def _describe(x) -> str:
    a = np.asarray(x)
    if a.ndim == 0:
        return repr(a.item())
    return f"array of shape {a.shape}"


def as_float_array(name: str, x, *, ndim: int | None = None) -> np.ndarray:
    """Convert ``x`` to a float64 array, rejecting non-numeric input and NaN."""
    if isinstance(x, (str, bytes)):
        raise ValueError(f"{name} must be numeric, got the string {show(x)}")
    if x is None:
        raise ValueError(f"{name} must be numeric (a number or an array of numbers), got None")
    if isinstance(x, (bool, np.bool_)) or (isinstance(x, np.ndarray) and x.dtype.kind == "b"):
        raise ValueError(f"{name} must be numeric, got the boolean {show(x)}")
    try:
        a = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError, OverflowError) as exc:
        raise ValueError(
            f"{name} must be numeric (a number or a regular array of numbers), got {show(x)}"
        ) from exc
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
    if x is None:
        raise ValueError(f"{name} must be a real number, got None")
    if isinstance(x, (bool, np.bool_)) or not isinstance(
        x, (numbers.Real, np.ndarray, np.integer, np.floating)
    ):
        raise ValueError(f"{name} must be a real number, got {show(x)}")
    if isinstance(x, np.ndarray) and x.ndim != 0:
        raise ValueError(f"{name} must be a scalar, got an array of shape {x.shape}")


def positive_real(name: str, x, *, allow_zero=False, allow_inf=False) -> float:
    """Validate a real number > 0 (or >= 0 with ``allow_zero``); finite unless ``allow_inf``."""
    _scalar(name, x)
    try:
        v = float(x)
    except OverflowError:  # an int beyond the float range
        v = math.inf if x > 0 else -math.inf
    need = ">= 0" if allow_zero else "> 0"
    if math.isnan(v):
        raise ValueError(f"{name} must be a number {need}, got NaN")
    if math.isinf(v) and not allow_inf and v > 0:
        raise ValueError(f"{name} must be finite, got {show(x)}")
    if v < 0 or (v == 0 and not allow_zero):
        raise ValueError(f"{name} must be {need}, got {show(x)}")
    return v


def positive_int(name: str, x, *, minimum: int = 1) -> int:
    """Validate an integer >= ``minimum`` (floats equal to an integer, e.g. 1e5, are accepted)."""
    if x is None:
        raise ValueError(f"{name} must be an integer >= {minimum}, got None")
    if isinstance(x, (bool, np.bool_)):
        raise ValueError(f"{name} must be an integer >= {minimum}, got {x!r}")
    if isinstance(x, np.ndarray) and x.ndim == 0:
        x = x.item()
    if isinstance(x, (numbers.Integral, np.integer)):
        v = int(x)
    elif (
        isinstance(x, (numbers.Real, np.floating))
        and math.isfinite(float(x))
        and float(x).is_integer()
    ):
        v = int(x)
    else:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {show(x)}")
    if v < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {v}")
    return v


def horizon(name: str, x) -> int:
    """Validate one horizon: an integer in ``[1, MAX_HORIZON]`` (module docstring).

    Integer-valued floats (``1e5``), numpy integers and 0-d arrays are accepted; returns a
    Python int.
    """
    v = positive_int(name, x)
    if v > MAX_HORIZON:
        raise ValueError(
            f"{name} must be an integer in [1, 1e300] (horizons are evaluated in float64), "
            f"got {show(x)}"
        )
    return v


def horizons(name: str, x) -> tuple:
    """Validate horizon(s): a scalar as :func:`horizon`, or an array (any shape) of them.

    Returns
    -------
    (value, is_scalar) : ``np.float64`` and True for a scalar, a float64 ndarray of x's
    shape and False otherwise.
    """
    if isinstance(x, (str, bytes)) or ndim(x) == 0:
        return np.float64(horizon(name, x)), True
    allowed = f"{name} must be an integer in [1, 1e300] or an array of them"
    try:
        a = as_float_array(name, x)
    except ValueError as exc:
        raise ValueError(f"{allowed}, got {show(x)}") from exc
    ok = (a >= 1) & (a <= MAX_HORIZON) & (a == np.floor(a))
    if not ok.all():
        raise ValueError(f"{allowed}, got {float(a[~ok].flat[0])!r} among them")
    return a, False


def bounded_int(name: str, x, maximum: int, why: str, *, minimum: int = 1) -> int:
    """An integer in ``[minimum, maximum]``; ``why`` says where the maximum comes from."""
    v = positive_int(name, x, minimum=minimum)
    if v > maximum:
        raise ValueError(f"{name} must be an integer <= {maximum} ({why}), got {show(x)}")
    return v


#: Largest mpmath precision accepted (``dps=``): 1e4 digits already takes seconds per kl.
MAX_DPS = 10_000


#: Smallest mpmath precision accepted: 17 digits hold every float64 input exactly, so two
#: distinct weights never round to one value (a zero gap, a division by zero).
MIN_DPS = 17


def digits(x) -> int:
    """Validate ``dps``, decimal digits of an mpmath evaluation: an integer in [17, MAX_DPS]."""
    return bounded_int("dps", x, MAX_DPS, "the precision limit", minimum=MIN_DPS)


def broadcast(**arrays) -> tuple:
    """The broadcast shape of named arrays, or a ValueError naming them and their shapes."""
    try:
        return np.broadcast_shapes(*(np.shape(a) for a in arrays.values()))
    except ValueError:
        shapes = ", ".join(f"{k} {np.shape(a)}" for k, a in arrays.items())
        raise ValueError(
            f"{', '.join(arrays)} must broadcast together (numpy rules); got shapes {shapes}"
        ) from None


def list_size(K, L, of: str = "") -> int:
    """Validate the list length K against the number of items L: 1 <= K <= L.

    ``of`` says what L counts (e.g. "the number of weights") in the message.
    """
    K = positive_int("K", K)
    if K > L:
        what = f" ({of})" if of else ""
        raise ValueError(f"K must satisfy 1 <= K <= L = {L}{what}, got K = {K}")
    return K


def choice(name: str, x, allowed) -> str:
    """Validate that ``x`` is one of ``allowed`` names."""
    if not isinstance(x, str) or x not in allowed:
        raise ValueError(f"unknown {name} {show(x)}; allowed: {', '.join(map(str, allowed))}")
    return x


def b_lb_parameters(L, K, p, delta):
    """Validate B_LB(L, K, p, Delta) (eq. 6): ``1 <= K <= L <= MAX_ITEMS``, ``0 < Delta < p <= 1``.

    ``p - Delta`` must also be distinguishable from ``p`` in float64 (the instance stores it):
    a Delta below about ``1e-16 p`` is refused.
    """
    from fractions import Fraction

    L = bounded_int("L", L, MAX_ITEMS, "the size limit of B_LB")
    K = list_size(K, L)
    p = probability("p", p, open_low=True)
    delta = positive_real("delta", delta)
    if not delta < p:
        raise ValueError(f"delta must satisfy 0 < delta < p = {p}, got {delta}")
    if float(Fraction(repr(p)) - Fraction(repr(delta))) == p:
        raise ValueError(
            f"delta = {delta} is below the float64 resolution at p = {p}: p - delta rounds to p "
            "(B_LB stores p - delta); choose a larger delta"
        )
    return L, K, p, delta
