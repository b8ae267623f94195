"""`cascading verify`: table, JSON, --claim, exit statuses, one-line errors."""

import json

import pytest

from cascading_bandits.reports.cli import main


def test_table_for_one_claim(capsys):
    rc = main(["verify", "--claim", "lemma2.monotone", "--examples", "3"])
    out = capsys.readouterr().out
    assert rc == 0
    header = out.splitlines()[0]
    for col in (
        "claim",
        "paper reference",
        "method",
        "domain",
        "instances",
        "min slack",
        "verdict",
    ):
        assert col in header
    assert "lemma2.monotone" in out and "holds" in out


def test_json(capsys):
    rc = main(
        [
            "verify",
            "--claim",
            "ucb1_peeling",
            "--claim",
            "lower.example",
            "--json",
            "--examples",
            "4",
            "--seed",
            "7",
        ]
    )
    out = capsys.readouterr().out
    assert out.count("\n") == 1  # one JSON document on one line
    data = json.loads(out)
    assert rc == 0 and data["failed"] == [] and data["seed"] == 7
    ids = [v["claim_id"] for v in data["verdicts"]]
    assert ids == ["ucb1_peeling", "lower.example"]
    v = data["verdicts"][1]
    for key in (
        "status",
        "method",
        "domain",
        "domain_spec",
        "instances",
        "min_slack",
        "argmin",
        "reference",
        "statement",
        "amended",
        "notes",
    ):
        assert key in v
    assert v["amended"]  # lower.example is checked with a stated correction


def test_unknown_claim_exit_2(capsys):
    rc = main(["verify", "--claim", "theorem9"])
    err = capsys.readouterr().err
    assert rc == 2
    assert err.count("\n") == 1 and "unknown claim" in err and "Traceback" not in err


def test_bad_examples_exit_2(capsys):
    assert main(["verify", "--examples", "0", "--claim", "lemma2"]) == 2
    assert "argument --examples" in capsys.readouterr().err
    # a resource guard, not a run until killed
    assert main(["verify", "--examples", "100000000"]) == 2
    err = capsys.readouterr().err
    assert "--examples 100000000 would take about" in err and "--force" in err
    assert main(["verify", "--list", "--examples", "3"]) == 2
    assert "does not take --examples" in capsys.readouterr().err


def test_one_claim_is_singular(capsys):
    assert main(["verify", "--claim", "lemma2.monotone", "--examples", "1"]) == 0
    out = capsys.readouterr().out
    assert "1 claim: 1 holds, 0 undecided, 0 fail " in out and "1 example)" in out


def test_list_json(capsys):
    assert main(["verify", "--list", "--json"]) == 0
    claims = json.loads(capsys.readouterr().out)["claims"]
    assert {"theorem1.upper", "lemma2.k2"} <= {c["id"] for c in claims}


def test_list(capsys):
    assert main(["verify", "--list"]) == 0
    out = capsys.readouterr().out
    assert "theorem1.upper" in out and "lemma2.k2" in out


def test_exit_1_when_a_claim_fails(capsys):
    from cascading_bandits.verify.registry import _REGISTRY, claim
    from cascading_bandits.verify.verdict import Outcome

    @claim("test.cli_false", "nowhere", "always false", method="symbolic")
    def _f(ctx):
        return Outcome(status="fails", method="symbolic", domain="x", counterexample={"x": 1})

    try:
        rc = main(["verify", "--claim", "test.cli_false"])
        out = capsys.readouterr().out
        assert rc == 1 and "COUNTEREXAMPLE" in out
    finally:
        del _REGISTRY["test.cli_false"]


def test_cost_pauses_the_collector_and_restores_it():
    """``cascading verify`` imports verify with the cyclic collector off (reports/cli/verify.py,
    _collector_paused); the collector's state afterwards is the one before, on or off, and a
    failing block restores it too."""
    import gc

    from cascading_bandits.reports.cli import verify as cli_verify

    was_on = gc.isenabled()
    try:
        for before in (True, False):
            (gc.enable if before else gc.disable)()
            with cli_verify._collector_paused():
                assert not gc.isenabled()
            assert gc.isenabled() is before
            with pytest.raises(RuntimeError), cli_verify._collector_paused():
                raise RuntimeError("inside")
            assert gc.isenabled() is before
    finally:
        (gc.enable if was_on else gc.disable)()
