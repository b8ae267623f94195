"""`cascading bounds`: table, --json keys and values, one-line errors with exit status 2."""

import json
import math

import pytest

from cascading_bandits.bounds import b_lb
from cascading_bandits.bounds.lower import theorem4_coefficient
from cascading_bandits.bounds.upper import (
    theorem2_bound,
    theorem3_bound,
    theorem3_leading_coefficient,
)
from cascading_bandits.reports.cli import main

KEYS = {"theorem2", "theorem3", "theorem3_leading", "theorem4_coefficient", "eps", "C2", "beta"}


def _json(capsys, *argv):
    assert main(["bounds", *argv, "--json"]) == 0
    out = capsys.readouterr().out
    assert out.count("\n") == 1  # one JSON object on one line
    return json.loads(out)


def test_default_is_the_paper_instance(capsys):
    res = _json(capsys)
    assert KEYS <= res.keys()
    assert res["instance"]["L"] == 16 and res["instance"]["K"] == 2 and res["n"] == 100000
    same = _json(
        capsys, "--L", "16", "--K", "2", "--p", "0.2", "--delta", "0.15", "--horizon", "1e5"
    )
    assert same == res
    inst = b_lb(16, 2, 0.2, 0.15)
    assert res["theorem2"] == theorem2_bound(inst, 10**5)  # full double precision, bit for bit
    assert res["theorem4_coefficient"] == theorem4_coefficient(inst)
    assert res["theorem3_leading"] == theorem3_leading_coefficient(inst) * math.log(1e5)
    assert res["theorem3"] == pytest.approx(theorem3_bound(inst, 10**5, eps=res["eps"]), rel=1e-15)
    assert res["eps_optimised"] is True and res["eps"] > 0
    assert res["theorem4_coefficient"] * math.log(1e5) < res["theorem3"] < res["theorem2"]


def test_eps_weights_and_form(capsys):
    res = _json(
        capsys, "--weights", "0.3,0.2,0.1,0.05", "--K", "2", "--eps", "0.5", "--horizon", "1000"
    )
    assert res["eps"] == 0.5 and res["eps_optimised"] is False
    assert res["instance"]["weights"] == [0.3, 0.2, 0.1, 0.05]
    proof = _json(
        capsys, "--weights", "0.3,0.2,0.1,0.05", "--K", "2", "--eps", "0.5", "--form", "proof"
    )
    assert proof["theorem3_form"] == "proof"
    # general instance: Theorem 4's general-instance constant
    assert res["theorem4_coefficient"] == pytest.approx(
        (1 - 0.3) * (0.1 / _kl(0.1, 0.2) + 0.15 / _kl(0.05, 0.2)), rel=1e-13
    )


def _kl(p, q):
    return p * math.log(p / q) + (1 - p) * math.log((1 - p) / (1 - q))


def test_table(capsys):
    assert main(["bounds", "--horizon", "100000"]) == 0
    out = capsys.readouterr().out
    assert "B_LB(L=16, K=2, p=0.2, delta=0.15)" in out
    for name in (
        "Theorem 2 (CascadeUCB1)",
        "Theorem 3 (CascadeKL-UCB)",
        "Theorem 4",
        "pre-peeling",
    ):
        assert name in out
    assert "value at n" in out and "coef. of log n" in out and "ratio to lower" in out
    row = next(line for line in out.splitlines() if line.startswith("Theorem 2 (CascadeUCB1)"))
    assert "1120.000000" in row  # 14 * 12 / 0.15


@pytest.mark.parametrize(
    "argv, msg",
    [
        (["--L", "16", "--K", "2", "--p", "1.5", "--delta", "0.1"], "p must lie in"),
        (["--L", "3", "--K", "4", "--p", "0.2", "--delta", "0.1"], "K must satisfy"),
        (["--weights", "0.2,0.1"], "--weights needs --K"),
        (["--weights", "0.2,0.1", "--K", "1", "--p", "0.2"], "not both"),
        (["--weights", "0.2,abc", "--K", "1"], "argument --weights: must be a finite number"),
        (["--weights", "0.2,0.2", "--K", "1"], "unique optimal set"),
        (["--horizon", "0"], "argument --horizon: must be an integer >= 2"),
        (["--horizon", "1"], "argument --horizon: must be an integer >= 2"),
        (["--horizon", "1e300"], "argument --horizon: must be an integer >= 2 (int64)"),
        (["--horizon", "-inf"], "argument --horizon: must be an integer >= 2"),
        (["--L", "1e300"], "argument --L: must be an integer >= 1 (int64)"),
        (["--L", "1000000000"], "would need about"),
        (["--eps", "-1"], "--eps must be > 0"),
        (["--eps", "nan"], "argument --eps: must be a finite number"),
        (["--eps", "1e-300"], "eps = 1e-300 puts Theorem 3's constant C beyond the float64 range"),
        (["--weights", "-0.1,0.5", "--K", "1"], "weights must lie in [0, 1]"),
        (["--n", "100"], "unrecognized arguments: --n"),
        (["--L", "16", "--K", "2", "--p", "0.2", "--delta", "0.3"], "delta must satisfy"),
    ],
)
def test_bad_input_one_line_exit_2(capsys, argv, msg):
    assert main(["bounds", *argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith("cascading bounds: error:") and msg in err


def test_argparse_errors_exit_2(capsys):
    assert main(["bounds", "--form", "loose"]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_b_lb_defaults_apply_to_any_subset(capsys):
    one = _json(capsys, "--L", "32")
    assert one["instance"] == {**one["instance"], "L": 32, "K": 2, "p": 0.2, "delta": 0.15}
    two = _json(capsys, "--K", "4", "--delta", "0.075")
    assert (two["instance"]["L"], two["instance"]["K"]) == (16, 4)
    assert (two["instance"]["p"], two["instance"]["delta"]) == (0.2, 0.075)
    assert two["theorem4_coefficient"] == theorem4_coefficient(b_lb(16, 4, 0.2, 0.075))


def test_degenerate_instances(capsys):
    # K = L: no suboptimal item, no (e, e*) pair: C2 and beta are null, the log n terms 0
    res = _json(capsys, "--weights", "0.2,0.3", "--K", "2")
    assert res["C2"] is None and res["beta"] is None
    assert res["theorem2_coefficient"] == 0.0 and res["theorem4_coefficient"] == 0.0
    # w(1) = 1, K = 1: kl(w(e), 1) = inf, Theorem 3's and 4's coefficients vanish
    assert main(["bounds", "--weights", "1,0.5,0", "--K", "1"]) == 0
    out = capsys.readouterr().out
    assert "n/a" in out


def test_no_suboptimal_item_prints_zero_bounds_and_says_why(capsys):
    """L = K: no list can lose, every bound is 0 and C2, beta are undefined (said, not nan)."""
    assert main(["bounds", "--weights", "0.3,0.2", "--K", "2"]) == 0
    out = capsys.readouterr().out
    assert "no suboptimal item: C2 and beta are undefined and every bound is 0" in out
    assert "nan" not in out.lower()
    assert main(["bounds", "--weights", "0.3,0.2", "--K", "2", "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert res["theorem2"] == res["theorem3"] == res["theorem4"] == 0.0
    assert res["C2"] is None and res["beta"] is None
