"""Registry-driven test cases: every declared policy x click model x allowed order.

Imported by the equivalence, CRN and seed tests, so a newly declared policy (or model) is
covered without editing them. ``variant(decl)`` is a spec of the policy with every
parameter away from its default (inside its range), so parameters reach the kernel.
``assert_lazy_equals_plain`` is the check every lazy selection is held to.
"""

from __future__ import annotations

import math

import numpy as np

from cascading_bandits.simulate.engine import simulate_runs
from cascading_bandits.simulate.models import MODEL_NAMES
from cascading_bandits.simulate.policies import get_policy, make_spec, policy_names


def _other(p):
    out = []
    for d in p.default:
        lo_ok = math.isfinite(p.lo) and not p.lo_open and p.lo != d
        if lo_ok:
            out.append(p.lo)
        elif d + 1 < p.hi:
            out.append(d + 1)
        else:
            out.append((p.lo + d) / 2)
    return tuple(out) if p.size > 1 else out[0]


def variant(name):
    """The policy with every parameter at another value than its default (None if none)."""
    decl = get_policy(name)
    if not decl.params:
        return None
    return make_spec(name, **{p.name: _other(p) for p in decl.params}).text


def specs():
    """Every policy's default spec, and its variant when it has parameters."""
    out = []
    for name in policy_names():
        out.append(name)
        v = variant(name)
        if v is not None:
            out.append(v)
    return out


def combos(spec_list=None):
    """(spec, model, order) for every spec, click model and order the policy allows."""
    return [
        (s, m, o)
        for s in (specs() if spec_list is None else spec_list)
        for m in MODEL_NAMES
        for o in get_policy(s.partition("(")[0]).orders
    ]


def assert_lazy_equals_plain(args, threads=1):
    """The lazy selection takes the plain loop's decisions: same lists, clicks, regret and
    counts at every step. ``args`` = (model, policy, order, horizon, ukeys, pkeys,
    checkpoints) of :func:`simulate.engine.simulate_runs`."""
    n = args[3]
    lazy = simulate_runs(*args, threads=threads, lazy=True, trace_steps=n)
    plain = simulate_runs(*args, threads=threads, lazy=False, trace_steps=n)
    for name, a, b in zip(("regret", "counts", "lists", "clicks"), lazy, plain, strict=True):
        np.testing.assert_array_equal(a, b, err_msg=name)
