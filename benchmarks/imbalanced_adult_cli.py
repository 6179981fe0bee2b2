# SPDX-License-Identifier: BSD-3-Clause
"""Imbalanced Adult through the command line, with and without public class weights.

Makes Adult imbalanced by keeping a seeded random 6 % share of positives
(``>50K``) in both the training and the test file (the 94/6 split of the
census extract of issue 23), declares that split as the schema's public
``label.priors`` = [0.94, 0.06] (it is a property of how the data set was
built, not read from the rows), then for each draw runs::

    dpsvm train --data train.csv --schema schema.json --epsilon E --out m.json
    dpsvm train ... --class-weight balanced --out mw.json

with fresh CSPRNG noise and scores both models on the test file with
scikit-learn's ``balanced_accuracy_score`` and accuracy, next to the majority
rate (balanced accuracy 0.5) and the non-private figures (scikit-learn's
``LogisticRegression`` on the same schema-encoded features, unweighted and with
the same public balanced weights). Usage::

    python benchmarks/imbalanced_adult_cli.py [--data-dir DIR] [--draws 3] \\
        [--epsilon 1] [--positive-share 0.06]
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
from adult_schema_cli import _run, adult_schema, raw_to_csv
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score, balanced_accuracy_score

from dpsvm.datasets._paths import resolve_data_dir
from dpsvm.io import load_model
from dpsvm.models import balanced_class_weight
from dpsvm.preprocessing import PublicSchema, SchemaTransformer


def subsample_positives(src: str, dest: str, share: float, seed: int) -> None:
    """Keep every negative and a seeded random subset of positives (``share``)."""
    frame = pd.read_csv(src, skipinitialspace=True, dtype=str)
    positive = frame["income"].str.strip() == ">50K"
    n_neg = int((~positive).sum())
    keep = round(share * n_neg / (1.0 - share))
    rng = np.random.default_rng(seed)
    chosen = rng.choice(np.flatnonzero(positive), size=keep, replace=False)
    mask = ~positive.to_numpy()
    mask[chosen] = True
    frame[mask].to_csv(dest, index=False)


def _scores(y_true: np.ndarray, y_pred: np.ndarray) -> tuple[float, float]:
    return (
        float(balanced_accuracy_score(y_true, y_pred)),
        float(accuracy_score(y_true, y_pred)),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir")
    parser.add_argument("--draws", type=int, default=3)
    parser.add_argument("--epsilon", type=float, default=1.0)
    parser.add_argument("--positive-share", type=float, default=0.06)
    args = parser.parse_args()
    share = args.positive_share
    data_dir = resolve_data_dir(args.data_dir)
    with tempfile.TemporaryDirectory() as tmp:
        paths = {}
        parts = (("train", "adult.data.gz", 0), ("test", "adult.test.gz", 1))
        for part, name, seed in parts:
            raw = os.path.join(tmp, f"{part}_raw.csv")
            raw_to_csv(os.path.join(data_dir, "adult", name), raw)
            paths[part] = os.path.join(tmp, f"{part}.csv")
            subsample_positives(raw, paths[part], share, seed)
        schema_dict = adult_schema()
        schema_dict["label"]["priors"] = [1.0 - share, share]  # type: ignore[index]
        schema_path = os.path.join(tmp, "schema.json")
        Path(schema_path).write_text(json.dumps(schema_dict))
        schema = PublicSchema.from_json(Path(schema_path))
        test = pd.read_csv(paths["test"], skipinitialspace=True)
        y_test = schema.encode_labels(test["income"])
        train = pd.read_csv(paths["train"], skipinitialspace=True)
        y_train = schema.encode_labels(train["income"])
        majority = float(np.mean(y_test == schema.classes[0]))
        print(
            f"train rows {len(train)}, test rows {len(test)}, positive share "
            f"{share:g}; majority-class rate {majority:.4f} (balanced accuracy 0.5)"
        )
        results: dict[str, list[tuple[float, float]]] = {
            "unweighted": [],
            "balanced": [],
        }
        common = ["train", "--data", paths["train"], "--schema", schema_path,
                  "--epsilon", f"{args.epsilon:g}", "--quiet"]  # fmt: skip
        for draw in range(args.draws):
            runs = (("unweighted", []), ("balanced", ["--class-weight", "balanced"]))
            for label, extra in runs:
                out = os.path.join(tmp, f"m_{label}_{draw}.json")
                _run(*common, *extra, "--out", out)
                model = load_model(out)
                encoder = SchemaTransformer(schema).set_output(transform="pandas")
                pred = model.predict(encoder.fit_transform(test))
                results[label].append(_scores(y_test, np.asarray(pred)))
        encoder = SchemaTransformer(schema)
        X_train = encoder.fit_transform(train)
        X_test = encoder.transform(test)
        weights = balanced_class_weight(list(schema.classes), schema.label.priors)
        for label, cw in (("unweighted", None), ("balanced", weights)):
            clf = LogisticRegression(max_iter=2000, class_weight=cw)
            clf.fit(X_train, y_train)
            results[f"non-private {label}"] = [_scores(y_test, clf.predict(X_test))]
    print(f"ε = {args.epsilon:g}, {args.draws} draws (mean ± sd)")
    print(f"{'model':<26} {'balanced accuracy':>20} {'accuracy':>18}")
    for label, rows in results.items():
        arr = np.array(rows)
        bal, acc = arr.mean(axis=0)
        sd = arr.std(axis=0, ddof=1) if len(arr) > 1 else np.zeros(2)
        print(f"{label:<26} {bal:>12.4f} ± {sd[0]:.4f} {acc:>10.4f} ± {sd[1]:.4f}")


if __name__ == "__main__":
    main()
