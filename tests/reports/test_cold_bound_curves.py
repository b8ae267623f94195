"""reports.tables.bound_curves evaluates each theorem on all horizons in one call; the values
must be those of one call per horizon (what the report computed before), bit for bit."""

import numpy as np
import pytest

from cascading_bandits.bounds.lower import theorem4_bound
from cascading_bandits.bounds.upper import theorem2_bound, theorem3_bound
from cascading_bandits.reports import tables as T
from cascading_bandits.reports.build import _bound_curve_grid
from cascading_bandits.reports.section_base import PAPER_HORIZON, QUICK_HORIZON

_FNS = {"theorem2": theorem2_bound, "theorem3": theorem3_bound, "theorem4": theorem4_bound}


def _configs():
    seen = []
    for c in T.paper_table("table1"):
        if (c.L, c.K, c.delta) not in seen:
            seen.append((c.L, c.K, c.delta))
    return seen


@pytest.mark.parametrize(("horizon", "points"), [(PAPER_HORIZON, 12), (QUICK_HORIZON, 6)])
def test_bound_curves_equal_one_call_per_horizon(horizon, points):
    p = float(T.table_meta("table1")["p"])
    ns = _bound_curve_grid(horizon, points)
    for L, K, delta in _configs()[:: 1 if horizon == QUICK_HORIZON else 3]:
        got = T.bound_curves(L, K, p, delta, ns)
        inst = T.b_lb(L, K, p, delta)
        for key, fn in _FNS.items():
            n, v = got[key]
            assert np.array_equal(n, ns)
            want = np.array([float(fn(inst, int(m))) for m in ns])
            assert v.dtype == np.float64 and v.shape == ns.shape
            assert np.array_equal(v, want), (key, L, K, delta)
