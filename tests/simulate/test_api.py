"""simulate.run: the one-call API (spec, seeds, common random numbers, storage, statistics)."""

import json
import math

import numpy as np
import pytest
from scipy import stats

from cascading_bandits.bounds.instance import CascadeInstance
from cascading_bandits.simulate import RegretResult, StudyResults, run
from cascading_bandits.simulate.experiments import Cell
from cascading_bandits.simulate.rng import users_keys
from cascading_bandits.simulate.runner import as_seed_sequence, run_cell
from cascading_bandits.simulate.sweep import cell_seed

W = [0.5, 0.4, 0.3, 0.1, 0.1]


def _run(**kw):
    base = dict(K=2, policies=["cascade-klucb", "cascade-ucb1"], horizon=1500, runs=3, seed=1)
    base.update(kw)
    return run(W, **base)


def test_example_from_the_docs():
    res = run(
        [0.5, 0.4, 0.3, 0.1, 0.1, 0.1],
        K=2,
        policies=["cascade-klucb", "cascade-ucb1"],
        horizon=5000,
        runs=5,
        seed=7,
    )
    kl = res["cascade-klucb"]
    print(kl.mean_regret, kl.final_stderr)  # regret at n = 5000, mean and standard error
    lo, hi = kl.band()  # 95% band (Student t, runs - 1 dof) at each checkpoint
    print(kl.regret.shape, kl.counts.shape)  # (runs, checkpoints), (runs, L)

    assert isinstance(res, StudyResults) and isinstance(kl, RegretResult)
    assert kl.regret.shape == (5, kl.checkpoints.size) and kl.counts.shape == (5, 6)
    assert kl.checkpoints[-1] == 5000 and kl.horizon == 5000
    assert (lo <= kl.mean).all() and (kl.mean <= hi).all()
    assert res.policies == ["cascade-klucb", "cascade-ucb1"]


def test_shapes_spec_and_provenance():
    res = _run()
    assert len(res) == 2 and res[1] is res["cascade-ucb1"]
    for r in res:
        m = r.checkpoints.size
        assert r.regret.shape == (3, m) and r.counts.shape == (3, 5)
        # regret is cumulative: non-decreasing along each run (each step adds f(A*) - f(A) >= 0)
        assert (np.diff(r.regret, axis=1) >= -1e-9).all()
        # T_0 = 1 for each item, then 1..K observations per step
        tot = r.counts.sum(axis=1)
        assert ((tot >= 1500 + 5) & (tot <= 2 * 1500 + 5)).all()
        assert r.spec["weights"] == W and r.spec["K"] == 2 and r.spec["policy"] == r.policy
        assert r.spec["seed"] == {"entropy": "1", "spawn_key": []}
        assert r.spec["experiment"] == "study" and r.spec["cell_id"].startswith(r.policy + "-")
        assert r.provenance["seed_entropy"] == "1" and "versions" in r.provenance
        assert r.provenance["stored"] is None
    assert res.spec["horizon"] == 1500 and res.spec["runs"] == 3
    with pytest.raises(KeyError, match="cascade-ts"):
        res["cascade-ts"]


def test_same_seed_same_numbers_and_independent_of_other_policies():
    a = _run()
    b = _run(policies=["cascade-ucb1"])
    np.testing.assert_array_equal(a["cascade-ucb1"].regret, b["cascade-ucb1"].regret)
    np.testing.assert_array_equal(a["cascade-ucb1"].counts, b["cascade-ucb1"].counts)
    c = _run(seed=2)
    assert not np.array_equal(a["cascade-ucb1"].regret, c["cascade-ucb1"].regret)
    assert a["cascade-ucb1"].spec["cell_id"] != c["cascade-ucb1"].spec["cell_id"]


def test_matches_run_cell_with_the_sweep_seed():
    res = _run(policies=["cascade-klucb"])
    r = res[0]
    cell = Cell(**{k: v for k, v in r.spec.items() if k not in ("L", "seed", "c")})
    direct = run_cell(cell, cell_seed(as_seed_sequence(1), cell))
    np.testing.assert_array_equal(direct.regret, r.regret)


def test_common_random_numbers():
    # both policies meet the same users: equal users keys for every run
    res = _run()
    root = as_seed_sequence(1)
    keys = []
    for r in res:
        cell = Cell(**{k: v for k, v in r.spec.items() if k not in ("L", "seed", "c")})
        keys.append(users_keys(cell_seed(root, cell), tuple(W), 3))
    np.testing.assert_array_equal(keys[0], keys[1])
    # and an oracle on the same users has zero regret
    assert (_run(policies=["oracle"])[0].regret == 0).all()


def test_statistics_t_band():
    r = _run(runs=4)[0]
    reg = r.regret
    np.testing.assert_allclose(r.mean, reg.mean(axis=0), rtol=1e-15)
    np.testing.assert_allclose(r.stderr, reg.std(axis=0, ddof=1) / 2.0, rtol=1e-14)
    lo, hi = r.band(0.9)
    q = stats.t.ppf(0.95, 3)
    np.testing.assert_allclose(hi - lo, 2 * q * r.stderr, rtol=1e-12)
    assert r.mean_regret == reg[:, -1].mean()
    assert math.isclose(r.final_stderr, reg[:, -1].std(ddof=1) / 2.0, rel_tol=1e-14)
    s = r.summary()
    assert s["stderr"] == r.final_stderr and s["ci95"][0] < s["mean_regret"] < s["ci95"][1]
    np.testing.assert_allclose(s["mean_counts"], r.counts.mean(axis=0))
    with pytest.raises(ValueError, match="level"):
        r.band(1.0)


def test_one_run_gives_null_not_nan():
    res = _run(runs=1)
    r = res[0]
    assert np.isnan(r.stderr).all() and np.isnan(r.band()[0]).all()
    rows = res.summary()
    text = json.dumps(rows, allow_nan=False)  # raises on NaN
    assert rows[0]["stderr"] is None and rows[0]["ci95"] is None
    assert "one run" in rows[0]["notes"][0] and "null" in text


def test_custom_checkpoints():
    full = _run()[0]
    mine = full.checkpoints[[3, 20, 40]]
    r = _run(checkpoints=mine)[0]
    np.testing.assert_array_equal(r.checkpoints, [*mine, 1500])
    # the same run, recorded elsewhere: values agree at common steps
    common, i, j = np.intersect1d(r.checkpoints, full.checkpoints, return_indices=True)
    assert common.size == 4
    np.testing.assert_array_equal(r.regret[:, i], full.regret[:, j])
    assert r.spec["cell_id"] != full.spec["cell_id"]
    with pytest.raises(ValueError, match="checkpoints"):
        _run(checkpoints=[5, 5])
    with pytest.raises(ValueError, match="checkpoints"):
        _run(checkpoints=[2000])


def test_stored_and_resumed(tmp_path):
    a = _run(out=tmp_path)
    for r in a:
        assert r.provenance["reused"] is False
        assert (tmp_path / "study" / f"{r.spec['cell_id']}.json").exists()
        assert (tmp_path / "study" / f"{r.spec['cell_id']}.npz").exists()
    before = {p: p.read_bytes() for p in (tmp_path / "study").iterdir()}
    b = _run(out=tmp_path)
    for x, y in zip(a, b, strict=True):
        assert y.provenance["reused"] is True
        assert y.provenance["stored"] == x.provenance["stored"]
        np.testing.assert_array_equal(x.regret, y.regret)
    assert {p: p.read_bytes() for p in (tmp_path / "study").iterdir()} == before
    # another seed or horizon is another cell beside the first, not a reuse
    c = _run(out=tmp_path, seed=5, policies=["cascade-klucb"])
    assert c[0].provenance["reused"] is False
    assert len(list((tmp_path / "study").glob("*.json"))) == 3


def test_instance_and_dbn():
    inst = CascadeInstance(tuple(W), 2)
    a = run(inst, policies="cascade-klucb", horizon=500, runs=2)
    b = run(W, K=2, policies="cascade-klucb", horizon=500, runs=2)
    np.testing.assert_array_equal(a[0].regret, b[0].regret)
    d = run(W, K=2, policies="cascade-klucb", model="dbn", nu=0.7, gamma=0.9, horizon=500, runs=2)
    assert d[0].spec["model"] == "dbn" and d[0].spec["nu"] == 0.7 and d[0].spec["gamma"] == 0.9


@pytest.mark.parametrize(
    "kw, exc, match",
    [
        (dict(K=None), ValueError, "K is required"),
        (dict(K=6), ValueError, "K"),
        (dict(policies=[]), ValueError, "at least one"),
        (dict(policies=["cascade-ucb1", "cascade-ucb1"]), ValueError, "repeat"),
        (dict(policies=["cascade-nope"]), ValueError, "policy"),
        (dict(policies=3), TypeError, "policies"),
        (dict(nu=0.5), ValueError, "dbn"),
        (dict(model="ubm"), ValueError, "model"),
        (dict(horizon=0), ValueError, "horizon"),
        (dict(runs=0), ValueError, "runs"),
        (dict(seed=-1), ValueError, "seed"),
        (dict(order="random"), ValueError, "order"),
    ],
)
def test_rejects_bad_input(kw, exc, match):
    with pytest.raises(exc, match=match):
        _run(**kw)


def test_rejects_bad_weights():
    with pytest.raises(ValueError, match="weights"):
        run([0.5, 1.5], K=1, horizon=10, runs=1)
    with pytest.raises(ValueError, match="weights"):
        run([0.5, float("nan")], K=1, horizon=10, runs=1)
    with pytest.raises(ValueError, match="weights"):
        run("0.5,0.2", K=1, horizon=10, runs=1)
    with pytest.raises(ValueError, match="K"):
        run(CascadeInstance((0.5, 0.2), 1), K=2, horizon=10, runs=1)


def test_position_based_and_dependent_click_models():
    p = run(W, K=2, policies="oracle", model="pbm", kappa=(1.0, 0.5), horizon=300, runs=2)
    assert p[0].spec["model"] == "pbm" and p[0].spec["kappa"] == [1.0, 0.5]
    assert p.spec["kappa"] == [1.0, 0.5] and "lam" not in p.spec
    assert (p[0].regret == 0).all()  # monotone kappa: the oracle's list is optimal
    assert p[0].summary()["kappa"] == [1.0, 0.5]
    d = run(W, K=2, policies="cascade-klucb", model="dcm", lam=(0.2, 0.9), horizon=300, runs=2)
    assert d[0].spec["lam"] == [0.2, 0.9] and "kappa" not in d[0].spec
    # the model parameters are part of the cell's identity
    other = run(W, K=2, policies="cascade-klucb", model="dcm", lam=(0.9, 0.2), horizon=300, runs=2)
    assert other[0].spec["cell_id"] != d[0].spec["cell_id"]
    assert not np.array_equal(other[0].regret, d[0].regret)
    default = run(W, K=2, policies="cascade-klucb", model="dcm", horizon=300, runs=2)
    assert default[0].spec["lam"] == [0.5, 2 / 3]


@pytest.mark.parametrize(
    "kw, match",
    [
        (dict(model="cascade", kappa=(1.0, 0.5)), "kappa applies to the pbm model only"),
        (dict(model="pbm", lam=(1.0, 0.5)), "lam applies to the dcm model only"),
        (dict(model="pbm", nu=0.5), "dbn"),
        (dict(model="dcm", lam=(1.0,)), "K = 2"),
    ],
)
def test_rejects_misplaced_model_parameters(kw, match):
    with pytest.raises(ValueError, match=match):
        _run(**kw)


def test_real_instance_by_name():
    r = run("kdd:19", policies="oracle", model="pbm", horizon=200, runs=1)
    assert r.spec["instance"] == "kdd:19" and r.spec["K"] == 3 and r.spec["L"] == 5
    assert r[0].spec["kappa"] == [1.0, 0.48574928517746124, 0.3297979789061402]
    assert (r[0].regret == 0).all()
    c = run("kdd:19", K=2, policies="cascade-klucb", model="dcm", horizon=200, runs=1)
    assert c[0].spec["K"] == 2 and c[0].spec["model"] == "dcm"
    with pytest.raises(ValueError, match="3 positions"):
        run("kdd:19", K=4, policies="oracle", model="pbm", horizon=10, runs=1)
    with pytest.raises(ValueError, match="real_instance_names"):
        run("kdd:nope", policies="oracle", horizon=10, runs=1)


@pytest.fixture
def klucb_c5():
    """CascadeKL-UCB's kernel declared again with c = 5 as its default."""
    from cascading_bandits.simulate.policies import (
        Param,
        get_policy,
        register_policy,
        unregister_policy,
    )

    base = get_policy("cascade-klucb")
    register_policy(
        "zz-klucb5",
        params=(Param("c", 5.0, 0.0),),
        kernel=base.kernel,
        reference=base.reference,
        uses_lazy=True,
    )
    yield "zz-klucb5"
    unregister_policy("zz-klucb5")


def test_policy_parameters_come_from_the_spec_alone(klucb_c5):
    """A policy's default c is its own (5 here, not the paper's 3), and c = 50 in its spec is
    not refused: no cell-level c overrides or contradicts the spec."""
    mine = _run(policies=[klucb_c5, f"{klucb_c5}(c=50)"])
    same = _run(policies=["cascade-klucb(c=5)", "cascade-klucb(c=50)"])
    paper = _run(policies=["cascade-klucb"])
    assert mine[0].spec["c"] == 5.0 and mine[1].spec["c"] == 50.0
    np.testing.assert_array_equal(mine[0].regret, same[0].regret)
    np.testing.assert_array_equal(mine[1].regret, same[1].regret)
    assert not np.array_equal(mine[0].regret, paper[0].regret)


def test_study_results_is_a_mapping_too():
    """keys/values/items as a dict of policy spec -> result; ``final_stderr`` is the JSON's
    ``stderr`` and the cell's ``final_stderr``."""
    res = run([0.5, 0.3, 0.1], K=1, policies=["oracle", "cascade-ucb1"], horizon=50, runs=2)
    assert res.keys() == ["oracle", "cascade-ucb1"] and list(dict(res)) == res.keys()
    assert [p for p, _ in res.items()] == res.keys()
    assert all(r is res[p] for p, r in res.items()) and res.values()[1] is res[1]
    assert dict(res)["cascade-ucb1"] is res[1]
    for r in res.values():
        assert r.summary()["stderr"] == r.final_stderr
        assert r.final_stderr == pytest.approx(r.cell.final_stderr, rel=1e-12)
