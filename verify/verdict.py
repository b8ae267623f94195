"""Verdicts and caveats: what a claim's check returns and what the report prints.

A :class:`Verdict` says whether a claim of the paper holds on the domain that
was covered, how that was established (the ``method``, strongest first:
``symbolic`` > ``exact-rational`` > ``interval`` > ``high-precision-sampling``
> ``monte-carlo``), how much was covered, and how tight the claim is there
(the smallest slack ``rhs - lhs`` found and where).

A :class:`Caveat` records a place where the paper (or a result it cites) is
wrong as printed or needs a condition it does not state: what the paper says,
what is true, the numbers that show it, and the pinned test that keeps the
evidence honest.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

HOLDS = "holds"
FAILS = "fails"
UNDECIDED = "undecided"
STATUSES = (HOLDS, FAILS, UNDECIDED)

SYMBOLIC = "symbolic"
EXACT = "exact-rational"
INTERVAL = "interval"
SAMPLING = "high-precision-sampling"
MONTE_CARLO = "monte-carlo"
METHODS = (SYMBOLIC, EXACT, INTERVAL, SAMPLING, MONTE_CARLO)


def _jsonable(x):
    """Plain JSON types: floats stay full double precision, mpmath/Fraction become float."""
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if x is None or isinstance(x, (bool, str, int)):
        return x
    try:
        v = float(x)
    except (TypeError, ValueError):
        return str(x)
    if math.isnan(v):
        return None
    return v if math.isfinite(v) else ("inf" if v > 0 else "-inf")


@dataclass(frozen=True)
class Outcome:
    """What a check returns; :class:`Verdict` adds the claim's identity and the run time.

    Parameters
    ----------
    status : {"holds", "fails", "undecided"}
    method : one of :data:`METHODS`
    domain : str
        Human-readable domain covered, e.g. ``"p in [0.001, 0.999], Delta/p in [0.001, 1]"``.
    domain_spec : dict
        The same, machine-readable (variable -> [lo, hi], plus fixed parameters).
    instances : int
        Points / instances checked (for interval checks: boxes examined).
    boxes : int or None
        Interval checks: boxes certified.
    boxes_left : int or None
        Interval checks: boxes neither certified nor refuted when the budget ran out.
    coverage : float or None
        Interval checks: certified fraction of the domain's volume (normalised coordinates).
    min_slack : float or None
        Smallest ``rhs - lhs`` found (for interval checks: a rigorous lower bound on the
        slack over the certified boxes, or the smallest sampled slack if that is smaller
        information; see ``notes``).
    argmin : dict or None
        The instance where ``min_slack`` occurs.
    counterexample : dict or None
        An instance where the claim is false (status ``fails``).
    notes : str
        How tight boundaries were handled, confidence levels, caveat ids, etc.
    """

    status: str
    method: str
    domain: str
    domain_spec: dict = field(default_factory=dict)
    instances: int = 0
    boxes: int | None = None
    boxes_left: int | None = None
    coverage: float | None = None
    min_slack: float | None = None
    argmin: dict | None = None
    counterexample: dict | None = None
    notes: str = ""

    def __post_init__(self):
        if self.status not in STATUSES:
            raise ValueError(f"status must be one of {STATUSES}, got {self.status!r}")
        if self.method not in METHODS:
            raise ValueError(f"method must be one of {METHODS}, got {self.method!r}")


@dataclass(frozen=True)
class Verdict:
    """The verdict on one claim: :class:`Outcome` plus the claim's id, reference and statement."""

    claim_id: str
    reference: str
    statement: str
    status: str
    method: str
    domain: str
    domain_spec: dict
    instances: int
    boxes: int | None
    boxes_left: int | None
    coverage: float | None
    min_slack: float | None
    argmin: dict | None
    counterexample: dict | None
    notes: str
    amended: str
    seconds: float

    @classmethod
    def from_outcome(cls, claim, outcome: Outcome, seconds: float) -> Verdict:
        d = asdict(outcome)
        return cls(
            claim_id=claim.id,
            reference=claim.reference,
            statement=claim.statement,
            amended=claim.amended,
            seconds=float(seconds),
            **d,
        )

    @property
    def ok(self) -> bool:
        return self.status != FAILS

    def to_dict(self) -> dict:
        """JSON-able dictionary (floats at full double precision)."""
        return _jsonable(asdict(self))


@dataclass(frozen=True)
class Caveat:
    """Where the paper, or a source it cites, is wrong as printed or needs an unstated condition.

    Parameters
    ----------
    id : str
        Short identifier, e.g. ``"peeling-lp-constraints"``.
    claims : tuple of str
        Claim ids it concerns.
    kind : str
        ``"erratum"`` (false as printed), ``"unstated-condition"``, ``"premise-needed"``
        (a stated premise cannot be dropped: counterexample), ``"premise-unneeded"``
        (a stated premise is not needed), or ``"imprecise"`` (true up to a constant/order).
    paper_says, truth : str
        What the paper states and what is actually true.
    evidence : dict
        Numbers that show it (instance and values), computed when :func:`verify.caveats` runs.
    test : str
        The pinned test, ``tests/verify/<file>::<name>``.
    """

    id: str
    claims: tuple
    kind: str
    paper_says: str
    truth: str
    evidence: dict
    test: str

    def to_dict(self) -> dict:
        return _jsonable(asdict(self))
