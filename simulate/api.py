"""A researcher's question in one call: :func:`run` simulates policies on any instance.

>>> from cascading_bandits.simulate import run
>>> res = run([0.5, 0.4, 0.3, 0.1, 0.1], K=2, policies=["cascade-klucb", "cascade-ucb1"],
...           horizon=2000, runs=4, seed=1)
>>> res["cascade-klucb"].regret.shape == (4, res["cascade-klucb"].checkpoints.size)
True

No experiment or cell-id string is needed: each policy becomes a
:class:`~simulate.experiments.Cell` of the experiment ``"study"`` whose ``cell_id`` is the
policy's name plus a hash of everything that determines its numbers (model and its
parameters -- nu, gamma, kappa, lam --, weights, K, policy spec, order, horizon, runs, seed,
checkpoints).

The instance is a list of attraction probabilities, a :class:`bounds.CascadeInstance` or the
name of a real instance (:mod:`simulate.real_instances`, e.g. ``"yandex:4102451:top"``),
under any declared click model: ``model="pbm"`` with ``kappa`` (a real instance's fitted
examination probabilities by default), ``model="dcm"`` with ``lam``, ``model="dbn"`` with
``nu`` and ``gamma`` (:mod:`simulate.models`). With ``out=DIR`` the cells
are stored under ``DIR/study/`` by :func:`simulate.sweep.run_cells` and reused on a re-run
(resumable); a different seed or scale is a different cell, never a silent reuse.

Seeds: one root ``SeedSequence(seed)``; each cell gets :func:`simulate.sweep.cell_seed`
of it. The users of run ``r`` depend only on the root entropy, the instance and ``r``
(:func:`simulate.rng.users_keys`), so every policy of one call meets the same users
(common random numbers), and the same seed gives the same numbers.

Policy strings are passed to ``Cell(policy=...)`` unchanged, so whatever the engine
accepts (plain names such as ``"cascade-klucb"``, parameterised specs) works here; a policy's
parameters come from its spec alone.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import re
import tempfile
from collections.abc import Sequence

import numpy as np

from cascading_bandits.bounds import _validate as V
from cascading_bandits.bounds.instance import CascadeInstance
from cascading_bandits.simulate.experiments import Cell
from cascading_bandits.simulate.models import MODEL_NAMES
from cascading_bandits.simulate.results import CellResult
from cascading_bandits.simulate.runner import as_seed_sequence, resolve_checkpoints

__all__ = [
    "run",
    "RegretResult",
    "StudyResults",
    "split_policies",
    "study_cells",
    "STUDY_EXPERIMENT",
    "BAND_LEVEL",
]

#: experiment name of the cells made by :func:`run` (their directory under ``out``)
STUDY_EXPERIMENT = "study"
#: default confidence level of :meth:`RegretResult.band`
BAND_LEVEL = 0.95


def _t_quantile(level: float, runs: int) -> float:
    """Two-sided Student t quantile with ``runs - 1`` degrees of freedom (NaN for one run)."""
    if runs < 2:
        return math.nan
    from scipy.stats import t

    return float(t.ppf(0.5 + level / 2, runs - 1))


@dataclasses.dataclass(frozen=True, eq=False)  # arrays inside: no field-wise ==
class RegretResult:
    """The runs of one policy on one instance, with its full spec and provenance.

    Attributes
    ----------
    policy : str
        The policy spec as given (e.g. ``"cascade-klucb"``).
    spec : dict
        JSON-able: the cell's :attr:`~simulate.experiments.Cell.params` (model, weights, K,
        L, policy, order, horizon, runs, nu, gamma, kappa / lam for the PBM / DCM, ``c`` read
        from the policy spec, ``experiment`` and ``cell_id``: where it is stored) and
        ``seed`` (root entropy and spawn key).
    checkpoints : ndarray (m,) int64
        Steps at which regret is recorded; the last is the horizon.
    regret : ndarray (runs, m) float64
        Cumulative expected regret of each run at each checkpoint.
    counts : ndarray (runs, L) int64
        Observation counts ``T_n(e)`` at the horizon, items in the weights' order.
    provenance : dict
        Seed derivation, package versions, git commit, timing; ``stored`` is the ``.json``
        path when the cell was stored (None otherwise) and ``reused`` whether it was loaded.
    """

    policy: str
    spec: dict
    cell: CellResult = dataclasses.field(repr=False)
    provenance: dict = dataclasses.field(default_factory=dict, repr=False)

    @property
    def checkpoints(self) -> np.ndarray:
        return self.cell.checkpoints

    @property
    def regret(self) -> np.ndarray:
        return self.cell.regret

    @property
    def counts(self) -> np.ndarray:
        return self.cell.counts

    @property
    def runs(self) -> int:
        return self.cell.runs

    @property
    def horizon(self) -> int:
        return int(self.cell.checkpoints[-1])

    @property
    def mean(self) -> np.ndarray:
        """Mean regret over runs at each checkpoint, shape (m,)."""
        return self.regret.mean(axis=0)

    @property
    def stderr(self) -> np.ndarray:
        """Standard error of :attr:`mean` (std with ddof = 1 over sqrt(runs)), shape (m,).

        NaN everywhere for one run (the spread of one run is unknown).
        """
        if self.runs < 2:
            return np.full(self.checkpoints.shape, np.nan)
        return self.regret.std(axis=0, ddof=1) / math.sqrt(self.runs)

    def band(self, level: float = BAND_LEVEL) -> tuple[np.ndarray, np.ndarray]:
        """Confidence band of the mean regret: ``mean -+ t_{runs-1} * stderr``, two (m,) arrays.

        Student t with ``runs - 1`` degrees of freedom (the runs are independent; for 20 runs
        the 95% factor is 2.093 where the normal's is 1.960). NaN for one run.
        """
        level = V.probability("level", level, open_low=True, open_high=True)
        h = _t_quantile(level, self.runs) * self.stderr
        return self.mean - h, self.mean + h

    @property
    def mean_regret(self) -> float:
        """Mean regret at the horizon."""
        return float(self.regret[:, -1].mean())

    @property
    def final_stderr(self) -> float:
        """Standard error of :attr:`mean_regret` (NaN for one run): the ``stderr`` of
        :meth:`summary` and of ``cascading simulate --json``, and
        :attr:`simulate.results.CellResult.final_stderr` (:attr:`stderr` here is the
        standard error at every checkpoint, an array)."""
        return float(self.stderr[-1])

    @property
    def mean_counts(self) -> np.ndarray:
        """Mean observation count of each item at the horizon, shape (L,)."""
        return self.counts.mean(axis=0)

    def summary(self, level: float = BAND_LEVEL) -> dict:
        """JSON-able summary at the horizon; no NaN (None plus a note for one run)."""
        se = self.final_stderr
        lo, hi = self.band(level)
        out = {
            "policy": self.policy,
            "model": self.spec["model"],
            "weights": list(self.spec["weights"]),
            "K": self.spec["K"],
            "L": self.spec["L"],
            "order": self.spec["order"],
            "nu": self.spec["nu"],
            "gamma": self.spec["gamma"],
            **{k: self.spec[k] for k in ("kappa", "lam") if k in self.spec},
            "seed": self.spec["seed"],
            "runs": self.runs,
            "horizon": self.horizon,
            "mean_regret": self.mean_regret,
            "stderr": None if math.isnan(se) else se,
            f"ci{round(level * 100):d}": None if math.isnan(se) else [float(lo[-1]), float(hi[-1])],
            "mean_counts": [float(x) for x in self.mean_counts],
            "cell_id": self.spec["cell_id"],
            "notes": [],
        }
        if math.isnan(se):
            out["notes"].append("one run: the standard error and band are undefined (null)")
        return out


@dataclasses.dataclass(frozen=True, eq=False)  # arrays inside: no field-wise ==
class StudyResults(Sequence):
    """The results of :func:`run`: one :class:`RegretResult` per policy, in the given order.

    Indexable by position or by policy spec (``results["cascade-klucb"]``); ``keys()``,
    ``values()`` and ``items()`` as a dict of policy spec -> result would give them.

    Attributes
    ----------
    results : tuple of RegretResult
    spec : dict
        What the policies share: model, weights, K, L, order, horizon, runs, nu, gamma,
        kappa (PBM) or lam (DCM), seed, and ``instance`` (the name) for a real instance.
    """

    results: tuple
    spec: dict

    def __len__(self):
        return len(self.results)

    def __getitem__(self, key):
        if isinstance(key, str):
            for r in self.results:
                if r.policy == key:
                    return r
            raise KeyError(f"no policy {key!r}; have {[r.policy for r in self.results]}")
        return self.results[key]

    @property
    def policies(self) -> list[str]:
        return [r.policy for r in self.results]

    def keys(self) -> list[str]:
        """The policy specs, in order (so ``dict(results)`` maps each to its result)."""
        return self.policies

    def values(self) -> list[RegretResult]:
        """The results, in order."""
        return list(self.results)

    def items(self) -> list[tuple[str, RegretResult]]:
        """``(policy spec, RegretResult)`` pairs, in order: ``for pol, res in study.items()``."""
        return [(r.policy, r) for r in self.results]

    def summary(self, level: float = BAND_LEVEL) -> list[dict]:
        """One :meth:`RegretResult.summary` per policy."""
        return [r.summary(level) for r in self.results]


def _seed_identity(ss: np.random.SeedSequence) -> dict:
    return {"entropy": str(ss.entropy), "spawn_key": [int(x) for x in ss.spawn_key]}


def _slug(policy: str) -> str:
    """File-safe readable form of a policy spec: ``cascade-klucb(c=0)`` -> ``cascade-klucb_c=0``."""
    s = re.sub(r"[^A-Za-z0-9.=-]+", "_", policy).strip("_")
    return s[:60] or "policy"


def _cell_id(params: dict, seed: dict, checkpoints: np.ndarray) -> str:
    """``<policy slug>-<16 hex>``: a SHA-256 of every input that determines the cell's numbers."""
    ident = {k: v for k, v in params.items() if k not in ("experiment", "cell_id")}
    ident["seed"] = seed
    ident["checkpoints"] = hashlib.sha256(checkpoints.astype("<i8").tobytes()).hexdigest()
    h = hashlib.sha256(json.dumps(ident, sort_keys=True, default=str).encode()).hexdigest()
    return f"{_slug(params['policy'])}-{h[:16]}"


def split_policies(text: str) -> list[str]:
    """Split ``"a,b(x=1,y=2)"`` at the commas outside parentheses: ``["a", "b(x=1,y=2)"]``."""
    if not isinstance(text, str):
        raise TypeError(f"policies must be a string here, got {type(text).__name__}")
    out, depth, cur = [], 0, []
    for ch in text:
        if ch == "," and depth == 0:
            out.append("".join(cur).strip())
            cur = []
            continue
        depth += (ch == "(") - (ch == ")")
        if depth < 0:
            raise ValueError(f"policies: unbalanced ')' in {text!r}")
        cur.append(ch)
    if depth != 0:
        raise ValueError(f"policies: unbalanced '(' in {text!r}")
    out.append("".join(cur).strip())
    return out


def _policies(policies) -> list[str]:
    if isinstance(policies, str):
        policies = split_policies(policies)
    if not isinstance(policies, (list, tuple)):
        raise TypeError(
            f"policies must be a policy name or a list of them, got {type(policies).__name__}"
        )
    for p in policies:
        if not isinstance(p, str):
            raise TypeError(f"policies must hold strings, got {p!r}")
    out = [p.strip() for p in policies]
    if not out or not all(out):
        raise ValueError(f"policies must name at least one policy, none empty; got {policies!r}")
    if len(set(out)) != len(out):
        raise ValueError(f"policies must not repeat a policy, got {out}")
    return out


def study_cells(
    weights_or_instance,
    K=None,
    *,
    policies=("cascade-ucb1", "cascade-klucb"),
    model="cascade",
    nu=None,
    gamma=None,
    kappa=None,
    lam=None,
    order="best-first",
    horizon=100_000,
    runs=20,
    seed=0,
    checkpoints=None,
) -> list[Cell]:
    """The cells :func:`run` simulates for these arguments (same meaning), without running them.

    Each ``cell_id`` names the cell's files under ``out/study/``.
    """
    model_kw = dict(nu=nu, gamma=gamma, kappa=kappa, lam=lam)
    return _plan(
        weights_or_instance, K, policies, model, model_kw, order, horizon, runs, seed, checkpoints
    )[0]


def _instance(weights_or_instance, K, model, kappa):
    """(weights, K, kappa, instance name or None) from the first two arguments of :func:`run`."""
    if isinstance(weights_or_instance, CascadeInstance):
        if K is not None and K != weights_or_instance.K:
            raise ValueError(f"K = {K!r} disagrees with the instance's K = {weights_or_instance.K}")
        return weights_or_instance.weights, weights_or_instance.K, kappa, None
    if isinstance(weights_or_instance, str) and ":" in weights_or_instance:
        from cascading_bandits.simulate.real_instances import parse_instance_name

        weights, inst_kappa, inst_K, label = parse_instance_name(weights_or_instance)
        K = inst_K if K is None else V.list_size(K, len(weights))
        if model == "pbm" and kappa is None:
            if K > len(inst_kappa):
                raise ValueError(
                    f"{label} has examination probabilities for {len(inst_kappa)} positions; "
                    f"K = {K} needs kappa= (K values) or K <= {len(inst_kappa)}"
                )
            kappa = tuple(inst_kappa[:K])
        return tuple(weights), K, kappa, label
    if K is None:
        raise ValueError("K is required when weights are given (1 <= K <= len(weights))")
    if isinstance(weights_or_instance, (str, bytes)) or np.ndim(weights_or_instance) != 1:
        raise ValueError(
            "weights must be a 1-d sequence of attraction probabilities or a real instance "
            "name such as 'yandex:4102451:top' (simulate.real_instances.real_instance_names()), "
            f"got {weights_or_instance!r}"
        )
    weights = tuple(float(x) for x in V.probabilities("weights", weights_or_instance, ndim=1))
    return weights, K, kappa, None


def _plan(
    weights_or_instance, K, policies, model, model_kw, order, horizon, runs, seed, checkpoints
):
    """Validated cells (one per policy, ids hashed from the spec), root seed, checkpoints and
    the real instance's name (or None)."""
    V.choice("model", model, MODEL_NAMES)
    nu, gamma, kappa, lam = (model_kw[k] for k in ("nu", "gamma", "kappa", "lam"))
    weights, K, kappa, label = _instance(weights_or_instance, K, model, kappa)
    pols = _policies(policies)
    if model != "dbn" and (nu is not None or gamma is not None):
        raise ValueError(f"nu and gamma apply to model='dbn' only, not model={model!r}")
    nu = 1.0 if nu is None else nu
    gamma = 1.0 if gamma is None else gamma
    horizon = V.positive_int("horizon", horizon)
    runs = V.positive_int("runs", runs)
    root = as_seed_sequence(seed)
    seed_id = _seed_identity(root)
    cp = resolve_checkpoints(checkpoints, horizon)

    cells = []
    for pol in pols:
        cell = Cell(
            experiment=STUDY_EXPERIMENT,
            cell_id="pending",
            model=model,
            weights=weights,
            K=K,
            policy=pol,
            order=order,
            horizon=horizon,
            runs=runs,
            nu=nu,
            gamma=gamma,
            kappa=kappa,
            lam=lam,
        )
        cells.append(dataclasses.replace(cell, cell_id=_cell_id(cell.params, seed_id, cp)))

    return cells, root, cp, label


def run(
    weights_or_instance,
    K=None,
    *,
    policies=("cascade-ucb1", "cascade-klucb"),
    model="cascade",
    nu=None,
    gamma=None,
    kappa=None,
    lam=None,
    order="best-first",
    horizon=100_000,
    runs=20,
    seed=0,
    checkpoints=None,
    out=None,
    workers=1,
    overwrite=False,
    progress=False,
) -> StudyResults:
    """Simulate ``policies`` on one instance; one :class:`RegretResult` each.

    Parameters
    ----------
    weights_or_instance : sequence of float, shape (L,), bounds.CascadeInstance, or str
        Attraction probabilities ``w`` (``rho`` for the DBN), in [0, 1]; or a real instance
        name (:mod:`simulate.real_instances`, e.g. ``"kdd:19"``, ``"yandex:4102451:top"``).
    K : int
        Items recommended, ``1 <= K <= L`` (taken from the instance if one is given; a real
        instance's default is its number of positions).
    policies : str or list of str
        Policy specs, passed to :class:`~simulate.experiments.Cell` unchanged; a string may
        hold several separated by commas (commas inside parentheses belong to a spec).
    model : {"cascade", "dbn", "pbm", "dcm"}
        A declared click model (:mod:`simulate.models`).
    nu, gamma : float, optional
        DBN satisfaction and persistence (Section 5.3); default 1; dbn model only.
    kappa : sequence of K floats, optional
        PBM examination probabilities per position; default a real instance's fitted ones,
        else ``1/k``; pbm model only.
    lam : sequence of K floats, optional
        DCM continuation probabilities after a click, per position; default ``k/(k+1)``;
        dcm model only.
    order : {"best-first", "worst-first"}
    horizon : int
        Steps n >= 1.
    runs : int
        Independent runs >= 1.
    seed : int >= 0 or numpy.random.SeedSequence
        Root seed (module docstring).
    checkpoints : array_like of int, optional
        Steps to record, increasing within 1..horizon (the horizon is appended); default
        :func:`simulate.experiments.default_checkpoints`.
    out : path, optional
        Store the cells under ``out/study/`` and reuse those already there.
    workers : int
        Local processes over policies (1: this process, numba threads over runs).
    overwrite : bool
        Recompute and replace stored cells.
    progress : bool
        Progress bar over cells.

    Returns
    -------
    StudyResults
    """
    workers = V.positive_int("workers", workers)
    model_kw = dict(nu=nu, gamma=gamma, kappa=kappa, lam=lam)
    cells, root, cp, label = _plan(
        weights_or_instance, K, policies, model, model_kw, order, horizon, runs, seed, checkpoints
    )
    pols = [c.policy for c in cells]
    seed_id = _seed_identity(root)
    horizon, runs = cells[0].horizon, cells[0].runs

    from cascading_bandits.simulate.store import cell_paths, stored_params
    from cascading_bandits.simulate.sweep import run_cells

    def go(directory):
        present = [
            stored_params(directory, c.experiment, c.cell_id) is not None and not overwrite
            for c in cells
        ]
        res = run_cells(
            cells,
            directory,
            seed=root,
            workers=workers,
            overwrite=overwrite,
            progress=progress,
            desc="study",
            checkpoints=cp,
        )
        return res, present

    if out is None:
        with tempfile.TemporaryDirectory() as tmp:
            cell_results, reused = go(tmp)
        stored = [None] * len(cells)
    else:
        cell_results, reused = go(out)
        stored = [str(cell_paths(out, c.experiment, c.cell_id)[1]) for c in cells]

    shared = {
        "model": model,
        "weights": list(cells[0].weights),
        "K": cells[0].K,
        "L": cells[0].L,
        "order": order,
        "horizon": horizon,
        "runs": runs,
        "nu": cells[0].nu,
        "gamma": cells[0].gamma,
        **{k: cells[0].params[k] for k in ("kappa", "lam") if k in cells[0].params},
        "seed": seed_id,
    }
    if label is not None:
        shared["instance"] = label
    out_results = []
    for pol, cell, res, was, path in zip(pols, cells, cell_results, reused, stored, strict=True):
        spec = dict(cell.params)
        spec["seed"] = seed_id
        prov = dict(res.provenance)
        prov["stored"] = path
        prov["reused"] = bool(was)
        out_results.append(RegretResult(pol, spec, res, prov))
    return StudyResults(tuple(out_results), shared)
