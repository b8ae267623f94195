"""Plot functions: data in, :class:`matplotlib.figure.Figure` out. No files are written here.

Object-oriented matplotlib only (figures are made with ``matplotlib.figure.Figure``,
never through pyplot). Conventions (docs/design.md, "Results and figures"):

* empirical curves are the mean over runs with a 95% normal band, ``mean +- 1.96 se``;
* upper bounds are dashed, the lower bound (Theorem 4) dash-dotted, so they differ without
  colour;
* panels that are compared share their y-axis; legends sit outside the axes;
* the paper's values, where drawn, carry its standard errors as 95% error bars;
* PNGs are written at ``DPI`` (300) dots per inch;
* colours are the Okabe-Ito colourblind-safe palette, one fixed colour per policy;
* sizes are for a two-column paper: ``COLUMN`` = 3.25 in for one panel, ``PAGE`` = 6.75 in for
  grids, with 7-8 pt text.

Every function accepts an optional ``ax`` (or ``axes``) to draw into and returns the
Figure that holds the drawing.
"""

from __future__ import annotations

import math
from contextlib import contextmanager

import matplotlib as mpl
import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, LogLocator, MaxNLocator, NullFormatter

from cascading_bandits.reports import tables as T

COLUMN, PAGE = 3.25, 6.75  # inches

#: Okabe & Ito (2008) colourblind-safe palette
OKABE_ITO = {
    "black": "#000000",
    "orange": "#E69F00",
    "sky": "#56B4E9",
    "green": "#009E73",
    "yellow": "#F0E442",
    "blue": "#0072B2",
    "vermillion": "#D55E00",
    "purple": "#CC79A7",
}

#: colour, line style and legend label per policy
POLICY_STYLE = {
    "cascade-ucb1": (OKABE_ITO["vermillion"], "-", "CascadeUCB1"),
    "cascade-klucb": (OKABE_ITO["blue"], "-", "CascadeKL-UCB"),
    "ranked-klucb": (OKABE_ITO["orange"], ":", "RankedKL-UCB"),
    "cascade-ts": (OKABE_ITO["green"], "-", "CascadeTS"),
    "ranked-klucb-rba": (OKABE_ITO["purple"], "-.", "RankedKL-UCB (RBA reward)"),
}

#: colour, line style and label per bound: upper bounds dashed, the lower bound dash-dotted
BOUND_STYLE = {
    "theorem2": (OKABE_ITO["vermillion"], "--", "Thm 2 (UCB1 upper)"),
    "theorem3": (OKABE_ITO["blue"], "--", "Thm 3 (KL-UCB upper)"),
    "theorem4": (OKABE_ITO["black"], "-.", "Thm 4 (lower, asympt.)"),
}

#: resolution of the PNGs (the PDFs are vector)
DPI = 300

STYLE = {
    "font.size": 7.5,
    "axes.titlesize": 7.5,
    "axes.labelsize": 7.5,
    "legend.fontsize": 6.5,
    "xtick.labelsize": 6.5,
    "ytick.labelsize": 6.5,
    "lines.linewidth": 1.2,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "legend.frameon": False,
    "axes.grid": True,
    "grid.alpha": 0.25,
    "grid.linewidth": 0.5,
    "savefig.dpi": DPI,
    "pdf.fonttype": 42,
}

Z95 = 1.96


@contextmanager
def _style():
    with mpl.rc_context(STYLE):
        yield


def _figure(width, height, nrows=1, ncols=1, **kw):
    fig = Figure(figsize=(width, height), layout="constrained")
    axes = fig.subplots(nrows, ncols, squeeze=False, **kw)
    return fig, axes


def log_scale(ax, which: str, *, numticks=None) -> None:
    """Put the ``which`` (``"x"`` or ``"y"``) axis of ``ax`` on a base-10 log scale whose
    minor ticks are at 2 and 5 of each decade only, unlabelled.

    matplotlib's default places 8 minor ticks per decade, each a pair of lines and labels
    created (deep-copied) at every draw: on the nine log-log panels of
    :func:`bounds_vs_empirical` they were 60% of the time to save the PNG and the PDF.
    ``numticks``: at most that many major ticks (default: matplotlib's choice).
    """
    if which not in ("x", "y"):
        raise ValueError(f"which must be 'x' or 'y', got {which!r}")
    getattr(ax, f"set_{which}scale")("log")
    axis = ax.xaxis if which == "x" else ax.yaxis
    axis.set_major_locator(LogLocator(base=10, numticks=numticks or "auto"))
    axis.set_minor_locator(LogLocator(base=10, subs=(2.0, 5.0), numticks=numticks or "auto"))
    axis.set_minor_formatter(NullFormatter())


def _thousands(v, _pos=None) -> str:
    return "0" if v == 0 else f"{v / 1000:g}k"


#: the name figures and tables give each registered policy (the paper's names where it has
#: them); :func:`display_name` adds the parameters a spec sets away from their defaults
POLICY_NAMES = {
    **{k: v[2] for k, v in POLICY_STYLE.items()},
    "cascade-ucbv": "CascadeUCB-V",
    "cascade-egreedy": "Cascade ε-greedy",
    "toprank": "TopRank",
    "ts-cascade": "TS-Cascade",
}


def display_name(policy) -> str:
    """The one name a figure or table gives a policy spec, in the report and in
    ``cascading study`` alike.

    The registered name's entry of :data:`POLICY_NAMES` (``cascade-klucb`` is
    ``CascadeKL-UCB``), followed by the parameters the spec sets away from their defaults
    (``cascade-klucb(c=0)`` is ``CascadeKL-UCB (c=0)``, ``cascade-klucb(c=3)`` is
    ``CascadeKL-UCB``); a policy without an entry keeps its registered name, and a spec the
    policy registry does not know is shown as written.
    """
    if policy in POLICY_NAMES:  # a plain registered name: no parse (nor registry import)
        return POLICY_NAMES[policy]
    from cascading_bandits.simulate.policies import parse_policy as registered

    try:
        spec = registered(policy)
    except (TypeError, ValueError):
        return str(policy)
    base = POLICY_NAMES.get(spec.name, spec.name)
    inner = spec.text[len(spec.name) :].strip()
    return f"{base} {inner}" if inner else base


def _policy_style(policy):
    """(colour, line style, :func:`display_name`) of a policy spec."""
    colour, ls, _ = POLICY_STYLE.get(policy, (OKABE_ITO["purple"], "-", None))
    return colour, ls, display_name(policy)


def band(ax, t, mean, se, *, color, label=None, linestyle="-"):
    """Mean curve with a ``mean +- 1.96 se`` band on ``ax``. Shapes (m,), (m,), (m,)."""
    t = np.asarray(t)
    mean = np.asarray(mean, dtype=np.float64)
    ax.plot(t, mean, color=color, linestyle=linestyle, label=label)
    se = np.nan_to_num(np.asarray(se, dtype=np.float64))
    ax.fill_between(t, mean - Z95 * se, mean + Z95 * se, color=color, alpha=0.3, linewidth=0)


def _cascade_cells(results, order, L, K, delta):
    """Cascade-model results of one (L, K, Delta, order) configuration, in the palette's order."""
    cells = T.select(results, model="cascade", order=order, L=L, K=K, delta=delta)
    rank = list(POLICY_STYLE)
    return sorted(
        cells, key=lambda r: rank.index(r.params["policy"]) if r.params["policy"] in rank else 99
    )


def _bound_lines(ax, curves, keys=("theorem4", "theorem2", "theorem3")):
    """Bound curves in their BOUND_STYLE; ``curves`` maps a key of BOUND_STYLE to
    ``(n (k,), value (k,))``."""
    for key in keys:
        if key in curves:
            n, v = curves[key]
            color, ls, label = BOUND_STYLE[key]
            ax.plot(n, v, color=color, linestyle=ls, linewidth=1.0, label=label)


def regret_curves(
    results, *, bounds=None, ax=None, logx=True, logy=False, title=None, legend=True, tmin=1
):
    """Cumulative regret against n for several cells, with optional dashed bound curves.

    Parameters
    ----------
    results : sequence of CellResult-like
        Each with ``params["policy"]``, ``checkpoints`` (m,) and ``regret`` (runs, m).
    bounds : dict, optional
        ``{"theorem2" | "theorem3" | "theorem4": (n (k,), value (k,))}``.
    ax : matplotlib Axes, optional
    tmin : int
        Draw the empirical curves from this step on.
    """
    with _style():
        fig = ax.figure if ax is not None else None
        if ax is None:
            fig, axes = _figure(COLUMN, 2.4)
            ax = axes[0, 0]
        for r in results:
            t, mean, se = T.curve(r)
            keep = t >= tmin
            color, ls, label = _policy_style(r.params.get("policy"))
            band(ax, t[keep], mean[keep], se[keep], color=color, label=label, linestyle=ls)
        if bounds:
            _bound_lines(ax, bounds)
        if logx:
            log_scale(ax, "x", numticks=6)
        if logy:
            log_scale(ax, "y")
        ax.set_xlabel("step n")
        ax.set_ylabel("regret R(n)")
        if title:
            ax.set_title(title)
        if legend:
            ax.legend(loc="upper left")
    return fig


def figure1(results, rows=None, *, axes=None, ranked=("ranked-klucb",)):
    """Figure 1 of the paper: regret of CascadeKL-UCB (solid) and RankedKL-UCB (dotted)
    in the four DBN settings (nu, gamma) in {1, 0.7}^2, with 95% bands.

    Parameters
    ----------
    results : sequence of CellResult-like
        The ``dbn`` experiment (``params["model"] == "dbn"``).
    rows : list of :class:`reports.tables.DBNRow`, optional
        Ratios to annotate in each panel (computed from ``results`` if omitted).
    axes : 2 x 2 array of Axes, optional
    ranked : sequence of str
        Ranked-bandit policies drawn (default: Figure 1's ``ranked-klucb`` only; other
        readings such as ``ranked-klucb-rba`` can be added).
    """
    from cascading_bandits.reports.paper import figure1_meta

    meta = figure1_meta()
    rows = T.dbn_rows(results) if rows is None else rows
    ratios = {}
    for r in rows:
        if r.ranked_policy in ranked:
            ratios.setdefault((r.nu, r.gamma), []).append(r)
    policies = ["cascade-klucb", *ranked]
    with _style():
        if axes is None:
            # one y-scale for the four settings: the panels are compared with each other
            fig, axes = _figure(4.5, 3.4, 2, 2, sharex=True, sharey=True)
        else:
            axes = np.asarray(axes).reshape(2, 2)
            fig = axes[0, 0].figure
        for i, nu in enumerate(meta["nu"]):
            for j, gamma in enumerate(meta["gamma"]):
                ax = axes[i, j]
                cells = [
                    r
                    for pol in policies
                    for r in T.select(results, model="dbn", nu=nu, gamma=gamma, policy=pol)
                ]
                regret_curves(cells, ax=ax, logx=False, legend=False)
                ax.set_title(f"ν = {nu:g}, γ = {gamma:g}")
                ax.set_xlabel("step n" if i == 1 else "")
                ax.set_ylabel("regret" if j == 0 else "")
                ax.xaxis.set_major_locator(MaxNLocator(nbins=4, steps=[1, 2, 2.5, 5, 10]))
                ax.xaxis.set_major_formatter(FuncFormatter(_thousands))
                rs = ratios.get((float(nu), float(gamma)), [])
                if rs:
                    short = {"ranked-klucb": "ranked", "ranked-klucb-rba": "RBA"}
                    text = "\n".join(
                        f"{short.get(r.ranked_policy, r.ranked_policy)} / cascade\n"
                        f"{r.ratio:.2f} ± {r.ratio_se:.2f}"
                        for r in rs
                    )
                    # between the curves: ranked ends near the top, cascade near the bottom
                    ax.text(
                        0.97,
                        0.47,
                        text,
                        transform=ax.transAxes,
                        ha="right",
                        va="center",
                        fontsize=6 if len(rs) == 1 else 5.5,
                    )
        # once, after every panel is drawn: the shared scale then covers all four
        axes[0, 0].set_ylim(bottom=0)
        handles, labels = axes[0, 0].get_legend_handles_labels()
        if handles:
            fig.legend(handles, labels, loc="outside upper center", ncol=min(len(handles), 2))
    return fig


def bounds_vs_empirical(results, curves, *, axes=None, order="best-first"):
    """Regret against n (log-log) for every Table 1 configuration, with the bounds dashed.

    Parameters
    ----------
    results : sequence of CellResult-like
        Cascade cells of Table 1 (and optionally cascade-ts cells of the same configurations).
    curves : dict
        ``{(L, K, delta): {"theorem2" | "theorem3" | "theorem4": (n (k,), value (k,))}}`` as
        returned by :func:`reports.tables.bound_curves`.
    axes : 3 x 3 array of Axes, optional
        Rows (L, Delta) = (16, 0.15), (32, 0.15), (16, 0.075); columns K = 2, 4, 8.
    """
    rows_spec = [(16, 0.15), (32, 0.15), (16, 0.075)]
    cols_spec = [2, 4, 8]
    with _style():
        if axes is None:
            # one y-scale for all nine configurations: the panels are compared
            fig, axes = _figure(PAGE, 5.8, 3, 3, sharex=True, sharey=True)
        else:
            axes = np.asarray(axes).reshape(3, 3)
            fig = axes[0, 0].figure
        for i, (L, delta) in enumerate(rows_spec):
            for j, K in enumerate(cols_spec):
                ax = axes[i, j]
                cells = _cascade_cells(results, order, L, K, delta)
                # from n = 10, where the bound curves start; log y keeps 10 to 1e4 readable
                regret_curves(
                    cells, bounds=curves.get((L, K, delta)), ax=ax, logy=True, legend=False, tmin=10
                )
                ax.set_title(f"L = {L}, K = {K}, Δ = {delta:g}")
                ax.set_xlabel("step n" if i == 2 else "")
                ax.set_ylabel("regret" if j == 0 else "")
        seen = {}
        for ax in axes.flat:
            for h, lab in zip(*ax.get_legend_handles_labels(), strict=True):
                seen.setdefault(lab, h)
        if seen:
            fig.legend(
                list(seen.values()), list(seen), loc="outside lower center", ncol=min(len(seen), 6)
            )
    return fig


def _errorbar_points(ax, x, y, err, *, color, marker, label, filled=True):
    ax.errorbar(
        x,
        y,
        yerr=Z95 * np.nan_to_num(np.asarray(err, dtype=np.float64)),
        fmt=marker,
        color=color,
        markersize=3.5,
        capsize=1.5,
        linewidth=0.9,
        label=label,
        markerfacecolor=color if filled else "white",
    )


def _scaling_label(r) -> str:
    fixed = dict(kv.split("=") for kv in r.fixed.split(", "))
    if r.vary == "K":
        d = fixed["delta"].lstrip("0")
        return f"{r.frm}→{r.to}\nL{fixed['L']} Δ{d}"
    return f"K={fixed['K']}"


def scaling_figure(rows, *, axes=None):
    """Scaling of regret in L, Delta and K against the bounds' predictions.

    Three panels (L: 16 -> 32 at Delta = 0.15; Delta: 0.15 -> 0.075 at L = 16; K: 2 -> 4 and
    2 -> 8). Each point is the empirical regret ratio R(to) / R(from) with a 95% error bar
    (CascadeUCB1 left, CascadeKL-UCB right); dashed segments are the ratios of the bounds'
    log n coefficients: Theorem 2 over the UCB1 half, Theorem 3 over the KL-UCB half,
    Theorem 4 (black, dotted) across both.

    Parameters
    ----------
    rows : list of :class:`reports.tables.ScalingRow`
    axes : sequence of 3 Axes, optional
    """
    kinds = [
        ("L", "L: 16 → 32 (Δ = 0.15)"),
        ("Delta", "Δ: 0.15 → 0.075 (L = 16)"),
        ("K", "K: 2 → 4 and 2 → 8"),
    ]
    with _style():
        if axes is None:
            fig = Figure(figsize=(PAGE, 2.5), layout="constrained")
            axes = fig.subplots(1, 3, gridspec_kw={"width_ratios": [1, 1, 2]})
        else:
            fig = axes[0].figure
        for ax, (kind, title) in zip(axes, kinds, strict=True):
            rs = [r for r in rows if r.vary == kind and (kind != "K" or r.frm == "2")]
            labels = list(dict.fromkeys(_scaling_label(r) for r in rs))
            x = {lab: k for k, lab in enumerate(labels)}
            first = {}
            for r in rs:
                first.setdefault(_scaling_label(r), r)
            for k, (lab, r) in enumerate(first.items()):
                x0 = x[lab]
                for key, color, ls, lo, hi, name in (
                    ("predicted_theorem2", OKABE_ITO["vermillion"], "--", -0.42, -0.02, "Thm 2"),
                    ("predicted_theorem3", OKABE_ITO["blue"], "--", 0.02, 0.42, "Thm 3"),
                    ("predicted_theorem4", OKABE_ITO["black"], "-.", -0.42, 0.42, "Thm 4"),
                ):
                    ax.plot(
                        [x0 + lo, x0 + hi],
                        [getattr(r, key)] * 2,
                        color=color,
                        linestyle=ls,
                        linewidth=1.1,
                        label=f"{name} predicts" if k == 0 else None,
                    )
            for off, pol in ((-0.22, "cascade-ucb1"), (0.22, "cascade-klucb")):
                pr = [r for r in rs if r.policy == pol]
                if not pr:
                    continue
                color, _, label = _policy_style(pol)
                _errorbar_points(
                    ax,
                    [x[_scaling_label(r)] + off for r in pr],
                    [r.ratio for r in pr],
                    [r.ratio_se for r in pr],
                    color=color,
                    marker="o",
                    label=label,
                )
            ax.set_xticks(range(len(labels)), labels, fontsize=6)
            ax.set_xlim(-0.6, len(labels) - 0.4)
            ax.set_title(title)
            ax.axhline(1.0, color="0.6", linewidth=0.6)
        axes[0].set_ylabel("regret ratio R(to) / R(from)")
        handles, labels = axes[0].get_legend_handles_labels()
        if handles:
            fig.legend(handles, labels, loc="outside lower center", ncol=5)
    return fig


def order_figure(rows, *, ax=None):
    """Worst-first / best-first regret ratio for each Table 1 configuration and policy.

    Filled points with 95% error bars are ours; hollow diamonds are the paper's
    (Table 2 / Table 1). A ratio below 1 means worst-first learns faster.

    Parameters
    ----------
    rows : list of :class:`reports.tables.OrderRow`
    """
    with _style():
        fig = ax.figure if ax is not None else None
        if ax is None:
            fig, axes = _figure(COLUMN, 2.9)
            ax = axes[0, 0]
        configs = []
        for r in rows:
            if (r.L, r.K, r.delta) not in configs:
                configs.append((r.L, r.K, r.delta))
        x = {c: k for k, c in enumerate(configs)}
        for off, pol in ((-0.2, "cascade-ucb1"), (0.2, "cascade-klucb")):
            pr = [r for r in rows if r.policy == pol]
            if not pr:
                continue
            color, _, label = _policy_style(pol)
            # ours just left of the paper's, so the two error bars do not overlap
            xs = [x[(r.L, r.K, r.delta)] + off + 0.06 for r in pr]
            _errorbar_points(
                ax,
                [v - 0.12 for v in xs],
                [r.ratio for r in pr],
                [r.ratio_se for r in pr],
                color=color,
                marker="o",
                label=f"{label} (ours)",
            )
            _errorbar_points(
                ax,
                xs,
                [r.paper_ratio for r in pr],
                [getattr(r, "paper_ratio_se", math.nan) for r in pr],
                color=color,
                marker="D",
                label=f"{label} (paper)",
                filled=False,
            )
        ax.axhline(1.0, color="0.6", linewidth=0.6)
        ax.set_xticks(
            range(len(configs)),
            [f"{L}/{K}/{d:g}" for L, K, d in configs],
            rotation=45,
            ha="right",
            fontsize=6,
        )
        ax.set_xlabel("L / K / Δ")
        ax.set_ylabel("worst-first / best-first")
        ax.set_ylim(bottom=0)
        # above the axes: no point is hidden behind it
        fig.legend(loc="outside upper center", ncol=2, fontsize=5.5)
    return fig


def policies_figure(results, configs, *, axes=None, order="best-first"):
    """CascadeTS alongside the paper's policies: regret against n (log x) on some Table 1 rows.

    Parameters
    ----------
    results : sequence of CellResult-like
    configs : sequence of (L, K, delta), one panel each (at most 3 per row of panels)
    """
    configs = list(configs)
    if not configs:
        raise ValueError("configs must name at least one (L, K, delta) configuration")
    ncols = min(3, len(configs))
    nrows = math.ceil(len(configs) / ncols)
    with _style():
        if axes is None:
            fig, axes = _figure(COLUMN if ncols == 1 else PAGE, 2.2 * nrows, nrows, ncols)
        else:
            axes = np.asarray(axes).reshape(nrows, ncols)
            fig = axes.flat[0].figure
        for ax, (L, K, delta) in zip(axes.flat, configs, strict=False):
            cells = _cascade_cells(results, order, L, K, delta)
            regret_curves(cells, ax=ax, legend=False, title=f"L = {L}, K = {K}, Δ = {delta:g}")
        for ax in list(axes.flat)[len(configs) :]:
            ax.set_visible(False)
        seen = {}
        for ax in axes.flat:
            for h, lab in zip(*ax.get_legend_handles_labels(), strict=True):
                seen.setdefault(lab, h)
        if seen:
            fig.legend(list(seen.values()), list(seen), loc="outside lower center", ncol=len(seen))
    return fig
