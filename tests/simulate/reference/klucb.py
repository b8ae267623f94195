"""cascade-klucb(c): klucb_scalar(S/T, T, log t + c log log t) (bounds' one KL-UCB index)."""

from cascading_bandits.bounds.kl import klucb_scalar

from .common import cascade_run, threshold


def _index(S, N, t, spec, pkey, score):
    th = threshold(t, spec["c"])
    return [klucb_scalar(S[e] / N[e], float(N[e]), th) for e in range(len(S))]


def reference_run(*args):
    return cascade_run(_index, *args)
