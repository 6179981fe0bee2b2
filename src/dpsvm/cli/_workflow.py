# SPDX-License-Identifier: BSD-3-Clause
"""The workflow pieces of ``dpsvm``: ``--tune``, ``--holdout``, ``report``, ``sweep``.

* ``train --tune``: private selection of Λ over the public grid
  :func:`tune_grid` (multiples of the a-priori Λ) with
  :class:`dpsvm.model_selection.PrivateSelectThenFit` (selection on a tenth
  of the rows, final fit on the rest: one ε end to end).
* ``train --holdout F``: a random share F of the rows is kept out of training
  and the model's accuracy on it is printed **with a warning**: it is computed
  exactly from private rows and is not differentially private (see
  :func:`holdout_warning` for why it is printed rather than released noisily).
* ``report MODEL``: a readable privacy report of a saved model
  (:func:`render_report`).
* ``sweep``: accuracy against ε on a held-out split next to a non-private
  baseline, as a CSV table and a PNG plot.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import io
import math
import sys
import textwrap
import threading
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, TextIO

import numpy as np

from ..accounting.events import NonPrivateEvent

__all__ = [
    "ABSURD_EPSILON",
    "TUNE_GRID",
    "TUNE_MULTIPLIERS",
    "TUNE_SELECTION_FRACTION",
    "WEIGHTED_TUNE_MULTIPLIERS",
    "holdout_split",
    "holdout_warning",
    "privacy_parameter_warnings",
    "progress",
    "render_report",
    "unused_delta_line",
]

#: The public grid of Λ that ``--tune`` selects from for a non-linear
#: ``--kernel`` (fixed in the code, never derived from the data): half-decade
#: steps around 0.01, where the utility bound of Chaudhuri, Monteleoni &
#: Sarwate (JMLR 2011, Thm 18: excess risk of order 1/(nΛε) + Λ‖w*‖²) puts
#: the best Λ for n ~ 10⁴-10⁵ and ε ~ 0.5-2.
TUNE_GRID = (1e-3, 3e-3, 1e-2, 3e-2)

#: The public multipliers of the a-priori Λ that ``--tune`` selects from: the
#: grid is ``TUNE_MULTIPLIERS`` × the estimator's ``regularization="auto"``
#: value for the final fit's rows (:func:`tune_grid`), a function of the public
#: n, ε and number of classes only, fixed before the data are read. The
#: noise-matched transfer of :class:`~dpsvm.model_selection.PrivateSelectThenFit`
#: keeps each candidate's multiple of the a-priori value inside the selection,
#: whose small parts (a few hundred to a few thousand rows) favour larger
#: multiples than the final fit needs (their sampling error is larger, their
#: noise-to-regularisation ratio the same), so the grid stops at the a-priori
#: value; on Adult the best Λ lies between ½ and 1 × it (docs/cli.md).
TUNE_MULTIPLIERS = (0.5, 1.0)

#: The multipliers of ``--tune --metric weighted-error``: two orders of
#: magnitude below the a-priori Λ. On an imbalanced problem regularisation
#: shrinks the model towards its intercept, i.e. towards always answering the
#: majority class (on Adult with 6 % positives, ½ and 1 × the a-priori Λ give
#: balanced accuracy 0.50-0.51, 1/64 × it 0.55-0.60); the weighted error can
#: tell those candidates apart, so the grid reaches down to them. Public.
WEIGHTED_TUNE_MULTIPLIERS = (1 / 64, 1 / 16, 1 / 4, 1.0)

#: The share of the rows ``--tune`` spends on the selection (the final fit
#: reads the rest): a tenth, so that the final fit loses little against the
#: untuned default that reads every row.
TUNE_SELECTION_FRACTION = 0.1

#: Above this ε the guarantee e^ε bounds a likelihood ratio beyond 10²¹: it no
#: longer limits what an observer learns about one record.
ABSURD_EPSILON = 50.0


# ---------------------------------------------------------------- warnings
def privacy_parameter_warnings(
    epsilon: float, delta: float, n_rows: int, *, delta_used: bool = True
) -> list[str]:
    """Plain-language warnings about a meaningless ε or δ.

    ``n_rows`` is the number of training rows: it is compared with 1/δ here
    and never printed (the messages do not depend on it beyond the test). A δ
    of at least 1/n is warned about whether or not the mechanism uses it
    (docs/cli.md): a user who passes one believes it is spent.

    Parameters
    ----------
    epsilon : float
        The ε requested.
    delta : float
        The δ requested (the larger of the requested and the spent δ).
    n_rows : int
        Number of training rows (private; only compared, never quoted).
    delta_used : bool, default=True
        Whether the mechanism spends δ (``False``: a pure ε-DP mechanism, the
        warning then says that δ is not used but would be meaningless).

    Returns
    -------
    list of str
        The warnings, possibly empty.

    Examples
    --------
    >>> privacy_parameter_warnings(1.0, 0.0, 1000)
    []
    >>> len(privacy_parameter_warnings(100.0, 0.0, 1000))
    1
    """
    notes = []
    if epsilon > ABSURD_EPSILON:
        notes.append(
            f"--epsilon {epsilon:g} is so large that the guarantee is meaningless: "
            f"it lets the output be up to e^{epsilon:g} times more likely with one "
            "person's record than without it, which does not limit what can be "
            "learnt about that person. Use --epsilon of about 0.1 to 10"
        )
    if delta > 0 and delta * n_rows >= 1:
        if delta_used:
            notes.append(
                f"--delta {delta:g} is at least 1 / (number of training rows): a "
                "mechanism may then publish a whole record with probability δ per "
                "record and still meet the definition, so the guarantee is "
                "meaningless. Use a --delta much smaller than 1 / (number of rows)"
            )
        else:
            notes.append(
                f"--delta {delta:g} is at least 1 / (number of training rows): a "
                "mechanism that used it could publish a whole record with "
                "probability δ per record and still meet the definition. This "
                "mechanism does not use δ; leave out --delta, or give one much "
                "smaller than 1 / (number of rows)"
            )
    return notes


def unused_delta_line(requested: Any, spent: float, mechanism: str) -> str | None:
    """The one line saying that a requested δ is not used, or ``None``.

    Parameters
    ----------
    requested : float or str
        The ``--delta`` given (a non-number, such as a rule name, is left alone).
    spent : float
        The δ of the release's privacy event.
    mechanism : str
        The ``--mechanism`` option.

    Returns
    -------
    str or None
        ``"δ is not used: ..."`` when δ > 0 was given and the release spends
        δ = 0 (a pure ε-DP mechanism), else ``None``.

    Examples
    --------
    >>> unused_delta_line(0.01, 0.0, "objective")[:16]
    'δ is not used: -'
    >>> unused_delta_line(0.0, 0.0, "objective") is None
    True
    """
    if not isinstance(requested, int | float) or not requested > 0 or spent != 0:
        return None
    return (
        f"δ is not used: --mechanism {mechanism} is ε-DP (pure), so the model "
        f"spends δ = 0 and --delta {requested:g} has no effect"
    )


def holdout_warning() -> str:
    """The warning printed beside a held-out accuracy.

    The held-out accuracy is printed exactly, with this warning, rather than
    released through a noisy count. The person running ``dpsvm train`` holds
    the raw data already, so showing them a statistic of it discloses nothing
    to anyone else; what is released (the model file and the report) never
    contains it. A noisy count would cost part of ε that the model needs more
    and would still be misread as "the" accuracy.

    Returns
    -------
    str
        The warning text.

    Examples
    --------
    >>> "NOT differentially private" in holdout_warning()
    True
    """
    return (
        "the held-out accuracy is computed exactly from private rows and is NOT "
        "differentially private: use it to judge the model, do not publish it "
        "(it is not written to the model file or the report)"
    )


# ---------------------------------------------------------------- progress
def _progress_enabled(quiet: bool, stream: TextIO | None = None) -> bool:
    stream = sys.stderr if stream is None else stream
    isatty = getattr(stream, "isatty", None)
    return not quiet and callable(isatty) and bool(isatty())


def progress(
    items: Iterable[Any], *, total: int, desc: str, quiet: bool
) -> Iterator[Any]:
    """Iterate over ``items`` with a tqdm progress bar on standard error.

    The bar is shown only when standard error is a terminal and ``quiet`` is
    false.

    Parameters
    ----------
    items : iterable
        What to iterate over.
    total : int
        Number of items.
    desc : str
        Label of the bar.
    quiet : bool
        ``--quiet``: never show the bar.

    Yields
    ------
    object
        The items, unchanged.

    Examples
    --------
    >>> list(progress([1, 2], total=2, desc="demo", quiet=True))
    [1, 2]
    """
    from tqdm import tqdm

    yield from tqdm(
        items,
        total=total,
        desc=desc,
        disable=not _progress_enabled(quiet),
        file=sys.stderr,
        leave=False,
    )


@contextlib.contextmanager
def busy(desc: str, *, quiet: bool) -> Iterator[None]:
    """Show a tqdm timer while a step of unknown length runs (e.g. ``--tune``).

    Parameters
    ----------
    desc : str
        Label of the timer.
    quiet : bool
        ``--quiet``: show nothing.

    Yields
    ------
    None
        Nothing; the timer stops when the block ends.
    """
    if not _progress_enabled(quiet):
        yield
        return
    from tqdm import tqdm

    bar = tqdm(total=None, desc=desc, file=sys.stderr, leave=False, unit="")
    stop = threading.Event()

    def tick() -> None:
        while not stop.wait(0.5):
            bar.refresh()

    thread = threading.Thread(target=tick, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
        bar.close()


# ----------------------------------------------------------------- holdout
def holdout_split(
    n_rows: int, fraction: float, random_state: int | None
) -> tuple[np.ndarray, np.ndarray]:
    """A random split of ``range(n_rows)`` into training and held-out indices.

    The split reads no record (only the row count), so a seed is allowed; the
    OS entropy is used without ``--random-state``.

    Parameters
    ----------
    n_rows : int
        Number of rows.
    fraction : float
        Share of held-out rows, in (0, 1).
    random_state : int or None
        Seed of the split.

    Returns
    -------
    train, held_out : ndarray
        Index arrays.

    Raises
    ------
    ValueError
        If either part would be empty.

    Examples
    --------
    >>> tr, te = holdout_split(10, 0.3, 0)
    >>> len(tr), len(te), sorted(np.concatenate([tr, te]).tolist()) == list(range(10))
    (7, 3, True)
    """
    n_out = math.ceil(fraction * n_rows)
    if not 1 <= n_out < n_rows:
        raise ValueError(
            f"--holdout {fraction:g} leaves no rows to train on or none to hold "
            "out; use a --holdout between 0.1 and 0.5 on a larger file"
        )
    perm = np.random.default_rng(random_state).permutation(n_rows)
    return np.sort(perm[n_out:]), np.sort(perm[:n_out])


def tune_grid(
    estimator: Any, n_rows: int, multipliers: tuple[float, ...] = TUNE_MULTIPLIERS
) -> list[float]:
    """The public grid of Λ that ``--tune`` selects from.

    For a linear model, :data:`TUNE_MULTIPLIERS` × the Λ that
    ``regularization="auto"`` gives the final fit (its n_F = n − ⌈n/10⌉ rows,
    ε, the number of one-vs-rest problems and the data-norm bound R;
    Chaudhuri, Monteleoni & Sarwate, JMLR 2011, Algorithm 2 and Theorem 18:
    λ ∝ 1/(nε)). Only public quantities enter: n (public under replace-one
    neighbours), ε, the public label set and R.
    A kernel model, whose feature bound R is set inside its fit, gets the
    fixed :data:`TUNE_GRID`.

    Parameters
    ----------
    estimator : estimator
        The private estimator (``classes`` and ``data_norm`` set).
    n_rows : int
        Number of training rows.
    multipliers : tuple of float, default=TUNE_MULTIPLIERS
        The multiples of the a-priori Λ (:data:`WEIGHTED_TUNE_MULTIPLIERS` for
        ``--metric weighted-error``).

    Returns
    -------
    list of float
        The candidate values of Λ, increasing.

    Examples
    --------
    >>> from dpsvm.models import DPLinearSVC
    >>> grid = tune_grid(DPLinearSVC(epsilon=1.0, classes=[0, 1]), 40000)
    >>> [round(g / grid[-1], 2) for g in grid]
    [0.5, 1.0]
    """
    from sklearn.base import clone

    from ..models import DPKernelSVC

    if isinstance(estimator, DPKernelSVC):
        return list(TUNE_GRID)
    n_final = n_rows - math.ceil(TUNE_SELECTION_FRACTION * n_rows)
    auto = clone(estimator).set_params(regularization="auto")
    classes = getattr(estimator, "classes", None)
    k = len(classes) if classes is not None and len(classes) > 2 else 1
    R = float(getattr(estimator, "data_norm", None) or 1.0)
    base = auto._resolve_regularization(max(n_final, 1), R, k)
    return [m * base for m in multipliers]


def tuned(
    estimator: Any,
    epsilon: float,
    random_state: int | None,
    n_rows: int,
    *,
    scoring: str = "accuracy",
    class_priors: Any = None,
) -> Any:
    """``estimator`` wrapped in private selection of Λ over :func:`tune_grid`.

    Parameters
    ----------
    estimator : estimator
        The private estimator with the full ε.
    epsilon : float
        The end-to-end ε.
    random_state : int or None
        ``--random-state`` (tests only).
    n_rows : int
        Number of training rows (public under replace-one neighbours).
    scoring : {"accuracy", "weighted-error"}, default="accuracy"
        ``--metric``: the selector's score.
    class_priors : dict or None, default=None
        Public class priors of ``"weighted-error"``.

    Returns
    -------
    PrivateSelectThenFit
        The unfitted selector.
    """
    from ..model_selection import PrivateSelectThenFit

    multipliers = (
        WEIGHTED_TUNE_MULTIPLIERS if scoring == "weighted-error" else TUNE_MULTIPLIERS
    )
    return PrivateSelectThenFit(
        estimator,
        {"regularization": tune_grid(estimator, n_rows, multipliers)},
        epsilon=epsilon,
        selection_fraction=TUNE_SELECTION_FRACTION,
        scoring=scoring,
        class_priors=class_priors,
        random_state=random_state,
    )


# ------------------------------------------------------------------ report
def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return "∞" if math.isinf(value) else f"{value:.6g}"
    return str(value)


def _guarantee(epsilon: float, delta: float) -> str:
    if not math.isfinite(epsilon) or delta >= 1:
        return "NOT differentially private (ε = ∞)"
    if delta == 0:
        return f"ε-differential privacy with ε = {_fmt(epsilon)} (pure DP, δ = 0)"
    return f"(ε, δ)-differential privacy with ε = {_fmt(epsilon)}, δ = {_fmt(delta)}"


_PROTECTED = {
    "replace-one": "one training record: all its feature values and its label. "
    "Neighbouring data sets have the same size and differ by replacing one "
    "record with any other (replace-one).",
    "replace-one-label": "the label of one training record only (label DP): "
    "neighbouring data sets differ in one record's label; the feature values "
    "are treated as public (replace-one-label).",
}

#: Details keys that are public bounds the guarantee depends on.
_BOUND_KEYS = (
    ("data_norm", "row norm bound R (rows longer than R are projected)"),
    ("regularization", "regularisation Λ (every release; the final model's last)"),
    ("loss", "loss"),
    ("huber_h", "Huber half-width"),
    ("feature_norm_bound", "random-feature norm bound"),
    ("gamma", "kernel width γ"),
    ("n_components", "random frequencies"),
)

#: Details keys of the certified solver residual charge.
_RESIDUAL_KEYS = ("certified_residual", "epsilon_residual", "residual_noise_scale")


def _walk(event: Any, depth: int = 0) -> Iterator[tuple[int, Any]]:
    yield depth, event
    for child in event.children:
        yield from _walk(child, depth + 1)


def _same(a: Any, b: Any) -> bool:
    # Same kind of release (e.g. the candidates of a selection, the classes of
    # one-vs-rest); their noise scales may differ and are not shown twice.
    def key(e: Any) -> tuple[Any, ...]:
        return (e.mechanism, e.epsilon, e.delta, e.reference, len(e.children))

    return key(a) == key(b)


def _walk_grouped(event: Any, depth: int = 0) -> Iterator[tuple[int, Any, int]]:
    """Like :func:`_walk`, with runs of identical children shown once (× count)."""
    yield depth, event, 1
    children = list(event.children)
    i = 0
    while i < len(children):
        j = i + 1
        while j < len(children) and _same(children[i], children[j]):
            j += 1
        for d, e, count in _walk_grouped(children[i], depth + 1):
            yield d, e, count * (j - i) if d == depth + 1 else count
        i = j


def render_report(model: Any, source: str) -> str:
    """A readable privacy report of a fitted, saved model.

    Written against :class:`~dpsvm.accounting.PrivacyEvent`'s fields
    (mechanism, ε, δ, details, children, reference, neighbouring); an event
    with ε = ∞ is reported as not differentially private.

    Parameters
    ----------
    model : estimator
        A model read by :func:`dpsvm.io.load_model`.
    source : str
        The model file's name (shown in the title).

    Returns
    -------
    str
        The report, several lines of plain text.
    """
    # A tuned model: the selection's event holds the final fit's as its last
    # child, so the whole procedure is reported.
    event = getattr(model, "selection_event_", None) or getattr(
        model, "privacy_event_", None
    )
    out = io.StringIO()
    w = out.write
    title = f"Privacy report: {source}"
    w(f"{title}\n{'=' * len(title)}\n\n")
    from ._metrics import declared_classes

    # In the declared order (the schema's label.classes), not sorted.
    classes = [str(c) for c in declared_classes(model)]
    w(f"Model: {type(model).__name__}, classes {', '.join(classes)}\n")
    if event is None:
        w("\nGuarantee: NOT differentially private (the model has no privacy record)\n")
        return out.getvalue()
    w(f"Guarantee: {_guarantee(event.epsilon, event.delta)}\n\n")
    w("What is protected\n-----------------\n")
    if isinstance(event, NonPrivateEvent):
        w(
            "nothing is guaranteed: a step below is not differentially private. "
            f"It was designed for the {event.neighbouring} relation.\n\n"
        )
    else:
        w(_PROTECTED.get(event.neighbouring, event.neighbouring) + "\n\n")

    w("Mechanisms\n----------\n")
    for depth, e, count in _walk_grouped(event):
        pad = "  " * depth
        times = f"{count} × " if count > 1 else ""
        w(f"{pad}- {times}{e.mechanism}: {_guarantee(e.epsilon, e.delta)}\n")
        if e.reference:
            w(f"{pad}  reference: {e.reference}\n")
        k = e.details.get("n_classes")
        if k is not None and e.children:
            w(
                f"{pad}  one-vs-rest over {k} classes: the budget is split evenly, "
                f"ε/{k} = {_fmt(e.epsilon / k)} per class, composed sequentially\n"
            )
        if e.mechanism == "private-select-then-fit":
            w(
                f"{pad}  Λ chosen privately from the public grid; selection and "
                "final fit read disjoint rows (parallel composition: one ε)\n"
            )
        residual = {key: e.details[key] for key in _RESIDUAL_KEYS if key in e.details}
        if residual:
            parts = ", ".join(f"{key} = {_fmt(v)}" for key, v in residual.items())
            w(f"{pad}  certified solver residual charged: {parts}\n")
    w("\nPublic bounds used\n------------------\n")
    w(f"- label set (classes): {', '.join(classes)}")
    label_from_data = any("label_set" in e.details for _, e in _walk(event))
    w(" -- READ FROM THE DATA, not covered\n" if label_from_data else "\n")
    for key, text in _BOUND_KEYS:
        values: list[str] = []
        for _, e in _walk(event):
            if key in e.details and _fmt(e.details[key]) not in values:
                values.append(_fmt(e.details[key]))
        if values:
            w(f"- {text}: {', '.join(values)}\n")
    schema = getattr(model, "public_schema_", None)
    if schema is not None:
        w(_schema_lines(schema))
    w("\nNon-private steps\n-----------------\n")
    leaks = [
        e.mechanism + (f": {e.reason}" if getattr(e, "reason", None) else "")
        for _, e in _walk(event)
        if isinstance(e, NonPrivateEvent)
    ]
    if label_from_data:
        leaks.append("the label set was read from the training data")
    w("".join(f"- {x}\n" for x in leaks) if leaks else "none recorded\n")
    return _wrap(out.getvalue())


def _wrap(text: str, width: int = 88) -> str:
    """Wrap long lines, continuing them under their own indentation."""
    lines = []
    for line in text.splitlines():
        body = line.lstrip(" ")
        indent = " " * (len(line) - len(body))
        more = indent + ("  " if body.startswith("- ") else "")
        lines.append(
            textwrap.fill(
                body,
                width=width,
                initial_indent=indent,
                subsequent_indent=more,
                break_on_hyphens=False,
            )
            if len(line) > width
            else line
        )
    return "\n".join(lines) + "\n"


def _schema_lines(schema: Any) -> str:
    from ..preprocessing import NumericFeature

    lines = [f"- public schema: label column {schema.label.column!r}\n"]
    for f in schema.features:
        if isinstance(f, NumericFeature):
            lines.append(f"  - {f.column}: numeric range [{f.lower:g}, {f.upper:g}]\n")
        else:
            n = len(f.categories)
            lines.append(
                f"  - {f.column}: {n} declared categor{'y' if n == 1 else 'ies'}\n"
            )
    lines.append(
        f"  - encoded row norm bound √(features) = {schema.row_norm_bound:.6g}\n"
    )
    return "".join(lines)


# ------------------------------------------------------------------- sweep
SWEEP_COLUMNS = (
    "epsilon",
    "seeds",
    "accuracy_mean",
    "accuracy_sd",
    "nonprivate_accuracy",
)


def sweep_table(rows: Sequence[dict[str, Any]]) -> str:
    """The sweep's CSV text: :data:`SWEEP_COLUMNS`, then the rows' other keys.

    Parameters
    ----------
    rows : sequence of dict
        One mapping per ε with the keys of :data:`SWEEP_COLUMNS` first (the
        further columns of ``dpsvm.cli._metrics.sweep_rows`` follow in their
        order; ``None`` is written as an empty cell).

    Returns
    -------
    str
        CSV text.

    Examples
    --------
    >>> print(sweep_table([dict(epsilon=1.0, seeds=2, accuracy_mean=0.8,
    ...                         accuracy_sd=0.01, nonprivate_accuracy=0.85)]), end="")
    epsilon,seeds,accuracy_mean,accuracy_sd,nonprivate_accuracy
    1,2,0.8,0.01,0.85
    """
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    columns = list(SWEEP_COLUMNS)
    if rows:
        columns += [c for c in rows[0] if c not in SWEEP_COLUMNS]
    writer.writerow(columns)
    for row in rows:
        writer.writerow([_csv_value(row[c]) for c in columns])
    return buf.getvalue()


def _csv_value(v: Any) -> str:
    if v is None:
        return ""
    return f"{v:.6g}" if isinstance(v, float) else str(v)


def import_pyplot() -> Any:
    """Matplotlib's pyplot on the Agg backend, or a clear error without it.

    Returns
    -------
    module
        ``matplotlib.pyplot``.

    Raises
    ------
    ImportError
        Naming the ``plot`` extra to install.
    """
    try:
        import matplotlib
    except ImportError:
        raise ImportError(
            "--out-png needs matplotlib: pip install 'dpsvm[plot]' (or leave out "
            "--out-png)"
        ) from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def sweep_png(rows: Sequence[dict[str, Any]], title: str) -> bytes:
    """The accuracy-vs-ε plot as PNG bytes.

    Two panels: the held-out accuracy beside the non-private baseline's and the
    majority-class rate (always answering the most frequent class), and, when
    the rows have it, the balanced accuracy beside the baseline's and chance
    (1/K, the balanced accuracy of any constant answer).

    Parameters
    ----------
    rows : sequence of dict
        The sweep's rows (see :func:`sweep_table`; ``majority_rate`` and the
        balanced-accuracy columns are drawn when present).
    title : str
        Plot title.

    Returns
    -------
    bytes
        A PNG image.
    """
    plt = import_pyplot()
    eps = np.array([r["epsilon"] for r in rows])
    panels = [("accuracy", "held-out accuracy")]
    if "balanced_accuracy_mean" in rows[0]:
        panels.append(("balanced_accuracy", "held-out balanced accuracy"))
    n_classes = sum(1 for key in rows[0] if key.startswith("f1_mean["))
    fig, axes = plt.subplots(
        1, len(panels), figsize=(5.5 * len(panels), 5.0), dpi=120, squeeze=False
    )
    try:
        for ax, (key, label) in zip(axes[0], panels, strict=True):
            ax.errorbar(
                eps,
                np.array([r[f"{key}_mean"] for r in rows]),
                yerr=np.array([r[f"{key}_sd"] for r in rows]),
                marker="o",
                capsize=3,
                label=f"private model (mean ± sd, {rows[0]['seeds']} seeds)",
            )
            ax.axhline(
                rows[0][f"nonprivate_{key}"],
                color="grey",
                linestyle="--",
                label="non-private (LogisticRegression)",
            )
            if key == "accuracy" and "majority_rate" in rows[0]:
                ax.axhline(
                    rows[0]["majority_rate"],
                    color="tab:red",
                    linestyle=":",
                    label="majority class (always the most frequent)",
                )
            elif key == "balanced_accuracy" and n_classes:
                ax.axhline(
                    1 / n_classes,
                    color="tab:red",
                    linestyle=":",
                    label=f"chance (any constant answer, 1/{n_classes})",
                )
            ax.set_xscale("log")
            ax.set_xticks(eps, [f"{e:g}" for e in eps])
            ax.minorticks_off()
            ax.set_xlabel("ε (privacy budget; smaller is more private)")
            ax.set_ylabel(label)
            ax.grid(True, alpha=0.3)
            # Below the axes: never over a line or a point.
            ax.legend(
                loc="upper center",
                bbox_to_anchor=(0.5, -0.17),
                fontsize="small",
                frameon=False,
            )
        fig.suptitle(title + " (held-out figures: NOT differentially private)")
        fig.tight_layout()
        buf = io.BytesIO()
        fig.savefig(buf, format="png")
    finally:
        plt.close(fig)
    return buf.getvalue()


def add_report_subparser(sub: Any) -> None:
    """Add ``dpsvm report``.

    Parameters
    ----------
    sub : argparse subparsers action
        The ``dpsvm`` subparsers.
    """
    report = sub.add_parser(
        "report",
        help="print a readable privacy report of a saved model",
        description="Print what a saved model's privacy guarantee covers: what "
        "was protected, ε and δ, each mechanism with its paper and theorem, the "
        "neighbouring relation, the public bounds used and any non-private step.",
    )
    report.add_argument("model", metavar="MODEL.json", help="a model file")


def add_holdout_options(p: argparse.ArgumentParser, *, default: float | None) -> None:
    """``--holdout`` and ``--quiet``.

    Parameters
    ----------
    p : argparse.ArgumentParser
        The (sub)parser.
    default : float or None
        Default of ``--holdout``.
    """

    def fraction(text: str) -> float:
        try:
            v = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"--holdout must be a number, got {text!r}"
            ) from None
        if not 0 < v < 1:
            raise argparse.ArgumentTypeError(
                f"--holdout is the share of rows held out, in (0, 1) such as 0.2; "
                f"got {text}"
            )
        return v

    p.add_argument(
        "--holdout",
        type=fraction,
        default=default,
        metavar="FRACTION",
        help="keep a random share of the rows out of training and print the "
        "model's accuracy on them (exact, NOT differentially private)"
        + ("" if default is None else f" (default {default:g})"),
    )
    p.add_argument(
        "--quiet",
        action="store_true",
        help="no progress bar (it is shown only when stderr is a terminal)",
    )
