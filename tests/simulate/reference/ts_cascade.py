"""ts-cascade: theta = w + Z_t max(sqrt(w(1-w) log(t+1)/(N+1)), log(t+1)/(N+1)), one Z_t
per step (Box-Muller of policy sub-draws 0, 1 of (t, 0)); N = 0, w = 0 at the start (no
w_0); counts reported as N + 1."""

import math

from cascading_bandits.simulate.rng import POLICY, uniform_py

from .common import clicks_py, ranking, reward_py, setting


def z_py(pkey, t, L):
    u1 = uniform_py(pkey, POLICY, t, 0, L, 0)
    u2 = uniform_py(pkey, POLICY, t, 0, L, 1)
    return math.sqrt(-2.0 * math.log1p(-u1)) * math.cos(2.0 * math.pi * u2)


def theta_py(S, N, t, z):
    out = []
    lg = math.log(t + 1.0)
    for s, m in zip(S, N, strict=True):
        w = s / m if m > 0 else 0.0
        sigma = max(math.sqrt(w * (1.0 - w) * lg / (m + 1.0)), lg / (m + 1.0))
        out.append(w + z * sigma)
    return out


def reference_run(model, weights, K, spec, order, horizon, ukey, pkey, nu, gamma):
    rho, nus, g, score, fstar = setting(model, weights, K, nu, gamma)
    L = len(rho)
    ukey, pkey = int(ukey), int(pkey)
    S, N = [0] * L, [0] * L
    lists, allclicks, regret, cum = [], [], [], 0.0
    for t in range(1, horizon + 1):
        lst = ranking(theta_py(S, N, t, z_py(pkey, t, L)))[:K]
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
    return lists, allclicks, regret, [m + 1 for m in N]
