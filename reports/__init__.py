"""Figures and tables from stored results; the report builder (see docs/design.md).

Layers, rliable-style (each depends only on the ones above it):

* :mod:`reports.paper`   -- the paper's Tables 1-2 and Figure 1 ratio as cited data
  (``reports/data/paper_tables.json``) and a parser of the LaTeX tables;
* :mod:`reports.tables`  -- pure statistics and tables: paper vs ours (z-scores, agreement
  marks), Theorems 2-4 at n against the evidence, scaling, orders, the DBN ratio;
* :mod:`reports.figures` -- plot functions (data in, matplotlib Figure out; no files);
* :mod:`reports.build`   -- the report builder, the only module that writes files;
* :mod:`reports.report_cli` -- ``cascading report``;
  :mod:`reports.cli` -- the ``cascading`` command.
"""
