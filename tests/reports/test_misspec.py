"""The misspecification section's tables, figures and loader, on a hand-made campaign."""

from __future__ import annotations

import json

import pytest

from cascading_bandits.reports import misspec as R


def _row(policy, mean, bounds=()):
    curve = {"t": [1, 10, 100], "mean": [0.0, mean / 2, mean], "low": [0, 0, mean - 1],
             "high": [0, mean, mean + 1]}  # fmt: skip
    return {"policy": policy, "curve": curve, "mean": mean, "stderr": 0.5,
            "ci": [mean - 1, mean + 1], "bounds": list(bounds)}  # fmt: skip


def _b(name, value, verdict, model_ok=True, failed=None, failed_inst=None):
    return {"bound": name, "premise_model": model_ok, "failed_premise": failed,
            "failed_instance_premise": failed_inst, "value": value, "verdict": verdict}  # fmt: skip


def _win(best, second, ratio, decisive):
    return {"best": best, "second": second, "ratio": ratio, "diff": 1.0, "diff_ci": [0.1, 2.0],
            "decisive": decisive}  # fmt: skip


@pytest.fixture
def doc():
    cells = [
        {"instance": "q1", "model": "cascade", "rows": [
            _row("a", 10.0, [_b("ta", 100.0, "holds")]), _row("b", 20.0)],
         "win": _win("a", "b", 2.0, True)},
        {"instance": "q2", "model": "cascade", "rows": [
            _row("a", 30.0, [_b("ta", 60.0, "holds")]), _row("b", 15.0)],
         "win": _win("b", "a", 2.0, False)},
        {"instance": "q1", "model": "pbm", "rows": [
            _row("a", 50.0, [_b("ta", 40.0, "violated", False, "the cascade click model")]),
            _row("b", 60.0)], "win": _win("a", "b", 1.2, True)},
        {"instance": "q2", "model": "pbm", "rows": [
            _row("a", 70.0, [_b("ta", None, "not evaluated", False, "the cascade click model",
                                "unique optimal set")]),
            _row("b", 80.0)], "win": _win("a", "b", 80 / 70, True)},
    ]  # fmt: skip
    return {"policies": ["a", "b"], "models": ["cascade", "pbm"], "horizon": 100, "runs": 4,
            "seed": 0, "cells": cells, "summary": {}, "command": "cmd",
            "wall_seconds": 60.0}  # fmt: skip


def test_policy_rows_count_wins_from_the_cells(doc):
    rows = {(r["model"], r["policy"]): r for r in R.policy_rows(doc)}
    assert rows[("cascade", "a")]["wins"] == 1 and rows[("cascade", "a")]["decisive_wins"] == 1
    assert rows[("cascade", "b")]["wins"] == 1 and rows[("cascade", "b")]["decisive_wins"] == 0
    assert rows[("pbm", "a")]["wins"] == 2 and rows[("pbm", "b")]["wins"] == 0
    assert rows[("cascade", "a")]["mean_regret"] == 20.0
    assert rows[("pbm", "a")]["median_margin"] == pytest.approx((1.2 + 80 / 70) / 2)


def test_bound_rows_give_the_worst_evidence(doc):
    rows = {(r["model"], r["bound"]): r for r in R.bound_rows(doc)}
    c, p = rows[("cascade", "ta")], rows[("pbm", "ta")]
    assert (c["holds"], c["violated"], c["cells"], c["instance_ok"]) == (2, 0, 2, 2)
    assert c["worst_ratio"] == pytest.approx(0.5) and c["worst_query"] == "q2"
    assert (p["violated"], p["not_evaluated"], p["instance_ok"]) == (1, 1, 1)
    assert p["worst_ratio"] == pytest.approx(50 / 40) and not p["proved_for_model"]


def test_markdown_states_wins_and_violations(doc):
    md = R.misspec_markdown(doc, {"ratio": "figures/r.png"})
    assert "| pbm | a | 60.0 | 60.0 | 2/2 | 2 |" in md
    assert "ta under pbm users on 1 queries" in md
    assert "although proved" not in md  # the violated bound is not proved for PBM users
    assert "![regret relative to the best policy per query](figures/r.png)" in md


def test_figures_draw(doc):
    fig = R.plot_ratio(doc)
    assert len(fig.axes) == 2
    fig = R.plot_curves(doc)
    assert len(fig.axes) == 2
    # the default query is the first policy's largest regret under the first model
    assert R.default_curve_instance(doc) == "q2"
    with pytest.raises(ValueError, match="not in the campaign"):
        R.plot_curves(doc, "q9")


@pytest.mark.parametrize(
    "damage",
    [lambda d: d.pop("cells"), lambda d: d["cells"][0]["rows"].pop(),
     lambda d: d["cells"][1]["rows"][0].update(mean=float("nan")),
     lambda d: d["cells"][1].update(model="ubm")],
)  # fmt: skip
def test_loader_refuses_damage(doc, tmp_path, damage):
    damage(doc)
    p = tmp_path / "m.json"
    p.write_text(json.dumps(doc))
    with pytest.raises(ValueError, match="m.json"):
        R.load_misspec(p)
    p.write_text("{")
    with pytest.raises(ValueError, match="not a JSON"):
        R.load_misspec(p)


def test_shipped_campaign_agrees_with_its_summary():
    if not R.MISSPEC_PATH.exists():
        pytest.fail(f"the shipped campaign {R.MISSPEC_PATH} is missing")
    doc = R.load_misspec()
    stored = {(r["model"], r["policy"]): r for r in doc["summary"]["table"]}
    for r in R.policy_rows(doc):
        s = stored[(r["model"], r["policy"])]
        assert s["wins"] == r["wins"] and s["decisive_wins"] == r["decisive_wins"]
        assert s["mean_regret"] == pytest.approx(r["mean_regret"], rel=1e-12)
    assert doc["horizon"] == 100_000
