"""What one cell of simulation produces: :class:`CellResult`, and what a stored one must satisfy.

:class:`CellResult` checks its structure when it is built (types, shapes, finite regret,
non-negative integer counts). :func:`check_result` checks what every result the engine
produces for a cell satisfies, the test a stored result must pass when it is loaded
(:func:`simulate.store.load_result`): its parameters, the sizes they imply, the range and
growth of the cumulative expected regret and the range of the observation counts.

Rounding of the regret (:func:`regret_rounding`)
------------------------------------------------
The engine accumulates ``cum <- fl(cum + d_t)`` with ``d_t = fl(f(A*) - f(A_t))``, the
expected regret of step ``t`` (:mod:`simulate.models`), so the stored regret is
non-decreasing and non-negative up to rounding only. With ``u = 2**-53``:

* cascade model: ``f`` is evaluated on the list's weights sorted in decreasing order, and
  the ``k``-th largest weight of any list is at most that of ``A*``; every rounding step
  (``1 - w``, the product, ``1 - prod``) is monotone, so ``d_t >= 0`` exactly and the
  regret is exactly non-decreasing and non-negative;
* the other models: ``f`` is a sum of ``K`` non-negative terms (DBN:
  ``sum_k wbar_k prod_(i<k) gamma (1 - wbar_i)``; PBM: ``sum_k kappa_k w_k``) or one minus
  a product of ``K`` factors in [0, 1] (DCM), computed in at most ``4K + 1`` roundings,
  so each evaluation is within ``gamma_(4K+1) S`` of its exact value, with
  ``gamma_m = m u / (1 - m u)`` (Higham, *Accuracy and Stability of Numerical
  Algorithms*, 2nd ed., Lemma 3.1 and Section 4.2) and ``S = max(1, f(A*))`` (PBM's
  reward, a number of clicks, may exceed 1). The exact ``f(A*) >= f(A_t)`` on the same
  float inputs, so ``d_t >= -2 gamma_(4K+1) S (1 + u)``; adding a negative ``d`` to
  ``cum`` lowers it by at most ``2 |d|`` (round to nearest). Over ``s`` steps the regret
  falls by at most ``4 s gamma_(4K+1) S (1 + u) < 21 K u S s``. A genuine case: the
  oracle's optimal list shown worst-first under DBN with ``gamma = 1`` has the optimal
  reward, yet its computed regret falls by ``2**-53`` to ``2**-52`` a step.

:func:`regret_rounding` is that bound, ``21 K u S s``; :func:`check_result` allows a fall
of ``regret_rounding(K, t_j - t_(j-1), f*)`` between consecutive checkpoints and a value
down to ``-regret_rounding(K, t_j, f*)`` at checkpoint ``t_j``, and nothing more.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field

import numpy as np

__all__ = [
    "CellResult",
    "check_result",
    "check_params",
    "regret_rounding",
    "ROUNDING_PER_STEP",
    "PARAM_KEYS",
]

#: bound on the fall of the computed regret per step, per recommended item and per unit of
#: ``max(1, f(A*))``: 21 u with u = 2**-53 (module docstring)
ROUNDING_PER_STEP = 21 * 2.0**-53

#: relative slack of the regret's upper bound ``t f(A*)``: the accumulation of ``t``
#: roundings (``t u <= 1e-6`` up to ``t = 9e9`` steps) and the rounding of ``f(A*)``
_UPPER_SLACK = 1e-6

#: the parameters every stored cell records (:attr:`simulate.experiments.Cell.params`)
PARAM_KEYS = (
    "experiment",
    "cell_id",
    "model",
    "weights",
    "K",
    "L",
    "policy",
    "order",
    "horizon",
    "runs",
    "c",
    "nu",
    "gamma",
    "p",
    "delta",
)


def regret_rounding(K: int, steps, fstar: float = 1.0) -> np.ndarray | float:
    """The largest fall of the computed cumulative regret over ``steps`` steps with ``K``
    recommended items and optimal reward ``fstar``: ``21 K 2**-53 max(1, fstar) steps``
    (module docstring), for every click model (the cascade model's regret never falls).
    ``steps`` may be an array."""
    return ROUNDING_PER_STEP * K * max(1.0, float(fstar)) * np.asarray(steps, dtype=np.float64)


def _kind(x) -> str:
    return "None" if x is None else type(x).__name__


def _as_array(name, x, kind, allowed):
    """``x`` as an array of ``kind`` ('i' integers, 'f' reals); ValueError naming ``name``."""
    try:
        a = np.asarray(x)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be {allowed}, got an irregular sequence ({exc})") from None
    if a.dtype.kind == "O" or a.dtype.kind not in ("iu" if kind == "i" else "iuf"):
        if kind == "i" and a.dtype.kind == "f" and np.isfinite(a).all():
            if (a == np.round(a)).all() and (a.size == 0 or np.abs(a).max() < 2.0**63):
                return a.astype(np.int64)  # whole floats, e.g. from a hand-made list
        raise ValueError(f"{name} must be {allowed}, got dtype {a.dtype}")
    if kind == "i":
        if a.dtype.kind == "u" and a.size and a.max() >= 2**63:
            raise ValueError(f"{name} must be {allowed} below 2**63, got {a.max()}")
        return a.astype(np.int64)
    return a.astype(np.float64)


@dataclass(frozen=True)
class CellResult:
    """The runs of one cell.

    Attributes
    ----------
    params : dict
        JSON-able cell parameters (:attr:`simulate.experiments.Cell.params`): experiment,
        cell_id, model, weights, K, L, policy, order, horizon, runs, c, nu, gamma, p, delta.
    checkpoints : ndarray (m,) int64
        Steps at which regret is recorded, strictly increasing from >= 1; the last is the
        horizon.
    regret : ndarray (runs, m) float64
        Cumulative expected regret ``sum_{s<=t} f(A*) - f(A_s)`` at each checkpoint.
    counts : ndarray (runs, L) int64
        Final observation counts ``T_n(e)``, items in the weights' order.
    provenance : dict
        Seed entropy and spawn key, key derivation, package versions, git commit, timing.

    Building one checks the structure only (each ValueError names the argument and what is
    allowed); :func:`check_result` checks what an engine's result satisfies.
    """

    params: dict
    checkpoints: np.ndarray
    regret: np.ndarray
    counts: np.ndarray
    provenance: dict = field(default_factory=dict)

    def __post_init__(self):
        if not isinstance(self.params, dict):
            raise ValueError(
                f"params must be a dict of the cell's parameters, got {_kind(self.params)}"
            )
        if not isinstance(self.provenance, dict):
            raise ValueError(
                "provenance must be a dict (seed, versions, git commit, ...), "
                f"got {_kind(self.provenance)}"
            )
        cp = _as_array("checkpoints", self.checkpoints, "i", "a 1-d array of integers")
        if cp.ndim != 1 or cp.size == 0:
            raise ValueError(
                f"checkpoints must be a non-empty 1-d array of integers, got shape {cp.shape}"
            )
        if cp[0] < 1 or (np.diff(cp) <= 0).any():
            raise ValueError(
                "checkpoints must increase strictly from a step >= 1, got "
                f"{cp[: min(cp.size, 6)].tolist()}{' ...' if cp.size > 6 else ''}"
            )
        reg = _as_array("regret", self.regret, "f", "an array of real numbers")
        if reg.ndim != 2 or reg.shape[0] < 1 or reg.shape[1] != cp.size:
            raise ValueError(
                f"regret must have shape (runs >= 1, {cp.size}) (one column per checkpoint), "
                f"got {reg.shape}"
            )
        if not np.isfinite(reg).all():
            bad = reg[~np.isfinite(reg)][0]
            raise ValueError(f"regret must be finite, got {bad} (and no NaN or infinity)")
        cnt = _as_array("counts", self.counts, "i", "an array of integers")
        if cnt.ndim != 2 or cnt.shape[0] != reg.shape[0] or cnt.shape[1] < 1:
            raise ValueError(
                f"counts must have shape ({reg.shape[0]}, L >= 1) (one row per run of regret), "
                f"got {cnt.shape}"
            )
        if (cnt < 0).any():
            raise ValueError(f"counts must be >= 0 (observation counts), got {int(cnt.min())}")
        for name, a in (("checkpoints", cp), ("regret", reg), ("counts", cnt)):
            a = a.copy()
            a.setflags(write=False)
            object.__setattr__(self, name, a)

    @property
    def runs(self) -> int:
        return int(self.regret.shape[0])

    @property
    def final_regret(self) -> np.ndarray:
        """Regret at the horizon per run, shape (runs,)."""
        return self.regret[:, -1]

    @property
    def mean_regret(self) -> float:
        """Mean over runs of the regret at the horizon."""
        return float(self.final_regret.mean())

    @property
    def stderr(self) -> float:
        """Standard error of :attr:`mean_regret`: std (ddof = 1) / sqrt(runs); NaN for one run."""
        if self.runs < 2:
            return float("nan")
        return float(self.final_regret.std(ddof=1) / np.sqrt(self.runs))

    @property
    def final_stderr(self) -> float:
        """:attr:`stderr` under the name :class:`simulate.api.RegretResult` gives it (there
        ``stderr`` is the standard error at every checkpoint); the summaries' ``stderr``."""
        return self.stderr

    def summary(self) -> dict:
        """A strict-JSON one-line summary (one element of the CLI's ``--json`` ``cells``).

        ``stderr`` is None (JSON null) when it is undefined, i.e. for a single run; every
        other value is finite. ``kappa`` (PBM) and ``lam`` (DCM), K floats, are there when
        the cell's model has them (cascade and DBN summaries are what they were).
        """
        p = self.params
        se = self.stderr
        return {
            "experiment": p.get("experiment"),
            "cell_id": p.get("cell_id"),
            "model": p.get("model"),
            "policy": p.get("policy"),
            "order": p.get("order"),
            "weights": list(p["weights"]) if p.get("weights") is not None else None,
            "seed_entropy": self.provenance.get("seed_entropy"),
            "seed_spawn_key": self.provenance.get("seed_spawn_key"),
            "L": p.get("L"),
            "K": p.get("K"),
            "p": p.get("p"),
            "delta": p.get("delta"),
            "nu": p.get("nu"),
            "gamma": p.get("gamma"),
            # per-position parameters of the models that have them (PBM kappa, DCM lam), as
            # lists of floats: what the record's JSON reads back as, so a stored summary
            # compares equal to a fresh one
            **{k: [float(x) for x in p[k]] for k in ("kappa", "lam") if p.get(k) is not None},
            "runs": self.runs,
            "horizon": int(self.checkpoints[-1]),
            "mean_regret": self.mean_regret,
            "stderr": se if np.isfinite(se) else None,
        }


# ---------------------------------------------------------------------------
# what a result of the engine satisfies
# ---------------------------------------------------------------------------


def _is_int(x) -> bool:
    return isinstance(x, numbers.Integral) and not isinstance(x, bool)


def _is_real(x) -> bool:
    return isinstance(x, numbers.Real) and not isinstance(x, bool) and math.isfinite(x)


def check_params(p: dict):
    """The click model of a cell's parameters ``p`` (:data:`PARAM_KEYS`, and ``kappa`` /
    ``lam`` for the models that have them); ValueError naming the parameter that is wrong."""
    from cascading_bandits.simulate.models import MODEL_NAMES, make_model
    from cascading_bandits.simulate.policies.registry import ORDERS

    missing = [k for k in PARAM_KEYS if k not in p]
    if missing:
        raise ValueError(
            f"params lack {', '.join(missing)} (a cell records {', '.join(PARAM_KEYS)})"
        )
    for k in ("experiment", "cell_id", "policy"):
        if not isinstance(p[k], str) or not p[k]:
            raise ValueError(f"params['{k}'] must be a non-empty string, got {p[k]!r:.60}")
    if p["model"] not in MODEL_NAMES:
        raise ValueError(
            f"params['model'] must be one of {', '.join(MODEL_NAMES)}, got {p['model']!r:.60}"
        )
    if p["order"] not in ORDERS:
        raise ValueError(
            f"params['order'] must be one of {', '.join(ORDERS)}, got {p['order']!r:.60}"
        )
    w = p["weights"]
    if not isinstance(w, list) or not w or not all(_is_real(x) and 0 <= x <= 1 for x in w):
        raise ValueError(
            f"params['weights'] must be a non-empty list of probabilities in [0, 1], got {w!r:.60}"
        )
    for k in ("K", "L", "horizon", "runs"):
        if not _is_int(p[k]) or p[k] < 1:
            raise ValueError(f"params['{k}'] must be an integer >= 1, got {p[k]!r:.60}")
    if p["L"] != len(w):
        raise ValueError(f"params['L'] must be the number of weights, {len(w)}, got {p['L']}")
    if p["K"] > p["L"]:
        raise ValueError(f"params['K'] must be <= L = {p['L']}, got {p['K']}")
    if not _is_real(p["c"]) or p["c"] < 0:
        raise ValueError(f"params['c'] must be a finite number >= 0, got {p['c']!r:.60}")
    for k, lo_open in (("nu", False), ("gamma", True)):
        x = p[k]
        if not _is_real(x) or not (0 < x <= 1 if lo_open else 0 <= x <= 1):
            rng = "(0, 1]" if lo_open else "[0, 1]"
            raise ValueError(f"params['{k}'] must be a number in {rng}, got {x!r:.60}")
    for k in ("p", "delta"):
        if p[k] is not None and not _is_real(p[k]):
            raise ValueError(f"params['{k}'] must be a finite number or null, got {p[k]!r:.60}")
    extra = {}
    for k in ("kappa", "lam"):  # per-position parameters of the models that have them
        if k in p:
            v = p[k]
            if not isinstance(v, list) or len(v) != p["K"] or not all(_is_real(x) for x in v):
                raise ValueError(
                    f"params['{k}'] must be a list of K = {p['K']} numbers, got {v!r:.60}"
                )
            extra[k] = v
    return make_model(p["model"], w, p["K"], p["nu"], p["gamma"], **extra)


def check_result(result: CellResult) -> None:
    """ValueError naming the property a result of the engine violates; None if it has none.

    Parameters (:data:`PARAM_KEYS`) of the documented types and ranges; sizes:
    ``regret`` (runs, m) and ``counts`` (runs, L) with runs and L those of the
    parameters, the last checkpoint the horizon. Regret: with ``tau = regret_rounding``
    (module docstring), ``R(t_j) >= -tau(K, t_j, f*)``, ``R(t_j) - R(t_(j-1)) >=
    -tau(K, t_j - t_(j-1), f*)`` and ``R(t_j) <= t_j f* (1 + 1e-6)`` (the expected regret of
    a step is at most the optimal reward ``f*``). Counts: every step observes at most K
    items (the cascade feedback, eq. (2)) and a learner observes every item once before
    step 1 (Algorithm 1's initialisation; ranked policies do not), so
    ``0 <= T_n(e) <= n + 1`` and ``sum_e T_n(e) <= L + K n`` per run.
    """
    p = result.params
    model = check_params(p)
    cp, reg, cnt = result.checkpoints, result.regret, result.counts
    n, runs, K, L = p["horizon"], p["runs"], p["K"], p["L"]
    if int(cp[-1]) != n:
        raise ValueError(f"the last checkpoint must be the horizon {n}, got {int(cp[-1])}")
    if reg.shape[0] != runs:
        raise ValueError(f"regret must have {runs} rows (params['runs']), got {reg.shape[0]}")
    if cnt.shape != (runs, L):
        raise ValueError(f"counts must have shape ({runs}, {L}) (runs, L), got {cnt.shape}")
    t = cp.astype(np.float64)
    fstar = model.expected_reward(model.optimal_list())
    low = reg + regret_rounding(K, t, fstar)
    if (low < 0).any():
        r, j = np.argwhere(low < 0)[0]
        raise ValueError(
            f"regret must be >= 0 up to rounding ({regret_rounding(K, t[j], fstar):.3g} at step "
            f"{cp[j]}), got {float(reg[r, j])!r} in run {r}"
        )
    fall = np.diff(reg, axis=1) + regret_rounding(K, np.diff(t), fstar)
    if (fall < 0).any():
        r, j = np.argwhere(fall < 0)[0]
        raise ValueError(
            "regret must be non-decreasing up to rounding "
            f"({regret_rounding(K, t[j + 1] - t[j], fstar):.3g} "
            f"over steps {cp[j]}..{cp[j + 1]}), got {float(reg[r, j])!r} then "
            f"{float(reg[r, j + 1])!r} in run {r}"
        )
    high = t * fstar * (1 + _UPPER_SLACK)
    if (reg > high).any():
        r, j = np.argwhere(reg > high)[0]
        raise ValueError(
            f"regret must be <= t f* = {cp[j]} x {fstar:.6g} at step {cp[j]} (a step's "
            f"regret is at most the optimal reward), got {float(reg[r, j])!r} in run {r}"
        )
    if cnt.max() > n + 1:
        r, e = np.argwhere(cnt > n + 1)[0]
        raise ValueError(
            f"counts must be <= horizon + 1 = {n + 1} (one observation a step and one before), "
            f"got {int(cnt[r, e])} for item {e} in run {r}"
        )
    tot = cnt.sum(axis=1)
    if tot.max() > L + K * n:
        r = int(np.argmax(tot))
        raise ValueError(
            f"counts of a run must add up to at most L + K n = {L + K * n} (at most K "
            f"observations a step and one of each item before), got {int(tot[r])} in run {r}"
        )
