"""Where the bounds lose: profiles of the proofs of Theorems 2 and 3, tables, figures, a section.

* :func:`profile_cell` simulates one cell with the proof counters (:mod:`simulate.counters`)
  and evaluates the chain of the paper's proof (:func:`bounds.profile.proof_chain`), the chain
  of the binomial bounds (:func:`bounds.profile.binomial_chain`), or both on the same counters;
* :func:`chain_text` / :func:`chain_markdown` print a chain of either kind,
  :func:`waterfall_figure` draws it (log scale, one bar per link, the step on each);
* :func:`load_asymptotic` reads the long runs of ``benchmarks/asymptotic_runs.py``,
  :func:`asymptotic_figure` draws ``R(n) / log n`` against n with the constants of Theorems 3
  and 4 (and the sharp lower constant) as horizontal lines;
* :func:`where_bounds_lose_section` assembles the report section (markdown + figures);
* :func:`profile_grid` profiles the report's instances and stores the chains,
  :func:`profile_chains` reads them back.

Figures follow :mod:`reports.figures` (object-oriented matplotlib, Okabe-Ito colours).
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np

from cascading_bandits.bounds import _validate as V
from cascading_bandits.reports.figures import display_name

__all__ = [
    "CHAINS",
    "chain_kind",
    "profile_cell",
    "chain_text",
    "chain_markdown",
    "waterfall_figure",
    "order_rows",
    "order_markdown",
    "load_asymptotic",
    "asymptotic_rows",
    "asymptotic_figure",
    "factors_markdown",
    "where_bounds_lose_section",
    "profile_grid",
    "profile_chains",
]

#: the policies whose proof chains a profile evaluates (Theorems 2 and 3)
PROFILED_POLICIES = ("cascade-ucb1", "cascade-klucb")
#: the chains a profile can evaluate: the paper's proof (Theorems 2 and 3, Appendix A) and the
#: binomial bounds derived here (docs/sharper_bounds.md)
CHAINS = ("paper", "binomial")
_CHAIN_TITLE = {"paper": "the paper's chain", "binomial": "the binomial chain"}


def chain_kind(ch: dict) -> str:
    """``"paper"`` or ``"binomial"``: which chain ``ch`` is.

    Read from its ``chain`` key (set by :func:`profile_cell`); a chain without one (straight
    from :func:`bounds.profile.proof_chain` or :func:`bounds.profile.binomial_chain`, or
    stored before the key existed) is told by its parts: only the binomial chain has an
    A-part counted run by run (``parts["a_path"]``).
    """
    kind = ch.get("chain")
    if kind is None:
        kind = "binomial" if "a_path" in ch.get("parts", {}) else "paper"
    return V.choice("chain", kind, CHAINS)


def profile_cell(
    cell, seed, *, eps=None, form="paper", threads=None, confidence=0.95, chain="paper"
) -> dict:
    """Count the proof's quantities on ``cell``'s runs and evaluate a chain.

    Parameters
    ----------
    cell : simulate.experiments.Cell
        Cascade model, CascadeUCB1 or CascadeKL-UCB, with a unique optimal set.
    seed : int >= 0 or numpy.random.SeedSequence
        As :func:`simulate.runner.run_cell` (same runs, same regret).
    eps, form
        Theorem 3's eps and the form of its constant (the paper's chain only).
    threads : int, optional
        numba threads of the engine.
    confidence : float in (0, 1)
        Of the bootstrap intervals of the link ratios.
    chain : {"paper", "binomial", "both"}
        ``"paper"``: :func:`bounds.profile.proof_chain`; ``"binomial"``:
        :func:`bounds.profile.binomial_chain` (no thresholds, so no eps is computed);
        ``"both"``: the paper's chain with the binomial chain of the same counted runs
        under its key ``"binomial"`` (one simulation for the two).

    Returns
    -------
    dict
        The chain's dict plus ``chain`` (``"paper"`` or ``"binomial"``), ``instance`` (a
        label), ``seed`` and ``mismatches`` (steps where the replayed policy disagreed with
        the engine; must be 0).
    """
    from cascading_bandits.bounds.profile import binomial_chain, proof_chain, proof_thresholds
    from cascading_bandits.simulate.counters import run_counters

    V.choice("chain", chain, CHAINS + ("both",))
    if chain == "binomial":
        tau = None  # M is not read: count every event against +inf
    else:
        tau, eps = proof_thresholds(cell.weights, cell.K, cell.policy, cell.horizon, eps, form)
    pc = run_counters(cell, seed, tau, threads=threads)
    if pc.mismatches.any():
        raise RuntimeError(
            f"the replay disagreed with the engine on {int(pc.mismatches.sum())} steps: the "
            "counters do not describe these runs"
        )
    tag = {
        "instance": _instance_label(cell),
        "seed": seed if isinstance(seed, int) else str(seed),
        "mismatches": 0,
    }
    if chain == "binomial":
        return {**binomial_chain(pc, confidence=confidence), "chain": "binomial", **tag}
    ch = {**proof_chain(pc, eps=eps, form=form, confidence=confidence), "chain": "paper", **tag}
    if chain == "both":
        ch["binomial"] = {
            **binomial_chain(pc, confidence=confidence),
            "chain": "binomial",
            **tag,
        }
    return ch


def _instance_label(cell) -> str:
    if cell.p is not None:
        return f"B_LB({cell.L}, {cell.K}, {cell.p:g}, {cell.delta:g})"
    return f"w = ({', '.join(f'{x:g}' for x in cell.weights)}), K = {cell.K}"


def _fmt(x):
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    return f"{x:,.1f}" if abs(x) >= 100 else f"{x:.3g}"


def _ratio_text(x) -> str:
    return f"{x['ratio']:.3f} [{x['ratio_lo']:.3f}, {x['ratio_hi']:.3f}]"


def _chain_head(ch: dict) -> str:
    return (
        f"{display_name(ch['policy'])}, {ch['order']}, {ch.get('instance', '')}, "
        f"n = {ch['horizon']:g}, {ch['runs']} runs, {_CHAIN_TITLE[chain_kind(ch)]}"
        + (f", eps = {ch['eps']:.3g}" if ch.get("eps") is not None else "")
    )


def _parts_text(ch: dict) -> str:
    """The last line of :func:`chain_text`: the total factor and the chain's own parts."""
    p = ch["parts"]
    if chain_kind(ch) == "binomial":
        return (
            f"total factor {ch['total_factor']:.2f}; A-part (optimal items below their "
            f"means): {p['a_path']:.3g} run by run <= {p['a_part']:.3g} bound (B_A(n) = "
            f"{p['a_count']:.3g} steps per optimal item); B-part (suboptimal items' "
            f"observations at the horizon's index): {p['b_path']:,.1f} run by run <= "
            f"{p['b_part']:,.1f} bound"
        )
    return (
        f"total factor {ch['total_factor']:.2f}; bad steps {p['bad_steps']:.1f} (regret "
        f"{p['regret_bad']:.3g} <= bound {p['regret_bad_bound']:.3g}); Theorem 1 on good steps: "
        f"alpha-sum {p['thm1_lower_good']:.1f} <= R_good {p['regret_good']:.1f} <= sum "
        f"{p['thm1_upper_good_expect']:.1f} (alpha = {ch['alpha']:.3g}); "
        f"events G {p['events_G']:.0f}, max M/tau {p['M_over_tau_max']:.3f}, "
        f"max sum M/tau_K {p['sumM_over_tauK_max']:.3f}"
    )


def chain_text(ch: dict) -> str:
    """A plain-text table of a chain (the paper's or the binomial one): link, step, value,
    ratio to the previous link with its interval, then the chain's parts in one line.

    Parameters
    ----------
    ch : dict
        From :func:`profile_cell`, :func:`bounds.profile.proof_chain` or
        :func:`bounds.profile.binomial_chain`.

    Returns
    -------
    str
    """
    links = ch["links"]
    wn = max(28, *(len(x["name"]) for x in links))
    ws = max(34, *(len(x["step"]) for x in links))
    lines = [
        _chain_head(ch),
        f"{'link':<{wn}} {'step of the proof':<{ws}} {'value':>11}  ratio [95% CI]",
    ]
    for x in links:
        r = _ratio_text(x) if "ratio" in x else f"(+- {x['stderr']:.1f} se)"
        lines.append(f"{x['name']:<{wn}} {x['step']:<{ws}} {x['mean']:>11,.1f}  {r}")
    lines.append(_parts_text(ch))
    return "\n".join(lines)


def chain_markdown(ch: dict) -> str:
    """A chain of either kind as a markdown table (link, step, value, ratio with interval)."""
    rows = [
        "| link | step of the proof | value | ratio to previous [95% CI] |",
        "|---|---|---:|---|",
    ]
    for x in ch["links"]:
        r = _ratio_text(x) if "ratio" in x else "-"
        rows.append(f"| {x['name']} | {x['step']} | {x['mean']:,.1f} | {r} |")
    return "\n".join(rows)


#: each link of the two chains (:func:`bounds.profile.proof_chain`,
#: :func:`bounds.profile.binomial_chain`) as the waterfall writes it, in mathtext; a link
#: not listed is written as it is named (tests/reports/test_profile_chains.py checks that
#: every link of both chains is listed)
LINK_LABELS = {
    "R(n)": r"$R(n)$",
    "Thm 1 upper, good steps": "Theorem 1 upper, good steps",
    "Thm 1 upper, all steps": "Theorem 1 upper, all steps",
    "T_{t-1}(e) <= tau": r"$T_{t-1}(e) \leq \tau$",
    "split at tau": r"split at $\tau$",
    "counting M <= tau (LP)": r"counting $M \leq \tau$ (LP)",
    "bad steps <= pi^2 L/3": r"bad steps $\leq \pi^2 L/3$",
    "peeling = Theorem 2": "peeling = Theorem 2",
    "Mbar <= C2/n^beta": r"$\bar{M} \leq C_2/n^{\beta}$",
    "bad steps <= loglog": r"bad steps: the $\log\log n$ term",
    "peeling = Theorem 3": "peeling = Theorem 3",
    "split at U_t(e*) < w(e*)": r"split at $U_t(e^*) < w(e^*)$",
    "binomial tails = bound": r"$\mathrm{Bin}(s, w(e))$ tails = bound",
}
#: the proof steps the links cite, likewise
STEP_LABELS = {
    "regret (sum of E_t[R_t])": r"regret, $\Sigma_t\, E_t[R_t]$",
    "Lemma 8 (Garivier & Cappe 2011)": "Lemma 8 (Garivier & Cappé 2011)",
    "Thms 2, 10 (Garivier & Cappe)": "Theorems 2, 10 (Garivier & Cappé)",
    "Steps 3, 5 (Hoeffding / GC Thm 10; Bin(s, w(e)))": (
        "Steps 3, 5 (Hoeffding; Garivier & Cappé Thm 10)"
    ),
}


def link_label(name: str) -> str:
    """A link's name as the waterfall writes it (:data:`LINK_LABELS`)."""
    return LINK_LABELS.get(name, name)


def step_label(step: str) -> str:
    """A proof step as the waterfall writes it (:data:`STEP_LABELS`)."""
    return STEP_LABELS.get(step, step)


def waterfall_figure(ch: dict, *, ax=None):
    """Slack waterfall of one chain (the paper's or the binomial one): a horizontal bar per
    link, top to bottom from R(n) (black) to the theorem's bound (blue), on a log scale,
    each labelled with its link and proof step (mathtext, :data:`LINK_LABELS`) and its ratio
    to the link above.

    Parameters
    ----------
    ch : dict
        As :func:`chain_text`.
    ax : matplotlib Axes, optional
        Drawn into; default a new figure, one report column and a half wide, its height
        growing with the number of links.

    Returns
    -------
    matplotlib.figure.Figure
    """
    from matplotlib.ticker import FuncFormatter, LogLocator, NullLocator

    from cascading_bandits.reports.figures import COLUMN, OKABE_ITO, _figure, _style

    kind = chain_kind(ch)
    links = ch["links"]
    k = len(links)
    title = (
        f"{display_name(ch['policy'])}, {ch['order']}: {_CHAIN_TITLE[kind]}\n"
        f"{ch.get('instance', '')}, $n = {ch['horizon']:g}$, {ch['runs']} runs"
    )
    with _style():
        if ax is None:
            fig, axes = _figure(COLUMN * 1.6, 0.8 + 0.34 * k)
            ax = axes[0, 0]
            fig.suptitle(title)  # over the whole width: the labels take half of it
        else:
            fig = ax.figure
            ax.set_title(title)
        v = np.array([x["mean"] for x in links], dtype=np.float64)
        ys = np.arange(k)
        colors = [OKABE_ITO["black"]] + [OKABE_ITO["sky"]] * (k - 2) + [OKABE_ITO["blue"]]
        lo = v.min() / 1.6
        ax.barh(ys, v - lo, left=lo, color=colors, height=0.62)
        for i, x in enumerate(links):
            if "ratio" in x:
                ax.text(v[i] * 1.06, i, f"×{x['ratio']:.2f}", va="center", ha="left")
        ax.set_xscale("log")
        ax.set_xlim(lo, v.max() * 2.0)
        # 1, 2, 5 per decade, written out: minor labels of a log axis collide
        ax.xaxis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
        ax.xaxis.set_major_formatter(
            FuncFormatter(lambda x, _: f"{x:,.0f}" if x >= 1 else f"{x:g}")
        )
        ax.xaxis.set_minor_locator(NullLocator())
        ax.set_ylim(k - 0.5, -0.5)  # R(n) on top
        ax.set_yticks(ys)
        ax.set_yticklabels(
            [f"{link_label(x['name'])}\n{step_label(x['step'])}" for x in links],
            linespacing=1.15,
        )
        ax.tick_params(axis="y", length=0)
        ax.grid(axis="y", visible=False)
        ax.set_xlabel(r"bound on $R(n)$ (log scale)")
    return fig


# ---------------------------------------------------------------------------
# worst-first against best-first
# ---------------------------------------------------------------------------


def order_rows(chains) -> list[dict]:
    """Pair best-first and worst-first chains of the same (policy, instance, n): what changes.

    Each row: policy, instance, and per order the regret, the regret on bad steps, the
    events ``#G`` (= sum of observations of suboptimal items), ``sum Delta #G`` on good steps,
    the per-event cost ``R_good / sum Delta #G^good`` (in ``[alpha, 1]`` by Theorem 1) and alpha.
    """
    by = {}
    for c in chains:
        by.setdefault((c["policy"], c.get("instance"), c["horizon"]), {})[c["order"]] = c
    rows = []
    for (pol, inst, n), d in by.items():
        if set(d) != {"best-first", "worst-first"}:
            continue
        row = {"policy": pol, "instance": inst, "horizon": n, "alpha": d["best-first"]["alpha"]}
        for o, c in d.items():
            p = c["parts"]
            row[o] = {
                "regret": c["links"][0]["mean"],
                "regret_se": c["links"][0]["stderr"],
                "regret_bad": p["regret_bad"],
                "events_G": p["events_G"],
                "weighted_G_good": p["thm1_upper_good_counts"],
                "per_event_cost": p["per_event_cost"],
            }
        b, w = row["best-first"], row["worst-first"]
        row["ratio"] = {k: (w[k] / b[k] if b[k] else math.nan) for k in b if k != "regret_se"}
        rows.append(row)
    return rows


def order_markdown(rows) -> str:
    out = [
        "| policy | instance | order | R(n) | R on bad steps | #G | sum Delta #G (good) | "
        "cost per Delta-event | alpha |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        for o in ("best-first", "worst-first"):
            x = r[o]
            out.append(
                f"| {display_name(r['policy'])} | {r['instance']} | {o} | "
                f"{x['regret']:,.1f} +- {x['regret_se']:.1f} | {x['regret_bad']:.3g} | "
                f"{x['events_G']:,.0f} | {x['weighted_G_good']:,.1f} | {x['per_event_cost']:.3f} | "
                f"{r['alpha']:.3f} |"
            )
        q = r["ratio"]
        out.append(
            f"| | | worst/best | {q['regret']:.3f} | {q['regret_bad']:.3g} | {q['events_G']:.3f} | "
            f"{q['weighted_G_good']:.3f} | {q['per_event_cost']:.3f} | |"
        )
    return "\n".join(out)


# ---------------------------------------------------------------------------
# the asymptotic constant
# ---------------------------------------------------------------------------


_CHUNK_NAME = re.compile(r"runs-(\d+)-(\d+)\.json")
_CHUNK_ARRAYS = ("checkpoints", "regret", "counts")


def _chunk_failure(path, what):
    """The one-line ValueError of a damaged chunk: the file, what is wrong, the remedy."""
    return ValueError(
        f"benchmark chunk {path} {what}; delete the chunk's .json and .npz and rerun "
        "benchmarks/asymptotic_runs.py to recompute it"
    )


def _reject_constant(name):
    raise ValueError(f"non-standard JSON constant {name}")


def _chunk_doc(js: Path) -> dict:
    """The ``.json`` of a chunk: ``params`` (a dict) and ``runs`` ``[r0, r1]`` matching its
    name ``runs-<r0>-<r1>.json``; ValueError naming the file otherwise."""
    from cascading_bandits.simulate.store import exc_reason

    try:
        doc = json.loads(js.read_bytes().decode("utf-8"), parse_constant=_reject_constant)
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise _chunk_failure(js, f"is unreadable ({exc_reason(exc)})") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("params"), dict):
        raise _chunk_failure(js, "is not a JSON object with a 'params' object")
    runs = doc.get("runs")
    m = _CHUNK_NAME.fullmatch(js.name)
    if not m:
        raise _chunk_failure(js, "is not named runs-<r0>-<r1>.json")
    if (
        not isinstance(runs, list)
        or len(runs) != 2
        or not all(isinstance(r, int) and not isinstance(r, bool) for r in runs)
        or not 0 <= runs[0] < runs[1]
        or runs != [int(m[1]), int(m[2])]
    ):
        raise _chunk_failure(
            js, f"has 'runs' = {runs!r:.40}, not [r0, r1] with 0 <= r0 < r1 as in its name"
        )
    return doc


def _chunk_arrays(npz: Path) -> dict:
    """``checkpoints``, ``regret``, ``counts`` of a chunk's ``.npz``; ValueError naming the
    file if it is missing, not a zip, damaged or holds other members (read as stored cells
    are, :func:`simulate.store.read_npz_members`)."""
    from cascading_bandits.simulate.store import read_npz_members

    def fail(what):
        raise _chunk_failure(npz, what)

    if not npz.is_file():
        raise _chunk_failure(npz.with_suffix(".json"), f"has no {npz.name} beside it")
    return read_npz_members(npz, _CHUNK_ARRAYS, fail)


def _chunk(js: Path, cell_dir: str) -> tuple:
    """(params, [r0, r1], CellResult of the chunk's runs) of one complete chunk, checked as
    a stored cell is (:func:`simulate.results.check_result`, with ``runs`` the chunk's)."""
    from cascading_bandits.simulate.results import CellResult, check_params, check_result

    doc = _chunk_doc(js)
    params, (r0, r1) = doc["params"], doc["runs"]
    try:
        check_params(params)
    except ValueError as exc:
        raise _chunk_failure(js, f"has bad params ({exc})") from None
    if params["cell_id"] != cell_dir:
        raise _chunk_failure(
            js, f"is of cell {params['cell_id']!r:.60}, not of its directory {cell_dir!r:.60}"
        )
    if r1 > params["runs"]:
        raise _chunk_failure(js, f"holds runs {r0}-{r1} of a cell of {params['runs']} runs")
    arrays = _chunk_arrays(js.with_suffix(".npz"))
    try:
        res = CellResult(
            {**params, "runs": r1 - r0},
            arrays["checkpoints"],
            arrays["regret"],
            arrays["counts"],
        )
        check_result(res)
    except ValueError as exc:
        raise _chunk_failure(
            js.with_suffix(".npz"), f"is not a valid result of runs {r0}-{r1} ({exc})"
        ) from None
    return params, [r0, r1], res


def load_asymptotic(directory) -> dict:
    """Runs stored by ``benchmarks/asymptotic_runs.py``: ``{cell_id: {...}}``.

    Each value holds ``params`` (the cell), ``checkpoints`` (m,), ``regret`` (runs, m) and
    ``counts`` (runs, L) (``T_n(e)`` at the horizon) of every complete chunk (a chunk is
    complete when its ``.json`` exists), in run order.

    Every chunk is checked as a stored cell is: its ``.json`` parses to ``params`` and
    ``runs`` ``[r0, r1]`` (as in its name ``runs-<r0>-<r1>.json``), its ``.npz`` holds
    exactly the three arrays, and they are a result the engine can produce for ``r1 - r0``
    runs of the cell (:func:`simulate.results.check_result`: shapes, finite regret,
    non-negative and non-decreasing up to rounding, counts in range); the chunks of a cell
    share ``params`` and ``checkpoints``, and their runs do not overlap. Anything else --
    a truncated or damaged file, a missing ``.npz``, another member -- is a one-line
    ValueError naming the file and what is wrong.
    """
    d = Path(directory)
    if not d.is_dir():
        raise ValueError(f"directory {str(d)!r} does not exist")
    out = {}
    for sub in sorted(p for p in d.iterdir() if p.is_dir()):
        chunks = sorted(
            ((_chunk(js, sub.name), js) for js in sub.glob("runs-*.json")),
            key=lambda c: c[0][1],
        )
        if not chunks:
            continue
        (params, _, first), _ = chunks[0]
        end = 0
        for (p, (r0, r1), res), js in chunks:
            if p != params:
                raise _chunk_failure(js, f"has other params than {chunks[0][1].name}")
            if not np.array_equal(res.checkpoints, first.checkpoints):
                raise _chunk_failure(js, f"has other checkpoints than {chunks[0][1].name}")
            if r0 < end:
                raise _chunk_failure(js, f"holds runs {r0}-{r1}, which another chunk holds")
            end = r1
        out[sub.name] = {
            "params": params,
            "checkpoints": first.checkpoints,
            "regret": np.vstack([c[0][2].regret for c in chunks]),
            "counts": np.vstack([c[0][2].counts for c in chunks]),
        }
    return out


def _constants(params):
    from cascading_bandits.bounds import lower, upper
    from cascading_bandits.bounds.instance import CascadeInstance

    inst = CascadeInstance(tuple(params["weights"]), params["K"])
    return {
        "theorem3": float(upper.theorem3_leading_coefficient(inst)),
        "theorem2": float(upper.theorem2_leading_coefficient(inst)),
        "theorem4": float(lower.theorem4_coefficient(inst)),
        "theorem4_sharp": float(lower.theorem4_sharp_coefficient(inst)),
    }


def asymptotic_rows(data: dict, at=(10**5, 10**6, 10**7)) -> list[dict]:
    """``R(n) / log n`` (mean and standard error over runs) at the horizons ``at`` per cell,
    with the constants of Theorems 2, 3, 4 and the sharp lower constant."""
    rows = []
    for cid, d in data.items():
        p = d["params"]
        row = {
            "cell_id": cid,
            "policy": p["policy"],
            "order": p["order"],
            "instance": f"B_LB({p['L']}, {p['K']}, {p['p']:g}, {p['delta']:g})"
            if p.get("p") is not None
            else cid,
            "runs": int(d["regret"].shape[0]),
            **_constants(p),
        }
        # counts against Lai and Robbins: sum_e (T_n(e) - 1) / (log n sum_e 1 / kl(w(e), w(K)))
        from cascading_bandits.bounds.kl import kl_mp

        w = np.array(p["weights"])
        order = np.lexsort((np.arange(w.size), -w))
        sub = order[p["K"] :]
        wK = float(w[order[p["K"] - 1]])
        lr = sum(1 / float(kl_mp(float(w[e]), wK)) for e in sub)
        n_end = int(d["checkpoints"][-1])
        row["counts_over_lai_robbins"] = float(
            (d["counts"][:, sub] - 1).sum(axis=1).mean() / (lr * math.log(n_end))
        )
        row["horizon"] = n_end
        for n in at:
            j = np.flatnonzero(d["checkpoints"] == n)
            if j.size:
                v = d["regret"][:, j[0]] / math.log(n)
                se = float(v.std(ddof=1) / math.sqrt(v.size)) if v.size > 1 else math.nan
                row[f"n={n:g}"] = (float(v.mean()), se)
        rows.append(row)
    return rows


def asymptotic_figure(data: dict, *, axes=None):
    """``R(n) / log n`` against n (log x), one panel per instance, both policies, with
    Theorem 3's leading coefficient, Theorem 4's constant and the sharp lower constant."""
    from cascading_bandits.reports.figures import (
        COLUMN,
        OKABE_ITO,
        _figure,
        _policy_style,
        _style,
        log_scale,
    )

    inst = {}
    for cid, d in data.items():
        p = d["params"]
        inst.setdefault((p["L"], p["K"], p.get("p"), p.get("delta")), []).append((cid, d))
    keys = sorted(inst)
    with _style():
        if axes is None:
            fig, ax2 = _figure(COLUMN * len(keys), 2.4, 1, len(keys))
            axes = ax2[0]
        else:
            fig = axes[0].figure
        for ax, key in zip(axes, keys, strict=False):
            consts = None
            for _cid, d in sorted(inst[key], key=lambda x: x[0]):
                p = d["params"]
                cp = d["checkpoints"]
                v = d["regret"] / np.log(cp)
                m = v.mean(axis=0)
                se = v.std(axis=0, ddof=1) / math.sqrt(v.shape[0]) if v.shape[0] > 1 else 0 * m
                color, _ls, label = _policy_style(p["policy"])
                ls = "-" if p["order"] == "best-first" else "--"
                ax.plot(cp, m, color=color, linestyle=ls, label=f"{label}, {p['order']}")
                ax.fill_between(cp, m - 1.96 * se, m + 1.96 * se, color=color, alpha=0.2, lw=0)
                consts = consts or _constants(p)
            for k, col, lab in (
                ("theorem3", OKABE_ITO["blue"], "Theorem 3 coefficient"),
                ("theorem4_sharp", OKABE_ITO["green"], "sharp lower constant"),
                ("theorem4", OKABE_ITO["black"], "Theorem 4 constant"),
            ):
                ax.axhline(consts[k], color=col, linestyle=":", lw=1, label=lab)
            log_scale(ax, "x")
            log_scale(ax, "y")
            ax.set_xlabel(r"$n$")
            ax.set_ylabel(r"$R(n) / \log n$")
            L, K, pp, dd = key
            ax.set_title(rf"$B_{{\mathrm{{LB}}}}({L}, {K}, {pp:g}, {dd:g})$")
        axes[0].legend()
    return fig


def factors_markdown(rows) -> str:
    out = ["| step | log n coefficient | factor |", "|---|---:|---:|"]
    for r in rows:
        f = "-" if r["factor"] is None else f"{r['factor']:.3f}"
        out.append(f"| {r['name']} | {r['coefficient']:.2f} | {f} |")
    return "\n".join(out)


# ---------------------------------------------------------------------------
# the report section
# ---------------------------------------------------------------------------


def _largest_links(ch, k=2):
    """The k links with the largest ratio, and their share of log(total factor)."""
    tot = math.log(ch["total_factor"]) if ch["total_factor"] > 0 else math.nan
    ls = sorted(ch["links"][1:], key=lambda x: -x["ratio"])[:k]
    return [(x["name"], x["ratio"], math.log(x["ratio"]) / tot) for x in ls]


def where_bounds_lose_section(chains, asymptotic=None, factors=None) -> tuple[str, dict]:
    """Markdown section 'Where the bounds lose' and its figures.

    Parameters
    ----------
    chains : list of dict
        From :func:`profile_cell` (several policies, instances, both orders).
    asymptotic : dict, optional
        From :func:`load_asymptotic`.
    factors : dict, optional
        ``{(policy, instance label): rows of bounds.profile.asymptotic_factors}``.

    Returns
    -------
    (markdown, figures) : str and ``{stem: matplotlib Figure}``.
    """
    if not chains:
        raise ValueError("chains must hold at least one profiled chain")
    for ch in chains:
        _check_chain(ch)
    figs = {}
    md = ["## Where the bounds lose", ""]
    md.append(
        "Each proof is a chain of inequalities from the regret R(n) to the theorem's bound; "
        "every link below is a bound on R(n) evaluated on the same simulated runs (the proof "
        "counters replay each run's trace; the replayed policy took the engine's decision on "
        "every step). Ratios are of means over runs, with 95% bootstrap intervals."
    )
    md.append("")
    for i, ch in enumerate(chains):
        stem = f"profile-{i:02d}-{ch['policy']}-{ch['order']}"
        figs[stem] = waterfall_figure(ch)
        md.append(
            f"### {display_name(ch['policy'])}, {ch['order']}, {ch.get('instance', '')}"
            f", n = {ch['horizon']:g}, {ch['runs']} runs"
        )
        md.append("")
        md.append(chain_markdown(ch))
        md.append("")
        big = _largest_links(ch)
        md.append(
            f"Total factor {ch['total_factor']:.2f}. Largest links: "
            + "; ".join(f"{n} x{r:.2f} ({100 * s:.0f}% of the log factor)" for n, r, s in big)
            + f". Figure: `{stem}`."
        )
        md.append("")
    rows = order_rows(chains)
    if rows:
        md.append("### Worst-first against best-first")
        md.append("")
        md.append(order_markdown(rows))
        md.append("")
        for r in rows:
            q = r["ratio"]
            share = math.log(q["per_event_cost"]) / math.log(q["regret"]) if q["regret"] != 1 else 0
            md.append(
                f"- {display_name(r['policy'])}, {r['instance']}: worst-first "
                "multiplies "
                f"R(n) by {q['regret']:.3f}, #G by {q['events_G']:.3f}, the cost per Delta-event "
                f"by {q['per_event_cost']:.3f} (the cost carries {100 * share:.0f}% of the log "
                f"change; #G moves the other way), the regret on bad steps from "
                f"{r['best-first']['regret_bad']:.3g} to {r['worst-first']['regret_bad']:.3g}."
            )
        md.append("")
        md.append(
            "#G counts the observations of suboptimal items (Theorem 1's events); the cost per "
            "Delta-event is R_good / sum Delta #G on good steps, which Theorem 1 places in "
            "[alpha, 1]. The bounds use only #G (and bound the cost by 1), so a change of order "
            "that acts through the cost cannot show in them."
        )
        md.append("")
    if factors is None:
        from cascading_bandits.bounds.profile import asymptotic_factors

        factors = {}
        for ch in chains:
            key = (ch["policy"], ch.get("instance", ""))
            if key not in factors:
                factors[key] = asymptotic_factors(
                    ch["weights"], ch["K"], ch["policy"], n=ch["horizon"]
                )
    if factors:
        md.append("### Upper against lower constants")
        md.append("")
        md.append(
            "The log n coefficient from Theorem 4's constant up to the theorem's, one proof "
            "step at a time (bounds.profile.asymptotic_factors); the sharp row uses "
            "alpha_sharp = prod_{j<K}(1 - w(j)) and is a side branch."
        )
        md.append("")
        for (pol, inst), fr in factors.items():
            md.append(f"{display_name(pol)}, {inst}:")
            md.append("")
            md.append(factors_markdown(fr))
            md.append("")
    if asymptotic:
        figs["profile-asymptotic"] = asymptotic_figure(asymptotic)
        arows = asymptotic_rows(asymptotic)
        cols = [k for k in arows[0] if k.startswith("n=")] if arows else []
        md.append("### R(n) / log n")
        md.append("")
        md.append(
            "| policy | order | instance | runs | "
            + " | ".join(cols)
            + " | Thm 3 | Thm 2 | sharp lower | Thm 4 | counts / Lai-Robbins at n |"
        )
        md.append("|---|---|---|---:|" + "---:|" * (len(cols) + 5))
        for r in arows:
            vals = " | ".join(f"{r[c][0]:.2f} +- {r[c][1]:.2f}" if c in r else "-" for c in cols)
            md.append(
                f"| {display_name(r['policy'])} | {r['order']} | {r['instance']} | "
                f"{r['runs']} | {vals} | {r['theorem3']:.1f} | {r['theorem2']:.1f} | "
                f"{r['theorem4_sharp']:.2f} | {r['theorem4']:.2f} | "
                f"{r['counts_over_lai_robbins']:.3f} ({r['horizon']:g}) |"
            )
        md.append("")
        md.append("Figure: `profile-asymptotic`.")
        md.append("")
    return "\n".join(md), figs


def _check_chain(ch):
    if not isinstance(ch, dict) or "links" not in ch:
        raise ValueError("a chain must be a dict from profile_cell / bounds.profile.proof_chain")
    V.choice("policy", ch["policy"], PROFILED_POLICIES)


def profile_grid(
    instances=((16, 2, 0.2, 0.15), (16, 8, 0.2, 0.075)),
    policies=("cascade-klucb", "cascade-ucb1"),
    orders=("best-first", "worst-first"),
    *,
    runs=20,
    horizon=100_000,
    seed=0,
    out=None,
    threads=None,
) -> list[dict]:
    """Profile every (B_LB instance, policy, order) with :func:`profile_cell`.

    Each cell is simulated once and counted once; the paper's chain and the binomial chain
    (:func:`bounds.profile.binomial_chain`) are both evaluated on the same counters
    (``profile_cell(..., chain="both")``): each returned dict is the paper's chain with the
    binomial one under its key ``"binomial"``.

    With ``out``, each is also stored as ``out/<cell_id>.json``; a chain already stored with
    the same runs, horizon and seed, and holding its binomial chain, is loaded instead of
    recomputed (one stored before the binomial chain existed is recomputed once).

    Returns
    -------
    list of dict, in the order instance, policy, order.
    """
    from cascading_bandits.reports.report_files import write_text
    from cascading_bandits.simulate.experiments import b_lb_cell

    chains = []
    for L, K, p, d in instances:
        for pol in policies:
            for order in orders:
                cell = b_lb_cell("profile", L, K, p, d, pol, order, horizon=horizon, runs=runs)
                path = None if out is None else Path(out) / f"{cell.cell_id}.json"
                if path is not None and path.exists():
                    ch = json.loads(path.read_text())
                    if (ch["runs"], ch["horizon"], ch["seed"]) == (runs, horizon, seed) and (
                        "binomial" in ch
                    ):
                        chains.append(ch)
                        continue
                ch = profile_cell(cell, seed, threads=threads, chain="both")
                if path is not None:
                    write_text(path, json.dumps(ch))
                chains.append(ch)
    return chains


def profile_chains(results) -> list[dict]:
    """Proof chains stored under ``results/profile`` (``*.json``, as written by
    :func:`profile_grid` with ``out=results/profile``), in file-name order."""
    d = Path(results) / "profile"
    if not d.is_dir():
        return []
    return [json.loads(p.read_text()) for p in sorted(d.glob("*.json"))]
