"""Report section "Scaling in L, Δ and K": the regret ratio between Table 1 configurations that
differ in one parameter, against the ratio of the bounds' log n coefficients (Theorem 2:
sum 12/Δ; Theorem 3 at eps = 0; Theorem 4). Exported as ``tables/scaling.csv``.
"""

from __future__ import annotations

from cascading_bandits.reports import tables as T
from cascading_bandits.reports.section_base import Context, Section

__all__ = ["SCALING"]


_KINDS = {"L": 0, "Delta": 1, "K": 2}


def _scaling_table(ctx: Context) -> T.Table | None:
    if not ctx.data["scaling"]:
        return None
    rows = sorted(ctx.data["scaling"], key=lambda r: (_KINDS.get(r.vary, 3), r.fixed, r.frm, r.to))
    return T.Table(
        "scaling",
        "Regret ratio between Table 1 configurations that differ in one parameter, against the "
        "ratio of the bounds' log n coefficients.",
        ("vary", "fixed", "from → to", "policy", "ours", "Thm 2", "Thm 3", "Thm 4"),
        tuple(
            (
                r.vary.replace("Delta", "Δ"),
                r.fixed.replace("delta", "Δ"),
                f"{r.frm} → {r.to}",
                r.policy,
                T.PM(r.ratio, r.ratio_se, 3),
                T.Num(r.predicted_theorem2, 3),
                T.Num(r.predicted_theorem3, 3),
                T.Num(r.predicted_theorem4, 3),
            )
            for r in rows
        ),
        "llllrrrr",
    )


def _scaling_md(ctx: Context) -> str:
    t = ctx.table("scaling", _scaling_table)
    if t is None:
        return ""
    md = (
        "## Scaling in L, Δ and K against the bounds\n\n"
        "Ratio of regret at the horizon between two Table 1 configurations that differ in one "
        "parameter, against the ratio of the bounds' log n coefficients (Theorem 2: Σ 12/Δ; "
        "Theorem 3 at ε = 0; Theorem 4).\n\n" + t.markdown() + "\n"
    )
    if "scaling" in ctx.figures:
        md += "\n![Scaling](figures/scaling.png)\n"
    return md


SCALING = Section("scaling", _scaling_md, (("scaling", _scaling_table),))
