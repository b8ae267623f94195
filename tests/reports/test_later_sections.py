"""reports.later_sections: the stored searches' section, from the project's own search results."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path
from types import SimpleNamespace

from cascading_bandits.reports.later_sections import _search_md, stored_searches

DOCS = Path(__file__).resolve().parents[2] / "docs" / "search"


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
