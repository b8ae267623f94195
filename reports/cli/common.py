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


def integer_list(option: str, minimum: int = 1, *, distinct: bool = False):
    """argparse type: comma-separated integers, each >= minimum (pairwise different if
    ``distinct``)."""
    one = integer(option, minimum)

    def parse(text):
        parts = [s.strip() for s in text.split(",")]
        if not parts or any(s == "" for s in parts):
            raise argparse.ArgumentTypeError(f"must be comma-separated integers, got {text!r}")
        out = [one(s) for s in parts]
        if distinct and len(set(out)) != len(out):
            raise argparse.ArgumentTypeError(
                f"must be comma-separated different integers, got {text!r}"
            )
        return out

    parse.__name__ = option
    parse.kind, parse.minimum, parse.maximum = "integer_list", minimum, INT_MAX
    parse.distinct = distinct
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


def name_list(option: str, what: str = "names"):
    """argparse type: comma-separated non-empty items (a comma inside parentheses belongs to
    its item: ``cascade-ts(prior=2,1)``); returns the stripped items. An empty text, an empty
    item (``a,,b``, a trailing comma) or unbalanced parentheses are refused: a list that
    silently lost an item, or fell back to a default, would run something not asked for."""

    def parse(text):
        items, depth, cur = [], 0, []
        for ch in text:
            if ch == "," and depth == 0:
                items.append("".join(cur).strip())
                cur = []
                continue
            depth += (ch == "(") - (ch == ")")
            if depth < 0:
                break
            cur.append(ch)
        items.append("".join(cur).strip())
        if depth != 0:
            raise argparse.ArgumentTypeError(f"unbalanced parentheses in {text!r}")
        if any(x == "" for x in items):
            raise argparse.ArgumentTypeError(
                f"must be comma-separated {what}, none empty, got {text!r}"
            )
        return items

    parse.__name__ = option
    parse.kind, parse.minimum, parse.maximum = "name_list", None, None
    return parse


def text(option: str, what: str = "a non-empty text"):
    """argparse type: a text that is not empty or blank (returned stripped)."""

    def parse(value):
        if not value.strip():
            raise argparse.ArgumentTypeError(f"must be {what}, got {value!r}")
        return value.strip()

    parse.__name__ = option
    parse.kind, parse.minimum, parse.maximum = "text", None, None
    return parse


def directory(option: str):
    """argparse type of a directory option (``--out``): the text as given; it is checked by
    :func:`out_dir` before any work (empty refused, ``~`` expanded, writable), which names
    the option in its one-line error."""

    def parse(value):
        return value

    parse.__name__ = option
    parse.kind, parse.minimum, parse.maximum = "directory", None, None
    return parse


# ---------------------------------------------------------------------------
# options several subcommands take, declared once
# ---------------------------------------------------------------------------
def add_force(parser) -> None:
    """``--force``: run what the resource guard (:func:`guard`) refuses."""
    parser.add_argument(
        "--force",
        action="store_true",
        help="run even if the estimated memory or time exceeds what this machine has or "
        "the time limit (an hour of work, or $CASCADING_TIME_LIMIT seconds; the estimate is "
        "printed when refused)",
    )


#: help of --workers, the same in every subcommand that takes it
WORKERS_HELP = (
    "local worker processes, at most the number of cores (default: all cores; a single "
    "cell or a study runs in this process with numba threads over its runs)"
)


def add_workers(parser, help: str = WORKERS_HELP) -> None:
    """``--workers N`` (default None: all cores, see :data:`WORKERS_HELP`)."""
    parser.add_argument("--workers", type=integer("--workers"), default=None, help=help)


def check_workers(workers, scheduler=None):
    """``--workers`` checked against the cores and ``--scheduler``; returned unchanged."""
    import os

    if workers is not None and scheduler is not None:
        raise ValueError("--workers is for local processes; with --scheduler the cluster decides")
    cores = os.cpu_count() or 1
    if workers is not None and workers > cores:
        raise ValueError(f"--workers must be <= {cores} (the cores of this machine), got {workers}")
    return workers


def out_dir(path, option: str = "--out", *, create: bool = True):
    """The directory ``path`` names, checked before any work (absolute, ``~`` expanded).

    ValueError for an empty path, ``~user`` of an unknown user, a path through a file, a
    directory that cannot be created or written (:func:`simulate.sweep.check_writable_dir`).
    With ``create=False`` nothing is created.
    """
    from cascading_bandits.simulate.sweep import check_writable_dir

    return check_writable_dir(path, option, create=create)


def check_scheduler(address: str) -> str:
    """Connect to the Dask scheduler at ``address`` once, before any work; the address.

    ValueError, one line: no ``distributed`` package, nothing answers there, or what answers
    is not a Dask scheduler (a server speaking another protocol makes ``distributed`` read a
    frame length from its bytes and fail with MemoryError or a numpy dimension error, which
    would otherwise read as this machine being out of memory).
    """
    try:
        import distributed
    except ImportError:
        raise ValueError(
            "--scheduler needs Dask's 'distributed' package, an optional extra: "
            "pip install 'cascading-bandits[dask]'"
        ) from None
    from distributed.comm.addressing import parse_address, parse_host_port

    try:
        scheme, location = parse_address(address)
        if scheme in ("tcp", "tls"):
            port = parse_host_port(location)[1]
            if not 0 < port < 65536:
                raise ValueError(f"port {port} outside 1..65535")
    except (ValueError, TypeError) as exc:
        raise ValueError(
            f"--scheduler {address}: not a Dask scheduler address (HOST:PORT or "
            f"tcp://HOST:PORT; {exc})"
        ) from None
    try:
        client = distributed.Client(address, timeout="20s")
    except (OSError, TimeoutError) as exc:
        raise ValueError(
            f"--scheduler {address}: cannot connect to a Dask scheduler there ({exc})"
        ) from None
    except Exception as exc:  # noqa: BLE001 -- any other failure: the peer is not Dask
        raise ValueError(
            f"--scheduler {address}: the address answered, but not as a Dask scheduler "
            f"({type(exc).__name__}: {exc})"
        ) from None
    client.close()
    return address


# ---------------------------------------------------------------------------
# the resource guard
# ---------------------------------------------------------------------------
def human_bytes(b: float) -> str:
    if not math.isfinite(b):
        return "an unbounded amount"
    for unit, size in (("PB", 1e15), ("TB", 1e12), ("GB", 1e9), ("MB", 1e6)):
        if b >= size:
            return f"{b / size:.3g} {unit}"
    return f"{b / 1e3:.3g} kB"


def human_seconds(s: float) -> str:
    if not math.isfinite(s):
        return "an unbounded time"
    for unit, size in (("years", 3.15e7), ("days", 2 * 86400.0), ("h", 3600.0), ("min", 60.0)):
        if s >= size:
            return f"{s / (86400.0 if unit == 'days' else size):.3g} {unit}"
    return f"{s:.3g} s"


def guard(need, what: str, force: bool = False) -> None:
    """Refuse, before any work, a run whose estimate exceeds this machine.

    Parameters
    ----------
    need : dict
        ``{"bytes": peak memory, "seconds": wall time}``, from the library's estimate of the
        work (``simulate.sweep.estimate``, ``simulate.search.estimate``, ...).
    what : str
        The run, as the user asked for it (``"--runs 20 x --horizon 1e9 on L = 16"``).
    force : bool
        ``--force``: run anyway.

    Raises
    ------
    ValueError
        When the memory exceeds :func:`memory_limit` (the available memory) or the time
        exceeds :func:`time_limit` (an hour); one line giving both estimates (memory only
        where ``need["bytes"]`` is not None) and the limit passed, and the ways out
        (``--force``, ``$CASCADING_TIME_LIMIT``).
    """
    b = need.get("bytes")
    s = float(need.get("seconds", 0.0))
    if force:
        return
    avail, limit = memory_limit(), time_limit()
    over = []
    if b is not None and avail is not None and not float(b) <= avail:
        over.append(f"this machine has {human_bytes(avail)} of memory available")
    if not s <= limit:
        over.append(
            f"the limit without --force is {human_seconds(limit)}, ${TIME_LIMIT_ENV} "
            "seconds sets it"
        )
    if over:
        mem = "" if b is None else f" and would need about {human_bytes(float(b))} of memory"
        raise ValueError(
            f"{what} would take about {human_seconds(s)}{mem} ({'; '.join(over)}); make it "
            "smaller, or pass --force to run it anyway"
        )


#: seconds of estimated work the command line starts without ``--force``: an hour, a run a
#: user would not wait for unknowingly. The paper's own experiments stay well under it
#: (``cascading report``, estimated 810 s on 2 cores; ``cascading study`` at its defaults
#: 32 s on B_LB(16, 2, 0.2, 0.15)); ``tests/test_cli_guards.py`` checks that they do.
TIME_LIMIT = 3600.0

#: environment variables setting the guard's limits: the time limit (seconds, in place of
#: :data:`TIME_LIMIT`, higher or lower: a long campaign, a test that must not start long runs)
#: and the memory limit (bytes; lowers the available memory only)
TIME_LIMIT_ENV, MEMORY_LIMIT_ENV = "CASCADING_TIME_LIMIT", "CASCADING_MEMORY_LIMIT"


def _env_limit(name):
    import os

    text = os.environ.get(name, "").strip()
    if not text:
        return None
    try:
        v = float(text)
    except ValueError:
        v = math.nan
    if not (math.isfinite(v) and v > 0):
        raise ValueError(f"environment variable {name} must be a positive number, got {text!r}")
    return v


def time_limit() -> float:
    """Seconds of estimated work the guard allows: :data:`TIME_LIMIT` (an hour), or
    ``$CASCADING_TIME_LIMIT`` when it is set (a positive number of seconds)."""
    env = _env_limit(TIME_LIMIT_ENV)
    return TIME_LIMIT if env is None else env


def memory_limit() -> float | None:
    """Bytes the guard allows: the available memory (None if unknown), or less if
    ``$CASCADING_MEMORY_LIMIT`` says so."""
    from cascading_bandits.simulate.sweep import available_memory

    avail, env = available_memory(), _env_limit(MEMORY_LIMIT_ENV)
    if env is None:
        return avail
    return env if avail is None else min(avail, env)


def given(args, *names) -> list[str]:
    """The options among ``names`` (attribute names) that the user gave (are not None/False)."""
    out = []
    for n in names:
        v = getattr(args, n, None)
        if v is not None and v is not False:
            out.append("--" + n.replace("_", "-"))
    return out


def finite_json(obj, default=None):
    """``obj`` made strict-JSON-able: every non-finite number (NaN, inf, -inf) becomes None.

    The one rule of every JSON the command line prints or writes: strict JSON has no NaN or
    infinity, and a quantity that is undefined or unbounded (``beta`` when every
    suboptimal weight is 0, a profile link of an instance with ``p = 1``, a bound that does
    not apply) is ``null``. Dicts, lists and tuples are walked (tuples become lists);
    numpy scalars and arrays become Python numbers and lists; ``default`` converts any
    other object json does not know (as ``json.dumps(default=)``), and the result is walked
    too. Anything else is returned as it is (``json.dumps`` then names it).
    """
    if isinstance(obj, bool) or obj is None or isinstance(obj, (str, int)):
        return obj
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k: finite_json(v, default) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [finite_json(v, default) for v in obj]
    if type(obj).__module__ == "numpy" and hasattr(obj, "tolist"):  # scalars and arrays
        return finite_json(obj.tolist(), default)
    if default is not None:
        try:
            converted = default(obj)
        except TypeError:
            return obj
        return finite_json(converted, default)
    return obj


def json_text(obj, *, indent=None, default=None) -> str:
    """Strict JSON text of ``obj`` after :func:`finite_json` (non-finite numbers are null)."""
    return json.dumps(finite_json(obj, default), indent=indent, allow_nan=False, default=default)


def emit_json(obj, default=None) -> None:
    """Print ``obj`` as one strict JSON document on one line (:func:`json_text`: a
    non-finite number is null); ``default`` converts what json does not know (paths)."""
    print(json_text(obj, default=default))


# ---------------------------------------------------------------------------
def _one_line(msg) -> str:
    """One line, without numpy scalar reprs (np.float64(0.5) -> 0.5)."""
    s = str(msg)
    s = re.sub(r"np\.(?:float|int|uint|bool|str)\w*\(([^()]*)\)", r"\1", s)
    return " ".join(part.strip() for part in s.splitlines() if part.strip())


def real_instance(args):
    """``(weights, K)`` of ``--instance`` (read once and kept on ``args``), or None without it.

    ``--K`` overrides the instance's number of positions; ``--weights``, ``--L``, ``--p`` or
    ``--delta`` beside ``--instance`` is a ValueError (one instance per command).
    """
    if getattr(args, "instance", None) is None:
        return None
    if getattr(args, "_real", None) is None:
        from cascading_bandits.simulate.real_instances import parse_instance_name

        given = [f"--{k}" for k in ("weights", "L", "p", "delta") if getattr(args, k) is not None]
        if given:
            raise ValueError(f"give either --instance or {' '.join(given)}, not both")
        weights, _kappa, K, _label = parse_instance_name(args.instance)
        args._real = (tuple(weights), K if args.K is None else args.K)
    return args._real
