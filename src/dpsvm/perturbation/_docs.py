# SPDX-License-Identifier: BSD-3-Clause
"""The numpydoc entries that the perturbation steps share, written once.

A docstring line ``%(name)s`` is replaced by the entry (see
:func:`dpsvm.utils._docs.fill_doc`).
"""

from __future__ import annotations

from ..utils._docs import fill_doc

__all__ = ["fill_perturbation_doc"]

PERTURBATION_DOCS = {
    "kind": """\
kind : {"gamma-norm", "laplace", "gaussian"}
    The noise family.""",
    "epsilon": """\
epsilon : float
    ε > 0 of one release.""",
    "l2_sensitivity": """\
l2_sensitivity : float
    Δ₂ > 0.""",
    "noise_returns": """\
Returns
-------
OutputNoise
    The calibrated noise; its ``scale`` is Δ₂/ε (Gamma-norm), Δ₁/ε
    (Laplace) or σ (Gaussian).""",
    "dim_delta": """\
dim : int
    Dimension d of the released vector (used by ``"laplace"``).
delta : float, default=0.0
    δ in (0, 1) (``"gaussian"`` only).""",
    "event_names": """\
mechanism : str
    Name recorded in the event.
reference : str
    Paper and theorem of the calibration.
details : mapping or None, default=None
    Facts to record, as given (include the calibration's ``details()``).""",
    "data_norm": """\
data_norm : float, default=1.0
    Public row-norm bound R when the release is a unit-ball solution that
    the caller divides by R: the event records Δ/R, the sensitivity of the
    released w/R.""",
    "max_iter": """\
max_iter : int or None, default=None
    The solver's iteration cap, quoted in the error message when the
    solver's certificate fails.""",
}

#: Returns and Examples of the family constructors of ``OutputNoise``.
PERTURBATION_DOCS["family_returns"] = (
    PERTURBATION_DOCS["noise_returns"]
    + """

Examples
--------
The three families side by side:

>>> OutputNoise.gamma_norm(1.0, 2.0).scale, OutputNoise.laplace(0.5, 2.0).scale
(2.0, 4.0)
>>> round(OutputNoise.gaussian(1.0, 1e-5, 1.0).scale, 3)
3.731"""
)

#: Decorator that fills the ``%(name)s`` lines of a perturbation docstring.
fill_perturbation_doc = fill_doc(PERTURBATION_DOCS)
