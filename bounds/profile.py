"""The chain of inequalities of the proofs of Theorems 2 and 3, link by link (Appendix A).

Each proof bounds the expected regret through a chain ``R(n) = V_0 <= V_1 <= ... <= V_m``,
the last value being the theorem's bound. :func:`proof_chain` evaluates every ``V_i`` on
counted runs (:mod:`simulate.counters`; any object with its attributes) and the ratio
``V_i / V_{i-1}`` of the means over runs with a bootstrap confidence interval, so that one
sees which step of the proof loses how much. Every ``V_i`` is a total bound on ``R(n)``:
the bad-step part and the good-step part are carried along together.

Theorem 2 (CascadeUCB1), ``tau_{e,e*} = 6 log n / Delta_{e,e*}^2``:

0. ``R(n)``: the regret (sum of ``E_t[R_t]``);
1. ``R_bad + sum Delta_{e,e*} #G^good_{e,e*}``: eq. (10) and Theorem 1's upper bound on the good
   steps (``#G^good``: events ``G_{e,e*,t}`` on steps without the bad event ``E_t``);
2. ``R_bad + sum Delta_{e,e*} M_{e,e*}``: eq. (11) (on a good step ``G_{e,e*,t}`` forces
   ``T_{t-1}(e) <= tau_{e,e*}``; ``M`` counts such events on every step);
3. ``R_bad + sum_e max{sum_{e*} Delta m : m >= 0, sum_{j<=k} m_j <= tau_{e,k} for all k}``: the
   counting bound on ``M`` (the LP of Appendix A with the nested constraints that facts
   (i)-(iii) of the proof give; its printed constraints alone allow more, caveat
   peeling-lp-constraints), whose value is the pre-peeling bound;
4. ``pi^2 L / 3 +`` the same: the bad steps by Hoeffding's inequality;
5. ``pi^2 L / 3 + sum_e 12 / Delta_{e,K} log n``: Lemma 3 of Kveton et al. (2014) = Theorem 2.

Theorem 3 (CascadeKL-UCB), ``tau_{e,e*} = (1 + eps)(log n + 3 log log n) / kl(w(e), w(e*))``:

0. ``R(n)``; 1. as above;
2. ``R_bad + sum Delta M + sum Delta Mbar^good``: eq. (13) (``Mbar^good``: events with
   ``T_{t-1}(e) > tau`` on good steps);
3. ``R_bad + LP(tau) + sum Delta Mbar^good``: the counting bound on ``M``;
4. ``R_bad + LP(tau) + tail``: Lemma 8 of Garivier and Cappe (2011) on ``Mbar``
   (``tail = K L max C_2 / n^beta`` in the paper's form, ``sum Delta C_2 / n^beta`` in the
   proof's form; :mod:`bounds.upper`);
5. ``loglog + LP(tau) + tail``: Theorems 2 and 10 of Garivier and Cappe on the bad steps
   (``7 K log log n``, or ``K F(n)`` in the proof's form);
6. ``loglog + tail + (1 + eps) sum_e Delta_{e,K}(1 + log 1/Delta_{e,K}) / kl (log n + 3 log log
   n)``: Lemma 2 (peeling) = Theorem 3.

Links 1 -> 2 and 2 -> 3 (3 -> 4 for KL-UCB's ``Mbar``) hold run by run; the others in
expectation (Theorem 1 and the bad-step bounds). :func:`asymptotic_factors` splits the
factor between Theorem 3's (or 2's) ``log n`` coefficient and Theorem 4's in the same way.

Means 0 and 1 (edge rules). Attraction probabilities 0 and 1 are allowed. With ``w(e*) = 1``
(``--p 1``, or weights ``1,1,0,0``) ``kl(w(e), w(e*)) = inf``, so KL-UCB's ``tau_{e,e*}`` is 0,
Theorem 4's and Theorem 3's KL-based constants are 0, and a policy may have regret 0 on
every run. Every ratio of two nonnegative quantities here (a link to the previous one, the
total factor, a count to its ``tau``, the bootstrap resamples) follows one rule:
``a / b`` for ``b > 0``, ``+inf`` for ``a > 0 = b`` and ``1`` for ``a = b = 0`` (equal
quantities: the step loses nothing). :func:`asymptotic_factors` gives ``factor = None``
where the previous coefficient is 0 (its rows are coefficients, not bounds on one another).
"""

from __future__ import annotations

import functools
import math

import numpy as np

from cascading_bandits.bounds import _validate as V
from cascading_bandits.bounds.instance import as_instance

__all__ = [
    "proof_thresholds",
    "proof_chain",
    "binomial_chain",
    "asymptotic_factors",
    "ratio_interval",
    "CHAIN_POLICIES",
]

CHAIN_POLICIES = ("cascade-ucb1", "cascade-klucb")


def _inst(weights, K):
    if isinstance(weights, (str, bytes)) or V.ndim(weights) != 1:
        raise ValueError(f"weights must be a sequence of probabilities, got {V.show(weights)}")
    inst = as_instance(tuple(weights), K)
    inst.require_unique_optimum()
    return inst


def _ratio(a, b):
    """``a / b`` of nonnegative values by the module's rule (1 for 0/0, inf for a/0, a > 0)."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        out = np.where(b > 0, a / np.where(b > 0, b, 1.0), np.where(a > 0, np.inf, 1.0))
    return float(out) if out.ndim == 0 else out


#: attributes of simulate.counters.ProofCounters read here
_COUNTER_FIELDS = (
    "weights", "K", "policy", "order", "horizon", "tau", "G", "G_good", "M", "Mbar_good",
    "regret", "regret_bad", "bad_steps", "thm1_upper_good", "thm1_exact_good",
)  # fmt: skip


def _check_counters(pc, extra=()):
    """The counters' fields, their shapes ``(runs,)`` and ``(runs, L-K, K)``; a ValueError."""
    missing = [f for f in _COUNTER_FIELDS + tuple(extra) if not hasattr(pc, f)]
    if missing:
        raise ValueError(
            "counters must be a simulate.counters.ProofCounters (counted runs); "
            f"got {V.show(pc)} without {', '.join(missing)}"
        )
    V.choice("counters.policy", pc.policy, CHAIN_POLICIES)
    inst = _inst(pc.weights, pc.K)
    n = V.horizon("counters.horizon", pc.horizon)
    r = V.as_float_array("counters.regret", pc.regret, ndim=1)
    if r.size == 0:
        raise ValueError("counters must hold at least one run (counters.regret is empty)")
    shapes = {
        "regret_bad": (r.size,), "bad_steps": (r.size,), "thm1_upper_good": (r.size,),
        "thm1_exact_good": (r.size,), "G": (r.size, inst.L - inst.K, inst.K),
        "G_good": (r.size, inst.L - inst.K, inst.K), "M": (r.size, inst.L - inst.K, inst.K),
        "Mbar_good": (r.size, inst.L - inst.K, inst.K), "below": (r.size, inst.K),
        "bpath": (r.size, inst.L - inst.K),
    }  # fmt: skip
    for f, shape in shapes.items():
        if f in _COUNTER_FIELDS or f in extra:
            a = V.as_float_array(f"counters.{f}", getattr(pc, f))
            if a.shape != shape:
                raise ValueError(f"counters.{f} must have shape {shape}, got {a.shape}")
            if not np.isfinite(a).all() or (a < 0).any():
                raise ValueError(f"counters.{f} must hold finite values >= 0")
    return inst, n


def _log(n):
    return math.log(n) if n > 1 else 0.0


def _loglog(n):
    return math.log(math.log(n)) if n > math.e else 0.0


@functools.lru_cache(maxsize=64)
def _optimal_eps(weights, K, n, form):
    """Theorem 3's minimising eps (seconds of mpmath roots: cached per instance and n)."""
    from cascading_bandits.bounds.upper import theorem3_optimal_eps

    return theorem3_optimal_eps(as_instance(weights, K), n, form=form)


def proof_thresholds(weights, K, policy, n, eps=None, form="paper"):
    """``tau_{e,e*}`` of the proof of Theorem 2 or 3, shape (L-K, K) by rank (as ``gaps``).

    Parameters
    ----------
    weights : sequence of probabilities (L,) with a unique optimal set
    K : int
    policy : {"cascade-ucb1", "cascade-klucb"}
    n : int >= 1
        Horizon (the proofs' ``n``).
    eps : float > 0, optional
        Theorem 3's eps; default the eps minimising the bound at n (:mod:`bounds.upper`).

    Returns
    -------
    (tau, eps) : ndarray (L-K, K) and the eps used (None for CascadeUCB1)
    """
    from cascading_bandits.bounds.kl import kl_mp

    inst = _inst(weights, K)
    V.choice("policy", policy, CHAIN_POLICIES)
    n = V.horizon("n", n)
    V.choice("form", form, ("paper", "proof"))
    gaps = inst.gaps()
    if policy == "cascade-ucb1":
        return 6.0 * _log(n) / gaps**2, None
    if eps is None:
        eps = _optimal_eps(tuple(float(x) for x in inst.weights), inst.K, n, form)
    else:
        eps = V.positive_real("eps", eps)
    sub, opt = inst.suboptimal_weights, inst.optimal_weights
    kl = np.array([[float(kl_mp(float(a), float(b))) for b in opt] for a in sub])
    return (1.0 + eps) * (_log(n) + 3.0 * _loglog(n)) / kl, float(eps)


def ratio_interval(num, den, confidence=0.95, resamples=2000, seed=0):
    """Ratio of means ``mean(num) / mean(den)`` over runs with a percentile bootstrap interval.

    ``num``, ``den``: finite values >= 0, a scalar or shape (runs,) (a scalar is broadcast).
    Returns (ratio, lo, hi); the interval is (nan, nan) with fewer than 2 runs. The ratio of
    each mean follows the module's rule (``+inf`` for ``a > 0 = b``, 1 for ``0 / 0``).
    ``resamples`` is an integer in [1, 1e5]. Resampling uses its own seeded generator.
    """
    num = _values("num", num)
    den = _values("den", den)
    if num.size > 1 and den.size > 1 and num.size != den.size:
        raise ValueError(f"num and den must have one value per run; got {num.size} and {den.size}")
    runs = max(num.size, den.size)
    num = np.broadcast_to(num, (runs,))
    den = np.broadcast_to(den, (runs,))
    conf = V.probability("confidence", confidence, open_low=True, open_high=True)
    seed = V.positive_int("seed", seed, minimum=0)
    resamples = V.bounded_int("resamples", resamples, 10**5, "the bootstrap's size limit")
    r = _ratio(num.mean(), den.mean())
    if runs < 2:
        return r, math.nan, math.nan
    rng = np.random.default_rng(np.random.SeedSequence(seed))
    idx = rng.integers(0, runs, size=(resamples, runs))
    b = _ratio(num[idx].mean(axis=1), den[idx].mean(axis=1))
    qs = [(1 - conf) / 2, (1 + conf) / 2]
    with np.errstate(invalid="ignore"):
        lo, hi = np.quantile(b, qs)
    if math.isnan(lo) or math.isnan(hi):  # inf - inf between two infinite resamples (a / 0)
        alt = np.quantile(b, qs, method="higher")
        lo, hi = (alt[0] if math.isnan(lo) else lo), (alt[1] if math.isnan(hi) else hi)
    return r, float(lo), float(hi)


def _values(name, x):
    a = V.as_float_array(name, x)
    if a.ndim > 1 or a.size == 0:
        raise ValueError(f"{name} must be a number or a 1-d array of runs, got shape {a.shape}")
    if not np.isfinite(a).all() or (a < 0).any():
        raise ValueError(f"{name} must hold finite values >= 0")
    return a.reshape(-1)


def _links(vals, confidence, seed) -> list:
    """Links of a chain from ``(name, step, values over runs)``: mean, standard error and the
    ratio to the previous link with its bootstrap interval (:func:`ratio_interval`)."""
    seed = V.positive_int("seed", seed, minimum=0)
    V.probability("confidence", confidence, open_low=True, open_high=True)
    links, prev = [], None
    for i, (name, step, v) in enumerate(vals):
        v = np.asarray(v, float)
        se = float(v.std(ddof=1) / math.sqrt(v.size)) if v.size > 1 else math.nan
        d = {"name": name, "step": step, "mean": float(v.mean()), "stderr": se}
        if prev is not None:
            d["ratio"], d["ratio_lo"], d["ratio_hi"] = ratio_interval(
                v, prev, confidence, seed=seed + i
            )
        links.append(d)
        prev = v
    return links


def _lp_values(inst, policy, n, eps, form):
    """(pre-peeling LP total, peeled log term, bad-step bound, tail bound) at n."""
    from cascading_bandits.bounds import upper
    from cascading_bandits.bounds.garivier_cappe import GC_LOGLOG_CONSTANT, klucb_loglog_term

    if policy == "cascade-ucb1":
        pre = 6.0 * upper.theorem2_prepeeling_coefficient(inst) * _log(n)
        peeled = upper.theorem2_leading_coefficient(inst) * _log(n)
        return pre, peeled, math.pi**2 * inst.L / 3.0, 0.0
    scale = (1.0 + eps) * (_log(n) + 3.0 * _loglog(n))
    pre = upper.theorem3_prepeeling_coefficient(inst) * scale
    peeled = float(upper.theorem3_log_term(inst, n, eps))
    if form == "paper":
        loglog = float(GC_LOGLOG_CONSTANT) * inst.K * _loglog(n)
    else:
        loglog = inst.K * klucb_loglog_term(int(n))
    tail = float(upper.theorem3_constant(inst, n, eps, form=form)) - loglog
    return pre, peeled, loglog, tail


def proof_chain(counters, eps=None, form="paper", confidence=0.95, seed=0) -> dict:
    """The chain of the proof of Theorem 2 (CascadeUCB1) or 3 (CascadeKL-UCB) on counted runs.

    Parameters
    ----------
    counters : simulate.counters.ProofCounters
        Runs counted with ``tau = proof_thresholds(...)[0]`` for the same policy, horizon and
        eps (checked: ValueError otherwise).
    eps : float > 0, optional
        Theorem 3's eps (default: the minimiser at n, as :func:`proof_thresholds`).
    form : {"paper", "proof"}
        Theorem 3's constant C as printed or as the proof gives it (:mod:`bounds.upper`).
    confidence : float in (0, 1)
        Of the bootstrap intervals of the ratios.

    Returns
    -------
    dict (JSON-able): ``policy``, ``order``, ``runs``, ``horizon``, ``eps``, ``alpha``,
    ``links`` (list of dicts ``name``, ``step`` (the paper's equation or lemma), ``mean``,
    ``stderr``, ``ratio``, ``ratio_lo``, ``ratio_hi``; ratio = this / previous), ``parts``
    (the components: regret on bad steps and its bound, bad steps, Theorem 1's sums, counts
    against tau) and ``total_factor`` (last / first).
    """
    from cascading_bandits.bounds.decomposition import theorem1_alpha

    pc = counters
    inst, n = _check_counters(pc)
    V.choice("form", form, ("paper", "proof"))
    confidence = V.probability("confidence", confidence, open_low=True, open_high=True)
    seed = V.positive_int("seed", seed, minimum=0)
    tau, eps = proof_thresholds(pc.weights, pc.K, pc.policy, n, eps, form)
    ptau = V.as_float_array("counters.tau", pc.tau)
    if ptau.shape != tau.shape or not np.allclose(ptau, tau, rtol=1e-12, atol=0):
        raise ValueError(
            "counters were counted with other thresholds tau than this proof's at this horizon "
            "and eps; count with proof_thresholds(...)[0]"
        )
    gaps = inst.gaps()
    pre, peeled, bad_bound, tail = _lp_values(inst, pc.policy, n, eps, form)
    r = np.asarray(pc.regret, float)
    rb = np.asarray(pc.regret_bad, float)
    dg = (np.asarray(pc.G_good) * gaps).sum(axis=(1, 2))
    dm = (np.asarray(pc.M) * gaps).sum(axis=(1, 2))
    dmb = (np.asarray(pc.Mbar_good) * gaps).sum(axis=(1, 2))
    ones = np.ones_like(r)
    if pc.policy == "cascade-ucb1":
        vals = [
            ("R(n)", "regret (sum of E_t[R_t])", r),
            ("Thm 1 upper, good steps", "eq. (10) + Theorem 1", rb + dg),
            ("T_{t-1}(e) <= tau", "eq. (11)", rb + dm),
            ("counting M <= tau (LP)", "Appendix A, before Lemma 3", rb + pre),
            ("bad steps <= pi^2 L/3", "Hoeffding, Appendix A", bad_bound + pre * ones),
            ("peeling = Theorem 2", "Lemma 3 (Kveton et al. 2014)", (bad_bound + peeled) * ones),
        ]
    else:
        vals = [
            ("R(n)", "regret (sum of E_t[R_t])", r),
            ("Thm 1 upper, good steps", "eq. (12) + Theorem 1", rb + dg),
            ("split at tau", "eq. (13)", rb + dm + dmb),
            ("counting M <= tau (LP)", "Appendix A, as Theorem 2", rb + pre + dmb),
            ("Mbar <= C2/n^beta", "Lemma 8 (Garivier & Cappe 2011)", rb + pre + tail),
            (
                "bad steps <= loglog",
                "Thms 2, 10 (Garivier & Cappe)",
                (bad_bound + pre + tail) * ones,
            ),
            ("peeling = Theorem 3", "Lemma 2", (bad_bound + tail + peeled) * ones),
        ]
    links = _links(vals, confidence, seed)
    alpha = float(theorem1_alpha(inst))
    G = np.asarray(pc.G, float)
    M = np.asarray(pc.M, float)
    tK = tau[:, -1]
    parts = {
        "regret_bad": float(rb.mean()),
        "regret_bad_bound": float(bad_bound),
        "bad_steps": float(np.mean(pc.bad_steps)),
        "regret_good": float((r - rb).mean()),
        "thm1_upper_good_counts": float(dg.mean()),
        "thm1_upper_good_expect": float(np.mean(pc.thm1_upper_good)),
        "thm1_lower_good": alpha * float(np.mean(pc.thm1_upper_good)),
        "thm1_exact_good": float(np.mean(pc.thm1_exact_good)),
        "events_G": float(G.sum(axis=(1, 2)).mean()),
        "events_G_weighted": float((G * gaps).sum(axis=(1, 2)).mean()),
        "per_event_cost": float((r - rb).mean() / dg.mean()) if dg.mean() > 0 else math.nan,
        # counts over their tau by the module's ratio rule (tau = 0 where w(e*) = 1)
        "M_over_tau_max": float(_ratio(M.mean(axis=0), tau).max()),
        "sumM_over_tauK_max": float(_ratio(M.sum(axis=2).mean(axis=0), tK).max()),
        # the nested counting constraints sum_{j<=k} M_{e,j} <= tau_{e,k}, worst (e, k), max run
        "nested_M_over_tau_max": float(_ratio(np.cumsum(M, axis=2), tau).max()),
        "sumG_over_tauK_mean": float(_ratio(G.sum(axis=2).mean(axis=0), tK).mean()),
        "tau_K": tK.tolist(),
        "mean_G_by_item": G.sum(axis=2).mean(axis=0).tolist(),
        "mean_M_by_item": M.sum(axis=2).mean(axis=0).tolist(),
        "Mbar_good_weighted": float(dmb.mean()),
        "tail_bound": float(tail),
        "prepeeling": float(pre),
        "peeled": float(peeled),
    }
    return {
        "policy": pc.policy,
        "order": pc.order,
        "weights": list(pc.weights),
        "K": int(pc.K),
        "runs": int(r.size),
        "horizon": n,
        "eps": eps,
        "form": form,
        "alpha": alpha,
        "confidence": confidence,
        "links": links,
        "parts": parts,
        "total_factor": _ratio(links[-1]["mean"], links[0]["mean"]),
    }


def binomial_chain(counters, confidence=0.95, seed=0) -> dict:
    """The chain of the binomial bounds (theorem2-binomial, theorem3-binomial), link by link.

    The bounds of :mod:`bounds.sharp` (derivation: docs/sharper_bounds.md) follow a shorter
    chain than the paper's, with no bad-step split and no threshold ``tau``:

    0. ``R(n)``;
    1. ``sum Delta_{e,e*} #G_{e,e*}``: Theorem 1's upper bound on every step (its mean equals
       the conditional sum ``sum Delta E_t[1{G}]``);
    2. ``sum_{e*} (w(e*) - w(L)) #{t: U_t(e*) < w(e*)} + sum_e sum_{G events of e}
       g_e(u_n(w_hat_s(e), s))``: the split at ``U_t(e*) < w(e*)`` (Steps 2-4), run by run;
    3. ``A-part + B-part``: their expectations bounded by Hoeffding or Garivier-Cappe's
       Theorem 10 (A) and by the binomial tails over every ``s <= n`` (B): the bound.

    Links 0 -> 1 and 2 -> 3 hold in expectation, 1 -> 2 in every run. ``counters`` as for
    :func:`proof_chain` (any ``tau``; CascadeUCB1 counted with ``alpha = 1.5``).

    Returns
    -------
    dict (JSON-able) as :func:`proof_chain`: ``policy``, ``order``, ``runs``, ``horizon``,
    ``links`` (``name``, ``step``, ``mean``, ``stderr``, ``ratio`` with its bootstrap
    interval), ``parts`` and ``total_factor``.
    """
    from cascading_bandits.bounds import sharp

    pc = counters
    if getattr(pc, "below", None) is None or getattr(pc, "bpath", None) is None:
        raise ValueError("counters lack the binomial chain's counts (below, bpath): re-count them")
    inst, n = _check_counters(pc, ("below", "bpath", "gaps"))
    confidence = V.probability("confidence", confidence, open_low=True, open_high=True)
    seed = V.positive_int("seed", seed, minimum=0)
    param = 1.5 if pc.policy == "cascade-ucb1" else float(pc.c)
    parts = sharp.binomial_bound_parts(inst, n, pc.policy, param)
    gaps = np.asarray(pc.gaps)
    drop = gaps[-1, :] if gaps.size else np.zeros(pc.K)  # w(e*) - w(L), by rank
    r = np.asarray(pc.regret, float)
    g = (np.asarray(pc.G) * gaps).sum(axis=(1, 2))
    a_path = (np.asarray(pc.below) * drop).sum(axis=1)
    b_path = np.asarray(pc.bpath, float).sum(axis=1)
    ones = np.ones_like(r)
    vals = [
        ("R(n)", "regret (sum of E_t[R_t])", r),
        ("Thm 1 upper, all steps", "Theorem 1", g),
        ("split at U_t(e*) < w(e*)", "docs/sharper_bounds.md, Steps 2-4", a_path + b_path),
        ("binomial tails = bound", "Steps 3, 5 (Hoeffding / GC Thm 10; Bin(s, w(e)))",
         parts["total"] * ones),
    ]  # fmt: skip
    links = _links(vals, confidence, seed)
    return {
        "policy": pc.policy,
        "order": pc.order,
        "weights": list(pc.weights),
        "K": int(pc.K),
        "runs": int(r.size),
        "horizon": n,
        "confidence": confidence,
        "links": links,
        "parts": {
            "a_path": float(a_path.mean()),
            "b_path": float(b_path.mean()),
            "a_part": float(parts["a_part"]),
            "b_part": float(parts["b_part"]),
            "a_count": float(parts["a_count"]),
            "below_mean": np.asarray(pc.below, float).mean(axis=0).tolist(),
            "b_path_by_item": np.asarray(pc.bpath, float).mean(axis=0).tolist(),
            "b_part_by_item": np.asarray(parts["b_per_item"], float).tolist(),
        },
        "total_factor": _ratio(links[-1]["mean"], links[0]["mean"]),
    }


def asymptotic_factors(weights, K, policy, n=None, eps=None) -> list[dict]:
    """The factor between Theorem 2's or 3's ``log n`` coefficient and Theorem 4's, split.

    From the lower constant upwards: Theorem 4's constant ``alpha sum_e Delta_{e,K} / kl(w(e),
    w(K))`` (:func:`bounds.lower.theorem4_general_coefficient`); dividing by ``alpha``
    (Theorem 1's lower vs upper bound); the per-pair thresholds ``tau_{e,e*}`` (the LP value
    of the counting step, pre-peeling; for UCB1 its tau uses ``6 / Delta^2`` instead of
    ``1 / kl``); peeling (Lemma 2 / Lemma 3 of Kveton et al.); and, if ``n`` is given, Theorem
    3's ``(1 + eps)(log n + 3 log log n) / log n`` at n. The sharp lower constant
    (``alpha_sharp = prod_{j<K}(1 - w(j))``) is listed too.

    ``n`` (an integer in [2, 1e300]; ``log n = 0`` at n = 1) and ``eps`` (> 0) are read for
    CascadeKL-UCB only.

    Returns a list of dicts ``name``, ``coefficient`` (of ``log n``), ``factor`` (this over
    the previous; None for the first row and where the previous coefficient is 0, e.g. every
    KL-based constant when ``w(K) = 1``).
    """
    from cascading_bandits.bounds import lower, upper
    from cascading_bandits.bounds.decomposition import theorem1_alpha
    from cascading_bandits.bounds.kl import kl_mp

    inst = _inst(weights, K)
    V.choice("policy", policy, CHAIN_POLICIES)
    if n is not None:
        n = V.horizon("n", n)
        if n < 2:
            raise ValueError("n must be an integer >= 2 (the last row divides by log n), got 1")
    if eps is not None:
        eps = V.positive_real("eps", eps)
    alpha = float(theorem1_alpha(inst))
    lo = float(lower.theorem4_general_coefficient(inst))
    sharp = float(lower.theorem4_sharp_coefficient(inst))
    wK = float(inst.optimal_weights[-1])
    lr = sum((wK - float(a)) / float(kl_mp(float(a), wK)) for a in inst.suboptimal_weights)
    rows = [
        ("Theorem 4 (alpha)", lo),
        ("Theorem 4, sharp alpha", sharp),
        ("/ alpha: Theorem 1 upper", lr),
    ]
    if policy == "cascade-klucb":
        rows += [
            ("per-pair tau (pre-peeling)", upper.theorem3_prepeeling_coefficient(inst)),
            ("Lemma 2 peeling", upper.theorem3_leading_coefficient(inst)),
        ]
        if n is not None:
            e = upper.theorem3_optimal_eps(inst, n) if eps is None else eps
            f = (1 + e) * (_log(n) + 3 * _loglog(n)) / _log(n)
            rows.append((f"(1+eps)(1+3 loglog n/log n), n={n:g}", rows[-1][1] * f))
    else:
        rows += [
            (
                "UCB1 tau = 6 log n/Delta^2 (pre-peeling)",
                6 * upper.theorem2_prepeeling_coefficient(inst),
            ),
            ("Lemma 3 peeling (Kveton 2014)", upper.theorem2_leading_coefficient(inst)),
        ]
    out = []
    for i, (name, v) in enumerate(rows):
        prev = rows[i - 1][1] if i > 0 else None
        # the sharp row is a side branch: the next factor is taken from the plain constant
        if i == 2:
            prev = rows[0][1]
        factor = None if prev is None or prev == 0 else float(v) / float(prev)
        out.append({"name": name, "coefficient": float(v), "factor": factor})
    out[0]["alpha"] = alpha
    return out
