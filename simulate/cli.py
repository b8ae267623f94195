"""``cascading simulate``: run a paper experiment, or ad hoc cells, and print regret.

Experiments (stored under ``--out``, resumable)::

    cascading simulate --experiment table1 [--runs 20] [--horizon 100000] [--out DIR]
                       [--workers N] [--scheduler ADDRESS] [--seed S] [--testing] [--overwrite]

Ad hoc (printed, not stored)::

    cascading simulate --weights 0.2,0.2,0.05,0.05 --K 2 --policy cascade-klucb --json
    cascading simulate --L 16 --K 4 --p 0.2 --delta 0.15 --model dbn --nu 0.7 --gamma 0.7 \\
                       --policy cascade-klucb,ranked-klucb --json
"""

from __future__ import annotations

import argparse
import json
import math
import sys

HELP = (
    "simulate cascading bandits: the paper's experiments (table1, table2, dbn; extras ts, "
    "dbn-rba) or ad hoc cells"
)


class _PolicyHelp:
    """Help of --policy listing the declared policies, built only when help is printed
    (the registry imports numba; building the parser stays cheap)."""

    def __init__(self, head):
        self.head = head

    def __str__(self):
        from cascading_bandits.simulate.policies import help_text

        return self.head + "; ".join(help_text().splitlines())

    def strip(self):
        return self.head

    def __contains__(self, x):
        return x in str(self)

    def __mod__(self, params):
        return str(self).replace("%", "%%") % params


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.formatter_class = argparse.RawDescriptionHelpFormatter
    p.epilog = __doc__.split("\n", 2)[2]
    g = p.add_argument_group("experiment")
    g.add_argument(
        "--experiment", help="table1, table2, dbn, ts, dbn-rba, or 'all' (table1 + table2 + dbn)"
    )
    g.add_argument(
        "--out", default="results", help="output directory for --experiment (default: results)"
    )
    g.add_argument("--testing", action="store_true", help="the tiny TESTING subset (smoke test)")
    g.add_argument("--overwrite", action="store_true", help="recompute and replace stored cells")
    a = p.add_argument_group("ad hoc cell")
    a.add_argument(
        "--weights", help="attraction probabilities, comma-separated (rho for --model dbn)"
    )
    a.add_argument("--L", type=int, help="B_LB(L, K, p, delta): number of items")
    a.add_argument("--p", type=float, help="B_LB: attraction of the K optimal items")
    a.add_argument("--delta", type=float, help="B_LB: gap")
    a.add_argument("--K", type=int, help="number of recommended items")
    a.add_argument(
        "--policy",
        default="cascade-ucb1,cascade-klucb",
        help=_PolicyHelp(
            "comma-separated policy specs, e.g. cascade-klucb(c=0); parameters left out take "
            "their defaults (default: cascade-ucb1,cascade-klucb). Known: "
        ),
    )
    a.add_argument("--order", default="best-first", help="best-first (default) or worst-first")
    a.add_argument("--model", default="cascade", help="cascade (default) or dbn")
    a.add_argument(
        "--nu", type=float, default=None, help="DBN satisfaction probability (default 1)"
    )
    a.add_argument("--gamma", type=float, default=None, help="DBN persistence (default 1)")
    a.add_argument(
        "--c", type=float, default=3.0, help="KL-UCB constant c in log t + c log log t (default 3)"
    )
    s = p.add_argument_group("scale and execution")
    s.add_argument("--runs", type=int, default=None, help="independent runs per cell (default 20)")
    s.add_argument("--horizon", type=float, default=None, help="steps n (default 1e5)")
    s.add_argument("--seed", type=int, default=0, help="root seed (default 0)")
    s.add_argument(
        "--workers", type=int, default=None, help="local worker processes (default: all cores)"
    )
    s.add_argument(
        "--scheduler", default=None, help="Dask scheduler address (runs the cells on that cluster)"
    )
    s.add_argument("--json", action="store_true", help="print a JSON list, one object per cell")
    s.add_argument("--no-progress", action="store_true", help="no progress bar")


def _floats(name, text):
    try:
        vals = [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise ValueError(f"--{name} must be comma-separated numbers, got {text!r}") from None
    if not vals:
        raise ValueError(f"--{name} must hold at least one number")
    return vals


def _adhoc_cells(args):
    from cascading_bandits.bounds import _validate as V
    from cascading_bandits.simulate.experiments import Cell, b_lb_cell

    if args.K is None:
        raise ValueError("--K is required for an ad hoc cell")
    blb = [args.L, args.p, args.delta]
    if args.weights is not None and any(x is not None for x in blb):
        raise ValueError("give either --weights or --L/--p/--delta, not both")
    if args.weights is None and any(x is None for x in blb):
        raise ValueError("an ad hoc cell needs --weights, or all of --L, --p and --delta (B_LB)")
    V.choice("model", args.model, ("cascade", "dbn"))
    if args.model == "cascade" and (args.nu is not None or args.gamma is not None):
        raise ValueError("--nu and --gamma apply to --model dbn only")
    nu = 1.0 if args.nu is None else args.nu
    gamma = 1.0 if args.gamma is None else args.gamma
    runs = 20 if args.runs is None else args.runs
    horizon = 100_000 if args.horizon is None else _horizon(args.horizon)
    from cascading_bandits.simulate.policies import parse_policies

    policies = [x.text for x in parse_policies(args.policy)]
    cells = []
    for pol in policies:
        cid = f"{pol}-{args.order}"
        if args.weights is not None:
            cells.append(
                Cell(
                    "adhoc",
                    cid,
                    args.model,
                    tuple(_floats("weights", args.weights)),
                    args.K,
                    pol,
                    args.order,
                    horizon,
                    runs,
                    args.c,
                    nu,
                    gamma,
                )
            )
        else:
            cells.append(
                b_lb_cell(
                    "adhoc",
                    args.L,
                    args.K,
                    args.p,
                    args.delta,
                    pol,
                    args.order,
                    model=args.model,
                    nu=nu,
                    gamma=gamma,
                    horizon=horizon,
                    runs=runs,
                    c=args.c,
                    cell_id=cid,
                )
            )
    return cells


def _horizon(h):
    if h is None:
        return None
    if not math.isfinite(h) or h != int(h) or h < 1:
        raise ValueError(f"--horizon must be a positive integer, got {h!r}")
    return int(h)


def _print(results, as_json):
    rows = [r.summary() for r in results]
    if as_json:
        print(json.dumps(rows, indent=1))
        return
    w = max(len(r["cell_id"]) for r in rows)
    print(f"{'cell':<{w}}  {'runs':>5}  {'horizon':>8}  regret (mean +- se)")
    for r in rows:
        print(
            f"{r['cell_id']:<{w}}  {r['runs']:>5}  {r['horizon']:>8}  "
            f"{r['mean_regret']:.1f} +- {r['stderr']:.1f}"
        )


def run(args) -> int:
    if args.experiment is not None:
        adhoc = [args.weights, args.L, args.p, args.delta, args.K]
        if any(x is not None for x in adhoc):
            raise ValueError(
                "--experiment runs a stored grid; it does not take --weights/--L/--p/--delta/--K"
            )
        from cascading_bandits.simulate.sweep import run_experiments

        names = ["table1", "table2", "dbn"] if args.experiment == "all" else [args.experiment]
        results = run_experiments(
            names,
            args.out,
            runs=args.runs,
            horizon=_horizon(args.horizon),
            seed=args.seed,
            workers=args.workers,
            scheduler=args.scheduler,
            testing=args.testing,
            overwrite=args.overwrite,
            progress=not args.no_progress and not args.json,
        )
        _print(results, args.json)
        if not args.json:
            print(f"stored under {args.out}/", file=sys.stderr)
        return 0
    if args.testing or args.overwrite:
        raise ValueError("--testing and --overwrite apply to --experiment only")
    cells = _adhoc_cells(args)
    from cascading_bandits.simulate.runner import as_seed_sequence, run_cell
    from cascading_bandits.simulate.sweep import cell_seed

    root = as_seed_sequence(args.seed)
    if args.workers is not None or args.scheduler is not None:
        import tempfile

        from cascading_bandits.simulate.sweep import run_cells

        with tempfile.TemporaryDirectory() as tmp:
            results = run_cells(
                cells,
                tmp,
                seed=root,
                workers=args.workers,
                scheduler=args.scheduler,
                progress=not args.no_progress and not args.json,
            )
    else:
        results = [run_cell(c, cell_seed(root, c)) for c in cells]
    _print(results, args.json)
    return 0
