"""``cascading ledger``: every applicable regret bound for one instance at one horizon.

Examples::

    cascading ledger                                   # B_LB(16, 2, 0.2, 0.15), n = 1e5
    cascading ledger --L 16 --K 2 --p 0.2 --delta 0.15 --horizon 100000
    cascading ledger --weights 0.5,0.3,0.2,0.1 --K 2 --horizon 1e6 --json

Rows are grouped upper / lower, gap-dependent / gap-free, each with its source
(:func:`bounds.later.ledger`). ``constant`` rows are bounds with their constants;
``order`` rows are rates with the constant and log factors dropped (their sources'
constants were not retrieved), so compare them by growth, not by value.
"""

from __future__ import annotations

import json

from cascading_bandits.reports.cli import add_force, integer, number_list, real

__all__ = ["HELP", "add_arguments", "run", "format_ledger"]

HELP = "Print every applicable regret bound (the paper's and later ones) for an instance."


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
    g.add_argument("--L", type=integer("--L"), help="number of items of B_LB (default 16)")
    g.add_argument("--K", type=integer("--K"), help="number of recommended items (default 2)")
    g.add_argument("--p", type=real("--p"), help="attraction of the optimal items of B_LB (0.2)")
    g.add_argument("--delta", type=real("--delta"), help="gap of B_LB, 0 < delta < p (0.15)")
    parser.add_argument(
        "--horizon", type=integer("--horizon", 2), default=100_000, help="n (default 1e5)"
    )
    parser.add_argument(
        "--json", action="store_true", help="print one JSON object instead of a table"
    )
    add_force(parser)


_GROUPS = (
    ("upper", "dependent", "Upper bounds, gap-dependent"),
    ("upper", "free", "Upper bounds, gap-free"),
    ("lower", "dependent", "Lower bounds, gap-dependent"),
    ("lower", "free", "Lower bounds, gap-free"),
)


def format_ledger(rows, head: str, n: int) -> str:
    """The readable table of :func:`bounds.later.ledger`'s rows."""
    lines = [f"Instance: {head}; horizon n = {n:g}", ""]
    for kind, gap, title in _GROUPS:
        group = [r for r in rows if r["kind"] == kind and r["gap"] == gap]
        if not group:
            continue
        lines.append(title)
        w = max(len(r["name"]) for r in group)
        for r in group:
            lines.append(
                f"  {r['name']:<{w}}  {r['value']:>14.6g}  {r['form']:<8}  [{r['algorithm']}]"
            )
            lines.append(f"      source: {r['source']}")
            lines.append(f"      rate: {r['rate']}")
            for a in r["assumptions"]:
                lines.append(f"      - {a}")
        lines.append("")
    lines.append(
        "'constant': the bound with its constants; 'order': its rate only (constant and log "
        "factors not retrieved). Asymptotic lower bounds are coefficient * log n."
    )
    return "\n".join(lines)


def run(args) -> int:
    from cascading_bandits.bounds.cli import _instance
    from cascading_bandits.bounds.later import ledger

    inst, blb = _instance(args)
    n = args.horizon
    rows = ledger(inst, n)
    if blb is not None:
        head = f"B_LB(L={blb['L']}, K={blb['K']}, p={blb['p']:g}, delta={blb['delta']:g})"
    else:
        head = f"L={inst.L}, K={inst.K}, w=({', '.join(f'{x:g}' for x in inst.weights)})"
    if args.json:
        out = {
            "instance": {"weights": list(inst.weights), "K": inst.K, "L": inst.L},
            "n": n,
            "rows": rows,
        }
        if blb is not None:
            out["instance"].update({"p": float(blb["p"]), "delta": float(blb["delta"])})
        print(json.dumps(out, allow_nan=False))
    else:
        print(format_ledger(rows, head, n))
    return 0
