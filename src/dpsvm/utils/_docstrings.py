# SPDX-License-Identifier: BSD-3-Clause
"""Shared numpydoc parameter entries for families of formula functions.

The bound calculators of one paper take the same arguments again and again (κ,
λ, the sample size, ε, δ, …). Their numpydoc entries are written once, in a
table of the module, and a docstring names them on one line::

    Parameters
    ----------
    {params: kappa lam m eps@2}
    variant : str
        Which variant.

:func:`fill_params` replaces that line by the table's entries (in order, at the
line's indentation; a key ``eps@2`` is a second entry for a parameter ``eps``)
when the function is defined, so ``help()``, numpydoc and the
doctests see an ordinary docstring.

:func:`fill_and_check_params` does the same and also enforces, at every call,
the range that each table entry documents: an argument named in a
``{params: …}`` line is passed through that entry's check (e.g. ``kappa`` →
``check_positive``), so a parameter's documented range and its check are written
once, side by side, and not again in every function body.
"""

from __future__ import annotations

import functools
import inspect
import re
import textwrap
from collections.abc import Callable, Mapping
from typing import Any, TypeVar, cast

__all__ = ["fill_and_check_params", "fill_params"]

F = TypeVar("F", bound=Callable[..., Any])

#: A check ``check(value, name) -> value``, as in :mod:`dpsvm.validation`.
Check = Callable[[Any, str], Any]

_PLACEHOLDER = re.compile(
    r"^(?P<indent>[ \t]*)\{(?P<kind>params|text):(?P<names>[^}]*)\}[ \t]*$", re.M
)

#: Whole docstring sections that every calculator module shares, for ``{text: key}``.
SHARED_TEXT: dict[str, str] = {
    "raises_out_of_range": (
        "Raises\n------\nValueError\n    If an argument is out of range."
    ),
}


def _render(table: Mapping[str, str], keys: str, indent: str) -> str:
    lines: list[str] = []
    for key in keys.split():
        head, _, body = table[key].partition("\n")
        # "eps@2" is a second entry for a parameter named eps.
        lines.append(f"{indent}{key.partition('@')[0]} : {head.strip()}")
        lines.extend(
            f"{indent}    {line}" if line.strip() else ""
            for line in textwrap.dedent(body).splitlines()
        )
    return "\n".join(lines)


def _render_text(table: Mapping[str, str], key: str, indent: str) -> str:
    text = table.get(key.strip()) or SHARED_TEXT[key.strip()]
    return "\n".join(
        f"{indent}{line}" if line.strip() else "" for line in text.splitlines()
    )


def _expand(table: Mapping[str, str], match: re.Match[str]) -> str:
    if match["kind"] == "text":
        return _render_text(table, match["names"], match["indent"])
    return _render(table, match["names"], match["indent"])


def fill_params(table: Mapping[str, str]) -> Callable[[F], F]:
    """Return a decorator that expands ``{params: a b …}`` lines of a docstring.

    A line ``{text: key}`` is replaced by the whole text ``table[key]`` (or
    :data:`SHARED_TEXT` ``[key]``), e.g. a Raises section.

    Parameters
    ----------
    table : mapping of str to str
        For each parameter name, its type on the first line and its description
        on the following lines (indentation is ignored).

    Returns
    -------
    callable
        A decorator that rewrites ``func.__doc__`` and returns ``func``.

    Raises
    ------
    KeyError
        If a docstring names a parameter that the table does not have.

    Examples
    --------
    >>> table = {"n": "int\\n    Sample size."}
    >>> @fill_params(table)
    ... def f(n):
    ...     '''Do.
    ...
    ...     {params: n}
    ...     '''
    >>> print(f.__doc__.splitlines()[2:4])
    ['    n : int', '        Sample size.']
    """

    def decorate(func: F) -> F:
        doc = func.__doc__
        if doc:
            func.__doc__ = _PLACEHOLDER.sub(lambda m: _expand(table, m), doc)
        return func

    return decorate


def fill_and_check_params(
    table: Mapping[str, str], checks: Mapping[str, Check]
) -> Callable[[F], F]:
    """Return a decorator that expands a docstring and checks the named arguments.

    The docstring is expanded as by :func:`fill_params`. Each parameter named in
    a ``{params: …}`` line by a key that ``checks`` has (``eps@below_one`` names
    the parameter ``eps`` with the check ``checks["eps@below_one"]``) is checked
    at every call, in the order of the docstring and before the function body
    runs; the body receives the checked value (e.g. a float for an int). A
    parameter left at its default is checked too.

    Parameters
    ----------
    table : mapping of str to str
        The numpydoc entries, as for :func:`fill_params`.
    checks : mapping of str to callable
        For a key of ``table``, the check ``check(value, name) -> value`` that
        enforces the range its entry states. Keys without a check are only
        documented.

    Returns
    -------
    callable
        A decorator that rewrites ``func.__doc__`` and returns ``func`` wrapped
        (``functools.wraps``) so that it checks its arguments first.

    Raises
    ------
    KeyError
        As for :func:`fill_params` (a docstring names a key that ``table`` lacks).

    Examples
    --------
    >>> def positive(value, name):
    ...     if not value > 0:
    ...         raise ValueError(f"{name} must be > 0, got {value}.")
    ...     return float(value)
    >>> table = {"n": "int\\n    Records.", "eps": "float, default=1.0\\n    ε > 0."}
    >>> @fill_and_check_params(table, {"n": positive, "eps": positive})
    ... def records_per_epsilon(n, eps=1.0):
    ...     '''Divide the record count by ε.
    ...
    ...     {params: n eps}
    ...     '''
    ...     return n / eps
    >>> records_per_epsilon(4)
    4.0
    >>> records_per_epsilon(4, eps=0)
    Traceback (most recent call last):
    ...
    ValueError: eps must be > 0, got 0.
    """
    fill = fill_params(table)

    def decorate(func: F) -> F:
        keys = [
            key
            for match in _PLACEHOLDER.finditer(func.__doc__ or "")
            if match["kind"] == "params"
            for key in match["names"].split()
        ]
        fill(func)
        plan = [(key.partition("@")[0], checks[key]) for key in keys if key in checks]
        if not plan:
            return func
        parameters = inspect.signature(func).parameters
        # (name, position if it can be passed by position, default, check).
        steps = [
            (
                name,
                list(parameters).index(name)
                if parameters[name].kind is not inspect.Parameter.KEYWORD_ONLY
                else None,
                parameters[name].default,
                check,
            )
            for name, check in plan
        ]

        @functools.wraps(func)
        def checked(*args: Any, **kwargs: Any) -> Any:
            # A plain loop rather than Signature.bind: these formulas are cheap and
            # some are called once per query.
            values = list(args)
            for name, position, default, check in steps:
                if position is not None and position < len(values):
                    values[position] = check(values[position], name)
                elif name in kwargs:
                    kwargs[name] = check(kwargs[name], name)
                elif default is not inspect.Parameter.empty:
                    kwargs[name] = check(default, name)
            # A missing or doubled argument: the call below raises the TypeError.
            return func(*values, **kwargs)

        return cast(F, checked)

    return decorate
