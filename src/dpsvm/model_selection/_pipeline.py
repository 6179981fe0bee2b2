# SPDX-License-Identifier: BSD-3-Clause
"""Select privately on one part of the data, fit the final model on the rest."""

from __future__ import annotations

import math
from numbers import Real
from typing import Any

from sklearn.base import clone

from .._compat import Interval, StrOptions
from ..accounting.composition import parallel_composition
from ..accounting.events import PrivacyEvent
from ..utils._random import LentGenerator
from ._base import SelectionStart, SelectorBase, selector_doc
from ._common import (
    SELECTOR_CONSTRAINTS,
    fit_with_child_stream,
    fitted_event,
    selector_init,
    take_rows,
)
from ._repeated import PrivateRandomSearch, _calibrate_base_epsilon, _check_mean
from ._sarwate import PrivateParameterTuning
from ._steps import param_prefix

__all__ = ["PrivateSelectThenFit"]


@selector_doc
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
    %(estimator)s
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
    %(budget_and_randomness)s

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
    %(event_and_features)s

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
    %(example_data)s
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

    __init__ = selector_init(
        {
            "selection_fraction": 0.25,
            "selector": "parameter-tuning",
            "transfer": "noise-matched",
            "mean_repetitions": 10.0,
        }
    )

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
