# SPDX-License-Identifier: BSD-3-Clause
"""The one perturbation layer of the data path: calibrations and noise steps.

Estimators never draw privacy noise themselves; they call this layer:

* :class:`OutputNoise` — one vector released with Gamma-norm (pure, L2),
  discretised Laplace (pure, L1) or analytic Gaussian ((ε, δ), L2) noise, and
  its typed event;
* :class:`OutputPerturbation` — output perturbation of a certified approximate
  minimiser (noise calibrated to Δ + 2·cap, :func:`certified_sensitivity`);
* :class:`ObjectivePerturbation` — objective perturbation with the certified
  residual charge (ε = ε_op + ε_r);
* :class:`GaussianObjectivePerturbation` — the same with Gaussian b, (ε, δ)-DP
  (Kifer, Smith & Thakurta 2012, Algorithm 1 / Theorem 2);
* :class:`LaplaceObjectivePerturbation` — the same with Laplace b on rows of a
  public L1 bound, pure ε-DP (Chaudhuri et al. 2011, Theorem 9, L1 density).

Every learner's privacy calculation lives here, written once next to the theorem
it comes from: the objective-perturbation calibration (Chaudhuri, Monteleoni &
Sarwate 2011, Algorithm 2 and Theorem 9), the certified-residual charge of an
approximate minimiser, the L2 sensitivity of the regularised ERM minimiser
(Chaudhuri et al. 2011, Corollary 8; Rubinstein et al. 2012, Lemma 4.3) and the
a-priori regularisation of the defaults.
"""

from __future__ import annotations

from ._calibration import (
    AUTO_CORRECTION_SHARE_KERNEL,
    AUTO_CORRECTION_SHARE_LINEAR,
    RESIDUAL_EPSILON_FRACTION,
    ObjectiveCalibration,
    ResidualCalibration,
    approximate_minimiser_calibration,
    auto_regularization,
    check_max_weight,
    objective_perturbation_calibration,
    output_l2_sensitivity,
    output_laplace_scale,
    rubinstein_l2_sensitivity,
    weighted_loss_constants,
)
from ._objective import ObjectivePerturbation
from ._objective_gaussian import (
    GaussianObjectiveCalibration,
    GaussianObjectivePerturbation,
    gaussian_objective_calibration,
)
from ._objective_laplace import (
    AUTO_CORRECTION_SHARE_COORDINATE_NOISE,
    LaplaceObjectivePerturbation,
    laplace_objective_scale,
    rank_one_jacobian_calibration,
    sparse_rows_l1_bound,
)
from ._output import (
    CERTIFICATE_RTOL,
    NOISE_KINDS,
    OutputNoise,
    OutputPerturbation,
    PerturbedSolution,
    certified_sensitivity,
    check_certificate,
)

__all__ = [
    "AUTO_CORRECTION_SHARE_COORDINATE_NOISE",
    "AUTO_CORRECTION_SHARE_KERNEL",
    "AUTO_CORRECTION_SHARE_LINEAR",
    "CERTIFICATE_RTOL",
    "NOISE_KINDS",
    "RESIDUAL_EPSILON_FRACTION",
    "GaussianObjectiveCalibration",
    "GaussianObjectivePerturbation",
    "LaplaceObjectivePerturbation",
    "ObjectiveCalibration",
    "ObjectivePerturbation",
    "OutputNoise",
    "OutputPerturbation",
    "PerturbedSolution",
    "ResidualCalibration",
    "approximate_minimiser_calibration",
    "auto_regularization",
    "certified_sensitivity",
    "check_certificate",
    "check_max_weight",
    "gaussian_objective_calibration",
    "laplace_objective_scale",
    "objective_perturbation_calibration",
    "output_l2_sensitivity",
    "output_laplace_scale",
    "rank_one_jacobian_calibration",
    "rubinstein_l2_sensitivity",
    "sparse_rows_l1_bound",
    "weighted_loss_constants",
]
