"""Test-suite settings shared by every package's tests.

Hypothesis profiles: ``dev`` (the default here) and hypothesis's built-in ``ci``
profile, which hypothesis loads itself when the CI environment variable is set;
we extend ``ci`` rather than replace it. Both drop the per-example deadline,
because numba compiles on first call and a timing assertion is not a test.
"""

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    parent=settings.get_profile("ci"),
    deadline=None,
    suppress_health_check=(HealthCheck.too_slow, HealthCheck.differing_executors),
)
settings.register_profile("dev", deadline=None, print_blob=True)
settings.load_profile("ci" if os.environ.get("CI") else os.environ.get("HYPOTHESIS_PROFILE", "dev"))
