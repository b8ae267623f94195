"""Misspecification, rendered: tables, figures and text from a stored campaign.

The campaign (:func:`simulate.misspecification.campaign`, run by
``benchmarks/misspecification.py``) simulates policies on the real click-log instances under
several click models; it takes minutes, so the report renders a stored copy shipped as
package data (:data:`MISSPEC_PATH`) with its command and wall time, and never recomputes it.

What is shown
    * per (model, policy): the mean and median over queries of the mean regret at the
      horizon, on how many queries the policy has the smallest mean regret, on how many of
      those the paired interval against the runner-up excludes 0 (decisive), and the median
      margin (runner-up / winner) of its wins;
    * per (model, bound): whether the bound is proved for the model, on how many queries its
      instance premises hold, and how many cells hold, are violated or are undecided; for a
      violated bound the largest measured / bound ratio and its query (the evidence);
    * figure ``misspec_ratio``: per model, each policy's regret relative to the best policy
      on the same query (log scale; one point per query);
    * figure ``misspec_curves``: one query's regret curves with their bands under each model.
"""

from __future__ import annotations

import json
import math
from importlib import resources
from pathlib import Path

import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter

from cascading_bandits.reports.figures import OKABE_ITO, POLICY_STYLE, display_name

__all__ = [
    "MISSPEC_PATH",
    "load_misspec",
    "policy_rows",
    "bound_rows",
    "plot_ratio",
    "plot_curves",
    "default_curve_instance",
    "misspec_markdown",
    "policy_label",
]

#: the stored campaign the report renders
MISSPEC_PATH = Path(
    str(resources.files("cascading_bandits.reports") / "data" / "misspecification.json")
)

_MODEL_TEXT = {
    "cascade": "cascade",
    "pbm": "position-based (PBM)",
    "dcm": "dependent click (DCM)",
    "dbn": "DBN",
}
_EXTRA = {"toprank": (OKABE_ITO["sky"], "--", "TopRank")}


def _style(policy):
    """(colour, line style, label); the label is the report's one name for the policy."""
    colour, line, _ = (
        POLICY_STYLE.get(policy) or _EXTRA.get(policy) or (OKABE_ITO["black"], "-", policy)
    )
    return colour, line, display_name(policy)


def policy_label(policy) -> str:
    """The policy's name in the tables and figures (:func:`reports.figures.display_name`)."""
    return display_name(policy)


def load_misspec(path=None) -> dict:
    """Read and check a stored campaign; a ValueError names the file and what is wrong.

    Parameters
    ----------
    path : path, optional
        Default :data:`MISSPEC_PATH`.
    """
    path = Path(MISSPEC_PATH if path is None else path)
    try:
        doc = json.loads(path.read_text())
    except OSError as e:
        raise ValueError(
            f"{path}: cannot read the stored misspecification campaign ({e})"
        ) from None
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as e:
        raise ValueError(f"{path}: not a JSON document ({e})") from None
    need = ("policies", "models", "horizon", "runs", "cells", "summary")
    if not isinstance(doc, dict) or any(k not in doc for k in need):
        raise ValueError(f"{path}: a campaign needs the keys {', '.join(need)}")
    if not isinstance(doc["cells"], list) or not doc["cells"]:
        raise ValueError(f"{path}: 'cells' must be a non-empty list")
    for i, c in enumerate(doc["cells"]):
        try:
            ok = (
                c["model"] in doc["models"]
                and isinstance(c["instance"], str)
                and [r["policy"] for r in c["rows"]] == list(doc["policies"])
                and all(math.isfinite(r["mean"]) and r["mean"] >= -1e-9 for r in c["rows"])
            )
        except (KeyError, TypeError):
            ok = False
        if not ok:
            raise ValueError(
                f"{path}: cell {i} is malformed (needs model, instance, one row per policy "
                "with a finite non-negative mean)"
            )
    return doc


def _cells(doc, model):
    return [c for c in doc["cells"] if c["model"] == model]


def policy_rows(doc) -> list[dict]:
    """One row per (model, policy): regret over queries, wins, decisive wins, margin.

    Recomputed from the cells (not read from the stored summary), so a stored summary
    that disagrees with its cells cannot reach the report.
    """
    rows = []
    for m in doc["models"]:
        cells = _cells(doc, m)
        for p in doc["policies"]:
            means = [next(r["mean"] for r in c["rows"] if r["policy"] == p) for c in cells]
            wins = [c["win"] for c in cells if c.get("win") and c["win"]["best"] == p]
            margins = [w["ratio"] for w in wins if math.isfinite(w["ratio"])]
            rows.append(
                {
                    "model": m,
                    "policy": p,
                    "queries": len(cells),
                    "mean_regret": float(np.mean(means)),
                    "median_regret": float(np.median(means)),
                    "wins": len(wins),
                    "decisive_wins": sum(bool(w["decisive"]) for w in wins),
                    "median_margin": float(np.median(margins)) if margins else None,
                }
            )
    return rows


def bound_rows(doc) -> list[dict]:
    """One row per (model, bound): premises and verdict counts, with the worst evidence."""
    acc = {}
    for c in doc["cells"]:
        for r in c["rows"]:
            for b in r["bounds"]:
                key = (c["model"], b["bound"])
                a = acc.setdefault(
                    key,
                    {"model": c["model"], "bound": b["bound"], "policy": r["policy"],
                     "proved_for_model": b["premise_model"], "cells": 0, "instance_ok": 0,
                     "holds": 0, "violated": 0, "undecided": 0, "not_evaluated": 0,
                     "worst_ratio": None, "worst_query": None},
                )  # fmt: skip
                a["cells"] += 1
                a["instance_ok"] += b["failed_instance_premise"] is None
                a[b["verdict"].replace(" ", "_")] += 1
                if b["value"] and b["value"] > 0:
                    ratio = r["mean"] / b["value"]
                    if a["worst_ratio"] is None or ratio > a["worst_ratio"]:
                        a["worst_ratio"], a["worst_query"] = ratio, c["instance"]
    return list(acc.values())


def plot_ratio(doc) -> Figure:
    """Per model, each policy's mean regret / the best policy's on the same query (log y)."""
    models = list(doc["models"])
    pols = list(doc["policies"])
    fig = Figure(figsize=(3.3 * len(models) + 0.6, 3.6), layout="constrained")
    axes = fig.subplots(1, len(models), sharey=True, squeeze=False)[0]
    rng = np.random.default_rng(0)  # jitter only: the points' x positions
    for ax, m in zip(axes, models, strict=True):
        cells = _cells(doc, m)
        for i, p in enumerate(pols):
            ratios = []
            for c in cells:
                means = {r["policy"]: r["mean"] for r in c["rows"]}
                best = min(means.values())
                if best > 0:
                    ratios.append(means[p] / best)
            colour = _style(p)[0]
            x = i + rng.uniform(-0.18, 0.18, size=len(ratios))
            ax.scatter(x, ratios, s=9, color=colour, alpha=0.55, linewidths=0)
            if ratios:
                ax.plot([i - 0.3, i + 0.3], [np.median(ratios)] * 2, color="black", lw=1.6)
        ax.set_yscale("log")
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _p: f"{v:g}"))
        ax.yaxis.set_minor_formatter(FuncFormatter(lambda v, _p: ""))
        ax.axhline(1.0, color="0.5", lw=0.8, ls=":")
        ax.set_xticks(range(len(pols)), [policy_label(p) for p in pols], rotation=35, ha="right")
        ax.set_title(f"{_MODEL_TEXT.get(m, m)} users ({len(cells)} queries)", fontsize=10)
        ax.grid(axis="y", which="both", alpha=0.25)
    axes[0].set_ylabel("mean regret / best policy's on the query")
    return fig


def default_curve_instance(doc) -> str:
    """The query drawn by default: the largest mean regret of the first policy under the
    first model (where learning is most visible)."""
    m, p = doc["models"][0], doc["policies"][0]
    cells = _cells(doc, m)
    best = max(cells, key=lambda c: next(r["mean"] for r in c["rows"] if r["policy"] == p))
    return best["instance"]


def plot_curves(doc, instance=None) -> Figure:
    """One query's regret curves with their bands, one panel per model (log-log)."""
    names = [c["instance"] for c in doc["cells"]]
    if instance is None:
        instance = default_curve_instance(doc)
    if instance not in names:
        raise ValueError(f"instance {instance!r} is not in the campaign; it has {len(set(names))}")
    models = [m for m in doc["models"] if any(c["instance"] == instance for c in _cells(doc, m))]
    fig = Figure(figsize=(3.3 * len(models) + 0.6, 3.4), layout="constrained")
    axes = fig.subplots(1, len(models), squeeze=False)[0]
    for ax, m in zip(axes, models, strict=True):
        c = next(c for c in _cells(doc, m) if c["instance"] == instance)
        for r in c["rows"]:
            colour, ls, label = _style(r["policy"])
            t = np.asarray(r["curve"]["t"], float)
            ax.plot(t, r["curve"]["mean"], color=colour, ls=ls, lw=1.4, label=label)
            ax.fill_between(t, r["curve"]["low"], r["curve"]["high"], color=colour, alpha=0.18)
        ax.set_xscale("log")
        ax.set_ylim(bottom=0.0)
        ax.set_xlabel("step $t$")
        ax.set_title(f"{_MODEL_TEXT.get(m, m)} users", fontsize=10)
        ax.grid(alpha=0.25)
    axes[0].set_ylabel("regret $R(t)$ (95% band)")
    h, lab = axes[0].get_legend_handles_labels()
    fig.legend(h, lab, loc="outside lower center", ncol=len(lab), frameon=False, fontsize=8)
    fig.suptitle(f"Query {instance}, n = {doc['horizon']:,}, {doc['runs']} runs", fontsize=10)
    return fig


def _num(x, digits=1) -> str:
    return "n/a" if x is None else f"{x:,.{digits}f}"


def misspec_markdown(doc, figure_names=None) -> str:
    """The section's Markdown: the two tables and the findings in words.

    Parameters
    ----------
    doc : dict
        A campaign (:func:`load_misspec`).
    figure_names : dict, optional
        ``{"ratio": path, "curves": path}`` of the drawn figures, linked when given.
    """
    pr = policy_rows(doc)
    nq = {m: len(_cells(doc, m)) for m in doc["models"]}
    md = [
        f"Policies {', '.join(policy_label(p) for p in doc['policies'])} on "
        f"{max(nq.values())} real queries (the `:top` reductions of the click-log "
        f"instances: the most attractive documents and most examined positions) under "
        f"{', '.join(_MODEL_TEXT.get(m, m) for m in doc['models'])} users, "
        f"n = {doc['horizon']:,}, {doc['runs']} runs per cell, one seed "
        f"({doc.get('seed', 0)}); every policy of a query meets the same users. Regret is in "
        "each model's own reward (PBM: expected clicks; DCM: satisfaction; cascade: f(A)). "
        "Stored campaign, not recomputed: "
        f"`{doc.get('command', 'benchmarks/misspecification.py')}`"
        + (f" ({doc['wall_seconds'] / 60:.0f} min)." if "wall_seconds" in doc else "."),
        "",
        "| users | policy | mean R(n) over queries | median | wins | decisive wins | "
        "median margin of wins |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for r in pr:
        md.append(
            f"| {r['model']} | {policy_label(r['policy'])} | {_num(r['mean_regret'])} | "
            f"{_num(r['median_regret'])} | {r['wins']}/{r['queries']} | {r['decisive_wins']} | "
            f"{_num(r['median_margin'], 2)} |"
        )
    md += [
        "",
        "A win is the smallest mean regret on a query; decisive when the paired 95% interval "
        "of the runner-up's minus the winner's regret excludes 0; the margin is the "
        "runner-up's mean over the winner's.",
        "",
    ]
    for m in doc["models"]:
        rows = sorted((r for r in pr if r["model"] == m), key=lambda r: -r["wins"])
        top = rows[0]
        md.append(
            f"- **{_MODEL_TEXT.get(m, m)} users**: {policy_label(top['policy'])} wins on "
            f"{top['wins']} of {top['queries']} queries ({top['decisive_wins']} decisively, "
            f"median margin {_num(top['median_margin'], 2)}); lowest mean regret over queries: "
            f"{policy_label(min(rows, key=lambda r: r['mean_regret'])['policy'])}."
        )
    br = bound_rows(doc)
    md += [
        "",
        "| users | bound (policy) | proved for these users | queries with its instance "
        "premises | holds | violated | undecided | largest measured / bound (query) |",
        "|---|---|---|---:|---:|---:|---:|---|",
    ]
    for b in sorted(br, key=lambda b: (doc["models"].index(b["model"]), b["bound"])):
        worst = (
            "n/a" if b["worst_ratio"] is None else f"{b['worst_ratio']:.3g} ({b['worst_query']})"
        )
        md.append(
            f"| {b['model']} | {b['bound']} ({policy_label(b['policy'])}) | "
            f"{'yes' if b['proved_for_model'] else 'no'} | {b['instance_ok']}/{b['cells']} | "
            f"{b['holds']} | {b['violated']} | {b['undecided']} | {worst} |"
        )
    viol = [b for b in br if b["violated"]]
    md += [""]
    if viol:
        md.append(
            "Violations (the measured regret's interval lies above the bound): "
            + "; ".join(
                f"{b['bound']} under {b['model']} users on {b['violated']} queries"
                + ("" if not b["proved_for_model"] else " **although proved for them**")
                for b in viol
            )
            + ". A bound not proved for these users that fails is a finding about "
            "misspecification, not a bug."
        )
    else:
        md.append(
            "No bound is violated: every measured interval lies at or below every evaluated "
            "bound, including the bounds not proved for these users (their premises fail; "
            "their values are the cascade formulas on the attraction probabilities)."
        )
    if figure_names:
        md += [""]
        for key, alt in (("ratio", "regret relative to the best policy per query"),
                         ("curves", "regret curves of one query")):  # fmt: skip
            if key in figure_names:
                md.append(f"![{alt}]({figure_names[key]})")
    return "\n".join(md) + "\n"
