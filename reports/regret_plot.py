"""Regret against n for any instance, with the registered bounds that apply: :func:`plot_regret`.

The bounds come from the bound registry (:mod:`bounds.registry`), never from a list kept
here. For each result, its policy is read as a registered name with its spec's parameter
values (defaults filled in: ``cascade-klucb`` is ``c = 3``), and

* every registered bound **with a constant** that covers that policy at those values is a
  candidate (Theorem 2 covers ``cascade-ucb1`` with ``alpha = 1.5`` only, Theorem 3
  ``cascade-klucb`` with ``c = 3`` only, and so on: :meth:`Bound.covers_policy`);
* a lower bound about every consistent policy (``covers = ANY_POLICY``) is a candidate once
  per figure when a policy of :data:`CONSISTENT` is shown (for those at parameters no
  registered upper bound covers, consistency is assumed and the notes say so);
* a candidate whose premise fails on the instance or the click model
  (:meth:`Bound.failed_premise` with :func:`bounds.registry.model_name`: a DBN with
  ``nu = gamma = 1`` is the cascade user, draw for draw) is not drawn; the figure's notes
  and the per-policy notes name it with the premise that fails;
* order-only bounds (rates without constants) are never drawn.

Of the candidates that apply, ``bounds="default"`` draws the paper's (:data:`PAPER_BOUNDS`)
and those whose value at the horizon is within a factor :data:`DEFAULT_FACTOR` of the
largest mean regret shown; the others are listed in the notes with their value at n.
``bounds="all"`` draws every candidate, a list of names draws those. Each curve is the
bound evaluated through :meth:`Bound.__call__` on :data:`CURVE_POINTS` log-spaced horizons.
Upper bounds are dashed, one colour per bound; lower bounds black, dash-dotted, dotted, ...;
two curves of one kind that coincide (Theorem 4 and Graves-Lai on B_LB, or whenever K = 2)
are drawn once under both labels. The empirical curves are the mean over runs with a 95%
Student-t band (:meth:`simulate.api.RegretResult.band`). The legend sits outside the axes,
on the right, so it never covers a curve.
"""

from __future__ import annotations

import math
import os
import re
import textwrap

import matplotlib as mpl
import numpy as np
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from cascading_bandits.reports.figures import (  # noqa: F401 (display_name re-exported)
    DPI,
    OKABE_ITO,
    POLICY_STYLE,
    _style,
    display_name,
    log_scale,
)

__all__ = [
    "plot_regret",
    "applicable_bounds",
    "estimate",
    "display_name",
    "parse_policy",
    "policy_params",
    "StudyBounds",
    "CONSISTENT",
    "PAPER_BOUNDS",
    "DEFAULT_FACTOR",
]

#: policies for which the lower bounds about every consistent policy are drawn
CONSISTENT = ("cascade-ucb1", "cascade-klucb", "cascade-ts")
#: the default selection always draws these (the paper's Theorems 2-4) when they apply
PAPER_BOUNDS = ("theorem2", "theorem3", "theorem4")
#: the default selection draws a bound within this factor of the largest mean regret at n
DEFAULT_FACTOR = 30.0
#: log-spaced horizons each bound curve is evaluated at
CURVE_POINTS = 24
#: size (inches) and resolution of a figure plot_regret makes itself: the report's PNG
#: resolution (:data:`reports.figures.DPI`)
FIGSIZE = (7.0, 4.0)
FIGURE_DPI = DPI
#: text sizes (points) of a figure plot_regret makes itself, larger than a paper panel's
_OWN_FIGURE = {
    "font.size": 9,
    "axes.titlesize": 9,
    "axes.labelsize": 9,
    "legend.fontsize": 7,
    "xtick.labelsize": 8,
    "ytick.labelsize": 8,
}
#: line styles of the lower bounds, in drawing order (upper bounds are dashed)
_LOWER_STYLES = ("-.", ":", (0, (5, 1, 1, 1, 1, 1)), (0, (1, 3)), (0, (8, 2, 1, 2)))
#: colours of the upper bounds after the Okabe-Ito colours the policies leave free
_MORE_COLOURS = ("#7F7F7F", "#8C564B", "#17BECF", "#BCBD22", "#393B79", "#843C39")
#: characters per line of a note in the legend
_NOTE_WIDTH = 44

_SPEC = re.compile(r"^\s*([A-Za-z0-9_.-]+)\s*(?:\((.*)\))?\s*$")


def parse_policy(spec: str) -> tuple[str, dict]:
    """``"cascade-klucb(c=0)"`` -> ``("cascade-klucb", {"c": 0.0})``; plain names have ``{}``.

    A plain reading of the text (no registry, no defaults): values that read as numbers
    become floats, others stay strings. :func:`policy_params` is what the bounds use.
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


def policy_params(policy: str) -> tuple[str, dict]:
    """The registered name of a policy spec and its parameter values, defaults filled in.

    Parameters
    ----------
    policy : str
        A spec such as ``"cascade-klucb"`` or ``"cascade-ucb1(alpha=2)"``; a policy's
        parameters come from its spec alone.

    Returns
    -------
    (str, dict)
        ``("cascade-klucb", {"c": 3.0})``; a parameter of several numbers is a tuple. A spec
        the policy registry does not know is read as written (:func:`parse_policy`), with
        no defaults.
    """
    from cascading_bandits.simulate.policies import parse_policy as registered

    try:
        spec = registered(policy)
    except ValueError:
        return parse_policy(policy)
    return spec.name, spec.params


#: time of :func:`applicable_bounds` relative to :func:`bounds.overview.overview` on the same
#: instance (every registered bound at CURVE_POINTS horizons): 4.6 at L = 1024 (83 s against
#: 18 s on a loaded 2-core machine), rounded up
_CURVES_OVER_OVERVIEW = 5.0


def estimate(L) -> dict:
    """Memory (bytes) and time (seconds) of :func:`applicable_bounds` (and so of
    :func:`plot_regret`) on an instance of ``L`` items, before any work: ``5 x``
    :func:`bounds.overview.estimate` (measured ratio, :data:`_CURVES_OVER_OVERVIEW`)."""
    from cascading_bandits.bounds.overview import estimate as overview_estimate

    one = overview_estimate(L)
    return {"bytes": one["bytes"], "seconds": _CURVES_OVER_OVERVIEW * one["seconds"]}


def _params_of(r) -> dict:
    p = getattr(r, "spec", None)
    return dict(p if p is not None else r.params)


def _policy_of(r) -> str:
    return getattr(r, "policy", None) or _params_of(r)["policy"]


class StudyBounds:
    """The registered bounds on a set of results on one instance (module docstring).

    Keys are bound names of the registry (``theorem2``, ``theorem4``, ``graves-lai``, ...).

    Attributes
    ----------
    curves : dict
        ``{name: (n (k,) int64, value (k,) float64)}`` for each bound drawn (a bound that
        coincides with one drawn before it is not repeated: its label joins that one's).
    at_horizon : dict
        ``{name: value at the horizon}`` for every candidate that applies, drawn or not.
    per_policy : dict
        ``{policy: {name: value at the horizon or None}}`` for every bound with a constant
        about that policy (its name, any parameters) or about every consistent policy; None
        where it is not applied (:attr:`reasons` says why).
    notes : list of str
        What the figure's legend says: bounds not drawn and why (the failing premise, or
        the selection with each value at n), assumptions made.
    policy_notes : dict
        ``{policy: [str]}``: why a bound is not applied to that policy, assumptions.
    horizon : int
    labels : dict
        ``{name: legend label}`` (:attr:`Bound.label`; joined for coinciding curves).
    kinds : dict
        ``{name: "upper" or "lower"}`` for every candidate.
    reasons : dict
        ``{policy: {name: why it is None}}`` for every None of :attr:`per_policy`.
    details : dict
        ``{name: {title, label, kind, gap, source, rate, notes}}`` for every candidate that
        applies; ``notes`` are the bound's remarks at the horizon (:meth:`Bound.note_lines`).
    """

    def __init__(
        self,
        curves,
        at_horizon,
        per_policy,
        notes,
        policy_notes,
        horizon,
        labels,
        kinds=None,
        reasons=None,
        details=None,
    ):
        self.curves = curves
        self.at_horizon = at_horizon
        self.per_policy = per_policy
        self.notes = notes
        self.policy_notes = policy_notes
        self.horizon = horizon
        self.labels = labels
        self.kinds = {} if kinds is None else kinds
        self.reasons = {} if reasons is None else reasons
        self.details = {} if details is None else details

    @property
    def drawn(self) -> list:
        """Names of the bounds drawn, a coinciding one (drawn under the label it shares with
        the curve kept) included, in the order of :attr:`labels`."""
        shown = {self.labels.get(k) for k in self.curves}
        return [k for k in self.labels if k in self.curves or self.labels[k] in shown]

    def __repr__(self):
        return f"StudyBounds(drawn={self.drawn}, notes={self.notes})"


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


def _largest_mean(results) -> float:
    return max(float(np.asarray(r.regret, dtype=np.float64)[:, -1].mean()) for r in results)


def _selection(draw):
    """``draw`` checked: "default", "all", False, or a tuple of registered names."""
    from cascading_bandits.bounds.registry import get_bound

    if draw is True or draw == "default":
        return "default"
    if draw is False or draw is None:
        return False
    if draw == "all":
        return "all"
    if isinstance(draw, str):
        draw = [x for x in draw.split(",") if x.strip()]
    if isinstance(draw, (list, tuple)) and all(isinstance(x, str) for x in draw):
        names = tuple(x.strip() for x in draw)
        for x in names:
            get_bound(x)  # ValueError naming the registered bounds
        return names
    raise TypeError(
        "bounds must be 'default', 'all', False, a list of registered bound names, a "
        f"StudyBounds or a dict of curves; got {type(draw).__name__}"
    )


def _fmt(x: float) -> str:
    return f"{x:.4g}"


def _join_labels(a: str, b: str) -> str:
    """One label for two coinciding curves, their common start and end said once:
    ``Thm 4, lower rate (general α)`` + ``... (sharp α)`` -> ``... (general = sharp α)``."""
    pre = os.path.commonprefix([a, b])
    pre = pre[: max(pre.rfind(" "), pre.rfind("(")) + 1]
    ra, rb = a[len(pre) :], b[len(pre) :]
    post = os.path.commonprefix([ra[::-1], rb[::-1]])[::-1]
    cut = post.find(" ") if post and not post.startswith(" ") else 0
    post = post[cut:] if cut >= 0 else ""
    ra, rb = ra[: len(ra) - len(post)], rb[: len(rb) - len(post)]
    if not ra or not rb:
        return f"{a} = {b}"
    return f"{pre}{ra} = {rb}{post}"


def _group(pairs) -> list:
    """``[(reason, name), ...]`` -> ``{reason: [names]}`` in first-seen order."""
    out = {}
    for reason, name in pairs:
        out.setdefault(reason, []).append(name)
    return out


def applicable_bounds(results, draw="default") -> StudyBounds:
    """The registered bounds on ``results`` (one instance): which apply, their values at the
    horizon, and the curves to draw (module docstring).

    Parameters
    ----------
    results : sequence of RegretResult or CellResult
        On one instance and horizon (ValueError otherwise).
    draw : "default", "all", False, or list of str
        Which of the bounds that apply get a curve: the paper's and those within
        :data:`DEFAULT_FACTOR` of the largest mean regret at the horizon (default), all of
        them, none, or the registered bounds named (ValueError for an unknown name). A
        comma-separated string of names is read as the list.

    Returns
    -------
    StudyBounds
    """
    from cascading_bandits.bounds.instance import CascadeInstance
    from cascading_bandits.bounds.registry import ANY_POLICY, all_bounds, model_name

    results = list(results)
    if not results:
        raise ValueError("results must hold at least one result")
    mode = _selection(draw)
    model, weights, K, nu, gamma, horizon = _one_instance(results)
    model_seen = model_name(model, nu, gamma)
    inst = CascadeInstance(weights, K)
    policies = [_policy_of(r) for r in results]
    specs = {pol: policy_params(pol) for pol in policies}
    consistent = [pol for pol in policies if specs[pol][0] in CONSISTENT]
    per_policy = {pol: {} for pol in policies}
    reasons = {pol: {} for pol in policies}
    policy_notes = {pol: [] for pol in policies}
    notes = []  # assumptions and the selection's remarks; why bounds fail: failed_groups
    if model != "cascade" and model_seen == "cascade":
        notes.append("DBN with nu = gamma = 1 is the cascade model: the cascade bounds apply")

    candidates = {}  # name -> (Bound, value at the horizon)
    failed = []  # (premise, name)
    for b in all_bounds():
        if b.form != "constant":
            continue
        if b.covers == ANY_POLICY:
            about, covered = list(policies), list(consistent)
        else:
            names = {c.policy for c in b.covers}
            about = [pol for pol in policies if specs[pol][0] in names]
            covered = [pol for pol in about if b.covers_policy(*specs[pol])]
        if not about:
            continue
        for pol in about:
            per_policy[pol][b.name] = None
            if pol not in covered:
                reasons[pol][b.name] = (
                    f"binds consistent policies only; {pol} is not shown to be one"
                    if b.covers == ANY_POLICY
                    else f"proved for {', '.join(c.text for c in b.covers)} only"
                )
        if not covered:
            continue
        why = b.failed_premise(inst, None, model_seen) or b.failed_premise(
            inst, horizon, model_seen
        )
        value = None
        if why is None:
            try:
                value = b(inst, horizon, model=model_seen)
            except ValueError as exc:  # beyond float64, say
                why = f"a finite value at n = {horizon:,} ({exc})"
        if why is not None:
            failed.append((why, b.name))
            for pol in covered:
                reasons[pol][b.name] = f"needs {why}"
            continue
        candidates[b.name] = (b, value)
        for pol in covered:
            per_policy[pol][b.name] = value

    failed_groups = _group(failed)
    for pol in policies:
        for why, names in _group((w, n) for n, w in reasons[pol].items()).items():
            policy_notes[pol].append(f"not applied to {pol} ({why}): {', '.join(names)}")
    any_lower = [n for n, (b, _) in candidates.items() if b.covers == ANY_POLICY]
    for pol in consistent:
        proved = [
            n
            for n, (b, _) in candidates.items()
            if b.covers != ANY_POLICY
            and b.kind == "upper"
            and b.gap == "dependent"
            and per_policy[pol].get(n) is not None
        ]
        if any_lower and not proved:
            policy_notes[pol].append(
                f"{', '.join(any_lower)} bind consistent policies; consistency of {pol} is "
                "assumed (no registered log n upper bound covers it here)"
            )

    # which candidates get a curve
    if mode is False:
        chosen = []
    elif mode == "all":
        chosen = list(candidates)
    elif mode == "default":
        top = _largest_mean(results)
        chosen = [
            n
            for n, (_, v) in candidates.items()
            if n in PAPER_BOUNDS or (top > 0 and v > 0 and max(v / top, top / v) <= DEFAULT_FACTOR)
        ]
    else:
        chosen = [n for n in candidates if n in mode]
        failed_names = {x for _, x in failed}
        for n in mode:
            if n not in candidates and n not in failed_names:
                what = (
                    "it is order only (no constant)"
                    if _is_order(n)
                    else "it covers none of these policies at these parameters"
                )
                notes.append(f"{n} not drawn: {what}")
    left = [n for n in candidates if n not in chosen]
    if left and mode is not False:
        at = ", ".join(f"{n} ({_fmt(candidates[n][1])} at n = {horizon:,})" for n in left)
        notes.append(f"not drawn: {at}")
    chosen.sort(key=lambda n: candidates[n][0].kind != "upper")  # upper first, stable

    curves, labels = {}, {}
    kinds = {n: b.kind for n, (b, _) in candidates.items()}
    for n in candidates:
        labels[n] = candidates[n][0].label
    grid = _grid(horizon, CURVE_POINTS)
    for n in chosen:
        b = candidates[n][0]
        keep = np.array([b.failed_premise(inst, int(m), model_seen) is None for m in grid])
        g = grid[keep]
        try:
            v = np.asarray(b(inst, g, model=model_seen), dtype=np.float64)
        except ValueError as exc:
            notes.append(f"{n} not drawn: {exc}")
            continue
        twin = next(
            (
                m
                for m, (g0, v0) in curves.items()
                if kinds[m] == b.kind
                and g0.shape == g.shape
                and np.array_equal(g0, g)
                and np.allclose(v0, v, rtol=1e-12, atol=0.0)
            ),
            None,
        )
        if twin is not None:
            labels[twin] = labels[n] = _join_labels(labels[twin], labels[n])
            continue
        curves[n] = (g, v)

    at_horizon = {n: v for n, (_, v) in candidates.items()}
    details = {}
    for n, (b, _) in candidates.items():
        try:
            lines = b.note_lines(inst, horizon)
        except ValueError:
            lines = b.premise_texts()
        details[n] = {
            "title": b.title,
            "label": b.label,
            "kind": b.kind,
            "gap": b.gap,
            "source": b.source,
            "rate": b.rate,
            "notes": lines,
        }
    failing = [
        f"{', '.join(names)}: needs {why}" if len(names) == 1 else f"{', '.join(names)}: need {why}"
        for why, names in failed_groups.items()
    ]
    if curves or mode is False:
        notes[:0] = [f"not drawn, {x}" for x in failing]
    elif failing:
        notes[:0] = ["no bound drawn; " + "; ".join(failing)]
    elif candidates:
        notes.insert(0, "no bound drawn by this selection")
    else:
        notes.insert(0, "no bound drawn: no registered bound with a constant covers these policies")
    return StudyBounds(
        curves,
        at_horizon,
        per_policy,
        notes,
        policy_notes,
        horizon,
        labels,
        kinds,
        reasons,
        details,
    )


def _is_order(name: str) -> bool:
    from cascading_bandits.bounds.registry import get_bound

    return get_bound(name).form == "order"


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


def _bound_styles(sb, policy_colours) -> dict:
    """``{name: (colour, linestyle)}`` of the drawn bounds: upper dashed, one colour each
    (first the Okabe-Ito colours no policy curve uses, yellow last), lower black with a line
    style each."""
    taken = set(policy_colours.values()) | {OKABE_ITO["black"]}
    free = [c for k, c in OKABE_ITO.items() if c not in taken and k != "yellow"]
    free += [c for c in _MORE_COLOURS if c not in taken]
    if OKABE_ITO["yellow"] not in taken:
        free.append(OKABE_ITO["yellow"])
    out, up, low = {}, 0, 0
    for name in sb.curves:
        if sb.kinds.get(name) == "lower":
            out[name] = (OKABE_ITO["black"], _LOWER_STYLES[low % len(_LOWER_STYLES)])
            low += 1
        else:
            out[name] = (free[up % len(free)], "--")
            up += 1
    return out


def _note_handle(text):
    return Line2D([], [], linestyle="none", marker=None), "\n".join(
        textwrap.wrap(text, _NOTE_WIDTH)
    )


def plot_regret(
    results,
    bounds="default",
    *,
    ax=None,
    logx=True,
    logy=False,
    level=0.95,
    title=None,
    tmin=1,
):
    """Regret against n with a confidence band per policy and the registered bounds that apply.

    Parameters
    ----------
    results : StudyResults or sequence of RegretResult / CellResult
        Each with ``checkpoints`` (m,) and ``regret`` (runs, m).
    bounds : "default", "all", list of str, False, StudyBounds or dict
        Which registered bounds are drawn (:func:`applicable_bounds`; needs one instance):
        ``"default"`` (or True) the paper's and those within a factor
        :data:`DEFAULT_FACTOR` of the largest mean regret at the horizon, the others named in
        the notes with their value; ``"all"`` every bound that applies; a list of bound
        names those of them that apply; False none. A :class:`StudyBounds` is drawn as it
        is, and ``{label: (n (k,), value (k,))}`` draws those curves, dashed black.
    ax : matplotlib Axes, optional
        Draw into it; otherwise a figure of :data:`FIGSIZE` inches at :data:`FIGURE_DPI`.
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
    if isinstance(bounds, StudyBounds):
        sb, curves = bounds, bounds.curves
    elif isinstance(bounds, dict):
        curves = bounds
    elif bounds is False or bounds is None:
        curves = {}
    else:
        sb = applicable_bounds(results, bounds)  # TypeError / ValueError for a bad choice
        curves = sb.curves
    policies = [_policy_of(r) for r in results]
    colours = _policy_colours(policies)
    styles = _bound_styles(sb, colours) if sb is not None else {}
    runs = {int(np.asarray(r.regret).shape[0]) for r in results}
    positive = any(m.size for m in _means(results, tmin)) or any(
        np.any(np.asarray(v, dtype=np.float64) > 0) for _, v in curves.values()
    )
    extra = []
    if logy and not positive:  # every regret and bound is 0 (K = L, an oracle): no log axis
        logy = False
        extra.append("every regret and bound shown is 0: linear regret axis")
    with _style(), mpl.rc_context(_OWN_FIGURE if ax is None else {}):
        fig = ax.figure if ax is not None else None
        if ax is None:
            # dpi given at creation: savefig(dpi="figure") uses the figure's original dpi
            fig = Figure(figsize=FIGSIZE, dpi=FIGURE_DPI, layout="constrained")
            ax = fig.subplots()
        drawn = []
        for pol, r in zip(policies, results, strict=True):
            t = np.asarray(r.checkpoints)
            reg = np.asarray(r.regret, dtype=np.float64)
            mean = reg.mean(axis=0)
            keep = t >= tmin
            if logy:  # zero regret (e.g. an oracle) has no place on a log axis
                keep &= mean > 0
            label = display_name(pol)
            if logy and not keep.any():
                label += " (regret 0, off the log axis)"
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
            if key in styles:
                colour, ls = styles[key]
                label = sb.labels.get(key, key)
            else:
                colour, ls, label = OKABE_ITO["black"], "--", str(key)
            v = np.asarray(v, dtype=np.float64)
            if logy:  # a bound that is 0 at some n (Theorem 4 when K = L) has no log value
                v = np.where(v > 0, v, np.nan)
            ax.plot(n, v, color=colour, linestyle=ls, linewidth=1.0, label=label)
        if logx:
            log_scale(ax, "x", numticks=7)
        if logy:
            log_scale(ax, "y")
            if floor is not None:
                ax.set_ylim(bottom=floor / 2)
        ax.set_xlabel("step n")
        ax.set_ylabel("regret R(n)")
        if title:
            ax.set_title(title)
        handles, labels = ax.get_legend_handles_labels()
        extra.insert(0, f"bands: {level:.0%} Student-t of the mean, {_runs_text(runs)}")
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
            handlelength=2.2,
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
