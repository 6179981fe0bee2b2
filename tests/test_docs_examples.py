# SPDX-License-Identifier: BSD-3-Clause
"""The examples that users copy from README.md and docs/*.md work.

* Every fenced ``python`` / ``py`` / ``pycon`` block is compiled and run (one test
  per ``file:block``), in a fresh namespace, in a temporary working directory.
* Every ``dpsvm ...`` command line of a shell block (``bash``, ``sh``, ``console``,
  ``text``, no language; ``$ dpsvm ...`` lines of ``console`` blocks) is parsed
  by the real parser of the ``dpsvm`` command (never run): unknown flags, wrong
  choices and missing required arguments fail.

An HTML comment on the line(s) just before a fence steers the Python test:

* ``<!-- docs-test: skip (why) -->``: compiled only, not run (starts a server,
  needs a cluster, downloads, is a schematic, or takes long);
* ``<!-- docs-test: setup NAME -->``: run after the setup ``NAME`` of
  :data:`SETUPS` (the data a fragment takes from the surrounding text);
* ``<!-- docs-test: warns NAME (why) -->``: the block must emit the warning
  class ``NAME`` (a warning the surrounding text explains); any other warning
  fails, as everywhere in the suite.
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import importlib
import io
import json
import re
import runpy
import shlex
import shutil
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from dpsvm.cli._main import _glue_option_values, build_parser
from dpsvm.datasets import resolve_data_dir
from dpsvm.utils._cli import UsageError

ROOT = Path(__file__).resolve().parents[1]
DOC_FILES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]

PYTHON_LANGS = {"python", "py", "python3", "pycon"}
SHELL_LANGS = {"bash", "sh", "shell", "console", "text", ""}

_FENCE = re.compile(r"^(?P<fence>```+|~~~+)\s*(?P<lang>[\w+-]*)")
_MARKER = re.compile(
    r"^<!--\s*docs-test:\s*(?P<action>skip|setup|warns)\b\s*(?P<arg>.*?)\s*-->$"
)
_HEREDOC = re.compile(r"<<-?\s*(['\"]?)(?P<word>\w+)\1")
_DOTTED = re.compile(r"(?<![\w./])dpsvm(?:\.\w+)+")  # dpsvm.a.b
_SHELL_OPERATORS = {"&&", "||", ";", "|", "&", "(", ")", "{", "}"}


@dataclass(frozen=True)
class Block:
    """One fenced block of a Markdown file."""

    path: Path
    number: int  # 1-based, counting every fenced block of the file
    line: int  # line number of the opening fence
    lang: str
    text: str
    markers: tuple[tuple[str, str], ...]

    @property
    def name(self) -> str:
        return f"{self.path.relative_to(ROOT).as_posix()}:{self.number}"


def _blocks(path: Path) -> list[Block]:
    lines = path.read_text(encoding="utf-8").splitlines()
    blocks: list[Block] = []
    i = 0
    while i < len(lines):
        match = _FENCE.match(lines[i])
        if match is None:
            i += 1
            continue
        fence, start = match["fence"], i
        markers: list[tuple[str, str]] = []
        j = i - 1
        while j >= 0 and (marker := _MARKER.match(lines[j].strip())):
            markers.insert(0, (marker["action"], marker["arg"]))
            j -= 1
        i += 1
        while i < len(lines) and not lines[i].startswith(fence):
            i += 1
        text = "\n".join(lines[start + 1 : i]) + "\n"
        blocks.append(
            Block(
                path,
                len(blocks) + 1,
                start + 1,
                match["lang"].lower(),
                text,
                tuple(markers),
            )
        )
        i += 1
    return blocks


ALL_BLOCKS = [block for path in DOC_FILES for block in _blocks(path)]


def _python_source(block: Block) -> str:
    """The code of a block; ``>>>`` / ``...`` prompts (pycon) are removed."""
    if block.lang != "pycon" and ">>> " not in block.text:
        return block.text
    code = []
    for line in block.text.splitlines():
        stripped = line.strip()
        if stripped.startswith((">>> ", "... ")) or stripped in {">>>", "..."}:
            code.append(stripped[4:])
    return "\n".join(code) + "\n"


# ----------------------------------------------------------------- setups


def _toy_data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """Small synthetic data in the unit ball, labels ±1, for the fragments."""

    class Ledger:
        """Stands in for the durable store of docs/prediction.md; checks JSON."""

        def __init__(self) -> None:
            self.records: list[str] = []

        def commit(self, state: Any) -> None:
            self.records.append(json.dumps(state))

    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, (300, 5))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1, keepdims=True))
    y = np.where(X[:, 0] + 0.5 * X[:, 1] > 0, 1, -1)
    return {
        "X_train": X,
        "y_train": y,
        "X": X,
        "y": y,
        "X_private": X,
        "y_private": y,
        "Q_public": X[:40],
        "Z_batch": X[:5],
        "ledger": Ledger(),
    }


def _adult_dir(monkeypatch: pytest.MonkeyPatch) -> Path:
    """The data directory holding ``adult/``, exported as ``$DPSVM_DATA``."""
    data_dir = resolve_data_dir()
    if data_dir is None or not (data_dir / "adult" / "adult.data.gz").is_file():
        pytest.skip(
            "UCI Adult files not found (set DPSVM_DATA to the directory holding "
            f"adult/adult.data.gz; looked in {data_dir})"
        )
    data_dir = data_dir.resolve()
    monkeypatch.setenv("DPSVM_DATA", str(data_dir))  # the block runs elsewhere
    return data_dir


def _adult(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """The UCI Adult files, for ``load_adult``."""
    _adult_dir(monkeypatch)
    return {}


_ADULT_HEADER = (
    "age,workclass,fnlwgt,education,education-num,marital-status,occupation,"
    "relationship,race,sex,capital-gain,capital-loss,hours-per-week,"
    "native-country,income\n"
)


def _adult_csv(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """``adult_train.csv``, ``adult_test.csv`` and ``examples/adult_schema.json``.

    The CSV files are made as the README's "Raw CSV in, private model out"
    commands make them (a header; the test file without its first line and
    without the trailing dot of its labels).
    """
    adult = _adult_dir(monkeypatch) / "adult"
    with gzip.open(adult / "adult.data.gz", "rt") as src:
        (tmp_path / "adult_train.csv").write_text(_ADULT_HEADER + src.read())
    with gzip.open(adult / "adult.test.gz", "rt") as src:
        rows = src.read().splitlines(keepends=True)[1:]
    (tmp_path / "adult_test.csv").write_text(
        _ADULT_HEADER
        + "".join(re.sub(r"\.$", "", row.rstrip("\n")) + "\n" for row in rows)
    )
    (tmp_path / "examples").mkdir()
    shutil.copy(ROOT / "examples" / "adult_schema.json", tmp_path / "examples")
    return {}


#: Setup name → function giving the block's extra globals (it may write files
#: into the temporary working directory or skip the test).
SETUPS: dict[str, Callable[[Path, pytest.MonkeyPatch], dict[str, Any]]] = {
    "toy-data": _toy_data,
    "adult": _adult,
    "adult-csv": _adult_csv,
}


# ---------------------------------------------------------- Python blocks

PYTHON_BLOCKS = [b for b in ALL_BLOCKS if b.lang in PYTHON_LANGS]


@pytest.mark.parametrize("block", PYTHON_BLOCKS, ids=lambda b: b.name)
def test_python_example_runs(
    block: Block, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    where = f"{block.path.relative_to(ROOT)}, line {block.line}"
    code = compile(_python_source(block), where, "exec")  # even a skipped block
    namespace: dict[str, Any] = {"__name__": "__docs_example__"}
    expected: list[type[Warning]] = []
    for action, arg in block.markers:
        name = arg.split()[0] if arg.split() else ""
        if action == "skip":
            pytest.skip(f"marked in the Markdown: {arg}")
        elif action == "warns":
            expected.append(_warning_class(name, where))
        elif name in SETUPS:
            monkeypatch.chdir(tmp_path)
            namespace.update(SETUPS[name](tmp_path, monkeypatch))
        else:
            pytest.fail(
                f"{where}: unknown docs-test setup {arg!r} (known: {sorted(SETUPS)})"
            )
    monkeypatch.chdir(tmp_path)
    with pytest.warns(tuple(expected)) if expected else contextlib.nullcontext():
        exec(code, namespace)


def _warning_class(name: str, where: str) -> type[Warning]:
    """A warning class of :mod:`dpsvm.exceptions`, a dpsvm package or builtins."""
    for module in ("dpsvm.exceptions", "dpsvm.prediction", "dpsvm.margins", "builtins"):
        cls = getattr(importlib.import_module(module), name, None)
        if isinstance(cls, type) and issubclass(cls, Warning):
            return cls
    pytest.fail(f"{where}: docs-test warns {name!r}: no such warning class")


# ------------------------------------------------------ dpsvm command lines


@dataclass(frozen=True)
class Command:
    """One ``dpsvm`` command line of a shell block."""

    block: Block
    line: int  # line in the Markdown file
    argv: tuple[str, ...]  # the arguments after ``dpsvm``

    @property
    def name(self) -> str:
        return f"{self.block.name}:L{self.line}"


def _logical_lines(block: Block) -> Iterator[tuple[int, str]]:
    """(line number, command text) of a shell block: prompts and output lines,
    here-documents and comments dropped, continuation lines and multi-line
    quotes joined."""
    console = block.lang == "console"
    lines = block.text.splitlines()
    i, pending, first = 0, "", 0
    heredoc: str | None = None
    while i < len(lines):
        raw, number = lines[i], block.line + 1 + i
        i += 1
        if heredoc is not None:
            if raw.strip() == heredoc:
                heredoc = None
            continue
        if not pending:
            first = number
            if raw.startswith("$ "):
                raw = raw[2:]
            elif console:
                continue  # output of the previous command
        pending += raw
        if pending.endswith("\\"):
            pending = pending[:-1] + " "
            continue
        try:
            shlex.split(pending, comments=True)
        except ValueError:  # a quote opened on this line closes on a later one
            if i < len(lines):
                pending += "\n"
                continue
        if match := _HEREDOC.search(pending):
            heredoc = match["word"]
        yield first, pending
        pending = ""


def _simple_commands(text: str) -> list[list[str]]:
    """The simple commands of a shell line (split at ``&&``, ``|``, ``;``, …)."""
    lexer = shlex.shlex(text, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    lexer.commenters = "#"
    commands: list[list[str]] = [[]]
    for token in lexer:
        if token in _SHELL_OPERATORS:
            commands.append([])
        else:
            commands[-1].append(token)
    return [c for c in commands if c]


def _dpsvm_commands(block: Block) -> list[Command]:
    found = []
    for number, text in _logical_lines(block):
        try:
            simple = _simple_commands(text)
        except ValueError as exc:
            if re.search(r"(^|[;&|]\s*)dpsvm\s", text):
                pytest.fail(f"{block.name}:L{number}: cannot split {text!r}: {exc}")
            continue
        for words in simple:
            while words and re.match(r"^[A-Za-z_]\w*=", words[0]):
                words = words[1:]  # VAR=value prefix
            if not words or words[0] != "dpsvm":
                continue
            argv = []
            for word in words[1:]:
                if re.match(r"^\d*[<>]", word):
                    break  # a redirection ends the arguments
                argv.append(word)
            found.append(Command(block, number, tuple(argv)))
    return found


SHELL_BLOCKS = [b for b in ALL_BLOCKS if b.lang in SHELL_LANGS]
COMMANDS = [c for b in SHELL_BLOCKS for c in _dpsvm_commands(b)]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c.name)
def test_dpsvm_command_parses(command: Command) -> None:
    shown = "dpsvm " + shlex.join(command.argv)
    stderr = io.StringIO()
    try:
        with (
            contextlib.redirect_stderr(stderr),
            contextlib.redirect_stdout(io.StringIO()),
        ):
            build_parser().parse_args(_glue_option_values(list(command.argv)))
    except UsageError as exc:
        pytest.fail(f"{command.name}: `{shown}` does not parse: {exc}")
    except SystemExit as exc:
        if exc.code not in (0, None):  # --help and --version exit 0
            pytest.fail(
                f"{command.name}: `{shown}` exits {exc.code}: {stderr.getvalue()}"
            )


# ------------------------------------------- inline `dpsvm ...` code spans


def _inline_spans(path: Path) -> list[tuple[int, str]]:
    """(line, text) of the inline code spans of a Markdown file (outside fences);
    a span may run over a line break."""
    lines = path.read_text(encoding="utf-8").splitlines()
    inside: str | None = None
    kept = []
    for line in lines:
        match = _FENCE.match(line)
        if match and (inside is None or line.startswith(inside)):
            inside = match["fence"] if inside is None else None
            kept.append("")
        else:
            kept.append("" if inside is not None else line)
    text = "\n".join(kept)
    return [
        (text.count("\n", 0, m.start()) + 1, " ".join(m[1].split()))
        for m in re.finditer(r"(?<!`)`([^`]+)`(?!`)", text)
    ]


def _options(parser: argparse.ArgumentParser) -> dict[tuple[str, ...], set[str]]:
    """Subcommand path → its option strings, for every (sub)parser."""
    found: dict[tuple[str, ...], set[str]] = {(): set()}

    def walk(p: argparse.ArgumentParser, path: tuple[str, ...]) -> None:
        found[path] = set()
        for action in p._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    walk(sub, (*path, name))
            found[path].update(action.option_strings)

    walk(parser, ())
    return found


INLINE = [
    (path, line, span)
    for path in DOC_FILES
    for line, span in _inline_spans(path)
    if span.startswith("dpsvm ")
]


@pytest.mark.parametrize(
    ("path", "line", "span"),
    INLINE,
    ids=[f"{p.relative_to(ROOT).as_posix()}:L{n}" for p, n, _ in INLINE],
)
def test_inline_dpsvm_span_names_real_options(path: Path, line: int, span: str) -> None:
    # A span such as `dpsvm train --schema` is a fragment (required arguments
    # left out): its subcommand must exist and its options must be that
    # subcommand's. A span that reads as a whole command must parse.
    options = _options(build_parser())
    words = shlex.split(span)[1:]
    command: tuple[str, ...] = ()
    while words and (*command, words[0]) in options:
        command, words = (*command, words[0]), words[1:]
    where = f"{path.relative_to(ROOT)}:{line}: `{span}`"
    if not command and words and all(w in options[()] for w in words):
        return  # `dpsvm --help`, `dpsvm --version`: the top-level options
    assert command, f"{where}: no such dpsvm subcommand"
    unknown = [
        w.split("=")[0]
        for w in words
        if w.startswith("--") and w.split("=")[0] not in options[command]
    ]
    assert not unknown, f"{where}: dpsvm {' '.join(command)} has no {unknown}"


def _resolves(dotted: str) -> bool:
    """Whether ``dpsvm.a.b.C.attr`` names a module or an attribute of one."""
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj: Any = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for attr in parts[i:]:
            if not hasattr(obj, attr):
                return False
            obj = getattr(obj, attr)
        return True
    return False


@pytest.mark.parametrize(
    "path", DOC_FILES, ids=[p.relative_to(ROOT).as_posix() for p in DOC_FILES]
)
def test_inline_dotted_dpsvm_names_resolve(path: Path) -> None:
    # `dpsvm.accounting.charge`, `dpsvm.io`, ...: each names a real module or
    # attribute (a renamed or moved name leaves a stale reference behind).
    stale = [
        f"L{line}: {name}"
        for line, span in _inline_spans(path)
        for name in _DOTTED.findall(span)
        if not _resolves(name)
    ]
    assert not stale, f"{path.relative_to(ROOT)}: no such name: {stale}"


# ------------------------------------------ `python benchmarks/...` commands


class _Parsed(Exception):
    """Raised instead of running a benchmark once its arguments are parsed."""


def _benchmark_commands() -> list[tuple[str, Path, tuple[str, ...]]]:
    texts = [
        (f"{b.name}:L{number}", text)
        for b in SHELL_BLOCKS
        for number, text in _logical_lines(b)
    ]
    texts += [
        (f"{path.relative_to(ROOT).as_posix()}:L{line}", span)
        for path in DOC_FILES
        for line, span in _inline_spans(path)
    ]
    found = []
    for name, text in texts:
        try:
            simple = _simple_commands(text)
        except ValueError:
            continue
        for words in simple:
            while words and re.match(r"^[A-Za-z_]\w*=", words[0]):
                words = words[1:]
            if len(words) >= 2 and Path(words[0]).name.startswith("python"):
                script = words[1]
                if script.startswith("benchmarks/") and script.endswith(".py"):
                    found.append((name, ROOT / script, tuple(words[2:])))
    return found


BENCHMARK_COMMANDS = _benchmark_commands()


@pytest.mark.parametrize(
    ("name", "script", "argv"),
    BENCHMARK_COMMANDS,
    ids=[name for name, _, _ in BENCHMARK_COMMANDS],
)
def test_benchmark_command_parses(
    name: str, script: Path, argv: tuple[str, ...], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The script runs as __main__ up to its parse_args, which raises instead of
    # returning: nothing is benchmarked.
    shown = f"python {script.relative_to(ROOT)} {shlex.join(argv)}"
    assert script.is_file(), f"{name}: `{shown}`: no such script"
    original = argparse.ArgumentParser.parse_args

    def parse_args(self: argparse.ArgumentParser, *args: Any, **kwargs: Any) -> Any:
        original(self, *args, **kwargs)
        raise _Parsed

    monkeypatch.setattr(argparse.ArgumentParser, "parse_args", parse_args)
    monkeypatch.setattr(sys, "argv", [str(script), *argv])
    monkeypatch.syspath_prepend(str(script.parent))
    stderr = io.StringIO()
    try:
        with (
            contextlib.redirect_stderr(stderr),
            contextlib.redirect_stdout(io.StringIO()),
        ):
            runpy.run_path(str(script), run_name="__main__")
    except _Parsed:
        return
    except ImportError as exc:
        pytest.skip(f"{script.name} needs {exc.name}")
    except SystemExit as exc:
        if exc.code in (0, None):
            return
        pytest.fail(f"{name}: `{shown}` exits {exc.code}: {stderr.getvalue()}")
    pytest.fail(f"{name}: `{shown}` returned without parsing its arguments")


# ------------------------------------------------------ the checks can fail


def test_the_extractors_find_what_the_docs_show(tmp_path: Path) -> None:
    doc = tmp_path / "doc.md"
    doc.write_text(
        "<!-- docs-test: skip (starts a server) -->\n"
        "```python\nx = 1\n```\n"
        "```pycon\n>>> y = 2\n>>> y\n2\n```\n"
        "```console\n$ dpsvm train --data a.csv \\\n    --out m.json   # note\n"
        "dpsvm: trained ...\n$ DPSVM_DATA=/d dpsvm report m.json > r.txt\n```\n"
        "```bash\npython - <<'PY'\ndpsvm = 1\nPY\nmake run && dpsvm demo &\n"
        "curl -d '{\"a\":\n 1}' x/dpsvm/infer\n```\n",
        encoding="utf-8",
    )
    blocks = _blocks(doc)
    assert [b.lang for b in blocks] == ["python", "pycon", "console", "bash"]
    assert blocks[0].markers == (("skip", "(starts a server)"),)
    assert blocks[1].markers == ()
    assert _python_source(blocks[1]) == "y = 2\ny\n"
    argvs = [c.argv for b in blocks[2:] for c in _dpsvm_commands(b)]
    assert argvs == [
        ("train", "--data", "a.csv", "--out", "m.json"),
        ("report", "m.json"),
        ("demo",),
    ]


@pytest.mark.parametrize(
    "argv",
    [
        ("train", "--data", "a.csv", "--out", "m.json", "--no-such-flag"),
        ("train", "--data", "a.csv", "--out", "m.json", "--mechanism", "bogus"),
        ("train", "--data", "a.csv"),  # --out is required
        ("no-such-command",),
    ],
)
def test_a_bad_command_line_fails(argv: tuple[str, ...]) -> None:
    block = Block(ROOT / "README.md", 0, 0, "console", "", ())
    with pytest.raises(pytest.fail.Exception):
        test_dpsvm_command_parses(Command(block, 0, argv))


def test_every_doc_file_is_scanned() -> None:
    # a guard against an extractor that silently finds nothing
    assert len(PYTHON_BLOCKS) >= 10
    assert len(COMMANDS) >= 30
    assert len(INLINE) >= 20
    assert len(BENCHMARK_COMMANDS) >= 10
    dotted = [
        name
        for path in DOC_FILES
        for _, span in _inline_spans(path)
        for name in _DOTTED.findall(span)
    ]
    assert len(dotted) >= 100
    assert {b.path.name for b in PYTHON_BLOCKS} >= {
        "README.md",
        "schema.md",
        "margins.md",
    }


@pytest.mark.parametrize(
    "span", ["dpsvm train --no-such-flag", "dpsvm no-such-command", "dpsvm --tune"]
)
def test_a_bad_inline_span_fails(span: str) -> None:
    with pytest.raises(AssertionError):
        test_inline_dpsvm_span_names_real_options(ROOT / "README.md", 0, span)


def test_a_stale_dotted_name_is_found() -> None:
    assert _resolves("dpsvm.accounting.charge")
    assert _resolves("dpsvm.models.DPLinearSVC.fit")
    assert not _resolves("dpsvm.accounting.no_such_name")
    assert not _resolves("dpsvm.no_such_module.f")


def test_a_bad_benchmark_command_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    script = ROOT / "benchmarks" / "bench_scale.py"
    with pytest.raises(pytest.fail.Exception, match="no-such-flag"):
        test_benchmark_command_parses("x", script, ("--no-such-flag",), monkeypatch)
