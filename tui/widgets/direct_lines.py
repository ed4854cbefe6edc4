"""Line-API widgets whose painted lines are final, drawn without Textual's per-line pass.

Textual passes every line of a widget through its styles cache (border, padding, tint, a new
Strip each time) and then through the app's line filters. For a widget with none of those
styles that pass changes nothing but costs a Strip per line per frame, which the timeline's
frames (every line new on each zoom) feel. Colours painted by these widgets are all true
colour, so the filter that converts ANSI colours is skipped for the same reason; the others
(NO_COLOR's monochrome) still apply.
"""

from __future__ import annotations

from rich.style import Style
from textual.filter import ANSIToTruecolor
from textual.geometry import Region
from textual.strip import Strip


class DirectLines:
    """Mixin for a ScrollView without border or padding: it provides `line_at(y, top)` (line
    y of the widget with the content scrolled by `top`) and `blank_style`."""

    blank_style = Style()

    def line_at(self, y: int, top: int) -> Strip:
        raise AssertionError("a DirectLines widget defines line_at")

    def render_line(self, y: int) -> Strip:
        return self.line_at(y, int(self.scroll_offset.y))

    def render_lines(self, crop: Region) -> list[Strip]:
        x1, x2 = crop.column_span
        top = int(self.scroll_offset.y)
        strips = [self.line_at(y, top).adjust_cell_length(x2, self.blank_style) for y in crop.line_range]
        background = self.background_colors[1]
        for line_filter in self.get_line_filters():
            if not isinstance(line_filter, ANSIToTruecolor):
                strips = [strip.apply_filter(line_filter, background) for strip in strips]
        return [strip.crop(x1, x2) for strip in strips] if x1 else strips
