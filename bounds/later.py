r"""Cascading-bandit theory published after the paper, next to the paper's bounds.

Sources (cited by these keys in every docstring and in :data:`SOURCES`):

* **[K15]** Kveton, Szepesvari, Wen, Ashkan, "Cascading Bandits: Learning to Rank in the
  Cascade Model", ICML 2015 (the paper; its Theorems 1-4 live in :mod:`bounds.upper` and
  :mod:`bounds.lower`).
* **[C15]** Combes, Magureanu, Proutiere, Laroche, "Learning to Rank: Regret Lower Bounds and
  Efficient Algorithms", ACM SIGMETRICS 2015 (arXiv 1506.02867): an asymptotically optimal
  instance-dependent lower bound and the algorithm PIE.
* **[V22]** Vial, Sanghavi, Shakkottai, Srikant, "Minimax Regret for Cascading Bandits",
  NeurIPS 2022 (arXiv 2203.12577).
* **[Z21]** Zhong, Cheung, Tan, "Thompson Sampling Algorithms for Cascading Bandits", JMLR 22
  (2021) (arXiv 1810.01187); its conference version Cheung, Tan, Zhong, "A Thompson Sampling
  Algorithm for Cascading Bandits", AISTATS 2019.

What could be read, and what that means here
--------------------------------------------
Of [V22], [Z21] and [C15] only the titles, abstracts and introductions could be retrieved
from the reference corpora available when this was written, not the theorem statements.
So **no constant, theorem number or premise of [V22], [Z21] or [C15] is quoted here**; from
memory it would be unverifiable. What the abstracts state is encoded as an order
(``form = "order"``: the value is the rate with its constant and log factors dropped, and
says so); what is derived here is derived in full in the docstring and checked in the tests
and in :mod:`verify.claims_later`:

* [V22], abstract of arXiv 2203.12577v1: the best lower and upper gap-free bounds known
  before were ``Omega(sqrt(nL/K))`` and ``O~(sqrt(nLK))``; the lower bound is improved to
  ``Omega(sqrt(nL))``; CascadeKL-UCB attains it up to log terms; CascadeUCB1 can suffer
  ``Omega(sqrt(nLK))`` ("Pinsker's inequality is ... loose (by a factor of K) in the cascading
  case"). Abstract of the NeurIPS 2022 version: the hard instances have small mean rewards;
  variance-aware confidence sets (Bernstein, Chernoff) give algorithms optimal up to log
  terms, Hoeffding-based ones are order-wise suboptimal.
* [Z21], abstract: TS-Cascade (Gaussian updates) "achieves the state-of-the-art regret bound"
  (the abstract of arXiv 1810.01187v1 / AISTATS 2019: ``O~(sqrt(KLT))`` for ``T >= L`` update
  steps), CTS (Beta-Bernoulli) has a problem-dependent bound, and a "nearly matching" lower
  bound is derived ([V22]'s v1 abstract identifies it as ``Omega(sqrt(nL/K))``).
* [C15]: the lower bound is stated to be asymptotically optimal and instance-dependent. Its
  printed formula was not retrieved. What is encoded is the constant of the lower bound of
  Graves and Lai (1997) for this model, the program such lower bounds solve, derived here in
  closed form (:func:`graves_lai_coefficient`) and proved equal to
  :func:`bounds.lower.theorem4_sharp_coefficient` (below).

Derived here: gap-free corollaries of Theorems 2 and 3 of [K15]
---------------------------------------------------------------
Notation of [K15] Section 4: items sorted, ``w(1) >= ... >= w(L)``, ``Delta_{e,e*} = w(e*) - w(e)``,
``G_{e,e*,t}`` the event of Theorem 1 (``e`` placed where ``e*`` would be, and observed), and
``K' = min(K, L - K)``, the largest number of suboptimal items one list can hold.

**Corollary 2 (CascadeUCB1, gap-free).** For every n >= 1,

    R(n) <= 4 sqrt(3 (L - K) K' n log n) + pi^2 L / 3.

Proof. Follow Appendix A of [K15] to
``R(n) <= pi^2 L/3 + sum_{e>K} E[sum_{e*} sum_t Delta_{e,e*} 1{not E_t, G_{e,e*,t}}]``.
Fix ``eps > 0`` (the threshold) and split the pairs. Pairs with ``Delta_{e,e*} <= eps``
contribute at most ``eps`` times the number of observations of suboptimal items, which is at
most ``n K'`` (each round observes at most ``K'`` suboptimal items). For the pairs with
``Delta_{e,e*} > eps`` (the optimal items ``e* <= m_e`` for some ``m_e``, since the gaps
decrease in ``e*``) the paper's argument gives ``T_{t-1}(e) <= tau_{e,e*} = 6 log n /
Delta_{e,e*}^2`` and the peeling linear program over ``e* <= m_e`` only; its value is
``6 log n`` times the bracket of :func:`bounds.peeling.ucb1_peeling_lhs` of the gaps
``Delta_{e,1..m_e}``, at most ``12 log n / Delta_{e,m_e} < 12 log n / eps`` by Lemma 3 of
Kveton et al. (2014). So ``R(n) <= pi^2 L/3 + eps n K' + 12 (L - K) log n / eps`` for every
``eps > 0`` (:func:`theorem2_gapfree_split`); the minimiser is
``eps* = sqrt(12 (L - K) log n / (n K'))`` and the minimum ``2 sqrt(12 (L - K) K' n log n)``.
The proof uses no gap, so the bound holds on every instance (ties included). QED.

**Corollary 3 (CascadeKL-UCB, gap-free leading term).** For every ``eps > 0`` (Theorem 3's)
and threshold ``theta > 0``,

    R(n) <= theta n K' + (1 + eps) (log n + 3 log log n) (L - K) c_w / theta + C_theta,
    c_w = min(1, 4 w(1)),
    C_theta = sum_{e>K} sum_{e*: Delta_{e,e*} > theta} Delta_{e,e*} C2_{e,e*} / n^beta_{e,e*}
              + K F(n)

(``F(n)`` the bad-event sum of :func:`bounds.garivier_cappe.klucb_loglog_term`; form
``"paper"`` loosens ``C_theta`` as Theorem 3 does, ``K L max C2/n^beta + 7 K log log n`` over
the same pairs). Proof: as Corollary 2, with Theorem 3's proof for the pairs with
``Delta > theta``; their peeling bracket (Lemma 2's left side) is
``sum_{k<m} (Delta_k - Delta_{k+1})/kl(p, p_k) + Delta_m/kl(p, p_m)``. Two lower bounds on kl
give ``1/kl(p, q) <= min(1/2, 2 q) / (q - p)^2`` for ``p < q``: Pinsker's ``kl >= 2 (q-p)^2``,
and ``kl(p, q) >= (q - p)^2 / (2 q)`` (``d^2/dx^2 kl(x, q) = 1/(x(1-x)) >= 1/q`` on
``[p, q]``, integrate twice from ``x = q`` where kl and its derivative vanish). With
``q <= w(1)`` and ``1/x^2`` decreasing, the bracket is at most
``min(1/2, 2 w(1)) (int_{Delta_m}^inf dx/x^2 + 1/Delta_m) = c_w / Delta_m < c_w / theta``.
The tail term of [GC] Lemma 8 is needed only for the pairs with ``Delta > theta``. QED.
:func:`theorem3_gapfree_bound` takes the ``theta`` minimising the first two terms,
``theta* = sqrt((1+eps)(log n + 3 log log n)(L-K) c_w / (n K'))``, whose value is
``2 sqrt((1 + eps)(log n + 3 log log n)(L - K) K' c_w n)`` (:func:`theorem3_gapfree_leading`).

Two findings. (i) Theorem 3 *as printed* has no gap-free corollary: its constant
``C = K L C2/n^beta + ...`` is not bounded over instances, since for fixed ``eps`` and ``n``,
``C2`` grows like ``1/Delta^2`` as the gap ``Delta -> 0`` (tested); the threshold split above
confines ``C`` to pairs with gaps above ``theta``. (ii) When click rates are small,
``w(1) <= 1/K`` gives ``c_w <= 4/K`` and ``K'/K <= 1``, so the leading term is at most
``4 sqrt((1 + eps)(log n + 3 log log n) L n)``: the ``sqrt(nL)`` order of [V22]'s abstract for
CascadeKL-UCB, up to log factors, follows from Theorem 3's proof; Corollary 2's
``sqrt(nLK log n)`` has the order [V22] prove unavoidable for CascadeUCB1.

Derived here: the Graves-Lai constant of this model, and [C15]
--------------------------------------------------------------
For ``w`` in ``(0, 1)`` with a unique optimal set, a uniformly good algorithm has
``liminf R(n)/log n >= c(w)``, ``c(w)`` the value of the Graves-Lai program

    c(w) = min_{eta >= 0} sum_A eta_A D(A)   s.t.   sum_A eta_A o_i(A) kl(w(i), w(K)) >= 1  (i > K),

over ordered lists ``A`` of K distinct items, ``D(A) = f(A*, w) - f(A, w)`` and ``o_i(A)`` the
probability that item ``i`` is examined in ``A`` (``prod`` of ``1 - w`` above it; 0 if ``i``
is not in ``A``). (Confusing parameters: ``w(j)`` of the optimal items is seen under ``A*``
and cannot change; making ``i`` optimal needs ``w'(i) > w(K)``, at least ``kl(w(i), w(K))``
per observation of ``i``.) :func:`graves_lai_lp_coefficient` solves this LP over all lists.

**Proposition.** ``c(w) = alpha_sharp sum_{i>K} Delta_{i,K} / kl(w(i), w(K))`` with
``alpha_sharp = prod_{j<K} (1 - w(j))``, i.e. exactly
:func:`bounds.lower.theorem4_sharp_coefficient`. Proof. Primal: ``eta`` equal to
``1/kl(w(i), w(K))`` on the list ``A_i = (i, 1, ..., K-1)`` is feasible (``o_i(A_i) = 1``) and
costs ``D(A_i) = alpha_sharp Delta_{i,K}`` per unit. Dual: ``u_i = alpha_sharp Delta_{i,K}``
is dual-feasible, ``sum_i u_i o_i(A) <= D(A)`` for every list (:func:`list_regret_excess` is the
difference): by Lemma 1 of [K15] with the permutation of Theorem 1,
``D(A) = sum_k Delta_{a_k, pi(k)} prod_{i<k} (1 - w(a_i)) prod_{j>k} (1 - w(pi(j)))``; every
term is ``>= 0``; for a suboptimal ``a_k``, ``Delta_{a_k,pi(k)} >= Delta_{a_k,K}``,
``prod_{i<k}(1 - w(a_i)) = o_{a_k}(A)``, and the last product runs over at most K - 1 distinct
optimal items, so it is at least ``prod_{j<K}(1 - w(j))``. Equal primal and dual values give
the optimum. QED.

Relation to Theorem 4. ``theorem4_general_coefficient`` uses ``alpha = (1 - w(1))^(K-1)``;
``c(w) / theorem4_general = prod_{j<K} (1 - w(j)) / (1 - w(1))^(K-1) >= 1``, with equality iff
``K = 1`` or ``w(1) = ... = w(K-1)`` (so on every ``B_LB`` instance, where Theorem 4 is
stated, they coincide). Strictly larger otherwise: Theorem 4's general form is not the
optimal constant, the sharp one is. Consequence: on ``B_LB``, Theorem 4 of [K15] *is* the
asymptotically optimal constant (an algorithm attaining the Graves-Lai bound, as [C15] state
PIE does, matches it), and the gap to Theorem 3's coefficient is due to the upper bound.

Horizons: integers in ``[1, 1e300]`` (``bounds._validate.horizons``), as everywhere in bounds.
Arithmetic: float64 unless said otherwise; the coefficients reuse :mod:`bounds.lower` (mpmath
at 30 digits, rounded once). The Graves-Lai LP is solved by HiGHS (relative error about 1e-9).
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np

from cascading_bandits.bounds import _validate as V
from cascading_bandits.bounds.instance import as_instance
from cascading_bandits.bounds.upper import _horizon, _instance, _log, _loglog, _loglog_part

__all__ = [
    "SOURCES",
    "theorem2_gapfree_split",
    "theorem2_gapfree_threshold",
    "theorem2_gapfree_bound",
    "kl_quadratic_lower",
    "theorem3_gapfree_weight_factor",
    "theorem3_gapfree_leading",
    "theorem3_gapfree_threshold",
    "theorem3_gapfree_constant",
    "theorem3_gapfree_bound",
    "vial_minimax_lower_order",
    "vial_cascadeucb1_lower_order",
    "vial_klucb_upper_order",
    "vial_variance_aware_upper_order",
    "zhong_ts_cascade_upper_order",
    "zhong_lower_order",
    "list_regret",
    "list_examination",
    "list_regret_excess",
    "graves_lai_coefficient",
    "graves_lai_lp_coefficient",
    "graves_lai_over_theorem4",
    "ledger",
    "LEDGER_KEYS",
    "theorem3_form",
    "upper_bound",
]

#: citation keys used in docstrings and ledger rows
SOURCES = {
    "K15": "Kveton, Szepesvari, Wen, Ashkan, Cascading Bandits, ICML 2015",
    "C15": "Combes, Magureanu, Proutiere, Laroche, Learning to Rank: Regret Lower Bounds and "
    "Efficient Algorithms, SIGMETRICS 2015 (arXiv 1506.02867)",
    "V22": "Vial, Sanghavi, Shakkottai, Srikant, Minimax Regret for Cascading Bandits, "
    "NeurIPS 2022 (arXiv 2203.12577)",
    "Z21": "Zhong, Cheung, Tan, Thompson Sampling Algorithms for Cascading Bandits, JMLR 22 "
    "(2021) (arXiv 1810.01187); Cheung, Tan, Zhong, AISTATS 2019",
}

#: keys of every ledger row
LEDGER_KEYS = (
    "name", "source", "assumptions", "kind", "gap", "form", "value", "rate", "algorithm", "bound",
)  # fmt: skip


# ---------------------------------------------------------------------------
# validation
# ---------------------------------------------------------------------------


def _LK(L, K):
    L = V.bounded_int("L", L, V.MAX_ITEMS, "the number of items the bounds support")
    return L, V.list_size(K, L)


def _finite(out, n):
    """A bound beyond the float64 range is an error naming n, never inf."""
    if not np.all(np.isfinite(out)):
        raise ValueError(
            f"n = {V.show(n)} puts this bound beyond the float64 range; use a smaller n"
        )
    return out


def _kprime(L, K):
    return min(K, L - K)


# ---------------------------------------------------------------------------
# Corollary 2: CascadeUCB1, gap-free (derived)
# ---------------------------------------------------------------------------


def theorem2_gapfree_split(L, K, n, threshold):
    """``threshold n K' + 12 (L - K) log n / threshold + pi^2 L / 3`` (Corollary 2, before min).

    Valid upper bound on CascadeUCB1's regret for every ``threshold > 0`` (module docstring,
    proof of Corollary 2). ``K' = min(K, L - K)``. Scalar or array ``n``; ``threshold`` a
    number or an array of them, broadcast against ``n`` (a grid of thresholds in one pass:
    each value the one a call at that threshold gives, the same operations elementwise).
    """
    L, K = _LK(L, K)
    try:
        many = np.ndim(threshold) > 0
    except ValueError:  # a ragged nest of sequences: as_float_array says what is wrong
        many = True
    n, scalar = _horizon(n)
    if many:
        th = V.as_float_array("threshold", threshold)
        if th.size == 0 or not (np.isfinite(th).all() and (th > 0).all()):
            raise ValueError(f"threshold must hold finite numbers > 0, got {V.show(threshold)}")
        try:
            np.broadcast_shapes(th.shape, np.shape(n))
        except ValueError:
            raise ValueError(
                f"threshold and n must broadcast together; got shapes {th.shape} and {np.shape(n)}"
            ) from None
        scalar = False
    else:
        th = V.positive_real("threshold", threshold)
    with np.errstate(over="ignore", invalid="ignore"):
        out = th * n * _kprime(L, K) + 12 * (L - K) * _log(n) / th + math.pi**2 * L / 3
    if not np.all(np.isfinite(out)):
        raise ValueError(
            f"threshold = {V.show(threshold)} and n = {V.show(n)} put the split beyond the "
            "float64 range; use a smaller threshold or n"
        )
    return float(out) if scalar else out


def theorem2_gapfree_threshold(L, K, n):
    """The minimiser ``sqrt(12 (L - K) log n / (n K'))`` of :func:`theorem2_gapfree_split`.

    0 where no positive threshold attains the minimum, as :func:`theorem3_gapfree_threshold`:
    ``K = L`` (the split does not depend on the threshold) and ``n = 1`` (``log n = 0``: the
    infimum, the bound's value, is approached as the threshold -> 0).
    """
    L, K = _LK(L, K)
    n, scalar = _horizon(n)
    kp = _kprime(L, K)
    th = np.sqrt(12 * (L - K) * _log(n) / (n * kp)) if kp else np.zeros_like(n)
    return float(th) if scalar else th


def theorem2_gapfree_bound(L, K, n):
    """Corollary 2 (from [K15] Theorem 2's proof): ``4 sqrt(3 (L-K) K' n log n) + pi^2 L / 3``.

    Parameters
    ----------
    L, K : int, ``1 <= K <= L``
    n : int >= 1 or array of them

    Premises: CascadeUCB1 of [K15] (Algorithm 1, radius ``sqrt(1.5 log t / s)``,
    initialised by one observation of every item); any attraction probabilities (no gap or
    unique optimum is used). Regime: every n >= 1. Order ``sqrt(n L K log n)``.
    """
    L, K = _LK(L, K)
    n, scalar = _horizon(n)
    # sqrt(n) apart: n (L - K) K' log n alone leaves float64 near n = 1e300
    out = 4 * np.sqrt(3.0 * (L - K) * _kprime(L, K) * _log(n)) * np.sqrt(n) + math.pi**2 * L / 3
    out = _finite(out, n)
    return float(out) if scalar else out


# ---------------------------------------------------------------------------
# Corollary 3: CascadeKL-UCB, gap-free leading term (derived)
# ---------------------------------------------------------------------------


def kl_quadratic_lower(p, q):
    """``max(2, 1/(2 max(p, q))) (q - p)^2``: a lower bound on the Bernoulli ``kl(p, q)``.

    Pinsker's ``2 (q-p)^2`` and ``(q-p)^2 / (2 max(p, q))`` (module docstring, proof of
    Corollary 3: ``kl(x, q)'' = 1/(x(1-x)) >= 1/max(p, q)`` between p and q). Arrays broadcast.
    """
    p = V.probabilities("p", p)
    q = V.probabilities("q", q)
    m = np.maximum(p, q)
    with np.errstate(divide="ignore"):
        c = np.maximum(2.0, np.where(m > 0, 0.5 / np.where(m > 0, m, 1.0), np.inf))
    d2 = (q - p) ** 2
    out = np.where(d2 > 0, c * d2, 0.0)
    return float(out) if np.ndim(out) == 0 else out


def theorem3_gapfree_weight_factor(w_max):
    """``c_w = min(1, 4 w(1))``: the peeling bracket of Corollary 3 is at most ``c_w / Delta_m``."""
    w = V.probability("w_max", w_max)
    return min(1.0, 4.0 * w)


def _f(n):
    return _log(n) + 3 * _loglog(n)


def theorem3_gapfree_leading(L, K, n, eps, w_max=1.0):
    """``2 sqrt((1 + eps)(log n + 3 log log n)(L - K) K' c_w n)``: Corollary 3 without C_theta.

    ``w_max`` is the largest attraction probability ``w(1)`` (default 1: Pinsker only, a bound
    for every instance). ``log log n`` follows the small-t rule of :mod:`bounds.upper`.
    """
    L, K = _LK(L, K)
    eps = V.positive_real("eps", eps, allow_zero=True)
    cw = theorem3_gapfree_weight_factor(w_max)
    n, scalar = _horizon(n)
    with np.errstate(over="ignore", invalid="ignore"):
        out = 2 * np.sqrt((1 + eps) * _f(n) * (L - K) * _kprime(L, K) * cw) * np.sqrt(n)
    if not np.all(np.isfinite(out)):
        raise ValueError(
            f"eps = {V.show(eps)} and n = {V.show(n)} put the leading term beyond the float64 "
            "range; use a smaller eps or n"
        )
    return float(out) if scalar else out


def theorem3_gapfree_threshold(L, K, n, eps, w_max=1.0) -> float:
    """``theta* = sqrt((1 + eps)(log n + 3 log log n)(L - K) c_w / (n K'))`` (scalar n).

    0 when ``K = L`` or ``log n = 0`` (then every pair keeps its tail term).
    """
    L, K = _LK(L, K)
    eps = V.positive_real("eps", eps, allow_zero=True)
    cw = theorem3_gapfree_weight_factor(w_max)
    n = float(V.horizon("n", n))
    kp = _kprime(L, K)
    if kp == 0:
        return 0.0
    return float(math.sqrt((1 + eps) * float(_f(n)) * (L - K) * cw / (n * kp)))


def theorem3_gapfree_constant(inst, n, eps, threshold, K=None, form="proof") -> float:
    """``C_theta`` of Corollary 3: Theorem 3's tail terms over pairs with ``Delta > threshold``.

    ``form="proof"``: ``sum_{Delta_{e,e*} > theta} Delta C2/n^beta + K F(n)`` (valid for n >= 1);
    ``form="paper"``: ``K L max_{Delta > theta} C2/n^beta + 7 K log log n`` (the loosening of
    [K15] Theorem 3; ``7 K log log n`` valid from n = 48, see :mod:`bounds.garivier_cappe`).
    """
    from cascading_bandits.bounds.upper import THEOREM3_FORMS

    inst = _instance(inst, K)
    V.choice("form", form, THEOREM3_FORMS)
    eps = V.positive_real("eps", eps)
    th = V.positive_real("threshold", threshold, allow_zero=True)
    n = float(V.horizon("n", n))
    return _gapfree_constant(inst, n, eps, th, form)


def _kept_tail_constants(inst, eps, keep):
    """Per-pair ``(C2, beta)`` of shape (L - K, K), exact (:func:`klucb_tail_constants`,
    within 2 ulp of mpmath), solved for the pairs of ``keep`` only (the others are 0): the
    pairs below the threshold do not enter ``C_theta``."""
    from cascading_bandits.bounds.garivier_cappe import _finite_c2, klucb_tail_constants

    sub, opt = inst.suboptimal_weights, inst.optimal_weights
    C2 = np.zeros(keep.shape)
    beta = np.zeros(keep.shape)
    for i, j in zip(*np.nonzero(keep), strict=True):
        C2[i, j], beta[i, j] = klucb_tail_constants(float(sub[i]), float(opt[j]), eps)
    _finite_c2(C2, eps)
    return C2, beta


def _gapfree_constant(inst, n, eps, th, form):
    """:func:`theorem3_gapfree_constant` for validated arguments."""
    tail = 0.0
    if inst.L > inst.K:
        gaps = inst.gaps()
        keep = gaps > th
        if keep.any():
            C2, beta = _kept_tail_constants(inst, eps, keep)
            with np.errstate(over="ignore", invalid="ignore", under="ignore"):
                t = C2 * np.exp(-beta * math.log(n)) if n > 1 else C2.copy()
            t = np.where(keep, t, 0.0)
            if form == "paper":
                tail = inst.K * inst.L * float(t.max())
            else:
                tail = math.fsum((gaps * t).ravel())
    return tail + _loglog_part(inst, n, form)


def _gapfree3_scalar(inst, n, eps, form):
    w1 = float(inst.sorted_weights[0])
    th = theorem3_gapfree_threshold(inst.L, inst.K, n, eps, w1)
    lead = theorem3_gapfree_leading(inst.L, inst.K, n, eps, w1)
    return lead + theorem3_gapfree_constant(inst, n, eps, th, form=form)


def _gapfree3_grid(inst, n, eps, form):
    """:func:`_gapfree3_scalar` at every eps of the 1-d array ``eps``, with float64 tail
    constants (:func:`bounds.garivier_cappe.klucb_tail_constants_array`, relative error
    < 1e-12, all eps and pairs in one vectorised solve): the objective of the search for eps.
    """
    from cascading_bandits.bounds.garivier_cappe import klucb_tail_constants_array

    # theorem3_gapfree_threshold and _leading, vectorised over eps (the same formulas)
    cw = theorem3_gapfree_weight_factor(float(inst.sorted_weights[0]))
    kp = _kprime(inst.L, inst.K)
    base = (1 + eps) * float(_f(float(n))) * (inst.L - inst.K) * cw
    th = np.sqrt(base / (float(n) * kp)) if kp else np.zeros(eps.shape)
    lead = 2 * np.sqrt(base * kp) * math.sqrt(float(n))
    out = lead + _loglog_part(inst, float(n), form)
    if inst.L > inst.K:
        gaps = inst.gaps()
        keep = gaps[None] > th[:, None, None]  # (G, L - K, K)
        if keep.any():
            mu = inst.suboptimal_weights[None, :, None]
            ms = inst.optimal_weights[None, None, :]
            C2, beta = klucb_tail_constants_array(mu, ms, eps[:, None, None])
            with np.errstate(over="ignore", invalid="ignore", under="ignore"):
                t = C2 * np.exp(-beta * math.log(n)) if n > 1 else C2
            t = np.where(keep, t, 0.0)
            if form == "paper":
                out = out + inst.K * inst.L * t.max(axis=(1, 2))
            else:
                out = out + (t * gaps[None]).sum(axis=(1, 2))
    return out


def _minimise_eps_grid(f, grid=33, points=65, xtol=1e-7):
    """Minimise ``f(eps)`` over ``[1e-3, 1e3]`` for a vectorised ``f`` (1-d array -> array).

    A log grid of ``grid`` points, then rounds of ``points`` equally spaced points between
    the neighbours of the best one (each round shrinks the bracket by ``(points - 1) / 2``)
    until it is narrower than ``xtol`` in log eps; every round is one call of ``f``. Returns
    the best eps seen (the bracket always holds it, so its value never increases).
    """
    xs = np.linspace(math.log(1e-3), math.log(1e3), grid)
    while True:
        vals = np.asarray(f(np.exp(xs)), dtype=float)
        i = int(np.argmin(vals))
        lo, hi = xs[max(i - 1, 0)], xs[min(i + 1, xs.size - 1)]
        if hi - lo < xtol:
            return float(math.exp(xs[i]))
        xs = np.linspace(lo, hi, points)


def theorem3_gapfree_bound(inst, n, eps=None, K=None, form="proof"):
    """Corollary 3 (derived from [K15] Theorem 3's proof) at ``theta*``: leading term + ``C_theta``.

    Parameters
    ----------
    inst : CascadeInstance, or weights with ``K=`` (unique optimal set, as Theorem 3)
    n : int >= 1 (scalar)
    eps : float > 0 or None
        Theorem 3's eps; None minimises the bound over ``eps`` in ``[1e-3, 1e3]``: a log
        grid, then nested finer grids around the best point down to 1e-7 in ``log eps``, on
        float64 tail constants (relative error < 1e-12); the bound returned is then the
        exact one (mpmath-derived constants) at the eps found.
    form : {"proof", "paper"}
        How ``C_theta`` is written (:func:`theorem3_gapfree_constant`).

    Returns
    -------
    (bound, eps) : (float, float)

    The leading term depends on the instance only through ``w(1)`` (``c_w``); ``C_theta``
    only through pairs with gaps above ``theta*``, so the bound stays bounded as any gap -> 0
    (unlike Theorem 3's own ``C``). Premises: CascadeKL-UCB of [K15].
    """
    inst = _instance(inst, K)
    n = V.horizon("n", n)
    if eps is not None:
        eps = V.positive_real("eps", eps)
        return _gapfree3_scalar(inst, n, eps, form), eps
    V.choice("form", form, ("paper", "proof"))
    # search on float64 constants (vectorised over eps and pairs); the exact bound at the eps
    # found (a valid bound at every eps)
    e = _minimise_eps_grid(lambda x: _gapfree3_grid(inst, n, x, form))
    return _gapfree3_scalar(inst, n, e, form), e


# ---------------------------------------------------------------------------
# [V22] and [Z21]: orders (constants and log factors not retrieved)
# ---------------------------------------------------------------------------


def _order_args(L, K, n):
    L, K = _LK(L, K)
    n, scalar = _horizon(n)
    return L, K, n, scalar


def vial_minimax_lower_order(L, K, n):
    """``sqrt(n L)``: the rate of [V22]'s gap-free (minimax) lower bound ``Omega(sqrt(nL))``.

    Order only (``form="order"``): the constant, the theorem number and the exact premises
    (e.g. the range of n relative to L and K) were not retrieved; the abstract states the
    bound. Minimax: for every algorithm *some* instance with L items and lists of K has regret
    of this order; it is not a bound on a given instance.
    """
    L, K, n, scalar = _order_args(L, K, n)
    out = np.sqrt(n * L)
    return float(out) if scalar else out


def vial_cascadeucb1_lower_order(L, K, n):
    """``sqrt(n L K)``: [V22] (abstract): CascadeUCB1 "can suffer" ``Omega(sqrt(nLK))`` regret.

    Order only. The hard instances have small click rates (the abstract: "the hard instances
    of this problem are those with small mean rewards"; the issue records ``w <= 1/K``, which
    could not be checked against the construction). Why
    the extra ``sqrt(K)``: Hoeffding's radius ignores the variance ``w(1-w) ~ 1/K``, so an
    item is sampled ~``log n/Delta^2`` times where ``log n/(K Delta^2)`` suffice, while a list
    of K near-optimal items loses ~``K Delta`` per round; balancing ``n K Delta`` against
    ``L log n / Delta`` gives ``sqrt(nLK log n)``, the order of :func:`theorem2_gapfree_bound`.
    (This heuristic is ours; [V22]'s construction itself was not retrieved.)
    """
    L, K, n, scalar = _order_args(L, K, n)
    out = np.sqrt(n * L * K)
    return float(out) if scalar else out


def vial_klucb_upper_order(L, K, n):
    """``sqrt(n L)``: [V22] (abstract): CascadeKL-UCB attains ``Omega(sqrt(nL))`` up to log terms.

    Order only: ``O~(sqrt(nL))``, the log factors' power not retrieved.
    """
    L, K, n, scalar = _order_args(L, K, n)
    out = np.sqrt(n * L)
    return float(out) if scalar else out


def vial_variance_aware_upper_order(L, K, n):
    """``sqrt(n L)``: [V22] (abstract): Bernstein-based (variance-aware) confidence sets give an
    algorithm optimal up to log terms, i.e. ``O~(sqrt(nL))``. Order only.
    """
    L, K, n, scalar = _order_args(L, K, n)
    out = np.sqrt(n * L)
    return float(out) if scalar else out


def zhong_ts_cascade_upper_order(L, K, n):
    """``sqrt(n L K)``: TS-Cascade's ``O~(sqrt(KLT))`` bound ([Z21]; AISTATS 2019 abstract), T = n.

    Order only (constant and log factors not retrieved). Gap-free, for every instance; the
    abstract states it for ``T >= L`` update steps (the ledger lists it only for ``n >= L``).
    """
    L, K, n, scalar = _order_args(L, K, n)
    out = np.sqrt(n * L * K)
    return float(out) if scalar else out


def zhong_lower_order(L, K, n):
    """``sqrt(n L / K)``: [Z21]'s lower bound, ``Omega(sqrt(nL/K))`` as [V22]'s abstract reports.

    Order only; minimax (some instance), like :func:`vial_minimax_lower_order`, which improves
    it by ``sqrt(K)``.
    """
    L, K, n, scalar = _order_args(L, K, n)
    out = np.sqrt(n * L / K)
    return float(out) if scalar else out


# ---------------------------------------------------------------------------
# the Graves-Lai constant ([C15]'s program) and its closed form
# ---------------------------------------------------------------------------


def _list_arg(inst, items):
    bad = ValueError(
        f"items must be {inst.K} distinct integer indices in 0..{inst.L - 1} "
        f"(positions in the sorted weights), got {V.show(items)}"
    )
    if isinstance(items, (str, bytes, dict, set)) or V.ndim(items) != 1:
        raise bad
    a = []
    for x in items:
        if isinstance(x, (bool, np.bool_)):
            raise bad
        try:
            v = V.positive_int("items", x, minimum=0)
        except ValueError:
            raise bad from None
        a.append(v)
    if len(a) != inst.K or len(set(a)) != inst.K or max(a) >= inst.L:
        raise bad
    return a


def _weights(inst, exact):
    if not isinstance(exact, (bool, np.bool_)):
        raise ValueError(f"exact must be True or False, got {V.show(exact)}")
    s = inst.sorted_weights
    return [Fraction(float(x)) for x in s] if exact else [float(x) for x in s]


def list_regret(inst, items, K=None, exact=False):
    """``D(A) = prod_{a in A} (1 - w(a)) - prod_{j<=K} (1 - w(j))``: the expected regret of A.

    ``items`` index the *sorted* weights (0 is the most attractive item). ``exact=True``
    computes with the exact binary values of the weights as Fractions.
    """
    inst = as_instance(inst, K)
    a = _list_arg(inst, items)
    w = _weights(inst, exact)
    one = Fraction(1) if exact else 1.0
    pa, ps = one, one
    for x in a:
        pa *= 1 - w[x]
    for x in w[: inst.K]:
        ps *= 1 - x
    return pa - ps


def list_examination(inst, items, K=None, exact=False):
    """``o(A)``: for each position, the probability that the item there is examined.

    Returns a list of length K, ``prod_{i<k} (1 - w(a_i))`` (Fractions if ``exact``).
    """
    inst = as_instance(inst, K)
    a = _list_arg(inst, items)
    w = _weights(inst, exact)
    out, prod = [], Fraction(1) if exact else 1.0
    for x in a:
        out.append(prod)
        prod = prod * (1 - w[x])
    return out


def list_regret_excess(inst, items, K=None, exact=True):
    """``D(A) - alpha_sharp sum_{a_k > K} Delta_{a_k,K} o_{a_k}(A)``: >= 0 is dual feasibility.

    The inequality of the Proposition's proof (module docstring); exact Fractions by default.
    """
    inst = as_instance(inst, K)
    a = _list_arg(inst, items)
    w = _weights(inst, exact)
    K = inst.K
    alpha = Fraction(1) if exact else 1.0
    for x in w[: K - 1]:
        alpha *= 1 - x
    o = list_examination(inst, a, exact=exact)
    rhs = sum(((w[K - 1] - w[x]) * o[k] for k, x in enumerate(a) if x >= K), start=0 * alpha)
    return list_regret(inst, a, exact=exact) - alpha * rhs


def graves_lai_coefficient(inst, K=None, dps=None):
    """The Graves-Lai constant of the cascade model in closed form (Proposition, module docstring).

    ``prod_{j<K} (1 - w(j)) sum_{i>K} Delta_{i,K} / kl(w(i), w(K))``, which is
    :func:`bounds.lower.theorem4_sharp_coefficient` (called here). [C15]'s asymptotically
    optimal lower bound is a bound of this kind; its printed formula was not retrieved, so the
    identity with [C15]'s statement is not checked, only with the program.
    Premises: unique optimal set; uniformly good algorithms; asymptotic (``liminf R(n)/log n``).
    """
    from cascading_bandits.bounds.lower import theorem4_sharp_coefficient

    return theorem4_sharp_coefficient(inst, K, dps=dps)


#: most lists the LP enumerates (L!/(L-K)! ordered lists)
GRAVES_LAI_MAX_LISTS = 20000


def graves_lai_lp_coefficient(inst, K=None, max_lists=GRAVES_LAI_MAX_LISTS) -> float:
    """The Graves-Lai program of the module docstring, solved as an LP over all ordered lists.

    Only lists holding a suboptimal item enter (the others carry no information). Requires
    weights in ``(0, 1)``, a unique optimal set and at most ``max_lists`` ordered lists
    (``L!/(L-K)!``). Solved by ``scipy.optimize.linprog`` (HiGHS), each constraint scaled to
    ``sum_A eta_A o_i(A) kl_i >= 1``; relative accuracy about 1e-9.
    """
    from scipy.optimize import linprog

    from cascading_bandits.bounds.kl import kl_mp

    inst = _instance(inst, K)
    m = V.positive_int("max_lists", max_lists)
    s = inst.sorted_weights
    if (s <= 0).any() or (s >= 1).any():
        raise ValueError("graves_lai_lp_coefficient needs every weight in (0, 1)")
    L, K = inst.L, inst.K
    if inst.regret_free:  # K = L or all weights equal: R(n) = 0, the constant is 0
        return 0.0
    count = math.perm(L, K)
    if count > m:
        raise ValueError(f"the LP would enumerate {count} lists > max_lists = {m}; use smaller L")
    sub = list(range(K, L))
    kls = [float(kl_mp(float(s[i]), float(s[K - 1]))) for i in sub]
    if min(kls) < 1e-12:  # HiGHS's feasibility tolerance is about 1e-9 on scaled rows
        raise ValueError(
            f"the weights hold a gap so small that kl(w(e), w(K)) = {min(kls):.3g} < 1e-12: the "
            "LP is beyond HiGHS's tolerances; use graves_lai_coefficient (the closed form)"
        )
    cost, cols = [], []
    for a in itertools.permutations(range(L), K):
        if max(a) < K:
            continue
        o = list_examination(inst, a)
        col = np.zeros(len(sub))
        for k, x in enumerate(a):
            if x >= K:
                col[x - K] = o[k] * kls[x - K]
        cost.append(list_regret(inst, a))
        cols.append(col)
    A_ub = -np.array(cols).T
    res = linprog(
        np.array(cost), A_ub=A_ub, b_ub=-np.ones(len(sub)), bounds=(0, None), method="highs"
    )
    if not res.success:  # pragma: no cover - the LP is always feasible and bounded
        raise RuntimeError(f"linprog failed: {res.message}")
    return float(res.fun)


def _to_float_ratio(num, den) -> float:
    out = num / den
    try:
        return float(out)
    except OverflowError:  # w(1) within an ulp or so of 1 and K large: (1 - w(1))^(K-1) tiny
        raise ValueError(
            "the weights put the ratio beyond the float64 range (w(1) too close to 1)"
        ) from None


def graves_lai_over_theorem4(inst, K=None) -> float:
    """``prod_{j<K} (1 - w(j)) / (1 - w(1))^(K-1)``: the sharp over the general Theorem 4 constant.

    ``>= 1``; equal to 1 iff ``K = 1`` or ``w(1) = ... = w(K-1)`` (every B_LB). Undefined,
    a ValueError, if ``K >= 2`` and ``w(1) = 1`` (both constants are 0; the ratio has no limit
    as ``w(1) -> 1`` for ``K >= 3``).
    """
    inst = _instance(inst, K)
    s = [Fraction(float(x)) for x in inst.sorted_weights]
    num = Fraction(1)
    for x in s[: inst.K - 1]:
        num *= 1 - x
    den = (1 - s[0]) ** (inst.K - 1)
    if den == 0:
        raise ValueError(
            "the weights have w(1) = 1 with K >= 2: both Theorem 4 constants are 0 and their "
            "ratio is undefined"
        )
    return _to_float_ratio(num, den)


# ---------------------------------------------------------------------------
# the ledger: every applicable bound for one instance at one horizon
# ---------------------------------------------------------------------------


def theorem3_form(n) -> str:
    """How Theorem 3's constant C is written at horizon n, in the ledger and its corollary.

    ``"paper"`` (``K L max C2/n^beta + 7 K log log n``, as printed) for ``n >= 48``, where the
    printed ``7 K log log n`` is valid; ``"proof"`` (the sum the proof gives) below 48
    (:mod:`bounds.garivier_cappe`).
    """
    return "paper" if V.horizon("n", n) >= 48 else "proof"


def upper_bound(bound, inst, n, K=None) -> float:
    """The registered upper bound ``bound`` with a constant at horizon n (as in the ledger).

    Parameters
    ----------
    bound : str
        The name of a registered upper bound with a constant (:mod:`bounds.registry`;
        ``cascading bounds --list`` shows them), e.g. ``theorem2``, ``theorem3``,
        ``corollary2``, ``corollary3``.
    inst : CascadeInstance, or weights with ``K=``
    n : int >= 1 (scalar)

    Returns
    -------
    float
        The bound at n.

    Raises
    ------
    ValueError
        For an unknown bound, a lower bound, an order-only bound (no constant to evaluate),
        or an instance outside the bound's premises (the message names the premise).
    """
    from cascading_bandits.bounds.registry import bound_names, get_bound

    allowed = ", ".join(bound_names("upper", "constant"))
    if not isinstance(bound, str):
        raise ValueError(f"bound must be one of {allowed}, got {V.show(bound)}")
    b = get_bound(bound)
    if b.form == "order":
        raise ValueError(
            f"bound {bound!r} ({b.title}) is known only as an order: its constant was not "
            f"retrieved, so it has no value at n; bounds with a constant: {allowed}"
        )
    if b.kind != "upper":
        raise ValueError(
            f"bound {bound!r} is a lower bound; upper bounds with a constant: {allowed}"
        )
    inst = as_instance(inst, K)
    return float(b(inst, V.horizon("n", n)))


def _row(name, source, assumptions, kind, gap, form, value, rate, algorithm):
    return {
        "name": name,
        "source": source,
        "assumptions": list(assumptions),
        "kind": kind,
        "gap": gap,
        "form": form,
        "value": float(value),
        "rate": rate,
        "algorithm": algorithm,
    }


def ledger(instance, n, K=None, model="cascade") -> list[dict]:
    """Every registered bound that applies to the instance at horizon n (:mod:`bounds.registry`).

    Parameters
    ----------
    instance : CascadeInstance, or weights with ``K=``
    n : int >= 1
    model : str or bounds.registry.ModelView
        The click model the premises (and values) are read under; a bound proved for other
        models has no row.

    Returns
    -------
    list of dict, one per applicable bound, with keys :data:`LEDGER_KEYS`:
    ``name`` (the bound's title); ``source`` (venue, theorem, or "derived here");
    ``assumptions`` (list of str: premises, regime and the bound's remarks at n); ``kind``
    ("upper" or "lower"); ``gap`` ("dependent" or "free"); ``form`` ("constant": the bound with
    its constants, or "order": the rate with constant and log factors dropped); ``value``
    (finite float at n); ``rate`` (the formula evaluated); ``algorithm`` (the algorithm it
    bounds, or "any" / "any consistent"); ``bound`` (the registry name). Ordered: upper
    before lower, gap-dependent before gap-free, then in registration order. A bound whose
    premises fail is left out; every value is finite (strict JSON).
    """
    from cascading_bandits.bounds.registry import all_bounds

    inst = as_instance(instance, K)
    n = V.horizon("n", n)
    rows = []
    for b in all_bounds():
        if not b.applies(inst, n, model):
            continue
        try:
            value = b(inst, n, model=model)
        except ValueError:  # beyond float64 at this n: no row, as an inapplicable bound
            continue
        row = _row(
            b.title, b.source, b.note_lines(inst, n), b.kind, b.gap, b.form, value, b.rate,
            b.algorithm,
        )  # fmt: skip
        row["bound"] = b.name
        rows.append(row)
    order = {("upper", "dependent"): 0, ("upper", "free"): 1, ("lower", "dependent"): 2}
    rows.sort(key=lambda r: order.get((r["kind"], r["gap"]), 3))
    return [r for r in rows if math.isfinite(r["value"])]
