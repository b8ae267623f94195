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
callees, so the same results for the same arguments.

A helper's own machine code is never run: a Python call is refused (below), and a kernel
links the helper's LLVM module into its own and compiles the whole. numba nevertheless
generates machine code for every function it compiles, and caches it. Helpers are
therefore *link-only* (:class:`LinkOnlyLibrary`): numba runs its function passes on their
module but neither its module passes (the kernel runs them over the linked whole: done here
too, they optimised each helper twice) nor the execution engine, and caches it as LLVM
bitcode. Measured on a first ranked-klucb compile, one process, empty cache: 11.1 -> 9.3 s
CPU (L = 16) and 21.3 -> 16.9 s (L = 2048), the same numbers, and within 2% the same
instructions a step (callgrind: ranked-klucb 7,798 -> 7,647 at L = 16 and 4,123 -> 4,096
at L = 2048, cascade-klucb 2,536 -> 2,547, cascade-ucbv 3,660 -> 3,639). Earlier steps:
a kernel first linked the module as numba's code generation had left it (rewritten in
place by loop strength reduction and address sinking), then the module-optimised one, with
the same numbers; dropping the helpers' code generation cut a first cascade-klucb compile's
machine-code generation (L = 16, empty cache) from 0.95 to 0.43 s of about 4.4 s. A
helper whose optimised module, callees included, needs the execution engine (code that
reads a numba environment, such as ``print`` or an exception with run-time arguments, or
a recursive call) is compiled and cached the way numba compiles any function.
``CASCADING_LINK_ONLY=0`` in the environment restores numba's own handling (helpers
compiled to machine code, cached as objects); the two read each other's cache entries,
so the setting may change between runs.
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
import types

import numba
from numba.core import caching, compiler, sigutils
from numba.core.caching import NullCache
from numba.core.codegen import JITCodeLibrary, JITCPUCodegen, RuntimeLinker
from numba.core.compiler_lock import global_compiler_lock
from numba.core.registry import CPUDispatcher

try:
    import fcntl
except ImportError:  # not POSIX: helpers compile without a lock between processes
    fcntl = None

__all__ = [
    "NJIT",
    "INNER",
    "STEP",
    "HOT",
    "helper",
    "python_twin",
    "compiling",
    "LinkOnlyLibrary",
    "LINK_ONLY",
    "prepare_target",
]

NJIT = dict(cache=True, nogil=True, error_model="numpy", no_cfunc_wrapper=True)
INNER = dict(NJIT, no_cpython_wrapper=True)
STEP = dict(INNER, _nrt=False)
HOT = dict(STEP, forceinline=True)


class _EnvCodegen:
    """The process's codegen as a link-only library sees it: ``set_env`` sets a function's
    environment pointer through the execution engine, so it does nothing for a module
    that is not there (whose code reads no environment: :meth:`LinkOnlyLibrary._needs_engine`)."""

    __slots__ = ("_library",)

    def __init__(self, library):
        self._library = library

    def set_env(self, env_name, env):
        if self._library._machine_code:
            self._library._codegen.set_env(env_name, env)

    def __getattr__(self, name):
        return getattr(self._library._codegen, name)


#: a load of a numba environment pointer in LLVM IR text (typed or opaque pointers)
_ENV_LOAD = re.compile(r'= load [^\n]*@"?_ZN08NumbaEnv')


class LinkOnlyLibrary(JITCodeLibrary):
    """A numba code library that is optimised and linked into callers, never compiled to
    machine code on its own.

    ``finalize`` links the callees' modules; it skips numba's module optimisation (each
    kernel that links the module runs it over the linked whole) and the execution engine
    (code generation), and caches the module as LLVM bitcode (numba's ``"bitcode"``
    serialisation, which numba itself can load too).
    Function addresses are 0: nothing may call it from Python, which
    :class:`HelperDispatcher` enforces. A module that needs the engine
    (:meth:`_needs_engine`) is finalised the way numba finalises any library.
    """

    _machine_code = False

    def _needs_engine(self):
        """Whether the optimised module, callees included, needs the execution engine after
        all: code that reads a numba environment (boxing for ``print``, an exception with
        run-time arguments: the engine holds the pointer numba sets), or a placeholder of a
        recursive call (resolved against the engine's symbols)."""
        mod = self._final_module
        prefix = RuntimeLinker.PREFIX
        if any(gv.name.startswith(prefix) for gv in mod.global_variables):
            return True
        return _ENV_LOAD.search(str(mod)) is not None  # about 1 ms per 40k characters

    def _optimize_final_module(self):
        # Nothing: every kernel that links this module runs the module passes over the
        # linked whole, so running them here too optimised each helper twice (three times
        # for a helper linked by a helper). Its functions keep numba's function passes.
        pass

    def _finalize_final_module(self):
        if self._needs_engine():
            self._machine_code = True
            super()._optimize_final_module()  # machine code of its own: optimise it first
            super()._finalize_final_module()
            return
        self._finalize_dynamic_globals()  # a helper with dynamic globals is not cached
        self._verify_declare_only_symbols()
        self._finalized = True

    def get_pointer_to_function(self, name):
        if self._machine_code:
            return super().get_pointer_to_function(name)
        self._ensure_finalized()
        return 0

    @property
    def codegen(self):
        return _EnvCodegen(self)

    def serialize_using_object_code(self):
        if self._machine_code:
            return super().serialize_using_object_code()
        return self.serialize_using_bitcode()


class _LinkOnlyCompiler(compiler.Compiler):
    """numba's nopython pipeline, lowering into a :attr:`library_class` (a subclass of the
    compiler may name a subclass of :class:`LinkOnlyLibrary`)."""

    library_class = LinkOnlyLibrary

    def compile_extra(self, func):
        if self.state.library is None:
            lib = self.library_class(self.state.targetctx.codegen(), func.__qualname__)
            lib.enable_object_caching()
            self.state.library = lib
        return super().compile_extra(func)


class _LinkOnlyCacheImpl(caching.CompileResultCacheImpl):
    """Rebuilds a cached helper's bitcode as a :class:`LinkOnlyLibrary` (numba's own rebuild
    would generate its machine code); entries with machine code (``CASCADING_LINK_ONLY=0``)
    load as numba loads them."""

    def rebuild(self, target_context, payload):
        if payload[0][1] != "bitcode":
            return super().rebuild(target_context, payload)
        cg = target_context.codegen()
        # numba rebuilds the library with codegen._library_class; this runs under numba's
        # compiler lock (Dispatcher.compile), which every compilation and cache load holds
        cg._library_class = LinkOnlyLibrary
        try:
            return super().rebuild(target_context, payload)
        finally:
            del cg._library_class  # the class attribute (JITCodeLibrary) shows again


class _LinkOnlyCache(caching.FunctionCache):
    _impl_class = _LinkOnlyCacheImpl


def _link_only_supported() -> bool:
    """Whether this numba has the internals :class:`LinkOnlyLibrary` relies on (checked,
    not assumed: another layout compiles helpers numba's own way)."""
    need = (
        (JITCodeLibrary, "_finalize_dynamic_globals"),
        (JITCodeLibrary, "_verify_declare_only_symbols"),
        (JITCodeLibrary, "serialize_using_bitcode"),
        (JITCodeLibrary, "_finalize_final_module"),
        (RuntimeLinker, "PREFIX"),
        (JITCPUCodegen, "_library_class"),
        (compiler.Compiler, "compile_extra"),
        (compiler.CompileResult, "_rebuild"),
    )
    return all(hasattr(c, a) for c, a in need) and JITCPUCodegen._library_class is JITCodeLibrary


#: whether helpers are link-only in this process (environment ``CASCADING_LINK_ONLY=0``:
#: numba's own machine code and cache format)
LINK_ONLY = os.environ.get("CASCADING_LINK_ONLY", "1") != "0" and _link_only_supported()


#: lock files of this process's compilations in progress -> (fd, depth): a helper compiled
#: again within its own compilation (another signature) takes its lock once
_HELD: dict = {}


@contextlib.contextmanager
def _compile_lock(path):
    """Hold an exclusive ``flock`` on ``path`` (created if missing) while a helper compiles,
    so that processes sharing a numba cache compile it once: the second one waits, then
    finds the first one's entry in the cache and loads it.

    Measured on a report from an empty cache: its processes compiled the same helpers
    (``play``, ``step_buffers``) at the same moment, each before the other had saved them.
    Re-entrant within a process (the caller holds numba's compiler lock). Nothing is locked
    where ``fcntl`` is missing or the lock file cannot be opened (the compilation then runs
    as numba runs it); a process that dies holding the lock releases it (the kernel drops a
    dead process's flocks). No deadlock between processes: a compilation waits only for the
    locks of the helpers it calls, and helpers do not call each other in a cycle.
    """
    held = _HELD.get(path)
    if held is not None:
        _HELD[path] = (held[0], held[1] + 1)
        try:
            yield
        finally:
            fd, depth = _HELD[path]
            _HELD[path] = (fd, depth - 1)
        return
    fd = None
    if fcntl is not None:
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
            fcntl.flock(fd, fcntl.LOCK_EX)
        except OSError:
            if fd is not None:
                os.close(fd)
            fd = None
    if fd is None:
        yield
        return
    _HELD[path] = (fd, 1)
    try:
        yield
    finally:
        del _HELD[path]
        os.close(fd)  # releases the lock


@contextlib.contextmanager
def compiling(dispatcher):
    """Context of a compilation (or cache load) of the numba function ``dispatcher``: numba's
    compiler lock, and the lock file beside its cache index (:func:`_compile_lock`) if it
    is cached on disk. :class:`HelperDispatcher` compiles under it; the engine calls a
    kernel for its first compilation under it (simulate.engine).
    """
    try:
        index = dispatcher._cache._cache_file._index_path
        os.makedirs(os.path.dirname(index), exist_ok=True)
    except (AttributeError, OSError):  # not cached, another numba layout, no cache directory
        index = None
    # numba's compiler lock first (as a compilation takes it): one thread of this process
    # at a time holds or waits for the file locks, so _HELD needs no lock of its own
    with global_compiler_lock:
        if index is None:
            yield
        else:
            with _compile_lock(index + ".lock"):
                yield


class HelperDispatcher(CPUDispatcher):
    """A numba function compiled for kernels only: a Python call raises instead of crashing.

    With :data:`LINK_ONLY` its code is a :class:`LinkOnlyLibrary`, cached as bitcode. A
    signature not compiled in this process yet is compiled (or loaded from numba's cache)
    under a lock shared by the processes that use the same cache (:func:`_compile_lock`).
    """

    def enable_caching(self):
        self._cache = (_LinkOnlyCache if LINK_ONLY else caching.FunctionCache)(self.py_func)

    def compile(self, sig):
        args, _ = sigutils.normalize_signature(sig)
        if tuple(args) in self.overloads:
            return super().compile(sig)
        with compiling(self):
            return super().compile(sig)

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
        disp = HelperDispatcher(
            py_func=fn,
            locals=ref.locals,
            targetoptions=ref.targetoptions,
            pipeline_class=_LinkOnlyCompiler if LINK_ONLY else compiler.Compiler,
        )
        if options.get("cache"):
            disp.enable_caching()
        return disp

    return wrap


_PREPARED = False


def prepare_target() -> None:
    """Set up numba's compiler in this process now, once: its CPU target (the typing and
    lowering registries, and the modules they import: numpy's array functions, scipy's BLAS
    and LAPACK bindings through numba's linear algebra), its contexts and code generator.

    A process does this at its first compilation or cache load: measured, 0.45-0.53 s of CPU
    of a one-line function's first compilation (0.05 s for its second); a forked child's
    first load of a cached kernel took 0.65 s of CPU, 0.02 s when its parent had compiled a
    one-line function before the fork, and its first compile 1.4 s against 0.85 s. A process
    that forks workers calls this first (:func:`simulate.sweep.start_forked_pool`, the
    report's verify processes): they inherit it instead of each doing it again. Done by
    compiling a one-liner of no module: nothing is written to numba's cache and no kernel
    depends on it, so no number changes. Starts no thread, so a fork stays safe afterwards;
    a second call costs nothing.
    """
    global _PREPARED
    if _PREPARED:
        return
    numba.njit(lambda x: x + 1)(1)
    _PREPARED = True


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
