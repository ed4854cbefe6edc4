"""Bytes over an axis (program order, or time) as columns of eighth blocks, one band per series.

Many points share a column on a big module, so a column shows the largest value it covers:
a peak never disappears between columns. Title lines sit above the chart and a caption line
below it (the screen's summary and cursor line live here rather than in widgets of their own:
every widget costs a little on every frame). The bars are drawn once per size and data; a
cursor move repaints the caption, and the band rows only when the cursor lands in another
column; a marked span (a buffer's life) is drawn on the axis line alone.
"""

from __future__ import annotations

import textwrap
from typing import Callable

import numpy as np
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.events import Click
from textual.geometry import Region
from textual.strip import Strip
from textual.widget import Widget

from tui.model.shapes import human_bytes
from tui.widgets.line_cache import LineCache

BLOCKS = " ▁▂▃▄▅▆▇█"
GUTTER = 10
MIN_CHART_ROWS = 5  # markers, three band rows, the axis
SERIES_COLORS = ("#5fafff", "#d787d7", "#87d787", "#ffaf00")
_AXIS = Style(color="#8a8a8a")
_CURSOR = Style(bgcolor="#5f5f00", color="#ffffff", bold=True)
_SPAN = Style(color="#ffd75f", bold=True)
_HEAVY = str.maketrans({"─": "━", "┴": "┷", "└": "┗", "┘": "┛"})  # the axis under a buffer's span; labels kept
_NOTE = Style(dim=True, italic=True)


class Marker:
    """A labelled point on the axis, drawn above the bands: `▼XLA peak`."""

    def __init__(self, at: int, label: str, color: str):
        self.at, self.label, self.style = at, label, Style(color=color, bold=True)


class MemoryChart(LineCache, Widget):
    DEFAULT_CSS = """
    MemoryChart { height: 10; }
    """

    def __init__(self, *, id: str | None = None, tick: Callable[[int], str] = lambda t: f"#{t}", caption: bool = False):
        super().__init__(id=id)
        self.series: list[tuple[str, np.ndarray]] = []
        self.markers: list[Marker] = []
        self.titles: list[Text] = []
        self.caption: list[Segment] | None = [] if caption else None  # a last line, when asked for
        self.note = ""  # shown instead of the chart when there are no series
        # A click on a column (the first axis point it covers): called, not a message, so the
        # screen's answer is in the same frame (a message comes a frame later).
        self.clicked: Callable[[int], None] = lambda point: None
        self.cursor: int | None = None
        self.span: tuple[int, int] | None = None  # [start, end] drawn over the axis (a buffer's life)
        self.tick = tick
        self._rows: list | None = None
        self._rows_size = None  # the size the rows were drawn for
        self._bands_top = 0
        self._points = 0

    # -- data -----------------------------------------------------------------------------
    def set_series(self, series: list[tuple[str, np.ndarray]], markers: list[Marker] = ()) -> None:
        self.series = series
        self.markers = list(markers)
        self._points = max((len(values) for _, values in series), default=0)
        self._rows = None
        self.refresh()

    def set_titles(self, titles: list[Text]) -> None:
        self.titles = titles
        self._rows = None
        self.refresh()

    def set_note(self, note: str) -> None:
        self.note, self.series = note, []
        self._rows = None
        self.refresh()

    def set_caption(self, caption: list[Segment]) -> None:
        """The line under the chart, as ready segments (it changes on every cursor move)."""
        if self.caption is not None and caption != self.caption:
            self.caption = caption
            self.refresh(Region(0, self.view_size.height - 1, self.view_size.width, 1))

    def set_cursor(self, point: int | None) -> None:
        """Move the cursor; the bands repaint only when it lands in another column."""
        old = self.cursor
        self.cursor = point
        if self._column(old) != self._column(point):
            self._refresh_chart()

    def set_span(self, span: tuple[int, int] | None) -> None:
        """Mark [start, end] on the axis line (only that line repaints)."""
        if span != self.span:
            self.span = span
            if self._rows is None:
                self.refresh()
            else:
                self.refresh(Region(0, len(self._rows) - 1, self.view_size.width, 1))

    def _refresh_chart(self) -> None:
        """Repaint the bands and the axis (the lines the cursor column crosses)."""
        if self._rows is None:
            self.refresh()
            return
        top = self._bands_top
        self.refresh(Region(0, top, self.view_size.width, len(self._rows) - top))

    # -- geometry -------------------------------------------------------------------------
    @property
    def plot_width(self) -> int:
        return max(1, self.view_size.width - GUTTER)

    def _column(self, point: int | None) -> int | None:
        """The first plot column that shows `point` (see _columns)."""
        n, width = self._points, self.plot_width
        if point is None or n == 0:
            return None
        return min(width - 1, -(-point * width // n) if n < width else point * width // n)

    def point_at(self, column: int) -> int:
        """The axis point a plot column shows (the first it covers, where it covers several)."""
        n, width = self._points, self.plot_width
        if n == 0:
            return 0
        return min(n - 1, column * n // width if n < width else -(-column * n // width))

    def _columns(self, values: np.ndarray) -> np.ndarray:
        """Per plot column, the largest value among the points it covers."""
        width, n = self.plot_width, len(values)
        if n == 0:
            return np.zeros(width, np.int64)
        if n < width:
            return values[(np.arange(width) * n) // width]
        firsts = -(-np.arange(width) * n // width)
        return np.maximum.reduceat(values, firsts)

    # -- drawing --------------------------------------------------------------------------
    def _build_rows(self) -> list:
        """Per chart line: a list of ready segments (titles, markers, notes), or (gutter, style, bars)."""
        width = self.plot_width
        room = self.view_size.height - (self.caption is not None)
        titles = self.titles[: max(1, room - MIN_CHART_ROWS)]  # the last titles give way to the bars
        rows: list = [self._text_segments(title) for title in titles]
        height = room - len(rows)
        if not self.series:
            for line in textwrap.wrap(self.note, max(10, self.view_size.width - 1))[: max(0, height)]:
                rows.append([Segment(line, _NOTE)])
            return rows
        if self.markers:
            rows.append(self._marker_segments(width))
        self._bands_top = len(rows)
        bands = len(self.series)
        band_height = max(1, (height - 1 - bool(self.markers)) // bands)
        for number, (label, values) in enumerate(self.series):
            columns = self._columns(values)
            top = int(columns.max()) if len(columns) else 0
            eighths = np.zeros(width, np.int64) if top <= 0 else np.ceil(columns * (band_height * 8) / top).astype(np.int64)
            style = Style(color=SERIES_COLORS[number % len(SERIES_COLORS)])
            for r in range(band_height):
                fill = np.clip(eighths - (band_height - 1 - r) * 8, 0, 8)
                gutter = human_bytes(top) if r == 0 else label if r == band_height - 1 else ""
                rows.append((gutter + "│", style, "".join(BLOCKS[f] for f in fill.tolist())))
        rows.append(("└", _AXIS, self._axis_text(width)))
        return rows

    def _text_segments(self, text: Text) -> list[Segment]:
        return list(text.render(self.app.console)) if text.plain else []

    def _marker_segments(self, width: int) -> list[Segment]:
        """A `▼` at each marker's column with its label beside it: to the right, or to the left when
        the next marker is too close (markers in the same or a neighbouring column share one)."""
        placed: list[list] = []  # [column, label, style]
        for marker in self.markers:
            column = self._column(marker.at)
            if column is None:
                continue
            near = next((p for p in placed if abs(p[0] - column) <= 1), None)
            if near is not None:
                near[1] += "·" + marker.label
            else:
                placed.append([column, marker.label, marker.style])
        placed.sort(key=lambda p: p[0])
        segments, at = [Segment(" " * GUTTER)], 0
        for i, (column, label, style) in enumerate(placed):
            limit = placed[i + 1][0] if i + 1 < len(placed) else width
            if column + 1 + len(label) < limit:
                text, start = "▼" + label, column
            elif column - len(label) >= at:
                text, start = label + "▼", column - len(label)
            else:
                text, start = "▼", column
            if start < at:
                continue
            segments.append(Segment(" " * (start - at)))
            segments.append(Segment(text, style))
            at = start + len(text)
        return segments

    def _axis_text(self, width: int) -> str:
        cells = ["─"] * width
        if self._points == 0:
            return "".join(cells)
        end_label = self.tick(self._points - 1) + "┘"
        end_start = max(0, width - len(end_label))
        cells[end_start:] = end_label[: width - end_start]
        for fraction in (0, 0.25, 0.5, 0.75):
            column = int(fraction * (width - 1))
            label = "┴" + self.tick(self.point_at(column))
            if column + len(label) < end_start - 1:
                cells[column:column + len(label)] = label
        return "".join(cells)

    def render_line(self, y: int) -> Strip:
        if self._rows is None or self._rows_size != self.view_size:
            self._rows, self._rows_size = self._build_rows(), self.view_size
            self.strip_cache.clear()
        width = self.view_size.width
        if self.caption is not None and y == self.view_size.height - 1:
            return self._caption_strip(width)
        elif y >= len(self._rows):
            return Strip.blank(width, self.base_style)
        elif isinstance(self._rows[y], list):
            segments = self._rows[y]
        else:
            key = (y, self._column(self.cursor), self.span if y == len(self._rows) - 1 else None)
            strip = self.strip_cache.get(key)
            if strip is None:
                if len(self.strip_cache) > 4096:
                    self.strip_cache.clear()
                gutter, style, text = self._rows[y]
                segments = [Segment(gutter[-GUTTER:].rjust(GUTTER), _AXIS), *self._styled(text, y, style)]
                strip = self.strip_cache[key] = self.drawn_strip(
                    Strip(segments).crop(0, width).extend_cell_length(width).apply_style(self.base_style))
            return strip
        return Strip(segments).crop(0, width).extend_cell_length(width).apply_style(self.base_style)

    def _caption_strip(self, width: int) -> Strip:
        """The caption's line, kept by what it says: back at a point shown lately, the line
        (and its encoding) is the one drawn then."""
        key = ("caption", tuple(self.caption), width)
        strip = self.strip_cache.get(key)
        if strip is None:
            if len(self.strip_cache) > 4096:
                self.strip_cache.clear()
            strip = self.strip_cache[key] = self.drawn_strip(
                Strip(self.caption).crop(0, width).extend_cell_length(width).apply_style(self.base_style))
        return strip

    def _styled(self, text: str, y: int, style: Style) -> list[Segment]:
        """A chart row with the cursor column marked; on the axis line, the span drawn in heavy
        line over the axis (its tick labels, `#45`, stay as they are, in the span's colour)."""
        cuts = {0, len(text)}
        span = None
        if self.span is not None and y == len(self._rows) - 1:
            span = (self._column(self.span[0]), self._column(self.span[1]))
            covered = text[span[0]: span[1] + 1].translate(_HEAVY)
            text = text[: span[0]] + covered + "━" * (span[1] + 1 - span[0] - len(covered)) + text[span[1] + 1:]
            cuts |= {span[0], span[1] + 1}
        cursor = self._column(self.cursor)
        if cursor is not None:
            cuts |= {cursor, cursor + 1}
        bounds = sorted(c for c in cuts if 0 <= c <= len(text))
        out = []
        for a, b in zip(bounds, bounds[1:]):
            if a == cursor:
                piece_style = style + _CURSOR
            elif span is not None and span[0] <= a <= span[1]:
                piece_style = _SPAN
            else:
                piece_style = style
            out.append(Segment(text[a:b], piece_style))
        return out

    def on_click(self, event: Click) -> None:
        if event.x >= GUTTER and self._points:
            self.clicked(self.point_at(event.x - GUTTER))
