"""``cascading ledger``: every applicable regret bound for one instance at one horizon.

Examples::

    cascading ledger                                   # B_LB(16, 2, 0.2, 0.15), n = 1e5
    cascading ledger --L 16 --K 2 --p 0.2 --delta 0.15 --horizon 100000
    cascading ledger --weights 0.5,0.3,0.2,0.1 --K 2 --horizon 1e6 --json
    cascading ledger --from-search docs/search/tightest_theorem2.json
    cascading ledger --instance yandex:4102451:top --model pbm   # premises read under a PBM
    cascading ledger --K 2 --model dbn --nu 0.7 --gamma 0.9

``--model`` (cascade, dbn, pbm, dcm; default cascade) is the click model the bounds'
premises are read under (:func:`bounds.registry.model_view`): a bound proved for other
models is listed among those that do not apply, with that premise. A DBN with
``--nu 1 --gamma 1`` (the defaults) is the cascade user, and is read as one
(:func:`bounds.registry.model_name`); with ``--instance`` and ``--model pbm`` the real
instance's fitted examination probabilities are the PBM's. ``--from-search`` takes no
``--model``: a search simulates cascade users.

Every bound of the registry (:mod:`bounds.registry`; ``cascading bounds --list``) is
accounted for: one row per bound that applies (:func:`bounds.later.ledger`), with its
registry name, grouped upper / lower, gap-dependent / gap-free, each with its source;
then one line per bound that does not apply, naming the premise that fails
(:func:`bounds.overview.not_applicable`). A bound registered by a catalog module or by the
user's code appears without any change here. ``constant`` rows are bounds with their constants;
``order`` rows are rates with the constant and log factors dropped (their sources'
constants were not retrieved), so compare them by growth, not by value.

``--from-search FILE`` takes the instances from a stored search (``cascading search
--out``'s ``search.json``, or ``docs/search/*.json``): for each instance it found, the
ledger at the horizon the search re-measured it, and under each bound the regret the
search measured there for the policy the bound is about, with empirical / bound
(:mod:`cascading_bandits.reports.search_ledger`).
"""

from __future__ import annotations

from pathlib import Path

from cascading_bandits.reports.cli.common import emit_json, given, integer, number_list, real, text

__all__ = ["add_arguments", "cost", "run", "format_ledger"]


def add_arguments(parser) -> None:
    g = parser.add_argument_group(
        "instance (default: the paper's B_LB(16, 2, 0.2, 0.15); any of --L --K --p --delta "
        "changes only that parameter)"
    )
    g.add_argument(
        "--weights",
        type=number_list("--weights"),
        help="attraction probabilities, comma-separated (needs --K)",
    )
    g.add_argument(
        "--instance",
        type=text("--instance", "a real instance's name"),
        metavar="NAME",
        help="a real instance (yandex:<query>[:top], kdd:<query>[:top]; simulate."
        "real_instances): its attraction probabilities, K its number of positions unless --K",
    )
    g.add_argument("--L", type=integer("--L"), help="number of items of B_LB (default 16)")
    g.add_argument("--K", type=integer("--K"), help="number of recommended items (default 2)")
    g.add_argument("--p", type=real("--p"), help="attraction of the optimal items of B_LB (0.2)")
    g.add_argument("--delta", type=real("--delta"), help="gap of B_LB, 0 < delta < p (0.15)")
    parser.add_argument(
        "--model",
        choices=("cascade", "dbn", "pbm", "dcm"),
        default=None,
        help="the click model the bounds' premises are read under (default cascade): a "
        "bound proved for other models is listed as not applying, with that premise",
    )
    parser.add_argument(
        "--nu", type=real("--nu", 0.0, 1.0), default=None, help="--model dbn: satisfaction (1)"
    )
    parser.add_argument(
        "--gamma",
        type=real("--gamma", 0.0, 1.0),
        default=None,
        help="--model dbn: persistence (1)",
    )
    parser.add_argument(
        "--horizon", type=integer("--horizon", 2), default=None, help="n (default 1e5)"
    )
    parser.add_argument(
        "--from-search",
        metavar="FILE",
        type=text("--from-search", "a search file's path"),
        default=None,
        help="a stored search (search.json): the ledger on each instance it found, at its "
        "re-measured horizon, beside the regret measured there",
    )
    parser.add_argument(
        "--json", action="store_true", help="print one JSON object instead of a table"
    )


_GROUPS = (
    ("upper", "dependent", "Upper bounds, gap-dependent"),
    ("upper", "free", "Upper bounds, gap-free"),
    ("lower", "dependent", "Lower bounds, gap-dependent"),
    ("lower", "free", "Lower bounds, gap-free"),
)


def _ci(lo, hi, spec) -> str:
    return "" if lo is None or hi is None else f" [{lo:{spec}}, {hi:{spec}}]"


def format_ledger(rows, head: str, n: int, skipped=None) -> str:
    """The readable table of :func:`bounds.later.ledger`'s rows.

    Each row starts with the bound's registry name. Rows of
    :func:`cascading_bandits.reports.search_ledger.ledger_on_instance` (with ``measured``)
    get a line with the measured regret and empirical / bound. ``skipped``
    (:func:`bounds.overview.not_applicable`) adds one line per registered bound that does not apply.
    """
    lines = [f"Instance: {head}; horizon n = {n:g}", ""]
    for kind, gap, title in _GROUPS:
        group = [r for r in rows if r["kind"] == kind and r["gap"] == gap]
        if not group:
            continue
        lines.append(title)
        w = max(len(r["name"]) for r in group)
        wb = max(len(r.get("bound") or "") for r in group)
        for r in group:
            lines.append(
                f"  {r.get('bound') or '':<{wb}}  {r['name']:<{w}}  {r['value']:>14.6g}  "
                f"{r['form']:<8}  [{r['algorithm']}]"
            )
            lines.append(f"      source: {r['source']}")
            lines.append(f"      rate: {r['rate']}")
            for a in r["assumptions"]:
                lines.append(f"      - {a}")
            if r.get("measured") is not None:
                emp = r["empirical"]
                lo, hi = r["empirical_low"], r["empirical_high"]
                ratio = ""
                if r["ratio"] is not None:
                    ratio = f"; empirical / bound = {r['ratio']:.4g}"
                    ratio += _ci(r["ratio_low"], r["ratio_high"], ".4g")
                lines.append(
                    f"      measured {r['measured']}: {emp:.1f}{_ci(lo, hi, '.1f')}{ratio}"
                )
        lines.append("")
    if skipped:
        lines.append("Registered bounds that do not apply here")
        wb = max(len(x["bound"]) for x in skipped)
        for x in skipped:
            lines.append(f"  {x['bound']:<{wb}}  {x['name']}: {x['why']}")
        lines.append("")
    lines.append(
        "'constant': the bound with its constants; 'order': its rate only (constant and log "
        "factors not retrieved). Asymptotic lower bounds are coefficient * log n."
    )
    return "\n".join(lines)


def _found_lines(f, path) -> str:
    """What a search found and measured, above the ledger of one instance."""
    what = {
        "bound": f"the instance where {f['bound_name']} is tightest for {f['policies'][0]}",
        "ratio": "the worst ratio " + " / ".join(f["policies"]),
        "regret": f"the worst regret of {f['policies'][0]}",
    }[f["objective"]]
    meas = ", ".join(
        f"{p} {v['mean']:.1f}{_ci(v['ci_low'], v['ci_high'], '.1f')}"
        for p, v in f["regret"].items()
    )
    return (
        f"Search {path}, result {f['index'] + 1}: {what}\n"
        f"Measured regret at n on {f['runs']} fresh runs "
        f"({round(100 * f['confidence'])}% t interval): {meas}\n"
    )


#: keys of ledger_on_instance's rows that describe the instance (given once per instance)
_SEARCH_KEYS = (
    "search",
    "index",
    "objective",
    "bound_name",
    "policies",
    "weights",
    "K",
    "L",
    "n",
    "runs",
    "confidence",
)


def _search_file(args):
    """The search file's instances (:func:`reports.search_ledger.found_instances`), read
    once (``cost`` reads them, ``run`` uses them)."""
    from cascading_bandits.reports.search_ledger import found_instances, read_search

    if getattr(args, "_found", None) is None:
        extra = given(
            args, "instance", "weights", "L", "K", "p", "delta", "horizon", "model", "nu", "gamma"
        )
        if extra:
            raise ValueError(
                "--from-search takes each instance and its horizon from the search file; drop "
                + " ".join(extra)
            )
        try:
            doc = read_search(args.from_search)
        except ValueError as e:
            raise ValueError(f"--from-search: {e}") from None
        args._found = found_instances(doc, Path(args.from_search).stem)
    return args._found


def cost(args):
    """The ledger's estimate (:func:`bounds.overview.estimate`) on the instance, or on every
    instance of the search file, one after the other."""
    from cascading_bandits.bounds.overview import estimate
    from cascading_bandits.reports.cli.bounds import _size

    if args.from_search is None:
        L = _size(args)
        return estimate(L), f"--L {L} (the ledger of an instance of {L} items)"
    found = _search_file(args)
    L = max(f["L"] for f in found)
    need = estimate(L, len(found))
    return need, (
        f"--from-search {args.from_search} (the ledger of {len(found)} instance(s), the "
        f"largest of {L} items)"
    )


def _run_from_search(args) -> int:
    from cascading_bandits.reports.search_ledger import ledger_on_instance, weights_text

    path = args.from_search
    found = _search_file(args)
    from cascading_bandits.bounds.instance import CascadeInstance
    from cascading_bandits.bounds.overview import not_applicable

    out = []
    for f in found:
        rows = ledger_on_instance(f)
        skipped = not_applicable(CascadeInstance(tuple(f["weights"]), f["K"]), f["n"], rows)
        out.append((f, rows, skipped))
    if args.json:
        emit_json(
            {
                "file": str(path),
                "instances": [
                    {
                        "search": f["search"],
                        "index": f["index"],
                        "objective": f["objective"],
                        "bound_name": f["bound_name"],
                        "policies": f["policies"],
                        "instance": {"weights": f["weights"], "K": f["K"], "L": f["L"]},
                        "n": f["n"],
                        "runs": f["runs"],
                        "confidence": f["confidence"],
                        "regret": f["regret"],
                        "rows": [
                            {k: v for k, v in r.items() if k not in _SEARCH_KEYS} for r in rows
                        ],
                        "not_applicable": skipped,
                    }
                    for f, rows, skipped in out
                ],
            }
        )
        return 0
    texts = []
    for f, rows, skipped in out:
        head = f"L={f['L']}, K={f['K']}, w=({weights_text(f['weights'], 'x')})"
        texts.append(_found_lines(f, path) + format_ledger(rows, head, f["n"], skipped))
    print(("\n\n" + "=" * 72 + "\n\n").join(texts))
    return 0


def _model(args):
    """The :class:`bounds.registry.ModelView` of ``--model`` (``--nu``/``--gamma`` for a DBN,
    a real instance's examination probabilities for a PBM)."""
    from cascading_bandits.bounds.registry import model_view

    model = args.model or "cascade"
    if model != "dbn" and (args.nu is not None or args.gamma is not None):
        raise ValueError("--nu and --gamma apply to --model dbn only")
    kappa = None
    if model == "pbm" and args.instance is not None:
        from cascading_bandits.simulate.real_instances import parse_instance_name

        kappa = parse_instance_name(args.instance)[1]
    return model_view(model, nu=args.nu, gamma=args.gamma, kappa=kappa)


def ledger_rows(inst, n, model="cascade"):
    """``(rows, skipped)``: :func:`bounds.later.ledger`'s rows and
    :func:`bounds.overview.not_applicable`'s list of the others, premises (and values) read
    under the click model ``model`` (a name or a :class:`bounds.registry.ModelView`): under
    another model than the cascade, a bound proved for the cascade model only is not
    applicable, with that premise.
    """
    from cascading_bandits.bounds.later import ledger
    from cascading_bandits.bounds.overview import not_applicable

    rows = ledger(inst, n, model=model)
    return rows, not_applicable(inst, n, rows, model=model)


def run(args) -> int:
    from cascading_bandits.reports.cli.bounds import _instance

    if args.from_search is not None:
        return _run_from_search(args)
    inst, blb = _instance(args)
    n = 100_000 if args.horizon is None else args.horizon
    view = _model(args)
    rows, skipped = ledger_rows(inst, n, view)
    if blb is not None:
        head = f"B_LB(L={blb['L']}, K={blb['K']}, p={blb['p']:g}, delta={blb['delta']:g})"
    else:
        head = f"L={inst.L}, K={inst.K}, w=({', '.join(f'{x:g}' for x in inst.weights)})"
    if args.instance is not None:
        head = f"{args.instance}: {head}"
    if args.model is not None:
        head += f"; premises read under the {args.model} click model"
        if view.name != args.model:
            head += f" (with these parameters: the {view.name} user)"
    if args.json:
        out = {
            "instance": {"weights": list(inst.weights), "K": inst.K, "L": inst.L},
            "model": view.name,
            "n": n,
            "rows": rows,
            "not_applicable": skipped,
        }
        if blb is not None:
            out["instance"].update({"p": float(blb["p"]), "delta": float(blb["delta"])})
        if args.instance is not None:
            out["instance"]["name"] = args.instance
        emit_json(out)
    else:
        print(format_ledger(rows, head, n, skipped))
    return 0
