"""The Monte-Carlo verdict rule, on synthetic evidence with every boundary placed exactly.

Every Monte-Carlo claim (``theorem2.mc``, ``theorem3.mc``, ``later.corollary*.mc`` through
:func:`verify.claims_montecarlo._mc_check`, every ``bound.*`` upper bound through
:func:`verify.claims_bounds.upper_check`) decides with
:func:`verify.claims_montecarlo.compare_with_bound`: ``fails`` if the lower limit exceeds the
bound at SOME checkpoint, ``holds`` if every upper limit is at most the bound, else
``undecided``; a limit equal to the bound is on the claim's side (R(n) <= B(n) allows equality).
Here the simulator is replaced by regrets built so that each limit sits exactly where the test
wants it: violated at one checkpoint only, touching the bound, one instance among several.
"""

import dataclasses

import numpy as np
import pytest
from scipy import stats

from cascading_bandits import simulate
from cascading_bandits.bounds.registry import Bound, Covers, get_bound, horizon_at_least
from cascading_bandits.simulate.results import CellResult
from cascading_bandits.verify import claims_bounds as CB
from cascading_bandits.verify import claims_montecarlo as MC
from cascading_bandits.verify.registry import CheckContext
from cascading_bandits.verify.verdict import FAILS, HOLDS, UNDECIDED

RUNS = 50
#: fixed standard scores: each column has sample mean 0 and sample sd 1 exactly
_Z = np.random.default_rng(7).standard_normal((RUNS, 1))
_Z = (_Z - _Z.mean()) / _Z.std(ddof=1)


def _regret(means, sd=1.0):
    """(RUNS, m) regrets whose column means are ``means`` and column sds ``sd`` (to rounding)."""
    means = np.asarray(means, dtype=float)
    return means + sd * _Z * np.ones_like(means)


MEANS = np.array([10.0, 20.0, 30.0, 40.0, 50.0])
GENEROUS = MEANS + 100.0  # every upper limit far below
TQ = stats.t.ppf(MC.CONFIDENCE, RUNS - 1)
SE = 1.0 / np.sqrt(RUNS)


def _limits():
    out = MC.compare_with_bound(_regret(MEANS), GENEROUS)
    assert out["status"] == HOLDS
    # the synthetic evidence is what it claims to be: limits at mean -+ t se
    np.testing.assert_allclose(out["mean"], MEANS, rtol=1e-14)
    np.testing.assert_allclose(out["se"], SE, rtol=1e-12)
    np.testing.assert_allclose(out["lower"], MEANS - TQ * SE, rtol=1e-12)
    return out["lower"], out["upper"]


# ---------------------------------------------------------------------------------------
# compare_with_bound
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("j", range(len(MEANS)))
def test_a_violation_at_one_checkpoint_only_fails(j):
    bound = GENEROUS.copy()
    bound[j] = 0.5 * MEANS[j]  # lower limit = mean - 0.47, far above half the mean
    out = MC.compare_with_bound(_regret(MEANS), bound)
    assert out["lower"][j] > bound[j]
    assert (out["upper"][np.arange(len(MEANS)) != j] < bound[np.arange(len(MEANS)) != j]).all()
    assert out["status"] == FAILS


@pytest.mark.parametrize("j", range(len(MEANS)))
def test_one_undecided_checkpoint_makes_the_comparison_undecided(j):
    bound = GENEROUS.copy()
    bound[j] = MEANS[j]  # inside the interval
    assert MC.compare_with_bound(_regret(MEANS), bound)["status"] == UNDECIDED


def test_violation_beside_an_undecided_checkpoint_fails():
    bound = GENEROUS.copy()
    bound[1] = MEANS[1]  # undecided here
    bound[3] = 0.5 * MEANS[3]  # violated here
    assert MC.compare_with_bound(_regret(MEANS), bound)["status"] == FAILS


@pytest.mark.parametrize("j", [0, 4])
def test_lower_limit_touching_the_bound_is_not_a_violation(j):
    lo, _ = _limits()
    bound = GENEROUS.copy()
    bound[j] = lo[j]  # lower limit == bound exactly: R(n) = B(n) is allowed
    out = MC.compare_with_bound(_regret(MEANS), bound)
    assert out["lower"][j] == bound[j]
    assert out["status"] == UNDECIDED
    # one ulp lower and the limit is above the bound: violated
    bound[j] = np.nextafter(lo[j], -np.inf)
    assert MC.compare_with_bound(_regret(MEANS), bound)["status"] == FAILS


@pytest.mark.parametrize("j", [0, 4])
def test_upper_limit_touching_the_bound_holds(j):
    _, hi = _limits()
    bound = GENEROUS.copy()
    bound[j] = hi[j]
    out = MC.compare_with_bound(_regret(MEANS), bound)
    assert out["upper"][j] == bound[j]
    assert out["status"] == HOLDS
    assert out["rel"][j] == 0.0
    bound[j] = np.nextafter(hi[j], -np.inf)
    assert MC.compare_with_bound(_regret(MEANS), bound)["status"] == UNDECIDED


def test_zero_variance_regret_equal_to_the_bound_holds():
    reg = np.tile(MEANS, (RUNS, 1))
    out = MC.compare_with_bound(reg, MEANS.copy())
    assert (out["lower"] == MEANS).all() and (out["upper"] == MEANS).all()
    assert out["status"] == HOLDS
    bound = MEANS.copy()
    bound[2] = np.nextafter(MEANS[2], -np.inf)
    assert MC.compare_with_bound(reg, bound)["status"] == FAILS


def test_relative_slack_is_measured_from_the_upper_limit():
    _, hi = _limits()
    out = MC.compare_with_bound(_regret(MEANS), GENEROUS)
    np.testing.assert_allclose(out["rel"], (GENEROUS - hi) / GENEROUS, rtol=1e-14)


# ---------------------------------------------------------------------------------------
# the claims' aggregation over checkpoints and instances (the simulator replaced)
# ---------------------------------------------------------------------------------------

CPS = np.array([1, 10, 100, 1000, 5000])
CP_MEANS = np.array([1.0, 8.0, 20.0, 35.0, 50.0])


def _plan_bound(plan, key, n):
    """The bound at n for the instance ``key``: generous unless ``plan[key]`` names n."""
    key = tuple(float(x) for x in key)
    j = int(np.searchsorted(CPS, n))
    assert CPS[j] == n
    what = plan.get(key, {}).get(int(n), "holds")
    return {
        "holds": CP_MEANS[j] + 100.0,
        "undecided": CP_MEANS[j],
        "fails": 0.5 * CP_MEANS[j],
    }[what]


@pytest.fixture
def fake_simulator(monkeypatch):
    """Replace :func:`simulate.run_cell` by synthetic regrets with means CP_MEANS."""
    calls = []

    def run_cell(cell, seed, checkpoints=None, **kw):
        cp = CPS if checkpoints is None else np.asarray(checkpoints, dtype=np.int64)
        means = np.interp(cp, CPS, CP_MEANS)
        calls.append((tuple(cell.weights), cell.K, tuple(int(x) for x in cp)))
        return CellResult(cell.params, cp, _regret(means), np.ones((RUNS, cell.L), np.int64))

    monkeypatch.setattr(simulate, "run_cell", run_cell)
    return calls


def _ctx(seed=0):
    return CheckContext(examples=1, rng=np.random.default_rng(seed), budget=1.0)


MC_KEYS = [tuple(w) for _, w, _ in MC.MC_INSTANCES]


def _mc(plan):
    return MC._mc_check(
        _ctx(), "cascade-ucb1", lambda inst, n: _plan_bound(plan, inst.weights, n), 1
    )


@pytest.mark.parametrize("i", range(len(MC_KEYS)))
@pytest.mark.parametrize("n", [1, 100, 5000])
def test_mc_check_one_violation_on_one_instance_fails(fake_simulator, i, n):
    out = _mc({MC_KEYS[i]: {n: "fails"}})
    assert len(fake_simulator) == len(MC_KEYS)
    assert out.status == FAILS
    assert out.counterexample["instance"] == MC.MC_INSTANCES[i][0]
    assert out.counterexample["n"] == n
    assert out.counterexample["lower_limit"] > out.counterexample["bound"]
    assert out.min_slack < 0 and out.argmin["n"] == n


def test_mc_check_keeps_a_failure_whatever_follows(fake_simulator):
    # instance 0 fails, instance 1 undecided; and the other way round
    assert _mc({MC_KEYS[0]: {10: "fails"}, MC_KEYS[1]: {10: "undecided"}}).status == FAILS
    assert _mc({MC_KEYS[0]: {10: "undecided"}, MC_KEYS[1]: {1000: "fails"}}).status == FAILS


def test_mc_check_undecided_and_holds(fake_simulator):
    assert _mc({MC_KEYS[0]: {1000: "undecided"}}).status == UNDECIDED
    assert _mc({MC_KEYS[1]: {1: "undecided"}}).status == UNDECIDED
    out = _mc({})
    assert out.status == HOLDS and out.counterexample is None
    assert 0 < out.min_slack < 1


def _toy_bound(evaluate, premises=()):
    return Bound(
        name="toy-synthetic",
        title="toy bound on synthetic evidence",
        label="toy",
        kind="upper",
        form="constant",
        gap="free",
        covers=(Covers("cascade-ucb1", alpha=1.5),),
        evaluate=evaluate,
        source="tests/verify/test_mc_verdicts.py",
        rate="planned",
        premises=premises,
        monotone=False,
        validity_instances=(((0.7, 0.6, 0.5, 0.2, 0.1, 0.1), 3),),
    )


def _upper(plan, premises=(), covers=None):
    def evaluate(inst, n):
        n = np.asarray(n)
        return np.vectorize(lambda m: _plan_bound(plan, inst.weights, m))(n).astype(float)

    b = _toy_bound(evaluate, premises)
    if covers is not None:
        b = dataclasses.replace(b, covers=covers)
    return CB.upper_check(b, _ctx())


VALIDITY = (0.7, 0.6, 0.5, 0.2, 0.1, 0.1)
DEFAULT_KEYS = [tuple(w) for _, w, _ in CB.DEFAULT_INSTANCES]


@pytest.mark.parametrize("key", [VALIDITY, *DEFAULT_KEYS])
@pytest.mark.parametrize("n", [10, 1000, 5000])
def test_bound_claim_one_violation_on_one_instance_fails(fake_simulator, key, n):
    out = _upper({key: {n: "fails"}})
    assert out.status == FAILS, out.notes
    assert tuple(out.counterexample["weights"]) == key and out.counterexample["n"] == n
    assert len(out.domain_spec["instances"]) >= 3  # every other instance was simulated too


def test_bound_claim_keeps_a_failure_whatever_follows(fake_simulator):
    plan = {VALIDITY: {100: "fails"}, DEFAULT_KEYS[0]: {10: "undecided"}}
    assert _upper(plan).status == FAILS
    plan = {VALIDITY: {100: "undecided"}, DEFAULT_KEYS[1]: {5000: "fails"}}
    out = _upper(plan)
    assert out.status == FAILS and tuple(out.counterexample["weights"]) == DEFAULT_KEYS[1]


def test_bound_claim_undecided_and_holds(fake_simulator):
    assert _upper({DEFAULT_KEYS[1]: {100: "undecided"}}).status == UNDECIDED
    out = _upper({})
    assert out.status == HOLDS and out.counterexample is None


def test_bound_claim_on_an_instance_where_it_applies_from_some_n_only(fake_simulator):
    """A premise on n: the checkpoints below it are left out, the instance is still checked."""
    out = _upper({VALIDITY: {1000: "fails"}}, premises=(horizon_at_least(100),))
    assert out.status == FAILS
    for used in out.domain_spec["instances"]:
        assert used["checkpoints"] == [100, 1000, 5000]
    assert _upper({}, premises=(horizon_at_least(100),)).status == HOLDS


# ---------------------------------------------------------------------------------------
# bounds proved for a run of horizon n only (TopRank's delta = 1/n)
# ---------------------------------------------------------------------------------------
TOPRANK = (Covers("toprank", delta=1.0),)


def test_horizon_specific_rule():
    ucb = _toy_bound(lambda inst, n: np.asarray(n, float))
    assert CB.horizon_specific(ucb) is None
    tuned = dataclasses.replace(ucb, covers=TOPRANK)
    assert "horizon" in CB.horizon_specific(tuned)
    # delta given as a number is used at every horizon: an anytime run
    fixed = dataclasses.replace(ucb, covers=(Covers("toprank", delta=0.01),))
    assert CB.horizon_specific(fixed) is None
    # the shipped TopRank bounds are horizon-specific, the paper's are not
    assert CB.horizon_specific(get_bound("toprank")) is not None
    assert CB.horizon_specific(get_bound("theorem2")) is None


def test_horizon_specific_bound_is_compared_at_the_horizon_only(fake_simulator):
    """Below the regret at every checkpoint t < n but above it at the horizon: a bound for a
    run of horizon n says nothing at t < n, so the claim holds (it failed when every
    checkpoint was compared with the bound at t)."""
    plan = {k: {10: "fails", 100: "fails", 1000: "fails"} for k in [VALIDITY, *DEFAULT_KEYS]}
    assert _upper(plan).status == FAILS  # an anytime bound: t < n counts
    out = _upper(plan, covers=TOPRANK)
    assert out.status == HOLDS, out.notes
    assert "horizon only" in out.notes and out.domain_spec["horizon_only"]
    for used in out.domain_spec["instances"]:
        assert used["checkpoints"] == [5000]
    # a violation at the horizon still fails
    plan = {VALIDITY: {5000: "fails"}}
    out = _upper(plan, covers=TOPRANK)
    assert out.status == FAILS and out.counterexample["n"] == 5000


def test_declared_anytime_overrides_the_policy_rule():
    ucb = _toy_bound(lambda inst, n: np.asarray(n, float))
    assert CB.horizon_specific(dataclasses.replace(ucb, anytime=False)) is not None
    tuned = dataclasses.replace(ucb, covers=TOPRANK, anytime=True)
    assert CB.horizon_specific(tuned) is None
    assert get_bound("toprank").anytime is False and get_bound("toprank-gapfree").anytime is False
    with pytest.raises(ValueError, match="anytime"):
        dataclasses.replace(ucb, anytime="no")


def test_theorem3_mc_curve_equals_one_call_per_checkpoint():
    """theorem3.mc evaluates Theorem 3 at all its checkpoints in one theorem3_curve call
    (``_mc_check(..., curve=True)``): the values must be those of one call per n, bit for bit,
    on the claim's own instances and on horizons spread over many brackets of the eps grid."""
    from cascading_bandits.bounds.instance import CascadeInstance
    from cascading_bandits.bounds.upper import theorem3_bound

    ns = np.unique(np.geomspace(48, 10**7, 40).astype(np.int64))
    for _, cell in MC._cells("cascade-klucb", 5000, 10):
        inst = CascadeInstance(cell.weights, cell.K)
        one_by_one = np.array([theorem3_bound(inst, int(n)) for n in ns])
        assert np.array_equal(theorem3_bound(inst, ns), one_by_one)
