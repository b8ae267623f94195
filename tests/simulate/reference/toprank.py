"""toprank(delta): TopRank as [LS20] Section 32.2 states it, one step at a time.

Plain loops over sets and dicts: the relation G as a set of pairs (a, b), "b above a"; the
blocks peeled from scratch every round (the minimal elements of the rest; a rest without
any, only possible with a cycle, is one last block); the ranking sorted by (block,
decreasing policy uniform of (t, e), id); the statistics of every pair of a block updated
with U_ij = C_i - C_j from the click indicators of all L items; the test of
bounds.toprank.toprank_threshold_scalar on every pair with N_ij > 0. delta = 1 is 1/n.
``out``, a dict, receives the final relation and statistics (``G``, ``S``, ``N``) and the
largest number of blocks seen (``blocks``).
"""

from cascading_bandits.bounds.toprank import toprank_threshold_scalar
from cascading_bandits.simulate.rng import POLICY, uniform_py

from .common import clicks_py, reward_py, setting


def blocks_of(G, L):
    """The blocks P_1, P_2, ... of relation G (a set of pairs) on items 0..L-1."""
    rest, blocks = set(range(L)), []
    while rest:
        low = {i for i in rest if not any((i, j) in G for j in rest)}
        blocks.append(sorted(low or rest))
        rest -= low or rest
    return blocks


def reference_run(model, weights, K, spec, order, horizon, ukey, pkey, nu, gamma, out=None):
    assert order == "best-first"
    rho, nus, g, _, fstar = setting(model, weights, K, nu, gamma)
    L = len(rho)
    ukey, pkey = int(ukey), int(pkey)
    delta = 1.0 / horizon if spec["delta"] == 1.0 else spec["delta"]
    G, S, N = set(), {}, {}
    counts = [0] * L
    lists, allclicks, regret, cum = [], [], [], 0.0
    most = 0
    for t in range(1, horizon + 1):
        blocks = blocks_of(G, L)
        most = max(most, len(blocks))
        block = {e: d for d, b in enumerate(blocks) for e in b}
        u = [uniform_py(pkey, POLICY, t, e, L) for e in range(L)]
        lst = sorted(range(L), key=lambda e: (block[e], -u[e], e))[:K]
        clicks = clicks_py(model, rho, nus, g, lst, t, ukey)
        C = [0] * L
        for k, e in enumerate(lst):
            C[e] = clicks[k]
        for b in blocks:
            for i in b:
                for j in b:
                    if i != j:
                        S[i, j] = S.get((i, j), 0) + C[i] - C[j]
                        N[i, j] = N.get((i, j), 0) + abs(C[i] - C[j])
        for (i, j), nij in N.items():
            if nij > 0 and S[i, j] >= toprank_threshold_scalar(float(nij), delta):
                G.add((j, i))
        last = max((k for k in range(K) if clicks[k]), default=-1)
        for e in lst[: last + 1] if last >= 0 else lst:
            counts[e] += 1
        cum += fstar - reward_py(model, rho, nus, g, lst)
        lists.append(list(lst))
        allclicks.append(clicks)
        regret.append(cum)
    if out is not None:
        out.update(G=G, S=S, N=N, blocks=most)
    return lists, allclicks, regret, counts
