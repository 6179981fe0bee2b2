# SPDX-License-Identifier: BSD-3-Clause
"""Exact, bias-free solvers for the regularised ERM problems of the papers.

All solvers minimise, over w ∈ ℝ^d,

    J(w) = (1/n) Σᵢ ℓ(yᵢ wᵀxᵢ) + (λ/2)‖w‖² + aᵀw,

with no intercept (the SVM primal of Rubinstein et al. 2012, eq. (2.1), and the
regularised ERM of Chaudhuri, Monteleoni & Sarwate 2011, eq. (1), are
bias-free). The privacy proofs of both papers assume the *exact* minimiser w*
(correction: an approximate minimiser is only covered once its distance to w* is
certified and charged, see docs/privacy.md, section 4), so each solver also
returns a certified bound ``distance_bound`` ≥ ‖w − w*‖:

* smooth losses: J is λ-strongly convex, so ‖w − w*‖ ≤ ‖∇J(w)‖/λ;
* hinge loss: weak duality gives J(w) − J(w*) ≤ gap(w, α) for any feasible dual
  α, and λ-strong convexity gives ‖w − w*‖ ≤ √(2·gap/λ).

Output-perturbation mechanisms add twice a *public* cap on this bound to their
sensitivity and refuse to release a model whose certificate exceeds the cap.

Weighted problems (``sample_weight`` ω ≥ 0) replace the loss term by
(1/n) Σᵢ ωᵢ ℓ(yᵢ wᵀxᵢ): still divided by n (public), never by Σωᵢ (private);
the certificates above hold unchanged (J stays λ-strongly convex; the hinge
dual box becomes 0 ≤ αᵢ ≤ ωᵢ).

The solvers are split by concept: :mod:`~dpsvm.solvers._design` (the rows as
the solvers see them, :class:`RowScaledDesign`), :mod:`~dpsvm.solvers._smooth`
(:func:`solve_smooth`, :class:`SolverResult`), :mod:`~dpsvm.solvers._newton`
(its Newton, Newton-CG and L-BFGS iterations) and :mod:`~dpsvm.solvers._hinge`
(:func:`solve_hinge`); this module keeps their public names importable from
``dpsvm.solvers._erm``.
"""

from __future__ import annotations

from ._design import RowScaledDesign, as_design
from ._hinge import solve_hinge
from ._smooth import SolverResult, solve_smooth

__all__ = [
    "RowScaledDesign",
    "SolverResult",
    "as_design",
    "solve_hinge",
    "solve_smooth",
]
