"""Claims: Theorem 1 (regret decomposition), Section 4.1.

All checks are exact (Fractions) on random instances with ties and random UCB vectors:

* ``theorem1.permutation``: pi_t is a permutation of an optimal set with pi_t(k) = a_k for
  optimal a_k, U_t(a_k) >= U_t(pi_t(k)) and w(a_k) <= w(pi_t(k));
* ``theorem1.upper`` / ``theorem1.lower``: alpha S <= E_t[R(A_t, w_t)] <= S, with the
  conditional regret recomputed by enumerating all outcomes of the items involved.
"""

from __future__ import annotations

from cascading_bandits.bounds.decomposition import (
    recommended_list,
    theorem1_bounds,
    theorem1_permutation,
)
from cascading_bandits.bounds.lemma1 import expectation_by_enumeration
from cascading_bandits.verify import strategies as S
from cascading_bandits.verify.checks import SlackTracker
from cascading_bandits.verify.registry import claim
from cascading_bandits.verify.verdict import EXACT, FAILS, Outcome

_REQ = ("cascading_bandits.bounds.decomposition",)


def regret_by_enumeration(A, w, K):
    """``E[f(A*, w_t) - f(A, w_t)]``, exactly, summing over all outcomes of the items in A, A*."""
    opt = sorted(range(len(w)), key=lambda e: -w[e])[:K]
    return expectation_by_enumeration(
        w, set(A) | set(opt), lambda val: max(val[e] for e in opt) - max(val[a] for a in A)
    )


def _draw(ctx):
    """(w, K, U, A = top-K of U). Half the UCB vectors are random (with ties); the other half
    rank a uniformly random K-permutation first, so lists with suboptimal items are common."""
    w, K = S.draw_cascade(ctx.rng, L_max=7)
    if ctx.rng.random() < 0.5:
        U = S.draw_unit_vector(ctx.rng, len(w))
    else:
        order = [int(x) for x in ctx.rng.permutation(len(w))]
        U = [0.0] * len(w)
        for r, e in enumerate(order):
            U[e] = float(len(w) - r)
    A = recommended_list(U, K)
    return w, K, U, A


@claim(
    "theorem1.permutation",
    "Section 4.1, Theorem 1 (and its proof: the permutation pi_t)",
    "there is a permutation pi_t of the optimal items with U_t(a_k) >= U_t(pi_t(k)) and "
    "w(a_k) <= w(pi_t(k)) for all k",
    premises=("A_t = K items with the largest UCBs",),
    method=EXACT,
    requires=_REQ,
)
def _permutation(ctx):
    tr = SlackTracker()
    for _ in range(ctx.examples):
        w, K, U, A = _draw(ctx)
        pi = theorem1_permutation(A, w, K)
        top = sorted(w, reverse=True)[:K]
        inst = {"w": [str(x) for x in w], "K": K, "U": U, "A": A, "pi": pi}
        ok = (
            len(set(pi)) == K
            and sorted((w[e] for e in pi), reverse=True) == top
            and all(pi[k] == A[k] for k in range(K) if A[k] in set(pi))
        )
        slack_u = min(U[A[k]] - U[pi[k]] for k in range(K))
        slack_w = min(w[pi[k]] - w[A[k]] for k in range(K))
        tr.add(min(slack_u, float(slack_w)) if ok else -1.0, inst)
    return tr.outcome(
        EXACT,
        "random rational w with ties (L <= 7), random U (with ties, or ranking a random list "
        "first), A = top-K of U",
        {"L": [1, 7]},
        notes="min slack = min_k min(U(a_k) - U(pi(k)), w(pi(k)) - w(a_k)); 0 wherever a_k is "
        "optimal (pi(k) = a_k). Also checked: pi is a set of K items with the top-K weights "
        "and fixes the optimal items of A.",
    )


def _bounds_check(ctx, which):
    tr = SlackTracker()
    mismatch = None
    zero = 0
    for _ in range(ctx.examples):
        w, K, U, A = _draw(ctx)
        lower, exact, upper = theorem1_bounds(A, w, K)
        enum = regret_by_enumeration(A, w, K)
        inst = {
            "w": [str(x) for x in w],
            "K": K,
            "A": A,
            "lower": str(lower),
            "regret": str(exact),
            "upper": str(upper),
        }
        if enum != exact:
            mismatch = mismatch or dict(inst, enumerated=str(enum))
        if upper == 0:
            # no suboptimal item observed: all three are 0 (checked), no relative slack
            zero += 1
            if not lower == exact == 0:
                mismatch = mismatch or dict(inst, reason="S = 0 but the regret is not 0")
            continue
        # relative slack, in units of S: (S - R)/S, or (R - alpha S)/S
        tr.add((upper - exact) / upper if which == "upper" else (exact - lower) / upper, inst)
    if mismatch:
        return Outcome(
            status=FAILS,
            method=EXACT,
            domain="random instances",
            instances=tr.n,
            counterexample=mismatch,
            notes="conditional regret disagrees with enumeration",
        )
    return tr.outcome(
        EXACT,
        "random rational w with ties (L <= 7), random U (with ties, or ranking a random list "
        "first), A = top-K of U",
        {"L": [1, 7]},
        notes="exact Fractions; E_t[R] recomputed by enumerating all outcomes of the items of "
        "A and A*. Slack relative to S (instances with S > 0; "
        f"{zero} instances had S = 0 and regret 0). The upper bound is attained when the "
        "only suboptimal item is last; the best constant in the lower bound is "
        "prod_{j<K} (1 - w(j)) >= alpha (caveat theorem1-alpha).",
    )


@claim(
    "theorem1.upper",
    "Section 4.1, Theorem 1 (upper bound)",
    "E_t[R(A_t, w_t)] <= sum_{e>K} sum_{e*<=K} Delta_{e,e*} E_t[1{G_{e,e*,t}}]",
    premises=("Assumption 1", "A_t = K items with the largest UCBs"),
    method=EXACT,
    requires=_REQ,
)
def _upper(ctx):
    return _bounds_check(ctx, "upper")


@claim(
    "theorem1.lower",
    "Section 4.1, Theorem 1 (lower bound)",
    "E_t[R(A_t, w_t)] >= alpha sum_{e>K} sum_{e*<=K} Delta_{e,e*} E_t[1{G_{e,e*,t}}], "
    "alpha = (1 - w(1))^(K-1)",
    premises=("Assumption 1", "A_t = K items with the largest UCBs"),
    method=EXACT,
    requires=_REQ,
)
def _lower(ctx):
    return _bounds_check(ctx, "lower")
