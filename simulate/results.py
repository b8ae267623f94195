"""What one cell of simulation produces: :class:`CellResult`."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = ["CellResult"]


@dataclass(frozen=True)
class CellResult:
    """The runs of one cell.

    Attributes
    ----------
    params : dict
        JSON-able cell parameters (:attr:`simulate.experiments.Cell.params`): experiment,
        cell_id, model, weights, K, L, policy, order, horizon, runs, c, nu, gamma, p, delta.
    checkpoints : ndarray (m,) int64
        Steps at which regret is recorded; the last is the horizon.
    regret : ndarray (runs, m) float64
        Cumulative expected regret ``sum_{s<=t} f(A*) - f(A_s)`` at each checkpoint.
    counts : ndarray (runs, L) int64
        Final observation counts ``T_n(e)``, items in the weights' order.
    provenance : dict
        Seed entropy and spawn key, key derivation, package versions, git commit, timing.
    """

    params: dict
    checkpoints: np.ndarray
    regret: np.ndarray
    counts: np.ndarray
    provenance: dict = field(default_factory=dict)

    def __post_init__(self):
        cp = np.asarray(self.checkpoints, dtype=np.int64)
        reg = np.asarray(self.regret, dtype=np.float64)
        cnt = np.asarray(self.counts, dtype=np.int64)
        if cp.ndim != 1 or cp.size == 0:
            raise ValueError(f"checkpoints must be a non-empty 1-d array, got shape {cp.shape}")
        if reg.ndim != 2 or reg.shape[1] != cp.size:
            raise ValueError(f"regret must have shape (runs, {cp.size}), got {reg.shape}")
        if cnt.ndim != 2 or cnt.shape[0] != reg.shape[0]:
            raise ValueError(f"counts must have shape ({reg.shape[0]}, L), got {cnt.shape}")
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

    def summary(self) -> dict:
        """A strict-JSON one-line summary (one element of the CLI's ``--json`` ``cells``).

        ``stderr`` is None (JSON null) when it is undefined, i.e. for a single run; every
        other value is finite.
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
            "runs": self.runs,
            "horizon": int(self.checkpoints[-1]),
            "mean_regret": self.mean_regret,
            "stderr": se if np.isfinite(se) else None,
        }
