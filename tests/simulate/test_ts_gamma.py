"""cascade-ts below INVERSION_MIN_L items: ``kernel_gamma`` keeps each item's Gamma-draw
constants and must give the numbers of the plain loop that calls
:func:`simulate.rng.beta_draw` for every item (``_ts_kernels.kernel_plain`` there), bit
for bit: regret, counts and every list."""

import numpy as np
import pytest

from cascading_bandits.bounds.instance import b_lb
from cascading_bandits.simulate.models import make_model
from cascading_bandits.simulate.policies._ts_gamma import kernel_gamma
from cascading_bandits.simulate.policies._ts_kernels import kernel_plain
from cascading_bandits.simulate.policies.ts import INVERSION_MIN_L
from cascading_bandits.simulate.rng import policy_keys, users_keys


@pytest.mark.parametrize(
    "L,K,prior,order",
    [(16, 4, (1.0, 1.0), 0), (32, 8, (2.0, 3.5), 1), (16, 2, (1.0, 1.0), 0),
     (INVERSION_MIN_L - 1, 4, (1.5, 1.0), 0)],
)  # fmt: skip
def test_kernel_gamma_equals_the_plain_loop_of_beta_draws(L, K, prior, order):
    w = tuple(b_lb(L, K, 0.2, 0.15).weights)
    m = make_model("cascade", w, K)
    ss = np.random.SeedSequence(5)
    uk, pk = users_keys(ss, w, 1), policy_keys(ss, 1)
    attract, satisfy, gamma = m.kernel_args()
    n = 3000
    fstar = float(m.expected_reward(m.optimal_list()))
    env = (int(m.code), attract, satisfy, float(gamma), K, n, order, fstar,
           np.array([n // 2, n]), True)  # fmt: skip
    outs = []
    for kern in (kernel_gamma, kernel_plain):
        reg, cnt, tr = np.zeros(2), np.zeros(L, np.int64), np.zeros((n, 2, K), np.int64)
        kern(env, np.array(prior), uk[0], pk[0], reg, cnt, tr)
        outs.append((reg, cnt, tr))
    for x, y in zip(*outs, strict=True):
        np.testing.assert_array_equal(x, y)
    assert outs[0][0][1] > 0 and outs[0][1].sum() > L + n  # regret, more than one observation
