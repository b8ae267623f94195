"""Policies (learning agents) the engine runs, by name, and the orders of the list.

``cascade-ucb1``, ``cascade-klucb`` (Algorithm 1, Section 3.2)
    Initialisation from one observed weight vector ``w_0`` (``T_0(e) = 1``,
    ``w_hat(e) = w_0(e)``; ``w_0(e)`` is the users' ``ATTRACT`` draw of step 0, the same
    for every policy). At step ``t = 1..n`` the index of item ``e`` is
    ``U_t(e) = S(e)/T(e) + sqrt(1.5 log(t-1) / T(e))`` (UCB1, ``c_{t-1,T}``) or
    ``klucb_scalar(S(e)/T(e), T(e), log t + c log log t)`` (KL-UCB, ``c = 3``), with the
    small-t rule of :mod:`bounds.indices`; ``S(e)`` counts observed attractions, ``T(e)``
    observations, and the mean is the correctly rounded ``S/T`` (not the incremental
    update of Algorithm 1, which is the same number up to rounding).
``cascade-ts``
    Thompson sampling: ``theta_t(e) ~ Beta(1 + S(e), 1 + T(e) - S(e))`` with the same
    observations as above (``w_0`` included), drawn by :func:`simulate.rng.beta_draw` from
    the run's policy key (a pure function of (key, t, e)).

``oracle``, ``uniform-random`` (baselines and test instruments)
    ``oracle`` is told the truth: its index is ``w(e)`` (DBN: ``rho(e) nu(e)``), so it shows
    the optimal list and its regret is exactly 0. ``uniform-random`` shows a uniformly
    random list: its index is the policy stream's uniform of (t, e). Both go through the
    same observation and counting code as the cascade learners.

The K items with the largest index are listed; ties go to the larger index first,
then the smaller item id. ``best-first`` lists them by decreasing index (Table 1),
``worst-first`` lists the same K items in the reverse order (Table 2).

Observations of the cascade learners (eq. (2)): with ``C`` the position of the
click, the items at positions ``1..C`` are observed (``C`` attractive, the ones
above not); no click means all K are observed unattractive. In the DBN model the
user may click several items; the cascade learners take ``C`` = the *last* click
(Section 5.3: "use the last click as an indicator that the user is satisfied"):
positions before it, clicked or not, are observed as 0, the last click as 1.

``ranked-klucb``, ``ranked-klucb-rba``
    Ranked bandits (Radlinski, Kleinberg and Joachims, ICML 2008) with KL-UCB.
    One KL-UCB bandit over the L items per position ``k = 1..K``, each with its own
    counts ``N_k(e)``, ``S_k(e)``, all using the global step ``t`` in
    ``log t + c log log t`` and starting from no observation (an unplayed item has
    index 1, so each bandit first tries the items in id order). Bandit ``k`` picks
    ``a_k`` (largest index, ties to the smaller id). Duplicate rule: if ``a_k`` is
    already shown above, position ``k`` shows the best item of bandit ``k``'s own
    ranking that is not yet shown (RBA allows "an arbitrary unselected document"; this
    is a deterministic choice of one).

    Reward (the two readings differ only here):

    * ``ranked-klucb``: bandit ``k`` updates the item it *showed* at position ``k`` with
      1 if position ``k`` was clicked, else 0 -- each position learns the click rate of
      what it shows. This is the reading that reproduces Section 5.4's "about three
      times" the regret of CascadeKL-UCB; it is the one in the ``dbn`` experiment.
    * ``ranked-klucb-rba``: RBA's rule as printed: bandit ``k`` updates its own pick
      ``a_k`` with 1 iff position ``k`` was clicked *and* shows ``a_k``, so a pick that was
      replaced as a duplicate is rewarded 0. On B_LB, whose K optimal items are equally
      attractive, the bandits of lower positions keep colliding with the upper ones and
      its regret is about 10-18 times CascadeKL-UCB's at n = 1e5.

    In the DBN model every clicked position counts as clicked. Only ``best-first``
    applies (positions are the bandits').

``counts`` (``T_n(e)``) reported per run are the observation counts of the cascade
rule above: ``T_0 = 1`` included for the cascade learners; for the ranked bandits the
number of steps at which ``e`` was shown at a position ``<= C``.
"""

from __future__ import annotations

from cascading_bandits.bounds import _validate as V

__all__ = [
    "POLICIES",
    "ORDERS",
    "policy_code",
    "order_code",
    "UCB1",
    "KLUCB",
    "TS",
    "RANKED",
    "RANKED_RBA",
    "ORACLE",
    "RANDOM",
    "RANKED_POLICIES",
]

UCB1, KLUCB, TS, RANKED, ORACLE, RANDOM, RANKED_RBA = 0, 1, 2, 3, 4, 5, 6
POLICIES = (
    "cascade-ucb1",
    "cascade-klucb",
    "cascade-ts",
    "ranked-klucb",
    "oracle",
    "uniform-random",
    "ranked-klucb-rba",
)
RANKED_POLICIES = ("ranked-klucb", "ranked-klucb-rba")
ORDERS = ("best-first", "worst-first")


def policy_code(name: str) -> int:
    """Kernel code of a policy name (ValueError for an unknown name)."""
    return POLICIES.index(V.choice("policy", name, POLICIES))


def order_code(name: str, policy: str | None = None) -> int:
    """Kernel code of an order name; ``ranked-klucb`` allows only ``best-first``."""
    code = ORDERS.index(V.choice("order", name, ORDERS))
    if policy in RANKED_POLICIES and code != 0:
        raise ValueError(
            f"{policy} fills positions with their own bandits: only order best-first applies"
        )
    return code
