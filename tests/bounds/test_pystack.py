"""bounds._pystack.deep_call: the same call, without frame-stack chunk churn."""

import resource
import sys
import threading

import pytest

from cascading_bandits.bounds import _pystack
from cascading_bandits.bounds._pystack import deep_call


def _depth(n):
    return 0 if n == 0 else 1 + _depth(n - 1)


def _oscillate():
    # up 400 frames and back, 3000 times: crosses a 16 KiB chunk's edge each time
    for _ in range(3000):
        assert _depth(400) == 400


def _faults(fn):
    """Minor page faults of this thread during fn() (each new chunk faults in its pages)."""
    who = getattr(resource, "RUSAGE_THREAD", resource.RUSAGE_SELF)
    before = resource.getrusage(who).ru_minflt
    fn()
    return resource.getrusage(who).ru_minflt - before


def _in_new_thread(fn):
    # a new thread: its own frame stack, and not inside the deep_call of tests/conftest.py
    out, err = [], []

    def body():
        try:
            out.append(fn())
        except BaseException as exc:  # re-raised in the test's thread
            err.append(exc)

    t = threading.Thread(target=body)
    t.start()
    t.join()
    if err:
        raise err[0]
    return out[0]


def test_same_result_arguments_and_exceptions():
    assert deep_call(lambda a, b=2, *c, d=0: (a, b, c, d), 1, 3, 4, d=5) == (1, 3, (4,), 5)
    assert deep_call(sorted, [3, 1, 2], reverse=True) == [3, 2, 1]
    with pytest.raises(ZeroDivisionError):
        deep_call(lambda: 1 / 0)
    with pytest.raises(ValueError, match="bad"):
        _in_new_thread(lambda: deep_call(_raise_value_error))


def _raise_value_error():
    raise ValueError("bad")


@pytest.mark.skipif(
    sys.implementation.name != "cpython" or sys.version_info < (3, 11),
    reason="the chunked frame stack is CPython >= 3.11's",
)
def test_no_chunk_churn_inside_deep_call():
    assert _pystack._DEEP is not None
    plain, deep = _in_new_thread(
        lambda: (_faults(_oscillate), _faults(lambda: deep_call(_oscillate)))
    )
    # deep_call's one chunk: SLOTS pointers of locals set, about 512 pages; the plain call
    # maps a chunk (4 pages) per crossing, 24000 faults on CPython 3.11-3.13
    assert deep < 1500, (plain, deep)
    assert deep < plain or plain < 1500, (plain, deep)


def test_nested_deep_call_is_a_plain_call():
    def inner():
        return _pystack._inside.on

    assert _in_new_thread(lambda: deep_call(lambda: deep_call(inner))) is True
    # flag cleared on the way out, also after an exception
    assert _in_new_thread(lambda: (_swallow(), getattr(_pystack._inside, "on", False))[1]) is False


def _swallow():
    try:
        deep_call(_raise_value_error)
    except ValueError:
        pass


def test_tracebacks_with_locals_and_frame_locals_work_through_the_deep_frame():
    """The deep frame's slots share one name and are never bound: introspection sees its
    own arguments only (what a traceback with locals or a debugger reads)."""
    import traceback

    def look():
        caller = sys._getframe(1)  # the deep frame (or the plain call's caller)
        return dict(caller.f_locals)

    seen = _in_new_thread(lambda: deep_call(look))
    assert "_slot" not in seen
    try:
        _in_new_thread(lambda: deep_call(_raise_value_error))
    except ValueError as exc:
        te = traceback.TracebackException.from_exception(exc, capture_locals=True)
        text = "".join(te.format())
        assert "bad" in text and "_slot" not in text
