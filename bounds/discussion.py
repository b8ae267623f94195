"""The discussion's asymptotic comparisons, eqs. (7)-(9) of the paper (Section 4.4).

All on ``B_LB(L, K, p, Delta)`` with ``p = 1/K``; each function returns the
coefficient of ``log n`` inside the O / Omega (no hidden constants):

* eq. (7), lower bound (Theorem 4, dropping ``(1 - 1/K)^(K-1) >= 1/e``):
  ``(L - K) Delta / kl(p - Delta, p)``                      :func:`eq7_lower_order`
* eq. (8), CascadeUCB1 (Theorem 2), a chain of four forms:  :func:`eq8_ucb1_orders`

  1. ``(L - K) / Delta``
  2. ``(L - K) Delta / Delta^2``
  3. ``(L - K) Delta / (p (1 - p) kl(p - Delta, p))``
     (>= form 2 since ``kl <= Delta^2 / (p(1-p))``)
  4. ``K (L - K) Delta / kl(p - Delta, p)``
     (>= form 3 / 2, as ``1/(p(1-p)) = K^2/(K-1) <= 2K``)

* eq. (9), CascadeKL-UCB (Theorem 3):
  ``(L - K) Delta (1 + log(1/Delta)) / kl(p - Delta, p)``    :func:`eq9_klucb_order`

The paper concludes that (9) is below (8) "when ``log(1/Delta) = O(K)``, or
equivalently when ``Delta = Omega(e^-K)``". :func:`klucb_below_ucb1_delta` finds
where the two *actual* leading coefficients (Theorems 3 and 2 at eps = 0) cross on
``B_LB(L, K, 1/K, Delta)``, so the claim can be compared with numbers.

``K = 1`` gives ``p = 1`` and ``kl(1 - Delta, 1) = inf``: the kl-based orders are 0.
Arithmetic: mpmath at 30 digits rounded to float64 (default), or an ``mpf`` at ``dps=d`` digits.
"""

from __future__ import annotations

import mpmath

from cascading_bandits.bounds import _validate as V
from cascading_bandits.bounds.upper import _FLOAT_DPS, _arith

__all__ = [
    "eq7_lower_order",
    "eq8_ucb1_orders",
    "eq9_klucb_order",
    "discussion_orders",
    "leading_ratio_klucb_ucb1",
    "klucb_below_ucb1_delta",
]


def _args(L, K, delta):
    L = V.bounded_int("L", L, V.MAX_ITEMS, "the size limit of B_LB")
    K = V.list_size(K, L)
    p = 1.0 / K
    if isinstance(delta, mpmath.mpf):  # keep an mpf exactly (it may lie below the float range)
        if not (0 < delta and delta * K < 1):
            raise ValueError(f"delta must satisfy 0 < delta < p = 1/K = {p}, got {delta}")
        return L, K, delta
    delta = V.positive_real("delta", delta)
    if not delta < p:
        raise ValueError(f"delta must satisfy 0 < delta < p = 1/K = {p}, got {delta}")
    return L, K, delta


def _precision_for(dps, delta):
    """``_precision(dps)`` plus ``log10(1/delta)`` digits: ``p - Delta`` must not round to p.

    ``kl(p - Delta, p) = O(Delta^2)`` and ``p - Delta`` is formed in mpmath, so a Delta below
    the working precision would give ``kl = 0``; the extra digits keep it exact.
    """
    base = _FLOAT_DPS if dps is None else V.digits(dps)
    extra = max(0, int(mpmath.ceil(-mpmath.log10(delta)))) + 5
    return mpmath.workdps(base + extra)


def _kl_blb(a, K, D):
    P = 1 / a.num(K)
    return P, a.kl(P - D, P)


def eq7_lower_order(L, K, delta, dps=None):
    """Eq. (7): ``(L - K) Delta / kl(p - Delta, p)`` with ``p = 1/K``."""
    L, K, delta = _args(L, K, delta)
    a = _arith(dps)
    with _precision_for(dps, delta):
        D = a.num(delta)
        _, k = _kl_blb(a, K, D)
        return a.out((L - K) * D / k)


def eq8_ucb1_orders(L, K, delta, dps=None):
    """Eq. (8): the four forms of the CascadeUCB1 order (module docstring), as a list.

    Needs ``K >= 2``: at ``K = 1``, ``p = 1`` and the third form's ``p (1 - p) kl(p - Delta, p)``
    is ``0 * inf``, undefined.
    """
    L, K, delta = _args(L, K, delta)
    if K < 2:
        raise ValueError("K must be >= 2 for eq. (8): p = 1/K = 1 makes p (1 - p) kl undefined")
    a = _arith(dps)
    with _precision_for(dps, delta):
        D = a.num(delta)
        P, k = _kl_blb(a, K, D)
        return [
            a.out((L - K) / D),
            a.out((L - K) * D / (D * D)),
            a.out((L - K) * D / (P * (1 - P) * k)),
            a.out(K * (L - K) * D / k),
        ]


def eq9_klucb_order(L, K, delta, dps=None):
    """Eq. (9): ``(L - K) Delta (1 + log(1/Delta)) / kl(p - Delta, p)`` with ``p = 1/K``."""
    L, K, delta = _args(L, K, delta)
    a = _arith(dps)
    with _precision_for(dps, delta):
        D = a.num(delta)
        _, k = _kl_blb(a, K, D)
        return a.out((L - K) * D * (1 - a.log(D)) / k)


def discussion_orders(L, K, delta, dps=None) -> dict:
    """Eqs. (7)-(9) together: ``{"eq7": ..., "eq8": [four forms], "eq9": ...}`` (``K >= 2``)."""
    return {
        "eq7": eq7_lower_order(L, K, delta, dps),
        "eq8": eq8_ucb1_orders(L, K, delta, dps),
        "eq9": eq9_klucb_order(L, K, delta, dps),
    }


def _ratio(a, K, D):
    _, k = _kl_blb(a, K, D)
    return D * D * (1 - a.log(D)) / (12 * k)


def leading_ratio_klucb_ucb1(K, delta, dps=None):
    """Theorem 3's over Theorem 2's leading coefficient on ``B_LB(L, K, 1/K, Delta)`` (any L > K).

    ``[Delta (1 + log(1/Delta)) / kl(p - Delta, p)] / (12 / Delta)``; below 1 exactly where
    the KL-UCB bound's log n term (at eps = 0) is the smaller one.
    """
    K = V.bounded_int("K", K, V.MAX_ITEMS, "the size limit of B_LB")
    _, K, delta = _args(K, K, delta)
    a = _arith(dps)
    with _precision_for(dps, delta):
        return a.out(_ratio(a, K, a.num(delta)))


#: largest K of :func:`klucb_below_ucb1_delta`
MAX_CROSSING_K = 100


def klucb_below_ucb1_delta(K, dps=30):
    """``Delta*``: Theorem 3's leading coefficient is below Theorem 2's iff ``Delta > Delta*``.

    On ``B_LB(L, K, 1/K, Delta)`` (the ratio does not depend on L). The ratio of
    :func:`leading_ratio_klucb_ucb1` tends to infinity as ``Delta -> 0`` (like
    ``p(1-p)(1 + log(1/Delta))/6``) and is below 1 near ``Delta = p``; the crossing is
    found by a bracketing root finder on ``log Delta`` in mpmath (``dps`` digits; the
    crossing may lie far below the float64 range). Returns an ``mpf``; 0 for ``K = 1``
    (``p = 1``: the KL-UCB coefficient is 0 for every Delta).

    The ratio is checked to be > 1 at the left end and < 1 at the right end of the
    bracket; ``ValueError`` otherwise. ``K`` is an integer in ``[1, 100]``: the crossing lies
    near ``exp(-12 K)`` and the work precision grows with K (about a second at K = 100,
    half a minute at K = 1000).
    """
    K = V.bounded_int("K", K, MAX_CROSSING_K, "the work precision grows like 5 K digits")
    if K == 1:
        return mpmath.mpf(0)
    dps = V.digits(dps)
    # Asymptotically the ratio is p(1-p)(1 + log(1/Delta))/6, so it exceeds 1 at
    # log Delta = lo below. kl(p - Delta, p) = O(Delta^2) comes from terms O(Delta) that
    # cancel, so work with enough extra digits to resolve Delta = e^lo.
    lo = -(12.0 * K * K / (K - 1) + 10.0)
    work = dps + int(-lo / 2.302585092994046) + 10
    with mpmath.workdps(work):
        p = mpmath.mpf(1) / K
        a = _arith(work)

        def g(x):
            return mpmath.log(_ratio(a, K, mpmath.exp(x)))

        lo, hi = mpmath.mpf(lo), mpmath.log(p) - mpmath.mpf("1e-6")
        if not (g(lo) > 0 and g(hi) < 0):
            raise ValueError(f"no sign change of the ratio on the bracket for K = {K}")
        x = mpmath.findroot(g, (lo, hi), solver="anderson")
        out = mpmath.exp(x)
    with mpmath.workdps(dps):
        return +out
