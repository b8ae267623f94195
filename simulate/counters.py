"""Proof counters: the quantities of the proofs of Theorems 1-3, counted on simulated runs.

Opt-in and outside the engine: the engine runs as always (same decisions, same speed) with
``trace_steps = n``, which returns the list ``A_t`` and the clicks of every step
(:func:`traced_runs`, the one place that calls the engine). :func:`_replay` (numba) then
replays each run from its trace: it rebuilds the policy's statistics ``T_{t-1}(e)`` and
``w_hat(e)`` (starting from ``w_0``, the users' step-0 draw of Algorithm 1), recomputes the
policy's indices ``U_t(e)`` exactly as :mod:`simulate.policies` defines them, checks that
their top K is the list the engine showed (``mismatches`` counts the steps where it is not:
0 proves the replayed statistics are the policy's), and counts, per run:

``G[e, e*]``
    events ``G_{e,e*,t}`` of Theorem 1 (eq. (5)): suboptimal ``e`` at a position k of the
    shown list with ``pi_t(k) = e*``, and observed (``k <= C_t``). ``pi_t`` is built as in
    the proof (:func:`bounds.decomposition.theorem1_permutation`): ``pi_t(k) = a_k`` when
    ``a_k`` is optimal; the other optimal items fill the remaining positions top-down in
    decreasing order of attraction (ties: lower id). Rows are the suboptimal items by rank
    (the paper's ``K+1..L``), columns the optimal ones (``1..K``), as
    :meth:`bounds.instance.CascadeInstance.gaps`.
``bad``
    steps on which the bad event ``E_t`` of the proof holds: CascadeUCB1 (Appendix A, eq.
    (10)): some item with ``|w(e) - w_hat(e)| >= c_{t-1, T_{t-1}(e)}``; CascadeKL-UCB (eq.
    (12)): some optimal item with ``w(e*) > U_t(e*)``. ``G_good`` counts ``G`` on the
    other (good) steps.
``M``, ``M_good``, ``Mbar_good``
    ``M_{e,e*} = #{t : T_{t-1}(e) <= tau_{e,e*}, G_{e,e*,t}}`` (eq. (11) / the first term of
    eq. (13)); ``Mbar_good = #{t : T_{t-1}(e) > tau_{e,e*}, not E_t, G_{e,e*,t}}`` (the
    second term of eq. (13)), for the ``tau`` the caller passes.
``regret``, ``regret_bad``
    ``sum_t E_t[R(A_t, w_t)] = f(A*, w) - f(A_t, w)`` over all steps / bad steps (the
    engine's expected regret; ``E_t`` is a function of the history, so ``E[sum 1{E_t} R_t] =
    E[sum 1{E_t} E_t[R_t]]``).
``thm1_upper_good``
    ``sum_{t good} sum_k Delta_{a_k, pi_t(k)} prod_{i<k} (1 - w(a_i))``: Theorem 1's upper sum
    ``sum Delta E_t[1{G}]`` in conditional expectation (``alpha`` times it is the lower sum).
``thm1_exact``, ``thm1_exact_good``
    ``sum_t sum_k Delta_{a_k, pi_t(k)} 1{G at k} prod_{j>k} (1 - w(pi_t(j)))``: the proof of
    Theorem 1 shows its conditional expectation is ``E_t[R_t]`` exactly, so its mean equals
    the mean regret (on all steps / good steps).
``T``
    observation counts ``T_n(e)`` (``T_0 = 1`` included), items in the weights' order.
``below``
    per optimal item (by rank), the steps with ``U_t(e*) < w(e*)``: the A-part of the
    binomial bounds (docs/sharper_bounds.md).
``bpath``
    per suboptimal item (by rank), ``sum`` over its events ``G_{e,.,t}`` of
    ``g_e(u_n(w_hat_s(e), s))``, ``s = T_{t-1}(e)``: the index with the horizon's radius or
    threshold, and ``g_e(v)`` the largest gap ``w(j) - w(e)`` over optimal ``j`` with
    ``w(j) <= v`` (0 if none): the B-part of the binomial bounds, run by run.

Identity (Theorem 4's proof): ``T_n(e) - 1 = sum_{e*} G[e, e*]`` for every suboptimal e.

Memory: a trace holds ``2 n K`` int64 per run; :func:`run_counters` processes runs in
chunks of at most ``max_trace_bytes``. Only the cascade model and the policies
``cascade-ucb1`` and ``cascade-klucb`` have these proofs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numba
import numpy as np

from cascading_bandits.bounds import _validate as V
from cascading_bandits.bounds.indices import klucb_threshold_scalar, safe_log
from cascading_bandits.bounds.kl import klucb_scalar
from cascading_bandits.simulate.models import CASCADE, CascadeModel, list_reward
from cascading_bandits.simulate.rng import ATTRACT, uniform

__all__ = [
    "ProofCounters",
    "run_counters",
    "traced_runs",
    "initial_weights",
    "replay_counters",
    "item_ranks",
    "COUNTED_POLICIES",
    "estimate",
]

#: policies whose proofs the counters follow (their names in simulate.policies)
COUNTED_POLICIES = ("cascade-ucb1", "cascade-klucb")
_UCB1, _KLUCB = 0, 1


def traced_runs(model, policy, order, horizon, c, ukeys, pkeys, threads=None):
    """The engine's runs with their full trace: the one call of the engine in this module.

    Returns
    -------
    regret : ndarray (runs,)
        The engine's cumulative expected regret at ``horizon``.
    counts : ndarray (runs, L) int64
        The engine's ``T_n(e)``.
    lists, clicks : ndarray (runs, horizon, K) int64
        The shown lists ``A_t`` and the clicks (0/1 per position), ``t = 1..horizon``.
    """
    from cascading_bandits.simulate.engine import simulate_runs

    # the replay follows the KL-UCB constant c: run the engine's policy with the same c
    spec = f"cascade-klucb(c={float(c)!r})" if policy == "cascade-klucb" else policy
    regret, counts, lists, clicks = simulate_runs(
        model,
        spec,
        order,
        horizon,
        ukeys,
        pkeys,
        np.array([horizon], np.int64),
        threads=threads,
        trace_steps=horizon,
    )
    return regret[:, -1], counts, lists, clicks


@numba.njit(cache=True)
def _initial_weights(attract, ukey, out):
    L = attract.size
    for e in range(L):
        out[e] = 1 if uniform(ukey, ATTRACT, 0, e, L, 0) < attract[e] else 0


def initial_weights(weights, ukey) -> np.ndarray:
    """``w_0`` of Algorithm 1 for the run with users' key ``ukey``: shape (L,) int64 of 0/1."""
    w = np.ascontiguousarray(weights, dtype=np.float64)
    out = np.zeros(w.size, np.int64)
    _initial_weights(w, np.uint64(ukey), out)
    return out


def item_ranks(weights, K):
    """(rank (L,), gaps (L-K, K)): ``rank[e]`` = 0-based rank by decreasing attraction (ties:
    lower id); ``gaps[i, j] = w(opt j) - w(sub i)``, ranks as in CascadeInstance.gaps."""
    w = np.asarray(weights, dtype=np.float64)
    order = np.lexsort((np.arange(w.size), -w))
    rank = np.empty(w.size, np.int64)
    rank[order] = np.arange(w.size)
    s = w[order]
    return rank, s[:K][None, :] - s[K:][:, None]


@numba.njit(cache=True)
def _top(idx, K, taken, out):
    """``out[:K]`` = the K largest ``idx``, decreasing, ties to the smaller id (engine rule)."""
    L = idx.size
    for e in range(L):
        taken[e] = False
    for k in range(K):
        best = -1
        for e in range(L):
            if taken[e]:
                continue
            if best < 0 or idx[e] > idx[best]:
                best = e
        taken[best] = True
        out[k] = best


@numba.njit(cache=True, error_model="numpy")
def _replay(
    policy, order, attract, K, c, lists, clicks, tau, rank, byrank, gaps, fstar, check,
    S, N, cnt, below, bpath, idx, taken, sel, pi, inlist, scratch, sc,
):  # fmt: skip
    """Replay one run's trace; see the module docstring for what is counted.

    ``byrank[r]`` is the item of rank r; ``gaps`` and ``tau`` are (L-K, K) by rank.
    Every array it writes comes from the caller (:func:`_replay_run`), so that the kernel
    allocates nothing: each of numba's ``np.zeros``/``np.ones``/``np.empty``/``np.array``
    implementations is a function compiled for its argument types in every process that
    compiles a caller (not cached on disk), and the twenty of them took 2.2 of the 4.0 CPU-s
    of this kernel's compile from an empty cache.

    In: ``S`` = ``w_0`` and ``N`` = 1 (``(L,)`` int64); zeroed counts ``cnt`` = (G, G_good,
    M, M_good, Mbar_good) (``(5, L-K, K)`` int64), ``below`` (``(K,)`` int64) and ``bpath``
    (``(L-K,)``); scratch ``idx`` (``(L,)``), ``taken`` (``(L,)`` bool), ``sel`` and ``pi``
    (``(K,)`` int64; ``pi[k]`` is the rank of ``pi_t(k)``), ``inlist`` (``(K,)`` bool;
    optimal rank j is in ``A_t``) and ``scratch`` (``(K,)``). Out: the counts, ``N`` =
    ``T_n``, and ``sc`` (7,) = [bad steps, regret, regret on bad steps, thm1_upper_good,
    thm1_exact, thm1_exact_good, mismatches].
    """
    L = attract.size
    n = lists.shape[0]
    G = cnt[0]
    Gg = cnt[1]
    M = cnt[2]
    Mg = cnt[3]
    Mbg = cnt[4]
    # the index with the horizon's radius (UCB1: c_{n-1,s}) or threshold (KL-UCB: f(n))
    lg_n = safe_log(n - 1.0)
    th_n = klucb_threshold_scalar(float(n), c)
    bad_steps = 0
    regret = 0.0
    regret_bad = 0.0
    up_good = 0.0
    ex_all = 0.0
    ex_good = 0.0
    mism = 0
    for t in range(1, n + 1):
        lst = lists[t - 1]
        # -- the policy's indices and the bad event E_t
        bad = False
        if policy == _UCB1:
            lg = safe_log(t - 1.0)
            for e in range(L):
                m = S[e] / N[e]
                rad = math.sqrt(1.5 * lg / N[e])
                idx[e] = m + rad
                if abs(attract[e] - m) >= rad:
                    bad = True
        else:
            th = klucb_threshold_scalar(float(t), c)
            for e in range(L):
                if check or rank[e] < K:
                    idx[e] = klucb_scalar(S[e] / N[e], float(N[e]), th)
                    if rank[e] < K and attract[e] > idx[e]:
                        bad = True
        for e in range(L):
            if rank[e] < K and idx[e] < attract[e]:
                below[rank[e]] += 1
        if check:
            _top(idx, K, taken, sel)
            for k in range(K):
                if lst[k] != (sel[k] if order == 0 else sel[K - 1 - k]):
                    mism += 1
                    break
        # -- pi_t (ranks of optimal items by position)
        for j in range(K):
            inlist[j] = False
        for k in range(K):
            r = rank[lst[k]]
            if r < K:
                inlist[r] = True
        nxt = 0
        for k in range(K):
            r = rank[lst[k]]
            if r < K:
                pi[k] = r
            else:
                while inlist[nxt]:
                    nxt += 1
                pi[k] = nxt
                nxt += 1
        # -- observations: positions 0..nobs-1 (cascade: the click, if any, is the last)
        last = -1
        for k in range(K):
            if clicks[t - 1, k] == 1:
                last = k
        nobs = last + 1 if last >= 0 else K
        # np.int64: the literal CASCADE compiled list_reward beside the engine's int64 call
        rt = fstar - list_reward(np.int64(CASCADE), attract, attract, 1.0, lst, K, scratch)
        regret += rt
        if bad:
            bad_steps += 1
            regret_bad += rt
        # -- events G and Theorem 1's sums
        reach = 1.0
        for k in range(K):
            r = rank[lst[k]]
            if r >= K:
                i = r - K
                j = pi[k]
                d = gaps[i, j]
                if not bad:
                    up_good += d * reach
                if k < nobs:
                    tail = 1.0
                    for jj in range(k + 1, K):
                        tail *= 1.0 - attract[byrank[pi[jj]]]
                    ex_all += d * tail
                    G[i, j] += 1
                    e = lst[k]
                    if policy == _UCB1:
                        un = S[e] / N[e] + math.sqrt(1.5 * lg_n / N[e])
                    else:
                        un = klucb_scalar(S[e] / N[e], float(N[e]), th_n)
                    g = 0.0
                    for jj in range(K):
                        if attract[byrank[jj]] <= un and gaps[i, jj] > g:
                            g = gaps[i, jj]
                    bpath[i] += g
                    low = N[lst[k]] <= tau[i, j]
                    if low:
                        M[i, j] += 1
                    if not bad:
                        ex_good += d * tail
                        Gg[i, j] += 1
                        if low:
                            Mg[i, j] += 1
                        else:
                            Mbg[i, j] += 1
            reach *= 1.0 - attract[lst[k]]
        # -- update the statistics (Algorithm 1)
        for k in range(nobs):
            e = lst[k]
            N[e] += 1
            if k == last:
                S[e] += 1
    sc[0] = float(bad_steps)
    sc[1] = regret
    sc[2] = regret_bad
    sc[3] = up_good
    sc[4] = ex_all
    sc[5] = ex_good
    sc[6] = float(mism)


_SCALARS = (
    "bad_steps",
    "regret",
    "regret_bad",
    "thm1_upper_good",
    "thm1_exact",
    "thm1_exact_good",
    "mismatches",
)


@dataclass(frozen=True)
class ProofCounters:
    """Counters of ``runs`` runs of one cell (module docstring); leading axis = runs.

    Attributes
    ----------
    weights, K, policy, order, horizon, c : the cell
    tau : ndarray (L-K, K)
        The thresholds ``M`` and ``Mbar_good`` were counted with.
    G, G_good, M, M_good, Mbar_good : ndarray (runs, L-K, K) int64
    T : ndarray (runs, L) int64
    below : ndarray (runs, K) int64
        Steps with ``U_t(e*) < w(e*)``, per optimal item by rank.
    bpath : ndarray (runs, L-K) float64
        The B-part of the binomial bounds per suboptimal item by rank (module docstring).
    bad_steps, mismatches : ndarray (runs,) int64
    regret, regret_bad, thm1_upper_good, thm1_exact, thm1_exact_good : ndarray (runs,) float64
    engine_regret : ndarray (runs,) float64
        The engine's own regret at the horizon (equal to ``regret`` up to summation order).
    gaps : ndarray (L-K, K)
        ``Delta_{e,e*}`` by rank.
    """

    weights: tuple
    K: int
    policy: str
    order: str
    horizon: int
    c: float
    tau: np.ndarray
    G: np.ndarray
    G_good: np.ndarray
    M: np.ndarray
    M_good: np.ndarray
    Mbar_good: np.ndarray
    T: np.ndarray
    bad_steps: np.ndarray
    regret: np.ndarray
    regret_bad: np.ndarray
    thm1_upper_good: np.ndarray
    thm1_exact: np.ndarray
    thm1_exact_good: np.ndarray
    mismatches: np.ndarray
    engine_regret: np.ndarray
    gaps: np.ndarray = field(repr=False)
    below: np.ndarray = field(default=None, repr=False)
    bpath: np.ndarray = field(default=None, repr=False)

    @property
    def runs(self) -> int:
        return int(self.regret.shape[0])


def _check_tau(tau, L, K):
    if tau is None:
        return np.full((L - K, K), np.inf)
    t = V.as_float_array("tau", tau)
    if t.shape != (L - K, K):
        raise ValueError(f"tau must have shape (L - K, K) = ({L - K}, {K}), got {t.shape}")
    if np.isnan(t).any():
        raise ValueError("tau must not hold NaN")
    return np.ascontiguousarray(t)


def _cell_args(weights, K, policy, order, tau, c):
    """What :func:`_replay` needs of a cell, validated once: ``(policy code, order code,
    weights, K, c, tau, rank, byrank, gaps, f(A*))``, the same for every run of the cell."""
    w = V.probabilities("weights", weights, ndim=1)
    K = V.list_size(K, w.size)
    V.choice("policy", policy, COUNTED_POLICIES)
    from cascading_bandits.simulate.policies import order_code

    oc = order_code(order)
    tau = _check_tau(tau, w.size, K)
    c = V.positive_real("c", c, allow_zero=True)
    rank, gaps = item_ranks(w, K)
    byrank = np.argsort(rank).astype(np.int64)
    model = CascadeModel(tuple(w), K)
    fstar = model.expected_reward(model.optimal_list())  # f(A*) as the engine evaluates it
    return (
        COUNTED_POLICIES.index(policy), oc, w, K, c, tau, rank, byrank,
        np.ascontiguousarray(gaps), fstar,
    )  # fmt: skip


def _replay_run(cell_args, lists, clicks, w0, check) -> dict:
    """:func:`_replay` of one run (``lists``, ``clicks``: (n, K) int64, ``w0``: (L,) int64, all
    C-contiguous) on a cell's :func:`_cell_args`, as the dict of :func:`replay_counters`."""
    pol, oc, w, K, c, tau, rank, byrank, gaps, fstar = cell_args
    L = w.size
    S = w0.copy()
    T = np.ones(L, np.int64)
    cnt = np.zeros((5, L - K, K), np.int64)
    below = np.zeros(K, np.int64)
    bpath = np.zeros(L - K)
    sc = np.zeros(len(_SCALARS))
    _replay(
        pol, oc, w, K, c, lists, clicks, tau, rank, byrank, gaps, fstar, bool(check),
        S, T, cnt, below, bpath, np.empty(L), np.empty(L, np.bool_), np.empty(K, np.int64),
        np.empty(K, np.int64), np.zeros(K, np.bool_), np.empty(K), sc,
    )  # fmt: skip
    G, Gg, M, Mg, Mbg = cnt
    out = {"G": G, "G_good": Gg, "M": M, "M_good": Mg, "Mbar_good": Mbg, "T": T}
    out["below"], out["bpath"] = below, bpath
    for name, v in zip(_SCALARS, sc, strict=True):
        out[name] = v
    return out


def replay_counters(
    weights, K, policy, order, lists, clicks, w0, tau=None, c=3.0, check=True
) -> dict:
    """Counters of one run from its trace (``lists``, ``clicks``: (n, K); ``w0``: (L,) 0/1).

    Returns a dict with the per-run fields of :class:`ProofCounters`.
    """
    args = _cell_args(weights, K, policy, order, tau, c)
    w, K = args[2], args[3]
    lists = np.ascontiguousarray(lists, dtype=np.int64)
    clicks = np.ascontiguousarray(clicks, dtype=np.int64)
    if lists.ndim != 2 or lists.shape[1] != K or clicks.shape != lists.shape:
        raise ValueError(
            f"lists and clicks must both have shape (n, K = {K}), got {lists.shape}, {clicks.shape}"
        )
    if lists.size and (lists.min() < 0 or lists.max() >= w.size):
        raise ValueError(f"lists must hold item ids in 0..{w.size - 1}")
    w0 = np.ascontiguousarray(w0, dtype=np.int64)
    if w0.shape != (w.size,) or ((w0 != 0) & (w0 != 1)).any():
        raise ValueError(f"w0 must be {w.size} zeros and ones")
    return _replay_run(args, lists, clicks, w0, check)


#: the default of :func:`run_counters`' ``max_trace_bytes``
MAX_TRACE_BYTES = 256 * 2**20


def estimate(L, K, runs, horizon, *, threads=None, check=True, max_trace_bytes=MAX_TRACE_BYTES):
    """Memory (bytes) and wall time (seconds) of :func:`run_counters` on a cell, before any work.

    Parameters
    ----------
    L, K, runs, horizon : int or float
        The cell's size (numbers only: an absurd size is estimated, not built).
    threads : int, optional
        numba threads of the engine (the replay is serial over runs).
    check : bool
        The replay recomputes all L indices each step (as :func:`run_counters`).
    max_trace_bytes : int
        As :func:`run_counters`: traces are simulated in chunks of this many bytes, but a
        chunk holds at least one run's trace (``2 n K`` int64).

    Returns
    -------
    dict with ``bytes`` and ``seconds``. Time: the traced engine run
    (:func:`simulate.sweep.estimate`) plus the replay, ``runs * n`` steps of ``L`` index
    computations (``K`` with ``check=False``) on one thread at :data:`simulate.sweep.RATE`
    units a second. Memory: one chunk of traces, the engine's arrays, and the counters of
    every run held twice (per-run dicts, then stacked): five ``(L-K, K)`` int64 matrices,
    ``T``, ``bpath`` and ``below`` per run.
    """
    from cascading_bandits.simulate.sweep import RATE
    from cascading_bandits.simulate.sweep import estimate as cells_estimate

    L, K, runs, n = float(L), float(K), float(runs), float(horizon)
    per_run = 2 * n * K * 8
    chunk = max(1.0, min(runs, float(max_trace_bytes) // per_run if per_run else runs))
    engine = cells_estimate([(L, K, "cascade-klucb", runs, n)], threads=threads)
    replay = runs * n * ((L if check else K) + K) / RATE
    counters = 2 * runs * 8 * (5 * max(L - K, 0.0) * K + 2 * L + K)
    return {
        "bytes": chunk * per_run + engine["bytes"] + counters,
        "seconds": engine["seconds"] + replay,
    }


def run_counters(
    cell, seed, tau=None, *, threads=None, check=True, max_trace_bytes=MAX_TRACE_BYTES
) -> ProofCounters:
    """Simulate ``cell`` (as :func:`simulate.runner.run_cell` with the same seed) and count.

    Parameters
    ----------
    cell : simulate.experiments.Cell
        Cascade model, policy ``cascade-ucb1`` or ``cascade-klucb``.
    seed : int >= 0 or numpy.random.SeedSequence
        Run r uses the keys run r of ``run_cell(cell, seed)`` uses: same runs, same regret.
    tau : array_like (L-K, K), optional
        Thresholds ``tau_{e,e*}`` for ``M`` (default: +inf, so ``M = G``).
    threads : int, optional
        numba threads of the engine (results do not depend on it).
    check : bool
        Recompute all L indices each step and count the steps whose top K differs from
        the engine's list (``mismatches``; 0 expected). False skips that (KL-UCB: only
        the K optimal items' indices are computed).
    max_trace_bytes : int
        Runs are simulated in chunks whose traces fit in this many bytes.
    """
    from cascading_bandits.simulate.experiments import Cell
    from cascading_bandits.simulate.rng import policy_keys, users_keys
    from cascading_bandits.simulate.runner import as_seed_sequence

    if not isinstance(cell, Cell):
        raise TypeError(f"cell must be a simulate.experiments.Cell, got {type(cell).__name__}")
    if cell.model != "cascade":
        raise ValueError(f"cell.model must be 'cascade' (the proofs' model), got {cell.model!r}")
    V.choice("cell.policy", cell.policy, COUNTED_POLICIES)
    max_trace_bytes = V.positive_int("max_trace_bytes", max_trace_bytes)
    L, K, n = cell.L, cell.K, cell.horizon
    tau = _check_tau(tau, L, K)
    ss = as_seed_sequence(seed)
    uk = users_keys(ss, cell.weights, cell.runs)
    pk = policy_keys(ss, cell.runs)
    model = cell.click_model()
    per_run = 2 * n * K * 8
    chunk = max(1, min(cell.runs, max_trace_bytes // per_run))
    args = _cell_args(cell.weights, K, cell.policy, cell.order, tau, cell.c)
    rows, eng = [], []
    for r0 in range(0, cell.runs, chunk):
        r1 = min(cell.runs, r0 + chunk)
        regret, _counts, lists, clicks = traced_runs(
            model, cell.policy, cell.order, n, cell.c, uk[r0:r1], pk[r0:r1], threads
        )
        eng.append(regret)
        # the engine's own lists, clicks and w_0 (int64, C-contiguous rows): replayed with the
        # cell's arguments validated once (replay_counters' checks, per run, cost as much as
        # the replay of a short run)
        lists = np.ascontiguousarray(lists, dtype=np.int64)
        clicks = np.ascontiguousarray(clicks, dtype=np.int64)
        for i in range(r1 - r0):
            w0 = initial_weights(cell.weights, uk[r0 + i])
            rows.append(_replay_run(args, lists[i], clicks[i], w0, check))
        del lists, clicks
    _, gaps = item_ranks(cell.weights, K)

    def stack(name, dtype):
        return np.array([r[name] for r in rows], dtype=dtype)

    return ProofCounters(
        weights=tuple(cell.weights),
        K=K,
        policy=cell.policy,
        order=cell.order,
        horizon=n,
        c=cell.c,
        tau=tau,
        G=stack("G", np.int64),
        G_good=stack("G_good", np.int64),
        M=stack("M", np.int64),
        M_good=stack("M_good", np.int64),
        Mbar_good=stack("Mbar_good", np.int64),
        T=stack("T", np.int64),
        bad_steps=stack("bad_steps", np.int64),
        regret=stack("regret", np.float64),
        regret_bad=stack("regret_bad", np.float64),
        thm1_upper_good=stack("thm1_upper_good", np.float64),
        thm1_exact=stack("thm1_exact", np.float64),
        thm1_exact_good=stack("thm1_exact_good", np.float64),
        mismatches=stack("mismatches", np.int64),
        engine_regret=np.concatenate(eng),
        gaps=gaps,
        below=stack("below", np.int64),
        bpath=stack("bpath", np.float64),
    )
