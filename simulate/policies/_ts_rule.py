"""The constant of CascadeTS's draw rule (:mod:`.ts` describes it).

A module of its own so that :mod:`.ts` (the declaration) and :mod:`._ts_kernels` (the
numba code, imported by ``ts.kernel`` on first use) both import it from here, and
neither imports the other at module level.
"""

from __future__ import annotations

__all__ = ["INVERSION_MIN_L"]

#: the number of items from which the samples are drawn by inversion (see :mod:`.ts`)
INVERSION_MIN_L = 128
