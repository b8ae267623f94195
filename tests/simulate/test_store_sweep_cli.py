"""Storage round trip, resume, no silent overwrite, CLI. (Executors: serial, process pool and
Dask give the same stored numbers, test_seeds_crn.)"""

import json

import numpy as np
import pytest

import cascading_bandits.simulate.sweep as sweep
from cascading_bandits.reports.cli import main
from cascading_bandits.simulate import run_cell
from cascading_bandits.simulate.engine import ENGINE_VERSION, same_numbers
from cascading_bandits.simulate.experiments import b_lb_cell
from cascading_bandits.simulate.store import load_result, load_results, record_digest, save_result
from cascading_bandits.simulate.sweep import run_experiment


def _small():
    return b_lb_cell("exp", 8, 2, 0.3, 0.15, "cascade-klucb", horizon=500, runs=2)


def test_round_trip_and_no_overwrite(tmp_path):
    res = run_cell(_small(), 1)
    js = save_result(res, tmp_path)
    back = load_result(js)
    assert back.params == res.params and back.provenance == res.provenance
    for name in ("checkpoints", "regret", "counts"):
        np.testing.assert_array_equal(getattr(back, name), getattr(res, name))
    with np.load(js.with_suffix(".npz"), allow_pickle=False) as z:
        assert set(z.files) == {"checkpoints", "regret", "counts"}
    doc = json.loads(js.read_text())
    assert doc["summary"]["mean_regret"] == res.mean_regret
    assert doc["provenance"]["seed_entropy"] == "1" and "git_commit" in doc["provenance"]
    assert doc["provenance"]["versions"]["numpy"]
    before = js.read_bytes()
    with pytest.raises(ValueError, match="refusing to overwrite"):
        save_result(run_cell(_small(), 2), tmp_path)
    assert js.read_bytes() == before
    save_result(run_cell(_small(), 2), tmp_path, overwrite=True)
    assert load_result(js).provenance["seed_entropy"] == "2"
    assert not list(tmp_path.rglob("*.tmp"))


def test_resume_computes_only_what_is_missing(tmp_path, monkeypatch):
    first = run_experiment("table1", tmp_path, testing=True, workers=1, progress=False)
    (tmp_path / "table1" / f"{first[1].params['cell_id']}.json").unlink()  # an interrupted sweep
    calls = []
    real = sweep.run_cell
    monkeypatch.setattr(
        sweep, "run_cell", lambda c, s, **kw: calls.append(c.cell_id) or real(c, s, **kw)
    )
    again = run_experiment("table1", tmp_path, testing=True, workers=1, progress=False)
    assert calls == [first[1].params["cell_id"]]
    for a, b in zip(first, again, strict=True):
        np.testing.assert_array_equal(a.regret, b.regret)
    assert [r.params["cell_id"] for r in load_results(tmp_path, "table1")] == [
        r.params["cell_id"] for r in first
    ]
    with pytest.raises(ValueError, match="other parameters"):
        run_experiment("table1", tmp_path, testing=True, horizon=700, workers=1, progress=False)
    with pytest.raises(ValueError, match="no stored results"):
        load_results(tmp_path, "dbn")


def test_cli_adhoc_json(capsys):
    rc = main(
        [
            "simulate",
            "--weights",
            "0.3,0.3,0.1,0.1,0.1",
            "--K",
            "2",
            "--policy",
            "cascade-klucb,cascade-ts",
            "--order",
            "worst-first",
            "--runs",
            "3",
            "--horizon",
            "400",
            "--seed",
            "1",
            "--json",
        ]
    )
    assert rc == 0
    out = capsys.readouterr().out
    assert out.count("\n") == 1  # one JSON document on one line
    doc = json.loads(out)
    assert doc["out"] is None and doc["seed"] == 1
    rows = doc["cells"]
    assert [r["policy"] for r in rows] == ["cascade-klucb", "cascade-ts"]
    for r in rows:
        assert r["order"] == "worst-first" and r["runs"] == 3 and r["horizon"] == 400
        assert r["mean_regret"] > 0 and r["stderr"] >= 0


def test_cli_blb_dbn_and_experiment(capsys, tmp_path):
    rc = main(
        [
            "simulate",
            "--L",
            "8",
            "--K",
            "2",
            "--p",
            "0.3",
            "--delta",
            "0.15",
            "--model",
            "dbn",
            "--nu",
            "0.7",
            "--gamma",
            "0.7",
            "--policy",
            "ranked-klucb",
            "--runs",
            "2",
            "--horizon",
            "300",
            "--json",
        ]
    )
    assert rc == 0
    (row,) = json.loads(capsys.readouterr().out)["cells"]
    assert row["model"] == "dbn" and row["nu"] == 0.7 and row["L"] == 8 and row["p"] == 0.3
    args = [
        "simulate",
        "--experiment",
        "table2",
        "--testing",
        "--out",
        str(tmp_path),
        "--workers",
        "1",
        "--json",
    ]
    assert main(args) == 0
    first = json.loads(capsys.readouterr().out)
    assert first["out"] == str(tmp_path.absolute()) and len(first["cells"]) == 2
    assert main(args) == 0  # resumes: loads, no error, same numbers
    assert json.loads(capsys.readouterr().out) == first


@pytest.mark.parametrize(
    "argv,msg",
    [
        (["--weights", "0.2,1.5", "--K", "1"], "weights must lie in [0, 1]"),
        (["--weights", "0.2,0.1", "--K", "3"], "K must satisfy"),
        (["--weights", "0.2,0.1", "--K", "1", "--policy", "greedy"], "unknown policy"),
        (["--weights", "0.2,x", "--K", "1"], "argument --weights: must be a finite number"),
        (["--weights", "0.2,0.1"], "--weights needs --K"),
        ([], "give --experiment NAME"),
        (["--policy", "zzz"], "unknown policy 'zzz'"),
        (["--weights", "0.2,0.1", "--L", "4", "--K", "1"], "either --weights or"),
        (["--experiment", "table1", "--K", "2"], "does not take --K"),
        (["--experiment", "table1", "--model", "dbn", "--nu", "0.7"], "does not take --model --nu"),
        (["--experiment", "tableX"], "unknown experiment"),
        (["--weights", "0.2,0.1", "--K", "1", "--horizon", "0"], "argument --horizon"),
        (["--weights", "0.2,0.1", "--K", "1", "--nu", "0.5"], "dbn only"),
        (["--weights", "0.2,0.1", "--K", "1", "--seed", "-1"], "argument --seed"),
        (["--K", "2", "--horizon", "1e300"], "argument --horizon: must be an integer"),
        (["--K", "2", "--horizon", "1e12"], "would take about"),
        (["--K", "2", "--runs", "1000000000"], "would need about"),
        (["--L", "100000000"], "would need about"),
        (["--K", "2", "--policy", "cascade-klucb(c=1e300)"], "c = 1e+300 makes every KL-UCB"),
        (["--K", "2", "--c", "1"], "unrecognized arguments: --c 1"),  # c is in the policy spec
        (["--K", "2", "--workers", "1000"], "--workers must be <="),
        (["--K", "2", "--workers", "1", "--scheduler", "x:1"], "--workers is for local"),
        (["--K", "2", "--out", "x"], "--out: for --experiment only"),
        (["--experiment", "table1", "--out", ""], "--out must name a directory"),
        (["--experiment", "table1", "--out", "/proc/nope"], "/proc/nope is not a writable"),
    ],
)
def test_cli_errors_are_one_line_exit_2(argv, msg, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["simulate", *argv]) == 2
    err = capsys.readouterr().err
    assert msg in err and err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith("cascading simulate: error: ")
    assert list(tmp_path.iterdir()) == []  # nothing written (an empty --out is not the cwd)


def test_b_lb_defaults_and_absolute_out(capsys, tmp_path, monkeypatch):
    assert main(["simulate", "--L", "8", "--runs", "2", "--horizon", "300", "--json"]) == 0
    cells = json.loads(capsys.readouterr().out)["cells"]
    assert [(c["L"], c["K"], c["p"], c["delta"]) for c in cells] == [(8, 2, 0.2, 0.15)] * 2
    monkeypatch.chdir(tmp_path)
    argv = ["simulate", "--experiment", "dbn", "--testing", "--out", "rel", "--workers", "1"]
    assert main([*argv, "--no-progress"]) == 0
    err = capsys.readouterr().err
    assert f"stored under {tmp_path / 'rel'}/" in err and (tmp_path / "rel" / "dbn").is_dir()


def test_progress_off_a_terminal_is_plain_lines(capsys, tmp_path):
    argv = ["simulate", "--experiment", "table1", "--testing", "--out", str(tmp_path)]
    assert main([*argv, "--workers", "1"]) == 0
    err = capsys.readouterr().err
    assert "\r" not in err and "table1: 0/2 cells stored" in err and "table1: 2/2 cells" in err


def test_same_numbers_follows_the_engine_changes():
    assert same_numbers(ENGINE_VERSION, "cascade-ts", 4096)
    assert same_numbers(2, "cascade-klucb(c=0)", 4096) and same_numbers(3, "cascade-ucb1", 16)
    # version 3 changed cascade-ts from 128 items on, version 4 below, version 6 from 128 again
    assert same_numbers(5, "cascade-ts", 127) and not same_numbers(5, "cascade-ts", 128)
    assert not same_numbers(3, "cascade-ts", 128) and not same_numbers(3, "cascade-ts", 127)
    assert same_numbers(4, "cascade-ts", 127) and same_numbers(4, "cascade-klucb", 4096)
    assert not same_numbers(4, "uniform-random", 16) and same_numbers(5, "uniform-random", 16)
    assert not same_numbers(2, "cascade-ts", 128) and not same_numbers(
        2, "cascade-ts(prior=2,1)", 999
    )
    assert not same_numbers(2, "cascade-ts", 127)
    for bad in (1, 0, None, "2", 2.0, True, ENGINE_VERSION + 1):
        assert not same_numbers(bad, "cascade-ucb1", 16)


def test_results_of_an_older_engine_with_the_same_numbers_are_resumed(tmp_path):
    first = run_experiment("table1", tmp_path, testing=True, workers=1, progress=False)
    for js in (tmp_path / "table1").glob("*.json"):
        doc = json.loads(js.read_text())
        doc["provenance"]["engine_version"] = 2  # version 3 changed cascade-ts at L >= 128 only
        doc["record_sha256"] = record_digest(doc)  # as an older engine would have sealed it
        js.write_text(json.dumps(doc))
    again = run_experiment("table1", tmp_path, testing=True, workers=1, progress=False)
    assert [r.provenance["engine_version"] for r in again] == [2] * len(first)
    for a, b in zip(first, again, strict=True):
        np.testing.assert_array_equal(a.regret, b.regret)


def test_results_of_another_engine_version_are_not_resumed(tmp_path):
    run_experiment("table1", tmp_path, testing=True, workers=1, progress=False)
    js = next((tmp_path / "table1").glob("*.json"))
    doc = json.loads(js.read_text())
    doc["provenance"]["engine_version"] = 1  # before the policy registry: other numbers
    doc["record_sha256"] = record_digest(doc)
    js.write_text(json.dumps(doc))
    with pytest.raises(ValueError, match="engine version"):
        run_experiment("table1", tmp_path, testing=True, workers=1, progress=False)
    again = run_experiment(
        "table1", tmp_path, testing=True, workers=1, progress=False, overwrite=True
    )
    # the replaced cells carry this engine's version, in memory and on disk
    assert [r.provenance["engine_version"] for r in again] == [ENGINE_VERSION] * len(again)
    on_disk = [json.loads(p.read_text()) for p in (tmp_path / "table1").glob("*.json")]
    assert [d["provenance"]["engine_version"] for d in on_disk] == [ENGINE_VERSION] * len(again)
