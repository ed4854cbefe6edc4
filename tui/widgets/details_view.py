"""A scrolling page of sections, rendered only as far as it is seen, with rows that link elsewhere.

The details of one instruction run to a few hundred lines (attributes, source, stack, cost),
but a screen shows fifty. Sections are callables rendered to Strips in order, only until the
visible rows are covered; scrolling further renders more. Link rows (operands, users) are one
line each: up/down move a cursor over them, Enter or a click follows one.
"""

from __future__ import annotations

from typing import Callable

from rich.console import Console, ConsoleOptions, RenderableType
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from tui.widgets.line_cache import LineCache

_CURSOR = Style(reverse=True)
_BOLD = Style(bold=True)


class Links:
    """A section of rows that each name a target (one line per row, never wrapped)."""

    def __init__(self, header: Text, rows: list[tuple[object, Text]]):
        self.header = header
        self.rows = rows


Section = Callable[[], "RenderableType | Links"]


class KeyValues:
    """Label/value rows with a hanging indent: what a two-column grid shows, at a fraction of
    rich.table's cost (it measures every cell twice)."""

    def __init__(self, rows: list[tuple[str, str | Text]]):
        self.rows = rows

    def __rich_console__(self, console: Console, options: ConsoleOptions):
        width = max((len(label) for label, _ in self.rows), default=0) + 2
        room = max(10, options.max_width - width)
        newline = Segment.line()
        for label, value in self.rows:
            text = value if isinstance(value, Text) else Text(value)
            if len(text) <= room and "\n" not in text.plain:  # the common case: segments, no wrap()
                yield Segment(label.ljust(width), _BOLD)
                yield from text.render(console, end="")
                yield newline
                continue
            for n, line in enumerate(text.wrap(console, room, overflow="fold")):
                row = Text(no_wrap=True)
                row.append(label.ljust(width) if n == 0 else " " * width, style="bold")
                row.append_text(line)
                yield row


class DetailsView(LineCache, ScrollView, can_focus=True):
    DEFAULT_CSS = """
    DetailsView { height: 1fr; overflow-x: hidden; }
    """
    BINDINGS = [
        Binding("up", "link(-1)", "Previous link", show=False),
        Binding("down", "link(1)", "Next link", show=False),
        Binding("enter", "follow", "Follow"),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown,space", "page(1)", "Page down", show=False),
        Binding("home", "edge(0)", "Top", show=False),
        Binding("end", "edge(1)", "Bottom", show=False),
    ]

    class Followed(Message):
        def __init__(self, target: object):
            super().__init__()
            self.target = target

    def __init__(self, *, id: str | None = None):
        super().__init__(id=id)
        self._sections: list[Section] = []
        self._done = 0  # sections rendered so far
        self._lines: list[Strip] = []
        self._links: list[tuple[int, object]] = []  # (line, target), in line order
        self._width = 0
        self.link_at: int | None = None  # index into _links

    def show(self, sections: list[Section]) -> None:
        """A new page: nothing is rendered until a frame asks for it."""
        self._sections = sections
        self._done, self._lines, self._links, self._width = 0, [], [], self.view_size.width
        self.link_at = None
        self.scroll_to(0, 0, animate=False, immediate=True)
        self.refresh()

    def _render_until(self, line: int) -> None:
        """Render sections in order until `line` exists or none are left.

        The virtual height only grows while sections remain (a layout pass per page would cost
        more than the page), and settles on the true height once the last section is in.
        """
        if self._width != self.view_size.width:
            self.show(self._sections)
        if not self._width or (len(self._lines) > line or self._done == len(self._sections)):
            return
        console = self.app.console
        inner = max(1, self._width - 2)  # one column of margin each side, drawn here: a CSS padding
        options = console.options.update_width(inner)  # would cost Textual two more Strips per line
        base = self.base_style
        margin = Segment(" ", base)
        lines = self._lines

        def add(segments) -> None:
            lines.append(Strip([margin, *Segment.apply_style(segments, base), margin], self._width))

        while len(lines) <= line and self._done < len(self._sections):
            part = self._sections[self._done]()
            self._done += 1
            if isinstance(part, Links):
                for segments in console.render_lines(part.header, options, pad=True):
                    add(segments)
                self._links += [(len(lines) + i, target) for i, (target, _) in enumerate(part.rows)]
                for _, text in part.rows:
                    text.truncate(inner, pad=True)
                    add(text.render(console, end=""))
            else:
                for segments in console.render_lines(part, options, pad=True):
                    add(segments)
        height = self.virtual_size.height
        if self._done == len(self._sections):
            height = len(lines)
        elif len(lines) + self.view_size.height > height:
            height = len(lines) + self.view_size.height
        if height != self.virtual_size.height or self.virtual_size.width != self._width:
            self.virtual_size = Size(self._width, height)

    def plain_text(self) -> str:
        """The whole page as plain text (renders what is not rendered yet)."""
        self._render_until(1 << 30)
        return "\n".join(strip.text[1:].rstrip() for strip in self._lines)

    # -- links ----------------------------------------------------------------
    @property
    def link_target(self) -> object | None:
        return self._links[self.link_at][1] if self.link_at is not None and self._links else None

    def action_link(self, step: int) -> None:
        self._render_until(self.scroll_offset.y + self.view_size.height)
        if not self._links:
            self.scroll_relative(y=step, animate=False)
            return
        old = self.link_at
        self.link_at = 0 if old is None else max(0, min(len(self._links) - 1, old + step))
        for index in (old, self.link_at):
            if index is not None:
                self.refresh_line(self._links[index][0])
        line = self._links[self.link_at][0]
        top = self.scroll_offset.y
        if not top <= line < top + self.view_size.height:
            self.scroll_to(y=max(0, line - self.view_size.height // 2), animate=False)

    def action_follow(self) -> None:
        if self.link_target is not None:
            self.post_message(self.Followed(self.link_target))

    def action_page(self, direction: int) -> None:
        self.scroll_relative(y=direction * max(1, self.view_size.height - 1), animate=False)

    def action_edge(self, end: int) -> None:
        if end:
            self._render_until(1 << 30)
            self.scroll_end(animate=False)
        else:
            self.scroll_home(animate=False)

    def on_click(self, event: events.Click) -> None:
        line = event.y + self.scroll_offset.y
        for index, (at, target) in enumerate(self._links):
            if at == line:
                old, self.link_at = self.link_at, index
                if old is not None:
                    self.refresh_line(self._links[old][0])
                self.refresh_line(line)
                self.post_message(self.Followed(target))
                return

    # -- rendering ------------------------------------------------------------
    def render_line(self, y: int) -> Strip:
        line = y + self.scroll_offset.y
        self._render_until(line)
        if line >= len(self._lines):
            return Strip.blank(self.view_size.width, self.base_style)
        strip = self._lines[line]
        if self.link_at is not None and self._links and self._links[self.link_at][0] == line:
            strip = strip.apply_style(_CURSOR if self.has_focus else Style(bgcolor="#3a3a3a"))
        return strip

    def on_focus(self) -> None:
        if self.link_at is not None and self._links:
            self.refresh_line(self._links[self.link_at][0])

    on_blur = on_focus


def link_row(cells: list[tuple[str | Text, int]]) -> Text:
    """One fixed-width row: each cell cut or padded to its width."""
    row = Text()
    for cell, width in cells:
        text = cell if isinstance(cell, Text) else Text(cell)
        if len(text) >= width:
            text = text[: width - 2] + Text("… ")
        row.append_text(text)
        row.append(" " * (width - len(text)))
    return row
