# SPDX-License-Identifier: BSD-3-Clause
"""Shared numpydoc fragments: written once, substituted into docstrings."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import TypeVar

T = TypeVar("T")

_MARKER = re.compile(r"^( *)%\((\w+)\)s$", re.MULTILINE)


#: Fragments shared across packages.
COMMON_FRAGMENTS = {
    "fit_y_ignored_returns_self": """y : None
    Ignored.

Returns
-------
self
    The fitted transformer.""",
}


def fill_doc(fragments: Mapping[str, str]) -> Callable[[T], T]:
    """Class/function decorator: replace each line ``%(name)s`` by a fragment.

    The fragment is indented like the marker line, so that one text can serve
    in a Parameters or Attributes section at any depth. An unknown name raises
    ``KeyError`` at import time.
    """

    def substitute(match: re.Match[str]) -> str:
        indent, name = match.group(1), match.group(2)
        return "\n".join(
            indent + line if line else line
            for line in fragments[name].strip("\n").splitlines()
        )

    def decorate(obj: T) -> T:
        if obj.__doc__:
            obj.__doc__ = _MARKER.sub(substitute, obj.__doc__)
        return obj

    return decorate
