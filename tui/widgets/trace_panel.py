"""The timeline's lower panel, one widget: an info line, then the event under the cursor
(name, times, stats) or a table of per-name time (a marked range's aggregate, or the trace's
top XLA ops) with its own cursor.

One Line-API widget rather than a switcher of Statics and DataTables: a range can hold
thousands of names, and every widget on the screen adds to the cost of each keypress.
"""

from __future__ import annotations

from typing import Callable, NamedTuple

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.geometry import Region, Size
from textual.strip import Strip
from textual.widget import Widget

from tui.model.timescale import format_ns
from tui.model.trace import NameStats
from tui.widgets.direct_keys import DirectKeys
from tui.widgets.line_cache import LineCache
from tui.widgets.timeline_paint import fit
from tui.widgets.viewport import Viewport, thumb_cell

KEY_WIDTH = 12  # the narrowest key column; a longer stat name widens it, up to a third of the panel
_NUMBERS = ("count", "total", "self", "mean", "min", "max")
_NUMBER_WIDTH = 11
PROGRAM_WIDTH = 32  # at most
NAME_WIDTH = 24  # an op table's name column, at least, before rate columns are left out
_TOP = 2  # the rule and the info line stay put; the rest scrolls
_PLAIN, _BOLD, _DIM, _HEADER = Style(), Style(bold=True), Style(dim=True), Style(bold=True, underline=True)
_SORTS = {  # column -> the value rows are ordered by, largest first (then the rate columns')
    "total": lambda row: row.total_ns, "count": lambda row: row.count,
    "self": lambda row: row.self_ns, "mean": lambda row: row.mean_ns,
    "min": lambda row: row.min_ns, "max": lambda row: row.max_ns,
}


def giga(rate: float) -> str:
    """A rate in a G-unit column, in plain digits (an H100's 12,190 GFLOP/s, a copy's 0.00054)."""
    g = rate / 1e9
    return f"{g:,.0f}" if g >= 100 else f"{g:.3g}" if g >= 1e-4 else "<0.0001" if g > 0 else "0"


def _share(fraction: float) -> str:
    return f"{fraction:.1%}" if fraction >= 0.001 else "<0.1%"


class Column(NamedTuple):
    """A table's own column after the name (the steps' time, a device's busy share), in place of
    the per-name numbers: its title, row k's text, and the value `s` orders rows by (largest
    first; None: not a sort key)."""

    title: str
    text: Callable[[int], str]
    value: Callable[[int], float] | None = None


# An op table's rate columns (links.op_flop_rates, op_byte_rates; the util columns: of the chip's peak).
RATE_FORMATS = {"GFLOP/s": giga, "GB/s": giga, "FLOP util": _share, "BW util": _share}


class TracePanel(DirectKeys, LineCache, Viewport, Widget, can_focus=True):
    """Line 0 is a rule (accented when focused), line 1 the info line; the body scrolls."""

    DEFAULT_CSS = """
    TracePanel { height: 30%; min-height: 6; max-height: 14; }
    TracePanel > .trace-panel--rule { color: $panel-lighten-1; }
    TracePanel:focus > .trace-panel--rule { color: $accent; }
    """
    COMPONENT_CLASSES = {"trace-panel--rule"}
    BINDINGS = [
        Binding("up", "move(-1)", "Up", show=False),
        Binding("down", "move(1)", "Down", show=False),
        Binding("pageup", "move(-10)", "Page up", show=False),
        Binding("pagedown", "move(10)", "Page down", show=False),
        Binding("enter", "choose", "Show this name's events", show=False),
        Binding("s", "sort", "Sort by the next column", show=False),
    ]

    def __init__(self, *, id: str | None = None):
        super().__init__(id=id)
        self.info = Text()
        self.title = ""
        self.details: list[tuple[str, str, Style | None]] = []
        self.rows: list[NameStats] | None = None  # a table is shown when not None
        # Enter on a table row (an op's row may name its program): called, not a message, so the
        # screen's answer is in the same frame (a message comes a frame later).
        self.name_chosen: Callable[[str, str | None], None] = lambda name, program: None
        self._program_width = 0  # of the table's program column: none unless its rows name several
        self.total: int | None = None  # with a table of ops: their total time (for a % column)
        self.rates: dict[str, list[float | None]] = {}  # with a table of ops: column ("GFLOP/s") -> each op's rate
        self.notes: list[str] | None = None  # with a table of GPU kernels: each one's launch and ops
        self.notes_title = ""
        self.columns: list[Column] | None = None  # a table's own columns, in place of the per-name numbers
        self._notes_length = 0  # the longest note
        self.sort_by = "total"  # the column the rows are shown in, largest first
        self._share_of = _SORTS["total"]  # a row's value its % column is the share of `total` of
        self._order: list[int] = []  # the rows' positions, in the order shown
        self.cursor = 0
        self._info_line: Strip | None = None
        self._rule: Strip | None = None
        self._lines: dict[tuple[int, bool], Strip] = {}  # (body line, on the thumb) -> the line as handed over
        self._details: list[Strip] | None = None
        self._detail_starts: list[int] = []  # each detail's first line (a long value wraps)

    # -- content --------------------------------------------------------------------------------
    def show_info(self, info: Text) -> None:
        self.info = info
        self._info_line = None
        self.refresh(Region(0, 1, self.view_size.width, 1))

    def show_details(self, details: list[tuple[str, str, Style | None]], seen: int | None = None) -> None:
        """Key / value lines; a value is plain text, drawn in one style, wrapped to fit. Details
        as many lines long as those shown repaint only the lines that differ (the cursor
        stepping along a row changes the event's name and times, not its track). With `seen`,
        the panel scrolls as little as shows that entry's first line."""
        old = self._details if self.rows is None and (self.top == 0 or seen is not None) else None
        top = self.top
        self.details, self.rows, self._details = details, None, None
        if old is None or len(self._detail_lines()) != len(old):
            self._changed()
        else:
            new = self._details = [before if before == after else after for before, after in zip(old, self._details)]
            changed = [index for index, (before, after) in enumerate(zip(old, new)) if before is not after]
            self._forget_lines(*changed)
            self.refresh_view_lines(_TOP + index - top for index in changed if top <= index < top + self.window_height)
        if seen is not None:
            self.reveal(Region(self.left, self._detail_starts[seen], 1, 1))

    def show_table(self, title: str, rows: list[NameStats], total: int | None = None,
                   rates: dict[str, list[float | None]] | None = None, notes: list[str] | None = None,
                   notes_title: str = "", columns: list[Column] | None = None, order: str = "total") -> None:
        """Rows of per-name time, largest `order` first (a _SORTS column: an op table's come by
        self time, links.op_time); with `total`, a column of each row's share of it by that
        column (a `while` holds its body's ops: only its own time is its share); with `rates`
        a column per rate (RATE_FORMATS' columns: each op's achieved FLOP/s, bytes/s and their
        shares of the chip's peaks; blank where unknown), with `notes` a last column of text
        titled `notes_title` (a GPU kernel's launch); with `columns`, those after the name
        instead of the numbers, the share and the rates (rows in the order given until `s`
        sorts them)."""
        self.title, self.rows, self.total, self.cursor = title, rows, total, 0
        self.rates = {column: values for column, values in (rates or {}).items() if any(v is not None for v in values)}
        self.notes = notes if notes and any(notes) else None
        self._notes_length = max(map(len, self.notes)) if self.notes else 0
        self.notes_title = notes_title
        self.columns = columns
        if columns is not None:
            self.total, self.rates = None, {}
        self.sort_by = None if columns is not None else order  # as given (a table of its own columns: its own order)
        self._share_of = _SORTS[order]
        self._order = list(range(len(rows)))
        programs = {row.program for row in rows}
        longest = max((len(p) for p in programs if p), default=0)
        self._program_width = min(longest, PROGRAM_WIDTH) + 2 if len(programs) > 1 else 0  # one program: said once is enough
        self._changed()

    @property
    def showing_table(self) -> bool:
        return self.rows is not None

    def _forget_lines(self, *indices: int) -> None:
        for index in indices:
            self._lines.pop((index, False), None)
            self._lines.pop((index, True), None)

    def _changed(self) -> None:
        self._lines.clear()
        self._details = None
        self.top = 0
        self.set_extent(Size(self._width, self._body_height()))
        self.refresh()

    def on_resize(self) -> None:
        self._info_line = self._rule = None
        self._changed()

    def restyled(self) -> None:
        self._info_line = self._rule = self._details = None
        self._lines.clear()

    # -- keys -----------------------------------------------------------------------------------
    def action_move(self, delta: int) -> None:
        if not self.rows:
            self.scroll_view(y=self.top + delta)
            return
        old, self.cursor = self.cursor, min(max(self.cursor + delta, 0), len(self.rows) - 1)
        line = self.cursor + 2  # body line of the row: after the title and the column header
        top, height = self.top, self.window_height
        if line < top + 2:
            self.scroll_view(y=line - 2)
        elif line >= top + height:
            self.scroll_view(y=line - height + 1)
        self._forget_lines(old + 2, line)
        self.refresh()

    def action_choose(self) -> None:
        if self.rows:
            row = self.rows[self._order[self.cursor]]
            self.name_chosen(row.name, row.program)

    def on_click(self, event: events.Click) -> None:
        """A click on a table's row puts the cursor there (as the buffer table's does); a double
        click is Enter on it."""
        if not self.rows or event.y < _TOP:
            return
        row = self.top + event.y - _TOP - 2  # body lines: the title, the column header, then the rows
        if 0 <= row < len(self.rows):
            self.focus()
            self.action_move(row - self.cursor)
            if event.chain >= 2:
                self.action_choose()

    def action_sort(self) -> None:
        """Show the rows by the next column (total, count, self, mean, min, max, the rates, and
        round again; a table's own columns, then its own order), largest first (an unknown rate
        last); the cursor stays on its row."""
        if not self.rows:
            return
        own = {c.title: c.value for c in self._own_columns(fit=True) if c.value is not None}
        keys = [None, *own] if self.columns is not None else [*_SORTS, *self._shown_rates()]
        self.sort_by = keys[(keys.index(self.sort_by) + 1 if self.sort_by in keys else 0) % len(keys)]  # (a rate column a resize hid: total)
        at = self._order[self.cursor]
        if self.sort_by is None:
            values = [-k for k in range(len(self.rows))]
        elif self.sort_by in own:
            values = list(map(own[self.sort_by], range(len(self.rows))))
        elif self.sort_by in self.rates:
            values = [-1.0 if v is None else v for v in self.rates[self.sort_by]]
        else:
            values = list(map(_SORTS[self.sort_by], self.rows))
        self._order = sorted(range(len(self.rows)), key=lambda k: -values[k])  # stable: ties in the order given
        self.cursor = self._order.index(at)
        self._lines.clear()
        self.refresh()

    def on_focus(self) -> None:
        self._lines.clear()
        self._rule = None
        self.refresh()

    on_blur = on_focus

    # -- painting -------------------------------------------------------------------------------
    @property
    def _width(self) -> int:
        return max(self.view_size.width - 1, 1)  # a column is kept for the scroll thumb

    @property
    def window_height(self) -> int:
        return max(self.view_size.height - _TOP, 0)

    def _body_height(self) -> int:
        if self.rows is not None:
            return 2 + max(len(self.rows), 1)
        return len(self._detail_lines())

    def _detail_lines(self) -> list[Strip]:
        """The details, each value wrapped under its key."""
        if self._details is None:
            width = self._width
            key_width = max(KEY_WIDTH, min(max((len(key) for key, _, _ in self.details), default=0), width // 3))
            room = max(width - key_width - 1, 8)
            lines, self._detail_starts = [], []
            for key, value, style in self.details:
                self._detail_starts.append(len(lines))
                text = value.replace("\n", " ")
                for k, at in enumerate(range(0, max(len(text), 1), room)):
                    head = Segment(fit(key if k == 0 else "", key_width) + " ", _BOLD)
                    lines.append(Strip([head, Segment(fit(text[at : at + room], width - key_width - 1), style or _PLAIN)]))
            self._details = lines
        return self._details

    def _notes_width(self) -> int:
        return min(self._notes_length + 2, max(self._width * 2 // 5, 24)) if self.notes else 0

    def _fitting(self, columns: list, numbers: int, keep: int) -> list:
        """`columns` (after `numbers` columns always shown) less their last ones, down to `keep`,
        until the names have NAME_WIDTH on a narrow terminal."""
        columns = list(columns)
        fixed = numbers * _NUMBER_WIDTH + self._program_width + self._notes_width() + 1
        while len(columns) > keep and self._width - fixed - len(columns) * _NUMBER_WIDTH < NAME_WIDTH:
            columns.pop()
        return columns

    def _shown_rates(self) -> list[str]:
        """The rate columns that fit: on a narrow terminal the last ones make room for the names."""
        numbers = len(_NUMBERS) + bool(self.total) if self.columns is None else len(self.columns)
        return self._fitting(self.rates, numbers, keep=0)

    def _own_columns(self, fit: bool) -> list[Column]:
        """A table's own columns; to `fit` a narrow terminal, the last ones make room for the
        names (as the rate columns do)."""
        return self._fitting(self.columns or (), 0, keep=1) if fit else list(self.columns or ())

    def _column_titles(self, rates: list[str], fit: bool = True) -> list[str]:
        """The titles of the columns after the name (and program)."""
        if self.columns is not None:
            return [c.title for c in self._own_columns(fit)]
        return list(_NUMBERS) + (["% time"] if self.total else []) + rates

    def _cells(self, k: int, rates: list[str], fit: bool = True) -> list[str]:
        """The texts of the k-th row shown, after its name."""
        at = self._order[k]
        if self.columns is not None:
            return [column.text(at) for column in self._own_columns(fit)]
        row = self.rows[at]
        cells = [f"{row.count:,}", format_ns(row.total_ns), format_ns(row.self_ns), format_ns(row.mean_ns),
                 format_ns(row.min_ns), format_ns(row.max_ns)]
        if self.total:
            cells.append(f"{100 * self._share_of(row) / self.total:.1f}")
        for column in rates:
            rate = self.rates[column][at]
            cells.append("" if rate is None else RATE_FORMATS[column](rate))
        return cells

    def plain_text(self) -> str:
        """What the panel shows, whole: a table as tab-separated columns (names uncut, every rate
        column, in the order shown) under its title; details as `key<TAB>value` lines."""
        if self.rows is None:
            return "\n".join(f"{key}\t{value}" for key, value, _ in self.details)
        rates = list(self.rates)
        several = bool(self._program_width)
        header = ["name", *(["program"] if several else []), *self._column_titles(rates, fit=False),
                  *([self.notes_title] if self.notes else [])]
        lines = [self.title.strip(), "\t".join(header)]
        for k in range(len(self.rows)):
            row = self.rows[self._order[k]]
            lines.append("\t".join([row.name, *([row.program or ""] if several else []), *self._cells(k, rates, fit=False),
                                    *([self.notes[self._order[k]]] if self.notes else [])]))
        return "\n".join(lines)

    def _table_line(self, index: int) -> Strip:
        """Line `index` of the table: its title, the column header, then one row per name."""
        width = self._width
        program_width = self._program_width
        notes_width = self._notes_width()
        rates = self._shown_rates()
        columns = self._column_titles(rates)
        name_width = max(width - len(columns) * _NUMBER_WIDTH - program_width - notes_width - 1, 12)
        if index == 0:
            return Strip([Segment(fit(self.title, width), _BOLD)])
        if index == 1:
            program = "  program".ljust(program_width) if program_width else ""
            header = " " + "name".ljust(name_width) + program + "".join(
                (("▼" if c == self.sort_by else "") + c).rjust(_NUMBER_WIDTH) for c in columns)
            if notes_width:
                header += "  " + self.notes_title
            return Strip([Segment(fit(header, width), _HEADER)])
        if not self.rows:
            return Strip([Segment(fit(" nothing to list", width), _DIM)])
        k = index - 2
        row = self.rows[self._order[k]]
        cells = self._cells(k, rates)
        program = "  " + fit(row.program or "", program_width - 2) if program_width else ""
        text = " " + fit(row.name, name_width) + program + "".join(c.rjust(_NUMBER_WIDTH) for c in cells)
        if notes_width:
            text += "  " + self.notes[self._order[k]]
        style = Style()
        if k == self.cursor:
            style = Style(reverse=True) if self.has_focus else Style(bgcolor="#303030")
        return Strip([Segment(fit(text, width), style)])

    def render_line(self, y: int) -> Strip:
        if y == 0:
            if self._rule is None:
                self._rule = Strip([Segment("─" * self.view_size.width, self.get_component_rich_style("trace-panel--rule"))])
            return self._rule
        if y == 1:
            if self._info_line is None:
                self._info_line = Strip(_segments(self.info, self.app.console)).crop_pad(self.view_size.width, 0, 0, _PLAIN)
            return self._info_line
        index = self.top + y - _TOP
        if index >= self._body_height():
            return Strip.blank(self.view_size.width, self.base_style)
        on_thumb = y - _TOP in self.thumb_rows()
        line = self._lines.get((index, on_thumb))
        if line is None:
            strip = self._table_line(index) if self.rows is not None else self._detail_lines()[index]
            width = self._width
            if strip.cell_length != width:
                strip = strip.adjust_cell_length(width, _PLAIN)
            line = self._lines[index, on_thumb] = Strip([*strip, thumb_cell(on_thumb, _PLAIN)], width + 1)
        return line


def _segments(text: Text, console) -> list[Segment]:
    """A Text's segments, each with a style (Textual's filters expect one)."""
    return [Segment(part, style or _PLAIN) for part, style, _ in text.render(console)]
