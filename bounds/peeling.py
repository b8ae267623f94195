"""The peeling lemmas: Lemma 2 of the paper and Lemma 3 of "Matroid bandits" (Kveton et al., 2014).

Both remove a factor K from the upper bounds (Appendix A). Each side is a
function of its own, so that ``verify`` can compare them at points, in exact
arithmetic, or over boxes with interval arithmetic.

UCB1 peeling (Lemma 3 of Kveton et al. 2014, used in the proof of Theorem 2).
For gaps ``Delta_1 >= ... >= Delta_K > 0``:

    Delta_1 / Delta_1^2 + sum_{k=2}^K Delta_k (1/Delta_k^2 - 1/Delta_{k-1}^2)  <=  2 / Delta_K.

Lemma 2 (KL peeling, Appendix B). For probabilities ``p_1 >= ... >= p_K > p`` and
``Delta_k = p_k - p``:

    Delta_1 / kl(p, p_1) + sum_{k=2}^K Delta_k (1/kl(p, p_k) - 1/kl(p, p_{k-1}))
        <=  Delta_K (1 + log(1/Delta_K)) / kl(p, p_K).

Arithmetics. The formulas are written once against the operations ``+ - * /``,
``log`` and ``kl``; the arithmetic is picked from the argument types:

=====================  ================================  =============================
argument types         UCB1 peeling                      Lemma 2
=====================  ================================  =============================
float / numpy arrays   float64                           float64 (``bounds.kl.kl_scalar``)
fractions.Fraction     exact (Fraction)                  converted to ``mpmath.mpf``
mpmath.mpf (``mp``)    mp at the current ``mp.prec``     mp (``bounds.kl.kl_mp``)
mpmath.iv.mpf          interval enclosure (``iv``)       interval (``bounds.kl.kl_iv``)
=====================  ================================  =============================

With intervals the premises (orderings) cannot be checked pointwise; only
containment in the domain is checked and the caller is responsible for the
ordering over the box.
"""

from __future__ import annotations

import math
import numbers
from fractions import Fraction

import mpmath
import numpy as np

from cascading_bandits.bounds import _validate as V
from cascading_bandits.bounds.kl import kl_iv, kl_mp, kl_scalar

__all__ = [
    "ucb1_peeling_lhs",
    "ucb1_peeling_rhs",
    "lemma2_lhs",
    "lemma2_rhs",
    "lemma2_rewritten",
    "ucb1_peeling_solution",
]

_IV = type(mpmath.iv.mpf(0))
_MP = type(mpmath.mp.mpf(0))


def _kind(values) -> str:
    kinds = {"float"}
    for v in values:
        if isinstance(v, _IV):
            kinds.add("iv")
        elif isinstance(v, _MP):
            kinds.add("mp")
        elif isinstance(v, Fraction) or (
            isinstance(v, numbers.Rational) and not isinstance(v, (bool, numbers.Integral))
        ):
            kinds.add("exact")
    for k in ("iv", "mp", "exact"):
        if k in kinds:
            return k
    return "float"


def _seq(name, x):
    if isinstance(x, (str, bytes)):
        raise ValueError(f"{name} must be a sequence of numbers, got the string {V.show(x)}")
    if isinstance(x, np.ndarray):
        if x.ndim != 1:
            raise ValueError(f"{name} must be one-dimensional, got shape {x.shape}")
        items = list(x)
    else:
        try:
            items = list(x)
        except TypeError:
            items = [x]
    if not items:
        raise ValueError(f"{name} must hold at least one value")
    return items


def _convert(items, kind, name):
    """Convert to the arithmetic ``kind``; validate finiteness (not for intervals)."""
    out = []
    for i, v in enumerate(items):
        if isinstance(v, bool) or isinstance(v, (str, bytes)):
            raise ValueError(f"{name}[{i}] must be a number, got {V.show(v)}")
        if kind == "iv":
            try:
                out.append(v if isinstance(v, _IV) else mpmath.iv.mpf(v))
            except (TypeError, ValueError) as exc:
                raise ValueError(f"{name}[{i}] must be a real number, got {V.show(v)}") from exc
        elif kind == "mp":
            try:
                x = (
                    mpmath.mpf(v.numerator) / v.denominator
                    if isinstance(v, Fraction)
                    else mpmath.mpf(v.item() if isinstance(v, np.generic) else v)
                )
            except (TypeError, ValueError) as exc:
                raise ValueError(f"{name}[{i}] must be a real number, got {V.show(v)}") from exc
            if not mpmath.isfinite(x):
                raise ValueError(f"{name}[{i}] must be finite, got {V.show(v)}")
            out.append(x)
        elif kind == "exact":
            try:
                x = Fraction(v) if not isinstance(v, Fraction) else v
            except (TypeError, ValueError) as exc:
                raise ValueError(f"{name}[{i}] must be a finite number, got {V.show(v)}") from exc
            out.append(x)
        else:
            x = V.as_float_array(f"{name}[{i}]", v, ndim=0)
            if not np.isfinite(x):
                raise ValueError(f"{name}[{i}] must be finite, got {V.show(v)}")
            out.append(float(x))
    return out


def _result(x, kind, name="the result"):
    if kind != "float":
        return x
    try:
        out = float(x)
    except OverflowError:
        out = math.inf
    if not math.isfinite(out):
        raise ValueError(f"{name} exceeds the float64 range (a gap is too small); pass Fractions")
    return out


# --------------------------------------------------------------------------
# UCB1 peeling (Lemma 3 of Matroid bandits)
# --------------------------------------------------------------------------


def _gaps(gaps):
    items = _seq("gaps", gaps)
    kind = _kind(items)
    g = _convert(items, kind, "gaps")
    if kind != "iv":
        for i, d in enumerate(g):
            if not d > 0:
                raise ValueError(f"gaps must be > 0, got gaps[{i}] = {d}")
        for i in range(1, len(g)):
            if g[i] > g[i - 1]:
                raise ValueError(
                    "gaps must be sorted decreasingly, Delta_1 >= ... >= Delta_K; "
                    f"got gaps[{i - 1}] = {g[i - 1]} < gaps[{i}] = {g[i]}"
                )
    else:
        for i, d in enumerate(g):
            if not d.a > 0:
                raise ValueError(f"gaps must be > 0, got the interval gaps[{i}] = {d}")
    return g, kind


def ucb1_peeling_lhs(gaps):
    """``Delta_1/Delta_1^2 + sum_{k>=2} Delta_k (1/Delta_k^2 - 1/Delta_{k-1}^2)``.

    The bracket of the proof of Theorem 2 (Appendix A) for one suboptimal item,
    before Lemma 3 of Kveton et al. (2014) is applied; times ``6 log n`` it bounds the
    regret of that item on the good event.

    Parameters
    ----------
    gaps : sequence, shape (K,)
        ``Delta_{e,1} >= ... >= Delta_{e,K} > 0``; float, Fraction, mpmath mpf or iv
        (module docstring).
    """
    g, kind = _gaps(gaps)
    if kind == "float":  # exactly in fractions of the binary values, rounded once (no underflow)
        g = [Fraction(x) for x in g]
    total = g[0] / (g[0] * g[0])
    for k in range(1, len(g)):
        total = total + g[k] * (1 / (g[k] * g[k]) - 1 / (g[k - 1] * g[k - 1]))
    return _result(total, kind, "ucb1_peeling_lhs(gaps)")


def ucb1_peeling_rhs(gaps):
    """``2 / Delta_K``: Lemma 3 of Kveton et al. (2014), the right side of the UCB1 peeling."""
    g, kind = _gaps(gaps)
    if kind == "float":
        g = [Fraction(x) for x in g]
    return _result(2 / g[-1], kind, "ucb1_peeling_rhs(gaps)")


def ucb1_peeling_solution(gaps):
    """The maximiser ``m*_k / (6 log n)`` of the linear program in the proof of Theorem 2.

    ``m*_1 = tau_1``, ``m*_k = tau_k - tau_{k-1}`` with ``tau_k = 6 log n / Delta_k^2``;
    returned divided by ``6 log n``: ``[1/Delta_1^2, 1/Delta_2^2 - 1/Delta_1^2, ...]``.
    ``sum_k Delta_k m*_k`` is :func:`ucb1_peeling_lhs` (times ``6 log n``).
    """
    g, kind = _gaps(gaps)
    if kind == "float":
        g = [Fraction(x) for x in g]
    out = [1 / (g[0] * g[0])]
    for k in range(1, len(g)):
        out.append(1 / (g[k] * g[k]) - 1 / (g[k - 1] * g[k - 1]))
    return [_result(x, kind, "ucb1_peeling_solution(gaps)") for x in out]


# --------------------------------------------------------------------------
# Lemma 2 (KL peeling)
# --------------------------------------------------------------------------


def _lemma2_args(p, p_opt):
    ps = _seq("p_opt", p_opt)
    kind = _kind([p] + ps)
    if kind == "exact":
        kind = "mp"  # logs: no exact rational form
    (pp,) = _convert([p], kind, "p")
    ps = _convert(ps, kind, "p_opt")
    if kind == "iv":
        for name, x in [("p", pp)] + [(f"p_opt[{i}]", x) for i, x in enumerate(ps)]:
            if x.a < 0 or x.b > 1:
                raise ValueError(f"{name} must lie in [0, 1], got the interval {x}")
        kl, log = kl_iv, mpmath.iv.log
    else:
        for name, x in [("p", pp)] + [(f"p_opt[{i}]", x) for i, x in enumerate(ps)]:
            if not 0 <= x <= 1:
                raise ValueError(f"{name} must lie in [0, 1], got {x}")
        for i in range(1, len(ps)):
            if ps[i] > ps[i - 1]:
                raise ValueError(
                    "p_opt must be sorted decreasingly, p_1 >= ... >= p_K; "
                    f"got p_opt[{i - 1}] = {ps[i - 1]} < p_opt[{i}] = {ps[i]}"
                )
        if not ps[-1] > pp:
            raise ValueError(
                f"p_opt must end above p (Lemma 2 needs p_K > p, p_K = p_opt[-1]); "
                f"got p_K = {ps[-1]} and p = {pp}"
            )
        if kind == "mp":
            kl, log = kl_mp, mpmath.log
        else:
            kl, log = kl_scalar, math.log
    return pp, ps, kind, kl, log


def lemma2_lhs(p, p_opt):
    """Left side of Lemma 2.

    ``Delta_1/kl(p, p_1) + sum_{k>=2} Delta_k (1/kl(p, p_k) - 1/kl(p, p_{k-1}))``.

    Parameters
    ----------
    p : number
        The suboptimal attraction probability ``w(e)``.
    p_opt : sequence, shape (K,)
        ``p_1 >= ... >= p_K > p`` (the optimal ``w(1..K)``). float, mpmath mpf or iv;
        Fractions are evaluated in mpmath (module docstring). ``kl = inf`` (``p_k = 1``)
        gives ``1/kl = 0``.
    """
    pp, ps, kind, kl, _ = _lemma2_args(p, p_opt)
    inv = [1 / kl(pp, q) for q in ps]
    total = (ps[0] - pp) * inv[0]
    for k in range(1, len(ps)):
        total = total + (ps[k] - pp) * (inv[k] - inv[k - 1])
    return _result(total, kind, "lemma2_lhs(p, p_opt)")


def lemma2_rewritten(p, p_opt):
    """The first step of Lemma 2's proof (summation by parts).

    ``sum_{k<K} (Delta_k - Delta_{k+1})/kl(p, p_k) + Delta_K/kl(p, p_K)``.

    Equal to :func:`lemma2_lhs` (summation by parts). Same arithmetics.
    """
    pp, ps, kind, kl, _ = _lemma2_args(p, p_opt)
    K = len(ps)
    total = (ps[-1] - pp) / kl(pp, ps[-1])
    for k in range(K - 1):
        total = total + ((ps[k] - pp) - (ps[k + 1] - pp)) / kl(pp, ps[k])
    return _result(total, kind, "lemma2_rewritten(p, p_opt)")


def lemma2_rhs(p, p_opt):
    """Right side of Lemma 2: ``Delta_K (1 + log(1/Delta_K)) / kl(p, p_K)``, ``Delta_K = p_K - p``.

    Only ``p_K = p_opt[-1]`` matters; the whole list is taken so that both sides have
    the same signature. Same arithmetics as :func:`lemma2_lhs`.
    """
    pp, ps, kind, kl, log = _lemma2_args(p, p_opt)
    d = ps[-1] - pp
    return _result(d * (1 - log(d)) / kl(pp, ps[-1]), kind, "lemma2_rhs(p, p_opt)")
