"""A virtualized list of instructions in program order, filterable, with a cursor.

Rendered with the Line API: a frame draws only the visible rows, so a 40k-instruction
computation scrolls as fast as a ten-line one. Rows are cached as Strips and a cursor move
repaints just the two rows it touches.
"""

from __future__ import annotations

from typing import Callable

from rich.segment import Segment
from rich.style import Style
from textual.binding import Binding
from textual.geometry import Size
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from tui.model.categories import instruction_category
from tui.model.hlo import HloInstruction
from tui.model.words import middle_cut
from tui.widgets.direct_keys import DirectKeys
from tui.widgets.line_cache import LineCache
from tui.widgets.palette import category_style

_DIM = Style(dim=True)
NOTE_WIDTH = 14  # the note column: `1.23 ms 14%`
_CURSOR = Style(reverse=True)


def matches(ins: HloInstruction, needle: str) -> bool:
    """Case-insensitive match on name, opcode, fusion kind, shape and JAX name stack."""
    if needle in ins.name.lower() or needle in ins.opcode or needle in ins.shape.text.lower():  # (`T(8,128)`, `S(5)`)
        return True
    return needle in ins.op_name.lower() or (ins.opcode == "fusion" and needle in (ins.fusion_kind or "").lower())


class InstructionList(DirectKeys, LineCache, ScrollView, can_focus=True):
    DEFAULT_CSS = """
    InstructionList { height: 1fr; overflow-x: hidden; }
    """
    BINDINGS = [
        Binding("up,k", "move(-1)", "Up", show=False),
        Binding("down,j", "move(1)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home", "jump(0)", "First", show=False),
        Binding("end", "jump(-1)", "Last", show=False),
        Binding("enter", "choose", "Select", show=False),
    ]

    cursor: reactive[int] = reactive(0, repaint=False)  # the watcher repaints just the rows it touches

    def __init__(self, *, id: str | None = None):
        super().__init__(id=id)
        self._all: list[HloInstruction] = []
        self.rows: list[HloInstruction] = []
        self.filter_text = ""
        # Told the instruction the cursor is on, and the one Enter or a click chose: called, not a
        # message, so what the screen shows for it is in the same frame (a message comes a frame later).
        self.highlighted: Callable[[HloInstruction], None] = lambda instruction: None
        self.chosen: Callable[[HloInstruction], None] = lambda instruction: None
        self._name_width = 24
        self._position: dict[int, int] = {}  # id(instruction) -> row, for the current rows
        self.note: Callable[[HloInstruction], str] | None = None  # a column after the opcode (each op's time)

    # -- data -----------------------------------------------------------------
    def set_instructions(self, instructions: list[HloInstruction], keep: HloInstruction | None = None) -> None:
        self._all = instructions
        self._name_width = min(40, max([len(i.name) for i in instructions[:2000]] + [8]))
        self._apply_filter(keep)

    def set_filter(self, text: str, keep: HloInstruction | None = None) -> None:
        """List what matches `text`, the cursor on `keep` (else the row under it) if listed."""
        self.filter_text = text.strip().lower()
        self._apply_filter(keep or self.current)

    def set_note(self, note: Callable[[HloInstruction], str] | None) -> None:
        """A column after the opcode: what `note` says of each instruction (its time in the profile)."""
        self.note = note
        self.strip_cache.clear()
        self.refresh()

    @property
    def computation(self):
        """The computation listed (None when empty)."""
        return self._all[0].computation if self._all else None

    def _apply_filter(self, keep: HloInstruction | None) -> None:
        needle = self.filter_text
        self.rows = [i for i in self._all if matches(i, needle)] if needle else list(self._all)
        self._position = {id(ins): row for row, ins in enumerate(self.rows)}
        self.strip_cache.clear()
        self.virtual_size = Size(self.view_size.width, len(self.rows))
        index = self._position.get(id(keep), 0) if keep is not None else 0
        self.cursor = -1  # force the watcher: the row at the same index may be another instruction
        self.cursor = index
        self.refresh()

    @property
    def current(self) -> HloInstruction | None:
        return self.rows[self.cursor] if 0 <= self.cursor < len(self.rows) else None

    def select_instruction(self, ins: HloInstruction) -> bool:
        """Move the cursor to `ins` without announcing it; False if it is not listed."""
        index = self._position.get(id(ins))
        if index is None:
            return False
        if index != self.cursor:
            old = self.cursor
            self.set_reactive(InstructionList.cursor, index)
            self._repaint(old, index)
        return True

    # -- keys -----------------------------------------------------------------
    def action_move(self, delta: int) -> None:
        if self.rows:
            self.cursor = max(0, min(len(self.rows) - 1, self.cursor + delta))

    def action_page(self, direction: int) -> None:
        self.action_move(direction * max(1, self.view_size.height - 1))

    def action_jump(self, where: int) -> None:
        if self.rows:
            self.cursor = where % len(self.rows)

    def action_choose(self) -> None:
        if self.current is not None:
            self.chosen(self.current)

    def on_click(self, event) -> None:
        row = event.y + self.scroll_offset.y
        if 0 <= row < len(self.rows):
            self.cursor = row
            self.chosen(self.rows[row])

    def watch_cursor(self, old: int, new: int) -> None:
        if new < 0 or not self.rows:
            return
        self._repaint(old, new)
        self.highlighted(self.rows[new])

    def _repaint(self, old: int, new: int) -> None:
        """Scroll the cursor into view; repaint only its old and new rows when nothing scrolled."""
        top = self.scroll_offset.y
        self._scroll_to_cursor()
        if self.scroll_offset.y == top:
            if old >= 0:
                self.refresh_line(old)
            self.refresh_line(new)

    def _scroll_to_cursor(self) -> None:
        top, height = self.scroll_offset.y, max(1, self.view_size.height)
        if self.cursor < top:
            self.scroll_to(y=self.cursor, animate=False)
        elif self.cursor >= top + height:
            self.scroll_to(y=self.cursor - height + 1, animate=False)

    def on_focus(self) -> None:
        self.refresh_line(self.cursor)

    def on_blur(self) -> None:
        self.refresh_line(self.cursor)

    def on_resize(self) -> None:
        self.strip_cache.clear()
        self.virtual_size = Size(self.view_size.width, len(self.rows))
        self._scroll_to_cursor()  # a list shown for the first time had no height to scroll in

    # -- rendering ------------------------------------------------------------
    def render_line(self, y: int) -> Strip:
        row = y + self.scroll_offset.y
        width = self.view_size.width
        if row >= len(self.rows):
            return Strip.blank(width, self.base_style)
        selected = row == self.cursor
        key = (row, width, selected, selected and self.has_focus)
        strip = self.strip_cache.get(key)
        if strip is None:
            if len(self.strip_cache) > 2048:
                self.strip_cache.clear()
            strip = self.strip_cache[key] = self._row_strip(row, width, selected)
        return strip

    def _row_strip(self, row: int, width: int, selected: bool) -> Strip:
        ins = self.rows[row]
        index_w = len(str(max(1, len(self._all))))
        opcode = ins.opcode + (f" {ins.fusion_kind}" if ins.fusion_kind else "")
        style = category_style(instruction_category(ins))
        segments = [
            Segment(f"{ins.index:>{index_w}} ", _DIM),
            Segment(("ROOT " if ins.is_root else "     "), _DIM),
            Segment(f"{middle_cut(ins.name, self._name_width).ljust(self._name_width)} ", style),
            Segment(f"{_fit(opcode, 22)} ", style),
            *([Segment(f"{self.note(ins):>{NOTE_WIDTH}}  ")] if self.note is not None else []),
            Segment(f"{_fit(ins.shape.text, 34)} ", Style()),
            Segment(ins.op_name, _DIM),
        ]
        strip = Strip(segments).crop(0, width).extend_cell_length(width)
        if selected:
            strip = strip.apply_style(_CURSOR if self.has_focus else Style(bgcolor="#303030"))
        return strip.apply_style(self.base_style)


def _fit(text: str, width: int) -> str:
    return text.ljust(width) if len(text) <= width else text[: width - 1] + "…"
