# SPDX-License-Identifier: BSD-3-Clause
"""A pipeline step that the user declares public: it learns nothing from the rows."""

from __future__ import annotations

from typing import Any

from sklearn.base import BaseEstimator, TransformerMixin, clone
from sklearn.exceptions import NotFittedError
from sklearn.utils.validation import check_is_fitted

__all__ = ["PublicStep"]


def _is_fitted(transformer: Any) -> bool:
    try:
        check_is_fitted(transformer)
    except (NotFittedError, TypeError):
        return False
    return True


class PublicStep(TransformerMixin, BaseEstimator):
    """Mark a transformer as public, so that a private selector may tune through it.

    The private selectors (:mod:`dpsvm.model_selection`) accept a
    :class:`~sklearn.pipeline.Pipeline` whose steps before the private
    estimator read nothing from the private rows. :class:`SchemaTransformer`
    is such a step by construction; any other transformer is refused unless it
    is wrapped here, which is the user's declaration that it is public:

    * a transformer **already fitted on public data** (a scaler fitted on a
      public sample, a vocabulary from a public codebook) is used as it is and
      never refitted on the private rows;
    * an unfitted transformer is fitted (on a copy) when the pipeline is fitted:
      wrap only a **fixed map** whose ``fit`` reads no statistic of the rows
      (e.g. ``PolynomialFeatures(2)``, whose fit reads the number of columns);
      a stateless one (``FunctionTransformer(np.log1p)``, which scikit-learn
      counts as fitted) is used as it is.

    Parameters
    ----------
    transformer : transformer object
        The public transformer (``transform``; ``fit`` if not yet fitted).

    Attributes
    ----------
    transformer_ : transformer object
        The transformer used by :meth:`transform`: ``transformer`` itself if it
        was fitted beforehand, else a fitted copy.

    See Also
    --------
    SchemaTransformer : Encoding by a public schema (public without a wrapper).

    Notes
    -----
    **Privacy.** The wrapper checks nothing about the transformer: it records
    the user's declaration that the step is a public function of each row. A
    transformer fitted on the private rows (a ``StandardScaler`` fitted on
    them, a ``PCA``, an imputer learning means) releases statistics of those
    rows through every model trained after it and must not be wrapped; the
    selectors refuse such steps when they are not wrapped. ``clone`` keeps the
    wrapped object (a fitted public transformer stays fitted), so every
    candidate of a selector uses the same public map.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.preprocessing import FunctionTransformer
    >>> step = PublicStep(FunctionTransformer(np.abs)).fit(np.array([[-2.0]]))
    >>> step.transform(np.array([[-3.0, 4.0]])).tolist()
    [[3.0, 4.0]]
    """

    transformer_: Any

    def __init__(self, transformer: Any = None) -> None:
        self.transformer = transformer

    def __sklearn_clone__(self) -> PublicStep:
        # The public map itself, not an unfitted copy of it: a transformer
        # fitted on public data must stay fitted in every candidate.
        return type(self)(self.transformer)

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.input_tags.sparse = True
        tags.input_tags.string = True
        tags.requires_fit = False
        return tags

    def fit(self, X: Any, y: Any = None) -> PublicStep:
        """Use the public transformer: as it is if fitted, else a fitted copy.

        Parameters
        ----------
        X : array-like or data frame
            Rows, read only by the ``fit`` of an unfitted (fixed-map)
            transformer.
        y : None
            Ignored: a public step never reads the labels.

        Returns
        -------
        PublicStep
            This step.
        """
        if not hasattr(self.transformer, "transform"):
            raise TypeError(
                "PublicStep wraps a transformer (an object with transform), got "
                f"{type(self.transformer).__name__}"
            )
        if _is_fitted(self.transformer):
            self.transformer_ = self.transformer
        else:
            self.transformer_ = clone(self.transformer).fit(X)
        return self

    def transform(self, X: Any) -> Any:
        """Apply the public transformer.

        Parameters
        ----------
        X : array-like or data frame
            Rows.

        Returns
        -------
        array-like
            ``transformer_.transform(X)``.
        """
        check_is_fitted(self, "transformer_")
        return self.transformer_.transform(X)

    def get_feature_names_out(self, input_features: Any = None) -> Any:
        """The wrapped transformer's output feature names.

        Parameters
        ----------
        input_features : array-like of str, optional
            Passed on.

        Returns
        -------
        ndarray of str
            ``transformer_.get_feature_names_out(input_features)``.
        """
        check_is_fitted(self, "transformer_")
        return self.transformer_.get_feature_names_out(input_features)
