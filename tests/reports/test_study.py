"""reports.plot_regret, the bounds that apply to a study, and ``cascading study``."""

import json
import math

import numpy as np
import pytest
from matplotlib.figure import Figure
from scipy import stats

import cascading_bandits.bounds.upper as upper
from cascading_bandits.bounds.instance import CascadeInstance, b_lb
from cascading_bandits.bounds.lower import (
    theorem4_blb_coefficient,
    theorem4_general_coefficient,
    theorem4_sharp_coefficient,
)
from cascading_bandits.reports import plot_regret
from cascading_bandits.reports.cli import build_parser, main
from cascading_bandits.reports.regret_plot import (
    BOUND_KEYS,
    _theorem3_over,
    applicable_bounds,
    parse_policy,
)
from cascading_bandits.simulate import run
from cascading_bandits.simulate.api import split_policies
from cascading_bandits.simulate.results import CellResult

W = (0.5, 0.4, 0.1, 0.1)
N = 300


@pytest.fixture(scope="module")
def study():
    res = run(W, K=2, policies=["cascade-klucb", "cascade-ucb1", "oracle"], horizon=N, runs=3)
    return res, applicable_bounds(res)


def _fake(policy, weights=W, K=2, model="cascade", nu=1.0, gamma=1.0, runs=2, c=3.0):
    """A CellResult with any policy string (specs the engine of this tree may not know yet)."""
    cp = np.array([1, 10, N])
    reg = np.tile(np.array([0.1, 1.0, 5.0]), (runs, 1)) + np.arange(runs)[:, None]
    params = dict(
        model=model, weights=list(weights), K=K, policy=policy, nu=nu, gamma=gamma, c=c, L=4
    )
    return CellResult(params, cp, reg, np.ones((runs, len(weights)), dtype=np.int64))


def test_readme_example(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    # --- the README's example, verbatim ---
    from cascading_bandits.reports import plot_regret
    from cascading_bandits.simulate import run

    res = run(
        [0.5, 0.4, 0.3, 0.1, 0.1, 0.1],
        K=2,
        policies=["cascade-klucb", "cascade-ucb1"],
        horizon=5000,
        runs=5,
        seed=7,
    )
    kl = res["cascade-klucb"]
    print(kl.mean_regret, kl.final_stderr)  # regret at n = 5000: mean, standard error
    print(kl.regret.shape, kl.counts.shape)  # (runs, checkpoints), (runs, L)
    lo, hi = kl.band()  # 95% Student-t band of the mean at each checkpoint
    fig = plot_regret(res)  # with Theorems 2, 3 and 4 (the bounds that apply)
    fig.savefig("regret.png")
    # --- end of the example ---
    assert (tmp_path / "regret.png").stat().st_size > 10_000
    assert kl.regret.shape == (5, kl.checkpoints.size) and kl.counts.shape == (5, 6)
    assert (lo <= kl.mean).all() and (kl.mean <= hi).all()
    labels = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert BOUND_KEYS["theorem2"] in labels and BOUND_KEYS["theorem3"] in labels


def test_parse_policy():
    assert parse_policy("cascade-klucb") == ("cascade-klucb", {})
    assert parse_policy("cascade-klucb(c=0)") == ("cascade-klucb", {"c": 0.0})
    assert parse_policy(" cascade-ucb1( alpha = 1.5 , x=y) ") == (
        "cascade-ucb1",
        {"alpha": 1.5, "x": "y"},
    )
    with pytest.raises(ValueError, match="key=value"):
        parse_policy("cascade-ucb1(1.5)")
    with pytest.raises(ValueError, match="policy"):
        parse_policy("a b")
    with pytest.raises(TypeError, match="policy"):
        parse_policy(3)
    assert split_policies("a,b(x=1,y=2), c") == ["a", "b(x=1,y=2)", "c"]
    with pytest.raises(ValueError, match="unbalanced"):
        split_policies("a(x=1")


def test_bounds_at_horizon_are_the_theorems(study):
    res, sb = study
    inst = CascadeInstance(W, 2)
    at = sb.at_horizon
    assert at["theorem2"] == pytest.approx(upper.theorem2_bound(inst, N), rel=1e-12)
    assert at["theorem3"] == pytest.approx(upper.theorem3_bound(inst, N), rel=1e-9)
    assert at["theorem3_eps"] == pytest.approx(upper.theorem3_optimal_eps(inst, N), rel=1e-6)
    g = theorem4_general_coefficient(inst) * math.log(N)
    assert at["theorem4_general"] == pytest.approx(g, rel=1e-12)
    # K = 2: alpha = 1 - w(1) either way, so one curve labelled as both
    assert at["theorem4_sharp"] == at["theorem4_general"] and "theorem4_sharp" not in sb.curves
    assert "general = sharp" in sb.labels["theorem4_general"]
    for key, (n, v) in sb.curves.items():
        assert n[-1] == N and (np.diff(n) > 0).all() and v.shape == n.shape, key
    # applicability per policy
    pp = sb.per_policy
    assert (
        pp["cascade-klucb"]["theorem3"] == at["theorem3"]
        and pp["cascade-klucb"]["theorem2"] is None
    )
    assert (
        pp["cascade-ucb1"]["theorem2"] == at["theorem2"] and pp["cascade-ucb1"]["theorem3"] is None
    )
    assert all(v is None for v in pp["oracle"].values())
    assert any("consistent" in s for s in sb.policy_notes["oracle"])


def test_theorem3_helper_prefers_the_fast_curve(monkeypatch):
    inst = CascadeInstance(W, 2)
    ns = np.array([10, 100, 300])
    slow = _theorem3_over(inst, ns)
    np.testing.assert_allclose(slow, [upper.theorem3_bound(inst, int(n)) for n in ns], rtol=0)
    seen = {}

    def fake_curve(instance, horizons, *, eps=None, form="paper"):
        seen["args"] = (instance, list(horizons), eps, form)
        return np.asarray(horizons, dtype=float) * 2

    monkeypatch.setattr(upper, "theorem3_curve", fake_curve, raising=False)
    np.testing.assert_array_equal(_theorem3_over(inst, ns), ns * 2.0)
    assert seen["args"] == (inst, [10, 100, 300], None, "paper")


def test_theorem4_on_blb_and_sharp_constant():
    inst = b_lb(8, 2, 0.3, 0.15)
    sb = applicable_bounds([_fake("cascade-ts", weights=inst.weights)])
    want = theorem4_blb_coefficient(8, 2, 0.3, 0.15) * math.log(N)
    assert sb.at_horizon["theorem4_general"] == pytest.approx(want, rel=1e-12)
    assert "theorem2" not in sb.curves and "theorem3" not in sb.curves
    assert any("assumed" in s for s in sb.policy_notes["cascade-ts"])
    w3 = (0.6, 0.4, 0.3, 0.1)
    sb3 = applicable_bounds([_fake("cascade-ts", weights=w3, K=3)])
    inst3 = CascadeInstance(w3, 3)
    assert sb3.at_horizon["theorem4_sharp"] == pytest.approx(
        theorem4_sharp_coefficient(inst3) * math.log(N), rel=1e-12
    )
    assert sb3.at_horizon["theorem4_sharp"] > sb3.at_horizon["theorem4_general"]
    assert "theorem4_sharp" in sb3.curves


def test_parameterised_specs_get_only_their_bounds():
    sb = applicable_bounds(
        [_fake("cascade-klucb(c=0)"), _fake("cascade-ucb1(alpha=2)"), _fake("cascade-klucb", c=1.0)]
    )
    assert "theorem2" not in sb.curves and "theorem3" not in sb.curves
    assert sb.per_policy["cascade-klucb(c=0)"]["theorem3"] is None
    assert any("c = 3" in s for s in sb.policy_notes["cascade-klucb(c=0)"])
    assert any("alpha = 1.5" in s for s in sb.policy_notes["cascade-ucb1(alpha=2)"])
    # Theorem 4 is kept (consistency assumed, said so)
    assert sb.per_policy["cascade-klucb(c=0)"]["theorem4_general"] is not None
    sb2 = applicable_bounds([_fake("cascade-klucb(c=3)"), _fake("cascade-ucb1(alpha=1.5)")])
    assert {"theorem2", "theorem3"} <= set(sb2.curves)


def test_no_bound_cases():
    sb = applicable_bounds([_fake("cascade-klucb", model="dbn", nu=0.7, gamma=0.9)])
    assert sb.curves == {} and all(v is None for v in sb.per_policy["cascade-klucb"].values())
    assert "no bound" in sb.notes[0] and "dbn" in sb.notes[0]
    sb = applicable_bounds([_fake("cascade-ucb1", model="dbn")])  # nu = gamma = 1: cascade user
    assert "theorem2" in sb.curves and any("cascade model" in s for s in sb.notes)
    sb = applicable_bounds([_fake("cascade-ucb1", weights=(0.5, 0.3, 0.3, 0.1))])
    assert sb.curves == {} and "not unique" in sb.notes[0]
    with pytest.raises(ValueError, match="one instance"):
        applicable_bounds(
            [_fake("cascade-ucb1"), _fake("cascade-ts", weights=(0.6, 0.4, 0.1, 0.1))]
        )
    with pytest.raises(ValueError, match="at least one"):
        applicable_bounds([])


def _draw(fig):
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    return canvas.get_renderer()


def test_plot_lines_styles_band_and_legend(study):
    res, sb = study
    fig = plot_regret(res, sb)
    assert isinstance(fig, Figure)
    ax = fig.axes[0]
    assert ax.get_xscale() == "log" and ax.get_yscale() == "linear"
    by_label = {ln.get_label(): ln for ln in ax.get_lines()}
    assert by_label[BOUND_KEYS["theorem2"]].get_linestyle() == "--"
    assert by_label[BOUND_KEYS["theorem3"]].get_linestyle() == "--"
    assert by_label[sb.labels["theorem4_general"]].get_linestyle() == "-."
    for pol in ("cascade-klucb", "cascade-ucb1", "oracle"):
        assert by_label[pol].get_linestyle() == "-"
    # the band is mean -+ t_{0.975, runs-1} se; at the horizon:
    kl = res["cascade-klucb"]
    verts = ax.collections[0].get_paths()[0].vertices
    ys = np.sort(verts[np.isclose(verts[:, 0], N), 1])
    q = stats.t.ppf(0.975, 2)
    assert ys.min() == pytest.approx(kl.mean[-1] - q * kl.stderr[-1], rel=1e-12)
    assert ys.max() == pytest.approx(kl.mean[-1] + q * kl.stderr[-1], rel=1e-12)
    # the legend lies right of the axes: it covers no curve
    r = _draw(fig)
    leg = ax.get_legend().get_window_extent(r)
    box = ax.get_window_extent(r)
    assert leg.x0 >= box.x1
    texts = " ".join(t.get_text() for t in ax.get_legend().get_texts())
    assert "95% Student-t" in texts


def test_plot_options_and_errors(study):
    res, _ = study
    fig = plot_regret(res, bounds=False, logx=False, logy=True)
    ax = fig.axes[0]
    assert ax.get_xscale() == "linear" and ax.get_yscale() == "log"
    assert not [ln for ln in ax.get_lines() if ln.get_linestyle() != "-"]
    labels = [ln.get_label() for ln in ax.get_lines()]
    assert "oracle (regret 0, off the log axis)" in labels
    fig = plot_regret(res, bounds={"mine": (np.array([10, N]), np.array([1.0, 2.0]))})
    assert "mine" in [ln.get_label() for ln in fig.axes[0].get_lines()]
    with pytest.raises(ValueError, match="level"):
        plot_regret(res, False, level=1.5)
    with pytest.raises(TypeError, match="bounds"):
        plot_regret(res, bounds="all")
    with pytest.raises(ValueError, match="at least one"):
        plot_regret([])


def test_plot_one_run_and_dbn_note():
    one = run(W, K=2, policies="cascade-ts", model="dbn", nu=0.7, horizon=200, runs=1)
    fig = plot_regret(one)
    ax = fig.axes[0]
    assert not ax.collections  # no band for one run
    texts = " ".join(t.get_text() for t in ax.get_legend().get_texts())
    assert "1 run: no band" in texts and "no bound" in texts


# --------------------------------------------------------------------------- CLI
ARGS = ["study", "--weights", "0.5,0.4,0.1,0.1", "--K", "2", "--runs", "3", "--horizon", "300"]


def _cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_registered():
    p = build_parser()
    assert "study" in p._subparsers._group_actions[0].choices


def test_cli_json_files_and_resume(tmp_path, capsys):
    out = tmp_path / "s"
    argv = [*ARGS, "--policy", "cascade-klucb,cascade-ucb1", "--json", "--out", str(out)]
    code, text, err = _cli(capsys, *argv)
    assert code == 0, err
    rows = json.loads(text)
    assert [r["policy"] for r in rows] == ["cascade-klucb", "cascade-ucb1"]
    for r in rows:
        for key in ("policy", "weights", "K", "seed", "runs", "horizon", "mean_regret", "stderr"):
            assert r[key] is not None, key
        assert r["weights"] == [0.5, 0.4, 0.1, 0.1] and r["K"] == 2 and r["seed"] == 0
        assert r["runs"] == 3 and r["horizon"] == 300 and r["reused"] is False
        assert set(BOUND_KEYS) <= set(r["bounds"])
    assert rows[0]["policy_params"] == {"c": 3.0} and rows[1]["policy_params"] == {"alpha": 1.5}
    inst = CascadeInstance(W, 2)
    assert rows[1]["bounds"]["theorem2"] == pytest.approx(upper.theorem2_bound(inst, 300))
    assert rows[0]["bounds"]["theorem3"] == pytest.approx(upper.theorem3_bound(inst, 300))
    for name in ("regret.png", "regret.pdf", "summary.json"):
        assert (out / name).stat().st_size > 1000
    summary = (out / "summary.json").read_text()
    assert "NaN" not in summary
    doc = json.loads(summary)
    assert doc["policies"] == rows and len(doc["cells"]) == 2
    assert doc["command"] is None  # called from Python, not as `cascading study`
    assert set(doc["bounds"]["curves"]) == {"theorem2", "theorem3", "theorem4_general"}
    # same study again: cells reused, same numbers
    code, text2, err = _cli(capsys, *argv)
    rows2 = json.loads(text2)
    assert code == 0 and all(r["reused"] for r in rows2)
    assert [r["mean_regret"] for r in rows2] == [r["mean_regret"] for r in rows]
    # another study in the same directory is refused, nothing changed
    before = (out / "summary.json").read_bytes()
    code, _, err = _cli(capsys, *argv[:-2], "--seed", "1", "--out", str(out))
    assert code == 2 and "another study" in err and "Traceback" not in err
    assert (out / "summary.json").read_bytes() == before
    code, _, err = _cli(capsys, *argv[:-2], "--seed", "1", "--out", str(out), "--overwrite")
    assert code == 0, err
    assert json.loads((out / "summary.json").read_text())["policies"][0]["seed"] == 1


def test_cli_text_one_run_blb_and_dbn(tmp_path, capsys):
    code, text, err = _cli(
        capsys,
        *["study", "--L", "6", "--K", "2", "--p", "0.3", "--delta", "0.15", "--runs", "1"],
        *["--horizon", "200", "--policy", "cascade-ts", "--out", str(tmp_path / "a"), "--json"],
    )
    assert code == 0, err
    (row,) = json.loads(text)
    assert row["weights"] == list(b_lb(6, 2, 0.3, 0.15).weights)
    assert row["stderr"] is None and row["ci95"] is None
    assert any("one run" in n for n in row["notes"])
    want = theorem4_blb_coefficient(6, 2, 0.3, 0.15) * math.log(200)
    assert row["bounds"]["theorem4_general"] == pytest.approx(want, rel=1e-12)
    code, text, err = _cli(
        capsys,
        *ARGS,
        *["--model", "dbn", "--nu", "0.7", "--gamma", "0.9", "--policy", "cascade-klucb"],
        *["--out", str(tmp_path / "b")],
    )
    assert code == 0, err
    assert "note: no bound" in text and "cascade-klucb" in text
    doc = json.loads((tmp_path / "b" / "summary.json").read_text())
    assert doc["bounds"]["curves"] == {} and doc["policies"][0]["bounds"]["theorem3"] is None


@pytest.mark.parametrize(
    "extra, match",
    [
        (["--K", "5"], "K"),
        (["--weights", "0.5,1.5"], "weights"),
        (["--nu", "0.5"], "dbn"),
        (["--horizon", "0.5"], "horizon"),
        (["--policy", "cascade-nope"], "policy"),
        (["--policy", ""], "policy"),
        (["--L", "8"], "either --weights"),
        (["--runs", "0"], "runs"),
    ],
)
def test_cli_rejects_bad_input(tmp_path, capsys, extra, match):
    code, _, err = _cli(capsys, *ARGS, *extra, "--out", str(tmp_path / "x"))
    assert code == 2 and match in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1
    assert not (tmp_path / "x" / "summary.json").exists()
