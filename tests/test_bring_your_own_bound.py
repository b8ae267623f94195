"""Bring your own bound: a true and a false bound, one file each, seen everywhere.

Each bound is a module of its own in a temporary directory, holding one ``register_bound``
call, as a user would write it. Once imported, both appear in ``cascading bounds``,
``cascading ledger``, ``cascading study``, ``cascading search --objective bound`` and
``cascading verify``; the false one is reported as failing where a regret is compared with
it (study's ratio, the search's optimum, the verify claim), the true one as holding.
"""

import importlib.util
import json
import sys
import textwrap

import pytest

from cascading_bandits.bounds.registry import unregister_bound
from cascading_bandits.reports.cli import main

SOURCE = textwrap.dedent(
    '''
    """{doc}"""
    import numpy as np

    from cascading_bandits.bounds.registry import Bound, Covers, register_bound

    register_bound(Bound(
        name="{name}", title="{doc}", label="{name}",
        kind="upper", form="constant", gap="free",
        covers=(Covers("cascade-ucb1", alpha=1.5),),
        evaluate=lambda inst, n: {formula},
        source="tests/test_bring_your_own_bound.py", rate="{formula}",
    ))
    '''
)
BOUNDS = {
    # R(n) <= n: the regret of one step is at most 1
    "byo-true": ("A true bound: R(n) <= n", "np.asarray(n, dtype=float)"),
    # far below CascadeUCB1's regret on any instance with something to learn
    "byo-false": ("A false bound: R(n) <= 0.001 log(n + 1)", "0.001 * np.log(n + 1.0)"),
}


@pytest.fixture(scope="module")
def byo(tmp_path_factory):
    d = tmp_path_factory.mktemp("byo")
    names = []
    for name, (doc, formula) in BOUNDS.items():
        path = d / f"{name.replace('-', '_')}.py"
        path.write_text(SOURCE.format(name=name, doc=doc, formula=formula), encoding="utf-8")
        spec = importlib.util.spec_from_file_location(path.stem, path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        sys.modules[path.stem] = mod
        names.append(name)
    yield d
    for name in names:
        unregister_bound(name)
        sys.modules.pop(name.replace("-", "_"), None)


def _json(capsys, argv, code=0):
    capsys.readouterr()
    assert main(argv) == code
    return json.loads(capsys.readouterr().out)


def test_bounds_and_ledger(byo, capsys):
    listed = {b["name"] for b in _json(capsys, ["bounds", "--list", "--json"])["bounds"]}
    assert set(BOUNDS) <= listed
    got = {b["name"]: b for b in _json(capsys, ["bounds", "--json"])["bounds"]}
    assert got["byo-true"]["value"] == 100_000.0 and got["byo-true"]["applies"]
    rows = {r["bound"]: r for r in _json(capsys, ["ledger", "--json"])["rows"]}
    assert rows["byo-false"]["value"] == pytest.approx(0.001 * __import__("math").log(100_001))


def test_study_compares_both(byo, capsys, tmp_path):
    argv = ["study", "--weights", "0.4,0.3,0.1,0.05", "--K", "2", "--policy", "cascade-ucb1",
            "--runs", "3", "--horizon", "400", "--bound", "byo-true,byo-false",
            "--out", str(tmp_path / "s"), "--json", "--no-progress"]  # fmt: skip
    _json(capsys, argv)
    summary = json.loads((tmp_path / "s" / "summary.json").read_text())
    assert {"byo-true", "byo-false"} <= set(summary["bounds"]["drawn"])
    (pol,) = summary["policies"]
    # the false bound lies below the measured regret, the true one far above it
    assert pol["bounds"]["byo-false"] < pol["ci95"][0] <= pol["ci95"][1] < pol["bounds"]["byo-true"]


def test_search_finds_the_false_one_false(byo, capsys):
    argv = ["search", "--objective", "bound", "--bound", "byo-false", "--K", "2", "--L", "4",
            "--horizon", "300", "--runs", "2", "--maxiter", "1", "--popsize", "2",
            "--confirm-runs", "3", "--family", "two-level", "--json"]  # fmt: skip
    (res,) = _json(capsys, argv)["results"]
    assert res["bound_name"] == "byo-false" and res["value"] > 1


def test_verify_fails_the_false_one_and_passes_the_true_one(byo, capsys):
    out = _json(capsys, ["verify", "--claim", "bound.byo-true", "--json"])
    (v,) = out["verdicts"]
    assert v["claim_id"] == "bound.byo-true" and v["status"] == "holds" and out["failed"] == []
    capsys.readouterr()
    assert main(["verify", "--claim", "bound.byo-false"]) == 1
    assert "fails" in capsys.readouterr().out
