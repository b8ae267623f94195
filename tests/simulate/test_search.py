"""simulate.search: instance families, validation, common random numbers, reproducibility."""

from __future__ import annotations

import json
import math
import re

import numpy as np
import pytest
from scipy import stats

from cascading_bandits.bounds.instance import CascadeInstance
from cascading_bandits.bounds.later import theorem2_gapfree_bound, theorem3_gapfree_bound
from cascading_bandits.bounds.registry import bound_names, bounds_for_policy, get_bound
from cascading_bandits.bounds.upper import theorem2_bound, theorem3_bound
from cascading_bandits.reports.cli import main
from cascading_bandits.simulate import search as S
from cascading_bandits.simulate.policies import parse_policy
from cascading_bandits.simulate.search import (
    factor_against_K,
    family_weights,
    search,
    search_bounds,
)

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


# ---------------------------------------------------------------------------
# --bound: any upper bound with a constant of the policy
# ---------------------------------------------------------------------------

#: bound name -> (policy, the bound computed here from its own function, not via the registry)
NAMED = {
    "theorem2": ("cascade-ucb1", lambda inst, n: theorem2_bound(inst, n)),
    "corollary2": ("cascade-ucb1", lambda inst, n: theorem2_gapfree_bound(inst.L, inst.K, n)),
    "theorem3": ("cascade-klucb", lambda inst, n: theorem3_bound(inst, n, form="paper")),
    "corollary3": (
        "cascade-klucb",
        lambda inst, n: theorem3_gapfree_bound(inst, n, form="paper")[0],
    ),
}
BOUND_TINY = dict(horizon=300, runs=2, maxiter=1, popsize=2, confirm_runs=3, family="two-level")


@pytest.mark.parametrize("name", list(NAMED))
def test_bound_objective_is_regret_over_the_named_bound(name):
    policy, f = NAMED[name]
    r = search("bound", [policy], L=4, K=2, bound=name, seed=5, **BOUND_TINY)
    assert r.bound_name == name and r.to_dict()["bound_name"] == name
    inst = CascadeInstance(r.weights, 2)
    n = BOUND_TINY["horizon"]
    assert r.bound == pytest.approx(f(inst, n), rel=1e-12)
    assert r.value == pytest.approx(r.mean_regret[policy] / r.bound, rel=1e-12)
    lo, hi = r.regret_ci[policy]
    assert (r.ci_low, r.ci_high) == pytest.approx((lo / r.bound, hi / r.bound), rel=1e-12)
    # the search's own objective: its best value is the mean regret on the search's common
    # random numbers over the named bound at the optimum
    _, s_crn, _ = np.random.SeedSequence(5).spawn(3)
    uk, pk = S._keys(s_crn, BOUND_TINY["runs"])
    a = S._regret_runs(r.weights, 2, policy, "best-first", n, uk, pk, None)
    assert r.search_value == pytest.approx(a.mean() / f(inst, n), rel=1e-12)


@pytest.mark.parametrize("name", bound_names("upper", "constant"))
def test_every_registered_upper_bound_with_a_constant_can_be_searched(name):
    """The policy implied by the bound's covers, the bound its registered evaluation."""
    r = search("bound", [S.bound_policy(name)], L=4, K=2, bound=name, seed=7, **BOUND_TINY)
    assert r.bound_name == name and r.policies == (S.bound_policy(name),)
    inst = CascadeInstance(r.weights, 2)
    b = get_bound(name)
    n = BOUND_TINY["horizon"]
    if b.applies(inst, n):
        assert r.bound == b(inst, n)
        assert r.value == pytest.approx(r.mean_regret[r.policies[0]] / r.bound, rel=1e-12)
    else:  # a premise fails at the optimum found: the bound counts as infinite, the ratio 0
        assert r.bound == math.inf and r.value == 0.0


def _all_constant():
    return ", ".join(bound_names("upper", "constant"))


def test_bound_policy_names_the_policy_a_bound_is_about():
    assert [S.bound_policy(b) for b in NAMED] == [p for p, _ in NAMED.values()]
    # every registered upper bound with a constant: the first policy it covers, canonically
    for name in bound_names("upper", "constant"):
        b = get_bound(name)
        spec = parse_policy(b.policy_text())
        assert S.bound_policy(name) == spec.text
        assert b.covers_policy(spec.name, spec.params)
    with pytest.raises(
        ValueError,
        match=r"is a lower bound.*allowed .bounds with a constant.: " + re.escape(_all_constant()),
    ):
        S.bound_policy("theorem4")
    with pytest.raises(ValueError, match="no constant"):
        S.bound_policy("vial-variance-aware")
    with pytest.raises(ValueError, match="unknown bound 'nope'; allowed .bounds with a constant"):
        S.bound_policy("nope")


def test_the_default_bound_is_the_papers_theorem():
    ucb1, klucb = search_bounds("cascade-ucb1"), search_bounds("cascade-klucb(c=3)")
    assert ucb1[0] == "theorem2" and klucb[0] == "theorem3"
    assert {"theorem2", "corollary2"} <= set(ucb1) and {"theorem3", "corollary3"} <= set(klucb)
    # exactly the registered upper bounds with a constant that cover the policy
    for spec, got in (("cascade-ucb1", ucb1), ("cascade-klucb", klucb)):
        want = bounds_for_policy(spec, parse_policy(spec).params, "upper", "constant")
        assert sorted(got) == sorted(b.name for b in want)
        assert len(set(got)) == len(got)
    assert search_bounds("cascade-klucb(c=0)") == () == search_bounds("cascade-ts")
    assert search_bounds("cascade-ucb1(alpha=1)") == ()
    r = search("bound", ["cascade-klucb"], L=4, K=2, seed=5, **BOUND_TINY)
    assert r.bound_name == "theorem3"
    assert r.bound == pytest.approx(NAMED["theorem3"][1](CascadeInstance(r.weights, 2), 300))


def test_the_hand_kept_tables_are_gone():
    for name in ("CONSTANT_UPPER_BOUNDS", "POLICY_ALGORITHM", "DEFAULT_BOUND"):
        assert not hasattr(S, name)


def _ucb1_allowed():
    return re.escape(", ".join(search_bounds("cascade-ucb1")))


def _klucb_allowed():
    return re.escape(", ".join(search_bounds("cascade-klucb")))


@pytest.mark.parametrize(
    "policy, bound, objective, match",
    [
        (
            "cascade-ucb1",
            "theorem4",
            "bound",
            lambda: (
                r"bound 'theorem4' \(Theorem 4\) is a lower bound.*allowed for "
                r"cascade-ucb1: " + _ucb1_allowed()
            ),
        ),
        (
            "cascade-ucb1",
            "nope",
            "bound",
            lambda: r"unknown bound 'nope'; allowed for cascade-ucb1: " + _ucb1_allowed(),
        ),
        (
            "cascade-ucb1",
            "corollary3",
            "bound",
            lambda: (
                r"covers CascadeKL-UCB \(cascade-klucb\(c=3\)\), not cascade-ucb1; "
                r"allowed for cascade-ucb1: " + _ucb1_allowed()
            ),
        ),
        (
            "cascade-klucb",
            "theorem2",
            "bound",
            lambda: "allowed for cascade-klucb: " + _klucb_allowed(),
        ),
        ("cascade-klucb", "vial-klucb", "bound", lambda: "order: it has no constant"),
        ("cascade-ucb1(alpha=1)", "theorem2", "bound", lambda: "knows the bounds"),
        ("cascade-klucb(c=0)", None, "bound", lambda: "knows the bounds"),
        ("cascade-ucb1", "theorem2", "regret", lambda: "bound is for objective 'bound' only"),
    ],
)
def test_bound_names_are_checked_against_the_policy(policy, bound, objective, match):
    with pytest.raises(ValueError, match=match()):
        search(objective, [policy], L=4, K=2, bound=bound, **BOUND_TINY)


def test_unknown_policies_are_told_which_policies_have_bounds():
    with pytest.raises(ValueError, match=r"knows the bounds of cascade-ucb1\(alpha=1.5\)"):
        search("bound", ["cascade-ts"], L=4, K=2, **BOUND_TINY)


def test_a_tie_scores_zero_for_a_bound_that_needs_a_unique_optimum():
    tie = CascadeInstance((0.3, 0.3, 0.3, 0.1), 2)
    assert S._bound_at("theorem2", tie, 100) == math.inf
    assert S._bound_at("corollary3", tie, 100) == math.inf
    assert S._bound_at("corollary2", tie, 100) == theorem2_gapfree_bound(4, 2, 100)
    # every registered upper bound with a constant: inf exactly where a premise fails, its
    # registered value elsewhere
    ok = CascadeInstance((0.5, 0.3, 0.2, 0.1), 2)
    for name in bound_names("upper", "constant"):
        b = get_bound(name)
        want = math.inf if b.failed_premise(tie, 100) else b(tie, 100)
        assert S._bound_at(name, tie, 100) == want
        assert S._bound_at(name, ok, 100) == b(ok, 100)


def test_regret_ci_is_the_t_interval_of_each_policy():
    r = search("ratio", ["cascade-ucb1", "cascade-klucb"], L=4, K=2, **TINY)
    _, _, s_confirm = np.random.SeedSequence(0).spawn(3)
    uk, pk = S._keys(s_confirm, TINY["confirm_runs"])
    for p in r.policies:
        a = S._regret_runs(r.weights, 2, p, "best-first", TINY["horizon"], uk, pk, None)
        q = stats.t.ppf(0.975, a.size - 1) * a.std(ddof=1) / math.sqrt(a.size)
        assert r.mean_regret[p] == pytest.approx(a.mean(), rel=1e-12)
        assert r.regret_ci[p] == pytest.approx((a.mean() - q, a.mean() + q), rel=1e-12)


def test_cli_bound_writes_json_with_the_bound_and_no_figure(tmp_path, capsys):
    out = tmp_path / "tight"
    argv = ["search", "--objective", "bound", "--bound", "corollary2", "--K", "2", "--L", "4"]
    argv += ["--horizon", "300", "--runs", "2", "--maxiter", "1", "--popsize", "2"]
    argv += ["--confirm-runs", "3", "--family", "two-level", "--out", str(out)]
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "cascade-ucb1 / corollary2" in text and "bound corollary2 (Corollary 2" in text
    (res,) = json.loads((out / "search.json").read_text())["results"]
    assert res["bound_name"] == "corollary2" and res["policies"] == ["cascade-ucb1"]
    assert res["bound"] == pytest.approx(theorem2_gapfree_bound(4, 2, 300), rel=1e-12)
    assert sorted(p.name for p in out.iterdir()) == ["search.json"]


@pytest.mark.parametrize(
    "extra, msg",
    [
        (["--objective", "bound", "--bound", "nope"], "unknown bound 'nope'; allowed (bounds "),
        (["--objective", "bound", "--bound", "theorem4"], "is a lower bound"),
        (["--objective", "bound"], "--objective bound needs --policy A or --bound NAME"),
        (["--objective", "bound", "--bound", "zhong-ts-cascade"], "no constant"),
        (
            ["--objective", "bound", "--policy", "cascade-ucb1", "--bound", "theorem3"],
            "allowed for cascade-ucb1: theorem2, corollary2",
        ),
        (["--objective", "ratio", "--bound", "theorem2"], "--bound is for --objective bound"),
    ],
)
def test_cli_bound_errors_are_one_line_exit_2(capsys, extra, msg):
    argv = ["search", "--K", "2", "--L", "4", "--horizon", "300", "--runs", "2"]
    assert main(argv + extra) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and msg in err and "Traceback" not in err
