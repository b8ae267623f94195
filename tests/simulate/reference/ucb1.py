"""cascade-ucb1(alpha): U_t(e) = S/T + sqrt(alpha log(t-1) / T) (bounds' one radius)."""

from cascading_bandits.bounds.indices import ucb1_radius_scalar

from .common import cascade_run


def _index(S, N, t, spec, pkey, score):
    return [S[e] / N[e] + ucb1_radius_scalar(t - 1.0, N[e], spec["alpha"]) for e in range(len(S))]


def reference_run(*args):
    return cascade_run(_index, *args)
