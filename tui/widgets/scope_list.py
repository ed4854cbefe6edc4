"""Bytes per JAX name scope, ranked, each line shaded in proportion: "which part of my model holds
the memory".

A Line-API list: a program-cursor move repaints only the lines whose scope or bytes changed
(the shading is relative to a fixed scale, the profile's highest point, so one line's change
never redraws the others).
"""

from __future__ import annotations

from rich.segment import Segment
from rich.style import Style
from textual.geometry import Size
from textual.strip import Strip
from textual.widget import Widget

from tui.model.shapes import human_bytes
from tui.widgets.line_cache import LineCache
from tui.widgets.viewport import Viewport

_TITLE = Style(bold=True)
_BAR = Style(bgcolor="#1c3a5a")
_DIM = Style(dim=True)


class ScopeList(LineCache, Viewport, Widget, can_focus=False):
    """The title, then the scopes; the mouse wheel scrolls a list longer than the view. Its
    left rule is drawn in its lines, not as a CSS border: a bordered widget's lines all go
    through Textual's styles pass again whenever the list changes."""

    DEFAULT_CSS = """
    ScopeList { height: 1fr; }
    ScopeList > .scope-list--rule { color: $panel-lighten-1; }
    """
    COMPONENT_CLASSES = {"scope-list--rule"}

    def __init__(self, *, id: str | None = None):
        super().__init__(id=id)
        self.title_text = ""
        self.rows: list[tuple[str, int]] = []
        self.scale = 1

    @property
    def window_height(self) -> int:
        return max(self.view_size.height - 1, 0)  # the title stays

    def set_rows(self, title: str, rows: list[tuple[str, int]], scale: int) -> None:
        """Show `rows` (scope, bytes) shaded against `scale` bytes."""
        old, old_title = self.rows, self.title_text
        self.title_text, self.rows = title, rows
        if scale != self.scale:
            self.scale = max(1, scale)
            self.strip_cache.clear()
            old = []
        top = self.top
        self.set_extent(Size(self.view_size.width, len(rows)))
        if self.top != top:
            return  # scrolled back into the shorter list: all repainted
        lines = [0] if title != old_title else []
        for i in range(top, min(max(len(rows), len(old)), top + self.view_size.height - 1)):
            if i >= len(rows) or i >= len(old) or rows[i] != old[i]:
                lines.append(i - top + 1)
        self.refresh_view_lines(lines)

    def render_line(self, y: int) -> Strip:
        """Lines are kept as drawn, by what they show."""
        width, cache = self.view_size.width, self.strip_cache
        if len(cache) > 4096:
            cache.clear()
        index = y - 1 + self.top
        row = self.rows[index] if y and index < len(self.rows) else None
        key = ("title", self.title_text, width) if y == 0 else (*row, width) if row else ("blank", width)
        line = cache.get(key)
        if line is None:
            rule = Segment("│", self.base_style + self.get_component_rich_style("scope-list--rule"))
            line = cache[key] = self.drawn_strip(Strip([rule, *self._content(y == 0, row, width - 1)], width))
        return line

    def _content(self, title: bool, row: tuple[str, int] | None, width: int) -> Strip:
        """The title line, a scope's line (its bytes as a bar under the text), or a blank."""
        if title:
            return Strip([Segment(self.title_text, _TITLE)]).crop(0, width).extend_cell_length(width).apply_style(
                self.base_style)
        if row is None:
            return Strip.blank(width, self.base_style)
        scope, size = row
        style = _DIM if scope.startswith("(") else Style()
        room, shown = width - 11, scope
        if len(scope) > room > 1:  # the end of a scope tells scopes apart: keep it
            shown = "…" + scope[len(scope) - room + 1:]
        text = f"{human_bytes(size):>10} {shown}".ljust(width)[:width]
        shaded = size * width // self.scale  # the bar: a background under the text
        segments = [Segment(text[:shaded], style + _BAR), Segment(text[shaded:], style)]
        return Strip(segments).apply_style(self.base_style)
