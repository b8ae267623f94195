"""The interval branch-and-bound certifier on inequalities with known answers."""

import mpmath
import pytest
from _twins import twins
from hypothesis import strategies as st

from cascading_bandits.bounds.kl import kl_mp
from cascading_bandits.verify.certify import certify, kl_box


def test_certifies_true_inequality():
    # x (1 - x) + y^2 >= 0 on the unit square: true everywhere, tight on edges
    c = certify(lambda ctx, x, y: x * (1 - x) + y * y + 1e-3, ("x", "y"), max_boxes=500)
    assert c.status == "holds" and c.coverage == 1.0 and c.boxes_left == 0
    assert c.min_lower >= 0


def test_refutes_false_inequality():
    c = certify(lambda ctx, x: x - 0.3, ("x",), max_boxes=200)
    assert c.status == "fails"
    assert c.counterexample["x"] < 0.3 and c.counterexample["slack"] < 0


def test_refutes_by_midpoint_inside_box():
    # negative only on a thin band around 0.5: found by the midpoint of the first box
    c = certify(lambda ctx, x: (x - 0.5) ** 2 - 1e-6, ("x",), max_boxes=200)
    assert c.status == "fails"
    assert abs(c.counterexample["x"] - 0.5) < 1e-3


def test_tight_boundary_is_undecided_with_partial_coverage():
    # x - x^2 >= 0 on [0, 1] is true but tight at both ends: the naive enclosure of a box
    # [0, h] is [-h^2, h], never certified, so the budget runs out with boxes left at 0 and 1
    c = certify(lambda ctx, x: x - x * x, ("x",), max_boxes=60)
    assert c.status == "undecided" and c.counterexample is None
    assert 0.99 < c.coverage < 1.0 and c.boxes_left == 5 and c.boxes_certified >= 1
    ends = [b["box"]["x"] for b in c.left]
    assert any(lo == 0.0 for lo, _ in ends) and any(hi == 1.0 for _, hi in ends)
    assert all(hi - lo < 1e-3 for lo, hi in ends)  # only thin boxes at the ends are left
    assert c.min_lower >= 0  # what was certified is certified
    # with a margin the same inequality is certified on the whole square
    c = certify(lambda ctx, x: x - x * x + 1e-3, ("x",), max_boxes=200)
    assert c.status == "holds" and c.coverage == 1.0 and c.boxes_left == 0


def test_box_argument_and_params():
    # the box is the slack's own coordinates: p - 0.1 >= 0.1 on [0.2, 0.9], one box
    c = certify(
        lambda ctx, p: p - 0.1,
        ("p",),
        box=[(0.2, 0.9)],
        max_boxes=10,
        to_params=lambda p: {"prob": p},
    )
    assert c.status == "holds" and c.boxes_examined == 1
    assert abs(c.min_lower - 0.1) < 1e-12
    # a counterexample is reported through to_params, at a point of the box
    c = certify(
        lambda ctx, p: p - 0.5,
        ("p",),
        box=[(0.2, 0.9)],
        max_boxes=10,
        to_params=lambda p: {"prob": p, "double": 2 * p},
    )
    assert c.status == "fails"
    cex = c.counterexample
    assert set(cex) == {"prob", "double", "slack"}
    assert 0.2 <= cex["prob"] < 0.5 and cex["double"] == 2 * cex["prob"]
    assert cex["slack"] == pytest.approx(cex["prob"] - 0.5)
    assert c.min_point == {"prob": cex["prob"], "double": cex["double"]}
    # without to_params the coordinates are reported by name
    c = certify(lambda ctx, p, q: p - q, ("p", "q"), max_boxes=10)
    assert c.status == "fails" and set(c.counterexample) == {"p", "q", "slack"}
    assert c.counterexample["p"] < c.counterexample["q"]
    with pytest.raises(ValueError, match="box has 1 sides for 2 coordinates"):
        certify(lambda ctx, p, q: p - q, ("p", "q"), box=[(0, 1)])


# 20 examples in the default run, the 60 it had in the slow tier
@twins(
    20,
    60,
    dict(
        p=st.floats(0.0, 1.0),
        q=st.floats(0.0, 1.0),
        wp=st.floats(1e-6, 0.2),
        wq=st.floats(1e-6, 0.2),
    ),
    examples=[
        (0.1, 0.1, 0.05, 0.05),  # overlapping boxes
        (0.0, 0.5, 0.1, 0.1),  # p box touching 0
        (0.5, 0.9, 0.01, 0.1),  # q box touching 1
    ],
)
def test_kl_box_encloses_corners_and_interior(p, q, wp, wq):
    P = [p, min(p + wp, 1.0)]
    Q = [q, min(q + wq, 1.0)]
    enc = kl_box(mpmath.iv.mpf(P), mpmath.iv.mpf(Q))
    for a in (P[0], P[1], (P[0] + P[1]) / 2):
        for b in (Q[0], Q[1], (Q[0] + Q[1]) / 2):
            v = kl_mp(a, b, dps=30)
            assert enc.a <= v <= enc.b or (mpmath.isinf(v) and enc.b == mpmath.inf)


# 500 random pairs a precision in the default run, the 1500 it had in the slow tier (the
# 104 values, edges and tiny ones included, are the same in both)
@pytest.mark.parametrize("draws", [500, pytest.param(1500, marks=pytest.mark.slow)])
def test_point_corner_is_kl_iv_bit_for_bit(draws):
    """certify's corner enclosures (libmpi calls, no mpmath.iv dispatch) are kl_iv's intervals,
    endpoint for endpoint, inside the square, on its edges and at other precisions."""
    import mpmath
    import numpy as np

    from cascading_bandits.bounds.kl import kl_iv
    from cascading_bandits.verify.certify import _kl_point_iv

    rng = np.random.default_rng(3)
    vals = [*rng.random(40), *(10.0 ** rng.uniform(-300, 0, 30))]
    vals += [*(1 - 10.0 ** rng.uniform(-16, 0, 30)), 0.0, 1.0, 0.5, 1 - 2**-53]
    prec = mpmath.iv.prec
    try:
        for mpmath.iv.prec in (53, 113):
            for _ in range(draws):
                p, q = (mpmath.iv.mpf(float(rng.choice(vals))) for _ in range(2))
                assert _kl_point_iv(p, q)._mpi_ == kl_iv(p, q)._mpi_
    finally:
        mpmath.iv.prec = prec
    wide = mpmath.iv.mpf([0.2, 0.3])  # not a point: kl_iv itself
    assert _kl_point_iv(wide, mpmath.iv.mpf(0.5))._mpi_ == kl_iv(wide, 0.5)._mpi_


def test_midpoint_screen_reports_what_evaluating_every_midpoint_does(monkeypatch):
    """The float64 screen skips 50-digit midpoints that cannot refute; the smallest midpoint
    slack and its point, the counts and the verdict are those of the unscreened search, on a
    claim that holds and on one that fails."""
    from cascading_bandits.verify import certify as C

    def slack(ctx, x, y):
        return ctx.log(1 + x) - x / (1 + x) + (y - 0.3) ** 2 + 1e-4

    def bad(ctx, x, y):
        return slack(ctx, x, y) - 0.01

    for f in (slack, bad):
        got = C.certify(f, ("x", "y"), max_boxes=400)
        monkeypatch.setattr(C, "_float_slack", lambda s, mid: None)  # every midpoint at 50 digits
        ref = C.certify(f, ("x", "y"), max_boxes=400)
        monkeypatch.undo()
        assert got == ref
    assert C.certify(bad, ("x", "y"), max_boxes=400).status == "fails"
