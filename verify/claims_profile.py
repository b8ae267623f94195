"""Claims: every inequality of the chains of the proofs of Theorems 2 and 3, on simulated runs.

Each link of :mod:`bounds.profile`'s chains is a claim of its own, so that an error in a
single step of a proof is caught, not only an error in the final bound. The runs are
counted by :mod:`simulate.counters` on several instances, both orders of the list, and
the policies the step belongs to.

Kinds of check, per (instance, order, policy) cell of ``runs`` runs:

* ``expectation`` (``E[lhs] <= E[rhs]``): one-sided 99.9% Student-t limits on the mean of
  ``rhs - lhs`` over runs; ``fails`` if the upper limit is below 0 (the inequality is
  violated, 99.9%), ``holds`` if the lower limit is >= 0 in every cell, else ``undecided``;
* ``equality`` (``E[lhs] = E[rhs]``): two-sided 99.9% interval of the mean difference; fails if
  it excludes 0;
* ``pathwise`` (``lhs <= rhs`` in every run): fails on any run where it is false.

The slack reported is the smallest ``(rhs - lhs) / rhs`` of the means over the cells.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special

from cascading_bandits.verify.registry import claim, shared
from cascading_bandits.verify.verdict import FAILS, HOLDS, MONTE_CARLO, UNDECIDED, Outcome

CONFIDENCE = 0.999

#: (label, weights, K): B_LB with large and small K, and unequal gaps (pi_t and peeling matter)
PROFILE_INSTANCES = (
    ("B_LB(6, 2, 0.3, 0.15)", (0.3, 0.3, 0.15, 0.15, 0.15, 0.15), 2),
    ("B_LB(8, 4, 0.2, 0.1)", (0.2,) * 4 + (0.1,) * 4, 4),
    ("w = (.7,.6,.5,.2,.1,.1), K = 3", (0.7, 0.6, 0.5, 0.2, 0.1, 0.1), 3),
)
ORDERS = ("best-first", "worst-first")
_REQ = (
    "cascading_bandits.simulate.counters",
    "cascading_bandits.bounds.profile",
    "cascading_bandits.bounds.upper",
)


def _counted(ctx, policy, label, w, K, order):
    """The counted runs of one cell and Theorem 3's eps; shared by every ``profile.*`` claim
    of the run (:func:`verify.registry.shared`): they check different links of one chain on
    the same runs."""
    from cascading_bandits.bounds.profile import proof_thresholds
    from cascading_bandits.simulate.counters import run_counters
    from cascading_bandits.simulate.experiments import Cell

    horizon = int(1000 * ctx.budget)
    runs = int(80 * min(ctx.budget, 4))
    cell = Cell("verify", f"profile-{policy}", "cascade", w, K, policy, order, horizon, runs)
    tau, eps = proof_thresholds(w, K, policy, horizon)

    def count(ss):
        # check=False: only the indices the bad events need (tests/simulate/test_counters.py
        # shows the replayed indices are the policy's, step for step)
        return run_counters(cell, ss, tau, threads=1, check=False)

    key = ("profile", policy, tuple(float(x) for x in w), int(K), order, horizon, runs)
    return shared(ctx, key, count), eps


def _check(ctx, policies, link, kind):
    """Run ``link(pc, eps) -> (lhs, rhs)`` (arrays over runs or scalars) on every cell."""
    # the default budget skips the middle instance (the default test run stays short)
    insts = PROFILE_INSTANCES if ctx.budget >= 2 else PROFILE_INSTANCES[::2]
    cells = [(p, lab, w, K, o) for p in policies for (lab, w, K) in insts for o in ORDERS]
    status, worst, cex, details, runs = HOLDS, None, None, [], 0
    for pol, label, w, K, order in cells:
        pc, eps = _counted(ctx, pol, label, w, K, order)
        runs = pc.runs
        lhs, rhs = link(pc, eps)
        lhs = np.broadcast_to(np.asarray(lhs, float), (pc.runs,))
        rhs = np.broadcast_to(np.asarray(rhs, float), (pc.runs,))
        d = rhs - lhs
        mean = float(d.mean())
        se = float(d.std(ddof=1) / math.sqrt(d.size))
        where = {"instance": label, "order": order, "policy": pol, "horizon": pc.horizon}
        scale = abs(float(rhs.mean())) or 1.0
        slack = mean / scale
        if kind == "pathwise":
            bad = np.flatnonzero(d < 0)
            verdict = FAILS if bad.size else HOLDS
            slack = float(d.min()) / scale
            if bad.size:
                cex = {
                    **where,
                    "run": int(bad[0]),
                    "lhs": float(lhs[bad[0]]),
                    "rhs": float(rhs[bad[0]]),
                }
        elif kind == "equality":
            q = special.stdtrit(d.size - 1, 1 - (1 - CONFIDENCE) / 2)
            verdict = FAILS if abs(mean) > q * se else HOLDS
            slack = -abs(mean) / scale if verdict == FAILS else 0.0
            if verdict == FAILS:
                cex = {**where, "mean_difference": mean, "half_width": q * se}
        else:
            q = special.stdtrit(d.size - 1, CONFIDENCE)
            if mean + q * se < 0:
                verdict = FAILS
                cex = {**where, "mean_lhs": float(lhs.mean()), "mean_rhs": float(rhs.mean()),
                       "upper_limit_of_difference": mean + q * se}  # fmt: skip
            elif mean - q * se >= 0:
                verdict = HOLDS
            else:
                verdict = UNDECIDED
        if verdict == FAILS:
            status = FAILS
        elif verdict == UNDECIDED and status == HOLDS:
            status = UNDECIDED
        if worst is None or slack < worst[0]:
            worst = (slack, {**where, "mean_lhs": float(lhs.mean()), "mean_rhs": float(rhs.mean())})
        details.append(f"{label} {order} {pol}: {float(lhs.mean()):.4g} vs {float(rhs.mean()):.4g}")
    return Outcome(
        status=status,
        method=MONTE_CARLO,
        domain=f"{len(insts)} instances x {len(ORDERS)} orders x {len(policies)} "
        f"policies, {runs} runs each",
        domain_spec={
            "instances": [list(w) + [K] for _, w, K in insts],
            "orders": list(ORDERS),
            "policies": list(policies),
            "runs": runs,
            "confidence": CONFIDENCE,
            "kind": kind,
        },
        instances=len(cells) * runs,
        min_slack=float(worst[0]),
        argmin=worst[1],
        counterexample=cex,
        notes=f"{kind} check over runs (simulate.counters, module docstring); "
        + "; ".join(details),
    )


BOTH = ("cascade-ucb1", "cascade-klucb")


def _dsum(pc, a):
    return (np.asarray(a) * pc.gaps).sum(axis=(1, 2))


@claim(
    "profile.theorem1_upper",
    "Appendix A, eqs. (10)/(12) second term, by Theorem 1's upper bound",
    "E[sum_t 1{not E_t} R_t] <= E[sum_{e,e*} Delta_{e,e*} #{t: not E_t, G_{e,e*,t}}]",
    premises=("Assumption 1", "unique optimal set"),
    method=MONTE_CARLO,
    requires=_REQ,
)
def _thm1_upper(ctx):
    return _check(
        ctx, BOTH, lambda pc, e: (pc.regret - pc.regret_bad, _dsum(pc, pc.G_good)), "expectation"
    )


@claim(
    "profile.theorem1_lower",
    "Section 4.1, Theorem 1 (lower bound) on the good steps of simulated runs",
    "alpha E[sum_{t good} sum Delta E_t[1{G}]] <= E[sum_{t good} R_t], alpha = (1 - w(1))^(K-1)",
    premises=("Assumption 1", "unique optimal set"),
    method=MONTE_CARLO,
    requires=_REQ,
)
def _thm1_lower(ctx):
    from cascading_bandits.bounds.decomposition import theorem1_alpha

    def link(pc, e):
        a = float(theorem1_alpha(list(pc.weights), pc.K))
        return a * pc.thm1_upper_good, pc.regret - pc.regret_bad

    return _check(ctx, BOTH, link, "expectation")


@claim(
    "profile.theorem1_exact",
    "Section 4.1, proof of Theorem 1 (the equality before the bounds)",
    "E[R(n)] = E[sum_t sum_k Delta_{a_k,pi(k)} 1{G at k} prod_{j>k} (1 - w(pi_t(j)))]",
    premises=("Assumption 1",),
    method=MONTE_CARLO,
    requires=_REQ,
)
def _thm1_exact(ctx):
    return _check(ctx, BOTH, lambda pc, e: (pc.thm1_exact, pc.regret), "equality")


@claim(
    "profile.observation_identity",
    "Section 4.3, proof of Theorem 4: T_n(e) grows exactly on the events G_{e,e*,t}",
    "sum_{e*} #G_{e,e*} = T_n(e) - T_0(e) for every suboptimal e, in every run",
    premises=("Assumption 1",),
    method=MONTE_CARLO,
    requires=_REQ,
)
def _identity(ctx):
    def link(pc, e):
        order = np.lexsort((np.arange(len(pc.weights)), -np.array(pc.weights)))
        sub = order[pc.K :]
        d = np.abs(pc.G.sum(axis=2) - (pc.T[:, sub] - 1)).sum(axis=1)
        return d, 0.0  # pathwise: |difference| <= 0

    return _check(ctx, BOTH, link, "pathwise")


@claim(
    "profile.tau_ucb1",
    "Appendix A, eq. (11): on a good step G_{e,e*,t} implies T_{t-1}(e) <= tau_{e,e*}",
    "#{t : T_{t-1}(e) > 6 log n / Delta_{e,e*}^2, not E_t, G_{e,e*,t}} = 0 in every run "
    "(CascadeUCB1)",
    premises=("Assumption 1", "unique optimal set"),
    method=MONTE_CARLO,
    requires=_REQ,
)
def _tau_ucb1(ctx):
    return _check(
        ctx, ("cascade-ucb1",), lambda pc, e: (pc.Mbar_good.sum(axis=(1, 2)), 0.0), "pathwise"
    )


@claim(
    "profile.counting",
    "Appendix A, the counting step before the peeling LP (facts (i)-(iii))",
    "sum_{j<=k} M_{e,j} <= tau_{e,k} for every suboptimal e and k, in every run",
    premises=("Assumption 1", "unique optimal set"),
    method=MONTE_CARLO,
    requires=_REQ,
)
def _counting(ctx):
    return _check(
        ctx,
        BOTH,
        lambda pc, e: ((np.cumsum(pc.M, axis=2) - pc.tau).max(axis=(1, 2)), 0.0),
        "pathwise",
    )


@claim(
    "profile.bad_ucb1",
    "Appendix A, Hoeffding step: regret on the bad steps of CascadeUCB1",
    "E[sum_t 1{E_t} R_t] <= pi^2 L / 3",
    premises=("Assumption 1",),
    method=MONTE_CARLO,
    requires=_REQ,
)
def _bad_ucb1(ctx):
    return _check(
        ctx,
        ("cascade-ucb1",),
        lambda pc, e: (pc.regret_bad, math.pi**2 * len(pc.weights) / 3),
        "expectation",
    )


@claim(
    "profile.bad_klucb",
    "Appendix A, proof of Theorem 3: regret on the bad steps (Theorems 2, 10 of Garivier & Cappe)",
    "E[sum_t 1{E_t} R_t] <= 7 K log log n (n >= 48) for CascadeKL-UCB",
    premises=("Assumption 1", "n >= 48 (caveat gc-loglog-small-n)"),
    method=MONTE_CARLO,
    requires=_REQ,
)
def _bad_klucb(ctx):
    def link(pc, e):
        return pc.regret_bad, 7 * pc.K * math.log(math.log(pc.horizon))

    return _check(ctx, ("cascade-klucb",), link, "expectation")


@claim(
    "profile.mbar_klucb",
    "Appendix A, eq. (13) second term, by Lemma 8 of Garivier & Cappe (2011)",
    "E[sum_{e,e*} Delta #{t: T_{t-1}(e) > tau_{e,e*}, not E_t, G}] <= sum Delta C2/n^beta "
    "(tau with Theorem 3's eps)",
    premises=("Assumption 1", "unique optimal set"),
    method=MONTE_CARLO,
    requires=_REQ + ("cascading_bandits.bounds.garivier_cappe",),
)
def _mbar(ctx):
    from cascading_bandits.bounds.upper import theorem3_tail_constants

    def link(pc, eps):
        from cascading_bandits.bounds.instance import CascadeInstance

        inst = CascadeInstance(pc.weights, pc.K)
        C2, beta = theorem3_tail_constants(inst, eps)
        tail = float((pc.gaps * C2 * np.exp(-beta * math.log(pc.horizon))).sum())
        return _dsum(pc, pc.Mbar_good), tail

    return _check(ctx, ("cascade-klucb",), link, "expectation")


# --------------------------------------------------------------------------
# the chain of the binomial bounds (bounds.sharp, docs/sharper_bounds.md)
# --------------------------------------------------------------------------


def _drop(pc):
    """``w(e*) - w(L)`` per optimal item by rank (the A-part's charge)."""
    return np.asarray(pc.gaps)[-1, :]


def _sharp_param(pc):
    return 1.5 if pc.policy == "cascade-ucb1" else float(pc.c)


@claim(
    "profile.binomial_split",
    "docs/sharper_bounds.md, Steps 2-4 (the split at U_t(e*) < w(e*))",
    "sum_{e,e*} Delta #G_{e,e*} <= sum_{e*} (w(e*) - w(L)) #{t: U_t(e*) < w(e*)} "
    "+ sum_e sum_{G events of e} g_e(u_n(w_hat_s(e), s)), in every run",
    premises=("Assumption 1",),
    method=MONTE_CARLO,
    requires=_REQ,
)
def _binomial_split(ctx):
    def link(pc, e):
        lhs = _dsum(pc, pc.G)
        rhs = (np.asarray(pc.below) * _drop(pc)).sum(axis=1) + np.asarray(pc.bpath).sum(axis=1)
        return lhs, rhs * (1 + 1e-12) + 1e-12  # float sums of the same gaps

    return _check(ctx, BOTH, link, "pathwise")


@claim(
    "profile.binomial_a",
    "docs/sharper_bounds.md, Step 3 (Hoeffding / Garivier & Cappe Theorem 10)",
    "E[sum_{e*} (w(e*) - w(L)) #{t: U_t(e*) < w(e*)}] <= sum_{e*} (w(e*) - w(L)) B_A(n)",
    premises=("Assumption 1",),
    method=MONTE_CARLO,
    requires=_REQ + ("cascading_bandits.bounds.sharp",),
)
def _binomial_a(ctx):
    from cascading_bandits.bounds.instance import CascadeInstance
    from cascading_bandits.bounds.sharp import a_part

    def link(pc, e):
        lhs = (np.asarray(pc.below) * _drop(pc)).sum(axis=1)
        inst = CascadeInstance(pc.weights, pc.K)
        return lhs, a_part(inst, pc.horizon, pc.policy, _sharp_param(pc))

    return _check(ctx, BOTH, link, "expectation")


@claim(
    "profile.binomial_b",
    "docs/sharper_bounds.md, Steps 4-5 (distinct counts s, Bin(s, w(e)) tails)",
    "E[sum_e sum_{G events of e} g_e(u_n(w_hat_s(e), s))] <= sum_e sum_{s<=n} "
    "E g_e(u_n(w_hat_s(e), s))",
    premises=("Assumption 1",),
    method=MONTE_CARLO,
    requires=_REQ + ("cascading_bandits.bounds.sharp",),
)
def _binomial_b(ctx):
    from cascading_bandits.bounds.instance import CascadeInstance
    from cascading_bandits.bounds.sharp import b_part_per_item

    def link(pc, e):
        inst = CascadeInstance(pc.weights, pc.K)
        b = float(np.sum(b_part_per_item(inst, pc.horizon, pc.policy, _sharp_param(pc))))
        return np.asarray(pc.bpath).sum(axis=1), b

    return _check(ctx, BOTH, link, "expectation")
