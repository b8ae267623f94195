"""The batched engine: many independent runs of one (model, policy spec, order) cell.

Each run is one call of the policy's run kernel (numba, no Python objects; declared in
:mod:`simulate.policies`), which releases the GIL; runs are independent and write their
own rows, so the results do not depend on how the runs are spread over threads. Only the
kernel of the policy a cell uses is compiled (once, cached on disk); the engine says so
on stderr when that one-time compilation happens.
"""

from __future__ import annotations

import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from cascading_bandits.bounds._pystack import deep_call
from cascading_bandits.simulate.jitopts import compiling
from cascading_bandits.simulate.models import list_reward
from cascading_bandits.simulate.policies import order_code, parse_policy
from cascading_bandits.simulate.policies._klucb_select import GROUP_MIN, GROUP_MIN_RANKED

__all__ = [
    "simulate_runs",
    "pick_kernel",
    "plain_seconds",
    "COLD_PLAIN_BUDGET_S",
    "ENGINE_VERSION",
    "GROUP_MIN",
    "GROUP_MIN_RANKED",
    "same_numbers",
]

#: bumped whenever a change alters any number the engine produces for a given cell and
#: seed; stored results of an older version are resumed only where :data:`ENGINE_CHANGES`
#: says the numbers stayed the same (simulate.sweep)
ENGINE_VERSION = 10

#: version -> (what changed, predicate(policy name, L) true for the cells it changed)
ENGINE_CHANGES = {
    3: (
        "cascade-ts draws by inversion from L = 128 items on",
        lambda name, L: name == "cascade-ts" and L >= 128,
    ),
    4: (
        "cascade-ts draws its Gamma variates from ziggurat normals (was Box-Muller) below "
        "128 items",
        lambda name, L: name == "cascade-ts" and L < 128,
    ),
    5: (
        "uniform-random and cascade-egreedy draw their random list in O(K) (the first K "
        "entries of a Fisher-Yates shuffle, simulate/policies/_random_list.py)",
        lambda name, L: name in ("uniform-random", "cascade-egreedy"),
    ),
    6: (
        "cascade-ts from 128 items on: the threshold sampler (simulate/policies/_ts_threshold.py; "
        "the same law of the list, other numbers)",
        lambda name, L: name == "cascade-ts" and L >= 128,
    ),
    7: (
        "cascade-ts from 128 items on: the threshold sampler's thresholds count a head's "
        "envelope mass as at most 1 (same law, other numbers)",
        lambda name, L: name == "cascade-ts" and L >= 128,
    ),
    8: (
        "cascade-ts from 128 items on: the threshold sampler takes a Poisson point's member "
        "and its thinning from one uniform (same law, other numbers)",
        lambda name, L: name == "cascade-ts" and L >= 128,
    ),
    9: (
        "cascade-ts from 128 items on: the threshold sampler re-chooses its thresholds by a "
        "search from the previous ones to 1/32 in logit (was a bisection of [-40, 40] to "
        "1e-4; same law, other numbers)",
        lambda name, L: name == "cascade-ts" and L >= 128,
    ),
    10: (
        "cascade-ts from 128 items on: the threshold sampler draws its proposals' exponentials "
        "by a ziggurat (or -log(1 + v E) / lam, not log1p), its Poisson points in increasing "
        "order from exponential gaps, in batches, and tests acceptance against tighter bounds "
        "(same law, other numbers)",
        lambda name, L: name == "cascade-ts" and L >= 128,
    ),
}


def same_numbers(version, policy: str, L: int) -> bool:
    """Whether engine ``version`` gave the numbers this one gives for a cell of ``policy``
    (a spec string) on ``L`` items; False for versions before 2 or unknown ones."""
    if version == ENGINE_VERSION:
        return True
    if not isinstance(version, int) or isinstance(version, bool) or not 2 <= version:
        return False
    if version > ENGINE_VERSION:
        return False
    name = parse_policy(policy).name
    return not any(ENGINE_CHANGES[v][1](name, L) for v in range(version + 1, ENGINE_VERSION + 1))


def _cached_on_disk(kernel) -> bool:
    """Whether numba's cache index of ``kernel`` exists (False: the first call compiles)."""
    try:
        return os.path.exists(kernel._cache._cache_file._index_path)
    except AttributeError:  # another numba layout: do not guess
        return True


def _ready(kernel) -> bool:
    """Whether a call of ``kernel`` needs no compilation (compiled here, or cached)."""
    return bool(kernel.signatures) or _cached_on_disk(kernel)


#: CPU seconds of plain-loop work up to which runs that leave the choice to the engine
#: (``lazy=None``) use the plain loop while the lazy kernel is not compiled, in all (per
#: process and lazy kernel: many short runs then compile the lazy kernel once they have
#: spent this). Measured on a first ``cascading simulate`` (empty cache, one thread), the
#: lazy kernels compile in 7.6-9.1 s (cascade-klucb, L = 16) and 8.9 s (cascade-ts,
#: L = 2048), the plain loops in 3.5-3.8 s and 6.0 s.
COLD_PLAIN_BUDGET_S = 2.0

#: lazy kernel -> estimated CPU seconds of the plain-loop runs this process made in its place
_PLAIN_SPENT: dict = {}


def plain_seconds(decl, L: int, K: int, runs: int, horizon: int) -> float:
    """Estimated CPU seconds of ``runs`` plain-loop runs of ``horizon`` steps
    (``decl.plain_step_s(L, K)`` a step); inf for a policy that declares no cost."""
    if decl.plain_step_s is None:
        return float("inf")
    w = decl.plain_step_s(L, K)
    if isinstance(w, bool) or not isinstance(w, (int, float)) or not 0.0 <= w < float("inf"):
        raise ValueError(
            f"policy {decl.name}: plain_step_s({L}, {K}) must be a finite number of seconds "
            f">= 0, got {w!r}"
        )
    return runs * horizon * float(w)


def pick_kernel(decl, L: int, K: int, runs: int, horizon: int, lazy, ready=None, spent=0.0):
    """The kernel a run of ``decl`` (a :class:`~simulate.policies.PolicyDecl`) uses, and
    whether it is the lazy selection: ``(kernel, lazy)``.

    ``lazy`` True or False asks for that kernel. ``None`` leaves the choice to the engine:
    the lazy kernel, except while it is not compiled (``ready(kernel)`` false: neither in
    this process nor in numba's cache, the default test) for a job whose plain loop
    (:func:`plain_seconds`), with the ``spent`` seconds of plain-loop runs already made
    in its place, stays within :data:`COLD_PLAIN_BUDGET_S`: that job then runs the plain
    loop and does not wait for the lazy selection's longer first compile. Both loops take
    the same decisions bit for bit (tests/simulate), so the choice changes no number,
    only the time.
    """
    if lazy is not None and not isinstance(lazy, (bool, np.bool_)):
        raise ValueError(f"lazy must be True, False or None (the engine chooses), got {lazy!r}")
    if lazy is not None:
        return decl.kernel_for(L, bool(lazy)), bool(lazy)
    fast = decl.kernel_for(L, True)
    plain = decl.kernel_for(L, False)
    if fast is plain or decl.plain_step_s is None or (ready or _ready)(fast):
        return fast, True
    if spent + plain_seconds(decl, L, K, runs, horizon) <= COLD_PLAIN_BUDGET_S:
        return plain, False
    return fast, True


def _locked_first(fn, *args):
    """``fn(*args)`` for a numba function ``fn`` that Python calls; its first call in this
    process (a compilation or a cache load) under :func:`simulate.jitopts.compiling`. Every
    process of a report calls ``list_reward`` at its first cell, all at once: from an empty
    cache each compiled it (three times, about 0.4 s of CPU each), now one does."""
    if fn.signatures:
        return fn(*args)
    with compiling(fn):
        return fn(*args)


def _call_first(kernel, name, args):
    """Call ``kernel(*args)``, telling stderr when numba compiles it (once per install);
    nothing once the kernel is compiled in this process (the run itself follows: a warm-up
    run's O(L) set-up, 8 to 20 ms at L = 65,536, was counted in every call)."""
    if kernel.signatures:
        return
    told = not _cached_on_disk(kernel)
    if told:
        print(
            f"compiling the {name} kernel (one time; later runs load it from numba's cache)...",
            file=sys.stderr,
            flush=True,
        )
    t0 = time.perf_counter()
    misses = sum(kernel.stats.cache_misses.values())
    if told:
        # under the lock beside the kernel's cache index: a process that finds another one
        # compiling the same kernel (a report's sweep worker and verify process sharing the
        # cache) waits and loads its entry instead of compiling it a second time
        with compiling(kernel):
            deep_call(kernel, *args)  # numba's compiler recurses: see bounds._pystack
    else:
        deep_call(kernel, *args)
    secs = time.perf_counter() - t0
    if sum(kernel.stats.cache_misses.values()) > misses:
        print(f"compiled the {name} kernel in {secs:.1f} s", file=sys.stderr, flush=True)
    elif told:
        print(
            f"loaded the {name} kernel from numba's cache after {secs:.1f} s (another process "
            "compiled it meanwhile)",
            file=sys.stderr,
            flush=True,
        )


def simulate_runs(
    model,
    policy,
    order,
    horizon: int,
    ukeys,
    pkeys,
    checkpoints,
    threads: int | None = None,
    lazy: bool | None = True,
    trace_steps: int = 0,
):
    """Run ``len(ukeys)`` independent runs of one cell from arrays.

    Parameters
    ----------
    model : CascadeModel or DBNModel
    policy : str or PolicySpec
        A policy spec such as ``"cascade-klucb"`` or ``"cascade-ts(prior=2,1)"``
        (:func:`simulate.policies.parse_policy`).
    order : {"best-first", "worst-first"}
        Order of the list (ranked policies: best-first only).
    horizon : int
        Number of steps n.
    ukeys, pkeys : ndarray (runs,) uint64
        Users' and policy keys of the runs (:mod:`simulate.rng`).
    checkpoints : ndarray (m,) int64
        Increasing steps in 1..horizon, the last one = horizon.
    threads : int, optional
        1 runs serially; otherwise that many threads over runs (default: every core).
    lazy : bool or None
        Exact lazy selection of the policies that have one (KL-UCB; CascadeUCB1,
        CascadeUCB-V, epsilon-greedy and TS-Cascade over the distinct states from 96 items;
        CascadeTS from 128 items) or the plain loop that computes every index each step.
        Both take the same decisions (CascadeTS from 128 items: the same law of the list,
        other numbers; its lazy kernel is the threshold sampler); ``lazy=False`` exists to
        test and measure that.
        ``None``: the engine chooses (:func:`pick_kernel`; the plain loop for a short run
        while the lazy kernel is not compiled yet), what :func:`simulate.runner.run_cell`
        does.
    trace_steps : int
        If > 0, also return the lists shown at steps 1..trace_steps and the clicks.

    Returns
    -------
    regret : ndarray (runs, m) float64
        Cumulative expected regret at the checkpoints.
    counts : ndarray (runs, L) int64
        Final observation counts T_n(e).
    lists, clicks : ndarray (runs, trace_steps, K) int64
        Only if ``trace_steps > 0``: ``lists[r, t - 1]`` is the list A_t of run r and
        ``clicks[r, t - 1]`` the user's clicks on it (0/1 per position).
    """
    if isinstance(policy, (int, np.integer)):
        raise TypeError(
            "policy must be a policy spec such as 'cascade-klucb(c=3)' (integer codes are gone)"
        )
    spec = parse_policy(policy)
    decl = spec.decl
    oc = order_code(order, spec) if isinstance(order, str) else None
    if oc is None:
        raise TypeError(f"order must be one of 'best-first', 'worst-first', got {order!r}")
    if isinstance(horizon, bool) or not isinstance(horizon, (int, np.integer)) or horizon < 1:
        raise ValueError(f"horizon must be a positive integer, got {horizon!r}")
    if threads is None:
        nthreads = os.cpu_count() or 1
    elif isinstance(threads, bool) or not isinstance(threads, (int, np.integer)) or threads < 1:
        raise ValueError(f"threads must be a positive integer or None, got {threads!r}")
    else:
        nthreads = int(threads)
    attract, satisfy, gamma = model.kernel_args()
    # f(A*) as model.expected_reward evaluates it, from the arrays at hand (its own
    # kernel_args call converts the L weights again: 3 ms at L = 65,536)
    fstar = float(
        _locked_first(
            list_reward,
            model.code, attract, satisfy, gamma, model.optimal_list(), model.K, np.empty(model.K),
        )
    )  # fmt: skip
    ukeys = np.ascontiguousarray(ukeys, dtype=np.uint64)
    pkeys = np.ascontiguousarray(pkeys, dtype=np.uint64)
    checkpoints = np.ascontiguousarray(checkpoints, dtype=np.int64)
    if ukeys.ndim != 1 or pkeys.shape != ukeys.shape or ukeys.size == 0:
        raise ValueError("ukeys and pkeys must be 1-d arrays of the same non-zero length")
    cp = checkpoints
    if cp.ndim != 1 or cp.size == 0 or (np.diff(cp) <= 0).any() or cp[0] < 1 or cp[-1] != horizon:
        raise ValueError(f"checkpoints must increase strictly within 1..{horizon}, last = horizon")
    runs = ukeys.size
    K = int(model.K)
    L = int(attract.size)
    fast = decl.kernel_for(L, True)
    spent = _PLAIN_SPENT.get(fast, 0.0)
    kernel, chosen = pick_kernel(decl, L, K, runs, int(horizon), lazy, spent=spent)
    if lazy is None and kernel is not fast:  # the plain loop in place of the lazy kernel
        _PLAIN_SPENT[fast] = spent + plain_seconds(decl, L, K, runs, int(horizon))
    lazy = chosen
    regret = np.zeros((runs, checkpoints.size))
    counts = np.zeros((runs, attract.size), np.int64)
    trace = np.zeros((runs, min(int(trace_steps), int(horizon)), 2, K), np.int64)
    env = (
        int(model.code),
        attract,
        satisfy,
        float(gamma),
        K,
        int(horizon),
        int(oc),
        float(fstar),
        checkpoints,
        bool(lazy),
    )
    params = spec.kernel_params()

    def one(r):
        kernel(env, params, ukeys[r], pkeys[r], regret[r], counts[r], trace[r])

    # compile (or load) the kernel with a one-step run of the same argument types
    env1 = env[:5] + (1,) + env[6:8] + (np.ones(1, np.int64),) + env[9:]
    _call_first(
        kernel,
        spec.text if kernel is fast else f"{spec.text} plain-loop",
        (env1, params, ukeys[0], pkeys[0], np.zeros(1), np.zeros_like(counts[0]), trace[0][:0]),
    )
    if nthreads == 1 or runs == 1:
        for r in range(runs):
            one(r)
    else:
        with ThreadPoolExecutor(max_workers=min(nthreads, runs)) as ex:
            list(ex.map(one, range(runs)))
    if trace_steps > 0:
        return regret, counts, trace[:, :, 0], trace[:, :, 1]
    return regret, counts
