"""Claims: the facts used in Section 4.4 (Discussion) and the example after Theorem 4.

* ``discussion.exp_bound``     -- (1 - 1/K)^(K-1) >= 1/e for K > 1 (eq. 7);
* ``discussion.kl_quadratic``  -- kl(p - Delta, p) <= Delta^2 / (p (1 - p)) (eq. 8);
* ``discussion.eq8_chain``     -- each step of the chain (8) is an upper bound, with its constant;
* ``discussion.klucb_below_ucb1`` -- the KL-UCB bound (9) is below the UCB1 bound (8) when
  Delta = Omega(e^-K);
* ``lower.example``            -- the L/(2K) example after Theorem 4.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath

from cascading_bandits.bounds.kl import kl_mp
from cascading_bandits.verify.checks import SlackTracker, certificate_outcome
from cascading_bandits.verify.registry import claim
from cascading_bandits.verify.verdict import (
    EXACT,
    FAILS,
    HOLDS,
    INTERVAL,
    SAMPLING,
    SYMBOLIC,
    Outcome,
)

# --------------------------------------------------------------------------
# (1 - 1/K)^(K-1) >= 1/e
# --------------------------------------------------------------------------


def exp_bound_derivative_residual():
    """sympy: ``h'(u) - u/(1-u)^2`` for ``h(u) = log(1-u) + u/(1-u)`` (should be 0) and ``h(0)``."""
    import sympy  # imported when used: after run_all forks, not before

    u = sympy.Symbol("u", positive=True)
    h = sympy.log(1 - u) + u / (1 - u)
    # the residual is rational in u: cancel decides it exactly; simplify (several times
    # dearer, and its first call imports sympy.physics.units and sympy.tensor) only if not 0
    r = sympy.cancel(sympy.diff(h, u) - u / (1 - u) ** 2)
    return (r if r == 0 else sympy.simplify(r)), h.subs(u, 0)


@claim(
    "discussion.exp_bound",
    "Section 4.4, eq. (7) ('since (1 - 1/K)^(K-1) >= 1/e')",
    "(1 - 1/K)^(K-1) >= 1/e for every K > 1",
    premises=("K > 1",),
    method=SYMBOLIC,
)
def _exp_bound(ctx):
    r, h0 = exp_bound_derivative_residual()
    ok = r == 0 and h0 == 0
    tr = SlackTracker()
    Ks = sorted(
        {2, 3, 10, 10**3, 10**6} | {int(k) for k in ctx.rng.integers(2, 10**4, ctx.examples)}
    )
    with mpmath.workdps(50):
        for K in Ks:
            tr.add((1 - mpmath.mpf(1) / K) ** (K - 1) - mpmath.exp(-1), {"K": K})
    return Outcome(
        status=HOLDS if ok and tr.status == HOLDS else FAILS,
        method=SYMBOLIC,
        domain="all real K > 1",
        domain_spec={"K": [1, "inf"]},
        instances=1 + tr.n,
        min_slack=tr.min_slack,
        argmin=tr.argmin,
        notes="with u = 1/K the claim is h(u) = log(1-u) + u/(1-u) >= 0 on (0, 1); sympy: "
        "h(0) = 0 and h'(u) = u/(1-u)^2 >= 0. Tight as K -> inf (slack ~ 1/(2eK)); "
        f"50-digit values at {tr.n} integers K shown.",
    )


# --------------------------------------------------------------------------
# kl(p - Delta, p) <= Delta^2 / (p (1 - p))
# --------------------------------------------------------------------------


def kl_quadratic_taylor_residual():
    """sympy: ``f''(D) - 1/((p-D)(1-p+D))``, ``f(0)``, ``f'(0)`` for ``f(D) = kl(p - D, p)``.

    All three are 0.
    """
    import sympy  # imported when used: after run_all forks, not before

    p, D = sympy.symbols("p D", positive=True)
    q = p - D
    f = q * sympy.log(q / p) + (1 - q) * sympy.log((1 - q) / (1 - p))
    # f'' is rational (the logs differentiate away): cancel decides the identity exactly and
    # is several times cheaper than simplify, which stays the fallback for a nonzero result
    out = []
    for e in (sympy.diff(f, D, 2) - 1 / ((p - D) * (1 - p + D)), f.subs(D, 0)):
        out.append(sympy.cancel(e))
    out.append(sympy.diff(f, D).subs(D, 0))
    return tuple(x if x == 0 else sympy.simplify(x) for x in out)


def kl_quadratic_slack(ctx, p, x):
    """``(Delta^2/(p(1-p)) - kl(p - Delta, p)) / p`` with ``Delta = x p``."""
    return x * x / (ctx.one - p) - ctx.kl(p * (ctx.one - x), p) / p


#: box of the default run (budget < 2), of budgets 2 to 8, of the slow run (budget >= 8)
KLQ_BOX_SMALL = [(0.1, 0.9), (0.5, 1.0)]
KLQ_BOX = [(0.05, 0.95), (0.5, 1.0)]
KLQ_BOX_WIDE = [(0.01, 0.99), (0.5, 1.0)]


@claim(
    "discussion.kl_quadratic",
    "Section 4.4, eq. (8), second equality ('kl(p - Delta, p) <= Delta^2/(p(1 - p))')",
    "kl(p - Delta, p) <= Delta^2 / (p (1 - p)) for 0 < Delta <= p < 1",
    premises=("0 < Delta <= p < 1",),
    method=INTERVAL,
)
def _kl_quadratic(ctx):
    r, f0, f1 = kl_quadratic_taylor_residual()
    if not (r == 0 and f0 == 0 and f1 == 0):
        return Outcome(
            status=FAILS,
            method=SYMBOLIC,
            domain="Taylor remainder identity",
            notes=f"sympy residuals {r}, {f0}, {f1}",
        )
    wide = ctx.budget >= 8
    box = KLQ_BOX_WIDE if wide else KLQ_BOX if ctx.budget >= 2 else KLQ_BOX_SMALL
    out = certificate_outcome(
        kl_quadratic_slack,
        ("p", "x"),
        box,
        max_boxes=int(40000 if wide else 4000 * ctx.budget),
        to_params=lambda p, x: {"p": p, "Delta": x * p},
        domain=f"Delta/p in (0, 1/2] for every p in (0, 1) (analytic); p in [{box[0][0]:g}, "
        f"{box[0][1]:g}], Delta/p in [1/2, 1] (interval)",
        notes="Near Delta = 0 both sides vanish to second order, so no enclosure can certify boxes "
        "touching Delta = 0; there the common factor Delta^2 is divided out analytically: "
        "sympy checks f(0) = f'(0) = 0 and f''(D) = 1/((p-D)(1-p+D)) for f(D) = kl(p-D, p), so "
        "f(Delta) = Delta^2 int_0^1 (1-v) f''(v Delta) dv <= Delta^2 / (2 min_v (p - v Delta)"
        "(1 - p + v Delta)) <= Delta^2 / (p(1-p)) when Delta <= p/2 (the minimum of the "
        "concave quadratic is at an end, and (p - Delta)(1 - p + Delta) >= p(1-p)/2). "
        "The rest is certified by branch and bound with the slack divided by p.",
    )
    return out


@claim(
    "discussion.eq8_chain",
    "Section 4.4, eq. (8) (the chain of O-forms of the CascadeUCB1 bound)",
    "(L-K)/Delta = (L-K) Delta/Delta^2 <= (L-K) Delta/(p(1-p) kl(p-Delta, p)) <= 2 K (L-K) Delta/"
    "kl(p-Delta, p) on B_LB(L, K, 1/K, Delta), K >= 2",
    premises=("p = 1/K", "K >= 2", "0 < Delta < p"),
    method=SAMPLING,
    requires=("cascading_bandits.bounds.discussion",),
)
def _eq8_chain(ctx):
    from cascading_bandits.bounds.discussion import eq8_ucb1_orders

    tr = SlackTracker()
    with mpmath.workdps(40):
        for i in range(ctx.examples):
            K = int(ctx.rng.integers(2, 33))
            L = K + int(ctx.rng.integers(1, 64))
            d = float(
                (1.0 / K)
                * (
                    ctx.rng.uniform(1e-4, 1 - 1e-4)
                    if i % 2
                    else math.exp(ctx.rng.uniform(-20, 0)) * (1 - 1e-9)
                )
            )
            f = eq8_ucb1_orders(L, K, mpmath.mpf(d), dps=40)
            inst = {"L": L, "K": K, "Delta": d}
            tr.add(1 - f[0] / f[1], dict(inst, step="1 = 2"), tol=1e-30)
            tr.add(1 - f[1] / f[2], dict(inst, step="2 <= 3"))
            tr.add(1 - f[2] / (2 * f[3]), dict(inst, step="3 <= 2 * 4"))
    return tr.outcome(
        SAMPLING,
        "K = 2..32, L - K = 1..63, Delta/p uniform and log-uniform down to e^-20 (40 digits)",
        {"K": [2, 32], "digits": 40},
        notes="relative slacks of each step with bounds.discussion.eq8_ucb1_orders; the O() hides "
        "constant 2 in the last step (1/(p(1-p)) = K^2/(K-1) <= 2K) and 12 from Theorem 2. "
        "The second step is discussion.kl_quadratic (certified).",
    )


# --------------------------------------------------------------------------
# when is the KL-UCB bound below the UCB1 bound?
# --------------------------------------------------------------------------


def klucb_ucb1_ratio(K, delta, dps=80):
    """Theorem 3's leading per-item coefficient over Theorem 2's, B_LB(L, K, 1/K, Delta), eps -> 0.

    ``[Delta (1 + log(1/Delta)) / kl(p - Delta, p)] / (12 / Delta)`` with ``p = 1/K``.
    """
    with mpmath.workdps(dps):
        p = mpmath.mpf(1) / K
        d = mpmath.mpf(delta)
        return d * d * (1 + mpmath.log(1 / d)) / (12 * kl_mp(p - d, p))


def klucb_crossover(K, dps=80):
    """The Delta* below which Theorem 3's coefficient exceeds Theorem 2's on B_LB(., K, 1/K, .).

    Root in ``lambda = log Delta`` of ``ratio = 1``; the ratio is decreasing in Delta on the range
    searched (checked by the caller). Returns ``(Delta*, log(1/Delta*))`` as mpf.
    """
    with mpmath.workdps(dps):

        def g(lam):
            return klucb_ucb1_ratio(K, mpmath.exp(lam), dps) - 1

        # bracket: ratio > 1 at tiny Delta, < 1 at Delta = p/2
        lo = -mpmath.mpf(6 * K * K / (K - 1) + 20)
        hi = mpmath.log(mpmath.mpf(1) / (2 * K))
        if not (g(lo) > 0 > g(hi)):
            raise ValueError(f"no sign change of the ratio on the bracket for K = {K}")
        for _ in range(80):  # bisection: no failure mode; 80 halvings of a width < 300
            mid = (lo + hi) / 2
            if g(mid) > 0:
                lo = mid
            else:
                hi = mid
        lam = (lo + hi) / 2
        return mpmath.exp(lam), -lam


@claim(
    "discussion.klucb_below_ucb1",
    "Section 4.4, after eq. (9)",
    "on B_LB(L, K, 1/K, Delta), Theorem 3's log n coefficient (eps -> 0) is below Theorem 2's "
    "when Delta >= e^-K (the paper: 'when Delta = Omega(e^-K)')",
    premises=("K >= 2", "e^-K <= Delta < 1/K"),
    method=SAMPLING,
)
def _klucb_below(ctx):
    tr = SlackTracker()
    Ks = list(range(2, 41))
    with mpmath.workdps(80):
        for i in range(max(ctx.examples, len(Ks))):
            K = Ks[i % len(Ks)]
            lo, hi = -K, math.log(1 / K)
            lam = lo if i < len(Ks) else float(ctx.rng.uniform(lo, hi))
            d = math.exp(lam)
            tr.add(1 - klucb_ucb1_ratio(K, d), {"K": K, "Delta": d})
    return tr.outcome(
        SAMPLING,
        "K = 2..40, Delta = e^-K and log-uniform in [e^-K, 1/K) (80 digits)",
        {"K": [2, 40], "Delta": ["e^-K", "1/K"]},
        notes="slack = 1 - (KL-UCB coefficient)/(UCB1 coefficient). Analytic reason: for p <= 1/2, "
        "kl(p - Delta, p) >= Delta^2/(2p(1-p)) (Taylor remainder, see discussion.kl_quadratic), "
        "so the ratio is <= (K-1)(1 + log(1/Delta))/(6K^2) < 1/6 at Delta >= e^-K. The true "
        "regime is far wider (caveat klucb-regime).",
    )


# --------------------------------------------------------------------------
# the L/(2K) example after Theorem 4
# --------------------------------------------------------------------------


def example_expected_discovery(L, K):
    """Exact best expected step at which the attractive item is first shown, w = (1, 0, ..., 0).

    Before the discovery there is never a click, so a policy is a fixed sequence of lists; with
    the attractive item uniformly placed (equivalently a uniformly relabelled instance), showing
    K unseen items per step is optimal and gives ``sum_{j=0}^{m-1} (1 - jK/L)``, ``m = ceil(L/K)``.
    """
    m = -(-L // K)
    # the sum over the common denominator L in integers (1 - jK/L = (L - jK)/L), reduced once
    # at the end: the same Fraction as summing Fractions, which reduced every partial sum
    return Fraction(sum(L - j * K for j in range(m)), L)


def example_expected_discovery_bruteforce(L, K):
    """The same minimum by exhaustion over the numbers of new items shown per step (exact)."""
    best = None

    # a policy reveals n_1, n_2, ... new items (0 <= n_j <= K) until all L are seen; the
    # expected step sum_j step_j n_j / L is accumulated as its numerator over L (exact
    # integers, compared as the Fractions they stand for: one denominator)
    def rec(left, step, acc):
        nonlocal best
        if left == 0:
            if best is None or acc < best:
                best = acc
            return
        if step > L + 1:
            return
        for n in range(min(K, left), -1, -1):
            if n == 0:
                continue  # showing no new item only delays discovery
            rec(left - n, step + 1, acc + step * n)

    rec(L, 1, 0)
    return Fraction(best, L)


@claim(
    "lower.example",
    "Section 4.3, after Theorem 4 (the example with one item attractive w.p. 1)",
    "with w = (1, 0, ..., 0) the optimal list is found in L/(2K) steps in expectation; exactly, "
    "the best expected discovery step is E* = sum_{j<m} (1 - jK/L), m = ceil(L/K), and "
    "L/(2K) + 1/2 <= E* < L/(2K) + 1",
    premises=("1 <= K <= L",),
    method=EXACT,
    amended="L/(2K) is not exact: E* = L/(2K) + 1/2 when K divides L; the expected regret, "
    "E* - 1, is L/(2K) - 1/2 (caveat example-l-2k)",
)
def _example(ctx):
    tr = SlackTracker()
    bad = None
    n_brute = 0
    for L in range(1, 9):
        for K in range(1, L + 1):
            if example_expected_discovery_bruteforce(L, K) != example_expected_discovery(L, K):
                bad = {"L": L, "K": K}
            n_brute += 1
    pairs = [(L, K) for L in range(1, 121) for K in range(1, L + 1)]
    for L, K in pairs:
        e = example_expected_discovery(L, K)
        # two-sided: report the smaller of the two slacks, e - (L/(2K) + 1/2) and
        # (L/(2K) + 1) - e, formed over their common denominator 2K den(e) in integers (the
        # same rationals as in Fraction arithmetic, one Fraction a pair instead of six)
        a, b = e.numerator, e.denominator
        lo, hi = 2 * K * a - b * (L + K), b * (L + 2 * K) - 2 * K * a
        tr.add(Fraction(min(lo, hi), 2 * K * b), {"L": L, "K": K, "E*": str(e)})
    if bad:
        return Outcome(
            status=FAILS,
            method=EXACT,
            domain="L <= 8",
            counterexample=bad,
            notes="closed form disagrees with exhaustive search",
        )
    return tr.outcome(
        EXACT,
        "closed form for all 1 <= K <= L <= 120; exhaustive over policies for L <= 8",
        {"L": [1, 120]},
        notes=f"exhaustive minimum over policies equals the closed form for {n_brute} (L, K) pairs "
        "(exact Fractions); slack = distance of E* to the nearer end of [L/(2K) + 1/2, "
        "L/(2K) + 1), 0 when K divides L (lower end attained).",
    )
