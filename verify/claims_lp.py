"""Claims: the nested counting LP behind the bounds ``theorem2-lp`` and ``theorem3-lp``.

* ``sharp.nested_lp`` -- for any increasing thresholds ``tau_1 <= ... <= tau_K`` and
  decreasing gaps, ``m*_k = tau_k - tau_{k-1}`` maximises ``sum_k Delta_k m_k`` over
  ``m >= 0`` with ``sum_{j<=k} m_j <= tau_k``: an exact duality certificate (fractions) for
  UCB1's ``tau = 1/Delta^2`` and KL-UCB's ``tau = 1/kl(w(e), w(k))``, and the value equal to
  what the registered bounds use (``bounds.upper.theorem2_prepeeling_coefficient``,
  ``theorem3_prepeeling_coefficient``), also against SciPy's LP solver (HiGHS). The derivation:
  docs/bounds.md.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from cascading_bandits.bounds.instance import CascadeInstance
from cascading_bandits.bounds.kl import kl_mp
from cascading_bandits.bounds.upper import (
    theorem2_prepeeling_coefficient,
    theorem3_prepeeling_coefficient,
)
from cascading_bandits.verify.checks import SlackTracker
from cascading_bandits.verify.registry import claim
from cascading_bandits.verify.verdict import EXACT, FAILS

#: relative agreement asked of SciPy's HiGHS with the certified LP value (a float solver)
HIGHS_TOL = 1e-7
#: relative agreement asked of the registered coefficients (float64 sums of the same terms)
REGISTERED_TOL = 1e-9


def nested_lp_certificate(gaps, tau):
    """Exact optimality certificate of the greedy ``m*`` for the nested LP.

    Parameters
    ----------
    gaps, tau : sequences of Fraction, shape (K,)
        ``gaps`` decreasing, ``tau`` increasing (the premises; not assumed, checked).

    Returns
    -------
    (primal_feasible, dual_feasible, primal_value, dual_value)
        Dual ``y_k = Delta_k - Delta_{k+1}`` (``Delta_{K+1} = 0``) for the constraints
        ``sum_{j<=k} m_j <= tau_k``; equal values prove both optimal.
    """
    K = len(gaps)
    m = [tau[0]] + [tau[k] - tau[k - 1] for k in range(1, K)]
    primal_ok = all(x >= 0 for x in m) and all(sum(m[: k + 1]) <= tau[k] for k in range(K))
    y = [gaps[k] - (gaps[k + 1] if k + 1 < K else 0) for k in range(K)]
    dual_ok = all(v >= 0 for v in y) and all(sum(y[j:]) >= gaps[j] for j in range(K))
    primal = sum(d * x for d, x in zip(gaps, m, strict=True))
    dual = sum(t * v for t, v in zip(tau, y, strict=True))
    return primal_ok, dual_ok, primal, dual


def nested_lp_highs(gaps, tau) -> float:
    """The same LP solved by SciPy's HiGHS (float64), for an independent check."""
    from scipy.optimize import linprog

    K = len(gaps)
    A = np.tril(np.ones((K, K)))
    res = linprog(-np.asarray(gaps, float), A_ub=A, b_ub=np.asarray(tau, float), bounds=(0, None))
    if res.status != 0:
        raise ValueError(f"HiGHS did not solve the nested LP: {res.message}")
    return float(-res.fun)


def nested_lp_highs_many(problems) -> list[float]:
    """:func:`nested_lp_highs` for many (gaps, tau) pairs in one HiGHS call.

    The LPs share no variable, so one LP with the blocks side by side (a block-diagonal
    constraint matrix) has as optimum the sum of theirs, and the part of an optimal solution
    in each block is optimal for that block. Each block is scaled to values of order 1
    (``gaps / gaps[0]``, ``tau / tau[-1]``: the LP is homogeneous in both), so HiGHS's
    absolute tolerances act as relative ones on every block.
    """
    from scipy.optimize import linprog
    from scipy.sparse import block_diag

    c, b, blocks, scales = [], [], [], []
    for gaps, tau in problems:
        g = np.asarray(gaps, float)
        t = np.asarray(tau, float)
        sg, st = g[0], t[-1]
        c.append(-g / sg)
        b.append(t / st)
        blocks.append(np.tril(np.ones((g.size, g.size))))
        scales.append(sg * st)
    A = block_diag(blocks, format="csr")
    res = linprog(np.concatenate(c), A_ub=A, b_ub=np.concatenate(b), bounds=(0, None))
    if res.status != 0:
        raise ValueError(f"HiGHS did not solve the nested LPs: {res.message}")
    out, i = [], 0
    for cb, sc in zip(c, scales, strict=True):
        out.append(float(-(cb @ res.x[i : i + cb.size])) * sc)
        i += cb.size
    return out


def _draw(rng):
    L = int(rng.integers(3, 9))
    K = int(rng.integers(1, L))
    w = np.sort(rng.integers(1, 1000, size=L) / 1000.0)[::-1]
    # a unique optimal set: the premise of the bounds that use this LP
    if w[K - 1] == w[K]:
        w[K:] = np.minimum(w[K:], w[K - 1] - 1e-3)
    return CascadeInstance(tuple(float(x) for x in w), K)


@claim(
    "sharp.nested_lp",
    "docs/bounds.md (Theorems 2 and 3 before peeling)",
    "m*_k = tau_k - tau_{k-1} is optimal for max sum_k Delta_k m_k s.t. m >= 0, "
    "sum_{j<=k} m_j <= tau_k, for tau = 1/Delta^2 (UCB1) and tau = 1/kl(w(e), w(k)) (KL-UCB); "
    "its value is the coefficient the bounds theorem2-lp and theorem3-lp use",
    premises=("Delta_{e,1} >= ... >= Delta_{e,K} > 0", "tau increasing in k"),
    method=EXACT,
)
def _nested_lp(ctx):
    tr = SlackTracker()
    bad = None
    lps, certified = [], []  # HiGHS's (gaps, tau) and the certified (value, instance)
    for _ in range(ctx.examples):
        inst = _draw(ctx.rng)
        w = inst.sorted_weights
        opt = [Fraction(float(x)) for x in w[: inst.K]]
        totals = {"ucb1": 0.0, "klucb": 0.0}
        for we in w[inst.K :]:
            g = [o - Fraction(float(we)) for o in opt]
            taus = {
                "ucb1": [1 / (d * d) for d in g],
                "klucb": [Fraction(float(kl_mp(float(we), float(o)))) ** -1 for o in opt],
            }
            for name, tau in taus.items():
                p_ok, d_ok, pv, dv = nested_lp_certificate(g, tau)
                desc = {
                    "weights": [float(x) for x in w],
                    "K": inst.K,
                    "item": float(we),
                    "tau": name,
                }
                if not (p_ok and d_ok and pv == dv):
                    bad = bad or dict(desc, primal_ok=p_ok, dual_ok=d_ok)
                totals[name] += float(pv)
                lps.append(([float(x) for x in g], [float(x) for x in tau]))
                certified.append((float(pv), desc))
        for name, coef in (
            ("ucb1", theorem2_prepeeling_coefficient(inst)),
            ("klucb", theorem3_prepeeling_coefficient(inst)),
        ):
            rel = abs(coef - totals[name]) / max(totals[name], 1e-300)
            if rel > REGISTERED_TOL:
                bad = bad or {"weights": [float(x) for x in w], "K": inst.K, "bound": name,
                              "registered": coef, "certified": totals[name]}  # fmt: skip
    # every LP solved by HiGHS at once (independent blocks: nested_lp_highs_many)
    for hv, (pv, desc) in zip(nested_lp_highs_many(lps), certified, strict=True):
        rel = abs(hv - pv) / pv
        if rel > HIGHS_TOL:
            bad = bad or dict(desc, highs_rel=rel)
        tr.add(HIGHS_TOL - rel, desc)
    if bad and tr.counterexample is None:
        tr.counterexample = bad
    return tr.outcome(
        EXACT,
        "random instances, L = 3..8, weights k/1000, unique optimal set",
        {"L": [3, 8], "weights": "multiples of 1/1000"},
        status=FAILS if bad else None,
        notes="exact duality certificate per suboptimal item (fractions of the float64 tau); "
        f"SciPy HiGHS (all LPs as the blocks of one) agrees to {HIGHS_TOL:g} relative; the "
        f"registered coefficients to {REGISTERED_TOL:g}. Slack: {HIGHS_TOL:g} minus HiGHS's "
        "relative difference",
    )
