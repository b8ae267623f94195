"""simulate.jitopts.prepare_target, which the report calls before it forks verify's processes
and the sweep's workers: numba's compiler set up without starting a thread (a fork must stay
safe) or writing to numba's cache."""

import json
import os
import subprocess
import sys

_SCRIPT = r"""
import json, os, threading
from pathlib import Path
from cascading_bandits.bounds._numba_cache import cache_dir
from cascading_bandits.simulate.jitopts import prepare_target
from cascading_bandits.simulate.sweep import fork_is_safe

def files():
    d = cache_dir()
    return sorted(str(p) for p in d.rglob("*") if p.is_file()) if d.is_dir() else []

before = files()
prepare_target()
prepare_target()  # once per process: the second call does nothing
print(json.dumps({
    "threads": threading.active_count(),
    "safe": fork_is_safe(),
    "written": [f for f in files() if f not in before],
}))
"""


def test_prepare_target_starts_no_thread_and_writes_no_cache(tmp_path):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "nc"))
    out = subprocess.run(
        [sys.executable, "-c", _SCRIPT], env=env, capture_output=True, text=True, check=True
    )
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["threads"] == 1 and got["safe"]
    assert got["written"] == []
