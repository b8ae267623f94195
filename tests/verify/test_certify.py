"""The interval branch-and-bound certifier on inequalities with known answers."""

import mpmath
from hypothesis import example, given, settings
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
    # x >= 0 on [0, 1] written as x * x / x-like dependency: enclosure of x - x*x/(1) at 0 is tight
    c = certify(lambda ctx, x: x - x * x, ("x",), max_boxes=60)
    # 0 and 1 are roots: boxes touching them cannot be certified by this naive enclosure
    assert c.status in ("holds", "undecided")
    assert 0.5 < c.coverage <= 1.0
    if c.status == "undecided":
        assert c.boxes_left > 0 and c.left


def test_box_argument_and_params():
    c = certify(
        lambda ctx, p: p - 0.1,
        ("p",),
        box=[(0.2, 0.9)],
        max_boxes=10,
        to_params=lambda p: {"prob": p},
    )
    assert c.status == "holds"


@settings(max_examples=60, deadline=None)
@given(st.floats(0.0, 1.0), st.floats(0.0, 1.0), st.floats(1e-6, 0.2), st.floats(1e-6, 0.2))
@example(0.1, 0.1, 0.05, 0.05)  # overlapping boxes
@example(0.0, 0.5, 0.1, 0.1)  # p box touching 0
@example(0.5, 0.9, 0.01, 0.1)  # q box touching 1
def test_kl_box_encloses_corners_and_interior(p, q, wp, wq):
    P = [p, min(p + wp, 1.0)]
    Q = [q, min(q + wq, 1.0)]
    enc = kl_box(mpmath.iv.mpf(P), mpmath.iv.mpf(Q))
    for a in (P[0], P[1], (P[0] + P[1]) / 2):
        for b in (Q[0], Q[1], (Q[0] + Q[1]) / 2):
            v = kl_mp(a, b, dps=30)
            assert enc.a <= v <= enc.b or (mpmath.isinf(v) and enc.b == mpmath.inf)
