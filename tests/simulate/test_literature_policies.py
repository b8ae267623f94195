"""Policies from the post-2015 literature: the formulas of their modules, checked by hand.

The registry-driven tests (test_equivalence, test_seeds_crn) already hold each kernel to its
plain reference and check CRN and seeds; here the reference's formulas are checked against
the stated formula at high precision (mpmath) and the policies' documented behaviour
(no initial observation, the counts convention, the shared Gaussian) is checked on runs.
"""

import mpmath
import numpy as np
import pytest
from reference.cascade_ucbv import ucbv_index
from reference.ts_cascade import theta_py, z_py
from scipy import stats

from cascading_bandits.bounds.instance import b_lb
from cascading_bandits.simulate.engine import simulate_runs
from cascading_bandits.simulate.models import make_model
from cascading_bandits.simulate.policies.ts_cascade import shared_normal
from cascading_bandits.simulate.rng import POLICY, policy_keys, uniform_py, users_keys

mpmath.mp.dps = 50
W = tuple(b_lb(8, 3, 0.2, 0.1).weights)


def _run(policy, weights=W, K=3, n=500, model="cascade", seed=7):
    m = make_model(model, weights, K, 0.7, 0.7) if model == "dbn" else make_model(model, weights, K)
    ss = np.random.SeedSequence(seed)
    uk, pk = users_keys(ss, weights, 1), policy_keys(ss, 1)
    _, counts, lists, clicks = simulate_runs(
        m, policy, "best-first", n, uk, pk, np.array([n]), threads=1, trace_steps=n
    )
    return counts[0], lists[0], clicks[0], int(pk[0])


# ---------------------------------------------------------------- ts-cascade


def test_ts_cascade_normal_is_box_muller_to_double_precision():
    """Z_t = sqrt(-2 ln(1 - u1)) cos(2 pi u2) of the policy sub-draws 0, 1 of (t, 0), to
    1e-14 relative of the 50-digit value; engine and reference give the same double."""
    key = 0x1234_5678_9ABC_DEF0
    for t in (1, 2, 17, 999, 123456):
        u1, u2 = (mpmath.mpf(uniform_py(key, POLICY, t, 0, 16, j)) for j in (0, 1))
        exact = mpmath.sqrt(-2 * mpmath.log(1 - u1)) * mpmath.cos(2 * mpmath.pi * u2)
        z = shared_normal(np.uint64(key), t, 16)
        assert z == z_py(key, t, 16)
        assert abs(z - float(exact)) <= 1e-14 * max(1.0, abs(float(exact)))


def test_ts_cascade_normal_is_standard_normal():
    """20000 steps' Z_t pass a Kolmogorov-Smirnov test against N(0, 1) (fixed key: the
    p-value is a fixed number, far from the 1e-3 threshold when the draw is right)."""
    zs = np.array([z_py(987654321, t, 8) for t in range(1, 20001)])
    assert stats.kstest(zs, "norm").pvalue > 1e-3
    assert abs(zs.mean()) < 0.03 and abs(zs.std() - 1.0) < 0.03


@pytest.mark.parametrize(
    "S,N,t,z",
    [
        ([0, 1, 50, 3], [0, 4, 100, 3], 9, 0.7),  # N = 0; log-term wins; variance wins; w = 1
        ([2, 0, 7], [9, 5, 7], 1, -1.3),  # negative Z; w = 0 with N > 0
    ],
)
def test_ts_cascade_index_formula(S, N, t, z):
    """theta = w + Z max(sqrt(w(1-w) log(t+1)/(N+1)), log(t+1)/(N+1)), w = S/N (0 if N = 0),
    to 1e-15 relative of the 50-digit value."""
    got = theta_py(S, N, t, z)
    for s, m, g in zip(S, N, got, strict=True):
        w = mpmath.mpf(s) / m if m else mpmath.mpf(0)
        lg = mpmath.log(t + 1)
        sigma = max(mpmath.sqrt(w * (1 - w) * lg / (m + 1)), lg / (m + 1))
        exact = w + mpmath.mpf(z) * sigma
        assert abs(g - float(exact)) <= 1e-15 * max(1.0, abs(float(exact)))


def test_ts_cascade_starts_without_w0_and_counts_follow_the_registry():
    """Step 1 shows items 0..K-1 (every theta is Z_1 log 2: no initial observation), and
    counts = 1 + the observations of steps 1..n read off the trace (the registry's T_n)."""
    weights = (0.05, 0.1, 0.9, 0.8, 0.7, 0.2)  # the best items are not the first ids
    for model in ("cascade", "dbn"):
        counts, lists, clicks, _ = _run("ts-cascade", weights, K=3, n=400, model=model)
        assert list(lists[0]) == [0, 1, 2]
        obs = np.zeros(len(weights), np.int64)
        for lst, c in zip(lists, clicks, strict=True):
            last = np.nonzero(c)[0]
            for e in lst[: last[-1] + 1 if last.size else len(lst)]:
                obs[e] += 1
        np.testing.assert_array_equal(counts, obs + 1)


def test_ts_cascade_learns_the_best_items():
    """On an easy instance the last 500 of 3000 steps list the 3 best items nearly always."""
    weights = (0.05, 0.1, 0.6, 0.5, 0.45, 0.05, 0.1, 0.02)
    _, lists, _, _ = _run("ts-cascade", weights, K=3, n=3000)
    best = {2, 3, 4}
    hits = sum(set(lst) == best for lst in lists[-500:])
    assert hits >= 400


# ---------------------------------------------------------------- cascade-ucbv


@pytest.mark.parametrize("a,b", [(4.0, 6.0), (2.0, 3.0), (0.5, 0.0)])
def test_cascade_ucbv_index_formula(a, b):
    """U = min(1, w + sqrt(a w(1-w) log t / T) + b log t / T), w = S/T, to 1e-15 relative of
    the 50-digit value; items whose bound passes 1 get exactly 1."""
    S, N, t = [0, 1, 3, 40, 999, 7, 30], [1, 2, 9, 100, 1000, 7, 100000], 50
    got = ucbv_index(S, N, t, a, b)
    clipped = 0
    for s, m, g in zip(S, N, got, strict=True):
        w = mpmath.mpf(s) / m
        lg = mpmath.log(t)
        u = w + mpmath.sqrt(a * w * (1 - w) * lg / m) + b * lg / m
        if u >= 1:
            assert g == 1.0
            clipped += 1
        else:
            assert abs(g - float(u)) <= 1e-15
    assert 0 < clipped < len(S)  # both branches are exercised


def test_cascade_ucbv_zero_constants_is_greedy():
    """a = b = 0 leaves the empirical mean: the lists of greedy (epsilon-greedy, eps = 0)."""
    for model in ("cascade", "dbn"):
        _, l1, _, _ = _run("cascade-ucbv(a=0, b=0)", n=600, model=model)
        _, l2, _, _ = _run("cascade-egreedy(eps=0)", n=600, model=model)
        np.testing.assert_array_equal(l1, l2)


def test_cascade_ucbv_step_one_is_greedy_on_w0():
    """log 1 = 0: step 1 lists the items observed attractive in w_0 first (smaller ids
    first), as every learner on w_0 with no exploration bonus at t = 1."""
    _, l1, _, _ = _run("cascade-ucbv", n=1)
    _, l2, _, _ = _run("cascade-egreedy(eps=0)", n=1)
    np.testing.assert_array_equal(l1, l2)


def test_cascade_ucbv_learns_the_best_items():
    """Its range term 6 log t / T explores longer than CascadeUCB1: the last 1000 of 10000
    steps list the 3 best items at least 80% of the time (about 90% at this seed)."""
    weights = (0.05, 0.1, 0.6, 0.5, 0.45, 0.05, 0.1, 0.02)
    _, lists, _, _ = _run("cascade-ucbv", weights, K=3, n=10000)
    hits = sum(set(lst) == {2, 3, 4} for lst in lists[-1000:])
    assert hits >= 800
