"""A sweep among other processes: the output directory's lock, and pool workers that die
with the main process (Linux: the tests read /proc)."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cascading_bandits.simulate.experiments import b_lb_cell
from cascading_bandits.simulate.store import load_results
from cascading_bandits.simulate.sweep import LOCK_NAME, run_cells

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="reads /proc and uses PR_SET_PDEATHSIG"
)

HOLD = """
import sys, time
from cascading_bandits.simulate.sweep import _dir_lock
with _dir_lock(sys.argv[1]):
    print("locked", flush=True)
    while True:
        time.sleep(1)
"""

SWEEP = """
import sys
from cascading_bandits.simulate.sweep import run_experiment
try:
    run_experiment("table1", sys.argv[1], testing=True, workers=1, progress=False,
                   seed=int(sys.argv[2]))
except ValueError as exc:
    print(exc, file=sys.stderr)
    sys.exit(2)
"""


def _small():
    return b_lb_cell("lk", 8, 2, 0.3, 0.15, "cascade-ucb1", horizon=200, runs=2)


def _run_cells_in_a_process(out, timeout=300):
    code = (
        "import sys\n"
        "from cascading_bandits.simulate.experiments import b_lb_cell\n"
        "from cascading_bandits.simulate.sweep import run_cells\n"
        "cell = b_lb_cell('lk', 8, 2, 0.3, 0.15, 'cascade-ucb1', horizon=200, runs=2)\n"
        "try:\n"
        "    run_cells([cell], sys.argv[1], seed=1, workers=1, progress=False)\n"
        "except ValueError as exc:\n"
        "    print(exc, file=sys.stderr); sys.exit(2)\n"
    )
    # a lock that blocked instead of failing would hang here: the timeout makes it a failure
    return subprocess.run(
        [sys.executable, "-c", code, str(out)], capture_output=True, text=True, timeout=timeout
    )


def test_a_second_sweep_fails_at_once_naming_the_holder(tmp_path):
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(tmp_path)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout.readline().strip() == "locked"
        got = _run_cells_in_a_process(tmp_path)
        assert got.returncode == 2, got.stderr
        err = got.stderr.strip()
        assert "\n" not in err and f"in use by another sweep (pid {holder.pid} on " in err
        assert str(tmp_path / LOCK_NAME) in err
        assert not (tmp_path / "lk").exists()  # nothing written by the refused sweep
        # this process too
        with pytest.raises(ValueError, match=f"pid {holder.pid}"):
            run_cells([_small()], tmp_path, seed=1, workers=1, progress=False)
    finally:
        holder.kill()
        holder.wait()
    # the kernel dropped the SIGKILLed holder's lock: the sweep runs
    (res,) = run_cells([_small()], tmp_path, seed=1, workers=1, progress=False)
    assert res.runs == 2 and (tmp_path / LOCK_NAME).read_text().split()[0] == str(os.getpid())


def test_two_sweeps_with_other_seeds_on_one_directory_never_mix(tmp_path):
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", SWEEP, str(tmp_path), str(seed)],
            stderr=subprocess.PIPE,
            text=True,
        )
        for seed in (3, 4)
    ]
    outcomes = []
    for p in procs:
        _, err = p.communicate(timeout=600)
        outcomes.append((p.returncode, err.strip()))
    assert sorted(rc for rc, _ in outcomes) == [0, 2], outcomes
    winner = (3, 4)[[rc for rc, _ in outcomes].index(0)]
    loser_err = next(err for rc, err in outcomes if rc == 2)
    # refused at once by the lock, or after it by the seed check: never interleaved
    assert "in use by another sweep" in loser_err or "another seed" in loser_err, loser_err
    stored = load_results(tmp_path, "table1")
    assert len(stored) == 2
    assert {r.provenance["seed_entropy"] for r in stored} == {str(winner)}
    for js in (tmp_path / "table1").glob("*.json"):
        assert json.loads(js.read_text())["seed"]["entropy"] == str(winner)


# --- workers die with the main process -------------------------------------------------


def _table():
    """pid -> (ppid, state) of every process, from /proc."""
    out = {}
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            stat = (d / "stat").read_text()
        except OSError:
            continue
        rest = stat[stat.rindex(")") + 2 :].split()
        out[int(d.name)] = (int(rest[1]), rest[0])
    return out


def _descendants(pid):
    table = _table()
    kids, todo = set(), [pid]
    while todo:
        p = todo.pop()
        for c, (pp, _) in table.items():
            if pp == p and c not in kids:
                kids.add(c)
                todo.append(c)
    return kids


def _alive(pids):
    table = _table()
    return {p for p in pids if p in table and table[p][1] != "Z"}


KILLME = """
import sys
from cascading_bandits.simulate.experiments import b_lb_cell
from cascading_bandits.simulate.sweep import run_cells
cells = [b_lb_cell("orph", 16, 2, 0.2, 0.15, p, horizon=10**9, runs=1)
         for p in ("cascade-ucb1", "cascade-klucb", "oracle")]
run_cells(cells, sys.argv[1], seed=0, workers=2, progress=False)
"""


def test_killing_the_main_process_kills_its_workers(tmp_path):
    main = subprocess.Popen([sys.executable, "-c", KILLME, str(tmp_path)])
    kids = set()
    try:
        deadline = time.monotonic() + 300
        # two workers and multiprocessing's resource tracker
        while time.monotonic() < deadline and len(kids) < 3 and main.poll() is None:
            time.sleep(0.2)
            kids = _descendants(main.pid)
        assert len(kids) >= 3 and main.poll() is None, "the pool did not start"
        time.sleep(1.0)  # the workers are past their initializer
        kids |= _descendants(main.pid)
        main.send_signal(signal.SIGKILL)
        main.wait()
        # at once on Linux once a worker has run its initializer (PR_SET_PDEATHSIG); a worker
        # still starting (slow on a loaded machine) exits in its initializer on seeing its
        # parent gone. Without either, each computes its cell of 1e9 steps for many minutes.
        deadline = time.monotonic() + 60
        while _alive(kids) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not _alive(kids), f"children alive after their parent was killed: {_alive(kids)}"
    finally:
        if main.poll() is None:
            main.kill()
            main.wait()
        for p in _alive(kids):  # only the processes this test started
            os.kill(p, signal.SIGKILL)


FORKED = """
import json, sys, threading, time
from cascading_bandits.simulate.experiments import b_lb_cell
from cascading_bandits.simulate.sweep import run_cells, start_forked_pool
cells = [b_lb_cell("fk", 8, 2, 0.3, 0.15, p, horizon=300, runs=3)
         for p in ("cascade-ucb1", "cascade-klucb", "oracle")]
pool = start_forked_pool(2)
assert pool is not None, "no other thread runs here: the pool must be forked"
try:
    forked = run_cells(cells, sys.argv[1] + "/forked", seed=5, executor=pool, progress=False)
finally:
    pool.shutdown(wait=True)
serial = run_cells(cells, sys.argv[1] + "/serial", seed=5, workers=1, progress=False)
t = threading.Thread(target=time.sleep, args=(0.5,))
t.start()
none = start_forked_pool(2)  # another thread runs: a fork could copy a held lock
t.join()
print(json.dumps({
    "same": all((a.regret == b.regret).all() and (a.counts == b.counts).all()
                for a, b in zip(forked, serial)),
    "none": none is None,
}))
"""


def test_a_forked_pool_gives_the_serial_numbers_and_needs_one_thread(tmp_path):
    """start_forked_pool (the report's workers, forked before its early thread starts) runs
    cells with the numbers of a serial run, and is refused (None) while another thread runs."""
    p = subprocess.run(
        [sys.executable, "-c", FORKED, str(tmp_path)], capture_output=True, text=True, timeout=600
    )
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout.strip().split("\n")[-1]) == {"same": True, "none": True}
