# SPDX-License-Identifier: BSD-3-Clause
"""The layout rules of docs/architecture.md, checked on the source tree.

* No module outside a package imports that package's private (``_``-prefixed)
  modules, except ``dpsvm.utils``: packages talk through their public names.
* Comments, docstrings and documents cite the papers' theorems and equations,
  never the private implementation notes ("spec S-P6", "paper 001") that a
  reader of the repository cannot open.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "dpsvm"

#: References to notes outside the repository: spec items ("S-P6", "S-J3"),
#: spec sections ("spec 6.2", "spec section 3", "(spec 0.5)") and the
#: numbering of the seed papers ("paper 001") instead of their authors.
UNFOLLOWABLE = re.compile(
    r"\bS-[A-Z]{1,3}\d+\b"
    r"|\b[Pp]apers? 00\d\b"
    r"|\bspec (?:item|section|S-|S\.|\d)"
    r"|\bspec\s*\n\s*\d"
    r"|[(;,]\s*spec\s+\d"
)


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


def _cited_files() -> list[Path]:
    files = [ROOT / "README.md"]
    for folder, pattern in (
        ("src", "*.py"),
        ("tests", "*.py"),
        ("benchmarks", "*.py"),
        ("docs", "*.md"),
    ):
        files += sorted((ROOT / folder).rglob(pattern))
    return [f for f in files if f.name != Path(__file__).name]


def test_unfollowable_reference_pattern_matches_the_old_forms() -> None:
    for text in (
        "spec S-P6",
        "pitfall S-P3",
        "Paper 001's Alg. 2",
        "(spec 6.2)",
        "spec section 3",
        ", spec\n    0.5)",
        "papers 000",
    ):
        assert UNFOLLOWABLE.search(text), text
    for text in (
        "spec.gram(X, X)",
        "kernel spec",
        "Sarwate et al. Alg. 2",
        "module_from_spec(spec)",
        "spec = self._model.spec",
    ):
        assert not UNFOLLOWABLE.search(text), text


@pytest.mark.parametrize("path", _cited_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_references_can_be_followed(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    bad = [
        f"{text.count(chr(10), 0, m.start()) + 1}: {m.group(0)!r}"
        for m in UNFOLLOWABLE.finditer(text)
    ]
    assert not bad, (
        f"{path.relative_to(ROOT)} cites notes that are not in the repository; "
        f"cite the paper's theorem/equation instead: {bad}"
    )


# ---------------------------------------------------------------------------
# docs/architecture.md names only what exists
# ---------------------------------------------------------------------------

ARCHITECTURE = ROOT / "docs" / "architecture.md"

#: Code spans of the document that are prose, not names (operators, package
#: names of other projects, argument lists shown as text).
_NOT_A_NAME = re.compile(r"[\s,*<>=]|^dp-accounting$|^NW\*$")


def _code_spans(text: str) -> list[str]:
    return sorted(set(re.findall(r"`([^`\n]+)`", text)))


def _resolve_dotted(name: str) -> bool:
    """``name`` imports or resolves, read as the document writes names.

    Absolute (``dpsvm.models``, ``dataclasses.replace``), relative to
    ``dpsvm`` (``models.base.LinearModelBase``) or to one of its packages
    (``kernel_erm.KernelERMBase``, ``_paths.DataFiles``), or a class defined
    in some dpsvm module with one of its attributes (``Mechanism.sample``).
    """
    import importlib

    packages = sorted(_module_name(p.parent) for p in SRC.glob("*/__init__.py"))
    roots = ["", "dpsvm.", *(f"{pkg}." for pkg in packages)]
    for candidate in (root + name for root in roots):
        parts = candidate.split(".")
        for cut in range(len(parts), 0, -1):
            try:
                obj: object = importlib.import_module(".".join(parts[:cut]))
            except ImportError:
                continue
            try:
                for attr in parts[cut:]:
                    obj = getattr(obj, attr)
            except AttributeError:
                break
            return True
    head, _, rest = name.partition(".")
    for path in _modules():
        try:
            obj = importlib.import_module(_module_name(path))
        except ImportError:
            continue
        if isinstance(getattr(obj, head, None), type):
            try:
                obj = getattr(obj, head)
                for attr in rest.split("."):
                    obj = getattr(obj, attr)
            except AttributeError:
                continue
            return True
    return False


def _source_text() -> str:
    return "\n".join(p.read_text(encoding="utf-8") for p in _modules())


def _unknown_names(spans: list[str], source: str) -> list[str]:
    """The spans that name no file, module, attribute or identifier of dpsvm."""
    unknown = []
    for span in spans:
        name = re.sub(r"\(.*\)$", "", span.strip()).lstrip("@").rstrip("=")
        if not name or _NOT_A_NAME.search(name):
            continue
        if "/" in name or name.endswith((".py", ".md")):
            path = name.rstrip("/")
            if not (
                (ROOT / path).exists()
                or (SRC / path).exists()
                or any(SRC.rglob(Path(path).name))
            ):
                unknown.append(span)
        elif "." in name:
            if not _resolve_dotted(name):
                unknown.append(span)
        elif not re.search(rf"\b{re.escape(name)}\b", source):
            unknown.append(span)
    return unknown


def test_architecture_document_names_what_exists() -> None:
    """Every file, module, class, function and parameter that
    docs/architecture.md names in code spans exists in the source tree."""
    spans = _code_spans(ARCHITECTURE.read_text(encoding="utf-8"))
    assert len(spans) > 50  # the document is read, not an empty match
    assert _unknown_names(spans, _source_text()) == []


def test_architecture_name_check_can_fail() -> None:
    source = _source_text()
    stale = [
        "models/_no_such_module.py",
        "solvers.solve_everything",
        "models.base.NoSuchBase",
        "NoSuchParametersTable",
        "utils._params.estimator_init_with_required",
    ]
    assert _unknown_names(stale, source) == stale
    assert _unknown_names(["models.base.LinearModelBase", "solvers/"], source) == []
