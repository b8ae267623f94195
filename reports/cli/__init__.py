"""The ``cascading`` command line: a thin layer over bounds, verify, simulate and reports.

Each subcommand lives beside the code it drives, in a module exposing

* ``add_arguments(parser)`` -- declares its options (cheap: no heavy imports);
* ``run(args) -> int`` -- does the work and returns the exit status.

One vocabulary across subcommands: ``--horizon`` (steps n), ``--runs``, ``--seed``,
``--policy`` (comma-separated), ``--out`` (a directory), ``--workers``, ``--force`` (run
what the resource guard refuses) and ``--json`` (exactly one strict JSON document on
stdout: one object on one line, no NaN or infinity; a quantity that is undefined is null).

Bad input never gives a traceback: a usage error, a ``ValueError`` or an ``OSError``
raised anywhere below becomes one line on stderr, ``cascading COMMAND: error: ...``, and
exit status 2. :func:`main` returns the status (it does not raise ``SystemExit``).
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import math
import re
import sys

#: subcommand -> module implementing it (registered only if the module exists)
SUBCOMMANDS = {
    "bounds": "cascading_bandits.bounds.cli",
    "verify": "cascading_bandits.verify.cli",
    "simulate": "cascading_bandits.simulate.cli",
    "report": "cascading_bandits.reports.report_cli",
    "study": "cascading_bandits.reports.study_cli",
    "bench": "cascading_bandits.simulate.bench_cli",
    "search": "cascading_bandits.simulate.search_cli",
    "ledger": "cascading_bandits.bounds.ledger_cli",
    "profile": "cascading_bandits.reports.profile_cli",
}

#: subcommand -> its one line in ``cascading --help`` (here, so that listing the subcommands
#: imports none of them: verify's imports alone took 2 s)
SUMMARIES = {
    "bounds": "print the paper's regret bounds (Theorems 2-4) for an instance and a horizon",
    "verify": "check every claim of the paper (symbolic, exact, interval, sampling, "
    "Monte-Carlo) and list caveats",
    "simulate": "simulate cascading bandits: the paper's experiments (table1, table2, dbn; "
    "extras ts, dbn-rba) or ad hoc cells",
    "report": "reproduce the paper's Tables 1-2 and Figure 1, set the bounds against the "
    "evidence, and write a Markdown report with figures",
    "study": "simulate policies on your own instance and plot regret against every bound "
    "that applies (Theorems 2-4)",
    "bench": "benchmark the simulator: run-steps/s per policy and the paper-scale sweep's "
    "wall time",
    "search": "search instances for the largest regret ratio of two policies or regret/bound "
    "of one",
    "ledger": "print every applicable regret bound (the paper's and later ones) for an instance",
    "profile": "profile the proof of Theorem 2 or 3 on simulated runs: where each bound "
    "loses its slack",
}

#: the largest integer option value (int64: what the engine and numpy index with)
INT_MAX = 2**63 - 1


class _Parser(argparse.ArgumentParser):
    """argparse, but usage errors are one line and exit status 2 (as argparse does)."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {_one_line(message)}\n")


# ---------------------------------------------------------------------------
# option types shared by the subcommands (argparse prefixes "argument --OPTION: ")
# ---------------------------------------------------------------------------
def integer(option: str, minimum: int = 1, maximum: int = INT_MAX):
    """argparse type: an integer in [minimum, maximum]; ``1e5`` is read as 100000."""

    def parse(text):
        v = None
        if text.isascii():  # int() and float() read other scripts' digits: not CLI numbers
            try:
                v = int(text)
            except ValueError:
                try:
                    f = float(text)
                except ValueError:
                    f = math.nan
                if math.isfinite(f) and f == int(f):
                    v = int(f)
        if v is None or not minimum <= v <= maximum:
            hi = "" if maximum == INT_MAX else f" and <= {maximum}"
            raise argparse.ArgumentTypeError(
                f"must be an integer >= {minimum}{hi}"
                + (" (int64)" if maximum == INT_MAX else "")
                + f", got {text!r}"
            )
        return v

    parse.__name__ = option
    parse.kind, parse.minimum, parse.maximum = "integer", minimum, maximum  # for the fuzz tests
    return parse


def real(option: str, minimum: float | None = None, maximum: float | None = None):
    """argparse type: a finite number in [minimum, maximum]."""

    def parse(text):
        try:
            v = float(text) if text.isascii() else math.nan
        except ValueError:
            v = math.nan
        ok = math.isfinite(v) and (minimum is None or v >= minimum)
        ok = ok and (maximum is None or v <= maximum)
        if not ok:
            rng = (
                f" in [{minimum:g}, {maximum:g}]"
                if minimum is not None and maximum is not None
                else (f" >= {minimum:g}" if minimum is not None else "")
            )
            raise argparse.ArgumentTypeError(f"must be a finite number{rng}, got {text!r}")
        return v

    parse.__name__ = option
    parse.kind, parse.minimum, parse.maximum = "real", minimum, maximum
    return parse


def integer_list(option: str, minimum: int = 1):
    """argparse type: comma-separated integers, each >= minimum."""
    one = integer(option, minimum)

    def parse(text):
        parts = [s.strip() for s in text.split(",")]
        if not parts or any(s == "" for s in parts):
            raise argparse.ArgumentTypeError(f"must be comma-separated integers, got {text!r}")
        return [one(s) for s in parts]

    parse.__name__ = option
    parse.kind, parse.minimum, parse.maximum = "integer_list", minimum, INT_MAX
    return parse


def number_list(option: str):
    """argparse type: comma-separated finite numbers (range checked by the library)."""
    one = real(option)

    def parse(text):
        parts = [s.strip() for s in text.split(",")]
        if not parts or any(s == "" for s in parts):
            raise argparse.ArgumentTypeError(f"must be comma-separated numbers, got {text!r}")
        return [one(s) for s in parts]

    parse.__name__ = option
    parse.kind, parse.minimum, parse.maximum = "number_list", None, None
    return parse


def add_force(parser) -> None:
    parser.add_argument(
        "--force",
        action="store_true",
        help="run even if the estimated memory or time exceeds what this machine has "
        "(the estimate is printed when refused)",
    )


def given(args, *names) -> list[str]:
    """The options among ``names`` (attribute names) that the user gave (are not None/False)."""
    out = []
    for n in names:
        v = getattr(args, n, None)
        if v is not None and v is not False:
            out.append("--" + n.replace("_", "-"))
    return out


def emit_json(obj) -> None:
    """Print ``obj`` as one strict JSON document on one line (NaN/inf are a bug: ValueError)."""
    print(json.dumps(obj, allow_nan=False))


# ---------------------------------------------------------------------------
def _one_line(msg) -> str:
    """One line, without numpy scalar reprs (np.float64(0.5) -> 0.5)."""
    s = str(msg)
    s = re.sub(r"np\.(?:float|int|uint|bool|str)\w*\(([^()]*)\)", r"\1", s)
    return " ".join(part.strip() for part in s.splitlines() if part.strip())


def _version() -> str:
    from importlib import metadata

    try:
        return metadata.version("cascading-bandits")
    except metadata.PackageNotFoundError:
        return "unknown (not installed)"


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The ``cascading`` parser; with ``only``, the other subcommands' modules are not imported
    (they are listed but take no options), so that one subcommand starts without the others'
    imports."""
    parser = _Parser(
        prog="cascading",
        description="Cascading bandits (Kveton et al., ICML 2015): bounds, verification, "
        "simulation and reports.",
        allow_abbrev=False,
    )
    parser.add_argument("--version", action="version", version=f"cascading {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    for name, modname in SUBCOMMANDS.items():
        summary = SUMMARIES[name]
        if only is not None and name != only:
            sub.add_parser(name, help=summary, allow_abbrev=False)
            continue
        if importlib.util.find_spec(modname) is None:
            continue
        mod = importlib.import_module(modname)
        p = sub.add_parser(name, help=summary, description=summary, allow_abbrev=False)
        mod.add_arguments(p)
        p.set_defaults(_run=mod.run)
    return parser


def _attach_values(parser, argv: list[str]) -> list[str]:
    """``--opt -1`` -> ``--opt=-1`` for options taking a value, so argparse does not read a
    negative number (``-inf``, ``-0.1,0.5``) as an unknown option."""
    subs = next(
        (a.choices for a in parser._actions if isinstance(a, argparse._SubParsersAction)), {}
    )
    start = next((i for i, t in enumerate(argv) if t in subs), None)
    if start is None:
        return argv
    sp = subs[argv[start]]
    known = set(sp._option_string_actions)
    takes = {
        s for a in sp._actions if a.option_strings and a.nargs is None for s in a.option_strings
    }
    out, i = argv[: start + 1], start + 1
    while i < len(argv):
        tok = argv[i]
        nxt = argv[i + 1] if i + 1 < len(argv) else None
        if (
            tok in takes
            and nxt is not None
            and nxt.startswith("-")
            and not nxt.startswith("--")
            and nxt not in known
        ):
            out.append(f"{tok}={nxt}")
            i += 2
        else:
            out.append(tok)
            i += 1
    return out


def main(argv=None) -> int:
    """Run ``cascading`` with ``argv`` (default ``sys.argv[1:]``); returns the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    # no subcommand named (--help, --version, a usage error): import none of them
    only = next((t for t in argv if t in SUBCOMMANDS), "")
    parser = build_parser(only=only)
    try:
        args, extra = parser.parse_known_args(_attach_values(parser, argv))
    except SystemExit as exc:  # --help, --version, usage errors: argparse has printed
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    prefix = f"cascading {args.command}"
    if extra:  # named by the subcommand, which is what the user typed them for
        print(f"{prefix}: error: unrecognized arguments: {' '.join(extra)}", file=sys.stderr)
        return 2
    from cascading_bandits.bounds._pystack import deep_call

    try:
        status = deep_call(args._run, args)  # numba's compiler and sympy recurse: see there
    except ValueError as exc:
        print(f"{prefix}: error: {_one_line(exc)}", file=sys.stderr)
        return 2
    except OSError as exc:
        where = f" {exc.filename}" if exc.filename else ""
        print(f"{prefix}: error:{where}: {_one_line(exc.strerror or exc)}", file=sys.stderr)
        return 2
    except MemoryError:
        print(f"{prefix}: error: out of memory (see --help for the sizes)", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{prefix}: interrupted", file=sys.stderr)
        return 130
    return int(status or 0)


if __name__ == "__main__":
    sys.exit(main())
