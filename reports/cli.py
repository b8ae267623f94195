"""The ``cascading`` command line: a thin layer over bounds, verify, simulate and reports.

Each subcommand lives beside the code it drives, in a module exposing

* ``HELP`` -- one line for ``cascading --help``;
* ``add_arguments(parser)`` -- declares its options (cheap: no heavy imports);
* ``run(args) -> int`` -- does the work and returns the exit status.

A ``ValueError`` raised anywhere below (bad input) becomes a one-line message on
stderr and exit status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
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


class _Parser(argparse.ArgumentParser):
    """argparse, but usage errors are one line and exit status 2 (as argparse does)."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="cascading",
        description="Cascading bandits (Kveton et al., ICML 2015): bounds, verification, "
        "simulation and reports.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    for name, modname in SUBCOMMANDS.items():
        if importlib.util.find_spec(modname) is None:
            continue
        mod = importlib.import_module(modname)
        p = sub.add_parser(name, help=mod.HELP, description=mod.HELP)
        mod.add_arguments(p)
        p.set_defaults(_run=mod.run)
    return parser


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        status = args._run(args)
    except ValueError as exc:
        print(f"cascading {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"cascading {args.command}: interrupted", file=sys.stderr)
        return 130
    return int(status or 0)


if __name__ == "__main__":
    sys.exit(main())
