"""Fixtures for tests/reports: synthetic Table 1/2 results (see _report_fakes.py)."""

import pytest
from _report_fakes import table_results


@pytest.fixture
def t1():
    return table_results("table1")


@pytest.fixture
def t2():
    return table_results("table2")
