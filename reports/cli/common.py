"""The vocabulary every ``cascading`` subcommand shares: option types, checks, output.

Only the command-line layer imports this module (``reports.cli.*``); the libraries below
(``bounds``, ``simulate``, ``verify``) never do.
"""

from __future__ import annotations

import argparse
import json
import math
import re

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
