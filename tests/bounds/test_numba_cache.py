"""numba's cache directory follows the sources (bounds._numba_cache)."""

from pathlib import Path

import numba
import pytest

from cascading_bandits.bounds import _numba_cache as nc


def _tree(root: Path, text: str) -> list:
    for pkg in ("bounds", "simulate"):
        (root / pkg / "sub").mkdir(parents=True, exist_ok=True)
        (root / pkg / "a.py").write_text("x = 1\n")
        (root / pkg / "sub" / "b.py").write_text(text)
        (root / pkg / "notes.txt").write_text("not source")
    return [root / "bounds", root / "simulate"]


def test_digest_changes_with_any_source_file_and_only_with_sources(tmp_path):
    d0 = nc.source_digest(_tree(tmp_path / "one", "y = 2\n"))
    assert d0 == nc.source_digest(_tree(tmp_path / "two", "y = 2\n"))  # same sources
    assert d0 != nc.source_digest(_tree(tmp_path / "three", "y = 3\n"))  # a helper changed
    (tmp_path / "one" / "simulate" / "notes.txt").write_text("changed")
    assert d0 == nc.source_digest([tmp_path / "one" / "bounds", tmp_path / "one" / "simulate"])
    with pytest.raises(ValueError, match="does not exist"):
        nc.source_digest([tmp_path / "missing"])


def test_numba_caches_under_the_digest_of_this_install(monkeypatch, tmp_path):
    d = nc.cache_dir()
    here = Path(nc.__file__).resolve().parent
    assert d.name == nc.source_digest([here.parent / "bounds", here.parent / "simulate"])
    assert numba.config.CACHE_DIR == str(d)  # set on import, before any kernel
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    assert nc.cache_dir() == tmp_path / d.name
