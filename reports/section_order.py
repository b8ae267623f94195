"""Report section "Worst-first against best-first": regret in the worst-first order over the
best-first one (Table 2 / Table 1), ours and the paper's. Exported as ``tables/order.csv``.
"""

from __future__ import annotations

from cascading_bandits.reports import tables as T
from cascading_bandits.reports.section_base import Context, Section

__all__ = ["ORDER"]


def _order_table(ctx: Context) -> T.Table | None:
    if not ctx.data["order"]:
        return None
    return T.Table(
        "order",
        "Worst-first over best-first regret at the horizon (Table 2 / Table 1), ours and the "
        "paper's.",
        ("L", "K", "Δ", "policy", "ours worst/best", "paper worst/best"),
        tuple(
            (
                str(r.L),
                str(r.K),
                f"{r.delta:g}",
                r.policy,
                T.PM(r.ratio, r.ratio_se, 3),
                T.Num(r.paper_ratio, 3),
            )
            for r in ctx.data["order"]
        ),
        "rrrlrr",
    )


def _order_md(ctx: Context) -> str:
    t = ctx.table("order", _order_table)
    if t is None:
        return ""
    md = "## Worst-first against best-first (Table 2 / Table 1)\n\n" + t.markdown() + "\n"
    if "order" in ctx.figures:
        md += "\n![Worst-first against best-first](figures/order.png)\n"
    return md


ORDER = Section("order", _order_md, (("order", _order_table),))
