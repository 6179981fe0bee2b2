# SPDX-License-Identifier: BSD-3-Clause
"""A one-line progress display on a text stream (no dependency).

The line is redrawn in place with a carriage return: work done / total, the
percentage, the elapsed time and an estimate of the time left, extrapolated
from the cost-weighted fraction of the work done so far.
"""

from __future__ import annotations

import math
import time
from typing import TextIO

__all__ = ["Progress", "format_duration"]


def format_duration(seconds: float) -> str:
    """A short human-readable duration.

    Parameters
    ----------
    seconds : float
        Duration in seconds (non-finite or negative values give ``"?"``).

    Returns
    -------
    str
        ``"42s"``, ``"3m05s"`` or ``"2h07m"``.

    Examples
    --------
    >>> format_duration(42.4), format_duration(185), format_duration(7630)
    ('42s', '3m05s', '2h07m')
    """
    if not math.isfinite(seconds) or seconds < 0:
        return "?"
    s = round(seconds)
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s // 3600}h{(s % 3600) // 60:02d}m"


class Progress:
    """Carriage-return progress line: ``label: done/total fits  pct  elapsed  ETA``.

    Parameters
    ----------
    total : int
        Number of work items (fits).
    total_weight : float
        Their summed cost weight (the ETA uses weights, which follow the cost
        of each item better than counts).
    stream : text stream or None
        Where the line goes; ``None`` disables the display.
    label : str, default="progress"
        Prefix of the line.
    min_interval : float, default=0.2
        Minimum seconds between two redraws.

    Examples
    --------
    >>> import io
    >>> buf = io.StringIO()
    >>> bar = Progress(4, 4.0, buf, label="demo", min_interval=0.0)
    >>> bar.advance(2, 2.0)
    >>> bar.close()
    >>> "demo: 2/4 fits" in buf.getvalue(), buf.getvalue().endswith("\\n")
    (True, True)
    """

    def __init__(
        self,
        total: int,
        total_weight: float,
        stream: TextIO | None,
        *,
        label: str = "progress",
        min_interval: float = 0.2,
    ) -> None:
        self.total = int(total)
        self.total_weight = float(total_weight)
        self.stream = stream
        self.label = label
        self.min_interval = float(min_interval)
        self.done = 0
        self.done_weight = 0.0
        self._start = time.monotonic()
        self._last = -math.inf
        self._width = 0

    def advance(self, count: int, weight: float) -> None:
        """Record finished work and redraw the line (rate-limited).

        Parameters
        ----------
        count : int
            Work items just finished.
        weight : float
            Their cost weight.
        """
        self.done += int(count)
        self.done_weight += float(weight)
        now = time.monotonic()
        if now - self._last >= self.min_interval or self.done >= self.total:
            self._last = now
            self._draw(now)

    def _draw(self, now: float) -> None:
        if self.stream is None:
            return
        elapsed = now - self._start
        frac = self.done_weight / self.total_weight if self.total_weight > 0 else 1.0
        frac = min(max(frac, 0.0), 1.0)
        eta = elapsed * (1.0 - frac) / frac if frac > 0 else math.inf
        line = (
            f"{self.label}: {self.done}/{self.total} fits  {100 * frac:5.1f}%  "
            f"elapsed {format_duration(elapsed)}  ETA {format_duration(eta)}"
        )
        pad = " " * max(0, self._width - len(line))
        self._width = len(line)
        self.stream.write("\r" + line + pad)
        self.stream.flush()

    def close(self) -> None:
        """Draw the final state and end the line."""
        if self.stream is None:
            return
        self._draw(time.monotonic())
        self.stream.write("\n")
        self.stream.flush()
