"""reports.section_search and reports.section_ledger: the stored searches' section and the
ledger on the instances they found, from the project's own search results."""

from __future__ import annotations

import copy
import json
import math
import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest

from cascading_bandits.bounds.instance import CascadeInstance
from cascading_bandits.reports.section_base import Context
from cascading_bandits.reports.section_ledger import (
    _ledger_found_md,
    _ledger_found_table,
    found_ledger_values,
)
from cascading_bandits.reports.section_search import _search_md, stored_searches

DOCS = Path(__file__).resolve().parents[2] / "docs" / "search"


def _shipped():
    """The search results shipped in docs/search (``{"results": [...]}`` documents, what
    ``cascading search --out`` writes); other studies stored beside them are left out."""
    out = []
    for p in sorted(DOCS.glob("*.json")):
        doc = json.loads(p.read_text())
        if isinstance(doc, dict) and isinstance(doc.get("results"), list):
            out.append(p)
    return out


def _ctx(tmp_path):
    for name in ("factor_vs_K", "worst_regret"):
        d = tmp_path / "results" / "search" / name
        d.mkdir(parents=True)
        shutil.copy(DOCS / f"{name}.json", d / "search.json")
    return SimpleNamespace(s=SimpleNamespace(results=tmp_path / "results", out=tmp_path))


def test_search_section_tabulates_every_stored_result_and_draws_both_figures(tmp_path):
    ctx = _ctx(tmp_path)
    found = stored_searches(ctx.s.results)
    assert set(found) == {"factor_vs_K", "worst_regret"}
    md = _search_md(ctx)
    worst = found["worst_regret"]
    for r in worst["results"]:
        n = r["settings"]["confirm_horizon"]
        row = f"| {r['policies'][0]} | {n:,} | {r['value']:.1f} ("
        assert row in md
        assert (
            f"| {math.sqrt(n * worst['L']):.0f} | {math.sqrt(n * worst['L'] * worst['K']):.0f} |"
            in md
        )
    factor = found["factor_vs_K"]
    for r in factor["results"]:
        assert f"| {r['K']} | {r['L']} | {r['value']:.2f} (" in md
    assert f"{factor['slope_log_factor_vs_log_K']:.2f} (sqrt(K): 0.5)" in md
    for stem in ("search-factor_vs_K", "search-worst_regret"):
        assert (tmp_path / "figures" / f"{stem}.png").read_bytes().startswith(b"\x89PNG")


def test_no_stored_search_leaves_the_section_out(tmp_path):
    ctx = SimpleNamespace(s=SimpleNamespace(results=tmp_path, out=tmp_path))
    assert _search_md(ctx) == ""


def test_the_shipped_searches_show_the_effect_the_readme_states():
    worst = json.loads((DOCS / "worst_regret.json").read_text())
    at = {(r["policies"][0], r["settings"]["confirm_horizon"]): r for r in worst["results"]}
    n = max(h for _, h in at)
    # CascadeUCB1's worst regret is above sqrt(nLK) scale, CascadeKL-UCB's near sqrt(nL)
    assert at[("cascade-ucb1", n)]["ci_low"] > at[("cascade-klucb", n)]["ci_high"] * 2
    factor = json.loads((DOCS / "factor_vs_K.json").read_text())
    vals = [r["value"] for r in sorted(factor["results"], key=lambda r: r["K"])]
    assert vals == sorted(vals) and factor["slope_log_factor_vs_log_K"] > 0


# ---------------------------------------------------------------------------
# the ledger on the instances the searches found
# ---------------------------------------------------------------------------

TIGHTEST = ("theorem2", "corollary2", "theorem3", "corollary3")


def _bound_by_hand(name, w, K, n):
    """The four upper bounds with constants from their own functions (not the registry)."""
    from cascading_bandits.bounds.later import theorem2_gapfree_bound, theorem3_gapfree_bound
    from cascading_bandits.bounds.upper import theorem2_bound, theorem3_bound

    inst = CascadeInstance(tuple(w), K)
    form = "paper" if n >= 48 else "proof"
    return {
        "theorem2": lambda: theorem2_bound(inst, n),
        "corollary2": lambda: theorem2_gapfree_bound(inst.L, K, n),
        "theorem3": lambda: theorem3_bound(inst, n, form=form),
        "corollary3": lambda: theorem3_gapfree_bound(inst, n, form=form)[0],
    }[name]()


ROW = {
    "theorem2": "Theorem 2 (CascadeUCB1)",
    "corollary2": "Corollary 2 of Theorem 2, gap-free (derived here)",
    "theorem3": "Theorem 3 (CascadeKL-UCB)",
    "corollary3": "Corollary 3 of Theorem 3, gap-free leading term (derived here)",
}
POLICY = {
    "theorem2": "cascade-ucb1",
    "corollary2": "cascade-ucb1",
    "theorem3": "cascade-klucb",
    "corollary3": "cascade-klucb",
}


@pytest.fixture(scope="module")
def found(tmp_path_factory):
    """Every shipped search copied as docs-style files into <results>/search/, the ledger
    section built once; and ``bounds.later.ledger``'s answer to each call made meanwhile,
    by its arguments (instance, n): what ledger returns on an instance, without computing
    the ledger of the 30 found instances a second time (4 CPU s)."""
    from cascading_bandits.bounds import later

    tmp = tmp_path_factory.mktemp("found")
    d = tmp / "results" / "search"
    d.mkdir(parents=True)
    for p in _shipped():
        shutil.copy(p, d / p.name)
    s = SimpleNamespace(results=tmp / "results", out=tmp)
    ctx = Context(s, {"bounds": []}, {}, {})
    answers = {}
    real = later.ledger

    def recorded(instance, n, *args, **kwargs):
        rows = real(instance, n, *args, **kwargs)
        if not args and not kwargs:
            answers[instance, n] = copy.deepcopy(rows)
        return rows

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(later, "ledger", recorded)
        vals = found_ledger_values(ctx)
    return ctx, vals, _ledger_found_md(ctx), answers


def test_the_shipped_searches_include_each_tightest_bound():
    for name in TIGHTEST:
        (r,) = json.loads((DOCS / f"tightest_{name}.json").read_text())["results"]
        assert r["objective"] == "bound" and r["bound_name"] == name
        assert r["policies"] == [POLICY[name]] and r["K"] == 2 and r["L"] == 6
        assert r["settings"]["confirm_horizon"] == 10_000 and r["settings"]["maxiter"] == 8
        n = r["settings"]["confirm_horizon"]
        b = _bound_by_hand(name, r["weights"], 2, n)
        assert r["bound"] == pytest.approx(b, rel=1e-12)
        mean = r["mean_regret"][POLICY[name]]
        assert r["value"] == pytest.approx(mean / b, rel=1e-12)
        lo, hi = r["regret_ci"][POLICY[name]]
        assert lo < mean < hi and (r["ci_low"], r["ci_high"]) == pytest.approx((lo / b, hi / b))
        assert 0 < r["ci_low"] and r["ci_high"] < 1  # the bound holds where it is tightest


def test_found_ledger_has_every_row_of_every_found_instance(found):
    _, vals, _, answers = found
    docs = {p.stem: json.loads(p.read_text()) for p in _shipped()}
    want = {(name, i) for name, doc in docs.items() for i in range(len(doc["results"]))}
    assert {(r["search"], r["index"]) for r in vals} == want
    for name, doc in docs.items():
        for i, res in enumerate(doc["results"]):
            mine = [r for r in vals if (r["search"], r["index"]) == (name, i)]
            n = res["settings"]["confirm_horizon"]
            # ledger's answer on this instance at n (a call for another instance or n is
            # not found here)
            rows = answers[CascadeInstance(tuple(res["weights"]), res["K"]), n]
            assert [r["name"] for r in mine] == [r["name"] for r in rows]
            assert {r["n"] for r in mine} == {n}


def test_found_ledger_ratios_are_the_measured_regret_over_the_bound(found):
    _, vals, _, _ = found
    checked = 0
    for p in _shipped():
        for i, res in enumerate(json.loads(p.read_text())["results"]):
            n = res["settings"]["confirm_horizon"]
            for name, row in ROW.items():
                if POLICY[name] not in res["policies"]:
                    continue
                (r,) = [r for r in vals if (r["search"], r["index"], r["name"]) == (p.stem, i, row)]
                b = _bound_by_hand(name, res["weights"], res["K"], n)
                mean = res["mean_regret"][POLICY[name]]
                assert r["measured"] == POLICY[name]
                assert r["value"] == pytest.approx(b, rel=1e-12)
                assert r["empirical"] == mean
                assert r["ratio"] == pytest.approx(mean / b, rel=1e-12)
                ci = res.get("regret_ci")
                if ci is not None:
                    lo, hi = ci[POLICY[name]]
                    assert (r["ratio_low"], r["ratio_high"]) == pytest.approx((lo / b, hi / b))
                elif res["objective"] == "regret":
                    lo, hi = res["ci_low"], res["ci_high"]
                    assert (r["ratio_low"], r["ratio_high"]) == pytest.approx((lo / b, hi / b))
                else:  # a ratio search stored before per-policy intervals: none
                    assert r["ratio_low"] is None and r["empirical_low"] is None
                checked += 1
    # factor_vs_K: 4 instances x 4 bounds; worst_regret: 6 x 2; tightest: 4 x 2
    # every row of every shipped search whose policy a bound of ROW is about
    want = sum(
        POLICY[name] in res["policies"]
        for p in _shipped()
        for res in json.loads(p.read_text())["results"]
        for name in ROW
    )
    # at least factor_vs_K: 4 instances x 4 bounds; worst_regret: 6 x 2; tightest: 4 x 2
    assert checked == want and checked >= 16 + 12 + 8


def test_the_tightest_instance_ratio_is_the_searchs_value(found):
    _, vals, _, _ = found
    for name in TIGHTEST:
        (res,) = json.loads((DOCS / f"tightest_{name}.json").read_text())["results"]
        (r,) = [r for r in vals if (r["search"], r["name"]) == (f"tightest_{name}", ROW[name])]
        assert (r["ratio"], r["ratio_low"], r["ratio_high"]) == pytest.approx(
            (res["value"], res["ci_low"], res["ci_high"]), rel=1e-12
        )


def test_lower_bounds_and_unmeasured_policies(found):
    _, vals, _, _ = found
    for r in vals:
        if r["algorithm"] in ("any consistent", "any uniformly good", "any"):
            pols = r["policies"]
            assert r["measured"] == ("cascade-klucb" if "cascade-klucb" in pols else "cascade-ucb1")
        if r["algorithm"] in ("TS-Cascade", "variance-aware cascade UCB (Bernstein)"):
            assert r["measured"] is None and r["ratio"] is None


def test_found_ledger_table_markdown_csv_latex(found):
    import csv
    import io

    from test_report_sections import check_latex_table

    ctx, vals, md, _ = found
    assert md.startswith("## Ledger on the instances the searches found")  # no Table 1 ledger
    t = ctx.table("ledger_found", _ledger_found_table)
    assert len(t.rows) == len(vals)
    rows = list(csv.DictReader(io.StringIO(t.csv())))
    assert len(rows) == len(vals)
    for row, r in zip(rows, vals, strict=True):
        assert row["search"] == r["search"] and row["bound"] == r["name"]
        assert float(row["value at n"]) == r["value"] and int(row["n"]) == r["n"]
        got = row["empirical / bound"]
        assert (float(got) if got else None) == r["ratio"]
    assert len(check_latex_table(t.latex(), len(t.header))) == len(vals)
    for name in TIGHTEST:
        assert f"| tightest_{name} | 1 | tightest {name} ({POLICY[name]}) |" in md


def test_search_section_lists_where_each_bound_is_tightest(found):
    ctx, _, _, _ = found
    md = _search_md(ctx)
    assert "Where each upper bound is tightest" in md
    for name in TIGHTEST:
        (res,) = json.loads((DOCS / f"tightest_{name}.json").read_text())["results"]
        assert (
            f"| {ROW[name]} | {POLICY[name]} | 2 | 6 | 10,000 | {res['value']:.3f} "
            f"({res['ci_low']:.3f} to {res['ci_high']:.3f}) |" in md
        )


def test_stored_searches_reads_both_layouts_and_refuses_clashes_and_bad_files(tmp_path):
    d = tmp_path / "search"
    (d / "mine").mkdir(parents=True)
    shutil.copy(DOCS / "tightest_theorem2.json", d / "mine" / "search.json")
    shutil.copy(DOCS / "worst_regret.json", d / "worst.json")
    assert list(stored_searches(tmp_path)) == ["mine", "worst"]
    shutil.copy(DOCS / "worst_regret.json", d / "mine.json")
    with pytest.raises(ValueError, match="two stored searches are named 'mine'"):
        stored_searches(tmp_path)
    (d / "mine.json").write_text('{"results": [{"weights": [0.5, 0.2]}]}')
    (d / "mine" / "search.json").unlink()
    with pytest.raises(ValueError, match=r"mine.json: results\[0\]: missing K"):
        stored_searches(tmp_path)
    (d / "mine.json").write_text("not json")
    with pytest.raises(ValueError, match="mine.json: not JSON"):
        stored_searches(tmp_path)


def test_no_stored_search_no_found_ledger(tmp_path):
    ctx = Context(SimpleNamespace(results=tmp_path, out=tmp_path), {"bounds": []}, {}, {})
    assert found_ledger_values(ctx) == [] and _ledger_found_md(ctx) == ""
    assert _ledger_found_table(ctx) is None
