"""The paper's experiments as data: grids of :class:`Cell` (Section 5).

``table1``  Section 5.1: B_LB(L, K, p = 0.2, Delta) for the nine (L, K, Delta) rows of
            Table 1, cascade-ucb1 and cascade-klucb, best-first.
``table2``  Section 5.2: the same cells, worst-first (Table 2).
``dbn``     Sections 5.3-5.4: DBN model on B_LB(16, 4, 0.2, 0.15) (rho = the B_LB weights),
            nu in {1, 0.7}, gamma in {1, 0.7}, cascade-klucb and ranked-klucb (Figure 1).
``ts``      Extra: cascade-ts on the Table 1 rows, best-first (a later baseline the paper lacks).
``dbn-rba``  Extra: the ``dbn`` grid with ranked-klucb-rba (RBA's reward rule as printed; see
            :mod:`simulate.policies`).

Cells on other instances: :func:`b_lb_cell` (B_LB under any click model) and
:func:`instance_cell` (a real instance of :mod:`simulate.real_instances` by name, e.g.
``"yandex:4102451:top"``).

Defaults as in the paper: n = 1e5 steps, 20 runs. ``testing=True`` gives a tiny
subset (two cells per experiment, n = 2000, 3 runs) for smoke tests.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from dataclasses import dataclass

import numpy as np

from cascading_bandits.bounds import _validate as V
from cascading_bandits.bounds.instance import b_lb
from cascading_bandits.simulate.models import MODEL_NAMES, make_model
from cascading_bandits.simulate.policies import format_number, order_code, parse_policy

__all__ = [
    "Cell",
    "get_experiment",
    "EXPERIMENTS",
    "TABLE_ROWS",
    "default_checkpoints",
    "b_lb_cell",
    "instance_cell",
    "spec_c",
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


def spec_c(spec) -> float:
    """The ``c`` of a parsed policy spec, or 3.0 (the paper's value) for a policy without one.

    Read-only: what :attr:`Cell.c` holds. A policy's parameters come from its spec alone.
    """
    try:
        spec.decl.param("c")
    except KeyError:  # a policy without c
        return 3.0
    return float(spec["c"])


@dataclass(frozen=True)
class Cell:
    """One cell of an experiment: click model, instance, policy, order, horizon and runs.

    Parameters
    ----------
    experiment, cell_id : str
        Names; ``cell_id`` is unique within the experiment and is the file stem on disk.
    model : {"cascade", "dbn", "pbm", "dcm"}
        A declared click model (:data:`simulate.models.MODEL_NAMES`).
    weights : tuple of float, shape (L,)
        Attraction probabilities ``w`` (cascade, PBM, DCM) or ``rho`` (DBN).
    K : int
    policy : str
        A policy spec (:func:`simulate.policies.parse_policy`), e.g. ``"cascade-klucb"`` or
        ``"cascade-ts(prior=2,1)"``; stored as its canonical string (defaults omitted). The
        policy's parameters come from the spec alone.
    order : {"best-first", "worst-first"}
    horizon : int
        n >= 1.
    runs : int
        >= 1.
    nu, gamma : float, keyword only
        DBN satisfaction (same for every item) and persistence; 1 for the other models.
    p, delta : float or None, keyword only
        B_LB parameters when the weights are B_LB(L, K, p, delta), else None.
    kappa : tuple of K floats or None, keyword only
        PBM examination probabilities per position; None for the model's default
        (``1/k``), stored resolved. Only for ``model="pbm"``.
    lam : tuple of K floats or None, keyword only
        DCM continuation probabilities after a click, per position; None for the default
        (``k/(k+1)``), stored resolved. Only for ``model="dcm"``.

    Attributes
    ----------
    c : float
        Not an input: the policy spec's ``c`` (3.0 for a policy without one), kept in
        :attr:`params` so that cells stored before keep their identity.
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
    c: float = dataclasses.field(default=3.0, init=False)
    _: dataclasses.KW_ONLY
    nu: float = 1.0
    gamma: float = 1.0
    p: float | None = None
    delta: float | None = None
    kappa: tuple | None = None
    lam: tuple | None = None

    def __post_init__(self):
        for name in ("experiment", "cell_id"):
            v = getattr(self, name)
            if not isinstance(v, str) or not v or "/" in v or "\\" in v or v.startswith("."):
                raise ValueError(
                    f"{name} must be a non-empty name without '/', '\\' or a leading '.', got {v!r}"
                )
        V.choice("model", self.model, MODEL_NAMES)
        spec = parse_policy(self.policy)
        object.__setattr__(self, "policy", spec.text)
        order_code(self.order, spec)
        object.__setattr__(self, "horizon", V.positive_int("horizon", self.horizon))
        object.__setattr__(self, "runs", V.positive_int("runs", self.runs))
        object.__setattr__(self, "c", spec_c(spec))
        m = self.click_model()  # validates weights, K and the model's parameters
        object.__setattr__(self, "weights", tuple(m.weights))
        object.__setattr__(self, "K", m.K)
        object.__setattr__(self, "nu", V.probability("nu", self.nu))
        object.__setattr__(self, "gamma", V.probability("gamma", self.gamma, open_low=True))
        for name in ("kappa", "lam"):
            object.__setattr__(self, name, getattr(m, name, None))
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
        return make_model(
            self.model, self.weights, self.K, self.nu, self.gamma, kappa=self.kappa, lam=self.lam
        )

    @property
    def params(self) -> dict:
        """JSON-able parameters (the contract's keys).

        ``kappa`` and ``lam`` appear for the models that have them only, so the cascade
        and DBN cells stored before these models existed keep their identity.
        """
        d = dataclasses.asdict(self)
        d["weights"] = list(self.weights)
        for name in ("kappa", "lam"):
            if d[name] is None:
                del d[name]
            else:
                d[name] = list(d[name])
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


def _values_id(values) -> str:
    """File-safe text of per-position parameters: ``0.5_0.25`` when each value's shortest
    text is short, else a 10-hex SHA-256 of their reprs (ids stay readable and unique)."""
    texts = [format_number(x) for x in values]
    if all(len(t) <= 6 for t in texts):
        return "_".join(texts)
    return hashlib.sha256(json.dumps([repr(float(x)) for x in values]).encode()).hexdigest()[:10]


def _model_id(model, nu, gamma, kappa, lam) -> str:
    """The part of a default cell id that names the click model and its parameters."""
    if model == "dbn":
        return f"-nu{nu:g}-g{gamma:g}"
    if model == "pbm":
        return "-pbm" + ("" if kappa is None else f"-kappa{_values_id(kappa)}")
    if model == "dcm":
        return "-dcm" + ("" if lam is None else f"-lam{_values_id(lam)}")
    return ""


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
    kappa=None,
    lam=None,
    horizon=100_000,
    runs=20,
    cell_id=None,
) -> Cell:
    """A cell on B_LB(L, K, p, delta) (eq. (6)) under any click model; ``cell_id`` defaults to
    a readable name.

    The default name ends with the policy's canonical spec and the order, so cells of
    one policy with other parameters never share a name (nor a stored file); a model's
    parameters are in it too (``-nu0.7-g1``, ``-pbm-kappa1_0.5``, ``-dcm``).
    """
    inst = b_lb(L, K, p, delta)
    if cell_id is None:
        policy = parse_policy(policy).text
        cell_id = f"L{L}-K{K}-p{p:g}-d{delta:g}"
        cell_id += _model_id(model, nu, gamma, kappa, lam)
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
        nu=nu,
        gamma=gamma,
        p=float(p),
        delta=float(delta),
        kappa=kappa,
        lam=lam,
    )


def instance_cell(
    experiment,
    name,
    policy,
    order="best-first",
    *,
    model="pbm",
    K=None,
    nu=1.0,
    gamma=1.0,
    kappa=None,
    lam=None,
    horizon=100_000,
    runs=20,
    cell_id=None,
) -> Cell:
    """A cell on the real instance ``name`` (:func:`simulate.real_instances.parse_instance_name`,
    e.g. ``"yandex:4102451:top"``, ``"kdd:19"``).

    The instance gives the attraction probabilities ``weights``, the default ``K`` (its
    number of positions) and, for ``model="pbm"``, the default ``kappa`` (its fitted
    examination probabilities of positions ``1..K``). Other models take the weights only
    (the DCM's ``lam`` and the DBN's ``nu``, ``gamma`` are not in the data). The default
    ``cell_id`` is the instance's name (``:`` as ``-``), the model and its given
    parameters, ``K`` when it is not the instance's, the policy and the order.
    """
    from cascading_bandits.simulate.real_instances import parse_instance_name

    weights, inst_kappa, inst_K, label = parse_instance_name(name)
    V.choice("model", model, MODEL_NAMES)
    K = inst_K if K is None else V.list_size(K, len(weights))
    if model == "pbm" and kappa is None:
        if K > len(inst_kappa):
            raise ValueError(
                f"{label} has examination probabilities for {len(inst_kappa)} positions; "
                f"K = {K} needs kappa= (K values) or K <= {len(inst_kappa)}"
            )
        kappa_used = tuple(inst_kappa[:K])
    else:
        kappa_used = kappa
    if cell_id is None:
        cell_id = label.replace(":", "-") + _model_id(model, nu, gamma, kappa, lam)
        if model == "cascade":
            cell_id += "-cascade"
        if K != inst_K:
            cell_id += f"-K{K}"
        cell_id += f"-{parse_policy(policy).text}-{order}"
    return Cell(
        experiment,
        cell_id,
        model,
        tuple(weights),
        K,
        policy,
        order,
        horizon,
        runs,
        nu=nu,
        gamma=gamma,
        kappa=kappa_used,
        lam=lam,
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
