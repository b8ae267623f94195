"""Misspecification, measured: cascade learners and their bounds when users are not cascade users.

The paper's guarantees (Theorems 2 and 3) are proved for the cascade click model; a search
engine's users are better described by the position-based model (PBM) or the dependent click
model (DCM) (:mod:`simulate.models`). This module runs a grid of policies on the real
instances of :mod:`simulate.real_instances` (their ``:top`` reductions by default: the 10 most
attractive documents and the most examined positions) under several click models, and
reports, per (instance, model, policy):

* the mean regret at the horizon with its Student-t interval (each regret in the model's own
  reward: expected clicks for the PBM, satisfaction for the DCM, ``f(A)`` for the cascade);
* for every registered upper bound with a constant that covers the policy
  (:func:`bounds.registry.bounds_for_policy`), whether its premises hold in this model and on
  this instance, its value at the horizon (evaluated on the cascade instance ``w`` even where
  the click-model premise fails: that is the evidence a reader needs), and a verdict on the
  measured regret: ``"holds"`` when the interval's upper limit is at most the bound,
  ``"violated"`` when its lower limit exceeds it, ``"undecided"`` otherwise;
* which policy has the smallest mean regret and by how much, with a paired test: every
  policy of one (instance, model) meets the same users (common random numbers), so the
  per-run differences of the two best are paired and their t interval says whether the win
  is decisive (the interval excludes 0).

Seeds: one root seed for the campaign. Each (instance, model) runs :func:`simulate.api.run`
with that seed, so two models on one instance share their users' draws (the attraction
uniforms are a pure function of the run key, the step and the item), and so do all policies.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

from cascading_bandits.bounds import _validate as V
from cascading_bandits.bounds.instance import CascadeInstance
from cascading_bandits.bounds.registry import PremiseError, bounds_for_policy, model_view
from cascading_bandits.simulate.api import run
from cascading_bandits.simulate.models import MODEL_NAMES
from cascading_bandits.simulate.policies import parse_policy
from cascading_bandits.simulate.real_instances import real_instance, real_instance_names

__all__ = [
    "DEFAULT_POLICIES",
    "DEFAULT_MODELS",
    "LEVEL",
    "bound_verdicts",
    "paired_win",
    "run_instance",
    "campaign",
    "summarise",
]

#: the cascade learners of the paper, CascadeTS, RankedKL-UCB and TopRank
DEFAULT_POLICIES = ("cascade-ucb1", "cascade-klucb", "cascade-ts", "ranked-klucb", "toprank")
DEFAULT_MODELS = ("cascade", "pbm", "dcm")
#: two-sided level of every interval here
LEVEL = 0.95
#: regret-curve points kept per cell (log-spaced checkpoints) for the figures
CURVE_POINTS = 16


def _t(level, runs):
    return float(stats.t.ppf(0.5 + level / 2, runs - 1)) if runs > 1 else math.nan


def _curve_points(checkpoints, points: int = CURVE_POINTS) -> np.ndarray:
    """Indices of about ``points`` checkpoints spread evenly in log t, the last one included."""
    cp = np.asarray(checkpoints, float)
    if cp.size <= points:
        return np.arange(cp.size)
    targets = np.geomspace(cp[0], cp[-1], points)
    pick = np.unique(np.searchsorted(cp, targets).clip(0, cp.size - 1))
    return np.union1d(pick, [cp.size - 1])


def _sig(x, digits: int = 6) -> float:
    """``x`` to ``digits`` significant digits (the stored curves are for drawing)."""
    return float(f"{float(x):.{digits - 1}e}")


def bound_verdicts(inst: CascadeInstance, model, policy: str, horizon: int, lo, hi):
    """The registered upper bounds with a constant covering ``policy``, judged at ``horizon``.

    Parameters
    ----------
    inst : CascadeInstance
        The attraction probabilities and K (a PBM / DCM instance's ``w``).
    model : str or bounds.registry.ModelView
        The click model the regret was measured in, with its parameters
        (:func:`bounds.registry.model_view`; a bare name has none, so a premise on them
        fails, e.g. TopRank's under the PBM needs ``kappa``).
    policy : str
        A policy spec (``"cascade-klucb"``, ``"toprank(delta=0.01)"``).
    horizon : int
    lo, hi : float
        The measured regret's interval at ``horizon`` (NaN for one run: verdict undecided).

    Returns
    -------
    list of dict
        One per bound: ``bound``, ``premise_model`` (True if the click model is one the bound
        is proved for), ``failed_premise`` (the first failing premise's text, or None),
        ``value`` (the bound at ``horizon``, evaluated as if the users were of a model it is
        proved for, None if an instance premise fails), ``verdict``.
    """
    spec = parse_policy(policy)
    view = model_view(model)
    out = []
    for b in bounds_for_policy(spec.name, spec.params, kind="upper", form="constant"):
        failed = b.failed_premise(inst, horizon, view)
        model_ok = view.name in b.models
        # the instance's premises alone, asked in a model the bound is proved for
        failed_inst = b.failed_premise(inst, horizon, view if model_ok else b.models[0])
        value = None
        try:
            value = float(b(inst, horizon, model=view if model_ok else b.models[0]))
        except PremiseError:
            value = None
        if value is None or not (math.isfinite(lo) and math.isfinite(hi)):
            verdict = "undecided" if value is not None else "not evaluated"
        elif hi <= value:
            verdict = "holds"
        elif lo > value:
            verdict = "violated"
        else:
            verdict = "undecided"
        out.append(
            {
                "bound": b.name,
                "premise_model": model_ok,
                "failed_premise": failed,
                "failed_instance_premise": failed_inst,
                "value": value,
                "verdict": verdict,
            }
        )
    return out


def paired_win(final: dict, level: float = LEVEL) -> dict:
    """The policy with the smallest mean final regret and its margin over the runner-up.

    Parameters
    ----------
    final : dict
        policy -> ndarray (runs,) of final regrets, the same users run by run (common random
        numbers), so differences are paired.
    level : float

    Returns
    -------
    dict
        ``best``, ``second``, ``ratio`` (second's mean / best's mean; inf if the best has mean
        0 and the second not, 1 if both are 0), ``diff`` (mean of second - best) with its
        paired t interval ``diff_ci``, and ``decisive`` (the interval excludes 0).
    """
    if len(final) < 2:
        raise ValueError(f"a win needs at least two policies, got {len(final)}")
    means = {p: float(np.mean(v)) for p, v in final.items()}
    order = sorted(means, key=lambda p: (means[p], p))
    best, second = order[0], order[1]
    d = np.asarray(final[second], float) - np.asarray(final[best], float)
    runs = d.size
    mean_d = float(d.mean())
    if runs > 1:
        h = _t(level, runs) * float(d.std(ddof=1)) / math.sqrt(runs)
        ci = [mean_d - h, mean_d + h]
        decisive = bool(ci[0] > 0.0)
    else:
        ci, decisive = None, False
    mb, ms = means[best], means[second]
    ratio = (ms / mb) if mb > 0 else (1.0 if ms == 0 else math.inf)
    return {
        "best": best,
        "second": second,
        "ratio": ratio,
        "diff": mean_d,
        "diff_ci": ci,
        "decisive": decisive,
    }


def run_instance(
    name: str,
    model: str,
    *,
    policies=DEFAULT_POLICIES,
    horizon: int = 100_000,
    runs: int = 20,
    seed: int = 0,
    out=None,
    workers: int = 1,
    level: float = LEVEL,
) -> dict:
    """One (real instance, click model) cell of the campaign: every policy, bounds and winner.

    Parameters
    ----------
    name : str
        A real instance name (:func:`simulate.real_instances.real_instance_names`).
    model : str
        A declared click model; the PBM uses the instance's fitted examination probabilities,
        the DCM its default continuation probabilities (:mod:`simulate.models`).
    policies : sequence of str
    horizon, runs, seed, out, workers
        As :func:`simulate.api.run` (``out`` stores and reuses the cells).
    level : float
        Two-sided level of the intervals, in (0, 1).

    Returns
    -------
    dict
        ``instance``, ``model``, ``L``, ``K``, ``horizon``, ``runs``, ``rows`` (one per
        policy: ``policy``, ``curve`` (about :data:`CURVE_POINTS` log-spaced checkpoints
        ``t`` with the mean regret and its band, 6 significant digits), ``mean``,
        ``stderr``, ``ci``, ``bounds``) and ``win``
        (:func:`paired_win`).
    """
    V.choice("model", model, MODEL_NAMES)
    level = V.probability("level", level, open_low=True, open_high=True)
    inst_real = real_instance(name)
    res = run(
        name,
        policies=list(policies),
        model=model,
        horizon=horizon,
        runs=runs,
        seed=seed,
        out=out,
        workers=workers,
    )
    inst = CascadeInstance(np.asarray(inst_real.weights, float), inst_real.K)
    seen = model_view(model, kappa=res.spec.get("kappa"), lam=res.spec.get("lam"))
    rows, final = [], {}
    q = _t(level, runs)
    for r in res:
        f = np.asarray(r.regret[:, -1], float)
        final[r.policy] = f
        mean = float(f.mean())
        se = float(f.std(ddof=1) / math.sqrt(runs)) if runs > 1 else math.nan
        lo, hi = (mean - q * se, mean + q * se) if runs > 1 else (math.nan, math.nan)
        lo_c, hi_c = r.band(level) if runs > 1 else (r.mean, r.mean)
        pick = _curve_points(r.checkpoints)
        rows.append(
            {
                "policy": r.policy,
                "curve": {
                    "t": [int(x) for x in r.checkpoints[pick]],
                    "mean": [_sig(x) for x in r.mean[pick]],
                    "low": [_sig(x) for x in lo_c[pick]],
                    "high": [_sig(x) for x in hi_c[pick]],
                },
                "mean": mean,
                "stderr": None if math.isnan(se) else se,
                "ci": None if math.isnan(se) else [lo, hi],
                "bounds": bound_verdicts(inst, seen, r.policy, int(r.horizon), lo, hi),
            }
        )
    return {
        "instance": inst_real.name,
        "model": model,
        "model_seen": seen.name,
        "L": inst_real.L,
        "K": inst_real.K,
        "horizon": int(res[0].horizon),
        "runs": int(runs),
        "rows": rows,
        "win": paired_win(final, level) if len(final) > 1 else None,
    }


def campaign(
    names=None,
    models=DEFAULT_MODELS,
    *,
    policies=DEFAULT_POLICIES,
    horizon: int = 100_000,
    runs: int = 20,
    seed: int = 0,
    out=None,
    workers: int = 1,
    level: float = LEVEL,
    progress=None,
) -> dict:
    """Run :func:`run_instance` over real instances x click models and summarise.

    Parameters
    ----------
    names : sequence of str, optional
        Real instance names; default every ``:top`` reduction
        (:func:`simulate.real_instances.real_instance_names` with ``top=True``).
    models : sequence of str
    progress : callable, optional
        Called with ``(done, total, name, model)`` after each cell.
    Other parameters as :func:`run_instance`.

    Returns
    -------
    dict
        ``cells`` (one :func:`run_instance` result each), ``summary`` (:func:`summarise`),
        and the parameters.
    """
    names = list(real_instance_names(top=True) if names is None else names)
    if not names:
        raise ValueError("names: give at least one real instance name")
    models = list(models)
    if not models:
        raise ValueError(f"models: give at least one of {', '.join(MODEL_NAMES)}")
    for m in models:
        V.choice("model", m, MODEL_NAMES)
    cells = []
    total = len(names) * len(models)
    for name in names:
        for m in models:
            cells.append(
                run_instance(
                    name,
                    m,
                    policies=policies,
                    horizon=horizon,
                    runs=runs,
                    seed=seed,
                    out=out,
                    workers=workers,
                    level=level,
                )
            )
            if progress is not None:
                progress(len(cells), total, name, m)
    return {
        "policies": list(policies),
        "models": models,
        "horizon": int(horizon),
        "runs": int(runs),
        "seed": int(seed),
        "level": level,
        "cells": cells,
        "summary": summarise(cells),
    }


def summarise(cells: list) -> dict:
    """Per (model, policy) over instances: regret, wins and bound verdicts.

    Returns
    -------
    dict
        ``table``: one row per (model, policy) with ``instances``, ``mean_regret`` (mean over
        instances of the mean final regret), ``median_regret``, ``wins`` (instances where
        the policy has the smallest mean), ``decisive_wins`` (of those, the paired interval
        against the runner-up excludes 0), ``median_margin`` (median over its wins of the
        runner-up's mean / its mean), and per bound the counts of verdicts;
        ``instances`` per model.
    """
    table = {}
    per_model = {}
    for c in cells:
        per_model.setdefault(c["model"], set()).add(c["instance"])
        for row in c["rows"]:
            t = table.setdefault(
                (c["model"], row["policy"]),
                {"means": [], "wins": 0, "decisive": 0, "margins": [], "bounds": {}},
            )
            t["means"].append(row["mean"])
            for b in row["bounds"]:
                key = b["bound"]
                tb = t["bounds"].setdefault(
                    key,
                    {"premise_model": b["premise_model"], "holds": 0, "violated": 0,
                     "undecided": 0, "not evaluated": 0, "premise_failed": 0},
                )  # fmt: skip
                tb[b["verdict"]] += 1
                tb["premise_failed"] += b["failed_premise"] is not None
        w = c["win"]
        if w is not None:
            t = table[(c["model"], w["best"])]
            t["wins"] += 1
            t["decisive"] += bool(w["decisive"])
            if math.isfinite(w["ratio"]):
                t["margins"].append(w["ratio"])
    rows = []
    for (model, policy), t in table.items():
        rows.append(
            {
                "model": model,
                "policy": policy,
                "instances": len(t["means"]),
                "mean_regret": float(np.mean(t["means"])),
                "median_regret": float(np.median(t["means"])),
                "wins": t["wins"],
                "decisive_wins": t["decisive"],
                "median_margin": float(np.median(t["margins"])) if t["margins"] else None,
                "bounds": t["bounds"],
            }
        )
    return {
        "table": rows,
        "instances": {m: len(s) for m, s in per_model.items()},
    }
