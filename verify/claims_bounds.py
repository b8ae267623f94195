"""Claims generated from the bound registry: one claim ``bound.<name>`` per registered bound
that can be checked (docs/design.md, "Claims"; the bounds: :mod:`bounds.registry`).

* An upper bound with a constant (``Bound.comparable``): a Monte-Carlo validity claim. The
  bound's first covered policy (``Covers``, e.g. ``cascade-ucb1(alpha=1.5)``) is simulated with
  :func:`simulate.run_cell` on every instance where the bound applies among: the bound's own
  ``validity_instances``, :data:`DEFAULT_INSTANCES`, one random instance drawn for the run
  (a weight near 0, one near 1, a tie below the optimum when the premises allow it) and the
  tightest instance a stored search found for the bound (:data:`TIGHTEST_PATH`). At each
  checkpoint the one-sided 99.9% Student-t limits of the mean regret are compared with the
  bound (:func:`verify.claims_montecarlo.compare_with_bound`): the claim fails if a lower
  limit exceeds the bound at any checkpoint of any instance, holds if every upper limit is
  below it, and is undecided otherwise.
* A lower bound with a constant that is asymptotic (``liminf R(n)/log n >= c``): what can be
  checked at finite n. Its coefficient ``c`` must not exceed the ``log n`` coefficient, read at
  ``n = 1e12``, of any registered upper bound with a constant that covers a policy of the
  paper (:data:`PAPER_POLICIES`), on instances where both apply: the paper's algorithms are
  uniformly good, so an upper bound below the lower rate would contradict one of the two.

The claims follow the registry at run time: :func:`sync_bound_claims` runs whenever the claims
are listed or looked up (:func:`verify.registry.add_sync_hook`), so a bound registered after
:mod:`verify` was imported has its claim, and an unregistered bound loses it.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np

from cascading_bandits.bounds.instance import CascadeInstance, b_lb
from cascading_bandits.bounds.registry import ANY_POLICY, all_bounds, get_bound
from cascading_bandits.verify import registry as R
from cascading_bandits.verify.checks import SlackTracker
from cascading_bandits.verify.claims_montecarlo import CONFIDENCE, compare_with_bound
from cascading_bandits.verify.verdict import (
    FAILS,
    HOLDS,
    MONTE_CARLO,
    SAMPLING,
    UNDECIDED,
    Outcome,
)

PREFIX = "bound."
#: the stored tightest instance per bound (format in its "_doc" key)
TIGHTEST_PATH = Path(__file__).resolve().parent / "data" / "tightest_instances.json"
#: longest horizon a stored tightest instance is simulated to (its search's n, up to this)
STORED_HORIZON_CAP = 20_000
#: (label, weights, K) simulated for every comparable bound that applies there
DEFAULT_INSTANCES = (
    ("B_LB(8, 2, 0.2, 0.15)", tuple(b_lb(8, 2, 0.2, 0.15).weights), 2),
    ("B_LB(6, 3, 0.3, 0.2)", tuple(b_lb(6, 3, 0.3, 0.2).weights), 3),
)
#: the policies of the paper (Theorems 2 and 3 prove them uniformly good)
PAPER_POLICIES = ("cascade-ucb1", "cascade-klucb")
#: where an upper bound's log n coefficient is read (value / log n)
LARGE_N = 10**12
#: relative rounding allowance of a float64 bound evaluation in the lower-bound comparison
LOWER_TOL = 1e-12

_GENERATED: dict = {}  # claim id -> the Bound object its claim was made from
_VALUES: dict = {}  # (Bound, weights, K, n) -> float: upper bounds at LARGE_N, shared by claims


def claim_id(name: str) -> str:
    """``bound.<name>``."""
    return PREFIX + name


def is_asymptotic_lower(b) -> bool:
    return b.kind == "lower" and b.form == "constant" and b.asymptotic


def has_claim(b) -> bool:
    """Whether bound ``b`` gets a claim: an upper bound with a constant, or an asymptotic
    lower bound with a constant."""
    return b.comparable or is_asymptotic_lower(b)


# ---------------------------------------------------------------------------------------
# keeping the claims in step with the bound registry
# ---------------------------------------------------------------------------------------
def _make_claim(b) -> R.Claim:
    name = b.name
    premises = (*b.premise_texts(), f"the {' or '.join(b.models)} click model")
    if b.comparable:

        def check(ctx, _name=name):
            return upper_check(get_bound(_name), ctx)

        return R.Claim(
            id=claim_id(name),
            reference=f"{b.title}; {b.source}",
            statement=f"R(n) <= {b.rate} for {b.policy_text()} (bound {name!r}), against "
            "simulated regret",
            premises=premises,
            check=check,
            method=MONTE_CARLO,
            requires=("cascading_bandits.simulate.runner",),
        )

    def check(ctx, _name=name):
        return lower_check(get_bound(_name), ctx)

    return R.Claim(
        id=claim_id(name),
        reference=f"{b.title}; {b.source}",
        statement=f"liminf R(n)/log n >= c with c log n = {b.rate} (bound {name!r}): c is at "
        "most the log n coefficient (at n = 1e12) of every registered upper bound with a "
        "constant on the paper's policies",
        premises=premises,
        check=check,
        method=SAMPLING,
    )


def sync_bound_claims() -> None:
    """Make the ``bound.*`` claims those of the bounds registered now.

    A claim is added for a new bound, replaced (in place, keeping its position) for a bound
    declared again, and removed for a bound no longer registered. Claims registered by hand
    are never touched; a hand-written claim with a ``bound.<name>`` id is an error.
    """
    want = {claim_id(b.name): b for b in all_bounds() if has_claim(b)}
    for cid in list(_GENERATED):
        if cid not in want:
            del _GENERATED[cid]
            R._REGISTRY.pop(cid, None)
    for cid, b in want.items():
        if _GENERATED.get(cid) is b and cid in R._REGISTRY:
            continue
        if cid in R._REGISTRY and cid not in _GENERATED:
            raise ValueError(
                f"claim {cid!r} is registered by hand; the bound {b.name!r} needs that id"
            )
        R._REGISTRY[cid] = _make_claim(b)
        _GENERATED[cid] = b


# ---------------------------------------------------------------------------------------
# instances
# ---------------------------------------------------------------------------------------
def _fmt_w(w) -> str:
    return "(" + ", ".join(f"{x:.4g}" for x in w) + ")"


def load_tightest(path=None) -> dict:
    """The stored tightest instances, ``{bound name: entry}`` (``_`` keys left out)."""
    path = TIGHTEST_PATH if path is None else Path(path)
    if not path.exists():
        return {}
    data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise ValueError(f"{path}: expected a JSON object of bound name -> instance")
    return {k: v for k, v in data.items() if not k.startswith("_")}


def tightest_instance(name: str, path=None):
    """``(label, weights, K, n or None)`` stored for bound ``name``, or None."""
    entry = load_tightest(path).get(name)
    if entry is None:
        return None
    where = f"{TIGHTEST_PATH.name}[{name!r}]"
    if not isinstance(entry, dict) or "weights" not in entry or "K" not in entry:
        raise ValueError(f"{where}: needs 'weights' and 'K'")
    inst = CascadeInstance(tuple(float(x) for x in entry["weights"]), int(entry["K"]))
    n = entry.get("n")
    n = None if n is None else int(n)
    src = str(entry.get("source", "stored search"))
    return f"tightest stored ({src})", inst.weights, inst.K, n


def draw_edge_instance(rng, b, tries: int = 50):
    """A random small instance where ``b`` applies: L in 5..7, K <= min(3, L - 3), one weight
    log-uniform in [1e-3, 0.05], one within [1e-3, 0.05] of 1, the others uniform in
    [0.05, 0.95], and the two best suboptimal items tied when ``b``'s premises allow.

    Returns ``(label, weights, K)``, or None when no draw satisfies the premises.
    """
    for _ in range(tries):
        L = int(rng.integers(5, 8))
        K = int(rng.integers(1, min(3, L - 3) + 1))
        low = float(np.exp(rng.uniform(np.log(1e-3), np.log(0.05))))
        high = 1.0 - float(np.exp(rng.uniform(np.log(1e-3), np.log(0.05))))
        mid = [float(x) for x in rng.uniform(0.05, 0.95, L - 2)]
        w = sorted([high, low, *mid], reverse=True)
        if w[K - 1] - w[K] < 1e-3:
            continue
        tied = list(w)
        tied[K + 1] = tied[K]  # L - K >= 3: the near-0 item stays
        for cand, what in ((tied, "tie below the optimum"), (w, "no tie")):
            inst = CascadeInstance(tuple(cand), K)
            if b.applies(inst):
                return f"random {_fmt_w(cand)}, K = {K} ({what})", inst.weights, K
    return None


def upper_instances(b, rng):
    """The instances of ``b``'s validity claim: list of ``(label, weights, K, extra n)``
    and the list of ``label: why skipped`` for those where ``b`` does not apply."""
    cands = [(f"validity {_fmt_w(w)}, K = {k}", w, k, None) for w, k in b.validity_instances]
    cands += [(lab, w, k, None) for lab, w, k in DEFAULT_INSTANCES]
    drawn = draw_edge_instance(rng, b)
    skipped = []
    if drawn is None:
        skipped.append("random instance: no draw met the premises")
    else:
        cands.append((*drawn, None))
    stored = tightest_instance(b.name)
    if stored is not None:
        cands.append(stored)
    keep = []
    for lab, w, k, n in cands:
        why = b.failed_premise(CascadeInstance(w, k))
        if why is None:
            keep.append((lab, tuple(w), k, n))
        else:
            skipped.append(f"{lab}: needs {why}")
    return keep, skipped


# ---------------------------------------------------------------------------------------
# upper bounds: Monte-Carlo validity
# ---------------------------------------------------------------------------------------
def mc_scale(budget: float):
    """``(runs, horizon, checkpoints)`` at this budget: 100 runs to n = 5000 by default,
    checkpoints at the powers of 10 and the horizon; from budget 8 (``--full``) 200 runs to
    n = 50000."""
    runs = max(30, int(round(100 * min(budget, 2.0))))
    horizon = 50_000 if budget >= 8 else 5000
    cps = [10**j for j in range(1, 10) if 10**j < horizon] + [horizon]
    return runs, horizon, np.array(cps, dtype=np.int64)


def policy_spec(b) -> str:
    """The simulator's spec of ``b``'s first covered policy (ValueError if it differs)."""
    from cascading_bandits.simulate.policies import parse_policy

    cov = b.covers[0]
    spec = parse_policy(cov.text)
    params = {k: spec[k] for k, _ in cov.params}
    if not b.covers_policy(spec.name, params):
        raise ValueError(f"the simulator's {spec.text} is not the policy {cov.text} of {b.name}")
    return cov.text


#: ``(policy, parameter, value)``: a run of ``policy`` with ``parameter = value`` reads the
#: parameter from its own horizon, so a bound on it is proved for a run of horizon n only
#: (TopRank's default ``delta = 1`` stands for ``delta = 1/n``: simulate.policies.toprank)
HORIZON_TUNED = (("toprank", "delta", 1.0),)


def horizon_specific(b) -> str | None:
    """Why the value of ``b`` at ``n`` is proved only for a run of horizon ``n``, or None.

    Such a bound says nothing about the regret at a step ``t < n`` of a longer run (its
    policy is tuned to the horizon), so :func:`upper_check` compares it at the run's horizon
    only. The bound says so itself when it has a boolean ``anytime`` attribute (False: proved
    for the horizon only); otherwise the rule is :data:`HORIZON_TUNED`, applied to the policy
    the claim simulates (the first covered policy, with its defaults filled in).
    """
    flag = getattr(b, "anytime", None)
    if flag is not None:
        if not isinstance(flag, bool):
            raise ValueError(f"bound {b.name!r}: anytime must be True or False, got {flag!r}")
        return None if flag else "the bound is declared for a run of horizon n only"
    from cascading_bandits.simulate.policies import parse_policy

    spec = parse_policy(policy_spec(b))
    for name, param, value in HORIZON_TUNED:
        if spec.name == name and float(spec[param]) == value:
            return (
                f"{spec.text} reads {param} = {value:g} from the run's horizon n, so the bound "
                "is proved for a run of horizon n only"
            )
    return None


def upper_check(b, ctx) -> Outcome:
    """The Monte-Carlo validity check of the comparable bound ``b`` (module docstring).

    A bound proved for a run of horizon n only (:func:`horizon_specific`) is compared at the
    horizon of each run, not at its earlier checkpoints.
    """
    from cascading_bandits.simulate import Cell, run_cell

    spec = policy_spec(b)
    at_horizon = horizon_specific(b)
    runs, horizon, cps = mc_scale(ctx.budget)
    insts, skipped = upper_instances(b, ctx.rng)
    status, worst, cex, details, used = HOLDS, None, None, [], []
    for i, (label, w, K, n_extra) in enumerate(insts):
        inst = CascadeInstance(w, K)
        # a stored tightest instance is simulated up to its own search's n (at most
        # STORED_HORIZON_CAP), where the search found the bound tightest
        h = horizon
        if n_extra is not None and horizon < n_extra <= STORED_HORIZON_CAP:
            h = int(n_extra)
        if at_horizon and n_extra is not None and n_extra <= h:
            h = int(n_extra)  # a run of the search's own horizon: the bound's only n
        grid = cps if n_extra is None or n_extra > h else np.union1d(cps, [n_extra])
        if at_horizon:
            grid = np.array([h], dtype=np.int64)
        if n_extra is not None and n_extra > h:
            skipped.append(f"{label}: its search's n = {n_extra} is beyond this run's horizon")
        ok = np.array([b.applies(inst, int(n)) for n in grid])
        if not ok.any():
            skipped.append(f"{label}: needs {b.failed_premise(inst, int(grid[-1]))}")
            continue
        cell = Cell("verify", f"bound-{b.name}-{i}", "cascade", w, K, spec, horizon=h, runs=runs)
        # one simulation per (policy, instance, sizes) for all the bounds on that policy
        key = ("bound", spec, tuple(float(x) for x in w), int(K), h, runs, tuple(grid.tolist()))
        res = R.shared(
            ctx, key, lambda ss, cell=cell, grid=grid: run_cell(cell, ss, checkpoints=grid)
        )
        n_at = res.checkpoints[ok]
        B = np.asarray(b(inst, n_at), dtype=float)
        with np.errstate(divide="ignore", invalid="ignore"):  # a bound of 0: slack below
            cmp = compare_with_bound(res.regret[:, ok], B, CONFIDENCE)
            mean, hi, lo = cmp["mean"], cmp["upper"], cmp["lower"]
            rel = np.where(
                B > 0, (B - hi) / np.where(B > 0, B, 1.0), np.where(hi <= B, 0.0, -np.inf)
            )
        j = int(np.argmin(rel))
        used.append({"label": label, "weights": list(w), "K": K, "checkpoints": n_at.tolist()})
        details.append(
            f"{label}: R({int(n_at[-1])}) = {mean[-1]:.4g} (upper limit {hi[-1]:.4g}), "
            f"bound {B[-1]:.4g}"
        )
        if worst is None or rel[j] < worst[0]:
            worst = (
                float(rel[j]),
                {
                    "instance": label,
                    "weights": list(w),
                    "K": K,
                    "n": int(n_at[j]),
                    "mean_regret": float(mean[j]),
                    "upper_limit": float(hi[j]),
                    "bound": float(B[j]),
                },
            )
        if cmp["status"] == FAILS:
            k = int(np.argmax(lo - B))
            excess = float(lo[k] - B[k])
            if status != FAILS or excess > cex["excess"]:
                cex = {
                    "instance": label,
                    "weights": list(w),
                    "K": K,
                    "n": int(n_at[k]),
                    "lower_limit": float(lo[k]),
                    "mean_regret": float(mean[k]),
                    "bound": float(B[k]),
                    "excess": excess,
                }
            status = FAILS
        elif cmp["status"] == UNDECIDED and status == HOLDS:
            status = UNDECIDED
    if not used:
        status = UNDECIDED
    notes = (
        f"{spec} simulated (simulate.run_cell, best-first), {runs} runs per instance; "
        f"one-sided {CONFIDENCE:.1%} Student-t limits of the mean cumulative regret at each "
        "checkpoint (each limit at that level, no correction for the number of comparisons); "
        "fails if a lower limit exceeds the bound anywhere, holds if every upper limit is "
        "below it; slack = min (bound - upper limit)/bound. " + "; ".join(details)
    )
    if at_horizon:
        notes += f". Compared at each run's horizon only (not at earlier checkpoints): {at_horizon}"
    if skipped:
        notes += ". Not simulated (or not at every horizon): " + "; ".join(skipped)
    if not used:
        notes += ". No instance where the bound applies: nothing was checked"
    return Outcome(
        status=status,
        method=MONTE_CARLO,
        domain=f"{len(used)} instances, {runs} runs of {spec}, "
        + (
            "compared at the horizon only"
            if at_horizon
            else f"checkpoints {', '.join(str(int(n)) for n in cps)}"
        ),
        domain_spec={
            "policy": spec,
            "instances": used,
            "runs": runs,
            "horizon": horizon,
            "confidence": CONFIDENCE,
            "horizon_only": bool(at_horizon),
        },
        instances=len(used) * runs,
        min_slack=None if worst is None else worst[0],
        argmin=None if worst is None else worst[1],
        counterexample=cex,
        notes=notes,
    )


# ---------------------------------------------------------------------------------------
# asymptotic lower bounds: against the upper bounds' log n coefficients
# ---------------------------------------------------------------------------------------
def _on_paper_policy(up, low) -> bool:
    """Whether the upper bound ``up`` covers a policy of the paper that ``low`` is about."""
    if up.covers == ANY_POLICY:
        return False
    return any(
        c.policy in PAPER_POLICIES and low.covers_policy(c.policy, dict(c.params))
        for c in up.covers
    )


def _value(b, inst, n):
    """``b(inst, n)``, remembered (the sharper upper bounds take up to a second at 1e12)."""
    key = (b, inst.weights, inst.K, n)
    if key not in _VALUES:
        if len(_VALUES) > 4096:
            _VALUES.clear()
        _VALUES[key] = float(b(inst, n))
    return _VALUES[key]


def lower_instances(low, rng, budget, draws=None):
    """``(label, instance)`` where ``low`` applies at 1e12: the first default instance (all
    of them from budget 8), ``low``'s validity instances, and random instances with a unique
    optimum (:func:`verify.claims_upper.draw_instance`; 1 by default, 4 from budget 8).

    Few by default: an upper bound whose constant sums Theorem 10's terms to 1e7
    (``theorem3-proof``, ``theorem3-lp``) takes about half a second per instance at 1e12.
    ``draws``: the random instances, if drawn already (:func:`lower_check` draws them once
    per run for all the lower bounds, so that the upper bounds' values are computed once).
    """
    from cascading_bandits.verify.claims_upper import draw_instance

    full = budget >= 8
    fixed = DEFAULT_INSTANCES if full else DEFAULT_INSTANCES[:1]
    out = [(lab, CascadeInstance(w, k)) for lab, w, k in fixed]
    out += [
        (f"validity {_fmt_w(w)}, K = {k}", CascadeInstance(w, k)) for w, k in low.validity_instances
    ]
    for inst in (
        draws if draws is not None else [draw_instance(rng) for _ in range(4 if full else 1)]
    ):
        out.append((f"random {_fmt_w(inst.weights)}, K = {inst.K}", inst))
    return [(lab, inst) for lab, inst in out if low.applies(inst, LARGE_N)]


def lower_check(low, ctx) -> Outcome:
    """The finite-n check of the asymptotic lower bound ``low`` (module docstring)."""
    from cascading_bandits.verify.claims_upper import draw_instance

    uppers = [b for b in all_bounds() if b.comparable and _on_paper_policy(b, low)]
    count = 4 if ctx.budget >= 8 else 1

    def draw(ss):
        rng = np.random.default_rng(ss)
        return [draw_instance(rng) for _ in range(count)]

    draws = R.shared(ctx, ("lower-random", count), draw)
    insts = lower_instances(low, ctx.rng, ctx.budget, draws=draws)
    tr = SlackTracker()
    pairs, skipped = 0, []
    for label, inst in insts:
        lo_val = float(low(inst, LARGE_N))
        for up in uppers:
            why = up.failed_premise(inst, LARGE_N)
            if why is not None:
                continue
            try:
                up_val = _value(up, inst, LARGE_N)
            except ValueError as exc:  # e.g. beyond the float64 range: no information
                skipped.append(f"{up.name} on {label}: {exc}")
                continue
            pairs += 1
            slack = 1.0 - lo_val / up_val if up_val > 0 else (0.0 if lo_val <= 0 else -math.inf)
            tr.add(
                slack,
                {
                    "instance": label,
                    "weights": list(inst.weights),
                    "K": inst.K,
                    "upper": up.name,
                    "lower_coefficient": lo_val / math.log(LARGE_N),
                    "upper_coefficient": up_val / math.log(LARGE_N),
                },
                tol=LOWER_TOL,
            )
    status = tr.status if pairs else UNDECIDED
    notes = (
        f"coefficient = value at n = {LARGE_N:.0e} / log n for both bounds, so the comparison "
        "is of the two values (log n cancels); float64 evaluation through the registry (no "
        f"bound offers more precision), a shortfall beyond {LOWER_TOL:g} relative is a "
        "counterexample; slack = 1 - lower/upper. Upper bounds compared: "
        + (", ".join(b.name for b in uppers) or "none")
        + ". The liminf itself is not checkable at finite n."
    )
    if skipped:
        notes += " Skipped: " + "; ".join(skipped)
    if not pairs:
        notes += " No instance where the bound and an upper bound both apply."
    return tr.outcome(
        SAMPLING,
        f"{len(insts)} instances (B_LB, random with a unique optimum, L <= 8) x "
        f"{len(uppers)} upper bounds, n = {LARGE_N:.0e}",
        {
            "n": LARGE_N,
            "uppers": [b.name for b in uppers],
            "instances": [[*inst.weights, inst.K] for _, inst in insts],
        },
        notes=notes,
        status=status,
    )


R.add_sync_hook(sync_bound_claims)
sync_bound_claims()
