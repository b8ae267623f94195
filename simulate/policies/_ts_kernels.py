"""The plain loop of ``cascade-ts`` from INVERSION_MIN_L items on (:mod:`simulate.policies.ts`
describes the policy; its fast kernel is :mod:`._ts_threshold`): a module of its own
because it calls SciPy's Beta functions (:mod:`simulate.special`), which the other
policies, and CascadeTS below the threshold (:mod:`._ts_gamma`), neither import nor
compile.
:func:`simulate.policies.ts.kernel` imports it on the first such run.
"""

from __future__ import annotations

import numba

from cascading_bandits.simulate.policies._ts_gamma import plain_loop
from cascading_bandits.simulate.policies._ts_rule import INVERSION_MIN_L
from cascading_bandits.simulate.policies.kernel import NJIT
from cascading_bandits.simulate.rng import beta_draw
from cascading_bandits.simulate.special import beta_inverse_draw

__all__ = ["draw", "kernel_plain"]


@numba.njit(**NJIT)
def draw(a, b, pkey, t, e, L):
    """The Thompson sample of item e at step t: Gamma ratio below INVERSION_MIN_L items,
    inversion from there on (module docstring)."""
    if L < INVERSION_MIN_L:
        return beta_draw(a, b, pkey, t, e, L)
    return beta_inverse_draw(a, b, pkey, t, e, L)


@numba.njit(**NJIT)
def kernel_plain(env, params, ukey, pkey, regret_out, counts_out, trace):
    """Every item's sample every step by :func:`draw` (the definition, any L; the kernel
    of lazy=False from INVERSION_MIN_L items on)."""
    plain_loop(env, params, ukey, pkey, regret_out, counts_out, trace, draw)
