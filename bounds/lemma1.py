"""Lemma 1 of the paper (modular decomposition), symbolically and in exact arithmetic.

Lemma 1 (Section 4.1, proof in Appendix B). Let ``A = (a_1, ..., a_K)`` and
``B = (b_1, ..., b_K)`` be K-permutations of the ground set with ``a_i = b_j``
only if ``i = j``, and let ``w ~ P`` satisfy Assumption 1 (independent
Bernoulli weights). Then

    E[prod_k w(a_k) - prod_k w(b_k)]
        = sum_k E[prod_{i<k} w(a_i)] E[w(a_k) - w(b_k)] prod_{j>k} E[w(b_j)].

The proof has two parts, both encoded here:

1. the polynomial identity
   ``prod_k x_k - prod_k y_k = sum_k (prod_{i<k} x_i) (x_k - y_k) (prod_{j>k} y_j)``
   for any numbers ``x_k = w(a_k)``, ``y_k = w(b_k)`` (:func:`lemma1_identity`,
   :func:`prove_lemma1`; its induction step, equality by equality:
   :func:`lemma1_induction_chain`, :func:`prove_lemma1_induction_step`);
2. taking expectations, each product on the right factorises because the premise
   makes the items in ``a_1..a_{k-1}``, ``{a_k, b_k}`` and ``b_{k+1}..b_K`` distinct
   (:func:`lemma1_expectation` evaluates both sides exactly with fractions;
   :func:`lemma1_terms` compares each term's expectation with its factorised form).

Note on the premise. For K-permutations ``A`` and ``B`` the *statement* of Lemma 1
holds even without the premise: its right side is the polynomial identity
evaluated at the means ``x_k = wbar(a_k)``, ``y_k = wbar(b_k)`` (the prefix
``a_1..a_{k-1}`` has distinct items, so its expectation is the product of means),
which equals ``prod wbar(a_k) - prod wbar(b_k)``, the left side. What the premise
buys is the proof's *term-by-term* factorisation ``E[term_k] = factorised term_k``;
that fails without it (e.g. ``A = (0, 1)``, ``B = (2, 0)``: see :func:`lemma1_terms`)
although the sums still agree.

The paper states the identity "for any w in {0, 1}^L"; it is a polynomial
identity, so it holds for all real (indeed commutative-ring) values.
"""

from __future__ import annotations

import itertools
import math
import numbers
from fractions import Fraction
from typing import TYPE_CHECKING

import numpy as np

from cascading_bandits.bounds import _validate as V

if TYPE_CHECKING:  # sympy is imported where used: `import bounds` stays light for the simulator
    import sympy

__all__ = [
    "lemma1_symbols",
    "lemma1_lhs",
    "lemma1_rhs",
    "lemma1_identity",
    "prove_lemma1",
    "lemma1_induction_chain",
    "prove_lemma1_induction_step",
    "lemma1_expectation",
    "lemma1_expectation_enumerated",
    "expectation_by_enumeration",
    "lemma1_terms",
    "premise_holds",
    "exact_probabilities",
]


#: Largest K of the symbolic proofs: sympy expands a sum of K products of up to 2K factors
#: (K = 64 takes seconds); larger K is refused rather than left to run for hours.
MAX_SYMBOLIC_K = 64


def _check_K(K, minimum=1) -> int:
    K = V.positive_int("K", K, minimum=minimum)  # integer-valued floats and 0-d arrays too
    if K > MAX_SYMBOLIC_K:
        raise ValueError(
            f"K must be an integer in [{minimum}, {MAX_SYMBOLIC_K}] (the size limit of the "
            f"symbolic proof), got {int(K)}"
        )
    return int(K)


def lemma1_symbols(K):
    """Symbols ``x_1..x_K`` (for ``w(a_k)``) and ``y_1..y_K`` (for ``w(b_k)``) as two tuples."""
    import sympy

    K = _check_K(K, 0)
    x = sympy.symbols(f"x1:{K + 1}") if K else ()
    y = sympy.symbols(f"y1:{K + 1}") if K else ()
    return tuple(x), tuple(y)


def _prod(factors):
    import sympy

    out = sympy.Integer(1)
    for f in factors:
        out = out * f
    return out


def _factors(x, y):
    """``x``, ``y`` as two tuples of one length of sympy expressions or real numbers."""
    import sympy

    out = []
    for name, v in (("x", x), ("y", y)):
        if isinstance(v, (str, bytes, dict, set)) or not hasattr(v, "__len__"):
            raise ValueError(
                f"{name} must be a sequence of numbers or sympy expressions, got {V.show(v)}"
            )
        items = list(np.asarray(v, dtype=object).ravel()) if isinstance(v, np.ndarray) else list(v)
        for e in items:
            real = isinstance(e, (numbers.Real, np.integer, np.floating)) and not isinstance(
                e, (bool, np.bool_)
            )
            if not (real and math.isfinite(float(e))) and not isinstance(e, sympy.Expr):
                raise ValueError(
                    f"{name} must hold finite real numbers or sympy expressions, got {V.show(e)}"
                )
        out.append(tuple(e.item() if isinstance(e, np.generic) else e for e in items))
    if len(out[0]) != len(out[1]):
        raise ValueError(f"x and y must have one length K, got {len(out[0])} and {len(out[1])}")
    return out


def lemma1_lhs(x, y):
    """``prod_k x_k - prod_k y_k`` (left side of the identity in the proof of Lemma 1).

    ``x``, ``y``: sequences of one length K of sympy expressions or finite real numbers.
    """
    x, y = _factors(x, y)
    return _prod(x) - _prod(y)


def lemma1_rhs(x, y):
    """``sum_k (prod_{i<k} x_i) (x_k - y_k) (prod_{j>k} y_j)`` (right side of the identity).

    ``x``, ``y`` as in :func:`lemma1_lhs`.
    """
    import sympy

    x, y = _factors(x, y)
    K = len(x)
    return sympy.Add(*[_prod(x[:k]) * (x[k] - y[k]) * _prod(y[k + 1 :]) for k in range(K)])


def lemma1_identity(K) -> sympy.Expr:
    """LHS - RHS of Lemma 1's polynomial identity for lists of length K (unexpanded).

    Returns
    -------
    sympy.Expr
        ``prod_k x_k - prod_k y_k - sum_k (prod_{i<k} x_i)(x_k - y_k)(prod_{j>k} y_j)``
        in the symbols of :func:`lemma1_symbols`; it expands to 0 for every K.
    """
    K = _check_K(K)
    x, y = lemma1_symbols(K)
    return lemma1_lhs(x, y) - lemma1_rhs(x, y)


def prove_lemma1(K) -> bool:
    """Prove Lemma 1's polynomial identity for this K by expanding LHS - RHS to 0 (sympy)."""
    import sympy

    return sympy.expand(lemma1_identity(K)) == 0


def lemma1_induction_chain(K):
    """The chain of equalities of the induction step in Appendix B, for lists of length K.

    With ``P_x = prod_{k<K} x_k``, ``P_y = prod_{k<K} y_k`` and ``S_{K-1}`` the
    identity's right side for length ``K - 1``, the appendix writes

    ====  ==========================================================================
    E0    ``prod_{k<=K} x_k - prod_{k<=K} y_k``
    E1    ``prod_{k<=K} x_k - y_K P_x + y_K P_x - prod_{k<=K} y_k``
    E2    ``(x_K - y_K) P_x + y_K [P_x - P_y]``
    E3    ``(x_K - y_K) P_x + sum_{k<K} (prod_{i<k} x_i)(x_k - y_k)(prod_{k<j<=K} y_j)``
    E4    ``sum_{k<=K} (prod_{i<k} x_i)(x_k - y_k)(prod_{k<j<=K} y_j)``
    ====  ==========================================================================

    E2 = E3 is the induction hypothesis ``P_x - P_y = S_{K-1}``; the others are algebra.

    Returns
    -------
    list of (str, sympy.Expr, sympy.Expr)
        One ``(name, left, right)`` per equality of the chain, with E2's bracket kept
        as the symbol ``H`` and the hypothesis ``H = S_{K-1}`` returned as the
        entry ``"hypothesis"``; the step ``"E2=E3"`` is stated with ``H`` substituted.
    """
    import sympy

    K = _check_K(K)
    x, y = lemma1_symbols(K)
    Px, Py = _prod(x[:-1]), _prod(y[:-1])
    H = sympy.Symbol("H")  # the bracket P_x - P_y of E2, an opaque quantity
    S_prev = lemma1_rhs(x[:-1], y[:-1])
    E0 = _prod(x) - _prod(y)
    E1 = _prod(x) - y[-1] * Px + y[-1] * Px - _prod(y)
    E2_bracket = (x[-1] - y[-1]) * Px + y[-1] * (Px - Py)
    E2_H = (x[-1] - y[-1]) * Px + y[-1] * H
    E3 = (x[-1] - y[-1]) * Px + sympy.Add(
        *[_prod(x[:k]) * (x[k] - y[k]) * _prod(y[k + 1 :]) for k in range(K - 1)]
    )
    E4 = lemma1_rhs(x, y)
    return [
        ("E0=E1", E0, E1),
        ("E1=E2", E1, E2_bracket),
        ("hypothesis", Px - Py, S_prev),
        ("E2=E3", E2_H.subs(H, S_prev), E3),
        ("E3=E4", E3, E4),
    ]


def prove_lemma1_induction_step(K) -> bool:
    """Check symbolically each equality of the appendix's induction step (length K-1 to K).

    Every step is checked by expanding ``left - right`` to 0: the algebraic steps as they
    stand, the step ``E2=E3`` after replacing the opaque bracket ``H`` by the hypothesis'
    right side (see :func:`lemma1_induction_chain`), and the hypothesis itself, i.e. the
    identity at length ``K - 1`` (for K = 1 both of its sides are ``1 - 1`` and the empty
    sum, 0).
    """
    import sympy

    chain = lemma1_induction_chain(K)
    for _name, left, right in chain:
        if sympy.expand(left - right) != 0:
            return False
    return True


# --------------------------------------------------------------------------
# Expectation form, exact
# --------------------------------------------------------------------------


def _exact(name, v) -> Fraction:
    if isinstance(v, bool):
        raise ValueError(f"{name} must be a number in [0, 1], got {V.show(v)}")
    if isinstance(v, Fraction):
        f = v
    elif isinstance(v, numbers.Rational):
        f = Fraction(int(v.numerator), int(v.denominator))
    elif (isinstance(v, numbers.Real) or hasattr(v, "__float__")) and not isinstance(v, str):
        try:
            fv = float(v)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{name} must be a number in [0, 1], got {V.show(v)}") from exc
        if fv != fv or fv in (float("inf"), float("-inf")):
            raise ValueError(f"{name} must be a finite number in [0, 1], got {V.show(v)}")
        f = Fraction(fv)  # exact value of the double
    elif isinstance(v, str):
        try:
            f = Fraction(v)
        except ValueError as exc:
            raise ValueError(f"{name} must be a number in [0, 1], got {V.show(v)}") from exc
    else:
        raise ValueError(f"{name} must be a number in [0, 1], got {V.show(v)}")
    if not 0 <= f <= 1:
        raise ValueError(f"{name} must lie in [0, 1], got {V.show(v)}")
    return f


def exact_probabilities(w) -> list[Fraction]:
    """Convert attraction probabilities to exact fractions (floats by their exact binary value)."""
    if hasattr(w, "w") and hasattr(w, "K") and hasattr(w, "sorted_weights"):
        w = w.weights  # a CascadeInstance
    try:
        items = list(w)
    except TypeError as exc:
        raise ValueError(f"w must be a sequence of probabilities, got {V.show(w)}") from exc
    if not items:
        raise ValueError("w must hold at least one attraction probability")
    return [_exact(f"w[{i}]", v) for i, v in enumerate(items)]


def _check_list(name, A, L=None, *, permutation=True) -> list[int]:
    """Integer item indices (in ``0..L-1`` when L is given); a K-permutation unless told."""
    if isinstance(A, (str, bytes, dict)) or (permutation and isinstance(A, (set, frozenset))):
        raise ValueError(f"{name} must be a list of item indices, got {V.show(A)}")
    try:
        items = list(np.asarray(A).ravel()) if isinstance(A, np.ndarray) else list(A)
    except TypeError as exc:
        raise ValueError(f"{name} must be a list of item indices, got {V.show(A)}") from exc
    out = []
    for a in items:
        if isinstance(a, (bool, np.bool_)) or not isinstance(a, (numbers.Integral, np.integer)):
            raise ValueError(f"{name} must hold integer item indices, got {V.show(a)}")
        if a < 0 or (L is not None and a >= L):
            where = "" if L is None else f" in 0..{L - 1} (L = {L} weights in w)"
            raise ValueError(f"{name} must hold item indices >= 0{where}, got {int(a)}")
        out.append(int(a))
    if not permutation:
        return out
    if not out:
        raise ValueError(f"{name} must hold at least one item")
    if len(set(out)) != len(out):
        raise ValueError(f"{name} must be a K-permutation (no repeated items), got {out}")
    return out


def _check_lists(A, B, w):
    """Exact probabilities and two validated lists of one length K (Lemma 1's inputs)."""
    w = exact_probabilities(w)
    A = _check_list("A", A, len(w))
    B = _check_list("B", B, len(w))
    if len(A) != len(B):
        raise ValueError(f"A and B must have the same length K, got {len(A)} and {len(B)}")
    return w, A, B


def premise_holds(A, B) -> bool:
    """Lemma 1's premise: ``a_i = b_j`` only if ``i = j``.

    ``A``, ``B``: lists of distinct item indices >= 0 (checked; ValueError otherwise).
    """
    A, B = _check_list("A", A), _check_list("B", B)
    return all(a != b for i, a in enumerate(A) for j, b in enumerate(B) if i != j)


def _mean_of_product(items, w):
    # E[prod_{e in items} w(e)] under Assumption 1 for Bernoulli weights: w(e)^m = w(e),
    # so a repeated item contributes its mean once.
    out = Fraction(1)
    for e in set(items):
        out *= w[e]
    return out


def lemma1_expectation(A, B, w, check_premise=True):
    """Both sides of Lemma 1 in exact rational arithmetic.

    Parameters
    ----------
    A, B : sequence of int, length K
        K-permutations of item indices ``0..L-1`` (0-based indices into ``w``).
    w : sequence of numbers in [0, 1], shape (L,), or a CascadeInstance
        Attraction probabilities ``wbar``; Fractions, ints, strings such as ``"1/3"``,
        or floats (converted exactly, by their binary value).
    check_premise : bool
        If True (default), raise ``ValueError`` when ``a_i = b_j`` for some ``i != j``.
        Set False to evaluate both sides anyway and see the counterexample.

    Returns
    -------
    (Fraction, Fraction)
        ``lhs = E[prod_k w(a_k) - prod_k w(b_k)]`` (exact under Assumption 1) and the
        paper's right side ``sum_k E[prod_{i<k} w(a_i)] E[w(a_k) - w(b_k)] prod_{j>k} E[w(b_j)]``.
        Equal whenever the premise holds (Lemma 1).
    """
    w, A, B = _check_lists(A, B, w)
    if not isinstance(check_premise, (bool, np.bool_)):
        raise ValueError(f"check_premise must be True or False, got {V.show(check_premise)}")
    if check_premise and not premise_holds(A, B):
        bad = [(i, j) for i, a in enumerate(A) for j, b in enumerate(B) if i != j and a == b]
        i, j = bad[0]
        raise ValueError(
            f"Lemma 1 needs a_i = b_j only if i = j; got a_{i + 1} = b_{j + 1} = {A[i]} "
            "(pass check_premise=False to evaluate anyway)"
        )
    lhs = _mean_of_product(A, w) - _mean_of_product(B, w)
    rhs = Fraction(0)
    for k in range(len(A)):
        before = _mean_of_product(A[:k], w)
        after = Fraction(1)
        for b in B[k + 1 :]:
            after *= w[b]
        rhs += before * (w[A[k]] - w[B[k]]) * after
    return lhs, rhs


def expectation_by_enumeration(w, items, payoff):
    """``E[payoff(w_t)]`` exactly, under Assumption 1, by summing over ``{0, 1}^items``.

    Parameters
    ----------
    w : sequence, shape (L,)
        Attraction probabilities (converted exactly to Fractions).
    items : iterable of int
        The items the payoff reads (at most 16: the sum has ``2^len(items)`` terms).
    payoff : callable
        ``payoff(val)`` with ``val`` a dict item -> 0/1 outcome; returns a number.
    """
    w = exact_probabilities(w)
    if not callable(payoff):
        raise ValueError(f"payoff must be a callable of the outcomes, got {V.show(payoff)}")
    items = sorted(set(_check_list("items", items, len(w), permutation=False)))
    if len(items) > 16:
        raise ValueError(f"enumeration over 2^{len(items)} outcomes is too large; use <= 16 items")
    total = Fraction(0)
    for bits in itertools.product((0, 1), repeat=len(items)):
        val = dict(zip(items, bits, strict=True))
        prob = Fraction(1)
        for e, bit in val.items():
            prob *= w[e] if bit else 1 - w[e]
        if prob:
            try:
                total += prob * payoff(val)
            except KeyError as exc:  # the payoff read an outcome it was not given
                raise ValueError(
                    f"payoff read item {exc.args[0]!r}, which is not in items {items}"
                ) from None
    return total


def lemma1_expectation_enumerated(A, B, w):
    """``E[prod_k w(a_k) - prod_k w(b_k)]`` by summing over all outcomes of the items involved.

    An independent check of :func:`lemma1_expectation`'s left side: enumerates
    ``{0, 1}^m`` for the ``m`` distinct items of ``A`` and ``B`` (``m <= 2K``; keep it small).
    """
    L = len(exact_probabilities(w))
    A = _check_list("A", A, L)
    B = _check_list("B", B, L)
    return expectation_by_enumeration(
        w, set(A) | set(B), lambda val: int(all(val[a] for a in A)) - int(all(val[b] for b in B))
    )


def lemma1_terms(A, B, w):
    """Each term of Lemma 1's right side: its exact expectation and the paper's factorised form.

    Term k is ``T_k = (prod_{i<k} w(a_i)) (w(a_k) - w(b_k)) (prod_{j>k} w(b_j))``.

    Returns
    -------
    list of (Fraction, Fraction), length K
        ``(E[T_k], E[prod_{i<k} w(a_i)] E[w(a_k) - w(b_k)] prod_{j>k} E[w(b_j)])``, exact
        under Assumption 1 with Bernoulli weights (a repeated item counts once, ``w^2 = w``).
        Equal for every k when the premise holds; the proof of Lemma 1 needs exactly this.
        No premise check: this is the function that shows what the premise is for.
    """
    w, A, B = _check_lists(A, B, w)
    out = []
    for k in range(len(A)):
        head, tail = A[:k], B[k + 1 :]
        exact = _mean_of_product(head + [A[k]] + tail, w) - _mean_of_product(
            head + [B[k]] + tail, w
        )
        after = Fraction(1)
        for b in tail:
            after *= w[b]
        factored = _mean_of_product(head, w) * (w[A[k]] - w[B[k]]) * after
        out.append((exact, factored))
    return out
