"""Report section "How this report was made": when, by which command and commit, at which
scale, and where the time went (simulation, tables, verify, figures), with the compute time
the stored cells' provenance records.
"""

from __future__ import annotations

import datetime as _dt
import platform

from cascading_bandits.reports.section_base import Context, Section, git_commit

__all__ = ["PROVENANCE", "original_seconds"]


def _recorded_seconds(data: dict) -> list[float]:
    """The compute time of each stored cell that records one in its provenance."""
    cpu = [r.provenance.get("seconds") for r in data["all"] if hasattr(r, "provenance")]
    return [float(c) for c in cpu if isinstance(c, (int, float))]


def original_seconds(data: dict) -> float | None:
    """The compute time the stored cells' provenance records, summed (None if none does)."""
    cpu = _recorded_seconds(data)
    return sum(cpu) if cpu else None


def _timing_line(ctx: Context) -> str:
    s, tm = ctx.s, ctx.s.timings
    sim = sum(v for k, v in tm.items() if k.startswith("simulate:"))
    total_cells = sum(t for _, t in s.reused.values())
    reused = sum(r for r, _ in s.reused.values())
    cpu = _recorded_seconds(ctx.data)
    if total_cells and reused == total_cells:
        simtxt = f"simulation reused from stored results ({reused} cells, loaded in {sim:.1f} s)"
    elif reused:
        simtxt = (
            f"simulation {sim:.1f} s ({total_cells - reused} cells computed, {reused} reused "
            "from stored results)"
        )
    else:
        simtxt = f"simulation {sim:.1f} s"
    cached = [k for k in ("tables", "verify", "figures") if s.cached.get(k)]
    parts = [simtxt]
    for k in ("tables", "verify", "figures", "total"):
        if k == "verify" and "verify_beside" in tm:
            parts.append(
                f"verify {tm['verify_beside']:.1f} s beside the simulation "
                f"(then {tm['verify']:.1f} s waited)"
            )
        elif k in tm:
            parts.append(f"{k} {tm[k]:.1f} s" + (" (cached)" if k in cached else ""))
    line = "- wall time: " + ", ".join(parts)
    # a reused result costs ~0 s here; its provenance keeps what computing it took
    if cpu:
        line += (
            f"\n- compute time recorded in the stored cells' provenance: {sum(cpu):.1f} s "
            f"over {len(cpu)} cells (summed over workers)"
        )
    return line


def _provenance_md(ctx: Context) -> str:
    s = ctx.s
    return (
        "## How this report was made\n\n"
        f"- generated {_dt.datetime.now(_dt.UTC).strftime('%Y-%m-%d %H:%M UTC')} by "
        f"`{s.command or 'cascading_bandits.reports.build.build_report'}`, git commit "
        f"`{git_commit()}`, Python {platform.python_version()}\n"
        f"- scale: n = {s.horizon:,} steps, {s.runs} runs per cell, root seed {s.seed}; "
        f"stored results in `{s.results}`\n"
        f"{_timing_line(ctx)}\n"
        "- every table is also in `tables/` as CSV (full precision) and LaTeX (booktabs)\n"
    )


PROVENANCE = Section("provenance", _provenance_md, reads_verify=True)
