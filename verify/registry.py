"""The claims registry: one entry per claim of the paper, driving pytest, the CLI and the report.

A claim is data (docs/design.md, "Claims"): an id, the paper's reference, a
one-line statement, its premises, and a check. Checks are registered with
:func:`claim` as a decorator in the ``verify.claims_*`` modules; importing
:mod:`verify` loads them all.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from cascading_bandits.bounds import _validate as V
from cascading_bandits.verify.verdict import FAILS, METHODS, UNDECIDED, Outcome, Verdict

_REGISTRY: dict[str, Claim] = {}
#: functions called before the claims are listed or looked up (:func:`add_sync_hook`)
_SYNC_HOOKS: list = []


@dataclass(frozen=True)
class CheckContext:
    """What a check may use: a budget and its own random generator.

    Parameters
    ----------
    examples : int
        Random instances to draw (for sampling and exact checks).
    rng : numpy.random.Generator
        Spawned for this claim from the run's root seed (never the global state).
    budget : float
        Multiplier for interval box budgets and Monte-Carlo sizes (1 = the default
        run; ``pytest -m slow`` and ``cascading verify --full`` use more).
    seed : int, optional
        The run's root seed, for work several claims share (:func:`shared`); None when
        the context was built by hand (each claim then draws its own).
    """

    examples: int
    rng: np.random.Generator
    budget: float = 1.0
    seed: int | None = None


#: results of work shared between the claims of one :func:`sharing` block (:func:`shared`)
_SHARED: dict = {}
#: most entries kept (each a simulated cell: a few MB at most)
SHARED_MAX = 256
_SHARING = [0]  # depth of nested sharing() blocks


def shared(ctx: CheckContext, key: tuple, compute: Callable):
    """``compute(seed_sequence)``, computed once per root seed and ``key`` for all claims.

    Several claims check different inequalities on the same simulated cells (the
    ``profile.*`` chains, the ``bound.*`` claims of one policy): they share one simulation,
    seeded from the run's root seed and ``key`` (a tuple of str, int and float naming the
    work: policy, instance, sizes), so a claim run alone gets the same numbers as in a full
    run. Each claim still tests its own inequality at its own confidence; shared samples only
    make the claims' errors correlated. With ``ctx.seed`` None (a hand-built context) the seed
    is drawn from ``ctx.rng`` and nothing is stored.
    """
    if ctx.seed is None:
        return compute(np.random.SeedSequence(int(ctx.rng.integers(2**63))))
    full = (int(ctx.seed), *key)
    if full not in _SHARED:
        if len(_SHARED) >= SHARED_MAX:
            _SHARED.clear()
        text = repr(key).encode()
        _SHARED[full] = compute(np.random.SeedSequence(int(ctx.seed), spawn_key=tuple(text)))
    return _SHARED[full]


class sharing:
    """Context manager: the claims run inside share their work (:func:`shared`).

    ``verify.run_all`` runs its claims inside one block; outside any block a claim's shared
    results are forgotten when its check returns, so a claim run on its own never reuses
    work done before (e.g. before a test patched the simulator).
    """

    def __enter__(self):
        _SHARING[0] += 1
        return self

    def __exit__(self, *exc):
        _SHARING[0] -= 1
        if _SHARING[0] == 0:
            _SHARED.clear()
        return False


@dataclass(frozen=True)
class Claim:
    """One claim of the paper.

    Parameters
    ----------
    id : str
        E.g. ``"lemma2"``, ``"theorem1.upper"``, ``"appendix.hoeffding"``.
    reference : str
        Where the paper states it (section, equation, lemma, theorem).
    statement : str
        The claim in one line, as made precise here.
    premises : tuple of str
        Its premises (each dropped in turn by the caveat search where that makes sense).
    check : callable(CheckContext) -> Outcome
    method : str
        The method its check uses (for listing without running).
    amended : str
        Empty if the claim is checked as printed; otherwise the condition or
        correction verify had to add, with the caveat id that documents it.
    requires : tuple of str
        Modules the check needs (``"cascading_bandits.bounds.upper"``, ``"simulate"``); a
        claim whose module is missing is skipped by :func:`available_claims` (listed, not run).
    """

    id: str
    reference: str
    statement: str
    premises: tuple
    check: Callable[[CheckContext], Outcome] = field(repr=False)
    method: str = ""
    amended: str = ""
    requires: tuple = ()

    def run(self, examples: int = 50, seed=0, budget: float = 1.0) -> Verdict:
        """Run the check with a generator spawned from ``seed`` and this claim's id."""
        examples = V.positive_int("examples", examples)
        budget = V.positive_real("budget", budget)
        ss = _seed_sequence(seed, self.id)
        ctx = CheckContext(
            examples=examples, rng=np.random.default_rng(ss), budget=budget, seed=ss.entropy
        )
        t0 = time.perf_counter()
        with sharing():
            out = self.check(ctx)
        return Verdict.from_outcome(self, out, time.perf_counter() - t0)

    def is_available(self) -> bool:
        """Whether every module of ``requires`` can be found (found, not imported)."""
        return all(_module_exists(mod) for mod in self.requires)


def _module_exists(name: str) -> bool:
    """Whether the module ``name`` can be found, without importing it or its parents.

    ``importlib.util.find_spec("a.b.c")`` imports ``a.b`` to search its ``__path__``: listing
    the claims imported the simulator (``cascading_bandits.simulate.runner``: numba's engine,
    0.2-0.4 s) in a process that runs no simulation. Here each package in the name is looked
    up as the import system would (``sys.meta_path``'s finders, with the search locations of
    the package above) but not executed; one already imported lends its ``__path__``.
    """
    import importlib.util
    import sys

    parts = name.split(".")
    search = None
    for i in range(len(parts)):
        full = ".".join(parts[: i + 1])
        mod = sys.modules.get(full)
        if mod is not None:
            search = getattr(mod, "__path__", None)
        else:
            try:
                if i == 0:
                    spec = importlib.util.find_spec(full)  # a top-level name imports nothing
                else:
                    spec = next(
                        (
                            s
                            for f in sys.meta_path
                            if hasattr(f, "find_spec")
                            and (s := f.find_spec(full, search)) is not None
                        ),
                        None,
                    )
            except (ImportError, ValueError):
                return False
            if spec is None:
                return False
            search = spec.submodule_search_locations
            search = None if search is None else list(search)
        if i < len(parts) - 1 and search is None:
            return False  # a module, not a package: it has no submodules
    return True


def _seed_sequence(seed, claim_id: str) -> np.random.SeedSequence:
    """Per-claim stream: the root seed plus a key derived from the claim id (stable across runs)."""
    if isinstance(seed, np.random.SeedSequence):
        root = seed.entropy
    else:
        root = V.positive_int("seed", seed, minimum=0)
    key = [int(b) for b in claim_id.encode()]
    return np.random.SeedSequence(root, spawn_key=tuple(key))


def claim(id, reference, statement, premises=(), method="", amended="", requires=()):
    """Decorator registering ``check(ctx) -> Outcome`` as the claim ``id``."""
    if method and method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")

    def deco(fn):
        if id in _REGISTRY:
            raise ValueError(f"claim {id!r} registered twice")
        _REGISTRY[id] = Claim(
            id=id,
            reference=reference,
            statement=statement,
            premises=tuple(premises),
            check=fn,
            method=method,
            amended=amended,
            requires=tuple(requires),
        )
        return fn

    return deco


def add_sync_hook(fn: Callable[[], None]) -> None:
    """Call ``fn()`` whenever the claims are listed or looked up (once per function).

    For claims derived from another registry (``verify.claims_bounds``: one claim per
    registered bound): the hook adds and removes its claims in ``_REGISTRY`` so that
    :func:`all_claims`, :func:`available_claims` and :func:`get_claim` (and through them
    ``verify.run_all`` and ``cascading verify``) follow that registry at run time.
    """
    if not callable(fn):
        raise ValueError(f"a sync hook must be callable, got {V.show(fn)}")
    if fn not in _SYNC_HOOKS:
        _SYNC_HOOKS.append(fn)


def _sync() -> None:
    for fn in tuple(_SYNC_HOOKS):
        fn()


def all_claims() -> list[Claim]:
    """Every registered claim, in registration (paper) order."""
    _sync()
    return list(_REGISTRY.values())


def available_claims() -> list[Claim]:
    """The registered claims whose required modules are importable."""
    _sync()
    return [c for c in _REGISTRY.values() if c.is_available()]


def get_claim(claim_id: str) -> Claim:
    """The claim with this id; ``ValueError`` listing the known ids otherwise."""
    _sync()
    if claim_id not in _REGISTRY:
        raise ValueError(f"unknown claim {claim_id!r}; known claims: {', '.join(_REGISTRY)}")
    return _REGISTRY[claim_id]


def safe_run(c: Claim, examples: int, seed, budget: float = 1.0) -> Verdict:
    """Run a claim; an exception inside its check becomes an ``undecided`` verdict saying why.

    A crash is not evidence about the paper, so it must not read as ``fails``; but it
    must not pass silently either: the note carries the exception.
    """
    examples = V.positive_int("examples", examples)
    budget = V.positive_real("budget", budget)
    _seed_sequence(seed, c.id)  # bad seeds are the caller's error, not the claim's
    t0 = time.perf_counter()
    try:
        return c.run(examples=examples, seed=seed, budget=budget)
    except Exception as exc:  # noqa: BLE001 - reported, not swallowed
        out = Outcome(
            status=UNDECIDED,
            method=c.method or METHODS[-1],
            domain="(check did not complete)",
            notes=f"check raised {type(exc).__name__}: {exc}",
        )
        return Verdict.from_outcome(c, out, time.perf_counter() - t0)


#: time grows as budget ** BUDGET_EXPONENT: the budget multiplies the Monte-Carlo runs and
#: horizons together and the interval boxes (budget 8, ``--full``, took 20x the time of budget
#: 1 at one example once, 3591 s against 182 s on a loaded machine; 8 ** 1.5 = 22.6; on
#: 2026-11-27, quiet, 70 s against 7.9 s, 8.9x)
BUDGET_EXPONENT = 1.5


def estimate_seconds(examples: int, budget: float = 1.0, claims=None) -> float:
    """Wall seconds of ``verify.run_all(examples, budget=budget, claims=claims)``, before any
    work (for ``cascading verify``'s resource guard).

    :func:`simulate.sweep.verify_seconds` for all the available claims at budget 1
    (measured: 7 s plus 0.034 s an example, charged 1.5x), times
    ``budget ** BUDGET_EXPONENT`` (the budget multiplies interval boxes and Monte-Carlo
    sizes; ``--full`` is budget 8), times the share of the claims run.
    """
    from cascading_bandits.simulate.sweep import verify_seconds

    examples = V.positive_int("examples", examples)
    budget = V.positive_real("budget", budget)
    share = 1.0
    if claims is not None:
        share = len(set(claims)) / max(1, len(available_claims()))
    return verify_seconds(examples) * max(1.0, budget) ** BUDGET_EXPONENT * share


def any_failed(verdicts) -> bool:
    return any(v.status == FAILS for v in verdicts)
