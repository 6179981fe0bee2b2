# SPDX-License-Identifier: BSD-3-Clause
"""``dpsvm demo``: a private linear SVM on the embedded breast-cancer data."""

from __future__ import annotations

import argparse
import math
from collections.abc import Sequence
from typing import Any, TextIO

import numpy as np

from ..utils._cli import add_integer_argument, add_seed_argument
from ._args import _epsilon

__all__ = ["DEMO_EPSILONS", "add_demo_subparser", "run_demo", "run_demo_command"]

#: The ε values the demo trains at by default: the trade-off between privacy
#: and accuracy on 426 rows is the point of the demo. The estimator keeps its
#: documented defaults (regularization="auto", fit_intercept=True, Huber
#: h = 0.5, objective perturbation): Λ = "auto" ≈ 20/(nε) is large on so few
#: rows at ε ≤ 1 (≈ 0.05 at ε = 1), where the model is no better than always
#: answering the majority class, which the demo says.
DEMO_EPSILONS = (1.0, 2.0, 5.0, 10.0)


def _fmt_eps(value: float) -> str:
    return f"{value:g}" if math.isfinite(value) else "inf"


def run_demo(
    *,
    epsilons: Sequence[float] = DEMO_EPSILONS,
    random_state: int | None = None,
    n_draws: int = 10,
    out: TextIO,
) -> None:
    """Train the private linear SVM with its defaults at each ε; print a table.

    Parameters
    ----------
    epsilons : sequence of float, default=DEMO_EPSILONS
        The ε of the private models (one row each).
    random_state : int or None, default=None
        ``None``: every draw uses fresh CSPRNG noise. An int s: draw i is
        seeded with s + i (reproducible output; tests and docs only).
    n_draws : int, default=10
        Number of private models (independent noise draws) per ε.
    out : text stream
        Where the table goes.
    """
    from sklearn.svm import LinearSVC

    from ..accounting import BudgetAccountant
    from ..datasets import load_breast_cancer
    from ..models import DPLinearSVC, NonPrivateLinearClassifier

    data = load_breast_cancer()
    X_tr, y_tr, X_te, y_te = data.X_train, data.y_train, data.X_test, data.y_test
    n, d = X_tr.shape
    # One accountant with an unlimited budget, only to add up what the draws spend.
    accountant = BudgetAccountant()
    draws = 0  # draw i of the whole table is seeded with random_state + i
    majority_label = 1 if np.mean(y_tr == 1) >= 0.5 else -1
    base_acc = float(np.mean(y_te == majority_label))
    table = []
    notes = []
    event = None
    for epsilon in epsilons:
        accs = []
        for _ in range(n_draws):
            seed = None if random_state is None else random_state + draws
            draws += 1
            # DPLinearSVC's defaults: objective perturbation, Huber h = 0.5,
            # regularization="auto", fit_intercept=True.
            clf = DPLinearSVC(
                epsilon=epsilon,
                data_norm=1.0,  # the loader maps every row into the unit ball
                classes=[-1, 1],  # the public label set
                accountant=accountant,
                # None: fresh ChaCha20 CSPRNG noise per fit; a seed: an int,
                # never a generator object kept on the model.
                random_state=seed,
            ).fit(X_tr, y_tr)
            accs.append(clf.score(X_te, y_te))
            event = clf.privacy_event_
        lam = float(clf.regularization_)
        # The same problem (loss, Λ, intercept) without noise.
        ref = NonPrivateLinearClassifier(
            loss="huber",
            huber_h=clf.huber_h,
            regularization=lam,
            data_norm=1.0,
            fit_intercept=True,
            classes=[-1, 1],
        ).fit(X_tr, y_tr)
        mean = float(np.mean(accs))
        sd = float(np.std(accs, ddof=1)) if len(accs) > 1 else 0.0
        table.append(
            (
                _fmt_eps(epsilon),
                f"{lam:.3g}",
                f"{mean:.3f} ± {sd:.3f}",
                f"{ref.score(X_te, y_te):.3f}",
            )
        )
        if mean <= base_acc + 1e-9:
            notes.append(
                f"at ε = {_fmt_eps(epsilon)} the private model ({mean:.3f}) is not "
                f"above the majority class ({base_acc:.3f}): it has learnt nothing "
                "that accuracy can show"
            )
    assert event is not None
    svc = LinearSVC(C=1.0, fit_intercept=True, max_iter=100_000).fit(X_tr, y_tr)

    total_eps, total_delta = accountant.total()
    seed_note = (
        "fresh CSPRNG noise (ChaCha20 keyed from os.urandom) per draw"
        if random_state is None
        else f"seeded noise (--random-state {random_state}; for tests only)"
    )
    heads = ("ε", "Λ (auto)", f"DPLinearSVC() ({n_draws} draws)", "same Λ, no noise")
    widths = [max(len(r[i]) for r in (heads, *table)) for i in range(len(heads))]
    lines = [
        "dpsvm demo: breast cancer (Wisconsin diagnostic, bundled with scikit-learn)",
        f"  {n} training / {len(y_te)} test rows, {d} features; rows scaled into "
        "the unit ball (public bounds)",
        "  DPLinearSVC with its defaults: objective perturbation, Huber loss "
        f"(h = {clf.huber_h:g}), intercept on,",
        '  regularization="auto" (Λ ≈ 20/(nε), from the public n and ε only), '
        "public label set {-1, +1}",
        "",
        "  test accuracy:",
        "  " + "  ".join(f"{h:>{w}}" for h, w in zip(heads, widths, strict=True)),
        *(
            "  " + "  ".join(f"{v:>{w}}" for v, w in zip(r, widths, strict=True))
            for r in table
        ),
        f"  scikit-learn LinearSVC (C = 1, intercept, non-private): "
        f"{svc.score(X_te, y_te):.3f}",
        f"  majority class of the training labels (always answering it): "
        f"{base_acc:.3f}",
    ]
    lines += [
        '  Λ = "auto" grows like 1/(nε): on so few rows a small ε needs so much',
        '  regularisation that even the noiseless model ("same Λ, no noise") nears',
        "  the majority answer; more rows or a larger ε help.",
        *(f"  warning: {w}" for w in notes),
    ]
    lines += [
        "",
        "privacy spent (replace-one neighbours, pure ε-DP):",
        f"  per private model: its ε, δ = {event.delta:g}, mechanism {event.mechanism}",
        f"  reference: {event.reference}",
        f"  all {n_draws * len(epsilons)} models together: ε = "
        f"{_fmt_eps(total_eps)}, δ = {total_delta:g} (basic composition); "
        "releasing one model spends only its own ε",
        f"  {seed_note}",
        "",
        "next: dpsvm train --dataset breast-cancer --epsilon 5 --out model.json "
        "--report report.json",
    ]
    out.write("\n".join(lines) + "\n")


def add_demo_subparser(sub: Any) -> None:
    """Add ``dpsvm demo``."""
    demo = sub.add_parser(
        "demo",
        help="train a private linear SVM on the bundled breast-cancer data",
        description="Train DPLinearSVC with its defaults (objective perturbation, "
        "Huber loss, intercept, regularization='auto') at several ε on the "
        "breast-cancer data bundled with scikit-learn and compare its test "
        "accuracy with non-private references and the majority class.",
    )
    demo.add_argument(
        "--epsilon",
        type=_epsilon,
        nargs="+",
        default=list(DEMO_EPSILONS),
        metavar="E",
        help="ε per model, one or more values "
        f"(default {' '.join(f'{e:g}' for e in DEMO_EPSILONS)})",
    )
    add_seed_argument(
        demo,
        "--random-state",
        help="seed the noise (reproducible output; tests and docs only)",
    )
    add_integer_argument(
        demo,
        "--draws",
        1,
        1000,
        default=10,
        help="number of private models (noise draws) to average (default 10)",
    )


def run_demo_command(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Run ``dpsvm demo``."""
    run_demo(
        epsilons=args.epsilon,
        random_state=args.random_state,
        n_draws=args.draws,
        out=out,
    )
    return 0
