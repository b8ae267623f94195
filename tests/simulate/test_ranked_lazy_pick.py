"""ranked-klucb's bracketed selection for small L (``_klucb_select._lazy_select``, m = need = 1).

Bandit k picks the item of largest KL-UCB index and shows its best item not shown above
(ties to the smaller id). With m = 1 the selection's tau is the largest lower end of a
candidate not shown (items shown above push none), so the items shown above, often the
bandit's own top ones, are popped only when they lie above its best unshown item. Checked
here against the definition (every item's exact index, ``klucb_scalar``, sorted by index
then id) along steps of one selection state: random counts with ties (S == N, S == 0,
N == 0), random shown sets of up to four items (often the top ones), random observations
(an attractive one voids the item's stored bound, as the kernel's feedback does), and
thresholds across several epochs of upper bounds.
"""

import numpy as np
import pytest

from cascading_bandits.bounds.indices import klucb_threshold_scalar
from cascading_bandits.bounds.kl import klucb_scalar
from cascading_bandits.simulate.jitopts import python_twin
from cascading_bandits.simulate.policies import _klucb_select as ks

# the helpers are compiled for kernels only: their Python-callable twins (same source)
lazy_select, epoch = python_twin(ks._lazy_select), python_twin(ks.epoch)


def _order(S, N, th):
    """Items by (exact index desc, id asc): the definition."""
    idx = [klucb_scalar(S[e] / N[e] if N[e] else 0.0, float(N[e]), th) for e in range(S.size)]
    return sorted(range(S.size), key=lambda e: (-idx[e], e))


@pytest.mark.parametrize("L_,nmax,seed", [(16, 12, 0), (40, 30, 1), (7, 5, 2)])
def test_pick_and_shown_item_are_the_definition(L_, nmax, seed):
    rng = np.random.default_rng(seed)
    N = rng.integers(0, nmax, L_).astype(np.int64)
    kind = rng.integers(0, 4, L_)
    S = np.where(kind == 0, 0, np.where(kind == 1, N, rng.integers(0, N + 1)))
    S = np.minimum(S, N).astype(np.int64)
    F = np.zeros((L_, ks.FW))
    Ist = np.zeros((L_, ks.IW), np.int64)
    U = np.full(L_ + 1, np.inf)  # no valid upper bound, no epoch yet
    U[L_] = -1.0
    tops, out = np.empty(1), np.zeros(L_, np.int64)
    shown = np.zeros(L_, np.bool_)
    inc = np.zeros(2, np.int64)
    t_ep, th_ep = np.int64(0), 0.0
    one = np.int64(1)
    popped_shown = 0
    for t in range(1, 400):
        th = klucb_threshold_scalar(float(t), 3.0)
        t_ep, th_ep = epoch(t, 3.0, t_ep, th_ep)
        order = _order(S, N, th)
        nab = int(rng.integers(0, 5))
        above = order[:nab] if rng.random() < 0.6 else list(rng.choice(L_, nab, replace=False))
        for e in above:
            shown[e] = True
        npop = lazy_select(
            S, N, F, Ist, U, t, th, t_ep, th_ep, inc, np.int64(2), one, shown, one, tops, out
        )
        want_b = next(e for e in order if not shown[e])
        assert (out[0], out[npop - 1]) == (order[0], want_b), t
        assert list(out[:npop]) == order[: order.index(want_b) + 1]  # popped in order
        popped_shown += npop - 1
        for e in above:
            shown[e] = False
        inc[0], inc[1] = out[npop - 1], out[0]  # the kernel's incumbents: shown item, pick
        for e in rng.choice(L_, 3, replace=False):  # observations
            N[e] += 1
            if rng.random() < 0.4:
                S[e] += 1
                U[e] = np.inf  # an attractive observation voids its stored bound
    assert popped_shown > 50  # the shown items on top were popped past, often
