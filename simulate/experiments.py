"""The paper's experiments as data: grids of :class:`Cell` (Section 5).

``table1``  Section 5.1: B_LB(L, K, p = 0.2, Delta) for the nine (L, K, Delta) rows of
            Table 1, cascade-ucb1 and cascade-klucb, best-first.
``table2``  Section 5.2: the same cells, worst-first (Table 2).
``dbn``     Sections 5.3-5.4: DBN model on B_LB(16, 4, 0.2, 0.15) (rho = the B_LB weights),
            nu in {1, 0.7}, gamma in {1, 0.7}, cascade-klucb and ranked-klucb (Figure 1).
``ts``      Extra: cascade-ts on the Table 1 rows, best-first (a later baseline the paper lacks).
``dbn-rba``  Extra: the ``dbn`` grid with ranked-klucb-rba (RBA's reward rule as printed; see
            :mod:`simulate.policies`).

Defaults as in the paper: n = 1e5 steps, 20 runs. ``testing=True`` gives a tiny
subset (two cells per experiment, n = 2000, 3 runs) for smoke tests.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from cascading_bandits.bounds import _validate as V
from cascading_bandits.bounds.instance import b_lb
from cascading_bandits.simulate.models import MODEL_NAMES, make_model
from cascading_bandits.simulate.policies import order_code, parse_policy

__all__ = [
    "Cell",
    "get_experiment",
    "EXPERIMENTS",
    "TABLE_ROWS",
    "default_checkpoints",
    "b_lb_cell",
    "policy_and_c",
]

#: (L, K, Delta) rows of Tables 1 and 2, in the paper's order
TABLE_ROWS = (
    (16, 2, 0.15),
    (16, 4, 0.15),
    (16, 8, 0.15),
    (32, 2, 0.15),
    (32, 4, 0.15),
    (32, 8, 0.15),
    (16, 2, 0.075),
    (16, 4, 0.075),
    (16, 8, 0.075),
)
P_TABLES = 0.2
EXPERIMENTS = ("table1", "table2", "dbn", "ts", "dbn-rba")
TESTING_HORIZON = 2000
TESTING_RUNS = 3


def policy_and_c(policy, c=3.0):
    """(spec, c): the policy spec with the legacy ``c`` folded in, and the cell's ``c``.

    See :class:`Cell`'s ``c``. ValueError for a bad spec, a bad ``c`` or a conflict.
    """
    spec = parse_policy(policy)
    c = V.positive_real("c", c, allow_zero=True)
    try:
        c_default = spec.decl.param("c").default[0]
    except KeyError:  # a policy without c: the field keeps its default
        return spec, 3.0
    if c != c_default:
        if spec["c"] not in (c_default, c):
            raise ValueError(
                f"c = {c:g} contradicts the policy spec {spec.text} (give c in one place)"
            )
        spec = spec.replace(c=c)
    return spec, spec["c"]


@dataclass(frozen=True)
class Cell:
    """One cell of an experiment: click model, instance, policy, order, horizon and runs.

    Parameters
    ----------
    experiment, cell_id : str
        Names; ``cell_id`` is unique within the experiment and is the file stem on disk.
    model : {"cascade", "dbn"}
    weights : tuple of float, shape (L,)
        Attraction probabilities ``w`` (cascade) or ``rho`` (DBN).
    K : int
    policy : str
        A policy spec (:func:`simulate.policies.parse_policy`), e.g. ``"cascade-klucb"`` or
        ``"cascade-ts(prior=2,1)"``; stored as its canonical string (defaults omitted).
    order : {"best-first", "worst-first"}
    horizon : int
        n >= 1.
    runs : int
        >= 1.
    c : float
        KL-UCB constant (3 in the paper), kept for existing code: for a policy with a
        parameter ``c`` it is the spec's ``c`` (``Cell(policy="cascade-klucb", c=0)`` is
        ``Cell(policy="cascade-klucb(c=0)")``, and ``c`` then reads 0); a spec and a ``c``
        that disagree, both away from the default 3, are an error. Policies without ``c``
        ignore it and store the default.
    nu, gamma : float
        DBN satisfaction (same for every item) and persistence; 1 for the cascade model.
    p, delta : float or None
        B_LB parameters when the weights are B_LB(L, K, p, delta), else None.
    """

    experiment: str
    cell_id: str
    model: str
    weights: tuple
    K: int
    policy: str
    order: str = "best-first"
    horizon: int = 100_000
    runs: int = 20
    c: float = 3.0
    nu: float = 1.0
    gamma: float = 1.0
    p: float | None = None
    delta: float | None = None

    def __post_init__(self):
        for name in ("experiment", "cell_id"):
            v = getattr(self, name)
            if not isinstance(v, str) or not v or "/" in v or "\\" in v or v.startswith("."):
                raise ValueError(
                    f"{name} must be a non-empty name without '/', '\\' or a leading '.', got {v!r}"
                )
        V.choice("model", self.model, MODEL_NAMES)
        spec, c = policy_and_c(self.policy, self.c)
        object.__setattr__(self, "policy", spec.text)
        order_code(self.order, spec)
        object.__setattr__(self, "horizon", V.positive_int("horizon", self.horizon))
        object.__setattr__(self, "runs", V.positive_int("runs", self.runs))
        object.__setattr__(self, "c", c)
        if self.model == "cascade" and (self.nu != 1.0 or self.gamma != 1.0):
            raise ValueError(
                "nu and gamma apply to the dbn model only; the cascade model has nu = gamma = 1"
            )
        m = make_model(self.model, self.weights, self.K, self.nu, self.gamma)  # validates the rest
        object.__setattr__(self, "weights", tuple(m.rho if self.model == "dbn" else m.weights))
        object.__setattr__(self, "K", m.K)
        object.__setattr__(self, "nu", V.probability("nu", self.nu))
        object.__setattr__(self, "gamma", V.probability("gamma", self.gamma, open_low=True))
        if (self.p is None) != (self.delta is None):
            raise ValueError("give both p and delta (a B_LB cell) or neither")
        if self.p is not None:
            ref = b_lb(self.L, self.K, self.p, self.delta)
            if tuple(ref.weights) != tuple(self.weights):
                raise ValueError("weights differ from B_LB(L, K, p, delta)")
            object.__setattr__(self, "p", float(self.p))
            object.__setattr__(self, "delta", float(self.delta))

    @property
    def L(self) -> int:
        return len(self.weights)

    def click_model(self):
        """The :mod:`simulate.models` object of this cell."""
        return make_model(self.model, self.weights, self.K, self.nu, self.gamma)

    @property
    def params(self) -> dict:
        """JSON-able parameters (the contract's keys)."""
        d = dataclasses.asdict(self)
        d["weights"] = list(self.weights)
        d["L"] = self.L
        return d

    def with_scale(self, runs=None, horizon=None) -> Cell:
        """The same cell with other ``runs`` / ``horizon``."""
        kw = {}
        if runs is not None:
            kw["runs"] = runs
        if horizon is not None:
            kw["horizon"] = horizon
        return dataclasses.replace(self, **kw)


def b_lb_cell(
    experiment,
    L,
    K,
    p,
    delta,
    policy,
    order="best-first",
    *,
    model="cascade",
    nu=1.0,
    gamma=1.0,
    horizon=100_000,
    runs=20,
    c=3.0,
    cell_id=None,
) -> Cell:
    """A cell on B_LB(L, K, p, delta) (eq. (6)); ``cell_id`` defaults to a readable name.

    The default name ends with the policy's canonical spec and the order, so cells of
    one policy with other parameters never share a name (nor a stored file).
    """
    inst = b_lb(L, K, p, delta)
    if cell_id is None:
        policy = policy_and_c(policy, c)[0].text
        cell_id = f"L{L}-K{K}-p{p:g}-d{delta:g}"
        if model == "dbn":
            cell_id += f"-nu{nu:g}-g{gamma:g}"
        cell_id += f"-{policy}-{order}"
    return Cell(
        experiment,
        cell_id,
        model,
        tuple(inst.weights),
        K,
        policy,
        order,
        horizon,
        runs,
        c,
        nu,
        gamma,
        float(p),
        float(delta),
    )


def _grid(name):
    if name in ("table1", "table2", "ts"):
        order = "worst-first" if name == "table2" else "best-first"
        pols = ("cascade-ts",) if name == "ts" else ("cascade-ucb1", "cascade-klucb")
        return [
            b_lb_cell(name, L, K, P_TABLES, d, pol, order)
            for (L, K, d) in TABLE_ROWS
            for pol in pols
        ]
    if name in ("dbn", "dbn-rba"):
        pols = ("cascade-klucb", "ranked-klucb") if name == "dbn" else ("ranked-klucb-rba",)
        return [
            b_lb_cell(name, 16, 4, P_TABLES, 0.15, pol, model="dbn", nu=nu, gamma=g)
            for nu in (1.0, 0.7)
            for g in (1.0, 0.7)
            for pol in pols
        ]
    raise AssertionError(name)


def get_experiment(name: str, testing: bool = False) -> list[Cell]:
    """The cells of experiment ``name`` (one of :data:`EXPERIMENTS`).

    ``testing=True``: the first and last cell only, with n = 2000 and 3 runs.
    """
    V.choice("experiment", name, EXPERIMENTS)
    cells = _grid(name)
    if testing:
        cells = [
            x.with_scale(runs=TESTING_RUNS, horizon=TESTING_HORIZON) for x in (cells[0], cells[-1])
        ]
    return cells


def default_checkpoints(horizon: int) -> np.ndarray:
    """Steps at which cumulative regret is recorded, shape (m,) int64, increasing, last = horizon.

    About 50 geometrically spaced steps from 1 (for log-scale plots) and 100 evenly spaced.
    """
    n = V.positive_int("horizon", horizon)
    geo = np.geomspace(1, n, num=min(50, n)) if n > 1 else np.array([1.0])
    lin = np.linspace(n / 100, n, num=100)
    pts = np.unique(np.clip(np.round(np.concatenate([geo, lin])).astype(np.int64), 1, n))
    if pts[-1] != n:
        pts = np.append(pts, n)
    return pts
