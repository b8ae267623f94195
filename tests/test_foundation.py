"""Instances, input validation and the CLI dispatcher."""

import subprocess
import sys

import numpy as np
import pytest

from cascading_bandits.bounds import CascadeInstance, as_instance, b_lb
from cascading_bandits.bounds import _validate as V
from cascading_bandits.reports.cli import main


def test_b_lb_matches_eq6():
    inst = b_lb(16, 2, 0.2, 0.15)
    assert inst.L == 16 and inst.K == 2
    assert list(inst.optimal_weights) == [0.2, 0.2]
    assert (inst.suboptimal_weights == 0.05).all() and inst.suboptimal_weights.size == 14
    assert b_lb(16, 2, 0.2, 0.075).weights[-1] == 0.125
    assert np.allclose(inst.gaps(), 0.15) and inst.gaps().shape == (14, 2)
    assert inst.has_unique_optimum
    assert inst.optimal_reward() == pytest.approx(1 - 0.8**2)


def test_instance_sorts_and_is_frozen():
    inst = CascadeInstance((0.1, 0.5, 0.3), 2)
    assert list(inst.sorted_weights) == [0.5, 0.3, 0.1]
    assert list(inst.w) == [0.1, 0.5, 0.3]  # the user's order is kept
    with pytest.raises(ValueError):
        inst.w[0] = 0.9  # read-only view
    with pytest.raises(AttributeError):
        inst.K = 3
    assert inst == CascadeInstance([0.1, 0.5, 0.3], 2)
    assert as_instance(inst) is inst
    assert as_instance([0.1, 0.5, 0.3], 2) == inst


def test_ties_detected():
    inst = CascadeInstance((0.5, 0.3, 0.3), 2)
    assert not inst.has_unique_optimum
    with pytest.raises(ValueError, match="unique optimal set"):
        inst.require_unique_optimum()


@pytest.mark.parametrize(
    "call, msg",
    [
        (lambda: CascadeInstance((0.1, 1.2), 1), r"\[0, 1\]"),
        (lambda: CascadeInstance((0.1, float("nan")), 1), "NaN"),
        (lambda: CascadeInstance((0.1, 0.2), 3), "K must satisfy"),
        (lambda: CascadeInstance((0.1, 0.2), 0), "K must be an integer"),
        (lambda: CascadeInstance((), 1), "at least one"),
        (lambda: CascadeInstance([[0.1, 0.2]], 1), "1-dimensional"),
        (lambda: CascadeInstance("abc", 1), "numeric"),
        (lambda: b_lb(16, 2, 0.2, 0.25), "delta must satisfy"),
        (lambda: b_lb(16, 2, 0.0, 0.1), r"\(0, 1\]"),
        (lambda: b_lb(16, 17, 0.2, 0.1), "K must satisfy"),
        (lambda: b_lb(2.5, 1, 0.2, 0.1), "L must be an integer"),
        (lambda: as_instance([0.1, 0.2]), "K is required"),
        (lambda: as_instance(b_lb(4, 2, 0.2, 0.1), 3), "disagrees"),
    ],
)
def test_bad_instances_rejected(call, msg):
    with pytest.raises(ValueError, match=msg):
        call()


def test_validators():
    assert V.positive_int("n", 1e5) == 100000
    assert V.positive_int("n", np.int64(3)) == 3
    for bad in (0, -1, 2.5, float("inf"), True, "7"):
        with pytest.raises(ValueError, match="n must be an integer"):
            V.positive_int("n", bad)
    assert V.positive_real("eps", 0.5) == 0.5
    for bad in (0, -1, float("nan"), float("inf"), np.array([1.0, 2.0])):
        with pytest.raises(ValueError, match="eps"):
            V.positive_real("eps", bad)
    with pytest.raises(ValueError, match="unknown policy 'x'; allowed: a, b"):
        V.choice("policy", "x", ("a", "b"))


def test_cli_usage_errors_exit_2(capsys):
    assert main(["no-such-command"]) == 2  # main returns the status, never raises SystemExit
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "invalid choice" in err
    assert main([]) == 2
    assert "required" in capsys.readouterr().err


def test_cli_version(capsys):
    from importlib.metadata import version

    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"cascading {version('cascading-bandits')}"


def test_negative_values_reach_the_option(capsys):
    # argparse alone reads "-inf" as an unknown option ("expected one argument")
    assert main(["bounds", "--horizon", "-inf"]) == 2
    err = capsys.readouterr().err
    assert "argument --horizon" in err and "'-inf'" in err and "expected one argument" not in err
    assert main(["bounds", "--horizon", "--json"]) == 2  # a real option is not swallowed
    assert "expected one argument" in capsys.readouterr().err


def test_console_script_installed():
    out = subprocess.run(
        [sys.executable, "-m", "cascading_bandits.reports.cli", "--help"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "cascading" in out.stdout


def test_error_lines_have_no_numpy_reprs_or_newlines():
    from cascading_bandits.reports.cli import _one_line

    assert _one_line("p must lie in (0, 1], got np.float64(1.5)") == (
        "p must lie in (0, 1], got 1.5"
    )
    assert _one_line("K = np.int64(3)\n  at  \n") == "K = 3 at"


def test_oserror_anywhere_is_one_line_naming_the_path(monkeypatch, capsys):
    import cascading_bandits.reports.cli.bounds as bcli

    def boom(args):
        raise PermissionError(13, "Permission denied", "/some/where/file.json")

    monkeypatch.setattr(bcli, "run", boom)
    assert main(["bounds"]) == 2
    err = capsys.readouterr().err
    assert err == "cascading bounds: error: /some/where/file.json: Permission denied\n"
