# SPDX-License-Identifier: BSD-3-Clause
"""Noise mechanisms: one module per noise family.

* :class:`LaplaceVector` — i.i.d. Laplace noise, L1 sensitivity, pure ε-DP.
* :class:`GammaNormVector` — L2 "spherical Laplace" noise ∝ exp(−ε‖b‖₂/Δ₂),
  pure ε-DP.
* :class:`AnalyticGaussian` — Gaussian noise with the analytic (ε, δ)
  calibration of Balle & Wang (2018).
* :class:`ExponentialMechanism` — selection with P(c) ∝ exp(ε·u(c)/(2Δu)).

:func:`sample_laplace` and :func:`sample_gamma_norm` are low-level samplers for
callers that compute the noise scale themselves.
"""

from __future__ import annotations

from .base import BaseMechanism, Mechanism
from .exponential import ExponentialMechanism
from .gamma_norm import GammaNormVector, sample_gamma_norm
from .gaussian import AnalyticGaussian
from .laplace import LaplaceVector, sample_laplace

__all__ = [
    "AnalyticGaussian",
    "BaseMechanism",
    "ExponentialMechanism",
    "GammaNormVector",
    "LaplaceVector",
    "Mechanism",
    "sample_gamma_norm",
    "sample_laplace",
]
