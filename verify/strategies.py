"""Random instances for the claims: hypothesis strategies (pytest) and seeded samplers (CLI).

Each family comes in two forms built from the same description:

* ``draw_<family>(rng)`` -- one instance from a ``numpy.random.Generator`` (the CLI and
  ``cascading verify --examples N --seed S``: deterministic, no hypothesis machinery);
* ``<family>()`` -- a hypothesis strategy (``@st.composite``) for pytest, which shrinks
  counterexamples.

``HARD_<FAMILY>`` lists known hard cases (tight or degenerate); the CLI always checks
them first and pytest pins them with ``@example``.

Samplers mix log-uniform and uniform draws so that values near 0 and near 1 (where
the paper's inequalities are tight or its quantities blow up) are well represented.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np


def _mixed_unit(rng, lo=1e-6):
    """A number in (0, 1): uniform, log-uniform near 0, or log-uniform near 1 (1/3 each)."""
    u = rng.random()
    if u < 1 / 3:
        return float(rng.uniform(lo, 1 - lo))
    x = float(np.exp(rng.uniform(np.log(lo), 0.0)))
    x = min(max(x, lo), 1 - lo)
    return x if u < 2 / 3 else 1.0 - x


# --------------------------------------------------------------------------
# Lemma 2: p and p_1 >= ... >= p_K > p
# --------------------------------------------------------------------------


def _lemma2_from(p, fracs):
    """Map p in (0,1) and fractions in (0,1] to p_1 >= ... >= p_K in (p, 1]."""
    qs = sorted((p + f * (1.0 - p) for f in fracs), reverse=True)
    qs = [min(q, 1.0) for q in qs]
    return p, [q for q in qs]


def draw_lemma2(rng, K_max=8):
    """(p, p_opt): ``0 < p < p_K <= ... <= p_1 <= 1``, K in 1..K_max."""
    K = int(rng.integers(1, K_max + 1))
    p = _mixed_unit(rng)
    fr = [_mixed_unit(rng) for _ in range(K)]
    p, qs = _lemma2_from(p, fr)
    if qs[-1] <= p:  # rounding at p near 1
        qs[-1] = float(np.nextafter(p, 2.0))
        qs = sorted(qs, reverse=True)
    return p, qs


#: tight or degenerate Lemma 2 instances: p_1 = 1, equal p_k, Delta_K -> 0, p -> 0 with p_K -> 1
HARD_LEMMA2 = [
    (0.2, [1.0, 0.35]),
    (1e-6, [1.0, 0.999]),
    (1e-6, [0.999999]),
    (0.5, [0.5 + 1e-9]),
    (0.3, [0.6, 0.6, 0.6]),
    (0.01, [0.9, 0.5, 0.1, 0.02]),
    (0.999, [0.99999, 0.9999]),
]


# --------------------------------------------------------------------------
# UCB1 peeling and the peeling LP: gaps Delta_1 >= ... >= Delta_K > 0
# --------------------------------------------------------------------------


def draw_gaps_fraction(rng, K_max=8, den=1000):
    """Sorted positive gaps as Fractions ``Delta_1 >= ... >= Delta_K > 0`` in (0, 1]."""
    K = int(rng.integers(1, K_max + 1))
    g = sorted((Fraction(int(rng.integers(1, den + 1)), den) for _ in range(K)), reverse=True)
    return g


HARD_GAPS = [
    [Fraction(1)],
    [Fraction(1), Fraction(1, 1000)],
    [Fraction(1, 2), Fraction(1, 2), Fraction(1, 2)],
    [Fraction(1, 2**k) for k in range(8)],
    [Fraction(3, 10)] * 9 + [Fraction(1, 10)],
]


# --------------------------------------------------------------------------
# Hoeffding step: rational w, sample size s, time t >= s
# --------------------------------------------------------------------------


def draw_hoeffding(rng, s_max=40, t_max=400, den=60):
    w = Fraction(int(rng.integers(0, den + 1)), den)
    s = int(rng.integers(1, s_max + 1))
    t = int(rng.integers(max(s, 1), t_max + 1))
    return w, s, t


HARD_HOEFFDING = [
    (Fraction(1, 2), 1, 1),
    (Fraction(1, 2), 2, 2),
    (Fraction(1, 2), 3, 3),
    (Fraction(1, 2), 4, 4),
    (Fraction(1, 3), 6, 6),
    (Fraction(1, 2), 40, 40),
]


# --------------------------------------------------------------------------
# Cascade instances (weights, K), exact rational, and lists A, B for Lemma 1 / Theorem 1
# --------------------------------------------------------------------------


def draw_rational_weights(rng, L, den=20, ties=True):
    """L attraction probabilities as Fractions; with ``ties`` some values repeat."""
    if ties and rng.random() < 0.3:
        pool = [Fraction(int(rng.integers(0, den + 1)), den) for _ in range(max(1, L // 2))]
        return [pool[int(rng.integers(len(pool)))] for _ in range(L)]
    return [Fraction(int(rng.integers(0, den + 1)), den) for _ in range(L)]


def draw_cascade(rng, L_max=8, den=20):
    """(w, K): rational weights, 1 <= K <= L <= L_max."""
    L = int(rng.integers(1, L_max + 1))
    K = int(rng.integers(1, L + 1))
    return draw_rational_weights(rng, L, den), K


def draw_lists_premise(rng, L, K):
    """A, B in Pi_K(E) with a_i = b_j only if i = j (Lemma 1's premise)."""
    items = list(rng.permutation(L))
    A = [int(x) for x in items[:K]]
    B = []
    for j in range(K):
        # b_j may be a_j or an item not in A and not yet in B
        cand = [A[j]] + [e for e in range(L) if e not in A and e not in B]
        B.append(int(cand[int(rng.integers(len(cand)))]))
    return A, B


def draw_unit_vector(rng, L):
    """A UCB vector U (floats, possibly with ties) for Theorem 1."""
    if rng.random() < 0.3:
        return [float(x) for x in rng.integers(0, 3, size=L)]
    return [float(x) for x in rng.random(L)]


# --------------------------------------------------------------------------
# B_LB(L, K, p, Delta) parameters
# --------------------------------------------------------------------------


def draw_blb(rng, L_max=64):
    K = int(rng.integers(1, 9))
    L = int(rng.integers(K + 1, max(K + 2, L_max) + 1))
    p = _mixed_unit(rng, 1e-4)
    delta = p * _mixed_unit(rng, 1e-4)
    return L, K, p, delta


# --------------------------------------------------------------------------
# hypothesis strategies, built on first use (hypothesis is a test dependency: importing it
# costs the CLI a fifth of a second for nothing)
# --------------------------------------------------------------------------

_STRATEGIES = ("unit_open", "lemma2_instances", "gaps_fraction", "hoeffding_instances",
               "cascades", "lists_premise")  # fmt: skip
_BUILT: dict = {}


def _build_strategies() -> dict:
    from hypothesis import strategies as st

    unit_open = st.one_of(
        st.floats(1e-6, 1 - 1e-6),
        st.floats(-13.8, -1e-9).map(lambda v: float(np.exp(v))),
        st.floats(-13.8, -1e-9).map(lambda v: 1.0 - float(np.exp(v))),
    ).filter(lambda x: 0.0 < x < 1.0)

    @st.composite
    def lemma2_instances(draw, K_max=8):
        K = draw(st.integers(1, K_max))
        p = draw(unit_open)
        fr = draw(st.lists(unit_open, min_size=K, max_size=K))
        p, qs = _lemma2_from(p, fr)
        if not qs[-1] > p:
            qs = [max(q, float(np.nextafter(p, 2.0))) for q in qs]
        return p, qs

    @st.composite
    def gaps_fraction(draw, K_max=8, den=1000):
        K = draw(st.integers(1, K_max))
        g = draw(st.lists(st.integers(1, den), min_size=K, max_size=K))
        return sorted((Fraction(x, den) for x in g), reverse=True)

    @st.composite
    def hoeffding_instances(draw, s_max=40, t_max=400, den=60):
        w = Fraction(draw(st.integers(0, den)), den)
        s = draw(st.integers(1, s_max))
        t = draw(st.integers(s, t_max))
        return w, s, t

    @st.composite
    def cascades(draw, L_max=8, den=20):
        L = draw(st.integers(1, L_max))
        K = draw(st.integers(1, L))
        w = draw(st.lists(st.integers(0, den), min_size=L, max_size=L))
        return [Fraction(x, den) for x in w], K

    @st.composite
    def lists_premise(draw, L, K):
        perm = draw(st.permutations(range(L)))
        A = list(perm[:K])
        B = []
        for j in range(K):
            cand = [A[j]] + [e for e in range(L) if e not in A and e not in B]
            B.append(draw(st.sampled_from(cand)))
        return A, B

    made = locals()
    return {name: made[name] for name in _STRATEGIES}


def __getattr__(name):
    if name in _STRATEGIES:
        if not _BUILT:
            _BUILT.update(_build_strategies())
        return _BUILT[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
