"""Pinned tests for every caveat: each fails if the evidence stops showing what the caveat says."""

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from scipy.optimize import linprog

from cascading_bandits.bounds.peeling import ucb1_peeling_lhs, ucb1_peeling_rhs
from cascading_bandits.verify import findings as C
from cascading_bandits.verify.claims_appendix import bad_event_constant_shifted, printed_lp_optimum
from cascading_bandits.verify.claims_discussion import (
    example_expected_discovery,
    example_expected_discovery_bruteforce,
    klucb_crossover,
    klucb_ucb1_ratio,
)


def test_every_caveat_has_its_pinned_test(all_caveats):
    cavs = all_caveats
    names = {name for name in globals() if name.startswith("test_")}
    for c in cavs:
        path, name = c.test.split("::")
        assert path == "tests/verify/test_caveats.py" and name in names, c.test
        assert c.paper_says and c.truth and c.evidence
    assert len({c.id for c in cavs}) == len(cavs)


def test_peeling_lp_printed_constraints():
    g = [Fraction(3, 10)] * 9 + [Fraction(1, 10)]
    val, m = printed_lp_optimum(g)
    assert val == 30  # exact: nine items of 3/10 * 100/9
    # the greedy value is the LP optimum (scipy agrees), and it exceeds Lemma 3's 2/Delta_K = 20
    res = linprog(
        -np.array([float(x) for x in g]),
        A_ub=[np.ones(10)],
        b_ub=[100.0],
        bounds=[(0, float(1 / (d * d))) for d in g],
        method="highs",
    )
    assert -res.fun == pytest.approx(30.0, rel=1e-12)
    assert val > ucb1_peeling_rhs(g) == 20
    # while the paper's m* (value = the bracket) stays below 2/Delta_K
    assert ucb1_peeling_lhs(g) == Fraction(110, 9) < 20
    # the family a = b sqrt(K-1): printed optimum sqrt(K-1)/b
    b = Fraction(1, 100)
    g2 = [Fraction(3, 100)] * 9 + [b]  # sqrt(9) = 3
    assert printed_lp_optimum(g2)[0] == 3 / b


def test_hoeffding_index_shift():
    per_item, closed, tail = bad_event_constant_shifted()
    assert abs(per_item - closed) < 1e-20
    assert float(closed) == pytest.approx(3.693981940015641, abs=1e-12)
    assert float(closed) > math.pi**2 / 3 + 0.4  # the per-item constant is not pi^2/3
    # brute-force partial sum of the per-item bound (t <= 2000) approaches it from below
    partial = 2 + sum(2 * t / (t - 1) ** 3 for t in range(3, 2001))
    assert partial < float(closed) < partial + 2 * 2 / 1999  # tail of sum 2(u+1)/u^3 < 4/1999
    # event-level count: 2 + tail L <= pi^2 L / 3 exactly from L = 2 on
    assert 2 + float(tail) * 1 > math.pi**2 / 3
    assert all(2 + float(tail) * L <= math.pi**2 * L / 3 for L in range(2, 1000))


def test_lemma2_integral_range():
    from cascading_bandits.bounds.kl import kl_mp

    p, x = 0.2, 0.9
    with pytest.raises(ValueError):
        kl_mp(p, p + x)  # q = 1.1 is not a probability: the printed integral is undefined there
    # the corrected upper limit Delta_1 <= 1 - p gives a finite bound below the printed one
    from cascading_bandits.verify.claims_peeling import integral_slack

    slack, err = integral_slack(0.2, 0.1, 0.7)
    assert slack > err


def test_theorem3_small_n():
    from cascading_bandits.bounds.indices import klucb_threshold
    from cascading_bandits.bounds.instance import b_lb
    from cascading_bandits.bounds.upper import (
        theorem3_bound,
        theorem3_leading_coefficient,
        theorem3_log_term,
    )

    # the caveat's evidence, recomputed independently
    ev = C._small_n_caveat().evidence
    assert ev["log_log_2"] == pytest.approx(math.log(math.log(2)), rel=1e-15)
    raw = math.log(2) + 3 * math.log(math.log(2))
    assert ev["log_2_plus_3_log_log_2"] == pytest.approx(raw, rel=1e-15) and raw < 0
    assert ev["7K_loglog_n_at_n_2_K_2"] == pytest.approx(14 * math.log(math.log(2)), rel=1e-15)
    root = ev["n_where_log_n_plus_3_loglog_n_is_0"]
    x = mpmath.mpf(root)
    assert 2 < root < 3 and abs(mpmath.log(x) + 3 * mpmath.log(mpmath.log(x))) < 1e-12
    # the toolkit's rule: the threshold is never negative, and is the printed one for n >= 3
    t = np.arange(1, 50, dtype=float)
    th = klucb_threshold(t, 3.0)
    assert (th >= 0).all() and th[1] == pytest.approx(math.log(2))  # n = 2: log log 2 -> 0
    assert np.allclose(th[2:], np.log(t[2:]) + 3 * np.log(np.log(t[2:])), rtol=1e-14)
    # so Theorem 3's bound is positive at small n, where the printed form is negative
    inst = b_lb(8, 2, 0.2, 0.15)
    coef = float(theorem3_leading_coefficient(inst))
    assert coef > 0
    assert float(theorem3_log_term(inst, 2, 0.1)) == pytest.approx(1.1 * coef * math.log(2))
    assert all(float(theorem3_bound(inst, n)) > 0 for n in (1, 2, 3, 10))


def test_klucb_regime():
    from cascading_bandits.bounds.discussion import klucb_below_ucb1_delta

    for K in (2, 4, 8):
        d, lg = klucb_crossover(K)
        assert abs(d / klucb_below_ucb1_delta(K) - 1) < 1e-12  # two independent root finders
        assert float(lg) == pytest.approx(6 * K * K / (K - 1) - 1, rel=1e-9)
        # below the crossover UCB1's coefficient is smaller, above it KL-UCB's
        assert klucb_ucb1_ratio(K, float(d) / 10) > 1 > klucb_ucb1_ratio(K, float(d) * 10)
        assert float(d) < math.exp(-K) * 1e-6  # far beyond the paper's e^-K
        assert klucb_ucb1_ratio(K, math.exp(-K)) < 1 / 6


def test_example_l_2k():
    assert example_expected_discovery(16, 2) == Fraction(9, 2)  # L/(2K) + 1/2, not 4
    assert example_expected_discovery(5, 2) == Fraction(9, 5)
    assert example_expected_discovery_bruteforce(6, 2) == example_expected_discovery(6, 2) == 2
    for L in range(1, 40):
        for K in range(1, L + 1):
            e = example_expected_discovery(L, K)
            assert Fraction(L, 2 * K) + Fraction(1, 2) <= e < Fraction(L, 2 * K) + 1


def test_lemma1_independence():
    lhs, rhs = C.lemma1_correlated_example()
    assert (lhs, rhs) == (Fraction(1, 4), Fraction(0))


def test_lemma1_premise():
    from cascading_bandits.bounds.lemma1 import lemma1_expectation, lemma1_terms, premise_holds

    cex = C.search_lemma1_premise()
    assert cex is not None and cex["sums_equal"]
    A, B = cex["A"], cex["B"]
    w = [Fraction(x) for x in cex["w"]]
    assert not premise_holds(A, B)
    lhs, rhs = lemma1_expectation(A, B, w, check_premise=False)
    assert lhs == rhs
    k = cex["term"]
    e, f = lemma1_terms(A, B, w)[k]
    assert e != f
    with pytest.raises(ValueError, match="a_i = b_j only if i = j"):
        lemma1_expectation(A, B, w)


def test_lemma2_order():
    # no counterexample with unsorted p_k; and the reason: each term is below a signed integral
    assert C.search_lemma2_unsorted(seed=1, tries=1500) is None
    from cascading_bandits.bounds.kl import kl_mp

    with mpmath.workdps(40):
        p = mpmath.mpf("0.1")
        d = [mpmath.mpf("0.05"), mpmath.mpf("0.6"), mpmath.mpf("0.2")]  # unsorted
        riem = sum((d[k] - d[k + 1]) / kl_mp(p, p + d[k]) for k in range(2))
        integral = mpmath.quad(lambda x: 1 / kl_mp(p, p + x), [d[2], d[0]])
        assert riem <= integral


def test_ucb1_peeling_order():
    assert C.search_ucb1_unsorted(seed=2, tries=2000) is None
    cex = C.search_peeling_lp_unsorted()
    assert cex is not None
    assert cex["lp_optimum"] > cex["m_star_value"] or not cex["m_star_feasible"]


def test_theorem4_large_p(all_caveats):
    cav = [c for c in all_caveats if c.id == "theorem4-large-p"][0]
    ev = cav.evidence
    assert ev["K=8,p=0.5"]["ratio"] > 50 * ev["K=8,p=0.125"]["ratio"]
    for row in ev.values():
        assert row["theorem4"] <= row["theorem3_leading"]


def test_gc_loglog_small_n():
    from cascading_bandits.bounds.garivier_cappe import klucb_loglog_term

    assert klucb_loglog_term(47) > 7 * math.log(math.log(47))
    assert klucb_loglog_term(48) <= 7 * math.log(math.log(48))
    assert klucb_loglog_term(10) > 7 * math.log(math.log(10))


def test_theorem1_list_premise():
    n, bad, ucb = C.theorem1_any_list(seed=3, instances=15)
    assert n > 100 and bad is None
    assert ucb["U(a_1) >= U(pi(1))"] is False and ucb["pi"] == [0]


def test_theorem1_alpha():
    w = [Fraction(19, 20), Fraction(4, 5), Fraction(13, 20), Fraction(7, 20)]
    best, alpha, sharp = C.theorem1_best_alpha(w, 3)
    assert (best, alpha, sharp) == (Fraction(1, 100), Fraction(1, 400), Fraction(1, 100))
    # B_LB: the optimal weights are equal, the paper's alpha is already the best constant
    best, alpha, sharp = C.theorem1_best_alpha([Fraction(1, 5)] * 3 + [Fraction(1, 10)] * 2, 3)
    assert best == alpha == sharp == Fraction(16, 25)


def test_initialization_regret():
    import itertools

    from cascading_bandits.bounds.decomposition import conditional_regret

    # B_LB(16, 2, 0.2, 0.15): 14 suboptimal items, each first once: 14 * 0.15 * 0.8
    w = [Fraction(1, 5)] * 2 + [Fraction(1, 20)] * 14
    assert C.initialization_regret(w, 2) == Fraction(42, 25)
    # brute force on a small instance: the cheapest list with e first, summed over e
    w = [Fraction(1, 2), Fraction(1, 3), Fraction(1, 4), Fraction(1, 10)]
    K = 3
    total = 0
    for e in range(4):
        total += min(
            conditional_regret([e, *rest], w, K)
            for rest in itertools.permutations([x for x in range(4) if x != e], K - 1)
        )
    assert total == C.initialization_regret(w, K)


def test_broken_caveat_builder_is_reported_not_raised():
    def _broken_caveat():
        raise RuntimeError("boom")

    (c,) = C._safe(_broken_caveat)
    assert c.kind == "not-computed" and "boom" in c.truth
