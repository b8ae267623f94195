"""Click models: how the user answers a list, and the expected reward of a list.

A click model is one class here, declared with :func:`register_model`: a frozen,
validated description (``name``, ``code``, ``attract``, ``satisfy``, ``gamma``
arrays/scalar passed to the kernels, the expected reward ``f(A)`` of a list, the optimal
list, a ``build(weights, K, nu, gamma)`` constructor) plus its branch of the two njit
functions, ``respond`` (the user's clicks at step t from the counter-based draws of
:mod:`simulate.rng`) and ``list_reward`` (the expected reward of a list). The kernels
dispatch on ``code``; adding a model (position-based, DCM, ...) is one class plus one
branch in :func:`respond` and :func:`list_reward` (this module), and its clicks and
reward in the tests' reference (tests/simulate/reference/common.py). :data:`MODEL_NAMES`
lists the declared models; the registry-driven tests iterate it.

Cascade model (Sections 2-3)
    Item ``e`` attracts the user at step ``t`` iff ``u_t(e) < w(e)`` with ``u_t(e)`` the
    ``ATTRACT`` uniform of (t, e); the user clicks the first attractive item.
    Expected reward ``f(A, w) = 1 - prod_k (1 - w(a_k))``.

DBN model (Section 5.3, Chapelle and Zhang 2009)
    The user examines ``a_1, a_2, ...``; ``a_k`` attracts (and is clicked) iff
    ``u_t(a_k) < rho(a_k)`` (the same ``ATTRACT`` uniforms as the cascade model); a clicked
    item satisfies iff its ``SATISFY`` uniform is ``< nu(a_k)``, and the user then stops;
    otherwise the user goes on to ``a_{k+1}`` iff the ``PERSIST`` uniform of (t, k) is
    ``< gamma``. Expected reward (probability of satisfaction, Section 5.3)
    ``sum_k gamma^(k-1) wbar(a_k) prod_{i<k} (1 - wbar(a_i))`` with ``wbar = rho nu``;
    best list: the K largest ``wbar`` in decreasing order. With ``nu = gamma = 1`` the
    DBN user is the cascade user, draw for draw.

Regret recorded by the engine is the expected regret given the list,
``f(A*) - f(A_t)``: its expectation is the paper's ``R(n)`` (the stochastic regret
``f(A*, w_t) - f(A_t, w_t)`` has the same mean given the history) with less noise.
For the cascade model ``f`` is evaluated with the list's weights sorted in decreasing
order, so an optimal list in any order has regret exactly 0.0 in floating point.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np

from cascading_bandits.bounds import _validate as V
from cascading_bandits.simulate.jitopts import HOT, helper
from cascading_bandits.simulate.rng import ATTRACT, PERSIST, SATISFY, uniform

__all__ = [
    "CASCADE",
    "DBN",
    "CascadeModel",
    "DBNModel",
    "make_model",
    "respond",
    "list_reward",
    "MODEL_NAMES",
]

CASCADE, DBN = 0, 1

#: declared click models by name (see :func:`register_model`)
MODELS: dict = {}


def register_model(cls):
    """Class decorator declaring a click model under ``cls.name`` (code ``cls.code``)."""
    if cls.name in MODELS or any(m.code == cls.code for m in MODELS.values()):
        raise ValueError(f"click model {cls.name!r} or its code {cls.code} is already declared")
    MODELS[cls.name] = cls
    return cls


@helper(HOT)
def respond(code, attract, satisfy, gamma, lst, K, t, key, clicks):
    """The user's clicks on list ``lst[:K]`` at step ``t``: fills ``clicks[:K]`` with 0/1.

    Parameters
    ----------
    code : int
        :data:`CASCADE` or :data:`DBN`.
    attract, satisfy : ndarray (L,)
        Attraction ``w`` (``rho``) and, for DBN, satisfaction ``nu`` probabilities.
    gamma : float
        DBN persistence.
    lst : ndarray (K,) int64
        Items by position.
    key : uint64
        The run's users' key.

    Returns
    -------
    int
        Number of clicks.
    """
    L = attract.size
    for k in range(K):
        clicks[k] = 0
    nclicks = 0
    for k in range(K):
        e = lst[k]
        if uniform(key, ATTRACT, t, e, L, 0) < attract[e]:
            clicks[k] = 1
            nclicks += 1
            if code == CASCADE:
                return nclicks
            if uniform(key, SATISFY, t, e, L, 0) < satisfy[e]:
                return nclicks
        elif code == CASCADE:
            continue
        if k + 1 < K and not uniform(key, PERSIST, t, k, L, 0) < gamma:
            return nclicks
    return nclicks


@numba.njit(cache=True, _nrt=False, no_cfunc_wrapper=True)
def list_reward(code, attract, satisfy, gamma, lst, K, scratch):
    """Expected reward of list ``lst[:K]`` (cascade: ``f(A, w)``; DBN: satisfaction probability).

    ``scratch`` is a float work array of size >= K.
    """
    if code == CASCADE:
        # 1 - prod(1 - w) over the list's weights in decreasing order (order-free bits)
        for k in range(K):
            x = attract[lst[k]]
            i = k
            while i > 0 and scratch[i - 1] < x:
                scratch[i] = scratch[i - 1]
                i -= 1
            scratch[i] = x
        prod = 1.0
        for k in range(K):
            prod *= 1.0 - scratch[k]
        return 1.0 - prod
    total = 0.0
    reach = 1.0
    for k in range(K):
        e = lst[k]
        wb = attract[e] * satisfy[e]
        total += reach * wb
        reach *= gamma * (1.0 - wb)
    return total


def _top_k(values, K):
    """Indices of the K largest values, larger first, ties to the smaller index."""
    order = np.lexsort((np.arange(values.size), -values))
    return order[:K].astype(np.int64)


@register_model
@dataclass(frozen=True)
class CascadeModel:
    """Cascade click model with attraction probabilities ``weights`` (Assumption 1)."""

    weights: tuple
    K: int

    name = "cascade"
    code = CASCADE

    def __post_init__(self):
        w = V.probabilities("weights", self.weights, ndim=1)
        if w.size == 0:
            raise ValueError("weights must hold at least one attraction probability")
        object.__setattr__(self, "weights", tuple(float(x) for x in w))
        object.__setattr__(self, "K", V.list_size(self.K, w.size))

    @property
    def L(self):
        return len(self.weights)

    @classmethod
    def build(cls, weights, K, nu=1.0, gamma=1.0):
        """From the cells' common fields; the cascade model has ``nu = gamma = 1``."""
        if nu != 1.0 or gamma != 1.0:
            raise ValueError(
                "nu and gamma apply to the dbn model only; the cascade model has nu = gamma = 1"
            )
        return cls(tuple(weights), K)

    def kernel_args(self):
        """(attract (L,), satisfy (L,), gamma) as the kernels take them."""
        w = np.array(self.weights, dtype=np.float64)
        return w, np.ones_like(w), 1.0

    def optimal_list(self) -> np.ndarray:
        """A*: the K most attractive items, decreasing, ties to the smaller item id; shape (K,)."""
        return _top_k(np.array(self.weights), self.K)

    def expected_reward(self, lst) -> float:
        """``f(A, w)`` for one list (item ids), exactly as the engine evaluates it."""
        return _reward(self, lst)


@register_model
@dataclass(frozen=True)
class DBNModel:
    """DBN click model of Section 5.3: attraction ``rho``, satisfaction ``nu``, persistence
    ``gamma``.

    ``nu`` may be one number (the same for every item, as in the paper) or a sequence of L.
    """

    rho: tuple
    K: int
    nu: object = 1.0
    gamma: float = 1.0

    name = "dbn"
    code = DBN

    def __post_init__(self):
        rho = V.probabilities("rho (attraction probabilities)", self.rho, ndim=1)
        if rho.size == 0:
            raise ValueError("rho must hold at least one attraction probability")
        nu = np.asarray(self.nu, dtype=object)
        if nu.ndim == 0:
            nu = np.full(rho.size, V.probability("nu", self.nu))
        else:
            nu = V.probabilities("nu", self.nu, ndim=1)
            if nu.size != rho.size:
                raise ValueError(f"nu must be one number or {rho.size} numbers, got {nu.size}")
        gamma = V.probability("gamma", self.gamma, open_low=True)
        object.__setattr__(self, "rho", tuple(float(x) for x in rho))
        object.__setattr__(self, "nu", tuple(float(x) for x in nu))
        object.__setattr__(self, "gamma", gamma)
        object.__setattr__(self, "K", V.list_size(self.K, rho.size))

    @property
    def L(self):
        return len(self.rho)

    @classmethod
    def build(cls, weights, K, nu=1.0, gamma=1.0):
        """From the cells' common fields (weights = rho)."""
        return cls(tuple(weights), K, nu, gamma)

    def kernel_args(self):
        return np.array(self.rho, dtype=np.float64), np.array(self.nu, dtype=np.float64), self.gamma

    def optimal_list(self) -> np.ndarray:
        """The K largest ``rho nu`` in decreasing order (ties to the smaller id), shape (K,)."""
        return _top_k(np.array(self.rho) * np.array(self.nu), self.K)

    def expected_reward(self, lst) -> float:
        """Probability that the user is satisfied by list ``lst`` (Section 5.3)."""
        return _reward(self, lst)


def _reward(model, lst):
    lst = np.asarray(lst, dtype=np.int64)
    if lst.shape != (model.K,) or len(set(lst.tolist())) != model.K:
        raise ValueError(f"a list must hold {model.K} distinct item ids, got {lst.tolist()}")
    if lst.min() < 0 or lst.max() >= model.L:
        raise ValueError(f"item ids must lie in 0..{model.L - 1}, got {lst.tolist()}")
    a, s, g = model.kernel_args()
    return float(list_reward(model.code, a, s, g, lst, model.K, np.empty(model.K)))


MODEL_NAMES = tuple(MODELS)


def make_model(name, weights, K, nu=1.0, gamma=1.0):
    """Build a declared click model by name: ``"cascade"`` (weights = w), ``"dbn"`` (rho)..."""
    V.choice("model", name, tuple(MODELS))
    return MODELS[name].build(weights, K, nu, gamma)


def optimal_reward(model) -> float:
    """``f(A*)`` as the engine evaluates it."""
    return model.expected_reward(model.optimal_list())
