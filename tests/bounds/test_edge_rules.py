"""The documented edge rules of bounds (issue 25): small t, means 0 and 1, counts in the
billions, the horizon rule, the eps rule, UCB1 counts below 1 and the profile's ratio rule."""

import math
from types import SimpleNamespace

import mpmath
import numpy as np
import pytest

from cascading_bandits.bounds import _validate as V
from cascading_bandits.bounds import later, profile, upper
from cascading_bandits.bounds.garivier_cappe import (
    klucb_tail_constants,
    klucb_tail_constants_array,
    klucb_tail_root,
)
from cascading_bandits.bounds.indices import (
    cascade_klucb_index,
    klucb_threshold,
    ucb1_index,
    ucb1_radius,
)
from cascading_bandits.bounds.instance import CascadeInstance, b_lb
from cascading_bandits.bounds.kl import kl_upper_root_mp, klucb_index
from cascading_bandits.bounds.lower import theorem4_bound

PAPER = b_lb(16, 2, 0.2, 0.15)

# -- small t: log t and log log t -------------------------------------------------------------


def test_small_t_around_e():
    below, above = math.nextafter(math.e, 0), math.nextafter(math.e, 3)
    assert klucb_threshold(below) == math.log(below)  # log log t dropped up to e
    assert klucb_threshold(math.e) == 1.0
    assert klucb_threshold(above) == pytest.approx(math.log(above), abs=1e-15)
    # the UCB1 radius uses log(t - 1): 0 at t - 1 in {0, 1}, positive from t - 1 = 2 on
    assert ucb1_radius(0, 5) == ucb1_radius(1, 5) == 0.0
    assert ucb1_radius(2, 5) == pytest.approx(math.sqrt(1.5 * math.log(2) / 5), rel=1e-15)
    for t in (1, 2):
        assert ucb1_index(0.4, 7, t) == 0.4
    assert ucb1_index(0.4, 7, 3) == pytest.approx(0.4 + math.sqrt(1.5 * math.log(2) / 7))
    # at t = 1, 2 the KL-UCB index solves count kl(mean, q) <= log t (threshold log t)
    assert cascade_klucb_index(0.4, 7, 1) == 0.4
    assert cascade_klucb_index(0.4, 7, 2) == pytest.approx(klucb_index(0.4, 7, math.log(2)))


# -- means 0 and 1 ----------------------------------------------------------------------------


def test_means_zero_and_one():
    thr = klucb_threshold(1000)
    assert cascade_klucb_index(1.0, 50, 1000) == 1.0
    assert cascade_klucb_index(0.0, 50, 1000) == pytest.approx(-math.expm1(-thr / 50), rel=1e-14)
    assert ucb1_index(1.0, 50, 1000) > 1.0  # the UCB1 index may exceed 1, as in the paper
    assert ucb1_index(0.0, 50, 1000) == pytest.approx(math.sqrt(1.5 * math.log(999) / 50))
    # beta = inf at mu = 0 is documented (C2 / n^beta = 0 for n >= 2); C2 stays finite
    C2, beta = klucb_tail_constants_array([0.0, 0.3], [0.6, 0.6], 0.5)
    assert C2[0] == 1.0 and beta[0] == math.inf and np.isfinite(C2).all()
    assert 0 < klucb_tail_root(0.0, 0.6, 0.5) < 0.6  # was nan


# -- counts in the billions -------------------------------------------------------------------


@pytest.mark.parametrize("count", [3e9, 2.0**40, 1e12])
def test_counts_in_the_billions(count):
    t = 10 * count
    want = mpmath.mpf(0.3) + mpmath.sqrt(mpmath.mpf(1.5) * mpmath.log(t - 1) / count)
    assert ucb1_index(0.3, count, t) == pytest.approx(float(want), rel=1e-15)
    thr = klucb_threshold(t)
    ref = kl_upper_root_mp(0.3, mpmath.mpf(thr) / mpmath.mpf(count), dps=50)
    assert abs(cascade_klucb_index(0.3, count, t) - float(ref)) <= 1e-12
    assert cascade_klucb_index(0.3, count, t) > 0.3


def test_ucb1_counts_below_one_are_refused():
    for bad in (0, 0.5, 1e-320, 5e-324, -1, math.inf):
        with pytest.raises(ValueError, match=r"count \(number of observations\) must be finite"):
            ucb1_index(0.7, bad, 1e5)
        with pytest.raises(ValueError, match=r"s \(number of observations\)"):
            ucb1_radius(1e5, bad)
    assert math.isfinite(ucb1_index(0.7, 1, 1e5))
    # KL-UCB counts may be 0 (index 1) and tiny (the index tends to 1, never above)
    assert klucb_index(0.7, 0, 5.0) == 1.0
    assert 0.7 < klucb_index(0.7, 1e-320, 5.0) <= 1.0


# -- the horizon rule -------------------------------------------------------------------------


def test_horizon_rule():
    assert V.MAX_HORIZON == 1e300
    assert V.horizon("n", 1e300) == int(1e300) and V.horizon("n", np.int64(7)) == 7
    for bad in (10**400, 10**301, 2e300, 0, 1.5, math.inf, math.nan, None, "10", True):
        with pytest.raises(ValueError, match="^n must be an integer"):
            V.horizon("n", bad)
    a, scalar = V.horizons("n", [[1, 2], [3, 1e300]])
    assert not scalar and a.shape == (2, 2) and a.dtype == np.float64
    assert V.horizons("n", [])[0].shape == (0,)
    for bad in ([1, 10**400], [1, 0], [[1], [2, 3]], np.array([True, False])):
        with pytest.raises(ValueError, match=r"^n must be an integer in \[1, 1e300\]"):
            V.horizons("n", bad)


@pytest.mark.parametrize(
    "f",
    [
        lambda n: upper.theorem2_bound(PAPER, n),
        lambda n: upper.theorem3_prepeeling(PAPER, n, 0.5),
        lambda n: upper.theorem3_optimal_eps(PAPER, n),
        lambda n: theorem4_bound(PAPER, n),
        lambda n: later.theorem3_gapfree_bound(PAPER, n, eps=0.5),
        lambda n: later.ledger(PAPER, n),
        lambda n: later.theorem2_gapfree_bound(16, 2, n),
        lambda n: klucb_threshold(n),
    ],
)
def test_every_horizon_entry_refuses_10_to_400(f):
    with pytest.raises(ValueError, match=r"(n|t) must be"):
        f(10**400)


def test_gapfree_bounds_are_finite_up_to_the_maximum():
    # sqrt(n) is taken apart: n (L - K) K' log n alone leaves float64 near n = 1e300
    v = later.theorem2_gapfree_bound(10**6, 5 * 10**5, 1e300)
    want = 4 * math.sqrt(3 * 5e5 * 5e5 * math.log(1e300)) * 1e150 + math.pi**2 * 1e6 / 3
    assert v == pytest.approx(want, rel=1e-12)
    assert math.isfinite(later.theorem3_gapfree_leading(10**6, 5 * 10**5, 1e300, 0.5))


# -- eps: below the smallest value with a finite C_2 ------------------------------------------


def test_eps_rule():
    with pytest.raises(ValueError, match="eps = 1e-300 makes C_2"):
        klucb_tail_constants(0.05, 0.2, 1e-300)
    with pytest.raises(ValueError, match="eps = 1e-300 makes C_2"):
        upper.theorem3_tail_constants(PAPER, 1e-300)
    # at n = 1e7 Corollary 3 keeps every pair (theta* < 0.15): C_2 at eps = 1e-300 overflows
    with pytest.raises(ValueError, match="eps = 1e-300"):
        later.theorem3_gapfree_bound(PAPER, 10**7, eps=1e-300)
    # at n = 1000 theta* = 0.27 exceeds every gap: no C_2 enters, the bound is finite
    v, e = later.theorem3_gapfree_bound(PAPER, 1000, eps=1e-300)
    assert e == 1e-300 and math.isfinite(v)
    assert math.isfinite(klucb_tail_constants(0.05, 0.2, 1e-100)[0])


# -- later: thresholds and ratios that were nan -----------------------------------------------


def test_threshold_zero_where_no_positive_optimum():
    assert later.theorem2_gapfree_threshold(4, 4, 1000) == 0.0  # K = L
    assert later.theorem2_gapfree_threshold(4, 2, 1) == 0.0  # log n = 0
    assert later.theorem3_gapfree_threshold(4, 2, 1, 0.5) == 0.0  # the same rule
    np.testing.assert_array_equal(later.theorem2_gapfree_threshold(4, 2, [1, 1]), [0.0, 0.0])


def test_graves_lai_edges():
    with pytest.raises(ValueError, match=r"w\(1\) = 1"):
        later.graves_lai_over_theorem4(CascadeInstance((1.0, 0.5, 0.3, 0.0), 2))
    assert later.graves_lai_over_theorem4(CascadeInstance((1.0, 0.5), 1)) == 1.0
    assert later.graves_lai_lp_coefficient(CascadeInstance((0.4,) * 4, 2)) == 0.0
    with pytest.raises(ValueError, match="kl"):
        later.graves_lai_lp_coefficient(CascadeInstance((0.5, 0.5 - 2**-54), 1))


# -- profile: p = 1 and weights 1, 1, 0, 0 ----------------------------------------------------


def test_ratio_rule():
    assert profile._ratio(3.0, 0.0) == math.inf
    assert profile._ratio(0.0, 0.0) == 1.0
    assert profile._ratio(3.0, 2.0) == 1.5
    r, lo, hi = profile.ratio_interval([0.0, 0.0, 0.0], [0.0, 0.0, 0.0])
    assert (r, lo, hi) == (1.0, 1.0, 1.0)
    r, lo, hi = profile.ratio_interval([1.0, 2.0, 3.0], [0.0, 0.0, 0.0])
    assert r == lo == hi == math.inf
    with pytest.raises(ValueError, match="num must hold finite values >= 0"):
        profile.ratio_interval([1.0, -1.0], [1.0, 1.0])


@pytest.mark.parametrize("weights, K", [((1.0,) * 2 + (0.85,) * 14, 2), ((1.0, 1.0, 0.0, 0.0), 2)])
def test_asymptotic_factors_with_a_mean_one(weights, K):
    for policy in profile.CHAIN_POLICIES:
        rows = profile.asymptotic_factors(weights, K, policy, n=1000)
        assert rows[0]["coefficient"] == 0.0  # alpha = (1 - w(1))^(K-1) = 0
        assert all(r["factor"] is None for r in rows[:3])
        for prev, row in zip(rows, rows[1:], strict=False):
            if prev["coefficient"] > 0 and row is not rows[2]:
                assert row["factor"] == pytest.approx(row["coefficient"] / prev["coefficient"])
    with pytest.raises(ValueError, match="n must be an integer >= 2"):
        profile.asymptotic_factors(weights, K, "cascade-klucb", n=1)


def test_proof_chain_with_zero_regret():
    """p = 1: KL-UCB's tau is 0 and a run may have regret 0; the chain follows the ratio rule."""
    w, K, n, runs = (1.0, 1.0, 0.85, 0.85), 2, 1000, 3
    tau, eps = profile.proof_thresholds(w, K, "cascade-klucb", n, eps=0.5)
    assert (tau == 0).all() and eps == 0.5  # kl(w(e), 1) = inf
    zeros = np.zeros((runs, 2, 2), dtype=np.int64)
    pc = SimpleNamespace(
        weights=w, K=K, policy="cascade-klucb", order="best-first", horizon=n, tau=tau,
        G=zeros, G_good=zeros, M=zeros, Mbar_good=zeros, regret=np.zeros(runs),
        regret_bad=np.zeros(runs), bad_steps=np.zeros(runs), thm1_upper_good=np.zeros(runs),
        thm1_exact_good=np.zeros(runs),
    )  # fmt: skip
    ch = profile.proof_chain(pc, eps=0.5)
    links = ch["links"]
    assert links[0]["mean"] == 0.0 and links[1]["ratio"] == 1.0  # 0 / 0: nothing lost
    assert links[-1]["mean"] > 0 and ch["total_factor"] == math.inf
    assert ch["parts"]["M_over_tau_max"] == 1.0  # 0 counted against tau = 0
    for x in links[1:]:
        assert not math.isnan(x["ratio"]) and not math.isnan(x["ratio_lo"])
    with pytest.raises(ValueError, match="counters must be a simulate.counters.ProofCounters"):
        profile.proof_chain(None)


def test_binomial_bounds_with_a_weight_near_zero():
    """Boost's binomial pmf overflows for p below about 1e-306: the 30-digit fallback is used."""
    from cascading_bandits.bounds import sharp

    tiny = 1.1125369292536007e-308
    pmf = sharp._binom_pmf(
        np.array([-1.0, 0.0, 1.0, 19.0]), np.array([1.0, 33.0, 33.0, 33.0]), tiny
    )
    assert pmf[0] == 0.0 and pmf[1] == 1.0 and pmf[3] == 0.0
    assert pmf[2] == pytest.approx(33 * tiny, rel=1e-14)
    inst = CascadeInstance((1.0, 0.0, tiny), 1)
    for f in (sharp.ucb1_binomial_bound, sharp.klucb_binomial_bound):
        v = f(inst, 33)
        assert math.isfinite(v) and v == pytest.approx(f(CascadeInstance((1.0, 0.0, 0.0), 1), 33))
