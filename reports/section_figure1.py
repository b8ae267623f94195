"""Report section "Figure 1": the DBN click model, CascadeKL-UCB against a ranked-bandit policy
(Kveton et al., ICML 2015, Sections 5.3-5.4): regret at the horizon of both and their ratio,
paired over runs. Exported as ``tables/figure1.csv``.
"""

from __future__ import annotations

from cascading_bandits.reports import tables as T
from cascading_bandits.reports.paper import figure1_meta
from cascading_bandits.reports.section_base import Context, Section

__all__ = ["FIGURE1"]


def _dbn_table(ctx: Context) -> T.Table | None:
    if not ctx.data["dbn"]:
        return None
    return T.Table(
        "figure1",
        "DBN click model: regret at the horizon of CascadeKL-UCB and a ranked-bandit policy, "
        "and their paired ratio.",
        (
            "ν",
            "γ",
            "ranked policy",
            "CascadeKL-UCB",
            "ranked",
            "ranked / cascade",
            f"in [{T.ABOUT_THREE[0]}, {T.ABOUT_THREE[1]}]",
        ),
        tuple(
            (
                f"{r.nu:g}",
                f"{r.gamma:g}",
                r.ranked_policy,
                T.PM(r.cascade_mean, r.cascade_se),
                T.PM(r.ranked_mean, r.ranked_se),
                T.PM(r.ratio, r.ratio_se, 2),
                "yes" if r.about_three else "no",
            )
            for r in ctx.data["dbn"]
        ),
        "rrlrrrr",
    )


def _dbn_md(ctx: Context) -> str:
    t = ctx.table("figure1", _dbn_table)
    if t is None:
        return ""
    f1 = figure1_meta()
    md = (
        "## Figure 1: the DBN model, CascadeKL-UCB against RankedKL-UCB (Sections 5.3-5.4)\n\n"
        f"DBN click model on B_LB(L = {f1['L']}, K = {f1['K']}, p = {f1['p']:g}, "
        f"Δ = {f1['delta']:g}) with satisfaction ν and persistence γ. The ratio is paired over "
        "runs (both policies face the same users). The figure shows the simulator's default "
        "ranked-bandit reading (`ranked-klucb`); other readings it stores appear in the table.\n\n"
        + t.markdown()
        + "\n"
    )
    if "figure1" in ctx.figures:
        md += "\n![Figure 1](figures/figure1.png)\n"
    return md


FIGURE1 = Section("figure1", _dbn_md, (("figure1", _dbn_table),))
