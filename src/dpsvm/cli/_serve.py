# SPDX-License-Identifier: BSD-3-Clause
"""``dpsvm serve``: the private prediction service (needs the [service] extra).

Two modes:

* ``--data TRAIN.csv --schema S.json --epsilon E --delta D --ledger LEDGER``
  trains the non-private kernel model in this process and keeps it here;
  clients receive only private answers of the chosen mechanism, whose total
  (ε, δ) is fixed at start and charged to the durable ledger.
* ``--model RELEASED.json`` serves an already released DP model: its answers
  are post-processing and spend nothing.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import warnings
from typing import Any, TextIO

from ..utils._cli import add_integer_argument, add_positive_argument
from ._main import _delta, _epsilon

__all__ = ["add_serve_subparser", "run_serve_command"]

MECHANISMS = ("pinp", "sparse-vector", "laplace")
_KERNELS = ("rbf", "linear", "poly")
DEFAULT_MAX_QUERIES = 10_000


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
        "--data and --schema the non-private model is trained in this process and "
        "never leaves it: clients get only private answers, each charged to the "
        "durable --ledger before it is sent, within the total (--epsilon, --delta) "
        "fixed now. With --model a released DP model is served: its answers are "
        "post-processing and free.",
    )
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--data", metavar="TRAIN.csv", help="training CSV (private)")
    src.add_argument(
        "--model", metavar="RELEASED.json", help="a released DP model (dpsvm.io)"
    )
    p.add_argument("--schema", metavar="S.json", help="public schema (with --data)")
    p.add_argument("--epsilon", type=_epsilon, help="total ε of all answers")
    p.add_argument("--delta", type=_delta, default=None, help="total δ of all answers")
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
        choices=MECHANISMS,
        default="pinp",
        help="pinp: private interactive prediction (Jain & Thakurta Alg. 1); "
        "sparse-vector: its sparse-vector variant (pure ε); laplace: per-query "
        "Laplace answers, ε/--max-queries each (default pinp)",
    )
    p.add_argument("--name", default="dpsvm", help="model name in the URLs")
    add_integer_argument(
        p,
        "--max-queries",
        1,
        10**9,
        default=DEFAULT_MAX_QUERIES,
        help="T, the number of query rows the budget is planned for "
        f"(default {DEFAULT_MAX_QUERIES})",
    )
    p.add_argument("--kernel", choices=_KERNELS, default="rbf", help="default rbf")
    add_positive_argument(p, "--gamma", default=1.0, help="default 1")
    add_positive_argument(
        p,
        "--regularization",
        default=0.01,
        help="Λ (default 0.01)",
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


class _ServeError(ValueError):
    """A runtime failure of ``dpsvm serve`` (exit status 1)."""


def _check_args(args: argparse.Namespace) -> None:
    from ._main import UsageError

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
    if args.kernel == "poly" and args.gamma != 1.0:
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


#: The options of ``dpsvm serve`` that the answers depend on: fingerprinted (a
#: ledger guards one setting) and shown in the model's metadata.
_ANSWER_OPTIONS = ("kernel", "gamma", "regularization", "max_queries")


def _answer_options(args: argparse.Namespace) -> dict[str, Any]:
    return {name: getattr(args, name) for name in _ANSWER_OPTIONS}


def _fingerprint(args: argparse.Namespace, schema_json: str | None) -> str:
    """Digest of the data/model file and every setting the answers depend on."""
    h = hashlib.sha256()
    _sha256_file(args.data if args.data is not None else args.model, h)
    settings = {
        "schema": schema_json,
        "mechanism": args.mechanism if args.data is not None else "released",
        **_answer_options(args),
    }
    h.update(json.dumps(settings, sort_keys=True).encode())
    return h.hexdigest()


def _build_predictor(
    args: argparse.Namespace, X: Any, y: Any, classes: list[Any]
) -> tuple[Any, dict[str, Any]]:
    """Fit the mechanism on the encoded rows (norm <= 1); nothing is released."""
    from ..prediction import PrivateInteractivePredictor

    delta = args.delta
    if delta is None:
        if args.mechanism == "pinp":
            from ._main import UsageError

            raise UsageError(
                "--mechanism pinp is (epsilon, delta)-DP: give the total --delta "
                "(e.g. 1e-6, well below 1/number of training rows)"
            )
        delta = 0.0
    predictor = PrivateInteractivePredictor(
        mechanism=args.mechanism,
        epsilon=args.epsilon,
        delta=delta,
        n_queries=args.max_queries,
        kernel=args.kernel,
        gamma=args.gamma,
        regularization=args.regularization,
        data_norm=1.0,
        classes=classes,
    )
    predictor.fit(X, y)
    details = {
        **_answer_options(args),
        "data_norm": 1.0,
        "noise_scale": float(predictor.noise_scale_),
    }
    if args.mechanism != "laplace":
        details["max_updates"] = int(predictor.max_updates_)
        details["threshold"] = float(predictor.threshold_)
    return predictor, details


def _schema_inputs(schema: Any, encode: Any) -> Any:
    """The raw columns of a public schema as query inputs, encoded by ``encode``."""
    from ..preprocessing import CategoricalFeature
    from ..serving import InputSpec

    return InputSpec(
        list(schema.columns),
        [isinstance(f, CategoricalFeature) for f in schema.features],
        encode,
    )


def _served_from_data(args: argparse.Namespace) -> Any:
    import pandas as pd

    from ..preprocessing import PublicSchema, SchemaTransformer
    from ..serving import ServedModel

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
    predictor, details = _build_predictor(args, X, y, classes)
    return ServedModel(
        name=args.name,
        predictor=predictor,
        inputs=_schema_inputs(schema, transformer.transform),
        classes=classes,
        mechanism=args.mechanism,
        free=False,
        fingerprint=_fingerprint(args, schema.to_json()),
        details=details,
    )


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
        fingerprint=_fingerprint(args, None),
        details={"estimator": type(model).__name__},
    )


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
    import sqlalchemy

    # Answers are serialised and their matrices small: multi-threaded BLAS only
    # adds thread hand-offs (tens of ms on a busy machine). One thread each.
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=1)
    keys = ApiKeys.from_file(args.api_key_file)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if args.data is not None:
            served = _served_from_data(args)
        else:
            served = _served_from_model(args)
    for w in caught:  # now, not when the server stops
        err.write(f"dpsvm: warning: {' '.join(str(w.message).split())}\n")
    err.flush()
    predictor = served.predictor
    ledger = Ledger(
        args.ledger if args.ledger is not None else "sqlite://",
        fingerprint=served.fingerprint,
        model_name=served.name,
        mechanism=served.mechanism,
        epsilon_total=predictor.total_epsilon,
        delta_total=predictor.total_delta,
        sqlite_synchronous=args.ledger_sync.upper(),
    )
    try:
        app = create_app(served, ledger, keys, max_batch=args.max_batch)
    except sqlalchemy.exc.SQLAlchemyError as exc:
        where = sqlalchemy.engine.make_url(ledger.url).render_as_string(
            hide_password=True
        )
        raise _ServeError(
            f"--ledger {where}: cannot use the database "
            f"({type(getattr(exc, 'orig', None) or exc).__name__})"
        ) from None
    state = ledger.snapshot()
    if served.free:
        budget = (
            f"a released model (epsilon = {ledger.epsilon_total:g}, delta = "
            f"{ledger.delta_total:g}, spent at training): answers are free "
            "post-processing"
        )
    else:
        budget = (
            f"budget epsilon = {ledger.epsilon_total:g}, delta = "
            f"{ledger.delta_total:g}; spent epsilon = {state.epsilon_spent:g} on "
            f"{state.answers} answers"
        )
    out.write(
        f"dpsvm: serving {served.name!r} ({served.mechanism}) on "
        f"http://{args.host}:{args.port}/v2/models/{served.name} — {budget}\n"
    )
    out.flush()
    config = uvicorn.Config(
        app, host=args.host, port=args.port, log_level="warning", access_log=False
    )
    server = uvicorn.Server(config)
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
    return 0
