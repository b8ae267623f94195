"""Synthetic results shaped like simulate.results.CellResult, to test reports without simulating."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from cascading_bandits.reports.paper import figure1_meta, paper_table, table_meta


@dataclass(frozen=True)
class FakeResult:
    """The fields of the simulate contract's CellResult that reports reads."""

    params: dict
    checkpoints: np.ndarray
    regret: np.ndarray
    counts: np.ndarray = field(default=None)
    provenance: dict = field(default_factory=dict)

    @property
    def mean_regret(self) -> float:
        return float(self.regret[:, -1].mean())

    @property
    def stderr(self) -> float:
        return float(self.regret[:, -1].std(ddof=1) / math.sqrt(self.regret.shape[0]))


def make_result(params, final, horizon=1000, m=8):
    """A result whose per-run regret grows like log t and ends at ``final`` (shape (runs,))."""
    final = np.asarray(final, dtype=np.float64)
    t = np.unique(np.geomspace(1, horizon, m).astype(np.int64))
    t[-1] = horizon
    shape = np.log1p(t) / np.log1p(horizon)
    regret = final[:, None] * shape[None, :]
    p = {"horizon": horizon, "runs": final.size, **params}
    L = int(p.get("L", 4))
    return FakeResult(p, t, regret, np.zeros((final.size, L), dtype=np.int64))


def two_runs(mean, se):
    """Two per-run values with the given mean and standard error (ddof=1): mean -+ se."""
    return [mean - se, mean + se]


def table_results(name, shift=lambda c: 0.0, horizon=1000):
    """One fake result per published cell of Table 1 or 2.

    ours = paper mean + shift(cell), with se = the paper's se.
    """
    order = table_meta(name)["order"]
    out = []
    for c in paper_table(name):
        params = {
            "experiment": name,
            "model": "cascade",
            "order": order,
            "L": c.L,
            "K": c.K,
            "delta": c.delta,
            "p": 0.2,
            "policy": c.policy,
            "nu": 1.0,
            "gamma": 1.0,
            "c": 3.0,
            "cell_id": f"{name}-{c.L}-{c.K}-{c.delta}-{c.policy}",
        }
        out.append(make_result(params, two_runs(c.mean + shift(c), c.se), horizon=horizon))
    return out


def dbn_results(ratio=3.0, horizon=1000):
    meta = figure1_meta()
    out = []
    for nu in meta["nu"]:
        for gamma in meta["gamma"]:
            base = np.array([100.0, 110.0, 90.0, 105.0])
            for pol, final in (("cascade-klucb", base), ("ranked-klucb", ratio * base)):
                params = {
                    "experiment": "dbn",
                    "model": "dbn",
                    "order": "best-first",
                    "L": 16,
                    "K": 4,
                    "delta": 0.15,
                    "p": 0.2,
                    "policy": pol,
                    "nu": nu,
                    "gamma": gamma,
                    "cell_id": f"dbn-{nu}-{gamma}-{pol}",
                }
                out.append(make_result(params, final, horizon=horizon))
    return out


def _small_figure(*args, **kwargs):
    """One small matplotlib figure with a line (what a section's drawing returns)."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(1, 1))
    fig.subplots().plot([0, 1], [0, 1])
    return fig


def patch_section_figures(mp):
    """Replace the figures the sections draw themselves (misspecification's two and the
    worst case, of stored data, drawn while the simulation runs; the sharper-bounds figure)
    by one small figure each, on the MonkeyPatch ``mp``.

    For the tests of the builder's other work: those four figures took about 5 CPU s of
    every report built from the fakes. They are still drawn, cached and linked through the
    sections' own code; their real drawings are made by test_report_quick (a real quick
    report, the only one of the default run that writes them) and checked by
    test_sharper_section, test_misspec and test_worstcase.
    """
    from cascading_bandits.reports import misspec, section_sharper, worstcase

    mp.setattr(misspec, "plot_ratio", _small_figure)
    mp.setattr(misspec, "plot_curves", _small_figure)
    mp.setattr(worstcase, "plot_worstcase", _small_figure)
    mp.setattr(section_sharper, "sharper_figure", _small_figure)


#: the functions of reports.figures that reports.build.draw_figures calls, one per stem of
#: build.FIGURES
BUILDER_FIGURES = ("figure1", "bounds_vs_empirical", "scaling_figure", "order_figure",
                   "policies_figure")  # fmt: skip


def patch_builder_figures(mp):
    """Replace the drawings of the builder's own figures (``build.FIGURES``, made by
    ``build.draw_figures`` from the results) by one small figure each, on the MonkeyPatch
    ``mp``: ``draw_figures`` still picks the figures the data supports, and the builder
    renders, writes and links each of them. The real drawings (about 5 CPU s of a report's
    forked figures process) are made from the simulator's results by test_report_quick's
    quick report, which checks every one of build.FIGURES.
    """
    from cascading_bandits.reports import figures as F

    for name in BUILDER_FIGURES:
        assert callable(getattr(F, name)), name  # a renamed figure fails here, not silently
        mp.setattr(F, name, _small_figure)


def fake_simulation(mp, run):
    """Make the report builder read ``run(s)`` (``s`` its Settings) instead of simulating, on
    the MonkeyPatch ``mp``: ``build.run_experiments`` returns it whatever else the builder
    passes (the sweep's executor), and no sweep workers are started beforehand
    (``build.start_pool``, where the builder has one), as no cell is simulated."""
    from cascading_bandits.reports import build as B

    mp.setattr(B, "run_experiments", lambda s, *args, **kwargs: run(s))
    if hasattr(B, "start_pool"):
        mp.setattr(B, "start_pool", lambda s: None)
