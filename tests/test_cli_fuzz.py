"""Fuzz the ``cascading`` command line: bad and edge values never give a traceback.

Every subcommand registered in :data:`reports.cli.SUBCOMMANDS` is covered: its options are
read from the parser itself, so a new subcommand or option is fuzzed without editing this
file. Each invocation must exit with status 2, print exactly one line on stderr that names
the option (``argument --X``) or the bad value, print no traceback, and write no file
(the invocations run in an empty working directory that must stay empty).

Most invocations run in-process (:func:`reports.cli.main`, fast); a few run the installed
console script in a subprocess. ``pytest -m slow`` runs many more examples.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import math
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cascading_bandits.reports.cli import SUBCOMMANDS, SUMMARIES, build_parser, main

FAST = settings(max_examples=40, deadline=None, database=None)
SLOW = settings(max_examples=600, deadline=None, database=None)

#: invocations, tracebacks, messages naming the option or the value (printed at the end)
STATS = {"invocations": 0, "tracebacks": 0, "name_option": 0, "name_value": 0}


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
TYPED = [(n, o, a) for n, o, a in VALUE_OPTIONS if getattr(a.type, "kind", None) or a.choices]


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
    # every numeric option is typed (so its bad values are refused as they are parsed)
    untyped = {(n, o) for n, o, a in VALUE_OPTIONS if a.type is None and not a.choices}
    assert untyped <= {
        ("simulate", "--experiment"),
        ("simulate", "--out"),
        ("simulate", "--policy"),
        ("simulate", "--scheduler"),
        ("verify", "--claim"),
        ("report", "--out"),
        ("report", "--results"),
        ("report", "--scheduler"),
        ("bench", "--policy"),
        ("study", "--policy"),
        ("study", "--out"),
        ("study", "--bound"),  # registered bound names, checked against the registry
        ("search", "--policy"),
        ("search", "--out"),
        ("search", "--bound"),
        ("ledger", "--from-search"),
        ("profile", "--policy"),
        ("profile", "--out"),
    }, untyped


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
        (["simulate", "--K", "2", "--c", "1e300"], "--c", "1e300"),
        (["simulate", "--K", "2", "--policy", "cascade-ts", "--c", "1"], "--c", "1"),
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
        (["search", "--objective", "bound", "--K", "2", "--L", "4", "--out", "~0"], "--out", "~0"),
        (["simulate", "--experiment", "table1", "--testing", "--out", "~0"], "--out", "~0"),
        (["report", "--quick", "--out", "~0/r"], "--out", "~0/r"),
        (["study", "--weights", "0.2,0.1", "--K", "1", "--out", "~0"], "directory", "~0"),
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


@pytest.mark.parametrize(
    "argv, needle",
    [
        (["simulate", "--K", "2", "--horizon", "1e300"], "argument --horizon"),
        (["bench", "--L", "abc"], "argument --L"),
        (["bounds", "--L", "1e300"], "argument --L"),
        (["bounds", "--horizon", "-inf"], "argument --horizon"),
        (["report", "--out", ""], "--out must name a directory"),
        (["simulate", "--experiment", "table1", "--out", ""], "--out must name a directory"),
    ],
)
def test_console_script(argv, needle, tmp_path):
    p = subprocess.run(_script() + argv, capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert p.returncode == 2 and p.stdout == ""
    assert p.stderr.count("\n") == 1 and needle in p.stderr and "Traceback" not in p.stderr
    assert list(tmp_path.iterdir()) == []
    STATS["invocations"] += 1


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


def test_zz_report_counts(capsys):
    """Last in the file: the counts the fuzz tests above accumulated (shown with -s)."""
    assert STATS["tracebacks"] == 0
    with capsys.disabled():
        print(
            f"\ncli fuzz: {STATS['invocations']} invocations, {STATS['tracebacks']} tracebacks, "
            f"{STATS['name_option']} messages name the option, "
            f"{STATS['name_value']} name the value"
        )
