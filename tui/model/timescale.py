"""The timeline's visible time window and its ruler: zoom, pan, fit, ticks, human durations.

Kept apart from the widget so that the arithmetic (zoom about a point, clamping to the trace,
tick spacing) is tested without a terminal. Times are integer nanoseconds; a window may start
at a fraction of a nanosecond when zoomed far in, so its bounds are floats.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

MIN_NS_PER_CELL = 1.0  # fully zoomed in: one nanosecond per character cell, where doubles tell them apart
_ULPS_PER_CELL = 8  # where they do not (see least_width), a cell spans this many steps of a double
_UNITS = ((1e9, "s"), (1e6, "ms"), (1e3, "us"), (1.0, "ns"))


@dataclass(frozen=True)
class Window:
    """[t0, t1) in ns shown over `cells` character cells, within the trace's `span`."""

    t0: float
    t1: float
    cells: int
    span: tuple[int, int]

    @classmethod
    def whole(cls, span: tuple[int, int], cells: int) -> Window:
        lo, hi = span
        cells = max(cells, 1)
        return cls(float(lo), float(max(hi, lo + least_width(span, cells))), cells, span)

    @property
    def width(self) -> float:
        return self.t1 - self.t0

    @property
    def ns_per_cell(self) -> float:
        return self.width / self.cells

    def column(self, t: float) -> int:
        """The cell that time `t` falls in (may be outside 0..cells-1)."""
        return math.floor((t - self.t0) / self.ns_per_cell)

    def time_at(self, column: float) -> float:
        return self.t0 + column * self.ns_per_cell

    def contains(self, t: float) -> bool:
        return self.t0 <= t < self.t1

    def resized(self, cells: int) -> Window:
        """The same time range over more or fewer cells."""
        return self._clamped(self.t0, self.t1, max(cells, 1))

    def zoom(self, factor: float, at: float) -> Window:
        """Scale the width by `factor` (< 1 zooms in), keeping time `at` on the same column."""
        lo, hi = self.span
        least = least_width(self.span, self.cells)
        width = min(max(self.width * factor, least), max(hi - lo, least))
        share = (at - self.t0) / self.width if self.width else 0.5
        t0 = at - share * width
        return self._clamped(t0, t0 + width, self.cells)

    def pan(self, fraction: float) -> Window:
        """Move by `fraction` of the width (negative: earlier)."""
        shift = fraction * self.width
        return self._clamped(self.t0 + shift, self.t1 + shift, self.cells)

    def fit(self, a: float, b: float, margin: float = 0.1) -> Window:
        """Show [a, b] with `margin` of its width on each side (at least the minimum zoom)."""
        pad = (b - a) * margin
        width = max(b - a + 2 * pad, least_width(self.span, self.cells))
        middle = (a + b) / 2
        return self._clamped(middle - width / 2, middle + width / 2, self.cells)

    def reveal(self, a: float, b: float) -> Window:
        """The same zoom, moved as little as needed to show [a, b] (its start when it is wider)."""
        if a >= self.t0 and b <= self.t1:
            return self
        if b - a >= self.width or a < self.t0:
            return self._clamped(a - self.width * 0.1, a + self.width * 0.9, self.cells)
        return self._clamped(b - self.width * 0.9, b + self.width * 0.1, self.cells)

    def _clamped(self, t0: float, t1: float, cells: int) -> Window:
        """Keep the window over the trace: a window wider than the trace shows all of it."""
        lo, hi = self.span
        width = t1 - t0
        if width >= hi - lo:
            return Window(float(lo), float(lo) + width, cells, self.span)
        if t0 < lo:
            t0, t1 = float(lo), lo + width
        elif t1 > hi:
            t0, t1 = hi - width, float(hi)
        return Window(t0, t1, cells, self.span)


def least_width(span: tuple[int, int], cells: int) -> float:
    """The narrowest window: MIN_NS_PER_CELL a cell, or wider where a double cannot tell
    nanoseconds apart. Windows are doubles, and times since the epoch (1.7e18 ns, as tracers
    that write `time.time()` give them) step by 256 ns there: a 200 ns window would be none."""
    far = float(max(abs(span[0]), abs(span[1])))
    return cells * max(MIN_NS_PER_CELL, _ULPS_PER_CELL * math.ulp(far))


def format_ns(ns: float, digits: int = 3) -> str:
    """`1.5 ms`, `820 ns`, `12.25 s`: the largest unit that keeps the number >= 1."""
    size = abs(ns)
    for scale, unit in _UNITS:
        if size >= scale or unit == "ns":
            value = ns / scale
            text = f"{value:.{digits}g}" if abs(value) < 10 ** digits else f"{value:.0f}"
            return f"{text} {unit}"
    raise AssertionError("unreachable")


def tick_step(ns_per_cell: float, min_cells: int = 12) -> float:
    """Tick spacing in ns: 1, 2 or 5 times a power of ten, at least `min_cells` apart."""
    wanted = max(ns_per_cell * min_cells, 1.0)
    power = 10.0 ** math.floor(math.log10(wanted))
    for mult in (1, 2, 5, 10):
        if mult * power >= wanted:
            return mult * power
    raise AssertionError("unreachable")


def ticks(window: Window, origin: float, min_cells: int = 12) -> list[tuple[int, str]]:
    """(column, label) of each ruler tick in the window; labels are times since `origin`,
    in one unit chosen for the step so neighbouring labels differ visibly."""
    step = tick_step(window.ns_per_cell, min_cells)
    scale, unit = next((s, u) for s, u in _UNITS if step >= s or u == "ns")
    decimals = max(0, -math.floor(math.log10(step / scale) + 1e-9))
    first = math.ceil((window.t0 - origin) / step)
    out = []
    k = first
    while True:
        t = origin + k * step
        column = window.column(t + 1e-6 * step)
        if column >= window.cells:
            break
        if column >= 0:
            out.append((column, f"{k * step / scale:.{decimals}f} {unit}"))
        k += 1
    return out
