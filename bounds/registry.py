"""The bound registry: every regret bound the toolkit knows, declared once (docs/bounds.md).

A bound is a :class:`Bound`: its name, upper or lower, with a constant or as an order only,
gap-dependent or gap-free, the policies it covers with the parameter values its proof needs
(:class:`Covers`), the click models and instance premises it needs (:class:`Premise`), a
vectorised evaluation over an array of horizons, its source (a precise citation, or "derived
here" with the page of ``docs/`` that derives it) and the formula it evaluates.

Everything that shows or checks bounds reads this registry: ``cascading bounds`` and
``cascading ledger`` (:func:`bounds.later.ledger`), ``cascading study`` and
:func:`reports.plot_regret` (every applicable bound drawn, every inapplicable one named with
the premise that fails), ``cascading search --objective bound --bound NAME``, the report,
and ``cascading verify`` (a Monte-Carlo validity claim for each upper bound with a
constant). A new bound is one file:

* inside the package, a module ``bounds/catalog_<name>.py`` that calls
  :func:`register_bound`; every ``catalog_*`` module is discovered (:func:`load_bounds`),
  so nothing else is edited;
* outside it, any module of the user's that calls :func:`register_bound` before the bounds
  are used (``unregister_bound`` removes it again).

Example (the declaration of Theorem 2 in :mod:`bounds.catalog_paper`)::

    register_bound(Bound(
        name="theorem2",
        title="Theorem 2 (CascadeUCB1)",
        label="Thm 2, UCB1 upper",
        kind="upper", form="constant", gap="dependent",
        covers=(Covers("cascade-ucb1", alpha=1.5),),
        premises=(UNIQUE_OPTIMUM,),
        evaluate=lambda inst, n: upper.theorem2_bound(inst, n),
        source="[K15] ICML 2015, Theorem 2",
        rate="sum_{e>K} 12 log n / Delta_{e,K} + pi^2 L / 3",
    ))

This module depends on nothing above :mod:`bounds`: a policy is named by its registered name
and parameter values, which the simulator's specs match (:meth:`Bound.covers_policy`).
"""

from __future__ import annotations

import importlib
import math
import os
import pkgutil
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np

from cascading_bandits.bounds import _validate as V
from cascading_bandits.bounds.instance import as_instance

__all__ = [
    "Bound",
    "PremiseError",
    "Covers",
    "Premise",
    "KINDS",
    "FORMS",
    "GAPS",
    "ANY_POLICY",
    "UNIQUE_OPTIMUM",
    "HAS_SUBOPTIMAL",
    "B_LB_INSTANCE",
    "interior_weights",
    "horizon_at_least",
    "register_bound",
    "unregister_bound",
    "get_bound",
    "all_bounds",
    "bound_names",
    "bounds_for_policy",
    "load_bounds",
    "catalog_modules",
    "model_name",
    "ModelView",
    "model_view",
]

KINDS = ("upper", "lower")
FORMS = ("constant", "order")
GAPS = ("dependent", "free")
#: ``covers`` of a bound about every (consistent, uniformly good, ...) policy
ANY_POLICY = "any"
#: click models a bound may be proved for (the simulator's declared models; kept here as names
#: so that this floor imports nothing above it)
MODELS = ("cascade", "dbn", "pbm", "dcm")


class PremiseError(ValueError):
    """A bound evaluated where one of its premises fails (the message names the premise)."""


def model_name(model: str = "cascade", nu=None, gamma=None, lam=None) -> str:
    """The click model a bound sees, with the degenerate cases that are the cascade user.

    A DBN with ``nu = gamma = 1`` (``nu`` scalar or per item) and a DCM with every continuation
    probability ``lam_k = 0`` (the user stops at the first click) behave as the cascade user,
    draw for draw, and have its reward ``1 - prod(1 - w)``; they count as ``"cascade"``. A PBM
    is never the cascade model (its users may click several items and its reward counts
    clicks), whatever its examination probabilities.
    """
    V.choice("model", model, MODELS)
    if model == "dbn":
        nus = np.atleast_1d(np.asarray(1.0 if nu is None else nu, dtype=float))
        g = 1.0 if gamma is None else float(gamma)
        if np.all(nus == 1.0) and g == 1.0:
            return "cascade"
    if model == "dcm" and lam is not None:
        lams = np.atleast_1d(np.asarray(lam, dtype=float))
        if lams.size and np.all(lams == 0.0):
            return "cascade"
    return model


@dataclass(frozen=True)
class ModelView:
    """The click model a bound is asked about: its name and the parameters its premises read.

    Parameters
    ----------
    name : str
        One of :data:`MODELS`, as :func:`model_name` reduces it (a DBN with ``nu = gamma = 1``
        is ``"cascade"``).
    params : tuple of (str, tuple of float)
        The model's parameters by name (``kappa``, ``lam``, ``nu``, ``gamma``), each as a
        tuple of floats; a parameter not given is absent (a premise that needs it fails).

    A plain model name passed where a model is asked for is the view with no parameters.
    """

    name: str
    params: tuple = ()

    def __post_init__(self):
        V.choice("model", self.name, MODELS)

    def get(self, key: str):
        """The parameter ``key`` as a float64 array, or None if it was not given."""
        for k, v in self.params:
            if k == key:
                return np.asarray(v, dtype=np.float64)
        return None


def model_view(model="cascade", *, nu=None, gamma=None, kappa=None, lam=None) -> ModelView:
    """The :class:`ModelView` of a click model with its parameters (validated probabilities).

    The name is reduced as :func:`model_name` does; the parameters given are kept as they are
    (so that premises can read them), whatever the reduced name.
    """
    if isinstance(model, ModelView):
        if (nu, gamma, kappa, lam) != (None, None, None, None):
            raise ValueError("model: give parameters either in the ModelView or as arguments")
        return model
    name = model_name(model, nu=nu, gamma=gamma, lam=lam)
    params = []
    for key, val in (("nu", nu), ("gamma", gamma), ("kappa", kappa), ("lam", lam)):
        if val is not None:
            arr = np.atleast_1d(V.probabilities(key, val, ndim=None))
            params.append((key, tuple(float(x) for x in arr.reshape(-1))))
    return ModelView(name, tuple(params))


def _as_model(model) -> ModelView:
    """A :class:`ModelView` from a view or a model name (ValueError for anything else)."""
    if isinstance(model, ModelView):
        return model
    if not isinstance(model, str):
        raise ValueError(
            f"model must be one of {', '.join(MODELS)} or a ModelView, got {V.show(model)}"
        )
    return ModelView(V.choice("model", model, MODELS))


@dataclass(frozen=True)
class Premise:
    """A condition a bound needs, on the instance and (optionally) the horizon or click model.

    Parameters
    ----------
    text : str
        What is assumed, in words (shown in the ledger and where a bound is not drawn).
    holds : callable ``(inst: CascadeInstance, n: int or None) -> bool``
        ``n`` is None when the question is asked of the instance alone (a plot over many
        horizons); a premise about n then answers True and is checked per horizon.
        With ``on_model=True`` it is called as ``holds(inst, n, model)``, ``model`` a
        :class:`ModelView` (e.g. a PBM's examination probabilities must be non-increasing).
    on_model : bool
        Whether ``holds`` reads the click model.
    """

    text: str
    holds: Callable
    on_model: bool = False

    def __post_init__(self):
        if not isinstance(self.text, str) or not self.text.strip():
            raise ValueError("a premise needs a non-empty text")
        if not callable(self.holds):
            raise ValueError(f"premise {self.text!r}: holds must be callable")

    def check(self, inst, n, model: ModelView) -> bool:
        """Whether the premise holds (a ValueError inside ``holds`` counts as not holding)."""
        try:
            return bool(self.holds(inst, n, model) if self.on_model else self.holds(inst, n))
        except ValueError:
            return False


UNIQUE_OPTIMUM = Premise(
    "unique optimal set w(K) > w(K+1)",
    lambda inst, n: inst.has_unique_optimum or inst.regret_free,
)
HAS_SUBOPTIMAL = Premise(
    "a suboptimal item to learn about (L > K and w(K) > w(L))",
    lambda inst, n: inst.L > inst.K and not inst.regret_free,
)


def _is_blb(inst, n):
    from cascading_bandits.bounds.lower import blb_parameters

    return blb_parameters(inst) is not None


B_LB_INSTANCE = Premise("a B_LB(L, K, p, Delta) instance (eq. 6)", _is_blb)


def interior_weights(text="attraction probabilities in (0, 1)") -> Premise:
    """Every weight strictly between 0 and 1 (asymptotic lower bounds need kl finite)."""
    return Premise(text, lambda inst, n: bool(np.all((inst.weights > 0) & (inst.weights < 1))))


def horizon_at_least(n0: int, why: str = "") -> Premise:
    """``n >= n0`` (True when asked without a horizon: the caller checks each horizon)."""
    n0 = V.positive_int("n0", n0)
    text = f"n >= {n0}" + (f" ({why})" if why else "")
    return Premise(text, lambda inst, n: n is None or n >= n0)


@dataclass(frozen=True)
class Covers:
    """A policy a bound covers, with the parameter values its proof needs.

    ``Covers("cascade-klucb", c=3)``: the policy registered as ``cascade-klucb`` with
    ``c = 3``; parameters not named may take any value.
    """

    policy: str
    params: tuple = ()

    def __init__(self, policy: str, **params):
        if not isinstance(policy, str) or not policy.strip():
            raise ValueError(f"a covered policy needs a name, got {V.show(policy)}")
        vals = []
        for k, v in sorted(params.items()):
            try:
                fv = float(v)
            except (TypeError, ValueError):
                fv = math.nan
            if isinstance(v, bool) or not math.isfinite(fv):
                raise ValueError(f"{policy} parameter {k} must be a finite number, got {V.show(v)}")
            vals.append((k, fv))
        object.__setattr__(self, "policy", policy.strip())
        object.__setattr__(self, "params", tuple(vals))

    def matches(self, name: str, params: Mapping | None = None) -> bool:
        """Whether policy ``name`` with parameter values ``params`` is covered.

        A parameter the bound needs and ``params`` does not give counts as not covered.
        """
        if name != self.policy:
            return False
        params = {} if params is None else params
        for k, v in self.params:
            got = params.get(k)
            try:
                if got is None or float(got) != v:
                    return False
            except (TypeError, ValueError):
                return False
        return True

    @property
    def text(self) -> str:
        """``cascade-klucb(c=3)``; the plain name when no parameter is needed."""
        if not self.params:
            return self.policy
        inner = ",".join(f"{k}={v:g}" for k, v in self.params)
        return f"{self.policy}({inner})"


def _as_premises(premises):
    out = tuple(premises)
    for p in out:
        if not isinstance(p, Premise):
            raise ValueError(f"premises must be Premise objects, got {V.show(p)}")
    return out


@dataclass(frozen=True)
class Bound:
    """A regret bound, declared once (module docstring).

    Parameters
    ----------
    name : str
        Its key everywhere (``--bound NAME``, stored searches, claims ``bound.NAME``):
        lower-case letters, digits and ``-``.
    title : str
        The ledger's row name, e.g. ``"Theorem 2 (CascadeUCB1)"``.
    label : str
        A short legend label for figures.
    kind : {"upper", "lower"}
    form : {"constant", "order"}
        ``constant``: the bound with all its constants (a value to compare a regret with);
        ``order``: the rate only, constant and log factors dropped (shown, never compared).
    gap : {"dependent", "free"}
    covers : tuple of Covers, or ANY_POLICY
        The policies the bound is about. Lower bounds about every consistent policy use
        :data:`ANY_POLICY`.
    evaluate : callable ``(inst: CascadeInstance, n: ndarray of int64 (H,)) -> ndarray (H,)``
        The bound at each horizon, vectorised. Lower bounds that are asymptotic statements
        (``liminf R(n)/log n >= c``) return ``c log n``.
    source : str
        A precise citation (venue, theorem), or "derived here" and what from.
    rate : str
        The formula, in words, as the ledger prints it.
    algorithm : str
        How the ledger names the policy (default: the covered policies' texts).
    premises : tuple of Premise
        Conditions on the instance and horizon.
    models : tuple of str
        The click models the bound is proved for (default the cascade model).
    derivation : str
        For a bound derived here: the page of ``docs/`` (and section) with its derivation.
    asymptotic : bool
        True for ``liminf`` statements (the value at n is the rate ``c log n``).
    monotone : bool
        Declared nondecreasing in n (tested for every such bound).
    notes : callable ``(inst, n: int) -> list of str``, optional
        Instance- and horizon-specific remarks for the ledger (e.g. the eps used).
    validity_instances : tuple of (weights tuple, K)
        Instances the bound's Monte-Carlo validity claim always includes (besides the
        default ones and the tightest instance a stored search found).
    anytime : bool or None
        False when the value at n is proved only for a run of horizon n (its policy is tuned
        to n, e.g. TopRank's delta = 1/n): checks compare it at a run's horizon, never at an
        earlier step. True: it bounds R(t) at every t of any run. None (default): decided
        from the covered policy (:func:`verify.claims_bounds.horizon_specific`).
    """

    name: str
    title: str
    label: str
    kind: str
    form: str
    gap: str
    covers: object
    evaluate: Callable
    source: str
    rate: str
    algorithm: str = ""
    premises: tuple = ()
    models: tuple = ("cascade",)
    derivation: str = ""
    asymptotic: bool = False
    monotone: bool = True
    notes: Callable | None = None
    validity_instances: tuple = field(default_factory=tuple)
    anytime: bool | None = None

    def __post_init__(self):
        if self.anytime is not None and not isinstance(self.anytime, bool):
            raise ValueError(
                f"bound {self.name!r}: anytime must be True, False or None, got "
                f"{V.show(self.anytime)}"
            )
        if not isinstance(self.name, str) or not self.name:
            raise ValueError(f"a bound needs a name, got {V.show(self.name)}")
        bad = [c for c in self.name if not (c.islower() or c.isdigit() or c == "-")]
        if bad or not self.name[0].isalpha():
            raise ValueError(
                f"bound name {self.name!r}: use lower-case letters, digits and '-', starting "
                "with a letter"
            )
        for what in ("title", "label", "source", "rate"):
            v = getattr(self, what)
            if not isinstance(v, str) or not v.strip():
                raise ValueError(f"bound {self.name!r}: {what} must be a non-empty string")
        V.choice(f"bound {self.name!r} kind", self.kind, KINDS)
        V.choice(f"bound {self.name!r} form", self.form, FORMS)
        V.choice(f"bound {self.name!r} gap", self.gap, GAPS)
        if self.covers != ANY_POLICY:
            covers = tuple(self.covers)
            if not covers or not all(isinstance(c, Covers) for c in covers):
                raise ValueError(
                    f"bound {self.name!r}: covers must be Covers objects or ANY_POLICY"
                )
            object.__setattr__(self, "covers", covers)
        if not callable(self.evaluate):
            raise ValueError(f"bound {self.name!r}: evaluate must be callable")
        object.__setattr__(self, "premises", _as_premises(self.premises))
        models = tuple(self.models)
        for m in models:
            V.choice(f"bound {self.name!r} model", m, MODELS)
        object.__setattr__(self, "models", models)
        if not self.algorithm:
            algo = "any" if self.covers == ANY_POLICY else ", ".join(c.text for c in self.covers)
            object.__setattr__(self, "algorithm", algo)
        if self.notes is not None and not callable(self.notes):
            raise ValueError(f"bound {self.name!r}: notes must be callable or None")
        inst = []
        for item in self.validity_instances:
            w, k = item
            inst.append((tuple(float(x) for x in w), int(k)))
        object.__setattr__(self, "validity_instances", tuple(inst))

    # -- what it is about ---------------------------------------------------------------
    @property
    def comparable(self) -> bool:
        """An upper bound with a constant: a regret can be checked against it."""
        return self.kind == "upper" and self.form == "constant"

    def covers_policy(self, name: str, params: Mapping | None = None) -> bool:
        """Whether the policy ``name`` with ``params`` (its spec's values) is covered."""
        if self.covers == ANY_POLICY:
            return True
        return any(c.matches(name, params) for c in self.covers)

    def policy_text(self) -> str:
        """The first covered policy as a spec text (``cascade-klucb(c=3)``), or ``any``."""
        return ANY_POLICY if self.covers == ANY_POLICY else self.covers[0].text

    def failed_premise(self, inst, n=None, model="cascade") -> str | None:
        """The text of the first premise that fails (None if the bound applies).

        Parameters
        ----------
        inst : CascadeInstance
        n : int or None
            None asks about the instance alone (premises on n answer True).
        model : str or ModelView
            The click model, as :func:`model_name` gives it, or with its parameters
            (:func:`model_view`) for premises that read them; a name alone has no parameters.
        """
        view = _as_model(model)
        if view.name not in self.models:
            return f"the {' or '.join(self.models)} click model (got {view.name})"
        for p in self.premises:
            if not p.check(inst, n, view):
                return p.text
        return None

    def applies(self, inst, n=None, model="cascade") -> bool:
        return self.failed_premise(inst, n, model) is None

    def premise_texts(self) -> list:
        return [p.text for p in self.premises]

    # -- its value ----------------------------------------------------------------------
    def __call__(self, instance, n, K=None, model="cascade"):
        """The bound at horizon(s) ``n``: float for a scalar, ndarray of n's shape otherwise.

        ``model`` is a model name or a :class:`ModelView`. Raises ValueError (naming the
        premise) where a premise fails, for an order-only bound as for any other (its value
        is the rate).
        """
        inst = as_instance(instance, K)
        n_arr, scalar = _horizons(n)
        model = _as_model(model)
        flat = n_arr.reshape(-1)
        why = self.failed_premise(inst, None, model)
        if why is None and flat.size:
            why = self.failed_premise(inst, int(flat.min()), model)
        if why is not None:
            raise PremiseError(f"bound {self.name!r} needs {why}; it does not apply here")
        if flat.size == 0:
            return np.zeros(n_arr.shape)
        vals = np.asarray(self.evaluate(inst, flat), dtype=np.float64).reshape(-1)
        if vals.shape != flat.shape:
            raise ValueError(
                f"bound {self.name!r}: evaluate returned shape {vals.shape} for "
                f"{flat.size} horizons"
            )
        if not np.all(np.isfinite(vals)):
            raise ValueError(
                f"bound {self.name!r} is beyond the float64 range at n = "
                f"{V.show(float(flat[~np.isfinite(vals)][0]))}; use a smaller n"
            )
        out = vals.reshape(n_arr.shape)
        return float(out) if scalar else out

    def note_lines(self, inst, n: int) -> list:
        """Premises and the bound's own remarks at (inst, n), for the ledger."""
        lines = self.premise_texts()
        if self.asymptotic:
            lines.append(
                "asymptotic: liminf R(n)/log n >= coefficient; value = coefficient * log n"
            )
        if self.form == "order":
            lines.append("order only: constant and log factors not retrieved")
        if self.derivation:
            lines.append(f"derivation: {self.derivation}")
        if self.notes is not None:
            lines += [str(x) for x in self.notes(inst, n)]
        return lines


def _horizons(n):
    """Validated integer horizon(s) >= 1 as an int64 array and whether n was a scalar."""
    try:
        a = np.asarray(n)
    except ValueError:  # a ragged list
        a = np.asarray(None, dtype=object)
    scalar = a.ndim == 0
    if a.dtype == object or not (
        np.issubdtype(a.dtype, np.integer) or np.issubdtype(a.dtype, np.floating)
    ):
        raise ValueError(f"n must be an integer >= 1 or an array of them, got {V.show(n)}")
    f = a.astype(np.float64)
    if f.size and (
        not np.all(np.isfinite(f)) or np.any(f < 1) or np.any(f != np.floor(f)) or np.any(f > 2**62)
    ):
        bad = f.reshape(-1)[
            ~(np.isfinite(f) & (f >= 1) & (f == np.floor(f)) & (f <= 2**62)).reshape(-1)
        ][0]
        raise ValueError(
            f"n must be an integer in [1, 2^62] (or an array of them), got {V.show(float(bad))}"
        )
    return f.astype(np.int64), scalar


_REGISTRY: dict = {}
_LOADING = False


def register_bound(bound: Bound, replace: bool = False) -> Bound:
    """Add ``bound`` to the registry (``replace=True`` to redeclare a name); returns it.

    The package's catalogs are loaded first (outside a catalog's own import), so a user's
    bound comes after the project's in every listing and cannot pre-empt one of its names.
    """
    if not isinstance(bound, Bound):
        raise ValueError(f"register_bound takes a Bound, got {V.show(bound)}")
    if not _LOADING:
        load_bounds()
    if bound.name in _REGISTRY and not replace:
        raise ValueError(f"a bound named {bound.name!r} is already registered")
    _REGISTRY[bound.name] = bound
    return bound


def unregister_bound(name: str) -> None:
    """Remove a registered bound (ValueError for an unknown name)."""
    get_bound(name)
    del _REGISTRY[name]


#: (the package directories' listings, catalog_modules' answer): the scan is redone only
#: when a file is added to or removed from a directory (listings, not modification times,
#: whose granularity can hide a change made within the same clock tick)
_CATALOG_SCAN: list = [None, None]


def catalog_modules() -> list:
    """Full names of this package's ``catalog_*`` modules: paper, later, then the others.

    The module scan (0.26 ms) is kept while the package directories list the same files
    (a listing costs about 0.02 ms): every bound lookup calls this (:func:`load_bounds`),
    thousands of times in a report's build, and a catalog module added later still
    changes the answer.
    """
    import cascading_bandits.bounds as pkg

    stamp = tuple((d, tuple(sorted(os.listdir(d)))) for d in pkg.__path__)
    if _CATALOG_SCAN[0] == stamp:
        return list(_CATALOG_SCAN[1])
    found = {m.name for m in pkgutil.iter_modules(pkg.__path__) if m.name.startswith("catalog_")}
    first = [m for m in ("catalog_paper", "catalog_later") if m in found]
    rest = sorted(found - set(first))
    names = [f"{pkg.__name__}.{m}" for m in first + rest]
    _CATALOG_SCAN[:] = [stamp, names]
    return list(names)


def load_bounds() -> list:
    """Import every ``catalog_*`` module not imported yet (each registers its bounds).

    Idempotent and called by every lookup, so a catalog module added to the package after
    the registry was first used is picked up too. An error inside a catalog module
    propagates: a broken module must not drop its bounds silently.
    """
    global _LOADING
    names = catalog_modules()
    if _LOADING:  # a catalog being imported registers its bounds: no nested loading
        return names
    _LOADING = True
    try:
        for name in names:
            if name not in sys.modules:
                importlib.import_module(name)
    finally:
        _LOADING = False
    return names


def all_bounds() -> list:
    """Every registered bound, in declaration order."""
    load_bounds()
    return list(_REGISTRY.values())


def bound_names(kind=None, form=None) -> tuple:
    """Names of the registered bounds, optionally of one ``kind`` and ``form``."""
    if kind is not None:
        V.choice("kind", kind, KINDS)
    if form is not None:
        V.choice("form", form, FORMS)
    return tuple(
        b.name
        for b in all_bounds()
        if (kind is None or b.kind == kind) and (form is None or b.form == form)
    )


def get_bound(name) -> Bound:
    """The bound registered as ``name`` (ValueError listing the names otherwise)."""
    load_bounds()
    if not isinstance(name, str) or name not in _REGISTRY:
        raise ValueError(f"unknown bound {V.show(name)}; registered bounds: {', '.join(_REGISTRY)}")
    return _REGISTRY[name]


def bounds_for_policy(name: str, params: Mapping | None = None, kind=None, form=None) -> list:
    """The registered bounds that cover policy ``name`` with ``params`` (specific ones only:
    bounds about :data:`ANY_POLICY` are left out)."""
    return [
        b
        for b in all_bounds()
        if b.covers != ANY_POLICY
        and b.covers_policy(name, params)
        and (kind is None or b.kind == kind)
        and (form is None or b.form == form)
    ]


def log_n(n) -> np.ndarray:
    """``log max(n, 1)`` of an array of horizons (the small-t rule), float64."""
    return np.log(np.maximum(np.asarray(n, dtype=np.float64), 1.0))


def scalar_map(fn, n) -> np.ndarray:
    """Evaluate a scalar-horizon function at each of the horizons ``n`` (1-d), float64.

    For bounds whose formula optimises something per horizon and has no vectorised form.
    """
    return np.array([float(fn(int(m))) for m in np.asarray(n).reshape(-1)], dtype=np.float64)
