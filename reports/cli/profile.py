"""``cascading profile``: a chain of bounds on R(n), link by link, on simulated runs.

Examples::

    cascading profile --L 16 --K 2 --p 0.2 --delta 0.15 --policy cascade-klucb
    cascading profile --L 16 --K 2 --p 0.2 --delta 0.15 --policy cascade-ucb1 --chain binomial
    cascading profile --weights 0.5,0.4,0.3,0.1,0.1 --K 2 --policy cascade-ucb1 \\
        --order worst-first --runs 20 --horizon 1e5 --json --out profile-out

``--chain paper`` (the default) follows the proof of Theorem 2 (CascadeUCB1) or 3
(CascadeKL-UCB), Appendix A of the paper; ``--chain binomial`` the shorter chain of the
binomial bounds derived in docs/sharper_bounds.md (Theorem 1's charge, the split at the
optimal items' means, the binomial tails). Prints each link (its step), its value as a
bound on R(n) and its ratio to the previous link with a 95% bootstrap interval over runs.
``--out DIR`` also writes ``DIR/<policy>-<order>.json`` and the slack waterfall
``DIR/<policy>-<order>-waterfall.png`` (``.pdf`` too); the binomial chain's files are named
``<policy>-<order>-binomial...``. Existing files are not overwritten unless ``--overwrite``.
"""

from __future__ import annotations

import argparse
import sys

from cascading_bandits.reports.cli.common import directory, integer, number_list, real, text


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.formatter_class = argparse.RawDescriptionHelpFormatter
    p.epilog = __doc__.split("\n", 2)[2]
    a = p.add_argument_group("instance")
    a.add_argument(
        "--weights", type=number_list("--weights"), help="attraction probabilities, comma-separated"
    )
    a.add_argument("--L", type=integer("--L"), help="B_LB(L, K, p, delta): number of items")
    a.add_argument("--p", type=real("--p"), help="B_LB: attraction of the K optimal items")
    a.add_argument("--delta", type=real("--delta"), help="B_LB: gap")
    a.add_argument("--K", type=integer("--K"), help="number of recommended items")
    a.add_argument(
        "--policy",
        default="cascade-klucb",
        type=text("--policy", "a policy's name"),
        help="cascade-klucb (default) or cascade-ucb1",
    )
    a.add_argument(
        "--order",
        choices=("best-first", "worst-first"),
        default="best-first",
        help="best-first (default) or worst-first",
    )
    s = p.add_argument_group("runs and proof")
    s.add_argument("--runs", type=integer("--runs"), default=20, help="independent runs (20)")
    s.add_argument("--horizon", type=integer("--horizon"), default=100_000, help="steps n (1e5)")
    s.add_argument("--seed", type=integer("--seed", 0), default=0, help="root seed (default 0)")
    s.add_argument(
        "--chain",
        choices=("paper", "binomial"),
        default="paper",
        help="paper: the proof of Theorem 2 or 3 (default); binomial: the binomial bounds' "
        "chain (docs/sharper_bounds.md)",
    )
    s.add_argument(
        "--eps",
        type=real("--eps"),
        default=None,
        help="Theorem 3's eps (default: optimal; paper chain)",
    )
    s.add_argument(
        "--form",
        choices=("paper", "proof"),
        default=None,
        help="Theorem 3's constant C: paper (default) or proof (paper chain)",
    )
    s.add_argument(
        "--threads", type=integer("--threads"), default=None, help="numba threads (numba's)"
    )
    o = p.add_argument_group("output")
    o.add_argument("--json", action="store_true", help="print the chain as JSON")
    o.add_argument(
        "--out",
        default=None,
        type=directory("--out"),
        help="directory for the chain's JSON and waterfall",
    )
    o.add_argument("--overwrite", action="store_true", help="replace existing files in --out")


def _check(args):
    """The options checked before anything is built or run."""
    from cascading_bandits.bounds import _validate as V
    from cascading_bandits.bounds.profile import CHAIN_POLICIES

    V.choice("policy", args.policy, CHAIN_POLICIES)
    if args.K is None:
        raise ValueError("--K is required")
    blb = [args.L, args.p, args.delta]
    if args.weights is not None and any(x is not None for x in blb):
        raise ValueError("give either --weights or --L/--p/--delta, not both")
    if args.weights is None and any(x is None for x in blb):
        raise ValueError("give --weights, or all of --L, --p and --delta (B_LB)")
    if args.chain == "binomial":
        given = [o for o, v in (("--eps", args.eps), ("--form", args.form)) if v is not None]
        if given:
            raise ValueError(
                f"{' and '.join(given)} {'is' if len(given) == 1 else 'are'} for Theorem 3's "
                "proof (--chain paper); the binomial chain has no eps"
            )
    if args.threads is not None:
        import numba

        top = numba.config.NUMBA_NUM_THREADS
        if args.threads > top:
            raise ValueError(
                f"--threads must be <= {top} (numba's NUMBA_NUM_THREADS), got {args.threads}"
            )
    return len(args.weights) if args.weights is not None else args.L


def cost(args):
    """:func:`simulate.counters.estimate` of the counted runs plus the chain's bounds
    (:func:`bounds.overview.estimate`)."""
    from cascading_bandits.bounds.overview import estimate as bounds_estimate
    from cascading_bandits.simulate.counters import estimate

    L = _check(args)
    need = estimate(L, args.K, args.runs, args.horizon, threads=args.threads)
    need["seconds"] += bounds_estimate(L)["seconds"]
    what = f"this profile (--runs {args.runs} x --horizon {args.horizon} on L = {L}, K = {args.K})"
    return need, what


def _cell(args):
    from cascading_bandits.simulate.experiments import Cell, b_lb_cell

    n = args.horizon
    cid = f"{args.policy}-{args.order}"
    if args.weights is not None:
        w = tuple(args.weights)
        return Cell("profile", cid, "cascade", w, args.K, args.policy, args.order, n, args.runs)
    return b_lb_cell(
        "profile", args.L, args.K, args.p, args.delta, args.policy, args.order,
        horizon=n, runs=args.runs, cell_id=cid,
    )  # fmt: skip


def run(args) -> int:
    from pathlib import Path

    from cascading_bandits.reports.cli.common import emit_json, json_text, out_dir
    from cascading_bandits.reports.profile_report import chain_text, profile_cell, waterfall_figure

    _check(args)
    form = "paper" if args.form is None else args.form
    cell = _cell(args)
    paths = []
    if args.out is not None:
        out = out_dir(args.out, "--out", create=False)
        stem = f"{cell.policy}-{cell.order}" + ("-binomial" if args.chain == "binomial" else "")
        paths = [out / f"{stem}.json"] + [out / f"{stem}-waterfall.{x}" for x in ("png", "pdf")]
        clash = [str(x) for x in paths if x.exists()]
        if clash and not args.overwrite:
            raise ValueError(
                f"{', '.join(clash)} already exist(s); refusing to overwrite (pass --overwrite)"
            )
    ch = profile_cell(
        cell, args.seed, eps=args.eps, form=form, threads=args.threads, chain=args.chain
    )
    text_json = json_text(ch, indent=1, default=_json_default)  # inf (p = 1) is null
    if args.json:
        emit_json(ch, default=_json_default)
    else:
        print(chain_text(ch))
    if paths:
        from cascading_bandits.reports.build import _atomic_write

        out_dir(paths[0].parent, "--out")
        _atomic_write(paths[0], lambda tmp: Path(tmp).write_text(text_json))
        fig = waterfall_figure(ch)
        for pth in paths[1:]:
            _atomic_write(pth, lambda tmp, pth=pth: fig.savefig(tmp, format=pth.suffix[1:]))
        print(f"wrote {', '.join(str(x) for x in paths)}", file=sys.stderr)
    return 0


def _json_default(x):
    from cascading_bandits.reports.build import _json_default as convert

    return convert(x)
