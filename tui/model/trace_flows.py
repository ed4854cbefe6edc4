"""Chrome trace flow events (`s`, `t`, `f`) -> links between the slices they bind to.

A flow is the chain of events sharing an (id, cat, name), in time order: `s` starts it, `t`
steps it, `f` ends it (Perfetto's reading of the v1 format). Each event binds to a slice on
its thread: `s` and `t` to the innermost one running at its time, `f` too when it says
`"bp": "e"`, and otherwise to the next slice to start there. Consecutive bound slices of a
chain are linked both ways; a flow event that binds to nothing is left out.

The reader keeps the few flow events as FlowPoints; Trace.flow_links works the links out the
first time an event's flows are asked for (the tracks they bind to are decoded then).
"""

from __future__ import annotations

from collections import defaultdict
from typing import NamedTuple

import numpy as np


class FlowPoint(NamedTuple):
    track: int  # index in the trace's tracks
    ts_ns: int
    phase: str  # "s", "t" or "f"
    enclosing: bool  # binds to the slice running at ts_ns (else to the next one to start)
    key: tuple  # (id, cat, name): the flow it belongs to


def flow_links(tracks: list, points: list[FlowPoint]) -> dict[tuple[int, int], list[tuple[int, int]]]:
    """(track index, event index) -> the events the flows link it to."""
    chains: dict[tuple, list[tuple[int, int, FlowPoint]]] = defaultdict(list)
    for order, point in enumerate(points):
        chains[point.key].append((point.ts_ns, order, point))
    links: dict[tuple[int, int], list[tuple[int, int]]] = defaultdict(list)
    for chain in chains.values():
        previous = None
        for _, _, point in sorted(chain):
            event = _bind(tracks[point.track], point.ts_ns, point.enclosing or point.phase != "f")
            here = None if event is None else (point.track, event)
            if point.phase == "s":
                previous = here
                continue
            if previous is not None and here is not None and here != previous:
                links[previous].append(here)
                links[here].append(previous)
            if point.phase == "f":
                previous = None  # the flow ends here
            elif here is not None:
                previous = here
    return dict(links)


def _bind(track, ts_ns: int, enclosing: bool) -> int | None:
    """The event of `track` (in its order) a flow event at `ts_ns` binds to, or None."""
    if not track.count:
        return None
    start = track.start_ns
    if not enclosing:
        i = int(np.searchsorted(start, ts_ns, side="left"))
        return i if i < track.count else None
    end, depth = track.end_ns, track.depth
    last, window = int(np.searchsorted(start, ts_ns, side="right")) - 1, 64
    while last >= 0:  # back from the latest to start, a widening window at a time
        first = max(last - window + 1, 0)
        running = first + np.flatnonzero(end[first : last + 1] >= ts_ns)
        if running.size:
            return int(running[np.argmax(depth[running])])  # the innermost of those running
        last, window = first - 1, window * 4
    return None
