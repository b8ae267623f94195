"""cascade-egreedy(eps): coin = policy sub-draw 1 of (t, item 0); explore: the K largest
sub-draws 0 of (t, e); else the K largest empirical means."""

from cascading_bandits.simulate.rng import POLICY, uniform_py

from .common import cascade_run


def _index(S, N, t, spec, pkey, score):
    L = len(S)
    if uniform_py(pkey, POLICY, t, 0, L, 1) < spec["eps"]:
        return [uniform_py(pkey, POLICY, t, e, L, 0) for e in range(L)]
    return [S[e] / N[e] for e in range(L)]


def reference_run(*args):
    return cascade_run(_index, *args)
