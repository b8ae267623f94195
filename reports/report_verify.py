"""``verify`` for the report: its verdicts and caveats as JSON values, cached, and computed in
processes of their own while the simulation runs.

:func:`start_verify` starts :class:`VerifyBeside`: two daemonic processes (one on a one-core
machine; forked where that is safe, else spawned), one checking the claims that run the
engine (they share its compiled kernels) and one the others, each sending its one answer
through a pipe; the answers are merged in the registry's order. A claim draws its numbers
from the root seed and its own id (``verify.registry``), so the split changes no verdict.
:func:`run_verify` takes that answer, or the cached one, or runs verify in this process, and
caches it in the results directory under :func:`verify_cache_key`.
"""

from __future__ import annotations

import importlib.util
import json
import os
import time

from cascading_bandits.reports.report_cache import cache_load, cache_store, code_version
from cascading_bandits.reports.report_files import json_default

__all__ = ["verify_cache_key", "VerifyBeside", "start_verify", "run_verify"]


def _verify_installed() -> bool:
    return importlib.util.find_spec("cascading_bandits.verify") is not None


def verify_cache_key(s) -> dict:
    """What verify's verdicts and caveats depend on: the code of bounds, verify and simulate
    (its Monte-Carlo claims run the engine), the number of examples and the seed of the
    report's settings ``s``."""
    return {
        "code": code_version("bounds", "verify", "simulate"),
        "examples": s.verify_examples,
        "seed": s.seed,
        "budget": 1.0,
    }


#: the module a claim that runs the engine's policies requires (verify.registry.Claim.requires)
_ENGINE = "cascading_bandits.simulate.runner"


def _part_of(claim, parts: int) -> int:
    """Which of ``parts`` processes checks ``claim``: the claims that run the engine's
    policies (they compile and then reuse the same kernels) in process 0, every other claim
    (the proof counters' replays, interval certificates, symbolic and sampled checks) in
    process 1. Split by method instead, the Monte-Carlo claims of a quick report from an
    empty numba cache took 384 s of a loaded machine against 239 s for the others, 82 s of
    the 384 in the proof counters' claims, which compile their own replay kernels."""
    return 0 if parts == 1 or _ENGINE in getattr(claim, "requires", ()) else 1


def _verify_value(examples: int, seed: int, budget: float, part=None, claims=None) -> dict:
    """``verify.run_all`` and ``verify.caveats`` as plain JSON values (a worker's job too).

    ``part``: ``(i, parts)`` to check only the claims of process ``i`` (:func:`_part_of`),
    with ``positions``, their places in the registry's order, in the answer (and the caveats
    from process 0 only); ``claims``: the claim ids to choose from (default all available).
    """
    from cascading_bandits import verify

    t0 = time.perf_counter()
    if part is None:
        verdicts = verify.run_all(examples=examples, seed=seed, budget=budget)
        cav, positions = verify.caveats(), None
    else:
        i, parts = part
        todo = verify.available_claims()
        if claims is not None:
            todo = [c for c in todo if c.id in set(claims)]
        mine = [(k, c.id) for k, c in enumerate(todo) if _part_of(c, parts) == i]
        positions = [k for k, _ in mine]
        verdicts = verify.run_all(
            examples=examples, seed=seed, budget=budget, claims=[c for _, c in mine]
        )
        cav = verify.caveats() if i == 0 else []
    value = {
        "verdicts": [v.to_dict() if hasattr(v, "to_dict") else dict(vars(v)) for v in verdicts],
        "caveats": [c.to_dict() if hasattr(c, "to_dict") else dict(vars(c)) for c in cav],
    }
    # through JSON once, so a fresh and a cached report hold identical values
    value = json.loads(json.dumps(value, default=json_default))
    out = {"value": value, "seconds": time.perf_counter() - t0}
    if positions is not None:
        out["positions"] = positions
    return out


def _merge(answers: list[dict]) -> dict:
    """The answers of the :class:`VerifyBeside` processes as one: the verdicts in the
    registry's order, the caveats of process 0, the longest time."""
    placed = sorted(
        (k, d) for a in answers for k, d in zip(a["positions"], a["value"]["verdicts"], strict=True)
    )
    return {
        "value": {
            "verdicts": [d for _, d in placed],
            "caveats": answers[0]["value"]["caveats"],
        },
        "seconds": max(a["seconds"] for a in answers),
    }


def _verify_cached(s, key=None):
    """The cached verify answer of ``s`` (dict) or None; None too if verify is not installed.

    ``key``: :func:`verify_cache_key` of ``s`` if the caller has it (it hashes the sources).
    """
    if not _verify_installed():
        return None
    hit = cache_load(s.results, "verify", key or verify_cache_key(s))
    if (
        isinstance(hit, dict)
        and isinstance(hit.get("verdicts"), list)
        and isinstance(hit.get("caveats"), list)
    ):
        return hit
    return None


def _lazy_kernels_only() -> None:
    """In a verify process of the report: the engine runs the lazy selection from the first
    job on (``simulate.engine.COLD_PLAIN_BUDGET_S = 0``), never the plain loop in its place.

    The engine's default lets a short job run the plain loop while the lazy kernel is not
    compiled. In the report the lazy kernels are compiled anyway (the sweep runs them at the
    paper's n, and this process's later jobs run them as soon as their plain-loop budget is
    spent): measured on a report from an empty numba cache, verify's first CascadeKL-UCB job
    compiled the plain loop (a kernel of its own, about 1 s of CPU) and ran 1e6 plain steps,
    then compiled the lazy kernel for the next job all the same. Both loops take the same
    decisions bit for bit (``pick_kernel``), so no verdict changes."""
    from cascading_bandits.simulate import engine

    engine.COLD_PLAIN_BUDGET_S = 0.0


def _verify_child(conn, examples: int, seed: int, budget: float, part=None, claims=None) -> None:
    """Body of a process of :class:`VerifyBeside`: send ``("ok", answer)`` or
    ``("error", exception)`` through ``conn``."""
    from cascading_bandits.bounds._pystack import deep_call

    _lazy_kernels_only()
    try:
        out = ("ok", deep_call(_verify_value, examples, seed, budget, part, claims))
    except Exception as exc:  # noqa: BLE001 - raised again in the parent
        out = ("error", exc)
    try:
        conn.send(out)
    except BrokenPipeError:  # the parent is gone: nobody wants the answer
        pass
    except Exception as exc:  # noqa: BLE001 - an exception that does not pickle
        conn.send(("error", RuntimeError(f"verify failed: {type(out[1]).__name__}: {exc}")))
    conn.close()


def _start_method() -> str:
    """``fork`` where it is safe (:func:`simulate.sweep.fork_is_safe`: no other thread runs in
    this process, as at the start of a report), else ``spawn``.

    A spawned process starts a new interpreter and imports numpy, numba, scipy and verify
    (1.6 s of CPU before the first claim, measured in a report's engine process); a forked one
    has them. So verify is imported here first, once for both processes, and what exists is
    frozen for the collector (``gc.freeze``, as Python documents for a fork): no process
    traverses it in a full collection. No claim depends on how its process started.
    """
    from cascading_bandits.simulate.sweep import fork_is_safe

    if not fork_is_safe():
        return "spawn"
    import gc

    import cascading_bandits.verify  # noqa: F401 - inherited by the forked processes
    from cascading_bandits.simulate.jitopts import prepare_target

    prepare_target()  # numba's compiler set up once, inherited by both processes
    gc.freeze()
    return "fork" if fork_is_safe() else "spawn"


class VerifyBeside:
    """verify running in processes of its own (:func:`start_verify`).

    ``processes`` (default: two on a machine with two cores or more, else one) split the
    claims as :func:`_part_of` says; ``claims`` restricts them to these ids. :meth:`result`
    waits for the merged answer (the dict of :func:`_verify_value`); :meth:`stop` ends the
    processes when the report fails before it needs the answer. The processes are daemonic,
    and each sends its one answer through a pipe: none outlives the report (a pool worker
    left behind by a failed report used to wait for work forever).
    """

    def __init__(self, examples: int, seed: int, budget: float, processes=None, claims=None):
        import multiprocessing

        if processes is None:
            processes = 2 if (os.cpu_count() or 1) >= 2 else 1
        if processes not in (1, 2):
            raise ValueError(f"processes must be 1 or 2, got {processes!r}")
        ctx = multiprocessing.get_context(_start_method())
        self._conns, self._procs = [], []
        for i in range(processes):
            conn, child = ctx.Pipe(duplex=False)
            proc = ctx.Process(
                target=_verify_child,
                args=(child, examples, seed, budget, (i, processes), claims),
                name=f"cascading-verify-{i}",
                daemon=True,
            )
            proc.start()
            child.close()  # so that recv sees EOF if the process dies without an answer
            self._conns.append(conn)
            self._procs.append(proc)

    def result(self) -> dict:
        answers = []
        for conn, proc in zip(self._conns, self._procs, strict=True):
            try:
                kind, value = conn.recv()
            except EOFError:
                kind, value = (
                    "error",
                    RuntimeError(
                        f"the verify process ended without an answer (exit code {proc.exitcode})"
                    ),
                )
            if kind == "error":
                self.stop()  # the others' answers are not wanted any more
                raise value
            answers.append(value)
            proc.join()
            conn.close()
        return _merge(answers)

    def running(self) -> bool:
        return any(p.is_alive() for p in self._procs)

    def stop(self) -> None:
        for proc, conn in zip(self._procs, self._conns, strict=True):
            if proc.is_alive():
                proc.terminate()
            proc.join()
            conn.close()


def start_verify(s):
    """Start verify in a process of its own, to run while the simulation does: a
    :class:`VerifyBeside`.

    None (verify then runs after the simulation, in this process) if the answer is cached,
    verify is not installed, or the run is serial (``s.workers == 1``). The simulation's
    workers and this process share the cores, so the report's wall time approaches the total
    CPU time over the cores instead of simulation + verify.
    """
    if s.workers == 1 or not _verify_installed():
        return None
    key = verify_cache_key(s)
    if _verify_cached(s, key) is not None:
        return None
    return VerifyBeside(s.verify_examples, s.seed, key["budget"])


def run_verify(s, pending=None) -> dict:
    """``verify.run_all`` and ``verify.caveats`` as plain dicts, or why they are unavailable.

    The answer is cached in ``s.results`` under :func:`verify_cache_key`, and reused when the
    key matches (``s.cached["verify"]`` tells which happened). ``pending``: what
    :func:`start_verify` returned (or any object with ``result()``), whose answer is taken
    instead of running verify here.
    """
    t0 = time.perf_counter()
    if pending is None and not _verify_installed():
        return {
            "available": False,
            "reason": "verify.run_all / verify.caveats not available "
            "(no module named 'cascading_bandits.verify')",
        }
    key = verify_cache_key(s)  # once: it hashes the sources of bounds, verify and simulate
    hit = None if pending is not None else _verify_cached(s, key)
    if hit is not None:
        s.cached["verify"] = True
        s.timings["verify"] = time.perf_counter() - t0
        return {"available": True, **hit}
    try:
        if pending is not None:
            done = pending.result()
            s.timings["verify_beside"] = done["seconds"]
        else:
            done = _verify_value(s.verify_examples, s.seed, key["budget"])
    except (ImportError, AttributeError) as exc:
        return {
            "available": False,
            "reason": f"verify.run_all / verify.caveats not available ({exc})",
        }
    value = done["value"]
    s.cached["verify"] = False
    cache_store(s.results, "verify", key, value)
    s.timings["verify"] = time.perf_counter() - t0
    return {"available": True, **value}
