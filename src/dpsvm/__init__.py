# SPDX-License-Identifier: BSD-3-Clause
"""dpsvm: differentially private support vector machines and kernel learning.

The subpackages are imported on first use (PEP 562): ``import dpsvm`` is cheap
(the ``dpsvm`` command's start-up), and ``dpsvm.models.DPLinearSVC`` works
without an explicit ``import dpsvm.models``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

#: The public subpackages and modules, imported by :func:`__getattr__`.
SUBMODULES = (
    "accounting",
    "audit",
    "bounds",
    "cli",
    "datasets",
    "exceptions",
    "io",
    "kernels",
    "label_privacy",
    "losses",
    "margins",
    "mechanisms",
    "model_selection",
    "models",
    "perturbation",
    "prediction",
    "preprocessing",
    "reproduce",
    "serving",
    "solvers",
    "utils",
    "validation",
)

if TYPE_CHECKING:  # what type checkers see; at run time, imported on first use
    from . import (  # noqa: F401
        accounting,
        audit,
        bounds,
        cli,
        datasets,
        exceptions,
        io,
        kernels,
        label_privacy,
        losses,
        margins,
        mechanisms,
        model_selection,
        models,
        perturbation,
        prediction,
        preprocessing,
        reproduce,
        serving,
        solvers,
        utils,
        validation,
    )


def __getattr__(name: str) -> Any:
    """Import the subpackage ``name`` on first access (PEP 562)."""
    if name in SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *SUBMODULES})
