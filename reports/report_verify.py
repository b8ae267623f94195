"""``verify`` for the report: its verdicts and caveats as JSON values, cached, and computed in
a process of its own while the simulation runs.

:func:`start_verify` starts :class:`VerifyBeside` (a spawned, daemonic process that sends
its one answer through a pipe); :func:`run_verify` takes that answer, or the cached one, or
runs verify in this process, and caches it in the results directory under
:func:`verify_cache_key`.
"""

from __future__ import annotations

import importlib.util
import json
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


def _verify_value(examples: int, seed: int, budget: float) -> dict:
    """``verify.run_all`` and ``verify.caveats`` as plain JSON values (a worker's job too)."""
    from cascading_bandits import verify

    t0 = time.perf_counter()
    verdicts = verify.run_all(examples=examples, seed=seed, budget=budget)
    cav = verify.caveats()
    value = {
        "verdicts": [v.to_dict() if hasattr(v, "to_dict") else dict(vars(v)) for v in verdicts],
        "caveats": [c.to_dict() if hasattr(c, "to_dict") else dict(vars(c)) for c in cav],
    }
    # through JSON once, so a fresh and a cached report hold identical values
    value = json.loads(json.dumps(value, default=json_default))
    return {"value": value, "seconds": time.perf_counter() - t0}


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


def _verify_child(conn, examples: int, seed: int, budget: float) -> None:
    """Body of the process of :class:`VerifyBeside`: send ``("ok", answer)`` or
    ``("error", exception)`` through ``conn``."""
    from cascading_bandits.bounds._pystack import deep_call

    try:
        out = ("ok", deep_call(_verify_value, examples, seed, budget))
    except Exception as exc:  # noqa: BLE001 - raised again in the parent
        out = ("error", exc)
    try:
        conn.send(out)
    except BrokenPipeError:  # the parent is gone: nobody wants the answer
        pass
    except Exception as exc:  # noqa: BLE001 - an exception that does not pickle
        conn.send(("error", RuntimeError(f"verify failed: {type(out[1]).__name__}: {exc}")))
    conn.close()


class VerifyBeside:
    """verify running in a process of its own (:func:`start_verify`).

    :meth:`result` waits for its answer (the dict of :func:`_verify_value`); :meth:`stop`
    ends the process when the report fails before it needs the answer. The process is
    daemonic, and sends its one answer through a pipe: it never outlives the report (a
    pool worker left behind by a failed report used to wait for work forever).
    """

    def __init__(self, examples: int, seed: int, budget: float):
        import multiprocessing

        ctx = multiprocessing.get_context("spawn")  # numba's threads do not survive fork
        self._conn, child = ctx.Pipe(duplex=False)
        self._proc = ctx.Process(
            target=_verify_child,
            args=(child, examples, seed, budget),
            name="cascading-verify",
            daemon=True,
        )
        self._proc.start()
        child.close()  # so that recv sees EOF if the process dies without an answer

    def result(self) -> dict:
        try:
            kind, value = self._conn.recv()
        except EOFError:
            self._proc.join()
            raise RuntimeError(
                f"the verify process ended without an answer (exit code {self._proc.exitcode})"
            ) from None
        self._proc.join()
        self._conn.close()
        if kind == "error":
            raise value
        return value

    def running(self) -> bool:
        return self._proc.is_alive()

    def stop(self) -> None:
        if self._proc.is_alive():
            self._proc.terminate()
        self._proc.join()
        self._conn.close()


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
