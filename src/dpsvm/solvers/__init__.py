# SPDX-License-Identifier: BSD-3-Clause
"""The one solver layer of the data path: every learner's ERM problem is solved here.

* :func:`row_norms`, :func:`clip_factors`, :func:`scaled_design` — bound the
  input: rows projected onto the public ball as a per-row scale (no copy).
* :class:`RowScaledDesign` — the rows as the solvers see them (dense
  float32/float64 in either order, or CSR), with fused products.
* :func:`solve_smooth` — smooth losses (logistic, Huber): Newton, a one-pass
  per iteration L-BFGS for wide rows (d > n), Newton-CG for large d, with the
  certificate ‖w − w*‖ ≤ ‖∇J(w)‖/λ (λ-strong convexity).
* :func:`solve_hinge` — the hinge loss with a duality-gap certificate
  ‖w − w*‖ ≤ √(2·gap/λ).
* the box-constrained dual solvers of the Nie–Wang estimators
  (:func:`solve_box_erm`, :func:`solve_squared_erm`, :func:`box_loss`,
  :func:`kernel_factor`), with a duality-gap certificate;
* :func:`solve_kernel_hinge_dual` — the exact bias-free kernel hinge-SVM dual
  (box constraints, no equality constraint), certified by its duality gap;
* the chunked Dask driver (:func:`prepare_dask_fit` and friends): the same
  solvers, with each pass a blockwise reduction over a ``dask.array``.
"""

from __future__ import annotations

from ._box import BoxSolution, box_loss, kernel_factor, solve_box_erm, solve_squared_erm
from ._dask import chunked_predict, chunked_scores, is_dask_array, prepare_dask_fit
from ._design import (
    RowScaledDesign,
    as_design,
    clip_factors,
    project_sparse_rows,
    row_norms,
    scaled_design,
)
from ._hinge import solve_hinge
from ._kernel_dual import solve_kernel_hinge_dual
from ._smooth import SolverResult, solve_smooth

__all__ = [
    "BoxSolution",
    "RowScaledDesign",
    "SolverResult",
    "as_design",
    "box_loss",
    "chunked_predict",
    "chunked_scores",
    "clip_factors",
    "is_dask_array",
    "kernel_factor",
    "prepare_dask_fit",
    "project_sparse_rows",
    "row_norms",
    "scaled_design",
    "solve_box_erm",
    "solve_hinge",
    "solve_kernel_hinge_dual",
    "solve_smooth",
    "solve_squared_erm",
]
