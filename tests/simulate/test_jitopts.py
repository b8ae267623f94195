"""simulate.jitopts: helpers without wrappers fail cleanly from Python; twins agree; helpers
are link-only, cached as bitcode, and give the numbers of numba's own handling."""

import json
import os
import subprocess
import sys

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


_CACHED_RUN = """
import json, sys
import numpy as np
from cascading_bandits.simulate import engine, jitopts
from cascading_bandits.simulate.models import CascadeModel
from cascading_bandits.simulate.policies import parse_policy
from cascading_bandits.simulate.policies.kernel import play
model = CascadeModel((0.6, 0.5, 0.35, 0.3, 0.2, 0.1), 2)
keys = np.arange(1, 4, dtype=np.uint64)
r, c = engine.simulate_runs(model, sys.argv[1], "best-first", 400, keys, keys + 9,
                            np.array([100, 400]), threads=1)
cres = next(iter(play.overloads.values()))
kres = next(iter(parse_policy(sys.argv[1]).decl.kernel_for(6, True).overloads.values()))
eng = cres.library._codegen._engine
print(json.dumps({
    "link_only": jitopts.LINK_ONLY, "regret": r.tolist(), "counts": c.tolist(),
    "play_library": type(cres.library).__name__,
    "play_hits": sum(play.stats.cache_hits.values()),
    "play_address": cres.library.get_pointer_to_function(cres.fndesc.mangled_name),
    "play_machine_code": eng.is_symbol_defined(cres.fndesc.mangled_name),
    "kernel_library": type(kres.library).__name__,
    "kernel_machine_code": eng.is_symbol_defined(kres.fndesc.llvm_cpython_wrapper_name),
}))
"""


def _run_cached(policy, cache, link_only):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache), CASCADING_LINK_ONLY=str(int(link_only)))
    out = subprocess.run(
        [sys.executable, "-c", _CACHED_RUN, policy],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout.splitlines()[-1])


def test_helpers_are_link_only_and_kernels_are_not(tmp_path):
    """On this numba, a helper compiles into a LinkOnlyLibrary (optimised, linked into
    kernels, no machine code of its own) and a kernel into numba's own library; with
    CASCADING_LINK_ONLY=0 both are numba's."""
    a = _run_cached("cascade-ucb1", tmp_path / "lo", True)
    assert a["link_only"], "this numba lacks the internals LinkOnlyLibrary relies on"
    assert (a["play_library"], a["play_hits"]) == ("LinkOnlyLibrary", 0)  # compiled here
    assert a["play_address"] == 0 and not a["play_machine_code"]
    assert a["kernel_library"] == "JITCodeLibrary" and a["kernel_machine_code"]
    b = _run_cached("cascade-ucb1", tmp_path / "numba", False)
    assert (b["play_library"], b["play_hits"]) == ("JITCodeLibrary", 0)
    assert b["play_machine_code"] and b["kernel_machine_code"]
    assert (a["regret"], a["counts"]) == (b["regret"], b["counts"])  # bit for bit


def test_link_only_helpers_are_cached_and_read_by_numba_either_way(tmp_path):
    """A helper cached as bitcode by one process serves a new kernel in the next one, with
    or without link-only helpers, and the numbers are those of numba's own handling."""
    shared = tmp_path / "shared"
    a = _run_cached("cascade-ucb1", shared, True)  # compiles play, caches its bitcode
    assert a["play_library"] == "LinkOnlyLibrary" and a["play_hits"] == 0
    b = _run_cached("cascade-egreedy", shared, True)  # a new kernel: play from the cache
    assert b["play_library"] == "LinkOnlyLibrary" and b["play_hits"] == 1
    c = _run_cached("uniform-random", shared, False)  # numba's own loader reads the bitcode
    assert not c["link_only"] and c["play_library"] == "JITCodeLibrary" and c["play_hits"] == 1
    own = _run_cached("cascade-egreedy", tmp_path / "own", False)  # numba's way throughout
    assert own["play_library"] == "JITCodeLibrary" and own["play_hits"] == 0
    assert (b["regret"], b["counts"]) == (own["regret"], own["counts"])  # bit for bit
    assert c["regret"] != b["regret"]  # a different policy, not a stale kernel


_ENV_MODULE = """
import numba
from cascading_bandits.simulate.jitopts import INNER, NJIT, helper


@helper(INNER)
def show(a):
    print(a)  # boxes the array: reads its dtype from numba's environment
    return a.sum()


@numba.njit(**NJIT)
def first(a):
    return show(a) + 1.0


@numba.njit(**NJIT)
def second(a):
    return show(a) * 2.0
"""


def test_a_helper_that_reads_python_objects_gets_machine_code(tmp_path):
    """numba reaches a function's environment (Python objects its code reads) through the
    execution engine, so a helper that has one is compiled to machine code after all; a
    later process's kernel loads it from the cache."""
    (tmp_path / "envmod.py").write_text(_ENV_MODULE)
    env = dict(
        os.environ,
        NUMBA_CACHE_DIR=str(tmp_path / "cache"),
        PYTHONPATH=str(tmp_path),
        CASCADING_LINK_ONLY="1",
    )
    code = (
        "import sys, numpy as np, envmod\n"
        "print(getattr(envmod, sys.argv[1])(np.arange(3.0)))\n"
        "print(type(next(iter(envmod.show.overloads.values())).library).__name__,"
        " sum(envmod.show.stats.cache_hits.values()))\n"
    )
    outs = []
    for kernel in ("first", "second"):
        p = subprocess.run(
            [sys.executable, "-c", code, kernel], env=env, capture_output=True, text=True
        )
        assert p.returncode == 0, p.stderr
        outs.append(p.stdout.split("\n"))
    assert outs[0][:3] == ["[0. 1. 2.]", "4.0", "LinkOnlyLibrary 0"]
    assert outs[1][:3] == ["[0. 1. 2.]", "6.0", "JITCodeLibrary 1"]  # numba's object entry
