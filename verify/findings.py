"""Caveats: where the paper or a source it cites is wrong as printed or needs an unstated condition.

Every caveat recomputes its evidence when :func:`caveats` runs (exact or 50-digit arithmetic,
a few hundred milliseconds in all), and each has a pinned test in ``tests/verify/test_caveats.py``
that fails if the evidence stops showing what the caveat says. The premise-dropping searches
(:func:`search_premise_counterexample`) are seeded and deterministic.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np

from cascading_bandits.verify.verdict import Caveat

_TEST = "tests/verify/test_caveats.py::"


# --------------------------------------------------------------------------
# premise-dropping searches (seeded): return the first counterexample found
# --------------------------------------------------------------------------


def search_lemma2_unsorted(seed=0, tries=4000):
    """Lemma 2 without the ordering p_1 >= ... >= p_K (p_K > p kept): a counterexample or None.

    Every try is screened in float64; a try whose float left side comes within a margin of
    the right side (``1e-9`` relative to the sizes of the terms before cancellation, far
    above float64's rounding of these few terms) is decided in mpmath at 40 digits, in order. The
    result is that of deciding every try in mpmath.
    """
    from cascading_bandits.bounds.kl import kl_mp

    rng = np.random.default_rng(seed)
    draws = []
    for _ in range(tries):
        K = int(rng.integers(2, 5))
        p = float(rng.uniform(0.001, 0.5))
        draws.append((p, [float(p + (1 - p) * rng.uniform(0.001, 0.999)) for _ in range(K)]))
    for p, qs in draws:
        inv = [1 / _kl_float(p, q) for q in qs]
        terms = [(qs[0] - p) * inv[0]]
        terms += [(qs[k] - p) * (inv[k] - inv[k - 1]) for k in range(1, len(qs))]
        d = qs[-1] - p
        rhs = d * (1 + math.log(1 / d)) * inv[-1]
        # rounding is relative to the sizes of inv[k] (not of their differences)
        scale = sum((q - p) * v for q, v in zip(qs, inv, strict=True))
        scale += sum((qs[k] - p) * inv[k - 1] for k in range(1, len(qs))) + rhs
        if math.fsum(terms) <= rhs - 1e-9 * scale:
            continue  # decided: lhs < rhs by far more than float64 rounding
        with mpmath.workdps(40):
            P = mpmath.mpf(p)
            Q = [mpmath.mpf(q) for q in qs]
            inv = [1 / kl_mp(P, q) for q in Q]
            lhs = (Q[0] - P) * inv[0] + sum(
                (Q[k] - P) * (inv[k] - inv[k - 1]) for k in range(1, len(qs))
            )
            D = Q[-1] - P
            rhs = D * (1 + mpmath.log(1 / D)) * inv[-1]
            if lhs > rhs * (1 + mpmath.mpf(10) ** -20):
                return {"p": p, "p_opt": qs, "lhs": float(lhs), "rhs": float(rhs)}
    return None


def _kl_float(p, q):
    """Bernoulli ``kl(p, q)`` for ``0 < p < q < 1`` in float64 (relative error ~1e-15 when
    ``q - p`` is not tiny; the screening above uses it with ``q - p >= 5e-4``)."""
    return p * math.log(p / q) + (1 - p) * math.log((1 - p) / (1 - q))


def search_peeling_lp_unsorted(seed=0, tries=2000):
    """The peeling LP with unsorted gaps: an instance where m* is not optimal (nested LP), or None.

    Optimality is decided exactly: m* is optimal iff some dual y >= 0 with
    ``sum_{k>=j} y_k >= Delta_j`` matches its value; we compare with the greedy-by-prefix
    optimum computed by scipy's LP solver and confirm the gap exactly.
    """
    from scipy.optimize import linprog

    from cascading_bandits.bounds.peeling import ucb1_peeling_lhs

    rng = np.random.default_rng(seed)
    for _ in range(tries):
        K = int(rng.integers(2, 5))
        g = [Fraction(int(x), 100) for x in rng.integers(1, 101, K)]
        if g == sorted(g, reverse=True):
            continue
        tau = [1 / (d * d) for d in g]
        m = [tau[0]] + [tau[k] - tau[k - 1] for k in range(1, K)]
        mstar_val = sum(d * x for d, x in zip(g, m, strict=True))
        feasible = all(x >= 0 for x in m)
        A = np.tril(np.ones((K, K)))
        res = linprog(
            -np.array([float(d) for d in g]),
            A_ub=A,
            b_ub=[float(t) for t in tau],
            bounds=[(0, None)] * K,
            method="highs",
        )
        if res.status != 0:
            continue
        opt = -res.fun
        if not feasible or opt > float(mstar_val) * (1 + 1e-9) + 1e-9:
            x = [Fraction(v).limit_denominator(10**6) for v in res.x]
            return {
                "gaps": [str(d) for d in g],
                "m_star": [str(v) for v in m],
                "m_star_feasible": feasible,
                "m_star_value": float(mstar_val),
                "lp_optimum": float(opt),
                "lp_argmax": [float(v) for v in x],
                "bracket_formula": float(sum(d * x for d, x in zip(g, m, strict=True))),
                "ucb1_peeling_lhs_rejects_unsorted": _rejects(ucb1_peeling_lhs, g),
            }
    return None


def _rejects(fn, *args):
    try:
        fn(*args)
    except ValueError:
        return True
    return False


def search_ucb1_unsorted(seed=0, tries=4000):
    """Lemma 3 of Matroid bandits, unsorted gaps: a counterexample or None (the SOS says none)."""
    rng = np.random.default_rng(seed)
    for _ in range(tries):
        K = int(rng.integers(2, 7))
        n = [int(x) for x in rng.integers(1, 101, K)]  # gaps n_k / 100
        # screen in float64 (terms of size <= 100, rounding ~1e-13): only a try within 1e-6
        # of the bound is decided exactly, in fractions
        lhs = 100 / n[0] + sum(100 / n[k] - 100 * n[k] / n[k - 1] ** 2 for k in range(1, K))
        if lhs <= 200 / n[-1] - 1e-6:
            continue
        g = [Fraction(x, 100) for x in n]
        lhs = 1 / g[0] + sum(g[k] * (1 / g[k] ** 2 - 1 / g[k - 1] ** 2) for k in range(1, K))
        if lhs > 2 / g[-1]:
            return {"gaps": [str(x) for x in g]}
    return None


def lemma1_correlated_example():
    """Lemma 1 without Assumption 1: items 0 and 1 one Bernoulli(1/2) coin, A = (0, 1), B = (2, 3).

    Returns (lhs, rhs) with the lhs computed from the joint law and the rhs from the means.
    """
    half = Fraction(1, 2)
    lhs = half - half * half  # E[w0 w1] = 1/2 (same coin); E[w2 w3] = 1/4 (independent)
    means = [half] * 4
    A, B = (0, 1), (2, 3)
    rhs = Fraction(0)
    for k in range(2):
        before = Fraction(1)
        for a in A[:k]:
            before *= means[a]
        after = Fraction(1)
        for b in B[k + 1 :]:
            after *= means[b]
        rhs += before * (means[A[k]] - means[B[k]]) * after
    return lhs, rhs


def search_lemma1_premise(seed=0, tries=500):
    """Lemma 1 with a_i = b_j for some i != j: the proof's term-by-term factorisation fails.

    Returns the instance, the (equal) sums and the first term whose expectation differs from its
    factorised form; None if no such case is found.
    """
    from cascading_bandits.bounds.lemma1 import lemma1_expectation, lemma1_terms, premise_holds

    rng = np.random.default_rng(seed)
    for _ in range(tries):
        L = int(rng.integers(3, 6))
        K = int(rng.integers(2, L + 1))
        A = [int(x) for x in rng.permutation(L)[:K]]
        B = [int(x) for x in rng.permutation(L)[:K]]
        if premise_holds(A, B):
            continue
        w = [Fraction(int(x), 10) for x in rng.integers(1, 10, L)]
        lhs, rhs = lemma1_expectation(A, B, w, check_premise=False)
        terms = lemma1_terms(A, B, w)
        diff = [k for k, (e, f) in enumerate(terms) if e != f]
        if diff or lhs != rhs:
            k = diff[0] if diff else None
            return {
                "A": A,
                "B": B,
                "w": [str(x) for x in w],
                "lhs": str(lhs),
                "rhs": str(rhs),
                "sums_equal": lhs == rhs,
                "term": k,
                "E_term": str(terms[k][0]) if diff else None,
                "factorised_term": str(terms[k][1]) if diff else None,
            }
    return None


# --------------------------------------------------------------------------
# the caveats
# --------------------------------------------------------------------------


def _peeling_lp_caveat():
    from cascading_bandits.verify.claims_appendix import printed_lp_optimum

    g = [Fraction(3, 10)] * 9 + [Fraction(1, 10)]
    val, m = printed_lp_optimum(g)
    mstar = 1 / g[0] + sum(g[k] * (1 / g[k] ** 2 - 1 / g[k - 1] ** 2) for k in range(1, len(g)))
    ev = {
        "gaps": "Delta_1 = ... = Delta_9 = 3/10, Delta_10 = 1/10 (K = 10); tau_k = 1/Delta_k^2 "
        "(factor 6 log n dropped)",
        "printed_lp_optimum": float(val),
        "printed_lp_argmax": [str(x) for x in m],
        "value_at_m_star": float(mstar),
        "lemma3_bound_2_over_Delta_K": float(2 / g[-1]),
        "family": "Delta_1..K-1 = a, Delta_K = b, a = b sqrt(K-1): printed LP optimum "
        "sqrt(K-1)/b, unbounded multiple of 2/b",
    }
    return Caveat(
        id="peeling-lp-constraints",
        claims=("appendix.peeling_lp", "theorem2", "theorem3"),
        kind="erratum",
        paper_says="max{sum_k Delta_k m_k : 0 <= m_k <= tau_k, sum_k m_k <= tau_K} is attained at "
        "m*_1 = tau_1, m*_k = tau_k - tau_{k-1} (proofs of Theorems 2 and 3)",
        truth="with only those constraints the maximum is the greedy fill (m_k = tau_k for the "
        "largest "
        "gaps until the budget tau_K is spent) and can exceed 2/Delta_K (times 6 log n), so "
        "the LP as printed does not give Theorem 2. The proof's facts (i)-(iii) give the "
        "stronger nested constraints sum_{j<=k} m_j <= tau_k for every k, under which m* is "
        "optimal (exact duality certificate, claim appendix.peeling_lp) and the theorems "
        "follow.",
        evidence=ev,
        test=_TEST + "test_peeling_lp_printed_constraints",
    )


def _hoeffding_caveat():
    from cascading_bandits.verify.claims_appendix import bad_event_constant_shifted

    per_item, closed, tail = bad_event_constant_shifted()
    pi2_3 = mpmath.pi**2 / 3
    ev = {
        "paper_per_item_constant_pi2_over_3": float(pi2_3),
        "per_item_constant_with_c_t_minus_1_s": float(per_item),
        "closed_form": "2 zeta(2) + 2 zeta(3) - 2",
        "closed_form_value": float(closed),
        "event_level_bound": f"2 + {float(tail):.6f} L",
        "event_level_below_pi2_L_over_3_from_L": int(mpmath.ceil(2 / (pi2_3 - tail))),
    }
    return Caveat(
        id="hoeffding-index-shift",
        claims=("appendix.hoeffding", "appendix.series", "theorem2"),
        kind="erratum",
        paper_says="E[sum_t 1{E_t}] <= sum_e sum_t sum_{s<=t} P(|w - w_hat_s| >= c_{t,s}) <= "
        "(pi^2/3) L",
        truth="E_t is defined with the algorithm's radius c_{t-1,s}, not c_{t,s}, so the printed "
        "chain bounds a different event (each of its inequalities is correct for c_{t,s}: "
        "claims appendix.hoeffding, appendix.series). Redone with c_{t-1,s} (c_{0,s} = "
        "c_{1,s} = 0 by the small-t rule), the per-item union bound gives "
        "2 zeta(2) + 2 zeta(3) - 2 = 3.694 > pi^2/3 = 3.290. Theorem 2's constant survives "
        "only through a sharper count: capping P(E_t) at 1 for t = 1, 2 across all items "
        "gives 2 + (2 zeta(2) + 2 zeta(3) - 4) L = 2 + 1.694 L <= (pi^2/3) L for L >= 2 "
        "(L = 1 has no suboptimal item and zero regret).",
        evidence=ev,
        test=_TEST + "test_hoeffding_index_shift",
    )


def _integral_caveat():
    p, dK = 0.2, 0.1
    ev = {
        "instance": {"p": p, "Delta_K": dK},
        "x_where_p_plus_x_exceeds_1": [1 - p, 1.0],
        "kl_at_x_0.9": "undefined: kl(0.2, 1.1), q > 1",
        "bound_with_Delta_1": "Delta_K log(Delta_1/Delta_K)/kl(p, p_K) "
        "<= Delta_K log(1/Delta_K)/kl",
    }
    return Caveat(
        id="lemma2-integral-range",
        claims=("lemma2.integral", "lemma2.chord"),
        kind="erratum",
        paper_says="sum_k (Delta_k - Delta_{k+1})/kl(p, p_k) <= "
        "int_{Delta_K}^{Delta_1} dx/kl(p, p+x) "
        "<= int_{Delta_K}^1 dx/kl(p, p+x), and kl(p, p+x) >= kl(p, p_K) x/Delta_K for any "
        "x >= Delta_K",
        truth="for x > 1 - p, p + x > 1 is not a probability and kl(p, p+x) is undefined, so the "
        "integral up to 1 is not defined (and the chord bound needs x <= 1 - p). The proof "
        "works with the integral up to Delta_1 <= 1 - p: the chord bound gives "
        "Delta_K log(Delta_1/Delta_K)/kl(p, p_K) <= Delta_K log(1/Delta_K)/kl(p, p_K) since "
        "Delta_1 <= 1. Lemma 2 itself is unaffected (claims lemma2, lemma2.k2).",
        evidence=ev,
        test=_TEST + "test_lemma2_integral_range",
    )


def _small_n_caveat():
    ll2 = math.log(math.log(2))
    ev = {
        "log_log_2": ll2,
        "log_2_plus_3_log_log_2": math.log(2) + 3 * ll2,
        "n_where_log_n_plus_3_loglog_n_is_0": float(
            mpmath.exp(mpmath.findroot(lambda x: x + 3 * mpmath.log(x), 0.77))
        ),
        "7K_loglog_n_at_n_2_K_2": 14 * ll2,
        "toolkit_rule": "log log n -> max(log log n, 0) (bounds.indices)",
    }
    return Caveat(
        id="theorem3-small-n",
        claims=("theorem3",),
        kind="unstated-condition",
        paper_says="R(n) <= sum_e (1+eps) Delta_{e,K}(1 + log(1/Delta_{e,K}))/kl(.,.) "
        "(log n + 3 log log n) "
        "+ K L C2(eps)/n^beta(eps) + 7 K log log n, for every n",
        truth="log log n is undefined at n = 1 and negative for n < e: at n = 2 the factor "
        "log n + 3 log log n = -0.406 and 7 K log log n = -2.57 K are negative, so the bound "
        "can fall below the regret (which is >= 0). The bound needs n >= 3 (or the small-t "
        "rule log log n -> max(log log n, 0), which this toolkit uses everywhere).",
        evidence=ev,
        test=_TEST + "test_theorem3_small_n",
    )


def _regime_caveat():
    from cascading_bandits.verify.claims_discussion import klucb_crossover, klucb_ucb1_ratio

    rows = {}
    for K in (2, 4, 8, 16):
        d, lg = klucb_crossover(K)
        rows[f"K={K}"] = {
            "Delta_star": float(d),
            "log_1_over_Delta_star": float(lg),
            "approx_6K^2/(K-1)-1": 6 * K * K / (K - 1) - 1,
            "ratio_at_e^-K": float(klucb_ucb1_ratio(K, math.exp(-K))),
        }
    return Caveat(
        id="klucb-regime",
        claims=("discussion.klucb_below_ucb1",),
        kind="imprecise",
        paper_says="the KL-UCB bound (9) is below the UCB1 bound (8) when log(1/Delta) = O(K), "
        "i.e. "
        "Delta = Omega(e^-K)",
        truth="with the theorems' own constants (12/Delta vs Delta(1 + log(1/Delta))/kl(p - Delta, "
        "p), "
        "p = 1/K, eps -> 0) the KL-UCB coefficient is below UCB1's for all Delta > Delta*(K) "
        "with log(1/Delta*) = 6K^2/(K-1) - 1 to 12 digits (about 6K; it is 6/(p(1-p)) - 1, from "
        "kl(p - Delta, p) ~ Delta^2/(2p(1-p)) as Delta -> 0): the regime is e^-(6K+5), "
        "not e^-K; at Delta = e^-K the KL-UCB coefficient is below 1/6 of UCB1's. The paper's "
        "e^-K comes from the loose last step of (8) (1/(p(1-p)) <= 2K, constant 12 dropped). "
        "bounds.discussion.klucb_below_ucb1_delta finds the same Delta*.",
        evidence=rows,
        test=_TEST + "test_klucb_regime",
    )


def _example_caveat():
    from cascading_bandits.verify.claims_discussion import example_expected_discovery

    rows = {}
    for L, K in ((16, 2), (16, 4), (32, 8), (5, 2)):
        e = example_expected_discovery(L, K)
        rows[f"L={L},K={K}"] = {
            "E*": str(e),
            "L/(2K)": str(Fraction(L, 2 * K)),
            "expected_regret_E*-1": str(e - 1),
        }
    return Caveat(
        id="example-l-2k",
        claims=("lower.example",),
        kind="imprecise",
        paper_says="with item 1 attractive w.p. 1 and the others w.p. 0, the optimal list is found "
        "in "
        "L/(2K) steps in expectation",
        truth="the best policy (K unseen items per step, uniformly random relabelling) finds it at "
        "expected step E* = sum_{j<m} (1 - jK/L), m = ceil(L/K): E* = L/(2K) + 1/2 when K "
        "divides L, and L/(2K) + 1/2 <= E* < L/(2K) + 1 always; its expected regret (steps "
        "before the discovery) is E* - 1, i.e. L/(2K) - 1/2 when K divides L. So L/(2K) is "
        "right to within 1/2, as an order Omega(L/K) statement.",
        evidence=rows,
        test=_TEST + "test_example_l_2k",
    )


def _lemma1_caveats():
    out = []
    lhs, rhs = lemma1_correlated_example()
    out.append(
        Caveat(
            id="lemma1-independence",
            claims=("lemma1",),
            kind="premise-needed",
            paper_says="Lemma 1 for w ~ P under Assumption 1 (independent weights)",
            truth="independence cannot be dropped: with items 0 and 1 one shared Bernoulli(1/2) "
            "coin, "
            "A = (0, 1), B = (2, 3), the left side is 1/4 and the right side 0.",
            evidence={"lhs": str(lhs), "rhs": str(rhs)},
            test=_TEST + "test_lemma1_independence",
        )
    )
    cex = search_lemma1_premise()
    if cex is not None:
        out.append(
            Caveat(
                id="lemma1-premise",
                claims=("lemma1",),
                kind="premise-unneeded",
                paper_says="Lemma 1 requires a_i = b_j only if i = j",
                truth="for K-permutations A, B the statement holds without the premise (both sides "
                "equal prod E[w(a_k)] - prod E[w(b_k)]), but the proof's term-by-term "
                "factorisation E[term_k] = E[prod_{i<k} w(a_i)] E[w(a_k) - w(b_k)] "
                "prod_{j>k} E[w(b_j)] fails without it (found by a seeded search).",
                evidence=cex,
                test=_TEST + "test_lemma1_premise",
            )
        )
    return out


def _order_caveats():
    out = []
    cex = search_lemma2_unsorted()
    out.append(
        Caveat(
            id="lemma2-order",
            claims=("lemma2",),
            kind="premise-needed" if cex else "premise-unneeded",
            paper_says="Lemma 2 for p_1 >= ... >= p_K > p",
            truth=(
                "the ordering cannot be dropped: a seeded search finds unsorted p_k with the left "
                "side above the right"
                if cex
                else "the ordering is not needed (only p_k > p): since 1/kl(p, p+x) decreases, "
                "each term "
                "(Delta_k - Delta_{k+1})/kl(p, p+Delta_k) is at most the signed integral "
                "int_{Delta_{k+1}}^{Delta_k} dx/kl(p, p+x) whichever way round, so the sum is "
                "at most int_{Delta_K}^{Delta_1}, which the chord bound controls when "
                "Delta_1 >= Delta_K and "
                "is <= 0 otherwise; a seeded search over 4000 unsorted instances finds no "
                "counterexample"
            ),
            evidence=cex or {"tries": 4000},
            test=_TEST + "test_lemma2_order",
        )
    )
    lp = search_peeling_lp_unsorted()
    ucb = search_ucb1_unsorted()
    out.append(
        Caveat(
            id="ucb1-peeling-order",
            claims=("ucb1_peeling", "appendix.peeling_lp"),
            kind="premise-unneeded",
            paper_says="Lemma 3 of Matroid bandits and the peeling LP solution assume "
            "Delta_1 >= ... >= Delta_K",
            truth="the inequality bracket <= 2/Delta_K holds for any positive gaps: Delta_K "
            "(2/Delta_K - "
            "bracket) = r_1 + sum_k (r_k - r_{k-1})^2/r_k with r_k = Delta_K/Delta_k (sympy, claim "
            "ucb1_peeling; a seeded search finds no counterexample). The ordering is needed "
            "elsewhere: for m* to solve the peeling LP (counterexample below).",
            evidence={"lemma3_unsorted_counterexample": ucb, "lp_unsorted_counterexample": lp},
            test=_TEST + "test_ucb1_peeling_order",
        )
    )
    return out


def _theorem4_caveat():
    from cascading_bandits.bounds.instance import b_lb
    from cascading_bandits.bounds.lower import theorem4_coefficient
    from cascading_bandits.bounds.upper import theorem3_leading_coefficient

    rows = {}
    for K, p in ((8, 0.125), (8, 0.5), (8, 0.9), (2, 0.9)):
        inst = b_lb(16, K, p, 0.1)
        lo = theorem4_coefficient(inst)
        up = theorem3_leading_coefficient(inst)
        rows[f"K={K},p={p}"] = {
            "theorem4": float(lo),
            "theorem3_leading": float(up),
            "ratio": float(up / lo),
            "(1-p)^(K-1)": (1 - p) ** (K - 1),
        }
    return Caveat(
        id="theorem4-large-p",
        claims=("theorem4",),
        kind="imprecise",
        paper_says="the lower bound matches the KL-UCB upper bound up to log(1/Delta) (discussion, "
        "p = 1/K)",
        truth="only for p = O(1/K): the factor (1 - p)^(K-1) <= e^(-p(K-1)) makes the gap to "
        "Theorem 3 grow exponentially in pK when p >= 1/K (the paper says the bound is "
        "impractical near p = 1; the numbers show how fast it degrades). The bound itself "
        "holds (claim theorem4).",
        evidence=rows,
        test=_TEST + "test_theorem4_large_p",
    )


def _gc_loglog_caveat():
    from cascading_bandits.bounds.garivier_cappe import klucb_loglog_term, klucb_loglog_valid_from

    n0 = klucb_loglog_valid_from()
    rows = {}
    for n in (3, 10, 20, n0 - 1, n0):
        F = klucb_loglog_term(n)
        rows[f"n={n}"] = {
            "F(n)": F,
            "7 log log n": 7 * math.log(math.log(n)),
            "holds": F <= 7 * math.log(math.log(n)),
        }
    return Caveat(
        id="gc-loglog-small-n",
        claims=("theorem3.loglog", "theorem3"),
        kind="unstated-condition",
        paper_says="by Theorems 2 and 10 of Garivier and Cappe, the bad-event regret is at most "
        "7 K log log n",
        truth=f"summing Theorem 10's bound over t <= n gives F(n) <= 7 log log n only for n >= "
        f"{n0} "
        "(bounds.garivier_cappe); for smaller n the constant must be larger (F(n) >= 1 while "
        "log log n <= 0 for n <= 2). As n grows F(n)/log log n tends to e, so 7 is valid, "
        "not tight, for large n.",
        evidence=rows,
        test=_TEST + "test_gc_loglog_small_n",
    )


def theorem1_any_list(seed=0, L_max=5, instances=40):
    """Theorem 1's bounds for *every* K-permutation A (not only top-K lists), exhaustively.

    Returns (number of (w, A) pairs checked, first violation or None, a list A that is not the
    top-K of any U making U(a_k) >= U(pi(k)) fail, as evidence that this part needs the premise).
    """
    import itertools

    from cascading_bandits.bounds.decomposition import theorem1_bounds, theorem1_permutation

    rng = np.random.default_rng(seed)
    n, bad = 0, None
    for _ in range(instances):
        L = int(rng.integers(2, L_max + 1))
        K = int(rng.integers(1, L + 1))
        w = [Fraction(int(x), 10) for x in rng.integers(0, 11, L)]
        for A in itertools.permutations(range(L), K):
            lo, ex, up = theorem1_bounds(list(A), w, K)
            n += 1
            if not lo <= ex <= up and bad is None:
                bad = {"w": [str(x) for x in w], "K": K, "A": list(A)}
    # U ranks item 0 first, but A lists the worst item: the UCB inequality of Theorem 1 fails
    w = [Fraction(9, 10), Fraction(1, 10)]
    U = [1.0, 0.0]
    A = [1]
    pi = theorem1_permutation(A, w, 1)
    ucb_fails = U[A[0]] < U[pi[0]]
    return (
        n,
        bad,
        {
            "w": ["9/10", "1/10"],
            "K": 1,
            "U": U,
            "A": A,
            "pi": pi,
            "U(a_1) >= U(pi(1))": not ucb_fails,
        },
    )


def theorem1_best_alpha(w, K):
    """``min_A E_t[R]/S`` over all K-permutations A with ``S > 0`` (exact): Theorem 1's best alpha.

    Returns (best, alpha, alpha_sharp) with ``alpha = (1 - w(1))^(K-1)`` and
    ``alpha_sharp = prod_{j<K} (1 - w(j))`` (w sorted decreasingly).
    """
    import itertools

    from cascading_bandits.bounds.decomposition import theorem1_bounds

    w = [Fraction(x) for x in w]
    best = None
    for A in itertools.permutations(range(len(w)), K):
        _, ex, up = theorem1_bounds(list(A), w, K)
        if up > 0:
            r = ex / up
            best = r if best is None or r < best else best
    s = sorted(w, reverse=True)
    sharp = Fraction(1)
    for x in s[: K - 1]:
        sharp *= 1 - x
    return best, (1 - s[0]) ** (K - 1), sharp


def _theorem1_alpha_caveat():
    rows = {}
    for w, K in (
        ([Fraction(1, 2), Fraction(1, 4), Fraction(1, 8), Fraction(1, 16)], 3),
        ([Fraction(19, 20), Fraction(4, 5), Fraction(13, 20), Fraction(7, 20)], 3),
        ([Fraction(1, 2), Fraction(1, 2), Fraction(1, 4), Fraction(1, 8)], 3),
    ):
        best, alpha, sharp = theorem1_best_alpha(w, K)
        rows[f"w={[str(x) for x in w]},K={K}"] = {
            "min_over_A_regret_over_S": str(best),
            "alpha_paper": str(alpha),
            "alpha_sharp": str(sharp),
        }
    return Caveat(
        id="theorem1-alpha",
        claims=("theorem1.lower", "theorem4"),
        kind="imprecise",
        paper_says="E_t[R] >= alpha S with alpha = (1 - w(1))^(K-1)",
        truth="the best constant is alpha_sharp = prod_{j<K} (1 - w(j)) (the K - 1 most attractive "
        "items), attained by A = (e, 1, ..., K-1) with pi(1) = K; it equals the paper's alpha "
        "only when w(1) = ... = w(K-1) (e.g. on B_LB, so Theorem 4 is unaffected) and can be "
        "many times larger (exhaustive minimum over all lists below). bounds.lower offers the "
        "sharper Theorem 4 constant (theorem4_sharp_coefficient).",
        evidence=rows,
        test=_TEST + "test_theorem1_alpha",
    )


def _theorem1_caveat():
    n, bad, ucb = theorem1_any_list()
    return Caveat(
        id="theorem1-list-premise",
        claims=("theorem1.upper", "theorem1.lower", "theorem1.permutation"),
        kind="premise-unneeded" if bad is None else "premise-needed",
        paper_says="Theorem 1 for A_t = the K items with the largest UCBs",
        truth="the two regret bounds hold for every K-permutation A (pi as in the proof gives "
        "w(a_k) <= w(pi(k)) for any A); only the UCB inequality U(a_k) >= U(pi(k)) needs A to "
        "be a top-K list of U (exhaustive check over all K-permutations below; the UCB "
        "inequality fails for a list that is not top-K).",
        evidence={
            "pairs_checked_exhaustively": n,
            "bound_violation": bad,
            "ucb_inequality_without_premise": ucb,
        },
        test=_TEST + "test_theorem1_list_premise",
    )


def initialization_regret(weights, K):
    """Least regret of Algorithm 1's initialisation: each item recommended once as the first item.

    The list with ``e`` first costs least with the K - 1 most attractive other items after it;
    for suboptimal ``e`` that is ``Delta_{e,K} prod_{j<K} (1 - w(j))`` (exact), and 0 for optimal
    ``e``. Returns the sum over items (a Fraction when the weights are Fractions).
    """
    s = sorted(weights, reverse=True)
    prod = 1
    for x in s[: K - 1]:
        prod *= 1 - x
    return sum((s[K - 1] - we) * prod for we in s[K:])


def _initialization_caveat():
    w = [Fraction(1, 5)] * 2 + [Fraction(1, 20)] * 14  # B_LB(16, 2, 0.2, 0.15)
    return Caveat(
        id="initialization-regret",
        claims=("theorem2", "theorem3", "theorem4"),
        kind="unstated-condition",
        paper_says="Algorithm 1 starts from one observed sample w_0 of every item, 'generated in "
        "O(L) "
        "steps by recommending each item once as the first item'; R(n) sums t = 1..n",
        truth="the initialisation steps are not counted in R(n). Counting them adds at least "
        "sum_{e>K} Delta_{e,K} prod_{j<K} (1 - w(j)) (each suboptimal item first once, the "
        "best items after it) to every upper bound; in Theorem 4's proof "
        "sum_t sum_{e*} 1{G_{e,e*,t}} = T_n(e) - T_0(e) = T_n(e) - 1. Both are O(L) and do "
        "not change the log n terms.",
        evidence={
            "instance": "B_LB(16, 2, 0.2, 0.15)",
            "least_initialisation_regret": str(initialization_regret(w, 2)),
        },
        test=_TEST + "test_initialization_regret",
    )


def _safe(fn) -> list[Caveat]:
    """Run one caveat builder; an exception becomes a 'not-computed' entry, never a traceback."""
    try:
        out = fn()
    except ImportError:  # the bounds module it needs is not installed
        return []
    except Exception as exc:  # noqa: BLE001 - reported in the caveat list
        return [
            Caveat(
                id=fn.__name__.strip("_").replace("_", "-"),
                claims=(),
                kind="not-computed",
                paper_says="",
                truth=f"the evidence could not be computed: {type(exc).__name__}: {exc}",
                evidence={},
                test="",
            )
        ]
    return out if isinstance(out, list) else [out]


_PREFETCHED: list = []  # caveats computed by verify.run_all's second process, used once


def prefetch(cavs) -> None:
    """Keep ``cavs`` (a list of :class:`Caveat` computed by :func:`caveats` in another
    process of the same run) for the next call of :func:`caveats` only."""
    _PREFETCHED[:] = [list(cavs)]


#: the caveat builders, in the order :func:`caveats` lists their caveats (each returns one
#: :class:`Caveat` or a list; run through :func:`_safe`, so that ``verify.run_all`` can spread
#: them over its two processes like claims)
CAVEAT_BUILDERS = (
    _peeling_lp_caveat,
    _hoeffding_caveat,
    _integral_caveat,
    _small_n_caveat,
    _regime_caveat,
    _example_caveat,
    _lemma1_caveats,
    _order_caveats,
    _initialization_caveat,
    _theorem1_caveat,
    _theorem1_alpha_caveat,
    _gc_loglog_caveat,
    _theorem4_caveat,
)


def build_caveats(i: int) -> list[Caveat]:
    """The caveats of the builder ``CAVEAT_BUILDERS[i]`` (a 'not-computed' entry if it raised)."""
    return _safe(CAVEAT_BUILDERS[i])


def caveats() -> list[Caveat]:
    """Every caveat, with its evidence recomputed now (deterministic; a few seconds).

    Right after a full ``verify.run_all`` over two processes, the caveats those processes
    computed meanwhile (:func:`prefetch`), once.
    """
    if _PREFETCHED:
        return _PREFETCHED.pop()
    out = []
    for i in range(len(CAVEAT_BUILDERS)):
        out.extend(build_caveats(i))
    return out
