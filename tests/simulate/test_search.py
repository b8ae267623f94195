"""simulate.search: instance families, validation, common random numbers, reproducibility."""

from __future__ import annotations

import json

import numpy as np
import pytest

from cascading_bandits.bounds.instance import CascadeInstance
from cascading_bandits.bounds.upper import theorem2_bound
from cascading_bandits.reports.cli import main
from cascading_bandits.simulate.search import factor_against_K, family_weights, search

TINY = dict(horizon=300, runs=2, maxiter=2, popsize=2, confirm_runs=3)


def test_family_weights_two_level_puts_the_larger_level_on_K_items():
    w = family_weights("two-level", [0.25, 0.75], L=5, K=2, w_min=0.2, w_max=0.6)
    assert w.tolist() == pytest.approx([0.5, 0.5, 0.3, 0.3, 0.3])


def test_family_weights_free_is_affine_and_sorted():
    w = family_weights("free", [0.0, 1.0, 0.5], L=3, K=1, w_min=0.1, w_max=0.3)
    assert w.tolist() == pytest.approx([0.3, 0.2, 0.1])


@pytest.mark.parametrize(
    "kw, match",
    [
        (dict(family="nope"), "family"),
        (dict(x=[0.5]), r"shape \(2,\)"),
        (dict(x=[0.5, 1.5]), "unit cube"),
    ],
)
def test_family_weights_rejects(kw, match):
    args = dict(family="two-level", x=[0.5, 0.5], L=4, K=2, w_min=0.0, w_max=1.0) | kw
    with pytest.raises(ValueError, match=match):
        family_weights(**args)


@pytest.mark.parametrize(
    "objective, policies, kw, match",
    [
        ("best", ["cascade-ucb1", "cascade-klucb"], {}, "objective"),
        ("ratio", ["cascade-ucb1"], {}, "two policies"),
        ("bound", ["cascade-ts"], {}, "knows the bounds"),
        ("ratio", ["cascade-ucb1", "nope"], {}, "policy"),
        ("ratio", ["cascade-ucb1", "cascade-klucb"], dict(K=4, L=4), "K must be < L"),
        ("ratio", ["cascade-ucb1", "cascade-klucb"], dict(w_min=0.5, w_max=0.5), "w_min"),
        ("ratio", ["cascade-ucb1", "cascade-klucb"], dict(horizon=0), "horizon"),
        ("ratio", ["cascade-ucb1", "cascade-klucb"], dict(confirm_runs=1), "confirm_runs"),
    ],
)
def test_search_rejects_bad_input(objective, policies, kw, match):
    args = dict(L=4, K=2) | TINY | kw
    with pytest.raises(ValueError, match=match):
        search(objective, policies, **args)


def test_a_policy_against_itself_is_exactly_one_by_common_random_numbers():
    r = search("ratio", ["cascade-klucb", "cascade-klucb"], L=4, K=2, min_regret=0.0, **TINY)
    assert r.search_value == 1.0
    assert r.value == r.ci_low == r.ci_high == 1.0


def test_same_seed_same_result_and_strict_json():
    a = search("ratio", ["cascade-ucb1", "cascade-klucb"], L=4, K=2, seed=3, **TINY)
    b = search("ratio", ["cascade-ucb1", "cascade-klucb"], L=4, K=2, seed=3, **TINY)
    assert a.to_dict() == b.to_dict()
    json.dumps(a.to_dict(), allow_nan=False)
    assert a.ci_low <= a.value <= a.ci_high
    # the initial population (popsize * dimension) at least, at most maxiter more generations
    assert TINY["popsize"] * 4 <= a.evaluations <= (TINY["maxiter"] + 1) * TINY["popsize"] * 4


def test_bound_objective_is_mean_regret_over_theorem2():
    r = search("bound", ["cascade-ucb1"], L=4, K=2, **TINY)
    inst = CascadeInstance(r.weights, 2)
    assert r.bound == pytest.approx(theorem2_bound(inst, TINY["horizon"]), rel=1e-12)
    assert r.value == pytest.approx(r.mean_regret["cascade-ucb1"] / r.bound, rel=1e-12)
    assert 0 < r.value < 1  # Theorem 2 holds on the optimum found


def test_regret_objective_reports_the_fresh_mean_regret():
    r = search("regret", ["cascade-ucb1"], L=4, K=2, **TINY)
    assert r.value == r.mean_regret["cascade-ucb1"] > 0
    assert r.ci_low < r.value < r.ci_high
    with pytest.raises(ValueError, match="one policy"):
        search("regret", ["cascade-ucb1", "cascade-klucb"], L=4, K=2, **TINY)


def test_factor_against_K_returns_one_result_per_K_and_a_slope():
    kw = TINY | dict(horizon=2000)
    results, slope = factor_against_K([2, 3], L_per_K=2, family="two-level", min_regret=5.0, **kw)
    assert [r.K for r in results] == [2, 3]
    assert [len(r.weights) for r in results] == [4, 6]
    same_L, _ = factor_against_K([2, 3], L=5, family="two-level", min_regret=5.0, **kw)
    assert [len(r.weights) for r in same_L] == [5, 5]
    expect = np.polyfit(np.log([2, 3]), np.log([r.value for r in results]), 1)[0]
    assert slope == pytest.approx(expect)


def test_cli_search_errors_are_one_line(capsys):
    assert main(["search", "--K", "a,b"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--K" in err
    assert main(["search", "--K", "2,4", "--objective", "bound", "--policy", "cascade-ucb1"]) == 2


def test_cli_search_json(capsys):
    argv = ["search", "--K", "2", "--L", "4", "--horizon", "300", "--runs", "2", "--maxiter", "1"]
    argv += ["--popsize", "2", "--confirm-runs", "3", "--family", "two-level", "--json"]
    assert main(argv) == 0
    doc = json.loads(capsys.readouterr().out)
    (res,) = doc["results"]
    assert res["K"] == 2 and res["L"] == 4 and res["policies"] == ["cascade-ucb1", "cascade-klucb"]


def test_cli_regret_curve_writes_json_and_figure_and_never_replaces(tmp_path, capsys):
    out = tmp_path / "worst"
    argv = ["search", "--objective", "regret", "--policy", "cascade-ucb1,cascade-klucb"]
    argv += ["--K", "2", "--L", "4", "--horizon", "200,400", "--runs", "2", "--maxiter", "1"]
    argv += ["--popsize", "2", "--confirm-runs", "3", "--family", "two-level", "--out", str(out)]
    assert main(argv) == 0
    doc = json.loads((out / "search.json").read_text())
    got = sorted((r["policies"][0], r["settings"]["confirm_horizon"]) for r in doc["results"])
    assert got == [
        ("cascade-klucb", 200),
        ("cascade-klucb", 400),
        ("cascade-ucb1", 200),
        ("cascade-ucb1", 400),
    ]
    assert (out / "search.png").stat().st_size > 0 and (out / "search.pdf").stat().st_size > 0
    before = (out / "search.json").read_bytes()
    capsys.readouterr()
    assert main(argv) == 2
    assert "already exists" in capsys.readouterr().err
    assert (out / "search.json").read_bytes() == before


def test_factor_figure_has_the_sqrt_K_reference():
    from cascading_bandits.reports.search_figures import factor_against_K_figure

    kw = TINY | dict(horizon=2000)
    results, _ = factor_against_K([2, 4], L=6, family="two-level", min_regret=5.0, **kw)
    fig = factor_against_K_figure(results)
    (ax,) = fig.axes
    ref = [ln for ln in ax.get_lines() if "sqrt" in ln.get_label()]
    assert len(ref) == 1
    y = ref[0].get_ydata()
    assert y[1] / y[0] == pytest.approx(np.sqrt(2))


def test_cli_single_search_out_writes_the_json_alone(tmp_path, capsys):
    out = tmp_path / "one"
    argv = ["search", "--objective", "bound", "--policy", "cascade-ucb1", "--K", "2", "--L", "4"]
    argv += ["--horizon", "300", "--runs", "2", "--maxiter", "1", "--popsize", "2"]
    argv += ["--confirm-runs", "3", "--family", "two-level", "--out", str(out)]
    assert main(argv) == 0
    assert sorted(p.name for p in out.iterdir()) == ["search.json"]
    (res,) = json.loads((out / "search.json").read_text())["results"]
    assert res["objective"] == "bound" and res["K"] == 2
    assert f"written: {out / 'search.json'}" in capsys.readouterr().out
