"""Report section "Ledger": every registered bound, 2015 and later, against the evidence.

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
    The same ledger on every instance the stored searches found
    (:func:`reports.section_search.stored_searches`), each at the search's confirmation
    horizon, beside the mean regret (and interval) the search measured there on fresh runs
    and the ratio empirical / bound (:mod:`cascading_bandits.reports.search_ledger`); a
    subsection of the ledger, exported as ``tables/ledger_found.csv`` and ``.tex``.
"""

from __future__ import annotations

from cascading_bandits.reports import tables as T
from cascading_bandits.reports.report_cache import cache_load, cache_store, code_version
from cascading_bandits.reports.search_ledger import weights_text
from cascading_bandits.reports.section_base import Section
from cascading_bandits.reports.section_search import stored_searches

__all__ = ["measured_policy", "ledger_values", "found_ledger_values", "LEDGER", "LEDGER_FOUND"]


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
    """Ledger rows per Table 1 instance at the report's horizon, cached in the results
    directory and computed once per report (the table and report.json read them).

    Returns
    -------
    list of dict, one per (instance, bound): the instance (L, K, p, delta), the ledger
    row's fields, and ``empirical`` (the measured mean regret it is compared with, or None).
    """
    return ctx.once("ledger", lambda: _ledger_values(ctx))


def _ledger_cached(results, insts: list, n: int) -> list:
    """``bounds.later.ledger`` of each instance ``[L, K, p, delta]`` of ``insts`` at ``n``,
    from the results directory's cache or computed and cached there."""
    from cascading_bandits.bounds.instance import b_lb
    from cascading_bandits.bounds.later import ledger
    from cascading_bandits.bounds.registry import bound_names

    key = {
        "code": code_version("bounds"),
        "bounds": list(bound_names()),
        "n": n,
        "instances": insts,
    }
    values = cache_load(results, "ledger", key)
    if values is None:
        values = [ledger(b_lb(*i), n) for i in insts]
        cache_store(results, "ledger", key, values)
    return values


def _ledger_early(ctx) -> None:
    """The ledger's values, computed and cached while the simulation runs: they depend on
    the Table 1 instances and the report's horizon only, the instances and horizon
    :func:`_ledger_values` then asks for (the rows of ``reports.tables.bound_rows``, in the
    paper's order). At the paper's scale they cost about 4 CPU seconds (the first compiles
    of bounds.later's functions included), which were spent on one core after the
    simulation."""
    p = float(T.table_meta("table1")["p"])
    insts = []
    for c in T.paper_table("table1"):
        inst = [c.L, c.K, p, c.delta]
        if inst not in insts:
            insts.append(inst)
    _ledger_cached(ctx.s.results, insts, int(ctx.s.horizon))


def _ledger_values(ctx) -> list[dict]:
    rows = ctx.data["bounds"]
    if not rows:
        return []
    n = rows[0].n
    # lists, not tuples: the key is compared with its JSON round trip
    insts = [[b.L, b.K, b.p, b.delta] for b in rows]
    values = _ledger_cached(ctx.s.results, insts, n)
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
    """One row per bound: its value at n and the ratio empirical / bound, each as its
    smallest and largest over the same Table 1 instances (those where the bound applies)."""
    vals = ledger_values(ctx)
    if not vals:
        return None
    names = list(dict.fromkeys((r["name"], r["source"]) for r in vals))
    total = len({(r["L"], r["K"], r["delta"]) for r in vals})
    body = []
    for name, source in names:
        mine = [r for r in vals if (r["name"], r["source"]) == (name, source)]
        r0 = mine[0]
        values = [r["value"] for r in mine]
        ratios = [r["empirical"] / r["value"] for r in mine if r["empirical"] and r["value"] > 0]
        body.append(
            (
                name,
                source,
                f"{r0['kind']}, gap-{r0['gap']}, {r0['form']}",
                f"{len(mine)} of {total}",
                T.Num(min(values), 4, sig=True),
                T.Num(max(values), 4, sig=True),
                {"klucb": "KL-UCB", "ucb1": "UCB1", None: "-"}[r0["measured"]],
                T.Num(min(ratios), 3, sig=True) if ratios else "-",
                T.Num(max(ratios), 3, sig=True) if ratios else "-",
            )
        )
    p = {r["p"] for r in vals}
    p_text = f"p = {p.pop():g}" if len(p) == 1 else "p as in Table 1"
    return T.Table(
        "ledger",
        f"Every bound at n = {vals[0]['n']:,} on the {total} Table 1 instances B_LB(L, K, "
        f"{p_text}, Δ): its value at n and the ratio empirical mean regret / bound, each "
        "as its smallest and largest over the instances where the bound applies (their "
        "number in the column instances).",
        ("bound", "source", "kind", "instances", "value at n, min", "value at n, max", "vs")
        + ("empirical / bound, min", "empirical / bound, max"),
        tuple(body),
        "lllrrrlrr",
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


def found_ledger_values(ctx) -> list[dict]:
    """Ledger rows on every instance the stored searches found, beside the regret measured
    there (:func:`cascading_bandits.reports.search_ledger.ledger_on_instance`), cached.

    Returns
    -------
    list of dict, one per (search, instance, bound), in the order of :func:`stored_searches`
    and of each search's results.
    """
    return ctx.once("ledger_found", lambda: _found_ledger_values(ctx))


def _found_ledger_values(ctx) -> list[dict]:
    from cascading_bandits.bounds.instance import CascadeInstance
    from cascading_bandits.bounds.later import ledger
    from cascading_bandits.bounds.registry import bound_names
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


LEDGER = Section(
    "ledger", _ledger_md, (("ledger", _ledger_table),), _ledger_json, early=_ledger_early
)
LEDGER_FOUND = Section(
    "ledger_found",
    _ledger_found_md,
    (("ledger_found", _ledger_found_table),),
    _ledger_found_json,
)
