"""Report section "Verification": every claim of the paper that ``cascading verify`` checks,
with its method, domain, number of instances, smallest slack and verdict, and a line for
each claim that fails. Exported as ``tables/verify.csv``.
"""

from __future__ import annotations

from cascading_bandits.reports import tables as T
from cascading_bandits.reports.section_base import Context, Section, verdict_sentence

__all__ = ["VERIFICATION"]


def _verify_table(ctx: Context) -> T.Table | None:
    v = ctx.verify
    if not v.get("available"):
        return None
    return T.Table(
        "verify",
        "Every claim of the paper checked by cascading verify: method, domain, number of "
        "instances, smallest slack and verdict.",
        ("claim", "paper", "method", "domain", "instances", "min slack", "verdict"),
        tuple(
            (
                f"`{d.get('claim_id')}`",
                str(d.get("reference", "")),
                str(d.get("method", "")),
                str(d.get("domain", "")),
                str(d.get("instances", "")),
                T.Num(d.get("min_slack"), 4, sig=True) if d.get("min_slack") is not None else "-",
                str(d.get("status")),
            )
            for d in v["verdicts"]
        ),
        "lllllrl",
    )


def _verify_md(ctx: Context) -> str:
    v = ctx.verify
    head = "## Verification (`cascading verify`)\n\n"
    if not v.get("available"):
        return head + (
            "*`verify` is not available in this checkout, so no claim was checked here.* "
            f"({v.get('reason', '')})\n"
        )
    t = ctx.table("verify", _verify_table)
    md = head + verdict_sentence(v) + "\n\n" + t.markdown() + "\n"
    failed = [d for d in v["verdicts"] if d.get("status") == "fails"]
    for d in failed:
        md += f"\n**`{d['claim_id']}` fails**: {d.get('notes') or d.get('statement', '')}\n"
    return md


VERIFICATION = Section("verification", _verify_md, (("verify", _verify_table),))
