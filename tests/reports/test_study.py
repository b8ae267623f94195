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
from cascading_bandits.bounds.registry import (
    ANY_POLICY,
    Bound,
    Covers,
    Premise,
    all_bounds,
    get_bound,
    register_bound,
    unregister_bound,
)
from cascading_bandits.reports import plot_regret
from cascading_bandits.reports.cli import build_parser, main
from cascading_bandits.reports.regret_plot import (
    CURVE_POINTS,
    DEFAULT_FACTOR,
    PAPER_BOUNDS,
    applicable_bounds,
    display_name,
    parse_policy,
    policy_params,
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
    fig = plot_regret(res)  # with the registered bounds that apply (Theorems 2-4, ...)
    fig.savefig("regret.png")
    # --- end of the example ---
    assert (tmp_path / "regret.png").stat().st_size > 10_000
    assert kl.regret.shape == (5, kl.checkpoints.size) and kl.counts.shape == (5, 6)
    assert (lo <= kl.mean).all() and (kl.mean <= hi).all()
    labels = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert get_bound("theorem2").label in labels and get_bound("theorem3").label in labels


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


def _about(policy_name, params):
    """Names of the registered bounds with a constant about a policy (its name, any
    parameters), or about every consistent policy; and those covering it at ``params``."""
    about, covering = set(), set()
    for b in all_bounds():
        if b.form != "constant":
            continue
        if b.covers == ANY_POLICY or any(c.policy == policy_name for c in b.covers):
            about.add(b.name)
        if b.covers != ANY_POLICY and b.covers_policy(policy_name, params):
            covering.add(b.name)
    return about, covering


def test_bounds_at_horizon_are_the_theorems(study):
    res, sb = study
    inst = CascadeInstance(W, 2)
    at = sb.at_horizon
    assert at["theorem2"] == pytest.approx(upper.theorem2_bound(inst, N), rel=1e-12)
    assert at["theorem3"] == pytest.approx(upper.theorem3_bound(inst, N), rel=1e-9)
    eps = upper.theorem3_optimal_eps(inst, N, form="paper")
    assert f"eps = {eps:.6g} minimises the bound at n" in sb.details["theorem3"]["notes"]
    g = theorem4_general_coefficient(inst) * math.log(N)
    assert at["theorem4"] == pytest.approx(g, rel=1e-12)
    # K = 2: alpha = 1 - w(1) either way, so one curve labelled as both
    assert at["graves-lai"] == pytest.approx(at["theorem4"], rel=1e-12)
    assert "graves-lai" not in sb.curves and "theorem4" in sb.curves
    assert "general = sharp" in sb.labels["theorem4"]
    assert sb.labels["graves-lai"] == sb.labels["theorem4"] and "graves-lai" in sb.drawn
    for key, (n, v) in sb.curves.items():
        assert n[-1] == N and (np.diff(n) > 0).all() and v.shape == n.shape, key
        assert v[-1] == pytest.approx(at[key], rel=1e-12), key
    # applicability per policy, read from the registry: every bound with a constant about
    # the policy is listed, with its value where it covers the policy at its parameters
    pp = sb.per_policy
    for pol in ("cascade-klucb", "cascade-ucb1"):
        about, covering = _about(*policy_params(pol))
        assert set(pp[pol]) == about, pol
        for name in about:
            if name in covering or get_bound(name).covers == ANY_POLICY:
                assert pp[pol][name] == pytest.approx(get_bound(name)(inst, N), rel=1e-12)
            else:
                assert pp[pol][name] is None
    assert pp["cascade-klucb"]["theorem3"] == at["theorem3"]
    assert pp["cascade-klucb"].get("theorem2") is None
    assert pp["cascade-ucb1"]["theorem2"] == at["theorem2"]
    assert pp["cascade-ucb1"].get("theorem3") is None
    assert pp["oracle"] and all(v is None for v in pp["oracle"].values())
    assert any("consistent" in s for s in sb.policy_notes["oracle"])
    assert all("consistent" in why for why in sb.reasons["oracle"].values())


def test_curves_are_the_registered_bounds_on_a_log_grid(study):
    """Each curve is Bound.__call__ on log-spaced horizons up to n; by default the paper's
    bounds and those within DEFAULT_FACTOR of the largest mean regret are drawn, the others
    are named in the notes with their value at n."""
    res, sb = study
    inst = CascadeInstance(W, 2)
    for name, (n, v) in sb.curves.items():
        assert len(n) <= CURVE_POINTS + 1 and n[0] == 10
        np.testing.assert_allclose(v, get_bound(name)(inst, n), rtol=1e-12)
    top = max(r.mean_regret for r in res)
    for name, value in sb.at_horizon.items():
        near = max(value / top, top / value) <= DEFAULT_FACTOR
        if name in PAPER_BOUNDS or near:
            assert name in sb.drawn, name
        else:
            assert any(f"{name} ({value:.4g} at n = {N:,})" in x for x in sb.notes), name
    everything = applicable_bounds(res, "all")
    assert set(everything.drawn) == set(sb.at_horizon)
    assert all(not x.startswith("not drawn") for x in everything.notes)
    some = applicable_bounds(res, ["theorem3", "theorem2-lp"])
    assert set(some.curves) == {"theorem3", "theorem2-lp"}
    assert some.at_horizon == pytest.approx(sb.at_horizon)
    none = applicable_bounds(res, False)
    assert none.curves == {} and none.per_policy == sb.per_policy
    with pytest.raises(ValueError, match="unknown bound 'nope'"):
        applicable_bounds(res, ["theorem2", "nope"])
    with pytest.raises(TypeError, match="bounds must be"):
        applicable_bounds(res, 3)


def test_theorem4_on_blb_and_sharp_constant():
    inst = b_lb(8, 2, 0.3, 0.15)
    sb = applicable_bounds([_fake("cascade-ts", weights=inst.weights)])
    want = theorem4_blb_coefficient(8, 2, 0.3, 0.15) * math.log(N)
    assert sb.at_horizon["theorem4"] == pytest.approx(want, rel=1e-12)
    assert "theorem2" not in sb.curves and "theorem3" not in sb.curves
    assert any("assumed" in s for s in sb.policy_notes["cascade-ts"])
    w3 = (0.6, 0.4, 0.3, 0.1)
    sb3 = applicable_bounds([_fake("cascade-ts", weights=w3, K=3)])
    inst3 = CascadeInstance(w3, 3)
    assert sb3.at_horizon["graves-lai"] == pytest.approx(
        theorem4_sharp_coefficient(inst3) * math.log(N), rel=1e-12
    )
    assert sb3.at_horizon["graves-lai"] > sb3.at_horizon["theorem4"]
    assert "graves-lai" in sb3.curves and "theorem4" in sb3.curves


def test_parameterised_specs_get_only_their_bounds():
    sb = applicable_bounds(
        [_fake("cascade-klucb(c=0)"), _fake("cascade-ucb1(alpha=2)"), _fake("cascade-klucb(c=1)")]
    )
    assert not {b.name for b in all_bounds() if b.covers != ANY_POLICY} & set(sb.curves)
    assert sb.per_policy["cascade-klucb(c=0)"]["theorem3"] is None
    assert any("c=3" in s for s in sb.policy_notes["cascade-klucb(c=0)"])
    assert any("alpha=1.5" in s for s in sb.policy_notes["cascade-ucb1(alpha=2)"])
    assert sb.reasons["cascade-ucb1(alpha=2)"]["theorem2"] == (
        "proved for cascade-ucb1(alpha=1.5) only"
    )
    # the lower bounds about consistent policies are kept (consistency assumed, said so)
    assert sb.per_policy["cascade-klucb(c=0)"]["theorem4"] is not None
    assert any("assumed" in s for s in sb.policy_notes["cascade-klucb(c=0)"])
    sb2 = applicable_bounds([_fake("cascade-klucb(c=3)"), _fake("cascade-ucb1(alpha=1.5)")])
    assert {"theorem2", "theorem3"} <= set(sb2.curves)
    assert policy_params("cascade-klucb") == ("cascade-klucb", {"c": 3.0})
    assert policy_params("cascade-klucb(c=0)") == ("cascade-klucb", {"c": 0.0})
    assert policy_params("cascade-ts") == ("cascade-ts", {"prior": (1.0, 1.0)})
    assert policy_params("not-registered(x=2)") == ("not-registered", {"x": 2.0})


def test_no_bound_cases():
    sb = applicable_bounds([_fake("cascade-klucb", model="dbn", nu=0.7, gamma=0.9)])
    assert sb.curves == {} and all(v is None for v in sb.per_policy["cascade-klucb"].values())
    assert "no bound" in sb.notes[0] and "dbn" in sb.notes[0]
    assert all("cascade click model" in w for w in sb.reasons["cascade-klucb"].values())
    sb = applicable_bounds([_fake("cascade-ucb1", model="dbn")])  # nu = gamma = 1: cascade user
    assert "theorem2" in sb.curves and any("cascade model" in s for s in sb.notes)
    sb = applicable_bounds([_fake("cascade-ucb1", weights=(0.5, 0.3, 0.3, 0.1))])
    assert "theorem2" not in sb.curves and "theorem4" not in sb.curves
    assert "unique optimal set" in sb.notes[0] and "theorem2" in sb.notes[0]
    assert sb.reasons["cascade-ucb1"]["theorem2"] == "needs unique optimal set w(K) > w(K+1)"
    with pytest.raises(ValueError, match="one instance"):
        applicable_bounds(
            [_fake("cascade-ucb1"), _fake("cascade-ts", weights=(0.6, 0.4, 0.1, 0.1))]
        )
    with pytest.raises(ValueError, match="at least one"):
        applicable_bounds([])


# --------------------------------------------------------------------------- toy bounds
def _toy(name, covers, value, premises=(), kind="upper"):
    return Bound(
        name=name,
        title=f"Toy bound {name}",
        label=f"toy {name}",
        kind=kind,
        form="constant",
        gap="dependent",
        covers=covers,
        premises=premises,
        evaluate=lambda inst, n: value * np.log(np.asarray(n, dtype=float)) / math.log(N),
        source="registered by tests/reports/test_study.py",
        rate=f"{value} log n / log {N}",
    )


NEVER = Premise("a toy premise that never holds", lambda inst, n: False)


@pytest.fixture
def toys():
    """Four bounds registered for one test: on cascade-ucb1(alpha=1.5) near the regret, the
    same far above it, one whose premise fails, one on cascade-ts only."""
    made = [
        _toy("toy-near", (Covers("cascade-ucb1", alpha=1.5),), 20.0),
        _toy("toy-far", (Covers("cascade-ucb1", alpha=1.5),), 1e6),
        _toy("toy-failing", (Covers("cascade-ucb1", alpha=1.5),), 20.0, (NEVER,)),
        _toy("toy-ts", (Covers("cascade-ts"),), 25.0),
    ]
    for b in made:
        register_bound(b)
    yield {b.name: b for b in made}
    for b in made:
        unregister_bound(b.name)


def _legend_texts(fig):
    return [t.get_text() for t in fig.axes[0].get_legend().get_texts()]


def test_a_registered_bound_is_listed_and_drawn(toys):
    inst = CascadeInstance(W, 2)
    results = [_fake("cascade-ucb1(alpha=1.5)")]
    sb = applicable_bounds(results)
    assert sb.at_horizon["toy-near"] == pytest.approx(20.0, rel=1e-12)
    assert sb.per_policy["cascade-ucb1(alpha=1.5)"]["toy-near"] == sb.at_horizon["toy-near"]
    assert sb.labels["toy-near"] == "toy toy-near" and sb.kinds["toy-near"] == "upper"
    n, v = sb.curves["toy-near"]
    np.testing.assert_allclose(v, toys["toy-near"](inst, n), rtol=1e-12)
    fig = plot_regret(results)
    lines = {ln.get_label(): ln for ln in fig.axes[0].get_lines()}
    assert lines["toy toy-near"].get_linestyle() == "--"
    np.testing.assert_allclose(lines["toy toy-near"].get_ydata(), v, rtol=1e-12)
    # far above the regret: not drawn by default, named with its value at n; drawn on demand
    assert "toy-far" not in sb.curves and "toy toy-far" not in lines
    (note,) = [x for x in sb.notes if "toy-far" in x]
    assert note.startswith("not drawn: ") and "toy-far (1e+06 at n = 300)" in note
    assert "toy-far" in applicable_bounds(results, "all").curves
    fig = plot_regret(results, bounds=["toy-far"])
    assert {ln.get_label() for ln in fig.axes[0].get_lines()} == {
        "CascadeUCB1",  # the paper's name (display_name): alpha = 1.5 is the default
        "toy toy-far",
    }
    # at other parameters it is not applied, and the notes say which parameters it needs
    other = applicable_bounds([_fake("cascade-ucb1(alpha=2)")])
    assert "toy-near" not in other.curves
    assert other.per_policy["cascade-ucb1(alpha=2)"]["toy-near"] is None


def test_a_bound_whose_premise_fails_is_named_with_its_premise(toys):
    results = [_fake("cascade-ucb1(alpha=1.5)")]
    sb = applicable_bounds(results, "all")
    assert "toy-failing" not in sb.curves and "toy-failing" not in sb.at_horizon
    (note,) = [x for x in sb.notes if "toy-failing" in x]
    assert note == "not drawn, toy-failing: needs a toy premise that never holds"
    pol = "cascade-ucb1(alpha=1.5)"
    assert sb.per_policy[pol]["toy-failing"] is None
    assert sb.reasons[pol]["toy-failing"] == "needs a toy premise that never holds"
    assert any("toy-failing" in x and "never holds" in x for x in sb.policy_notes[pol])
    texts = " ".join(_legend_texts(plot_regret(results, sb)))
    assert "toy-failing" in texts and "never" in texts


def test_a_bound_on_another_policy_is_not_drawn_for_cascade_ucb1(toys):
    results = [_fake("cascade-ucb1")]
    sb = applicable_bounds(results, "all")
    assert "toy-ts" not in sb.curves and "toy-ts" not in sb.per_policy["cascade-ucb1"]
    assert "toy toy-ts" not in _legend_texts(plot_regret(results, bounds="all"))
    assert "toy-near" in sb.curves  # cascade-ucb1 is alpha = 1.5 by default
    both = applicable_bounds([_fake("cascade-ucb1"), _fake("cascade-ts")], "all")
    assert "toy-ts" in both.curves and "toy-ts" not in both.per_policy["cascade-ucb1"]
    assert both.per_policy["cascade-ts"]["toy-ts"] == pytest.approx(25.0, rel=1e-12)


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
    assert by_label[get_bound("theorem2").label].get_linestyle() == "--"
    assert by_label[get_bound("theorem3").label].get_linestyle() == "--"
    assert by_label[sb.labels["theorem4"]].get_linestyle() == "-."
    # one colour per upper bound, none of them a policy's; lower bounds black
    uppers = [by_label[sb.labels[k]] for k in sb.curves if sb.kinds[k] == "upper"]
    shown = {"cascade-klucb": "CascadeKL-UCB", "cascade-ucb1": "CascadeUCB1", "oracle": "oracle"}
    policy_colours = {by_label[shown[p]].get_color() for p in shown}
    assert len({ln.get_color() for ln in uppers}) == len(uppers)
    assert not {ln.get_color() for ln in uppers} & policy_colours
    assert by_label[sb.labels["theorem4"]].get_color() == "#000000"
    for pol in shown.values():
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
        plot_regret(res, bounds=3)
    with pytest.raises(ValueError, match="unknown bound"):
        plot_regret(res, bounds=["theorem2", "nope"])
    with pytest.raises(ValueError, match="at least one"):
        plot_regret([])


def test_display_names_are_the_papers_with_the_parameters_set():
    assert display_name("cascade-klucb") == "CascadeKL-UCB"
    assert display_name("cascade-klucb(c=3)") == "CascadeKL-UCB"  # the default: not repeated
    assert display_name("cascade-klucb(c=0)") == "CascadeKL-UCB (c=0)"
    assert display_name("cascade-ucb1(alpha=2)") == "CascadeUCB1 (alpha=2)"
    assert display_name("ranked-klucb") == "RankedKL-UCB"
    assert display_name("oracle") == "oracle"  # no paper name: the registered one
    assert display_name("not-a-policy(x=1)") == "not-a-policy(x=1)"


def test_zero_regret_everywhere_is_drawn_on_a_linear_axis_with_a_note():
    """K = L: every policy's regret and Theorem 4 are 0, which a log axis cannot show (it
    raised matplotlib's 'Data cannot be log-scaled'); the figure falls back to a linear axis
    and says so."""
    res = run((0.5, 0.4), K=2, policies=["oracle", "cascade-klucb"], horizon=50, runs=2)
    fig = plot_regret(res, logy=True)
    ax = fig.axes[0]
    assert ax.get_yscale() == "linear"
    r = _draw(fig)  # draws without error
    assert r is not None
    texts = " ".join(t.get_text().replace("\n", " ") for t in ax.get_legend().get_texts())
    assert "every regret and bound shown is 0: linear regret axis" in texts
    # one policy at 0 beside positive ones: log axis, that policy named off the axis
    res = run(W, K=2, policies=["oracle", "cascade-klucb"], horizon=N, runs=2)
    fig = plot_regret(res, logy=True)
    assert fig.axes[0].get_yscale() == "log"
    labels = [ln.get_label() for ln in fig.axes[0].get_lines()]
    assert "oracle (regret 0, off the log axis)" in labels and "CascadeKL-UCB" in labels


def test_plot_one_run_and_dbn_note():
    one = run(W, K=2, policies="cascade-ts", model="dbn", nu=0.7, horizon=200, runs=1)
    fig = plot_regret(one)
    ax = fig.axes[0]
    assert not ax.collections  # no band for one run
    # notes are wrapped into lines; read them as one text
    texts = " ".join(t.get_text().replace("\n", " ") for t in ax.get_legend().get_texts())
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
        about, covering = _about(r["policy_name"], r["policy_params"])
        assert set(r["bounds"]) == about and covering <= about
        assert all(r["bounds"][k] is not None for k in covering)
        assert set(r["bounds_not_applied"]) == {k for k, v in r["bounds"].items() if v is None}
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
    drawn = doc["bounds"]["drawn"]
    assert {"theorem2", "theorem3", "theorem4", "graves-lai"} <= set(drawn)
    assert "graves-lai" not in doc["bounds"]["curves"]  # equal to Theorem 4 here: drawn once
    assert set(doc["bounds"]["curves"]) <= set(drawn) <= set(doc["bounds"]["at_horizon"])
    assert set(doc["bounds"]["registry"]) == set(doc["bounds"]["at_horizon"])
    top = max(r["mean_regret"] for r in rows)
    for k, v in doc["bounds"]["at_horizon"].items():
        near = max(v / top, top / v) <= 30
        assert (k in drawn) == (near or k in ("theorem2", "theorem3", "theorem4")), k
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
    assert row["bounds"]["theorem4"] == pytest.approx(want, rel=1e-12)
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
    why = doc["policies"][0]["bounds_not_applied"]["theorem3"]
    assert why == "needs the cascade click model (got dbn)"


def test_cli_bound_option_and_figure_size(tmp_path, capsys):
    """--bound draws the bounds named; the PNG is 7 x 4 in at the report's 300 dpi, its legend
    right of the axes and narrower than 40% of the figure."""
    from PIL import Image

    out = tmp_path / "s"
    argv = [*ARGS, "--policy", "cascade-klucb,cascade-ucb1", "--out", str(out)]
    code, text, err = _cli(capsys, *argv, "--bound", "theorem3-lp,theorem4")
    assert code == 0, err
    doc = json.loads((out / "summary.json").read_text())
    assert set(doc["bounds"]["curves"]) == {"theorem3-lp", "theorem4"}
    assert "theorem2" in doc["policies"][1]["bounds"]  # the summary keeps every bound
    assert "*theorem3-lp" in text and "*theorem4" in text and "*theorem2 " not in text
    assert Image.open(out / "regret.png").size == (2100, 1200)
    code, _, err = _cli(capsys, *argv, "--bound", "none", "--overwrite")
    assert code == 0 and json.loads((out / "summary.json").read_text())["bounds"]["curves"] == {}
    code, _, err = _cli(capsys, *argv, "--bound", "theorem2,nope")
    assert code == 2 and "unknown bound 'nope'" in err and "Traceback" not in err
    # the figure plot_regret makes: legend outside the axes, well under half the width
    res = run(W, K=2, policies=["cascade-klucb", "cascade-ucb1"], horizon=N, runs=2)
    fig = plot_regret(res)
    r = _draw(fig)
    ax = fig.axes[0]
    leg = ax.get_legend().get_window_extent(r)
    assert leg.x0 >= ax.get_window_extent(r).x1 and leg.x1 <= fig.bbox.x1
    assert leg.width < 0.4 * fig.bbox.width
    assert tuple(fig.get_size_inches()) == (7.0, 4.0) and fig.dpi == 300


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
