"""A quick report built end to end with the real simulator: every table and figure present,
and the numbers in the Markdown equal to what simulate.store.load_results reads back.

verify runs through the report's real path (``run_verify``, its cache, ``verify.caveats``)
but on the few claims of :data:`QUICK_CLAIMS`: all 42 take about 20 s whatever the number
of examples, and tests/verify checks each of them. The slow test at the end builds the
quick report with every claim, as ``cascading report --quick`` does (CI runs it).
"""

import functools
import json

import pytest

sweep = pytest.importorskip("cascading_bandits.simulate.sweep")
store = pytest.importorskip("cascading_bandits.simulate.store")

from cascading_bandits import verify  # noqa: E402
from cascading_bandits.reports import build as B  # noqa: E402
from cascading_bandits.reports import tables as T  # noqa: E402

#: cheap claims (a few milliseconds each) of the sampled, exact and symbolic kinds
QUICK_CLAIMS = ("theorem2", "theorem1.upper", "lemma2", "appendix.hoeffding", "theorem3.loglog")


@pytest.fixture(scope="module")
def quick_report(tmp_path_factory):
    """The quick report on :data:`QUICK_CLAIMS`. The sharper-bounds section's two figures
    (its bounds and the stored worst case) are small ones here (about 2 CPU s): drawn for
    real from the fakes and checked by test_sharper_section's
    test_section_without_chains_renders_the_stored_worst_case, and in this report by the
    slow test at the end. Every other figure is drawn for real (misspecification's two
    only here in the default run)."""
    from _report_fakes import _small_figure

    from cascading_bandits.reports import section_sharper, worstcase

    out = tmp_path_factory.mktemp("quick") / "report"
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(verify, "run_all", functools.partial(verify.run_all, claims=QUICK_CLAIMS))
        mp.setattr(section_sharper, "sharper_figure", _small_figure)
        mp.setattr(worstcase, "plot_worstcase", _small_figure)
        md = B.build_report(out, quick=True, workers=1, progress=False, seed=3, curve_points=4)
    return out, md.read_text(encoding="utf-8")


def test_quick_report_contents(quick_report):
    out, md = quick_report
    for heading in (
        "## Table 1",
        "## Table 2",
        "## Bounds against the evidence",
        "## Scaling",
        "## Worst-first",
        "## Figure 1",
        "## Verification",
    ):
        assert heading in md
    # every figure of the builder, drawn for real here only (test_build draws small ones)
    for stem in B.FIGURES:
        png = (out / "figures" / f"{stem}.png").read_bytes()
        pdf = (out / "figures" / f"{stem}.pdf").read_bytes()
        assert png.startswith(b"\x89PNG\r\n\x1a\n") and len(png) > 5000
        assert pdf.startswith(b"%PDF-") and len(pdf) > 2000
        assert f"figures/{stem}.png" in md or stem == "policies" and "CascadeTS" in md
    assert "Not at the paper's scale" in md
    assert "compute time recorded in the stored cells' provenance" in md
    section = md.split("## Verification (`cascading verify`)", 1)[1].split("\n## ", 1)[0]
    assert f"{len(QUICK_CLAIMS)} claims checked; none fails ({len(QUICK_CLAIMS)} hold)" in section
    for claim in QUICK_CLAIMS:
        assert claim in section


def test_quick_report_numbers_match_stored_results(quick_report):
    out, md = quick_report
    stored = []
    for name in B.available_experiments():
        stored += store.load_results(out / "results", name)
    js = json.loads((out / "report.json").read_text())
    assert js["horizon"] == B.QUICK_HORIZON and js["runs"] == B.QUICK_RUNS
    for name in ("table1", "table2"):
        order = "best-first" if name == "table1" else "worst-first"
        assert len(js[name]) == 18
        for row in js[name]:
            r = T.select_one(
                stored,
                model="cascade",
                order=order,
                L=row["L"],
                K=row["K"],
                delta=row["delta"],
                policy=row["policy"],
            )
            assert r is not None and r.regret.shape == (B.QUICK_RUNS, r.checkpoints.size)
            assert row["ours_mean"] == pytest.approx(r.mean_regret, rel=1e-12)
            assert row["ours_se"] == pytest.approx(r.stderr, rel=1e-12)
            assert T.fmt_pm(r.mean_regret, r.stderr) in md
    ranked = T.ranked_policies(stored)
    assert ranked[0] == "ranked-klucb" and len(js["dbn"]) == 4 * len(ranked)
    for d in js["dbn"]:
        assert f"{d['ratio']:.2f} ± {d['ratio_se']:.2f}" in md


def test_stored_results_at_another_scale_are_refused_not_replaced(quick_report, tmp_path):
    out, _ = quick_report
    stored = out / "results"
    before = sorted(p.stat().st_mtime_ns for p in stored.rglob("*.npz"))
    with pytest.raises(ValueError, match="another --results directory"):
        B.build_report(
            tmp_path / "other", results_dir=stored, quick=True, runs=4, workers=1, progress=False
        )
    assert sorted(p.stat().st_mtime_ns for p in stored.rglob("*.npz")) == before


def test_rebuild_reuses_stored_results(quick_report, tmp_path, monkeypatch):
    out, md = quick_report
    # the tables only: no figures, no verify
    monkeypatch.setattr(B, "draw_figures", lambda data: {})
    monkeypatch.setattr(
        B, "run_verify", lambda s, pending=None: {"available": False, "reason": "test"}
    )
    monkeypatch.setattr(B, "start_verify", lambda s: None)
    md2 = B.build_report(
        tmp_path / "again",
        results_dir=out / "results",
        quick=True,
        workers=1,
        progress=False,
        seed=3,
        curve_points=2,
    ).read_text(encoding="utf-8")
    t1 = md.split("## Table 1")[1].split("## Bounds")[0]
    assert t1 == md2.split("## Table 1")[1].split("## Bounds")[0]


def test_quick_report_ledger_matches_bounds_later(quick_report):
    """The Ledger section holds every bounds.later.ledger row of each Table 1 instance, with
    the ratio of the measured mean regret to the bound."""
    from cascading_bandits.bounds.instance import b_lb
    from cascading_bandits.bounds.later import ledger

    out, md = quick_report
    assert "## Ledger: the 2015 bounds beside the later literature" in md
    js = json.loads((out / "report.json").read_text())
    rows = js["ledger"]
    assert (out / "tables" / "ledger.csv").exists() and (out / "tables" / "ledger.tex").exists()
    bounds = {(b["L"], b["K"], b["delta"]): b for b in js["bounds"]}
    assert {(r["L"], r["K"], r["delta"]) for r in rows} == set(bounds)
    L, K, d = next(iter(bounds))
    want = ledger(b_lb(L, K, 0.2, d), B.QUICK_HORIZON)
    got = [r for r in rows if (r["L"], r["K"], r["delta"]) == (L, K, d)]
    assert [r["name"] for r in got] == [r["name"] for r in want]
    assert [r["value"] for r in got] == pytest.approx([r["value"] for r in want], rel=1e-12)
    for r in got:
        mean = {"ucb1": bounds[(L, K, d)]["ucb1_mean"], "klucb": bounds[(L, K, d)]["klucb_mean"]}
        assert r["empirical"] == (None if r["measured"] is None else mean[r["measured"]])
    # without stored proof chains the profile section says how to get them
    assert "## Where the bounds lose" in md and "cascading report --profile" in md


@pytest.mark.slow
def test_quick_report_checks_every_claim(tmp_path):
    """``cascading report --quick`` as a user runs it: verify checks every claim, beside
    the simulation in a process of its own (workers > 1), and none fails (about 30 s,
    most of it verify)."""
    md = B.build_report(
        tmp_path / "r", quick=True, workers=2, progress=False, seed=3, curve_points=2
    ).read_text(encoding="utf-8")
    js = json.loads((tmp_path / "r" / "report.json").read_text())
    assert "verify_beside" in js["timings"]  # the answer came from its own process
    n = len(verify.available_claims())
    section = md.split("## Verification (`cascading verify`)", 1)[1].split("\n## ", 1)[0]
    assert f"{n} claims checked; none fails" in section
    for claim in verify.available_claims():
        assert claim.id in section
