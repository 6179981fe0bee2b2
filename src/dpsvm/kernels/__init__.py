# SPDX-License-Identifier: BSD-3-Clause
"""Kernels for private learning: spectral samplers and explicit feature maps.

* :func:`sample_frequencies`, :func:`spectral_second_moment` — spectral laws of
  the RBF (Gaussian), Laplacian and normalised Cauchy kernels (Rubinstein et
  al. 2012, Table 1, with the corrections in ``docs/kernels.md``), with
  σ_p² = E‖ω‖².
* :class:`RandomFourierFeatures` — the cos-sin map of Rubinstein et al. (2012),
  eq. (4.1) (norm exactly 1) and the cos-phase map of Sarwate, Chaudhuri &
  Monteleoni (2009), Alg. 2 (norm ≤ √2, with explicit norm handling), chunked.
* :class:`PolynomialFeatureMap` — exact map of (c + xᵀy)^p with the public bound
  (c + R²)^{p/2}.
* :func:`kernel_matrix` — exact Gram matrices (for the non-private reference
  :class:`~dpsvm.models.NonPrivateKernelSVC` and for tests).
"""

from __future__ import annotations

from ._spectral import (
    EXACT_KERNELS,
    SHIFT_INVARIANT_KERNELS,
    check_gamma,
    kernel_matrix,
    reject_string_gamma,
    sample_frequencies,
    spectral_second_moment,
)
from .polynomial import PolynomialFeatureMap, polynomial_feature_norm_bound
from .random_features import RandomFourierFeatures, fourier_features

__all__ = [
    "EXACT_KERNELS",
    "SHIFT_INVARIANT_KERNELS",
    "PolynomialFeatureMap",
    "RandomFourierFeatures",
    "check_gamma",
    "fourier_features",
    "kernel_matrix",
    "polynomial_feature_norm_bound",
    "reject_string_gamma",
    "sample_frequencies",
    "spectral_second_moment",
]
