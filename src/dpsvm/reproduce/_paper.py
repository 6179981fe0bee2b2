# SPDX-License-Identifier: BSD-3-Clause
"""The numbers printed in Sarwate, Chaudhuri & Monteleoni (2009).

Every value is an error rate copied from arXiv:0912.0071v1 (Figures 2 and 3)
as printed; nothing here is computed. The text claims
of Section 6 are kept too, for the cross-checks of the report.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "FIG2A",
    "FIG2A_COLUMNS",
    "FIG2B",
    "FIG3A",
    "FIG3B",
    "PAPER",
    "TEXT_CLAIMS",
    "paper_numbers",
]

PAPER = {
    "title": "Differentially private support vector machines",
    "authors": "A. D. Sarwate, K. Chaudhuri, C. Monteleoni",
    "arxiv": "0912.0071v1",
    "year": 2009,
}

#: Columns of Figure 2(a): (data set, ε_p).
FIG2A_COLUMNS: tuple[tuple[str, float], ...] = (
    ("adult", 0.2),
    ("adult", 0.1),
    ("kdd", 0.1),
    ("kdd", 0.05),
)

#: Figure 2(a), linear methods, one value per column of FIG2A_COLUMNS. The Adult
#: columns are the best-over-Λ values of Figure 3(a) (Λ chosen non-privately).
FIG2A: dict[str, tuple[float, float, float, float]] = {
    "huber_svm": (0.1536, 0.1536, 0.0063, 0.0063),
    "sensitivity": (0.2469, 0.2456, 0.0207, 0.0784),
    "lr": (0.1819, 0.1988, 0.0148, 0.0216),
    "alg1": (0.1762, 0.1853, 0.0179, 0.0181),
}

#: Figure 2(b), Gaussian kernel on nested balls, ε_p = 0.1. The kernel SVM
#: value is printed as an upper bound ("< 0.0506").
FIG2B: dict[str, float] = {
    "kernel_svm": 0.0506,
    "rr_svm": 0.0508,
    "alg2": 0.1141,
}

#: Figure 3(a), Adult: Huber SVM and Algorithm 1 over Λ × ε_p.
FIG3A: dict[str, Any] = {
    "lambdas": (1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7),
    "epsilons": (0.2, 0.15, 0.1, 0.05),
    "huber_svm": (0.24784, 0.17279, 0.16496, 0.15512, 0.15362, 0.15364),
    # alg1[i][j]: Λ = lambdas[i], ε_p = epsilons[j]
    "alg1": (
        (0.2478, 0.2478, 0.2477, 0.2439),
        (0.1762, 0.1793, 0.1853, 0.2181),
        (0.1845, 0.1921, 0.2149, 0.2539),
        (0.2053, 0.2262, 0.2376, 0.2604),
        (0.2646, 0.2717, 0.3063, 0.3628),
        (0.2909, 0.3002, 0.3301, 0.3595),
    ),
}

#: Figure 3(b), KDDCup99 (60,000-point subset): SVM, Algorithm 1 and the
#: sensitivity method over Λ × ε_p.
FIG3B: dict[str, Any] = {
    "lambdas": (1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7),
    "epsilons": (0.1, 0.05, 0.01),
    "huber_svm": (0.0682, 0.0225, 0.0132, 0.0088, 0.0074, 0.0067, 0.0068),
    "alg1": (
        (0.0688, 0.0730, 0.0912),
        (0.0202, 0.0182, 0.0346),
        (0.0156, 0.0207, 0.0494),
        (0.0295, 0.0308, 0.0677),
        (0.0358, 0.0468, 0.1522),
        (0.0853, 0.0908, 0.3464),
        (0.2446, 0.2516, 0.4332),
    ),
    "sensitivity": (
        (0.0753, 0.0846, 0.1110),
        (0.0226, 0.1045, 0.3994),
        (0.3741, 0.4466, 0.5003),
        (0.5048, 0.4974, 0.4954),
        (0.4961, 0.4992, 0.5061),
        (0.4962, 0.5089, 0.5020),
        (0.4982, 0.5037, 0.5244),
    ),
}

#: Claims made in the text of Section 6, for cross-checking.
TEXT_CLAIMS: dict[str, Any] = {
    "adult_best_huber": {"error": 0.15362, "lambda": 1e-6},
    "adult_best_alg1_eps0.2": {"error": 0.1762, "lambda": 1e-3},
    "adult_gap_eps0.2": 0.023,
    "adult_chance": 0.2478,
    "nested_balls_bayes_error": 0.05,
    "kdd_tuned_lambda_eps0.1": {"alg1": 1e-3, "sensitivity": 1e-2},
}


def paper_numbers() -> dict[str, Any]:
    """All numbers of Sarwate et al. (2009)'s tables, as one JSON-ready dictionary.

    Returns
    -------
    dict
        ``"fig2a"`` (rows by method, with the column list), ``"fig2b"``,
        ``"fig3a"``, ``"fig3b"`` and ``"text_claims"``; tuples become lists.

    Examples
    --------
    >>> numbers = paper_numbers()
    >>> numbers["fig2a"]["rows"]["alg1"][0], numbers["fig3a"]["huber_svm"][4]
    (0.1762, 0.15362)
    """

    def plain(value: Any) -> Any:
        if isinstance(value, dict):
            return {str(k): plain(v) for k, v in value.items()}
        if isinstance(value, tuple | list):
            return [plain(v) for v in value]
        return value

    return {
        "paper": dict(PAPER),
        "fig2a": {
            "columns": [{"dataset": d, "epsilon": e} for d, e in FIG2A_COLUMNS],
            "rows": plain(FIG2A),
        },
        "fig2b": {"epsilon": 0.1, "rows": dict(FIG2B), "upper_bound": ["kernel_svm"]},
        "fig3a": plain(FIG3A),
        "fig3b": plain(FIG3B),
        "text_claims": plain(TEXT_CLAIMS),
    }
