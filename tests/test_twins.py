"""tests/_twins.py: the default test and its slow twin run one check at two sizes."""

import sys

import pytest
from _twins import twins
from hypothesis import strategies as st


def test_twins_make_a_slow_copy_with_more_examples():
    calls = []

    @twins(3, 7, dict(x=st.integers(0, 9)), examples=[dict(x=11), dict(x=12)])
    @pytest.mark.parametrize("y", [1])
    def test_probe(x, y):
        calls.append((x, y))

    module = sys.modules[__name__]
    slow = module.test_probe_many
    del module.test_probe_many  # not a test of this file
    assert test_probe._hypothesis_internal_use_settings.max_examples == 3
    assert slow._hypothesis_internal_use_settings.max_examples == 7
    assert [m.name for m in slow.pytestmark] == ["parametrize", "slow"]
    assert [m.name for m in test_probe.pytestmark] == ["parametrize"]
    test_probe(y=1)
    assert calls[:2] == [(11, 1), (12, 1)]  # the pinned cases first, default test only
    calls.clear()
    slow(y=1)
    assert (11, 1) not in calls and 1 <= len(calls) <= 7


def test_twins_refuse_bad_sizes_and_a_taken_name(monkeypatch):
    with pytest.raises(ValueError, match="few < many"):
        twins(5, 5, {})
    monkeypatch.setattr(sys.modules[__name__], "test_taken_many", None, raising=False)
    with pytest.raises(ValueError, match="already defines"):

        @twins(1, 2, dict(x=st.integers()))
        def test_taken(x):
            pass
