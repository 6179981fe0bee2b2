# SPDX-License-Identifier: BSD-3-Clause
"""scikit-learn estimator plumbing shared by the learner packages."""

from __future__ import annotations

from typing import Any


def store_init_params(estimator: Any, values: dict[str, Any]) -> None:
    """Store the ``__init__`` arguments unchanged (scikit-learn's convention).

    Called as ``store_init_params(self, locals())`` from ``__init__``: every
    name of the signature becomes an attribute; nothing is validated, copied
    or derived (that happens in ``fit``).
    """
    for name in type(estimator)._get_param_names():
        setattr(estimator, name, values[name])
