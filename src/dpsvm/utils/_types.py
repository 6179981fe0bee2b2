# SPDX-License-Identifier: BSD-3-Clause
"""Type aliases shared across the package (written once, imported everywhere)."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

__all__ = ["FloatArray"]

#: A float64 numpy array (weights, scores, design rows).
FloatArray = NDArray[np.float64]
