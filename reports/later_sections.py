"""Report sections beyond the paper: the ledger of later bounds, and where the bounds lose.

``ledger``
    Every bound of :func:`cascading_bandits.bounds.later.ledger` (every registered bound that
    applies: the paper's, the later literature's and the ones derived here, upper and lower,
    gap-dependent and gap-free) at the report's horizon on the Table 1 instances, with the
    ratio of the empirical regret to each bound. A bound is compared with the policy it covers
    at the paper's parameters (:meth:`bounds.registry.Bound.covers_policy`), a lower bound
    about every consistent policy with CascadeKL-UCB; a newly registered bound appears without
    editing the report. The values are cached in the results directory (keyed by the code of
    ``bounds``, the registered names and the inputs).
``ledger_found``
    The same ledger on every instance the stored searches found (the factor against K, the
    worst regret, the instance where a bound is tightest), each at the search's confirmation
    horizon, beside the mean regret (and interval) the search measured there on fresh runs
    and the ratio empirical / bound (:mod:`cascading_bandits.reports.search_ledger`); a
    subsection of the ledger, exported as ``tables/ledger_found.csv`` and ``.tex``.
``profile``
    The section "Where the bounds lose" of :mod:`cascading_bandits.reports.profile_report`,
    built from proof chains stored under ``<results>/profile`` (``cascading report
    --profile`` computes them) and long runs under ``<results>/asymptotic``; left out,
    with a note saying how to get it, when none are stored.
``search``
    Instances found by ``cascading search --out <results>/search/<name>``: the worst regret
    found against n beside sqrt(nL) and sqrt(nLK), the factor of two policies against K, the
    instance where each bound is tightest.

Stored searches (:func:`stored_searches`) are read from ``<results>/search/``: every
``<name>/search.json`` (what ``cascading search --out <results>/search/<name>`` writes) and
every ``<name>.json`` (a search file copied there, as the project's ``docs/search/*.json``).
"""

from __future__ import annotations

import json
from pathlib import Path

from cascading_bandits.reports import tables as T
from cascading_bandits.reports.search_ledger import weights_text

__all__ = ["ledger_values", "found_ledger_values", "profile_chains", "stored_searches"]

#: the measured policies a ledger row may be compared with, first covered wins: a lower
#: bound that holds for every (consistent, uniformly good) policy is compared with
#: CascadeKL-UCB, the best policy measured
_MEASURED = (("cascade-klucb", "klucb"), ("cascade-ucb1", "ucb1"))


def measured_policy(name: str) -> str | None:
    """``"klucb"``, ``"ucb1"`` or None: the Table 1 policy a registered bound covers at the
    paper's parameters (a bound about every policy: CascadeKL-UCB)."""
    from cascading_bandits.bounds.registry import get_bound

    try:
        b = get_bound(name)
    except ValueError:  # unregistered since the rows were computed
        return None
    for pol, short in _MEASURED:
        if b.covers_policy(*T.paper_policy(pol)):
            return short
    return None


def ledger_values(ctx) -> list[dict]:
    """Ledger rows per Table 1 instance at the report's horizon, cached.

    Returns
    -------
    list of dict, one per (instance, bound): the instance (L, K, p, delta), the ledger
    row's fields, and ``empirical`` (the measured mean regret it is compared with, or None).
    """
    from cascading_bandits.bounds.instance import b_lb
    from cascading_bandits.bounds.later import ledger
    from cascading_bandits.bounds.registry import bound_names
    from cascading_bandits.reports.build import cache_load, cache_store, code_version

    rows = ctx.data["bounds"]
    if not rows:
        return []
    n = rows[0].n
    # lists, not tuples: the key is compared with its JSON round trip
    insts = [[b.L, b.K, b.p, b.delta] for b in rows]
    key = {
        "code": code_version("bounds"),
        "bounds": list(bound_names()),
        "n": n,
        "instances": insts,
    }
    values = cache_load(ctx.s.results, "ledger", key)
    if values is None:
        values = [ledger(b_lb(*i), n) for i in insts]
        cache_store(ctx.s.results, "ledger", key, values)
    out = []
    for b, inst_rows in zip(rows, values, strict=True):
        emp = {"ucb1": b.ucb1_mean, "klucb": b.klucb_mean}
        for r in inst_rows:
            which = measured_policy(r.get("bound"))
            out.append(
                {
                    "L": b.L,
                    "K": b.K,
                    "p": b.p,
                    "delta": b.delta,
                    "n": n,
                    **r,
                    "measured": which,
                    "empirical": None if which is None else emp[which],
                }
            )
    return out


def _ledger_table(ctx) -> T.Table | None:
    vals = ledger_values(ctx)
    if not vals:
        return None
    names = list(dict.fromkeys((r["name"], r["source"]) for r in vals))
    first = (vals[0]["L"], vals[0]["K"], vals[0]["delta"])
    body = []
    for name, source in names:
        mine = [r for r in vals if (r["name"], r["source"]) == (name, source)]
        r0 = mine[0]
        at_first = [r for r in mine if (r["L"], r["K"], r["delta"]) == first]
        ratios = [r["empirical"] / r["value"] for r in mine if r["empirical"] and r["value"] > 0]
        body.append(
            (
                name,
                source,
                f"{r0['kind']}, gap-{r0['gap']}, {r0['form']}",
                T.Num(at_first[0]["value"], 4, sig=True) if at_first else "-",
                {"klucb": "KL-UCB", "ucb1": "UCB1", None: "-"}[r0["measured"]],
                f"{min(ratios):.3g} to {max(ratios):.3g}" if ratios else "-",
            )
        )
    L, K, d = first
    return T.Table(
        "ledger",
        f"Every bound at n = {vals[0]['n']:,} on the Table 1 instances: its value on "
        f"B_LB({L}, {K}, 0.2, {d:g}) and the ratio empirical regret / bound over all rows.",
        ("bound", "source", "kind", f"value, B_LB({L},{K},.2,{d:g})", "vs", "empirical / bound"),
        tuple(body),
        "llllll",
    )


def _ledger_found_md(ctx) -> str:
    t = ctx.table("ledger_found", _ledger_found_table)
    if t is None:
        return ""
    level = "###" if ctx.table("ledger", _ledger_table) is not None else "##"
    names = sorted({r["search"] for r in found_ledger_values(ctx)})
    return (
        f"{level} Ledger on the instances the searches found\n\n"
        "Every bound again, now on each instance a stored search found "
        f"({', '.join(f'`{x}`' for x in names)}; see the next section), at the horizon the "
        "search re-measured it, beside the mean regret of its fresh runs and its interval. "
        "An upper bound is compared with the regret of the policy it bounds, a lower bound "
        "with CascadeKL-UCB's (else CascadeUCB1's); a policy the search did not run gives "
        "no ratio, and neither does a search stored before per-policy intervals were "
        "recorded (the interval columns are then empty).\n\n" + t.markdown() + "\n"
    )


def _ledger_found_json(ctx) -> list:
    return found_ledger_values(ctx)


def _ledger_md(ctx) -> str:
    t = ctx.table("ledger", _ledger_table)
    if t is None:
        return ""
    return (
        "## Ledger: the 2015 bounds beside the later literature\n\n"
        "Every registered bound that applies (`cascading ledger` lists them), at the report's "
        "horizon. `constant` rows carry their constants; `order` rows are rates with the "
        "constant and log factors dropped (their sources' constants were not retrieved), so "
        "only their growth is comparable. A bound is compared with the policy it covers at the "
        "paper's parameters (CascadeUCB1 with alpha = 1.5, CascadeKL-UCB with c = 3); lower "
        "bounds that hold for every consistent policy are compared with CascadeKL-UCB; bounds "
        "of algorithms the paper's experiments do not run have no ratio. A ratio above 1 for "
        "an upper bound would be a violation; for an `order` row it says nothing.\n\n"
        + t.markdown()
        + "\n"
    )


def _ledger_json(ctx) -> list:
    return ledger_values(ctx)


def profile_chains(results: Path) -> list[dict]:
    """Proof chains stored under ``results/profile`` (``*.json``, as written by
    :func:`cascading_bandits.reports.profile_report.profile_grid`), in file-name order."""
    d = Path(results) / "profile"
    if not d.is_dir():
        return []
    return [json.loads(p.read_text()) for p in sorted(d.glob("*.json"))]


def _profile_md(ctx) -> str:
    from cascading_bandits.reports.build import _save_figure
    from cascading_bandits.reports.profile_report import load_asymptotic, where_bounds_lose_section

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
        _save_figure(fig, ctx.s.out, stem)
        link = f"![{stem}](figures/{stem}.png)"
        tagged = f"Figure: `{stem}`."
        md = md.replace(tagged, f"Figure:\n\n{link}\n") if tagged in md else md + f"\n{link}\n"
    return md if md.endswith("\n") else md + "\n"


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


def found_ledger_values(ctx) -> list[dict]:
    """Ledger rows on every instance the stored searches found, beside the regret measured
    there (:func:`cascading_bandits.reports.search_ledger.ledger_on_instance`), cached.

    Returns
    -------
    list of dict, one per (search, instance, bound), in the order of :func:`stored_searches`
    and of each search's results.
    """
    from cascading_bandits.bounds.instance import CascadeInstance
    from cascading_bandits.bounds.later import ledger
    from cascading_bandits.bounds.registry import bound_names
    from cascading_bandits.reports.build import cache_load, cache_store, code_version
    from cascading_bandits.reports.search_ledger import found_instances, ledger_on_instance

    found = [
        f
        for name, doc in stored_searches(ctx.s.results).items()
        for f in found_instances(doc, name)
    ]
    if not found:
        return []
    insts = [[f["weights"], f["K"], f["n"]] for f in found]
    key = {"code": code_version("bounds"), "bounds": list(bound_names()), "instances": insts}
    values = cache_load(ctx.s.results, "ledger-found", key)
    if values is None:
        values = [ledger(CascadeInstance(tuple(w), K), n) for w, K, n in insts]
        cache_store(ctx.s.results, "ledger-found", key, values)
    return [r for f, rows in zip(found, values, strict=True) for r in ledger_on_instance(f, rows)]


def _found_by(r) -> str:
    if r["objective"] == "bound":
        return f"tightest {r['bound_name']} ({r['policies'][0]})"
    if r["objective"] == "ratio":
        return "worst ratio " + " / ".join(r["policies"])
    return f"worst regret ({r['policies'][0]})"


def _ledger_found_table(ctx) -> T.Table | None:
    vals = found_ledger_values(ctx)
    if not vals:
        return None
    body = []
    for r in vals:
        body.append(
            (
                r["search"],
                str(r["index"] + 1),
                _found_by(r),
                f"K={r['K']}, L={r['L']}: {weights_text(r['weights'])}",
                str(r["n"]),
                r["name"],
                f"{r['kind']}, gap-{r['gap']}, {r['form']}",
                T.Num(r["value"], 4, sig=True),
                r["measured"] or "-",
                T.Num(r["empirical"], 1),
                T.Num(r["empirical_low"], 1),
                T.Num(r["empirical_high"], 1),
                T.Num(r["ratio"], 3, sig=True),
                T.Num(r["ratio_low"], 3, sig=True),
                T.Num(r["ratio_high"], 3, sig=True),
            )
        )
    conf = {round(100 * r["confidence"]) for r in vals}
    c = f"{conf.pop()}%" if len(conf) == 1 else "the search's"
    return T.Table(
        "ledger_found",
        "Every bound on each instance the stored searches found, at the search's "
        "confirmation horizon n, beside the mean regret measured there on fresh runs "
        f"({c} t interval) and the ratio empirical / bound.",
        (
            "search",
            "#",
            "found as",
            "instance",
            "n",
            "bound",
            "kind",
            "value at n",
            "vs",
            "empirical",
            "empirical low",
            "empirical high",
            "empirical / bound",
            "ratio low",
            "ratio high",
        ),
        tuple(body),
        "lrllrllrlrrrrrr",
    )


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


def _search_md(ctx) -> str:
    """The instances the searches found: the worst regret against n beside sqrt(nL) and
    sqrt(nLK), the factor of two policies against K, and where each bound is tightest, from
    stored searches."""
    from cascading_bandits.reports.build import _save_figure
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
            _save_figure(worst_regret_figure(curves, L=L, K=K), ctx.s.out, stem)
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
            _save_figure(factor_against_K_figure(res), ctx.s.out, stem)
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
