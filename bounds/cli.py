"""``cascading bounds``: every bound of the paper on one instance at one horizon.

Examples::

    cascading bounds                                   # B_LB(16, 2, 0.2, 0.15), n = 1e5
    cascading bounds --L 16 --K 2 --p 0.2 --delta 0.15 --horizon 100000
    cascading bounds --L 64                            # B_LB(64, 2, 0.2, 0.15)
    cascading bounds --weights 0.2,0.2,0.05,0.05 --K 2 --horizon 1e6 --eps 0.5
    cascading bounds --json

The table lists each bound's value at n, its coefficient of ``log n`` and the
ratio ``value / (theorem4_coefficient * log n)`` to the asymptotic lower bound.
"""

from __future__ import annotations

import math

__all__ = ["add_arguments", "run", "compute", "format_table"]

_DEFAULT = {"L": 16, "K": 2, "p": 0.2, "delta": 0.15}


def add_arguments(parser) -> None:
    from cascading_bandits.reports.cli import add_force, integer, number_list, real

    g = parser.add_argument_group(
        "instance (default: the paper's B_LB(16, 2, 0.2, 0.15); any of --L --K --p --delta "
        "changes only that parameter)"
    )
    g.add_argument(
        "--weights",
        type=number_list("--weights"),
        help="attraction probabilities, comma-separated (needs --K; not with --L --p --delta)",
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
        "--horizon", type=integer("--horizon", 2), default=100_000, help="n (default 1e5)"
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
        default="paper",
        help="Theorem 3's constant C: as printed (paper, default) or as the proof gives it (proof)",
    )
    parser.add_argument(
        "--json",
        action="store_true",
        help="print one JSON object on one line instead of a table (C2 and beta are null "
        "when there is no suboptimal item with a positive weight: the paper's value is infinite)",
    )
    add_force(parser)


#: peak bytes and seconds per item of ``compute`` on B_LB(L, K, 0.2, 0.15): measured with
#: tracemalloc and a wall clock at L = 128..1024, K = 2 and 8 on a loaded 2-core machine
#: (about 600 B and 0.14 s per item, nearly independent of K), doubled for safety
_BYTES_PER_ITEM, _SECONDS_PER_ITEM = 1200, 0.3


def _instance(args):
    from cascading_bandits.bounds import _validate as V
    from cascading_bandits.bounds.instance import CascadeInstance, b_lb
    from cascading_bandits.simulate.sweep import check_resources

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
    L = params["L"]
    V.positive_int("L", L)
    check_resources(
        _BYTES_PER_ITEM * L,
        _SECONDS_PER_ITEM * L,
        force=args.force,
        what=f"--L {L} (the bounds of B_LB(L, K, p, delta))",
    )
    return b_lb(params["L"], params["K"], params["p"], params["delta"]), params


def compute(inst, n, eps=None, form="paper", blb=None) -> dict:
    """All the numbers ``cascading bounds`` prints, as a dict of floats (JSON-ready)."""
    from cascading_bandits.bounds import lower, upper

    inst.require_unique_optimum()
    logn = math.log(n)
    t4 = lower.theorem4_coefficient(inst)
    t3 = upper.theorem3_details(inst, n, eps=eps, form=form)
    out = {
        "instance": {"weights": list(inst.weights), "K": inst.K, "L": inst.L},
        "n": n,
        "log_n": logn,
        "theorem2": upper.theorem2_bound(inst, n),
        "theorem2_coefficient": upper.theorem2_leading_coefficient(inst),
        "theorem2_prepeeling": upper.theorem2_prepeeling(inst, n),
        "theorem2_prepeeling_coefficient": 6 * upper.theorem2_prepeeling_coefficient(inst),
        "theorem3": t3["bound"],
        "theorem3_form": form,
        "theorem3_constant": t3["constant"],
        "theorem3_coefficient": t3["log_n_coefficient"],
        "theorem3_prepeeling": t3["prepeeling"],
        "theorem3_prepeeling_coefficient": (1 + t3["eps"])
        * upper.theorem3_prepeeling_coefficient(inst),
        "theorem3_leading": t3["leading_coefficient"] * logn,
        "theorem3_leading_coefficient": t3["leading_coefficient"],
        "theorem4_coefficient": t4,
        "theorem4": t4 * logn,
        "theorem4_general_coefficient": lower.theorem4_general_coefficient(inst),
        "theorem4_sharp_coefficient": lower.theorem4_sharp_coefficient(inst),
        "eps": t3["eps"],
        "eps_optimised": t3["eps_optimised"],
        "C2": t3["C2"],
        "beta": t3["beta"],
    }
    if blb is not None:
        out["instance"].update({"p": float(blb["p"]), "delta": float(blb["delta"])})
    return out


def _ratio(value, lower):
    return f"{value / lower:>14.4f}" if lower > 0 else f"{'n/a':>14}"


def format_table(res: dict) -> str:
    """The readable table of :func:`compute`'s result."""
    inst = res["instance"]
    if "p" in inst:
        head = f"B_LB(L={inst['L']}, K={inst['K']}, p={inst['p']:g}, delta={inst['delta']:g})"
    else:
        head = f"L={inst['L']}, K={inst['K']}, w=({', '.join(f'{x:g}' for x in inst['weights'])})"
    lower = res["theorem4"]
    eps_note = "optimised" if res["eps_optimised"] else "given"
    rows = [
        ("Theorem 2 (CascadeUCB1)", res["theorem2"], res["theorem2_coefficient"]),
        (
            "Theorem 2, pre-peeling",
            res["theorem2_prepeeling"],
            res["theorem2_prepeeling_coefficient"],
        ),
        (
            f"Theorem 3 (CascadeKL-UCB), {res['theorem3_form']} C",
            res["theorem3"],
            res["theorem3_coefficient"],
        ),
        (
            "Theorem 3, pre-peeling",
            res["theorem3_prepeeling"],
            res["theorem3_prepeeling_coefficient"],
        ),
        (
            "Theorem 3 leading term (eps=0, no C)",
            res["theorem3_leading"],
            res["theorem3_leading_coefficient"],
        ),
        ("Theorem 4 (lower, asymptotic)", lower, res["theorem4_coefficient"]),
    ]
    w0 = max(len(r[0]) for r in rows)
    lines = [
        f"Instance: {head}; horizon n = {res['n']:g} (log n = {res['log_n']:.6g})",
        f"Theorem 3: eps = {res['eps']:.6g} ({eps_note}), C = {res['theorem3_constant']:.6g}, "
        + (
            "no suboptimal item: C2 and beta are undefined and every bound is 0"
            if res["C2"] is None or res["beta"] is None
            else f"worst pair C2 = {res['C2']:.6g}, beta = {res['beta']:.6g}"
        ),
        "",
        f"{'bound':<{w0}}  {'value at n':>14}  {'coef. of log n':>14}  {'ratio to lower':>14}",
        f"{'-' * w0}  {'-' * 14}  {'-' * 14}  {'-' * 14}",
    ]
    for name, value, coef in rows:
        lines.append(f"{name:<{w0}}  {value:>14.6f}  {coef:>14.6f}  {_ratio(value, lower)}")
    lines.append("")
    lines.append(
        "Theorem 4's constant is liminf R(n)/log n; "
        "'ratio to lower' = value / (theorem4_coefficient * log n)."
    )
    return "\n".join(lines)


def _finite(obj):
    """Non-finite floats (beta = inf when every suboptimal weight is 0) become null: strict JSON."""
    if isinstance(obj, dict):
        return {k: _finite(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_finite(v) for v in obj]
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    return obj


def run(args) -> int:
    inst, blb = _instance(args)
    n = args.horizon
    eps = args.eps
    if eps is not None and eps <= 0:
        raise ValueError(f"--eps must be > 0, got {eps!r}")
    res = compute(inst, n, eps=eps, form=args.form, blb=blb)
    if eps is not None and not all(
        math.isfinite(res[k]) for k in ("theorem3", "theorem3_constant", "theorem3_coefficient")
    ):
        raise ValueError(
            f"--eps {eps!r} makes Theorem 3's constant C overflow a double (the bound is "
            "infinite); choose a larger --eps, or omit it to use the optimal one"
        )
    if args.json:
        from cascading_bandits.reports.cli import emit_json

        emit_json(_finite(res))
    else:
        print(format_table(res))
    return 0
