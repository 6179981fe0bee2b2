# SPDX-License-Identifier: BSD-3-Clause
"""``dpsvm serve``: the private prediction service (needs the [service] extra).

Two modes:

* ``--data TRAIN.csv --schema S.json --epsilon E --ledger LEDGER`` with a
  ``--mechanism`` from :data:`MECHANISMS`. The default, ``model``, trains a
  private model once with the whole (ε, δ), charges the ledger once and
  commits the released model with the charge; every answer is then free
  post-processing, and a restart or second replica loads that model. The
  interactive mechanisms (``pinp``, ``sparse-vector``, ``laplace``) keep the
  non-private kernel model in this process; clients receive only private
  answers, each charged to the durable ledger, within the total (ε, δ)
  fixed at start.
* ``--model RELEASED.json`` serves an already released DP model: its answers
  are post-processing and spend nothing.

A mechanism is one row of :data:`MECHANISMS` (its help text, the kernels it
takes and the function that starts it); adding a mechanism is adding a row.

Every option but the source (``--data``/``--model``) can also come from an
environment variable ``DPSVM_`` + the option's name in capitals with ``_`` for
``-`` (``--api-key-file`` from ``DPSVM_API_KEY_FILE``); a flag on the command
line wins (:func:`dpsvm.cli._serve_ops.env_defaults`).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TextIO

from ..utils._cli import UsageError, add_integer_argument, add_positive_argument
from ._args import _delta, _epsilon
from ._serve_ops import draining_server, duration, env_defaults

__all__ = ["MECHANISMS", "ServeMechanism", "add_serve_subparser", "run_serve_command"]

#: Kernels the interactive mechanisms evaluate exactly (dpsvm.prediction).
_EXACT_KERNELS = ("rbf", "linear", "poly")
#: Translation-invariant kernels with a spectral sampler (random features).
_RANDOM_FEATURE_KERNELS = ("rbf", "laplacian", "cauchy")
_KERNELS = ("rbf", "linear", "poly", "laplacian", "cauchy")
DEFAULT_MAX_QUERIES = 10_000
#: The interactive mechanisms' defaults of --gamma and --regularization (rows
#: encoded to norm <= 1).
_INTERACTIVE_GAMMA = 1.0
_INTERACTIVE_REGULARIZATION = 0.01
#: --kernel poly: (<x, y> + coef0)^degree, the prediction learners' defaults.
_POLY_DEGREE = 3
_POLY_COEF0 = 1.0
#: --mechanism model --kernel poly: most explicit polynomial features.
_MAX_POLY_FEATURES = 20_000
_DEFAULT_N_COMPONENTS = 100
#: Operations defaults (seconds).
DEFAULT_DRAIN_TIMEOUT = 30.0
DEFAULT_REQUEST_TIMEOUT = 30.0


@dataclass(frozen=True)
class ServeMechanism:
    """One ``--mechanism`` of ``dpsvm serve``.

    Attributes
    ----------
    help : str
        One phrase for ``--help``.
    kernels : tuple of str
        The ``--kernel`` values it takes.
    start : callable
        ``start(args, fingerprint) -> (ServedModel, Ledger)``: reads the data,
        builds the served model and the ledger bound to it (the app opens the
        ledger). ``fingerprint(settings)`` digests the data, the schema and
        the given settings (pass every setting the answers depend on: a
        ledger guards one setting).
    """

    help: str
    kernels: tuple[str, ...]
    start: Callable[[argparse.Namespace, Callable[[dict[str, Any]], str]], Any]


def add_serve_subparser(sub: Any) -> None:
    """Add ``dpsvm serve`` to the command's subparsers.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The ``dpsvm`` subparsers.
    """
    p = sub.add_parser(
        "serve",
        help="serve private predictions over HTTP (Open Inference Protocol v2)",
        description="Start the private prediction service (docs/serving.md). With "
        "--data and --schema and the default --mechanism model, a private model is "
        "trained once with the whole (--epsilon, --delta), charged once to the "
        "durable --ledger together with the released model, and every answer is "
        "free post-processing (a restart or a second replica loads that model). "
        "The interactive mechanisms keep the non-private model in this process "
        "and charge each answer to the ledger before it is sent. With --model a "
        "released DP model is served: its answers are post-processing and free.",
    )
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--data", metavar="TRAIN.csv", help="training CSV (private)")
    src.add_argument(
        "--model", metavar="RELEASED.json", help="a released DP model (dpsvm.io)"
    )
    p.add_argument("--schema", metavar="S.json", help="public schema (with --data)")
    p.add_argument("--epsilon", type=_epsilon, help="total ε (with --data)")
    p.add_argument("--delta", type=_delta, default=None, help="total δ (with --data)")
    p.add_argument(
        "--ledger",
        metavar="PATH|URL",
        help="durable budget ledger: an SQLite file or a SQLAlchemy URL "
        "(postgresql+psycopg://... for several replicas); required with --data",
    )
    p.add_argument(
        "--api-key-file",
        required=True,
        metavar="KEYS",
        help="accepted API keys, one per line (optionally 'KEY MAX_ANSWERS')",
    )
    p.add_argument("--host", default="127.0.0.1", help="default 127.0.0.1")
    add_integer_argument(p, "--port", 0, 65535, default=8080, help="default 8080")
    p.add_argument(
        "--mechanism",
        choices=tuple(MECHANISMS),
        default="model",
        help="; ".join(f"{name}: {m.help}" for name, m in MECHANISMS.items())
        + " (default model)",
    )
    p.add_argument("--name", default="dpsvm", help="model name in the URLs")
    add_integer_argument(
        p,
        "--max-queries",
        1,
        10**9,
        default=DEFAULT_MAX_QUERIES,
        help="interactive mechanisms: T, the number of query rows the budget is "
        f"planned for (default {DEFAULT_MAX_QUERIES}; --mechanism model answers "
        "without limit)",
    )
    p.add_argument(
        "--kernel",
        choices=_KERNELS,
        default="rbf",
        help="rbf: exp(-γ‖x-y‖²); linear; poly: (<x, y> + 1)^3; laplacian: "
        "exp(-γ‖x-y‖₁) and cauchy: ∏ 1/(1+γ(xᵢ-yᵢ)²) (--mechanism model only, "
        "random features) (default rbf)",
    )
    add_positive_argument(
        p,
        "--gamma",
        help="public kernel width γ (default: --mechanism model 1/R², R the "
        "schema's row-norm bound; the interactive mechanisms 1)",
    )
    add_positive_argument(
        p,
        "--regularization",
        help="Λ (default: --mechanism model the public a-priori rule of dpsvm "
        "train for --kernel linear and poly, and the linear models' rule "
        "≈ 20/(nε) on random features; the interactive mechanisms 0.01)",
    )
    p.add_argument(
        "--classifier",
        choices=("svm", "logistic"),
        default="svm",
        help="--mechanism model --kernel linear: svm (DPLinearSVC, as dpsvm train) "
        "or logistic (DPLogisticRegression) (default svm)",
    )
    add_integer_argument(
        p,
        "--n-components",
        1,
        100_000,
        help="--mechanism model with rbf, laplacian or cauchy: number of random "
        f"frequencies (default {_DEFAULT_N_COMPONENTS})",
    )
    add_integer_argument(
        p,
        "--teachers",
        1,
        10**7,
        default=None,
        metavar="K",
        help="--mechanism subsample-aggregate: number of teachers (default from "
        "the number of training rows and epsilon)",
    )
    p.add_argument(
        "--ledger-sync",
        choices=("full", "normal"),
        default="full",
        help="SQLite ledger: full fsyncs every charge before its answer is sent "
        "(survives power loss); normal survives a crash of the server process but "
        "not of the machine, and is faster (default full)",
    )
    add_integer_argument(
        p,
        "--max-batch",
        1,
        100_000,
        default=1024,
        help="most query rows per request (default 1024)",
    )
    ops = p.add_argument_group("operations (docs/serving.md, Operations)")
    ops.add_argument(
        "--log-level",
        choices=("debug", "info", "warning", "error"),
        default="info",
        help="JSON logs on standard error: info writes one access line per "
        "request, warning only server errors, refusals by the ledger and the "
        "drain (default info)",
    )
    add_positive_argument(
        ops,
        "--ledger-timeout",
        default=10.0,
        metavar="SECONDS",
        help="PostgreSQL lock, statement and idle-in-transaction timeouts of the "
        "ledger connection (a hung replica loses its lock after this long), "
        "SQLite busy timeout (default 10)",
    )
    ops.add_argument(
        "--idempotency-window",
        type=duration,
        default=24 * 3600.0,
        metavar="DURATION",
        help="how long a request id and its answer are kept for retries, e.g. "
        "24h, 90m, 3600 (seconds); older records are pruned, the spend totals "
        "stay exact (default 24h)",
    )
    add_positive_argument(
        ops,
        "--request-timeout",
        default=DEFAULT_REQUEST_TIMEOUT,
        metavar="SECONDS",
        help="a request whose mechanism has not started within this time is "
        "refused (503, nothing spent); once its mechanism has run its charge "
        f"always commits (default {DEFAULT_REQUEST_TIMEOUT:g})",
    )
    add_positive_argument(
        ops,
        "--drain-timeout",
        default=DEFAULT_DRAIN_TIMEOUT,
        metavar="SECONDS",
        help="on SIGTERM, stop accepting and let requests in flight finish for "
        f"at most this long (default {DEFAULT_DRAIN_TIMEOUT:g})",
    )
    env_defaults(p, os.environ)


class _ServeError(ValueError):
    """A runtime failure of ``dpsvm serve`` (exit status 1)."""


def _check_args(args: argparse.Namespace) -> None:
    for dest, (var, choices) in getattr(args, "_env_sources", {}).items():
        value = getattr(args, dest, None)
        if choices is not None and isinstance(value, str) and value not in choices:
            raise UsageError(
                f"environment variable {var}={value!r}: choose one of "
                f"{', '.join(choices)}"
            )

    if args.data is not None:
        missing = [
            opt
            for opt, v in (
                ("--schema", args.schema),
                ("--epsilon", args.epsilon),
                ("--ledger", args.ledger),
            )
            if v is None
        ]
        if missing:
            raise UsageError(f"--data needs {', '.join(missing)}")
        mechanism = MECHANISMS[args.mechanism]
        if args.kernel not in mechanism.kernels:
            raise UsageError(
                f"--mechanism {args.mechanism} takes --kernel "
                f"{', '.join(mechanism.kernels)}, not {args.kernel}"
            )
    else:
        extra = [
            opt
            for opt, v in (("--schema", args.schema), ("--epsilon", args.epsilon))
            if v is not None
        ]
        if extra:
            raise UsageError(
                f"{', '.join(extra)} do not apply to --model: a released model's "
                "budget was spent when it was trained"
            )
    model = args.data is not None and args.mechanism == "model"
    if not model and args.n_components is not None:
        raise UsageError("--n-components applies to --mechanism model only")
    if model and args.n_components is not None:
        if args.kernel not in _RANDOM_FEATURE_KERNELS:
            raise UsageError(
                "--n-components applies to the random-feature kernels "
                f"({', '.join(_RANDOM_FEATURE_KERNELS)}) only"
            )
    if args.classifier != "svm" and not (model and args.kernel == "linear"):
        raise UsageError(
            "--classifier logistic applies to --mechanism model --kernel linear only"
        )
    if args.teachers is not None and args.mechanism != "subsample-aggregate":
        raise UsageError("--teachers applies to --mechanism subsample-aggregate only")
    if args.kernel == "poly" and args.gamma not in (None, 1.0):
        # One polynomial kernel in the library, (<x, y> + c0)^p, without a width
        # (dpsvm.kernels.kernel_matrix; models.kernel_erm.KernelSpec refuses γ ≠ 1).
        raise UsageError(
            "--kernel poly is (<x, y> + coef0)^degree, as in "
            "dpsvm.kernels.kernel_matrix: it has no width, so --gamma must be 1 "
            f"(the default) with --kernel poly, got --gamma {args.gamma:g}"
        )


def _sha256_file(path: str, h: Any) -> None:
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)


def _fingerprinter(
    args: argparse.Namespace, schema_json: str | None
) -> Callable[[dict[str, Any]], str]:
    """Digest of the data/model file, the schema, the mechanism and ``settings``.

    ``settings`` are every option the answers depend on (a ledger guards one
    setting; a restart with other settings is refused).
    """

    def fingerprint(settings: dict[str, Any]) -> str:
        h = hashlib.sha256()
        _sha256_file(args.data if args.data is not None else args.model, h)
        doc = {
            "schema": schema_json,
            "mechanism": args.mechanism if args.data is not None else "released",
            **settings,
        }
        h.update(json.dumps(doc, sort_keys=True).encode())
        return h.hexdigest()

    return fingerprint


def _schema_inputs(schema: Any, encode: Any) -> Any:
    """The raw columns of a public schema as query inputs, encoded by ``encode``."""
    from ..preprocessing import CategoricalFeature
    from ..serving import InputSpec

    return InputSpec(
        list(schema.columns),
        [isinstance(f, CategoricalFeature) for f in schema.features],
        encode,
    )


def _ledger_options(args: argparse.Namespace) -> dict[str, Any]:
    """The ledger's durability, timeout and idempotency-window options."""
    options: dict[str, Any] = {"sqlite_synchronous": args.ledger_sync.upper()}
    for option, name in (
        ("ledger_timeout", "timeout"),
        ("idempotency_window", "idempotency_window"),
    ):
        if getattr(args, option, None) is not None:
            options[name] = getattr(args, option)
    return options


def _ledger(args: argparse.Namespace, served: Any, epsilon: float, delta: float) -> Any:
    from ..serving import Ledger

    return Ledger(
        args.ledger,
        fingerprint=served.fingerprint,
        model_name=served.name,
        mechanism=served.mechanism,
        epsilon_total=epsilon,
        delta_total=delta,
        **_ledger_options(args),
    )


# ----------------------------------------------------- interactive mechanisms
def _interactive_options(args: argparse.Namespace) -> dict[str, Any]:
    """The settings of an interactive mechanism (defaults resolved)."""
    options = {
        "kernel": args.kernel,
        "gamma": _INTERACTIVE_GAMMA if args.gamma is None else args.gamma,
        "regularization": _INTERACTIVE_REGULARIZATION
        if args.regularization is None
        else args.regularization,
        "max_queries": args.max_queries,
    }
    if args.mechanism == "subsample-aggregate":
        options["teachers"] = args.teachers
    return options


def _start_interactive(
    args: argparse.Namespace, fingerprint: Callable[[dict[str, Any]], str]
) -> tuple[Any, Any]:
    """pinp, sparse-vector, laplace, subsample-aggregate: exact models stay here."""
    import pandas as pd

    from ..prediction import (
        PrivateInteractivePredictor,
        SubsampleAggregatePredictor,
        VacuousCalibrationError,
    )
    from ..preprocessing import PublicSchema, SchemaTransformer
    from ..serving import ServedModel

    options = _interactive_options(args)
    delta = args.delta
    if delta is None:
        if args.mechanism in ("pinp", "subsample-aggregate"):
            raise UsageError(
                f"--mechanism {args.mechanism} is (epsilon, delta)-DP: give the "
                "total --delta (e.g. 1e-6, well below 1/number of training rows)"
            )
        delta = 0.0
    schema = PublicSchema.from_json(args.schema)
    frame = pd.read_csv(args.data, dtype=str, keep_default_na=False)
    if schema.label.column not in frame.columns:
        raise _ServeError(
            f"{args.data}: no label column {schema.label.column!r} (named in "
            f"{args.schema})"
        )
    y = schema.encode_labels(frame[schema.label.column].to_numpy())
    transformer = SchemaTransformer(schema, unit_norm=True, sparse_output=False).fit(
        frame
    )
    X = transformer.transform(frame)
    classes = list(schema.classes)
    common: dict[str, Any] = dict(
        epsilon=args.epsilon,
        delta=delta,
        n_queries=args.max_queries,
        kernel=args.kernel,
        gamma=options["gamma"],
        regularization=options["regularization"],
        data_norm=1.0,
        classes=classes,
    )
    predictor: Any
    if args.mechanism == "subsample-aggregate":
        predictor = SubsampleAggregatePredictor(n_teachers=args.teachers, **common)
    else:
        predictor = PrivateInteractivePredictor(mechanism=args.mechanism, **common)
    try:
        predictor.fit(X, y)  # nothing is released
    except (VacuousCalibrationError, ValueError) as exc:
        # Vacuous, or a parameter refused (e.g. --delta ≥ 1/n): refuse to
        # serve (exit 2, one line, nothing stored).
        raise UsageError(str(exc)) from None
    details: dict[str, Any] = {**options, "data_norm": 1.0}
    if args.mechanism == "subsample-aggregate":
        details.update(
            n_teachers=int(predictor.n_teachers_),
            max_charged=int(predictor.max_charged_),
            threshold=float(predictor.threshold_),
            answers_guaranteed=int(predictor.answers_guaranteed_),
        )
    else:
        details["noise_scale"] = float(predictor.noise_scale_)
    if args.mechanism in ("pinp", "sparse-vector"):
        details["max_updates"] = int(predictor.max_updates_)
        details["threshold"] = float(predictor.threshold_)
    served = ServedModel(
        name=args.name,
        predictor=predictor,
        inputs=_schema_inputs(schema, transformer.transform),
        classes=classes,
        mechanism=args.mechanism,
        free=False,
        fingerprint=fingerprint(options),
        details=details,
    )
    return served, _ledger(args, served, predictor.total_epsilon, predictor.total_delta)


# ---------------------------------------------------- release once: "model"
def _model_settings(args: argparse.Namespace) -> dict[str, Any]:
    """The settings of ``--mechanism model`` (``None``: the documented default)."""
    settings: dict[str, Any] = {
        "kernel": args.kernel,
        "gamma": args.gamma,
        "regularization": args.regularization,
    }
    if args.kernel == "linear":
        settings["classifier"] = args.classifier
    elif args.kernel == "poly":
        settings.update(degree=_POLY_DEGREE, coef0=_POLY_COEF0)
    else:
        settings["n_components"] = (
            _DEFAULT_N_COMPONENTS if args.n_components is None else args.n_components
        )
    return settings


def _model_gamma(args: argparse.Namespace, schema: Any) -> float:
    """γ of the random features: given, or 1/R² (R the schema's row-norm bound).

    1/R² is public (the schema's bound, nothing read from the data) and puts
    the kernel's width at the scale of the encoded rows, as scikit-learn's
    ``gamma="scale"`` does from the data; on Adult's training file it was the
    best of 0.035–0.14 on a validation split (docs/prediction.md).
    """
    if args.gamma is not None:
        return float(args.gamma)
    return 1.0 / float(schema.row_norm_bound) ** 2


def _poly_map(schema: Any) -> Any:
    """The explicit map of (<x, y> + 1)^3 on unit-norm encoded rows (public)."""
    import numpy as np

    from ..kernels import PolynomialFeatureMap

    return PolynomialFeatureMap(
        degree=_POLY_DEGREE, coef0=_POLY_COEF0, data_norm=1.0
    ).fit(np.zeros((1, schema.n_features_out)))


def _check_poly_width(schema: Any) -> None:
    width = math.comb(schema.n_features_out + _POLY_DEGREE, _POLY_DEGREE)
    if width > _MAX_POLY_FEATURES:
        raise UsageError(
            f"--kernel poly with --mechanism model maps the schema's "
            f"{schema.n_features_out} encoded features to {width} polynomial "
            f"features (more than {_MAX_POLY_FEATURES}); use --kernel rbf or "
            "--kernel linear for this schema"
        )


def _train_release(args: argparse.Namespace, schema: Any) -> Any:
    """Train the private model of ``--mechanism model`` (the one release).

    The estimators and defaults of ``dpsvm train``: DPLinearSVC (or
    DPLogisticRegression) on the schema-encoded rows for ``--kernel linear``;
    DPKernelSVC on random Fourier features for the translation-invariant
    kernels; DPLinearSVC on the explicit polynomial feature map for ``poly``.
    """
    import numpy as np
    import pandas as pd

    from ..models import DPKernelSVC, DPLinearSVC, DPLogisticRegression
    from ..perturbation import AUTO_CORRECTION_SHARE_LINEAR, auto_regularization
    from ..preprocessing import SchemaTransformer
    from ._reading import _read_schema_frame, _schema_labels

    frame, where = _read_schema_frame(args, schema)
    y = _schema_labels(schema, frame, where)
    classes = list(schema.classes)
    # These learners are pure ε-DP: the release is charged (ε, 0).
    budget = {"epsilon": args.epsilon, "delta": 0.0, "classes": classes}
    regularization = args.regularization
    if args.kernel == "poly":
        pm = _poly_map(schema)
        X = pm.transform(
            SchemaTransformer(
                schema, unit_norm=True, sparse_output=False
            ).fit_transform(frame)
        )
        model = DPLinearSVC(
            data_norm=pm.feature_norm_bound_,
            fit_intercept=False,  # the map has a constant feature
            regularization="auto" if regularization is None else regularization,
            **budget,
        )
        return model.fit(X, y)
    names = list(schema.feature_names_out)
    X = pd.DataFrame(
        np.asarray(
            SchemaTransformer(schema, sparse_output=False).fit_transform(frame),
            dtype=np.float64,
        ),
        columns=names,
    )
    if args.kernel == "linear":
        cls = DPLogisticRegression if args.classifier == "logistic" else DPLinearSVC
        model = cls(
            data_norm=schema.row_norm_bound,
            regularization="auto" if regularization is None else regularization,
            **budget,
        )
    else:
        if regularization is None:
            # The linear models' a-priori rule (share f = 1/10 of ε for the
            # correction, ≈ 20/(nε)) on the unit-norm random features: public
            # (n, ε); on Adult's training file it beat DPKernelSVC's own
            # "auto" (f = 1/2) on a validation split (docs/prediction.md).
            regularization = auto_regularization(
                float(args.epsilon), int(X.shape[0]), 1.0, AUTO_CORRECTION_SHARE_LINEAR
            )
        model = DPKernelSVC(
            kernel=args.kernel,
            gamma=_model_gamma(args, schema),
            n_components=_model_settings(args)["n_components"],
            regularization=regularization,
            **budget,
        )
    model.fit(X, y)
    model.public_schema_ = schema  # written into the released model
    return model


def _start_model(
    args: argparse.Namespace, fingerprint: Callable[[dict[str, Any]], str]
) -> tuple[Any, Any]:
    """Release once: load the ledger's model, or train, charge and commit one."""
    import pandas as pd

    from ..preprocessing import PublicSchema, SchemaTransformer
    from ..serving import Ledger, ReleasedModel, ServedModel, release_once

    schema = PublicSchema.from_json(args.schema)
    if args.kernel == "poly":
        _check_poly_width(schema)  # public: before any data is read
    delta = 0.0 if args.delta is None else float(args.delta)
    settings = _model_settings(args)
    ledger = Ledger(
        args.ledger,
        fingerprint=fingerprint(settings),
        model_name=args.name,
        mechanism="model",
        epsilon_total=args.epsilon,
        delta_total=delta,
        **_ledger_options(args),
    )
    model, trained = release_once(
        ledger, lambda: _train_release(args, schema), {"n_answers": 0}
    )
    empty = pd.DataFrame(columns=schema.columns)
    encode: Callable[[Any], Any]
    if args.kernel == "poly":
        encoder = SchemaTransformer(schema, unit_norm=True, sparse_output=False).fit(
            empty
        )
        pm = _poly_map(schema)

        def encode(raw: Any) -> Any:
            return pm.transform(encoder.transform(raw))

    else:
        encode = SchemaTransformer(schema, sparse_output=False).fit(empty).transform
    event = model.privacy_event_
    details: dict[str, Any] = {
        "estimator": type(model).__name__,
        "release": event.mechanism,
        "release_epsilon": event.epsilon,
        "release_delta": event.delta,
        "trained_at_this_start": trained,
        **{k: v for k, v in settings.items() if v is not None},
    }
    gamma = getattr(model, "gamma", None)
    if args.kernel in _RANDOM_FEATURE_KERNELS and gamma is not None:
        details["gamma"] = float(gamma)
    served = ServedModel(
        name=args.name,
        predictor=ReleasedModel(model),
        inputs=_schema_inputs(schema, encode),
        classes=list(model.classes_),
        mechanism="model",
        free=True,
        fingerprint=ledger.fingerprint,
        details=details,
    )
    return served, ledger


#: ``--mechanism``: name -> how to start it. Add a row to add a mechanism.
MECHANISMS: dict[str, ServeMechanism] = {
    "model": ServeMechanism(
        help="train a private model once with the whole budget (DPLinearSVC, or "
        "DPKernelSVC on random features, as dpsvm train) and answer without "
        "limit, for free (post-processing)",
        kernels=_KERNELS,
        start=_start_model,
    ),
    "pinp": ServeMechanism(
        help="private interactive prediction (Jain & Thakurta Alg. 1)",
        kernels=_EXACT_KERNELS,
        start=_start_interactive,
    ),
    "sparse-vector": ServeMechanism(
        help="its sparse-vector variant (pure ε)",
        kernels=_EXACT_KERNELS,
        start=_start_interactive,
    ),
    "laplace": ServeMechanism(
        help="per-query Laplace answers, ε/--max-queries each",
        kernels=_EXACT_KERNELS,
        start=_start_interactive,
    ),
    "subsample-aggregate": ServeMechanism(
        help="--teachers kernel models, free answers while their vote is stable "
        "(Bassily, Thakkar & Thakurta 2018)",
        kernels=_EXACT_KERNELS,
        start=_start_interactive,
    ),
}


def _served_from_model(args: argparse.Namespace) -> Any:
    from ..io import load_model
    from ..serving import InputSpec, ReleasedModel, ServedModel

    model = load_model(args.model)
    schema = getattr(model, "public_schema_", None)
    if schema is not None:  # trained with --schema: clients send raw columns
        import pandas as pd

        from ..preprocessing import SchemaTransformer

        encoder = SchemaTransformer(schema, sparse_output=False).fit(
            pd.DataFrame(columns=schema.columns)
        )
        spec = _schema_inputs(schema, encoder.transform)
    else:
        d = int(model.n_features_in_)
        names = getattr(model, "feature_names_in_", None)
        columns = (
            [f"x{j}" for j in range(d)] if names is None else [str(c) for c in names]
        )
        spec = InputSpec(columns, [False] * d)
    event = getattr(model, "privacy_event_", None)
    return ServedModel(
        name=args.name,
        predictor=ReleasedModel(model),
        inputs=spec,
        classes=list(model.classes_),
        mechanism="released" if event is None else "released:" + event.mechanism,
        free=True,
        fingerprint=_fingerprinter(args, None)({}),
        details={"estimator": type(model).__name__},
    )


def _start_message(served: Any, ledger: Any, state: Any) -> str:
    if served.mechanism == "model":
        d = served.details
        how = (
            "trained and released once now"
            if d["trained_at_this_start"]
            else "loaded from the ledger (released at its first start; nothing "
            "spent now)"
        )
        return (
            f"{d['estimator']} ({d['release']}, epsilon = {d['release_epsilon']:g}, "
            f"delta = {d['release_delta']:g} of the total epsilon = "
            f"{ledger.epsilon_total:g}, delta = {ledger.delta_total:g}) {how}: "
            "answers are free post-processing, without limit"
        )
    if served.free:
        return (
            f"a released model (epsilon = {ledger.epsilon_total:g}, delta = "
            f"{ledger.delta_total:g}, spent at training): answers are free "
            "post-processing"
        )
    budget = (
        f"budget epsilon = {ledger.epsilon_total:g}, delta = "
        f"{ledger.delta_total:g}; spent epsilon = {state.epsilon_spent:g} on "
        f"{state.answers} answers"
    )
    guaranteed = served.details.get("answers_guaranteed")
    if guaranteed is not None:  # subsample-aggregate: its reach, public
        budget += (
            f"; supports {guaranteed} answer{'' if guaranteed == 1 else 's'} "
            f"whatever the data, up to {served.details['max_queries']} while the "
            "teachers agree"
        )
    return budget


def run_serve_command(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Run ``dpsvm serve`` until interrupted.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed options.
    out, err : text streams
        Standard output and error.

    Returns
    -------
    int
        The exit status.
    """
    _check_args(args)  # usage errors first, before the service extra is needed
    try:
        import uvicorn

        from ..serving import ApiKeys, Ledger, create_app
    except ImportError as exc:
        raise _ServeError(
            f"dpsvm serve needs the service extra ({exc.name} is missing): "
            "pip install 'dpsvm[service]'"
        ) from None
    import logging

    import sqlalchemy

    from ..serving import configure_logging

    server_log = logging.getLogger("dpsvm.server")
    configure_logging(getattr(args, "log_level", "info"), err)
    # Answers are serialised and their matrices small: multi-threaded BLAS only
    # adds thread hand-offs (tens of ms on a busy machine). One thread each.
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=1)
    keys = ApiKeys.from_file(args.api_key_file)
    ledger: Any = None
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            if args.data is not None:
                from ..preprocessing import PublicSchema

                schema_json = PublicSchema.from_json(args.schema).to_json()
                served, ledger = MECHANISMS[args.mechanism].start(
                    args, _fingerprinter(args, schema_json)
                )
            else:
                served = _served_from_model(args)
                predictor = served.predictor
                ledger = Ledger(
                    args.ledger if args.ledger is not None else "sqlite://",
                    fingerprint=served.fingerprint,
                    model_name=served.name,
                    mechanism=served.mechanism,
                    epsilon_total=predictor.total_epsilon,
                    delta_total=predictor.total_delta,
                    **_ledger_options(args),
                )
        for w in caught:  # now, not when the server stops
            err.write(f"dpsvm: warning: {' '.join(str(w.message).split())}\n")
        err.flush()
        app = create_app(
            served,
            ledger,
            keys,
            max_batch=args.max_batch,
            request_timeout=getattr(args, "request_timeout", None),
        )
    except sqlalchemy.exc.SQLAlchemyError as exc:
        where = sqlalchemy.engine.make_url(
            ledger.url if ledger is not None else _sqlite_url(args.ledger)
        ).render_as_string(hide_password=True)
        if ledger is not None:
            ledger.dispose()
        raise _ServeError(
            f"--ledger {where}: cannot use the database "
            f"({type(getattr(exc, 'orig', None) or exc).__name__})"
        ) from None
    state = ledger.snapshot()
    out.write(
        f"dpsvm: serving {served.name!r} ({served.mechanism}) on "
        f"http://{args.host}:{args.port}/v2/models/{served.name} — "
        f"{_start_message(served, ledger, state)}\n"
    )
    out.flush()
    drain = float(getattr(args, "drain_timeout", DEFAULT_DRAIN_TIMEOUT))
    config = uvicorn.Config(
        app,
        host=args.host,
        port=args.port,
        log_config=None,  # configure_logging's JSON lines, not uvicorn's
        access_log=False,  # ours has the key id, rows and ε (dpsvm.access)
        timeout_graceful_shutdown=math.ceil(drain),
    )
    server = draining_server(uvicorn.Server, server_log, drain)(config)
    server_log.info(
        "serving",
        extra={
            "fields": {
                "event": "start",
                "model": served.name,
                "mechanism": served.mechanism,
                "host": args.host,
                "port": args.port,
            }
        },
    )
    try:
        server.run()
    except SystemExit:
        raise _ServeError(
            f"could not listen on {args.host}:{args.port} (port in use?)"
        ) from None
    finally:
        ledger.dispose()
    if not server.started:
        raise _ServeError(f"could not listen on {args.host}:{args.port}")
    server.log_drained()
    return 0


def _sqlite_url(spec: str) -> str:
    return spec if "://" in spec else "sqlite:///" + spec
