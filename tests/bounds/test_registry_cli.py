"""A bound registered outside the package reaches every consumer of the registry unchanged:
``cascading bounds`` (--list, --json, the table), ``cascading ledger`` (rows, and the premise
that fails for a bound that does not apply) and ``cascading search --objective bound``.

Three toy bounds for CascadeUCB1 (alpha = 1.5) are registered for the duration of each test:
``toy-true`` (20 sqrt(n): true, since CascadeUCB1's regret is at most n), ``toy-false``
(0.001 log n: false on any instance with something to learn) and ``toy-na`` (a premise no
small instance meets).
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from cascading_bandits.bounds.instance import CascadeInstance, b_lb
from cascading_bandits.bounds.registry import (
    Bound,
    Covers,
    Premise,
    bound_names,
    get_bound,
    register_bound,
    unregister_bound,
)
from cascading_bandits.reports.cli import main
from cascading_bandits.simulate.search import search_bounds

UCB1 = (Covers("cascade-ucb1", alpha=1.5),)
NA_PREMISE = "at least 100 items (toy premise)"
TOYS = {
    "toy-true": Bound(
        name="toy-true",
        title="Toy true bound (test)",
        label="toy true",
        kind="upper",
        form="constant",
        gap="free",
        covers=UCB1,
        premises=(Premise("any attraction probabilities (toy)", lambda inst, n: True),),
        evaluate=lambda inst, n: 20.0 * np.sqrt(np.asarray(n, dtype=np.float64)),
        source="a test of the registry",
        rate="20 sqrt(n)",
    ),
    "toy-false": Bound(
        name="toy-false",
        title="Toy false bound (test)",
        label="toy false",
        kind="upper",
        form="constant",
        gap="dependent",
        covers=UCB1,
        evaluate=lambda inst, n: 0.001 * np.log(np.asarray(n, dtype=np.float64)),
        source="a test of the registry",
        rate="0.001 log n",
    ),
    "toy-na": Bound(
        name="toy-na",
        title="Toy bound that never applies here (test)",
        label="toy n/a",
        kind="upper",
        form="constant",
        gap="free",
        covers=UCB1,
        premises=(Premise(NA_PREMISE, lambda inst, n: inst.L >= 100),),
        evaluate=lambda inst, n: np.ones(np.shape(n)),
        source="a test of the registry",
        rate="1",
    ),
}

SEARCH = ["search", "--objective", "bound", "--K", "2", "--L", "4", "--horizon", "300"]
SEARCH += ["--runs", "2", "--maxiter", "1", "--popsize", "2", "--confirm-runs", "3"]
SEARCH += ["--family", "two-level", "--json"]


@pytest.fixture
def toys():
    for b in TOYS.values():
        register_bound(b)
    try:
        yield TOYS
    finally:
        for name in TOYS:
            if name in bound_names():
                unregister_bound(name)


def _json(capsys, argv):
    assert main(argv) == 0, capsys.readouterr().err
    out = capsys.readouterr().out
    return json.loads(out)


def test_the_toys_are_gone_after_the_fixture():
    assert not set(TOYS) & set(bound_names())


def test_bounds_list_shows_the_registered_toys(toys, capsys):
    items = {d["name"]: d for d in _json(capsys, ["bounds", "--list", "--json"])["bounds"]}
    for name, b in toys.items():
        d = items[name]
        assert (d["kind"], d["form"], d["gap"], d["source"]) == (b.kind, b.form, b.gap, b.source)
        assert d["policies"] == ["cascade-ucb1(alpha=1.5)"]
        assert d["premises"] == b.premise_texts()
    assert main(["bounds", "--list"]) == 0
    text = capsys.readouterr().out
    for name, b in toys.items():
        assert f"{name}  upper, constant, gap-{b.gap}: {b.title}" in text
    assert f"    premises: {NA_PREMISE}" in text


def test_bounds_json_and_table_evaluate_the_toys(toys, capsys):
    n = 100_000
    res = _json(capsys, ["bounds", "--json"])
    by = {d["name"]: d for d in res["bounds"]}
    assert by["toy-true"]["value"] == pytest.approx(20 * math.sqrt(n), rel=1e-15)
    assert by["toy-true"]["value_over_log_n"] is None  # gap-free
    assert by["toy-false"]["value"] == pytest.approx(0.001 * math.log(n), rel=1e-15)
    assert by["toy-false"]["value_over_log_n"] == pytest.approx(0.001, rel=1e-12)
    assert by["toy-false"]["ratio_to_theorem4"] == pytest.approx(
        0.001 * math.log(n) / res["theorem4"], rel=1e-12
    )
    na = by["toy-na"]
    assert na["applies"] is False and na["value"] is None and na["failed_premise"] == NA_PREMISE
    assert (na["kind"], na["form"], na["gap"], na["source"]) == (
        "upper",
        "constant",
        "free",
        "a test of the registry",
    )
    assert main(["bounds"]) == 0
    lines = capsys.readouterr().out.splitlines()
    (row,) = [ln for ln in lines if ln.startswith("toy-true ")]
    assert f"{20 * math.sqrt(n):.6f}" in row and row.endswith("Toy true bound (test)")
    (skip,) = [ln for ln in lines if ln.strip().startswith("toy-na ")]
    assert skip.endswith(f"needs {NA_PREMISE}")


def test_ledger_rows_and_the_premise_that_fails(toys, capsys):
    res = _json(capsys, ["ledger", "--json"])
    rows = {r["bound"]: r for r in res["rows"]}
    inst = b_lb(16, 2, 0.2, 0.15)
    for name in ("toy-true", "toy-false"):
        assert rows[name]["value"] == get_bound(name)(inst, 100_000)
        assert rows[name]["name"] == toys[name].title
        assert rows[name]["algorithm"] == "cascade-ucb1(alpha=1.5)"
    assert "toy-na" not in rows
    (na,) = [x for x in res["not_applicable"] if x["bound"] == "toy-na"]
    assert na["failed_premise"] == NA_PREMISE and na["name"] == toys["toy-na"].title
    assert main(["ledger"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert any(ln.split()[:1] == ["toy-false"] and "Toy false bound" in ln for ln in lines)
    (line,) = [ln for ln in lines if ln.split()[:1] == ["toy-na"]]
    assert line.endswith(f"Toy bound that never applies here (test): needs {NA_PREMISE}")


def test_search_accepts_a_registered_bound_and_finds_the_false_one_false(toys, capsys):
    assert search_bounds("cascade-ucb1")[0] == "theorem2"  # the paper's theorem stays default
    assert {"toy-true", "toy-false", "toy-na"} <= set(search_bounds("cascade-ucb1"))
    assert main(["search", "--help"]) == 0
    # help reads the registry (argparse may wrap a name at its hyphen: compare without spaces)
    assert "toy-false," in "".join(capsys.readouterr().out.split())
    (res,) = _json(capsys, [*SEARCH, "--bound", "toy-false"])["results"]
    assert res["bound_name"] == "toy-false" and res["policies"] == ["cascade-ucb1"]
    assert res["bound"] == pytest.approx(0.001 * math.log(300), rel=1e-15)
    assert res["value"] > 1  # the false bound is refuted on the instance found
    assert res["value"] == pytest.approx(res["mean_regret"]["cascade-ucb1"] / res["bound"])
    # named with the policy: checked against the policy's parameter values
    (res,) = _json(capsys, [*SEARCH, "--bound", "toy-true", "--policy", "cascade-ucb1"])["results"]
    inst = CascadeInstance(tuple(res["weights"]), 2)
    assert res["bound"] == get_bound("toy-true")(inst, 300) and 0 < res["value"] < 1
    assert main([*SEARCH, "--bound", "toy-true", "--policy", "cascade-ucb1(alpha=1)"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "knows the bounds of" in err and "toy-true" in err


def test_search_scores_zero_where_the_premise_fails(toys, capsys):
    (res,) = _json(capsys, [*SEARCH, "--bound", "toy-na"])["results"]
    assert res["bound_name"] == "toy-na"
    assert res["bound"] is None and res["value"] == 0.0  # the bound is infinite: regret/bound 0
