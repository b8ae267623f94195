"""simulate.jitopts: helpers without wrappers fail cleanly from Python; twins agree."""

import numpy as np
import pytest

from cascading_bandits.simulate.jitopts import HelperDispatcher, python_twin
from cascading_bandits.simulate.policies import kernel as kern
from cascading_bandits.simulate.policies.kernel import select_top


def test_a_python_call_of_a_helper_raises_instead_of_crashing():
    assert isinstance(select_top, HelperDispatcher)
    assert select_top.targetoptions["no_cpython_wrapper"] is True
    with pytest.raises(TypeError, match="python_twin"):
        select_top(np.zeros(4), 2, np.zeros(4, np.bool_), np.zeros(2, np.int64))


def test_python_twin_runs_the_same_source():
    twin = python_twin(select_top)
    assert twin is python_twin(select_top)  # compiled once
    assert "no_cpython_wrapper" not in twin.targetoptions
    out = np.zeros(3, np.int64)
    twin(np.array([0.1, 0.5, 0.5, 0.9, 0.2]), 3, np.zeros(5, np.bool_), out)
    assert out.tolist() == [3, 1, 2]  # decreasing, ties to the smaller id


def test_python_twin_rejects_what_is_not_a_numba_function():
    with pytest.raises(ValueError, match="numba-compiled"):
        python_twin(kern.select_top.py_func)


def test_python_twin_is_cached_apart_from_its_helper():
    """A twin is cached on disk (not recompiled by every process), under files of its own:
    numba keys cache entries by signature only, so sharing the helper's files would hand one
    the other's machine code (the helper's has no CPython wrapper)."""
    twin = python_twin(select_top)
    assert twin._cache._cache_file._index_name != select_top._cache._cache_file._index_name
    assert "python_twin" in twin._cache._cache_file._index_name
    assert twin.py_func.__code__ is select_top.py_func.__code__
