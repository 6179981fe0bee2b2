# SPDX-License-Identifier: BSD-3-Clause
"""The generators of dpsvm.utils._random: key handling and child streams."""

from __future__ import annotations

import os

import numpy as np
import pytest
from randomgen import ChaCha

import dpsvm.utils._random as random_module
from dpsvm.utils._random import (
    call_generator,
    check_random_state,
    child_generator,
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
    # None: a fresh CSPRNG each call; a Generator: the caller's own object.
    assert isinstance(call_generator(None, 0).bit_generator, ChaCha)
    g = np.random.default_rng(0)
    assert call_generator(g, 4) is g
    with pytest.raises(ValueError, match="non-negative"):
        call_generator(-1, 0)


def test_os_urandom_is_the_only_entropy_source(monkeypatch):
    # With os.urandom fixed, two secure generators give the same stream: no
    # other entropy (e.g. a SeedSequence pool) enters the key.
    monkeypatch.setattr(os, "urandom", lambda n: KEY[:n])
    a, b = secure_generator(), secure_generator()
    np.testing.assert_array_equal(a.random(5), b.random(5))
