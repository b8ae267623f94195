"""Every number in every caveat's evidence, recomputed here from its definition.

``tests/verify/test_caveats.py`` pins what each caveat claims through the functions that compute
it; this file pins the evidence the caveat builders (:mod:`verify.findings`) actually print,
recomputed independently (exact fractions, mpmath at 50+ digits, brute force, SciPy's LP solver)
from the instance the caveat names. A builder that prints ``(1 - p)^K`` for ``(1 - p)^(K - 1)``
or rounds a threshold the wrong way fails here even when the functions it calls are right.
"""

import itertools
import math
from fractions import Fraction as F

import mpmath
import numpy as np
import pytest
from scipy.optimize import linprog

from cascading_bandits.bounds.instance import b_lb
from cascading_bandits.verify import findings as C


@pytest.fixture(scope="module")
def evidence(all_caveats):
    return {c.id: c.evidence for c in all_caveats}


def _kl(a, b):
    """Bernoulli kl(a, b) in mpmath at the working precision (0 log 0 = 0)."""
    a, b = mpmath.mpf(a), mpmath.mpf(b)
    out = mpmath.mpf(0)
    if a > 0:
        out += a * mpmath.log(a / b)
    if a < 1:
        out += (1 - a) * mpmath.log((1 - a) / (1 - b))
    return out


def _rel(x, y):
    x, y = mpmath.mpf(x), mpmath.mpf(y)
    return abs(x - y) / abs(y)


# ---------------------------------------------------------------------------------------


def test_peeling_lp_constraints(evidence):
    ev = evidence["peeling-lp-constraints"]
    g = [F(3, 10)] * 9 + [F(1, 10)]
    tau = [1 / (d * d) for d in g]
    # the LP as printed, by SciPy (0 <= m_k <= tau_k, sum m_k <= tau_K)
    res = linprog(
        -np.array([float(d) for d in g]),
        A_ub=[np.ones(10)],
        b_ub=[float(tau[-1])],
        bounds=[(0, float(t)) for t in tau],
        method="highs",
    )
    assert ev["printed_lp_optimum"] == pytest.approx(-res.fun, rel=1e-12) == 30
    argmax = [F(x) for x in ev["printed_lp_argmax"]]
    assert sum(argmax) == tau[-1] and all(0 <= m <= t for m, t in zip(argmax, tau, strict=True))
    assert sum(d * m for d, m in zip(g, argmax, strict=True)) == 30
    # m*_1 = tau_1, m*_k = tau_k - tau_{k-1}: value 3/10 * 100/9 + 1/10 * (100 - 100/9) = 110/9
    m_star = [tau[0]] + [tau[k] - tau[k - 1] for k in range(1, 10)]
    assert ev["value_at_m_star"] == float(sum(d * m for d, m in zip(g, m_star, strict=True)))
    assert ev["value_at_m_star"] == float(F(110, 9))
    assert ev["lemma3_bound_2_over_Delta_K"] == 20.0


def test_hoeffding_index_shift(evidence):
    ev = evidence["hoeffding-index-shift"]
    with mpmath.workdps(50):
        pi2_3 = mpmath.pi**2 / 3
        # per item: P = 1 at t = 1, 2, then sum_{s<=t} 2 exp(-2 s c_{t-1,s}^2) = 2 t (t-1)^-3
        tail = mpmath.nsum(lambda t: 2 * t / (t - 1) ** 3, [3, mpmath.inf])
        per_item = 2 + tail
        closed = 2 * mpmath.zeta(2) + 2 * mpmath.zeta(3) - 2
        assert abs(per_item - closed) < mpmath.mpf(10) ** -40
        assert ev["paper_per_item_constant_pi2_over_3"] == float(pi2_3)
        assert ev["per_item_constant_with_c_t_minus_1_s"] == pytest.approx(float(per_item), 1e-15)
        assert ev["closed_form_value"] == pytest.approx(float(closed), rel=1e-15)
        assert ev["event_level_bound"] == f"2 + {float(tail):.6f} L"
        # 'from L': the least integer L with 2 + tail L <= pi^2 L / 3, by search
        from_L = next(L for L in itertools.count(1) if 2 + tail * L <= pi2_3 * L)
        assert 2 + tail * (from_L - 1) > pi2_3 * (from_L - 1)
        assert all(2 + tail * L <= pi2_3 * L for L in range(from_L, 1000))
        # the threshold 2/(pi^2/3 - tail) = 1.25 is not an integer: ceil and floor differ
        x = 2 / (pi2_3 - tail)
        assert math.floor(x) != math.ceil(x)
    assert ev["event_level_below_pi2_L_over_3_from_L"] == from_L == 2


def test_lemma2_integral_range(evidence):
    ev = evidence["lemma2-integral-range"]
    p, dK = ev["instance"]["p"], ev["instance"]["Delta_K"]
    assert (p, dK) == (0.2, 0.1)
    lo, hi = ev["x_where_p_plus_x_exceeds_1"]
    assert lo == 1 - p and hi == 1.0  # p + x > 1 exactly for x in (1 - p, 1]
    assert f"kl({p}, {p + 0.9:.1f})" in ev["kl_at_x_0.9"]


def test_theorem3_small_n(evidence):
    ev = evidence["theorem3-small-n"]
    with mpmath.workdps(40):
        ll2 = mpmath.log(mpmath.log(2))
        assert ev["log_log_2"] == pytest.approx(float(ll2), rel=1e-15)
        assert ev["log_2_plus_3_log_log_2"] == pytest.approx(float(mpmath.log(2) + 3 * ll2), 1e-14)
        assert ev["7K_loglog_n_at_n_2_K_2"] == pytest.approx(float(7 * 2 * ll2), rel=1e-15)
        root = mpmath.findroot(lambda n: mpmath.log(n) + 3 * mpmath.log(mpmath.log(n)), 2.2)
        assert ev["n_where_log_n_plus_3_loglog_n_is_0"] == pytest.approx(float(root), rel=1e-14)


def test_klucb_regime(evidence):
    ev = evidence["klucb-regime"]
    assert sorted(ev) == ["K=16", "K=2", "K=4", "K=8"]
    for key, row in ev.items():
        K = int(key[2:])
        with mpmath.workdps(250):  # kl(p - Delta, p) ~ Delta^2: Delta* ~ 1e-45 needs the digits
            p = mpmath.mpf(1) / K

            def ratio(d, p=p):  # KL-UCB's per-item coefficient over UCB1's 12/Delta
                return d * d * (1 + mpmath.log(1 / d)) / (12 * _kl(p - d, p))

            lam = mpmath.findroot(lambda x: ratio(mpmath.exp(x)) - 1, -(6 * K * K / (K - 1) - 1))
            assert row["Delta_star"] == pytest.approx(float(mpmath.exp(lam)), rel=1e-9)
            assert row["log_1_over_Delta_star"] == pytest.approx(float(-lam), rel=1e-12)
            assert row["approx_6K^2/(K-1)-1"] == 6 * K * K / (K - 1) - 1
            r = ratio(mpmath.mpf(math.exp(-K)))
            assert row["ratio_at_e^-K"] == pytest.approx(float(r), rel=1e-12)


def _discovery(L, K):
    """Expected step at which the attractive item (uniform among L) is shown, K new a step."""
    blocks = [min(K, L - j) for j in range(0, L, K)]
    return sum(F((j + 1) * b, L) for j, b in enumerate(blocks))


def test_example_l_2k(evidence):
    ev = evidence["example-l-2k"]
    assert len(ev) == 4
    for key, row in ev.items():
        L, K = (int(x.split("=")[1]) for x in key.split(","))
        e = _discovery(L, K)
        assert F(row["E*"]) == e
        assert F(row["L/(2K)"]) == F(L, 2 * K)
        assert F(row["expected_regret_E*-1"]) == e - 1


def test_lemma1_independence(evidence):
    ev = evidence["lemma1-independence"]
    # items 0 and 1 one coin c, items 2 and 3 independent coins: enumerate the 8 outcomes
    lhs = F(0)
    for c, x2, x3 in itertools.product((0, 1), repeat=3):
        lhs += F(1, 8) * (c * c - x2 * x3)
    # the right side from the means (all 1/2): every term has E[w(a_k)] - E[w(b_k)] = 0
    assert (F(ev["lhs"]), F(ev["rhs"])) == (lhs, 0) == (F(1, 4), 0)


def _mean(items, w):
    """E[prod_{e in items} w(e)] for independent Bernoulli(w) by enumeration (w^2 = w)."""
    distinct = sorted(set(items))
    total = F(0)
    for vals in itertools.product((0, 1), repeat=len(distinct)):
        pr = F(1)
        for e, v in zip(distinct, vals, strict=True):
            pr *= w[e] if v else 1 - w[e]
        val = dict(zip(distinct, vals, strict=True))
        total += pr * int(all(val[e] for e in items))
    return total


def test_lemma1_premise(evidence):
    ev = evidence["lemma1-premise"]
    A, B, w = ev["A"], ev["B"], [F(x) for x in ev["w"]]
    assert any(a == b for i, a in enumerate(A) for j, b in enumerate(B) if i != j)
    K = len(A)
    lhs = _mean(A, w) - _mean(B, w)
    terms = []
    for k in range(K):
        exact = _mean(A[:k] + [A[k]] + B[k + 1 :], w) - _mean(A[:k] + [B[k]] + B[k + 1 :], w)
        after = F(1)
        for b in B[k + 1 :]:
            after *= w[b]
        terms.append((exact, _mean(A[:k], w) * (w[A[k]] - w[B[k]]) * after))
    rhs = sum(f for _, f in terms)
    assert (F(ev["lhs"]), F(ev["rhs"])) == (lhs, rhs)
    assert ev["sums_equal"] == (lhs == rhs)
    k = ev["term"]
    assert k == next(i for i, (e, f) in enumerate(terms) if e != f)
    assert (F(ev["E_term"]), F(ev["factorised_term"])) == terms[k]


def test_lemma2_order(evidence):
    import inspect

    ev = evidence["lemma2-order"]
    tries = inspect.signature(C.search_lemma2_unsorted).parameters["tries"].default
    assert ev == {"tries": tries} == {"tries": 4000}


def test_ucb1_peeling_order(evidence):
    ev = evidence["ucb1-peeling-order"]
    assert ev["lemma3_unsorted_counterexample"] is None
    lp = ev["lp_unsorted_counterexample"]
    g = [F(x) for x in lp["gaps"]]
    assert g != sorted(g, reverse=True)
    tau = [1 / (d * d) for d in g]
    m = [tau[0]] + [tau[k] - tau[k - 1] for k in range(1, len(g))]
    assert [F(x) for x in lp["m_star"]] == m
    assert lp["m_star_feasible"] == all(x >= 0 for x in m)
    value = sum(d * x for d, x in zip(g, m, strict=True))
    bracket = 1 / g[0] + sum(g[k] * (1 / g[k] ** 2 - 1 / g[k - 1] ** 2) for k in range(1, len(g)))
    assert lp["m_star_value"] == float(value) and lp["bracket_formula"] == float(bracket)
    # the nested LP: max sum g m s.t. m >= 0, sum_{j<=k} m_j <= tau_k
    K = len(g)
    res = linprog(
        -np.array([float(d) for d in g]),
        A_ub=np.tril(np.ones((K, K))),
        b_ub=[float(t) for t in tau],
        bounds=[(0, None)] * K,
        method="highs",
    )
    assert lp["lp_optimum"] == pytest.approx(-res.fun, rel=1e-9)
    assert lp["lp_optimum"] > lp["m_star_value"]
    x = np.array(lp["lp_argmax"])
    assert (x >= 0).all() and (np.cumsum(x) <= np.array([float(t) for t in tau]) + 1e-9).all()
    assert float(np.dot([float(d) for d in g], x)) == pytest.approx(lp["lp_optimum"], rel=1e-5)
    assert lp["ucb1_peeling_lhs_rejects_unsorted"] is True


def test_initialization_regret(evidence):
    ev = evidence["initialization-regret"]
    assert ev["instance"] == "B_LB(16, 2, 0.2, 0.15)"
    # 14 suboptimal items, each first once, the other optimal item after it:
    # Delta (1 - p)^(K-1) each, Delta = 0.15, p = 0.2, K = 2
    assert F(ev["least_initialisation_regret"]) == 14 * F(15, 100) * (1 - F(1, 5)) ** 1


def test_theorem1_list_premise(evidence):
    ev = evidence["theorem1-list-premise"]
    # the pairs: every K-permutation of each of the search's 40 seeded instances
    rng = np.random.default_rng(0)
    pairs = 0
    for _ in range(40):
        L = int(rng.integers(2, 6))
        K = int(rng.integers(1, L + 1))
        rng.integers(0, 11, L)
        pairs += math.perm(L, K)
    assert ev["pairs_checked_exhaustively"] == pairs
    assert ev["bound_violation"] is None
    u = ev["ucb_inequality_without_premise"]
    # w = (9/10, 1/10), K = 1, A = (item 1): pi(1) is the optimal item 0, U(1) = 0 < U(0) = 1
    assert u["pi"] == [0] and u["A"] == [1] and u["U"] == [1.0, 0.0]
    assert u["U(a_1) >= U(pi(1))"] is (u["U"][u["A"][0]] >= u["U"][u["pi"][0]]) is False


def _min_ratio(w, K):
    """min over K-permutations A with S > 0 of E[R]/S (Theorem 1), computed from definitions."""
    order = sorted(range(len(w)), key=lambda e: -w[e])
    opt = order[:K]
    miss_opt = F(1)
    for e in opt:
        miss_opt *= 1 - w[e]
    best = None
    for A in itertools.permutations(range(len(w)), K):
        rest = iter([e for e in opt if e not in A])
        pi = [a if a in opt else next(rest) for a in A]
        S, reach, miss_a = F(0), F(1), F(1)
        for a, p in zip(A, pi, strict=True):
            if a not in opt:
                S += (w[p] - w[a]) * reach
            reach *= 1 - w[a]
            miss_a *= 1 - w[a]
        if S > 0:
            r = (miss_a - miss_opt) / S
            best = r if best is None or r < best else best
    return best


def test_theorem1_alpha(evidence):
    ev = evidence["theorem1-alpha"]
    assert len(ev) == 3
    for key, row in ev.items():
        ws, K = key.split(",K=")
        w = [F(x.strip(" '")) for x in ws[3:-1].split(",")]
        K = int(K)
        s = sorted(w, reverse=True)
        assert F(row["alpha_paper"]) == (1 - s[0]) ** (K - 1)
        sharp = F(1)
        for x in s[: K - 1]:
            sharp *= 1 - x
        assert F(row["alpha_sharp"]) == sharp
        assert F(row["min_over_A_regret_over_S"]) == _min_ratio(w, K) == sharp


def _F_gc(n, c=3):
    """sum_{t<=n} min(1, e max(1, ceil(delta log t)) e^-delta), delta = log t + c log log t,
    with log t -> 0 for t <= 1 and log log t -> 0 for t <= e (the toolkit's small-t rule)."""
    with mpmath.workdps(40):
        total = mpmath.mpf(0)
        for t in range(1, n + 1):
            lt = mpmath.log(t) if t > 1 else mpmath.mpf(0)
            llt = mpmath.log(mpmath.log(t)) if t > mpmath.e else mpmath.mpf(0)
            delta = lt + c * llt
            k = max(mpmath.ceil(delta * lt), 1)
            total += min(1, mpmath.e * k * mpmath.exp(-delta))
        return total


def test_gc_loglog_small_n(evidence):
    ev = evidence["gc-loglog-small-n"]
    assert sorted(int(k[2:]) for k in ev) == [3, 10, 20, 47, 48]
    for key, row in ev.items():
        n = int(key[2:])
        Fn = _F_gc(n)
        assert row["F(n)"] == pytest.approx(float(Fn), rel=1e-12)
        with mpmath.workdps(40):
            ll = 7 * mpmath.log(mpmath.log(n))
        assert row["7 log log n"] == pytest.approx(float(ll), rel=1e-14)
        assert row["holds"] is bool(Fn <= ll)
    # 48 is where the paper's 7 log log n starts to hold
    assert not ev["n=47"]["holds"] and ev["n=48"]["holds"]


def test_theorem4_large_p(evidence):
    ev = evidence["theorem4-large-p"]
    assert sorted(ev) == sorted(["K=8,p=0.125", "K=8,p=0.5", "K=8,p=0.9", "K=2,p=0.9"])
    for key, row in ev.items():
        K, p = int(key.split(",")[0][2:]), float(key.split("p=")[1])
        inst = b_lb(16, K, p, 0.1)
        L = inst.L
        with mpmath.workdps(50):
            P = mpmath.mpf(float(max(inst.weights)))
            Q = mpmath.mpf(float(min(inst.weights)))
            assert P == mpmath.mpf(p)
            d = P - Q
            factor = (1 - mpmath.mpf(p)) ** (K - 1)
            low = (L - K) * d * factor / _kl(Q, P)  # Theorem 4 on B_LB
            up = (L - K) * d * (1 + mpmath.log(1 / d)) / _kl(Q, P)  # Theorem 3, eps -> 0
            assert row["(1-p)^(K-1)"] == pytest.approx(float(factor), rel=1e-13)
            assert row["theorem4"] == pytest.approx(float(low), rel=1e-12)
            assert row["theorem3_leading"] == pytest.approx(float(up), rel=1e-12)
            assert row["ratio"] == pytest.approx(float(up / low), rel=1e-12)


def test_every_caveat_has_its_evidence_pinned(evidence):
    """A new caveat needs its test here: ``test_<id with '-' as '_'>`` (or the listed alias)."""
    alias = {"peeling-lp-constraints": "test_peeling_lp_constraints"}
    names = set(globals())
    for cid in evidence:
        name = alias.get(cid, "test_" + cid.replace("-", "_"))
        assert name in names, f"caveat {cid!r} has no evidence test {name} in this file"
