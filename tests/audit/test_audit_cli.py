# SPDX-License-Identifier: BSD-3-Clause
"""``dpsvm audit``: add_audit_subparser, run_audit_command and the standalone main."""

from __future__ import annotations

import argparse
import io
import json

import pytest

from dpsvm.audit import add_audit_subparser, format_results, run_audit_command
from dpsvm.audit.cli import main
from dpsvm.audit.registry import list_entries


def _parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="dpsvm")
    add_audit_subparser(parser.add_subparsers(dest="command"))
    return parser.parse_args(["audit", *argv])


def _run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = run_audit_command(_parse(*argv), out, err)
    return status, out.getvalue(), err.getvalue()


def test_parser_defaults_and_options():
    args = _parse("-m", "laplace")
    assert (args.command, args.mechanism, args.runs, args.epsilon) == (
        "audit",
        "laplace",
        None,
        None,
    )
    assert (args.confidence, args.n_jobs, args.seed, args.list) == (0.95, 1, 0, False)
    args = _parse(
        "--mechanism", "gamma-norm", "--runs", "50", "--epsilon", "2",
        "--confidence", "0.99", "--n-jobs", "-1", "--seed", "7", "--delta", "1e-6",
    )  # fmt: skip
    assert (args.runs, args.epsilon, args.confidence) == (50, 2.0, 0.99)
    assert (args.n_jobs, args.seed, args.delta) == (-1, 7, 1e-6)


def test_list_prints_every_entry():
    status, out, _ = _run("--list")
    assert status == 0
    for entry in list_entries():
        assert entry.name in out


def test_single_audit_prints_one_result_line_and_progress_on_err():
    status, out, err = _run("-m", "gamma-norm", "--runs", "100")
    assert status == 0
    lines = out.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("gamma-norm: claimed eps=1 delta=0, lower bound ")
    assert "100 runs per dataset" in lines[0]
    assert "[audit gamma-norm] 200/200 runs" in err


def test_no_progress_and_json():
    status, out, err = _run(
        "-m", "flawed-nie-wang-offset", "--runs", "100", "--no-progress", "--json"
    )
    assert status == 0 and err == ""
    record = json.loads(out)
    assert record["mechanism"] == "flawed-nie-wang-offset"
    assert record["flawed"] is True and record["n_runs"] == 100
    assert record["epsilon_lower"] > record["epsilon"] == 1.0


def test_epsilon_override_changes_the_claim():
    _, out, _ = _run("-m", "exponential", "--runs", "200", "--epsilon", "0.5",
                     "--no-progress")  # fmt: skip
    assert "claimed eps=0.5" in out


def test_check_flags_unexpected_verdicts():
    # Caught as expected: status 0.
    status, _, _ = _run("-m", "flawed-nie-wang-offset", "--runs", "100", "--check",
                        "--no-progress")  # fmt: skip
    assert status == 0
    # With 8 runs no claim can be refuted, so the flawed variant slips through.
    status, out, _ = _run("-m", "flawed-nie-wang-offset", "--runs", "8", "--check",
                          "--no-progress")  # fmt: skip
    assert status == 3
    assert "consistent with the claim" in out


def test_unknown_mechanism_raises_a_clear_value_error():
    with pytest.raises(ValueError, match="unknown mechanism 'nope'; known: "):
        _run("-m", "nope")
    with pytest.raises(ValueError, match="needs --mechanism"):
        _run()


def test_standalone_main_reports_one_error_line(capsys):
    assert main(["--mechanism", "nope"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("dpsvm: error: unknown mechanism 'nope'")
    assert err.count("\n") == 1
    assert main(["--mechanism", "laplace", "--runs", "3"]) == 2
    err = capsys.readouterr().err
    assert err == "dpsvm: error: argument --runs: --runs must be >= 8, got 3\n"
    assert main(["-m", "laplace", "--confidence", "1.5"]) == 2
    assert "--confidence must be in (0, 1)" in capsys.readouterr().err
    assert main(["-m", "laplace", "--n-jobs", "0"]) == 2
    assert "non-zero" in capsys.readouterr().err


@pytest.mark.slow
def test_standalone_main_runs_an_audit(capsys):
    assert main(["-m", "flawed-non-private", "--runs", "50", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "flawed-non-private" in out and "CLAIM REFUTED" in out


def test_format_results_marks_unexpected_verdicts():
    from dpsvm.audit._auditor import _example_result

    ok = _example_result(mechanism="a", epsilon_lower=2.0)
    bad = _example_result(mechanism="b", epsilon_lower=0.1)
    text = format_results([ok, bad], expected_violation={"a": True, "b": True})
    assert "REFUTED (as expected)" in text
    assert "consistent (UNEXPECTED)" in text
    md = format_results([ok], markdown=True).splitlines()
    assert md[0].startswith("| mechanism | claimed ε | δ | lower bound (95%)")
    assert md[1] == "|---|---|---|---|---|---|---|---|"
