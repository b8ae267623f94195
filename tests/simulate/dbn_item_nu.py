"""The DBN case with a satisfaction probability per item, pinned by the golden and
equivalence tests.

The engine's DBN model takes one ``nu`` or L of them (:class:`simulate.models.DBNModel`), and
so does the reference: its ``setting`` (tests/simulate/reference/common.py) keeps a sequence
of L as the per-item ``nus`` its clicks and rewards read.

:func:`per_item_nu` and :func:`import_references` once patched every reference module's
``setting`` to take a sequence; nothing needs patching now. They remain, doing nothing, only
while tests/simulate/test_equivalence.py and tests/simulate/test_golden.py still call them.
"""

from __future__ import annotations

from contextlib import nullcontext

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


def per_item_nu():
    """No-op context (the reference takes a per-item ``nu`` itself); kept for its callers."""
    return nullcontext()


def import_references():
    """No-op (nothing is patched any more); kept for its callers."""
