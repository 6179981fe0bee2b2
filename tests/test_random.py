# SPDX-License-Identifier: BSD-3-Clause
"""The generators of dpsvm.utils._random: key handling and child streams."""

from __future__ import annotations

import os
import pickle
import random

import numpy as np
import pytest
from randomgen import ChaCha

import dpsvm.utils._random as random_module
from dpsvm.utils._random import (
    LentGenerator,
    as_generator,
    call_generator,
    check_random_state,
    child_generator,
    lend_generator,
    random_state_constraint,
    refuse_generator_object,
    secure_generator,
)

KEY = bytes(range(1, 33))


def _keysetup(gen: np.random.Generator) -> bytes:
    return gen.bit_generator.state["state"]["keysetup"].astype("<u4").tobytes()


def test_the_os_bytes_are_the_chacha_key(monkeypatch):
    # Regression (issue 10, item 5): the 32 OS bytes were passed as ChaCha's
    # *seed*, which goes through a SeedSequence (entropy pool of at most 128
    # bits); they must be the 256-bit key itself.
    calls = []

    def fixed(n):
        calls.append(n)
        return KEY[:n]

    monkeypatch.setattr(random_module.os, "urandom", fixed)
    gen = secure_generator()
    assert 32 in calls
    assert _keysetup(gen) == KEY
    assert gen.bit_generator.state["state"]["ctr"].tolist() == [0, 0]
    # The keystream is ChaCha20 under that key: the same as randomgen's own
    # construction from the key words.
    ref = np.random.Generator(
        ChaCha(key=np.frombuffer(KEY, dtype="<u8").astype(np.uint64), rounds=20)
    )
    assert gen.bit_generator.state["state"]["rounds"] == 20
    np.testing.assert_array_equal(
        gen.integers(2**62, size=8), ref.integers(2**62, size=8)
    )


def test_secure_generators_are_keyed_independently():
    assert _keysetup(secure_generator()) != _keysetup(secure_generator())
    assert isinstance(check_random_state(None).bit_generator, ChaCha)


def test_child_streams_are_chacha_reproducible_and_distinct():
    parent = np.random.default_rng(5)
    a, b = child_generator(parent), child_generator(parent)
    assert isinstance(a.bit_generator, ChaCha)
    assert _keysetup(a) != _keysetup(b)
    again = np.random.default_rng(5)
    assert _keysetup(child_generator(again)) == _keysetup(a)
    # A CSPRNG parent gives children keyed from its keystream, not the parent.
    secure = secure_generator()
    child = child_generator(secure)
    assert _keysetup(child) != _keysetup(secure)
    with pytest.raises(TypeError, match="Generator"):
        child_generator(0)  # type: ignore[arg-type]


def test_call_generators():
    # int: reproducible per call index, distinct across calls.
    x0 = call_generator(3, 0).integers(2**62, size=4)
    np.testing.assert_array_equal(x0, call_generator(3, 0).integers(2**62, size=4))
    assert not np.array_equal(x0, call_generator(3, 1).integers(2**62, size=4))
    # None: a fresh CSPRNG each call; a stream lent for one fit: used as is; a
    # generator object: refused (issue 20, item 1).
    assert isinstance(call_generator(None, 0).bit_generator, ChaCha)
    g = np.random.default_rng(0)
    assert call_generator(LentGenerator(g), 4) is g
    with pytest.raises(TypeError, match="replay the noise"):
        call_generator(g, 4)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="non-negative"):
        call_generator(-1, 0)


GENERATOR_OBJECTS = {
    "Generator": lambda: np.random.default_rng(0),
    "RandomState": lambda: np.random.RandomState(0),
    "BitGenerator": lambda: np.random.PCG64(0),
    "ChaCha": lambda: ChaCha(key=np.arange(4, dtype=np.uint64)),
    "SeedSequence": lambda: np.random.SeedSequence(0),
    "random.Random": lambda: random.Random(0),
}


@pytest.mark.parametrize("kind", sorted(GENERATOR_OBJECTS))
def test_public_seeds_refuse_every_generator_object(kind):
    # Issue 20, item 1: one error, naming the two accepted forms and why.
    obj = GENERATOR_OBJECTS[kind]()
    for call in (
        lambda: check_random_state(obj),
        lambda: check_random_state(obj, secure=False),
        lambda: call_generator(obj, 0),
        lambda: refuse_generator_object(obj),
    ):
        with pytest.raises(TypeError) as info:
            call()
        msg = str(info.value)
        assert msg.startswith(
            "random_state must be None (secure noise) or an int seed (tests only)"
        )
        assert "replay the noise" in msg
    # The scikit-learn constraint refuses with the same message, naming the
    # parameter.
    (constraint,) = random_state_constraint("split_random_state")
    with pytest.raises(TypeError, match=r"^split_random_state must be None"):
        constraint.is_satisfied_by(obj)


def test_public_seeds_accept_none_and_ints_only():
    (constraint,) = random_state_constraint()
    for ok in (None, 0, 7, np.int64(3), 2**70):
        assert constraint.is_satisfied_by(ok)
    for bad in (-1, 1.5, "0", True):
        assert not constraint.is_satisfied_by(bad)
    np.testing.assert_array_equal(
        check_random_state(5).random(3), np.random.default_rng(5).random(3)
    )
    with pytest.raises(TypeError, match="int seed"):
        check_random_state("seed")  # type: ignore[arg-type]


def test_internal_streams_still_take_generators():
    # Mechanisms and solvers hand a stream from step to step (never stored).
    g = np.random.default_rng(0)
    assert as_generator(g) is g
    assert isinstance(as_generator(None).bit_generator, ChaCha)
    with pytest.raises(TypeError, match="random_state must be"):
        as_generator(np.random.RandomState(0))  # type: ignore[arg-type]


def test_a_loan_lasts_one_block_and_is_never_duplicated_or_pickled():
    from sklearn.base import clone

    from dpsvm.models import DPLinearSVC

    est = DPLinearSVC(classes=[-1, 1], random_state=4)
    gen = np.random.default_rng(0)
    with lend_generator(est, gen):
        loan = est.random_state
        assert isinstance(loan, LentGenerator)
        assert check_random_state(loan) is gen
        # clone shares the loan (copying would duplicate the noise stream).
        assert clone(est).random_state is loan
        with pytest.raises(TypeError, match="cannot be pickled"):
            pickle.dumps(est)
    assert est.random_state == 4
    with pytest.raises(RuntimeError, match="has ended"):
        check_random_state(loan)
    # Restored on an error too.
    with pytest.raises(ZeroDivisionError), lend_generator(est, gen):
        _ = 1 / 0
    assert est.random_state == 4


def test_os_urandom_is_the_only_entropy_source(monkeypatch):
    # With os.urandom fixed, two secure generators give the same stream: no
    # other entropy (e.g. a SeedSequence pool) enters the key.
    monkeypatch.setattr(os, "urandom", lambda n: KEY[:n])
    a, b = secure_generator(), secure_generator()
    np.testing.assert_array_equal(a.random(5), b.random(5))
