"""The training steps of a profile, each with its time and how busy each device was in it
(XProf's step-time graph): a slow step whose devices sat idle waited on the host, its input
or a collective; one whose devices were busy throughout did more work."""

from __future__ import annotations

from typing import NamedTuple

from tui.model.trace import Trace
from tui.model.utilization import DeviceBusy, DeviceTime


class Step(NamedTuple):
    name: str
    number: int | None  # its `step_num` (StepTraceAnnotation's), where the event has one
    track: int  # where its event is: trace.tracks[track], event `event`
    event: int
    start_ns: int
    duration_ns: int
    busy: list[DeviceBusy]  # each device's busy time over the step


def steps(trace: Trace, devices: DeviceTime) -> list[Step]:
    """The steps in time order (Trace.step_events: decoded tracks only). A step_num is an event
    stat, read here for each step (a trace JSON keeps the steps' args from its load). Where
    devices have step lines of their own, each device's busy time is over its own step."""
    tracks, events = trace.step_events()
    own = _own_steps(trace)
    found = []
    for k, i in zip(tracks.tolist(), events.tolist()):
        track = trace.tracks[k]
        start, end = track.event_span(i)
        number = _number(track.event_args(i).get("step_num")) if track.name != "Steps" else None
        busy = devices.busy(start, end, own.get(track.event_name(i)) if track.name == "Steps" else None)
        found.append(Step(track.event_name(i), number, k, i, start, end - start, busy))
    return found


def _own_steps(trace: Trace) -> dict[str, dict[str, tuple[int, int]]]:
    """Step name -> each device's own (start, end) of it, from the devices' `Steps` lines."""
    found: dict[str, dict[str, tuple[int, int]]] = {}
    for track in trace.tracks:
        if track.name == "Steps" and track.decoded:
            for i in range(track.count):
                found.setdefault(track.event_name(i), {})[track.group] = track.event_span(i)
    return found


def step_labels(found: list[Step]) -> list[str]:
    """A name per step, each its own: the steps' names, or where they repeat (`train`) the name
    and step_num (`train 12`), else the name and place (`train #3`)."""
    for labels in ([step.name for step in found],
                   [f"{step.name} {step.number}" if step.number is not None else "" for step in found]):
        if all(labels) and len(set(labels)) == len(labels):
            return labels
    return [f"{step.name} #{k + 1}" for k, step in enumerate(found)]


def _number(value) -> int | None:
    """A step_num stat: an int in an xplane, a string of digits in a trace JSON's args."""
    if isinstance(value, str) and value.isdigit():
        return int(value)
    return value if isinstance(value, int) else None
