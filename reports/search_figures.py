"""Figures of instance searches (:mod:`cascading_bandits.simulate.search`).

Data in, :class:`matplotlib.figure.Figure` out; no files are written here.
"""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from cascading_bandits.reports.figures import COLUMN, OKABE_ITO, POLICY_STYLE, _style, log_scale

__all__ = ["factor_against_K_figure", "worst_regret_figure"]


def factor_against_K_figure(results, *, ax=None) -> Figure:
    """Re-measured regret ratio of two policies against K, with sqrt(K) for comparison.

    Parameters
    ----------
    results : list of SearchResult or of their ``to_dict()``, objective ``ratio``, one per K
    ax : matplotlib Axes, optional

    Returns
    -------
    Figure. Points: the ratio at the instance the search found for each K, with its
    confidence interval; dotted line: sqrt(K) scaled to the smallest K's ratio.
    """
    rows = [r.to_dict() if hasattr(r, "to_dict") else dict(r) for r in results]
    if not rows or any(r["objective"] != "ratio" for r in rows):
        raise ValueError("results must be a non-empty list of 'ratio' search results")
    rows.sort(key=lambda r: r["K"])
    K = np.array([r["K"] for r in rows], float)
    v = np.array([r["value"] for r in rows], float)
    lo = np.array([r["ci_low"] for r in rows], float)
    hi = np.array([r["ci_high"] for r in rows], float)
    a, b = rows[0]["policies"]
    with _style():
        if ax is None:
            fig = Figure(figsize=(COLUMN, 2.4), dpi=200)
            ax = fig.add_subplot()
        fig = ax.figure
        ax.errorbar(
            K,
            v,
            yerr=[v - lo, hi - v],
            fmt="o-",
            color=OKABE_ITO["blue"],
            capsize=2,
            label=f"{a} / {b} (95% CI)",
        )
        ax.plot(
            K,
            v[0] * np.sqrt(K / K[0]),
            ":",
            color=OKABE_ITO["black"],
            label=r"$\sqrt{K}$ (scaled to the first point)",
        )
        ax.set_xscale("log", base=2)
        ax.set_xticks(K, [str(int(k)) for k in K])
        ax.set_xlabel("K")
        ax.set_ylabel("regret ratio at the worst instance found")
        ax.set_ylim(bottom=0)
        ax.legend(loc="lower right", frameon=False)
    return fig


def worst_regret_figure(curves, *, L: int, K: int, ax=None) -> Figure:
    """Worst regret found over instances against n, beside sqrt(nL) and sqrt(nLK).

    Parameters
    ----------
    curves : dict
        policy -> list of ``regret`` SearchResult (or their dicts), one per horizon
        (:func:`cascading_bandits.simulate.search.worst_regret_curve`).
    L, K : int
    ax : matplotlib Axes, optional

    Returns
    -------
    Figure, log-log. The rates are drawn with constant 1 (Vial et al., NeurIPS 2022 state
    them as orders): only their slopes and their ratio sqrt(K) are meaningful.
    """
    if not curves:
        raise ValueError("curves must map at least one policy to its search results")
    with _style():
        if ax is None:
            fig = Figure(figsize=(COLUMN, 2.4), dpi=200)
            ax = fig.add_subplot()
        fig = ax.figure
        ns = set()
        for pol, res in curves.items():
            rows = sorted(
                (r.to_dict() if hasattr(r, "to_dict") else dict(r) for r in res),
                key=lambda r: r["settings"]["confirm_horizon"],
            )
            n = np.array([r["settings"]["confirm_horizon"] for r in rows], float)
            ns.update(n.tolist())
            v = np.array([r["value"] for r in rows])
            lo = np.array([r["ci_low"] for r in rows])
            hi = np.array([r["ci_high"] for r in rows])
            colour, _, label = POLICY_STYLE.get(pol, (OKABE_ITO["purple"], "-", pol))
            ax.errorbar(n, v, yerr=[v - lo, hi - v], fmt="o-", color=colour, capsize=2, label=label)
        grid = np.geomspace(min(ns), max(ns), 50)
        ax.plot(grid, np.sqrt(grid * L), "--", color=OKABE_ITO["black"], label=r"$\sqrt{nL}$")
        ax.plot(grid, np.sqrt(grid * L * K), "-.", color=OKABE_ITO["black"], label=r"$\sqrt{nLK}$")
        log_scale(ax, "x")
        log_scale(ax, "y")
        ax.set_xlabel("n")
        ax.set_ylabel("worst regret found")
        ax.legend(loc="upper left", frameon=False)
    return fig
