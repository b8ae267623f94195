"""Simulation of cascading bandits (Kveton et al., ICML 2015, Sections 3 and 5).

Layers, bottom up:

* :mod:`simulate.rng` -- counter-based random numbers (SplitMix64): every draw is a pure
  function of (run key, stream, t, index), so the users' draws do not depend on the policy;
* :mod:`simulate.models` -- click models (cascade, DBN of Section 5.3) and expected rewards;
* :mod:`simulate.policies` -- policy names and their exact definitions (CascadeUCB1,
  CascadeKL-UCB, CascadeTS, ranked bandits, oracle, uniform random);
* :mod:`simulate.engine` -- the numba kernels; CascadeKL-UCB and ranked KL-UCB use a lazy
  but exact selection (the decisions of the plain loop, bit for bit);
* :mod:`simulate.experiments` -- :class:`Cell` and the paper's grids (``table1``, ``table2``,
  ``dbn``; extras ``ts``, ``dbn-rba``);
* :mod:`simulate.runner` -- :func:`run_cell`; :mod:`simulate.results` -- :class:`CellResult`;
* :mod:`simulate.sweep`, :mod:`simulate.store` -- sweeps over any executor, atomic storage;
* :mod:`simulate.api` -- :func:`run`: policies on any instance in one call (no cell ids).

>>> from simulate import get_experiment, run_cell
>>> cell = get_experiment("table1", testing=True)[0]
>>> res = run_cell(cell, seed=0)
>>> res.regret.shape == (cell.runs, res.checkpoints.size)
True
"""

# first: numba's cache directory is keyed by the sources before any kernel is declared
import cascading_bandits.bounds._numba_cache  # noqa: F401
from cascading_bandits.simulate.api import RegretResult, StudyResults, run
from cascading_bandits.simulate.experiments import Cell, get_experiment
from cascading_bandits.simulate.results import CellResult
from cascading_bandits.simulate.runner import run_cell

__all__ = [
    "Cell",
    "CellResult",
    "RegretResult",
    "StudyResults",
    "get_experiment",
    "run",
    "run_cell",
]
