r"""Finite-time regret bounds of CascadeUCB1 and CascadeKL-UCB by binomial tails (derived here).

The derivation is written out step by step in ``docs/sharper_bounds.md``; each new
inequality is checked by a claim of :mod:`verify.claims_sharp` (ids ``sharp.*``). In short,
with items sorted ``w(1) >= ... >= w(L)``, optimal items ``1..K`` and
``S_s ~ Binomial(s, w(e))``:

    R(n) <= sum_{e>K} sum_{s=1}^n sum_{k=1}^K (w(k) - w'(k+1)) P(S_s >= m_{k,s})      (B-part)
            + sum_{e*<=K} (w(e*) - w(L)) B_A(n)                                    (A-part)

``w'(k+1) = w(k+1)`` for ``k < K`` and ``w'(K+1) = w(e)``; ``m_{k,s}`` is the least
``j in [0, s]`` with ``u_n(j/s, s) >= w(k)`` (``s + 1`` if none), where ``u_n(x, s)`` is the
policy's index of an item with empirical mean ``x`` after ``s`` observations, at the horizon's
step ``n``:

* CascadeUCB1: ``u_n(x, s) = x + sqrt(alpha log(n - 1) / s)``;
* CascadeKL-UCB: ``u_n(x, s) = max{q in [x, 1] : s kl(x, q) <= f(n)}``,
  ``f(n) = log n + c log log n``.

``B_A(n)`` bounds ``sum_{t<=n} P(U_t(e*) < w(e*))`` for one optimal item: for CascadeUCB1
``sum_{t<=n} min(1, t (t - 1)^(-2 alpha))`` (Hoeffding and a union bound over
``T_{t-1}(e*) in [1, t]``; the terms t = 1, 2 are 1); for CascadeKL-UCB
``bounds.garivier_cappe.klucb_loglog_term(n, c)`` (Theorem 10 of Garivier and Cappe, 2011,
at each step; its ``delta_t = log t + c log log t`` is the policy's threshold at step t).
The small-t rule of :mod:`bounds.indices` holds throughout (``log`` of a time is
``log max(t, 1)``, ``log log t`` is dropped for ``t <= e``), exactly as in the policies.

The bound holds for every ``n >= 1``, ``alpha >= 0``, ``c >= 0`` and every instance (ties
included: a tie makes a layer of width 0). It is 0 when ``K = L``.

Computation and precision
-------------------------
* Suboptimal items of equal weight share their term, and so do optimal items of equal weight
  (the distinct optimal weights are the layers).
* ``m_{k,s}`` is found on the integer grid by a monotone scan over ``s`` (compiled), deciding
  whether ``j`` is admissible with a margin in the valid direction (an admitted ``j`` can only
  raise the bound): ``j`` is admitted when ``j/s >= v - eta``, or
  ``j/s + c (1 + 1e-12) >= v - eta`` (UCB1), or ``s kl(j/s, v - eta) <= f(n) (1 + 1e-11)``
  (KL-UCB), with ``eta = INDEX_SLACK = 1e-12``. Every ``j`` admissible in exact arithmetic is
  admitted, so the computed ``m`` is at most the exact one (tested against 50-digit mpmath).
  The slack ``eta`` also covers the engine's KL-UCB index, accurate to 1e-12 (:mod:`bounds.kl`),
  so the B-part bounds the simulated policy too (the A-part is a statement on the exact index).
* ``P(S_s >= m)``: SciPy's Boost binomial functions (those of ``scipy.stats.binom``; found within
  1.4e-12 relative of 50-digit values) at every 32nd ``s``, and in between the exact
  recurrences in ``s`` and ``m`` (:func:`_recur_tails`, error below 3e-11, window abandoned
  where cancellation could grow it); a term whose lower tail has Chernoff bound below
  ``e^-40`` is taken as 1. The sums are inflated by a relative ``1e-10``.
* Truncation: after ``S`` terms the rest ``sum_{S < s <= n} P(S_s >= m_{k,s})`` is bounded
  by ``exp(-(S+1) kappa) / (1 - exp(-kappa))``, ``kappa = kl(x_{S+1}, w(e))``, where
  ``x_s`` (the real boundary of the admitted set, nondecreasing in ``s``) is bounded from below
  in floating point; only when ``x_{S+1} > w(e)``, and only once that bound is at most
  ``1e-13`` of the sum so far; ``kappa`` is rounded down (:func:`_tail_bound`).
* A-part: pairwise float sums of terms with relative error below 1e-14, inflated by 1e-12
  (UCB1; beyond ``2**20`` steps a closed-form integral bound of the decreasing terms), and
  ``klucb_loglog_term`` inflated by 1e-10 (KL-UCB).

Guarantee: the returned float is at least the exact value of the bound, and exceeds by at most
a relative 1e-9 the exact value of the same bound for the index widened by ``eta`` (they differ
only if a grid point ``j/s`` lies within about 1e-12 of a threshold). Horizons up to
``MAX_HORIZON``; the work is about ``(distinct optimal weights) x S`` index tests and binomial
tails per horizon, ``S`` the truncation point (``S = n`` for a near-tie of an optimal and a
suboptimal weight).

:func:`binomial_bound_reference` evaluates the same bound in mpmath by the direct double sum
``sum_s sum_j P(S_s = j) g_e(u_n(j/s, s))`` (no layers, thresholds, grouping or truncation),
for the tests and claims only.
"""

from __future__ import annotations

import math
from functools import lru_cache

import mpmath
import numba
import numpy as np

try:  # the Boost ufuncs behind scipy.stats.binom, without its per-call checks (about 0.3 ms)
    from scipy.special._ufuncs import _binom_pmf as _BOOST_PMF
    from scipy.special._ufuncs import _binom_sf as _BOOST_SF
except ImportError:  # pragma: no cover - a SciPy that moved them: the public path
    _BOOST_PMF = _BOOST_SF = None

from cascading_bandits.bounds import _validate as V
from cascading_bandits.bounds._blocked import arange_blocks
from cascading_bandits.bounds.garivier_cappe import klucb_loglog_term
from cascading_bandits.bounds.indices import klucb_threshold_scalar, safe_log
from cascading_bandits.bounds.instance import CascadeInstance, as_instance
from cascading_bandits.bounds.kl import kl_mp, kl_scalar

__all__ = [
    "POLICIES",
    "MAX_HORIZON",
    "INDEX_SLACK",
    "ucb1_binomial_bound",
    "klucb_binomial_bound",
    "binomial_bound",
    "binomial_bound_parts",
    "a_part",
    "a_part_count",
    "ucb1_miss_probability",
    "b_part_per_item",
    "b_count_per_item",
    "admission_thresholds",
    "chernoff_tail_bound",
    "binomial_bound_reference",
    "admission_threshold_reference",
    "REFERENCE_MAX_HORIZON",
]

#: The two policies the bound covers (the simulator's registry names).
POLICIES = ("cascade-ucb1", "cascade-klucb")
_DEFAULTS = {"cascade-ucb1": 1.5, "cascade-klucb": 3.0}
_PARAM_NAMES = {"cascade-ucb1": "alpha", "cascade-klucb": "c"}

#: Largest horizon accepted (the work grows with n where an optimal and a suboptimal weight
#: nearly tie).
MAX_HORIZON = 10**8

#: Absolute slack on the index when thresholds are decided (module docstring, Computation).
INDEX_SLACK = 1e-12
_UCB1_RADIUS_MARGIN = 1e-12  # relative, on the UCB1 radius
_KL_LEVEL_MARGIN = 1e-11  # relative, on f(n)
_BOUNDARY_MARGIN = 1e-10  # relative, on f(n)/s when the real boundary is bracketed from below
_TAIL_INFLATION = 1e-10  # relative, on sums of binomial tails
_FLOAT_INFLATION = 1e-12  # relative, on float sums with errors below 1e-14
_TRUNCATION_TOL = 1e-13  # truncate once the Chernoff rest is below this fraction of the sum
_TINY = 1e-300  # per summed tail: absolute cover for a tail that underflowed to 0
_A_EXACT = 1 << 20  # UCB1 A-part: terms summed one by one up to here
_FIRST_BLOCK = 512
_MAX_BLOCK = 1 << 12

_UCB1, _KLUCB = 0, 1


# ---------------------------------------------------------------------------
# input checks
# ---------------------------------------------------------------------------


def _instance(inst, K=None) -> CascadeInstance:
    """A CascadeInstance from an instance, ``(weights, K)``, or weights and ``K``."""
    if (
        isinstance(inst, tuple)
        and len(inst) == 2
        and V.ndim(inst[0]) == 1
        and isinstance(inst[1], (int, np.integer))
        and not isinstance(inst[1], bool)
    ):
        return as_instance(inst[0], inst[1] if K is None else K)
    return as_instance(inst, K)


def _policy(policy, param):
    """(code, policy name, parameter as float) after validation."""
    policy = V.choice("policy", policy, POLICIES)
    name = _PARAM_NAMES[policy]
    if param is not None:
        param = V.positive_real(f"param ({name} of {policy})", param, allow_zero=True)
    else:
        param = _DEFAULTS[policy]
    return (_UCB1 if policy == "cascade-ucb1" else _KLUCB), policy, float(param)


def _horizons(n, name="n"):
    """Validate horizon(s): integers in [1, MAX_HORIZON]. Returns (int64 array, is_scalar)."""
    if V.ndim(n) == 0 and not isinstance(n, (str, bytes)):
        v = V.bounded_int(name, n, MAX_HORIZON, "MAX_HORIZON of bounds.sharp")
        return np.array(v, dtype=np.int64), True
    a = V.as_float_array(name, n)
    if a.size and ((a < 1).any() or not np.isfinite(a).all() or (a != np.floor(a)).any()):
        raise ValueError(f"{name} must hold integers >= 1 (horizons)")
    if a.size and (a > MAX_HORIZON).any():
        raise ValueError(
            f"{name} must hold horizons <= {MAX_HORIZON} (MAX_HORIZON of bounds.sharp)"
        )
    return a.astype(np.int64), False


def _level_param(code, param, n):
    """The horizon's index parameter: ``alpha log(n - 1)`` (UCB1) or ``f(n)`` (KL-UCB)."""
    if code == _UCB1:
        return param * safe_log(float(n) - 1.0)
    return klucb_threshold_scalar(float(n), param)


# ---------------------------------------------------------------------------
# thresholds m_{k,s} (compiled scan) and the real boundary x_s
# ---------------------------------------------------------------------------


@numba.njit(cache=True)
def _admitted(j, s, v, code, par):
    """Whether ``u_n(j/s, s) >= v`` is admitted (margin in the valid direction).

    ``par`` is ``alpha log(n - 1)`` (UCB1) or ``f(n) (1 + 1e-11)`` (KL-UCB). The margins are
    module constants, frozen into the compiled code.
    """
    x = j / s
    vv = v - INDEX_SLACK
    if x >= vv:
        return True
    if code == 0:
        return x + math.sqrt(par / s) * (1.0 + _UCB1_RADIUS_MARGIN) >= vv
    return s * kl_scalar(x, vv) <= par


@numba.njit(cache=True)
def _scan(s_from, count, j, v, code, par, out):
    """``out[i] = m`` for ``s = s_from + i``; ``j`` is the threshold at ``s_from - 1``.

    Each result ``m`` is admitted (or ``s + 1``) while ``m - 1`` is not; since admission in
    exact arithmetic is monotone in ``j`` and implies the computed admission, ``m`` is at most
    the exact threshold. Returns the last threshold (the start of the next block).
    """
    for i in range(count):
        s = s_from + i
        if j > s + 1:
            j = s + 1
        while j <= s and not _admitted(j, s, v, code, par):
            j += 1
        while j > 0 and _admitted(j - 1, s, v, code, par):
            j -= 1
        out[i] = j
    return j


@numba.njit(cache=True)
def _recur_tails(m, s_from, mu, F0, P0, out, flags):
    """Binomial tails ``out[i] = P(Bin(s, mu) >= m[i])``, ``s = s_from + i``, by recurrences.

    From exact values at every ``_GRID``-th point (``F0 = P(X >= m)``, ``P0 = P(X = m - 1)``
    at ``i = _GRID g``), each window is continued with

        P(X_{s+1} >= j) = P(X_s >= j) + mu P(X_s = j - 1),
        P(X_s >= j + 1) = P(X_s >= j) - P(X_s = j)   (and its reverse for a lower j),

    and the point probabilities by their ratios. A window is abandoned (the rest flagged)
    as soon as a tail falls below 1/4 of the window's largest. Error: at most 96 ratio updates
    of about 5 roundings each give the point probabilities a relative error below 5.4e-14;
    every update of the tail adds at most (that + 2 eps) times the window's largest tail, so
    at most 5.2e-12 of it over 96 updates, hence 2.1e-11 relative to a tail at least 1/4 of
    it, plus 4 times the error of the starting values (SciPy's, about 1e-12): below 3e-11 in
    all, which the inflation by 1e-10 covers. ``flags[i]``: 0 computed here, 1 exactly 1
    (``m = 0``) or taken as 1 (below), 2 to be computed by the caller.

    Taken as 1: when ``P(X <= m - 1) <= exp(-s kl((m-1)/s, mu)) < e^-40`` (Chernoff's bound on
    the lower tail), so 1 exceeds the term by less than 4.3e-18.
    """
    q = 1.0 - mu
    ratio = mu / q
    cnt = m.size
    for g in range((cnt + 31) // 32):  # _GRID = 32
        i0 = 32 * g
        s = s_from + i0
        j = m[i0]
        F = F0[g]
        p = P0[g]  # P(X_s = j - 1)
        ok = j >= 1 and j <= s and F > 1e-280 and p > 1e-290
        top = F
        for i in range(i0, min(i0 + 32, cnt)):
            if ok and i > i0:
                F = F + mu * p  # s -> s + 1 at threshold j
                p = p * (s + 1) / (s + 2 - j) * q
                s += 1
                jt = m[i]
                while ok and j < jt:
                    p = p * (s - j + 1) / j * ratio  # P(X_s = j)
                    F = F - p
                    j += 1
                    ok = F >= top / 4.0
                while ok and j > jt:
                    F = F + p
                    if j - 1 < 1:
                        ok = False
                    p = p * (j - 1) / (s - j + 2) / ratio  # P(X_s = j - 2)
                    j -= 1
                ok = ok and j >= 1 and j <= s and F > 1e-280 and p > 1e-290 and F >= top / 4.0
                if F > top:
                    top = F
            elif i > i0:
                s += 1
            if ok:
                out[i] = F
                flags[i] = 0
                continue
            jj = m[i]
            ss = s_from + i
            sure = jj == 0
            if not sure:
                x = (jj - 1) / ss
                sure = x < mu and ss * kl_scalar(x, mu) > 40.0
            out[i] = 1.0
            flags[i] = 1 if sure else 2


_GRID = 32


def _binom_sf(k, s, p):
    """``P(Bin(s, p) > k)`` for integer arrays k, s (k may be -1 or >= s), float p in (0, 1)."""
    if _BOOST_SF is None:
        from scipy import stats  # imported here: about 1 s of start-up for every command

        return stats.binom.sf(k, s, p)
    k = np.asarray(k, dtype=np.float64)
    s = np.asarray(s, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        out = _BOOST_SF(np.clip(k, 0, s), s, p)
    return np.where(k < 0, 1.0, np.where(k >= s, 0.0, out))


def _binom_pmf(k, s, p):
    """``P(Bin(s, p) = k)`` for integer arrays k, s (0 outside [0, s]), float p in (0, 1)."""
    k = np.asarray(k, dtype=np.float64)
    s = np.asarray(s, dtype=np.float64)
    kk = np.clip(k, 0, s)
    try:
        with np.errstate(invalid="ignore"):
            if _BOOST_PMF is None:
                from scipy import stats

                out = stats.binom.pmf(kk, s, p)
            else:
                out = _BOOST_PMF(kk, s, p)
    except OverflowError:  # Boost's ibeta_derivative overflows for p below about 1e-306
        out = _binom_pmf_mp(kk, s, p)
    return np.where((k < 0) | (k > s), 0.0, out)


def _binom_pmf_mp(k, s, p):
    """:func:`_binom_pmf` in 30-digit mpmath, rounded once (the rare tiny-p fallback)."""
    with mpmath.workdps(30):
        q = mpmath.mpf(p)
        vals = [
            float(mpmath.binomial(int(n), int(j)) * q**j * (1 - q) ** (n - j))
            for j, n in zip(k.ravel(), s.ravel(), strict=True)
        ]
    return np.array(vals).reshape(k.shape)


def _block_tails(m, s_from, mu, out, flags):
    """``out[i] = P(Bin(s_from + i, mu) >= m[i])`` (``0 < mu``, ``m`` int64), via
    :func:`_recur_tails` from SciPy's values on the grid; returns the filled view of ``out``."""
    cnt = m.size
    ss = np.arange(s_from, s_from + cnt, dtype=np.int64)
    o, f = out[:cnt], flags[:cnt]
    if mu == 1.0:
        o[:] = m <= ss
        return o
    g = np.arange(0, cnt, _GRID)
    F0 = _binom_sf(m[g] - 1, ss[g], mu)
    P0 = _binom_pmf(m[g] - 1, ss[g], mu)
    _recur_tails(m, s_from, mu, F0, P0, o, f)
    need = f == 2
    if need.any():
        o[need] = _binom_sf(m[need] - 1, ss[need], mu)
    return o


@numba.njit(cache=True)
def _bisect(s, v, code, par):
    """The threshold at one ``s`` by bisection: admitted (or ``s + 1``), ``m - 1`` not admitted."""
    lo, hi = -1, s + 1  # sentinels: lo not admitted, hi admitted
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if _admitted(mid, s, v, code, par):
            hi = mid
        else:
            lo = mid
    return hi


@numba.njit(cache=True)
def _boundary_low(s, v, code, par):
    """A lower bound on the real boundary ``x_s`` of the admitted set at ``s``.

    Every ``x`` admitted (exactly, or by :func:`_admitted`) satisfies ``x >= result``;
    ``x_s`` is nondecreasing in ``s``. ``par`` as in :func:`_admitted`.
    """
    vv = v - INDEX_SLACK
    if code == 0:
        return (vv - math.sqrt(par / s) * (1.0 + 2 * _UCB1_RADIUS_MARGIN)) - 1e-15
    r = par / s * (1.0 + _BOUNDARY_MARGIN)  # beyond the float error of kl
    if vv <= 0.0 or kl_scalar(0.0, vv) <= r:
        return 0.0
    lo, hi = 0.0, vv  # kl(lo, vv) > r (outside), kl(hi, vv) = 0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if mid <= lo or mid >= hi:
            break
        if kl_scalar(mid, vv) > r:
            lo = mid
        else:
            hi = mid
    return lo


def _count_zero_thresholds(v, n, code, par):
    """Number of ``s in [1, n]`` with ``m_s = 0`` (the index at mean 0 reaches ``v``).

    The admitted set of ``s`` is an initial segment in exact arithmetic; the count returned
    has ``s0`` admitted and ``s0 + 1`` not, so it is at least the exact count.
    """
    vv = v - INDEX_SLACK
    if vv <= 0:
        return n
    if code == _UCB1:
        guess = par / (vv * vv) if par > 0 else 0.0
    else:
        guess = par / -math.log1p(-vv) if vv < 1 else 0.0
    s0 = int(min(max(math.floor(guess), 0), n))
    while s0 >= 1 and not _admitted(0, s0, v, code, par):
        s0 -= 1
    while s0 < n and _admitted(0, s0 + 1, v, code, par):
        s0 += 1
    return s0


def _truncation_ok(S, x_low, mu, total):
    """Whether the Chernoff rest after S terms (float estimate) is below the tolerance."""
    kappa = float(kl_scalar(x_low, mu))
    if not (kappa > 0 and (S + 1) * kappa > 25):
        return False
    return math.exp(-(S + 1) * kappa) / -math.expm1(-kappa) <= _TRUNCATION_TOL * total


def _tail_bound(S, x_low, mu):
    """``exp(-(S+1) kappa) / (1 - exp(-kappa))``, ``kappa = kl(x_low, mu)``, rounded up.

    Where ``(S + 1) kappa > 25`` (every truncation) in float64 with ``kappa`` lowered by a
    relative 1e-8: ``kappa > 25 / (S + 1) >= 2.5e-7`` keeps ``x_low - mu`` above about
    ``7e-4 sqrt(mu (1 - mu))``, where the float kl's relative error, of order
    ``eps mu (1 - mu) / |x - mu|``, is below 1e-12. Otherwise in mpmath at 30 digits.
    """
    kappa = float(kl_scalar(x_low, mu))
    if kappa > 0 and (S + 1) * kappa > 25:
        k = kappa * (1 - 1e-8)
        return math.exp(-(S + 1) * k) / -math.expm1(-k) * (1 + _FLOAT_INFLATION) + _TINY
    with mpmath.workdps(30):
        kappa = kl_mp(mpmath.mpf(float(x_low)), mpmath.mpf(float(mu)))
        val = mpmath.exp(-(S + 1) * kappa) / -mpmath.expm1(-kappa)
        return float(val) * (1 + _FLOAT_INFLATION) + _TINY


# ---------------------------------------------------------------------------
# the B-part at one horizon: per (layer, suboptimal weight) sums of binomial tails
# ---------------------------------------------------------------------------


def _layer_sums(levels, mus, pairs, n, code, param):
    """``T[i, u] >= sum_{s=1}^n P(Bin(s, mus[u]) >= m_{levels[i], s})`` for the pairs asked.

    Parameters
    ----------
    levels : tuple of float, distinct optimal weights (decreasing)
    mus : tuple of float, distinct suboptimal weights
    pairs : tuple of (i, u)
    n : int, horizon
    code, param : policy code and parameter

    Returns
    -------
    dict (i, u) -> float
    """
    par = _level_param(code, param, n)
    if code == _KLUCB:
        par = par * (1 + _KL_LEVEL_MARGIN)
    out = {}
    by_level = {}
    for i, u in pairs:
        by_level.setdefault(i, []).append(u)
    for i, us in by_level.items():
        v = levels[i]
        active = []
        for u in us:
            mu = mus[u]
            if mu == 0.0:  # S_s = 0: the term is 1{m_s = 0}
                out[(i, u)] = float(_count_zero_thresholds(v, n, code, par))
            else:
                active.append(u)
        if not active:
            continue
        sums = {u: 0.0 for u in active}
        s, j, block = 1, 0, _FIRST_BLOCK
        buf = np.empty(_MAX_BLOCK, dtype=np.int64)
        flags = np.empty(_MAX_BLOCK, dtype=np.int8)
        tails = np.empty(_MAX_BLOCK)
        while active:
            cnt = min(block, n - s + 1)
            m = buf[:cnt]
            j = _scan(s, cnt, j, float(v), code, float(par), m)
            last = s + cnt - 1  # terms s = 1..last are summed after this block
            x_next = _boundary_low(float(last + 1), float(v), code, float(par))
            still = []
            for u in active:
                mu = mus[u]
                sums[u] += float(np.sum(_block_tails(m, s, mu, tails, flags)))
                done = sums[u] * (1 + _TAIL_INFLATION) + last * _TINY
                if last >= n:
                    out[(i, u)] = done
                elif x_next > mu and _truncation_ok(last, x_next, mu, sums[u]):
                    out[(i, u)] = done + _tail_bound(last, x_next, mu)
                else:
                    still.append(u)
            active = still
            s = last + 1
            block = min(2 * block, _MAX_BLOCK)
    return out


def _structure(inst):
    """(levels: distinct optimal weights, mus: distinct suboptimal weights, item -> mu index)."""
    opt = [float(x) for x in inst.optimal_weights]
    sub = [float(x) for x in inst.suboptimal_weights]
    levels = tuple(sorted(set(opt), reverse=True))
    mus = tuple(sorted(set(sub), reverse=True))
    item_mu = np.array([mus.index(x) for x in sub], dtype=np.int64)
    return levels, mus, item_mu


@lru_cache(maxsize=1024)
def _b_groups(levels, mus, n, code, param, with_count):
    """Per distinct suboptimal weight: (B-part, count bound or nan) at horizon n (cached)."""
    widths = {}
    for u, mu in enumerate(mus):
        for i, v in enumerate(levels):
            lower = levels[i + 1] if i + 1 < len(levels) else mu
            if v - lower > 0:
                widths[(i, u)] = v - lower
    pairs = set(widths)
    last = len(levels) - 1
    if with_count:
        pairs |= {(last, u) for u in range(len(mus))}
    T = _layer_sums(levels, mus, tuple(sorted(pairs)), n, code, param)
    b = np.zeros(len(mus))
    cnt = np.full(len(mus), np.nan)
    for (i, u), wdt in widths.items():
        b[u] += wdt * T[(i, u)]
    b *= 1 + _FLOAT_INFLATION
    if with_count:
        for u in range(len(mus)):
            cnt[u] = T[(last, u)]
    return b, cnt


def _per_item(inst, n_arr, code, param, with_count=False):
    """(B-part per item, count per item), each of shape n.shape + (L - K,)."""
    shape = n_arr.shape
    nsub = inst.L - inst.K
    B = np.zeros(shape + (nsub,))
    C = np.zeros(shape + (nsub,))
    if nsub == 0:
        return B, C
    levels, mus, item_mu = _structure(inst)
    flat_n = n_arr.reshape(-1)
    Bf, Cf = B.reshape(-1, nsub), C.reshape(-1, nsub)
    for n in np.unique(flat_n):
        b, c = _b_groups(levels, mus, int(n), code, param, with_count)
        idx = np.nonzero(flat_n == n)[0]
        Bf[idx] = b[item_mu]
        Cf[idx] = c[item_mu]
    return B, C


# ---------------------------------------------------------------------------
# the A-part
# ---------------------------------------------------------------------------


def ucb1_miss_probability(t, alpha=1.5):
    """Step 3's bound on ``P(U_t(e*) < w(e*))`` for CascadeUCB1 at step t, one optimal item.

    ``min(1, sum_{s=1}^t exp(-2 s c_{t-1,s}^2)) = min(1, t (t - 1)^(-2 alpha))`` for ``t >= 3``
    (Hoeffding's inequality for each ``s = T_{t-1}(e*) in [1, t]`` and a union bound), and 1
    for ``t = 1, 2``, where the radius ``c_{t-1,s}`` is 0 by the small-t rule.

    Parameters
    ----------
    t : array_like of int >= 1
        Steps.
    alpha : float >= 0
        Exploration factor of ``c_{t,s} = sqrt(alpha log t / s)`` (1.5 in the paper).

    Returns
    -------
    float or ndarray, shape of t.
    """
    t_arr, scalar = _horizons(t, "t")
    alpha = V.positive_real("alpha", alpha, allow_zero=True)
    out = _ucb1_miss(t_arr.astype(np.float64), alpha)
    return float(out) if scalar else out


def _ucb1_miss(t, alpha):
    with np.errstate(divide="ignore", over="ignore"):
        tm = np.maximum(t - 1.0, 2.0)
        val = np.exp(np.log(np.maximum(t, 1.0)) - 2 * alpha * np.log(tm))
    return np.where(t >= 3, np.minimum(1.0, val), 1.0)


@lru_cache(maxsize=8)
def _ucb1_terms(alpha):
    # in cache-sized blocks (2**20 terms at once: 13-70 ms, in blocks 9-10 ms); the same bits
    terms = arange_blocks(1, _A_EXACT, lambda t: _ucb1_miss(t, alpha))
    terms.setflags(write=False)
    return terms


def _power_integral(p, u0, u1):
    """``int_{u0}^{u1} u^(-p) du`` for ``1 <= u0 <= u1``, without cancellation near p = 1."""
    a = 1.0 - p
    lr = math.log(u1 / u0)
    if abs(a * lr) < 1e-300:
        return lr * u0**a if a == 0 else lr
    return u0**a * math.expm1(a * lr) / a


def _ucb1_a_count(n, alpha):
    """``B_A(n)`` for CascadeUCB1 (validated n, alpha), rounded up."""
    if alpha <= 0.5:  # every term is 1: t (t - 1)^(-2 alpha) >= t / (t - 1) > 1
        return float(n)
    m = min(n, _A_EXACT)
    total = float(np.sum(_ucb1_terms(alpha)[:m])) * (1 + _FLOAT_INFLATION)
    if n > m:
        # terms decrease for t >= 3 when alpha >= 1/2: sum_{t=m+1}^n <= int_m^n t (t-1)^(-2 alpha)
        u0, u1 = m - 1.0, n - 1.0
        rest = _power_integral(2 * alpha - 1, u0, u1) + _power_integral(2 * alpha, u0, u1)
        total += rest * (1 + 1e-9)
    return total


def _a_count(n_arr, code, param):
    out = np.empty(n_arr.shape)
    flat, res = n_arr.reshape(-1), out.reshape(-1)
    for n in np.unique(flat):
        if code == _UCB1:
            val = _ucb1_a_count(int(n), param)
        else:
            val = klucb_loglog_term(int(n), param) * (1 + _TAIL_INFLATION)
        res[flat == n] = val
    return out


def a_part_count(n, policy="cascade-ucb1", param=None):
    """``B_A(n)``: a bound on ``sum_{t<=n} P(U_t(e*) < w(e*))`` for one optimal item (Step 3).

    CascadeUCB1: ``sum_{t<=n} ucb1_miss_probability(t, alpha)``; CascadeKL-UCB:
    ``klucb_loglog_term(n, c)``, the sum of Theorem 10 of Garivier and Cappe (2011) with the
    policy's threshold ``log t + c log log t`` at step t. Rounded up (module docstring).

    Parameters
    ----------
    n : int or array_like of int in [1, MAX_HORIZON]
    policy : {"cascade-ucb1", "cascade-klucb"}
    param : float >= 0, optional
        ``alpha`` (default 1.5) or ``c`` (default 3).

    Returns
    -------
    float for scalar n, ndarray shaped like n otherwise.
    """
    code, _, param = _policy(policy, param)
    n_arr, scalar = _horizons(n)
    out = _a_count(n_arr, code, param)
    return float(out) if scalar else out


def _a_weight(inst):
    """``sum_{e*<=K} (w(e*) - w(L))`` (0 when K = L)."""
    if inst.L == inst.K:
        return 0.0
    low = float(inst.sorted_weights[-1])
    return math.fsum(float(x) - low for x in inst.optimal_weights) * (1 + _FLOAT_INFLATION)


def a_part(inst, n, policy="cascade-ucb1", param=None, *, K=None):
    """The A-part ``sum_{e*<=K} (w(e*) - w(L)) B_A(n)`` (Step 3 of the derivation).

    Bounds the expected regret charged to steps at which an optimal item's index is below its
    weight. Arguments as in :func:`binomial_bound`.
    """
    inst = _instance(inst, K)
    code, _, param = _policy(policy, param)
    n_arr, scalar = _horizons(n)
    out = _a_weight(inst) * _a_count(n_arr, code, param)
    return float(out) if scalar else out


# ---------------------------------------------------------------------------
# public B-part pieces and the bound
# ---------------------------------------------------------------------------


def b_part_per_item(inst, n, policy="cascade-ucb1", param=None, *, K=None):
    """The B-part of each suboptimal item (Steps 4-5): ``sum_s E g_e(u_n(w_hat_s(e), s))``.

    ``= sum_{s=1}^n sum_{k=1}^K (w(k) - w'(k+1)) P(Bin(s, w(e)) >= m_{k,s})``.

    Returns
    -------
    ndarray, shape ``np.shape(n) + (L - K,)``
        Items in sorted order (the paper's ``K+1..L``), as
        :attr:`CascadeInstance.suboptimal_weights`. Rounded up (module docstring).
    """
    inst = _instance(inst, K)
    code, _, param = _policy(policy, param)
    n_arr, _ = _horizons(n)
    B, _ = _per_item(inst, n_arr, code, param)
    return B


def b_count_per_item(inst, n, policy="cascade-ucb1", param=None, *, K=None):
    """Expected-count bound of each suboptimal item: ``sum_{s=1}^n P(u_n(w_hat_s(e), s) >= w(K))``.

    Bounds the expected number of steps at which ``e`` is observed in some event
    ``G_{e,e*,t}`` with ``U_t(e) >= w(e*)`` (Step 4: such steps have distinct
    ``s = T_{t-1}(e)`` and ``w(e*) >= w(K)``). It is close to ``n`` for an item tied with
    ``w(K)``.

    Returns
    -------
    ndarray, shape ``np.shape(n) + (L - K,)``, items in sorted order. Rounded up.
    """
    inst = _instance(inst, K)
    code, _, param = _policy(policy, param)
    n_arr, _ = _horizons(n)
    _, C = _per_item(inst, n_arr, code, param, with_count=True)
    return C


def binomial_bound_parts(inst, n, policy="cascade-ucb1", param=None, *, K=None) -> dict:
    """Every link of the bound at horizon(s) n, for a profile.

    Returns
    -------
    dict with
        ``a_count``: ``B_A(n)`` (shape of n); ``a_weight``: ``sum_{e*} (w(e*) - w(L))``;
        ``a_part``: their product; ``b_per_item``: shape ``n.shape + (L - K,)``;
        ``b_part``: its sum over items; ``total``: ``a_part + b_part``.
    """
    inst = _instance(inst, K)
    code, _, param = _policy(policy, param)
    n_arr, scalar = _horizons(n)
    a_cnt = _a_count(n_arr, code, param)
    a_w = _a_weight(inst)
    B, _ = _per_item(inst, n_arr, code, param)
    b = B.sum(axis=-1) * (1 + _FLOAT_INFLATION)
    a = a_w * a_cnt
    total = a + b
    if scalar:
        return dict(a_count=float(a_cnt), a_weight=a_w, a_part=float(a), b_per_item=B,
                    b_part=float(b), total=float(total))  # fmt: skip
    return dict(a_count=a_cnt, a_weight=a_w, a_part=a, b_per_item=B, b_part=b, total=total)


def binomial_bound(inst, n, policy="cascade-ucb1", param=None, *, K=None):
    """The binomial-tail regret bound (Theorem 2-binomial / Theorem 3-binomial) at horizon(s) n.

    Parameters
    ----------
    inst : CascadeInstance, or a sequence of weights (with ``K``), or ``(weights, K)``
    n : int or array_like of int in [1, MAX_HORIZON]
        Horizon(s); any shape.
    policy : {"cascade-ucb1", "cascade-klucb"}
    param : float >= 0, optional
        ``alpha`` of CascadeUCB1 (default 1.5) or ``c`` of CascadeKL-UCB (default 3).
    K : int, optional
        List length, when ``inst`` is a sequence of weights.

    Returns
    -------
    float for scalar n, ndarray shaped like n otherwise: an upper bound on the exact value of
    the bound, within the relative excess stated in the module docstring.
    """
    return binomial_bound_parts(inst, n, policy, param, K=K)["total"]


def ucb1_binomial_bound(inst, n, alpha=1.5, *, K=None):
    """Theorem 2-binomial: the binomial-tail regret bound of CascadeUCB1 at horizon(s) n.

    ``binomial_bound(inst, n, "cascade-ucb1", alpha)``; see :func:`binomial_bound`.
    """
    return binomial_bound(inst, n, "cascade-ucb1", alpha, K=K)


def klucb_binomial_bound(inst, n, c=3.0, *, K=None):
    """Theorem 3-binomial: the binomial-tail regret bound of CascadeKL-UCB at horizon(s) n.

    ``binomial_bound(inst, n, "cascade-klucb", c)``; see :func:`binomial_bound`.
    """
    return binomial_bound(inst, n, "cascade-klucb", c, K=K)


def admission_thresholds(level, s, n, policy="cascade-ucb1", param=None):
    """``m_{k,s}``: least ``j in [0, s]`` with ``u_n(j/s, s) >= level`` (``s + 1`` if none).

    Computed with the margins of the module docstring, hence at most the exact threshold
    (:func:`admission_threshold_reference`).

    Parameters
    ----------
    level : float in [0, 1]
        The optimal weight ``w(k)``.
    s : array_like of int >= 1
        Observation counts (any order, any shape).
    n : int in [1, MAX_HORIZON]
        Horizon (the index uses ``c_{n-1,s}`` or ``f(n)``).
    policy, param : as in :func:`binomial_bound`

    Returns
    -------
    ndarray of int64, shape of s.
    """
    level = V.probability("level", level)
    s_arr, _ = _horizons(s, "s")
    n = V.bounded_int("n", n, MAX_HORIZON, "MAX_HORIZON of bounds.sharp")
    code, _, param = _policy(policy, param)
    par = _level_param(code, param, n)
    if code == _KLUCB:
        par *= 1 + _KL_LEVEL_MARGIN
    flat = s_arr.reshape(-1)
    out = np.array([_bisect(int(s), level, code, float(par)) for s in flat], dtype=np.int64)
    return out.reshape(s_arr.shape)


def chernoff_tail_bound(level, mu, S, n, policy="cascade-ucb1", param=None) -> float:
    """Bound on ``sum_{S < s <= n} P(Bin(s, mu) >= m_{k,s})`` used for truncation.

    ``exp(-(S+1) kappa) / (1 - exp(-kappa))`` with ``kappa = kl(x, mu)`` and ``x`` a lower
    bound on the real boundary ``x_{S+1}`` of the admitted set (nondecreasing in s); ``inf``
    when ``x <= mu`` (no truncation is allowed there), 0 when ``S >= n``.

    Parameters
    ----------
    level : float in [0, 1], the optimal weight ``w(k)``
    mu : float in [0, 1], the suboptimal weight ``w(e)``
    S : int >= 0, the last term summed
    n : int in [1, MAX_HORIZON]
    policy, param : as in :func:`binomial_bound`
    """
    level = V.probability("level", level)
    mu = V.probability("mu", mu)
    S = V.positive_int("S", S, minimum=0)
    n = V.bounded_int("n", n, MAX_HORIZON, "MAX_HORIZON of bounds.sharp")
    code, _, param = _policy(policy, param)
    if S >= n:
        return 0.0
    par = _level_param(code, param, n)
    if code == _KLUCB:
        par *= 1 + _KL_LEVEL_MARGIN
    x = _boundary_low(float(S + 1), level, code, float(par))
    if not x > mu:
        return math.inf
    return _tail_bound(S, x, mu)


# ---------------------------------------------------------------------------
# reference: direct double sum in mpmath (tests and claims only)
# ---------------------------------------------------------------------------

#: Largest horizon :func:`binomial_bound_reference` accepts (its cost grows like L K n^2).
REFERENCE_MAX_HORIZON = 400


def _mp_level(code, param, n):
    """``alpha log(n - 1)`` or ``f(n)`` in the current mpmath precision (small-t rule)."""
    p = mpmath.mpf(param)
    if code == _UCB1:
        return p * mpmath.log(n - 1) if n - 1 > 1 else mpmath.mpf(0)
    f = mpmath.log(n) if n > 1 else mpmath.mpf(0)
    if n > mpmath.e:
        f += p * mpmath.log(mpmath.log(n))
    return f


def _mp_admitted(j, s, v, code, par):
    """``u_n(j/s, s) >= v`` exactly (current mpmath precision), no margin."""
    x = mpmath.mpf(j) / s
    if x >= v:
        return True
    if code == _UCB1:
        return x + mpmath.sqrt(par / s) >= v
    if v == 1:
        return False  # kl(x, 1) = inf for x < 1
    return s * kl_mp(x, v) <= par


def admission_threshold_reference(level, s, n, policy="cascade-ucb1", param=None, dps=50) -> int:
    """``m_{k,s}`` exactly: the least admissible ``j`` by bisection with the exact predicate.

    Uses ``u_n(x, s) >= v`` iff ``x >= v`` or ``x + c_{n-1,s} >= v`` (UCB1), or iff ``x >= v``
    or ``s kl(x, v) <= f(n)`` (KL-UCB; ``kl(p, .)`` increases on ``[p, 1]``), at ``dps`` digits.
    """
    level = V.probability("level", level)
    s = V.positive_int("s", s)
    n = V.bounded_int("n", n, MAX_HORIZON, "MAX_HORIZON of bounds.sharp")
    code, _, param = _policy(policy, param)
    with mpmath.workdps(V.digits(dps)):
        v = mpmath.mpf(level)
        par = _mp_level(code, param, n)
        if not _mp_admitted(s, s, v, code, par):
            return s + 1
        lo, hi = -1, s  # lo not admitted (sentinel), hi admitted
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if _mp_admitted(mid, s, v, code, par):
                hi = mid
            else:
                lo = mid
        return hi


def _mp_a_count(n, code, param):
    total = mpmath.mpf(0)
    for t in range(1, n + 1):
        if code == _UCB1:
            lt = mpmath.log(t - 1) if t - 1 > 1 else mpmath.mpf(0)
            # direct sum over s of exp(-2 s c_{t-1,s}^2), c_{t-1,s}^2 = alpha log(t-1) / s
            p = mpmath.fsum(mpmath.exp(-2 * s * (param * lt / s)) for s in range(1, t + 1))
        else:
            lt = mpmath.log(t) if t > 1 else mpmath.mpf(0)
            delta = lt + (param * mpmath.log(lt) if t > mpmath.e else 0)
            p = mpmath.e * max(1, mpmath.ceil(delta * lt)) * mpmath.exp(-delta)
        total += min(mpmath.mpf(1), p)
    return total


def binomial_bound_reference(inst, n, policy="cascade-ucb1", param=None, dps=50, *, K=None):
    """The bound at one horizon in ``dps``-digit mpmath, by the definitions (slow; tests only).

    B-part of item e: ``sum_{s=1}^n sum_{j=0}^s C(s, j) w^j (1 - w)^(s-j) g_e(u_n(j/s, s))``,
    ``g_e(u) = max{w(k) - w(e) : k <= K, w(k) <= u}`` (0 if none), the index compared with
    each ``w(k)`` by the exact predicate of :func:`admission_threshold_reference`; A-part
    ``sum_{e*} (w(e*) - w(L)) B_A(n)`` with ``B_A`` summed term by term (UCB1: the sum over
    ``s`` of Hoeffding's bounds; KL-UCB: Theorem 10's bound, ceiling exact).

    Parameters
    ----------
    inst, policy, param, K : as in :func:`binomial_bound`
    n : int in [1, REFERENCE_MAX_HORIZON]
    dps : int, decimal digits

    Returns
    -------
    dict of mpf: ``a_count``, ``a_part``, ``b_per_item`` (list, sorted items), ``b_part``,
    ``total``.
    """
    inst = _instance(inst, K)
    code, _, param = _policy(policy, param)
    n = V.bounded_int("n", n, REFERENCE_MAX_HORIZON, "the reference's size limit")
    with mpmath.workdps(V.digits(dps)):
        w = [mpmath.mpf(float(x)) for x in inst.sorted_weights]
        opt, sub = w[: inst.K], w[inst.K :]
        par = _mp_level(code, param, n)
        a_cnt = _mp_a_count(n, code, param)
        a_w = mpmath.fsum(x - w[-1] for x in opt) if sub else mpmath.mpf(0)
        b_items = []
        for we in sub:
            total = mpmath.mpf(0)
            for s in range(1, n + 1):
                for j in range(s + 1):
                    g = mpmath.mpf(0)
                    for v in opt:  # decreasing: the first admitted level gives the max
                        if _mp_admitted(j, s, v, code, par):
                            g = v - we
                            break
                    if g > 0:
                        total += mpmath.binomial(s, j) * we**j * (1 - we) ** (s - j) * g
            b_items.append(total)
        b = mpmath.fsum(b_items)
        return dict(a_count=a_cnt, a_part=a_w * a_cnt, b_per_item=b_items, b_part=b,
                    total=a_w * a_cnt + b)  # fmt: skip
