"""Claims: the cascading-bandit theory after the paper, as encoded in :mod:`bounds.later`.

* ``later.corollary2`` -- the gap-free corollary of Theorem 2 derived here: its proof step
  (UCB1 peeling restricted to gaps above the threshold, exact rationals) and the closed-form
  minimisation over the threshold (against a brute-force grid);
* ``later.corollary3`` -- the gap-free corollary of Theorem 3: ``kl(p, q) >= max(2,
  1/(2 max(p, q))) (q - p)^2`` at 50 digits, and Lemma 2's left side over gaps above the
  threshold ``<= min(1, 4 w(1)) / Delta_m``;
* ``later.graves_lai`` -- the Graves-Lai constant of the cascade model ([C15]'s program) equals
  ``theorem4_sharp_coefficient``: an exact primal-dual certificate over every list on random
  rational instances, and the LP solved numerically;
* ``later.graves_lai.theorem4`` -- its relation to Theorem 4: ratio
  ``prod_{j<K}(1 - w(j)) / (1 - w(1))^(K-1) >= 1``, equal to 1 iff ``w(1) = ... = w(K-1)``;
* ``later.corollary2.mc``, ``later.corollary3.mc`` -- both corollaries against simulated regret
  (the Monte-Carlo machinery of :mod:`verify.claims_montecarlo`);
* ``later.orders`` -- the orders of Vial et al. (NeurIPS 2022) and Zhong et al. (JMLR 2021)
  are consistent with each other and with the corollaries (sympy).

Sources and what could be retrieved of them: :mod:`bounds.later`.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import mpmath
import numpy as np

from cascading_bandits.bounds.instance import CascadeInstance
from cascading_bandits.bounds.kl import kl_mp
from cascading_bandits.verify import strategies as S
from cascading_bandits.verify.checks import SlackTracker
from cascading_bandits.verify.registry import claim
from cascading_bandits.verify.verdict import (
    EXACT,
    FAILS,
    HOLDS,
    MONTE_CARLO,
    SAMPLING,
    SYMBOLIC,
    Outcome,
)

_REQ = ("cascading_bandits.bounds.later",)


def _fail(out, note):
    from dataclasses import replace

    return replace(out, status=FAILS, notes=out.notes + " " + note)


# --------------------------------------------------------------------------
# Corollary 2
# --------------------------------------------------------------------------


def _draw_LKn(rng):
    L = int(rng.integers(2, 200))
    K = int(rng.integers(1, L + 1))
    n = int(np.exp(rng.uniform(math.log(2), math.log(1e9))))
    return L, K, n


@claim(
    "later.corollary2",
    "derived from Theorem 2's proof (Appendix A) in bounds.later (Corollary 2)",
    "CascadeUCB1: R(n) <= 4 sqrt(3 (L-K) min(K, L-K) n log n) + pi^2 L/3 for every instance "
    "(gap-free)",
    premises=("CascadeUCB1 as in Algorithm 1", "n >= 1"),
    method=EXACT,
    requires=_REQ,
)
def _corollary2(ctx):
    from cascading_bandits.bounds import later
    from cascading_bandits.bounds.peeling import ucb1_peeling_lhs

    tr = SlackTracker()
    for _ in range(ctx.examples * 4):
        gaps = S.draw_gaps_fraction(ctx.rng)
        th = Fraction(int(ctx.rng.integers(1, 1000)), 1000)
        kept = [g for g in gaps if g > th]
        if kept:  # 6 log n * bracket <= 12 log n / threshold, exactly
            tr.add(2 / th - ucb1_peeling_lhs(kept), {"gaps": [str(g) for g in gaps], "th": str(th)})
    worst = 0.0
    big = ctx.budget >= 2
    for _ in range(ctx.examples):
        L, K, n = _draw_LKn(ctx.rng)
        if K == L:
            continue
        best = later.theorem2_gapfree_bound(L, K, n)
        th = later.theorem2_gapfree_threshold(L, K, n)
        # brute-force grid over the threshold: spacing 0.01 in log from budget 2, 0.04 below
        grid = np.exp(np.linspace(math.log(th) - 4, math.log(th) + 4, 801 if big else 201))
        vals = np.asarray(later.theorem2_gapfree_split(L, K, n, grid))  # the grid in one call
        worst = max(worst, float((best - vals.min()) / best))
    out = tr.outcome(
        EXACT,
        "random gaps (multiples of 1/1000, K <= 8) and thresholds; random L < 200, n < 1e9",
        {"gaps": [0.001, 1], "L": [2, 200], "n": [2, 1e9]},
        notes="exact rationals: slack 2/threshold - (UCB1 peeling bracket over the gaps above "
        "the threshold), the step that makes the bound gap-free (Lemma 3 of Kveton et al. "
        f"2014 on that prefix). Closed form vs brute-force grid over the threshold: the "
        f"closed form exceeds the grid minimum by at most {max(worst, 0):.2e} relative (it "
        "must not exceed it by more than 1e-12: it is the exact minimum).",
    )
    if worst > 1e-12:
        out = _fail(out, "(closed form above a grid point: not the minimum)")
    return out


# --------------------------------------------------------------------------
# Corollary 3
# --------------------------------------------------------------------------


@claim(
    "later.corollary3",
    "derived from Theorem 3's proof (Appendix A) in bounds.later (Corollary 3)",
    "kl(p, q) >= max(2, 1/(2 max(p,q))) (q-p)^2, hence Lemma 2's left side over the gaps above "
    "theta is <= min(1, 4 w(1))/theta, giving the gap-free leading term of CascadeKL-UCB",
    premises=("0 <= p < p_K <= ... <= p_1 <= 1",),
    method=SAMPLING,
    requires=_REQ,
)
def _corollary3(ctx):
    from cascading_bandits.bounds import later
    from cascading_bandits.bounds.peeling import lemma2_lhs

    tr_kl, tr = SlackTracker(), SlackTracker()
    with mpmath.workdps(50):
        for _ in range(ctx.examples * 4):
            p, q = S._mixed_unit(ctx.rng), S._mixed_unit(ctx.rng)
            kl = kl_mp(mpmath.mpf(p), mpmath.mpf(q))
            lo = later.kl_quadratic_lower(p, q)
            tr_kl.add((kl - lo) / kl if kl > 0 else 0, {"p": p, "q": q}, tol=1e-13)
        for _ in range(ctx.examples * 2):
            p, qs = S.draw_lemma2(ctx.rng)
            lhs = lemma2_lhs(mpmath.mpf(p), [mpmath.mpf(q) for q in qs])
            rhs = later.theorem3_gapfree_weight_factor(qs[0]) / (mpmath.mpf(qs[-1]) - p)
            tr.add((rhs - lhs) / rhs, {"p": p, "p_opt": qs}, tol=1e-13)
    if tr_kl.counterexample and not tr.counterexample:
        tr.counterexample = tr_kl.counterexample
    return tr.outcome(
        SAMPLING,
        "p, q in (0, 1) mixing uniform and log-uniform near 0 and 1; Lemma 2 instances K <= 8",
        {"p": [1e-6, 1 - 1e-6], "K": [1, 8]},
        notes="relative slack 1 - lhs/rhs of the bracket bound at 50 digits (min shown); the kl "
        f"lower bound's smallest relative slack {tr_kl.min_slack:.3g} over {tr_kl.n} points. "
        "The bracket's bound applies to the prefix of optimal items with gaps above theta, "
        "whose smallest gap is Delta_m > theta.",
    )


# --------------------------------------------------------------------------
# Graves-Lai constant = theorem4_sharp_coefficient
# --------------------------------------------------------------------------


def _rational_instance(rng, L_max=6, den=20):
    while True:
        L = int(rng.integers(2, L_max + 1))
        K = int(rng.integers(1, L))
        w = sorted((int(x) / den for x in rng.integers(1, den, L)), reverse=True)
        if w[K - 1] > w[K]:
            return CascadeInstance(tuple(w), K)


@claim(
    "later.graves_lai",
    "Combes et al. (SIGMETRICS 2015): asymptotically optimal lower bound; its Graves-Lai "
    "program derived in bounds.later (Proposition)",
    "the Graves-Lai constant of the cascade model, min sum_A eta_A D(A) s.t. "
    "sum_A eta_A o_i(A) kl(w(i), w(K)) >= 1, equals prod_{j<K}(1-w(j)) sum_{i>K} "
    "Delta_{i,K}/kl(w(i), w(K)) (= theorem4_sharp_coefficient)",
    premises=("w in (0, 1)", "unique optimal set", "uniformly good algorithms"),
    method=EXACT,
    requires=_REQ,
)
def _graves_lai(ctx):
    from cascading_bandits.bounds import later

    tr = SlackTracker()
    tight_ok, worst_lp = True, 0.0
    n_inst = max(4, ctx.examples // 2)
    for j in range(n_inst):
        inst = _rational_instance(ctx.rng)
        K, L = inst.K, inst.L
        d = {"weights": list(inst.weights), "K": K}
        for a in itertools.permutations(range(L), K):  # dual feasibility, exactly
            tr.add(later.list_regret_excess(inst, a), dict(d, list=list(a)))
        for i in range(K, L):  # primal lists tight: D(A_i) = u_i and o_i(A_i) = 1
            a = (i,) + tuple(range(K - 1))
            tight_ok &= later.list_regret_excess(inst, a) == 0
        if j < 8:  # the LP itself, numerically
            lp = later.graves_lai_lp_coefficient(inst)
            closed = later.graves_lai_coefficient(inst)
            worst_lp = max(worst_lp, abs(lp - closed) / closed)
    out = tr.outcome(
        EXACT,
        "random instances L <= 6 with weights in {1/20, ..., 19/20} and a unique optimum, "
        "every ordered list",
        {"L": [2, 6], "weights": "multiples of 1/20"},
        notes="exact rationals: slack D(A) - sum_i u_i o_i(A) with u_i = alpha_sharp "
        "Delta_{i,K} (dual feasibility, >= 0 for every list) and 0 on the primal lists "
        f"(i, 1..K-1) ({'all tight' if tight_ok else 'NOT TIGHT'}): equal primal and dual values "
        "certify the LP optimum = theorem4_sharp_coefficient. HiGHS on the LP itself: max "
        f"relative difference {worst_lp:.2e} from the closed form (tolerance 1e-7).",
    )
    if not tight_ok:
        out = _fail(out, "(a primal list is not tight)")
    if worst_lp > 1e-7:
        out = _fail(out, "(LP value differs from the closed form)")
    return out


@claim(
    "later.graves_lai.theorem4",
    "Section 4.3, Theorem 4 (general-instance form in bounds.lower) vs the Graves-Lai constant",
    "Graves-Lai / theorem4_general = prod_{j<K}(1-w(j)) / (1-w(1))^(K-1) >= 1, with equality "
    "iff K = 1 or w(1) = ... = w(K-1) (every B_LB instance)",
    premises=("unique optimal set", "w(1) < 1"),
    method=EXACT,
    requires=_REQ + ("cascading_bandits.bounds.lower",),
)
def _graves_lai_theorem4(ctx):
    from cascading_bandits.bounds import later
    from cascading_bandits.bounds.instance import b_lb
    from cascading_bandits.bounds.lower import theorem4_general_coefficient

    tr = SlackTracker()
    iff_ok, worst = True, 0.0
    insts = [_rational_instance(ctx.rng, L_max=10) for _ in range(ctx.examples)]
    insts += [b_lb(*S.draw_blb(ctx.rng, L_max=20)) for _ in range(ctx.examples)]
    for inst in insts:
        s = [Fraction(float(x)) for x in inst.sorted_weights]
        num = Fraction(1)
        for x in s[: inst.K - 1]:
            num *= 1 - x
        den = (1 - s[0]) ** (inst.K - 1)
        if den == 0:
            continue
        ratio = num / den
        tr.add(ratio - 1, {"weights": [float(x) for x in s], "K": inst.K})
        equal_top = len(set(s[: inst.K - 1])) <= 1
        iff_ok &= (ratio == 1) == equal_top
        g = theorem4_general_coefficient(inst)
        if g > 0:
            worst = max(worst, abs(later.graves_lai_coefficient(inst) / g / float(ratio) - 1))
    out = tr.outcome(
        EXACT,
        "random instances L <= 10 (weights multiples of 1/20) and random B_LB(L <= 20, K <= 8)",
        {"L": [2, 20]},
        notes="exact rationals: slack ratio - 1 >= 0; equality exactly when the top K-1 weights "
        f"are equal ({'verified' if iff_ok else 'VIOLATED'}); the two coefficients' quotient "
        f"(30-digit evaluations, rounded) matches the ratio to {worst:.1e} relative (tol 1e-12).",
    )
    if not iff_ok:
        out = _fail(out, "(equality case wrong)")
    if worst > 1e-12:
        out = _fail(out, "(coefficient quotient differs from the ratio)")
    return out


# --------------------------------------------------------------------------
# orders
# --------------------------------------------------------------------------


def orders_residuals():
    """sympy facts behind ``later.orders``; each returned expression must simplify to 0 / True.

    1. ``sqrt(nL/K) <= sqrt(nL) <= sqrt(nLK)`` for ``K >= 1`` (Zhong's lower <= Vial's lower <=
       Vial's CascadeUCB1 lower), ratios ``sqrt(K)``;
    2. Corollary 2 over ``sqrt(nLK log n)`` tends to ``4 sqrt(3 (L-K) K'/(L K))``, finite and
       positive: Corollary 2 has the order of Vial's ``Omega(sqrt(nLK))`` for CascadeUCB1 up to
       ``sqrt(log n)`` (consistent; neither contradicts the other);
    3. Corollary 3's leading term with ``w(1) <= 1/K`` is at most
       ``4 sqrt((1+eps) f L n)`` (``f = log n + 3 log log n``): Vial's ``O~(sqrt(nL))``.
    """
    import sympy  # imported when used: after run_all forks, not before

    def zero(e, rewrite=None):
        # an exact rewrite (sympy's automatic one, or cancel / expand: identities, so a 0 is
        # a proof) decides each of these; simplify, several times dearer (and its first call
        # imports sympy.physics.units and sympy.tensor, 0.2 s), stays the fallback for a
        # nonzero result, so a residual that is not 0 comes out as simplify left it
        e = e if rewrite is None else rewrite(e)
        return e if e == 0 else sympy.simplify(e)

    n, L, K, Kp, f, eps, lg = sympy.symbols("n L K Kp f eps lg", positive=True)
    r1 = zero(sympy.sqrt(n * L) / sympy.sqrt(n * L / K) - sympy.sqrt(K))
    r2 = zero(sympy.sqrt(n * L * K) / sympy.sqrt(n * L) - sympy.sqrt(K))
    cor2 = 4 * sympy.sqrt(3 * (L - K) * Kp * n * lg) + sympy.pi**2 * L / 3
    lim = sympy.limit(cor2 / sympy.sqrt(n * L * K * lg), n, sympy.oo)
    r3 = zero(lim - 4 * sympy.sqrt(3 * (L - K) * Kp / (L * K)), sympy.cancel)
    # corollary 3 with c_w = 4/K, Kp <= K: lead^2 = 4 (1+eps) f (L-K) Kp (4/K) n <= 16 (1+eps) f L n
    lead2 = 4 * (1 + eps) * f * (L - K) * Kp * (4 / K) * n
    gap = 16 * (1 + eps) * f * L * n - lead2.subs(Kp, K)
    r4 = zero(gap - 16 * (1 + eps) * f * K * n, sympy.expand)  # gap = 16 (1+eps) f K n >= 0
    return r1, r2, r3, r4


@claim(
    "later.orders",
    "Vial et al. (NeurIPS 2022) and Zhong et al. (JMLR 2021), abstracts; bounds.later",
    "Omega(sqrt(nL/K)) [Zhong] <= Omega(sqrt(nL)) [Vial] <= O~(sqrt(nL)) [Vial, CascadeKL-UCB]; "
    "CascadeUCB1: Omega(sqrt(nLK)) [Vial] vs Corollary 2's O(sqrt(nLK log n)); Corollary 3 "
    "gives O(sqrt(nL log n)) when w <= 1/K",
    premises=("1 <= K <= L",),
    method=SYMBOLIC,
    requires=_REQ,
)
def _orders(ctx):
    from cascading_bandits.bounds import later

    r1, r2, r3, r4 = orders_residuals()
    ok = r1 == 0 and r2 == 0 and r3 == 0 and r4 == 0
    tr = SlackTracker()
    for _ in range(ctx.examples):
        L, K, n = _draw_LKn(ctx.rng)
        z, v, u = (
            later.zhong_lower_order(L, K, n),
            later.vial_minimax_lower_order(L, K, n),
            later.vial_cascadeucb1_lower_order(L, K, n),
        )
        d = {"L": L, "K": K, "n": n}
        tr.add(min(v - z, u - v) / u, d, tol=1e-15)
        tr.add(later.vial_klucb_upper_order(L, K, n) - v, d)
        w1 = 1 / K
        lead = later.theorem3_gapfree_leading(L, K, n, 0.5, w1)
        f = math.log(n) + 3 * max(math.log(math.log(n)), 0) if n > math.e else math.log(n)
        cap = 4 * math.sqrt(1.5 * f * L * n)
        tr.add((cap - lead) / cap if cap > 0 else 0, dict(d, eps=0.5, w1=w1), tol=1e-13)
    return Outcome(
        status=HOLDS if ok and tr.status == HOLDS else FAILS,
        method=SYMBOLIC,
        domain="all n >= 2, 1 <= K <= L (sympy); numeric spot checks L < 200, n < 1e9",
        domain_spec={"L": [1, "inf"], "n": [2, "inf"]},
        instances=1 + tr.n,
        min_slack=tr.min_slack,
        argmin=tr.argmin,
        counterexample=tr.counterexample,
        notes=f"sympy residuals {r1}, {r2}, {r3}, {r4} (all must be 0). Orders only: the "
        "constants of Vial et al. and Zhong et al. were not retrieved (bounds.later). The "
        "minimax lower bounds hold for some instance of each (L, K), not for every instance.",
    )


# --------------------------------------------------------------------------
# the corollaries against simulated regret
# --------------------------------------------------------------------------


@claim(
    "later.corollary2.mc",
    "Corollary 2 (derived in bounds.later) against simulated CascadeUCB1 regret",
    "R(n) <= 4 sqrt(3 (L-K) min(K, L-K) n log n) + pi^2 L/3 for CascadeUCB1",
    premises=("Assumption 1",),
    method=MONTE_CARLO,
    requires=_REQ + ("cascading_bandits.simulate.runner",),
)
def _corollary2_mc(ctx):
    from cascading_bandits.bounds import later
    from cascading_bandits.verify.claims_montecarlo import _mc_check

    return _mc_check(
        ctx, "cascade-ucb1", lambda inst, n: later.theorem2_gapfree_bound(inst.L, inst.K, n), 1
    )


@claim(
    "later.corollary3.mc",
    "Corollary 3 (derived in bounds.later) against simulated CascadeKL-UCB regret",
    "R(n) <= Corollary 3 at theta* (eps optimised, C_theta in the proof's form) for CascadeKL-UCB",
    premises=("Assumption 1", "unique optimal set"),
    method=MONTE_CARLO,
    requires=_REQ + ("cascading_bandits.simulate.runner",),
)
def _corollary3_mc(ctx):
    from cascading_bandits.bounds import later
    from cascading_bandits.verify.claims_montecarlo import _mc_check

    return _mc_check(
        ctx,
        "cascade-klucb",
        lambda inst, n: later.theorem3_gapfree_bound(inst, n, form="proof")[0],
        1,
    )
