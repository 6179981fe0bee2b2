# SPDX-License-Identifier: BSD-3-Clause
"""Helpers of the service tests: a stateful test double, keys and request bodies."""

from __future__ import annotations

import secrets
from typing import Any

import numpy as np

from dpsvm.exceptions import BudgetExceededError
from dpsvm.serving import (
    Answers,
    ApiKeys,
    InputSpec,
    Ledger,
    ServedModel,
)

KEY = "test-key-" + "a" * 20
OTHER_KEY = "other-key-" + "b" * 20
LIMITED_KEY = "limited-key-" + "c" * 20


class StatefulDouble:
    """A stateful mechanism double: ε_q per row, state = every answered row sign.

    The state grows with each answer (like PINP's update list), so a lost or
    replayed state change shows up in ``state_dict``.
    """

    def __init__(self, total: float = 1.0, eps_q: float = 0.01) -> None:
        self.total_epsilon = total
        self.total_delta = 1e-6
        self.eps_q = eps_q
        self.history: list[int] = []

    @property
    def spent_epsilon(self) -> float:
        return self.eps_q * len(self.history)

    @property
    def spent_delta(self) -> float:
        return 1e-6 if self.history else 0.0

    @property
    def n_answers(self) -> int:
        return len(self.history)

    @property
    def budget_exhausted(self) -> bool:
        return self.spent_epsilon + self.eps_q > self.total_epsilon * (1 + 1e-12)

    def answer(self, X: Any) -> Answers:
        X = np.asarray(X, dtype=np.float64)
        k = X.shape[0]
        if self.eps_q * (len(self.history) + k) > self.total_epsilon * (1 + 1e-12):
            raise BudgetExceededError("batch larger than the remaining budget")
        labels = np.where(X.sum(axis=1) > 0, 1, -1)
        self.history.extend(int(v) for v in labels)
        return Answers(labels, self.budget_exhausted)

    def state_dict(self) -> dict[str, Any]:
        return {"history": list(self.history)}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.history = [int(v) for v in state["history"]]


def make_served(predictor: Any = None, *, d: int = 3, **kw: Any) -> ServedModel:
    return ServedModel(
        name=kw.pop("name", "dpsvm"),
        predictor=predictor if predictor is not None else StatefulDouble(),
        inputs=kw.pop("inputs", InputSpec([f"x{j}" for j in range(d)])),
        classes=[-1, 1],
        mechanism=kw.pop("mechanism", "test-double"),
        free=kw.pop("free", False),
        fingerprint=kw.pop("fingerprint", "f" * 64),
    )


def make_ledger(path: str, served: ServedModel, **kw: Any) -> Ledger:
    return Ledger(
        path,
        fingerprint=kw.get("fingerprint", served.fingerprint),
        model_name=served.name,
        mechanism=served.mechanism,
        epsilon_total=kw.get("epsilon_total", served.predictor.total_epsilon),
        delta_total=kw.get("delta_total", served.predictor.total_delta),
    )


def make_keys() -> ApiKeys:
    return ApiKeys([(KEY, None), (OTHER_KEY, None), (LIMITED_KEY, 5)])


def auth(key: str = KEY) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def infer_body(rows: list[list[Any]], rid: str | None = None, **kw: Any) -> dict:
    body: dict[str, Any] = {
        "inputs": [
            {
                "name": "input",
                "shape": kw.get("shape", [len(rows), len(rows[0]) if rows else 0]),
                "datatype": kw.get("datatype", "FP64"),
                "data": [v for r in rows for v in r],
            }
        ]
    }
    if rid is not None:
        body["id"] = rid
    return body


def random_id() -> str:
    return secrets.token_hex(8)
