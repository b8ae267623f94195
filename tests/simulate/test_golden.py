"""Golden values: a few cells' regret and counts at full precision for a fixed seed.

Any change of the numbers the engine produces for a given cell and seed (a policy's rule, the
random-number counters, the order of floating-point operations) must come with a new
``simulate.engine.ENGINE_VERSION`` (stored results of another version are not resumed). These
values make such a change visible: they are stored per ENGINE_VERSION in
``golden_engine.json`` beside this file, and compared bit for bit.

To regenerate after a deliberate change (bump ENGINE_VERSION first)::

    python tests/simulate/test_golden.py --write

which adds (or replaces) the entry of the current ENGINE_VERSION and keeps the others.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

from cascading_bandits.simulate.engine import ENGINE_VERSION
from cascading_bandits.simulate.experiments import b_lb_cell
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
        # inversion draws and the lazy selection (L >= INVERSION_MIN_L; engine version 3)
        b_lb_cell("golden", 160, 3, 0.2, 0.15, "cascade-ts", horizon=3000, runs=1),
    ]


def compute() -> dict:
    """The golden entry of the current engine: cell id -> params, regret, counts."""
    out = {}
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


def _write():
    data = _load() if GOLDEN_PATH.exists() else {"seed": SEED, "engine_versions": {}}
    if data["seed"] != SEED:
        data = {"seed": SEED, "engine_versions": {}}
    data["engine_versions"][str(ENGINE_VERSION)] = compute()
    data["regenerate"] = REGENERATE
    tmp = GOLDEN_PATH.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    tmp.replace(GOLDEN_PATH)
    print(f"wrote golden values of ENGINE_VERSION {ENGINE_VERSION} to {GOLDEN_PATH}")


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit(f"usage: {REGENERATE}")
    _write()
