"""cascade-egreedy(eps): coin = policy sub-draw 1 of (t, item 0); explore (coin < eps):
uniform-random's list of step t (baselines.random_list_py); else the K largest empirical
means."""

from cascading_bandits.simulate.rng import POLICY, uniform_py

from .baselines import list_index, random_list_py
from .common import cascade_run


def reference_run(*args):
    K = args[2]

    def index(S, N, t, spec, pkey, score):
        L = len(S)
        if uniform_py(pkey, POLICY, t, 0, L, 1) < spec["eps"]:
            return list_index(random_list_py(pkey, t, L, K), L)
        return [S[e] / N[e] for e in range(L)]

    return cascade_run(index, *args)
