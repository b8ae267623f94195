"""One display name per policy: ``cascading study``'s figure and the report's figures label a
policy spec alike (``reports.figures.display_name``), and the report's log axes use one
helper (``reports.figures.log_scale``)."""

from __future__ import annotations

import importlib
from types import SimpleNamespace

import numpy as np
import pytest

from cascading_bandits.reports.figures import POLICY_NAMES, display_name, regret_curves
from cascading_bandits.reports.regret_plot import plot_regret

SPECS = (
    "cascade-ucb1",
    "cascade-klucb",
    "cascade-klucb(c=0)",
    "cascade-klucb(c=3)",
    "cascade-ucb1(alpha=2)",
    "ranked-klucb",
    "cascade-ts",
    "toprank",
    "cascade-ucbv",
    "oracle",
)


def _result(spec, scale=1.0):
    t = np.array([1, 10, 100, 1000])
    regret = scale * np.array([[0.5, 3.0, 9.0, 20.0], [0.7, 2.0, 8.0, 22.0]])
    return SimpleNamespace(policy=spec, params={"policy": spec}, checkpoints=t, regret=regret)


def _legend(fig):
    return [t.get_text() for t in fig.axes[0].get_legend().get_texts()]


@pytest.mark.parametrize("spec", SPECS)
def test_study_and_report_label_a_policy_alike(spec):
    study = _legend(plot_regret([_result(spec)], bounds=False))
    report = _legend(regret_curves([_result(spec)]))
    name = display_name(spec)
    assert report == [name]
    assert study[0] == name  # then the notes (bands, ...)


def test_the_names_are_the_papers_with_the_parameters_set():
    assert display_name("cascade-klucb") == "CascadeKL-UCB"
    assert display_name("cascade-klucb(c=3)") == "CascadeKL-UCB"  # the default is not shown
    assert display_name("cascade-klucb(c=0)") == "CascadeKL-UCB (c=0)"
    assert display_name("ranked-klucb-rba") == POLICY_NAMES["ranked-klucb-rba"]
    assert display_name("toprank") == "TopRank"
    assert display_name("oracle") == "oracle"  # no entry: the registered name
    assert display_name("not-a-policy(x=1)") == "not-a-policy(x=1)"  # unknown: as written


def test_one_definition():
    """The study module and the report's sections take the names from reports.figures."""
    from cascading_bandits.reports import figures, regret_plot, section_sharper

    assert regret_plot.display_name is figures.display_name
    # section_sharper calls it through a lazy import (matplotlib is not imported with it)
    assert not hasattr(section_sharper, "_LABEL")
    names = (
        "cascade-klucb",
        "cascade-klucb(c=0)",
        "cascade-ucb1",
        "cascade-ts",
        "toprank",
        "x(y=1)",
    )
    for name in names:
        assert section_sharper.display_name(name) == figures.display_name(name)


def test_the_report_builder_imports_no_plotting_or_scipy_stats():
    """reports.build starts verify and the sweep's workers before it draws anything:
    matplotlib and scipy.stats (about 2 s of imports) come later, when used."""
    import subprocess
    import sys

    code = (
        "import sys, cascading_bandits.reports.build; "
        "print(sorted(m for m in ('matplotlib', 'scipy.stats') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_search_figures_import_and_share_the_log_axis():
    mod = importlib.import_module("cascading_bandits.reports.search_figures")
    from cascading_bandits.reports import figures

    assert mod.log_scale is figures.log_scale
    fig = plot_regret([_result("cascade-ucb1")], bounds=False, logy=True)
    ax = fig.axes[0]
    assert ax.get_xscale() == ax.get_yscale() == "log"
    # log_scale's minor ticks: at 2 and 5 of each decade only
    minor = ax.xaxis.get_minor_locator()
    assert list(minor._subs) == [2.0, 5.0]
