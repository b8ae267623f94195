"""bounds.later: derived gap-free corollaries, the orders of later papers, the Graves-Lai
constant, the ledger and ``cascading ledger``."""

import itertools
import json
import math
import re
from fractions import Fraction
from pathlib import Path

import mpmath
import numpy as np
import pytest

from cascading_bandits.bounds import b_lb, later
from cascading_bandits.bounds.instance import CascadeInstance
from cascading_bandits.bounds.kl import kl_mp
from cascading_bandits.bounds.lower import (
    theorem4_coefficient,
    theorem4_general_coefficient,
    theorem4_sharp_coefficient,
)
from cascading_bandits.bounds.peeling import lemma2_lhs, ucb1_peeling_lhs
from cascading_bandits.bounds.registry import UNIQUE_OPTIMUM, all_bounds, bound_names, get_bound
from cascading_bandits.bounds.upper import theorem3_constant
from cascading_bandits.reports.cli import main

PAPER = b_lb(16, 2, 0.2, 0.15)


# ---------------------------------------------------------------------------
# Corollary 2
# ---------------------------------------------------------------------------


def test_corollary2_hand_value():
    # L = 16, K = 2, K' = 2, n = 1e5: 4 sqrt(3 * 14 * 2 * 1e5 * log 1e5) + 16 pi^2 / 3
    with mpmath.workdps(40):
        ref = 4 * mpmath.sqrt(3 * 14 * 2 * 10**5 * mpmath.log(10**5)) + 16 * mpmath.pi**2 / 3
    assert later.theorem2_gapfree_bound(16, 2, 10**5) == pytest.approx(float(ref), rel=1e-14)
    assert later.theorem2_gapfree_bound(16, 2, 10**5) == pytest.approx(39388.845, abs=1e-3)
    # K' = min(K, L - K): L = 5, K = 4 has one suboptimal item, so K' = 1
    v = later.theorem2_gapfree_bound(5, 4, 100)
    assert v == pytest.approx(4 * math.sqrt(3 * 1 * 1 * 100 * math.log(100)) + 5 * math.pi**2 / 3)


def test_corollary2_limits():
    assert later.theorem2_gapfree_bound(7, 3, 1) == pytest.approx(7 * math.pi**2 / 3)  # log 1 = 0
    assert later.theorem2_gapfree_bound(4, 4, 10**6) == pytest.approx(4 * math.pi**2 / 3)  # K = L
    n = np.array([10, 100, 10**4, 10**6])
    v = later.theorem2_gapfree_bound(10, 3, n)
    assert v.shape == n.shape and (np.diff(v) > 0).all()
    # sqrt(n log n) growth: the ratio to sqrt(n log n) is constant once pi^2 L/3 is negligible
    r = (v - 10 * math.pi**2 / 3) / np.sqrt(n * np.log(n))
    assert np.allclose(r, 4 * math.sqrt(3 * 7 * 3))


def test_corollary2_optimisation_against_brute_force():
    for L, K, n in [(16, 2, 10**5), (8, 5, 1000), (30, 10, 10**7), (3, 1, 2)]:
        best = later.theorem2_gapfree_bound(L, K, n)
        th = later.theorem2_gapfree_threshold(L, K, n)
        assert later.theorem2_gapfree_split(L, K, n, th) == pytest.approx(best, rel=1e-13)
        grid = np.exp(np.linspace(math.log(th) - 5, math.log(th) + 5, 4001))
        vals = np.array([later.theorem2_gapfree_split(L, K, n, g) for g in grid])
        assert vals.min() >= best * (1 - 1e-13)  # nothing below the closed form
        assert vals.min() <= best * (1 + 1e-5)  # and the grid reaches it


def test_corollary2_split_on_a_threshold_grid_is_each_call_bit_for_bit():
    """An array of thresholds (broadcast against n) gives each threshold's own value."""
    grid = np.exp(np.linspace(math.log(1e-4), math.log(10.0), 301))
    for L, K, n in [(16, 2, 10**5), (8, 5, 1000), (199, 3, 987654321), (3, 1, 2)]:
        one = np.array([later.theorem2_gapfree_split(L, K, n, g) for g in grid])
        assert np.array_equal(later.theorem2_gapfree_split(L, K, n, grid), one)
    ns = np.array([10.0, 1e4, 1e8])
    both = later.theorem2_gapfree_split(9, 4, ns, grid[:, None])
    assert both.shape == (grid.size, ns.size)
    assert np.array_equal(both[:, 1], later.theorem2_gapfree_split(9, 4, 1e4, grid))
    for bad in ([], [0.1, -1.0], [0.2, math.inf], [[0.1], [0.2, 0.3]], [0.3, None]):
        with pytest.raises(ValueError, match="threshold"):
            later.theorem2_gapfree_split(4, 2, 1000, bad)
    with pytest.raises(ValueError, match="broadcast"):
        later.theorem2_gapfree_split(4, 2, np.array([10, 20, 30]), np.array([0.1, 0.2]))


def test_corollary2_step_restricted_peeling():
    # the proof's step: peeling over the gaps above the threshold is at most 2/threshold
    rng = np.random.default_rng(1)
    for _ in range(300):
        K = int(rng.integers(1, 8))
        gaps = sorted((Fraction(int(x), 1000) for x in rng.integers(1, 1000, K)), reverse=True)
        th = Fraction(int(rng.integers(1, 1000)), 1000)
        kept = [g for g in gaps if g > th]
        if kept:
            assert ucb1_peeling_lhs(kept) <= 2 / kept[-1] < 2 / th


# ---------------------------------------------------------------------------
# Corollary 3
# ---------------------------------------------------------------------------


def test_kl_quadratic_lower_against_mpmath():
    rng = np.random.default_rng(2)
    pts = [(0.0, 0.5), (0.5, 0.0), (1e-9, 1e-6), (0.999, 0.2), (0.3, 0.3), (0.0, 1.0)]
    pts += [tuple(rng.random(2)) for _ in range(500)]
    pts += [tuple(np.exp(-rng.uniform(0, 20, 2))) for _ in range(300)]
    for p, q in pts:
        with mpmath.workdps(50):
            kl = kl_mp(mpmath.mpf(p), mpmath.mpf(q))
        lo = later.kl_quadratic_lower(p, q)
        assert lo <= kl * (1 + 1e-13) + 1e-300, (p, q, lo, kl)
    # the second bound is the better one for small probabilities: (q - p)^2 / (2q)
    assert later.kl_quadratic_lower(0.01, 0.02) == pytest.approx(1e-4 / 0.04)
    assert later.kl_quadratic_lower(0.3, 0.9) == pytest.approx(2 * 0.36)


def test_corollary3_step_kl_peeling():
    # the proof's step: Lemma 2's left side over gaps above theta is at most c_w / Delta_m
    rng = np.random.default_rng(3)
    for _ in range(300):
        K = int(rng.integers(1, 7))
        p = float(rng.uniform(0, 0.9))
        qs = sorted((float(rng.uniform(p, 1.0)) for _ in range(K)), reverse=True)
        qs = [q for q in qs if q > p + 1e-9]
        if not qs:
            continue
        with mpmath.workdps(40):
            lhs = lemma2_lhs(mpmath.mpf(p), [mpmath.mpf(q) for q in qs])
        cw = later.theorem3_gapfree_weight_factor(qs[0])
        assert float(lhs) <= cw / (qs[-1] - p) * (1 + 1e-12)


def test_corollary3_leading_optimisation():
    L, K, n, eps, w1 = 16, 2, 10**5, 0.5, 0.2
    th = later.theorem3_gapfree_threshold(L, K, n, eps, w1)
    lead = later.theorem3_gapfree_leading(L, K, n, eps, w1)
    f = math.log(n) + 3 * math.log(math.log(n))
    A = (1 + eps) * f * (L - K) * min(1, 4 * w1)
    assert lead == pytest.approx(2 * math.sqrt(A * n * 2), rel=1e-14)
    grid = np.exp(np.linspace(math.log(th) - 4, math.log(th) + 4, 2001))
    vals = grid * n * 2 + A / grid
    assert vals.min() >= lead * (1 - 1e-13) and vals.min() <= lead * (1 + 1e-5)
    # small click rates: w(1) <= 1/K gives the sqrt(nL) order (finding (ii))
    for K in (2, 4, 8):
        v = later.theorem3_gapfree_leading(64, K, n, eps, 1 / K)
        assert v <= 4 * math.sqrt((1 + eps) * f * 64 * n)


def test_corollary3_bounded_as_gap_vanishes_unlike_theorem3():
    vals, consts = [], []
    for d in (1e-2, 1e-3, 1e-4):
        inst = CascadeInstance((0.2, 0.2 - d, 0.05, 0.05), 1)
        vals.append(later.theorem3_gapfree_bound(inst, 10**5, eps=1.0, form="proof")[0])
        consts.append(theorem3_constant(inst, 10**5, 1.0, form="proof"))
    # Theorem 3's constant grows like 1/Delta (C2 ~ 1/Delta^2, weighted by Delta) ...
    assert consts[1] > 5 * consts[0] and consts[2] > 5 * consts[1]
    # ... the corollary does not depend on gaps below its threshold
    assert vals[1] == pytest.approx(vals[2], rel=1e-12)
    assert vals[0] <= vals[1] * (1 + 1e-12)  # 0.01 is above the threshold: one more tail term


def test_corollary3_bound_is_its_parts_and_eps_optimised():
    b, e = later.theorem3_gapfree_bound(PAPER, 10**5, eps=0.5)
    th = later.theorem3_gapfree_threshold(16, 2, 10**5, 0.5, 0.2)
    parts = later.theorem3_gapfree_leading(16, 2, 10**5, 0.5, 0.2) + (
        later.theorem3_gapfree_constant(PAPER, 10**5, 0.5, th)
    )
    assert e == 0.5 and b == pytest.approx(parts, rel=1e-14)
    best, e_best = later.theorem3_gapfree_bound(PAPER, 10**5)
    for eps in (0.01, 0.1, 0.5, 1.0, 3.0, 10.0):
        assert best <= later.theorem3_gapfree_bound(PAPER, 10**5, eps=eps)[0] * (1 + 1e-12)
    assert 1e-3 <= e_best <= 1e3


def test_corollary3_search_matches_a_fine_exact_search():
    # the search runs on float64 constants; the value returned is the exact bound at the eps
    # found, and no exact evaluation nearby (a bounded scalar search) is lower by > 1e-9
    from scipy.optimize import minimize_scalar

    for n, form in ((100, "paper"), (10**4, "proof"), (10**6, "paper")):
        best, e = later.theorem3_gapfree_bound(PAPER, n, form=form)
        assert best == later.theorem3_gapfree_bound(PAPER, n, eps=e, form=form)[0]
        res = minimize_scalar(
            lambda x, n=n, form=form: later.theorem3_gapfree_bound(
                PAPER, n, eps=math.exp(x), form=form
            )[0],
            bounds=(max(math.log(e) - 0.5, math.log(1e-3)), min(math.log(e) + 0.5, math.log(1e3))),
            method="bounded",
            options={"xatol": 1e-9},
        )
        assert best <= res.fun * (1 + 1e-9)
        grid = later._gapfree3_grid(PAPER, n, np.array([e]), form)[0]
        assert grid == pytest.approx(best, rel=1e-10)  # float64 objective vs exact


# ---------------------------------------------------------------------------
# orders of [V22] and [Z21]
# ---------------------------------------------------------------------------


def test_orders_hand_values_and_relations():
    assert later.vial_minimax_lower_order(16, 2, 10**5) == pytest.approx(math.sqrt(1.6e6))
    assert later.vial_cascadeucb1_lower_order(16, 2, 10**5) == pytest.approx(math.sqrt(3.2e6))
    assert later.zhong_ts_cascade_upper_order(16, 2, 10**5) == pytest.approx(math.sqrt(3.2e6))
    assert later.zhong_lower_order(16, 2, 10**5) == pytest.approx(math.sqrt(8e5))
    assert later.vial_klucb_upper_order(16, 2, 10**5) == later.vial_minimax_lower_order(
        16, 2, 10**5
    )
    assert later.vial_variance_aware_upper_order(9, 3, 7) == pytest.approx(math.sqrt(63))
    for L, K in [(16, 1), (16, 4), (100, 10)]:
        z, v, u = (
            later.zhong_lower_order(L, K, 1000),
            later.vial_minimax_lower_order(L, K, 1000),
            later.vial_cascadeucb1_lower_order(L, K, 1000),
        )
        assert z <= v <= u and (K > 1) == (z < v < u)
        # [V22]'s improvement over [Z21] is exactly sqrt(K)
        assert v / z == pytest.approx(math.sqrt(K))


# ---------------------------------------------------------------------------
# Graves-Lai constant
# ---------------------------------------------------------------------------


def _random_instance(rng, L_max=6):
    while True:
        L = int(rng.integers(2, L_max + 1))
        K = int(rng.integers(1, L))
        w = sorted((int(x) / 20 for x in rng.integers(1, 20, L)), reverse=True)
        if w[K - 1] > w[K]:
            return CascadeInstance(tuple(w), K)


def test_graves_lai_lp_equals_sharp_coefficient():
    rng = np.random.default_rng(4)
    for _ in range(25):
        inst = _random_instance(rng)
        lp = later.graves_lai_lp_coefficient(inst)
        closed = later.graves_lai_coefficient(inst)
        assert closed == theorem4_sharp_coefficient(inst)
        assert lp == pytest.approx(closed, rel=1e-8)
        assert closed >= theorem4_general_coefficient(inst) * (1 - 1e-15)


def test_graves_lai_exact_certificate():
    # dual feasibility for every list, and primal lists (i, 1..K-1) tight, in exact arithmetic
    inst = CascadeInstance((0.5, 0.3, 0.2, 0.1, 0.05), 3)
    for a in itertools.permutations(range(5), 3):
        assert later.list_regret_excess(inst, a) >= 0
    alpha = (1 - Fraction(0.5)) * (1 - Fraction(0.3))
    for i in (3, 4):
        a = (i, 0, 1)
        assert later.list_regret_excess(inst, a) == 0
        assert later.list_regret(inst, a, exact=True) == alpha * (
            Fraction(0.2) - Fraction(float(inst.sorted_weights[i]))
        )


def test_graves_lai_versus_theorem4():
    inst = CascadeInstance((0.5, 0.3, 0.2, 0.1, 0.05), 3)
    assert later.graves_lai_over_theorem4(inst) == pytest.approx(0.35 / 0.25)
    assert later.graves_lai_coefficient(inst) == pytest.approx(
        1.4 * theorem4_general_coefficient(inst), rel=1e-14
    )
    # on B_LB the three constants coincide
    assert later.graves_lai_over_theorem4(PAPER) == 1.0
    assert later.graves_lai_coefficient(PAPER) == pytest.approx(theorem4_coefficient(PAPER), 1e-15)
    # K = 1: nothing above the first position, alpha = 1 in both
    assert later.graves_lai_over_theorem4(CascadeInstance((0.9, 0.1), 1)) == 1.0


def test_list_functions_hand_values():
    inst = CascadeInstance((0.5, 0.2, 0.1), 2)
    assert later.list_examination(inst, (2, 0)) == [1.0, 0.9]
    # D((3, 1)) = 0.9 * 0.5 - 0.5 * 0.8 = 0.05
    assert later.list_regret(inst, (2, 0)) == pytest.approx(0.05)
    assert later.list_regret(inst, (1, 0)) == 0.0
    # excess = 0.05 - 0.5 * 0.1 * 1 = 0 (this list is the primal list of item 3)
    assert later.list_regret_excess(inst, (2, 0)) == 0
    # item 3 second: D = 0.05, examined with prob 0.5 -> excess 0.05 - 0.5*0.1*0.5 = 0.025
    F = Fraction
    D = (1 - F(0.5)) * (1 - F(0.1)) - (1 - F(0.5)) * (1 - F(0.2))
    assert later.list_regret(inst, (0, 2), exact=True) == D
    assert later.list_regret_excess(inst, (0, 2)) == D - (1 - F(0.5)) * (F(0.2) - F(0.1)) * (
        1 - F(0.5)
    )
    assert later.list_regret_excess(inst, (0, 2), exact=False) == pytest.approx(0.025)


def test_bad_inputs_name_the_argument():
    with pytest.raises(ValueError, match="K must"):
        later.theorem2_gapfree_bound(3, 4, 10)
    with pytest.raises(ValueError, match="n must"):
        later.theorem2_gapfree_bound(3, 2, 0)
    with pytest.raises(ValueError, match="threshold"):
        later.theorem2_gapfree_split(3, 2, 10, 0)
    with pytest.raises(ValueError, match="eps"):
        later.theorem3_gapfree_leading(3, 2, 10, float("nan"))
    with pytest.raises(ValueError, match="w_max"):
        later.theorem3_gapfree_weight_factor(1.5)
    with pytest.raises(ValueError, match="p must"):
        later.kl_quadratic_lower(-0.1, 0.5)
    with pytest.raises(ValueError, match="form"):
        later.theorem3_gapfree_bound(PAPER, 100, form="nope")
    with pytest.raises(ValueError, match="items"):
        later.list_regret(PAPER, (0, 0))
    with pytest.raises(ValueError, match="items"):
        later.list_regret(PAPER, (0, 16))
    with pytest.raises(ValueError, match="items"):
        later.list_regret(PAPER, "ab")
    with pytest.raises(ValueError, match="max_lists"):
        later.graves_lai_lp_coefficient(PAPER, max_lists=100)
    with pytest.raises(ValueError, match=r"\(0, 1\)"):
        later.graves_lai_lp_coefficient(CascadeInstance((1.0, 0.5, 0.2), 1))
    with pytest.raises(ValueError, match="unique optimal"):
        later.graves_lai_coefficient(CascadeInstance((0.5, 0.5, 0.2), 1))
    with pytest.raises(ValueError, match="n must"):
        later.ledger(PAPER, 0)
    with pytest.raises(ValueError, match="n must"):
        later.vial_minimax_lower_order(4, 2, float("nan"))


# ---------------------------------------------------------------------------
# ledger and CLI
# ---------------------------------------------------------------------------


def test_ledger_rows_paper_instance():
    rows = later.ledger(PAPER, 10**5)
    assert all(set(r) == set(later.LEDGER_KEYS) for r in rows)
    assert all(math.isfinite(r["value"]) for r in rows)
    assert all(r["kind"] in ("upper", "lower") and r["gap"] in ("dependent", "free") for r in rows)
    assert all(r["form"] in ("constant", "order") for r in rows)
    # grouped: upper before lower, dependent before free inside each
    order = [(r["kind"] != "upper", r["gap"] != "dependent") for r in rows]
    assert order == sorted(order)
    by = {r["name"]: r for r in rows}
    assert by["Theorem 4"]["value"] == pytest.approx(theorem4_coefficient(PAPER) * math.log(1e5))
    gl = [r for r in rows if r["name"].startswith("Graves-Lai")][0]
    assert gl["value"] == pytest.approx(by["Theorem 4"]["value"], rel=1e-14)  # B_LB: equal
    assert by["Corollary 2 of Theorem 2, gap-free (derived here)"]["value"] == (
        later.theorem2_gapfree_bound(16, 2, 10**5)
    )
    json.dumps(rows, allow_nan=False)
    # the lower bounds' constant rows lie below every constant upper row
    lo = max(r["value"] for r in rows if r["kind"] == "lower" and r["form"] == "constant")
    assert all(r["value"] > lo for r in rows if r["kind"] == "upper" and r["form"] == "constant")


def test_ledger_ties_and_small_n():
    tie = CascadeInstance((0.3, 0.3, 0.1), 1)
    rows = later.ledger(tie, 10)
    # no unique optimum: a gap-dependent row only where the bound does not need one
    dep = {r["bound"] for r in rows if r["gap"] == "dependent"}
    need = {b.name for b in all_bounds() if UNIQUE_OPTIMUM in b.premises}
    assert dep and not dep & need
    assert dep == {b.name for b in all_bounds() if b.gap == "dependent" and b.applies(tie, 10)}
    rows = later.ledger(PAPER, 10)  # n < 48: Theorem 3 in the proof's form
    assert not any(r["name"] == "TS-Cascade" for r in rows)  # stated for T >= L only
    assert any(r["name"] == "TS-Cascade" for r in later.ledger(PAPER, 16))
    t3 = [r for r in rows if r["name"].startswith("Theorem 3")][0]
    assert any("n < 48" in a for a in t3["assumptions"])
    rows = later.ledger(CascadeInstance((0.4, 0.2), 2), 1)  # K = L: nothing to lose
    assert all(r["value"] >= 0 for r in rows)


def _cli(capsys, *argv):
    code = main(["ledger", *argv])
    return code, capsys.readouterr()


def test_cli_json_and_table(capsys):
    code, out = _cli(capsys, "--L", "16", "--K", "2", "--p", "0.2", "--delta", "0.15", "--json")
    assert code == 0 and out.out.count("\n") == 1
    res = json.loads(out.out)
    assert res["n"] == 100000 and res["instance"]["p"] == 0.2
    assert res["rows"] == json.loads(json.dumps(later.ledger(PAPER, 10**5)))
    code, out = _cli(capsys, "--weights", "0.5,0.3,0.2,0.1", "--K", "2", "--horizon", "1e4")
    assert code == 0
    for title in ("Upper bounds, gap-dependent", "Lower bounds, gap-free", "source: [V22]"):
        assert title in out.out


def test_cli_accounts_for_every_registered_bound(capsys):
    """Each row starts with its registry name; each registered bound without a row is named
    with the premise that fails (JSON: not_applicable)."""
    tie = CascadeInstance((0.3, 0.3, 0.1), 1)
    code, out = _cli(capsys, "--weights", "0.3,0.3,0.1", "--K", "1", "--horizon", "10", "--json")
    assert code == 0
    res = json.loads(out.out)
    shown = [r["bound"] for r in res["rows"]]
    skipped = {x["bound"]: x for x in res["not_applicable"]}
    assert sorted(shown + list(skipped)) == sorted(bound_names())  # each exactly once
    for k, x in skipped.items():
        assert x["failed_premise"] == get_bound(k).failed_premise(tie, 10) is not None
        assert x["name"] == get_bound(k).title and x["why"] == f"needs {x['failed_premise']}"
    assert skipped["theorem2"]["failed_premise"] == UNIQUE_OPTIMUM.text
    assert "zhong-ts-cascade" in shown  # n = 10 >= L = 3
    code, out = _cli(capsys, "--weights", "0.3,0.3,0.1", "--K", "1", "--horizon", "10")
    lines = out.out.splitlines()
    for r in res["rows"]:
        assert any(ln.split()[:1] == [r["bound"]] and r["name"] in ln for ln in lines)
    head = lines.index("Registered bounds that do not apply here")
    for k, x in skipped.items():
        assert any(
            ln.split()[:1] == [k] and ln.endswith(f"{x['name']}: needs {x['failed_premise']}")
            for ln in lines[head:]
        )
    # a premise on the horizon: TS-Cascade's bound is stated for n >= L only
    code, out = _cli(capsys, "--horizon", "10", "--json")
    (z,) = [x for x in json.loads(out.out)["not_applicable"] if x["bound"] == "zhong-ts-cascade"]
    assert z["failed_premise"] == "n >= L (T >= L)"


@pytest.mark.parametrize(
    "argv, msg",
    [
        (["--weights", "0.5,x", "--K", "1"], "--weights"),
        (["--weights", "0.5,0.2", "--K", "3"], "K must"),
        (["--horizon", "0"], "--horizon"),
        (["--horizon", "nan"], "--horizon"),
        (["--n", "100"], "--n"),
        (["--L", "4", "--K", "8"], "K"),
        (["--weights", "0.5,1.2", "--K", "1"], "weights must"),
    ],
)
def test_cli_errors_one_line_exit_2(capsys, argv, msg):
    code, out = _cli(capsys, *argv)
    assert code == 2 and out.out == ""
    assert out.err.count("\n") == 1 and msg in out.err and "Traceback" not in out.err


# ---------------------------------------------------------------------------
# upper bounds with constants, by name (the search's --bound)
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("n", [30, 10**4])
def test_upper_bound_by_name_is_the_named_function_and_the_ledger_row(n):
    from cascading_bandits.bounds.upper import theorem2_bound, theorem3_bound

    inst = CascadeInstance((0.5, 0.4, 0.3, 0.1, 0.1, 0.1), 2)
    form = "paper" if n >= 48 else "proof"
    # the paper's bounds and the corollaries, each from its own function (not the registry)
    want = {
        "theorem2": theorem2_bound(inst, n),
        "corollary2": later.theorem2_gapfree_bound(6, 2, n),
        "theorem3": theorem3_bound(inst, n, form=form),
        "corollary3": later.theorem3_gapfree_bound(inst, n, form=form)[0],
    }
    names = bound_names("upper", "constant")
    assert set(want) <= set(names)
    got = {k: later.upper_bound(k, inst, n) for k in names}
    assert {k: got[k] for k in want} == pytest.approx(want, rel=1e-13)
    assert len({round(got[k], 6) for k in want}) == 4  # four different bounds here
    rows = {r["bound"]: r for r in later.ledger(inst, n)}
    for k in names:
        b = get_bound(k)
        assert got[k] == b(inst, n)  # the registered evaluation, bit for bit
        row = rows[k]
        assert row["value"] == pytest.approx(got[k], rel=1e-13)
        assert (row["name"], row["algorithm"], row["gap"], row["source"], row["form"]) == (
            b.title,
            b.algorithm,
            b.gap,
            b.source,
            "constant",
        )
    # every registered order-only upper bound that applies has its row (a rate, no constant)
    orders = bound_names("upper", "order")
    assert {"vial-klucb", "vial-variance-aware", "zhong-ts-cascade"} <= set(orders)
    for k in orders:
        assert rows[k]["form"] == "order" and rows[k]["kind"] == "upper"
        assert rows[k]["name"] == get_bound(k).title


def test_theorem3_form_switches_at_48():
    assert later.theorem3_form(47) == "proof" and later.theorem3_form(48) == "paper"
    with pytest.raises(ValueError, match="n must"):
        later.theorem3_form(0)


def _constant_names():
    return re.escape(", ".join(bound_names("upper", "constant")))


@pytest.mark.parametrize(
    "bound, match",
    [
        (
            "theorem4",
            lambda: "is a lower bound; upper bounds with a constant: " + _constant_names(),
        ),
        (None, lambda: "bound must be one of " + _constant_names()),
        ("nope", lambda: "unknown bound 'nope'; registered bounds: theorem2"),
        ("vial-klucb", lambda: "only as an order.*no value"),
        ("zhong-ts-cascade", lambda: "constant was not retrieved"),
    ],
)
def test_upper_bound_rejects_unknown_lower_and_order_only_names(bound, match):
    with pytest.raises(ValueError, match=match()):
        later.upper_bound(bound, PAPER, 100)


def test_order_only_upper_bounds_are_refused_by_name():
    for k in bound_names("upper", "order"):
        with pytest.raises(ValueError, match=f"bound '{k}' .*known only as an order"):
            later.upper_bound(k, PAPER, 100)


def test_upper_bound_premises():
    tie = CascadeInstance((0.3, 0.3, 0.1), 1)
    names = bound_names("upper", "constant")
    needs = [k for k in names if UNIQUE_OPTIMUM in get_bound(k).premises]
    assert {"theorem2", "theorem3", "corollary3"} <= set(needs) and "corollary2" not in needs
    for name in names:
        if name in needs:
            with pytest.raises(ValueError, match="unique optimal set"):
                later.upper_bound(name, tie, 100)
        else:  # a tie is no reason to refuse (another premise may be)
            assert get_bound(name).failed_premise(tie, 100) != UNIQUE_OPTIMUM.text
    assert get_bound("corollary2").applies(tie, 100)
    assert later.upper_bound("corollary2", tie, 100) == later.theorem2_gapfree_bound(3, 1, 100)
    with pytest.raises(ValueError, match="n must"):
        later.upper_bound("theorem2", PAPER, 0)


# ---------------------------------------------------------------------------
# cascading ledger --from-search
# ---------------------------------------------------------------------------

DOCS_SEARCH = Path(__file__).resolve().parents[2] / "docs" / "search"


def test_cli_from_search_json_has_the_ledger_of_every_found_instance(capsys):
    path = DOCS_SEARCH / "worst_regret.json"
    code, out = _cli(capsys, "--from-search", str(path), "--json")
    assert code == 0 and out.out.count("\n") == 1
    doc = json.loads(out.out)
    stored = json.loads(path.read_text())["results"]
    assert len(doc["instances"]) == len(stored)
    for got, res in zip(doc["instances"], stored, strict=True):
        n = res["settings"]["confirm_horizon"]
        assert got["n"] == n and got["instance"]["weights"] == res["weights"]
        want = later.ledger(CascadeInstance(tuple(res["weights"]), res["K"]), n)
        assert [r["name"] for r in got["rows"]] == [r["name"] for r in want]
        assert [r["value"] for r in got["rows"]] == pytest.approx([r["value"] for r in want])
        pol = res["policies"][0]
        row = "Theorem 2 (CascadeUCB1)" if pol == "cascade-ucb1" else "Theorem 3 (CascadeKL-UCB)"
        (r,) = [r for r in got["rows"] if r["name"] == row]
        b = [w for w in want if w["name"] == row][0]["value"]
        assert r["measured"] == pol and r["empirical"] == res["mean_regret"][pol]
        assert r["ratio"] == pytest.approx(res["mean_regret"][pol] / b, rel=1e-12)
        assert (r["ratio_low"], r["ratio_high"]) == pytest.approx(
            (res["ci_low"] / b, res["ci_high"] / b), rel=1e-12
        )


def test_cli_from_search_text_groups_each_instance(capsys):
    path = DOCS_SEARCH / "tightest_theorem2.json"
    code, out = _cli(capsys, "--from-search", str(path))
    assert code == 0
    (res,) = json.loads(path.read_text())["results"]
    text = out.out
    assert text.startswith(f"Search {path}, result 1: the instance where theorem2 is tightest")
    for title in ("Upper bounds, gap-dependent", "Upper bounds, gap-free", "Lower bounds"):
        assert title in text
    lo, hi = res["regret_ci"]["cascade-ucb1"]
    line = (
        f"measured cascade-ucb1: {res['mean_regret']['cascade-ucb1']:.1f} [{lo:.1f}, {hi:.1f}]; "
        f"empirical / bound = {res['value']:.4g} [{res['ci_low']:.4g}, {res['ci_high']:.4g}]"
    )
    assert line in text
    assert text.isascii()
    code, out = _cli(capsys, "--from-search", str(DOCS_SEARCH / "factor_vs_K.json"))
    assert code == 0 and out.out.count("Search ") == 4 and "w=(0.0648 x2, 0.000394 x30)" in out.out


@pytest.mark.parametrize(
    "argv, msg",
    [
        (["--horizon", "100"], "--from-search takes each instance and its horizon"),
        (["--weights", "0.5,0.2", "--K", "1"], "drop --weights --K"),
        (["--L", "8"], "drop --L"),
    ],
)
def test_cli_from_search_refuses_an_instance_or_horizon(capsys, argv, msg):
    code, out = _cli(capsys, "--from-search", str(DOCS_SEARCH / "worst_regret.json"), *argv)
    assert code == 2 and out.out == "" and out.err.count("\n") == 1 and msg in out.err


def test_cli_from_search_bad_files(capsys, tmp_path):
    code, out = _cli(capsys, "--from-search", str(tmp_path / "none.json"))
    assert code == 2 and "cannot read the search file" in out.err
    bad = tmp_path / "bad.json"
    bad.write_text('{"results": [{"weights": [0.5, 0.2], "K": 1}]}')
    code, out = _cli(capsys, "--from-search", str(bad))
    assert code == 2 and out.err.count("\n") == 1 and "missing objective" in out.err
