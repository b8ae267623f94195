"""Test-suite settings shared by every package's tests.

Hypothesis profiles: ``dev`` (the default here) and hypothesis's built-in ``ci``
profile, which hypothesis loads itself when the CI environment variable is set;
we extend ``ci`` rather than replace it. Both drop the per-example deadline,
because numba compiles on first call and a timing assertion is not a test.
"""

import functools
import os

import pytest
from hypothesis import HealthCheck, settings

from cascading_bandits.bounds._pystack import deep_call

settings.register_profile(
    "ci",
    parent=settings.get_profile("ci"),
    deadline=None,
    suppress_health_check=(HealthCheck.too_slow, HealthCheck.differing_executors),
)
settings.register_profile("dev", deadline=None, print_blob=True)
settings.load_profile("ci" if os.environ.get("CI") else os.environ.get("HYPOTHESIS_PROFILE", "dev"))


@pytest.hookimpl(wrapper=True)
def pytest_pyfunc_call(pyfuncitem):
    """Run each test function through ``bounds._pystack.deep_call``: numba's compiler and
    sympy recurse, and on CPython >= 3.11 that maps and unmaps frame-stack chunks by the
    hundred thousand (see there); the test sees the same call."""
    orig = pyfuncitem.obj

    @functools.wraps(orig)
    def run(*args, **kwargs):
        return deep_call(orig, *args, **kwargs)

    pyfuncitem.obj = run
    try:
        return (yield)
    finally:
        pyfuncitem.obj = orig


def _kernels():
    """(policy, L, lazy, kernel) for every distinct run kernel of the registered policies
    (the engine picks one by L and lazy: small, mid and large L cover every threshold)."""
    from cascading_bandits.simulate.policies import get_policy, policy_names

    out, seen = [], set()
    for name in policy_names():
        decl = get_policy(name)
        for L in (8, 64, 200):
            for lazy in (True, False) if decl.uses_lazy else (True,):
                k = decl.kernel_for(L, lazy)
                if id(k) not in seen:
                    seen.add(id(k))
                    out.append((name, L, lazy, k))
    return out


def _compile(name, L, lazy):
    import numpy as np

    from cascading_bandits.simulate.engine import simulate_runs
    from cascading_bandits.simulate.models import make_model

    model = make_model("cascade", tuple(np.linspace(0.9, 0.05, L)), 2)
    keys = np.ones(1, np.uint64)
    simulate_runs(model, name, "best-first", 1, keys, keys, np.ones(1, np.int64), 1, lazy)


@pytest.fixture(scope="session", autouse=True)
def _share_first_compiles(request):
    """Under pytest-xdist with an empty numba cache, worker i of n first compiles every n-th
    run kernel not cached yet, so the workers compile disjoint shares at once instead of
    each compiling nearly all of them as its tests reach them (numba's disk cache then
    serves the others). Nothing happens when the cache is filled or without workers."""
    wi = getattr(request.config, "workerinput", None)
    if not wi or int(wi.get("workercount", 1)) < 2:
        return
    from cascading_bandits.simulate.engine import _cached_on_disk

    todo = [job for job in _kernels() if not _cached_on_disk(job[3])]
    i, n = int(str(wi["workerid"]).lstrip("gw")), int(wi["workercount"])
    for name, L, lazy, _ in todo[i::n]:
        deep_call(_compile, name, L, lazy)
