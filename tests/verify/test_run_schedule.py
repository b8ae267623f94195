"""How ``verify.run_all`` lays out its work: availability without imports, the numba users'
place in the job list."""

from __future__ import annotations

import subprocess
import sys

import pytest

from cascading_bandits import verify
from cascading_bandits.verify.registry import _module_exists, get_claim


@pytest.mark.parametrize(
    "name, found",
    [
        ("cascading_bandits.simulate.runner", True),
        ("cascading_bandits.bounds.upper", True),
        ("cascading_bandits.simulate.policies.ts", True),
        ("cascading_bandits.simulate.no_such_module", False),
        ("cascading_bandits.bounds.upper.not_a_package", False),
        ("no_such_top_level_module", False),
        ("numpy.linalg", True),
    ],
)
def test_module_exists_finds_what_import_would(name, found):
    assert _module_exists(name) is found


def test_listing_the_claims_does_not_import_the_simulator():
    """Claims require ``cascading_bandits.simulate.runner``; checking that it exists must not
    import the simulator (numba's engine) in a process that runs no simulation."""
    code = (
        "import sys\n"
        "from cascading_bandits import verify\n"
        "verify.available_claims()\n"
        "print('cascading_bandits.simulate' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=300
    )
    assert out.stdout.strip() == "False"


def test_numba_claims_exist_and_go_to_the_childs_end():
    for cid in verify.NUMBA_CLAIMS:
        get_claim(cid)  # ValueError if the set names a claim that is gone
    todo = [get_claim(i) for i in ("lemma1", "sharp.pathwise", "bound.theorem2", "lemma2")]
    jobs = verify._jobs(todo, with_caveats=False)
    assert [c.id for _, c in jobs] == ["lemma1", "lemma2", "sharp.pathwise", "bound.theorem2"]


def test_caveats_reusing_the_simulating_claims_work_go_next_to_them():
    """The caveat builders of SIM_CAVEATS exist and sit between the numba claims and the
    simulating claims (on the child's side of the numba claims), so that F(1e7), which
    bound.theorem4 computes in the child, is not computed again in the parent; every caveat
    is still a job."""
    from cascading_bandits.verify import findings

    names = [b.__name__ for b in findings.CAVEAT_BUILDERS]
    assert verify.SIM_CAVEATS <= set(names)
    todo = [get_claim(i) for i in ("lemma1", "sharp.pathwise", "bound.theorem4")]
    jobs = verify._jobs(todo, with_caveats=True)
    cav = [i for kind, i in jobs if kind == "caveat"]
    assert sorted(cav) == list(range(len(names)))
    near = [i for i in cav if names[i] in verify.SIM_CAVEATS]
    kinds = [(kind, getattr(x, "id", x)) for kind, x in jobs]
    assert kinds[0] == ("claim", "lemma1")
    assert kinds[-len(near) - 2 :] == [
        ("claim", "sharp.pathwise"),
        *(("caveat", i) for i in sorted(near, reverse=True)),
        ("claim", "bound.theorem4"),
    ]


def test_times_env_writes_one_line_per_job_and_nothing_else_changes(monkeypatch, capfd):
    """CASCADING_VERIFY_TIMES=1: each job of a forked run writes its timeline line to stderr
    (both processes), and the verdicts are those without it."""
    import multiprocessing as mp

    if "fork" not in mp.get_all_start_methods():
        pytest.skip("no fork start method")
    ids = ["lemma2.chord", "lemma2.monotone", "theorem1.upper", "theorem1.permutation"]
    todo = [get_claim(i) for i in ids]
    monkeypatch.delenv(verify.TIMES_ENV, raising=False)
    plain = verify._run_forked(todo, 3, 0, 1.0, with_caveats=False)
    assert "verify-times" not in capfd.readouterr().err
    monkeypatch.setenv(verify.TIMES_ENV, "1")
    timed = verify._run_forked(todo, 3, 0, 1.0, with_caveats=False)
    lines = [x for x in capfd.readouterr().err.splitlines() if x.startswith("verify-times")]
    assert sorted(x.split()[-1] for x in lines) == sorted(ids)
    for x in lines:
        words = x.split()
        assert words[1] == "pid" and words[3] == "start" and words[5] == "wall"
        assert words[7] == "cpu" and float(words[8]) >= 0

    def strip(v):
        d = v.to_dict()
        d.pop("seconds")
        return d

    assert [strip(v) for v in timed] == [strip(v) for v in plain]
