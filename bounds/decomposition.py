"""Theorem 1 of the paper (regret decomposition), evaluated exactly.

Setting (Section 4.1). Items are indexed ``0..L-1`` as in ``w`` (0-based; the
paper's items ``1..L`` are these sorted by decreasing attraction). The optimal
items are the K most attractive; ties are broken by the lower index (a stable
sort), which is the paper's "without loss of generality" ordering.

At step t the policy recommends ``A_t``, the K items with the largest UCBs
``U_t`` (:func:`recommended_list`). Theorem 1 then gives

* a permutation ``pi_t`` of the optimal items with ``U_t(a_k) >= U_t(pi_t(k))`` and
  ``w(a_k) <= w(pi_t(k))`` for every position k (:func:`theorem1_permutation`);
* the event ``G_{e,e*,t}`` = {some position k has ``a_k = e``, ``pi_t(k) = e*``, and
  ``a_1..a_{k-1}`` are not attractive}, with
  ``E_t[1{G_{e,e*,t}}] = prod_{i<k} (1 - w(a_i))`` for that k (:func:`event_probabilities`);
* ``E_t[R(A_t, w_t)] = f(A*, w) - f(A_t, w)`` (:func:`conditional_regret`) bounded by

      alpha S <= E_t[R(A_t, w_t)] <= S,   S = sum_{e>K} sum_{e*<=K} Delta_{e,e*} E_t[1{G_{e,e*,t}}],

  with ``alpha = (1 - w(1))^(K-1)`` (:func:`theorem1_bounds`).

Arithmetic. Every function works in exact rational arithmetic when ``w`` holds
``fractions.Fraction`` (or strings such as ``"1/3"``; any Fraction in ``w``
converts the floats beside it exactly), and in float64 otherwise. Results are
Fractions or floats accordingly; arrays are numpy ``object`` arrays of Fractions
in the exact case.
"""

from __future__ import annotations

import numbers
from fractions import Fraction

import numpy as np

from cascading_bandits.bounds import _validate as V
from cascading_bandits.bounds.instance import CascadeInstance
from cascading_bandits.bounds.lemma1 import exact_probabilities

__all__ = [
    "recommended_list",
    "optimal_items",
    "sorted_items",
    "expected_reward",
    "theorem1_permutation",
    "conditional_regret",
    "event_probabilities",
    "theorem1_sum",
    "theorem1_alpha",
    "theorem1_bounds",
    "theorem1_from_ucbs",
]


# -- inputs -----------------------------------------------------------------


def _weights(w, K=None):
    """Return (list of weights, K or None, exact flag)."""
    if isinstance(w, CascadeInstance):
        if K is not None and V.positive_int("K", K) != w.K:
            raise ValueError(f"K = {V.show(K)} disagrees with the instance's K = {w.K}")
        return [float(x) for x in w.weights], w.K, False
    if isinstance(w, (str, bytes)):
        raise ValueError(f"w must be a sequence of probabilities, got the string {V.show(w)}")
    try:
        items = list(w)
    except TypeError as exc:
        raise ValueError(f"w must be a sequence of probabilities, got {V.show(w)}") from exc
    exact = any(isinstance(x, (Fraction, str)) for x in items)
    if exact:
        return exact_probabilities(items), K, True
    arr = V.probabilities("w", items, ndim=1)
    if arr.size == 0:
        raise ValueError("w must hold at least one attraction probability")
    return [float(x) for x in arr], K, False


def _list_size(K, L):
    if K is None:
        raise ValueError("K is required when w is given as a sequence of probabilities")
    return V.list_size(K, L, "the number of weights in w")


def _item_list(A, L, K):
    if isinstance(A, (str, bytes)):
        raise ValueError(f"A must be a list of item indices, got the string {V.show(A)}")
    try:
        items = list(np.asarray(A).ravel()) if isinstance(A, np.ndarray) else list(A)
    except TypeError as exc:
        raise ValueError(f"A must be a list of item indices, got {V.show(A)}") from exc
    out = []
    for a in items:
        if isinstance(a, bool) or not isinstance(a, (numbers.Integral, np.integer)):
            raise ValueError(f"A must hold integer item indices in 0..{L - 1}, got {V.show(a)}")
        if not 0 <= int(a) < L:
            raise ValueError(
                f"A must hold item indices in 0..{L - 1} (L = {L} weights in w), got {int(a)}"
            )
        out.append(int(a))
    if K is not None and len(out) != K:
        raise ValueError(f"A must list exactly K = {K} items, got {len(out)}")
    if len(set(out)) != len(out):
        raise ValueError(f"A must not repeat an item, got {out}")
    return out


def _setup(A, w, K):
    w, K, exact = _weights(w, K)
    K = _list_size(K, len(w))
    A = _item_list(A, len(w), K)
    return A, w, K, exact


def _zero(exact):
    return Fraction(0) if exact else 0.0


def _one(exact):
    return Fraction(1) if exact else 1.0


# -- the objects of Theorem 1 ---------------------------------------------------


def sorted_items(w) -> list[int]:
    """Item indices by decreasing attraction, ties by lower index (the paper's items 1..L).

    Parameters
    ----------
    w : sequence of probabilities (L,) or CascadeInstance
    """
    w, _, _ = _weights(w)
    return sorted(range(len(w)), key=lambda e: -w[e])


def optimal_items(w, K=None) -> list[int]:
    """The K most attractive items (the paper's ``A* = (1, ..., K)``), as 0-based indices."""
    w, K, _ = _weights(w, K)
    K = _list_size(K, len(w))
    return sorted(range(len(w)), key=lambda e: -w[e])[:K]


def recommended_list(U, K, order="decreasing") -> list[int]:
    """``A_t``: the K items with the largest UCBs (Algorithm 1), as 0-based indices.

    Parameters
    ----------
    U : array_like of float, shape (L,)
        UCBs ``U_t(e)`` (any reals; UCB1 indices may exceed 1).
    K : int
    order : {"decreasing", "increasing"}
        Order of the items in the list: by decreasing UCB (Section 6.1) or increasing
        (the worst-of-best-first order of Section 6.2). Ties are broken by lower index.
    """
    U = V.as_float_array("U", U, ndim=1)
    if U.size == 0:
        raise ValueError("U must hold at least one UCB")
    K = V.list_size(K, U.size, "the number of UCBs in U")
    V.choice("order", order, ("decreasing", "increasing"))
    top = sorted(range(U.size), key=lambda e: -U[e])[:K]
    return top if order == "decreasing" else top[::-1]


def expected_reward(A, w, K=None):
    """``f(A, w) = 1 - prod_k (1 - w(a_k))``, the probability of a click (Section 3.1).

    Exact (Fraction) when ``w`` holds Fractions, float otherwise. ``K`` defaults to ``len(A)``.
    """
    w, K0, exact = _weights(w, K)
    K = len(_item_list(A, len(w), None)) if K0 is None else K0
    K = _list_size(K, len(w))
    A = _item_list(A, len(w), K)
    miss = _one(exact)
    for a in A:
        miss *= 1 - w[a]
    return 1 - miss


def theorem1_permutation(A, w, K=None) -> list[int]:
    """The permutation ``pi_t`` of the optimal items from the proof of Theorem 1.

    ``pi(k) = a_k`` whenever ``a_k`` is optimal; the optimal items not in ``A`` fill the
    remaining positions in decreasing order of attraction (the proof allows any
    placement; this one is deterministic).

    Returns
    -------
    list of int, length K
        ``pi[k]`` is the optimal item (0-based index into ``w``) matched with position k.
    """
    A, w, K, _ = _setup(A, w, K)
    return _permutation(A, w, K)


def _permutation(A, w, K):
    """:func:`theorem1_permutation` of checked inputs (:func:`_setup`'s)."""
    opt = sorted(range(len(w)), key=lambda e: -w[e])[:K]
    opt_set = set(opt)
    pi = [a if a in opt_set else None for a in A]
    rest = iter([e for e in opt if e not in set(A)])
    return [p if p is not None else next(rest) for p in pi]


def conditional_regret(A, w, K=None):
    """``E_t[R(A_t, w_t)] = f(A*, w) - f(A_t, w) = prod(1 - w(a_k)) - prod(1 - w(a*_k))``."""
    return _conditional_regret(*_setup(A, w, K))


def _conditional_regret(A, w, K, exact):
    """:func:`conditional_regret` of checked inputs (:func:`_setup`'s)."""
    opt = sorted(range(len(w)), key=lambda e: -w[e])[:K]
    miss_a, miss_opt = _one(exact), _one(exact)
    for a in A:
        miss_a *= 1 - w[a]
    for e in opt:
        miss_opt *= 1 - w[e]
    return miss_a - miss_opt


def event_probabilities(A, w, K=None) -> np.ndarray:
    """``E_t[1{G_{e,e*,t}}]`` of eq. (4), for every item e and optimal item e*.

    Returns
    -------
    ndarray, shape (L, K)
        Row ``r`` is the item of rank ``r + 1`` (``sorted_items(w)[r]``, the paper's item
        ``r + 1``), column ``j`` the optimal item of rank ``j + 1``. So rows ``K:`` are the
        suboptimal items ``K+1..L`` and line up with :meth:`CascadeInstance.gaps`. Entry
        ``prod_{i<k} (1 - w(a_i))`` if ``a_k = e`` and ``pi_t(k) = e*`` for a position k, else 0.
        dtype object (Fractions) in the exact case, float64 otherwise.
    """
    return _event_probabilities(*_setup(A, w, K))


def _event_probabilities(A, w, K, exact):
    """:func:`event_probabilities` of checked inputs (:func:`_setup`'s)."""
    order = sorted(range(len(w)), key=lambda e: -w[e])
    rank = {e: r for r, e in enumerate(order)}
    pi = _permutation(A, w, K)
    out = np.full((len(w), K), _zero(exact), dtype=object if exact else np.float64)
    examined = _one(exact)
    for a, e_star in zip(A, pi, strict=True):
        out[rank[a], rank[e_star]] = examined
        examined *= 1 - w[a]
    return out


def theorem1_alpha(w, K=None):
    """``alpha = (1 - w(1))^(K-1)`` of Theorem 1, ``w(1)`` the largest attraction probability."""
    w, K, _ = _weights(w, K)
    K = _list_size(K, len(w))
    return (1 - max(w)) ** (K - 1)


def theorem1_sum(A, w, K=None):
    """``S = sum_{e>K} sum_{e*<=K} Delta_{e,e*} E_t[1{G_{e,e*,t}}]``, Theorem 1's upper bound."""
    return _theorem1_sum(*_setup(A, w, K))


def _theorem1_sum(A, w, K, exact):
    """:func:`theorem1_sum` of checked inputs (:func:`_setup`'s)."""
    order = sorted(range(len(w)), key=lambda e: -w[e])
    P = _event_probabilities(A, w, K, exact)
    total = _zero(exact)
    for r in range(K, len(w)):
        for j in range(K):
            if P[r, j] != 0:
                total += (w[order[j]] - w[order[r]]) * P[r, j]
    return total if exact else float(total)


def theorem1_bounds(A, w, K=None):
    """Theorem 1: ``(alpha S, E_t[R(A_t, w_t)], S)`` for the recommended list ``A``.

    Parameters
    ----------
    A : sequence of int, length K
        The recommended list (0-based item indices), e.g. from :func:`recommended_list`.
    w : sequence of probabilities, shape (L,), or CascadeInstance
    K : int (optional when ``w`` is an instance)

    Returns
    -------
    (lower, exact, upper)
        ``alpha * S``, the conditional expected regret, and ``S`` (see the module
        docstring); Fractions when ``w`` holds Fractions, floats otherwise.
        Theorem 1 claims ``lower <= exact <= upper`` whenever ``A`` is a list of the
        K largest UCBs for some U, which holds for every K-permutation ``A``.
    """
    # the inputs checked and converted once (each part used to check them again: most of the
    # time of a call on exact weights, which verify makes by the thousand); the same values
    A, w, K, exact = _setup(A, w, K)
    S = _theorem1_sum(A, w, K, exact)
    alpha = (1 - max(w)) ** (K - 1)  # theorem1_alpha
    return alpha * S, _conditional_regret(A, w, K, exact), S


def theorem1_from_ucbs(U, w, K=None, order="decreasing") -> dict:
    """Every object of Theorem 1 at one step, starting from a UCB vector.

    Parameters
    ----------
    U : array_like of float, shape (L,)
        UCBs ``U_t(e)``; the list is ``A_t = recommended_list(U, K, order)``.
    w : sequence of probabilities (L,) or CascadeInstance
    K : int (optional when ``w`` is an instance)
    order : {"decreasing", "increasing"}

    Returns
    -------
    dict
        ``A`` (list), ``pi`` (list), ``regret`` (``E_t[R(A_t, w_t)]``), ``events``
        (ndarray (L, K), see :func:`event_probabilities`), ``lower``, ``upper``, ``alpha``;
        exact when ``w`` holds Fractions.
    """
    w_list, K, exact = _weights(w, K)
    K = _list_size(K, len(w_list))
    U = V.as_float_array("U", U, ndim=1)
    if U.size != len(w_list):
        raise ValueError(
            f"U must have one UCB per item, L = {len(w_list)} (the weights in w); got {U.size}"
        )
    wk = w_list if exact else np.asarray(w_list)
    A = recommended_list(U, K, order)
    lower, regret, upper = theorem1_bounds(A, wk, K)
    return {
        "A": A,
        "pi": theorem1_permutation(A, wk, K),
        "regret": regret,
        "events": event_probabilities(A, wk, K),
        "lower": lower,
        "upper": upper,
        "alpha": theorem1_alpha(wk, K),
    }
