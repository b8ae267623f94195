"""Run a call on a pre-grown CPython frame stack: numba compiles up to a quarter faster.

Since CPython 3.11 the frames of Python functions live on a per-thread stack of chunks
(16 KiB each). A call that does not fit in the current chunk maps a new one, and the
return that empties it unmaps it at once. Code that recurses up and down across a
chunk's edge many times - numba's compiler does, typing and lowering nested functions -
therefore maps and unmaps 16 KiB, and faults in four fresh pages, on every crossing:
about 3e5 times in the first compile of a KL-UCB kernel, 3 of its 13-14 s CPU (measured
with ``strace -c``: 3e5 mmap/munmap pairs of 16 KiB from
``_PyThreadState_BumpFramePointerSlow``).

:func:`deep_call` calls a function from a frame with 2**18 local slots. The chunk made
for that frame is 4 MiB, and the frames of the call it makes fit in the 2 MiB left over,
so no chunk is mapped or unmapped however often they go up and down. The cost is that
one mapping, once per call. On an interpreter without the chunked stack (or if the frame
cannot be built) the call is a plain call.
"""

from __future__ import annotations

import sys
import threading
import types

__all__ = ["deep_call", "SLOTS"]

#: local slots of the calling frame: its chunk is rounded up to 2 * SLOTS pointers (4 MiB),
#: which leaves SLOTS (2 MiB) for the frames below it; numba's compiler uses < 1e4
SLOTS = 1 << 18


def _call(fn, args, kwargs):
    return fn(*args, **kwargs)


def _deep_caller():
    """``_call`` with SLOTS extra local variables, or None where that cannot be made."""
    if sys.implementation.name != "cpython" or sys.version_info < (3, 11):
        return None
    code = _call.__code__
    try:
        # one name for every slot: 2**18 distinct names cost 0.24 s at import, this 0.01 s
        # (the slots are never bound; a frame's locals map shows the bound ones only)
        big = code.replace(
            co_varnames=code.co_varnames + ("_slot",) * SLOTS,
            co_nlocals=code.co_nlocals + SLOTS,
        )
        return types.FunctionType(big, {}, "deep_call")
    except (TypeError, ValueError):  # another code-object layout: a plain call is correct
        return None


_DEEP = _deep_caller()
_inside = threading.local()  # per thread, as the frame stacks are


def deep_call(fn, *args, **kwargs):
    """``fn(*args, **kwargs)``, its Python frames on one pre-grown stack chunk (module doc).

    Same result, same exceptions as the plain call. Within another ``deep_call`` of the
    same thread it is a plain call: the chunk is already there.
    """
    if _DEEP is None or getattr(_inside, "on", False):
        return fn(*args, **kwargs)
    _inside.on = True
    try:
        return _DEEP(fn, args, kwargs)
    finally:
        _inside.on = False
