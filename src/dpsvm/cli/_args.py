# SPDX-License-Identifier: BSD-3-Clause
"""The ``dpsvm`` command's shared option types and option groups.

The option types (``--epsilon``, ``--delta``, ``--gamma``, ``--classes``,
``--class-priors``) and the data and model options that several subcommands
take, defined once; building them imports nothing heavy.
"""

from __future__ import annotations

import argparse
import math

import numpy as np

from ..utils._cli import (
    add_integer_argument,
    add_positive_argument,
    add_seed_argument,
    delta_option,
)
from ..utils._cli import positive_option as _positive
from ._data import DATASETS, labels_to_numbers
from ._tabular import add_dialect_options

#: --mechanism: "output-laplace", "objective-laplace" and "objective-gaussian"
#: are for --kernel linear, "rubinstein" for the kernels; the non-private
#: "objective-2009" reading is not offered.
_MECHANISMS = (
    "objective",
    "objective-laplace",
    "objective-gaussian",
    "output",
    "output-laplace",
    "rubinstein",
)
#: The --mechanism values of --kernel linear only.
_LINEAR_ONLY_MECHANISMS = ("output-laplace", "objective-laplace", "objective-gaussian")
_LOSSES = ("huber", "hinge", "logistic")
#: --kernel: "linear" (DPLinearSVC / DPLogisticRegression) or a translation-
#: invariant kernel approximated by random Fourier features (DPKernelSVC).
_KERNELS = ("linear", "rbf", "laplacian", "cauchy")
#: Options that only a non-linear --kernel uses, as (option, argparse dest).
_KERNEL_OPTIONS = (
    ("--gamma", "gamma"),
    ("--n-components", "n_components"),
    ("--feature-map", "feature_map"),
    ("--norm-handling", "norm_handling"),
    ("--feature-seed", "feature_seed"),
)
_DEFAULT_N_COMPONENTS = 100
_MAX_N_COMPONENTS = 1_000_000
_LIBSVM_SUFFIXES = (".libsvm", ".svm", ".svmlight")
#: Options whose value may start with "-" (a negative label or column index).
_DASH_VALUE_OPTIONS = ("--classes", "--label-column", "--class-weight")


# ------------------------------------------------------------ option types
_epsilon = _positive("epsilon")
_delta = delta_option("delta")


def _gamma(text: str) -> float:
    if text.strip().lower() in ("scale", "auto"):
        raise argparse.ArgumentTypeError(
            f"--gamma {text!r} would be computed from the data, which the privacy "
            "guarantee does not cover; give the public kernel width as a number > 0"
        )
    return _positive("--gamma")(text)


def _classes(text: str) -> list[int] | list[float]:
    parts = [p.strip() for p in text.split(",")]
    values = []
    for p in parts:
        try:
            v = float(p)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"--classes takes two numeric labels such as -1,1; got {p!r}"
            ) from None
        if not math.isfinite(v):
            raise argparse.ArgumentTypeError(f"--classes: non-finite label {p!r}")
        values.append(v)
    if len(values) != 2 or values[0] == values[1]:
        raise argparse.ArgumentTypeError(
            f"--classes takes exactly two distinct labels such as -1,1; got {text!r}"
        )
    labels = labels_to_numbers(np.array(values))
    result: list[int] | list[float] = labels.tolist()
    return result


# ------------------------------------------------------------------ parser
def _priors(text: str) -> list[float]:
    """``--class-priors P1,P2,...``: public class proportions."""
    try:
        values = [float(v) for v in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected numbers separated by commas, got {text!r}"
        ) from None
    if len(values) < 2 or not all(0.0 < v <= 1.0 for v in values):
        raise argparse.ArgumentTypeError(
            "expected at least 2 proportions in (0, 1], one per class"
        )
    return values


def _add_data_options(p: argparse.ArgumentParser, *, part: str, labels: str) -> None:
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--data", metavar="PATH", help="CSV or LibSVM data file")
    src.add_argument(
        "--dataset",
        choices=DATASETS,
        help=f"a named data set instead of a file (its {part} part; labels -1/+1)",
    )
    p.add_argument(
        "--data-dir",
        metavar="DIR",
        help="directory with the UCI Adult files (--dataset adult)",
    )
    p.add_argument(
        "--feature-set",
        choices=("full", "compact"),
        default="full",
        help="Adult feature layout (--dataset adult; default: full)",
    )
    p.add_argument(
        "--format",
        choices=("csv", "libsvm"),
        help="file format (default: libsvm for .libsvm/.svm/.svmlight, else csv). "
        "CSV: ',' separated decimal numbers, optional header row. LibSVM: "
        "'label index:value ...' with 1-based indices",
    )
    head = p.add_mutually_exclusive_group()
    head.add_argument(
        "--header",
        dest="header",
        action="store_const",
        const=True,
        help="the CSV file's first row is a header of column names",
    )
    head.add_argument(
        "--no-header",
        dest="header",
        action="store_const",
        const=False,
        help="the CSV file has no header row (by default the first row is the "
        "header, and a first row of numbers only is refused as ambiguous)",
    )
    add_dialect_options(p)
    if part == "training":
        add_integer_argument(
            p,
            "--n-features",
            1,
            10**8,
            metavar="N",
            help="LibSVM: the public number of features (required: the width is "
            "never read from the private file; an index above N is refused)",
        )
    lab = p.add_mutually_exclusive_group() if labels == "optional" else p
    lab.add_argument(
        "--label-column",
        metavar="N|NAME",
        help="CSV label column: 0-based index (negative counts from the end) or "
        "header name (default: the last column)",
    )
    if labels == "optional":
        lab.add_argument(
            "--no-labels",
            action="store_true",
            help="the CSV file has feature columns only",
        )


def _add_model_options(p: argparse.ArgumentParser, *, epsilon: bool = True) -> None:
    """The model and privacy options shared by ``train`` and ``sweep``."""
    p.add_argument(
        "--model",
        choices=("svm", "logistic"),
        default="svm",
        help="svm: DPLinearSVC, or DPKernelSVC with a non-linear --kernel; "
        "logistic: DPLogisticRegression (--kernel linear only) (default svm)",
    )
    if epsilon:
        p.add_argument("--epsilon", type=_epsilon, default=1.0, help="ε (default 1)")
    p.add_argument(
        "--delta",
        type=_delta,
        default=0.0,
        help="δ (default 0; every mechanism but objective-gaussian is pure ε-DP "
        "and spends δ = 0); 'auto': n^-1.5 of the number of training rows n (0 "
        "for a pure mechanism); a δ of at least 1/n is refused where it is spent",
    )
    p.add_argument(
        "--mechanism",
        choices=_MECHANISMS,
        default="objective",
        help="objective (CMS11 Alg. 2; with a kernel: Sarwate et al. Alg. 2), "
        "objective-laplace (CMS11 Alg. 2 with Laplace noise on rows of a public L1 "
        "bound, set from the schema's columns; best at small ε with --schema), "
        "objective-gaussian ((ε, δ)-DP, Kifer, Smith & Thakurta 2012 Alg. 1; needs "
        "--delta > 0), output (CMS11 Alg. 1), output-laplace (Rubinstein et al. "
        "Alg. 2) — these three for --kernel linear only — or rubinstein "
        "(PRIVATESVM, Rubinstein et al. Alg. 3; kernels only) (default objective)",
    )
    p.add_argument(
        "--loss",
        choices=_LOSSES,
        help="loss of --model svm and of the kernel models (default huber)",
    )
    add_positive_argument(
        p,
        "--huber-h",
        help="Huber half-width (default 0.5 linear, 1 with a kernel)",
    )
    add_positive_argument(
        p,
        "--regularization",
        help="Λ in (1/n)Σℓ + (Λ/2)‖w‖² (default: the public a-priori rule "
        "regularization='auto', ≈ 20/(nε) linear, ≈ 4/(nε) kernel; "
        "docs/defaults.md; train --tune chooses it privately)",
    )
    add_positive_argument(
        p,
        "--data-norm",
        help="public bound R on the row norm; longer rows are projected (default "
        "1; --kernel linear only)",
    )
    p.add_argument(
        "--fit-intercept",
        action=argparse.BooleanOptionalAction,
        help="fit an intercept as a public constant feature inside R (default on "
        "for --kernel linear; the kernel models are bias-free, as in both papers)",
    )
    kern = p.add_argument_group(
        "kernel options",
        "for --kernel rbf, laplacian or cauchy (DPKernelSVC on random Fourier "
        "features; see docs/kernels.md)",
    )
    kern.add_argument(
        "--kernel",
        choices=_KERNELS,
        default="linear",
        help="linear: a linear model (default); rbf: exp(-γ‖x-y‖²); laplacian: "
        "exp(-γ‖x-y‖₁); cauchy: ∏ 1/(1+γ(xᵢ-yᵢ)²)",
    )
    kern.add_argument(
        "--gamma",
        type=_gamma,
        help="public kernel width γ > 0 (required with a kernel; data-dependent "
        "values such as 'scale' are refused)",
    )
    add_integer_argument(
        kern,
        "--n-components",
        1,
        _MAX_N_COMPONENTS,
        metavar="N",
        help="number of random frequencies: 2N features for cos-sin, N for "
        f"cos-phase (default {_DEFAULT_N_COMPONENTS})",
    )
    kern.add_argument(
        "--feature-map",
        choices=("cos-sin", "cos-phase"),
        help="cos-sin (Rubinstein et al. eq. (4.1), norm exactly 1) or cos-phase "
        "(Sarwate et al. Alg. 2) (default: cos-sin for rubinstein and output, "
        "cos-phase for objective)",
    )
    kern.add_argument(
        "--norm-handling",
        choices=("scale", "bound", "clip"),
        help="cos-phase only: scale the features to norm <= 1, calibrate the noise "
        "for their bound √2, or project them onto the unit ball (default clip)",
    )
    add_seed_argument(
        kern,
        "--feature-seed",
        help="seed the random frequencies (they are public and written into the "
        "model, so seeding them is allowed; the seed is not written; default: "
        "fresh OS entropy)",
    )
    add_seed_argument(
        p,
        "--random-state",
        help="seed the noise: tests only, never for a real release",
    )
