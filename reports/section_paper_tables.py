"""Report sections "Table 1" and "Table 2": the paper's regret tables reproduced.

Each published cell (Kveton et al., ICML 2015, Section 5.1 Table 1, best-first; Section 5.2
Table 2, worst-first) beside ours at the report's horizon: mean ± standard error over the
runs, the z-score of the difference and the agreement mark of
:func:`reports.tables.compare_table`. Exported as ``tables/table1.csv`` / ``table2.csv``.
"""

from __future__ import annotations

from cascading_bandits.reports import tables as T
from cascading_bandits.reports.paper import table_meta
from cascading_bandits.reports.section_base import Context, Section, pm_cell

__all__ = ["TABLE1", "TABLE2"]


def _compare_table(name: str, title: str):
    def build(ctx: Context) -> T.Table | None:
        rows = ctx.data[name]
        if not rows:
            return None
        by = {}
        for r in rows:
            by.setdefault((r.L, r.K, r.delta), {})[r.policy] = r
        out = []
        for (L, K, d), cells in by.items():
            line = [str(L), str(K), f"{d:g}"]
            for pol in ("cascade-ucb1", "cascade-klucb"):
                c = cells[pol]
                line += [
                    pm_cell(c.ours_mean, c.ours_se),
                    T.PM(c.paper_mean, c.paper_se),
                    T.Num(c.z, 2),
                    c.mark,
                ]
            out.append(tuple(line))
        meta = table_meta(name)
        return T.Table(
            name,
            f"{title}: regret at n = {ctx.s.horizon:,}, mean ± standard error over {ctx.s.runs} "
            f"runs, against the paper's (n = {meta['horizon']:,}, {meta['runs']} runs); "
            "z = (ours − paper) / sqrt(se_ours² + se_paper²).",
            ("L", "K", "Δ", "UCB1 ours", "UCB1 paper", "UCB1 z", "UCB1 mark")
            + ("KL-UCB ours", "KL-UCB paper", "KL-UCB z", "KL-UCB mark"),
            tuple(out),
            "rrrrrrlrrrl",
        )

    return build


def _compare_md(name: str, title: str, builder):
    def md(ctx: Context) -> str:
        meta = table_meta(name)
        t = ctx.table(name, builder)
        return (
            f"## {title}\n\n"
            f"Regret at n = {ctx.s.horizon:,} on B_LB(L, K, p = {meta['p']:g}, Δ), mean ± standard "
            f"error over {ctx.s.runs} runs, next to the paper's (n = {meta['horizon']:,}, "
            f"{meta['runs']} runs). z = (ours − paper) / sqrt(se_ours² + se_paper²); "
            "|z| < 2 ok, < 3 borderline, else disagree.\n\n"
            + (t.markdown() + "\n" if t else "*No stored results for this table.*\n")
        )

    return md


def _section(name: str, title: str) -> Section:
    table = _compare_table(name, title)
    return Section(name, _compare_md(name, title, table), ((name, table),))


TABLE1 = _section("table1", "Table 1: best-first order (Section 5.1)")
TABLE2 = _section("table2", "Table 2: worst-first order (Section 5.2)")
