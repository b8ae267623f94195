"""Theorems 2 and 3 of the paper: upper bounds on the n-step regret (Section 4.2, Appendix A).

Notation: items sorted by decreasing attraction, ``w(1) >= ... >= w(L)``, a unique
optimal set (``w(K) > w(K+1)``), gaps ``Delta_{e,e*} = w(e*) - w(e)`` (eq. 3).
``log n`` and ``log log n`` follow the small-t rule of :mod:`bounds.indices`:
``log n`` for ``n >= 1`` and ``log log n -> max(log log n, 0)``, so the
``3 log log n`` and ``7 K log log n`` terms vanish for ``n <= e`` (n = 1, 2).

Theorem 2 (CascadeUCB1)::

    R(n) <= sum_{e>K} 12 / Delta_{e,K} log n + pi^2 L / 3.

Its pre-peeling form (Appendix A, the bound before Lemma 3 of Kveton et al. 2014)::

    sum_{e>K} [Delta_{e,1}/Delta_{e,1}^2
               + sum_{e*>=2} Delta_{e,e*}(1/Delta_{e,e*}^2 - 1/Delta_{e,e*-1}^2)] 6 log n
        + pi^2 L / 3.

Theorem 3 (CascadeKL-UCB), for any ``eps > 0``::

    R(n) <= sum_{e>K} (1 + eps) Delta_{e,K} (1 + log(1/Delta_{e,K})) / kl(w(e), w(K))
                * (log n + 3 log log n) + C,
    C = K L C_2(eps) / n^beta(eps) + 7 K log log n.

Its pre-peeling form replaces each item's ``Delta_{e,K}(1 + log(1/Delta_{e,K}))/kl(w(e), w(K))``
by the left side of Lemma 2 (:func:`bounds.peeling.lemma2_lhs`).

The constant C. ``C_2`` and ``beta`` come from Lemma 8 of Garivier and Cappe (2011)
and depend on the pair (suboptimal ``e``, optimal ``e*``): ``(C2, beta) =
bounds.garivier_cappe.klucb_tail_constants(w(e), w(e*), eps)`` (see that module for
their derivation). The proof of Theorem 3 bounds, for each pair, the expected
number of rounds with ``T_{t-1}(e) > tau_{e,e*}`` and ``G_{e,e*,t}`` on the good event by
``C2_{e,e*}/n^beta_{e,e*}``, weighted by ``Delta_{e,e*}``; and the rounds on the bad
event (an optimal item below its UCB) by ``K F(n)``, ``F(n)`` the sum over t of
Theorem 10 of Garivier and Cappe, which the paper replaces by ``7 K log log n``.
Two forms are provided (``form=`` in every Theorem 3 function):

* ``"paper"`` (default), the theorem as printed, with the single ``C_2(eps)/n^beta(eps)``
  read as the worst pair: ``C = K L max_{e,e*} C2_{e,e*}/n^beta_{e,e*} + 7 K log log n``
  (``log log n`` by the small-t rule). Note ``7 K log log n`` is valid only for n >= 48
  (see :mod:`bounds.garivier_cappe`, (I6)).
* ``"proof"``, what the proof gives before it is loosened (``Delta <= 1``, ``L - K <= L``,
  ``F(n) <= 7 log log n``):
  ``C = sum_{e>K} sum_{e*<=K} Delta_{e,e*} C2_{e,e*}/n^beta_{e,e*} + K F(n)``,
  with ``F(n) = bounds.garivier_cappe.klucb_loglog_term(n)``, valid for every n >= 1.

``eps=None`` minimises the bound over ``eps > 0`` (:func:`theorem3_optimal_eps`).
Cost: one mpmath root per distinct (w(e), w(e*)) pair and eps (about 1 ms each), so
optimising eps on an instance with many distinct weights takes seconds.

Arithmetic. The coefficients are evaluated in mpmath at 30 digits from the exact binary
values of the weights and rounded once to float64 (within 1 ulp of the exact value;
float64 kl alone would lose ``log10(1/Delta)`` digits near small gaps). They also accept
``dps=d`` and then return an ``mpf`` at ``d`` digits. Sums over horizons and the
optimisation of eps run in float64 (relative error a few ulp).
"""

from __future__ import annotations

import math
from fractions import Fraction
from types import SimpleNamespace

import mpmath
import numpy as np

from cascading_bandits.bounds import _validate as V
from cascading_bandits.bounds.instance import CascadeInstance, as_instance
from cascading_bandits.bounds.kl import kl_mp
from cascading_bandits.bounds.peeling import lemma2_lhs, ucb1_peeling_lhs

__all__ = [
    "theorem2_leading_coefficient",
    "theorem2_bound",
    "theorem2_prepeeling_coefficient",
    "theorem2_prepeeling",
    "theorem3_leading_coefficient",
    "theorem3_prepeeling_coefficient",
    "theorem3_log_term",
    "theorem3_tail_constants",
    "theorem3_constant",
    "theorem3_bound",
    "theorem3_prepeeling",
    "theorem3_optimal_eps",
    "theorem3_details",
    "THEOREM3_FORMS",
]

THEOREM3_FORMS = ("paper", "proof")

# ---------------------------------------------------------------------------
# shared private helpers (also used by bounds.lower)
# ---------------------------------------------------------------------------

_MP = SimpleNamespace(num=mpmath.mpf, log=mpmath.log, kl=kl_mp, sum=mpmath.fsum, out=lambda x: +x)
_MP_TO_FLOAT = SimpleNamespace(num=mpmath.mpf, log=mpmath.log, kl=kl_mp, sum=mpmath.fsum, out=float)

#: digits used for the float results: kl(p, q) near q = p loses about log10(1/|q - p|)
#: digits in float64, so the coefficients are evaluated in mpmath and rounded once.
_FLOAT_DPS = 30


def _arith(dps):
    """The arithmetic a formula runs in (use inside :func:`_precision` with the same ``dps``).

    ``dps=None``: mpmath at 30 digits, rounded to float64 at the end (the result is the
    float nearest the exact value of the formula at the given binary inputs, up to 1 ulp);
    ``dps=d``: mpmath at ``d`` digits, an ``mpf``.
    """
    return _MP_TO_FLOAT if dps is None else _MP


def _precision(dps):
    return mpmath.workdps(_FLOAT_DPS if dps is None else V.positive_int("dps", dps))


def _instance(inst, K=None) -> CascadeInstance:
    """A CascadeInstance from an instance, ``(weights, K)`` or weights and ``K``; unique optimum."""
    if (
        isinstance(inst, tuple)
        and len(inst) == 2
        and np.ndim(inst[0]) == 1
        and isinstance(inst[1], (int, np.integer))
        and not isinstance(inst[1], bool)
    ):
        inst = as_instance(inst[0], inst[1] if K is None else K)
    else:
        inst = as_instance(inst, K)
    inst.require_unique_optimum()
    return inst


def _horizon(n):
    """Validate horizon(s), integers >= 1 (1e5 accepted); returns (float array, is_scalar)."""
    if np.ndim(n) == 0:
        return np.float64(V.positive_int("n", n)), True
    a = V.as_float_array("n", n)
    if (a < 1).any() or not np.isfinite(a).all() or (a != np.floor(a)).any():
        raise ValueError("n must hold integers >= 1 (horizons)")
    return a, False


def _log(n):
    return np.log(np.maximum(n, 1.0))


def _loglog(n):
    return np.where(n > math.e, np.log(np.log(np.maximum(n, math.e))), 0.0)


def _out(x, scalar):
    return float(x) if scalar else x


def _check_eps(eps):
    return V.positive_real("eps", eps)


def _check_form(form):
    return V.choice("form", form, THEOREM3_FORMS)


# ---------------------------------------------------------------------------
# Theorem 2
# ---------------------------------------------------------------------------


def theorem2_leading_coefficient(inst, K=None, dps=None):
    """``sum_{e>K} 12 / Delta_{e,K}``: the coefficient of ``log n`` in Theorem 2."""
    inst = _instance(inst, K)
    a = _arith(dps)
    with _precision(dps):
        s = [a.num(x) for x in inst.sorted_weights]
        wK = s[inst.K - 1]
        return a.out(a.sum([12 / (wK - we) for we in s[inst.K :]]))


def theorem2_bound(inst, n, K=None):
    """Theorem 2: ``sum_{e>K} 12/Delta_{e,K} log n + pi^2 L / 3`` at horizon(s) n.

    Returns a float for scalar n, an array shaped like n otherwise.
    """
    inst = _instance(inst, K)
    n, scalar = _horizon(n)
    return _out(theorem2_leading_coefficient(inst) * _log(n) + math.pi**2 * inst.L / 3, scalar)


def theorem2_prepeeling_coefficient(inst, K=None):
    """The bracket of Theorem 2's proof, summed over suboptimal items.

    ``sum_{e>K} [Delta_{e,1}/Delta_{e,1}^2
    + sum_{e*>=2} Delta_{e,e*}(1/Delta_{e,e*}^2 - 1/Delta_{e,e*-1}^2)]``.

    The bracket of Appendix A before Lemma 3 of Kveton et al. (2014), summed over the
    suboptimal items; :func:`bounds.peeling.ucb1_peeling_lhs` of each row of the gaps,
    evaluated exactly (fractions of the binary weights) and rounded once.
    """
    inst = _instance(inst, K)
    s = [Fraction(float(x)) for x in inst.sorted_weights]
    opt = s[: inst.K]
    return float(sum(ucb1_peeling_lhs([o - we for o in opt]) for we in s[inst.K :]))


def theorem2_prepeeling(inst, n, K=None):
    """The pre-peeling form of Theorem 2: ``6 log n * bracket + pi^2 L / 3`` (module docstring)."""
    inst = _instance(inst, K)
    n, scalar = _horizon(n)
    return _out(
        6 * theorem2_prepeeling_coefficient(inst) * _log(n) + math.pi**2 * inst.L / 3, scalar
    )


# ---------------------------------------------------------------------------
# Theorem 3
# ---------------------------------------------------------------------------


def theorem3_leading_coefficient(inst, K=None, dps=None):
    """Theorem 3's ``log n`` coefficient at eps = 0.

    ``sum_{e>K} Delta_{e,K} (1 + log(1/Delta_{e,K})) / kl(w(e), w(K))``.

    A term with ``kl = inf`` (``w(K) = 1``) is 0. ``dps=d`` evaluates in mpmath.
    """
    inst = _instance(inst, K)
    a = _arith(dps)
    with _precision(dps):
        s = [a.num(x) for x in inst.sorted_weights]
        wK = s[inst.K - 1]
        terms = [(wK - we) * (1 - a.log(wK - we)) / a.kl(we, wK) for we in s[inst.K :]]
        return a.out(a.sum(terms))


def theorem3_prepeeling_coefficient(inst, K=None):
    """``sum_{e>K}`` of Lemma 2's left side, ``p = w(e)``, ``p_k = w(k)`` (pre-peeling, App. A)."""
    inst = _instance(inst, K)
    with _precision(None):  # mpmath at 30 digits, rounded once (as the leading coefficients)
        opt = [mpmath.mpf(float(x)) for x in inst.optimal_weights]
        terms = [lemma2_lhs(mpmath.mpf(float(we)), opt) for we in inst.suboptimal_weights]
        return float(mpmath.fsum(terms))


def theorem3_log_term(inst, n, eps, K=None):
    """``(1 + eps) * leading coefficient * (log n + 3 log log n)``: Theorem 3 without C."""
    inst = _instance(inst, K)
    n, scalar = _horizon(n)
    eps = V.positive_real("eps", eps, allow_zero=True)
    coef = theorem3_leading_coefficient(inst)
    return _out((1 + eps) * coef * (_log(n) + 3 * _loglog(n)), scalar)


def theorem3_tail_constants(inst, eps, K=None):
    """Per-pair ``(C2, beta)`` of Lemma 8 of Garivier and Cappe for ``eps``.

    Returns
    -------
    (C2, beta) : two ndarrays, shape (L - K, K)
        Row ``i`` is the suboptimal item ``K + 1 + i``, column ``j`` the optimal item ``j + 1``
        (as :meth:`CascadeInstance.gaps`), from ``klucb_tail_constants(w(e), w(e*), eps)``.
    """
    from cascading_bandits.bounds.garivier_cappe import klucb_tail_constants

    inst = _instance(inst, K)
    eps = _check_eps(eps)
    sub, opt = inst.suboptimal_weights, inst.optimal_weights
    C2 = np.empty((sub.size, opt.size))
    beta = np.empty((sub.size, opt.size))
    cache = {}
    for i, mu in enumerate(sub):
        for j, mu_star in enumerate(opt):
            key = (float(mu), float(mu_star))
            if key not in cache:
                c2, b = klucb_tail_constants(key[0], key[1], eps)
                cache[key] = (float(c2), float(b))
            C2[i, j], beta[i, j] = cache[key]
    return C2, beta


def _loglog_part(inst, n, form):
    """``7 K log log n`` (paper) or ``K F(n)`` (proof) at scalar n."""
    from cascading_bandits.bounds.garivier_cappe import GC_LOGLOG_CONSTANT, klucb_loglog_term

    if form == "paper":
        return float(GC_LOGLOG_CONSTANT) * inst.K * float(_loglog(n))
    return inst.K * klucb_loglog_term(int(n))


def _constant_parts(inst, n, eps, form):
    """(C, C2 of the worst pair, beta of the worst pair) for scalar n (nan, nan if K = L)."""
    C2, beta = theorem3_tail_constants(inst, eps)
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        tails = C2 * np.exp(-beta * math.log(n))  # beta = inf (mu = 0) gives 0 for n >= 2
    if n == 1:
        tails = C2.copy()
    if tails.size == 0:  # K = L: no suboptimal item, no pair
        return _loglog_part(inst, n, form), math.nan, math.nan
    worst = np.unravel_index(np.argmax(tails), tails.shape)
    if form == "paper":
        c = inst.K * inst.L * float(tails[worst])
    else:
        c = math.fsum((inst.gaps() * tails).ravel())
    return c + _loglog_part(inst, n, form), float(C2[worst]), float(beta[worst])


def theorem3_constant(inst, n, eps, K=None, form="paper"):
    """The constant ``C`` of Theorem 3 at horizon(s) n and ``eps > 0`` (``form``: see module)."""
    inst = _instance(inst, K)
    _check_form(form)
    eps = _check_eps(eps)
    n, scalar = _horizon(n)
    if scalar:
        return _constant_parts(inst, float(n), eps, form)[0]
    return np.array([_constant_parts(inst, float(m), eps, form)[0] for m in n.ravel()]).reshape(
        n.shape
    )


def _bound_scalar(inst, n, eps, form):
    return float(theorem3_log_term(inst, n, eps)) + _constant_parts(inst, n, eps, form)[0]


def theorem3_optimal_eps(inst, n, K=None, form="paper", grid=None):
    """The ``eps > 0`` minimising Theorem 3's bound at horizon n, searched in ``[1e-6, 1e3]``.

    Method: the bound is evaluated on a grid of ``eps`` log-spaced over ``[1e-6, 1e3]``
    (``grid`` points, default 49), then minimised by ``scipy.optimize.minimize_scalar``
    (bounded, on ``log eps``) between the neighbours of the best grid point; the result
    is never worse than the best grid point. Returns a float.
    """
    from scipy.optimize import minimize_scalar

    inst = _instance(inst, K)
    _check_form(form)
    n = float(V.positive_int("n", n))
    m = 49 if grid is None else V.positive_int("grid", grid, minimum=3)
    xs = np.linspace(math.log(1e-6), math.log(1e3), m)

    def f(x):
        return _bound_scalar(inst, n, math.exp(x), form)

    vals = np.array([f(x) for x in xs])
    i = int(np.argmin(vals))
    lo, hi = xs[max(i - 1, 0)], xs[min(i + 1, m - 1)]
    res = minimize_scalar(f, bounds=(lo, hi), method="bounded", options={"xatol": 1e-10})
    if res.success and res.fun <= vals[i]:
        return float(math.exp(res.x))
    return float(math.exp(xs[i]))


def theorem3_bound(inst, n, eps=None, K=None, form="paper"):
    """Theorem 3: the CascadeKL-UCB regret bound at horizon(s) n, including C.

    Parameters
    ----------
    inst : CascadeInstance, or (weights, K), or weights with ``K=``
    n : int >= 1 or array of them
    eps : float > 0 or None
        None: the minimising eps for each n (:func:`theorem3_optimal_eps`).
    form : {"paper", "proof"}
        How C_2/n^beta enters C (module docstring); default the paper's.
    """
    inst = _instance(inst, K)
    _check_form(form)
    n_arr, scalar = _horizon(n)
    if eps is not None:
        eps = _check_eps(eps)
    vals = []
    for m in np.atleast_1d(n_arr).ravel():
        e = theorem3_optimal_eps(inst, float(m), form=form) if eps is None else eps
        vals.append(_bound_scalar(inst, float(m), e, form))
    if scalar:
        return vals[0]
    return np.array(vals).reshape(n_arr.shape)


def theorem3_prepeeling(inst, n, eps, K=None, form="paper"):
    """Pre-peeling Theorem 3: ``(1+eps) * prepeeling coefficient * (log n + 3 log log n) + C``."""
    inst = _instance(inst, K)
    _check_form(form)
    eps = _check_eps(eps)
    n_arr, scalar = _horizon(n)
    coef = theorem3_prepeeling_coefficient(inst)
    vals = [
        (1 + eps) * coef * float(_log(m) + 3 * _loglog(m))
        + _constant_parts(inst, float(m), eps, form)[0]
        for m in np.atleast_1d(n_arr).ravel()
    ]
    if scalar:
        return vals[0]
    return np.array(vals).reshape(n_arr.shape)


def theorem3_details(inst, n, eps=None, K=None, form="paper") -> dict:
    """Everything about Theorem 3 at one horizon: bound, eps, C, worst pair's C2 and beta, terms.

    Returns
    -------
    dict with keys ``bound``, ``eps``, ``eps_optimised`` (bool), ``constant``, ``C2``, ``beta``
    (of the pair attaining ``max C2/n^beta``), ``log_term``, ``leading_coefficient``,
    ``log_n_coefficient`` (``(1 + eps)`` times the leading coefficient), ``prepeeling``, ``form``.
    """
    inst = _instance(inst, K)
    _check_form(form)
    n = float(V.positive_int("n", n))
    optimised = eps is None
    eps = theorem3_optimal_eps(inst, n, form=form) if optimised else _check_eps(eps)
    c, c2, beta = _constant_parts(inst, n, eps, form)
    log_term = float(theorem3_log_term(inst, n, eps))
    coef = theorem3_leading_coefficient(inst)
    return {
        "bound": log_term + c,
        "eps": eps,
        "eps_optimised": optimised,
        "constant": c,
        "C2": c2,
        "beta": beta,
        "log_term": log_term,
        "leading_coefficient": coef,
        "log_n_coefficient": (1 + eps) * coef,
        "prepeeling": float(theorem3_prepeeling(inst, n, eps, form=form)),
        "form": form,
    }
