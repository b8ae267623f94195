"""Fuzz the ``cascading`` command line: bad and edge values never give a traceback.

Every subcommand registered in :data:`reports.cli.SUBCOMMANDS` is covered: its options are
read from the parser itself, so a new subcommand or option is fuzzed without editing this
file.

* Hostile values on every option (benchmarks/cli_fuzz.py, the registry-driven sweep: empty,
  ``~``, NaN, inf, -1, 0, 1e400, fullwidth digits, ``a,,b``, huge integers, junk names on a
  small valid invocation of each subcommand, with the resource guard's limits lowered):
  exit status in {0, 1, 2}, no traceback, no run the guard lets through that outlasts the
  timeout, no value outside the option's domain accepted, each refusal one line. A seeded
  sample runs in-process by default; ``pytest -m slow`` runs a larger one with a per-case
  timeout; ``python benchmarks/cli_fuzz.py`` runs them all and prints the counts.
* Values refused as they are parsed (hypothesis, per option type) and values the libraries
  refuse: exit status 2, exactly one line on stderr naming the option (``argument --X``) or
  the bad value, no file written.
* Fixed cases for directories, resources, ignored options and the fixes of issue 25; the
  installed console script in a subprocess (a closed stdout, a peer that is not a Dask
  scheduler).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import io
import math
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cascading_bandits.reports.cli import SUBCOMMANDS, SUMMARIES, build_parser, main

FAST = settings(max_examples=40, deadline=None, database=None)
SLOW = settings(max_examples=600, deadline=None, database=None)

#: invocations, tracebacks, messages naming the option or the value (printed at the end)
STATS = {"invocations": 0, "tracebacks": 0, "name_option": 0, "name_value": 0}

ROOT = Path(__file__).resolve().parent.parent


def _load_fuzz():
    spec = importlib.util.spec_from_file_location(
        "cli_fuzz_under_test", ROOT / "benchmarks" / "cli_fuzz.py"
    )
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


FZ = _load_fuzz()
#: outcome counts of the registry-driven sweep (printed at the end)
SWEEP = dict.fromkeys(FZ.OUTCOMES, 0)


def _subparsers():
    parser = build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return action.choices


def _value_options():
    """(subcommand, option string, action) for every option that takes a value."""
    out = []
    for name, sp in _subparsers().items():
        for a in sp._actions:
            if a.option_strings and a.nargs is None and a.dest != "help":
                out.append((name, a.option_strings[0], a))
    return out


VALUE_OPTIONS = _value_options()
#: options validated as they are parsed (a type from reports.cli, or a list of choices)
#: options validated as they are parsed (a type from reports.cli.common that refuses values,
#: or a list of choices); a directory is checked by the subcommand, before any work
TYPED = [
    (n, o, a)
    for n, o, a in VALUE_OPTIONS
    if getattr(a.type, "kind", "directory") != "directory" or a.choices
]


def test_top_level_help_lists_every_subcommand_and_imports_none():
    """``cascading --help`` prints each summary without importing the subcommands' modules
    (verify's imports alone took 2 s); a subcommand's own help is its summary."""
    assert set(SUMMARIES) == set(SUBCOMMANDS)
    code = (
        "import sys, contextlib, io\n"
        "from cascading_bandits.reports.cli import SUBCOMMANDS, main\n"
        "buf = io.StringIO()\n"
        "with contextlib.redirect_stdout(buf):\n"
        "    assert main(['--help']) == 0\n"
        "print(sorted(m for m in SUBCOMMANDS.values() if m in sys.modules))\n"
        "print(' '.join(buf.getvalue().split()))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    assert out[0] == "[]"
    for name, summary in SUMMARIES.items():
        assert f"{name} {summary}" in out[1].replace("- ", "-")  # argparse wraps at hyphens
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    for name, p in sub.choices.items():
        assert p.description == SUMMARIES[name]


def test_registry_is_covered():
    subs = _subparsers()
    assert set(SUBCOMMANDS) == set(subs)  # every module exists and is registered
    for name in SUBCOMMANDS:
        assert any(n == name for n, _, _ in VALUE_OPTIONS), name
    # every option taking a value has a declared domain (a type from reports.cli.common or a
    # list of choices): what the sweep's oracle (benchmarks/cli_fuzz.valid) reads
    untyped = {(n, o) for n, o, a in VALUE_OPTIONS if not getattr(a.type, "kind", None)}
    untyped -= {(n, o) for n, o, a in VALUE_OPTIONS if a.choices}
    assert not untyped, untyped
    # every subcommand takes --force and has a cost estimate for the guard
    for name, sp in subs.items():
        assert "--force" in sp._option_string_actions, name
        assert sp.get_default("_cost") is not None, name


def _invoke(argv):
    """Run main(argv) in an empty scratch directory; (status, stdout, stderr, files left)."""
    here = os.getcwd()
    scratch = tempfile.mkdtemp(prefix="cli-fuzz-")
    out, err = io.StringIO(), io.StringIO()
    try:
        os.chdir(scratch)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                rc = main(list(argv))
            except BaseException as exc:  # noqa: BLE001 -- any escape is the failure we look for
                STATS["tracebacks"] += 1
                raise AssertionError(f"{argv!r} raised {type(exc).__name__}: {exc}") from exc
        left = sorted(str(p.relative_to(scratch)) for p in Path(scratch).rglob("*"))
    finally:
        os.chdir(here)
        shutil.rmtree(scratch, ignore_errors=True)
    STATS["invocations"] += 1
    return rc, out.getvalue(), err.getvalue(), left


def _assert_refused(argv, option, value):
    rc, out, err, left = _invoke(argv)
    assert rc == 2, (argv, rc, out[:200], err)
    assert err.count("\n") == 1 and err.endswith("\n"), (argv, err)
    assert "Traceback" not in err and out == "", (argv, err)
    assert "np.float" not in err and "np.int" not in err, (argv, err)  # no numpy reprs
    assert err.startswith(f"cascading {argv[0]}: error: ") or err.startswith("cascading: error:")
    assert left == [], (argv, left)
    names_option = option in err or option.lstrip("-") in err
    names_value = repr(value) in err or (value.strip() != "" and value.strip() in err)
    STATS["name_option"] += names_option
    STATS["name_value"] += names_value
    assert names_option or names_value, (argv, err)
    return err


# ---------------------------------------------------------------------------
# values invalid for the option whatever else is given: refused as they are parsed
# ---------------------------------------------------------------------------
NOT_NUMBERS = st.sampled_from(
    ["", " ", "abc", "nan", "NaN", "-nan", "inf", "-inf", "+inf", "1e400", "-1e400", "0x10"]
    + ["1..2", "1e", "--1", "-", "1,2,", ",", "½", "\u0661", "1 2", "a\nb", "١٢"]
) | st.text(alphabet="abcxyz-+.,eE _\t\n'\"\\é%", min_size=0, max_size=12)


def _bad_for(action):
    kind = getattr(action.type, "kind", None)
    lo, hi = getattr(action.type, "minimum", None), getattr(action.type, "maximum", None)
    if kind in ("integer", "integer_list"):
        below = st.integers(max_value=lo - 1, min_value=lo - 10**30).map(str)
        above = st.integers(min_value=hi + 1, max_value=hi + 10**30).map(str)  # hi <= int64
        frac = st.floats(allow_nan=False, allow_infinity=False).filter(
            lambda x: x != int(x) if math.isfinite(x) else True
        )
        huge = st.sampled_from(["1e300", "9.3e18", "1e19", "-1e300", "2.5", "1e-5"])
        strat = below | above | frac.map(repr) | huge | NOT_NUMBERS
    elif kind in ("real", "number_list"):
        nonfinite = st.sampled_from(["nan", "inf", "-inf", "1e309", "-1e309"])
        strat = nonfinite | NOT_NUMBERS
        if lo is not None:
            strat = strat | st.floats(max_value=lo, exclude_max=True, allow_nan=False).filter(
                math.isfinite
            ).map(repr)
    elif kind == "name_list":  # empty, an empty item, unbalanced parentheses
        strat = st.sampled_from(["", " ", ",", "a,", ",a", "a,,b", "a, ,b", "a(", "a)", "(a,"])
    elif kind == "text":
        strat = st.sampled_from(["", " ", "\t", "  \n "])
    else:  # choices
        strat = st.text(max_size=15).filter(lambda s: s not in action.choices)
    return strat.filter(lambda s: "\x00" not in s)


def _typed_case():
    return st.sampled_from(TYPED).flatmap(
        lambda t: st.tuples(st.just(t[0]), st.just(t[1]), _bad_for(t[2]))
    )


def _check_typed(case):
    sub, option, value = case
    err = _assert_refused([sub, option, value], option, value)
    assert f"argument {option}" in err, err


@FAST
@given(_typed_case())
def test_typed_options_refuse_bad_values(case):
    _check_typed(case)


@pytest.mark.slow
@SLOW
@given(_typed_case())
def test_typed_options_refuse_bad_values_long(case):
    _check_typed(case)


# ---------------------------------------------------------------------------
# values that parse but that the library refuses (with an otherwise valid, quick command)
# ---------------------------------------------------------------------------
def _names(strategy, valid):
    return strategy.filter(lambda s: s.strip() and not any(v.startswith(s.strip()) for v in valid))


_TEXT = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters=",\x00"),
    min_size=1,
    max_size=16,
).filter(lambda s: not s.startswith("--"))


def _semantic_cases():
    from cascading_bandits.bounds.registry import bound_names
    from cascading_bandits.simulate.experiments import EXPERIMENTS
    from cascading_bandits.simulate.policies import policy_names
    from cascading_bandits.verify import all_claims

    POLICIES = tuple(policy_names())
    BOUNDS = bound_names()  # every registered bound (a prefix of none is fuzzed)

    quick = ["--runs", "1", "--horizon", "10"]
    big = st.floats(min_value=1.0, max_value=1e300, exclude_min=True).map(repr)
    neg = st.floats(min_value=-1e300, max_value=0.0).map(repr)  # 0 is out of (0, 1] too
    below0 = st.floats(min_value=-1e300, max_value=0.0, exclude_max=True).map(repr)  # nu: [0, 1]
    return st.one_of(
        st.tuples(st.just(("bounds", [], "--p")), big | neg),
        st.tuples(st.just(("bounds", [], "--delta")), st.floats(0.2, 1e300).map(repr) | neg),
        st.tuples(st.just(("bounds", [], "--K")), st.integers(17, 10**12).map(str)),
        st.tuples(st.just(("bounds", ["--K", "1"], "--weights")), big),
        st.tuples(st.just(("simulate", quick, "--K")), st.integers(17, 10**12).map(str)),
        st.tuples(st.just(("simulate", [*quick, "--model", "dbn"], "--nu")), big | below0),
        st.tuples(st.just(("simulate", [*quick, "--model", "dbn"], "--gamma")), big | neg),
        st.tuples(st.just(("simulate", [*quick, "--K", "2"], "--p")), big | neg),
        st.tuples(st.just(("simulate", [*quick, "--K", "2"], "--policy")), _names(_TEXT, POLICIES)),
        st.tuples(
            st.just(("simulate", ["--testing"], "--experiment")),
            _names(_TEXT, (*EXPERIMENTS, "all")),
        ),
        st.tuples(st.just(("verify", [], "--claim")), _names(_TEXT, [c.id for c in all_claims()])),
        st.tuples(st.just(("bench", ["--L", "16"], "--policy")), _names(_TEXT, POLICIES)),
        st.tuples(st.just(("search", ["--objective", "bound"], "--bound")), _names(_TEXT, BOUNDS)),
        st.tuples(st.just(("ledger", [], "--from-search")), _TEXT),
    )


def _check_semantic(case):
    (sub, base, option), value = case
    _assert_refused([sub, *base, option, value], option, value)


@FAST
@given(_semantic_cases())
def test_library_refusals_are_one_line(case):
    _check_semantic(case)


@pytest.mark.slow
@SLOW
@given(_semantic_cases())
def test_library_refusals_are_one_line_long(case):
    _check_semantic(case)


# ---------------------------------------------------------------------------
# directories, resources, ignored options: each listed case once
# ---------------------------------------------------------------------------
@pytest.fixture
def afile(tmp_path):
    f = tmp_path / "afile"
    f.write_text("not a directory")
    return f


_STUDY = ["--weights", "0.5,0.4,0.1", "--K", "1", "--policy", "cascade-ucb1"]
_PROFILE = ["--weights", "0.5,0.4,0.1", "--K", "1", "--policy", "cascade-ucb1"]
#: B_LB(16, 2, 0.2, 0.15) and one policy: at the default horizon (1e5) a million runs are
#: days of work
_BLB = ["--L", "16", "--K", "2", "--p", "0.2", "--delta", "0.15", "--policy", "cascade-ucb1"]


def _fixed_cases(afile):
    exp = ["simulate", "--experiment", "table1", "--testing", "--workers", "1"]
    rep = ["report", "--quick", "--no-progress"]
    return [
        ([*exp, "--out", ""], "--out", ""),
        ([*exp, "--out", "/proc/nope"], "--out", "/proc/nope"),
        ([*exp, "--out", f"{afile}/sub"], "--out", f"{afile}/sub"),
        ([*exp, "--out", str(afile)], "--out", str(afile)),
        ([*rep, "--out", ""], "--out", ""),
        ([*rep, "--out", f"{afile}/sub"], "--out", f"{afile}/sub"),
        ([*rep, "--out", "/proc/nope"], "--out", "/proc/nope"),
        ([*rep, "--out", "r", "--results", str(afile)], "--results", str(afile)),
        (["simulate", "--K", "2", "--runs", "1000000000"], "--runs", "1000000000"),
        (["simulate", "--K", "2", "--horizon", "1e12"], "--horizon", "1e12"),
        (["simulate", "--L", "100000000"], "--L", "100000000"),
        (["simulate", "--K", "2", "--c", "1"], "--c", "1"),  # gone: c is in the policy spec
        (["simulate", "--K", "2", "--policy", "cascade-klucb(c=1e300)"], "c = 1e+300", ""),
        (["simulate", "--experiment", "table1", "--nu", "0.5"], "--nu", "0.5"),
        (["simulate", "--K", "2", "--testing"], "--testing", ""),
        (["verify", "--examples", "100000000"], "--examples", "100000000"),
        (["verify", "--list", "--seed", "3"], "--seed", "3"),
        (["bench", "--threads", "1000"], "--threads", "1000"),
        (["bench", "--what", "sweep", "--L", "16"], "--L", "16"),
        (["bench", "--horizon", "1e12"], "--horizon", "1e12"),
        (["bounds", "--L", "1000000000"], "--L", "1000000000"),
        (["bounds", "--eps", "1e-300"], "--eps", "1e-300"),
        (["bounds", "--n", "100"], "--n", "100"),
        (["bounds", "--weights", "-0.5,0.5", "--K", "1"], "--weights", "-0.5"),
        (["search", "--objective", "ratio", "--bound", "theorem2"], "--bound", "theorem2"),
        (["search", "--objective", "bound", "--bound", "vial-klucb"], "--bound", "vial-klucb"),
        (["search", "--objective", "bound", "--bound", "theorem4"], "--bound", "theorem4"),
        (["bounds", "--list", "--horizon", "100"], "--horizon", "100"),
        (["ledger", "--from-search", str(afile)], "--from-search", str(afile)),
        (["ledger", "--from-search", "~0"], "--from-search", "~0"),
        (
            ["search", "--objective", "bound", "--bound", "theorem2", "--K", "2", "--L", "4"]
            + ["--out", "~0"],
            "--out",
            "~0",
        ),
        (["simulate", "--experiment", "table1", "--testing", "--out", "~0"], "--out", "~0"),
        (["report", "--quick", "--out", "~0/r"], "--out", "~0/r"),
        (["study", "--weights", "0.2,0.1", "--K", "1", "--out", "~0"], "directory", "~0"),
        # issue 25: every subcommand guarded alike, with the estimate
        (["study", *_BLB, "--horizon", "1e10"], "--horizon 10000000000", "would take"),
        (["study", *_BLB, "--runs", "1e6"], "--runs 1000000", "would take"),
        (["study", "--L", "1000000", "--K", "2", "--p", "0.2", "--delta", "0.1"], "--L", ""),
        (["search", "--K", "1e3"], "would take about", ""),
        (["search", "--horizon", "4294967297"], "--horizon 4294967297", "would take"),
        (["search", "--confirm-horizon", "4294967297"], "would take about", ""),
        (["search", "--L", "100000000"], "L = 100000000", "two-level"),
        (["profile", *_BLB, "--runs", "1e6"], "--runs 1000000", "would take"),
        (["profile", "--L", "1000000", "--K", "2", "--p", "0.2", "--delta", "0.1"], "--L", ""),
        (["profile", *_PROFILE, "--horizon", "1e12"], "--horizon 1000000000000", "would need"),
        (["bench", "--repeat", "1e9"], "--repeat 1000000000", "would take"),
        (["verify", "--full", "--examples", "1e6"], "--examples 1000000 --full", "would take"),
        # no silent acceptance
        (["study", *_STUDY, "--out", ""], "--out", ""),
        (["profile", *_PROFILE, "--out", ""], "--out", ""),
        (["study", *_STUDY, "--policy", ""], "--policy", ""),
        (["study", *_STUDY, "--policy", "cascade-ucb1,,oracle"], "--policy", ""),
        (["simulate", "--K", "2", "--policy", "a,,b"], "--policy", "a,,b"),
        (["bench", "--policy", ""], "--policy", ""),
        (["study", *_STUDY, "--bound", "theorem2,,theorem3"], "--bound", ""),
        (["study", *_STUDY, "--runs", "\uff12"], "--runs", "\uff12"),
        (["profile", *_PROFILE, "--runs", "\uff12"], "--runs", "\uff12"),
        (["search", "--runs", "\u0662"], "--runs", ""),
        (["search", "--K", "2,2"], "--K", "2,2"),
        (["search", "--objective", "regret", "--horizon", "100,100"], "--horizon", "100,100"),
        (["simulate", "--K", "2", "--scheduler", "zzz"], "--scheduler", "zzz"),
        (["simulate", "--K", "2", "--scheduler", "127.0.0.1:99999"], "--scheduler", ""),
    ]


def test_fixed_cases(afile):
    for argv, option, value in _fixed_cases(afile):
        _assert_refused(argv, option, value)
    assert afile.read_text() == "not a directory"


def test_immutable_directory_is_one_line(tmp_path):
    d = tmp_path / "frozen"
    d.mkdir()
    if subprocess.run(["chattr", "+i", str(d)], capture_output=True).returncode != 0:
        pytest.skip("chattr +i is not available here")
    try:
        for argv in (
            ["simulate", "--experiment", "table1", "--testing", "--out", str(d / "x")],
            ["report", "--quick", "--out", str(d)],
        ):
            err = _assert_refused(argv, "--out", str(d))
            assert "not a writable directory" in err and str(d) in err
    finally:
        subprocess.run(["chattr", "-i", str(d)], check=True)
    assert list(d.iterdir()) == []


# ---------------------------------------------------------------------------
# the installed console script, in a subprocess
# ---------------------------------------------------------------------------
def _script():
    exe = Path(sys.executable).with_name("cascading")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "cascading_bandits.reports.cli"]


_SCRIPT_CASES = [
    (["simulate", "--K", "2", "--horizon", "1e300"], "argument --horizon"),
    (["bench", "--L", "abc"], "argument --L"),
    (["bounds", "--L", "1e300"], "argument --L"),
    (["bounds", "--horizon", "-inf"], "argument --horizon"),
    (["report", "--out", ""], "--out must name a directory"),
    (["simulate", "--experiment", "table1", "--out", ""], "--out must name a directory"),
]


@pytest.mark.parametrize("argv, needle", [_SCRIPT_CASES[0], _SCRIPT_CASES[4]])
def test_console_script(argv, needle, tmp_path):
    """Two of the cases through the installed script (a new interpreter each: 1-3 s of
    imports); all of them in-process below."""
    p = subprocess.run(_script() + argv, capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert p.returncode == 2 and p.stdout == ""
    assert p.stderr.count("\n") == 1 and needle in p.stderr and "Traceback" not in p.stderr
    assert list(tmp_path.iterdir()) == []
    STATS["invocations"] += 1


@pytest.mark.parametrize("argv, needle", _SCRIPT_CASES)
def test_console_script_cases_in_process(argv, needle):
    rc, out, err, left = _invoke(argv)
    assert rc == 2 and out == ""
    assert err.count("\n") == 1 and needle in err and "Traceback" not in err
    assert left == []


def test_console_script_version(tmp_path):
    from importlib.metadata import version

    p = subprocess.run(_script() + ["--version"], capture_output=True, text=True, cwd=tmp_path)
    assert p.returncode == 0 and p.stdout.strip() == f"cascading {version('cascading-bandits')}"
    # without a subcommand's modules: verify's import alone took 2 s
    code = (
        "import sys; from cascading_bandits.reports.cli import main; s = main(['--version']); "
        "print(s, sorted(m for m in sys.modules if m.startswith('cascading_bandits.verify')))"
    )
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path)
    assert p.stdout.splitlines()[-1] == "0 []", p.stdout + p.stderr


# ---------------------------------------------------------------------------
# the registry-driven sweep: every option of every subcommand, hostile values
# ---------------------------------------------------------------------------
def test_the_sweep_covers_every_option_of_every_subcommand():
    every = FZ.cases()
    assert {c[0] for c in every} == set(SUBCOMMANDS)
    assert {(c[0], c[1]) for c in every} == {(n, o) for n, o, _ in VALUE_OPTIONS}
    # every hostile value, plus each declared choice and VALID_EXTRA's valid values
    extra = sum(
        len((set(a.choices or ()) | set(FZ.VALID_EXTRA.get(o, ()))) - set(FZ.HOSTILE))
        for _, o, a in VALUE_OPTIONS
    )
    assert len(every) == len(VALUE_OPTIONS) * len(FZ.HOSTILE) + extra
    # the valid values reach the new options: search's --model/--instance, ledger's --model
    for sub, option, value in (
        ("search", "--model", "pbm"),
        ("search", "--instance", "yandex:4102451:top"),
        ("ledger", "--model", "dcm"),
    ):
        assert any(c[:3] == (sub, option, value) and c[3] for c in every), (sub, option)
    # the oracle is not the option types: it refuses what they must refuse
    bad = {"", " ", "NaN", "inf", "-inf", "1e400", "\uff11\uff12", "a,,b"}
    bad_count = bad | {"9" * 25, "-1", "0", "0.5", "~"}  # beyond int64, below 1, not integers
    for sub, option, value, ok, _ in every:
        if sub == "simulate" and option == "--p":
            assert ok == (value not in bad | {"~", "zzz", "~nosuchuser0/x", "cascade-nope"}), value
        if sub == "simulate" and option in ("--runs", "--horizon"):
            assert ok == (value not in bad_count | {"~nosuchuser0/x", "zzz", "cascade-nope"}), value


def test_the_judge_sees_each_failure():
    case = ("simulate", "--runs", "-1", False, ["simulate", "--runs=-1"])
    one = "cascading simulate: error: argument --runs: must be an integer >= 1\n"
    assert FZ.judge(case, (2, "", one, 0.1, [], None))[0] == "ok"
    assert FZ.judge(case, (0, "", "", 0.1, [], None))[0] == "silent acceptance"
    assert FZ.judge(case, (2, "", one + "more\n", 0.1, [], None))[0] == "bad refusal"
    assert FZ.judge(case, (2, "", one, 0.1, ["x"], None))[0] == "bad refusal"
    assert FZ.judge(case, (3, "", "", 0.1, [], None))[0] == "bad refusal"
    assert FZ.judge(case, (None, "", "", 240.0, [], None))[0] == "long run"
    assert FZ.judge(case, (2, "", "Traceback (most recent call last):\n", 0.1, [], None))[0] == (
        "traceback"
    )
    assert FZ.judge(case, (None, "", "", 0.1, [], "TypeError: x"))[0] == "traceback"
    valid = ("simulate", "--runs", "1", True, ["simulate", "--runs=1"])
    assert FZ.judge(valid, (0, "", "", 0.1, [], None))[0] == "ok"


class _InProcess:
    timeout = FZ.TIMEOUT

    def __call__(self, argv):
        return FZ.run_inprocess(argv)


def _sweep(selected, runner):
    counts, findings = FZ.fuzz(selected, runner)
    for k, v in counts.items():
        SWEEP[k] += v
    STATS["invocations"] += len(selected)
    STATS["tracebacks"] += counts["traceback"]
    assert counts["ok"] == len(selected), findings


def test_hostile_values_on_every_subcommand_sample():
    """A seeded sample of the sweep, in-process: every subcommand, several options."""
    _sweep(FZ.sample(FZ.cases(), 30, seed=2025), _InProcess())


@pytest.mark.slow
def test_hostile_values_on_every_subcommand_long():
    """A larger seeded sample, each case in a worker process with a timeout."""
    runner = FZ.Runner()
    try:
        _sweep(FZ.sample(FZ.cases(), 400, seed=7), runner)
    finally:
        runner.close()


# ---------------------------------------------------------------------------
# a closed stdout, a peer that is not a Dask scheduler
# ---------------------------------------------------------------------------
def test_a_closed_stdout_ends_quietly(tmp_path):
    """``cascading bounds --list | head -0``: the reader is gone before anything is written;
    no 'Broken pipe' error, the status of a process ended by SIGPIPE (141)."""
    p = subprocess.Popen(
        [*_script(), "bounds", "--list"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=tmp_path,
    )
    p.stdout.close()  # every write of the command now fails with EPIPE
    err = p.stderr.read().decode()
    assert p.wait(timeout=300) == 141, err
    assert err == "", err
    STATS["invocations"] += 1


def test_closed_stdout_in_process(monkeypatch, capsys):
    import importlib

    from cascading_bandits.reports import cli

    def closed(args):
        raise BrokenPipeError(32, "Broken pipe")

    sub = importlib.import_module("cascading_bandits.reports.cli.bounds")
    monkeypatch.setattr(sub, "run", closed)
    assert cli.main(["bounds", "--list"]) == cli.CLOSED_STDOUT
    assert capsys.readouterr().err == ""


@pytest.fixture
def junk_server():
    """A loopback server that answers every connection with bytes no Dask peer sends: a
    frame length of 2**40, which distributed tries to allocate (MemoryError)."""
    srv = socket.socket()
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("127.0.0.1", 0))
    srv.listen(8)
    srv.settimeout(0.2)
    stop = threading.Event()

    def serve():
        while not stop.is_set():
            try:
                c, _ = srv.accept()
            except OSError:
                continue
            with contextlib.suppress(OSError):
                c.sendall((2**40).to_bytes(8, "little") * 4 + b"not dask" * 8)
                c.close()

    t = threading.Thread(target=serve, daemon=True)
    t.start()
    yield f"tcp://127.0.0.1:{srv.getsockname()[1]}"
    stop.set()
    t.join(5)
    srv.close()


def test_a_peer_that_is_not_dask_is_named_so(junk_server, capsys, tmp_path, monkeypatch):
    pytest.importorskip("distributed")
    monkeypatch.chdir(tmp_path)
    rc = main(
        ["simulate", "--K", "2", "--runs", "1", "--horizon", "10", "--scheduler", junk_server]
    )
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1, err
    assert f"--scheduler {junk_server}: the address answered, but not as a Dask scheduler" in err
    assert "out of memory" not in err
    assert list(tmp_path.iterdir()) == []


def test_zz_report_counts(capsys):
    """Last in the file: the counts the fuzz tests above accumulated (shown with -s)."""
    assert STATS["tracebacks"] == 0
    with capsys.disabled():
        print(
            f"\ncli fuzz: {STATS['invocations']} invocations, {STATS['tracebacks']} tracebacks, "
            f"{STATS['name_option']} messages name the option, "
            f"{STATS['name_value']} name the value; hostile-value sweep: "
            + ", ".join(f"{v} {k}" for k, v in SWEEP.items())
        )
