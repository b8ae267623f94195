"""The import graph among the modules of ``cascading_bandits`` has no circle.

Every module of the four packages (``bounds``, ``simulate``, ``verify``, ``reports`` and
their subpackages) is imported, and its source read with :mod:`ast`: each ``import`` and
``from ... import`` statement, at module level or inside a function, and each
``importlib.import_module("cascading_bandits...")`` with a literal name, is an edge to the
most specific module it names (``from cascading_bandits.reports import tables`` is an edge to
``reports.tables``; the parent packages the import system loads on the way are not edges).

A circle of the graph is a strongly connected component with more than one module (or a
module importing itself). The circles known when this test was written are listed in
:data:`KNOWN_CIRCLES` with the module sets they span; the test fails on any other circle, and
on a known one that has grown (a module added to it) or gone (so the list stays true).
"""

from __future__ import annotations

import ast
import functools
import importlib
import importlib.util
from pathlib import Path

import pytest

ROOT = "cascading_bandits"
PACKAGES = ("bounds", "simulate", "verify", "reports")

#: circles that exist outside the report and are to be removed there; each is the exact set
#: of modules (short names, without ``cascading_bandits.``) of one strongly connected
#: component. bounds/__init__ imports bounds.later, whose functions import bounds.registry,
#: whose discovery of catalog modules imports the package bounds again.
KNOWN_CIRCLES: tuple[frozenset, ...] = (frozenset({"bounds", "bounds.later", "bounds.registry"}),)


def _package_dirs() -> dict[str, Path]:
    """Short package name (``"bounds"``, ``"simulate.policies"``) -> its directory."""
    out = {}
    for pkg in PACKAGES:
        spec = importlib.util.find_spec(f"{ROOT}.{pkg}")
        assert spec is not None and spec.submodule_search_locations, pkg
        for loc in spec.submodule_search_locations:
            base = Path(loc)
            out[pkg] = base
            for init in sorted(base.rglob("__init__.py")):
                rel = init.parent.relative_to(base)
                if rel.parts and not any(p.startswith((".", "_")) for p in rel.parts):
                    out[".".join((pkg, *rel.parts))] = init.parent
    return out


def module_files() -> dict[str, Path]:
    """Short module name (``"reports.build"``; a package by its own name) -> source file."""
    files = {}
    for pkg, d in _package_dirs().items():
        files[pkg] = d / "__init__.py"
        for f in sorted(d.glob("*.py")):
            if f.name != "__init__.py":
                files[f"{pkg}.{f.stem}"] = f
    return files


def _target(name: str, modules) -> str | None:
    """The short name of the module ``name`` (absolute, dotted) refers to, or None when it
    is not one of ours."""
    if name != ROOT and not name.startswith(ROOT + "."):
        return None
    short = name[len(ROOT) + 1 :]
    while short and short not in modules:
        short = short.rpartition(".")[0]
    return short or None


def imports_of(short: str, path: Path, modules) -> set[str]:
    """The modules of ours that ``short`` (source at ``path``) imports, anywhere in it."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    is_pkg = path.name == "__init__.py"
    here = f"{ROOT}.{short}".split(".")
    out = set()
    for node in ast.walk(tree):
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here if is_pkg else here[:-1]
                base = base[: len(base) - (node.level - 1)]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            # ``from pkg import name``: the submodule pkg.name if there is one, else pkg
            names = [f"{mod}.{a.name}" for a in node.names if a.name != "*"] or [mod]
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "import_module"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            names = [node.args[0].value]
        for n in names:
            t = _target(n, modules)
            if t is not None:
                out.add(t)
    return out


@functools.cache
def import_graph() -> dict[str, set[str]]:
    """Short module name -> the modules of ours it imports. Read once per test process
    (about 1.4 CPU s: every source parsed) for the two tests below, which do not change it."""
    modules = module_files()
    return {m: imports_of(m, p, modules) for m, p in modules.items()}


def circles(graph: dict[str, set[str]]) -> list[frozenset]:
    """Strongly connected components with a circle (Tarjan's algorithm, iterative)."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in graph:
                    continue
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = set()
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.add(w)
                        if w == v:
                            break
                    if len(comp) > 1 or v in graph[v]:
                        out.append(frozenset(comp))
    return out


def test_circles_finder_finds_a_circle_and_only_circles():
    g = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"e"}, "f": {"d"}}
    assert sorted(map(sorted, circles(g))) == [["a", "b", "c"], ["e"]]
    assert circles({"a": {"b"}, "b": {"c"}, "c": set()}) == []


def test_imports_are_read_inside_functions_and_relative(tmp_path):
    src = tmp_path / "m.py"
    src.write_text(
        "import os\n"
        "from cascading_bandits.reports import tables as T\n"
        "def f():\n"
        "    from cascading_bandits.bounds.kl import kl\n"
        "    from . import figures\n"
        "    importlib.import_module('cascading_bandits.verify')\n"
    )
    mods = {"reports.tables", "reports.figures", "bounds.kl", "verify", "reports", "bounds"}
    got = imports_of("reports.m", src, mods)
    assert got == {"reports.tables", "reports.figures", "bounds.kl", "verify"}


def test_every_module_imports():
    for short in module_files():
        if short.rpartition(".")[2] != "__main__":  # importing it runs the command
            importlib.import_module(f"{ROOT}.{short}")


def test_the_import_graph_has_no_new_circle():
    graph = import_graph()
    assert len(graph) > 50 and "reports.build" in graph  # the walk found the package
    found = set(circles(graph))
    new = [sorted(c) for c in found if c not in KNOWN_CIRCLES]
    assert not new, f"import circles among cascading_bandits modules: {new}"


@pytest.mark.parametrize("known", KNOWN_CIRCLES, ids=lambda c: "+".join(sorted(c)))
def test_known_circles_still_exist(known):
    """A known circle that has been broken (or changed) is taken off the list."""
    assert known in set(circles(import_graph())), (
        f"the known circle {sorted(known)} no longer exists as listed: update KNOWN_CIRCLES"
    )
