"""The reference with a DBN satisfaction probability per item (``nu`` a sequence of L).

The engine's DBN model takes one ``nu`` or L of them (:class:`simulate.models.DBNModel`); the
reference's ``setting`` (tests/simulate/reference/common.py) builds ``nus = [nu] * L`` from one
number only, while its clicks and rewards already read ``nu[e]`` per item. :func:`per_item_nu`
lets the references take a sequence: it replaces ``setting`` in every reference module that
imported it by one that keeps a sequence as it is (one number: the reference's own
``setting``). The replacement is written from the same definitions as the reference's
(``score = rho nu``, the optimal list the K largest scores, ``f* = reward(optimal list)``).
"""

from __future__ import annotations

import sys
from contextlib import contextmanager

import reference  # noqa: F401 - the package, so that its modules are importable below
from reference import common

#: the DBN case pinned by the golden and equivalence tests: B_LB(16, 4, 0.2, 0.15)'s size,
#: every nu different (1.0 among them), gamma equal to none of them
ITEM_NU_16 = (
    0.95,
    0.5,
    0.7,
    0.3,
    0.85,
    0.6,
    1.0,
    0.4,
    0.9,
    0.55,
    0.75,
    0.35,
    0.65,
    0.45,
    0.8,
    0.25,
)
GAMMA = 0.88


def _is_sequence(nu):
    return not isinstance(nu, (int, float)) and hasattr(nu, "__len__")


@contextmanager
def per_item_nu():
    """Within the block every reference accepts a per-item ``nu`` for the dbn model."""
    original = common.setting

    def setting(model, weights, K, nu, gamma):
        if model != "dbn" or not _is_sequence(nu):
            return original(model, weights, K, nu, gamma)
        rho = [float(x) for x in weights]
        nus = [float(x) for x in nu]
        assert len(nus) == len(rho), (len(nus), len(rho))
        g = float(gamma)
        score = [rho[e] * nus[e] for e in range(len(rho))]
        fstar = common.reward_py(model, rho, nus, g, common.ranking(score)[:K])
        return rho, nus, g, score, fstar

    patched = [
        m
        for name, m in list(sys.modules.items())
        if (name == "reference" or name.startswith("reference."))
        and getattr(m, "setting", None) is original
    ]
    for m in patched:
        m.setting = setting
    try:
        yield
    finally:
        for m in patched:
            m.setting = original


def import_references():
    """Import every policy's reference module (so :func:`per_item_nu` patches them all)."""
    import importlib

    from cascading_bandits.simulate.policies import get_policy, policy_names

    for name in policy_names():
        ref = get_policy(name).reference
        if isinstance(ref, str):
            importlib.import_module(ref.partition(":")[0])
