# SPDX-License-Identifier: BSD-3-Clause
"""PNG plots of the reproduction (matplotlib, Agg canvas, no pyplot).

matplotlib is an optional dependency (the ``test`` and ``plot`` extras); it is
imported only here, lazily, and :func:`require_matplotlib` turns its absence
into a clear error before any experiment runs. Figures are drawn on an
``Agg`` canvas created per figure, so no global backend state is touched.
"""

from __future__ import annotations

import io
import math
from collections.abc import Sequence
from typing import Any

from ._data import ReproductionError
from ._methods import KERNEL_METHODS, METHODS
from ._paper import FIG2A, FIG2A_COLUMNS, FIG2B, FIG3A, FIG3B

__all__ = ["PREFIX", "make_plots", "require_matplotlib"]

PREFIX = "sarwate2009_"

_STYLE = {
    "huber_svm": ("black", "--", "o"),
    "rr_svm": ("black", "--", "o"),
    "kernel_svm": ("grey", ":", "s"),
    "alg1_2009": ("tab:blue", "-", "o"),
    "alg2_2009": ("tab:blue", "-", "o"),
    "alg1": ("tab:cyan", "-", "^"),
    "alg2": ("tab:cyan", "-", "^"),
    "sensitivity": ("tab:red", "-", "s"),
    "lr_2009": ("tab:green", "-", "D"),
    "lr": ("tab:olive", "-", "v"),
    "diffprivlib_lr": ("tab:purple", "-", "P"),
}


def require_matplotlib() -> None:
    """Fail early, with a clear message, when matplotlib cannot be imported.

    Raises
    ------
    ReproductionError
        If ``import matplotlib`` fails.

    Examples
    --------
    >>> require_matplotlib()  # matplotlib is in the test extra
    """
    try:
        import matplotlib  # noqa: F401
        from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: F401
    except ImportError as exc:
        raise ReproductionError(
            "the reproduction draws its plots with matplotlib, which is not "
            f"installed ({exc}); install it with `pip install 'dpsvm[plot]'` (or "
            "`pip install matplotlib`)"
        ) from None


def _label(method: str) -> str:
    info = METHODS.get(method) or KERNEL_METHODS[method]
    return info.label


def _figure(ncols: int = 1) -> tuple[Any, list[Any]]:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6.4 * ncols, 4.4), dpi=100)
    FigureCanvasAgg(fig)
    # Fixed margins: a layout engine would cost seconds per figure.
    fig.subplots_adjust(
        left=0.1 / ncols + 0.02, right=0.98, bottom=0.12, top=0.92, wspace=0.25
    )
    axes = [fig.add_subplot(1, ncols, i + 1) for i in range(ncols)]
    return fig, axes


def _png(fig: Any) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", metadata={"Software": None})
    return buf.getvalue()


def _decorate(ax: Any, xlabel: str, ylabel: str, title: str) -> None:
    """Axis labels, title, a light grid and a small legend."""
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)


def _line(ax: Any, method: str, x: Sequence[float], y: Sequence[float | None]) -> None:
    pts = [(a, b) for a, b in zip(x, y, strict=True) if b is not None]
    if not pts:
        return
    color, ls, marker = _STYLE.get(method, ("tab:gray", "-", "."))
    ax.plot(
        [p[0] for p in pts],
        [p[1] for p in pts],
        color=color,
        linestyle=ls,
        marker=marker,
        label=_label(method),
    )


def _paper_points(
    ax: Any, pts: list[tuple[float, float]], label: str, color: str = "black"
) -> None:
    if pts:
        ax.plot(
            [p[0] for p in pts],
            [p[1] for p in pts],
            linestyle="none",
            marker="x",
            markersize=9,
            markeredgewidth=2,
            color=color,
            label=label,
        )


def _epsilon_plot(
    grid: dict[str, Any], title: str, dataset: str, methods: Sequence[str]
) -> bytes:
    fig, (ax,) = _figure()
    eps = sorted(grid["epsilons"])
    for m in methods:
        if m not in grid["best"]:
            continue
        ys = [grid["best"][m].get(f"{e:g}", {}).get("error") for e in eps]
        _line(ax, m, eps, ys)
    hb = grid["best"]["huber_svm"]["error"]
    if hb is not None:
        ax.axhline(hb, color="black", linestyle="--", label=_label("huber_svm"))
    paper_rows = (
        ("alg1", "alg1_2009", "Alg. 1"),
        ("lr", "lr_2009", "logistic regression"),
        ("sensitivity", "sensitivity", "sensitivity method"),
        ("huber_svm", "huber_svm", "Huber SVM"),
    )
    for row, style, name in paper_rows:
        pts = [
            (e, FIG2A[row][i]) for i, (d, e) in enumerate(FIG2A_COLUMNS) if d == dataset
        ]
        if row == "alg1" and dataset == "adult":
            # Best of each ε column of Fig. 3(a).
            pts += [
                (e, min(r[j] for r in FIG3A["alg1"]))
                for j, e in enumerate(FIG3A["epsilons"])
            ]
        _paper_points(ax, sorted(set(pts)), f"paper: {name}", _STYLE[style][0])
    _decorate(ax, "privacy parameter ε_p", "test error (best Λ per point)", title)
    return _png(fig)


def _lambda_plot(
    grid: dict[str, Any],
    eps: float,
    title: str,
    methods: Sequence[str],
    paper: dict[str, Any] | None,
) -> bytes:
    fig, (ax,) = _figure()
    lams = grid["lambdas"]
    x = [-math.log10(v) for v in lams]
    e_idx = min(
        range(len(grid["epsilons"])), key=lambda i: abs(grid["epsilons"][i] - eps)
    )
    eps_used = grid["epsilons"][e_idx]
    _line(ax, "huber_svm", x, [c["mean"] for c in grid["huber_svm"]])
    for m in methods:
        if m in grid["methods"]:
            _line(ax, m, x, [row[e_idx]["mean"] for row in grid["methods"][m]])
    if paper is not None and eps_used in paper["epsilons"]:
        j = paper["epsilons"].index(eps_used)
        px = [-math.log10(v) for v in paper["lambdas"]]
        _paper_points(
            ax,
            list(zip(px, [r[j] for r in paper["alg1"]], strict=True)),
            "paper: Alg. 1",
            _STYLE["alg1_2009"][0],
        )
        ax.plot(
            px,
            paper["huber_svm"],
            linestyle="none",
            marker="+",
            markersize=11,
            markeredgewidth=2,
            color="black",
            label="paper: Huber SVM",
        )
    _decorate(ax, "−log₁₀ Λ", "test error", f"{title} (ε_p = {eps_used:g})")
    return _png(fig)


def _lc_plot(curve: dict[str, Any], title: str, reference: str) -> bytes:
    eps_list = curve["epsilons"]
    fig, axes = _figure(len(eps_list))
    pts = curve["points"]
    x = [p["n_train"] for p in pts]
    for ax, eps in zip(axes, eps_list, strict=True):
        _line(ax, reference, x, [p[reference]["mean"] for p in pts])
        for m in curve["methods"]:
            if m == reference:
                continue
            _line(ax, m, x, [p[m][f"{eps:g}"]["mean"] for p in pts])
        if reference == "rr_svm":
            ax.axhline(0.05, color="grey", linestyle=":", label="Bayes error 0.05")
        ax.set_xscale("log")
        _decorate(ax, "training-set size N", "test error", f"{title}, ε_p = {eps:g}")
    return _png(fig)


def _kernel_epsilon_plot(kern: dict[str, Any]) -> bytes:
    fig, (ax,) = _figure()
    eps = sorted(kern["epsilons"])
    for m in ("alg2_2009", "alg2"):
        _line(ax, m, eps, [kern["best"][m].get(f"{e:g}", {}).get("error") for e in eps])
    for m in ("rr_svm", "kernel_svm"):
        v = kern["best"][m]["error"]
        if v is not None:
            color, ls, _ = _STYLE[m]
            ax.axhline(v, color=color, linestyle=ls, label=_label(m))
    ax.axhline(0.05, color="grey", linestyle="-.", linewidth=0.8, label="Bayes error")
    _paper_points(
        ax, [(0.1, FIG2B["alg2"]), (0.1, FIG2B["rr_svm"])], "paper (Fig. 2(b))"
    )
    _decorate(
        ax,
        "privacy parameter ε_p",
        "test error (best Λ per point)",
        "Fig. 1(c): nested balls, Gaussian kernel",
    )
    return _png(fig)


def make_plots(
    results: dict[str, Any],
) -> tuple[dict[str, bytes], list[tuple[str, str]]]:
    """Draw every plot of the report.

    Parameters
    ----------
    results : dict
        From :func:`dpsvm.reproduce._runner.run_experiments`.

    Returns
    -------
    files : dict of str to bytes
        PNG file name (prefixed ``sarwate2009_``) to content.
    captions : list of (str, str)
        (file name, caption) in report order.

    Raises
    ------
    ReproductionError
        If matplotlib is missing.

    Examples
    --------
    >>> make_plots  # doctest: +ELLIPSIS
    <function make_plots at ...>
    """
    require_matplotlib()
    grids = results["grids"]
    methods = [m for m in results["methods_run"]]
    files: dict[str, bytes] = {}
    captions: list[tuple[str, str]] = []

    def add(name: str, caption: str, data: bytes) -> None:
        files[PREFIX + name] = data
        captions.append((PREFIX + name, caption))

    add(
        "fig1a_adult_epsilon.png",
        "Fig. 1(a): Adult, error vs ε_p",
        _epsilon_plot(grids["adult"], "Fig. 1(a): Adult, linear", "adult", methods),
    )
    if "kdd" in grids:
        add(
            "fig1b_kdd_epsilon.png",
            "Fig. 1(b): KDDCup99, error vs ε_p",
            _epsilon_plot(grids["kdd"], "Fig. 1(b): KDDCup99, linear", "kdd", methods),
        )
    add(
        "fig1c_nested_epsilon.png",
        "Fig. 1(c): nested balls (Gaussian kernel), error vs ε_p",
        _kernel_epsilon_plot(results["kernel"]),
    )
    curves = results["learning_curves"]
    add(
        "fig1_adult_learning_curve.png",
        "Learning curve, Adult (not in the paper)",
        _lc_plot(curves["adult"], "Adult", "huber_svm"),
    )
    if "kdd" in curves:
        add(
            "fig1de_kdd_learning_curve.png",
            "Fig. 1(d), (e): KDDCup99 learning curves",
            _lc_plot(curves["kdd"], "KDDCup99", "huber_svm"),
        )
    add(
        "fig1f_nested_learning_curve.png",
        "Fig. 1(f): nested balls learning curve",
        _lc_plot(curves["nested-balls"], "Nested balls", "rr_svm"),
    )
    add(
        "fig4a_adult_lambda.png",
        "Fig. 4(a): Adult, error vs −log₁₀ Λ",
        _lambda_plot(grids["adult"], 0.1, "Fig. 4(a): Adult", methods, dict(FIG3A)),
    )
    if "kdd" in grids:
        paper_b = {
            "lambdas": FIG3B["lambdas"],
            "epsilons": FIG3B["epsilons"],
            "alg1": FIG3B["alg1"],
            "huber_svm": FIG3B["huber_svm"],
        }
        add(
            "fig4b_kdd_lambda.png",
            "Fig. 4(b): KDDCup99, error vs −log₁₀ Λ",
            _lambda_plot(grids["kdd"], 0.05, "Fig. 4(b): KDDCup99", methods, paper_b),
        )
    return files, captions
