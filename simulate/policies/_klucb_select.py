"""Exact lazy selection of the items of largest KL-UCB index (cascade-klucb, ranked-klucb).

Bracketed lazy selection, for small L, taking the plain loop's decisions bit for bit
(tests/simulate: lazy == plain == reference); documented below, next to the code. From
L = GROUP_MIN (cascade-klucb), GROUP_MIN_RANKED (ranked-klucb) on, the kernels select over
the distinct (S, N) states instead (:mod:`._klucb_states`).
"""

from __future__ import annotations

import math

import numba
import numpy as np

from cascading_bandits.bounds.indices import klucb_threshold_scalar
from cascading_bandits.bounds.kl import _log_ratio_scalar, klucb_scalar
from cascading_bandits.simulate import jitopts
from cascading_bandits.simulate.jitopts import HOT, STEP, helper

__all__ = [
    "PAD", "GROW", "GROUP_MIN", "GROUP_MIN_RANKED", "FW", "IW", "TAYLOR", "epoch", "cold",
    "klucb_cold",
]  # fmt: skip


# --------------------------------------------------------------------------
# Cold paths: called, never inlined
# --------------------------------------------------------------------------
class _NoInlineLibrary(jitopts.LinkOnlyLibrary):
    """A link-only library whose own functions LLVM never inlines into a caller."""

    def add_ir_module(self, ir_module):
        for fn in ir_module.functions:
            if not fn.is_declaration and "alwaysinline" not in fn.attributes:
                fn.attributes.add("noinline")
        super().add_ir_module(ir_module)


class _NoInlineCompiler(jitopts._LinkOnlyCompiler):
    library_class = _NoInlineLibrary


# forceinline False, not left unset: numba gives a function compiled while a caller compiles
# (its first call found by type inference) the caller's forceinline if its own is unset, so a
# STEP helper first called from a HOT one was compiled "alwaysinline" after all
_COLD = dict(STEP, forceinline=False)


def cold(fn):
    """Decorator: a helper (:data:`STEP` options) for paths a step rarely takes, which
    callers call and LLVM never inlines (``noinline``); best with scalar arguments (an
    array argument moves seven or nine machine words a call).

    Every STEP helper here was first compiled inside a HOT caller's compilation, so it was
    force-inlined after all (see ``_COLD``), and LLVM's inliner put the ``klucb_scalar``
    and ``kl_scalar`` it calls into every call site of every caller: a first ranked-klucb
    kernel (L = 2048) held 140 inlined logarithms, most of them in copies of the same
    rarely taken branches, and their optimisation and code generation were the largest
    single part of its compile. A cold helper is one copy in the kernel's module, called.
    Without :data:`jitopts.LINK_ONLY`, a helper with :data:`STEP` options and
    ``forceinline=False``.
    """
    if not jitopts.LINK_ONLY:
        return helper(_COLD)(fn)
    ref = numba.njit(**_COLD)(fn)  # numba's own reading of the options
    disp = jitopts.HelperDispatcher(
        py_func=fn,
        locals=ref.locals,
        targetoptions=ref.targetoptions,
        pipeline_class=_NoInlineCompiler,
    )
    disp.enable_caching()
    return disp


@cold
def klucb_cold(mean, count, threshold):
    """klucb_scalar(mean, count, threshold), called: one copy of its code for all callers."""
    return klucb_scalar(mean, count, threshold)


@helper(HOT)
def _log_ratios(p, q):
    """(log(p / q), log((1 - p) / (1 - q))) for 0 < p < q < 1: kl_scalar's own two log
    ratios, so that ``p * a + (1.0 - p) * b`` is kl_scalar(p, q) bit for bit."""
    d = q - p
    return _log_ratio_scalar(p, q, d), _log_ratio_scalar(1.0 - p, 1.0 - q, -d)


# --------------------------------------------------------------------------
# Lazy exact KL-UCB selection
# --------------------------------------------------------------------------
# The top-K by KL-UCB index needs the exact index (klucb_scalar, ~200 ns) of few items.
# For an item with mean p, count T and threshold th, the root q* of
# h(q) = kl(p, q) - th / T is bracketed from any reference point q0 in (p, 1) from
# kl(p, q0), because h is convex and increasing on [p, 1):
#   * the Newton step q0 - h(q0) / h'(q0) is >= q* (a tangent lies below h);
#   * if h(q0) < 0 then q0 <= q*; else the secant through (p, -th/T) and (q0, h(q0))
#     meets 0 at or below q* (a chord lies above h).
# Both ends are widened by PAD = 1e-10, far above the float error of these formulas and
# of klucb_scalar (<= 1e-12 from the true root), so the bracket holds the value
# klucb_scalar returns.
#
# References: kl(p, q0) depends on the state (S, T) and q0 only, not on th, so each item
# keeps an enclosure of kl(p, q0) (and 1 / h'(q0)) until it is observed; a bracket at any
# threshold then costs a few flops and no logarithm. A new state gets its enclosure from
# the item's reference (a Taylor bound, no logarithm) or, every TAYLOR states, a new
# reference at the item's last Newton point (one kl); when two brackets overlap, _refine
# moves the reference to the Newton point.
#
# Upper bounds: the index is nondecreasing in th, so an item whose (mean, count) did not
# change keeps as an upper bound its bracket's top at the threshold of the end t_ep of the
# current epoch (epochs grow geometrically); it stays valid after an unattractive
# observation too (the index is nondecreasing in the mean and nonincreasing in the count);
# an attractive observation voids it. Each step brackets the incumbents (the previous
# list), then every item whose upper bound reaches tau (the K-th largest lower end so far),
# drops the brackets that end below the final tau, and pops the list from the brackets;
# where two overlap, a second-order bracket (_refine) and then klucb_scalar settle it.
# The decisions are those of the plain loop, bit for bit (tests/simulate: lazy == plain ==
# reference; test_klucb_brackets: every bracket holds klucb_scalar's value). The
# guarantee rests on klucb_scalar's documented accuracy (1e-12 << PAD).
# Measured (B_LB(16, 4, 0.2, 0.15), t <= 1e5): about 4.3 brackets, 3 new item states and
# 0.01 refinements a step. A new state once cost a kl evaluation (two log1p, a fifth of
# the step); the references' Taylor enclosures (below) serve 7 states in 8 without one.
PAD = 1e-10
GROW = 64  # epochs of upper bounds: the epoch starting at t ends at t + t // GROW + 1


@helper(HOT)
def epoch(t, c, t_ep, th_ep):
    """(end, threshold log t + c log log t at the end) of the upper bounds' epoch holding
    step t: the same until step ``t_ep`` has passed, then ``t + t // GROW + 1``."""
    if t > t_ep:
        t_ep = t + t // GROW + 1
        th_ep = klucb_threshold_scalar(float(t_ep), c)
    return t_ep, th_ep


# The per-item state of the bracketed selection is packed in two arrays, F (L, FW) float64
# and I (L, IW) int64 (columns below), so that a call passes few arrays: numba passes each
# array as seven machine words, and at L = 16 moving two dozen arrays into a call cost
# about as much as the brackets themselves. All zeros is the empty state (KN = 0: an item
# with N = 0 has a closed-form index and needs no reference; any other gets one at once).
#
# A reference is (p_r, q0, kl(p_r, q0), d/dp kl(p_r, q0)), made at the state of mean p_r.
# It serves the item's later states too, up to TAYLOR of them, without a logarithm: for
# fixed q0, kl(p, q0) is convex in p with second derivative 1 / (p (1 - p)), so
#   kl(p_r, q0) + (p - p_r) d  <=  kl(p, q0)  <=  the same + (p - p_r)^2 M / 2,
# M the largest 1 / (x (1 - x)) between p and p_r. The brackets take the enclosure
# [KLO, KHI] (widened by a few ulps of its terms): the Newton end from KLO, the secant
# end from KHI, both still valid. An observation moves p by about 1 / N, so the
# enclosure's width (about 1 / N^2) is of the order of the bracket's own; after TAYLOR
# states (or when q0 <= p) a new reference is made at the last Newton point.
# The current state's p, 1 / N, 1 / h'(q0) and 1 / KHI are kept too, so that a bracket
# costs no division (a division's latency is that of a dozen multiplications): their
# rounding moves a bracket's ends by a few ulps, far inside PAD.
FW, IW = 16, 8  # columns of F and I (a row of F: two cache lines, of I: one)
Q0, KR, DR, PR, KE, KLO, KHI, ID0, IK0, P, IT, QN, LO, HI = range(14)  # F: reference
# point q0, kl(p_r, q0) (float), d/dp kl(p_r, q0), p_r, a bound on KR's rounding error; at
# the current state: enclosure of kl(p, q0),
# 1 / h'(q0), 1 / KHI (0: the index has a closed form, no reference), p, 1 / N (0 if N = 0);
# next reference (last Newton point), bracket (the upper bound is in U, below)
KN, UBN, EX, STAMP, CL, NT = 0, 1, 2, 3, 4, 5  # I: N[e] when the current state's
# columns were set, upper bound (U, below) set at count UBN, bracket exactness
# (0 bracket, 1 refined, 2 exact), candidate stamp; CL: row i holds the i-th candidate (by
# decreasing HI once the brackets are made, _lazy_pops); NT: states served by the
# reference (0: none yet)
TAYLOR = 8
# U (L + 1,) float, beside F and Ist: U[e] is item e's upper bound while it is valid
# (set in the epoch ending at U[L] and not voided by an attractive observation), +inf
# otherwise. The scan of _lazy_prepare skips most items on this one contiguous load (the
# bound's step in Ist and its value in F were two loads a row apart: about 14 instructions
# an item, 58 items a ranked-klucb step at L = 16). A new epoch sets every U[e] to +inf
# (U[L] != t_ep: once an epoch); a kernel voids a bound with U[e] = inf.
_ULP = 4.0 * 2.0**-52  # relative rounding slack of the enclosure's terms


@helper(HOT)
def _mean(S, N, e):
    return S[e] / N[e] if N[e] > 0 else 0.0


@helper(HOT)
def _new_ref(F, Ist, e, p, q0):
    """A reference at q0 for the state of mean p (0 < p < q0 < 1): kl and its p-slope from
    the two log ratios of kl_scalar's own formula (the same kl value, bit for bit)."""
    d = q0 - p
    a, b = _log_ratios(p, q0)  # log(p / q0), log((1 - p) / (1 - q0))
    k = p * a + (1.0 - p) * b
    ke = _ULP * (p * abs(a) + (1.0 - p) * abs(b)) + 1e-300  # logs, products, sum: < 8 ulps
    F[e, Q0] = q0
    F[e, KR] = k
    F[e, DR] = a - b
    F[e, PR] = p
    F[e, KE] = ke
    F[e, KLO] = k - ke
    F[e, KHI] = k + ke
    F[e, ID0] = q0 * (1.0 - q0) / d
    F[e, IK0] = 1.0 / (k + ke)
    Ist[e, NT] = 1


@helper(HOT)
def _set_ref(S, N, F, Ist, e, th):
    """Make item e's bracket data valid for its current state.

    ``F[e, P], F[e, IT] = p, 1 / N`` and the enclosure ``[F[e, KLO], F[e, KHI]]`` of
    ``kl(p, q0)`` with ``F[e, ID0] = 1 / h'(q0)``, ``F[e, IK0] = 1 / F[e, KHI]`` are valid
    while ``Ist[e, KN] == N[e]``. From the item's reference if it can serve (see above: no
    logarithm), else from a new one (one kl) at ``F[e, QN]``, the item's last Newton point
    (close to the root); if that is not in (p, 1), the exact index at th (or the midpoint
    of (p, 1)) is used instead. ``F[e, IK0] = 0`` marks a closed-form index (N = 0, p = 0
    or 1): no reference.
    """
    Ist[e, KN] = N[e]
    T = float(N[e])
    p = _mean(S, N, e)
    F[e, P] = p
    F[e, IT] = 1.0 / T if T > 0.0 else 0.0
    F[e, IK0] = 0.0
    if T <= 0.0 or p <= 0.0 or p >= 1.0:
        return  # closed-form index (_bracket_ref): no reference needed
    q0 = F[e, Q0]
    nt = Ist[e, NT]
    if 0 < nt < TAYLOR and p < q0:
        pr = F[e, PR]
        dp = p - pr
        x = p if abs(p - 0.5) > abs(pr - 0.5) else pr  # the end farther from 1/2
        slope = dp * F[e, DR]
        err = F[e, KE] + _ULP * (F[e, KR] + abs(slope))  # KR's error, then this sum's
        klo = F[e, KR] + slope - err
        khi = klo + (0.5 + _ULP) * dp * dp / (x * (1.0 - x)) + 2.0 * err
        if klo > 0.0:
            F[e, KLO] = klo
            F[e, KHI] = khi
            F[e, ID0] = q0 * (1.0 - q0) / (q0 - p)
            F[e, IK0] = 1.0 / khi
            Ist[e, NT] = nt + 1
            return
    q0 = F[e, QN]
    if not (p < q0 < 1.0):
        q0 = klucb_cold(p, T, th)
        if not (p < q0 < 1.0):
            q0 = 0.5 * (p + 1.0)
    _new_ref(F, Ist, e, p, q0)


@helper(HOT)
def _ends(p, q0, r, klo, khi, id0, ik):
    """(lo, hi, q_next) of the root of h(q) = kl(p, q) - r from a point q0 in (p, 1), given
    ``klo <= kl(p, q0) <= khi``, ``id0 = 1 / h'(q0)`` and ``ik = 1 / khi``.

    Newton from q0 with h(q0) >= klo - r is an upper end (``q_next``); the secant through
    (p, -r) meets 0 at p + (q0 - p) r / kl(p, q0) >= p + (q0 - p) r / khi, a lower end (q0
    itself if khi < r: then h(q0) < 0). Both are widened by PAD."""
    hi = q0 - (klo - r) * id0
    if hi > 1.0:
        hi = 1.0
    lo = q0 if khi < r else p + (q0 - p) * (r * ik)
    return lo - PAD, hi + PAD, hi


@helper(HOT)
def _closed_index(p, T, th):
    """klucb_scalar(p, T, th) for an index of closed form (T <= 0, p <= 0 or >= 1, th <=
    0), by klucb_scalar's own operations for those cases (the same value, bit for bit),
    inline; any other case is klucb_scalar itself, called (:func:`klucb_cold`)."""
    if T <= 0.0 or p >= 1.0:
        return 1.0
    r = th / T
    if r <= 0.0:
        return p
    if p <= 0.0:
        return -math.expm1(-r)
    return klucb_cold(p, T, th)


@helper(HOT)
def _bracket_ref(N, F, e, th):
    """:func:`_ends` of item e's index at threshold th from its current state's columns
    (valid: _set_ref): the enclosure [KLO, KHI] of kl(p, q0), with the reciprocals kept
    there in place of divisions; returns (lo, hi, q_next)."""
    ik = F[e, IK0]
    if ik == 0.0 or th <= 0.0:
        v = _closed_index(F[e, P], float(N[e]), th)
        return v, v, v
    return _ends(F[e, P], F[e, Q0], th * F[e, IT], F[e, KLO], F[e, KHI], F[e, ID0], ik)


@helper(HOT)
def _set_ub(S, N, F, Ist, U, e, th, th_ep):
    """Item e's upper bound for the steps up to the current epoch's end (threshold
    ``th_ep``; ``U[L]`` names the epoch): the top of its bracket there, from its reference
    (made valid first); in ``U[e]``."""
    if Ist[e, KN] != N[e]:
        _set_ref(S, N, F, Ist, e, th)
    U[e] = _bracket_ref(N, F, e, th_ep)[1]
    Ist[e, UBN] = N[e]


@helper(HOT)
def _candidate(S, N, F, Ist, e, t, th, nc, m, shown, tops, thr):
    """Bracket item e, a candidate of step t (stamped, listed at ``Ist[nc, CL]``), and push
    its lower end into ``tops[:m]`` if it is not shown; returns the new tops[m - 1]."""
    if Ist[e, KN] != N[e]:
        _set_ref(S, N, F, Ist, e, th)
    lo, hi, qn = _bracket_ref(N, F, e, th)
    F[e, LO] = lo
    F[e, HI] = hi
    F[e, QN] = qn
    Ist[e, EX] = 2 if lo == hi else 0
    Ist[e, STAMP] = t
    Ist[nc, CL] = e
    if lo > thr and not shown[e]:  # tops[:m]: the m largest lower ends not shown
        k = m - 1
        while k > 0 and tops[k - 1] < lo:
            tops[k] = tops[k - 1]
            k -= 1
        tops[k] = lo
        thr = tops[m - 1]
    return thr


@helper(HOT)
def _lazy_prepare(S, N, F, Ist, U, t, th, t_ep, th_ep, inc, ninc, m, shown, tops):
    """Bracket the items that may be among the m largest indices of the items not
    ``shown`` or above them; returns their number.

    Candidates get ``Ist[e, STAMP] = t`` and are listed in ``Ist[:, CL]``. tau, the
    m-th largest lower end among the candidates not shown so far (starting with the
    incumbents ``inc[:ninc]``, items likely to be on top, e.g. the previous list), is at
    most the m-th largest index of the items not shown; an item whose upper bound is below
    tau is neither among those m nor above one of them, nor is a candidate whose bracket
    ends below the final tau (it is dropped). With nothing shown (CascadeKL-UCB), the m
    largest indices; bandit k of ranked-klucb asks for m = 1: its best item not shown
    above, and its pick, the largest index, which is at least that one's.
    Upper bounds (``U``) hold until the end of their epoch; expired ones are refreshed at
    the epoch's end ``t_ep`` (threshold ``th_ep``).
    """
    nc = np.int64(0)  # not a literal: callees compile once
    for i in range(m):
        tops[i] = -np.inf
    L = S.size
    if U[L] != t_ep:  # a new epoch: every bound has expired
        for e in range(L):
            U[e] = np.inf
        U[L] = t_ep
    thr = -np.inf  # tops[m - 1], kept in a register (the scan reads it for every item)
    for i in range(ninc):  # the incumbents
        e = np.uint64(inc[i])  # an item id, unsigned: its uses skip numba's negative-index fix
        if Ist[e, STAMP] != t:
            thr = _candidate(S, N, F, Ist, e, t, th, nc, m, shown, tops, thr)
            nc += 1
    for i in range(L):  # every item: most are skipped on their valid bound below thr
        e = np.uint64(i)
        u = U[e]
        if u < thr:
            continue
        if u == np.inf:  # no valid bound
            if Ist[e, STAMP] == t:
                continue
            _set_ub(S, N, F, Ist, U, e, th, th_ep)
            if U[e] < thr:
                continue
        elif Ist[e, STAMP] == t:
            continue
        thr = _candidate(S, N, F, Ist, e, t, th, nc, m, shown, tops, thr)
        nc += 1
    tau = tops[m - 1]
    kept = np.int64(0)
    for i in range(nc):
        e = np.uint64(Ist[i, CL])
        if F[e, HI] < tau:
            Ist[e, STAMP] = -1  # not a candidate after all (so an expansion re-brackets it)
            if Ist[e, UBN] != N[e]:  # its upper bound is stale: tighten it (_lazy_select)
                _set_ub(S, N, F, Ist, U, e, th, th_ep)
        else:
            Ist[kept, CL] = e
            kept += 1
    return kept


@helper(HOT)
def _refine(S, N, F, Ist, th, e):
    """Second-order bracket of item e's index from its Newton point q1 = F[e, QN] >= root.

    With g1 = h(q1) >= 0 and h' increasing, root >= q1 - g1 / h'(l) for any l <= root
    (here the current lo): the bracket shrinks from O(d) to O(d^2) for one more kl, and
    q1 becomes the item's reference point.
    """
    p = _mean(S, N, e)
    T = float(N[e])
    q1 = F[e, QN]
    Ist[e, EX] = 1
    if not (p < q1 < 1.0):
        return
    r = th / T
    _new_ref(F, Ist, e, p, q1)
    g1 = F[e, KR] - r
    id1 = F[e, ID0]
    Ist[e, KN] = N[e]
    h1 = q1 - g1 * id1
    if h1 > 1.0:
        h1 = 1.0
    if g1 < 0.0:
        l1 = q1
    else:
        lc = F[e, LO] + PAD
        if not (p < lc < 1.0):
            return
        l1 = q1 - g1 / ((lc - p) / (lc * (1.0 - lc)))
    if l1 - PAD > F[e, LO]:
        F[e, LO] = l1 - PAD
    if h1 + PAD < F[e, HI]:
        F[e, HI] = h1 + PAD
    F[e, QN] = h1


@helper(HOT)
def _sink(F, Ist, i, nc):
    """Row i of the candidates ``Ist[:nc, CL]`` (sorted by HI desc, id asc) had its HI
    lowered: move it down to its place."""
    e = np.uint64(Ist[i, CL])  # item ids unsigned: no negative-index fix on their uses
    h = F[e, HI]
    while i + 1 < nc:
        d = np.uint64(Ist[i + 1, CL])
        if F[d, HI] > h or (F[d, HI] == h and d < e):
            Ist[i, CL] = d
            i += 1
        else:
            break
    Ist[i, CL] = e


@helper(HOT)
def _lazy_pops(S, N, F, Ist, th, nc, shown, need, out):
    """Pop the candidates in (index desc, id asc) order into ``out`` until ``need`` of the
    popped items are not ``shown``; returns the number popped.

    The candidates ``Ist[:nc, CL]`` are sorted by (hi desc, id asc) once; the first one
    not popped is next if its lo is above the second's hi, else one of the two brackets is
    refined (:func:`_refine`; then klucb_scalar settles what still overlaps) and sinks to
    its place. The popped items are ``Ist[:npop, CL]``, the others follow them.
    """
    for i in range(nc - 2, -1, -1):  # insertion sort into the sorted tail: nc is about K
        _sink(F, Ist, i, nc)
    npop = np.int64(0)
    got = np.int64(0)
    while got < need:
        # npop < nc: the candidates hold the m >= need largest not shown
        a = np.uint64(Ist[npop, CL])
        while npop + 1 < nc:
            b = np.uint64(Ist[npop + 1, CL])  # (ids unsigned: as in _sink)
            if F[a, LO] > F[b, HI]:
                break
            if Ist[a, EX] == 0:
                _refine(S, N, F, Ist, th, a)
                _sink(F, Ist, npop, nc)
            elif Ist[b, EX] == 0:
                _refine(S, N, F, Ist, th, b)
                _sink(F, Ist, npop + 1, nc)
            elif Ist[a, EX] == 1 or Ist[b, EX] == 1:  # settle one with klucb_scalar
                i = npop if Ist[a, EX] == 1 else npop + 1
                x = np.uint64(Ist[i, CL])
                v = klucb_scalar(_mean(S, N, x), float(N[x]), th)
                F[x, LO] = v
                F[x, HI] = v
                F[x, QN] = v
                Ist[x, EX] = 2
                _sink(F, Ist, i, nc)
            else:
                break  # both exact: a is the max of (value desc, id asc); none can tie above
            a = np.uint64(Ist[npop, CL])
        out[npop] = a
        npop += 1
        if not shown[a]:
            got += 1
    return npop


@helper(HOT)
def _lazy_select(S, N, F, Ist, U, t, th, t_ep, th_ep, inc, ninc, m, shown, need, tops, out):
    """Pop items in (index desc, id asc) order into ``out`` until ``need`` of them are not
    ``shown``, certifying the ``m >= need`` largest indices of the items not shown and
    every index above them; returns the number popped.

    One call per selection: the candidates are bracketed (:func:`_lazy_prepare`), popped
    (:func:`_lazy_pops`) and the losers' stale upper bounds tightened (an upper bound is
    stale if the item was observed since, ``Ist[e, UBN] != N[e]``: still valid after
    unattractive observations but loose, and the item would be bracketed at every step
    until the epoch ends). CascadeKL-UCB pops its list (``need = m = K``, nothing shown);
    bandit k of ranked-klucb pops its pick, then its best item not shown above (``need =
    m = 1``). F, Ist hold one selection's state (one per bandit), selected
    once a step: the step t stamps its candidates.
    """
    nc = _lazy_prepare(S, N, F, Ist, U, t, th, t_ep, th_ep, inc, ninc, m, shown, tops)
    npop = _lazy_pops(S, N, F, Ist, th, nc, shown, need, out)
    for i in range(npop, nc):
        e = np.uint64(Ist[i, CL])  # (unsigned: as in _lazy_prepare)
        if Ist[e, UBN] != N[e]:
            _set_ub(S, N, F, Ist, U, e, th, th_ep)
    return npop


# --------------------------------------------------------------------------
# Large L: selection over the distinct states (_klucb_states)
# --------------------------------------------------------------------------
# With many items most of them share their (successes, observations) state with others,
# hence their index too, so the brackets above overlap by the thousand; from these L on
# the kernels select over the distinct states instead (:mod:`._klucb_states`).
# Measured (B_LB(L, 4, 0.2, 0.15), 1e5 steps, run-steps per second of the fastest of 2
# runs, states vs bracketed with reference points): cascade-klucb L = 16: 2.0M vs 3.3M,
# 32: 1.9M vs 2.9M, 48: 1.8M vs 2.3M, 64: 1.87M vs 2.04M, 96: 1.7M vs 1.5M, 128: 1.8M vs
# 1.1M; ranked-klucb L = 16: 0.71M vs 1.15M, 24: 0.68M vs 0.95M, 32: 0.63M vs 0.82M,
# 48: 0.62M vs 0.62M, 64: 0.59M vs 0.48M.
GROUP_MIN = 96  # cascade-klucb
GROUP_MIN_RANKED = 48  # ranked-klucb(-rba)
