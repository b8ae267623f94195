"""The report builder: the only place in ``reports`` that writes files.

:func:`build_report` runs (or resumes from stored results) the paper's experiments through
:func:`simulate.sweep.run_experiment`, computes the tables of :mod:`reports.tables`, draws the
figures of :mod:`reports.figures`, runs ``verify`` and writes into ``out``::

    out/report.md            the report (Markdown, figures linked beside it)
    out/report.json          every number the report prints, machine-readable
    out/figures/*.png, *.pdf each figure in both formats
    out/results/             stored simulation results (unless ``results_dir`` is given)

Existing report files are never replaced unless ``overwrite=True``; stored simulation
results are reused (a sweep resumes), never overwritten.
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import os
import platform
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from cascading_bandits.reports import figures as F
from cascading_bandits.reports import tables as T
from cascading_bandits.reports.paper import citation, figure1_meta, table_meta

#: the paper's scale (Section 5): n = 1e5 steps, 20 runs
PAPER_HORIZON, PAPER_RUNS = 100_000, 20
#: ``--quick``: enough to exercise every code path in seconds
QUICK_HORIZON, QUICK_RUNS = 2_000, 3
EXPERIMENTS = ("table1", "table2", "dbn")
#: figure stem -> what it shows (the Markdown caption's first words)
FIGURES = ("figure1", "bounds_vs_empirical", "scaling", "order", "policies")
REPORT_FILES = ("report.md", "report.json")
#: Table 1 rows shown in the policies figure (CascadeTS alongside the paper's policies)
POLICY_PANELS = ((16, 2, 0.15), (16, 8, 0.15), (16, 2, 0.075))


@dataclass
class Settings:
    """What to run and where to write.

    ``runs`` and ``horizon`` default to the paper's scale (or the quick one).
    """

    out: Path
    results: Path | None = None
    quick: bool = False
    runs: int | None = None
    horizon: int | None = None
    seed: int = 0
    workers: int | None = None
    scheduler: str | None = None
    overwrite: bool = False
    progress: bool = True
    verify_examples: int | None = None
    curve_points: int | None = None
    command: str = ""
    timings: dict = field(default_factory=dict)

    def __post_init__(self):
        from cascading_bandits.bounds import _validate as V

        self.out = Path(self.out)
        self.results = Path(self.results) if self.results is not None else self.out / "results"
        if self.runs is None:
            self.runs = QUICK_RUNS if self.quick else PAPER_RUNS
        if self.horizon is None:
            self.horizon = QUICK_HORIZON if self.quick else PAPER_HORIZON
        self.runs = V.positive_int("runs", self.runs, minimum=2)
        self.horizon = V.positive_int("horizon", self.horizon, minimum=10)
        self.seed = V.positive_int("seed", self.seed, minimum=0)
        if self.workers is not None:
            self.workers = V.positive_int("workers", self.workers)
        if self.verify_examples is None:
            self.verify_examples = 5 if self.quick else 50
        self.verify_examples = V.positive_int("verify_examples", self.verify_examples)
        if self.curve_points is None:
            self.curve_points = 6 if self.quick else 12
        self.curve_points = V.positive_int("curve_points", self.curve_points, minimum=2)


def planned_files(out) -> list[Path]:
    """Every report file :func:`build_report` writes into ``out`` (results excluded)."""
    out = Path(out)
    files = [out / f for f in REPORT_FILES]
    for stem in FIGURES:
        files += [out / "figures" / f"{stem}.png", out / "figures" / f"{stem}.pdf"]
    return files


def check_writable(out, overwrite: bool) -> None:
    """Refuse (ValueError) to replace existing report files unless ``overwrite``."""
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise ValueError(f"--out {out} exists and is not a directory")
    if overwrite:
        return
    existing = [p for p in planned_files(out) if p.exists()]
    if existing:
        names = ", ".join(str(p.relative_to(out)) for p in existing[:3])
        more = f" and {len(existing) - 3} more" if len(existing) > 3 else ""
        raise ValueError(
            f"{out} already holds a report ({names}{more}); pass --overwrite to "
            "replace it or choose another --out"
        )


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _atomic_write(path: Path, write) -> None:
    """Write through a temporary file in the same directory, then rename over ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem}.", suffix=path.suffix)
    os.close(fd)
    try:
        write(tmp)
        # mkstemp makes the file private (0600); give it the mode a plain open() would
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise


def _save_figure(fig, out: Path, stem: str) -> list[str]:
    paths = []
    for ext in ("png", "pdf"):
        path = out / "figures" / f"{stem}.{ext}"
        _atomic_write(path, lambda tmp, ext=ext: fig.savefig(tmp, format=ext))
        paths.append(str(path.relative_to(out)))
    return paths


# ---------------------------------------------------------------------------
# running / loading results
# ---------------------------------------------------------------------------
#: extra simulator experiments the report uses: cascade-ts on Table 1 rows, the other
#: reading of the ranked-bandit reward in the DBN setting
EXTRA_POLICIES = ("cascade-ts", "ranked-klucb-rba")


def available_experiments() -> list[str]:
    """The paper's experiments plus any extra simulator experiment with cells of
    :data:`EXTRA_POLICIES` (shown beside the paper's policies)."""
    from cascading_bandits.simulate import experiments as E

    names = list(EXPERIMENTS)
    for name in getattr(E, "EXPERIMENTS", ()):
        if name in names:
            continue
        try:
            cells = E.get_experiment(name)
        except ValueError:
            continue
        if any(getattr(c, "policy", None) in EXTRA_POLICIES for c in cells):
            names.append(name)
    return names


def run_experiments(s: Settings) -> dict:
    """Run or resume every experiment at ``s.runs`` x ``s.horizon``; returns name -> results.

    Raises ValueError if stored results in ``s.results`` were made at another scale.
    """
    from cascading_bandits.simulate.experiments import get_experiment
    from cascading_bandits.simulate.store import stored_params
    from cascading_bandits.simulate.sweep import run_experiment

    out = {}
    for name in available_experiments():
        # a report reuses stored results but never replaces them: refuse another scale up front
        for cell in get_experiment(name):
            old = stored_params(s.results, name, cell.cell_id)
            if old is not None and (old.get("horizon"), old.get("runs")) != (s.horizon, s.runs):
                raise ValueError(
                    f"{s.results} holds {name} results at n = {old.get('horizon')}, "
                    f"{old.get('runs')} runs, but this report asks for n = {s.horizon}, {s.runs} "
                    "runs; pass another --results directory (stored results are never overwritten)"
                )
        t0 = time.perf_counter()
        try:
            res = run_experiment(
                name,
                s.results,
                runs=s.runs,
                horizon=s.horizon,
                seed=s.seed,
                workers=s.workers,
                scheduler=s.scheduler,
                overwrite=False,
                progress=s.progress,
            )
        except ValueError as exc:
            if "stored cell" not in str(exc):
                raise
            # the sweep's own hint names its overwrite switch; a report never replaces results
            why = str(exc).split("; use another output directory")[0]
            raise ValueError(
                f"cannot reuse the results stored in {s.results}: {why}; pass another "
                "--results directory (cascading report never replaces stored results)"
            ) from exc
        s.timings[f"simulate:{name}"] = time.perf_counter() - t0
        for r in res:
            n, runs = int(r.checkpoints[-1]), int(np.asarray(r.regret).shape[0])
            if (n, runs) != (s.horizon, s.runs):
                raise ValueError(
                    f"stored results in {s.results} for {name} have n = {n}, {runs} runs, but this "
                    f"report asks for n = {s.horizon}, {s.runs} runs; "
                    "use another --results directory"
                )
        out[name] = list(res)
    return out


def run_verify(s: Settings) -> dict:
    """``verify.run_all`` and ``verify.caveats`` as plain dicts, or why they are unavailable."""
    try:
        from cascading_bandits import verify
        run_all, caveats = verify.run_all, verify.caveats
    except (ImportError, AttributeError) as exc:
        return {
            "available": False,
            "reason": f"verify.run_all / verify.caveats not available ({exc})",
        }
    t0 = time.perf_counter()
    verdicts = run_all(examples=s.verify_examples, seed=s.seed)
    cav = caveats()
    s.timings["verify"] = time.perf_counter() - t0
    return {
        "available": True,
        "verdicts": [v.to_dict() if hasattr(v, "to_dict") else dict(vars(v)) for v in verdicts],
        "caveats": [c.to_dict() if hasattr(c, "to_dict") else dict(vars(c)) for c in cav],
    }


# ---------------------------------------------------------------------------
# the report's content
# ---------------------------------------------------------------------------
def _bound_curve_grid(horizon: int, points: int) -> np.ndarray:
    return np.unique(np.geomspace(10, horizon, points).astype(np.int64))


def collect(results: dict, horizon: int, curve_points: int = 12) -> dict:
    """All tables of the report (pure: no I/O). ``results`` maps experiment name -> results.

    The bound curves are evaluated at ``curve_points`` horizons, log-spaced from 10 to ``horizon``
    (Theorem 3 optimises eps at each, which costs about 0.1 s per point).
    """
    allres = [r for rs in results.values() for r in rs]
    t1 = T.compare_table("table1", allres)
    t2 = T.compare_table("table2", allres)
    bounds = T.bound_rows(allres)
    curves = {}
    for b in bounds:
        curves[(b.L, b.K, b.delta)] = T.bound_curves(
            b.L, b.K, b.p, b.delta, _bound_curve_grid(horizon, curve_points)
        )
    return {
        "table1": t1,
        "table2": t2,
        "bounds": bounds,
        "curves": curves,
        "scaling": T.scaling_rows(allres),
        "order": T.order_rows(allres),
        "dbn": T.dbn_rows(allres),
        "all": allres,
    }


def _git_commit() -> str:
    try:
        return (
            subprocess.run(
                ["git", "rev-parse", "--short", "HEAD"],
                capture_output=True,
                text=True,
                cwd=Path(__file__).resolve().parent,
                timeout=10,
            ).stdout.strip()
            or "unknown"
        )
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def _mark_counts(rows) -> str:
    counts = {}
    for r in rows:
        counts[r.mark] = counts.get(r.mark, 0) + 1
    order = ("ok", "borderline", "disagree", "n/a", "not run")
    return ", ".join(f"{counts[k]} {k}" for k in order if k in counts)


def _table_md(rows) -> str:
    by = {}
    for r in rows:
        by.setdefault((r.L, r.K, r.delta), {})[r.policy] = r
    out = []
    for (L, K, d), cells in by.items():
        line = [str(L), str(K), f"{d:g}"]
        for pol in ("cascade-ucb1", "cascade-klucb"):
            c = cells[pol]
            line += [
                T.fmt_pm(c.ours_mean, c.ours_se),
                T.fmt_pm(c.paper_mean, c.paper_se),
                T.fmt(c.z, 2),
                c.mark,
            ]
        out.append(line)
    head = [
        "L",
        "K",
        "Δ",
        "UCB1 ours",
        "UCB1 paper",
        "z",
        "",
        "KL-UCB ours",
        "KL-UCB paper",
        "z",
        "",
    ]
    return T.markdown_table(head, out, align="rrrrrrlrrrl")


def _clip(text: str, n: int) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


def _verify_md(v: dict) -> str:
    if not v.get("available"):
        return (
            "*`verify` is not available in this checkout, so no claim was checked here.* "
            f"({v.get('reason', '')})\n"
        )
    rows = []
    for d in v["verdicts"]:
        rows.append(
            [
                f"`{d.get('claim_id')}`",
                str(d.get("reference", "")),
                str(d.get("method", "")),
                str(d.get("domain", "")),
                str(d.get("instances", "")),
                T.fmt_sig(d.get("min_slack")) if d.get("min_slack") is not None else "-",
                f"**{d.get('status')}**" if d.get("status") != "holds" else "holds",
            ]
        )
    md = (
        T.markdown_table(
            ["claim", "paper", "method", "domain", "instances", "min slack", "verdict"],
            rows,
            align="lllllrl",
        )
        + "\n"
    )
    failed = [d["claim_id"] for d in v["verdicts"] if d.get("status") == "fails"]
    md += f"\n{len(v['verdicts'])} claims checked; " + (
        f"**{len(failed)} fail: {', '.join(failed)}**.\n" if failed else "none fails.\n"
    )
    if v["caveats"]:
        md += "\n### Caveats\n\n"
        for c in v["caveats"]:
            md += (
                f"- **{c.get('id')}** ({c.get('kind')}; claims {', '.join(c.get('claims') or [])})."
                f" *Paper:* {c.get('paper_says')} *True:* {c.get('truth')} "
                f"*Evidence:* `{_clip(json.dumps(c.get('evidence'), sort_keys=True), 300)}`. "
                f"Pinned test: `{c.get('test')}`.\n"
            )
    return md


def render_markdown(s: Settings, data: dict, verify_data: dict, figures: dict) -> str:
    """The report as Markdown (pure: returns the text)."""
    f1 = figure1_meta()
    lines = []
    add = lines.append
    add("# Cascading bandits: the paper reproduced, bounds against evidence\n")
    add(f"Reproduction of the experiments and bounds of {citation()}\n")
    add(
        f"- generated {_dt.datetime.now(_dt.UTC).strftime('%Y-%m-%d %H:%M UTC')} by "
        f"`{s.command or 'cascading_bandits.reports.build.build_report'}`, git commit `{_git_commit()}`, "
        f"Python {platform.python_version()}"
    )
    add(
        f"- scale: n = {s.horizon:,} steps, {s.runs} runs per cell, root seed {s.seed}; "
        f"stored results in `{s.results}`"
    )
    sim = sum(v for k, v in s.timings.items() if k.startswith("simulate:"))
    add(
        f"- wall time: simulation {sim:.1f} s ("
        + ", ".join(
            f"{k.split(':')[1]} {v:.1f} s"
            for k, v in s.timings.items()
            if k.startswith("simulate:")
        )
        + ")"
        + "".join(
            f", {k} {s.timings[k]:.1f} s"
            for k in ("tables", "verify", "figures", "total")
            if k in s.timings
        )
    )
    # a reused result costs ~0 s here; its provenance keeps what computing it took
    cpu = [r.provenance.get("seconds") for r in data["all"] if hasattr(r, "provenance")]
    cpu = [float(c) for c in cpu if isinstance(c, (int, float))]
    if cpu:
        add(
            f"- compute time recorded in the stored cells' provenance: {sum(cpu):.1f} s "
            f"over {len(cpu)} cells (summed over workers)"
        )
    add("")
    if (s.horizon, s.runs) != (PAPER_HORIZON, PAPER_RUNS):
        add(
            f"> **Not at the paper's scale** (the paper uses n = {PAPER_HORIZON:,} and "
            f"{PAPER_RUNS} runs). The z-scores below compare different horizons and are not a "
            "test of reproduction; this report exercises the pipeline only.\n"
        )

    add("## Summary\n")
    add(f"- Table 1 (best-first): {_mark_counts(data['table1'])}.")
    add(f"- Table 2 (worst-first): {_mark_counts(data['table2'])}.")
    both = data["table1"] + data["table2"]
    if any(r.z is not None for r in both):
        ss = T.sign_summary(both)
        add(
            f"- Direction: ours is below the paper in {ss.below} of {ss.cells} cells and above in "
            f"{ss.above}; mean z = {ss.mean_z:+.2f} (about 0 ± {1 / math.sqrt(ss.cells):.2f} "
            f"without bias); two-sided sign test p = {ss.p_value:.2g}."
        )
    dis = [r for r in both if r.mark in ("disagree", "borderline")]
    for r in dis:
        add(
            f"  - {r.table} L={r.L} K={r.K} Δ={r.delta:g} {r.policy}: ours "
            f"{T.fmt_pm(r.ours_mean, r.ours_se)} vs paper {T.fmt_pm(r.paper_mean, r.paper_se)}, "
            f"z = {T.fmt(r.z, 2)} ({r.mark})"
        )
    for pol in dict.fromkeys(r.ranked_policy for r in data["dbn"]):
        rs = [r for r in data["dbn"] if r.ranked_policy == pol]
        add(
            f"- Figure 1: {pol} / cascade-klucb regret at n = {rs[0].n:,} for (ν, γ) = "
            + ", ".join(f"({r.nu:g}, {r.gamma:g}): {r.ratio:.2f}" for r in rs)
            + (
                f" (paper: about {f1['ranked_over_cascade']:g})."
                if pol == "ranked-klucb"
                else " (another reading of the ranked-bandit reward, not the paper's Figure 1)."
            )
        )
    if data["bounds"]:
        lo = min(b.ucb1_over_theorem2 for b in data["bounds"] if b.ucb1_mean is not None)
        hi = max(b.ucb1_over_theorem2 for b in data["bounds"] if b.ucb1_mean is not None)
        klo = min(b.klucb_over_theorem3 for b in data["bounds"] if b.klucb_mean is not None)
        khi = max(b.klucb_over_theorem3 for b in data["bounds"] if b.klucb_mean is not None)
        verdict = (
            "below 1 in every row: the mean regret at n is below both upper bounds"
            if max(hi, khi) < 1
            else "**above 1 in some row: a mean regret exceeds its upper bound at n**"
        )
        add(
            f"- Upper bounds: CascadeUCB1 / Theorem 2 = {lo:.3f} to {hi:.3f}; "
            f"CascadeKL-UCB / Theorem 3 = {klo:.3f} to {khi:.3f} ({verdict})."
        )
        lb = [b.klucb_over_theorem4 for b in data["bounds"] if b.klucb_mean is not None]
        add(
            f"- CascadeKL-UCB regret / the Theorem 4 rate (coefficient × log n) at n: "
            f"{min(lb):.2f} to {max(lb):.2f}."
        )
    if data["order"]:
        ours = sum(r.ratio < 1 for r in data["order"])
        paper = sum(r.paper_ratio < 1 for r in data["order"])
        add(
            f"- Worst-first has lower regret than best-first in {ours} of {len(data['order'])} "
            f"cells (paper: {paper} of {len(data['order'])})."
        )
    add("")

    for name, title in (
        ("table1", "Table 1: best-first order (Section 5.1)"),
        ("table2", "Table 2: worst-first order (Section 5.2)"),
    ):
        meta = table_meta(name)
        add(f"## {title}\n")
        add(
            f"Regret at n = {s.horizon:,} on B_LB(L, K, p = {meta['p']:g}, Δ), mean ± standard "
            f"error over {s.runs} runs, next to the paper's (n = {meta['horizon']:,}, "
            f"{meta['runs']} runs). z = (ours − paper) / sqrt(se_ours² + se_paper²); "
            "|z| < 2 ok, < 3 borderline, else disagree.\n"
        )
        add(_table_md(data[name]) + "\n")

    add("## Bounds against the evidence (Table 1 rows)\n")
    add(
        "Theorem 4's lower bound is asymptotic (liminf R(n)/log n ≥ coefficient, for consistent "
        "algorithms); it is shown as coefficient × log n at the horizon. Theorem 3 is evaluated "
        "with its constant C = K L C₂(ε)/n^β(ε) + 7 K log log n at the ε that minimises the bound "
        "at n. Ratios are empirical mean regret / bound.\n"
    )
    rows = []
    for b in data["bounds"]:
        rows.append(
            [
                str(b.L),
                str(b.K),
                f"{b.delta:g}",
                f"{b.n:,}",
                T.fmt_sig(b.theorem4_coefficient),
                T.fmt_sig(b.theorem4),
                T.fmt_sig(b.theorem2),
                T.fmt_sig(b.theorem3),
                T.fmt_sig(b.theorem3_eps, 3),
                T.fmt_sig(b.theorem3_C),
                T.fmt(b.ucb1_over_theorem2, 3),
                T.fmt(b.klucb_over_theorem3, 3),
                T.fmt(b.ucb1_over_theorem4, 2),
                T.fmt(b.klucb_over_theorem4, 2),
            ]
        )
    add(
        T.markdown_table(
            [
                "L",
                "K",
                "Δ",
                "n",
                "Thm 4 coef",
                "Thm 4 at n",
                "Thm 2 at n",
                "Thm 3 at n",
                "ε*",
                "C",
                "UCB1 / Thm 2",
                "KL-UCB / Thm 3",
                "UCB1 / Thm 4",
                "KL-UCB / Thm 4",
            ],
            rows,
        )
        + "\n"
    )
    if "bounds_vs_empirical" in figures:
        add("![Regret against n with the bounds](figures/bounds_vs_empirical.png)\n")
        add(
            "*Regret against n (log-log) for every Table 1 configuration: mean over runs with "
            "95% bands (solid), Theorems 2, 3 and the asymptotic Theorem 4 rate (dashed).* "
            "([PDF](figures/bounds_vs_empirical.pdf))\n"
        )

    add("## Scaling in L, Δ and K against the bounds\n")
    add(
        "Ratio of regret at the horizon between two Table 1 configurations that differ in one "
        "parameter, against the ratio of the bounds' log n coefficients (Theorem 2: Σ 12/Δ; "
        "Theorem 3 at ε = 0; Theorem 4).\n"
    )
    kinds = {"L": 0, "Delta": 1, "K": 2}
    scaling = sorted(data["scaling"], key=lambda r: (kinds.get(r.vary, 3), r.fixed, r.frm, r.to))
    rows = [
        [
            r.vary.replace("Delta", "Δ"),
            r.fixed.replace("delta", "Δ"),
            f"{r.frm} → {r.to}",
            r.policy,
            f"{r.ratio:.3f} ± {r.ratio_se:.3f}",
            f"{r.predicted_theorem2:.3f}",
            f"{r.predicted_theorem3:.3f}",
            f"{r.predicted_theorem4:.3f}",
        ]
        for r in scaling
    ]
    add(
        T.markdown_table(
            ["vary", "fixed", "from → to", "policy", "ours", "Thm 2", "Thm 3", "Thm 4"],
            rows,
            align="llllrrrr",
        )
        + "\n"
    )
    if "scaling" in figures:
        add("![Scaling](figures/scaling.png)\n")

    add("## Worst-first against best-first (Table 2 / Table 1)\n")
    rows = [
        [
            str(r.L),
            str(r.K),
            f"{r.delta:g}",
            r.policy,
            f"{r.ratio:.3f} ± {r.ratio_se:.3f}",
            f"{r.paper_ratio:.3f}",
        ]
        for r in data["order"]
    ]
    add(
        T.markdown_table(
            ["L", "K", "Δ", "policy", "ours worst/best", "paper worst/best"], rows, align="rrrlrr"
        )
        + "\n"
    )
    if "order" in figures:
        add("![Worst-first against best-first](figures/order.png)\n")

    add("## Figure 1: the DBN model, CascadeKL-UCB against RankedKL-UCB (Sections 5.3-5.4)\n")
    add(
        f"DBN click model on B_LB(L = {f1['L']}, K = {f1['K']}, p = {f1['p']:g}, "
        f"Δ = {f1['delta']:g}) with satisfaction ν and persistence γ. The ratio is paired over "
        "runs (both policies face the same users). The figure shows the simulator's default "
        "ranked-bandit reading (`ranked-klucb`); other readings it stores appear in the table.\n"
    )
    rows = [
        [
            f"{r.nu:g}",
            f"{r.gamma:g}",
            r.ranked_policy,
            T.fmt_pm(r.cascade_mean, r.cascade_se),
            T.fmt_pm(r.ranked_mean, r.ranked_se),
            f"{r.ratio:.2f} ± {r.ratio_se:.2f}",
            "yes" if r.about_three else "no",
        ]
        for r in data["dbn"]
    ]
    add(
        T.markdown_table(
            [
                "ν",
                "γ",
                "ranked policy",
                "CascadeKL-UCB",
                "ranked",
                "ranked / cascade",
                f"in [{T.ABOUT_THREE[0]}, {T.ABOUT_THREE[1]}]",
            ],
            rows,
            align="rrlrrrr",
        )
        + "\n"
    )
    if "figure1" in figures:
        add("![Figure 1](figures/figure1.png)\n")

    if "policies" in figures:
        add("## CascadeTS alongside the paper's policies\n")
        add(
            "Thompson sampling with Beta(1 + clicks, 1 + non-clicks) posteriors, same observation "
            "model, best-first, on Table 1 configurations.\n"
        )
        rows = []
        pols = ("cascade-ucb1", "cascade-klucb", "cascade-ts")
        for b in data["bounds"]:
            cells = [
                T.select_one(
                    data["all"],
                    model="cascade",
                    order="best-first",
                    L=b.L,
                    K=b.K,
                    delta=b.delta,
                    policy=pol,
                )
                for pol in pols
            ]
            if cells[2] is None:
                continue
            rows.append(
                [str(b.L), str(b.K), f"{b.delta:g}"]
                + [T.fmt_pm(*T.mean_se(T.final_regret(r))) if r is not None else "-" for r in cells]
            )
        add(
            T.markdown_table(["L", "K", "Δ", "CascadeUCB1", "CascadeKL-UCB", "CascadeTS"], rows)
            + "\n"
        )
        add("The figure shows three of these rows; regret at n, mean ± standard error.\n")
        add("![CascadeTS](figures/policies.png)\n")

    add("## Verification (`cascading verify`)\n")
    add(_verify_md(verify_data))
    return "\n".join(lines) + "\n"


def to_json(s: Settings, data: dict, verify_data: dict, figures: dict) -> dict:
    """Every number of the report, JSON-ready."""
    return {
        "citation": citation(),
        "git_commit": _git_commit(),
        "horizon": s.horizon,
        "runs": s.runs,
        "seed": s.seed,
        "results_dir": str(s.results),
        "timings": s.timings,
        "table1": T.as_dicts(data["table1"]),
        "table2": T.as_dicts(data["table2"]),
        "bounds": T.as_dicts(data["bounds"]),
        "scaling": T.as_dicts(data["scaling"]),
        "order": T.as_dicts(data["order"]),
        "dbn": T.as_dicts(data["dbn"]),
        "verify": verify_data,
        "figures": figures,
    }


def draw_figures(data: dict) -> dict:
    """stem -> Figure for every figure the data supports."""
    figs = {}
    allres = data["all"]
    if data["dbn"]:
        figs["figure1"] = F.figure1(allres, data["dbn"])
    if data["bounds"]:
        figs["bounds_vs_empirical"] = F.bounds_vs_empirical(
            [r for r in allres if r.params.get("policy") in ("cascade-ucb1", "cascade-klucb")],
            data["curves"],
        )
    if data["scaling"]:
        figs["scaling"] = F.scaling_figure(data["scaling"])
    if data["order"]:
        figs["order"] = F.order_figure(data["order"])
    if any(r.params.get("policy") == "cascade-ts" for r in allres):
        figs["policies"] = F.policies_figure(allres, POLICY_PANELS)
    return figs


def build_report(
    out,
    *,
    results_dir=None,
    quick=False,
    runs=None,
    horizon=None,
    seed=0,
    workers=None,
    scheduler=None,
    overwrite=False,
    progress=True,
    verify_examples=None,
    curve_points=None,
    command="",
) -> Path:
    """Run or reuse the experiments and write the report into ``out``; returns ``out/report.md``.

    Parameters
    ----------
    out : path
        Report directory (created if missing).
    results_dir : path, optional
        Where simulation results are stored and reused (default ``out/results``).
    quick : bool
        Small n and few runs (``QUICK_HORIZON``, ``QUICK_RUNS``) for smoke tests.
    runs, horizon : int, optional
        Override the scale (default: the paper's, or the quick one).
    seed : int
        Root seed of the sweeps and of ``verify``.
    workers, scheduler
        Passed to :func:`simulate.sweep.run_experiment`.
    overwrite : bool
        Replace existing report files (never stored results).
    verify_examples : int, optional
        Random instances per claim for ``verify.run_all`` (default 50, quick 5).
    curve_points : int, optional
        Horizons at which the bound curves are evaluated (default 12, quick 6).
    """
    s = Settings(
        out=out,
        results=results_dir,
        quick=quick,
        runs=runs,
        horizon=horizon,
        seed=seed,
        workers=workers,
        scheduler=scheduler,
        overwrite=overwrite,
        progress=progress,
        verify_examples=verify_examples,
        curve_points=curve_points,
        command=command,
    )
    check_writable(s.out, s.overwrite)
    t0 = time.perf_counter()
    results = run_experiments(s)
    t1 = time.perf_counter()
    data = collect(results, s.horizon, s.curve_points)
    s.timings["tables"] = time.perf_counter() - t1
    verify_data = run_verify(s)
    t1 = time.perf_counter()
    figs = draw_figures(data)
    s.out.mkdir(parents=True, exist_ok=True)
    written = {stem: _save_figure(fig, s.out, stem) for stem, fig in figs.items()}
    s.timings["figures"] = time.perf_counter() - t1
    s.timings["total"] = time.perf_counter() - t0
    md = render_markdown(s, data, verify_data, written)
    js = to_json(s, data, verify_data, written)

    def write_text(text):
        return lambda tmp: Path(tmp).write_text(text, encoding="utf-8")

    _atomic_write(
        s.out / "report.json",
        write_text(json.dumps(js, indent=1, allow_nan=False, default=_json_default) + "\n"),
    )
    _atomic_write(s.out / "report.md", write_text(md))
    return s.out / "report.md"


def _json_default(x):
    if isinstance(x, (np.integer,)):
        return int(x)
    if isinstance(x, (np.floating,)):
        v = float(x)
        return None if math.isnan(v) else v
    if isinstance(x, tuple):
        return list(x)
    raise TypeError(f"not JSON-serialisable: {type(x).__name__}")
