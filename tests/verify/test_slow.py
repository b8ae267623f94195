"""Wider interval certificates and bigger Monte-Carlo runs (``pytest -m slow``).

Same code paths as the default run (tests/verify/test_registry.py), on larger domains.
"""

import pytest

from cascading_bandits.verify.registry import get_claim


@pytest.mark.slow
@pytest.mark.parametrize("claim_id", ["lemma2.k2", "discussion.kl_quadratic"])
def test_wide_certificates(claim_id):
    v = get_claim(claim_id).run(examples=10, seed=0, budget=8.0)
    assert v.status == "holds", (v.coverage, v.notes)
    assert v.coverage == 1.0


@pytest.mark.slow
@pytest.mark.parametrize("claim_id", ["theorem2.mc", "theorem3.mc"])
def test_bigger_monte_carlo(claim_id):
    v = get_claim(claim_id).run(examples=10, seed=0, budget=4.0)
    assert v.status == "holds", v.notes
