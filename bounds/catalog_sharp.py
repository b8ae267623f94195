"""Sharper upper bounds derived here from the paper's proofs, registered (docs/bounds.md).

* ``theorem2-lp``: Theorem 2's proof stopped before the peeling lemma: the exact optimum of
  the nested counting LP of Appendix A per item, ``6 log n`` times
  :func:`bounds.upper.theorem2_prepeeling_coefficient`, plus ``pi^2 L / 3``;
* ``theorem3-proof``: Theorem 3 in the form its proof gives (per-pair ``C2/n^beta`` weighted
  by the gaps, ``K F(n)`` for the bad steps, valid for every n), eps optimised per horizon;
* ``theorem3-lp``: the same with the exact nested-LP optimum in place of Lemma 2's closed form;
* ``theorem2-binomial``, ``theorem3-binomial``: a shorter chain that replaces the paper's
  counting by exact binomial tails of each suboptimal item's index at the horizon
  (:mod:`bounds.sharp`, derivation in docs/sharper_bounds.md, claims ``sharp.*`` and
  ``profile.binomial_*``); no unique-optimum premise, no eps.

Each is a step of the paper's own chain (Appendix A) that the theorem then loosens, so each is
valid wherever the theorem's proof is; the LP's optimum is certified by the claim
``appendix.peeling_lp`` (an exact duality certificate).
"""

from __future__ import annotations

from cascading_bandits.bounds import sharp, upper
from cascading_bandits.bounds.registry import (
    HAS_SUBOPTIMAL,
    UNIQUE_OPTIMUM,
    Bound,
    Covers,
    Premise,
    register_bound,
)

_UCB1 = (Covers("cascade-ucb1", alpha=1.5),)
_KLUCB = (Covers("cascade-klucb", c=3),)
_PREMISES = (UNIQUE_OPTIMUM, HAS_SUBOPTIMAL)


def _proof_eps_note(inst, n):
    return [
        f"eps = {upper.theorem3_optimal_eps(inst, n, form='proof'):.6g} minimises the bound at n"
    ]


register_bound(
    Bound(
        name="theorem2-lp",
        title="Theorem 2 before peeling: exact nested-LP optimum (derived here)",
        label="Thm 2 proof, exact LP (UCB1)",
        kind="upper",
        form="constant",
        gap="dependent",
        covers=_UCB1,
        algorithm="CascadeUCB1",
        premises=_PREMISES,
        evaluate=lambda inst, n: upper.theorem2_prepeeling(inst, n),
        source="derived here from [K15] ICML 2015, Appendix A (proof of Theorem 2) before "
        "Lemma 3 of Kveton et al. (UAI 2014)",
        derivation="docs/bounds.md, 'Theorem 2 before peeling'",
        rate="6 log n sum_{e>K} LP_e(1/Delta^2) + pi^2 L / 3",
    )
)

register_bound(
    Bound(
        name="theorem3-proof",
        title="Theorem 3 as its proof gives it (derived here)",
        label="Thm 3 proof form (KL-UCB)",
        kind="upper",
        form="constant",
        gap="dependent",
        covers=_KLUCB,
        algorithm="CascadeKL-UCB",
        premises=_PREMISES,
        evaluate=lambda inst, n: upper.theorem3_curve(inst, n, form="proof"),
        source="derived here from [K15] ICML 2015, Appendix A (proof of Theorem 3) with "
        "Garivier & Cappe (COLT 2011) Lemma 8 and Theorem 10 per pair",
        derivation="docs/bounds.md, 'Theorem 3 as the proof gives it'",
        rate="sum_{e>K} (1+eps) Delta_{e,K}(1 + log(1/Delta_{e,K}))/kl(w(e), w(K)) "
        "(log n + 3 log log n) + sum_{e,e*} Delta C2/n^beta + K F(n)",
        notes=_proof_eps_note,
    )
)

register_bound(
    Bound(
        name="theorem3-lp",
        title="Theorem 3 before peeling, proof form: exact nested-LP optimum (derived here)",
        label="Thm 3 proof, exact LP (KL-UCB)",
        kind="upper",
        form="constant",
        gap="dependent",
        covers=_KLUCB,
        algorithm="CascadeKL-UCB",
        premises=_PREMISES,
        evaluate=lambda inst, n: upper.theorem3_curve(inst, n, form="proof", peeling="lp"),
        source="derived here from [K15] ICML 2015, Appendix A (proof of Theorem 3) before "
        "Lemma 2, with Garivier & Cappe (COLT 2011) Lemma 8 and Theorem 10 per pair",
        derivation="docs/bounds.md, 'Theorem 3 before peeling'",
        rate="(1+eps) sum_{e>K} LP_e(1/kl) (log n + 3 log log n) + sum_{e,e*} Delta C2/n^beta "
        "+ K F(n)",
    )
)

_ANY_WEIGHTS = Premise("any attraction probabilities (ties included)", lambda inst, n: True)

register_bound(
    Bound(
        name="theorem2-binomial",
        title="CascadeUCB1 by exact binomial tails (derived here)",
        label="binomial tails (UCB1)",
        kind="upper",
        form="constant",
        gap="dependent",
        covers=_UCB1,
        algorithm="CascadeUCB1",
        premises=(_ANY_WEIGHTS,),
        evaluate=lambda inst, n: sharp.ucb1_binomial_bound(inst, n, alpha=1.5),
        source="derived here from [K15] ICML 2015, Theorem 1, with Hoeffding's inequality for "
        "the optimal items and exact Binomial(s, w(e)) tails for the suboptimal ones",
        derivation="docs/sharper_bounds.md",
        rate="sum_{e>K} sum_{s<=n} sum_k (w(k) - w(k+1)') P(Bin(s, w(e)) >= m_{k,s}) "
        "+ sum_{e*} (w(e*) - w(L)) B_A(n), u_n = w_hat + sqrt(1.5 log(n-1)/s)",
    )
)

register_bound(
    Bound(
        name="theorem3-binomial",
        title="CascadeKL-UCB by exact binomial tails (derived here)",
        label="binomial tails (KL-UCB)",
        kind="upper",
        form="constant",
        gap="dependent",
        covers=_KLUCB,
        algorithm="CascadeKL-UCB",
        premises=(_ANY_WEIGHTS,),
        evaluate=lambda inst, n: sharp.klucb_binomial_bound(inst, n, c=3.0),
        source="derived here from [K15] ICML 2015, Theorem 1, with Garivier & Cappe (COLT 2011) "
        "Theorem 10 for the optimal items and exact Binomial(s, w(e)) tails for the suboptimal "
        "ones",
        derivation="docs/sharper_bounds.md",
        rate="sum_{e>K} sum_{s<=n} sum_k (w(k) - w(k+1)') P(Bin(s, w(e)) >= m_{k,s}) "
        "+ sum_{e*} (w(e*) - w(L)) F(n), u_n the KL-UCB index at log n + 3 log log n",
    )
)
