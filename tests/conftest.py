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
