"""The report builder: files written, numbers in the Markdown equal to the stored results,
no silent overwrite. Synthetic results here; test_report_quick.py runs the simulator."""

import json
import math

import numpy as np
import pytest
from _report_fakes import (
    dbn_results,
    fake_simulation,
    make_result,
    patch_builder_figures,
    table_results,
)

from cascading_bandits.reports import build as B
from cascading_bandits.reports import tables as T
from cascading_bandits.reports.report_files import _umask
from cascading_bandits.reports.report_verify import _verify_child


def _fake_ts(horizon):
    out = []
    for r in table_results("table1", horizon=horizon):
        if r.params["policy"] != "cascade-klucb":
            continue
        p = dict(
            r.params,
            policy="cascade-ts",
            experiment="ts",
            cell_id=r.params["cell_id"].replace("klucb", "ts"),
        )
        out.append(make_result(p, 0.8 * r.regret[:, -1], horizon=horizon))
    return out


@pytest.fixture
def fake_run(monkeypatch):
    horizon = 1000
    shift = {2: 0.0, 4: 0.0, 8: 40.0}  # K = 8 rows of Table 1 deliberately off
    fakes = {
        "table1": table_results("table1", shift=lambda c: shift[c.K], horizon=horizon),
        "table2": table_results("table2", horizon=horizon),
        "dbn": dbn_results(ratio=2.8, horizon=horizon),
        "ts": _fake_ts(horizon),
    }

    def run_experiments(s):
        s.timings["simulate:fake"] = 0.0
        return fakes

    fake_simulation(monkeypatch, run_experiments)
    monkeypatch.setattr(
        B, "run_verify", lambda s, pending=None: {"available": False, "reason": "test"}
    )
    monkeypatch.setattr(B, "start_verify", lambda s: None)
    return fakes, horizon


def _md_rows(md, heading):
    """Data rows of the first Markdown table after ``heading``."""
    part = md.split(heading, 1)[1]
    rows = []
    started = False
    for line in part.splitlines():
        if line.startswith("|"):
            started = True
            cells = [c.strip() for c in line.strip("|").split("|")]
            if not set("".join(cells)) <= set(":- "):
                rows.append(cells)
        elif started:
            break
    return rows[1:]  # drop the header


def test_report_files_and_numbers(
    tmp_path, fake_run, warm_cache, small_section_figures, monkeypatch
):
    """Every figure of the builder (build.FIGURES) picked from the fakes, rendered, written
    and linked; one small drawing each here (patch_builder_figures: test_report_quick's
    report draws them all for real, as the sections' own figures); the bound values from
    the warm cache."""
    patch_builder_figures(monkeypatch)
    fakes, horizon = fake_run
    out = tmp_path / "rep"
    warm_cache(out / "results")
    md_path = B.build_report(out, runs=2, horizon=horizon, progress=False, curve_points=4)
    md = md_path.read_text(encoding="utf-8")
    for stem in B.FIGURES:
        png = (out / "figures" / f"{stem}.png").read_bytes()
        pdf = (out / "figures" / f"{stem}.pdf").read_bytes()
        assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 500
        assert pdf[:5] == b"%PDF-" and len(pdf) > 500
        assert f"figures/{stem}.png" in md or stem == "policies" and "CascadeTS" in md
    assert "Not at the paper's scale" in md
    assert "`verify` is not available" in md
    mode = (out / "report.md").stat().st_mode & 0o777
    assert mode == 0o666 & ~_umask()  # readable like any file the user writes
    # Table 1 in the Markdown holds exactly the stored results' mean +- se
    rows = _md_rows(md, "## Table 1")
    assert len(rows) == 9
    allres = [r for rs in fakes.values() for r in rs]
    for row in rows:
        L, K, d = int(row[0]), int(row[1]), float(row[2])
        for col, pol in ((3, "cascade-ucb1"), (7, "cascade-klucb")):
            r = T.select_one(
                allres, model="cascade", order="best-first", L=L, K=K, delta=d, policy=pol
            )
            m, se = T.mean_se(r.regret[:, -1])
            assert row[col] == f"{m:.1f} ± {se:.1f}"
            z = 40 / math.hypot(se, se) if K == 8 else 0.0  # ours se = paper se by construction
            assert float(row[col + 2]) == pytest.approx(z, abs=0.005)
            assert row[col + 3] == T.agreement(z)
    assert "disagree" in md.split("## Table 1")[1].split("## Table 2")[0]
    js = json.loads((out / "report.json").read_text())
    assert len(js["table1"]) == 18 and js["horizon"] == horizon and js["runs"] == 2
    z_md = [float(r[5]) for r in rows]
    z_js = [c["z"] for c in js["table1"] if c["policy"] == "cascade-ucb1"]
    assert np.allclose(z_md, z_js, atol=0.005)
    assert [d["ratio"] for d in js["dbn"]] == pytest.approx([2.8] * 4)
    # the CascadeTS table's numbers are in the JSON too, equal to the stored results
    ts = [d for d in js["policies"] if d["policy"] == "cascade-ts"]
    assert len(ts) == 9
    for d in ts:
        r = T.select_one(
            allres, model="cascade", L=d["L"], K=d["K"], delta=d["delta"], policy="cascade-ts"
        )
        assert (d["mean"], d["se"]) == T.mean_se(r.regret[:, -1])
    assert set(js["tables"]) >= {"table1", "table2", "bounds", "policies"}


def test_refuses_to_overwrite(tmp_path, fake_run, monkeypatch, small_section_figures, warm_cache):
    from matplotlib.figure import Figure

    # file semantics only: one small figure instead of the full set, cached bound values
    monkeypatch.setattr(B, "draw_figures", lambda data: {"order": Figure(figsize=(1, 1))})
    out = tmp_path / "rep"
    warm_cache(out / "results")
    B.build_report(out, runs=2, horizon=1000, progress=False, curve_points=3)
    before = (out / "report.md").read_bytes()
    with pytest.raises(ValueError, match="--overwrite"):
        B.build_report(out, runs=2, horizon=1000, progress=False, curve_points=3)
    assert (out / "report.md").read_bytes() == before
    B.build_report(out, runs=2, horizon=1000, progress=False, overwrite=True, curve_points=3)
    # a user's own unrelated file is never touched, and a lone figure also blocks
    out2 = tmp_path / "rep2"
    (out2 / "figures").mkdir(parents=True)
    warm_cache(out2 / "results")
    (out2 / "figures" / "order.pdf").write_bytes(b"mine")
    with pytest.raises(ValueError, match="figures/order.pdf"):
        B.build_report(out2, runs=2, horizon=1000, progress=False, curve_points=3)
    assert (out2 / "figures" / "order.pdf").read_bytes() == b"mine"


def test_bad_settings_rejected(tmp_path):
    with pytest.raises(ValueError, match="runs"):
        B.Settings(out=tmp_path, runs=1)
    with pytest.raises(ValueError, match="horizon"):
        B.Settings(out=tmp_path, horizon=0)
    f = tmp_path / "file"
    f.write_text("x")
    with pytest.raises(ValueError, match="not a directory"):
        B.check_writable(f, overwrite=False)
    s = B.Settings(out=tmp_path, quick=True)
    assert (s.runs, s.horizon, s.results) == (B.QUICK_RUNS, B.QUICK_HORIZON, tmp_path / "results")


def test_markdown_row_regex_sanity():
    # the helper itself: a two-row table parses to its data rows only
    md = "## X\n\n| a | b |\n| ---: | ---: |\n| 1 | 2 |\n| 3 | 4 |\n\ntext"
    assert _md_rows(md, "## X") == [["1", "2"], ["3", "4"]]


class _NoEarlyWork:
    """In place of build._Early in the tests of a report that fails at its simulation: the
    bound values and the sections' early work (about 3 CPU s at the quick scale), which
    build_report waits for before it raises, are not what they are about (every report
    built in the other tests does that work)."""

    def __init__(self, s, memo, sections):
        pass

    def join(self):
        pass


def test_unusable_stored_results_name_the_reports_remedy(tmp_path, monkeypatch):
    sweep = pytest.importorskip("cascading_bandits.simulate.sweep")

    def refuse(names, out_dir, **kw):
        raise ValueError(
            f"stored cell {names[0]}/x comes from engine version None, this is 2; "
            "use another output directory or overwrite=True (--overwrite)"
        )

    monkeypatch.setattr(sweep, "run_experiments", refuse)
    monkeypatch.setattr(B, "_Early", _NoEarlyWork)
    with pytest.raises(ValueError) as info:
        # serial: no verify process beside (test_a_failed_report_stops_its_verify_process)
        B.build_report(tmp_path / "r", quick=True, workers=1, progress=False)
    msg = str(info.value)
    assert "another --results directory" in msg and "engine version" in msg
    assert "--overwrite" not in msg
    assert not (tmp_path / "r" / "report.md").exists()


def test_a_failed_report_stops_its_verify_process(tmp_path, monkeypatch):
    """verify runs beside the simulation in a process of its own; when the report fails
    first, that process is ended, not left behind (a pool worker once waited for work
    forever after its parent had gone)."""
    started = []

    def start(s):
        started.append(real_start(s))
        return started[-1]

    def refuse(s):
        assert started and started[0].running()
        raise ValueError("stored results of another scale")

    real_start = B.start_verify
    monkeypatch.setattr(B, "start_verify", start)
    fake_simulation(monkeypatch, refuse)
    # the report fails as soon as verify has started: its processes run for as long as the
    # early work would, at two cores' worth of CPU
    monkeypatch.setattr(B, "_Early", _NoEarlyWork)
    with pytest.raises(ValueError, match="another scale"):
        B.build_report(tmp_path / "r", quick=True, workers=2, progress=False)
    assert len(started) == 1 and not started[0].running()


def test_verify_beside_raises_the_childs_error_and_stops(tmp_path, monkeypatch):
    """VerifyBeside.result raises the child's exception here (run_verify turns ImportError
    and AttributeError into 'not available'); stop ends the process. Its answer path: the slow
    test_quick_report_checks_every_claim."""
    import multiprocessing

    from cascading_bandits.simulate import engine

    # _verify_child sets the engine's cold budget to 0 for its process: here that is this
    # test process, so put it back afterwards (test_cold_choice reads it)
    monkeypatch.setattr(engine, "COLD_PLAIN_BUDGET_S", engine.COLD_PLAIN_BUDGET_S)
    s = B.Settings(out=tmp_path, runs=2, horizon=100, seed=3, workers=2, verify_examples=1)
    ctx = multiprocessing.get_context("spawn")
    conn, child = ctx.Pipe(duplex=False)
    _verify_child(child, 1, 3, -1.0)  # in this process: a bad budget is an error
    kind, exc = conn.recv()
    assert kind == "error" and isinstance(exc, Exception)
    bad = B.VerifyBeside(1, 3, -1.0)  # the same error, from the process
    with pytest.raises(type(exc), match=str(exc)[:20]):
        bad.result()
    assert not bad.running()
    pending = B.start_verify(s)
    assert isinstance(pending, B.VerifyBeside)
    pending.stop()
    assert not pending.running()


def test_summary_says_when_a_regret_exceeds_its_upper_bound(
    tmp_path, small_section_figures, bound_memo, warm_cache
):
    warm_cache(tmp_path / "results")  # the ledger's values

    def run(shift):
        res = {"table1": table_results("table1", shift=shift, horizon=1000)}
        data = B.collect(res, 1000, curve_points=2, memo=bound_memo)
        s = B.Settings(out=tmp_path, runs=2, horizon=1000)
        return B.render_markdown(s, data, {"available": False, "reason": "test"}, {})

    assert "below 1 in every row" in run(lambda c: 0.0)
    big = run(lambda c: 1e5 if (c.L, c.K, c.delta) == (16, 2, 0.15) else 0.0)
    assert "above 1 in some row" in big and "below 1 in every row" not in big


def test_each_ratio_to_theorem4_uses_its_own_policys_mean(
    tmp_path, t1, small_section_figures, bound_memo, warm_cache
):
    """KL-UCB / Theorem 4 is CascadeKL-UCB's mean over the Theorem 4 rate (and UCB1 / Theorem
    4 CascadeUCB1's), in the rows, the exported bounds table and the lead; the fakes give the
    two policies means 3 to 4 times apart, so a ratio from the other policy's mean shows."""
    data = B.collect({"table1": t1}, 1000, curve_points=2, memo=bound_memo)
    warm_cache(tmp_path / "results")  # the ledger's values
    rows = data["bounds"]
    assert all(b.ucb1_mean > 2 * b.klucb_mean for b in rows)
    for b in rows:
        assert b.klucb_over_theorem4 == pytest.approx(b.klucb_mean / b.theorem4, rel=1e-12)
        assert b.ucb1_over_theorem4 == pytest.approx(b.ucb1_mean / b.theorem4, rel=1e-12)
    s = B.Settings(out=tmp_path, runs=2, horizon=1000)
    v = {"available": False, "reason": "test"}
    ctx = B.Context(s, data, v, {})
    t = B.export_tables(ctx)["bounds"]
    col = {h: i for i, h in enumerate(t.header)}
    for b, row in zip(rows, t.rows, strict=True):
        assert row[col["KL-UCB / Thm 4"]].value == pytest.approx(b.klucb_mean / b.theorem4)
        assert row[col["UCB1 / Thm 4"]].value == pytest.approx(b.ucb1_mean / b.theorem4)
    md = B.render_markdown(s, data, v, {})
    lead = md.split("## At a glance")[1].split("\n## ")[0]
    kl = [b.klucb_mean / b.theorem4 for b in rows]
    assert f"Theorem 4 rate (coefficient × log n) at n: {min(kl):.2f} to {max(kl):.2f}." in lead


@pytest.fixture
def toy_report_bound():
    """A bound on CascadeKL-UCB with c = 3 registered for one test (the report's tables and
    ledger must show it without being edited)."""
    from cascading_bandits.bounds.registry import Bound, Covers, register_bound, unregister_bound

    b = register_bound(
        Bound(
            name="toy-report",
            title="Toy bound for the report",
            label="toy report bound",
            kind="upper",
            form="constant",
            gap="free",
            covers=(Covers("cascade-klucb", c=3),),
            evaluate=lambda inst, n: 1e5 + 0.0 * np.asarray(n, dtype=float),
            source="registered by tests/reports/test_build.py",
            rate="1e5",
        )
    )
    yield b
    unregister_bound(b.name)


def test_a_registered_bound_appears_in_the_report(
    tmp_path, fake_run, monkeypatch, toy_report_bound, small_section_figures, warm_cache
):
    fakes, horizon = fake_run
    monkeypatch.setattr(B, "draw_figures", lambda data: {})
    out = tmp_path / "rep"
    # cached values without the toy bound: the registry's values and the ledger are keyed
    # by the registered names, so those are computed here with it
    warm_cache(out / "results")
    md = B.build_report(out, runs=2, horizon=horizon, progress=False, curve_points=3)
    md = md.read_text(encoding="utf-8")
    js = json.loads((out / "report.json").read_text())
    # the bounds at n: one row per Table 1 configuration, against CascadeKL-UCB's regret
    mine = [r for r in js["bounds_registry"] if r["bound"] == "toy-report"]
    assert len(mine) == 9 and {r["policy"] for r in mine} == {"cascade-klucb"}
    klucb = {(b["L"], b["K"], b["delta"]): b["klucb_mean"] for b in js["bounds"]}
    for r in mine:
        assert r["value"] == 1e5
        assert r["ratio"] == pytest.approx(klucb[(r["L"], r["K"], r["delta"])] / 1e5, rel=1e-12)
    section = md.split("## Bounds against the evidence")[1].split("\n## ")[0]
    assert "| toy-report | Toy bound for the report | upper | cascade-klucb |" in section
    assert "| toy-report | upper, gap-free | cascade-klucb |" in section  # the folded table
    assert "toy-report" in md.split("## At a glance")[1].split("\n## ")[0]
    # the ledger: its row on every instance, compared with CascadeKL-UCB
    led = [r for r in js["ledger"] if r["bound"] == "toy-report"]
    assert len(led) == 9 and all(r["measured"] == "klucb" for r in led)
    for r in led:
        assert r["empirical"] == klucb[(r["L"], r["K"], r["delta"])]
    assert "| Toy bound for the report |" in md.split("## Ledger")[1].split("\n## ")[0]


def test_verify_merge_puts_the_verdicts_in_the_registrys_order():
    from cascading_bandits.reports.report_verify import _merge

    a = {"positions": [0, 3], "value": {"verdicts": ["a", "d"], "caveats": ["c"]}, "seconds": 2}
    b = {"positions": [1, 2, 4], "value": {"verdicts": ["b", "c", "e"], "caveats": []}}
    b["seconds"] = 5
    got = _merge([a, b])
    assert got == {"value": {"verdicts": list("abcde"), "caveats": ["c"]}, "seconds": 5}


def test_verify_in_two_processes_gives_the_verdicts_of_one(tmp_path):
    """The claims split over two processes (those running the engine apart) give the
    verdicts a single run gives: each claim draws from the root seed and its own id."""
    pytest.importorskip("cascading_bandits.verify")
    from cascading_bandits.reports.report_verify import VerifyBeside, _part_of, _verify_value

    claims = ["lemma2", "appendix.hoeffding", "theorem3.loglog", "lemma1"]
    one = _verify_value(2, 7, 1.0, part=(0, 1), claims=claims)
    two = VerifyBeside(2, 7, 1.0, processes=2, claims=claims).result()

    def strip(value):
        return [{k: v for k, v in d.items() if k != "seconds"} for d in value["verdicts"]]

    assert [d["claim_id"] for d in two["value"]["verdicts"]] == [
        d["claim_id"] for d in one["value"]["verdicts"]
    ]
    assert strip(two["value"]) == strip(one["value"]) and len(strip(one["value"])) == 4
    assert two["value"]["caveats"] == one["value"]["caveats"] != []

    class C:
        def __init__(self, *requires):
            self.requires = requires

    engine = C("cascading_bandits.simulate.runner", "cascading_bandits.bounds.upper")
    assert _part_of(engine, 2) == 0 and _part_of(C("cascading_bandits.simulate.counters"), 2) == 1
    assert _part_of(C(), 2) == 1 and _part_of(C(), 1) == 0
    with pytest.raises(ValueError, match="processes"):
        VerifyBeside(2, 7, 1.0, processes=3)


def test_a_section_reading_verify_early_must_say_so(
    tmp_path, fake_run, monkeypatch, small_section_figures, warm_cache
):
    """The builder writes the sections that need no verdict while verify runs beside; one
    that reads ctx.verify without declaring it is refused with the remedy, and one that
    declares it gets verify's answer."""
    monkeypatch.setattr(B, "draw_figures", lambda data: {})
    seen = []

    def reads(ctx):
        seen.append(ctx.verify.get("reason"))
        return ""

    monkeypatch.setattr(B, "SECTIONS", [*B.SECTIONS, B.Section("late", reads, reads_verify=True)])
    B.build_report(
        tmp_path / "a",
        results_dir=warm_cache(tmp_path / "results"),
        runs=2,
        horizon=1000,
        progress=False,
        curve_points=2,
    )
    assert seen == ["test"]  # fake_run's verify answer
    monkeypatch.setattr(B, "SECTIONS", [*B.SECTIONS, B.Section("early", reads)])
    with pytest.raises(RuntimeError, match="reads_verify=True"):
        B.build_report(
            tmp_path / "b",
            results_dir=tmp_path / "results",
            runs=2,
            horizon=1000,
            progress=False,
            curve_points=2,
        )


def test_prefetched_bounds_are_what_collect_asks_for(tmp_path):
    """The bound values computed while the simulation runs (build.prefetch_bounds) are the
    ones collect reads: collect then computes none, and its tables equal a collect without
    them. A prefetch keyed by other arguments (p, delta, n or the curve grid) would leave
    misses here."""
    res = {"table1": table_results("table1", horizon=1000)}
    memo = B.BoundMemo()
    B.prefetch_bounds(memo, 1000, 2)
    assert memo.missed == 27  # 9 configurations x (bounds, registry, curves)
    memo.missed = 0
    data = B.collect(res, 1000, curve_points=2, memo=memo)
    assert memo.missed == 0
    fresh = B.collect(res, 1000, curve_points=2)
    assert T.as_dicts(data["bounds"]) == T.as_dicts(fresh["bounds"])
    assert T.as_dicts(data["bounds_registry"]) == T.as_dicts(fresh["bounds_registry"])
    for key, curves in fresh["curves"].items():
        for name, (n, v) in curves.items():
            np.testing.assert_array_equal(data["curves"][key][name][0], n)
            np.testing.assert_array_equal(data["curves"][key][name][1], v)


def test_an_error_of_the_early_work_is_raised(tmp_path, monkeypatch):
    """What the thread beside the simulation raises is the report's error, not lost."""

    def boom(*a, **k):
        raise ValueError("early failure")

    monkeypatch.setattr(B, "prefetch_bounds", boom)
    s = B.Settings(out=tmp_path / "out", runs=2, horizon=1000)
    early = B._Early(s, B.BoundMemo(), [])
    with pytest.raises(ValueError, match="early failure"):
        early.join()
