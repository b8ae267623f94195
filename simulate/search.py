"""Falsification search over instances: where does a bound or a policy do worst?

A search maximises an objective over cascade instances (the weights, for a fixed K and
L) with a derivative-free global optimiser (``scipy.optimize.differential_evolution``),
then re-measures the best instance on fresh runs and reports a confidence interval.

Objectives (:data:`OBJECTIVES`)
    ``ratio``  mean regret of policy A over mean regret of policy B at the horizon
               (e.g. CascadeUCB1 over CascadeKL-UCB), with B's mean regret floored at
               ``min_regret`` during the search (default sqrt(n)): a ratio of two tiny
               regrets, on an instance with nothing to learn at this horizon, is noise.
    ``bound``  mean regret of policy A over one of its upper bounds at the horizon, the
               instance where that bound is tightest. Any registered upper bound with a
               constant (:mod:`bounds.registry`; :func:`search_bounds` lists those that cover
               A): for ``cascade-ucb1`` (alpha = 1.5) ``theorem2`` (the default),
               ``corollary2``, ``theorem2-lp``; for ``cascade-klucb`` (c = 3) ``theorem3`` (the
               default), ``corollary3``, ``theorem3-proof``, ``theorem3-lp``; and any bound a
               user's module registers.
    ``regret`` mean regret of policy A at the horizon: the worst instance found, an
               empirical lower estimate of A's minimax regret at n (to set against the
               gap-free rates sqrt(nL) and sqrt(nLK)).

Instance families (:data:`FAMILIES`), each a map from the unit cube to weights in
``[w_min, w_max]``:
    ``free``       one coordinate per item (dimension L), w = w_min + (w_max - w_min) x;
    ``two-level``  (a, b): K items of weight max(a, b) and L - K of weight min(a, b)
                   (dimension 2; the shape of the paper's B_LB instances, at any level).

Common random numbers: every candidate is simulated with the same users' and policy
keys (spawned once from the root seed), so the difference between two candidates is not
blurred by different user draws; both policies of a ratio face the same users too. The
confirmation runs use keys spawned from a different child of the root seed, so the
reported interval is not biased by the selection of the optimum on the search's noise.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from scipy import optimize, stats

from cascading_bandits.bounds import _validate as V
from cascading_bandits.bounds.instance import CascadeInstance
from cascading_bandits.bounds.registry import ANY_POLICY, all_bounds, bound_names, get_bound
from cascading_bandits.simulate.engine import simulate_runs
from cascading_bandits.simulate.models import make_model
from cascading_bandits.simulate.policies import PolicySpec, order_code, parse_policy
from cascading_bandits.simulate.rng import policy_keys
from cascading_bandits.simulate.runner import as_seed_sequence

__all__ = [
    "OBJECTIVES",
    "FAMILIES",
    "SearchResult",
    "PAPER_THEOREMS",
    "search_bounds",
    "bound_policy",
    "search",
    "family_weights",
    "factor_against_K",
    "worst_regret_curve",
    "estimate",
    "population_size",
    "check_size",
    "MAX_DIMENSION",
]

OBJECTIVES = ("ratio", "bound", "regret")
FAMILIES = ("free", "two-level")
#: the paper's upper bounds: the default of a ``bound`` search of a policy they cover (any
#: other policy's default is the first registered bound that covers it)
PAPER_THEOREMS = ("theorem2", "theorem3")
#: the largest search dimension: SciPy's Sobol sequence (the optimiser's initial population,
#: ``scipy.stats.qmc.Sobol.MAXDIM``) has direction numbers for this many dimensions only
MAX_DIMENSION = 21201


def _dimension(family: str, L: int) -> int:
    """The search space's dimension: one coordinate per item (free) or 2 (two-level)."""
    return int(L) if family == "free" else 2


def check_size(L, K, family="free") -> None:
    """ValueError unless a search of ``family`` on ``L`` items and lists of ``K`` can run:
    ``1 <= K < L`` (a search needs suboptimal items) and at most :data:`MAX_DIMENSION`
    dimensions."""
    V.choice("family", family, FAMILIES)
    K = V.positive_int("K", K)
    L = V.positive_int("L", L, minimum=2)
    if K >= L:
        raise ValueError(f"K must be < L (a search needs suboptimal items), got K={K}, L={L}")
    if _dimension(family, L) > MAX_DIMENSION:
        raise ValueError(
            f"family 'free' searches one weight per item, L = {L} dimensions; the optimiser's "
            f"Sobol initialisation has at most {MAX_DIMENSION} (use family 'two-level')"
        )


def population_size(dimension: int, popsize: int) -> int:
    """Candidates per generation of differential evolution with Sobol initialisation: the
    power of 2 from ``max(5, popsize * dimension)`` on (SciPy's rule)."""
    m = max(5, int(popsize) * int(dimension))
    return 1 << (m - 1).bit_length()


def estimate(
    objective,
    policies,
    *,
    L,
    K,
    family="free",
    horizon=10_000,
    runs=4,
    maxiter=20,
    popsize=8,
    confirm_runs=20,
    confirm_horizon=None,
    threads=None,
) -> dict:
    """Memory (bytes) and wall time (seconds) of :func:`search`, before any work.

    Same parameters as :func:`search` (numbers only; nothing is validated or built, so
    that an absurd size is estimated, not attempted). The optimiser simulates
    :func:`population_size` candidates in each of ``maxiter + 1`` generations (the initial
    population, then ``maxiter``), each ``runs`` runs of ``horizon`` steps of every policy
    (two for a ratio), then ``confirm_runs`` fresh runs of ``confirm_horizon`` steps at the
    optimum; the time per run-step is :func:`simulate.sweep.estimate`'s. Memory: the
    optimiser's population, its trial vectors and energies (three arrays of population x
    dimension doubles), plus one engine call's arrays (the confirmation's, the larger).

    Returns
    -------
    dict with ``bytes``, ``seconds``, ``evaluations`` (candidates simulated) and
    ``dimension``.
    """
    from cascading_bandits.simulate.sweep import estimate as cells_estimate

    pols = list(policies) if not isinstance(policies, str) else [policies]
    pols = pols[: 2 if objective == "ratio" else 1] or ["cascade-klucb"]
    dim = _dimension(family, L)
    npop = population_size(dim, popsize)
    evaluations = float(npop) * (float(maxiter) + 1.0)
    ch = horizon if confirm_horizon is None else confirm_horizon
    one = cells_estimate([(L, K, p, runs, horizon) for p in pols], threads=threads)
    conf = cells_estimate([(L, K, p, confirm_runs, ch) for p in pols], threads=threads)
    return {
        "bytes": 3 * 8.0 * npop * dim + max(one["bytes"], conf["bytes"]),
        "seconds": evaluations * one["seconds"] + conf["seconds"],
        "evaluations": evaluations,
        "dimension": dim,
    }


def _as_spec(policy) -> PolicySpec:
    return policy if isinstance(policy, PolicySpec) else parse_policy(policy)


def _constant_names() -> str:
    """The registered upper bounds with a constant, comma-separated (read at each call)."""
    return ", ".join(bound_names("upper", "constant"))


def search_bounds(policy) -> tuple:
    """Names of the registered upper bounds with a constant that cover ``policy``.

    Parameters
    ----------
    policy : str or PolicySpec
        A policy spec; a bound covers it when one of its :class:`bounds.registry.Covers`
        names the policy with the parameter values the spec has (e.g. ``cascade-ucb1``,
        whose default ``alpha = 1.5`` is Theorem 2's, but not ``cascade-ucb1(alpha=1)``).

    Returns
    -------
    tuple of str
        In registration order with the default first: the paper's theorem
        (:data:`PAPER_THEOREMS`) where one covers the policy, else the first registered.
        Empty when no registered bound with a constant covers the policy. Bounds declared
        about every policy (``covers=ANY_POLICY``) are not listed (they may still be named).
    """
    spec = _as_spec(policy)
    params = spec.params
    names = [
        b.name
        for b in all_bounds()
        if b.comparable and b.covers != ANY_POLICY and b.covers_policy(spec.name, params)
    ]
    first = next((t for t in PAPER_THEOREMS if t in names), names[0] if names else None)
    return () if first is None else (first, *[k for k in names if k != first])


def _covered_texts() -> list:
    """The policies (as Covers texts) some registered upper bound with a constant covers."""
    out = []
    for b in all_bounds():
        if b.comparable and b.covers != ANY_POLICY:
            out += [c.text for c in b.covers if c.text not in out]
    return out


def _comparable(bound, allowed: str, where: str):
    """The registered upper bound with a constant named ``bound`` (ValueError otherwise:
    unknown, order only, or a lower bound).

    ``allowed`` lists the names to offer and ``where`` says what they are allowed for.
    """
    if not isinstance(bound, str) or bound not in bound_names():
        more = f" (all bounds with a constant: {_constant_names()})"
        if where == "(bounds with a constant)":
            more = ""
        raise ValueError(
            f"unknown bound {V.show(bound)}; allowed {where}: {allowed or 'none'}{more}"
        )
    b = get_bound(bound)
    if b.form != "constant":
        raise ValueError(
            f"bound {bound!r} ({b.title}) is known only as an order: it has no constant, so "
            f"regret / bound is undefined; allowed {where}: {allowed or 'none'}"
        )
    if b.kind != "upper":
        raise ValueError(
            f"bound {bound!r} ({b.title}) is a lower bound: regret / bound compares a regret "
            f"with an upper bound; allowed {where}: {allowed or 'none'}"
        )
    return b


def bound_policy(bound) -> str:
    """The policy (canonical spec) a ``bound`` search of the upper bound ``bound`` runs.

    Parameters
    ----------
    bound : str
        A registered upper bound with a constant (``cascading bounds --list``); the policy
        is the first it covers (``Bound.policy_text``, e.g. ``cascade-klucb(c=3)``, which is
        ``cascade-klucb`` canonically).

    Raises
    ------
    ValueError
        For an unknown name, a lower or order-only bound (no constant to divide by), a bound
        about every policy (name the policy), or a covered policy the simulator cannot run.
    """
    b = _comparable(bound, _constant_names(), "(bounds with a constant)")
    if b.covers == ANY_POLICY:
        raise ValueError(
            f"bound {bound!r} is about any policy; name the policy to search (--policy)"
        )
    text = b.policy_text()
    try:
        return parse_policy(text).text
    except ValueError as e:
        raise ValueError(
            f"bound {bound!r} covers {text}, which the simulator cannot run: {e}"
        ) from None


def _no_bound_for(policy) -> ValueError:
    """The ValueError for a policy no registered upper bound with a constant covers."""
    return ValueError(
        f"objective 'bound' knows the bounds of {', '.join(_covered_texts()) or 'no policy'} "
        f"(the registered upper bounds with a constant: {_constant_names()}), got {policy!r}"
    )


def _check_bound(bound, policy) -> str:
    """The bound a ``bound`` search of ``policy`` uses (``bound`` None: the default)."""
    spec = _as_spec(policy)
    have = search_bounds(spec)
    if bound is None:
        if not have:
            raise _no_bound_for(policy)
        return have[0]
    b = _comparable(bound, ", ".join(have), f"for {policy}")
    if not b.covers_policy(spec.name, spec.params):
        if not have:
            raise _no_bound_for(policy)
        raise ValueError(
            f"bound {bound!r} covers {b.algorithm} ({', '.join(c.text for c in b.covers)}), "
            f"not {policy}; allowed for {policy}: {', '.join(have)}"
        )
    return bound


def _bound_at(bound, inst, n) -> float:
    """The registered bound ``bound`` at n; ``inf`` where one of its premises fails (a tie
    w(K) = w(K+1) for the gap-dependent theorems, nothing to learn, ...), so that such a
    candidate scores regret / bound = 0: for Theorems 2 and 3 that is their limit as the gap
    closes (their 1/Delta terms grow without bound), and a bound that does not speak about
    an instance cannot be found loose there. ``inf`` too where the bound's value overflows a
    double (it then says nothing at n either)."""
    b = get_bound(bound)
    if b.failed_premise(inst, n) is not None:
        return math.inf
    vals = np.asarray(b.evaluate(inst, np.array([n], dtype=np.int64)), dtype=np.float64)
    if vals.shape not in ((1,), ()):
        raise ValueError(f"bound {bound!r}: evaluate returned shape {vals.shape} for 1 horizon")
    v = float(vals.reshape(-1)[0])
    if math.isnan(v):
        raise ValueError(f"bound {bound!r} is not a number at n = {n} on weights {inst.weights}")
    return v


def family_weights(family: str, x, L: int, K: int, w_min: float, w_max: float) -> np.ndarray:
    """Weights of the instance at point ``x`` of the unit cube, shape (L,), decreasing.

    Parameters
    ----------
    family : {"free", "two-level"}
    x : array_like, shape (L,) for "free", (2,) for "two-level"; entries in [0, 1]
    L, K : int
    w_min, w_max : float
        The weights' range, ``0 <= w_min < w_max <= 1``.
    """
    V.choice("family", family, FAMILIES)
    x = np.asarray(x, dtype=float)
    dim = L if family == "free" else 2
    if x.shape != (dim,):
        raise ValueError(f"x must have shape ({dim},) for family {family!r}, got {x.shape}")
    if not np.all((x >= 0) & (x <= 1)):
        raise ValueError("x must lie in the unit cube [0, 1]^d")
    v = w_min + (w_max - w_min) * x
    if family == "free":
        w = v
    else:
        w = np.concatenate([np.full(K, v.max()), np.full(L - K, v.min())])
    return np.sort(w)[::-1].copy()


@dataclass(frozen=True)
class SearchResult:
    """The best instance a search found and its re-measurement on fresh runs.

    Attributes
    ----------
    weights : tuple of float, shape (L,), decreasing
    K : int
    objective : str
        ``"ratio"`` or ``"bound"``.
    policies : tuple of str
        (A, B) for a ratio, (A,) for a bound.
    search_value : float
        The objective at the optimum during the search (selected on the search's noise,
        hence biased upwards).
    value, ci_low, ci_high : float
        The objective re-measured on ``confirm_runs`` fresh runs and its confidence
        interval (``confidence``; a paired BCa bootstrap for a ratio, a t interval
        otherwise, divided by the bound for a bound).
    mean_regret : dict
        Policy -> mean regret on the fresh runs at ``confirm_horizon``.
    bound : float or None
        The upper bound at ``confirm_horizon`` (``bound`` objective only; ``inf`` where one
        of its premises fails, null in :meth:`to_dict`).
    evaluations : int
        Candidates simulated by the optimiser.
    settings : dict
        Everything needed to reproduce the search (seed, horizons, runs, family, ranges).
    bound_name : str or None
        Which bound (its name in :mod:`bounds.registry`; ``bound`` objective only).
    regret_ci : dict
        Policy -> (low, high), the t interval (``confidence``) of its mean regret on the
        fresh runs.
    """

    weights: tuple
    K: int
    objective: str
    policies: tuple
    search_value: float
    value: float
    ci_low: float
    ci_high: float
    mean_regret: dict
    bound: float | None
    evaluations: int
    settings: dict = field(default_factory=dict)
    bound_name: str | None = None
    regret_ci: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        """JSON-able (finite floats only; an undefined number is None)."""

        def clean(v):
            if isinstance(v, float) and not math.isfinite(v):
                return None
            if isinstance(v, dict):
                return {k: clean(u) for k, u in v.items()}
            if isinstance(v, (list, tuple)):
                return [clean(u) for u in v]
            return v

        return clean(
            {
                "weights": [float(w) for w in self.weights],
                "L": len(self.weights),
                "K": self.K,
                "objective": self.objective,
                "policies": list(self.policies),
                "search_value": self.search_value,
                "value": self.value,
                "ci_low": self.ci_low,
                "ci_high": self.ci_high,
                "mean_regret": dict(self.mean_regret),
                "bound": self.bound,
                "bound_name": self.bound_name,
                "regret_ci": {k: [float(x) for x in v] for k, v in self.regret_ci.items()},
                "evaluations": self.evaluations,
                "settings": dict(self.settings),
            }
        )


def _regret_runs(weights, K, policy, order, horizon, ukeys, pkeys, threads):
    """Regret at the horizon of each run, shape (runs,), on the given keys (one engine call)."""
    model = make_model("cascade", tuple(weights), K)
    cp = np.array([horizon], dtype=np.int64)
    regret, _ = simulate_runs(
        model,
        policy,
        order,
        horizon,
        ukeys,
        pkeys,
        cp,
        threads=threads,  # lazy=True (the default): thousands of short runs repay its compile
    )
    return regret[:, -1]


def _t_interval(x, confidence):
    """Student-t interval of the mean of ``x`` (runs,), ``confidence`` two-sided."""
    se = x.std(ddof=1) / math.sqrt(x.size)
    q = stats.t.ppf(0.5 + confidence / 2, x.size - 1)
    return float(x.mean() - q * se), float(x.mean() + q * se)


def _keys(ss: np.random.SeedSequence, runs: int):
    """Users' and policy keys for ``runs`` runs from one child of the root seed."""
    users, pol = ss.spawn(2)
    return policy_keys(users, runs), policy_keys(pol, runs)


def search(
    objective: str,
    policies,
    *,
    L: int,
    K: int,
    family: str = "free",
    w_min: float = 0.0,
    w_max: float = 1.0,
    order: str = "best-first",
    horizon: int = 10_000,
    runs: int = 4,
    maxiter: int = 20,
    popsize: int = 8,
    seed=0,
    confirm_runs: int = 20,
    confirm_horizon: int | None = None,
    confidence: float = 0.95,
    min_regret: float | None = None,
    threads: int | None = None,
    bound: str | None = None,
) -> SearchResult:
    """Maximise ``objective`` over instances; re-measure the optimum on fresh runs.

    Parameters
    ----------
    objective : {"ratio", "bound", "regret"}
    policies : sequence of str
        (A, B) for ``ratio`` (A's regret over B's); (A,) for ``regret``; (A,) for
        ``bound``, A a policy that a registered upper bound with a constant covers.
    L, K : int
        Items and list length, ``1 <= K < L``.
    family : {"free", "two-level"}
        How a point of the unit cube maps to weights (:func:`family_weights`).
    w_min, w_max : float
        Range of every weight, ``0 <= w_min < w_max <= 1``.
    order : {"best-first", "worst-first"}
    horizon, runs : int
        Steps and runs per candidate during the search.
    maxiter, popsize : int
        Differential evolution's generations and population multiplier (the population
        is ``popsize * dimension``).
    seed : int or SeedSequence
        Root seed: child 0 drives the optimiser, child 1 the search's common random
        numbers, child 2 the confirmation runs.
    confirm_runs, confirm_horizon : int
        Fresh runs and their horizon for the reported value (horizon default: ``horizon``).
    confidence : float in (0, 1)
    min_regret : float >= 0, optional
        A ``ratio`` candidate scores A's mean regret over max(B's mean regret,
        min_regret): a ratio of two regrets that are both tiny (an instance with nothing
        to learn at this horizon) is noise, not an effect. Default ``sqrt(horizon)``, the
        order of the gap-free rate. The re-measured value is the plain ratio.
    threads : int, optional
        numba threads over runs (results do not depend on it).
    bound : str, optional
        ``bound`` objective only: the name of a registered upper bound with a constant that
        covers A (:meth:`bounds.registry.Bound.covers_policy` with A's parameter values);
        default the first of :func:`search_bounds` (A): ``theorem2`` for ``cascade-ucb1``,
        ``theorem3`` for ``cascade-klucb``. Lower bounds and order-only bounds (no constant)
        are refused. A candidate where one of the bound's premises fails scores 0 (the
        bound counts as infinite there, :func:`_bound_at`).

    Returns
    -------
    SearchResult
    """
    V.choice("objective", objective, OBJECTIVES)
    V.choice("family", family, FAMILIES)
    policies = tuple(policies)
    if objective == "ratio" and len(policies) != 2:
        raise ValueError(f"objective 'ratio' needs two policies (A, B), got {list(policies)}")
    if objective == "regret" and len(policies) != 1:
        raise ValueError(f"objective 'regret' needs one policy, got {list(policies)}")
    for p in policies:
        order_code(order, parse_policy(p))  # validates the spec and the order
    if objective == "bound":
        if len(policies) != 1:
            raise ValueError(f"objective 'bound' needs one policy, got {list(policies)}")
        bound = _check_bound(bound, policies[0])
    elif bound is not None:
        raise ValueError(f"bound is for objective 'bound' only, got objective {objective!r}")
    check_size(L, K, family)
    K, L = int(K), int(L)
    w_min = V.probability("w_min", w_min)
    w_max = V.probability("w_max", w_max)
    if not w_min < w_max:
        raise ValueError(f"w_min must be < w_max, got {w_min} and {w_max}")
    horizon = V.positive_int("horizon", horizon)
    runs = V.positive_int("runs", runs)
    maxiter = V.positive_int("maxiter", maxiter)
    popsize = V.positive_int("popsize", popsize)
    confirm_runs = V.positive_int("confirm_runs", confirm_runs, minimum=2)
    confirm_horizon = horizon if confirm_horizon is None else confirm_horizon
    confirm_horizon = V.positive_int("confirm_horizon", confirm_horizon)
    confidence = V.probability("confidence", confidence, open_low=True, open_high=True)
    if min_regret is None:
        min_regret = math.sqrt(horizon)
    min_regret = V.positive_real("min_regret", min_regret, allow_zero=True)
    ss = as_seed_sequence(seed)
    s_opt, s_crn, s_confirm = ss.spawn(3)
    uk, pk = _keys(s_crn, runs)
    dim = L if family == "free" else 2
    evaluations = 0

    def value(w, n, ukeys, pkeys):
        a = _regret_runs(w, K, policies[0], order, n, ukeys, pkeys, threads)
        if objective == "ratio":
            b = _regret_runs(w, K, policies[1], order, n, ukeys, pkeys, threads)
            return a, b
        return a, None

    def score(x):
        nonlocal evaluations
        evaluations += 1
        w = family_weights(family, x, L, K, w_min, w_max)
        a, b = value(w, horizon, uk, pk)
        if objective == "ratio":
            # B's regret floored at min_regret: continuous, and an instance where both
            # regrets are tiny scores A / min_regret (small) instead of a noisy ratio
            return -(a.mean() / max(b.mean(), min_regret, 1e-300))
        if objective == "regret":
            return -a.mean()
        bnd = _bound_at(bound, CascadeInstance(tuple(w), K), horizon)
        return -(a.mean() / bnd) if bnd > 0 else 0.0

    res = optimize.differential_evolution(
        score,
        [(0.0, 1.0)] * dim,
        maxiter=maxiter,
        popsize=popsize,
        seed=np.random.default_rng(s_opt),
        polish=False,
        init="sobol",
        updating="immediate",
        tol=0.0,
    )
    w_best = family_weights(family, np.clip(res.x, 0.0, 1.0), L, K, w_min, w_max)
    cu, cpk = _keys(s_confirm, confirm_runs)
    a, b = value(w_best, confirm_horizon, cu, cpk)
    means = {policies[0]: float(a.mean())}
    cis = {policies[0]: _t_interval(a, confidence)}
    bound_value = None
    if objective == "ratio":
        means[policies[1]] = float(b.mean())
        cis[policies[1]] = _t_interval(b, confidence)
        val = float(a.mean() / b.mean()) if b.mean() > 0 else math.inf
        if b.mean() > 0 and np.ptp(a / np.maximum(b, 1e-300)) > 0:
            ci = stats.bootstrap(
                (a, b),
                lambda x, y, axis=-1: x.mean(axis=axis) / y.mean(axis=axis),
                paired=True,
                vectorized=True,
                confidence_level=confidence,
                n_resamples=4999,
                method="BCa",
                rng=np.random.default_rng(s_confirm.spawn(1)[0]),
            ).confidence_interval
            lo, hi = float(ci.low), float(ci.high)
        else:
            lo = hi = val
    else:
        scale = 1.0
        if objective == "bound":
            inst = CascadeInstance(tuple(w_best), K)
            bound_value = float(_bound_at(bound, inst, confirm_horizon))
            scale = bound_value
        val = float(a.mean() / scale)
        lo, hi = (x / scale for x in cis[policies[0]])
    return SearchResult(
        weights=tuple(float(w) for w in w_best),
        K=K,
        objective=objective,
        policies=policies,
        search_value=float(-res.fun),
        value=val,
        ci_low=float(lo),
        ci_high=float(hi),
        mean_regret=means,
        bound=bound_value,
        evaluations=evaluations,
        settings={
            "family": family,
            "L": L,
            "w_min": w_min,
            "w_max": w_max,
            "order": order,
            "horizon": horizon,
            "runs": runs,
            "maxiter": maxiter,
            "popsize": popsize,
            "confirm_runs": confirm_runs,
            "confirm_horizon": confirm_horizon,
            "confidence": confidence,
            "min_regret": min_regret,
            "seed_entropy": str(ss.entropy),
            "seed_spawn_key": [int(k) for k in ss.spawn_key],
            "optimiser": "scipy.optimize.differential_evolution (sobol init, no polish)",
        },
        bound_name=bound,
        regret_ci=cis,
    )


def factor_against_K(Ks, policies=("cascade-ucb1", "cascade-klucb"), *, L=None, L_per_K=4, **kw):
    """Run a ``ratio`` search for each K and fit the growth of the factor with K.

    Parameters
    ----------
    Ks : sequence of int
        List lengths, e.g. (2, 4, 8, 16).
    policies : (A, B)
    L : int, optional
        The same number of items for every K (isolates the effect of K); must exceed max K.
    L_per_K : int >= 2
        Otherwise, items per list slot: each search uses ``L = L_per_K * K``.
    **kw
        Passed to :func:`search` (family, horizon, runs, seed, ...). Every K uses the same
        root seed.

    Returns
    -------
    results : list of SearchResult, one per K
    slope : float or None
        Least-squares slope of log(factor) against log(K) over the re-measured factors
        (0.5 is sqrt(K) growth); None if a factor is not a positive finite number.
    """
    Ks = [V.positive_int("K", k) for k in Ks]
    if len(set(Ks)) < 2 or len(set(Ks)) != len(Ks):
        raise ValueError(
            f"Ks needs at least two different list lengths, each once (a slope needs two "
            f"points), got {Ks}"
        )
    if L is None:
        L_per_K = V.positive_int("L_per_K", L_per_K, minimum=2)
        sizes = [L_per_K * k for k in Ks]
    else:
        sizes = [V.positive_int("L", L)] * len(Ks)
    results = [search("ratio", policies, L=n, K=k, **kw) for n, k in zip(sizes, Ks, strict=True)]
    vals = np.array([r.value for r in results])
    if not np.all(np.isfinite(vals) & (vals > 0)):
        return results, None
    return results, float(np.polyfit(np.log(Ks), np.log(vals), 1)[0])


def worst_regret_curve(policies, horizons, *, L: int, K: int, **kw):
    """The worst regret found over instances at each horizon, per policy.

    Parameters
    ----------
    policies : sequence of str
    horizons : sequence of int
        Each horizon gets its own ``regret`` search (searched and re-measured at that n).
    L, K : int
    **kw
        Passed to :func:`search` (family, runs, maxiter, seed, ...); ``horizon`` and
        ``confirm_horizon`` are set per point.

    Returns
    -------
    dict
        policy -> list of SearchResult, one per horizon (same order as ``horizons``).
    """
    hs = [V.positive_int("horizons", h) for h in horizons]
    if not hs:
        raise ValueError("horizons must hold at least one horizon")
    for k in ("horizon", "confirm_horizon"):
        if k in kw:
            raise ValueError(f"{k} is set per point by worst_regret_curve; pass horizons")
    return {
        p: [search("regret", [p], L=L, K=K, horizon=h, confirm_horizon=h, **kw) for h in hs]
        for p in policies
    }
