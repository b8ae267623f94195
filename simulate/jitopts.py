"""numba options of the simulator's kernels and helpers, and Python-callable twins of helpers.

numba builds two wrappers around every function it compiles: a CPython one (boxing and
unboxing each argument, so that Python can call it) and a C one (for first-class function
values). Neither is used by a helper that only kernels call, yet both are lowered,
optimised, compiled to machine code and cached with it: measured on a first
``cascading simulate`` (empty numba cache), they were about a tenth of the compile time of
a KL-UCB kernel, more for helpers with many array arguments. So:

* :data:`NJIT` -- run kernels (called from Python): no C wrapper;
* :data:`INNER` -- helpers that allocate (numba's runtime, NRT) and are called only from
  kernels: no wrapper at all;
* :data:`STEP` -- helpers that allocate nothing and that a step calls now and then (a new
  item state, an overlap): no wrapper, no NRT, a call. Force-inlined, each call site is one
  more copy for LLVM to optimise in every library that inlines it (a KL-UCB kernel's first
  compile took 3 s longer with its cold paths inlined), for little speed.
* :data:`HOT` -- per-step helpers that allocate nothing: no wrapper, and no NRT, so numba
  emits no reference counting for their array arguments (atomic calls that cost up to a
  third of a CascadeKL-UCB step when ``play`` was inlined at numba's IR level); and
  ``forceinline``, LLVM's ``alwaysinline``: the caller gets the helper's machine code in
  place of a call. numba passes an array as seven or more machine words, so a call of
  ``play`` moved about 90 words through the stack; inlined, the loop keeps the arrays'
  fields in registers. Measured (cascade-klucb, L = 16, K = 4, one thread): about 420 ns
  a step called, 290 ns inlined.

All are cached on disk, release the GIL (the engine spreads runs over threads) and use
numpy's float semantics (no ZeroDivisionError checks). Decorate a kernel with
``@numba.njit(**NJIT)`` and a helper with ``@helper(INNER)`` or ``@helper(HOT)``: numba
would crash the interpreter on a Python call of a function compiled without its CPython
wrapper, and :func:`helper` makes that call a ``TypeError`` instead. :func:`python_twin`
compiles a copy that Python can call (tests, interactive checks): the same source and
callees, so the same machine code for the same arguments.
"""

from __future__ import annotations

import functools
import types

import numba
from numba.core.caching import NullCache
from numba.core.registry import CPUDispatcher

__all__ = ["NJIT", "INNER", "STEP", "HOT", "helper", "python_twin"]

NJIT = dict(cache=True, nogil=True, error_model="numpy", no_cfunc_wrapper=True)
INNER = dict(NJIT, no_cpython_wrapper=True)
STEP = dict(INNER, _nrt=False)
HOT = dict(STEP, forceinline=True)


class HelperDispatcher(CPUDispatcher):
    """A numba function compiled for kernels only: a Python call raises instead of crashing."""

    def __call__(self, *args, **kwargs):
        name = self.py_func.__qualname__
        raise TypeError(
            f"{name} is compiled for numba kernels only (no Python entry point); "
            f"call python_twin({name})(...) from Python"
        )


def helper(options):
    """Decorator: compile a helper with ``options`` (:data:`INNER`, :data:`HOT`) for kernels.

    The result is a numba dispatcher that kernels call as any other; a call from Python
    raises ``TypeError`` (use :func:`python_twin`).
    """

    def wrap(fn):
        ref = numba.njit(**options)(fn)  # numba's own reading of the options
        disp = HelperDispatcher(py_func=fn, locals=ref.locals, targetoptions=ref.targetoptions)
        if options.get("cache"):
            disp.enable_caching()
        return disp

    return wrap


@functools.cache
def python_twin(fn):
    """A Python-callable copy of the numba function ``fn`` (compiled on first call, cached).

    ``fn`` is a dispatcher made with :data:`HOT`, :data:`INNER` or any other options; the
    twin has the same options less ``no_cpython_wrapper``.
    """
    if not isinstance(fn, CPUDispatcher):
        raise ValueError(f"python_twin needs a numba-compiled function, got {fn!r}")
    opts = {
        k: v for k, v in fn.targetoptions.items() if k not in ("no_cpython_wrapper", "nopython")
    }
    f = fn.py_func
    # the same code under another qualified name: numba names its cache files by that name
    # and keys their entries by signature only, so a twin cached under fn's name would
    # share (and overwrite) fn's entries, machine code without the CPython wrapper included
    twin = types.FunctionType(f.__code__, f.__globals__, f.__name__, f.__defaults__, f.__closure__)
    twin.__qualname__ = f"{f.__qualname__}.python_twin"
    twin.__module__ = f.__module__
    twin.__kwdefaults__ = f.__kwdefaults__
    disp = numba.njit(**opts)(twin)
    if not isinstance(fn._cache, NullCache):
        disp.enable_caching()  # cached like fn (a twin compiled per process cost seconds)
    return disp
