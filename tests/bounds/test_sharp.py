"""The binomial-tail regret bounds of bounds.sharp: hand values, mpmath references, edges.

Hand values (w = (1/2, 1/4), K = 1) are worked out in the comments; the references are the
50-digit direct double sum (binomial_bound_reference), exact thresholds by bisection with the
exact predicate, and 50-digit binomial tails (verify.claims_sharp.binom_sf_mp).
"""

import json
import math
from pathlib import Path

import mpmath
import numpy as np
import pytest
from _bounds_strategies import instances
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from cascading_bandits.bounds import CascadeInstance, b_lb, sharp
from cascading_bandits.bounds.kl import kl_mp
from cascading_bandits.bounds.sharp import (
    MAX_HORIZON,
    a_part,
    a_part_count,
    admission_threshold_reference,
    admission_thresholds,
    b_count_per_item,
    b_part_per_item,
    binomial_bound,
    binomial_bound_parts,
    binomial_bound_reference,
    chernoff_tail_bound,
    klucb_binomial_bound,
    ucb1_binomial_bound,
    ucb1_miss_probability,
)
from cascading_bandits.verify.claims_sharp import binom_sf_mp

POLICIES = ("cascade-ucb1", "cascade-klucb")
ROOT = Path(__file__).resolve().parents[2]
HALF_QUARTER = CascadeInstance((0.5, 0.25), 1)


# ---------------------------------------------------------------------------
# hand-worked values
# ---------------------------------------------------------------------------

# w = (1/2, 1/4), K = 1: one layer of width 1/4, A-weight w(1) - w(2) = 1/4.
# n = 1 (radius 0, f = 0): m_1 = 1, B = 1/4 * P(Bin(1, 1/4) >= 1) = 1/16; B_A(1) = 1.
# n = 2, UCB1 (radius 0): m_1 = 1, m_2 = 1: B = 1/4 (1/4 + 7/16); B_A = 2.
# n = 2, KL-UCB (f = log 2): s = 1, j = 0: kl(0, 1/2) = log 2 <= f, so m_1 = 0; m_2 = 1:
#   B = 1/4 (1 + 7/16); B_A = 2 (Theorem 10's bound is e/2 > 1 at t = 2).
# n = 3, UCB1 alpha = 3/2: c_{2,s} = sqrt(1.5 log 2 / s) >= 0.5887 > 1/2 for s <= 3, m_s = 0:
#   B = 3/4; B_A = 1 + 1 + 3 * 2^-3.
# n = 3, KL-UCB c = 3: f = log 3 + 3 log log 3 = 1.3808: m_1 = 0, m_2 = 1 (2 log 2 > f),
#   m_3 = 1 (3 kl(1/3, 1/2) = 0.170): B = 1/4 (1 + 7/16 + 37/64); B_A = 3.
HAND = [
    ("cascade-ucb1", 1, 1 / 16, 1.0),
    ("cascade-klucb", 1, 1 / 16, 1.0),
    ("cascade-ucb1", 2, 0.25 * (0.25 + 7 / 16), 2.0),
    ("cascade-klucb", 2, 0.25 * (1 + 7 / 16), 2.0),
    ("cascade-ucb1", 3, 0.75, 2.375),
    ("cascade-klucb", 3, 0.25 * (1 + 7 / 16 + 37 / 64), 3.0),
]


@pytest.mark.parametrize("policy, n, b, a_count", HAND)
def test_hand_values(policy, n, b, a_count):
    parts = binomial_bound_parts(HALF_QUARTER, n, policy)
    assert parts["a_count"] == pytest.approx(a_count, rel=1e-9)
    assert parts["a_count"] >= a_count
    assert parts["b_part"] == pytest.approx(b, rel=1e-9)
    assert parts["b_part"] >= b
    assert parts["total"] == pytest.approx(b + 0.25 * a_count, rel=1e-9)
    ref = binomial_bound_reference(HALF_QUARTER, n, policy)
    assert float(ref["total"]) == pytest.approx(b + 0.25 * a_count, rel=1e-30)


def test_small_t_rules():
    assert ucb1_miss_probability(1) == 1.0
    assert ucb1_miss_probability(2) == 1.0
    assert ucb1_miss_probability(3) == pytest.approx(3 / 8, rel=1e-15)
    assert ucb1_miss_probability(4, alpha=1.0) == pytest.approx(4 / 9, rel=1e-15)
    np.testing.assert_allclose(ucb1_miss_probability([1, 2, 3, 4], 2.0), [1, 1, 3 / 16, 4 / 81])
    # alpha <= 1/2: every term is 1
    assert a_part_count(1000, "cascade-ucb1", 0.5) == 1000.0
    assert a_part_count(1000, "cascade-ucb1", 0.0) == 1000.0
    for n in (1, 2, 3):
        assert a_part_count(n, "cascade-klucb") == pytest.approx(n, rel=1e-9)
    # radius 0 at n <= 2: the threshold is ceil(s v)
    assert list(admission_thresholds(0.3, [1, 2, 10], 2, "cascade-ucb1")) == [1, 1, 3]
    # f(1) = 0: the KL index is the mean
    assert list(admission_thresholds(0.3, [1, 2, 10], 1, "cascade-klucb")) == [1, 1, 3]


def test_ucb1_terms_in_blocks_equal_one_pass_bit_for_bit():
    """B_A's 2**20 terms are made in cache-sized blocks: the same bits as one pass."""
    from cascading_bandits.bounds.sharp import _A_EXACT, _ucb1_miss, _ucb1_terms

    t = np.arange(1, _A_EXACT + 1, dtype=np.float64)
    for alpha in (0.51, 1.0, 1.5, 3.7):
        assert np.array_equal(_ucb1_terms.__wrapped__(alpha), _ucb1_miss(t, alpha))


# ---------------------------------------------------------------------------
# references
# ---------------------------------------------------------------------------


def _random_instance(rng, L_max=5, grid=False):
    L = int(rng.integers(2, L_max + 1))
    K = int(rng.integers(1, L))
    w = rng.integers(0, 9, L) / 8.0 if grid else rng.uniform(0.01, 0.99, L)
    return CascadeInstance(tuple(float(x) for x in w), K)


@pytest.mark.parametrize("seed", range(6))
def test_against_reference(seed):
    rng = np.random.default_rng(seed)
    for policy in POLICIES:
        inst = _random_instance(rng, L_max=4)
        n = int(rng.integers(1, 16))
        param = (
            float(rng.choice([0.7, 1.5, 2.5]))
            if policy == "cascade-ucb1"
            else float(rng.choice([0.0, 1.0, 3.0]))
        )
        ref = binomial_bound_reference(inst, n, policy, param)
        fast = binomial_bound_parts(inst, n, policy, param)
        for key in ("a_part", "b_part", "total"):
            r = float(ref[key])
            assert fast[key] >= r
            assert fast[key] <= r * (1 + 1e-9) + 1e-300
        np.testing.assert_allclose(fast["b_per_item"], [float(x) for x in ref["b_per_item"]],
                                   rtol=1e-9, atol=0)  # fmt: skip


@pytest.mark.parametrize("seed", range(3))
def test_against_reference_grid_weights_and_edges(seed):
    """Ties, 0 and 1: the fast value is never below the reference."""
    rng = np.random.default_rng(100 + seed)
    for policy in POLICIES:
        inst = _random_instance(rng, L_max=4, grid=True)
        n = int(rng.integers(1, 12))
        ref = float(binomial_bound_reference(inst, n, policy)["total"])
        fast = binomial_bound(inst, n, policy)
        assert fast >= ref
        assert fast <= ref * (1 + 1e-3) + 1e-300  # one threshold coincidence at most moves it


@settings(max_examples=12)
@given(instances(max_L=4), st.integers(1, 10), st.sampled_from(POLICIES))
def test_reference_property(inst, n, policy):
    ref = float(binomial_bound_reference(inst, n, policy, dps=30)["total"])
    fast = binomial_bound(inst, n, policy)
    assert ref <= fast <= ref * (1 + 1e-3) + 1e-300


def test_thresholds_against_exact():
    rng = np.random.default_rng(7)
    for i in range(300):
        policy = POLICIES[i % 2]
        v = float(rng.uniform())
        n = int(np.exp(rng.uniform(0, math.log(1e7))))
        s = int(np.exp(rng.uniform(0, math.log(1e5))))
        param = float(rng.choice([0.0, 1.5, 3.0]))
        fast = int(admission_thresholds(v, s, n, policy, param))
        exact = admission_threshold_reference(v, s, n, policy, param)
        assert fast == exact, (policy, v, s, n, param)


def test_thresholds_never_above_exact_at_edges():
    for policy in POLICIES:
        for v in (0.0, 1e-13, 0.25, 0.5, 1.0):
            for n in (1, 2, 3, 100, 10**6):
                for s in (1, 2, 3, 4, 8, 1000):
                    fast = int(admission_thresholds(v, s, n, policy))
                    exact = admission_threshold_reference(v, s, n, policy)
                    assert fast <= exact
                    assert 0 <= fast <= s  # j = s is always admitted (s/s = 1 >= v)
    # v = 0: j = 0 is admitted
    assert int(admission_thresholds(0.0, 5, 3, "cascade-klucb")) == 0


def test_binomial_tails_against_mpmath():
    rng = np.random.default_rng(11)
    worst = 0.0
    for _ in range(120):
        s = int(np.exp(rng.uniform(0, math.log(2e5))))
        p = float(np.exp(rng.uniform(math.log(1e-5), 0.0))) * 0.9999
        sd = math.sqrt(s * p * (1 - p))
        m = int(min(s, max(1, round(s * p + rng.uniform(-6, 15) * sd))))
        ref = binom_sf_mp(m, s, p)
        if ref < mpmath.mpf("1e-280"):
            continue
        got = mpmath.mpf(float(stats.binom.sf(m - 1, s, p)))
        worst = max(worst, float(abs(got - ref) / ref))
    assert worst < 1e-11  # the bound inflates the tails by 1e-10


@pytest.mark.parametrize("seed", range(4))
def test_recurrence_tails_against_scipy_and_mpmath(seed):
    """The windowed recurrences (bounds.sharp._recur_tails) against SciPy and 50 digits."""
    rng = np.random.default_rng(seed)
    worst = 0.0
    for it in range(40):
        code = it % 2
        v = float(rng.uniform(0.01, 1.0))
        mu = float(v * rng.choice([rng.uniform(), 0.999, 1.0, 1e-3]))
        n = int(np.exp(rng.uniform(math.log(3), math.log(1e7))))
        s0 = int(np.exp(rng.uniform(0, math.log(1e5))))
        cnt = int(rng.integers(1, 2049))
        m = np.empty(cnt, dtype=np.int64)
        if it % 3 == 2:  # a random walk of thresholds, with decrements and jumps of 2
            m[:] = np.cumsum(rng.integers(-1, 3, cnt)) + int(s0 * rng.uniform())
            m[:] = np.clip(m, 0, np.arange(s0, s0 + cnt) + 1)
        else:
            par = sharp._level_param(code, 1.5 if code == 0 else 3.0, n)
            sharp._scan(s0, cnt, 0, v, code, par * (1 + 1e-11) if code else par, m)
        out, fl = np.empty(cnt), np.empty(cnt, dtype=np.int8)
        got = sharp._block_tails(m, s0, mu, out, fl).copy()
        ss = np.arange(s0, s0 + cnt)
        ref = stats.binom.sf(m - 1, ss, mu)
        assert np.all(got[fl == 1] >= ref[fl == 1])  # taken as 1
        big = (fl != 1) & (ref > 1e-250)
        if big.any():
            worst = max(worst, float(np.max(np.abs(got[big] - ref[big]) / ref[big])))
        for i in rng.choice(cnt, size=2):
            if fl[i] != 1 and ref[i] > 1e-250:
                exact = binom_sf_mp(int(m[i]), int(ss[i]), mu)
                assert abs(mpmath.mpf(float(got[i])) - exact) <= 3e-11 * exact
    assert worst < 1e-11


def test_boost_ufuncs_agree_with_scipy_stats():
    rng = np.random.default_rng(3)
    for p in (1e-9, 0.3, 0.999999):
        s = rng.integers(1, 10**6, 2000)
        k = rng.integers(-1, s + 2)
        assert np.array_equal(sharp._binom_sf(k, s, p), stats.binom.sf(k, s, p))
        assert np.array_equal(sharp._binom_pmf(k, s, p), stats.binom.pmf(k, s, p))


def test_binom_sf_mp_small_exact():
    # P(Bin(3, 1/4) >= 1) = 37/64, P(Bin(4, 1/2) >= 2) = 11/16
    assert binom_sf_mp(1, 3, 0.25) == mpmath.mpf(37) / 64
    assert abs(binom_sf_mp(2, 4, 0.5) - mpmath.mpf(11) / 16) < mpmath.mpf(10) ** -45
    assert binom_sf_mp(0, 4, 0.3) == 1 and binom_sf_mp(5, 4, 0.3) == 0


# ---------------------------------------------------------------------------
# truncation
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("policy", POLICIES)
def test_truncated_equals_full_sum(policy):
    """The truncated evaluation against the full sum over s = 1..n (same thresholds)."""
    inst = b_lb(16, 8, 0.2, 0.075)
    n = 10**4
    ss = np.arange(1, n + 1)
    full = 0.0
    for v, mu in ((0.2, 0.125),):
        m = admission_thresholds(v, ss, n, policy)
        full = (v - mu) * math.fsum(stats.binom.sf(m - 1, ss, mu))
    B = b_part_per_item(inst, n, policy)
    assert B.shape == (8,)
    assert np.all(B >= full)
    np.testing.assert_allclose(B, full, rtol=2e-10)


def test_chernoff_tail_bound():
    for policy in POLICIES:
        v, mu, n = 0.6, 0.2, 3000
        S = 400
        bound = chernoff_tail_bound(v, mu, S, n, policy)
        s = np.arange(S + 1, n + 1)
        rest = math.fsum(stats.binom.sf(admission_thresholds(v, s, n, policy) - 1, s, mu))
        assert math.isfinite(bound) and bound >= rest
        assert chernoff_tail_bound(v, mu, n, n, policy) == 0.0
        assert chernoff_tail_bound(v, mu, 1, n, policy) == math.inf  # boundary below mu at s = 2


def test_tail_bound_float_path_against_mpmath():
    """Where (S+1) kappa > 25 the geometric bound is evaluated in float64; it must not fall
    below its 50-digit value."""
    rng = np.random.default_rng(9)
    used = 0
    for _ in range(300):
        mu = float(np.exp(rng.uniform(math.log(1e-6), 0.0))) * 0.999
        x = mu + float(rng.uniform(0, 1 - mu)) * float(rng.choice([1.0, 1e-2, 1e-3]))
        S = int(np.exp(rng.uniform(0, math.log(MAX_HORIZON))))
        kappa = float(kl_mp(x, mu, dps=50))
        if not (x > mu and (S + 1) * kappa > 25):
            continue
        used += 1
        got = sharp._tail_bound(S, x, mu)
        with mpmath.workdps(50):
            k = kl_mp(x, mu)
            ref = mpmath.exp(-(S + 1) * k) / -mpmath.expm1(-k)
        assert got >= ref
        assert got <= ref * (1 + 1e-5) + 2e-300
    assert used > 100


# ---------------------------------------------------------------------------
# structure: shapes, monotonicity, parts, edges
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("policy", POLICIES)
def test_vectorised_equals_scalar(policy):
    inst = CascadeInstance((0.7, 0.3, 0.65, 0.1, 0.3), 2)
    ns = np.array([[1, 2, 3], [50, 777, 10**4]])
    v = binomial_bound(inst, ns, policy)
    assert v.shape == (2, 3)
    for idx in np.ndindex(ns.shape):
        assert v[idx] == binomial_bound(inst, int(ns[idx]), policy)
    B = b_part_per_item(inst, ns, policy)
    assert B.shape == (2, 3, 3)
    assert np.array_equal(B[1, 2], b_part_per_item(inst, 10**4, policy))
    assert isinstance(binomial_bound(inst, 5, policy), float)
    assert binomial_bound(inst, np.array([], dtype=int), policy).shape == (0,)


@pytest.mark.parametrize("policy", POLICIES)
def test_monotone_in_n(policy):
    ns = np.unique(np.geomspace(1, 2e5, 40).astype(int))
    for inst in (b_lb(16, 4, 0.2, 0.15), CascadeInstance((0.9, 0.4, 0.35, 0.0, 1e-3), 2)):
        v = binomial_bound(inst, ns, policy)
        assert np.all(np.diff(v) >= -1e-9 * v[:-1])
        assert np.all(np.diff(a_part_count(ns, policy)) >= 0)


def test_parts_add_up_and_count_bound():
    inst = CascadeInstance((0.8, 0.5, 0.5, 0.45, 0.2, 0.2, 0.0), 3)
    for policy in POLICIES:
        p = binomial_bound_parts(inst, 5000, policy)
        assert p["total"] == pytest.approx(p["a_part"] + p["b_part"], rel=1e-15)
        assert p["b_part"] == pytest.approx(p["b_per_item"].sum(), rel=1e-11)
        assert p["a_weight"] == pytest.approx((0.8 - 0) + (0.5 - 0) + (0.5 - 0), rel=1e-11)
        assert p["a_part"] == pytest.approx(a_part(inst, 5000, policy), rel=1e-15)
        # equal weights share their term
        assert p["b_per_item"][1] == p["b_per_item"][2]
        C = b_count_per_item(inst, 5000, policy)
        gap = 0.8 - inst.suboptimal_weights
        assert np.all(p["b_per_item"] <= gap * C * (1 + 1e-9))
        # w(e) = 0: the count is the number of s with m_s = 0, at most n
        assert 0 <= C[-1] <= 5000
    # one layer (K = 1): the B-part is the gap times the count
    inst = CascadeInstance((0.6, 0.3, 0.1), 1)
    for policy in POLICIES:
        B = b_part_per_item(inst, 2000, policy)
        C = b_count_per_item(inst, 2000, policy)
        np.testing.assert_allclose(B, (0.6 - inst.suboptimal_weights) * C, rtol=1e-11)


def test_count_for_zero_weight_against_direct():
    for policy in POLICIES:
        inst = CascadeInstance((0.3, 0.0), 1)
        n = 4000
        C = b_count_per_item(inst, n, policy)[0]
        m = admission_thresholds(0.3, np.arange(1, n + 1), n, policy)
        assert C >= np.sum(m == 0) and C == pytest.approx(np.sum(m == 0), rel=1e-9)


def test_regret_free_and_degenerate_instances():
    for policy in POLICIES:
        assert binomial_bound(CascadeInstance((0.3, 0.6), 2), 100, policy) == 0.0
        assert binomial_bound(CascadeInstance((0.4, 0.4, 0.4), 1), 100, policy) == 0.0
        assert binomial_bound(CascadeInstance((1.0, 1.0), 1), 100, policy) == 0.0
        assert b_part_per_item(CascadeInstance((0.3, 0.6), 2), [1, 2], policy).shape == (2, 0)
        # 0 and 1: finite, and against the reference
        inst = CascadeInstance((1.0, 0.0, 0.5), 1)
        ref = float(binomial_bound_reference(inst, 8, policy)["total"])
        assert ref <= binomial_bound(inst, 8, policy) <= ref * (1 + 1e-9)
        assert math.isfinite(binomial_bound(inst, 10**6, policy))


def test_input_forms_agree():
    w, K = (0.5, 0.1, 0.3), 1
    a = ucb1_binomial_bound(CascadeInstance(w, K), 300)
    assert ucb1_binomial_bound((list(w), K), 300) == a
    assert ucb1_binomial_bound(list(w), 300, K=K) == a
    assert klucb_binomial_bound(w, 300, K=K) == binomial_bound(w, 300, "cascade-klucb", 3.0, K=K)


def test_parameters_change_the_bound_as_expected():
    inst = b_lb(8, 2, 0.3, 0.1)
    u = [ucb1_binomial_bound(inst, 10**4, a) for a in (1.0, 1.5, 2.0)]
    k = [klucb_binomial_bound(inst, 10**4, c) for c in (0.0, 1.0, 3.0)]
    assert u[0] < u[1] < u[2]
    # c = 0 and 1 have large A-parts (Theorem 10's sum grows like log n), yet the B-part grows in c
    kb = [b_part_per_item(inst, 10**4, "cascade-klucb", c).sum() for c in (0.0, 1.0, 3.0)]
    assert kb[0] < kb[1] < kb[2]
    assert all(math.isfinite(x) for x in k)


def test_large_horizon_a_part_integral():
    n = (1 << 20) + 200_000
    for alpha in (0.55, 1.0, 1.5):
        t = np.arange(1, n + 1, dtype=np.float64)
        terms = np.where(t >= 3, np.minimum(1.0, t * np.maximum(t - 1, 1) ** (-2 * alpha)), 1.0)
        direct = math.fsum(terms)
        got = a_part_count(n, "cascade-ucb1", alpha)
        assert direct <= got <= direct * (1 + 1e-3)


# ---------------------------------------------------------------------------
# Table 1 of the paper
# ---------------------------------------------------------------------------


def _table1():
    data = json.loads((ROOT / "reports" / "data" / "paper_tables.json").read_text())
    return data["tables"]["table1"]["rows"]


def test_table1_values_and_ratios():
    for row in _table1():
        inst = b_lb(row["L"], row["K"], 0.2, row["delta"])
        u = ucb1_binomial_bound(inst, 10**5)
        k = klucb_binomial_bound(inst, 10**5)
        mu, mk = row["cascade-ucb1"][0], row["cascade-klucb"][0]
        assert mu < u <= 4 * mu, row
        assert mk < k <= 3 * mk, row


def test_pinned_values():
    inst = b_lb(16, 2, 0.2, 0.15)
    assert ucb1_binomial_bound(inst, 10**5) == pytest.approx(1616.0842284, rel=1e-8)
    assert klucb_binomial_bound(inst, 10**5) == pytest.approx(427.2268088, rel=1e-8)


# ---------------------------------------------------------------------------
# bad input
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call",
    [
        lambda: binomial_bound(HALF_QUARTER, 10, "cascade-ts"),
        lambda: binomial_bound(HALF_QUARTER, 10, 3),
        lambda: ucb1_binomial_bound(HALF_QUARTER, 10, -1.0),
        lambda: ucb1_binomial_bound(HALF_QUARTER, 10, math.inf),
        lambda: klucb_binomial_bound(HALF_QUARTER, 10, math.nan),
        lambda: ucb1_binomial_bound(HALF_QUARTER, 0),
        lambda: ucb1_binomial_bound(HALF_QUARTER, 2.5),
        lambda: ucb1_binomial_bound(HALF_QUARTER, "10"),
        lambda: ucb1_binomial_bound(HALF_QUARTER, MAX_HORIZON + 1),
        lambda: ucb1_binomial_bound(HALF_QUARTER, [10, 0]),
        lambda: ucb1_binomial_bound(HALF_QUARTER, [10, np.nan]),
        lambda: ucb1_binomial_bound(HALF_QUARTER, [10, MAX_HORIZON * 2]),
        lambda: ucb1_binomial_bound([0.5, 1.5], 10, K=1),
        lambda: ucb1_binomial_bound([0.5, 0.2], 10, K=3),
        lambda: ucb1_binomial_bound([0.5, 0.2], 10),
        lambda: ucb1_binomial_bound(HALF_QUARTER, 10, K=2),
        lambda: admission_thresholds(1.5, 3, 10),
        lambda: admission_thresholds(0.5, 0, 10),
        lambda: admission_thresholds(0.5, 3, 0),
        lambda: chernoff_tail_bound(0.5, 0.2, -1, 10),
        lambda: chernoff_tail_bound(0.5, -0.2, 1, 10),
        lambda: ucb1_miss_probability(0),
        lambda: ucb1_miss_probability(3, alpha=-1),
        lambda: a_part_count(10, "cascade-klucb", -3),
        lambda: binomial_bound_reference(HALF_QUARTER, sharp.REFERENCE_MAX_HORIZON + 1),
        lambda: binomial_bound_reference(HALF_QUARTER, 3, dps=5),
    ],
)
def test_bad_input_rejected(call):
    with pytest.raises(ValueError):
        call()


# ---------------------------------------------------------------------------
# the claims of verify.claims_sharp hold on a small budget
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "claim_id",
    ["sharp.a_part", "sharp.pathwise", "sharp.layer_cake", "sharp.truncation", "sharp.reference",
     "sharp.exact_small"],
)  # fmt: skip
def test_claims_hold(claim_id):
    from cascading_bandits import verify
    from cascading_bandits.verify.registry import get_claim

    verify.load_claims()
    v = get_claim(claim_id).run(examples=8, seed=2)
    assert v.status == "holds", (v.counterexample, v.notes)
    assert v.min_slack is None or v.min_slack >= -1e-12
