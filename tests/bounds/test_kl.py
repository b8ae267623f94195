"""Bernoulli KL divergence and the KL-UCB index against hand values and 50-digit mpmath."""

import math

import mpmath
import numpy as np
import pytest
from _twins import twins
from hypothesis import example, given, settings
from hypothesis import strategies as st

from cascading_bandits.bounds.indices import klucb_threshold, ucb1_index, ucb1_radius
from cascading_bandits.bounds.kl import kl, kl_iv, kl_mp, klucb_index, klucb_index_mp

probs = st.floats(0.0, 1.0, allow_nan=False)
counts = st.floats(1.0, 1e12, allow_nan=False)
thresholds = st.floats(0.0, 1e4, allow_nan=False)


def test_kl_hand_values():
    # kl(1/2, 1/4) = 1/2 log 2 + 1/2 log(2/3) = 1/2 log(4/3)
    assert kl(0.5, 0.25) == pytest.approx(0.5 * math.log(4 / 3), rel=1e-15)
    assert kl(0.0, 0.5) == pytest.approx(math.log(2), rel=1e-15)
    assert kl(1.0, 0.5) == pytest.approx(math.log(2), rel=1e-15)
    assert kl(0.3, 0.3) == 0.0
    assert kl(0.0, 0.0) == 0.0 and kl(1.0, 1.0) == 0.0
    assert kl(0.0, 1.0) == math.inf and kl(1.0, 0.0) == math.inf
    assert kl(0.2, 1.0) == math.inf and kl(0.2, 0.0) == math.inf


def test_kl_broadcasts():
    out = kl(np.array([[0.1], [0.2]]), np.array([0.3, 0.4, 0.5]))
    assert out.shape == (2, 3)
    assert out[1, 2] == kl(0.2, 0.5)


# default run 60 examples and the pinned cases (the last: subnormal q, where log p - log q
# cancelled), the slow tier 300 (the default had 300)
@twins(
    60,
    300,
    dict(p=probs, q=probs),
    examples=[
        (1e-300, 0.5),
        (0.5, 0.5 + 1e-12),
        (1 - 1e-16, 0.3),
        (4.84716455359152e-282, 2.225073858507e-311),
    ],
)
def test_kl_matches_mpmath(p, q):
    ref = kl_mp(p, q, dps=50)
    got = kl(p, q)
    if mpmath.isinf(ref):
        assert got == math.inf
        return
    # documented float64 accuracy: O(eps * (|q - p| + kl))
    assert abs(mpmath.mpf(got) - ref) <= 8 * 2.0**-53 * (abs(q - p) + ref) + 1e-300


@settings(max_examples=100, deadline=None)
@given(st.floats(0.01, 0.99), st.floats(0.01, 0.99), st.floats(1e-6, 1e-3))
def test_kl_interval_encloses_box(p, q, w):
    box = kl_iv([p, min(p + w, 1.0)], [q, min(q + w, 1.0)])
    for pp in (p, min(p + w, 1.0), p + w / 3):
        for qq in (q, min(q + w, 1.0), q + w / 2):
            pp, qq = min(pp, 1.0), min(qq, 1.0)
            v = kl_mp(pp, qq, dps=30)
            assert box.a <= v <= box.b


def test_klucb_special_cases():
    assert klucb_index(1.0, 5, 3.0) == 1.0
    assert klucb_index(0.3, 5, 0.0) == 0.3
    assert klucb_index(0.3, 0, 3.0) == 1.0  # nothing observed
    assert klucb_index(0.0, 4.0, 2.0) == pytest.approx(-math.expm1(-0.5), rel=1e-15)


# The two mpmath comparisons below cost about 25 ms an example (50- and 30-digit roots):
# the default run draws a few (30 and 15, and the pinned cases), the slow tier
# (``pytest -m slow``) the full count through the same check.


@twins(
    30,
    400,
    dict(mean=probs, count=counts, threshold=thresholds),
    examples=[
        (0.0, 1.0, 1e4),
        (1e-300, 1e12, 1e-300),
        (0.5, 1e12, 1e-10),
        (1 - 1e-16, 1.0, 1e4),
        (0.9999, 1.0, 5.0),
        (1.4140547372146673e-245, 70896345069.48798, 8.055841881291215e-07),
    ],
)
def test_klucb_within_1e12_of_mpmath(mean, count, threshold):
    got = klucb_index(mean, count, threshold)
    ref = klucb_index_mp(mean, count, threshold, dps=50)
    assert abs(mpmath.mpf(got) - ref) <= 1e-12
    assert mean <= got <= 1.0


@twins(15, 200, dict(mean=st.floats(0.0, 0.999), count=counts, threshold=st.floats(1e-3, 1e4)))
def test_klucb_solves_the_equation(mean, count, threshold):
    u = klucb_index(mean, count, threshold)
    if u < 1.0 - 1e-9:
        # count * kl(mean, U) = threshold at the root; compare in the q-direction
        lo = klucb_index_mp(mean, count, threshold * (1 - 1e-9), dps=30)
        hi = klucb_index_mp(mean, count, threshold * (1 + 1e-9), dps=30)
        assert lo - 1e-13 <= u <= hi + 1e-13


# default run 50 examples, the slow tier 200 (the default had 200)
@twins(50, 200, dict(mean=probs, c1=counts, c2=counts, t1=thresholds, t2=thresholds))
def test_klucb_monotone(mean, c1, c2, t1, t2):
    c1, c2 = sorted((c1, c2))
    t1, t2 = sorted((t1, t2))
    # more observations -> smaller index; larger threshold -> larger index
    assert klucb_index(mean, c2, t1) <= klucb_index(mean, c1, t1) + 1e-15
    assert klucb_index(mean, c1, t1) <= klucb_index(mean, c1, t2) + 1e-15


def test_klucb_vectorised_agrees_with_scalar_calls():
    rng = np.random.default_rng(1)
    m, c, t = rng.random(50), rng.integers(1, 10**6, 50), rng.uniform(0, 30, 50)
    vec = klucb_index(m, c, t)
    assert vec.shape == (50,)
    assert all(vec[i] == klucb_index(m[i], c[i], t[i]) for i in range(50))
    assert klucb_index(m[:, None], c[None, :5], 3.0).shape == (50, 5)


@pytest.mark.parametrize(
    "args, msg",
    [
        ((1.5, 1, 1), "mean"),
        ((-0.1, 1, 1), "mean"),
        ((float("nan"), 1, 1), "NaN"),
        ((0.5, -1, 1), "count"),
        ((0.5, 1, -1), "threshold"),
        (("a", 1, 1), "numeric"),
    ],
)
def test_klucb_rejects_bad_input(args, msg):
    with pytest.raises(ValueError, match=msg):
        klucb_index(*args)


def test_kl_rejects_bad_input():
    with pytest.raises(ValueError, match="q"):
        kl(0.5, 1.2)
    with pytest.raises(ValueError, match="p"):
        kl_iv([-0.1, 0.2], 0.5)


def test_small_t_rule():
    # log log t dropped for t <= e, so the threshold is log t there
    assert klucb_threshold(1) == 0.0
    assert klucb_threshold(2) == pytest.approx(math.log(2))
    assert klucb_threshold(3) == pytest.approx(math.log(3) + 3 * math.log(math.log(3)))
    ts = np.arange(1, 200)
    th = klucb_threshold(ts)
    assert (np.diff(th) >= 0).all() and (th >= 0).all()
    assert klucb_threshold(1e5, c=0) == pytest.approx(math.log(1e5))
    # UCB1 radius c_{t-1,s}: zero at t = 1 and 2
    assert ucb1_index(0.25, 3, 1) == 0.25 and ucb1_index(0.25, 3, 2) == 0.25
    assert ucb1_radius(100, 4) == pytest.approx(math.sqrt(1.5 * math.log(100) / 4))
    with pytest.raises(ValueError):
        klucb_threshold(0.5)
    with pytest.raises(ValueError):
        klucb_threshold(10, c=-1)


@settings(max_examples=60, deadline=None)
@given(st.floats(0.0, 1.0), st.floats(0.0, 1.0), st.floats(0.0, 1.0), st.floats(0.0, 1.0))
@example(0.01, 0.99, 0.01, 0.99)  # once raised ComplexResult (log1p of an enclosure below -1)
def test_kl_interval_encloses_wide_boxes(a, b, c, d):
    (p0, p1), (q0, q1) = sorted((a, b)), sorted((c, d))
    box = kl_iv([p0, p1], [q0, q1])
    for pp in np.linspace(p0, p1, 4):
        for qq in np.linspace(q0, q1, 4):
            v = kl_mp(pp, qq, dps=30)
            assert box.a <= v <= box.b
