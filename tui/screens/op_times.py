"""Each op's time in the profile, for the panes that say it beside an op: the graph's boxes and
schedule, the details' tables of operands, users and ops of the same line.

The op profile is worked out once per profile and set of parsed modules, in a worker, and kept
on the workspace (links.op_profile), but only once such a pane is on screen: a profile opened
alone starts on the timeline, whose decoding comes first. A pane shown after another worked it
out takes it at once. `R` there opens the roofline chart of the same op profile on the selected
op; Enter in it selects the op under its cursor.
"""

from __future__ import annotations

from textual import work

from tui.model.errors import InputError
from tui.model.graph_layout import Note
from tui.model.links import OpProfile, kept_op_profile, op_profile, op_time
from tui.model.timescale import format_ns
from tui.model.workspace import Workspace
from tui.screens.roofline import open_roofline


class OpTimes:
    """Mix into a WorkspaceScreen before it; call `time_ops_when_shown` when the workspace
    arrives, and redraw in `op_times_changed` (`op_note` says an op's time, or is None). Bind
    `R` to `roofline` (a mixin's BINDINGS are not Textual's to find)."""

    op_note: Note | None = None
    op_timed_modules: frozenset[int] = frozenset()  # id() of each module with an op that ran
    _timed_for: tuple | None = None  # the (trace, module) the times are for
    _roofline_asked = False  # `R` came before the op profile: open the chart when it is worked out

    def shown_again(self) -> None:
        self.time_ops_when_shown()

    def time_ops_when_shown(self) -> None:
        ws = self.workspace
        if ws is None or ws.trace is None or not self.is_current or not ws.parsed:
            return
        key = (id(ws.trace), id(ws.hlo))
        if self._timed_for != key:
            self._timed_for = key
            kept = kept_op_profile(ws)  # another pane worked it out: no need to wait
            if kept is not None:
                self._ops_timed(key, *_note(kept))
                return
            if self.op_note is not None:  # another profile or module: its times are to come
                self.op_note, self.op_timed_modules = None, frozenset()
                self.op_times_changed()
            self._time_ops(ws, key)

    @work(thread=True, exclusive=True, group="op-times", exit_on_error=False)  # no times is no reason to stop
    def _time_ops(self, ws: Workspace, key: tuple) -> None:
        try:
            profile = op_profile(ws)
        except InputError:  # the profile changed since it was loaded: the timeline says so
            return
        self.app.call_from_thread(self._ops_timed, key, *_note(profile))

    def _ops_timed(self, key: tuple, note: Note | None, modules: frozenset[int]) -> None:
        if key == self._timed_for and note is not self.op_note:  # else another module or profile since
            self.op_note, self.op_timed_modules = note, modules
            self.op_times_changed()
        if self._roofline_asked and self.is_current:
            self.action_roofline()

    def action_roofline(self) -> None:
        ws = self.workspace
        if ws is None or ws.trace is None:
            self.notify("No profile loaded: the roofline chart plots the ops' rates as measured in a profile",
                        severity="warning")
            return
        profile = kept_op_profile(ws)
        if profile is None:
            self._roofline_asked = True
            self.notify("Working out each op's time: the roofline chart opens when it is done")
            self.time_ops_when_shown()
            return
        self._roofline_asked = False
        open_roofline(self, profile, lambda op: self._roofline_chosen(profile, op))

    def _roofline_chosen(self, profile: OpProfile, op: int) -> None:
        ins = profile.instructions[op]
        if ins is None:
            self.notify(f"{profile.ops[op].name} is in none of the loaded modules", severity="warning")
        else:
            self.app.select(instruction=ins)

    def op_times_changed(self) -> None:
        """The times arrived (or went with their module): draw again."""


def _note(profile: OpProfile) -> tuple[Note | None, frozenset[int]]:
    """What a pane says of an op (its time_note; None when no op of the profile ran), and the
    modules with ops that ran."""
    times = profile.times()
    total = op_time(profile.ops)
    if not times or not total:
        return None, frozenset()
    return (lambda ins: time_note(times.get(ins), total)), frozenset(id(ins.computation.module) for ins in times)


def time_note(time_ns: int | None, total_ns: int) -> str:
    """`1.23 ms 14%`: an op's time over the profile and its share of all ops' time ("" if it did not run)."""
    if not time_ns:
        return ""
    share = f"{time_ns / total_ns:.0%}"
    return f"{format_ns(time_ns, 3)} {'<1%' if share == '0%' else share}"
