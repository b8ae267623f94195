"""Policies (learning agents) the engine runs, declared in a registry, and the list orders.

Every policy is one module of this package that declares itself with
:func:`register_policy` (name, parameters with defaults and ranges, its numba run kernel,
its reference implementation in the tests); importing this package imports every
module here whose name does not start with ``_`` (besides ``registry`` and ``kernel``),
so a new policy is a new module. Policies are named by spec strings such as
``cascade-klucb(c=0)`` (:func:`parse_policy`, :func:`parse_policies`); the canonical
string omits parameters at their default.

Built in: ``cascade-ucb1(alpha=1.5)``, ``cascade-klucb(c=3)`` (Algorithm 1, Section 3.2),
``cascade-ts(prior=1,1)``, ``cascade-egreedy(eps=0.05)``, ``ranked-klucb(c=3)``,
``ranked-klucb-rba(c=3)``, ``oracle``, ``uniform-random`` (see each module).

Common to the cascade learners
    Initialisation from one observed weight vector ``w_0`` (``T_0(e) = 1``,
    ``w_hat(e) = w_0(e)``; ``w_0(e)`` is the users' ``ATTRACT`` draw of step 0, the same for
    every policy). The K items with the largest index are listed; ties go to the smaller
    item id. ``best-first`` lists them by decreasing index (Table 1), ``worst-first`` lists
    the same K items in the reverse order (Table 2).

    Observations (eq. (2)): with ``C`` the position of the click, the items at positions
    ``1..C`` are observed (``C`` attractive, the ones above not); no click means all K are
    observed unattractive. In the DBN model the user may click several items; the cascade
    learners take ``C`` = the *last* click (Section 5.3: "use the last click as an
    indicator that the user is satisfied"): positions before it, clicked or not, are
    observed as 0, the last click as 1. ``counts`` (``T_n(e)``) reported per run are these
    observation counts, ``T_0 = 1`` included.
"""

from __future__ import annotations

import importlib
import pkgutil

from cascading_bandits.bounds import _validate as V
from cascading_bandits.simulate.policies.registry import (
    KERNEL_SIGNATURE,
    ORDERS,
    Param,
    PolicyDecl,
    PolicySpec,
    format_number,
    get_policy,
    help_text,
    make_spec,
    parse_policies,
    parse_policy,
    policy_names,
    register_policy,
    unregister_policy,
)

__all__ = [
    "ORDERS",
    "KERNEL_SIGNATURE",
    "Param",
    "PolicyDecl",
    "PolicySpec",
    "format_number",
    "get_policy",
    "help_text",
    "make_spec",
    "order_code",
    "parse_policies",
    "parse_policy",
    "policy_names",
    "register_policy",
    "unregister_policy",
]

for _m in sorted(m.name for m in pkgutil.iter_modules(__path__)):
    if not _m.startswith("_") and _m not in ("registry", "kernel"):
        importlib.import_module(f"{__name__}.{_m}")


def order_code(name: str, policy=None) -> int:
    """Kernel code of an order name (0 best-first, 1 worst-first), checked against the
    orders ``policy`` (a spec or name) allows."""
    code = ORDERS.index(V.choice("order", name, ORDERS))
    if policy is not None:
        spec = parse_policy(policy)
        if name not in spec.decl.orders:
            raise ValueError(
                f"{spec.name} allows only order {', '.join(spec.decl.orders)}, got {name!r}"
            )
    return code
