# SPDX-License-Identifier: BSD-3-Clause
"""``run_sarwate2009``: rerun Sarwate et al. (2009)'s experiments, write the report.

Nothing is written until every number, table and plot exists in memory; the
files are then written to hidden temporary files in the output directory and
renamed into place, so a failure (missing data, an exception, an interrupt)
leaves no partial report.
"""

from __future__ import annotations

import json
import math
import os
import secrets
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

from ._config import ReproductionConfig, make_config
from ._data import ReproductionError, load_datasets
from ._paper import PAPER, paper_numbers
from ._plots import PREFIX, make_plots, require_matplotlib
from ._report import build_comparisons, render_markdown
from ._runner import run_experiments

__all__ = ["REPORT_NAME", "run_sarwate2009"]

REPORT_NAME = "sarwate2009"
FORMAT = "dpsvm-reproduction"
FORMAT_VERSION = 1


def _check_out_dir(out_dir: Path) -> None:
    """Refuse an output directory that cannot be created or written, early."""
    if out_dir.exists() and not out_dir.is_dir():
        raise ReproductionError(f"--out {out_dir}: exists and is not a directory")
    probe = out_dir
    while not probe.exists():
        if probe.parent == probe:
            break
        probe = probe.parent
    if not probe.is_dir():
        raise ReproductionError(f"--out {out_dir}: {probe} is not a directory")
    if not os.access(probe, os.W_OK | os.X_OK):
        raise ReproductionError(f"--out {out_dir}: {probe} is not writable")


def _write_all(out_dir: Path, files: dict[str, bytes]) -> None:
    """Write every file atomically; on failure leave the directory as it was.

    All contents go to hidden temporary files first (fsynced); only when all
    of them exist are they renamed into place. Stale plots of an earlier run
    (``sarwate2009_*.png`` not written now) are removed afterwards.
    """
    created: list[Path] = []
    probe = out_dir
    while not probe.exists():
        created.append(probe)
        probe = probe.parent
    temps: dict[str, Path] = {}
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        for name, data in files.items():
            tmp = out_dir / f".{name}.{secrets.token_hex(8)}.tmp"
            temps[name] = tmp
            with open(tmp, "xb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
        for name, tmp in temps.items():
            os.replace(tmp, out_dir / name)
    except BaseException:
        for tmp in temps.values():
            try:
                tmp.unlink()
            except FileNotFoundError:
                pass
        for d in created:  # innermost first
            try:
                d.rmdir()
            except OSError:
                break
        raise
    for stale in out_dir.glob(f"{PREFIX}*.png"):
        if stale.name not in files:
            try:
                stale.unlink()
            except OSError:  # pragma: no cover - best effort
                pass


def _json_safe(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_json_safe(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if hasattr(value, "item") and callable(value.item):  # numpy scalars
        return _json_safe(value.item())
    return value


def run_sarwate2009(
    data_dir: str | os.PathLike[str] | None,
    out_dir: str | os.PathLike[str] = "reproduction-sarwate2009",
    *,
    config: ReproductionConfig | None = None,
    n_jobs: int = 1,
    command: str | None = None,
    log: TextIO | None = None,
    progress: TextIO | None = None,
) -> Path:
    """Rerun the experiments of Sarwate et al. (2009) and write the report.

    Writes, into ``out_dir``: ``sarwate2009.md`` (the report: every table of
    the paper with our numbers and the differences, the plots, the setup),
    ``sarwate2009.json`` (all numbers) and ``sarwate2009_*.png`` (error vs ε_p,
    learning curves, error vs Λ).

    Parameters
    ----------
    data_dir : str or path-like or None
        Directory with ``adult.data`` and ``adult.test`` (required) and the KDD
        Cup 99 files (optional; without them the KDD parts are skipped with a
        note). ``None`` uses the loaders' default search (``$DPSVM_DATA``, ...).
    out_dir : str or path-like, default="reproduction-sarwate2009"
        Output directory (created if needed; other files in it are kept).
    config : ReproductionConfig, optional
        Run settings (default: ``make_config("full")``, the paper's protocol).
    n_jobs : int, default=1
        Worker processes; -1 for all CPUs.
    command : str, optional
        The command line to quote in the report.
    log : text stream, optional
        Receives the time estimate before the work starts.
    progress : text stream, optional
        Receives the progress line.

    Returns
    -------
    pathlib.Path
        The path of the Markdown report.

    Raises
    ------
    ReproductionError
        Missing or unreadable data, a bad output directory, or no matplotlib;
        raised before any experiment runs. Nothing is written on any failure.

    Notes
    -----
    **Privacy.** This is an experiment driver, not a release mechanism. The
    noise is seeded (``config.seed``) so the run can be repeated; the rows
    labelled "NOT private" (paper readings of Alg. 1/2 and CM08 as printed)
    and the paper's data-max column scaling are outside any DP guarantee and
    exist only to compare with the paper.

    References
    ----------
    .. [1] A. D. Sarwate, K. Chaudhuri, C. Monteleoni, "Differentially private
       support vector machines", arXiv:0912.0071, 2009, Section 6.

    Examples
    --------
    >>> from dpsvm.reproduce import make_config
    >>> run_sarwate2009("/nope", "/tmp/out", config=make_config("tiny"))
    Traceback (most recent call last):
    ...
    dpsvm.reproduce._data.ReproductionError: --data-dir /nope: no such directory
    """
    cfg = config if config is not None else make_config("full")
    if n_jobs == -1:
        n_jobs = os.cpu_count() or 1
    if n_jobs < 1:
        raise ReproductionError(f"n_jobs must be >= 1 or -1, got {n_jobs}")
    out = Path(out_dir)
    if data_dir is not None and not Path(data_dir).is_dir():
        raise ReproductionError(f"--data-dir {data_dir}: no such directory")
    _check_out_dir(out)
    require_matplotlib()

    datasets, notes = load_datasets(data_dir, cfg)
    results = run_experiments(datasets, cfg, n_jobs=n_jobs, log=log, progress=progress)
    positive_rate = float(datasets["adult"].info["positive_rate"])
    comparisons = build_comparisons(results, positive_rate)
    pngs, captions = make_plots(results)
    doc: dict[str, Any] = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "paper": dict(PAPER),
        "mode": cfg.mode,
        "command": command or "dpsvm.reproduce.run_sarwate2009(...)",
        "created_utc": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "config": cfg.to_dict(),
        "datasets": {
            name: {"description": d.description, **d.info}
            for name, d in datasets.items()
        },
        "comparisons": comparisons,
        "results": results,
        "paper_numbers": paper_numbers(),
        "notes": notes,
        "figures": [list(c) for c in captions],
    }
    doc = _json_safe(doc)
    markdown = render_markdown(doc, cfg)
    files: dict[str, bytes] = {
        f"{REPORT_NAME}.json": (
            json.dumps(doc, indent=1, allow_nan=False) + "\n"
        ).encode(),
        **pngs,
        f"{REPORT_NAME}.md": markdown.encode("utf-8"),
    }
    _write_all(out, files)
    return out / f"{REPORT_NAME}.md"
