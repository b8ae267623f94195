"""``cascading simulate``: run a paper experiment, or ad hoc cells, and print regret.

Experiments (stored under ``--out``, resumable)::

    cascading simulate --experiment table1 [--runs 20] [--horizon 100000] [--out DIR]
                       [--workers N] [--scheduler ADDRESS] [--seed S] [--testing] [--overwrite]
    cascading simulate --experiment all        # the five experiments the report uses

Ad hoc (printed, not stored)::

    cascading simulate --weights 0.2,0.2,0.05,0.05 --K 2 --policy cascade-klucb --json
    cascading simulate --K 4 --model dbn --nu 0.7 --gamma 0.7 \\
                       --policy cascade-klucb,ranked-klucb --json   # B_LB(16, 4, 0.2, 0.15)
"""

from __future__ import annotations

import argparse
import math
import re
import sys


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
    from cascading_bandits.reports.cli.common import (
        add_workers,
        directory,
        integer,
        name_list,
        number_list,
        real,
        text,
    )

    p.formatter_class = argparse.RawDescriptionHelpFormatter
    p.epilog = __doc__.split("\n", 2)[2]
    g = p.add_argument_group("experiment (stored under --out, resumable)")
    g.add_argument(
        "--experiment",
        metavar="NAME",
        type=text("--experiment", "an experiment's name"),
        help="table1, table2, dbn, ts, dbn-rba, or 'all' (all five, as the report runs them)",
    )
    g.add_argument(
        "--out",
        default=None,
        metavar="DIR",
        type=directory("--out"),
        help="output directory (default: ./results)",
    )
    g.add_argument("--testing", action="store_true", help="the tiny TESTING subset (smoke test)")
    g.add_argument("--overwrite", action="store_true", help="recompute and replace stored cells")
    a = p.add_argument_group(
        "ad hoc cell (printed, not stored): --weights with --K, or B_LB(16, 2, 0.2, 0.15) "
        "with any of --L --K --p --delta changed"
    )
    a.add_argument(
        "--weights",
        type=number_list("--weights"),
        help="attraction probabilities, comma-separated (rho for --model dbn)",
    )
    a.add_argument(
        "--instance",
        type=text("--instance", "a real instance's name"),
        metavar="NAME",
        help="a real instance instead of --weights (yandex:<query>[:top], kdd:<query>[:top]; "
        "simulate.real_instances): its attraction probabilities, K its number of positions "
        "unless --K, and with --model pbm its fitted examination probabilities",
    )
    a.add_argument("--L", type=integer("--L"), help="B_LB: number of items (default 16)")
    a.add_argument("--K", type=integer("--K"), help="number of recommended items (default 2)")
    a.add_argument("--p", type=real("--p"), help="B_LB: attraction of the K optimal items (0.2)")
    a.add_argument("--delta", type=real("--delta"), help="B_LB: gap (default 0.15)")
    a.add_argument(
        "--policy",
        default=None,
        type=name_list("--policy", "policy specs"),
        help=_PolicyHelp(
            "comma-separated policy specs, e.g. cascade-klucb(c=0); parameters left out take "
            "their defaults (default: cascade-ucb1,cascade-klucb). Known: "
        ),
    )
    a.add_argument(
        "--order", choices=("best-first", "worst-first"), default=None, help="default best-first"
    )
    a.add_argument(
        "--model",
        choices=("cascade", "dbn", "pbm", "dcm"),
        default=None,
        help="click model (default cascade): dbn (--nu, --gamma), pbm (examination 1/k, or the "
        "real instance's), dcm (continuation k/(k+1))",
    )
    a.add_argument(
        "--nu", type=real("--nu"), default=None, help="DBN satisfaction probability (default 1)"
    )
    a.add_argument(
        "--gamma", type=real("--gamma"), default=None, help="DBN persistence (default 1)"
    )
    s = p.add_argument_group("scale and execution")
    s.add_argument(
        "--runs", type=integer("--runs"), default=None, help="independent runs per cell (20)"
    )
    s.add_argument(
        "--horizon", type=integer("--horizon"), default=None, help="steps n (default 1e5)"
    )
    s.add_argument("--seed", type=integer("--seed", 0), default=0, help="root seed (default 0)")
    add_workers(s)
    s.add_argument(
        "--scheduler",
        default=None,
        type=text("--scheduler", "a Dask scheduler's address"),
        help="Dask scheduler address (runs the cells on that cluster)",
    )
    s.add_argument(
        "--json",
        action="store_true",
        help='print one JSON object: {"out", "seed", "cells": [one summary per cell]}; '
        "stderr is null for a single run",
    )
    s.add_argument("--no-progress", action="store_true", help="no progress report on stderr")


_ADHOC = ("instance", "weights", "L", "K", "p", "delta", "policy", "order", "model", "nu", "gamma")
_BLB_DEFAULT = {"L": 16, "K": 2, "p": 0.2, "delta": 0.15}
_DEFAULT_POLICY = ["cascade-ucb1", "cascade-klucb"]


def check_klucb_c(specs, horizon) -> None:
    """A policy's KL-UCB constant ``c`` must leave its index informative at the horizon.

    At step n every count T <= n and kl(w, 1 - 2**-53) <= 53 log 2 for every w in [0, 1]
    (the maximum is at w = 0), so once log n + c log log n >= 53 log(2) n every KL-UCB index
    rounds to 1 at the horizon whatever was observed: the policy ignores its data.
    """
    for spec in specs:
        c = spec.params.get("c")
        if c is None or not isinstance(c, (int, float)) or horizon <= math.e:
            continue
        if math.log(horizon) + c * math.log(math.log(horizon)) >= 53 * math.log(2) * horizon:
            cmax = (53 * math.log(2) * horizon - math.log(horizon)) / math.log(math.log(horizon))
            raise ValueError(
                f"{spec.text}: c = {c:g} makes every KL-UCB index 1 at n = {horizon} whatever "
                f"was observed (c log log n exceeds 53 log(2) n); use c < {cmax:.3g}"
            )


def _plan(args):
    """The validated plan, computed once: ("experiment", names, cells, runs, horizon) or
    ("adhoc", specs, L, K, runs, horizon)."""
    if getattr(args, "_plan", None) is not None:
        return args._plan
    from cascading_bandits.reports.cli.common import check_scheduler, check_workers, given

    check_workers(args.workers, args.scheduler)
    if args.experiment is not None:
        extra = given(args, *_ADHOC)
        if extra:
            raise ValueError(f"--experiment runs a stored grid; it does not take {' '.join(extra)}")
        from cascading_bandits.simulate.experiments import (
            EXPERIMENTS,
            TESTING_HORIZON,
            TESTING_RUNS,
            get_experiment,
        )

        names = list(EXPERIMENTS) if args.experiment == "all" else [args.experiment]
        cells = [c for n in names for c in get_experiment(n, testing=args.testing)]
        runs = args.runs or (TESTING_RUNS if args.testing else 20)
        horizon = args.horizon or (TESTING_HORIZON if args.testing else 100_000)
        plan = ("experiment", names, cells, runs, horizon)
    else:
        ignored = given(args, "out", "testing", "overwrite")
        if ignored:
            raise ValueError(
                f"{' '.join(ignored)}: for --experiment only (ad hoc cells are not stored)"
            )
        if not given(args, *_ADHOC):
            raise ValueError(
                "give --experiment NAME (table1, table2, dbn, ts, dbn-rba or all) to run a "
                "paper experiment, or an ad hoc cell: --weights with --K, or any of --L --K "
                "--p --delta --policy --model ... (B_LB(16, 2, 0.2, 0.15) with what is given "
                "changed)"
            )
        blb = {k: getattr(args, k) for k in ("L", "p", "delta")}
        if args.weights is not None and any(v is not None for v in blb.values()):
            raise ValueError("give either --weights or --L/--p/--delta (B_LB), not both")
        if args.weights is not None and args.K is None:
            raise ValueError("--weights needs --K")
        real = None
        if args.instance is not None:
            given = [f"--{k}" for k in ("weights", "L", "p", "delta") if getattr(args, k)]
            if given:
                raise ValueError(f"give either --instance or {' '.join(given)}, not both")
            from cascading_bandits.simulate.real_instances import parse_instance_name

            weights, _kappa, inst_K, _label = parse_instance_name(args.instance)
            real = (len(weights), inst_K if args.K is None else args.K)
        if (args.model or "cascade") != "dbn" and (args.nu is not None or args.gamma is not None):
            raise ValueError("--nu and --gamma apply to --model dbn only")
        from cascading_bandits.simulate.policies import parse_policy

        specs = [parse_policy(x) for x in (args.policy or _DEFAULT_POLICY)]
        texts = [x.text for x in specs]
        if len(set(texts)) != len(texts):
            raise ValueError(f"--policy names a policy twice: {','.join(args.policy)}")
        runs = 20 if args.runs is None else args.runs
        horizon = 100_000 if args.horizon is None else args.horizon
        check_klucb_c(specs, horizon)
        L = len(args.weights) if args.weights is not None else (args.L or _BLB_DEFAULT["L"])
        K = args.K if args.K is not None else _BLB_DEFAULT["K"]
        if real is not None:
            L, K = real
        plan = ("adhoc", specs, L, K, runs, horizon)
    if args.scheduler is not None:
        check_scheduler(args.scheduler)
    args._plan = plan
    return plan


def cost(args):
    """:func:`simulate.sweep.estimate` of the cells to run."""
    import os

    from cascading_bandits.simulate.sweep import estimate

    plan = _plan(args)
    if plan[0] == "experiment":
        _, names, cells, runs, horizon = plan
        specs = [(c.L, c.K, c.policy, runs, horizon) for c in cells]
        need = estimate(specs, workers=args.workers or os.cpu_count() or 1)
        return need, f"--experiment {args.experiment} at --runs {runs} x --horizon {horizon}"
    _, specs, L, K, runs, horizon = plan
    need = estimate([(L, K, x.text, runs, horizon) for x in specs], workers=args.workers or 1)
    what = (
        f"--runs {runs} x --horizon {horizon} on L = {L}, K = {K} "
        f"({len(specs)} polic{'y' if len(specs) == 1 else 'ies'})"
    )
    return need, what


def _adhoc_cells(args):
    from cascading_bandits.simulate.experiments import Cell, b_lb_cell, instance_cell

    _, specs, L, K, runs, horizon = _plan(args)
    model = args.model or "cascade"
    nu = 1.0 if args.nu is None else args.nu
    gamma = 1.0 if args.gamma is None else args.gamma
    order = args.order or "best-first"
    params = {
        k: (_BLB_DEFAULT[k] if getattr(args, k) is None else getattr(args, k)) for k in _BLB_DEFAULT
    }
    cells = []
    for spec in specs:
        pol = spec.text
        # the cell id is a file stem: a malformed name must fail as a policy, not as a path
        cid = re.sub(r"[^A-Za-z0-9_.()=,+-]", "_", pol).lstrip(".") + f"-{order}"
        if args.instance is not None:
            cells.append(
                instance_cell(
                    "adhoc",
                    args.instance,
                    pol,
                    order,
                    model=model,
                    K=args.K,
                    nu=nu,
                    gamma=gamma,
                    horizon=horizon,
                    runs=runs,
                    cell_id=cid,
                )
            )
        elif args.weights is not None:
            cells.append(
                Cell(
                    "adhoc",
                    cid,
                    model,
                    tuple(args.weights),
                    args.K,
                    pol,
                    order,
                    horizon,
                    runs,
                    nu=nu,
                    gamma=gamma,
                )
            )
        else:
            cells.append(
                b_lb_cell(
                    "adhoc",
                    params["L"],
                    params["K"],
                    params["p"],
                    params["delta"],
                    pol,
                    order,
                    model=model,
                    nu=nu,
                    gamma=gamma,
                    horizon=horizon,
                    runs=runs,
                    cell_id=cid,
                )
            )
    return cells


def _print(results, as_json, out=None, seed=0):
    from cascading_bandits.reports.cli.common import emit_json

    rows = [r.summary() for r in results]
    if as_json:
        emit_json({"out": None if out is None else str(out), "seed": seed, "cells": rows})
        return
    w = max(len(r["cell_id"]) for r in rows)
    print(f"{'cell':<{w}}  {'runs':>5}  {'horizon':>8}  regret (mean +- se)")
    for r in rows:
        se = "n/a" if r["stderr"] is None else f"{r['stderr']:.1f}"
        head = f"{r['cell_id']:<{w}}  {r['runs']:>5}  {r['horizon']:>8}"
        print(f"{head}  {r['mean_regret']:.1f} +- {se}")


def run(args) -> int:
    from cascading_bandits.reports.cli.common import out_dir

    plan = _plan(args)
    workers = args.workers
    progress = not args.no_progress and not args.json
    if plan[0] == "experiment":
        from cascading_bandits.simulate.sweep import run_experiments

        names = plan[1]
        out = out_dir("results" if args.out is None else args.out, "--out")
        results = run_experiments(
            names,
            out,
            runs=args.runs,
            horizon=args.horizon,
            seed=args.seed,
            workers=workers,
            scheduler=args.scheduler,
            testing=args.testing,
            overwrite=args.overwrite,
            progress=progress,
        )
        _print(results, args.json, out, args.seed)
        if not args.json:
            print(f"stored under {out}/", file=sys.stderr)
        return 0
    cells = _adhoc_cells(args)
    from cascading_bandits.simulate.runner import as_seed_sequence, run_cell
    from cascading_bandits.simulate.sweep import cell_seed

    root = as_seed_sequence(args.seed)
    if workers is not None or args.scheduler is not None:
        import tempfile

        from cascading_bandits.simulate.sweep import run_cells

        with tempfile.TemporaryDirectory() as tmp:
            results = run_cells(
                cells,
                tmp,
                seed=root,
                workers=workers,
                scheduler=args.scheduler,
                progress=progress,
            )
    else:
        results = [run_cell(c, cell_seed(root, c)) for c in cells]
    _print(results, args.json, None, args.seed)
    return 0
