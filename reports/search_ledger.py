"""The ledger of bounds on the instances a search found, beside the regret measured there.

A stored search (``cascading search --out DIR`` writes ``DIR/search.json``; the project's
own are ``docs/search/*.json``) holds, for every instance it found, the weights, K, and the
mean regret of each policy on fresh confirmation runs at the confirmation horizon n. Here
every bound of :func:`cascading_bandits.bounds.later.ledger` (every registered bound that
applies) is evaluated on each such instance at that n, and set against the measured regret
of the policy it is about, as the bound registry declares it:

* a bound that covers a searched policy at that policy's parameter values
  (:meth:`bounds.registry.Bound.covers_policy`; a spec's omitted parameters take their
  defaults) against that policy: Theorem 2 and the bounds on CascadeUCB1 with alpha = 1.5
  against ``cascade-ucb1``, Theorem 3 and those on CascadeKL-UCB with c = 3 against
  ``cascade-klucb``; another parameter value is not covered, so it gets no ratio;
* a lower bound for every consistent (uniformly good, or any) policy against
  ``cascade-klucb`` if the search measured it, else ``cascade-ucb1``: as in the Table 1
  ledger, the best of the paper's policies measured;
* any other row (a policy the search did not run) has no measured policy and no ratio.

The ratio is ``empirical / bound``, the mean regret over the bound's value; its interval is
the mean's Student-t interval (the search's ``confidence``) over the same value (the bound
is a number, not an estimate). Searches written before ``regret_ci`` was stored carry the
interval of their objective only: for a ``regret`` search that is the mean regret's
interval, for a ``bound`` search the objective's interval times the bound; a ``ratio``
search of that age has no per-policy interval (None).
"""

from __future__ import annotations

import json
import math
import numbers
from pathlib import Path

__all__ = [
    "read_search",
    "found_instances",
    "ledger_on_instance",
    "weights_text",
    "LOWER_COMPARED_WITH",
]

#: policies a lower bound for every consistent policy is compared with, first measured wins
LOWER_COMPARED_WITH = ("cascade-klucb", "cascade-ucb1")
_OBJECTIVES = ("ratio", "bound", "regret")


def _fail(where, what):
    raise ValueError(f"{where}: {what}")


def _number(where, x, name, *, low=None, high=None, integer=False):
    if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x):
        _fail(where, f"{name} must be a finite number, got {x!r}")
    if integer and x != int(x):
        _fail(where, f"{name} must be an integer, got {x!r}")
    if (low is not None and x < low) or (high is not None and x > high):
        _fail(where, f"{name} must lie in [{low}, {high}], got {x!r}")
    return int(x) if integer else float(x)


def _check_result(where, r):
    if not isinstance(r, dict):
        _fail(where, f"a result must be an object, got {type(r).__name__}")
    missing = [
        k
        for k in ("weights", "K", "objective", "policies", "mean_regret", "settings")
        if k not in r
    ]
    if missing:
        _fail(where, f"missing {', '.join(missing)} (not a result of cascading search)")
    w = r["weights"]
    if not isinstance(w, list) or len(w) < 2:
        _fail(where, "weights must be a list of at least two numbers")
    for x in w:
        _number(where, x, "weights", low=0.0, high=1.0)
    _number(where, r["K"], "K", low=1, high=len(w), integer=True)
    if r["objective"] not in _OBJECTIVES:
        _fail(where, f"objective must be one of {', '.join(_OBJECTIVES)}, got {r['objective']!r}")
    pols = r["policies"]
    if not isinstance(pols, list) or not pols or not all(isinstance(p, str) for p in pols):
        _fail(where, "policies must be a non-empty list of policy specs")
    mr = r["mean_regret"]
    if not isinstance(mr, dict) or set(mr) != set(pols):
        _fail(where, f"mean_regret must hold one mean per policy {pols}")
    for p in pols:
        _number(where, mr[p], f"mean_regret[{p!r}]")
    st = r["settings"]
    if not isinstance(st, dict):
        _fail(where, "settings must be an object")
    for k in ("confirm_horizon", "confirm_runs"):
        if k not in st:
            _fail(where, f"settings.{k} is missing")
        _number(where, st[k], f"settings.{k}", low=1, integer=True)
    if "confidence" in st:
        _number(where, st["confidence"], "settings.confidence", low=0.0, high=1.0)
    ci = r.get("regret_ci")
    if ci is not None:
        if not isinstance(ci, dict) or set(ci) != set(pols):
            _fail(where, f"regret_ci must hold one interval per policy {pols}")
        for p in pols:
            if not isinstance(ci[p], list) or len(ci[p]) != 2:
                _fail(where, f"regret_ci[{p!r}] must be [low, high]")
            for x in ci[p]:
                _number(where, x, f"regret_ci[{p!r}]")


def read_search(path) -> dict:
    """A stored search (``cascading search --out``'s ``search.json``), checked.

    Parameters
    ----------
    path : str or Path
        A JSON file holding ``{"results": [...]}``, each result as
        :meth:`cascading_bandits.simulate.search.SearchResult.to_dict` writes it.

    Returns
    -------
    dict
        The document as stored.

    Raises
    ------
    ValueError
        Naming the file, if it cannot be read, is not JSON, or a result lacks what the
        ledger needs (weights in [0, 1], K, objective, policies, their mean regret, the
        confirmation horizon and runs).
    """
    if not isinstance(path, (str, Path)) or not str(path).strip():
        raise ValueError(f"path must name a search JSON file, got {path!r}")
    try:
        p = Path(path).expanduser()
    except RuntimeError:  # ~user of an unknown user
        raise ValueError(f"path {path!r}: cannot expand its ~ (no such user)") from None
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as e:
        raise ValueError(f"{p}: cannot read the search file ({e.strerror or e})") from None
    try:
        doc = json.loads(text)
    except ValueError as e:
        raise ValueError(f"{p}: not JSON ({e})") from None
    except RecursionError:  # json recurses once per level of nesting
        raise ValueError(f"{p}: not a search result (JSON nested too deeply to read)") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("results"), list):
        raise ValueError(f"{p}: not a search result (no 'results' list); see cascading search")
    if not doc["results"]:
        raise ValueError(f"{p}: the search holds no results")
    for i, r in enumerate(doc["results"]):
        _check_result(f"{p}: results[{i}]", r)
    return doc


def _intervals(r) -> dict:
    """Policy -> (low, high) of the mean regret on the confirmation runs, or None."""
    ci = r.get("regret_ci")
    if ci:
        return {p: (float(ci[p][0]), float(ci[p][1])) for p in r["policies"]}
    out = {p: None for p in r["policies"]}
    lo, hi = r.get("ci_low"), r.get("ci_high")
    if lo is None or hi is None:
        return out
    if r["objective"] == "regret":
        out[r["policies"][0]] = (float(lo), float(hi))
    elif r["objective"] == "bound":
        b = r.get("bound")
        if b is not None and math.isfinite(b) and b > 0:
            out[r["policies"][0]] = (float(lo) * b, float(hi) * b)
    return out


def _policy_values(policy: str) -> tuple[str, dict]:
    """A policy spec's registered name and its parameter values, defaults filled in (what
    :meth:`bounds.registry.Bound.covers_policy` reads)."""
    from cascading_bandits.simulate.policies import parse_policy

    spec = parse_policy(policy)
    return spec.name, spec.params


def _bound_name(r) -> str | None:
    """The bound a ``bound`` search used: recorded, or (older files, written before the name
    was stored) the policy's default then: the first registered upper bound with a constant
    that covers it, i.e. the paper's theorem (catalog_paper is registered first)."""
    if r["objective"] != "bound":
        return None
    if r.get("bound_name"):
        return r["bound_name"]
    from cascading_bandits.bounds.registry import bounds_for_policy

    found = bounds_for_policy(*_policy_values(r["policies"][0]), kind="upper", form="constant")
    return found[0].name if found else None


def found_instances(doc, name: str = "search") -> list[dict]:
    """The instances of a stored search, with the regret measured on each.

    Parameters
    ----------
    doc : dict
        A search document (:func:`read_search`).
    name : str
        What to call the search in the rows (its directory or file stem).

    Returns
    -------
    list of dict, one per result, with keys ``search``, ``index`` (position in the file),
    ``objective``, ``policies``, ``bound_name`` (``bound`` searches, else None), ``weights``
    (list, decreasing as stored), ``K``, ``L``, ``n`` (the confirmation horizon), ``runs``
    (confirmation runs), ``confidence`` and ``regret``: policy -> ``{"mean", "ci_low",
    "ci_high"}`` (the interval None where the file does not hold it; module docstring).
    """
    if not isinstance(doc, dict) or not isinstance(doc.get("results"), list):
        raise ValueError("doc must be a search document with a 'results' list (read_search)")
    if not isinstance(name, str) or not name:
        raise ValueError(f"name must be a non-empty string, got {name!r}")
    out = []
    for i, r in enumerate(doc["results"]):
        _check_result(f"{name}: results[{i}]", r)
        cis = _intervals(r)
        st = r["settings"]
        out.append(
            {
                "search": name,
                "index": i,
                "objective": r["objective"],
                "policies": list(r["policies"]),
                "bound_name": _bound_name(r),
                "weights": [float(x) for x in r["weights"]],
                "K": int(r["K"]),
                "L": len(r["weights"]),
                "n": int(st["confirm_horizon"]),
                "runs": int(st["confirm_runs"]),
                "confidence": float(st.get("confidence", 0.95)),
                "regret": {
                    p: {
                        "mean": float(r["mean_regret"][p]),
                        "ci_low": None if cis[p] is None else cis[p][0],
                        "ci_high": None if cis[p] is None else cis[p][1],
                    }
                    for p in r["policies"]
                },
            }
        )
    return out


def _row_bound(row):
    """The registered bound of a ledger row (by its name, else its title), or None."""
    from cascading_bandits.bounds.registry import all_bounds, get_bound

    if row.get("bound"):
        try:
            return get_bound(row["bound"])
        except ValueError:
            return None
    return next((b for b in all_bounds() if b.title == row.get("name")), None)


def _measured(row, policies) -> str | None:
    """The searched policy (as written in the search) a ledger row is compared with: the
    first one the row's bound covers at its parameter values; for a bound about every policy,
    the first of :data:`LOWER_COMPARED_WITH` (at its default parameters) the search ran."""
    from cascading_bandits.bounds.registry import ANY_POLICY
    from cascading_bandits.simulate.policies import parse_policy

    b = _row_bound(row)
    if b is None:
        return None
    if b.covers == ANY_POLICY:
        canon = {}
        for p in policies:
            canon.setdefault(parse_policy(p).text, p)
        return next((canon[c] for c in LOWER_COMPARED_WITH if c in canon), None)
    return next((p for p in policies if b.covers_policy(*_policy_values(p))), None)


def ledger_on_instance(found: dict, rows=None) -> list[dict]:
    """Every ledger row on one found instance, with the regret measured there and the ratio.

    Parameters
    ----------
    found : dict
        One entry of :func:`found_instances`.
    rows : list of dict, optional
        :func:`bounds.later.ledger` of the instance at ``found["n"]`` (computed if None; the
        report passes cached rows).

    Returns
    -------
    list of dict: the ledger row's keys, the instance's (``search``, ``index``,
    ``objective``, ``bound_name``, ``policies``, ``weights``, ``K``, ``L``, ``n``, ``runs``,
    ``confidence``), and ``measured`` (the policy compared with, or None), ``empirical``,
    ``empirical_low``, ``empirical_high`` (its mean regret and interval), ``ratio``,
    ``ratio_low``, ``ratio_high`` (empirical / bound and the interval over the bound; None
    without a measured policy or a positive bound).
    """
    from cascading_bandits.bounds.instance import CascadeInstance
    from cascading_bandits.bounds.later import ledger

    if not isinstance(found, dict) or "regret" not in found:
        raise ValueError("found must be an entry of found_instances")
    if rows is None:
        rows = ledger(CascadeInstance(tuple(found["weights"]), found["K"]), found["n"])
    head = {k: found[k] for k in ("search", "index", "objective", "bound_name", "policies")}
    head.update({k: found[k] for k in ("weights", "K", "L", "n", "runs", "confidence")})
    out = []
    for r in rows:
        which = _measured(r, found["policies"])
        emp = found["regret"][which] if which is not None else None
        mean = None if emp is None else emp["mean"]
        lo = None if emp is None else emp["ci_low"]
        hi = None if emp is None else emp["ci_high"]
        v = r["value"]
        ok = mean is not None and v > 0

        def over(x, ok=ok, v=v):
            return x / v if ok and x is not None else None

        out.append(
            {
                **head,
                **r,
                "measured": which,
                "empirical": mean,
                "empirical_low": lo,
                "empirical_high": hi,
                "ratio": over(mean),
                "ratio_low": over(lo),
                "ratio_high": over(hi),
            }
        )
    return out


def weights_text(w, times: str = "×") -> str:
    """Weights to 3 significant digits, equal neighbours folded: ``0.065 ×2, 0.001 ×4``.

    Parameters
    ----------
    w : sequence of float
        Attraction probabilities (as a search stores them, decreasing).
    times : str
        The sign before a count (``"x"`` for plain ASCII text).
    """
    if isinstance(w, (str, bytes)) or not hasattr(w, "__iter__"):
        raise ValueError(f"w must be a sequence of weights, got {w!r}")
    w = list(w)
    if any(isinstance(v, bool) or not isinstance(v, numbers.Real) for v in w):
        raise ValueError(f"w must hold numbers, got {w!r}")
    if not isinstance(times, str):
        raise ValueError(f"times must be a string, got {times!r}")
    parts = []
    for x in (f"{float(v):.3g}" for v in w):
        if parts and parts[-1][0] == x:
            parts[-1][1] += 1
        else:
            parts.append([x, 1])
    return ", ".join(x if c == 1 else f"{x} {times}{c}" for x, c in parts)
