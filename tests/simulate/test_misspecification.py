"""The misspecification campaign: verdicts, paired wins and one real cell end to end."""

from __future__ import annotations

import math

import numpy as np
import pytest

from cascading_bandits.bounds.instance import CascadeInstance
from cascading_bandits.bounds.registry import Bound, Covers, register_bound, unregister_bound
from cascading_bandits.simulate import misspecification as M


@pytest.fixture
def flat_bound():
    """An upper bound equal to 10 at every n, for cascade-ucb1 in the cascade model only."""
    b = register_bound(
        Bound(
            name="test-flat-ten",
            title="flat 10",
            label="flat 10",
            kind="upper",
            form="constant",
            gap="free",
            covers=(Covers("cascade-ucb1"),),
            premises=(),
            models=("cascade",),
            evaluate=lambda inst, n: np.full(np.shape(n), 10.0),
            source="a test",
            rate="10",
        )
    )
    yield b
    unregister_bound("test-flat-ten")


def _flat(rows):
    return next(r for r in rows if r["bound"] == "test-flat-ten")


@pytest.mark.parametrize(
    "lo, hi, verdict",
    [(1.0, 9.0, "holds"), (1.0, 10.0, "holds"), (9.0, 11.0, "undecided"),
     (10.0, 12.0, "undecided"), (10.5, 12.0, "violated")],
)  # fmt: skip
def test_verdict_rule_at_the_edges(flat_bound, lo, hi, verdict):
    inst = CascadeInstance([0.5, 0.4, 0.1], 1)
    row = _flat(M.bound_verdicts(inst, "cascade", "cascade-ucb1", 100, lo, hi))
    assert row["value"] == 10.0
    assert row["verdict"] == verdict
    assert row["premise_model"] and row["failed_premise"] is None


def test_model_premise_fails_but_the_value_is_evidence(flat_bound):
    inst = CascadeInstance([0.5, 0.4, 0.1], 1)
    row = _flat(M.bound_verdicts(inst, "pbm", "cascade-ucb1", 100, 11.0, 12.0))
    assert row["premise_model"] is False
    assert "cascade click model" in row["failed_premise"]
    assert row["value"] == 10.0 and row["verdict"] == "violated"


def test_one_run_is_undecided(flat_bound):
    inst = CascadeInstance([0.5, 0.4, 0.1], 1)
    row = _flat(M.bound_verdicts(inst, "cascade", "cascade-ucb1", 100, math.nan, math.nan))
    assert row["verdict"] == "undecided"


def test_bound_not_covering_the_policy_is_absent(flat_bound):
    inst = CascadeInstance([0.5, 0.4, 0.1], 1)
    names = [r["bound"] for r in M.bound_verdicts(inst, "cascade", "oracle", 100, 0, 1)]
    assert "test-flat-ten" not in names


def test_paired_win_uses_the_pairing():
    rng = np.random.default_rng(5)
    base = rng.normal(100.0, 30.0, size=40)  # large between-run spread, shared by both
    final = {"a": base + 1.0, "b": base, "c": base + 50.0}
    w = M.paired_win(final)
    assert (w["best"], w["second"]) == ("b", "a")
    assert w["diff"] == pytest.approx(1.0)
    # the paired differences are exactly 1: a zero-width interval, decisive
    assert w["diff_ci"][0] == pytest.approx(1.0) and w["decisive"]
    assert w["ratio"] == pytest.approx((base.mean() + 1.0) / base.mean())
    # unpaired noise of the same size as the gap: not decisive
    noisy = {"a": base + rng.normal(0.0, 30.0, size=40), "b": base}
    if noisy["a"].mean() > noisy["b"].mean():
        assert not M.paired_win(noisy)["decisive"]


def test_paired_win_zero_means_and_bad_input():
    w = M.paired_win({"x": np.zeros(3), "y": np.zeros(3)})
    assert w["ratio"] == 1.0 and not w["decisive"]
    w = M.paired_win({"x": np.zeros(3), "y": np.ones(3)})
    assert w["best"] == "x" and w["ratio"] == math.inf
    with pytest.raises(ValueError, match="two policies"):
        M.paired_win({"x": np.zeros(3)})


def test_run_instance_on_a_real_query():
    cell = M.run_instance(
        "kdd:1:top", "pbm", policies=("cascade-ucb1", "toprank"), horizon=300, runs=3, seed=2
    )
    assert cell["instance"] == "kdd:1:top" and cell["model_seen"] == "pbm"
    assert [r["policy"] for r in cell["rows"]] == ["cascade-ucb1", "toprank"]
    for r in cell["rows"]:
        lo, hi = r["ci"]
        assert lo <= r["mean"] <= hi and r["mean"] >= 0.0
    ucb = cell["rows"][0]["bounds"]
    thm2 = next(b for b in ucb if b["bound"] == "theorem2")
    assert thm2["premise_model"] is False  # Theorem 2 is proved for cascade users only
    assert cell["win"]["best"] in ("cascade-ucb1", "toprank")
    # TopRank's bounds are proved for PBM users whose examination does not increase down the
    # list; the :top reduction sorts the positions, and the cell's kappa reaches the premise
    top = {b["bound"]: b for b in cell["rows"][1]["bounds"]}
    assert set(top) == {"toprank", "toprank-gapfree"}
    for b in top.values():
        assert b["premise_model"] and b["failed_premise"] is None and b["value"] > 0


def test_toprank_pbm_verdict_reads_kappa():
    from cascading_bandits.bounds.registry import model_view

    inst = CascadeInstance([0.9, 0.6, 0.3, 0.2], 2)
    bare = {r["bound"]: r for r in M.bound_verdicts(inst, "pbm", "toprank", 1000, 1.0, 2.0)}
    assert "PBM users only" in bare["toprank-gapfree"]["failed_premise"]
    down = model_view("pbm", kappa=[1.0, 0.6])
    rows = {r["bound"]: r for r in M.bound_verdicts(inst, down, "toprank", 1000, 1.0, 2.0)}
    assert rows["toprank-gapfree"]["failed_premise"] is None
    assert rows["toprank-gapfree"]["verdict"] == "holds"
    up = model_view("pbm", kappa=[0.6, 1.0])
    rows = {r["bound"]: r for r in M.bound_verdicts(inst, up, "toprank", 1000, 1.0, 2.0)}
    assert "kappa_1 >= ... >= kappa_K" in rows["toprank"]["failed_premise"]


def test_campaign_summary_counts():
    d = M.campaign(
        ["kdd:1:top", "kdd:2:top"], ["cascade", "dcm"],
        policies=("cascade-ucb1", "cascade-klucb"), horizon=200, runs=2, seed=0,
    )  # fmt: skip
    assert len(d["cells"]) == 4
    rows = {(r["model"], r["policy"]): r for r in d["summary"]["table"]}
    for m in ("cascade", "dcm"):
        assert sum(rows[(m, p)]["wins"] for p in ("cascade-ucb1", "cascade-klucb")) == 2
        assert rows[(m, "cascade-ucb1")]["instances"] == 2
    assert d["summary"]["instances"] == {"cascade": 2, "dcm": 2}


@pytest.mark.parametrize(
    "kw, msg",
    [({"names": []}, "at least one real instance"), ({"models": ["ubm"]}, "model"),
     ({"models": []}, "at least one of")],
)  # fmt: skip
def test_campaign_refuses_bad_input(kw, msg):
    with pytest.raises(ValueError, match=msg):
        M.campaign(**{"names": ["kdd:1:top"], **kw}, horizon=10, runs=2)


def test_unknown_instance_is_refused():
    with pytest.raises(ValueError, match="yandex"):
        M.run_instance("yandex:nope", "pbm", horizon=10, runs=2)
