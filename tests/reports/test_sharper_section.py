"""The report section "Sharper bounds" (reports.section_sharper) on synthetic Table 1 results:
the bounds' table and figure follow the registry, the factor table shows both chains of the
same counted runs, and the stored worst-case measurement is rendered, not recomputed."""

import json
import math
import shutil
from pathlib import Path

import numpy as np
import pytest
from _report_fakes import table_results
from scipy import stats

from cascading_bandits.reports import build as B
from cascading_bandits.reports import section_sharper as S
from cascading_bandits.reports.profile_report import profile_grid
from cascading_bandits.reports.worstcase import worstcase_markdown, worstcase_table

HORIZON = 1000
TOY = "toy-sharper"


@pytest.fixture(scope="module")
def toy_bound():
    """An upper bound on CascadeUCB1 (alpha = 1.5) registered for this module: the section
    must show it without being edited, and only beside CascadeUCB1."""
    from cascading_bandits.bounds.registry import Bound, Covers, register_bound, unregister_bound

    b = register_bound(
        Bound(
            name=TOY,
            title="Toy bound for the sharper section",
            label="toy sharper bound",
            kind="upper",
            form="constant",
            gap="free",
            covers=(Covers("cascade-ucb1", alpha=1.5),),
            evaluate=lambda inst, n: 2.0e4 + 0.0 * np.asarray(n, dtype=float),
            source="registered by tests/reports/test_sharper_section.py",
            rate="2e4",
        )
    )
    yield b
    unregister_bound(b.name)


@pytest.fixture(scope="module")
def data(toy_bound):
    """The report's data on the fake Table 1 results (the paper's means, two runs per cell),
    computed with the toy bound registered."""
    return B.collect({"table1": table_results("table1", horizon=HORIZON)}, HORIZON, 2)


def _ctx(tmp_path, data):
    s = B.Settings(out=tmp_path / "report", runs=2, horizon=HORIZON)
    return B.Context(s, data, {"available": False, "reason": "test"}, {})


def test_rows_follow_the_registry_with_the_paper_bound_first(data):
    rows = S.bound_ratio_rows(data)
    reg = B.T.as_dicts(data["bounds_registry"])
    assert len(rows) == len(reg)  # every registered value, once
    q = float(stats.t.ppf(0.975, 1))  # two runs per fake cell
    for (L, K, d), pol in dict.fromkeys(((r["L"], r["K"], r["delta"]), r["policy"]) for r in rows):
        mine = [r for r in rows if (r["L"], r["K"], r["delta"], r["policy"]) == (L, K, d, pol)]
        assert mine[0]["bound"] == S.PAPER_BOUND[pol] and mine[0]["paper"]
        kinds = [r["kind"] for r in mine]
        assert kinds == sorted(kinds, key=lambda k: k != "upper")  # lower bounds last
        want = [
            r["bound"] for r in reg if (r["L"], r["K"], r["delta"], r["policy"]) == (L, K, d, pol)
        ]
        assert sorted(r["bound"] for r in mine) == sorted(want)
        for r in mine:
            assert r["ratio"] == pytest.approx(r["value"] / r["mean"], rel=1e-12)
            assert r["runs"] == 2
            assert r["ci_high"] - r["mean"] == pytest.approx(q * r["se"], rel=1e-12)
            if r["ci_low"] > 0:
                assert r["ratio_low"] < r["ratio"] < r["ratio_high"]
            else:
                assert r["ratio_high"] is None
    # the upper bounds of each policy are the registry's, the lower ones apply to both
    names = {p: {r["bound"] for r in rows if r["policy"] == p} for p in S.POLICIES}
    assert TOY in names["cascade-ucb1"] and TOY not in names["cascade-klucb"]
    assert {"theorem4", "graves-lai"} <= names["cascade-ucb1"] & names["cascade-klucb"]


def test_markdown_table_and_exports(data, tmp_path):
    rows = S.bound_ratio_rows(data)
    md = S.bounds_markdown(rows, "cascade-ucb1")
    head = next(line for line in md.splitlines() if line.startswith("| instance"))
    cols = [c.strip() for c in head.strip("|").split("|")]
    assert cols[:3] == ["instance", "measured R(n) (95% CI)", "theorem2 (upper)"]
    assert f"{TOY} (upper)" in cols and cols[-2:] == ["theorem4 (lower)", "graves-lai (lower)"]
    r = next(x for x in rows if x["bound"] == TOY and (x["L"], x["K"]) == (16, 2))
    assert f"{r['value']:,.0f} ({r['ratio']:.2f}×)" in md
    line = next(x for x in md.splitlines() if x.startswith("| B_LB(16, 2, 0.2, 0.15) |"))
    assert f"{r['mean']:,.1f} ({r['ci_low']:,.1f} to {r['ci_high']:,.1f})" in line
    assert "the paper's bound (theorem2) is" in md and f"`{TOY}`: Toy bound" in md
    t = S.bounds_table(_ctx(tmp_path, data))
    assert len(t.rows) == len(rows) and t.name == "sharper_bounds"
    assert sum(TOY in line for line in t.csv().splitlines()) == 9
    assert t.latex().startswith("% generated")


def test_figure_draws_every_registered_bound_per_policy(data):
    rows = S.bound_ratio_rows(data)
    fig = S.sharper_figure(rows)
    ucb, kl = fig.axes[:2]
    labels = {ax: ax.get_legend_handles_labels()[1] for ax in (ucb, kl)}
    for ax, pol in ((ucb, "cascade-ucb1"), (kl, "cascade-klucb")):
        names = {r["bound"] for r in rows if r["policy"] == pol}
        drawn = {x.split(" (")[0] for x in labels[ax]} - {"bound = measured", "target 4×"}
        drawn -= {"target 3×"}
        assert drawn == names
        assert ax.get_yscale() == "log"
        lines = {(ln.get_linestyle(), ln.get_ydata()[0]) for ln in ax.get_lines()}
        assert ("--", 1.0) in lines and (":", S.TARGETS[pol]) in lines
    assert f"{S.PAPER_BOUND['cascade-ucb1']} (paper)" in labels[ucb]
    assert any(x.startswith(TOY) for x in labels[ucb])
    assert not any(x.startswith(TOY) for x in labels[kl])
    assert "graves-lai (lower)" in labels[kl]


@pytest.fixture(scope="module")
def chains(tmp_path_factory):
    """Profiled chains (both) of one Table 1 instance at the fake results' horizon."""
    d = tmp_path_factory.mktemp("chains") / "results"
    profile_grid(
        instances=((16, 2, 0.2, 0.15),), orders=("best-first",), runs=3, horizon=HORIZON,
        out=d / "profile", threads=1,
    )  # fmt: skip
    return d


def test_factor_table_has_both_chains_of_the_same_runs(
    data, chains, tmp_path, small_section_figures
):
    """The factor table (its figures small: drawn for real and checked by
    test_section_without_chains_renders_the_stored_worst_case)."""
    stored = [json.loads(p.read_text()) for p in sorted((chains / "profile").glob("*.json"))]
    rows = S.factor_rows(stored, data)
    assert len(rows) == 18 and sum(r["profiled"] for r in rows) == 2
    for pol in S.POLICIES:
        (r,) = [x for x in rows if x["profiled"] and x["policy"] == pol]
        (ch,) = [c for c in stored if c["policy"] == pol]
        assert r["instance"] == "B_LB(16, 2, 0.2, 0.15)" and r["runs"] == 3
        assert [x["ratio"] for x in r["paper"]] == [x["ratio"] for x in ch["links"][1:]]
        b = ch["binomial"]
        assert [x["ratio"] for x in r["binomial"]] == [x["ratio"] for x in b["links"][1:]]
        assert r["binomial_total"] == b["total_factor"] and r["paper_total"] == ch["total_factor"]
        md = S.factors_markdown(rows, pol)
        head = next(line for line in md.splitlines() if line.startswith("| instance"))
        for x in b["links"][1:]:
            assert f"binomial: {x['name']}" in head
        for x in ch["links"][1:]:
            assert f"paper: {x['name']}" in head
        line = next(x for x in md.splitlines() if x.startswith("| B_LB(16, 2"))
        last = b["links"][-1]
        assert f"{last['ratio']:.3f} [{last['ratio_lo']:.3f}, {last['ratio_hi']:.3f}]" in line
        assert line.rstrip(" |").endswith(f"**{b['total_factor']:.2f}**")
    # through the section: chains read from the results directory, the other instances named
    ctx = _ctx(tmp_path, data)
    shutil.copytree(chains, ctx.s.results)
    md = S.sharper_md(ctx)
    part = md.split("### The factor table before and after")[1].split("\n### ")[0]
    assert "binomial: split at U_t(e*) < w(e*)" in part
    assert "Not profiled at this horizon: B_LB(16, 4, 0.2, 0.15)" in part
    t = S.factors_table(ctx)
    assert {row[5] for row in t.rows} == {"paper", "binomial"}
    n_links = sum(len(c["links"]) - 1 + len(c["binomial"]["links"]) - 1 for c in stored)
    assert len(t.rows) == n_links
    js = S.sharper_json(ctx)
    json.dumps(js, allow_nan=False)
    assert sum(r["profiled"] for r in js["factors"]) == 2


def test_section_without_chains_renders_the_stored_worst_case(data, tmp_path, monkeypatch):
    ctx = _ctx(tmp_path, data)
    md = S.sharper_md(ctx)
    assert md.startswith("## Sharper bounds")
    assert "No proof chains at this report's horizon" in md
    doc = S.load_worstcase()
    assert S.WORSTCASE_PATH.parent.name == "data" and S.WORSTCASE_PATH.is_file()
    part = md.split("### The worst case over instances")[1]
    assert "not recomputed by this report" in part
    assert f"`{doc['provenance']['command']}`" in part
    assert doc["provenance"]["command"].startswith("python benchmarks/worstcase_vs_K.py")
    assert worstcase_markdown(doc) in part  # the stored table and its sentences, as rendered
    for stem in (S.FIGURE_BOUNDS, S.FIGURE_WORSTCASE):
        assert f"](figures/{stem}.png)" in md
        png = (ctx.s.out / "figures" / f"{stem}.png").read_bytes()
        assert png.startswith(b"\x89PNG") and len(png) > 5000
        assert (ctx.s.out / "figures" / f"{stem}.pdf").read_bytes().startswith(b"%PDF-")
    js = S.sharper_json(ctx)
    json.dumps(js, allow_nan=False)
    assert js["worstcase"]["recomputed"] is False
    want = worstcase_table(doc)
    assert [r["ratio"] for r in js["worstcase"]["table"]] == [r["ratio"] for r in want]
    assert "sharper_section" in ctx.s.timings
    # a rebuild from the same numbers copies the cached figures instead of drawing them
    ctx2 = _ctx(tmp_path / "again", data)
    shutil.copytree(ctx.s.results, ctx2.s.results)

    def no_drawing(*a, **k):
        raise AssertionError("drawn again")

    import cascading_bandits.reports.worstcase as W

    monkeypatch.setattr(S, "sharper_figure", no_drawing)
    monkeypatch.setattr(W, "plot_worstcase", no_drawing)
    assert S.sharper_md(ctx2) == md
    for stem in (S.FIGURE_BOUNDS, S.FIGURE_WORSTCASE):
        a = (ctx.s.out / "figures" / f"{stem}.png").read_bytes()
        assert (ctx2.s.out / "figures" / f"{stem}.png").read_bytes() == a


def test_the_section_is_in_the_report_with_its_tables():
    names = [s.name for s in B.SECTIONS]
    assert names.index("profile") < names.index("sharper") < names.index("verification")
    assert {"sharper_bounds", "sharper_factors"} <= set(B.table_names())


def test_measured_interval():
    lo, hi = S.measured_interval(10.0, 1.0, 3)
    assert hi - 10 == pytest.approx(stats.t.ppf(0.975, 2)) and 10 - lo == pytest.approx(hi - 10)
    lo, hi = S.measured_interval(10.0, 1.0, None)
    assert hi - 10 == pytest.approx(1.959964, rel=1e-6)
    assert math.isclose(sum(S.measured_interval(0.0, 2.0, 5)), 0.0, abs_tol=1e-12)


def test_the_packaged_worst_case_data_is_package_data():
    """reports/data ships its JSON files (pyproject: package-data "*.json")."""
    root = Path(S.__file__).resolve().parents[1]
    text = (root / "pyproject.toml").read_text()
    assert '"cascading_bandits.reports.data" = "reports/data"' in text
    assert '"*" = ["*.json", "*.csv"]' in text
    worstcase_table(S.load_worstcase())  # valid for the renderer
    # the copy is the project's stored measurement (refresh it when that one is re-run)
    docs = root / "docs" / "search" / "worstcase_vs_K.json"
    if docs.is_file():  # a source checkout
        assert S.load_worstcase() == json.loads(docs.read_text())
    with pytest.raises(ValueError, match="cannot read"):
        S.load_worstcase(root / "no-such-file.json")
