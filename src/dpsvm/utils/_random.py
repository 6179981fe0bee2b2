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

**One rule for every public ``random_state``** (issue 20, item 1): the
``random_state`` (``feature_random_state``, ``split_random_state``) parameter of
every public class is ``None`` or a non-negative int. A generator *object*
(:class:`numpy.random.Generator`, :class:`~numpy.random.RandomState`,
:class:`~numpy.random.BitGenerator`, :class:`~numpy.random.SeedSequence`,
:class:`random.Random`) is refused at ``fit`` with one error
(:func:`refuse_generator_object`): scikit-learn keeps parameters unchanged on
the fitted object, so an accepted generator would be kept, and its state
(PCG64 can be stepped backwards) replays the noise. Refusing is the only option
that keeps scikit-learn's rule that ``fit`` does not change parameters.
Internal paths that hand a stream from one step to the next (a mechanism's
``sample``/``randomise``/``select``, the solvers, the selectors' child streams)
take a Generator through :func:`as_generator`; a selector lends a child stream
to the estimator it fits with :func:`lend_generator` only for the length of
that fit (the estimator's own value is restored and the loan voided after).
"""

from __future__ import annotations

import contextlib
import os
import random
from collections.abc import Iterator
from typing import Any, TypeAlias

import numpy as np
from randomgen import ChaCha

from .._compat import PredicateConstraint

__all__ = [
    "GENERATOR_OBJECT_TYPES",
    "GeneratorLike",
    "LentGenerator",
    "RandomStateLike",
    "as_generator",
    "call_generator",
    "check_random_state",
    "child_generator",
    "lend_generator",
    "random_state_constraint",
    "refuse_generator_object",
    "secure_generator",
]

#: What a public ``random_state`` parameter accepts: None (CSPRNG) or an int
#: seed (tests and documentation only). Generator objects are refused.
RandomStateLike: TypeAlias = int | np.integer | None

#: What an internal ``rng`` argument accepts (a stream handed from one step to
#: the next, never stored): a public ``random_state`` or a Generator.
GeneratorLike: TypeAlias = int | np.integer | np.random.Generator | None

#: The objects that carry a generator's state (refused as ``random_state``).
GENERATOR_OBJECT_TYPES: tuple[type, ...] = (
    np.random.Generator,
    np.random.RandomState,
    np.random.BitGenerator,
    np.random.SeedSequence,
    random.Random,
)


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


def _describe(obj: object) -> str:
    """Plain name of a generator object's type, for the refusal message."""
    if isinstance(obj, np.random.Generator):
        return "numpy.random.Generator"
    if isinstance(obj, np.random.RandomState):
        return "numpy.random.RandomState"
    if isinstance(obj, np.random.BitGenerator):
        return f"numpy.random.BitGenerator ({type(obj).__name__})"
    if isinstance(obj, np.random.SeedSequence):
        return "numpy.random.SeedSequence"
    return "random.Random"


def refuse_generator_object(value: object, name: str = "random_state") -> None:
    """Raise the one error for a generator object passed as a public seed.

    Parameters
    ----------
    value : object
        The value of a public ``random_state``-like parameter.
    name : str, default="random_state"
        The parameter's name (for the message).

    Raises
    ------
    TypeError
        If ``value`` is a :class:`numpy.random.Generator`,
        :class:`~numpy.random.RandomState`, :class:`~numpy.random.BitGenerator`,
        :class:`~numpy.random.SeedSequence` or :class:`random.Random`: kept on
        the estimator (scikit-learn keeps parameters as given), its state would
        let anyone holding the object replay the noise.

    Examples
    --------
    >>> refuse_generator_object(0)
    >>> try:
    ...     refuse_generator_object(np.random.default_rng(0))
    ... except TypeError as exc:
    ...     print(str(exc).split("; ")[1].split(":")[0])
    got a numpy.random.Generator
    """
    if isinstance(value, GENERATOR_OBJECT_TYPES):
        raise TypeError(
            f"{name} must be None (secure noise) or an int seed (tests only); got "
            f"a {_describe(value)}: a generator object kept on the estimator would "
            "let anyone holding it replay the noise. Pass None for a real release, "
            "or an int for a reproducible test."
        )


class LentGenerator:
    """A generator lent to one estimator for the length of one fit (internal).

    Set as the estimator's ``random_state`` by :func:`lend_generator` only:
    :func:`check_random_state` and :func:`call_generator` draw from the lent
    generator, and at the end of the loan the estimator's own value is restored
    and the loan is voided (the generator is dropped, so a reference that
    outlived the fit holds nothing). A copy is the same loan (scikit-learn's
    ``clone`` must not duplicate the stream), and a loan cannot be pickled.

    Parameters
    ----------
    generator : numpy.random.Generator
        The stream lent (usually a :func:`child_generator`).

    Examples
    --------
    >>> loan = LentGenerator(np.random.default_rng(0))
    >>> check_random_state(loan) is loan.generator
    True
    """

    __slots__ = ("_generator",)

    def __init__(self, generator: np.random.Generator) -> None:
        if not isinstance(generator, np.random.Generator):
            raise TypeError(
                "A LentGenerator lends a numpy.random.Generator, got "
                f"{type(generator).__name__}."
            )
        self._generator: np.random.Generator | None = generator

    @property
    def generator(self) -> np.random.Generator:
        """The lent generator (an error once the loan has ended)."""
        if self._generator is None:
            raise RuntimeError(
                "This random_state was a generator lent for one fit, and that fit "
                "has ended; set random_state to None or an int."
            )
        return self._generator

    def release(self) -> None:
        """End the loan: drop the generator."""
        self._generator = None

    def __copy__(self) -> LentGenerator:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> LentGenerator:
        return self

    def __reduce__(self) -> Any:
        raise TypeError(
            "A generator lent for one fit cannot be pickled (it would keep the "
            "noise stream)."
        )

    def __repr__(self) -> str:
        return "LentGenerator(<child stream>)"


@contextlib.contextmanager
def lend_generator(
    estimator: Any, generator: np.random.Generator, param: str = "random_state"
) -> Iterator[Any]:
    """Lend ``generator`` to ``estimator`` as its ``param`` inside the block.

    The selectors fit each candidate on a child stream of their own generator
    (:func:`child_generator`) this way: the estimator's own value is restored
    when the block ends (also on an error) and the loan is voided, so no fitted
    object keeps the generator and ``get_params()`` shows what was configured.

    Parameters
    ----------
    estimator : estimator object
        Has a ``param`` parameter (``get_params``/``set_params``).
    generator : numpy.random.Generator
        The stream lent.
    param : str, default="random_state"
        The parameter set for the length of the block.

    Yields
    ------
    estimator
        The estimator, with the loan in place.

    Examples
    --------
    >>> from dpsvm.models import DPLinearSVC
    >>> est = DPLinearSVC(classes=[-1, 1], random_state=3)
    >>> with lend_generator(est, child_generator(np.random.default_rng(0))):
    ...     type(est.random_state).__name__
    'LentGenerator'
    >>> est.random_state
    3
    """
    own = estimator.get_params(deep=False)[param]
    loan = LentGenerator(generator)
    estimator.set_params(**{param: loan})
    try:
        yield estimator
    finally:
        estimator.set_params(**{param: own})
        loan.release()


def call_generator(random_state: RandomStateLike, call: int) -> np.random.Generator:
    """The generator of the ``call``-th noisy answer of an interactive release.

    A release that draws noise after ``fit`` (answers to queries) must not keep
    the generator that drew the earlier answers. ``None`` gives a fresh
    :func:`secure_generator` per call (nothing to keep); an int gives the
    reproducible stream ``SeedSequence(seed, spawn_key=(call,))``, distinct for
    every call (**tests and documentation only**); a stream lent for one fit
    (:func:`lend_generator`) is used as is. Generator objects are refused
    (:func:`refuse_generator_object`).

    Parameters
    ----------
    random_state : None or int
        The estimator's ``random_state`` parameter.
    call : int
        Index of the call (≥ 0), counted by the caller (and carried by any
        saved state of the caller, so that a resumed release never reuses an
        index).

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
    if isinstance(random_state, LentGenerator):
        return random_state.generator
    refuse_generator_object(random_state)
    return np.random.default_rng(
        np.random.SeedSequence(_check_seed(random_state), spawn_key=(int(call),))
    )


def check_random_state(
    random_state: RandomStateLike,
    *,
    secure: bool = True,
    name: str = "random_state",
) -> np.random.Generator:
    """Turn a public ``random_state`` parameter into a generator.

    The one resolution path of every public class's ``random_state`` (and
    ``feature_random_state``, ``split_random_state``).

    Parameters
    ----------
    random_state : None or int
        ``None`` gives a fresh secure generator (see :func:`secure_generator`) when
        ``secure`` is true, else a PCG64 generator seeded from OS entropy. An int
        gives a reproducible PCG64 generator (**not for real releases**). A
        generator object is refused (:func:`refuse_generator_object`); a stream
        lent for one fit by :func:`lend_generator` is used as is.
    secure : bool, default=True
        Whether ``None`` must give a CSPRNG-backed generator (privacy noise).
    name : str, default="random_state"
        The parameter's name (for error messages).

    Returns
    -------
    numpy.random.Generator
        The generator to draw from.

    Raises
    ------
    TypeError
        For a generator object (the one refusal message) or any other type.
    ValueError
        For a negative int.

    Examples
    --------
    >>> bool(check_random_state(0).integers(10) == check_random_state(0).integers(10))
    True
    """
    if random_state is None:
        return secure_generator() if secure else np.random.default_rng()
    if isinstance(random_state, LentGenerator):
        return random_state.generator
    refuse_generator_object(random_state, name)
    return np.random.default_rng(_check_seed(random_state, name))


def as_generator(rng: GeneratorLike, *, secure: bool = True) -> np.random.Generator:
    """Turn an internal ``rng`` argument into a generator (Generators as is).

    For functions and methods that draw from a stream handed to them and keep
    nothing (a mechanism's ``sample``/``randomise``/``select``, the solvers):
    a :class:`numpy.random.Generator` is used (and advanced) as is; anything
    else goes through :func:`check_random_state`. Never use this for a
    parameter kept on an object.

    Parameters
    ----------
    rng : None, int or numpy.random.Generator
        The stream, or a public ``random_state``.
    secure : bool, default=True
        As in :func:`check_random_state`.

    Returns
    -------
    numpy.random.Generator
        The generator to draw from.

    Raises
    ------
    TypeError
        For other types (``numpy.random.RandomState`` included: dpsvm keeps one
        generator interface).

    Examples
    --------
    >>> g = np.random.default_rng(0)
    >>> as_generator(g) is g
    True
    """
    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, GENERATOR_OBJECT_TYPES):
        raise TypeError(
            "random_state must be None, a non-negative int or a "
            f"numpy.random.Generator; got {type(rng).__name__}."
        )
    return check_random_state(rng, secure=secure)


def _accepts_seed(value: object, name: str) -> bool:
    """scikit-learn constraint check of a public seed (refuses generators)."""
    if value is None or isinstance(value, LentGenerator):
        return True
    refuse_generator_object(value, name)
    return bool(
        isinstance(value, (int, np.integer))
        and not isinstance(value, bool)
        and value >= 0
    )


def random_state_constraint(name: str = "random_state") -> list[Any]:
    """The ``_parameter_constraints`` entry of a public ``random_state``.

    Accepts ``None`` and non-negative ints; a generator object raises the
    refusal of :func:`refuse_generator_object` when ``fit`` validates its
    parameters, before any data are read or budget is spent.

    Parameters
    ----------
    name : str, default="random_state"
        The parameter's name (for the message).

    Returns
    -------
    list
        A one-element constraint list.

    Examples
    --------
    >>> c = random_state_constraint()[0]
    >>> c.is_satisfied_by(0), c.is_satisfied_by(-1), str(c)
    (True, False, 'None or a non-negative int')
    """

    def accepts(value: object) -> bool:
        return _accepts_seed(value, name)

    return [PredicateConstraint(accepts, "None or a non-negative int")]


def _check_seed(random_state: object, name: str = "random_state") -> int:
    """The int seed ``random_state``, or an error naming the accepted types."""
    if isinstance(random_state, (int, np.integer)) and not isinstance(
        random_state, bool
    ):
        if random_state < 0:
            raise ValueError(
                f"{name} must be a non-negative integer, got {random_state}."
            )
        return int(random_state)
    raise TypeError(
        f"{name} must be None (secure noise) or a non-negative int seed (tests "
        f"only); got {type(random_state).__name__}."
    )
