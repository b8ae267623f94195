"""bounds.upper remembers Theorem 3's eps optimisation (``_optimised``): a repeat gives the
bits of a fresh computation, as copies (a caller changing its array changes no later
answer), for every input that changes the result."""

import numpy as np

from cascading_bandits.bounds import upper as U
from cascading_bandits.bounds.instance import CascadeInstance


def _fresh(inst, ns, form="paper", c=3.0, peeling="lemma2", grid=U._EPS_GRID):
    flat = np.asarray(ns, dtype=np.float64)
    return U._Theorem3Curve(inst, flat, form, c, peeling).optimised(grid)


def test_repeats_equal_a_fresh_optimisation_and_are_copies():
    U._OPTIMISED.clear()
    inst = CascadeInstance.b_lb(16, 4, 0.2, 0.15)
    ns = np.array([10.0, 1000.0, 1e5])
    b0, e0 = _fresh(inst, ns)
    v1 = U.theorem3_curve(inst, ns)
    v1[:] = -1.0  # the caller's copy only
    v2 = U.theorem3_curve(inst, ns)
    assert np.array_equal(v2, b0)
    assert U.theorem3_optimal_eps(inst, 1000) == float(_fresh(inst, [1000.0])[1][0])
    assert U.theorem3_optimal_eps(inst, 1000) == float(_fresh(inst, [1000.0])[1][0])
    assert np.array_equal(U._optimised(inst, ns, "paper", 3.0)[1], e0)


def test_each_input_is_part_of_the_key():
    U._OPTIMISED.clear()
    a = CascadeInstance.b_lb(16, 4, 0.2, 0.15)
    b = CascadeInstance.b_lb(16, 4, 0.2, 0.1)
    c = CascadeInstance.b_lb(16, 2, 0.2, 0.15)
    ns = np.array([100.0, 5000.0])
    cases = [
        (a, ns, "paper", 3.0, "lemma2", U._EPS_GRID),
        (b, ns, "paper", 3.0, "lemma2", U._EPS_GRID),
        (c, ns, "paper", 3.0, "lemma2", U._EPS_GRID),
        (a, ns * 2, "paper", 3.0, "lemma2", U._EPS_GRID),
        (a, ns, "proof", 3.0, "lemma2", U._EPS_GRID),
        (a, ns, "proof", 1.0, "lemma2", U._EPS_GRID),
        (a, ns, "proof", 3.0, "lp", U._EPS_GRID),
        (a, ns, "paper", 3.0, "lemma2", 11),
    ]
    for _ in range(2):  # the second pass reads the remembered values
        for inst, n, form, cc, peel, grid in cases:
            got = U._optimised(inst, n, form, cc, peel, grid)
            want = _fresh(inst, n, form, cc, peel, grid)
            assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])


def test_the_memory_is_bounded(monkeypatch):
    U._OPTIMISED.clear()
    monkeypatch.setattr(U, "_OPTIMISED_MAX", 3)
    inst = CascadeInstance.b_lb(8, 2, 0.2, 0.15)
    for n in (10.0, 20.0, 30.0, 40.0, 50.0):
        U._optimised(inst, np.array([n]), "paper", 3.0)
    assert len(U._OPTIMISED) == 3
