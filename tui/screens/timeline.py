"""Key 4: the profile as a timeline, with the event (or counter) under the cursor, a marked
range's aggregate and counters, the whole trace's top XLA ops, and search.

Tracks are decoded in a worker after loading; the timeline draws each one as soon as it is
ready. Event stats are read, and the event matched to its HLO instruction, in a worker too:
on a JSON trace the first read takes about a second. The screen keeps few widgets (the
search box exists only while open): Textual's cost per keypress grows with their number.
"""

from __future__ import annotations

import time
from typing import Callable

import numpy as np
from rich.style import Style
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Input

from tui.model.cost import op_cost
from tui.model.derived_lines import add_derived_lines
from tui.model.errors import InputError
from tui.model.explain import si
from tui.model.links import (correlated, events_of_name, group_rates, instruction_for_event, instruction_in, instruction_or_name,
                             kept_op_profile, kernel_op_names, only_issues_or_waits, OpProfile, occurrences, op_names,
                             op_profile, op_scopes, op_sources, op_time, program_of, program_ran)
from tui.model.kernels import KernelStats, kernel_stats
from tui.model.scopes import DEEPEST, name_scope, parting_depth
from tui.model.shapes import human_bytes
from tui.model.steps import Step, step_labels, steps as training_steps
from tui.model.timescale import format_ns
from tui.model.trace import CounterSpan, NameStats, Trace, TraceLanes, Track, return_freed_memory
from tui.model.utilization import DeviceBusy, DeviceTime, busy_text, device_label
from tui.model.words import counted
from tui.model.workspace import MAX_HISTORY, Selection, Workspace
from tui.screens.base import WorkspaceScreen
from tui.screens.roofline import open_roofline
from tui.widgets.timeline import TimelineView
from tui.widgets.trace_panel import Column, TracePanel

BOLD, ITALIC, WARNING = Style(bold=True), Style(italic=True), Style(bold=True, color="red")
NO_PROFILE = "No profile loaded: open an .xplane.pb, a trace JSON or a logdir (alone or beside a dump)."
FLOWS_LISTED = 8  # linked events listed in the panel and drawn: the page of them holding the marked one
INSTANTS_LISTED = 200  # instant events listed in the panel (the rest: zoom in)
PROGRESS_S = 0.1  # the rows are laid out again as tracks decode, at most this often
DEVICE_COLUMNS = 4  # the steps table's busy columns, one per device; more devices: the least, mean and most busy


class TimelineScreen(WorkspaceScreen):
    DEFAULT_CSS = """
    #timeline-search { dock: bottom; margin-bottom: 1; }
    """
    pane_title = "4 Timeline"
    MOUSE = [  # for the help screen
        ("click", "select an event (a group's name: collapse it)"),
        ("drag", "mark a time range (across rows: over their tracks only)"),
        ("wheel", "scroll the rows"),
        ("ctrl+wheel", "zoom about the pointer"),
        ("shift+wheel", "pan"),
        ("pointer", "the info line says what it is over: an event, a counter's value"),
    ]
    _runs_wanted: str | None = None  # an op whose runs to show once the tracks are decoded (show_runs)
    missing_note = None  # the pane explains itself
    shows = "trace"
    BINDINGS = [
        Binding("slash", "search", "Search"),
        Binding("t", "top_ops", "Top ops"),
        Binding("T", "top_ops('categories')", "Ops by category", show=False),
        Binding("p", "top_ops('scopes')", "Ops by name scope", show=False),
        Binding("L", "top_ops('sources')", "Ops by source line", show=False),
        Binding("minus", "scope_depth(-1)", "Name scope -", show=False),
        Binding("plus,equals_sign", "scope_depth(1)", "Name scope +", show=False),
        Binding("k", "kernel_stats", "GPU kernels", show=False),
        Binding("g", "steps", "Steps: time, devices busy", show=False),
        Binding("R", "roofline", "Roofline chart", show=False),
        Binding("C", "counters", "Counters over the range (or the view)", show=False),
        Binding("right_square_bracket", "flow(1)", "Follow flow"),
        Binding("left_square_bracket", "flow(-1)", "Flow back", show=False),
        Binding("right_curly_bracket", "mark_flow(1)", "Mark the next flow", show=False),
        Binding("left_curly_bracket", "mark_flow(-1)", "Mark the previous flow", show=False),
        Binding("shift+enter", "match(-1)", "Previous match", show=False),
        Binding("escape", "close_search", "Close search, leave a table", show=False),
        Binding("r", "filter_rows", "Filter rows by name", show=False),
        Binding("backspace", "back", "Back to the event chosen before", show=False),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.view = TimelineView(id="timeline")  # kept: a DOM query per key costs more than the key
        self.view.cursor_moved = self._cursor_moved
        self.view.chosen = self._event_chosen
        self.view.range_marked = self._range_marked
        self.view.window_moved = self._window_moved
        self.view.hovered = self._hovered
        self.panel = TracePanel(id="timeline-panel")
        self.panel.name_chosen = self._name_chosen

    def body(self) -> ComposeResult:
        yield self.view
        yield self.panel

    def on_mount(self) -> None:
        self._link: tuple[int, int, tuple[str, str] | None] | None = None  # event, and its instruction
        self._flows: tuple[int, int, list[tuple[int, int]]] = (-1, -1, [])  # event, and events that share its
        # correlation_id (a kernel's launch, a launch's kernel)
        self._marked_flow: dict[tuple[int, int], int] = {}  # event -> its flow `{`/`}` marked (kept to come back to)
        self._shown: tuple | None = None  # the event whose details the panel shows: _show_event's arguments
        self._chosen: list[tuple[int, int]] = []  # the events chosen (Enter, a click, a flow), newest last: Backspace
        self._pending: Selection | None = None  # to follow once the tracks are decoded
        self._busy: tuple[int, int, str] = (-1, -1, "")  # an event, and how busy the devices were while it ran
        self._devices: tuple[Trace, DeviceTime] | None = None  # the devices' work, merged (see _device_time)
        self._ops: OpProfile | None = None  # the op profile the top-ops tables were made from (links.op_profile)
        self._scopes: tuple[list[NameStats], list[str]] | None = None  # the ops by name scope, and each op's
        self._scope_depth: int | None = None  # of that table: where the ops' scopes part, until -/+
        self._sources: tuple[list[NameStats], list[str]] | None = None  # the ops by source line, and each op's
        self._kernels: KernelStats | None = None  # the GPU kernel table, once worked out
        self._steps: tuple[list[NameStats], list[Step]] | None = None  # the steps table's rows, and its steps
        self._overview: list[Step] | None = None  # the trace's steps, once decoded (the facts' overview lines)
        self._counters: tuple[list[NameStats], list[int]] | None = None  # the counters table's rows, and their counters
        self._searched: str | None = None
        # No super().on_mount(): Textual calls each class's handler in the MRO itself, the base's
        # after this one (called here too, it ticked twice and heard every change twice).

    @property
    def trace(self) -> Trace | None:
        return self.workspace.trace if self.workspace else None

    # -- workspace and selection ----------------------------------------------------------------
    def show_workspace(self, ws: Workspace) -> None:
        if ws.trace is not None and self.view.trace is ws.trace:
            # the same profile, its program parsed since (app._program_parsed): its ops' names
            self._link = None
            self.view.set_op_names(op_names(ws), self.view.kernel_ops)
            return
        self._link, self._ops, self._kernels, self._flows, self._busy = None, None, None, (-1, -1, []), (-1, -1, "")
        self._marked_flow, self._shown, self._chosen = {}, None, []
        self._scopes = self._scope_depth = self._sources = self._steps = self._overview = self._counters = None
        self._pending = ws.selection
        self.view.set_trace(ws.trace, op_names(ws))
        self._show_trace_facts()
        if ws.trace is None:
            self.panel.show_info(Text(NO_PROFILE, style="italic"))
            return
        self.view.focus()
        self._decode(ws)

    @work(thread=True, exclusive=True, group="timeline-decode")
    def _decode(self, ws: Workspace) -> None:
        trace = ws.trace
        told = [time.monotonic()]

        def progress(done: int, total: int) -> None:
            """Tracks decoded: the rows show them, every PROGRESS_S (not after each of 50k
            tracks: the worker waits for each call, and the rows' layout is the trace's size)."""
            if done == total or time.monotonic() - told[0] >= PROGRESS_S:
                self.app.call_from_thread(self._decoding, done, total)
                told[0] = time.monotonic()

        trace.decode_all(progress)
        try:  # a GPU's kernels' op stats, read here rather than on the UI's first op lookup
            kernel_ops = kernel_op_names(trace)
            add_derived_lines(ws)
        except InputError:  # the file changed since it was loaded: its stats are not read
            kernel_ops = {}
        lanes = trace.lanes()
        devices = DeviceTime(trace)  # for the facts below the tracks (XProf's overview), and busy shares
        try:
            found = training_steps(trace, devices)
        except InputError:  # the file changed since it was loaded: its steps' numbers are not read
            found = None
        return_freed_memory()  # what loading and decoding built and dropped
        self.app.call_from_thread(self._decoded, lanes, kernel_ops, devices, found)

    def _decoding(self, done: int, total: int) -> None:
        self.view.refresh_rows()
        self.panel.show_info(Text(f" Decoding tracks: {done} of {total}", style="italic"))

    def _decoded(self, lanes: TraceLanes, kernel_ops: dict[str, str], devices: DeviceTime, found: list[Step] | None) -> None:
        self.app.keep_loaded()
        self._devices, self._overview = (self.trace, devices), found
        self.view.refresh_rows(lanes)
        self.view.set_op_names(op_names(self.workspace), kernel_ops)
        if self.view.marked is not None and self.app.selection.time_range is not None:  # marked while decoding: its table again
            self._aggregate_range(*self.app.selection.time_range, self.view.marked_tracks)
        else:
            self._show_trace_facts()
        self.panel.show_info(self._trace_line())
        pending, self._pending = self._pending, None
        wanted, self._runs_wanted = self._runs_wanted, None
        if wanted is not None:
            self._show_occurrences(wanted)
        elif pending is not None and pending.event is not None:
            self.show_selection(Selection(), pending)
        elif pending is not None and pending.instruction:
            self._show_occurrences(pending.instruction, quiet=True)

    def show_selection(self, old: Selection, new: Selection) -> None:
        """Follow a selection made elsewhere: an event, else an instruction, whose occurrences
        become the matches (n / N). (The details screen's "its runs" asks by show_runs.)"""
        if self.trace is None:
            return
        if self.view.lanes is None:  # still decoding: follow it once done
            self._pending = new
            return
        linked = self._link is not None and self._link[2] == (new.module, new.instruction)
        jump = new.event is not None and new.event not in (old.event, self.view.cursor) and self._runs(new)
        if new.instruction and (jump or (new.instruction != old.instruction and not linked)):
            self._show_occurrences(new.instruction, new.event if jump else None)

    def show_runs(self, instruction: str) -> None:
        """Asked for an op's runs (the details screen's `t`): its first run in time, its runs
        the matches, whether or not the selection changed (the op and one of its runs may be
        selected already: a selection that does not change tells no one)."""
        if self.trace is None:
            return
        if not self.ready or self.view.lanes is None:  # once the tracks are decoded (_decoded)
            self._runs_wanted = instruction
            return
        self._stale = False  # shown here: nothing to follow on resuming
        self._show_occurrences(instruction)

    def _runs(self, selection: Selection) -> bool:
        """Is the selection's event a run of its instruction (the two can disagree: another
        screen may have moved on to another instruction since the event was chosen)?"""
        k, i = selection.event
        tracks = self.trace.tracks
        return 0 <= k < len(tracks) and 0 <= i < tracks[k].count and tracks[k].event_name(i) == selection.instruction

    def _occurrences(self, instruction: str) -> tuple[np.ndarray, np.ndarray]:
        """The instruction's runs in the program shown (tracks, events)."""
        ws, current = self.workspace, self.workspace.current
        module = current.name if current is not None else None
        program = program_ran(self.trace, program_of(current)) if current is not None else None  # only its runs count
        return occurrences(self.trace, module, instruction_or_name(ws, program or module, instruction), program)

    def _show_occurrences(self, instruction: str, event: tuple[int, int] | None = None, quiet: bool = False) -> None:
        """Jump to where an instruction ran (to `event` if given, else its first run): its
        occurrences become the search matches. `quiet`: an instruction nobody asked about here
        (another screen merely passed over it before the tracks were decoded, or it was selected
        by default), which is not worth a "no events" line where it did not run."""
        tracks, found = self._occurrences(instruction)
        if quiet and not len(found):
            return
        self.view.set_matches(tracks, found)
        self._searched = None
        if event is None and not len(found):
            self.panel.show_info(Text(f" The selected instruction {instruction} has no events in the profile", style="italic"))
            return
        track_index, i = event if event is not None else (int(tracks[0]), int(found[0]))
        self.view.show_event(track_index, i)
        self.view.set_window(self.view.window.fit(*self.trace.tracks[track_index].event_span(i), margin=2.0))

    def work_ahead(self) -> bool:
        return self.view.paint_ahead()

    # -- the event under the cursor ---------------------------------------------------------------
    def _cursor_moved(self, track: int, event: int | None) -> None:
        self.panel.show_info(self._cursor_line())
        row = self.view.current_row
        if event is not None:
            self._show_event(track, event, None, None)
        elif row is not None and row.kind == "instants":
            self._show_instants(row.index)
        elif row is not None and row.kind == "counter":
            self._show_counter(row.index)
        elif self.panel.details and not self.panel.showing_table:  # not the last row's event or counter: what was loaded
            self._show_trace_facts()

    def _hovered(self, found: tuple[str, int, int] | None) -> None:
        """The info line tells what is under the mouse pointer while it is over an event or a
        counter (Perfetto's hover), else what is under the cursor."""
        if found is None:
            self.panel.show_info(self._cursor_line())
            return
        kind, index, at = found
        origin = self.trace.span[0]
        if kind == "counter":
            counter = self.trace.counters[index]
            value = _counter_format(counter.name)(float(counter.value[at]))
            when = f"  since {format_ns(int(counter.time_ns[at]) - origin, 6)}  {counter.group} / {counter.name}"
            self.panel.show_info(Text.assemble((f" ↖ {value}", "bold"), (when, "dim")))
            return
        track = self.trace.tracks[index]
        start, end = track.event_span(at)
        where = f"  {format_ns(end - start)}  at {format_ns(start - origin, 6)}  {track.group} / {track.name}"
        self.panel.show_info(Text.assemble((f" ↖ {track.event_name(at)}", "bold"), (where, "dim")))

    def _window_moved(self) -> None:
        row = self.view.current_row
        if row is not None and row.kind == "counter":
            self._show_counter(row.index)
        elif row is not None and row.kind == "instants":
            self._show_instants(row.index)

    def _show_counter(self, index: int) -> None:
        """A counter under the cursor, as Perfetto sums one up: the sample in force at the cursor
        (the ruler's mark; left/right step to the counter's changes) and, over the window in view
        (and a marked range), its first and last value, least, most and time-weighted mean; over
        the whole trace, its highest and when."""
        trace, view = self.trace, self.view
        counter, origin = trace.counters[index], trace.span[0]
        show = _counter_format(counter.name)
        details = [("counter", f"{counter.group} / {counter.name}: {len(counter.time_ns):,} samples", BOLD)]
        if not len(counter.value):
            self.panel.show_details(details)
            return
        at, times, values = view.cursor_time, counter.time_ns, counter.value
        k = counter.set_by(at)
        before = f"none yet: its first sample is at {format_ns(int(times[0]) - origin, 6)}"
        now = before if k is None else f"{show(float(values[k]))} since {format_ns(int(times[k]) - origin, 6)}"
        if k is not None:
            now += f" ({show(float(values[k] - values[k - 1]), sign=True)} at sample {k + 1:,})" if k else " (the first sample)"
            change = counter.next_change(float(times[k]), 1)
            now += f", held {format_ns(change - int(times[k]), 4)}" if change is not None else ", held to the end"
        details.append(("at the cursor", f"{now} (cursor at {format_ns(at - origin, 6)})", None))
        stretches = [("in view", view.window.t0, view.window.t1)]
        if view.marked is not None:
            stretches.append(("marked range", *view.marked))
        for label, t0, t1 in stretches:
            span = counter.over(t0, t1)
            details.append((label, before if span is None else
                            f"{show(span.first)} → {show(span.last)} ({show(span.last - span.first, sign=True)}); least "
                            f"{show(span.least)}, most {show(span.most)}, mean {show(span.mean)} (time-weighted); "
                            f"{span.samples:,} samples", None))
        top = counter.highest
        details.append(("highest", f"{show(float(values[top]))} at {format_ns(int(times[top]) - origin, 6)}", None))
        self.panel.show_details(details)

    def _show_instants(self, track_index: int) -> None:
        """The instant events of a track that are in view, in time order."""
        trace, window = self.trace, self.view.window
        track = trace.tracks[track_index]
        times = track.instant_ns  # sorted by time
        shown = np.arange(np.searchsorted(times, window.t0, side="left"), np.searchsorted(times, window.t1, side="right"))
        details = [("instants", f"{len(times):,} on {track.group} / {track.name}, {len(shown):,} in view", BOLD)]
        at = self.view.cursor_time  # the instant the ruler marks (left/right step to them), if it marks one
        here = int(np.searchsorted(times, at))
        if window.contains(at) and here < len(times) and times[here] == at:
            match = self.view.match_index()
            found = f"  match {match + 1} of {len(self.view.matches[1])} (n / N)" if match is not None else ""
            details.append(("at cursor", f"{trace.names[track.instant_name_id[here]]}{found}", BOLD))
            details += [(f"  {key}", str(value), None) for key, value in track.instant_args(here).items()]
        details += [(format_ns(int(times[k]) - trace.span[0], 6), trace.names[track.instant_name_id[k]], None)
                    for k in shown[:INSTANTS_LISTED].tolist()]
        if len(shown) > INSTANTS_LISTED:
            details.append(("", f"and {len(shown) - INSTANTS_LISTED:,} more: zoom in (w) to list them", ITALIC))
        self.panel.show_details(details)

    def _event_chosen(self, track: int, event: int) -> None:
        chosen = (track, event)
        if self._link is not None and self._link[:2] == chosen and self.app.selection.event == chosen:
            self._open_instruction()
            return
        self._choose(track, event)

    def _choose(self, track: int, event: int) -> None:
        """Choose an event (Enter, a click, a flow followed, Backspace), the cursor put on it
        where it is not: its stats read, then it is selected."""
        if self.view.cursor != (track, event):
            self.view.show_event(track, event)
        self.panel.show_info(Text(" Reading the event's stats…", style="italic"))
        self._read_event(track, event)

    def _open_instruction(self) -> None:
        link = self._link[2]
        if link is None:
            self.notify("This event ran no instruction of the loaded modules", severity="warning", timeout=3)
            return
        module, instruction = link
        self.app.show("details", module=module, instruction=instruction)

    @work(thread=True, exclusive=True, group="timeline-event")
    def _read_event(self, track_index: int, event: int) -> None:
        """The event's stats and instruction, then its flows (the first search for those in a
        profile reads a stat of every event: the instruction need not wait for it)."""
        track = self.trace.tracks[track_index]
        try:
            args = track.event_args(event)
            link = instruction_for_event(self.workspace, track, event)
        except InputError as error:  # the file changed since it was loaded, or a module is bad
            self.app.call_from_thread(self._event_read, track_index, event, {"cannot read stats": str(error)}, None)
            return
        busy = self._busy_during(track, event)
        self.app.call_from_thread(self._event_read, track_index, event, args, link, busy)
        try:
            flows = correlated(self.trace, track_index, event)
        except InputError:
            return
        if flows:
            self.app.call_from_thread(self._flows_read, track_index, event, args, link, flows)

    def _device_time(self) -> DeviceTime:
        """The devices' work merged into intervals: built once per trace, in a worker (it reads
        every device's events), then any window's busy time is two binary searches."""
        if self._devices is None or self._devices[0] is not self.trace:
            self._devices = (self.trace, DeviceTime(self.trace))
        return self._devices[1]

    def _busy_during(self, track: Track, event: int) -> str:
        """How busy each device was while an event ran (XProf's duty cycle): in a step, a
        program's run or a host call, whether the devices waited; beside a collective's kernel,
        whether the other devices were at it too."""
        start, end = track.event_span(event)
        if end <= start:
            return ""
        return busy_text([(b.device, b.share, None) for b in self._device_time().busy(start, end)])

    def _event_read(self, track_index: int, event: int, args: dict, link, busy: str = "") -> None:
        """The chosen event's stats, instruction and devices' busy share are known: show them,
        and select it."""
        self._link = (track_index, event, link)
        if (track_index, event) not in self._chosen[-1:]:  # (Backspace chooses the last one again)
            self._chosen.append((track_index, event))
            del self._chosen[:-MAX_HISTORY]
        self._busy = (track_index, event, busy)
        self._flows = (track_index, event, [])
        self.view.set_flows(None)  # another event chosen: its own flows come with _flows_read
        self.refresh_bindings()
        self.panel.show_info(self._cursor_line())
        if self.view.cursor == (track_index, event):
            self._show_event(track_index, event, args, link)
        changes = {"event": (track_index, event)}
        if link is not None:
            changes |= {"module": link[0], "instruction": link[1]}
        self.app.select(**changes)

    def _flows_read(self, track_index: int, event: int, args: dict, link, flows: list[tuple[int, int]]) -> None:
        if self._link is None or self._link[:2] != (track_index, event):
            return  # another event was chosen since
        self._flows = (track_index, event, flows)
        self.refresh_bindings()  # `]` shows while the selection has a flow
        self.view.set_flows((track_index, event), self._listed_flows()[1])
        if self.view.cursor == (track_index, event):
            self._show_event(track_index, event, args, link)

    def _show_event(self, track_index: int, event: int, args: dict | None, link) -> None:
        trace = self.trace
        track = trace.tracks[track_index]
        start, dur = int(track.start_ns[event]), int(track.dur_ns[event])
        details = [
            ("event", track.event_name(event), BOLD),
            ("track", f"{track.group} / {track.name} (row {int(track.depth[event])})", None),
            ("start", f"{format_ns(start - trace.span[0], 6)} from the trace start", None),
            ("duration", f"{format_ns(dur, 6)} (self {format_ns(int(track.self_ns[event]), 6)})", None),
        ]
        if link is not None:
            details.append(("instruction", f"{link[1]} in {link[0]} (Enter again: open it)", BOLD))
            details += self._instruction_lines(link, dur)
        marked_line = None
        if self._flows[:2] == (track_index, event):
            flows = self._flows[2]
            first, listed = self._listed_flows()
            marked = self._marked_flow_index()
            for n, (k, i) in enumerate(listed, first):
                other = trace.tracks[k]
                side = "→" if int(other.start_ns[i]) >= start else "←"
                line = (f"{side} {other.event_name(i)} on {other.group} / {other.name} at "
                        f"{format_ns(int(other.start_ns[i]) - trace.span[0], 6)}")
                if len(flows) == 1:
                    details.append(("flow", f"{line} ([ ] follow)", BOLD))
                else:
                    marked_line = len(details) if n == marked else marked_line
                    key = f"flow {n + 1:,}/{len(flows):,}"
                    details.append((f"▸ {key}" if n == marked else key, line, BOLD if n == marked else None))
            if len(flows) > 1:
                details.append(("", ("{ } mark another flow, [ ] follow the marked one (▸)" if len(flows) <= FLOWS_LISTED
                                     else f"{{ }} mark another flow, [ ] follow the marked one (▸); the {FLOWS_LISTED}"
                                          " around it are listed and drawn"), ITALIC))
        if args is None:
            details.append(("stats", "Enter: select the event, read its stats and find its instruction", ITALIC))
        else:
            details += [(key, str(value), None) for key, value in args.items()]
        if self._busy[:2] == (track_index, event) and self._busy[2]:  # after the event's own stats
            details.append(("devices busy", f"{self._busy[2]} of its time", None))
        self._shown = (track_index, event, args, link)
        self.panel.show_details(details, seen=marked_line)

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        if action == "flow":
            return bool(self._flows[2])
        if action == "mark_flow":
            return len(self._flows[2]) > 1
        if action == "scope_depth":
            return self._scopes is not None and self.panel.rows is self._scopes[0]
        return super().check_action(action, parameters)

    def action_flow(self, direction: int) -> None:
        """`]` follows the selected event's flow forward in time (a launch to its kernel), `[` back."""
        track_index, event, flows = self._flows
        if not flows or self.view.cursor != (track_index, event):
            self.notify("Select an event with Enter first: flows link a GPU kernel and its launch, a TPU program's"
                        " run and its enqueue", timeout=3)
            return
        start = int(self.trace.tracks[track_index].start_ns[event])
        starts = [int(self.trace.tracks[k].start_ns[i]) for k, i in flows]
        later = [pair for pair, at in zip(flows, starts) if at >= start]
        earlier = [pair for pair, at in zip(flows, starts) if at < start]
        target = (later[0] if later else flows[-1]) if direction > 0 else (earlier[-1] if earlier else flows[0])
        marked = self._marked_flow_index()
        if (starts[marked] >= start) == (direction > 0):
            target = flows[marked]  # the marked one, where it is on this side
        self._choose(*target)

    def action_back(self) -> None:
        """Backspace: the event chosen before this one (a flow followed, a search's match chosen), again."""
        chosen = self._chosen
        earlier = chosen[:-1] if chosen[-1:] == [self.view.cursor] else chosen  # (the one under the cursor: where it starts)
        if not earlier:
            self.notify("No earlier event: Backspace goes back through the events chosen (Enter, a click, ] or [)", timeout=3)
            return
        del chosen[len(earlier):]
        self._choose(*earlier[-1])

    def action_mark_flow(self, step: int) -> None:
        """`}` marks the chosen event's next flow, `{` its previous (round), as Perfetto's
        Ctrl+] and Ctrl+[ do (a CUDA graph's launch has hundreds of kernels): the marked one is
        what `]` or `[` follows, listed and drawn with the seven around it. The mark is kept for
        the event: back at the launch, `}` goes on to the next kernel."""
        track_index, event, flows = self._flows
        if len(flows) < 2 or self.view.cursor != (track_index, event) or (self._shown or ())[:2] != (track_index, event):
            self.notify("Choose an event with several flows first (Enter): a CUDA graph's launch, say", timeout=3)
            return
        if len(self._marked_flow) >= 256:
            self._marked_flow.clear()
        self._marked_flow[track_index, event] = (self._marked_flow_index() + step) % len(flows)
        self.view.set_flows((track_index, event), self._listed_flows()[1])
        self._show_event(*self._shown)

    def _marked_flow_index(self) -> int:
        """The chosen event's marked flow: the one `{`/`}` marked, else the first later than the
        event (what `]` follows), else the last."""
        track_index, event, flows = self._flows
        marked = self._marked_flow.get((track_index, event))
        if marked is not None and marked < len(flows):
            return marked
        start = int(self.trace.tracks[track_index].start_ns[event])
        return next((n for n, (k, i) in enumerate(flows) if int(self.trace.tracks[k].start_ns[i]) >= start),
                    len(flows) - 1)

    def _listed_flows(self) -> tuple[int, list[tuple[int, int]]]:
        """The page of the chosen event's flows that holds the marked one: its first's index, and them."""
        flows = self._flows[2]
        if not flows:
            return 0, []
        first = self._marked_flow_index() // FLOWS_LISTED * FLOWS_LISTED
        return first, flows[first:first + FLOWS_LISTED]

    def _instruction_lines(self, link: tuple[str, str], dur_ns: int) -> list[tuple[str, str, Style | None]]:
        """Where in the model the instruction comes from (its JAX name scope and source line,
        as XProf shows an op's), its FLOPs and bytes (profiles don't carry them: XLA's cost
        model does), and the rates this run achieved."""
        entry = self.workspace.module(link[0])
        ins = entry.load().instruction(link[1]) if entry is not None else None
        if ins is None:
            return []
        lines = [("scope", name_scope(ins, None), None)] if ins.op_name else []
        source = ins.source
        if source is not None:
            lines.append(("source", f"{source[0]}:{source[1]}", None))
        cost = op_cost(ins)
        if cost is None or not cost.known or dur_ns <= 0:
            return lines
        seconds = dur_ns / 1e9
        lines.append(("cost", f"{cost.flops:,.0f} FLOP, {si(cost.bytes_accessed, 'B')} accessed (XLA's cost model)", None))
        if only_issues_or_waits(ins, self.trace):  # as the op tables: its time is not the work's
            return lines + [("this run", "no rate: this event times the op's start or its wait, not its work", None)]
        return lines + [("this run", f"{si(cost.flops / seconds, 'FLOP/s')}, {si(cost.bytes_accessed / seconds, 'B/s')}", None)]

    def _show_trace_facts(self) -> None:
        """With no event under the cursor: what was loaded, and what the profiler lost or was not shown."""
        trace = self.trace
        if trace is None:
            self.panel.show_details([])
            return
        lo, hi = trace.span
        details = [("profile", trace.path, None)]
        if trace.runs:
            details.append(("run", f"{trace.run} (of {len(trace.runs)}: {', '.join(trace.runs[:5])})", None))
        details.append(("events", f"{trace.event_count:,} on {_tracks(trace)} over {format_ns(hi - lo, 6)}", None))
        for name, device in trace.devices.items():
            peaks = [f"{device.peak_teraflops_per_second} TFLOP/s" if device.peak_teraflops_per_second else "",
                     f"{device.peak_hbm_bw_gigabytes_per_second:.0f} GB/s" if device.peak_hbm_bw_gigabytes_per_second else ""]
            details.append(("device", f"{name} {device.device_type or ''} {' '.join(p for p in peaks if p)}".strip(), None))
        details += self._overview_lines()
        details += [("warning", warning, WARNING) for warning in trace.warnings]  # lost by the profiler, or not shown
        if not trace.warnings:
            details.append(("lost data", "none reported by the profiler", None))
        self.panel.show_details(details)

    def _overview_lines(self) -> list[tuple[str, str, Style | None]]:
        """Once every track is decoded, XProf's overview in brief: how busy each device was over
        its profile, and the steps' times (as `--summary` gives them)."""
        if self._devices is None or self._devices[0] is not self.trace or self._overview is None:
            return []
        lines = []
        busy = self._devices[1].busy()
        if busy:
            lines.append(("devices busy", busy_text([(b.device, b.share, b.window_ns) for b in busy], DEVICE_COLUMNS)
                          + " (from each one's first event to its last)", None))
        if self._overview:
            times = [step.duration_ns for step in self._overview]
            lines.append(("steps", f"{len(times):,}, mean {format_ns(sum(times) / len(times), 4)} (min {format_ns(min(times), 4)}, "
                                   f"max {format_ns(max(times), 4)}); g lists them", None))
        return lines

    # -- the info line --------------------------------------------------------------------------
    def _trace_line(self) -> Text:
        trace = self.trace
        text = Text(f" {counted(trace.event_count, 'event')}, {_tracks(trace)}", style="dim")
        if trace.warnings:
            text.append(f"  ⚠ data lost or skipped: {len(trace.warnings)} warning(s) below", style="bold red")
        return text

    def _cursor_line(self) -> Text:
        cursor = self.view.cursor
        if cursor is None or cursor[1] is None:
            return self._trace_line()
        track, event = self.trace.tracks[cursor[0]], cursor[1]
        text = Text(f" {track.event_name(event)}", style="bold")
        text.append(f"  {format_ns(int(track.dur_ns[event]))}  {track.name}", style="dim")
        match = self.view.match_index()
        if match is not None:
            text.append(f"  match {match + 1} of {len(self.view.matches[1])} (n / N)")
        return text

    # -- search ---------------------------------------------------------------------------------
    def action_search(self) -> None:
        if self.trace is None:
            return
        found = self.query("#timeline-search")
        box = found.first() if found else Input(
            placeholder="search event names: Enter next, Shift+Enter previous, Esc close", id="timeline-search"
        )
        if not found:
            self.mount(box, before=self.panel)
        box.focus()

    def action_filter_rows(self) -> None:
        """A box that keeps only the rows whose group, track or counter name holds its text, as
        you type; it stays while it filters (Enter goes back to the rows, Esc shows them all)."""
        if self.trace is None:
            return
        found = self.query("#timeline-rows")
        box = found.first() if found else Input(
            value=self.view.row_filter, placeholder="filter rows by group, track or counter name: Enter keep, Esc clear",
            id="timeline-rows",
        )
        if not found:
            self.mount(box, before=self.panel)
        box.focus()

    def action_close_search(self) -> None:
        if self.focused is not None and self.focused.id == "timeline-rows":
            self.focused.remove()
            self.view.filter_rows("")
            self.view.focus()
            return
        for box in self.query("#timeline-search"):
            box.remove()
        self.view.focus()

    def on_input_changed(self, message: Input.Changed) -> None:
        if message.input.id == "timeline-rows":
            self.view.filter_rows(message.value.strip())

    def on_input_submitted(self, message: Input.Submitted) -> None:
        if message.input.id == "timeline-rows":
            if not message.value.strip():
                message.input.remove()
            self.view.focus()
            return
        text = message.value.strip()
        if not text or self.trace is None:
            return
        if text != self._searched:
            self._searched = text
            (tracks, found), instants = self.trace.search_with_instants(text)
            self.view.set_matches(tracks, found, instants)
            if not len(found) and not len(instants[1]):
                self.panel.show_info(Text(f" No event name contains {text!r}", style="italic"))
                return
        self.view.action_match(1)

    def action_match(self, direction: int) -> None:
        self.view.action_match(direction)

    # -- range aggregate and top ops ----------------------------------------------------------------
    def _range_marked(self, time_range: tuple[int, int] | None, tracks: tuple[int, ...] | None = None) -> None:
        self.app.select(time_range=time_range)
        if time_range is None:
            self._show_trace_facts()
        elif self.view.marked_counters and not tracks:  # on counters' rows alone: no events to count
            self._show_counters(*time_range, self.view.marked_counters)
        else:
            self._aggregate_range(*time_range, tracks)

    @work(thread=True, exclusive=True, group="timeline-range")
    def _aggregate_range(self, t0: int, t1: int, tracks: tuple[int, ...] | None = None) -> None:
        """The range's events by name: on every track, or on the tracks it was marked across
        (their devices' busy time is not theirs alone, so it is left out)."""
        chosen = None if tracks is None else [self.trace.tracks[k] for k in tracks]
        rows = self.trace.aggregate(t0, t1, chosen, instants=True) if chosen != [] else []
        busy = self._device_time().busy(t0, t1) if chosen is None else []
        self.app.call_from_thread(self._range_ready, t0, t1, rows, busy, tracks)

    def _range_ready(self, t0: int, t1: int, rows: list[NameStats], busy: list[DeviceBusy],
                     tracks: tuple[int, ...] | None = None) -> None:
        if self.app.selection.time_range != (t0, t1) or self.view.marked_tracks != tracks:
            return  # marked otherwise since (or cleared): that range's table is on its way
        origin = self.trace.span[0]
        over = "" if tracks is None else f" over {_tracks_named([self.trace.tracks[k] for k in tracks])}"
        title = (f" Range {format_ns(t0 - origin, 6)} to {format_ns(t1 - origin, 6)} ({format_ns(t1 - t0, 6)}){over}: "
                 f"{sum(row.count for row in rows):,} events of {len(rows):,} names, largest total first")
        if busy:  # XProf's duty cycle, for this range
            title += "; busy: " + busy_text([(b.device, b.share, None) for b in busy])
        self.panel.show_table(title, rows)

    def action_top_ops(self, table: str = "ops") -> None:
        """`t`: the top XLA ops (again: the trace's facts); `T`: their time by op category, where
        Enter lists that category's ops (XProf's Op Profile); `p`: by JAX name scope (XProf's
        Framework Op Stats), `-`/`+` a level up or down, Enter lists the scope's ops; `L`: by the
        line of Python the ops came from, Enter lists the line's ops. The table takes the keys
        (arrows, Enter, `s` sorts) until it closes or Esc."""
        if self.trace is None:
            return
        profile = kept_op_profile(self.workspace)  # whichever pane worked it out, for the modules parsed so far
        if profile is None:
            self._compute_top_ops(table)
        elif profile is self._ops and self.panel.showing_table and self.panel.rows is self._table_rows(table):
            self._show_trace_facts()
            self.view.focus()
        else:
            self._ops_ready(profile, table)

    def _table_rows(self, table: str) -> list[NameStats] | None:
        if table == "scopes":
            return self._scopes[0] if self._scopes is not None else None
        if table == "sources":
            return self._sources[0] if self._sources is not None else None
        return self._ops.categories if table == "categories" else self._ops.ops

    @work(thread=True, exclusive=True, group="timeline-ops")
    def _compute_top_ops(self, table: str) -> None:
        self.trace.decode_all()
        try:
            profile = op_profile(self.workspace)
        except InputError as error:  # the file changed since it was loaded, or a module is bad
            self.app.call_from_thread(self.notify, str(error), severity="error")
            return
        self.app.call_from_thread(self._ops_ready, profile, table)

    def _ops_ready(self, profile: OpProfile, table: str) -> None:
        if profile is not self._ops:  # a first profile, or one with another module's ops since
            self._ops, self._scopes, self._sources = profile, None, None
        if table == "roofline":
            open_roofline(self, profile, lambda op: self._show_runs(profile.ops[op].name, profile.ops[op].program))
            return
        self.panel.focus()
        rows = profile.ops
        total = op_time(rows)
        if not rows:
            self.panel.show_table(" No XLA op events recognised (load the program's HLO beside the profile)", rows)
        elif table == "categories":
            self.panel.show_table(f" XLA op time by category: {len(rows):,} ops in {len(profile.categories)} categories, "
                                  f"{format_ns(total, 6)} in all (Enter: the category's ops)", profile.categories, total,
                                  self._group_rates(profile.categories, profile.category_of), order="self")
        elif table == "scopes":
            self._show_scopes()
        elif table == "sources":
            self._sources = op_sources(rows, profile.instructions)
            self.panel.show_table(f" XLA op time by source line: {len(self._sources[0]):,} lines of Python, "
                                  f"{format_ns(total, 6)} in all (Enter: the line's ops)", self._sources[0], total,
                                  self._group_rates(*self._sources), order="self")
        else:
            tuning = sum(row.total_ns for row in profile.autotuning)
            left_out = f" (XLA's autotuning left out: {format_ns(tuning, 4)})" if tuning else ""
            self.panel.show_table(f" Top XLA ops over the whole trace: {self._ops_title(rows)}, {format_ns(total, 6)} in all"
                                  f"{left_out}", rows, total, self._rates(profile), order="self")

    def action_roofline(self) -> None:
        """`R`: the ops on a roofline chart (XProf's Roofline Model), over the timeline; Enter
        there closes it on the op's runs, as Enter on the `t` table does."""
        if self.trace is None:
            return
        profile = kept_op_profile(self.workspace)
        if profile is None:
            self._compute_top_ops("roofline")
        else:
            self._ops_ready(profile, "roofline")

    def _show_scopes(self) -> None:
        profile = self._ops
        if self._scope_depth is None:
            self._scope_depth = parting_depth(profile.instructions)
        self._scopes = op_scopes(profile.ops, profile.instructions, self._scope_depth)
        rows, total = self._scopes[0], op_time(profile.ops)
        self.panel.show_table(f" XLA op time by JAX name scope, {self._scope_depth} deep (-/+): {len(rows):,} scopes, "
                              f"{format_ns(total, 6)} in all (Enter: the scope's ops)", rows, total,
                              self._group_rates(rows, self._scopes[1]), order="self")

    def action_scope_depth(self, delta: int) -> None:
        self._scope_depth = max(1, min(DEEPEST, self._scope_depth + delta))
        self._show_scopes()

    def action_kernel_stats(self) -> None:
        """`k`: XProf's GPU Kernel Stats, a row per kernel with its launch and the ops it ran
        (again: the trace's facts). Enter on a kernel makes its runs the matches."""
        if self.trace is None:
            return
        if self._kernels is None:
            self._compute_kernel_stats()
        elif self.panel.showing_table and self.panel.rows is self._kernels.rows:
            self._show_trace_facts()
            self.view.focus()
        else:
            self._kernel_stats_ready(self._kernels)

    @work(thread=True, exclusive=True, group="timeline-kernels")
    def _compute_kernel_stats(self) -> None:
        self.trace.decode_all()
        try:
            stats = kernel_stats(self.workspace)
        except InputError as error:
            self.app.call_from_thread(self.notify, str(error), severity="error")
            return
        self.app.call_from_thread(self._kernel_stats_ready, stats)

    def _kernel_stats_ready(self, stats: KernelStats) -> None:
        self._kernels = stats
        self.panel.focus()
        total = sum(row.total_ns for row in stats.rows)
        title = (f" GPU kernels: {len(stats.rows):,} kernels, {sum(r.count for r in stats.rows):,} runs, "
                 f"{format_ns(total, 6)} in all (Enter: a kernel's runs)" if stats.rows
                 else " No GPU kernels in this profile (no /device:GPU stream tracks)")
        self.panel.show_table(title, stats.rows, total or None, notes=stats.notes, notes_title="launch")

    def action_steps(self) -> None:
        """`g`: XProf's step-time graph as a table, a row per step in time order: its start, its
        time against the median and how busy each device was in it (`s` sorts by time or by a
        device's share). Enter zooms to the step; the steps are then the matches (n/N), each zoomed to whole."""
        if self.trace is None:
            return
        if self._steps is None and self._overview is not None:  # worked out with the decoding
            self._steps_ready(self._overview)
        elif self._steps is None:
            self._compute_steps()
        elif self.panel.showing_table and self.panel.rows is self._steps[0]:
            self._show_trace_facts()
            self.view.focus()
        else:
            self._show_steps()

    @work(thread=True, exclusive=True, group="timeline-steps")
    def _compute_steps(self) -> None:
        self.trace.decode_all()
        found = training_steps(self.trace, self._device_time())
        self.app.call_from_thread(self._steps_ready, found)

    def _steps_ready(self, found: list[Step]) -> None:
        # the panel's rows name the steps (a step is one event of its time); its columns say the rest
        rows = [NameStats(label, 1, step.duration_ns, step.duration_ns, step.duration_ns, step.duration_ns, step.duration_ns)
                for label, step in zip(step_labels(found), found)]
        self._steps = rows, found
        self._show_steps()

    def _show_steps(self) -> None:
        rows, found = self._steps
        self.panel.focus()
        if not found:
            self.panel.show_table(" No steps in this profile: no Steps line, no events with a step_num "
                                  "(jax.profiler.StepTraceAnnotation marks them)", rows, columns=[])
            return
        origin = self.trace.span[0]
        times = sorted(step.duration_ns for step in found)
        median = (times[(len(times) - 1) // 2] + times[len(times) // 2]) / 2  # of an even count: the middle two's mean
        columns = [
            Column("start", lambda k: format_ns(found[k].start_ns - origin, 4)),
            Column("time", lambda k: format_ns(found[k].duration_ns, 4), lambda k: found[k].duration_ns),
            Column("vs median", lambda k: f"{found[k].duration_ns / median - 1:+.0%}" if median else ""),
        ]
        notes = None
        devices = [busy.device for busy in found[0].busy]
        if len(devices) <= DEVICE_COLUMNS:
            for d, device in enumerate(devices):
                columns.append(Column(device_label(device)[:9], lambda k, d=d: f"{found[k].busy[d].share:.1%}",
                                      lambda k, d=d: found[k].busy[d].share))
        else:
            shares = [[b.share for b in step.busy] for step in found]
            for title, of in (("min busy", min), ("mean busy", lambda values: sum(values) / len(values)), ("max busy", max)):
                columns.append(Column(title, lambda k, of=of: f"{of(shares[k]):.1%}", lambda k, of=of: of(shares[k])))
            notes = [", ".join(f"{device_label(b.device)} {b.share:.1%}" for b in sorted(step.busy, key=lambda b: b.share)[:2])
                     for step in found]
        busy = ", how busy each device was in each" if devices else ""
        count = f"{len(found):,} step" + ("" if len(found) == 1 else "s")
        self.panel.show_table(f" {count}, median {format_ns(median, 4)} ({format_ns(times[0], 4)} to "
                              f"{format_ns(times[-1], 4)}){busy} (Enter: zoom to a step, then n/N)",
                              rows, notes=notes, notes_title="least busy devices", columns=columns)

    def action_counters(self) -> None:
        """`C`: every counter over the marked range (else the window in view), a row each, as
        Perfetto's area selection lists them: the value at its start and end, the change, least,
        most, time-weighted mean and samples (`s` sorts by each); Enter goes to the counter's row."""
        trace, view = self.trace, self.view
        if trace is None:
            return
        if self._counters is not None and self.panel.showing_table and self.panel.rows is self._counters[0]:
            self._show_trace_facts()
            view.focus()
            return
        self.panel.focus()
        self._show_counters(*(view.marked if view.marked is not None else (view.window.t0, view.window.t1)))

    def _show_counters(self, t0: float, t1: float, only: tuple[int, ...] | None = None) -> None:
        """The table of counters over [t0, t1]: every one, or those `only` (a range marked on their
        rows, as Perfetto's area selection over counter tracks lists them in its Counters tab)."""
        trace, view = self.trace, self.view
        chosen = range(len(trace.counters)) if only is None else only
        found = [(k, trace.counters[k], trace.counters[k].over(t0, t1)) for k in chosen]
        found = [(k, counter, span) for k, counter, span in found if span is not None]
        several = len({counter.group for counter in trace.counters}) > 1  # then each row says whose it is
        rows = [NameStats(f"{counter.name} · {counter.group}" if several else counter.name, span.samples, 0, 0, 0, 0, 0)
                for _, counter, span in found]
        self._counters = rows, [k for k, _, _ in found]
        if not rows:
            why = ("the profile has no counters (allocator stats, Chrome `C` events)" if not trace.counters
                   else "none has a sample by its end")
            self.panel.show_table(f" No counters to sum up here: {why}", rows, columns=[])
            return
        shows = [_counter_format(counter.name) for _, counter, _ in found]
        spans = [span for _, _, span in found]

        def column(title: str, value: Callable[[CounterSpan], float], sign: bool = False) -> Column:
            return Column(title, lambda i: shows[i](value(spans[i]), sign=sign), lambda i: value(spans[i]))

        seconds = (t1 - t0) / 1e9
        rate = column("rate /s", lambda s: (s.last - s.first) / seconds if seconds > 0 else 0.0, sign=True)
        columns = [column("first", lambda s: s.first), column("last", lambda s: s.last),
                   column("change", lambda s: s.last - s.first, sign=True), rate, column("least", lambda s: s.least),
                   column("most", lambda s: s.most), column("mean", lambda s: s.mean),
                   Column("samples", lambda i: f"{spans[i].samples:,}", lambda i: spans[i].samples)]
        where = "the marked range" if view.marked is not None else "the window in view"
        self.panel.show_table(f" Counters over {where} ({format_ns(t1 - t0, 6)}): {len(rows)} of {len(chosen)} "
                              "(mean: time-weighted; s sorts, Enter goes to its row, C closes)", rows, columns=columns)

    def _counter_chosen(self, name: str) -> None:
        rows, indices = self._counters
        index = indices[next(k for k, row in enumerate(rows) if row.name == name)]
        self.view.focus()
        self.view.show_counter(index)

    def _step_chosen(self, name: str) -> None:
        rows, found = self._steps
        step = found[next(k for k, row in enumerate(rows) if row.name == name)]
        self.view.set_matches(np.array([s.track for s in found], np.int32), np.array([s.event for s in found], np.intp), fit=True)
        self._searched = None
        self.view.focus()
        self.view.show_event(step.track, step.event)
        self.view.action_fit()

    @staticmethod
    def _ops_title(rows: list[NameStats]) -> str:
        programs = {row.program for row in rows}
        return f"{len(rows):,} ops" if len(programs) < 2 else f"{len(rows):,} ops of {len(programs)} programs"

    def _rates(self, profile: OpProfile) -> dict[str, list[float | None]]:
        """The op tables' rate columns, as XProf's Op Profile gives them: FLOP/s and bytes/s, and
        on a known chip their shares of its peaks."""
        rates = {"GFLOP/s": profile.rates, "GB/s": profile.byte_rates}
        shares = profile.utilization()
        if shares is not None:
            rates["FLOP util"], rates["BW util"] = shares
        return rates

    def _group_rates(self, groups: list[NameStats], of: list[str]) -> dict[str, list[float | None]]:
        """The rate columns of a table of op groups (categories, name scopes)."""
        ops = self._ops.ops
        return {column: group_rates(groups, of, ops, values, self._ops.waits) for column, values in self._rates(self._ops).items()}

    def _show_group(self, name: str, group_of: list[str], back: str) -> None:
        """The ops of one category or name scope (`group_of[k]` is op k's)."""
        profile = self._ops
        chosen = [k for k, group in enumerate(group_of) if group == name]
        rows = [profile.ops[k] for k in chosen]
        total = op_time(profile.ops)
        self.panel.show_table(f" {name}: {self._ops_title(rows)}, {format_ns(op_time(rows), 6)} "
                              f"of {format_ns(total, 6)} ({back})", rows, total,
                              {column: [values[k] for k in chosen] for column, values in self._rates(profile).items()}, order="self")

    def _name_chosen(self, name: str, program: str | None) -> None:
        """A name in a table: its events (an op's runs in its program) become the matches; the
        cursor goes to the next one in time. A category's name lists its ops."""
        if self._ops is not None and self.panel.rows is self._ops.categories:
            self._show_group(name, self._ops.category_of, "T: all categories")
            return
        if self._scopes is not None and self.panel.rows is self._scopes[0]:
            self._show_group(name, self._scopes[1], "p: all scopes")
            return
        if self._sources is not None and self.panel.rows is self._sources[0]:
            self._show_group(name, self._sources[1], "L: all lines")
            return
        if self._steps is not None and self.panel.rows is self._steps[0]:
            self._step_chosen(name)
            return
        if self._counters is not None and self.panel.rows is self._counters[0]:
            self._counter_chosen(name)
            return
        self._show_runs(name, program)

    def view_text(self) -> tuple[str, str] | None:
        """The panel below the tracks: its table (tab-separated), else the event's or the trace's facts."""
        if self.trace is None:
            return None
        return ("the table" if self.panel.showing_table else "the panel's facts"), self.panel.plain_text()

    def copy_text(self) -> tuple[str, str] | None:
        """The name of the event under the cursor (a GPU kernel's in full; a TPU op's is its HLO)."""
        cursor = self.view.cursor if self.trace is not None else None
        if cursor is None or cursor[1] is None:
            return None
        return "the event's name", self.trace.tracks[cursor[0]].event_name(cursor[1])

    def _show_runs(self, name: str, program: str | None) -> None:
        """An op's runs in its program (else the events of that name) become the matches; the
        cursor goes to the next one in time. An op a loaded module has is selected on every
        screen (as the roofline's and the tables' Enter do in the graph and details)."""
        if program is not None:
            found = instruction_in(self.workspace, program, name)
            op = found[1] if found else name
            self.view.set_matches(*occurrences(self.trace, None, op, program=program))
        else:
            found = None
            self.view.set_matches(*events_of_name(self.trace, name))
        self._searched = None
        self.view.focus()
        self.view.action_match(1)
        cursor = self.view.cursor
        if found and cursor is not None and cursor[1] is not None:  # the run under the cursor is its event
            self._link = (*cursor, (found[0].label, found[1].name))
            self.app.select(module=found[0].label, instruction=found[1].name, event=cursor)


def _counter_format(name: str) -> Callable[..., str]:
    """How a counter's values read: in KiB/MiB/GiB where its name says bytes (allocator stats),
    else as numbers; `sign=True` for a change."""
    in_bytes = "byte" in name.lower()

    def show(value: float, sign: bool = False) -> str:
        size = abs(value)
        text = human_bytes(size) if in_bytes else f"{int(size):,}" if size.is_integer() else f"{size:,.6g}"
        return ("+" if value >= 0 else "-") + text if sign else ("-" if value < 0 else "") + text

    return show


def _tracks(trace: Trace) -> str:
    """`53 tracks`, and the lines derived from them (derived_lines), which are not the file's."""
    derived = [track.name.partition(" - from")[0] for track in trace.tracks if track.derived]
    text = counted(len(trace.tracks) - len(derived), "track")
    return text + f" and {len(derived)} derived ({', '.join(dict.fromkeys(derived))})" if derived else text


def _tracks_named(tracks: list) -> str:
    """`2 tracks (python3, XLA Ops)`: a range's chosen tracks, the first few named."""
    if not tracks:
        return "no tracks of events (its rows are counters: C sums them up over it)"
    names = [track.name for track in tracks[:3]] + (["…"] if len(tracks) > 3 else [])
    return f"{counted(len(tracks), 'track')} ({', '.join(names)})"
