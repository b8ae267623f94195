"""Hypothesis strategies for the bounds tests (instances with a unique optimal set, lists, gaps)."""

from fractions import Fraction

from hypothesis import strategies as st

from cascading_bandits.bounds import CascadeInstance


@st.composite
def instances(draw, max_L=8, min_gap=1e-3):
    """A CascadeInstance with ``w(K) > w(K+1)`` (shuffled order), 2 <= L <= max_L, 1 <= K < L."""
    L = draw(st.integers(2, max_L))
    K = draw(st.integers(1, L - 1))
    cut = draw(st.floats(0.0, 1.0 - min_gap))
    top = draw(st.lists(st.floats(cut + min_gap, 1.0), min_size=K, max_size=K))
    bottom = draw(st.lists(st.floats(0.0, cut), min_size=L - K, max_size=L - K))
    w = draw(st.permutations(top + bottom))
    return CascadeInstance(tuple(w), K)


@st.composite
def fraction_weights(draw, min_L=1, max_L=7, max_den=20):
    """Exact attraction probabilities: a list of Fractions in [0, 1]."""
    L = draw(st.integers(min_L, max_L))
    dens = draw(st.lists(st.integers(1, max_den), min_size=L, max_size=L))
    return [Fraction(draw(st.integers(0, d)), d) for d in dens]


@st.composite
def weights_and_list(draw, max_L=7):
    """(w as Fractions, K, A a K-permutation of range(L))."""
    w = draw(fraction_weights(min_L=1, max_L=max_L))
    L = len(w)
    K = draw(st.integers(1, L))
    A = draw(st.permutations(range(L)))[:K]
    return w, K, list(A)


@st.composite
def sorted_gaps(draw, max_K=8, exact=False):
    """Gaps Delta_1 >= ... >= Delta_K > 0 (floats, or Fractions when exact)."""
    K = draw(st.integers(1, max_K))
    if exact:
        g = draw(
            st.lists(
                st.fractions(Fraction(1, 1000), Fraction(1), max_denominator=1000),
                min_size=K,
                max_size=K,
            )
        )
    else:
        g = draw(st.lists(st.floats(1e-6, 1.0), min_size=K, max_size=K))
    return sorted(g, reverse=True)
