"""CascadeUCB-V's saturation mark (_index_states._ucbv_index): a state whose unclipped index
reached SATURATED is taken as 1 without computing it; the value is index_of's at every step."""

from __future__ import annotations

import math

import numpy as np
import pytest

from cascading_bandits.simulate.jitopts import python_twin
from cascading_bandits.simulate.policies import _index_states as ist
from cascading_bandits.simulate.policies import _klucb_states as kst

ucbv_index = python_twin(ist._ucbv_index)
index_of = python_twin(ist.index_of)


@pytest.mark.parametrize("a,b", [(4.0, 6.0), (1.0, 0.5), (0.0, 0.0)])
def test_marked_index_is_index_of_at_every_step(a, b):
    """States of every (S, N) up to N = 60 along steps 1..3000 (log t growing): the marked
    value is index_of's, bit for bit, and a state is marked only once its index is 1."""
    params = np.array([a, b])
    states = [(s, n) for n in range(1, 61) for s in range(0, n + 1)]
    sinfo = np.zeros((len(states), kst._NF), np.int64)
    for sl, (s, n) in enumerate(states):
        sinfo[sl, kst._S], sinfo[sl, kst._N] = s, n
    marked = 0
    for t in list(range(1, 200)) + list(range(200, 3001, 37)):
        g = math.log(float(t))
        for sl, (s, n) in enumerate(states):
            was = sinfo[sl, kst._EX]
            v = ucbv_index(sl, sinfo, g, params)
            assert v == index_of(np.int64(ist.UCBV), s, n, g, 0.0, params)
            if sinfo[sl, kst._EX]:
                assert v == 1.0
                marked += not was
    if b > 0.0:
        assert marked > 0  # the mark is exercised
    else:
        assert marked == 0  # the greedy index (S/N <= 1) is never above 1
