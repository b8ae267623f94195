"""Figures and tables from stored results; the report builder (see docs/design.md).

Layers, rliable-style (each depends only on the ones above it):

* :mod:`reports.paper`   -- the paper's Tables 1-2 and Figure 1 ratio as cited data
  (``reports/data/paper_tables.json``) and a parser of the LaTeX tables;
* :mod:`reports.tables`  -- pure statistics and tables: paper vs ours (z-scores, agreement
  marks), Theorems 2-4 at n against the evidence, scaling, orders, the DBN ratio;
* :mod:`reports.figures` -- plot functions (data in, matplotlib Figure out; no files);
* :mod:`reports.regret_plot` -- :func:`plot_regret`: regret of any instance against every
  bound that applies;
* :mod:`reports.build`   -- the report builder (its cache :mod:`reports.report_cache`, one
  module per report section, ``reports/section_*.py``);
* :mod:`reports.cli` -- the ``cascading`` command, the one command-line layer: one module
  per subcommand (``reports/cli/report.py`` for ``cascading report``,
  ``reports/cli/study.py`` for ``cascading study``, ``reports/cli/profile.py``, ...) and
  ``reports/cli/common.py``, the vocabulary they share.
"""

__all__ = ["plot_regret"]


def __getattr__(name):
    # lazy: ``cascading`` (reports.cli) must not pay for importing matplotlib
    if name == "plot_regret":
        from cascading_bandits.reports.regret_plot import plot_regret

        return plot_regret
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
