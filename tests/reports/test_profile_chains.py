"""`cascading profile --chain paper|binomial` and the printing and drawing of both chains
(reports/cli/profile.py, reports.profile_report), and the binomial chain in the profile grid."""

import json
import re

import pytest

from cascading_bandits.bounds.instance import CascadeInstance
from cascading_bandits.bounds.profile import binomial_chain, proof_chain, proof_thresholds
from cascading_bandits.bounds.sharp import binomial_bound
from cascading_bandits.reports import profile_report as P
from cascading_bandits.reports.cli import main
from cascading_bandits.simulate.counters import run_counters
from cascading_bandits.simulate.experiments import Cell

W = (0.5, 0.4, 0.1, 0.1)


@pytest.fixture(scope="module", params=["cascade-ucb1", "cascade-klucb"])
def both(request):
    """The paper's chain and the binomial chain of the same counted runs."""
    pol = request.param
    cell = Cell("t", "chains", "cascade", W, 2, pol, "best-first", 300, 4)
    tau, eps = proof_thresholds(W, 2, pol, 300)
    pc = run_counters(cell, 5, tau, threads=1)
    return proof_chain(pc, eps=eps), binomial_chain(pc)


def test_chain_kind_reads_the_key_or_the_parts(both):
    paper, binom = both
    assert P.chain_kind(paper) == "paper" and P.chain_kind(binom) == "binomial"
    assert P.chain_kind({**paper, "chain": "binomial"}) == "binomial"
    with pytest.raises(ValueError, match="chain"):
        P.chain_kind({**paper, "chain": "other"})


def test_text_markdown_and_waterfall_of_both_chains(both):
    paper, binom = both
    for ch, word, parts in (
        (paper, "the paper's chain", "bad steps"),
        (binom, "the binomial chain", "A-part"),
    ):
        txt = P.chain_text(ch)
        lines = txt.splitlines()
        assert word in lines[0]
        assert len(lines) == len(ch["links"]) + 3 and parts in lines[-1]
        for x in ch["links"][1:]:
            assert f"{x['ratio']:.3f} [{x['ratio_lo']:.3f}, {x['ratio_hi']:.3f}]" in txt
        md = P.chain_markdown(ch)
        assert md.count("\n") == len(ch["links"]) + 1
        assert all(f"| {x['name']} | {x['step']} |" in md for x in ch["links"])
        fig = P.waterfall_figure(ch)
        ax = fig.axes[0]
        assert len(ax.patches) == len(ch["links"]) and word in fig.get_suptitle()
    # the binomial chain's last line shows its own parts, none of the paper's
    p = binom["parts"]
    last = P.chain_text(binom).splitlines()[-1]
    assert f"{p['a_part']:.3g}" in last and f"{p['b_part']:,.1f}" in last
    assert "bad steps" not in last and "eps" not in P.chain_text(binom).splitlines()[0]


def test_waterfall_writes_every_link_in_mathtext_without_overlap(both):
    """Every link and step of both chains has its label (no raw ``E_t[R_t]`` or
    ``C2/n^beta``); the labels parse as mathtext; drawn, no two texts of the figure overlap
    and none leaves the figure."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.mathtext import MathTextParser

    parser = MathTextParser("agg")
    for ch in both:
        for x in ch["links"]:
            for raw, table in ((x["name"], P.LINK_LABELS), (x["step"], P.STEP_LABELS)):
                label = table.get(raw, raw)
                # written notation (E_t, T_{t-1}, n^beta, <=) must have a label
                assert raw in table or not re.search(r"[A-Za-z]_(\{|[a-z0-9]\b)|\^|<=", raw), raw
                for i, part in enumerate(label.split("$")):
                    if i % 2:  # inside $...$
                        parser.parse(f"${part}$", dpi=72)
        fig = P.waterfall_figure(ch)
        FigureCanvasAgg(fig).draw()
        r = fig.canvas.get_renderer()
        ax = fig.axes[0]
        lo, hi = ax.get_xlim()
        ticks = [t for t in ax.get_xticklabels() if lo <= t.get_position()[0] <= hi]
        texts = [t for t in ax.get_yticklabels() + ticks if t.get_text()]
        texts += [t for t in ax.texts] + [ax.xaxis.label, fig._suptitle]
        boxes = [t.get_window_extent(r) for t in texts]
        page = fig.bbox
        for t, b in zip(texts, boxes, strict=True):
            assert page.x0 - 1 <= b.x0 and b.x1 <= page.x1 + 1, t.get_text()
            assert page.y0 - 1 <= b.y0 and b.y1 <= page.y1 + 1, t.get_text()
        for i in range(len(boxes)):
            for j in range(i):
                assert not boxes[i].overlaps(boxes[j]), (texts[i].get_text(), texts[j].get_text())


def _cli(args, capsys):
    rc = main(args)
    cap = capsys.readouterr()
    return rc, cap.out, cap.err


@pytest.mark.parametrize("policy,param", [("cascade-ucb1", 1.5), ("cascade-klucb", 3.0)])
def test_profile_cli_binomial_chain(tmp_path, capsys, policy, param):
    args = ["profile", "--weights", ",".join(map(str, W)), "--K", "2", "--policy", policy]
    args += ["--runs", "3", "--horizon", "300", "--chain", "binomial"]
    rc, out, _ = _cli(args + ["--json", "--out", str(tmp_path)], capsys)
    assert rc == 0
    ch = json.loads(out)
    assert ch["chain"] == "binomial" and ch["mismatches"] == 0 and len(ch["links"]) == 4
    assert ch["links"][-1]["mean"] == pytest.approx(
        binomial_bound(CascadeInstance(W, 2), 300, policy, param), rel=1e-12
    )
    stem = f"{policy}-best-first-binomial"
    for name in (f"{stem}.json", f"{stem}-waterfall.png", f"{stem}-waterfall.pdf"):
        assert (tmp_path / name).stat().st_size > 0
    assert json.loads((tmp_path / f"{stem}.json").read_text()) == ch
    # printed as text: the same runs, the same chain
    rc, out, _ = _cli(args, capsys)
    assert rc == 0 and out.splitlines()[0].endswith("the binomial chain")
    assert f"{ch['links'][-1]['mean']:>11,.1f}" in out


def test_profile_cli_default_is_the_paper_chain_and_refuses_eps_with_binomial(tmp_path, capsys):
    base = ["profile", "--weights", "0.5,0.4,0.1", "--K", "1", "--policy", "cascade-klucb"]
    base += ["--runs", "2", "--horizon", "100"]
    rc, out, _ = _cli(base + ["--json"], capsys)
    ch = json.loads(out)
    assert rc == 0 and ch["chain"] == "paper" and len(ch["links"]) == 7 and ch["eps"] > 0
    for extra, word in ((["--eps", "0.1"], "--eps"), (["--form", "proof"], "--form")):
        rc, out, err = _cli(base + ["--chain", "binomial"] + extra, capsys)
        assert rc == 2 and word in err and "binomial chain has no eps" in err and out == ""
    rc, _, err = _cli(base + ["--chain", "other"], capsys)
    assert rc == 2 and "--chain" in err


def test_profile_cell_both_uses_one_count(monkeypatch):
    import cascading_bandits.simulate.counters as C

    calls = []
    real = C.run_counters
    monkeypatch.setattr(C, "run_counters", lambda *a, **k: calls.append(1) or real(*a, **k))
    cell = Cell("t", "both", "cascade", W, 2, "cascade-ucb1", "best-first", 200, 3)
    ch = P.profile_cell(cell, 1, chain="both", threads=1)
    assert len(calls) == 1
    b = ch["binomial"]
    assert ch["chain"] == "paper" and b["chain"] == "binomial"
    assert b["links"][0]["mean"] == ch["links"][0]["mean"]  # the same runs' regret
    assert (b["instance"], b["seed"], b["mismatches"]) == (ch["instance"], 1, 0)
    with pytest.raises(ValueError, match="chain"):
        P.profile_cell(cell, 1, chain="neither")


def test_profile_grid_stores_both_chains_and_recounts_old_ones(tmp_path, monkeypatch):
    kw = dict(
        instances=((4, 1, 0.5, 0.3),), policies=("cascade-ucb1",), orders=("best-first",),
        runs=2, horizon=150, out=tmp_path, threads=1,
    )  # fmt: skip
    (ch,) = P.profile_grid(**kw)
    assert ch["chain"] == "paper" and ch["binomial"]["chain"] == "binomial"
    (path,) = tmp_path.glob("*.json")
    assert json.loads(path.read_text()) == json.loads(json.dumps(ch))
    calls = []
    real = P.profile_cell
    monkeypatch.setattr(P, "profile_cell", lambda *a, **k: calls.append(k) or real(*a, **k))
    assert P.profile_grid(**kw) == [json.loads(path.read_text())] and calls == []
    old = dict(ch)
    del old["binomial"]  # a chain stored before the binomial chain existed
    path.write_text(json.dumps(old))
    (again,) = P.profile_grid(**kw)
    assert [k.get("chain") for k in calls] == ["both"]
    assert "binomial" in json.loads(path.read_text())
    assert again["binomial"]["links"][-1]["mean"] == ch["binomial"]["links"][-1]["mean"]


# ---------------------------------------------------------------------------
# the link ratios' bootstrap (bounds.profile.ratio_interval): the pairs of a run resampled
# ---------------------------------------------------------------------------
def test_the_ratio_bootstrap_resamples_the_denominator_with_the_numerator():
    """All the variance in the denominator: the interval is as wide as the delta method says
    (zero if only the numerator were resampled); numerator proportional to the denominator
    run by run: every resample gives the same ratio (wide if the two were resampled apart)."""
    import numpy as np

    from cascading_bandits.bounds.profile import ratio_interval

    rng = np.random.default_rng(7)
    den = rng.uniform(50.0, 150.0, 60)
    r, lo, hi = ratio_interval(np.full(60, 100.0), den, resamples=4000)
    assert r == pytest.approx(100.0 / den.mean(), rel=1e-12)
    # delta method: se(100 / mean(den)) = r * sd(den) / (sqrt(runs) mean(den))
    se = r * den.std(ddof=1) / (np.sqrt(den.size) * den.mean())
    assert lo < r < hi and (hi - lo) == pytest.approx(2 * 1.96 * se, rel=0.2)
    r, lo, hi = ratio_interval(2.5 * den, den)
    assert (r, lo, hi) == pytest.approx((2.5, 2.5, 2.5), rel=1e-12)
    # and the numerator's own variance counts too
    r, lo, hi = ratio_interval(den, np.full(60, 100.0), resamples=4000)
    se = den.std(ddof=1) / (np.sqrt(den.size) * 100.0)
    assert (hi - lo) == pytest.approx(2 * 1.96 * se, rel=0.2)


def test_profile_links_carry_the_paired_interval(both):
    """Each link's ratio and interval are ratio_interval of its values over the previous
    link's, on the same runs."""
    for ch in both:
        for x in ch["links"][1:]:
            assert x["ratio_lo"] <= x["ratio"] <= x["ratio_hi"]
            assert x["ratio"] == pytest.approx(
                x["mean"] / ch["links"][ch["links"].index(x) - 1]["mean"], rel=1e-12
            )
