"""Report section "Bounds against the evidence": Theorems 2, 3 and 4 at the horizon on every
Table 1 configuration, the empirical mean regret over each bound, and every registered bound
with a constant on the paper's policies.

Theorem 2 (CascadeUCB1) and Theorem 3 (CascadeKL-UCB, its eps optimised at n, constant
C = K L C2(eps)/n^beta(eps) + 7 K log log n) are upper bounds; Theorem 4 is the asymptotic
lower bound liminf R(n)/log n >= coefficient, shown as coefficient x log n (Kveton et al.,
ICML 2015, Section 4). Exported as ``tables/bounds.csv`` and ``tables/bounds_registry.csv``;
the figure ``bounds_vs_empirical`` is drawn by the builder.
"""

from __future__ import annotations

from cascading_bandits.reports import tables as T
from cascading_bandits.reports.section_base import Context, Section, pm_cell

__all__ = ["BOUNDS"]


def _bounds_table(ctx: Context) -> T.Table | None:
    if not ctx.data["bounds"]:
        return None
    rows = []
    for b in ctx.data["bounds"]:
        rows.append(
            (
                str(b.L),
                str(b.K),
                f"{b.delta:g}",
                f"{b.n:,}",
                T.Num(b.theorem4_coefficient, 4, sig=True),
                T.Num(b.theorem4, 4, sig=True),
                T.Num(b.theorem2, 4, sig=True),
                T.Num(b.theorem3, 4, sig=True),
                T.Num(b.theorem3_eps, 3, sig=True),
                T.Num(b.theorem3_C, 4, sig=True),
                T.Num(b.ucb1_over_theorem2, 3),
                T.Num(b.klucb_over_theorem3, 3),
                T.Num(b.ucb1_over_theorem4, 2),
                T.Num(b.klucb_over_theorem4, 2),
            )
        )
    return T.Table(
        "bounds",
        "Theorems 2, 3 (optimised ε) and the Theorem 4 rate at the horizon n on the Table 1 "
        "configurations, and the empirical mean regret over each bound.",
        (
            "L",
            "K",
            "Δ",
            "n",
            "Thm 4 coef",
            "Thm 4 at n",
            "Thm 2 at n",
            "Thm 3 at n",
            "ε*",
            "C",
            "UCB1 / Thm 2",
            "KL-UCB / Thm 3",
            "UCB1 / Thm 4",
            "KL-UCB / Thm 4",
        ),
        tuple(rows),
    )


def _registry_table(ctx: Context) -> T.Table | None:
    rows = ctx.data.get("bounds_registry") or []
    if not rows:
        return None
    return T.Table(
        "bounds_registry",
        "Every registered bound with a constant that covers CascadeUCB1 (alpha = 1.5) or "
        "CascadeKL-UCB (c = 3), at the horizon n on the Table 1 configurations, beside the "
        "policy's mean regret ± standard error and the ratio empirical / bound.",
        ("L", "K", "Δ", "n", "bound", "kind", "policy", "value at n", "empirical")
        + ("empirical / bound", "not applied"),
        tuple(
            (
                str(r.L),
                str(r.K),
                f"{r.delta:g}",
                f"{r.n:,}",
                r.bound,
                f"{r.kind}, gap-{r.gap}",
                r.policy,
                T.Num(r.value, 4, sig=True),
                pm_cell(r.mean, r.se),
                T.Num(r.ratio, 3, sig=True),
                f"needs {r.premise}" if r.premise else "",
            )
            for r in rows
        ),
        "rrrrlllrrrl",
    )


def _registry_md(ctx: Context) -> str:
    """The registry's bounds per configuration: the range of each ratio, the full table
    folded below it."""
    t = ctx.table("bounds_registry", _registry_table)
    if t is None:
        return ""
    by = {}
    for r in ctx.data["bounds_registry"]:
        by.setdefault((r.bound, r.policy), []).append(r)
    lines = []
    for (name, pol), rs in by.items():
        ratios = [r.ratio for r in rs if r.ratio is not None]
        rng = f"{min(ratios):.3g} to {max(ratios):.3g}" if ratios else "no ratio"
        missing = sum(r.value is None for r in rs)
        skip = f" (not applied on {missing} of {len(rs)})" if missing else ""
        lines.append(f"| {name} | {rs[0].title} | {rs[0].kind} | {pol} | {rng}{skip} |")
    return (
        "\nEvery bound with a constant in the registry (`cascading ledger` lists them) that "
        "covers CascadeUCB1 or CascadeKL-UCB at the paper's parameters, lower bounds about "
        "every consistent policy with both; empirical / bound over the Table 1 rows "
        "(`tables/bounds_registry.csv` holds every value):\n\n"
        "| bound | title | kind | policy | empirical / bound |\n"
        "| :--- | :--- | :--- | :--- | :--- |\n"
        + "\n".join(lines)
        + "\n\n<details><summary>Every registered bound on every Table 1 row</summary>\n\n"
        + t.markdown()
        + "\n\n</details>\n"
    )


def _bounds_md(ctx: Context) -> str:
    t = ctx.table("bounds", _bounds_table)
    if t is None:
        return ""
    md = (
        "## Bounds against the evidence (Table 1 rows)\n\n"
        "Theorem 4's lower bound is asymptotic (liminf R(n)/log n ≥ coefficient, for consistent "
        "algorithms); it is shown as coefficient × log n at the horizon. Theorem 3 is evaluated "
        "with its constant C = K L C₂(ε)/n^β(ε) + 7 K log log n at the ε that minimises the bound "
        "at n. Ratios are empirical mean regret / bound.\n\n" + t.markdown() + "\n"
    )
    if "bounds_vs_empirical" in ctx.figures:
        md += (
            "\n![Regret against n with the bounds](figures/bounds_vs_empirical.png)\n\n"
            "*Regret against n (log-log, one y-scale for all panels) for every Table 1 "
            "configuration: mean over runs with 95% bands (solid; at this scale most bands are "
            "narrower than the line), Theorems 2 and 3 (dashed) and the asymptotic Theorem 4 "
            "rate (dash-dotted).* "
            "([PDF](figures/bounds_vs_empirical.pdf))\n"
        )
    return md + _registry_md(ctx)


BOUNDS = Section(
    "bounds",
    _bounds_md,
    (("bounds", _bounds_table), ("bounds_registry", _registry_table)),
)
