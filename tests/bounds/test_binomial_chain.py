"""The chain of the binomial bounds (bounds.profile.binomial_chain) on counted runs."""

import dataclasses

import numpy as np
import pytest

from cascading_bandits.bounds.instance import CascadeInstance
from cascading_bandits.bounds.profile import binomial_chain
from cascading_bandits.bounds.sharp import binomial_bound
from cascading_bandits.simulate.counters import run_counters
from cascading_bandits.simulate.experiments import Cell

W = (0.5, 0.3, 0.2, 0.1, 0.1, 0.05)


@pytest.fixture(scope="module", params=["cascade-ucb1", "cascade-klucb"])
def counted(request):
    cell = Cell("t", "chain", "cascade", W, 2, request.param, "best-first", 600, 12)
    return run_counters(cell, 3, None, threads=1, check=False)


def test_links_and_the_bound(counted):
    ch = binomial_chain(counted)
    names = [x["name"] for x in ch["links"]]
    assert names[0] == "R(n)" and len(names) == 4
    inst = CascadeInstance(W, 2)
    param = 1.5 if counted.policy == "cascade-ucb1" else 3.0
    assert ch["links"][-1]["mean"] == pytest.approx(
        binomial_bound(inst, 600, counted.policy, param), rel=1e-12
    )
    assert ch["links"][0]["mean"] == pytest.approx(counted.regret.mean())
    # the split holds run by run (Steps 2-4); the bound exceeds the mean regret here
    gaps = np.asarray(counted.gaps)
    g = (np.asarray(counted.G) * gaps).sum(axis=(1, 2))
    split = (counted.below * gaps[-1]).sum(axis=1) + counted.bpath.sum(axis=1)
    assert (split >= g - 1e-9).all()
    assert ch["links"][2]["mean"] == pytest.approx(split.mean())
    assert ch["total_factor"] > 1
    assert ch["parts"]["a_part"] + ch["parts"]["b_part"] == pytest.approx(ch["links"][-1]["mean"])


def test_needs_the_counts(counted):
    old = dataclasses.replace(counted, below=None)
    with pytest.raises(ValueError, match="re-count"):
        binomial_chain(old)
