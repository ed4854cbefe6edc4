"""xplane.pb (XSpace) profiles, read with jaxlib's ProfileData (the class jax.profiler exposes).

ProfileData hands out events one Python object at a time (about 1 us each with name, start and
duration), so loading only parses the file and counts each line's events; a line's columns are
decoded when its track is first used. Event stats are read again on selection. ProfileData does
not expose XSpace's `errors`/`warnings` (where the GPU tracer reports dropped events), so the
file's top-level fields are walked for those strings; the planes themselves are skipped by length.
"""

from __future__ import annotations

import re
import threading
from collections import defaultdict
from functools import partial
from itertools import islice
from operator import attrgetter, itemgetter
from pathlib import Path

import numpy as np

from tui.model.errors import InputError
from tui.model.protowire import top_level_fields
from tui.model.trace import CounterTrack, Device, NameTable, Trace, Track, op_display_name

_FIELDS = attrgetter("name", "start_ns", "duration_ns")
_MEMORY_EVENTS = frozenset({"MemoryAllocation", "MemoryDeallocation"})
_MEMORY_SERIES = ("bytes_allocated", "bytes_reserved")
_TASK_ENVIRONMENT = "Task Environment"
_ERRORS, _WARNINGS = 2, 3  # XSpace field numbers


def _profile_data():
    from jaxlib import _profile_data  # what jax._src.lib._profile_data is, without importing jax

    return _profile_data.ProfileData


def space_notes(raw: bytes) -> dict[int, list[str]] | None:
    """XSpace's top-level repeated strings by field number; None if `raw` is not a message."""
    try:
        fields = top_level_fields(raw)
    except ValueError:
        return None
    notes: dict[int, list[str]] = defaultdict(list)
    for number, value in fields:
        if number != 1 and isinstance(value, memoryview):  # field 1: the planes, read by ProfileData
            notes[number].append(bytes(value).decode("utf-8", "replace"))
    return notes


class _Host:
    """One host's parsed file."""

    def __init__(self, path: Path):
        self.path = path
        self.label = path.name[: -len(".xplane.pb")] if path.name.endswith(".xplane.pb") else path.stem
        try:
            raw = path.read_bytes()
        except OSError as error:
            raise InputError(path, f"cannot read: {error.strerror or error}") from None
        notes = space_notes(raw)
        if notes is None:
            raise InputError(path, "not an XSpace profile (truncated, or not a protobuf message)")
        try:
            self.data = _profile_data().from_serialized_xspace(raw)
        except Exception as error:  # ProfileData raises RuntimeError on a failed parse
            raise InputError(path, f"not an XSpace profile ({error})") from None
        self.notes = [f"{path.name}: profiler error: {text}" for text in notes[_ERRORS]]
        self.notes += [f"{path.name}: profiler warning: {text}" for text in notes[_WARNINGS]]
        self.planes = list(self.data.planes)
        environment = next((p for p in self.planes if p.name == _TASK_ENVIRONMENT), None)
        stats = _stats(environment) if environment is not None else {}
        self.start_time = stats.get("profile_start_time")
        self.stop_time = stats.get("profile_stop_time")


def _stats(owner) -> dict:
    return {name: value for name, value in owner.stats if name is not None}


def _plane_rank(name: str) -> tuple:
    """Devices first (in numeric order), then hosts, then the rest."""
    kind = 0 if name.startswith("/device:") else 1 if name.startswith("/host:") else 2
    return (kind, [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name)])


def _device(name: str, stats: dict) -> Device:
    hbm = stats.get("peak_hbm_bw_gigabytes_per_second")
    if hbm is None and "memory_bandwidth" in stats:  # GPU planes: bytes/s
        hbm = stats["memory_bandwidth"] / 1e9
    return Device(
        name,
        stats.get("device_type_string") or stats.get("device_vendor"),
        stats.get("peak_teraflops_per_second"),
        hbm,
        stats,
    )


class _LineStats:
    """A line's event stats, read from ProfileData when asked (`data` keeps `line` valid): all of
    one event's (a selection; `raw` with XProf's hidden ones, such as the `_p`/`_c` producer and
    consumer ids), or one stat of every event (`column`, for op tables)."""

    def __init__(self, data, line):
        self._data, self._line = data, line

    def __call__(self, position: int) -> dict:
        event = next(islice(self._line.events, position, None))
        args = {}
        if op_display_name(event.name) != event.name:
            args["long_name"] = event.name
        for name, value in event.stats:
            if name is not None and not name.startswith("_") and name not in args:
                args[name] = value
        return args

    def raw(self, position: int) -> dict:
        event = next(islice(self._line.events, position, None))
        return {name: value for name, value in event.stats if name is not None}

    def column(self, key: str) -> list:
        """Each event's `key` stat, or None, in the line's order."""
        return [next((value for name, value in event.stats if name == key), None) for event in self._line.events]


class _MemoryCounters:
    """Allocator stats of MemoryAllocation/MemoryDeallocation events, found as lines decode."""

    def __init__(self) -> None:
        self.samples: dict[tuple[str, str], list[tuple[int, float]]] = defaultdict(list)

    def collect(self, group: str, line, table: NameTable, name_id: np.ndarray, start: np.ndarray) -> None:
        ids = [table.id_of(name) for name in _MEMORY_EVENTS if table.id_of(name) is not None]
        wanted = set(np.flatnonzero(np.isin(name_id, ids)).tolist()) if ids else set()
        if not wanted:
            return
        for i, event in enumerate(line.events):
            if i in wanted:
                stats = _stats(event)
                allocator = stats.get("allocator_name", "allocator")
                for series in _MEMORY_SERIES:
                    if series in stats:
                        self.samples[(group, f"{allocator} {series}")].append((int(start[i]), float(stats[series])))

    def tracks(self) -> list[CounterTrack]:
        out = []
        for (group, name), samples in sorted(self.samples.items()):
            samples.sort(key=itemgetter(0))
            times, values = zip(*samples)
            out.append(CounterTrack(group, name, np.array(times, np.int64), np.array(values, np.float64)))
        return out


def _decode_line(data, line, group: str, shift: int, table: NameTable, memory: _MemoryCounters):
    rows = list(map(_FIELDS, line.events))
    n = len(rows)
    names = list(map(itemgetter(0), rows))
    start = np.rint(np.fromiter(map(itemgetter(1), rows), np.float64, n)).astype(np.int64) + shift
    dur = np.rint(np.fromiter(map(itemgetter(2), rows), np.float64, n)).astype(np.int64)
    known = len(table.names)
    name_id = table.ids(names)
    _note_steps(line, name_id, known, table)
    memory.collect(group, line, table, name_id, start)
    return start, dur, name_id, _LineStats(data, line)


def _note_steps(line, name_id: np.ndarray, known: int, table: NameTable) -> None:
    """Names new to the table whose first event carries a `step_num` stat mark steps
    (`StepTraceAnnotation`). Only one event per new name is read again."""
    events, previous = iter(line.events), -1
    for k in table.first_uses(name_id, known).tolist():
        event = next(islice(events, k - previous - 1, None))
        previous = k
        if any(key == "step_num" for key, _ in event.stats):
            table.step_ids.add(int(name_id[k]))


def _cut_steps(track: Track, window: tuple[int, int]) -> list[str]:
    """Steps that began before the capture started or were still running when it stopped."""
    notes = []
    lo, hi = window
    for i in sorted({0, track.count - 1}):
        start, end = int(track.start_ns[i]), int(track.end_ns[i])
        if start <= lo or end >= hi:
            edge = "start" if start <= lo else "end"
            notes.append(
                f"{track.group} {track.name}: step {track.event_name(i)!r} is cut off at the trace {edge}; "
                "its time is incomplete"
            )
    return notes


def read_xplanes(files: list[Path]) -> Trace:
    """One or several hosts' xplane.pb files of one run, on one time axis."""
    hosts = [_Host(path) for path in files]
    table, lock, memory = NameTable(), threading.RLock(), _MemoryCounters()
    warnings = [note for host in hosts for note in host.notes]
    starts = [host.start_time for host in hosts]
    aligned = all(isinstance(t, int) for t in starts)
    if len(hosts) > 1 and not aligned:
        warnings.append("some hosts' files have no profile start time; their clocks are not aligned")
    planes = []
    for host in hosts:
        shift = host.start_time - min(starts) if aligned else 0
        for plane in host.planes:
            if plane.name != _TASK_ENVIRONMENT:
                group = plane.name if len(hosts) == 1 else f"{host.label} {plane.name}"
                planes.append((_plane_rank(plane.name), host.label, group, plane, host, shift))
    planes.sort(key=itemgetter(0, 1))
    tracks: list[Track] = []
    devices: dict[str, Device] = {}
    for _, _, group, plane, host, shift in planes:
        if plane.name.startswith("/device:"):
            devices[group] = _device(group, _stats(plane))
        for line in plane.lines:
            count = sum(1 for _ in line.events)
            if count:
                load = partial(_decode_line, host.data, line, group, shift, table, memory)
                track = Track(group, line.name, count, table, lock, load)
                tracks.append(track)
                if line.name == "Steps" and isinstance(host.start_time, int) and isinstance(host.stop_time, int):
                    warnings += _cut_steps(track, (shift, shift + host.stop_time - host.start_time))
    if not tracks:
        raise InputError(files[0], "the profile holds no events")

    def counters() -> list[CounterTrack]:
        for track in tracks:
            track.decode()
        return memory.tracks()

    path = str(files[0]) if len(files) == 1 else str(files[0].parent)
    return Trace(path, "xplane", tracks, table, lock, devices, warnings, counters)
