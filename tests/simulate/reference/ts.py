"""cascade-ts(prior=a,b): Beta(a + S, b + T - S) samples, pure-Python Marsaglia-Tsang."""

import math

from .common import cascade_run, policy_u


def _gamma(a, key, t, e, L, j):
    d = a - 1.0 / 3.0
    cc = 1.0 / math.sqrt(9.0 * d)
    while True:
        u1, u2 = policy_u(key, t, e, L, j), policy_u(key, t, e, L, j + 1)
        u3 = 1.0 - policy_u(key, t, e, L, j + 2)
        j += 3
        x = math.sqrt(-2.0 * math.log1p(-u1)) * math.cos(2.0 * math.pi * u2)
        v = 1.0 + cc * x
        if v <= 0.0:
            continue
        v = v * v * v
        if u3 < 1.0 - 0.0331 * x * x * x * x or math.log(u3) < 0.5 * x * x + d * (
            1.0 - v + math.log(v)
        ):
            return d * v, j


def beta_py(a, b, key, t, e, L):
    x, j = _gamma(a, key, t, e, L, 0)
    y, _ = _gamma(b, key, t, e, L, j)
    return x / (x + y)


def _index(S, N, t, spec, pkey, score):
    a, b = spec["prior"]
    L = len(S)
    return [beta_py(a + S[e], b + (N[e] - S[e]), pkey, t, e, L) for e in range(L)]


def reference_run(*args):
    return cascade_run(_index, *args)
