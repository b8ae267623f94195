"""Every claim of the paper as a checkable, certifiable claim (docs/design.md, "Claims").

One registry drives ``pytest`` (tests/verify, parametrised over all claims),
``cascading verify`` and the report:

>>> import verify
>>> verdicts = verify.run_all(examples=20, seed=0)          # doctest: +SKIP
>>> [v.claim_id for v in verdicts if v.status == "fails"]   # doctest: +SKIP
[]
>>> [c.id for c in verify.caveats()]                        # doctest: +SKIP

Modules
-------
* :mod:`verify.verdict`    -- :class:`Verdict`, :class:`Outcome`, :class:`Caveat`, statuses, methods
* :mod:`verify.registry`   -- :class:`Claim`, the ``@claim`` decorator, lookup
* :mod:`verify.certify`    -- interval branch-and-bound certificates (mpmath.iv)
* :mod:`verify.strategies` -- random instances: hypothesis strategies and seeded samplers
* ``verify.claims_*``      -- the claims, one module per part of the paper; every
  ``claims_*`` module of the package is discovered and loaded (:func:`claim_modules`)
* :mod:`verify.findings`   -- errata, unstated conditions, premise-dropping counterexamples
* ``cascading verify``       -- ``reports/cli/verify.py`` (the one command-line layer, which
  this package never imports)
"""

from __future__ import annotations

import importlib
import pkgutil
import sys

from cascading_bandits.verify.findings import caveats
from cascading_bandits.verify.registry import (
    Claim,
    all_claims,
    available_claims,
    get_claim,
    safe_run,
    sharing,
)
from cascading_bandits.verify.verdict import (
    FAILS,
    HOLDS,
    METHODS,
    UNDECIDED,
    Caveat,
    Outcome,
    Verdict,
)

#: the claim modules of the paper, in paper order: Section 4.1 (Lemma 1, Theorem 1), 4.2
#: (Theorems 2, 3 and their proofs), 4.3 (Theorem 4), 4.4 (discussion), then the Monte-Carlo
#: checks against the simulator. Any other ``claims_*`` module of this package is loaded
#: after these, in alphabetical order (:func:`claim_modules`): a new module needs no entry.
PAPER_ORDER = (
    "claims_lemma1",
    "claims_theorem1",
    "claims_appendix",
    "claims_peeling",
    "claims_upper",
    "claims_lower",
    "claims_discussion",
    "claims_montecarlo",
)


def claim_modules() -> list[str]:
    """Full names of the package's ``claims_*`` modules, in loading order.

    Discovered with :func:`pkgutil.iter_modules` over this package's ``__path__``: those of
    :data:`PAPER_ORDER` first (in that order), then every other ``claims_*`` module
    alphabetically. A claim defined in a new ``verify/claims_<name>.py`` is therefore run by
    :func:`run_all`, listed by ``cascading verify`` and tested by tests/verify without being
    registered anywhere else.
    """
    found = {m.name for m in pkgutil.iter_modules(__path__) if m.name.startswith("claims_")}
    first = [m for m in PAPER_ORDER if m in found]
    rest = sorted(found - set(PAPER_ORDER))
    return [f"{__name__}.{m}" for m in first + rest]


def load_claims() -> list[str]:
    """Import every claim module (:func:`claim_modules`) not imported yet; return their names.

    Importing a module registers its claims (the ``@claim`` decorator of
    :mod:`verify.registry`). Idempotent; :func:`run_all` calls it, so a module added to the
    package after :mod:`verify` was imported is picked up too. An error inside a claim module
    propagates: a broken module must not drop its claims silently.
    """
    names = claim_modules()
    for name in names:
        if name not in sys.modules:
            importlib.import_module(name)
    return names


load_claims()


def run_all(examples: int = 50, seed: int = 0, budget: float = 1.0, claims=None) -> list[Verdict]:
    """Run every available claim (or the ids in ``claims``) and return their verdicts.

    Parameters
    ----------
    examples : int
        Random instances per sampled/exact claim.
    seed : int
        Root seed; each claim gets its own stream spawned from it and its id.
    budget : float
        Multiplier for interval box budgets and Monte-Carlo sizes; >= 8 selects the wider
        certificate boxes of the slow run.
    claims : iterable of str, optional
        Claim ids to run (``ValueError`` for an unknown id).

    Returns
    -------
    list of Verdict, in registry order. A check that raises becomes ``undecided`` with the
    exception in its notes (a crash is not evidence about the paper). Over two processes,
    ``CASCADING_VERIFY_TIMES=1`` (:data:`TIMES_ENV`) writes each job's timeline to stderr.
    """
    load_claims()
    if claims is None:
        todo = available_claims()
    else:
        todo = [get_claim(c) for c in claims]
    if _can_fork(len(todo)):
        try:
            return _run_forked(todo, examples, seed, budget, with_caveats=claims is None)
        except _ForkFailed:
            pass  # the serial run below gives the same verdicts
    with sharing():  # claims on the same simulated cells share them (registry.shared)
        return [safe_run(c, examples, seed, budget) for c in todo]


#: claims from which a run is split over two processes (fewer: not worth a fork)
FORK_MIN_CLAIMS = 16


class _ForkFailed(Exception):
    pass


def _can_fork(n_claims: int) -> bool:
    """Two processes when the run is long, the machine has two cores, and forking is safe:
    the ``fork`` start method exists and this process runs no other thread yet (a fork
    copies held locks), and this process may have children (a daemonic process, such as the
    report's verify worker, may not). ``CASCADING_VERIFY_PROCESSES=1`` forces one process."""
    import multiprocessing as mp
    import os
    import threading

    return (
        n_claims >= FORK_MIN_CLAIMS
        and (os.cpu_count() or 1) >= 2
        and os.environ.get("CASCADING_VERIFY_PROCESSES", "") != "1"
        and "fork" in mp.get_all_start_methods()
        and threading.active_count() == 1
        and not mp.current_process().daemon
    )


def _simulating(c) -> bool:
    """The claims that simulate policies with numba kernels: ``bound.*`` and ``*.mc`` (regret
    with run_cell, sharing cells) and ``profile.*`` (counted runs, sharing cells)."""
    return c.id.startswith(("bound.", "profile.")) or c.id.endswith(".mc")


#: claims that call numba-compiled functions of ``bounds`` (``bounds.sharp``'s scans and
#: admission thresholds, ``bounds.kl.kl_scalar``, ``bounds.indices``) without simulating. The
#: first such call in a process sets up numba's typing and target contexts (0.6-0.8 s of
#: CPU), which the process running the simulating claims pays anyway: these run there
#: (:func:`_jobs`), so the other process never loads numba's compiler. ``sharp.exact_small``
#: calls ``bounds.sharp``'s admission scans through ``binomial_bound`` (it set the contexts up
#: in the other process: 0.46 s CPU there, 0.1 s beside the simulations).
NUMBA_CLAIMS = frozenset(
    (
        "sharp.pathwise",
        "sharp.layer_cake",
        "sharp.truncation",
        "sharp.reference",
        "sharp.exact_small",
    )
)


#: caveat builders (:data:`verify.findings.CAVEAT_BUILDERS`, by name) that reuse work of the
#: simulating claims, kept in ``bounds``' caches: ``_gc_loglog_caveat`` certifies
#: ``klucb_loglog_valid_from`` with F(1e7), the sum of Theorem 10's terms to 1e7 (0.1 s of
#: CPU, ``bounds.garivier_cappe._F_exact``, cached) that ``bound.theorem4`` computes beside
#: the simulations. Placed right after the simulating claims on the child's side, before the
#: claims of :data:`NUMBA_CLAIMS` (:func:`_jobs`): at the child's end of the caveats, where the
#: two processes met, the parent took it in three runs out of three and computed F(1e7) again.
SIM_CAVEATS = frozenset(("_gc_loglog_caveat",))


#: measured CPU seconds of the caveat builders that take more than a few milliseconds (a
#: warm `cascading verify`, 2026-11-27; the others count 0). :func:`_jobs` lists the caveats
#: longest first: this process takes them last, just before it meets the forked one, so the
#: jobs left where they meet are the shortest and neither waits long for the other's last.
CAVEAT_SECONDS = {
    "_theorem1_caveat": 0.12,
    "_order_caveats": 0.17,
    "_regime_caveat": 0.06,
    "_hoeffding_caveat": 0.03,
    "_theorem1_alpha_caveat": 0.02,
}


def _jobs(todo, with_caveats):
    """The work of a run as a list of jobs, ``("claim", Claim)`` or ``("caveat", i)``.

    Order: the other claims in registry order, then the caveat builders (longest first by
    :data:`CAVEAT_SECONDS`, ties in builder order), then the claims of :data:`NUMBA_CLAIMS`
    in reverse registry order, the caveat builders of :data:`SIM_CAVEATS`, and the
    simulating claims in reverse registry order. This process takes jobs from the front, the
    forked one from the back (:func:`_run_forked`): each starts on its own kind of work (the
    simulating claims, in registry order, then the caveats that reuse their work and the
    other numba users, in the child: only it loads the simulator's kernels and numba's
    compiler as long as the other work lasts) and they meet in the middle, on short jobs.
    """
    from cascading_bandits.verify import findings

    sim = [("claim", c) for c in todo if _simulating(c)]
    jit = [("claim", c) for c in todo if not _simulating(c) and c.id in NUMBA_CLAIMS]
    rest = [("claim", c) for c in todo if not _simulating(c) and c.id not in NUMBA_CLAIMS]
    cav, near = [], []
    if with_caveats:
        for i, builder in enumerate(findings.CAVEAT_BUILDERS):
            (near if builder.__name__ in SIM_CAVEATS else cav).append(("caveat", i))
        names = [b.__name__ for b in findings.CAVEAT_BUILDERS]
        cav.sort(key=lambda job: -CAVEAT_SECONDS.get(names[job[1]], 0.0))  # stable
    return rest + cav + jit[::-1] + near[::-1] + sim[::-1]


#: environment variable: when set to 1, every job of a forked :func:`run_all` writes one line
#: to stderr as it ends (:func:`_do`): process id, start and wall seconds since the fork,
#: CPU seconds of its process, the claim id or caveat builder; the timeline of both
#: processes, to find what the run waits for. Nothing else changes.
TIMES_ENV = "CASCADING_VERIFY_TIMES"


def _child_only(job) -> bool:
    """Whether this process leaves ``job`` to the forked one once only such jobs are left.

    The claims of :data:`NUMBA_CLAIMS`, the caveats of :data:`SIM_CAVEATS` and the
    ``profile.*`` claims (the counted runs of a cell, computed once and shared by all of
    them, :func:`verify.registry.shared`) cost this process far more than the child, which
    has numba's contexts set up and the shared work done: measured on a warm `cascading
    verify`, ``sharp.exact_small`` took 0.54 CPU-s here (numba's set-up) and 0.1 s there,
    and ``profile.binomial_b`` 4.8 CPU-s here (the counted cells again) and 0.012 there. The
    child takes them last (:func:`_jobs`), so they are all that is left when this process
    reaches them; it then stops and waits for the child instead (at most these jobs' time
    in the child, about 1.5 CPU-s warm), where it used to take the first of them.
    """
    from cascading_bandits.verify import findings

    kind, what = job
    if kind == "caveat":
        return findings.CAVEAT_BUILDERS[what].__name__ in SIM_CAVEATS
    return what.id in NUMBA_CLAIMS or what.id.startswith("profile.")


def _do(job, examples, seed, budget, t0=None):
    import os
    import sys
    import time

    from cascading_bandits.verify import findings

    kind, what = job
    timed = t0 is not None and os.environ.get(TIMES_ENV, "") == "1"
    if timed:
        w, c = time.perf_counter(), time.process_time()
    if kind == "claim":
        out = safe_run(what, examples, seed, budget)
    else:
        out = findings.build_caveats(what)
    if timed:
        name = what.id if kind == "claim" else findings.CAVEAT_BUILDERS[what].__name__
        print(
            f"verify-times pid {os.getpid()} start {w - t0:.3f} wall "
            f"{time.perf_counter() - w:.3f} cpu {time.process_time() - c:.3f} {name}",
            file=sys.stderr,
            flush=True,
        )
    return out


def _run_forked(todo, examples, seed, budget, with_caveats):
    """The claims of ``todo`` (and, for a full run, the caveats, which :func:`caveats` then
    returns once) over two processes that share one list of jobs (:func:`_jobs`): this
    process takes them from the front, a forked child from the back, until they meet, so
    neither waits while the other has work (a fixed split left one process idle for seconds);
    only the jobs that cost this process far more than the child (:func:`_child_only`), when
    nothing else is left, are left to the child.

    Each claim's numbers depend only on the seed and its id (and the keys of
    :func:`verify.registry.shared`, whose work a process recomputes if the other did it),
    so the verdicts are those of a serial run; they come back in registry order.
    """
    import multiprocessing as mp
    import pickle
    import time

    from cascading_bandits.verify import findings

    jobs = _jobs(todo, with_caveats)
    tail = [_child_only(job) for job in jobs]
    t0 = time.perf_counter()  # the jobs' start times (TIMES_ENV) count from here
    ctx = mp.get_context("fork")
    ends = ctx.Array("q", [0, len(jobs)])  # [next job from the front, one past the back]

    def take(front):
        with ends.get_lock():
            if ends[0] >= ends[1]:
                return None
            if front and all(tail[ends[0] : ends[1]]):
                return None  # what is left is the child's (_child_only)
            if front:
                ends[0] += 1
                return ends[0] - 1
            ends[1] -= 1
            return ends[1]

    def drain(front):
        done = {}
        with sharing():
            while (i := take(front)) is not None:
                done[i] = _do(jobs[i], examples, seed, budget, t0)
        return done

    recv, send = ctx.Pipe(duplex=False)

    def work():
        try:
            send.send_bytes(pickle.dumps(drain(front=False)))
        except BaseException as exc:  # noqa: BLE001 - reported to the parent, which reruns
            send.send_bytes(pickle.dumps(exc))
        finally:
            send.close()

    proc = ctx.Process(target=work, daemon=True)
    # what exists now (the modules and their objects: numba, scipy, bounds, the claims) is
    # moved out of the collector's generations, as Python's gc.freeze documents for a fork:
    # neither process traverses it again in a full collection, nor does this one in the
    # collection and teardown at its exit (0.4-0.5 s of CPU there, the last serial step of
    # `cascading verify`, 0.1-0.2 s after the freeze). Frozen objects are still freed when
    # their last reference goes; one left in an unreachable cycle later is not collected
    # (in a long-lived caller, such as a test process, a little memory at most).
    import gc

    gc.freeze()
    try:
        proc.start()
    except (OSError, AssertionError) as exc:  # AssertionError: a daemonic parent
        raise _ForkFailed from exc
    send.close()
    try:
        mine = drain(front=True)
        try:
            theirs = pickle.loads(recv.recv_bytes())
        except (EOFError, OSError, pickle.UnpicklingError) as exc:
            raise _ForkFailed from exc
    finally:
        recv.close()
        proc.join()
    gc.freeze()  # this process's own work too (sympy): its exit need not traverse it
    if isinstance(theirs, BaseException):
        raise _ForkFailed from theirs
    done = {**mine, **theirs}
    if len(done) != len(jobs):  # the child died with jobs taken: rerun serially
        raise _ForkFailed
    if with_caveats:  # in the builders' order (the job list moves some of them)
        by_builder = {what: done[i] for i, (kind, what) in enumerate(jobs) if kind == "caveat"}
        findings.prefetch([c for b in sorted(by_builder) for c in by_builder[b]])
    by_id = {jobs[i][1].id: v for i, v in done.items() if jobs[i][0] == "claim"}
    return [by_id[c.id] for c in todo]


__all__ = [
    "Caveat",
    "Claim",
    "FAILS",
    "HOLDS",
    "METHODS",
    "Outcome",
    "UNDECIDED",
    "Verdict",
    "all_claims",
    "available_claims",
    "caveats",
    "claim_modules",
    "get_claim",
    "load_claims",
    "run_all",
]
