"""A scrolling page of sections, rendered only as far as it is seen, with rows that link elsewhere.

The details of one instruction run to a few hundred lines (attributes, source, stack, cost),
but a screen shows fifty. Sections are callables laid out (tui/widgets/page_lines.py) in order,
only until the visible rows are covered; scrolling further lays out more. Link rows (operands,
users) are one line each, made when first drawn: up/down move a cursor over them, Enter or a
click follows one. The page scrolls itself (Viewport) and draws its scroll thumb in its right
margin column.

Pages of one module repeat most of their lines (blank lines, titles, a shape's rows, an op's
row in the operands of the next op and the users of the last): three in four lines of the next
page were on an earlier one. A part laid out alike before (same text and styles, same width)
gives the same lines, and a line given before the same Strip, encoded already.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from rich.console import Group, RenderableType
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.geometry import Size
from textual.strip import Strip
from textual.widget import Widget

from tui.model.words import middle_cut
from tui.widgets import page_lines
from tui.widgets.direct_keys import DirectKeys
from tui.widgets.line_cache import LineCache
from tui.widgets.viewport import Viewport, thumb_cell, thumb_rows

_CURSOR = Style(reverse=True)


Cells = list[tuple]  # (text, style, width) of each cell of a row, and (see fitted) the most it may grow to
KEPT = 1024  # parts' lines and Strips kept for the pages to come, then let go all at once (see remember)
FIRST_CELL = (16, 48)  # the first cell's least and most width when it takes up the row's slack (see fitted)


class Links:
    """A section of rows that each name a target (one line per row, never wrapped), under a head
    and a row of column titles (cells like the rows', so they line up at any width). A row's
    cells are made when the row is first drawn: an op can have thousands of users."""

    def __init__(self, header: Text, targets: list, row: Callable[[object], Cells], titles: Cells | None = None):
        self.header = header
        self.titles = titles
        self.targets = targets
        self.row = row


Section = Callable[[], "RenderableType | Links"]


@dataclass
class Page:
    """One page's sections and what of them is laid out so far, at one width. Made by `show`,
    or ahead of time by `prepare` (the page the next key will show), then shown as it is."""

    sections: list[Section]
    width: int
    styled: int  # the view's style generation its lines were drawn in (see restyled)
    done: int = 0  # sections laid out so far
    lines: list[list[Segment] | None] = field(default_factory=list)  # each line but its right margin (the thumb's column)
    rows: dict[int, tuple[Callable[[object], Cells], object]] = field(default_factory=dict)  # link rows not drawn yet
    links: list[tuple[int, object]] = field(default_factory=list)  # (line, target), in line order
    strips: dict[tuple[int, bool], Strip] = field(default_factory=dict)  # (line, on the thumb) -> as handed over (kept with
    # the page: a page kept or laid ahead shows the same Strips after the view's shared ones are let go)

    @property
    def complete(self) -> bool:
        return self.done == len(self.sections)

    def extent_height(self, view_height: int, at_least: int = 0) -> int:
        """While sections remain the page is taken to go on for at least another screen (and, as
        it is laid out further, never shorter than `at_least`); exact once the last is in."""
        return len(self.lines) if self.complete else max(at_least, len(self.lines) + view_height)

    @property
    def inner(self) -> int:
        """Columns for the text: one of margin each side, drawn by the view (a CSS padding would
        cost two more Strips a line)."""
        return max(1, self.width - 2)


class DetailsView(DirectKeys, LineCache, Viewport, Widget, can_focus=True):
    DEFAULT_CSS = """
    DetailsView { height: 1fr; }
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

    def __init__(self, *, id: str | None = None):
        super().__init__(id=id)
        self.styled = 0  # style generation: one more at each restyle
        self.page = Page([], 0, 0)
        self._styles: dict = {}  # a segment's style -> the style it is drawn in (see _line)
        self._laid: dict = {}  # (content key, width) -> its lines as drawn, shared by the pages that show them
        self._shared: dict = {}  # (id(line), on the thumb) -> (line, its Strip): see _strip
        self.link_at: int | None = None  # index into page.links
        # Enter or a click on a link (its target): called, not a message, so the screen's answer
        # is in the same frame (a message comes a frame later).
        self.followed: Callable[[object], None] = lambda target: None

    def show(self, sections: list[Section] | Page) -> None:
        """A new page (its sections, or one prepared ahead): nothing more is laid out until a
        frame asks for it."""
        page = sections if isinstance(sections, Page) else Page(sections, self.view_size.width, self.styled)
        if page.width != self.view_size.width or page.styled != self.styled:
            page = Page(page.sections, self.view_size.width, self.styled)
        self.page, self.link_at, self.top = page, None, 0
        self._set_extent(grown_from=0)
        self.refresh()

    def prepare(self, sections: list[Section]) -> Page:
        """A page laid out and drawn as far as a screen shows, for `show` to take later."""
        page = Page(sections, self.view_size.width, self.styled)
        self._lay_out(page, self.view_size.height)
        height = self.view_size.height
        thumb = thumb_rows(0, height, page.extent_height(height))  # as `show` will have it
        self.encode_ahead(self._strip(page, line, line in thumb) for line in range(min(len(page.lines), height)))
        return page

    def _render_until(self, line: int) -> None:
        """Lay out sections in order until `line` exists or none are left."""
        if self.page.width != self.view_size.width:
            self.show(self.page.sections)
        if self._lay_out(self.page, line):
            self._set_extent()

    def _set_extent(self, grown_from: int | None = None) -> None:
        before = self.extent.height if grown_from is None else grown_from
        self.extent = Size(self.page.width, self.page.extent_height(self.view_size.height, before))

    def _lay_out(self, page: Page, line: int) -> bool:
        """Lay out `page`'s sections until `line` exists; False if nothing was left to do."""
        if not page.width or len(page.lines) > line or page.complete:
            return False
        console, lines = self.app.console, page.lines
        while len(lines) <= line and not page.complete:
            part = page.sections[page.done]()
            page.done += 1
            header = part.header if isinstance(part, Links) else part
            lines += self._laid_out(header, page.inner, console)
            if isinstance(part, Links) and part.titles:
                lines.append(self._row(part.titles, page.inner))
            if isinstance(part, Links):
                for target in part.targets:
                    page.links.append((len(lines), target))
                    page.rows[len(lines)] = (part.row, target)
                    lines.append(None)
        return True

    def _laid_out(self, renderable, width: int, console) -> list[list[Segment]]:
        """The renderable's lines as drawn. A page's parts recur across instructions (a title, a
        shape's row, an operand's row): a part laid out before alike gives the same lines."""
        if isinstance(renderable, Group):
            return [line for part in renderable.renderables for line in self._laid_out(part, width, console)]
        if isinstance(renderable, page_lines.KeyValues):
            label_width = renderable.label_width
            return [line for label, value in renderable.rows
                    for line in self._kept(("row", label, page_lines.content_key(value), label_width, width),
                                           lambda: page_lines.row_lines(label, value, label_width, width, console))]
        return self._kept((page_lines.content_key(renderable), width),
                          lambda: page_lines.lines(renderable, width, console))

    def _kept(self, key: tuple, lay_out: Callable[[], list]) -> list[list[Segment]]:
        """The lines kept for `key` (None in it: cannot be told apart, laid out each time)."""
        found = self._laid.get(key) if None not in key else None
        if found is None:
            found = [self._line(line) for line in lay_out()]
            if None not in key:
                remember(self._laid, key, found)
        return found

    def _row(self, cells: Cells, width: int) -> list[Segment]:
        """A link row's line (an op is a row of many pages: an operand of the next op, a user of the last)."""
        return self._kept((tuple(cells), width), lambda: [link_row(cells, width)])[0]

    def notify_style_update(self) -> None:
        self._styles, self._laid, self._shared = {}, {}, {}
        super().notify_style_update()

    def restyled(self) -> None:
        """Lay the page out again in the new styles, where it was (pages made before are stale)."""
        self.styled += 1
        top, link = self.top, self.link_at
        self.show(self.page.sections)
        self._render_until(top + self.view_size.height)
        self.scroll_view(y=top)
        self.link_at = link if link is not None and link < len(self.page.links) else None

    def _line(self, segments) -> list[Segment]:
        """A laid-out line on the page's background, in the styles the screen draws (see
        drawn_style); neighbours drawn alike are one segment (a line of a page has tens, and
        each costs again when it is encoded and placed)."""
        base, drawn, styles = self.base_style, self.drawn_style, self._styles
        margin = styles.get(None)
        if margin is None:
            margin = styles[None] = drawn(base)
        out, run, run_style = [], " ", margin
        for text, style, control in segments:
            final = styles.get(style)
            if final is None:
                final = styles[style] = drawn(base + style if style is not None else base)
            if final is run_style and control is None:
                run += text
                continue
            if run:
                out.append(Segment(run, run_style))
            if control is not None:
                out.append(Segment(text, final, control))
                run, run_style = "", None
            else:
                run, run_style = text, final
        if run:
            out.append(Segment(run, run_style))
        return out

    def _drawn(self, line: int, page: Page | None = None) -> list[Segment]:
        """A line of the page (this one by default), its link row drawn the first time."""
        page = page or self.page
        found = page.lines[line]
        if found is None:
            row, target = page.rows.pop(line)
            found = page.lines[line] = self._row(row(target), page.inner)
        return found

    def plain_text(self) -> str:
        """The whole page as plain text (renders what is not rendered yet)."""
        self._render_until(1 << 30)
        lines = (self._drawn(line) for line in range(len(self.page.lines)))
        return "\n".join("".join(segment.text for segment in line)[1:].rstrip() for line in lines)

    # -- links ----------------------------------------------------------------
    @property
    def link_target(self) -> object | None:
        return self.page.links[self.link_at][1] if self.link_at is not None and self.page.links else None

    def action_link(self, step: int) -> None:
        self._render_until(self.top + self.view_size.height)
        while not self.page.links and not self.page.complete:  # the first link is further down the page
            self._render_until(len(self.page.lines) + self.view_size.height)
        if not self.page.links:
            self.scroll_view(y=self.top + step)
            return
        old = self.link_at
        self.link_at = 0 if old is None else max(0, min(len(self.page.links) - 1, old + step))
        for index in (old, self.link_at):
            if index is not None:
                self.repaint_rows(self.page.links[index][0])
        line = self.page.links[self.link_at][0]
        if not self.top <= line < self.top + self.view_size.height:
            self.scroll_view(y=line - self.view_size.height // 2)

    def action_follow(self) -> None:
        if self.link_target is not None:
            self.followed(self.link_target)

    def action_page(self, direction: int) -> None:
        self._render_until(self.top + 2 * self.view_size.height)
        self.scroll_view(y=self.top + direction * max(1, self.view_size.height - 1))

    def action_edge(self, end: int) -> None:
        if end:
            self._render_until(1 << 30)
        self.scroll_view(y=self.extent.height if end else 0)

    def on_click(self, event: events.Click) -> None:
        line = event.y + self.top
        for index, (at, target) in enumerate(self.page.links):
            if at == line:
                old, self.link_at = self.link_at, index
                if old is not None:
                    self.repaint_rows(self.page.links[old][0])
                self.repaint_rows(line)
                self.followed(target)
                return

    # -- rendering ------------------------------------------------------------
    def render_line(self, y: int) -> Strip:
        width, height = self.view_size
        self._render_until(self.top + height)  # the page's height (and so the thumb) is settled for this frame
        line = y + self.top
        if line >= len(self.page.lines):
            return Strip.blank(width, self.base_style)
        strip = self._strip(self.page, line, y in self.thumb_rows())
        if self.link_at is not None and self.page.links and self.page.links[self.link_at][0] == line:
            strip = strip.apply_style(_CURSOR if self.has_focus else Style(bgcolor="#3a3a3a"))
        return strip

    def _strip(self, page: Page, line: int, on_thumb: bool) -> Strip:
        """A line of the page and its thumb cell as handed over, kept: shown again (the page of a
        moment ago, or one laid out ahead) it costs a lookup, and Textual keeps its encoding."""
        found = page.strips.get((line, on_thumb))
        if found is None:
            drawn = self._drawn(line, page)
            shared = self._shared.get((id(drawn), on_thumb))
            if shared is None or shared[0] is not drawn:
                strip = Strip([*drawn, thumb_cell(on_thumb, self.base_style)], page.width)
                shared = remember(self._shared, (id(drawn), on_thumb), (drawn, strip))
            found = page.strips[line, on_thumb] = shared[1]
        return found

    def on_focus(self) -> None:
        if self.link_at is not None and self.page.links:
            self.repaint_rows(self.page.links[self.link_at][0])

    on_blur = on_focus


def remember(kept: dict, key, value):
    """`kept[key] = value`, returned; a dict grown to KEPT entries is let go of first (all at
    once: what pages to come reuse is made again as soon as it is needed). Kept small, as the
    cyclic collector's full passes walk every object kept: with 4,096 entries those passes
    took 45 ms (80 at worst) every couple of hundred pages, with 1,024 14 ms, and the pages
    came no slower."""
    if len(kept) >= KEPT:
        kept.clear()
    kept[key] = value
    return value


def fitted(cells: Cells, width: int) -> Cells:
    """The cells with the first (an op's name) widened or narrowed by what the row has to spare or
    lacks at `width`, within FIRST_CELL, so that a narrow terminal still shows the last column;
    what is left to spare once it is at its most widens the cells that say how far they may grow
    (a fourth item: a tiled layout, a rank-6 shape), in equal shares, each up to its most."""
    if not cells:
        return cells
    text, style, first = cells[0][:3]
    least, most = FIRST_CELL
    widths = [cell[2] for cell in cells]
    rest = sum(widths[1:])
    widths[0] = first = max(min(first, least), min(max(first, most), width - rest))
    spare = width - rest - first
    while spare > 0:
        growing = [k for k, cell in enumerate(cells) if len(cell) > 3 and widths[k] < cell[3]]
        if not growing:
            break
        share = max(1, spare // len(growing))
        for k in growing:
            grown = min(share, cells[k][3] - widths[k], spare)
            widths[k] += grown
            spare -= grown
    return [(cell[0], cell[1], cell_width) for cell, cell_width in zip(cells, widths)]


def link_row(cells: Cells, width: int) -> list[Segment]:
    """One row of `width` cells (fitted): each cell cut (`…`; the first, an op's name, in its
    middle, as the end of a name tells ops apart) or padded to its own width, in its style;
    neighbouring text of one style is one segment."""
    runs: list[list] = []  # [text, style]
    for k, (text, style, cell) in enumerate(fitted(cells, width)):
        if len(text) >= cell:
            text, rest = (middle_cut(text, cell - 1), " ") if k == 0 else (text[: cell - 2], "… ")
        else:
            rest = " " * (cell - len(text))
        for piece, piece_style in ((text, style), (rest, None)):
            if runs and runs[-1][1] is piece_style:
                runs[-1][0] += piece
            elif piece:
                runs.append([piece, piece_style])
    segments, room = [], width
    for text, style in runs:
        if room <= 0:
            break
        segments.append(Segment(text[:room], style))
        room -= len(text)
    if room > 0:
        segments.append(Segment(" " * room))
    return segments
