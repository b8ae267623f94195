"""Report section "At a glance": the report's lead, every headline number once.

What a reader needs first, in this order: verify's verdict and the paper's errata (their
headlines from :mod:`reports.section_caveats`), the reproduction of Tables 1 and 2 (the
marks, then each borderline or disagreeing cell), the systematic difference from the paper
(sign test), Figure 1's ratio per ranked-bandit reading, the empirical regret over the upper
bounds (Theorems 2 and 3, then every registered upper bound with a constant) and over the
Theorem 4 rate, the order effect, and a warning when the report is not at the paper's scale.
The sections below hold the tables these lines summarise.
"""

from __future__ import annotations

import math

import numpy as np

from cascading_bandits.reports import tables as T
from cascading_bandits.reports.paper import figure1_meta
from cascading_bandits.reports.section_base import (
    PAPER_HORIZON,
    PAPER_RUNS,
    Context,
    Section,
    mark_counts,
    md_inline,
    verdict_sentence,
)
from cascading_bandits.reports.section_caveats import CAVEAT_KINDS, caveat_headline

__all__ = ["GLANCE"]


def _registry_upper(data: dict) -> list:
    """The rows of the registry's upper bounds that have a ratio empirical / bound."""
    return [r for r in data.get("bounds_registry", []) if r.kind == "upper" and r.ratio is not None]


def _verification_lines(v: dict) -> list[str]:
    if not v.get("available"):
        return [f"- **Verification**: not run ({v.get('reason', 'verify unavailable')})."]
    lines = [f"- **Verification** (`cascading verify`): {verdict_sentence(v)}"]
    cav = v.get("caveats") or []
    errata = [c for c in cav if c.get("kind") == "erratum"]
    if errata:
        lines.append(
            f"- **Errata of the paper** ({len(errata)}, each pinned by a test; see Caveats):"
        )
        lines += [f"  - `{c.get('id')}`: {md_inline(caveat_headline(c))}" for c in errata]
    others = {}
    for c in cav:
        if c.get("kind") != "erratum":
            others[c.get("kind")] = others.get(c.get("kind"), 0) + 1
    if others:
        lines.append(
            f"- **Further caveats** ({sum(others.values())}): "
            + ", ".join(
                f"{n} {CAVEAT_KINDS.get(k, (k, k))[0 if n == 1 else 1]}" for k, n in others.items()
            )
            + " (see Caveats)."
        )
    return lines


def _reproduction_lines(ctx: Context) -> list[str]:
    s, data = ctx.s, ctx.data
    both = data["table1"] + data["table2"]
    lines = [
        f"- **Reproduction** at n = {s.horizon:,}, {s.runs} runs: Table 1 "
        f"{mark_counts(data['table1'])}; Table 2 {mark_counts(data['table2'])}."
    ]
    for r in (r for r in both if r.mark in ("disagree", "borderline")):
        lines.append(
            f"  - {r.table} L={r.L} K={r.K} Δ={r.delta:g} {r.policy}: ours "
            f"{T.fmt_pm(r.ours_mean, r.ours_se)} vs paper {T.fmt_pm(r.paper_mean, r.paper_se)}, "
            f"z = {T.fmt(r.z, 2)} ({r.mark})"
        )
    run = [r for r in both if r.z is not None and not math.isnan(r.z)]
    if run:
        ss = T.sign_summary(both)
        rel = [r.ours_mean / r.paper_mean for r in run if r.paper_mean]
        lines.append(
            f"- **Systematic difference from the paper**: ours is below the paper in {ss.below} "
            f"of {ss.cells} cells, above in {ss.above}; mean z = {ss.mean_z:+.2f} (about "
            f"0 ± {1 / math.sqrt(ss.cells):.2f} without bias), two-sided sign test "
            f"p = {ss.p_value:.2g}; median ours / paper = {float(np.median(rel)):.3f}."
        )
    f1 = figure1_meta()
    for pol in dict.fromkeys(r.ranked_policy for r in data["dbn"]):
        rs = [r for r in data["dbn"] if r.ranked_policy == pol]
        lines.append(
            f"- **Figure 1**: {pol} / cascade-klucb regret at n = {rs[0].n:,} for (ν, γ) = "
            + ", ".join(f"({r.nu:g}, {r.gamma:g}): {r.ratio:.2f}" for r in rs)
            + (
                f" (paper: about {f1['ranked_over_cascade']:g})."
                if pol == "ranked-klucb"
                else " (another reading of the ranked-bandit reward, not the paper's Figure 1)."
            )
        )
    return lines


def _bounds_lines(data: dict) -> list[str]:
    """The empirical regret over the paper's upper bounds, over every registered upper bound
    with a constant (each with its own verdict), and over the Theorem 4 rate."""
    rows = data["bounds"]
    if not rows:
        return []
    lines = []
    ucb1 = [b.ucb1_over_theorem2 for b in rows if b.ucb1_mean is not None]
    klucb = [b.klucb_over_theorem3 for b in rows if b.klucb_mean is not None]
    parts = []
    if ucb1:
        parts.append(f"CascadeUCB1 / Theorem 2 = {min(ucb1):.3f} to {max(ucb1):.3f}")
    if klucb:
        parts.append(f"CascadeKL-UCB / Theorem 3 = {min(klucb):.3f} to {max(klucb):.3f}")
    if parts:
        verdict = (
            "below 1 in every row: the mean regret at n is below both upper bounds"
            if max(ucb1 + klucb) < 1
            else "**above 1 in some row: a mean regret exceeds its upper bound at n**"
        )
        lines.append(
            "- **Upper bounds**, empirical mean regret / bound at n over the Table 1 rows: "
            f"{'; '.join(parts)} ({verdict})."
        )
    upper = _registry_upper(data)
    if upper:
        worst = max(upper, key=lambda r: r.ratio)
        names = list(dict.fromkeys(r.bound for r in upper))
        verdict = (
            "below 1 in every row"
            if worst.ratio < 1
            else f"**above 1 in some row: {worst.bound} on {worst.policy} at L = {worst.L}, "
            f"K = {worst.K}, Δ = {worst.delta:g}**"
        )
        lines.append(
            f"  - every registered upper bound with a constant ({', '.join(names)}): "
            f"{min(r.ratio for r in upper):.3g} to {worst.ratio:.3g} ({verdict})."
        )
    lower = [b.klucb_over_theorem4 for b in rows if b.klucb_mean is not None]
    if lower:
        lines.append(
            "- **Lower bound**: CascadeKL-UCB regret / the Theorem 4 rate (coefficient × log n) "
            f"at n: {min(lower):.2f} to {max(lower):.2f}."
        )
    return lines


def _glance_md(ctx: Context) -> str:
    s, data = ctx.s, ctx.data
    lines = ["## At a glance\n"]
    lines += _verification_lines(ctx.verify)
    lines += _reproduction_lines(ctx)
    lines += _bounds_lines(data)
    if data["order"]:
        ours = sum(r.ratio < 1 for r in data["order"])
        paper = sum(r.paper_ratio < 1 for r in data["order"])
        lines.append(
            f"- **Order**: worst-first has lower regret than best-first in {ours} of "
            f"{len(data['order'])} cells (paper: {paper} of {len(data['order'])})."
        )
    if (s.horizon, s.runs) != (PAPER_HORIZON, PAPER_RUNS):
        lines.append(
            f"\n> **Not at the paper's scale** (the paper uses n = {PAPER_HORIZON:,} and "
            f"{PAPER_RUNS} runs). The z-scores below compare different horizons and are not a "
            "test of reproduction; this report exercises the pipeline only."
        )
    return "\n".join(lines) + "\n"


GLANCE = Section("glance", _glance_md, reads_verify=True)
