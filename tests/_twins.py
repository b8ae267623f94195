"""One hypothesis check, drawn at a few examples in the default run and at many in the slow
tier (``pytest -m slow``, which CI runs): the two tests run the same code."""

import sys
import types

import pytest
from hypothesis import example, given, settings


def _copy(fn, name):
    """A second function object of ``fn``'s code (signature, defaults, closure, marks)."""
    twin = types.FunctionType(fn.__code__, fn.__globals__, name, fn.__defaults__, fn.__closure__)
    twin.__kwdefaults__ = fn.__kwdefaults__
    twin.__dict__.update(fn.__dict__)  # pytest marks applied below the decorator
    twin.__doc__ = fn.__doc__
    twin.__qualname__ = name  # module-level tests
    twin.__module__ = fn.__module__
    return twin


def twins(few, many, strategies, *, examples=(), **settings_kw):
    """Decorator: the test under ``given(**strategies)`` at ``few`` examples, plus a slow-marked
    copy, ``<name>_many``, at ``many`` examples, added to the test's module.

    Parameters
    ----------
    few, many : int
        ``max_examples`` of the default test and of the slow one (``few < many``).
    strategies : dict
        Keyword strategies for :func:`hypothesis.given`, by the test's parameter names;
        parameters not named there are pytest's (fixtures, ``parametrize`` marks applied
        below this decorator, which both tests keep).
    examples : sequence
        Pinned cases of the default test: a tuple (positional) or a dict (keyword) each.
    settings_kw
        Further :func:`hypothesis.settings` of both (``deadline`` is None unless given).
    """
    if not 0 < few < many:
        raise ValueError(f"twins wants 0 < few < many, got few={few}, many={many}")
    settings_kw.setdefault("deadline", None)

    def decorate(test):
        module = sys.modules[test.__module__]
        name = test.__name__ + "_many"
        if hasattr(module, name):
            raise ValueError(f"{test.__module__} already defines {name}")
        slow = settings(max_examples=many, **settings_kw)(given(**strategies)(_copy(test, name)))
        setattr(module, name, pytest.mark.slow(slow))
        for case in reversed(examples):
            test = (example(**case) if isinstance(case, dict) else example(*case))(test)
        return settings(max_examples=few, **settings_kw)(given(**strategies)(test))

    return decorate
