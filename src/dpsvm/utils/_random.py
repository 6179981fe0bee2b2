# SPDX-License-Identifier: BSD-3-Clause
"""Random number generators for privacy noise.

Privacy noise must be unpredictable. With ``random_state=None`` (the default
everywhere in dpsvm) noise comes from a ChaCha20 stream cipher whose 256-bit key
is read directly from the operating system's CSPRNG (``os.urandom(32)``), wrapped
as a :class:`numpy.random.Generator` by ``randomgen``. This is the pattern of
OpenDP's ``get_np_csprng`` and Tumult Core's ``prng``: every numpy sampler then
draws its bits from a cryptographically secure source. The key is passed as
ChaCha's ``key`` (used as is), not as its ``seed``: a seed goes through
:class:`numpy.random.SeedSequence`, whose entropy pool keeps at most 128 bits.

A generator that produced noise is a secret: with its key and counter anyone
can replay the noise and subtract it. No fitted object keeps one. Code that
fits several estimators from one stream gives each a :func:`child_generator`
(an independent ChaCha20 stream keyed from the parent's output) for the length
of its fit and drops it afterwards; code that draws noise after ``fit`` (an
interactive release) takes a fresh stream per call from
:func:`call_generator`.

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

__all__ = [
    "RandomStateLike",
    "call_generator",
    "check_random_state",
    "child_generator",
    "secure_generator",
]

RandomStateLike: TypeAlias = int | np.integer | np.random.Generator | None


_KEY_BYTES = 32  # ChaCha20's 256-bit key


def _chacha(key: bytes) -> np.random.Generator:
    # randomgen's ``key=`` sets the 256-bit ChaCha key as given (its ``seed=``
    # would hash the value through a SeedSequence of at most 128 bits of
    # entropy); the block counter starts at 0.
    words = np.frombuffer(key, dtype="<u8").astype(np.uint64)
    return np.random.Generator(ChaCha(key=words, rounds=20))


def secure_generator() -> np.random.Generator:
    """Return a fresh generator backed by ChaCha20 keyed from ``os.urandom``.

    Returns
    -------
    numpy.random.Generator
        A generator whose bit stream is the ChaCha20 (20 rounds) keystream under a
        256-bit key read directly from the operating system's CSPRNG
        (``os.urandom(32)``, no seed expansion in between).

    Examples
    --------
    >>> g = secure_generator()
    >>> g.laplace(size=3).shape
    (3,)
    """
    return _chacha(os.urandom(_KEY_BYTES))


def child_generator(parent: np.random.Generator) -> np.random.Generator:
    """Return an independent ChaCha20 stream keyed by 256 bits of ``parent``.

    A caller that fits several estimators gives each its own child for the
    length of one fit and then drops it, so that no fitted estimator holds the
    generator of the caller (or of another estimator). The child is a ChaCha20
    generator whatever the parent: keyed from a CSPRNG parent it is a CSPRNG
    (ChaCha20 as a pseudo-random function); keyed from a seeded parent it is
    reproducible from the seed, like the parent.

    Parameters
    ----------
    parent : numpy.random.Generator
        The stream the child's key is drawn from (advanced by 256 bits).

    Returns
    -------
    numpy.random.Generator
        The child generator.

    Examples
    --------
    >>> a = child_generator(np.random.default_rng(0)).integers(100, size=3)
    >>> b = child_generator(np.random.default_rng(0)).integers(100, size=3)
    >>> bool(np.array_equal(a, b))  # a seeded parent gives reproducible children
    True
    """
    if not isinstance(parent, np.random.Generator):
        raise TypeError(
            f"parent must be a numpy.random.Generator, got {type(parent).__name__}."
        )
    key = parent.bit_generator.random_raw(_KEY_BYTES // 8).astype("<u8").tobytes()
    return _chacha(key)


def call_generator(random_state: RandomStateLike, call: int) -> np.random.Generator:
    """The generator of the ``call``-th noisy answer of an interactive release.

    A release that draws noise after ``fit`` (answers to queries) must not keep
    the generator that drew the earlier answers. ``None`` gives a fresh
    :func:`secure_generator` per call (nothing to keep); an int gives the
    reproducible stream ``SeedSequence(seed, spawn_key=(call,))``, distinct for
    every call (**tests and documentation only**); a Generator passed by the
    caller is used as is (the caller keeps it anyway).

    Parameters
    ----------
    random_state : None, int or numpy.random.Generator
        The estimator's ``random_state`` parameter.
    call : int
        Index of the call (≥ 0), counted by the caller.

    Returns
    -------
    numpy.random.Generator
        The generator for this call.

    Examples
    --------
    >>> a = call_generator(0, 1).integers(100, size=3)
    >>> bool(np.array_equal(a, call_generator(0, 1).integers(100, size=3)))
    True
    """
    if random_state is None:
        return secure_generator()
    if isinstance(random_state, np.random.Generator):
        return random_state
    return np.random.default_rng(
        np.random.SeedSequence(_check_seed(random_state), spawn_key=(int(call),))
    )


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
    return np.random.default_rng(_check_seed(random_state))


def _check_seed(random_state: object) -> int:
    """The int seed ``random_state``, or an error naming the accepted types."""
    if isinstance(random_state, (int, np.integer)) and not isinstance(
        random_state, bool
    ):
        if random_state < 0:
            raise ValueError(
                f"random_state must be a non-negative integer, got {random_state}."
            )
        return int(random_state)
    raise TypeError(
        "random_state must be None, a non-negative int or a numpy.random.Generator; "
        f"got {type(random_state).__name__}."
    )
