"""Hostile-input audit of every public function of ``cascading_bandits.bounds`` (issue 25).

Deterministic and table-driven. For every public function (the ``__all__`` of each module in
:data:`MODULES` and of the package) a baseline call with valid arguments (:data:`BASE`) is made;
then each parameter in turn is replaced by each value of a hostile pool (:data:`HOSTILE`: None,
strings, bytes, bools, complex, NaN, inf, negative, 0, subnormal, huge ints, numpy scalars, 0-d
and 2-d arrays, ragged and empty lists, ...; instance-like parameters also get
:data:`EDGE_INSTANCES`: means 0 and 1, ties, ``K = L``, one-ulp gaps). Every registered bound
(``bounds.registry.all_bounds()``) is called the same way through ``Bound.__call__``.

A call passes when it

* raises ``ValueError`` whose message names the replaced parameter (for an instance, ``weights``,
  ``K`` or a premise it breaks) and prints no numpy repr; or
* returns a value holding no NaN and no infinity. A function whose documented range includes
  ``+inf`` (``kl(0.5, 0) = inf``) is listed in :data:`DOCUMENTED_NONFINITE` with its rule;

and a numpy scalar, a 0-d array, an integer-valued float or a list standing for the baseline's
own value gives the baseline's result (:data:`equivalents`). Any other exception (TypeError,
OverflowError, ZeroDivisionError, IndexError, ...) fails.

``python tests/test_api_hostile.py [N]`` prints the number of calls and of failures per function
(N failures listed per function, default 3).
"""

from __future__ import annotations

import importlib
import inspect
import math
import re
import signal
import sys
import threading
from fractions import Fraction
from types import SimpleNamespace

import mpmath
import numpy as np
import pytest

import cascading_bandits.bounds as B
from cascading_bandits.bounds.instance import CascadeInstance

#: the modules audited (bounds.registry, bounds.toprank and the catalogs are audited through
#: the registered bounds; the CLI through its own fuzz, tests/test_cli_fuzz.py)
MODULES = (
    "instance", "kl", "indices", "lemma1", "decomposition", "peeling", "upper",
    "garivier_cappe", "lower", "discussion", "later", "profile", "sharp",
)  # fmt: skip

#: numba kernels in ``__all__`` for other kernels: compiled, no input checks by design (their
#: docstrings say so); every checked function that wraps them is audited.
KERNELS = {
    "kl_scalar", "klucb_scalar", "safe_log", "safe_loglog", "klucb_threshold_scalar",
    "ucb1_radius_scalar",
}  # fmt: skip

W4 = (0.6, 0.5, 0.3, 0.1)
INST = CascadeInstance(W4, 2)
U4 = (0.9, 0.2, 0.5, 0.4)


def _payoff(val):
    return val[0] * (1 - val[1])


def _counters(policy, eps=0.5):
    """Counters-shaped data for bounds.profile (the relations of simulate.counters hold)."""
    from cascading_bandits.bounds.profile import proof_thresholds

    n, runs = 1000, 3
    tau, _ = proof_thresholds(W4, 2, policy, n, eps if policy == "cascade-klucb" else None)
    G = np.full((runs, 2, 2), 4)
    M = np.minimum(G, np.floor(tau).astype(int))
    reg = np.array([20.0, 22.0, 25.0])
    return SimpleNamespace(
        weights=W4, K=2, policy=policy, order="best-first", horizon=n, tau=tau, c=3.0,
        G=G, G_good=G, M=M, M_good=M, Mbar_good=G - M, regret=reg, regret_bad=reg / 10,
        bad_steps=np.array([1, 2, 3]), thm1_upper_good=reg * 1.1, thm1_exact_good=reg,
        gaps=INST.gaps(), below=np.ones((runs, 2)), bpath=np.ones((runs, 2)),
    )  # fmt: skip


_UCB_COUNTERS = _counters("cascade-ucb1")
_KL_COUNTERS = _counters("cascade-klucb")

_I = {"inst": INST}
_IN = {"inst": INST, "n": 1000}
_PAIR = {"mu": 0.3, "mu_star": 0.6, "eps": 0.5}
_LKD = {"L": 16, "K": 2, "delta": 0.15}

#: valid arguments of every audited function (optional parameters keep their defaults unless
#: given); the hostile values replace one parameter at a time, optional ones included
BASE = {
    # instance
    "CascadeInstance": {"weights": W4, "K": 2},
    "as_instance": {"instance_or_weights": W4, "K": 2},
    "b_lb": {"L": 16, "K": 2, "p": 0.2, "delta": 0.15},
    # kl
    "kl": {"p": 0.3, "q": 0.6},
    "kl_mp": {"p": 0.3, "q": 0.6, "dps": 20},
    "kl_iv": {"p": 0.3, "q": 0.6},
    "klucb_index": {"mean": 0.3, "count": 10, "threshold": 2.0},
    "klucb_index_mp": {"mean": 0.3, "count": 10, "threshold": 2.0, "dps": 20},
    "kl_upper_root_mp": {"p": 0.3, "r": 0.2, "dps": 20},
    # indices
    "klucb_threshold": {"t": 100},
    "ucb1_radius": {"t": 100, "s": 10},
    "ucb1_index": {"mean": 0.3, "count": 10, "t": 100},
    "cascade_klucb_index": {"mean": 0.3, "count": 10, "t": 100},
    # lemma1
    "lemma1_symbols": {"K": 2},
    "lemma1_lhs": {"x": (0.5, 0.25), "y": (0.75, 0.125)},
    "lemma1_rhs": {"x": (0.5, 0.25), "y": (0.75, 0.125)},
    "lemma1_identity": {"K": 2},
    "prove_lemma1": {"K": 2},
    "lemma1_induction_chain": {"K": 2},
    "prove_lemma1_induction_step": {"K": 2},
    "lemma1_expectation": {"A": [0, 1], "B": [2, 3], "w": W4},
    "lemma1_expectation_enumerated": {"A": [0, 1], "B": [2, 3], "w": W4},
    "expectation_by_enumeration": {"w": W4, "items": [0, 1], "payoff": _payoff},
    "lemma1_terms": {"A": [0, 1], "B": [2, 3], "w": W4},
    "premise_holds": {"A": [0, 1], "B": [2, 3]},
    "exact_probabilities": {"w": W4},
    # decomposition
    "recommended_list": {"U": U4, "K": 2},
    "optimal_items": {"w": W4, "K": 2},
    "sorted_items": {"w": W4},
    "expected_reward": {"A": [2, 0], "w": W4, "K": 2},
    "theorem1_permutation": {"A": [2, 0], "w": W4, "K": 2},
    "conditional_regret": {"A": [2, 0], "w": W4, "K": 2},
    "event_probabilities": {"A": [2, 0], "w": W4, "K": 2},
    "theorem1_sum": {"A": [2, 0], "w": W4, "K": 2},
    "theorem1_alpha": {"w": W4, "K": 2},
    "theorem1_bounds": {"A": [2, 0], "w": W4, "K": 2},
    "theorem1_from_ucbs": {"U": U4, "w": W4, "K": 2},
    # peeling
    "ucb1_peeling_lhs": {"gaps": (0.5, 0.25)},
    "ucb1_peeling_rhs": {"gaps": (0.5, 0.25)},
    "ucb1_peeling_solution": {"gaps": (0.5, 0.25)},
    "lemma2_lhs": {"p": 0.1, "p_opt": (0.6, 0.5)},
    "lemma2_rhs": {"p": 0.1, "p_opt": (0.6, 0.5)},
    "lemma2_rewritten": {"p": 0.1, "p_opt": (0.6, 0.5)},
    # upper
    "theorem2_leading_coefficient": _I,
    "theorem2_bound": _IN,
    "theorem2_curve": {"instance": INST, "horizons": [10, 1000]},
    "theorem2_prepeeling_coefficient": _I,
    "theorem2_prepeeling": _IN,
    "theorem3_leading_coefficient": _I,
    "theorem3_prepeeling_coefficient": _I,
    "theorem3_log_term": {**_IN, "eps": 0.5},
    "theorem3_tail_constants": {"inst": INST, "eps": 0.5},
    "theorem3_constant": {**_IN, "eps": 0.5},
    "theorem3_bound": {**_IN, "eps": 0.5},
    "theorem3_curve": {"instance": INST, "horizons": [10, 1000], "eps": 0.5},
    "theorem3_prepeeling": {**_IN, "eps": 0.5},
    "theorem3_optimal_eps": _IN,
    "theorem3_details": {**_IN, "eps": 0.5},
    # garivier_cappe
    "klucb_tail_constants": _PAIR,
    "klucb_tail_constants_mp": {**_PAIR, "dps": 20},
    "klucb_tail_constants_array": {"mu": [0.3], "mu_star": [0.6], "eps": 0.5},
    "klucb_tail_root": _PAIR,
    "klucb_tail_bound": {**_PAIR, "n": 1000},
    "klucb_tail_chernoff_sum": {**_PAIR, "n": 1000},
    "klucb_tail_event_sum": {**_PAIR, "n": 1000},
    "klucb_tail_expected_bad_rounds": {**_PAIR, "n": 1000},
    "theorem10_bound": {"t": 100},
    "klucb_loglog_term": {"n": 1000},
    "klucb_loglog_constant": {"n": 1000},
    "klucb_loglog_valid_from": {"constant": 7.0},
    # lower
    "theorem4_blb_coefficient": {"L": 16, "K": 2, "p": 0.2, "delta": 0.15},
    "theorem4_general_coefficient": _I,
    "theorem4_sharp_coefficient": _I,
    "theorem4_coefficient": _I,
    "theorem4_bound": _IN,
    "theorem4_curve": {"instance": INST, "horizons": [10, 1000]},
    "blb_parameters": _I,
    # discussion
    "eq7_lower_order": _LKD,
    "eq8_ucb1_orders": _LKD,
    "eq9_klucb_order": _LKD,
    "discussion_orders": _LKD,
    "leading_ratio_klucb_ucb1": {"K": 2, "delta": 0.15},
    "klucb_below_ucb1_delta": {"K": 2},
    # later
    "theorem2_gapfree_split": {"L": 4, "K": 2, "n": 1000, "threshold": 0.1},
    "theorem2_gapfree_threshold": {"L": 4, "K": 2, "n": 1000},
    "theorem2_gapfree_bound": {"L": 4, "K": 2, "n": 1000},
    "kl_quadratic_lower": {"p": 0.3, "q": 0.6},
    "theorem3_gapfree_weight_factor": {"w_max": 0.6},
    "theorem3_gapfree_leading": {"L": 4, "K": 2, "n": 1000, "eps": 0.5},
    "theorem3_gapfree_threshold": {"L": 4, "K": 2, "n": 1000, "eps": 0.5},
    "theorem3_gapfree_constant": {**_IN, "eps": 0.5, "threshold": 0.1},
    "theorem3_gapfree_bound": {**_IN, "eps": 0.5},
    "vial_minimax_lower_order": {"L": 4, "K": 2, "n": 1000},
    "vial_cascadeucb1_lower_order": {"L": 4, "K": 2, "n": 1000},
    "vial_klucb_upper_order": {"L": 4, "K": 2, "n": 1000},
    "vial_variance_aware_upper_order": {"L": 4, "K": 2, "n": 1000},
    "zhong_ts_cascade_upper_order": {"L": 4, "K": 2, "n": 1000},
    "zhong_lower_order": {"L": 4, "K": 2, "n": 1000},
    "list_regret": {"inst": INST, "items": [2, 0]},
    "list_examination": {"inst": INST, "items": [2, 0]},
    "list_regret_excess": {"inst": INST, "items": [2, 0]},
    "graves_lai_coefficient": _I,
    "graves_lai_lp_coefficient": _I,
    "graves_lai_over_theorem4": _I,
    "ledger": {"instance": INST, "n": 1000},
    "theorem3_form": {"n": 1000},
    "upper_bound": {"bound": "theorem2", "inst": INST, "n": 1000},
    # profile
    "proof_thresholds": {"weights": W4, "K": 2, "policy": "cascade-klucb", "n": 1000, "eps": 0.5},
    "proof_chain": {"counters": _KL_COUNTERS, "eps": 0.5},
    "binomial_chain": {"counters": _UCB_COUNTERS},
    "asymptotic_factors": {"weights": W4, "K": 2, "policy": "cascade-klucb", "n": 1000, "eps": 0.5},
    "ratio_interval": {"num": [1.0, 2.0, 3.0], "den": [1.0, 1.0, 2.0], "resamples": 50},
    # sharp
    "ucb1_binomial_bound": _IN,
    "klucb_binomial_bound": _IN,
    "binomial_bound": _IN,
    "binomial_bound_parts": _IN,
    "a_part": _IN,
    "a_part_count": {"n": 1000},
    "ucb1_miss_probability": {"t": 100},
    "b_part_per_item": _IN,
    "b_count_per_item": _IN,
    "admission_thresholds": {"level": 0.5, "s": 10, "n": 1000},
    "chernoff_tail_bound": {"level": 0.5, "mu": 0.3, "S": 100, "n": 1000},
    "binomial_bound_reference": {"inst": INST, "n": 8, "dps": 17},
    "admission_threshold_reference": {"level": 0.5, "s": 10, "n": 1000, "dps": 20},
}

#: hostile values tried in every parameter
HOSTILE = [
    None, "abc", "0.5", "", b"x", True, False, np.bool_(True), 1j, complex(0.5, 0.0),
    math.nan, math.inf, -math.inf, -1, -0.5, 0, 0.0, -0.0, 1, 2, 0.5, 1.5,
    10**400, -(10**400), 10**30, 1e300, 5e-324, 1e-320, 2**63,
    np.float64(math.nan), np.float64(math.inf), np.int64(-1), np.int64(10**18), np.float32(0.5),
    np.uint8(3), np.array(0.5), np.array(math.nan), np.array([0.3]),
    np.array([[0.3, 0.2], [0.1, 0.4]]), np.array([]), np.array(["a"]),
    [], [0.3, None], [[0.1], [0.2, 0.3]], [0.3, [0.2]], (0.3, 0.2), [math.nan, 0.2], [1e-320],
    Fraction(1, 3), object(), {"a": 1}, {0.3},
]  # fmt: skip

#: instances and weights with means 0 and 1, ties, K = L, a one-ulp gap, subnormal weights
EDGE_WEIGHTS = [
    ((1.0, 1.0, 0.0, 0.0), 2),
    ((1.0, 0.5, 0.3, 0.0), 2),
    ((0.6, 0.5, 0.3, 0.0), 2),
    ((1.0,) + (0.85,) * 15, 1),
    ((0.5, 0.5, 0.5, 0.5), 2),
    ((0.6, 0.5, 0.5, 0.1), 2),
    ((0.6, 0.5), 2),
    ((0.5, 0.5 - 2**-54), 1),
    ((1.0, 0.0), 1),
    ((5e-324, 0.0), 1),
    ((1e-200, 0.0, 0.0), 1),
    ((1.0, 1.0 - 2**-53), 1),
]
EDGE_INSTANCES = [CascadeInstance(w, k) for w, k in EDGE_WEIGHTS] + [
    B.b_lb(16, 2, 1.0, 0.15),
    (W4, 2),
    (W4, 5),
    (W4, 2.5),
    (W4, np.int64(2)),
]
INSTANCE_PARAMS = {"inst", "instance", "instance_or_weights"}
WEIGHT_PARAMS = {"weights", "w"}


def _only(i):
    return lambda out: out[i]


def _without(*keys):
    return lambda out: {k: v for k, v in out.items() if k not in keys}


def _anything(out):
    return None


#: functions whose documented range holds +inf at some valid input: the rule as the docstring
#: states it, and the part of the result that must still be finite (None: inf anywhere)
DOCUMENTED_NONFINITE = {
    "kl": ("kl(p, q) = inf when q is 0 or 1 and p != q", _anything),
    "kl_mp": ("as kl", _anything),
    "kl_iv": ("as kl (an interval with an infinite end)", _anything),
    "klucb_loglog_constant": ("F(n) / log log n is +inf for n <= e", _anything),
    "klucb_tail_constants": ("beta = inf for mu = 0 (C2 / n^beta = 0 for n >= 2)", _only(0)),
    "klucb_tail_constants_array": ("as klucb_tail_constants", _only(0)),
    "klucb_tail_constants_mp": (
        "as klucb_tail_constants; kl(mu, mu*) = inf for mu* = 1",
        _without("beta", "kl_r_mu", "kl_mu_mustar"),
    ),
    "theorem3_tail_constants": ("as klucb_tail_constants, pairs with w(e) = 0", _only(0)),
    "theorem3_details": ("beta of the worst pair is inf when its w(e) = 0", _without("beta")),
    "chernoff_tail_bound": ("inf where the boundary is <= mu (no truncation)", _anything),
    "ratio_interval": ("a / 0 = inf for a > 0 (bounds.profile's ratio rule)", _anything),
    "proof_chain": ("a link's ratio to a zero link is inf (bounds.profile)", _anything),
    "binomial_chain": ("as proof_chain", _anything),
}
#: functions whose documented result may hold NaN: ratio_interval's interval with one run
NAN_DOCUMENTED = {"ratio_interval"}

#: aliases a message may use to name a parameter
ALIASES = {
    "inst": ("weights", "K", "instance", "w(", "gap", "delta", "premise", "needs"),
    "instance": ("weights", "K", "instance", "w(", "gap", "delta", "premise", "needs"),
    "instance_or_weights": ("weights", "K", "instance"),
    "w": ("weights", "w(", "probabilit"),
    "weights": ("weights", "w(", "gap"),
    "horizons": ("n",),
    "counters": ("counters",),
    "x": ("x", "lists"),
    "y": ("y", "lists"),
    "A": ("A", "list"),
    "B": ("B", "list"),
}


def _is_kernel(obj) -> bool:
    return hasattr(obj, "py_func")


def public_functions() -> dict:
    """``{name: callable}`` of every audited public function (kernels excepted)."""
    out = {}
    for m in MODULES:
        mod = importlib.import_module(f"cascading_bandits.bounds.{m}")
        names = getattr(mod, "__all__", None)
        if names is None:  # instance.py: its public names
            names = ["CascadeInstance", "as_instance", "b_lb"]
        for n in names:
            obj = getattr(mod, n)
            if callable(obj) and not _is_kernel(obj) and not isinstance(obj, dict):
                out[n] = obj
    for n in B.__all__:
        obj = getattr(B, n)
        if callable(obj) and not _is_kernel(obj):
            out.setdefault(n, obj)
    return out


def _bound_callable(b):
    def call(instance, n, K=None, model="cascade"):
        return b(instance, n, K=K, model=model)

    call.__name__ = f"bound:{b.name}"
    return call


def _bound_base(b):
    for inst in (INST, B.b_lb(8, 2, 0.2, 0.15), CascadeInstance((0.2, 0.1), 1)):
        if b.applies(inst, 1000):
            return {"instance": inst, "n": 1000}
    raise AssertionError(f"no baseline instance for bound {b.name}")  # pragma: no cover


def registered_bounds() -> dict:
    from cascading_bandits.bounds.registry import all_bounds

    return {f"bound:{b.name}": (_bound_callable(b), _bound_base(b)) for b in all_bounds()}


# -- checking one call ---------------------------------------------------------------------


def _nonfinite(x, nan_only=False) -> str | None:
    """'nan' or 'inf' if ``x`` (recursively) holds one (only NaN with ``nan_only``), else None."""
    if isinstance(x, CascadeInstance) or x is None or isinstance(x, (str, bool, Fraction)):
        return None
    if isinstance(x, dict):
        x = list(x.values())
    if isinstance(x, (list, tuple)):
        for v in x:
            r = _nonfinite(v, nan_only)
            if r:
                return r
        return None
    if isinstance(x, mpmath.ctx_iv.ivmpf):
        return _nonfinite([float(x.a), float(x.b)], nan_only)
    if isinstance(x, mpmath.mpf):
        return "nan" if mpmath.isnan(x) else "inf" if mpmath.isinf(x) and not nan_only else None
    if isinstance(x, (float, np.floating, np.ndarray)):
        a = np.asarray(x)
        if a.dtype.kind in "fc":
            if np.isnan(a).any():
                return "nan"
            if np.isinf(a).any() and not nan_only:
                return "inf"
    return None


def _same(a, b) -> bool:
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, (np.ndarray, float, np.floating, int, np.integer)) and isinstance(
        b, (np.ndarray, float, np.floating, int, np.integer)
    ):
        x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
        with np.errstate(invalid="ignore"):  # inf - inf
            return x.shape == y.shape and bool(
                np.all(
                    (x == y) | (np.isnan(x) & np.isnan(y)) | (np.abs(x - y) <= 1e-12 * np.abs(y))
                )
            )
    if isinstance(a, mpmath.ctx_iv.ivmpf) or isinstance(b, mpmath.ctx_iv.ivmpf):
        return str(a) == str(b)
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 - a comparison that fails is a difference
        return False


def _names_param(msg: str, param: str) -> bool:
    names = (param,) + ALIASES.get(param, ())
    return any(
        re.search(rf"(?<![A-Za-z_]){re.escape(n)}(?![A-Za-z_])", msg)
        if n.isidentifier()
        else n in msg
        for n in names
    )


def _show(v) -> str:
    text = repr(v)
    return text if len(text) <= 50 else text[:47] + "..."


#: a call running longer than this (seconds) fails: a hostile value must not hang a function
CALL_LIMIT = 60


class _Hung(Exception):
    pass


def _on_alarm(signum, frame):
    raise _Hung(f"still running after {CALL_LIMIT} s")


def _limited(fn, kwargs):
    if not hasattr(signal, "SIGALRM") or threading.current_thread() is not threading.main_thread():
        return fn(**kwargs)
    old = signal.signal(signal.SIGALRM, _on_alarm)
    signal.alarm(CALL_LIMIT)
    try:
        return fn(**kwargs)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def check_call(name, fn, kwargs, param, value, *, expect=None) -> str | None:
    """Call ``fn(**kwargs)``; None if the outcome is acceptable, else why not."""
    try:
        out = _limited(fn, kwargs)
    except ValueError as exc:
        msg = str(exc)
        if expect is not None and expect[0] == "ok":
            return f"{param}={_show(value)} stands for the baseline's value but raised: {msg}"
        if not _names_param(msg, param):
            return f"{param}={_show(value)}: ValueError not naming {param!r}: {msg}"
        if "np.float" in msg or "np.int" in msg or "array(" in msg:
            return f"{param}={_show(value)}: numpy repr in the message: {msg}"
        return None
    except Exception as exc:  # noqa: BLE001 - every other exception is the failure we look for
        return f"{param}={_show(value)}: {type(exc).__name__}: {exc}"
    bad = _nonfinite(out)
    if bad:
        rule = DOCUMENTED_NONFINITE.get(name)
        part = None if rule is None else rule[1](out)
        if (
            rule is None
            or (part is not None and _nonfinite(part))
            or (name not in NAN_DOCUMENTED and _nonfinite(out, nan_only=True))
        ):
            return f"{param}={_show(value)}: returned a value holding {bad}: {_show(out)}"
    if expect is not None and expect[0] == "ok" and not _same(out, expect[1]):
        return (
            f"{param}={_show(value)}: {_show(out)} differs from the baseline's {_show(expect[1])}"
        )
    return None


def equivalents(v) -> list:
    """Other spellings of the baseline value ``v`` that must give the same result."""
    if isinstance(v, bool) or v is None:
        return []
    if isinstance(v, int):
        return [np.int64(v), np.array(v), float(v)]
    if isinstance(v, float):
        return [np.float64(v), np.array(v)]
    if isinstance(v, (tuple, list)) and v and all(isinstance(x, (int, float)) for x in v):
        return [list(v), np.array(v)] if isinstance(v, tuple) else [tuple(v), np.array(v)]
    return []


def _params(fn):
    return [
        p
        for p in inspect.signature(fn).parameters.values()
        if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
    ]


def cases(name, fn, base):
    """``(param, value, kwargs, expect)`` of every call of the audit of ``fn``."""
    for p in _params(fn):
        has = p.name in base
        if not has and p.default is inspect.Parameter.empty:
            raise AssertionError(f"{name}: no baseline value for {p.name}")
        values = list(HOSTILE)
        if p.name in INSTANCE_PARAMS:
            values += EDGE_INSTANCES
        if p.name in WEIGHT_PARAMS:
            values += [w for w, _ in EDGE_WEIGHTS if len(w) == 4]
        for v in values:
            yield p.name, v, {**base, p.name: v}, None
        if has:
            for v in equivalents(base[p.name]):
                yield p.name, v, {**base, p.name: v}, "baseline"


def audit(name, fn, base) -> tuple[int, list]:
    """Run every case of ``fn``; (number of calls, failures)."""
    try:
        ref = ("ok", fn(**base))
    except Exception as exc:  # noqa: BLE001
        return 1, [f"the baseline call raised {type(exc).__name__}: {exc}"]
    calls, failures = 1, []
    if _nonfinite(ref[1]) and name not in DOCUMENTED_NONFINITE:
        failures.append(f"baseline returned a non-finite value {_show(ref[1])}")
    elif _nonfinite(ref[1], nan_only=True) and name not in NAN_DOCUMENTED:
        failures.append(f"baseline returned NaN: {_show(ref[1])}")
    for param, v, kwargs, expect in cases(name, fn, base):
        calls += 1
        why = check_call(name, fn, kwargs, param, v, expect=ref if expect else None)
        if why:
            failures.append(why)
    return calls, failures


FUNCTIONS = public_functions()
BOUNDS = registered_bounds()


def test_every_public_function_has_a_baseline():
    assert set(FUNCTIONS) <= set(BASE), sorted(set(FUNCTIONS) - set(BASE))
    assert set(BASE) <= set(FUNCTIONS), sorted(set(BASE) - set(FUNCTIONS))


def test_kernels_are_documented_as_unchecked():
    found = set()
    for m in MODULES:
        mod = importlib.import_module(f"cascading_bandits.bounds.{m}")
        for n in getattr(mod, "__all__", ()):
            if _is_kernel(getattr(mod, n)):
                found.add(n)
                assert "no input checks" in (getattr(mod, n).__doc__ or ""), n
    assert found == KERNELS


@pytest.mark.parametrize("name", sorted(BASE))
def test_public_function_hostile_inputs(name):
    calls, failures = audit(name, FUNCTIONS[name], BASE[name])
    assert not failures, f"{name}: {len(failures)} of {calls} calls failed:\n" + "\n".join(
        failures[:25]
    )


#: hostile calls that once failed in bounds/registry.py (a ragged ``n`` handed to numpy, an
#: array ``model`` compared with strings): audited with every bound, and here on their own
REGISTRY_CASES = [
    ("n", [[0.1], [0.2, 0.3]]),
    ("n", [0.3, [0.2]]),
    ("model", np.array([[0.3, 0.2], [0.1, 0.4]])),
    ("model", np.array([])),
    ("model", 3),
]


@pytest.mark.parametrize("name", sorted(BOUNDS))
def test_registered_bound_hostile_inputs(name):
    fn, base = BOUNDS[name]
    calls, failures = audit(name, fn, base)
    assert not failures, f"{name}: {len(failures)} of {calls} calls failed:\n" + "\n".join(
        failures[:25]
    )


def test_registry_ragged_n_and_array_model_are_refused_clearly():
    fn, base = BOUNDS["bound:theorem2"]
    for p, v in REGISTRY_CASES:
        assert check_call("bound:theorem2", fn, {**base, p: v}, p, v) is None, (p, v)
        with pytest.raises(ValueError, match=f"^{p} must"):
            fn(**{**base, p: v})


def main() -> int:  # pragma: no cover - the counting entry point
    total = bad = 0
    rows = [(n, FUNCTIONS[n], BASE[n]) for n in sorted(BASE)]
    rows += [(n, *BOUNDS[n]) for n in sorted(BOUNDS)]
    for name, fn, base in rows:
        calls, failures = audit(name, fn, base)
        total += calls
        bad += len(failures)
        if failures:
            print(f"{name}: {len(failures)} / {calls}")
            for f in failures[: int(sys.argv[1]) if len(sys.argv) > 1 else 3]:
                print("    " + f[:300])
    print(f"[hostile audit] {len(rows)} functions and bounds, {total} calls, {bad} failed")
    return 1 if bad else 0


if __name__ == "__main__":  # pragma: no cover
    from cascading_bandits.bounds._pystack import deep_call  # sympy recurses deeply

    raise SystemExit(deep_call(main))
