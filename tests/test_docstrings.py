# SPDX-License-Identifier: BSD-3-Clause
"""numpydoc validation of every public class and function of dpsvm."""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import pkgutil

import pytest
from numpydoc.validate import validate
from sklearn.base import BaseEstimator

import dpsvm

# Errors that matter to a reader; stylistic checks (See Also, extended summary,
# capitalisation) are left to review.
CHECKED = {
    "GL08",  # no docstring
    "PR01",  # parameter not documented
    "PR02",  # documented parameter that does not exist
    "PR07",  # parameter without description
    "RT01",  # no Returns section
    "SS01",  # no summary
    "SS03",  # summary does not end with a period
    "EX01",  # no Examples section
}


def _public_objects():  # type: ignore[no-untyped-def]
    seen = set()
    for info in pkgutil.walk_packages(dpsvm.__path__, "dpsvm."):
        if any(part.startswith("_") for part in info.name.split(".")[1:]):
            continue
        if info.name.startswith(("dpsvm.cli", "dpsvm.serving")):
            continue  # entry points, documented by --help
        module = importlib.import_module(info.name)
        for name in getattr(module, "__all__", []):
            obj = getattr(module, name)
            if not (inspect.isclass(obj) or inspect.isfunction(obj)):
                continue
            if not getattr(obj, "__module__", "").startswith("dpsvm"):
                continue
            qual = f"{obj.__module__}.{obj.__qualname__}"
            if qual not in seen:
                seen.add(qual)
                yield pytest.param(obj, qual, id=qual)


@pytest.mark.parametrize(("obj", "qual"), list(_public_objects()))
def test_public_docstring(obj, qual):
    checked = set(CHECKED)
    record = dataclasses.is_dataclass(obj) and not (
        inspect.isclass(obj) and issubclass(obj, BaseEstimator)
    )
    if record or inspect.isabstract(obj):
        # Records document their fields under Attributes; abstract bases have
        # no example of their own. Estimators declared as dataclasses (the
        # margin learners) document every parameter like any other estimator.
        checked -= {"PR01", "EX01"}
    if inspect.isclass(obj) and issubclass(obj, Exception | Warning):
        checked -= {"EX01"}
    errors = [(c, m) for c, m in validate(qual)["errors"] if c in checked]
    assert not errors, f"{qual}: {errors}"
