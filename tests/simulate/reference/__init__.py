"""Plain, obviously-correct per-step reference of every policy and click model.

Pure Python loops, one step at a time, written from the paper and the docstrings of
simulate.policies / simulate.models, sharing with the engine only the index formulas of
bounds (``klucb_scalar``, ``ucb1_radius_scalar``: one formula, one place). Random
numbers come from ``uniform_py`` (an integer re-implementation of the SplitMix64
counters) and a pure-Python Marsaglia-Tsang Beta sampler, so the engine's numba versions
are checked too.

Each policy's reference lives in its own module here and is named by its declaration
(``register_policy(..., reference="reference.<module>:<function>")``);
:func:`reference_run` finds it through the registry. A reference returns the list shown
at every step, the clicks, the cumulative expected regret at every step and the final
observation counts of one run.
"""

from __future__ import annotations

import importlib

from cascading_bandits.simulate.policies import get_policy, parse_policy


def resolve(reference):
    """The callable a declaration's ``reference`` names ("module:function" or a callable)."""
    if callable(reference):
        return reference
    mod, _, fn = reference.partition(":")
    return getattr(importlib.import_module(mod), fn)


def reference_run(model, weights, K, policy, order, horizon, ukey, pkey, nu=1.0, gamma=1.0):
    """One run of ``policy`` (a spec), step by step: (lists, clicks, regret, counts)."""
    spec = parse_policy(policy)
    fn = resolve(get_policy(spec.name).reference)
    return fn(model, weights, K, spec, order, horizon, ukey, pkey, nu, gamma)
