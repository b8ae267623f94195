"""Stored-result integrity: seed identity, content hashes, corrupted or missing files, provenance.

Each case is one of the failure modes a stored directory meets in practice; each must be a
one-line error naming the file and the remedy, or a clean recomputation of that cell.
"""

import json
import subprocess

import numpy as np
import pytest

import cascading_bandits.simulate.sweep as sweep
from cascading_bandits.reports.cli import main
from cascading_bandits.simulate import run_cell
from cascading_bandits.simulate.experiments import b_lb_cell
from cascading_bandits.simulate.runner import _git_dirty
from cascading_bandits.simulate.store import (
    FORMAT,
    array_digest,
    load_result,
    load_results,
    record_digest,
    save_result,
)
from cascading_bandits.simulate.sweep import run_experiment


def _run(out, seed=7, **kw):
    return run_experiment("table1", out, testing=True, workers=1, progress=False, seed=seed, **kw)


def _count_calls(monkeypatch):
    calls = []
    real = sweep.run_cell
    monkeypatch.setattr(
        sweep, "run_cell", lambda c, s, **kw: calls.append(c.cell_id) or real(c, s, **kw)
    )
    return calls


def _one_line(msg):
    return "\n" not in str(msg)


@pytest.fixture(scope="module")
def seed7(tmp_path_factory):
    """A complete seed-7 TESTING table1 directory (copied per test that alters it)."""
    out = tmp_path_factory.mktemp("seed7")
    return out, _run(out)


def _copy(src, dst):
    import shutil

    shutil.copytree(src, dst)
    return dst


def test_seed_is_part_of_identity(seed7, tmp_path, monkeypatch):
    out = _copy(seed7[0], tmp_path / "d")
    calls = _count_calls(monkeypatch)
    with pytest.raises(ValueError, match="seed entropy 7.*seed entropy 8") as exc:
        _run(out, seed=8)
    assert _one_line(exc.value) and calls == []
    # same seed: loaded, nothing recomputed
    again = _run(out, seed=7)
    assert calls == [] and all(
        np.array_equal(a.regret, b.regret) for a, b in zip(again, seed7[1], strict=True)
    )


def test_half_done_directory_is_not_mixed_with_another_seed(seed7, tmp_path, monkeypatch):
    out = _copy(seed7[0], tmp_path / "d")
    victim = seed7[1][0].params["cell_id"]
    for ext in ("json", "npz"):
        (out / "table1" / f"{victim}.{ext}").unlink()
    before = sorted(p.name for p in (out / "table1").iterdir())
    calls = _count_calls(monkeypatch)
    with pytest.raises(ValueError, match="another output directory for another seed"):
        _run(out, seed=8)
    assert calls == [] and sorted(p.name for p in (out / "table1").iterdir()) == before
    # resuming with the right seed computes the missing cell only, bit-identical
    again = _run(out, seed=7)
    assert calls == [victim]
    np.testing.assert_array_equal(again[0].regret, seed7[1][0].regret)


def test_tampered_regret_is_refused_naming_the_file(seed7, tmp_path, capsys):
    out = _copy(seed7[0], tmp_path / "d")
    cid = seed7[1][1].params["cell_id"]
    npz = out / "table1" / f"{cid}.npz"
    with np.load(npz, allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files}
    arrays["regret"] = arrays["regret"] * 10  # still a valid .npz
    np.savez(npz, **arrays)
    for call in (lambda: load_result(npz.with_suffix(".json")), lambda: _run(out)):
        with pytest.raises(ValueError, match="does not match the SHA-256") as exc:
            call()
        assert str(npz) in str(exc.value) and "--overwrite" in str(exc.value)
        assert _one_line(exc.value)
    with pytest.raises(ValueError, match="regret"):
        load_results(out, "table1")
    argv = ["simulate", "--experiment", "table1", "--testing", "--seed", "7"]
    assert main([*argv, "--out", str(out), "--workers", "1", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(npz) in err and "Traceback" not in err
    # the remedy works: --overwrite recomputes and the honest numbers come back
    fixed = _run(out, overwrite=True)
    np.testing.assert_array_equal(fixed[1].regret, seed7[1][1].regret)


@pytest.mark.parametrize(
    "damage, which, msg",
    [
        (lambda p: p.write_bytes(p.read_bytes()[: len(p.read_bytes()) // 2]), "npz", "unreadable"),
        (lambda p: p.write_bytes(b""), "npz", "unreadable"),
        (lambda p: p.write_text(p.read_text()[:40]), "json", "unreadable"),
        (lambda p: p.write_text(""), "json", "is empty"),
        (lambda p: p.write_bytes(b"\xff\xfe\x00garbage"), "json", "unreadable"),
    ],
)
def test_corrupted_files_are_one_line_errors(seed7, tmp_path, damage, which, msg, capsys):
    out = _copy(seed7[0], tmp_path / "d")
    cid = seed7[1][0].params["cell_id"]
    path = out / "table1" / f"{cid}.{which}"
    damage(path)
    with pytest.raises(ValueError, match=msg) as exc:
        _run(out)
    assert str(path) in str(exc.value) and "delete" in str(exc.value) and _one_line(exc.value)
    rc = main(
        ["simulate", "--experiment", "table1", "--testing", "--seed", "7", "--out", str(out)]
        + ["--workers", "1", "--no-progress"]
    )
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1 and str(path) in err and "Traceback" not in err


def test_deleted_npz_or_json_is_a_clean_recomputation(seed7, tmp_path, monkeypatch, capsys):
    out = _copy(seed7[0], tmp_path / "d")
    a, b = (r.params["cell_id"] for r in seed7[1][:2])
    (out / "table1" / f"{a}.npz").unlink()  # .json left alone
    (out / "table1" / f"{b}.json").unlink()  # .npz left alone (an interrupted write)
    calls = _count_calls(monkeypatch)
    again = _run(out)
    assert sorted(calls) == sorted([a, b])
    assert f"{a}.json has no .npz" in capsys.readouterr().err
    for x, y in zip(again, seed7[1], strict=True):
        np.testing.assert_array_equal(x.regret, y.regret)
        np.testing.assert_array_equal(x.counts, y.counts)
    assert len(load_results(out, "table1")) == len(seed7[1])
    assert not list(out.rglob("*.tmp"))


def test_stored_json_records_seed_and_hashes(seed7):
    out, res = seed7
    cid = res[0].params["cell_id"]
    doc = json.loads((out / "table1" / f"{cid}.json").read_text())
    assert doc["format"] == FORMAT == 3
    assert doc["seed"]["entropy"] == "7" and len(doc["seed"]["spawn_key"]) == 3
    assert doc["seed"]["spawn_key"][0] == sweep.CELL_TAG
    assert doc["record_sha256"] == record_digest(doc)
    assert doc["seed"]["spawn_key"] == [
        int(x)
        for x in sweep.cell_seed(
            np.random.SeedSequence(7), sweep.get_experiment("table1", testing=True)[0]
        ).spawn_key
    ]
    with np.load(out / "table1" / f"{cid}.npz", allow_pickle=False) as z:
        for name in ("checkpoints", "regret", "counts"):
            assert doc["arrays"][name] == array_digest(z[name])
            assert doc["arrays"][name]["shape"] == list(z[name].shape)
    # the digest sees a one-ulp change
    r = res[0].regret.copy()
    r[0, -1] = np.nextafter(r[0, -1], np.inf)
    assert array_digest(r)["sha256"] != doc["arrays"]["regret"]["sha256"]


def test_old_format_is_refused(seed7, tmp_path):
    out = _copy(seed7[0], tmp_path / "d")
    js = next((out / "table1").glob("*.json"))
    doc = json.loads(js.read_text())
    doc["format"] = 1
    del doc["arrays"]
    js.write_text(json.dumps(doc))
    with pytest.raises(ValueError, match="format 1") as exc:
        _run(out)
    assert str(js) in str(exc.value)
    # format 2 (cells seeded by their names, no record hash) is refused too, by name
    doc["format"] = 2
    js.write_text(json.dumps(doc))
    with pytest.raises(ValueError, match="format 2.*seeds by their names") as exc:
        _run(out)
    assert str(js) in str(exc.value) and _one_line(exc.value)


def test_one_run_is_strict_json(tmp_path, capsys):
    res = run_cell(b_lb_cell("exp", 8, 2, 0.3, 0.15, "cascade-ucb1", horizon=200, runs=1), 3)
    assert np.isnan(res.stderr) and res.summary()["stderr"] is None
    js = save_result(res, tmp_path)

    def bad(x):
        raise AssertionError(f"non-standard JSON constant {x}")

    doc = json.loads(js.read_text(), parse_constant=bad)
    assert doc["summary"]["stderr"] is None
    argv = ["simulate", "--L", "8", "--K", "2", "--runs", "1", "--horizon", "200", "--json"]
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out, parse_constant=bad)
    assert [c["stderr"] for c in out["cells"]] == [None, None]
    assert main(argv[:-1]) == 0
    assert "+- n/a" in capsys.readouterr().out


def _git(repo, *args):
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
        cwd=repo,
        check=True,
        capture_output=True,
    )


def test_git_dirty_flag(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    (repo / "a.py").write_text("x = 1\n")
    _git(repo, "add", "a.py")
    _git(repo, "commit", "-q", "-m", "a")
    assert _git_dirty(str(repo)) is False
    (repo / "untracked.txt").write_text("results\n")
    _git_dirty.cache_clear()
    assert _git_dirty(str(repo)) is False  # untracked files do not change the code
    (repo / "a.py").write_text("x = 2\n")
    _git_dirty.cache_clear()
    assert _git_dirty(str(repo)) is True
    _git_dirty.cache_clear()
    assert _git_dirty(str(tmp_path)) is None  # not a checkout
    prov = run_cell(b_lb_cell("e", 4, 1, 0.3, 0.1, "oracle", horizon=10, runs=1), 0).provenance
    assert prov["git_dirty"] in (True, False, None) and "git_dirty" in prov
    if prov["git_commit"] is None:
        assert prov["git_dirty"] is None


def test_git_dirty_takes_no_lock_in_the_users_checkout(tmp_path):
    """The provenance reads the tree's state without refreshing (rewriting) the index: a
    plain ``git status`` takes .git/index.lock to do that, and a user's ``git commit`` at
    that moment fails."""
    import os
    import time

    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    (repo / "a.py").write_text("x = 1\n")
    _git(repo, "add", "a.py")
    _git(repo, "commit", "-q", "-m", "a")
    index = repo / ".git" / "index"

    def stale():  # same content, new mtime: the index's stat data is out of date
        t = time.time() + 100
        os.utime(repo / "a.py", (t, t))
        return index.read_bytes(), index.stat().st_ino

    before = stale()
    _git_dirty.cache_clear()
    assert _git_dirty(str(repo)) is False
    assert (index.read_bytes(), index.stat().st_ino) == before  # not rewritten: no lock taken
    # a user's commit holding the lock meanwhile does not make the answer unknown
    (repo / ".git" / "index.lock").write_bytes(b"")
    _git_dirty.cache_clear()
    assert _git_dirty(str(repo)) is False
    (repo / ".git" / "index.lock").unlink()
    # what the test guards against: git status without the option rewrites the stale index
    subprocess.run(["git", "status", "--porcelain"], cwd=repo, check=True, capture_output=True)
    assert index.read_bytes() != before[0]
    _git_dirty.cache_clear()


@pytest.mark.slow
def test_sigkill_leaves_only_whole_cells(tmp_path):
    """A sweep killed with SIGKILL leaves whole cells only; the resume is bit-identical."""
    import signal
    import sys
    import time

    out = tmp_path / "killed"
    code = (
        "import sys; from cascading_bandits.simulate.sweep import run_experiment; "
        "run_experiment('table1', sys.argv[1], runs=2, horizon=20000, workers=1, "
        "progress=False, seed=7)"
    )
    proc = subprocess.Popen([sys.executable, "-c", code, str(out)])
    try:
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline and len(list(out.glob("table1/*.json"))) < 2:
            time.sleep(0.05)
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.wait()
    stored = list(out.glob("table1/*.json"))
    assert 2 <= len(stored) < 18, "the sweep was not interrupted mid-way"
    for js in stored:  # every cell that exists is whole: parses, hashes verified
        load_result(js)
    clean = run_experiment(
        "table1", tmp_path / "clean", runs=2, horizon=20000, workers=1, progress=False, seed=7
    )
    resumed = run_experiment(
        "table1", out, runs=2, horizon=20000, workers=1, progress=False, seed=7
    )
    for a, b in zip(clean, resumed, strict=True):
        np.testing.assert_array_equal(a.regret, b.regret)
        np.testing.assert_array_equal(a.counts, b.counts)


def test_adhoc_json_echoes_weights_seed_and_the_policy_spec(capsys):
    """An ad hoc cell's JSON says what was run: the weights, the seed and the parameters."""
    from cascading_bandits.reports.cli import main

    argv = ["simulate", "--weights", "0.5,0.3,0.1", "--K", "1", "--policy",
            "cascade-klucb(c=0),cascade-ucb1(alpha=1)", "--runs", "2", "--horizon", "50",
            "--seed", "5", "--json"]  # fmt: skip
    assert main(argv) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["seed"] == 5
    assert [c["policy"] for c in doc["cells"]] == ["cascade-klucb(c=0)", "cascade-ucb1(alpha=1)"]
    for c in doc["cells"]:
        assert c["weights"] == [0.5, 0.3, 0.1] and c["seed_entropy"] == "5"
