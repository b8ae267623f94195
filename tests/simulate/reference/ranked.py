"""ranked-klucb(c) and ranked-klucb-rba(c): one KL-UCB bandit per position (see the policy)."""

from cascading_bandits.bounds.kl import klucb_scalar

from .common import clicks_py, ranking, reward_py, setting, threshold


def _ranked(rba, model, weights, K, spec, order, horizon, ukey, pkey, nu, gamma):
    assert order == "best-first"
    rho, nus, g, _, fstar = setting(model, weights, K, nu, gamma)
    L = len(rho)
    ukey = int(ukey)
    S = [[0] * L for _ in range(K)]
    N = [[0] * L for _ in range(K)]
    counts = [0] * L
    lists, allclicks, regret, cum = [], [], [], 0.0
    for t in range(1, horizon + 1):
        th = threshold(t, spec["c"])
        lst, chosen = [], []
        for k in range(K):
            idx = [
                klucb_scalar(S[k][e] / N[k][e] if N[k][e] else 0.0, float(N[k][e]), th)
                for e in range(L)
            ]
            rank = ranking(idx)
            chosen.append(rank[0])
            lst.append(next(e for e in rank if e not in lst))
        clicks = clicks_py(model, rho, nus, g, lst, t, ukey)
        last = max((k for k in range(K) if clicks[k]), default=-1)
        observed = lst[: last + 1] if last >= 0 else lst
        for k in range(K):
            e = chosen[k] if rba else lst[k]
            N[k][e] += 1
            S[k][e] += int(clicks[k] == 1 and lst[k] == e)
        for e in observed:
            counts[e] += 1
        cum += fstar - reward_py(model, rho, nus, g, lst)
        lists.append(list(lst))
        allclicks.append(clicks)
        regret.append(cum)
    return lists, allclicks, regret, counts


def reference_run(*args):
    return _ranked(False, *args)


def reference_run_rba(*args):
    return _ranked(True, *args)
