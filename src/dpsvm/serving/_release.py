# SPDX-License-Identifier: BSD-3-Clause
"""Release once, answer forever: one private model per ledger.

A model trained with differential privacy is released once; every later use of
it (each answer of the service) is post-processing and costs nothing
(Dwork & Roth 2014, Proposition 2.1). Training a second model on the same data
would be a second release, charged again. :func:`release_once` therefore ties
the model to the durable ledger: the first server to commit stores the model
(in the model-file format of :mod:`dpsvm.io`: public parameters, released
numbers and the privacy event; no random state, no solver diagnostics) and its
charge in ONE transaction (:meth:`Ledger.commit_release`); every later start,
and every other replica, loads that model and trains nothing. A replica that
trained concurrently and lost the race to commit discards its model unserved:
nothing of it left the process, so it cost no privacy.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from ._ledger import Ledger, LedgerError

__all__ = ["model_from_json", "model_to_json", "release_once"]


def model_to_json(model: Any) -> str:
    """The released-model file text of a fitted private model (:mod:`dpsvm.io`).

    Parameters
    ----------
    model : estimator
        A fitted estimator registered with the model-file format.

    Returns
    -------
    str
        The JSON text :func:`dpsvm.io.save_model` writes.
    """
    from ..io import model_to_dict

    return json.dumps(model_to_dict(model), allow_nan=False)


def model_from_json(text: str) -> Any:
    """Load a released model from its model-file text, checking every field.

    Parameters
    ----------
    text : str
        Text written by :func:`model_to_json`.

    Returns
    -------
    estimator
        The model, as :func:`dpsvm.io.load_model` returns it.
    """
    from ..io import _build, _parse  # the loader of load_model, on text

    return _build(_parse(text.encode("utf-8")))


def release_once(
    ledger: Ledger, train: Callable[[], Any], initial_state: dict[str, Any]
) -> tuple[Any, bool]:
    """The ledger's released model, trained and committed here if it has none.

    Parameters
    ----------
    ledger : Ledger
        The ledger bound to this model, data, settings and total budget.
    train : callable
        Trains the private model (its ``privacy_event_`` is the charge); called
        only when the ledger holds no released model.
    initial_state : dict
        The serving state stored with the charge.

    Returns
    -------
    model : estimator
        The released model, loaded from the ledger's copy (so that the first
        start and every restart answer identically).
    trained : bool
        Whether this call trained and committed the release.

    Raises
    ------
    LedgerError
        If the ledger belongs to another model or budget, or the model would
        cost more than the ledger's total.

    Notes
    -----
    Privacy: the charge and the model are committed together, before any
    answer; a crash before the commit leaves neither (the model never left the
    process), a crash after it leaves both. The ledger's primary key admits
    one release, so two replicas racing commit one charge and serve one model.
    """
    ledger.open(initial_state)
    text = ledger.released_model()
    if text is not None:
        return model_from_json(text), False
    model = train()
    event = getattr(model, "privacy_event_", None)
    if event is None:
        raise LedgerError("the trained model has no privacy event; nothing released")
    text = model_to_json(model)
    del model  # only the released file's content is served
    if ledger.commit_release(
        text, epsilon=event.epsilon, delta=event.delta, state=initial_state
    ):
        return model_from_json(text), True
    # Lost the race: our model is discarded unserved; serve the winner's.
    stored = ledger.released_model()
    if stored is None:  # pragma: no cover - commit refused but nothing stored
        raise LedgerError("the ledger refused the release but holds no model")
    return model_from_json(stored), False
