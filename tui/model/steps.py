"""The training steps of a profile, each with its time and how busy each device was in it
(XProf's step-time graph): a slow step whose devices sat idle waited on the host, its input
or a collective; one whose devices were busy throughout did more work."""

from __future__ import annotations

from typing import NamedTuple

from tui.model.trace import Trace
from tui.model.utilization import DeviceBusy, DeviceTime


class Step(NamedTuple):
    name: str
    track: int  # where its event is: trace.tracks[track], event `event`
    event: int
    start_ns: int
    duration_ns: int
    busy: list[DeviceBusy]  # each device's busy time over the step


def steps(trace: Trace, devices: DeviceTime) -> list[Step]:
    """The steps in time order (Trace.step_events: decoded tracks only)."""
    tracks, events = trace.step_events()
    found = []
    for k, i in zip(tracks.tolist(), events.tolist()):
        start, end = trace.tracks[k].event_span(i)
        found.append(Step(trace.tracks[k].event_name(i), k, i, start, end - start, devices.busy(start, end)))
    return found
