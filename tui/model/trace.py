"""Profiles (xplane.pb, Chrome trace JSON, TensorBoard logdirs) as a timeline of NumPy columns.

`load_trace(path)` is the entry point. A `Trace` holds `Track`s (one per thread, stream or XLine,
grouped by process or device) whose events are columns sorted by start; counter tracks; device
peaks; and warnings about data the profiler lost or that is not shown. Columns of an xplane
track are decoded from ProfileData the first time they are used, so loading costs a parse and a
count, and a window of the timeline costs a few searchsorted calls, whatever the trace's size.
"""

from __future__ import annotations

import ctypes
import gc
import os
import re
import sys
import threading
from codecs import BOM_UTF8
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Callable, Iterable, Iterator, NamedTuple, Sequence

import numpy as np

from tui.model.errors import NOT_A_FILE, InputError, missing
from tui.model.profile_programs import EmbeddedProgram, programs_beside
from tui.model.trace_flows import FlowPoint, flow_links
from tui.model.trace_lanes import LaneIndex, assign_rows, clipped_times, lane_index, merge, self_times

_HLO_INSTRUCTION = re.compile(r"%([^\s=]+) = ")


def op_display_name(name: str) -> str:
    """`%fusion.3 = f32[8]{0} fusion(...)` (a TPU `XLA Ops` event's name) -> `fusion.3`."""
    if name.startswith("%"):
        match = _HLO_INSTRUCTION.match(name)
        if match:
            return match.group(1)
    return name


def return_freed_memory() -> None:
    """Hand memory just freed back to the system. glibc keeps freed pages in the process: after
    an xplane's ProfileData is freed, RSS stays at 320 MB without this and drops to 92 MB with
    it; loading and decoding a JSON trace leave about 55 bytes per event behind."""
    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL(None).malloc_trim(0)
        except (OSError, AttributeError):  # not glibc
            pass


@contextmanager
def _gc_paused():
    """Loading builds about a million short-lived objects, none in reference cycles; the cyclic
    collector would otherwise rescan them over and over while they are built."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


class NameTable:
    """The trace's string table: `name_id` columns index `names` (display names, each once)."""

    def __init__(self) -> None:
        self.names: list[str] = []
        self._ids: dict[str, int] = {}
        self.step_ids: set[int] = set()  # names of events that mark training steps (`step_num` stat)

    def ids(self, raw_names: Sequence[str]) -> np.ndarray:
        known = self._ids
        for raw in set(raw_names):
            if raw not in known:
                shown = op_display_name(raw)
                if shown not in known:
                    known[shown] = len(self.names)
                    self.names.append(shown)
                known[raw] = known[shown]
        return np.fromiter(map(known.__getitem__, raw_names), np.int32, len(raw_names))

    def id_of(self, name: str) -> int | None:
        return self._ids.get(name)

    def first_uses(self, name_id: np.ndarray, since: int) -> np.ndarray:
        """Positions (ascending) of the first event of each name with id >= `since` (the
        names a column added): where loaders look for names that mark steps."""
        fresh = np.flatnonzero(name_id >= since)
        first = np.full(len(self.names) - since, len(name_id))
        np.minimum.at(first, name_id[fresh] - since, fresh)
        return np.sort(first[first < len(name_id)])

    def matching(self, text: str) -> np.ndarray:
        """A mask over name ids: names containing `text`, case-insensitive."""
        needle = text.lower()
        return np.fromiter((needle in name.lower() for name in self.names), bool, len(self.names))

    def nbytes(self) -> int:
        """UTF-8 bytes of the names plus a pointer each."""
        return sum(len(name.encode()) for name in self.names) + 8 * len(self.names)


# What a track's source yields: start_ns, dur_ns (int64), name_id (int32), and a function from an
# event's position in the source to its args (None when the source has no args).
Columns = tuple[np.ndarray, np.ndarray, np.ndarray, "Callable[[int], dict] | None"]


class _Decoded(NamedTuple):
    start: np.ndarray
    dur: np.ndarray
    name_id: np.ndarray
    depth: np.ndarray
    source: np.ndarray | None  # position in the source of each sorted event; None: same order
    args_of: Callable[[int], dict] | None


class Track:
    """One timeline row group: a thread, GPU stream or XLine, its events sorted by start.

    `count` is exact before anything is decoded. The columns (`start_ns`, `dur_ns`, `name_id`
    into `names`, `depth`) are decoded on first use. `depth` is the row inside the track:
    nesting depth, with overlapping async events moved to extra rows (see trace_lanes).
    `derived`: made from other tracks (Trace.add_derived), not read from the file.
    """

    derived = False

    def __init__(
        self,
        group: str,
        name: str,
        count: int,
        table: NameTable,
        lock: threading.RLock,
        load: Callable[[], Columns],
        instants: tuple[np.ndarray, np.ndarray] | None = None,
        instant_args: Callable[[int], dict] | None = None,
    ):
        self.group = group
        self.name = name
        self.count = count
        self._table = table
        self._lock = lock
        self._load: Callable[[], Columns] | None = load
        self._decoded: _Decoded | None = None
        self._lanes: LaneIndex | None = None
        self._self_ns: np.ndarray | None = None
        self._stat_codes: dict[str, tuple[np.ndarray, list[str]]] = {}
        empty = (np.zeros(0, np.int64), np.zeros(0, np.int32))
        self.instant_ns, self.instant_name_id = instants or empty  # instants, in time order
        self._instant_args = instant_args

    def __repr__(self) -> str:
        return f"Track({self.group!r}, {self.name!r}, count={self.count})"

    @property
    def names(self) -> list[str]:
        return self._table.names

    @property
    def decoded(self) -> bool:
        return self._decoded is not None

    def decode(self) -> _Decoded:
        """Decode the columns, and build the row index with them, so that a decoded track is
        ready to draw."""
        if self._decoded is None:
            with self._lock, _gc_paused():
                if self._decoded is None:
                    cols = _sort_and_nest(*self._load())
                    self._lanes = lane_index(cols.start, cols.start + cols.dur, cols.depth)
                    self._decoded = cols
                    self._load = None
        return self._decoded

    @property
    def start_ns(self) -> np.ndarray:
        return self.decode().start

    @property
    def dur_ns(self) -> np.ndarray:
        return self.decode().dur

    @property
    def end_ns(self) -> np.ndarray:
        cols = self.decode()
        return cols.start + cols.dur

    @property
    def name_id(self) -> np.ndarray:
        return self.decode().name_id

    @property
    def depth(self) -> np.ndarray:
        return self.decode().depth

    @property
    def lanes(self) -> int:
        """Rows the track needs: its row index's (not a pass over its depths, which the timeline
        asked for each time it laid its rows out again as a track arrived)."""
        return len(self.lane_index().offsets) - 1

    def event_name(self, i: int) -> str:
        return self.names[self.name_id[i]]

    def event_span(self, i: int) -> tuple[int, int]:
        """(start, end) of event i (cheaper than end_ns, which computes every end)."""
        cols = self.decode()
        start = int(cols.start[i])
        return start, start + int(cols.dur[i])

    def event_args(self, i: int) -> dict:
        """Stats/args of event `i`, read from the source only now (selection time)."""
        cols = self.decode()
        if cols.args_of is None:
            return {}
        return cols.args_of(i if cols.source is None else int(cols.source[i]))

    def event_stats(self, i: int, keys: tuple[str, ...]) -> dict:
        """These stats of event `i`, where it has them, hidden ones included (an xplane's `_p` /
        `_c`, which the args leave out)."""
        cols = self.decode()
        if cols.args_of is None:
            return {}
        position = i if cols.source is None else int(cols.source[i])
        raw = getattr(cols.args_of, "raw", cols.args_of)
        stats = raw(position)
        return {key: stats[key] for key in keys if stats.get(key) is not None}

    def stat_codes(self, key: str, also: tuple[str, ...] = ()) -> tuple[np.ndarray, list[str]]:
        """One stat of every event: (per event, in this track's order, the index of its value in
        the list, -1 where it has none; the distinct values as text). Read from the source the
        first time (GPU kernels' `hlo_op`, for op tables), with the stats `also` names in the
        same pass, then kept."""
        found = self._stat_codes.get(key)
        if found is None:
            keys = (key, *(k for k in also if k != key and k not in self._stat_codes))
            for k, raw in self._read_stats(keys).items():
                values: dict[str, int] = {}
                codes = np.fromiter((-1 if v is None else values.setdefault(str(v), len(values)) for v in raw), np.int32,
                                    len(raw))
                self._stat_codes[k] = (codes, list(values))
            found = self._stat_codes[key]
        return found

    def _read_stats(self, keys: tuple[str, ...]) -> dict[str, list]:
        """Each event's stats of these keys, or None, in this track's order."""
        cols = self.decode()
        n = len(cols.start)
        columns = getattr(cols.args_of, "columns", None)
        if cols.args_of is None:
            return {key: [None] * n for key in keys}
        if columns is not None:
            found = columns(keys)
            return found if cols.source is None else {key: [raw[i] for i in cols.source.tolist()] for key, raw in found.items()}
        args = [cols.args_of(i) for i in (range(n) if cols.source is None else cols.source.tolist())]
        return {key: [a.get(key) for a in args] for key in keys}

    def lane_index(self) -> LaneIndex:
        """The events grouped by row (see trace_lanes.LaneIndex)."""
        self.decode()
        return self._lanes

    def lane(self, row: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(starts, ends, event indices) of the events on one row, sorted by start (and end)."""
        lanes = self.lane_index()
        a, b = int(lanes.offsets[row]), int(lanes.offsets[row + 1])
        return lanes.start[a:b], lanes.end[a:b], lanes.order[a:b]

    def visible(self, t0_ns: int, t1_ns: int) -> np.ndarray:
        """Indices (ascending) of events with start <= t1 and end >= t0.

        Two searchsorted calls per row: a row never overlaps itself, so its starts and ends are
        both sorted. The cost depends on the rows and the answer, not on the track's size.
        """
        order, offsets, lane_start, lane_end = self.lane_index()[:4]
        parts = []
        for row in range(len(offsets) - 1):
            a, b = int(offsets[row]), int(offsets[row + 1])
            lo = a + int(np.searchsorted(lane_end[a:b], t0_ns, side="left"))
            hi = a + int(np.searchsorted(lane_start[a:b], t1_ns, side="right"))
            if lo < hi:
                parts.append(order[lo:hi])
        if not parts:
            return np.zeros(0, np.intp)
        return np.sort(np.concatenate(parts)).astype(np.intp)

    def overlapping(self, t0_ns: int, t1_ns: int) -> np.ndarray:
        """Indices of events inside [t0, t1) for at least a moment, as Perfetto's area selection
        counts them (start < t1 and end > t0; one of no duration where it starts in the range):
        `visible`'s events that only touch an edge are left out. A range of no length (`m` on an
        event of no duration) is a moment: the events running then, and those of no duration at it."""
        found = self.visible(t0_ns, t1_ns)
        start, dur = self.start_ns[found], self.dur_ns[found]
        end = start + dur
        if t0_ns == t1_ns:
            return found[(start <= t0_ns) & ((end > t0_ns) | ((dur == 0) & (start == t0_ns)))]
        return found[(start < t1_ns) & ((end > t0_ns) | ((dur == 0) & (start >= t0_ns)))]

    def instant_args(self, k: int) -> dict:
        """The args (and category) of the track's `k`th instant, as Perfetto lists a selected one's."""
        return self._instant_args(k) if self._instant_args is not None else {}

    def instants_in(self, t0_ns: int, t1_ns: int) -> slice:
        """The instants at [t0, t1) (at t0, for a range of no length), as `overlapping` counts
        events of no duration: Perfetto's area selection counts instants among its slices."""
        times = self.instant_ns
        first = int(np.searchsorted(times, t0_ns, "left"))
        return slice(first, int(np.searchsorted(times, t1_ns, "right" if t0_ns == t1_ns else "left")))

    @property
    def self_ns(self) -> np.ndarray:
        """Duration minus the durations of the event's children in this track."""
        if self._self_ns is None:
            cols = self.decode()
            order, offsets = self.lane_index()[:2]
            self._self_ns = self_times(cols.start, cols.start + cols.dur, order, offsets)
        return self._self_ns

    def nbytes(self) -> int:
        arrays = [self.instant_ns, self.instant_name_id]
        if self._decoded is not None:
            arrays += [a for a in self._decoded[:5] if a is not None]
        lanes = self._lanes
        arrays += [a for a in lanes if isinstance(a, np.ndarray)] if lanes else []
        arrays += [self._self_ns] if self._self_ns is not None else []
        return sum(a.nbytes for a in arrays)


def _sort_and_nest(start, dur, name_id, args_of) -> _Decoded:
    source = None
    if not _in_order(start, dur):
        order = np.lexsort((-dur, start))
        start, dur, name_id = start[order], dur[order], name_id[order]
        source = order.astype(np.int32)
    return _Decoded(start, dur, name_id, assign_rows(start, start + dur), source, args_of)


def _in_order(start: np.ndarray, dur: np.ndarray) -> bool:
    """Sorted by start, longer first on ties? Profilers mostly write events so; checking is
    cheaper than sorting."""
    later = start[1:] - start[:-1]
    return bool(np.all((later > 0) | ((later == 0) & (dur[1:] <= dur[:-1]))))


@dataclass
class CounterTrack:
    """Samples of one counter series (Chrome `C` events, allocator stats), sorted by time."""

    group: str
    name: str
    time_ns: np.ndarray
    value: np.ndarray

    def visible(self, t0_ns: int, t1_ns: int) -> slice:
        """Samples in [t0, t1] plus the one before t0, whose value holds at t0."""
        lo = max(int(np.searchsorted(self.time_ns, t0_ns, side="right")) - 1, 0)
        return slice(lo, int(np.searchsorted(self.time_ns, t1_ns, side="right")))

    def sample_at(self, t_ns: float) -> int | None:
        """The sample in force at `t_ns` (one holds until the next); None before the first."""
        k = int(np.searchsorted(self.time_ns, t_ns, side="right")) - 1
        return k if k >= 0 else None

    @cached_property
    def changes(self) -> tuple[np.ndarray, np.ndarray]:
        """The samples that change the value (the first one included), and their times."""
        if not len(self.value):
            return np.zeros(0, np.int64), self.time_ns[:0]
        changed = np.flatnonzero(np.concatenate(([True], self.value[1:] != self.value[:-1])))
        return changed, self.time_ns[changed]

    @cached_property
    def highest(self) -> int | None:
        """The sample of the counter's highest value (the first, if several); None if none."""
        return int(np.argmax(self.value)) if len(self.value) else None

    @cached_property
    def drawn_range(self) -> tuple[float, float]:
        """The values a counter row's height spans: from zero, or the lowest value if below
        it, to zero or the highest; so a counter that goes negative is drawn whole."""
        seen = self.value[~np.isnan(self.value)]
        if not len(seen):
            return 0.0, 0.0
        return min(float(seen.min()), 0.0), max(float(seen.max()), 0.0)

    def set_by(self, t_ns: float) -> int | None:
        """The sample that set the value in force at `t_ns` (later ones may repeat it)."""
        k = self.sample_at(t_ns)
        if k is None:
            return None
        changed, _ = self.changes
        return int(changed[np.searchsorted(changed, k, side="right") - 1])

    def next_change(self, t_ns: float, direction: int) -> int | None:
        """Where the counter steps: the time of the first change after `t_ns` (direction 1), or
        of the last one before it (-1); None if there is none."""
        _, times = self.changes
        if direction > 0:
            j = int(np.searchsorted(times, t_ns, side="right"))
            return int(times[j]) if j < len(times) else None
        j = int(np.searchsorted(times, t_ns, side="left")) - 1
        return int(times[j]) if j >= 0 else None

    def over(self, t0_ns: float, t1_ns: float) -> CounterSpan | None:
        """The counter over [t0, t1] as Perfetto's area selection sums one up (its Counters tab):
        the samples whose value holds at some moment of it, from the one in force at t0 (or
        replaced right at t0) to the last by t1; their mean weighted by how long each held inside,
        over the whole range (no value yet counts as none); None if there is no sample by t1."""
        times = self.time_ns
        lo = max(int(np.searchsorted(times, t0_ns, side="left")) - 1, 0)
        hi = int(np.searchsorted(times, t1_ns, side="right"))
        if hi <= lo:
            return None
        values = self.value[lo:hi].astype(np.float64)
        ends = np.append(times[lo + 1 : hi + 1], np.inf)[: hi - lo]  # each value holds until the next sample
        held = np.clip(np.minimum(ends, t1_ns) - np.maximum(times[lo:hi], t0_ns), 0, None)
        length = t1_ns - t0_ns
        mean = float((values * held).sum() / length) if length > 0 else float(values[-1])
        return CounterSpan(float(values[0]), float(values[-1]), float(values.min()), float(values.max()), mean, hi - lo)


class CounterSpan(NamedTuple):
    """A counter over a stretch of time (CounterTrack.over): its first and last value, the least
    and most, the mean weighted by how long each value held, and the samples counted."""

    first: float
    last: float
    least: float
    most: float
    mean: float
    samples: int


@dataclass
class Device:
    """A device plane's peaks, for the roofline; None where the profile does not say."""

    name: str
    device_type: str | None
    peak_teraflops_per_second: float | None
    peak_hbm_bw_gigabytes_per_second: float | None
    stats: dict = field(default_factory=dict)


class TraceLanes(NamedTuple):
    """Every track's rows on one axis (see Trace.lanes): a frame of the timeline bins all
    its rows with one call."""

    index: LaneIndex
    first_row: np.ndarray  # per track: the number of its row 0 in `index`
    first_slot: np.ndarray  # per track: where its events start in `index` (and the total)
    name_id: np.ndarray  # per position in `index`: the event's name id


class NameStats(NamedTuple):
    """Times in ns: whole numbers, but for a TPU's ops, timed by the device in picoseconds."""

    name: str
    count: int
    total_ns: float
    self_ns: float
    mean_ns: float
    min_ns: float
    max_ns: float
    program: str | None = None  # an op's: the XLA program it ran in, where the profile says


def name_stats(names: Sequence[str], ids: np.ndarray, durs: np.ndarray, selfs: np.ndarray,
               programs: Sequence[str | None] | None = None) -> list[NameStats]:
    """Per name (`ids` index `names`, and `programs` alike if given): count, total, self, mean,
    min and max duration, largest total first."""
    size = len(names)
    count = np.bincount(ids, minlength=size)
    total = np.bincount(ids, weights=durs, minlength=size)
    own = np.bincount(ids, weights=selfs, minlength=size)
    order = np.argsort(ids, kind="stable")
    present = np.flatnonzero(count)
    firsts = np.searchsorted(ids[order], present)
    mins = np.minimum.reduceat(durs[order], firsts)
    maxs = np.maximum.reduceat(durs[order], firsts)
    number = int if durs.dtype.kind in "iu" else float
    rows = [
        NameStats(names[i], int(count[i]), number(total[i]), number(own[i]), total[i] / count[i], number(lo), number(hi),
                  None if programs is None else programs[i])
        for i, lo, hi in zip(present.tolist(), mins, maxs)
    ]
    rows.sort(key=lambda row: (-row.total_ns, row.name, row.program or ""))
    return rows


class Trace:
    """A loaded profile.

    `event_count` counts complete events with a duration, exactly: every XEvent of every line
    of every plane of an xplane.pb (zero-length ones included), or of a Chrome trace every
    `"ph": "X"` event, every `B` (ended by its `E`, or where none came running to the trace's
    last moment) and every async `b`/`S` (ended by its `e`/`F`, or running to that moment).
    Instants (`i`/`I`/`n`), counters (`C`), metadata (`M`) and flow events are not counted.
    """

    def __init__(
        self,
        path: str,
        source: str,
        tracks: list[Track],
        table: NameTable,
        lock: threading.RLock,
        devices: dict[str, Device],
        warnings: list[str],
        counters: list[CounterTrack] | Callable[[], list[CounterTrack]],
        args_nbytes: Callable[[], int] | None = None,
        flow_points: Sequence[FlowPoint] = (),
        let_go: Callable[[float], bool] | None = None,
    ):
        self.path = path
        self.source = source  # "xplane" or "chrome"
        self.tracks = tracks
        self.event_count = sum(track.count for track in tracks)
        self.devices = devices
        self.warnings = warnings
        self.runs: list[str] = []  # runs of the logdir, newest first (when loaded from one)
        self.run: str | None = None
        # the programs an xplane holds, or the xplanes beside a Chrome trace: (file, program)
        self.programs: list[tuple[Path, EmbeddedProgram]] = []
        self._table = table
        self._lock = lock
        self._counters = counters
        self._span: tuple[int, int] | None = None
        self._lanes: TraceLanes | None = None
        self._args_nbytes = args_nbytes  # args a reader keeps in memory (Chrome JSON)
        self._flow_points = flow_points  # a Chrome trace's flow events
        self._flow_links: dict | None = None
        self._let_go = let_go  # an xplane reader's: frees its parsed files when idle (see let_go_idle)

    def __repr__(self) -> str:
        return f"Trace({self.path!r}, {self.event_count} events, {len(self.tracks)} tracks)"

    def add_derived(self, group: str, name: str, start: np.ndarray, dur: np.ndarray, names: list[str],
                    args_of: Callable[[int], dict]) -> Track:
        """Add a line made from other tracks (XProf's derived lines, derived_lines). Its events are
        not the file's, so `event_count` leaves them out; it goes last, so every track keeps its
        index (a selection's), and the merged rows are built again (lanes)."""
        with self._lock:
            name_id = self._table.ids(names)
            track = Track(group, name, len(start), self._table, self._lock, lambda: (start, dur, name_id, args_of))
            track.derived = True
            self.tracks.append(track)
            self._lanes = None
        return track

    def flow_links(self) -> dict[tuple[int, int], list[tuple[int, int]]]:
        """(track index, event index) -> the events a Chrome trace's flow events link it to
        (trace_flows); worked out on first use."""
        if self._flow_links is None:
            self._flow_links = flow_links(self.tracks, self._flow_points)
        return self._flow_links

    def let_go_idle(self, idle_s: float = 30.0) -> bool:
        """Free what the reader holds only to read stats again (an xplane's ProfileData, several
        times the file) once every track is decoded and nothing read it for `idle_s` (or longer,
        for a file slow to parse; 0: now); it comes back, parsed again, on the next stats read.
        True if anything was freed."""
        return self._let_go(idle_s) if self._let_go is not None else False

    @property
    def can_let_go(self) -> bool:
        """Whether the reader holds anything let_go_idle could free."""
        return self._let_go is not None

    @property
    def names(self) -> list[str]:
        return self._table.names

    @property
    def groups(self) -> list[str]:
        """Process / device names, in display order."""
        return list(dict.fromkeys(track.group for track in self.tracks))

    def decode_all(self, progress: Callable[[int, int], None] | None = None) -> None:
        """Decode every track now (a worker thread can call this with a progress callback,
        called after each track)."""
        for done, track in enumerate(self.tracks, 1):
            track.decode()
            if progress:
                progress(done, len(self.tracks))

    def lanes(self) -> TraceLanes:
        """Every track's rows merged on one axis (decodes every track; built once). The
        tracks' own indexes become views of it, so this costs only the name ids it adds."""
        if self._lanes is None:
            self.decode_all()
            with self._lock:
                if self._lanes is None:
                    index, views, first_row, first_slot = merge([track.lane_index() for track in self.tracks])
                    for track, view in zip(self.tracks, views):
                        track._lanes = view
                    name_id = np.concatenate([t.name_id[t.lane_index().order] for t in self.tracks] or [np.zeros(0, np.int32)])
                    self._lanes = TraceLanes(index, first_row, first_slot, name_id)
        return self._lanes

    @property
    def counters(self) -> list[CounterTrack]:
        if callable(self._counters):
            with self._lock:
                if callable(self._counters):
                    self._counters = self._counters()
        return self._counters

    @property
    def span(self) -> tuple[int, int]:
        """(first start, last end) in ns over events, instants and counter samples."""
        if self._span is None:
            lows, highs = [], []
            for track in self.tracks:
                if track.count:
                    lows.append(int(track.start_ns[0]))
                    highs.append(int(track.end_ns.max()))
                if len(track.instant_ns):
                    lows.append(int(track.instant_ns.min()))
                    highs.append(int(track.instant_ns.max()))
            for counter in self.counters:
                if len(counter.time_ns):
                    lows.append(int(counter.time_ns[0]))
                    highs.append(int(counter.time_ns[-1]))
            self._span = (min(lows), max(highs)) if lows else (0, 0)
        return self._span

    def find(self, text: str) -> Iterator[tuple[Track, int]]:
        """Events whose name contains `text` (case-insensitive), track by track, in time order."""
        tracks, events = self.search(text, by_time=False)
        for k, i in zip(tracks.tolist(), events.tolist()):
            yield self.tracks[k], i

    def search(self, text: str, by_time: bool = True) -> tuple[np.ndarray, np.ndarray]:
        """(track index, event index) arrays of the events whose name contains `text`
        (case-insensitive), in start-time order (or track by track)."""
        self.decode_all()
        wanted = self._table.matching(text)
        return self.events_named(wanted, by_time)

    def search_with_instants(self, text: str) -> tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]:
        """`search(text)`, and (track index, instant index) arrays of the instants so named, track
        by track: Perfetto's search finds instants among the slices."""
        self.decode_all()
        wanted = self._table.matching(text)
        marked = [(k, np.flatnonzero(wanted[track.instant_name_id])) for k, track in enumerate(self.tracks)
                  if len(track.instant_ns)] if wanted.any() else []
        instants = ((np.concatenate([np.full(len(hits), k, np.int32) for k, hits in marked]),
                     np.concatenate([hits for _, hits in marked])) if marked else (np.zeros(0, np.int32), np.zeros(0, np.intp)))
        return self.events_named(wanted), instants

    def events_named(self, wanted: np.ndarray, by_time: bool = True) -> tuple[np.ndarray, np.ndarray]:
        """Like `search`, for a mask over name ids (decoded tracks only)."""
        tracks, events, starts = [], [], []
        for k, track in enumerate(self.tracks if wanted.any() else ()):
            if track.decoded and track.count:
                hits = np.flatnonzero(wanted[track.name_id])
                tracks.append(np.full(len(hits), k, np.int32))
                events.append(hits)
                starts.append(track.start_ns[hits])
        if not tracks:
            return np.zeros(0, np.int32), np.zeros(0, np.intp)
        tracks, events = np.concatenate(tracks), np.concatenate(events)
        if by_time:
            order = np.argsort(np.concatenate(starts), kind="stable")
            tracks, events = tracks[order], events[order]
        return tracks, events

    @property
    def steps(self) -> list[tuple[int, int, str]]:
        """(start, end, name) of each training step, in time order (see `step_events`)."""
        tracks, events = self.step_events()
        return [
            (int(self.tracks[k].start_ns[i]), int(self.tracks[k].end_ns[i]), self.tracks[k].event_name(i))
            for k, i in zip(tracks.tolist(), events.tolist())
        ]

    def step_events(self) -> tuple[np.ndarray, np.ndarray]:
        """(track, event) of each training step, in time order: from XProf's device step lines
        (`Steps`), where devices each have one, the step's longest event of that name (a step
        takes as long as its slowest device, as XProf's step-time graph counts it; devices may
        run their step 0 far apart); without one, the events that carry a `step_num` stat
        (`jax.profiler.StepTraceAnnotation`). Decoded tracks only."""
        lines = [k for k, t in enumerate(self.tracks) if t.name == "Steps" and t.decoded and t.count]
        if lines:
            longest: dict[int, tuple[int, int, int]] = {}  # step name id -> (duration, track, event)
            first: dict[int, int] = {}  # step name id -> its first start on any device
            for k in lines:
                track = self.tracks[k]
                for i, (name, start, dur) in enumerate(zip(track.name_id.tolist(), track.start_ns.tolist(),
                                                           track.dur_ns.tolist())):
                    first[name] = min(first.get(name, start), start)
                    if dur > longest.get(name, (-1,))[0]:
                        longest[name] = (dur, k, i)
            order = sorted(longest, key=first.__getitem__)
            return (np.array([longest[name][1] for name in order], np.int32),
                    np.array([longest[name][2] for name in order], np.intp))
        wanted = np.zeros(len(self.names), bool)
        wanted[list(self._table.step_ids)] = True
        return self.events_named(wanted)

    def aggregate(
        self, t0_ns: int | None = None, t1_ns: int | None = None, tracks: Iterable[Track] | None = None,
        instants: bool = False,
    ) -> list[NameStats]:
        """Per-name count, total, self, mean, min and max duration, largest total first.

        Counts the events `track.overlapping(t0, t1)` returns, each its part inside the window
        (its self time too: what its children's parts there leave), as Perfetto's area
        selection does, over the file's tracks or the given ones, derived lines left out (they
        count the file's kernels again) unless only derived lines are given; without a window,
        every event, whole. With `instants`, the tracks' instants in the window too, as events
        of no duration.
        """
        tracks = list(self.tracks if tracks is None else tracks)
        if not all(track.derived for track in tracks):
            tracks = [track for track in tracks if not track.derived]
        whole = t0_ns is None and t1_ns is None
        if not whole or instants:
            lo, hi = self.span
            t0_ns, t1_ns = lo if t0_ns is None else t0_ns, hi + 1 if t1_ns is None else t1_ns
        ids, durs, selfs = [], [], []
        for track in tracks:
            if whole:
                ids.append(track.name_id)
                durs.append(track.dur_ns)
                selfs.append(track.self_ns)
            else:
                pick = track.overlapping(t0_ns, t1_ns)
                start = track.start_ns[pick]
                dur, own = clipped_times(start, start + track.dur_ns[pick], track.depth[pick], t0_ns, t1_ns)
                ids.append(track.name_id[pick])
                durs.append(dur)
                selfs.append(own)
            if instants and len(track.instant_ns):
                marks = track.instant_name_id[track.instants_in(t0_ns, t1_ns)]
                ids.append(marks)
                durs.append(np.zeros(len(marks), np.int64))
                selfs.append(np.zeros(len(marks), np.int64))
        if not ids or not sum(len(a) for a in ids):
            return []
        return name_stats(self.names, np.concatenate(ids), np.concatenate(durs), np.concatenate(selfs))

    def nbytes(self) -> int:
        """Bytes of the decoded columns and indexes, the string table and args kept in memory."""
        counters = self.counters if not callable(self._counters) else []
        return (
            sum(track.nbytes() for track in self.tracks)
            + sum(c.time_ns.nbytes + c.value.nbytes for c in counters)
            + self._table.nbytes()
            + (self._lanes.name_id.nbytes if self._lanes else 0)
            + (self._args_nbytes() if self._args_nbytes else 0)
        )


# --- finding the files -------------------------------------------------------------------------

_XPLANE = ".xplane.pb"


def _is_json(path: Path) -> bool:
    """Chrome JSON by name, else (for an odd name) by its first bytes: gzip or `{`/`[` (after any
    byte order mark and blanks)."""
    if path.name.endswith((".json", ".json.gz")):
        return True
    if path.name.endswith(".pb"):
        return False
    try:
        with open(path, "rb") as file:
            head = file.read(64)
    except OSError:
        return False
    return head[:2] == b"\x1f\x8b" or head.removeprefix(BOM_UTF8).lstrip()[:1] in (b"{", b"[")


def _profile_files(run: Path) -> list[Path]:
    """A run folder's xplanes (one per host), else its Chrome traces."""
    xplanes = sorted(run.glob("*" + _XPLANE))
    if xplanes:
        return xplanes
    per_host = sorted(p for p in run.glob("*.trace.json.gz"))
    return per_host or sorted(p for p in run.glob("*.json*") if _is_json(p))


def _runs(logdir: Path) -> list[tuple[str, Path]]:
    """A logdir's runs, newest first, each (its name, its folder): those in its plugins/profile;
    else every folder under it that holds profile files (the runs of logdirs nested in it,
    TensorBoard's `train/` and `eval/`, named `train/<run>`); else none."""
    runs = _runs_in(logdir / "plugins" / "profile")
    if runs:
        return runs
    return _newest_first([(_run_name(logdir, p), p) for p in _folders_under(logdir) if _profile_files(p)])


def _runs_in(folder: Path) -> list[tuple[str, Path]]:
    """The run folders in `folder` (a logdir's plugins/profile), newest first."""
    return _newest_first([(p.name, p) for p in folder.iterdir() if p.is_dir() and _profile_files(p)] if folder.is_dir() else [])


def _newest_first(runs: list[tuple[str, Path]]) -> list[tuple[str, Path]]:
    """By name (the profiler names runs by time), then by time written."""
    return sorted(runs, key=lambda run: (run[1].name, run[1].stat().st_mtime, run[0]), reverse=True)


_MOST_FOLDERS = 2000  # looked into for runs under a logdir (a home folder given by mistake ends there)


def _folders_under(folder: Path, depth: int = 6) -> list[Path]:
    """Folders below `folder` (not itself), `depth` deep at most, hidden ones left out."""
    found: list[Path] = []
    level = [folder]
    for _ in range(depth):
        below = []
        for parent in level:
            try:
                below += sorted(p for p in parent.iterdir() if p.is_dir() and not p.name.startswith(".") and not p.is_symlink())
            except OSError:
                continue
            if len(found) + len(below) > _MOST_FOLDERS:
                return found + below[: _MOST_FOLDERS - len(found)]
        found += below
        level = below
    return found


def _run_name(logdir: Path, run: Path) -> str:
    """`<run>`, or `train/<run>` for a run of a logdir nested in `logdir`."""
    parts = run.relative_to(logdir).parts
    if len(parts) >= 3 and parts[-3:-1] == ("plugins", "profile"):
        parts = parts[:-3] + parts[-1:]
    return "/".join(parts)


def _resolve(path: Path, run: str | None) -> tuple[list[tuple[str | None, list[Path]]], list[str]]:
    """(the runs to read, in turn until one reads: each its name and files; the logdir's runs,
    newest first). A logdir left to pick its run gives every run, newest first: one that a
    profiler still writes, or was killed while writing, is passed over for the one before it."""
    if not path.exists():
        raise missing(path)
    if not path.is_dir():
        if not path.is_file():
            raise InputError(path, NOT_A_FILE)
        return [(None, [path])], []
    files = [] if (path / "plugins" / "profile").is_dir() else _profile_files(path)  # a logdir's own files are not its run
    runs = None
    if files and not any(f.name.endswith((_XPLANE, "trace.json", "trace.json.gz")) for f in files):
        runs = _runs(path)  # JSON of another name (a config.json) beside runs further down: the runs are the profile
        if runs:
            files = []
    if files and run is None:  # a run folder: the other runs are its siblings
        siblings = [name for name, _ in _runs_in(path.parent)] if path.parent.name == "profile" else []
        return [(path.name if siblings else None, files)], siblings
    runs = _runs(path) if runs is None else runs
    if not runs:
        raise InputError(path, "no profile here: expected *.xplane.pb, a trace JSON or plugins/profile/<run>/")
    names = [name for name, _ in runs]
    if run is None:
        return [(name, _profile_files(folder)) for name, folder in runs], names
    if run in names:
        chosen = runs[names.index(run)][1]
        return [(run, _profile_files(chosen))], names
    raise InputError(path, f"no run {run!r}; runs: {', '.join(names)}")


def load_trace(path: str | os.PathLike | Sequence[str | os.PathLike], run: str | None = None) -> Trace:
    """Load a profile: an xplane.pb, a Chrome trace (.json/.json.gz), a logdir or run folder
    (newest run that reads unless `run` names one, with a warning for newer ones that do not;
    a run's hosts are merged on one time axis), or a list of one run's per-host files. Bad
    input raises InputError.

    The result's `event_count` is exact at once: every XEvent of an xplane, or every Chrome
    `X`, `B` and async `b`/`S` event (see Trace); xplane tracks decode their columns lazily.
    """
    if isinstance(path, (str, os.PathLike)):
        tries, runs = _resolve(Path(path), run)
    else:
        files = [Path(p) for p in path]
        for file in files:
            if not file.is_file():
                raise InputError(file, NOT_A_FILE) if file.exists() else missing(file)
        tries, runs = [(None, files)], []
    passed_over: list[InputError] = []
    for chosen, files in tries:
        try:
            trace = _read(files, path)
        except InputError as error:
            passed_over.append(error)
            if len(passed_over) == len(tries):
                raise passed_over[0] from None  # none reads: the newest's fault is the one to fix
            continue
        break
    trace.warnings[:0] = [f"run {name} is newer but could not be read ({error}): run {chosen} is shown"
                          for (name, _), error in zip(tries, passed_over)]
    trace.runs, trace.run = runs, chosen
    if trace.source == "chrome":
        trace.programs = programs_beside(files)
    return trace


def _read(files: list[Path], path) -> Trace:
    """One run's files (one per host), read and merged."""
    if not files:
        raise InputError(path if isinstance(path, (str, os.PathLike)) else None, "no profile files given")
    if all(_is_json(f) for f in files):
        from tui.model.trace_chrome import read_chrome as read
    elif not any(_is_json(f) for f in files):
        from tui.model.trace_xplane import read_xplanes as read
    else:
        raise InputError(files[0], "cannot merge xplane.pb and Chrome JSON files")
    with _gc_paused():
        return read(files)
