"""cascade-ts's threshold sampler (simulate.policies._ts_threshold): the plain loop's law.

The sampler uses the random numbers differently from the plain loop, so the tests compare
laws: the list of one step (set and order) with the posteriors held fixed, on each of its
three paths (forced by the thresholds), against independent numpy Beta draws by a
chi-square test of homogeneity, and the regret curves of whole runs against the plain
loop's. A sampler that drops the conditioning of its completion is rejected by the same
test (its power is checked on that very defect). With several hundred items a level's
Poisson points fill several batches: there the list law is tested too, and each group's
count of samples found above tau against its binomial mean.
"""

import math

import numba
import numpy as np
import pytest
from scipy import stats

from cascading_bandits.bounds.instance import b_lb
from cascading_bandits.simulate.engine import simulate_runs
from cascading_bandits.simulate.models import make_model
from cascading_bandits.simulate.policies._ts_threshold import (
    IV,
    NB,
    NSTATS,
    PB,
    STATS,
    _level,
    _place,
    _set_taus,
    _state,
    _tables,
    run_threshold,
    sample_lists,
)
from cascading_bandits.simulate.policies.ts import INVERSION_MIN_L, kernel
from cascading_bandits.simulate.rng import policy_keys, users_keys

# fixed posteriors Beta(1 + S, 1 + N - S) of 7 items, K = 3: 210 ordered lists
S = np.array([0, 1, 3, 0, 2, 5, 1], np.int64)
N = np.array([1, 2, 8, 4, 3, 9, 6], np.int64)
K, DRAWS = 3, 60000
# thresholds (tau1, tau2) -> paths taken: level 1 (heads included) mostly; the second
# level often; the O(L) completion on about half the steps (fewer than K above tau2)
PATHS = {
    "level1": (0.3, 0.1),
    "level2": (0.6, 0.4),
    "completion": (0.97, 0.5),
}


def _codes(lists):
    return (lists * len(S) ** np.arange(lists.shape[1])).sum(axis=1)


def _reference(seed, draws=DRAWS):
    """The plain loop's lists with numpy's Beta sampler: the K largest, decreasing."""
    th = np.random.default_rng(seed).beta(1.0 + S, 1.0 + N - S, size=(draws, len(S)))
    return np.argsort(-th, axis=1)[:, :K], th


def _pvalue(lists_a, lists_b):
    """Chi-square test of homogeneity of the two samples of ordered lists (lists seen
    fewer than 10 times in all pooled into one class)."""
    codes = np.concatenate([_codes(lists_a), _codes(lists_b)])
    u, inv = np.unique(codes, return_inverse=True)
    ca = np.bincount(inv[: len(lists_a)], minlength=u.size)
    cb = np.bincount(inv[len(lists_a) :], minlength=u.size)
    keep = (ca + cb) >= 10
    table = np.array([np.r_[ca[keep], ca[~keep].sum()], np.r_[cb[keep], cb[~keep].sum()]])
    table = table[:, table.sum(axis=0) > 0]
    return stats.chi2_contingency(table).pvalue


def _sample(tau1, tau2, pkey=7, t0=1, draws=DRAWS):
    out = np.zeros((draws, K), np.int64)
    st = np.zeros(NSTATS, np.int64)
    sample_lists(1.0, 1.0, S, N, K, np.uint64(pkey), t0, draws, tau1, tau2, out, st)
    return out, dict(zip(STATS, st.tolist(), strict=True))


@pytest.mark.parametrize("path", sorted(PATHS))
def test_list_law_is_the_plain_loops_on_every_path(path):
    tau1, tau2 = PATHS[path]
    lists, st = _sample(tau1, tau2)
    # the path is exercised
    if path == "level1":
        assert st["heads"] > 0 and st["rescues"] < DRAWS // 10 and st["points"] > 0
    elif path == "level2":
        assert DRAWS // 2 < st["rescues"] < DRAWS and 0 < st["completions"] < DRAWS // 2
    else:
        assert st["rescues"] == DRAWS and DRAWS // 3 < st["completions"] < 2 * DRAWS // 3
    assert (np.sort(lists, axis=1)[:, 1:] != np.sort(lists, axis=1)[:, :-1]).all()
    ref, _ = _reference(seed=11)
    p = _pvalue(lists, ref)
    assert p > 1e-3, p


def test_the_test_rejects_a_completion_without_conditioning():
    """Power: the completion drawing the items below tau2 from their unconditioned law
    (what dropping the conditioning would do) gives another law, rejected here."""
    tau2 = PATHS["completion"][1]
    _, th = _reference(seed=12)
    fresh = np.random.default_rng(13).beta(1.0 + S, 1.0 + N - S, size=th.shape)
    few = (th > tau2).sum(axis=1) < K
    wrong = np.where(few[:, None] & (th <= tau2), fresh, th)
    lists, _ = _sample(*PATHS["completion"])
    assert _pvalue(lists, np.argsort(-wrong, axis=1)[:, :K]) < 1e-6
    # and two plain-loop samples are not told apart
    assert _pvalue(_reference(seed=14)[0], _reference(seed=15)[0]) > 1e-3


def test_a_wrong_posterior_is_told_apart():
    """Power on the posteriors: one observation less for item 2 (a failure) is rejected."""
    lists, _ = _sample(*PATHS["level2"])
    th = np.random.default_rng(16).beta(1.0 + S, 1.0 + N - S - (np.arange(7) == 2), (DRAWS, 7))
    assert _pvalue(lists, np.argsort(-th, axis=1)[:, :K]) < 1e-6


def test_samples_are_pure_functions_of_the_key_and_step():
    a, _ = _sample(*PATHS["level2"], pkey=3, t0=100, draws=500)
    b, _ = _sample(*PATHS["level2"], pkey=3, t0=100, draws=500)
    c, _ = _sample(*PATHS["level2"], pkey=4, t0=100, draws=500)
    d, _ = _sample(*PATHS["level1"], pkey=3, t0=100, draws=500)
    np.testing.assert_array_equal(a, b)
    assert (a != c).any() and (a != d).any()


def _blb(L, K_, runs, seed):
    weights = tuple(b_lb(L, K_, 0.2, 0.15).weights)
    ss = np.random.SeedSequence(seed)
    return make_model("cascade", weights, K_), users_keys(ss, weights, runs), policy_keys(ss, runs)


def test_regret_curves_agree_with_the_plain_loop():
    """B_LB(128, 4, 0.2, 0.15), 800 steps: the mean regret of 24 runs of each kernel at
    four checkpoints differs by less than 4 standard errors (Welch), and the threshold
    sampler's runs are not the plain loop's numbers."""
    n, runs = 800, 24
    m, uk, pk = _blb(INVERSION_MIN_L, 4, 2 * runs, 21)
    cp = np.array([100, 200, 400, n])
    fast, _ = simulate_runs(m, "cascade-ts", "best-first", n, uk[:runs], pk[:runs], cp, 2, True)
    plain, _ = simulate_runs(m, "cascade-ts", "best-first", n, uk[runs:], pk[runs:], cp, 2, False)
    se = np.sqrt(fast.var(axis=0, ddof=1) / runs + plain.var(axis=0, ddof=1) / runs)
    z = (fast.mean(axis=0) - plain.mean(axis=0)) / se
    assert np.all(np.abs(z) < 4.0), z
    # sanity of the comparison: the regret grows and is not the same as a uniform list's
    assert np.all(np.diff(fast.mean(axis=0)) > 0)
    same, _ = simulate_runs(m, "cascade-ts", "best-first", n, uk[:2], pk[:2], cp, 1, False)
    assert not np.array_equal(same, fast[:2])


def test_kernel_runs_and_reuses_nothing_across_threads():
    """Same numbers serially and in two threads; the counters of a long B_LB run at 2048
    items: thresholds re-chosen and the second level used, but the O(L) steps (re-choice,
    completion) rare -- with the heads' envelope masses counted uncapped in the choice,
    a concentrated leader made nearly every late step one."""
    m, uk, pk = _blb(2048, 4, 2, 5)
    cp = np.array([3000])
    one = simulate_runs(m, "cascade-ts", "best-first", 3000, uk, pk, cp, 1, True, 50)
    two = simulate_runs(m, "cascade-ts", "best-first", 3000, uk, pk, cp, 2, True, 50)
    for x, y in zip(one, two, strict=True):
        np.testing.assert_array_equal(x, y)
    attract, satisfy, gamma = m.kernel_args()
    fstar = m.expected_reward(m.optimal_list())
    n = 40000  # the old choice completed on most steps from about 25,000 on
    env = (int(m.code), attract, satisfy, float(gamma), 4, n, 0, float(fstar),
           np.array([n]), True)  # fmt: skip
    st = np.zeros(NSTATS, np.int64)
    reg, cnt = np.zeros(1), np.zeros(2048, np.int64)
    run_threshold(env, np.array([1.0, 1.0]), uk[0], pk[0], reg, cnt,
                  np.zeros((0, 2, 4), np.int64), st)  # fmt: skip
    st = dict(zip(STATS, st.tolist(), strict=True))
    assert st["rebuilds"] >= 1 and st["rescues"] >= 1, st
    assert st["rebuilds"] + st["completions"] <= n // 200 and st["rescues"] <= n // 5, st
    assert 2048 + n <= cnt.sum() <= 2048 + 4 * n  # w_0, then 1 to K observations a step
    assert 0 < reg[0] < n


def test_kernel_choice():
    assert kernel(INVERSION_MIN_L, True).py_func.__name__ == "kernel_threshold"
    assert kernel(INVERSION_MIN_L, False).py_func.__name__ == "kernel_plain"
    assert kernel(INVERSION_MIN_L - 1, True) is kernel(INVERSION_MIN_L - 1, False)


def test_list_law_with_another_prior():
    """prior=2,3: Beta(2 + S, 3 + N - S), the second level and the completion in use."""
    out = np.zeros((DRAWS, K), np.int64)
    st = np.zeros(NSTATS, np.int64)
    sample_lists(2.0, 3.0, S, N, K, np.uint64(8), 1, DRAWS, 0.6, 0.4, out, st)
    assert st[STATS.index("rescues")] > DRAWS // 2 and st[STATS.index("completions")] > 0
    th = np.random.default_rng(17).beta(2.0 + S, 3.0 + N - S, size=(DRAWS, len(S)))
    assert _pvalue(out, np.argsort(-th, axis=1)[:, :K]) > 1e-3
    # the uniform prior's law is another one
    assert _pvalue(out, _reference(seed=18)[0]) < 1e-6


def test_list_law_with_concentrated_posteriors():
    """Posteriors of several hundred observations around 0.2 (sd about 0.02): the envelope
    is proposed in the items' tails, where its acceptance test (the log1p lower bounds,
    then the exact ratio) decides most draws; the list law is still the plain loop's."""
    Sc = np.array([80, 105, 60, 130, 95, 70, 40], np.int64)
    Nc = np.array([400, 500, 300, 600, 450, 350, 200], np.int64)
    out = np.zeros((DRAWS, K), np.int64)
    st = np.zeros(NSTATS, np.int64)
    sample_lists(1.0, 1.0, Sc, Nc, K, np.uint64(9), 1, DRAWS, 0.235, 0.2, out, st)
    st = dict(zip(STATS, st.tolist(), strict=True))
    assert st["proposals"] > DRAWS // 2 and st["rescues"] > DRAWS // 10, st
    th = np.random.default_rng(19).beta(1.0 + Sc, 1.0 + Nc - Sc, size=(DRAWS, len(Sc)))
    assert _pvalue(out, np.argsort(-th, axis=1)[:, :K]) > 1e-3
    # power: the same test tells these posteriors from ones where item 0 has 4 successes
    # fewer (of 80)
    S2 = Sc - 4 * (np.arange(7) == 0)
    th2 = np.random.default_rng(20).beta(1.0 + S2, 1.0 + Nc - S2, (DRAWS, 7))
    assert _pvalue(out, np.argsort(-th2, axis=1)[:, :K]) < 1e-6


# several hundred items whose envelope masses are near 1/2: about a hundred Poisson points
# a level, taken in several batches of PB (the 7-item tests above never fill one)
GROUPS = ((1, 8, 150), (3, 8, 200), (4, 6, 50))  # (S, N, items): Beta(2, 8), (4, 6), (5, 3)
SG = np.repeat([g[0] for g in GROUPS], [g[2] for g in GROUPS]).astype(np.int64)
NG = np.repeat([g[1] for g in GROUPS], [g[2] for g in GROUPS]).astype(np.int64)
GROUP = np.repeat(np.arange(len(GROUPS)), [g[2] for g in GROUPS])


@pytest.mark.parametrize(("tau1", "tau2", "k"), [(0.55, 0.3, 2), (0.85, 0.55, 3)])
def test_list_law_with_many_points_a_level(tau1, tau2, k):
    """The ordered groups of the k listed items have the plain loop's law when a level's
    points fill several batches (level 1 at tau1 = 0.55; the second level at tau2 = 0.55
    under tau1 = 0.85); a change of one group's posterior by one success is detected."""
    draws = 20000
    out = np.zeros((draws, k), np.int64)
    st = np.zeros(NSTATS, np.int64)
    sample_lists(1.0, 1.0, SG, NG, k, np.uint64(21), 1, draws, tau1, tau2, out, st)
    st = dict(zip(STATS, st.tolist(), strict=True))
    # more than PB points a step on average: most steps fill a batch and go on to another
    assert st["points"] > (3 if tau1 < 0.8 else 1) * PB * draws, st
    if tau1 > 0.8:
        assert st["rescues"] > draws // 10, st
    th = np.random.default_rng(23).beta(1.0 + SG, 1.0 + NG - SG, size=(draws, SG.size))
    ref = np.argsort(-th, axis=1)[:, :k]
    assert _pvalue(GROUP[out], GROUP[ref]) > 1e-3
    # power: the third group with one success fewer (Beta(4, 4)) is another law
    S2 = SG - (GROUP == 2)
    th2 = np.random.default_rng(24).beta(1.0 + S2, 1.0 + NG - S2, size=(draws, SG.size))
    assert _pvalue(GROUP[out], GROUP[np.argsort(-th2, axis=1)[:, :k]]) < 1e-6


@numba.njit
def _above_counts(S, N, tau, steps, pkey, groups, ng):
    """Level 1 alone at threshold tau, posteriors Beta(1 + S, 1 + N - S) held fixed, steps
    1..steps: per group, the number of (step, item) whose sample is known and above tau;
    and the Poisson points drawn. Shapes (ng,), ()."""
    L = S.size
    it, ix, fx, mass, perm, start, res, dl, smemo = _state(L, 1.0, 1.0, S, N)
    rb = _tables()
    wb = np.empty(NB + 3 * PB)
    taus = np.zeros(7)
    _set_taus(taus, tau, tau)
    ctr = np.zeros(2, np.int64)
    _place(1.0, 1.0, S, N, it, ix, fx, perm, start, taus, ctr, smemo)
    stats = np.zeros(NSTATS, np.int64)
    counts = np.zeros(ng, np.int64)
    for t in range(1, steps + 1):
        ctr[0] = 0
        nres = _level(0, tau, it, perm, start, rb, wb, res, 0, 2.0, pkey, t, L, ctr, stats)
        for i in range(nres):
            e = res[i]
            if it[e, IV] > tau:
                counts[groups[e]] += 1
    return counts, stats[5]


def test_each_item_exceeds_the_threshold_with_its_probability_across_batches():
    """The items that one level finds above tau are each there with probability
    P(theta > tau), independently: per group, the count over 20,000 steps of about 100
    Poisson points a step (several batches of PB) is its binomial mean to 5 standard
    deviations (dropping the last point of each full batch, tried once, moved the first group's
    count 5.6 of them)."""
    steps, tau = 20000, 0.55
    counts, points = _above_counts(SG, NG, tau, steps, np.uint64(25), GROUP, len(GROUPS))
    assert points > 3 * PB * steps
    for g, (s_g, n_g, items) in enumerate(GROUPS):
        q = stats.beta.sf(tau, 1 + s_g, 1 + n_g - s_g)
        mean, sd = steps * items * q, math.sqrt(steps * items * q * (1 - q))
        assert abs(counts[g] - mean) < 5 * sd, (g, counts[g], mean, sd)
