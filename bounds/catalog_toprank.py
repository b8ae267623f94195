"""TopRank's regret bounds, [LS20] Theorem 32.2, registered (formulas: :mod:`bounds.toprank`).

* ``toprank``: the gap-dependent display, as printed;
* ``toprank-gapfree``: the gap-free display with the failure term ``delta n m ell^2`` and
  the pair count ``m ell`` derived from the theorem's proof (the stored text prints
  ``delta n m^2 + m``; docs/toprank.md, "The gap-free bound").

Both cover ``toprank`` at its default ``delta = 1``, which the policy reads as ``delta =
1/n`` (the theorem's choice), ``n`` the run's horizon: the value at ``n`` is the bound for a
run of horizon ``n``. Both are in expected clicks. In the cascade model that is the
toolkit's regret (one click at most: expected clicks = ``f(A)``). In the DBN model with one
satisfaction probability ``nu`` (what a cell holds), Assumption 32.1 holds with ``alpha =
rho`` and the toolkit's regret (satisfaction) is ``nu`` times the regret in clicks, so the
bound holds a fortiori; a DBN with per-item ``nu`` (built by hand, not by a cell) is outside
what the premises check.

The position-based model (PBM) is listed too: its reward is the expected number of clicks,
the theorem's own regret, and Assumption 32.1 holds when the examination probabilities do
not increase down the list, ``kappa_1 >= ... >= kappa_K`` (docs/toprank.md; with distinct
attractiveness the condition is also necessary). The premise :data:`PBM_EXAMINATION` reads
``kappa`` from the :class:`bounds.registry.ModelView` the bound is asked under; asked with
the bare name ``"pbm"`` (no ``kappa``) it fails, so a PBM without its parameters is never
covered by default. The dependent click model is not listed: the toolkit's DCM regret is in
satisfaction, not in clicks, and Theorem 32.2 bounds the regret in clicks.
"""

from __future__ import annotations

import numpy as np

from cascading_bandits.bounds import toprank
from cascading_bandits.bounds.registry import Bound, Covers, Premise, register_bound

_SOURCE = (
    "[LS20] Lattimore & Szepesvari, Bandit Algorithms (Cambridge 2020), Theorem 32.2 "
    "(Chapter 32, TopRank of Lattimore, Kveton, Li & Szepesvari, NeurIPS 2018); c of "
    "Exercise 20.11"
)
#: TopRank at its default, delta = 1/n
_COVERS = (Covers("toprank", delta=1.0),)
_MODELS = ("cascade", "dbn", "pbm")


def _distinct_top(inst, n):
    a = inst.sorted_weights
    top = min(inst.K, inst.L - 1)  # pairs (i, j), i <= K, i < j
    return bool(np.all(a[:top] > a[1 : top + 1]))


DISTINCT_TOP = Premise(
    "w(1) > ... > w(K) > w(K+1) (Delta_ij > 0 for every summed pair; a tie makes the "
    "printed sum infinite)",
    _distinct_top,
)


def _pbm_examination(inst, n, model):
    if model.name != "pbm":
        return True
    kappa = model.get("kappa")
    if kappa is None or kappa.size < inst.K:
        return False
    reason = toprank.assumption_32_1_reason("pbm", inst.weights, inst.K, kappa=kappa[: inst.K])
    return reason is None


PBM_EXAMINATION = Premise(
    "PBM users only: examination probabilities given and non-increasing over the positions, "
    "kappa_1 >= ... >= kappa_K (Assumption 32.1)",
    _pbm_examination,
    on_model=True,
)


def _notes(inst, n):
    return [
        "delta = 1/n: toprank at its default (delta = 1)",
        f"c = 4 sqrt(2/pi)/erf(sqrt 2) = {toprank.EXERCISE_20_11_C:.6f} (Exercise 20.11)",
        "in expected clicks: the cascade and PBM regret; DBN (one nu): regret = nu x clicks regret",
    ]


register_bound(
    Bound(
        name="toprank",
        title="Theorem 32.2 of [LS20] (TopRank), gap-dependent",
        label="Thm 32.2, TopRank upper",
        kind="upper",
        form="constant",
        gap="dependent",
        covers=_COVERS,
        algorithm="TopRank (delta = 1/n)",
        premises=(DISTINCT_TOP, PBM_EXAMINATION),
        models=_MODELS,
        evaluate=lambda inst, n: toprank.theorem32_2_gap_dependent(inst.weights, inst.K, n),
        source=_SOURCE,
        rate="delta n K L^2 + sum_{j<=L} sum_{i<=min(K,j-1)} "
        "(1 + 6 (w(i) + w(j)) log(c sqrt(n)/delta) / Delta_ij), delta = 1/n",
        notes=_notes,
        anytime=False,  # delta = 1/n: proved for a run of horizon n only
        validity_instances=(((0.9, 0.6, 0.3, 0.2, 0.1, 0.05), 2),),
    )
)

register_bound(
    Bound(
        name="toprank-gapfree",
        title="Theorem 32.2 of [LS20] (TopRank), gap-free (two terms derived from the proof)",
        label="Thm 32.2, TopRank gap-free",
        kind="upper",
        form="constant",
        gap="free",
        covers=_COVERS,
        algorithm="TopRank (delta = 1/n)",
        premises=(PBM_EXAMINATION,),
        models=_MODELS,
        evaluate=lambda inst, n: toprank.theorem32_2_gap_free(inst.L, inst.K, n),
        source=_SOURCE + "; failure term and pair count derived from eq. (32.5), Lemma 32.4 "
        "and the proof of Lemma 32.7",
        derivation="docs/toprank.md, The gap-free bound",
        rate="delta n K L^2 + K L + sqrt(4 K^3 L n log(c sqrt(n)/delta)), delta = 1/n",
        notes=_notes,
        anytime=False,  # delta = 1/n: proved for a run of horizon n only
    )
)
