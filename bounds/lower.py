"""Theorem 4 of the paper (lower bound, Section 4.3), and its extension to any instance.

Theorem 4. On ``B_LB(L, K, p, Delta)`` (eq. 6), every consistent algorithm has

    liminf_{n -> inf} R(n) / log n  >=  (L - K) Delta (1 - p)^(K-1) / kl(p - Delta, p).

General instance (the same argument, any ``w`` with a unique optimal set
``w(K) > w(K+1)``). The lower bound of Theorem 1 gives
``R(n) >= alpha sum_{e>K} sum_{e*} Delta_{e,e*} E[#G_{e,e*}]
>= alpha sum_{e>K} Delta_{e,K} E[T_n(e)]``
(``Delta_{e,e*} >= Delta_{e,K}``, and ``T_n(e)`` grows exactly on the events
``G_{e,e*,t}``), with ``alpha = (1 - w(1))^(K-1)``. Lai and Robbins (1985) give, for
a consistent algorithm and suboptimal ``e``,
``liminf E[T_n(e)] / log n >= 1 / kl(w(e), w(K))`` (raising ``w(e)`` just above ``w(K)``
makes ``e`` optimal). Hence

    liminf R(n) / log n  >=  alpha sum_{e>K} Delta_{e,K} / kl(w(e), w(K))

(:func:`theorem4_general_coefficient`), which on B_LB is term by term Theorem 4.
A sharper constant follows from the same proof: in the exact expression of
Theorem 1 the factor multiplying ``Delta`` is a product of ``1 - w(e*)`` over at
most K - 1 optimal items, so ``alpha`` may be replaced by
``alpha_sharp = prod_{j<K} (1 - w(j)) >= alpha`` (:func:`theorem4_sharp_coefficient`).
Terms with ``kl = inf`` (``w(K) = 1``) are 0. On a regret-free instance (``K = L`` or all
weights equal) every coefficient is 0 (:mod:`bounds.upper`, Regret-free instances).

Arithmetic: by default evaluated in mpmath at 30 digits from the exact binary values
of the inputs and rounded once to float64 (within 1 ulp); ``dps=d`` returns an ``mpf``
at ``d`` digits.
"""

from __future__ import annotations

import mpmath
import numpy as np

from cascading_bandits.bounds import _validate as V
from cascading_bandits.bounds.instance import as_instance
from cascading_bandits.bounds.upper import _arith as arith
from cascading_bandits.bounds.upper import _horizon, _instance
from cascading_bandits.bounds.upper import _precision as precision

__all__ = [
    "theorem4_blb_coefficient",
    "theorem4_general_coefficient",
    "theorem4_sharp_coefficient",
    "theorem4_coefficient",
    "theorem4_bound",
    "theorem4_curve",
    "THEOREM4_KINDS",
    "blb_parameters",
]


#: the constants :func:`theorem4_curve` can draw
THEOREM4_KINDS = ("general", "sharp")


def blb_parameters(inst, K=None):
    """``(L, K, p, Delta)`` if the instance is a ``B_LB`` problem (eq. 6), else None.

    An instance is B_LB when its K optimal weights all equal ``p`` and its ``L - K``
    suboptimal weights all equal ``p - Delta < p`` (with ``L > K``). ``Delta`` is returned
    rounded to float64; :func:`theorem4_coefficient` uses the stored weights exactly.
    """
    inst = as_instance(inst, K)
    s = inst.sorted_weights
    opt, sub = s[: inst.K], s[inst.K :]
    if sub.size == 0 or not (opt == opt[0]).all() or not (sub == sub[0]).all():
        return None
    if not sub[0] < opt[0]:
        return None
    return inst.L, inst.K, float(opt[0]), float(opt[0] - sub[0])


def theorem4_blb_coefficient(L, K, p, delta, dps=None):
    """Theorem 4: ``(L - K) Delta (1 - p)^(K-1) / kl(p - Delta, p)`` on ``B_LB(L, K, p, Delta)``.

    Parameters are validated as by :func:`bounds.b_lb` (``0 < Delta < p <= 1``, ``1 <= K <= L``).
    ``p = 1`` gives ``kl = inf`` and the coefficient 0.
    """
    L, K, p, delta = V.b_lb_parameters(L, K, p, delta)
    a = arith(dps)
    with precision(dps):
        P = a.num(p)
        return a.out(_blb_formula(a, L, K, P, P - a.num(delta)))


def _blb_formula(a, L, K, P, Q):
    """Theorem 4's right side from ``p = P`` and ``p - Delta = Q`` (``Delta = P - Q`` exactly)."""
    return (L - K) * (P - Q) * (1 - P) ** (K - 1) / a.kl(Q, P)


def _general(inst, alpha_of, dps):
    if inst.regret_free:  # K = L or every gap 0: R(n) = 0 (bounds.upper, Regret-free instances)
        return 0.0 if dps is None else mpmath.mpf(0)
    a = arith(dps)
    with precision(dps):
        s = [a.num(x) for x in inst.sorted_weights]
        K = inst.K
        wK = s[K - 1]
        term = {}  # equal weights, equal terms: each distinct one once (the sum as before)
        for we in s[K:]:
            if we not in term:
                term[we] = (wK - we) / a.kl(we, wK)
        return a.out(alpha_of(s, K) * a.sum([term[we] for we in s[K:]]))


def theorem4_general_coefficient(inst, K=None, dps=None):
    """``alpha sum_{e>K} Delta_{e,K} / kl(w(e), w(K))``, ``alpha = (1 - w(1))^(K-1)`` (see module).

    The general-instance form of Theorem 4; equal to :func:`theorem4_blb_coefficient`
    on B_LB. Requires a unique optimal set.
    """
    inst = _instance(inst, K)
    return _general(inst, lambda s, K: (1 - s[0]) ** (K - 1), dps)


def theorem4_sharp_coefficient(inst, K=None, dps=None):
    """As :func:`theorem4_general_coefficient` with ``alpha_sharp = prod_{j<K} (1 - w(j))``.

    Valid by the same proof (module docstring), and ``>=`` the general coefficient.
    """
    inst = _instance(inst, K)

    def alpha(s, K):
        out = 1
        for x in s[: K - 1]:
            out = out * (1 - x)
        return out

    return _general(inst, alpha, dps)


def theorem4_coefficient(inst, K=None, dps=None):
    """``liminf R(n)/log n`` lower-bound constant (Theorem 4).

    The B_LB formula of Theorem 4 when the instance is a B_LB problem (see
    :func:`blb_parameters`; ``p`` and ``p - Delta`` are the stored weights, ``Delta`` their
    exact difference), the general-instance constant :func:`theorem4_general_coefficient`
    otherwise.
    """
    inst = _instance(inst, K)
    if blb_parameters(inst) is None:
        return theorem4_general_coefficient(inst, dps=dps)
    a = arith(dps)
    with precision(dps):
        s = inst.sorted_weights
        return a.out(_blb_formula(a, inst.L, inst.K, a.num(s[0]), a.num(s[-1])))


def theorem4_bound(inst, n, K=None):
    """``theorem4_coefficient(inst) * log n`` for horizon(s) ``n >= 1`` (float or array like n).

    This is the asymptotic rate of Theorem 4 evaluated at n, not a finite-n bound.
    """
    c = theorem4_coefficient(inst, K)
    n, scalar = _horizon(n)
    out = c * np.log(n)
    return float(out) if scalar else out


def theorem4_curve(instance, horizons, kind="general") -> np.ndarray:
    """Theorem 4's asymptotic rate ``coefficient * log n`` at an array of horizons.

    Parameters
    ----------
    instance : CascadeInstance or (weights, K), unique optimal set
    horizons : int >= 1 or array_like of them
    kind : {"general", "sharp"}
        ``"general"``: :func:`theorem4_coefficient` (the paper's Theorem 4 on B_LB, its
        general-instance form otherwise); ``"sharp"``: :func:`theorem4_sharp_coefficient`.

    Returns
    -------
    ndarray, the shape of ``horizons``. A rate, not a finite-n bound (module docstring).
    """
    inst = _instance(instance)
    V.choice("kind", kind, THEOREM4_KINDS)
    n, _ = _horizon(horizons, "horizons")
    coef = theorem4_coefficient(inst) if kind == "general" else theorem4_sharp_coefficient(inst)
    return coef * np.log(np.asarray(n, dtype=np.float64))
