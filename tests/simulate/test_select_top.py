"""select_top (the K largest indices, decreasing, ties to the smaller id) against a sort."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cascading_bandits.simulate.jitopts import python_twin
from cascading_bandits.simulate.policies import kernel as kern

select_top = python_twin(kern.select_top)


def _by_sort(idx, K):
    # decreasing value, then increasing id: lexsort's last key is the primary one
    return np.lexsort((np.arange(idx.size), -idx))[:K]


def _top(idx, K):
    out = np.full(K, -7, np.int64)
    select_top(idx, K, np.empty(idx.size, np.bool_), out)
    return out


# few distinct values (ties everywhere), infinities and the edges of [0, 1]
_values = st.sampled_from([0.0, 1.0, 0.5, 0.25, -np.inf, np.inf, 1e-300, -2.0, 0.5 + 2**-53])


@settings(max_examples=300, deadline=None)
@given(st.lists(_values, min_size=1, max_size=40), st.data())
def test_equals_the_sort_with_ties_and_infinities(vals, data):
    idx = np.array(vals)
    K = data.draw(st.integers(1, idx.size))
    assert _top(idx, K).tolist() == _by_sort(idx, K).tolist()


@pytest.mark.parametrize("L,K,seed", [(2048, 4, 0), (2048, 16, 1), (65536, 4, 2), (5, 5, 3)])
def test_equals_the_sort_on_random_and_grid_values(L, K, seed):
    rng = np.random.default_rng(seed)
    for idx in (rng.random(L), np.round(rng.random(L), 2), np.sort(rng.random(L)), np.zeros(L)):
        assert _top(idx, K).tolist() == _by_sort(idx, K).tolist()
