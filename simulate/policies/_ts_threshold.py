"""CascadeTS's threshold sampler: the law of the plain loop's list at a cost far below O(L).

The plain loop draws ``theta(e) ~ Beta(a_e, b_e)`` independently for every item and lists
the K largest. Only the items whose sample exceeds a threshold ``tau`` can be among the K
largest as soon as at least K samples exceed it; this module generates exactly those
items and their samples, with the joint law of the plain loop, touching the others only
through a few counts. Item e's posterior ``Beta(a_e, b_e)`` (a_e, b_e >= 1, so its density
``f_e`` is log-concave) changes only when e is observed (at most K items a step).

Envelope (one item, one threshold)
----------------------------------
The tangent of ``log f_e`` at ``tau`` lies above it (log-concavity), so on (tau, 1)
``f_e(x) <= f_e(tau) exp(-lam (x - tau))``, ``lam = (b-1)/(1-tau) - (a-1)/tau``; its mass
``U_e = f_e(tau) int_0^{1-tau} exp(-lam s) ds >= q_e = P(theta(e) > tau)``. If
``U_e <= 1``: with probability U_e propose x from the truncated exponential (if
``lam (1 - tau) >= log 2``, ``Exp(1) / lam`` by an exponential ziggurat
(:data:`simulate.rng.EXP_ZIG_X`), drawn again while not below ``1 - tau``; else by
inversion, ``-log1p(v expm1(-lam (1 - tau))) / lam``) and accept it
with ``f_e(x) / envelope(x)`` (no normalising constant: both are ``x^(a-1)(1-x)^(b-1)`` up
to the same factor). Then ``P(accepted, x in dx) = f_e(x) dx`` on (tau, 1): the item
exceeds tau with probability q_e exactly, with the law of ``theta | theta > tau``, and no
incomplete beta function is evaluated. ``f_e(tau)`` needs ``log B(a_e, b_e)``: from
``lgamma`` once per state (S, N) with N < MEMO_N and run (a table: every item of a state
has the same value), beyond that kept per item by ``log B(a+1, b) = log B(a, b) + log(a /
(a + b))`` (and its twin in b) and recomputed from ``lgamma`` every REFRESH updates
(absolute error of a few ulp of ``lgamma(a + b)``: relative error of U_e about 1e-11 at
1e5 observations).

All items (one threshold)
-------------------------
Items with U_e > 1 ("heads", the few leaders) are drawn in full every step
(:func:`simulate.rng.beta_draw`). The others are kept in buckets by U_e
((1/2, 1], (1/4, 1/2], ..., the last [0, 2^-40]): each item of the first is proposed with
probability U_e; for the rest, points of a Poisson process of rate
``rb_j = -log(1 - 2^-j)`` per item of bucket j, thinned to ``r_e = -log(1 - U_e)``, give
every item at least one point with probability ``1 - exp(-r_e) = U_e``, independently:
the points of a rate-1 Poisson process on ``[0, R)``, ``R = sum_j n_j rb_j``, made in
increasing order by Exp(1) gaps (the ziggurat), the one at x in the bucket j where the
running sum of ``n_j rb_j`` first exceeds x (so in bucket j with probability proportional
to ``n_j rb_j``, and the buckets are scanned once a level), at a uniform member
``k = floor(u n_j)``, kept with probability ``r_e / rb_j`` by the fraction ``u n_j - k``
of the same uniform (given k, uniform on a grid of step ``n_j 2^-53`` up to the rounding
of ``u n_j``: a Bernoulli exact to about 2^-37 at 65,536 items, one uniform a point less).
The points are taken in batches of PB: the members' records are read first, so that
their cache misses (at L = 65,536) overlap. The cost is O(#buckets + sum_e U_e) a step,
and the items' updates move them between adjacent buckets (O(distance) swaps).

Two thresholds, exact completion
--------------------------------
``tau1 > tau2`` are where the envelope masses, each capped at 1, add up to K + T1 and
K + T2 (an upper bound of the expected number of samples above; uncapped, the mass of a
concentrated leader near its mean, about phi(z) / z at z standard deviations, would pull
tau onto it and make nearly every step an O(L) one). If at least K samples exceed tau1, the
K largest are listed. Otherwise every item not yet drawn is, given what the step saw,
``theta | theta <= tau1``: its level-2 draw (the same scheme at tau2) is repeated while it
lands above tau1 (rejection), so the items in (tau2, tau1] come out with the conditional
law; heads of level 2 are drawn from ``theta | theta <= tau1``. If still fewer than K
exceed tau2, every remaining item is drawn from ``theta | theta <= tau2`` (O(L), rare) and
the K largest of all L are listed. Conditional draws below a threshold are rejection from
full draws (at most TRIES), then inversion ``I^{-1}(u I_tau(a, b))`` (:mod:`simulate.special`,
exact to its ROUNDTRIP_TOL). The step's list therefore has the plain loop's law (set and
order) whatever the thresholds; the numbers differ from the plain loop's, since the random
numbers are used differently. The thresholds are re-chosen from the posteriors (a search
from the previous thresholds over the distinct states (S, N) with N < MEMO_N, counted as
the items are observed, and the items beyond one by one; then an O(L) placement of the
items, which fills the states' memo rows) after an O(L) completion, and when, over at
least 64 steps, more than one step in RESC = 8 used the second level or the samples known
a step leave [K + 1, 3 (K + T1)]. Level-2 masses are recomputed only when that level is
used (the items observed since are listed).

Cost: a point or a proposal reads one record of 8 floats per item (posterior, rates,
sample, stamps: one cache line); the acceptance test ``w < exp(lr)`` is first made against
``1 + lr_low <= exp(lr)``, ``lr_low`` from ``log1p(x) >= x (6 + 3x) / (6 + 6x + x^2)``
(x >= 0) and ``log1p(-y) >= -y (6 - 5y) / ((1 - y) (6 - 2y))`` (0 <= y < 1), multiplied
out by the denominators (docs/design.md: no logarithm and no division for 98-99% of the
accepted proposals when tau is far above the mode, about half when lam < 0;
tests/simulate/test_ts_proposals.py).

Random numbers: the full draws of item e, try r, are ``beta_draw(..., t, r L + e, 64 L)``;
every other draw of step t is the c-th of a step sequence, ``bits(pkey, POLICY, t,
32 L + c // 256, 64 L, c % 256)`` (as a uniform, its top 53 bits): pure functions of
(policy key, t), as every draw of the project.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from cascading_bandits.simulate.jitopts import STEP
from cascading_bandits.simulate.policies.kernel import (
    HOT,
    INNER,
    NJIT,
    finish,
    helper,
    observe_w0,
    play,
    select_top,
    step_buffers,
)
from cascading_bandits.simulate.rng import (
    _LAYER,
    EXP_ZIG_F,
    EXP_ZIG_R,
    EXP_ZIG_X,
    POLICY,
    _unit,
    beta_draw,
    bits,
)
from cascading_bandits.simulate.special import beta_quantile, betainc

__all__ = [
    "kernel_threshold",
    "run_threshold",
    "sample_lists",
    "STATS",
    "NSTATS",
    "T1",
    "T2",
    "TRIES",
    "REFRESH",
    "NB",
]

#: the thresholds are chosen where the envelope masses add up to K + T1 and K + T2
T1, T2 = 6, 24
#: that choice searches logit(tau) in [-40, 40] from the level's previous threshold (0 at
#: the first choice): a bracket of half-width TUNE_W, doubled outward until the mass
#: crosses the target, then bisected to a width of TUNE_TOL (any thresholds give the exact
#: law; the precision only moves the expected cost by a few percent, and the thresholds
#: drift little between choices: about 7 mass sums a level, against 20 for a bisection of
#: the whole range to 1e-4, which made the choices about a quarter of a run at L = 2048)
TUNE_W, TUNE_TOL = 0.5, 1.0 / 32.0
#: the thresholds are re-chosen when, over at least 64 steps, more than one step in RESC
#: used the second level (or the samples known a step left [K + 1, 3 (K + T1)])
RESC = 8
#: full draws tried by a conditional draw below a threshold before inversion
TRIES = 32
#: exact log B(a, b) from lgamma every REFRESH updates of an item
REFRESH = 32
#: states (S, N) with N < MEMO_N share their envelope mass at a re-choice of thresholds
MEMO_N = 64
#: buckets: 0 = heads (U > 1), 1 + j for U in (2^-(j+1), 2^-j] (j < NB - 2), NB - 1 =
#: [0, 2^-(NB - 2)]: the last one's Poisson rate, under 1e-12 an item, leaves no point in
#: practice, and an observed item crosses fewer buckets
NB = 42
#: an item's record, one row of ``it`` (L, 8) float64 (one cache line, aligned, what a point
#: or a proposal reads): its posterior a_e, b_e, its Poisson rates at the two thresholds, its
#: sample, the step it was drawn and the steps it was proposed at each level
IA, IB, IR, IV, IST, IC = 0, 1, 2, 4, 5, 6
#: an item's bookkeeping, one row of ``ix`` (L, 8) int32 (32 aligned bytes, half a cache
#: line, what an update reads; at L = 65,536 separate arrays cost a cache miss each, and
#: every byte of an item costs page faults at each run's start): its bucket and its
#: position in the bucket order at each level, its updates since the exact log B modulo
#: REFRESH, its level-2 flag (observed since that level's masses), and log B(a_e, b_e) as
#: the float64 of columns 6-7 (``fx[e, JLB]``, ``fx`` the (L, 4) float64 view of ``ix``)
JSEG, JPOS, JUPD, JFLAG, JLB = 0, 2, 4, 5, 3
#: the memo of a state (S, N) with N < MEMO_N at one threshold, one row of ``memo`` (2, M,
#: 8) float64 (:func:`_memo_row`): its posterior (a, b), the thresholds' epoch it was
#: computed at (``taus[EPOCH]``), the log B it was computed with, and the Poisson rate and
#: bucket of its envelope mass (columns 6-7 unused: a row is 64 aligned bytes). A row is
#: used only if a, b, the epoch and log B are those of the item at hand: the same function
#: of the same numbers, so the same bits as computing them again
MA, MB, MEP, MLB, MR, MS = 0, 1, 2, 3, 4, 5
#: the Poisson points of a level are taken in batches of up to PB (:func:`_level`)
PB = 32
#: the largest double below 1
BELOW1 = 1.0 - 2.0**-53
#: log 2: a proposal's exponential is drawn untruncated, then again if too large, from
#: lam (1 - tau) >= LN2 on (:func:`_propose`)
LN2 = math.log(2.0)
#: ``taus[EPOCH]`` counts the thresholds set (:func:`_set_taus`): memo rows of older ones
#: are stale
EPOCH = 6


@helper(INNER)
def _lbeta(a, b):
    return math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b)


@helper(HOT)
def _state_lbeta(lbt, i, a, b):
    """log B(a, b) of the state in row i (N (N + 1) / 2 + S, N < MEMO_N) of the run's table
    ``lbt`` (NaN: not yet computed), from :func:`_lbeta` at its first use."""
    lg = lbt[i]
    if math.isnan(lg):
        lg = _lbeta(a, b)
        lbt[i] = lg
    return lg


@helper(HOT)
def _seq_bits(pkey, t, L, ctr):
    """The next draw of step t's sequence as 64 bits (module docstring)."""
    c = ctr[0]
    ctr[0] = c + 1
    return bits(pkey, POLICY, t, 32 * L + (c >> 8), 64 * L, c & 255)


@helper(HOT)
def _seq(pkey, t, L, ctr):
    """The next draw of step t's sequence as a uniform: its top 53 bits (``rng.uniform``)."""
    return _unit(_seq_bits(pkey, t, L, ctr))


@helper(HOT)
def _exp1(pkey, t, L, ctr):
    """An Exp(1) draw by the exponential ziggurat (:data:`simulate.rng.EXP_ZIG_X`): a draw of
    the step's sequence picks the layer (bits 0-7) and the point (bits 11-63); most draws
    end there, the wedge takes one uniform more, and the base layer's tail adds r to a new
    draw (memorylessness)."""
    acc = 0.0
    while True:
        z = _seq_bits(pkey, t, L, ctr)
        i = np.int64(z & _LAYER)
        x = _unit(z) * EXP_ZIG_X[i]
        if x < EXP_ZIG_X[i + 1]:
            return acc + x
        if i == 0:
            acc += EXP_ZIG_R
            continue
        y = EXP_ZIG_F[i] + _seq(pkey, t, L, ctr) * (EXP_ZIG_F[i + 1] - EXP_ZIG_F[i])
        if y < math.exp(-x):
            return acc + x


@helper(HOT)
def _lam(a, b, tau):
    return (b - 1.0) / (1.0 - tau) - (a - 1.0) / tau


@helper(HOT)
def _envelope_mass(a, b, lb, tau, ltau, l1tau):
    """U = f(tau) int_0^{1-tau} exp(-lam s) ds, in logs (inf if it overflows, never nan);
    ``ltau``, ``l1tau`` = log(tau), log(1 - tau)."""
    h = 1.0 - tau
    lam = _lam(a, b, tau)
    lf = (a - 1.0) * ltau + (b - 1.0) * l1tau - lb
    if lam > 0.0:
        lm = math.log(-math.expm1(-lam * h)) - math.log(lam)
    elif lam < 0.0:
        mu = -lam
        lm = mu * h + math.log(-math.expm1(-mu * h)) - math.log(mu)
    else:
        lm = math.log(h)
    return math.exp(lf + lm)


@helper(HOT)
def _memo_row(ae, be, a, b):
    """The memo row of the state of posterior Beta(ae, be) under the prior Beta(a, b), or -1
    (N >= MEMO_N). The row's tags are checked by its users: the index is only a guess."""
    s = ae - a
    n = s + (be - b)
    if not (0.0 <= s and n < MEMO_N - 0.5):
        return -1
    si, ni = int(s + 0.5), int(n + 0.5)
    if si > ni:
        return -1
    return ni * (ni + 1) // 2 + si


@helper(HOT)
def _rate(U):
    """r = -log(1 - U), the Poisson rate of an item of mass U (inf from U = 1 on)."""
    return math.inf if U >= 1.0 else -math.log1p(-U)


@helper(HOT)
def _bucket(U):
    """The bucket of an item of envelope mass U (module docstring)."""
    if U > 1.0:
        return 0
    if U > 0.5:
        return 1
    if U <= 0.0:
        return NB - 1
    m, ex = math.frexp(U)  # U = m 2^ex, m in [1/2, 1): U in (2^(ex-1), 2^ex) or = 2^(ex-1)
    j = 1 - ex if m == 0.5 else -ex
    return min(1 + j, NB - 1)


@helper(HOT)
def _propose(a, b, tau, itau, ih, lam, pkey, t, L, ctr):
    """The envelope's proposal above tau, accepted or not: x > tau with density f(x) dx
    relative to the envelope's mass, or -1.0 (rejected). ``itau``, ``ih`` are 1 / tau and
    1 / (1 - tau), ``lam`` is ``_lam(a, b, tau)``.

    The proposal s = x - tau is Exp(lam) truncated to (0, 1 - tau): if lam (1 - tau) >=
    log 2 (an untruncated draw lands below 1 - tau with probability at least 1/2), Exp(1) /
    lam by the ziggurat, drawn again while it is not below 1 - tau; else by inversion,
    -log1p(v E) / lam, E = expm1(-lam (1 - tau)) (log1p: near lam = 0, 1 + v E would
    round s onto few values)."""
    h = 1.0 - tau
    if lam * h >= LN2:
        s = _exp1(pkey, t, L, ctr) / lam
        while not s < h:
            s = _exp1(pkey, t, L, ctr) / lam
    else:
        v = _seq(pkey, t, L, ctr)
        if lam == 0.0:
            s = v * h
        else:
            s = -math.log1p(v * math.expm1(-lam * h)) / lam
    if not (0.0 < s < h):
        return -1.0
    # accept with exp(lr), lr = (a-1) log1p(x) + (b-1) log1p(-y) + lam s <= 0, x = s/tau,
    # y = s/h; first against 1 + lr_low <= exp(lr), lr_low from the lower bounds
    # log1p(x) >= x (6 + 3x) / (6 + 6x + x^2) (x >= 0) and log1p(-y) >= -y (6 - 5y) /
    # ((1 - y) (6 - 2y)) (0 <= y < 1; docs/design.md), multiplied out by their positive
    # denominators: no logarithm and no division for most accepted proposals (module
    # docstring)
    w = _seq(pkey, t, L, ctr)
    x, y = s * itau, min(s * ih, BELOW1)  # s < h, but s * (1 / h) may round to 1
    d1, d2 = 6.0 + x * (6.0 + x), (1.0 - y) * (6.0 - 2.0 * y)
    if (w - 1.0 - lam * s) * (d1 * d2) < (a - 1.0) * (x * (6.0 + 3.0 * x)) * d2 - (b - 1.0) * (
        y * (6.0 - 5.0 * y)
    ) * d1:
        return tau + s
    lr = (a - 1.0) * math.log1p(x) + (b - 1.0) * math.log1p(-y) + lam * s
    if w < math.exp(lr):
        return tau + s
    return -1.0


@helper(STEP)
def _below(a, b, tau, pkey, t, e, L, ctr):
    """A draw of ``theta | theta <= tau``: full draws (tries 0..TRIES-1 of item e), then
    inversion."""
    for r in range(TRIES):
        x = beta_draw(a, b, pkey, t, r * L + e, 64 * L)
        if x <= tau:
            return x
    c = betainc(a, b, tau, 0)
    x = beta_quantile(a, b, _seq(pkey, t, L, ctr) * c)
    return min(x, tau)


@helper(HOT)
def _move(e, s_new, lv, ix, perm, start):
    """Move item e to bucket s_new at level lv by swaps at the bucket boundaries
    (O(distance)). Ids and positions read as uint64: no negative-index fix."""
    ue = np.uint64(e)
    s = ix[ue, JSEG + lv]
    jp = JPOS + lv
    p = ix[ue, jp]
    while s < s_new:  # to the last slot of bucket s, then the first of s + 1
        q = start[s + 1] - 1
        f = perm[np.uint64(q)]
        perm[np.uint64(q)], perm[np.uint64(p)] = e, f
        ix[np.uint64(f), jp] = p
        p = q
        start[s + 1] = q
        s += 1
    while s > s_new:  # to the first slot of bucket s, then the last of s - 1
        q = start[s]
        f = perm[np.uint64(q)]
        perm[np.uint64(q)], perm[np.uint64(p)] = e, f
        ix[np.uint64(f), jp] = p
        p = q
        start[s] = q + 1
        s -= 1
    ix[ue, jp] = p
    ix[ue, JSEG + lv] = s_new


@helper(HOT)
def _update(e, ae, be, lbe, lv, taus, it, ix, perm, start, memo, a, b):
    """Item e's new mass at threshold lv: its rate and bucket there (from its state's memo
    row if that row holds this posterior, log B and thresholds; else computed, and the
    row filled). Inlined (HOT): called for every observed item, a call moved its five
    arrays' fields (about 60 words) through the stack each time."""
    i = _memo_row(ae, be, a, b)
    ep = taus[EPOCH]
    if i >= 0:
        m = memo[lv, i]
        if m[MEP] == ep and m[MA] == ae and m[MB] == be and m[MLB] == lbe:
            it[e, IR + lv] = m[MR]
            _move(e, np.int64(m[MS]), lv, ix, perm[lv], start[lv])
            return
    u = _envelope_mass(ae, be, lbe, taus[lv], taus[2 + lv], taus[4 + lv])
    r, sg = _rate(u), _bucket(u)
    if i >= 0:
        m = memo[lv, i]
        m[MA], m[MB], m[MEP], m[MLB] = ae, be, ep, lbe
        m[MR], m[MS] = r, sg
    it[e, IR + lv] = r
    _move(e, sg, lv, ix, perm[lv], start[lv])


@helper(STEP)
def _clean(it, ix, fx, taus, perm, start, dl, ctr, memo, a, b):
    """The level-2 masses of the items observed since the last second-level step (they are
    recomputed only when that level is used: ``dl[:ctr[1]]``, flagged in ``ix[:, JFLAG]``)."""
    for i in range(ctr[1]):
        e = np.uint64(dl[i])  # an item id, unsigned: no negative-index fix on its reads
        ix[e, JFLAG] = 0
        _update(e, it[e, IA], it[e, IB], fx[e, JLB], 1, taus, it, ix, perm, start, memo, a, b)
    ctr[1] = 0


@helper(INNER)
def _tables():
    """rb[j] = -log(1 - 2^-j) for the buckets 1 + j (j >= 1), the Poisson bound rates."""
    rb = np.empty(NB)
    for s in range(NB):
        rb[s] = math.inf if s <= 1 else -math.log1p(-(2.0 ** -(s - 1)))
    return rb


@helper(INNER)
def _lines(raw, L):
    """An (L, 8) view of ``raw`` (8 L + 16 entries, not initialised) starting on a 64-byte
    boundary (the allocator gives 32-byte alignment only): rows of 64 bytes are one cache
    line each, rows of 32 bytes half of one."""
    off = ((64 - raw.ctypes.data % 64) % 64) // raw.itemsize
    return raw[off : off + 8 * L].reshape((L, 8))


@helper(INNER)
def _buffers(L):
    """(it (L, 8) the items' records (:data:`IA`...), ix (L, 8) int32 their bookkeeping
    (:data:`JSEG`...), mass (L,) scratch, perm (2, L) int32, start (2, NB + 1) int, res,
    dl (L,) int, the states' memo (:func:`_memo`)). Not initialised but ``start`` and the
    memo's epochs: each entry is written before it is read (``it`` and ``ix`` by
    :func:`_state` and :func:`_place`, ``perm`` by the latter,
    ``res`` and ``dl`` from their start each step): memory is paged in where it is
    written, so at L = 65,536 a run's start pays for the two tables only, not for zeros."""
    return (
        _lines(np.empty(8 * L + 16), L),
        _lines(np.empty(8 * L + 16, np.int32), L),
        np.empty(L),
        np.empty(2 * L, np.int32).reshape((2, L)),
        np.zeros(2 * (NB + 1), np.int64).reshape((2, NB + 1)),
        np.empty(L, np.int64),
        np.empty(L, np.int64),
        _memo(),
    )


@helper(INNER)
def _memo():
    """The states' memo (:data:`MA`...), every row stale (epoch -1)."""
    M = MEMO_N * (MEMO_N + 1) // 2
    memo = np.empty(2 * M * 8).reshape((2, M, 8))  # 1-d allocators only (docs/design.md)
    for lv in range(2):
        for i in range(M):
            memo[lv, i, MEP] = -1.0
    return memo


@helper(STEP)
def _level(lv, tau, it, perm, start, rb, wb, res, nres, tau_up, pkey, t, L, ctr, stats):
    """Draw the items of level lv (threshold tau) that exceed tau, among those not yet
    drawn this step (stamp ``it[e, IST] != t``), each conditioned on not exceeding ``tau_up`` (level
    2; ``tau_up >= 1`` for level 1): heads in full (level 1) or from ``theta | theta <=
    tau_up`` (level 2); bucket items through the envelope, redrawn while above tau_up.
    Appends to ``res``; returns the new ``nres``. ``wb`` (NB + 3 PB,) scratch."""
    pm, st, ir, ic = perm[lv], start[lv], IR + lv, IC + lv
    itau, ih = 1.0 / tau, 1.0 / (1.0 - tau)
    for i in range(st[0], st[1]):  # heads
        u = np.uint64(pm[i])  # an item id, unsigned: it[u] skips numba's negative-index fix
        e = np.int64(u)
        if it[u, IST] == t:
            continue
        ae, be = it[u, IA], it[u, IB]
        if tau_up >= 1.0:
            x = beta_draw(ae, be, pkey, t, e, 64 * L)
        else:
            x = _below(ae, be, tau_up, pkey, t, e, L, ctr)
        it[u, IST] = t
        it[u, IV] = x
        res[nres] = e
        nres += 1
    # bucket 1 (U in (1/2, 1]): each item proposed with probability U
    for i in range(st[1], st[2]):
        u = np.uint64(pm[i])
        if it[u, IST] == t:
            continue
        nres = _candidate(np.int64(u), it[u, ir], tau, itau, ih, tau_up, it, res, nres, pkey, t,
                          L, ctr, False, stats)  # fmt: skip
    # buckets 2..NB-1: Poisson points, thinned to r_e = -log(1 - U_e); wb[s] = the rates of
    # buckets 2..s added up, once a step
    R = 0.0
    for s in range(2, NB):
        R += (st[s + 1] - st[s]) * rb[s]
        wb[s] = R
    if R <= 0.0:
        return nres
    # the points of a Poisson process of rate 1 on [0, R), in increasing order (gaps Exp(1)):
    # the point at x lies in bucket s, wb[s - 1] <= x < wb[s], so the buckets are scanned
    # once a level, not from the first at each point (a uniform per point and a Poisson
    # count by inversion did that, about a tenth of a step)
    # in batches of up to PB points: first each point's member and its thinning threshold,
    # reading the member's record (at L = 65,536 a cache miss each, now overlapped), then
    # the members in turn
    pu, pf, pt = wb[NB : NB + PB], wb[NB + PB : NB + 2 * PB], wb[NB + 2 * PB :]
    x, s = 0.0, 2
    more = True
    while more:
        m = 0
        while m < PB:
            x += _exp1(pkey, t, L, ctr)
            if not x < R:
                more = False
                break
            stats[5] += 1
            while s < NB - 1 and wb[s] <= x:
                s += 1
            n = st[s + 1] - st[s]
            if n == 0:  # a guard: x < R keeps the scan off empty buckets
                continue
            # the member, k = floor(u n), and the thinning, by the fraction y - k of the
            # same uniform (module docstring: given k, uniform on a grid of step n 2^-53)
            y = _seq(pkey, t, L, ctr) * n
            k = min(int(y), n - 1)
            u = np.uint64(pm[np.uint64(st[s] + k)])
            # pt[m]: the record's stamp, stored only so that its load is made here
            pu[m], pf[m], pt[m] = u, (y - k) * rb[s], it[u, ic]
            m += 1
        for q in range(m):
            u = np.uint64(pu[q])
            if it[u, ic] == t:  # already proposed this step
                continue
            re = it[u, ir]
            if pf[q] >= re:
                continue  # thinned out
            it[u, ic] = t
            if it[u, IST] == t:
                continue
            nres = _candidate(np.int64(u), re, tau, itau, ih, tau_up, it, res, nres, pkey, t, L,
                              ctr, True, stats)  # fmt: skip
    return nres


@helper(HOT)
def _candidate(e, re, tau, itau, ih, tau_up, it, res, nres, pkey, t, L, ctr, proposed, stats):
    """Item e's envelope draw above tau (``proposed``: its proposal event, probability
    Ue = 1 - exp(-re), has already happened once); below tau_up by repetition, or from
    ``theta | theta <= tau_up`` after TRIES repetitions. Appends e to ``res`` if its
    sample is known."""
    u = np.uint64(e)  # it[u]: no negative-index fix
    ae, be = it[u, IA], it[u, IB]
    lam = _lam(ae, be, tau)
    Ue = -1.0  # computed when first needed
    for r in range(TRIES + 1):
        if r == TRIES:
            x = _below(ae, be, tau_up, pkey, t, e, L, ctr)
            break
        if not (proposed and r == 0):
            if Ue < 0.0:
                Ue = -math.expm1(-re)
            if _seq(pkey, t, L, ctr) >= Ue:
                return nres  # not proposed: at most tau
        stats[6] += 1
        x = _propose(ae, be, tau, itau, ih, lam, pkey, t, L, ctr)
        if x < 0.0:
            return nres  # rejected: at most tau
        if x <= tau_up:
            break
    it[u, IST] = t
    it[u, IV] = x
    res[nres] = e
    nres += 1
    return nres


@helper(HOT)
def _count_above(it, res, nres, tau):
    c = 0
    for i in range(nres):
        if it[np.uint64(res[i]), IV] > tau:
            c += 1
    return c


@helper(HOT)
def _top_res(it, res, nres, K, out):
    """``out[:K]`` = the K entries of ``res[:nres]`` (nres >= K) of largest sample, ties to
    the smaller id, in that order: one pass, each entry inserted into the sorted ``out``
    (K small: the K passes over ``res`` of a repeated maximum cost about 800 instructions a
    step at K = 4)."""
    m = 0
    for i in range(nres):
        e = res[i]
        x = it[e, IV]
        if m == K:  # beats the K-th?
            f = out[K - 1]
            y = it[f, IV]
            if not (x > y or (x == y and e < f)):
                continue
            j = K - 1
        else:
            j = m
            m += 1
        while j > 0:
            f = out[j - 1]
            y = it[f, IV]
            if not (x > y or (x == y and e < f)):
                break
            out[j] = f
            j -= 1
        out[j] = e


@helper(INNER)
def _tune(K, a, b, S, N, fx, taus, scnt, big, nbig, lbt):
    """Thresholds where the items' envelope masses add up to K + T1 and K + T2 (an upper
    bound of the expected number of samples above them; a search in logit(tau) from the
    previous thresholds (:data:`TUNE_W`) over the distinct states (S, N) with N < MEMO_N,
    counted in ``scnt`` (:func:`_census`), then the items ``big[:nbig]`` (N >= MEMO_N) one
    by one). No pass over the items: at L = 65,536 that pass was a fifth of a run."""
    M = MEMO_N * (MEMO_N + 1) // 2
    sa, sb, sl, sc = np.empty(M + nbig), np.empty(M + nbig), np.empty(M + nbig), np.empty(M + nbig)
    ns = 0
    for n_s in range(MEMO_N):
        for s_s in range(n_s + 1):
            c = scnt[n_s * (n_s + 1) // 2 + s_s]
            if c > 0:
                ae, be = a + s_s, b + (n_s - s_s)
                lb = _state_lbeta(lbt, n_s * (n_s + 1) // 2 + s_s, ae, be)
                sa[ns], sb[ns], sl[ns], sc[ns] = ae, be, lb, float(c)
                ns += 1
    for q in range(nbig):
        e = big[q]
        n_e, s_e = N[e], S[e]
        sa[ns], sb[ns], sl[ns], sc[ns] = a + s_e, b + (n_e - s_e), fx[e, JLB], 1.0
        ns += 1
    out = np.empty(2)
    for lv in range(2):
        target = K + (T1 if lv == 0 else T2)
        x0 = 0.0
        if taus[EPOCH] > 0.0:  # the level's previous threshold, in logit
            x0 = min(max(taus[2 + lv] - taus[4 + lv], -40.0), 40.0)
        w = TUNE_W
        lo, hi = max(x0 - w, -40.0), min(x0 + w, 40.0)
        # widen outward until mass(lo) > target >= mass(hi) (the ends count as crossed)
        while lo > -40.0 and not _above(lo, target, ns, sa, sb, sl, sc):
            hi = lo
            w += w
            lo = max(lo - w, -40.0)
        while hi < 40.0 and _above(hi, target, ns, sa, sb, sl, sc):
            lo = hi
            w += w
            hi = min(hi + w, 40.0)
        while hi - lo > TUNE_TOL:
            mid = 0.5 * (lo + hi)
            if _above(mid, target, ns, sa, sb, sl, sc):
                lo = mid
            else:
                hi = mid
        out[lv] = 1.0 / (1.0 + math.exp(-hi))
    _set_taus(taus, out[0], out[1])


@helper(INNER)
def _census(S, N, scnt, big):
    """``scnt`` (M,) = the number of items in each state (S, N) with N < MEMO_N (row
    N (N + 1) / 2 + S), ``big[:nbig]`` the items with N >= MEMO_N; returns nbig. Kept
    current by the run's updates (O(1) an observed item)."""
    nbig = 0
    for i in range(scnt.size):
        scnt[i] = 0
    for e in range(S.size):
        n_e = N[e]
        if n_e < MEMO_N:
            scnt[n_e * (n_e + 1) // 2 + S[e]] += 1
        else:
            big[nbig] = e
            nbig += 1
    return nbig


@helper(INNER)
def _above(x, target, ns, sa, sb, sl, sc):
    """Whether the states' envelope masses at tau = 1 / (1 + exp(-x)), each capped at 1 and
    weighted by its items, add up to more than ``target`` (the sum stops once it does)."""
    tau = 1.0 / (1.0 + math.exp(-x))
    lt, l1t = -math.log1p(math.exp(-x)), -math.log1p(math.exp(x))
    tot = 0.0
    for k in range(ns):
        tot += sc[k] * min(_envelope_mass(sa[k], sb[k], sl[k], tau, lt, l1t), 1.0)
        if tot > target:
            return True
    return False


@helper(STEP)
def _set_taus(taus, t1, t2):
    """``taus`` = (tau1, tau2, log tau1, log tau2, log(1 - tau1), log(1 - tau2), epoch), the
    thresholds clipped to [1e-100, 1 - 2^-52] and tau2 <= tau1; the epoch counts the calls.
    (The kernel's search keeps them above 4e-18; the lower clip keeps the products of
    :func:`_propose`'s multiplied-out test finite for a, b < 1e100.)"""
    lo, hi = 1e-100, 1.0 - 2.0**-52
    t1 = min(max(t1, lo), hi)
    t2 = min(max(t2, lo), t1)
    taus[0], taus[1] = t1, t2
    taus[2], taus[3] = math.log(t1), math.log(t2)
    taus[4], taus[5] = math.log1p(-t1), math.log1p(-t2)
    taus[EPOCH] += 1.0


@helper(INNER)
def _place(a, b, S, N, it, ix, fx, perm, start, taus, ctr, smemo):
    """Every item's envelope mass at both thresholds: its bucket and position at each level
    (a counting sort by bucket, items in increasing id), and its rates in ``it``.

    Many items share a state (S, N) (most of them unobserved since w_0 at large L): the
    masses, rates and buckets of the states with N < MEMO_N are computed once per threshold
    (a bucket is a frexp, a libm call, per level), and their rows of ``smemo``
    (:func:`_memo_row`) filled at both levels: the updates of items entering
    a state present at the re-choice then compute nothing. A first pass over the items
    finds their states (one int16 an item) and counts the items per state (an item with
    N >= MEMO_N gets its own rates and buckets there); the buckets' sizes follow per state,
    and a second pass writes each item's rates, bucket and position (each row of ``it`` and
    ``ix`` once: at L = 65,536 the two tables are 6 MB, and a pass per level and per field
    cost their streaming several times over). Counting per item and level in the first
    pass, with each item's buckets kept for the second, took 14% more instructions at
    L = 65,536."""
    L = S.size
    M = MEMO_N * (MEMO_N + 1) // 2
    # a state's (u0, r0, u1, r1) (u0 = -1: not computed yet), its buckets and its items
    memo = np.empty(4 * M).reshape((M, 4))  # 1-d allocators only (docs/design.md)
    msg = np.empty(2 * M, np.int64).reshape((M, 2))
    mcnt = np.zeros(M, np.int64)
    for i in range(M):
        memo[i, 0] = -1.0
    # the item's state row, -1 for an item with N >= MEMO_N (its rates are written to
    # ``it`` and its buckets to ``ix`` by the first pass)
    srow = np.empty(L, np.int16)
    cnt = np.zeros(2 * (NB + 1), np.int64).reshape((2, NB + 1))
    ep = taus[EPOCH]
    for e in range(L):
        n_e, s_e = N[e], S[e]
        i = n_e * (n_e + 1) // 2 + s_e if n_e < MEMO_N else -1
        srow[e] = i
        if i >= 0 and memo[i, 0] >= 0.0:
            mcnt[i] += 1
            continue
        lbe = fx[e, JLB]
        ae, be = a + s_e, b + (n_e - s_e)
        u0 = _envelope_mass(ae, be, lbe, taus[0], taus[2], taus[4])
        u1 = _envelope_mass(ae, be, lbe, taus[1], taus[3], taus[5])
        r0, r1 = _rate(u0), _rate(u1)
        s0, s1 = _bucket(u0), _bucket(u1)
        if i >= 0:
            memo[i, 0], memo[i, 1], memo[i, 2], memo[i, 3] = u0, r0, u1, r1
            msg[i, 0], msg[i, 1] = s0, s1
            mcnt[i] += 1
            # the items' updates and proposals read these rows (the same numbers as
            # computing them again: :func:`_update`)
            m = smemo[0, i]
            m[MA], m[MB], m[MEP], m[MLB] = ae, be, ep, lbe
            m[MR], m[MS] = r0, s0
            m = smemo[1, i]
            m[MA], m[MB], m[MEP], m[MLB] = ae, be, ep, lbe
            m[MR], m[MS] = r1, s1
        else:
            it[e, IR], it[e, IR + 1] = r0, r1
            ix[e, JSEG], ix[e, JSEG + 1] = s0, s1
            cnt[0, s0 + 1] += 1
            cnt[1, s1 + 1] += 1
    for i in range(M):
        c = mcnt[i]
        if c > 0:
            cnt[0, msg[i, 0] + 1] += c
            cnt[1, msg[i, 1] + 1] += c
    for lv in range(2):
        for s in range(NB):
            cnt[lv, s + 1] += cnt[lv, s]
        for s in range(NB + 1):
            start[lv, s] = cnt[lv, s]
    # buckets, positions and state rows read as uint64: no negative-index fix
    p0, p1, c0, c1 = perm[0], perm[1], cnt[0], cnt[1]
    for e in range(L):
        i = srow[e]
        if i >= 0:
            ui = np.uint64(i)
            s0, s1 = np.uint64(msg[ui, 0]), np.uint64(msg[ui, 1])
            it[e, IR], it[e, IR + 1] = memo[ui, 1], memo[ui, 3]
        else:
            s0, s1 = np.uint64(ix[e, JSEG]), np.uint64(ix[e, JSEG + 1])
        q0, q1 = c0[s0], c1[s1]
        c0[s0], c1[s1] = q0 + 1, q1 + 1
        p0[np.uint64(q0)], p1[np.uint64(q1)] = e, e
        ix[e, JSEG], ix[e, JSEG + 1], ix[e, JFLAG] = s0, s1, 0
        ix[e, JPOS], ix[e, JPOS + 1] = q0, q1
    ctr[1] = 0


@helper(HOT)
def _select(t, K, a, b, S, N, it, ix, fx, mass, perm, start, rb, wb, res, taus, taken, sel,
            pkey, ctr, stats, dl, memo):  # fmt: skip
    """Step t's list ``sel[:K]`` (module docstring: two levels, then all L samples).

    Returns the path taken: 0 (K samples above tau1), 1 (above tau2), 2 (all L samples
    drawn, in ``mass``)."""
    L = S.size
    ctr[0] = 0
    tau1, tau2 = taus[0], taus[1]
    nres = _level(0, tau1, it, perm, start, rb, wb, res, 0, 2.0, pkey, t, L, ctr, stats)
    stats[3] += start[0, 1] - start[0, 0]
    stats[4] += nres
    if _count_above(it, res, nres, tau1) >= K:
        _top_res(it, res, nres, K, sel)
        return 0
    stats[1] += 1
    n1 = nres
    _clean(it, ix, fx, taus, perm, start, dl, ctr, memo, a, b)
    nres = _level(1, tau2, it, perm, start, rb, wb, res, nres, tau1, pkey, t, L, ctr, stats)
    stats[4] += nres - n1
    if _count_above(it, res, nres, tau2) >= K:
        _top_res(it, res, nres, K, sel)
        return 1
    stats[2] += 1
    for e in range(L):  # every other item is below tau2
        if it[e, IST] != t:
            it[e, IV] = _below(it[e, IA], it[e, IB], tau2, pkey, t, e, L, ctr)
        mass[e] = it[e, IV]
    select_top(mass, K, taken, sel)
    return 2


@helper(INNER)
def _state(L, a, b, S, N):
    """The sampler's arrays for posteriors Beta(a + S, b + N - S) (log B exact, computed
    once per state (S, N) with N < MEMO_N: the same function of the same numbers)."""
    it, ix, mass, perm, start, res, dl, smemo = _buffers(L)
    fx = ix.view(np.float64)
    memo = np.empty(MEMO_N * (MEMO_N + 1) // 2)
    for i in range(memo.size):
        memo[i] = math.nan
    for e in range(L):
        n_e, s_e = N[e], S[e]
        ae, be = a + s_e, b + (n_e - s_e)
        if n_e < MEMO_N:
            i = n_e * (n_e + 1) // 2 + s_e
            if math.isnan(memo[i]):
                memo[i] = _lbeta(ae, be)
            fx[e, JLB] = memo[i]
        else:
            fx[e, JLB] = _lbeta(ae, be)
        it[e, IA], it[e, IB] = ae, be
        it[e, IR], it[e, IR + 1], it[e, IV] = 0.0, 0.0, 0.0
        it[e, IST], it[e, IC], it[e, IC + 1] = -1.0, -1.0, -1.0
        for j in range(JLB * 2):  # the int columns (log B is columns 6-7)
            ix[e, j] = 0
    return it, ix, fx, mass, perm, start, res, dl, smemo


@numba.njit(**NJIT)
def sample_lists(a, b, S, N, K, pkey, t0, steps, tau1, tau2, out, stats):
    """Lists of ``steps`` steps t0, t0 + 1, ... with the posteriors held fixed, at the
    thresholds tau1 >= tau2 given (any: the law does not depend on them), into ``out``
    (steps, K) int64; ``stats`` as in :func:`run_threshold`. For the tests: the law of one
    step's list against the plain loop's, each path forced by the thresholds."""
    L = S.size
    it, ix, fx, mass, perm, start, res, dl, smemo = _state(L, a, b, S, N)
    rb = _tables()
    wb = np.empty(NB + 3 * PB)
    taus = np.zeros(7)
    _set_taus(taus, tau1, tau2)
    ctr = np.zeros(2, np.int64)  # the step's uniforms drawn, the items in dl
    _place(a, b, S, N, it, ix, fx, perm, start, taus, ctr, smemo)
    taken = np.empty(L, np.bool_)
    sel = np.zeros(K, np.int64)
    for i in range(steps):
        _select(t0 + i, K, a, b, S, N, it, ix, fx, mass, perm, start, rb, wb, res, taus, taken,
                sel, pkey, ctr, stats, dl, smemo)  # fmt: skip
        for k in range(K):
            out[i, k] = sel[k]


#: the entries of ``run_threshold``'s ``stats``
STATS = ("rebuilds", "rescues", "completions", "heads", "results", "points", "proposals")
NSTATS = len(STATS)


@numba.njit(**NJIT)
def kernel_threshold(env, params, ukey, pkey, regret_out, counts_out, trace):
    """CascadeTS with the plain loop's law at sublinear cost per step (module docstring)."""
    stats = np.zeros(NSTATS, np.int64)
    run_threshold(env, params, ukey, pkey, regret_out, counts_out, trace, stats)


@numba.njit(**NJIT)
def run_threshold(env, params, ukey, pkey, regret_out, counts_out, trace, stats):
    """The kernel's loop, counting in ``stats`` (NSTATS,) int64 (:data:`STATS`): full draws
    for new thresholds, second-level steps, O(L) completions, head draws, samples known,
    Poisson points and envelope proposals, over all steps."""
    code, attract, satisfy, gamma, K, n, order, fstar, checkpoints, lazy = env
    a, b = params[0], params[1]
    L = attract.size
    S, N = observe_w0(ukey, attract)
    st = step_buffers(L, K)
    idx, taken, sel, lst, clicks, scratch = st
    it, ix, fx, mass, perm, start, res, dl, smemo = _state(L, a, b, S, N)
    rb = _tables()
    wb = np.empty(NB + 3 * PB)
    taus = np.zeros(7)
    ctr = np.zeros(2, np.int64)  # the step's uniforms drawn, the items in dl
    # the items per state (S, N) with N < MEMO_N and the items beyond (the re-choice of
    # thresholds reads these, not the L items), kept current by the updates
    scnt = np.empty(MEMO_N * (MEMO_N + 1) // 2, np.int64)
    big = np.empty(L, np.int64)
    nbig = _census(S, N, scnt, big)
    # log B(a, b) of the states with N < MEMO_N, exact (lgamma), computed once per state
    # and run: every item of a state has the same log B, so a memo row filled by one
    # item of the state serves all (with log B kept by its recurrence, items reaching a
    # state by different paths differed in the last bits and missed each other's rows)
    lbt = np.empty(MEMO_N * (MEMO_N + 1) // 2)
    for i in range(lbt.size):
        lbt[i] = math.nan
    retune = True
    since, rescues, above1 = np.int64(0), np.int64(0), np.int64(0)
    cum, j = 0.0, np.int64(0)  # not a literal 0: play compiles once
    for t in range(1, n + 1):
        if retune:  # new thresholds from the posteriors (any thresholds give the exact law)
            _tune(K, a, b, S, N, fx, taus, scnt, big, nbig, lbt)
            _place(a, b, S, N, it, ix, fx, perm, start, taus, ctr, smemo)
            retune = False
            since, rescues, above1 = 0, 0, 0
            stats[0] += 1
        r0 = stats[4]
        path = _select(t, K, a, b, S, N, it, ix, fx, mass, perm, start, rb, wb, res, taus,
                       taken, sel, pkey, ctr, stats, dl, smemo)  # fmt: skip
        since += 1
        above1 += stats[4] - r0  # samples known: those above tau1 and the heads' (level 1)
        if path > 0:
            rescues += 1
        cum, j, nobs, last = play(
            t, S, N, ukey, cum, j, code, attract, satisfy, gamma, K, order, fstar, checkpoints,
            sel, lst, clicks, scratch, trace, regret_out,
        )  # fmt: skip
        for k in range(nobs):
            e = np.uint64(lst[k])  # an item id, unsigned: no negative-index fix on its reads
            ae, be = a + S[e], b + (N[e] - S[e])
            n_e = N[e]
            n_o = n_e - 1  # the census: from the state before this observation
            if n_o < MEMO_N:
                scnt[n_o * (n_o + 1) // 2 + S[e] - (1 if k == last else 0)] -= 1
                if n_e < MEMO_N:
                    scnt[n_e * (n_e + 1) // 2 + S[e]] += 1
                else:
                    big[nbig] = e
                    nbig += 1
            if n_e < MEMO_N:  # log B from the states' table
                fx[e, JLB] = _state_lbeta(lbt, n_e * (n_e + 1) // 2 + S[e], ae, be)
            else:
                u = (ix[e, JUPD] + 1) % REFRESH
                ix[e, JUPD] = u
                if u == 0:
                    fx[e, JLB] = _lbeta(ae, be)
                elif k == last:  # the click: a - 1 -> a
                    fx[e, JLB] += math.log((ae - 1.0) / (ae + be - 1.0))
                else:
                    fx[e, JLB] += math.log((be - 1.0) / (ae + be - 1.0))
            it[e, IA], it[e, IB] = ae, be
            _update(e, ae, be, fx[e, JLB], 0, taus, it, ix, perm, start, smemo, a, b)
            if ix[e, JFLAG] == 0:  # level 2: when next used
                ix[e, JFLAG] = 1
                dl[ctr[1]] = e
                ctr[1] += 1
        # re-choose after an O(L) completion, or when the second level is used too often or
        # the samples above tau1 are too few or too many on average
        if path == 2 or (
            since >= 64
            and (
                rescues * RESC > since or above1 > 3 * (K + T1) * since or above1 < (K + 1) * since
            )
        ):
            retune = True
    finish(N, counts_out)
