"""The mathematics of cascading bandits (Kveton, Szepesvari, Wen, Ashkan; ICML 2015).

Pure functions, no I/O. One module per result family:

* :mod:`bounds.instance`  -- problem instances, B_LB(L, K, p, Delta) (eq. 6)
* :mod:`bounds.kl`        -- Bernoulli KL divergence, KL-UCB index (Section 3.2)
* :mod:`bounds.indices`   -- exploration terms, UCB1 / KL-UCB indices, small-t rule
* :mod:`bounds.lemma1`    -- Lemma 1 (modular decomposition): sympy proof, exact expectation form
* :mod:`bounds.decomposition` -- Theorem 1 (regret decomposition), exact with fractions
* :mod:`bounds.peeling`   -- Lemma 2 (KL peeling) and Lemma 3 of "Matroid bandits" (UCB1 peeling)
* :mod:`bounds.upper`     -- Theorems 2, 3 (upper bounds), pre-peeling forms, Theorem 3's C, eps
* :mod:`bounds.garivier_cappe` -- C_2(eps), beta(eps) and 7 log log n from Garivier and Cappe (2011)
* :mod:`bounds.lower`     -- Theorem 4 (lower bound) on B_LB and on any instance
* :mod:`bounds.discussion` -- the discussion's orders, eqs. (7)-(9)
* :mod:`bounds.later`     -- later theory: gap-free corollaries, Graves-Lai constant, ledger
* :mod:`bounds.overview` -- what ``cascading bounds`` and ``cascading ledger`` print, and their
  cost estimate; the commands themselves are ``reports/cli/bounds.py`` and
  ``reports/cli/ledger.py`` (the one command-line layer, which this package never imports)
"""

# first: numba's cache directory is keyed by the sources before any kernel is declared
import cascading_bandits.bounds._numba_cache  # noqa: F401
from cascading_bandits.bounds.decomposition import (
    conditional_regret,
    event_probabilities,
    expected_reward,
    recommended_list,
    theorem1_bounds,
    theorem1_permutation,
)
from cascading_bandits.bounds.discussion import discussion_orders
from cascading_bandits.bounds.indices import (
    cascade_klucb_index,
    klucb_threshold,
    ucb1_index,
    ucb1_radius,
)
from cascading_bandits.bounds.instance import CascadeInstance, as_instance, b_lb
from cascading_bandits.bounds.kl import kl, kl_iv, kl_mp, klucb_index, klucb_index_mp
from cascading_bandits.bounds.later import (
    graves_lai_coefficient,
    ledger,
    theorem2_gapfree_bound,
    theorem3_gapfree_bound,
    upper_bound,
)
from cascading_bandits.bounds.lemma1 import (
    lemma1_expectation,
    lemma1_identity,
    prove_lemma1,
    prove_lemma1_induction_step,
)
from cascading_bandits.bounds.lower import (
    theorem4_bound,
    theorem4_coefficient,
    theorem4_curve,
    theorem4_general_coefficient,
)
from cascading_bandits.bounds.peeling import (
    lemma2_lhs,
    lemma2_rhs,
    ucb1_peeling_lhs,
    ucb1_peeling_rhs,
)
from cascading_bandits.bounds.upper import (
    theorem2_bound,
    theorem2_curve,
    theorem2_leading_coefficient,
    theorem2_prepeeling,
    theorem3_bound,
    theorem3_constant,
    theorem3_curve,
    theorem3_leading_coefficient,
    theorem3_optimal_eps,
    theorem3_prepeeling,
)

__all__ = [
    "CascadeInstance",
    "as_instance",
    "b_lb",
    "kl",
    "kl_iv",
    "kl_mp",
    "klucb_index",
    "klucb_index_mp",
    "klucb_threshold",
    "ucb1_index",
    "ucb1_radius",
    "cascade_klucb_index",
    "lemma1_identity",
    "prove_lemma1",
    "prove_lemma1_induction_step",
    "lemma1_expectation",
    "expected_reward",
    "recommended_list",
    "theorem1_permutation",
    "conditional_regret",
    "event_probabilities",
    "theorem1_bounds",
    "lemma2_lhs",
    "lemma2_rhs",
    "ucb1_peeling_lhs",
    "ucb1_peeling_rhs",
    "theorem2_bound",
    "theorem2_curve",
    "theorem2_leading_coefficient",
    "theorem2_prepeeling",
    "theorem3_bound",
    "theorem3_curve",
    "theorem3_constant",
    "theorem3_leading_coefficient",
    "theorem3_optimal_eps",
    "theorem3_prepeeling",
    "theorem4_bound",
    "theorem4_curve",
    "theorem4_coefficient",
    "theorem4_general_coefficient",
    "discussion_orders",
    "theorem2_gapfree_bound",
    "theorem3_gapfree_bound",
    "graves_lai_coefficient",
    "ledger",
    "upper_bound",
]
