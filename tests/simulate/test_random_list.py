"""uniform-random's list (and cascade-egreedy's on its exploration steps) in O(K) a step.

simulate.policies._random_list draws the first K entries of a Fisher-Yates shuffle with a
map of the moved entries. Checked here: the swaps map the draw tuples one to one onto the
ordered K-lists (exhaustively, for every tiny (L, K): so uniform draws give a uniform
list, exactly); the integer draws are those of the reference (rejection path included);
the engine's lists are the reference's dense shuffle at L up to 65,536; and the lists of
many steps pass a chi-square test of uniformity over the ordered K-lists, a test that the
classic biased shuffle (swap with any entry) fails.
"""

import itertools
import math

import numpy as np
import pytest
from reference.baselines import random_list_py, uniform_below_py
from reference.common import policy_bits
from scipy.stats import chisquare

from cascading_bandits.bounds.instance import b_lb
from cascading_bandits.simulate.engine import simulate_runs
from cascading_bandits.simulate.jitopts import python_twin
from cascading_bandits.simulate.models import make_model
from cascading_bandits.simulate.policies import _random_list as rl
from cascading_bandits.simulate.rng import policy_keys, users_keys

swap_step, random_list, uniform_below = (
    python_twin(f) for f in (rl.swap_step, rl.random_list, rl.uniform_below)
)
KEY = 0x5DEECE66D1234567


def _draw(key, t, L, K):
    keys, vals, out = (np.zeros(K, np.int64) for _ in range(3))
    random_list(np.uint64(key), t, L, K, keys, vals, out)
    return tuple(int(x) for x in out)


@pytest.mark.parametrize("L,K", [(1, 1), (2, 2), (3, 2), (4, 4), (5, 3), (6, 2), (7, 4)])
def test_swaps_map_draws_one_to_one_onto_ordered_lists(L, K):
    """Every tuple (r_0, ..., r_{K-1}), r_i in i..L-1, gives a different ordered list of K
    distinct items: L! / (L - K)! tuples, as many as lists, so uniform draws give a
    uniform list (exactly)."""
    seen = set()
    for rs in itertools.product(*(range(i, L) for i in range(K))):
        keys, vals, out = (np.full(K, -7, np.int64) for _ in range(3))
        nm = np.int64(0)
        for i, r in enumerate(rs):
            nm = swap_step(i, r, nm, keys, vals, out)
            assert nm <= i + 1
        lst = tuple(int(x) for x in out)
        assert len(set(lst)) == K and all(0 <= e < L for e in lst), (rs, lst)
        seen.add(lst)
    assert len(seen) == math.perm(L, K)


@pytest.mark.parametrize(
    "m",
    [1, 2, 3, 7, 64, 65536, 2**32 + 1, 3 * 2**61, 2**62 + 1, 2**63 - 1],
)
def test_uniform_below_is_the_reference_draw(m):
    """Same integers as the reference; for m = 3 * 2**61 (2**64 mod m = 2**62: a quarter
    of the draws rejected) the retries from sub-draw 2 on are exercised."""
    rejected = 0
    for t in range(1, 201):
        got = uniform_below(np.uint64(KEY), t, 1, 50, m)
        assert got == uniform_below_py(KEY, t, 1, 50, m)
        assert 0 <= got < m
        rejected += policy_bits(KEY, t, 1, 50, 0) < (1 << 64) % m
    if m == 3 * 2**61:
        assert 20 < rejected < 90  # about 50 of 200


@pytest.mark.parametrize("L,K", [(1, 1), (3, 3), (8, 2), (40, 7), (2048, 4), (65536, 8)])
def test_engine_list_is_the_reference_shuffle(L, K):
    for t in (1, 2, 3, 977, 10**6):
        assert _draw(KEY, t, L, K) == tuple(random_list_py(KEY, t, L, K))


PER_LIST = 2000


def _chi2_pvalue(lists, L, K):
    cells = {p: 0 for p in itertools.permutations(range(L), K)}
    for lst in lists:
        cells[tuple(lst)] += 1
    return chisquare(list(cells.values())).pvalue


@pytest.mark.parametrize("L,K", [(3, 3), (4, 2), (5, 3)])
def test_lists_are_uniform_over_ordered_lists(L, K):
    """Chi-square over the L! / (L - K)! ordered lists, PER_LIST expected per list (a fixed
    key: the p-value is a fixed number; a fair draw has p > 1e-4 but at odds of 1e-4)."""
    n = PER_LIST * math.perm(L, K)
    lists = [_draw(KEY, t, L, K) for t in range(1, n + 1)]
    assert _chi2_pvalue(lists, L, K) > 1e-4


def test_the_chi_square_test_sees_a_biased_shuffle():
    """The classic mistake (swap entry i with any entry 0..L-1: 27 equally likely swap
    sequences onto 6 permutations for L = 3, of probabilities 4/27 and 5/27) fails the
    same test at the same number of lists (chi-square about 150 on 5 degrees of freedom)."""
    L = K = 3
    n = PER_LIST * 6
    lists = []
    for t in range(1, n + 1):
        a = list(range(L))
        for i in range(L):
            r = uniform_below_py(KEY, t, i, L, L)
            a[i], a[r] = a[r], a[i]
        lists.append(a)
    assert _chi2_pvalue(lists, L, K) < 1e-6


def test_a_run_draws_the_reference_lists_at_large_L():
    """uniform-random at L = 65,536 shows random_list_py's list at every step."""
    L, K, n = 65536, 4, 300
    w = tuple(b_lb(L, K, 0.2, 0.15).weights)
    ss = np.random.SeedSequence(5)
    uk, pk = users_keys(ss, w, 1), policy_keys(ss, 1)
    _, _, lists, _ = simulate_runs(
        make_model("cascade", w, K), "uniform-random", "best-first", n, uk, pk,
        np.array([n]), threads=1, trace_steps=n,
    )  # fmt: skip
    for t in range(1, n + 1):
        assert list(lists[0, t - 1]) == random_list_py(int(pk[0]), t, L, K)
