# SPDX-License-Identifier: BSD-3-Clause
"""Select privately on one part of the data, fit the final model on the rest."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from numbers import Real
from typing import Any

from numpy.typing import ArrayLike
from sklearn.base import clone
from sklearn.model_selection import ParameterGrid

from .._compat import Interval, StrOptions
from ..accounting.accountant import BudgetAccountant
from ..accounting.composition import parallel_composition
from ..accounting.events import PrivacyEvent
from ..utils._random import LentGenerator
from ._base import SelectionStart, SelectorBase
from ._common import (
    SELECTOR_CONSTRAINTS,
    fit_with_child_stream,
    fitted_event,
    take_rows,
)
from ._repeated import PrivateRandomSearch, _calibrate_base_epsilon, _check_mean
from ._sarwate import PrivateParameterTuning
from ._steps import param_prefix

__all__ = ["PrivateSelectThenFit"]


class PrivateSelectThenFit(SelectorBase):
    """Private tuning on a selection part, then one private fit on the rest.

    The rows are cut once, data-independently, into a selection part S
    (``selection_fraction`` of them) and a final part F. A private selector
    (:class:`PrivateParameterTuning` or :class:`PrivateRandomSearch`) chooses a
    candidate on S with the full ε; the estimator is then fitted once on F with
    the chosen parameters and the full ε. S and F are disjoint, so the whole
    procedure is ε-DP (adaptive parallel composition): ε is not divided, the
    data are.

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
        Public candidate values **for the final fit** (explicit values only).
    epsilon : float, default=1.0
        The end-to-end ε > 0.
    selection_fraction : float, default=0.25
        Share of the rows in S, in (0, 1); |S| = ``ceil(selection_fraction * n)``.
    selector : {"parameter-tuning", "random-search"}, default="parameter-tuning"
        Sarwate, Chaudhuri & Monteleoni (2009), Algorithm 3
        (:class:`PrivateParameterTuning`) or Liu–Talwar random stopping
        (:class:`PrivateRandomSearch`, geometric K,
        ``mean_repetitions`` runs on average, ε₀ = ε/3).
    transfer : {"noise-matched", "none"}, default="noise-matched"
        How a candidate's ``regularization`` Λ is translated to the smaller
        fits inside the selector. ``"noise-matched"`` trains the candidate
        standing for Λ with Λ·(n_F ε)/(n_c ε_c), where n_c and ε_c are the rows
        and ε of one fit inside the selector: objective perturbation's noise
        enters the solution as b/(nΛ) with ‖b‖ ∝ 1/ε′ and ε′ = ε − ln(1 + 2c/(nΛ)
        + …), so equal n·Λ·ε gives the candidate the final fit's noise-to-
        regularisation ratio and the same relative loss ε′/ε. ``"none"`` uses Λ
        unchanged (the selector then judges Λ in a far noisier regime than the
        final fit and tends to prefer large Λ). Other parameters are never
        rescaled. The map uses only public quantities (n, ε, the grid).
    mean_repetitions : float, default=10.0
        E[K] for ``selector="random-search"``.
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
        The final model, fitted on F with the selected parameters.
    best_index_ : int
        Index of the selected candidate in the expanded grid.
    best_params_ : dict
        The selected candidate (final-fit values, before any transfer).
    selector_ : PrivateParameterTuning or PrivateRandomSearch
        The fitted selector (its own diagnostics carry its own warnings).
    partition_ : tuple of ndarray
        (S indices, F indices), data-independent.
    privacy_event_ : PrivacyEvent
        One event for the whole procedure (ε, δ end to end); its children are
        the component releases (candidate fits, noisy scores, the selection).
    n_features_in_ : int
        Number of features seen in ``fit``.

    Notes
    -----
    **Privacy.** Replace-one neighbours; the S/F split depends only on n and a
    random permutation. A record in S changes only the selector's output
    (ε-DP); the final fit reads F and the selected index only. A record in F
    changes only the final fit, which is ε-DP for every fixed choice of
    parameters. Hence (ε, max δ)-DP end to end (McSherry 2009, Thm 4, applied
    adaptively: the joint law factorises over the two parts).

    Examples
    --------
    >>> from dpsvm.datasets import make_nested_balls
    >>> from dpsvm.models import DPLinearSVC
    >>> X, y = make_nested_balls(4000, random_state=0)
    >>> grid = {"regularization": [1e-2, 1e-1]}
    >>> from dpsvm.model_selection import PrivateSelectThenFit
    >>> pipe = PrivateSelectThenFit(
    ...     DPLinearSVC(classes=[-1, 1]), grid, epsilon=1.0, random_state=0
    ... ).fit(X, y)
    >>> pipe.privacy_event_.epsilon, [len(p) for p in pipe.partition_]
    (1.0, [1000, 3000])
    """

    _parameter_constraints: dict[str, list[Any]] = {
        **SELECTOR_CONSTRAINTS,
        "selection_fraction": [Interval(Real, 0, 1, closed="neither")],
        "selector": [StrOptions({"parameter-tuning", "random-search"})],
        "transfer": [StrOptions({"noise-matched", "none"})],
        "mean_repetitions": [Interval(Real, 1, None, closed="left")],
    }

    def __init__(
        self,
        estimator: Any,
        param_grid: Mapping[str, Any] | Sequence[Mapping[str, Any]] | ParameterGrid,
        *,
        epsilon: float = 1.0,
        selection_fraction: float = 0.25,
        selector: str = "parameter-tuning",
        transfer: str = "noise-matched",
        mean_repetitions: float = 10.0,
        scoring: str = "accuracy",
        class_priors: Mapping[Any, float] | ArrayLike | None = None,
        accountant: BudgetAccountant | None = None,
        random_state: int | None = None,
        split_random_state: int | None = None,
    ) -> None:
        self.estimator = estimator
        self.param_grid = param_grid
        self.epsilon = epsilon
        self.selection_fraction = selection_fraction
        self.selector = selector
        self.transfer = transfer
        self.mean_repetitions = mean_repetitions
        self.scoring = scoring
        self.class_priors = class_priors
        self.accountant = accountant
        self.random_state = random_state
        self.split_random_state = split_random_state

    def _transfer_grid(
        self, candidates: list[dict[str, Any]], n_final: int, n_sel: int, eps: float
    ) -> list[dict[str, Any]]:
        """Candidate settings for the fits inside the selector (public map)."""
        if self.transfer == "none":
            return [dict(c) for c in candidates]
        m = len(candidates)
        if self.selector == "parameter-tuning":
            n_c, eps_c = n_sel / (m + 1), eps  # one part of Algorithm 3
        else:
            n_c = n_sel - math.ceil(0.2 * n_sel)  # PrivateRandomSearch default
            eps_c = _calibrate_base_epsilon(
                eps, 0.0, "geometric", None, _check_mean(self.mean_repetitions)
            )
        factor = (n_final * eps) / (n_c * eps_c)
        key = f"{param_prefix(self.estimator)}regularization"  # a pipeline's too
        out = []
        for c in candidates:
            c2 = dict(c)
            if key in c2:
                # Equal n·Λ·ε: the same noise-to-regularisation ratio ‖b‖/(nΛ)
                # (Sarwate, Chaudhuri & Monteleoni 2009, Thm 2 / eq. (62):
                # ‖f_priv − f*‖ ≤ 2‖b‖/(nΛ)).
                c2[key] = float(c2[key]) * factor
            out.append(c2)
        return out

    def _select(self, start: SelectionStart) -> tuple[int, Any, PrivacyEvent]:
        """Select on S, then fit the final model on F."""
        epsilon, rng, Xd, y = start.epsilon, start.rng, start.X, start.y
        sel, fin = self._holdout_split("selection_fraction", y.shape[0], rng)
        n_sel = int(sel.size)

        inner_cands = self._transfer_grid(
            start.candidates, int(fin.size), n_sel, epsilon
        )
        # One single-valued grid per candidate keeps the order (and the index).
        inner = [{k: [v] for k, v in c.items()} for c in inner_cands]
        selector: PrivateParameterTuning | PrivateRandomSearch
        # The kept selector_ shows this pipeline's own random_state, never a
        # stream lent to the pipeline for one fit (its noise comes from rng).
        own = (
            None if isinstance(self.random_state, LentGenerator) else self.random_state
        )
        if self.selector == "parameter-tuning":
            selector = PrivateParameterTuning(
                clone(self.estimator),
                inner,
                epsilon=epsilon,
                scoring=self.scoring,
                class_priors=self.class_priors,
                random_state=own,
            )
        else:
            selector = PrivateRandomSearch(
                clone(self.estimator),
                inner,
                epsilon=epsilon,
                mean_repetitions=self.mean_repetitions,
                scoring=self.scoring,
                class_priors=self.class_priors,
                random_state=own,
            )
        # The selector runs on a child stream of rng, dropped after its fit.
        fit_with_child_stream(selector, take_rows(Xd, sel), y[sel], rng)
        best = selector.best_index_

        final = start.estimators[best]
        fit_with_child_stream(final, take_rows(Xd, fin), y[fin], rng)
        final_event = fitted_event(final, epsilon)

        # Parallel composition over S and F (McSherry 2009, Thm 4).
        eps_total, delta_total = parallel_composition(
            [selector.privacy_event_, final_event]
        )
        event = PrivacyEvent(
            mechanism="private-select-then-fit",
            epsilon=eps_total,
            delta=delta_total,
            reference=(
                "selection on S, final fit on disjoint F; parallel composition "
                "(McSherry 2009, Thm 4)"
            ),
            details={
                "selector": self.selector,
                "transfer": self.transfer,
                "n_selection_samples": int(sel.size),
                "n_final_samples": int(fin.size),
                "scoring": self.scoring,
                "selected_index": int(best),
            },
            children=(selector.privacy_event_, final_event),
        )
        self.selector_ = selector
        self.partition_ = (sel, fin)
        return int(best), final, event
