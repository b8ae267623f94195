"""The constants of CascadeTS's draw rule and lazy selection (:mod:`.ts` describes them).

A module of their own so that :mod:`.ts` (the declaration) and :mod:`._ts_kernels` (the
numba code, imported by ``ts.kernel`` on first use) both import them from here, and
neither imports the other at module level.
"""

from __future__ import annotations

__all__ = ["MARGIN", "M1", "M2", "INVERSION_MIN_L"]

#: u-space margin of the lazy selection (see :mod:`.ts`)
MARGIN = 1e-6
#: targets of the thresholds: about K + M1 (K + M2) samples above x1 (x2)
M1, M2 = 4, 16
#: the number of items from which the samples are drawn by inversion (see :mod:`.ts`)
INVERSION_MIN_L = 128
