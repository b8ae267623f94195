"""reports.search_ledger: reading a stored search, its instances, the ledger on each."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cascading_bandits.reports.search_ledger import (
    found_instances,
    ledger_on_instance,
    read_search,
)

DOCS = Path(__file__).resolve().parents[2] / "docs" / "search"


def _doc(name):
    return json.loads((DOCS / f"{name}.json").read_text())


def test_found_instances_carry_the_confirmation_runs():
    (f,) = found_instances(_doc("tightest_corollary2"), "t")
    (r,) = _doc("tightest_corollary2")["results"]
    assert (f["search"], f["index"], f["objective"], f["bound_name"]) == (
        "t",
        0,
        "bound",
        "corollary2",
    )
    assert (f["K"], f["L"], f["n"], f["runs"]) == (2, 6, 10_000, 20)
    reg = f["regret"]["cascade-ucb1"]
    assert reg["mean"] == r["mean_regret"]["cascade-ucb1"]
    assert [reg["ci_low"], reg["ci_high"]] == r["regret_ci"]["cascade-ucb1"]


def test_older_files_without_regret_ci():
    doc = _doc("tightest_theorem3")
    (r,) = doc["results"]
    del r["regret_ci"], r["bound_name"]
    (f,) = found_instances(doc)
    assert f["bound_name"] == "theorem3"  # the policy's default bound, as the search had it
    reg = f["regret"]["cascade-klucb"]
    assert (reg["ci_low"], reg["ci_high"]) == pytest.approx(
        (r["ci_low"] * r["bound"], r["ci_high"] * r["bound"])
    )
    worst = found_instances(_doc("worst_regret"))
    assert all(
        (f["regret"][f["policies"][0]]["ci_low"], f["regret"][f["policies"][0]]["ci_high"])
        == (r["ci_low"], r["ci_high"])
        for f, r in zip(worst, _doc("worst_regret")["results"], strict=True)
    )
    factor = found_instances(_doc("factor_vs_K"))
    assert all(v["ci_low"] is None for f in factor for v in f["regret"].values())


def test_a_policy_at_other_parameters_is_not_compared():
    doc = _doc("tightest_theorem2")
    (r,) = doc["results"]
    r["policies"] = ["cascade-ucb1(alpha=1)"]
    r["mean_regret"] = {"cascade-ucb1(alpha=1)": 50.0}
    del r["regret_ci"]
    rows = ledger_on_instance(found_instances(doc)[0])
    # a bound is compared only where the registry says it covers alpha = 1 (a lower bound
    # about every policy, with the paper's policies only): every bound with a constant on
    # CascadeUCB1 needs the paper's alpha = 1.5, so none of them is
    from cascading_bandits.bounds.registry import ANY_POLICY, get_bound

    for x in rows:
        b = get_bound(x["bound"])
        if b.covers != ANY_POLICY and b.covers_policy("cascade-ucb1", {"alpha": 1.0}):
            assert x["form"] == "order" and x["measured"] == "cascade-ucb1(alpha=1)", b.name
        else:
            assert x["measured"] is None and x["ratio"] is None, b.name
    assert {"theorem2", "corollary2"} <= {x["bound"] for x in rows}


def test_a_policy_spelled_with_its_default_parameter_is_compared():
    doc = _doc("tightest_theorem2")
    (r,) = doc["results"]
    spec = "cascade-ucb1(alpha=1.5)"
    r["policies"], r["mean_regret"] = [spec], {spec: r["mean_regret"]["cascade-ucb1"]}
    r["regret_ci"] = {spec: r["regret_ci"]["cascade-ucb1"]}
    rows = ledger_on_instance(found_instances(doc)[0])
    (t2,) = [x for x in rows if x["name"] == "Theorem 2 (CascadeUCB1)"]
    assert t2["measured"] == spec and t2["ratio"] == pytest.approx(r["value"], rel=1e-12)
    assert t2["bound"] == "theorem2"  # the registry name rides along with each row


def test_every_registered_bound_covering_the_searched_policy_is_compared():
    from cascading_bandits.bounds.registry import bounds_for_policy

    doc = _doc("tightest_theorem2")
    rows = ledger_on_instance(found_instances(doc)[0])
    covering = {b.name for b in bounds_for_policy("cascade-ucb1", {"alpha": 1.5}, "upper")}
    assert {"theorem2", "corollary2", "theorem2-lp"} <= covering
    for x in rows:
        if x["bound"] in covering:
            assert x["measured"] == "cascade-ucb1" and x["ratio"] is not None


@pytest.mark.parametrize(
    "text, match",
    [
        ("[1, 2]", "no 'results' list"),
        ('{"results": []}', "holds no results"),
        ('{"results": [3]}', r"results\[0\]: a result must be an object"),
        ("{", "not JSON"),
    ],
)
def test_read_search_rejects_what_is_not_a_search(tmp_path, text, match):
    p = tmp_path / "s.json"
    p.write_text(text)
    with pytest.raises(ValueError, match=match) as e:
        read_search(p)
    assert str(p) in str(e.value)


@pytest.mark.parametrize(
    "change, match",
    [
        (lambda r: r.update(weights=[0.5, 1.5]), r"weights must lie in \[0.0, 1.0\]"),
        (lambda r: r.update(K=7), r"K must lie in \[1, 6\]"),
        (lambda r: r.update(objective="best"), "objective must be one of"),
        (lambda r: r.update(mean_regret={}), "one mean per policy"),
        (lambda r: r["settings"].pop("confirm_horizon"), "settings.confirm_horizon is missing"),
        (lambda r: r.update(regret_ci={"cascade-ucb1": [1.0]}), r"must be \[low, high\]"),
        (lambda r: r.update(policies=[]), "policies must be a non-empty list"),
    ],
)
def test_read_search_checks_every_result(tmp_path, change, match):
    doc = _doc("tightest_theorem2")
    change(doc["results"][0])
    p = tmp_path / "bad.json"
    p.write_text(json.dumps(doc))
    with pytest.raises(ValueError, match=match):
        read_search(p)


def test_bad_arguments():
    with pytest.raises(ValueError, match="path must name"):
        read_search("")
    with pytest.raises(ValueError, match="cannot read"):
        read_search("/nonexistent/search.json")
    with pytest.raises(ValueError, match="doc must be a search document"):
        found_instances([1])
    with pytest.raises(ValueError, match="name must be a non-empty string"):
        found_instances(_doc("tightest_theorem2"), "")
    with pytest.raises(ValueError, match="found must be an entry"):
        ledger_on_instance({"weights": [0.5, 0.1]})


def test_weights_text_folds_equal_neighbours():
    from cascading_bandits.reports.search_ledger import weights_text

    assert weights_text([0.06482, 0.06482, 0.0004, 0.0004, 0.0004]) == "0.0648 ×2, 0.0004 ×3"
    assert weights_text([0.5, 0.25, 0.25], "x") == "0.5, 0.25 x2"
    for bad in ("0.5", [0.5, "a"], [True]):
        with pytest.raises(ValueError, match="w must"):
            weights_text(bad)
