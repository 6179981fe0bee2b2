# SPDX-License-Identifier: BSD-3-Clause
"""Random number generators for privacy noise.

Privacy noise must be unpredictable. With ``random_state=None`` (the default
everywhere in dpsvm) noise comes from a ChaCha20 stream cipher keyed with 256 bits
from the operating system's CSPRNG (``os.urandom``), wrapped as a
:class:`numpy.random.Generator` by ``randomgen``. This is the pattern of OpenDP's
``get_np_csprng`` and Tumult Core's ``prng``: every numpy sampler then draws its
bits from a cryptographically secure source.

An integer seed gives a reproducible :class:`numpy.random.Generator` (PCG64) and is
for tests and documentation only: anyone who knows the seed can recompute and
subtract the noise. Every estimator documents this next to its ``random_state``.

Randomness that does not protect privacy (random features, data splits) may use
ordinary seeded generators; see :func:`check_random_state` with ``secure=False``.
"""

from __future__ import annotations

import os
from typing import TypeAlias

import numpy as np
from randomgen import ChaCha

__all__ = ["RandomStateLike", "check_random_state", "secure_generator"]

RandomStateLike: TypeAlias = int | np.integer | np.random.Generator | None


def secure_generator() -> np.random.Generator:
    """Return a fresh generator backed by ChaCha20 keyed from ``os.urandom``.

    Returns
    -------
    numpy.random.Generator
        A generator whose bit stream is the ChaCha20 (20 rounds) keystream under a
        256-bit key drawn from the operating system's CSPRNG.

    Examples
    --------
    >>> g = secure_generator()
    >>> g.laplace(size=3).shape
    (3,)
    """
    key = int.from_bytes(os.urandom(32), "little")
    return np.random.Generator(ChaCha(seed=key, rounds=20))


def check_random_state(
    random_state: RandomStateLike, *, secure: bool = True
) -> np.random.Generator:
    """Turn ``random_state`` into a :class:`numpy.random.Generator`.

    Parameters
    ----------
    random_state : None, int or numpy.random.Generator
        ``None`` gives a fresh secure generator (see :func:`secure_generator`) when
        ``secure`` is true, else a PCG64 generator seeded from OS entropy. An int
        gives a reproducible PCG64 generator (**not for real releases**). A
        Generator is used as is.
    secure : bool, default=True
        Whether ``None`` must give a CSPRNG-backed generator (privacy noise).

    Returns
    -------
    numpy.random.Generator
        The generator to draw from.

    Raises
    ------
    TypeError
        For any other type (``numpy.random.RandomState`` included: dpsvm keeps one
        generator interface).

    Examples
    --------
    >>> bool(check_random_state(0).integers(10) == check_random_state(0).integers(10))
    True
    """
    if random_state is None:
        return secure_generator() if secure else np.random.default_rng()
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, (int, np.integer)) and not isinstance(
        random_state, bool
    ):
        if random_state < 0:
            raise ValueError(
                f"random_state must be a non-negative integer, got {random_state}."
            )
        return np.random.default_rng(int(random_state))
    raise TypeError(
        "random_state must be None, a non-negative int or a numpy.random.Generator; "
        f"got {type(random_state).__name__}."
    )
