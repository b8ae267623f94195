"""cascading bench: the throughput figure is the median of --repeat timed calls."""

import statistics

import pytest

from cascading_bandits.reports.cli import main
from cascading_bandits.simulate.bench import throughput


def test_throughput_reports_the_median_of_its_repeats():
    r = throughput("cascade-ucb1", 8, 2, runs=2, horizon=200, threads=1, repeat=3)
    assert r["repeat"] == 3 and len(r["wall_s_all"]) == 3 and len(r["cpu_s_all"]) == 3
    steps = 2 * 200
    rates = [steps / w for w in r["wall_s_all"]]
    assert r["run_steps_per_s"] == pytest.approx(statistics.median(rates), rel=1e-12)
    assert r["wall_s"] == pytest.approx(statistics.median(r["wall_s_all"]), abs=1e-3)


@pytest.mark.parametrize("bad", [0, -1, 1.5, True])
def test_throughput_rejects_a_bad_repeat(bad):
    with pytest.raises(ValueError, match="repeat must be a positive integer"):
        throughput("cascade-ucb1", 8, 2, runs=1, horizon=10, repeat=bad)


def test_repeat_is_a_throughput_option(capsys):
    assert main(["bench", "--what", "sweep", "--repeat", "2"]) == 2
    assert "--repeat: for --what throughput or all" in capsys.readouterr().err
