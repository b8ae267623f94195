"""Every registered claim on small random instances: it must hold, with a well-formed verdict."""

import dataclasses
import json

import pytest

from cascading_bandits import verify
from cascading_bandits.verify.registry import Claim, claim, get_claim
from cascading_bandits.verify.verdict import FAILS, HOLDS, METHODS, Outcome

CLAIMS = [c.id for c in verify.available_claims()]

#: every claim the issue asks for must be registered
REQUIRED = {
    "lemma1",
    "theorem1.permutation",
    "theorem1.upper",
    "theorem1.lower",
    "theorem2",
    "theorem3",
    "theorem4",
    "lemma2",
    "ucb1_peeling",
    "lemma2.monotone",
    "lemma2.chord",
    "lemma2.integral",
    "appendix.hoeffding",
    "appendix.series",
    "theorem3.loglog",
    "appendix.peeling_lp",
    "discussion.kl_quadratic",
    "discussion.exp_bound",
    "discussion.klucb_below_ucb1",
    "lower.example",
    "theorem2.mc",
    "theorem3.mc",
}


def test_required_claims_registered():
    ids = {c.id for c in verify.all_claims()}
    assert REQUIRED <= ids, REQUIRED - ids


@pytest.fixture(scope="module")
def claims_share_work():
    """The claims of :func:`test_claim_holds` share their simulated cells, as in
    ``verify.run_all`` (``verify.registry.sharing``): the twelve ``profile.*`` claims check
    links of one chain on the same counted runs, and the ``bound.*`` claims of a policy on
    the same cells. Shared work is seeded by the root seed and its key, not by the claim, so
    every verdict is the one the claim gives alone (tests/verify/test_mc_verdicts.py and
    test_two_processes_give_the_serial_verdicts_and_caveats compare such runs); each was
    computed once per claim (about 12 s of CPU of this file's 14 s in the profile claims)."""
    with verify.sharing():
        yield


@pytest.mark.parametrize("claim_id", CLAIMS)
def test_claim_holds(claim_id, claims_share_work):
    v = get_claim(claim_id).run(examples=8, seed=1)
    assert v.status == HOLDS, (v.status, v.counterexample, v.notes)
    assert v.method in METHODS
    assert v.method == get_claim(claim_id).method
    assert v.instances >= 1
    assert v.domain
    if v.min_slack is not None:
        # a claim that holds has nonnegative slack wherever it was measured
        assert v.min_slack >= -1e-12, v.min_slack
    if v.method == "interval":
        assert v.coverage == 1.0 and v.boxes_left == 0 and v.boxes >= 1
    json.dumps(v.to_dict())  # JSON-able, no NaN objects


def test_seed_reproducible():
    a = get_claim("theorem2").run(examples=5, seed=3)
    b = get_claim("theorem2").run(examples=5, seed=3)
    c = get_claim("theorem2").run(examples=5, seed=4)
    assert a.min_slack == b.min_slack and a.argmin == b.argmin
    assert a.argmin != c.argmin


def test_unknown_claim_is_value_error():
    with pytest.raises(ValueError, match="unknown claim"):
        get_claim("theorem99")
    with pytest.raises(ValueError, match="unknown claim"):
        verify.run_all(claims=["nope"])


def test_bad_budget_and_examples_rejected():
    c = get_claim("lemma2.monotone")
    with pytest.raises(ValueError):
        c.run(examples=0)
    with pytest.raises(ValueError):
        c.run(examples=5, seed=-1)


def test_outcome_validates_status_and_method():
    with pytest.raises(ValueError):
        Outcome(status="maybe", method="symbolic", domain="x")
    with pytest.raises(ValueError):
        Outcome(status="holds", method="vibes", domain="x")


def test_crashing_check_is_undecided_not_fails():
    from cascading_bandits.verify.registry import _REGISTRY, safe_run

    @claim("test.crash", "nowhere", "a check that raises", method="symbolic")
    def _crash(ctx):
        raise ZeroDivisionError("boom")

    try:
        v = safe_run(_REGISTRY["test.crash"], 3, 0)
        assert v.status == "undecided" and "ZeroDivisionError" in v.notes
    finally:
        del _REGISTRY["test.crash"]


def test_run_all_subset_and_order():
    vs = verify.run_all(examples=3, seed=0, claims=["lemma2.chord", "lemma2.monotone"])
    assert [v.claim_id for v in vs] == ["lemma2.chord", "lemma2.monotone"]
    assert all(isinstance(v, verify.Verdict) for v in vs)


def test_failing_claim_reports_fails():
    """A false inequality registered as a claim must come out as 'fails' with a counterexample."""
    from cascading_bandits.verify.checks import SlackTracker
    from cascading_bandits.verify.registry import _REGISTRY

    @claim("test.false", "nowhere", "x^2 >= x on [0, 2]", method="high-precision-sampling")
    def _false(ctx):
        tr = SlackTracker()
        for x in ctx.rng.uniform(0, 2, 50):
            tr.add(x * x - x, {"x": float(x)})
        return tr.outcome("high-precision-sampling", "[0, 2]")

    try:
        v = verify.run_all(examples=3, claims=["test.false"])[0]
        assert v.status == FAILS
        assert 0 < v.counterexample["x"] < 1 and v.counterexample["slack"] < 0
    finally:
        del _REGISTRY["test.false"]


def test_claim_dataclass_is_data():
    c = get_claim("ucb1_peeling")
    assert isinstance(c, Claim) and c.id == "ucb1_peeling"
    assert c.premises and c.reference and c.statement
    assert c.method in METHODS and callable(c.check) and c.is_available()
    with pytest.raises(dataclasses.FrozenInstanceError):
        c.id = "other"
    # ids are unique and every claim is found under its own id
    ids = [x.id for x in verify.all_claims()]
    assert len(ids) == len(set(ids))
    assert all(get_claim(i).id == i for i in ids)


def test_claim_with_missing_requirement_is_listed_not_run():
    from cascading_bandits.verify.registry import _REGISTRY

    @claim("test.needs", "nowhere", "needs a module", method="symbolic", requires=("no_such_mod",))
    def _needs(ctx):
        raise AssertionError("must not run")

    try:
        assert "test.needs" in [x.id for x in verify.all_claims()]
        assert "test.needs" not in [x.id for x in verify.available_claims()]
        assert not get_claim("test.needs").is_available()
    finally:
        del _REGISTRY["test.needs"]


def test_registering_an_id_twice_or_an_unknown_method_is_refused():
    with pytest.raises(ValueError, match="registered twice"):
        claim("lemma2", "x", "y", method="symbolic")(lambda ctx: None)
    with pytest.raises(ValueError, match="method must be one of"):
        claim("test.bad_method", "x", "y", method="guesswork")


def _fork_allowed(q):
    from cascading_bandits import verify

    q.put(verify._can_fork(10**6))


def test_a_daemonic_process_runs_verify_in_one_process():
    """The report runs verify in a daemonic worker, which may not start children: there the
    run must not try to fork (it once failed with 'daemonic processes are not allowed to have
    children'), while a long run in a plain process on two cores may."""
    import multiprocessing as mp
    import os

    ctx = mp.get_context("fork")
    q = ctx.Queue()
    p = ctx.Process(target=_fork_allowed, args=(q,), daemon=True)
    p.start()
    got = q.get(timeout=60)
    p.join(60)
    assert got is False
    if (os.cpu_count() or 1) >= 2 and os.environ.get("CASCADING_VERIFY_PROCESSES", "") != "1":
        p = ctx.Process(target=_fork_allowed, args=(q,), daemon=False)
        p.start()
        got = q.get(timeout=60)
        p.join(60)
        assert got is True


def test_two_processes_give_the_serial_verdicts_and_caveats():
    """run_all's two processes share one list of jobs (claims and caveat builders), taken
    from both ends: the verdicts (but their seconds) and the caveats are those of a serial
    run, in registry order, whoever ran each job."""
    import multiprocessing as mp

    from cascading_bandits.verify import findings

    if "fork" not in mp.get_all_start_methods():
        pytest.skip("no fork start method")
    ids = ["lemma1", "lemma2.chord", "lemma2.monotone", "appendix.series", "theorem1.upper"]
    todo = [get_claim(i) for i in ids]
    kinds = [k for k, _ in verify._jobs(todo, with_caveats=True)]
    assert kinds.count("caveat") == len(findings.CAVEAT_BUILDERS)
    forked = verify._run_forked(todo, 3, 0, 1.0, with_caveats=True)
    cavs = verify.caveats()  # the ones the two processes computed, returned once
    assert not findings._PREFETCHED
    with verify.sharing():
        serial = [verify.safe_run(c, 3, 0, 1.0) for c in todo]

    def strip(v):
        d = v.to_dict()
        d.pop("seconds")
        return d

    assert [v.claim_id for v in forked] == ids
    assert [strip(v) for v in forked] == [strip(v) for v in serial]
    assert [c.to_dict() for c in cavs] == [c.to_dict() for c in findings.caveats()]


def test_simulating_claims_go_to_the_back_of_the_jobs():
    todo = [get_claim(i) for i in ("lemma1", "theorem2.mc", "bound.theorem2", "lemma2")]
    jobs = verify._jobs(todo, with_caveats=False)
    assert [c.id for _, c in jobs] == ["lemma1", "lemma2", "bound.theorem2", "theorem2.mc"]


def test_caveats_are_listed_longest_first_before_the_sim_caveats():
    """The caveat jobs come by decreasing measured cost (this process takes them last, next
    to where it meets the forked one), the rest in builder order, those reusing the
    simulating claims' work (SIM_CAVEATS) after them."""
    from cascading_bandits.verify import findings

    names = [b.__name__ for b in findings.CAVEAT_BUILDERS]
    jobs = verify._jobs([], with_caveats=True)
    got = [names[i] for kind, i in jobs if kind == "caveat"]
    assert sorted(got) == sorted(names)
    cost = [verify.CAVEAT_SECONDS.get(n, 0.0) for n in got if n not in verify.SIM_CAVEATS]
    assert cost == sorted(cost, reverse=True) and cost[0] > 0
    free = [n for n in got if n not in verify.SIM_CAVEATS and n not in verify.CAVEAT_SECONDS]
    assert free == [n for n in names if n in free]  # ties keep the builder order
    assert set(got[-len(verify.SIM_CAVEATS) :]) == set(verify.SIM_CAVEATS)
    assert set(verify.CAVEAT_SECONDS) <= set(names)


def test_the_parent_leaves_the_childs_last_jobs_to_it(monkeypatch):
    """Once only jobs of _child_only are left (numba claims, profile.* claims sharing the
    child's counted cells, the caveats reusing its work), this process stops and the forked
    one runs them: with nothing else to do, every one of them runs in the child."""
    import multiprocessing as mp
    import os
    import types

    if "fork" not in mp.get_all_start_methods():
        pytest.skip("no fork start method")
    ids = sorted(verify.NUMBA_CLAIMS) + ["profile.theorem1_upper", "profile.counting"]
    assert all(verify._child_only(("claim", types.SimpleNamespace(id=i))) for i in ids)
    assert not verify._child_only(("claim", get_claim("lemma1")))
    assert not verify._child_only(("claim", get_claim("theorem2.mc")))
    todo = [types.SimpleNamespace(id=i) for i in ids]
    monkeypatch.setattr(verify, "safe_run", lambda c, *a: (c.id, os.getpid()))
    got = verify._run_forked(todo, 3, 0, 1.0, with_caveats=False)
    assert [i for i, _ in got] == ids
    assert all(pid != os.getpid() for _, pid in got)
