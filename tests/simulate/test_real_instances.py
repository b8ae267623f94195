"""Real instances: the shipped data, the names, the :top reduction, cells and runs."""

import hashlib
import json
import tomllib
from pathlib import Path

import numpy as np
import pytest

from cascading_bandits.simulate import run_cell
from cascading_bandits.simulate.experiments import instance_cell
from cascading_bandits.simulate.models import make_model
from cascading_bandits.simulate.real_instances import (
    DATA_DIR,
    SOURCES,
    parse_instance_name,
    real_instance,
    real_instance_names,
)

ROOT = Path(__file__).resolve().parents[2]
REFUSED = ("yandex:7435209", "yandex:8354851")


def _raw(source):
    return json.loads((DATA_DIR / SOURCES[source][0]).read_text())


def test_shipped_files_are_the_recorded_ones():
    for file, digest, _ in SOURCES.values():
        assert hashlib.sha256((DATA_DIR / file).read_bytes()).hexdigest() == digest
    notice = (DATA_DIR / "NOTICE.md").read_text()
    assert "MIT" in (DATA_DIR / "LICENSE").read_text() and "gaudel/ranking_bandits" in notice
    for _, digest, _ in SOURCES.values():
        assert digest in notice
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert "data/click_models/*" in data["package-data"]["cascading_bandits.simulate"]
    assert len(_raw("yandex")) == 60 and len(_raw("kdd")) == 8


def test_every_name_loads_valid_parameters():
    names = real_instance_names()
    assert len(names) == 2 * (58 + 8) and len(set(names)) == len(names)
    assert real_instance_names("kdd", top=False) == tuple(f"kdd:{q}" for q in _raw("kdd"))
    assert set(real_instance_names(top=True)) == {
        n + ":top" for n in real_instance_names(top=False)
    }
    for name in names:
        inst = real_instance(name)
        assert inst.name == name and inst.K == len(inst.kappa) <= inst.L
        w, kappa = np.array(inst.weights), np.array(inst.kappa)
        assert ((0 <= w) & (w <= 1)).all() and ((0 <= kappa) & (kappa <= 1)).all()
        make_model("pbm", inst.weights, inst.K, kappa=inst.kappa)  # the model accepts it
        assert parse_instance_name(name) == (inst.weights, inst.kappa, inst.K, name)


def test_whole_query_is_the_file_as_given():
    raw = _raw("kdd")["19"]
    w, kappa, K, label = parse_instance_name("kdd:19")
    assert list(w) == raw["thetas"] and list(kappa) == raw["kappas"] and K == 3
    assert kappa == (1.0, 0.48574928517746124, 0.3297979789061402)
    y = real_instance("yandex:4102451")
    assert y.index == 0 and y.L == 185 and y.K == 10
    assert list(y.kappa) == _raw("yandex")["4102451"]["kappas"]


def test_top_is_the_source_experiments_reduction():
    """10 most attractive documents and 5 largest kappas, both sorted decreasingly
    (Gauthier et al.'s set_env_Yandex: np.sort(x)[:-11:-1], np.sort(k)[:-6:-1])."""
    for query, raw in _raw("yandex").items():
        if f"yandex:{query}" in REFUSED:
            continue
        top = real_instance(f"yandex:{query}:top")
        assert list(top.weights) == sorted(raw["thetas"], reverse=True)[:10]
        assert list(top.kappa) == sorted(raw["kappas"], reverse=True)[:5]
        assert top.L == 10 and top.K == 5 and top.top
    small = real_instance("kdd:19:top")  # KDD: fewer than 10 items, 3 positions
    assert small.L == 5 and small.K == 3 and list(small.weights) == sorted(small.weights)[::-1]
    # on :top the PBM's optimal list is items 0..4 (sorted items, sorted positions)
    w, kappa, K, _ = parse_instance_name("yandex:4102451:top")
    m = make_model("pbm", w, K, kappa=kappa)
    assert m.optimal_list().tolist() == [0, 1, 2, 3, 4]


def test_whole_yandex_query_pairs_items_with_examination():
    """Non-monotone fitted kappa: the optimal PBM list puts the i-th most attractive item at
    the i-th most examined position."""
    inst = real_instance("yandex:4102451")
    m = make_model("pbm", inst.weights, inst.K, kappa=inst.kappa)
    best = m.optimal_list()
    w = np.array(inst.weights)[best]
    kappa = np.array(inst.kappa)
    assert (np.diff(w[np.argsort(-kappa, kind="stable")]) <= 0).all()
    assert set(best.tolist()) == set(np.argsort(-np.array(inst.weights), kind="stable")[:10])


@pytest.mark.parametrize(
    "name,msg",
    [
        ("yandex:7435209", "not usable: an attraction value 1.0655"),
        ("yandex:8354851:top", "not usable: an attraction value 2.5089"),
        ("yandex:123", "no query '123'"),
        ("bing:1", "real_instance_names"),
        ("yandex:4102451:bottom", "only suffix is ':top'"),
        ("yandex", "real_instance_names"),
        ("", "real_instance_names"),
        (19, "must be a string"),
    ],
)
def test_bad_names_are_refused_with_how_to_list(name, msg):
    with pytest.raises(ValueError, match=msg):
        real_instance(name)
    if isinstance(name, str) and name.startswith("yandex:"):
        assert name not in real_instance_names()


def test_names_are_case_insensitive_in_source_and_top():
    assert real_instance(" Yandex:4102451:TOP ").name == "yandex:4102451:top"
    with pytest.raises(ValueError, match="unknown source"):
        real_instance_names("bing")


def test_instance_cells():
    c = instance_cell("real", "kdd:19", "cascade-klucb", horizon=200, runs=2)
    assert c.model == "pbm" and c.K == 3 and c.kappa == parse_instance_name("kdd:19")[1]
    assert c.cell_id == "kdd-19-pbm-cascade-klucb-best-first"
    short = instance_cell("real", "kdd:19", "oracle", K=2, horizon=200, runs=1)
    assert (
        short.K == 2
        and short.kappa == c.kappa[:2]
        and short.cell_id.endswith("-K2-oracle-best-first")
    )
    d = instance_cell("real", "yandex:4102451:top", "cascade-ucb1", model="dcm", lam=(0.5,) * 5)
    assert d.weights == real_instance("yandex:4102451:top").weights and d.lam == (0.5,) * 5
    cas = instance_cell("real", "kdd:19", "cascade-ucb1", model="cascade")
    assert cas.kappa is None and cas.cell_id == "kdd-19-cascade-cascade-ucb1-best-first"
    with pytest.raises(ValueError, match="3 positions"):
        instance_cell("real", "kdd:19", "oracle", K=4)
    with pytest.raises(ValueError, match="kappa applies to the pbm model only"):
        instance_cell("real", "kdd:19", "oracle", model="dcm", kappa=(1, 1, 1))
    # a run on it: the oracle is optimal (sorted kappa on KDD), a learner has regret
    assert (run_cell(short, 0).regret == 0).all()
    assert run_cell(c, 0).regret[:, -1].min() > 0
