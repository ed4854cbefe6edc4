"""The timeline: a profile's tracks as rows under a time ruler, flown with W/A/S/D.

Keys follow Perfetto and XProf: W/S zoom about the cursor, A/D pan (shifted: bigger steps),
arrows move between events and rows, Enter or a click selects, F fits the selection, 0 shows
the whole trace, M marks the cursor event's time range (Shift+arrows or a mouse drag mark any
range), N/Shift+N step through search matches, Shift+P pins a group above the others. The
chosen event's flows are drawn over the rows (tui/widgets/timeline_flows.py). The
wheel scrolls rows, Ctrl+wheel zooms about the pointer, Shift+wheel pans.

Rendered with the Line API. A frame bins every visible row's events into cells with one call
(`tui.model.trace_bins`: a searchsorted per cell edge on the trace's merged row index, never a
pass over the events in view), so its cost depends on the screen's size, not the trace's.
Painted rows are kept per window (tui/widgets/timeline_pictures.py): going back to a window
of a moment ago paints nothing, and a view left still has its next zoom and pan windows painted
ahead (tui/widgets/still.py); moving the cursor repaints only the rows it leaves and enters.
A row that is one event (or nothing) across the window, as most are deep in a zoom, keeps its
line from any earlier window where it was that (trace_bins.sole_events), and a new window
repaints only the lines that differ from those shown.
"""

from __future__ import annotations

import math
from collections import defaultdict
from typing import Callable, NamedTuple

import numpy as np
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding
from textual.geometry import Region, Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from tui.model.timescale import Window, format_ns, ticks
from tui.model.trace import Trace, TraceLanes, Track
from tui.model.trace_bins import SUB, Cells, bin_rows, busy_fraction, sampled_values, sole_events
from tui.model.trace_lanes import LaneIndex, lane_index, position
from tui.widgets.direct_keys import DirectKeys
from tui.widgets.line_cache import LineCache
from tui.widgets.still import HeldKey, StillWatch
from tui.widgets.timeline_flows import Link, Marks, connectors, overlaid
from tui.widgets.timeline_pictures import Picture, Pictures
from tui.widgets.timeline_paint import (
    COUNTER,
    CURSOR,
    EMPTY,
    MARK,
    STEP_A,
    STEP_B,
    SUMMARY,
    TEXT,
    Painter,
    fit,
    key,
    name_colour,
)

LABEL_WIDTH = 28  # at most; a fifth of a narrow screen
_LAST_FIXED = Style(underline=True)
PINNED = "\0pinned"  # the group of rows pinned one by one, above every other (no real group's name holds a NUL)
ZOOM_STEP, BIG_ZOOM_STEP = 0.6, 0.2
PAN_STEP, BIG_PAN_STEP = 0.2, 0.8
RANGE_STEP = 1 / 40  # of the window, per Shift+arrow


class Row(NamedTuple):
    kind: str  # "group", "track", "instants" (a track's instant events, on a row of their own) or "counter"
    group: str
    index: int  # into trace.tracks or trace.counters; -1 for a group
    lane: int = 0


class TimelineView(DirectKeys, LineCache, ScrollView, can_focus=True):
    DEFAULT_CSS = """
    TimelineView { height: 1fr; scrollbar-size-vertical: 1; overflow-x: hidden; }
    """
    BINDINGS = [
        Binding("w", f"zoom({ZOOM_STEP})", "Zoom in"),
        Binding("s", f"zoom({1 / ZOOM_STEP})", "Zoom out"),
        Binding("W,shift+w", f"zoom({BIG_ZOOM_STEP})", "Zoom in more", show=False),
        Binding("S,shift+s", f"zoom({1 / BIG_ZOOM_STEP})", "Zoom out more", show=False),
        Binding("a", f"pan({-PAN_STEP})", "Pan left"),
        Binding("d", f"pan({PAN_STEP})", "Pan right"),
        Binding("A,shift+a", f"pan({-BIG_PAN_STEP})", "Pan left more", show=False),
        Binding("D,shift+d", f"pan({BIG_PAN_STEP})", "Pan right more", show=False),
        Binding("left", "step(-1)", "Previous event (on a counter: its last change)", show=False),
        Binding("right", "step(1)", "Next event (on a counter: its next change)", show=False),
        Binding("up", "row(-1)", "Row up", show=False),
        Binding("down", "row(1)", "Row down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home", "edge(0)", "First row", show=False),
        Binding("end", "edge(1)", "Last row", show=False),
        Binding("shift+left", "extend(-1)", "Widen range left", show=False),
        Binding("shift+right", "extend(1)", "Widen range right", show=False),
        Binding("shift+up", "extend_rows(-1)", "Range over the rows up to this one", show=False),
        Binding("shift+down", "extend_rows(1)", "Range over the rows down to this one", show=False),
        Binding("enter", "choose", "Select / open op"),
        Binding("f", "fit", "Fit selection"),
        Binding("0", "reset", "Whole trace"),
        Binding("m", "mark", "Mark range"),
        Binding("n", "match(1)", "Next match", show=False),
        Binding("N,shift+n", "match(-1)", "Previous match", show=False),
        Binding("c", "collapse", "Collapse group", show=False),
        Binding("P,shift+p", "pin", "Pin the row (on a group's head: the group) on top", show=False),
        Binding("escape", "clear_range", "Clear range", show=False),
    ]

    def __init__(self, *, id: str | None = None):
        super().__init__(id=id)
        self.trace: Trace | None = None
        self.window = Window(0.0, 1.0, 1, (0, 1))
        self.rows: list[Row] = []
        self._group_tracks: dict[str, list[int]] = {}  # group -> the tracks its rows show (folded or not), in row order
        self.collapsed: set[str] = set()
        self.pinned: list[str] = []  # groups shown above the others, in the order pinned
        self.pinned_rows: list[tuple[str, int]] = []  # ("track" or "counter", index): shown at the very top, in their own group
        self.fixed_rows = 0  # rows that stay under the ruler while the others scroll (see _fix_pinned)
        self.row_filter = ""  # only rows whose group, track or counter name holds this (any case)
        self.cursor_row = 0
        self.cursor_event: int | None = None
        self.cursor_ns = 0.0
        self.marked: tuple[float, float] | None = None
        # The tracks a range counts, as Perfetto's area selection: those of the rows it was marked
        # across (a drag, shift+up/down from where it was marked); None: all of them.
        self.marked_tracks: tuple[int, ...] | None = None
        # The counters it sums up (Perfetto's Counters tab): those of the rows it was marked across,
        # or the counter's whose row it was marked on.
        self.marked_counters: tuple[int, ...] = ()
        self._range_anchor = 0.0
        self._area_anchor = self._area_end = 0  # the rows the range's tracks run from and to
        self._area_marks: dict[int, tuple] = {}  # row -> (its line, the tracks marked, the line as drawn in the range): _drawn_over
        self._marked_on: tuple[int, int | None] | None = None  # the cursor when the range was marked (f fits the later)
        # The chosen event's flows ((track, event), the events it links to; None: none), drawn
        # (timeline_flows) while the cursor is on that event.
        self.flows: tuple[tuple[int, int], tuple[tuple[int, int], ...]] | None = None
        self._flow_marks_for: tuple | None = None  # (flows, window, rows, their marks)
        self._flow_lines: dict[int, tuple] = {}  # row -> (its line, its marks, the line with them drawn): _drawn_over
        self._row_numbers: tuple[list, dict] | None = None  # (rows, row -> its index)
        self.matches: tuple[np.ndarray, np.ndarray] = (np.zeros(0, np.int32), np.zeros(0, np.intp))
        self._match_starts = np.zeros(0, np.int64)
        self._match_instant = np.zeros(0, bool)  # which matches are instants (on their track's instants row)
        self._fit_matches = False  # n / N zoom to each match whole (the steps), not only pan to it
        self.op_names: frozenset[str] = frozenset()
        self.kernel_ops: dict[str, str] = {}
        self._colour = np.zeros(0, np.int32)
        self._steps: tuple[LaneIndex, list[str]] | None = None
        self.lanes: TraceLanes | None = None  # every track's rows merged, once all are decoded
        self._painter = Painter("#000000")
        self._lines: dict[int, Strip] = {}
        self._picture = Picture()  # what was painted in this window: rows for any cursor, binned cells, rulers
        self._ruler: Strip | None = None  # header line 0: time ticks, the marked range, the zoom centre
        self._ruler_centre = -1  # the column of the zoom centre on it
        self.pictures = Pictures()  # of windows shown before this one, or painted ahead
        # Lines that are the same in many windows: (row, event position or -1, cursor row, cursor
        # event) -> a row that is that one event (or nothing) across the window (trace_bins.sole_events);
        # ("group", row, cursor row) -> an expanded group's line; ("steps", event or -1) -> the steps
        # line. Emptied with every new layout of the rows (a track decoded, the merged index made).
        self._sole_lines: dict[tuple, Strip] = {}
        self._still = StillWatch()  # when to paint the next windows ahead
        self._held = HeldKey(self)  # a zoom or pan key held down: the next window, between repeats
        self.label_width = LABEL_WIDTH
        # What the screen is told, called, not a message, so its answer is in the same frame (a
        # message comes a frame later): the cursor moved (track index, event or None), Enter or
        # a click chose an event, the marked time range changed (None: cleared).
        self.cursor_moved: Callable[[int, int | None], None] = lambda track, event: None
        self.chosen: Callable[[int, int], None] = lambda track, event: None
        self.range_marked: Callable[[tuple[int, int] | None, tuple[int, ...] | None], None] = lambda time_range, tracks: None
        self.window_moved: Callable[[], None] = lambda: None
        # What is under the mouse pointer, when that changes: ("track", track, event) or
        # ("counter", counter, sample), or None (over nothing, or gone).
        self.hovered: Callable[[tuple[str, int, int] | None], None] = lambda found: None
        self._hover: tuple[str, int, int] | None = None
        self._drag_from: float | None = None
        self._drag_y = 0  # the line a drag began on
        self._dragged = False

    # -- data ---------------------------------------------------------------------------------
    def set_trace(self, trace: Trace | None, op_names: frozenset[str] = frozenset()) -> None:
        """Show a (possibly still decoding) trace from the top, zoomed out."""
        if trace is not self.trace:
            self.pinned_rows = []  # indices into the tracks of the trace shown before
        self.trace = trace
        self.op_names = op_names
        self._colour = np.zeros(0, np.int32)
        self._steps, self.lanes = None, None
        self.cursor_row, self.cursor_event, self.marked, self.marked_tracks, self.flows = 0, None, None, None, None
        self.matches, self._match_starts = (np.zeros(0, np.int32), np.zeros(0, np.intp)), np.zeros(0, np.int64)
        self._match_instant = np.zeros(0, bool)
        if trace is not None:
            self.window = Window.whole(trace.span, self.cells)
            self.cursor_ns = (self.window.t0 + self.window.t1) / 2
        self.refresh_rows()

    def set_op_names(self, names: frozenset[str], kernel_ops: dict[str, str] | None = None) -> None:
        """Names to colour as XLA ops (by category) rather than as host activity; GPU kernels
        (`kernel_ops`: kernel name -> the op it ran) in their op's colour."""
        self.op_names, self._colour = names, np.zeros(0, np.int32)
        self.kernel_ops = kernel_ops or {}
        self._redraw()

    def refresh_rows(self, lanes: TraceLanes | None = None) -> None:
        """Lay the rows out again: tracks decoded since (all of them once `lanes`, the
        trace's merged rows, is given), a group collapsed or expanded."""
        self.lanes = lanes or self.lanes
        old = self.rows
        keep, anchor, end = (old[k] if 0 <= k < len(old) else None for k in (self.cursor_row, self._area_anchor, self._area_end))
        self.rows = self._layout()
        if keep is not None and keep in self.rows:
            self.cursor_row = self.rows.index(keep)
        self.cursor_row = min(self.cursor_row, max(len(self.rows) - 1, 0))
        # the marked range's rows where they are now (gone, in a collapsed group or filtered out: the cursor's)
        self._area_anchor, self._area_end = (self.rows.index(row) if row in self.rows else self.cursor_row for row in (anchor, end))
        if self.lanes is not None and self._steps is None:
            steps = self.trace.steps
            starts = np.array([s for s, _, _ in steps], np.int64)
            ends = np.maximum(np.array([e for _, e, _ in steps], np.int64), starts)
            self._steps = (lane_index(starts, ends, np.zeros(len(steps), np.int16)), [name for _, _, name in steps])
        self.virtual_size = Size(self.view_size.width, len(self.rows) + self.header_height)
        self._fix_pinned()
        self._redraw()

    def _layout(self) -> list[Row]:
        trace = self.trace
        if trace is None:
            return []
        counters = trace.counters if self.lanes is not None else []
        wanted = self.row_filter.lower()

        def shown(group: str, name: str) -> bool:
            return not wanted or wanted in group.lower() or wanted in name.lower()

        # derived lines (derived_lines: XProf's XLA Modules, XLA Ops, name scopes) head their device's group
        tracks = sorted(((k, t) for k, t in enumerate(trace.tracks) if shown(t.group, t.name)), key=lambda kt: not kt[1].derived)
        counters = [(k, c) for k, c in enumerate(counters) if shown(c.group, c.name)]
        groups = list(dict.fromkeys([t.group for _, t in tracks] + [c.group for _, c in counters]))
        groups = [g for g in self.pinned if g in groups] + [g for g in groups if g not in self.pinned]
        pinned = set(self.pinned_rows)
        shown_tracks = {k: t for k, t in tracks}
        shown_counters = {k for k, _ in counters}
        on_top = [(kind, k) for kind, k in self.pinned_rows if k in (shown_tracks if kind == "track" else shown_counters)]
        rows = [Row("group", PINNED, -1)] if on_top else []
        if on_top and PINNED not in self.collapsed:
            for kind, k in on_top:
                rows += self._track_rows(k, shown_tracks[k]) if kind == "track" else [Row("counter", trace.counters[k].group, k)]
        grouped_tracks, grouped_counters = defaultdict(list), defaultdict(list)
        for k, track in tracks:
            grouped_tracks[track.group].append((k, track))
        for k, counter in counters:
            grouped_counters[counter.group].append(k)
        self._group_tracks = {group: [k for k, _ in grouped_tracks[group] if ("track", k) not in pinned] for group in groups}
        self._group_tracks[PINNED] = [k for kind, k in on_top if kind == "track"]
        for group in groups:
            rows.append(Row("group", group, -1))
            if group in self.collapsed:
                continue
            for k in self._group_tracks[group]:
                rows += self._track_rows(k, shown_tracks[k])
            rows += [Row("counter", group, k) for k in grouped_counters[group] if ("counter", k) not in pinned]
        return rows

    @staticmethod
    def _track_rows(k: int, track: Track) -> list[Row]:
        """A track's rows: a lane each (a track of instants only has none), then its instants."""
        rows = [Row("track", track.group, k, lane) for lane in range(track.lanes if track.decoded else min(track.count, 1))]
        if len(track.instant_ns):
            rows.append(Row("instants", track.group, k))
        return rows

    @staticmethod
    def _pin(row: Row) -> tuple[str, int]:
        """What pinning a (non-group) row pins: its counter, or its track (an instants row's too)."""
        return ("counter" if row.kind == "counter" else "track", row.index)

    def section(self, row: Row) -> str:
        """The group a row is shown in: its own, or the pinned rows'."""
        return PINNED if row.kind != "group" and self._pin(row) in self.pinned_rows else row.group

    def filter_rows(self, text: str) -> None:
        """Show only the rows whose group, track or counter name holds `text` ("": all)."""
        if text != self.row_filter:
            self.row_filter = text
            before = self.current_row
            self.refresh_rows()
            self._move_cursor(self.cursor_row, self.cursor_event if self.current_row == before else None)

    def _fix_pinned(self) -> None:
        """The pinned section stays in place under the ruler while the other rows scroll, as
        Perfetto keeps pinned tracks, unless it would take more than half the room."""
        pinned = next((i for i, row in enumerate(self.rows) if self.section(row) != PINNED), len(self.rows))
        self.fixed_rows = pinned if pinned <= (self.view_size.height - self.header_height) // 2 else 0

    def _visible(self) -> list[int]:
        """Indices of the rows on screen, top to bottom: the fixed ones, then the scrolled."""
        fixed, top = self.fixed_rows, int(self.scroll_offset.y)
        return [*range(fixed), *range(fixed + top, min(top + self.view_size.height - self.header_height, len(self.rows)))]

    def _rows_swept(self, y0: int, y1: int) -> list[int]:
        """The rows on screen from line y0 to line y1 (either way; a line on the ruler or past
        the last row counts as the row nearest it), top to bottom."""
        shown = self._visible()
        if self.trace is None or not shown:
            return []
        a, b = sorted(min(max(y - self.header_height, 0), len(shown) - 1) for y in (y0, y1))
        return shown[a:b + 1]

    def _index_at(self, y: int, top: int | None = None) -> int | None:
        """The row at line `y` of the widget (None: the ruler, the steps or below the rows), with
        the rows scrolled `top` rows (as they are, by default)."""
        shown = y - self.header_height
        if shown < 0:
            return None
        index = shown if shown < self.fixed_rows else shown + (int(self.scroll_offset.y) if top is None else top)
        return index if index < len(self.rows) else None

    def _y_of(self, index: int) -> int | None:
        """The line of the widget that shows row `index` (None: scrolled out of sight)."""
        fixed, top = self.fixed_rows, int(self.scroll_offset.y)
        if index < fixed:
            return self.header_height + index
        y = self.header_height + index - top
        return y if index >= fixed + top and y < self.view_size.height else None

    @property
    def header_height(self) -> int:
        return 2 if self._steps is not None and len(self._steps[1]) else 1

    @property
    def cells(self) -> int:
        """Character cells of the time axis at the view's width (a column is kept for the
        scrollbar). Painting uses the window's own (`window.cells`): a size just changed reaches
        the window with on_resize, and a row painted before then is still the window's width."""
        return max(self.view_size.width - 1 - self.label_width, 1)

    @property
    def cursor(self) -> tuple[int, int | None] | None:
        """(track index, event index or None) under the cursor; None on a group or counter row."""
        row = self._row(self.cursor_row)
        if row is None or row.kind != "track":
            return None
        return row.index, self.cursor_event

    @property
    def current_row(self) -> Row | None:
        return self._row(self.cursor_row)

    def _row(self, index: int) -> Row | None:
        return self.rows[index] if 0 <= index < len(self.rows) else None

    def _track(self, row: Row) -> Track:
        return self.trace.tracks[row.index]

    # -- view changes -------------------------------------------------------------------------
    def set_window(self, window: Window) -> None:
        """Show another time window: one shown a moment ago comes back as it was painted."""
        if window == self.window:
            return
        shown = self._lines, self._ruler, self._picture.steps_line
        flowed = set(self._flow_marks())  # rows the flows are drawn over, in this window and the next
        self._picture.lines.update((self._line_key(index), strip) for index, strip in self._lines.items())
        self.pictures.put(self.window, self._picture)
        self._forget_painted()
        self._still.moved()
        found = self.pictures.find(window)
        if found is not None:
            window, self._picture = found
        self.window = window
        self._refresh_changed(*shown, flowed | set(self._flow_marks()))
        self._point_at(None)  # the pointer is over another time now: told again when it moves
        self.window_moved()

    def _refresh_changed(self, lines: dict[int, Strip], ruler: Strip | None, steps_line: Strip | None,
                         flowed: set[int]) -> None:
        """After a new window: paint its visible lines now and repaint only those that are not
        the ones shown (a row that is the same one event in both keeps its line, and Textual
        neither cuts nor encodes it again) or that flows are drawn over. A pane not on screen
        paints when it is shown."""
        if self.trace is None or not self.screen.is_current:
            self.refresh()
            return
        header = self.header_height
        self._paint_visible()
        changed = [header + y for y, index in enumerate(self._visible())
                   if self._lines.get(index) is not lines.get(index) or index in flowed]
        self._ruler = self._kept_ruler()
        if self._ruler is not ruler:
            changed.append(0)
        if header > 1 and self._steps_line() is not steps_line:
            changed.append(1)
        self.refresh_view_lines(changed)

    def _redraw(self) -> None:
        """Paint everything again (the rows, their colours or the size changed), in every window."""
        self.pictures.clear()
        self._sole_lines.clear()
        self._still.moved()
        self._forget_painted()
        self.refresh()

    def _forget_painted(self) -> None:
        self._lines, self._picture, self._ruler = {}, Picture(), None  # new ones: the kept pictures hold the old

    def _repaint_rows(self, *rows: int) -> None:
        width = self.view_size.width
        for row in rows:
            self._lines.pop(row, None)
        shown = [y for y in map(self._y_of, rows) if y is not None]
        if shown:
            self.refresh(*(Region(0, y, width, 1) for y in shown))
        self._repaint_ruler()

    def _repaint_ruler(self, always: bool = False) -> None:
        """Repaint the ruler if the zoom centre moved to another column (`always`: the marked
        range changed)."""
        if always or self.window.column(self.cursor_time) != self._ruler_centre:
            self._ruler = None
            self.refresh(Region(0, 0, self.view_size.width, 1))

    def on_resize(self) -> None:
        self.label_width = min(LABEL_WIDTH, max(12, self.view_size.width // 5))
        if self.trace is not None:
            self.window = self.window.resized(self.cells)
        self.virtual_size = Size(self.view_size.width, len(self.rows) + self.header_height)
        self._fix_pinned()
        self.restyled()

    def restyled(self) -> None:
        """Paint everything again, on the background as it is now."""
        self._painter = Painter(self.background_colors[1].rich_color.name)  # a name Rich reads: `default` in an ANSI theme
        self._redraw()

    def show_event(self, track_index: int, event: int) -> None:
        """Put the cursor on an event: expand its group, scroll to its row, pan to show it."""
        track = self.trace.tracks[track_index]
        if self._reveal(Row("track", track.group, track_index, int(track.depth[event])), event):
            self.set_window(self.window.reveal(*track.event_span(event)))

    def show_instant(self, track_index: int, instant: int) -> None:
        """Put the cursor on a track's instants row, at one of them."""
        track = self.trace.tracks[track_index]
        if self._reveal(Row("instants", track.group, track_index), None):
            self._put_cursor_time(int(track.instant_ns[instant]))

    def show_counter(self, index: int) -> None:
        """Put the cursor on a counter's row (its group expanded)."""
        self._reveal(Row("counter", self.trace.counters[index].group, index), None)

    def _reveal(self, row: Row, event: int | None) -> bool:
        """Expand the row's section (show every row, if a filter hides it), scroll to it and put
        the cursor there; False if it has no row."""
        section = self.section(row)
        if section in self.collapsed or row not in self.rows:
            self.collapsed.discard(section)
            if self.row_filter and row not in self._layout():
                self.row_filter = ""  # the row is filtered out: show them all again
            self.refresh_rows()
        if row not in self.rows:
            return False
        self._move_cursor(self.rows.index(row), event)
        return True

    def _move_cursor(self, row: int, event: int | None) -> None:
        flowed = set(self._flow_marks())  # drawn while the cursor is on the chosen event: gone, or back
        old = self.cursor_row
        for index in (old, row):  # moving back shows these pictures again
            if index in self._lines:
                kept = self._picture.lines
                if len(kept) > 256:
                    kept.clear()
                kept[self._line_key(index)] = self._lines[index]
        self.cursor_row, self.cursor_event = row, event
        self._still.moved()
        target = self._row(row)
        if event is not None and target is not None and target.kind == "track":
            track = self._track(target)
            self.cursor_ns = sum(track.event_span(event)) / 2
        self._scroll_to_row(row)
        if self.flows is not None:
            self.refresh_view_lines(y for y in map(self._y_of, flowed | set(self._flow_marks())) if y is not None)
        self._repaint_rows(old, row)
        self.cursor_moved(target.index if target else -1, event)

    def _scroll_to_row(self, row: int) -> None:
        fixed = self.fixed_rows
        if row < fixed:
            return
        top, height = int(self.scroll_offset.y), max(self.view_size.height - self.header_height - fixed, 1)
        if row < fixed + top:
            self.scroll_to(y=row - fixed, animate=False, immediate=True)
        elif row >= fixed + top + height:
            self.scroll_to(y=row - fixed - height + 1, animate=False, immediate=True)

    @property
    def cursor_time(self) -> float:
        """The time the ruler marks, which W/S zoom about: the middle of the cursor's event in
        view, else the cursor's time in view, else the window's middle."""
        cursor = self.cursor
        if cursor is not None and cursor[1] is not None:
            track = self.trace.tracks[cursor[0]]
            start, end = track.event_span(cursor[1])
            if start < self.window.t1 and end >= self.window.t0:
                return min(max((start + end) / 2, self.window.t0), self.window.t1)
        if self.window.contains(self.cursor_ns):
            return self.cursor_ns
        return (self.window.t0 + self.window.t1) / 2

    # -- actions ------------------------------------------------------------------------------
    def action_zoom(self, factor: float) -> None:
        if self.trace is not None:
            self.set_window(self.window.zoom(factor, self.cursor_time))
            self._held.pressed(("zoom", factor), lambda: self._paint_ahead(self.window.zoom(factor, self.cursor_time)))

    def action_pan(self, fraction: float) -> None:
        if self.trace is not None:
            self.set_window(self.window.pan(fraction))
            self._held.pressed(("pan", fraction), lambda: self._paint_ahead(self.window.pan(fraction)))

    def action_reset(self) -> None:
        if self.trace is not None:
            self.set_window(Window.whole(self.trace.span, self.cells))

    def action_step(self, direction: int) -> None:
        """The previous/next event on the cursor's row (from the cursor time if none yet); on a
        counter's row, its previous/next change; on a row without events, a small pan."""
        row = self._row(self.cursor_row)
        if row is not None and row.kind == "counter":
            self._step_counter(self.trace.counters[row.index], direction)
            return
        if row is not None and row.kind == "instants":
            self._step_instant(self.trace.tracks[row.index].instant_ns, direction)
            return
        if not self._on_events():
            self.action_pan(direction * PAN_STEP / 2)
            return
        target = self._next_event(direction)
        if target is None:
            return
        event, start, end = target
        self._move_cursor(self.cursor_row, event)
        self.set_window(self.window.reveal(start, end))
        self._held.pressed(("step", direction), lambda: self._paint_step_ahead(direction))

    def _step_counter(self, counter, direction: int) -> None:
        """Put the cursor time where the counter next steps (or last stepped), as the arrows step
        through a track's events."""
        at = counter.next_change(self.cursor_time, direction)
        if at is not None:
            self._put_cursor_time(at)

    def _step_instant(self, times: np.ndarray, direction: int) -> None:
        """Put the cursor time on the row's next (or previous) instant."""
        at = self.cursor_time
        k = int(np.searchsorted(times, at, "right")) if direction > 0 else int(np.searchsorted(times, at, "left")) - 1
        if 0 <= k < len(times):
            self._put_cursor_time(int(times[k]))

    def _put_cursor_time(self, at: int) -> None:
        """The ruler's mark at `at`, the window moved as little as shows it."""
        self.cursor_ns = float(at)
        target = self.window.reveal(at, at)
        if target == self.window:  # the cursor time moved, not the window
            self._repaint_ruler()
            self.window_moved()
        else:
            self.set_window(target)

    def _on_events(self) -> bool:
        """Whether the cursor is on a row of a decoded track's events."""
        row = self._row(self.cursor_row)
        return row is not None and row.kind == "track" and self._track(row).decoded

    def _next_event(self, direction: int) -> tuple[int, int, int] | None:
        """(event, start, end) of the event the cursor steps to on its track row."""
        row = self._row(self.cursor_row)
        track = self._track(row)
        start, end, index = track.lane(row.lane)
        if not len(index):
            return None
        if self.cursor_event is not None and int(track.depth[self.cursor_event]) == row.lane:
            lanes = track.lane_index()
            k = position(lanes, row.lane, int(track.start_ns[self.cursor_event]), self.cursor_event)
            k += direction - int(lanes.offsets[row.lane])
        elif direction > 0:
            k = int(np.searchsorted(start, self.cursor_ns, side="left"))
        else:
            k = int(np.searchsorted(end, self.cursor_ns, side="right")) - 1
        k = min(max(k, 0), len(index) - 1)
        return int(index[k]), int(start[k]), int(end[k])

    def _paint_step_ahead(self, direction: int) -> None:
        """The window the next step shows, painted with the cursor on the event it steps to."""
        target = self._next_event(direction) if self._on_events() else None
        if target is not None:
            event, start, end = target
            shown = self.cursor_event, self.cursor_ns
            self.cursor_event, self.cursor_ns = event, (start + end) / 2
            try:
                self._paint_ahead(self.window.reveal(start, end))
            finally:
                self.cursor_event, self.cursor_ns = shown

    def action_row(self, direction: int) -> None:
        target = min(max(self.cursor_row + direction, 0), len(self.rows) - 1)
        if target != self.cursor_row or not self.rows:
            self._move_cursor(target, self._event_near(target, self.cursor_ns))

    def action_page(self, direction: int) -> None:
        self.action_row(direction * max(self.view_size.height - self.header_height - self.fixed_rows - 1, 1))

    def action_edge(self, end: int) -> None:
        """Home/End: the cursor to the first or last row, at once (Textual's own scroll there
        glides over a second of frames)."""
        self.action_row(len(self.rows) - 1 - self.cursor_row if end else -self.cursor_row)

    def _event_near(self, row_index: int, t: float) -> int | None:
        """The event of a row covering time `t`, else the visible one starting nearest to it."""
        row = self._row(row_index)
        if row is None or row.kind != "track" or not self._track(row).decoded:
            return None
        start, end, index = self._track(row).lane(row.lane)
        k = int(np.searchsorted(start, t, side="right")) - 1
        if k >= 0 and t < end[k]:
            return int(index[k])
        candidates = [j for j in (k, k + 1) if 0 <= j < len(index) and start[j] < self.window.t1 and end[j] >= self.window.t0]
        if not candidates:
            return None
        return int(index[min(candidates, key=lambda j: min(abs(start[j] - t), abs(end[j] - t)))])

    def action_choose(self) -> None:
        row = self._row(self.cursor_row)
        if row is None:
            return
        if row.kind == "group":
            self.action_collapse()
        elif row.kind == "track" and self.cursor_event is not None:
            self.chosen(row.index, self.cursor_event)

    def action_collapse(self) -> None:
        row = self._row(self.cursor_row)
        if row is None:
            return
        section = self.section(row)
        self.collapsed ^= {section}
        self.cursor_row = self.rows.index(Row("group", section, -1))
        self.cursor_event = None
        self.refresh_rows()
        self._scroll_to_row(self.cursor_row)

    def action_pin(self) -> None:
        """Pin the cursor's track or counter above every group, as Perfetto pins tracks: a host
        thread and the GPU stream it launches on, side by side; on a group's head, put the group
        above the others. Again: back in its place (on the pinned rows' head: all of them)."""
        row = self._row(self.cursor_row)
        if row is None:
            return
        if row.group == PINNED:
            self.pinned_rows.clear()
            self.refresh_rows()
            self._scroll_to_row(self.cursor_row)
            return
        if row.kind == "group":
            pins, pin = self.pinned, row.group
        else:
            pins, pin = self.pinned_rows, self._pin(row)
            self.collapsed.discard(PINNED)  # the row stays in sight
        if pin in pins:
            pins.remove(pin)
        else:
            pins.append(pin)
        self.refresh_rows()
        self._scroll_to_row(self.rows.index(Row("group", self.section(row), -1)))  # the section's head, then the cursor
        self._scroll_to_row(self.cursor_row)

    def action_fit(self) -> None:
        """Fit what was chosen last: a range marked while on this event (shift+arrows, a drag),
        else the cursor's event, else a range marked before."""
        cursor = self.cursor
        if self.marked is not None and (cursor == self._marked_on or cursor is None or cursor[1] is None):
            self.set_window(self.window.fit(*self.marked, margin=0.0))
        elif cursor is not None and cursor[1] is not None:
            track = self.trace.tracks[cursor[0]]
            self.set_window(self.window.fit(*track.event_span(cursor[1])))

    def action_mark(self) -> None:
        """Mark the cursor event's time range (again: unmark)."""
        cursor = self.cursor
        if cursor is None or cursor[1] is None:
            return
        track = self.trace.tracks[cursor[0]]
        span = tuple(map(float, track.event_span(cursor[1])))
        self.mark_range(None if self.marked == span else span)

    def action_extend(self, direction: int) -> None:
        """Widen (or narrow) the marked range from the cursor time by a step of the window."""
        if self.trace is None:
            return
        if self.marked is None:
            self._range_anchor = self.cursor_time
            moving = self._range_anchor
        else:
            a, b = self.marked
            moving = b if a == self._range_anchor else a
        moving = min(max(moving + direction * RANGE_STEP * self.window.width, self.window.span[0]), self.window.span[1])
        self.cursor_ns = moving
        self.set_window(self.window.reveal(moving, moving))
        counters = self.marked_counters if self.marked is not None else None  # a new range: the cursor row's
        self.mark_range(tuple(sorted((self._range_anchor, moving))), self.marked_tracks, counters)

    def mark_range(self, time_range: tuple[float, float] | None, tracks: tuple[int, ...] | None = None,
                   counters: tuple[int, ...] | None = None) -> None:
        """Mark a time range over all tracks, or (`tracks`) over those only; None: unmark. Its
        `counters` are those given, else (over all tracks) the cursor row's, if a counter's."""
        if counters is None:
            row = self.current_row
            counters = (row.index,) if tracks is None and row is not None and row.kind == "counter" else ()
        self.marked_counters = counters if time_range is not None else ()
        if time_range is not None:
            self._range_anchor = time_range[0] if self.marked is None else self._range_anchor
        if self.marked is None or tracks is None:
            self._area_anchor = self._area_end = self.cursor_row
        self.marked, self._marked_on = time_range, self.cursor
        tracks = tracks if time_range is not None else None
        if tracks != self.marked_tracks:
            self.marked_tracks = tracks
            self.refresh()  # the rows' marks (see _area_marked)
        self._repaint_ruler(always=True)
        as_ints = None if time_range is None else (int(time_range[0]), int(np.ceil(time_range[1])))
        self.range_marked(as_ints, tracks)

    def action_extend_rows(self, direction: int) -> None:
        """Shift+up/down: the marked range's last row a row further (the cursor goes there); its
        tracks those of the rows from the one it was marked on (back to that one row: all tracks)."""
        if self.marked is None or not self.rows:
            return
        end = min(max(self._area_end + direction, 0), len(self.rows) - 1)
        self.action_row(end - self.cursor_row)
        lo, hi = sorted((self._area_anchor, end))
        rows = range(lo, hi + 1)
        self.mark_range(self.marked, *((self.tracks_of_rows(rows), self.counters_of_rows(rows)) if lo != hi else ()))
        self._area_end = end

    def tracks_of_rows(self, rows) -> tuple[int, ...]:
        """The tracks shown on these rows, in row order (a collapsed group's row: the tracks it
        hides; counters are not events, so rows of counters alone give none)."""
        found: dict[int, None] = {}
        for row in (self.rows[k] for k in rows):
            if row.kind in ("track", "instants"):
                found[row.index] = None
            elif row.kind == "group" and row.group in self.collapsed:
                found.update(dict.fromkeys(self._group_tracks.get(row.group, ())))
        return tuple(found)

    def counters_of_rows(self, rows) -> tuple[int, ...]:
        """The counters shown on these rows, in row order."""
        return tuple(dict.fromkeys(self.rows[k].index for k in rows if self.rows[k].kind == "counter"))

    # -- flows --------------------------------------------------------------------------------
    def set_flows(self, origin: tuple[int, int] | None, linked=()) -> None:
        """Draw the flows from the event at `origin` (track, event) to the `linked` events, as
        Perfetto draws the selected slice's arrows, while the cursor is on it; None (or nothing
        linked): draw none."""
        flows = (origin, tuple(linked)) if origin is not None and len(linked) else None
        if flows == self.flows:
            return
        drawn = set(self._flow_marks())
        self.flows = flows
        drawn |= set(self._flow_marks())
        self.refresh_view_lines(y for y in map(self._y_of, drawn) if y is not None)

    def _flow_marks(self) -> Marks:
        """The flows' characters by row, for this window and layout of the rows (kept for them);
        none while the cursor is off the chosen event."""
        if self.flows is None or self.trace is None or self.cursor != self.flows[0]:
            return {}
        kept = self._flow_marks_for
        if kept is None or kept[0] != self.flows or kept[1] != self.window or kept[2] is not self.rows:
            kept = self._flow_marks_for = (self.flows, self.window, self.rows, connectors(self._flow_links(), self.window.cells))
        return kept[3]

    def _flow_links(self) -> list[Link]:
        """Each flow as a Link from the earlier event to the later, in this window's columns
        (a flow to an event on no row, its track filtered out, is left out)."""
        origin, linked = self.flows
        window, tracks, links = self.window, self.trace.tracks, []
        for other in linked:
            (a, a_span), (b, b_span) = sorted(((pair, tracks[pair[0]].event_span(pair[1])) for pair in (origin, other)),
                                              key=lambda found: found[1])
            rows = self._row_of_event(*a), self._row_of_event(*b)
            if None not in rows:
                last = max(window.column(a_span[0]), math.ceil((a_span[1] - window.t0) / window.ns_per_cell) - 1)
                links.append(Link(rows[0], last, rows[1], window.column(b_span[0])))
        return links

    def _row_of_event(self, track_index: int, event: int) -> int | None:
        """The row an event is drawn on: its lane's, or in a folded group its group's head (if
        the row filter leaves its track in the group); None if no row shows it."""
        if self._row_numbers is None or self._row_numbers[0] is not self.rows:
            self._row_numbers = (self.rows, {row: index for index, row in enumerate(self.rows)})
        numbers, track = self._row_numbers[1], self.trace.tracks[track_index]
        row = Row("track", track.group, track_index, int(track.depth[event]))
        if row in numbers:
            return numbers[row]
        section = self.section(row)
        folded = section in self.collapsed and track_index in self._group_tracks.get(section, ())
        return numbers.get(Row("group", section, -1)) if folded else None

    def action_clear_range(self) -> None:
        if self.marked is not None:
            self.mark_range(None)

    def set_matches(self, tracks: np.ndarray, found: np.ndarray, instants: tuple[np.ndarray, np.ndarray] | None = None,
                    fit: bool = False) -> None:
        """Search results in time order, stepped through with N / Shift+N: events (`found` on
        `tracks`) and, where given, instants ((tracks, instant indices)). `fit`: each shown whole
        (steps differ in length: one zoomed to would cut a longer next one)."""
        self._fit_matches = fit
        starts, is_instant = self._times_of(tracks, found, "start_ns"), np.zeros(len(found), bool)
        if instants is not None and len(instants[1]):
            tracks, found = np.concatenate([tracks, instants[0]]), np.concatenate([found, instants[1]])
            starts = np.concatenate([starts, self._times_of(*instants, "instant_ns")])
            is_instant = np.concatenate([is_instant, np.ones(len(instants[1]), bool)])
            order = np.argsort(starts, kind="stable")
            tracks, found, starts, is_instant = tracks[order], found[order], starts[order], is_instant[order]
        self.matches, self._match_starts, self._match_instant = (tracks, found), starts, is_instant

    def _times_of(self, tracks: np.ndarray, found: np.ndarray, column: str) -> np.ndarray:
        """`column` (events' `start_ns`, or `instant_ns`) of each (track, index), a track at a time."""
        times = np.zeros(len(found), np.int64)
        for k in np.unique(tracks).tolist():
            here = tracks == k
            times[here] = getattr(self.trace.tracks[k], column)[found[here]]
        return times

    def match_index(self) -> int | None:
        """Which match the cursor is on, if any (a binary search: matches are in time order)."""
        cursor, row = self.cursor, self._row(self.cursor_row)
        tracks, found = self.matches
        if row is not None and row.kind == "instants":  # on an instant: the one at the cursor time
            key, start, instant = row.index, self.cursor_ns, True
        elif cursor is None or cursor[1] is None:
            return None
        else:
            key, start, instant = cursor[0], self.trace.tracks[cursor[0]].start_ns[cursor[1]], False
        k = int(np.searchsorted(self._match_starts, start, side="left"))
        while k < len(found) and self._match_starts[k] == start:
            if tracks[k] == key and self._match_instant[k] == instant and (instant or found[k] == cursor[1]):
                return k
            k += 1
        return None

    def action_match(self, direction: int) -> None:
        """Jump to the next/previous match in time from the cursor."""
        tracks, found = self.matches
        if not len(found):
            return
        current = self.match_index()
        if current is not None:
            k = (current + direction) % len(found)
        elif direction > 0:
            k = int(np.searchsorted(self._match_starts, self.cursor_ns, side="right")) % len(found)
        else:
            k = (int(np.searchsorted(self._match_starts, self.cursor_ns, side="left")) - 1) % len(found)
        if self._match_instant[k]:
            self.show_instant(int(tracks[k]), int(found[k]))
            return
        self.show_event(int(tracks[k]), int(found[k]))
        if self._fit_matches:
            self.set_window(self.window.fit(*self.trace.tracks[int(tracks[k])].event_span(int(found[k]))))

    # -- mouse --------------------------------------------------------------------------------
    def _time_at_x(self, x: int) -> float | None:
        column = x - self.label_width
        return None if column < 0 else self.window.time_at(column + 0.5)

    def on_mouse_down(self, event: events.MouseDown) -> None:
        self._drag_from, self._dragged = self._time_at_x(event.x), False
        self._drag_y = event.y
        if self._drag_from is not None:
            self.capture_mouse()

    def on_mouse_move(self, event: events.MouseMove) -> None:
        if self._drag_from is None:
            self._point_at(self._under(event.x, event.y))
            return
        here = self._time_at_x(max(event.x, self.label_width))
        if abs(here - self._drag_from) >= self.window.ns_per_cell:
            self._dragged = True
            self.marked = tuple(sorted((self._drag_from, here)))
            self._repaint_ruler(always=True)

    def on_leave(self, event: events.Leave) -> None:
        self._point_at(None)

    def _under(self, x: int, y: int) -> tuple[str, int, int] | None:
        """The event drawn at (x, y), or the counter sample that set the value in force there, as
        Perfetto tells what is under the pointer."""
        t = self._time_at_x(x)
        index = self._index_at(y) if self.trace is not None and t is not None and y >= self.header_height else None
        row = self._row(index) if index is not None else None
        if row is None:
            return None
        if row.kind == "counter":
            sample = self.trace.counters[row.index].set_by(t)  # samples that repeat a value are one to the pointer
            return None if sample is None else ("counter", row.index, sample)
        found = self._event_at(row, x - self.label_width)
        return None if found is None else ("track", row.index, found)

    def _point_at(self, found: tuple[str, int, int] | None) -> None:
        if found != self._hover:
            self._hover = found
            self.hovered(found)

    def on_mouse_up(self, event: events.MouseUp) -> None:
        self.release_mouse()
        if self._dragged and self.marked is not None:
            self._range_anchor = self.marked[0]
            swept = self._rows_swept(self._drag_y, event.y)
            across = len(swept) > 1
            self.mark_range(self.marked, *((self.tracks_of_rows(swept), self.counters_of_rows(swept)) if across else ()))
            if across:
                self._area_anchor, self._area_end = (swept[0], swept[-1]) if event.y >= self._drag_y else (swept[-1], swept[0])
        self._drag_from = None

    def _on_mouse_scroll_down(self, event: events.MouseScrollDown) -> None:
        self._wheel(event, 1)

    def _on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        self._wheel(event, -1)

    def _on_mouse_scroll_right(self, event: events.MouseScrollRight) -> None:
        self._wheel(event, 1, sideways=True)

    def _on_mouse_scroll_left(self, event: events.MouseScrollLeft) -> None:
        self._wheel(event, -1, sideways=True)

    def _wheel(self, event: events.MouseEvent, direction: int, sideways: bool = False) -> None:
        """As in Perfetto: the wheel scrolls the rows; Ctrl+wheel zooms about the pointer's time
        (down: out); Shift+wheel or a sideways swipe pans."""
        if self.trace is None or not (sideways or event.ctrl or event.shift):
            return  # Textual scrolls the rows
        event.prevent_default()
        event.stop()
        if event.ctrl and not sideways:
            at = self._time_at_x(event.x)
            factor = ZOOM_STEP if direction < 0 else 1 / ZOOM_STEP
            self.set_window(self.window.zoom(factor, self.cursor_time if at is None else at))
        else:
            self.action_pan(direction * PAN_STEP / 2)

    def on_click(self, event: events.Click) -> None:
        if self._dragged:
            self._dragged = False
            return
        self.focus()
        if event.y < self.header_height or self.trace is None:
            if (t := self._time_at_x(event.x)) is not None:  # the ruler: the cursor is that time, not an event
                self.cursor_ns = t
                if self.cursor_event is not None:
                    self._move_cursor(self.cursor_row, None)
                self._repaint_rows()
            return
        index = self._index_at(event.y)
        row = self._row(index) if index is not None else None
        if row is None:
            return
        if row.kind == "group" and event.x < self.label_width:
            self.cursor_row = index
            self.action_collapse()
            return
        t = self._time_at_x(event.x)
        if t is not None:
            self.cursor_ns = t
        event_index = self._event_at(row, event.x - self.label_width) if t is not None else None
        self._move_cursor(index, event_index)
        if event_index is not None:
            self.chosen(row.index, event_index)

    def _event_at(self, row: Row, column: int) -> int | None:
        """The event drawn in a cell (the dominant one when several share it)."""
        if row.kind != "track" or not self._track(row).decoded:
            return None
        lanes = self._track(row).lane_index()
        cells = bin_rows(lanes, np.array([row.lane]), self.window.time_at(column), self.window.ns_per_cell, 1)
        k = int(cells.left[0, 0]) if cells.left[0, 0] >= 0 else int(cells.right[0, 0])
        return int(lanes.order[k]) if k >= 0 else None

    # -- painting -----------------------------------------------------------------------------
    def paint_ahead(self) -> bool:
        """Called every tick while shown: once the view has stayed as it is for a whole tick,
        paint the windows that the next zoom or pan key would show (that key then costs what
        going back to a window does). True when that is done for the view as it is (or there
        is no trace); False while tracks decode."""
        if self.trace is None:
            return True
        if self.lanes is None:
            return False
        state = (self.window, self.cursor_row, self.cursor_event, int(self.scroll_offset.y), len(self.rows))
        if not self._still.stood_still(state):
            return self._still.settled
        centre, window = self.cursor_time, self.window
        for ahead in (window.zoom(ZOOM_STEP, centre), window.zoom(1 / ZOOM_STEP, centre), window.pan(-PAN_STEP), window.pan(PAN_STEP)):
            self._paint_ahead(ahead)
        return True

    def _paint_ahead(self, window: Window) -> None:
        """Keep the picture of `window` (not shown now, not kept yet) for when a key shows it."""
        if window != self.window and self.pictures.kept_as(window) is None:
            picture = self._paint_picture(window)
            self.encode_ahead([*picture.lines.values(), *picture.rulers.values(), *filter(None, [picture.steps_line])])
            self.pictures.put(window, picture)

    def _paint_picture(self, window: Window) -> Picture:
        """The visible rows, the steps line and the ruler as they would be painted in `window`
        (the view itself is left as it is)."""
        shown = (self.window, self._lines, self._picture, self._ruler, self._ruler_centre)
        self._forget_painted()
        picture = self._picture
        self.window = window
        try:
            self._paint_visible()
            if self.header_height > 1:
                self._steps_line()
            self._kept_ruler()
            picture.lines.update((self._line_key(index), strip) for index, strip in self._lines.items())
            return picture
        finally:
            self.window, self._lines, self._picture, self._ruler, self._ruler_centre = shown

    def render_line(self, y: int) -> Strip:
        """Line y of the widget: the ruler (and steps) stay, the rows scroll."""
        if self.trace is None:
            return Strip.blank(self.view_size.width, self.base_style)
        header = self.header_height
        if y < header:
            if y == 0:
                if self._ruler is None:
                    self._ruler = self._kept_ruler()
                return self._ruler
            return self._steps_line()
        top = int(self.scroll_offset.y)
        index = self._index_at(y, top)
        if index is None:
            return Strip.blank(self.view_size.width, self.base_style)
        if index not in self._lines:
            self._paint_visible()
        line = self._lines[index]
        if top and y - header == self.fixed_rows:
            line = self._named_at_top(index, line)
        if self.marked_tracks is not None:
            line = self._area_marked(index, line)
        if self.flows is not None:
            line = self._flowed(index, line)
        return line

    def _area_marked(self, index: int, line: Strip) -> Strip:
        """A row of a track the marked range counts (a collapsed group's: of one it hides), with a
        bar in its label's first column (as Perfetto shades the area's tracks)."""
        def draw(line: Strip) -> Strip:
            inside = not set(self.tracks_of_rows([index])).isdisjoint(self.marked_tracks)
            return overlaid(line, {0: "▌"}, 0, self.base_style + _AREA) if inside else line
        return self._drawn_over(self._area_marks, index, line, self.marked_tracks, draw)

    def _flowed(self, index: int, line: Strip) -> Strip:
        """A row with the flows drawn over it, where they cross it."""
        marks = self._flow_marks().get(index)
        if marks is None:
            return line
        return self._drawn_over(self._flow_lines, index, line, marks,
                                lambda line: overlaid(line, marks, self.label_width, self.base_style + _FLOW))

    def _drawn_over(self, kept: dict, index: int, line: Strip, over: object, draw: Callable[[Strip], Strip]) -> Strip:
        """`draw(line)` for row `index`, kept in `kept` while the row's line and what is drawn
        over it (`over`, by identity) stay: a frame that shows them again makes no new Strip."""
        found = kept.get(index)
        if found is None or found[0] is not line or found[1] is not over:
            if len(kept) > 4 * max(self.view_size.height, 1):
                kept.clear()
            found = kept[index] = (line, over, draw(line))
        return found[2]

    def _named_at_top(self, index: int, line: Strip) -> Strip:
        """The first row below the fixed ones, scrolled to: a track's lower lane, whose name
        row is out of sight above, is labelled with the track's name (`↑ python3`)."""
        row = self.rows[index]
        if row.kind != "track" or row.lane == 0:
            return line
        label = Segment(fit(f"  ↑ {self.trace.tracks[row.index].name}", self.label_width - 1) + "│",
                        _LABEL_STYLES[(index == self.cursor_row, False)])
        return Strip.join([Strip([label], self.label_width), line.crop(self.label_width, line.cell_length)])

    def _line_key(self, index: int) -> tuple:
        """What a row's picture depends on besides the window: whether the cursor is on it, and on which event."""
        return (index, index == self.cursor_row, self.cursor_event if index == self.cursor_row else None)

    def _paint_visible(self) -> None:
        """Paint every visible row not painted yet (or kept from an earlier cursor); track rows all at once."""
        wanted = []
        for i in self._visible():
            if i not in self._lines:
                kept = self._picture.lines.get(self._line_key(i))
                if kept is not None:
                    self._lines[i] = kept
                else:
                    wanted.append(i)
        events = [i for i in wanted if self.rows[i].kind == "track" and self._track(self.rows[i]).decoded]
        for index in wanted:
            if index not in events:
                self._lines[index] = self._paint_other(index)
        merged = self.lanes
        if merged is not None and events:
            self._paint_events(events, merged.index, merged.name_id.__getitem__, merged.first_row, merged.first_slot)
            return
        for k in dict.fromkeys(self.rows[i].index for i in events):  # still decoding: track by track
            track = self.trace.tracks[k]
            lanes = track.lane_index()
            rows = [i for i in events if self.rows[i].index == k]
            first = np.zeros(k + 1, np.int64)
            self._paint_events(rows, lanes, lambda slot, t=track, o=lanes.order: t.name_id[o[slot]], first, first)

    def _paint_events(self, indices: list[int], lanes: LaneIndex, name_id, first_row, first_slot) -> None:
        """Bin and paint track rows: `indices` into self.rows, on an index whose rows of track
        k start at first_row[k] and its events at first_slot[k]; `name_id` maps positions in
        the index to name ids."""
        window = self.window
        first = first_row.tolist()
        rows = np.array([first[self.rows[i].index] + self.rows[i].lane for i in indices])
        cursor = np.full(len(indices), -1)  # the cursor's event, where it is on the row
        cursor_start = None
        if self.cursor_row in indices and self.cursor_event is not None:
            r = indices.index(self.cursor_row)
            track_index = self.rows[self.cursor_row].index
            track = self.trace.tracks[track_index]
            if int(track.depth[self.cursor_event]) == self.rows[self.cursor_row].lane:
                own = track.lane_index()
                cursor_start = int(track.start_ns[self.cursor_event])
                cursor[r] = first_slot[track_index] + position(own, self.rows[self.cursor_row].lane, cursor_start, self.cursor_event)
        # Rows that are one event (or none) across the window are drawn once for any such window.
        sole = {i: (i, k, i == self.cursor_row, k >= 0 and k == c)
                for i, k, c in zip(indices, sole_events(lanes, rows, window.t0, window.ns_per_cell, window.cells).tolist(),
                                   cursor.tolist()) if k >= -1}
        if sole:
            lines = self._sole_lines
            if len(lines) > 4096:
                lines.clear()
            for i, line_key in sole.items():
                line = lines.get(line_key)
                if line is not None:
                    self._lines[i] = line
            keep = [r for r, i in enumerate(indices) if i not in self._lines]
            if len(keep) < len(indices):
                indices, rows, cursor = [indices[r] for r in keep], rows[keep], cursor[keep]
            if not indices:
                return
        known = self._picture.binned
        kept = [known.get(i) for i in indices]
        if None in kept:
            binned = bin_rows(lanes, rows, window.t0, window.ns_per_cell, window.cells)
            known.update((i, Cells(*(column[r] for column in binned))) for r, i in enumerate(indices))
        else:
            binned = Cells(*(np.stack(column) for column in zip(*kept)))
        if cursor_start is not None and self.cursor_row in indices:
            r = indices.index(self.cursor_row)
            binned = _force_visible(binned, r, cursor[r], window.column(cursor_start))
        colour, names = self._name_colours(), self.trace.names
        painted = self._painter.events(binned, lambda k: colour[name_id(k)], lambda k: names[name_id(k)], cursor)
        for index, segments in zip(indices, painted):
            self._lines[index] = self._line(index, segments)
            if index in sole:
                self._sole_lines[sole[index]] = self._lines[index]

    def _paint_other(self, index: int) -> Strip:
        """A group's summary, a counter, a track's instants, or a track still decoding."""
        row, window, painter = self.rows[index], self.window, self._painter
        cells = window.cells
        if row.kind == "instants":
            track = self.trace.tracks[row.index]
            times = track.instant_ns  # sorted: only those in the window are placed
            first = int(np.searchsorted(times, window.t0, side="left"))
            last = int(np.searchsorted(times, window.t0 + cells * window.ns_per_cell, side="right"))
            offsets = (times[first:last] - window.t0) / window.ns_per_cell
            columns = np.where(offsets == cells, cells - 1, np.floor(offsets)).astype(np.int64)  # the right edge is in view
            name_ids = track.instant_name_id[first:last]
            colours = self._name_colours()[name_ids]
            return self._line(index, painter.instants(columns, colours, lambda k: self.trace.names[name_ids[k]], cells))
        if row.kind == "group":  # collapsed: how busy its tracks are; expanded, they show it
            merged = self.lanes
            if merged is None or row.group not in self.collapsed:  # the same line in every window
                key = ("group", index, index == self.cursor_row)
                line = self._sole_lines.get(key)
                if line is None:
                    line = self._sole_lines[key] = self._line(index, painter.levels(np.zeros(cells), SUMMARY))
                return line
            pinned = {k for kind, k in self.pinned_rows if kind == "track"}
            tops = [merged.first_row[k] for k, t in enumerate(self.trace.tracks) if t.count
                    and (k in pinned if row.group == PINNED else t.group == row.group and k not in pinned)]
            fraction = busy_fraction(merged.index, np.array(tops, np.int64), window.t0, window.ns_per_cell, cells)
            return self._line(index, painter.levels(fraction, SUMMARY))
        if row.kind == "counter":
            counter = self.trace.counters[row.index]
            values = sampled_values(counter.time_ns, counter.value, window.t0, window.ns_per_cell, cells)
            low, high = counter.drawn_range
            fraction = (values - low) / (high - low) if high > low else values * 0
            return self._line(index, painter.levels(fraction, COUNTER))
        return self._line(index, [Segment(fit("  decoding…", cells), painter.styles[key(SUMMARY, EMPTY)])])

    def _line(self, index: int, segments: list[Segment]) -> Strip:
        """A row's label, then its cells."""
        row = self.rows[index]
        if row.kind == "group":
            name = "pinned rows" if row.group == PINNED else row.group
            text = f"{'▸' if row.group in self.collapsed else '▾'} {'↑ ' if row.group in self.pinned else ''}{name}"
        elif row.kind == "counter":
            text = f"  {self._pinned_from(row)}{self.trace.counters[row.index].name}"
        elif row.kind == "instants":
            track = self.trace.tracks[row.index]
            text = f"  {self._pinned_from(row)}{track.name}" if track.count == 0 else "    instants"
        else:
            text = f"  {self._pinned_from(row)}{self.trace.tracks[row.index].name}" if row.lane == 0 else ""
        style = _LABEL_STYLES[(index == self.cursor_row, row.kind == "group")]
        if index == self.fixed_rows - 1:
            style += _LAST_FIXED  # where the rows that stay end and the scrolled ones begin
        return self._strip(Segment(fit(text, self.label_width - 1) + "│", style), segments)

    def _pinned_from(self, row: Row) -> str:
        """A pinned row's label starts with its group (pinned rows come from any group), short:
        `GPU:0 › ` for /device:GPU:0, `CPU › ` for /host:CPU."""
        if self.section(row) != PINNED:
            return ""
        return row.group.removeprefix("/device:").removeprefix("/host:") + " › "

    def _name_colours(self) -> np.ndarray:
        """Colour of each name id (extended as decoding adds names)."""
        names = self.trace.names
        have = len(self._colour)
        if have < len(names):
            ops = self.kernel_ops
            more = [name_colour(ops.get(name, name), self.op_names) for name in names[have : len(names)]]
            self._colour = np.concatenate([self._colour, np.array(more, np.int32)])
        return self._colour

    def _kept_ruler(self) -> Strip:
        """The ruler for the marked range and zoom centre, painted once per window."""
        centre = self._ruler_centre = self.window.column(self.cursor_time)
        rulers = self._picture.rulers
        ruler = rulers.get((self.marked, centre))
        if ruler is None:
            if len(rulers) > 64:
                rulers.clear()
            ruler = rulers[self.marked, centre] = self._paint_ruler()
        return ruler

    def _paint_ruler(self) -> Strip:
        window, painter = self.window, self._painter
        cells = window.cells
        chars = [" "] * cells
        keys = np.full(cells, key(SUMMARY, EMPTY))
        marks = ticks(window, self.trace.span[0])
        for k, (column, text) in enumerate(marks):
            room = (marks[k + 1][0] if k + 1 < len(marks) else cells) - column - 1
            chars[column] = "╵"
            label = text[:room] if len(text) <= room else ""
            chars[column + 1 : column + 1 + len(label)] = label
        if self.marked is not None:
            a, b = (min(max(window.column(t), 0), cells) for t in self.marked)
            keys[a : max(b, a + 1)] = key(TEXT, MARK)
        cursor = self._ruler_centre  # where W/S zoom about (set by _kept_ruler)
        if 0 <= cursor < cells:
            chars[cursor] = "▼" if chars[cursor] == " " else chars[cursor]
            keys[cursor] = key(TEXT, CURSOR)
        label = Segment(fit(f" {format_ns(window.width)}", self.label_width - 1) + "│", _LABEL_STYLES[(False, True)])
        return self._strip(label, painter.segments(chars, keys[None, :])[0])

    def _steps_line(self) -> Strip:
        """The steps line of the window shown, painted the first time it is asked for."""
        picture = self._picture
        if picture.steps_line is None:
            picture.steps_line = self._paint_steps()
        return picture.steps_line

    def _paint_steps(self) -> Strip:
        window = self.window
        cells = window.cells
        steps, names = self._steps
        row = np.zeros(1, np.int64)
        sole = ("steps", int(sole_events(steps, row, window.t0, window.ns_per_cell, cells)[0]))
        line = self._sole_lines.get(sole)
        if line is not None:
            return line
        binned = bin_rows(steps, row, window.t0, window.ns_per_cell, cells)
        segments = self._painter.events(binned, lambda k: np.where(k % 2, STEP_B, STEP_A), lambda k: names[k])[0]
        label = Segment(fit(" Steps", self.label_width - 1) + "│", _LABEL_STYLES[(False, True)])
        line = self._strip(label, segments)
        if sole[1] >= -1:
            self._sole_lines[sole] = line
        return line

    def _strip(self, label: Segment, cells: list[Segment]) -> Strip:
        """A label, the cells, and the column kept for the scrollbar (blank here, so the strip is
        the widget's width and goes out as it is, not padded again on every frame)."""
        return Strip([label, *cells, Segment(" ", self.base_style)], self.label_width + self.window.cells + 1)


# (on the cursor row, a group row) -> label style
_AREA = Style(color="#ffaf00", bold=True)  # the bar on the rows a range over some tracks counts
_FLOW = Style(bold=True)  # the chosen event's flows, in the theme's text colour

_LABEL_STYLES = {
    (False, False): Style(dim=True),
    (False, True): Style(bold=True),
    (True, False): Style(reverse=True),
    (True, True): Style(reverse=True, bold=True),
}


def _force_visible(cells: Cells, row: int, k: int, column: int) -> Cells:
    """Draw event `k` in its start cell on `row` if the binning gave its cells to others."""
    if (cells.left[row] == k).any() or (cells.right[row] == k).any() or not 0 <= column < cells.left.shape[1]:
        return cells
    left, right, split, shade = (a.copy() for a in cells)
    left[row, column] = right[row, column] = k
    split[row, column], shade[row, column] = SUB, 0
    return Cells(left, right, split, shade)
