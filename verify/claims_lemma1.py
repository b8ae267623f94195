"""Claims: Lemma 1 (modular decomposition), Section 4.1 and Appendix B.

``lemma1``: the polynomial identity (sympy, K = 1..6) and the expectation form in exact
rational arithmetic on random lists satisfying the premise, with the left side recomputed
by enumerating all outcomes (:func:`bounds.lemma1.lemma1_expectation_enumerated`).
``lemma1.induction``: every equality of the induction step of the appendix, symbolically.
"""

from __future__ import annotations

from cascading_bandits.bounds.lemma1 import (
    lemma1_expectation,
    lemma1_expectation_enumerated,
    prove_lemma1,
    prove_lemma1_induction_step,
)
from cascading_bandits.verify import strategies as S
from cascading_bandits.verify.checks import SlackTracker
from cascading_bandits.verify.registry import claim
from cascading_bandits.verify.verdict import FAILS, HOLDS, SYMBOLIC, Outcome

_KS = range(1, 7)


@claim(
    "lemma1",
    "Section 4.1, Lemma 1 (proof in Appendix B)",
    "E[prod_k w(a_k) - prod_k w(b_k)] = sum_k E[prod_{i<k} w(a_i)] E[w(a_k) - w(b_k)] "
    "prod_{j>k} E[w(b_j)]",
    premises=("w ~ P with independent Bernoulli entries (Assumption 1)", "a_i = b_j only if i = j"),
    method=SYMBOLIC,
    requires=("cascading_bandits.bounds.lemma1",),
)
def _lemma1(ctx):
    sym_ok = all(prove_lemma1(K) for K in _KS)
    tr = SlackTracker()
    mismatch = None
    for _ in range(ctx.examples):
        w, K = S.draw_cascade(ctx.rng, L_max=7)
        A, B = S.draw_lists_premise(ctx.rng, len(w), K)
        lhs, rhs = lemma1_expectation(A, B, w)
        enum = lemma1_expectation_enumerated(A, B, w)
        inst = {"A": A, "B": B, "w": [str(x) for x in w]}
        if lhs != rhs or lhs != enum:
            mismatch = mismatch or dict(inst, lhs=str(lhs), rhs=str(rhs), enumerated=str(enum))
        tr.add(-abs(lhs - rhs), inst)
    ok = sym_ok and mismatch is None
    return Outcome(
        status=HOLDS if ok else FAILS,
        method=SYMBOLIC,
        domain="identity: K = 1..6, all real w (sympy); expectation form: random A, B with the "
        "premise, L <= 7, rational w with ties (exact)",
        domain_spec={"K_symbolic": list(_KS), "L_exact": [1, 7]},
        instances=len(_KS) + tr.n,
        min_slack=0.0,
        argmin=None,
        counterexample=mismatch,
        notes=f"sympy expands LHS - RHS of the polynomial identity to 0 for K = 1..6; the "
        f"expectation form is exact (Fractions) at {tr.n} random instances and its left side "
        "agrees with an enumeration of all 2^m outcomes. Slack of an identity is 0. "
        "Premises: caveats lemma1-independence (needed), lemma1-premise (not needed for the "
        "statement, needed for the proof's term-by-term factorisation).",
    )


@claim(
    "lemma1.induction",
    "Appendix B, proof of Lemma 1 (induction step, each equality of the chain)",
    "each of the four equalities of the induction step holds identically",
    premises=("induction hypothesis for K - 1",),
    method=SYMBOLIC,
    requires=("cascading_bandits.bounds.lemma1",),
)
def _lemma1_induction(ctx):
    Ks = range(2, 7)
    ok = all(prove_lemma1_induction_step(K) for K in Ks)
    return Outcome(
        status=HOLDS if ok else FAILS,
        method=SYMBOLIC,
        domain="K = 2..6, all real w",
        domain_spec={"K": list(Ks)},
        instances=len(Ks),
        min_slack=0.0,
        notes="bounds.lemma1.prove_lemma1_induction_step: sympy checks each equality of the "
        "appendix chain (the third uses the identity for K - 1).",
    )
