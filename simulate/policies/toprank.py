"""``toprank(delta=1)``: TopRank (Lattimore, Kveton, Li, Szepesvari, NeurIPS 2018; [LS20]
Lattimore and Szepesvari, *Bandit Algorithms*, Cambridge 2020, Section 32.2).

The book ranks ``m`` positions out of ``ell`` items: here ``K`` out of ``L``. TopRank keeps
a relation ``G_t`` on the items, ``(a, b) in G_t`` meaning "b is believed more attractive
than a", and pairwise statistics of the rounds at which two items shared a block:
``S_ij = sum U_sij`` and ``N_ij = sum |U_sij|`` with ``U_sij = C_si - C_sj`` (the click
indicators of every item, 0 for an item not shown). Each round:

1. blocks ``P_1, P_2, ...`` by peeling: ``P_d`` is the set of items of the rest with no
   edge of ``G_t`` to another item of the rest (its minimal elements);
2. the list is block 1 first, then block 2, ..., each block in a uniformly random order;
   the first K positions are shown (best-first only: the positions are the algorithm's);
3. for every pair ``i, j`` of one block: ``S_ij += U_ij``, ``N_ij += |U_ij|``; then
   ``(j, i)`` joins ``G`` once ``N_ij > 0`` and ``S_ij >= sqrt(2 N_ij log(c sqrt(N_ij) /
   delta))``, ``c = 4 sqrt(2/pi) / erf(sqrt 2)`` of [LS20] Exercise 20.11
   (:func:`bounds.toprank.toprank_threshold_scalar`, the one definition).

TopRank learns from ALL clicks (the click vector the model returns, several in the DBN
and position-based models), not the last click the cascade learners use.

Parameter ``delta`` in (0, 1]: the confidence of the test. ``delta = 1`` (the default)
stands for ``delta = 1/n`` with ``n`` the run's horizon, the choice of [LS20] Theorem 32.2
(a literal ``delta = 1`` would make Lemma 32.4's failure bound ``delta L^2`` vacuous);
any other value is used as given, the same at every horizon.

Randomness: the order inside a block is that of decreasing policy-stream uniforms
``uniform(pkey, POLICY, t, e, L, 0)`` (ties, of probability about 2**-53, to the smaller
id): a uniformly random order, a pure function of the run's policy key, so runs are
reproducible and two policies meet the same users (common random numbers). Only the items
of the blocks that reach the first K positions are drawn.

Edge rule: a cycle in ``G`` (impossible while the confidence event of Section 32.3 holds)
would leave a rest without minimal elements; the whole rest is then one last block.

``counts`` are the steps at which ``e`` was at a position ``<= C``, ``C`` the last click
(the cascade observation rule of :func:`policies.kernel.play`, no ``w_0``): TopRank itself
uses the pairwise statistics only.

Cost: ``O(L^2)`` memory (two int64 and one bool ``L x L`` array, 17 bytes a pair: 68 MB
per run at ``L = 2048``, the limit :data:`MAX_ITEMS`); a step costs ``O(K L)``, plus
``O(L^2)`` at the rounds where ``G`` grows (the blocks are peeled again only from the
first block that gained an edge).
"""

from __future__ import annotations

import numba
import numpy as np

from cascading_bandits.bounds.toprank import toprank_threshold_scalar
from cascading_bandits.simulate.policies.kernel import INNER, NJIT, falses, finish, helper, play
from cascading_bandits.simulate.policies.registry import Param, register_policy
from cascading_bandits.simulate.rng import POLICY, uniform

__all__ = ["MAX_ITEMS", "kernel", "choose_kernel", "partition_from"]

#: most items a TopRank run accepts: its pairwise statistics take 17 L^2 bytes per run
MAX_ITEMS = 2048


@helper(INNER)
def partition_from(G, L, d0, perm, bstart, blk, cnt):
    """Peel the blocks again from block ``d0`` on; returns the number of blocks.

    ``perm[bstart[d]:bstart[d+1]]`` are the items of block ``d`` (0-based) and ``blk[e]``
    the block of item ``e``; the blocks before ``d0`` are kept: an edge between two items
    of block ``d0`` changes none of them (its source was not minimal there anyway).
    ``G`` is the flat ``L x L`` relation, ``G[a * L + b]``: ``b`` above ``a``. ``cnt``
    (int64, shape (L,)) is scratch.
    """
    start = bstart[d0]
    for p in range(start, L):
        x = perm[p]
        c = 0
        for q in range(start, L):
            if G[x * L + perm[q]]:
                c += 1
        cnt[x] = c
    d = d0
    pos = start
    while pos < L:
        bstart[d] = pos
        # minimal items of the rest perm[pos:] to the front, in their present order
        w = pos
        for p in range(pos, L):
            x = perm[p]
            if cnt[x] == 0:
                perm[p] = perm[w]
                perm[w] = x
                w += 1
        if w == pos:  # a cycle: the rest is one last block
            w = L
        for p in range(pos, w):
            x = perm[p]
            blk[x] = d
        for p in range(pos, w):
            x = perm[p]
            for q in range(w, L):
                y = perm[q]
                if G[y * L + x]:
                    cnt[y] -= 1
        pos = w
        d += 1
    bstart[d] = L
    return d


@numba.njit(**NJIT)
def kernel(env, params, ukey, pkey, regret_out, counts_out, trace):
    code, attract, satisfy, gamma, K, n, order, fstar, checkpoints, lazy = env
    L = attract.size
    delta = params[0]
    if delta == 1.0:  # the default stands for Theorem 32.2's delta = 1/n
        delta = 1.0 / n
    S = np.zeros(L * L, np.int64)  # S[i * L + j] = S_ij = -S_ji
    Np = np.zeros(L * L, np.int64)  # N_ij = N_ji
    G = falses(L * L)
    perm = np.zeros(L, np.int64)
    for e in range(L):
        perm[e] = e
    bstart = np.zeros(L + 1, np.int64)
    bstart[1] = L
    blk = np.zeros(L, np.int64)
    cnt = np.zeros(L, np.int64)
    taken = falses(L)
    clk = falses(L)
    u = np.empty(L)
    Sobs = np.zeros(L, np.int64)  # play's cascade-rule counts (reported as counts)
    Nobs = np.zeros(L, np.int64)
    sel = np.zeros(K, np.int64)
    lst = np.zeros(K, np.int64)
    clicks = np.zeros(K, np.int64)
    scratch = np.empty(K)
    dmin = L  # first block that gained an edge this round (L: none)
    cum, j = 0.0, np.int64(0)  # not a literal 0: play compiles once
    for t in range(1, n + 1):
        if dmin < L:
            partition_from(G, L, dmin, perm, bstart, blk, cnt)
            dmin = L
        # the list: blocks in order, each by decreasing policy uniform (ties: smaller id)
        k = 0
        d = 0
        while k < K:
            lo, hi = bstart[d], bstart[d + 1]
            for p in range(lo, hi):
                e = perm[p]
                u[e] = uniform(pkey, POLICY, t, e, L, 0)
                taken[e] = False
            for _ in range(lo, hi):
                if k == K:
                    break
                best = -1
                for p in range(lo, hi):
                    e = perm[p]
                    if taken[e]:
                        continue
                    if best < 0 or u[e] > u[best] or (u[e] == u[best] and e < best):
                        best = e
                taken[best] = True
                sel[k] = best
                k += 1
            d += 1
        cum, j, _, _ = play(
            t, Sobs, Nobs, ukey, cum, j, code, attract, satisfy, gamma, K, order, fstar,
            checkpoints, sel, lst, clicks, scratch, trace, regret_out,
        )  # fmt: skip
        for k in range(K):
            if clicks[k] == 1:
                clk[lst[k]] = True
        # U_xy = 1 for a clicked x and an unclicked y of its block; other pairs: U = 0
        for k in range(K):
            if clicks[k] != 1:
                continue
            x = lst[k]
            d = blk[x]
            for p in range(bstart[d], bstart[d + 1]):
                y = perm[p]
                if clk[y]:
                    continue
                S[x * L + y] += 1
                S[y * L + x] -= 1
                Np[x * L + y] += 1
                Np[y * L + x] += 1
                if not G[y * L + x] and S[x * L + y] >= toprank_threshold_scalar(
                    float(Np[x * L + y]), delta
                ):
                    G[y * L + x] = True  # y below x
                    if d < dmin:
                        dmin = d
        for k in range(K):
            clk[lst[k]] = False
    finish(Nobs, counts_out)


def choose_kernel(L, lazy):
    """The kernel (one for every L); a ValueError beyond :data:`MAX_ITEMS` items."""
    if L > MAX_ITEMS:
        raise ValueError(
            f"toprank keeps L x L pairwise statistics (17 L^2 bytes per run) and accepts at "
            f"most L = {MAX_ITEMS} items, got L = {L}"
        )
    return kernel


DECL = register_policy(
    "toprank",
    params=(
        Param(
            "delta",
            1.0,
            0.0,
            1.0,
            lo_open=True,
            doc="confidence of the test S >= sqrt(2 N log(c sqrt(N)/delta)); 1 means 1/n "
            "(Theorem 32.2)",
        ),
    ),
    kernel=choose_kernel,
    reference="reference.toprank:reference_run",
    summary="TopRank (Lattimore et al. 2018; Bandit Algorithms Ch. 32): blocks of a learned "
    "partial order, random order inside a block, all clicks; delta = 1 means 1/n",
    orders=("best-first",),
)
