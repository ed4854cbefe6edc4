"""Rows ("lanes") of a track's events: nesting depth, with overlapping async events moved down.

Events come sorted by start, longer first on ties. An event's row is the number of earlier
events still running when it starts: for properly nested events (one thread's call stack) that
is the nesting depth, and it is computed with sorts and searchsorted instead of a Python stack.
Where events overlap without nesting (async copies, collectives, a Python tracer's call that
outlives the step it began in), that count can put two overlapping events on one row; then each
event goes on the lowest row that is free at its start below the innermost event running that
holds it whole (first fit where none does), so every event is kept, no row holds two overlapping
events, and an event that outlives its neighbour does not pull the calls nested in another out
from under it.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np


def assign_rows(start: np.ndarray, end: np.ndarray) -> np.ndarray:
    """Row of each event; `start`/`end` int64, sorted by (start, -duration)."""
    n = len(start)
    if n == 0:
        return np.zeros(0, np.int16)
    index = np.arange(n)
    # Events j (anywhere) that have ended by start_i; those after i in the order can only be
    # zero-length events sharing start_i (or i itself), which sort last in i's start group.
    closed = np.searchsorted(np.sort(end), start, side="right")
    group_end = np.searchsorted(start, start, side="right")
    zero_starts = start[end == start]
    zeros = np.searchsorted(zero_starts, start, side="right") - np.searchsorted(zero_starts, start, side="left")
    closed_from_i = group_end - np.maximum(index, group_end - zeros)
    rows = index - (closed - closed_from_i)
    if _rows_overlap(start, end, rows):
        rows = _under_holder(start, end)
    return rows.astype(np.int16 if rows.max() < 2**15 else np.int32)


def _rows_overlap(start: np.ndarray, end: np.ndarray, rows: np.ndarray) -> bool:
    order = np.argsort(rows, kind="stable")
    same_row = rows[order][1:] == rows[order][:-1]
    return bool(np.any(same_row & (end[order][:-1] > start[order][1:])))


def _under_holder(start: np.ndarray, end: np.ndarray) -> np.ndarray:
    """Each event on the lowest row free at its start that is below the deepest running event
    holding it whole (any free row where none holds it): A [0, 100] and B [50, 1000] overlap,
    so B goes a row down, and C [200, 900] nests under B, not on A's row above its parent."""
    rows = np.empty(len(start), np.int64)
    row_end: list[int] = []  # the end of the event last put on each row
    for i, (s, e) in enumerate(zip(start.tolist(), end.tolist())):
        row = len(row_end) - 1
        while row >= 0 and not (row_end[row] > s and row_end[row] >= e):  # running, and holding it
            row -= 1
        row += 1
        while row < len(row_end) and row_end[row] > s:
            row += 1
        if row == len(row_end):
            row_end.append(e)
        else:
            row_end[row] = e
        rows[i] = row
    return rows


class LaneIndex(NamedTuple):
    """A track's events grouped by row, each row sorted by start (and so by end: a row never
    overlaps itself). Row r is `order[offsets[r]:offsets[r+1]]`, with times `start`/`end`.

    `keys` ((row0 + row) * stride + start - base) puts every row on one ascending axis, so
    that a single searchsorted answers a question about many rows at once (`row0` is the
    first row's number when the index is a view of a merged one); `busy[k]` is the total
    duration of the events before position k, so a stretch's busy time costs two lookups.
    Where rows times the span would pass int64 (events years apart: a trace with times since
    the epoch beside times near zero), keys count starts instead of nanoseconds: `axis` holds
    the distinct starts, and a time's place on it is its rank among them (time_offsets).
    """

    order: np.ndarray
    offsets: np.ndarray
    start: np.ndarray
    end: np.ndarray
    keys: np.ndarray
    base: int
    stride: int
    busy: np.ndarray
    row0: int = 0
    axis: np.ndarray | None = None


_KEY_LIMIT = 2**62  # rows x stride past this would overflow the int64 keys


def _keys(offsets: np.ndarray, start: np.ndarray, end: np.ndarray) -> tuple[np.ndarray, int, int, np.ndarray | None]:
    """(keys, base, stride, axis) of events grouped by row as `offsets` says (see LaneIndex)."""
    base = int(start.min(initial=0))
    stride = int(end.max(initial=base)) - base + 2
    rows = len(offsets) - 1
    axis = None
    if rows * stride >= _KEY_LIMIT:
        axis = np.unique(start)
        base, stride, start = 0, len(axis) + 2, np.searchsorted(axis, start)
    keys = np.repeat(np.arange(rows, dtype=np.int64) * stride, np.diff(offsets)) + (start - base)
    return keys, base, stride, axis


def time_offsets(lanes: LaneIndex, times):
    """Where times (ns) fall on the index's axis within a row: -1 before its first event's
    start, stride - 1 after its last (so a lookup never lands in a neighbouring row)."""
    if lanes.axis is None:
        return np.minimum(np.maximum(times - lanes.base, -1), lanes.stride - 1)
    return np.searchsorted(lanes.axis, times, side="left")


def lane_index(start: np.ndarray, end: np.ndarray, rows: np.ndarray) -> LaneIndex:
    order = np.argsort(rows, kind="stable").astype(np.int32)
    offsets = np.searchsorted(rows[order], np.arange(int(rows.max(initial=-1)) + 2))
    lane_start, lane_end = start[order], end[order]
    keys, base, stride, axis = _keys(offsets, lane_start, lane_end)
    busy = np.concatenate(([0], np.cumsum(lane_end - lane_start)))
    return LaneIndex(order, offsets, lane_start, lane_end, keys, base, stride, busy, 0, axis)


def position(lanes: LaneIndex, row: int, start: int, event: int) -> int:
    """Where an event (on `row`, starting at `start`) sits in an index."""
    k = int(np.searchsorted(lanes.keys, (lanes.row0 + row) * lanes.stride + int(time_offsets(lanes, start))))
    while lanes.order[k] != event:
        k += 1
    return k


def merge(indexes: list[LaneIndex]) -> tuple[LaneIndex, list[LaneIndex], np.ndarray, np.ndarray]:
    """Several tracks' indexes as one, rows numbered on: (merged, each track's index as views
    of it, first row of each track, first position of each track plus the total).

    The views answer exactly as the originals did (their `row0` is their first row), so the
    originals can be dropped: merging costs no memory once done.
    """
    sizes = np.array([len(index.order) for index in indexes], np.int64)
    rows = np.array([len(index.offsets) - 1 for index in indexes], np.int64)
    first_slot = np.concatenate(([0], np.cumsum(sizes)))
    first_row = np.concatenate(([0], np.cumsum(rows)))[:-1]
    start = np.concatenate([index.start for index in indexes]) if indexes else np.zeros(0, np.int64)
    end = np.concatenate([index.end for index in indexes]) if indexes else np.zeros(0, np.int64)
    order = np.concatenate([index.order for index in indexes]) if indexes else np.zeros(0, np.int32)
    offsets = np.concatenate(
        [index.offsets[:-1] + first for index, first in zip(indexes, first_slot)] + [first_slot[-1:]]
    )
    keys, base, stride, axis = _keys(offsets, start, end)
    busy = np.concatenate(([0], np.cumsum(end - start)))
    merged = LaneIndex(order, offsets, start, end, keys, base, stride, busy, 0, axis)
    views = [
        LaneIndex(order[a:b], index.offsets, start[a:b], end[a:b], keys[a:b], base, stride, busy[a : b + 1], int(row), axis)
        for index, a, b, row in zip(indexes, first_slot[:-1].tolist(), first_slot[1:].tolist(), first_row.tolist())
    ]
    return merged, views, first_row, first_slot


def self_times(start, end, order, offsets, dur: np.ndarray | None = None) -> np.ndarray:
    """Duration minus the durations of direct children (events one row down, inside it); with
    `dur`, those durations in place of end - start (the parts inside a range)."""
    dur = end - start if dur is None else dur
    children = np.zeros(len(start), np.float64)
    for row in range(1, len(offsets) - 1):
        parents = order[offsets[row - 1] : offsets[row]]
        kids = order[offsets[row] : offsets[row + 1]]
        k = np.searchsorted(start[parents], start[kids], side="right") - 1
        has = k >= 0
        parent = parents[k[has]]
        kid = kids[has]
        inside = end[parent] >= end[kid]
        children += np.bincount(parent[inside], weights=dur[kid[inside]], minlength=len(start))
    return dur - children.astype(np.int64)


def clipped_times(start: np.ndarray, end: np.ndarray, depth: np.ndarray, t0: int, t1: int) -> tuple[np.ndarray, np.ndarray]:
    """(duration, self time) of each of these events inside [t0, t1], as Perfetto's area
    selection sums slices up (each cut to the range, its children's parts in it taken from its
    own). The events are all those of a track that overlap the range: a child inside the range
    has its parent among them, one row (depth) up."""
    dur = np.clip(np.minimum(end, t1) - np.maximum(start, t0), 0, None)
    if not len(start):
        return dur, dur.copy()
    order = np.lexsort((end, start, depth))
    offsets = np.searchsorted(depth[order], np.arange(int(depth.max()) + 2))
    return dur, self_times(start, end, order, offsets, dur)


def self_times_among(start: np.ndarray, end: np.ndarray) -> np.ndarray:
    """self_times of these events among themselves only: each event's duration less that of
    its direct children in this set (an op's nested ops, not the other events drawn inside it)."""
    order = np.lexsort((start - end, start))  # by start, the longer first, as a track's events are
    s, e = start[order], end[order]
    lanes = lane_index(s, e, assign_rows(s, e))
    selfs = np.empty(len(start), np.int64)
    selfs[order] = self_times(s, e, lanes.order, lanes.offsets)
    return selfs
