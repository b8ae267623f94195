"""``cascading search``: find the instances where a policy or a bound does worst.

Examples::

    # the instance where CascadeUCB1's regret exceeds CascadeKL-UCB's the most, K = 4, L = 16
    cascading search --objective ratio --policy cascade-ucb1,cascade-klucb --K 4 --L 16
    # the same for K = 2, 4, 8, 16 (L = 4K each) and the growth of the factor with K
    cascading search --objective ratio --K 2,4,8,16 --L-per-K 4 --json
    # the instance where Theorem 2 is tightest (regret / bound largest)
    cascading search --objective bound --policy cascade-ucb1 --K 2 --L 8
    # the same for the gap-free Corollary 3 of Theorem 3 (its policy, cascade-klucb, implied)
    cascading search --objective bound --bound corollary3 --K 2 --L 6
    # any registered upper bound with a constant (cascading bounds --list), e.g. the exact LP
    cascading search --objective bound --bound theorem2-lp --K 2 --L 6
    # the worst regret found at several horizons, beside sqrt(nL) and sqrt(nLK)
    cascading search --objective regret --policy cascade-ucb1,cascade-klucb --K 4 --L 16 \
        --horizon 1e3,1e4,1e5 --out worst

With --out DIR the results go to DIR/search.json and, for the factor against K and the
worst regret against n, the figure to DIR/search.png and .pdf; existing files there are
never replaced.
"""

from __future__ import annotations

import argparse
import json

from cascading_bandits.reports.cli.common import integer, integer_list


def add_arguments(p: argparse.ArgumentParser) -> None:
    from cascading_bandits.bounds.registry import bound_names

    p.formatter_class = argparse.RawDescriptionHelpFormatter
    p.epilog = __doc__.split("\n", 2)[2]
    p.add_argument(
        "--objective",
        choices=("ratio", "bound", "regret"),
        default="ratio",
        help="ratio (A's regret / B's), bound (A's regret / its bound) or regret (A's regret)",
    )
    # read from the registry as the parser is built: a bound registered by a catalog module
    # or by the user's own code before the command line runs is listed and accepted
    names = ", ".join(bound_names("upper", "constant"))
    p.add_argument(
        "--policy",
        default=None,
        help="A,B for ratio (default cascade-ucb1,cascade-klucb); A for regret; A for bound "
        "(a policy the bound covers, with the parameter values its proof needs; default the "
        "first policy --bound covers)",
    )
    p.add_argument(
        "--bound",
        default=None,
        help=f"bound: which registered upper bound with a constant ({names}); default the "
        "policy's paper theorem (theorem2 for cascade-ucb1, theorem3 for cascade-klucb), else "
        "the first registered bound covering it; 'cascading bounds --list' describes them",
    )
    p.add_argument(
        "--K",
        type=integer_list("--K"),
        default=[2],
        help="list length, or a comma-separated list of them",
    )
    p.add_argument("--L", type=int, default=None, help="number of items (default 4K)")
    p.add_argument("--L-per-K", type=int, default=None, help="L = this times K (default 4)")
    p.add_argument(
        "--family",
        choices=("free", "two-level"),
        default="free",
        help="free (one weight per item) or two-level",
    )
    p.add_argument("--w-min", type=float, default=0.0, help="smallest weight (default 0)")
    p.add_argument("--w-max", type=float, default=1.0, help="largest weight (default 1)")
    p.add_argument(
        "--order",
        choices=("best-first", "worst-first"),
        default="best-first",
        help="best-first (default) or worst-first",
    )
    p.add_argument(
        "--horizon",
        type=integer_list("--horizon"),
        default=[10_000],
        help="steps per candidate (1e4); for regret, a comma-separated list of horizons",
    )
    p.add_argument("--runs", type=int, default=4, help="runs per candidate (default 4)")
    p.add_argument("--maxiter", type=int, default=20, help="optimiser generations (default 20)")
    p.add_argument("--popsize", type=int, default=8, help="population per dimension (default 8)")
    p.add_argument("--confirm-runs", type=int, default=20, help="fresh runs for the optimum (20)")
    p.add_argument(
        "--confirm-horizon",
        type=integer("--confirm-horizon"),
        default=None,
        help="their horizon (default --horizon)",
    )
    p.add_argument("--min-regret", type=float, default=None, help="ratio: B's floor (sqrt(n))")
    p.add_argument("--seed", type=int, default=0, help="root seed (default 0)")
    p.add_argument("--json", action="store_true", help="print one JSON document")
    p.add_argument("--out", default=None, help="directory for search.json and the figure")


def _outputs(out):
    """The directory --out names, refused up front if any file a search could write there
    exists (nothing is replaced)."""
    from cascading_bandits.simulate.sweep import check_writable_dir

    if out is None:
        return None
    # empty, ~user, through a file, not writable: refused before the search, nothing created
    d = check_writable_dir(out, "--out", create=False).resolve()
    files = [d / "search.json", d / "search.png", d / "search.pdf"]
    for f in files:
        if f.exists():
            raise ValueError(f"{f} already exists; choose another --out (nothing is replaced)")
    return d


def _write(d, doc, fig):
    """search.json, and search.png and .pdf when there is a figure (``fig`` not None)."""
    import os

    d.mkdir(parents=True, exist_ok=True)
    files = [("search.json", lambda p: p.write_text(json.dumps(doc, indent=1, allow_nan=False)))]
    if fig is not None:
        files += [
            ("search.png", lambda p: fig.savefig(p, dpi=200, bbox_inches="tight", format="png")),
            ("search.pdf", lambda p: fig.savefig(p, bbox_inches="tight", format="pdf")),
        ]
    for name, write in files:
        tmp = d / f".{name}.tmp"
        write(tmp)
        os.replace(tmp, d / name)


def run(args) -> int:
    from cascading_bandits.bounds.registry import bound_names, get_bound
    from cascading_bandits.simulate.search import (
        bound_policy,
        factor_against_K,
        search,
        worst_regret_curve,
    )

    Ks = list(args.K)
    if args.bound is not None and args.objective != "bound":
        raise ValueError(f"--bound is for --objective bound, got --objective {args.objective}")
    if args.policy is None:
        pols = ["cascade-ucb1", "cascade-klucb"] if args.objective != "bound" else []
        if args.bound is not None:
            pols = [bound_policy(args.bound)]  # the first policy the bound covers
    else:
        pols = [x.strip() for x in args.policy.split(",") if x.strip()]
    out = _outputs(args.out)
    if args.objective == "bound" and args.policy is None and args.bound is None:
        raise ValueError(
            "--objective bound needs --policy A or --bound NAME (registered upper bounds with "
            f"a constant: {', '.join(bound_names('upper', 'constant'))})"
        )
    hs = list(args.horizon)
    if len(hs) > 1 and args.objective != "regret":
        raise ValueError("several --horizon values are for --objective regret")
    kw = dict(
        family=args.family,
        w_min=args.w_min,
        w_max=args.w_max,
        order=args.order,
        horizon=hs[0],
        runs=args.runs,
        maxiter=args.maxiter,
        popsize=args.popsize,
        seed=args.seed,
        confirm_runs=args.confirm_runs,
        confirm_horizon=args.confirm_horizon,
        min_regret=args.min_regret,
    )
    fig = None
    if args.objective == "regret":
        if len(Ks) > 1:
            raise ValueError("--objective regret takes one --K")
        if args.confirm_horizon is not None:
            raise ValueError(
                "--objective regret re-measures at each --horizon; no --confirm-horizon"
            )
        L = args.L if args.L is not None else (args.L_per_K or 4) * Ks[0]
        kw.pop("horizon")
        kw.pop("confirm_horizon")
        curves = worst_regret_curve(pols, hs, L=L, K=Ks[0], **kw)
        results = [r for res in curves.values() for r in res]
        slope = None
        doc = {"results": [r.to_dict() for r in results], "L": L, "K": Ks[0]}
        if out is not None:
            from cascading_bandits.reports.search_figures import worst_regret_figure

            fig = worst_regret_figure(curves, L=L, K=Ks[0])
    elif len(Ks) > 1:
        if args.objective != "ratio":
            raise ValueError("several --K values are for --objective ratio (the factor against K)")
        if args.L is not None and args.L_per_K is not None:
            raise ValueError("give --L (the same L for every K) or --L-per-K, not both")
        results, slope = factor_against_K(Ks, pols, L=args.L, L_per_K=args.L_per_K or 4, **kw)
        doc = {
            "results": [r.to_dict() for r in results],
            "slope_log_factor_vs_log_K": slope,
        }
        if out is not None:
            from cascading_bandits.reports.search_figures import factor_against_K_figure

            fig = factor_against_K_figure(results)
    else:
        if args.L_per_K is not None and args.L is not None:
            raise ValueError("give --L or --L-per-K, not both")
        L = args.L if args.L is not None else (args.L_per_K or 4) * Ks[0]
        if args.objective == "bound":
            kw["bound"] = args.bound
        results = [search(args.objective, pols, L=L, K=Ks[0], **kw)]
        slope = None
        doc = {"results": [results[0].to_dict()]}
    if out is not None:
        _write(out, doc, fig)
    if args.json:
        print(json.dumps(doc, indent=1, allow_nan=False))
        return 0
    for r in results:
        d = r.to_dict()
        what = {
            "ratio": " / ".join(r.policies),
            "bound": f"{r.policies[0]} / {r.bound_name}",
            "regret": f"regret of {r.policies[0]}",
        }[r.objective]
        print(
            f"K={r.K} L={d['L']} n={d['settings']['confirm_horizon']}: {what} = {r.value:.3f} "
            f"[{r.ci_low:.3f}, {r.ci_high:.3f}] ({int(100 * d['settings']['confidence'])}% CI, "
            f"{d['settings']['confirm_runs']} fresh runs; search value {r.search_value:.3f}, "
            f"{r.evaluations} candidates)"
        )
        print("  weights: " + ",".join(f"{w:.4g}" for w in r.weights))
        for pol, m in r.mean_regret.items():
            lo, hi = r.regret_ci[pol]
            print(f"  mean regret {pol}: {m:.1f} [{lo:.1f}, {hi:.1f}]")
        if r.bound is not None:
            b = get_bound(r.bound_name)
            at = f"{r.bound:.1f}"
            if r.bound == float("inf"):
                at = "inf (the bound does not apply here)"
            print(f"  bound {r.bound_name} ({b.title}): {at}")
    if slope is not None:
        print(f"slope of log(factor) against log(K): {slope:.3f} (sqrt(K) growth is 0.5)")
    if out is not None:
        print(
            f"written: {out / 'search.json'}" + (f" and {out / 'search.png'}, .pdf" if fig else "")
        )
    return 0
