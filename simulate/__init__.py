"""Simulation of cascading bandits (Kveton et al., ICML 2015, Sections 3 and 5).

Layers, bottom up:

* :mod:`simulate.rng` -- counter-based random numbers (SplitMix64): every draw is a pure
  function of (run key, stream, t, index), so the users' draws do not depend on the policy;
* :mod:`simulate.models` -- four click models, each with its expected reward and optimal
  list: ``cascade`` (Sections 2-3), ``dbn`` (Section 5.3; ``nu`` one value or one per
  item), ``pbm`` (position-based, examination ``kappa`` per position) and ``dcm``
  (dependent click model, continuation ``lam`` per position); every policy runs under
  every model, on the same users (docs/click_models.md);
* :mod:`simulate.policies` -- policy names and their exact definitions (CascadeUCB1,
  CascadeKL-UCB, CascadeTS, CascadeUCB-V, epsilon-greedy, TS-Cascade, ranked bandits,
  TopRank, oracle, uniform random);
* :mod:`simulate.engine` -- the numba kernels; CascadeKL-UCB and ranked KL-UCB use a lazy
  but exact selection, and the closed-form index policies (CascadeUCB1, CascadeUCB-V,
  the greedy step of epsilon-greedy, TS-Cascade) select over the distinct (S, N) states
  from 96 items on (:mod:`simulate.policies._index_states`): the decisions of the plain
  loop, bit for bit;
* :mod:`simulate.experiments` -- :class:`Cell` and the paper's grids (``table1``, ``table2``,
  ``dbn``; extras ``ts``, ``dbn-rba``);
* :mod:`simulate.runner` -- :func:`run_cell`; :mod:`simulate.results` -- :class:`CellResult`;
* :mod:`simulate.sweep`, :mod:`simulate.store` -- sweeps over any executor, atomic storage;
* :mod:`simulate.api` -- :func:`run`: policies on any instance in one call (no cell ids).

Seeds: one root ``numpy.random.SeedSequence``. Run ``r``'s users depend on the root
entropy, the instance and ``r`` only (:func:`simulate.rng.users_keys`); a cell's own
SeedSequence (its policies' draws) is keyed by what the cell computes, not by its name:
``spawn_key = root.spawn_key + (CELL_TAG, w0, w1)`` with ``(w0, w1)`` from a SHA-256 of
:func:`simulate.sweep.cell_content` (model, weights, K, policy spec, order, nu, gamma,
kappa / lam). One seed gives one result whatever the entry point. Stored cells are format
3 and record that seed; stores of older formats (seeds keyed by cell names) are refused.

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
