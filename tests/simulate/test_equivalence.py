"""The engine takes the reference's decisions, bit for bit, on the same random numbers.

Coverage (from the registry, tests/simulate/registry_cases.py): every declared policy,
at its defaults and with every parameter moved (``variant``), x every click model x every
order it allows, on two instances (B_LB with many ties; weights including 0 and 1): by
default each combo on one of them, alternating, and on the other in the slow tier; for
1200 steps, with the lazy selection and with the plain loop where the policy has both (on
the same instance, both held to one reference run);
plus lazy == plain for 10000 steps (30000 in the slow tier). The DBN model also with a
satisfaction probability per item and gamma apart from all of them (every policy at its
defaults, every order).
"""

import functools

import numpy as np
import pytest
from dbn_item_nu import GAMMA, ITEM_NU_16, import_references, per_item_nu
from reference import reference_run
from reference.ts import beta_py
from registry_cases import assert_lazy_equals_plain, combos, specs, variant

from cascading_bandits.bounds.instance import b_lb
from cascading_bandits.simulate.engine import simulate_runs
from cascading_bandits.simulate.models import MODEL_NAMES, make_model
from cascading_bandits.simulate.policies import get_policy, parse_policy, policy_names
from cascading_bandits.simulate.rng import beta_draw, policy_keys, uniform, uniform_py, users_keys

STEPS = 1200
INSTANCES = {
    "blb": (tuple(b_lb(8, 3, 0.2, 0.1).weights), 3),
    "edges": ((0.9, 0.0, 0.35, 1.0, 0.05, 0.35, 0.6, 0.12), 3),
}
COMBOS = combos()
LAZY_COMBOS = [
    (s, m, o, lazy)
    for (s, m, o) in COMBOS
    for lazy in ((True, False) if parse_policy(s).decl.uses_lazy else (True,))
]


def _keys(weights, runs=1, seed=2024):
    ss = np.random.SeedSequence(seed)
    return users_keys(ss, weights, runs), policy_keys(ss, runs)


def test_coverage_is_complete():
    """Every declared policy (default and variant spec), model and allowed order is covered."""
    names = policy_names()
    assert {parse_policy(c[0]).name for c in COMBOS} == set(names)
    for name in names:
        for model in MODEL_NAMES:
            for order in get_policy(name).orders:
                assert (name, model, order) in COMBOS
                if variant(name) is not None:
                    assert (variant(name), model, order) in COMBOS
    assert set(specs()) >= set(names)


def test_variants_move_every_parameter():
    for name in policy_names():
        v = variant(name)
        if v is not None:
            d, s = parse_policy(name), parse_policy(v)
            assert all(a != b for (_, a), (_, b) in zip(d.values, s.values, strict=True))


def _reference_cases():
    """Every combo on both instances, lazy and plain; by default each (spec, model, order)
    on one of them, alternating along the combo list (so each policy meets both instances
    across its models and orders), lazy and plain on the same one (they share its reference
    run, :func:`_reference`), and on the other in the slow tier (CI runs both)."""
    names = sorted(INSTANCES)
    combo_index = {c: i for i, c in enumerate(COMBOS)}
    out = []
    for spec, model, order, lazy in LAZY_COMBOS:
        i = combo_index[spec, model, order]
        for j, inst in enumerate(names):
            marks = () if (i + j) % 2 == 0 else (pytest.mark.slow,)
            out.append(pytest.param(spec, model, order, lazy, inst, marks=marks))
    return out


def test_reference_cases_cover_every_combo_on_both_instances():
    """Across the two tiers every (spec, model, order, lazy) meets both instances once; the
    default run holds each once, lazy and plain on the same instance, and every policy on
    both instances."""
    cases = [(p.values, bool(p.marks)) for p in _reference_cases()]
    assert sorted(v for v, _ in cases) == sorted((*c, i) for c in LAZY_COMBOS for i in INSTANCES)
    default = [v for v, slow in cases if not slow]
    assert sorted(v[:4] for v in default) == sorted(LAZY_COMBOS)
    assert len({(v[:3], v[4]) for v in default}) == len(COMBOS)  # one instance per combo
    met = {(parse_policy(v[0]).name, v[4]) for v in default}
    assert met == {(name, i) for name in policy_names() for i in INSTANCES}


@functools.lru_cache(maxsize=4)
def _reference(model, instance, policy, order):
    """The reference run of test_engine_equals_reference's case (it does not depend on the
    engine's ``lazy``): computed once for the lazy and the plain case, which follow each other
    in a worker (pytest-xdist's ``--dist loadfile``). Tuples, so a test cannot alter it."""
    weights, K = INSTANCES[instance]
    nu, gamma = (0.7, 0.7) if model == "dbn" else (1.0, 1.0)
    uk, pk = _keys(weights)
    return _frozen(reference_run(model, weights, K, policy, order, STEPS, uk[0], pk[0], nu, gamma))


def _frozen(run):
    """A reference run (lists, clicks, regret, counts) as tuples."""
    lists, clicks, regret, counts = run
    return tuple(map(tuple, lists)), tuple(map(tuple, clicks)), tuple(regret), tuple(counts)


@pytest.mark.parametrize("policy,model,order,lazy,instance", _reference_cases())
def test_engine_equals_reference(policy, model, order, lazy, instance):
    weights, K = INSTANCES[instance]
    nu, gamma = (0.7, 0.7) if model == "dbn" else (1.0, 1.0)
    m = make_model(model, weights, K, nu, gamma)
    uk, pk = _keys(weights)
    cp = np.arange(1, STEPS + 1)
    regret, counts, trace, clicks = simulate_runs(
        m, policy, order, STEPS, uk, pk, cp, threads=1, lazy=lazy, trace_steps=STEPS
    )
    lists, ref_clicks, ref_regret, ref_counts = _reference(model, instance, policy, order)
    ref_lists = np.array(lists)
    diff = np.nonzero((trace[0] != ref_lists).any(axis=1))[0]
    assert diff.size == 0, (
        f"first different list at t = {diff[0] + 1}: {trace[0][diff[0]]} vs {ref_lists[diff[0]]}"
    )
    np.testing.assert_array_equal(clicks[0], np.array(ref_clicks))
    np.testing.assert_array_equal(regret[0], np.array(ref_regret))
    np.testing.assert_array_equal(counts[0], np.array(ref_counts))


ITEM_NU_COMBOS = [
    (name, order, lazy)
    for name in policy_names()
    for order in get_policy(name).orders
    for lazy in ((True, False) if get_policy(name).uses_lazy else (True,))
]


@functools.lru_cache(maxsize=4)
def _reference_item_nu(policy, order, n):
    """test_engine_equals_reference_dbn_item_nu's reference run, once for its lazy and
    plain case (as :func:`_reference`)."""
    weights, K = tuple(b_lb(16, 4, 0.2, 0.15).weights), 4
    uk, pk = _keys(weights, seed=77)
    import_references()
    with per_item_nu():
        out = reference_run("dbn", weights, K, policy, order, n, uk[0], pk[0], ITEM_NU_16, GAMMA)
    return _frozen(out)


@pytest.mark.parametrize("policy,order,lazy", ITEM_NU_COMBOS)
def test_engine_equals_reference_dbn_item_nu(policy, order, lazy):
    """DBN with nu per item (16 values, 1.0 among them) and gamma = 0.88: the engine's
    lists, clicks, regret and counts are the reference's."""
    weights, K = tuple(b_lb(16, 4, 0.2, 0.15).weights), 4
    m = make_model("dbn", weights, K, ITEM_NU_16, GAMMA)
    assert m.nu == ITEM_NU_16 and m.gamma == GAMMA
    uk, pk = _keys(weights, seed=77)
    n = 600
    regret, counts, trace, clicks = simulate_runs(
        m, policy, order, n, uk, pk, np.arange(1, n + 1), threads=1, lazy=lazy, trace_steps=n
    )
    lists, ref_clicks, ref_regret, ref_counts = _reference_item_nu(policy, order, n)
    np.testing.assert_array_equal(trace[0], np.array(lists))
    np.testing.assert_array_equal(clicks[0], np.array(ref_clicks))
    np.testing.assert_array_equal(regret[0], np.array(ref_regret))
    np.testing.assert_array_equal(counts[0], np.array(ref_counts))


def test_item_nu_reaches_the_reference():
    """The per-item nu changes the reference's numbers (not read as one number)."""
    weights, K = tuple(b_lb(16, 4, 0.2, 0.15).weights), 4
    uk, pk = _keys(weights, seed=77)
    import_references()
    with per_item_nu():
        per_item = reference_run("dbn", weights, K, "cascade-ucb1", "best-first", 200, uk[0],
                                 pk[0], ITEM_NU_16, GAMMA)  # fmt: skip
    mean_nu = float(np.mean(ITEM_NU_16))
    one = reference_run("dbn", weights, K, "cascade-ucb1", "best-first", 200, uk[0], pk[0],
                        mean_nu, GAMMA)  # fmt: skip
    assert per_item[2] != one[2]


#: steps of test_lazy_equals_plain_long: the default run's cases (the plain loop of the
#: ranked policies is about 20 times slower than the lazy selection: 30000 steps of every
#: case were a tenth of the default run's CPU time) and the slow tier's
SHORT, LONG = 10000, 30000


def _long_cases():
    """(spec, model, order, steps): every combo of a lazy policy. By default each (policy,
    model, order) once, over SHORT steps: on the policy's default spec or on its variant,
    alternating along the models and orders (a policy without parameters: on its default
    spec), so every lazy policy meets every click model and order, and every spec several
    of them, in the default run (the same kernels and selection code as the long cases,
    after the same first steps); every combo over LONG steps in the slow tier (CI runs it):
    the default run's cases and the other spec of each. test_engine_equals_reference takes
    both specs, lazy and plain, on every (model, order) in the default run."""
    out = []
    for spec, model, order in COMBOS:
        decl = parse_policy(spec).decl
        if not decl.uses_lazy:
            continue
        orders = list(get_policy(decl.name).orders)
        k = MODEL_NAMES.index(model) * len(orders) + orders.index(order)
        other = variant(decl.name) is not None and (k + (spec != decl.name)) % 2 == 1
        if other:
            out.append(pytest.param(spec, model, order, LONG, marks=(pytest.mark.slow,)))
            continue
        # the default run's case over SHORT steps, the same case over LONG in the slow tier
        out.append(pytest.param(spec, model, order, SHORT))
        out.append(pytest.param(spec, model, order, LONG, marks=(pytest.mark.slow,)))
    return out


def test_long_cases_of_the_default_run_cover_every_lazy_combo():
    """The default run's long cases: every lazy policy x model x order, and every spec, over
    SHORT steps; the slow tier: every lazy combo over LONG steps."""
    default = [p.values[:3] for p in _long_cases() if not p.marks]
    assert all(p.values[3] == SHORT for p in _long_cases() if not p.marks)
    # the slow tier holds every case over LONG steps: the default run's ones too
    slow = [p.values for p in _long_cases() if p.marks]
    assert sorted(v[:3] for v in slow) == sorted(
        c for c in COMBOS if parse_policy(c[0]).decl.uses_lazy
    )
    assert all(v[3] == LONG for v in slow)
    lazy = {parse_policy(s).name for s in specs() if parse_policy(s).decl.uses_lazy}
    want = {(name, m, o) for name in lazy for m in MODEL_NAMES for o in get_policy(name).orders}
    assert {(parse_policy(s).name, m, o) for s, m, o in default} == want
    assert {s for s, _, _ in default} == {s for s in specs() if parse_policy(s).name in lazy}


@pytest.mark.parametrize("policy,model,order,n", _long_cases())
def test_lazy_equals_plain_long(policy, model, order, n):
    """Lazy == plain, 2 runs on B_LB(16, 4, 0.2, 0.15), over ``n`` steps (:func:`_long_cases`:
    SHORT by default, LONG in the slow tier); 300 checkpoints."""
    weights, K = tuple(b_lb(16, 4, 0.2, 0.15).weights), 4
    m = make_model(
        model, weights, K, 0.7 if model == "dbn" else 1.0, 0.7 if model == "dbn" else 1.0
    )
    uk, pk = _keys(weights, runs=2, seed=5)
    cp = np.unique(np.linspace(1, n, 300).astype(np.int64))
    args = (m, policy, order, n, uk, pk, cp)
    assert_lazy_equals_plain(args)


def test_parameters_change_decisions():
    """A parameter reaches the kernel: the variant spec shows other lists than the default."""
    weights, K = INSTANCES["blb"]
    m = make_model("cascade", weights, K)
    uk, pk = _keys(weights)
    for name in policy_names():
        v = variant(name)
        if v is None:
            continue
        out = [
            simulate_runs(m, s, "best-first", 400, uk, pk, np.array([400]), threads=1,
                          trace_steps=400)[2]
            for s in (name, v)
        ]  # fmt: skip
        assert not np.array_equal(out[0], out[1]), name


def test_uniform_numba_equals_python():
    for key in (0, 1, 2**63 + 12345, 2**64 - 1):
        for s, t, e, w, j in [
            (0, 0, 0, 16, 0),
            (1, 99999, 2047, 2048, 0),
            (3, 5, 3, 8, 255),
            (2, 7, 1, 4, 9),
        ]:
            assert uniform(np.uint64(key), s, t, e, w, j) == uniform_py(key, s, t, e, w, j)


def test_beta_numba_equals_python():
    key = np.uint64(987654321)
    for a, b, t, e in [
        (1.0, 1.0, 1, 0),
        (3.0, 7.0, 2, 5),
        (1.0, 500.0, 10, 1),
        (4000.0, 20.0, 9, 7),
    ]:
        assert beta_draw(a, b, key, t, e, 8) == beta_py(a, b, int(key), t, e, 8)


@pytest.mark.slow
@pytest.mark.parametrize("policy,model,order", COMBOS)
def test_engine_equals_reference_long(policy, model, order):
    """5000 steps on B_LB(16, 4, 0.2, 0.15), the Section 5.3 instance (slow: CI's -m slow)."""
    weights, K, n = tuple(b_lb(16, 4, 0.2, 0.15).weights), 4, 5000
    nu, gamma = (0.7, 0.7) if model == "dbn" else (1.0, 1.0)
    m = make_model(model, weights, K, nu, gamma)
    uk, pk = _keys(weights, seed=31)
    _, counts, trace, _ = simulate_runs(
        m, policy, order, n, uk, pk, np.array([n]), threads=1, trace_steps=n
    )
    lists, _, _, ref_counts = reference_run(
        model, weights, K, policy, order, n, uk[0], pk[0], nu, gamma
    )
    np.testing.assert_array_equal(trace[0], np.array(lists))
    np.testing.assert_array_equal(counts[0], np.array(ref_counts))
