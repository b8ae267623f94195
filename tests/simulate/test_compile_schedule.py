"""The first compilations of a pool sweep: which cells go first (one per kernel) and numba's
CPU target loaded once before the workers are forked."""

import subprocess
import sys

import pytest

from cascading_bandits.simulate.experiments import b_lb_cell
from cascading_bandits.simulate.policies import parse_policy
from cascading_bandits.simulate.sweep import _cost, _kernel_key, _submission_order


def _cells():
    # (policy, L, runs): ranked-klucb and ranked-klucb-rba share one kernel at L = 16
    plan = [
        ("cascade-ucb1", 16, 2),
        ("ranked-klucb", 16, 8),
        ("ranked-klucb-rba", 16, 8),
        ("cascade-klucb", 16, 4),
        ("ranked-klucb", 16, 4),
        ("cascade-ucb1", 16, 6),
        ("toprank", 16, 1),
    ]
    return [
        b_lb_cell(f"c{i}", L, 4, 0.2, 0.15, pol, horizon=100, runs=runs)
        for i, (pol, L, runs) in enumerate(plan)
    ]


def test_policies_that_share_a_kernel_get_one_head():
    cells = _cells()
    k = parse_policy("ranked-klucb").decl.kernel_for(16, True)
    assert parse_policy("ranked-klucb-rba").decl.kernel_for(16, True) is k  # the premise
    order = _submission_order(cells)
    assert sorted(order) == list(range(len(cells)))  # a permutation: every cell once
    keys = [_kernel_key(cells[i]) for i in order]
    n_kernels = len({id(x) for x in keys})
    heads = order[:n_kernels]
    # one cell of each kernel first, costliest first among them
    assert len({id(_kernel_key(cells[i])) for i in heads}) == n_kernels
    assert [_cost(cells[i]) for i in heads] == sorted(
        (_cost(cells[i]) for i in heads), reverse=True
    )
    # the rba cell (the same kernel as ranked-klucb's head) is not among the heads
    assert 2 not in heads and 1 in heads
    # the rest costliest first
    rest = order[n_kernels:]
    assert [_cost(cells[i]) for i in rest] == sorted((_cost(cells[i]) for i in rest), reverse=True)


def test_one_head_per_policy_when_kernels_differ():
    cells = [c for c in _cells() if not c.policy.startswith("ranked-klucb-rba")]
    order = _submission_order(cells)
    policies = [cells[i].policy for i in order]
    n = len(set(policies))
    assert len(set(policies[:n])) == n  # every policy's first cell before any second one


def test_empty_and_unknown_policies_keep_a_plain_order():
    assert _submission_order([]) == []

    class Odd:  # not a registered policy: keyed by its text, ordered by cost
        def __init__(self, policy, runs):
            self.policy, self.runs, self.horizon, self.L, self.K = policy, runs, 10, 16, 4

    odd = [Odd("no-such-policy", 1), Odd("no-such-policy", 3)]
    assert _kernel_key(odd[0]) == "no-such-policy"
    assert _submission_order(odd) == [1, 0]


_FORKED = r"""
import sys
from cascading_bandits.simulate import sweep

def first_compile_imports():
    import numba
    before = set(sys.modules)
    numba.njit(lambda x: x + 1)(1)
    return sorted(m for m in set(sys.modules) - before if m.startswith(("numba.np", "scipy")))

if __name__ == "__main__":
    assert "numba.np.arraymath" not in sys.modules  # nothing loaded the target at import
    ex = sweep.start_forked_pool(1)
    assert ex is not None
    try:
        print(repr(ex.submit(first_compile_imports).result()))
    finally:
        ex.shutdown()
"""


def _run(tmp_path, name, text) -> str:
    """Run ``text`` as a script in a fresh interpreter; its stdout (it must exit 0)."""
    script = tmp_path / f"{name}.py"
    script.write_text(text)
    out = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=300, cwd=tmp_path
    )
    assert out.returncode == 0, out.stderr
    return out.stdout


@pytest.mark.skipif(sys.platform == "win32", reason="fork pools are POSIX")
def test_forked_workers_inherit_the_loaded_target(tmp_path):
    # a worker's first compilation imports none of the target's registries (numpy's array
    # functions, scipy's BLAS through numba's linear algebra): the parent loaded them
    assert _run(tmp_path, "forked", _FORKED).strip().splitlines()[-1] == "[]"


_FRESH = r"""
import sys, threading
import numba
from cascading_bandits.simulate.jitopts import prepare_target
before = set(sys.modules)
numba.njit(lambda x: x + 1)(1)
print(int(any(m.startswith("numba.np.arraymath") for m in set(sys.modules) - before)))
"""


def test_without_preparation_a_first_compile_loads_the_target(tmp_path):
    # the control of the test above: the same first compilation in a process that did not
    # prepare the target imports numba's array registry (what prepare_target moves earlier)
    assert _run(tmp_path, "fresh", _FRESH).strip().splitlines()[-1] == "1"


_PREPARE = r"""
import sys, threading
from cascading_bandits.simulate.jitopts import prepare_target
from cascading_bandits.simulate.sweep import fork_is_safe
assert "numba.np.arraymath" not in sys.modules
prepare_target()
prepare_target()  # a second call is harmless
print(int("numba.np.arraymath" in sys.modules), threading.active_count(), int(fork_is_safe()))
"""


def test_prepare_target_loads_the_registries_and_starts_no_thread(tmp_path):
    assert _run(tmp_path, "prepare", _PREPARE).split() == ["1", "1", "1"]
