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
    from cascading_bandits.reports.cli.common import add_force, integer, number_list, real

    p.formatter_class = argparse.RawDescriptionHelpFormatter
    p.epilog = __doc__.split("\n", 2)[2]
    g = p.add_argument_group("experiment (stored under --out, resumable)")
    g.add_argument(
        "--experiment",
        metavar="NAME",
        help="table1, table2, dbn, ts, dbn-rba, or 'all' (all five, as the report runs them)",
    )
    g.add_argument(
        "--out", default=None, metavar="DIR", help="output directory (default: ./results)"
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
    a.add_argument("--L", type=integer("--L"), help="B_LB: number of items (default 16)")
    a.add_argument("--K", type=integer("--K"), help="number of recommended items (default 2)")
    a.add_argument("--p", type=real("--p"), help="B_LB: attraction of the K optimal items (0.2)")
    a.add_argument("--delta", type=real("--delta"), help="B_LB: gap (default 0.15)")
    a.add_argument(
        "--policy",
        default=None,
        help=_PolicyHelp(
            "comma-separated policy specs, e.g. cascade-klucb(c=0); parameters left out take "
            "their defaults (default: cascade-ucb1,cascade-klucb). Known: "
        ),
    )
    a.add_argument(
        "--order", choices=("best-first", "worst-first"), default=None, help="default best-first"
    )
    a.add_argument("--model", choices=("cascade", "dbn"), default=None, help="default cascade")
    a.add_argument(
        "--nu", type=real("--nu"), default=None, help="DBN satisfaction probability (default 1)"
    )
    a.add_argument(
        "--gamma", type=real("--gamma"), default=None, help="DBN persistence (default 1)"
    )
    a.add_argument(
        "--c",
        type=real("--c", 0.0),
        default=None,
        help="KL-UCB constant c in log t + c log log t (default 3; KL-UCB policies only)",
    )
    s = p.add_argument_group("scale and execution")
    s.add_argument(
        "--runs", type=integer("--runs"), default=None, help="independent runs per cell (20)"
    )
    s.add_argument(
        "--horizon", type=integer("--horizon"), default=None, help="steps n (default 1e5)"
    )
    s.add_argument("--seed", type=integer("--seed", 0), default=0, help="root seed (default 0)")
    s.add_argument(
        "--workers",
        type=integer("--workers"),
        default=None,
        help="local worker processes, at most the number of cores (default: all cores)",
    )
    s.add_argument(
        "--scheduler", default=None, help="Dask scheduler address (runs the cells on that cluster)"
    )
    s.add_argument(
        "--json",
        action="store_true",
        help='print one JSON object: {"out", "seed", "cells": [one summary per cell]}; '
        "stderr is null for a single run",
    )
    s.add_argument("--no-progress", action="store_true", help="no progress report on stderr")
    add_force(s)


_ADHOC = ("weights", "L", "K", "p", "delta", "policy", "order", "model", "nu", "gamma", "c")
_BLB_DEFAULT = {"L": 16, "K": 2, "p": 0.2, "delta": 0.15}
_DEFAULT_POLICY = "cascade-ucb1,cascade-klucb"


def _check_c(c, horizon, policies):
    """--c must be used by a policy and leave the KL-UCB index informative at the horizon."""
    if c is None:
        return 3.0
    if not any("klucb" in pol for pol in policies):
        raise ValueError(
            f"--c applies to the KL-UCB policies only; --policy {','.join(policies)} has no c"
        )
    # At step n every count T <= n and kl(w, 1 - 2**-53) <= 53 log 2 for every w in [0, 1]
    # (the maximum is at w = 0), so once log n + c log log n >= 53 log(2) n every KL-UCB
    # index rounds to 1 at the horizon whatever was observed: the policy ignores its data.
    if horizon > math.e and math.log(horizon) + c * math.log(math.log(horizon)) >= (
        53 * math.log(2) * horizon
    ):
        cmax = (53 * math.log(2) * horizon - math.log(horizon)) / math.log(math.log(horizon))
        raise ValueError(
            f"--c {c:g} makes every KL-UCB index 1 at n = {horizon} whatever was observed "
            f"(c log log n exceeds 53 log(2) n); use --c < {cmax:.3g}"
        )
    return c


def _workers(args):
    import os

    if args.workers is not None and args.scheduler is not None:
        raise ValueError("--workers is for local processes; with --scheduler the cluster decides")
    cores = os.cpu_count() or 1
    if args.workers is not None and args.workers > cores:
        raise ValueError(
            f"--workers must be <= {cores} (the cores of this machine), got {args.workers}"
        )
    return args.workers


def _adhoc_cells(args):
    from cascading_bandits.simulate.experiments import Cell, b_lb_cell
    from cascading_bandits.simulate.sweep import check_resources, estimate

    blb = {k: getattr(args, k) for k in ("L", "p", "delta")}
    if args.weights is not None and any(v is not None for v in blb.values()):
        raise ValueError("give either --weights or --L/--p/--delta (B_LB), not both")
    if args.weights is not None and args.K is None:
        raise ValueError("--weights needs --K")
    model = args.model or "cascade"
    if model == "cascade" and (args.nu is not None or args.gamma is not None):
        raise ValueError("--nu and --gamma apply to --model dbn only")
    nu = 1.0 if args.nu is None else args.nu
    gamma = 1.0 if args.gamma is None else args.gamma
    order = args.order or "best-first"
    runs = 20 if args.runs is None else args.runs
    horizon = 100_000 if args.horizon is None else args.horizon
    from cascading_bandits.simulate.policies import parse_policies

    policies = [x.text for x in parse_policies(args.policy or _DEFAULT_POLICY)]
    if not policies:
        raise ValueError("--policy must name at least one policy")
    c = _check_c(args.c, horizon, policies)
    params = {
        k: (_BLB_DEFAULT[k] if getattr(args, k) is None else getattr(args, k)) for k in _BLB_DEFAULT
    }
    L = len(args.weights) if args.weights is not None else params["L"]
    K = args.K if args.K is not None else params["K"]
    need = estimate([(L, K, pol, runs, horizon) for pol in policies], workers=args.workers or 1)
    what = (
        f"--runs {runs} x --horizon {horizon} on L = {L}, K = {K} "
        f"({len(policies)} polic{'y' if len(policies) == 1 else 'ies'})"
    )
    check_resources(need["bytes"], need["seconds"], force=args.force, what=what)
    cells = []
    for pol in policies:
        # the cell id is a file stem: a malformed name must fail as a policy, not as a path
        cid = re.sub(r"[^A-Za-z0-9_.()=,+-]", "_", pol).lstrip(".") + f"-{order}"
        if args.weights is not None:
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
                    c,
                    nu,
                    gamma,
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
                    c=c,
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
    from cascading_bandits.reports.cli.common import given

    workers = _workers(args)
    progress = not args.no_progress and not args.json
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
        from cascading_bandits.simulate.sweep import (
            check_resources,
            check_writable_dir,
            estimate,
            run_experiments,
        )

        names = list(EXPERIMENTS) if args.experiment == "all" else [args.experiment]
        cells = [c for n in names for c in get_experiment(n, testing=args.testing)]
        runs = args.runs or (TESTING_RUNS if args.testing else 20)
        horizon = args.horizon or (TESTING_HORIZON if args.testing else 100_000)
        specs = [(c.L, c.K, c.policy, runs, horizon) for c in cells]
        import os

        need = estimate(specs, workers=workers or os.cpu_count() or 1)
        what = f"--experiment {args.experiment} at --runs {runs} x --horizon {horizon}"
        check_resources(need["bytes"], need["seconds"], force=args.force, what=what)
        out = check_writable_dir("results" if args.out is None else args.out, "--out")
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
    ignored = given(args, "out", "testing", "overwrite")
    if ignored:
        raise ValueError(
            f"{' '.join(ignored)}: for --experiment only (ad hoc cells are not stored)"
        )
    if not given(args, *_ADHOC):
        raise ValueError(
            "give --experiment NAME (table1, table2, dbn, ts, dbn-rba or all) to run a paper "
            "experiment, or an ad hoc cell: --weights with --K, or any of --L --K --p --delta "
            "--policy --model ... (B_LB(16, 2, 0.2, 0.15) with what is given changed)"
        )
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
