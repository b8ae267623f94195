"""The policy registry: one declaration per policy, parsed specs such as ``cascade-klucb(c=0)``.

A policy is declared once, in its own module, with :func:`register_policy`: its name,
its parameters (defaults and ranges), its run kernel (one numba function with the
signature of :data:`KERNEL_SIGNATURE`), the orders it allows and where its plain
reference implementation lives in the test suite. Everything else -- the engine, the
command line's choices and help, the cells, the registry-driven tests -- reads the
registry, so adding a policy touches its own module and its reference only.

Spec strings
------------
``name`` or ``name(p=v, q=v1,v2)``. Parameters not given take their defaults. The
canonical string (:attr:`PolicySpec.text`) lists the parameters in declaration order
and OMITS those equal to their default, so ``cascade-klucb(c=3)`` is ``cascade-klucb``
and ``cascade-ts(prior=2,1)`` stays as written. Numbers are printed as the shortest
``repr`` of the float that round-trips (``3.0`` -> ``3``, ``0.05`` -> ``0.05``), so
the canonical string identifies the parameters exactly.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

__all__ = [
    "Param",
    "PolicyDecl",
    "PolicySpec",
    "register_policy",
    "unregister_policy",
    "get_policy",
    "policy_names",
    "parse_policy",
    "parse_policies",
    "format_number",
    "KERNEL_SIGNATURE",
    "ORDERS",
]

ORDERS = ("best-first", "worst-first")

#: The one signature every policy's run kernel has (numba, ``cache=True, nogil=True``):
#: ``kernel(env, params, ukey, pkey, regret_out, counts_out, trace)`` with
#: ``env = (model_code, attract, satisfy, gamma, K, n, order, fstar, checkpoints, lazy)``
#: (see :func:`simulate.engine.simulate_runs`), ``params`` the spec's float64 values in
#: declaration order, ``ukey``/``pkey`` the run's users' and policy keys (uint64),
#: ``regret_out`` (m,), ``counts_out`` (L,) and ``trace`` (steps, 2, K) the run's rows.
KERNEL_SIGNATURE = "kernel(env, params, ukey, pkey, regret_out, counts_out, trace)"


def format_number(x: float) -> str:
    """Shortest round-tripping text of a float, without a trailing ``.0``."""
    r = repr(float(x))
    return r[:-2] if r.endswith(".0") else r


@dataclass(frozen=True)
class Param:
    """A policy parameter: ``size`` floats, each in the range [lo, hi] (open ends optional).

    Parameters
    ----------
    name : str
        Identifier used in spec strings (``name=value``).
    default : float or tuple of float
        A tuple of ``size`` floats when ``size > 1``.
    lo, hi : float
        Range of every value; ``hi = inf`` means any finite value above ``lo``.
    lo_open, hi_open : bool
        Exclude the end.
    doc : str
        One line for the help text.
    """

    name: str
    default: float | tuple
    lo: float = -math.inf
    hi: float = math.inf
    lo_open: bool = False
    hi_open: bool = False
    doc: str = ""
    size: int = 1

    def __post_init__(self):
        if not self.name.isidentifier():
            raise ValueError(f"parameter name must be an identifier, got {self.name!r}")
        d = self.default if isinstance(self.default, tuple) else (self.default,)
        if len(d) != self.size:
            raise ValueError(f"default of {self.name} must hold {self.size} numbers, got {d!r}")
        object.__setattr__(self, "default", tuple(self.check(v) for v in d))

    def range_text(self) -> str:
        lo = "(" if self.lo_open else "["
        hi = ")" if self.hi_open or self.hi == math.inf else "]"
        return f"{lo}{format_number(self.lo)}, {format_number(self.hi)}{hi}"

    def check(self, v, policy: str = "") -> float:
        who = f"{policy}: " if policy else ""
        try:
            x = float(v)
        except (TypeError, ValueError):
            raise ValueError(f"{who}parameter {self.name} must be a number, got {v!r}") from None
        x += 0.0  # -0.0 -> 0.0: one text per number
        ok = math.isfinite(x) and (
            (x > self.lo if self.lo_open else x >= self.lo)
            and (x < self.hi if self.hi_open else x <= self.hi)
        )
        if not ok:
            raise ValueError(
                f"{who}parameter {self.name} must be finite and in {self.range_text()}, got {v!r}"
            )
        return x

    def text(self, values: tuple) -> str:
        return f"{self.name}=" + ",".join(format_number(v) for v in values)


@dataclass(frozen=True)
class PolicyDecl:
    """Declaration of a policy (see :func:`register_policy`)."""

    name: str
    params: tuple
    kernel: object = field(repr=False, compare=False)
    reference: object = field(repr=False, compare=False)
    summary: str = ""
    orders: tuple = ORDERS
    uses_lazy: bool = False
    plain_step_s: object = field(default=None, repr=False, compare=False)
    consts: tuple = ()

    def kernel_for(self, L: int, lazy: bool):
        """The numba kernel a run with L items uses."""
        k = self.kernel
        return k if hasattr(k, "signatures") else k(L, lazy)

    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(name)


_REGISTRY: dict[str, PolicyDecl] = {}


def register_policy(
    name: str,
    *,
    params=(),
    kernel,
    reference,
    summary: str = "",
    orders=ORDERS,
    uses_lazy: bool = False,
    plain_step_s=None,
    consts=(),
    replace: bool = False,
) -> PolicyDecl:
    """Declare a policy; returns its declaration.

    Parameters
    ----------
    name : str
        Lower-case name, letters, digits and ``-`` (``cascade-klucb``).
    params : sequence of Param
        Its parameters, in the order the kernel reads them from ``params``.
    kernel : numba dispatcher, or function (L, lazy) -> numba dispatcher
        ``njit(cache=True, nogil=True)`` function with the signature
        :data:`KERNEL_SIGNATURE`, compiled on first use only; or a plain function choosing
        among several such kernels by the number of items and the ``lazy`` flag, so a
        run compiles only the variant it uses.
    reference : str or callable
        Its plain reference implementation for the equivalence tests: a callable, or
        ``"module:function"`` importable from the tests' directory. Called as
        ``reference(model, weights, K, spec, order, horizon, ukey, pkey, nu, gamma)``,
        it returns ``(lists, clicks, cumulative_regret, counts)`` (see tests/simulate).
    summary : str
        One line for the help text.
    orders : tuple of str
        Orders it accepts (ranked bandits: ``("best-first",)``).
    uses_lazy : bool
        Whether ``lazy`` (exact lazy selection vs plain loop) changes its code path.
    plain_step_s : function (L, K) -> float, optional
        Rough CPU seconds of one step of the plain loop (``lazy=False``) on L items and
        lists of K. With it, a run that leaves the choice to the engine (``lazy=None``,
        :func:`simulate.engine.simulate_runs`) uses the plain loop while the lazy kernel
        is not compiled yet and the plain loop's whole work is short
        (:data:`simulate.engine.COLD_PLAIN_BUDGET_S`): the two take the same decisions,
        and the plain loop compiles sooner. Without it the lazy kernel is used.
    consts : sequence of float
        Hidden constants the kernel reads after the parameters' values in ``params``
        (not parameters: no spec names them). Two policies that differ in a rule only
        can then share one kernel, compiled once, each declaring its own constant
        (ranked-klucb and ranked-klucb-rba: the reward rule).
    replace : bool
        Allow redeclaring an existing name (tests).
    """
    if not isinstance(name, str) or not name or not all(ch.isalnum() or ch == "-" for ch in name):
        raise ValueError(f"policy name must be letters, digits and '-', got {name!r}")
    if name != name.lower():
        raise ValueError(f"policy name must be lower case, got {name!r}")
    if name in _REGISTRY and not replace:
        raise ValueError(f"policy {name!r} is already declared")
    params = tuple(params)
    if not all(isinstance(p, Param) for p in params):
        raise TypeError("params must be a sequence of Param")
    if len({p.name for p in params}) != len(params):
        raise ValueError(f"policy {name}: parameter names must be distinct")
    bad = [o for o in orders if o not in ORDERS]
    if not orders or bad:
        raise ValueError(f"orders must be a non-empty subset of {ORDERS}, got {orders!r}")
    if not callable(kernel):
        raise TypeError("kernel must be a numba-compiled function or a chooser of one")
    if not (callable(reference) or (isinstance(reference, str) and ":" in reference)):
        raise TypeError("reference must be a callable or a 'module:function' string")
    if plain_step_s is not None and not (uses_lazy and callable(plain_step_s)):
        raise ValueError(
            f"policy {name}: plain_step_s must be a function (L, K) -> seconds, and only a "
            "policy with uses_lazy=True has a plain loop to choose"
        )
    try:
        consts = tuple(float(x) for x in consts)
    except (TypeError, ValueError):
        raise ValueError(f"policy {name}: consts must be a sequence of numbers") from None
    if not all(math.isfinite(x) for x in consts):
        raise ValueError(f"policy {name}: consts must be finite, got {consts!r}")
    decl = PolicyDecl(
        name,
        params,
        kernel,
        reference,
        summary,
        tuple(orders),
        bool(uses_lazy),
        plain_step_s,
        consts,
    )
    _REGISTRY[name] = decl
    return decl


def unregister_policy(name: str) -> None:
    """Remove a declaration (tests that declare a toy policy clean up with this)."""
    _REGISTRY.pop(name, None)


def policy_names() -> tuple:
    """Names of the declared policies, in declaration order."""
    return tuple(_REGISTRY)


def get_policy(name: str) -> PolicyDecl:
    """The declaration of ``name``; ValueError naming the known policies otherwise."""
    try:
        return _REGISTRY[name]
    except (KeyError, TypeError):
        raise ValueError(
            f"unknown policy {name!r}; known policies: {', '.join(_REGISTRY)}"
        ) from None


@dataclass(frozen=True)
class PolicySpec:
    """A policy with its parameter values (frozen, hashable); build with :func:`parse_policy`.

    Attributes
    ----------
    name : str
    values : tuple of (str, tuple of float)
        Every parameter, in declaration order, defaults filled in.
    """

    name: str
    values: tuple

    @property
    def decl(self) -> PolicyDecl:
        return get_policy(self.name)

    @property
    def text(self) -> str:
        """Canonical string: parameters equal to their default are omitted."""
        decl = self.decl
        parts = [
            p.text(v) for p, (_, v) in zip(decl.params, self.values, strict=True) if v != p.default
        ]
        return f"{self.name}({', '.join(parts)})" if parts else self.name

    def __str__(self) -> str:
        return self.text

    @property
    def params(self) -> dict:
        """``{parameter: value}`` (a float, or a tuple for multi-number parameters), as
        :meth:`bounds.registry.Bound.covers_policy` reads them."""
        return {k: (v[0] if len(v) == 1 else v) for k, v in self.values}

    def __getitem__(self, name: str):
        """Value of parameter ``name`` (a float, or a tuple for multi-number parameters)."""
        for k, v in self.values:
            if k == name:
                return v[0] if len(v) == 1 else v
        raise KeyError(f"policy {self.name} has no parameter {name!r}")

    def kernel_params(self) -> np.ndarray:
        """The values as the kernel reads them: float64, parameters in declaration order,
        then the declaration's hidden constants (:func:`register_policy`'s ``consts``)."""
        flat = [x for _, v in self.values for x in v] + list(self.decl.consts)
        return np.array(flat, dtype=np.float64).reshape(len(flat))

    def replace(self, **kw) -> PolicySpec:
        """The same policy with some parameters changed (validated)."""
        args = {k: (v if len(v) > 1 else v[0]) for k, v in self.values}
        args.update(kw)
        return make_spec(self.name, **args)


def make_spec(name: str, **values) -> PolicySpec:
    """A validated :class:`PolicySpec` from keyword values (tuples for multi-number ones)."""
    decl = get_policy(name)
    known = {p.name for p in decl.params}
    for k in values:
        if k not in known:
            have = ", ".join(p.name for p in decl.params) or "none"
            raise ValueError(f"policy {name} has no parameter {k!r}; its parameters: {have}")
    out = []
    for p in decl.params:
        v = values.get(p.name, p.default)
        vs = tuple(v) if isinstance(v, (tuple, list)) else (v,)
        if len(vs) != p.size:
            raise ValueError(
                f"{name}: parameter {p.name} takes {p.size} number(s), got {len(vs)}: {v!r}"
            )
        out.append((p.name, tuple(p.check(x, name) for x in vs)))
    return PolicySpec(name, tuple(out))


def _split_top(text: str, sep: str = ",") -> list:
    """Split at ``sep`` outside parentheses; ValueError on unbalanced parentheses."""
    parts, depth, cur = [], 0, []
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth < 0:
                raise ValueError(f"unbalanced ')' in policy spec {text!r}")
        if ch == sep and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    if depth != 0:
        raise ValueError(f"unbalanced '(' in policy spec {text!r}")
    parts.append("".join(cur))
    return parts


def parse_policy(text) -> PolicySpec:
    """Parse and validate one spec: ``name`` or ``name(p=v, q=v1,v2)``.

    A :class:`PolicySpec` is returned as is. ValueError names an unknown policy (and the
    known ones), an unknown parameter (and the policy's parameters), a value out of its
    range (and the range), or a malformed text.
    """
    if isinstance(text, PolicySpec):
        return text
    if not isinstance(text, str):
        raise TypeError(f"policy must be a spec string, got {type(text).__name__}")
    s = text.strip()
    if "(" not in s:
        if ")" in s:
            raise ValueError(f"unbalanced ')' in policy spec {text!r}")
        return make_spec(s)
    name, _, rest = s.partition("(")
    name = name.strip()
    if not rest.endswith(")") or "(" in rest or ")" in rest[:-1]:
        raise ValueError(f"policy spec must read name(p=v, ...), got {text!r}")
    get_policy(name)
    body = rest[:-1].strip()
    values: dict[str, list] = {}
    last = None
    for tok in body.split(",") if body else []:
        tok = tok.strip()
        if "=" in tok:
            k, _, v = tok.partition("=")
            k = k.strip()
            if k in values:
                raise ValueError(f"{name}: parameter {k} given twice in {text!r}")
            values[k] = [v.strip()]
            last = k
        elif last is not None and tok:
            values[last].append(tok)
        else:
            raise ValueError(f"policy spec parameters must read p=v, got {tok!r} in {text!r}")
    decl = get_policy(name)
    kw = {}
    for k, vs in values.items():
        try:
            size = decl.param(k).size
        except KeyError:
            have = ", ".join(p.name for p in decl.params) or "none"
            raise ValueError(
                f"policy {name} has no parameter {k!r}; its parameters: {have}"
            ) from None
        if len(vs) != size:
            raise ValueError(
                f"{name}: parameter {k} takes {size} number(s), got {len(vs)}: {','.join(vs)}"
            )
        kw[k] = tuple(vs) if size > 1 else vs[0]
    return make_spec(name, **kw)


def parse_policies(text: str) -> list:
    """Comma-separated specs (commas inside parentheses belong to a spec), e.g.
    ``"cascade-ucb1,cascade-klucb(c=0)"``; at least one."""
    if not isinstance(text, str):
        raise TypeError(f"policies must be a string, got {type(text).__name__}")
    specs = [parse_policy(p) for p in _split_top(text) if p.strip()]
    if not specs:
        raise ValueError("policy list must name at least one policy")
    return specs


def help_text() -> str:
    """One line per declared policy: canonical default spec, parameters and ranges."""
    lines = []
    for d in _REGISTRY.values():
        ps = ", ".join(
            f"{p.name}={','.join(format_number(v) for v in p.default)} in {p.range_text()}"
            for p in d.params
        )
        lines.append(
            f"{d.name}" + (f"({ps})" if ps else "") + (f": {d.summary}" if d.summary else "")
        )
    return "\n".join(lines)
