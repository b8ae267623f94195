"""The default run's smaller sizes (budget < 2) still catch planted errors; budget 2 restores
the larger sizes and ``--full`` (budget 8) the widest."""

import pytest

from cascading_bandits.verify import claims_discussion as D
from cascading_bandits.verify import claims_peeling as P
from cascading_bandits.verify.registry import get_claim
from cascading_bandits.verify.verdict import FAILS, HOLDS


@pytest.mark.parametrize(
    "module, name, claim_id",
    [
        (P, "lemma2_normalised_slack", "lemma2.k2"),
        (D, "kl_quadratic_slack", "discussion.kl_quadratic"),
    ],
)
def test_default_certificate_box_catches_a_planted_error(monkeypatch, module, name, claim_id):
    # a slack lowered by 0.2 is negative somewhere in the default box (the smallest midpoint
    # slack there is 0.16 and 0.07): the certificate must find the point, not run out of boxes
    real = getattr(module, name)
    monkeypatch.setattr(module, name, lambda ctx, *a: real(ctx, *a) - 0.2)
    v = get_claim(claim_id).run(examples=1, seed=0)
    assert v.status == FAILS and v.counterexample is not None


def test_certificate_boxes_follow_the_budget():
    v = get_claim("lemma2.k2").run(examples=1, seed=0)
    assert v.status == HOLDS
    assert v.domain_spec["box"]["p"] == list(P.LEMMA2_K2_BOX_SMALL[0])
    assert P.LEMMA2_K2_BOX_SMALL[0][0] > P.LEMMA2_K2_BOX[0][0] >= P.LEMMA2_K2_BOX_WIDE[0][0]
    assert D.KLQ_BOX_SMALL[0][0] > D.KLQ_BOX[0][0] > D.KLQ_BOX_WIDE[0][0]


def test_lemma2_integral_default_catches_a_wrong_integral(monkeypatch):
    # an integral half its value falls below the lower Riemann sum (the first step)
    real = P._chord_integral

    def inflated(p, dK, d1):
        val, err, bound = real(p, dK, d1)
        return val * 0.5, err, bound

    monkeypatch.setattr(P, "_chord_integral", inflated)
    v = get_claim("lemma2.integral").run(examples=50, seed=0)
    assert v.status == FAILS
    assert v.instances <= 10  # the default tier: 7 pinned cases + a fifth of the examples


def test_symbolic_identities_are_decided_exactly():
    assert all(P.lemma2_rewrite_identity(K) == 0 for K in range(1, 5))
    assert all(P.ucb1_sos_identity(K) == 0 for K in range(1, 5))
    assert P.kl_shift_derivatives() == (0, 0)


def test_rational_field_decides_a_false_identity_as_nonzero():
    """The field the identities are computed in reduces to 0 only what is identically 0:
    Lemma 2's two forms with one coefficient changed, and the sum-of-squares form with a
    square dropped, are nonzero rational functions."""
    F, a, b, c = P._rational_field(["a", "b", "c"])
    assert a / b + c / b - (a + c) / b == 0
    assert (a + 1) / (b * c) - a / (b * c) != 0
    d1, d2, k1, k2 = P._rational_field(["d1", "d2", "k1", "k2"])[1:]
    lhs = d1 / k1 + d2 * (1 / k2 - 1 / k1)
    assert lhs - ((d1 - d2) / k1 + d2 / k2) == 0  # K = 2 by hand
    assert lhs - ((d1 - d2) / k1 + d1 / k2) != 0  # the wrong last term
    _, dK, r1 = P._rational_field(["DeltaK", "r1"])
    d = [dK / r1, dK]
    bracket = d[0] / d[0] ** 2 + d[1] * (1 / d[1] ** 2 - 1 / d[0] ** 2)
    assert 2 - dK * bracket - (r1 + (1 - r1) ** 2) == 0  # ucb1_sos_identity(2) by hand
    assert 2 - dK * bracket - r1 != 0  # without the square
