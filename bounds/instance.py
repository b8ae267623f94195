"""Problem instances of cascading bandits (Section 3.1 and Section 4.3 of the paper).

A :class:`CascadeInstance` holds the attraction probabilities ``w`` (in the
order the user gave them) and the list length ``K``. The analysis of Section
4 assumes items sorted by decreasing attraction; :attr:`CascadeInstance.sorted_weights`
gives that order, so ``sorted_weights[:K]`` are the optimal items ``1..K`` and
``sorted_weights[K:]`` the suboptimal items ``K+1..L`` of the paper.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from cascading_bandits.bounds import _validate as V


@dataclass(frozen=True)
class CascadeInstance:
    """A cascading bandit B = (E, P, K) under Assumption 1 (independent Bernoulli weights).

    Parameters
    ----------
    weights : sequence of float, shape (L,)
        Attraction probabilities ``w(e)`` in [0, 1], in any order.
    K : int
        Number of recommended items, ``1 <= K <= L``.

    Notes
    -----
    The instance is frozen and validated once; the arrays it exposes are
    read-only copies, so a function cannot change an instance it was given.
    """

    weights: tuple
    K: int
    _w: np.ndarray = field(init=False, repr=False, compare=False)
    _sorted: np.ndarray = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        if self.weights is None:
            raise ValueError("weights must be a sequence of probabilities, got None")
        w = V.probabilities("weights", self.weights, ndim=1)
        if w.size == 0:
            raise ValueError("weights must hold at least one attraction probability")
        K = V.list_size(self.K, w.size, "the number of weights")
        object.__setattr__(self, "weights", tuple(float(x) for x in w))
        object.__setattr__(self, "K", K)
        w = w.copy()
        w.setflags(write=False)
        s = np.sort(w)[::-1].copy()
        s.setflags(write=False)
        object.__setattr__(self, "_w", w)
        object.__setattr__(self, "_sorted", s)

    # -- constructors -------------------------------------------------------
    @classmethod
    def b_lb(cls, L, K, p, delta) -> CascadeInstance:
        """The lower-bound problem B_LB(L, K, p, Delta) of Section 4.3, eq. (6).

        ``w(e) = p`` for the ``K`` optimal items and ``p - Delta`` for the other
        ``L - K``, with ``0 < Delta < p <= 1`` and ``1 <= K <= L <= 10**6``
        (``_validate.MAX_ITEMS``: larger L is refused, not left to exhaust memory); a
        ``Delta`` so small that ``p - Delta`` rounds to ``p`` is refused. ``p - Delta`` is
        formed exactly from the shortest decimal forms of p and Delta and rounded once, so
        B_LB(16, 2, 0.2, 0.15)
        has ``w = 0.05`` (the double nearest 1/20) for its suboptimal items.
        """
        L, K, p, delta = V.b_lb_parameters(L, K, p, delta)
        # p - Delta in decimal, then rounded once: 0.2 - 0.15 is 0.05, not 0.05000000000000002
        low = float(Fraction(repr(p)) - Fraction(repr(delta)))
        return cls(tuple([p] * K + [low] * (L - K)), K)

    # -- derived quantities ---------------------------------------------------
    @property
    def L(self) -> int:
        """Number of items in the ground set."""
        return len(self.weights)

    @property
    def w(self) -> np.ndarray:
        """Attraction probabilities in the user's order, shape (L,), read-only."""
        return self._w

    @property
    def sorted_weights(self) -> np.ndarray:
        """Attraction probabilities sorted decreasingly, shape (L,), read-only (Section 4.1)."""
        return self._sorted

    @property
    def optimal_weights(self) -> np.ndarray:
        """``w(1) >= ... >= w(K)``, shape (K,)."""
        return self._sorted[: self.K]

    @property
    def suboptimal_weights(self) -> np.ndarray:
        """``w(K+1) >= ... >= w(L)``, shape (L - K,)."""
        return self._sorted[self.K :]

    @property
    def has_unique_optimum(self) -> bool:
        """Whether the optimal list is unique as a set, ``w(K) > w(K+1)`` (Section 3.1)."""
        return self.K == self.L or self._sorted[self.K - 1] > self._sorted[self.K]

    @property
    def regret_free(self) -> bool:
        """Whether no policy can incur regret: ``K = L``, or all weights equal (every gap 0).

        Then every list of K items has the optimal reward, ``R(n) = 0`` for every n, and
        the bounds of :mod:`bounds.upper` and :mod:`bounds.lower` are defined as 0 (the
        exact regret); ``C_2`` and ``beta`` (which need a pair with a positive gap) are
        undefined (:func:`bounds.upper.theorem3_details` gives None).
        """
        return self.K == self.L or bool(self._sorted[0] == self._sorted[-1])

    def gaps(self) -> np.ndarray:
        """Gaps ``Delta_{e,e*} = w(e*) - w(e)`` of eq. (3).

        Returns
        -------
        ndarray, shape (L - K, K)
            Row ``i`` is suboptimal item ``e = K + 1 + i``, column ``j`` optimal
            item ``e* = j + 1`` (items in sorted order).
        """
        return self.optimal_weights[None, :] - self.suboptimal_weights[:, None]

    def require_unique_optimum(self) -> None:
        """Raise ``ValueError`` unless ``w(K) > w(K+1)``, the premise of Theorems 2-4."""
        if not self.has_unique_optimum:
            raise ValueError(
                "the weights must have a unique optimal set, w(K) > w(K+1) after sorting "
                "(the premise of Theorems 2-4); "
                f"got w(K) = w(K+1) = {float(self._sorted[self.K - 1])}"
            )

    def optimal_reward(self) -> float:
        """``f(A*, w) = 1 - prod_{k<=K} (1 - w(k))`` (Section 3.1)."""
        return float(1.0 - np.prod(1.0 - self.optimal_weights))


def b_lb(L, K, p, delta) -> CascadeInstance:
    """Shorthand for :meth:`CascadeInstance.b_lb`, the paper's B_LB(L, K, p, Delta)."""
    return CascadeInstance.b_lb(L, K, p, delta)


def as_instance(instance_or_weights, K=None) -> CascadeInstance:
    """Accept a :class:`CascadeInstance` or plain attraction probabilities plus ``K``."""
    if isinstance(instance_or_weights, CascadeInstance):
        if K is not None and V.positive_int("K", K) != instance_or_weights.K:
            raise ValueError(
                f"K = {V.show(K)} disagrees with the instance's K = {instance_or_weights.K}"
            )
        return instance_or_weights
    if K is None:
        raise ValueError("K is required when attraction probabilities are given as an array")
    if instance_or_weights is None:
        raise ValueError(
            "weights must be a CascadeInstance or a sequence of probabilities, got None"
        )
    return CascadeInstance(instance_or_weights, K)
