"""A*: ``models._top_k`` (the K largest, larger first, ties to the smaller id) and its memo."""

import numpy as np
import pytest

from cascading_bandits.simulate.models import _kth_largest, _top_k, make_model


def _reference(values, K):
    idx = np.arange(values.size)
    return np.lexsort((idx, -values))[:K]


@pytest.mark.parametrize("distinct", [1, 2, 3, 7, 1000])
def test_top_k_is_the_full_sort_on_tie_heavy_values(distinct):
    """Both branches of the K-th largest (passes for K <= 16, np.partition above), on
    values with few or many distinct levels, against a full lexsort."""
    rng = np.random.default_rng(distinct)
    for _ in range(400):
        L = int(rng.integers(2, 60))
        K = int(rng.integers(1, L + 1))
        v = rng.integers(0, distinct, L) / max(distinct - 1, 1)
        assert _top_k(v, K).tolist() == _reference(v, K).tolist()
        if K < L:
            assert _kth_largest(v, K) == np.sort(v)[::-1][K - 1]


def test_optimal_list_is_memoised_as_copies():
    """A caller writing into A* does not change the next caller's A*."""
    m = make_model("cascade", (0.1, 0.5, 0.5, 0.2), 2)
    a = m.optimal_list()
    assert a.tolist() == [1, 2]
    a[:] = 0
    assert m.optimal_list().tolist() == [1, 2]
