"""Test-suite settings shared by every package's tests.

Hypothesis profiles: ``dev`` (the default here) and hypothesis's built-in ``ci``
profile, which hypothesis loads itself when the CI environment variable is set;
we extend ``ci`` rather than replace it. Both drop the per-example deadline,
because numba compiles on first call and a timing assertion is not a test.
"""

import functools
import os
import sys

# With PYTHONDONTWRITEBYTECODE set (container images often set it), every run compiled the
# package from source and rewrote every test module's asserts again in each xdist worker
# (about 6 of the 12 CPU-s a worker spends before its first test) and in each interpreter
# a test starts. The suite writes the bytecode caches (__pycache__, git-ignored; the numba
# and report caches hash the .py sources only), so later processes read them.
sys.dont_write_bytecode = False

import pytest  # noqa: E402
from hypothesis import HealthCheck, settings  # noqa: E402

from cascading_bandits.bounds._pystack import deep_call  # noqa: E402

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
