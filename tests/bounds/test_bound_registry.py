"""Every registered bound, whatever module declared it, against the registry's contract.

The tests are parametrised over :func:`bounds.registry.bound_names` at collection time, so a
bound added in a new ``catalog_*`` module is tested without being named here. On a few
instances where a bound applies: its values are finite and non-negative, the vectorised call
equals the scalar calls, it is nondecreasing in n where declared ``monotone``, and bad horizons
are refused; on instances that break a premise, ``failed_premise`` names it. Then the
declarations themselves: ``Bound`` refuses bad ones, the registry refuses duplicates and
unknown names, ``Covers.matches`` needs the parameter values the proof needs.
"""

import math

import numpy as np
import pytest

from cascading_bandits.bounds.instance import CascadeInstance, b_lb
from cascading_bandits.bounds.registry import (
    ANY_POLICY,
    HAS_SUBOPTIMAL,
    UNIQUE_OPTIMUM,
    Bound,
    Covers,
    Premise,
    all_bounds,
    bound_names,
    get_bound,
    model_view,
    register_bound,
    unregister_bound,
)

NAMES = bound_names()

#: instances tried for every bound (those where it applies are used), plus its own
CANDIDATES = (
    b_lb(8, 2, 0.2, 0.15),
    b_lb(6, 3, 0.3, 0.2),
    CascadeInstance((0.95, 0.6, 0.45, 0.3, 0.3, 0.02), 2),  # near 0 and 1, tie below the optimum
)
#: instances that break common premises (a bound's premise broken by none is not tested here)
BREAKERS = (
    CascadeInstance((0.5, 0.3, 0.3, 0.1), 2),  # tie at the optimum: w(K) = w(K+1)
    CascadeInstance((0.5, 0.3, 0.3), 3),  # K = L: nothing to learn
    CascadeInstance((0.4, 0.4, 0.4, 0.4), 2),  # all equal
    CascadeInstance((1.0, 0.5, 0.3, 0.0), 2),  # weights at 0 and 1
    CascadeInstance((0.6, 0.5, 0.3, 0.1), 2),  # not a B_LB instance
)
#: horizons where vectorised and scalar values are compared (47/48: Theorem 3's switch)
SCALAR_N = (1, 2, 3, 47, 48, 1000, 10**5)
#: the monotonicity grid, 1 .. 1e7
GRID = np.unique(
    np.concatenate(
        [
            np.arange(1, 61),
            np.round(np.logspace(2, 7, 41)).astype(np.int64),
            [47, 48, 10**7],
        ]
    )
).astype(np.int64)
BAD_N = (10**400, 0, -1, 1.5, float("nan"), float("inf"), "10")


def _model(b):
    return "cascade" if "cascade" in b.models else b.models[0]


def _instances(b):
    extra = tuple(CascadeInstance(w, k) for w, k in b.validity_instances)
    return [i for i in extra + CANDIDATES if b.applies(i, model=_model(b))]


def _ns(b, inst, ns):
    """The horizons of ``ns`` where ``b`` applies on ``inst`` (premises on n)."""
    return np.array([n for n in ns if b.applies(inst, int(n), _model(b))], dtype=np.int64)


def test_registry_is_not_empty_and_names_are_unique():
    assert len(NAMES) == len(set(NAMES)) >= 1
    assert [b.name for b in all_bounds()] == list(NAMES)
    assert set(bound_names("upper")) | set(bound_names("lower")) == set(NAMES)
    for b in all_bounds():
        assert get_bound(b.name) is b


@pytest.mark.parametrize("name", NAMES)
def test_values_finite_nonnegative_and_vectorised_equals_scalar(name):
    b = get_bound(name)
    insts = _instances(b)
    assert insts, f"{name} applies to none of the test instances; give it validity_instances"
    for inst in insts:
        ns = _ns(b, inst, SCALAR_N)
        assert ns.size
        vec = b(inst, ns, model=_model(b))
        assert isinstance(vec, np.ndarray) and vec.shape == ns.shape
        assert np.all(np.isfinite(vec)) and np.all(vec >= 0), (inst, vec)
        for n, v in zip(ns, vec, strict=True):
            s = b(inst, int(n), model=_model(b))
            assert isinstance(s, float)
            assert s == v or abs(s - v) <= 1e-12 * abs(s), (inst.weights, int(n), s, v)
        # any array shape is kept; a numpy integer and a float holding an integer are scalars
        square = ns[: (ns.size // 2) * 2].reshape(-1, 2) if ns.size >= 2 else ns.reshape(1, 1)
        assert b(inst, square, model=_model(b)).shape == square.shape
        assert b(inst, np.int64(ns[0]), model=_model(b)) == pytest.approx(vec[0], rel=1e-12)
        assert b(inst, float(ns[0]), model=_model(b)) == pytest.approx(vec[0], rel=1e-12)


@pytest.mark.parametrize("name", [n for n in NAMES if get_bound(n).monotone])
def test_nondecreasing_in_n_where_declared(name):
    b = get_bound(name)
    for inst in _instances(b):
        ns = _ns(b, inst, GRID)
        vals = b(inst, ns, model=_model(b))
        assert np.all(np.isfinite(vals)) and np.all(vals >= 0)
        drop = np.flatnonzero(np.diff(vals) < 0)
        assert drop.size == 0, f"{name} decreases on {inst.weights}, K = {inst.K}: " + ", ".join(
            f"n = {ns[i]} -> {ns[i + 1]}: {vals[i]!r} -> {vals[i + 1]!r}" for i in drop
        )


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("bad", BAD_N, ids=repr)
def test_bad_horizons_are_value_errors(name, bad):
    b = get_bound(name)
    inst = _instances(b)[0]
    with pytest.raises(ValueError):
        b(inst, bad, model=_model(b))
    with pytest.raises(ValueError):
        b(inst, np.array([10, bad]), model=_model(b))


@pytest.mark.parametrize("name", NAMES)
def test_failed_premise_names_the_broken_premise(name):
    b = get_bound(name)
    texts = b.premise_texts()
    model = _model(b)
    for inst in BREAKERS + CANDIDATES:
        for n in (None, 1, 2):
            broken = [p.text for p in b.premises if not _holds(p, inst, n, model)]
            got = b.failed_premise(inst, n, model)
            if broken:
                assert got == broken[0], (inst.weights, inst.K, n, got, broken)
                assert got in texts and not b.applies(inst, n, model)
                with pytest.raises(ValueError, match="needs"):
                    b(inst, 1 if n is None else n, model=model)
            else:
                assert got is None and b.applies(inst, n, model)
    # the unique-optimum premise is broken by ties at the optimum
    if UNIQUE_OPTIMUM in b.premises:
        assert b.failed_premise(BREAKERS[0], None, model) == UNIQUE_OPTIMUM.text
    if HAS_SUBOPTIMAL in b.premises and UNIQUE_OPTIMUM not in b.premises:
        assert b.failed_premise(BREAKERS[1], None, model) == HAS_SUBOPTIMAL.text
    # a click model the bound is not proved for is named too
    other = [m for m in ("cascade", "dbn") if m not in b.models]
    for m in other:
        why = b.failed_premise(CANDIDATES[0], None, m)
        assert why is not None and "click model" in why


def _holds(p, inst, n, model):
    try:
        if p.on_model:
            return bool(p.holds(inst, n, model_view(model)))
        return bool(p.holds(inst, n))
    except ValueError:
        return False


def test_some_bound_needs_a_unique_optimum():
    assert any(UNIQUE_OPTIMUM in b.premises for b in all_bounds())


# ---------------------------------------------------------------------------------------
# declarations
# ---------------------------------------------------------------------------------------
def _decl(**kw):
    base = dict(
        name="test-bound",
        title="a test bound",
        label="test",
        kind="upper",
        form="constant",
        gap="free",
        covers=(Covers("cascade-ucb1", alpha=1.5),),
        evaluate=lambda inst, n: np.asarray(n, dtype=float),
        source="tests/bounds/test_registry.py",
        rate="n",
    )
    base.update(kw)
    return base


def test_a_good_declaration_is_accepted():
    b = Bound(**_decl())
    assert b.comparable and b.policy_text() == "cascade-ucb1(alpha=1.5)"
    assert b.algorithm == "cascade-ucb1(alpha=1.5)"
    assert Bound(**_decl(covers=ANY_POLICY, kind="lower")).policy_text() == ANY_POLICY
    assert not Bound(**_decl(form="order")).comparable


@pytest.mark.parametrize(
    "bad",
    [
        {"name": ""},
        {"name": "Theorem2"},
        {"name": "theorem 2"},
        {"name": "theorem_2"},
        {"name": "2theorem"},
        {"name": "-theorem"},
        {"name": None},
        {"title": ""},
        {"label": "  "},
        {"source": ""},
        {"rate": None},
        {"kind": "middle"},
        {"kind": "Upper"},
        {"form": "exact"},
        {"gap": "both"},
        {"covers": ()},
        {"covers": ("cascade-ucb1",)},
        {"covers": "all"},
        {"covers": (Covers("cascade-ucb1"), "cascade-klucb")},
        {"evaluate": 3.0},
        {"evaluate": None},
        {"premises": ("unique optimum",)},
        {"models": ("ubm",)},
        {"notes": "a note"},
    ],
    ids=repr,
)
def test_bad_declarations_are_refused(bad):
    with pytest.raises(ValueError):
        Bound(**_decl(**bad))


def test_premise_and_covers_validate():
    with pytest.raises(ValueError):
        Premise("", lambda inst, n: True)
    with pytest.raises(ValueError):
        Premise("something", True)
    for bad in (math.nan, math.inf, True, "x", None):
        with pytest.raises(ValueError):
            Covers("cascade-klucb", c=bad)
    with pytest.raises(ValueError):
        Covers("  ")


def test_covers_matches_needs_the_proofs_parameters():
    c = Covers("cascade-klucb", c=3)
    assert c.text == "cascade-klucb(c=3)"
    assert c.matches("cascade-klucb", {"c": 3}) and c.matches("cascade-klucb", {"c": 3.0})
    assert c.matches("cascade-klucb", {"c": 3, "other": 1})
    assert not c.matches("cascade-klucb", {"c": 2.5})
    assert not c.matches("cascade-klucb", {})  # the needed parameter missing: not covered
    assert not c.matches("cascade-klucb")
    assert not c.matches("cascade-klucb", {"c": "three"})
    assert not c.matches("cascade-ucb1", {"c": 3})
    free = Covers("cascade-klucb")  # no parameter needed: any value
    assert free.text == "cascade-klucb"
    assert free.matches("cascade-klucb") and free.matches("cascade-klucb", {"c": 0})
    assert not free.matches("cascade-ucb1")


def test_register_refuses_a_duplicate_and_unregister_removes():
    first = get_bound(NAMES[0])
    with pytest.raises(ValueError, match="already registered"):
        register_bound(Bound(**_decl(name=NAMES[0])))
    assert get_bound(NAMES[0]) is first
    with pytest.raises(ValueError):
        register_bound("theorem2")
    b = register_bound(Bound(**_decl(name="test-registry-toy")))
    try:
        assert get_bound("test-registry-toy") is b
        assert bound_names()[-1] == "test-registry-toy"
        b2 = register_bound(Bound(**_decl(name="test-registry-toy", rate="n again")), replace=True)
        assert get_bound("test-registry-toy") is b2
    finally:
        unregister_bound("test-registry-toy")
    assert "test-registry-toy" not in bound_names()
    with pytest.raises(ValueError, match="unknown bound"):
        unregister_bound("test-registry-toy")


@pytest.mark.parametrize("bad", ["no-such-bound", "", None, 2, "Theorem2"], ids=repr)
def test_get_bound_unknown_lists_the_names(bad):
    with pytest.raises(ValueError, match="unknown bound") as err:
        get_bound(bad)
    for name in NAMES:
        assert name in str(err.value)


def test_model_view_carries_parameters_and_rejects_bad_ones():
    from cascading_bandits.bounds.registry import ModelView, model_view

    v = model_view("pbm", kappa=[0.9, 0.4])
    assert v.name == "pbm" and v.get("kappa").tolist() == [0.9, 0.4] and v.get("lam") is None
    # reduced names as model_name gives them; the parameters stay readable
    assert model_view("dcm", lam=[0.0, 0.0]).name == "cascade"
    assert model_view("dbn", nu=1.0, gamma=1.0).name == "cascade"
    assert model_view(v) is v
    for bad, msg in (
        (dict(model="pbm", kappa=[1.2]), "kappa must lie in"),
        (dict(model="pbm", kappa=[float("nan")]), "kappa"),
        (dict(model="zzz"), "model"),
        (dict(model=v, kappa=[0.5]), "either in the ModelView"),
    ):
        with pytest.raises(ValueError, match=msg):
            model_view(**bad)
    with pytest.raises(ValueError, match="model"):
        ModelView("position-based")


def test_premise_on_model_sees_the_view():
    from cascading_bandits.bounds.instance import CascadeInstance
    from cascading_bandits.bounds.registry import Bound, Covers, Premise, model_view

    seen = []

    def holds(inst, n, model):
        seen.append(model.name)
        k = model.get("kappa")
        return k is not None and float(k[0]) > 0.5

    b = Bound(
        name="test-model-premise",
        title="t",
        label="t",
        kind="upper",
        form="constant",
        gap="free",
        covers=(Covers("cascade-ucb1"),),
        evaluate=lambda inst, n: n.astype(float),
        source="test",
        rate="n",
        premises=(Premise("kappa_1 > 1/2", holds, on_model=True),),
        models=("pbm",),
    )
    inst = CascadeInstance((0.5, 0.2), 1)
    assert b.failed_premise(inst, 10, "pbm") == "kappa_1 > 1/2"
    assert b.failed_premise(inst, 10, model_view("pbm", kappa=[0.6])) is None
    assert b(inst, 10, model=model_view("pbm", kappa=[0.6])) == 10.0
    assert "pbm click model (got cascade)" in b.failed_premise(inst, 10, "cascade")
    assert seen == ["pbm", "pbm", "pbm", "pbm"]


def test_catalog_scan_sees_a_module_added_or_removed_later(tmp_path, monkeypatch):
    """catalog_modules keeps its directory scan only while the package directories are
    unchanged: a catalog file added (or removed) afterwards is in (or out of) the answer."""
    import cascading_bandits.bounds as pkg
    from cascading_bandits.bounds.registry import catalog_modules

    monkeypatch.setattr(pkg, "__path__", [*pkg.__path__, str(tmp_path)])
    name = f"{pkg.__name__}.catalog_zz_added_later"
    before = catalog_modules()
    assert name not in before and catalog_modules() == before
    (tmp_path / "catalog_zz_added_later.py").write_text("")
    assert catalog_modules() == [*before, name]
    (tmp_path / "catalog_zz_added_later.py").unlink()
    assert catalog_modules() == before
