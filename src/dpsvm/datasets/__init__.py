# SPDX-License-Identifier: BSD-3-Clause
"""Data set loaders and generators.

No data are shipped or committed: :func:`load_adult` reads the UCI files from a
local directory (see :func:`resolve_data_dir`) and can download them with
checksum verification; :func:`load_breast_cancer` uses the copy bundled with
scikit-learn; :func:`make_nested_balls` is synthetic. Every loader scales rows
into the unit ball with a data-independent, per-record map.
"""

from __future__ import annotations

from dpsvm.datasets._paths import resolve_data_dir
from dpsvm.datasets.adult import load_adult
from dpsvm.datasets.breast_cancer import load_breast_cancer
from dpsvm.datasets.kdd99 import load_kddcup99
from dpsvm.datasets.synthetic import make_nested_balls

__all__ = [
    "load_adult",
    "load_breast_cancer",
    "load_kddcup99",
    "make_nested_balls",
    "resolve_data_dir",
]
