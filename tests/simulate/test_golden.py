"""Golden values: a few cells' regret and counts at full precision for a fixed seed.

Any change of the numbers the engine produces for a given cell and seed (a policy's rule, the
random-number counters, the order of floating-point operations) must come with a new
``simulate.engine.ENGINE_VERSION`` (stored results of another version are not resumed). These
values make such a change visible: they are stored per ENGINE_VERSION in
``golden_engine.json`` beside this file, and compared bit for bit.

To regenerate after a deliberate change (bump ENGINE_VERSION first)::

    python tests/simulate/test_golden.py --write

which adds (or replaces) the entry of the current ENGINE_VERSION and keeps the others;
``--only uniform-random,cascade-egreedy`` recomputes only those policies' cells (the others
are kept from the newest stored entry), ``--version V`` writes the entry of V.

Besides the cells (:func:`golden_cells`, run by :func:`simulate.runner.run_cell`), a DBN case
with a satisfaction probability per item and ``gamma`` different from every ``nu``
(:func:`item_nu_runs`; a :class:`simulate.experiments.Cell` holds one ``nu``) is run by
:func:`simulate.engine.simulate_runs` on the keys ``run_cell`` derives from the same seed.
Every DBN entry is also held to the plain reference (tests/simulate/reference): the stored
numbers are the reference's, not only the engine's.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest
from dbn_item_nu import GAMMA, ITEM_NU_16

from cascading_bandits.bounds.instance import b_lb
from cascading_bandits.simulate.engine import ENGINE_VERSION, simulate_runs
from cascading_bandits.simulate.experiments import b_lb_cell
from cascading_bandits.simulate.models import make_model
from cascading_bandits.simulate.policies import parse_policy
from cascading_bandits.simulate.rng import policy_keys, users_keys
from cascading_bandits.simulate.runner import run_cell

GOLDEN_PATH = Path(__file__).resolve().parent / "golden_engine.json"
SEED = 20150706
CHECKPOINTS = np.array([1, 10, 100, 1000, 3000])
REGENERATE = "python tests/simulate/test_golden.py --write"


def golden_cells():
    """The cells pinned: every learner of the paper and of the extras, cascade and DBN."""
    kw = {"horizon": 3000, "runs": 2}
    dbn = {"model": "dbn", "nu": 0.7, "gamma": 0.7}
    return [
        b_lb_cell("golden", 16, 4, 0.2, 0.15, "cascade-ucb1", **kw),
        b_lb_cell("golden", 16, 4, 0.2, 0.15, "cascade-klucb", **kw),
        b_lb_cell("golden", 16, 4, 0.2, 0.15, "cascade-klucb", "worst-first", **kw),
        b_lb_cell("golden", 16, 4, 0.2, 0.15, "cascade-ts", **kw),
        b_lb_cell("golden", 16, 4, 0.2, 0.15, "cascade-klucb", **dbn, **kw),
        b_lb_cell("golden", 16, 4, 0.2, 0.15, "ranked-klucb", **dbn, **kw),
        b_lb_cell("golden", 8, 2, 0.2, 0.1, "uniform-random", "worst-first", **kw),
        # the greedy list over the states and the O(K) random list (engine version 5)
        b_lb_cell("golden", 160, 3, 0.2, 0.15, "cascade-egreedy(eps=0.2)", horizon=3000, runs=1),
        # inversion draws and the lazy selection (L >= INVERSION_MIN_L; engine version 3)
        b_lb_cell("golden", 160, 3, 0.2, 0.15, "cascade-ts", horizon=3000, runs=1),
    ]


def item_nu_runs():
    """The per-item-nu DBN entries: ``(entry id, params)``, B_LB(16, 4, 0.2, 0.15) with
    ``nu = ITEM_NU_16`` and ``gamma = GAMMA``, for the DBN experiment's two learners and
    CascadeTS (params with the keys of ``Cell.params``; ``nu`` a list of 16)."""
    weights = [float(x) for x in b_lb(16, 4, 0.2, 0.15).weights]
    out = []
    for policy in ("cascade-klucb", "ranked-klucb", "cascade-ts"):
        spec = parse_policy(policy).text
        cid = f"L16-K4-p0.2-d0.15-nuitem-g{GAMMA:g}-{spec}-best-first"
        params = {
            "experiment": "golden",
            "cell_id": cid,
            "model": "dbn",
            "weights": weights,
            "K": 4,
            "L": 16,
            "policy": spec,
            "order": "best-first",
            "horizon": 3000,
            "runs": 2,
            "nu": list(ITEM_NU_16),
            "gamma": GAMMA,
            "p": 0.2,
            "delta": 0.15,
        }
        out.append((cid, params))
    return out


def run_keys(params):
    """(users' keys, policy keys) of ``params``' runs, as run_cell derives them from SEED."""
    ss = np.random.SeedSequence(SEED)
    return users_keys(ss, params["weights"], params["runs"]), policy_keys(ss, params["runs"])


def run_item_nu(params):
    """(regret (runs, m), counts (runs, L)) of an :func:`item_nu_runs` entry by the engine."""
    m = make_model("dbn", params["weights"], params["K"], params["nu"], params["gamma"])
    uk, pk = run_keys(params)
    return simulate_runs(
        m, params["policy"], params["order"], params["horizon"], uk, pk, CHECKPOINTS,
        threads=1, lazy=True,
    )  # fmt: skip


def compute() -> dict:
    """The golden entry of the current engine: cell id -> params, regret, counts."""
    out = {}
    for cid, params in item_nu_runs():
        regret, counts = run_item_nu(params)
        out[cid] = {
            "params": params,
            "checkpoints": [int(x) for x in CHECKPOINTS],
            "regret": [[float(x) for x in row] for row in regret],
            "counts": [[int(x) for x in row] for row in counts],
        }
    for cell in golden_cells():
        # the lazy kernels (a cold cache would let the engine run the plain loops, which
        # the equivalence tests hold to the lazy ones)
        res = run_cell(cell, SEED, threads=1, checkpoints=CHECKPOINTS, lazy=True)
        out[cell.cell_id] = {
            "params": cell.params,
            "checkpoints": [int(x) for x in res.checkpoints],
            "regret": [[float(x) for x in row] for row in res.regret],
            "counts": [[int(x) for x in row] for row in res.counts],
        }
    return out


def _load() -> dict:
    with open(GOLDEN_PATH, encoding="utf-8") as fh:
        return json.load(fh)


def test_golden_values_of_this_engine_version():
    stored = _load()
    assert stored["seed"] == SEED
    versions = stored["engine_versions"]
    assert str(ENGINE_VERSION) in versions, (
        f"no golden values for ENGINE_VERSION {ENGINE_VERSION} (have {sorted(versions)}). "
        f"If the engine's numbers changed on purpose, regenerate with: {REGENERATE}"
    )
    want = versions[str(ENGINE_VERSION)]
    got = compute()
    assert sorted(got) == sorted(want), f"the pinned cells changed; regenerate with {REGENERATE}"
    for cid, g in got.items():
        w = want[cid]
        assert g["params"] == w["params"], cid
        assert g["checkpoints"] == w["checkpoints"], cid
        msg = (
            f"{cid}: the engine's numbers changed at ENGINE_VERSION {ENGINE_VERSION}. "
            f"If that is deliberate, bump ENGINE_VERSION and run {REGENERATE}; otherwise it is "
            "a bug."
        )
        assert g["counts"] == w["counts"], msg
        assert g["regret"] == w["regret"], msg  # bit for bit (JSON floats round-trip exactly)


def test_older_versions_agree_where_same_numbers_says_so():
    """simulate.engine.same_numbers lets sweeps resume older cells: those must be equal."""
    from cascading_bandits.simulate.engine import same_numbers

    versions = _load()["engine_versions"]
    now = versions[str(ENGINE_VERSION)]
    checked = 0
    for v, entry in versions.items():
        for cid, old in entry.items():
            if cid in now and same_numbers(int(v), old["params"]["policy"], old["params"]["L"]):
                assert old == now[cid], (v, cid)
                checked += 1
    assert checked >= len(now) - 1  # every cell but the new large-L cascade-ts one


def test_golden_values_are_not_trivial():
    """The pinned numbers discriminate: learners differ, regret grows, counts add up."""
    want = _load()["engine_versions"][str(ENGINE_VERSION)]
    finals = {cid: tuple(r[-1] for r in v["regret"]) for cid, v in want.items()}
    assert len(set(finals.values())) == len(finals)  # no two cells alike
    for cid, v in want.items():
        for row in v["regret"]:
            assert row[-1] > 0 and all(b >= a for a, b in zip(row, row[1:], strict=False)), cid
        K, n = v["params"]["K"], v["params"]["horizon"]
        for row in v["counts"]:
            assert len(row) == v["params"]["L"] and sum(row) <= v["params"]["L"] + K * n


def _dbn_entries():
    # empty before the entry of this version is written (the golden test then fails)
    want = _load()["engine_versions"].get(str(ENGINE_VERSION), {})
    return {cid: v for cid, v in want.items() if v["params"]["model"] == "dbn"}


def test_golden_has_a_dbn_case_with_nu_per_item_and_apart_from_gamma():
    entries = _dbn_entries()
    item = [v["params"] for v in entries.values() if isinstance(v["params"]["nu"], list)]
    assert {p["policy"] for p in item} >= {"cascade-klucb", "ranked-klucb", "cascade-ts"}
    for p in item:
        assert len(set(p["nu"])) == p["L"] and p["gamma"] not in p["nu"]


def test_run_keys_are_run_cells():
    """run_item_nu derives the keys as run_cell does: a scalar-nu DBN cell gives the same
    numbers through both paths."""
    cell = b_lb_cell(
        "golden", 16, 4, 0.2, 0.15, "cascade-ucb1", model="dbn", nu=0.9, gamma=0.6,
        horizon=300, runs=2,
    )  # fmt: skip
    cps = np.array([1, 10, 100, 300])
    res = run_cell(cell, SEED, threads=1, checkpoints=cps, lazy=True)
    params = dict(cell.params, nu=[0.9] * 16)
    m = make_model("dbn", params["weights"], 4, params["nu"], 0.6)
    uk, pk = run_keys(params)
    regret, counts = simulate_runs(
        m, cell.policy, cell.order, 300, uk, pk, cps, threads=1, lazy=True
    )
    np.testing.assert_array_equal(regret, res.regret)
    np.testing.assert_array_equal(counts, res.counts)


def _reference_check(cid, entry, horizon):
    """The stored entry against the reference's runs up to ``horizon`` (bit for bit)."""
    from dbn_item_nu import import_references, per_item_nu
    from reference import reference_run

    p = entry["params"]
    cps = [c for c in entry["checkpoints"] if c <= horizon]
    uk, pk = run_keys(p)
    import_references()
    for r in range(p["runs"]):
        with per_item_nu():
            _, _, regret, counts = reference_run(
                p["model"], p["weights"], p["K"], p["policy"], p["order"], horizon, uk[r],
                pk[r], p["nu"], p["gamma"],
            )  # fmt: skip
        assert [regret[c - 1] for c in cps] == entry["regret"][r][: len(cps)], (cid, r)
        if horizon == p["horizon"]:
            assert list(counts) == entry["counts"][r], (cid, r)


@pytest.mark.parametrize("cid", sorted(_dbn_entries()) if GOLDEN_PATH.exists() else [])
def test_dbn_golden_values_are_the_references_early_steps(cid):
    """The stored DBN numbers up to n = 100 are the reference's (a few hundred steps)."""
    _reference_check(cid, _dbn_entries()[cid], 100)


@pytest.mark.slow
@pytest.mark.parametrize("cid", sorted(_dbn_entries()) if GOLDEN_PATH.exists() else [])
def test_dbn_golden_values_are_the_references(cid):
    """Every stored DBN number (regret at each checkpoint, final counts) is the reference's
    (slow: the KL-UCB reference takes seconds per run)."""
    _reference_check(cid, _dbn_entries()[cid], _dbn_entries()[cid]["params"]["horizon"])


def _write(only=None, version=None):
    """Store the golden entry of ``version`` (default: ENGINE_VERSION).

    ``only`` (policy names): recompute only the cells of those policies (and add the cells
    of :func:`golden_cells` the entry lacks), keeping the other cells of the entry of
    ``version`` if it is stored, else of the newest stored version: a change of some
    policies' numbers leaves the other pinned numbers as they were.
    """
    version = str(ENGINE_VERSION if version is None else version)
    data = _load() if GOLDEN_PATH.exists() else {"seed": SEED, "engine_versions": {}}
    if data["seed"] != SEED:
        data = {"seed": SEED, "engine_versions": {}}
    got = compute()
    if only is not None:
        stored = data["engine_versions"]
        base = stored.get(version) or (stored[max(stored, key=int)] if stored else {})
        keep = {
            cid: v
            for cid, v in base.items()
            if cid in got and parse_policy(v["params"]["policy"]).name not in only
        }
        got = {**got, **keep}
    data["engine_versions"][version] = got
    data["regenerate"] = REGENERATE
    tmp = GOLDEN_PATH.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    tmp.replace(GOLDEN_PATH)
    print(f"wrote golden values of engine version {version} to {GOLDEN_PATH}")


def _main(argv):
    import argparse

    p = argparse.ArgumentParser(description="(re)write the golden values", usage=REGENERATE)
    p.add_argument("--write", action="store_true", required=True)
    p.add_argument("--only", default=None, help="comma-separated policy names to recompute")
    p.add_argument("--version", type=int, default=None, help="entry to write (ENGINE_VERSION)")
    a = p.parse_args(argv)
    only = None if a.only is None else {parse_policy(x).name for x in a.only.split(",")}
    _write(only, a.version)


if __name__ == "__main__":
    _main(sys.argv[1:])
