"""xplane.pb (XSpace) profiles, read with jaxlib's ProfileData (the class jax.profiler exposes).

ProfileData hands out events one Python object at a time (about 1 us each with name, start and
duration), so loading only parses the file and counts each line's events; a line's columns are
decoded when its track is first used. Event stats are read again on selection. ProfileData
holds the whole XSpace, about 7x the file: once every line is decoded it can be let go
(Trace.let_go_idle) and parsed again when stats are read later (see _Source). ProfileData does not expose XSpace's
`errors`/`warnings` (where the GPU tracer reports dropped events), so the file's top-level
fields are walked for those strings; the planes themselves are skipped by length.
"""

from __future__ import annotations

import os
import re
import threading
import time
from collections import defaultdict
from contextlib import contextmanager
from functools import partial
from itertools import islice
from operator import attrgetter, itemgetter
from pathlib import Path

import numpy as np

from tui.model.errors import InputError, open_regular
from tui.model.memory_room import XPLANE_FACTOR, check_room
from tui.model.profile_programs import embedded_programs
from tui.model.file_kind import what_it_is
from tui.model.proto_damage import XSPACE, first_damage
from tui.model.protowire import check_framing, top_level_fields
from tui.model.trace import CounterTrack, Device, NameTable, Trace, Track, op_display_name, return_freed_memory

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


class _Source:
    """A host's file as ProfileData, parsed while something reads it.

    ProfileData keeps the whole XSpace in memory (240 MB for a 32 MB, 590k-event profile). It
    stays while lines are left to decode; once none are, `let_go` (Trace.let_go_idle, which the
    app calls now and then) frees it when it has not been read for a while: the longer parsing
    took, the longer the wait (IDLE_PER_PARSE_S times the parse), so a big file is not parsed
    again for every selection a few minutes apart. It is parsed from the file again when stats
    are read later (a selection, an op table, flows: about 0.3 s for that file), unless the
    file changed since. Lines and planes keep their ProfileData alive, so readers get them
    inside `open()` and keep none.
    """

    IDLE_PER_PARSE_S = 60

    def __init__(self, path: Path, data, parse_s: float):
        self._path, self._data, self._parse_s = path, data, parse_s
        self._stamp = _stamp(path)
        self.undecoded = 0  # lines whose tracks have not decoded yet
        self._readers = 0
        self._used = time.monotonic()
        self._lock = threading.Lock()

    @contextmanager
    def open(self):
        """The ProfileData, parsed again if it was let go; kept at least until the block ends."""
        with self._lock:
            if self._data is None:
                if _stamp(self._path) != self._stamp:
                    raise InputError(self._path, "changed since it was loaded: load it again to see its stats")
                start = time.perf_counter()
                self._data = _profile_data().from_file(str(self._path))
                self._parse_s = time.perf_counter() - start
            self._readers += 1
            data = self._data
        try:
            yield data
        finally:
            with self._lock:
                self._readers -= 1
                self._used = time.monotonic()

    def line(self, data, plane: int, line: int):
        """Line `line` of plane `plane` (positions in ProfileData's order) of `data`, from `open()`."""
        return next(islice(next(islice(data.planes, plane, None)).lines, line, None))

    def line_decoded(self) -> None:
        with self._lock:
            self.undecoded -= 1
            self._used = time.monotonic()

    def let_go(self, idle_s: float) -> bool:
        """Free the ProfileData if every line is decoded and nothing read it for `idle_s` (longer
        for a file that is slow to parse)."""
        with self._lock:
            wait = max(idle_s, self.IDLE_PER_PARSE_S * self._parse_s) if idle_s > 0 else 0.0
            if self._data is None or self._readers or self.undecoded > 0 or time.monotonic() - self._used < wait:
                return False
            self._data = None
        return_freed_memory()
        return True

    @property
    def parsed(self) -> bool:
        return self._data is not None


def _stamp(path: Path) -> tuple[int, int] | None:
    try:
        stat = path.stat()
    except OSError:
        return None
    return stat.st_size, stat.st_mtime_ns


def _check_framing(path: Path) -> int:
    """InputError unless the file's top level reads as a protobuf message: a file of another
    kind, or cut off, is told at once, with the byte where it goes wrong, before a file of
    gigabytes is read in whole. (An empty file has no events, which the load says.) Returns
    the file's size."""
    try:
        with open_regular(path) as f:
            check_framing(f)
            return os.fstat(f.fileno()).st_size
    except OSError as error:
        raise InputError(path, f"cannot read: {error.strerror or error}") from None
    except ValueError as error:
        raise InputError(path, f"not an XSpace profile: {error} (cut off, or not a protobuf message)") from None


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
        start = time.perf_counter()
        try:
            data = _profile_data().from_serialized_xspace(raw)
        except Exception as error:  # ProfileData raises RuntimeError on a failed parse, saying no more
            damage = first_damage(raw, XSPACE) if what_it_is(path) == "xplane" else None  # not some other message
            if damage is not None:
                raise InputError(path, f"a damaged XSpace profile: {damage}") from None
            raise InputError(path, f"not an XSpace profile ({error})") from None
        self.source = _Source(path, data, time.perf_counter() - start)
        self.notes = [f"{path.name}: profiler error: {text}" for text in notes[_ERRORS]]
        self.notes += [f"{path.name}: profiler warning: {text}" for text in notes[_WARNINGS]]
        self.programs, problem = embedded_programs(raw)
        if problem is not None:
            self.notes.append(f"{path.name}: {problem}")
        self.planes = list(data.planes)  # for the load only (they keep `data` alive)
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
        stats.get("device_type_string") or stats.get("gpu_device_name") or stats.get("device_vendor"),
        stats.get("peak_teraflops_per_second"),
        hbm,
        stats,
    )


class _LineStats:
    """A line's event stats, read from ProfileData when asked: all of one event's (a selection;
    `raw` with XProf's hidden ones, such as the `_p`/`_c` producer and consumer ids), or one stat
    of every event (`column`, for op tables)."""

    def __init__(self, source: _Source, plane: int, line: int):
        self._source, self._plane, self._line = source, plane, line

    def _stats(self, position: int) -> tuple[str, list]:
        with self._source.open() as data:
            event = next(islice(self._source.line(data, self._plane, self._line).events, position, None))
            return event.name, list(event.stats)

    def __call__(self, position: int) -> dict:
        name, stats = self._stats(position)
        args = {}
        if op_display_name(name) != name:
            args["long_name"] = name
        for key, value in stats:
            if key is not None and not key.startswith("_") and key not in args:
                args[key] = value
        return args

    def raw(self, position: int) -> dict:
        return {key: value for key, value in self._stats(position)[1] if key is not None}

    def columns(self, keys: tuple[str, ...]) -> dict[str, list]:
        """Each event's stats of these keys, or None, in the line's order: one pass, since
        reading an event's stats is what costs (about 4 us for a GPU kernel's ten)."""
        wanted = set(keys)
        found: dict[str, list] = {key: [] for key in keys}
        with self._source.open() as data:
            for event in self._source.line(data, self._plane, self._line).events:
                own = {name: value for name, value in event.stats if name in wanted}
                for key, values in found.items():
                    values.append(own.get(key))
        return found


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
                allocator = _allocator(stats)
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


def _allocator(stats: dict) -> str:
    """Whose memory an event's stats count: its allocator, or where there is no name (a TPU
    runtime's events), the device by its index on the host, as XProf's memory profile tells
    allocators apart (one series per chip, not the chips' samples taken turn about)."""
    name = stats.get("allocator_name")
    if name is not None:
        return str(name)
    for index in ("index_on_host", "device_ordinal"):
        if index in stats:
            return f"device {stats[index]} allocator"
    return "allocator"


def _decode_line(source: _Source, plane: int, index: int, group: str, shift: int, table: NameTable,
                 memory: _MemoryCounters):
    with source.open() as data:
        line = source.line(data, plane, index)
        rows = list(map(_FIELDS, line.events))
        n = len(rows)
        names = list(map(itemgetter(0), rows))
        start = np.rint(np.fromiter(map(itemgetter(1), rows), np.float64, n)).astype(np.int64) + shift
        dur = np.rint(np.fromiter(map(itemgetter(2), rows), np.float64, n)).astype(np.int64)
        known = len(table.names)
        name_id = table.ids(names)
        _note_steps(line, name_id, known, table)
        memory.collect(group, line, table, name_id, start)
    source.line_decoded()
    return start, dur, name_id, _LineStats(source, plane, index)


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
    check_room(files, sum(map(_check_framing, files)) * XPLANE_FACTOR)
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
        for p, plane in enumerate(host.planes):
            if plane.name != _TASK_ENVIRONMENT:
                group = plane.name if len(hosts) == 1 else f"{host.label} {plane.name}"
                planes.append((_plane_rank(plane.name), host.label, group, p, plane, host, shift))
    planes.sort(key=itemgetter(0, 1))
    tracks: list[Track] = []
    devices: dict[str, Device] = {}
    for _, _, group, p, plane, host, shift in planes:
        if plane.name.startswith("/device:"):
            devices[group] = _device(group, _stats(plane))
        for index, line in enumerate(plane.lines):
            count = sum(1 for _ in line.events)
            if count:
                load = partial(_decode_line, host.source, p, index, group, shift, table, memory)
                host.source.undecoded += 1
                track = Track(group, line.name, count, table, lock, load)
                tracks.append(track)
                if line.name == "Steps" and isinstance(host.start_time, int) and isinstance(host.stop_time, int):
                    warnings += _cut_steps(track, (shift, shift + host.stop_time - host.start_time))
    if not tracks:
        empty = next((f for f in files if os.path.getsize(f) == 0), None)
        raise InputError(empty or files[0], "the file is empty" if empty else "the profile holds no events")

    def counters() -> list[CounterTrack]:
        for track in tracks:
            track.decode()
        return memory.tracks()

    path = str(files[0]) if len(files) == 1 else str(files[0].parent)
    sources = [host.source for host in hosts]
    trace = Trace(path, "xplane", tracks, table, lock, devices, warnings, counters,
                  let_go=lambda idle_s: any([source.let_go(idle_s) for source in sources]))
    trace.programs = [(host.path, program) for host in hosts for program in host.programs]
    return trace
