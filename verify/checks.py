"""Shared machinery for checks: sampling loops and turning certificates into outcomes."""

from __future__ import annotations

import math

from cascading_bandits.verify.certify import certify, describe_box
from cascading_bandits.verify.verdict import FAILS, HOLDS, INTERVAL, UNDECIDED, Outcome


def _f(x):
    try:
        return float(x)
    except (TypeError, ValueError):
        return x


class SlackTracker:
    """Collects slacks ``rhs - lhs`` over instances: minimum, where, first counterexample.

    ``add(slack, instance, tol=0)`` records one instance; a slack below ``-tol`` is a
    counterexample (``tol`` covers the stated rounding error of float computations; it
    is 0 for exact and interval arithmetic).
    """

    def __init__(self):
        self.n = 0
        self.min_slack = math.inf
        self.argmin = None
        self.counterexample = None

    def add(self, slack, instance: dict, tol=0.0):
        self.n += 1
        s = _f(slack)
        if s < self.min_slack:
            self.min_slack, self.argmin = s, dict(instance)
        if s < -tol and self.counterexample is None:
            self.counterexample = dict(instance, slack=s)

    @property
    def status(self):
        return FAILS if self.counterexample is not None else HOLDS

    def outcome(self, method, domain, domain_spec=None, notes="", status=None, **kw):
        return Outcome(
            status=status or self.status,
            method=method,
            domain=domain,
            domain_spec=domain_spec or {},
            instances=self.n,
            min_slack=None if self.n == 0 else self.min_slack,
            argmin=self.argmin,
            counterexample=self.counterexample,
            notes=notes,
            **kw,
        )


def certificate_outcome(
    slack,
    names,
    box,
    *,
    max_boxes,
    to_params=None,
    domain=None,
    domain_spec=None,
    notes="",
    min_width=1e-9,
):
    """Run :func:`verify.certify.certify` and express the result as an :class:`Outcome`.

    ``min_slack`` is the rigorous lower bound on the slack over the certified boxes
    (in the normalised form the slack function computes, see ``notes``); ``argmin``
    is the midpoint with the smallest 50-digit slack among the boxes that needed
    splitting.
    """
    cert = certify(slack, names, box, max_boxes=max_boxes, to_params=to_params, min_width=min_width)
    spec = dict(domain_spec or {})
    spec.setdefault("box", {n: [lo, hi] for n, (lo, hi) in zip(names, box, strict=False)})
    extra = (
        f"{cert.boxes_certified} boxes certified of {cert.boxes_examined} examined, "
        f"coverage {cert.coverage:.6f} of the box volume; "
        f"certified lower bound on the slack {cert.min_lower:.4g}; "
        f"smallest midpoint slack {cert.min_point_slack:.4g}"
    )
    if cert.left:
        extra += f"; {cert.boxes_left} boxes left, e.g. {cert.left[0]}"
    min_slack = cert.min_lower if cert.boxes_certified else None
    argmin = cert.min_point or None
    if cert.status == "fails":
        status = FAILS
    elif cert.status == "holds":
        status = HOLDS
    else:
        status = UNDECIDED
    return Outcome(
        status=status,
        method=INTERVAL,
        domain=domain or describe_box(names, box),
        domain_spec=spec,
        instances=cert.boxes_examined,
        boxes=cert.boxes_certified,
        boxes_left=cert.boxes_left,
        coverage=cert.coverage,
        min_slack=min_slack,
        argmin=argmin,
        counterexample=cert.counterexample,
        notes=(notes + " " + extra).strip(),
    )
