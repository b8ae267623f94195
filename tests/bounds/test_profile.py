"""bounds.profile: thresholds, the counting LP, the chain's links and the asymptotic factors."""

import math
from types import SimpleNamespace

import numpy as np
import pytest
from scipy.optimize import linprog

from cascading_bandits.bounds.instance import CascadeInstance
from cascading_bandits.bounds.kl import kl_mp
from cascading_bandits.bounds.lower import theorem4_blb_coefficient
from cascading_bandits.bounds.profile import (
    asymptotic_factors,
    proof_chain,
    proof_thresholds,
    ratio_interval,
)
from cascading_bandits.bounds.upper import (
    theorem2_bound,
    theorem2_prepeeling_coefficient,
    theorem3_bound,
    theorem3_prepeeling_coefficient,
)

W, K = (0.5, 0.1, 0.35, 0.2, 0.05, 0.3), 3  # optimal 0.5, 0.35, 0.3; distinct gaps


def test_thresholds_are_the_proofs():
    n = 10_000
    tau, eps = proof_thresholds(W, K, "cascade-ucb1", n)
    gaps = CascadeInstance(W, K).gaps()
    np.testing.assert_allclose(tau, 6 * math.log(n) / gaps**2, rtol=1e-14)
    assert eps is None
    tau, eps = proof_thresholds(W, K, "cascade-klucb", n, eps=0.5)
    s = sorted(W, reverse=True)
    want = [
        [1.5 * (math.log(n) + 3 * math.log(math.log(n))) / float(kl_mp(a, b)) for b in s[:K]]
        for a in s[K:]
    ]
    np.testing.assert_allclose(tau, want, rtol=1e-13)
    assert eps == 0.5


@pytest.mark.parametrize("policy", ["cascade-ucb1", "cascade-klucb"])
def test_counting_lp_is_the_prepeeling_value(policy):
    """max{sum Delta m : m >= 0, sum_{j<=k} m_j <= tau_k for all k} per item (linprog) is the
    pre-peeling sum; the LP as printed (only m <= tau, sum m <= tau_K) is larger here (caveat
    peeling-lp-constraints), so the chain's counting link uses the nested constraints."""
    n = 5000
    tau, eps = proof_thresholds(W, K, policy, n, eps=0.3)
    gaps = CascadeInstance(W, K).gaps()
    total = printed = 0.0
    for d, t in zip(gaps, tau, strict=True):
        res = linprog(-d, A_ub=np.tril(np.ones((K, K))), b_ub=t, bounds=[(0, None)] * K)
        total += -res.fun
        res = linprog(
            -d, A_ub=np.ones((1, K)), b_ub=[t[-1]], bounds=list(zip([0] * K, t, strict=True))
        )
        printed += -res.fun
    inst = CascadeInstance(W, K)
    if policy == "cascade-ucb1":
        want = 6 * math.log(n) * theorem2_prepeeling_coefficient(inst)
    else:
        want = (
            1.3 * (math.log(n) + 3 * math.log(math.log(n))) * theorem3_prepeeling_coefficient(inst)
        )
    assert total == pytest.approx(want, rel=1e-9)
    assert printed > total * 1.01


def _fake_counters(policy, n, runs=6, seed=0, eps=None):
    """Counters-shaped data: any numbers obeying the pathwise relations of the counts."""
    rng = np.random.default_rng(seed)
    tau, _ = proof_thresholds(W, K, policy, n, eps)
    L = len(W)
    G = rng.integers(0, 50, size=(runs, L - K, K))
    Gg = G - rng.integers(0, 2, size=G.shape).clip(max=G)
    M = np.minimum(G, np.floor(tau).astype(int))
    Mg = np.minimum(Gg, M)
    Mbg = Gg - Mg
    regret = rng.uniform(50, 60, runs)
    return SimpleNamespace(
        weights=W,
        K=K,
        policy=policy,
        order="best-first",
        horizon=n,
        tau=tau,
        G=G,
        G_good=Gg,
        M=M,
        M_good=Mg,
        Mbar_good=Mbg,
        regret=regret,
        regret_bad=rng.uniform(0, 1, runs),
        bad_steps=rng.integers(1, 5, runs),
        thm1_upper_good=regret * 1.1,
        thm1_exact_good=regret,
    )


@pytest.mark.parametrize("policy", ["cascade-ucb1", "cascade-klucb"])
def test_chain_ends_at_the_theorem_and_pathwise_links_hold(policy):
    n = 20_000
    pc = _fake_counters(policy, n)
    ch = proof_chain(pc)
    links = ch["links"]
    inst = CascadeInstance(W, K)
    final = theorem2_bound(inst, n) if policy == "cascade-ucb1" else theorem3_bound(inst, n)
    assert links[-1]["mean"] == pytest.approx(final, rel=1e-9)
    assert links[0]["mean"] == pytest.approx(pc.regret.mean())
    # the links that hold run by run: Theorem 1 sum -> split at tau (-> counting)
    assert links[2]["mean"] >= links[1]["mean"]
    assert links[3]["mean"] >= links[2]["mean"]
    assert ch["total_factor"] == pytest.approx(math.prod(x["ratio"] for x in links[1:]))
    for x in links[1:]:
        assert x["ratio_lo"] <= x["ratio"] <= x["ratio_hi"]


def test_chain_rejects_other_thresholds():
    pc = _fake_counters("cascade-klucb", 20_000, eps=0.5)
    with pytest.raises(ValueError, match="tau"):
        proof_chain(pc)  # eps defaults to the optimum, not 0.5
    assert proof_chain(pc, eps=0.5)["eps"] == 0.5
    pc.policy = "cascade-ts"
    with pytest.raises(ValueError, match="policy"):
        proof_chain(pc)


def test_ratio_interval():
    rng = np.random.default_rng(1)
    num, den = rng.normal(10, 1, 400), rng.normal(5, 0.5, 400)
    r, lo, hi = ratio_interval(num, den, seed=3)
    assert r == pytest.approx(num.mean() / den.mean())
    assert lo < r < hi and hi - lo < 0.2
    assert ratio_interval(num, den, seed=3) == (r, lo, hi)  # seeded
    assert ratio_interval(2.0, np.array([1.0, 1.0]))[0] == 2.0
    with pytest.raises(ValueError, match="confidence"):
        ratio_interval(num, den, confidence=1.5)


def test_asymptotic_factors_on_blb():
    L, Kb, p, d = 16, 8, 0.2, 0.075
    w = CascadeInstance.b_lb(L, Kb, p, d).weights
    rows = asymptotic_factors(w, Kb, "cascade-klucb", n=10**5)
    assert rows[0]["coefficient"] == pytest.approx(float(theorem4_blb_coefficient(L, Kb, p, d)))
    alpha = (1 - p) ** (Kb - 1)
    assert rows[2]["factor"] == pytest.approx(1 / alpha)
    assert rows[3]["factor"] == pytest.approx(1.0)  # B_LB: all gaps equal, per-pair tau = tau_K
    assert rows[4]["factor"] == pytest.approx(1 + math.log(1 / d), rel=1e-6)  # Lemma 2 on B_LB
    ucb = asymptotic_factors(w, Kb, "cascade-ucb1")
    assert ucb[-1]["factor"] == pytest.approx(2.0)  # Kveton et al.'s Lemma 3 on equal gaps
    with pytest.raises(ValueError):
        asymptotic_factors((0.2, 0.2, 0.2), 2, "cascade-klucb")  # no unique optimal set


# -- `cascading profile` (reports/cli/profile.py) and the report section (reports.profile_report) --


def test_profile_cli_prints_writes_and_refuses_to_overwrite(tmp_path, capsys):
    import json

    from cascading_bandits.reports.cli import main

    args = ["profile", "--weights", "0.5,0.4,0.1,0.1", "--K", "2", "--policy", "cascade-ucb1"]
    args += ["--runs", "3", "--horizon", "300", "--out", str(tmp_path), "--json"]
    assert main(args) == 0
    ch = json.loads(capsys.readouterr().out)
    assert ch["runs"] == 3 and ch["mismatches"] == 0 and len(ch["links"]) == 6
    assert ch["links"][-1]["mean"] == pytest.approx(
        theorem2_bound(CascadeInstance((0.5, 0.4, 0.1, 0.1), 2), 300)
    )
    for name in ("cascade-ucb1-best-first.json", "cascade-ucb1-best-first-waterfall.png"):
        assert (tmp_path / name).stat().st_size > 0
    before = (tmp_path / "cascade-ucb1-best-first.json").read_bytes()
    assert main(args) == 2  # refuses: the files exist
    assert "overwrite" in capsys.readouterr().err
    assert (tmp_path / "cascade-ucb1-best-first.json").read_bytes() == before


@pytest.mark.parametrize(
    "extra,word",
    [
        (["--policy", "cascade-ts"], "policy"),
        (["--horizon", "0"], "horizon"),
        (["--order", "sideways"], "order"),
        (["--L", "8", "--p", "0.2", "--delta", "0.1"], "either"),
    ],
)
def test_profile_cli_bad_input(extra, word, capsys):
    from cascading_bandits.reports.cli import main

    args = ["profile", "--weights", "0.5,0.4,0.1", "--K", "1", "--runs", "2", "--horizon", "50"]
    assert main(args + extra) == 2
    err = capsys.readouterr().err
    assert word in err and "Traceback" not in err


def test_where_bounds_lose_section():
    from cascading_bandits.reports.profile_report import where_bounds_lose_section

    chains = []
    for order, scale in (("best-first", 1.0), ("worst-first", 0.7)):
        pc = _fake_counters("cascade-ucb1", 5000, seed=3)
        pc.order = order
        pc.regret = pc.regret * scale
        ch = proof_chain(pc)
        ch["instance"] = "w"
        chains.append(ch)
    md, figs = where_bounds_lose_section(
        chains,
        factors={
            ("cascade-ucb1", "w"): [
                {"name": "Theorem 4 (alpha)", "coefficient": 1.0, "factor": None}
            ]
        },
    )
    assert md.startswith("## Where the bounds lose")
    assert "Worst-first against best-first" in md and "| worst/best | 0.700 |" in md
    assert len(figs) == 2
    with pytest.raises(ValueError):
        where_bounds_lose_section([])


def test_asymptotic_runs_load_and_rows(tmp_path):
    """benchmarks/asymptotic_runs.py chunks -> load_asymptotic -> R(n)/log n rows and figure."""
    import importlib.util
    from pathlib import Path

    from cascading_bandits.reports.profile_report import (
        asymptotic_figure,
        asymptotic_rows,
        load_asymptotic,
    )
    from cascading_bandits.simulate.experiments import b_lb_cell
    from cascading_bandits.simulate.runner import run_cell

    path = Path(__file__).resolve().parents[2] / "benchmarks" / "asymptotic_runs.py"
    spec = importlib.util.spec_from_file_location("asymptotic_runs", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert (
        mod.main(["--out", str(tmp_path), "--runs", "3", "--chunk", "2", "--horizon", "1000"]) == 0
    )
    data = load_asymptotic(tmp_path)
    assert len(data) == 4
    d = data["L16-K2-p0.2-d0.15-cascade-ucb1-best-first"]
    assert d["regret"].shape[0] == 3  # chunks 0-2 and 2-3, in run order
    # the chunks are the runs run_cell makes with the same seed
    cell = b_lb_cell("x", 16, 2, 0.2, 0.15, "cascade-ucb1", horizon=1000, runs=3)
    ref = run_cell(cell, 2015, checkpoints=d["checkpoints"])
    np.testing.assert_allclose(d["regret"], ref.regret, rtol=1e-12)
    rows = asymptotic_rows(data, at=(100, 1000))
    r = next(x for x in rows if x["cell_id"] == "L16-K2-p0.2-d0.15-cascade-ucb1-best-first")
    assert r["n=1000"][0] == pytest.approx(ref.regret[:, -1].mean() / math.log(1000))
    assert r["theorem4"] == pytest.approx(float(theorem4_blb_coefficient(16, 2, 0.2, 0.15)))
    assert asymptotic_figure(data) is not None
    with pytest.raises(ValueError, match="does not exist"):
        load_asymptotic(tmp_path / "nothing")
