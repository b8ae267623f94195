"""The click models' laws, rewards and optimal lists, checked exactly on tiny instances.

Each model's law is written here a second time, from its definition (simulate.models'
docstring), as an enumeration of the user's latent variables -- attraction of each shown
item, and per position the examination (PBM), the continuation after a click (DCM) or
satisfaction and persistence (DBN) -- in exact rational arithmetic. The engine's
``respond`` must draw click vectors with those probabilities (chi-square over 10^5 steps),
``list_reward`` must equal the exact expected reward to 1e-12, and ``optimal_list`` must
attain the exact maximum over every list.
"""

import itertools
from fractions import Fraction

import numba
import numpy as np
import pytest
from reference import reference_run
from registry_cases import specs
from scipy import stats

from cascading_bandits.simulate import run_cell
from cascading_bandits.simulate.engine import simulate_runs
from cascading_bandits.simulate.experiments import Cell
from cascading_bandits.simulate.models import MODEL_NAMES, MODELS, make_model, respond
from cascading_bandits.simulate.policies import get_policy
from cascading_bandits.simulate.rng import (
    ATTRACT,
    PERSIST,
    policy_keys,
    uniform_py,
    users_keys,
)

# dyadic values: P(u < w) = w exactly for the 2**-53-grid uniforms
W3 = (0.75, 0.5, 0.375)
PARAMS = {
    "cascade": {},
    "dbn": {"nu": 0.5, "gamma": 0.75},
    "pbm": {"kappa": (0.625, 0.875)},  # position 2 examined more than position 1
    "dcm": {"lam": (0.25, 0.625)},
}


def _bern(p, x):
    return p if x else 1 - p


def exact_law(model, w, lst, params):
    """{click vector: probability} and the exact expected reward, by enumerating the
    latent variables of the model's definition (Fractions)."""
    K = len(lst)
    w = [Fraction(x) for x in w]
    law, reward = {}, Fraction(0)
    nu = Fraction(params.get("nu", 1))
    gamma = Fraction(params.get("gamma", 1))
    pos = [Fraction(x) for x in params.get("kappa", params.get("lam", [1] * K))]
    n_sat = K if model == "dbn" else 0
    # P(A[k], X[k], S[k]) of position k, the three independent: a product of three factors,
    # formed once per position rather than for every combination (Fractions are slow)
    factor = [
        {
            (a, x, sat): _bern(w[lst[k]], a)
            * _bern(gamma if model == "dbn" else pos[k], x)
            * (_bern(nu, sat) if n_sat else 1)
            for a in (0, 1)
            for x in (0, 1)
            for sat in (0, 1)
        }
        for k in range(K)
    ]
    for A in itertools.product((0, 1), repeat=K):  # attraction of the item at position k
        for X in itertools.product((0, 1), repeat=K):  # examination / continuation / persistence
            for S in itertools.product((0, 1), repeat=n_sat):  # DBN satisfaction
                p = Fraction(1)
                for k in range(K):
                    p *= factor[k][A[k], X[k], S[k] if n_sat else 0]
                if p == 0:
                    continue
                clicks, value = [0] * K, 0
                for k in range(K):
                    if model == "pbm":
                        clicks[k] = A[k] * X[k]
                        value += clicks[k]  # number of clicks
                        continue
                    clicks[k] = A[k]
                    if model == "cascade" and A[k]:
                        value = 1
                        break
                    if model == "dcm" and A[k] and not X[k]:
                        value = 1  # left after a click: satisfied
                        break
                    if model == "dbn":
                        if A[k] and S[k]:
                            value = 1
                            break
                        if not X[k]:
                            break
                key = tuple(clicks)
                law[key] = law.get(key, Fraction(0)) + p
                reward += p * value
    return law, reward


@numba.njit(cache=False)
def _tally(code, attract, satisfy, gamma, lst, K, key, n, out):
    clicks = np.zeros(K, np.int64)
    for t in range(1, n + 1):
        respond(code, attract, satisfy, gamma, lst, K, t, key, clicks)
        i = 0
        for k in range(K):
            i = 2 * i + clicks[k]
        out[i] += 1


@pytest.mark.parametrize("model", MODEL_NAMES)
def test_click_law_is_the_models(model):
    """Every list of L = 3, K = 2: the click vectors' frequencies over 10^5 steps against the
    exact law (chi-square, fixed key: the p-value is a fixed number, far above 1e-6 when the
    law is right); impossible vectors never occur."""
    m = make_model(model, W3, 2, **PARAMS[model])
    a, s, g = m.kernel_args()
    key = users_keys(np.random.SeedSequence(77), W3, 1)[0]
    n = 100_000
    for lst in itertools.permutations(range(3), 2):
        law, _ = exact_law(model, W3, lst, PARAMS[model])
        assert sum(law.values()) == 1
        counts = np.zeros(4, np.int64)
        _tally(m.code, a, s, g, np.array(lst, np.int64), 2, key, n, counts)
        probs = np.array([float(law.get((i >> 1, i & 1), 0)) for i in range(4)])
        assert (counts[probs == 0] == 0).all(), (lst, counts, probs)
        live = probs > 0
        stat = (((counts[live] - n * probs[live]) ** 2) / (n * probs[live])).sum()
        p = stats.chi2.sf(stat, live.sum() - 1) if live.sum() > 1 else 1.0
        assert p > 1e-6, (model, lst, counts / n, probs)


def test_click_law_test_can_fail():
    """The exact law of the PBM with its two positions' kappa swapped is refused."""
    m = make_model("pbm", W3, 2, kappa=(0.875, 0.625))
    a, s, g = m.kernel_args()
    key = users_keys(np.random.SeedSequence(77), W3, 1)[0]
    counts = np.zeros(4, np.int64)
    _tally(m.code, a, s, g, np.array([0, 1], np.int64), 2, key, 100_000, counts)
    law, _ = exact_law("pbm", W3, (0, 1), PARAMS["pbm"])
    probs = np.array([float(law.get((i >> 1, i & 1), 0)) for i in range(4)])
    stat = (((counts - 1e5 * probs) ** 2) / (1e5 * probs)).sum()
    assert stats.chi2.sf(stat, 3) < 1e-6


def _random_params(model, K, rng):
    grid = lambda size: rng.choice([0.0, 0.125, 0.3, 0.5, 0.5, 0.7, 0.875, 1.0], size)  # noqa: E731
    if model == "dbn":
        return {"nu": float(grid(1)[0]), "gamma": float(grid(1)[0]) or 0.5}
    if model == "pbm":
        return {"kappa": tuple(float(x) for x in grid(K))}
    if model == "dcm":
        return {"lam": tuple(float(x) for x in grid(K))}
    return {}


@pytest.mark.parametrize("model", MODEL_NAMES)
def test_list_reward_is_the_exact_expectation(model):
    """list_reward (through expected_reward) equals the enumerated expectation to 1e-12 for
    every list of random instances with L = 4, K = 3 (non-monotone, tied, 0 and 1 values)."""
    rng = np.random.default_rng(3)
    for _ in range(6):
        w = tuple(float(x) for x in rng.choice([0.0, 0.1, 0.25, 0.25, 0.6, 0.93, 1.0], 4))
        params = _random_params(model, 3, rng)
        m = make_model(model, w, 3, **params)
        for lst in itertools.permutations(range(4), 3):
            _, exact = exact_law(model, w, lst, params)
            assert abs(m.expected_reward(lst) - float(exact)) <= 1e-12, (w, params, lst)


def _exact_reward(model, w, lst, params):
    """Closed forms of the rewards in Fractions (the law's enumeration ties them to the
    definition above)."""
    w = [Fraction(x) for x in w]
    if model == "pbm":
        return sum(Fraction(params["kappa"][k]) * w[e] for k, e in enumerate(lst))
    if model == "dcm":
        prod = Fraction(1)
        for k, e in enumerate(lst):
            prod *= 1 - (1 - Fraction(params["lam"][k])) * w[e]
        return 1 - prod
    if model == "cascade":
        prod = Fraction(1)
        for e in lst:
            prod *= 1 - w[e]
        return 1 - prod
    nu, g = Fraction(params["nu"]), Fraction(params["gamma"])
    total, reach = Fraction(0), Fraction(1)
    for e in lst:
        total += reach * w[e] * nu
        reach *= g * (1 - w[e] * nu)
    return total


@pytest.mark.parametrize("model", MODEL_NAMES)
def test_optimal_list_attains_the_exact_maximum(model):
    """optimal_list's exact reward is the maximum over every ordered list, on 150 random
    instances (L <= 6, K <= 4; weights and position parameters with ties, 0 and 1, in any
    order); the engine's f(A*) is at least every list's float reward."""
    rng = np.random.default_rng(11)
    for _ in range(150):
        L = int(rng.integers(1, 7))
        K = int(rng.integers(1, min(L, 4) + 1))
        w = tuple(float(x) for x in rng.choice([0.0, 0.05, 0.2, 0.2, 0.45, 0.8, 1.0], L))
        params = _random_params(model, K, rng)
        m = make_model(model, w, K, **params)
        best = m.optimal_list()
        assert sorted(set(best.tolist())) == sorted(best.tolist()) and len(best) == K
        exact = {lst: _exact_reward(model, w, lst, params) for lst in
                 itertools.permutations(range(L), K)}  # fmt: skip
        top = max(exact.values())
        assert exact[tuple(best.tolist())] == top, (w, params, best)
        fstar = m.expected_reward(best)
        assert all(fstar >= m.expected_reward(lst) - 1e-15 for lst in exact)


def test_pairing_rule_for_non_monotone_positions():
    """PBM: the most attractive item goes to the most examined position, wherever it is."""
    m = make_model("pbm", (0.1, 0.9, 0.5, 0.7), 3, kappa=(0.3, 1.0, 0.6))
    assert m.optimal_list().tolist() == [2, 1, 3]
    # DCM: to the position most likely to end the session (smallest lam)
    d = make_model("dcm", (0.1, 0.9, 0.5, 0.7), 3, lam=(0.3, 1.0, 0.6))
    assert d.optimal_list().tolist() == [1, 2, 3]
    assert d.expected_reward([1, 2, 3]) > d.expected_reward([1, 3, 2])


def test_defaults_and_validation():
    assert make_model("pbm", W3, 3).kappa == (1.0, 0.5, 1 / 3)
    assert make_model("dcm", W3, 3).lam == (0.5, 2 / 3, 0.75)
    a, s, g = make_model("pbm", W3, 2, kappa=(0.5, 0.25)).kernel_args()
    assert s[:2].tolist() == [0.5, 0.25] and np.isnan(s[2]) and g == 1.0
    for kw, msg in [
        (dict(kappa=(0.5,)), "K = 2"),
        (dict(kappa=0.5), "sequence of K = 2"),
        (dict(kappa=(0.5, 1.5)), r"kappa .* must lie in \[0, 1\]"),
        (dict(kappa=(0.5, float("nan"))), "NaN"),
        (dict(lam=(0.5, 0.5)), "lam applies to the dcm model only"),
        (dict(nu=0.5), "dbn model only"),
    ]:
        with pytest.raises(ValueError, match=msg):
            make_model("pbm", W3, 2, **kw)
    with pytest.raises(ValueError, match="kappa applies to the pbm model only"):
        make_model("cascade", W3, 2, kappa=(1.0, 1.0))
    with pytest.raises(ValueError, match="unknown model"):
        make_model("ubm", W3, 2)
    assert set(MODELS) == set(MODEL_NAMES) >= {"cascade", "dbn", "pbm", "dcm"}


def _trace(model, policy, n=1500, **params):
    w = (0.9, 0.0, 0.35, 1.0, 0.05, 0.35, 0.6, 0.12)
    m = make_model(model, w, 3, **params)
    ss = np.random.SeedSequence(21)
    uk, pk = users_keys(ss, w, 2), policy_keys(ss, 2)
    return (
        w,
        uk,
        simulate_runs(m, policy, "best-first", n, uk, pk, np.array([n]), threads=1, trace_steps=n),
    )


def test_dcm_with_lam_zero_is_the_cascade_user():
    _, _, cas = _trace("cascade", "cascade-klucb")
    _, _, dcm = _trace("dcm", "cascade-klucb", lam=(0.0, 0.0, 0.0))
    for a, b in zip(cas[1:], dcm[1:], strict=True):  # counts, lists, clicks
        np.testing.assert_array_equal(a, b)
    np.testing.assert_allclose(cas[0], dcm[0], rtol=0, atol=1e-9)  # rounding of f differs


def test_models_meet_the_same_users():
    """uniform-random shows the same lists under every model (its lists ignore feedback):
    position 1's click is the ATTRACT draw of its item in the cascade, DBN and DCM, and
    that draw and the PERSIST draw of (t, 1) in the PBM; under the PBM with kappa = 1 every
    position's click is its item's ATTRACT draw."""
    params = {"dbn": dict(nu=0.5, gamma=0.75), "pbm": dict(kappa=(0.625, 0.875, 0.5)),
              "dcm": dict(lam=(0.25, 0.625, 0.5))}  # fmt: skip
    out = {m: _trace(m, "uniform-random", 600, **params.get(m, {})) for m in MODEL_NAMES}
    w, uk, base = out["cascade"]
    kappa = params["pbm"]["kappa"]
    for model, (_, _, res) in out.items():
        np.testing.assert_array_equal(res[2], base[2])
        for r in range(2):
            for t in range(600):
                e = res[2][r, t, 0]
                want = uniform_py(int(uk[r]), ATTRACT, t + 1, e, len(w)) < w[e]
                if model == "pbm":
                    want = want and uniform_py(int(uk[r]), PERSIST, t + 1, 0, len(w)) < kappa[0]
                assert res[3][r, t, 0] == int(want)
    _, _, ones = _trace("pbm", "uniform-random", 600, kappa=(1.0, 1.0, 1.0))
    for r in range(2):
        for t in range(600):
            for k in range(3):
                e = ones[2][r, t, k]
                want = uniform_py(int(uk[r]), ATTRACT, t + 1, e, len(w)) < w[e]
                assert ones[3][r, t, k] == int(want)


POSITION_MODELS = {"pbm": (0.4, 1.0, 0.7), "dcm": (0.9, 0.2, 0.5)}


@pytest.mark.parametrize(
    "policy,model,order",
    [
        (s, m, o)
        for s in specs()
        for m in POSITION_MODELS
        for o in get_policy(s.partition("(")[0]).orders
    ],
)
def test_engine_equals_reference_with_position_parameters(policy, model, order):
    """Bit for bit, with non-default, non-monotone kappa / lam (the registry-driven
    equivalence tests run the models' defaults): lists, clicks, regret and counts."""
    w, K, n = (0.9, 0.0, 0.35, 1.0, 0.05, 0.35, 0.6, 0.12), 3, 500
    values = POSITION_MODELS[model]
    m = make_model(model, w, K, **{"kappa" if model == "pbm" else "lam": values})
    ss = np.random.SeedSequence(2024)
    uk, pk = users_keys(ss, w, 1), policy_keys(ss, 1)
    regret, counts, lists, clicks = simulate_runs(
        m, policy, order, n, uk, pk, np.arange(1, n + 1), threads=1, trace_steps=n
    )
    ref = reference_run(model, w, K, policy, order, n, uk[0], pk[0], values)
    np.testing.assert_array_equal(lists[0], np.array(ref[0]))
    np.testing.assert_array_equal(clicks[0], np.array(ref[1]))
    np.testing.assert_array_equal(regret[0], np.array(ref[2]))
    np.testing.assert_array_equal(counts[0], np.array(ref[3]))


@pytest.mark.parametrize("model", MODEL_NAMES)
def test_every_policy_runs_under_every_model(model):
    """Every registered policy spec, every order it allows, on a tiny cell of each model
    (given parameters): finite regret, each step's regret >= 0 (f(A*) is the maximum)."""
    w = (0.6, 0.45, 0.3, 0.3, 0.1)
    kw = {
        "dbn": dict(nu=0.7, gamma=0.8),
        "pbm": dict(kappa=(0.5, 1.0)),
        "dcm": dict(lam=(0.8, 0.3)),
    }.get(model, {})
    for spec in specs():
        for order in get_policy(spec.partition("(")[0]).orders:
            cell = Cell("t", "c", model, w, 2, spec, order, 300, 2, **kw)
            res = run_cell(cell, 5, threads=1)
            assert np.isfinite(res.regret).all() and res.counts.shape == (2, 5)
            steps = np.diff(res.regret, axis=1, prepend=0.0)
            assert (steps >= -1e-12).all(), (spec, order)


@pytest.mark.parametrize("model", MODEL_NAMES)
def test_oracle_shows_the_exact_best_list_under_every_model(model):
    """The oracle's list, read from the engine's trace, attains the exact (Fraction) maximum
    of the model's reward over every ordered list, and its recorded regret is exactly 0, on
    60 random instances (L <= 6, K <= 4; kappa / lam in any order, ties, 0 and 1); worst-first
    shows that list reversed. Under PBM and DCM the K most attractive items in decreasing
    order are beaten on many of these instances (so an index of w alone fails here)."""
    rng = np.random.default_rng(29)
    w_order_loses = 0
    for i in range(60):
        L = int(rng.integers(2, 7))
        K = int(rng.integers(2, min(L, 4) + 1))
        w = tuple(float(x) for x in rng.choice([0.0, 0.05, 0.2, 0.2, 0.45, 0.8, 1.0], L))
        params = _random_params(model, K, rng)
        m = make_model(model, w, K, **params)
        ss = np.random.SeedSequence(i)
        uk, pk = users_keys(ss, w, 1), policy_keys(ss, 1)
        n = 4
        out = {
            order: simulate_runs(
                m, "oracle", order, n, uk, pk, np.arange(1, n + 1), threads=1, trace_steps=n
            )
            for order in ("best-first", "worst-first")
        }
        regret, _, lists, _ = out["best-first"]
        exact = {lst: _exact_reward(model, w, lst, params)
                 for lst in itertools.permutations(range(L), K)}  # fmt: skip
        top = max(exact.values())
        for lst in lists[0]:
            assert exact[tuple(lst.tolist())] == top, (w, params, lst)
        assert (regret == 0.0).all(), (w, params)
        np.testing.assert_array_equal(out["worst-first"][2], lists[:, :, ::-1])
        by_w = tuple(sorted(range(L), key=lambda e: (-w[e], e))[:K])
        w_order_loses += exact[by_w] < top
    if model in ("pbm", "dcm"):
        assert w_order_loses >= 10, w_order_loses


def test_oracle_on_the_pairing_example():
    """The docs' example with non-monotone kappa and lam: the oracle shows [2, 1, 3] (PBM)
    and [1, 2, 3] (DCM), not the w order [1, 3, 2]; its regret over 200 steps is 0 where
    showing the w order has positive regret."""
    w = (0.1, 0.9, 0.5, 0.7)
    for model, kw, best in (
        ("pbm", dict(kappa=(0.3, 1.0, 0.6)), [2, 1, 3]),
        ("dcm", dict(lam=(0.3, 1.0, 0.6)), [1, 2, 3]),
    ):
        res = run_cell(Cell("t", "c", model, w, 3, "oracle", "best-first", 200, 2, **kw), 3)
        assert (res.regret == 0).all()
        m = make_model(model, w, 3, **kw)
        ss = np.random.SeedSequence(3)
        uk, pk = users_keys(ss, w, 1), policy_keys(ss, 1)
        _, _, lists, _ = simulate_runs(
            m, "oracle", "best-first", 5, uk, pk, np.array([5]), threads=1, trace_steps=5
        )
        assert lists[0].tolist() == [best] * 5
        assert m.expected_reward(best) > m.expected_reward([1, 3, 2])


def test_reference_setting_takes_a_per_item_nu():
    """The reference's setting keeps a DBN nu of L values per item (one number: every item),
    and the engine with that nu is the reference, bit for bit (no patching)."""
    from reference.common import setting

    w, K = (0.9, 0.0, 0.35, 1.0, 0.05, 0.35, 0.6, 0.12), 3
    nu = (0.2, 1.0, 0.9, 0.1, 0.5, 0.95, 0.7, 0.3)
    rho, nus, g, score, fstar = setting("dbn", w, K, nu, 0.8)
    assert nus == list(nu) and g == 0.8 and score == [a * b for a, b in zip(w, nu, strict=True)]
    assert setting("dbn", w, K, 0.5, 0.8)[1] == [0.5] * len(w)
    m = make_model("dbn", w, K, nu, 0.8)
    assert fstar == m.expected_reward(m.optimal_list())
    ss = np.random.SeedSequence(8)
    uk, pk = users_keys(ss, w, 1), policy_keys(ss, 1)
    n = 300
    for policy in ("cascade-klucb", "oracle"):
        regret, counts, lists, clicks = simulate_runs(
            m, policy, "best-first", n, uk, pk, np.arange(1, n + 1), threads=1, trace_steps=n
        )
        ref = reference_run("dbn", w, K, policy, "best-first", n, uk[0], pk[0], nu, 0.8)
        np.testing.assert_array_equal(lists[0], np.array(ref[0]))
        np.testing.assert_array_equal(clicks[0], np.array(ref[1]))
        np.testing.assert_array_equal(regret[0], np.array(ref[2]))
        np.testing.assert_array_equal(counts[0], np.array(ref[3]))


@pytest.mark.parametrize("model", MODEL_NAMES)
def test_cell_summary_names_the_position_parameters(model, tmp_path):
    """CellResult.summary has kappa (PBM) / lam (DCM) as lists of K floats, neither for the
    cascade and DBN models (also from a tuple of ints); it is strict JSON, and a stored cell
    loads back with an equal summary (the store compares the two)."""
    import json

    from cascading_bandits.simulate.results import CellResult
    from cascading_bandits.simulate.store import load_result, save_result

    kw = {"pbm": dict(kappa=(1.0, 0.25)), "dcm": dict(lam=(0.75, 0.5))}.get(model, {})
    res = run_cell(Cell("t", "c", model, (0.6, 0.45, 0.3), 2, "oracle", "best-first", 40, 2,
                        **kw), 1)  # fmt: skip
    s = res.summary()
    for k in ("kappa", "lam"):
        if k in kw:
            assert s[k] == list(kw[k]) == res.params[k] and isinstance(s[k], list)
        else:
            assert k not in s
    assert json.loads(json.dumps(s, allow_nan=False)) == s
    params = dict(res.params)
    for k in kw:
        params[k] = tuple(int(x) if x == int(x) else x for x in params[k])
    again = CellResult(params, res.checkpoints, res.regret, res.counts, res.provenance)
    assert again.summary() == s
    loaded = load_result(save_result(res, tmp_path))
    assert loaded.summary() == s


def test_top_k_is_the_full_sort_with_ties_to_the_smaller_id():
    """The O(L) selection of the optimal list (partition, then sort of the candidates)
    lists what a full sort by (value decreasing, id increasing) lists, ties included."""
    from cascading_bandits.simulate.models import _top_k

    rng = np.random.default_rng(7)
    for trial in range(2000):
        L = int(rng.integers(1, 30))
        K = int(rng.integers(1, L + 1))
        v = rng.integers(0, 4, L) / 3.0 if trial % 2 else rng.random(L)
        want = np.lexsort((np.arange(L), -v))[:K]
        np.testing.assert_array_equal(_top_k(v, K), want)


def test_kernel_args_are_fresh_copies():
    """The arrays a model gives the kernels are its values and writing to them does not
    change the model (they are copies of a per-model cache)."""
    for name in MODEL_NAMES:
        m = make_model(name, (0.3, 0.5, 0.5, 0.1), 2)
        a = m.kernel_args()
        np.testing.assert_array_equal(a[0], m.weights)
        a[0][:] = 0.99
        np.testing.assert_array_equal(m.kernel_args()[0], (0.3, 0.5, 0.5, 0.1))
        np.testing.assert_array_equal(m.optimal_list(), (1, 2))
