"""Report section "CascadeTS alongside the paper's policies": Thompson sampling beside CascadeUCB1
and CascadeKL-UCB on the Table 1 configurations, best-first. Exported as
``tables/policies.csv``; its numbers are in report.json under ``policies``.
"""

from __future__ import annotations

from cascading_bandits.reports import tables as T
from cascading_bandits.reports.section_base import Context, Section

__all__ = ["POLICIES"]


def _policies_table(ctx: Context) -> T.Table | None:
    rows = []
    pols = ("cascade-ucb1", "cascade-klucb", "cascade-ts")
    for b in ctx.data["bounds"]:
        cells = [
            T.select_one(
                ctx.data["all"],
                model="cascade",
                order="best-first",
                L=b.L,
                K=b.K,
                delta=b.delta,
                policy=pol,
            )
            for pol in pols
        ]
        if cells[2] is None:
            continue
        rows.append(
            (str(b.L), str(b.K), f"{b.delta:g}")
            + tuple(T.PM(*T.mean_se(T.final_regret(r))) if r is not None else "-" for r in cells)
        )
    if not rows:
        return None
    return T.Table(
        "policies",
        "CascadeTS alongside the paper's policies, best-first: regret at the horizon, mean ± "
        "standard error.",
        ("L", "K", "Δ", "CascadeUCB1", "CascadeKL-UCB", "CascadeTS"),
        tuple(rows),
    )


def _policies_json(ctx: Context) -> list:
    """The CascadeTS table's numbers: one dict per configuration and policy."""
    t = ctx.table("policies", _policies_table)
    if t is None:
        return []
    out = []
    for row in t.rows:
        L, K, d = int(row[0]), int(row[1]), float(row[2])
        for pol, cell in zip(("cascade-ucb1", "cascade-klucb", "cascade-ts"), row[3:], strict=True):
            mean, se = (cell.mean, cell.se) if isinstance(cell, T.PM) else (None, None)
            out.append({"L": L, "K": K, "delta": d, "policy": pol, "mean": mean, "se": se})
    return out


def _policies_md(ctx: Context) -> str:
    if "policies" not in ctx.figures:
        return ""
    t = ctx.table("policies", _policies_table)
    return (
        "## CascadeTS alongside the paper's policies\n\n"
        "Thompson sampling with Beta(1 + clicks, 1 + non-clicks) posteriors, same observation "
        "model, best-first, on Table 1 configurations.\n\n"
        + (t.markdown() + "\n\n" if t else "")
        + "The figure shows three of these rows; regret at n, mean ± standard error.\n\n"
        "![CascadeTS](figures/policies.png)\n"
    )


POLICIES = Section("policies", _policies_md, (("policies", _policies_table),), _policies_json)
