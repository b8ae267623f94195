"""Click models, cells and results: hand-computed values and input validation."""

import numpy as np
import pytest

from cascading_bandits.simulate.experiments import (
    TABLE_ROWS,
    Cell,
    b_lb_cell,
    default_checkpoints,
    get_experiment,
)
from cascading_bandits.simulate.jitopts import python_twin
from cascading_bandits.simulate.models import CASCADE, DBN, CascadeModel, DBNModel, respond
from cascading_bandits.simulate.results import CellResult
from cascading_bandits.simulate.rng import policy_keys


def test_expected_rewards_by_hand():
    assert CascadeModel((0.5, 0.2, 0.1), 2).expected_reward([0, 1]) == pytest.approx(
        1 - 0.5 * 0.8, abs=1e-15
    )
    m = DBNModel((0.5, 0.2, 0.1), 2, nu=0.5, gamma=0.5)
    # wbar = (0.25, 0.1): 0.25 + gamma * (1 - 0.25) * 0.1
    assert m.expected_reward([0, 1]) == pytest.approx(0.25 + 0.5 * 0.75 * 0.1, abs=1e-15)
    assert m.expected_reward([1, 0]) == pytest.approx(0.1 + 0.5 * 0.9 * 0.25, abs=1e-15)
    assert list(m.optimal_list()) == [0, 1]
    # cascade: order-free to the last bit
    c = CascadeModel((0.3, 0.7, 0.11, 0.2), 3)
    assert c.expected_reward([0, 1, 3]) == c.expected_reward([3, 0, 1])


def test_dbn_click_frequencies():
    rho = np.array([0.6, 0.5, 0.4])
    nu, g = np.full(3, 0.5), 0.7
    lst = np.array([0, 1, 2])
    key = policy_keys(np.random.SeedSequence(1), 1)[0]
    clicks = np.zeros(3, np.int64)
    n = 40000
    tot = np.zeros(3)
    for t in range(n):
        python_twin(respond)(DBN, rho, nu, g, lst, 3, t, key, clicks)
        tot += clicks
    # P(reach 2) = g (1 - rho1 nu1); P(reach 3) = P(reach 2) g (1 - rho2 nu2)
    r2 = g * (1 - 0.3)
    r3 = r2 * g * (1 - 0.25)
    expect = np.array([0.6, r2 * 0.5, r3 * 0.4])
    assert np.all(np.abs(tot / n - expect) < 5 * np.sqrt(expect * (1 - expect) / n))
    # cascade: at most one click, on the first attractive item
    for t in range(200):
        python_twin(respond)(CASCADE, rho, nu, g, lst, 3, t, key, clicks)
        assert clicks.sum() <= 1


def test_experiments_are_the_papers():
    t1, t2, dbn = get_experiment("table1"), get_experiment("table2"), get_experiment("dbn")
    assert len(t1) == len(t2) == 18 and len(dbn) == 8
    assert {(c.L, c.K, c.delta) for c in t1} == set(TABLE_ROWS)
    assert all(
        c.p == 0.2 and c.order == "best-first" and c.horizon == 100_000 and c.runs == 20 for c in t1
    )
    assert all(c.order == "worst-first" for c in t2)
    assert {(c.nu, c.gamma) for c in dbn} == {(1.0, 1.0), (1.0, 0.7), (0.7, 1.0), (0.7, 0.7)}
    assert {c.policy for c in dbn} == {"cascade-klucb", "ranked-klucb"}
    assert all(c.L == 16 and c.K == 4 and c.delta == 0.15 and c.model == "dbn" for c in dbn)
    small = get_experiment("dbn", testing=True)
    assert len(small) == 2 and all(c.horizon <= 5000 for c in small)
    assert len({c.cell_id for c in t1 + t2}) == 36


def test_checkpoints():
    cp = default_checkpoints(100_000)
    assert cp[0] == 1 and cp[-1] == 100_000 and (np.diff(cp) > 0).all()
    assert list(default_checkpoints(1)) == [1]
    assert default_checkpoints(7)[-1] == 7


@pytest.mark.parametrize(
    "bad,msg",
    [
        (dict(policy="ucb"), "unknown policy"),
        (dict(policy="ranked-klucb", order="worst-first"), "best-first"),
        (dict(order="middle"), "unknown order"),
        (dict(K=9), "K must satisfy"),
        (dict(horizon=0), "horizon"),
        (dict(runs=1.5), "runs"),
        (dict(weights=(0.2, 1.2)), "weights"),
        (dict(model="ubm"), "unknown model"),
        (dict(nu=0.5), "dbn model only"),
        (dict(cell_id="a/b"), "cell_id"),
    ],
)
def test_cell_rejects_bad_input(bad, msg):
    kw = dict(
        experiment="x",
        cell_id="c",
        model="cascade",
        weights=(0.3, 0.2, 0.1),
        K=2,
        policy="cascade-klucb",
    )
    kw.update(bad)
    with pytest.raises(ValueError, match=msg):
        Cell(**kw)


def test_dbn_cell_checks():
    with pytest.raises(ValueError, match="gamma"):
        b_lb_cell("x", 8, 2, 0.2, 0.1, "cascade-klucb", model="dbn", gamma=0.0)
    with pytest.raises(ValueError, match="nu"):
        b_lb_cell("x", 8, 2, 0.2, 0.1, "cascade-klucb", model="dbn", nu=1.5)
    with pytest.raises(ValueError, match="delta"):
        b_lb_cell("x", 8, 2, 0.2, 0.3, "cascade-klucb")


def test_cellresult_statistics_by_hand():
    reg = np.array([[1.0, 2.0], [2.0, 4.0], [3.0, 9.0]])
    r = CellResult({"cell_id": "c"}, [5, 10], reg, np.zeros((3, 2), np.int64))
    assert r.mean_regret == 5.0
    assert r.stderr == pytest.approx(
        np.sqrt(((2 - 5) ** 2 + (4 - 5) ** 2 + (9 - 5) ** 2) / 2) / np.sqrt(3)
    )
    with pytest.raises(ValueError, match="regret must have shape"):
        CellResult({}, [5, 10, 20], reg, np.zeros((3, 2)))
    assert not r.regret.flags.writeable


# ---------------------------------------------------------------------------------------
# position-based and dependent click models in cells; policy parameters from the spec
# ---------------------------------------------------------------------------------------

_KW = dict(experiment="x", cell_id="c", weights=(0.3, 0.2, 0.1), K=2, policy="cascade-klucb")


def test_cells_carry_the_position_parameters():
    pbm = Cell(model="pbm", kappa=(1, 0.5), **_KW)
    assert pbm.kappa == (1.0, 0.5) and pbm.lam is None
    assert pbm.params["kappa"] == [1.0, 0.5] and "lam" not in pbm.params
    assert pbm.click_model().kappa == (1.0, 0.5)
    # None resolves to the model's default, stored explicitly
    assert Cell(model="dcm", **_KW).lam == (0.5, 2 / 3)
    assert Cell(model="dcm", **_KW).params["lam"] == [0.5, 2 / 3]
    # the cascade and DBN cells keep the parameter set cells were stored with before
    legacy = {"experiment", "cell_id", "model", "weights", "K", "policy", "order", "horizon",
              "runs", "c", "nu", "gamma", "p", "delta", "L"}  # fmt: skip
    assert set(Cell(model="cascade", **_KW).params) == legacy
    assert set(Cell(model="dbn", nu=0.7, **_KW).params) == legacy
    # in the default ids: other parameters, other files
    ids = {
        b_lb_cell("x", 8, 2, 0.2, 0.1, "cascade-klucb", model=m, **kw).cell_id
        for m, kw in [
            ("cascade", {}),
            ("pbm", {}),
            ("pbm", dict(kappa=(1, 0.5))),
            ("pbm", dict(kappa=(1, 0.25))),
            ("pbm", dict(kappa=(1, 1 / 3))),
            ("dcm", {}),
            ("dcm", dict(lam=(0.5, 0.5))),
        ]
    }
    assert len(ids) == 7
    assert "-pbm-kappa1_0.5-" in b_lb_cell("x", 8, 2, 0.2, 0.1, "oracle", model="pbm",
                                          kappa=(1, 0.5)).cell_id  # fmt: skip


@pytest.mark.parametrize(
    "kw,msg",
    [
        (dict(model="cascade", kappa=(1, 1)), "kappa applies to the pbm model only"),
        (dict(model="dbn", lam=(1, 1)), "lam applies to the dcm model only"),
        (dict(model="pbm", lam=(1, 1)), "lam applies to the dcm model only"),
        (dict(model="pbm", nu=0.5), "dbn model only"),
        (dict(model="dcm", gamma=0.5), "dbn model only"),
        (dict(model="pbm", kappa=(1, 0.5, 0.2)), "K = 2"),
        (dict(model="dcm", lam=(1, -0.5)), r"\[0, 1\]"),
    ],
)
def test_cells_refuse_misplaced_model_parameters(kw, msg):
    with pytest.raises(ValueError, match=msg):
        Cell(**_KW, **kw)


def test_policy_parameters_come_from_the_spec_alone():
    """No cell-level c: the spec's c is the cell's, a policy without c reads 3.0."""
    assert Cell(model="cascade", **{**_KW, "policy": "cascade-klucb(c=0)"}).c == 0.0
    assert Cell(model="cascade", **{**_KW, "policy": "cascade-klucb"}).c == 3.0
    assert Cell(model="cascade", **{**_KW, "policy": "cascade-ucb1(alpha=2)"}).c == 3.0
    with pytest.raises(TypeError, match="c"):
        Cell(model="cascade", c=0, **_KW)
    with pytest.raises(TypeError):  # past runs, only keywords: (..., runs, c, nu) is refused
        Cell("x", "c", "cascade", (0.3, 0.2), 1, "cascade-klucb", "best-first", 10, 1, 0.0, 1.0)
    with pytest.raises(TypeError):
        b_lb_cell("x", 8, 2, 0.2, 0.1, "cascade-klucb", c=0)
    assert b_lb_cell("x", 8, 2, 0.2, 0.1, "cascade-klucb(c=0)").c == 0.0
