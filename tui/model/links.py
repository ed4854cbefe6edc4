"""Which profile events are which HLO instructions, both ways.

XLA names op events after the instruction they run (`fusion.3`, `dot.35`; TPU `XLA Ops` events
print the whole instruction, which the trace loader shortens to its name), so an instruction's
occurrences are the events with its name. Events are matched by name alone: a profile of
several programs that reuse a name counts the other programs' events too.

Each track gets a name-sorted index on first use, so looking up one instruction costs two
binary searches per track, whatever the trace's size.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tui.model.hlo import HloInstruction, HloModule

MODULES_TRACK = "XLA Modules"


@dataclass(frozen=True)
class Occurrences:
    """Where an instruction ran: (track index, event index) pairs and their durations, in ns."""

    events: tuple[tuple[int, int], ...]
    durations_ns: np.ndarray

    @property
    def count(self) -> int:
        return len(self.events)

    @property
    def total_ns(self) -> int:
        return int(self.durations_ns.sum())

    @property
    def mean_ns(self) -> float:
        return float(self.durations_ns.mean()) if self.count else 0.0

    @property
    def min_ns(self) -> int:
        return int(self.durations_ns.min()) if self.count else 0

    @property
    def max_ns(self) -> int:
        return int(self.durations_ns.max()) if self.count else 0


class TraceLinks:
    """Events <-> instructions of one module in one trace."""

    def __init__(self, trace, module: HloModule):
        self.trace = trace
        self.module = module
        self._name_ids: dict[str, int] | None = None
        self._step: tuple[int, str] | None = None
        self._index: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        self._found: dict[str, Occurrences] = {}

    @property
    def _ids(self) -> dict[str, int]:
        """Name id of every event name that is an instruction of the module (decodes the trace)."""
        if self._name_ids is None:
            self.trace.decode_all()
            module = self.module
            self._name_ids = {name: i for i, name in enumerate(self.trace.names) if module.instruction(name) is not None}
        return self._name_ids

    def _sorted(self, track_index: int) -> tuple[np.ndarray, np.ndarray]:
        """(event indices ordered by name id, their name ids) for one track."""
        if track_index not in self._index:
            ids = self.trace.tracks[track_index].name_id
            order = np.argsort(ids, kind="stable")
            self._index[track_index] = (order, ids[order])
        return self._index[track_index]

    def occurrences(self, ins: HloInstruction) -> Occurrences:
        found = self._found.get(ins.name)
        if found is None:
            events, durations = [], []
            name_id = self._ids.get(ins.name)
            if name_id is not None:
                for t, track in enumerate(self.trace.tracks):
                    order, ids = self._sorted(t)
                    hits = order[np.searchsorted(ids, name_id, "left") : np.searchsorted(ids, name_id, "right")]
                    hits = np.sort(hits)
                    events += [(t, int(i)) for i in hits]
                    durations.append(track.dur_ns[hits])
            found = Occurrences(tuple(events), np.concatenate(durations) if durations else np.zeros(0, np.int64))
            self._found[ins.name] = found
        return found

    def instruction_of(self, track_index: int, event_index: int) -> HloInstruction | None:
        """The instruction an event ran, or None for events that are not this module's ops."""
        return self.module.instruction(self.trace.tracks[track_index].event_name(event_index))

    def step_ns(self) -> tuple[int, str]:
        """Time the module ran in the profile, and where that figure comes from.

        The module's own events on an `XLA Modules` track when the profile has them (TPU, GPU);
        otherwise the sum of all of its op events (CPU profiles have no module events).
        """
        if self._step is None:
            self._step = self._measure_step()
        return self._step

    def _measure_step(self) -> tuple[int, str]:
        name = self.module.name
        total = 0
        for track in self.trace.tracks:
            if track.name == MODULES_TRACK:
                for i in range(track.count):
                    label = track.event_name(i)
                    if label == name or label.startswith(name + "("):
                        total += int(track.dur_ns[i])
        if total:
            return total, f"{name} on {MODULES_TRACK}"
        matched = np.fromiter(self._ids.values(), np.int64, len(self._ids))
        for track in self.trace.tracks:
            total += int(track.dur_ns[np.isin(track.name_id, matched)].sum())
        return total, "all of this module's op events"
