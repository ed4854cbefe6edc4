"""The buffers live at a program point: a virtualized table over a MemoryProfile's columns.

Rows are a NumPy array of value rows, so a point where tens of thousands of buffers are live
costs the same to draw as one with ten. Each row's strip is built once; moving the program
cursor repaints only the lines whose buffer changed.
"""

from __future__ import annotations

from typing import Callable

import numpy as np
from rich.segment import Segment
from rich.style import Style
from textual.binding import Binding
from textual.events import Click
from textual.geometry import Size
from textual.strip import Strip
from textual.widget import Widget

from tui.model.memory import KINDS, MemoryProfile
from tui.model.shapes import human_bytes
from tui.widgets.direct_keys import DirectKeys
from tui.widgets.line_cache import LineCache
from tui.widgets.viewport import Viewport, thumb_cell

_HEADER = Style(bold=True, underline=True)
_DIM = Style(dim=True)
_KIND_STYLES = {
    "parameter": Style(color="#8a8a8a"), "output": Style(color="#87d787"), "temp": Style(color="#5fafff"),
    "constant": Style(color="#d7d75f"), "thread-local": Style(color="#d787d7"), "other": Style(),
}
_CURSOR = Style(reverse=True)
_CURSOR_BLURRED = Style(bgcolor="#303030")


class BufferTable(DirectKeys, LineCache, Viewport, Widget, can_focus=True, inherit_bindings=False):
    DEFAULT_CSS = """
    BufferTable { height: 1fr; }
    """
    BINDINGS = [
        Binding("up,k", "move(-1)", "Up", show=False),
        Binding("down,j", "move(1)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("enter", "choose", "Select buffer", show=False),
    ]

    def __init__(self, *, id: str | None = None):
        super().__init__(id=id)
        self.profile: MemoryProfile | None = None
        self.rows = np.zeros(0, np.int64)
        self.cursor = 0
        self.sorted_by = "size"  # the column marked in the header: size, padding or live
        self.by_line = False  # the last column: each buffer's line of Python, not its name scope
        # Told the buffer (a value row of the profile) the cursor is on: called, not a message, so
        # what the screen shows for it is in the same frame as the cursor (a message comes a frame later).
        self.highlighted: Callable[[int], None] = lambda row: None
        self._drawing: tuple[range, Style] | None = None

    # -- data -----------------------------------------------------------------------------
    def set_profile(self, profile: MemoryProfile | None) -> None:
        self.profile = profile
        self.strip_cache.clear()
        self.rows = np.zeros(0, np.int64)
        self.cursor = 0
        self.top, self.extent = 0, Size(self.view_size.width, 0)
        self.refresh()

    @property
    def window_height(self) -> int:
        return max(self.view_size.height - 1, 0)  # the header stays

    def set_rows(self, rows: np.ndarray, keep: int | None = None) -> None:
        """Show these value rows; the cursor stays on `keep` (a value row) when it is among them."""
        old_rows, old_cursor, old_top, old_thumb = self.rows, self.cursor, self.top, self.thumb_rows()
        self.rows = rows
        found = np.flatnonzero(rows == keep) if keep is not None else ()
        self.cursor = int(found[0]) if len(found) else min(old_cursor, max(0, len(rows) - 1))
        self.set_extent(Size(self.view_size.width, len(rows)))  # a full repaint if the window moved
        if not self._scroll_to_cursor() and self.top == old_top:
            self._refresh_changed(old_rows, old_cursor, old_thumb)

    def _refresh_changed(self, old_rows: np.ndarray, old_cursor: int, old_thumb: range) -> None:
        """Repaint only the visible lines whose buffer, cursor mark or scroll thumb changed."""
        top, height, thumb = self.top, self.window_height, self.thumb_rows()
        new = self.rows[top: top + height]
        old = old_rows[top: top + height]
        changed = np.ones(height, bool)
        both = min(len(new), len(old))
        changed[:both] = new[:both] != old[:both]
        changed[max(len(new), len(old)):] = False
        for index in (old_cursor - top, self.cursor - top, *(set(old_thumb) ^ set(thumb))):
            if 0 <= index < height:
                changed[index] = True
        lines = np.flatnonzero(changed)
        if len(lines) > height // 2:
            self.refresh()
        else:
            self.refresh_view_lines(line + 1 for line in lines.tolist())

    def set_sorted_by(self, column: str) -> None:
        self.sorted_by = column
        self.refresh_view_lines([0])

    def set_by_line(self, by_line: bool) -> None:
        """The last column: the line of Python that made each buffer, or its name scope."""
        if by_line != self.by_line:
            self.by_line = by_line
            self.strip_cache.clear()
            self.refresh()

    @property
    def current(self) -> int | None:
        """The value row under the cursor."""
        return int(self.rows[self.cursor]) if 0 <= self.cursor < len(self.rows) else None

    def move_to(self, row: int) -> bool:
        found = np.flatnonzero(self.rows == row)
        if not len(found):
            return False
        self._set_cursor(int(found[0]), announce=False)
        return True

    # -- keys -----------------------------------------------------------------------------
    def action_move(self, delta: int) -> None:
        if len(self.rows):
            self._set_cursor(max(0, min(len(self.rows) - 1, self.cursor + delta)))

    def action_page(self, direction: int) -> None:
        self.action_move(direction * max(1, self.view_size.height - 2))

    def action_choose(self) -> None:
        if self.current is not None:
            self.highlighted(self.current)

    def on_click(self, event: Click) -> None:
        index = event.y - 1 + self.top
        if event.y >= 1 and 0 <= index < len(self.rows):
            self._set_cursor(index)

    def _set_cursor(self, index: int, announce: bool = True) -> None:
        old = self.cursor
        self.cursor = index
        if not self._scroll_to_cursor():
            self.repaint_rows(old)
            self.repaint_rows(index)
        if announce and self.current is not None:
            self.highlighted(self.current)

    def _scroll_to_cursor(self) -> bool:
        """Scroll so the cursor row shows; True if that repainted everything."""
        top, height = self.top, max(1, self.window_height)
        if self.cursor < top:
            return self.scroll_view(y=self.cursor)
        if self.cursor >= top + height:
            return self.scroll_view(y=self.cursor - height + 1)
        return False

    def on_focus(self) -> None:
        self.repaint_rows(self.cursor)  # its mark depends on focus

    on_blur = on_focus

    # -- drawing --------------------------------------------------------------------------
    def refresh(self, *regions, **kwargs):
        self._drawing = None  # what every line drawn next shares (the thumb, the cursor's mark)
        return super().refresh(*regions, **kwargs)

    def render_line(self, y: int) -> Strip:
        """Lines are kept as drawn (row, cursor mark and scroll thumb), so a row shown again, as
        after a jump back, is neither built nor encoded again."""
        width, cache = self.view_size.width, self.strip_cache
        if len(cache) > 4096:
            cache.clear()
        if y == 0:
            key = ("header", width, self.sorted_by)
            if key not in cache:
                titles = {"name scope": "source line"} if self.by_line else {}
                segments = [Segment(_cell(titles.get(name, name) + (" ▼" if name == self.sorted_by else ""), w, align),
                                    _HEADER) for name, w, align in COLUMNS]
                cache[key] = self.drawn_strip(
                    Strip(segments).crop(0, width).extend_cell_length(width).apply_style(self.base_style))
            return cache[key]
        index = y - 1 + self.top
        if self.profile is None or index >= len(self.rows):
            return Strip.blank(width, self.base_style)
        drawing = self._drawing
        if drawing is None:
            drawing = self._drawing = (self.thumb_rows(), _CURSOR if self.has_focus else _CURSOR_BLURRED)
        thumb, focused_mark = drawing
        row = int(self.rows[index])
        mark = None if index != self.cursor else focused_mark
        on_thumb = y - 1 in thumb
        key = (row, width, mark, on_thumb)
        line = cache.get(key)
        if line is None:
            strip = self._row_strip(row, width - 1)  # then the thumb's column
            if mark is not None:
                strip = strip.apply_style(mark)
            line = cache[key] = self.drawn_strip(Strip([*strip, thumb_cell(on_thumb, self.base_style)], width))
        return line

    def plain_text(self) -> str:
        """The buffers listed, in the order shown, as tab-separated columns with whole values
        (bytes exact, names uncut), for a spreadsheet or a bug report."""
        p = self.profile
        if p is None:
            return ""
        scope = "source line" if self.by_line else "name scope"
        lines = ["\t".join(["bytes", "buffer", "live", "kind", "padding bytes", "allocation", "offset", "shape", scope])]
        for row in self.rows.tolist():
            lines.append("\t".join(map(str, [
                int(p.padded[row]), p.names[row], f"{p.start[row]}-{p.end[row]}", KINDS[p.kind[row]], int(p.waste[row]),
                int(p.allocation[row]) if p.allocation[row] >= 0 else "", int(p.offset[row]) if p.allocation[row] >= 0 else "",
                p.values[row].shape.text, p.line_of(row) if self.by_line else p.scope_of(row)])))
        return "\n".join(lines)

    def _row_strip(self, row: int, width: int) -> Strip:
        p = self.profile
        kind = KINDS[p.kind[row]]
        waste = int(p.waste[row])
        allocation = f"#{p.allocation[row]} +{human_bytes(int(p.offset[row]))}" if p.allocation[row] >= 0 else "-"
        cells = {
            "size": (human_bytes(int(p.padded[row])), Style()),
            "buffer": (p.names[row], Style()),
            "live": (f"{p.start[row]}-{p.end[row]}", _DIM),
            "kind": (kind, _KIND_STYLES[kind]),
            "padding": (human_bytes(waste) if waste else "-", Style(color="#ffaf00") if waste else _DIM),
            "shape": (p.values[row].shape.text, _DIM),
            "allocation": (allocation, _DIM),
            "name scope": (p.line_of(row) if self.by_line else p.scope_of(row), _DIM),
        }
        segments = [Segment(_cell(cells[name][0], w, align), cells[name][1]) for name, w, align in COLUMNS]
        return Strip(segments).crop(0, width).extend_cell_length(width).apply_style(self.base_style)


# (title, width, alignment); the last column takes what is left.
COLUMNS = (("size", 10, ">"), ("buffer", 30, "<"), ("live", 11, "<"), ("kind", 10, "<"), ("padding", 9, ">"),
           ("allocation", 15, "<"), ("shape", 26, "<"), ("name scope", 0, "<"))


def _cell(text: str, width: int, align: str) -> str:
    """A column's text padded to its width plus one space (clipped with an ellipsis)."""
    if not width:
        return text
    if len(text) > width:
        text = text[: width - 1] + "…"
    return f"{text:{align}{width}} "
