# SPDX-License-Identifier: BSD-3-Clause
"""Noise mechanisms: one module per noise family.

* :class:`LaplaceVector` — i.i.d. Laplace noise, L1 sensitivity, pure ε-DP;
  its releases use the floating-point-safe discretised Laplace
  (:func:`laplace_release`, Canonne, Kamath & Steinke 2020) by default.
* :class:`GammaNormVector` — L2 "spherical Laplace" noise ∝ exp(−ε‖b‖₂/Δ₂),
  pure ε-DP.
* :class:`AnalyticGaussian` — Gaussian noise with the analytic (ε, δ)
  calibration of Balle & Wang (2018); its releases are exact over doubles
  (:func:`gaussian_release`: a public grid 2^k plus discrete Gaussian noise,
  Canonne, Kamath & Steinke 2020) by default.
* :class:`ExponentialMechanism` — selection with P(c) ∝ exp(ε·u(c)/(2Δu)).

:func:`sample_laplace` and :func:`sample_gamma_norm` are low-level samplers for
callers that compute the noise scale themselves. :func:`laplace_release`
releases a value with Laplace noise without the floating-point leak of
``value + sample_laplace(...)`` (Mironov 2012); :func:`sample_discrete_laplace`
draws exact discrete Laplace integers. Every exact sample is drawn by
:mod:`dpsvm.mechanisms._exact` (:func:`sample_discrete_gaussian`,
:func:`sample_bernoulli_exp`, ...).
"""

from __future__ import annotations

from ._discrete_gaussian import (
    DiscreteGaussianCalibration,
    discrete_gaussian_calibration,
    gaussian_release,
    zcdp_delta,
    zcdp_noise_multiplier,
)
from ._exact import (
    exponential_mechanism_select,
    exponential_rejection_sample,
    permute_and_flip_select,
    sample_bernoulli_exp,
    sample_discrete_gaussian,
)
from ._snapping import (
    DiscreteLaplaceCalibration,
    discrete_laplace_calibration,
    laplace_release,
    sample_discrete_laplace,
)
from .base import BaseMechanism, Mechanism
from .exponential import ExponentialMechanism
from .gamma_norm import GammaNormVector, sample_gamma_norm
from .gaussian import AnalyticGaussian
from .laplace import LaplaceVector, sample_laplace

__all__ = [
    "AnalyticGaussian",
    "BaseMechanism",
    "DiscreteGaussianCalibration",
    "DiscreteLaplaceCalibration",
    "ExponentialMechanism",
    "GammaNormVector",
    "LaplaceVector",
    "Mechanism",
    "discrete_gaussian_calibration",
    "discrete_laplace_calibration",
    "exponential_mechanism_select",
    "exponential_rejection_sample",
    "gaussian_release",
    "laplace_release",
    "permute_and_flip_select",
    "sample_bernoulli_exp",
    "sample_discrete_gaussian",
    "sample_discrete_laplace",
    "sample_gamma_norm",
    "sample_laplace",
    "zcdp_delta",
    "zcdp_noise_multiplier",
]
