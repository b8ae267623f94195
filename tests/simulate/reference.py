"""Plain, obviously-correct per-step reference of every policy and click model.

Pure Python loops, one step at a time, written from the paper and the docstrings of
simulate.policies / simulate.models, sharing with the engine only ``klucb_scalar``
(bounds' one definition of the KL-UCB index). Random numbers come from
``uniform_py`` (an integer re-implementation of the SplitMix64 counters) and a
pure-Python Marsaglia-Tsang Beta sampler, so the engine's numba versions are checked too.

``reference_run`` returns the list shown at every step, the cumulative expected regret
at every step and the final observation counts of one run.
"""

from __future__ import annotations

import math

from cascading_bandits.bounds.kl import klucb_scalar
from cascading_bandits.simulate.rng import ATTRACT, PERSIST, POLICY, SATISFY, uniform_py

_SUB = 256


def _threshold(t, c):
    """log t + c log log t, small-t rule: log t -> 0 for t <= 1, log log t -> 0 for t <= e."""
    lg = math.log(t) if t > 1 else 0.0
    llg = math.log(math.log(t)) if t > math.e else 0.0
    return lg + c * llg


def _policy_u(key, t, e, L, j):
    if j >= _SUB:
        key = key ^ (((j // _SUB) * 0x94D049BB133111EB) & ((1 << 64) - 1))
    return uniform_py(key, POLICY, t, e, L, j % _SUB)


def _gamma(a, key, t, e, L, j):
    d = a - 1.0 / 3.0
    cc = 1.0 / math.sqrt(9.0 * d)
    while True:
        u1, u2 = _policy_u(key, t, e, L, j), _policy_u(key, t, e, L, j + 1)
        u3 = 1.0 - _policy_u(key, t, e, L, j + 2)
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


def clicks_py(model, rho, nu, gamma, lst, t, key):
    """The user's clicks (list of 0/1 per position) at step t."""
    L = len(rho)
    clicks = [0] * len(lst)
    for k, e in enumerate(lst):
        attracted = uniform_py(key, ATTRACT, t, e, L) < rho[e]
        if model == "cascade":
            if attracted:
                clicks[k] = 1
                return clicks
            continue
        if attracted:
            clicks[k] = 1
            if uniform_py(key, SATISFY, t, e, L) < nu[e]:
                return clicks
        if k + 1 < len(lst) and not uniform_py(key, PERSIST, t, k, L) < gamma:
            return clicks
    return clicks


def reward_py(model, rho, nu, gamma, lst):
    """Expected reward: cascade f(A, w) (weights sorted decreasingly), DBN satisfaction."""
    if model == "cascade":
        prod = 1.0
        for x in sorted((rho[e] for e in lst), reverse=True):
            prod *= 1.0 - x
        return 1.0 - prod
    total, reach = 0.0, 1.0
    for e in lst:
        wb = rho[e] * nu[e]
        total += reach * wb
        reach *= gamma * (1.0 - wb)
    return total


def _ranking(idx):
    return sorted(range(len(idx)), key=lambda e: (-idx[e], e))


def reference_run(model, weights, K, policy, order, horizon, c, ukey, pkey, nu=1.0, gamma=1.0):
    """One run, step by step.

    Returns (lists, clicks, cumulative_regret, counts); lists[t-1] = A_t.
    """
    rho = [float(x) for x in weights]
    L = len(rho)
    nus = [float(nu)] * L if model == "dbn" else [1.0] * L
    g = float(gamma) if model == "dbn" else 1.0
    score = [rho[e] * nus[e] for e in range(L)]
    opt = _ranking(score)[:K]
    fstar = reward_py(model, rho, nus, g, opt)
    ukey, pkey = int(ukey), int(pkey)
    lists, allclicks, regret = [], [], []
    cum = 0.0
    ranked = policy in ("ranked-klucb", "ranked-klucb-rba")
    if ranked:
        S = [[0] * L for _ in range(K)]
        N = [[0] * L for _ in range(K)]
        counts = [0] * L
    else:
        w0 = [1 if uniform_py(ukey, ATTRACT, 0, e, L) < rho[e] else 0 for e in range(L)]
        S, N = list(w0), [1] * L
    for t in range(1, horizon + 1):
        if ranked:
            th = _threshold(t, c)
            lst, chosen = [], []
            for k in range(K):
                idx = [
                    klucb_scalar(S[k][e] / N[k][e] if N[k][e] else 0.0, float(N[k][e]), th)
                    for e in range(L)
                ]
                rank = _ranking(idx)
                chosen.append(rank[0])
                lst.append(next(e for e in rank if e not in lst))
        else:
            if policy == "cascade-ucb1":
                lg = math.log(t - 1) if t - 1 > 1 else 0.0
                idx = [S[e] / N[e] + math.sqrt(1.5 * lg / N[e]) for e in range(L)]
            elif policy == "cascade-klucb":
                th = _threshold(t, c)
                idx = [klucb_scalar(S[e] / N[e], float(N[e]), th) for e in range(L)]
            elif policy == "cascade-ts":
                idx = [beta_py(1.0 + S[e], 1.0 + (N[e] - S[e]), pkey, t, e, L) for e in range(L)]
            elif policy == "oracle":
                idx = list(score)
            else:  # uniform-random
                idx = [uniform_py(pkey, POLICY, t, e, L) for e in range(L)]
            lst = _ranking(idx)[:K]
            if order == "worst-first":
                lst = lst[::-1]
        clicks = clicks_py(model, rho, nus, g, lst, t, ukey)
        last = max((k for k in range(K) if clicks[k]), default=-1)
        observed = lst[: last + 1] if last >= 0 else lst
        if ranked:
            for k in range(K):
                e = chosen[k] if policy == "ranked-klucb-rba" else lst[k]
                N[k][e] += 1
                S[k][e] += int(clicks[k] == 1 and lst[k] == e)
            for e in observed:
                counts[e] += 1
        else:
            for k, e in enumerate(observed):
                N[e] += 1
                S[e] += int(k == last)
        cum += fstar - reward_py(model, rho, nus, g, lst)
        lists.append(list(lst))
        allclicks.append(clicks)
        regret.append(cum)
    return lists, allclicks, regret, (counts if ranked else N)
