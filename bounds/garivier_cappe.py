r"""Theorem 3's ``C_2(eps)``, ``beta(eps)`` and ``7 log log n``, derived from Garivier & Cappe 2011.

Theorem 3 of Kveton et al. (ICML 2015) bounds the regret of CascadeKL-UCB with the
constant ``C = K L C_2(eps) / n^beta(eps) + 7 K log log n`` and says only that
``C_2`` and ``beta`` "are defined in Garivier and Cappe" (A. Garivier, O. Cappe,
"The KL-UCB algorithm for bounded stochastic bandits and beyond", COLT 2011,
arXiv:1102.2490; below **[GC]**). Its proof (Appendix, proof of Theorem 3) cites
"Theorem 2 and Lemma 8" of [GC] for ``C_2 / n^beta`` and "Theorems 2 and 10" for
``7 K log log n``. This module derives both from the structure of [GC]'s proof,
step by step, for Bernoulli rewards and one (suboptimal, optimal) pair.

Source note. The text of [GC] could not be retrieved whole from the reference
corpora available when this was written (only its abstract and secondary
summaries of the proof), so no equation numbers of [GC] are quoted: citing them
from memory would be unverifiable. Every step below is proved here in full and
checked numerically in ``tests/bounds/test_garivier_cappe.py``; what is
attributed to [GC] is only the proof's architecture (split at
``K_n = floor((1+eps)(log n + 3 log log n)/d(mu, mu*))``, Chernoff bound on the
empirical mean, geometric sum) and the deviation inequality of their Theorem 10,
``P(u(n) < mu) <= e ceil(delta log n) exp(-delta)``.

Notation
--------
``mu = w(e)`` (suboptimal), ``mu* = w(e*)`` (optimal), ``0 <= mu < mu* <= 1``;
``d = kl(mu, mu*)``; ``f(n) = log n + c log log n`` with ``c = 3`` and the small-t
rule of :mod:`bounds.indices` (``log log n -> max(log log n, 0)``);
``tau = (1 + eps) f(n) / d`` (the paper's ``tau_{e,e*}``); ``w_hat_s`` = mean of
the first ``s`` observations of ``e``; ``kl+(x, y) = kl(x, y) 1{x < y}``.

Derivation of C_2 and beta (the "Lemma 8" term)
-----------------------------------------------
(S1) Event split. On ``{T_{t-1}(e) > tau, not E_t, G_{e,e*,t}}``: ``not E_t`` gives
     ``U_t(e*) >= mu*``; ``G`` gives ``U_t(e) >= U_t(e*)`` and ``T_t(e) = T_{t-1}(e) + 1``.
     With ``s = T_{t-1}(e)``, ``U_t(e) >= mu*`` iff ``s kl+(w_hat_s, mu*) <= f(t) <= f(n)``.
     Each ``s`` occurs in at most one such round, hence
     ``sum_t 1{...} <= M_n := sum_{s > tau} 1{s kl+(w_hat_s, mu*) <= f(n)}``.
(S2) Let ``r = r(eps)`` in ``(mu, mu*)`` solve ``kl(r, mu*) = d / (1 + eps)`` (unique:
     ``kl(., mu*)`` decreases strictly from ``d`` to 0 on ``[mu, mu*]``). For ``s > tau``,
     ``kl+(w_hat_s, mu*) <= f(n)/s < d/(1+eps) = kl(r, mu*)``, which forces ``w_hat_s > r``.
     So ``E[M_n] <= sum_{s > tau} P(w_hat_s > r)``.
(S3) Chernoff: ``P(w_hat_s >= r) <= exp(-s kl(r, mu))``.
(S4) Geometric sum from ``S = floor(tau) + 1 > tau``:
     ``sum_{s >= S} exp(-s kl(r, mu)) = exp(-S kl(r, mu)) / (1 - exp(-kl(r, mu)))
     < exp(-tau kl(r, mu)) / (1 - exp(-kl(r, mu))) = C_2 n^-beta (log n)^(-3 beta) <= C_2 n^-beta``
     with

         C_2 = 1 / (1 - exp(-kl(r, mu))),     beta = (1 + eps) kl(r, mu) / kl(mu, mu*).

     This holds for every n >= 1 (for n <= e the small-t rule drops the log log
     factor, for n > e it is <= 1). ``E[M_n]`` is computed exactly (binomial tails)
     by :func:`klucb_tail_expected_bad_rounds`; the chain S1-S4 is tested exactly,
     and S1 also pathwise on simulated CascadeKL-UCB runs.

Limits (proved by expansion, tested): as ``eps -> 0``, ``r - mu ~ eps d / l`` with
``l = logit(mu*) - logit(mu)``, so ``beta ~ eps^2 d / (2 mu (1-mu) l^2) -> 0`` and
``C_2 ~ 1/kl(r, mu) -> inf``; as ``eps -> inf``, ``r -> mu*``,
``beta -> inf`` and ``C_2 -> 1/(1 - exp(-kl(mu*, mu)))``. Both constants are
monotone in eps: ``C_2`` decreasing, ``beta`` increasing.

Edge rules. ``mu = 0``: ``w_hat_s = 0`` a.s., so ``M_n = 0``; formally
``kl(r, 0) = inf`` and we return ``C_2 = 1, beta = inf`` (the limit; the bound
``C_2 n^-beta`` is 0 for n >= 2 and 1 at n = 1). ``mu* = 1`` (``mu > 0``):
``d = inf``, ``tau = 0`` and the defining equation of ``r`` degenerates
(``inf/(1+eps) = inf`` for every ``r < 1``); we use the continuous extension
``mu* -> 1``: ``r = (mu + eps)/(1 + eps)``, ``beta = 0``,
``C_2 = 1/(1 - exp(-kl(r, mu)))``. It is valid: then ``M_n = sum_{s>=1} 1{w_hat_s = 1}``,
``E[M_n] = mu/(1 - mu) <= sum_{s>=1} exp(-s kl(r, mu)) <= C_2``. The bound does not
decay in n; for such a pair the log-n term of Theorem 3 is 0 (``Delta/kl = 0``).

Precision. ``r`` is found by Newton's method on
``g(x) = kl(mu, mu + x) + x (logit mu* - logit(mu + x)) - eps d/(1+eps)`` (the
three-point identity of the Bregman divergence ``kl``: ``g = 0`` iff
``kl(mu + x, mu*) = d/(1+eps)``, written without cancellation). ``g`` is
increasing and concave, so Newton from ``x = 0`` increases monotonically to the
root. All of it runs in mpmath at ``40 + log10(1/eps)+`` digits; the returned
floats are within 2 ulp of the 80-digit values (tested).

Inconsistencies found (and remarks)
-----------------------------------
(I1) ``C_2`` and ``beta`` depend on the pair ``(mu, mu*)`` (through ``kl(mu, mu*)``,
     ``r`` and ``kl(r, mu)``), not on eps alone as ``C_2(eps)``, ``beta(eps)`` in
     Theorem 3 suggests. ``K L C_2/n^beta`` is meaningful only as ``K L`` times the
     worst pair; the proof actually gives ``sum_{e>K} sum_{e*<=K} Delta_{e,e*} C_2 n^-beta``.
     A useful identity: ``beta = kl(r, mu) / kl(r, mu*)``.
(I2) The proof has ``K (L - K)`` pairs with weights ``Delta_{e,e*} <= 1``; ``K L`` is a
     valid but loose count.
(I3) Remark: T is an integer, so ``T > tau`` means ``T >= floor(tau) + 1 > tau`` (the
     summary of [GC]'s split: ``s > K_n = floor(tau)``). This is what lets
     ``C_2 = 1/(1 - exp(-kl(r, mu)))`` carry no factor ``exp(kl(r, mu))``, which a sum
     started at ``floor(tau)`` would need.
(I4) Remark: ``beta -> 0`` like eps^2 and ``C_2`` grows like eps^-2, so the term is
     large for small eps at any practical n; eps has to be optimised per n.
(I5) Theorem 10 read literally at t = 1 (``delta = log 1 = 0``) gives the bound 0, which
     is false (``P(w_hat < w) > 0``). We use ``min(1, e max(1, ceil(delta log t)) e^-delta)``.
(I6) ``7 K log log n``: summing Theorem 10's bound with ``delta_t = log t + 3 log log t``
     gives, per optimal item,
     ``F(n) = sum_{t<=n} min(1, e ceil(delta_t log t) e^-delta_t) = e log log n + O(1)``
     (the union bound over the K optimal items gives the factor K). The asymptotic
     constant is ``e`` (about 2.72), not 7, and ``F(n) <= 7 log log n`` holds only for
     ``n >= 48``: it fails for every n <= 47 (e.g. F(16) = 7.58 > 7 log log 16 = 7.14;
     ``log log n <= 0`` for n <= 2). :func:`klucb_loglog_term` returns the valid ``F(n)``,
     :func:`klucb_loglog_valid_from` certifies the 48.
(I7) Threshold: [GC] use ``c = 3`` in ``log t + c log log t`` with at most ``t``
     observations at round ``t + 1``; CascadeKL-UCB uses ``log t + 3 log log t`` at step
     t with ``T_{t-1}(e) <= t`` observations (``T_0 = 1``). Same time scale, so Theorem 10
     applies with ``n = t`` and ``c = 3`` matches. For ``c < 3`` the sum ``F(n)`` grows
     faster than ``log log n`` (``c = 2``: like ``e log n``). ``log log t`` is undefined
     or negative for t <= e; we use the small-t rule of :mod:`bounds.indices`.
(I8) Theorem 10 assumes the observation indicators are previsible. In the cascade,
     whether ``e*`` is observed at step t depends on the current clicks on the items
     above it, which are independent of ``w_t(e*)``; the supermartingale step of the
     proof only needs that conditional independence, so the bound still applies.
"""

from __future__ import annotations

import math
from functools import lru_cache

import mpmath
import numpy as np

from cascading_bandits.bounds import _validate as V
from cascading_bandits.bounds._blocked import BLOCK, arange_blocks
from cascading_bandits.bounds.indices import klucb_threshold
from cascading_bandits.bounds.kl import kl, kl_mp

__all__ = [
    "GC_LOGLOG_CONSTANT",
    "klucb_tail_constants",
    "klucb_tail_constants_mp",
    "klucb_tail_constants_array",
    "klucb_tail_root",
    "klucb_tail_bound",
    "klucb_tail_chernoff_sum",
    "klucb_tail_event_sum",
    "klucb_tail_expected_bad_rounds",
    "theorem10_bound",
    "klucb_loglog_term",
    "klucb_loglog_constant",
    "klucb_loglog_valid_from",
]

#: The 7 of ``7 K log log n`` in Theorem 3 (as printed); valid only for n >= 48, see (I6).
GC_LOGLOG_CONSTANT = 7

# --------------------------------------------------------------------------
# C_2 and beta
# --------------------------------------------------------------------------


def _check_pair(mu, mu_star, eps):
    mu = V.probability("mu", mu)
    mu_star = V.probability("mu_star", mu_star)
    if not mu < mu_star:
        raise ValueError(
            "mu (suboptimal mean) must be < mu_star (optimal mean); "
            f"got mu = {V.show(mu)}, mu_star = {V.show(mu_star)}"
        )
    eps = V.positive_real("eps", eps)
    return mu, mu_star, eps


def _work_dps(eps, base):
    # Newton on x = r - mu loses no digits, but kl(r, mu) ~ x^2 with x ~ eps:
    # keep log10(1/eps) digits spare.
    return base + max(0, int(math.ceil(-math.log10(eps)))) if eps < 1 else base


def _logit(q):
    return mpmath.log(q) - mpmath.log1p(-q)


def _root_offset(mu, mu_star, target, x_start=None):
    """x = r - mu with kl(mu + x, mu*) = d - target: Newton on the concave increasing g.

    ``x_start``: a guess below the root (:func:`_float_start`); Newton
    from any point below increases monotonically to the root, in a few steps from there
    instead of about six from 0. A guess above the root (``g > 0``) is dropped.
    """
    ls = _logit(mu_star)
    tol = mpmath.mpf(2) ** (-mpmath.mp.prec + 8)
    x = mpmath.mpf(0)  # mu > 0 here (mu = 0: _root_from_zero)
    guess = x_start is not None and 0 < x_start < mu_star - mu
    if guess:
        x = x_start
    for _ in range(500):
        r = mu + x
        slope = ls - _logit(r)  # g'(x) > 0
        g = kl_mp(mu, r) + x * slope - target
        # at the root up to the rounding of g's terms (all of the order of target)
        if g >= 0 or abs(g) <= tol * target:
            if guess and g > tol * target:  # the guess lies above the root: start from 0
                x, guess = mpmath.mpf(0), False
                continue
            return x
        guess = False
        x_new = x - g / slope
        if x_new >= mu_star - mu:  # impossible in exact arithmetic (concavity); stay inside
            x_new = (x + mu_star - mu) / 2
        if x_new <= x:  # iterates increase in exact arithmetic: rounding floor reached
            return x
        x = x_new
    raise ArithmeticError(f"Newton did not converge for mu={mu}, mu*={mu_star}")  # pragma: no cover


def _root_from_zero(mu_star, level):
    """r in (0, mu*) with kl(r, mu*) = level < kl(0, mu*): bracketing (kl(., mu*) decreases)."""
    try:
        return mpmath.findroot(
            lambda q: kl_mp(q, mu_star) - level, (mpmath.mpf(0), mu_star), solver="anderson"
        )
    except (ValueError, ZeroDivisionError):
        # a level so small (huge eps) that Anderson's steps stall: bisection, which cannot
        lo, hi = mpmath.mpf(0), mpmath.mpf(mu_star)
        for _ in range(4 * mpmath.mp.prec):
            mid = (lo + hi) / 2
            if mid in (lo, hi):
                break
            if kl_mp(mid, mu_star) > level:
                lo = mid
            else:
                hi = mid
        return (lo + hi) / 2


#: float64's unit roundoff
_U = 2.0**-53


def _float_start(m, ms, e):
    """An mpf below the root ``x = r - mu`` (or None): plain-float Newton on ``g`` from 0,
    lowered by a margin that covers float64's rounding of ``g``.

    Newton from 0 on the concave increasing ``g`` stays below the root in exact arithmetic;
    in float64 its last iterate can overshoot by about ``err / g'(x)``, ``err`` the absolute
    rounding of ``g`` there. ``err`` is bounded to first order by a unit roundoff ``u`` times
    the sizes of g's terms, each logarithm counting one more for the rounding of its argument
    (``mu``, ``mu*`` themselves rounded to float64):
    ``u (mu (1 + |l1|) + (1 - mu) (1 + |l2|) + mu (1 + |l3|) + (1 - mu) (1 + |l4|)
    + x (|log r| + |log(1 - r)| + |logit mu*| + 4))``, ``l1 = log(mu / mu*)``,
    ``l2 = log((1 - mu) / (1 - mu*))``, ``l3 = log(r / mu)``, ``l4 = log((1 - r) / (1 - mu))``.
    The guess is ``x (1 - 1e-6)``, or ``x - 4 err / g'(x)`` if that is lower; None when
    that is not positive (float64 cannot resolve the root: a tiny gap, or a huge eps pushing
    the root onto the slope's zero at mu*). The factor 4 is a safety margin over the
    first-order bound, tested against the 50-digit root on log-uniform draws down to gaps and
    means of 1e-12 and eps from 1e-8 to 1e8 (tests/bounds/test_garivier_cappe.py).
    :func:`_root_offset` still checks the guess and drops one above the root.
    """
    fm, fs, fe = float(m), float(ms), float(e)
    if not (0 < fm < fs < 1 and 0 < fe < math.inf):
        return None
    fc = 1.0 - fm
    ls = math.log(fs) - math.log1p(-fs)
    l1, l2 = math.log(fm / fs), math.log(fc / (1.0 - fs))
    target = (fm * l1 + fc * l2) * (fe / (1.0 + fe))
    x = 0.0
    slope = math.nan
    for _ in range(60):
        r = fm + x
        slope = ls - (math.log(r) - math.log1p(-r))
        if not slope > 0:
            break
        g = -fm * math.log1p(x / fm) - fc * math.log1p(-x / fc) + x * slope - target
        new = x - g / slope
        if not (x < new < fs - fm):
            break
        x = new
    if not (x > 0 and slope > 0):
        return None
    r = fm + x
    err = _U * (
        fm * (1 + abs(l1))
        + fc * (1 + abs(l2))
        + fm * (1 + abs(math.log(r / fm)))
        + fc * (1 + abs(math.log((1.0 - r) / fc)))
        + x * (abs(math.log(r)) + abs(math.log1p(-r)) + abs(ls) + 4)
    )
    margin = 4 * err / slope
    if margin <= 1e-6 * x:  # the usual case: a relative 1e-6 (exact in mpmath)
        return mpmath.mpf(x) * (1 - mpmath.mpf(10) ** -6)
    if not margin < x:
        return None
    return mpmath.mpf(x - margin)


def klucb_tail_constants_mp(mu, mu_star, eps, dps: int = 50):
    """``r(eps)``, ``kl(r, mu)``, ``C_2`` and ``beta`` in arbitrary precision (steps S2-S4).

    Parameters
    ----------
    mu, mu_star : number or str (parsed exactly by mpmath), ``0 <= mu < mu_star <= 1``
    eps : number > 0
    dps : int
        Decimal digits of the result (work precision is higher for small eps).

    Returns
    -------
    dict with mpf values ``r``, ``kl_r_mu``, ``kl_mu_mustar``, ``C2``, ``beta``
    (``mu = 0``: ``kl(r, 0) = inf``, so ``C2 = 1`` and ``beta = inf``; ``r`` is still the
    root of step S2).
    """
    from cascading_bandits.bounds.kl import _as_mpf

    mu, mu_star, eps = _as_mpf("mu", mu), _as_mpf("mu_star", mu_star), _as_mpf("eps", eps)
    _check_pair(float(mu), float(mu_star), float(eps))
    if eps <= 0 or not mpmath.isfinite(eps):  # an eps below the float64 range rounds to 0 above
        raise ValueError(f"eps must be a finite number > 0, got {mpmath.nstr(eps, 6)}")
    dps = V.digits(dps)
    with mpmath.workdps(_work_dps(float(eps), dps + 10)):
        m, ms, e = mpmath.mpf(mu), mpmath.mpf(mu_star), mpmath.mpf(eps)
        if not m < ms:
            raise ValueError(f"mu must be < mu_star; got {mu}, {mu_star}")
        d = kl_mp(m, ms)
        if m == 0:
            r = e / (1 + e) if ms == 1 else _root_from_zero(ms, d / (1 + e))
            out = dict(r=r, kl_r_mu=mpmath.inf, C2=mpmath.mpf(1), beta=mpmath.inf)
        elif ms == 1:
            r = (m + e) / (1 + e)
            dr = kl_mp(r, m)
            out = dict(r=r, kl_r_mu=dr, C2=-1 / mpmath.expm1(-dr), beta=mpmath.mpf(0))
        else:
            x = _root_offset(m, ms, e / (1 + e) * d, _float_start(m, ms, e))
            r = m + x
            dr = kl_mp(r, m)
            out = dict(r=r, kl_r_mu=dr, C2=-1 / mpmath.expm1(-dr), beta=(1 + e) * dr / d)
        out["kl_mu_mustar"] = d
    with mpmath.workdps(dps):  # round to the requested digits (unary + rounds to the context)
        return {k: (v if v is None else +v) for k, v in out.items()}


@lru_cache(maxsize=65536)
def _constants_float(mu, mu_star, eps):
    c = klucb_tail_constants_mp(mu, mu_star, eps, dps=30)
    return float(c["C2"]), float(c["beta"])


def klucb_tail_constants(mu, mu_star, eps):
    """``(C_2, beta)`` of Theorem 3 for one (suboptimal, optimal) pair (module docstring).

    ``E[sum_t 1{T_{t-1}(e) > tau_{e,e*}, not E_t, G_{e,e*,t}}] <= C_2 / n^beta`` for all n >= 1:
    ``C_2 = 1/(1 - exp(-kl(r, mu)))``, ``beta = (1 + eps) kl(r, mu)/kl(mu, mu*)`` and
    ``kl(r, mu*) = kl(mu, mu*)/(1 + eps)``, ``mu < r < mu*``.

    Parameters
    ----------
    mu : float in [0, 1)
        Attraction probability of the suboptimal item, ``w(e)``.
    mu_star : float in (mu, 1]
        Attraction probability of the optimal item, ``w(e*)``.
    eps : float > 0
        The eps of Theorem 3.

    Returns
    -------
    (C2, beta) : tuple of float
        Within 2 ulp of the 80-digit values. Edge rules: ``mu = 0`` gives ``(1.0, inf)``;
        ``mu_star = 1`` gives ``beta = 0.0`` (module docstring). An eps so small that
        ``C_2`` exceeds the float64 range (``C_2`` grows like ``1/eps^2``; below about
        1e-150), or means so close to 0 that it does (``C_2 ~ 1/kl(r, mu)``, e.g. both
        subnormal), is refused with a ValueError naming eps.
    """
    mu, mu_star, eps = _check_pair(mu, mu_star, eps)
    C2, beta = _constants_float(mu, mu_star, eps)
    _finite_c2(C2, eps)
    return C2, beta


def _finite_c2(C2, eps):
    """A ValueError naming eps where ``C_2`` left the float64 range (it is never inf)."""
    C2 = np.asarray(C2)
    if np.all(np.isfinite(C2)):
        return
    e = float(np.broadcast_to(np.asarray(eps, dtype=float), C2.shape)[~np.isfinite(C2)][0])
    raise ValueError(
        f"eps = {e:g} makes C_2 = 1/(1 - exp(-kl(r, mu))) exceed the float64 range (C_2 grows "
        "like 1/eps^2 as eps -> 0, and like 1/kl(r, mu) when mu and mu_star are both near 0, "
        "e.g. subnormal); use a larger eps (Theorem 3's optimum lies in [1e-6, 1e3]) "
        "or klucb_tail_constants_mp"
    )


# --------------------------------------------------------------------------
# C_2 and beta in float64, vectorised (for curves over n and the search for eps)
# --------------------------------------------------------------------------

# phi(t) = (1 + t) log1p(t) - t = sum_{k>=2} (-1)^k t^k / (k (k - 1)), |t| < 1; for |t| < 0.1
# the terms k = 2..19 leave a relative remainder below 1e-18.
_PHI_COEFS = np.array([(-1.0) ** k / (k * (k - 1)) for k in range(19, 1, -1)])


def _kl_part(p, q, delta):
    """``p log(p/q) - (p - q)`` for ``q > 0``, ``delta = p - q`` given (not re-formed).

    ``= q phi(delta/q)``; the series is used for ``|delta/q| < 0.1`` (no cancellation), the
    direct form ``p log1p(delta/q) - delta`` otherwise (it loses at most ``log10(20)``
    digits there).
    """
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        t = delta / q
        small = np.abs(t) < 0.1
        # the series only where it is used (most of a curve's points are not small): the
        # same operations on those elements, in place (Horner from the leading coefficient:
        # 0 * ts + a is a exactly), so the same bits as on the whole array
        series = np.zeros(t.shape)
        if small.any():
            ts = t[small]
            poly = np.full(ts.shape, _PHI_COEFS[0])
            for a in _PHI_COEFS[1:]:
                poly *= ts
                poly += a
            qs = np.broadcast_to(q, t.shape)[small]
            series[small] = qs * ts * ts * poly
        pp = np.where(p > 0, p, 1.0)
        # log(p/q) as log1p(t) (t exact to 1 ulp, so no log p - log q cancellation) unless
        # p << q (t rounds towards -1) or t overflows (q subnormal): there |log(p/q)| >= log 2
        mid = (t > -0.5) & (t < 1e300)
        lr = np.where(mid, np.log1p(np.where(mid, t, 0.0)), np.log(pp) - np.log(q))
        direct = np.where(p > 0, pp * lr, 0.0) - delta
    return np.where(small, series, direct)


def _kl_float(p, q, delta, pc=None, qc=None):
    """``kl(p, q)`` for ``0 <= p <= 1``, ``0 < q < 1`` with ``delta = p - q`` (no cancellation).

    ``pc``, ``qc``: ``1 - p`` and ``1 - q`` when the caller has them more accurately than
    the rounded ``p``, ``q`` give them (``r = mu + x`` is rounded, ``(1 - mu) - x`` is not).
    """
    pc = 1.0 - p if pc is None else pc
    qc = 1.0 - q if qc is None else qc
    return _kl_part(p, q, delta) + _kl_part(pc, qc, -delta)


def _tail_kl_float(mu, mu_star, eps, x_start=None, max_iter=200):
    """``(kl(r, mu), kl(mu, mu*), r - mu)`` for validated float arrays (broadcast; no checks).

    ``mu = 0`` gives ``kl(r, mu) = inf`` (and x = nan: r is not needed); ``mu* = 1`` the
    continuous extension ``r = (mu + eps)/(1 + eps)`` with ``kl(mu, mu*) = inf``.
    ``x_start`` (optional, broadcastable) is a point at or below the root ``r - mu``, e.g.
    the root at a smaller eps (``r`` increases with eps); Newton then starts there.
    """
    mu, mu_star, eps = np.broadcast_arrays(
        np.asarray(mu, dtype=np.float64),
        np.asarray(mu_star, dtype=np.float64),
        np.asarray(eps, dtype=np.float64),
    )
    shape = mu.shape
    k_out = np.full(shape, np.inf)
    d_out = np.full(shape, np.inf)
    x_out = np.full(shape, np.nan)
    zero = mu == 0
    one = (mu_star == 1) & ~zero
    gen = ~zero & ~one
    if zero.any():
        z = zero & (mu_star < 1)
        d_out[z] = -np.log1p(-mu_star[z])
    if one.any():  # continuous extension mu* -> 1 (module docstring): r = (mu + eps)/(1 + eps)
        m, e = mu[one], eps[one]
        x = (1 - m) * (e / (1 + e))
        k_out[one] = _kl_float(m + x, m, x, pc=(1 - m) - x)
        x_out[one] = x
    if gen.any():
        m, s, e = mu[gen], mu_star[gen], eps[gen]
        D = s - m
        d = _kl_float(m, s, -D)
        target = d * (e / (1 + e))
        if x_start is None:
            x = np.zeros_like(m)
        else:
            x = np.clip(np.broadcast_to(x_start, shape)[gen], 0.0, D)
        live = np.ones(m.shape, dtype=bool)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore", under="ignore"):
            for _ in range(max_iter):
                r = m + x
                rc = (1 - m) - x  # 1 - r without r's rounding
                y = D - x
                # g'(x) = logit mu* - logit r = log(mu*/r) + log1p(y/(1 - mu*)); log(mu*/r)
                # as log1p(y/r) near the root's end, as log mu* - log r where y/r may overflow
                ratio = np.where(y > r, np.log(s) - np.log(r), np.log1p(y / r))
                slope = ratio + np.log1p(y / (1 - s))
                g = _kl_float(m, r, -x, qc=rc) + x * slope - target
                new = x - g / slope
                new = np.where(new >= D, (x + D) / 2, new)  # rounding only (concavity)
                # Newton from below increases to the root; stop at g >= 0 or no progress
                live &= (g < 0) & (new > x) & np.isfinite(new)
                if not live.any():
                    break
                x = np.where(live, new, x)
            # For eps > 1 the root is near mu*, where g' is small and g's rounding (relative to
            # d) moves x; polish y = mu* - r on h(y) = kl(mu* - y, mu*) - d/(1 + eps), whose
            # rounding is relative to d/(1 + eps) (h is convex increasing, h'(y) = g'(x)).
            big = e > 1
            if big.any():
                idx = np.nonzero(big)[0]
                sb, Db, db, eb = s[idx], D[idx], d[idx], e[idx]
                y = Db - x[idx]
                for _ in range(3):
                    h = _kl_float(sb - y, sb, -y, pc=(1 - sb) + y) - db / (1 + eb)
                    sl = np.log1p(y / (sb - y)) + np.log1p(y / (1 - sb))
                    y_new = y - h / sl
                    ok = np.isfinite(y_new) & (y_new > 0) & (y_new < Db)
                    y = np.where(ok, y_new, y)
                x[idx] = Db - y
            k_out[gen] = _kl_float(m + x, m, x, pc=(1 - m) - x)
        d_out[gen] = d
        x_out[gen] = x
    return k_out, d_out, x_out


def _c2_beta(k, d, eps, mu):
    """``C_2 = 1/(1 - exp(-k))`` and ``beta = (1 + eps) k / d`` with the edge rules (S4)."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        C2 = -1.0 / np.expm1(-k)  # k = inf (mu = 0): 1
        beta = np.where(mu == 0, np.inf, (1 + eps) * k / d)  # d = inf (mu* = 1): 0
    return C2, beta


def _tail_constants_float(mu, mu_star, eps, x_start=None):
    """(C2, beta, x = r - mu) for validated float arrays (see :func:`_tail_kl_float`)."""
    k, d, x = _tail_kl_float(mu, mu_star, eps, x_start=x_start)
    C2, beta = _c2_beta(k, d, eps, np.broadcast_to(np.asarray(mu, dtype=np.float64), k.shape))
    return C2, beta, x


def klucb_tail_constants_array(mu, mu_star, eps):
    """``(C_2, beta)`` of :func:`klucb_tail_constants` for arrays of pairs, in float64.

    The same quantities (steps S2-S4 of the module docstring), computed without mpmath:
    ``r`` by Newton's method on ``g`` (module docstring, Precision) from ``x = 0`` in
    float64, ``kl`` in a cancellation-free form (``q phi((p - q)/q)``, ``phi`` by its
    series near 0). Accuracy: relative error below 1e-12 against the 50-digit values
    for ``eps`` in ``[1e-6, 1e3]`` and pairs in ``[0, 1]`` (tested); about 1000 times
    faster than the mpmath path. An ``eps`` so small that ``C_2`` exceeds the float64 range
    is refused with a ValueError naming it, as by :func:`klucb_tail_constants`.

    Parameters
    ----------
    mu, mu_star, eps : array_like, broadcast together
        ``0 <= mu < mu_star <= 1``, ``eps > 0`` finite.

    Returns
    -------
    (C2, beta) : two ndarrays of the broadcast shape (same edge rules as the scalar form).
    """
    mu = V.probabilities("mu", mu)
    mu_star = V.probabilities("mu_star", mu_star)
    eps = V.as_float_array("eps", eps)
    if (eps <= 0).any() or not np.isfinite(eps).all():
        raise ValueError("eps must hold finite numbers > 0")
    try:
        b_mu, b_ms, b_eps = np.broadcast_arrays(mu, mu_star, eps)
    except ValueError:
        raise ValueError(
            f"mu, mu_star and eps must broadcast together; got shapes {mu.shape}, "
            f"{mu_star.shape}, {eps.shape}"
        ) from None
    if not (b_mu < b_ms).all():
        raise ValueError("mu (suboptimal mean) must be < mu_star (optimal mean) in every pair")
    C2, beta, _ = _tail_constants_float(b_mu, b_ms, b_eps)
    _finite_c2(C2, b_eps)
    return C2, beta


def klucb_tail_root(mu, mu_star, eps) -> float:
    """``r`` in ``(mu, mu*)``, ``kl(r, mu*) = kl(mu, mu*)/(1+eps)`` (step S2); also for mu = 0."""
    mu, mu_star, eps = _check_pair(mu, mu_star, eps)
    return float(klucb_tail_constants_mp(mu, mu_star, eps, dps=30)["r"])


def _check_n(n):
    return V.horizon("n", n)


def klucb_tail_bound(mu, mu_star, eps, n) -> float:
    """``C_2 / n^beta`` for one pair (the right-hand side of step S4)."""
    n = _check_n(n)
    C2, beta = klucb_tail_constants(mu, mu_star, eps)
    if beta == math.inf:
        return C2 if n == 1 else 0.0
    return C2 * math.exp(-beta * math.log(n))


def _tau(mu, mu_star, eps, n, c):
    f = klucb_threshold(n, c)
    d = float(kl_mp(mu, mu_star))
    return (1 + eps) * f / d, f


def klucb_tail_chernoff_sum(mu, mu_star, eps, n, c=3.0) -> float:
    """``sum_{s > tau} exp(-s kl(r, mu))`` in closed form (the left side of step S4).

    ``tau = (1 + eps)(log n + c log log n)/kl(mu, mu*)`` with the small-t rule.
    """
    mu, mu_star, eps = _check_pair(mu, mu_star, eps)
    n = _check_n(n)
    c = V.positive_real("c", c, allow_zero=True)
    cst = klucb_tail_constants_mp(mu, mu_star, eps, dps=30)
    dr = cst["kl_r_mu"]
    if dr == mpmath.inf:
        return 0.0
    tau, _ = _tau(mu, mu_star, eps, n, c)
    S = math.floor(tau) + 1
    with mpmath.workdps(30):
        out = float(mpmath.exp(-S * dr) / -mpmath.expm1(-dr))
    if not math.isfinite(out):
        raise ValueError(
            f"eps = {eps:g} makes the sum exceed the float64 range (it grows like 1/eps^2 as "
            "eps -> 0); use a larger eps"
        )
    return out


#: largest first index s0 of the exact binomial-tail sums (their index arrays are int64)
_MAX_S0 = 2**53


def _start(tau, eps, c, n):
    """The first s of a sum over s > tau; a ValueError naming eps, c and n if tau is too large."""
    if not tau < _MAX_S0:
        raise ValueError(
            f"eps = {eps:g}, c = {c:g} and n = {n} put tau = (1 + eps)(log n + c log log n) / "
            "kl(mu, mu*) at or above 2^53, beyond the exact sum's index range; use a smaller "
            "eps, c or n"
        )
    return math.floor(tau) + 1


def _rate(dr, eps):
    """``kl(r, mu)`` in float64, > 0: a ValueError naming eps where it underflows."""
    if not dr > 0:
        raise ValueError(
            f"eps = {eps:g} makes kl(r, mu) (about eps^2) underflow float64: the series "
            "would not converge; use a larger eps"
        )
    return dr


def _sum_until(term_block, tail_after, s0, rel_tol, max_s):
    """Sum term_block(s array) for s = s0, s0+1, ... until tail_after(s_last) <= rel_tol * total."""
    total, s, block = 0.0, s0, 256
    while True:
        ss = np.arange(s, s + block, dtype=np.int64)
        total += float(np.sum(term_block(ss)))
        s += block
        tail = tail_after(s - 1)
        if tail <= rel_tol * total or tail < 1e-300:
            return total, tail
        if s > max_s:
            raise ValueError(f"series did not converge by s = {max_s}; choose a larger eps or n")
        block = min(2 * block, 1 << 16)


def klucb_tail_event_sum(mu, mu_star, eps, n, c=3.0, rel_tol=1e-14):
    """``sum_{s > tau} P(w_hat_s > r)`` exactly (binomial tails): the middle of steps S2-S3.

    Returns
    -------
    (lower, upper) : truncated sum, and it plus a Chernoff bound on the omitted tail.
    """
    mu, mu_star, eps = _check_pair(mu, mu_star, eps)
    n = _check_n(n)
    c = V.positive_real("c", c, allow_zero=True)
    rel_tol = V.positive_real("rel_tol", rel_tol)
    if mu == 0:
        return 0.0, 0.0
    cst = klucb_tail_constants_mp(mu, mu_star, eps, dps=30)
    r, dr = float(cst["r"]), _rate(float(cst["kl_r_mu"]), eps)
    tau, _ = _tau(mu, mu_star, eps, n, c)
    s0 = _start(tau, eps, c, n)

    def terms(ss):
        from scipy import stats  # imported on use: about 1 s of start-up otherwise

        return stats.binom.sf(np.floor(ss * r), ss, mu)  # P(k > s r)

    def tail(s):
        return math.exp(-(s + 1) * dr) / -math.expm1(-dr)

    low, t = _sum_until(terms, tail, s0, rel_tol, max(10**8, s0 + 10**8))
    return low, low + t


def _kmin(ss, mu_star, f):
    """Smallest k in [0, s] with k/s >= mu* or s kl(k/s, mu*) <= f (vectorised bisection over k)."""
    lo = np.full(ss.shape, -1, dtype=np.int64)  # predicate false (sentinel)
    hi = ss.copy()  # predicate true at k = s
    while np.any(hi - lo > 1):
        mid = (lo + hi) // 2
        mid = np.where(hi - lo > 1, mid, hi)
        x = mid / ss
        with np.errstate(invalid="ignore"):
            ok = (x >= mu_star) | (ss * kl(np.minimum(x, 1.0), np.full(x.shape, mu_star)) <= f)
        ok = ok & (mid >= 0)
        hi = np.where((hi - lo > 1) & ok, mid, hi)
        lo = np.where((hi - lo > 1) & ~ok, mid, lo)
    return hi


def klucb_tail_expected_bad_rounds(mu, mu_star, eps, n, c=3.0, rel_tol=1e-14):
    """``E[M_n] = sum_{s > tau} P(s kl+(w_hat_s, mu*) <= log n + c log log n)`` exactly (step S1).

    ``M_n`` bounds the number of rounds in ``{T_{t-1}(e) > tau, not E_t, G_{e,e*,t}}`` up to n,
    the quantity that Theorem 3's proof bounds by ``C_2/n^beta``. Each term is a binomial tail
    ``P(Bin(s, mu) >= k_min(s))``; the boundary ``k_min`` is decided in double precision.

    Returns
    -------
    (lower, upper) : the truncated sum, and it plus a Chernoff bound on the omitted tail
    (``P(w_hat_s >= q) <= exp(-s kl(q, mu))``, ``q`` below the event's boundary for all later s).
    """
    mu, mu_star, eps = _check_pair(mu, mu_star, eps)
    n = _check_n(n)
    c = V.positive_real("c", c, allow_zero=True)
    rel_tol = V.positive_real("rel_tol", rel_tol)
    if mu == 0:
        return 0.0, 0.0
    tau, f = _tau(mu, mu_star, eps, n, c)
    s0 = _start(tau, eps, c, n)
    last = {}

    def terms(ss):
        km = _kmin(ss, mu_star, f)
        # strictly below the boundary at the last s of the block
        last["q"] = max(0.0, (int(km[-1]) - 1) / int(ss[-1]))
        from scipy import stats

        return stats.binom.sf(km - 1, ss, mu)

    def tail(s):
        q = last["q"]  # the boundary q_s increases with s (f/s decreases)
        if q <= mu:
            return math.inf
        k = float(kl(q, mu))
        return math.exp(-(s + 1) * k) / -math.expm1(-k)

    low, t = _sum_until(terms, tail, s0, rel_tol, max(10**8, s0 + 10**8))
    return low, low + t


# --------------------------------------------------------------------------
# 7 K log log n
# --------------------------------------------------------------------------


def theorem10_bound(t, c=3.0):
    """[GC] Theorem 10 at step t: ``min(1, e max(1, ceil(delta log t)) e^-delta)``.

    ``delta = log t + c log log t`` (small-t rule). Bounds ``P(mu* > U_t(e*))`` for one optimal
    item at step t (``T_{t-1}(e*) <= t``). Rule (I5): the ceiling is at least 1 and the result at
    most 1. The ceiling is taken of ``x (1 + 1e-12)`` so that rounding never lowers it
    (conservative by one unit at most, when ``x`` is within 1e-12 of an integer).

    Parameters
    ----------
    t : array_like of float >= 1
    c : float >= 0

    Returns
    -------
    ndarray or float, shape of t.
    """
    t = V.as_float_array("t", t)
    if (t < 1).any() or np.isinf(t).any():
        raise ValueError("t must be finite and >= 1")
    return _theorem10(t, V.positive_real("c", c, allow_zero=True))


def _theorem10(t, c):
    if np.ndim(t) == 1 and t.size >= 1024:
        big = t > math.e
        if big.any():  # the bulk of a long sum: the same operations, fewer passes
            out = np.empty(t.shape)
            small = ~big
            if small.any():
                out[small] = _theorem10_general(t[small], c)
            out[big] = _theorem10_large(t[big] if small.any() else t, c)
            return out
    return _theorem10_general(t, c)


#: elements of :func:`_theorem10_large`'s blocks: its temporaries (4 arrays of 256 KiB) stay in
#: the CPU's cache, where a whole 2**20-term chunk of ``F(n)`` streamed 8 MiB through memory on
#: each of its ten passes (a chunk 17 ms, 7 ms in blocks; F(1e7) sums ten chunks)
_T10_BLOCK = BLOCK


def _theorem10_large(t, c):
    """:func:`_theorem10_general` for an array of ``t > e`` (bit-identical: there the
    ``where``/``maximum`` guards are identities and ``ceil(delta log t) >= 1``).

    Evaluated in blocks of :data:`_T10_BLOCK` elements: each term is the same elementwise
    operations on the same value wherever its block starts (tests/bounds/test_theorem3_curve.py
    compares with one pass over the whole array), so the array, and any sum of it, is the same.
    """
    if t.size <= _T10_BLOCK:
        return _theorem10_block(t, c)
    out = np.empty(t.shape)
    for i in range(0, t.size, _T10_BLOCK):
        _theorem10_block(t[i : i + _T10_BLOCK], c, out[i : i + _T10_BLOCK])
    return out


def _theorem10_block(t, c, out=None):
    """One block of :func:`_theorem10_large` (into ``out`` if given)."""
    lt = np.log(t)
    delta = np.log(lt)
    delta *= c
    delta += lt
    k = delta * lt
    k *= 1 + 1e-12
    np.ceil(k, out=k)
    np.negative(delta, out=delta)
    np.exp(delta, out=delta)
    k *= math.e
    k *= delta
    return np.minimum(k, 1.0, out=k if out is None else out)


def _theorem10_general(t, c):
    lt = np.where(t > 1, np.log(np.maximum(t, 1.0)), 0.0)
    llt = np.where(t > math.e, np.log(np.log(np.maximum(t, math.e))), 0.0)
    delta = lt + c * llt
    k = np.maximum(np.ceil(delta * lt * (1 + 1e-12)), 1.0)
    out = np.minimum(1.0, math.e * k * np.exp(-delta))
    return float(out) if out.ndim == 0 else out


_EXACT_LIMIT = 10**7
_CHUNK = 1 << 20


@lru_cache(maxsize=256)
def _F_exact(n, c):
    total, start = 0.0, 1
    while start <= n:
        stop = min(n, start + _CHUNK - 1)
        total += _chunk_sum(start, stop, c)
        start = stop + 1
    return total


@lru_cache(maxsize=1024)
def _chunk_sum(start, stop, c):
    """``sum_{t=start}^{stop}`` of Theorem 10's terms (one chunk; shared by the sums above)."""
    if start < 3 or stop - start < 1024:
        return float(np.sum(_theorem10(np.arange(start, stop + 1, dtype=np.float64), c)))
    # every t > e: the terms of _theorem10_large, each block's t made where it is used (the
    # same values as the chunk's arange), summed as one array (the same pairwise sum)
    return float(np.sum(arange_blocks(start, stop, lambda t: _theorem10_block(t, c))))


def _tail_integral(m, n, c):
    """Upper bound on sum_{t=m+1}^n of the Theorem 10 terms, m >= 1e7 (terms decrease there).

    Uses ceil(x) <= x + 1: term <= e[(log t)^(2-c) + c loglog t (log t)^(1-c) + (log t)^(-c)]/t, and
    sum_{t=m+1}^n g(t) <= int_m^n g for decreasing g; in u = log x the integrand is smooth.
    """
    u0, u1 = math.log(m), math.log(n)
    if c == 3.0:  # closed form
        val = (
            math.log(u1 / u0)
            + 3 * ((math.log(u0) + 1) / u0 - (math.log(u1) + 1) / u1)
            + (u0**-2 - u1**-2) / 2
        )
    else:

        def g(u):
            return u ** (2 - c) + c * math.log(u) * u ** (1 - c) + u ** (-c)

        # imported here: scipy.integrate loads scipy.optimize (0.16 s), which nothing else
        # that imports this module needs (e.g. `cascading verify` before its fork)
        from scipy import integrate

        val, err = integrate.quad(g, u0, u1, epsabs=0, epsrel=1e-12, limit=200)
        val += 10 * err
    return math.e * val * (1 + 1e-9)


def klucb_loglog_term(n, c=3.0) -> float:
    """Valid bound on ``sum_{t=1}^n P(mu* > U_t(e*))`` for one optimal item: ``F(n)`` of (I6).

    ``F(n) = sum_{t=1}^n theorem10_bound(t, c)``; the first term of Theorem 3's decomposition
    (``E[sum_t 1{E_t} R_t]``) is at most ``K F(n)``. The paper uses ``7 K log log n`` instead,
    which is valid only for n >= 48 (:func:`klucb_loglog_valid_from`). Exact summation for
    ``n <= 1e7``; beyond, ``F(1e7)`` plus a rigorous integral bound on the rest.

    Parameters
    ----------
    n : int >= 1
        Horizon.
    c : float >= 0
        The constant of ``log t + c log log t`` (3 in the paper).
    """
    n = _check_n(n)
    c = V.positive_real("c", c, allow_zero=True)
    if n <= _EXACT_LIMIT:
        return _F_exact(n, float(c))
    return _F_exact(_EXACT_LIMIT, float(c)) + _tail_integral(_EXACT_LIMIT, n, float(c))


def _loglog_terms(ns, c):
    """``F(n)`` for an array of validated integer horizons (float array), one pass over t.

    Sums the same chunks in the same order as :func:`klucb_loglog_term` (bit-identical
    results), but evaluates Theorem 10's terms once for all horizons.
    """
    ns = np.asarray(ns, dtype=np.float64)
    out = np.empty(ns.shape)
    flat = ns.ravel()
    res = out.reshape(-1)
    small = flat <= _EXACT_LIMIT
    top = int(flat[small].max()) if small.any() else 0
    order = np.argsort(flat, kind="stable")
    pos, acc, start = 0, 0.0, 1
    while start <= top:
        stop = min(top, start + _CHUNK - 1)
        terms = _theorem10(np.arange(start, stop + 1, dtype=np.float64), c)
        while pos < order.size and flat[order[pos]] <= min(stop, _EXACT_LIMIT):
            m = int(flat[order[pos]])
            res[order[pos]] = acc + float(np.sum(terms[: m - start + 1])) if m >= start else acc
            pos += 1
        acc += float(np.sum(terms))
        start = stop + 1
    # beyond the exact range: F(1e7) once per c (cached, the same chunk sums in the same order)
    for i in np.nonzero(~small)[0]:
        res[i] = _F_exact(_EXACT_LIMIT, c) + _tail_integral(_EXACT_LIMIT, int(flat[i]), c)
    return out


def klucb_loglog_constant(n, c=3.0) -> float:
    """``F(n) / log log n``: the constant that makes ``const * K log log n`` valid at horizon n.

    Compare with :data:`GC_LOGLOG_CONSTANT` = 7; ``inf`` when ``log log n <= 0`` (n <= 2), where no
    constant works because ``F(n) >= 1``. Tends to ``e`` as n grows (for c = 3).
    """
    n = _check_n(n)
    ll = math.log(math.log(n)) if n > math.e else 0.0
    if ll <= 0:
        return math.inf
    return klucb_loglog_term(n, c) / ll


def klucb_loglog_valid_from(constant=float(GC_LOGLOG_CONSTANT)) -> int:
    """Smallest n0 with ``F(m) <= constant * log log m`` for every m >= n0 (c = 3).

    Proof for every m: exact check of all m <= 1e7, and for m > 1e7
    ``F(m) <= F(1e7) + e(loglog m - loglog 1e7) + e R`` (from :func:`_tail_integral`), whose excess
    over ``constant * loglog m`` decreases in m when ``constant > e``; it is checked at m = 1e7.
    Returns 48 for the paper's constant 7.
    """
    constant = V.positive_real("constant", constant)
    if constant <= math.e:
        raise ValueError(f"constant must be > e (the limit of F(n)/log log n), got {constant}")
    return _valid_from(constant)


@lru_cache(maxsize=8)
def _valid_from(constant):
    m = _EXACT_LIMIT
    u0 = math.log(m)
    R = 3 * (math.log(u0) + 1) / u0 + u0**-2 / 2
    excess = _F_exact(m, 3.0) - math.e * math.log(u0) + math.e * R * (1 + 1e-9)
    if excess > (constant - math.e) * math.log(u0):
        raise ValueError(f"constant {constant} too small to certify beyond n = {m}")
    # F increases: F(m') <= F(1e7) <= constant log log 3 <= constant log log m' for 3 <= m' <= 1e7,
    # while F > 0 = log log m' at m' = 1, 2; the scan below would give 3 (margin for its sums)
    if _F_exact(m, 3.0) * (1 + 1e-9) < constant * float(np.log(np.log(3.0))):
        return 3
    last_bad, start = 0, 1
    acc = 0.0
    while start <= m:
        stop = min(m, start + _CHUNK - 1)
        # F increases and log log t too: no t of the chunk is bad if F at its end is below
        # the bound at its start (then only the chunk's sum is needed, as for F(1e7))
        s = _chunk_sum(start, stop, 3.0)
        if start > math.e and acc + s <= constant * math.log(math.log(start)):
            acc += s
            start = stop + 1
            continue
        t = np.arange(start, stop + 1, dtype=np.float64)
        F = acc + np.cumsum(_theorem10(t, 3.0))
        acc = float(F[-1])
        ll = np.where(t > math.e, np.log(np.log(np.maximum(t, math.e))), 0.0)
        bad = np.nonzero(F > constant * ll)[0]
        if bad.size:
            last_bad = int(t[bad[-1]])
        start = stop + 1
    return last_bad + 1
