"""The policy registry, spec strings and their place in cells (names, params, identity)."""

import numpy as np
import pytest

from cascading_bandits.bounds.instance import b_lb
from cascading_bandits.simulate import run_cell
from cascading_bandits.simulate.engine import simulate_runs
from cascading_bandits.simulate.experiments import Cell, b_lb_cell, get_experiment
from cascading_bandits.simulate.models import make_model
from cascading_bandits.simulate.policies import (
    Param,
    get_policy,
    make_spec,
    parse_policies,
    parse_policy,
    policy_names,
    register_policy,
)
from cascading_bandits.simulate.rng import POLICY, policy_keys, uniform_py, users_keys


@pytest.mark.parametrize(
    "text,canonical",
    [
        ("cascade-klucb", "cascade-klucb"),
        ("cascade-klucb(c=3)", "cascade-klucb"),
        (" cascade-klucb( c = 3.0 ) ", "cascade-klucb"),
        ("cascade-klucb(c=0)", "cascade-klucb(c=0)"),
        ("cascade-klucb(c=-0.0)", "cascade-klucb(c=0)"),
        ("cascade-klucb(c=1e-3)", "cascade-klucb(c=0.001)"),
        ("cascade-ucb1(alpha=1.5)", "cascade-ucb1"),
        ("cascade-ucb1(alpha=2)", "cascade-ucb1(alpha=2)"),
        ("cascade-egreedy", "cascade-egreedy"),
        ("cascade-egreedy(eps=0.1)", "cascade-egreedy(eps=0.1)"),
        ("cascade-ts(prior=1,1)", "cascade-ts"),
        ("cascade-ts(prior=2, 1)", "cascade-ts(prior=2,1)"),
        ("ranked-klucb(c=2.5)", "ranked-klucb(c=2.5)"),
    ],
)
def test_canonical_strings(text, canonical):
    spec = parse_policy(text)
    assert spec.text == canonical == str(spec)
    assert parse_policy(canonical) == spec  # the canonical string parses back to the spec
    assert hash(parse_policy(canonical)) == hash(spec)


def test_defaults_and_kernel_params():
    assert parse_policy("cascade-klucb")["c"] == 3.0
    assert parse_policy("cascade-ucb1")["alpha"] == 1.5
    assert parse_policy("cascade-egreedy")["eps"] == 0.05
    assert parse_policy("cascade-ts")["prior"] == (1.0, 1.0)
    np.testing.assert_array_equal(parse_policy("cascade-ts(prior=3,2)").kernel_params(), [3, 2])
    assert parse_policy("oracle").kernel_params().shape == (0,)
    assert parse_policy("cascade-klucb").replace(c=1).text == "cascade-klucb(c=1)"
    with pytest.raises(ValueError, match="frozen|cannot assign"):
        try:
            parse_policy("oracle").name = "x"
        except AttributeError as e:  # dataclasses.FrozenInstanceError
            raise ValueError("frozen") from e


def test_parse_policies_splits_outside_parentheses():
    got = [s.text for s in parse_policies("cascade-ucb1, cascade-ts(prior=2,1),cascade-klucb(c=0)")]
    assert got == ["cascade-ucb1", "cascade-ts(prior=2,1)", "cascade-klucb(c=0)"]
    with pytest.raises(ValueError, match="at least one"):
        parse_policies(" , ")


@pytest.mark.parametrize(
    "text,msg",
    [
        ("ucb", r"unknown policy 'ucb'; known policies: .*cascade-klucb"),
        ("cascade-klucb(d=1)", r"cascade-klucb has no parameter 'd'; its parameters: c"),
        ("oracle(c=1)", r"oracle has no parameter 'c'; its parameters: none"),
        ("cascade-klucb(c=-1)", r"parameter c must be finite and in \[0, inf\), got '-1'"),
        ("cascade-egreedy(eps=1.5)", r"parameter eps must be finite and in \[0, 1\]"),
        ("cascade-egreedy(eps=nan)", r"parameter eps must be finite"),
        ("cascade-ucb1(alpha=inf)", r"parameter alpha must be finite"),
        ("cascade-ts(prior=0.5,1)", r"parameter prior must be finite and in \[1, inf\)"),
        ("cascade-ts(prior=2)", r"prior takes 2 number\(s\), got 1"),
        ("cascade-klucb(c=1,2)", r"c takes 1 number\(s\), got 2"),
        ("cascade-klucb(c=x)", r"parameter c must be a number, got 'x'"),
        ("cascade-klucb(c=1", r"must read name\(p=v, ...\)"),
        ("cascade-klucb(c=1, c=2)", r"given twice"),
        ("cascade-klucb(3)", r"must read p=v"),
    ],
)
def test_bad_specs_name_the_problem(text, msg):
    with pytest.raises(ValueError, match=msg):
        parse_policy(text)


def test_registry_rejects_bad_declarations():
    k = get_policy("oracle").kernel
    with pytest.raises(ValueError, match="already declared"):
        register_policy("oracle", kernel=k, reference="x:y")
    with pytest.raises(ValueError, match="letters, digits"):
        register_policy("bad name", kernel=k, reference="x:y")
    with pytest.raises(ValueError, match="orders"):
        register_policy("zz-new", kernel=k, reference="x:y", orders=("sideways",))
    with pytest.raises(ValueError, match=r"parameter p must be finite and in \[0, 1\], got 5.0"):
        Param("p", 5.0, 0.0, 1.0)
    with pytest.raises(ValueError, match="distinct"):
        register_policy("zz-new", kernel=k, reference="x:y", params=(Param("a", 0), Param("a", 1)))
    assert "zz-new" not in policy_names()
    with pytest.raises(TypeError):
        simulate_runs(make_model("cascade", (0.5, 0.2), 1), 1, "best-first", 5,
                      [1], [2], [5])  # fmt: skip


def test_cells_store_the_canonical_spec_and_keep_c():
    w = (0.3, 0.2, 0.1)
    kw = dict(experiment="x", cell_id="c", model="cascade", weights=w, K=2)
    a = Cell(policy="cascade-klucb(c=3)", **kw)
    assert a.policy == "cascade-klucb" and a.c == 3.0 and a.params["policy"] == "cascade-klucb"
    b = Cell(policy="cascade-klucb(c=0)", **kw)
    assert b.policy == "cascade-klucb(c=0)" and b.c == 0.0
    # parameters come from the spec alone: there is no c argument to contradict it
    with pytest.raises(TypeError):
        Cell(policy="cascade-klucb", c=0, **kw)
    assert Cell(policy="cascade-ucb1(alpha=2)", **kw).c == 3.0  # no c: the default 3
    assert Cell(policy="cascade-ts(prior=2,1)", **kw).params["policy"] == "cascade-ts(prior=2,1)"


def test_cell_ids_differ_by_parameters():
    ids = {
        b_lb_cell("x", 8, 2, 0.2, 0.1, p).cell_id
        for p in ("cascade-klucb", "cascade-klucb(c=0)", "cascade-klucb(c=1)")
    }
    assert len(ids) == 3
    assert b_lb_cell("x", 8, 2, 0.2, 0.1, "cascade-klucb(c=0)").cell_id.endswith(
        "cascade-klucb(c=0)-best-first"
    )
    # the paper's experiments keep their names (the default c = 3 is omitted)
    assert get_experiment("table1")[1].cell_id == "L16-K2-p0.2-d0.15-cascade-klucb-best-first"


def test_egreedy_extremes():
    """eps = 1 shows uniform-random's lists; eps = 0 is greedy = CascadeUCB1 with alpha = 0."""
    w = tuple(b_lb(8, 2, 0.2, 0.1).weights)
    m = make_model("cascade", w, 2)
    ss = np.random.SeedSequence(3)
    uk, pk = users_keys(ss, w, 2), policy_keys(ss, 2)

    def lists(p):
        return simulate_runs(m, p, "best-first", 500, uk, pk, np.array([500]), threads=1,
                             trace_steps=500)[2]  # fmt: skip

    np.testing.assert_array_equal(lists("cascade-egreedy(eps=1)"), lists("uniform-random"))
    np.testing.assert_array_equal(lists("cascade-egreedy(eps=0)"), lists("cascade-ucb1(alpha=0)"))
    # eps = 0.3: at the steps whose coin (policy sub-draw 1 of (t, 0)) is < eps, the list is
    # uniform-random's; those are about 30% of the steps
    mid, rand = lists("cascade-egreedy(eps=0.3)"), lists("uniform-random")
    coin = np.array(
        [[uniform_py(int(pk[r]), POLICY, t, 0, 8, 1) < 0.3 for t in range(1, 501)] for r in (0, 1)]
    )
    assert abs(coin.mean() - 0.3) < 4 * np.sqrt(0.3 * 0.7 / coin.size)
    np.testing.assert_array_equal(mid[coin], rand[coin])
    assert (mid[~coin] != rand[~coin]).any(axis=1).mean() > 0.5  # greedy elsewhere


def test_run_cell_with_parameters():
    res = run_cell(b_lb_cell("x", 8, 2, 0.2, 0.1, "cascade-ts(prior=2,2)", horizon=200, runs=2), 1)
    assert res.params["policy"] == "cascade-ts(prior=2,2)"
    assert res.params["cell_id"].endswith("cascade-ts(prior=2,2)-best-first")


def test_make_spec_validates():
    assert make_spec("cascade-ts", prior=(2, 3)).text == "cascade-ts(prior=2,3)"
    with pytest.raises(ValueError, match="no parameter"):
        make_spec("cascade-ts", alpha=1)


@pytest.mark.parametrize(
    "kw,err,msg",
    [
        (dict(policy=1), TypeError, "integer codes"),
        (dict(order=0), TypeError, "order must be one of"),
        (dict(order="worst-first", policy="ranked-klucb"), ValueError, "allows only order"),
        (dict(horizon=0), ValueError, "horizon must be a positive integer"),
        (dict(threads=0), ValueError, "threads must be a positive integer"),
        (dict(checkpoints=[3, 2, 5]), ValueError, "checkpoints must increase"),
        (dict(checkpoints=[2, 4]), ValueError, "last = horizon"),
        (dict(pkeys=[1, 2]), ValueError, "same non-zero length"),
    ],
)
def test_simulate_runs_rejects_bad_input(kw, err, msg):
    args = dict(
        model=make_model("cascade", (0.5, 0.2, 0.1), 2),
        policy="cascade-klucb",
        order="best-first",
        horizon=5,
        ukeys=[1],
        pkeys=[2],
        checkpoints=[5],
    )
    args.update(kw)
    with pytest.raises(err, match=msg):
        simulate_runs(**args)
