"""The timeline's pictures of recent windows, so that going back to one redraws nothing.

Zooming in and out about a point and panning back are most of what one does in a trace
viewer; each of those keys lands on a window shown a moment ago. Its painted rows, binned
cells, steps line and rulers are kept here by window (a few at a time, the least recent let go), and
the view takes them back instead of binning and painting the same rows again.

Zooming in and out again does not give back the same floats, so a window within a thousandth
of a cell of a kept one is that one (`find` returns the kept window, which the view shows
exactly, so the picture is exact for it).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from textual.strip import Strip

from tui.model.timescale import Window
from tui.model.trace_bins import Cells

KEPT = 8  # windows


@dataclass
class Picture:
    """What the view painted in one window (the shown window's fills as it is painted): rows by
    line key (row, cursor on it, cursor event), each track row's binned cells, the steps line,
    and rulers by (marked range, zoom centre)."""

    lines: dict[tuple, Strip] = field(default_factory=dict)
    binned: dict[int, Cells] = field(default_factory=dict)
    steps_line: Strip | None = None
    rulers: dict[tuple, Strip] = field(default_factory=dict)


class Pictures:
    def __init__(self, kept: int = KEPT):
        self.kept = kept
        self._by_window: dict[Window, Picture] = {}  # oldest first

    def clear(self) -> None:
        self._by_window.clear()

    def put(self, window: Window, picture: Picture) -> None:
        self._by_window.pop(window, None)
        if self.kept <= 0:
            return
        self._by_window[window] = picture
        while len(self._by_window) > self.kept:
            del self._by_window[next(iter(self._by_window))]

    def find(self, window: Window) -> tuple[Window, Picture] | None:
        """The kept window that `window` is, and its picture, which leaves the store (the view
        owns it while showing it)."""
        kept = self.kept_as(window)
        return None if kept is None else (kept, self._by_window.pop(kept))

    def kept_as(self, window: Window) -> Window | None:
        """The kept window within a thousandth of a cell of `window`, if any."""
        tolerance = window.ns_per_cell / 1000
        return next((kept for kept in self._by_window
                     if kept.cells == window.cells and abs(kept.t0 - window.t0) <= tolerance and abs(kept.t1 - window.t1) <= tolerance),
                    None)
