"""A uniformly random ordered list of K distinct items out of L, in O(K) a step.

uniform-random (:mod:`.uniform_random`) shows such a list every step, cascade-egreedy
(:mod:`.egreedy`) on its exploration steps. The list is the first K entries of a
Fisher-Yates shuffle of ``0..L-1`` (Knuth, TAOCP vol. 2, 3.1.2 Algorithm P, run from the
front): for ``i = 0..K-1`` swap entry ``i`` with entry ``i + r_i``, ``r_i`` uniform on
``0..L-1-i``. The map ``(r_0, ..., r_{K-1}) -> list`` is a bijection onto the ordered
K-lists of distinct items (each list has ``L (L-1) ... (L-K+1)`` of them, as many as
tuples of draws), so the list is uniform over them when the ``r_i`` are. Only the <= K
entries the swaps moved differ from the identity: they are kept in a map of at most K
(position, item) pairs searched linearly (K is small), so a step costs O(K^2) and no
O(L) array is touched.

Draws (:mod:`simulate.rng`, the run's policy key): ``r_i`` comes from the 64-bit policy
draw of ``(t, index i, width L)``, sub-draw 0, as ``z mod m`` (``m = L - i``) unless
``z < 2**64 mod m`` (rejected: the remaining ``2**64 - (2**64 mod m)`` values are a
multiple of m, so the accepted ``z mod m`` is exactly uniform); a rejected draw is
followed by sub-draws 2, 3, ... (sub-draw 1 of ``(t, 0)`` is cascade-egreedy's coin).
A rejection has probability below ``m / 2**64`` (< 4e-15 at L = 65,536).
"""

from __future__ import annotations

import numpy as np

from cascading_bandits.simulate.policies.kernel import HOT, INNER, helper
from cascading_bandits.simulate.rng import _policy_bits

__all__ = ["uniform_below", "swap_step", "random_list", "list_buffers"]

_U0 = np.uint64(0)


@helper(HOT)
def uniform_below(pkey, t, i, L, m):
    """An integer uniform on ``0..m-1`` (1 <= m) from the policy draws of (t, i) (module
    docstring: rejection of ``z < 2**64 mod m``, sub-draws 0, 2, 3, ...)."""
    mu = np.uint64(m)
    lim = (_U0 - mu) % mu  # (2**64 - m) mod m = 2**64 mod m, in uint64 arithmetic
    j = np.int64(0)
    while True:
        z = _policy_bits(np.uint64(pkey), np.int64(t), np.int64(i), np.int64(L), j)
        if z >= lim:
            return np.int64(z % mu)
        j = np.int64(2) if j == 0 else j + 1


@helper(HOT)
def swap_step(i, r, nm, keys, vals, out):
    """Swap i of the shuffle: entries i and r (>= i) are exchanged and ``out[i]`` is set to
    entry i's new item. ``keys/vals[:nm]`` map the positions the swaps moved to their items
    (the others hold their own id); returns the map's new length."""
    vi = i
    vr = r
    xr = -1
    for x in range(nm):
        if keys[x] == i:
            vi = vals[x]
        if keys[x] == r:
            vr = vals[x]
            xr = x
    out[i] = vr
    # entry r now holds entry i's item; entry i is never read again
    if xr < 0:
        keys[nm] = r
        vals[nm] = vi
        return nm + 1
    vals[xr] = vi
    return nm


@helper(HOT)
def random_list(pkey, t, L, K, keys, vals, out):
    """``out[:K]`` = the first K entries of the step's Fisher-Yates shuffle of ``0..L-1``
    (module docstring). ``keys``, ``vals`` (>= K,) int: work arrays (the moved entries)."""
    nm = np.int64(0)  # not a literal: swap_step compiles once
    for i in range(K):
        nm = swap_step(i, i + uniform_below(pkey, t, i, L, L - i), nm, keys, vals, out)


@helper(INNER)
def list_buffers(K):
    """(keys (K,) int, vals (K,) int): :func:`random_list`'s work arrays."""
    return np.zeros(K, np.int64), np.zeros(K, np.int64)
