# SPDX-License-Identifier: BSD-3-Clause
"""Saving and loading fitted models as plain, non-executable JSON.

dpsvm never pickles models. A pickle runs code when it is loaded, so a model file
received from someone else would be a program; and a pickle of an estimator carries
everything the object holds, including diagnostics that read the private data
(``solver_info_``). The format below holds only the released numbers and the
public parameters, and :func:`load_model` checks every field before it builds an
estimator.

Which estimators
----------------

This module knows no estimator class. An estimator class opts in with the
decorator :func:`dpsvm.models.base.model_file`, which registers it under a
stable name (the ``estimator`` key), and declares its own state:

* ``_saved_attributes``: a tuple of :class:`dpsvm.models.base.SavedAttribute`
  ``(key, attribute, kind, shape)``, the keys of the file's ``state``. Kinds:
  ``"labels"`` (a label list, with a ``label_type`` key beside it),
  ``"count"`` (an integer ≥ 1), ``"positive"`` (a finite number > 0),
  ``"array"`` (finite numbers of a shape whose dimensions name a count key or
  ``n_outputs``: 1 for two labels, else one per label) and ``"custom"``;
* ``_state_to_dict(codec)`` / ``_state_from_dict(state, codec)``: hooks that
  write and read the ``"custom"`` keys (nested objects such as a random-feature
  map) and check the state against the parameters, with the helpers of
  :class:`StateCodec`;
* ``_check_saved_event(event)`` (private estimators only): raises
  :class:`ValueError` unless the stored privacy event is the one ``fit``
  records for the stored parameters. Its presence means the file must carry a
  ``privacy_event``; without it, ``privacy_event`` must be ``null``.

Registered today: :class:`~dpsvm.models.DPLinearSVC`,
:class:`~dpsvm.models.DPLogisticRegression`,
:class:`~dpsvm.models.NonPrivateLinearClassifier` (linear state, below),
:class:`~dpsvm.models.DPKernelSVC` and
:class:`~dpsvm.models.NonPrivateRandomFeatureSVC` (random-feature state),
:class:`~dpsvm.models.DPOutputPerturbationSVC` and
:class:`~dpsvm.models.DPOutputPerturbationRegressor` (explicit-feature state,
``feature_map=None`` only).
A subclass of a registered class is not registered: :func:`save_model` refuses
it, since a file names exactly one class.

A model file is not a security boundary
---------------------------------------

Anyone can write a model file: nothing in it is signed, so a file proves
neither who trained the model nor that its privacy claim is true. Keep files
whose origin matters under your own access control (or sign them outside
dpsvm). What loading checks is that the file is internally consistent, which
catches accidental edits, truncation and version skew between writer and
reader, not forgery:

* every key, type and shape (below);
* the privacy event against the parameters it was computed from, by the
  estimator's ``_check_saved_event``: its type (a non-private mode such as
  ``mechanism="objective-2009"`` or ``norm_handling="paper"`` must carry a
  non-private event, and a private one a pure event), the mechanism, ε (per
  class under one-vs-rest), Λ, the row-norm bound, the loss, and the noise
  calibration (ε′, noise scale, extra regularisation, certificate cap,
  sensitivity), recomputed from the stored parameters and the event's n
  through the same calibration functions the estimators use when fitting. A
  file whose event disagrees is refused with a message naming the first field
  that differs.

Model file format (``format_version`` 2)
----------------------------------------

A UTF-8 JSON object (no ``NaN``/``Infinity`` tokens, no duplicate keys) with
exactly these keys:

``format``
    The string ``"dpsvm-model"``.
``format_version``
    The integer ``2`` (``1`` is read too, see below; other versions are refused).
``dpsvm_version``
    The dpsvm version that wrote the file (a string, informative only).
``estimator``
    The registered name of the class, e.g. ``"DPLinearSVC"``.
``params``
    The estimator's public parameters (``get_params()``) except ``accountant``,
    every ``*random_state`` and those the class lists in ``_unsaved_params``,
    which are not properties of the released model (an accountant is a live
    object; a noise seed must never be published; the frequencies that a
    feature seed draws are written themselves). Every other parameter of the
    class must be present and no other. Values are JSON scalars, except
    ``classes``: ``null`` or a list of labels of ``state.label_type`` whose
    sorted set must be ``state.classes``.
``state``
    The fitted state the class declares (below).
``privacy_event``
    ``privacy_event_.to_dict()`` for the private estimators (``type``,
    ``mechanism``, ``epsilon``, ``delta``, ``sensitivity``, ``sensitivity_norm``,
    ``neighbouring``, ``reference``, ``details``, ``children``, and ``reason``
    for a non-private event; an infinite number is written as the string
    ``"inf"``), ``null`` for the non-private estimators. ``type`` is
    ``"pure"``, ``"approximate"`` or ``"non-private"`` (a paper-literal mode
    such as ``mechanism="objective-2009"``: ε = ∞, the nominal ε in
    ``details.nominal_epsilon``) and is read back as
    :class:`~dpsvm.accounting.PureDpEvent`,
    :class:`~dpsvm.accounting.ApproximateDpEvent` or
    :class:`~dpsvm.accounting.NonPrivateEvent`; ``type`` and ``reason`` are
    optional (files written before events were typed lack them, and the type
    then follows from ε and δ).

and optionally ``feature_names_in`` (a list of ``n_features_in`` strings, written
when the model was fitted on a data frame; ``predict`` and ``evaluate`` of the
command line then match a CSV file's columns by these names), ``schema`` (the
public schema the rows were encoded by, the JSON object of
:class:`dpsvm.preprocessing.PublicSchema`; written when the estimator has a
``public_schema_`` attribute, as ``dpsvm train --schema`` sets, and restored as
``public_schema_``; ``feature_names_in`` must then be the schema's encoded
feature names and ``state.classes`` its label classes) and ``selection_event``
(the event of a private selection that chose the parameters, e.g.
:class:`dpsvm.model_selection.PrivateSelectThenFit`'s, as ``dpsvm train
--tune`` sets through a ``selection_event_`` attribute; its last child must be
``privacy_event``, the final fit, and it is restored as ``selection_event_``).

Linear state
~~~~~~~~~~~~

``label_type``
    How the labels are typed: ``"int"``, ``"float"``, ``"str"`` or ``"bool"``.
    numpy labels are written as the matching Python values and read back as
    ``int64``, ``float64``, ``str`` or ``bool`` arrays.
``classes``
    ``classes_`` in the estimator's order (distinct, at least 2 labels; the
    second label is the positive class of a binary model).
``coef``
    ``coef_`` as a list of rows: 1 row for two classes, one row per class
    otherwise; each row has ``n_features_in`` finite numbers.
``intercept``
    ``intercept_``, one finite number per row of ``coef`` (all zero when
    ``params.fit_intercept`` is false).
``data_norm``
    ``data_norm_``, the row-norm bound R > 0 that prediction projects onto.
``n_features_in``
    The number of features, an integer ≥ 1.

Random-feature state
~~~~~~~~~~~~~~~~~~~~

The prediction is f(x) = ⟨coef, z(x)⟩ (no intercept) on the random Fourier
features z(x) rebuilt from the released frequencies (Rubinstein et al. 2012,
Algorithm 3; Sarwate, Chaudhuri & Monteleoni, arXiv:0912.0071, Algorithm 2).
The frequencies and phases are drawn independently of the data and are part of
the released model (Rubinstein et al. 2012, Corollary 9; Sarwate, Chaudhuri &
Monteleoni, Theorem 3). The keys are those of the linear state **without**
``intercept`` and **with** ``random_features``:

``coef``
    ``coef_``: 1 row for two classes, one row per class otherwise; each row has
    2·``n_components`` numbers for ``"cos-sin"``, ``n_components`` for
    ``"cos-phase"``.
``data_norm``
    ``data_norm_``, the feature-norm bound the noise was calibrated for: √2 for
    cos-phase features with ``norm_handling="bound"``, else 1.
``random_features``
    The public description of the feature map, an object with exactly the keys

    * ``kernel``, ``gamma``, ``n_components``, ``norm_handling`` — equal to the
      parameters of the same name;
    * ``feature_map`` — the map used, ``"cos-sin"`` (Rubinstein et al. 2012,
      eq. (4.1)) or ``"cos-phase"`` (Sarwate, Chaudhuri & Monteleoni,
      Algorithm 2); ``params.feature_map`` may be ``"auto"``, this is what it
      resolved to;
    * ``scale`` — the multiplier s of the features (``feature_scale_``):
      n_components^{−1/2}, or √(2/n_components) for cos-phase features with
      ``norm_handling`` ``"bound"``, ``"clip"`` or ``"paper"``;
    * ``feature_norm_bound`` — the true bound on ‖z(x)‖ (1 or √2);
    * ``projection_radius`` — the radius the features are projected onto
      before the inner product (``data_norm``), ``null`` only for cos-phase
      features with ``norm_handling="paper"`` (not private);
    * ``frequencies`` — ``frequencies_``, ``n_features_in`` rows of
      ``n_components`` finite numbers (column j is ωⱼ);
    * ``phases`` — ``phases_``, ``n_components`` finite numbers for cos-phase,
      ``null`` for cos-sin.

    The derived values (``feature_map``, ``scale``, ``feature_norm_bound``,
    ``projection_radius``, ``data_norm``) must agree with the parameters.

The polynomial feature map (:class:`~dpsvm.kernels.PolynomialFeatureMap`) is not
used by these estimators and has no file format.

Version 1
~~~~~~~~~

Version 1 wrote the same state keys at the top level, beside the envelope keys,
and had no ``state`` key. :func:`load_model` still reads it: every key that is
not an envelope key is taken as the state, and the same checks apply (error
messages then name the keys without the ``state.`` prefix). A loaded version-1
model predicts exactly as before; :func:`save_model` writes it as version 2.

Writing
-------

Floats are written by Python's ``repr`` (the shortest string that reads back to
the same double), so a loaded model's ``predict`` and ``decision_function`` equal
the original's exactly. Not written: ``solver_info_`` and ``n_iter_`` (solver
diagnostics that read the data), the accountant and the random states. A loaded
model can predict but has no accountant; refitting it spends a new budget.

Files are written atomically: the text goes to a temporary file in the
destination directory, which is flushed, ``fsync``-ed and renamed over the
destination with :func:`os.replace`; on any failure the temporary file is removed,
so a reader sees either the old file, the complete new one, or none. A model
whose text would exceed :data:`MAX_MODEL_BYTES` (the largest file
:func:`load_model` reads) is refused before anything is written.

Examples
--------
>>> import os, tempfile
>>> from dpsvm.datasets import make_nested_balls
>>> from dpsvm.models import DPKernelSVC, DPLinearSVC
>>> X, y = make_nested_balls(500, random_state=0)
>>> clf = DPLinearSVC(classes=[-1, 1], random_state=0).fit(X, y)
>>> path = os.path.join(tempfile.mkdtemp(), "model.json")
>>> save_model(clf, path)
>>> clone = load_model(path)
>>> bool((clone.decision_function(X) == clf.decision_function(X)).all())
True
>>> clone.privacy_event_.epsilon
1.0
>>> svc = DPKernelSVC(gamma=0.5, n_components=20, mechanism="rubinstein",
...                   classes=[-1, 1], random_state=0).fit(X, y)
>>> save_model(svc, path)
>>> kernel_clone = load_model(path)
>>> kernel_clone.frequencies_.shape, kernel_clone.feature_map_
((5, 20), 'cos-sin')
>>> bool((kernel_clone.decision_function(X) == svc.decision_function(X)).all())
True
"""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import json
import math
import numbers
import os
import secrets
import stat
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from sklearn.utils.validation import check_is_fitted

from . import __version__
from ._compat import validate_params
from .accounting.events import PrivacyEvent
from .models.base import MODEL_FILE_REGISTRY, SavedAttribute
from .utils._json import strict_json_loads

#: What :func:`load_model` returns: an estimator of a class registered with
#: :func:`dpsvm.models.base.model_file` (see "Which estimators" above).
SavedModel = Any

__all__ = [
    "FORMAT_NAME",
    "FORMAT_VERSION",
    "MAX_MODEL_BYTES",
    "SavedModel",
    "atomic_write_text",
    "load_model",
    "model_to_dict",
    "save_model",
]

#: Value of the ``format`` key.
FORMAT_NAME = "dpsvm-model"
#: The ``format_version`` this module writes; it reads this one and version 1.
FORMAT_VERSION = 2
#: The versions :func:`load_model` reads.
_READABLE_VERSIONS = (1, 2)
#: Files larger than this are refused by :func:`load_model` (256 MiB).
MAX_MODEL_BYTES = 256 * 1024 * 1024

_ENVELOPE_KEYS = (
    "format",
    "format_version",
    "dpsvm_version",
    "estimator",
    "params",
    "state",
    "privacy_event",
)
_OPTIONAL_KEYS = ("feature_names_in", "schema", "selection_event")
#: The keys of PrivacyEvent.to_dict() that every event has (its fields).
_EVENT_KEYS = tuple(f.name for f in dataclasses.fields(PrivacyEvent))
_LABEL_TYPES = ("int", "float", "str", "bool")
_INT64 = np.iinfo(np.int64)


def _unsaved_param(cls: type, name: str) -> bool:
    """Parameters never written: a live accountant, every random state (a noise
    seed must never be published; what a feature seed draws is written itself)
    and those the class lists in ``_unsaved_params``."""
    return (
        name == "accountant"
        or name.endswith("random_state")
        or name in getattr(cls, "_unsaved_params", ())
    )


def _fields(cls: type) -> tuple[SavedAttribute, ...]:
    fields: tuple[SavedAttribute, ...] = cls._saved_attributes  # type: ignore[attr-defined]
    return fields


def _is_private(cls: type) -> bool:
    """A private estimator checks its stored event (``_check_saved_event``)."""
    return callable(getattr(cls, "_check_saved_event", None))


# --------------------------------------------------------------------- writing
def _write_through(path: str, data: bytes) -> None:
    """Write to a character device or FIFO as it is (no temporary, no rename)."""
    flags = os.O_WRONLY | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(path, flags)
    try:
        view = memoryview(data)
        while view:
            written = os.write(fd, view)
            view = view[written:]
    finally:
        os.close(fd)


def atomic_write_text(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` to ``path`` atomically, never changing what ``path`` is.

    * ``"-"``: written to standard output.
    * A character device (``/dev/null``, a terminal) or a FIFO: written through
      as it is; the node is never replaced (a rename over ``/dev/null`` run as
      root would turn the device into a regular file).
    * A symbolic link: followed; its final target is written atomically and
      the link stays a link.
    * A directory, block device or socket: refused.
    * A regular file or a new name: written to a temporary file next to the
      target (same directory, so the rename is atomic), fsynced, then renamed
      over it. An existing file keeps its permission bits; a new one gets those
      the process's umask gives. On any failure, including
      :class:`KeyboardInterrupt`, the temporary file is removed and the target
      is left as it was.

    Parameters
    ----------
    path : str or path-like
        The destination.
    text : str
        The content, written as UTF-8 with ``\\n`` line endings.

    Raises
    ------
    OSError
        If the directory does not exist or is not writable, or ``path`` is a
        directory (:class:`IsADirectoryError`), a block device or a socket.

    Examples
    --------
    >>> import os, tempfile
    >>> p = os.path.join(tempfile.mkdtemp(), "out.txt")
    >>> atomic_write_text(p, "1\\n-1\\n")
    >>> from pathlib import Path
    >>> Path(p).read_text().split()
    ['1', '-1']
    """
    atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    """:func:`atomic_write_text` for bytes (e.g. a PNG image)."""
    if isinstance(path, str) and path == "-":
        import sys

        sys.stdout.flush()
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
        return
    # Follow symbolic links (a chain included) to the path that is written.
    target = os.path.realpath(os.fspath(path))
    try:
        mode: int | None = os.stat(target).st_mode
    except FileNotFoundError:
        mode = None
    if mode is not None:
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, "Is a directory", os.fspath(path))
        if stat.S_ISCHR(mode) or stat.S_ISFIFO(mode):
            _write_through(target, data)
            return
        if not stat.S_ISREG(mode):
            raise OSError(
                errno.EINVAL,
                "Not a regular file, character device or FIFO",
                os.fspath(path),
            )
    dest = Path(target)
    directory = dest.parent
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    flags |= getattr(os, "O_NOFOLLOW", 0)
    fd = -1
    tmp = directory
    for _ in range(100):
        tmp = directory / f".{dest.name}.{secrets.token_hex(8)}.tmp"
        try:
            # Mode 0o666: the kernel applies the umask, as for any new file.
            fd = os.open(tmp, flags, 0o666)
        except FileExistsError:  # pragma: no cover - 64 random bits collided
            continue
        break
    else:  # pragma: no cover
        raise FileExistsError(f"could not create a temporary file in {directory}")
    try:
        with os.fdopen(fd, "wb") as f:
            if mode is not None:  # keep the replaced file's permission bits
                os.fchmod(f.fileno(), stat.S_IMODE(mode))
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, dest)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    # Make the rename itself durable (best effort; not possible everywhere).
    with contextlib.suppress(OSError):
        dfd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)


def _label_type(values: np.ndarray) -> str:
    kind = values.dtype.kind
    if kind == "b":
        return "bool"
    if kind in "iu":
        return "int"
    if kind == "f":
        return "float"
    if kind == "U":
        return "str"
    if kind == "O":
        items = values.tolist()
        if all(isinstance(v, str) for v in items):
            return "str"
        if all(isinstance(v, bool | np.bool_) for v in items):
            return "bool"
        if all(
            isinstance(v, numbers.Integral) and not isinstance(v, bool | np.bool_)
            for v in items
        ):
            return "int"
        if all(
            isinstance(v, numbers.Real) and not isinstance(v, bool | np.bool_)
            for v in items
        ):
            return "float"
    raise TypeError(
        f"Cannot save labels of dtype {values.dtype}: labels must all be ints, "
        "all floats, all strings or all booleans."
    )


def _python_labels(values: Any, label_type: str) -> list[Any]:
    """Labels as plain Python values of ``label_type``."""
    out: list[Any] = []
    for v in np.asarray(values, dtype=object).ravel().tolist():
        if label_type == "int":
            iv = int(v)
            if not _INT64.min <= iv <= _INT64.max:
                raise ValueError(f"Label {iv} does not fit in a 64-bit integer.")
            out.append(iv)
        elif label_type == "float":
            fv = float(v)
            if not math.isfinite(fv):
                raise ValueError(f"Cannot save the non-finite label {fv}.")
            out.append(fv)
        elif label_type == "str":
            out.append(str(v))
        else:
            out.append(bool(v))
    return out


def _python_scalar(name: str, value: Any) -> Any:
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bool | np.bool_):
        return bool(value)
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        fv = float(value)
        if not math.isfinite(fv):
            raise ValueError(f"Cannot save the non-finite parameter {name}={fv}.")
        return fv
    raise TypeError(
        f"Cannot save parameter {name}={value!r} of type {type(value).__name__}: "
        "only None, booleans, numbers and strings are written."
    )


def _finite_matrix(name: str, values: Any) -> list[Any]:
    arr = np.asarray(values, dtype=np.float64)
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"Cannot save a model whose {name} is not finite.")
    result: list[Any] = arr.tolist()
    return result


def _json_default(value: Any) -> Any:
    # numpy scalars can appear inside privacy-event details.
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    if isinstance(value, np.ndarray):
        return value.tolist()
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serialisable.")


class StateCodec:
    """Checked conversions between fitted attributes and a file's ``state``.

    Passed to an estimator's ``_state_to_dict`` and ``_state_from_dict`` hooks,
    so that nested state is written and read with the same checks (finite
    numbers, shapes, exact key sets) and error messages as the declared
    attributes. ``prefix`` is the path of the state in error messages
    (``"state."``, or ``""`` for a version-1 file, whose state is at the top
    level).
    """

    def __init__(self, prefix: str = "state.") -> None:
        self.prefix = prefix

    def where(self, key: str) -> str:
        """The error-message path of the state key ``key``."""
        return f"{self.prefix}{key}"

    # writing
    @staticmethod
    def to_list(name: str, values: Any) -> list[Any]:
        """``values`` as nested lists of floats; ValueError if not all finite."""
        return _finite_matrix(name, values)

    @staticmethod
    def scalar(name: str, value: Any) -> Any:
        """A parameter-like scalar as a JSON value (None, bool, int, float, str)."""
        return _python_scalar(name, value)

    # reading
    @staticmethod
    def fail(message: str) -> ValueError:
        """The error of an invalid file (``raise codec.fail(...)``)."""
        return _fail(message)

    @staticmethod
    def keys(
        obj: Any, where: str, required: Sequence[str], optional: Sequence[str] = ()
    ) -> dict[str, Any]:
        """``obj`` if it is a JSON object with exactly these keys."""
        return _check_keys(obj, where, required, optional)

    @staticmethod
    def array(value: Any, where: str, shape: tuple[int, ...]) -> np.ndarray:
        """A float array of exactly ``shape`` from nested lists of numbers."""
        return _matrix(value, where, shape)

    @staticmethod
    def number(value: Any, where: str) -> float:
        """A JSON number (not a boolean)."""
        if not _is_number(value):
            raise _fail(f"{where} must be a number, got {value!r}.")
        return float(value)

    @staticmethod
    def derived(value: Any, expected: float, where: str) -> float:
        """A derived public number, which must equal what the parameters give."""
        if not _is_number(value) or not math.isclose(value, expected, rel_tol=1e-12):
            raise _fail(f"{where} is {value!r}; the parameters give {expected!r}.")
        return float(value)


def _registered_class(estimator: Any) -> tuple[str, type]:
    cls = type(estimator)
    name = getattr(cls, "_model_file_name", None)
    if not isinstance(name, str) or MODEL_FILE_REGISTRY.get(name) is not cls:
        raise TypeError(
            f"save_model supports {', '.join(MODEL_FILE_REGISTRY)}; got {cls.__name__}."
        )
    return name, cls


def model_to_dict(estimator: SavedModel) -> dict[str, Any]:
    """Return the JSON-ready dict of a fitted model (the format above).

    Parameters
    ----------
    estimator : estimator
        A fitted estimator of a registered class (exactly; not a subclass).

    Returns
    -------
    dict
        The file's content; numpy values converted to Python values.

    Raises
    ------
    TypeError
        For another class, or a parameter or label of an unsupported type.
    ValueError
        If the estimator is not fitted, or holds a non-finite number.

    Examples
    --------
    >>> from dpsvm.datasets import make_nested_balls
    >>> from dpsvm.models import NonPrivateLinearClassifier
    >>> X, y = make_nested_balls(300, random_state=0)
    >>> d = model_to_dict(NonPrivateLinearClassifier().fit(X, y))
    >>> d["estimator"], d["state"]["classes"], d["privacy_event"]
    ('NonPrivateLinearClassifier', [-1, 1], None)
    """
    name, cls = _registered_class(estimator)
    check_is_fitted(estimator)
    codec = StateCodec()
    fields = _fields(cls)
    label_type: str | None = None
    state: dict[str, Any] = {}
    for f in fields:
        value: Any = None if f.kind == "custom" else getattr(estimator, f.attribute)
        if f.kind == "labels":
            labels = np.asarray(value)
            label_type = _label_type(labels)
            state["label_type"] = label_type
            state[f.key] = _python_labels(labels, label_type)
        elif f.kind == "count":
            state[f.key] = int(value)
        elif f.kind == "positive":
            number = float(value)
            if not (math.isfinite(number) and number > 0):
                raise ValueError(f"Cannot save a model with {f.attribute}={number}.")
            state[f.key] = number
        elif f.kind == "array":
            state[f.key] = _finite_matrix(f.attribute, value)
        else:
            state[f.key] = None  # written by _state_to_dict below
    custom = {f.key for f in fields if f.kind == "custom"}
    if custom:
        extra = estimator._state_to_dict(codec)
        if set(extra) != custom:
            raise TypeError(f"{name}._state_to_dict must return the keys {custom}.")
        state.update(extra)
    params: dict[str, Any] = {}
    for key, value in sorted(estimator.get_params(deep=False).items()):
        if _unsaved_param(cls, key):
            continue
        if key == "classes" and label_type is not None:
            params[key] = None if value is None else _python_labels(value, label_type)
        else:
            params[key] = _python_scalar(key, value)
    event = getattr(estimator, "privacy_event_", None)
    out: dict[str, Any] = {
        "format": FORMAT_NAME,
        "format_version": FORMAT_VERSION,
        "dpsvm_version": __version__,
        "estimator": name,
        "params": params,
        "state": state,
        "privacy_event": None if event is None else event.to_dict(),
    }
    names = getattr(estimator, "feature_names_in_", None)
    if names is not None:
        out["feature_names_in"] = [str(n) for n in np.asarray(names).tolist()]
    schema = getattr(estimator, "public_schema_", None)
    if schema is not None:
        out["schema"] = schema.to_dict()
    selection = getattr(estimator, "selection_event_", None)
    if selection is not None:
        out["selection_event"] = selection.to_dict()
    return out


def save_model(estimator: SavedModel, path: str | os.PathLike[str]) -> None:
    """Save a fitted model of a registered class as a JSON file, atomically.

    Parameters
    ----------
    estimator : estimator
        The fitted model, of a class registered with
        :func:`dpsvm.models.base.model_file` (e.g. :class:`~dpsvm.models.DPLinearSVC`).
    path : str or path-like
        The destination (replaced if it exists).

    Raises
    ------
    TypeError
        For an unsupported class, parameter or label type.
    ValueError
        If the model is not fitted, holds a non-finite number, or its text would
        be larger than :data:`MAX_MODEL_BYTES` (nothing is written).
    OSError
        If the file cannot be written; no partial file is left.

    See Also
    --------
    load_model : Read the file back.

    Notes
    -----
    The whole text is serialised before any file is created, then written by
    :func:`atomic_write_text`. The released state the class declares (e.g.
    ``coef_``, ``intercept_`` or the random frequencies and phases,
    ``classes_``) and the public parameters are written; the solver
    diagnostics, the accountant and the random states are not.

    Examples
    --------
    >>> import os, tempfile
    >>> from dpsvm.datasets import make_nested_balls
    >>> from dpsvm.models import DPLogisticRegression
    >>> X, y = make_nested_balls(300, random_state=0)
    >>> clf = DPLogisticRegression(classes=[-1, 1], random_state=0).fit(X, y)
    >>> path = os.path.join(tempfile.mkdtemp(), "m.json")
    >>> save_model(clf, path)
    >>> load_model(path).privacy_event_.mechanism
    'objective-perturbation'
    """
    text = json.dumps(
        model_to_dict(estimator), indent=2, allow_nan=False, default=_json_default
    )
    # json.dumps escapes non-ASCII characters, so len(text) counts bytes.
    if len(text) + 1 > MAX_MODEL_BYTES:
        raise ValueError(
            f"Cannot save this model: its file would take {len(text) + 1} bytes, "
            f"more than the {MAX_MODEL_BYTES} that load_model reads (use fewer "
            "n_components)."
        )
    atomic_write_text(path, text + "\n")


# --------------------------------------------------------------------- reading
_FAIL_PREFIX = "Invalid dpsvm model file: "


def _fail(message: str) -> ValueError:
    return ValueError(_FAIL_PREFIX + message)


def _parse_float(token: str) -> float:
    value = float(token)
    if not math.isfinite(value):
        raise _fail(f"number {token[:30]} overflows a double.")
    return value


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _check_keys(
    obj: Any, where: str, required: Sequence[str], optional: Sequence[str] = ()
) -> dict[str, Any]:
    if not isinstance(obj, dict):
        raise _fail(f"{where} must be a JSON object, got {type(obj).__name__}.")
    missing = [k for k in required if k not in obj]
    if missing:
        raise _fail(f"{where} lacks the key(s) {', '.join(missing)}.")
    unknown = sorted(set(obj) - set(required) - set(optional))
    if unknown:
        raise _fail(f"{where} has unknown key(s) {', '.join(map(repr, unknown))}.")
    return obj


def _labels(values: Any, label_type: str, where: str) -> np.ndarray:
    if not isinstance(values, list):
        raise _fail(f"{where} must be a list of labels.")
    checks = {
        "int": lambda v: isinstance(v, int) and not isinstance(v, bool),
        "float": _is_number,
        "str": lambda v: isinstance(v, str),
        "bool": lambda v: isinstance(v, bool),
    }
    for v in values:
        if not checks[label_type](v):
            raise _fail(
                f"{where} holds {v!r}, which is not of label_type {label_type!r}."
            )
    if label_type == "int":
        if any(not _INT64.min <= v <= _INT64.max for v in values):
            raise _fail(f"{where} holds an integer outside the 64-bit range.")
        return np.array(values, dtype=np.int64)
    if label_type == "float":
        return np.array(values, dtype=np.float64)
    if label_type == "bool":
        return np.array(values, dtype=bool)
    return np.array(values, dtype=str) if values else np.array([], dtype=str)


def _matrix(value: Any, where: str, shape: tuple[int, ...]) -> np.ndarray:
    def numbers_only(v: Any) -> bool:
        if isinstance(v, list):
            return all(numbers_only(u) for u in v)
        return _is_number(v)

    if not isinstance(value, list) or not numbers_only(value):
        raise _fail(f"{where} must be a (nested) list of numbers.")
    try:
        arr = np.array(value, dtype=np.float64)
    except ValueError:
        raise _fail(f"{where} is ragged; expected shape {shape}.") from None
    if arr.shape != shape:
        raise _fail(f"{where} has shape {arr.shape}; expected {shape}.")
    if not np.all(np.isfinite(arr)):  # pragma: no cover - the parser refuses these
        raise _fail(f"{where} holds a non-finite number.")
    return arr


def _event_number(value: Any, where: str, *, optional: bool = False) -> float | None:
    if value is None and optional:
        return None
    if value == "inf":  # PrivacyEvent.to_dict writes infinities as strings
        return math.inf
    if not _is_number(value):
        raise _fail(f"{where} must be a number, got {value!r}.")
    return float(value)


def _event_from_dict(obj: Any, where: str = "privacy_event") -> PrivacyEvent:
    """Rebuild a :class:`PrivacyEvent` from its ``to_dict`` form, strictly."""
    d = _check_keys(obj, where, _EVENT_KEYS, ("type", "reason"))
    for key in ("mechanism", "neighbouring", "reference", "type", "reason"):
        if key in ("type", "reason") and key not in d:
            continue
        if not isinstance(d[key], str):
            raise _fail(f"{where}.{key} must be a string.")
    if d["sensitivity_norm"] is not None and not isinstance(d["sensitivity_norm"], str):
        raise _fail(f"{where}.sensitivity_norm must be a string or null.")
    if not isinstance(d["details"], dict):
        raise _fail(f"{where}.details must be a JSON object.")
    if not isinstance(d["children"], list):
        raise _fail(f"{where}.children must be a list.")
    children = tuple(
        _event_from_dict(c, f"{where}.children[{i}]")
        for i, c in enumerate(d["children"])
    )
    epsilon = _event_number(d["epsilon"], f"{where}.epsilon")
    delta = _event_number(d["delta"], f"{where}.delta")
    assert epsilon is not None and delta is not None
    fields = {
        "mechanism": d["mechanism"],
        "epsilon": epsilon,
        "delta": delta,
        "sensitivity": _event_number(
            d["sensitivity"], f"{where}.sensitivity", optional=True
        ),
        "sensitivity_norm": d["sensitivity_norm"],
        "neighbouring": d["neighbouring"],
        "reference": d["reference"],
        "details": d["details"],
        "children": children,
    }
    # The guarantee's type (pure, approximate, non-private) round-trips; a file
    # written before events were typed has none, and it follows from ε and δ.
    for key in ("type", "reason"):
        if key in d:
            fields[key] = d[key]
    try:
        return PrivacyEvent.from_dict(fields)
    except ValueError as exc:
        raise _fail(f"{where}: {exc}") from None


def _read_bytes(path: str | os.PathLike[str]) -> bytes:
    with open(path, "rb") as f:
        raw = f.read(MAX_MODEL_BYTES + 1)
    if len(raw) > MAX_MODEL_BYTES:
        raise _fail(f"larger than {MAX_MODEL_BYTES} bytes.")
    return raw


def _parse(raw: bytes) -> Any:
    if not raw.strip():
        raise _fail("the file is empty.")
    if raw[:1] == b"\x80" or raw[:2] in (b"PK", b"\x1f\x8b"):
        raise _fail(
            "this looks like a pickle or an archive, not JSON. dpsvm never loads "
            "pickles (loading one runs code); save models with dpsvm.io.save_model."
        )
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _fail(f"not UTF-8 text (byte {exc.start}).") from None
    try:
        return strict_json_loads(
            text,
            constant_error=lambda token: _fail(
                f"non-finite number {token} (NaN and Infinity are not allowed)."
            ),
            duplicate_key_error=lambda key: _fail(f"duplicate key {key!r}."),
            parse_float=_parse_float,
        )
    except json.JSONDecodeError as exc:
        raise _fail(
            f"not JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})."
        ) from None
    except RecursionError:
        raise _fail("nested too deeply.") from None


def _check_header(doc: Any) -> None:
    # Format and version first: a file of another version may have other keys.
    if not isinstance(doc, dict):
        raise _fail(f"the top level must be a JSON object, got {type(doc).__name__}.")
    if "format" in doc and doc["format"] != FORMAT_NAME:
        raise _fail(f"format is {doc['format']!r}; expected {FORMAT_NAME!r}.")
    if "format_version" in doc:
        version = doc["format_version"]
        if isinstance(version, bool) or version not in _READABLE_VERSIONS:
            raise _fail(
                f"unsupported format_version {version!r}; this dpsvm reads versions "
                f"{' and '.join(map(str, _READABLE_VERSIONS))}."
            )
    # The estimator decides which keys the state must have: check it first.
    name = doc.get("estimator")
    if "estimator" in doc and (
        not isinstance(name, str) or name not in MODEL_FILE_REGISTRY
    ):
        raise _fail(
            f"unknown estimator {name!r}; expected one of "
            f"{', '.join(MODEL_FILE_REGISTRY)}."
        )


def _from_version_1(doc: dict[str, Any]) -> dict[str, Any]:
    """A version-1 document in the version-2 layout.

    Version 1 wrote the state at the top level under the same keys as the
    version-2 ``state``: every key that is not an envelope key moves there.
    """
    envelope = set(_ENVELOPE_KEYS + _OPTIONAL_KEYS) - {"state"}
    out = {k: v for k, v in doc.items() if k in envelope}
    out["state"] = {k: v for k, v in doc.items() if k not in envelope}
    return out


def _read_labels(
    state: dict[str, Any], f: SavedAttribute, codec: StateCodec
) -> tuple[np.ndarray, str]:
    label_type = state["label_type"]
    if label_type not in _LABEL_TYPES:
        raise _fail(
            f"{codec.where('label_type')} must be one of {_LABEL_TYPES}, got "
            f"{label_type!r}."
        )
    labels = _labels(state[f.key], label_type, codec.where(f.key))
    if labels.size < 2 or len(set(state[f.key])) != labels.size:
        raise _fail(f"{codec.where(f.key)} must hold at least 2 distinct labels.")
    return labels, label_type


def _read_params(
    cls: type, doc: dict[str, Any], labels: np.ndarray | None, label_type: str | None
) -> Any:
    """The estimator built from ``params``, which must be exactly its public ones."""
    expected = sorted(
        p for p in cls().get_params(deep=False) if not _unsaved_param(cls, p)
    )
    # Parameters added after files were written: a file without one was fitted
    # with its default (the constructor's), so it may be absent.
    later = [p for p in getattr(cls, "_params_added_later", ()) if p in expected]
    required = [p for p in expected if p not in later]
    params = dict(_check_keys(doc["params"], "params", required, later))
    for key, value in params.items():
        if key == "classes" and labels is not None:
            continue
        if value is not None and not isinstance(value, bool | int | float | str):
            raise _fail(f"params.{key} must be a JSON scalar, got {value!r}.")
    if labels is not None and params.get("classes") is not None:
        assert label_type is not None
        public = _labels(params["classes"], label_type, "params.classes")
        if not np.array_equal(np.unique(public), labels):
            raise _fail("classes differs from the label set in params.classes.")
        params["classes"] = public.tolist()
    estimator = cls(**params)
    try:
        validate_params(estimator)  # scikit-learn's _parameter_constraints check
    except (TypeError, ValueError) as exc:
        raise _fail(f"params: {exc}") from None
    return estimator


def _read_state(
    estimator: Any, doc: dict[str, Any], codec: StateCodec, labels: np.ndarray | None
) -> None:
    """Check the declared state and set it on ``estimator``.

    Order: the labels, the parameters, counts, positive numbers, arrays (whose
    dimensions name counts read before, or ``n_outputs``), then the estimator's
    own ``_state_from_dict`` for its custom keys and cross-field checks.
    """
    cls = type(estimator)
    state: dict[str, Any] = doc["state"]
    dims: dict[str, int] = {}
    if labels is not None:  # one score for two labels, one per label otherwise
        dims["n_outputs"] = 1 if labels.size == 2 else labels.size
    for kind in ("count", "positive", "array"):
        for f in _fields(cls):
            if f.kind != kind:
                continue
            value, where = state[f.key], codec.where(f.key)
            if kind == "count":
                if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                    raise _fail(f"{where} must be an integer >= 1, got {value!r}.")
                dims[f.key] = value
            elif kind == "positive":
                if not _is_number(value) or not value > 0:
                    raise _fail(f"{where} must be a number > 0, got {value!r}.")
                value = float(value)
            else:
                value = _matrix(value, where, tuple(dims[d] for d in f.shape))
            setattr(estimator, f.attribute, value)
    if hasattr(estimator, "_state_from_dict"):
        try:
            estimator._state_from_dict(state, codec)
        except ValueError as exc:
            if str(exc).startswith(_FAIL_PREFIX):  # raised by the codec: as it is
                raise
            raise _fail(str(exc)) from None


def _build(doc: Any) -> SavedModel:
    _check_header(doc)
    version_1 = doc.get("format_version") == 1 or (
        "format_version" not in doc and "state" not in doc
    )
    codec = StateCodec(prefix="" if version_1 else "state.")
    if version_1:
        doc = _from_version_1(doc)
    doc = _check_keys(doc, "the top level", _ENVELOPE_KEYS, _OPTIONAL_KEYS)
    if not isinstance(doc["dpsvm_version"], str):
        raise _fail("dpsvm_version must be a string.")
    name = doc["estimator"]
    cls = MODEL_FILE_REGISTRY[name]
    fields = _fields(cls)
    keys = [f.key for f in fields]
    labels_field = next((f for f in fields if f.kind == "labels"), None)
    if labels_field is not None:
        keys.insert(keys.index(labels_field.key), "label_type")
    _check_keys(doc["state"], "the top level" if version_1 else "state", keys)

    labels, label_type = None, None
    if labels_field is not None:
        labels, label_type = _read_labels(doc["state"], labels_field, codec)
    estimator = _read_params(cls, doc, labels, label_type)
    if labels_field is not None:
        setattr(estimator, labels_field.attribute, labels)
    _read_state(estimator, doc, codec, labels)

    event_doc = doc["privacy_event"]
    private = _is_private(cls)
    if private and event_doc is None:
        raise _fail(f"a {name} model needs a privacy_event.")
    if not private and event_doc is not None:
        raise _fail(f"a {name} model has no privacy_event (it must be null).")
    if private:
        event = _event_from_dict(event_doc)
        # The event must be what fit records for these parameters (see the
        # module docstring: this catches edits and version skew, not forgery).
        try:
            estimator._check_saved_event(event)
        except ValueError as exc:
            raise _fail(
                f"privacy_event does not match the stored parameters: {exc} "
                "(the file was edited, or written by a dpsvm whose calibration "
                f"of this mechanism differed: file {doc['dpsvm_version']}, this "
                f"is {__version__}; refit the model with this version)"
            ) from None
        estimator.privacy_event_ = event
    if "feature_names_in" in doc:
        names = doc["feature_names_in"]
        d = getattr(estimator, "n_features_in_", None)
        if (
            not isinstance(names, list)
            or len(names) != d
            or not all(isinstance(n, str) for n in names)
        ):
            raise _fail(f"feature_names_in must be a list of {d} strings.")
        estimator.feature_names_in_ = np.array(names, dtype=object)
    if "schema" in doc:
        estimator.public_schema_ = _schema(doc, estimator)
    if "selection_event" in doc:
        selection = _event_from_dict(doc["selection_event"], "selection_event")
        if (
            not private
            or not selection.children
            or (selection.children[-1].to_dict() != doc["privacy_event"])
        ):
            raise _fail(
                "selection_event must end with the model's privacy_event (the "
                "final fit)."
            )
        estimator.selection_event_ = selection
    return estimator


def _schema(doc: Any, estimator: Any) -> Any:
    """The public schema of a model file, checked against the model."""
    from .preprocessing import PublicSchema, SchemaError, canonical_key

    try:
        schema = PublicSchema.from_dict(doc["schema"])
    except SchemaError as exc:
        raise _fail(str(exc)) from None
    names = doc.get("feature_names_in")
    if names != list(schema.feature_names_out):
        raise _fail("feature_names_in must be the schema's encoded feature names.")
    declared = {canonical_key(c) for c in schema.classes}
    if {canonical_key(c) for c in estimator.classes_.tolist()} != declared:
        raise _fail("classes differs from the schema's label.classes.")
    return schema


def load_model(path: str | os.PathLike[str]) -> SavedModel:
    """Load a model file written by :func:`save_model`, checking every field.

    Parameters
    ----------
    path : str or path-like
        The JSON model file.

    Returns
    -------
    estimator
        A fitted estimator of the registered class the file names, with the
        attributes its state declares (e.g. ``coef_``, ``classes_``,
        ``data_norm_``, ``n_features_in_``, and ``intercept_`` or the
        random-feature map) and, for private estimators, ``privacy_event_``;
        its predictions equal the saved model's exactly. ``accountant`` and the
        random states have their defaults (``None``).

    Raises
    ------
    ValueError
        If the file is not a dpsvm model file of a supported version: not UTF-8
        JSON (a pickle is refused without being loaded), a missing or unknown
        key, an unknown estimator, a wrong shape, a non-finite number, labels of
        the wrong type, an invalid parameter or a feature-map value that
        disagrees with the parameters. The message says which.
    OSError
        If the file cannot be read.

    See Also
    --------
    save_model : Write a model file.

    Examples
    --------
    >>> import os, tempfile
    >>> p = os.path.join(tempfile.mkdtemp(), "bad.json")
    >>> from pathlib import Path
    >>> _ = Path(p).write_text('{"format": "dpsvm-model", "format_version": 3}')
    >>> load_model(p)
    Traceback (most recent call last):
    ...
    ValueError: Invalid dpsvm model file: unsupported format_version 3; this dpsvm reads versions 1 and 2.
    """  # noqa: E501
    return _build(_parse(_read_bytes(path)))
