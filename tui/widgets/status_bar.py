"""The top line of every screen: which screen, which module, what is selected, loading progress.

It changes on every selection change, so it is drawn with the Line API from plain segments:
going through `render()` (Text -> Visual -> Strips) cost about a millisecond per key.
"""

from __future__ import annotations

from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip
from textual.widget import Widget

from tui.model.categories import instruction_category
from tui.widgets.line_cache import LineCache
from tui.widgets.palette import category_style

_TITLE = Style(bold=True, reverse=True)
_BOLD = Style(bold=True)
_DIM = Style(dim=True)
_ITALIC = Style(italic=True)


class StatusBar(LineCache, Widget):
    DEFAULT_CSS = """
    StatusBar { height: 1; background: $panel; color: $text; }
    """

    def __init__(self, screen_title: str):
        super().__init__()
        self.screen_title = screen_title

    def on_mount(self) -> None:
        for name in ("selection", "status", "workspace"):
            self.watch(self.app, name, self._changed, init=False)

    def _changed(self) -> None:
        """Repaint when shown; a hidden screen repaints its bar when it is shown again."""
        if self.screen is self.app.screen:
            self.refresh()

    def render_line(self, y: int) -> Strip:
        width = self.view_size.width
        if y:
            return Strip.blank(width, self.base_style)
        strip = Strip(self._segments())
        if strip.cell_length > width:  # cut long lines with an ellipsis, as Text(overflow="ellipsis")
            last = next(iter(strip.crop(width - 1, width)), Segment(""))  # the ellipsis takes its style
            strip = Strip.join([strip.crop(0, width - 1), Strip([Segment("…", last.style)])])
        return strip.extend_cell_length(width).apply_style(self.base_style)

    def _segments(self) -> list[Segment]:
        out = [Segment(f" {self.screen_title} ", _TITLE)]
        ws = self.app.workspace
        if ws is None:
            out.append(Segment(f"  {self.app.status}", _ITALIC))
            return out
        entry = ws.current
        if entry is not None:
            out += [Segment("  "), Segment(entry.name, _BOLD)]
            if entry.stage:
                out.append(Segment(f" ({entry.stage})", _DIM))
        sel = ws.selection
        if sel.computation and entry is not None and entry.loaded and sel.computation != entry.load().entry.name:
            out.append(Segment(f"  > {sel.computation}", _DIM))
        ins = ws.instruction
        if ins is not None:
            kind = f" {ins.fusion_kind}" if ins.fusion_kind else ""
            out += [Segment("  | "), Segment(ins.name, category_style(instruction_category(ins))),
                    Segment(f" = {ins.opcode}{kind} {ins.shape.text}", _DIM)]
        return out
