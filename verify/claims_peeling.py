"""Claims: Lemma 2 (KL peeling), each step of its proof, and the UCB1 peeling lemma.

Lemma 2 (Appendix B): for ``p_1 >= ... >= p_K > p`` and ``Delta_k = p_k - p``,

    Delta_1/kl(p,p_1) + sum_{k>=2} Delta_k (1/kl(p,p_k) - 1/kl(p,p_{k-1}))
        <= Delta_K (1 + log(1/Delta_K)) / kl(p, p_K).

Its proof: (a) summation by parts; (b) the sum is a lower Riemann sum of
``1/kl(p, p+x)`` because that function decreases in x; (c) the chord bound
``kl(p, p+x) >= kl(p, p+Delta_K) x / Delta_K`` for ``x >= Delta_K`` by
convexity; (d) the integral of ``1/x``. The UCB1 peeling lemma (Lemma 3 of
Kveton et al. 2014, "Matroid bandits") is the analogue with ``Delta^2`` in
place of kl and constant 2.
"""

from __future__ import annotations

import functools

import mpmath
from mpmath.libmp import mpf_add, mpf_rdiv_int

from cascading_bandits.bounds._rawmp import kl_mpf
from cascading_bandits.bounds.peeling import (
    lemma2_lhs,
    lemma2_rhs,
    ucb1_peeling_lhs,
    ucb1_peeling_rhs,
)
from cascading_bandits.verify import strategies as S
from cascading_bandits.verify.checks import SlackTracker, certificate_outcome
from cascading_bandits.verify.registry import claim
from cascading_bandits.verify.verdict import FAILS, HOLDS, INTERVAL, SAMPLING, SYMBOLIC, Outcome


def kl_sym(p, q):
    """Bernoulli KL as a sympy expression (0 < p, q < 1)."""
    import sympy  # imported when used: after run_all forks, not before

    return p * sympy.log(p / q) + (1 - p) * sympy.log((1 - p) / (1 - q))


# --------------------------------------------------------------------------
# (a) summation by parts
# --------------------------------------------------------------------------


def _rational_field(names):
    """sympy's field of rational functions over QQ in the symbols ``names`` and its
    generators. Its elements are kept as numerator / denominator reduced to lowest terms
    (polynomial gcd), so an element is 0 exactly when the rational function is identically
    0: the decision ``sympy.cancel`` makes on an expression, without building and
    re-parsing expression trees (7x faster on the identities below)."""
    from sympy import QQ  # imported when used: after run_all forks, not before
    from sympy.polys.fields import field

    return field(",".join(names), QQ)


def lemma2_rewrite_identity(K):
    """sympy: LHS of Lemma 2 minus its rewritten form, with kl values as free symbols, in
    the field of rational functions of them (:func:`_rational_field`): 0 iff the identity
    holds for every value of the symbols."""
    names = [f"Delta{i}" for i in range(1, K + 1)] + [f"k{i}" for i in range(1, K + 1)]
    F, *g = _rational_field(names)
    d, k = g[:K], g[K:]
    lhs = d[0] / k[0] + sum((d[i] * (1 / k[i] - 1 / k[i - 1]) for i in range(1, K)), F.zero)
    rew = sum(((d[i] - d[i + 1]) / k[i] for i in range(K - 1)), F.zero) + d[K - 1] / k[K - 1]
    return lhs - rew


@claim(
    "lemma2.rewrite",
    "Appendix B, proof of Lemma 2, first display",
    "Delta_1/kl_1 + sum_{k>=2} Delta_k (1/kl_k - 1/kl_{k-1}) = "
    "sum_{k<K} (Delta_k - Delta_{k+1})/kl_k "
    "+ Delta_K/kl_K (summation by parts)",
    premises=("kl_k > 0",),
    method=SYMBOLIC,
)
def _lemma2_rewrite(ctx):
    Ks = list(range(1, 9))
    ok = all(lemma2_rewrite_identity(K) == 0 for K in Ks)
    # cross-check bounds.peeling's two forms at random points (50 digits)
    tr = SlackTracker()
    with mpmath.workdps(50):
        for _ in range(ctx.examples):
            p, qs = S.draw_lemma2(ctx.rng)
            a = lemma2_lhs(mpmath.mpf(p), [mpmath.mpf(q) for q in qs])
            from cascading_bandits.bounds.peeling import lemma2_rewritten

            b = lemma2_rewritten(mpmath.mpf(p), [mpmath.mpf(q) for q in qs])
            tr.add(-abs(a - b) / max(abs(a), 1), {"p": p, "p_opt": qs}, tol=1e-40)
    status = HOLDS if ok and tr.status == HOLDS else FAILS
    return Outcome(
        status=status,
        method=SYMBOLIC,
        domain="K = 1..8, Delta_k and kl_k free positive symbols",
        domain_spec={"K": Ks},
        instances=len(Ks),
        min_slack=0.0,
        notes="sympy reduces the difference (a rational function) to 0 for each K; "
        "bounds.peeling.lemma2_lhs and lemma2_rewritten agree to 1e-40 (relative) at "
        f"{tr.n} random points (50 digits).",
        counterexample=tr.counterexample,
    )


# --------------------------------------------------------------------------
# (b) monotonicity of 1/kl(p, p+x)
# --------------------------------------------------------------------------


@functools.cache
def kl_shift_derivatives():
    """(k', k'') of ``k(x) = kl(p, p+x)`` and their closed forms' differences (should be 0).

    The derivatives of the logarithms are rational in (p, x), so ``sympy.cancel`` decides
    the identities exactly (0 iff identically 0). Cached: two claims use them.
    """
    import sympy  # imported when used: after run_all forks, not before

    _p, _x = sympy.symbols("p x", positive=True)
    k = kl_sym(_p, _p + _x)
    d1 = sympy.diff(k, _x)
    d2 = sympy.diff(k, _x, 2)
    r1 = sympy.cancel(d1 - _x / ((_p + _x) * (1 - _p - _x)))
    r2 = sympy.cancel(d2 - (_p * (1 - _p) + _x**2) / ((_p + _x) ** 2 * (1 - _p - _x) ** 2))
    return r1, r2


@claim(
    "lemma2.monotone",
    "Appendix B, proof of Lemma 2 ('1/kl(p, p+x) decreases on x >= 0')",
    "x -> 1/kl(p, p+x) is decreasing on 0 < x < 1 - p",
    premises=("0 < p < 1", "0 < x < 1 - p"),
    method=SYMBOLIC,
)
def _lemma2_monotone(ctx):
    r1, _ = kl_shift_derivatives()
    ok = r1 == 0
    return Outcome(
        status=HOLDS if ok else FAILS,
        method=SYMBOLIC,
        domain="0 < p < 1, 0 < x < 1 - p (and p = 0: k(x) = -log(1 - x))",
        domain_spec={"p": [0, 1], "x": [0, "1-p"]},
        instances=1,
        min_slack=0.0,
        notes="sympy: d/dx kl(p, p+x) = x / ((p + x)(1 - p - x)) > 0 on the domain, so kl(p, p+x) "
        "increases from kl(p, p) = 0 and its reciprocal decreases. Slack 0: the derivative "
        "vanishes at x = 0.",
    )


# --------------------------------------------------------------------------
# (c) chord bound from convexity
# --------------------------------------------------------------------------


@claim(
    "lemma2.chord",
    "Appendix B, proof of Lemma 2 ('kl(p, p+x) >= kl(p, p+Delta_K)/Delta_K x for x >= Delta_K')",
    "kl(p, p+x) >= kl(p, p+Delta)/Delta * x for 0 < Delta <= x <= 1 - p",
    premises=("x >= Delta", "x <= 1 - p"),
    method=SYMBOLIC,
)
def _lemma2_chord(ctx):
    _, r2 = kl_shift_derivatives()
    ok = r2 == 0
    tr = SlackTracker()
    with mpmath.workdps(50):
        for _ in range(ctx.examples):
            p = S._mixed_unit(ctx.rng)
            d = (1 - p) * S._mixed_unit(ctx.rng)
            x = d + (1 - p - d) * ctx.rng.random()
            P, D, X = mpmath.mpf(p), mpmath.mpf(d), mpmath.mpf(x)
            kx = mpmath.mpf(0) if X == 0 else _kl_mp(P, P + X)
            tr.add(kx - _kl_mp(P, P + D) / D * X, {"p": p, "Delta": d, "x": x})
    return Outcome(
        status=HOLDS if ok and tr.status == HOLDS else FAILS,
        method=SYMBOLIC,
        domain="0 <= p < 1, 0 < Delta <= x <= 1 - p",
        domain_spec={"p": [0, 1], "Delta": [0, "1-p"], "x": ["Delta", "1-p"]},
        instances=1,
        min_slack=0.0,
        argmin={"x": "Delta"},
        counterexample=tr.counterexample,
        notes="sympy: d^2/dx^2 kl(p, p+x) = (p(1-p) + x^2) / ((p+x)^2 (1-p-x)^2) > 0, so k(x) = "
        "kl(p, p+x) is convex with k(0) = 0, hence k(x)/x is nondecreasing: the chord bound. "
        "Tight (slack 0) at x = Delta. The paper also needs x <= 1 - p (kl(p, q) is undefined "
        f"for q > 1). Cross-check: {tr.n} random points in 50 digits, smallest slack "
        f"{tr.min_slack:.3g}.",
    )


def _kl_mp(p, q):
    from cascading_bandits.bounds.kl import kl_mp

    return kl_mp(p, q)


# --------------------------------------------------------------------------
# (c') the integral bound
# --------------------------------------------------------------------------


def integral_slack(p, dK, d1):
    """``Delta_K/kl(p,p+Delta_K) log(Delta_1/Delta_K) - int_{Delta_K}^{Delta_1} dx / kl(p, p+x)``.

    Returns (slack, quadrature error estimate), 50 digits.
    """
    val, err, bound = _chord_integral(p, dK, d1)
    with mpmath.workdps(50):
        return bound - val, err


def _chord_integral(p, dK, d1):
    """``(int_{Delta_K}^{Delta_1} dx/kl(p, p+x), its error estimate, the chord bound
    Delta_K/kl(p, p+Delta_K) log(Delta_1/Delta_K))`` at 50 digits (one quadrature)."""
    with mpmath.workdps(50):
        p, dK, d1 = mpmath.mpf(p), mpmath.mpf(dK), mpmath.mpf(d1)
        # bounds.kl's unchecked core (the arithmetic of kl_mp, same values): the quadrature
        # nodes lie inside [Delta_K, Delta_1], so p + x stays in (p, 1) and the checks and
        # conversions of kl_mp, most of a 50-digit evaluation's cost, are not needed; and
        # that arithmetic on mpmath's raw numbers (bounds._rawmp: the same operations, the
        # same bits, 2.5x faster), at the working precision quad sets (50 digits + 20 bits)
        mp, pr = mpmath.mp, p._mpf_

        def f(x):
            prec = mp.prec
            k = kl_mpf(pr, mpf_add(pr, x._mpf_, prec, "n"), prec)
            return mp.make_mpf(mpf_rdiv_int(1, k, prec, "n"))  # 1 / kl, as mpf.__rdiv__

        val, err = mpmath.quad(f, [dK, (dK + d1) / 2, d1], error=True, maxdegree=10)
        bound = dK / _kl_mp(p, p + dK) * mpmath.log(d1 / dK)
        return val, err, bound


@claim(
    "lemma2.integral",
    "Appendix B, proof of Lemma 2 (the two integral inequalities)",
    "sum_{k<K} (Delta_k - Delta_{k+1})/kl(p, p+Delta_k) <= int_{Delta_K}^{Delta_1} dx/kl(p, p+x) "
    "<= Delta_K log(Delta_1/Delta_K)/kl(p, p_K) <= Delta_K log(1/Delta_K)/kl(p, p_K)",
    premises=("p_1 >= ... >= p_K > p", "Delta_1 <= 1 - p"),
    method=SAMPLING,
    amended="the paper integrates up to 1, where kl(p, p+x) is undefined for x > 1 - p; the proof "
    "needs only the integral up to Delta_1 <= 1 - p (caveat lemma2-integral-range)",
)
def _lemma2_integral(ctx):
    tr_sum, tr_int = SlackTracker(), SlackTracker()
    # one 50-digit quadrature per instance (the run's costliest check): the pinned hard cases
    # and a fifth of the examples by default, half of them from budget 2
    n = max(10, ctx.examples // (2 if ctx.budget >= 2 else 5))
    with mpmath.workdps(50):
        for i in range(n):
            p, qs = S.draw_lemma2(ctx.rng) if i >= len(S.HARD_LEMMA2) else S.HARD_LEMMA2[i]
            if qs[0] >= 1.0:
                qs = [min(q, 1 - 1e-9) for q in qs]
                qs = [q if q > p else p + (1 - p) / 2 for q in qs]
            P = mpmath.mpf(p)
            d = [mpmath.mpf(q) - P for q in qs]
            if not d[-1] > 0 or not d[0] > d[-1]:
                continue  # K = 1 or equal gaps: both sides are 0
            riem = sum((d[k] - d[k + 1]) / _kl_mp(P, P + d[k]) for k in range(len(d) - 1))
            # one quadrature serves both steps (it was computed twice, the run's costliest part)
            integral, err, bound = _chord_integral(P, d[-1], d[0])
            slack = bound - integral
            inst = {"p": p, "p_opt": qs}
            tr_sum.add(integral - riem, inst, tol=1e-30)
            tr_int.add(slack, inst, tol=float(err) + 1e-30)
    status = HOLDS if tr_sum.status == HOLDS and tr_int.status == HOLDS else FAILS
    cex = tr_sum.counterexample or tr_int.counterexample
    return Outcome(
        status=status,
        method=SAMPLING,
        domain="random p, p_1 >= ... >= p_K > p with p_1 < 1, K <= 8 (50-digit quadrature)",
        domain_spec={"K": [1, 8], "digits": 50},
        instances=tr_int.n,
        min_slack=min(tr_sum.min_slack, tr_int.min_slack),
        argmin=tr_int.argmin if tr_int.min_slack <= tr_sum.min_slack else tr_sum.argmin,
        counterexample=cex,
        notes=f"Riemann-sum step: smallest slack {tr_sum.min_slack:.3g}; chord-integral step: "
        f"smallest slack {tr_int.min_slack:.3g} (each compared with mpmath.quad's error "
        "estimate). Both steps also follow symbolically from lemma2.monotone and "
        "lemma2.chord; the last step uses Delta_1 <= 1 - p <= 1.",
    )


# --------------------------------------------------------------------------
# Lemma 2 itself
# --------------------------------------------------------------------------


@claim(
    "lemma2",
    "Appendix B, Lemma 2 (used in the proof of Theorem 3)",
    "Delta_1/kl(p,p_1) + sum_{k>=2} Delta_k (1/kl(p,p_k) - 1/kl(p,p_{k-1})) "
    "<= Delta_K (1 + log(1/Delta_K))/kl(p,p_K) for p_1 >= ... >= p_K > p",
    premises=("p_1 >= ... >= p_K", "p_K > p"),
    method=SAMPLING,
)
def _lemma2(ctx):
    tr = SlackTracker()
    with mpmath.workdps(50):
        cases = list(S.HARD_LEMMA2) + [S.draw_lemma2(ctx.rng) for _ in range(ctx.examples)]
        for p, qs in cases:
            P = mpmath.mpf(p)
            Q = [mpmath.mpf(q) for q in qs]
            lhs = lemma2_lhs(P, Q)
            rhs = lemma2_rhs(P, Q)
            # relative slack: the sides range over many orders of magnitude
            tr.add((rhs - lhs) / rhs, {"p": p, "p_opt": qs, "rhs": float(rhs)}, tol=1e-40)
    return tr.outcome(
        SAMPLING,
        f"{len(S.HARD_LEMMA2)} pinned hard cases + random p in (0,1), K in 1..8, "
        "p_1 >= ... >= p_K in (p, 1], log-uniform near 0 and 1 (50 digits)",
        {"K": [1, 8], "digits": 50},
        notes="slack reported relative to the right side, (rhs - lhs)/rhs, evaluated with "
        "bounds.peeling.lemma2_lhs/rhs in 50-digit mpmath. For every K the lemma also follows "
        "from the checked proof steps lemma2.rewrite, lemma2.monotone, lemma2.chord, "
        "lemma2.integral; lemma2.k2 certifies K = 2 over a box. The ordering of the p_k is "
        "not needed (caveat lemma2-order).",
    )


def lemma2_normalised_slack(ctx, p, a, b):
    """``(rhs - lhs) * kl(p, p_2) / Delta_2`` of Lemma 2 for K = 2.

    Coordinates: ``Delta_2 = a (1 - p)`` and ``Delta_1 = Delta_2 + b (1 - p - Delta_2)``,
    so ``p_2 = 1 - (1 - a)(1 - p)`` and ``p_1 = 1 - (1 - b)(1 - a)(1 - p)`` (written so
    that they stay in [0, 1] in interval arithmetic). By the rewritten form
    (lemma2.rewrite) the slack is
    ``log(1/Delta_2) - (Delta_1 - Delta_2)/Delta_2 * kl(p, p_2)/kl(p, p_1)``, with
    ``(Delta_1 - Delta_2)/Delta_2 = b (1 - a)/a``: the ``Delta_2/kl_2`` terms of both sides
    cancel exactly instead of in intervals.
    """
    # 1 - p and 1 - a once each (the same operations give the same values in every context)
    one = ctx.one
    cp, ca = one - p, one - a
    d2 = a * cp
    q2 = one - ca * cp
    q1 = one - (one - b) * ca * cp
    return -ctx.log(d2) - b * ca / a * (ctx.kl(p, q2) / ctx.kl(p, q1))


def _lemma2_params(p, a, b):
    d2 = a * (1 - p)
    return {"p": p, "p_1": 1 - (1 - b) * (1 - a) * (1 - p), "p_2": p + d2}


#: box of the default run (budget < 2: half the boxes of the next one), of budgets 2 to 8,
#: and the wider box of the slow run (budget >= 8)
LEMMA2_K2_BOX_SMALL = [(0.05, 0.5), (0.1, 0.9), (0.0, 1.0)]
LEMMA2_K2_BOX = [(0.01, 0.5), (0.05, 0.95), (0.0, 1.0)]
LEMMA2_K2_BOX_WIDE = [(0.01, 0.5), (0.01, 0.99), (0.0, 1.0)]


@claim(
    "lemma2.k2",
    "Appendix B, Lemma 2 with K = 2, interval certificate",
    "Lemma 2 with K = 2 holds at every point of a box of (p, Delta_2, Delta_1)",
    premises=("p_1 >= p_2 > p",),
    method=INTERVAL,
)
def _lemma2_k2(ctx):
    wide = ctx.budget >= 8
    box = LEMMA2_K2_BOX_WIDE if wide else LEMMA2_K2_BOX if ctx.budget >= 2 else LEMMA2_K2_BOX_SMALL
    names = ("p", "a", "b")
    return certificate_outcome(
        lemma2_normalised_slack,
        names,
        box,
        max_boxes=int((40000 if wide else 4000) * min(ctx.budget, 8) / (8 if wide else 1)),
        to_params=_lemma2_params,
        domain=f"K = 2: p in [{box[0][0]:g}, {box[0][1]:g}], a = Delta_2/(1 - p) in "
        f"[{box[1][0]:g}, {box[1][1]:g}], b = (Delta_1 - Delta_2)/(1 - p - Delta_2) in [0, 1]",
        notes="slack normalised by kl(p, p_2)/Delta_2 > 0 (the Delta_2/kl_2 terms cancel exactly); "
        "kl enclosed by monotonicity from corner values. Outside the box (p -> 0 or 1, "
        "Delta_2 -> 0 or 1 - p) the enclosures of kl(p, p_2)/kl(p, p_1) need ever smaller "
        "boxes; the slow run certifies a wider box.",
    )


# --------------------------------------------------------------------------
# UCB1 peeling (Lemma 3 of Matroid bandits)
# --------------------------------------------------------------------------


def ucb1_sos_identity(K):
    """sympy: ``2 - Delta_K * bracket - [r_1 + sum_{k>=2} (r_k - r_{k-1})^2 / r_k]``.

    Here ``r_k = Delta_K/Delta_k``.

    Zero for every K: the slack of Lemma 3 (times Delta_K) is a sum of nonnegative terms.
    Computed in the field of rational functions of ``Delta_K, r_1..r_{K-1}``
    (:func:`_rational_field`): 0 iff the identity holds for every value of the symbols.
    """
    F, dK, *rs = _rational_field(["DeltaK"] + [f"r{i}" for i in range(1, K)])
    r = rs + [F.one]
    d = [dK / rk for rk in r]
    bracket = d[0] / d[0] ** 2 + sum(
        (d[k] * (1 / d[k] ** 2 - 1 / d[k - 1] ** 2) for k in range(1, K)), F.zero
    )
    sos = r[0] + sum(((r[k] - r[k - 1]) ** 2 / r[k] for k in range(1, K)), F.zero)
    return 2 - dK * bracket - sos


def ucb1_tight_constant(K):
    """``sup Delta_K * bracket`` over sorted gaps (the best constant in place of 2), numerically.

    Equals ``2 - min_{0 < r_1 <= ... <= r_{K-1} <= 1} [r_1 + sum (r_k - r_{k-1})^2 / r_k]``.
    """
    import numpy as np
    from scipy.optimize import minimize

    if K == 1:
        return 1.0

    def f(z):
        r = np.concatenate([np.cumsum(np.exp(z))[: K - 1], [0.0]])
        r = np.minimum(r, 1.0)
        r[-1] = 1.0
        return r[0] + sum((r[k] - r[k - 1]) ** 2 / r[k] for k in range(1, K))

    z0 = np.log(np.full(K - 1, 1.0 / K))
    res = minimize(
        f, z0, method="Nelder-Mead", options={"xatol": 1e-10, "fatol": 1e-12, "maxiter": 20000}
    )
    return 2.0 - float(res.fun)


@claim(
    "ucb1_peeling",
    "Appendix A, proof of Theorem 2: Lemma 3 of Kveton et al. (2014), 'Matroid bandits'",
    "Delta_1/Delta_1^2 + sum_{k>=2} Delta_k (1/Delta_k^2 - 1/Delta_{k-1}^2) <= 2/Delta_K",
    premises=("Delta_1 >= ... >= Delta_K > 0",),
    method=SYMBOLIC,
)
def _ucb1_peeling(ctx):
    Ks = list(range(1, 9))
    ok = all(ucb1_sos_identity(K) == 0 for K in Ks)
    tr = SlackTracker()
    cases = list(S.HARD_GAPS) + [S.draw_gaps_fraction(ctx.rng) for _ in range(ctx.examples)]
    for g in cases:
        slack = ucb1_peeling_rhs(g) - ucb1_peeling_lhs(g)
        tr.add(slack * g[-1], {"gaps": [str(x) for x in g]})
    status = HOLDS if ok and tr.status == HOLDS else FAILS
    best = ", ".join(f"{ucb1_tight_constant(K):.4f}" for K in range(2, 9))
    return Outcome(
        status=status,
        method=SYMBOLIC,
        domain="every K = 1..8 and all gaps > 0 (symbolic); exact Fractions at random sorted gaps",
        domain_spec={"K": Ks},
        instances=len(Ks) + tr.n,
        min_slack=tr.min_slack,
        argmin=tr.argmin,
        counterexample=tr.counterexample,
        notes="sympy identity: Delta_K (2/Delta_K - bracket) = "
        "r_1 + sum_{k>=2} (r_k - r_{k-1})^2/r_k "
        "with r_k = Delta_K/Delta_k > 0, a sum of nonnegative terms; so the lemma holds even "
        "without the ordering of the gaps (caveat ucb1-peeling-order). Slack reported as "
        "Delta_K (rhs - lhs), exact, over bounds.peeling.ucb1_peeling_lhs/rhs. The constant 2 "
        "is the supremum over K; for fixed K the best constant is smaller: "
        f"{best} for K = 2..8 (numerical minimisation of the sum-of-squares form, "
        "ucb1_tight_constant; K = 2 is 5/4 exactly).",
    )
