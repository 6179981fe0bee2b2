# SPDX-License-Identifier: BSD-3-Clause
"""diffprivlib side of ``bench_linear.py``, run in its own virtual environment.

diffprivlib 0.6.6 does not import with scikit-learn >= 1.8, which dpsvm uses, so
``bench_linear.py`` runs this script with the interpreter of
``.venv-diffprivlib/`` (scikit-learn 1.7.2; see
``requirements-diffprivlib.txt``). It imports neither dpsvm nor anything from
the main environment: the data arrive in an uncompressed ``.npz`` file
(``X_train``, ``y_train``, ``X_test``, ``y_test``), the settings in a JSON file,
and the results leave as JSON.

Settings (JSON object): ``epsilons`` (list of float), ``draws`` (int),
``configs`` (list of ``{"name", "C"}``), ``data_norm`` (float),
``fit_intercept`` (bool), ``max_iter`` (int), ``tol`` (float).

Output (JSON object): ``versions`` and ``results``, a list with one entry per
(config, ε) holding the per-draw ``accuracy`` and ``fit_seconds`` lists and
``n_not_converged`` (fits whose L-BFGS stopped at ``max_iter``). Only the
``fit`` call is timed.

Usage::

    .venv-diffprivlib/bin/python benchmarks/_diffprivlib_worker.py \\
        --data DATA.npz --config CONFIG.json --out RESULTS.json
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from typing import Any

import numpy as np

__all__ = ["main", "run"]


def _versions() -> dict[str, str]:
    import diffprivlib
    import scipy
    import sklearn

    return {
        "python": sys.version.split()[0],
        "diffprivlib": diffprivlib.__version__,
        "scikit-learn": sklearn.__version__,
        "numpy": np.__version__,
        "scipy": scipy.__version__,
    }


def run(data: dict[str, np.ndarray], config: dict[str, Any]) -> dict[str, Any]:
    """Fit diffprivlib's LogisticRegression for every (config, ε, draw).

    Parameters
    ----------
    data : dict of ndarray
        ``X_train``, ``y_train``, ``X_test``, ``y_test``.
    config : dict
        The settings described in the module docstring.

    Returns
    -------
    dict
        ``versions`` and ``results`` (see the module docstring).
    """
    from diffprivlib.models import LogisticRegression
    from sklearn.exceptions import ConvergenceWarning

    X_train, y_train = data["X_train"], data["y_train"]
    X_test, y_test = data["X_test"], data["y_test"]
    results = []
    for cfg in config["configs"]:
        for eps in config["epsilons"]:
            accs: list[float] = []
            times: list[float] = []
            not_converged = 0
            for _ in range(int(config["draws"])):
                clf = LogisticRegression(
                    epsilon=float(eps),
                    data_norm=float(config["data_norm"]),
                    C=float(cfg["C"]),
                    fit_intercept=bool(config["fit_intercept"]),
                    max_iter=int(config["max_iter"]),
                    tol=float(config["tol"]),
                )
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    t0 = time.perf_counter()
                    clf.fit(X_train, y_train)
                    times.append(time.perf_counter() - t0)
                    accs.append(float(np.mean(clf.predict(X_test) == y_test)))
                if any(issubclass(w.category, ConvergenceWarning) for w in caught):
                    not_converged += 1
            results.append(
                {
                    "name": cfg["name"],
                    "C": float(cfg["C"]),
                    "epsilon": float(eps),
                    "accuracy": accs,
                    "fit_seconds": times,
                    "n_not_converged": not_converged,
                }
            )
    return {"versions": _versions(), "results": results}


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point (see the module docstring).

    Parameters
    ----------
    argv : list of str, optional
        Arguments; ``sys.argv[1:]`` when omitted.

    Returns
    -------
    int
        Exit status (0 on success).
    """
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", required=True, help="input .npz file")
    parser.add_argument("--config", required=True, help="settings JSON file")
    parser.add_argument("--out", required=True, help="results JSON file")
    args = parser.parse_args(argv)
    with open(args.config, encoding="utf-8") as f:
        config = json.load(f)
    with np.load(args.data) as npz:
        data = {k: npz[k] for k in ("X_train", "y_train", "X_test", "y_test")}
    out = run(data, config)
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(out, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
