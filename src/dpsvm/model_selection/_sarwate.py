# SPDX-License-Identifier: BSD-3-Clause
"""Privacy-preserving parameter tuning: Sarwate, Chaudhuri & Monteleoni, Alg. 3."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from sklearn.model_selection import ParameterGrid

from ..accounting.accountant import BudgetAccountant
from ..accounting.composition import parallel_composition
from ..accounting.events import PrivacyEvent
from ..mechanisms import ExponentialMechanism
from ._base import SelectionStart, SelectorBase
from ._common import (
    SELECTOR_CONSTRAINTS,
    fit_with_child_stream,
    fitted_event,
    partition_indices,
    split_generator,
    take_rows,
)

__all__ = ["PrivateParameterTuning"]

_REFERENCE = (
    "Sarwate, Chaudhuri & Monteleoni, arXiv:0912.0071, Algorithm 3 and Theorem 6 "
    "(parallel composition over disjoint parts, McSherry 2009 Thm 4; exponential "
    "mechanism with score -z and sensitivity 1, or the largest public class "
    "weight for weighted mistakes, McSherry & Talwar 2007 Thm 6)"
)


class PrivateParameterTuning(SelectorBase):
    """Choose among public candidate settings privately.

    Sarwate, Chaudhuri & Monteleoni (2009), Algorithm 3.

    The data are cut into m + 1 disjoint parts by a data-independent random
    permutation. Candidate i (of m) is fitted on part i with the **full** ε; the
    number of mistakes zᵢ of each fitted candidate on part m + 1 is counted, and
    candidate i is selected with probability ∝ exp(−ε·zᵢ/2) (the exponential
    mechanism, score −zᵢ, sensitivity 1). The selected candidate's model, fitted
    on its part, is the output.

    Parameters
    ----------
    estimator : estimator object or Pipeline
        A differentially private classifier with an ``epsilon`` parameter (and
        ``accountant`` / ``random_state`` parameters, which the selector sets),
        e.g. :class:`~dpsvm.models.DPLinearSVC`. It must record a
        ``privacy_event_`` when fitted. Its own ``accountant`` must be None.
        Or a :class:`~sklearn.pipeline.Pipeline` ending in such an estimator
        whose earlier steps are public (a
        :class:`~dpsvm.preprocessing.SchemaTransformer`, a step wrapped in
        :class:`~dpsvm.preprocessing.PublicStep`, or ``"passthrough"``); a step
        that would be fitted on the private rows (``StandardScaler``, ``PCA``,
        an imputer) is refused. The final step's parameters are the privacy
        parameters, and grid keys use the ``step__param`` form
        (``dplinearsvc__regularization``).
    param_grid : dict or list of dict
        The m public candidates, as explicit values (see
        :func:`~dpsvm.model_selection.check_param_grid`), e.g.
        ``{"regularization": [1e-4, 1e-3, 1e-2]}``. Callables and other
        data-derived forms are refused.
    epsilon : float, default=1.0
        The end-to-end ε > 0: every candidate is fitted with ε (on its own
        part) and the selection spends ε (on the validation part). The δ
        checked and charged is the largest ``delta`` of the candidates (0 for
        the pure-DP estimators of dpsvm).
    scoring : {"accuracy", "weighted-error"}, default="accuracy"
        How a candidate is scored on held-out rows: ``"accuracy"`` counts
        mistakes (sensitivity 1); ``"weighted-error"`` weighs a mistake on class
        c by w(c) = 1/(K·π_c) for the K public class priors π, whose sensitivity
        is max_c w(c) (max-weight/n as a rate). The noise of the selection is
        calibrated to that sensitivity (McSherry & Talwar 2007, Thm 6, for the
        exponential mechanism; Dwork & Roth 2014, Thm 3.6, for Laplace scores).
        Use it on imbalanced problems, where mistake counts favour a constant
        classifier. Metrics normalised by the private class counts (balanced
        accuracy) have no public sensitivity and are not offered.
    class_priors : dict, array-like or None, default=None
        Public class proportions for ``scoring="weighted-error"``, summing to 1:
        ``{class: prior}``, or one prior per class in the order of the
        estimator's ``classes``. ``None``: the ``label.priors`` of the pipeline's
        schema when declared. They must come from public knowledge (a census,
        a published rate), never from the private rows.
    accountant : BudgetAccountant or None, default=None
        Checked for (ε, δ) before the data are read and charged once, with one
        :class:`~dpsvm.accounting.PrivacyEvent`, after a successful fit; a
        failed fit spends nothing.
    random_state : None or int, default=None
        Drives the split, the candidates' noise and the selection. ``None``
        uses a ChaCha20 CSPRNG keyed by the OS. An int makes everything
        reproducible — **for tests and documentation only, never for a real
        release**. A generator object is refused at ``fit`` (here and on the
        tuned estimator: kept as a parameter, it would replay the noise).
    split_random_state : None or int, default=None
        Seed of the data split alone (it reads no record, so a seed is fine
        here, e.g. for a reproducible, publishable split while the noise comes
        from the CSPRNG). ``None``: drawn from ``random_state``'s generator. A
        generator object is refused at ``fit``, as for every public seed.

    Attributes
    ----------
    best_estimator_ : estimator
        The selected candidate, fitted on its part of the data; prediction
        methods delegate to it.
    best_index_ : int
        Its index in the expanded grid.
    best_params_ : dict
        Its parameters.
    partition_ : tuple of ndarray
        The m + 1 disjoint index arrays (row positions): ``partition_[i]`` for
        candidate i and ``partition_[-1]`` the validation part. They cover all
        rows; sizes follow :func:`numpy.array_split` (the first ``n mod (m+1)``
        parts hold one extra row), so they depend only on n and m. The split is
        data-independent and may be published.
    cv_results_ : dict
        Public facts per candidate: ``"params"``, ``"n_train_samples"`` and
        ``"selected"`` (a boolean mask), plus ``"n_validation_samples"``.
    privacy_event_ : PrivacyEvent
        One event for the whole procedure (ε, δ end to end); its children are
        the component releases (candidate fits, noisy scores, the selection).
    n_features_in_ : int
        Number of features seen in ``fit``.

    See Also
    --------
    PrivateRandomSearch : Every candidate sees all the training data; cost 3ε₀.
    tune_on_public_data : Tuning on public data costs no privacy.

    Notes
    -----
    **Privacy.** Neighbouring datasets have the same size n and differ in one
    record (replace-one). The split depends only on n and the random
    permutation, so a replaced record lies in exactly one part. If it lies in
    part j ≤ m it affects only fⱼ (ε-DP by the learner's own guarantee); if it
    lies in part m + 1 it affects only the counts zᵢ, each by at most 1, and the
    exponential mechanism with sensitivity 1 is ε-DP (McSherry & Talwar 2007,
    Thm 6). The output is a post-processing of (f₁…f_m, selected index), so the
    whole procedure is ε-DP (Sarwate, Chaudhuri & Monteleoni 2009, Thm 6;
    parallel composition, McSherry 2009, Thm 4). It assumes a public candidate
    list, a data-independent split (nothing is stratified by label), and
    candidates that are themselves ε-DP under replace-one neighbours. The exact
    counts zᵢ are not kept: only the selected index (and the selected model)
    are released.

    **Utility.** With probability ≥ 1 − δ the selected candidate makes at most
    z_min + (2/ε)·ln(m/δ) mistakes on the validation part (Sarwate, Chaudhuri
    & Monteleoni 2009, Thm 7;
    :func:`dpsvm.bounds.sarwate.tuning_error_slack`). Each candidate is fitted
    on only n/(m + 1) records, so the released model is much noisier than a
    fit on all n.

    References
    ----------
    .. [1] A. D. Sarwate, K. Chaudhuri, C. Monteleoni, "Differentially private
       support vector machines", arXiv:0912.0071, 2009, Algorithm 3, Theorems 6
       and 7.
    .. [2] F. McSherry, K. Talwar, "Mechanism design via differential privacy",
       FOCS 2007, Theorem 6.
    .. [3] F. McSherry, "Privacy integrated queries", SIGMOD 2009, Theorem 4.

    Examples
    --------
    >>> from dpsvm.datasets import make_nested_balls
    >>> from dpsvm.models import DPLinearSVC
    >>> X, y = make_nested_balls(4000, random_state=0)
    >>> grid = {"regularization": [1e-2, 1e-1]}
    >>> from dpsvm.model_selection import PrivateParameterTuning
    >>> tuner = PrivateParameterTuning(
    ...     DPLinearSVC(classes=[-1, 1]), grid, epsilon=1.0, random_state=0
    ... ).fit(X, y)
    >>> tuner.privacy_event_.epsilon, len(tuner.privacy_event_.children)
    (1.0, 3)
    >>> [len(p) for p in tuner.partition_]
    [1334, 1333, 1333]
    """

    _parameter_constraints: dict[str, list[Any]] = {
        **SELECTOR_CONSTRAINTS,
    }

    def __init__(
        self,
        estimator: Any,
        param_grid: Mapping[str, Any] | Sequence[Mapping[str, Any]] | ParameterGrid,
        *,
        epsilon: float = 1.0,
        scoring: str = "accuracy",
        class_priors: Mapping[Any, float] | ArrayLike | None = None,
        accountant: BudgetAccountant | None = None,
        random_state: int | None = None,
        split_random_state: int | None = None,
    ) -> None:
        self.estimator = estimator
        self.param_grid = param_grid
        self.epsilon = epsilon
        self.scoring = scoring
        self.class_priors = class_priors
        self.accountant = accountant
        self.random_state = random_state
        self.split_random_state = split_random_state

    def _select(self, start: SelectionStart) -> tuple[int, Any, PrivacyEvent]:
        """Algorithm 3: fit the candidates on disjoint parts, select one.

        ``fit`` raises ``ValueError`` here for fewer rows than m + 1 parts.
        """
        epsilon, rng, Xd, y = start.epsilon, start.rng, start.X, start.y
        m = len(start.estimators)
        n = y.shape[0]
        if n < m + 1:
            raise ValueError(
                f"Algorithm 3 needs at least m + 1 = {m + 1} rows (one non-empty "
                f"part per candidate and one for validation); got {n}."
            )
        # Step 1: m + 1 disjoint parts from a data-independent permutation.
        parts = partition_indices(
            n, m + 1, split_generator(self.split_random_state, rng)
        )
        val = parts[-1]
        X_val, y_val = take_rows(Xd, val), y[val]
        score = start.score

        # Step 2: candidate i on part i with the full ε (parallel composition).
        events: list[PrivacyEvent] = []
        mistakes = np.empty(m, dtype=np.float64)
        for i, est in enumerate(start.estimators):
            fit_with_child_stream(est, take_rows(Xd, parts[i]), y[parts[i]], rng)
            events.append(fitted_event(est, epsilon))
            # Step 3: zᵢ = number (a count, not a rate) of mistakes on part m+1,
            # each weighted by its class's public weight for "weighted-error".
            mistakes[i] = score.mistakes(y_val, np.asarray(est.predict(X_val)))

        # Step 4: P(i) ∝ exp(−ε·zᵢ/(2Δ)): exponential mechanism with utility
        # −zᵢ and sensitivity Δ = 1 for a count (Sarwate, Chaudhuri & Monteleoni
        # 2009, eq. (46)), Δ = max_c w(c) for weighted mistakes (one replaced row
        # moves zᵢ by at most its largest weight); McSherry & Talwar 2007, Thm 6.
        em = ExponentialMechanism(epsilon=epsilon, sensitivity=score.sensitivity)
        best = em.select(-mistakes, random_state=rng)
        selection = em.privacy_event(
            n_candidates=m, n_validation_samples=int(val.size), utility=score.name
        )

        # Parallel composition over the m + 1 disjoint parts (McSherry 2009,
        # Thm 4): a record lies in one part only, so (max εᵢ, max δᵢ).
        eps_total, delta_total = parallel_composition([*events, selection])
        event = PrivacyEvent(
            mechanism="private-parameter-tuning",
            epsilon=eps_total,
            delta=delta_total,
            reference=_REFERENCE,
            details={
                "composition": "parallel over m + 1 disjoint parts",
                "n_candidates": m,
                "part_sizes": [int(p.size) for p in parts],
                "selected_index": int(best),
                "split": "uniform random permutation, numpy.array_split sizes",
            },
            children=(*events, selection),
        )

        self.partition_ = tuple(parts)
        self.cv_results_ = {
            "params": [dict(c) for c in start.candidates],
            "n_train_samples": np.array([p.size for p in parts[:-1]]),
            "selected": np.arange(m) == best,
            "n_validation_samples": int(val.size),
        }
        return int(best), start.estimators[best], event
