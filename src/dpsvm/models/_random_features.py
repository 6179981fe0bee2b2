# SPDX-License-Identifier: BSD-3-Clause
"""The random-feature classifiers' base: public features, prediction, model files.

:class:`_RandomFeatureClassifierBase` is what :class:`~dpsvm.models.DPKernelSVC`
and :class:`~dpsvm.models.NonPrivateRandomFeatureSVC` share: the random Fourier
feature map of :mod:`dpsvm.kernels` fitted on the column count only (its
frequencies drawn from ``feature_random_state``, never from the records), the
handling of the cos-phase norm bound √2 (``norm_handling``; Sarwate, Chaudhuri &
Monteleoni, arXiv:0912.0071, Algorithm 2 and Theorem 3; docs/kernels.md),
prediction from the released frequencies and weights, and the model-file state
(:mod:`dpsvm.io`). :class:`_PublicGammaFitMixin` refuses a data-dependent
(string) kernel width before parameter validation; the exact kernel SVM
(:mod:`dpsvm.models._exact_kernel_svc`) uses it too.
"""

from __future__ import annotations

import math
from numbers import Integral, Real
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from .._compat import Interval, StrOptions, validate_data
from ..kernels import (
    SHIFT_INVARIANT_KERNELS,
    RandomFourierFeatures,
    fourier_features,
    reject_string_gamma,
)
from ..utils._random import random_state_constraint
from ..utils._types import FloatArray
from ..validation import project_rows_to_ball
from .base import PublicParameterFitMixin, SavedAttribute, ScoreColumnsMixin

_NORM_HANDLING = {"scale", "bound", "clip", "paper"}


class _PublicGammaFitMixin(PublicParameterFitMixin):
    """``fit`` that refuses a string (data-dependent) ``gamma`` before validation."""

    def _check_public_parameters(self) -> None:
        reject_string_gamma(self.gamma, type(self).__name__)  # type: ignore[attr-defined]


class _RandomFeatureClassifierBase(
    _PublicGammaFitMixin, ScoreColumnsMixin, ClassifierMixin, BaseEstimator
):
    """Shared feature construction and prediction of the random-feature models."""

    _parameter_constraints: dict[str, list[Any]] = {
        "kernel": [StrOptions(set(SHIFT_INVARIANT_KERNELS))],
        "gamma": [Interval(Real, 0, None, closed="neither")],
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "feature_map": [StrOptions({"auto", "cos-sin", "cos-phase"})],
        "norm_handling": [StrOptions(_NORM_HANDLING)],
        "loss": [StrOptions({"auto", "hinge", "huber", "logistic"})],
        "huber_h": [Interval(Real, 0, None, closed="neither")],
        "regularization": [Interval(Real, 0, None, closed="neither")],
        "classes": ["array-like", None],
        "tol": [Interval(Real, 0, None, closed="neither")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "feature_random_state": random_state_constraint("feature_random_state"),
    }

    # Overridden by the subclasses (resolution of the "auto" options).
    def _resolved_feature_map(self) -> str:
        raise NotImplementedError

    def _resolved_loss(self) -> str:
        raise NotImplementedError

    def _feature_setup(self, n_features: int) -> tuple[RandomFourierFeatures, float]:
        """Fit the public feature map; return it and the feature-norm bound R.

        Only the number of input columns is used: the frequencies are drawn
        from ``feature_random_state`` independently of the records.
        """
        feature_map = self._resolved_feature_map()
        unscaled = feature_map == "cos-phase" and self.norm_handling != "scale"
        rff = RandomFourierFeatures(
            kernel=self.kernel,
            gamma=self.gamma,
            n_components=self.n_components,
            feature_map=feature_map,
            norm_handling="bound" if unscaled else "scale",
            random_state=self.feature_random_state,
        )
        rff.fit(np.zeros((1, n_features)))  # public: reads the column count only
        if feature_map == "cos-phase" and self.norm_handling == "bound":
            # √2: the noise is scaled to the true feature-norm bound.
            R = rff.feature_norm_bound_
        else:
            # cos-sin: exactly 1; "scale": 1; "clip": rows projected onto the
            # unit ball; "paper": 1 *claimed* for features of norm up to √2.
            R = 1.0
        return rff, R

    def _store_features(self, rff: RandomFourierFeatures, R: float) -> None:
        self.feature_map_ = self._resolved_feature_map()
        self.frequencies_ = rff.frequencies_
        self.phases_ = rff.phases_
        self.feature_scale_ = float(rff.scale_)
        self.feature_norm_bound_ = float(rff.feature_norm_bound_)
        self.data_norm_ = float(R)
        unprojected = self.norm_handling == "paper" and self.feature_map_ == "cos-phase"
        self.projection_radius_ = None if unprojected else float(R)

    def transform_features(self, X: ArrayLike) -> FloatArray:
        """Random features of ``X`` from the released frequencies, as used in fit.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Rows.

        Returns
        -------
        ndarray of shape (n_samples, n_random_features)
            z(x), projected onto the ball of radius ``projection_radius_`` (a
            no-op except for ``norm_handling="clip"`` and rounding).
        """
        check_is_fitted(self)
        Xa = np.asarray(validate_data(self, X, dtype=np.float64, reset=False))
        Z = fourier_features(
            Xa, self.frequencies_, self.phases_, scale=self.feature_scale_
        )
        if self.projection_radius_ is not None:
            Z = project_rows_to_ball(Z, self.projection_radius_)
        return np.asarray(Z, dtype=np.float64)

    def _scores(self, X: ArrayLike) -> FloatArray:
        # ⟨coef_, z(x)⟩ from the released frequencies_, phases_, feature_scale_,
        # projection_radius_ and coef_ only.
        return self.transform_features(X) @ self.coef_.T

    def _feature_details(self, R: float) -> dict[str, Any]:
        return {
            "kernel": self.kernel,
            "gamma": float(self.gamma),
            "n_components": int(self.n_components),
            "feature_map": self.feature_map_,
            "norm_handling": self.norm_handling,
            "n_random_features": int(self.coef_.shape[1]),
            "feature_norm_bound": self.feature_norm_bound_,
            "calibrated_norm_bound": float(R),
            "frequencies": "data-independent, released (frequencies_, phases_)",
        }

    # -- model file (dpsvm.io): the released feature map and weights ------------
    _saved_attributes: ClassVar[tuple[SavedAttribute, ...]] = (
        SavedAttribute("classes", "classes_", "labels"),
        SavedAttribute("coef", "coef_", "custom"),
        SavedAttribute("random_features", "frequencies_, phases_, ...", "custom"),
        SavedAttribute("data_norm", "data_norm_", "positive"),
        SavedAttribute("n_features_in", "n_features_in_", "count"),
    )

    def _state_to_dict(self, codec: Any) -> dict[str, Any]:
        """``coef`` and the public description of the feature map."""
        radius, phases = self.projection_radius_, self.phases_
        return {
            "coef": codec.to_list("coef_", self.coef_),
            "random_features": {
                "kernel": self.kernel,
                "gamma": codec.scalar("gamma", self.gamma),
                "n_components": codec.scalar("n_components", self.n_components),
                "feature_map": str(self.feature_map_),
                "norm_handling": self.norm_handling,
                "scale": codec.scalar("feature_scale_", float(self.feature_scale_)),
                "feature_norm_bound": codec.scalar(
                    "feature_norm_bound_", float(self.feature_norm_bound_)
                ),
                "projection_radius": None
                if radius is None
                else codec.scalar("projection_radius_", float(radius)),
                "frequencies": codec.to_list("frequencies_", self.frequencies_),
                "phases": None if phases is None else codec.to_list("phases_", phases),
            },
        }

    def _state_from_dict(self, state: dict[str, Any], codec: Any) -> None:
        """Read the feature map; its derived values must agree with the parameters.

        As in :meth:`_feature_setup` / :meth:`_store_features`: the cos-sin map
        (Rubinstein et al. 2012, eq. (4.1)) and the cos-phase map with
        ``norm_handling="scale"`` use 1/√m (norm ≤ 1); the other cos-phase modes
        keep the √(2/D) of Sarwate, Chaudhuri & Monteleoni (arXiv:0912.0071),
        Algorithm 2, whose features reach norm √2 although its Theorem 1 assumes
        norm ≤ 1 (correction: docs/kernels.md, "The cos-phase norm"). The noise
        is calibrated for √2 with ``"bound"`` only; ``"paper"`` alone leaves the
        features unprojected.
        """
        where = codec.where("random_features")
        keys = ("kernel", "gamma", "n_components", "feature_map", "norm_handling")
        derived = ("scale", "feature_norm_bound", "projection_radius")
        arrays = ("frequencies", "phases")
        rf = codec.keys(state["random_features"], where, keys + derived + arrays)
        if isinstance(self.n_components, bool):  # an Integral to scikit-learn
            raise ValueError(
                "params.n_components must be an integer >= 1, got True/False."
            )
        for key in keys[:3] + keys[4:]:
            value, param = rf[key], getattr(self, key)
            if isinstance(value, bool) or value != param:
                raise ValueError(
                    f"{where}.{key} is {value!r} but params.{key} is {param!r}."
                )
        m, d, feature_map = (
            int(self.n_components),
            self.n_features_in_,
            rf["feature_map"],
        )
        if feature_map != self._resolved_feature_map():  # "auto" -> the map fit uses
            raise ValueError(
                f"{where}.feature_map is {feature_map!r}; the parameters give "
                f"{self._resolved_feature_map()!r}."
            )
        cos_phase = feature_map == "cos-phase"
        unscaled = cos_phase and self.norm_handling != "scale"
        scale = math.sqrt(2.0 / m) if unscaled else 1.0 / math.sqrt(m)
        self.feature_scale_ = codec.derived(rf["scale"], scale, f"{where}.scale")
        self.feature_norm_bound_ = codec.derived(
            rf["feature_norm_bound"],
            math.sqrt(2.0) if unscaled else 1.0,
            f"{where}.feature_norm_bound",
        )
        calibrated = (
            math.sqrt(2.0) if cos_phase and self.norm_handling == "bound" else 1.0
        )
        codec.derived(self.data_norm_, calibrated, codec.where("data_norm"))
        radius = rf["projection_radius"]
        if cos_phase and self.norm_handling == "paper":
            if radius is not None:
                raise ValueError(
                    f"{where}.projection_radius must be null for "
                    "norm_handling='paper' (unprojected features)."
                )
        elif isinstance(radius, bool) or radius != self.data_norm_:
            raise ValueError(
                f"{where}.projection_radius is {radius!r}; it must equal "
                f"data_norm ({self.data_norm_!r})."
            )
        self.frequencies_ = codec.array(
            rf["frequencies"], f"{where}.frequencies", (d, m)
        )
        if cos_phase:
            self.phases_ = codec.array(rf["phases"], f"{where}.phases", (m,))
        elif rf["phases"] is not None:
            raise ValueError(f"{where}.phases must be null for the cos-sin map.")
        else:
            self.phases_ = None
        k = 1 if self.classes_.size == 2 else self.classes_.size
        self.coef_ = codec.array(
            state["coef"], codec.where("coef"), (k, m if cos_phase else 2 * m)
        )
        self.feature_map_ = feature_map
        self.projection_radius_ = None if radius is None else float(radius)
