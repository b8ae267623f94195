"""oracle (index = the truth, w or rho nu) and uniform-random (index = policy uniforms)."""

from cascading_bandits.simulate.rng import POLICY, uniform_py

from .common import cascade_run


def oracle_run(*args):
    return cascade_run(lambda S, N, t, spec, pkey, score: list(score), *args)


def _random(S, N, t, spec, pkey, score):
    return [uniform_py(pkey, POLICY, t, e, len(S), 0) for e in range(len(S))]


def random_run(*args):
    return cascade_run(_random, *args)
