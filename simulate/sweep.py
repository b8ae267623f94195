"""Sweeps: map the cells of an experiment over any ``concurrent.futures.Executor``.

Seeds: one root ``SeedSequence(seed)``; cell ``x`` gets
``SeedSequence(root.entropy, spawn_key=root.spawn_key + (CELL_TAG, w0, w1))`` with
``(w0, w1)`` two 32-bit words of a SHA-256 of what the cell computes -- its click model,
weights, K, canonical policy spec, order, nu and gamma (:func:`cell_content`) -- and not
of its name, its runs or its horizon. So one seed gives one result whatever the entry
point (``cascading simulate``, an experiment, ``cascading study``, :func:`simulate.run`)
and whatever the cell is called; run ``r`` of a cell is the same in the full grid, in the
TESTING subset and after a resume, and a shorter horizon is a prefix of a longer one.
The users of run ``r`` depend only on the root entropy, the instance and ``r``
(:func:`simulate.rng.users_keys`), so the policies of an experiment meet the same users.
A cell's numbers depend on nothing else: serial, process pool and Dask runs are
bit-identical.

Each finished cell is written at once, atomically (:mod:`simulate.store`), by the
calling process; a re-run loads what is there and computes only what is missing. While
:func:`run_cells` runs, the output directory is locked (``fcntl.flock`` on
:data:`LOCK_NAME` in it): a second sweep on the same directory fails at once, naming
the holder's pid, instead of interleaving its cells with the first one's. The worker
processes of a local pool die with the process that started them
(``PR_SET_PDEATHSIG`` on Linux, and a watchdog thread polling the parent's pid).
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import hashlib
import json
import multiprocessing
import os
import signal
import socket
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

from cascading_bandits.bounds import _validate as V
from cascading_bandits.simulate.engine import ENGINE_VERSION, same_numbers
from cascading_bandits.simulate.experiments import (
    TESTING_HORIZON,
    TESTING_RUNS,
    Cell,
    get_experiment,
)
from cascading_bandits.simulate.jitopts import prepare_target
from cascading_bandits.simulate.policies import parse_policy
from cascading_bandits.simulate.policies._index_states import STATES_MIN
from cascading_bandits.simulate.policies._klucb_select import GROUP_MIN, GROUP_MIN_RANKED
from cascading_bandits.simulate.policies._ts_rule import INVERSION_MIN_L
from cascading_bandits.simulate.runner import as_seed_sequence, run_cell
from cascading_bandits.simulate.store import (
    cell_paths,
    cell_state,
    load_result,
    save_result,
    stored_identity,
)

try:
    import fcntl
except ImportError:  # not POSIX: no directory lock
    fcntl = None

__all__ = [
    "run_experiment",
    "run_experiments",
    "run_cells",
    "cell_seed",
    "cell_content",
    "check_writable_dir",
    "estimate",
    "check_resources",
    "CELL_TAG",
    "LOCK_NAME",
]

#: tag in a cell's spawn key ("CELL" in ASCII); the users' keys use another (simulate.rng)
CELL_TAG = 0x43454C4C
#: lock file a sweep holds in its output directory while it runs
LOCK_NAME = ".cascading-sweep.lock"
#: seconds between two checks of a pool worker that its parent is alive
WATCH_SECONDS = 0.5


def cell_content(cell: Cell) -> str:
    """What a cell computes, as canonical JSON: model, weights (``repr`` of each float), K,
    canonical policy spec, order, nu, gamma and the per-position parameters of the models
    that have them (``kappa``, ``lam``) -- not its names, runs or horizon."""
    doc = {
        "model": cell.model,
        "weights": [repr(float(w)) for w in cell.weights],
        "K": int(cell.K),
        "policy": cell.policy,
        "order": cell.order,
        "nu": repr(float(cell.nu)),
        "gamma": repr(float(cell.gamma)),
    }
    for name in ("kappa", "lam"):
        v = getattr(cell, name, None)
        if v is not None:
            doc[name] = [repr(float(x)) for x in v]
    return json.dumps(doc, sort_keys=True)


def cell_seed(root: np.random.SeedSequence, cell: Cell) -> np.random.SeedSequence:
    """The cell's SeedSequence: a child of ``root`` keyed by what it computes (module
    docstring): ``spawn_key = root.spawn_key + (CELL_TAG, w0, w1)``."""
    if not isinstance(root, np.random.SeedSequence):
        raise ValueError(f"root must be a numpy SeedSequence, got {type(root).__name__}")
    if not isinstance(cell, Cell):
        raise ValueError(f"cell must be a simulate.experiments.Cell, got {type(cell).__name__}")
    h = hashlib.sha256(cell_content(cell).encode()).digest()
    words = (int.from_bytes(h[:4], "little"), int.from_bytes(h[4:8], "little"))
    return np.random.SeedSequence(
        root.entropy, spawn_key=(*tuple(root.spawn_key), CELL_TAG, *words)
    )


def _holder(path: Path) -> str:
    try:
        text = path.read_text(encoding="utf-8", errors="replace").split()
    except OSError:
        text = []
    if len(text) >= 2 and text[0].isdigit():
        return f"pid {text[0]} on {text[1][:64]}"
    return "a process that has not written its pid yet"


@contextlib.contextmanager
def _dir_lock(out_dir):
    """Hold an exclusive ``flock`` on ``out_dir/LOCK_NAME`` (the kernel drops it when the
    process dies, however it dies); ValueError at once, naming the holder, if another
    process holds it. No lock where ``fcntl`` does not exist (not POSIX)."""
    if fcntl is None:
        yield
        return
    path = Path(out_dir) / LOCK_NAME
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        raise ValueError(f"cannot create the lock file {path}: {exc.strerror or exc}") from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise ValueError(
                f"{Path(out_dir)} is in use by another sweep ({_holder(path)}, lock file "
                f"{path}); wait for it to finish, or use another output directory"
            ) from None
        except OSError as exc:
            raise ValueError(
                f"cannot lock {path} ({exc.strerror or exc}); this file system does not "
                "support flock: use another output directory"
            ) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()} {socket.gethostname()}\n".encode(), 0)
        yield
    finally:
        os.close(fd)  # releases the lock; the file stays (unlinking it would race an opener)


def _watch_parent(parent: int) -> None:
    while True:
        if os.getppid() != parent:
            os._exit(1)  # orphaned: the main process is gone, its results with it
        time.sleep(WATCH_SECONDS)


def _worker_init(parent: int) -> None:
    """Initializer of a pool worker: die with the process that started it.

    On Linux the kernel sends SIGKILL when the parent dies (``prctl(PR_SET_PDEATHSIG)``);
    a daemon thread polling ``os.getppid()`` covers other systems and the moment before
    the prctl (a parent that died already). Without this, a SIGKILLed sweep left its
    workers computing (and the resource tracker, whose pipe they hold) for a whole cell.
    """
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(1, int(signal.SIGKILL), 0, 0, 0)  # 1 = PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent:
        os._exit(1)
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()


def _work(cell, ss, threads, checkpoints=None):
    return run_cell(cell, ss, threads=threads, checkpoints=checkpoints)


def _make_executor(workers, scheduler):
    """(executor, threads per cell, closer)."""
    if scheduler is not None:
        try:
            import distributed
        except ImportError as exc:
            raise ValueError(
                "--scheduler needs Dask's 'distributed' package, an optional extra: "
                "pip install 'cascading-bandits[dask]'"
            ) from exc
        if isinstance(scheduler, distributed.Client):
            client, own = scheduler, False
        else:
            try:
                client, own = distributed.Client(scheduler, timeout="20s"), True
            except OSError as exc:
                raise ValueError(
                    f"cannot connect to the Dask scheduler at {scheduler!r}: {exc}"
                ) from exc
        ex = client.get_executor(pure=False)
        return ex, 1, (client.close if own else (lambda: None))
    if workers == 1:
        return None, None, (lambda: None)
    ctx = multiprocessing.get_context("spawn")  # numba's threads do not survive fork safely
    ex = cf.ProcessPoolExecutor(
        max_workers=workers, mp_context=ctx, initializer=_worker_init, initargs=(os.getpid(),)
    )
    return ex, 1, (lambda: ex.shutdown(wait=True, cancel_futures=True))


def fork_is_safe() -> bool:
    """Whether this process may start children by ``fork``: the start method exists and no
    other thread runs (a fork copies the locks other threads hold, numba's compiler lock
    among them, and the child would wait for them forever)."""
    return "fork" in multiprocessing.get_all_start_methods() and threading.active_count() == 1


def start_forked_pool(workers: int):
    """A pool of ``workers`` local processes forked from this one now, for
    :func:`run_cells`'s ``executor`` (the caller shuts it down); None if
    :func:`fork_is_safe` is false.

    A spawned worker starts a new interpreter and imports numpy, numba and the simulator
    (about 0.9 s of CPU each, measured on the report's two workers); a forked one has them
    already. So a caller that has imported the simulator and runs no other thread yet
    (the report, before its early work starts) forks the pool here and passes it on. The
    processes start at once (the first ``submit`` of a fork pool starts them all): later
    threads of the caller do not exist in them. What exists now is frozen for the
    collector first (``gc.freeze``, as Python documents for a fork): no process traverses
    it in a full collection, so the children do not copy the parent's pages for that.
    The cells' numbers do not depend on the executor.
    """
    workers = V.positive_int("workers", workers)
    if not fork_is_safe():
        return None
    # numba's compiler set up once here, inherited by the workers: each one did it at its
    # first kernel (about 0.5 s of CPU, simulate.jitopts.prepare_target)
    prepare_target()
    import gc

    gc.freeze()
    ex = cf.ProcessPoolExecutor(
        max_workers=workers,
        mp_context=multiprocessing.get_context("fork"),
        initializer=_worker_init,
        initargs=(os.getpid(),),
    )
    ex.submit(os.getpid).result()  # starts every worker (fork pools start them together)
    return ex


class _Progress:
    """A tqdm bar on a terminal; plain lines elsewhere (no carriage returns in logs)."""

    def __init__(self, total, initial, desc):
        self.total, self.done, self.desc = total, initial, desc
        self.t0 = time.perf_counter()
        self.start = initial
        self.bar = None
        if sys.stderr.isatty():
            from tqdm.auto import tqdm

            self.bar = tqdm(total=total, initial=initial, desc=desc, unit="cell")
        else:
            print(
                f"{desc}: {initial}/{total} cells stored, computing {total - initial}",
                file=sys.stderr,
                flush=True,
            )

    def update(self):
        self.done += 1
        if self.bar is not None:
            self.bar.update(1)
            return
        el = time.perf_counter() - self.t0
        new = self.done - self.start
        left = el / new * (self.total - self.done) if new else float("nan")
        print(
            f"{self.desc}: {self.done}/{self.total} cells ({el:.0f} s elapsed, ~{left:.0f} s left)",
            file=sys.stderr,
            flush=True,
        )

    def close(self):
        if self.bar is not None:
            self.bar.close()


def check_writable_dir(out_dir, option="--out", *, create=True) -> Path:
    """Create ``out_dir`` if needed and prove a file can be written there; its absolute path.

    ValueError (naming the absolute path and ``option``) for an empty path, a path through a
    file, or a directory that cannot be created or written (permissions, immutable, /proc).
    Called before any work so that a bad directory fails at once, not after the first cell.
    With ``create=False`` nothing is created: the nearest existing ancestor must be a
    writable directory (a first pass when several directories are checked together).
    """
    if out_dir is None or str(out_dir).strip() == "":
        raise ValueError(f"{option} must name a directory, got an empty path")
    try:
        path = Path(out_dir).expanduser().absolute()
    except RuntimeError:  # ~user of an unknown user
        raise ValueError(f"{option} {out_dir}: no such user's home directory") from None

    def refuse(reason, where):
        raise ValueError(f"{option} {path} is not a writable directory ({reason} at {where})")

    try:
        if path.exists() and not path.is_dir():
            raise ValueError(f"{option} {path} exists and is not a directory")
        if not create:
            anc = path
            while not anc.exists() and anc != anc.parent:
                anc = anc.parent
            if not anc.is_dir():
                refuse("Not a directory", anc)
            if not os.access(anc, os.W_OK | os.X_OK):
                refuse("Permission denied", anc)
            return path
        path.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(dir=path, prefix=".write-probe.", suffix=".tmp")
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        refuse(exc.strerror or exc, exc.filename if exc.filename else path)
    return path


def _check_stored(cell, root, out_dir, notes):
    """The stored result of ``cell`` if it may be resumed, None if it must be computed.

    ValueError if a stored cell has other parameters, another seed or engine version, or is
    corrupt (the store names the file and the remedy).
    """
    state = cell_state(out_dir, cell.experiment, cell.cell_id)
    where = f"{cell.experiment}/{cell.cell_id}"
    if state == "json-only":
        notes.append(
            f"note: {cell_paths(out_dir, cell.experiment, cell.cell_id)[1]} has no .npz beside it; "
            "recomputing that cell"
        )
        return None
    if state != "stored":
        return None
    params, seed = stored_identity(out_dir, cell.experiment, cell.cell_id)
    if params != cell.params:
        diff = sorted(
            k for k in set(params) | set(cell.params) if params.get(k) != cell.params.get(k)
        )
        raise ValueError(
            f"stored cell {where} in {Path(out_dir).absolute()} has other parameters "
            f"({', '.join(diff)}); use another output directory or overwrite=True (--overwrite)"
        )
    ss = cell_seed(root, cell)
    want = {"entropy": str(ss.entropy), "spawn_key": [int(x) for x in ss.spawn_key]}
    if seed != want:
        if seed["entropy"] != want["entropy"]:
            got, asked = f"seed entropy {seed['entropy']}", f"seed entropy {want['entropy']}"
        else:
            got = f"seed entropy {seed['entropy']}, spawn key {seed['spawn_key']}"
            asked = f"spawn key {want['spawn_key']}"
        raise ValueError(
            f"stored cell {where} in {Path(out_dir).absolute()} was computed with {got}, this run "
            f"asks for {asked}; use another output directory for another seed, or "
            "overwrite=True (--overwrite)"
        )
    res = load_result(cell_paths(out_dir, cell.experiment, cell.cell_id)[1])
    if not same_numbers(res.provenance.get("engine_version"), cell.policy, len(cell.weights)):
        raise ValueError(
            f"stored cell {where} comes from engine version "
            f"{res.provenance.get('engine_version')}, this is {ENGINE_VERSION}; use "
            "another output directory or overwrite=True (--overwrite)"
        )
    return res


def run_cells(
    cells,
    out_dir,
    *,
    seed=0,
    workers=None,
    scheduler=None,
    executor=None,
    overwrite=False,
    progress=True,
    desc="cells",
    checkpoints=None,
):
    """Run (or load) ``cells``, storing each when done; returns results in ``cells`` order.

    Parameters
    ----------
    cells : list of Cell
    out_dir : path
        Checked (created, written to) before anything is computed.
    seed : int >= 0 or SeedSequence
        Root seed. Part of a stored cell's identity: a directory written with another seed
        is refused, never mixed.
    workers : int, optional
        Local processes (default: os.cpu_count()); 1 = in this process, numba threads over runs.
    scheduler : str or distributed.Client, optional
        Run on a Dask cluster (``distributed.Client(scheduler).get_executor()``).
    executor : concurrent.futures.Executor, optional
        Any executor (used as is, not shut down); overrides ``workers`` and ``scheduler``.
    overwrite : bool
        Recompute and replace stored cells (otherwise they are loaded and verified; a
        stored cell that fails verification is an error naming its file, never replaced
        silently).
    progress : bool
        Progress on stderr: a tqdm bar on a terminal, plain lines otherwise.
    checkpoints : array_like of int, optional
        Steps recorded in every computed cell (:func:`simulate.runner.run_cell`); stored
        cells are loaded as they are, so give cells whose ids differ by checkpoints.

    The directory is locked while this runs (module docstring): ValueError at once if
    another sweep holds it.
    """
    root = as_seed_sequence(seed)
    if workers is not None:
        workers = V.positive_int("workers", workers)
    ids = [(c.experiment, c.cell_id) for c in cells]
    if len(set(ids)) != len(ids):
        raise ValueError("cell ids must be unique within an experiment")
    check_writable_dir(out_dir, option="the output directory")
    with _dir_lock(out_dir):
        return _run_locked(
            cells, out_dir, root, workers, scheduler, executor, overwrite, progress, desc,
            checkpoints,
        )  # fmt: skip


def _run_locked(
    cells, out_dir, root, workers, scheduler, executor, overwrite, progress, desc, checkpoints
):
    """:func:`run_cells` once the output directory is locked."""
    results = [None] * len(cells)
    todo = []
    notes = []
    for i, cell in enumerate(cells):
        res = None if overwrite else _check_stored(cell, root, out_dir, notes)
        if res is None:
            todo.append(i)
        else:
            results[i] = res
    for line in notes:
        print(line, file=sys.stderr)
    bar = _Progress(len(cells), len(cells) - len(todo), desc) if progress else None

    def finish(i, res):
        save_result(res, out_dir, overwrite=overwrite)
        results[i] = res
        if bar is not None:
            bar.update()

    try:
        if not todo:
            return results
        if executor is None:
            ex, threads, close = _make_executor(workers or os.cpu_count() or 1, scheduler)
        else:
            ex, threads, close = executor, 1, (lambda: None)
        try:
            if ex is None:
                for i in todo:
                    finish(
                        i, run_cell(cells[i], cell_seed(root, cells[i]), checkpoints=checkpoints)
                    )
            else:
                order = _submission_order([cells[i] for i in todo])
                order = [todo[k] for k in order]
                futs = {
                    ex.submit(_work, cells[i], cell_seed(root, cells[i]), threads, checkpoints): i
                    for i in order
                }
                for f in cf.as_completed(futs):
                    finish(futs[f], f.result())
        finally:
            close()
    finally:
        if bar is not None:
            bar.close()
    return results


def _kernel_key(cell):
    """What a first run of ``cell`` compiles: its policy's run kernel at its L (the lazy one,
    the engine's choice for a run long enough to wait for it); the spec text when the
    policy cannot say (an unknown name fails later, in the run, with the engine's message)."""
    try:
        return parse_policy(cell.policy).decl.kernel_for(cell.L, True)
    except (ValueError, KeyError, TypeError, AttributeError):
        return str(cell.policy)


def _submission_order(cells) -> list:
    """The order in which a pool sweep submits ``cells``: indices into ``cells``.

    Costliest first (ranked-klucb, long lists) for a better finish, but the first cell of
    each *kernel* up front (:func:`_kernel_key`): on an empty numba cache the workers then
    compile different kernels at once. Policies that share a kernel (ranked-klucb and
    ranked-klucb-rba) count once: a head for each policy put the second one's first cell
    before the other kernels, and the worker that took it waited for the other worker's
    compilation (numba's lock beside the kernel's cache entry), idle, with kernels left to
    compile (a cold report: 6.7 s wall waiting for ranked-klucb, at load 9 on 2 cores).
    The cells' numbers do not depend on the order.
    """
    cells = list(cells)
    order = sorted(range(len(cells)), key=lambda i: -_cost(cells[i]))  # stable: ties keep order
    seen, heads = set(), []
    for i in order:
        key = _kernel_key(cells[i])
        if key not in seen:
            seen.add(key)
            heads.append(i)
    first = set(heads)
    return heads + [i for i in order if i not in first]


def run_experiment(
    name,
    out_dir,
    *,
    runs=None,
    horizon=None,
    seed=0,
    workers=None,
    scheduler=None,
    testing=False,
    overwrite=False,
    progress=True,
    executor=None,
):
    """Run the cells of experiment ``name`` (:func:`~simulate.experiments.get_experiment`).

    ``runs`` / ``horizon`` default to the paper's 20 / 1e5 (3 / 2000 with ``testing=True``).
    Resumes: cells already stored with the same parameters are loaded, not recomputed; a
    stored cell with other parameters is an error unless ``overwrite``. Returns the
    results in the experiment's order.
    """
    return run_experiments(
        [name],
        out_dir,
        runs=runs,
        horizon=horizon,
        seed=seed,
        workers=workers,
        scheduler=scheduler,
        testing=testing,
        overwrite=overwrite,
        progress=progress,
        executor=executor,
    )


def run_experiments(
    names,
    out_dir,
    *,
    runs=None,
    horizon=None,
    seed=0,
    workers=None,
    scheduler=None,
    testing=False,
    overwrite=False,
    progress=True,
    executor=None,
):
    """Several experiments in one pool (one progress bar); a flat list of results in order."""
    runs = (TESTING_RUNS if testing else 20) if runs is None else V.positive_int("runs", runs)
    horizon = (
        (TESTING_HORIZON if testing else 100_000)
        if horizon is None
        else V.positive_int("horizon", horizon)
    )
    cells = [
        c.with_scale(runs=runs, horizon=horizon)
        for name in names
        for c in get_experiment(name, testing=testing)
    ]
    return run_cells(
        cells,
        out_dir,
        seed=seed,
        workers=workers,
        scheduler=scheduler,
        executor=executor,
        overwrite=overwrite,
        progress=progress,
        desc="+".join(names),
    )


# ---------------------------------------------------------------------------
# resource guard: estimate memory and time before building or running anything
# ---------------------------------------------------------------------------
#: engine work units (run-steps x per-step work, see :func:`_cost`) per second per worker,
#: a conservative figure: ``cascading bench --policy cascade-klucb,cascade-ucb1,ranked-klucb
#: --L 16,256 --runs 4 --horizon 20000 --threads 1`` measured 9e6 to 4.5e7 units per
#: wall-second on a loaded 2-core machine; half the lowest is used
RATE = 4.5e6
#: work estimated above this many seconds is refused unless forced (an hour, as the command
#: line's guard, reports.cli.common.TIME_LIMIT)
TIME_LIMIT = 3600.0
#: work units of one run besides its steps (its state, random keys, checkpoints, and storing
#: and hashing its arrays): ``cascading study --runs 100000 --horizon 10 --weights 0.5,0.4
#: --K 1`` (two policies) took 99 s wall (33 s CPU) at load 4 on 2 cores, about 1e-3 s a run
RUN_OVERHEAD = 1e-3 * RATE
#: ``cascading verify`` over all claims at budget 1 takes about VERIFY_FIXED_SECONDS plus
#: VERIFY_SECONDS_PER_EXAMPLE an example, wall, on 2 cores. Measured 2026-11-27 (load about 1):
#: --examples 1, 50, 200 and 1000 took 7.9, 8.5, 14.2 and 40.8 s (7 s + 0.034 s an example);
#: charged with half as much again, as a loaded machine is slower. Kept here, not in verify,
#: so a report's checks need not import verify.
VERIFY_FIXED_SECONDS = 10.0
VERIFY_SECONDS_PER_EXAMPLE = 0.06


def verify_seconds(examples: int) -> float:
    """Estimated wall seconds of ``cascading verify --examples N`` over all claims at budget 1
    (:data:`VERIFY_FIXED_SECONDS` plus :data:`VERIFY_SECONDS_PER_EXAMPLE` an example): the
    one formula of verify's resource guard and of the report's estimate of its verify section.
    """
    return VERIFY_FIXED_SECONDS + VERIFY_SECONDS_PER_EXAMPLE * examples


#: recorded regret checkpoints per run (:func:`simulate.experiments.default_checkpoints`)
_CHECKPOINTS = 151


#: from this many items on, every policy but TopRank selects in work that does not grow with
#: L (the lazy KL-UCB and index-state selections, CascadeTS's threshold sampler, the O(K)
#: random lists: the largest of their thresholds); their step is then charged
#: LAZY_UNITS_PER_K * K units (ranked-klucb-rba, the slowest of them at L = 65,536: about 7
#: units a step at K = 4)
LAZY_FROM = max(STATES_MIN, GROUP_MIN, GROUP_MIN_RANKED, INVERSION_MIN_L)
LAZY_UNITS_PER_K = 8
#: a run's O(L) set-up (state tables, buffers), in units per item
SETUP_UNITS_PER_ITEM = 4


def _per_step(L, K, policy, lazy=True):
    """Work of one step in units of one KL-UCB index (measured ratios at L = 16, K = 4:
    ranked-klucb about 4 cascade-klucb steps, cascade-ts with Gamma draws (L < 128) about 3).

    With ``lazy`` (the engine's default) and L >= :data:`LAZY_FROM`, a step costs
    ``LAZY_UNITS_PER_K * K`` (CascadeTS's sampler ``64 + L / 512`` more), never more than the
    plain loop's charge; TopRank's step is O(K L) either way."""
    p = str(policy)
    if p.startswith("ranked"):
        plain = K * L
    elif p.startswith("cascade-ts") and L < INVERSION_MIN_L:
        plain = 4 * L
    else:
        plain = L + K
    if not lazy or L < LAZY_FROM or p.startswith("toprank"):
        return plain
    fast = LAZY_UNITS_PER_K * K + (64 + L / 512 if p.startswith("cascade-ts") else 0)
    return min(plain, fast)


def _cost(cell):
    return cell.runs * cell.horizon * _per_step(cell.L, cell.K, cell.policy)


def estimate(specs, *, workers=1, threads=None) -> dict:
    """Memory (bytes) and wall time (seconds) of simulating the cells ``specs``, before any work.

    Parameters
    ----------
    specs : iterable of (L, K, policy, runs, horizon) or (L, K, policy, runs, horizon, lazy)
        Plain numbers, so that a cell too large to build is estimated without building it;
        ``lazy`` (default True, the engine's default) False charges the plain loop.
    workers : int
        Cells run at once (one per worker process, each serial over its runs).
    threads : int, optional
        numba threads over the runs of one cell when ``workers == 1`` (default: the cores).

    Returns
    -------
    dict with ``bytes`` (peak, the ``workers`` largest cells at once) and ``seconds``.

    The memory model counts what the code allocates per item: the weights (a tuple of
    floats and numpy copies, 64 B/item), the outputs (counts: 8 B/item/run; regret: 8 B per
    checkpoint per run) and the state of each run being simulated (about 40 arrays of
    8 B/item, 48 B/item/position more for ranked policies). Good to a factor of two.
    """
    specs = [tuple(s) for s in specs]
    cores = os.cpu_count() or 1
    conc_runs = cores if threads is None else threads
    mem, work = [], 0.0
    for spec in specs:
        L, K, policy, runs, horizon = spec[:5]
        lazy = bool(spec[5]) if len(spec) > 5 else True
        L, K, runs, horizon = float(L), float(K), float(runs), float(horizon)
        live = min(runs, conc_runs if workers == 1 else 1)
        state = 320 * L + (48 * K * L if str(policy).startswith("ranked") else 0)
        mem.append(64 * L + 8 * runs * (L + _CHECKPOINTS + 2) + live * state)
        setup = SETUP_UNITS_PER_ITEM * L
        work += runs * (horizon * _per_step(L, K, policy, lazy) + setup + RUN_OVERHEAD)
    mem.sort(reverse=True)
    par = max(1, min(workers, len(specs))) if workers > 1 else max(1, min(conc_runs, cores))
    return {"bytes": sum(mem[: max(1, workers)]), "seconds": work / (RATE * par)}


def available_memory() -> int | None:
    """Bytes of memory available to a new allocation (Linux MemAvailable), None if unknown."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, AttributeError):
        return None


def _human_bytes(b):
    for unit, size in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6)):
        if b >= size:
            return f"{b / size:.3g} {unit}"
    return f"{b / 1e3:.3g} kB"


def _human_seconds(s):
    for unit, size in (("years", 3.15e7), ("days", 2 * 86400.0), ("h", 3600.0), ("min", 60.0)):
        if s >= size:
            return f"{s / (86400.0 if unit == 'days' else size):.3g} {unit}"
    return f"{s:.3g} s"


def check_resources(need_bytes, need_seconds, *, force=False, what="this run") -> None:
    """ValueError if ``need_bytes`` exceeds the available memory or ``need_seconds`` exceeds
    :data:`TIME_LIMIT`, saying how much would be needed; nothing if ``force``."""
    if force:
        return
    avail = available_memory()
    if avail is not None and need_bytes > avail:
        raise ValueError(
            f"{what} would need about {_human_bytes(need_bytes)} of memory; this machine has "
            f"{_human_bytes(avail)} available (pass --force to try anyway)"
        )
    if need_seconds > TIME_LIMIT:
        raise ValueError(
            f"{what} would take about {_human_seconds(need_seconds)} "
            f"(limit {_human_seconds(TIME_LIMIT)} without --force); reduce it or pass --force"
        )
