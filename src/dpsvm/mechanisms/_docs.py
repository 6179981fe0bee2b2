# SPDX-License-Identifier: BSD-3-Clause
"""The numpydoc entries that the noise mechanisms share, written once.

A docstring line ``%(name)s`` is replaced by the entry (see
:func:`dpsvm.utils._docs.fill_doc`).
"""

from __future__ import annotations

from ..utils._docs import fill_doc

__all__ = ["fill_mechanism_doc"]

MECHANISM_DOCS = {
    "epsilon": """\
epsilon : float
    The privacy-loss bound ε > 0 (finite).""",
    "base_parameters": """\
epsilon : float
    The privacy-loss bound ε > 0 (finite).
delta : float
    The failure probability δ ∈ [0, 1).
sensitivity : float
    The sensitivity the noise is calibrated to, > 0 (finite), in the norm
    given by ``sensitivity_norm``.
allow_zero_delta : bool, default=True
    Whether δ = 0 is accepted.""",
    "size": """\
size : int or tuple of int
    Number of draws or output shape (entries > 0).""",
    "random_state": """\
random_state : None, int or numpy.random.Generator, default=None
    ``None`` (the default, and the only choice for a real release) draws
    from a fresh CSPRNG; an int gives reproducible noise **for tests and
    documentation only** (anyone who knows it can subtract the noise); a
    Generator is used (and advanced) as is, never stored (a mechanism keeps
    no generator; estimators refuse generator objects as their own
    ``random_state``).""",
    "rng": """\
rng : None, int or numpy.random.Generator, default=None
    Passed through :func:`dpsvm.utils._random.as_generator`: ``None``
    draws from a fresh CSPRNG; an int is for tests and documentation only;
    a Generator is used (and advanced) as is.""",
    "noise_returns": """\
Returns
-------
ndarray of float64
    The noise.""",
    "pure_attributes": """\
epsilon : float
    ε.
delta : float
    Always 0.""",
    "utilities": """\
utilities : array-like of shape (n_candidates,)
    Finite utilities, higher is better.""",
    "utilities_raises": """\
Raises
------
TypeError
    If the utilities are not real numbers.
ValueError
    If the utilities are not 1-D, empty or not finite.""",
}

#: Decorator that fills the ``%(name)s`` lines of a mechanism docstring.
fill_mechanism_doc = fill_doc(MECHANISM_DOCS)
