"""verify.claims_profile: the proof-chain claims hold, and a wrong step is caught."""

import numpy as np

from cascading_bandits import verify
from cascading_bandits.verify import claims_profile as CP
from cascading_bandits.verify.registry import CheckContext
from cascading_bandits.verify.verdict import FAILS, HOLDS

PROFILE_CLAIMS = (
    "profile.theorem1_upper",
    "profile.theorem1_lower",
    "profile.theorem1_exact",
    "profile.observation_identity",
    "profile.tau_ucb1",
    "profile.counting",
    "profile.bad_ucb1",
    "profile.bad_klucb",
    "profile.mbar_klucb",
)


def _ctx(seed=0, budget=0.5):
    return CheckContext(examples=1, rng=np.random.default_rng(seed), budget=budget)


def test_registered_and_available():
    ids = {c.id for c in verify.available_claims()}
    assert set(PROFILE_CLAIMS) <= ids


def test_a_claim_holds_with_its_domain():
    v = verify.get_claim("profile.tau_ucb1").run(examples=1, seed=3, budget=0.5)
    assert v.status == HOLDS
    assert v.domain_spec["orders"] == ["best-first", "worst-first"]
    assert v.instances == 2 * 2 * 40  # 2 instances x 2 orders x 40 runs at budget 0.5


def test_wrong_theorem1_upper_is_caught():
    """R_good <= 0.8 sum Delta #G_good is false (Theorem 1's sum exceeds R_good by ~5-20%)."""
    out = CP._check(
        _ctx(),
        ("cascade-ucb1",),
        lambda pc, e: (pc.regret - pc.regret_bad, 0.8 * CP._dsum(pc, pc.G_good)),
        "expectation",
    )
    assert out.status == FAILS and out.counterexample is not None


def test_wrong_equality_is_caught():
    out = CP._check(
        _ctx(1), ("cascade-klucb",), lambda pc, e: (1.1 * pc.thm1_exact, pc.regret), "equality"
    )
    assert out.status == FAILS


def test_wrong_identity_is_caught():
    """T_n(e) counts T_0 = 1: sum_e* #G = T_n(e) (without the -1) is false in every run."""

    def link(pc, e):
        order = np.lexsort((np.arange(len(pc.weights)), -np.array(pc.weights)))
        d = np.abs(pc.G.sum(axis=2) - pc.T[:, order[pc.K :]]).sum(axis=1)
        return d, 0.0

    assert CP._check(_ctx(2), ("cascade-ucb1",), link, "pathwise").status == FAILS


def test_wrong_tau_is_caught(monkeypatch):
    """A threshold tau 50 times too small fails the claim of its step. (At the verify horizons
    T_n(e) stays far below tau / 4, so smaller errors in tau are not visible there.)"""
    from cascading_bandits.bounds import profile

    real = profile.proof_thresholds

    def small(*a, **k):
        tau, eps = real(*a, **k)
        return tau / 50, eps

    monkeypatch.setattr(profile, "proof_thresholds", small)
    fn = verify.get_claim("profile.tau_ucb1").check
    assert fn(_ctx(4)).status == FAILS
