"""The engine's kernel choice (``lazy=None``): the plain loop for a short run while the lazy
selection is not compiled, the lazy kernel otherwise; same numbers either way."""

import numpy as np
import pytest

from cascading_bandits.simulate import engine, run_cell
from cascading_bandits.simulate.engine import (
    COLD_PLAIN_BUDGET_S,
    pick_kernel,
    plain_seconds,
    simulate_runs,
)
from cascading_bandits.simulate.experiments import b_lb_cell
from cascading_bandits.simulate.policies import (
    get_policy,
    policy_names,
    register_policy,
    unregister_policy,
)
from cascading_bandits.simulate.policies.ts import INVERSION_MIN_L


def _cold(kernel):
    return False


def _warm(kernel):
    return True


@pytest.mark.parametrize("name", ["cascade-klucb", "ranked-klucb", "ranked-klucb-rba"])
def test_cold_short_runs_use_the_plain_loop_and_long_ones_the_lazy_kernel(name):
    decl = get_policy(name)
    L, K = 16, 4
    lazy, plain = decl.kernel_for(L, True), decl.kernel_for(L, False)
    assert lazy is not plain
    per_run = decl.plain_step_s(L, K) * 1000  # CPU seconds of one 1000-step run
    short = int(COLD_PLAIN_BUDGET_S / per_run)  # runs of 1000 steps within the budget
    assert short >= 1
    assert pick_kernel(decl, L, K, short, 1000, None, ready=_cold) == (plain, False)
    assert pick_kernel(decl, L, K, short + 1, 1000, None, ready=_cold) == (lazy, True)
    # compiled (or cached): the lazy kernel, however short the run
    assert pick_kernel(decl, L, K, 1, 1, None, ready=_warm) == (lazy, True)
    # asked for: that kernel, cold or not
    assert pick_kernel(decl, L, K, 1, 1, True, ready=_cold) == (lazy, True)
    assert pick_kernel(decl, L, K, 10**6, 10**6, False, ready=_warm) == (plain, False)


def test_the_budget_is_measured_in_plain_loop_seconds():
    # cascade-klucb, L = 16: about 4 us a plain step, so 20 runs x 1000 steps fit and
    # 20 runs x 1e5 steps (the paper's scale) do not
    decl = get_policy("cascade-klucb")
    assert pick_kernel(decl, 16, 4, 20, 1000, None, ready=_cold)[1] is False
    assert pick_kernel(decl, 16, 4, 20, 100_000, None, ready=_cold)[1] is True
    # the same short job on many more items costs more plain steps: lazy
    assert pick_kernel(decl, 2048, 4, 20, 1000, None, ready=_cold)[1] is True


def test_policies_with_one_kernel_have_no_choice():
    ucb = get_policy("cascade-ucb1")
    k = ucb.kernel_for(16, True)
    assert pick_kernel(ucb, 16, 4, 1, 1, None, ready=_cold) == (k, True)
    ts = get_policy("cascade-ts")  # below INVERSION_MIN_L the two loops are one kernel
    L = INVERSION_MIN_L - 1
    assert pick_kernel(ts, L, 4, 1, 1, None, ready=_cold) == (ts.kernel_for(L, True), True)
    # from INVERSION_MIN_L on the lazy kernel (the threshold sampler) draws other numbers than
    # the plain loop (same law), so the engine never swaps the plain loop in for it
    assert pick_kernel(ts, INVERSION_MIN_L, 4, 1, 1, None, ready=_cold) == (
        ts.kernel_for(INVERSION_MIN_L, True),
        True,
    )


def test_a_policy_without_a_plain_cost_always_runs_its_lazy_kernel():
    base = get_policy("cascade-klucb")
    decl = register_policy(
        "toy-no-cost", kernel=base.kernel, reference=base.reference, uses_lazy=True
    )
    try:
        assert pick_kernel(decl, 16, 4, 1, 1, None, ready=_cold) == (
            decl.kernel_for(16, True),
            True,
        )
    finally:
        unregister_policy("toy-no-cost")


@pytest.mark.parametrize("bad", ["yes", 1, 0, 1.0, "auto"])
def test_lazy_must_be_true_false_or_none(bad):
    decl = get_policy("cascade-klucb")
    with pytest.raises(ValueError, match="lazy must be True, False or None"):
        pick_kernel(decl, 16, 4, 1, 1, bad)
    assert pick_kernel(decl, 16, 4, 1, 1, np.True_) == (decl.kernel_for(16, True), True)


def test_a_plain_cost_needs_a_lazy_policy():
    base = get_policy("cascade-ucb1")
    with pytest.raises(ValueError, match="plain_step_s"):
        register_policy(
            "toy-cost", kernel=base.kernel, reference=base.reference, plain_step_s=lambda L, K: 1.0
        )
    with pytest.raises(ValueError, match="plain_step_s"):
        register_policy(
            "toy-cost",
            kernel=base.kernel,
            reference=base.reference,
            uses_lazy=True,
            plain_step_s=1.0,
        )
    assert "toy-cost" not in policy_names()


@pytest.mark.parametrize("cost", [float("nan"), -1e-7, float("inf"), "1e-7", None])
def test_a_plain_cost_must_be_a_finite_number(cost):
    base = get_policy("cascade-klucb")
    decl = register_policy(
        "toy-bad-cost",
        kernel=base.kernel,
        reference=base.reference,
        uses_lazy=True,
        plain_step_s=lambda L, K: cost,
    )
    try:
        with pytest.raises(ValueError, match="toy-bad-cost: plain_step_s"):
            pick_kernel(decl, 16, 4, 1, 1, None, ready=_cold)
    finally:
        unregister_policy("toy-bad-cost")


def test_the_budget_counts_what_earlier_plain_runs_spent():
    decl = get_policy("cascade-klucb")
    one = plain_seconds(decl, 16, 4, 20, 1000)
    assert one == pytest.approx(20 * 1000 * decl.plain_step_s(16, 4))
    assert pick_kernel(decl, 16, 4, 20, 1000, None, ready=_cold, spent=0.0)[1] is False
    spent = COLD_PLAIN_BUDGET_S - one / 2  # half of this run no longer fits
    assert pick_kernel(decl, 16, 4, 20, 1000, None, ready=_cold, spent=spent)[1] is True


def _spy(monkeypatch, ready):
    """Record the kernels the engine calls first, with a fresh plain-loop ledger."""
    used = []
    real = engine._call_first
    monkeypatch.setattr(engine, "_ready", ready)
    monkeypatch.setattr(engine, "_PLAIN_SPENT", {})
    monkeypatch.setattr(engine, "_call_first", lambda k, n, a: (used.append((k, n)), real(k, n, a)))
    return used


def test_run_cell_on_a_cold_cache_runs_the_plain_loop_with_the_same_numbers(monkeypatch):
    cell = b_lb_cell("cold", 16, 4, 0.2, 0.15, "cascade-klucb", horizon=300, runs=3)
    decl = get_policy("cascade-klucb")
    used = _spy(monkeypatch, _warm)
    warm = run_cell(cell, 7)
    assert used == [(decl.kernel_for(16, True), "cascade-klucb")]
    used = _spy(monkeypatch, _cold)
    cold = run_cell(cell, 7)
    assert used == [(decl.kernel_for(16, False), "cascade-klucb plain-loop")]
    np.testing.assert_array_equal(cold.regret, warm.regret)
    np.testing.assert_array_equal(cold.counts, warm.counts)


def test_many_short_runs_compile_the_lazy_kernel_once_the_budget_is_spent(monkeypatch):
    # the budget is per process and lazy kernel, not per run: a search or a sweep of many
    # short cells would otherwise run the plain loop for ever
    cell = b_lb_cell("cold", 16, 4, 0.2, 0.15, "cascade-klucb", horizon=200, runs=2)
    decl = get_policy("cascade-klucb")
    used = _spy(monkeypatch, _cold)
    per_run = plain_seconds(decl, 16, 4, 2, 200)
    monkeypatch.setattr(engine, "COLD_PLAIN_BUDGET_S", 2.5 * per_run)
    results = [run_cell(cell, 3) for _ in range(4)]
    lazy, plain = decl.kernel_for(16, True), decl.kernel_for(16, False)
    assert [k for k, _ in used] == [plain, plain, lazy, lazy]
    assert engine._PLAIN_SPENT == {lazy: pytest.approx(2 * per_run)}
    for r in results[1:]:
        np.testing.assert_array_equal(r.regret, results[0].regret)


def test_explicit_kernels_are_honoured_and_not_counted(monkeypatch):
    cell = b_lb_cell("cold", 16, 4, 0.2, 0.15, "cascade-klucb", horizon=50, runs=1)
    decl = get_policy("cascade-klucb")
    used = _spy(monkeypatch, _cold)
    run_cell(cell, 1, lazy=True)
    run_cell(cell, 1, lazy=False)
    assert [k for k, _ in used] == [decl.kernel_for(16, True), decl.kernel_for(16, False)]
    assert engine._PLAIN_SPENT == {}


def test_simulate_runs_keeps_the_lazy_kernel_by_default(monkeypatch):
    # tests and benchmarks that ask for the lazy selection get it, cold cache or not
    cell = b_lb_cell("cold", 16, 4, 0.2, 0.15, "cascade-klucb", horizon=50, runs=1)
    used = _spy(monkeypatch, _cold)
    keys = np.array([1], np.uint64), np.array([2], np.uint64)
    simulate_runs(cell.click_model(), cell.policy, "best-first", 50, *keys, np.array([50]))
    assert [k for k, _ in used] == [get_policy("cascade-klucb").kernel_for(16, True)]
