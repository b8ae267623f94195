"""Claims: the steps of the binomial-tail regret bound of :mod:`bounds.sharp` (derived here).

One claim per new inequality of ``docs/sharper_bounds.md``:

* ``sharp.a_part``: Step 3. The UCB1 union-Hoeffding sum equals its closed form
  ``t (t-1)^(-2 alpha)``; the exact probability that an optimal item's index is below its
  weight at step t (a dynamic program over the binomial path, ``T_{t-1} in [1, t]``) is at
  most the UCB1 bound and at most Theorem 10 of Garivier and Cappe at the policy's
  threshold; ``a_part_count`` is at least the direct sum of its terms (also past the
  integral cut-over at ``2**20`` steps).
* ``sharp.pathwise``: Steps 2-4 on traces of a plain re-implementation of CascadeUCB1 and
  CascadeKL-UCB: at every step the realised Theorem-1 sum is at most the A-part indicator sum
  plus the B-part events, and over a run each item's B-part events are at most
  ``sum_{s < T_n(e)} g_e(u_n(w_hat_s(e), s))``, with distinct ``s`` per item.
* ``sharp.layer_cake``: Step 5. ``E g_e(u_n(w_hat_s, s))`` by the direct sum over the binomial
  law (50 digits) equals the layer form with the computed thresholds and SciPy's tails; the
  tails against 50-digit mpmath.
* ``sharp.truncation``: the Chernoff bound used to truncate is at least the exact rest.
* ``sharp.reference``: the fast bound is at least the 50-digit reference and within 1e-9 of it.
* ``sharp.exact_small``: the whole bound is at least the exact expected regret, computed by
  enumerating every observation sequence of tiny instances (n <= 5).
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
from scipy import special

from cascading_bandits.bounds._blocked import arange_blocks
from cascading_bandits.verify.checks import SlackTracker
from cascading_bandits.verify.registry import claim
from cascading_bandits.verify.verdict import EXACT, FAILS, SAMPLING

_REQ = ("cascading_bandits.bounds.sharp",)
_POLICIES = ("cascade-ucb1", "cascade-klucb")
_PARAMS = {"cascade-ucb1": (0.5, 1.0, 1.5, 2.0), "cascade-klucb": (0.0, 1.0, 3.0)}


def _binom_sf(k, n, p):
    """``P(Bin(n, p) > k)`` (scipy.stats.binom.sf without importing scipy.stats, a second of
    start-up): ``special.bdtrc``, which is nan for ``k > n`` where the tail is 0."""
    k = np.asarray(k, dtype=float)
    return special.bdtrc(np.minimum(k, n), n, p)


# ---------------------------------------------------------------------------
# helpers (also used by tests/bounds/test_sharp.py)
# ---------------------------------------------------------------------------


def binom_sf_mp(m, s, p, dps=50):
    """``P(Bin(s, p) >= m)`` at ``dps`` digits: the smaller side summed term by term.

    Above the mode the upper tail is summed upward; otherwise ``1 -`` the lower tail, summed
    downward (the terms decrease away from the mode, so the sums stop once a term is below
    ``10^-(dps+5)`` of the total).
    """
    with mpmath.workdps(dps + 10):
        if m <= 0:
            return mpmath.mpf(1)
        if m > s:
            return mpmath.mpf(0)
        p = mpmath.mpf(p)
        if p == 0:
            return mpmath.mpf(0)
        if p == 1:
            return mpmath.mpf(1)
        q = 1 - p
        mode = int(mpmath.floor((s + 1) * p))
        eps = mpmath.mpf(10) ** (-dps - 5)

        def pmf(j):
            return mpmath.exp(
                mpmath.loggamma(s + 1) - mpmath.loggamma(j + 1) - mpmath.loggamma(s - j + 1)
                + j * mpmath.log(p) + (s - j) * mpmath.log1p(-p)
            )  # fmt: skip

        if m > mode:
            t = pmf(m)
            tot, j = t, m
            while j < s:
                t *= (s - j) / mpmath.mpf(j + 1) * p / q
                j += 1
                tot += t
                if t < tot * eps:
                    break
            return +tot
        t = pmf(m - 1)
        tot, j = t, m - 1
        while j > 0:
            t *= j / mpmath.mpf(s - j + 1) * q / p
            j -= 1
            tot += t
            if t < tot * eps:
                break
        return 1 - tot


def draw_weights(rng, L_max=5, high=0.98):
    """(weights, K): uniform weights in (0.02, high), grid weights with ties, and 0 or 1."""
    L = int(rng.integers(2, L_max + 1))
    K = int(rng.integers(1, L))
    kind = rng.random()
    if kind < 0.4:
        w = rng.uniform(0.02, high, L)
    elif kind < 0.7:
        w = rng.integers(0, 9, L) / 8.0  # ties, 0 and 1
    else:
        w = np.exp(rng.uniform(np.log(1e-3), 0.0, L))
        w[rng.integers(0, L)] = float(rng.choice([0.0, 1.0]))
    return [float(x) for x in w], K


def exact_miss_probability(w, t, policy, param, dps=30):
    """``P(exists s in [1, t]: u_t(w_hat_s, s) < w)`` exactly (binomial path DP, exact thresholds).

    ``u_t`` is the index at step t (radius ``c_{t-1,s}`` or threshold ``f(t)``), ``w_hat_s`` the
    mean of s i.i.d. Bernoulli(w) draws; the mass of paths at a state ``j < m_s`` is killed.
    """
    from cascading_bandits.bounds.sharp import admission_threshold_reference

    m = [admission_threshold_reference(w, s, t, policy, param, dps=dps) for s in range(1, t + 1)]
    mass = np.array([1.0])  # j successes after 0 draws
    killed = 0.0
    for s in range(1, t + 1):
        new = np.zeros(s + 1)
        new[:-1] += mass * (1 - w)
        new[1:] += mass * w
        bad = min(m[s - 1], s + 1)
        killed += float(new[:bad].sum())
        new[:bad] = 0.0
        mass = new
    return killed


# ---------------------------------------------------------------------------
# sharp.a_part
# ---------------------------------------------------------------------------


def _direct_a_terms(n, alpha):
    """``min(1, t (t - 1)^(-2 alpha))`` for t = 3..n (1 for t = 1, 2), written out directly
    (not through bounds.sharp), in cache-sized blocks (``bounds._blocked``): elementwise, the
    same bits as one pass over t = 1..n (2**20 terms: 30-60 ms in one pass, about 15 ms in
    blocks)."""

    def terms(t):
        with np.errstate(divide="ignore"):
            return np.where(t >= 3, np.minimum(1.0, t * np.maximum(t - 1, 1) ** (-2 * alpha)), 1.0)

    return arange_blocks(1, n, terms)


@claim(
    "sharp.a_part",
    "docs/sharper_bounds.md, Step 3 (derived here)",
    "P(U_t(e*) < w(e*)) <= min(1, sum_{s<=t} exp(-2 s c_{t-1,s}^2)) = min(1, t (t-1)^(-2 alpha)) "
    "(UCB1) and <= [GC] Theorem 10 at delta = log t + c log log t (KL-UCB); B_A(n) >= the sum "
    "of these over t",
    premises=("T_{t-1}(e*) in [1, t]", "observations i.i.d. Bernoulli(w(e*))"),
    method=SAMPLING,
    requires=_REQ,
)
def _a_part(ctx):
    from cascading_bandits.bounds.garivier_cappe import theorem10_bound
    from cascading_bandits.bounds.sharp import a_part_count, ucb1_miss_probability

    tr = SlackTracker()
    worst_form = 0.0
    for _ in range(max(3, ctx.examples // 4)):
        alpha = float(ctx.rng.choice(_PARAMS["cascade-ucb1"]))
        c = float(ctx.rng.choice(_PARAMS["cascade-klucb"]))
        wv = float(ctx.rng.choice([ctx.rng.uniform(0.05, 0.95), 0.5, 0.01, 0.99]))
        t = int(ctx.rng.integers(1, 41))
        # the closed form against the direct sum over s (40 digits)
        with mpmath.workdps(40):
            lt = mpmath.log(t - 1) if t - 1 > 1 else mpmath.mpf(0)
            direct = min(
                1, mpmath.fsum(mpmath.exp(-2 * s * alpha * lt / s) for s in range(1, t + 1))
            )
        closed = ucb1_miss_probability(t, alpha)
        worst_form = max(worst_form, float(abs(closed - direct) / direct))
        # the exact probability against both bounds
        inst = {"w": wv, "t": t}
        p_u = exact_miss_probability(wv, t, "cascade-ucb1", alpha)
        tr.add(closed - p_u, dict(inst, policy="cascade-ucb1", alpha=alpha, exact=p_u), tol=1e-12)
        p_k = exact_miss_probability(wv, t, "cascade-klucb", c)
        info = dict(inst, policy="cascade-klucb", c=c, exact=p_k)
        tr.add(float(theorem10_bound(t, c)) - p_k, info, tol=1e-12)
    # B_A(n) against the direct sum of its terms, below and past the integral cut-over
    for n in (1, 2, 3, 10, 1000, (1 << 20) + 5000):
        for alpha in (0.6, 1.5):
            direct = math.fsum(_direct_a_terms(n, alpha))
            b = a_part_count(n, "cascade-ucb1", alpha)
            tr.add((b - direct) / direct, {"n": n, "alpha": alpha, "B_A": b, "direct": direct})
    out = tr.outcome(
        SAMPLING,
        "w in (0, 1), t in [1, 40], alpha in {0.5, 1, 1.5, 2}, c in {0, 1, 3}; "
        "B_A(n) for n up to 2^20 + 5000",
        {"t": [1, 40], "alpha": list(_PARAMS["cascade-ucb1"]), "c": list(_PARAMS["cascade-klucb"])},
        notes="slack: bound - exact probability (the exact one by a dynamic program over the "
        "binomial path with 30-digit thresholds, killed mass summed without cancellation), and "
        "(B_A - direct sum)/direct sum. Closed form t (t-1)^(-2 alpha) vs the 40-digit sum over "
        f"s: max relative difference {worst_form:.2e}.",
    )
    if worst_form > 1e-12:
        from dataclasses import replace

        out = replace(out, status=FAILS, notes=out.notes + " (closed form mismatch)")
    return out


# ---------------------------------------------------------------------------
# sharp.pathwise: a plain re-implementation of the two policies
# ---------------------------------------------------------------------------


def _index(policy, param, S, N, t):
    """The policy's index at step t for successes S and counts N (lists)."""
    from cascading_bandits.bounds.indices import klucb_threshold_scalar, safe_log
    from cascading_bandits.bounds.kl import klucb_scalar

    if policy == "cascade-ucb1":
        lt = safe_log(t - 1.0)
        return [S[e] / N[e] + math.sqrt(param * lt / N[e]) for e in range(len(S))]
    th = klucb_threshold_scalar(float(t), param)
    return [klucb_scalar(S[e] / N[e], float(N[e]), th) for e in range(len(S))]


def simulate_trace(w, K, n, policy, param, rng):
    """Run the policy (plain Python) and return the per-step records and each item's draws.

    Returns
    -------
    steps : list of dict(U, A, pi, G) with ``G`` the realised events ``(e, e*)``
    draws : list (per item) of the observed values, ``w_0`` first
    """
    from cascading_bandits.bounds.decomposition import recommended_list, theorem1_permutation

    L = len(w)
    draws = [[int(rng.random() < w[e])] for e in range(L)]
    opt = set(sorted(range(L), key=lambda e: -w[e])[:K])
    steps = []
    for t in range(1, n + 1):
        S = [sum(d) for d in draws]
        N = [len(d) for d in draws]
        U = _index(policy, param, S, N, t)
        A = recommended_list(U, K)
        pi = theorem1_permutation(A, w, K)
        G = []
        for k, e in enumerate(A):
            click = int(rng.random() < w[e])
            draws[e].append(click)
            if e not in opt:
                G.append((e, pi[k], N[e]))  # observed: (item, e*, s = T_{t-1}(e))
            if click:
                break
        steps.append({"U": U, "A": A, "pi": pi, "G": G})
    return steps, draws


@claim(
    "sharp.pathwise",
    "docs/sharper_bounds.md, Steps 2-4 (derived here)",
    "per step: sum_G Delta <= sum_{e*} D_{e*} 1{U_t(e*) < w(e*)} + sum_G Delta 1{U_t(e) >= w(e*)}; "
    "per item over a run: sum_{t, G_{e,.,t}, U_t(e) >= w(e*)} Delta <= "
    "sum_{s < T_n(e)} g_e(u_n(w_hat_s(e), s)), with distinct s",
    premises=("A_t = top K of U_t", "indices nondecreasing in t and in the mean"),
    method=SAMPLING,
    requires=_REQ,
)
def _pathwise(ctx):
    from cascading_bandits.bounds.sharp import admission_thresholds

    tr_step, tr_item = SlackTracker(), SlackTracker()
    events = 0
    steps_seen = []
    distinct_ok = True
    ss = np.random.SeedSequence(int(ctx.rng.integers(0, 2**63)))
    for i, child in enumerate(ss.spawn(max(4, ctx.examples // 2))):
        rng = np.random.default_rng(child)
        w, K = draw_weights(rng, L_max=5, high=0.5)  # low weights: many observations
        L = len(w)
        policy = _POLICIES[i % 2]
        param = float(rng.choice(_PARAMS[policy]))
        n = int(rng.integers(20, 151))
        steps, draws = simulate_trace(w, K, n, policy, param, rng)
        steps_seen.extend(steps)
        order = sorted(range(L), key=lambda e: -w[e])
        opt, sub = order[:K], order[K:]
        low = min(w[e] for e in sub)
        D = {e: w[e] - low for e in opt}
        inst = {"w": w, "K": K, "n": n, "policy": policy, "param": param}
        b_items = {e: [] for e in sub}
        seen = {e: set() for e in sub}
        for t, st in enumerate(steps, start=1):
            U = st["U"]
            lhs = sum(w[es] - w[e] for e, es, _ in st["G"])
            a = sum(D[es] for es in opt if U[es] < w[es])
            b = 0.0
            for e, es, s in st["G"]:
                events += 1
                if s in seen[e]:
                    distinct_ok = False
                seen[e].add(s)
                if U[e] < U[es]:  # A_t is the top K: impossible
                    tr_step.add(-1.0, dict(inst, t=t, reason="U_t(e) < U_t(e*) on G"))
                if U[e] >= w[es]:
                    b += w[es] - w[e]
                    b_items[e].append(w[es] - w[e])
            if st["G"]:
                tr_step.add(a + b - lhs, dict(inst, t=t), tol=1e-12)
        for e in sub:
            T = len(draws[e])  # T_n(e): w_0 and every observation
            if T <= 1:
                continue
            s_arr = np.arange(1, T)
            succ = np.cumsum(draws[e])[: T - 1]
            g = np.zeros(T - 1)
            for es in opt:  # g_e(u) = max over admitted levels of w(k) - w(e)
                m = admission_thresholds(w[es], s_arr, n, policy, param)
                g = np.maximum(g, np.where(succ >= m, w[es] - w[e], 0.0))
            # exactly rounded sums: each B event's gap is one of the terms g (Step 4), so the
            # exact sums compare as the inequality says and so do their roundings
            rhs, lhs = math.fsum(g), math.fsum(b_items[e])
            tr_item.add(rhs - lhs, dict(inst, item=e, B=lhs, rhs=rhs))
    if tr_item.counterexample and not tr_step.counterexample:
        tr_step.counterexample = tr_item.counterexample
    out = tr_step.outcome(
        SAMPLING,
        "plain CascadeUCB1 (alpha in {0.5, 1, 1.5, 2}) and CascadeKL-UCB (c in {0, 1, 3}) runs, "
        "L <= 5 (uniform, grid with ties, 0 and 1 weights), n in [20, 150]",
        {"L": [2, 5], "n": [20, 150]},
        notes=f"{len(steps_seen)} steps, {tr_step.n} with G events ({events} events); min slack "
        "per such step (Steps 2-3) shown; per "
        f"item (Step 4) min slack {tr_item.min_slack:.4g} over {tr_item.n} (run, item). "
        f"s = T_(t-1)(e) distinct per item: {distinct_ok}. pi_t is "
        "bounds.decomposition.theorem1_permutation; g_e uses the thresholds of bounds.sharp.",
    )
    if not distinct_ok:
        from dataclasses import replace

        out = replace(out, status=FAILS, notes=out.notes + " (a count s repeated)")
    return out


# ---------------------------------------------------------------------------
# sharp.layer_cake
# ---------------------------------------------------------------------------


def _g_expectation_mp(opt, we, s, n, policy, param, dps=50):
    """``E g_e(u_n(w_hat_s, s))`` by the direct sum over ``j`` (exact predicate, ``dps`` digits)."""
    from cascading_bandits.bounds.sharp import _mp_admitted, _mp_level, _policy

    code, _, param = _policy(policy, param)
    with mpmath.workdps(dps):
        par = _mp_level(code, param, n)
        mu = mpmath.mpf(we)
        levels = [mpmath.mpf(v) for v in sorted(opt, reverse=True)]
        total = mpmath.mpf(0)
        for j in range(s + 1):
            for v in levels:
                if _mp_admitted(j, s, v, code, par):
                    total += mpmath.binomial(s, j) * mu**j * (1 - mu) ** (s - j) * (v - mu)
                    break
        return total


@claim(
    "sharp.layer_cake",
    "docs/sharper_bounds.md, Step 5 (derived here)",
    "E g_e(u_n(w_hat_s, s)) = sum_k (w(k) - w'(k+1)) P(Bin(s, w(e)) >= m_{k,s}); SciPy's binomial "
    "tails within 1e-10 of 50-digit values",
    premises=("w_hat_s ~ Bin(s, w(e))/s", "u_n nondecreasing in the mean"),
    method=SAMPLING,
    requires=_REQ,
)
def _layer_cake(ctx):
    from cascading_bandits.bounds.sharp import admission_thresholds

    tr = SlackTracker()
    worst = 0.0
    for i in range(max(4, ctx.examples // 2)):
        w, K = draw_weights(ctx.rng)
        order = sorted(w, reverse=True)
        opt, sub = order[:K], order[K:]
        we = float(ctx.rng.choice(sub))
        policy = _POLICIES[i % 2]
        param = float(ctx.rng.choice(_PARAMS[policy]))
        s = int(ctx.rng.integers(1, 60))
        n = int(np.exp(ctx.rng.uniform(0, math.log(1e6))))
        direct = _g_expectation_mp(opt, we, s, n, policy, param)
        levels = sorted(set(opt), reverse=True)
        layer = 0.0
        for k, v in enumerate(levels):
            lower = levels[k + 1] if k + 1 < len(levels) else we
            if v - lower > 0:
                m = int(admission_thresholds(v, s, n, policy, param))
                layer += (v - lower) * float(_binom_sf(m - 1, s, we))
        d = float(direct)
        # the layer form as the bound evaluates it (thresholds that may only admit more, tails
        # inflated by 1e-10) must not fall below the exact expectation
        tr.add((layer * (1 + 1e-10) - d) / max(d, 1e-300), {"opt": opt, "w(e)": we, "s": s, "n": n,
               "policy": policy, "param": param, "direct": d, "layer": layer})  # fmt: skip
        worst = max(worst, abs(layer - d) / max(d, 1e-300))
    # binomial tails against mpmath at 50 digits, in the ranges the bound uses: SciPy's
    # (the grid values) and the windowed recurrences of bounds.sharp (every other term)
    from cascading_bandits.bounds.sharp import _block_tails, _level_param, _scan

    worst_tail = 0.0
    for it in range(max(6, ctx.examples // 2)):
        code = it % 2
        v = float(ctx.rng.uniform(0.02, 1.0))
        mu = float(v * ctx.rng.choice([ctx.rng.uniform(0.05, 1.0), 0.999, 1e-3]))
        n = int(np.exp(ctx.rng.uniform(math.log(3), math.log(1e7))))
        s0 = int(np.exp(ctx.rng.uniform(0, math.log(1e5))))
        cnt = int(ctx.rng.integers(1, 1025))
        par = _level_param(code, 1.5 if code == 0 else 3.0, n) * (1 if code == 0 else 1 + 1e-11)
        m = np.empty(cnt, dtype=np.int64)
        _scan(s0, cnt, 0, v, code, par, m)
        flags = np.empty(cnt, dtype=np.int8)
        tails = _block_tails(m, s0, mu, np.empty(cnt), flags)
        for i in {0, int(ctx.rng.integers(0, cnt)), cnt - 1}:  # a grid value and others
            s = s0 + i
            ref = binom_sf_mp(int(m[i]), s, mu)
            if ref < mpmath.mpf("1e-290"):
                continue
            if flags[i] == 1:  # taken as 1: an upper bound within 4.3e-18
                err = 0.0 if tails[i] >= ref else 1.0
            else:
                err = float(abs(mpmath.mpf(float(tails[i])) - ref) / ref)
            worst_tail = max(worst_tail, err)
            tr.add(1e-10 - err, {"m": int(m[i]), "s": s, "p": mu, "rel_err": err})
    return tr.outcome(
        SAMPLING,
        "random instances L <= 5 (ties, 0 and 1 weights), s < 60, n log-uniform in [1, 1e6]; "
        "tails: thresholds of both policies for s <= 1e5 + 1024, n <= 1e7, p in (0, 1]",
        {"s": [1, 60], "n": [1, 10**6]},
        notes="slack: (layer form - direct sum)/direct sum (the direct sum at 50 digits with "
        "the exact index predicate; the layer form with bounds.sharp's thresholds, which may "
        "only admit more, and SciPy's tails inflated by 1e-10), and 1e-10 - relative error "
        "of the tails as bounds.sharp computes them (SciPy's Boost values on a grid of s, "
        "windowed recurrences between) against 50 digits. Largest "
        f"relative difference of the two forms {worst:.2e}; of the tails {worst_tail:.2e}.",
    )


# ---------------------------------------------------------------------------
# sharp.truncation
# ---------------------------------------------------------------------------


@claim(
    "sharp.truncation",
    "docs/sharper_bounds.md, Computation: truncation (derived here)",
    "sum_{S<s<=n} P(Bin(s, mu) >= m_{k,s}) <= exp(-(S+1) kappa)/(1 - exp(-kappa)), "
    "kappa = kl(x_{S+1}, mu), x_s the (nondecreasing) real boundary, when x_{S+1} > mu",
    premises=("x_{S+1} > mu",),
    method=SAMPLING,
    requires=_REQ,
)
def _truncation(ctx):
    from cascading_bandits.bounds.sharp import admission_thresholds, chernoff_tail_bound

    tr = SlackTracker()
    tried = 0
    while tr.n < max(4, ctx.examples // 2) and tried < 40 * max(4, ctx.examples):
        tried += 1
        policy = _POLICIES[tried % 2]
        param = float(ctx.rng.choice(_PARAMS[policy]))
        v = float(ctx.rng.uniform(0.05, 1.0))
        mu = float(v * ctx.rng.uniform(0.0, 0.9))
        n = int(np.exp(ctx.rng.uniform(math.log(10), math.log(2e4))))
        S = int(ctx.rng.integers(1, n))
        bound = chernoff_tail_bound(v, mu, S, n, policy, param)
        if not math.isfinite(bound):
            continue  # x_{S+1} <= mu: no truncation allowed there
        s = np.arange(S + 1, n + 1)
        m = admission_thresholds(v, s, n, policy, param)
        rest = math.fsum(_binom_sf(m - 1, s, mu))
        tr.add((bound - rest * (1 + 1e-10)) / max(bound, 1e-300),
               {"v": v, "mu": mu, "S": S, "n": n, "policy": policy, "param": param,
                "bound": bound, "rest": rest})  # fmt: skip
    return tr.outcome(
        SAMPLING,
        "v in [0.05, 1], mu in [0, 0.9 v], n in [10, 2e4], S in [1, n), both policies",
        {"n": [10, 20000]},
        notes="relative slack (bound - rest)/bound; the rest summed with bounds.sharp's "
        "thresholds (at most the exact ones, so at least the exact rest) and SciPy's tails "
        f"inflated by 1e-10; {tried} draws, those with x_(S+1) <= mu skipped.",
    )


# ---------------------------------------------------------------------------
# sharp.reference
# ---------------------------------------------------------------------------


@claim(
    "sharp.reference",
    "docs/sharper_bounds.md, Computation (derived here)",
    "the fast evaluation of the bound >= its 50-digit evaluation by the definitions, and "
    "exceeds it by at most a relative 1e-9 (off threshold coincidences)",
    premises=(),
    method=SAMPLING,
    requires=_REQ,
)
def _reference(ctx):
    from cascading_bandits.bounds.sharp import binomial_bound_parts, binomial_bound_reference

    tr = SlackTracker()
    worst = 0.0
    for i in range(max(4, ctx.examples // 3)):
        w, K = draw_weights(ctx.rng, L_max=4)
        policy = _POLICIES[i % 2]
        param = float(ctx.rng.choice(_PARAMS[policy]))
        n = int(ctx.rng.integers(1, 13))
        ref = binomial_bound_reference((w, K), n, policy, param)
        fast = binomial_bound_parts((w, K), n, policy, param)
        r = float(ref["total"])
        rel = (fast["total"] - r) / r if r > 0 else fast["total"]
        worst = max(worst, rel)
        tr.add(rel, {"w": w, "K": K, "n": n, "policy": policy, "param": param,
                     "fast": fast["total"], "reference": r})  # fmt: skip
    return tr.outcome(
        SAMPLING,
        "random instances L <= 4 (uniform, grid with ties, 0 and 1), n in [1, 12], both policies",
        {"L": [2, 4], "n": [1, 12]},
        notes="slack (fast - reference)/reference; the reference is the direct double sum "
        "sum_s sum_j P(S_s = j) g_e(u_n(j/s, s)) and the term-by-term A-part at 50 digits. "
        f"Largest relative excess {worst:.2e} (the inflations are 1e-10; grid weights such "
        "as j/8 can meet a threshold exactly, where the index slack 1e-12 admits one more j).",
    )


# ---------------------------------------------------------------------------
# sharp.exact_small: enumeration of every observation sequence
# ---------------------------------------------------------------------------


def exact_expected_regret(w, K, n, policy, param):
    """``E[R(n)]`` of the policy as an exact Fraction, by enumerating all outcomes.

    The lists are chosen by the policy's float index (as in the engine); probabilities and
    rewards are exact rationals of the binary weights. The state is (successes, observations)
    per item; the initial ``w_0`` draws and, at each step, the position of the first click (or
    none) are enumerated with their probabilities. Ties in the index go to the lower item id,
    as in the engine.
    """
    from cascading_bandits.bounds.decomposition import conditional_regret, recommended_list

    L = len(w)
    wf = [Fraction(x) for x in w]
    total = Fraction(0)

    def step(t, S, N, prob):
        nonlocal total
        if t > n or prob == 0:
            return
        U = _index(policy, param, S, N, t)
        A = recommended_list(U, K)
        total += prob * conditional_regret(A, wf, K)
        miss = Fraction(1)
        for k in range(K + 1):  # first click at position k, or none (k = K)
            S2, N2 = list(S), list(N)
            if k < K:
                p = miss * wf[A[k]]
                for i in range(k + 1):
                    N2[A[i]] += 1
                S2[A[k]] += 1
                miss *= 1 - wf[A[k]]
            else:
                p = miss
                for i in range(K):
                    N2[A[i]] += 1
            step(t + 1, S2, N2, prob * p)

    for bits in range(2**L):
        S0 = [(bits >> e) & 1 for e in range(L)]
        p0 = Fraction(1)
        for e in range(L):
            p0 *= wf[e] if S0[e] else 1 - wf[e]
        step(1, S0, [1] * L, p0)
    return total


@claim(
    "sharp.exact_small",
    "docs/sharper_bounds.md, Result (derived here)",
    "R(n) <= the binomial-tail bound, with R(n) computed exactly by enumerating every "
    "observation sequence (tiny instances)",
    premises=(),
    method=EXACT,
    requires=_REQ,
)
def _exact_small(ctx):
    from cascading_bandits.bounds.sharp import binomial_bound

    tr = SlackTracker()
    for i in range(max(4, ctx.examples // 3)):
        L = int(ctx.rng.integers(2, 4))
        K = int(ctx.rng.integers(1, L))
        w = [float(x) for x in ctx.rng.choice([0.0, 0.125, 0.25, 0.5, 0.75, 0.9, 1.0,
                                                float(ctx.rng.uniform())], L)]  # fmt: skip
        policy = _POLICIES[i % 2]
        param = float(ctx.rng.choice(_PARAMS[policy]))
        n = int(ctx.rng.integers(1, 5 if K == 2 else 6))
        R = exact_expected_regret(w, K, n, policy, param)
        b = binomial_bound((w, K), n, policy, param)
        tr.add(float(Fraction(b) - R), {"w": w, "K": K, "n": n, "policy": policy,
               "param": param, "regret": float(R), "bound": b})  # fmt: skip
    return tr.outcome(
        EXACT,
        "L in {2, 3}, K < L, weights in {0, 1/8, 1/4, 1/2, 3/4, 0.9, 1, uniform}, n <= 5",
        {"L": [2, 3], "n": [1, 5]},
        notes="slack: bound - R(n), exact (Fractions); R(n) sums f(A*) - f(A_t) over all paths "
        "of w_0 draws and first-click positions, weighted by their probabilities; the lists "
        "are those of the policy's float index, ties to the lower id.",
    )
