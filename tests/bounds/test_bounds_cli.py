"""`cascading bounds`: table, --json keys and values, the registry's rows and --list, one-line
errors with exit status 2."""

import json
import math

import pytest

from cascading_bandits.bounds import b_lb
from cascading_bandits.bounds.instance import CascadeInstance
from cascading_bandits.bounds.lower import theorem4_coefficient, theorem4_sharp_coefficient
from cascading_bandits.bounds.registry import all_bounds, bound_names, get_bound
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
    assert "value at n" in out and "coef. of log n" in out and "ratio to Theorem 4" in out
    assert "value / log n" in out
    row = next(line for line in out.splitlines() if line.startswith("Theorem 2 (CascadeUCB1)"))
    assert "coef. of log n = 1120.000000" in row  # 14 * 12 / 0.15


def test_table_has_a_row_per_registered_bound_with_a_constant(capsys):
    """Every registered bound with a constant that applies has a row (registry name first),
    among them the sharp Theorem 4 constant (graves-lai) and the exact-LP forms; each order-only
    bound is named as such."""
    inst = b_lb(16, 2, 0.2, 0.15)
    n = 10**5
    assert main(["bounds"]) == 0
    lines = capsys.readouterr().out.splitlines()
    t4 = theorem4_coefficient(inst) * math.log(n)
    for b in all_bounds():
        if b.form == "order":
            continue
        if not b.applies(inst, n):  # named with the premise that fails, no row
            (line,) = [ln for ln in lines if ln.split()[:1] == [b.name]]
            assert line.endswith(f"{b.title}: needs {b.failed_premise(inst, n)}"), line
            continue
        (row,) = [ln for ln in lines if ln.split()[:1] == [b.name]]
        value = b(inst, n)
        assert f"{value:.6f}" in row and row.endswith(b.title)
        assert f"{value / t4:.4f}" in row
        assert row.split()[1] == b.kind
    assert {"graves-lai", "theorem2-lp", "theorem3-lp", "theorem4"} <= set(bound_names())
    (gl,) = [ln for ln in lines if ln.startswith("graves-lai ")]
    sharp = theorem4_sharp_coefficient(inst)
    assert f"{sharp:.6f}" in gl  # value / log n: the sharp coefficient
    (orders,) = [ln for ln in lines if ln.startswith("Known only as orders")]
    assert orders.endswith(", ".join(bound_names(form="order")))


def test_json_bounds_has_one_object_per_registered_bound(capsys):
    res = _json(capsys, "--weights", "0.5,0.4,0.3,0.1,0.1,0.1", "--K", "2", "--horizon", "1000")
    inst = CascadeInstance((0.5, 0.4, 0.3, 0.1, 0.1, 0.1), 2)
    assert [b["name"] for b in res["bounds"]] == list(bound_names())
    for got in res["bounds"]:
        b = get_bound(got["name"])
        assert (got["kind"], got["form"], got["gap"], got["source"]) == (
            b.kind,
            b.form,
            b.gap,
            b.source,
        )
        assert got["applies"] is True and got["failed_premise"] is None
        if b.form == "order":
            assert got["value"] is None
            continue
        assert got["value"] == b(inst, 1000)
        assert got["ratio_to_theorem4"] == pytest.approx(got["value"] / res["theorem4"], rel=1e-15)
        if b.gap == "dependent":
            assert got["value_over_log_n"] == pytest.approx(got["value"] / math.log(1000))
        else:
            assert got["value_over_log_n"] is None
    by = {b["name"]: b for b in res["bounds"]}
    assert by["theorem2"]["value"] == res["theorem2"]  # the detailed number is the registry's
    # a tie at w(K) = w(K+1) is refused (the paper's theorems need a unique optimal set); where
    # nothing can be lost, the gap-dependent bounds do not apply and the premise is named
    zero = _json(capsys, "--weights", "0.3,0.2", "--K", "2")
    by = {b["name"]: b for b in zero["bounds"]}
    assert by["theorem2"]["applies"] is False and by["theorem2"]["value"] is None
    assert by["theorem2"]["failed_premise"].startswith("a suboptimal item to learn about")
    assert by["corollary2"]["applies"] is True and by["corollary2"]["value"] > 0


def test_list_describes_the_registry_without_an_instance(capsys):
    assert main(["bounds", "--list", "--json"]) == 0
    out = capsys.readouterr().out
    assert out.count("\n") == 1
    items = json.loads(out)["bounds"]
    assert [d["name"] for d in items] == list(bound_names())
    for d in items:
        b = get_bound(d["name"])
        assert (d["kind"], d["form"], d["gap"], d["source"], d["premises"]) == (
            b.kind,
            b.form,
            b.gap,
            b.source,
            b.premise_texts(),
        )
    (t2,) = [d for d in items if d["name"] == "theorem2"]
    assert t2["policies"] == ["cascade-ucb1(alpha=1.5)"]
    (t4,) = [d for d in items if d["name"] == "theorem4"]
    assert t4["policies"] == ["any"] and t4["asymptotic"] is True
    assert main(["bounds", "--list"]) == 0
    text = capsys.readouterr().out
    for b in all_bounds():
        assert f"{b.name}  {b.kind}, {b.form}, gap-{b.gap}" in text
        assert f"    source: {b.source}" in text
    assert "    policies: cascade-klucb(c=3)" in text


@pytest.mark.parametrize(
    "argv",
    [["--horizon", "100"], ["--weights", "0.2,0.1", "--K", "1"], ["--form", "proof"], ["--L", "8"]],
)
def test_list_takes_no_instance(capsys, argv):
    assert main(["bounds", "--list", *argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--list lists the registry" in err and argv[0] in err


def test_given_eps_or_form_is_said_to_apply_to_the_theorem3_lines(capsys):
    assert main(["bounds", "--eps", "0.5"]) == 0
    out = capsys.readouterr().out
    assert "eps = 0.5 (given)" in out and "--eps / --form apply to the Theorem 3 lines" in out
    assert main(["bounds"]) == 0
    assert "--eps / --form apply" not in capsys.readouterr().out


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
        (["--eps", "1e-300"], "eps = 1e-300"),  # the library says which constant overflows
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
    """L = K: no list can lose, Theorems 2-4 are 0 and C2, beta are undefined (said, not nan)."""
    assert main(["bounds", "--weights", "0.3,0.2", "--K", "2"]) == 0
    out = capsys.readouterr().out
    assert "no suboptimal item: C2 and beta are undefined and Theorems 2-4 are 0" in out
    assert "nan" not in out.lower()
    assert main(["bounds", "--weights", "0.3,0.2", "--K", "2", "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert res["theorem2"] == res["theorem3"] == res["theorem4"] == 0.0
    assert res["C2"] is None and res["beta"] is None
