"""`cascading report` argument handling: bad input is a one-line error with exit status 2."""

from cascading_bandits.reports.cli import main


def test_bad_runs_is_one_line_exit_2(tmp_path, capsys):
    assert main(["report", "--out", str(tmp_path / "r"), "--runs", "1", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "argument --runs: must be an integer >= 2" in err
    assert "Traceback" not in err


def test_existing_report_refused_without_overwrite(tmp_path, capsys):
    out = tmp_path / "r"
    out.mkdir()
    (out / "report.md").write_text("my notes")
    assert main(["report", "--out", str(out), "--quick", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "--overwrite" in err and err.count("\n") == 1
    assert (out / "report.md").read_text() == "my notes"


def test_help_lists_options(capsys):
    assert main(["report", "--help"]) == 0
    out = capsys.readouterr().out
    for opt in (
        "--out",
        "--quick",
        "--results",
        "--workers",
        "--seed",
        "--overwrite",
        "--examples",
    ):
        assert opt in out


def test_bad_directories_are_one_line_errors(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    afile = tmp_path / "afile"
    afile.write_text("x")
    cases = [
        (["--out", ""], "--out must name a directory"),
        (["--out", str(afile / "sub")], f"--out {afile / 'sub'} is not a writable directory"),
        (["--out", "r", "--results", str(afile)], f"--results {afile} exists and is not a dir"),
        (["--out", "/proc/nope"], "--out /proc/nope is not a writable directory"),
        (["--horizon", "1e12"], "--horizon 1000000000000, --examples 5) would take about"),
    ]
    for argv, msg in cases:
        assert main(["report", *argv, "--quick", "--no-progress"]) == 2
        err = capsys.readouterr().err
        assert msg in err and err.count("\n") == 1 and "Traceback" not in err, (argv, err)
    # nothing created: both directories are checked before either is made
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile"]
