"""Report section "Instances the searches found", from searches stored with the results.

Searches are read from ``<results>/search/`` (:func:`stored_searches`): every
``<name>/search.json`` (what ``cascading search --out <results>/search/<name>`` writes) and
every ``<name>.json`` (a search file copied there, as the project's ``docs/search/*.json``).
The section shows the worst regret found against n beside sqrt(nL) and sqrt(nLK), the factor
of two policies against K, and the instance where each bound is tightest; left out when no
search is stored.
"""

from __future__ import annotations

from pathlib import Path

from cascading_bandits.reports.report_files import save_figure
from cascading_bandits.reports.search_ledger import weights_text
from cascading_bandits.reports.section_base import Context, Section

__all__ = ["stored_searches", "SEARCH"]


def stored_searches(results: Path) -> dict:
    """Searches stored under ``results/search/``: name -> document, in name order.

    ``<name>/search.json`` (``cascading search --out results/search/<name>``) and
    ``<name>.json`` (a search file copied there, e.g. ``docs/search/factor_vs_K.json``),
    each checked by :func:`cascading_bandits.reports.search_ledger.read_search`.

    Raises
    ------
    ValueError
        Naming the file, for a file that is not a search result, or naming both files when
        ``<name>/search.json`` and ``<name>.json`` both exist.
    """
    from cascading_bandits.reports.search_ledger import read_search

    d = Path(results) / "search"
    if not d.is_dir():
        return {}
    files = {}
    for p in sorted(d.glob("*/search.json")):
        files[p.parent.name] = p
    for p in sorted(d.glob("*.json")):
        if p.stem in files:
            raise ValueError(
                f"two stored searches are named {p.stem!r}: {files[p.stem]} and {p}; "
                "rename or remove one"
            )
        files[p.stem] = p
    return {name: read_search(files[name]) for name in sorted(files)}


def _tightest_md(found) -> list[str]:
    """One table of every ``bound`` search: where each upper bound is tightest."""
    from cascading_bandits.bounds.registry import get_bound
    from cascading_bandits.reports.search_ledger import found_instances

    rows = []
    for name, doc in found.items():
        for f, r in zip(found_instances(doc, name), doc["results"], strict=True):
            if r["objective"] == "bound":
                rows.append((name, f, r))
    if not rows:
        return []
    md = [
        "Where each upper bound is tightest: the instance maximising mean regret / bound, "
        "re-measured on fresh runs:",
        "",
        "| bound | policy | K | L | n | regret / bound (95% CI) | mean regret (95% CI) | "
        "bound at n | weights | search |",
        "| :--- | :--- | ---: | ---: | ---: | :--- | :--- | ---: | :--- | :--- |",
    ]
    for name, f, r in rows:
        pol = r["policies"][0]
        reg = f["regret"][pol]
        ci = f" ({reg['ci_low']:.1f} to {reg['ci_high']:.1f})" if reg["ci_low"] is not None else ""
        b = f["bound_name"]
        try:
            label = get_bound(b).title
        except ValueError:  # a bound no longer registered: its name
            label = str(b)
        bound = "-" if r.get("bound") is None else f"{r['bound']:.1f}"
        md.append(
            f"| {label} | {pol} | {f['K']} | {f['L']} | {f['n']:,} | {r['value']:.3f} "
            f"({r['ci_low']:.3f} to {r['ci_high']:.3f}) | {reg['mean']:.1f}{ci} | {bound} | "
            f"{weights_text(f['weights'])} | `{name}` |"
        )
    return md + [""]


def _other_md(name, res) -> list[str]:
    """A plain table of search results no figure covers (e.g. a ratio at one K)."""
    md = [
        f"Search `{name}`:",
        "",
        "| objective | policies | K | L | n | value (95% CI) | weights |",
        "| :--- | :--- | ---: | ---: | ---: | :--- | :--- |",
    ]
    for r in res:
        md.append(
            f"| {r['objective']} | {', '.join(r['policies'])} | {r['K']} | {len(r['weights'])} "
            f"| {r['settings']['confirm_horizon']:,} | {r['value']:.3g} ({r['ci_low']:.3g} to "
            f"{r['ci_high']:.3g}) | {weights_text(r['weights'])} |"
        )
    return md + [""]


def _search_md(ctx: Context) -> str:
    """The instances the searches found: the worst regret against n beside sqrt(nL) and
    sqrt(nLK), the factor of two policies against K, and where each bound is tightest, from
    stored searches."""
    from cascading_bandits.reports.search_figures import (
        factor_against_K_figure,
        worst_regret_figure,
    )

    found = stored_searches(ctx.s.results)
    if not found:
        return ""
    md = ["## Instances the searches found", ""]
    for name, doc in found.items():
        res = doc["results"]
        kinds = {r["objective"] for r in res}
        sizes = {(len(r["weights"]), r["K"]) for r in res}
        if kinds == {"regret"} and len(sizes) == 1:
            curves = {}
            for r in res:
                curves.setdefault(r["policies"][0], []).append(r)
            L, K = sizes.pop()
            stem = f"search-{name}"
            save_figure(worst_regret_figure(curves, L=L, K=K), ctx.s.out, stem)
            md.append(f"Worst regret found over instances (L = {L}, K = {K}), `{name}`:")
            md.append("")
            md.append("| policy | n | worst regret (95% CI) | sqrt(nL) | sqrt(nLK) | weights |")
            md.append("| :--- | ---: | :--- | ---: | ---: | :--- |")
            for r in res:
                n = r["settings"]["confirm_horizon"]
                w = sorted(set(round(x, 3) for x in r["weights"]), reverse=True)
                md.append(
                    f"| {r['policies'][0]} | {n:,} | {r['value']:.1f} ({r['ci_low']:.1f} to "
                    f"{r['ci_high']:.1f}) | {(n * L) ** 0.5:.0f} | {(n * L * K) ** 0.5:.0f} | "
                    f"{', '.join(f'{x:g}' for x in w)} |"
                )
            md += ["", f"![{stem}](figures/{stem}.png)", ""]
        elif kinds == {"ratio"} and len({r["K"] for r in res}) > 1:
            stem = f"search-{name}"
            save_figure(factor_against_K_figure(res), ctx.s.out, stem)
            a, b = res[0]["policies"]
            md.append(f"Regret ratio {a} / {b} at the worst instance found, against K, `{name}`:")
            md.append("")
            md.append("| K | L | ratio (95% CI) | sqrt(K / K_1) x first | weights |")
            md.append("| ---: | ---: | :--- | ---: | :--- |")
            k1, v1 = res[0]["K"], res[0]["value"]
            for r in res:
                w = sorted(set(round(x, 4) for x in r["weights"]), reverse=True)
                md.append(
                    f"| {r['K']} | {r['L']} | {r['value']:.2f} ({r['ci_low']:.2f} to "
                    f"{r['ci_high']:.2f}) | {v1 * (r['K'] / k1) ** 0.5:.2f} | "
                    f"{', '.join(f'{x:g}' for x in w)} |"
                )
            slope = doc.get("slope_log_factor_vs_log_K")
            if slope is not None:
                md += ["", f"Log-log slope of the ratio against K: {slope:.2f} (sqrt(K): 0.5)."]
            md += ["", f"![{stem}](figures/{stem}.png)", ""]
        elif kinds != {"bound"}:
            md += _other_md(name, res)
    md += _tightest_md(found)
    return "\n".join(md) + "\n" if len(md) > 2 else ""


SEARCH = Section("search", _search_md)
