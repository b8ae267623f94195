"""cascade-ucbv(a, b): U = min(1, w + (sqrt(a w(1-w) log t / T) + b log t / T)), w = S/T."""

import math

from .common import cascade_run


def ucbv_index(S, N, t, a, b):
    lg = math.log(t)
    out = []
    for s, m in zip(S, N, strict=True):
        w = s / m
        out.append(min(1.0, w + (math.sqrt(a * (w * (1.0 - w)) * lg / m) + b * lg / m)))
    return out


def _index(S, N, t, spec, pkey, score):
    return ucbv_index(S, N, t, spec["a"], spec["b"])


def reference_run(*args):
    return cascade_run(_index, *args)
