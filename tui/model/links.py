"""Profile events <-> HLO instructions: which instruction an XLA op event ran, and where an
instruction ran in the profile.

XLA names an op's events after the instruction: CPU thunks and GPU kernels carry `hlo_op` and
`hlo_module` stats, TPU `XLA Ops` events are named by the op (its module is the enclosing
`XLA Modules` event, named `module(program id)`). Where an event says no module, the
instruction is looked up in the loaded module the user is looking at.
"""

from __future__ import annotations

import re

import numpy as np

from tui.model.trace import NameStats, Trace, Track
from tui.model.workspace import ModuleEntry, Workspace

XLA_MODULES = "XLA Modules"
XLA_OPS = "XLA Ops"
_PROGRAM_ID = re.compile(r"\(\d+\)$")


def module_name(event_name: str) -> str:
    """`jit_train_step(42)` (an `XLA Modules` event) -> `jit_train_step`."""
    return _PROGRAM_ID.sub("", event_name)


def _enclosing_module(trace: Trace, track: Track, i: int) -> str | None:
    """The module of the `XLA Modules` event running when event `i` started, on its device."""
    t = int(track.start_ns[i])
    for other in trace.tracks:
        if other.group == track.group and other.name == XLA_MODULES and other.count:
            k = int(np.searchsorted(other.start_ns, t, side="right")) - 1
            if k >= 0 and t < other.end_ns[k]:
                return module_name(other.event_name(k))
    return None


def _entries(ws: Workspace, module: str | None) -> list[ModuleEntry]:
    """Modules to look in, best first: those named `module` (optimized text first), or, when
    the event names none, the current and the main module."""
    if module is None:
        current, main = ws.current, ws.main
        return [entry for entry in (current, None if main is current else main) if entry is not None]
    named = [entry for entry in ws.modules if entry.name == module]
    return sorted(named, key=lambda entry: entry.stage == "before optimizations")


def instruction_for_event(ws: Workspace, track: Track, i: int) -> tuple[str, str] | None:
    """(module label, instruction name) of the instruction event `i` of `track` ran, or None.

    Reads the event's stats (call it off the UI thread: a JSON trace's first args read takes
    about a second) and may parse the module."""
    if ws.trace is None:
        return None
    args = track.event_args(i)
    op = str(args.get("hlo_op") or track.event_name(i))
    module = args.get("hlo_module") or _enclosing_module(ws.trace, track, i)
    for entry in _entries(ws, module):
        if entry.load().instruction(op) is not None:
            return entry.label, op
    return None


def occurrences(trace: Trace, module: str | None, instruction: str) -> tuple[np.ndarray, np.ndarray]:
    """(track index, event index) of each event that ran `instruction`, in time order.

    Matched by event name. Where the profile has `XLA Modules` tracks, events must also lie
    inside a run of `module` on their device; elsewhere (CPU) the name alone decides."""
    wanted = np.array([name == instruction for name in trace.names], bool)
    tracks, found = trace.events_named(wanted)
    if module is None or not any(t.name == XLA_MODULES for t in trace.tracks):
        return tracks, found
    inside = np.array(
        [_enclosing_module(trace, trace.tracks[k], i) == module for k, i in zip(tracks.tolist(), found.tolist())], bool
    )
    return tracks[inside], found[inside]


def op_names(ws: Workspace) -> frozenset[str]:
    """Names of XLA ops: the instructions of every parsed module and the events of `XLA Ops`
    tracks."""
    names = {ins.name for entry in ws.modules if entry.loaded for ins in entry.load().instructions()}
    if ws.trace is not None:
        for track in ws.trace.tracks:
            if track.name == XLA_OPS and track.decoded:
                names.update(track.names[k] for k in np.unique(track.name_id).tolist())
    return frozenset(names)


def top_ops(ws: Workspace) -> list[NameStats]:
    """XProf's HLO op stats: the whole trace's time per XLA op, largest total first."""
    if ws.trace is None:
        return []
    ops = op_names(ws)
    return [row for row in ws.trace.aggregate() if row.name in ops]
