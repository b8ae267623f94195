"""reports.worstcase on small data worked by hand: the ratio of maxima, its interval, the
slope against K and its interval, the table, the figure, and bad input."""

import copy
import math

import pytest
from matplotlib.figure import Figure

from cascading_bandits.reports.worstcase import (
    plot_worstcase,
    worstcase_markdown,
    worstcase_slopes,
    worstcase_table,
)

UCB, KL = "cascade-ucb1", "cascade-klucb"
Z = 1.959963984540054  # two-sided 95% normal quantile
T1 = 12.706204736174698  # two-sided 95% Student-t quantile, 1 degree of freedom
LN2 = math.log(2)


def _res(policy, K, n, runs, L=32):
    w = [0.2] * K + [0.1] * (L - K)
    return {
        "policies": [policy],
        "K": K,
        "weights": w,
        "settings": {"confirm_horizon": n},
        "regret_runs": list(runs),
        "found_by": f"search at n={n}",
    }


def _data(ucb_means=(100, 200, 400), Ks=(1, 4, 16), n=100):
    """Two runs per point, each at mean -+ 10%: the standard error is 10% of the mean."""
    res = []
    for K, m in zip(Ks, ucb_means, strict=True):
        res.append(_res(UCB, K, n, (0.9 * m, 1.1 * m)))
        res.append(_res(KL, K, n, (45, 55)))
    return {"L": 32, "policies": [UCB, KL], "results": res}


# ---------------------------------------------------------------------------
# the table: each maximum, the rates, the ratio and its interval
# ---------------------------------------------------------------------------


def test_each_maximum_its_t_interval_and_the_rates():
    rows = worstcase_table(_data())
    assert [(r["K"], r["n"]) for r in rows] == [(1, 100), (4, 100), (16, 100)]
    r = rows[0]
    u, k = r["worst"][UCB], r["worst"][KL]
    # runs 90 and 110: mean 100, sd 10 sqrt(2), se 10; t with 1 degree of freedom
    assert u["mean"] == pytest.approx(100) and u["se"] == pytest.approx(10)
    assert (u["ci_low"], u["ci_high"]) == pytest.approx((100 - 10 * T1, 100 + 10 * T1))
    assert k["mean"] == pytest.approx(50) and k["se"] == pytest.approx(5) and k["runs"] == 2
    assert r["sqrt_nL"] == pytest.approx(math.sqrt(3200))
    assert r["sqrt_nLK"] == pytest.approx(math.sqrt(3200))
    r16 = rows[2]
    assert r16["sqrt_nLK"] == pytest.approx(math.sqrt(100 * 32 * 16))
    assert r16["worst"][UCB]["over_sqrt_nLK"] == pytest.approx(400 / math.sqrt(51200))
    assert r16["worst"][KL]["over_sqrt_nL"] == pytest.approx(50 / math.sqrt(3200))
    assert r16["worst"][UCB]["weights"] == [0.2] * 16 + [0.1] * 16
    assert r16["worst"][UCB]["found_by"] == "search at n=100"


def test_the_ratio_of_maxima_and_its_delta_method_interval():
    rows = worstcase_table(_data())
    assert [r["ratio"] for r in rows] == pytest.approx([2, 4, 8])
    # log-ratio standard error: sqrt(0.1^2 + 0.1^2) = sqrt(0.02)
    s = math.sqrt(0.02)
    for r in rows:
        assert r["ratio_se_log"] == pytest.approx(s)
        assert r["ratio_low"] == pytest.approx(r["ratio"] * math.exp(-Z * s))
        assert r["ratio_high"] == pytest.approx(r["ratio"] * math.exp(Z * s))
    assert (rows[0]["ratio_low"], rows[0]["ratio_high"]) == pytest.approx(
        (1.515835, 2.638810), 1e-6
    )


def test_rows_are_ordered_by_n_then_K_whatever_the_order_of_the_results():
    d = _data()
    d["results"] += [_res(UCB, 4, 1000, (10, 30)), _res(KL, 4, 1000, (5, 15))]
    d["results"].reverse()
    rows = worstcase_table(d)
    assert [(r["K"], r["n"]) for r in rows] == [(1, 100), (4, 100), (16, 100), (4, 1000)]
    assert rows[-1]["ratio"] == pytest.approx(2)


def test_confidence_is_read_from_the_data():
    d = _data()
    d["confidence"] = 0.9
    r = worstcase_table(d)[0]
    z90 = 1.6448536269514722
    assert r["ratio_high"] == pytest.approx(2 * math.exp(z90 * math.sqrt(0.02)))
    assert r["worst"][UCB]["ci_high"] == pytest.approx(100 + 6.313751514675041 * 10)


# ---------------------------------------------------------------------------
# the slope against K
# ---------------------------------------------------------------------------


def test_slope_on_an_exact_line_uses_the_measurement_errors():
    # ratios 2, 4, 8 at K = 1, 4, 16: log r = log 2 + 0.5 log K exactly, chi2 = 0
    fit = worstcase_slopes(_data())[100]
    f = fit["ratio"]
    assert f["slope"] == pytest.approx(0.5)
    # x = 0, 2 ln 2, 4 ln 2 with weights 1 / 0.02: sum w (x - xbar)^2 = 8 ln2^2 / 0.02
    se = math.sqrt(0.02) / (LN2 * math.sqrt(8))
    assert f["se"] == pytest.approx(se) and se == pytest.approx(0.05 / LN2)
    assert (f["low"], f["high"]) == pytest.approx((0.5 - Z * se, 0.5 + Z * se))
    assert f["chi2"] == pytest.approx(0, abs=1e-20) and f["dof"] == 1 and f["points"] == 3
    assert f["interval_from"] == "measurement errors"
    # each maximum on its own: UCB1's 100, 200, 400 (slope 0.5), KL-UCB's 50 (slope 0),
    # relative standard error 0.1 each
    se1 = 0.1 / (LN2 * math.sqrt(8))
    assert fit[UCB]["slope"] == pytest.approx(0.5) and fit[UCB]["se"] == pytest.approx(se1)
    assert fit[KL]["slope"] == pytest.approx(0, abs=1e-12) and fit[KL]["se"] == pytest.approx(se1)


def test_slope_with_scatter_beyond_the_errors_uses_the_residuals_and_t():
    # ratios 2, 8, 8 at K = 1, 4, 16: in units of ln 2, x = 0, 2, 4 and y = 1, 3, 3;
    # slope 4 / 8 = 0.5, residuals -1/3, 2/3, -1/3 (times ln 2)
    f = worstcase_slopes(_data(ucb_means=(100, 400, 400)))[100]["ratio"]
    assert f["slope"] == pytest.approx(0.5)
    assert f["chi2"] == pytest.approx(LN2**2 * (6 / 9) / 0.02)
    assert f["interval_from"] == "scatter about the line"
    # the error scale cancels: se = sqrt(sum e^2 / dof / sum (x - xbar)^2) = sqrt(1 / 12)
    assert f["se"] == pytest.approx(math.sqrt(1 / 12))
    assert (f["low"], f["high"]) == pytest.approx(
        (0.5 - T1 * math.sqrt(1 / 12), 0.5 + T1 * math.sqrt(1 / 12))
    )


def test_two_K_give_a_slope_with_the_known_error_interval_and_one_K_none():
    d = _data(ucb_means=(100, 200), Ks=(2, 8))
    f = worstcase_slopes(d)[100]["ratio"]
    # ratios 2 and 4, x = ln 2 and 3 ln 2: slope ln 2 / (2 ln 2) = 0.5
    assert f["slope"] == pytest.approx(0.5) and f["dof"] == 0
    se = math.sqrt(2 * 0.02) / (2 * LN2)  # two points: se = sqrt(s1^2 + s2^2) / (x2 - x1)
    assert f["se"] == pytest.approx(se) and f["high"] == pytest.approx(0.5 + Z * se)
    one = _data(ucb_means=(100,), Ks=(4,))
    assert worstcase_slopes(one)[100] == {"ratio": None, UCB: None, KL: None}


# ---------------------------------------------------------------------------
# Markdown
# ---------------------------------------------------------------------------


def test_markdown_table_rows_and_sentences():
    md = worstcase_markdown(_data())
    lines = md.splitlines()
    assert lines[0].startswith("| K | n | CascadeUCB1 worst (95% CI) | its instance |")
    assert lines[0].endswith("| ratio of maxima (95% CI) |")
    # K = 1: UCB1 100 (100 -+ 127.06), KL-UCB 50 (50 -+ 63.53); sqrt(3200) = 56.6
    assert lines[2] == (
        "| 1 | 100 | 100 (-27 to 227) | 0.2, 0.1 ×31 | 50 (-14 to 114) | 0.2, 0.1 ×31 | "
        "57 | 57 | 1.77, 1.77 | 0.88, 0.88 | 2.00 (1.52 to 2.64) |"
    )
    # K = 16: sqrt(nLK) = sqrt(51200) = 226.3; 400 / 56.57 = 7.07, 400 / 226.3 = 1.77
    assert lines[4].startswith("| 16 | 100 | 400 (") and "| 57 | 226 | 7.07, 1.77 |" in lines[4]
    assert lines[4].endswith("| 8.00 (6.06 to 10.56) |")
    text = lines[-1]
    assert "re-measured on 2 fresh runs each" in text
    assert "at n = 100, 2.00 (1.52 to 2.64) at K = 1, 4.00 (3.03 to 5.28) at K = 4" in text
    # slope 0.5 +- 1.96 * 0.0721: 0.36 to 0.64, consistent with sqrt(K)
    assert (
        "Its log-log slope in K is 0.50 (0.36 to 0.64) at n = 100 (95% intervals; growth as "
        "sqrt(K) would be 0.5): at n = 100 the slope is consistent with sqrt(K)." in text
    )
    assert "Three values of K at fixed n cannot identify a rate" in text
    assert "not the largest per-instance ratio" in text
    assert "CascadeUCB1's maximum has slope 0.50 (0.40 to 0.60) at n = 100" in text
    assert md.endswith("\n") and 3 <= text.count(". ") + 1 <= 5  # three to five sentences


def test_markdown_groups_horizons_that_say_the_same():
    d = _data()
    d["results"] += copy.deepcopy(_data(n=1000)["results"])
    md = worstcase_markdown(d)
    assert "at n = 100 and 1,000 the slope is consistent with sqrt(K)." in md
    assert "0.50 (0.36 to 0.64) at n = 100; 0.50 (0.36 to 0.64) at n = 1,000 (95%" in md
    assert len(md.splitlines()) == 2 + 6 + 2  # header, rule, six rows, blank, paragraph


def test_markdown_says_slower_than_sqrt_K_when_the_interval_is_below():
    # ratios 2, 2.2, 2.42 at K = 1, 4, 16: slope log(1.1) / log(4) = 0.069, below 0.5
    md = worstcase_markdown(_data(ucb_means=(100, 110, 121)))
    assert "at n = 100 the ratio grows more slowly than sqrt(K), if at all." in md
    assert "consistent with sqrt(K)" not in md
    one = worstcase_markdown(_data(ucb_means=(100,), Ks=(4,)))
    assert "undefined (one K)" in one


# ---------------------------------------------------------------------------
# the figure
# ---------------------------------------------------------------------------


def test_plot_has_the_maxima_the_rates_and_the_ratio(tmp_path):
    fig = plot_worstcase(_data())
    assert isinstance(fig, Figure) and len(fig.axes) == 2
    left, right = fig.axes
    assert left.get_yscale() == "log" and left.get_xscale() == "log"
    (legend,) = fig.legends  # below both panels
    labels = [t.get_text() for t in legend.get_texts()]
    assert r"$\sqrt{nL}$ (each n)" in labels and r"$\sqrt{nLK}$ (each n)" in labels
    assert any(s.startswith("CascadeUCB1") for s in labels)
    dashed = [ln for ln in left.get_lines() if ln.get_linestyle() == "--"]
    assert len(dashed) == 2  # sqrt(nL) and sqrt(nLK) for the one n
    assert right.get_ylim()[0] == 0
    fig.savefig(tmp_path / "w.png", dpi=100)
    assert (tmp_path / "w.png").read_bytes().startswith(b"\x89PNG")


def test_plot_into_given_axes():
    own = Figure()
    a1, a2 = own.subplots(1, 2)
    assert plot_worstcase(_data(), ax=(a1, a2)) is own
    single = Figure()
    ax = single.subplots()
    assert plot_worstcase(_data(), ax=ax) is single and len(single.axes) == 1
    assert ax.get_legend() is not None and not single.legends
    with pytest.raises(ValueError, match="ax must be None, one Axes or a pair"):
        plot_worstcase(_data(), ax="left")


# ---------------------------------------------------------------------------
# bad input
# ---------------------------------------------------------------------------


def _bad(edit):
    d = copy.deepcopy(_data())
    edit(d)
    return d


@pytest.mark.parametrize(
    "edit, match",
    [
        (lambda d: d.pop("L"), "data lacks 'L'"),
        (lambda d: d.update(L=1), "L must be >= 2"),
        (lambda d: d.update(L=True), "L must be an integer"),
        (lambda d: d.update(policies=[UCB, UCB]), "two different policy names"),
        (lambda d: d.update(policies=UCB), "two different policy names"),
        (lambda d: d.update(confidence=1.0), r"confidence must lie in \(0, 1\)"),
        (lambda d: d.update(results=[]), "results must be a non-empty list"),
        (lambda d: d["results"].append("x"), r"results\[6\] must be a dict"),
        (lambda d: d["results"][0].pop("regret_runs"), r"results\[0\] lacks 'regret_runs'"),
        (lambda d: d["results"][0].update(policies=["cascade-ts"]), "policies must be one of"),
        (lambda d: d["results"][0].update(K=32), "K must be >= 1 and <= 31"),
        (lambda d: d["results"][0].update(K=1.5), "K must be an integer"),
        (lambda d: d["results"][0].update(weights=[0.5] * 3), "weights must hold L = 32"),
        (lambda d: d["results"][0]["weights"].__setitem__(0, 1.5), r"weights must lie in \[0, 1\]"),
        (lambda d: d["results"][0]["weights"].__setitem__(0, "a"), "weights must be a finite"),
        (lambda d: d["results"][0].update(settings={}), "settings.confirm_horizon"),
        (lambda d: d["results"][0].update(regret_runs=[5.0]), "two or more runs"),
        (lambda d: d["results"][0].update(regret_runs=[1, float("nan")]), "finite number"),
        (lambda d: d["results"][1].update(regret_runs=[0, 0]), "mean regret must be > 0"),
        (lambda d: d["results"].pop(1), "K = 1, n = 100 has no result for cascade-klucb"),
        (lambda d: d["results"].append(d["results"][0]), "a second result for cascade-ucb1"),
    ],
)
def test_bad_data_is_refused_with_a_clear_message(edit, match):
    d = _bad(edit)
    for f in (worstcase_table, worstcase_slopes, worstcase_markdown, plot_worstcase):
        with pytest.raises(ValueError, match=match):
            f(d)


@pytest.mark.parametrize("data", [None, [], "docs/search/worstcase_vs_K.json", 3])
def test_data_must_be_a_dict(data):
    with pytest.raises(ValueError, match="data must be a dict"):
        worstcase_table(data)
