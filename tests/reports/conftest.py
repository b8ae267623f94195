"""Fixtures for tests/reports: synthetic Table 1/2 results (see _report_fakes.py)."""

import pytest
from _report_fakes import patch_section_figures, table_results


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
