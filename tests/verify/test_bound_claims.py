"""The ``bound.*`` claims follow the bound registry: a bound declared in one file of the user's
gets its claim, which holds for a true bound and fails for a false one.

Each toy bound is one module written to ``tmp_path`` that calls ``register_bound`` and is
imported by path after :mod:`verify` (what a user's own declaration amounts to); the fixture
unregisters it again, after which its claim is gone.
"""

import dataclasses
import importlib.util
import json
import math
import sys
import textwrap

import pytest

from cascading_bandits import verify
from cascading_bandits.bounds.registry import (
    all_bounds,
    bound_names,
    get_bound,
    register_bound,
    unregister_bound,
)
from cascading_bandits.reports.cli import main
from cascading_bandits.verify import claims_bounds as CB
from cascading_bandits.verify.registry import get_claim
from cascading_bandits.verify.verdict import FAILS, HOLDS, MONTE_CARLO, SAMPLING, UNDECIDED

HEADER = textwrap.dedent(
    """
    import numpy as np
    from cascading_bandits.bounds.registry import (
        ANY_POLICY, HAS_SUBOPTIMAL, UNIQUE_OPTIMUM, Bound, Covers, log_n, register_bound,
    )
    """
)

#: name -> the body of its module (after HEADER)
TOYS = {
    # per-step regret is at most 1, so R(n) <= n: true
    "toy-true": """
register_bound(Bound(
    name="toy-true", title="toy: R(n) <= n", label="toy true",
    kind="upper", form="constant", gap="free",
    covers=(Covers("cascade-ucb1", alpha=1.5),),
    evaluate=lambda inst, n: np.asarray(n, dtype=np.float64),
    source="tests/verify/test_bound_claims.py", rate="n",
))
""",
    # far below the regret of any learning policy: false
    "toy-false": """
register_bound(Bound(
    name="toy-false", title="toy: R(n) <= 1e-3 log(n + 1)", label="toy false",
    kind="upper", form="constant", gap="free",
    covers=(Covers("cascade-ucb1", alpha=1.5),),
    evaluate=lambda inst, n: 1e-3 * np.log(np.asarray(n, dtype=np.float64) + 1),
    source="tests/verify/test_bound_claims.py", rate="1e-3 log(n + 1)",
))
""",
    # true (R(n) <= n) except at the last default checkpoint: one violation must fail
    "toy-late": """
register_bound(Bound(
    name="toy-late", title="toy: false at n = 5000 only", label="toy late",
    kind="upper", form="constant", gap="free",
    covers=(Covers("cascade-klucb", c=3),),
    premises=(UNIQUE_OPTIMUM, HAS_SUBOPTIMAL),
    evaluate=lambda inst, n: np.where(np.asarray(n) == 5000, 1e-3, np.asarray(n, dtype=float)),
    source="tests/verify/test_bound_claims.py", rate="n, but 1e-3 at n = 5000",
    monotone=False,
    validity_instances=(((0.7, 0.6, 0.5, 0.2, 0.1, 0.1), 3),),
))
""",
    # an asymptotic lower rate far below the upper bounds' coefficients: consistent
    "toy-low-ok": """
register_bound(Bound(
    name="toy-low-ok", title="toy lower rate 1e-6 log n", label="toy low ok",
    kind="lower", form="constant", gap="dependent",
    covers=(Covers("cascade-ucb1"),), premises=(UNIQUE_OPTIMUM, HAS_SUBOPTIMAL),
    evaluate=lambda inst, n: 1e-6 * log_n(n),
    source="tests/verify/test_bound_claims.py", rate="1e-6 log n", asymptotic=True,
))
""",
    # a lower rate above CascadeUCB1's upper bounds: the two cannot both hold
    "toy-low-bad": """
register_bound(Bound(
    name="toy-low-bad", title="toy lower rate 1e6 log n", label="toy low bad",
    kind="lower", form="constant", gap="dependent",
    covers=(Covers("cascade-ucb1"),), premises=(UNIQUE_OPTIMUM, HAS_SUBOPTIMAL),
    evaluate=lambda inst, n: 1e6 * log_n(n),
    source="tests/verify/test_bound_claims.py", rate="1e6 log n", asymptotic=True,
))
""",
}


def _declare(tmp_path, name):
    """Write ``name``'s module and import it by path; returns the module's name."""
    mod = "user_bound_" + name.replace("-", "_")
    path = tmp_path / f"{mod}.py"
    path.write_text(HEADER + TOYS[name], encoding="utf-8")
    spec = importlib.util.spec_from_file_location(mod, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[mod] = module
    spec.loader.exec_module(module)
    return mod


@pytest.fixture
def toys(tmp_path):
    """Declare the toy bounds named by the test (``toys(*names)``); undeclare them after."""
    made = []

    def declare(*names):
        for name in names:
            made.append((name, _declare(tmp_path, name)))

    yield declare
    for name, mod in made:
        if name in bound_names():
            unregister_bound(name)
        sys.modules.pop(mod, None)
    ids = {c.id for c in verify.all_claims()}
    assert not {f"bound.{n}" for n, _ in made} & ids


def _ids():
    return [c.id for c in verify.all_claims()]


def test_every_checkable_bound_has_its_claim():
    ids = set(_ids())
    for b in all_bounds():
        assert (f"bound.{b.name}" in ids) == CB.has_claim(b), b.name
        if b.comparable:
            assert get_claim(f"bound.{b.name}").method == MONTE_CARLO
            assert get_claim(f"bound.{b.name}").requires
        elif CB.has_claim(b):
            assert get_claim(f"bound.{b.name}").method == SAMPLING
    # the paper's Theorem 2 is among them, as an upper bound with a constant
    assert "bound.theorem2" in ids
    assert get_claim("bound.theorem2").check.__module__ == CB.__name__


def test_claims_follow_the_registry(toys, capsys):
    before = _ids()
    assert "bound.toy-true" not in before
    toys("toy-true", "toy-false")
    ids = _ids()
    # appended after every claim there was, in declaration order
    assert ids[: len(before)] == before and ids[-2:] == ["bound.toy-true", "bound.toy-false"]
    assert "bound.toy-true" in [c.id for c in verify.available_claims()]
    assert main(["verify", "--list"]) == 0
    out = capsys.readouterr().out
    assert "bound.toy-true" in out and "bound.toy-false" in out
    # redeclared with replace=True: the claim is rebuilt in place
    old = get_claim("bound.toy-true")
    b = get_bound("toy-true")
    register_bound(dataclasses.replace(b, rate="n (again)"), replace=True)
    new = get_claim("bound.toy-true")
    assert new is not old and "n (again)" in new.statement
    assert _ids() == ids
    # unregistered: gone
    unregister_bound("toy-false")
    assert "bound.toy-false" not in _ids()
    with pytest.raises(ValueError, match="unknown claim"):
        get_claim("bound.toy-false")


def test_true_bound_holds_false_bound_fails(toys):
    toys("toy-true", "toy-false")
    vs = verify.run_all(examples=5, seed=0, claims=["bound.toy-true", "bound.toy-false"])
    good, bad = vs
    assert good.claim_id == "bound.toy-true" and good.status == HOLDS, good.notes
    assert good.method == MONTE_CARLO and 0 <= good.min_slack <= 1
    assert good.argmin["upper_limit"] <= good.argmin["bound"]
    assert "cascade-ucb1(alpha=1.5)" in good.domain
    labels = [i["label"] for i in good.domain_spec["instances"]]
    assert any(lab.startswith("B_LB(8, 2") for lab in labels)
    assert any(lab.startswith("B_LB(6, 3") for lab in labels)
    assert any(lab.startswith("random") for lab in labels)
    assert good.domain_spec["instances"][0]["checkpoints"] == [10, 100, 1000, 5000]
    assert bad.status == FAILS and not bad.ok
    cex = bad.counterexample
    assert cex["lower_limit"] > cex["bound"] == pytest.approx(1e-3 * math.log(cex["n"] + 1))
    assert bad.min_slack < 0
    # reproducible from the seed
    again = verify.run_all(examples=5, seed=0, claims=["bound.toy-false"])[0]
    assert again.counterexample == cex


def test_one_violated_checkpoint_fails(toys):
    toys("toy-late")
    v = verify.run_all(examples=5, seed=1, claims=["bound.toy-late"])[0]
    assert v.status == FAILS, v.notes
    assert v.counterexample["n"] == 5000
    labels = [i["label"] for i in v.domain_spec["instances"]]
    assert labels[0].startswith("validity (0.7, 0.6")  # the bound's own instance comes first


def test_cli_exits_1_on_the_false_bound(toys, capsys):
    toys("toy-false")
    rc = main(["verify", "--claim", "bound.toy-false"])
    out = capsys.readouterr().out
    assert rc == 1
    row = next(line for line in out.splitlines() if line.startswith("bound.toy-false"))
    assert row.rstrip().endswith("fails")
    assert "COUNTEREXAMPLE" in out and "1 fails" in out


def test_lower_rate_against_the_upper_bounds(toys):
    toys("toy-low-ok", "toy-low-bad")
    ok, bad = verify.run_all(examples=5, seed=0, claims=["bound.toy-low-ok", "bound.toy-low-bad"])
    assert ok.status == HOLDS and ok.method == SAMPLING and ok.min_slack > 0.99
    # compared with CascadeUCB1's upper bounds only (the policy it is about)
    ucb1 = {b.name for b in all_bounds() if b.comparable and b.covers[0].policy == "cascade-ucb1"}
    assert set(ok.domain_spec["uppers"]) == ucb1
    assert bad.status == FAILS
    cex = bad.counterexample
    assert cex["upper"] in ucb1
    assert cex["lower_coefficient"] == pytest.approx(1e6)
    assert cex["upper_coefficient"] < cex["lower_coefficient"]


def test_a_stored_tightest_instance_is_simulated(toys, tmp_path, monkeypatch):
    toys("toy-true")
    data = {
        "_doc": "test",
        "toy-true": {"weights": [0.5, 0.45, 0.1], "K": 1, "n": 300, "source": "test search"},
        "no-such-bound": {"weights": [0.5], "K": 1},
    }
    path = tmp_path / "tightest.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    monkeypatch.setattr(CB, "TIGHTEST_PATH", path)
    v = verify.run_all(examples=5, seed=0, claims=["bound.toy-true"])[0]
    assert v.status == HOLDS
    last = v.domain_spec["instances"][-1]
    assert last["label"] == "tightest stored (test search)"
    assert last["weights"] == [0.5, 0.45, 0.1] and last["K"] == 1
    assert 300 in last["checkpoints"]  # the search's horizon is a checkpoint too
    # a malformed entry is loud (an undecided verdict saying why), not skipped
    data["toy-true"] = {"weights": [0.5, 0.4]}
    path.write_text(json.dumps(data), encoding="utf-8")
    v = verify.run_all(examples=5, seed=0, claims=["bound.toy-true"])[0]
    assert v.status == UNDECIDED and "needs 'weights' and 'K'" in v.notes


def test_shipped_tightest_file_is_valid():
    data = json.loads(CB.TIGHTEST_PATH.read_text(encoding="utf-8"))
    assert isinstance(data, dict) and isinstance(data.get("_doc"), str)
    for name in CB.load_tightest():
        assert CB.tightest_instance(name) is not None


def test_scale_follows_the_budget():
    runs, horizon, cps = CB.mc_scale(1.0)
    assert (runs, horizon, cps.tolist()) == (100, 5000, [10, 100, 1000, 5000])
    runs, horizon, cps = CB.mc_scale(8.0)
    assert horizon == 50_000 and cps.tolist() == [10, 100, 1000, 10_000, 50_000] and runs >= 100
    assert CB.mc_scale(0.1)[0] >= 30
