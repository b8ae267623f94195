"""``--instance`` and ``--model`` where the command line takes them: ``ledger --model`` reads
the bounds' premises under a click model; ``search --instance`` searches instances shaped
like a real one; meaningless combinations are one-line refusals (exit 2)."""

from __future__ import annotations

import json

import pytest

from cascading_bandits.reports.cli import main

REAL = "yandex:4102451:top"  # 10 items, 5 positions


def _run(capsys, argv):
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def test_ledger_rows_under_the_cascade_model_are_the_librarys():
    """The model-aware rows (any view with parameters takes the general path) equal
    bounds.later.ledger and bounds.overview.not_applicable under the cascade model."""
    from cascading_bandits.bounds.instance import b_lb
    from cascading_bandits.bounds.later import ledger
    from cascading_bandits.bounds.overview import not_applicable
    from cascading_bandits.bounds.registry import model_view
    from cascading_bandits.reports.cli.ledger import ledger_rows

    for inst, n in ((b_lb(16, 2, 0.2, 0.15), 10**5), (b_lb(6, 3, 0.5, 0.3), 50)):
        lib = ledger(inst, n)
        general = model_view("dbn", nu=1.0, gamma=1.0)  # the cascade user, with parameters
        assert general.name == "cascade" and general.params
        rows, skipped = ledger_rows(inst, n, general)
        assert rows == lib
        assert skipped == not_applicable(inst, n, lib)
        assert ledger_rows(inst, n, "cascade") == (lib, not_applicable(inst, n, lib))


@pytest.mark.parametrize("model", ["pbm", "dcm"])
def test_ledger_model_reads_the_premises_under_it(model, capsys):
    rc, out, err = _run(capsys, ["ledger", "--model", model, "--json"])
    assert rc == 0, err
    doc = json.loads(out)
    assert doc["model"] == model
    rows = {r["bound"] for r in doc["rows"]}
    why = {x["bound"]: x["why"] for x in doc["not_applicable"]}
    assert "theorem2" not in rows and "cascade click model" in why["theorem2"]
    rc, out, _ = _run(capsys, ["ledger", "--json"])
    cascade = json.loads(out)
    assert cascade["model"] == "cascade"
    assert "theorem2" in {r["bound"] for r in cascade["rows"]}


def test_ledger_dbn_with_parameters_and_a_real_pbm(capsys):
    rc, out, err = _run(capsys, ["ledger", "--model", "dbn", "--nu", "0.7", "--json"])
    assert rc == 0, err
    doc = json.loads(out)
    assert doc["model"] == "dbn" and "theorem2" not in {r["bound"] for r in doc["rows"]}
    # a DBN with nu = gamma = 1 is the cascade user (bounds.registry.model_name)
    rc, out, err = _run(capsys, ["ledger", "--model", "dbn"])
    assert rc == 0 and "the cascade user" in out and "Theorem 2 (CascadeUCB1)" in out, err
    # the real instance's fitted examination probabilities are the PBM's: TopRank applies
    rc, out, err = _run(capsys, ["ledger", "--instance", REAL, "--model", "pbm", "--json"])
    assert rc == 0, err
    assert "toprank-gapfree" in {r["bound"] for r in json.loads(out)["rows"]}


@pytest.mark.parametrize(
    "argv, says",
    [
        (["ledger", "--nu", "0.5"], "--nu and --gamma apply to --model dbn only"),
        (["ledger", "--model", "pbm", "--gamma", "0.5"], "--model dbn only"),
        (["ledger", "--from-search", "x.json", "--model", "pbm"], "drop --model"),
        (["search", "--model", "pbm"], "simulates cascade users only"),
        (["search", "--instance", REAL, "--L", "12"], "--instance sets L"),
        (["search", "--instance", REAL, "--L-per-K", "4"], "--instance sets L"),
        (["search", "--instance", "yandex:nope"], "unknown real instance"),
        (["search", "--w-min", "0.5", "--w-max", "0.5"], "--w-min < --w-max"),
    ],
)
def test_meaningless_combinations_are_one_line_refusals(argv, says, capsys, tmp_path):
    rc, out, err = _run(capsys, argv)
    assert rc == 2 and out == "", err
    assert err.count("\n") == 1 and err.startswith(f"cascading {argv[0]}: error: "), err
    assert says in err, err


def test_search_on_a_real_instance_shape(capsys):
    from cascading_bandits.simulate.real_instances import parse_instance_name

    weights, _kappa, K, _ = parse_instance_name(REAL)
    argv = ["search", "--instance", REAL, "--objective", "regret", "--policy", "cascade-ucb1"]
    argv += ["--runs", "1", "--horizon", "30", "--maxiter", "1", "--popsize", "1"]
    rc, out, err = _run(capsys, [*argv, "--confirm-runs", "2", "--json"])
    assert rc == 0, err
    doc = json.loads(out)
    r = doc["results"][0]
    assert (r["L"], r["K"]) == (len(weights), K) == (doc["L"], doc["K"])
    s = r["settings"]
    assert (s["w_min"], s["w_max"]) == (min(weights), max(weights))
    assert doc["instance"]["name"] == REAL
    assert all(min(weights) <= w <= max(weights) for w in r["weights"])
    rc, out, err = _run(capsys, [*argv, "--confirm-runs", "2", "--K", "2", "--w-min", "0"])
    assert rc == 0 and "K=2 L=10" in out and f"shaped like {REAL}" in out, err
    assert "--model" in _help(capsys, "search") and "--instance" in _help(capsys, "search")
    assert "--model" in _help(capsys, "ledger")


def _help(capsys, sub):
    assert main([sub, "--help"]) == 0
    return capsys.readouterr().out
