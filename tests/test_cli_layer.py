"""The command line is one layer on top: ``reports/cli/``, imported by nothing below it.

Floors (docs/design.md): bounds < simulate < verify < reports, and the command line
(``cascading_bandits.reports.cli``) on top of them all. Read with :mod:`ast` from every
``.py`` file of ``bounds/``, ``simulate/`` and ``verify/`` (subpackages included): each
``import``, ``from ... import`` (module level or inside a function or class, relative
imports resolved), ``importlib.import_module("...")`` and ``__import__("...")`` with a
literal name.
"""

from __future__ import annotations

import ast
import importlib.util
import re
from pathlib import Path

import pytest

ROOT = "cascading_bandits"
#: the floors, lowest first: a package may import only the ones before it
FLOORS = ("bounds", "simulate", "verify", "reports")
CLI = f"{ROOT}.reports.cli"


def _package_dir(pkg: str) -> Path:
    spec = importlib.util.find_spec(f"{ROOT}.{pkg}")
    assert spec is not None and spec.submodule_search_locations, pkg
    return Path(next(iter(spec.submodule_search_locations)))


def _module_name(pkg: str, base: Path, path: Path) -> str:
    parts = list(path.relative_to(base).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join([ROOT, pkg, *parts])


def imported_names(source: str, module: str, is_package: bool = False) -> set[str]:
    """Every module name ``source`` imports (``from a import b`` gives ``a`` and ``a.b``)."""
    tree = ast.parse(source)
    here = module.split(".") if is_package else module.split(".")[:-1]
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here[: len(here) - (node.level - 1)]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            out.add(mod)
            out.update(f"{mod}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Call) and node.args:
            f = node.func
            name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", None)
            arg = node.args[0]
            if (
                name in ("import_module", "__import__")
                and isinstance(arg, ast.Constant)
                and isinstance(arg.value, str)
            ):
                out.add(arg.value)
    return out


def _sources(pkg: str):
    base = _package_dir(pkg)
    for path in sorted(base.rglob("*.py")):
        if any(p.startswith(".") for p in path.relative_to(base).parts):
            continue
        yield path, _module_name(pkg, base, path), path.name == "__init__.py"


def _under(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


@pytest.mark.parametrize("pkg", FLOORS[:-1])
def test_no_library_module_imports_the_command_line(pkg):
    bad = []
    for path, mod, is_pkg in _sources(pkg):
        for name in imported_names(path.read_text(encoding="utf-8"), mod, is_pkg):
            if _under(name, CLI):
                bad.append(f"{path}: {name}")
    assert not bad, bad


@pytest.mark.parametrize("pkg", FLOORS[:-1])
def test_floors_import_only_lower_floors(pkg):
    higher = FLOORS[FLOORS.index(pkg) + 1 :]
    bad = []
    for path, mod, is_pkg in _sources(pkg):
        for name in imported_names(path.read_text(encoding="utf-8"), mod, is_pkg):
            if any(_under(name, f"{ROOT}.{h}") for h in higher):
                bad.append(f"{path}: {name}")
    assert not bad, bad


def test_command_line_code_lives_in_reports_cli():
    """No argparse and no ``*cli*`` module outside ``reports/cli/``; every subcommand's module
    is in the package."""
    from cascading_bandits.reports.cli import SUBCOMMANDS

    cli_dir = _package_dir("reports") / "cli"
    for pkg in FLOORS:
        for path, mod, is_pkg in _sources(pkg):
            if cli_dir in path.parents:
                continue
            assert "cli" not in path.stem, path
            names = imported_names(path.read_text(encoding="utf-8"), mod, is_pkg)
            assert "argparse" not in names, path
    for name, modname in SUBCOMMANDS.items():
        assert modname == f"{CLI}.{name}", (name, modname)
        assert (cli_dir / f"{name}.py").is_file(), name


@pytest.mark.parametrize(
    "source, found",
    [
        ("import cascading_bandits.reports.cli", True),
        ("from cascading_bandits.reports import cli", True),
        ("from cascading_bandits.reports.cli.common import integer", True),
        ("def f():\n    from cascading_bandits.reports.cli import main\n", True),
        ("class A:\n    def f(self):\n        import cascading_bandits.reports.cli as c\n", True),
        ("import importlib\nimportlib.import_module('cascading_bandits.reports.cli.bench')", True),
        ("__import__('cascading_bandits.reports.cli')", True),
        ("from ...reports import cli", True),  # relative, from cascading_bandits.simulate.x.y
        ("from cascading_bandits.reports import tables", False),
        ("import cascading_bandits.reports.climb", False),
        ("x = 'cascading_bandits.reports.cli'", False),
    ],
)
def test_the_scan_sees_every_form_of_import(source, found):
    names = imported_names(source, f"{ROOT}.simulate.x.y")
    assert any(_under(n, CLI) for n in names) == found, names


#: a command-line module named in prose: ``bounds/cli.py``, ``:mod:`simulate.search_cli```,
#: ``reports.profile_cli``
_CLI_NAME = re.compile(r"\b(bounds|simulate|verify|reports)[./](\w*cli\w*)(?:\.py)?\b")


def test_docstrings_name_only_command_line_modules_that_exist():
    """The command-line modules moved to ``reports/cli/``; a docstring or comment naming an
    old one (``bounds/cli.py``, ``reports.profile_cli``) points nowhere. Tests' own
    function names (``test_profile_cli_...``) are not module names and do not match."""
    tests = Path(__file__).resolve().parent
    files = [p for pkg in FLOORS for p in _package_dir(pkg).rglob("*.py")]
    files += list(tests.rglob("*.py"))
    stale = []
    for path in files:
        if path.resolve() == Path(__file__).resolve():
            continue
        for m in _CLI_NAME.finditer(path.read_text(encoding="utf-8")):
            name = f"{ROOT}.{m.group(1)}.{m.group(2)}"
            if importlib.util.find_spec(name) is None:
                stale.append(f"{path.name}: {m.group(0)}")
    assert stale == []
