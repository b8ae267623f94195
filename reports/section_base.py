"""What every report section reads and returns: the settings, the context, the section record,
and the few helpers several sections share.

A section is a module ``reports/section_<name>.py`` defining one (or, for the two paper
tables, two) :class:`Section` values; :mod:`reports.build` lists them in order in
``SECTIONS``. A section reads a :class:`Context` and imports nothing of the builder, so
the builder imports the sections and never the other way round.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from cascading_bandits.reports import tables as T

__all__ = [
    "PAPER_HORIZON",
    "PAPER_RUNS",
    "QUICK_HORIZON",
    "QUICK_RUNS",
    "Settings",
    "Context",
    "Section",
    "VERIFY_PENDING",
    "pm_cell",
    "mark_counts",
    "verdict_sentence",
    "md_inline",
    "git_commit",
]

#: the paper's scale (Section 5): n = 1e5 steps, 20 runs
PAPER_HORIZON, PAPER_RUNS = 100_000, 20
#: ``--quick``: enough to exercise every code path in seconds
QUICK_HORIZON, QUICK_RUNS = 2_000, 3


@dataclass
class Settings:
    """What to run and where to write.

    ``runs`` and ``horizon`` default to the paper's scale (or the quick one).
    """

    out: Path
    results: Path | None = None
    quick: bool = False
    runs: int | None = None
    horizon: int | None = None
    seed: int = 0
    workers: int | None = None
    scheduler: str | None = None
    overwrite: bool = False
    progress: bool = True
    verify_examples: int | None = None
    curve_points: int | None = None
    command: str = ""
    timings: dict = field(default_factory=dict)
    #: experiment -> (cells found stored before this run, cells), filled by run_experiments
    reused: dict = field(default_factory=dict)
    #: "tables" / "verify" / "figures" -> True when read from the results directory's cache
    cached: dict = field(default_factory=dict)

    def __post_init__(self):
        from cascading_bandits.bounds import _validate as V

        self.out = Path(self.out)
        self.results = Path(self.results) if self.results is not None else self.out / "results"
        if self.runs is None:
            self.runs = QUICK_RUNS if self.quick else PAPER_RUNS
        if self.horizon is None:
            self.horizon = QUICK_HORIZON if self.quick else PAPER_HORIZON
        self.runs = V.positive_int("runs", self.runs, minimum=2)
        self.horizon = V.positive_int("horizon", self.horizon, minimum=10)
        self.seed = V.positive_int("seed", self.seed, minimum=0)
        if self.workers is not None:
            self.workers = V.positive_int("workers", self.workers)
        if self.verify_examples is None:
            self.verify_examples = 5 if self.quick else 50
        self.verify_examples = V.positive_int("verify_examples", self.verify_examples)
        if self.curve_points is None:
            self.curve_points = 6 if self.quick else 12
        self.curve_points = V.positive_int("curve_points", self.curve_points, minimum=2)


@dataclass
class Context:
    """What every section builder reads: the settings, the tables' data (``build.collect``),
    verify's verdicts and caveats (``build.run_verify``), the written figures (stem -> paths).
    """

    s: Settings
    data: dict
    verify: dict
    figures: dict
    _tables: dict = field(default_factory=dict)
    #: values a section computes once and other sections (or its JSON) read again
    memo: dict = field(default_factory=dict)

    def table(self, name: str, builder) -> T.Table | None:
        """``builder(self)`` once per name (a section's Markdown and the exports share it)."""
        if name not in self._tables:
            self._tables[name] = builder(self)
        return self._tables[name]

    def once(self, name: str, compute):
        """``compute()`` once per name for this report (e.g. rows read from stored files)."""
        if name not in self.memo:
            self.memo[name] = compute()
        return self.memo[name]


@dataclass(frozen=True)
class Section:
    """One part of the report.

    ``markdown(ctx) -> str`` ('' leaves the section out); ``tables``: ``(name, builder)``
    pairs, each ``builder(ctx) -> reports.tables.Table | None``, written as
    ``tables/<name>.csv`` and ``.tex``; ``json(ctx)``: extra JSON stored under ``name``
    in report.json (the paper's tables are stored there already). ``reads_verify``: the
    Markdown reads ``ctx.verify`` or the report's total time; the builder writes the other
    sections while verify is still running beside (their ``ctx.verify`` is
    :data:`VERIFY_PENDING`). ``early(ctx)``, optional: the part of the section's work that
    needs no simulated result (a figure of stored data, drawn into the figure cache), which
    the builder does while the simulation runs; its ``ctx.data`` is empty. The Markdown
    must give the same text with or without it.
    """

    name: str
    markdown: object
    tables: tuple = ()
    json: object = None
    reads_verify: bool = False
    early: object = None


class _VerifyPending:
    """``ctx.verify`` while verify's answer is awaited: any use of it is an error naming
    the remedy, never a silent 'not available'."""

    def _refuse(self, *_args, **_kw):
        raise RuntimeError(
            "this section read ctx.verify before verify's answer was in: declare it "
            "Section(..., reads_verify=True)"
        )

    __getitem__ = __contains__ = __iter__ = get = keys = items = _refuse


#: ``ctx.verify`` of the sections written before verify's answer (``reads_verify=False``)
VERIFY_PENDING = _VerifyPending()


def pm_cell(mean, se):
    """``mean ± se`` as a table cell, ``-`` without a mean."""
    return T.PM(mean, se) if mean is not None else "-"


def mark_counts(rows) -> str:
    """'17 ok, 1 borderline' from rows with a ``mark`` (the agreement with the paper)."""
    counts = {}
    for r in rows:
        counts[r.mark] = counts.get(r.mark, 0) + 1
    order = ("ok", "borderline", "disagree", "n/a", "not run")
    return ", ".join(f"{counts[k]} {k}" for k in order if k in counts)


def verdict_sentence(v: dict) -> str:
    """'N claims checked; none fails (h hold, u undecided).' from verify's verdicts."""
    ds = v["verdicts"]
    count = {}
    for d in ds:
        count[d.get("status")] = count.get(d.get("status"), 0) + 1
    failed = [d["claim_id"] for d in ds if d.get("status") == "fails"]
    parts = [f"{count.get('holds', 0)} hold"]
    if count.get("undecided"):
        parts.append(f"{count['undecided']} undecided")
    head = f"{len(ds)} claims checked; "
    if failed:
        return head + f"**{len(failed)} fail: {', '.join(failed)}** ({', '.join(parts)})."
    return head + f"none fails ({', '.join(parts)})."


def md_inline(text: str) -> str:
    """``text`` with the paper's ``*`` and ``_`` escaped, so Markdown shows them as written."""
    return str(text).replace("*", "\\*").replace("_", "\\_")


def git_commit() -> str:
    """The short hash of the checkout's HEAD, or ``"unknown"`` outside a git checkout."""
    try:
        return (
            subprocess.run(
                ["git", "rev-parse", "--short", "HEAD"],
                capture_output=True,
                text=True,
                cwd=Path(__file__).resolve().parent,
                timeout=10,
            ).stdout.strip()
            or "unknown"
        )
    except (OSError, subprocess.SubprocessError):
        return "unknown"
