# SPDX-License-Identifier: BSD-3-Clause
"""The layout rules of docs/architecture.md, checked on the source tree.

* No module outside a package imports that package's private (``_``-prefixed)
  modules, except ``dpsvm.utils``: packages talk through their public names.
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "dpsvm"


def _modules() -> list[Path]:
    return sorted(SRC.rglob("*.py"))


def _module_name(path: Path) -> str:
    parts = path.relative_to(SRC.parent).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _imported(path: Path) -> list[tuple[int, str]]:
    """(line, absolute dotted name) of every import in ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = _module_name(path)
    if path.name != "__init__.py":
        package = package.rpartition(".")[0]
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            found.append((node.lineno, mod))
            # ``from pkg import _private_module``
            found += [(node.lineno, f"{mod}.{alias.name}") for alias in node.names]
    return found


def _private_owner(name: str) -> str | None:
    """The package whose private module ``name`` reaches into, if any."""
    parts = name.split(".")
    if parts[0] != "dpsvm":
        return None
    for i, part in enumerate(parts[1:], start=1):
        if part.startswith("_") and not part.startswith("__"):
            module = SRC.parent.joinpath(*parts[: i + 1])
            if module.with_suffix(".py").is_file() or module.is_dir():
                return ".".join(parts[:i])
            return None  # a private name, not a private module
    return None


def test_no_cross_package_private_imports():
    offences = []
    for path in _modules():
        here = _module_name(path)
        for line, name in _imported(path):
            owner = _private_owner(name)
            if owner is None or owner == "dpsvm":
                continue  # public, or a top-level private module (_compat)
            if owner.startswith("dpsvm.utils"):
                continue  # shared internals, by design
            if here == owner or here.startswith(owner + "."):
                continue  # inside the package
            offences.append(f"{path.relative_to(SRC.parent)}:{line} imports {name}")
    assert not offences, "\n".join(offences)


def test_the_checks_can_fail(tmp_path):
    """The detector above flags what it is meant to flag."""
    assert _private_owner("dpsvm.solvers._erm") == "dpsvm.solvers"
    assert _private_owner("dpsvm.models.base") is None
    assert _private_owner("dpsvm.solvers._erm.solve_smooth") == "dpsvm.solvers"
    assert _private_owner("dpsvm.accounting.composition._basic") is None
