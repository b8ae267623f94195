"""Extending the simulator with a policy, as the README's "Extending / A new policy" says.

The test declares a toy policy through the registry API -- a numba run kernel built from
:mod:`simulate.policies.kernel`, a parameter with a default and a range, and a plain
reference -- and shows that the registry-driven machinery covers it without editing any
other file: spec parsing and validation, cells, ``run_cell``, the CLI's help and choices,
the equivalence check against its reference (which also catches a wrong reference), CRN
and threads.
"""

import numba
import numpy as np
import pytest
import test_equivalence as eq
import test_seeds_crn as crn
from reference import reference_run
from reference.common import cascade_run
from registry_cases import combos, specs

from cascading_bandits.reports.cli import main
from cascading_bandits.simulate import run_cell
from cascading_bandits.simulate.experiments import b_lb_cell
from cascading_bandits.simulate.models import MODEL_NAMES
from cascading_bandits.simulate.policies import (
    Param,
    parse_policy,
    policy_names,
    register_policy,
    unregister_policy,
)
from cascading_bandits.simulate.policies.kernel import (
    NJIT,
    finish,
    observe_w0,
    play,
    select_top,
    step_buffers,
)

NAME = "toy-rotation"


@numba.njit(**NJIT)
def toy_kernel(env, params, ukey, pkey, regret_out, counts_out, trace):
    """Shows items shift + t, shift + t + 1, ... (mod L) at step t: index = -distance."""
    code, attract, satisfy, gamma, K, n, order, fstar, checkpoints, lazy = env
    shift = int(params[0])
    L = attract.size
    S, N = observe_w0(ukey, attract)
    st = step_buffers(L, K)
    idx, taken, sel, lst, clicks, scratch = st
    cum, j = 0.0, np.int64(0)  # not a literal 0: play compiles once
    for t in range(1, n + 1):
        for e in range(L):
            st[0][e] = -float((e - shift - t) % L)
        select_top(st[0], K, st[1], st[2])
        cum, j, _, _ = play(
            t, S, N, ukey, cum, j, code, attract, satisfy, gamma, K, order, fstar, checkpoints,
            sel, lst, clicks, scratch, trace, regret_out,
        )  # fmt: skip
    finish(N, counts_out)


def toy_reference(*args):
    def index(S, N, t, spec, pkey, score):
        L = len(S)
        return [-float((e - int(spec["shift"]) - t) % L) for e in range(L)]

    return cascade_run(index, *args)


def wrong_reference(*args):
    def index(S, N, t, spec, pkey, score):  # off by one step
        L = len(S)
        return [-float((e - int(spec["shift"]) - t - 1) % L) for e in range(L)]

    return cascade_run(index, *args)


@pytest.fixture
def toy():
    decl = register_policy(
        NAME,
        params=(Param("shift", 0.0, 0.0, 64.0, doc="first item shown at step 0"),),
        kernel=toy_kernel,
        reference=toy_reference,
        summary="shows the items in turn (a test of the registry)",
    )
    yield decl
    unregister_policy(NAME)


def test_declared_policy_is_everywhere(toy, capsys):
    assert NAME in policy_names()
    assert parse_policy(f"{NAME}(shift=2)").text == f"{NAME}(shift=2)"
    assert parse_policy(f"{NAME}(shift=0)").text == NAME
    with pytest.raises(ValueError, match=r"parameter shift must be finite and in \[0, 64\]"):
        parse_policy(f"{NAME}(shift=99)")
    # the registry-driven test cases include it, default and variant
    assert NAME in specs() and f"{NAME}(shift=1)" in specs()
    assert (NAME, "dbn", "worst-first") in combos()
    # the CLI lists it in --policy's help and runs it
    assert main(["simulate", "--help"]) == 0
    assert NAME in capsys.readouterr().out.replace("\n", "").replace(" ", "")
    assert main(["simulate", "--weights", "0.5,0.2,0.1", "--K", "1", "--policy",
                 f"{NAME}(shift=1)", "--runs", "2", "--horizon", "30", "--json"]) == 0  # fmt: skip
    assert f'"policy": "{NAME}(shift=1)"' in capsys.readouterr().out
    # cells carry its canonical spec
    cell = b_lb_cell("x", 8, 2, 0.2, 0.1, f"{NAME}(shift=3)", horizon=40, runs=2)
    assert cell.cell_id.endswith(f"{NAME}(shift=3)-best-first")
    res = run_cell(cell, 0)
    assert res.counts.sum() > 0 and res.regret.shape[0] == 2


def test_registry_driven_checks_run_on_it(toy):
    """The equivalence, CRN and thread checks of the built-in policies, on the toy."""
    mine = [c for c in combos() if parse_policy(c[0]).name == NAME]
    assert len(mine) == 2 * len(MODEL_NAMES) * 2  # default + variant, every model, two orders
    for policy, model, order in mine:
        eq.test_engine_equals_reference(policy, model, order, True, "blb")
        crn.test_every_policy_meets_the_users_draws(policy, model, order)
    crn.test_threads_do_not_change_results(f"{NAME}(shift=1)")
    lists = reference_run("cascade", (0.5, 0.2, 0.1), 1, NAME, "best-first", 4, 1, 2)[0]
    assert lists == [[1], [2], [0], [1]]  # by hand: item (0 + t) mod 3 at step t


def test_a_wrong_reference_is_caught(toy):
    register_policy(
        NAME, params=toy.params, kernel=toy_kernel, reference=wrong_reference, replace=True
    )
    with pytest.raises(AssertionError, match="first different list at t = 1"):
        eq.test_engine_equals_reference(NAME, "cascade", "best-first", True, "blb")
