"""Pure tables: the paper's numbers against ours, and the bounds against the evidence.

No I/O and no plotting. Inputs are stored simulation results (objects shaped like
:class:`simulate.results.CellResult`: ``params`` dict, ``checkpoints`` (m,), ``regret``
(runs, m)) and the published cells of :mod:`reports.paper`; outputs are lists of
small frozen dataclasses, and :func:`markdown_table` renders any of them.

Statistics used throughout
--------------------------
* mean and standard error over runs of the regret at the horizon, ``se = std(ddof=1) / sqrt(runs)``;
* ``z = (ours - paper) / sqrt(se_ours^2 + se_paper^2)`` (both means treated as independent,
  approximately normal; the paper's +- is read as a standard error);
* agreement marks: ``|z| < 2`` ok, ``2 <= |z| < 3`` borderline, ``|z| >= 3`` disagree;
* ratios of means with delta-method standard errors (paired when the two policies
  faced the same users, i.e. common random numbers within an experiment).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from functools import cache
from itertools import combinations

import numpy as np

from cascading_bandits.bounds.instance import b_lb
from cascading_bandits.reports.paper import TABLE_POLICIES, figure1_meta, paper_table, table_meta

#: |z| below the first threshold is "ok", below the second "borderline", else "disagree"
Z_OK, Z_BORDERLINE = 2.0, 3.0


# ---------------------------------------------------------------------------
# statistics
# ---------------------------------------------------------------------------
def mean_se(x) -> tuple[float, float]:
    """Mean and standard error of the mean (``ddof=1``) of a 1-d sample, shape (runs,).

    A single run has an undefined standard error, returned as NaN.
    """
    x = np.asarray(x, dtype=np.float64)
    if x.ndim != 1 or x.size == 0:
        raise ValueError(f"expected a non-empty 1-d sample, got shape {x.shape}")
    if np.isnan(x).any():
        raise ValueError("the sample contains NaN")
    if x.size == 1:
        return float(x[0]), math.nan
    return float(x.mean()), float(x.std(ddof=1) / math.sqrt(x.size))


def z_score(ours: float, se_ours: float, paper: float, se_paper: float) -> float:
    """``(ours - paper) / sqrt(se_ours^2 + se_paper^2)``; NaN if both errors are zero."""
    for name, v in (("ours", ours), ("paper", paper)):
        if not math.isfinite(v):
            raise ValueError(f"{name} must be finite, got {v!r}")
    for name, v in (("se_ours", se_ours), ("se_paper", se_paper)):
        if v < 0:
            raise ValueError(f"{name} must be >= 0, got {v!r}")
    den = math.hypot(se_ours, se_paper)
    if den == 0 or math.isnan(den):
        return math.nan
    return (ours - paper) / den


def agreement(z: float) -> str:
    """``"ok"`` if ``|z| < 2``, ``"borderline"`` if ``|z| < 3``, ``"disagree"`` otherwise
    (``"n/a"`` for NaN)."""
    if z is None or math.isnan(z):
        return "n/a"
    a = abs(z)
    return "ok" if a < Z_OK else "borderline" if a < Z_BORDERLINE else "disagree"


def ratio_of_means(a, b, *, paired: bool = False) -> tuple[float, float]:
    """``mean(a) / mean(b)`` and its delta-method standard error.

    Parameters
    ----------
    a, b : array_like, shape (runs_a,), (runs_b,)
        Per-run values (e.g. final regrets).
    paired : bool
        If true, ``a[i]`` and ``b[i]`` come from the same run (common random
        numbers), ``runs_a == runs_b``, and their covariance enters the error:
        ``var(r) ~ (var_a - 2 r cov_ab + r^2 var_b) / (n mean_b^2)``.
    """
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    ma, sa = mean_se(a)
    mb, sb = mean_se(b)
    if mb == 0:
        raise ValueError("the denominator's mean is zero; the ratio is undefined")
    r = ma / mb
    if paired:
        if a.shape != b.shape:
            raise ValueError(f"paired samples need equal shapes, got {a.shape} and {b.shape}")
        if a.size < 2:
            return r, math.nan
        cov = np.cov(a, b, ddof=1)
        var = (cov[0, 0] - 2 * r * cov[0, 1] + r * r * cov[1, 1]) / (a.size * mb * mb)
        return r, float(math.sqrt(max(var, 0.0)))
    return r, ratio_se(ma, sa, mb, sb)


def ratio_se(mean_a: float, se_a: float, mean_b: float, se_b: float) -> float:
    """Delta-method standard error of ``mean_a / mean_b`` for independent means:
    ``sqrt(se_a^2 + r^2 se_b^2) / |mean_b|`` with ``r = mean_a / mean_b`` (NaN if an error is
    NaN)."""
    if mean_b == 0:
        raise ValueError("mean_b is zero; the ratio is undefined")
    if se_a < 0 or se_b < 0:
        raise ValueError(f"se_a and se_b must be >= 0, got {se_a!r}, {se_b!r}")
    if math.isnan(se_a) or math.isnan(se_b):
        return math.nan
    return float(math.hypot(se_a, mean_a / mean_b * se_b) / abs(mean_b))


# ---------------------------------------------------------------------------
# access to stored results
# ---------------------------------------------------------------------------
def _same(x, y) -> bool:
    if isinstance(x, float) or isinstance(y, float):
        try:
            return math.isclose(float(x), float(y), rel_tol=1e-9, abs_tol=1e-12)
        except (TypeError, ValueError):
            return False
    return x == y


def select(results, **params) -> list:
    """Results whose ``params`` match every given key (floats compared to 1e-9 relative)."""
    return [
        r
        for r in results
        if all(k in r.params and _same(r.params[k], v) for k, v in params.items())
    ]


def select_one(results, **params):
    """The unique result matching ``params``, or None if there is none.

    Raises ValueError if several results match (the selection is ambiguous).
    """
    hits = select(results, **params)
    if len(hits) > 1:
        raise ValueError(f"{len(hits)} stored results match {params}; expected at most one")
    return hits[0] if hits else None


def final_regret(result) -> np.ndarray:
    """Per-run cumulative regret at the horizon, shape (runs,)."""
    reg = np.asarray(result.regret, dtype=np.float64)
    if reg.ndim != 2 or reg.shape[1] == 0:
        raise ValueError(f"regret must have shape (runs, checkpoints), got {reg.shape}")
    return reg[:, -1]


def curve(result) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Regret curve of one cell: checkpoints (m,), mean (m,), standard error (m,) over runs."""
    t = np.asarray(result.checkpoints, dtype=np.int64)
    reg = np.asarray(result.regret, dtype=np.float64)
    if reg.ndim != 2 or reg.shape[1] != t.shape[0]:
        raise ValueError(f"regret shape {reg.shape} does not match {t.shape[0]} checkpoints")
    mean = reg.mean(axis=0)
    se = (
        reg.std(axis=0, ddof=1) / math.sqrt(reg.shape[0])
        if reg.shape[0] > 1
        else np.full_like(mean, np.nan)
    )
    return t, mean, se


# ---------------------------------------------------------------------------
# Tables 1 and 2: paper against ours
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class ComparisonRow:
    """One published cell next to ours. ``ours_*`` and ``z`` are None when the cell was not run."""

    table: str
    L: int
    K: int
    delta: float
    policy: str
    paper_mean: float
    paper_se: float
    ours_mean: float | None
    ours_se: float | None
    runs: int | None
    horizon: int | None
    z: float | None
    mark: str


def compare_table(name: str, results) -> list[ComparisonRow]:
    """Table 1 (``"table1"``) or Table 2 (``"table2"``) of the paper against stored results.

    A result matches a published cell when its params have ``model == "cascade"``, the
    table's ``order``, the same ``L``, ``K``, ``delta`` and ``policy``.
    """
    order = table_meta(name)["order"]
    rows = []
    for c in paper_table(name):
        r = select_one(
            results, model="cascade", order=order, L=c.L, K=c.K, delta=c.delta, policy=c.policy
        )
        if r is None:
            rows.append(
                ComparisonRow(
                    name,
                    c.L,
                    c.K,
                    c.delta,
                    c.policy,
                    c.mean,
                    c.se,
                    None,
                    None,
                    None,
                    None,
                    None,
                    "not run",
                )
            )
            continue
        m, se = mean_se(final_regret(r))
        z = z_score(m, 0.0 if math.isnan(se) else se, c.mean, c.se)
        rows.append(
            ComparisonRow(
                name,
                c.L,
                c.K,
                c.delta,
                c.policy,
                c.mean,
                c.se,
                m,
                se,
                int(r.regret.shape[0]),
                int(r.checkpoints[-1]),
                z,
                agreement(z),
            )
        )
    return rows


@dataclass(frozen=True)
class SignSummary:
    """Direction of the differences ours - paper over the cells that were run.

    ``p_value`` is the two-sided exact binomial (sign) test of "ours is as often above as
    below the paper"; ``mean_z`` the average z-score (about 0 with spread 1/sqrt(cells)
    if both reproduce the same quantity without bias).
    """

    cells: int
    below: int
    above: int
    mean_z: float
    p_value: float


def sign_test(k: int, n: int) -> float:
    """Two-sided exact binomial test of k successes in n trials at probability 1/2.

    Binomial(n, 1/2) is symmetric, so the p-value (the probability of an outcome no more
    likely than k) is twice the smaller tail, capped at 1: ``scipy.special.bdtr`` gives it
    without importing ``scipy.stats`` (a second at start-up); equal to
    ``scipy.stats.binomtest(k, n, 0.5).pvalue`` (test suite). n = 0 gives 1.
    """
    from scipy.special import bdtr

    for name, v in (("k", k), ("n", n)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 0:
            raise ValueError(f"sign_test: {name} must be an integer >= 0, got {v!r}")
    if k > n:
        raise ValueError(f"sign_test: k must be <= n, got k = {k}, n = {n}")
    if n == 0:
        return 1.0
    return min(1.0, 2.0 * float(bdtr(min(k, n - k), n, 0.5)))


def sign_summary(rows) -> SignSummary:
    """Sign test and mean z over :class:`ComparisonRow` s that were run (z not None/NaN)."""
    zs = [r.z for r in rows if r.z is not None and not math.isnan(r.z)]
    if not zs:
        raise ValueError("no compared cells: nothing was run")
    below = sum(z < 0 for z in zs)
    above = sum(z > 0 for z in zs)
    p = sign_test(below, below + above)
    return SignSummary(len(zs), below, above, float(np.mean(zs)), float(p))


# ---------------------------------------------------------------------------
# bounds against the evidence (Theorems 2, 3, 4 on each Table 1 row)
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class BoundRow:
    """Theorems 2-4 at horizon ``n`` on B_LB(L, K, p, Delta) next to the empirical regret."""

    L: int
    K: int
    delta: float
    p: float
    n: int
    theorem4_coefficient: float
    theorem4: float
    theorem2: float
    theorem3: float
    theorem3_eps: float
    theorem3_C: float
    ucb1_mean: float | None
    ucb1_se: float | None
    klucb_mean: float | None
    klucb_se: float | None

    @property
    def ucb1_over_theorem2(self):
        return None if self.ucb1_mean is None else self.ucb1_mean / self.theorem2

    @property
    def klucb_over_theorem3(self):
        return None if self.klucb_mean is None else self.klucb_mean / self.theorem3

    @property
    def ucb1_over_theorem4(self):
        return None if self.ucb1_mean is None else self.ucb1_mean / self.theorem4

    @property
    def klucb_over_theorem4(self):
        return None if self.klucb_mean is None else self.klucb_mean / self.theorem4


def bounds_at(L: int, K: int, p: float, delta: float, n: int) -> dict:
    """Theorem 4 lower bound, Theorems 2 and 3 (optimised eps) at ``n`` on B_LB(L, K, p, Delta).

    Returns a dict with keys ``theorem4_coefficient``, ``theorem4``, ``theorem2``,
    ``theorem3``, ``theorem3_eps``, ``theorem3_C`` (all floats).
    """
    from cascading_bandits.bounds.lower import theorem4_bound, theorem4_coefficient
    from cascading_bandits.bounds.upper import (
        theorem2_bound,
        theorem3_bound,
        theorem3_constant,
        theorem3_optimal_eps,
    )

    inst = b_lb(L, K, p, delta)
    eps = float(theorem3_optimal_eps(inst, n))
    return {
        "theorem4_coefficient": float(theorem4_coefficient(inst)),
        "theorem4": float(theorem4_bound(inst, n)),
        "theorem2": float(theorem2_bound(inst, n)),
        "theorem3": float(theorem3_bound(inst, n, eps=eps)),
        "theorem3_eps": eps,
        "theorem3_C": float(theorem3_constant(inst, n, eps)),
    }


def bound_curves(L: int, K: int, p: float, delta: float, ns) -> dict:
    """Theorems 2, 3 (optimised eps at each n) and 4 as curves over horizons ``ns`` on B_LB.

    Parameters
    ----------
    ns : array_like of int, shape (k,)
        Horizons, each >= 1.

    Returns
    -------
    dict
        ``{"theorem2": (n, v), "theorem3": (n, v), "theorem4": (n, v)}``, arrays of shape (k,).
    """
    from cascading_bandits.bounds.lower import theorem4_bound
    from cascading_bandits.bounds.upper import theorem2_bound, theorem3_bound

    ns = np.asarray(ns, dtype=np.int64)
    if ns.ndim != 1 or ns.size == 0 or (ns < 1).any():
        raise ValueError(f"ns must be a non-empty 1-d array of horizons >= 1, got {ns!r}")
    inst = b_lb(L, K, p, delta)
    out = {}
    for key, fn in (
        ("theorem2", theorem2_bound),
        ("theorem3", theorem3_bound),
        ("theorem4", theorem4_bound),
    ):
        # all horizons in one call: Theorem 3 then optimises eps for every n together
        # (bounds.upper.theorem3_curve) instead of once per n; the same numbers bit for bit
        # (tests/reports/test_cold_bound_curves.py), a tenth of the CPU
        out[key] = (ns, np.array(fn(inst, ns), dtype=np.float64).reshape(ns.shape))
    return out


def bound_rows(results, *, order: str = "best-first", bounds=None) -> list[BoundRow]:
    """Bounds at the horizon for each Table 1 configuration with a stored cascade result.

    The horizon ``n`` and ``p`` are read from the stored results (every policy of a row must
    share them); rows are in the paper's order. ``bounds`` replaces :func:`bounds_at` (same
    signature and result; e.g. a cached version).
    """
    bounds = bounds_at if bounds is None else bounds
    p_default = table_meta("table1")["p"]
    out = []
    seen = []
    for c in paper_table("table1"):
        key = (c.L, c.K, c.delta)
        if key in seen:
            continue
        seen.append(key)
        cells = {
            pol: select_one(
                results, model="cascade", order=order, L=c.L, K=c.K, delta=c.delta, policy=pol
            )
            for pol in TABLE_POLICIES
        }
        present = [r for r in cells.values() if r is not None]
        if not present:
            continue
        ns = {int(r.checkpoints[-1]) for r in present}
        ps = {float(r.params.get("p", p_default)) for r in present}
        if len(ns) != 1 or len(ps) != 1:
            raise ValueError(
                f"row L={c.L}, K={c.K}, delta={c.delta}: policies differ in horizon "
                f"{sorted(ns)} or p {sorted(ps)}"
            )
        n, p = ns.pop(), ps.pop()
        stats = {
            pol: (mean_se(final_regret(r)) if r is not None else (None, None))
            for pol, r in cells.items()
        }
        out.append(
            BoundRow(
                c.L,
                c.K,
                c.delta,
                p,
                n,
                **bounds(c.L, c.K, p, c.delta, n),
                ucb1_mean=stats["cascade-ucb1"][0],
                ucb1_se=stats["cascade-ucb1"][1],
                klucb_mean=stats["cascade-klucb"][0],
                klucb_se=stats["cascade-klucb"][1],
            )
        )
    return out


# ---------------------------------------------------------------------------
# every registered bound with a constant on the paper's policies (bounds.registry)
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class RegistryBoundRow:
    """One registered bound with a constant at horizon ``n`` on one Table 1 configuration,
    next to the mean regret of one policy it covers at the paper's parameters.

    ``value`` is None where a premise of the bound fails (``premise`` names it); ``ratio`` is
    ``mean / value`` (None without a measured mean or a positive value).
    """

    L: int
    K: int
    delta: float
    p: float
    n: int
    bound: str
    title: str
    kind: str
    gap: str
    policy: str
    value: float | None
    premise: str | None
    mean: float | None
    se: float | None
    ratio: float | None


def paper_policy(policy: str) -> tuple[str, dict]:
    """A Table 1 policy as the registry's bounds see it: its name and parameter values, the
    defaults filled in (``cascade-ucb1``: alpha = 1.5; ``cascade-klucb``: c = 3)."""
    from cascading_bandits.simulate.policies import parse_policy

    spec = parse_policy(policy)
    return spec.name, spec.params


def registry_bounds_at(L: int, K: int, p: float, delta: float, n: int) -> dict:
    """Every registered bound with a constant that covers a Table 1 policy at the paper's
    parameters (:data:`reports.paper.TABLE_POLICIES`), at ``n`` on B_LB(L, K, p, Delta).

    A lower bound about every consistent policy covers both. JSON-native (the report caches it).

    Returns
    -------
    dict
        ``{name: {"title", "kind", "gap", "policies": [covered policy, ...], "value": float or
        None, "premise": the premise that fails or None}}`` in the registry's order.
    """
    from cascading_bandits.bounds.registry import all_bounds

    inst = b_lb(L, K, p, delta)
    specs = {pol: paper_policy(pol) for pol in TABLE_POLICIES}
    out = {}
    for b in all_bounds():
        if b.form != "constant":
            continue
        pols = [pol for pol in TABLE_POLICIES if b.covers_policy(*specs[pol])]
        if not pols:
            continue
        why, value = b.failed_premise(inst, int(n)), None
        if why is None:
            try:
                value = float(b(inst, int(n)))
            except ValueError as exc:  # beyond float64, say
                why = f"a finite value at n ({exc})"
        out[b.name] = {
            "title": b.title,
            "kind": b.kind,
            "gap": b.gap,
            "policies": pols,
            "value": value,
            "premise": why,
        }
    return out


def registry_bound_rows(rows, *, bounds=None) -> list[RegistryBoundRow]:
    """:func:`registry_bounds_at` on each configuration of ``rows`` beside the mean regret.

    Parameters
    ----------
    rows : list of BoundRow
        :func:`bound_rows`: the configurations, their horizon, p and measured means.
    bounds : callable, optional
        Replaces :func:`registry_bounds_at` (same signature and result; e.g. a cached one).

    Returns
    -------
    list of RegistryBoundRow
        Per configuration (in the order of ``rows``), the upper bounds before the lower ones,
        each in the registry's order, one row per covered policy.
    """
    bounds = registry_bounds_at if bounds is None else bounds
    out = []
    for r in rows:
        emp = {
            "cascade-ucb1": (r.ucb1_mean, r.ucb1_se),
            "cascade-klucb": (r.klucb_mean, r.klucb_se),
        }
        got = bounds(r.L, r.K, r.p, r.delta, r.n)
        names = sorted(got, key=lambda k: got[k]["kind"] != "upper")  # stable
        for name in names:
            b = got[name]
            for pol in b["policies"]:
                mean, se = emp.get(pol, (None, None))
                v = b["value"]
                ok = mean is not None and v is not None and v > 0
                out.append(
                    RegistryBoundRow(
                        r.L,
                        r.K,
                        r.delta,
                        r.p,
                        r.n,
                        name,
                        b["title"],
                        b["kind"],
                        b["gap"],
                        pol,
                        v,
                        b["premise"],
                        mean,
                        se,
                        mean / v if ok else None,
                    )
                )
    return out


# ---------------------------------------------------------------------------
# scaling in L, K and Delta against what the bounds predict
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class ScalingRow:
    """Regret ratio between two Table 1 configurations that differ in one parameter.

    ``predicted_*`` are the ratios of the bounds' log n coefficients: Theorem 2
    (``sum 12 / Delta_{e,K}``), Theorem 3 at eps = 0, and Theorem 4.
    """

    vary: str
    fixed: str
    frm: str
    to: str
    policy: str
    ratio: float
    ratio_se: float
    predicted_theorem2: float
    predicted_theorem3: float
    predicted_theorem4: float


@cache
def _coefficients(L, K, p, delta) -> tuple[float, float, float]:
    """The log n coefficients of Theorems 2, 3 (eps = 0) and 4 on B_LB(L, K, p, Delta), once
    per configuration (the scaling rows ask for each about seven times)."""
    from cascading_bandits.bounds.lower import theorem4_coefficient
    from cascading_bandits.bounds.upper import (
        theorem2_leading_coefficient,
        theorem3_leading_coefficient,
    )

    inst = b_lb(L, K, p, delta)
    return (
        float(theorem2_leading_coefficient(inst)),
        float(theorem3_leading_coefficient(inst)),
        float(theorem4_coefficient(inst)),
    )


def scaling_rows(results, *, order: str = "best-first") -> list[ScalingRow]:
    """Every pair of stored Table 1 configurations differing in exactly one of L, K, Delta.

    The ratio is ``R(to) / R(from)`` where ``from`` has the smaller L, the larger Delta
    or the smaller K, so every ratio predicted by the bounds is > 1 for L and Delta.
    """
    p_default = table_meta("table1")["p"]
    configs = []
    for c in paper_table("table1"):
        key = (c.L, c.K, c.delta)
        if key not in configs:
            configs.append(key)
    out = []
    names = ("L", "K", "delta")
    for a, b in combinations(configs, 2):
        diff = [i for i in range(3) if a[i] != b[i]]
        if len(diff) != 1:
            continue
        i = diff[0]
        # "from" is the easier configuration: smaller L, larger Delta, smaller K
        frm, to = (a, b) if ((a[i] < b[i]) != (i == 2)) else (b, a)
        fixed = ", ".join(f"{names[j]}={frm[j]:g}" for j in range(3) if j != i)
        for pol in TABLE_POLICIES:
            r0 = select_one(
                results, model="cascade", order=order, L=frm[0], K=frm[1], delta=frm[2], policy=pol
            )
            r1 = select_one(
                results, model="cascade", order=order, L=to[0], K=to[1], delta=to[2], policy=pol
            )
            if r0 is None or r1 is None:
                continue
            p = float(r0.params.get("p", p_default))
            ratio, se = ratio_of_means(final_regret(r1), final_regret(r0))
            c0 = _coefficients(*frm[:2], p, frm[2])
            c1 = _coefficients(*to[:2], p, to[2])
            out.append(
                ScalingRow(
                    "Delta" if names[i] == "delta" else names[i],
                    fixed,
                    f"{frm[i]:g}",
                    f"{to[i]:g}",
                    pol,
                    ratio,
                    se,
                    c1[0] / c0[0],
                    c1[1] / c0[1],
                    c1[2] / c0[2],
                )
            )
    return out


# ---------------------------------------------------------------------------
# worst-first (Table 2) against best-first (Table 1)
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class OrderRow:
    """Regret worst-first / best-first for one configuration and policy, ours and the paper's."""

    L: int
    K: int
    delta: float
    policy: str
    best_mean: float
    best_se: float
    worst_mean: float
    worst_se: float
    ratio: float
    ratio_se: float
    paper_ratio: float
    paper_ratio_se: float


def order_rows(results) -> list[OrderRow]:
    """Table 2 / Table 1 cell by cell (worst-first regret over best-first regret).

    The two orders are separate experiments, so the ratio's error treats them as independent;
    so does the paper's ratio's (from its two published standard errors, :func:`ratio_se`).
    """
    paper_best = {(c.L, c.K, c.delta, c.policy): c for c in paper_table("table1")}
    out = []
    for c in paper_table("table2"):
        rb = select_one(
            results,
            model="cascade",
            order="best-first",
            L=c.L,
            K=c.K,
            delta=c.delta,
            policy=c.policy,
        )
        rw = select_one(
            results,
            model="cascade",
            order="worst-first",
            L=c.L,
            K=c.K,
            delta=c.delta,
            policy=c.policy,
        )
        if rb is None or rw is None:
            continue
        bm, bs = mean_se(final_regret(rb))
        wm, ws = mean_se(final_regret(rw))
        ratio, se = ratio_of_means(final_regret(rw), final_regret(rb))
        pb = paper_best[(c.L, c.K, c.delta, c.policy)]
        out.append(
            OrderRow(
                c.L,
                c.K,
                c.delta,
                c.policy,
                bm,
                bs,
                wm,
                ws,
                ratio,
                se,
                c.mean / pb.mean,
                ratio_se(c.mean, c.se, pb.mean, pb.se),
            )
        )
    return out


# ---------------------------------------------------------------------------
# Figure 1: ranked-klucb against cascade-klucb in the DBN model
# ---------------------------------------------------------------------------
#: the paper's "about three" read as this closed interval
ABOUT_THREE = (2.5, 3.5)


@dataclass(frozen=True)
class DBNRow:
    """One DBN setting of Section 5.3 and one ranked-bandit policy against CascadeKL-UCB."""

    nu: float
    gamma: float
    n: int
    ranked_policy: str
    cascade_mean: float
    cascade_se: float
    ranked_mean: float
    ranked_se: float
    ratio: float
    ratio_se: float
    paired: bool

    @property
    def about_three(self) -> bool:
        return ABOUT_THREE[0] <= self.ratio <= ABOUT_THREE[1]


def ranked_policies(results) -> list[str]:
    """Ranked-bandit policies among the DBN results, ``ranked-klucb`` (Figure 1's) first."""
    pols = {r.params.get("policy") for r in results if r.params.get("model") == "dbn"}
    pols = sorted(p for p in pols if isinstance(p, str) and p.startswith("ranked-"))
    return sorted(pols, key=lambda p: p != "ranked-klucb")


def dbn_rows(results) -> list[DBNRow]:
    """ranked / cascade-klucb regret at the horizon in each (nu, gamma) setting of Figure 1.

    One row per setting and ranked-bandit policy present (``ranked-klucb`` first). The ratio
    is paired (common random numbers) when both cells have the same number of runs.
    """
    meta = figure1_meta()
    out = []
    for pol in ranked_policies(results):
        for nu in meta["nu"]:
            for gamma in meta["gamma"]:
                rc = select_one(results, model="dbn", nu=nu, gamma=gamma, policy="cascade-klucb")
                rr = select_one(results, model="dbn", nu=nu, gamma=gamma, policy=pol)
                if rc is None or rr is None:
                    continue
                a, b = final_regret(rr), final_regret(rc)
                paired = a.shape == b.shape
                ratio, se = ratio_of_means(a, b, paired=paired)
                cm, cs = mean_se(b)
                rm, rs = mean_se(a)
                out.append(
                    DBNRow(
                        float(nu),
                        float(gamma),
                        int(rc.checkpoints[-1]),
                        pol,
                        cm,
                        cs,
                        rm,
                        rs,
                        ratio,
                        se,
                        paired,
                    )
                )
    return out


# ---------------------------------------------------------------------------
# formatting
# ---------------------------------------------------------------------------
def fmt(x, digits: int = 1) -> str:
    """A number with ``digits`` decimals; ``-`` for None, ``nan`` for NaN."""
    if x is None:
        return "-"
    x = float(x)
    if math.isnan(x):
        return "nan"
    return f"{x:.{digits}f}"


def fmt_pm(mean, se, digits: int = 1) -> str:
    """``mean ± se`` (``-`` if the cell was not run)."""
    if mean is None:
        return "-"
    return f"{fmt(mean, digits)} ± {fmt(se, digits)}"


def fmt_sig(x, sig: int = 4) -> str:
    """A number to ``sig`` significant digits; at or above ``10**sig`` as a rounded integer
    with thousands separators (for bounds that span orders of magnitude)."""
    if x is None:
        return "-"
    x = float(x)
    if math.isfinite(x) and abs(x) >= 10**sig:
        return f"{x:,.0f}"
    return f"{x:.{sig}g}"


def markdown_table(header, rows, align=None) -> str:
    """A GitHub-flavoured Markdown table.

    Parameters
    ----------
    header : sequence of str, length c
    rows : sequence of sequences of str, each of length c
    align : str of length c, characters ``l``, ``r`` or ``c`` (default: all right-aligned)
    """
    header = [str(h) for h in header]
    c = len(header)
    align = align or "r" * c
    if len(align) != c or set(align) - set("lrc"):
        raise ValueError(f"align must be {c} characters from 'l', 'r', 'c', got {align!r}")
    rule = {"l": ":---", "r": "---:", "c": ":---:"}
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join(rule[a] for a in align) + " |"]
    for row in rows:
        row = [str(x).replace("|", "\\|") for x in row]
        if len(row) != c:
            raise ValueError(f"row {row} has {len(row)} cells, header has {c}")
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def as_dicts(rows) -> list[dict]:
    """Dataclass rows as plain dicts (JSON-ready), NaN kept as None."""
    out = []
    for r in rows:
        d = {}
        for f in fields(r):
            v = getattr(r, f.name)
            if isinstance(v, float) and math.isnan(v):
                v = None
            d[f.name] = v
        out.append(d)
    return out


# ---------------------------------------------------------------------------
# exportable tables: one description, rendered as Markdown, CSV and LaTeX (booktabs)
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Num:
    """A number in a :class:`Table`: shown with ``digits`` decimals (``sig=True``: significant
    digits, see :func:`fmt_sig`); the CSV keeps it at full precision."""

    value: float | None
    digits: int = 1
    sig: bool = False

    def text(self) -> str:
        return fmt_sig(self.value, self.digits) if self.sig else fmt(self.value, self.digits)


@dataclass(frozen=True)
class PM:
    """``mean ± se`` in a :class:`Table`; the CSV splits it into two full-precision columns."""

    mean: float | None
    se: float | None
    digits: int = 1

    def text(self) -> str:
        return fmt_pm(self.mean, self.se, self.digits)


def _csv_number(x) -> str:
    if x is None:
        return ""
    x = float(x)
    return "nan" if math.isnan(x) else repr(x)


#: characters of the report's Markdown and their LaTeX (text mode) spelling
_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "Δ": r"$\Delta$",
    "ν": r"$\nu$",
    "γ": r"$\gamma$",
    "ε": r"$\varepsilon$",
    "→": r"$\to$",
    "±": r"$\pm$",
    "×": r"$\times$",
    "−": "-",
    "²": r"$^2$",
    "³": r"$^3$",
    "₂": r"$_2$",
    "π": r"$\pi$",
    "θ": r"$\theta$",
    "*": r"$^*$",
    "…": r"\ldots{}",
    "≤": r"$\le$",
    "≥": r"$\ge$",
}


def latex_escape(text: str) -> str:
    """``text`` as LaTeX that compiles with pdflatex and no extra package: the special
    characters ``\\ & % $ # _ { } ~ ^`` escaped, the report's Greek letters and symbols as
    math, backticks dropped. Raises ValueError on any other non-ASCII character."""
    out = []
    for ch in str(text).replace("`", ""):
        if ch in _LATEX_SPECIAL:
            out.append(_LATEX_SPECIAL[ch])
        elif ord(ch) < 128:
            out.append(ch)
        else:
            raise ValueError(f"text {text!r} holds {ch!r}, which has no LaTeX spelling here")
    return "".join(out)


@dataclass(frozen=True)
class Table:
    """One table of the report, renderable as Markdown, CSV and LaTeX (booktabs).

    Parameters
    ----------
    name : str
        File stem of the exports (``tables/<name>.csv``, ``tables/<name>.tex``).
    caption : str
        One-sentence caption (LaTeX ``\\caption``).
    header : tuple of str, length c
    rows : tuple of tuples, each of length c
        Cells are str, :class:`Num` or :class:`PM`.
    align : str of length c, characters ``l``, ``r`` or ``c``
    """

    name: str
    caption: str
    header: tuple
    rows: tuple
    align: str = ""

    def __post_init__(self):
        c = len(self.header)
        if not self.name or not all(ch.isalnum() or ch in "-_" for ch in self.name):
            raise ValueError(
                f"name must be a non-empty file stem of [A-Za-z0-9_-], got {self.name!r}"
            )
        if len(set(self.header)) != c:
            raise ValueError(f"header names must be distinct (CSV columns), got {self.header}")
        align = self.align or "r" * c
        if len(align) != c or set(align) - set("lrc"):
            raise ValueError(f"align must be {c} characters from 'l', 'r', 'c', got {align!r}")
        object.__setattr__(self, "align", align)
        for row in self.rows:
            if len(row) != c:
                raise ValueError(f"row {row} has {len(row)} cells, header has {c}")

    @staticmethod
    def _text(cell) -> str:
        return cell.text() if isinstance(cell, (Num, PM)) else str(cell)

    def markdown(self) -> str:
        return markdown_table(
            self.header, [[self._text(c) for c in row] for row in self.rows], self.align
        )

    def csv(self) -> str:
        """RFC 4180 CSV; a ``mean ± se`` column becomes ``<col> mean`` and ``<col> se``,
        numbers are written at full precision (``repr``), missing values empty."""
        import csv
        import io

        pm = [any(isinstance(r[j], PM) for r in self.rows) for j in range(len(self.header))]
        head = []
        for h, split in zip(self.header, pm, strict=True):
            head += [f"{h} mean", f"{h} se"] if split else [h]
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(head)
        for row in self.rows:
            line = []
            for cell, split in zip(row, pm, strict=True):
                if isinstance(cell, PM):
                    line += [_csv_number(cell.mean), _csv_number(cell.se)]
                elif split:
                    line += [self._text(cell), ""]
                elif isinstance(cell, Num):
                    line.append(_csv_number(cell.value))
                else:
                    line.append(str(cell))
            w.writerow(line)
        return buf.getvalue()

    def latex(self) -> str:
        """A ``table`` float with a booktabs ``tabular`` (``\\usepackage{booktabs}``)."""

        def cell(c):
            if isinstance(c, PM):
                if c.mean is None:
                    return "--"
                return f"${fmt(c.mean, c.digits)} \\pm {fmt(c.se, c.digits)}$"
            if isinstance(c, Num):
                t = c.text()
                return "--" if t == "-" else f"${t.replace(',', '{,}')}$"
            t = str(c)
            return "--" if t == "-" else latex_escape(t)

        lines = [
            "% generated by cascading_bandits.reports; needs \\usepackage{booktabs}",
            "\\begin{table}[t]",
            "\\centering",
            f"\\caption{{{latex_escape(self.caption)}}}",
            f"\\label{{tab:{self.name}}}",
            f"\\begin{{tabular}}{{{self.align}}}",
            "\\toprule",
            " & ".join(latex_escape(h) for h in self.header) + " \\\\",
            "\\midrule",
        ]
        lines += [" & ".join(cell(c) for c in row) + " \\\\" for row in self.rows]
        lines += ["\\bottomrule", "\\end{tabular}", "\\end{table}"]
        return "\n".join(lines) + "\n"
