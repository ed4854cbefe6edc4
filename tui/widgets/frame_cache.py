"""Values Textual recomputes on every access but that only change on a resize or a restyle.

`Widget.rich_style` walks the ancestors' CSS and `Widget.size` asks the compositor for the
widget's region, each time they are read. A Line-API widget reads both for every line it
draws and every cursor move, which made them the costliest calls of a frame.
"""

from __future__ import annotations

from rich.style import Style
from textual.geometry import Region, Size


class FrameCache:
    """Mix in before the Widget class: `base_style` and `view_size`, cached; a cache for drawn
    lines; and line repaints that do not ask for the size again."""

    _base_style: Style | None = None
    _view_size: Size | None = None
    _view_for: Size | None = None  # the outer size `_view_size` was read at
    _strip_cache: dict | None = None

    @property
    def strip_cache(self) -> dict:
        """Drawn lines a widget keeps by its own keys; emptied when the style changes (they hold it)."""
        if self._strip_cache is None:
            self._strip_cache = {}
        return self._strip_cache

    @property
    def base_style(self) -> Style:
        if self._base_style is None:
            self._base_style = self.rich_style
        return self._base_style

    @property
    def view_size(self) -> Size:
        """`self.size` (the content area), read again only when the outer size changed. The outer
        size is set by the layout pass itself, before any line is drawn at the new size."""
        if self._view_for != self._size:
            self._view_for, self._view_size = self._size, self.size
        return self._view_size

    def refresh_view_lines(self, lines) -> None:
        """Repaint these lines of the view (screen lines, not virtual ones), one region per run."""
        width, run = self.view_size.width, None
        for y in sorted(lines):
            if run is not None and y == run[0] + run[1]:
                run[1] += 1
                continue
            if run is not None:
                self.refresh(Region(0, run[0], width, run[1]))
            run = [y, 1]
        if run is not None:
            self.refresh(Region(0, run[0], width, run[1]))

    def notify_style_update(self) -> None:
        self._base_style = None
        self._strip_cache = None
        super().notify_style_update()
