"""benchmarks/falsify_bounds.py on a tiny budget: the document's structure, resumption, the
tightest-instances file, and a planted false bound that the campaign must report violated."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
TINY = [
    "--horizons",
    "50",
    "--plan",
    "2:4",
    "--budget",
    "0.5",
    "--max-candidates",
    "8",
    "--confirm-runs",
    "10",
    "--recheck-factor",
    "2",
]
VERDICTS = {"violated", "undecided", "no violation found", "not applicable"}


@pytest.fixture(scope="module")
def fz():
    spec = importlib.util.spec_from_file_location(
        "falsify_bounds_under_test", ROOT / "benchmarks" / "falsify_bounds.py"
    )
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _run(fz, tmp_path, bound, tightest):
    out = tmp_path / "f.json"
    rc = fz.main(
        ["--bounds", bound, *TINY, "--seed", "3", "--out", str(out), "--tightest", str(tightest)]
    )
    assert rc == 0
    return out, json.loads(out.read_text())


def test_structure_resumption_and_tightest(fz, tmp_path, monkeypatch, capsys):
    tightest = tmp_path / "tightest.json"
    tightest.write_text(
        json.dumps({"_doc": "kept as is", "other-bound": {"weights": [0.5, 0.1], "K": 1}})
    )
    out, doc = _run(fz, tmp_path, "theorem2", tightest)
    key = "theorem2|n=50|K=2|L=4"
    assert doc["format"] == fz.FORMAT and doc["seed"] == 3
    assert list(doc["units"]) == [key]
    u = doc["units"][key]
    assert u["policy"] == "cascade-ucb1" and (u["n"], u["K"], u["L"]) == (50, 2, 4)
    assert u["search"]["candidates"] >= 1 and "cascading search" in u["search"]["command"]
    assert any("skipped" in p or "score" in p for p in u["pinned"])
    # the ties below the optimum are among the pinned candidates and scored (theorem2 allows
    # them); the tie across the boundary is skipped with theorem2's premise
    labels = {p["label"]: p for p in u["pinned"]}
    assert "score" in labels["two-level 0.9 / 0.1 (ties above and below)"]
    assert (
        "unique optimal" in labels["exact tie across the boundary w(K) = w(K+1) = 0.5"]["skipped"]
    )
    s = doc["summary"]["theorem2"]["50"]
    for k in (
        "ratio",
        "ratio_interval_99.9",
        "mean_regret",
        "lcl",
        "ucl",
        "bound",
        "ucl_below_bound",
        "weights",
        "K",
        "source",
        "verdict",
        "runs",
    ):
        assert k in s
    lo, hi = s["ratio_interval_99.9"]
    assert lo <= s["ratio"] <= hi
    assert s["lcl"] <= s["mean_regret"] <= s["ucl"]
    assert np.isclose(s["ratio"], s["mean_regret"] / s["bound"])
    assert s["verdict"] in VERDICTS and s["runs"] == 10
    assert s["verdict"] == "no violation found" and s["ucl_below_bound"]
    # the small-t check: the bound against the regret at the first steps and around n = 48
    st = doc["small_t_checks"]["theorem2"]
    assert [r["n"] for r in st["checkpoints"]] == [1, 2, 3, 5, 10, 20, 30, 47, 48, 50]
    assert st["verdict"] == "no violation found" and st["K"] == s["K"]
    inv = doc["invocations"][0]
    assert inv["units_computed"] == [key] and {"numpy", "scipy", "numba"} <= set(inv["versions"])

    table = fz.markdown_table(doc).splitlines()
    assert len(table) == 3 and table[2].startswith("| theorem2 | 50 |")

    t = json.loads(tightest.read_text())
    assert t["_doc"] == "kept as is" and t["other-bound"] == {"weights": [0.5, 0.1], "K": 1}
    e = t["theorem2"]
    assert e["K"] == 2 and e["n"] == 50 and len(e["weights"]) == 4
    assert np.isclose(e["ratio"], s["ratio"]) and "falsify_bounds.py" in e["source"]

    # resumption: the stored unit is not recomputed
    def boom(*a, **k):
        raise AssertionError("a stored unit was recomputed")

    monkeypatch.setattr(fz, "run_unit", boom)
    capsys.readouterr()
    _, again = _run(fz, tmp_path, "theorem2", tightest)
    assert "(stored)" in capsys.readouterr().out
    assert again["units"] == doc["units"]
    assert len(again["invocations"]) == 2 and again["invocations"][1]["units_computed"] == []
    # another root seed is refused rather than mixed into the same file
    with pytest.raises(ValueError, match="root seed"):
        fz.main(["--bounds", "theorem2", *TINY, "--seed", "4", "--out", str(out), "--tightest", ""])


def test_planted_false_bound_is_violated(fz, tmp_path):
    from cascading_bandits.bounds.registry import Bound, Covers, register_bound, unregister_bound

    name = "toy-false-falsify"
    register_bound(
        Bound(
            name=name,
            title="a false bound planted by a test",
            label="toy",
            kind="upper",
            form="constant",
            gap="free",
            covers=(Covers("cascade-ucb1", alpha=1.5),),
            evaluate=lambda inst, n: 0.001 * np.log(np.asarray(n, dtype=float) + 1.0),
            source="a test",
            rate="0.001 log(n + 1)",
        )
    )
    try:
        _, doc = _run(fz, tmp_path, name, tmp_path / "t.json")
    finally:
        unregister_bound(name)
    s = doc["summary"][name]["50"]
    assert s["verdict"] == "violated"
    assert s["lcl"] > s["bound"] and s["ratio_interval_99.9"][0] > 1
    u = doc["units"][f"{name}|n=50|K=2|L=4"]
    assert u["verdict"] == "violated"
    # a violation is re-checked on new runs (recheck-factor x confirm-runs)
    rc = [m["recheck"] for m in u["measured"] if "recheck" in m]
    assert rc and all(r["runs"] == 20 and r["verdict"] == "violated" for r in rc)
    t = json.loads((tmp_path / "t.json").read_text())
    assert "_doc" in t and t[name]["ratio"] > 1
