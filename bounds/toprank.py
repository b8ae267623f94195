"""TopRank (Lattimore, Kveton, Li, Szepesvari, NeurIPS 2018) and its regret bounds.

Source: T. Lattimore and C. Szepesvari, *Bandit Algorithms*, Cambridge University Press
2020, Chapter 32 "Ranking" ([LS20]); the derivations and the notation map are in
docs/toprank.md. The book ranks ``m`` positions out of ``ell`` items; here ``K`` and ``L``
(the cascade paper's names): ``m = K``, ``ell = L``. Items are numbered by decreasing
attractiveness, ``alpha(1) >= alpha(2) >= ... >= alpha(L)``, and ``Delta_ij = alpha(i) -
alpha(j)``.

* :data:`EXERCISE_20_11_C` -- the constant ``c`` of the concentration inequality of
  [LS20] Exercise 20.11, ``c = 4 sqrt(2/pi) / erf(sqrt 2)``.
* :func:`toprank_threshold` -- TopRank's test ``S >= sqrt(2 N log(c sqrt(N) / delta))``
  (the event ``F_n`` before Lemma 32.3; the proof of Lemma 32.5); the policy
  (``simulate.policies.toprank``) calls the numba scalar :func:`toprank_threshold_scalar`.
* :func:`theorem32_2_gap_dependent`, :func:`theorem32_2_gap_free` -- the two displays of
  [LS20] Theorem 32.2 (expected regret in expected clicks); the gap-free one with its
  failure term ``delta n m ell^2`` and its pair count ``m ell`` derived from the proof
  (the stored text prints ``delta n m^2 + m``; docs/toprank.md, "The gap-free bound").
* Assumption 32.1, the premises of Theorem 32.2, per click model:
  :func:`click_probabilities` (``v(a, k)`` of the cascade, position-based, DBN and
  dependent click models), :func:`assumption_32_1_violation` (all four parts checked by
  enumerating every list of a small instance) and :func:`assumption_32_1_reason` (the
  sufficient condition per model in closed form).

Precision: float64 throughout; each bound is a sum of at most ``L K`` positive terms, so
its relative rounding error is below ``L K`` units in the last place (1e-12 for
``L K <= 4000``).
"""

from __future__ import annotations

import itertools
import math

import numba
import numpy as np

from cascading_bandits.bounds import _validate as V

__all__ = [
    "EXERCISE_20_11_C",
    "MODELS",
    "toprank_threshold_scalar",
    "toprank_threshold",
    "log_term",
    "pair_count",
    "failure_term",
    "gap_dependent_pair_sum",
    "theorem32_2_gap_dependent",
    "theorem32_2_gap_free",
    "theorem32_2_printed_gap_free",
    "click_probabilities",
    "assumption_32_1_violation",
    "assumption_32_1_reason",
]

#: ``c = 4 sqrt(2/pi) / erf(sqrt 2) = 3.3436764...`` of [LS20] Exercise 20.11 (printed there
#: as "approximately 3.43", which the formula does not give: it evaluates to 3.34)
EXERCISE_20_11_C = 4.0 * math.sqrt(2.0 / math.pi) / math.erf(math.sqrt(2.0))
_LOG_C = math.log(EXERCISE_20_11_C)

#: click models of :func:`click_probabilities` (``pbm``: position-based; ``dcm``: dependent)
MODELS = ("cascade", "pbm", "dbn", "dcm")

#: largest number of lists :func:`assumption_32_1_violation` enumerates
MAX_LISTS = 200_000


# ---------------------------------------------------------------------------------------
# the policy's test
# ---------------------------------------------------------------------------------------
@numba.njit(cache=True, no_cfunc_wrapper=True)
def toprank_threshold_scalar(N, delta):
    """``sqrt(2 N log(c sqrt(N) / delta))`` with ``c`` of Exercise 20.11; no input checks.

    TopRank adds ``(j, i)`` to its relation when ``S_ij`` reaches this value at ``N_ij``
    rounds with ``U_ij != 0`` ([LS20] Section 32.2; the event ``F_n`` of Section 32.3).
    ``N <= 0`` gives ``+inf``: no observation, no edge (Exercise 20.11 asks ``N_t > 0``).
    """
    if N <= 0.0:
        return math.inf
    # log c + log sqrt(N) - log delta: no overflow for a subnormal delta
    return math.sqrt(2.0 * N * (_LOG_C + 0.5 * math.log(N) - math.log(delta)))


def _delta(delta) -> float:
    return V.probability("delta", delta, open_low=True, open_high=True)


def toprank_threshold(N, delta):
    """:func:`toprank_threshold_scalar` on an array of counts ``N >= 1`` (any shape).

    Parameters
    ----------
    N : int or array of int, >= 1
        Rounds at which the pair's clicks differed.
    delta : float in (0, 1)

    Returns
    -------
    float or ndarray of N's shape
    """
    d = _delta(delta)
    a = V.as_float_array("N", N)
    if (a < 1).any() or not np.isfinite(a).all() or (a != np.floor(a)).any():
        raise ValueError("N must hold integers >= 1 (counts of rounds with U_ij != 0)")
    out = np.sqrt(2.0 * a * (_LOG_C + 0.5 * np.log(a) - math.log(d)))
    return float(out) if out.ndim == 0 else out


# ---------------------------------------------------------------------------------------
# Theorem 32.2
# ---------------------------------------------------------------------------------------
def _LK(L, K):
    L = V.bounded_int("L", L, V.MAX_ITEMS, "the number of items the bounds support")
    return L, V.list_size(K, L)


#: largest horizon accepted (as the bound registry's)
MAX_N = 2**62


def _horizons(n):
    """Validated horizon(s) in [1, MAX_N] as float64 and whether ``n`` was a scalar."""
    if V.ndim(n) == 0 and not isinstance(n, (str, bytes)):
        return np.float64(V.bounded_int("n", n, MAX_N, "2^62, the registry's horizon limit")), True
    a = V.as_float_array("n", n)
    if (a < 1).any() or not np.isfinite(a).all() or (a != np.floor(a)).any() or (a > MAX_N).any():
        raise ValueError("n must hold integers in [1, 2^62] (horizons)")
    return a, False


def _deltas(delta, n):
    """``delta`` at each horizon: ``1/n`` (the theorem's choice) when None."""
    return 1.0 / n if delta is None else np.full(np.shape(n), _delta(delta))


def _finite(out, n):
    if not np.all(np.isfinite(out)):
        raise ValueError(f"n = {V.show(n)} puts this bound beyond the float64 range")
    return out


def log_term(n, delta=None):
    """``log(c sqrt(n) / delta)`` of Lemma 32.7 and Theorem 32.2 (``delta = 1/n`` if None).

    With ``delta = 1/n`` it is ``log c + 1.5 log n``. Scalar or array ``n`` (integers >= 1).
    """
    a, scalar = _horizons(n)
    out = _LOG_C + 0.5 * np.log(a) - np.log(_deltas(delta, a))
    return float(out) if scalar else out


def pair_count(L, K) -> int:
    """Number of pairs ``(i, j)``, ``1 <= j <= L``, ``1 <= i <= min(K, j - 1)``: the pairs
    summed in eq. (32.5) and Theorem 32.2; ``K L - K (K + 1) / 2`` for ``L > K``, at most
    ``K L``."""
    L, K = _LK(L, K)
    return sum(min(K, j - 1) for j in range(1, L + 1))


def failure_term(L, K, n, delta=None):
    """``delta n K L^2``: ``n m P(F_n)`` of eq. (32.5) with ``P(F_n) <= delta ell^2``
    (Lemma 32.4). With ``delta = 1/n`` it is ``K L^2``. Scalar or array ``n``."""
    L, K = _LK(L, K)
    a, scalar = _horizons(n)
    out = _deltas(delta, a) * a * K * L * L
    return float(out) if scalar else out


def _list_size(K, L, name):
    """``V.list_size`` with a message naming the weights' parameter too (K > L)."""
    K = V.positive_int("K", K)
    if K > L:
        raise ValueError(f"K must satisfy 1 <= K <= L, the {L} items of {name}; got K = {K}")
    return K


def _sorted_alpha(weights, K):
    w = V.probabilities("weights", weights, ndim=1)
    if w.size == 0:
        raise ValueError("weights must hold at least one attractiveness")
    L = V.bounded_int("L", w.size, V.MAX_ITEMS, "the number of items the bounds support")
    return np.sort(w)[::-1], L, _list_size(K, L, "weights")


def gap_dependent_pair_sum(weights, K) -> float:
    """``sum_{j <= L} sum_{i <= min(K, j-1)} 6 (alpha(i) + alpha(j)) / Delta_ij`` (Theorem
    32.2, the coefficient of ``log(c sqrt(n) / delta)``), on the weights sorted decreasingly.

    Raises ValueError if a summed pair has ``Delta_ij = 0`` (then the printed bound is
    infinite): the bound needs ``alpha(1) > ... > alpha(K) > alpha(K+1)``.
    """
    a, L, K = _sorted_alpha(weights, K)
    total = 0.0
    for i in range(min(K, L)):  # 0-based i, j: pairs i < j, i < K
        d = a[i] - a[i + 1 :]
        if (d <= 0).any():
            j = i + 1 + int(np.flatnonzero(d <= 0)[0])
            raise ValueError(
                f"Theorem 32.2's gap-dependent bound is infinite at a tie: alpha({i + 1}) = "
                f"alpha({j + 1}) = {float(a[i])!r} (items sorted by decreasing attractiveness); it "
                "needs alpha(1) > ... > alpha(K) > alpha(K+1)"
            )
        total += float(np.sum(6.0 * (a[i] + a[i + 1 :]) / d))
    return total


def theorem32_2_gap_dependent(weights, K, n, delta=None):
    """[LS20] Theorem 32.2, first display: TopRank's expected regret (in expected clicks) is
    at most ``delta n K L^2 + sum_j sum_{i <= min(K, j-1)} (1 + 6 (alpha(i) + alpha(j))
    log(c sqrt(n) / delta) / Delta_ij)``.

    Parameters
    ----------
    weights : sequence of float in [0, 1], shape (L,)
        The attractiveness ``alpha`` of Assumption 32.1 (cascade: ``w``; DBN: ``rho``), any
        order.
    K : int, 1 <= K <= L
    n : int >= 1 or array of them
    delta : float in (0, 1), optional
        TopRank's confidence parameter; None: ``1/n`` at each horizon, the theorem's choice.

    Returns
    -------
    float, or ndarray of n's shape

    Raises ValueError at a tie among the summed pairs (:func:`gap_dependent_pair_sum`).
    """
    coef = gap_dependent_pair_sum(weights, K)
    _, L, K = _sorted_alpha(weights, K)
    a, scalar = _horizons(n)
    out = failure_term(L, K, a, delta) + pair_count(L, K) + coef * log_term(a, delta)
    out = _finite(out, n)
    return float(out) if scalar else out


def theorem32_2_gap_free(L, K, n, delta=None):
    """[LS20] Theorem 32.2, second display, as derived from its proof (docs/toprank.md):
    ``delta n K L^2 + K L + sqrt(4 K^3 L n log(c sqrt(n) / delta))``.

    The failure term is ``n m P(F_n)`` of eq. (32.5) with Lemma 32.4, as in the first
    display; ``K L`` bounds the pairs' overshoots (the ``1 +`` of Lemma 32.7's proof), and
    the root comes from Cauchy-Schwarz with ``E sum_pairs N_nij <= 2 K^2 n``. The stored
    text of the book prints ``delta n m^2 + m`` for the first two terms
    (:func:`theorem32_2_printed_gap_free`). Scalar or array ``n``; ``delta`` as in
    :func:`theorem32_2_gap_dependent`.
    """
    L, K = _LK(L, K)
    a, scalar = _horizons(n)
    root = np.sqrt(4.0 * K**3 * L * a * log_term(a, delta))
    out = _finite(failure_term(L, K, a, delta) + K * L + root, n)
    return float(out) if scalar else out


def theorem32_2_printed_gap_free(L, K, n, delta=None):
    """The gap-free display as the stored text of [LS20] prints it, ``delta n m^2 + m +
    sqrt(4 m^3 ell n log(c sqrt(n) / delta))``: kept to show what the garbled terms change
    (smaller than :func:`theorem32_2_gap_free` by ``delta n K (L^2 - K) + K (L - 1)``); not
    a bound this toolkit registers."""
    L, K = _LK(L, K)
    a, scalar = _horizons(n)
    root = np.sqrt(4.0 * K**3 * L * a * log_term(a, delta))
    out = _finite(_deltas(delta, a) * a * K * K + K + root, n)
    return float(out) if scalar else out


# ---------------------------------------------------------------------------------------
# Assumption 32.1 per click model
# ---------------------------------------------------------------------------------------
def _model_params(model, L, K, nu, gamma, kappa, lam):
    """Validated per-model parameters: (nu (L,), gamma, kappa (K,), lam (K,))."""
    V.choice("click model", model, MODELS)
    nus = np.asarray(nu, dtype=object)
    if nus.ndim == 0:
        nus = np.full(L, V.probability("nu", nu))
    else:
        nus = V.probabilities("nu", nu, ndim=1)
        if nus.size != L:
            raise ValueError(f"nu must be one number or {L} numbers, got {nus.size}")
    g = V.probability("gamma", gamma)
    if model == "pbm":
        if kappa is None:
            raise ValueError("the pbm model needs kappa, the examination probability of each "
                             "of the K positions")  # fmt: skip
        kap = V.probabilities("kappa", kappa, ndim=1)
        if kap.size != K:
            raise ValueError(f"kappa must hold K = {K} examination probabilities, got {kap.size}")
    else:
        kap = np.ones(K)
    if model == "dcm":
        if lam is None:
            raise ValueError("the dcm model needs lam, the probability of going on after a "
                             "click at each of the K positions")  # fmt: skip
        la = V.probabilities("lam", lam, ndim=1)
        if la.size != K:
            raise ValueError(f"lam must hold K = {K} probabilities, got {la.size}")
    else:
        la = np.ones(K)
    if model != "dbn" and (np.any(nus != 1.0) or g != 1.0):
        raise ValueError("nu and gamma apply to the dbn model only")
    return nus, g, kap, la


def click_probabilities(model, lst, attract, *, nu=1.0, gamma=1.0, kappa=None, lam=None):
    """``v(a, k)``, the probability of a click at position ``k = 1..K`` of list ``lst``.

    * ``cascade`` ([LS20] eq. (32.1); [K15] Section 2): ``alpha(a_k) prod_{i<k} (1 -
      alpha(a_i))``;
    * ``pbm`` (position-based, [LS20] Section 32.1): ``kappa_k alpha(a_k)``;
    * ``dbn`` ([K15] Section 5.3; this toolkit's ``dbn`` users): the user clicks an
      examined item with probability ``rho``, is then satisfied with probability ``nu`` and
      stops, and otherwise examines the next position with probability ``gamma``:
      ``rho(a_k) prod_{i<k} gamma (1 - rho(a_i) nu(a_i))``;
    * ``dcm`` (dependent click model, Guo, Liu and Wang, WSDM 2009): the user examines
      every position until a click at position ``i``, after which she goes on with
      probability ``lam_i``: ``alpha(a_k) prod_{i<k} (1 - alpha(a_i) (1 - lam_i))``.

    Parameters
    ----------
    model : {"cascade", "pbm", "dbn", "dcm"}
    lst : sequence of K distinct item ids in 0..L-1
    attract : sequence of float in [0, 1], shape (L,)
        ``alpha`` (``rho`` for dbn).
    nu, gamma : dbn only (``nu`` one number or L numbers)
    kappa : pbm only, shape (K,)
    lam : dcm only, shape (K,)

    Returns
    -------
    ndarray, shape (K,)
    """
    alpha = V.probabilities("attract", attract, ndim=1)
    L = alpha.size
    try:
        lst = np.asarray(lst)
    except (TypeError, ValueError):
        raise ValueError(f"lst must be a 1-d sequence of item ids, got {V.show(lst)}") from None
    if lst.ndim != 1 or lst.size == 0 or not np.issubdtype(lst.dtype, np.integer):
        raise ValueError(f"lst must be a 1-d sequence of item ids, got {V.show(lst)}")
    K = _list_size(lst.size, L, "attract")
    if len(set(lst.tolist())) != K or lst.min() < 0 or lst.max() >= L:
        raise ValueError(
            f"lst must hold {K} distinct item ids in 0..{L - 1} (attract has {L} items), "
            f"got {lst.tolist()}"
        )
    nus, g, kap, la = _model_params(model, L, K, nu, gamma, kappa, lam)
    return _clicks(model, lst, alpha, nus, g, kap, la)


def _clicks(model, lst, alpha, nus, g, kap, la):
    v = np.empty(len(lst))
    reach = 1.0
    for k, e in enumerate(lst):
        a = alpha[e]
        v[k] = kap[k] * a * reach if model == "pbm" else a * reach
        if model == "cascade":
            reach *= 1.0 - a
        elif model == "dbn":
            reach *= g * (1.0 - a * nus[e])
        elif model == "dcm":
            reach *= 1.0 - a * (1.0 - la[k])
    return v


def assumption_32_1_violation(
    model, attract, K, *, nu=1.0, gamma=1.0, kappa=None, lam=None, parts="bcd", tol=1e-12
):
    """The first part of [LS20] Assumption 32.1 that the click model breaks, found by
    enumerating every list of K items (None if all the parts checked hold).

    With ``alpha`` = ``attract`` and the ``alpha``-optimal lists those showing the K most
    attractive items by decreasing attractiveness (ties in any order):

    (a) no click below position K: true of every model here (``v`` has K positions);
    (b) every ``alpha``-optimal list maximises the expected number of clicks ``sum_k v(a, k)``;
    (c) for items ``i``, ``j`` with ``alpha(i) >= alpha(j)`` and ``i`` shown at position
        ``p``: ``alpha(j) v(a, p) >= alpha(i) v(sigma a, p)``, ``sigma`` exchanging ``i`` and
        ``j`` (the printed ``v(a, p) >= alpha(i)/alpha(j) v(sigma a, p)``, multiplied out so
        that ``alpha(j) = 0`` is allowed);
    (d) a list whose attractiveness at each position equals that of an ``alpha``-optimal
        list ``a*`` has ``v(a, k) >= v(a*, k)`` at every ``k``.

    ``tol`` is the absolute slack allowed for float rounding. At most
    :data:`MAX_LISTS` lists (``L! / (L - K)!``).

    Parameters
    ----------
    model : {"cascade", "pbm", "dbn", "dcm"} or callable
        A model of :func:`click_probabilities` (with its parameters), or any function
        ``v(lst) -> ndarray (K,)`` of a tuple of K item ids (no parameters then).
    attract, K, nu, gamma, kappa, lam
        As :func:`click_probabilities`.
    parts : str
        The parts checked, among ``"bcd"`` (in that order).

    Returns
    -------
    str or None
        ``"(b) ..."``, ``"(c) ..."`` or ``"(d) ..."`` with a witness.
    """
    alpha = V.probabilities("attract", attract, ndim=1)
    L = alpha.size
    K = _list_size(K, L, "attract")
    tol = V.positive_real("tol", tol, allow_zero=True)
    if not isinstance(parts, str) or not parts or set(parts) - set("bcd"):
        raise ValueError(f"parts must be a non-empty string of b, c, d; got {V.show(parts)}")
    if callable(model):
        if (nu, gamma, kappa, lam) != (1.0, 1.0, None, None):
            raise ValueError("a click function takes no model parameters")
        clicks = model
    else:
        nus, g, kap, la = _model_params(model, L, K, nu, gamma, kappa, lam)

        def clicks(a):
            return _clicks(model, a, alpha, nus, g, kap, la)

    count = math.perm(L, K)
    if count > MAX_LISTS:
        raise ValueError(
            f"{count} lists of K = {K} out of L = {L} items; at most {MAX_LISTS} are enumerated"
        )
    lists = list(itertools.permutations(range(L), K))
    vs = {}
    for a in lists:
        v = np.asarray(clicks(a), dtype=float)
        if v.shape != (K,) or not np.all(np.isfinite(v)):
            raise ValueError(f"the click function must return K = {K} finite numbers")
        vs[a] = v
    order = sorted(range(L), key=lambda e: -alpha[e])
    top = alpha[order[:K]]
    optimal = [a for a in lists if np.array_equal(alpha[list(a)], top)]
    best = max(float(v.sum()) for v in vs.values())
    for a in optimal if "b" in parts else ():
        if float(vs[a].sum()) < best - tol:
            return (
                f"(b) the alpha-optimal list {list(a)} has {vs[a].sum():.6g} expected clicks, "
                f"another list {best:.6g}"
            )
    for a in lists if "c" in parts else ():
        va = vs[a]
        for p, i in enumerate(a):
            for j in range(L):
                if j == i or alpha[i] < alpha[j]:
                    continue
                s = tuple(j if e == i else i if e == j else e for e in a)
                if alpha[j] * va[p] < alpha[i] * vs[s][p] - tol:
                    return (
                        f"(c) list {list(a)}, items i = {i}, j = {j}: alpha(j) v(a, {p + 1}) = "
                        f"{alpha[j] * va[p]:.6g} < alpha(i) v(sigma a, {p + 1}) = "
                        f"{alpha[i] * vs[s][p]:.6g}"
                    )
    for a in lists if "d" in parts else ():
        for o in optimal:
            if np.array_equal(alpha[list(a)], alpha[list(o)]) and np.any(vs[a] < vs[o] - tol):
                return f"(d) list {list(a)} has fewer clicks somewhere than {list(o)}"
    return None


def assumption_32_1_reason(model, attract, K, *, nu=1.0, gamma=1.0, kappa=None, lam=None):
    """The sufficient condition for [LS20] Assumption 32.1 that the model's parameters
    miss, in words (None when it holds); derivations in docs/toprank.md.

    * ``cascade``: always holds (the book's own example);
    * ``pbm``: examination non-increasing over the positions, ``kappa_1 >= ... >= kappa_K``;
    * ``dbn``: one satisfaction probability ``nu`` for every item (any ``gamma``);
    * ``dcm``: ``lam_1 >= ... >= lam_{K-1}`` (going on after a click no likelier lower
      down; ``lam_K`` plays no part).

    With distinct attractiveness the pbm and dcm conditions are also necessary (part (b)
    fails otherwise); a per-item ``nu`` is not covered here. Parameters as
    :func:`click_probabilities`.
    """
    alpha = V.probabilities("attract", attract, ndim=1)
    L = alpha.size
    K = _list_size(K, L, "attract")
    nus, _, kap, la = _model_params(model, L, K, nu, gamma, kappa, lam)
    if model == "pbm" and np.any(np.diff(kap) > 0):
        k = int(np.flatnonzero(np.diff(kap) > 0)[0])
        return (
            f"examination probabilities non-increasing over the positions (kappa_{k + 1} = "
            f"{float(kap[k])!r} < kappa_{k + 2} = {float(kap[k + 1])!r})"
        )
    if model == "dbn" and np.any(nus != nus[0]):
        return "one satisfaction probability nu for every item"
    if model == "dcm" and np.any(np.diff(la[: K - 1]) > 0):
        k = int(np.flatnonzero(np.diff(la[: K - 1]) > 0)[0])
        return (
            f"continuation after a click non-increasing over positions 1..K-1 (lam_{k + 1} = "
            f"{float(la[k])!r} < lam_{k + 2} = {float(la[k + 1])!r})"
        )
    return None
