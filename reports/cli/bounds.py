"""``cascading bounds``: every registered bound with a constant on one instance at one horizon.

Examples::

    cascading bounds                                   # B_LB(16, 2, 0.2, 0.15), n = 1e5
    cascading bounds --L 16 --K 2 --p 0.2 --delta 0.15 --horizon 100000
    cascading bounds --L 64                            # B_LB(64, 2, 0.2, 0.15)
    cascading bounds --weights 0.2,0.2,0.05,0.05 --K 2 --horizon 1e6 --eps 0.5
    cascading bounds --json
    cascading bounds --list                            # the registry, nothing computed

The paper's theorems come first, in detail: Theorem 2's coefficient of ``log n``, Theorem 3's
eps, C, C2 and beta (``--eps`` and ``--form`` apply to these lines), Theorem 4's coefficient.
Then one row per bound of the registry (:mod:`bounds.registry`) that has a constant and
applies to the instance, upper and lower (Theorems 2-4, the corollaries, the sharp Graves-Lai
constant, the exact-LP forms, and any bound a catalog module or the user's code registers):
its value at n, ``value / log n`` (for the gap-dependent ones: the coefficient of ``log n``
of an asymptotic lower bound, the slope plus a vanishing constant of an upper one) and the
ratio ``value / (theorem4_coefficient * log n)`` to Theorem 4. A registered bound that does
not apply is named with the premise that fails; order-only bounds (no constant) are named.
"""

from __future__ import annotations

import math

from cascading_bandits.reports.cli.common import real_instance

__all__ = ["add_arguments", "cost", "run", "format_table", "format_list"]

_DEFAULT = {"L": 16, "K": 2, "p": 0.2, "delta": 0.15}


def add_arguments(parser) -> None:
    from cascading_bandits.reports.cli.common import integer, number_list, real, text

    g = parser.add_argument_group(
        "instance (default: the paper's B_LB(16, 2, 0.2, 0.15); any of --L --K --p --delta "
        "changes only that parameter)"
    )
    g.add_argument(
        "--weights",
        type=number_list("--weights"),
        help="attraction probabilities, comma-separated (needs --K; not with --L --p --delta)",
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
    g.add_argument(
        "--p", type=real("--p"), help="attraction of the K optimal items of B_LB (default 0.2)"
    )
    g.add_argument(
        "--delta", type=real("--delta"), help="gap of B_LB, 0 < delta < p (default 0.15)"
    )
    parser.add_argument(
        "--model",
        choices=("cascade", "dbn", "pbm", "dcm"),
        default=None,
        help="the click model the registered bounds are read under (default cascade): a bound "
        "proved for other models is named with that premise; the detailed Theorem 2-4 lines "
        "are the cascade model's",
    )
    parser.add_argument(
        "--horizon", type=integer("--horizon", 2), default=None, help="n (default 1e5)"
    )
    parser.add_argument(
        "--eps",
        type=real("--eps"),
        default=None,
        help="eps of Theorem 3 (default: the eps minimising the bound at n)",
    )
    parser.add_argument(
        "--form",
        choices=("paper", "proof"),
        default=None,
        help="Theorem 3's constant C: as printed (paper, default) or as the proof gives it "
        "(proof); the detailed Theorem 3 line only (the registered rows are as declared)",
    )
    parser.add_argument(
        "--list",
        action="store_true",
        help="list the registered bounds (name, kind, form, gap, policies covered, premises, "
        "source) without computing anything; with --json, one JSON object",
    )
    parser.add_argument(
        "--json",
        action="store_true",
        help="print one JSON object on one line instead of a table (C2 and beta are null "
        "when there is no suboptimal item with a positive weight: the paper's value is infinite)",
    )


def _size(args) -> int:
    """The instance's number of items, from the options alone (nothing built)."""
    real = real_instance(args)
    if real is not None:
        return len(real[0])
    if args.weights is not None:
        return len(args.weights)
    return _DEFAULT["L"] if args.L is None else args.L


def cost(args):
    """The overview's estimate on the instance (:func:`bounds.overview.estimate`); None for
    ``--list``."""
    from cascading_bandits.bounds.overview import estimate

    if args.list:
        return None
    L = _size(args)
    return estimate(L), f"--L {L} (every registered bound on an instance of {L} items)"


def _instance(args):
    """(instance, B_LB parameters or None) from the options."""
    from cascading_bandits.bounds.instance import CascadeInstance, b_lb

    real = real_instance(args)
    if real is not None:
        return CascadeInstance(*real), None
    blb_given = [k for k in ("L", "p", "delta") if getattr(args, k) is not None]
    if args.weights is not None:
        if blb_given:
            raise ValueError(
                "give either --weights with --K, or B_LB parameters (--L --K --p --delta), "
                "not both (got --weights with " + " ".join(f"--{k}" for k in blb_given) + ")"
            )
        if args.K is None:
            raise ValueError("--weights needs --K")
        return CascadeInstance(tuple(args.weights), args.K), None
    params = {k: (_DEFAULT[k] if getattr(args, k) is None else getattr(args, k)) for k in _DEFAULT}
    return b_lb(params["L"], params["K"], params["p"], params["delta"]), params


def format_list(items) -> str:
    """The readable listing of :func:`bounds.overview.list_bounds`."""
    lines = [f"{len(items)} registered bounds (bounds.registry; a catalog_* module adds more)", ""]
    for d in items:
        lines.append(
            f"{d['name']}  {d['kind']}, {d['form']}, gap-{d['gap']}"
            + (", asymptotic" if d["asymptotic"] else "")
            + f": {d['title']}"
        )
        lines.append(f"    policies: {', '.join(d['policies'])}")
        lines.append(f"    premises: {'; '.join(d['premises']) or 'none'}")
        if d["models"] != ["cascade"]:
            lines.append(f"    click models: {', '.join(d['models'])}")
        lines.append(f"    source: {d['source']}")
        if d["derivation"]:
            lines.append(f"    derivation: {d['derivation']}")
        lines.append(f"    rate: {d['rate']}")
    return "\n".join(lines)


def _ratio(value, lower):
    return f"{value / lower:>18.4f}" if lower > 0 else f"{'n/a':>18}"


def _detail_lines(res: dict) -> list[str]:
    """The paper's theorems in detail (Theorem 3 at --eps / --form)."""
    eps_note = "optimised" if res["eps_optimised"] else "given"
    if res["C2"] is None or res["beta"] is None:
        pair = "no suboptimal item: C2 and beta are undefined and Theorems 2-4 are 0"
    else:
        pair = f"worst pair C2 = {res['C2']:.6g}, beta = {res['beta']:.6g}"
    return [
        f"Theorem 2 (CascadeUCB1): value at n = {res['theorem2']:.6f}, coef. of log n = "
        f"{res['theorem2_coefficient']:.6f}; pre-peeling (exact LP): "
        f"{res['theorem2_prepeeling']:.6f}, coef. of log n = "
        f"{res['theorem2_prepeeling_coefficient']:.6f}",
        f"Theorem 3 (CascadeKL-UCB), {res['theorem3_form']} C: value at n = "
        f"{res['theorem3']:.6f}, coef. of log n = {res['theorem3_coefficient']:.6f}; "
        f"eps = {res['eps']:.6g} ({eps_note}), C = {res['theorem3_constant']:.6g}, {pair}",
        f"  leading term (eps=0, no C) = {res['theorem3_leading']:.6f} (coef. of log n = "
        f"{res['theorem3_leading_coefficient']:.6f}); pre-peeling = "
        f"{res['theorem3_prepeeling']:.6f} (coef. of log n = "
        f"{res['theorem3_prepeeling_coefficient']:.6f})",
        f"Theorem 4 (lower, asymptotic): value at n = {res['theorem4']:.6f}, coef. of log n = "
        f"{res['theorem4_coefficient']:.6f} (general alpha = "
        f"{res['theorem4_general_coefficient']:.6f}, sharp alpha = Graves-Lai = "
        f"{res['theorem4_sharp_coefficient']:.6f})",
    ]


def format_table(res: dict) -> str:
    """The readable table of :func:`bounds.overview.overview`'s result."""
    inst = res["instance"]
    if "p" in inst:
        head = f"B_LB(L={inst['L']}, K={inst['K']}, p={inst['p']:g}, delta={inst['delta']:g})"
    else:
        head = f"L={inst['L']}, K={inst['K']}, w=({', '.join(f'{x:g}' for x in inst['weights'])})"
    if "name" in inst:
        head = f"{inst['name']}: {head}"
    if res.get("model", "cascade") != "cascade":
        head += (
            f"; registered bounds read under the {res['model']} click model (the Theorem 2-4 "
            "lines are the cascade model's)"
        )
    lower = res["theorem4"]
    rows = [b for b in res["bounds"] if b["value"] is not None]
    rows.sort(key=lambda b: b["kind"] != "upper")  # upper first, registration order kept
    w0 = max([len("bound"), *(len(b["name"]) for b in rows)])
    lines = [
        f"Instance: {head}; horizon n = {res['n']:g} (log n = {res['log_n']:.6g})",
        *_detail_lines(res),
        "",
        "Registered bounds with a constant that apply here ('cascading bounds --list': all)",
        f"{'bound':<{w0}}  {'kind':<5}  {'gap':<9}  {'value at n':>14}  {'value / log n':>14}  "
        f"{'ratio to Theorem 4':>18}  title",
        f"{'-' * w0}  {'-' * 5}  {'-' * 9}  {'-' * 14}  {'-' * 14}  {'-' * 18}  {'-' * 5}",
    ]
    for b in rows:
        per_log = b["value_over_log_n"]
        per_log = f"{'-':>14}" if per_log is None else f"{per_log:>14.6f}"
        lines.append(
            f"{b['name']:<{w0}}  {b['kind']:<5}  {b['gap']:<9}  {b['value']:>14.6f}  {per_log}  "
            f"{_ratio(b['value'], lower)}  {b['title']}"
        )
    skipped = [b for b in res["bounds"] if b["value"] is None and b["form"] == "constant"]
    if skipped:
        lines += ["", "Registered bounds with a constant that do not apply here"]
        w1 = max(len(b["name"]) for b in skipped)
        lines += [f"  {b['name']:<{w1}}  {b['title']}: {b['note']}" for b in skipped]
    orders = [b["name"] for b in res["bounds"] if b["form"] == "order"]
    if orders:
        lines += [
            "",
            "Known only as orders (no constant; 'cascading ledger' prints their rates): "
            + ", ".join(orders),
        ]
    lines.append("")
    lines.append(
        "Theorem 4's constant is liminf R(n)/log n; 'ratio to Theorem 4' = value / "
        "(theorem4_coefficient * log n); 'value / log n' is given for gap-dependent bounds "
        "(an asymptotic lower bound's coefficient of log n)."
    )
    if not res["eps_optimised"] or res["theorem3_form"] != "paper":
        lines.append(
            "--eps / --form apply to the Theorem 3 lines above; the registered theorem3 row "
            "optimises eps at n, with C as printed from n = 48."
        )
    return "\n".join(lines)


def run(args) -> int:
    from cascading_bandits.reports.cli.common import emit_json, given

    if args.list:
        extra = given(
            args, "instance", "weights", "L", "K", "p", "delta", "model", "horizon", "eps", "form"
        ) + given(args, "force")
        if extra:
            raise ValueError(
                "--list lists the registry and computes nothing; drop " + " ".join(extra)
            )
        from cascading_bandits.bounds.overview import list_bounds

        items = list_bounds()
        if args.json:
            emit_json({"bounds": items})
        else:
            print(format_list(items))
        return 0
    from cascading_bandits.bounds.overview import overview

    inst, blb = _instance(args)
    n = 100_000 if args.horizon is None else args.horizon
    form = "paper" if args.form is None else args.form
    eps = args.eps
    if eps is not None and eps <= 0:
        raise ValueError(f"--eps must be > 0, got {eps!r}")
    res = overview(inst, n, eps=eps, form=form, blb=blb, model=args.model or "cascade")
    if args.instance is not None:
        res["instance"]["name"] = args.instance
    if eps is not None and not all(
        math.isfinite(res[k]) for k in ("theorem3", "theorem3_constant", "theorem3_coefficient")
    ):
        raise ValueError(
            f"--eps {eps!r} makes Theorem 3's constant C overflow a double (the bound is "
            "infinite); choose a larger --eps, or omit it to use the optimal one"
        )
    if args.json:
        emit_json(res)  # beta = inf (no suboptimal weight) is null
    else:
        print(format_table(res))
    return 0
