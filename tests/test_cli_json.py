"""Every JSON the command line prints or writes is strict: a non-finite number is null
(``reports.cli.common.finite_json``), never ``Infinity`` or an error.

``cascading profile --p 1`` (every optimal item always clicked: the paper's constants are
infinite there) once ended with "Out of range float values are not JSON compliant: inf".
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from cascading_bandits.reports.cli import main
from cascading_bandits.reports.cli.common import emit_json, finite_json, json_text


def _strict(text):
    """json.loads that refuses NaN and the infinities, as a strict reader does."""

    def refuse(name):
        raise AssertionError(f"non-strict JSON constant {name}")

    return json.loads(text, parse_constant=refuse)


def _has_null(obj) -> bool:
    if obj is None:
        return True
    if isinstance(obj, dict):
        return any(_has_null(v) for v in obj.values())
    if isinstance(obj, list):
        return any(_has_null(v) for v in obj)
    return False


def test_finite_json_nulls_every_non_finite_number():
    obj = {
        "a": math.inf,
        "b": [1.0, -math.inf, (math.nan, 2)],
        "c": np.float64("inf"),
        "d": np.array([1.0, np.nan]),
        "e": np.int64(3),
        "f": np.float32(0.5),
        "g": True,
        "h": "inf",
        "p": Path("/x"),
    }
    out = finite_json(obj, default=str)
    assert out == {
        "a": None,
        "b": [1.0, None, [None, 2]],
        "c": None,
        "d": [1.0, None],
        "e": 3,
        "f": 0.5,
        "g": True,
        "h": "inf",
        "p": "/x",
    }
    assert type(out["e"]) is int and out["g"] is True
    assert _strict(json_text(obj, default=str)) == out
    assert json_text({"x": 1.5}, indent=1) == '{\n "x": 1.5\n}'
    with pytest.raises(TypeError):  # what json does not know, without default, is named
        json_text({"p": Path("/x")})


def test_emit_json_prints_one_strict_line(capsys):
    emit_json({"beta": math.inf, "v": [math.nan, 1]})
    out = capsys.readouterr().out
    assert out == '{"beta": null, "v": [null, 1]}\n'


def test_profile_with_p_one_prints_and_writes_null(tmp_path, capsys):
    argv = ["profile", "--L", "6", "--p", "1", "--delta", "0.15", "--K", "2"]
    argv += ["--policy", "cascade-ucb1", "--runs", "2", "--horizon", "50"]
    rc = main([*argv, "--json", "--out", str(tmp_path)])
    out, err = capsys.readouterr()
    assert rc == 0, err
    doc = _strict(out)
    assert _has_null(doc)  # the infinite links are null, not dropped
    stored = _strict((tmp_path / "cascade-ucb1-best-first.json").read_text())
    assert stored == doc
    rc = main(argv)  # the table needs no JSON, and got the error before
    out, err = capsys.readouterr()
    assert rc == 0 and err == "" and out.strip(), err


def test_bounds_json_nulls_beta_without_suboptimal_weight(capsys):
    rc = main(["bounds", "--weights", "0.5,0.4,0,0", "--K", "2", "--json"])
    out, err = capsys.readouterr()
    assert rc == 0, err
    doc = _strict(out)
    assert doc["beta"] is None  # infinite: every suboptimal weight is 0
