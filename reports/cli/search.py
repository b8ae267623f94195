"""``cascading search``: find the instances where a policy or a bound does worst.

Examples::

    # the instance where CascadeUCB1's regret exceeds CascadeKL-UCB's the most, K = 4, L = 16
    cascading search --objective ratio --policy cascade-ucb1,cascade-klucb --K 4 --L 16
    # the same for K = 2, 4, 8, 16 (L = 4K each) and the growth of the factor with K
    # (estimated beyond the hour the resource guard allows unasked: --force)
    cascading search --objective ratio --K 2,4,8,16 --L-per-K 4 --json --force
    # the instance where Theorem 2 is tightest (regret / bound largest)
    cascading search --objective bound --policy cascade-ucb1 --K 2 --L 8
    # the same for the gap-free Corollary 3 of Theorem 3 (its policy, cascade-klucb, implied)
    cascading search --objective bound --bound corollary3 --K 2 --L 6
    # any registered upper bound with a constant (cascading bounds --list), e.g. the exact LP
    cascading search --objective bound --bound theorem2-lp --K 2 --L 6
    # the worst regret found at several horizons, beside sqrt(nL) and sqrt(nLK)
    cascading search --objective regret --policy cascade-ucb1,cascade-klucb --K 4 --L 16 \
        --horizon 1e3,1e4,1e5 --out worst
    # instances shaped like a real query: its items and positions, weights in its range
    cascading search --objective ratio --instance yandex:4102451:top --w-min 0 --maxiter 5

``--instance NAME`` (a real instance, as ``cascading study`` and ``ledger`` take it) sets L
to its number of items and K to its number of positions (unless --K), and the weights'
range to [its smallest, its largest weight] (unless --w-min / --w-max): the search looks
among instances of that size and click-rate range. The users simulated are cascade users
(``simulate.search``): ``--model`` accepts ``cascade`` and refuses the others in one line.

With --out DIR the results go to DIR/search.json and, for the factor against K and the
worst regret against n, the figure to DIR/search.png and .pdf; existing files there are
never replaced.
"""

from __future__ import annotations

import argparse

from cascading_bandits.reports.cli.common import (
    directory,
    emit_json,
    integer,
    integer_list,
    json_text,
    name_list,
    out_dir,
    real,
    text,
)

#: the click models the command line names (bounds.registry.MODELS, not imported: building
#: the parser stays cheap)
MODELS = ("cascade", "dbn", "pbm", "dcm")


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
        type=name_list("--policy", "policy specs"),
        help="A,B for ratio (default cascade-ucb1,cascade-klucb); A for regret; A for bound "
        "(a policy the bound covers, with the parameter values its proof needs; default the "
        "first policy --bound covers)",
    )
    p.add_argument(
        "--bound",
        default=None,
        type=text("--bound", "a registered bound's name"),
        help=f"bound: which registered upper bound with a constant ({names}); default the "
        "policy's paper theorem (theorem2 for cascade-ucb1, theorem3 for cascade-klucb), else "
        "the first registered bound covering it; 'cascading bounds --list' describes them",
    )
    p.add_argument(
        "--instance",
        type=text("--instance", "a real instance's name"),
        metavar="NAME",
        default=None,
        help="a real instance (yandex:<query>[:top], kdd:<query>[:top]; simulate."
        "real_instances): search instances of its size (L its items, K its positions unless "
        "--K) with weights in its range (unless --w-min/--w-max); not with --L/--L-per-K",
    )
    p.add_argument(
        "--model",
        choices=MODELS,
        default=None,
        help="the click model of the simulated users: cascade (the default and the only one "
        "simulate.search simulates; another is refused)",
    )
    p.add_argument(
        "--K",
        type=integer_list("--K", distinct=True),
        default=None,
        help="list length (2, or --instance's positions), or a comma-separated list of "
        "different ones (the factor against K: a slope needs two)",
    )
    p.add_argument("--L", type=integer("--L", 2), default=None, help="number of items (4K)")
    p.add_argument(
        "--L-per-K", type=integer("--L-per-K", 2), default=None, help="L = this times K (4)"
    )
    p.add_argument(
        "--family",
        choices=("free", "two-level"),
        default="free",
        help="free (one weight per item) or two-level",
    )
    p.add_argument(
        "--w-min",
        type=real("--w-min", 0.0, 1.0),
        default=None,
        help="smallest weight (0, or --instance's smallest)",
    )
    p.add_argument(
        "--w-max",
        type=real("--w-max", 0.0, 1.0),
        default=None,
        help="largest weight (1, or --instance's largest)",
    )
    p.add_argument(
        "--order",
        choices=("best-first", "worst-first"),
        default="best-first",
        help="best-first (default) or worst-first",
    )
    p.add_argument(
        "--horizon",
        type=integer_list("--horizon", distinct=True),
        default=[10_000],
        help="steps per candidate (1e4); for regret, a comma-separated list of horizons",
    )
    p.add_argument("--runs", type=integer("--runs"), default=4, help="runs per candidate (4)")
    p.add_argument(
        "--maxiter", type=integer("--maxiter"), default=20, help="optimiser generations (20)"
    )
    p.add_argument(
        "--popsize", type=integer("--popsize"), default=8, help="population per dimension (8)"
    )
    p.add_argument(
        "--confirm-runs",
        type=integer("--confirm-runs", 2),
        default=20,
        help="fresh runs for the optimum (20)",
    )
    p.add_argument(
        "--confirm-horizon",
        type=integer("--confirm-horizon"),
        default=None,
        help="their horizon (default --horizon)",
    )
    p.add_argument(
        "--min-regret", type=real("--min-regret", 0.0), default=None, help="ratio: B's floor"
    )
    p.add_argument("--seed", type=integer("--seed", 0), default=0, help="root seed (default 0)")
    p.add_argument("--json", action="store_true", help="print one JSON document")
    p.add_argument(
        "--out",
        default=None,
        type=directory("--out"),
        help="directory for search.json and the figure",
    )


def _outputs(out):
    """The directory --out names, refused up front if any file a search could write there
    exists (nothing is replaced)."""
    if out is None:
        return None
    # empty, ~user, through a file, not writable: refused before the search, nothing created
    d = out_dir(out, "--out", create=False).resolve()
    files = [d / "search.json", d / "search.png", d / "search.pdf"]
    for f in files:
        if f.exists():
            raise ValueError(f"{f} already exists; choose another --out (nothing is replaced)")
    return d


def _write(d, doc, fig):
    """search.json, and search.png and .pdf when there is a figure (``fig`` not None)."""
    import os

    d.mkdir(parents=True, exist_ok=True)
    files = [("search.json", lambda p: p.write_text(json_text(doc, indent=1)))]
    if fig is not None:
        files += [
            ("search.png", lambda p: fig.savefig(p, dpi=200, bbox_inches="tight", format="png")),
            ("search.pdf", lambda p: fig.savefig(p, bbox_inches="tight", format="pdf")),
        ]
    for name, write in files:
        tmp = d / f".{name}.tmp"
        write(tmp)
        os.replace(tmp, d / name)


def _real(args):
    """(weights, K, name) of ``--instance``, read once; None without it."""
    if args.instance is None:
        return None
    if getattr(args, "_real", None) is None:
        from cascading_bandits.simulate.real_instances import parse_instance_name

        both = [o for o, v in (("--L", args.L), ("--L-per-K", args.L_per_K)) if v is not None]
        if both:
            raise ValueError(f"--instance sets L (its number of items); drop {' and '.join(both)}")
        weights, _kappa, K, label = parse_instance_name(args.instance)
        args._real = (tuple(float(w) for w in weights), K, label)
    return args._real


def _w_range(args):
    """(w_min, w_max): as given, else 0 and 1, or --instance's smallest and largest weight."""
    real = _real(args)
    lo = args.w_min if args.w_min is not None else (min(real[0]) if real else 0.0)
    hi = args.w_max if args.w_max is not None else (max(real[0]) if real else 1.0)
    if not lo < hi:
        where = f" (--instance {args.instance}: weights in [{lo:g}, {hi:g}])" if real else ""
        raise ValueError(
            f"the weights' range must have --w-min < --w-max, got [{lo:g}, {hi:g}]{where}; "
            "give --w-min / --w-max"
        )
    return lo, hi


def _plan(args):
    """The validated searches, computed once: (mode, policies, [(L, K, horizon), ...]) with
    mode ``"one"``, ``"factor"`` (a ratio per K) or ``"curve"`` (a regret search per
    horizon and policy)."""
    if getattr(args, "_plan", None) is not None:
        return args._plan
    from cascading_bandits.bounds.registry import bound_names
    from cascading_bandits.simulate.search import bound_policy, check_size

    if args.model not in (None, "cascade"):
        raise ValueError(
            f"--model {args.model}: cascading search simulates cascade users only "
            "(simulate.search); give --model cascade or leave it out"
        )
    real = _real(args)
    Ks = list(args.K) if args.K is not None else [real[1] if real else 2]
    if args.bound is not None and args.objective != "bound":
        raise ValueError(f"--bound is for --objective bound, got --objective {args.objective}")
    if args.objective == "bound" and args.policy is None and args.bound is None:
        raise ValueError(
            "--objective bound needs --policy A or --bound NAME (registered upper bounds with "
            f"a constant: {', '.join(bound_names('upper', 'constant'))})"
        )
    if args.policy is None:
        pols = ["cascade-ucb1", "cascade-klucb"] if args.objective != "bound" else []
        if args.bound is not None:
            pols = [bound_policy(args.bound)]  # the first policy the bound covers
    else:
        pols = list(args.policy)
    if args.L is not None and args.L_per_K is not None:
        raise ValueError("give --L (the same L for every K) or --L-per-K, not both")
    hs = list(args.horizon)
    if len(hs) > 1 and args.objective != "regret":
        raise ValueError("several --horizon values are for --objective regret")
    if args.objective == "regret":
        if len(Ks) > 1:
            raise ValueError("--objective regret takes one --K")
        if args.confirm_horizon is not None:
            raise ValueError(
                "--objective regret re-measures at each --horizon; no --confirm-horizon"
            )
        mode = "curve"
    elif len(Ks) > 1:
        if args.objective != "ratio":
            raise ValueError("several --K values are for --objective ratio (the factor against K)")
        mode = "factor"
    else:
        mode = "one"
    if real is not None:
        sizes = [(len(real[0]), k) for k in Ks]
    else:
        sizes = [(args.L if args.L is not None else (args.L_per_K or 4) * k, k) for k in Ks]
    for L, K in sizes:
        check_size(L, K, args.family)
    _w_range(args)  # an empty range refused before the estimate
    searches = [(L, K, h) for L, K in sizes for h in hs]
    args._plan = (mode, pols, searches)
    return args._plan


def cost(args):
    """:func:`simulate.search.estimate` summed over the searches asked for."""
    from cascading_bandits.simulate.search import estimate

    mode, pols, searches = _plan(args)
    need = {"bytes": 0.0, "seconds": 0.0}
    runs = [[p] for p in pols] if mode == "curve" else [pols]  # a curve: one search each
    for L, K, h in searches:
        for ps in runs:
            one = estimate(
                args.objective,
                ps,
                L=L,
                K=K,
                family=args.family,
                horizon=h,
                runs=args.runs,
                maxiter=args.maxiter,
                popsize=args.popsize,
                confirm_runs=args.confirm_runs,
                confirm_horizon=h if mode == "curve" else args.confirm_horizon,
            )
            need["bytes"] = max(need["bytes"], one["bytes"])
            need["seconds"] += one["seconds"]
    what = (
        f"this search ({len(searches) * len(runs)} search(es) of --runs {args.runs} x "
        f"--horizon {max(h for _, _, h in searches)}, --maxiter {args.maxiter}, --popsize "
        f"{args.popsize} on up to L = {max(L for L, _, _ in searches)} items)"
    )
    return need, what


def run(args) -> int:
    from cascading_bandits.bounds.registry import get_bound
    from cascading_bandits.simulate.search import factor_against_K, search, worst_regret_curve

    mode, pols, searches = _plan(args)
    Ks = list(dict.fromkeys(K for _, K, _ in searches))
    w_min, w_max = _w_range(args)
    out = _outputs(args.out)
    hs = list(args.horizon)
    real = _real(args)
    kw = dict(
        family=args.family,
        w_min=w_min,
        w_max=w_max,
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
    slope = None
    if mode == "curve":
        L = searches[0][0]
        kw.pop("horizon")
        kw.pop("confirm_horizon")
        curves = worst_regret_curve(pols, hs, L=L, K=Ks[0], **kw)
        results = [r for res in curves.values() for r in res]
        doc = {"results": [r.to_dict() for r in results], "L": L, "K": Ks[0]}
        if out is not None:
            from cascading_bandits.reports.search_figures import worst_regret_figure

            fig = worst_regret_figure(curves, L=L, K=Ks[0])
    elif mode == "factor":
        L = searches[0][0] if real is not None else args.L
        results, slope = factor_against_K(Ks, pols, L=L, L_per_K=args.L_per_K or 4, **kw)
        doc = {
            "results": [r.to_dict() for r in results],
            "slope_log_factor_vs_log_K": slope,
        }
        if out is not None:
            from cascading_bandits.reports.search_figures import factor_against_K_figure

            fig = factor_against_K_figure(results)
    else:
        L = searches[0][0]
        if args.objective == "bound":
            kw["bound"] = args.bound
        results = [search(args.objective, pols, L=L, K=Ks[0], **kw)]
        doc = {"results": [results[0].to_dict()]}
    if real is not None:
        doc["instance"] = {"name": real[2], "L": len(real[0]), "w_min": w_min, "w_max": w_max}
    if out is not None:
        _write(out, doc, fig)
    if args.json:
        emit_json(doc)
        return 0
    if real is not None:
        print(
            f"instances shaped like {real[2]}: L = {len(real[0])}, weights in "
            f"[{w_min:.4g}, {w_max:.4g}]"
        )
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
