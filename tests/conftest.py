"""Test-suite settings shared by every package's tests.

Hypothesis profiles: ``dev`` (the default here) and hypothesis's built-in ``ci``
profile, which hypothesis loads itself when the CI environment variable is set;
we extend ``ci`` rather than replace it. Both drop the per-example deadline,
because numba compiles on first call and a timing assertion is not a test.
"""

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

settings.register_profile(
    "ci",
    parent=settings.get_profile("ci"),
    deadline=None,
    suppress_health_check=(HealthCheck.too_slow, HealthCheck.differing_executors),
)
settings.register_profile("dev", deadline=None, print_blob=True)
settings.load_profile("ci" if os.environ.get("CI") else os.environ.get("HYPOTHESIS_PROFILE", "dev"))


@pytest.hookimpl(tryfirst=True)
def pytest_runtestloop(session):
    """Run the test loop (the other plugins' ``pytest_runtestloop``: pytest's own, or an
    xdist worker's) through ``bounds._pystack.deep_call``: numba's compiler and sympy
    recurse, and on CPython >= 3.11 that maps and unmaps frame-stack chunks by the hundred
    thousand (see there). Every test, its fixtures included, then runs below that one
    pre-grown chunk, mapped once per process: the loop's frames down to a test take a few
    KiB of its 2 MiB. (Each test call went through deep_call of its own, whose 4 MiB frame
    cost about 1.4 CPU ms to build and drop, some 4 CPU s a suite.) Not in xdist's
    controller, which runs no test: importing bounds imports numba (about 0.6 CPU s)."""
    if session.config.pluginmanager.hasplugin("dsession"):
        return None  # the controller: the next implementations run as usual
    from cascading_bandits.bounds._pystack import deep_call

    rest = session.config.pluginmanager.subset_hook_caller(
        "pytest_runtestloop", remove_plugins=[_THIS]
    )
    return deep_call(rest, session=session)


#: this module as registered (``sys.modules["conftest"]`` is another directory's conftest
#: once that one is imported: they share the name)
_THIS = sys.modules[__name__]


#: The test files that take longest in the default run (CPU seconds of a worker, its
#: processes included, measured with xdist, warm numba cache, 27 Nov 2026, less what
#: f1449e5, 7ed22b0 and 7882198 took off; test_seeds_crn measured again after a5e7d00),
#: heaviest first, as their path's parts under tests/ (a path written out would read as a
#: module name to test_cli_layer's scan of the docstrings). pytest-xdist's
#: ``--dist loadfile`` hands each worker one file at a time in collection order
#: (``--no-loadscope-reorder`` in pyproject.toml; its default order, by number of tests,
#: sent test_report_quick's 5 tests and their 20 s report near the end, where one long file
#: ends the run alone). Collected first, these files are spread over the workers while the
#: many short ones fill in after them. A file missing here (renamed, new) only runs in its
#: usual place.
HEAVY_FIRST = (
    ("reports", "test_report_quick.py"),  # 14
    ("reports", "test_build.py"),  # 12
    ("simulate", "test_equivalence.py"),  # 12
    ("reports", "test_report_sections.py"),  # 11
    ("simulate", "test_jitopts.py"),  # 9
    ("simulate", "test_grouped_selection.py"),  # 9
    ("reports", "test_study.py"),  # 8
    ("verify", "test_registry.py"),  # 7
    ("simulate", "test_click_models.py"),  # 7
    ("simulate", "test_sweep_processes.py"),  # 6.5
    ("test_api_hostile.py",),  # 6.4
    ("reports", "test_later_sections.py"),  # 5.6
    ("simulate", "test_semantics.py"),  # 5.3
    ("simulate", "test_seeds_crn.py"),  # 5 (with the Dask comparison of test_store_sweep_cli)
    ("bounds", "test_theorem3_curve.py"),  # 4.9
    ("bounds", "test_bound_registry.py"),  # 4.5
    ("bounds", "test_garivier_cappe.py"),  # 4.2
)


def pytest_collection_modifyitems(session, config, items):
    """Move the files of :data:`HEAVY_FIRST` to the front, in its order; every other file
    and the order of the tests within a file stay as collected."""
    rank = {parts: i for i, parts in enumerate(HEAVY_FIRST)}
    root = config.rootpath / "tests"

    def key(pair):
        i, item = pair
        try:
            rel = item.path.relative_to(root).parts
        except ValueError:
            rel = ()
        return (rank.get(rel, len(rank)), i if rel not in rank else 0, i)

    items[:] = [item for _, item in sorted(enumerate(items), key=key)]
