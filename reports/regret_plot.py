"""Regret against n for any instance, with every bound that applies: :func:`plot_regret`.

Which bound applies to what (Kveton et al., ICML 2015, Section 4):

* Theorem 2 (upper) -- ``cascade-ucb1`` with the paper's exploration ``alpha = 1.5``
  (``sqrt(1.5 log t / T)``, Section 3.2); a spec with another ``alpha`` gets none;
* Theorem 3 (upper, at the eps minimising it for each n, with its constant ``C`` in the
  paper's form) -- ``cascade-klucb`` with ``c = 3`` (``log t + 3 log log t``): the proof
  uses Garivier and Cappe's (2011) Theorem 10 with c = 3 (:mod:`bounds.garivier_cappe`,
  (I7); for ``c < 3`` the ``7 K log log n`` term does not follow);
* Theorem 4 (lower, the rate ``coefficient * log n``, asymptotic) -- every consistent
  policy: ``cascade-ucb1``, ``cascade-klucb`` (consistent by Theorems 2-3 at the paper's
  parameters; at other parameters consistency is assumed and the summary says so) and
  ``cascade-ts`` (assumed). Drawn twice: the general constant with
  ``alpha = (1 - w(1))^(K-1)`` (on B_LB the paper's Theorem 4) and the sharp constant with
  ``prod_{j<K} (1 - w(j))`` (:mod:`bounds.lower`); once if they coincide.

All three need the cascade model (a DBN with ``nu = gamma = 1`` is the cascade user, draw
for draw, so it counts) and a unique optimal set ``w(K) > w(K+1)``; otherwise no bound is
drawn and the figure and summary say why. Upper bounds are dashed, the lower rates
dash-dotted (general) and dotted (sharp), all in the bound's colour; the empirical curves
are the mean over runs with a 95% Student-t band (:meth:`simulate.api.RegretResult.band`).
The legend sits outside the axes, on the right, so it never covers a curve.
"""

from __future__ import annotations

import math
import re
import textwrap

import numpy as np
from matplotlib.lines import Line2D
from matplotlib.ticker import LogLocator

from cascading_bandits.reports.figures import (
    COLUMN,
    OKABE_ITO,
    POLICY_STYLE,
    _figure,
    _style,
)

__all__ = ["plot_regret", "applicable_bounds", "parse_policy", "StudyBounds", "BOUND_KEYS"]

#: bound keys in drawing order, with their legend labels
BOUND_KEYS = {
    "theorem2": "Thm 2, UCB1 upper",
    "theorem3": "Thm 3, KL-UCB upper (opt. ε, with C)",
    "theorem4_general": "Thm 4, lower rate (general α)",
    "theorem4_sharp": "Thm 4, lower rate (sharp α)",
}
_LOWER_STYLE = {"theorem4_general": "-.", "theorem4_sharp": ":"}
#: policies for which Theorem 4 (a statement about consistent policies) is drawn
CONSISTENT = ("cascade-ucb1", "cascade-klucb", "cascade-ts")
#: the paper's parameters: Theorem 2 analyses alpha = 1.5, Theorem 3 c = 3
PAPER_PARAMS = {"cascade-ucb1": {"alpha": 1.5}, "cascade-klucb": {"c": 3.0}}
#: points of the coarse log grid for Theorem 3 when bounds.upper has no fast curve
THEOREM3_GRID = 12
_CURVE_POINTS = 80

_SPEC = re.compile(r"^\s*([A-Za-z0-9_.-]+)\s*(?:\((.*)\))?\s*$")


def parse_policy(spec: str) -> tuple[str, dict]:
    """``"cascade-klucb(c=0)"`` -> ``("cascade-klucb", {"c": 0.0})``; plain names have ``{}``.

    Values that read as numbers become floats, others stay strings.
    """
    if not isinstance(spec, str):
        raise TypeError(f"policy must be a string, got {type(spec).__name__}")
    m = _SPEC.match(spec)
    if m is None:
        raise ValueError(f"policy must be NAME or NAME(key=value, ...), got {spec!r}")
    params = {}
    if m.group(2) is not None and m.group(2).strip():
        for part in m.group(2).split(","):
            if "=" not in part:
                raise ValueError(f"policy parameters must be key=value, got {part!r} in {spec!r}")
            k, v = (x.strip() for x in part.split("=", 1))
            try:
                params[k] = float(v)
            except ValueError:
                params[k] = v
    return m.group(1), params


def _params_of(r) -> dict:
    p = getattr(r, "spec", None)
    return dict(p if p is not None else r.params)


def _policy_of(r) -> str:
    return getattr(r, "policy", None) or _params_of(r)["policy"]


def _effective(policy: str, params: dict) -> tuple[str, dict]:
    """Base name and the parameters that matter for the bounds (spec, else the cell's ``c``)."""
    name, sp = parse_policy(policy)
    if name == "cascade-klucb" and "c" not in sp and params.get("c") is not None:
        sp["c"] = float(params["c"])
    for k, v in PAPER_PARAMS.get(name, {}).items():
        sp.setdefault(k, v)
    return name, sp


class StudyBounds:
    """The bounds that apply to a set of results on one instance (see the module docstring).

    Attributes
    ----------
    curves : dict
        ``{key: (n (k,) int64, value (k,) float64)}`` for each key of :data:`BOUND_KEYS` drawn.
    at_horizon : dict
        ``{key: value at the horizon}`` for the same keys; ``theorem3_eps`` too when
        Theorem 3 applies (the minimising eps at the horizon).
    per_policy : dict
        ``{policy: {key: value at the horizon or None}}`` (None: does not apply).
    notes : list of str
        Why a bound is absent, or an assumption made (figure legend and summaries).
    policy_notes : dict
        ``{policy: [str]}``: the same, per policy.
    horizon : int
    labels : dict
        ``{key: legend label}``.
    """

    def __init__(self, curves, at_horizon, per_policy, notes, policy_notes, horizon, labels):
        self.curves = curves
        self.at_horizon = at_horizon
        self.per_policy = per_policy
        self.notes = notes
        self.policy_notes = policy_notes
        self.horizon = horizon
        self.labels = labels

    def __repr__(self):
        return f"StudyBounds(keys={list(self.curves)}, notes={self.notes})"


def _theorem3_over(instance, horizons) -> np.ndarray:
    """Theorem 3 at the optimised eps for each horizon (paper's form), shape like ``horizons``.

    Uses ``bounds.upper.theorem3_curve`` when present (fast); otherwise
    :func:`bounds.upper.theorem3_bound` at each horizon (one eps optimisation each, so give a
    coarse grid, :data:`THEOREM3_GRID` points).
    """
    from cascading_bandits.bounds import upper

    ns = np.asarray(horizons, dtype=np.int64)
    fast = getattr(upper, "theorem3_curve", None)
    if fast is not None:
        return np.asarray(fast(instance, ns, form="paper"), dtype=np.float64)
    return np.array([upper.theorem3_bound(instance, int(n), form="paper") for n in ns])


def _grid(horizon: int, points: int) -> np.ndarray:
    """Log-spaced integer horizons from min(10, horizon) to the horizon (last), increasing."""
    lo = min(10, horizon)
    g = np.unique(np.round(np.geomspace(lo, horizon, num=points)).astype(np.int64))
    if g[-1] != horizon:
        g = np.append(g, horizon)
    return g


def _one_instance(results):
    keys = set()
    for r in results:
        p = _params_of(r)
        keys.add(
            (
                p["model"],
                tuple(float(x) for x in p["weights"]),
                int(p["K"]),
                float(p.get("nu", 1.0)),
                float(p.get("gamma", 1.0)),
                int(np.asarray(r.checkpoints)[-1]),
            )
        )
    if len(keys) != 1:
        raise ValueError(
            "bounds need results on one instance (model, weights, K, nu, gamma) and one "
            f"horizon; got {len(keys)} different ones (pass bounds=False)"
        )
    return keys.pop()


def applicable_bounds(results) -> StudyBounds:
    """Every bound that applies to ``results`` (one instance), as curves and at the horizon.

    Parameters
    ----------
    results : sequence of RegretResult or CellResult
        On one instance and horizon (ValueError otherwise).
    """
    from cascading_bandits.bounds.instance import CascadeInstance
    from cascading_bandits.bounds.lower import (
        theorem4_general_coefficient,
        theorem4_sharp_coefficient,
    )
    from cascading_bandits.bounds.upper import theorem2_bound, theorem3_optimal_eps

    results = list(results)
    if not results:
        raise ValueError("results must hold at least one result")
    model, weights, K, nu, gamma, horizon = _one_instance(results)
    policies = [_policy_of(r) for r in results]
    eff = {pol: _effective(pol, _params_of(r)) for pol, r in zip(policies, results, strict=True)}
    per_policy = {pol: dict.fromkeys(BOUND_KEYS) for pol in policies}
    policy_notes = {pol: [] for pol in policies}
    notes = []
    curves, at = {}, {}
    labels = dict(BOUND_KEYS)

    def nobound(why):
        notes.append(why)
        for pol in policies:
            policy_notes[pol].append(why)
        return StudyBounds({}, {}, per_policy, notes, policy_notes, horizon, labels)

    if model != "cascade" and (nu, gamma) != (1.0, 1.0):
        return nobound(
            f"no bound: Theorems 2-4 are proved for the cascade model; this is the {model} "
            f"model with nu = {nu:g}, gamma = {gamma:g}"
        )
    inst = CascadeInstance(weights, K)
    if K == len(weights):
        return nobound("no bound: K = L, every list is optimal and the regret is 0")
    if not inst.has_unique_optimum:
        return nobound("no bound: the optimal set is not unique (w(K) = w(K+1) after sorting)")
    if model != "cascade":
        notes.append("DBN with nu = gamma = 1 is the cascade model: the cascade bounds apply")

    dense = _grid(horizon, _CURVE_POINTS)
    wanted = {name for name, _ in eff.values()}
    if any(n == "cascade-ucb1" and sp == PAPER_PARAMS[n] for n, sp in eff.values()):
        curves["theorem2"] = (dense, np.asarray(theorem2_bound(inst, dense), dtype=np.float64))
    if any(n == "cascade-klucb" and sp == PAPER_PARAMS[n] for n, sp in eff.values()):
        coarse = _grid(horizon, THEOREM3_GRID)
        curves["theorem3"] = (coarse, _theorem3_over(inst, coarse))
        at["theorem3_eps"] = theorem3_optimal_eps(inst, horizon, form="paper")
    if wanted & set(CONSISTENT):
        logn = np.log(dense.astype(np.float64))
        g = theorem4_general_coefficient(inst)
        s = theorem4_sharp_coefficient(inst)
        curves["theorem4_general"] = (dense, g * logn)
        if not math.isclose(s, g, rel_tol=1e-12):
            curves["theorem4_sharp"] = (dense, s * logn)
        else:
            labels["theorem4_general"] = "Thm 4, lower rate (general = sharp α)"
    for key, (_n, v) in curves.items():
        at[key] = float(v[-1])
    if "theorem4_general" in at and "theorem4_sharp" not in at:
        at["theorem4_sharp"] = at["theorem4_general"]

    for pol, (name, sp) in eff.items():
        pn = policy_notes[pol]
        if name in PAPER_PARAMS:
            key = "theorem2" if name == "cascade-ucb1" else "theorem3"
            if sp == PAPER_PARAMS[name]:
                per_policy[pol][key] = at[key]
            else:
                need = ", ".join(f"{k} = {v:g}" for k, v in PAPER_PARAMS[name].items())
                pn.append(
                    f"Theorem {key[-1]} is proved for {name} with {need} only; not applied to {pol}"
                )
        if name in CONSISTENT:
            per_policy[pol]["theorem4_general"] = at["theorem4_general"]
            per_policy[pol]["theorem4_sharp"] = at["theorem4_sharp"]
            if name not in PAPER_PARAMS or sp != PAPER_PARAMS[name]:
                pn.append(
                    f"Theorem 4 binds consistent policies; consistency of {pol} is assumed, "
                    "not proved in the paper"
                )
        else:
            pn.append(f"Theorem 4 binds consistent policies only; {pol} is not shown to be one")
        if "theorem3" in curves and per_policy[pol]["theorem3"] is not None:
            per_policy[pol]["theorem3_eps"] = at["theorem3_eps"]
    return StudyBounds(curves, at, per_policy, notes, policy_notes, horizon, labels)


def _policy_colours(policies):
    """One colour per policy: the base name's palette colour first, then unused ones."""
    spare = [
        c
        for c in OKABE_ITO.values()
        if c not in {s[0] for s in POLICY_STYLE.values()} and c != OKABE_ITO["black"]
    ]
    spare += [c for c in OKABE_ITO.values() if c not in spare and c != OKABE_ITO["black"]]
    used, out = set(), {}
    for pol in policies:
        base = parse_policy(pol)[0]
        c = POLICY_STYLE.get(base, (None,))[0]
        if c is None or c in used:
            c = next((x for x in spare if x not in used), spare[len(out) % len(spare)])
        used.add(c)
        out[pol] = c
    return out


def _note_handle(text):
    return Line2D([], [], linestyle="none", marker=None), "\n".join(textwrap.wrap(text, 38))


def plot_regret(
    results,
    bounds=True,
    *,
    ax=None,
    logx=True,
    logy=False,
    level=0.95,
    title=None,
    tmin=1,
):
    """Regret against n with a confidence band per policy and the bounds that apply, dashed.

    Parameters
    ----------
    results : StudyResults or sequence of RegretResult / CellResult
        Each with ``checkpoints`` (m,) and ``regret`` (runs, m).
    bounds : bool, StudyBounds or dict
        True: every bound that applies (:func:`applicable_bounds`; needs one instance);
        False: none; a :class:`StudyBounds`; or ``{label: (n (k,), value (k,))}`` drawn dashed.
    ax : matplotlib Axes, optional
    logx, logy : bool
        Log scale on n (default) / on the regret.
    level : float
        Confidence of the bands, Student t with ``runs - 1`` degrees of freedom (normal 1.96
        is not used: with 20 runs it would understate the width by 6%). One run: no band.
    title : str, optional
    tmin : int
        Draw the empirical curves from this step on.

    Returns
    -------
    matplotlib.figure.Figure
    """
    from scipy.stats import t as student_t

    results = list(results)
    if not results:
        raise ValueError("results must hold at least one result")
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level!r}")
    sb = None
    if bounds is True:
        sb = applicable_bounds(results)
        curves = sb.curves
    elif bounds is False or bounds is None:
        curves = {}
    elif isinstance(bounds, StudyBounds):
        sb, curves = bounds, bounds.curves
    elif isinstance(bounds, dict):
        curves = bounds
    else:
        raise TypeError(
            f"bounds must be True, False, a StudyBounds or a dict, got {type(bounds).__name__}"
        )
    policies = [_policy_of(r) for r in results]
    colours = _policy_colours(policies)
    runs = {int(np.asarray(r.regret).shape[0]) for r in results}
    with _style():
        fig = ax.figure if ax is not None else None
        if ax is None:
            fig, axes = _figure(COLUMN + 2.4, 2.6)
            ax = axes[0, 0]
        drawn = []
        for pol, r in zip(policies, results, strict=True):
            t = np.asarray(r.checkpoints)
            reg = np.asarray(r.regret, dtype=np.float64)
            mean = reg.mean(axis=0)
            keep = t >= tmin
            if logy:  # zero regret (e.g. an oracle) has no place on a log axis
                keep &= mean > 0
            label = pol if keep.any() or not logy else f"{pol} (regret 0, off the log axis)"
            ax.plot(t[keep], mean[keep], color=colours[pol], label=label)
            if reg.shape[0] > 1 and keep.any():
                q = float(student_t.ppf(0.5 + level / 2, reg.shape[0] - 1))
                h = q * reg.std(axis=0, ddof=1) / math.sqrt(reg.shape[0])
                drawn.append((t[keep], mean[keep] - h[keep], mean[keep] + h[keep], colours[pol]))
        floor = min((float(m.min()) for m in _means(results, tmin) if m.size), default=None)
        for tt, lo, hi, colour in drawn:
            if logy and floor is not None:  # a band reaching 0 is cut at the axis' floor
                lo = np.maximum(lo, floor / 2)
            ax.fill_between(tt, lo, hi, color=colour, alpha=0.2, linewidth=0)
        for key, (n, v) in curves.items():
            if key in BOUND_KEYS:
                colour = _bound_colour(key, policies, colours)
                ls = _LOWER_STYLE.get(key, "--")
                label = (sb.labels if sb is not None else BOUND_KEYS)[key]
            else:
                colour, ls, label = OKABE_ITO["black"], "--", str(key)
            ax.plot(n, v, color=colour, linestyle=ls, linewidth=1.0, label=label)
        if logx:
            ax.set_xscale("log")
            ax.xaxis.set_major_locator(LogLocator(base=10, numticks=7))
        if logy:
            ax.set_yscale("log")
            if floor is not None:
                ax.set_ylim(bottom=floor / 2)
        ax.set_xlabel("step n")
        ax.set_ylabel("regret R(n)")
        if title:
            ax.set_title(title)
        handles, labels = ax.get_legend_handles_labels()
        extra = [f"bands: {level:.0%} Student-t of the mean, {_runs_text(runs)}"]
        if sb is not None:
            extra += sb.notes
        for text in extra:
            h, lab = _note_handle(text)
            handles.append(h)
            labels.append(lab)
        ax.legend(
            handles,
            labels,
            loc="upper left",
            bbox_to_anchor=(1.02, 1.0),
            borderaxespad=0.0,
            handlelength=2.4,
        )
    return fig


def _means(results, tmin):
    """Positive mean regrets at steps >= tmin, one array per result."""
    for r in results:
        m = np.asarray(r.regret, dtype=np.float64).mean(axis=0)[np.asarray(r.checkpoints) >= tmin]
        yield m[m > 0]


def _runs_text(runs):
    rs = sorted(runs)
    s = "/".join(str(x) for x in rs)
    return f"{s} run{'s' if rs != [1] else ''}" + (" (1 run: no band)" if 1 in rs else "")


def _bound_colour(key, policies, colours):
    if key.startswith("theorem4"):
        return OKABE_ITO["black"]
    target = "cascade-ucb1" if key == "theorem2" else "cascade-klucb"
    for pol in policies:
        if parse_policy(pol)[0] == target:
            return colours[pol]
    return OKABE_ITO["black"]
