# SPDX-License-Identifier: BSD-3-Clause
"""Run configurations of the Sarwate et al. (2009) reproduction: full, quick, tiny.

The full configuration follows the paper's protocol (Sarwate, Chaudhuri &
Monteleoni 2009, Sec. 6: 10-fold cross-validation × 50 noise
draws; 5 random projections × 50 draws for the kernel experiment). Parameters
that the paper leaves unstated are fixed here, in one place, and
listed in the report: the Huber half-width h, the number D of random features
and the Λ grid of the kernel experiment, the 7 Λ values of Algorithm 3, the
logistic-regression comparator's calibration and the learning-curve sizes.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

__all__ = ["ReproductionConfig", "make_config"]

_DECADES = (1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7)


@dataclass(frozen=True)
class ReproductionConfig:
    """Every setting of one reproduction run.

    Attributes
    ----------
    mode : str
        ``"full"``, ``"quick"`` or ``"tiny"`` (tests only).
    folds : int
        Cross-validation folds evaluated (of ``n_splits``).
    n_splits : int
        Folds of the split: 10 as in the paper, so that every training set
        holds 9/10 of the data even when fewer folds are evaluated.
    draws : int
        Noise draws per private fit (paper: 50).
    seed : int
        Seed of every split, subsample, projection and noise draw.
    huber_h : float
        Huber half-width h (unstated in the paper).
    adult_lambdas, adult_epsilons : tuple of float
        The Λ × ε_p grid of Figure 3(a).
    adult_rows : int or None
        Subsample of Adult rows (None: all 45,222; tests only).
    compact : bool
        Also run the compact public Adult features (an extra column).
    compact_epsilons : tuple of float
        ε_p values of the compact column (those of Figure 2(a)).
    tuning_lambdas : tuple of float
        The m = 7 public candidates of Algorithm 3 (Sarwate et al. 2009, Sec. 6;
        the values are unstated).
    adult_lc_epsilon : float
        ε_p of the Adult learning curve (not in the paper).
    adult_lc_sizes : tuple of int
        Training-set sizes of the Adult learning curve (the largest is capped
        at the size of a training fold).
    kdd_subset : int
        Random KDD subset (paper: 60,000).
    kdd_lambdas, kdd_epsilons : tuple of float
        The grid of Figure 3(b).
    kdd_lc_epsilons : tuple of float
        ε_p of the KDD learning curves (Figure 1(d), (e)).
    kdd_lc_sizes : tuple of int
        Training-set sizes of the KDD learning curves.
    nb_samples : int
        Nested-balls points (paper: 240,000); 9/10 train, 1/10 test.
    nb_projections : int
        Random projections (independent frequency draws; paper: 5).
    nb_components : int
        Number D of random features (unstated in the paper).
    nb_gamma : float
        Gaussian-kernel γ (paper: 0.5).
    nb_lambdas, nb_epsilons : tuple of float
        Λ grid and ε_p values of the kernel experiment.
    nb_lc_epsilon : float
        ε_p of the nested-balls learning curve (Figure 1(f)).
    nb_lc_sizes : tuple of int
        Its training-set sizes.
    nb_svc_rows : int
        Training rows of the exact Gaussian-kernel SVM (scikit-learn ``SVC``).
    lc_draws : int
        Repetitions (noise draws) per learning-curve point; the paper does not
        say how many.
    methods : tuple of str
        Linear methods of the grids (see :data:`dpsvm.reproduce._methods.METHODS`).
    lc_methods : tuple of str
        Private linear methods of the learning curves.
    """

    mode: str = "full"
    folds: int = 10
    n_splits: int = 10
    draws: int = 50
    seed: int = 0
    huber_h: float = 0.5
    adult_lambdas: tuple[float, ...] = _DECADES[1:]
    adult_epsilons: tuple[float, ...] = (0.2, 0.15, 0.1, 0.05)
    adult_rows: int | None = None
    compact: bool = True
    compact_epsilons: tuple[float, ...] = (0.2, 0.1)
    tuning_lambdas: tuple[float, ...] = _DECADES
    adult_lc_epsilon: float = 0.1
    adult_lc_sizes: tuple[int, ...] = (2500, 5000, 10000, 20000, 40700)
    kdd_subset: int = 60000
    kdd_lambdas: tuple[float, ...] = _DECADES
    kdd_epsilons: tuple[float, ...] = (0.1, 0.05, 0.01)
    kdd_lc_epsilons: tuple[float, ...] = (0.05, 0.005)
    kdd_lc_sizes: tuple[int, ...] = (3000, 6000, 12000, 24000, 54000)
    nb_samples: int = 240000
    nb_projections: int = 5
    nb_components: int = 100
    nb_gamma: float = 0.5
    nb_lambdas: tuple[float, ...] = (1e-3, 1e-4, 1e-5, 1e-6)
    nb_epsilons: tuple[float, ...] = (0.05, 0.1, 0.2)
    nb_lc_epsilon: float = 0.1
    nb_lc_sizes: tuple[int, ...] = (6750, 13500, 27000, 54000, 108000, 216000)
    nb_svc_rows: int = 20000
    methods: tuple[str, ...] = (
        "alg1_2009",
        "alg1",
        "sensitivity",
        "lr_2009",
        "lr",
        "diffprivlib_lr",
    )
    lc_methods: tuple[str, ...] = ("alg1_2009", "alg1", "sensitivity", "lr")
    lc_draws: int = 10

    def to_dict(self) -> dict[str, Any]:
        """The settings as a JSON-ready dictionary.

        Returns
        -------
        dict
            Field name to value (tuples as lists).

        Examples
        --------
        >>> make_config("tiny").to_dict()["folds"]
        2
        """
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            out[f.name] = list(value) if isinstance(value, tuple) else value
        return out


def make_config(
    mode: str = "full",
    *,
    folds: int | None = None,
    draws: int | None = None,
    seed: int = 0,
) -> ReproductionConfig:
    """The configuration of a run mode, with optional overrides.

    Parameters
    ----------
    mode : {"full", "quick", "tiny"}, default="full"
        ``"full"``: the paper's protocol (10 folds × 50 draws, 240,000
        nested-balls points, 5 projections). ``"quick"``: 2 of the 10 folds, 2
        draws, 24,000 nested-balls points and 2 projections, fewer
        learning-curve points (minutes). ``"tiny"``: a few hundred rows, for
        tests (seconds).
    folds : int, optional
        Override the number of folds evaluated. Up to 10 they are folds of a
        10-fold split (training sets of 9/10 of the data, as in the paper);
        more than 10 uses a ``folds``-fold split.
    draws : int, optional
        Override the number of noise draws per private fit, and of
        repetitions per learning-curve point.
    seed : int, default=0
        Seed of all randomness of the run.

    Returns
    -------
    ReproductionConfig
        The settings.

    Raises
    ------
    ValueError
        For an unknown mode or a count below 1.

    Examples
    --------
    >>> cfg = make_config("quick", draws=3)
    >>> cfg.folds, cfg.n_splits, cfg.draws
    (2, 10, 3)
    """
    if mode not in ("full", "quick", "tiny"):
        raise ValueError(f"mode must be 'full', 'quick' or 'tiny', got {mode!r}.")
    cfg = ReproductionConfig(seed=seed)
    if mode in ("quick", "tiny"):
        cfg = dataclasses.replace(
            cfg,
            mode="quick",
            folds=2,
            draws=2,
            lc_draws=1,
            adult_lc_sizes=(5000, 10000, 20000, 40700),
            kdd_lc_sizes=(6000, 24000, 54000),
            nb_samples=24000,
            nb_projections=2,
            nb_lc_sizes=(2700, 5400, 10800, 21600),
            nb_svc_rows=5000,
        )
    if mode == "tiny":  # the quick setting, shrunk to seconds (test suite)
        cfg = dataclasses.replace(
            cfg,
            mode="tiny",
            n_splits=2,
            draws=1,
            adult_lambdas=(1e-2, 1e-3),
            adult_epsilons=(0.2, 0.1),
            adult_rows=None,
            compact_epsilons=(0.2,),
            tuning_lambdas=(1e-1, 1e-2),
            adult_lc_sizes=(60, 120),
            kdd_subset=300,
            kdd_lambdas=(1e-1, 1e-2),
            kdd_epsilons=(0.1, 0.05),
            kdd_lc_epsilons=(0.05,),
            kdd_lc_sizes=(60, 120),
            nb_samples=400,
            nb_projections=1,
            nb_components=10,
            nb_lambdas=(1e-2,),
            nb_epsilons=(0.1, 0.2),
            nb_lc_sizes=(90, 180),
            nb_svc_rows=100,
            lc_methods=("alg1", "sensitivity"),
        )
    changes: dict[str, Any] = {}
    if folds is not None:
        if folds < 1:
            raise ValueError(f"folds must be >= 1, got {folds}.")
        changes["folds"] = folds
        changes["n_splits"] = max(cfg.n_splits, folds)
    if draws is not None:
        if draws < 1:
            raise ValueError(f"draws must be >= 1, got {draws}.")
        changes["draws"] = draws
        changes["lc_draws"] = draws
    return dataclasses.replace(cfg, **changes) if changes else cfg
