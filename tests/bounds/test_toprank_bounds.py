"""[LS20] Theorem 32.2 (TopRank) and Assumption 32.1: bounds.toprank and its registration.

Each formula is evaluated by hand (mpmath, 40 digits) on one instance, w = (0.9, 0.6, 0.3,
0.2, 0.1, 0.05), K = 2, n = 1000, delta = 1/n (the numbers are in docs/toprank.md); the
terms derived from the proof are checked against what they are made of (eq. (32.5) with
Lemma 32.4; the pair count); monotonicity in n and in the gaps; Assumption 32.1 by
enumerating every list against the closed-form conditions, per click model.
"""

import math

import mpmath as mp
import numpy as np
import pytest

from cascading_bandits.bounds import toprank as T
from cascading_bandits.bounds.instance import CascadeInstance, b_lb
from cascading_bandits.bounds.registry import PremiseError, get_bound, model_view

W = (0.9, 0.6, 0.3, 0.2, 0.1, 0.05)
K, N = 2, 1000


def _mp_c():
    return 4 * mp.sqrt(2 / mp.pi) / mp.erf(mp.sqrt(2))


def test_the_constant_of_exercise_20_11():
    with mp.workdps(40):
        c = _mp_c()
        assert T.EXERCISE_20_11_C == pytest.approx(float(c), rel=1e-15)
    # the book prints "approximately 3.43"; the formula gives 3.34 (docs/toprank.md)
    assert round(T.EXERCISE_20_11_C, 2) == 3.34


def test_threshold_by_hand_and_vectorised():
    with mp.workdps(40):
        want = float(mp.sqrt(8 * mp.log(_mp_c() * 2 / mp.mpf("0.1"))))  # N = 4, delta = 0.1
    assert T.toprank_threshold_scalar(4.0, 0.1) == pytest.approx(want, rel=1e-14)
    assert want == pytest.approx(5.798484763675106, rel=1e-14)
    ns = np.array([[1, 2], [10, 1000]])
    vec = T.toprank_threshold(ns, 0.01)
    assert vec.shape == (2, 2)
    for a, b in zip(ns.ravel(), vec.ravel(), strict=True):
        assert T.toprank_threshold_scalar(float(a), 0.01) == b
    assert T.toprank_threshold_scalar(0.0, 0.1) == math.inf  # no observation, no edge
    assert np.all(np.diff(T.toprank_threshold(np.arange(1, 100), 0.1)) > 0)
    for bad in (0, -1, 1.5, np.nan):
        with pytest.raises(ValueError):
            T.toprank_threshold(bad, 0.1)
    for bad in (0.0, 1.0, -0.1, np.nan):
        with pytest.raises(ValueError, match="delta"):
            T.toprank_threshold(3, bad)


def _by_hand(n):
    """(gap-dependent, gap-free, printed gap-free) at delta = 1/n, in mpmath."""
    with mp.workdps(40):
        w = [mp.mpf(str(x)) for x in W]
        L = len(w)
        pairs = [(i, j) for j in range(L) for i in range(min(K, j))]
        lg = mp.log(_mp_c() * mp.sqrt(n) * n)
        coef = sum(6 * (w[i] + w[j]) / (w[i] - w[j]) for i, j in pairs)
        dep = K * L * L + len(pairs) + coef * lg
        free = K * L * L + K * L + mp.sqrt(4 * K**3 * L * n * lg)
        printed = K * K + K + mp.sqrt(4 * K**3 * L * n * lg)
        return float(dep), float(free), float(printed), len(pairs), float(coef)


def test_gap_dependent_bound_by_hand():
    dep, _, _, pairs, coef = _by_hand(N)
    assert pairs == 9 == T.pair_count(len(W), K)
    # 30 + 12 + 18 + 66/7 + 12 + 7.5 + 8.4 + 114/17 + 78/11
    assert coef == pytest.approx(111.12536287242170, rel=1e-14)
    assert T.gap_dependent_pair_sum(W, K) == pytest.approx(coef, rel=1e-14)
    got = T.theorem32_2_gap_dependent(W, K, N)
    assert got == pytest.approx(dep, rel=1e-13)
    assert got == pytest.approx(1366.5764120992074, rel=1e-13)
    # the weights' order does not matter
    assert T.theorem32_2_gap_dependent(W[::-1], K, N) == pytest.approx(got, rel=1e-14)


def test_gap_free_bound_by_hand_and_the_derived_terms():
    _, free, printed, _, _ = _by_hand(N)
    L = len(W)
    got = T.theorem32_2_gap_free(L, K, N)
    assert got == pytest.approx(free, rel=1e-13)
    assert got == pytest.approx(1574.3661084224325, rel=1e-13)
    assert T.theorem32_2_printed_gap_free(L, K, N) == pytest.approx(printed, rel=1e-13)
    # the derived failure term: n m P(F_n) of eq. (32.5) with P(F_n) <= delta ell^2 of
    # Lemma 32.4, the same in both displays; delta = 1/n makes it K L^2
    for n, d in ((N, None), (N, 0.01), (37, 0.2)):
        delta = 1 / n if d is None else d
        assert T.failure_term(L, K, n, d) == pytest.approx(n * K * delta * L * L, rel=1e-15)
    dep_minus_sum = T.theorem32_2_gap_dependent(W, K, N) - T.gap_dependent_pair_sum(
        W, K
    ) * T.log_term(N)
    assert dep_minus_sum == pytest.approx(K * L * L + T.pair_count(L, K), rel=1e-12)
    # what the garbled print changes: delta n K (L^2 - K) + K (L - 1)
    ns = np.array([1, 10, 1000, 10**6])
    for d in (None, 0.05):
        delta = 1 / ns if d is None else d
        diff = T.theorem32_2_gap_free(L, K, ns, d) - T.theorem32_2_printed_gap_free(L, K, ns, d)
        np.testing.assert_allclose(diff, delta * ns * K * (L * L - K) + K * (L - 1), rtol=1e-9)


@pytest.mark.parametrize("L,Kk", [(1, 1), (5, 1), (6, 2), (6, 6), (40, 7)])
def test_pair_count(L, Kk):
    want = sum(1 for j in range(1, L + 1) for i in range(1, min(Kk, j - 1) + 1))
    assert T.pair_count(L, Kk) == want <= Kk * L
    if L > Kk:
        assert want == Kk * L - Kk * (Kk + 1) // 2


def test_monotone_in_n_and_in_the_gaps():
    ns = np.unique(np.round(np.logspace(0, 8, 200)).astype(np.int64))
    for f in (
        lambda n: T.theorem32_2_gap_dependent(W, K, n),
        lambda n: T.theorem32_2_gap_free(len(W), K, n),
        lambda n: T.theorem32_2_gap_dependent(W, K, n, delta=0.01),
        lambda n: T.theorem32_2_gap_free(len(W), K, n, delta=0.01),
    ):
        v = f(ns)
        assert np.all(np.isfinite(v)) and np.all(np.diff(v) > 0)
    # a larger gap (item 3 less attractive) gives a smaller bound; a smaller one a larger
    base = T.theorem32_2_gap_dependent(W, K, N)
    assert T.theorem32_2_gap_dependent((0.9, 0.6, 0.25, 0.2, 0.1, 0.05), K, N) < base
    assert T.theorem32_2_gap_dependent((0.9, 0.6, 0.55, 0.2, 0.1, 0.05), K, N) > base
    # and the bound grows without limit as Delta_23 -> 0
    assert T.theorem32_2_gap_dependent((0.9, 0.6, 0.6 - 1e-9, 0.2, 0.1, 0.05), K, N) > 1e9


def test_vectorised_equals_scalar_and_shapes():
    ns = np.array([[1, 5], [100, 12345]])
    for f in (
        lambda n: T.theorem32_2_gap_dependent(W, K, n),
        lambda n: T.theorem32_2_gap_free(6, K, n),
        lambda n: T.log_term(n),
        lambda n: T.failure_term(6, K, n),
    ):
        v = f(ns)
        assert v.shape == ns.shape
        for a, b in zip(ns.ravel(), v.ravel(), strict=True):
            s = f(int(a))
            assert isinstance(s, float) and s == pytest.approx(b, rel=1e-15)


def test_bad_inputs_are_refused():
    with pytest.raises(ValueError, match="tie"):
        T.theorem32_2_gap_dependent((0.9, 0.6, 0.6, 0.1), 2, 10)
    with pytest.raises(ValueError, match="tie"):
        T.theorem32_2_gap_dependent((0.9, 0.9, 0.6, 0.1), 2, 10)
    # ties below position K are no summed pair
    assert T.theorem32_2_gap_dependent((0.9, 0.6, 0.3, 0.3), 2, 10) > 0
    for call in (
        lambda: T.theorem32_2_gap_dependent((0.9, 1.2), 1, 10),
        lambda: T.theorem32_2_gap_dependent((0.9, 0.5), 3, 10),
        lambda: T.theorem32_2_gap_dependent((), 1, 10),
        lambda: T.theorem32_2_gap_dependent(W, K, 0),
        lambda: T.theorem32_2_gap_dependent(W, K, [10, 2.5]),
        lambda: T.theorem32_2_gap_free(6, K, 10, delta=1.0),
        lambda: T.theorem32_2_gap_free(6, 0, 10),
        lambda: T.theorem32_2_gap_free(6, K, np.nan),
        lambda: T.click_probabilities("ubm", [0, 1], W),
        lambda: T.click_probabilities("cascade", [0, 0], W),
        lambda: T.click_probabilities("cascade", [0, 9], W),
        lambda: T.click_probabilities("pbm", [0, 1], W),
        lambda: T.click_probabilities("pbm", [0, 1], W, kappa=[1.0]),
        lambda: T.click_probabilities("cascade", [0, 1], W, nu=0.5),
        lambda: T.click_probabilities("dcm", [0, 1], W, lam=[0.5, 1.5]),
        lambda: T.assumption_32_1_violation("cascade", W, K, parts="bx"),
        lambda: T.assumption_32_1_violation("cascade", tuple(np.linspace(0.9, 0.1, 12)), 6),
    ):
        with pytest.raises(ValueError):
            call()


def test_click_probabilities_by_hand():
    a = (0.5, 0.2, 0.4)
    assert T.click_probabilities("cascade", [2, 0], a) == pytest.approx([0.4, 0.6 * 0.5])
    assert T.click_probabilities("pbm", [2, 0], a, kappa=[1.0, 0.5]) == pytest.approx([0.4, 0.25])
    got = T.click_probabilities("dbn", [2, 0], a, nu=0.5, gamma=0.8)
    assert got == pytest.approx([0.4, 0.5 * 0.8 * (1 - 0.4 * 0.5)])
    got = T.click_probabilities("dcm", [2, 0, 1], a, lam=[0.3, 0.6, 0.9])
    r2 = 1 - 0.4 * 0.7
    assert got == pytest.approx([0.4, 0.5 * r2, 0.2 * r2 * (1 - 0.5 * 0.4)])
    # nu = gamma = 1 and lam = 0 are the cascade user
    for lst in ([0, 1, 2], [2, 1, 0]):
        c = T.click_probabilities("cascade", lst, a)
        assert T.click_probabilities("dbn", lst, a) == pytest.approx(c)
        assert T.click_probabilities("dcm", lst, a, lam=[0, 0, 0]) == pytest.approx(c)


def _random_case(rng, model):
    L = int(rng.integers(3, 7))
    k = int(rng.integers(1, min(4, L) + 1))
    w = rng.uniform(0, 1, L)
    kw = {}
    if model == "pbm":
        kap = rng.uniform(0, 1, k)
        kw["kappa"] = np.sort(kap)[::-1] if rng.random() < 0.5 else kap
    elif model == "dbn":
        kw["nu"] = float(rng.uniform(0, 1))
        kw["gamma"] = float(rng.uniform(0.05, 1))
    elif model == "dcm":
        lam = rng.uniform(0, 1, k)
        kw["lam"] = np.sort(lam)[::-1] if rng.random() < 0.5 else lam
    return w, k, kw


@pytest.mark.parametrize("model", T.MODELS)
def test_assumption_32_1_closed_form_agrees_with_enumeration(model):
    """Sufficient condition met: no list breaks (b)-(d). Not met (distinct attractiveness,
    pbm and dcm): part (b) fails, so the condition is also necessary there."""
    rng = np.random.default_rng(11)
    held = broke = 0
    for _ in range(60):
        w, k, kw = _random_case(rng, model)
        reason = T.assumption_32_1_reason(model, w, k, **kw)
        found = T.assumption_32_1_violation(model, w, k, **kw)
        if reason is None:
            assert found is None, (w, k, kw, found)
            held += 1
        else:
            assert found is not None and found.startswith("(b)"), (w, k, kw, reason)
            broke += 1
    assert held >= 20
    if model in ("pbm", "dcm"):
        assert broke >= 5


def test_assumption_32_1_counterexamples_by_hand():
    # pbm with kappa increasing: swapping the top two gains clicks, (b) fails
    why = T.assumption_32_1_violation("pbm", (0.9, 0.6, 0.3), 2, kappa=(0.5, 0.9))
    assert why.startswith("(b)") and "0.99" in why and "1.11" in why  # 0.45 + 0.54, 0.3 + 0.81
    assert "kappa_1" in T.assumption_32_1_reason("pbm", (0.9, 0.6, 0.3), 2, kappa=(0.5, 0.9))
    # with a tie at the top the same kappa breaks nothing (the condition is only sufficient)
    assert T.assumption_32_1_violation("pbm", (0.6, 0.6, 0.3), 2, kappa=(0.5, 0.9)) is None
    # dcm going on after a click likelier at position 2 than 1 (K = 3): (b) fails
    why = T.assumption_32_1_violation("dcm", (0.9, 0.6, 0.3, 0.1), 3, lam=(0.2, 0.9, 0.5))
    assert why.startswith("(b)")
    assert T.assumption_32_1_violation("dcm", (0.9, 0.6, 0.3, 0.1), 3, lam=(0.9, 0.2, 0.5)) is None
    # dbn with per-item nu: item 1 less attractive but far more satisfying breaks (c)
    why = T.assumption_32_1_violation("dbn", (0.9, 0.8, 0.1), 2, nu=(0.1, 1.0, 1.0))
    assert why.startswith("(c)")
    assert T.assumption_32_1_reason("dbn", (0.9, 0.8, 0.1), 2, nu=(0.1, 1.0, 1.0)) is not None
    assert T.assumption_32_1_reason("dbn", (0.9, 0.8, 0.1), 2, nu=0.1, gamma=0.5) is None


def test_assumption_32_1_part_d_on_a_click_function():
    """Two equally attractive items whose order changes the second position's clicks."""
    al = (0.5, 0.5, 0.1)

    def v(a):
        return [al[a[0]], al[a[1]] * (0.5 if a[0] == 1 else 1.0)]

    assert T.assumption_32_1_violation(v, al, 2, parts="d").startswith("(d)")
    assert T.assumption_32_1_violation(v, al, 2).startswith("(b)")  # (b) is checked first
    assert T.assumption_32_1_violation(lambda a: [al[a[0]], al[a[1]]], al, 2) is None
    with pytest.raises(ValueError, match="no model parameters"):
        T.assumption_32_1_violation(v, al, 2, nu=0.5)
    with pytest.raises(ValueError, match="K = 2 finite"):
        T.assumption_32_1_violation(lambda a: [1.0], al, 2)


# ---------------------------------------------------------------------------------------
# the registered bounds
# ---------------------------------------------------------------------------------------
def test_registered_bounds_evaluate_the_formulas():
    inst = CascadeInstance(W, K)
    ns = np.array([1, 10, N, 10**6])
    dep, free = get_bound("toprank"), get_bound("toprank-gapfree")
    np.testing.assert_allclose(dep(inst, ns), T.theorem32_2_gap_dependent(W, K, ns), rtol=1e-15)
    np.testing.assert_allclose(free(inst, ns), T.theorem32_2_gap_free(6, K, ns), rtol=1e-15)
    assert dep(inst, N) == pytest.approx(_by_hand(N)[0], rel=1e-13)
    for b in (dep, free):
        assert b.comparable and b.models == ("cascade", "dbn", "pbm")
        assert b.covers_policy("toprank", {"delta": 1.0})
        assert not b.covers_policy("toprank", {"delta": 0.5})
        assert not b.covers_policy("cascade-klucb", {"c": 3.0})
        assert b.applies(inst, N, "dbn")
    # the gap-dependent bound needs distinct attractiveness down to position K + 1
    blb = b_lb(8, 2, 0.2, 0.15)
    assert "w(1) > ... > w(K) > w(K+1)" in dep.failed_premise(blb)
    with pytest.raises(PremiseError):
        dep(blb, 100)
    assert free.applies(blb) and free(blb, 100) > 0
    assert dep.applies(CascadeInstance((0.9, 0.6, 0.3, 0.3), 2))  # tie below position K + 1
    assert not dep.applies(CascadeInstance((0.9, 0.6, 0.6, 0.3), 2))
    assert dep.applies(CascadeInstance((0.7,), 1))  # no pair at all


def test_the_policy_spec_of_the_bounds_is_the_default_toprank():
    from cascading_bandits.simulate.policies import parse_policy

    for name in ("toprank", "toprank-gapfree"):
        spec = parse_policy(get_bound(name).policy_text())
        assert spec.text == "toprank" and spec["delta"] == 1.0


@pytest.mark.parametrize("name", ["toprank", "toprank-gapfree"])
def test_pbm_is_covered_only_with_non_increasing_examination(name):
    """The PBM premise reads kappa from the model view; without kappa it fails."""
    b = get_bound(name)
    inst = CascadeInstance(W, K)
    assert "PBM users only" in b.failed_premise(inst, N, "pbm")  # bare name: no kappa
    down = model_view("pbm", kappa=(0.9, 0.5))
    assert b.failed_premise(inst, N, down) is None
    assert b(inst, N, model=down) == b(inst, N)  # same value: the reward is the clicks
    assert b.failed_premise(inst, N, model_view("pbm", kappa=(0.7, 0.7))) is None  # ties ok
    up = model_view("pbm", kappa=(0.5, 0.9))
    assert "kappa_1 >= ... >= kappa_K" in b.failed_premise(inst, N, up)
    with pytest.raises(PremiseError, match="PBM users only"):
        b(inst, N, model=up)
    assert "PBM users only" in b.failed_premise(inst, N, model_view("pbm", kappa=(0.9,)))
    # the premise reads nothing under the other models
    assert b.failed_premise(inst, N, model_view("cascade")) is None
    assert "click model (got dcm)" in b.failed_premise(inst, N, model_view("dcm", lam=(0.5, 0.5)))


def test_pbm_premise_agrees_with_enumerating_assumption_32_1():
    """Where the registered premise admits a PBM, Assumption 32.1's parts (b)-(d) hold by
    enumeration of every list, and where it refuses one (distinct attractiveness), (b) fails."""
    rng = np.random.default_rng(3201)
    b = get_bound("toprank-gapfree")
    seen = {True: 0, False: 0}
    for _ in range(60):
        L, k = int(rng.integers(3, 6)), int(rng.integers(2, 4))
        k = min(k, L - 1)
        w = tuple(np.sort(rng.uniform(0.05, 0.95, L))[::-1])
        kappa = tuple(rng.uniform(0.1, 1.0, k))
        ok = b.failed_premise(CascadeInstance(w, k), 100, model_view("pbm", kappa=kappa)) is None
        why = T.assumption_32_1_violation("pbm", w, k, kappa=kappa)
        assert (why is None) == ok, (w, kappa, why)
        seen[ok] += 1
    assert seen[True] >= 5 and seen[False] >= 5


def test_pbm_premise_holds_on_every_real_top_instance():
    from cascading_bandits.simulate.real_instances import real_instance, real_instance_names

    b = get_bound("toprank-gapfree")
    names = list(real_instance_names(top=True))
    assert len(names) == 66
    for name in names:
        r = real_instance(name)
        view = model_view("pbm", kappa=r.kappa[: r.K])
        assert b.failed_premise(CascadeInstance(r.weights, r.K), 10**5, view) is None, name


@pytest.mark.slow
def test_pbm_premise_is_confirmed_by_enumeration_on_a_real_instance():
    """One real instance checked by enumerating Assumption 32.1 (10 documents, 5 positions:
    30,240 lists; about a minute, so in the slow tier: the enumeration's agreement with the
    premise is tested by default on the 60 random PBM instances above)."""
    from cascading_bandits.simulate.real_instances import real_instance, real_instance_names

    r = real_instance(next(iter(real_instance_names(top=True))))
    assert T.assumption_32_1_violation("pbm", r.weights, r.K, kappa=r.kappa[: r.K]) is None
