"""The paper's own bounds, registered (Kveton, Szepesvari, Wen, Ashkan, ICML 2015, Section 4).

* ``theorem2``: Theorem 2, CascadeUCB1 with the paper's ``alpha = 1.5``;
* ``theorem3``: Theorem 3, CascadeKL-UCB with ``c = 3``, at the eps minimising it at each n,
  with its constant C as printed (from n = 48, where the printed ``7 K log log n`` holds; below,
  C as the proof gives it: :func:`bounds.later.theorem3_form`);
* ``theorem4``: Theorem 4, the asymptotic lower bound for consistent policies (on B_LB as
  printed; on any instance in the general form of :mod:`bounds.lower`).

The registry and what reads it: :mod:`bounds.registry`.
"""

from __future__ import annotations

import numpy as np

from cascading_bandits.bounds import lower, upper
from cascading_bandits.bounds.registry import (
    ANY_POLICY,
    HAS_SUBOPTIMAL,
    UNIQUE_OPTIMUM,
    Bound,
    Covers,
    log_n,
    register_bound,
)

#: below this horizon Theorem 3's printed ``7 K log log n`` is not valid (bounds.garivier_cappe)
PAPER_FORM_FROM = 48


def theorem3_by_form(inst, n, peeling="lemma2", forms=None) -> np.ndarray:
    """Theorem 3 at each horizon with eps optimised, C as printed from n = 48, as the proof
    gives it below (``forms``: a fixed ``(form_below_48, form_from_48)``)."""
    below, above = forms or ("proof", "paper")
    n = np.asarray(n, dtype=np.int64)
    out = np.empty(n.shape, dtype=np.float64)
    hi = n >= PAPER_FORM_FROM
    for mask, form in ((~hi, below), (hi, above)):
        if mask.any():
            out[mask] = upper.theorem3_curve(inst, n[mask], form=form, peeling=peeling)
    return out


def _theorem3_notes(inst, n):
    eps = upper.theorem3_optimal_eps(inst, n, form="paper" if n >= PAPER_FORM_FROM else "proof")
    if n >= PAPER_FORM_FROM:
        c = "Theorem 3's C as printed: K L max C2/n^beta + 7 K log log n (valid from n = 48)"
    else:
        c = (
            "n < 48: C as the proof gives it (sum of the pairs' C2/n^beta + K F(n)), since "
            "the printed 7 K log log n fails below n = 48"
        )
    return [f"eps = {eps:.6g} minimises the bound at n", c]


def _theorem4_notes(inst, n):
    if lower.blb_parameters(inst) is not None:
        return ["B_LB instance: the theorem as printed"]
    return [
        "general instance: alpha = (1 - w(1))^(K-1), the form of bounds.lower (Theorem 4 is "
        "stated on B_LB)"
    ]


register_bound(
    Bound(
        name="theorem2",
        title="Theorem 2 (CascadeUCB1)",
        label="Thm 2, UCB1 upper",
        kind="upper",
        form="constant",
        gap="dependent",
        covers=(Covers("cascade-ucb1", alpha=1.5),),
        algorithm="CascadeUCB1",
        premises=(UNIQUE_OPTIMUM, HAS_SUBOPTIMAL),
        evaluate=lambda inst, n: upper.theorem2_curve(inst, n),
        source="[K15] ICML 2015, Theorem 2",
        rate="sum_{e>K} 12 log n / Delta_{e,K} + pi^2 L / 3",
    )
)

register_bound(
    Bound(
        name="theorem3",
        title="Theorem 3 (CascadeKL-UCB)",
        label="Thm 3, KL-UCB upper (opt. ε, with C)",
        kind="upper",
        form="constant",
        gap="dependent",
        covers=(Covers("cascade-klucb", c=3),),
        algorithm="CascadeKL-UCB",
        premises=(UNIQUE_OPTIMUM, HAS_SUBOPTIMAL),
        evaluate=theorem3_by_form,
        source="[K15] ICML 2015, Theorem 3; C2, beta from Garivier & Cappe (COLT 2011) Lemma 8",
        rate="sum_{e>K} (1+eps) Delta_{e,K}(1 + log(1/Delta_{e,K}))/kl(w(e), w(K)) "
        "(log n + 3 log log n) + C",
        notes=_theorem3_notes,
    )
)

register_bound(
    Bound(
        name="theorem4",
        title="Theorem 4",
        label="Thm 4, lower rate (general α)",
        kind="lower",
        form="constant",
        gap="dependent",
        covers=ANY_POLICY,
        algorithm="any consistent",
        premises=(UNIQUE_OPTIMUM, HAS_SUBOPTIMAL),
        evaluate=lambda inst, n: lower.theorem4_coefficient(inst) * log_n(n),
        source="[K15] ICML 2015, Theorem 4 (on B_LB; general-instance form in bounds.lower)",
        rate="(L-K) Delta (1-p)^(K-1) / kl(p - Delta, p) log n on B_LB; "
        "(1-w(1))^(K-1) sum_{e>K} Delta_{e,K} / kl(w(e), w(K)) log n in general",
        asymptotic=True,
        notes=_theorem4_notes,
    )
)
