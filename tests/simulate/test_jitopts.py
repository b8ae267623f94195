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
out = []
for policy in sys.argv[1:]:
    r, c = engine.simulate_runs(model, policy, "best-first", 400, keys, keys + 9,
                                np.array([100, 400]), threads=1)
    cres = next(iter(play.overloads.values()))
    kres = next(iter(parse_policy(policy).decl.kernel_for(6, True).overloads.values()))
    eng = cres.library._codegen._engine
    out.append({
        "link_only": jitopts.LINK_ONLY, "regret": r.tolist(), "counts": c.tolist(),
        "play_library": type(cres.library).__name__,
        "play_hits": sum(play.stats.cache_hits.values()),
        "play_machine_code": eng.is_symbol_defined(cres.fndesc.mangled_name),
        "kernel_library": type(kres.library).__name__,
        "kernel_machine_code": eng.is_symbol_defined(kres.fndesc.llvm_cpython_wrapper_name),
    })
print(json.dumps(out))
"""


def _python(code, *args, cache, link_only, path=None):
    """Run ``code`` in a fresh interpreter with that numba cache and CASCADING_LINK_ONLY;
    returns (lines printed before the last, the last line read as JSON). Bounded in time:
    a kernel without its environment has hung."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache), CASCADING_LINK_ONLY=str(int(link_only)))
    if path is not None:
        env["PYTHONPATH"] = str(path)
    p = subprocess.run(
        [sys.executable, "-c", code, *args], env=env, capture_output=True, text=True, timeout=120
    )
    assert p.returncode == 0, p.stderr
    *printed, last = p.stdout.strip().split("\n")
    return printed, json.loads(last)


def _run_cached(policies, cache, link_only):
    """One fresh interpreter running each policy in turn; a list of dicts, one per policy."""
    return _python(_CACHED_RUN, *policies, cache=cache, link_only=link_only)[1]


_OWN = ("cascade-ucb1", "cascade-egreedy", "uniform-random")

# The two tests below compile real policies from an empty cache in four fresh processes
# (about 16 CPU-s), so they run in the slow tier (CI runs it). The default run checks the
# same machinery (link-only helpers against numba's own handling, compiled and then loaded
# from the cache, bit for bit) on a small module:
# test_helpers_that_need_the_engine_get_machine_code.


@pytest.fixture(scope="module")
def first_runs(tmp_path_factory):
    """The runs both tests below start from (each a new process, compiling from an empty
    cache): cascade-ucb1 with link-only helpers, whose cache directory the second test goes
    on with; and numba's own handling (CASCADING_LINK_ONLY=0) of the three policies the
    tests compare, one process, play compiled by the first and reused by the others."""
    base = tmp_path_factory.mktemp("jitopts")
    shared = base / "shared"
    (a,) = _run_cached(["cascade-ucb1"], shared, True)  # compiles play, caches its bitcode
    own = dict(zip(_OWN, _run_cached(_OWN, base / "numba", False), strict=True))
    return shared, a, own


@pytest.mark.slow
def test_helpers_are_link_only_and_kernels_are_not(first_runs):
    """On this numba, a helper compiles into a LinkOnlyLibrary (optimised, linked into
    kernels, no machine code of its own) and a kernel into numba's own library; with
    CASCADING_LINK_ONLY=0 both are numba's."""
    _, a, own = first_runs
    assert a["link_only"], "this numba lacks the internals LinkOnlyLibrary relies on"
    assert (a["play_library"], a["play_hits"]) == ("LinkOnlyLibrary", 0)  # compiled here
    assert not a["play_machine_code"]
    assert a["kernel_library"] == "JITCodeLibrary" and a["kernel_machine_code"]
    b = own["cascade-ucb1"]
    assert not b["link_only"]
    assert (b["play_library"], b["play_hits"]) == ("JITCodeLibrary", 0)
    assert b["play_machine_code"] and b["kernel_machine_code"]
    assert (a["regret"], a["counts"]) == (b["regret"], b["counts"])  # bit for bit


@pytest.mark.slow
def test_link_only_helpers_are_cached_and_read_by_numba_either_way(first_runs):
    """A helper cached as bitcode by one process serves a new kernel in the next one, with
    or without link-only helpers, and the numbers are those of numba's own handling."""
    shared, a, own = first_runs
    assert a["play_library"] == "LinkOnlyLibrary" and a["play_hits"] == 0
    (b,) = _run_cached(["cascade-egreedy"], shared, True)  # a new kernel: play from the cache
    assert b["play_library"] == "LinkOnlyLibrary" and b["play_hits"] == 1
    (c,) = _run_cached(["uniform-random"], shared, False)  # numba's loader reads the bitcode
    assert not c["link_only"] and c["play_library"] == "JITCodeLibrary" and c["play_hits"] == 1
    for got, policy in ((b, "cascade-egreedy"), (c, "uniform-random")):
        ref = own[policy]  # against numba's way throughout, bit for bit
        assert ref["play_library"] == "JITCodeLibrary" and ref["play_hits"] == 0
        assert (got["regret"], got["counts"]) == (ref["regret"], ref["counts"])
    assert c["regret"] != b["regret"]  # a different policy, not a stale kernel


_ENGINE_MODULE = """
import numba
from cascading_bandits.simulate.jitopts import INNER, NJIT, helper


@helper(INNER)
def show(a):
    print(a)  # boxes the array: reads its dtype from numba's environment
    return a.sum()


@helper(INNER)
def show_scalar(x):
    print(x)  # boxes a float: reads the environment, adds no constant to it
    return x + 1.0


@helper(INNER)
def check(x):
    if x > 2.0:
        raise ValueError("too large", x)  # run-time arguments: built through the environment
    return x


@helper(INNER)
def outer(x):
    return check(x) * 2.0  # reads no environment itself; its callee's code does


# mutual recursion (a placeholder resolved against the engine's symbols): not cached, as
# numba 0.68 itself crashes loading a cached caller of mutually recursive functions
@helper(dict(INNER, cache=False))
def is_even(n):
    if n == 0:
        return True
    return is_odd(n - 1)


@helper(dict(INNER, cache=False))
def is_odd(n):
    if n == 0:
        return False
    return is_even(n - 1)


@numba.njit(nogil=True, error_model="numpy")
def parity(n):
    return is_even(n)


@helper(INNER)
def plain(x):
    return x * 3.0


@numba.njit(**NJIT)
def first(a):
    return show(a) + show_scalar(a[0]) + outer(a[1]) + plain(a[2])


@numba.njit(**NJIT)
def second(a):
    try_big = outer(a[2])  # raises: a[2] = 2.5 > 2
    return try_big
"""

_ENGINE_RUN = """
import json, sys
import numpy as np
import engmod
a = np.array([0.5, 1.5, 2.5])
out = {"first": float(engmod.first(a)), "parity": [engmod.parity(10), engmod.parity(7)]}
try:
    engmod.second(a)
except ValueError as exc:
    out["second"] = repr(exc)
code = lambda f: getattr(next(iter(f.overloads.values())).library, "_machine_code", True)
names = ("show", "show_scalar", "check", "outer", "is_even", "plain")
out["machine_code"] = {n: code(getattr(engmod, n)) for n in names if getattr(engmod, n).overloads}
out["hits"] = {n: sum(getattr(engmod, n).stats.cache_hits.values()) for n in names}
print(json.dumps(out))
"""


def test_helpers_that_need_the_engine_get_machine_code(tmp_path):
    """numba sets a function's environment (the Python objects its code reads: boxing for
    print, an exception's run-time arguments) and resolves a recursive call through the
    execution engine, so a helper whose optimised module needs either, callees included,
    is compiled to machine code after all; the others stay link-only. Same output as numba's
    own handling, compiled and then loaded from the cache by a new process."""
    (tmp_path / "engmod.py").write_text(_ENGINE_MODULE)
    runs = {}
    for link_only in (True, False):
        for attempt in ("compiled", "cached"):
            runs[link_only, attempt] = _python(
                _ENGINE_RUN,
                cache=tmp_path / f"cache{link_only}",
                link_only=link_only,
                path=tmp_path,
            )
    printed, out = runs[True, "compiled"]
    assert printed == ["[0.5 1.5 2.5]", "0.5"]  # show, then show_scalar
    assert out["first"] == 4.5 + 1.5 + 3.0 + 7.5
    assert out["parity"] == [True, False]
    assert out["second"] == "ValueError('too large', 2.5)"
    need = {"show": True, "show_scalar": True, "check": True, "outer": True, "is_even": True}
    assert out["machine_code"] == dict(need, plain=False)
    assert all(h == 0 for h in out["hits"].values())
    # a later process: kernels from the cache; the same output in every mode and attempt
    same = ("first", "second", "parity")
    for key in ((True, "cached"), (False, "compiled"), (False, "cached")):
        assert runs[key][0] == printed
        assert {k: runs[key][1][k] for k in same} == {k: out[k] for k in same}
    assert runs[True, "cached"][1]["hits"]["show"] == 0  # the kernel came from the cache


def test_compile_lock_excludes_other_holders_and_is_reentrant(tmp_path):
    """_compile_lock holds an exclusive flock that another open of the file (another
    process's, or this one's) cannot take while it is held, re-entrantly; released after."""
    fcntl = pytest.importorskip("fcntl")
    from cascading_bandits.simulate.jitopts import _HELD, _compile_lock

    path = str(tmp_path / "helper.nbi.lock")

    def free():
        fd = os.open(path, os.O_RDWR | os.O_CREAT)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            return False
        finally:
            os.close(fd)  # releases a lock taken here

    with _compile_lock(path):
        assert not free()
        with _compile_lock(path):  # a helper compiled again within its own compilation
            assert not free()
        assert not free()
    assert free() and path not in _HELD


def test_a_helper_compiles_under_its_lock(tmp_path):
    """A helper's first compilation takes the lock file beside its cache index (processes
    sharing the cache compile it once); a second call of a compiled signature takes none."""
    code = """
import json, os
import numpy as np
from cascading_bandits.simulate import jitopts
from cascading_bandits.simulate.jitopts import INNER, helper

taken = []
lock = jitopts._compile_lock
def spy(path):
    taken.append(os.path.basename(path))
    return lock(path)
jitopts._compile_lock = spy

@helper(INNER)
def twice(x):
    return 2.0 * x

import numba
@numba.njit(cache=True)
def kernel(x):
    return twice(x)

kernel(1.5)
first = list(taken)
twice.compile((numba.float64,))
print(json.dumps([first, taken[len(first):], kernel(2.0)]))
"""
    (tmp_path / "mod").mkdir()
    script = tmp_path / "mod" / "lockprobe.py"
    script.write_text(code)
    _, (first, again, value) = _python(
        f"import runpy; runpy.run_path({str(script)!r}, run_name='lockprobe')",
        cache=tmp_path / "numba",
        link_only=True,
    )
    assert len(first) == 1 and first[0].endswith(".nbi.lock") and "twice" in first[0]
    assert again == [] and value == 4.0
