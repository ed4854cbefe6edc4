"""A window onto a drawing larger than the widget, scrolled by the widget itself.

Textual's ScrollView keeps the drawing's size in a reactive that asks for a layout pass of the
whole screen whenever it changes, and its scrollbars are widgets of their own that the
compositor cuts every line for and renders through the styles pass. The graph and details
panes show a drawing of a new size on almost every key, so that was a third of their frame.
A Viewport keeps its offset and the drawing's size as plain numbers: a scroll or a new
drawing repaints the widget's own lines and nothing else, and a widget that wants a scroll
position indicator draws `thumb_cell` on its `thumb_rows` in a column of its own.
"""

from __future__ import annotations

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.geometry import Region, Size

WHEEL_LINES = 3
_THUMB = Style(color="#6c6c6c")


def thumb_rows(top: int, height: int, total: int) -> range:
    """Lines of a window of `height` lines at `top` of a drawing `total` lines high where the
    scroll position indicator goes (empty when all fits)."""
    if total <= height or height <= 0:
        return range(0)
    size = max(1, round(height * height / total))
    start = round(top * (height - size) / (total - height))
    return range(start, start + size)


def thumb_cell(on_thumb: bool, base: Style) -> Segment:
    """The scroll indicator's cell: a grey half block on the thumb, else blank."""
    return Segment("▐", base + _THUMB) if on_thumb else Segment(" ", base)


class Viewport:
    """Mix in before the Widget class (after LineCache). The window is the view's last
    `window_height` lines; the widget draws row `top + y` of its drawing on window line y,
    shifted left by `left` columns."""

    top = 0
    left = 0
    extent = Size(0, 0)  # the drawing's size

    @property
    def window_height(self) -> int:
        """Lines of the view the drawing scrolls in (a widget with fixed lines above says fewer)."""
        return self.view_size.height

    def set_extent(self, size: Size) -> None:
        """A drawing of a new size: the offset is kept where it still fits."""
        self.extent = size
        self.scroll_view(self.left, self.top)

    def scroll_view(self, x: int | None = None, y: int | None = None) -> bool:
        """Move the window (clamped to the drawing); True and a repaint when it moved."""
        width, height = self.view_size.width, self.window_height
        x = self.left if x is None else max(0, min(int(x), self.extent.width - width))
        y = self.top if y is None else max(0, min(int(y), self.extent.height - height))
        if (x, y) == (self.left, self.top):
            return False
        self.left, self.top = x, y
        self.refresh()
        return True

    def reveal(self, region: Region, centre: bool = False) -> None:
        """Bring `region` (drawing coordinates) into the window, or to its centre."""
        width, height = self.view_size.width, self.window_height
        if centre:
            self.scroll_view(region.x - (width - region.width) // 2, region.y - (height - region.height) // 2)
            return
        x, y = self.left, self.top
        if region.right > x + width:
            x = region.right - width
        if region.x < x:
            x = region.x
        if region.bottom > y + height:
            y = region.bottom - height
        if region.y < y:
            y = region.y
        self.scroll_view(x, y)

    def repaint_rows(self, first: int, count: int = 1) -> None:
        """Repaint rows of the drawing, those in the window."""
        top, height = self.top, self.window_height
        fixed = self.view_size.height - height
        self.refresh_view_lines([fixed + row - top for row in range(first, first + count) if 0 <= row - top < height])

    def thumb_rows(self) -> range:
        """Lines of the window where a scroll position indicator goes (empty when all fits)."""
        return thumb_rows(self.top, self.window_height, self.extent.height)

    def on_resize(self) -> None:
        self.scroll_view(self.left, self.top)  # clamped to the new size

    def on_mouse_scroll_down(self, event: events.MouseScrollDown) -> None:
        if self.scroll_view(y=self.top + WHEEL_LINES):
            event.stop()

    def on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        if self.scroll_view(y=self.top - WHEEL_LINES):
            event.stop()
