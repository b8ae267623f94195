"""The mathematics of cascading bandits (Kveton, Szepesvari, Wen, Ashkan; ICML 2015).

Pure functions, no I/O. One module per result family:

* :mod:`bounds.instance`  -- problem instances, B_LB(L, K, p, Delta) (eq. 6)
* :mod:`bounds.kl`        -- Bernoulli KL divergence, KL-UCB index (Section 3.2)
* :mod:`bounds.indices`   -- exploration terms, UCB1 / KL-UCB indices, small-t rule
"""

from bounds.indices import (
    cascade_klucb_index,
    klucb_threshold,
    ucb1_index,
    ucb1_radius,
)
from bounds.instance import CascadeInstance, as_instance, b_lb
from bounds.kl import kl, kl_iv, kl_mp, klucb_index, klucb_index_mp

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
]
