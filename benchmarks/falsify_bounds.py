"""Try to break every registered upper bound with a constant: a falsification campaign.

For each bound (``bound_names("upper", "constant")`` read from the registry when the script
runs, so a bound registered later is picked up by a re-run), each horizon n and each
(K, L) of the plan, one *unit* of work:

1. pinned candidates: a fixed set of instances the continuous optimiser rarely reaches, built
   for (L, K) by :func:`pinned_instances`: exact ties below the optimum (every suboptimal
   item at one weight), weights near 0 and near 1, near-ties at the optimum's boundary
   (w(K) - w(K+1) = 1e-2 and 1e-3), an exact tie across the boundary (only where the bound's
   premises allow it; elsewhere it is listed as skipped with the failing premise), the paper's
   B_LB shape, and the instances earlier searches stored in ``docs/search/tightest_*.json``
   when their L and K match. Each is simulated on the same users' and policy keys the search
   uses for its candidates (common random numbers), so their scores compare with the search's.
2. search: ``simulate.search.search("bound", ...)``, differential evolution over free weights
   in [w_min, w_max] = [0, 1] (one coordinate per item), the bound's covered policy, one thread.
   Its size (generations, population) is set from the CPU time the unit may still spend and
   the measured cost of one candidate (the pinned candidates' median); the seed is an
   integer drawn from the unit's SeedSequence, so the search alone can be repeated with the
   ``cascading search`` command stored beside it.
3. re-measure: the search's optimum (the search's own confirmation, on keys it uses nowhere
   else) and the best pinned candidate (on the same fresh keys), ``--confirm-runs`` runs at n
   (default 200 for n <= 1000, 100 above). One-sided 99.9% Student-t limits of the mean regret
   (LCL, UCL) against the bound B at n: ``violated`` if LCL > B, ``no violation found`` if
   UCL < B, ``undecided`` otherwise; ``not applicable`` where a premise of the bound fails.
   Anything but ``no violation found`` is re-checked on ``--recheck-factor`` times as many
   new runs (keys from the unit's own seed), and the re-check gives the unit's verdict.

Seeds: one root seed (``--seed``); unit (bound, n, K, L) draws from
``SeedSequence(seed, spawn_key=(crc32(bound), n, K, L))`` (a spawned child with an explicit,
order-free key), so a unit's numbers do not depend on which other units run, or in what order.

Budget (``--budget``, CPU seconds of this process for the units this invocation computes): each
unit may spend the budget left divided by the units left; what a cheap unit leaves (it stops at
``--max-candidates``) goes to the units after it. The time is CPU time (``time.process_time``),
one worker (``threads=1``), so the figure is that of one core whatever the machine's load.

Resumable: the output JSON is rewritten after every unit; a unit already in it (same root seed)
is not recomputed, so ``--bounds NEW`` (or no ``--bounds``: every registered bound) adds only
the new units. ``--tightest`` (default ``verify/data/tightest_instances.json``) receives, for
every bound in the output, its tightest instance over all n (largest re-measured ratio); other
keys of that file (its ``_doc``, other bounds) are kept.

Usage (from the project root)::

    python benchmarks/falsify_bounds.py --out docs/search/falsification.json --budget 1150
    python benchmarks/falsify_bounds.py --bounds theorem2-binomial,theorem3-binomial \
        --out docs/search/falsification.json --budget 330
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import math
import os
import platform
import shlex
import subprocess
import sys
import time
import warnings
import zlib
from pathlib import Path

import numpy as np
from scipy import stats

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_PLAN = ((2, 6), (3, 6), (4, 8))
DEFAULT_HORIZONS = (100, 1000, 10_000)
#: level of each one-sided Student-t limit (as the bounds' validity claims use)
CONFIDENCE = 0.999
VIOLATED, UNDECIDED, HOLDS, NA = "violated", "undecided", "no violation found", "not applicable"
_RANK = {VIOLATED: 3, UNDECIDED: 2, HOLDS: 1, NA: 0}
FORMAT = 1


# ---------------------------------------------------------------------------------------
# small helpers
# ---------------------------------------------------------------------------------------
def runs_per_candidate(n: int) -> int:
    """Runs per candidate in the search: more at small n, where a run is cheap and noisy."""
    return 16 if n <= 100 else (8 if n <= 1000 else 4)


def default_confirm_runs(n: int) -> int:
    return 200 if n <= 1000 else 100


def unit_key(bound: str, n: int, K: int, L: int) -> str:
    return f"{bound}|n={n}|K={K}|L={L}"


def unit_spawn_key(bound: str, n: int, K: int, L: int) -> tuple:
    return (zlib.crc32(bound.encode()), int(n), int(K), int(L))


def unit_seed(root: int, bound: str, n: int, K: int, L: int, *child) -> np.random.SeedSequence:
    """The unit's SeedSequence (or one of its children): built fresh at each call, never
    mutated, so each stream is fixed by (root, bound, n, K, L, child)."""
    return np.random.SeedSequence(root, spawn_key=unit_spawn_key(bound, n, K, L) + tuple(child))


def search_keys(seed_int: int, which: int, runs: int):
    """Users' and policy keys ``simulate.search.search(seed=seed_int)`` uses: ``which`` 1 for
    its candidates (common random numbers), 2 for its confirmation runs."""
    from cascading_bandits.simulate.rng import policy_keys

    users = np.random.SeedSequence(seed_int, spawn_key=(which, 0))
    pol = np.random.SeedSequence(seed_int, spawn_key=(which, 1))
    return policy_keys(users, runs), policy_keys(pol, runs)


def fresh_keys(ss: np.random.SeedSequence, runs: int):
    from cascading_bandits.simulate.rng import policy_keys

    u = np.random.SeedSequence(ss.entropy, spawn_key=tuple(ss.spawn_key) + (0,))
    p = np.random.SeedSequence(ss.entropy, spawn_key=tuple(ss.spawn_key) + (1,))
    return policy_keys(u, runs), policy_keys(p, runs)


def regret_runs(weights, K, policy, n, ukeys, pkeys) -> np.ndarray:
    """Regret at step n of each run, one thread (what the search does per candidate)."""
    from cascading_bandits.simulate.engine import simulate_runs
    from cascading_bandits.simulate.models import make_model

    model = make_model("cascade", tuple(float(w) for w in weights), K)
    reg, _ = simulate_runs(
        model,
        policy,
        "best-first",
        int(n),
        ukeys,
        pkeys,
        np.array([n], dtype=np.int64),
        threads=1,
    )
    return np.asarray(reg[:, -1], dtype=float)


_BOUND_CACHE: dict = {}


def bound_value(name: str, weights, K: int, n: int):
    """``(value, failed premise)``: the registered bound at n, or ``(inf, text)`` where a
    premise fails (or the value is not a finite number)."""
    from cascading_bandits.bounds.instance import CascadeInstance
    from cascading_bandits.bounds.registry import get_bound

    b = get_bound(name)
    key = (name, id(b), tuple(float(w) for w in weights), int(K), int(n))
    if key not in _BOUND_CACHE:
        inst = CascadeInstance(tuple(float(w) for w in weights), int(K))
        why = b.failed_premise(inst, int(n))
        if why is not None:
            out = (math.inf, why)
        else:
            try:
                out = (float(b(inst, int(n))), None)
            except ValueError as e:  # beyond float64, or a premise the evaluation checks
                out = (math.inf, str(e))
        _BOUND_CACHE[key] = out
    return _BOUND_CACHE[key]


def t_limits(x: np.ndarray, confidence: float = CONFIDENCE):
    """Mean and the one-sided ``confidence`` Student-t lower and upper limits of the mean."""
    x = np.asarray(x, dtype=float)
    m = float(x.mean())
    se = float(x.std(ddof=1) / math.sqrt(x.size))
    q = float(stats.t.ppf(confidence, x.size - 1))
    return m, m - q * se, m + q * se


def verdict(lcl: float, ucl: float, bound: float) -> str:
    if not math.isfinite(bound):
        return NA
    if lcl > bound:
        return VIOLATED
    if ucl < bound:
        return HOLDS
    return UNDECIDED


def measurement(source, weights, K, n, x, bnd, why) -> dict:
    """One re-measurement: mean regret, its 99.9% limits, the bound, ratios and the verdict."""
    m, lo, hi = t_limits(x)
    fin = math.isfinite(bnd) and bnd > 0
    return {
        "source": source,
        "weights": [float(w) for w in weights],
        "K": int(K),
        "n": int(n),
        "runs": int(x.size),
        "mean_regret": m,
        "lcl": lo,
        "ucl": hi,
        "bound": bnd if math.isfinite(bnd) else None,
        "failed_premise": why,
        "ratio": m / bnd if fin else None,
        "ratio_lcl": lo / bnd if fin else None,
        "ratio_ucl": hi / bnd if fin else None,
        "verdict": verdict(lo, hi, bnd),
    }


# ---------------------------------------------------------------------------------------
# pinned candidates
# ---------------------------------------------------------------------------------------
def _desc(w):
    return tuple(sorted((float(x) for x in w), reverse=True))


def pinned_instances(L: int, K: int) -> list:
    """``(label, weights)`` of the fixed candidates for (L, K) (module docstring, step 1)."""
    s = L - K
    opt_ladder = list(np.linspace(0.9, 0.5, K)) if K > 1 else [0.5]
    out = [
        ("two-level 0.9 / 0.1 (ties above and below)", [0.9] * K + [0.1] * s),
        ("two-level 0.1 / 0.02 (small click rates)", [0.1] * K + [0.02] * s),
        ("near 1 / near 0: 0.999 / 0.001", [0.999] * K + [0.001] * s),
        ("near 1 both: 0.999 / 0.95", [0.999] * K + [0.95] * s),
        ("near 0 both: 0.02 / 0.001", [0.02] * K + [0.001] * s),
        ("B_LB shape: 0.2 / 0.05", [0.2] * K + [0.05] * s),
        ("moderate gap 0.3 / 0.2", [0.3] * K + [0.2] * s),
        (
            "near-tie at the boundary, gap 1e-2, rest tied at 0.1",
            [0.5] * K + [0.49] + [0.1] * (s - 1),
        ),
        ("near-tie at the boundary, gap 1e-3, all suboptimal tied", [0.5] * K + [0.499] * s),
        ("close weights 0.46 .. 0.26", list(np.linspace(0.46, 0.26, L))),
        ("exact tie across the boundary w(K) = w(K+1) = 0.5", [0.7] * (K - 1) + [0.5] * (s + 1)),
    ]
    if s >= 2:
        out.append(
            (
                "ladder optimum, two tied at 0.3, rest tied at 0.001",
                opt_ladder + [0.3, 0.3] + [0.001] * (s - 2),
            )
        )
    for f in sorted((ROOT / "docs" / "search").glob("tightest_*.json")):
        try:
            r = json.loads(f.read_text(encoding="utf-8"))["results"][0]
        except (OSError, ValueError, KeyError, IndexError, TypeError):
            continue
        if int(r.get("K", -1)) == K and len(r.get("weights", ())) == L:
            out.append((f"stored search {f.name}", list(r["weights"])))
    return [(lab, _desc(w)) for lab, w in out]


# ---------------------------------------------------------------------------------------
# one unit
# ---------------------------------------------------------------------------------------
def de_population(popsize: int, dim: int) -> int:
    """The population SciPy's differential evolution uses with a Sobol' start: popsize * dim
    (at least 5), rounded up to a power of 2."""
    return int(2 ** math.ceil(math.log2(max(5, popsize * dim))))


def size_search(candidates: int, dim: int):
    """(popsize, maxiter) for at most about ``candidates`` evaluations, which are
    ``de_population(popsize, dim) * (maxiter + 1)``; at least 2 generations of popsize 1."""
    popsize = int(min(10, max(1, round(math.sqrt(candidates / (3.0 * dim))))))
    while popsize > 1 and 2 * de_population(popsize, dim) > candidates:
        popsize -= 1
    maxiter = int(max(1, candidates // de_population(popsize, dim) - 1))
    return popsize, maxiter


def search_command(bound, K, L, n, runs, maxiter, popsize, seed_int, confirm_runs) -> str:
    return (
        f"cascading search --objective bound --bound {bound} --K {K} --L {L} --family free "
        f"--w-min 0 --w-max 1 --horizon {n} --runs {runs} --maxiter {maxiter} "
        f"--popsize {popsize} --seed {seed_int} --confirm-runs {confirm_runs}"
    )


def small_t_note(n: int) -> str:
    if n >= 48:
        return (
            f"n = {n} >= 48: Theorem 3's printed constant (7 K log log n) is valid and used; the "
            "small-t rule (log t -> log max(t, 1), log log t dropped for t <= e; "
            "bounds/indices.py) touches only the policies' first steps, identically in the "
            "simulator and the bounds"
        )
    return (
        f"n = {n} < 48: the bounds of Theorem 3's family use the constant as the proof gives it "
        "(the printed 7 K log log n fails below 48), under the small-t rule of bounds/indices.py"
    )


#: horizons of the small-t check: both sides of n = 48 (Theorem 3's printed constant) and the
#: first steps, where the small-t rule of bounds/indices.py is in force (t <= e)
SMALL_T_CHECKPOINTS = (1, 2, 3, 5, 10, 20, 30, 47, 48, 50, 75, 100)


def small_t_check(bound, entry, root, runs=200) -> dict:
    """The bound against the regret at every horizon of :data:`SMALL_T_CHECKPOINTS` up to the
    summary entry's n (at most 100), on its instance: ``runs`` fresh runs, 99.9% limits."""
    from cascading_bandits.simulate.engine import simulate_runs
    from cascading_bandits.simulate.models import make_model
    from cascading_bandits.simulate.search import bound_policy

    t0 = time.process_time()
    n, K, w = int(entry["n"]), int(entry["K"]), tuple(entry["weights"])
    cps = sorted({c for c in SMALL_T_CHECKPOINTS if c <= n} | {n})
    ss = unit_seed(root, bound, n, K, len(w), 2)
    reg, _ = simulate_runs(
        make_model("cascade", w, K),
        bound_policy(bound),
        "best-first",
        n,
        *fresh_keys(ss, runs),
        np.array(cps, dtype=np.int64),
        threads=1,
    )
    rows = []
    for j, c in enumerate(cps):
        bnd, why = bound_value(bound, w, K, c)
        m = measurement("small-t check", w, K, c, np.asarray(reg[:, j], dtype=float), bnd, why)
        rows.append({k: m[k] for k in ("n", "mean_regret", "lcl", "ucl", "bound", "verdict")})
    return {
        "weights": list(w),
        "K": K,
        "runs": runs,
        "checkpoints": rows,
        "verdict": max((r["verdict"] for r in rows), key=lambda v: _RANK[v]),
        "cpu_s": time.process_time() - t0,
    }


def run_unit(
    bound, n, K, L, *, root, alloc, max_candidates, confirm_runs, recheck_factor, log=print
) -> dict:
    """Pinned candidates, a search sized to ``alloc`` CPU seconds, re-measurement, verdict."""
    from cascading_bandits.simulate.search import bound_policy, search

    t0 = time.process_time()
    policy = bound_policy(bound)
    runs = runs_per_candidate(n)
    seed_int = int(unit_seed(root, bound, n, K, L, 0).generate_state(1, np.uint64)[0] >> 1)
    uk, pk = search_keys(seed_int, 1, runs)

    # 1. pinned candidates on the search's common random numbers
    pinned = []
    for label, w in pinned_instances(L, K):
        bnd, why = bound_value(bound, w, K, n)
        if why is not None:
            pinned.append({"label": label, "weights": list(w), "skipped": why})
            continue
        x = regret_runs(w, K, policy, n, uk, pk)
        score = float(x.mean() / bnd) if bnd > 0 else 0.0
        pinned.append({"label": label, "weights": list(w), "score": score, "bound": bnd})
    # the cost of one search candidate, a simulation and a bound evaluation of a new instance,
    # measured on uniform random instances (the pinned ones are atypically cheap to simulate)
    rng = np.random.default_rng(unit_seed(root, bound, n, K, L, 3))
    sims, costs = [], []
    for _ in range(3):
        w = _desc(rng.uniform(0.0, 1.0, L))
        c0 = time.process_time()
        regret_runs(w, K, policy, n, uk, pk)
        c1 = time.process_time()
        bound_value(bound, w, K, n)
        sims.append(c1 - c0)
        costs.append(time.process_time() - c0)
    cost, sim_cost = float(np.mean(costs)), float(np.mean(sims))
    confirm_est = 2 * sim_cost * confirm_runs / runs + 2 * cost
    left = alloc - (time.process_time() - t0) - confirm_est
    cands = int(min(max_candidates, max(1, left / max(cost, 1e-6))))
    popsize, maxiter = size_search(cands, L)

    # 2. the search (its own confirmation: the optimum on fresh keys, 99.9% one-sided limits)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Sobol' balance warnings of a non-power-of-2 population
        res = search(
            "bound",
            [policy],
            L=L,
            K=K,
            family="free",
            w_min=0.0,
            w_max=1.0,
            order="best-first",
            horizon=n,
            runs=runs,
            maxiter=maxiter,
            popsize=popsize,
            seed=seed_int,
            confirm_runs=confirm_runs,
            confidence=2 * CONFIDENCE - 1,
            threads=1,
            bound=bound,
        )
    pol = res.policies[0]
    lo, hi = res.regret_ci[pol]
    bnd = math.inf if res.bound is None else float(res.bound)
    why = None if math.isfinite(bnd) else bound_value(bound, res.weights, K, n)[1]
    m_search = {
        "source": "search",
        "weights": [float(w) for w in res.weights],
        "K": K,
        "n": n,
        "runs": confirm_runs,
        "mean_regret": float(res.mean_regret[pol]),
        "lcl": float(lo),
        "ucl": float(hi),
        "bound": bnd if math.isfinite(bnd) else None,
        "failed_premise": why,
        "ratio": res.value if math.isfinite(bnd) and bnd > 0 else None,
        "ratio_lcl": res.ci_low if math.isfinite(bnd) and bnd > 0 else None,
        "ratio_ucl": res.ci_high if math.isfinite(bnd) and bnd > 0 else None,
        "verdict": verdict(float(lo), float(hi), bnd),
    }
    measured = [m_search]

    # 3. the best pinned candidate, on the search's confirmation keys
    scored = [p for p in pinned if "score" in p]
    if scored:
        best = max(scored, key=lambda p: p["score"])
        cu, cp = search_keys(seed_int, 2, confirm_runs)
        x = regret_runs(best["weights"], K, policy, n, cu, cp)
        b2, why2 = bound_value(bound, best["weights"], K, n)
        measured.append(measurement(f"pinned: {best['label']}", best["weights"], K, n, x, b2, why2))

    # re-check anything that is not clearly below the bound, on new keys
    rechecks = []
    for i, m in enumerate(measured):
        if m["verdict"] in (VIOLATED, UNDECIDED):
            r = recheck_factor * confirm_runs
            ru, rp = fresh_keys(unit_seed(root, bound, n, K, L, 1, i), r)
            x = regret_runs(m["weights"], K, policy, n, ru, rp)
            b2, why2 = bound_value(bound, m["weights"], K, n)
            rc = measurement(f"recheck of {m['source']}", m["weights"], K, n, x, b2, why2)
            m["recheck"] = rc
            rechecks.append(rc)

    def final(m):
        return m["recheck"]["verdict"] if "recheck" in m else m["verdict"]

    def ratio_of(m):
        return -1.0 if m["ratio"] is None else m["ratio"]

    best_m = max(measured, key=ratio_of)
    unit_verdict = max((final(m) for m in measured), key=lambda v: _RANK[v])
    return {
        "bound": bound,
        "policy": pol,
        "n": n,
        "K": K,
        "L": L,
        "seed": {
            "root": root,
            "spawn_key": list(unit_spawn_key(bound, n, K, L)),
            "search_seed": seed_int,
        },
        "search": {
            "runs_per_candidate": runs,
            "popsize": popsize,
            "maxiter": maxiter,
            "candidates": res.evaluations,
            "search_value": res.search_value,
            "cost_per_candidate_s": cost,
            "command": search_command(
                bound, K, L, n, runs, maxiter, popsize, seed_int, confirm_runs
            ),
        },
        "pinned": pinned,
        "measured": measured,
        "best": best_m,
        "verdict": unit_verdict,
        "small_t": small_t_note(n),
        "alloc_cpu_s": alloc,
        "cpu_s": time.process_time() - t0,
    }


# ---------------------------------------------------------------------------------------
# the document
# ---------------------------------------------------------------------------------------
def versions() -> dict:
    import numba
    import scipy

    try:
        from importlib.metadata import version

        cb = version("cascading-bandits")
    except Exception:  # noqa: BLE001 - provenance only
        cb = None
    try:
        commit = (
            subprocess.run(
                ["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True, timeout=10
            ).stdout.strip()
            or None
        )
    except (OSError, subprocess.SubprocessError):
        commit = None
    return {
        "python": platform.python_version(),
        "numpy": np.__version__,
        "scipy": scipy.__version__,
        "numba": numba.__version__,
        "cascading_bandits": cb,
        "git_commit": commit,
    }


def summarise(units: dict) -> dict:
    """Per bound and n: the unit with the largest re-measured ratio, and the verdict over all
    the units of that (bound, n) (violated if any is, then undecided, then no violation)."""
    out: dict = {}
    for u in units.values():
        out.setdefault(u["bound"], {}).setdefault(str(u["n"]), []).append(u)
    summary = {}
    for b, per_n in out.items():
        summary[b] = {}
        for n, us in sorted(per_n.items(), key=lambda kv: int(kv[0])):
            top = max(us, key=lambda u: -1.0 if u["best"]["ratio"] is None else u["best"]["ratio"])
            m = top["best"]
            summary[b][n] = {
                "policy": top["policy"],
                "ratio": m["ratio"],
                "ratio_interval_99.9": [m["ratio_lcl"], m["ratio_ucl"]],
                "mean_regret": m["mean_regret"],
                "lcl": m["lcl"],
                "ucl": m["ucl"],
                "bound": m["bound"],
                "ucl_below_bound": None if m["bound"] is None else m["ucl"] < m["bound"],
                "weights": m["weights"],
                "K": m["K"],
                "L": len(m["weights"]),
                "source": m["source"],
                "runs": m["runs"],
                "verdict": max((u["verdict"] for u in us), key=lambda v: _RANK[v]),
                "recheck": None
                if "recheck" not in m
                else {
                    k: m["recheck"][k]
                    for k in (
                        "runs",
                        "mean_regret",
                        "lcl",
                        "ucl",
                        "ratio",
                        "ratio_lcl",
                        "ratio_ucl",
                        "verdict",
                    )
                },
                "units": sorted(unit_key(u["bound"], u["n"], u["K"], u["L"]) for u in us),
            }
    return summary


def load_doc(path: Path, root: int) -> dict:
    if path.exists():
        doc = json.loads(path.read_text(encoding="utf-8"))
        if doc.get("format") != FORMAT or "units" not in doc:
            raise ValueError(f"{path}: not a falsification document of format {FORMAT}")
        if doc.get("seed") != root:
            raise ValueError(
                f"{path} was computed with root seed {doc.get('seed')}, not {root}: choose "
                "another --out (units of two seeds are not mixed)"
            )
        return doc
    return {
        "_doc": "Falsification campaign of the registered upper bounds with a constant "
        "(benchmarks/falsify_bounds.py; docs/falsification.md). 'summary': per bound and n, "
        "the largest re-measured ratio mean regret / bound over the units of that (bound, n), "
        "its one-sided 99.9% Student-t limits divided by the bound, the instance and the "
        "verdict (violated: LCL > bound; no violation found: UCL < bound; undecided otherwise). "
        "'units': every (bound, n, K, L) searched, with its pinned candidates, search settings "
        "and command, re-measurements and re-checks. 'invocations': provenance of each run.",
        "format": FORMAT,
        "seed": root,
        "confidence_one_sided": CONFIDENCE,
        "invocations": [],
        "units": {},
        "summary": {},
    }


def write_json(path: Path, doc: dict, indent: int = 1) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(json.dumps(doc, indent=indent, allow_nan=False) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def update_tightest(path: Path, doc: dict, out_path: Path) -> dict:
    """For every bound in ``doc``, its unit of largest re-measured ratio over all n, written
    into ``path`` (its '_doc' and other keys kept)."""
    data = (
        json.loads(path.read_text(encoding="utf-8"))
        if path.exists()
        else {
            "_doc": "Tightest instance per registered bound, read by verify.claims_bounds. Format: "
            '{bound name: {"weights": [...], "K": k, "n": horizon, "ratio": r, '
            '"source": "..."}}. Keys starting with \'_\' are comments.'
        }
    )
    best: dict = {}
    for u in doc["units"].values():
        r = u["best"]["ratio"]
        if r is None:
            continue
        if u["bound"] not in best or r > best[u["bound"]]["best"]["ratio"]:
            best[u["bound"]] = u
    try:
        out_rel = out_path.resolve().relative_to(ROOT)
    except ValueError:
        out_rel = out_path
    for b, u in best.items():
        m = u["best"]
        data[b] = {
            "weights": m["weights"],
            "K": m["K"],
            "n": m["n"],
            "ratio": m["ratio"],
            "source": f"python benchmarks/falsify_bounds.py --bounds {b} --horizons {m['n']} "
            f"--plan {u['K']}:{u['L']} --seed {doc['seed']} --out {out_rel} "
            f"(unit {unit_key(b, u['n'], u['K'], u['L'])}, {m['source']}; "
            f"search: {u['search']['command']})",
        }
    write_json(path, data, indent=2)  # the file's own layout
    return data


# ---------------------------------------------------------------------------------------
# command line
# ---------------------------------------------------------------------------------------
def _int_list(text):
    return [int(float(x)) for x in text.split(",") if x.strip()]


def _plan(text):
    out = []
    for part in text.split(","):
        k, l_ = part.split(":")
        out.append((int(k), int(l_)))
    return out


def parse_args(argv=None):
    p = argparse.ArgumentParser(
        description=__doc__.split("\n", 1)[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=__doc__.split("\n", 2)[2],
    )
    p.add_argument(
        "--bounds",
        default=None,
        help="comma-separated bound names (default: every registered upper bound "
        "with a constant, read at run time)",
    )
    p.add_argument("--horizons", type=_int_list, default=list(DEFAULT_HORIZONS))
    p.add_argument(
        "--plan",
        type=_plan,
        default=list(DEFAULT_PLAN),
        help="K:L pairs, comma-separated (default 2:6,3:6,4:8)",
    )
    p.add_argument(
        "--budget",
        type=float,
        default=1150.0,
        help="CPU seconds for the units this invocation computes (default 1150)",
    )
    p.add_argument(
        "--max-candidates",
        type=int,
        default=3000,
        help="cap on a search's candidates (what a unit leaves goes to the next)",
    )
    p.add_argument(
        "--confirm-runs",
        type=int,
        default=None,
        help="fresh runs per re-measurement (default 200 for n <= 1000, else 100)",
    )
    p.add_argument("--recheck-factor", type=int, default=4)
    p.add_argument("--seed", type=int, default=0, help="root seed (default 0)")
    p.add_argument("--out", required=True, help="the JSON document (read, then rewritten)")
    p.add_argument(
        "--tightest",
        default=str(ROOT / "verify" / "data" / "tightest_instances.json"),
        help="file of tightest instances to fill ('' for none)",
    )
    p.add_argument("--force", action="store_true", help="recompute units already stored")
    p.add_argument(
        "--markdown",
        action="store_true",
        help="print the stored document's summary as a Markdown table and exit",
    )
    return p.parse_args(argv)


def _g(x, digits=3):
    return "n/a" if x is None else f"{x:.{digits}g}"


def markdown_table(doc: dict) -> str:
    """The summary (per bound and n) as a Markdown table, bounds in the document's order."""
    lines = [
        "| bound | n | best ratio (99.9% limits) | mean regret (LCL, UCL) | bound at n | K, L "
        "| weights | found by | verdict |",
        "| :--- | ---: | :--- | :--- | ---: | :--- | :--- | :--- | :--- |",
    ]
    for b, per_n in doc["summary"].items():
        for n, s in per_n.items():
            lo, hi = s["ratio_interval_99.9"]
            rat = "n/a" if s["ratio"] is None else f"{s['ratio']:.4f} ({lo:.4f} to {hi:.4f})"
            reg = f"{_g(s['mean_regret'], 4)} ({_g(s['lcl'], 4)}, {_g(s['ucl'], 4)})"
            w = ", ".join(f"{x:.3g}" for x in s["weights"])
            src = s["source"].replace("pinned: ", "pinned ")
            v = s["verdict"]
            if s.get("recheck"):
                v += f" (re-check, {s['recheck']['runs']} runs: {s['recheck']['verdict']})"
            lines.append(
                f"| {b} | {int(n):g} | {rat} | {reg} | {_g(s['bound'], 4)} | {s['K']}, {s['L']} "
                f"| {w} | {src} | {v} |"
            )
    return "\n".join(lines)


HEADER = (
    f"{'bound':<18} {'n':>6} {'K':>2} {'L':>2} {'cands':>5} {'search':>7} "
    f"{'ratio [99.9% limits]':>25} {'mean R':>9} {'UCL':>9} {'bound':>10} "
    f"{'verdict':<19} {'cpu s':>6}  from"
)


def row(u) -> str:
    m = u["best"]
    if m["ratio"] is None:
        rat = "n/a"
    else:
        rat = f"{m['ratio']:.4f} [{m['ratio_lcl']:.4f}, {m['ratio_ucl']:.4f}]"
    bnd = "inf" if m["bound"] is None else f"{m['bound']:.4g}"
    return (
        f"{u['bound']:<18} {u['n']:>6} {u['K']:>2} {u['L']:>2} "
        f"{u['search']['candidates']:>5} {u['search']['search_value']:>7.4f} {rat:>25} "
        f"{m['mean_regret']:>9.4g} {m['ucl']:>9.4g} {bnd:>10} {u['verdict']:<19} "
        f"{u['cpu_s']:>6.1f}  {m['source']}"
    )


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.markdown:
        print(markdown_table(json.loads(Path(args.out).read_text(encoding="utf-8"))))
        return 0
    from cascading_bandits.bounds.registry import bound_names
    from cascading_bandits.simulate.search import bound_policy

    registered = bound_names("upper", "constant")
    if args.bounds is None:
        names = list(registered)
    else:
        names = [b.strip() for b in args.bounds.split(",") if b.strip()]
        unknown = [b for b in names if b not in registered]
        if unknown:
            raise SystemExit(
                f"not registered upper bounds with a constant: {unknown}; "
                f"registered: {', '.join(registered)}"
            )
    runnable = []
    for b in names:
        try:
            bound_policy(b)
            runnable.append(b)
        except ValueError as e:
            print(f"skipped {b}: {e}")
    for K, L in args.plan:
        if not 1 <= K < L:
            raise SystemExit(f"--plan: need 1 <= K < L, got {K}:{L}")
    out = Path(args.out)
    doc = load_doc(out, args.seed)
    todo = [(b, n, K, L) for b in runnable for n in args.horizons for K, L in args.plan]
    pending = [u for u in todo if args.force or unit_key(*u) not in doc["units"]]
    inv = {
        "command": "python "
        + " ".join(
            shlex.quote(a)
            for a in [os.path.relpath(__file__, Path.cwd())]
            + list(sys.argv[1:] if argv is None else argv)
        ),
        "started": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        "budget_cpu_s": args.budget,
        "max_candidates": args.max_candidates,
        "plan": [list(x) for x in args.plan],
        "horizons": list(args.horizons),
        "bounds": runnable,
        "units_computed": [],
        "versions": versions(),
    }
    doc["invocations"].append(inv)
    if pending:  # numba's kernels and each bound's first evaluation, outside the budget
        w0 = time.process_time()
        for b in sorted({b for b, *_ in pending}):
            regret_runs(
                (0.6, 0.4, 0.2, 0.1),
                2,
                bound_policy(b),
                10,
                *fresh_keys(np.random.SeedSequence(0), 2),
            )
            bound_value(b, (0.6, 0.4, 0.2, 0.1), 2, 1000)
        inv["warmup_cpu_s"] = time.process_time() - w0
    print(
        f"{len(todo)} units, {len(todo) - len(pending)} already stored, {len(pending)} to "
        f"compute with {args.budget:.0f} CPU s (bounds: {', '.join(runnable)})"
    )
    print(HEADER, flush=True)
    spent = 0.0
    for b, n, K, L in todo:
        key = unit_key(b, n, K, L)
        if (b, n, K, L) not in pending:
            print(row(doc["units"][key]) + "  (stored)", flush=True)
            continue
        left_units = len(pending) - pending.index((b, n, K, L))
        alloc = max(0.0, (args.budget - spent) / left_units)
        cr = args.confirm_runs or default_confirm_runs(n)
        u = run_unit(
            b,
            n,
            K,
            L,
            root=args.seed,
            alloc=alloc,
            max_candidates=args.max_candidates,
            confirm_runs=cr,
            recheck_factor=args.recheck_factor,
        )
        u["invocation"] = len(doc["invocations"]) - 1
        spent += u["cpu_s"]
        doc["units"][key] = u
        inv["units_computed"].append(key)
        inv["cpu_s"] = spent
        doc["summary"] = summarise(doc["units"])
        write_json(out, doc)
        print(row(u), flush=True)
        if u["verdict"] == VIOLATED:
            print(f"  *** {b} VIOLATED at n = {n}: {u['best']['weights']}, K = {K}", flush=True)
    inv["cpu_s"] = spent
    doc["summary"] = summarise(doc["units"])
    # the small-t check of each bound at its smallest horizon <= 100 (once per bound)
    checks = doc.setdefault("small_t_checks", {})
    for b in runnable:
        small = [int(n) for n in doc["summary"].get(b, {}) if int(n) <= 100]
        if not small or (b in checks and not args.force):
            continue
        entry = doc["summary"][b][str(min(small))]
        checks[b] = small_t_check(b, {**entry, "n": min(small)}, args.seed)
        inv["small_t_cpu_s"] = inv.get("small_t_cpu_s", 0.0) + checks[b]["cpu_s"]
        c = checks[b]
        print(
            f"small-t check {b}: n = "
            + ", ".join(f"{r['n']}" for r in c["checkpoints"])
            + f" ({c['runs']} runs): {c['verdict']}; largest UCL / bound: "
            + f"{max(r['ucl'] / r['bound'] if r['bound'] else 0.0 for r in c['checkpoints']):.3g}",
            flush=True,
        )
    write_json(out, doc)
    if args.tightest:
        update_tightest(Path(args.tightest), doc, out)
    print(f"\nper bound and n (CPU spent now: {spent:.0f} s of {args.budget:.0f})")
    for b, per_n in doc["summary"].items():
        for n, s in per_n.items():
            rat = (
                "n/a"
                if s["ratio"] is None
                else (
                    f"{s['ratio']:.4f} [{s['ratio_interval_99.9'][0]:.4f}, "
                    f"{s['ratio_interval_99.9'][1]:.4f}]"
                )
            )
            print(f"{b:<18} n={n:>6} K={s['K']} L={s['L']}  {rat}  {s['verdict']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
