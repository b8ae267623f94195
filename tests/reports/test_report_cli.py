"""`cascading report` argument handling: bad input is a one-line error with exit status 2."""

from cascading_bandits.reports.cli import main


def test_bad_runs_is_one_line_exit_2(tmp_path, capsys):
    assert main(["report", "--out", str(tmp_path / "r"), "--runs", "1", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "runs must be an integer >= 2" in err and "Traceback" not in err


def test_existing_report_refused_without_overwrite(tmp_path, capsys):
    out = tmp_path / "r"
    out.mkdir()
    (out / "report.md").write_text("my notes")
    assert main(["report", "--out", str(out), "--quick", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "--overwrite" in err and err.count("\n") == 1
    assert (out / "report.md").read_text() == "my notes"


def test_help_lists_options(capsys):
    try:
        main(["report", "--help"])
    except SystemExit as exc:
        assert exc.code == 0
    out = capsys.readouterr().out
    for opt in ("--out", "--quick", "--results", "--workers", "--seed", "--overwrite"):
        assert opt in out
