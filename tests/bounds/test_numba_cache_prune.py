"""Old digest directories of numba's cache are removed (bounds._numba_cache.prune)."""

import os

import pytest

from cascading_bandits.bounds import _numba_cache as nc

NOW = 1_000_000_000.0
DAY = 86_400.0


def _dirs(root, ages):
    """Digest directories named 0000...0i, used ``ages[i]`` seconds before NOW."""
    out = []
    for i, age in enumerate(ages):
        d = root / f"{i:016x}"
        (d / "policies_x").mkdir(parents=True)
        (d / "policies_x" / "k.nbi").write_bytes(b"index")
        os.utime(d, (NOW - age, NOW - age))
        out.append(d)
    return out


def test_keeps_current_the_most_recent_and_the_recently_used(tmp_path):
    # current, then 5 used within the day, then 6 old ones of increasing age
    ages = [0.0] + [3600.0 * (i + 1) for i in range(5)] + [2 * DAY + 60.0 * i for i in range(6)]
    ds = _dirs(tmp_path, ages)
    (tmp_path / "notes").mkdir()  # not a digest: never touched
    (tmp_path / "0123456789abcdeg").mkdir()  # 'g': not hexadecimal
    (tmp_path / "00000000000000ff").write_text("a file, not a directory")
    removed = nc.prune(ds[0], keep=7, keep_seconds=DAY, now=NOW)
    # 11 others; the 7 most recent are the 5 recent ones and the 2 youngest old ones
    assert sorted(removed) == sorted(ds[8:])
    assert all(d.exists() for d in ds[:8])
    assert not any(d.exists() for d in ds[8:])
    assert (tmp_path / "notes").is_dir() and (tmp_path / "0123456789abcdeg").is_dir()
    assert (tmp_path / "00000000000000ff").is_file()


def test_recently_used_beyond_keep_are_kept_and_current_always(tmp_path):
    ds = _dirs(tmp_path, [10 * DAY] + [60.0 * i for i in range(1, 6)])
    # the current directory is the oldest one: still kept; keep=0 leaves only the day rule
    assert nc.prune(ds[0], keep=0, keep_seconds=DAY, now=NOW) == []
    assert all(d.exists() for d in ds)
    removed = nc.prune(ds[0], keep=0, keep_seconds=0.0, now=NOW)
    assert sorted(removed) == sorted(ds[1:]) and ds[0].exists()


def test_missing_parent_and_bad_arguments(tmp_path):
    assert nc.prune(tmp_path / "absent" / "0000000000000000") == []
    for bad in (-1, 1.5, True, "3"):
        with pytest.raises(ValueError, match="keep must be an integer"):
            nc.prune(tmp_path / "0000000000000000", keep=bad)
    for bad in (-1.0, float("nan")):
        with pytest.raises(ValueError, match="keep_seconds must be >= 0"):
            nc.prune(tmp_path / "0000000000000000", keep_seconds=bad)


def test_this_install_marks_its_directory_used(monkeypatch, tmp_path):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    old = _dirs(tmp_path, [30 * DAY + i for i in range(nc.KEEP + 3)])
    mine = nc.cache_dir()
    mine.mkdir()
    os.utime(mine, (0, 0))
    saved = nc.numba.config.CACHE_DIR
    try:
        nc._configure()
    finally:
        nc.numba.config.CACHE_DIR = saved
    assert mine.stat().st_mtime > NOW  # marked now, so other installs keep it
    left = [d for d in old if d.exists()]
    assert len(left) == nc.KEEP and left == old[: nc.KEEP]  # the youngest KEEP survive
