"""Fuzz of every name in ``cascading_bandits.bounds.__all__`` with bad and edge values.

Each public function (and class) is called with arguments drawn per parameter name: a valid
value, or one from a pool of bad and edge values (None, NaN, inf, negative, 0, 1, subnormal,
huge, numpy scalars, ragged lists, wrong shapes, strings, ...). The properties:

* only ``ValueError`` escapes (also for None, strings and objects: one exception type for bad
  input, which the command line catches);
* a ``ValueError`` names the argument (one of the function's parameter names, or for an
  instance argument ``weights`` / ``K``) and never prints a numpy repr (``np.float64(``);
* a call that returns gives no NaN (inf is a legitimate value, e.g. ``kl(0.5, 0)``).

``__all__`` is iterated, so a new public function is fuzzed at once; its parameters get
valid values by name (``VALID`` below) and bad values from the pool otherwise. The default
run draws ``FUZZ_EXAMPLES`` (10, or the environment's ``BOUNDS_FUZZ_EXAMPLES``) examples per
name, about 500 calls; the ``slow`` test draws ``MANY_EXAMPLES`` (600, or 24 times the
environment's value) per name through the same check (about 28000 calls).
Counts of calls and outcomes are printed at the end of the module (``pytest -s``).
"""

from __future__ import annotations

import collections
import inspect
import math
import os
import re
from fractions import Fraction

import numpy as np
import pytest
from _twins import twins
from hypothesis import HealthCheck
from hypothesis import strategies as st

import cascading_bandits.bounds as B

FUZZ_EXAMPLES = int(os.environ.get("BOUNDS_FUZZ_EXAMPLES", "10"))
MANY_EXAMPLES = 24 * int(os.environ.get("BOUNDS_FUZZ_EXAMPLES", "25"))
COUNTS: collections.Counter = collections.Counter()

# -- valid values by parameter name -------------------------------------------------------

prob = st.floats(0.0, 1.0)
small_int = st.integers(1, 6)
probs = st.lists(prob, min_size=1, max_size=6)


@st.composite
def instance(draw):
    L = draw(st.integers(1, 6))
    K = draw(st.integers(1, L))
    cut = draw(st.floats(0.0, 0.9))
    top = draw(st.lists(st.floats(cut + 0.05, 1.0), min_size=K, max_size=K))
    bottom = draw(st.lists(st.floats(0.0, cut), min_size=L - K, max_size=L - K))
    w = tuple(top + bottom)
    return draw(st.sampled_from([B.CascadeInstance(w, K), (w, K)]))


@st.composite
def item_list(draw):
    return draw(st.permutations(range(4)))[: draw(st.integers(1, 4))]


horizon = st.one_of(st.integers(1, 10**6), st.sampled_from([1, 2, 3, 1e5, 10**9]))
VALID = {
    "weights": st.tuples(prob, prob, prob),
    "w": st.lists(prob, min_size=4, max_size=4),
    "K": small_int,
    "L": st.integers(1, 40),
    "p": prob,
    "q": prob,
    "mean": prob,
    "delta": st.floats(1e-6, 0.5),
    "count": st.integers(1, 10**6),
    "threshold": st.floats(0, 100),
    "t": st.integers(1, 10**6),
    "s": st.integers(1, 10**6),
    "c": st.sampled_from([3.0, 0.0, 2.5]),
    "n": horizon,
    "horizons": st.lists(st.integers(1, 10**6), min_size=1, max_size=5),
    "eps": st.floats(1e-6, 1e3),
    "form": st.sampled_from(["paper", "proof"]),
    "kind": st.sampled_from(["general", "sharp"]),
    "bound": st.sampled_from(["theorem2", "corollary2", "theorem3", "corollary3"]),
    "order": st.sampled_from(["decreasing", "increasing"]),
    "dps": st.integers(17, 40),
    "grid": st.integers(3, 60),
    "inst": instance(),
    "instance": instance(),
    "instance_or_weights": instance(),
    "A": item_list(),
    "B": item_list(),
    "U": st.lists(st.floats(0, 2), min_size=4, max_size=4),
    "gaps": st.lists(st.floats(1e-6, 1.0), min_size=1, max_size=5).map(
        lambda g: sorted(g, reverse=True)
    ),
    "p_opt": st.lists(st.floats(0.5, 1.0), min_size=1, max_size=4).map(
        lambda g: sorted(g, reverse=True)
    ),
    "check_premise": st.booleans(),
}
# parameters whose valid values must stay small (sympy proofs, exact enumerations)
SIZE_LIMITED = {"prove_lemma1", "prove_lemma1_induction_step", "lemma1_identity"}

# -- bad and edge values ------------------------------------------------------------------

BAD = [
    None,
    math.nan,
    math.inf,
    -math.inf,
    -1,
    -0.5,
    0,
    0.0,
    -0.0,
    1,
    1.0,
    2,
    5e-324,
    1e-300,
    1e-308,
    1e300,
    1e9,
    10**30,
    np.float64(0.2),
    np.float64(math.nan),
    np.int64(3),
    np.int32(2),
    np.float32(0.5),
    np.bool_(True),
    True,
    "abc",
    "0.5",
    "",
    b"x",
    [],
    [0.1, None],
    [[0.1], [0.2, 0.3]],
    [0.1, [0.2]],
    [0.3, 0.2, 0.1],
    [1e-200],
    [5e-324, 0.0],
    [math.nan, 0.2],
    np.array([0.1, 0.2]),
    np.array([[0.1, 0.2]]),
    np.array([], dtype=float),
    np.array(["a"]),
    (0.1, 0.2),
    ([0.3, 0.2], 1),
    ([0.3, 0.2], 5),
    ([5e-324, 0.0], 1),
    1j,
    Fraction(1, 3),
    object(),
    {"a": 1},
]


def _arg(name):
    valid = VALID.get(name)
    bad = st.sampled_from(BAD)
    if valid is None:
        return bad
    return st.one_of(valid, valid, bad)  # a valid value two times in three


def _params(obj):
    sig = inspect.signature(obj)
    return [
        p for p in sig.parameters.values() if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
    ]


def _mentions_argument(msg, names):
    """Whether ``msg`` names one of ``names`` as a word (``n`` in "n must", not in "must")."""
    names = set(names)
    if names & {"inst", "instance", "instance_or_weights"}:
        names |= {"weights", "K"}
    if "w" in names:
        names |= {"weights"}
    return any(re.search(rf"(?<![A-Za-z_]){re.escape(n)}(?![A-Za-z_])", msg) for n in names)


def _has_nan(x):
    if isinstance(x, dict):
        return any(_has_nan(v) for v in x.values())
    if isinstance(x, (list, tuple)):
        return any(_has_nan(v) for v in x)
    if isinstance(x, (float, np.floating)):
        return math.isnan(x)
    if isinstance(x, np.ndarray) and x.dtype.kind == "f":
        return bool(np.isnan(x).any())
    return False


def _call(name, data):
    obj = getattr(B, name)
    params = _params(obj)
    kwargs = {}
    for p in params:
        if p.default is not inspect.Parameter.empty and data.draw(st.booleans()):
            continue  # leave an optional argument at its default half of the time
        if name in SIZE_LIMITED and p.name == "K":
            kwargs[p.name] = data.draw(st.one_of(st.integers(1, 4), st.sampled_from(BAD)))
        else:
            kwargs[p.name] = data.draw(_arg(p.name), label=p.name)
    COUNTS["calls"] += 1
    try:
        out = obj(**kwargs)
    except ValueError as exc:
        COUNTS["ValueError"] += 1
        msg = str(exc)
        assert _mentions_argument(msg, [p.name for p in params]), (name, kwargs, msg)
        assert "np.float" not in msg and "np.int" not in msg, (name, kwargs, msg)
        return
    COUNTS["returned"] += 1
    if not isinstance(out, (B.CascadeInstance,)):
        assert not _has_nan(out), (name, kwargs, out)


NAMES = [n for n in B.__all__ if callable(getattr(B, n))]


@pytest.fixture(scope="module", autouse=True)
def _report():
    yield
    print(f"\n[api fuzz] {len(NAMES)} names; " + ", ".join(f"{k}={v}" for k, v in COUNTS.items()))


@twins(
    FUZZ_EXAMPLES,
    MANY_EXAMPLES,
    dict(data=st.data()),
    suppress_health_check=list(HealthCheck),
)
@pytest.mark.parametrize("name", NAMES)
def test_fuzz_public_api(name, data):
    _call(name, data)


def test_every_public_name_is_fuzzed():
    assert set(NAMES) == set(B.__all__)


# -- the cases of the robustness issue, one by one ---------------------------------------------


def test_issue_cases():
    with pytest.raises(ValueError, match="p must"):
        B.kl_iv("abc", 0.5)
    with pytest.raises(ValueError, match="q must"):
        B.kl_iv(0.5, None)
    with pytest.raises(ValueError, match=r"\[lo, hi\]"):
        B.kl_iv([0.1, 0.2, 0.3], 0.5)
    # exact (fractions of the binary values): no underflow of 1e-200 squared
    assert B.ucb1_peeling_lhs([1e-200]) == 1e200
    with pytest.raises(ValueError, match="float64 range"):
        B.ucb1_peeling_lhs([5e-324])
    with pytest.raises(ValueError, match="weights"):
        B.theorem2_bound(([5e-324, 0.0], 1), 1)  # 12/5e-324 overflows: was nan
    with pytest.raises(ValueError, match="delta"):
        B.b_lb(30, 3, 0.6, 1e-308)  # p - delta rounds to p
    for L in (1e9, 1e300, 10**400):
        with pytest.raises(ValueError, match="L must be an integer <= 1000000"):
            B.b_lb(L, 3, 0.2, 0.1)
    with pytest.raises(ValueError, match="eps = 1e-300"):
        B.theorem3_bound(B.b_lb(16, 2, 0.2, 0.15), 100, eps=1e-300)
    with pytest.raises(ValueError, match="eps = 1e-300"):
        B.theorem3_curve(B.b_lb(16, 2, 0.2, 0.15), [100], eps=1e-300)
    with pytest.raises(ValueError, match="K must be an integer in"):
        B.prove_lemma1(10**30)
    with pytest.raises(ValueError, match="dps must be an integer <= "):
        B.kl_mp(0.1, 0.2, dps=10**9)


def test_huge_horizon_is_finite():
    inst = B.b_lb(16, 2, 0.2, 0.15)
    for f in (B.theorem2_bound, B.theorem3_bound, B.theorem4_bound):
        v = f(inst, 1e300)
        assert math.isfinite(v) and v > 0
    assert math.isfinite(B.theorem3_bound(inst, 1e300, form="proof"))
    assert np.isfinite(B.theorem3_curve(inst, [1e300, 10**300], form="proof")).all()


def test_numpy_scalars_accepted_and_messages_plain():
    inst = B.b_lb(np.int64(16), np.int64(2), np.float64(0.2), np.float64(0.15))
    assert inst == B.b_lb(16, 2, 0.2, 0.15)
    assert B.theorem3_bound(inst, np.int64(1000), eps=np.float64(0.5)) == B.theorem3_bound(
        inst, 1000, eps=0.5
    )
    assert B.kl(np.float32(0.5), np.float64(0.25)) == B.kl(0.5, 0.25)
    assert B.klucb_threshold(np.int64(100)) == B.klucb_threshold(100)
    with pytest.raises(ValueError) as exc:
        B.theorem3_bound(inst, 100, eps=np.float64(-0.2))
    assert "np.float64" not in str(exc.value) and "-0.2" in str(exc.value)
    with pytest.raises(ValueError) as exc:
        B.klucb_threshold(np.array([np.inf]))
    assert "np.float" not in str(exc.value)
