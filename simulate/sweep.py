"""Sweeps: map the cells of an experiment over any ``concurrent.futures.Executor``.

Seeds: one root ``SeedSequence(seed)``; cell ``x`` gets
``SeedSequence(root.entropy, spawn_key=root.spawn_key + (cell_word(x),))`` with
``cell_word`` a 32-bit hash of ``"<experiment>/<cell_id>"`` -- a spawn keyed by the cell's
name rather than its position, so a cell has the same numbers in the full grid, in the
TESTING subset and after a resume. The users of run ``r`` depend only on the root
entropy, the instance and ``r`` (:func:`simulate.rng.users_keys`), so the policies of an
experiment meet the same users. A cell's numbers depend on nothing else: serial, process
pool and Dask runs are bit-identical.

Each finished cell is written at once, atomically (:mod:`simulate.store`), by the
calling process; a re-run loads what is there and computes only what is missing.
"""

from __future__ import annotations

import concurrent.futures as cf
import hashlib
import multiprocessing
import os

import numpy as np

from cascading_bandits.bounds import _validate as V
from cascading_bandits.simulate.engine import ENGINE_VERSION
from cascading_bandits.simulate.experiments import TESTING_HORIZON, TESTING_RUNS, Cell, get_experiment
from cascading_bandits.simulate.runner import as_seed_sequence, run_cell
from cascading_bandits.simulate.store import cell_paths, load_result, save_result, stored_params

__all__ = ["run_experiment", "run_experiments", "run_cells", "cell_seed"]


def cell_seed(root: np.random.SeedSequence, cell: Cell) -> np.random.SeedSequence:
    """The cell's SeedSequence: a child of ``root`` keyed by a hash of the cell's name."""
    h = hashlib.sha256(f"{cell.experiment}/{cell.cell_id}".encode()).digest()
    return np.random.SeedSequence(
        root.entropy, spawn_key=tuple(root.spawn_key) + (int.from_bytes(h[:4], "little"),)
    )


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
    ex = cf.ProcessPoolExecutor(max_workers=workers, mp_context=ctx)
    return ex, 1, (lambda: ex.shutdown(wait=True, cancel_futures=True))


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
    seed : int >= 0 or SeedSequence
        Root seed.
    workers : int, optional
        Local processes (default: os.cpu_count()); 1 = in this process, numba threads over runs.
    scheduler : str or distributed.Client, optional
        Run on a Dask cluster (``distributed.Client(scheduler).get_executor()``).
    executor : concurrent.futures.Executor, optional
        Any executor (used as is, not shut down); overrides ``workers`` and ``scheduler``.
    overwrite : bool
        Recompute and replace stored cells (otherwise they are loaded).
    progress : bool
        tqdm bar over cells with the time left.
    checkpoints : array_like of int, optional
        Steps recorded in every computed cell (:func:`simulate.runner.run_cell`); stored
        cells are loaded as they are, so give cells whose ids differ by checkpoints.
    """
    root = as_seed_sequence(seed)
    if workers is not None:
        workers = V.positive_int("workers", workers)
    ids = [(c.experiment, c.cell_id) for c in cells]
    if len(set(ids)) != len(ids):
        raise ValueError("cell ids must be unique within an experiment")
    results = [None] * len(cells)
    todo = []
    for i, cell in enumerate(cells):
        sp = stored_params(out_dir, cell.experiment, cell.cell_id)
        if sp is None or overwrite:
            todo.append(i)
        elif sp != cell.params:
            diff = sorted(k for k in set(sp) | set(cell.params) if sp.get(k) != cell.params.get(k))
            raise ValueError(
                f"stored cell {cell.experiment}/{cell.cell_id} has other parameters "
                f"({', '.join(diff)}); "
                "use another output directory or overwrite=True (--overwrite)"
            )
        else:
            res = load_result(cell_paths(out_dir, cell.experiment, cell.cell_id)[1])
            if res.provenance.get("engine_version") != ENGINE_VERSION:
                raise ValueError(
                    f"stored cell {cell.experiment}/{cell.cell_id} comes from engine version "
                    f"{res.provenance.get('engine_version')}, this is {ENGINE_VERSION}; use "
                    "another output directory or overwrite=True (--overwrite)"
                )
            results[i] = res
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=len(cells), initial=len(cells) - len(todo), desc=desc, unit="cell")

    def finish(i, res):
        save_result(res, out_dir, overwrite=overwrite)
        results[i] = res
        if bar is not None:
            bar.update(1)

    try:
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
                # costliest first (ranked-klucb, long lists) for a better finish
                order = sorted(todo, key=lambda i: -_cost(cells[i]))
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


def _cost(cell):
    per_step = cell.K * cell.L if cell.policy.startswith("ranked") else cell.L + cell.K
    return cell.runs * cell.horizon * per_step


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
