"""The Bernoulli KL divergence on mpmath's raw numbers: :mod:`bounds._rawmp`'s
:func:`kl_mpf` and :func:`log1p_mpf` (``bounds.kl``'s mpmath arithmetic, bit for bit, on
``mpf`` tuples), under the name verify's claims import them by.

They live in ``bounds`` since ``bounds.kl.kl_mp`` computes with them too.
"""

from __future__ import annotations

from cascading_bandits.bounds._rawmp import kl_mpf, log1p_mpf

__all__ = ["kl_mpf", "log1p_mpf"]
