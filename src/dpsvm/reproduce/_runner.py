# SPDX-License-Identifier: BSD-3-Clause
"""The experiments of Sarwate, Chaudhuri & Monteleoni (2009), arXiv:0912.0071.

The work is cut into independent jobs (one cross-validation fold × one Λ, one
fold × one training-set size, one random projection × one Λ, ...), each of
which fits every method it concerns and returns error rates. Jobs run in this
process (``n_jobs=1``) or in joblib worker processes, and are aggregated into
the JSON-ready ``results`` dictionary that :mod:`._report` and :mod:`._plots`
render.

Protocol (the paper's Section 6): every linear value is a mean over
cross-validation folds (each training set holds 9/10 of the data) and, for
private methods, over noise draws; the kernel values are means over random
projections × draws on one 9/10 : 1/10 split. Randomness comes from
``numpy.random.SeedSequence(seed, spawn_key=...)`` per job, so results do not
depend on scheduling. Seeded noise is right for a reproduction (it can be
rerun) and wrong for a real release.
"""

from __future__ import annotations

import math
import os
import platform
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any, TextIO

import numpy as np
from numpy.typing import NDArray
from threadpoolctl import threadpool_limits

from ._aggregate import _aggregate_grid, _aggregate_kernel, _aggregate_lc
from ._cells import kernel_features, objective_errors
from ._config import ReproductionConfig
from ._data import Dataset, ReproductionError, load_datasets
from ._jobs import (
    _diffprivlib_available,
    _Draws,
    _Fold,
    _grid_job,
    _int_seed,
    _kernel_grid_job,
    _kernel_lc_job,
    _kernel_models,
    _lc_job,
    _linear_estimator,
    _Outcome,
    _rng,
    _svc_job,
    output_perturbation_from_solution,
)
from ._methods import _KERNEL_PRIVATE, KERNEL_METHODS, METHODS
from ._progress import Progress, format_duration

__all__ = [
    "KERNEL_METHODS",
    "METHODS",
    "Dataset",
    "ReproductionError",
    "load_datasets",
    "output_perturbation_from_solution",
    "run_experiments",
]

FloatArray = NDArray[np.float64]

# ---------------------------------------------------------------------------
# Scheduling
# ---------------------------------------------------------------------------


@dataclass
class _Job:
    kind: str
    key: tuple[Any, ...]
    fn: Callable[..., _Outcome]
    args: tuple[Any, ...]
    n_fits: int
    cost: float  # rows × features of the fits; seconds once calibrated
    cost_kind: str  # "linear" or "kernel": which timing calibrates it
    lam: float | None = None  # Λ of a grid job (its solve time depends on it)


def _tuned_job_size(
    m: int, private_fits: int, rows: int, width: int
) -> tuple[int, float]:
    """(fits, cost) of a learning-curve job: m reference fits, private tuned fits.

    Algorithm 3 trains each of its m candidates on 1/(m + 1) of the rows.
    """
    return m + private_fits, (m + private_fits / (m + 1)) * rows * width


def _build_jobs(
    datasets: dict[str, Dataset], config: ReproductionConfig, methods: tuple[str, ...]
) -> list[_Job]:
    seed, huber_h = config.seed, config.huber_h
    m = len(config.tuning_lambdas)
    jobs: list[_Job] = []
    key: tuple[Any, ...]
    args: tuple[Any, ...]
    # Λ × ε grids (Figures 3(a), 3(b) and the compact Adult column): fold × Λ.
    grid_specs: list[tuple[str, tuple[float, ...], tuple[float, ...]]] = [
        ("adult", config.adult_lambdas, config.adult_epsilons)
    ]
    if "adult-compact" in datasets:
        grid_specs.append(
            ("adult-compact", config.adult_lambdas, config.compact_epsilons)
        )
    if "kdd" in datasets:
        grid_specs.append(("kdd", config.kdd_lambdas, config.kdd_epsilons))
    compact_methods = tuple(x for x in methods if x != "lr_2009")
    for d_idx, (name, lambdas, epsilons) in enumerate(grid_specs):
        ds = datasets[name]
        ms = compact_methods if name == "adult-compact" else methods
        n_fits = 1 + sum(len(epsilons) * config.draws for x in ms if x != "sensitivity")
        for f, (tr, te) in enumerate(ds.splits):
            fold = _Fold(ds.X, ds.y, tr, te)
            for l_idx, lam in enumerate(lambdas):
                key = (name, f, l_idx)
                plan = _Draws(epsilons, config.draws, (seed, 100 + d_idx, *key[1:]))
                args = (fold, lam, plan, ms, huber_h)
                cost = n_fits * tr.size * ds.X.shape[1]
                jobs.append(
                    _Job("grid", key, _grid_job, args, n_fits, cost, "linear", lam)
                )
    # Linear learning curves (Figure 1): fold × training-set size.
    lc_specs: list[tuple[str, tuple[int, ...], tuple[float, ...]]] = [
        ("adult", config.adult_lc_sizes, (config.adult_lc_epsilon,))
    ]
    if "kdd" in datasets:
        lc_specs.append(("kdd", config.kdd_lc_sizes, config.kdd_lc_epsilons))
    for d_idx, (name, sizes, epsilons) in enumerate(lc_specs):
        ds = datasets[name]
        private_fits = len(config.lc_methods) * len(epsilons) * config.lc_draws * m
        for f, (tr, te) in enumerate(ds.splits):
            fold = _Fold(ds.X, ds.y, tr, te)
            for s_idx, size in enumerate(sizes):
                key = (name, f, s_idx)
                plan = _Draws(epsilons, config.lc_draws, (seed, 200 + d_idx, f, s_idx))
                args = (fold, size, plan, config.lc_methods, config.tuning_lambdas)
                n_fits, cost = _tuned_job_size(
                    m, private_fits, min(size, tr.size), ds.X.shape[1]
                )
                jobs.append(
                    _Job("lc", key, _lc_job, (*args, huber_h), n_fits, cost, "linear")
                )
    # Nested balls (Figures 1(c), 1(f), 2(b)): projection × Λ, projection × size.
    nb = datasets["nested-balls"]
    tr, te = nb.splits[0]
    fold = _Fold(nb.X, nb.y, tr, te)
    D = config.nb_components
    for p in range(config.nb_projections):
        feature_seed = _int_seed(seed, 300, p)
        for l_idx, lam in enumerate(config.nb_lambdas):
            n_fits = 1 + 2 * len(config.nb_epsilons) * config.draws
            plan = _Draws(config.nb_epsilons, config.draws, (seed, 301, p, l_idx))
            args = (fold, lam, plan, config, feature_seed)
            key = ("nested-balls", p, l_idx)
            cost = n_fits * tr.size * D
            jobs.append(
                _Job("kgrid", key, _kernel_grid_job, args, n_fits, cost, "kernel")
            )
        for s_idx, size in enumerate(config.nb_lc_sizes):
            plan = _Draws(
                (config.nb_lc_epsilon,), config.lc_draws, (seed, 302, p, s_idx)
            )
            args = (fold, size, plan, config, feature_seed)
            key = ("nested-balls", p, s_idx)
            n_fits, cost = _tuned_job_size(
                m, 2 * config.lc_draws * m, min(size, tr.size), D
            )
            jobs.append(_Job("klc", key, _kernel_lc_job, args, n_fits, cost, "kernel"))
    # libsvm: roughly quadratic in n; scaled to the RFF fit unit.
    n_svc = min(config.nb_svc_rows, tr.size)
    for l_idx, lam in enumerate(config.nb_lambdas):
        key, args = ("nested-balls", 0, l_idx), (fold, lam, config)
        cost = float(n_svc) * n_svc / 50.0
        jobs.append(_Job("svc", key, _svc_job, args, 1, cost, "kernel"))
    return jobs


def _calibrate(
    datasets: dict[str, Dataset], config: ReproductionConfig
) -> dict[str, Any]:
    """Seconds per unit of cost, from timed batched cells.

    At every Λ of the Adult grid, one cell of Algorithm 1 as printed (the
    slowest method: no Δ, so the least strongly convex problem) with
    ``min(draws, 10)`` draws on the first Adult training fold; and one such
    cell of Algorithm 2 as printed on the nested-balls training set. Cells are
    solved as in the run (:func:`._cells.objective_errors`), so the per-fit
    times are those of a batched draw (a cell of 50 draws amortises a little
    more, so the estimate errs long).
    """
    draws = min(config.draws, 10)
    ds = datasets["adult"]
    tr, te = ds.splits[0]
    data = (ds.X[tr], ds.y[tr], ds.X[te], ds.y[te])
    by_lambda: dict[float, float] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for lam in config.adult_lambdas:
            make = partial(_linear_estimator, lam, config.huber_h, "alg1_2009")
            t0 = time.perf_counter()
            objective_errors(make, (0.1,), *data, [_rng(config.seed, 999)], draws)
            by_lambda[lam] = (time.perf_counter() - t0) / draws
        nb = datasets["nested-balls"]
        ntr, nte = nb.splits[0]
        _, private = _kernel_models(
            config.nb_gamma,
            config.nb_components,
            config.huber_h,
            config.nb_lambdas[0],
            _int_seed(config.seed, 998),
        )
        t0 = time.perf_counter()
        make, Ztr, Zte = kernel_features(
            private("alg2_2009", 0.1), nb.X[ntr], nb.y[ntr], nb.X[nte]
        )
        objective_errors(
            make,
            (0.1,),
            Ztr,
            nb.y[ntr],
            Zte,
            nb.y[nte],
            [_rng(config.seed, 998)],
            draws,
        )
        t_ker = (time.perf_counter() - t0) / draws
    size = tr.size * ds.X.shape[1]
    times = list(by_lambda.values())
    return {
        "linear": float(np.mean(times)) / size,
        "linear_by_lambda": {lam: t / size for lam, t in by_lambda.items()},
        "kernel": t_ker / (ntr.size * config.nb_components),
        "calibration_draws": draws,
        "linear_fit_seconds": {f"{lam:g}": t for lam, t in by_lambda.items()},
        "kernel_fit_seconds": t_ker,
    }


def _unit_cost(job: _Job, calib: dict[str, Any]) -> float:
    """Seconds per cost unit of a job (per-Λ for the linear grids)."""
    if job.cost_kind == "linear" and job.lam is not None:
        table = calib["linear_by_lambda"]
        target = math.log10(job.lam)
        near = min(table, key=lambda v: abs(math.log10(v) - target))
        return float(table[near])
    return float(calib[job.cost_kind])


def _run_jobs(
    jobs: list[_Job], n_jobs: int, progress: Progress
) -> dict[tuple[Any, ...], _Outcome]:
    results: dict[tuple[Any, ...], _Outcome] = {}
    if n_jobs == 1:
        for i, job in enumerate(jobs):
            _, out = _call_job(i, job.fn, job.args)
            results[(job.kind, *job.key)] = out
            progress.advance(job.n_fits, job.cost)
        return results
    from joblib import Parallel, delayed

    parallel = Parallel(n_jobs=n_jobs, return_as="generator_unordered")
    # Longest first (estimated), so that no long job starts last.
    order = sorted(range(len(jobs)), key=lambda i: -jobs[i].cost)
    calls = (delayed(_call_job)(i, jobs[i].fn, jobs[i].args) for i in order)
    for i, out in parallel(calls):
        job = jobs[i]
        results[(job.kind, *job.key)] = out
        progress.advance(job.n_fits, job.cost)
    return results


def _call_job(
    i: int, fn: Callable[..., _Outcome], args: tuple[Any, ...]
) -> tuple[int, _Outcome]:
    start, cpu = time.perf_counter(), time.process_time()
    out = fn(*args)
    out.seconds = time.perf_counter() - start
    out.cpu_seconds = time.process_time() - cpu
    return i, out


# ---------------------------------------------------------------------------
# Entry point
# ---------------------------------------------------------------------------


def _load_average() -> list[float] | None:
    """The 1, 5 and 15-minute load averages (None where the OS has none)."""
    try:
        return [round(v, 2) for v in os.getloadavg()]
    except (AttributeError, OSError):  # pragma: no cover - Windows
        return None


def _environment(n_jobs: int) -> dict[str, Any]:
    import scipy
    import sklearn

    from .. import __version__

    return {
        "dpsvm": __version__,
        "python": platform.python_version(),
        "numpy": np.__version__,
        "scipy": scipy.__version__,
        "scikit-learn": sklearn.__version__,
        "platform": platform.platform(),
        "cpu_count": os.cpu_count(),
        "n_jobs": n_jobs,
    }


def run_experiments(
    datasets: dict[str, Dataset],
    config: ReproductionConfig,
    *,
    n_jobs: int = 1,
    log: TextIO | None = None,
    progress: TextIO | None = None,
) -> dict[str, Any]:
    """Run every experiment and aggregate the error rates.

    Parameters
    ----------
    datasets : dict of str to Dataset
        From :func:`load_datasets`.
    config : ReproductionConfig
        The run settings.
    n_jobs : int, default=1
        Worker processes (joblib); 1 runs in this process.
    log : text stream, optional
        Where the time estimate is printed before the work starts.
    progress : text stream, optional
        Where the progress line goes (None: no progress line).

    Returns
    -------
    dict
        JSON-ready results: ``"grids"`` (per data set), ``"learning_curves"``,
        ``"kernel"``, ``"kernel_learning_curve"``, ``"timing"``,
        ``"warnings"``, ``"failures"``, ``"diffprivlib"``, ``"environment"``.

    Examples
    --------
    >>> from dpsvm.reproduce import make_config
    >>> run_experiments({}, make_config("tiny"))  # doctest: +SKIP
    """
    methods = tuple(
        m for m in config.methods if m != "diffprivlib_lr" or _diffprivlib_available()
    )
    diffprivlib_note = (
        "diffprivlib imported: its LogisticRegression is in the grids"
        if "diffprivlib_lr" in methods
        else "diffprivlib is not installed (import failed): its LogisticRegression "
        "is skipped. It does not import with scikit-learn >= 1.8; "
        "benchmarks/bench_linear.py runs it in a side environment"
    )
    jobs = _build_jobs(datasets, config, methods)
    # Time the calibration fits with the BLAS threads a worker will have
    # (joblib gives each of n_jobs workers cpu_count // n_jobs threads).
    threads = max(1, (os.cpu_count() or 1) // n_jobs) if n_jobs > 1 else None
    with threadpool_limits(limits=threads):
        calib = _calibrate(datasets, config)
    for j in jobs:
        j.cost *= _unit_cost(j, calib)  # now in estimated seconds
    estimate = sum(j.cost for j in jobs) / max(1, n_jobs)
    n_fits = sum(j.n_fits for j in jobs)
    if log is not None:
        lin = list(calib["linear_fit_seconds"].values())
        log.write(
            f"sarwate2009 ({config.mode}): {len(jobs)} jobs, about {n_fits} fits; "
            f"one Adult fit (batched draws) took {min(lin):.3f}-{max(lin):.3f} s over "
            f"the Λ grid and one nested-balls fit "
            f"{calib['kernel_fit_seconds']:.3f} s, so the "
            f"expected time is about {format_duration(estimate)} with "
            f"{n_jobs} worker{'s' * (n_jobs != 1)}.\n"
        )
        log.flush()
    bar = Progress(n_fits, sum(j.cost for j in jobs), progress, label="sarwate2009")
    load_start = _load_average()
    start, cpu_start = time.perf_counter(), time.process_time()
    outcomes = _run_jobs(jobs, n_jobs, bar)
    bar.close()
    elapsed = time.perf_counter() - start
    main_cpu = time.process_time() - cpu_start
    load_end = _load_average()

    grids: dict[str, Any] = {}
    for name, lambdas, epsilons in (
        ("adult", config.adult_lambdas, config.adult_epsilons),
        ("adult-compact", config.adult_lambdas, config.compact_epsilons),
        ("kdd", config.kdd_lambdas, config.kdd_epsilons),
    ):
        if name not in datasets:
            continue
        ms = tuple(
            m for m in methods if not (name == "adult-compact" and m == "lr_2009")
        )
        grids[name] = _aggregate_grid(
            outcomes, name, len(datasets[name].splits), lambdas, epsilons, ms
        )
    curves: dict[str, Any] = {
        "adult": _aggregate_lc(
            outcomes,
            "adult",
            len(datasets["adult"].splits),
            config.adult_lc_sizes,
            (config.adult_lc_epsilon,),
            config.lc_methods,
            config.tuning_lambdas,
        )
    }
    if "kdd" in datasets:
        curves["kdd"] = _aggregate_lc(
            outcomes,
            "kdd",
            len(datasets["kdd"].splits),
            config.kdd_lc_sizes,
            config.kdd_lc_epsilons,
            config.lc_methods,
            config.tuning_lambdas,
        )
    curves["nested-balls"] = _aggregate_lc(
        outcomes,
        "nested-balls",
        config.nb_projections,
        config.nb_lc_sizes,
        (config.nb_lc_epsilon,),
        _KERNEL_PRIVATE,
        config.tuning_lambdas,
        kind="klc",
        reference="rr_svm",
    )
    by_kind: dict[str, float] = {}
    cpu_by_kind: dict[str, float] = {}
    for key, out in outcomes.items():
        by_kind[key[0]] = by_kind.get(key[0], 0.0) + out.seconds
        cpu_by_kind[key[0]] = cpu_by_kind.get(key[0], 0.0) + out.cpu_seconds
    warn_counts: dict[str, int] = {}
    for out in outcomes.values():
        for w in out.warnings:
            warn_counts[w] = warn_counts.get(w, 0) + 1
    return {
        "grids": grids,
        "kernel": _aggregate_kernel(outcomes, config),
        "learning_curves": curves,
        "methods_run": list(methods),
        "diffprivlib": diffprivlib_note,
        "failures": int(sum(o.failures for o in outcomes.values())),
        "warnings": [{"message": k, "jobs": v} for k, v in sorted(warn_counts.items())],
        "timing": {
            "estimated_seconds": estimate,
            "elapsed_seconds": elapsed,
            "n_jobs_run": len(jobs),
            "n_fits": n_fits,
            # Summed job times (worker seconds) per job kind: grid = Λ × ε
            # grids, lc = linear learning curves, kgrid / klc = kernel grid /
            # learning curve, svc = exact kernel SVM.
            "job_seconds_by_kind": by_kind,
            # CPU seconds of the jobs (process time in the worker that ran
            # them) and of this process while they ran (n_jobs = 1: the same).
            "job_cpu_seconds_by_kind": cpu_by_kind,
            "cpu_seconds": float(sum(cpu_by_kind.values()))
            + (0.0 if n_jobs == 1 else main_cpu),
            # Load averages (1, 5, 15 min) before and after the jobs: the
            # machine may be shared, which stretches the wall time.
            "load_average_start": load_start,
            "load_average_end": load_end,
            **calib,
        },
        "environment": _environment(n_jobs),
    }
