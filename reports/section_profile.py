"""Report section "Where the bounds lose": the proofs of Theorems 2 and 3 profiled link by link.

Built by :func:`reports.profile_report.where_bounds_lose_section` from the proof chains stored
under ``<results>/profile`` (``cascading report --profile`` computes them) and the long runs
under ``<results>/asymptotic``; when none are stored, a note says how to get them.
"""

from __future__ import annotations

from pathlib import Path

from cascading_bandits.reports.report_files import save_figure
from cascading_bandits.reports.section_base import Context, Section

__all__ = ["PROFILE"]


def _profile_md(ctx: Context) -> str:
    from cascading_bandits.reports.profile_report import (
        load_asymptotic,
        profile_chains,
        where_bounds_lose_section,
    )

    chains = profile_chains(ctx.s.results)
    if not chains:
        return (
            "## Where the bounds lose\n\n"
            "No proof chains are stored with these results. `cascading report --profile` "
            "profiles the proofs of Theorems 2 and 3 on B_LB(16, 2, 0.2, 0.15) and "
            "B_LB(16, 8, 0.2, 0.075), both orders (a few minutes), and `cascading profile` "
            "profiles any instance.\n"
        )
    adir = Path(ctx.s.results) / "asymptotic"
    asym = load_asymptotic(adir) if adir.is_dir() else None
    md, figs = where_bounds_lose_section(chains, asym or None)
    for stem, fig in figs.items():
        save_figure(fig, ctx.s.out, stem)
        link = f"![{stem}](figures/{stem}.png)"
        tagged = f"Figure: `{stem}`."
        md = md.replace(tagged, f"Figure:\n\n{link}\n") if tagged in md else md + f"\n{link}\n"
    return md if md.endswith("\n") else md + "\n"


PROFILE = Section("profile", _profile_md)
