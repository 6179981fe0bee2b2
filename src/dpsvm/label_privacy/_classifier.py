# SPDX-License-Identifier: BSD-3-Clause
"""LabelPrivateClassifier: randomise the labels once, then train any classifier."""

from __future__ import annotations

from numbers import Integral, Real
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin, clone
from sklearn.dummy import DummyClassifier
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.utils import get_tags
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from .._compat import HasMethods, Interval, StrOptions, validate_data, validate_params
from ..accounting import BudgetAccountant, PrivacyEvent, charge, resolve_accountant
from ..models.base import mark_label_set, resolve_label_set
from ..utils._random import check_random_state, random_state_constraint
from ..validation import check_epsilon
from ._mechanisms import (
    _REFERENCE_PRIOR,
    _REFERENCE_RR,
    randomized_response,
    rr_keep_probability,
    rr_with_prior,
)

__all__ = ["LabelPrivateClassifier", "default_estimator"]


def default_estimator() -> HistGradientBoostingClassifier:
    """The default base estimator of :class:`LabelPrivateClassifier`.

    scikit-learn's ``HistGradientBoostingClassifier()`` with its defaults; chosen
    by 5-fold cross-validation on Adult's training file (docs/label_privacy.md).

    Returns
    -------
    HistGradientBoostingClassifier
        A new, unfitted instance.

    Examples
    --------
    >>> type(default_estimator()).__name__
    'HistGradientBoostingClassifier'
    """
    return HistGradientBoostingClassifier()


def _base_has(method: str) -> Any:
    """``available_if`` check: the (default) base estimator has ``method``."""

    def check(self: LabelPrivateClassifier) -> bool:
        base = self.estimator_ if hasattr(self, "estimator_") else self._base()
        return hasattr(base, method)

    return check


class LabelPrivateClassifier(ClassifierMixin, MetaEstimatorMixin, BaseEstimator):
    """Any classifier trained on randomised labels: ε-**label**-DP (features public).

    Each training label is randomised **once**, by k-ary randomized response
    (``mechanism="rr"``) or by RR with a prior (``mechanism="rr-with-prior"``,
    Ghazi, Golowich, Kumar, Manurangsi & Zhang, NeurIPS 2021: RRWithPrior,
    Algorithm 2, in the multi-stage training LP-MST, Algorithm 3). The base
    ``estimator`` is then trained on the public features and the noisy labels;
    that is post-processing, so the model, its predictions and probabilities
    are ε-label-DP, for any number of classes, without splitting ε.

    **The features are NOT protected.** Only the labels are: see Privacy below.

    Parameters
    ----------
    estimator : classifier or None, default=None
        The scikit-learn classifier trained on the noisy labels (cloned).
        ``None``: :func:`default_estimator`, a ``HistGradientBoostingClassifier``
        (chosen by cross-validation on Adult's training file,
        docs/label_privacy.md). ``mechanism="rr-with-prior"`` needs
        ``predict_proba`` (the prior of each stage).
    epsilon : float, default=1.0
        The label-privacy parameter ε > 0 (pure, δ = 0).
    classes : array-like or None, default=None
        The public label set (≥ 2 labels). A training label outside it is
        refused. ``None`` reads it from y (not private) and emits a
        :class:`~dpsvm.exceptions.PrivacyLeakWarning`.
    mechanism : {"rr", "rr-with-prior"}, default="rr"
        ``"rr"``: k-ary randomized response, keep the label with probability
        e^ε/(e^ε + K − 1), else one of the K − 1 others uniformly (the default:
        on Adult's training file, 5-fold cross-validation, it matched
        ``"rr-with-prior"`` at ε = 1 and 2 and beat it at ε = 0.1 and 0.5,
        docs/label_privacy.md).
        ``"rr-with-prior"``: the rows are split at random into ``n_stages``
        disjoint stages; stage 1 uses ``prior`` (uniform by default, which is
        plain RR); each later stage's prior is ``predict_proba`` of a copy of
        ``estimator`` trained on the earlier stages' **noisy** labels, and
        RRWithPrior keeps only the k* most likely labels under it (k* maximises
        P(true label among them) · e^ε/(e^ε + k − 1)) and randomises within
        them. It can only help where some labels are rare under the prior
        (many classes); with two classes it either keeps plain RR (k* = 2) or
        outputs the prior's top label (k* = 1).
    n_stages : int, default=2
        Number of stages T of ``"rr-with-prior"`` (LP-MST); ignored by ``"rr"``.
    prior : array-like of shape (n_classes,) or None, default=None
        A **public** prior over ``classes`` for the first stage, in the order
        of ``classes`` as given (sorted order when ``classes`` is None); it
        must not be computed from these labels. ``None`` is uniform.
    accountant : BudgetAccountant or None, default=None
        Charged (ε, 0) after a successful fit, checked before the data are
        read. It must keep a label-DP budget
        (``BudgetAccountant(..., neighbouring="replace-one-label")``): a full-DP
        accountant refuses this release.
    random_state : None or int, default=None
        ``None``: the label noise and the stage split come from a ChaCha20
        CSPRNG keyed by the OS. An int makes them reproducible — **for tests
        and documentation only, never for a real release**. The base
        estimator's own ``random_state`` is left as given (it is not privacy
        noise).

    Attributes
    ----------
    estimator_ : estimator
        The base estimator fitted on all the noisy labels (a constant
        ``DummyClassifier`` in the rare case the noisy labels hold one class).
    classes_ : ndarray of shape (n_classes,)
        The label set.
    n_features_in_ : int
        Number of input columns.
    feature_names_in_ : ndarray of str
        Column names, when X has them.
    privacy_event_ : PrivacyEvent
        ε, δ = 0, neighbouring relation ``"replace-one-label"``, the
        mechanism, its reference and the public facts of the fit.

    See Also
    --------
    dpsvm.margins.LabelPrivateMarginClassifier : Label DP by Bassily, Mohri &
        Suresh's Algorithm 4.
    dpsvm.models.DPLinearSVC : Full DP (features and labels).

    Notes
    -----
    **Privacy.** ε-label-DP, pure: neighbouring data sets have the **same
    features** and differ in the label of one example (relation
    ``"replace-one-label"``). Each label is randomised exactly once, by RRTop-k
    (Ghazi et al. 2021, Algorithm 1), which is ε-DP for that label for every
    candidate set (their Lemma 1); k-ary RR is RRTop-k with all K labels. In
    ``"rr-with-prior"`` the candidate set of a row depends only on the public
    features, on ``prior`` and on the noisy labels of **earlier, disjoint**
    stages, never on a true label, so the noisy label vector is ε-label-DP
    (each label enters one ε-DP randomiser; the stages compose in parallel).
    The base estimator sees only features and noisy labels: its output is
    post-processing. **The features are not protected at all**: the model is
    trained on them freely and may reveal them. Use this estimator only where
    the features are public (or already released) and the labels are the
    secret; otherwise use a DP learner such as
    :class:`~dpsvm.models.DPLinearSVC`. The number of rows n is public. Label
    DP and full DP are different guarantees: a full-DP
    :class:`~dpsvm.accounting.BudgetAccountant` refuses this event; a label-DP
    accountant keeps such budgets separately.

    References
    ----------
    .. [1] B. Ghazi, N. Golowich, R. Kumar, P. Manurangsi, C. Zhang, "Deep
       Learning with Label Differential Privacy", NeurIPS 2021 (arXiv:2102.06062),
       Algorithms 1–3, Lemma 1.
    .. [2] S. L. Warner, "Randomized response: a survey technique for
       eliminating evasive answer bias", JASA 60 (1965).
    .. [3] P. Kairouz, S. Oh, P. Viswanath, "Extremal mechanisms for local
       differential privacy", JMLR 17 (2016).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LogisticRegression
    >>> from dpsvm.label_privacy import LabelPrivateClassifier
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(2000, 3))
    >>> y = np.where(X[:, 0] + 0.5 * X[:, 1] > 0, "yes", "no")
    >>> clf = LabelPrivateClassifier(LogisticRegression(), epsilon=1.0,
    ...                              classes=["no", "yes"], random_state=0)
    >>> clf.mechanism
    'rr'
    >>> clf = clf.fit(X, y)
    >>> clf.privacy_event_.neighbouring
    'replace-one-label'
    >>> bool(clf.score(X, y) > 0.9)
    True
    """

    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        "estimator": [HasMethods(["fit", "predict"]), None],
        "epsilon": [Interval(Real, 0, None, closed="neither")],
        "classes": ["array-like", None],
        "mechanism": [StrOptions({"rr", "rr-with-prior"})],
        "n_stages": [Interval(Integral, 1, None, closed="left")],
        "prior": ["array-like", None],
        "accountant": [BudgetAccountant, None],
        # None or an int only: a generator object would be a secret the caller
        # keeps (dpsvm.utils._random.check_random_state draws the noise).
        "random_state": random_state_constraint(),
    }

    def __init__(
        self,
        estimator: Any = None,
        *,
        epsilon: float = 1.0,
        classes: ArrayLike | None = None,
        mechanism: str = "rr",
        n_stages: int = 2,
        prior: ArrayLike | None = None,
        accountant: BudgetAccountant | None = None,
        random_state: int | None = None,
    ) -> None:
        self.estimator = estimator
        self.epsilon = epsilon
        self.classes = classes
        self.mechanism = mechanism
        self.n_stages = n_stages
        self.prior = prior
        self.accountant = accountant
        self.random_state = random_state

    def _base(self) -> Any:
        return default_estimator() if self.estimator is None else self.estimator

    def __sklearn_tags__(self):  # type: ignore[no-untyped-def]
        """Tags: input as the base estimator's, label noise non-deterministic."""
        tags = super().__sklearn_tags__()
        base = get_tags(self._base())
        tags.input_tags.sparse = base.input_tags.sparse
        tags.non_deterministic = True
        if tags.classifier_tags is not None:
            tags.classifier_tags.poor_score = True
        return tags

    # -- fit ---------------------------------------------------------------
    def fit(self, X: ArrayLike, y: ArrayLike) -> LabelPrivateClassifier:
        """Randomise the labels once and train the base estimator on them.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Public features (not protected).
        y : array-like of shape (n_samples,)
            Private labels, each in ``classes``.

        Returns
        -------
        self
            The fitted estimator.
        """
        validate_params(self)
        epsilon = check_epsilon(self.epsilon)
        base = self._base()
        if self.mechanism == "rr-with-prior" and not hasattr(base, "predict_proba"):
            raise ValueError(
                f"mechanism='rr-with-prior' needs an estimator with predict_proba "
                f"(the prior of each stage); {type(base).__name__} has none. Use "
                "mechanism='rr', or a probabilistic classifier."
            )
        # Checked before reading any data; spent only after a successful fit.
        ticket = charge(
            resolve_accountant(self.accountant),
            epsilon,
            0.0,
            owner=self,
            neighbouring="replace-one-label",
        )
        sparse = ["csr", "csc"] if get_tags(base).input_tags.sparse else False
        X, y_checked = validate_data(self, X, y, accept_sparse=sparse)
        y = np.asarray(y_checked)
        check_classification_targets(y)
        classes = resolve_label_set(self.classes, y)
        n_classes = classes.size
        prior = self._public_prior(classes)
        codes = np.searchsorted(classes, y).astype(np.intp)
        n = codes.size
        rng = check_random_state(self.random_state)
        if self.mechanism == "rr":
            noisy = randomized_response(codes, n_classes, epsilon, rng)
            stage_sizes = [n]
        else:
            noisy, stage_sizes = self._multi_stage(
                X, codes, classes, prior, epsilon, rng
            )
        del rng  # the noise generator never outlives the fit
        self.classes_ = classes
        self.estimator_ = _fit_or_constant(base, X, classes[noisy])
        self.privacy_event_ = self._event(epsilon, n, n_classes, stage_sizes)
        ticket.spend(self.privacy_event_)
        return self

    def _public_prior(self, classes: NDArray[Any]) -> NDArray[np.float64] | None:
        """``prior`` (given in the order of ``classes``) in sorted class order."""
        if self.prior is None:
            return None
        n_classes = classes.size
        p = np.asarray(self.prior, dtype=np.float64)
        if p.shape != (n_classes,) or not np.all(np.isfinite(p)) or np.any(p < 0):
            raise ValueError(
                "prior must be a public probability vector with one finite, "
                f"non-negative entry per class in classes ({n_classes} entries)."
            )
        if not p.sum() > 0:
            raise ValueError("prior must have a positive entry.")
        p = p / p.sum()
        if self.classes is not None:
            # classes_ (and the label codes) are sorted; the prior follows the
            # order of classes as given.
            given = np.asarray(self.classes).ravel()
            if given.size == n_classes:
                out = np.empty(n_classes)
                out[np.searchsorted(classes, given)] = p
                return out
        return p

    def _multi_stage(
        self,
        X: Any,
        codes: NDArray[np.intp],
        classes: NDArray[Any],
        prior: NDArray[np.float64] | None,
        epsilon: float,
        rng: np.random.Generator,
    ) -> tuple[NDArray[np.intp], list[int]]:
        """LP-MST (Ghazi et al. 2021, Algorithm 3) with RRWithPrior (Algorithm 2).

        The stages are a random partition of the rows (drawn from the noise
        source, independent of the labels). Stage t's prior is computed from
        the features, the public ``prior`` and the noisy labels of stages < t
        only; each true label is read once, by its own stage's randomiser.
        """
        n, n_classes = codes.size, classes.size
        stages = [
            s for s in np.array_split(rng.permutation(n), int(self.n_stages)) if s.size
        ]
        noisy = np.empty(n, dtype=np.intp)
        done = np.zeros(0, dtype=np.intp)
        for t, rows in enumerate(stages):
            if t == 0:
                p = np.full(n_classes, 1.0 / n_classes) if prior is None else prior
                P = np.broadcast_to(p, (rows.size, n_classes))
            else:
                # The prior model sees earlier stages' noisy labels only.
                model = _fit_or_constant(self._base(), X[done], classes[noisy[done]])
                P = _proba_on(model, X[rows], classes)
            noisy[rows] = rr_with_prior(codes[rows], P, epsilon, rng)
            done = np.concatenate([done, rows])
        return noisy, [int(s.size) for s in stages]

    def _event(
        self, epsilon: float, n: int, n_classes: int, stage_sizes: list[int]
    ) -> PrivacyEvent:
        details: dict[str, Any] = {
            "protected": "labels only; features are public and NOT protected",
            "n_samples": int(n),
            "n_classes": int(n_classes),
            "base_estimator": type(self._base()).__name__,
            "training": "post-processing of the noisy labels and public features",
        }
        if self.mechanism == "rr":
            details["keep_probability"] = rr_keep_probability(epsilon, n_classes)
            mechanism, reference = "randomized-response", _REFERENCE_RR
        else:
            details["n_stages"] = len(stage_sizes)
            details["stage_sizes"] = stage_sizes
            details["first_stage_prior"] = "uniform" if self.prior is None else "public"
            details["later_stage_prior"] = (
                "predict_proba of the base estimator trained on earlier stages' "
                "noisy labels"
            )
            mechanism, reference = "rr-with-prior", _REFERENCE_PRIOR
        event = PrivacyEvent(
            mechanism=mechanism,
            epsilon=epsilon,
            delta=0.0,
            sensitivity=None,
            neighbouring="replace-one-label",
            reference=reference,
            details=details,
        )
        return mark_label_set(event, self.classes)

    # -- predict -------------------------------------------------------------
    def predict(self, X: ArrayLike) -> NDArray[Any]:
        """Predict labels with the base estimator trained on noisy labels.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Rows to classify.

        Returns
        -------
        ndarray of shape (n_samples,)
            Labels from ``classes_``.
        """
        check_is_fitted(self)
        X = self._validate_predict(X)
        return np.asarray(self.estimator_.predict(X))

    @available_if(_base_has("predict_proba"))
    def predict_proba(self, X: ArrayLike) -> NDArray[np.float64]:
        """Class probabilities of the base estimator, one column per ``classes_``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Rows to classify.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Probabilities of the **noisy** labels' model (post-processing); a
            class absent from the noisy labels has probability 0.
        """
        check_is_fitted(self)
        X = self._validate_predict(X)
        return _proba_on(self.estimator_, X, self.classes_)

    @available_if(_base_has("predict_proba"))
    def predict_log_proba(self, X: ArrayLike) -> NDArray[np.float64]:
        """Logarithm of :meth:`predict_proba`.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Rows to classify.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            log of the class probabilities.
        """
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))

    def _validate_predict(self, X: ArrayLike) -> Any:
        sparse = ["csr", "csc"] if get_tags(self._base()).input_tags.sparse else False
        return validate_data(self, X, reset=False, accept_sparse=sparse)


def _fit_or_constant(base: Any, X: Any, labels: NDArray[Any]) -> Any:
    """A clone of ``base`` fitted on (X, labels); a constant model if one class.

    Noisy labels of a small sample can all be equal; the fit then still
    succeeds (a constant predictor) instead of failing on the noise. Random
    generators the fitted model keeps (e.g. HistGradientBoosting's feature
    subsampling stream, used only during ``fit``) are dropped: no released
    object holds a generator.
    """
    if np.unique(labels).size < 2:
        return DummyClassifier(strategy="most_frequent").fit(X, labels)
    model = clone(base).fit(X, labels)
    for name, value in list(vars(model).items()):
        if isinstance(value, np.random.Generator | np.random.RandomState):
            delattr(model, name)
    return model


def _proba_on(model: Any, X: Any, classes: NDArray[Any]) -> NDArray[np.float64]:
    """``model.predict_proba(X)`` with one column per entry of ``classes``."""
    raw = np.asarray(model.predict_proba(X), dtype=np.float64)
    out = np.zeros((raw.shape[0], classes.size))
    out[:, np.searchsorted(classes, model.classes_)] = raw
    return out
