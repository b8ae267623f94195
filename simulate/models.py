"""Click models: how the user answers a list, and the expected reward of a list.

A click model is one class here, declared with :func:`register_model`: a frozen,
validated description (``name``, ``code``, ``params`` -- the names of its own parameters --,
``attract``, ``satisfy``, ``gamma`` arrays/scalar passed to the kernels, the expected reward
``f(A)`` of a list, the optimal list, a ``build(weights, K, nu, gamma, kappa, lam)``
constructor taking the cells' common fields) plus its branch of the two njit functions,
``respond`` (the user's clicks at step t from the counter-based draws of
:mod:`simulate.rng`) and ``list_reward`` (the expected reward of a list). The kernels
dispatch on ``code``; adding a model is one class plus one branch in :func:`respond` and
:func:`list_reward` (this module), and its clicks and reward in the tests' reference
(tests/simulate/reference/common.py). :data:`MODEL_NAMES` lists the declared models; the
registry-driven tests iterate it.

Kernel arguments ``(code, attract (L,), satisfy (L,), gamma)``: ``attract`` holds the
attraction probabilities of the items; ``satisfy`` holds the DBN's per-item satisfaction
probabilities, or, for the position-based and dependent click models, the K per-position
parameters (``kappa``, ``lam``) in its first K entries (entries K..L-1 are NaN, never read:
a kernel that read them would show NaN regret).

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

Position-based model, PBM (Richardson, Dominowska and Ragno, WWW 2007; Chuklin, Markov
and de Rijke, "Click Models for Web Search", 2015, Section 3.4)
    Position ``k`` is examined with probability ``kappa_k`` (examined iff the ``PERSIST``
    uniform of (t, k) is ``< kappa_k``), item ``e`` attracts with probability ``w(e)`` (the
    ``ATTRACT`` uniform of (t, e), as above), independently; the user clicks every examined
    attractive item, so there may be several clicks, anywhere in the list.
    Reward: the expected number of clicks ``f(A) = sum_k kappa_k w(a_k)``. There is no
    stopping event to call "satisfaction"; the number of clicks is the reward of online
    learning to rank in the PBM and beyond it (TopRank: Lattimore, Kveton, Li and
    Szepesvari, NeurIPS 2018; Lattimore and Szepesvari, "Bandit Algorithms", 2020,
    Chapter 32 "Ranking"). Default ``kappa_k = 1/k`` (``kappa_1 = 1``, the usual
    normalisation of a fitted PBM); real fitted values come with
    :mod:`simulate.real_instances`.

Dependent click model, DCM (Guo, Liu and Wang, WSDM 2009; DCM bandits: Katariya, Kveton,
Szepesvari and Wen, ICML 2016)
    The user examines ``a_1, a_2, ...`` as in the cascade model and clicks ``a_k`` iff it is
    attractive (the ``ATTRACT`` uniform of (t, a_k) ``< w(a_k)``). After a click at
    position ``k`` the user goes on with probability ``lam_k`` (the ``PERSIST`` uniform of
    (t, k) ``< lam_k``), otherwise stops; without a click the user goes on. Several clicks
    are possible. Reward, as in DCM bandits (Katariya et al., Section 3): the probability
    that the user is *satisfied*, i.e. leaves after a click,
    ``f(A) = 1 - prod_k (1 - (1 - lam_k) w(a_k))`` (position k ends the session with
    probability ``(1 - lam_k) w(a_k)`` given it is reached, and it is reached iff no earlier
    position ended it). With ``lam = 0`` the DCM user is the cascade user, draw for draw,
    and ``f`` is the cascade reward. Default ``lam_k = k / (k + 1)`` (termination
    probabilities ``1 / (k + 1)`` decreasing down the list, the order DCM bandits assume).

Optimal lists of PBM and DCM
    Both rewards are a function of pairs (position weight ``q_k``, attraction ``w(a_k)``):
    ``sum_k q_k w(a_k)`` with ``q = kappa`` and ``1 - prod_k (1 - q_k w(a_k))`` with
    ``q = 1 - lam``, ``q_k`` in [0, 1]. Each is non-decreasing in every ``w(a_k)``, so some
    optimal list shows the K most attractive items; and for ``q_1 >= q_2``, ``w_1 >= w_2``
    the exchange inequalities ``q_1 w_1 + q_2 w_2 >= q_1 w_2 + q_2 w_1`` and
    ``(1 - q_1 w_1)(1 - q_2 w_2) <= (1 - q_1 w_2)(1 - q_2 w_1)`` (both differences are
    ``(q_1 - q_2)(w_1 - w_2) >= 0``) show that pairing the largest ``w`` with the largest
    ``q`` is optimal (the rearrangement inequality). :meth:`PBMModel.optimal_list` and
    :meth:`DCMModel.optimal_list` compute that pairing for any ``q``, monotone or not
    (positions by decreasing ``q``, ties to the upper position; items by decreasing ``w``,
    ties to the smaller id). The tests check it against every list of small instances in
    exact rational arithmetic.

What a cascade learner observes (the engine's ``play``, simulate.policies.kernel)
    Cascade learners are given the *last* click ``C``: positions ``1..C`` are observed,
    ``a_C`` as attractive and the ones above as not (clicked or not); no click means all K
    observed unattractive (eq. (2); Section 5.3 for DBN). In the DBN and the DCM the
    positions above the last click were examined, so only their earlier clicks are lost.
    In the PBM that rule is biased: an unclicked position may not have been examined at
    all, and a position below the last click may have been examined; a PBM learner (e.g.
    TopRank, which uses every click of the list) would read all clicks. The ranked
    policies (simulate.policies.ranked) see every click in every model.

Regret recorded by the engine is the expected regret given the list,
``f(A*) - f(A_t)``: its expectation is the paper's ``R(n)`` (the stochastic regret
``f(A*, w_t) - f(A_t, w_t)`` has the same mean given the history) with less noise.
For the cascade model ``f`` is evaluated with the list's weights sorted in decreasing
order, so an optimal list in any order has regret exactly 0.0 in floating point. The PBM
and DCM rewards are summed / multiplied in position order: within ``K`` ulps of the exact
value (``K`` rounded products and sums of numbers in [0, 1]).
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
    "PBM",
    "DCM",
    "CascadeModel",
    "DBNModel",
    "PBMModel",
    "DCMModel",
    "MODEL_PARAMS",
    "make_model",
    "model_params",
    "respond",
    "list_reward",
    "optimal_reward",
    "MODEL_NAMES",
]

CASCADE, DBN, PBM, DCM = 0, 1, 2, 3

#: declared click models by name (see :func:`register_model`)
MODELS: dict = {}

#: every model parameter a cell or :func:`make_model` takes, with its neutral value
#: (``None``: the model's own default)
MODEL_PARAMS = {"nu": 1.0, "gamma": 1.0, "kappa": None, "lam": None}


def register_model(cls):
    """Class decorator declaring a click model under ``cls.name`` (code ``cls.code``).

    ``cls.params`` names the entries of :data:`MODEL_PARAMS` the model takes.
    """
    if cls.name in MODELS or any(m.code == cls.code for m in MODELS.values()):
        raise ValueError(f"click model {cls.name!r} or its code {cls.code} is already declared")
    unknown = set(cls.params) - set(MODEL_PARAMS)
    if unknown:
        raise ValueError(f"click model {cls.name!r}: unknown parameters {sorted(unknown)}")
    MODELS[cls.name] = cls
    return cls


@helper(HOT)
def respond(code, attract, satisfy, gamma, lst, K, t, key, clicks):
    """The user's clicks on list ``lst[:K]`` at step ``t``: fills ``clicks[:K]`` with 0/1.

    Parameters
    ----------
    code : int
        :data:`CASCADE`, :data:`DBN`, :data:`PBM` or :data:`DCM`.
    attract : ndarray (L,)
        Attraction probabilities ``w`` (``rho``).
    satisfy : ndarray (L,)
        DBN: satisfaction ``nu`` per item; PBM: ``kappa`` per position and DCM: ``lam``
        per position, in ``satisfy[:K]``.
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
        if code == PBM and not uniform(key, PERSIST, t, k, L, 0) < satisfy[k]:
            continue  # position k not examined
        if uniform(key, ATTRACT, t, e, L, 0) < attract[e]:
            clicks[k] = 1
            nclicks += 1
            if code == CASCADE:
                return nclicks
            if code == PBM:
                continue
            if code == DBN:
                if uniform(key, SATISFY, t, e, L, 0) < satisfy[e]:
                    return nclicks
                go_on = gamma
            else:  # DCM: on after a click with probability lam_k
                go_on = satisfy[k]
        elif code == DBN:
            go_on = gamma
        else:  # cascade, PBM, DCM: on after an unattractive item
            continue
        if k + 1 < K and not uniform(key, PERSIST, t, k, L, 0) < go_on:
            return nclicks
    return nclicks


@numba.njit(cache=True, _nrt=False, no_cfunc_wrapper=True)
def list_reward(code, attract, satisfy, gamma, lst, K, scratch):
    """Expected reward of list ``lst[:K]``: cascade ``f(A, w)``; DBN and DCM the probability
    of satisfaction; PBM the expected number of clicks (module docstring).

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
    if code == PBM:
        total = 0.0
        for k in range(K):
            total += satisfy[k] * attract[lst[k]]
        return total
    if code == DCM:
        prod = 1.0
        for k in range(K):
            prod *= 1.0 - (1.0 - satisfy[k]) * attract[lst[k]]
        return 1.0 - prod
    total = 0.0
    reach = 1.0
    for k in range(K):
        e = lst[k]
        wb = attract[e] * satisfy[e]
        total += reach * wb
        reach *= gamma * (1.0 - wb)
    return total


def _kth_largest(values, K):
    """The K-th largest of ``values`` (1-d float, K < size), counting repeats.

    For K <= 16, one max/count pass per distinct leading value (at most K passes, since each
    covers at least one of the K): numpy's introselect (``np.partition``) slows down
    twelvefold on arrays of few distinct values, such as B_LB's two (1 ms at L = 65,536,
    against 0.1 ms on distinct values); a pass is 20 us there. Larger K use ``np.partition``.
    NaN is refused upstream (the models validate their probabilities)."""
    if K > 16:
        return np.partition(values, values.size - K)[values.size - K]
    rest, below = K, values
    while True:
        v = below.max()
        rest -= int(np.count_nonzero(values == v))
        if rest <= 0:
            return v
        below = values[values < v]


def _top_k(values, K):
    """Indices of the K largest values, larger first, ties to the smaller index.

    O(L): only the values at or above the K-th largest (``np.partition``) are sorted, with
    the same rule as a full ``lexsort`` (value decreasing, then index increasing)."""
    values = np.asarray(values)
    if K < values.size:
        cand = np.flatnonzero(values >= _kth_largest(values, K))
    else:
        cand = np.arange(values.size)
    order = cand[np.lexsort((cand, -values[cand]))]
    return order[:K].astype(np.int64)


def _paired(w, q):
    """The list that pairs the i-th most attractive item with the position of the i-th
    largest ``q`` (module docstring, "Optimal lists"); shape (K,), K = q.size."""
    K = q.size
    items = _top_k(w, K)
    positions = _top_k(q, K)
    lst = np.empty(K, np.int64)
    lst[positions] = items
    return lst


def _no_others(cls, given: dict):
    """ValueError for a parameter given away from its neutral value to a model without it."""
    for name, value in given.items():
        if name in cls.params:
            continue
        neutral = MODEL_PARAMS[name]
        if (value is not None) if neutral is None else (value is not None and value != neutral):
            owners = [m.name for m in MODELS.values() if name in m.params]
            if name in ("nu", "gamma"):
                raise ValueError(
                    f"nu and gamma apply to the dbn model only; the {cls.name} model has "
                    "nu = gamma = 1"
                )
            raise ValueError(
                f"{name} applies to the {' and '.join(owners)} model only, not {cls.name}"
            )


def _per_position(name, values, K, default):
    """Validated per-position probabilities: a tuple of exactly K floats in [0, 1]."""
    if values is None:
        return tuple(float(default(k)) for k in range(1, K + 1))
    if np.ndim(values) == 0 and not isinstance(values, (str, bytes)):
        raise ValueError(f"{name} must be a sequence of K = {K} probabilities (one per position)")
    a = V.probabilities(name, values, ndim=1)
    if a.size != K:
        raise ValueError(f"{name} must hold K = {K} probabilities (one per position), got {a.size}")
    return tuple(float(x) for x in a)


def _weights(name, weights):
    w = V.probabilities(name, weights, ndim=1)
    if w.size == 0:
        raise ValueError(f"{name} must hold at least one attraction probability")
    return w


class _Model:
    """What every click model shares: L, rewards of lists, the optimal reward."""

    @property
    def L(self):
        return len(self.weights)

    def _f64(self, name) -> np.ndarray:
        """A fresh float64 copy of the tuple field ``name``, shape (len,). The conversion
        from the tuple (milliseconds at L = 65,536) is done once per model; the copy (the
        callers may write to it) costs microseconds."""
        return self._memo(name, lambda: np.array(getattr(self, name), dtype=np.float64))

    def _memo(self, name, compute) -> np.ndarray:
        """A fresh copy of ``compute()``, computed once per model (the model is frozen, so
        the value cannot go stale): the engine asks for A* on every call."""
        cache = self.__dict__.setdefault("_arrays", {})  # frozen dataclass: not a field
        a = cache.get(name)
        if a is None:
            a = cache[name] = compute()
        return a.copy()

    def expected_reward(self, lst) -> float:
        """``f(A)`` of one list (item ids by position), exactly as the engine evaluates it."""
        return _reward(self, lst)

    def params_dict(self) -> dict:
        """The model's own parameters (:data:`MODEL_PARAMS` names), resolved."""
        return {p: getattr(self, p) for p in self.params}


@register_model
@dataclass(frozen=True)
class CascadeModel(_Model):
    """Cascade click model with attraction probabilities ``weights`` (Assumption 1)."""

    weights: tuple
    K: int

    name = "cascade"
    code = CASCADE
    params = ()

    def __post_init__(self):
        w = _weights("weights", self.weights)
        object.__setattr__(self, "weights", tuple(float(x) for x in w))
        object.__setattr__(self, "K", V.list_size(self.K, w.size))

    @classmethod
    def build(cls, weights, K, nu=1.0, gamma=1.0, kappa=None, lam=None):
        """From the cells' common fields; the cascade model has ``nu = gamma = 1``."""
        _no_others(cls, dict(nu=nu, gamma=gamma, kappa=kappa, lam=lam))
        return cls(tuple(weights), K)

    def kernel_args(self):
        """(attract (L,), satisfy (L,), gamma) as the kernels take them."""
        w = self._f64("weights")
        return w, np.ones_like(w), 1.0

    def optimal_list(self) -> np.ndarray:
        """A*: the K most attractive items, decreasing, ties to the smaller item id; shape (K,)."""
        return self._memo("A*", lambda: _top_k(self._f64("weights"), self.K))


@register_model
@dataclass(frozen=True)
class DBNModel(_Model):
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
    params = ("nu", "gamma")

    def __post_init__(self):
        rho = _weights("rho (attraction probabilities)", self.rho)
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
    def weights(self):
        """The attraction probabilities ``rho`` (the cells' ``weights``)."""
        return self.rho

    @classmethod
    def build(cls, weights, K, nu=1.0, gamma=1.0, kappa=None, lam=None):
        """From the cells' common fields (weights = rho)."""
        _no_others(cls, dict(kappa=kappa, lam=lam))
        return cls(tuple(weights), K, nu, gamma)

    def kernel_args(self):
        return self._f64("rho"), self._f64("nu"), self.gamma

    def optimal_list(self) -> np.ndarray:
        """The K largest ``rho nu`` in decreasing order (ties to the smaller id), shape (K,)."""
        return self._memo("A*", lambda: _top_k(self._f64("rho") * self._f64("nu"), self.K))

    def expected_reward(self, lst) -> float:
        """Probability that the user is satisfied by list ``lst`` (Section 5.3)."""
        return _reward(self, lst)


def _position_args(weights, values):
    """(attract (L,), satisfy (L,) with ``values`` in [:K] and NaN after, gamma = 1.0)."""
    w = np.array(weights, dtype=np.float64)
    s = np.full(w.size, np.nan)
    s[: len(values)] = values
    return w, s, 1.0


@register_model
@dataclass(frozen=True)
class PBMModel(_Model):
    """Position-based model: attraction ``weights`` (L,), examination ``kappa`` (K,).

    Reward: the expected number of clicks ``sum_k kappa_k w(a_k)`` (module docstring).
    ``kappa=None`` gives the default ``kappa_k = 1/k``.
    """

    weights: tuple
    K: int
    kappa: tuple | None = None

    name = "pbm"
    code = PBM
    params = ("kappa",)

    def __post_init__(self):
        w = _weights("weights", self.weights)
        K = V.list_size(self.K, w.size)
        object.__setattr__(self, "weights", tuple(float(x) for x in w))
        object.__setattr__(self, "K", K)
        kappa = _per_position("kappa (examination probabilities)", self.kappa, K, lambda k: 1 / k)
        object.__setattr__(self, "kappa", kappa)

    @classmethod
    def build(cls, weights, K, nu=1.0, gamma=1.0, kappa=None, lam=None):
        """From the cells' common fields (``kappa``: K examination probabilities or None)."""
        _no_others(cls, dict(nu=nu, gamma=gamma, lam=lam))
        return cls(tuple(weights), K, kappa)

    def kernel_args(self):
        """(attract = w (L,), satisfy (L,) = kappa in [:K] then NaN, gamma = 1.0)."""
        return _position_args(self._f64("weights"), self.kappa)

    def optimal_list(self) -> np.ndarray:
        """The K most attractive items, the i-th most attractive at the i-th most examined
        position (rearrangement inequality; module docstring); shape (K,)."""
        return self._memo("A*", lambda: _paired(self._f64("weights"), np.array(self.kappa)))


@register_model
@dataclass(frozen=True)
class DCMModel(_Model):
    """Dependent click model: attraction ``weights`` (L,), continuation after a click
    ``lam`` (K,).

    Reward: the probability of satisfaction ``1 - prod_k (1 - (1 - lam_k) w(a_k))``
    (Katariya et al., ICML 2016; module docstring). ``lam=None`` gives the default
    ``lam_k = k / (k + 1)``.
    """

    weights: tuple
    K: int
    lam: tuple | None = None

    name = "dcm"
    code = DCM
    params = ("lam",)

    def __post_init__(self):
        w = _weights("weights", self.weights)
        K = V.list_size(self.K, w.size)
        object.__setattr__(self, "weights", tuple(float(x) for x in w))
        object.__setattr__(self, "K", K)
        lam = _per_position(
            "lam (continuation probabilities after a click)", self.lam, K, lambda k: k / (k + 1)
        )
        object.__setattr__(self, "lam", lam)

    @classmethod
    def build(cls, weights, K, nu=1.0, gamma=1.0, kappa=None, lam=None):
        """From the cells' common fields (``lam``: K continuation probabilities or None)."""
        _no_others(cls, dict(nu=nu, gamma=gamma, kappa=kappa))
        return cls(tuple(weights), K, lam)

    def kernel_args(self):
        """(attract = w (L,), satisfy (L,) = lam in [:K] then NaN, gamma = 1.0)."""
        return _position_args(self._f64("weights"), self.lam)

    def optimal_list(self) -> np.ndarray:
        """The K most attractive items, the i-th most attractive at the position of the i-th
        largest termination probability ``1 - lam_k`` (module docstring); shape (K,)."""
        return self._memo("A*", lambda: _paired(self._f64("weights"), 1.0 - np.array(self.lam)))


def _reward(model, lst):
    lst = np.asarray(lst, dtype=np.int64)
    if lst.shape != (model.K,) or len(set(lst.tolist())) != model.K:
        raise ValueError(f"a list must hold {model.K} distinct item ids, got {lst.tolist()}")
    if lst.min() < 0 or lst.max() >= model.L:
        raise ValueError(f"item ids must lie in 0..{model.L - 1}, got {lst.tolist()}")
    a, s, g = model.kernel_args()
    return float(list_reward(model.code, a, s, g, lst, model.K, np.empty(model.K)))


MODEL_NAMES = tuple(MODELS)


def make_model(name, weights, K, nu=1.0, gamma=1.0, *, kappa=None, lam=None):
    """Build a declared click model by name.

    ``"cascade"`` (weights = w), ``"dbn"`` (weights = rho; ``nu``, ``gamma``), ``"pbm"``
    (``kappa``: K examination probabilities, default ``1/k``), ``"dcm"`` (``lam``: K
    continuation probabilities, default ``k/(k+1)``). A parameter given to a model without
    it is a ValueError.
    """
    V.choice("model", name, tuple(MODELS))
    return MODELS[name].build(weights, K, nu, gamma, kappa, lam)


def model_params(name) -> tuple:
    """The names of the parameters of model ``name`` (entries of :data:`MODEL_PARAMS`)."""
    V.choice("model", name, tuple(MODELS))
    return tuple(MODELS[name].params)


def optimal_reward(model) -> float:
    """``f(A*)`` as the engine evaluates it."""
    return model.expected_reward(model.optimal_list())
