# SPDX-License-Identifier: BSD-3-Clause
"""What the ``dpsvm`` command imports before it has work to do.

Building the parser (``dpsvm --help``, every ``dpsvm SUBCOMMAND --help``) must
not import scikit-learn, SciPy, pandas, pyarrow or the auditor: together they
take seconds to import, which every command would pay at start-up. Checked as a
property of ``sys.modules`` in a fresh interpreter, not as a timing.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import dpsvm

#: Top-level packages and dpsvm subpackages that no --help may import.
HEAVY = (
    "sklearn",
    "scipy",
    "pandas",
    "pyarrow",
    "matplotlib",
    "joblib",
    "dpsvm.audit",
    "dpsvm.reproduce",
    "dpsvm.models",
    "dpsvm.serving",
)
HELPS = (
    [],
    ["train"],
    ["predict"],
    ["evaluate"],
    ["sweep"],
    ["demo"],
    ["audit"],
    ["reproduce"],
    ["serve"],
    ["report"],
    ["schema"],
    ["schema", "draft"],
)

_SCRIPT = """
import contextlib, io, json, sys
from dpsvm.cli import main

heavy = tuple(json.loads(sys.argv[1]))
found = {}
for argv in json.loads(sys.argv[2]):
    with contextlib.redirect_stdout(io.StringIO()) as out:
        code = main([*argv, "--help"])
    assert code == 0 and "usage:" in out.getvalue(), (argv, code)
    found[" ".join(argv)] = sorted(
        m for m in sys.modules
        if m in heavy or m.startswith(tuple(h + "." for h in heavy))
    )
print(json.dumps(found))
"""


def _env() -> dict[str, str]:
    """This interpreter's environment, with this checkout's dpsvm first."""
    src = str(Path(dpsvm.__file__).resolve().parents[1])
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (src, env.get("PYTHONPATH")) if p)
    return env


def test_help_imports_no_heavy_module():
    res = subprocess.run(
        [sys.executable, "-c", _SCRIPT, json.dumps(HEAVY), json.dumps(HELPS)],
        capture_output=True,
        text=True,
        timeout=120,
        env=_env(),
    )
    assert res.returncode == 0, res.stderr
    found = json.loads(res.stdout)
    assert set(found) == {" ".join(argv) for argv in HELPS}
    imported = {argv: mods for argv, mods in found.items() if mods}
    assert not imported, f"dpsvm ... --help imported {imported}"


_PACKAGE_SCRIPT = """
import json, sys
import dpsvm

before = sorted(m for m in sys.modules if m.startswith(("sklearn", "scipy", "dpsvm.")))
cls = dpsvm.models.DPLinearSVC  # no explicit import of dpsvm.models
print(json.dumps({"before": before, "class": cls.__module__,
                  "loaded": "dpsvm.models" in sys.modules}))
"""


def test_import_dpsvm_is_cheap_and_subpackages_load_on_use():
    res = subprocess.run(
        [sys.executable, "-c", _PACKAGE_SCRIPT],
        capture_output=True,
        text=True,
        timeout=120,
        env=_env(),
    )
    assert res.returncode == 0, res.stderr
    found = json.loads(res.stdout)
    assert found["before"] == []
    assert found["class"].startswith("dpsvm.models") and found["loaded"]


def test_every_public_subpackage_loads_on_use():
    # A new top-level module or package must be listed in dpsvm.SUBMODULES.
    root = Path(dpsvm.__file__).parent
    public = {
        p.stem if p.suffix == ".py" else p.name
        for p in root.iterdir()
        if not p.name.startswith("_")
        and (p.suffix == ".py" or (p / "__init__.py").exists())
    }
    assert public == set(dpsvm.SUBMODULES)
    assert set(dpsvm.SUBMODULES) <= set(dir(dpsvm))
    assert dpsvm.losses.__name__ == "dpsvm.losses"
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        _ = dpsvm.nope


def test_no_cli_module_imports_the_dispatcher():
    """The subcommand modules and their shared helpers never import ``_main``
    (the top-level parser and dispatch): no import cycle inside ``dpsvm.cli``."""
    import ast

    cli = Path(dpsvm.__file__).parent / "cli"
    importers = []
    for path in sorted(cli.glob("*.py")):
        if path.name in ("__init__.py", "__main__.py", "_main.py"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (
                (node.level == 1 and node.module == "_main")
                or (node.module or "").endswith("cli._main")
                or (
                    node.level == 1
                    and node.module is None
                    and any(a.name == "_main" for a in node.names)
                )
            ):
                importers.append(path.name)
    assert len(list(cli.glob("*.py"))) > 10  # the package was found
    assert importers == []
