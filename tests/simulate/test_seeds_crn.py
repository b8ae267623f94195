"""Seeds and common random numbers, for every declared policy (registry_cases)."""

import dataclasses
import json

import numpy as np
import pytest
from registry_cases import combos, specs

from cascading_bandits.bounds.instance import b_lb
from cascading_bandits.reports.cli import main
from cascading_bandits.simulate import run as sim_run
from cascading_bandits.simulate import run_cell
from cascading_bandits.simulate.engine import simulate_runs
from cascading_bandits.simulate.experiments import Cell, b_lb_cell
from cascading_bandits.simulate.models import make_model
from cascading_bandits.simulate.rng import ATTRACT, policy_keys, uniform_py, users_keys
from cascading_bandits.simulate.sweep import CELL_TAG, cell_seed, run_cells, run_experiment

W = tuple(b_lb(8, 2, 0.3, 0.15).weights)


def _cell(policy="cascade-klucb", order="best-first", **kw):
    return b_lb_cell(
        "t",
        8,
        2,
        0.3,
        0.15,
        policy,
        order,
        horizon=kw.pop("horizon", 800),
        runs=kw.pop("runs", 3),
        **kw,
    )


@pytest.mark.parametrize("policy", specs())
def test_same_seed_same_numbers(policy):
    a, b = run_cell(_cell(policy), 11), run_cell(_cell(policy), np.random.SeedSequence(11))
    np.testing.assert_array_equal(a.regret, b.regret)
    np.testing.assert_array_equal(a.counts, b.counts)


@pytest.mark.parametrize("policy", specs())
def test_threads_do_not_change_results(policy):
    a = run_cell(_cell(policy, runs=4), 3, threads=1)
    b = run_cell(_cell(policy, runs=4), 3, threads=2)
    np.testing.assert_array_equal(a.regret, b.regret)
    np.testing.assert_array_equal(a.counts, b.counts)


@pytest.mark.parametrize("policy,model,order", combos())
def test_every_policy_meets_the_users_draws(policy, model, order):
    """CRN: whatever the policy shows, the first examined item attracts the user iff the
    users' ATTRACT uniform of (t, item) is below its weight; in the cascade model that
    holds at every examined position (up to the click)."""
    m = make_model(model, W, 2, 0.7, 0.7) if model == "dbn" else make_model(model, W, 2)
    ss = np.random.SeedSequence(41)
    uk, pk = users_keys(ss, W, 2), policy_keys(ss, 2)
    n = 300
    _, _, lists, clicks = simulate_runs(
        m, policy, order, n, uk, pk, np.array([n]), threads=1, trace_steps=n
    )
    checked = 0
    for r in range(2):
        for t in range(n):
            for k in range(2):
                e = lists[r, t, k]
                want = int(uniform_py(int(uk[r]), ATTRACT, t + 1, e, len(W)) < W[e])
                if k == 0 or (model == "cascade" and not clicks[r, t, :k].any()):
                    assert clicks[r, t, k] == want
                    checked += 1
    assert checked >= 2 * n


#: policies of each kind of kernel (index, sampling, elimination, random), two with
#: parameters in their spec: what crosses to a pool worker or Dask is the spec string
POOL_SAMPLE = (
    "cascade-klucb(c=0)",
    "cascade-ts(prior=2,2)",
    "toprank(delta=0.5)",
    "uniform-random",
)


@pytest.fixture(scope="module")
def executors():
    """(pool, cluster) shared by this module's comparisons of the serial, process-pool and
    Dask executors: the process pool ``run_cells(..., workers=2)`` makes
    (``sweep._make_executor``: two spawned workers, each importing numpy, numba and the
    simulator, about 2 CPU s together; shut down by the closer it returns, as run_cells
    does), and an in-process Dask LocalCluster, None without Dask's ``distributed``.
    Each test started its own of both (``workers=2`` itself still starts one in
    test_sweep_processes' test_killing_the_main_process_kills_its_workers)."""
    from cascading_bandits.simulate.sweep import _make_executor

    pool, threads, close = _make_executor(2, None)
    assert threads == 1  # as in run_cells: one numba thread per cell in a pool worker
    try:
        try:
            import distributed
        except ImportError:
            yield pool, None
            return
        with distributed.LocalCluster(
            n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None
        ) as cluster:
            yield pool, cluster
    finally:
        close()


def test_serial_process_pool_and_dask_agree(tmp_path, executors):
    """A sample of the declared policies gives the same numbers serially, in a process pool
    and on Dask (every policy: the slow test below; serial against threads, every policy:
    test_threads_do_not_change_results)."""
    assert set(POOL_SAMPLE) <= set(specs())
    _serial_pool_dask_agree(POOL_SAMPLE, tmp_path, *executors)


@pytest.mark.slow
def test_serial_process_pool_and_dask_agree_for_every_policy(tmp_path, executors):
    """Every declared policy gives the same numbers serially, in a process pool and on Dask."""
    _serial_pool_dask_agree(specs(), tmp_path, *executors)


def _serial_pool_dask_agree(policies, tmp_path, pool, cluster):
    cells = [_cell(p, horizon=300, runs=2) for p in policies]
    serial = run_cells(cells, tmp_path / "s", seed=8, workers=1, progress=False)
    results = [serial, run_cells(cells, tmp_path / "p", seed=8, executor=pool, progress=False)]
    if cluster is not None:
        import distributed

        with distributed.Client(cluster) as client:
            results.append(
                run_cells(cells, tmp_path / "d", seed=8, scheduler=client, progress=False)
            )
    for other in results[1:]:
        for a, b in zip(serial, other, strict=True):
            assert a.params["policy"] == b.params["policy"]
            np.testing.assert_array_equal(a.regret, b.regret)
            np.testing.assert_array_equal(a.counts, b.counts)


def test_serial_process_pool_and_dask_experiments_are_bit_identical(tmp_path, executors):
    """An experiment (run_experiment: its cells, seed and parameters) gives the same stored
    numbers serially, in the process pool and on Dask reached by its scheduler's address
    (a client of run_experiment's own; the test above hands run_cells a Client)."""
    pool, cluster = executors
    if cluster is None:
        pytest.skip("the optional 'dask' extra is not installed (CI installs it)")
    serial = run_experiment("dbn", tmp_path / "s", testing=True, workers=1, progress=False)
    pooled = run_experiment("dbn", tmp_path / "p", testing=True, executor=pool, progress=False)
    dask = run_experiment(
        "dbn", tmp_path / "d", testing=True, scheduler=cluster.scheduler_address, progress=False
    )
    for a, b, c in zip(serial, pooled, dask, strict=True):
        np.testing.assert_array_equal(a.regret, b.regret)
        np.testing.assert_array_equal(a.regret, c.regret)
        np.testing.assert_array_equal(a.counts, c.counts)
        assert a.params == b.params == c.params


def test_different_seeds_differ():
    a, b = run_cell(_cell(), 1), run_cell(_cell(), 2)
    assert not np.array_equal(a.regret, b.regret)


def test_keys_depend_on_what_they_should():
    s1 = np.random.SeedSequence(7, spawn_key=(1,))
    s2 = np.random.SeedSequence(7, spawn_key=(2,))
    # users: root entropy, instance and run only -- the same under another spawn key (CRN)
    np.testing.assert_array_equal(users_keys(s1, W, 4), users_keys(s2, W, 4))
    assert len(set(users_keys(s1, W, 4).tolist())) == 4
    assert not np.array_equal(users_keys(s1, W, 4), users_keys(np.random.SeedSequence(8), W, 4))
    assert not np.array_equal(users_keys(s1, W, 4), users_keys(s1, W[::-1], 4))
    # policy streams: the spawn key matters
    assert not np.array_equal(policy_keys(s1, 4), policy_keys(s2, 4))
    assert set(policy_keys(s1, 4).tolist()).isdisjoint(users_keys(s1, W, 4).tolist())


def test_cell_seeds_are_keyed_by_what_the_cell_computes():
    root = np.random.SeedSequence(5)
    a = cell_seed(root, _cell("cascade-ucb1"))
    assert a.entropy == root.entropy and a.spawn_key[0] == CELL_TAG and len(a.spawn_key) == 3
    assert cell_seed(root, _cell("cascade-ucb1")).spawn_key == a.spawn_key  # reproducible
    # not by its names nor its size: the same cell under any name, runs or horizon
    same = [
        dataclasses.replace(_cell("cascade-ucb1"), experiment="other", cell_id="x"),
        _cell("cascade-ucb1", runs=7, horizon=50),
        _cell("cascade-ucb1(alpha=1.5)"),  # the default written out: the same policy
    ]
    for c in same:
        assert cell_seed(root, c).spawn_key == a.spawn_key, c
    # by everything that changes its numbers
    other = [
        _cell("cascade-klucb"),
        _cell("cascade-ucb1(alpha=2)"),
        _cell("cascade-ucb1", "worst-first"),
        _cell("cascade-ucb1", model="dbn", nu=0.7),
        _cell("cascade-ucb1", model="dbn", gamma=0.7),
        dataclasses.replace(_cell("cascade-ucb1"), weights=W[::-1], p=None, delta=None),
        dataclasses.replace(_cell("cascade-ucb1"), K=3, p=None, delta=None),
    ]
    keys = {tuple(cell_seed(root, c).spawn_key) for c in other}
    assert len(keys) == len(other) and tuple(a.spawn_key) not in keys
    # under a root with its own spawn key, the cell's words come after it
    sub = np.random.SeedSequence(5, spawn_key=(9,))
    assert cell_seed(sub, _cell("cascade-ucb1")).spawn_key == (9, *a.spawn_key)
    with pytest.raises(ValueError, match="root must be a numpy SeedSequence"):
        cell_seed(5, _cell())


RANDOMISED = ("cascade-ts", "cascade-egreedy")


@pytest.mark.parametrize("policy", RANDOMISED)
def test_one_seed_one_result_whatever_the_entry_point(policy, tmp_path, capsys):
    """cascading simulate (ad hoc), an experiment's sweep, simulate.run (cascading study):
    the same numbers for the same cell and seed, randomised policies included."""
    w, K, runs, n, seed = (0.5, 0.4, 0.3, 0.2, 0.1, 0.1), 2, 3, 400, 17
    api = sim_run(w, K, policies=[policy], horizon=n, runs=runs, seed=seed)[0]
    adhoc = Cell("adhoc", f"{policy}-best-first", "cascade", w, K, policy, horizon=n, runs=runs)
    direct = run_cell(adhoc, cell_seed(np.random.SeedSequence(seed), adhoc))
    (swept,) = run_cells(
        [dataclasses.replace(adhoc, experiment="mine", cell_id="any-name")],
        tmp_path,
        seed=seed,
        workers=1,
        progress=False,
    )
    for r in (direct, swept):
        np.testing.assert_array_equal(r.regret, api.regret)
        np.testing.assert_array_equal(r.counts, api.counts)
    argv = ["simulate", "--weights", ",".join(map(str, w)), "--K", str(K), "--policy", policy,
            "--runs", str(runs), "--horizon", str(n), "--seed", str(seed), "--json"]  # fmt: skip
    assert main(argv) == 0
    (cli,) = json.loads(capsys.readouterr().out)["cells"]
    assert cli["mean_regret"] == api.mean_regret
    assert cli["stderr"] == pytest.approx(api.final_stderr, rel=1e-12)
    # the same policy on another seed differs: the policy's own draws do depend on the seed
    other = sim_run(w, K, policies=[policy], horizon=n, runs=runs, seed=seed + 1)[0]
    assert not np.array_equal(other.regret, api.regret)


def test_a_smaller_cell_is_a_prefix_of_a_larger_one():
    """Run r's numbers depend on neither the number of runs nor the horizon: the TESTING
    subset and a resume at a longer horizon see the same runs."""
    small = run_cell(_cell("cascade-ts", runs=2, horizon=300), 3, checkpoints=[100, 200, 300])
    big = run_cell(_cell("cascade-ts", runs=4, horizon=600), 3, checkpoints=[100, 200, 300, 600])
    np.testing.assert_array_equal(small.regret, big.regret[:2, :3])


@pytest.mark.parametrize("model", ["cascade", "dbn"])
def test_two_policies_face_the_same_users(model):
    """Wherever two policies examine the same item at the same step, it attracts both or neither."""
    m = make_model(model, W, 2, 0.7, 0.7) if model == "dbn" else make_model(model, W, 2)
    ss = np.random.SeedSequence(99)
    uk = users_keys(ss, W, 2)
    n = 3000
    out = {}
    for pol, order in (
        ("cascade-klucb", "best-first"),
        ("uniform-random", "worst-first"),
        ("ranked-klucb", "best-first"),
    ):
        # different policy keys on purpose: only the users' keys are shared
        pk = policy_keys(np.random.SeedSequence(99, spawn_key=(len(out),)), 2)
        _, _, lists, clicks = simulate_runs(
            m, pol, order, n, uk, pk, np.array([n]), threads=1, trace_steps=n
        )
        out[pol] = (lists, clicks)
    shared = 0
    (la, ca), (lb, cb) = out["cascade-klucb"], out["uniform-random"]
    for r in range(2):
        for t in range(n):
            # an item's attraction is seen when it is examined; in the cascade model that is every
            # position up to the first click, and the click is on the first attractive item
            for k in range(2):
                e = la[r, t, k]
                if e in lb[r, t] and (k == 0 or not ca[r, t, :k].any()):
                    kb = int(np.nonzero(lb[r, t] == e)[0][0])
                    if model == "cascade" and (kb == 0 or not cb[r, t, :kb].any()):
                        assert ca[r, t, k] == cb[r, t, kb]
                        shared += 1
                    elif model == "dbn" and kb == 0 and k == 0:
                        assert ca[r, t, k] == cb[r, t, kb]
                        shared += 1
    assert shared > 500


def test_dbn_with_nu_gamma_one_is_the_cascade_user():
    cas = run_cell(_cell("cascade-klucb", horizon=3000), 4)
    dbn = run_cell(_cell("cascade-klucb", horizon=3000, model="dbn"), 4)
    np.testing.assert_array_equal(cas.counts, dbn.counts)  # same decisions and observations
    np.testing.assert_allclose(
        cas.regret, dbn.regret, rtol=0, atol=1e-9
    )  # reward formulas differ in rounding
