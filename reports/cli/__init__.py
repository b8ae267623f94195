"""The ``cascading`` command line: the one command-line layer, on top of every package.

All command-line code lives in this package: one module per subcommand
(:data:`SUBCOMMANDS`: ``reports.cli.bounds``, ``.ledger``, ``.verify``, ``.simulate``,
``.bench``, ``.search``, ``.report``, ``.study``, ``.profile``), each exposing

* ``add_arguments(parser)`` -- declares its options (cheap: no heavy imports);
* ``cost(args)`` -- ``(estimate, what)``, the memory and time the run would take
  (``{"bytes", "seconds"}``, from the library's estimate beside the code it is about) and
  the run in the user's words, or None when there is nothing to guard; :func:`main` passes
  it through the resource guard (:func:`reports.cli.common.guard`), which refuses a run
  beyond this machine unless ``--force`` (added to every subcommand);
* ``run(args) -> int`` -- does the work and returns the exit status,

and one vocabulary module, :mod:`reports.cli.common`, that they all use: the option types,
the ``--out`` check, the resource guard with ``--force``, JSON output, the error lines. The
libraries below (``bounds``, ``simulate``, ``verify``) never import this package; what a
subcommand computes, and what its work is estimated to cost, lives in the library beside
the code it is about.

One vocabulary across subcommands: ``--horizon`` (steps n), ``--runs``, ``--seed``,
``--policy`` (comma-separated), ``--out`` (a directory), ``--workers``, ``--force`` (run
what the resource guard refuses) and ``--json`` (exactly one strict JSON document on
stdout: one object on one line, no NaN or infinity; a quantity that is undefined is null).

Bad input never gives a traceback: a usage error, a ``ValueError`` or an ``OSError``
raised anywhere below becomes one line on stderr, ``cascading COMMAND: error: ...``, and
exit status 2. A reader that closes stdout early (``cascading ledger | head``) ends the
command quietly with status 141 (128 + SIGPIPE, as a shell reports a process killed by it).
:func:`main` returns the status (it does not raise ``SystemExit``).
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import sys

from cascading_bandits.reports.cli.common import (  # noqa: F401 (re-exported)
    INT_MAX,
    _one_line,
    _Parser,
    add_force,
    emit_json,
    given,
    guard,
    integer,
    integer_list,
    number_list,
    real,
)

#: subcommand -> module implementing it (registered only if the module exists)
SUBCOMMANDS = {
    "bounds": "cascading_bandits.reports.cli.bounds",
    "verify": "cascading_bandits.reports.cli.verify",
    "simulate": "cascading_bandits.reports.cli.simulate",
    "report": "cascading_bandits.reports.cli.report",
    "study": "cascading_bandits.reports.cli.study",
    "bench": "cascading_bandits.reports.cli.bench",
    "search": "cascading_bandits.reports.cli.search",
    "ledger": "cascading_bandits.reports.cli.ledger",
    "profile": "cascading_bandits.reports.cli.profile",
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
        add_force(p)  # every subcommand is guarded (its module's cost) and takes --force
        p.set_defaults(_run=mod.run, _cost=mod.cost)
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
        status = deep_call(_execute, args)  # numba's compiler and sympy recurse: see there
    except BrokenPipeError:
        return _closed_stdout()
    except ValueError as exc:
        print(f"{prefix}: error: {_one_line(exc)}", file=sys.stderr)
        return 2
    except OSError as exc:
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"{prefix}: error: {where}{_one_line(exc.strerror or exc)}", file=sys.stderr)
        return 2
    except MemoryError:
        print(
            f"{prefix}: error: out of memory (this machine could not give what the run "
            "asked for; make it smaller)",
            file=sys.stderr,
        )
        return 2
    except KeyboardInterrupt:
        print(f"{prefix}: interrupted", file=sys.stderr)
        return 130
    try:
        sys.stdout.flush()  # a closed pipe shows here when the output was buffered
    except BrokenPipeError:
        return _closed_stdout()
    return int(status or 0)


def _execute(args):
    """The subcommand's cost estimate through the resource guard, then its work."""
    need = args._cost(args)
    if need is not None:
        estimate, what = need
        guard(estimate, what, force=args.force)
    return args._run(args)


#: exit status when the reader of stdout went away (``cascading ledger | head``): what a
#: process killed by SIGPIPE reports to the shell, 128 + 13
CLOSED_STDOUT = 141


def _closed_stdout() -> int:
    """The reader of stdout closed the pipe: end quietly. stdout is pointed at /dev/null so
    that the interpreter's last flush at exit does not report the closed pipe again."""
    import os

    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # not a real file (tests capture stdout)
        return CLOSED_STDOUT
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, fd)
        os.close(devnull)
    except OSError:
        pass
    return CLOSED_STDOUT
