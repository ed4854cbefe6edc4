"""Key 3: live bytes over the program order, the buffers at a point, and who holds them.

The profile is built once in a worker (from XLA's files, or by XLA's rules from the scheduled
HLO). After that a cursor key costs two NumPy queries over the profile's columns (none for a
point shown lately, or worked out ahead while the screen stood still) and repaints only what
changed: the chart's cursor column, the lines of the tables whose buffer changed, and the
cursor line.
"""

from __future__ import annotations

import os

from collections import OrderedDict
from typing import NamedTuple

import numpy as np
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding

from tui.model.categories import instruction_category
from tui.model.memory import SORTS, MemoryProfile, memory_counters, memory_profile, space_name, why_no_profile
from tui.model.scopes import BY_LINE
from tui.model.shapes import human_bytes
from tui.model.timescale import format_ns
from tui.model.words import counted
from tui.model.workspace import MAX_HISTORY, ModuleEntry, Selection, Workspace
from tui.screens.base import WorkspaceScreen
from tui.widgets.buffer_table import BufferTable
from tui.widgets.memory_chart import Marker, MemoryChart
from tui.widgets.palette import category_style
from tui.widgets.scope_list import ScopeList
from tui.widgets.still import StillWatch

XLA_PEAK_COLOR = "#ffd75f"
MAX_COLOR = "#ff5f5f"
TRACE_POINTS = 512
TRACE_ONLY_SERIES = 8  # bands in the whole-screen chart of a profile without a program
_BOLD, _DIM, _ITALIC = Style(bold=True), Style(dim=True), Style(italic=True)
SORT_COLUMNS = {"size": "size", "padding waste": "padding", "program order": "live"}
POINTS_KEPT = 16  # program points whose buffers and scope totals are kept (recent ones, and those worked out ahead)
KEY_HINT = "keys: ←/→ step  shift+←/→ a column  home/end  ↑/↓ buffers  -/+ scope depth  L by line"


class MemoryScreen(WorkspaceScreen):
    pane_title = "3 Memory"
    missing_note = None  # the pane explains itself
    # The screen itself is the grid (the bars are split off its edges): every widget, containers
    # too, costs a little on every frame.
    DEFAULT_CSS = """
    MemoryScreen { layout: grid; grid-size: 2 3; grid-columns: 2fr 1fr; grid-rows: 35vh 1fr 7; }
    MemoryScreen > StatusBar, MemoryScreen > ErrorBanner { split: top; }
    MemoryScreen #memory-chart { column-span: 2; height: 100%; }
    MemoryScreen #memory-buffers { row-span: 2; }
    MemoryScreen #memory-scopes { height: 100%; }
    MemoryScreen #memory-trace { border-left: solid $panel-lighten-1; height: 100%; }
    MemoryScreen.-no-program #memory-buffers, MemoryScreen.-no-program #memory-scopes { display: none; }
    MemoryScreen.-no-program #memory-chart { row-span: 2; }
    MemoryScreen.-no-program #memory-trace { column-span: 2; border-left: none; }
    MemoryScreen.-over-time #memory-chart { row-span: 3; }
    MemoryScreen.-over-time #memory-trace { display: none; }
    """
    BINDINGS = [
        Binding("left", "step(-1)", "Earlier", show=False),
        Binding("right", "step(1)", "Later", show=False),
        Binding("shift+left", "column(-1)", "Column left", show=False),
        Binding("shift+right", "column(1)", "Column right", show=False),
        Binding("home", "jump('start')", "Program start", show=False),
        Binding("end", "jump('end')", "Program end", show=False),
        Binding("p", "jump('peak')", "XLA's peak"),
        Binding("p", "jump('highest')", "Highest point"),  # a profile's counters alone (check_action picks)
        Binding("m", "jump('max')", "Max live"),
        Binding("s", "sort", "Sort"),
        Binding("minus", "depth(-1)", "Scope -", show=False),
        Binding("plus,equals_sign", "depth(1)", "Scope +", show=False),
        Binding("L", "by_line", "By line of Python", show=False),
        Binding("g", "graph", "Defining op"),
        Binding("backspace", "back", "Back to where the cursor jumped from", show=False),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.profile: MemoryProfile | None = None
        self.cursor = 0
        self.sort = SORTS[0]
        self.depth = 3
        self.selected_row: int | None = None
        self._seen = Selection()
        self._choosing = False  # a buffer chosen here is being broadcast
        self._entry: ModuleEntry | None = None
        self.chart = MemoryChart(id="memory-chart", caption=True)
        self.chart.clicked = self._jump_to  # the program order chart; the profile's is not clickable
        self.table = BufferTable(id="memory-buffers")
        self.table.highlighted = self._buffer_highlighted
        self.scopes = ScopeList(id="memory-scopes")
        self.trace_chart = MemoryChart(id="memory-trace")
        self.over_time: tuple[np.ndarray, list[tuple[str, np.ndarray]]] | None = None  # (times, series) when
        # there is no program but the profile has memory counters: they fill the screen
        self._over_time_peak = 0  # the point where the highest counter peaks
        self._points: OrderedDict[tuple, _Point] = OrderedDict()  # (point, sort, depth) -> what it shows, see _at
        self._still = StillWatch()
        self._jumped_from: list[int] = []  # where the cursor was before each jump, newest last (Backspace)

    @property
    def has_content(self) -> bool:
        """A program to account for, or a profile whose memory counters can be shown alone."""
        ws = self.app.workspace
        return ws is not None and (ws.current is not None or ws.trace is not None)

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        if not super().check_action(action, parameters):
            return False
        program, over_time = self.profile is not None, self.over_time is not None  # keys about nothing shown give way
        if action == "jump" and parameters == ("highest",):
            return over_time
        if action == "jump" and parameters in (("peak",), ("max",)) or action in ("sort", "graph", "depth", "by_line"):
            return program
        return True

    def body(self) -> ComposeResult:
        yield self.chart
        yield self.table
        yield self.scopes
        yield self.trace_chart

    # -- loading --------------------------------------------------------------------------
    def show_workspace(self, ws: Workspace) -> None:
        self._seen = ws.selection
        entry = ws.current
        self._entry = entry
        self.profile = self.over_time = None
        self._jumped_from.clear()  # places in another program
        self.table.set_profile(None)  # no keys on the last program's buffers while this one loads
        self.remove_class("-over-time", "-no-program")
        self.refresh_bindings()
        self._head(Text(f"Reading the memory of {entry.label}…" if entry else "No module loaded.", style="italic"))
        self._load(entry, ws.trace)

    @work(thread=True, exclusive=True, group="memory", exit_on_error=False)
    def _load(self, entry: ModuleEntry | None, trace) -> None:
        from tui.model.errors import InputError

        profile, problem = None, "no module loaded"
        if entry is not None:
            try:
                profile, problem = memory_profile(entry), why_no_profile(entry)
            except InputError as e:
                problem = str(e)
        counters = memory_counters(trace)
        self.app.call_from_thread(self._loaded, entry, profile, problem, trace, counters)

    def _loaded(self, entry: ModuleEntry | None, profile: MemoryProfile | None, problem: str | None, trace,
                counters) -> None:
        self.app.keep_loaded()
        if entry is not self._entry:
            return
        self._show_trace(trace, counters)
        self.profile = profile
        self._points.clear()
        self.wake()
        self.table.set_profile(profile)
        self.refresh_bindings()
        if profile is None and entry is None and trace is not None:
            self._show_over_time(trace, counters)
            return
        if profile is None:
            self.add_class("-no-program")  # no empty table: the chart's place says why
            about = f" for {entry.label}" if entry is not None else ""
            self._head(Text(f"No memory profile{about}", style="bold"))
            self.chart.set_note(problem or "")  # a note wraps to the width
            self.chart.set_caption([])
            self.scopes.set_rows("", [], 1)
            return
        markers = [Marker(profile.peak_time, "XLA peak", XLA_PEAK_COLOR)]
        if profile.max_time != profile.peak_time:
            markers.append(Marker(profile.max_time, "max", MAX_COLOR))
        series = [(space_name(space), profile.live[space]) for space in profile.spaces]
        self.chart.set_series(series, markers)
        self._head(self._head_text(entry, profile))
        for note in profile.skipped:
            self.notify(note, severity="warning", timeout=8)
        sel = self.workspace.selection
        self._seen = sel
        row = self._buffer_row(sel)
        start = sel.program_point
        if start is None and row is not None:  # a buffer asked for (details' m): where its op runs
            start = profile.time_of(profile.values[row].instruction)
        ins = self.workspace.instruction
        if start is None and ins is not None and ins is not ins.computation.module.entry.root:
            start = profile.time_of(ins)  # an op chosen elsewhere (the entry's ROOT, where the graph starts, is not a choice)
        self._show_buffer(row)
        self._move(profile.peak_time if start is None else start)
        self.table.focus()

    def _buffer_row(self, sel: Selection) -> int | None:
        """The row of the selected buffer; asked for by its op's whole result (`op{}`, as the
        details' m does) where the op defines none such (a tuple's elements), its op's first;
        for a fused op (no buffer of its own), the fusion's."""
        if sel.buffer is None or self.profile is None:
            return None
        row = self.profile.row(sel.buffer)
        ins = self.workspace.instruction
        if row is None and ins is not None and sel.buffer == f"{ins.name}{{}}":
            row = self.profile.row_running(ins)
        return row

    def _head_text(self, entry: ModuleEntry, p: MemoryProfile) -> Text:
        text = Text(no_wrap=True, overflow="ellipsis")
        if (p.max_time, p.max_bytes) == (p.peak_time, p.peak_bytes):
            text.append(f"Peak {human_bytes(p.peak_bytes)}", style="bold")
            text.append(f" at #{p.peak_time} ({p.source})")
        else:
            text.append(f"Max live {human_bytes(p.max_bytes)}", style=f"bold {MAX_COLOR}")
            text.append(f" at #{p.max_time}  ·  ")
            text.append(f"XLA's peak {human_bytes(p.peak_bytes)}", style=f"bold {XLA_PEAK_COLOR}")
            text.append(f" at #{p.peak_time} ({p.source}; XLA counts a point's new buffers before "
                        "freeing the dead ones, and memory two values hand on twice)", style="dim")
        totals = p.totals(entry.compiled_stats.get("memory_analysis"))
        text.append("\n")
        for label, value in (("arguments", totals.arguments), ("outputs", totals.outputs),
                             ("aliased", totals.aliased), ("temporaries", totals.temporaries)):
            text.append(f"{label} ")
            text.append(human_bytes(value), style="bold")
            text.append("  ")
        text.append(f"({totals.source}; temporaries: {totals.temporaries_note})", style="dim")
        text.append("\n")
        text.append(KEY_HINT, style="dim")
        return text

    def _head(self, text: Text) -> None:
        self.chart.set_titles(text.split("\n"))

    def _show_trace(self, trace, counters) -> None:
        chart = self.trace_chart
        if not counters:
            chart.set_titles([Text("Memory over time (profile)", style="bold")])
            chart.set_note("No profile loaded: memory over time needs a GPU/TPU profile with allocator stats."
                           if trace is None else
                           "This profile has no device memory counters (allocator stats): CPU profiles do not "
                           "record them. The chart above is the compiled program's own account.")
            return
        shown = sorted((c for c in counters if c.value.max(initial=0) > 0), key=lambda c: -c.value.max())[:2]
        grid, series = _sampled(trace, shown)
        t0 = trace.span[0]
        chart.tick = lambda point: format_ns(grid[min(point, len(grid) - 1)] - t0)
        names = ", ".join(c.name for c in shown) + (f" (of {len(counters)} counters)" if len(counters) > len(shown) else "")
        chart.set_titles([Text.assemble(("Memory over time (profile): ", "bold"), (names, "dim"))])
        if series:
            chart.set_series(series, [])
        else:
            chart.set_note("The profile's memory counters are all zero.")

    def _show_over_time(self, trace, counters) -> None:
        """A profile without a compiled program: its allocator counters, one band each, fill the
        screen, with a cursor over time that reads every counter at once."""
        live = [c for c in counters if c.value.max(initial=0) > 0]
        shown = sorted(live, key=lambda c: c.name)[:TRACE_ONLY_SERIES]
        self.add_class("-no-program", "-over-time")
        if not shown:
            why = "its memory counters are all zero" if counters else (
                "it has no device memory counters (allocator stats; CPU profiles do not record them)")
            self._head(Text("No memory to show: open the program's dump or HLO beside the profile for its buffers "
                            f"and live bytes.\nNo compiled program is loaded, and {why}.", style="italic"))
            self.chart.set_note("")
            return
        grid, series = _sampled(trace, shown)
        self.over_time = (grid, [(c.name, values) for c, (_, values) in zip(shown, series)])
        self.refresh_bindings()
        t0 = trace.span[0]
        self.chart.tick = lambda point: format_ns(grid[min(point, len(grid) - 1)] - t0)
        highest = max(shown, key=lambda c: c.value.max())
        at = int(highest.value.argmax())
        self._over_time_peak = int(series[shown.index(highest)][1].argmax())
        self.chart.set_series(series, [Marker(self._over_time_peak, "highest", XLA_PEAK_COLOR)])
        others = len(counters) - len(shown)
        self._head(Text.assemble(
            ("Memory over time (profile): ", "bold"),
            (f"{counted(len(shown), 'allocator counter')}"
             + (f" ({others} more all zero or not shown)" if others else "")
             + f"; each point is the most a counter held in its {format_ns(int(grid[1] - grid[0]))}", "dim"),
            ("\nHighest: ", "bold"), (f"{highest.name} {human_bytes(int(highest.value.max()))}", f"bold {XLA_PEAK_COLOR}"),
            f" at {format_ns(int(highest.time_ns[at]) - t0)}",
            ("  (no compiled program loaded: open its dump or HLO with the profile for buffers and program order)", "dim"),
            ("\nkeys: ←/→ step  shift+←/→ a column  home/end  p the highest point", "dim")))
        self._move(self._over_time_peak)

    # -- the cursor -----------------------------------------------------------------------
    def _move(self, point: int) -> None:
        """Put the program cursor on `point`. Local: the shared selection hears of it when a buffer
        is chosen or the screen is left (a broadcast per key would repaint every status bar)."""
        p = self.profile
        if p is None:
            if self.over_time is not None:
                self._move_over_time(point)
            return
        point = max(0, min(p.end_time, point))
        self.cursor = point
        self.chart.set_cursor(point)
        at = self._at(point)
        self.table.set_rows(at.rows, keep=self.selected_row if self.selected_row is not None else self.table.current)
        self._show_scopes(at)
        self.chart.set_caption(at.caption)

    def _at(self, point: int) -> _Point:
        """The buffers live at `point`, the scope totals and the cursor line, kept for the
        points shown or worked out lately: a jump back, or to a point worked out ahead while
        the screen stood still, costs a lookup."""
        key = (point, self.sort, self.grouping)
        found = self._points.get(key)
        if found is None:
            p = self.profile
            rows = p.live_at(point, self.sort)
            found = self._points[key] = _Point(rows, p.scope_totals(point, self.grouping, rows),
                                               self._cursor_line(point, len(rows)))
            while len(self._points) > POINTS_KEPT:
                self._points.popitem(last=False)
        else:
            self._points.move_to_end(key)
        return found

    def work_ahead(self) -> bool:
        """Once the cursor has stood still for a tick, work out the points the next keys show:
        a step either way, a column either way, the ends, XLA's peak and the max."""
        p = self.profile
        if p is None:
            return True  # the profile's arrival wakes the pane (_loaded)
        if not self._still.stood_still((self.cursor, self.sort, self.grouping, p)):
            return self._still.settled
        column = max(1, -(-(p.end_time + 1) // self.chart.plot_width))
        for point in (self.cursor + 1, self.cursor - 1, self.cursor + column, self.cursor - column,
                      0, p.end_time, p.peak_time, p.max_time):
            if 0 <= point <= p.end_time:
                self._at(point)
        return True

    def _move_over_time(self, point: int) -> None:
        grid, series = self.over_time
        point = self.cursor = max(0, min(len(grid) - 1, point))
        self.chart.set_cursor(point)
        line = [Segment(f"▲{self.chart.tick(point)} ", _BOLD)]
        for name, values in series:
            line += [Segment(f"  {name} "), Segment(human_bytes(int(values[point])), _BOLD)]
        self.chart.set_caption(line)

    @property
    def by_line(self) -> bool:
        """Whether the side list adds bytes up by line of Python, not by name scope (L): the
        buffer table's last column says which."""
        return self.table.by_line

    @property
    def grouping(self) -> int | str:
        """What the side list adds bytes up by: a name scope depth, or BY_LINE."""
        return BY_LINE if self.by_line else self.depth

    def _show_scopes(self, at: _Point) -> None:
        title = "By line of Python (L: by name scope)" if self.by_line else f"By name scope, depth {self.depth} (L: by line)"
        self.scopes.set_rows(title, at.scopes, self.profile.max_bytes)

    def _cursor_line(self, point: int, count: int) -> list[Segment]:
        """`#117/222 fusion.3 = fusion kLoop f32[..]  · live 4.9 MiB in 76 buffers  op_name`."""
        p = self.profile
        ins = p.instruction_at(point)
        live = p.live_bytes(point)
        line = [Segment(f"▲#{point}/{p.end_time} ", _BOLD)]
        if ins is None:
            line.append(Segment("end of program: outputs and arguments", _ITALIC))
        else:
            kind = f" {ins.fusion_kind}" if ins.fusion_kind else ""
            line += [Segment(ins.name, category_style(instruction_category(ins))),
                     Segment(f" = {ins.opcode}{kind} {ins.shape.text}", _DIM)]
        line.append(Segment(f"  · live {human_bytes(live)} in {count} buffers"))
        shared = p.shared_bytes(point)
        if shared:
            line.append(Segment(f" (their sizes add up to {human_bytes(live + shared)}: two of them hand on "
                                f"{human_bytes(shared)}, counted once)", _DIM))
        allocated = p.allocated_bytes(point)
        if allocated is not None and allocated != live:
            line.append(Segment(f" ({human_bytes(allocated)} allocated: some share memory)", _DIM))
        if ins is not None and ins.op_name:
            line.append(Segment(f"  {ins.op_name}", _DIM))
        return line

    def on_screen_suspend(self) -> None:
        if self.profile is not None and self.workspace.selection.program_point != self.cursor:
            self.app.select(program_point=self.cursor)
            self._seen = self.workspace.selection

    def action_step(self, delta: int) -> None:
        self._move(self.cursor + delta)

    def action_column(self, direction: int) -> None:
        """One chart column: as many points as a column covers."""
        end = self._end()
        if end is not None:
            step = max(1, -(-(end + 1) // self.chart.plot_width))
            self._move(self.cursor + direction * step)

    def action_jump(self, where: str) -> None:
        p = self.profile
        if p is not None:
            self._jump_to({"start": 0, "end": p.end_time, "peak": p.peak_time, "max": p.max_time}[where])
        elif self.over_time is not None:
            self._jump_to({"start": 0, "end": self._end()}.get(where, self._over_time_peak))

    def _jump_to(self, point: int) -> None:
        """A move that is not a step (home/end, the peak, a click, a selection made elsewhere):
        Backspace comes back from it."""
        if point != self.cursor and (not self._jumped_from or self._jumped_from[-1] != self.cursor):
            self._jumped_from.append(self.cursor)
            del self._jumped_from[:-MAX_HISTORY]
        self._move(point)

    def action_back(self) -> None:
        if not self._jumped_from:
            self.notify("No earlier place: Backspace comes back from home/end, p, m, a click or a selection made elsewhere",
                        timeout=3)
            return
        self._move(self._jumped_from.pop())

    def _end(self) -> int | None:
        """The cursor's last point: the program's end, or the profile's last sample."""
        if self.profile is not None:
            return self.profile.end_time
        return len(self.over_time[0]) - 1 if self.over_time is not None else None

    def action_sort(self) -> None:
        self.sort = SORTS[(SORTS.index(self.sort) + 1) % len(SORTS)]
        self.table.set_sorted_by(SORT_COLUMNS[self.sort])
        self._move(self.cursor)

    def action_depth(self, delta: int) -> None:
        """A name scope level up or down (from the lines of Python: back to the scopes)."""
        if not self.by_line:
            self.depth = max(1, min(12, self.depth + delta))
        self.table.set_by_line(False)
        if self.profile is not None:
            self._show_scopes(self._at(self.cursor))

    def action_by_line(self) -> None:
        """`L`: the side list (and the table's last column) by line of Python, or back by name scope."""
        self.table.set_by_line(not self.by_line)
        if self.profile is not None:
            self._show_scopes(self._at(self.cursor))

    def action_graph(self) -> None:
        p = self.profile
        if p is None:
            return
        row = self.table.current
        ins = p.values[row].instruction if row is not None else p.instruction_at(self.cursor)
        if ins is not None:
            self.app.show("graph", instruction=ins, program_point=self.cursor)

    # -- buffers --------------------------------------------------------------------------
    def view_text(self) -> tuple[str, str] | None:
        """The buffers live at the cursor, tab-separated."""
        text = self.table.plain_text()
        return ("the buffer table", text) if text else None

    def _buffer_highlighted(self, row: int) -> None:
        p = self.profile
        if p is None:
            return
        self._show_buffer(row)
        value = p.values[row]
        self._choosing = True  # the screen shows this selection already (see show_selection)
        try:
            self.app.select(instruction=value.instruction, buffer=value.name, program_point=self.cursor)
        finally:
            self._choosing = False

    def _show_buffer(self, row: int | None) -> None:
        self.selected_row = row
        span = None if row is None else (int(self.profile.start[row]), int(self.profile.end[row]))
        self.chart.set_span(span)

    # -- the shared selection -------------------------------------------------------------
    def show_selection(self, old: Selection, new: Selection) -> None:
        seen, self._seen = self._seen, new
        if self._choosing:
            return
        if new.module != seen.module:
            self.show_workspace(self.workspace)
            return
        p = self.profile
        if p is None:
            return
        row = None
        if new.buffer != seen.buffer:  # another's, or none (another op was selected elsewhere)
            row = self._buffer_row(new)
            self._show_buffer(row)
            if row is not None:
                self.table.move_to(row)
        target = None
        if new.program_point != seen.program_point and new.program_point is not None:
            target = new.program_point
        elif new.instruction != seen.instruction and new.instruction and not self._is_live_buffer(row):
            ins = self.workspace.instruction
            target = p.time_of(ins) if ins is not None else None
        if target is not None and target != self.cursor:
            self._jump_to(target)  # the table keeps the buffer shown, where it is live

    def _is_live_buffer(self, row: int | None) -> bool:
        """The instruction was selected with one of its buffers, live at the cursor: it stays put."""
        return row is not None and int(self.profile.start[row]) <= self.cursor <= int(self.profile.end[row])


class _Point(NamedTuple):
    """What the screen shows at a program point, besides the chart."""

    rows: np.ndarray  # value rows live there, in the table's order
    scopes: list[tuple[str, int]]  # (name scope, bytes), largest first
    caption: list[Segment]  # the cursor line under the chart


def _sampled(trace, counters) -> tuple[np.ndarray, list[tuple[str, np.ndarray]]]:
    """The counters over TRACE_POINTS slices of the trace, each the most the counter held in
    its slice (a short spike stays on the chart), labelled by allocator; (slice starts, [(label, values)])."""
    t0, t1 = trace.span
    grid = np.linspace(t0, t1, TRACE_POINTS).astype(np.int64)
    series = []
    for counter, label in zip(counters, _band_labels([c.name for c in counters])):
        times, samples = counter.time_ns, counter.value
        held = np.searchsorted(times, grid, side="right") - 1  # the sample in force as each slice starts
        values = np.where(held >= 0, samples[np.clip(held, 0, None)], 0)
        slices = np.searchsorted(grid, times, side="right") - 1
        inside = slices >= 0
        np.maximum.at(values, slices[inside], samples[inside])
        series.append((label, values.astype(np.int64)))
    return grid, series


def _band_labels(names: list[str], width: int = 9) -> list[str]:
    """Short labels for the chart's bands: each allocator's first word (`GPU_0_bfc`) where those
    differ, else the words that tell the counters apart, less the start they share
    (`device 0 allocator bytes_reserved` beside device 1's `bytes_allocated`: `0 reserved`)."""
    words = [name.split() or [""] for name in names]
    firsts = [w[0] for w in words]
    if len(set(firsts)) == len(firsts) or len({len(w) for w in words}) > 1:
        return [first[:width] for first in firsts]
    long, short = [[] for _ in names], [[] for _ in names]  # a number with the word before it in full, or its letter
    columns = list(zip(*words))
    for k, column in enumerate(columns):
        if len(set(column)) == 1:
            continue
        shared = os.path.commonprefix(column)
        cut = shared.rfind("_") + 1  # a whole word's start only: `bytes_`, never the `1` of 10 and 11
        before = columns[k - 1][0] if k and len(set(columns[k - 1])) == 1 and all(w.isdigit() for w in column) else ""
        for full, brief, word in zip(long, short, column):
            full.append(f"{before} {word[cut:]}".strip())
            brief.append(f"{before[:1]}{word[cut:]}")
    labels = [" ".join(full) for full in long]
    return labels if max(map(len, labels)) <= width else [" ".join(brief)[:width] for brief in short]

