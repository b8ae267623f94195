"""``cascading verify``: every claim of the paper, checked, certified or refuted.

Prints a table (claim, paper reference, method, domain, instances, min slack, verdict), the
full domain and notes of each claim, then the caveats. ``--json`` prints the same as JSON.
Exit status 1 if any claim fails, 0 otherwise (2 for bad arguments).
"""

from __future__ import annotations

import contextlib
import gc
import time


def add_arguments(parser):
    from cascading_bandits.reports.cli.common import integer, text

    parser.add_argument(
        "--claim",
        action="append",
        type=text("--claim", "a claim id"),
        metavar="ID",
        help="run only this claim (repeatable); see --list",
    )
    parser.add_argument(
        "--examples",
        type=integer("--examples"),
        default=None,
        metavar="N",
        help="random instances per sampled or exact claim (default 50)",
    )
    parser.add_argument(
        "--seed", type=integer("--seed", 0), default=None, metavar="S", help="root seed (default 0)"
    )
    parser.add_argument(
        "--full",
        action="store_true",
        help="larger interval boxes and budgets, larger Monte-Carlo runs (slow)",
    )
    parser.add_argument(
        "--json",
        action="store_true",
        help="print one JSON object on one line instead of tables (with --list: the claims)",
    )
    parser.add_argument("--list", action="store_true", help="list the claims and exit")
    parser.add_argument("--no-caveats", action="store_true", help="do not compute the caveats")


#: budget multiplier of --full (interval boxes and Monte-Carlo sizes; verify.run_all)
FULL_BUDGET = 8.0


@contextlib.contextmanager
def _collector_paused():
    """Python's cyclic garbage collector off inside the block (back on after, if it was on).

    :func:`cost`, the first step of ``cascading verify``, imports verify: numpy, scipy,
    numba, mpmath, the bounds and every claim module, and the estimate's
    ``simulate.sweep`` (the simulator): about 105,000 objects the collector tracks, none of
    them garbage, which it traversed again and again (238 collections, 0.1 s of the
    import's 1.0 s CPU, measured with ``gc.callbacks``), all before ``verify.run_all``
    forks, so on the command's critical path. A cycle left behind is collected once the
    collector is back on.
    """
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()


def cost(args):
    """:func:`verify.registry.estimate_seconds` for these examples, budget and claims; None
    for ``--list``."""
    with _collector_paused():
        return _cost(args)


def _cost(args):
    from cascading_bandits import verify
    from cascading_bandits.reports.cli.common import given
    from cascading_bandits.verify.registry import estimate_seconds

    if args.list:
        extra = given(args, "claim", "examples", "seed", "full", "no_caveats", "force")
        if extra:
            raise ValueError(f"--list prints the claims only; it does not take {' '.join(extra)}")
        return None
    examples = 50 if args.examples is None else args.examples
    if args.claim:
        for i in args.claim:
            verify.get_claim(i)  # ValueError -> exit 2 with the known ids
        if args.no_caveats:
            raise ValueError("--no-caveats: caveats are computed only when every claim runs")
    budget = FULL_BUDGET if args.full else 1.0
    seconds = estimate_seconds(examples, budget, args.claim)
    what = f"--examples {examples}" + (" --full" if args.full else "")
    return {"bytes": None, "seconds": seconds}, what  # memory: small, not estimated


def _fmt_slack(v):
    if v.min_slack is None:
        return "-"
    return f"{v.min_slack:.3g}"


def _fmt_instances(v):
    if v.method == "interval":
        return f"{v.boxes}/{v.instances} boxes"
    return str(v.instances)


def _short(s, n):
    return s if len(s) <= n else s[: n - 1] + "~"


def format_table(verdicts) -> str:
    """The verdict table as fixed-width text (one row per claim; '*' marks an amended claim)."""
    rows = [("claim", "paper reference", "method", "domain", "instances", "min slack", "verdict")]
    for v in verdicts:
        rows.append(
            (
                v.claim_id + ("*" if v.amended else ""),
                _short(v.reference, 40),
                v.method,
                _short(v.domain, 40),
                _fmt_instances(v),
                _fmt_slack(v),
                v.status + ("" if v.coverage in (None, 1.0) else f" ({v.coverage:.1%})"),
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = []
    for j, r in enumerate(rows):
        lines.append("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=False)).rstrip())
        if j == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def format_details(verdicts) -> str:
    out = []
    for v in verdicts:
        out.append(f"[{v.claim_id}] {v.reference}")
        out.append(f"  claim:   {v.statement}")
        if v.amended:
            out.append(f"  amended: {v.amended}")
        out.append(f"  domain:  {v.domain}")
        if v.argmin:
            out.append(f"  min slack {_fmt_slack(v)} at {v.argmin}")
        if v.counterexample:
            out.append(f"  COUNTEREXAMPLE: {v.counterexample}")
        if v.notes:
            out.append(f"  notes:   {v.notes}")
    return "\n".join(out)


def format_caveats(cavs) -> str:
    from cascading_bandits.reports.cli.common import json_text

    out = []
    for i, c in enumerate(cavs, 1):
        out.append(f"{i}. [{c.id}] ({c.kind}; claims: {', '.join(c.claims)})")
        out.append(f"   paper: {c.paper_says}")
        out.append(f"   true:  {c.truth}")
        out.append(f"   evidence: {json_text(c.to_dict()['evidence'])}")
        out.append(f"   test: {c.test}")
    return "\n".join(out)


def _plural(n, word):
    return f"{n} {word}" + ("" if n == 1 else "s")


def run(args) -> int:
    from cascading_bandits import verify
    from cascading_bandits.reports.cli.common import emit_json

    if args.list:
        claims = verify.all_claims()
        if args.json:
            emit_json(
                {
                    "claims": [
                        {
                            "id": c.id,
                            "method": c.method,
                            "reference": c.reference,
                            "available": bool(c.is_available()),
                            "requires": list(c.requires),
                        }
                        for c in claims
                    ]
                }
            )
            return 0
        for c in claims:
            mark = (
                "" if c.is_available() else "  (unavailable: needs " + ", ".join(c.requires) + ")"
            )
            print(f"{c.id:32s} {c.method:24s} {c.reference}{mark}")
        return 0
    examples = 50 if args.examples is None else args.examples
    seed = 0 if args.seed is None else args.seed
    ids = args.claim
    t0 = time.perf_counter()
    verdicts = verify.run_all(
        examples=examples, seed=seed, budget=FULL_BUDGET if args.full else 1.0, claims=ids
    )
    cavs = [] if (args.no_caveats or ids) else verify.caveats()
    wall = time.perf_counter() - t0
    failed = [v.claim_id for v in verdicts if v.status == verify.FAILS]
    if args.json:
        emit_json(
            {
                "verdicts": [v.to_dict() for v in verdicts],
                "caveats": [c.to_dict() for c in cavs],
                "examples": examples,
                "seed": seed,
                "full": bool(args.full),
                "seconds": wall,
                "failed": failed,
            }
        )
    else:
        print(format_table(verdicts))
        n = {
            s: sum(v.status == s for v in verdicts)
            for s in (verify.HOLDS, verify.UNDECIDED, verify.FAILS)
        }
        print(
            f"\n{_plural(len(verdicts), 'claim')}: {n['holds']} "
            f"{'holds' if n['holds'] == 1 else 'hold'}, {n['undecided']} undecided, "
            f"{n['fails']} {'fails' if n['fails'] == 1 else 'fail'} ({wall:.1f} s, seed {seed}, "
            f"{_plural(examples, 'example')}). "
            "'*' = checked with a condition or correction the paper does not state (see caveats)."
        )
        print("\nDetails\n-------")
        print(format_details(verdicts))
        if cavs:
            print("\nCaveats\n-------")
            print(format_caveats(cavs))
    return 1 if failed else 0
