"""reports.tables on tiny hand-worked arrays and synthetic Table-shaped results."""

import math

import mpmath
import numpy as np
import pytest
from _report_fakes import dbn_results, make_result, table_results
from hypothesis import example, given, settings
from hypothesis import strategies as st

from cascading_bandits.bounds.instance import b_lb
from cascading_bandits.reports import tables as T


def test_mean_se_by_hand():
    assert T.mean_se([1.0, 2.0, 3.0]) == (2.0, pytest.approx(1 / math.sqrt(3), rel=1e-15))
    m, s = T.mean_se([5.0])
    assert m == 5.0 and math.isnan(s)
    with pytest.raises(ValueError, match="1-d"):
        T.mean_se([[1.0, 2.0]])
    with pytest.raises(ValueError, match="NaN"):
        T.mean_se([1.0, float("nan")])


def test_z_and_marks_by_hand():
    assert T.z_score(110, 3, 100, 4) == 2.0  # 10 / 5
    assert T.agreement(1.999) == "ok"
    assert T.agreement(-2.0) == "borderline"
    assert T.agreement(2.999) == "borderline"
    assert T.agreement(3.0) == "disagree" and T.agreement(-7) == "disagree"
    assert T.agreement(float("nan")) == "n/a"
    assert math.isnan(T.z_score(1, 0, 2, 0))
    with pytest.raises(ValueError, match="se_paper"):
        T.z_score(1, 1, 2, -1)


def test_ratio_of_means_by_hand():
    a, b = [2.0, 4.0], [1.0, 2.0]
    r, se = T.ratio_of_means(a, b, paired=True)
    assert r == 2.0 and se == pytest.approx(0.0, abs=1e-15)  # a = 2 b exactly: no spread
    r, se = T.ratio_of_means(a, b)
    # se_a = 1, se_b = 0.5: sqrt(1 + 4 * 0.25) / 1.5
    assert r == 2.0 and se == pytest.approx(math.sqrt(2) / 1.5, rel=1e-14)
    with pytest.raises(ValueError, match="equal shapes"):
        T.ratio_of_means([1.0, 2.0, 3.0], b, paired=True)
    with pytest.raises(ValueError, match="zero"):
        T.ratio_of_means(a, [1.0, -1.0])


@st.composite
def samples(draw):
    n = draw(st.integers(2, 30))
    el = st.floats(0.5, 1e4, allow_nan=False)
    return np.array(draw(st.lists(el, min_size=n, max_size=n))), np.array(
        draw(st.lists(el, min_size=n, max_size=n))
    )


@settings(max_examples=60, deadline=None)
@given(samples())
@example((np.array([1.0, 1.0]), np.array([3.0, 5.0])))
def test_ratio_delta_method_matches_mpmath(ab):
    a, b = ab
    r, se = T.ratio_of_means(a, b)
    ma, mb = mpmath.fsum(a) / len(a), mpmath.fsum(b) / len(b)
    va = mpmath.fsum([(x - ma) ** 2 for x in a]) / (len(a) - 1) / len(a)
    vb = mpmath.fsum([(x - mb) ** 2 for x in b]) / (len(b) - 1) / len(b)
    R = ma / mb
    assert r == pytest.approx(float(R), rel=1e-12)
    assert se == pytest.approx(
        float(mpmath.sqrt(va / mb**2 + R**2 * vb / mb**2)), rel=1e-9, abs=1e-12
    )
    # pairing with itself leaves no error in the ratio
    assert T.ratio_of_means(a, a, paired=True)[1] == pytest.approx(0.0, abs=1e-9)


def test_compare_table_marks_follow_constructed_z():
    # ours = paper + k * sqrt(2) * se_paper with se_ours = se_paper, so z = k exactly
    ks = {2: 0.5, 4: 2.5, 8: -3.5}
    res = table_results("table1", shift=lambda c: ks[c.K] * math.sqrt(2) * c.se)
    rows = T.compare_table("table1", res)
    assert len(rows) == 18
    for r in rows:
        assert r.z == pytest.approx(ks[r.K], rel=1e-9)
        assert r.ours_se == pytest.approx(r.paper_se, rel=1e-12)
        assert r.runs == 2 and r.horizon == 1000
        assert r.mark == {2: "ok", 4: "borderline", 8: "disagree"}[r.K]


def test_compare_table_ignores_other_order_and_reports_missing():
    res = table_results("table2")  # worst-first only
    rows = T.compare_table("table1", res)
    assert all(r.ours_mean is None and r.mark == "not run" for r in rows)
    rows2 = T.compare_table("table2", res[:3])
    assert [r.mark for r in rows2].count("not run") == 15
    with pytest.raises(ValueError, match="expected at most one"):
        T.compare_table("table2", res + res[:1])


def test_order_rows_ratio_and_paper_ratio(t1, t2):
    rows = T.order_rows(t1 + t2)
    assert len(rows) == 18
    r = rows[0]
    assert (r.L, r.K, r.delta, r.policy) == (16, 2, 0.15, "cascade-ucb1")
    assert r.paper_ratio == pytest.approx(1160.2 / 1290.1, rel=1e-15)
    # the paper's ratio's error from its two published errors (delta method, by hand)
    w, sw, b, sb = 1160.2, 11.7, 1290.1, 11.3
    assert r.paper_ratio_se == pytest.approx(
        (w / b) * math.sqrt((sw / w) ** 2 + (sb / b) ** 2), rel=1e-13
    )
    assert r.ratio == pytest.approx(r.paper_ratio, rel=1e-12)  # fakes reproduce the paper exactly


def test_dbn_rows_paired_ratio():
    rows = T.dbn_rows(dbn_results(ratio=3.0))
    assert len(rows) == 4
    for r in rows:
        assert r.paired and r.ratio == pytest.approx(3.0, rel=1e-14)
        assert r.ratio_se == pytest.approx(0.0, abs=1e-12) and r.about_three
    rows = T.dbn_rows(dbn_results(ratio=1.5))
    assert not any(r.about_three for r in rows)


def test_curve_shapes_and_errors():
    res = make_result({"L": 4}, [1.0, 3.0], horizon=100, m=5)
    t, mean, se = T.curve(res)
    assert t[-1] == 100 and mean[-1] == 2.0 and se[-1] == pytest.approx(1.0)
    assert mean.shape == se.shape == t.shape


def test_markdown_table():
    md = T.markdown_table(["a", "b"], [["1", "x|y"]], align="lr")
    assert md.splitlines() == ["| a | b |", "| :--- | ---: |", "| 1 | x\\|y |"]
    with pytest.raises(ValueError, match="row"):
        T.markdown_table(["a", "b"], [["1"]])
    with pytest.raises(ValueError, match="align"):
        T.markdown_table(["a"], [], align="x")
    assert T.fmt_pm(1290.14, 11.26) == "1290.1 ± 11.3" and T.fmt_pm(None, None) == "-"
    assert T.fmt_sig(2565.29) == "2565" and T.fmt_sig(0.91593, 3) == "0.916"
    assert T.fmt(float("nan")) == "nan" and T.fmt_sig(12345.678) == "12,346"


def test_as_dicts_maps_nan_to_none():
    rows = T.compare_table("table1", [])
    d = T.as_dicts(rows[:1])[0]
    assert d["paper_mean"] == 1290.1 and d["z"] is None and d["mark"] == "not run"


# -- rows that call bounds: checked against the paper's formulas written out by hand ----------
def _thm2_blb(L, K, delta, n):
    return (L - K) * 12 / delta * math.log(n) + math.pi**2 * L / 3


def _kl(q, p):
    return float(q * mpmath.log(q / p) + (1 - q) * mpmath.log((1 - q) / (1 - p)))


def _thm4_coef_blb(L, K, p, delta):
    return (L - K) * delta * (1 - p) ** (K - 1) / _kl(p - delta, p)


def test_bound_rows_match_the_theorems_by_hand(t1):
    pytest.importorskip("cascading_bandits.bounds.upper")
    pytest.importorskip("cascading_bandits.bounds.lower")
    rows = T.bound_rows(t1)
    assert [(r.L, r.K, r.delta) for r in rows] == [
        (16, 2, 0.15),
        (16, 4, 0.15),
        (16, 8, 0.15),
        (32, 2, 0.15),
        (32, 4, 0.15),
        (32, 8, 0.15),
        (16, 2, 0.075),
        (16, 4, 0.075),
        (16, 8, 0.075),
    ]
    for r in rows:
        assert r.n == 1000 and r.p == 0.2
        assert r.theorem2 == pytest.approx(_thm2_blb(r.L, r.K, r.delta, r.n), rel=1e-12)
        assert r.theorem4_coefficient == pytest.approx(
            _thm4_coef_blb(r.L, r.K, 0.2, r.delta), rel=1e-12
        )
        assert r.theorem4 == pytest.approx(r.theorem4_coefficient * math.log(r.n), rel=1e-12)
        # Theorem 3 at any eps > 0 with C > 0 exceeds its eps = 0 log-term written out by hand
        lead = (r.L - r.K) * r.delta * (1 + math.log(1 / r.delta)) / _kl(0.2 - r.delta, 0.2)
        loglog = max(math.log(math.log(r.n)), 0.0)
        assert r.theorem3_eps > 0 and r.theorem3_C > 0
        assert r.theorem3 == pytest.approx(
            (1 + r.theorem3_eps) * lead * (math.log(r.n) + 3 * loglog) + r.theorem3_C, rel=1e-9
        )
        assert r.ucb1_over_theorem2 == pytest.approx(r.ucb1_mean / r.theorem2)
    # the fakes reproduce the paper's means, so the ratios use the paper's numbers
    assert rows[0].ucb1_mean == pytest.approx(1290.1) and rows[0].klucb_mean == pytest.approx(357.9)


def test_scaling_rows_predictions_by_hand(t1):
    pytest.importorskip("cascading_bandits.bounds.upper")
    rows = T.scaling_rows(t1)
    # 3 L-pairs, 3 Delta-pairs, 9 K-pairs (2-4, 2-8, 4-8 for three (L, Delta)), two policies each
    assert len(rows) == 30
    by = {(r.vary, r.fixed, r.frm, r.to, r.policy): r for r in rows}
    r = by[("L", "K=2, delta=0.15", "16", "32", "cascade-ucb1")]
    assert r.ratio == pytest.approx(2695.9 / 1290.1, rel=1e-12)
    assert r.predicted_theorem2 == pytest.approx(30 / 14, rel=1e-12)
    assert r.predicted_theorem4 == pytest.approx(30 / 14, rel=1e-12)
    r = by[("Delta", "L=16, K=4", "0.15", "0.075", "cascade-klucb")]
    assert r.predicted_theorem2 == pytest.approx(2.0, rel=1e-12)
    assert r.predicted_theorem4 == pytest.approx(
        _thm4_coef_blb(16, 4, 0.2, 0.075) / _thm4_coef_blb(16, 4, 0.2, 0.15), rel=1e-12
    )
    r = by[("K", "L=32, delta=0.15", "2", "8", "cascade-ucb1")]
    assert r.predicted_theorem2 == pytest.approx(24 / 30, rel=1e-12)
    assert r.predicted_theorem4 == pytest.approx(24 / 30 * 0.8**6, rel=1e-12)


def test_bound_curves_are_increasing_and_match_bound_rows():
    pytest.importorskip("cascading_bandits.bounds.upper")
    c = T.bound_curves(16, 4, 0.2, 0.15, [10, 100, 1000])
    for key in ("theorem2", "theorem3", "theorem4"):
        n, v = c[key]
        assert list(n) == [10, 100, 1000] and np.all(np.diff(v) > 0)
    assert c["theorem2"][1][-1] == pytest.approx(_thm2_blb(16, 4, 0.15, 1000), rel=1e-12)
    b = T.bounds_at(16, 4, 0.2, 0.15, 1000)
    assert c["theorem3"][1][-1] == pytest.approx(b["theorem3"], rel=1e-9)
    with pytest.raises(ValueError, match="horizons"):
        T.bound_curves(16, 4, 0.2, 0.15, [0, 10])


def test_sign_summary_by_hand():
    def row(z):
        return T.ComparisonRow(
            "table1", 16, 2, 0.15, "cascade-ucb1", 1.0, 1.0, 1.0, 1.0, 2, 10, z, ""
        )

    s = T.sign_summary([row(-1.0), row(-2.0), row(3.0), row(None), row(float("nan"))])
    assert (s.cells, s.below, s.above, s.mean_z) == (3, 2, 1, 0.0)
    assert s.p_value == pytest.approx(1.0)
    s = T.sign_summary([row(-0.1)] * 10)
    assert s.p_value == pytest.approx(2 * 0.5**10, rel=1e-12)  # exact two-sided sign test
    with pytest.raises(ValueError, match="nothing was run"):
        T.sign_summary([row(None)])


def test_sign_test_equals_scipy_binomtest():
    from scipy.stats import binomtest

    for n in range(0, 41):
        for k in range(n + 1):
            want = binomtest(k, n, 0.5).pvalue if n else 1.0
            assert T.sign_test(k, n) == pytest.approx(want, rel=1e-12, abs=1e-300), (k, n)
    for k, n in ((500, 1000), (3, 1000), (0, 60)):
        assert T.sign_test(k, n) == pytest.approx(binomtest(k, n, 0.5).pvalue, rel=1e-10)
    for bad in ((-1, 3), (4, 3), (1.0, 3), (True, 3), (1, None)):
        with pytest.raises(ValueError, match="sign_test"):
            T.sign_test(*bad)


def test_dbn_rows_every_ranked_policy_with_figure1s_first():
    base = dbn_results(ratio=3.0)
    rba = [
        make_result(dict(r.params, policy="ranked-klucb-rba"), 5.0 * r.regret[:, -1] / 3.0)
        for r in base
        if r.params["policy"] == "ranked-klucb"
    ]
    rows = T.dbn_rows(rba + base)
    assert [r.ranked_policy for r in rows] == ["ranked-klucb"] * 4 + ["ranked-klucb-rba"] * 4
    assert [round(r.ratio, 12) for r in rows] == [3.0] * 4 + [5.0] * 4
    assert T.ranked_policies(base) == ["ranked-klucb"]


# -- every registered bound with a constant on the paper's policies (bounds.registry) ----------
def _toy_bound(name, covers, value, premises=()):
    from cascading_bandits.bounds.registry import Bound

    return Bound(
        name=name,
        title=f"Toy bound {name}",
        label=f"toy {name}",
        kind="upper",
        form="constant",
        gap="dependent",
        covers=covers,
        premises=premises,
        evaluate=lambda inst, n: np.full(np.shape(n), value, dtype=float),
        source="registered by tests/reports/test_tables.py",
        rate=f"{value}",
    )


@pytest.fixture
def toy_bounds():
    """A bound on CascadeKL-UCB with c = 3, one on c = 0, one whose premise fails on
    CascadeUCB1 with alpha = 1.5; registered for one test."""
    from cascading_bandits.bounds.registry import Covers, Premise, register_bound, unregister_bound

    never = Premise("a toy premise that never holds", lambda inst, n: False)
    made = [
        _toy_bound("toy-klucb", (Covers("cascade-klucb", c=3),), 1e4),
        _toy_bound("toy-klucb-c0", (Covers("cascade-klucb", c=0),), 1e4),
        _toy_bound("toy-never", (Covers("cascade-ucb1", alpha=1.5),), 1e4, (never,)),
    ]
    for b in made:
        register_bound(b)
    yield made
    for b in made:
        unregister_bound(b.name)


def test_registry_bounds_are_every_registered_bound_on_the_paper_policies(toy_bounds):
    from cascading_bandits.bounds.registry import ANY_POLICY, all_bounds

    got = T.registry_bounds_at(16, 4, 0.2, 0.15, 1000)
    inst = b_lb(16, 4, 0.2, 0.15)
    want = {}
    for b in all_bounds():
        if b.form != "constant":
            continue
        pols = [
            pol
            for pol, params in (("cascade-ucb1", {"alpha": 1.5}), ("cascade-klucb", {"c": 3.0}))
            if b.covers == ANY_POLICY or b.covers_policy(pol, params)
        ]
        if pols:
            want[b.name] = pols
    assert {k: v["policies"] for k, v in got.items()} == want
    assert list(got) == list(want)  # the registry's order
    assert {"theorem2", "theorem3", "theorem4", "toy-klucb", "toy-never"} <= set(got)
    assert "toy-klucb-c0" not in got  # another c: not the paper's CascadeKL-UCB
    assert got["theorem4"]["policies"] == ["cascade-ucb1", "cascade-klucb"]
    for name, v in got.items():
        if name == "toy-never":
            assert v["value"] is None and v["premise"] == "a toy premise that never holds"
            continue
        b = next(x for x in all_bounds() if x.name == name)
        assert v["premise"] is None and v["value"] == pytest.approx(b(inst, 1000), rel=1e-12)
    # the paper's table agrees with the registry where they overlap
    paper = T.bounds_at(16, 4, 0.2, 0.15, 1000)
    for name in ("theorem2", "theorem3", "theorem4"):
        assert got[name]["value"] == pytest.approx(paper[name], rel=1e-9)


def test_registry_bound_rows_ratio_per_covered_policy(t1, toy_bounds):
    rows = T.bound_rows(t1)
    reg = T.registry_bound_rows(rows[:2])
    assert {(r.L, r.K, r.delta) for r in reg} == {(b.L, b.K, b.delta) for b in rows[:2]}
    kinds = [r.kind for r in reg if (r.L, r.K, r.delta) == (rows[0].L, rows[0].K, rows[0].delta)]
    assert kinds == sorted(kinds, key=lambda k: k != "upper")  # upper bounds first
    by = {(r.L, r.K, r.delta, r.bound, r.policy): r for r in reg}
    for b in rows[:2]:
        toy = by[(b.L, b.K, b.delta, "toy-klucb", "cascade-klucb")]
        assert toy.value == 1e4 and toy.mean == b.klucb_mean and toy.se == b.klucb_se
        assert toy.ratio == pytest.approx(b.klucb_mean / 1e4, rel=1e-15)
        never = by[(b.L, b.K, b.delta, "toy-never", "cascade-ucb1")]
        assert never.value is None and never.ratio is None and "never holds" in never.premise
        thm2 = by[(b.L, b.K, b.delta, "theorem2", "cascade-ucb1")]
        assert thm2.ratio == pytest.approx(b.ucb1_over_theorem2, rel=1e-12)
        for pol, mean in (("cascade-ucb1", b.ucb1_mean), ("cascade-klucb", b.klucb_mean)):
            lower = by[(b.L, b.K, b.delta, "theorem4", pol)]
            assert lower.ratio == pytest.approx(mean / b.theorem4, rel=1e-12)
        assert not any(k[3] == "toy-klucb" and k[4] == "cascade-ucb1" for k in by)
