"""Fuzz every option of every ``cascading`` subcommand with hostile values; print the counts.

The subcommands and their options are read from the command line's own registry
(``reports.cli.SUBCOMMANDS``, each subcommand's argparse parser), so a new subcommand or
option is fuzzed without editing this file. Each case is one option of one subcommand set
to one hostile value (:data:`HOSTILE`: empty, ``~``, NaN, infinities, -1, 0, 1e400,
fullwidth digits, ``a,,b``, huge integers, junk names, ...) on top of a small, valid,
quick invocation of that subcommand (:data:`BASE`). Each case runs with a per-call timeout
in a worker process (restarted after a timeout), in an empty scratch directory that is also
``$HOME`` (so ``~`` lands there), with the resource guard's limits lowered
(``$CASCADING_TIME_LIMIT`` = 20 s, ``$CASCADING_MEMORY_LIMIT`` = 2 GB): whatever the guard
lets through is small, so a case still running at the timeout is a long run the guard did
not stop. A case is

``traceback``
    ``Traceback`` on stderr, or an exception escaping ``main``;
``long run``
    still running at the timeout (killed);
``silent acceptance``
    exit status 0 or 1 for a value outside the option's declared domain (:func:`valid`, an
    oracle written independently of the option types: ASCII numbers in range, no empty list
    item, no blank text, a known choice);
``bad refusal``
    exit status 2 with a message that is not one line ``cascading SUB: error: ...``, or with
    files left behind, or an exit status outside {0, 1, 2};
``ok`` otherwise (refused in one line, or accepted for a value of the option's domain).

Every option with declared choices is also given each of them, and ``--instance`` a real
instance's name (:data:`VALID_EXTRA`), so that the combinations a valid value makes with
the base invocation are run too.

Run::

    python benchmarks/cli_fuzz.py                      # every case (about 2,300)
    python benchmarks/cli_fuzz.py --sample 200 --seed 1 --timeout 120
    python benchmarks/cli_fuzz.py --subcommand study --verbose

tests/test_cli_fuzz.py runs a seeded sample of these cases in-process (and a larger one in
``pytest -m slow``) and asserts that every count but ``ok`` is 0.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import math
import os
import random
import re
import select
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

#: the hostile values every option is given
HOSTILE = (
    "",
    " ",
    "~",
    "~nosuchuser0/x",
    "NaN",
    "inf",
    "-inf",
    "-1",
    "0",
    "1e400",
    "\uff11\uff12",  # fullwidth 12
    "a,,b",
    "9" * 25,
    "4294967297",
    "1e18",
    "zzz",
    "cascade-nope",
    "0.5",
)

#: valid values given besides the hostile ones: every declared choice of an option that has
#: choices (``--model pbm`` of search is refused, of ledger accepted), and a real instance
#: name for ``--instance`` (search's refuses it beside the base's ``--L``)
VALID_EXTRA = {"--instance": ("yandex:4102451:top",)}

#: a small, valid, quick invocation of each subcommand; the fuzzed option replaces its value
BASE = {
    "bounds": [],
    "ledger": [],
    "verify": ["--claim", "lemma2.monotone", "--examples", "1"],
    "simulate": ["--K", "2", "--runs", "1", "--horizon", "20", "--policy", "cascade-ucb1"],
    "bench": ["--policy", "cascade-ucb1", "--L", "8", "--K", "2", "--runs", "1"]
    + ["--horizon", "20", "--repeat", "1"],
    "search": ["--objective", "regret", "--policy", "cascade-ucb1", "--K", "1", "--L", "3"]
    + ["--runs", "1", "--horizon", "20", "--maxiter", "1", "--popsize", "1"]
    + ["--confirm-runs", "2"],
    "report": ["--quick", "--runs", "2", "--horizon", "10", "--examples", "1", "--no-progress"],
    "study": ["--weights", "0.5,0.4,0.1", "--K", "1", "--runs", "2", "--horizon", "50"]
    + ["--policy", "cascade-ucb1", "--bound", "none", "--no-progress"],
    "profile": ["--weights", "0.5,0.4,0.1", "--K", "1", "--runs", "2", "--horizon", "50"]
    + ["--policy", "cascade-ucb1"],
}

#: the guard's limits during the fuzz (seconds of estimated work, bytes); matplotlib's cache
#: outside the scratch $HOME (it would write its font list there)
ENV = {
    "CASCADING_TIME_LIMIT": "20",
    "CASCADING_MEMORY_LIMIT": str(2 * 10**9),
    "MPLCONFIGDIR": os.path.join(tempfile.gettempdir(), "cascading-cli-fuzz-mpl"),
}
#: per-case timeout (seconds): numba's first compile of a kernel on a loaded machine included
TIMEOUT = 240.0

OUTCOMES = ("ok", "traceback", "long run", "silent acceptance", "bad refusal")

_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")


def value_options():
    """``[(subcommand, option string, argparse action)]`` for every option taking a value."""
    from cascading_bandits.reports.cli import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    out = []
    for name, sp in sub.choices.items():
        for a in sp._actions:
            if a.option_strings and a.nargs is None and a.dest != "help":
                out.append((name, a.option_strings[0], a))
    return out


def _number(text, integral, lo, hi, distinct=False):
    if not text.isascii() or not _NUMBER.fullmatch(text.strip()):
        return False
    v = float(text)
    if not math.isfinite(v) or (integral and v != int(v)):
        return False
    if integral and abs(v) > 2**63:
        return False
    return (lo is None or v >= lo) and (hi is None or v <= hi)


def valid(action, value: str) -> bool:
    """Whether ``value`` lies in the option's declared domain (an oracle independent of the
    option types' own parsing)."""
    if action.choices is not None:
        return value in action.choices
    kind = getattr(action.type, "kind", None)
    lo, hi = getattr(action.type, "minimum", None), getattr(action.type, "maximum", None)
    if kind in ("integer", "real"):
        return _number(value, kind == "integer", lo, hi)
    if kind in ("integer_list", "number_list"):
        parts = value.split(",")
        ok = all(_number(p, kind == "integer_list", lo, hi) for p in parts)
        if ok and getattr(action.type, "distinct", False):
            ok = len({float(p) for p in parts}) == len(parts)
        return ok
    if kind == "name_list":
        depth = 0
        items = [""]
        for ch in value:
            if ch == "," and depth == 0:
                items.append("")
                continue
            depth += (ch == "(") - (ch == ")")
            items[-1] += ch
        return depth == 0 and all(x.strip() for x in items)
    if kind == "text":
        return bool(value.strip())
    if kind == "directory":
        if not value.strip():
            return False
        if value.startswith("~"):
            try:
                Path(value).expanduser()
            except RuntimeError:  # ~user of an unknown user
                return False
        return True
    raise AssertionError(f"option without a declared domain: {action.option_strings}")


def argv_for(sub: str, option: str, value: str) -> list[str]:
    """The base invocation of ``sub`` with ``option`` set to ``value`` (its base value, if
    any, removed)."""
    base = list(BASE[sub])
    if option in base:
        i = base.index(option)
        del base[i : i + 2]
    return [sub, *base, f"{option}={value}"]


def cases(subcommands=None):
    """Every ``(subcommand, option, value, valid, argv)``, in registry order."""
    out = []
    for sub, option, action in value_options():
        if subcommands and sub not in subcommands:
            continue
        extra = tuple(action.choices or ()) + VALID_EXTRA.get(option, ())
        for value in HOSTILE + tuple(v for v in extra if v not in HOSTILE):
            out.append((sub, option, value, valid(action, value), argv_for(sub, option, value)))
    return out


def sample(all_cases, n, seed):
    """A seeded sample of ``n`` cases with every subcommand in it (at least two cases each
    when ``n`` allows)."""
    rng = random.Random(seed)
    by_sub = {}
    for c in all_cases:
        by_sub.setdefault(c[0], []).append(c)
    picked = []
    for sub in sorted(by_sub):
        picked += rng.sample(by_sub[sub], min(2, len(by_sub[sub])))
    rest = [c for c in all_cases if c not in picked]
    picked += rng.sample(rest, max(0, min(len(rest), n - len(picked))))
    return picked[: max(n, len(by_sub))]


# ---------------------------------------------------------------------------
# running one case
# ---------------------------------------------------------------------------
def run_inprocess(argv):
    """``main(argv)`` in an empty scratch directory that is also $HOME, with the fuzz limits.

    Returns ``(status or None, stdout, stderr, seconds, files left, escaped exception or
    None)``.
    """
    from cascading_bandits.reports.cli import main

    here = os.getcwd()
    scratch = tempfile.mkdtemp(prefix="cli-fuzz-")
    saved = {k: os.environ.get(k) for k in (*ENV, "HOME")}
    out, err = io.StringIO(), io.StringIO()
    escaped = None
    status = None
    t0 = time.perf_counter()
    try:
        os.environ.update(ENV)
        os.environ["HOME"] = scratch
        os.chdir(scratch)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                status = main(list(argv))
            except BaseException as exc:  # noqa: BLE001 -- an escape is what we look for
                escaped = f"{type(exc).__name__}: {exc}"
        left = sorted(str(p.relative_to(scratch)) for p in Path(scratch).rglob("*"))
    finally:
        seconds = time.perf_counter() - t0
        os.chdir(here)
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        shutil.rmtree(scratch, ignore_errors=True)
    return status, out.getvalue(), err.getvalue(), seconds, left, escaped


def serve() -> None:
    """The worker: one JSON argv per line on stdin, one JSON result per line on the original
    stdout (file descriptor 1 itself is pointed at /dev/null, so that nothing else written
    there, by numba or a C library, can garble the answers)."""
    from cascading_bandits.bounds._pystack import deep_call

    answers = os.fdopen(os.dup(1), "w", buffering=1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    for line in sys.stdin:
        answers.write(json.dumps(deep_call(run_inprocess, json.loads(line))) + "\n")


class Runner:
    """Cases in a worker process (``python cli_fuzz.py --serve``) with a per-case timeout;
    the worker is replaced after a timeout or a crash."""

    def __init__(self, timeout=TIMEOUT):
        self.timeout = timeout
        self.proc = None

    def _start(self):
        self.proc = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), "--serve"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )

    def _stop(self):
        self.proc.kill()
        self.proc.wait()
        self.proc = None

    def __call__(self, argv):
        if self.proc is None or self.proc.poll() is not None:
            self._start()
        self.proc.stdin.write(json.dumps(list(argv)) + "\n")
        self.proc.stdin.flush()
        ready, _, _ = select.select([self.proc.stdout], [], [], self.timeout)
        if not ready:
            self._stop()
            return None, "", "", self.timeout, [], None  # timed out
        line = self.proc.stdout.readline()
        if not line:  # the worker died (killed by the kernel, a crash)
            self._stop()
            return None, "", "worker process died", self.timeout, [], "worker died"
        return tuple(json.loads(line))

    def close(self):
        if self.proc is not None:
            self.proc.stdin.close()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self._stop()


def judge(case, result, timeout=TIMEOUT) -> tuple[str, str]:
    """``(outcome, why)`` of one case (module docstring)."""
    sub, option, value, is_valid, argv = case
    status, out, err, seconds, left, escaped = result
    if escaped is not None or "Traceback" in err or "Traceback" in out:
        return "traceback", escaped or err.strip().splitlines()[-1]
    if status is None:
        return "long run", f"still running after {timeout:.0f} s"
    if status not in (0, 1, 2):
        return "bad refusal", f"exit status {status}"
    if status == 2:
        lines = err.splitlines()
        if len(lines) != 1 or not err.endswith("\n"):
            return "bad refusal", f"{len(lines)} lines on stderr: {err[:300]!r}"
        if not (err.startswith(f"cascading {sub}: error: ") or err.startswith("cascading: error:")):
            return "bad refusal", f"not a 'cascading {sub}: error:' line: {err!r}"
        if left:
            return "bad refusal", f"refused but left files: {left[:5]}"
        return "ok", "refused"
    if not is_valid:
        return "silent acceptance", f"exit status {status} for {value!r}"
    return "ok", "accepted"


def fuzz(selected, runner, verbose=False, stream=sys.stdout):
    """Run ``selected`` cases; ``(counts, findings)``."""
    counts = dict.fromkeys(OUTCOMES, 0)
    findings = []
    for i, case in enumerate(selected, 1):
        result = runner(case[4])
        outcome, why = judge(case, result, getattr(runner, "timeout", TIMEOUT))
        counts[outcome] += 1
        if outcome != "ok":
            findings.append((case, outcome, why))
        if verbose or outcome != "ok":
            print(
                f"[{i}/{len(selected)}] {outcome:<17} {' '.join(case[4])!r} "
                f"({result[3]:.1f} s): {why}",
                file=stream,
                flush=True,
            )
    return counts, findings


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--sample", type=int, default=None, help="a seeded sample of N cases")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--timeout", type=float, default=TIMEOUT, help="seconds per case")
    ap.add_argument("--subcommand", action="append", help="only these (repeatable)")
    ap.add_argument("--verbose", action="store_true", help="one line per case")
    ap.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)  # the worker
    a = ap.parse_args(argv)
    if a.serve:
        serve()
        return 0
    every = cases(a.subcommand)
    selected = every if a.sample is None else sample(every, a.sample, a.seed)
    runner = Runner(a.timeout)
    t0 = time.perf_counter()
    try:
        counts, _ = fuzz(selected, runner, a.verbose)
    finally:
        runner.close()
    subs = sorted({c[0] for c in selected})
    options = len({(c[0], c[1]) for c in selected})
    print(
        f"cli fuzz: {len(selected)} cases ({len(subs)} subcommands, {options} options, "
        f"{len(HOSTILE)} hostile values) in {time.perf_counter() - t0:.0f} s: "
        + ", ".join(f"{counts[k]} {k}" for k in OUTCOMES)
    )
    return 0 if all(counts[k] == 0 for k in OUTCOMES[1:]) else 1


if __name__ == "__main__":
    sys.exit(main())
