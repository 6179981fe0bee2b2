# SPDX-License-Identifier: BSD-3-Clause
"""KDD Cup 1999 loader with data-independent preprocessing.

Follows Sarwate, Chaudhuri & Monteleoni (2009, §6).

Reads the official 10 % training file (``kddcup.data_10_percent``, 494,021
records) and the test set with corrected labels (``corrected``, 311,029
records), plain or gzipped, from a local directory, or downloads them from the
UCI KDD archive.

Feature layout (122 columns; 123 with ``add_constant=True``):

* 38 numeric columns in file order (all fields except the three symbolic ones
  and the label), each clipped to the public range in
  :data:`KDDCUP99_NUMERIC_BOUNDS` and mapped affinely to [0, 1] (optionally on a
  log scale for the heavy-tailed ``duration``, ``src_bytes`` and
  ``dst_bytes``);
* one-hot ``protocol_type`` (3), ``service`` (70) and ``flag`` (11), in the
  order of the published lists :data:`KDDCUP99_CATEGORIES`;
* optionally a constant 1;

and each row is then divided by its own L2 norm. Sarwate, Chaudhuri &
Monteleoni (2009, §6) report 119 columns; 38 + 3 + 70 + 11 = 122 with the full
published service list (the 10 % file uses 66 of the 70 services).

Labels: ``target="normal"`` (default) gives +1 to ``normal.`` connections and −1
to every attack (the paper's "19 % positive"; note that with no
intercept and symmetric noise flipping the labels changes no error rate);
``target="dos"`` gives +1 to denial-of-service attacks.

**Checksums.** The UCI KDD archive publishes no checksums for these files. A
download is therefore verified by parsing it completely and checking the
published record counts (:data:`KDDCUP99_RECORD_COUNTS`) and the 42-field format;
a file that fails is deleted. For cross-checking by hand: scikit-learn's mirror
of the 10 % file (figshare file 5976042, used by
:func:`sklearn.datasets.fetch_kddcup99`) has SHA-256
``8045aca0d84e70e622d1148d7df782496f6333bf6eb979a1b0837c42a9fd9561``; it is not
enforced here because its byte-identity with the UCI copy could not be
confirmed.
"""

from __future__ import annotations

import gzip
import os
from pathlib import Path
from typing import Literal

import numpy as np
from numpy.typing import NDArray
from sklearn.utils import Bunch

from dpsvm.datasets._common import (
    ParsedRecords,
    PublicLayout,
    Split,
    normalise_rows,
    split_bunch,
)
from dpsvm.datasets._download import download_file
from dpsvm.datasets._paths import DataFiles, merge_unknown_categories

__all__ = [
    "KDDCUP99_CATEGORIES",
    "KDDCUP99_COLUMNS",
    "KDDCUP99_DOS_ATTACKS",
    "KDDCUP99_NUMERIC_BOUNDS",
    "KDDCUP99_RECORD_COUNTS",
    "KDDCUP99_URLS",
    "load_kddcup99",
]

#: The 41 attributes of a connection record, in file order (``kddcup.names``);
#: the 42nd field of each line is the label (e.g. ``normal.``, ``smurf.``).
KDDCUP99_COLUMNS: tuple[str, ...] = (
    "duration",
    "protocol_type",
    "service",
    "flag",
    "src_bytes",
    "dst_bytes",
    "land",
    "wrong_fragment",
    "urgent",
    "hot",
    "num_failed_logins",
    "logged_in",
    "num_compromised",
    "root_shell",
    "su_attempted",
    "num_root",
    "num_file_creations",
    "num_shells",
    "num_access_files",
    "num_outbound_cmds",
    "is_host_login",
    "is_guest_login",
    "count",
    "srv_count",
    "serror_rate",
    "srv_serror_rate",
    "rerror_rate",
    "srv_rerror_rate",
    "same_srv_rate",
    "diff_srv_rate",
    "srv_diff_host_rate",
    "dst_host_count",
    "dst_host_srv_count",
    "dst_host_same_srv_rate",
    "dst_host_diff_srv_rate",
    "dst_host_same_src_port_rate",
    "dst_host_srv_diff_host_rate",
    "dst_host_serror_rate",
    "dst_host_srv_serror_rate",
    "dst_host_rerror_rate",
    "dst_host_srv_rerror_rate",
)

#: Published value lists of the symbolic attributes. ``kddcup.names`` only says
#: "symbolic"; the lists are those of the attribute declarations (ARFF header)
#: distributed with NSL-KDD (Tavallaee, Bagheri, Lu & Ghorbani, CISDA 2009),
#: which enumerate every value of the full KDD Cup 99 data: 3 protocols, 70
#: services and the 11 connection states of the Bro/Zeek ``conn_state`` field.
#: Public metadata, not statistics of the files read here.
KDDCUP99_CATEGORIES: dict[str, tuple[str, ...]] = {
    "protocol_type": ("tcp", "udp", "icmp"),
    "service": (
        "aol",
        "auth",
        "bgp",
        "courier",
        "csnet_ns",
        "ctf",
        "daytime",
        "discard",
        "domain",
        "domain_u",
        "echo",
        "eco_i",
        "ecr_i",
        "efs",
        "exec",
        "finger",
        "ftp",
        "ftp_data",
        "gopher",
        "harvest",
        "hostnames",
        "http",
        "http_2784",
        "http_443",
        "http_8001",
        "imap4",
        "IRC",
        "iso_tsap",
        "klogin",
        "kshell",
        "ldap",
        "link",
        "login",
        "mtp",
        "name",
        "netbios_dgm",
        "netbios_ns",
        "netbios_ssn",
        "netstat",
        "nnsp",
        "nntp",
        "ntp_u",
        "other",
        "pm_dump",
        "pop_2",
        "pop_3",
        "printer",
        "private",
        "red_i",
        "remote_job",
        "rje",
        "shell",
        "smtp",
        "sql_net",
        "ssh",
        "sunrpc",
        "supdup",
        "systat",
        "telnet",
        "tftp_u",
        "tim_i",
        "time",
        "urh_i",
        "urp_i",
        "uucp",
        "uucp_path",
        "vmnet",
        "whois",
        "X11",
        "Z39_50",
    ),
    "flag": (
        "OTH",
        "REJ",
        "RSTO",
        "RSTOS0",
        "RSTR",
        "S0",
        "S1",
        "S2",
        "S3",
        "SF",
        "SH",
    ),
}

_RATES = tuple(c for c in KDDCUP99_COLUMNS if c.endswith("_rate"))
_BINARY: tuple[str, ...] = (
    "land",
    "logged_in",
    "root_shell",
    "su_attempted",
    "is_host_login",
    "is_guest_login",
)

#: Public ranges ``(low, high)`` of the 38 numeric attributes; each value is
#: clipped to its range and mapped to [0, 1]. Sources:
#:
#: * the 15 ``*_rate`` attributes are fractions, [0, 1] by definition (KDD Cup
#:   99 task description, "derived features");
#: * ``land``, ``logged_in``, ``root_shell``, ``su_attempted``,
#:   ``is_host_login``, ``is_guest_login`` are 0/1 indicators by definition
#:   (``su_attempted`` values of 2 in the files are clipped to 1);
#: * ``count``, ``srv_count`` [0, 511] and ``dst_host_count``,
#:   ``dst_host_srv_count`` [0, 255]: the published feature extraction
#:   saturates these counters at 511 and 255. These four caps are known from the
#:   distributed files rather than from the task description;
#: * the remaining counts and sizes have no published bound; round a-priori
#:   caps are used and larger values are clipped: ``duration`` one day
#:   (86,400 s), ``src_bytes``/``dst_bytes`` 1e9 bytes, ``wrong_fragment`` and
#:   ``urgent`` 10, ``hot`` 100, ``num_failed_logins`` 10, ``num_compromised``
#:   and ``num_root`` 1,000, ``num_file_creations`` 100, ``num_shells``,
#:   ``num_access_files`` and ``num_outbound_cmds`` 10.
KDDCUP99_NUMERIC_BOUNDS: dict[str, tuple[float, float]] = {
    **{c: (0.0, 1.0) for c in _RATES},
    **{c: (0.0, 1.0) for c in _BINARY},
    "count": (0.0, 511.0),
    "srv_count": (0.0, 511.0),
    "dst_host_count": (0.0, 255.0),
    "dst_host_srv_count": (0.0, 255.0),
    "duration": (0.0, 86400.0),
    "src_bytes": (0.0, 1e9),
    "dst_bytes": (0.0, 1e9),
    "wrong_fragment": (0.0, 10.0),
    "urgent": (0.0, 10.0),
    "hot": (0.0, 100.0),
    "num_failed_logins": (0.0, 10.0),
    "num_compromised": (0.0, 1000.0),
    "num_root": (0.0, 1000.0),
    "num_file_creations": (0.0, 100.0),
    "num_shells": (0.0, 10.0),
    "num_access_files": (0.0, 10.0),
    "num_outbound_cmds": (0.0, 10.0),
}

#: Denial-of-service attack labels (without the trailing period): the six of
#: the training data (``training_attack_types``) and the four that occur only
#: in the corrected test set (DARPA 1998/99 attack taxonomy).
KDDCUP99_DOS_ATTACKS: frozenset[str] = frozenset(
    {
        "back",
        "land",
        "neptune",
        "pod",
        "smurf",
        "teardrop",
        "apache2",
        "mailbomb",
        "processtable",
        "udpstorm",
    }
)

#: Official UCI download locations (gzip-compressed).
KDDCUP99_URLS: dict[str, str] = {
    "kddcup.data_10_percent": (
        "https://archive.ics.uci.edu/ml/machine-learning-databases/kddcup99-mld/"
        "kddcup.data_10_percent.gz"
    ),
    "corrected": (
        "https://archive.ics.uci.edu/ml/machine-learning-databases/kddcup99-mld/"
        "corrected.gz"
    ),
}

#: Published record counts (UCI KDD archive task page), checked after download.
KDDCUP99_RECORD_COUNTS: dict[str, int] = {
    "kddcup.data_10_percent": 494_021,
    "corrected": 311_029,
}

_FILES = ("kddcup.data_10_percent", "corrected")
_NUMERIC = tuple(c for c in KDDCUP99_COLUMNS if c not in KDDCUP99_CATEGORIES)
_LAYOUT = PublicLayout(
    KDDCUP99_COLUMNS, _NUMERIC, KDDCUP99_NUMERIC_BOUNDS, KDDCUP99_CATEGORIES
)
_LOG_COLUMNS = ("duration", "src_bytes", "dst_bytes")
_N_FIELDS = len(KDDCUP99_COLUMNS) + 1
_CHUNK = 50_000


def _open_text(path: Path):  # type: ignore[no-untyped-def]
    if path.suffix == ".gz":
        return gzip.open(path, "rt", encoding="ascii", newline="")
    return open(path, encoding="ascii", newline="")


def _parse(path: Path) -> ParsedRecords[list[str]]:
    numeric_blocks: list[NDArray[np.float64]] = []
    code_blocks: list[NDArray[np.int64]] = []
    labels: list[str] = []
    unknown: dict[str, dict[str, int]] = {}
    rows: list[list[str]] = []
    linenos: list[int] = []

    def flush() -> None:
        if not rows:
            return
        columns = list(zip(*rows, strict=True))  # field-major view of the chunk
        numeric, codes = _LAYOUT.read_fields(columns, path, linenos, unknown)
        numeric_blocks.append(numeric)
        code_blocks.append(codes)
        labels.extend(columns[-1])
        rows.clear()
        linenos.clear()

    with _open_text(path) as f:
        for lineno, raw in enumerate(f, 1):
            line = raw.strip()
            if not line:
                continue
            fields = line.split(",")
            if len(fields) != _N_FIELDS:
                # Neither the line nor its number is quoted (a record).
                raise ValueError(
                    f"{path}: a line has {len(fields)} comma-separated fields; "
                    f"expected {_N_FIELDS} (41 attributes and a label)."
                )
            rows.append(fields)
            linenos.append(lineno)
            if len(rows) >= _CHUNK:
                flush()
        flush()
    if numeric_blocks:
        numeric = np.vstack(numeric_blocks)
        codes_all = np.vstack(code_blocks)
    else:
        numeric = np.empty((0, len(_NUMERIC)))
        codes_all = np.empty((0, len(KDDCUP99_CATEGORIES)), dtype=np.int64)
    return ParsedRecords(numeric, codes_all, labels, unknown)


def _labels(raw: list[str], target: str) -> NDArray[np.int64]:
    names = [s.strip().rstrip(".") for s in raw]
    if target == "normal":
        pos = np.fromiter((s == "normal" for s in names), dtype=bool, count=len(names))
    else:
        pos = np.fromiter(
            (s in KDDCUP99_DOS_ATTACKS for s in names), dtype=bool, count=len(names)
        )
    return np.where(pos, 1, -1).astype(np.int64)


def _download(name: str, target: Path) -> Path:
    dest = target / f"{name}.gz"
    # No published checksum exists (module docstring): verify by parsing.
    download_file(KDDCUP99_URLS[name], dest)
    try:
        n = _parse(dest).numeric.shape[0]
    except (OSError, ValueError) as exc:
        dest.unlink(missing_ok=True)
        raise OSError(
            f"The download of {name} is not a valid KDD Cup 99 file ({exc}); it "
            "was deleted."
        ) from exc
    if n != KDDCUP99_RECORD_COUNTS[name]:
        dest.unlink(missing_ok=True)
        raise OSError(
            f"The download of {name} has {n} records, not the published "
            f"{KDDCUP99_RECORD_COUNTS[name]}; it was deleted."
        )
    return dest


_DATA_FILES = DataFiles(
    title="KDD Cup 99",
    names=_FILES,
    subfolder="kddcup99",
    loader="load_kddcup99",
    download_note="downloads from the UCI KDD archive and checks the record counts",
    fetch=_download,
)


def load_kddcup99(
    data_dir: str | os.PathLike[str] | None = None,
    *,
    download: bool = False,
    subset: int | None = None,
    random_state: int | np.random.Generator | None = 0,
    target: Literal["normal", "dos"] = "normal",
    log_scale: bool = False,
    add_constant: bool = False,
    return_X_y: bool = False,
) -> Bunch | Split:
    """Load KDD Cup 1999 (10 % file, corrected test set), rows in the unit ball.

    Parameters
    ----------
    data_dir : str or path-like, optional
        Directory holding ``kddcup.data_10_percent`` and ``corrected`` (plain or
        ``.gz``, directly or in a ``kddcup99/`` subfolder). When omitted it is
        resolved as for :func:`~dpsvm.datasets.load_adult` (``$DPSVM_DATA``,
        ``shared/datasets`` folders, then ``~/.cache/dpsvm``).
    download : bool, default=False
        If files are missing, download the gzipped files from the UCI KDD
        archive into ``<data dir>/kddcup99`` and verify them by their published
        record counts (no checksums are published).
    subset : int or None, default=None
        Keep a random subset of this many training rows (the paper's 60,000),
        drawn by a uniformly random permutation of the row positions: it reads
        no record, so it is data-independent. The test set is kept whole.
    random_state : None, int or numpy.random.Generator, default=0
        Seed of the subset permutation (non-privacy randomness).
    target : {"normal", "dos"}, default="normal"
        ``"normal"``: +1 for ``normal.``, −1 for every attack. ``"dos"``: +1 for
        the denial-of-service attacks in :data:`KDDCUP99_DOS_ATTACKS`, −1 else.
    log_scale : bool, default=False
        Map ``duration``, ``src_bytes`` and ``dst_bytes`` by
        t ↦ log(1 + t)/log(1 + hi) instead of t/hi (both fixed per-value maps).
    add_constant : bool, default=False
        Append a constant 1 before the row scaling (for an intercept).
    return_X_y : bool, default=False
        Return ``(X_train, y_train, X_test, y_test)``.

    Returns
    -------
    sklearn.utils.Bunch or tuple
        ``X_train``, ``y_train`` (±1), ``X_test``, ``y_test``, ``feature_names``,
        ``n_clipped`` (per numeric column, train + test), ``unknown_categories``
        (symbolic values outside the published lists in the files read,
        encoded as zeros),
        ``positive_rate`` (train + test), ``subset_indices`` (positions kept in
        the training file, or None), ``files`` and ``description``.

    Raises
    ------
    FileNotFoundError
        If files are absent and ``download`` is false.
    ValueError
        For a malformed file, a bad ``target`` or an impossible ``subset``.
    OSError
        If a download fails its record-count check (the file is deleted).

    Notes
    -----
    **Privacy.** Every step is a fixed map of one record (public category
    lists, public ranges, division of the row by its own norm) or a
    data-independent choice of positions (the subset), so each row has
    ``||x||_2 <= 1`` without any statistic of the data; a DP learner trained on
    the output keeps its replace-one guarantee with norm bound 1. The paper
    instead divided each column by its maximum over the data (Sarwate, Chaudhuri
    & Monteleoni 2009, §6; correction: that scaling is a statistic of the data
    and lies outside the DP guarantee). The descriptive fields of the Bunch are
    statistics of the data and must not feed a private computation.

    References
    ----------
    .. [1] S. Stolfo et al., "KDD Cup 1999 Data", UCI Machine Learning
       Repository, 1999. https://doi.org/10.24432/C51C7N
    .. [2] A. D. Sarwate, K. Chaudhuri, C. Monteleoni, "Differentially private
       support vector machines", arXiv:0912.0071, 2009, Sec. 6.

    Examples
    --------
    >>> from dpsvm.datasets import load_kddcup99
    >>> data = load_kddcup99(subset=60000)  # doctest: +SKIP
    >>> data.X_train.shape, data.X_test.shape  # doctest: +SKIP
    ((60000, 122), (311029, 122))
    """
    if target not in ("normal", "dos"):
        raise ValueError(f"target must be 'normal' or 'dos', got {target!r}.")
    if subset is not None and (
        isinstance(subset, bool) or not isinstance(subset, int | np.integer)
    ):
        raise TypeError(f"subset must be an int or None, got {subset!r}.")
    if subset is not None and subset < 1:
        raise ValueError(f"subset must be >= 1, got {subset}.")
    paths = _DATA_FILES.resolve(data_dir, download)
    train = _parse(paths["kddcup.data_10_percent"])
    test = _parse(paths["corrected"])
    subset_idx = None
    if subset is not None:
        n_train = train.numeric.shape[0]
        if subset > n_train:
            raise ValueError(
                f"subset={subset} exceeds the {n_train} rows of the training file."
            )
        # A uniformly random set of positions: reads no record (data-independent).
        rng = (
            random_state
            if isinstance(random_state, np.random.Generator)
            else np.random.default_rng(random_state)
        )
        subset_idx = np.sort(rng.permutation(n_train)[:subset])
        train = train.take(subset_idx)
    (X_train, X_test), n_clipped = _LAYOUT.encode(
        [train, test], add_constant, _LOG_COLUMNS if log_scale else ()
    )
    # Per-record map: each row divided by its own L2 norm (reads no other row).
    X_train, X_test = normalise_rows(X_train), normalise_rows(X_test)
    y_train = _labels(train.labels, target)
    y_test = _labels(test.labels, target)
    split = (X_train, y_train, X_test, y_test)
    if return_X_y:
        return split

    unknown = merge_unknown_categories([train.unknown, test.unknown])
    d = X_train.shape[1]
    description = (
        "KDD Cup 1999 (UCI): kddcup.data_10_percent -> "
        f"{y_train.size} training rows"
        + (f" (random subset of {subset})" if subset is not None else "")
        + f", corrected -> {y_test.size} test rows. Labels: +1 = "
        + ("normal connection" if target == "normal" else "denial-of-service attack")
        + f", -1 otherwise. {d} features: 38 numeric (clipped to public ranges, "
        "scaled to [0, 1]"
        + ("; log scale for duration and byte counts" if log_scale else "")
        + ") + one-hot protocol_type (3), service (70), flag (11)"
        + (" + a constant 1" if add_constant else "")
        + "; each row divided by its own L2 norm."
    )
    return split_bunch(
        split,
        _LAYOUT.feature_names(add_constant),
        n_clipped=n_clipped,
        unknown_categories=unknown,
        subset_indices=subset_idx,
        target=target,
        files={name: str(p) for name, p in paths.items()},
        description=description,
    )
