"""The roofline chart: each op's achieved FLOP/s against its arithmetic intensity, both axes
logarithmic, under the chip's roofs (memory bandwidth up to the ridge point, peak compute past
it), drawn in braille dots (2x4 a cell). The op under the cursor is a bold dot; the others are
coloured by what bounds them. The picture is made once per size; moving the cursor draws the
row it is on again, no more.
"""

from __future__ import annotations

import math
from typing import Callable, NamedTuple

from rich.segment import Segment
from rich.style import Style
from textual.geometry import Region, Size
from textual.strip import Strip
from textual.widget import Widget

from tui.model.explain import si
from tui.model.roofline import Chip, Point, attainable

LABEL = 13  # the y axis labels' width ("100 TFLOP/s"), its rule included
_BITS = ((0x01, 0x08), (0x02, 0x10), (0x04, 0x20), (0x40, 0x80))  # a braille cell's dots: [row][column]
# the roofs, the ops by what bounds them (or on an unknown chip), and the op under the cursor
ROOF = Style(color="#8a8a8a")
MEMORY, COMPUTE, UNKNOWN = Style(color="#5fafff"), Style(color="#ffaf5f"), Style(color="#87d787")
CURSOR = Style(color="#ffff5f", bold=True)
_AXIS = Style(dim=True)
_PLAIN = Style()


class Scale(NamedTuple):
    """A log axis over whole decades, `dots` long."""

    low: int  # log10 of the first decade
    high: int  # and of the last
    dots: int

    def dot(self, value: float) -> int:
        at = (math.log10(value) - self.low) / (self.high - self.low) * (self.dots - 1)
        return min(max(round(at), 0), self.dots - 1)

    def value(self, dot: int) -> float:
        return 10 ** (self.low + dot / (self.dots - 1) * (self.high - self.low))


def decades(values: list[float], least: int = 2, most: int = 9) -> tuple[int, int]:
    """Whole decades around `values`, at least `least` of them; at most `most`, the top kept."""
    high = math.ceil(math.log10(max(values)))
    low = min(math.floor(math.log10(min(values))), high - least)
    return max(low, high - most), high


def decade_label(power: int) -> str:
    """10**power the short way: 0.01, 1, 100, 10k, 1M."""
    if power < 0:
        return f"{10.0 ** power:g}"
    for suffix, at in (("M", 6), ("k", 3)):
        if power >= at:
            return f"{10 ** (power - at)}{suffix}"
    return str(10 ** power)


class RooflineChart(Widget):
    DEFAULT_CSS = """
    RooflineChart { height: 1fr; }
    """

    def __init__(self, points: list[Point], chip: Chip | None):
        super().__init__()
        self.points = points
        self.chip = chip
        self.cursor = 0  # index into points
        self._picture: _Picture | None = None

    def move_to(self, cursor: int) -> None:
        """Move the cursor: the plot rows it leaves and lands on are drawn again, no others."""
        picture = self._picture
        if picture is None or picture.cursor_cell is None or picture.size != self.size:
            self.cursor = cursor
            self.refresh()
            return
        rows = {picture.cursor_cell(self.points[k])[0] for k in (self.cursor, cursor)}
        self.cursor = cursor
        self.refresh(*(Region(0, row, self.size.width, 1) for row in rows))

    def render_line(self, y: int) -> Strip:
        if self._picture is None or self._picture.size != self.size:
            self._picture = self.picture(*self.size)
        picture = self._picture
        if y >= len(picture.lines):
            return Strip.blank(self.size.width)
        if picture.cursor_cell is not None:
            cell = picture.cursor_cell(self.points[self.cursor])
            if y == cell[0]:
                return picture.cursor_line(y, cell)
        return picture.lines[y]

    def picture(self, width: int, height: int) -> _Picture:
        """The chart at this size without the cursor: plot rows, then the x axis's rule and labels."""
        plot_w, plot_h = width - LABEL, height - 2
        if plot_w < 8 or plot_h < 3 or not self.points:
            return _Picture(Size(width, height), [Strip.blank(width)] * height, None, None)
        chip = self.chip
        intensities = [p.intensity for p in self.points] + ([chip.ridge / 10, chip.ridge * 10] if chip else [])
        rates = [p.rate for p in self.points] + ([chip.peak_flops] if chip else [])
        x = Scale(*decades(intensities), 2 * plot_w)
        y = Scale(*decades(rates), 4 * plot_h)
        bits: dict[tuple[int, int], int] = {}  # (cell row, cell column) -> braille dots
        styles: dict[tuple[int, int], Style] = {}

        def dot(column: int, level: int, style: Style) -> None:
            row = y.dots - 1 - level  # dot rows count down from the top
            cell = (row // 4, column // 2)
            bits[cell] = bits.get(cell, 0) | _BITS[row % 4][column % 2]
            if style is not ROOF or cell not in styles:  # an op's dot keeps its colour in a cell the roof crosses
                styles[cell] = style

        if chip is not None:
            last = None
            for column in range(x.dots):
                level = y.dot(attainable(chip, x.value(column)))
                low, high = sorted((level, level if last is None else last))
                for joined in range(low, high + 1):  # the rising roof, joined up from one column to the next
                    dot(column, joined, ROOF)
                last = level
        colour = {"memory": MEMORY, "compute": COMPUTE}
        for point in reversed(self.points):  # the biggest ops drawn last, on top
            dot(x.dot(point.intensity), y.dot(point.rate), colour[chip.bound(point.intensity)] if chip else UNKNOWN)

        def cell_of(point: Point) -> tuple[int, int]:
            return (y.dots - 1 - y.dot(point.rate)) // 4, x.dot(point.intensity) // 2

        labels = {(y.dots - 1 - y.dot(10.0 ** power)) // 4: si(10.0 ** power, "FLOP/s") for power in range(y.low, y.high + 1)}
        axis = [Segment((labels.get(row) or "").rjust(LABEL - 2) + (" ┤" if row in labels else " │"), _AXIS)
                for row in range(plot_h)]

        def line(row: int, cursor: tuple[int, int] | None = None) -> Strip:
            return Strip([axis[row], *_plot_row(row, plot_w, bits, styles, cursor)], width)

        lines = [line(row) for row in range(plot_h)]
        ticks = {x.dot(10.0 ** power) // 2: decade_label(power) for power in range(x.low, x.high + 1)}
        rule = "".join("┴" if column in ticks else "─" for column in range(plot_w))
        lines.append(Strip([Segment(" " * (LABEL - 1) + "└" + rule, _AXIS)], width))
        under = [" "] * plot_w
        for column, text in ticks.items():
            start = min(max(column - len(text) // 2, 0), plot_w - len(text))
            if all(c == " " for c in under[max(start - 1, 0) : start + len(text) + 1]):
                under[start : start + len(text)] = text
        lines.append(Strip([Segment("FLOP/byte".rjust(LABEL - 2) + "  " + "".join(under), _AXIS)], width))
        return _Picture(Size(width, height), lines, cell_of, line)


class _Picture(NamedTuple):
    """The chart drawn at one size, and how to place and draw the cursor on it."""

    size: Size
    lines: list[Strip]
    cursor_cell: Callable[[Point], tuple[int, int]] | None  # (row, column) of a point's cell; None: nothing drawn
    cursor_line: Callable[[int, tuple[int, int]], Strip] | None  # a plot row with the cursor in that cell


def _plot_row(row: int, width: int, bits: dict, styles: dict, cursor: tuple[int, int] | None) -> list[Segment]:
    """One row of plot cells as segments, one per run of cells in one style."""
    segments: list[Segment] = []
    text, style = [], None
    for column in range(width):
        cell = (row, column)
        if cell == cursor:
            char, cell_style = "●", CURSOR
        elif cell in bits:
            char, cell_style = chr(0x2800 + bits[cell]), styles[cell]
        else:
            char, cell_style = " ", _PLAIN
        if cell_style is not style and text:
            segments.append(Segment("".join(text), style))
            text = []
        text.append(char)
        style = cell_style
    if text:
        segments.append(Segment("".join(text), style))
    return segments
