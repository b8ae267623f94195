"""``cascading study``: your own instance and policies, regret against every registered bound.

Examples::

    cascading study --weights 0.5,0.4,0.3,0.1,0.1,0.1 --K 2 \\
                    --policy cascade-klucb,cascade-ucb1 --runs 20 --horizon 1e5 --out study1
    cascading study --L 16 --K 4 --p 0.2 --delta 0.15 --policy cascade-klucb --json
    cascading study --weights 0.6,0.5,0.2,0.1 --K 2 --model dbn --nu 0.7 --gamma 0.9 \\
                    --policy cascade-klucb,ranked-klucb
    cascading study --weights 0.5,0.4,0.1,0.1 --K 2 --bound theorem3,theorem3-lp,theorem4

Writes DIR/regret.png (7 x 4 in at the report's 300 dpi) and DIR/regret.pdf: regret against
n with 95% Student-t bands and the registered bounds (bounds.registry) that cover the
policies at their parameters and apply to the instance, upper bounds dashed, lower bounds
dash-dotted/dotted. Policies are named as in the report (CascadeKL-UCB; parameters set away
from their defaults follow: CascadeKL-UCB (c=0)).
--bound chooses which are drawn: ``default`` (the paper's Theorems 2-4 and every bound within
a factor 30 of the largest mean regret at n), ``all``, ``none``, or names; the others are
named in the figure's notes with their value at n. DIR/summary.json holds, per policy, every
registered bound with a constant about it: its value at n, or null and the premise that fails.
The cells are stored under DIR/study/ and reused when the same study is run again
(same instance, policies, horizon, runs, seed); an interrupted study resumes. A DIR
holding another study's summary is refused unless --overwrite.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import time
from pathlib import Path

from cascading_bandits.reports.cli.common import (
    add_workers,
    directory,
    emit_json,
    integer,
    json_text,
    name_list,
    number_list,
    real,
    real_instance,
    text,
)

FIGURE_STEM = "regret"
SUMMARY = "summary.json"
#: the policies of a study by default
DEFAULT_POLICIES = ["cascade-ucb1", "cascade-klucb"]


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.formatter_class = argparse.RawDescriptionHelpFormatter
    p.epilog = __doc__.split("\n", 2)[2]
    i = p.add_argument_group("instance")
    i.add_argument(
        "--weights",
        type=number_list("--weights"),
        help="attraction probabilities, comma-separated (rho for dbn)",
    )
    i.add_argument(
        "--instance",
        type=text("--instance", "a real instance's name"),
        metavar="NAME",
        help="a real instance instead of --weights (yandex:<query>[:top], kdd:<query>[:top]; "
        "simulate.real_instances): its attraction probabilities, K its number of positions "
        "unless --K, and with --model pbm its fitted examination probabilities",
    )
    i.add_argument(
        "--L", type=integer("--L"), help="B_LB(L, K, p, delta) instead of --weights: items"
    )
    i.add_argument("--p", type=real("--p"), help="B_LB: attraction of the K optimal items")
    i.add_argument("--delta", type=real("--delta"), help="B_LB: gap")
    i.add_argument(
        "--K",
        type=integer("--K"),
        help="number of recommended items (required, but for --instance: its positions)",
    )
    i.add_argument(
        "--model",
        choices=("cascade", "dbn", "pbm", "dcm"),
        default="cascade",
        help="click model: cascade (default), dbn (--nu, --gamma), pbm (examination 1/k, or "
        "the real instance's), dcm (continuation k/(k+1))",
    )
    i.add_argument("--nu", type=real("--nu"), default=None, help="DBN satisfaction (default 1)")
    i.add_argument(
        "--gamma", type=real("--gamma"), default=None, help="DBN persistence (default 1)"
    )
    a = p.add_argument_group("policies and scale")
    a.add_argument(
        "--policy",
        default=None,
        type=name_list("--policy", "policy specs"),
        help="comma-separated policy specs (default: " + ",".join(DEFAULT_POLICIES) + ")",
    )
    a.add_argument(
        "--order",
        choices=("best-first", "worst-first"),
        default="best-first",
        help="best-first (default) or worst-first",
    )
    a.add_argument(
        "--runs", type=integer("--runs"), default=20, help="independent runs per policy (20)"
    )
    a.add_argument("--horizon", type=integer("--horizon"), default=100_000, help="steps n (1e5)")
    a.add_argument("--seed", type=integer("--seed", 0), default=0, help="root seed (default 0)")
    add_workers(a)
    o = p.add_argument_group("output")
    o.add_argument(
        "--out",
        default="study",
        metavar="DIR",
        type=directory("--out"),
        help="output directory (./study)",
    )
    o.add_argument(
        "--overwrite",
        action="store_true",
        help="recompute stored cells and replace another study's files in DIR",
    )
    o.add_argument(
        "--bound",
        default=["default"],
        metavar="NAME[,NAME]",
        type=name_list("--bound", "bound names"),
        help="registered bounds to draw: default (the paper's and those within a factor 30 "
        "of the largest mean regret at n), all, none, or names (cascading ledger lists them)",
    )
    o.add_argument("--linear-y", action="store_true", help="linear regret axis (default log)")
    o.add_argument("--json", action="store_true", help="print a JSON list, one object per policy")
    o.add_argument("--no-progress", action="store_true", help="no progress bar")


def _size(args):
    """(L, K) from the options alone (nothing built), the instance's options checked."""
    if args.model != "dbn" and (args.nu is not None or args.gamma is not None):
        raise ValueError("--nu and --gamma apply to --model dbn only")
    real = real_instance(args)
    if real is not None:
        return len(real[0]), real[1]
    if args.K is None:
        raise ValueError("--K is required")
    blb = [args.L, args.p, args.delta]
    if args.weights is not None and any(x is not None for x in blb):
        raise ValueError("give either --weights or --L/--p/--delta, not both")
    if args.weights is None and any(x is None for x in blb):
        raise ValueError("give --weights, --instance, or all of --L, --p and --delta (B_LB)")
    return (len(args.weights) if args.weights is not None else args.L), args.K


def _weights(args):
    """(what api.run takes as the instance: weights or a real instance's name, B_LB
    parameters or None)."""
    _size(args)
    if args.instance is not None:
        return args.instance, None
    if args.weights is not None:
        return list(args.weights), None
    from cascading_bandits.bounds.instance import b_lb

    return list(b_lb(args.L, args.K, args.p, args.delta).weights), {
        "L": args.L,
        "K": args.K,
        "p": args.p,
        "delta": args.delta,
    }


def _policies(args) -> list[str]:
    """The policy specs, each parsed (ValueError naming an unknown one)."""
    from cascading_bandits.simulate.policies import parse_policy

    return [parse_policy(x).text for x in (args.policy or DEFAULT_POLICIES)]


def cost(args):
    """:func:`simulate.sweep.estimate` of the cells plus the bounds' curves
    (:func:`reports.regret_plot.estimate`)."""
    from cascading_bandits.reports.cli.common import check_workers
    from cascading_bandits.reports.cli.simulate import check_klucb_c
    from cascading_bandits.reports.regret_plot import estimate as bounds_estimate
    from cascading_bandits.simulate.policies import parse_policy
    from cascading_bandits.simulate.sweep import estimate

    check_workers(args.workers)
    L, K = _size(args)
    pols = _policies(args)
    check_klucb_c([parse_policy(x) for x in pols], args.horizon)
    need = estimate([(L, K, p, args.runs, args.horizon) for p in pols], workers=args.workers or 1)
    b = bounds_estimate(L)
    need = {"bytes": max(need["bytes"], b["bytes"]), "seconds": need["seconds"] + b["seconds"]}
    what = (
        f"this study (--runs {args.runs} x --horizon {args.horizon} on L = {L}, K = {K}, "
        f"{len(pols)} polic{'y' if len(pols) == 1 else 'ies'})"
    )
    return need, what


def _bound_choice(names):
    """``--bound``: "default", "all", False for "none", or a tuple of registered names."""
    from cascading_bandits.reports.regret_plot import _selection

    if names == ["none"]:
        return False
    if len(names) == 1 and names[0] in ("default", "all"):
        return names[0]
    for x in ("default", "all", "none"):
        if x in names:
            raise ValueError(f"--bound {x} stands alone (not in a list of bound names)")
    return _selection(names)


def _rows(results, sb, seed):
    """One JSON-able object per policy (the --json output)."""
    from cascading_bandits.reports.regret_plot import policy_params

    rows = []
    for r in results:
        s = r.summary()
        name, params = policy_params(r.policy)
        row = {
            "policy": r.policy,
            "policy_name": name,
            "policy_params": params,
            "weights": s["weights"],
            "K": s["K"],
            "L": s["L"],
            "model": s["model"],
            "nu": s["nu"],
            "gamma": s["gamma"],
            "order": s["order"],
            "seed": seed,
            "runs": s["runs"],
            "horizon": s["horizon"],
            "mean_regret": s["mean_regret"],
            "stderr": s["stderr"],
            "ci95": s["ci95"],
            # every registered bound with a constant about this policy: value at n, or None
            "bounds": sb.per_policy[r.policy],
            # why each None: the premise that fails, or the parameters the proof needs
            "bounds_not_applied": sb.reasons.get(r.policy, {}),
            "notes": s["notes"] + sb.policy_notes[r.policy],
            "cell_id": s["cell_id"],
            "stored": r.provenance.get("stored"),
            "reused": r.provenance.get("reused"),
        }
        rows.append(row)
    return rows


def _check_out(out: Path, cells: list[str], overwrite: bool) -> None:
    """Refuse to replace another study's summary in ``out`` (unless overwrite)."""
    path = out / SUMMARY
    if overwrite or not path.exists():
        return
    try:
        old = json.loads(path.read_text())
        same = sorted(old.get("cells", [])) == sorted(cells)
    except (OSError, ValueError, AttributeError):
        same = False
    if not same:
        raise ValueError(
            f"{path} holds another study (other instance, policies, scale or seed); choose "
            "another --out or pass --overwrite"
        )


def _plan(args, weights):
    """The cell ids this command will use (to check DIR before simulating)."""
    from cascading_bandits.simulate.api import study_cells

    cells = study_cells(
        weights,
        K=args.K,
        policies=_policies(args),
        model=args.model,
        nu=args.nu,
        gamma=args.gamma,
        order=args.order,
        horizon=args.horizon,
        runs=args.runs,
        seed=args.seed,
    )
    return [c.cell_id for c in cells]


def _print_table(rows, sb):
    """The regret per policy, then each policy's bounds at n with mean regret / bound."""
    from cascading_bandits.bounds.registry import get_bound

    w = max(len(r["policy"]) for r in rows)

    def num(x):
        return "-" if x is None else f"{x:.1f}"

    print(f"{'policy':<{w}}  {'runs':>4}  {'horizon':>8}  {'regret (mean +- se)':>20}")
    for r in rows:
        reg = f"{r['mean_regret']:.1f} +- {num(r['stderr'])}"
        print(f"{r['policy']:<{w}}  {r['runs']:>4}  {r['horizon']:>8}  {reg:>20}")
    named = [n for r in rows for n in r["bounds"]]
    if named:
        b = max(len(n) for n in named)
        drawn = set(sb.drawn)
        print(f"\nbounds at n = {rows[0]['horizon']:,} (value; mean regret / bound; * drawn):")
        for r in rows:
            for n, v in r["bounds"].items():
                kind = get_bound(n).kind
                if v is None:
                    tail = f"not applied: {r['bounds_not_applied'].get(n, '')}"
                else:
                    ratio = r["mean_regret"] / v if v > 0 else None
                    tail = f"{v:>10.1f}  {'-' if ratio is None else f'{ratio:.3g}':>7}"
                mark = "*" if v is not None and n in drawn else " "
                print(f"  {r['policy']:<{w}}  {mark}{n:<{b}}  {kind:<5}  {tail}")
    notes = dict.fromkeys([*sb.notes, *(n for r in rows for n in r["notes"])])
    for n in notes:
        print(f"note: {n}")


def run(args) -> int:
    from cascading_bandits.reports.cli.common import out_dir

    t0 = time.perf_counter()
    weights, blb = _weights(args)
    draw = _bound_choice(args.bound)
    out = out_dir(args.out, "--out", create=False)
    cells = _plan(args, weights)
    _check_out(out, cells, args.overwrite)
    out = out_dir(out, "--out")

    from cascading_bandits.reports.build import _atomic_write, _json_default
    from cascading_bandits.reports.regret_plot import FIGURE_DPI, applicable_bounds, plot_regret
    from cascading_bandits.simulate.api import run as simulate

    results = simulate(
        weights,
        K=args.K,
        policies=_policies(args),
        model=args.model,
        nu=args.nu,
        gamma=args.gamma,
        order=args.order,
        horizon=args.horizon,
        runs=args.runs,
        seed=args.seed,
        out=out,
        workers=args.workers or 1,  # default: this process, numba threads over the runs
        overwrite=args.overwrite,
        progress=not args.no_progress and not args.json,
    )
    sb = applicable_bounds(results, draw)
    rows = _rows(results, sb, args.seed)
    if blb:
        title = "B_LB({L}, {K}, {p:g}, {delta:g})".format(**blb)
    elif args.instance is not None:
        title = f"{args.instance} (L = {results.spec['L']}), K = {results.spec['K']}"
    else:
        title = f"{_weights_text(weights)}, K = {args.K}"
    if args.model == "dbn":
        title += f", DBN ν = {results.spec['nu']:g}, γ = {results.spec['gamma']:g}"
    elif args.model != "cascade":
        title += f", {args.model.upper()} click model"
    fig = plot_regret(results, sb, logy=not args.linear_y, title=_wrap(title))
    figures = []
    for ext in ("png", "pdf"):
        path = out / f"{FIGURE_STEM}.{ext}"
        _atomic_write(path, lambda tmp, ext=ext: fig.savefig(tmp, format=ext, dpi=FIGURE_DPI))
        figures.append(path.name)
    doc = {
        # the command line when run as ``cascading study`` (None when called from Python)
        "command": " ".join(["cascading", *map(shlex.quote, sys.argv[1:])])
        if sys.argv[1:2] == ["study"]
        else None,
        "instance": {**results.spec, "b_lb": blb},
        "policies": rows,
        "bounds": {
            "choice": ",".join(args.bound),
            "drawn": sb.drawn,
            # every registered bound with a constant that applies, at the horizon
            "at_horizon": sb.at_horizon,
            "notes": sb.notes,
            "curves": {
                k: {"n": n.tolist(), "value": v.tolist(), "label": sb.labels[k]}
                for k, (n, v) in sb.curves.items()
            },
            # the registry's declaration of each and its remarks at n (e.g. the eps used)
            "registry": sb.details,
        },
        "band": "95% Student-t interval of the mean over runs (runs - 1 degrees of freedom)",
        "cells": cells,
        "figures": figures,
        "seconds": round(time.perf_counter() - t0, 2),
    }
    text = json_text(doc, indent=1, default=_json_default) + "\n"
    _atomic_write(out / SUMMARY, lambda tmp: Path(tmp).write_text(text, encoding="utf-8"))
    if args.json:
        emit_json(rows, default=_json_default)
    else:
        _print_table(rows, sb)
        print(
            f"wrote {out / 'regret.png'}, {out / 'regret.pdf'}, {out / SUMMARY} "
            f"({time.perf_counter() - t0:.1f} s)",
            file=sys.stderr,
        )
    return 0


def _weights_text(weights, shown=8):
    """``w = (0.5, 0.4, ...)``, the first ``shown`` weights of a long instance and its size."""
    head = ", ".join(f"{x:g}" for x in weights[:shown])
    more = f", ... ({len(weights)} items)" if len(weights) > shown else ""
    return f"w = ({head}{more})"


def _wrap(text, width=70):
    import textwrap

    return "\n".join(textwrap.wrap(text, width))
