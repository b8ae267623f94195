"""oracle (index = the truth, w or rho nu) and uniform-random (the first K entries of a
Fisher-Yates shuffle drawn from the policy stream)."""

from .common import cascade_run, policy_bits

_TWO64 = 1 << 64


def uniform_below_py(pkey, t, i, L, m):
    """An integer uniform on 0..m-1 from the policy draws of (t, i): the 64-bit draw z of
    sub-draw 0, then 2, 3, ... while z < 2**64 mod m (rejected); then z mod m."""
    j = 0
    while True:
        z = policy_bits(pkey, t, i, L, j)
        if z >= _TWO64 % m:
            return z % m
        j = 2 if j == 0 else j + 1


def random_list_py(pkey, t, L, K):
    """The list of step t: the first K entries of a Fisher-Yates shuffle of 0..L-1 whose
    i-th swap exchanges entries i and i + uniform_below_py(pkey, t, i, L, L - i)."""
    a = list(range(L))
    for i in range(K):
        r = i + uniform_below_py(pkey, t, i, L, L - i)
        a[i], a[r] = a[r], a[i]
    return a[:K]


def list_index(lst, L):
    """An index whose ranking starts with ``lst`` (K, K-1, ..., 1 on its items, 0 elsewhere)."""
    idx = [0.0] * L
    for k, e in enumerate(lst):
        idx[e] = float(len(lst) - k)
    return idx


def oracle_run(*args):
    return cascade_run(lambda S, N, t, spec, pkey, score: list(score), *args)


def random_run(*args):
    K = args[2]

    def index(S, N, t, spec, pkey, score):
        return list_index(random_list_py(pkey, t, len(S), K), len(S))

    return cascade_run(index, *args)
