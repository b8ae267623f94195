"""Worst case over instances, policy by policy: the comparison of Vial et al. (NeurIPS 2022).

Vial, Sanghavi, Shakkottai and Srikant state their comparison over instances: CascadeUCB1
can suffer regret of order sqrt(nLK), CascadeKL-UCB stays within sqrt(nL) up to log
factors. The quantity that speaks to it is the ratio of two maxima, each over the
policy's own instances,

    max_w R_UCB1(n; w) / max_w R_KL-UCB(n; w),

not the largest per-instance ratio max_w [R_UCB1(n; w) / R_KL-UCB(n; w)] that ``cascading
search --objective ratio`` maximises (one instance for both policies).

The data are what ``benchmarks/worstcase_vs_K.py`` writes (``docs/search/worstcase_vs_K.json``):

``L`` (int), ``policies`` ([numerator, denominator]), optional ``confidence`` (default 0.95),
and ``results``: one entry per (policy, K, n), each with ``policies`` ([policy]), ``K``,
``weights`` (the instance found, L numbers in [0, 1]), ``settings.confirm_horizon`` (n) and
``regret_runs`` (the regret at n of each fresh run on that instance, two or more).

Statistics (``z`` is the two-sided normal quantile of ``confidence``; 1.96 at 95%):

* each maximum: the mean over its runs, standard error ``se = sd / sqrt(runs)`` (sd with
  ddof 1), and a Student-t interval (runs - 1 degrees of freedom);
* the ratio of maxima ``r = m_a / m_b`` (independent runs on the two instances): delta
  method on the log, ``s = sqrt((se_a / m_a)^2 + (se_b / m_b)^2)``, interval
  ``r exp(-z s)`` to ``r exp(z s)``;
* the slope of log r against log K at one n: weighted least squares with weights
  ``1 / s_i^2``; standard error ``1 / sqrt(sum w_i (x_i - xbar)^2)`` (xbar the weighted mean
  of x = log K), interval ``slope +- z se`` while the points scatter about the line no more
  than their errors allow (``chi2 = sum w_i e_i^2 <= m - 2``, m points, e_i the residuals).
  Otherwise the scatter is part of the uncertainty: the standard error is multiplied by
  ``sqrt(chi2 / (m - 2))`` and the quantile is Student's t with m - 2 degrees of freedom.
  The same fit gives the slope of each maximum against K.

What the intervals do not hold: a search can miss a policy's worst instance, so each
maximum is a lower estimate of that policy's minimax regret and the ratio can err either
way; the intervals are those of the re-measurement on the instances found.
"""

from __future__ import annotations

import math
import numbers

import numpy as np
from matplotlib.figure import Figure
from scipy.special import ndtri, stdtrit  # what stats.t.ppf, norm.ppf call; no scipy.stats

from cascading_bandits.reports.figures import (
    OKABE_ITO,
    PAGE,
    POLICY_STYLE,
    _style,
    display_name,
    log_scale,
)
from cascading_bandits.reports.search_ledger import weights_text

__all__ = ["worstcase_table", "worstcase_slopes", "plot_worstcase", "worstcase_markdown"]


# ---------------------------------------------------------------------------
# checking the data
# ---------------------------------------------------------------------------


def _int(where, x, name, low, high=None) -> int:
    if isinstance(x, bool) or not isinstance(x, numbers.Integral):
        if not (isinstance(x, float) and x.is_integer()):
            raise ValueError(f"{where}: {name} must be an integer, got {x!r}")
    x = int(x)
    if x < low or (high is not None and x > high):
        hi = "" if high is None else f" and <= {high}"
        raise ValueError(f"{where}: {name} must be >= {low}{hi}, got {x}")
    return x


def _finite(where, x, name) -> float:
    if isinstance(x, bool) or not isinstance(x, numbers.Real) or not math.isfinite(x):
        raise ValueError(f"{where}: {name} must be a finite number, got {x!r}")
    return float(x)


def _check(data) -> tuple:
    """(L, (a, b), confidence, {(K, n): {policy: result}}) from ``data``, or ValueError."""
    if not isinstance(data, dict):
        raise ValueError(f"data must be a dict (worstcase_vs_K.json), got {type(data).__name__}")
    for k in ("L", "policies", "results"):
        if k not in data:
            raise ValueError(f"data lacks {k!r} (see reports.worstcase for the layout)")
    L = _int("data", data["L"], "L", 2)
    pols = data["policies"]
    if (
        not isinstance(pols, (list, tuple))
        or len(pols) != 2
        or not all(isinstance(p, str) and p for p in pols)
        or pols[0] == pols[1]
    ):
        raise ValueError(f"data: policies must be two different policy names, got {pols!r}")
    conf = _finite("data", data.get("confidence", 0.95), "confidence")
    if not 0 < conf < 1:
        raise ValueError(f"data: confidence must lie in (0, 1), got {conf}")
    res = data["results"]
    if not isinstance(res, (list, tuple)) or not res:
        raise ValueError("data: results must be a non-empty list")
    cells: dict = {}
    for i, r in enumerate(res):
        where = f"data: results[{i}]"
        if not isinstance(r, dict):
            raise ValueError(f"{where} must be a dict, got {type(r).__name__}")
        for k in ("policies", "K", "weights", "settings", "regret_runs"):
            if k not in r:
                raise ValueError(f"{where} lacks {k!r}")
        rp = r["policies"]
        if not isinstance(rp, (list, tuple)) or len(rp) != 1 or rp[0] not in pols:
            raise ValueError(f"{where}: policies must be one of {list(pols)} alone, got {rp!r}")
        K = _int(where, r["K"], "K", 1, L - 1)
        st = r["settings"]
        if not isinstance(st, dict) or "confirm_horizon" not in st:
            raise ValueError(f"{where}: settings.confirm_horizon (the horizon n) is missing")
        n = _int(where, st["confirm_horizon"], "settings.confirm_horizon", 1)
        w = r["weights"]
        if not isinstance(w, (list, tuple)) or len(w) != L:
            raise ValueError(f"{where}: weights must hold L = {L} numbers")
        for x in w:
            if not 0 <= _finite(where, x, "weights") <= 1:
                raise ValueError(f"{where}: weights must lie in [0, 1], got {x!r}")
        runs = r["regret_runs"]
        if not isinstance(runs, (list, tuple)) or len(runs) < 2:
            raise ValueError(f"{where}: regret_runs must hold two or more runs' regrets")
        x = np.array([_finite(where, v, "regret_runs") for v in runs])
        if x.mean() <= 0:
            raise ValueError(
                f"{where}: the mean regret must be > 0 for a ratio and a log-log slope, "
                f"got {x.mean()!r}"
            )
        cell = cells.setdefault((K, n), {})
        if rp[0] in cell:
            raise ValueError(f"{where}: a second result for {rp[0]} at K = {K}, n = {n}")
        cell[rp[0]] = (r, x)
    for (K, n), cell in cells.items():
        missing = [p for p in pols if p not in cell]
        if missing:
            raise ValueError(f"data: K = {K}, n = {n} has no result for {', '.join(missing)}")
    return L, tuple(pols), conf, dict(sorted(cells.items(), key=lambda kv: (kv[0][1], kv[0][0])))


# ---------------------------------------------------------------------------
# numbers
# ---------------------------------------------------------------------------


def _mean_ci(x, conf) -> dict:
    m = float(x.mean())
    se = float(x.std(ddof=1) / math.sqrt(x.size))
    q = float(stdtrit(x.size - 1, 0.5 + conf / 2))
    return {"mean": m, "se": se, "ci_low": m - q * se, "ci_high": m + q * se, "runs": int(x.size)}


def worstcase_table(data) -> list[dict]:
    """One row per (K, n): each policy's worst regret found, the rates, the ratio of maxima.

    Parameters
    ----------
    data : dict
        The document of ``benchmarks/worstcase_vs_K.py`` (layout in the module docstring).

    Returns
    -------
    list of dict, ordered by n then K, with keys ``K``, ``n``, ``L``, ``sqrt_nL``,
    ``sqrt_nLK``, ``worst`` (policy -> ``mean``, ``se``, ``ci_low``, ``ci_high``, ``runs``,
    ``weights``, ``found_by``, ``over_sqrt_nL``, ``over_sqrt_nLK``), ``ratio`` (first
    policy's mean over the second's), ``ratio_se_log`` (standard error of its log),
    ``ratio_low``, ``ratio_high`` and ``confidence``.

    Raises
    ------
    ValueError
        Naming what is wrong: a missing key, a result of another policy, a K outside
        1..L-1, weights not L numbers in [0, 1], fewer than two runs, a mean regret <= 0,
        a (K, n) without both policies or with one twice.
    """
    L, (a, b), conf, cells = _check(data)
    z = float(ndtri(0.5 + conf / 2))
    rows = []
    for (K, n), cell in cells.items():
        worst = {}
        for p in (a, b):
            r, x = cell[p]
            d = _mean_ci(x, conf)
            d.update(
                weights=[float(w) for w in r["weights"]],
                found_by=r.get("found_by"),
                over_sqrt_nL=d["mean"] / math.sqrt(n * L),
                over_sqrt_nLK=d["mean"] / math.sqrt(n * L * K),
            )
            worst[p] = d
        ma, mb = worst[a]["mean"], worst[b]["mean"]
        ratio = ma / mb
        s = math.hypot(worst[a]["se"] / ma, worst[b]["se"] / mb)
        rows.append(
            {
                "K": K,
                "n": n,
                "L": L,
                "sqrt_nL": math.sqrt(n * L),
                "sqrt_nLK": math.sqrt(n * L * K),
                "worst": worst,
                "ratio": ratio,
                "ratio_se_log": s,
                "ratio_low": ratio * math.exp(-z * s),
                "ratio_high": ratio * math.exp(z * s),
                "confidence": conf,
            }
        )
    return rows


def _fit(x, y, s, conf) -> dict:
    """Weighted least squares of y on x (weights 1 / s^2) with the interval of the slope."""
    x, y, s = (np.asarray(v, dtype=float) for v in (x, y, s))
    m = x.size
    if m < 2 or np.unique(x).size < 2:
        return None
    if np.any(s <= 0):
        # runs that all gave one regret: no error to weigh by; every point counts the same
        # and the scatter alone sets the interval (m > 2), else no interval
        s = np.ones_like(s)
        known = False
    else:
        known = True
    w = 1.0 / s**2
    xb = float(np.sum(w * x) / np.sum(w))
    yb = float(np.sum(w * y) / np.sum(w))
    sxx = float(np.sum(w * (x - xb) ** 2))
    slope = float(np.sum(w * (x - xb) * (y - yb)) / sxx)
    resid = y - (yb + slope * (x - xb))
    chi2 = float(np.sum(w * resid**2))
    dof = m - 2
    se = 1.0 / math.sqrt(sxx)
    if known and (dof == 0 or chi2 <= dof):
        q, scale, how = float(ndtri(0.5 + conf / 2)), 1.0, "measurement errors"
    elif dof > 0:
        q = float(stdtrit(dof, 0.5 + conf / 2))
        scale = math.sqrt(chi2 / dof)
        how = "scatter about the line"
    else:
        return {
            "slope": slope,
            "se": None,
            "low": None,
            "high": None,
            "chi2": chi2,
            "dof": dof,
            "points": m,
            "interval_from": None,
        }
    return {
        "slope": slope,
        "se": se * scale,
        "low": slope - q * se * scale,
        "high": slope + q * se * scale,
        "chi2": chi2,
        "dof": dof,
        "points": m,
        "interval_from": how,
    }


def worstcase_slopes(data) -> dict:
    """Log-log slopes against K at each n: of the ratio of maxima and of each maximum.

    Parameters
    ----------
    data : dict
        As for :func:`worstcase_table`.

    Returns
    -------
    dict
        n -> {``"ratio"``: fit, policy: fit, ...}; a fit is a dict with ``slope``, ``se``,
        ``low``, ``high`` (the interval at the data's confidence), ``chi2``, ``dof``,
        ``points`` and ``interval_from`` (``"measurement errors"`` or ``"scatter about the
        line"``, module docstring), or None where n has fewer than two K. The slope of a
        ratio growing as sqrt(K) is 0.5; of CascadeUCB1's maximum under sqrt(nLK), 0.5; of
        CascadeKL-UCB's under sqrt(nL), 0.

    Raises
    ------
    ValueError
        As :func:`worstcase_table`.
    """
    rows = worstcase_table(data)
    conf = rows[0]["confidence"]
    pols = list(rows[0]["worst"])
    out = {}
    for n in sorted({r["n"] for r in rows}):
        rs = [r for r in rows if r["n"] == n]
        x = [math.log(r["K"]) for r in rs]
        fits = {
            "ratio": _fit(
                x, [math.log(r["ratio"]) for r in rs], [r["ratio_se_log"] for r in rs], conf
            )
        }
        for p in pols:
            fits[p] = _fit(
                x,
                [math.log(r["worst"][p]["mean"]) for r in rs],
                [r["worst"][p]["se"] / r["worst"][p]["mean"] for r in rs],
                conf,
            )
        out[n] = fits
    return out


# ---------------------------------------------------------------------------
# figure
# ---------------------------------------------------------------------------

_N_MARKERS = ("o", "s", "^", "D", "v")


def _n_text(n) -> str:
    """n as a power of ten in mathtext where it is one, else with thousands separators."""
    e = round(math.log10(n))
    return f"$10^{{{e}}}$" if 10**e == n else f"{n:,}"


def plot_worstcase(data, ax=None) -> Figure:
    """Each policy's worst regret found against K beside sqrt(nL) and sqrt(nLK); their ratio.

    Parameters
    ----------
    data : dict
        As for :func:`worstcase_table`.
    ax : None, a pair of matplotlib Axes, or one Axes
        None: a new figure of two panels (the page's width). A pair: the maxima are drawn
        into the first, the ratio into the second. One Axes: the maxima panel only.

    Returns
    -------
    Figure. Left, log-log: each policy's worst regret (mean over the fresh runs, interval
    at the data's confidence) against K, one marker per horizon, with sqrt(nL) (grey) and
    sqrt(nLK) (black) dashed for each n (constant 1: the rates are orders). Right: the
    ratio of the two maxima with its interval, and sqrt(K) through the first point
    (dotted).

    Raises
    ------
    ValueError
        Bad data (:func:`worstcase_table`) or an ``ax`` that is neither.
    """
    rows = worstcase_table(data)
    if ax is None:
        axes = None
    elif hasattr(ax, "errorbar"):
        axes = (ax, None)
    elif (
        isinstance(ax, (list, tuple, np.ndarray))
        and len(ax) == 2
        and all(hasattr(x, "errorbar") for x in ax)
    ):
        axes = tuple(ax)
    else:
        raise ValueError(f"ax must be None, one Axes or a pair of Axes, got {ax!r}")
    a, b = list(rows[0]["worst"])
    L = rows[0]["L"]
    ns = sorted({r["n"] for r in rows})
    Ks = sorted({r["K"] for r in rows})
    pct = round(100 * rows[0]["confidence"])
    with _style():
        own = axes is None
        if own:
            fig = Figure(figsize=(PAGE, 3.0), layout="constrained")
            axes = tuple(fig.subplots(1, 2))
        fig = axes[0].figure
        left, right = axes
        grid = np.geomspace(min(Ks), max(Ks), 40)
        for j, n in enumerate(ns):
            marker = _N_MARKERS[j % len(_N_MARKERS)]
            rs = [r for r in rows if r["n"] == n]
            K = np.array([r["K"] for r in rs], float)
            for k, p in enumerate((a, b)):
                colour, _, label = POLICY_STYLE.get(p, (OKABE_ITO["purple"], "-", p))
                m = np.array([r["worst"][p]["mean"] for r in rs])
                lo = np.array([r["worst"][p]["ci_low"] for r in rs])
                hi = np.array([r["worst"][p]["ci_high"] for r in rs])
                left.errorbar(
                    K * (1.04 if k else 1 / 1.04),  # the two policies side by side
                    m,
                    yerr=[m - lo, hi - m],
                    fmt=marker + "-",
                    color=colour,
                    markersize=3.5,
                    capsize=1.5,
                    linewidth=0.9,
                    markerfacecolor=colour if j == len(ns) - 1 else "white",
                    label=f"{label}, n = {_n_text(n)}",
                )
            first = j == 0
            left.plot(
                grid,
                np.full_like(grid, math.sqrt(n * L)),
                "--",
                color="0.55",
                linewidth=0.9,
                label=r"$\sqrt{nL}$ (each n)" if first else None,
            )
            left.plot(
                grid,
                np.sqrt(n * L * grid),
                "--",
                color=OKABE_ITO["black"],
                linewidth=0.9,
                label=r"$\sqrt{nLK}$ (each n)" if first else None,
            )
            left.annotate(
                f"n = {_n_text(n)}",
                (grid[-1], math.sqrt(n * L)),
                textcoords="offset points",
                xytext=(2, -8),
                fontsize=6,
                color="0.4",
                ha="right",
            )
            if right is not None:
                v = np.array([r["ratio"] for r in rs])
                lo = np.array([r["ratio_low"] for r in rs])
                hi = np.array([r["ratio_high"] for r in rs])
                right.errorbar(
                    K * (1.03 if j % 2 else 1 / 1.03),
                    v,
                    yerr=[v - lo, hi - v],
                    fmt=marker + "-",
                    color=OKABE_ITO["green"] if j % 2 else OKABE_ITO["orange"],
                    markersize=3.5,
                    capsize=1.5,
                    linewidth=0.9,
                    label=f"n = {_n_text(n)} ({pct}% CI)",
                )
                right.plot(
                    K,
                    v[0] * np.sqrt(K / K[0]),
                    ":",
                    linewidth=0.9,
                    color=OKABE_ITO["green"] if j % 2 else OKABE_ITO["orange"],
                    label=r"$\sqrt{K}$ through the first point" if first else None,
                )
        for x in (left, right):
            if x is None:
                continue
            x.set_xscale("log", base=2)
            x.set_xticks(Ks, [str(k) for k in Ks])
            x.minorticks_off()
            x.set_xlabel(f"K (L = {L})")
        log_scale(left, "y")
        left.set_ylabel("worst regret found")
        left.set_title("each policy's own worst instance")
        if own:  # below both panels, outside the axes
            handles, labels = left.get_legend_handles_labels()
            fig.legend(handles, labels, loc="outside lower left", ncol=3, fontsize=6)
        else:
            left.legend(loc="best", fontsize=5.5)
        if right is not None:
            la = POLICY_STYLE.get(a, (None, None, a))[2]
            lb = POLICY_STYLE.get(b, (None, None, b))[2]
            right.set_ylabel(f"{la} worst / {lb} worst")
            right.set_title("ratio of the two maxima")
            right.set_ylim(bottom=0)
            right.legend(loc="upper left", fontsize=5.5)
    return fig


# ---------------------------------------------------------------------------
# Markdown
# ---------------------------------------------------------------------------


def _count(m) -> str:
    words = ("No", "One", "Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine")
    return words[m] if m < len(words) else str(m)


def _label(p) -> str:
    return display_name(p)


def _ci(m, lo, hi, digits) -> str:
    return f"{m:.{digits}f} ({lo:.{digits}f} to {hi:.{digits}f})"


def _slope_text(f) -> str:
    if f is None:
        return "undefined (one K)"
    if f["low"] is None:
        return f"{f['slope']:.2f} (no interval)"
    return f"{f['slope']:.2f} ({f['low']:.2f} to {f['high']:.2f})"


def worstcase_markdown(data) -> str:
    """A Markdown table of :func:`worstcase_table` and a few sentences on what it shows.

    Parameters
    ----------
    data : dict
        As for :func:`worstcase_table`.

    Returns
    -------
    str
        The table (one row per K and n: each policy's worst regret found with its interval
        and instance, sqrt(nL), sqrt(nLK), each maximum over them, the ratio of maxima with
        its interval), then a paragraph: what is measured, the ratios, the slope in K and
        what it does and does not say about sqrt(K). Ends with a newline.

    Raises
    ------
    ValueError
        As :func:`worstcase_table`.
    """
    rows = worstcase_table(data)
    slopes = worstcase_slopes(data)
    a, b = list(rows[0]["worst"])
    la, lb = _label(a), _label(b)
    pct = round(100 * rows[0]["confidence"])
    head = (
        f"| K | n | {la} worst ({pct}% CI) | its instance | {lb} worst ({pct}% CI) | "
        f"its instance | sqrt(nL) | sqrt(nLK) | {la} / sqrt(nL), / sqrt(nLK) | "
        f"{lb} / sqrt(nL), / sqrt(nLK) | ratio of maxima ({pct}% CI) |"
    )
    md = [head, "| ---: | ---: | :--- | :--- | :--- | :--- | ---: | ---: | ---: | ---: | :--- |"]
    for r in rows:
        wa, wb = r["worst"][a], r["worst"][b]
        md.append(
            f"| {r['K']} | {r['n']:,} | {_ci(wa['mean'], wa['ci_low'], wa['ci_high'], 0)} | "
            f"{weights_text(wa['weights'])} | {_ci(wb['mean'], wb['ci_low'], wb['ci_high'], 0)} | "
            f"{weights_text(wb['weights'])} | {r['sqrt_nL']:.0f} | {r['sqrt_nLK']:.0f} | "
            f"{wa['over_sqrt_nL']:.2f}, {wa['over_sqrt_nLK']:.2f} | "
            f"{wb['over_sqrt_nL']:.2f}, {wb['over_sqrt_nLK']:.2f} | "
            f"{_ci(r['ratio'], r['ratio_low'], r['ratio_high'], 2)} |"
        )
    runs = sorted({w["runs"] for r in rows for w in r["worst"].values()})
    runs_text = str(runs[0]) if len(runs) == 1 else f"{runs[0]} to {runs[-1]}"
    L = rows[0]["L"]
    ns = sorted(slopes)
    Ks = sorted({r["K"] for r in rows})

    def ratios_at(n):
        rs = [r for r in rows if r["n"] == n]
        return ", ".join(
            f"{r['ratio']:.2f} ({r['ratio_low']:.2f} to {r['ratio_high']:.2f}) at K = {r['K']}"
            for r in rs
        )

    s1 = (
        f"Each policy's own worst instance found by a regret search at L = {L} (so the two "
        f"maxima are over different instances), re-measured on {runs_text} fresh runs each; a "
        "search can miss the worst instance, so each maximum is a lower estimate of the "
        "policy's minimax regret, and this is not the largest per-instance ratio that "
        "`cascading search --objective ratio` reports."
    )
    s2 = (
        f"The ratio of {la}'s maximum to {lb}'s is, "
        + "; ".join(f"at n = {n:,}, {ratios_at(n)}" for n in ns)
        + "."
    )
    fits = [(n, slopes[n]["ratio"]) for n in ns]
    verdicts: dict = {}  # what the interval says -> the horizons where it says it
    for n, f in fits:
        if f is None or f["low"] is None:
            continue
        # judged on the interval as printed (two decimals), so that the words agree with it
        low, high = round(f["low"], 2), round(f["high"], 2)
        if low > 0.5:
            v = "the ratio grows faster than sqrt(K)"
        elif high < 0.5 and low > 0:
            v = "the ratio grows with K, but more slowly than sqrt(K)"
        elif high < 0.5:
            v = "the ratio grows more slowly than sqrt(K), if at all"
        else:
            v = "the slope is consistent with sqrt(K)"
        verdicts.setdefault(v, []).append(f"{n:,}")
    said = "; ".join(f"at n = {' and '.join(where)} {v}" for v, where in verdicts.items())
    s3 = (
        "Its log-log slope in K is "
        + "; ".join(f"{_slope_text(f)} at n = {n:,}" for n, f in fits)
        + f" ({pct}% intervals; growth as sqrt(K) would be 0.5)"
        + (f": {said}." if said else ".")
    )
    s4 = (
        f"{_count(len(Ks))} values of K at fixed n cannot identify a rate, and Vial et "
        "al.'s statements are orders up to log factors, so neither a slope below 0.5 "
        "refutes the sqrt(K) gap nor one near 0.5 proves it."
    )
    per = []
    for p, rate in ((a, "sqrt(nLK)"), (b, "sqrt(nL)")):
        txt = "; ".join(f"{_slope_text(slopes[n][p])} at n = {n:,}" for n in ns)
        per.append(
            f"{_label(p)}'s maximum has slope {txt} ({rate} has slope "
            f"{0.5 if rate == 'sqrt(nLK)' else 0} at fixed n and L)"
        )
    s5 = "Separately, " + "; ".join(per) + "."
    return "\n".join(md) + "\n\n" + " ".join((s1, s2, s3, s4, s5)) + "\n"
