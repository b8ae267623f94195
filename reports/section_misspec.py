"""Report section "Misspecification: real queries under PBM and DCM users".

Rendered by :mod:`reports.misspec` from the stored campaign shipped as package data
(``reports/data/misspecification.json``, written by ``benchmarks/misspecification.py``); nothing
is simulated here. Its two figures are cached like the report's others, keyed by the drawing
code, matplotlib's version and a hash of the campaign. Tables ``misspec_policies`` and
``misspec_bounds`` are exported as CSV and LaTeX.
"""

from __future__ import annotations

import hashlib
import json

from cascading_bandits.reports import tables as T
from cascading_bandits.reports.report_cache import cached_figures, code_version
from cascading_bandits.reports.section_base import Context, Section

__all__ = ["MISSPEC"]


def _doc(ctx: Context):
    from cascading_bandits.reports.misspec import MISSPEC_PATH, load_misspec

    return ctx.once("misspec", lambda: load_misspec() if MISSPEC_PATH.exists() else None)


def _policies_table(ctx: Context) -> T.Table | None:
    from cascading_bandits.reports.misspec import policy_label, policy_rows

    doc = _doc(ctx)
    if doc is None:
        return None
    return T.Table(
        "misspec_policies",
        "Real queries under each click model: mean regret over queries at the horizon, wins "
        "(smallest mean regret) and decisive wins (paired 95% interval excludes 0).",
        ("users", "policy", "mean R(n)", "median R(n)", "wins", "decisive", "queries"),
        tuple(
            (
                r["model"],
                policy_label(r["policy"]),
                T.Num(r["mean_regret"], 1),
                T.Num(r["median_regret"], 1),
                r["wins"],
                r["decisive_wins"],
                r["queries"],
            )
            for r in policy_rows(doc)
        ),
        "llrrrrr",
    )


def _bounds_table(ctx: Context) -> T.Table | None:
    from cascading_bandits.reports.misspec import bound_rows

    doc = _doc(ctx)
    if doc is None:
        return None
    return T.Table(
        "misspec_bounds",
        "Each covering upper bound per click model: proved for these users or not, cells "
        "whose instance premises hold, and the verdicts on the measured regret.",
        ("users", "bound", "proved", "premises hold", "holds", "violated", "undecided"),
        tuple(
            (
                b["model"],
                b["bound"],
                "yes" if b["proved_for_model"] else "no",
                f"{b['instance_ok']}/{b['cells']}",
                b["holds"],
                b["violated"],
                b["undecided"],
            )
            for b in bound_rows(doc)
        ),
        "lllrrrr",
    )


def _markdown(ctx: Context) -> str:
    import matplotlib

    from cascading_bandits.reports import misspec as R

    doc = _doc(ctx)
    if doc is None:
        return ""
    blob = json.dumps(doc, sort_keys=True).encode()
    key = {
        "code": code_version("reports.misspec", "reports.figures"),
        "matplotlib": matplotlib.__version__,
        "data": hashlib.sha256(blob).hexdigest(),
    }
    cached_figures(
        ctx.s.results,
        ctx.s.out,
        "figure-misspec",
        key,
        lambda: {"misspec_ratio": R.plot_ratio(doc), "misspec_curves": R.plot_curves(doc)},
    )
    names = {"ratio": "figures/misspec_ratio.png", "curves": "figures/misspec_curves.png"}
    return "## Misspecification: real queries under PBM and DCM users\n\n" + R.misspec_markdown(
        doc, names
    )


def _json(ctx: Context):
    from cascading_bandits.reports.misspec import bound_rows, policy_rows

    doc = _doc(ctx)
    if doc is None:
        return None
    return {
        "source": "reports/data/misspecification.json",
        "command": doc.get("command"),
        "horizon": doc["horizon"],
        "runs": doc["runs"],
        "policies": policy_rows(doc),
        "bounds": bound_rows(doc),
    }


MISSPEC = Section(
    "misspecification",
    _markdown,
    (("misspec_policies", _policies_table), ("misspec_bounds", _bounds_table)),
    _json,
    # stored data only: its figures are drawn (and cached) while the simulation runs
    early=_markdown,
)
