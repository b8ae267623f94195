"""Every claim of the paper as a checkable, certifiable claim (docs/design.md, "Claims").

One registry drives ``pytest`` (tests/verify, parametrised over all claims),
``cascading verify`` and the report:

>>> import verify
>>> verdicts = verify.run_all(examples=20, seed=0)          # doctest: +SKIP
>>> [v.claim_id for v in verdicts if v.status == "fails"]   # doctest: +SKIP
[]
>>> [c.id for c in verify.caveats()]                        # doctest: +SKIP

Modules
-------
* :mod:`verify.verdict`    -- :class:`Verdict`, :class:`Outcome`, :class:`Caveat`, statuses, methods
* :mod:`verify.registry`   -- :class:`Claim`, the ``@claim`` decorator, lookup
* :mod:`verify.certify`    -- interval branch-and-bound certificates (mpmath.iv)
* :mod:`verify.strategies` -- random instances: hypothesis strategies and seeded samplers
* ``verify.claims_*``      -- the claims, one module per part of the paper
* :mod:`verify.findings`   -- errata, unstated conditions, premise-dropping counterexamples
* :mod:`verify.cli`        -- ``cascading verify``
"""

from __future__ import annotations

import importlib
import importlib.util

from cascading_bandits.verify.findings import caveats
from cascading_bandits.verify.registry import Claim, all_claims, available_claims, get_claim, safe_run
from cascading_bandits.verify.verdict import FAILS, HOLDS, METHODS, UNDECIDED, Caveat, Outcome, Verdict

# paper order: Section 4.1 (Lemma 1, Theorem 1), 4.2 (Theorems 2, 3 and their proofs),
# 4.3 (Theorem 4), 4.4 (discussion), then the Monte-Carlo checks against the simulator
_CLAIM_MODULES = (
    "cascading_bandits.verify.claims_lemma1",
    "cascading_bandits.verify.claims_theorem1",
    "cascading_bandits.verify.claims_appendix",
    "cascading_bandits.verify.claims_peeling",
    "cascading_bandits.verify.claims_upper",
    "cascading_bandits.verify.claims_lower",
    "cascading_bandits.verify.claims_discussion",
    "cascading_bandits.verify.claims_montecarlo",
    "cascading_bandits.verify.claims_profile",
)

for _m in _CLAIM_MODULES:
    if importlib.util.find_spec(_m) is not None:
        importlib.import_module(_m)


def run_all(examples: int = 50, seed: int = 0, budget: float = 1.0, claims=None) -> list[Verdict]:
    """Run every available claim (or the ids in ``claims``) and return their verdicts.

    Parameters
    ----------
    examples : int
        Random instances per sampled/exact claim.
    seed : int
        Root seed; each claim gets its own stream spawned from it and its id.
    budget : float
        Multiplier for interval box budgets and Monte-Carlo sizes; >= 8 selects the wider
        certificate boxes of the slow run.
    claims : iterable of str, optional
        Claim ids to run (``ValueError`` for an unknown id).

    Returns
    -------
    list of Verdict, in registry order. A check that raises becomes ``undecided`` with the
    exception in its notes (a crash is not evidence about the paper).
    """
    if claims is None:
        todo = available_claims()
    else:
        todo = [get_claim(c) for c in claims]
    return [safe_run(c, examples, seed, budget) for c in todo]


__all__ = [
    "Caveat",
    "Claim",
    "FAILS",
    "HOLDS",
    "METHODS",
    "Outcome",
    "UNDECIDED",
    "Verdict",
    "all_claims",
    "available_claims",
    "caveats",
    "get_claim",
    "run_all",
]
