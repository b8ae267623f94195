"""Shared pieces of the references: users, rewards, ranking, the cascade learner's loop."""

from __future__ import annotations

import math

from cascading_bandits.simulate.rng import ATTRACT, PERSIST, POLICY, SATISFY, bits_py, uniform_py

_SUB = 256


def threshold(t, c):
    """log t + c log log t, small-t rule: log t -> 0 for t <= 1, log log t -> 0 for t <= e."""
    lg = math.log(t) if t > 1 else 0.0
    llg = math.log(math.log(t)) if t > math.e else 0.0
    return lg + c * llg


def policy_bits(key, t, e, L, j):
    """Sub-draw j of the policy stream of (t, e), 64 bits (beyond 255 the key is varied)."""
    if j >= _SUB:
        key = key ^ (((j // _SUB) * 0x94D049BB133111EB) & ((1 << 64) - 1))
    return bits_py(key, POLICY, t, e, L, j % _SUB)


def policy_u(key, t, e, L, j):
    """Sub-draw j of the policy stream of (t, e) as a uniform on the 2**-53 grid."""
    return (policy_bits(key, t, e, L, j) >> 11) * 2.0**-53


def clicks_py(model, rho, nu, gamma, lst, t, key):
    """The user's clicks (list of 0/1 per position) at step t.

    ``nu``: DBN satisfaction per item; PBM examination ``kappa`` and DCM continuation ``lam``
    per position (the kernels' ``satisfy``, simulate.models)."""
    L = len(rho)
    clicks = [0] * len(lst)
    if model == "pbm":  # position k examined (PERSIST of (t, k)) and item attractive
        for k, e in enumerate(lst):
            seen = uniform_py(key, PERSIST, t, k, L) < nu[k]
            clicks[k] = int(seen and uniform_py(key, ATTRACT, t, e, L) < rho[e])
        return clicks
    for k, e in enumerate(lst):
        attracted = uniform_py(key, ATTRACT, t, e, L) < rho[e]
        if model == "cascade":
            if attracted:
                clicks[k] = 1
                return clicks
            continue
        if model == "dcm":  # every attractive item is clicked; after a click, on w.p. lam_k
            if attracted:
                clicks[k] = 1
                if k + 1 < len(lst) and not uniform_py(key, PERSIST, t, k, L) < nu[k]:
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
    """Expected reward: cascade f(A, w) (weights sorted decreasingly), DBN satisfaction,
    PBM expected number of clicks sum_k kappa_k w(a_k), DCM satisfaction
    1 - prod_k (1 - (1 - lam_k) w(a_k)) (in position order, as the engine)."""
    if model == "cascade":
        prod = 1.0
        for x in sorted((rho[e] for e in lst), reverse=True):
            prod *= 1.0 - x
        return 1.0 - prod
    if model == "pbm":
        total = 0.0
        for k, e in enumerate(lst):
            total += nu[k] * rho[e]
        return total
    if model == "dcm":
        prod = 1.0
        for k, e in enumerate(lst):
            prod *= 1.0 - (1.0 - nu[k]) * rho[e]
        return 1.0 - prod
    total, reach = 0.0, 1.0
    for e in lst:
        wb = rho[e] * nu[e]
        total += reach * wb
        reach *= gamma * (1.0 - wb)
    return total


def ranking(idx):
    """Items by decreasing index, ties to the smaller id."""
    return sorted(range(len(idx)), key=lambda e: (-idx[e], e))


def position_params(model, K, values=None):
    """PBM kappa / DCM lam as K floats: ``values`` (a sequence) or, for a number or None
    (what the registry-driven tests pass as ``nu``), the model's documented default
    (kappa_k = 1/k, lam_k = k/(k+1))."""
    if values is not None and not isinstance(values, (int, float)):
        values = [float(x) for x in values]
        assert len(values) == K, (model, K, values)
        return values
    if model == "pbm":
        return [1.0 / k for k in range(1, K + 1)]
    return [k / (k + 1) for k in range(1, K + 1)]


def best_list(model, rho, pos, K):
    """PBM / DCM optimal list: the i-th most attractive item at the position of the i-th
    largest position weight (kappa; 1 - lam), ties to the smaller id / upper position."""
    q = pos if model == "pbm" else [1.0 - x for x in pos]
    items = ranking(rho)[:K]
    lst = [0] * K
    for item, k in zip(items, ranking(q), strict=True):
        lst[k] = item
    return lst


def setting(model, weights, K, nu, gamma):
    """(rho, nus, gamma, score, fstar) of a cell.

    ``nu``: for dbn one satisfaction probability for every item or a sequence of L, one per
    item (``nus`` is then that list); for pbm and dcm the K per-position parameters (kappa,
    lam; see :func:`position_params`), and ``nus`` is that list; ignored by the cascade model.
    ``score`` is the oracle's index: ``ranking(score)[:K]`` is the optimal list in position
    order -- rho nu (cascade: w) for the cascade and DBN models; for pbm and dcm
    ``K - k`` for the item :func:`best_list` puts at position k and -1 for the others.
    """
    rho = [float(x) for x in weights]
    L = len(rho)
    if model in ("pbm", "dcm"):
        pos = position_params(model, K, nu)
        best = best_list(model, rho, pos, K)
        score = [-1.0] * L
        for k, e in enumerate(best):
            score[e] = float(K - k)
        return rho, pos, 1.0, score, reward_py(model, rho, pos, 1.0, best)
    if model == "dbn" and hasattr(nu, "__len__"):
        nus = [float(x) for x in nu]
        assert len(nus) == L, f"nu must hold one value or L = {L}, got {len(nus)}"
    else:
        nus = [float(nu)] * L if model == "dbn" else [1.0] * L
    g = float(gamma) if model == "dbn" else 1.0
    score = [rho[e] * nus[e] for e in range(L)]
    fstar = reward_py(model, rho, nus, g, ranking(score)[:K])
    return rho, nus, g, score, fstar


def cascade_run(index, model, weights, K, spec, order, horizon, ukey, pkey, nu, gamma):
    """A cascade learner (Algorithm 1's loop) whose index at step t is
    ``index(S, T, t, spec, pkey, score)`` (a list of L numbers; ``score`` = the truth)."""
    rho, nus, g, score, fstar = setting(model, weights, K, nu, gamma)
    L = len(rho)
    ukey, pkey = int(ukey), int(pkey)
    S = [1 if uniform_py(ukey, ATTRACT, 0, e, L) < rho[e] else 0 for e in range(L)]
    N = [1] * L
    lists, allclicks, regret, cum = [], [], [], 0.0
    for t in range(1, horizon + 1):
        lst = ranking(index(S, N, t, spec, pkey, score))[:K]
        if order == "worst-first":
            lst = lst[::-1]
        clicks = clicks_py(model, rho, nus, g, lst, t, ukey)
        last = max((k for k in range(K) if clicks[k]), default=-1)
        observed = lst[: last + 1] if last >= 0 else lst
        for k, e in enumerate(observed):
            N[e] += 1
            S[e] += int(k == last)
        cum += fstar - reward_py(model, rho, nus, g, lst)
        lists.append(list(lst))
        allclicks.append(clicks)
        regret.append(cum)
    return lists, allclicks, regret, N
