"""The resource guard every subcommand goes through, and the estimates behind it.

Each subcommand declares ``cost(args)``; ``reports.cli.main`` passes it through
``reports.cli.common.guard`` before any work. The estimates live beside the code they
estimate (``simulate.search.estimate``, ``simulate.counters.estimate``,
``simulate.bench.estimate``, ``verify.registry.estimate_seconds``,
``bounds.overview.estimate``, ``reports.regret_plot.estimate``).
"""

from __future__ import annotations

import argparse
import json

import pytest

from cascading_bandits.reports.cli import SUBCOMMANDS, build_parser, main

#: one oversized invocation per subcommand: refused before any work, with the estimate
OVERSIZED = {
    "bounds": ["--L", "1000000"],
    "ledger": ["--L", "1000000"],
    "verify": ["--full", "--examples", "1e6"],
    "simulate": ["--K", "2", "--horizon", "1e12"],
    "bench": ["--repeat", "1e9"],
    "search": ["--K", "1e3"],
    "report": ["--horizon", "1e12"],
    "study": ["--weights", "0.5,0.4,0.1", "--K", "1", "--horizon", "1e10"],
    "profile": ["--weights", "0.5,0.4,0.1", "--K", "1", "--horizon", "1e12"],
}


def _run(capsys, argv):
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def test_every_subcommand_is_in_the_oversized_list():
    assert set(OVERSIZED) == set(SUBCOMMANDS)


@pytest.mark.parametrize("sub", sorted(OVERSIZED))
def test_oversized_runs_are_refused_up_front_with_the_estimate(sub, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rc, out, err = _run(capsys, [sub, *OVERSIZED[sub]])
    assert rc == 2 and out == "", err
    assert err.count("\n") == 1 and err.startswith(f"cascading {sub}: error: "), err
    assert "would take about" in err and "--force" in err, err
    if sub != "verify":  # verify's memory is small and not estimated
        assert "would need about" in err and "of memory" in err, err
    assert list(tmp_path.iterdir()) == []


def test_lowered_limits_and_force(capsys, monkeypatch, tmp_path):
    """$CASCADING_TIME_LIMIT / $CASCADING_MEMORY_LIMIT lower the limits; --force runs anyway;
    a malformed limit is a one-line error."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CASCADING_TIME_LIMIT", "1e-9")
    rc, _, err = _run(capsys, ["bounds", "--L", "8"])
    assert rc == 2 and "would take about" in err and "limit without --force is" in err
    rc, out, err = _run(capsys, ["bounds", "--L", "8", "--force"])
    assert rc == 0 and "Theorem 4" in out, err
    monkeypatch.delenv("CASCADING_TIME_LIMIT")
    monkeypatch.setenv("CASCADING_MEMORY_LIMIT", "1000")
    rc, _, err = _run(capsys, ["bounds", "--L", "8"])
    assert rc == 2 and "would need about" in err and "1 kB of memory available" in err
    monkeypatch.setenv("CASCADING_MEMORY_LIMIT", "lots")
    rc, _, err = _run(capsys, ["bounds", "--L", "8"])
    assert rc == 2 and err.count("\n") == 1 and "CASCADING_MEMORY_LIMIT" in err


def test_every_subcommand_takes_force_and_one_workers_default():
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    workers = {}
    for name, sp in sub.choices.items():
        assert "--force" in sp._option_string_actions, name
        if "--workers" in sp._option_string_actions:
            workers[name] = sp._option_string_actions["--workers"].default
    assert {"simulate", "study", "report", "bench"} <= set(workers)
    assert set(workers.values()) == {None}  # None: all cores, in every subcommand


def test_the_legacy_c_option_is_gone(capsys):
    rc, _, err = _run(capsys, ["simulate", "--K", "2", "--c", "0"])
    assert rc == 2 and "unrecognized arguments: --c 0" in err
    rc, _, err = _run(capsys, ["simulate", "--K", "2", "--policy", "cascade-klucb(c=1e300)"])
    assert rc == 2 and "c = 1e+300 makes every KL-UCB index 1" in err


# ---------------------------------------------------------------------------
# the estimates
# ---------------------------------------------------------------------------
def test_bench_repeats_add_time_not_memory():
    """``bench --repeat 1e9`` once spoke of 352 TB: the repeats were counted as runs."""
    from cascading_bandits.simulate.bench import estimate

    one = estimate(["cascade-ucb1"], [16], 4, runs=20, horizon=1000, repeat=1)
    many = estimate(["cascade-ucb1"], [16], 4, runs=20, horizon=1000, repeat=10**9)
    assert many["bytes"] == one["bytes"] < 10**7
    assert many["seconds"] == pytest.approx(1e9 * one["seconds"], rel=1e-12)
    more_runs = estimate(["cascade-ucb1"], [16], 4, runs=2000, horizon=1000, repeat=1)
    assert more_runs["bytes"] > one["bytes"]  # runs do add memory (their outputs)
    with pytest.raises(ValueError, match="repeat"):
        estimate(["cascade-ucb1"], [16], 4, repeat=0)


def test_search_estimate_counts_the_optimisers_candidates():
    """The estimate's candidates are those differential evolution simulates (SciPy's Sobol
    population: the power of 2 from popsize x dimension on, max(5, .)), and a search beyond
    the Sobol dimensions is refused before anything is built."""
    from cascading_bandits.simulate.search import (
        MAX_DIMENSION,
        check_size,
        estimate,
        population_size,
        search,
    )

    assert population_size(3, 1) == 8 and population_size(2, 8) == 16
    assert population_size(4, 8) == 32 and population_size(1, 1) == 8
    r = search("regret", ["cascade-ucb1"], L=3, K=1, horizon=20, runs=1, maxiter=2, popsize=1)
    est = estimate("regret", ["cascade-ucb1"], L=3, K=1, horizon=20, runs=1, maxiter=2, popsize=1)
    assert r.evaluations <= est["evaluations"] == population_size(3, 1) * 3
    big = estimate("ratio", ["cascade-ucb1", "cascade-klucb"], L=4000, K=1000)
    assert big["seconds"] > 86400 and big["dimension"] == 4000
    two = estimate("ratio", ["cascade-ucb1", "cascade-klucb"], L=4000, K=1000, family="two-level")
    assert two["dimension"] == 2 and two["seconds"] < big["seconds"] / 100
    with pytest.raises(ValueError, match="two-level"):
        check_size(MAX_DIMENSION + 1, 2, "free")
    check_size(MAX_DIMENSION + 1, 2, "two-level")
    with pytest.raises(ValueError, match="K must be < L"):
        check_size(4, 4)


def test_factor_against_K_needs_two_different_K():
    from cascading_bandits.simulate.search import factor_against_K

    for Ks in ([2, 2], [4], [2, 4, 2]):
        with pytest.raises(ValueError, match="different list lengths"):
            factor_against_K(Ks, horizon=20, runs=1, maxiter=1, popsize=1)


def test_profile_estimate_traces_and_counters():
    """A trace holds 2 n K int64 per run, at least one run's at a time: at n = 1e12 that is
    32 TB whatever the chunk size; runs add counters and time, not traces."""
    from cascading_bandits.simulate.counters import estimate

    huge = estimate(16, 2, 20, 10**12)
    assert huge["bytes"] >= 2 * 10**12 * 2 * 8
    small = estimate(16, 2, 20, 1000)
    assert small["bytes"] < 10**8 and small["seconds"] < 1
    more = estimate(16, 2, 2000, 1000)
    assert more["seconds"] == pytest.approx(100 * small["seconds"], rel=0.05)
    wide = estimate(10**6, 2, 20, 1000)
    assert wide["bytes"] > 20 * 8 * 5 * (10**6 - 2) * 2  # five (L - K, K) counters per run


def test_verify_estimate_counts_full_and_the_claims():
    from cascading_bandits.verify.registry import available_claims, estimate_seconds

    base = estimate_seconds(50)
    assert estimate_seconds(50, budget=8.0) > 8 * base  # --full: more than 8x (measured 20x)
    # a fixed cost plus a cost an example: measured (quiet, 2 cores) 7.9, 8.5, 14.2 and 40.8 s
    # for 1, 50, 200 and 1000 examples; the estimate stays above each, and a guard refusing
    # over an hour still lets 10,000 examples run (about 6 minutes measured by that rate)
    for examples, seconds in ((1, 7.9), (50, 8.5), (200, 14.2), (1000, 40.8)):
        assert seconds < estimate_seconds(examples) < 2.5 * seconds
    d1 = estimate_seconds(101) - estimate_seconds(100)
    assert estimate_seconds(1001) - estimate_seconds(1000) == pytest.approx(d1, rel=1e-9)
    assert estimate_seconds(10_000) < 3600
    one = estimate_seconds(50, claims=[available_claims()[0].id])
    assert one == pytest.approx(base / len(available_claims()), rel=1e-12)


def test_bounds_and_curves_estimates_grow_with_the_items():
    from cascading_bandits.bounds.overview import estimate
    from cascading_bandits.reports.regret_plot import estimate as curves

    a, b = estimate(100), estimate(10**6)
    assert b["seconds"] == pytest.approx(10**4 * a["seconds"]) and b["bytes"] > a["bytes"]
    assert estimate(100, 3)["seconds"] == pytest.approx(3 * a["seconds"])
    assert curves(100)["seconds"] > a["seconds"]
    with pytest.raises(ValueError):
        estimate(-1)


def test_guard_message_and_limits(monkeypatch):
    from cascading_bandits.reports.cli.common import guard, time_limit

    guard({"bytes": 0, "seconds": 1.0}, "this", force=False)  # fits: nothing
    with pytest.raises(ValueError, match=r"^this would take about 31\.7 years and would need"):
        guard({"bytes": 10.0, "seconds": 1e9}, "this")
    with pytest.raises(ValueError, match="would take about an unbounded time"):
        guard({"bytes": 0, "seconds": float("inf")}, "this")
    with pytest.raises(ValueError) as e:
        guard({"bytes": None, "seconds": 1e9}, "this")
    assert "memory" not in str(e.value).split("(")[0]
    guard({"bytes": 1e30, "seconds": 1e30}, "this", force=True)
    monkeypatch.setenv("CASCADING_TIME_LIMIT", "60")
    assert time_limit() == 60.0
    monkeypatch.setenv("CASCADING_TIME_LIMIT", "1e30")  # sets it, higher too
    assert time_limit() == 1e30
    monkeypatch.delenv("CASCADING_TIME_LIMIT")
    assert time_limit() == 3600.0


def _cost(argv):
    from cascading_bandits.reports.cli import _attach_values

    parser = build_parser(only=argv[0])
    args = parser.parse_args(_attach_values(parser, argv))
    return args._cost(args)[0]


def test_an_hour_without_force_and_the_papers_runs_fit(capsys, monkeypatch, tmp_path):
    """The limit was a day: ``study --runs 1e6`` on two items (about 18 h estimated) started
    unasked. An hour now, with the estimate and both ways out in the refusal; the paper's
    own experiments (the report, simulate's five experiments, a default study) fit."""
    from cascading_bandits.reports.cli.common import TIME_LIMIT, time_limit

    monkeypatch.delenv("CASCADING_TIME_LIMIT", raising=False)
    monkeypatch.chdir(tmp_path)
    assert TIME_LIMIT == time_limit() == 3600.0
    big = ["study", "--weights", "0.5,0.4", "--K", "1", "--runs", "1e6"]
    assert 3600 < _cost(big)["seconds"] < 86400  # what the day limit let through
    rc, out, err = _run(capsys, big)
    assert rc == 2 and out == "" and err.count("\n") == 1, err
    assert "would take about" in err and "would need about" in err
    assert "the limit without --force is 1 h" in err and "CASCADING_TIME_LIMIT" in err
    assert list(tmp_path.iterdir()) == []
    for argv in (
        ["report"],
        ["report", "--profile"],
        ["simulate", "--experiment", "all"],
        ["study", "--L", "16", "--K", "2", "--p", "0.2", "--delta", "0.15"],
        ["profile", "--L", "16", "--K", "2", "--p", "0.2", "--delta", "0.15"],
        ["search"],
        ["verify"],
        ["bench"],
        ["bounds"],
        ["ledger"],
    ):
        assert _cost(argv)["seconds"] < TIME_LIMIT, argv
    # --profile's eight counted cells are charged (they were not)
    plain, profiled = _cost(["report"]), _cost(["report", "--profile"])
    assert profiled["seconds"] > plain["seconds"] and profiled["bytes"] > plain["bytes"]
    from cascading_bandits.reports.cli.common import guard

    with pytest.raises(ValueError, match="would take about 5.56 h"):
        guard({"bytes": 0, "seconds": 2e4}, "this")
    monkeypatch.setenv("CASCADING_TIME_LIMIT", "1e6")  # a long campaign, asked for
    guard({"bytes": 0, "seconds": 2e4}, "this")


def test_out_expands_home_and_refuses_empty(tmp_path, monkeypatch, capsys):
    """``profile --out '~/x'`` once made a folder named '~' in the working directory."""
    home, work = tmp_path / "home", tmp_path / "work"
    home.mkdir()
    work.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(work)
    argv = ["profile", "--weights", "0.5,0.4,0.1", "--K", "1", "--runs", "2", "--horizon"]
    rc, _, err = _run(capsys, [*argv, "50", "--policy", "cascade-ucb1", "--out", "~/x"])
    assert rc == 0, err
    assert sorted(p.name for p in (home / "x").iterdir()) == [
        "cascade-ucb1-best-first-waterfall.pdf",
        "cascade-ucb1-best-first-waterfall.png",
        "cascade-ucb1-best-first.json",
    ]
    assert list(work.iterdir()) == []
    for sub in ("study", "profile"):
        base = ["--weights", "0.5,0.4,0.1", "--K", "1", "--policy", "cascade-ucb1"]
        rc, _, err = _run(capsys, [sub, *base, "--runs", "2", "--horizon", "20", "--out", ""])
        assert rc == 2 and "--out must name a directory" in err, err
    assert list(work.iterdir()) == []


def test_zero_regret_study_writes_its_figure(tmp_path, capsys):
    """K = L: every regret is 0; the study's log axis once failed with matplotlib's 'Data
    cannot be log-scaled'."""
    argv = ["study", "--weights", "0.5,0.4", "--K", "2", "--policy", "oracle,cascade-ucb1"]
    rc, out, err = _run(capsys, [*argv, "--runs", "2", "--horizon", "50", "--out", str(tmp_path)])
    assert rc == 0, err
    assert (tmp_path / "regret.png").stat().st_size > 1000
    rows = json.loads((tmp_path / "summary.json").read_text())["policies"]
    assert [r["mean_regret"] for r in rows] == [0.0, 0.0]


def test_lazy_policies_are_charged_per_step_work_that_does_not_grow_with_L():
    """``bench --L 65536`` (47 s of work) was refused as 40 hours: every step was charged
    L units although the lazy selections' work does not grow with L. Now a lazy step at
    L >= LAZY_FROM costs the same at 2048 and 65,536 items (CascadeTS a little more), never
    more than the plain loop, the plain loop (lazy=False) is still charged L, and TopRank,
    O(K L) a step, is not discounted."""
    from cascading_bandits.simulate.sweep import LAZY_FROM, _per_step, estimate

    for pol in ("cascade-ucb1", "cascade-klucb", "ranked-klucb", "uniform-random"):
        assert _per_step(2048, 4, pol) == _per_step(65536, 4, pol) < _per_step(2048, 4, pol, False)
        assert _per_step(LAZY_FROM - 1, 4, pol) == _per_step(LAZY_FROM - 1, 4, pol, False)
    assert _per_step(2048, 4, "cascade-ts") < _per_step(65536, 4, "cascade-ts") < 65536
    assert _per_step(2048, 4, "toprank") == _per_step(2048, 4, "toprank", False) == 2052
    assert _per_step(200, 150, "cascade-ucb1") == 350  # 8 K > L + K: the plain charge
    big = estimate([(65536, 4, "cascade-ucb1", 20, 10_000)], threads=1)["seconds"]
    plain = estimate([(65536, 4, "cascade-ucb1", 20, 10_000, False)], threads=1)["seconds"]
    assert big < 60 and 100 * big < plain
