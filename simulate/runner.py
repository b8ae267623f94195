"""``run_cell``: simulate one cell from a seed, with provenance."""

from __future__ import annotations

import functools
import os
import platform
import subprocess
import time
from importlib import metadata
from pathlib import Path

import numpy as np

from cascading_bandits.simulate.engine import ENGINE_VERSION, simulate_runs
from cascading_bandits.simulate.experiments import Cell, default_checkpoints
from cascading_bandits.simulate.results import CellResult
from cascading_bandits.simulate.rng import policy_keys, users_keys

__all__ = ["run_cell", "as_seed_sequence", "provenance_base", "resolve_checkpoints"]


def as_seed_sequence(seed) -> np.random.SeedSequence:
    """An int >= 0 or a SeedSequence as a SeedSequence (ValueError otherwise)."""
    if isinstance(seed, np.random.SeedSequence):
        return seed
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or int(seed) < 0:
        raise ValueError(f"seed must be an integer >= 0 or a numpy SeedSequence, got {seed!r}")
    return np.random.SeedSequence(int(seed))


@functools.lru_cache(maxsize=1)
def _git_commit():
    try:
        out = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            cwd=Path(__file__).resolve().parent,
            capture_output=True,
            text=True,
            timeout=10,
        )
        return out.stdout.strip() or None if out.returncode == 0 else None
    except (OSError, subprocess.SubprocessError):
        return None


@functools.lru_cache(maxsize=4)
def _git_dirty(where=None):
    """True if tracked files differ from the commit (as ``git describe --dirty``), None if unknown.

    Untracked files are not counted: result directories and scratch files would make every
    tree dirty, while changed code is always a tracked change once it is committed.

    Read-only: ``git --no-optional-locks status`` (and ``GIT_OPTIONAL_LOCKS=0``) does not
    refresh the index, so it never takes ``.git/index.lock`` in the user's checkout, where
    a ``git commit`` at that moment would otherwise fail.
    """
    try:
        out = subprocess.run(
            ["git", "--no-optional-locks", "status", "--porcelain", "--untracked-files=no"],
            cwd=where or Path(__file__).resolve().parent,
            capture_output=True,
            text=True,
            timeout=10,
            env={**os.environ, "GIT_OPTIONAL_LOCKS": "0"},
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return bool(out.stdout.strip()) if out.returncode == 0 else None


def _version(pkg):
    try:
        return metadata.version(pkg)
    except metadata.PackageNotFoundError:
        return None


@functools.lru_cache(maxsize=1)
def _versions():
    return {
        "python": platform.python_version(),
        **{p: _version(p) for p in ("cascading-bandits", "numpy", "numba", "scipy", "distributed")},
    }


def provenance_base(ss: np.random.SeedSequence) -> dict:
    """Seed, key derivation, versions, git commit and whether the tree was dirty, JSON-able.

    ``git_dirty`` is True when tracked files had uncommitted changes (the commit alone then
    does not identify the code), False when clean, None outside a git checkout.
    """
    return {
        "seed_entropy": str(ss.entropy),
        "seed_spawn_key": [int(x) for x in ss.spawn_key],
        "users_key": "SeedSequence(entropy, spawn_key=(0x55534552, *instance_words(weights), run))"
        ".generate_state(1, uint64)",
        "policy_key": "SeedSequence(entropy, spawn_key=spawn_key + (run,))"
        ".generate_state(1, uint64)",
        "rng": "SplitMix64 counters (simulate.rng)",
        "engine_version": ENGINE_VERSION,
        "versions": dict(_versions()),
        "git_commit": _git_commit(),
        "git_dirty": _git_dirty() if _git_commit() else None,
    }


def resolve_checkpoints(checkpoints, horizon: int) -> np.ndarray:
    """The steps to record, shape (m,) int64: ``checkpoints`` checked (increasing, within
    1..horizon) with the horizon appended if missing, or the default grid when None
    (:func:`simulate.experiments.default_checkpoints`)."""
    if checkpoints is None:
        return default_checkpoints(horizon)
    cp = np.asarray(checkpoints)
    if cp.ndim != 1 or cp.size == 0 or not np.issubdtype(cp.dtype, np.integer):
        raise ValueError("checkpoints must be a non-empty 1-d array of integers")
    cp = cp.astype(np.int64)
    if (np.diff(cp) <= 0).any() or cp[0] < 1 or cp[-1] > horizon:
        raise ValueError(f"checkpoints must increase strictly within 1..horizon = {horizon}")
    if cp[-1] != horizon:
        cp = np.append(cp, horizon)
    return cp


def run_cell(
    cell: Cell, seed, *, threads: int | None = None, checkpoints=None, lazy: bool | None = None
) -> CellResult:
    """Simulate ``cell.runs`` independent runs of ``cell`` for ``cell.horizon`` steps.

    Parameters
    ----------
    cell : Cell
    seed : int >= 0 or numpy.random.SeedSequence
        Run ``r`` meets the users of ``users_keys(seed, cell.weights)[r]`` (same for every
        policy and order on the same instance and root entropy) and draws its own
        randomness from ``policy_keys(seed)[r]`` (:mod:`simulate.rng`).
    threads : int, optional
        numba threads over runs (1 = serial; default numba's). Results do not depend on it.
    checkpoints : array_like of int, optional
        Steps to record (increasing, within 1..horizon; the horizon is appended if missing).
        Default :func:`simulate.experiments.default_checkpoints`.
    lazy : bool or None
        The policy's lazy selection (True) or plain loop (False); None lets the engine
        choose (:func:`simulate.engine.pick_kernel`). Results do not depend on it.

    Returns
    -------
    CellResult
    """
    if not isinstance(cell, Cell):
        raise ValueError(f"cell must be a simulate.experiments.Cell, got {type(cell).__name__}")
    ss = as_seed_sequence(seed)
    n = cell.horizon
    cp = resolve_checkpoints(checkpoints, n)
    model = cell.click_model()
    uk = users_keys(ss, cell.weights, cell.runs)
    pk = policy_keys(ss, cell.runs)
    t0 = time.perf_counter()
    regret, counts = simulate_runs(
        model, cell.policy, cell.order, n, uk, pk, cp, threads=threads, lazy=lazy
    )
    prov = provenance_base(ss)
    prov["seconds"] = round(time.perf_counter() - t0, 4)
    return CellResult(cell.params, cp, regret, counts, prov)
