"""The report's lead, caveats, exported tables (CSV, LaTeX), cache and section list."""

import csv
import io
import json
import re
from pathlib import Path

import numpy as np
import pytest
from _report_fakes import dbn_results, fake_simulation, patch_section_figures, table_results

from cascading_bandits.reports import build as B
from cascading_bandits.reports import tables as T
from cascading_bandits.reports.report_cache import cache_path
from cascading_bandits.reports.report_verify import _verify_cached, _verify_value
from cascading_bandits.reports.section_base import md_inline
from cascading_bandits.reports.section_caveats import (
    CAVEAT_HEADLINES,
    caveat_headline,
    evidence_table,
)

ROOT = Path(__file__).resolve().parents[2]


# ---------------------------------------------------------------------------
# LaTeX and CSV
# ---------------------------------------------------------------------------
def check_latex_table(tex: str, ncols: int) -> list[str]:
    """Assert a booktabs table compiles in shape; returns its data rows."""
    assert tex.isascii(), [ch for ch in tex if not ch.isascii()]
    body = "\n".join(ln for ln in tex.splitlines() if not ln.startswith("%"))
    # every _ % # is escaped (a \label may hold _)
    text = "\n".join(ln for ln in body.splitlines() if not ln.startswith("\\label{"))
    assert not re.search(r"(?<!\\)[_%#]", text), text
    assert body.count("{") - body.count(r"\{") == body.count("}") - body.count(r"\}")
    spec = re.search(r"\\begin\{tabular\}\{([lrc]+)\}", body)
    assert spec and len(spec.group(1)) == ncols
    lines = body.splitlines()
    top, mid, bot = (lines.index(x) for x in (r"\toprule", r"\midrule", r"\bottomrule"))
    assert top < mid < bot and body.count(r"\toprule") == 1 and body.count(r"\bottomrule") == 1
    assert lines.index(r"\centering") < top and lines[0] == r"\begin{table}[t]"
    assert lines[-1] == r"\end{table}" and lines[-2] == r"\end{tabular}"
    rows = lines[top + 1 : mid] + lines[mid + 1 : bot]
    for row in rows:
        assert row.endswith(r" \\"), row
        amps = len(re.findall(r"(?<!\\)&", row))
        assert amps == ncols - 1, row
        assert row.count("$") % 2 == 0, row
    return lines[mid + 1 : bot]


def test_latex_escape_and_symbols():
    assert T.latex_escape("se_ours 5% a&b #1") == r"se\_ours 5\% a\&b \#1"
    assert T.latex_escape("Δ → ν ± γ") == r"$\Delta$ $\to$ $\nu$ $\pm$ $\gamma$"
    assert (
        T.latex_escape("`x` {y} ~^\\")
        == r"x \{y\} \textasciitilde{}\textasciicircum{}\textbackslash{}"
    )
    with pytest.raises(ValueError, match="no LaTeX spelling"):
        T.latex_escape("naïve")


def _demo_table():
    return T.Table(
        "demo_1",
        "A caption with se_ours and 95% bands",
        ("L", "Δ", "ours", "ratio", "note"),
        (
            ("16", "0.15", T.PM(1284.40649, 9.3431), T.Num(0.0481234, 3), "ok_1"),
            ("32", "0.075", T.PM(None, None), T.Num(12345.678, 4, sig=True), "-"),
        ),
        "rrrrl",
    )


def test_table_latex_shape():
    t = _demo_table()
    rows = check_latex_table(t.latex(), 5)
    assert rows[0] == r"16 & 0.15 & $1284.4 \pm 9.3$ & $0.048$ & ok\_1 \\"
    assert rows[1] == r"32 & 0.075 & -- & $12{,}346$ & -- \\"
    assert r"\caption{A caption with se\_ours and 95\% bands}" in t.latex()
    assert r"\label{tab:demo_1}" in t.latex()


def test_table_csv_full_precision():
    t = _demo_table()
    rows = list(csv.reader(io.StringIO(t.csv())))
    assert rows[0] == ["L", "Δ", "ours mean", "ours se", "ratio", "note"]
    assert float(rows[1][2]) == 1284.40649 and float(rows[1][3]) == 0.0 + 9.3431
    assert float(rows[1][4]) == 0.0481234  # not the 3 decimals shown
    assert rows[2][2:5] == ["", "", "12345.678"]
    assert len({len(r) for r in rows}) == 1


def test_table_markdown_matches_formatting():
    md = _demo_table().markdown().splitlines()
    assert md[2] == "| 16 | 0.15 | 1284.4 ± 9.3 | 0.048 | ok_1 |"
    assert md[3] == "| 32 | 0.075 | - | 12,346 | - |"


def test_table_rejects_bad_input():
    with pytest.raises(ValueError, match="align"):
        T.Table("t", "c", ("a", "b"), (), "lx")
    with pytest.raises(ValueError, match="cells"):
        T.Table("t", "c", ("a", "b"), (("1",),))
    with pytest.raises(ValueError, match="distinct"):
        T.Table("t", "c", ("z", "z"), ())
    with pytest.raises(ValueError, match="file stem"):
        T.Table("../x", "c", ("a",), ())


# ---------------------------------------------------------------------------
# a report from synthetic results and a synthetic verify answer
# ---------------------------------------------------------------------------
FAKE_VERIFY = {
    "available": True,
    "verdicts": [
        {"claim_id": "lemma1", "reference": "Lemma 1", "status": "holds", "method": "exact"},
        {"claim_id": "theorem2", "reference": "Theorem 2", "status": "holds", "min_slack": 0.5},
        {"claim_id": "theorem4", "reference": "Theorem 4", "status": "undecided"},
    ],
    "caveats": [
        {
            "id": "peeling-lp-constraints",
            "claims": ["theorem2"],
            "kind": "erratum",
            "paper_says": "m*_1 = tau_1",
            "truth": "the greedy fill wins. More text.",
            "evidence": {"printed_lp_optimum": 30.0, "argmax": ["100/9", "0"]},
            "test": "tests/verify/test_caveats.py::test_peeling_lp_printed_constraints",
        },
        {
            "id": "made-up",
            "claims": ["theorem4"],
            "kind": "imprecise",
            "paper_says": "x",
            "truth": "First sentence here. Second sentence.",
            "evidence": {"K=2": {"a": 1.0, "b": "1/2"}, "K=4": {"a": 2.5, "b": "3/4"}},
            "test": "tests/verify/test_caveats.py::test_klucb_regime",
        },
    ],
}


@pytest.fixture(scope="module")
def fake_report(tmp_path_factory, warm_cache):
    """One report from the fakes, shared by the tests that only read it; no figures (they
    took most of its 10 s; test_report_quick's report draws them all), the
    bound values from the warm cache."""
    horizon = 1000
    fakes = {
        "table1": table_results("table1", shift=lambda c: -5.0, horizon=horizon),
        "table2": table_results("table2", horizon=horizon),
        "dbn": dbn_results(ratio=2.8, horizon=horizon),
    }

    def run_experiments(s):
        s.timings["simulate:fake"] = 0.05
        s.reused["fake"] = (57, 57)
        return fakes

    with pytest.MonkeyPatch.context() as mp:
        fake_simulation(mp, run_experiments)
        mp.setattr(B, "run_verify", lambda s, pending=None: FAKE_VERIFY)
        mp.setattr(B, "start_verify", lambda s: None)
        mp.setattr(B, "draw_figures", lambda data: {})
        patch_section_figures(mp)
        out = tmp_path_factory.mktemp("fake") / "rep"
        warm_cache(out / "results")
        md = B.build_report(out, runs=2, horizon=horizon, progress=False, curve_points=3)
    return out, md.read_text(encoding="utf-8"), fakes


def test_lead_comes_first(fake_report):
    _, md, _ = fake_report
    head = "\n".join(md.splitlines()[:30])
    assert "## At a glance" in head
    assert "3 claims checked; none fails (2 hold, 1 undecided)." in head
    assert "**Errata of the paper** (1, each pinned by a test" in head
    assert (
        "`peeling-lp-constraints`: " + md_inline(CAVEAT_HEADLINES["peeling-lp-constraints"][1])
        in head
    )
    assert "1 imprecise statement" in head
    assert "**Reproduction** at n = 1,000, 2 runs: Table 1 18 ok" in head
    # ours = paper - 5 in every Table 1 cell, = paper in Table 2: 18 below, none above
    assert "ours is below the paper in 18 of 36 cells, above in 0" in head
    assert head.index("## At a glance") < md.index("## Table 1")


def test_timing_line_says_results_were_reused(fake_report):
    _, md, fakes = fake_report
    line = next(ln for ln in md.splitlines() if ln.startswith("- wall time"))
    assert line.startswith("- wall time: simulation reused from stored results (57 cells")
    assert "simulation 0.1 s" not in md


def test_timing_line_shows_original_compute_time(
    tmp_path, small_section_figures, bound_memo, warm_cache
):
    res = table_results("table1", horizon=1000)
    for i, r in enumerate(res):
        r.provenance["seconds"] = 1.5 + i
    data = B.collect({"table1": res}, 1000, curve_points=2, memo=bound_memo)
    s = B.Settings(out=tmp_path, runs=2, horizon=1000, results=warm_cache(tmp_path / "results"))
    s.reused["table1"] = (18, 18)
    s.timings["simulate:table1"] = 0.2
    md = B.render_markdown(s, data, {"available": False, "reason": "t"}, {})
    total = sum(1.5 + i for i in range(18))
    assert f"compute time recorded in the stored cells' provenance: {total:.1f} s over 18" in md
    assert "simulation reused from stored results (18 cells, loaded in 0.2 s)" in md
    s.reused["table1"] = (10, 18)
    md = B.render_markdown(s, data, {"available": False, "reason": "t"}, {})
    assert "simulation 0.2 s (8 cells computed, 10 reused from stored results)" in md


def test_exported_tables_hold_the_reports_numbers(fake_report):
    out, md, fakes = fake_report
    names = {p.stem for p in (out / "tables").glob("*.csv")}
    assert names == {
        "table1",
        "table2",
        "bounds",
        "bounds_registry",
        "sharper_bounds",
        "misspec_policies",
        "misspec_bounds",
        "scaling",
        "order",
        "figure1",
        "ledger",
        "verify",
    }
    assert {p.stem for p in (out / "tables").glob("*.tex")} == names
    allres = [r for rs in fakes.values() for r in rs]
    rows = list(csv.DictReader(io.StringIO((out / "tables" / "table1.csv").read_text())))
    assert len(rows) == 9
    for row in rows:
        r = T.select_one(
            allres,
            model="cascade",
            order="best-first",
            L=int(row["L"]),
            K=int(row["K"]),
            delta=float(row["Δ"]),
            policy="cascade-klucb",
        )
        m, se = T.mean_se(r.regret[:, -1])
        assert float(row["KL-UCB ours mean"]) == m and float(row["KL-UCB ours se"]) == se
    ncols = {"table1": 11, "table2": 11, "bounds": 14, "scaling": 8, "order": 6, "figure1": 7}
    ncols["verify"] = 8
    ncols["bounds_registry"] = 11
    for name, c in ncols.items():
        rows = check_latex_table((out / "tables" / f"{name}.tex").read_text(), c)
        assert rows
    js = json.loads((out / "report.json").read_text())
    assert js["reused_cells"] == {"fake": {"reused": 57, "cells": 57}}
    assert len(js["bound_curves"]) == 9 and set(js["bound_curves"][0]) >= {"theorem3", "L"}
    # the registry's table: one row per configuration, registered bound and covered policy;
    # the CSV holds the numbers of report.json
    reg = js["bounds_registry"]
    rows = list(csv.DictReader(io.StringIO((out / "tables" / "bounds_registry.csv").read_text())))
    assert len(rows) == len(reg) and {(r["L"], r["K"], r["delta"]) for r in reg} == {
        (b["L"], b["K"], b["delta"]) for b in js["bounds"]
    }
    for row, r in zip(rows, reg, strict=True):
        assert row["bound"] == r["bound"] and row["policy"] == r["policy"]
        assert float(row["value at n"]) == r["value"]
        assert float(row["empirical / bound"]) == pytest.approx(r["mean"] / r["value"])


def test_a_stored_search_adds_the_found_ledger_to_the_report_and_its_exports(
    tmp_path, monkeypatch, small_section_figures, warm_cache
):
    """A search stored under <results>/search/ (docs-style file) gets the ledger on its
    instance: a subsection of the Ledger, tables/ledger_found.csv and .tex, report.json."""
    import shutil

    from cascading_bandits.bounds.later import upper_bound

    fakes = {
        "table1": table_results("table1", shift=lambda c: -5.0, horizon=1000),
        "table2": table_results("table2", horizon=1000),
        "dbn": dbn_results(ratio=2.8, horizon=1000),
    }
    fake_simulation(monkeypatch, lambda s: fakes)
    monkeypatch.setattr(B, "run_verify", lambda s, pending=None: FAKE_VERIFY)
    monkeypatch.setattr(B, "start_verify", lambda s: None)
    monkeypatch.setattr(B, "draw_figures", lambda data: {})  # not what this test is about
    out = tmp_path / "rep"
    (out / "results" / "search").mkdir(parents=True)
    src = ROOT / "docs" / "search" / "tightest_theorem3.json"
    shutil.copy(src, out / "results" / "search" / "tight3.json")
    warm_cache(out / "results")  # the bound values and Table 1 ledger, not the found ledger
    md = B.build_report(out, runs=2, horizon=1000, progress=False, curve_points=3)
    md = md.read_text(encoding="utf-8")
    ledger, found = md.index("## Ledger: the 2015"), md.index("### Ledger on the instances")
    assert ledger < found < md.index("## Instances the searches found")
    (res,) = json.loads(src.read_text())["results"]
    js = json.loads((out / "report.json").read_text())
    rows = js["ledger_found"]
    assert {r["search"] for r in rows} == {"tight3"}
    (r,) = [r for r in rows if r["name"] == "Theorem 3 (CascadeKL-UCB)"]
    b = upper_bound("theorem3", res["weights"], 10_000, K=2)
    assert r["value"] == pytest.approx(b, rel=1e-12)
    assert r["ratio"] == pytest.approx(res["mean_regret"]["cascade-klucb"] / b, rel=1e-12)
    csv_rows = list(csv.DictReader(io.StringIO((out / "tables" / "ledger_found.csv").read_text())))
    assert len(csv_rows) == len(rows)
    tex = (out / "tables" / "ledger_found.tex").read_text()
    assert len(check_latex_table(tex, 15)) == len(rows)


def test_existing_table_files_block_without_overwrite(tmp_path):
    out = tmp_path / "r"
    (out / "tables").mkdir(parents=True)
    (out / "tables" / "table1.tex").write_text("mine")
    with pytest.raises(ValueError, match="tables/table1.tex"):
        B.check_writable(out, overwrite=False)


# ---------------------------------------------------------------------------
# caveats
# ---------------------------------------------------------------------------
def test_caveats_render_short_with_evidence_table_and_test(fake_report):
    _, md, _ = fake_report
    part = md.split("## Caveats")[1]
    assert "`tests/verify/test_caveats.py::test_peeling_lp_printed_constraints`" in part
    # no truncated JSON: every evidence value is in a table cell
    assert "| printed_lp_optimum | 30 |" in part and "| argmax | (100/9, 0) |" in part
    assert "| instance | a | b |" in part and "| K=4 | 2.5 | 3/4 |" in part
    # a caveat without a headline shows the first sentence of its finding
    assert "\nFirst sentence here.\n" in part
    assert "{" not in part.split("<details>")[0]


def test_every_caveat_of_verify_has_a_headline_and_an_existing_pinned_test():
    verify = pytest.importorskip("cascading_bandits.verify")
    cavs = [c.to_dict() for c in verify.caveats()]
    src = (ROOT / "tests" / "verify" / "test_caveats.py").read_text(encoding="utf-8")
    defined = set(re.findall(r"^def (test_\w+)\(", src, flags=re.M))
    for c in cavs:
        path, name = c["test"].split("::")
        assert path == "tests/verify/test_caveats.py" and name in defined, c["test"]
        kind, text = CAVEAT_HEADLINES[c["id"]]
        assert kind == c["kind"], c["id"]  # the headline was written for this finding
        assert caveat_headline(c) == text
    # no headline for a caveat verify no longer reports
    assert set(CAVEAT_HEADLINES) == {c["id"] for c in cavs}


def test_every_claim_of_verify_names_the_unit_of_its_slack():
    """The verify table names each claim's slack scale: every claim verify runs has one (a
    new claim needs its entry in SLACK_UNITS, or is a registered bound's claim), and the
    fake report's table shows them in their own column, beside the number."""
    verify = pytest.importorskip("cascading_bandits.verify")
    from cascading_bandits.bounds.registry import get_bound
    from cascading_bandits.reports.section_verify import SLACK_UNITS, slack_unit

    fallback = slack_unit("no.such.claim")
    for c in verify.available_claims():
        unit = slack_unit(c.id)
        assert unit != fallback, c.id
        if c.id.startswith("bound.") and c.id not in SLACK_UNITS:
            lower = get_bound(c.id.removeprefix("bound.")).kind == "lower"
            assert unit.startswith("relative: 1 − lower") == lower, c.id
    assert slack_unit("bound.theorem4") != slack_unit("bound.theorem3")
    assert slack_unit("bound.no-such-bound") == fallback


def test_verify_table_has_a_unit_column(fake_report):
    _, md, _ = fake_report
    part = md.split("## Verification")[1]
    head = next(ln for ln in part.splitlines() if ln.startswith("| claim"))
    assert "| min slack | slack unit | verdict |" in head
    assert "| 0.5 | relative: (bound − pre-peeling sum) / bound | holds |" in part


def test_caveat_headline_falls_back_when_the_kind_changed():
    c = {"id": "lemma2-order", "kind": "premise-needed", "truth": "Needed after all. Details."}
    assert caveat_headline(c) == "Needed after all."


def test_evidence_table_shapes():
    flat = evidence_table({"x": 1.23456789, "y": [1, 2], "z": None})
    assert "| x | 1.23457 |" in flat and "| y | (1, 2) |" in flat and "| z | None |" in flat
    per = evidence_table({"n=3": {"F": 3.0, "ok": False}, "n=48": {"F": 9.5, "ok": True}})
    assert per.splitlines()[0] == "| instance | F | ok |" and "| n=48 | 9.5 | True |" in per


# ---------------------------------------------------------------------------
# the cache of verify and of the bounds
# ---------------------------------------------------------------------------
def test_verify_beside_the_simulation_gives_the_same_answer(tmp_path, monkeypatch):
    """run_verify with the future of a verify run elsewhere stores and returns what a run in
    this process would; start_verify stays out of serial and cached runs."""
    import concurrent.futures as cf

    verify = pytest.importorskip("cascading_bandits.verify")

    class V:
        def __init__(self, seed):
            self.claim_id, self.seed = "c", seed

    monkeypatch.setattr(verify, "run_all", lambda examples, seed, budget: [V(seed)])
    monkeypatch.setattr(verify, "caveats", lambda: [])
    here = B.run_verify(B.Settings(out=tmp_path / "a", runs=2, horizon=100, seed=3))
    s = B.Settings(out=tmp_path / "b", runs=2, horizon=100, seed=3)
    fut = cf.Future()
    fut.set_result(_verify_value(s.verify_examples, s.seed, 1.0))
    beside = B.run_verify(s, fut)
    assert beside == here and s.cached["verify"] is False and "verify_beside" in s.timings
    assert _verify_cached(s) == {k: v for k, v in beside.items() if k != "available"}
    assert B.start_verify(s) is None  # cached now
    serial = B.Settings(out=tmp_path / "c", runs=2, horizon=100, seed=3, workers=1)
    assert B.start_verify(serial) is None


def test_verify_is_cached_by_its_inputs(tmp_path, monkeypatch):
    verify = pytest.importorskip("cascading_bandits.verify")
    calls = []

    class V:
        def __init__(self, seed):
            self.seed = seed

        def to_dict(self):
            return {"claim_id": "c", "status": "holds", "min_slack": 0.1 * self.seed}

    def run_all(examples, seed, budget):
        calls.append((examples, seed))
        return [V(seed)]

    monkeypatch.setattr(verify, "run_all", run_all)
    monkeypatch.setattr(verify, "caveats", lambda: [])
    s = B.Settings(out=tmp_path, runs=2, horizon=100, seed=3, verify_examples=4)
    first = B.run_verify(s)
    assert calls == [(4, 3)] and s.cached["verify"] is False
    s2 = B.Settings(out=tmp_path, runs=2, horizon=100, seed=3, verify_examples=4)
    assert B.run_verify(s2) == first and calls == [(4, 3)] and s2.cached["verify"] is True
    # another seed or number of examples is another key
    B.run_verify(B.Settings(out=tmp_path, runs=2, horizon=100, seed=4, verify_examples=4))
    B.run_verify(B.Settings(out=tmp_path, runs=2, horizon=100, seed=3, verify_examples=5))
    assert calls == [(4, 3), (4, 4), (5, 3)]
    # a damaged or foreign cache file is recomputed, not trusted
    path = cache_path(s.results, "verify", B.verify_cache_key(s))
    path.write_text("{not json")
    B.run_verify(s)
    blob = json.loads(path.read_text())
    blob["key"]["seed"] = 99
    path.write_text(json.dumps(blob))
    B.run_verify(s)
    assert calls[-2:] == [(4, 3), (4, 3)]


def test_cache_key_follows_the_code(tmp_path, monkeypatch):
    key = B.verify_cache_key(B.Settings(out=tmp_path, runs=2, horizon=100))
    assert len(key["code"]) == 64 and key["code"] != B.code_version("bounds", "reports.tables")
    assert B.code_version("reports.tables") != B.code_version("reports.build")
    with pytest.raises(ValueError, match="packages"):
        B.code_version("nope")
    with pytest.raises(ValueError, match="no module"):
        B.code_version("reports.nope")


def test_bounds_memo_serves_identical_numbers(tmp_path):
    res = {"table1": table_results("table1", horizon=500)}
    memo = B.BoundMemo()
    a = B.collect(res, 500, curve_points=3, memo=memo)
    assert memo.missed == 9 * 3  # one bounds_at, one curve, one registry_at per Table 1 row
    B.cache_store(tmp_path, "bounds", {"k": 1}, memo.values)
    again = B.BoundMemo(B.cache_load(tmp_path, "bounds", {"k": 1}))
    b = B.collect(res, 500, curve_points=3, memo=again)
    assert again.missed == 0
    assert T.as_dicts(a["bounds"]) == T.as_dicts(b["bounds"])
    assert T.as_dicts(a["bounds_registry"]) == T.as_dicts(b["bounds_registry"])
    for k, c in a["curves"].items():
        for name, (n, v) in c.items():
            assert (b["curves"][k][name][0] == n).all() and (b["curves"][k][name][1] == v).all()
    assert B.cache_load(tmp_path, "bounds", {"k": 2}) is None


def test_rebuild_uses_the_cache(tmp_path, monkeypatch, small_section_figures):
    horizon = 500
    fakes = {"table1": table_results("table1", horizon=horizon)}

    def run_experiments(s):
        s.reused["table1"] = (18, 18)
        return fakes

    fake_simulation(monkeypatch, run_experiments)
    monkeypatch.setattr(
        B, "run_verify", lambda s, pending=None: {"available": False, "reason": "t"}
    )
    monkeypatch.setattr(B, "start_verify", lambda s: None)
    monkeypatch.setattr(B, "draw_figures", lambda data: {})
    results = tmp_path / "results"
    from cascading_bandits.bounds import upper

    first = []
    real0 = upper.theorem3_optimal_eps
    monkeypatch.setattr(
        upper, "theorem3_optimal_eps", lambda *a, **k: first.append(a) or real0(*a, **k)
    )
    md1 = B.build_report(
        tmp_path / "a", results_dir=results, runs=2, horizon=horizon, progress=False, curve_points=3
    ).read_text()
    from cascading_bandits.bounds import upper

    calls = []
    real = upper.theorem3_optimal_eps
    monkeypatch.setattr(
        upper, "theorem3_optimal_eps", lambda *a, **k: calls.append(a) or real(*a, **k)
    )
    md2 = B.build_report(
        tmp_path / "b", results_dir=results, runs=2, horizon=horizon, progress=False, curve_points=3
    ).read_text()
    assert len(first) >= 9 and calls == []  # the first build optimised eps, the second did not
    assert "tables" in md2 and "(cached)" in md2 and "(cached)" not in md1
    cut = lambda md: md.split("## Table 1")[1]  # noqa: E731
    assert cut(md1) == cut(md2)


# ---------------------------------------------------------------------------
# the section list
# ---------------------------------------------------------------------------
def test_a_section_is_one_entry(tmp_path, small_section_figures, bound_memo, warm_cache):
    def toy_table(ctx):
        return T.Table("toy", "Later bounds", ("paper", "bound"), (("X 2020", T.Num(3.5, 2)),))

    sec = B.Section(
        "toy",
        lambda ctx: "## Toy\n\n" + ctx.table("toy", toy_table).markdown() + "\n",
        (("toy", toy_table),),
        json=lambda ctx: [{"paper": "X 2020", "bound": 3.5}],
    )
    sections = [*B.SECTIONS, sec]
    # at the warm cache's horizon: the bound values and the ledger are not what this is about
    data = B.collect(
        {"table1": table_results("table1", horizon=1000)}, 1000, curve_points=2, memo=bound_memo
    )
    s = B.Settings(out=tmp_path, runs=2, horizon=1000, results=warm_cache(tmp_path / "results"))
    v = {"available": False, "reason": "t"}
    md = B.render_markdown(s, data, v, {}, sections=sections)
    assert md.rstrip().endswith("| X 2020 | 3.50 |")
    ctx = B.Context(s, data, v, {})
    assert "toy" in B.export_tables(ctx, sections)
    assert B.to_json(s, data, v, {}, sections=sections)["toy"] == [
        {"paper": "X 2020", "bound": 3.5}
    ]
    assert "toy" in B.table_names(sections) and "toy" not in B.table_names()


def test_figures_are_cached_by_the_numbers_drawn(
    tmp_path, monkeypatch, small_section_figures, warm_cache
):
    horizon = 1000  # the warm cache's: the bound values are not what this is about

    def fakes(shift):
        return {
            "table1": table_results("table1", shift=lambda c: shift, horizon=horizon),
            "dbn": dbn_results(ratio=2.8, horizon=horizon),
        }

    current = {"res": fakes(0.0)}
    fake_simulation(monkeypatch, lambda s: current["res"])
    monkeypatch.setattr(
        B, "run_verify", lambda s, pending=None: {"available": False, "reason": "t"}
    )
    monkeypatch.setattr(B, "start_verify", lambda s: None)
    results = warm_cache(tmp_path / "results")

    def build(name):
        B.build_report(
            tmp_path / name,
            results_dir=results,
            runs=2,
            horizon=horizon,
            progress=False,
            curve_points=3,
        )
        return json.loads((tmp_path / name / "report.json").read_text())

    def small_figures(data):
        """Two small figures of the numbers (the real ones take seconds to draw;
        test_report_quick's report draws those)."""
        from matplotlib.figure import Figure

        figs = {}
        for stem, r in (("figure1", data["all"][0]), ("order", data["all"][-1])):
            fig = Figure(figsize=(2, 1.5))
            fig.subplots().plot(r.checkpoints, np.asarray(r.regret).mean(axis=0))
            figs[stem] = fig
        return figs

    monkeypatch.setattr(B, "draw_figures", small_figures)
    js = build("a")
    assert js["cached"]["figures"] is False and set(js["figures"]) == {"figure1", "order"}
    drawn = []
    monkeypatch.setattr(B, "draw_figures", lambda data: drawn.append(1) or small_figures(data))
    js = build("b")
    assert drawn == [] and js["cached"]["figures"] is True
    for paths in js["figures"].values():
        for rel in paths:
            assert (tmp_path / "a" / rel).read_bytes() == (tmp_path / "b" / rel).read_bytes()
    current["res"] = fakes(7.0)  # other numbers: drawn again
    assert build("c")["cached"]["figures"] is False and drawn == [1]
    # a cached file gone: drawn again, not a broken report
    for f in (results / B.CACHE_DIR).glob("figures-*/figure1.png"):
        f.unlink()
    assert build("d")["cached"]["figures"] is False and drawn == [1, 1]
    assert (tmp_path / "d" / "figures" / "figure1.png").read_bytes()[:4] == b"\x89PNG"
