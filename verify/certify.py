"""Interval branch-and-bound certificates for inequalities over parameter boxes.

A claim ``lhs(x) <= rhs(x)`` for all ``x`` in a box is certified by
enclosing ``slack(x) = rhs(x) - lhs(x)`` over sub-boxes with ``mpmath.iv``
interval arithmetic: a sub-box whose enclosure has lower end ``>= 0`` is
proved (every point of it satisfies the inequality, rounding included);
otherwise the box is bisected along its widest side (in normalised
coordinates), up to a box budget. A box whose enclosure lies below 0, or
whose midpoint has negative slack in 50-digit arithmetic, refutes the claim.
Midpoints are screened in float64 first: one whose float slack is positive by a
wide margin (:data:`SCREEN_MARGIN`) cannot refute, so its 50-digit value is
computed only if it may be the smallest midpoint slack reported. The screen
never certifies anything (only enclosures do), so it cannot turn a false claim
into ``holds``; the reported values are those of evaluating every midpoint.

Slack functions are written once against an arithmetic context
(:data:`IV` for enclosures, :data:`MP` for 50-digit point values), so the
enclosure and the point value come from the same formula. A context's ``one`` is
its number 1: ``ctx.one - p`` is ``1 - p`` without converting the int 1 at
each operation (a third of an interval certificate's time went to mpmath.iv's
conversions). They take
normalised coordinates ``u in [0, 1]^d`` and map them to the paper's
parameters themselves, which lets a domain like ``0 < Delta_2 <= Delta_1 <=
1 - p`` be a unit cube.

Where an inequality is tight on the boundary of its domain (both sides -> 0),
no enclosure can prove it on boxes touching that boundary; the claims then
divide out the common factor analytically or stop the box a stated distance
from the boundary, and the verdict says which.
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass, field
from types import SimpleNamespace

import mpmath
from mpmath import libmp

from cascading_bandits.bounds.kl import _make_kl, _make_log_ratio, kl_iv, kl_mp


def kl_box(p, q):
    """Enclosure of ``kl(p', q')`` over boxes ``p' in p``, ``q' in q`` by monotonicity.

    ``kl(p, q)`` increases in ``q`` and decreases in ``p`` where ``q >= p`` (and the
    reverse where ``q <= p``), so over ordered boxes its range is spanned by two corner
    values; each corner is enclosed by :func:`bounds.kl.kl_iv` on a degenerate interval
    (the same definition as ``kl``), so the enclosure is rigorous and as tight as the
    corners. Overlapping boxes fall back to ``kl_iv`` on the whole box, which is
    defined on every box inside [0, 1]^2 (a box outside raises ``ValueError``).
    """
    p, q = mpmath.iv.mpf(p), mpmath.iv.mpf(q)
    iv = mpmath.iv
    if q.a >= p.b:  # q >= p throughout
        lo = _kl_corner(p.b, q.a)
        hi = _kl_corner(p.a, q.b)
    elif q.b <= p.a:  # q <= p throughout
        lo = _kl_corner(p.a, q.b)
        hi = _kl_corner(p.b, q.a)
    else:
        enc = kl_iv(p, q)
        return iv.mpf([max(0, enc.a), enc.b])
    return iv.mpf([max(0, lo.a), hi.b])


#: corner enclosures already computed, by (precision, p, q) (exact endpoints): neighbouring
#: boxes of a branch-and-bound share corners, and a child box shares half of its parent's
_CORNERS: dict = {}
_CORNERS_MAX = 200_000


def _kl_corner(p, q):
    """``kl_iv`` on the degenerate interval at the exact point (p, q), memoised."""
    key = (mpmath.iv.prec, p._mpi_, q._mpi_)
    got = _CORNERS.get(key)
    if got is None:
        if len(_CORNERS) >= _CORNERS_MAX:
            _CORNERS.clear()
        got = _CORNERS[key] = _kl_point_iv(p, q)
    return got


_ONE = libmp.from_int(1)
_MPI_ONE = (_ONE, _ONE)


def _kl_point_iv(p, q):
    """``kl_iv(p, q)`` on degenerate intervals, the same interval bit for bit, 3x faster.

    Inside the open square ``0 < p, q < 1`` ``kl_iv`` evaluates
    ``p log(p/q) + (1 - p) log((1 - p)/(1 - q))`` with ``mpmath.iv``'s operations; this calls
    the ``libmpi`` functions those operations call, with the same precision and in the same
    order, without ``mpmath.iv``'s conversions and dispatch (two thirds of the time of an
    interval certificate). On the edges (p or q 0 or 1) and for wider intervals it is
    ``kl_iv`` itself.
    """
    prec = mpmath.iv.prec
    (pa, pb), (qa, qb) = p._mpi_, q._mpi_
    if not (
        pa == pb
        and qa == qb
        and libmp.mpf_lt(libmp.fzero, pa)
        and libmp.mpf_lt(pa, _ONE)
        and libmp.mpf_lt(libmp.fzero, qa)
        and libmp.mpf_lt(qa, _ONE)
    ):
        return kl_iv(mpmath.iv.mpf(p), mpmath.iv.mpf(q))
    P, Q = p._mpi_, q._mpi_
    a = libmp.mpi_mul(P, libmp.mpi_log(libmp.mpi_div(P, Q, prec), prec), prec)
    P1 = libmp.mpi_sub(_MPI_ONE, P, prec)
    Q1 = libmp.mpi_sub(_MPI_ONE, Q, prec)
    b = libmp.mpi_mul(P1, libmp.mpi_log(libmp.mpi_div(P1, Q1, prec), prec), prec)
    return mpmath.iv.make_mpf(libmp.mpi_add(a, b, prec))


#: interval context: enclosures over boxes
IV = SimpleNamespace(
    name="iv",
    mpf=mpmath.iv.mpf,
    log=mpmath.iv.log,
    log1p=mpmath.iv.log1p,
    exp=mpmath.iv.exp,
    sqrt=mpmath.iv.sqrt,
    expm1=mpmath.iv.expm1,
    kl=kl_box,
    inf=mpmath.iv.inf,
    one=mpmath.iv.mpf(1),  # [1, 1]: what mpmath.iv makes of the int 1 in `1 - p`, made once
)


def _kl_float_point(p, q):
    """Bernoulli ``kl(p, q)`` in float64 (bounds.kl's one definition, with math's log)."""
    return _KL_FLOAT(float(p), float(q))


_KL_FLOAT = _make_kl(_make_log_ratio(math.log, math.log1p), math.inf)

#: float64 point context: the screen of midpoints (:func:`certify`), never a proof
FLOAT = SimpleNamespace(
    name="float",
    mpf=float,
    log=math.log,
    log1p=math.log1p,
    exp=math.exp,
    sqrt=math.sqrt,
    expm1=math.expm1,
    kl=_kl_float_point,
    inf=math.inf,
    one=1.0,
)

#: a midpoint whose float64 slack exceeds this (relative to 1 + |slack|) is not evaluated at
#: 50 digits while the search runs: float64 rounding of these few-term formulas is ~1e-15,
#: nine orders of magnitude below (see :func:`certify`)
SCREEN_MARGIN = 1e-6

#: point context: 50-digit values at the caller's mp precision
MP = SimpleNamespace(
    name="mp",
    mpf=mpmath.mp.mpf,
    log=mpmath.mp.log,
    log1p=mpmath.mp.log1p,
    exp=mpmath.mp.exp,
    sqrt=mpmath.mp.sqrt,
    expm1=mpmath.mp.expm1,
    kl=kl_mp,
    inf=mpmath.mp.inf,
    one=mpmath.mp.mpf(1),
)


@dataclass
class Certificate:
    """Result of :func:`certify`.

    Attributes
    ----------
    status : {"holds", "fails", "undecided"}
        ``holds``: every box certified; ``fails``: a point with negative slack was found;
        ``undecided``: budget exhausted with boxes left (no counterexample).
    boxes_certified, boxes_left, boxes_examined : int
    coverage : float
        Certified volume / domain volume (normalised coordinates).
    min_lower : float
        Rigorous lower bound on the slack over the certified boxes (min of enclosure lows).
    min_point_slack : float
        Smallest slack evaluated at a box midpoint (50 digits), and ``min_point`` where.
    counterexample : dict or None
    left : list
        Up to five boxes left undecided, with their enclosures (why certification stopped).
    """

    status: str
    boxes_certified: int
    boxes_left: int
    boxes_examined: int
    coverage: float
    min_lower: float
    min_point_slack: float
    min_point: dict
    counterexample: dict | None = None
    left: list = field(default_factory=list)


def _iv_box(box):
    return [mpmath.iv.mpf([lo, hi]) for lo, hi in box]


def _volume(box):
    v = 1.0
    for lo, hi in box:
        v *= hi - lo
    return v


def certify(slack, names, box=None, *, max_boxes=2000, min_width=1e-9, to_params=None, dps=50):
    """Certify ``slack(ctx, *u) >= 0`` for every ``u`` in ``box`` by interval branch and bound.

    Parameters
    ----------
    slack : callable(ctx, *u)
        The slack ``rhs - lhs`` written against a context (:data:`IV`, :data:`MP`).
    names : sequence of str, length d
        Names of the coordinates (for reporting).
    box : sequence of (lo, hi), length d, optional
        The domain in the coordinates ``slack`` takes; default the unit cube.
    max_boxes : int
        Budget of boxes examined.
    min_width : float
        Boxes narrower than this on every side are not split further (left undecided).
    to_params : callable(*u) -> dict, optional
        Maps a point to the paper's parameters for reporting.
    dps : int
        Digits for point evaluations.

    Returns
    -------
    Certificate
    """
    d = len(names)
    if box is None:
        box = [(0.0, 1.0)] * d
    box = [(float(lo), float(hi)) for lo, hi in box]
    if len(box) != d:
        raise ValueError(f"box has {len(box)} sides for {d} coordinates")
    widths0 = [hi - lo for lo, hi in box]
    total = _volume(box)
    report = to_params or (lambda *u: dict(zip(names, u, strict=False)))

    certified_vol = 0.0
    n_cert = 0
    examined = 0
    min_lower = math.inf
    min_point_slack = math.inf
    min_point = {}
    left = []
    skipped = []  # (examined, float64 slack, midpoint) of the midpoints screened out
    min_at = 0
    # largest boxes first: coverage grows fastest
    heap = [(-1.0, 0, box)]
    counter = 1
    while heap:
        if examined >= max_boxes:
            break
        _, _, b = heapq.heappop(heap)
        examined += 1
        enc = slack(IV, *_iv_box(b))
        lo_enc = float(enc.a) if enc.a is not None else -math.inf
        if lo_enc >= 0:
            n_cert += 1
            certified_vol += _volume(b)
            min_lower = min(min_lower, lo_enc)
            continue
        mid = [(lo + hi) / 2 for lo, hi in b]
        screen = _float_slack(slack, mid)
        if screen is not None and screen > SCREEN_MARGIN * (1 + abs(screen)):
            skipped.append((examined, screen, mid))  # positive by far: 50 digits later if needed
            fval = screen
        else:
            fval = _point_slack(slack, mid, dps)
            if fval < min_point_slack:
                min_point_slack, min_point, min_at = fval, report(*mid), examined
        if fval < 0 or float(enc.b) < 0:
            min_point_slack, min_point = _settle(
                slack, skipped, dps, report, min_point_slack, min_point, min_at
            )
            cex = dict(report(*mid), slack=fval)
            return Certificate(
                "fails",
                n_cert,
                len(heap) + 1,
                examined,
                certified_vol / total,
                min_lower,
                min_point_slack,
                min_point,
                counterexample=cex,
            )
        rel = [(hi - lo) / w0 if w0 > 0 else 0.0 for (lo, hi), w0 in zip(b, widths0, strict=False)]
        k = max(range(d), key=lambda i: rel[i])
        lo_k, hi_k = b[k]
        if hi_k - lo_k <= min_width:
            left.append((b, enc))
            continue
        m = (lo_k + hi_k) / 2
        for half in ((lo_k, m), (m, hi_k)):
            nb = list(b)
            nb[k] = half
            heapq.heappush(heap, (-_volume(nb) / total, counter, nb))
            counter += 1
    for _, _, b in heap:
        left.append((b, None))
    min_point_slack, min_point = _settle(
        slack, skipped, dps, report, min_point_slack, min_point, min_at
    )
    n_left = len(left)
    status = "holds" if n_left == 0 else "undecided"
    coverage = 1.0 if n_left == 0 else certified_vol / total  # not 1 - rounding
    shown = []
    for b, enc in left[:5]:
        shown.append(
            {
                "box": {n: [lo, hi] for n, (lo, hi) in zip(names, b, strict=False)},
                "enclosure": None if enc is None else [float(enc.a), float(enc.b)],
            }
        )
    return Certificate(
        status,
        n_cert,
        n_left,
        examined,
        coverage,
        min_lower,
        min_point_slack,
        min_point,
        left=shown,
    )


def _point_slack(slack, mid, dps):
    """The slack at ``mid`` in ``dps``-digit arithmetic, as a float."""
    with mpmath.workdps(dps):
        return float(slack(MP, *[mpmath.mpf(m) for m in mid]))


def _float_slack(slack, mid):
    """The slack at ``mid`` in float64, or None where float64 cannot say (an exception, NaN,
    an infinity)."""
    try:
        v = float(slack(FLOAT, *mid))
    except (ArithmeticError, ValueError, TypeError):
        return None
    return v if math.isfinite(v) else None


def _settle(slack, skipped, dps, report, best, where, at):
    """The smallest midpoint slack and its point, as if every midpoint had been evaluated at
    ``dps`` digits (the first examined wins a tie, as in the search).

    The screened-out midpoints whose float64 slack comes within ``SCREEN_MARGIN`` of the
    smallest candidate are evaluated at ``dps`` digits, in the order examined; the others
    are larger by far more than float64 rounding.
    """
    if not skipped:
        return best, where
    floor = min(best, min(s for _, s, _ in skipped))
    for i, s, mid in skipped:
        if s <= floor + SCREEN_MARGIN * (1 + abs(floor)) * 2:
            v = _point_slack(slack, mid, dps)
            if v < best or (v == best and i < at):
                best, where, at = v, report(*mid), i
    return best, where


def describe_box(names, box) -> str:
    """``"p in [0.001, 0.999], x in [0, 1]"`` for reporting."""
    return ", ".join(f"{n} in [{lo:g}, {hi:g}]" for n, (lo, hi) in zip(names, box, strict=False))
