"""Fixtures shared by the verify tests."""

import pytest


@pytest.fixture(scope="session")
def all_caveats():
    """Every caveat of ``verify.findings``, built once a test process for the tests that only
    read them (test_caveats, test_caveat_evidence): ``findings.caveats`` is deterministic and
    rebuilds all of them, about 0.45 CPU s, at each call. Tests that compare a fresh build
    (test_registry's forked-versus-serial run) call it themselves."""
    from cascading_bandits.verify import findings

    return findings.caveats()
