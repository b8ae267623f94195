"""Each policy's own worst instance against K: the comparison Vial et al. (NeurIPS 2022) state.

Vial, Sanghavi, Shakkottai and Srikant state a worst case over instances: CascadeUCB1 can
suffer regret of order sqrt(nLK), while CascadeKL-UCB stays within sqrt(nL) up to logs.
The quantity to set against that is the ratio of the two *maxima*, each over its own
instances: max_w R_UCB1(w) / max_w R_KLUCB(w). This script measures it at fixed L for
several K and two horizons, and writes one JSON document (``docs/search/worstcase_vs_K.json``)
that :mod:`cascading_bandits.reports.worstcase` turns into a table, a slope and a figure.

Run from the project root (one core; about 13 minutes of CPU with the defaults)::

    python benchmarks/worstcase_vs_K.py \
        --out docs/search/worstcase_vs_K.json --figure docs/figures/worstcase_vs_K.png

Stages, all on one thread (``threads=1``; the numbers do not depend on it):

1. pilot (``--family auto``, the default): at n = 1e4, K = 4 and 16, a ``regret`` search of
   each policy in each family (``free``: one weight per item; ``two-level``: K items at one
   weight, L - K at another) with about the same number of candidates (176 and 160). The
   family whose re-measured worst regret is larger in more of the four (policy, K) pairs is
   used below (a tie goes to ``two-level``, the cheaper one).
2. search at n = 1e4: for each K and policy, ``simulate.search.search("regret", ...)`` with
   ``--runs-1e4`` runs per candidate and ``--maxiter-1e4`` x ``--popsize`` generations.
3. search at n = 1e5, cheaper (fewer runs per candidate, fewer generations). Then, at each
   n, policy and K, the candidates for the worst instance: both horizons' search optima and
   every instance on L items of the stored searches ``--candidates-from`` names (by default
   ``docs/search/factor_vs_K.json``, the per-instance ratio's instances), measured on the
   same ``--select-runs`` runs (common keys, not used again); the largest mean is kept.
4. re-measure: each kept instance on ``--confirm-runs`` fresh runs (keys used nowhere else,
   independent between policies), the regret of every run stored.
5. family check (two-level only): at n = 1e4 and K in ``--check-K``, a search over free
   weights in the box [0, 2 w1] around the kept instance (w1 its largest weight), to see
   whether the two-level family hides a worse instance; stored beside the kept maximum.
   ``--check-only`` runs this stage alone and adds it to the file ``--out`` names.

Every search in stage 2 and 3 is a plain ``search`` call with an integer seed (``--seed``), so
each can be repeated on its own with ``cascading search`` (the command is stored beside it;
the CLI runs on every core, which changes the time, not the numbers).

``--reuse FILE`` takes the pilot and the searches (stages 1 to 3 up to the candidates) from a
stored run with the same settings instead of running them again (they are deterministic);
their CPU seconds are counted in the total as stored. ``--quick`` shrinks every budget (for
a smoke test; the numbers mean nothing).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import shlex
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from cascading_bandits.simulate.engine import simulate_runs
from cascading_bandits.simulate.models import make_model
from cascading_bandits.simulate.rng import policy_keys
from cascading_bandits.simulate.runner import _git_commit, _git_dirty, _versions
from cascading_bandits.simulate.search import search

POLICIES = ("cascade-ucb1", "cascade-klucb")
ORDER = "best-first"
#: tags of the SeedSequence children used outside the searches (selection, re-measurement)
SELECT_TAG, CONFIRM_TAG = 1, 2


def _atomic_write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.chmod(tmp, 0o644)
    os.replace(tmp, path)


def _runs_regret(weights, K, policy, n, seed_seq, runs) -> np.ndarray:
    """Regret at n of ``runs`` runs on keys from ``seed_seq`` (users, policy), shape (runs,)."""
    # the first two children of seed_seq, built without spawning (which would advance it):
    # every call with the same seed_seq meets the same runs
    users, pol = (
        np.random.SeedSequence(seed_seq.entropy, spawn_key=(*seed_seq.spawn_key, i)) for i in (0, 1)
    )
    model = make_model("cascade", tuple(float(w) for w in weights), K)
    regret, _ = simulate_runs(
        model,
        policy,
        ORDER,
        n,
        policy_keys(users, runs),
        policy_keys(pol, runs),
        np.array([n], dtype=np.int64),
        threads=1,
    )
    return regret[:, -1]


def _keys_for(root: int, tag: int, n: int, policy: str, K: int) -> np.random.SeedSequence:
    """The SeedSequence of one (stage, n, policy, K): root entropy, a spawn key of small ints."""
    return np.random.SeedSequence(
        root, spawn_key=(tag, int(round(math.log10(n))), POLICIES.index(policy), K)
    )


def _cli(policy, K, L, family, n, runs, maxiter, popsize, seed, confirm_runs) -> str:
    return (
        f"cascading search --objective regret --policy {policy} --K {K} --L {L} "
        f"--family {family} --horizon {n:.0e} --runs {runs} --maxiter {maxiter} "
        f"--popsize {popsize} --confirm-runs {confirm_runs} --seed {seed} --json"
    ).replace("e+0", "e")


def _search(policy, K, L, family, n, runs, maxiter, popsize, seed, confirm_runs, log):
    t0 = time.process_time()
    res = search(
        "regret",
        [policy],
        L=L,
        K=K,
        family=family,
        order=ORDER,
        horizon=n,
        runs=runs,
        maxiter=maxiter,
        popsize=popsize,
        seed=seed,
        confirm_runs=confirm_runs,
        threads=1,
    )
    cpu = time.process_time() - t0
    d = res.to_dict()
    d["cpu_seconds"] = round(cpu, 2)
    d["command"] = _cli(policy, K, L, family, n, runs, maxiter, popsize, seed, confirm_runs)
    log(
        f"  search {policy:13s} K={K:2d} n={n:.0e} {family}: {res.value:9.1f} "
        f"[{res.ci_low:.1f}, {res.ci_high:.1f}] ({res.evaluations} candidates, {cpu:.1f} s cpu)"
    )
    return d


def pilot(a, log) -> dict:
    """Stage 1: both families at small scale, the same order of candidates each."""
    budgets = {
        "two-level": dict(maxiter=a.pilot_maxiter_two, popsize=8),
        "free": dict(maxiter=a.pilot_maxiter_free, popsize=1),
    }
    rows = []
    for K in a.pilot_K:
        for p in POLICIES:
            for fam, b in budgets.items():
                d = _search(
                    p,
                    K,
                    a.L,
                    fam,
                    a.pilot_horizon,
                    a.pilot_runs,
                    b["maxiter"],
                    b["popsize"],
                    a.seed,
                    a.pilot_confirm_runs,
                    log,
                )
                rows.append(d)
    wins = {"two-level": 0, "free": 0}
    for K in a.pilot_K:
        for p in POLICIES:
            v = {
                r["settings"]["family"]: r["value"]
                for r in rows
                if r["K"] == K and r["policies"] == [p]
            }
            wins["free" if v["free"] > v["two-level"] else "two-level"] += 1
    chosen = "free" if wins["free"] > wins["two-level"] else "two-level"
    log(f"  pilot: wins {wins}; family {chosen}")
    return {
        "horizon": a.pilot_horizon,
        "K": list(a.pilot_K),
        "budgets": budgets,
        "rule": "the family with the larger re-measured worst regret in more (policy, K) "
        "pairs; a tie goes to two-level",
        "wins": wins,
        "chosen": chosen,
        "searches": rows,
    }


def _extra_candidates(paths, L, log) -> dict:
    """K -> {name: weights}: the instances that stored searches (``--candidates-from``) found
    on L items; each is one more candidate for the worst instance of both policies."""
    out: dict = {}
    for path in paths:
        f = Path(path)
        if not f.is_absolute() and not f.exists():  # relative to the project, not the cwd
            f = Path(__file__).resolve().parents[1] / f
        doc = json.loads(f.read_text())
        for i, r in enumerate(doc["results"]):
            if len(r["weights"]) != L:
                continue
            n = r["settings"]["confirm_horizon"]
            name = f"{Path(path).name} result {i} ({r['objective']}, n={n})"
            out.setdefault(int(r["K"]), {})[name] = [float(w) for w in r["weights"]]
    log(f"  {sum(len(v) for v in out.values())} more candidates from {', '.join(paths) or '-'}")
    return out


def _reused(a, horizons, budgets):
    """``--reuse``: the pilot and the searches of a stored run with the same settings."""
    doc = json.loads(Path(a.reuse).read_text())
    b = doc["budget"]
    same = {
        "L": (doc["L"], a.L),
        "K": (doc["Ks"], list(a.K)),
        "horizons": (doc["horizons"], list(horizons)),
        "seed": (doc["provenance"]["seed"], a.seed),
        "popsize": (b["popsize"], a.popsize),
        "runs": (b["runs_per_candidate"], {str(n): budgets[n]["runs"] for n in horizons}),
        "maxiter": (b["maxiter"], {str(n): budgets[n]["maxiter"] for n in horizons}),
        "search confirm runs": (b["search_confirm_runs"], a.search_confirm_runs),
        "family": (
            doc["family"] if a.family != "auto" else doc["pilot"] is not None,
            a.family if a.family != "auto" else True,
        ),
    }
    differ = [k for k, (x, y) in same.items() if x != y]
    if differ:
        raise ValueError(f"--reuse {a.reuse}: its {', '.join(differ)} differ from this run's")
    stages = ["pilot"] + [f"search n={n}" for n in horizons]
    cpu = {f"{k} (reused)": b["cpu_seconds"][k] for k in stages if k in b["cpu_seconds"]}
    return doc["pilot"], doc["searches"], doc["family"], cpu


def family_check(a, results, log) -> dict:
    """Stage 5: is the two-level family hiding a worse instance? At the smaller horizon, for
    K = ``--check-K``, a search over free weights (one per item) in the box [0, 2 w1], w1 the
    largest weight of the instance kept, which holds that instance; the free optimum is
    re-measured on the search's own confirmation runs and set beside the kept maximum."""
    n = min(r["settings"]["confirm_horizon"] for r in results)
    rows = []
    for K in a.check_K:
        for p in POLICIES:
            (kept,) = [
                r
                for r in results
                if r["K"] == K and r["policies"] == [p] and r["settings"]["confirm_horizon"] == n
            ]
            w_max = min(1.0, 2 * max(kept["weights"]))
            t0 = time.process_time()
            res = search(
                "regret",
                [p],
                L=a.L,
                K=K,
                family="free",
                w_max=w_max,
                order=ORDER,
                horizon=n,
                runs=a.check_runs,
                maxiter=a.check_maxiter,
                popsize=1,
                seed=a.seed,
                confirm_runs=a.search_confirm_runs,
                threads=1,
            )
            d = res.to_dict()
            d["cpu_seconds"] = round(time.process_time() - t0, 2)
            d["kept_maximum"] = kept["value"]
            d["kept_ci"] = [kept["ci_low"], kept["ci_high"]]
            rows.append(d)
            log(
                f"  check {p:13s} K={K:2d} n={n:.0e} free in [0, {w_max:.3g}]: {res.value:.1f} "
                f"[{res.ci_low:.1f}, {res.ci_high:.1f}] against the kept {kept['value']:.1f} "
                f"({res.evaluations} candidates, {d['cpu_seconds']:.1f} s cpu)"
            )
    return {
        "horizon": n,
        "K": list(a.check_K),
        "what": "free weights (one per item) in [0, 2 w1], w1 the largest weight of the kept "
        "instance, popsize 1 (L candidates a generation); the kept maximum is the two-level "
        "one re-measured on the fresh runs",
        "searches": rows,
    }


def _result(policy, K, L, n, weights, runs_regret, found_by, family, confidence=0.95):
    """One re-measured worst instance, in the layout of a search result (SearchResult.to_dict)
    so that the report's ledger reads it, plus every run's regret."""
    from scipy import stats

    x = np.asarray(runs_regret, dtype=float)
    m = float(x.mean())
    se = float(x.std(ddof=1) / math.sqrt(x.size))
    q = float(stats.t.ppf(0.5 + confidence / 2, x.size - 1))
    lo, hi = m - q * se, m + q * se
    return {
        "weights": [float(w) for w in weights],
        "L": L,
        "K": K,
        "objective": "regret",
        "policies": [policy],
        "value": m,
        "ci_low": lo,
        "ci_high": hi,
        "mean_regret": {policy: m},
        "regret_ci": {policy: [lo, hi]},
        "regret_runs": [round(float(v), 4) for v in x],
        "found_by": found_by,
        "settings": {
            "family": family,
            "L": L,
            "order": ORDER,
            "confirm_horizon": n,
            "confirm_runs": int(x.size),
            "confidence": confidence,
        },
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="docs/search/worstcase_vs_K.json")
    ap.add_argument("--figure", default=None, help="also draw the figure here (PNG)")
    ap.add_argument("--L", type=int, default=32)
    ap.add_argument("--K", type=lambda s: [int(x) for x in s.split(",")], default=[2, 4, 8, 16])
    ap.add_argument("--family", choices=("auto", "two-level", "free"), default="auto")
    ap.add_argument("--seed", type=int, default=2022)
    ap.add_argument("--popsize", type=int, default=8)
    ap.add_argument("--runs-1e4", type=int, default=8)
    ap.add_argument("--maxiter-1e4", type=int, default=20)
    ap.add_argument("--runs-1e5", type=int, default=4)
    ap.add_argument("--maxiter-1e5", type=int, default=10)
    ap.add_argument("--search-confirm-runs", type=int, default=20)
    ap.add_argument("--select-runs", type=int, default=20)
    ap.add_argument("--confirm-runs", type=int, default=50)
    ap.add_argument("--quick", action="store_true", help="tiny budgets (smoke test)")
    ap.add_argument("--force", action="store_true", help="replace an existing --out")
    ap.add_argument("--note", default=None, help="free text stored in the provenance")
    ap.add_argument(
        "--candidates-from",
        type=lambda x: [v for v in x.split(",") if v],
        default=["docs/search/factor_vs_K.json"],
        help="stored searches whose instances on L items are candidates too ('' for none)",
    )
    ap.add_argument(
        "--reuse",
        default=None,
        help="take stages 1-3 (pilot and searches) from this file instead of running them",
    )
    ap.add_argument("--check-K", type=lambda s: [int(x) for x in s.split(",")], default=[4, 16])
    ap.add_argument("--check-runs", type=int, default=4)
    ap.add_argument("--check-maxiter", type=int, default=10)
    ap.add_argument(
        "--check-only",
        action="store_true",
        help="run stage 5 alone on the file --out names and add it there",
    )
    a = ap.parse_args(argv)
    a.pilot_K, a.pilot_horizon, a.pilot_runs, a.pilot_confirm_runs = (4, 16), 10_000, 4, 20
    a.pilot_maxiter_two, a.pilot_maxiter_free = 10, 4
    horizons = (10_000, 100_000)
    if a.quick:
        horizons = (1_000, 3_000)
        a.pilot_K, a.pilot_horizon = (a.K[0],), 1000
        a.pilot_maxiter_two = a.pilot_maxiter_free = 1
        a.maxiter_1e4 = a.maxiter_1e5 = 1
        a.popsize = 2
        a.runs_1e4 = a.runs_1e5 = 2
        a.search_confirm_runs = a.select_runs = 2
        a.confirm_runs = 4
    if a.L <= max(a.K) or min(a.K) < 1 or len(set(a.K)) < 2:
        raise ValueError(f"--K needs two or more distinct list lengths in 1..L-1, got {a.K}")
    out = Path(a.out)
    log = lambda s: print(s, file=sys.stderr, flush=True)  # noqa: E731
    if a.quick:
        a.check_K, a.check_maxiter, a.check_runs = [a.K[-1]], 1, 2
    if a.check_only:
        return _check_only(a, out, log)
    if out.exists() and not a.force:
        raise ValueError(f"{out} exists; pass --force to replace it")
    cpu0, wall0 = time.process_time(), time.time()
    cpu = {}

    budgets = {
        horizons[0]: dict(runs=a.runs_1e4, maxiter=a.maxiter_1e4, popsize=a.popsize),
        horizons[1]: dict(runs=a.runs_1e5, maxiter=a.maxiter_1e5, popsize=a.popsize),
    }
    searches, results, selections = [], [], []
    if a.reuse:
        pil, searches, family, reused_cpu = _reused(a, horizons, budgets)
        cpu.update(reused_cpu)
        log(f"  pilot and {len(searches)} searches taken from {a.reuse}")
    else:
        t = time.process_time()
        pil = pilot(a, log) if a.family == "auto" else None
        cpu["pilot"] = time.process_time() - t
        family = pil["chosen"] if pil else a.family
        for n in horizons:
            t = time.process_time()
            for p in POLICIES:
                for K in a.K:
                    b = budgets[n]
                    s = _search(
                        p,
                        K,
                        a.L,
                        family,
                        n,
                        b["runs"],
                        b["maxiter"],
                        b["popsize"],
                        a.seed,
                        a.search_confirm_runs,
                        log,
                    )
                    searches.append(s)
            cpu[f"search n={n}"] = time.process_time() - t

    t = time.process_time()
    extra = _extra_candidates(a.candidates_from, a.L, log)
    chosen = {}
    for n in horizons:
        for p in POLICIES:
            for K in a.K:
                # the candidates: this horizon's search optimum, the other horizon's, and
                # the instances other stored searches found at this K and L; the one with
                # the largest mean regret at n on the same runs (used for nothing else) is
                # kept
                ss = _keys_for(a.seed, SELECT_TAG, n, p, K)
                cands = {}
                for m in horizons:
                    (s_,) = [
                        x
                        for x in searches
                        if x["K"] == K and x["policies"] == [p] and x["settings"]["horizon"] == m
                    ]
                    cands[f"search at n={m}"] = s_["weights"]
                for name, w in extra.get(K, {}).items():
                    if all(w != v for v in cands.values()):
                        cands[name] = w
                means = {
                    k: float(_runs_regret(w, K, p, n, ss, a.select_runs).mean())
                    for k, w in cands.items()
                }
                best = max(means, key=means.get)
                selections.append(
                    {
                        "policy": p,
                        "K": K,
                        "n": n,
                        "runs": a.select_runs,
                        "mean": means,
                        "kept": best,
                        "seed_spawn_key": [int(k) for k in ss.spawn_key],
                    }
                )
                log(
                    f"  select {p:13s} K={K:2d} n={n:.0e}: "
                    + ", ".join(f"{k}: {v:.1f}" for k, v in means.items())
                    + f" -> {best}"
                )
                chosen[(p, K, n)] = (cands[best], best)
    cpu["selection"] = time.process_time() - t

    t = time.process_time()
    for n in horizons:
        for K in a.K:
            for p in POLICIES:
                w, how = chosen[(p, K, n)]
                ss = _keys_for(a.seed, CONFIRM_TAG, n, p, K)
                x = _runs_regret(w, K, p, n, ss, a.confirm_runs)
                r = _result(p, K, a.L, n, w, x, how, family)
                r["settings"]["seed_entropy"] = str(ss.entropy)
                r["settings"]["seed_spawn_key"] = [int(k) for k in ss.spawn_key]
                results.append(r)
                log(
                    f"  re-measure {p:13s} K={K:2d} n={n:.0e}: {r['value']:.1f} "
                    f"[{r['ci_low']:.1f}, {r['ci_high']:.1f}]"
                )
    cpu["re-measure"] = time.process_time() - t

    t = time.process_time()
    check = family_check(a, results, log) if family == "two-level" and a.check_K else None
    cpu["family check"] = time.process_time() - t
    total_cpu = time.process_time() - cpu0 + sum(v for k, v in cpu.items() if "reused" in k)

    doc = {
        "kind": "worstcase_vs_K",
        "what": "each policy's worst instance found by a regret search (its own maximum), "
        "re-measured on fresh runs; the report's reports.worstcase reads this",
        "L": a.L,
        "Ks": list(a.K),
        "horizons": list(horizons),
        "policies": list(POLICIES),
        "family": family,
        "results": results,
        "searches": searches,
        "selections": selections,
        "candidates_from": list(a.candidates_from),
        "pilot": pil,
        "family_check": check,
        "budget": {
            "threads": 1,
            "popsize": a.popsize,
            "runs_per_candidate": {str(n): budgets[n]["runs"] for n in horizons},
            "maxiter": {str(n): budgets[n]["maxiter"] for n in horizons},
            "candidates": {
                str(n): sum(s["evaluations"] for s in searches if s["settings"]["horizon"] == n)
                for n in horizons
            },
            "search_confirm_runs": a.search_confirm_runs,
            "select_runs": a.select_runs,
            "confirm_runs": a.confirm_runs,
            "cpu_seconds": {k: round(v, 1) for k, v in cpu.items()},
            "cpu_seconds_total": round(total_cpu, 1),
            "cpu_seconds_this_run": round(time.process_time() - cpu0, 1),
            "reused_from": a.reuse,
            "wall_seconds_total": round(time.time() - wall0, 1),
        },
        "provenance": {
            "command": shlex.join(
                [
                    "python",
                    "benchmarks/worstcase_vs_K.py",
                    *(sys.argv[1:] if argv is None else argv),
                ]
            ),
            "seed": a.seed,
            "seeds": "every search: search(..., seed=--seed) (children 0, 1, 2 of "
            "SeedSequence(seed): optimiser, common runs, its own 20 confirmation runs); "
            "selection and re-measurement: SeedSequence(seed, spawn_key=(tag, log10 n, "
            "policy index, K)), tag 1 selection, 2 re-measurement, each split into users' "
            "and policy keys (simulate.rng.policy_keys)",
            "versions": dict(_versions()),
            "git_commit": _git_commit(),
            "git_dirty": _git_dirty() if _git_commit() else None,
            "machine": f"{platform.machine()}, {os.cpu_count()} cores, {platform.system()}",
            "code": str(Path(sys.modules[search.__module__].__file__).resolve().parent.parent),
            "note": a.note,
            "quick": bool(a.quick),
        },
    }
    _atomic_write(out, json.dumps(doc, indent=1, allow_nan=False) + "\n")
    log(f"written {out} ({total_cpu:.0f} s cpu, {time.time() - wall0:.0f} s wall)")
    return _finish(a, doc, log)


def _check_only(a, out, log) -> int:
    """``--check-only``: stage 5 on the results stored in ``out``, added to that file."""
    doc = json.loads(out.read_text())
    if doc.get("kind") != "worstcase_vs_K":
        raise ValueError(f"{out} is not a worstcase_vs_K document")
    a.L, a.seed = doc["L"], doc["provenance"]["seed"]
    a.search_confirm_runs = doc["budget"]["search_confirm_runs"]
    t = time.process_time()
    doc["family_check"] = family_check(a, doc["results"], log)
    cpu = time.process_time() - t
    b = doc["budget"]
    b["cpu_seconds"]["family check"] = round(cpu, 1)
    b["cpu_seconds_total"] = round(b["cpu_seconds_total"] + cpu, 1)
    doc["provenance"]["command"] += " && " + shlex.join(
        ["python", "benchmarks/worstcase_vs_K.py", *sys.argv[1:]]
    )
    _atomic_write(out, json.dumps(doc, indent=1, allow_nan=False) + "\n")
    log(f"added the family check to {out} ({cpu:.0f} s cpu)")
    return _finish(a, doc, log)


def _finish(a, doc, log) -> int:
    """The figure (``--figure``) and the Markdown on standard output."""
    if a.figure:
        from cascading_bandits.reports.figures import DPI
        from cascading_bandits.reports.worstcase import plot_worstcase

        fig = plot_worstcase(doc)
        Path(a.figure).parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(a.figure, dpi=DPI, bbox_inches="tight", format="png")
        log(f"written {a.figure}")
    from cascading_bandits.reports.worstcase import worstcase_markdown

    print(worstcase_markdown(doc))
    return 0


if __name__ == "__main__":
    sys.exit(main())
