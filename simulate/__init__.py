"""Simulation of cascading bandits (Kveton et al., ICML 2015, Sections 3 and 5).

Click models (:mod:`simulate.models`), policies (:mod:`simulate.policies`), the
engine (:mod:`simulate.engine`), experiment grids (:mod:`simulate.experiments`),
sweeps (:mod:`simulate.sweep`) and storage (:mod:`simulate.store`).

>>> from simulate import get_experiment, run_cell
>>> cell = get_experiment("table1", testing=True)[0]
>>> res = run_cell(cell, seed=0)
>>> res.regret.shape[0] == cell.runs
True
"""

from simulate.experiments import Cell, get_experiment
from simulate.results import CellResult
from simulate.runner import run_cell

__all__ = ["Cell", "CellResult", "get_experiment", "run_cell"]
