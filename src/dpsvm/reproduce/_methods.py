# SPDX-License-Identifier: BSD-3-Clause
"""How the methods of the Sarwate et al. (2009) reproduction are labelled.

:data:`METHODS` (linear) and :data:`KERNEL_METHODS` (nested balls), in the
row order of the report, with what each row runs and whether it is private.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["KERNEL_METHODS", "METHODS", "MethodInfo"]


@dataclass(frozen=True)
class MethodInfo:
    """How a method is labelled in the report.

    Attributes
    ----------
    label : str
        Row label.
    private : bool
        Whether the method is differentially private as run.
    paper_row : str or None
        The method of the paper's tables it corresponds to.
    like_for_like : bool
        Whether it is the implementation that matches what the paper ran (so
        the difference to the paper's number is the reproduction error).
    note : str
        One-line description.
    """

    label: str
    private: bool
    paper_row: str | None
    like_for_like: bool
    note: str


#: Linear methods, in the row order of the report.
METHODS: dict[str, MethodInfo] = {
    "huber_svm": MethodInfo(
        "Non-private SVM (Huber)",
        False,
        "huber_svm",
        True,
        "NonPrivateLinearClassifier(loss='huber'), exact Newton solve; no privacy",
    ),
    "sensitivity": MethodInfo(
        "Sensitivity method",
        True,
        "sensitivity",
        True,
        "output perturbation of the Huber SVM, Δ₂ = 2/(nΛ), Gamma-norm noise "
        "(DPLinearSVC(mechanism='output'), CMS11 Alg. 1); private",
    ),
    "lr_2009": MethodInfo(
        "Logistic regression, CM08 as printed (NOT private)",
        False,
        "lr",
        True,
        "DPLogisticRegression(mechanism='objective-2009'): noise ∝ exp(−(ε/2)‖b‖) "
        "without the ε′ correction, as in CM08 and Sarwate et al. 2009; not "
        "guaranteed DP",
    ),
    "lr": MethodInfo(
        "Logistic regression (private, corrected)",
        True,
        "lr",
        False,
        "DPLogisticRegression(mechanism='objective'): CM08 objective perturbation "
        "with the CMS11 ε′/Δ correction (c = 1/4); private",
    ),
    "alg1_2009": MethodInfo(
        "Algorithm 1, paper reading (NOT private)",
        False,
        "alg1",
        True,
        "DPLinearSVC(mechanism='objective-2009'): Alg. 1 read as its Theorem 1 "
        "proof, (1/n)bᵀf with ‖b‖ ~ Gamma(d, 2/ε); the proof omits the Jacobian, "
        "not guaranteed DP",
    ),
    "alg1": MethodInfo(
        "Algorithm 1, corrected (private)",
        True,
        "alg1",
        False,
        "DPLinearSVC(mechanism='objective'): CMS11 Alg. 2 (ε′ = ε − ln(1 + 2c/(nΛ) "
        "+ c²/(nΛ)²), Δ fallback), c = 1/(2h); private",
    ),
    "diffprivlib_lr": MethodInfo(
        "diffprivlib LogisticRegression",
        True,
        "lr",
        False,
        "diffprivlib.models.LogisticRegression(epsilon, data_norm=1, "
        "fit_intercept=False, C = 1/(nΛ)); private",
    ),
}

#: Kernel (nested balls) methods.
KERNEL_METHODS: dict[str, MethodInfo] = {
    "kernel_svm": MethodInfo(
        "Non-private Gaussian SVM (hinge)",
        False,
        "kernel_svm",
        True,
        "scikit-learn SVC(kernel='rbf', γ, C = 1/(nΛ)) with a bias (libsvm, like "
        "the paper's SVMlight) on a subsample of the training set; no privacy",
    ),
    "rr_svm": MethodInfo(
        "Non-private RR-Gaussian SVM",
        False,
        "rr_svm",
        True,
        "NonPrivateRandomFeatureSVC(loss='huber', cos-phase, √(2/D) features): "
        "the unperturbed problem of Alg. 2; no privacy",
    ),
    "alg2_2009": MethodInfo(
        "Algorithm 2, paper reading (NOT private)",
        False,
        "alg2",
        True,
        "DPKernelSVC(mechanism='objective-2009', norm_handling='paper'): √(2/D) "
        "features of norm up to √2 with noise for norm 1 (Theorem 3 assumes norm "
        "1) and the uncorrected Alg. 1; not guaranteed DP",
    ),
    "alg2": MethodInfo(
        "Algorithm 2, corrected (private)",
        True,
        "alg2",
        False,
        "DPKernelSVC(mechanism='objective', norm_handling='clip'): features "
        "projected onto the unit ball and CMS11 objective perturbation; private",
    ),
}


#: The private (and paper-literal) kernel methods, in their seed order.
_KERNEL_PRIVATE = ("alg2_2009", "alg2")
