"""Seeds and common random numbers, for every declared policy (registry_cases)."""

import numpy as np
import pytest
from registry_cases import combos, specs

from cascading_bandits.bounds.instance import b_lb
from cascading_bandits.simulate import run_cell
from cascading_bandits.simulate.engine import simulate_runs
from cascading_bandits.simulate.experiments import b_lb_cell
from cascading_bandits.simulate.models import make_model
from cascading_bandits.simulate.rng import ATTRACT, policy_keys, uniform_py, users_keys
from cascading_bandits.simulate.sweep import cell_seed

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


def test_serial_process_pool_and_dask_agree_for_every_policy(tmp_path):
    """Every declared policy gives the same numbers serially, in a process pool and on Dask."""
    from cascading_bandits.simulate.sweep import run_cells

    cells = [_cell(p, horizon=300, runs=2) for p in specs()]
    serial = run_cells(cells, tmp_path / "s", seed=8, workers=1, progress=False)
    pool = run_cells(cells, tmp_path / "p", seed=8, workers=2, progress=False)
    results = [serial, pool]
    try:
        import distributed
    except ImportError:
        distributed = None
    if distributed is not None:
        with (
            distributed.LocalCluster(
                n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None
            ) as cluster,
            distributed.Client(cluster) as client,
        ):
            results.append(
                run_cells(cells, tmp_path / "d", seed=8, scheduler=client, progress=False)
            )
    for other in results[1:]:
        for a, b in zip(serial, other, strict=True):
            assert a.params["policy"] == b.params["policy"]
            np.testing.assert_array_equal(a.regret, b.regret)
            np.testing.assert_array_equal(a.counts, b.counts)


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


def test_cell_seeds_are_spawned_per_cell():
    root = np.random.SeedSequence(5)
    a, b = cell_seed(root, _cell("cascade-ucb1")), cell_seed(root, _cell("cascade-klucb"))
    assert a.entropy == b.entropy == root.entropy and a.spawn_key != b.spawn_key
    assert cell_seed(root, _cell("cascade-ucb1")).spawn_key == a.spawn_key  # by name, reproducible


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
