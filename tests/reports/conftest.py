"""Fixtures for tests/reports: synthetic Table 1/2 results (see _report_fakes.py), and the
report's bound values at the fakes' horizon, computed once per test process."""

import os
import shutil
from types import SimpleNamespace

import pytest
from _report_fakes import patch_section_figures, table_results

#: the horizon of the fakes (_report_fakes) that the warm cache holds bound values for
WARM_HORIZON = 1000


@pytest.fixture
def t1():
    return table_results("table1")


@pytest.fixture
def t2():
    return table_results("table2")


@pytest.fixture
def small_section_figures(monkeypatch):
    """:func:`patch_section_figures` for one test."""
    patch_section_figures(monkeypatch)


@pytest.fixture(scope="session")
def _warm_bounds(tmp_path_factory):
    """(memo, results): a :class:`reports.build.BoundMemo` holding what
    :func:`reports.build.prefetch_bounds` computes for the Table 1 configurations at
    n = 1000 with 2, 3 and 4 curve points (the fakes' scale), and a results directory whose
    report cache holds those values and the Table 1 ledger at n = 1000, stored by the
    report's own code (as a first report at that scale leaves them).

    Under pytest-xdist the first worker to need them (about 3 CPU s) publishes its results
    directory for the session's other workers (a directory renamed into place whole, so
    it is there complete or not at all); a later worker reads the values back from that
    cache as a report does (:func:`reports.report_cache.cache_load`, the JSON-native values
    :class:`BoundMemo` holds). Workers that need them at the same time both compute them."""
    from cascading_bandits.reports import build as B
    from cascading_bandits.reports.report_cache import bounds_cache_key, cache_load, cache_store
    from cascading_bandits.reports.section_ledger import _ledger_early

    shared = None
    if os.environ.get("PYTEST_XDIST_WORKER"):
        # the workers' base directories (popen-gw0, ...) share this session's parent
        shared = tmp_path_factory.getbasetemp().parent / "warm-report-cache-shared"
        stored = cache_load(shared / "results", "bounds", bounds_cache_key())
        if isinstance(stored, dict):
            return B.BoundMemo(stored), shared / "results"
    results = tmp_path_factory.mktemp("warm-report-cache") / "results"
    memo = B.BoundMemo()
    for points in (2, 3, 4):
        B.prefetch_bounds(memo, WARM_HORIZON, points)
    assert cache_store(results, "bounds", bounds_cache_key(), memo.values)
    _ledger_early(SimpleNamespace(s=SimpleNamespace(results=results, horizon=WARM_HORIZON)))
    if shared is not None:
        staged = tmp_path_factory.mktemp("warm-report-cache-staged")
        shutil.copytree(results, staged / "results")
        try:
            os.rename(staged, shared)
        except OSError:
            pass  # another worker published first: the same values
    return memo, results


@pytest.fixture
def bound_memo(_warm_bounds):
    """A BoundMemo with the bound values at the fakes' scale, for ``collect(..., memo=)``
    in tests of what the report does with the values rather than of how they are computed
    (test_build's test_prefetched_bounds_are_what_collect_asks_for and test_report_sections'
    test_bounds_memo_serves_identical_numbers check that memoised values equal fresh ones)."""
    from cascading_bandits.reports import build as B

    return B.BoundMemo(_warm_bounds[0].values)


@pytest.fixture(scope="session")
def warm_cache(_warm_bounds):
    """``warm_cache(results)`` copies the warm report cache (bound values and Table 1
    ledger at n = 1000) into the results directory ``results`` and returns it: a report
    built from the fakes there reads them instead of computing them again (about 2 of
    its 3 CPU s). For tests of what the report writes, not of its cache (those use their
    own empty directories: test_report_sections' cache tests, test_report_quick)."""
    from cascading_bandits.reports.report_cache import CACHE_DIR

    def copy_into(results):
        shutil.copytree(_warm_bounds[1] / CACHE_DIR, results / CACHE_DIR, dirs_exist_ok=True)
        return results

    return copy_into
