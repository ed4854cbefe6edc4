"""Rows of timeline events -> what each character cell shows, at eighth-of-a-cell precision.

A frame must cost the same whatever the trace holds, so nothing here visits the events in
the window: one `searchsorted` finds, for every cell edge of every row of a track, the first
event starting there (rows share one key axis, see trace_lanes.LaneIndex), and the rest is
arithmetic on those positions. A cell is then one of:

- empty, or filled by one event;
- split: one event (or a gap) gives way to another (or a gap) at an eighth of the cell, which
  the painter draws with an eighth block;
- busy: more events than that share it. It shows the one covering most of it among the event
  running at its left edge and the first few and the last starting inside (the dominant event,
  as Perfetto draws it), shaded by how much of the cell is busy (prefix sums of durations give
  that exactly).

The cost is O(rows x cells x log(events)).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from tui.model.trace_lanes import LaneIndex, time_offsets

SUB = 8  # eighths: the finest split a terminal cell can draw
SHADES = 4  # busy cells: light, medium, dark, full
_CANDIDATES = 4  # events starting in a busy cell considered for its dominant one


class Cells(NamedTuple):
    """Per row and cell (arrays of shape (rows, cells)). `left` fills the first `split`
    eighths and `right` the rest; in a busy cell both are the dominant event and `shade`
    (1..SHADES) says how busy it is (0 elsewhere). Events are positions in the LaneIndex
    (`order[k]` is the track's event); -1 is nothing."""

    left: np.ndarray
    right: np.ndarray
    split: np.ndarray
    shade: np.ndarray


def _clip(values, low, high):
    """np.clip's result, from the two ufuncs (its Python wrapper cost more than the work on a
    frame's few rows)."""
    return np.minimum(np.maximum(values, low), high)


def cell_edges(t0: float, ns_per_cell: float, cells: int) -> np.ndarray:
    """Integer start time of each cell, and the end of the last: cells + 1 values."""
    offsets = np.arange(cells + 1, dtype=np.float64) * ns_per_cell
    whole = np.floor(t0)
    return int(whole) + np.ceil(offsets + (t0 - whole)).astype(np.int64)


def window_edges(t0: float, ns_per_cell: float, cells: int) -> tuple[int, int]:
    """`cell_edges`' first and last values, without the ones between."""
    whole = math.floor(t0)
    return whole + math.ceil(t0 - whole), whole + math.ceil(cells * ns_per_cell + (t0 - whole))


def _first_at(lanes: LaneIndex, rows: np.ndarray, times: np.ndarray) -> np.ndarray:
    """Per row and time, the position of the row's first event starting at or after it
    (the row's end position if none). Times are clamped just outside a row's span, so a
    lookup never lands in a neighbouring row."""
    keys = (rows[:, None] + lanes.row0) * lanes.stride + time_offsets(lanes, times)[None, :]
    return np.searchsorted(lanes.keys, keys.ravel(), side="left").reshape(keys.shape)


def bin_rows(lanes: LaneIndex, rows: np.ndarray, t0: float, ns_per_cell: float, cells: int) -> Cells:
    """What each of `cells` cells from time `t0` shows of each of a track's `rows`."""
    rows = np.asarray(rows, np.int64)
    shape = (len(rows), cells)
    if not len(lanes.keys):
        none = np.full(shape, -1, np.int64)
        return Cells(none, none.copy(), np.full(shape, SUB, np.int8), np.zeros(shape, np.int8))
    start, end = lanes.start, lanes.end
    edges = cell_edges(t0, ns_per_cell, cells)
    # Per row copies (np.broadcast_to's checks cost more than copying the few rows of a frame).
    a, b = edges[None, :-1].repeat(len(rows), 0), edges[None, 1:].repeat(len(rows), 0)
    width = np.maximum(np.diff(edges), 1).astype(np.float64)[None, :].repeat(len(rows), 0)  # a cell under 1 ns holds nothing
    first_all = _first_at(lanes, rows, edges)
    first, after = first_all[:, :-1], first_all[:, 1:]
    row_start = lanes.offsets[rows][:, None]

    before = first - 1  # the last event starting before the cell: is it still running?
    held = (before >= row_start) & (end[np.maximum(before, 0)] > a)
    left_event = np.where(held, before, -1)
    left_end = np.where(held, end[np.maximum(before, 0)], a)
    inside = after - first
    single = np.minimum(first, len(start) - 1)
    reaches_right = (inside == 1) & (end[single] >= b)

    left = np.where(held, before, -1)
    right = np.full(shape, -1, np.int64)
    split = np.full(shape, SUB, np.int8)
    shade = np.zeros(shape, np.int8)

    # No event starts inside: the held event fills the cell or ends in it.
    quiet = inside == 0
    through = quiet & held & (left_end >= b)
    right[through] = left[through]
    ending = quiet & held & ~through
    split[ending] = _clip(np.rint((left_end - a)[ending] / width[ending] * SUB), 1, SUB - 1)

    # One event starts inside and runs past the cell: a gap or the held event, then it.
    where = np.rint((start[single] - a) / width * SUB).astype(np.int64)
    gap_wins = (left_end - a) < (start[single] - left_end)
    left[reaches_right & gap_wins] = -1
    right[reaches_right] = first[reaches_right]
    split[reaches_right] = _clip(where, 0, SUB - 1)[reaches_right]
    opens = reaches_right & (where <= 0)
    left[opens] = right[opens]
    split[opens] = SUB

    busy = ~quiet & ~reaches_right
    if busy.any():
        _dominate(lanes, busy, left, right, split, shade, first, after, left_event, a, b, width)
    return Cells(left, right, split, shade)


def sole_events(lanes: LaneIndex, rows: np.ndarray, t0: float, ns_per_cell: float, cells: int) -> np.ndarray:
    """Per row, the event (position) that fills every one of the cells, -1 where every cell is
    empty, -2 where neither is sure (no event starts inside the window, and the one before it
    covers it or has ended): such a row draws the same in any window where it says the same
    (deep in a zoom, most rows are one long event), so it need not be binned again."""
    rows = np.asarray(rows, np.int64)
    if not len(lanes.keys):
        return np.full(len(rows), -1, np.int64)
    a, b = window_edges(t0, ns_per_cell, cells)
    first = _first_at(lanes, rows, np.array([a, b], np.int64))
    before = first[:, 0] - 1  # the last event starting before the window
    earlier = before >= lanes.offsets[rows]
    reach = lanes.end[np.maximum(before, 0)]
    quiet = first[:, 0] == first[:, 1]  # none starts inside
    return np.where(quiet & earlier & (reach >= b), before, np.where(quiet & (~earlier | (reach <= a)), -1, -2))


def _dominate(lanes, busy, left, right, split, shade, first, after, left_event, a, b, width) -> None:
    """Busy cells: the event covering most of the cell among the held one, the first few
    starting inside and the last starting inside (often a long one running on past the
    cell), and the share of the cell covered by any event."""
    start, end = lanes.start, lanes.end
    k = np.nonzero(busy)
    lo, hi = a[k], b[k]
    f, e, held = first[k], after[k], left_event[k]
    inside = f[:, None] + np.arange(_CANDIDATES)
    candidates = np.concatenate([held[:, None], inside, e[:, None] - 1], axis=1)
    valid = np.concatenate([held[:, None] >= 0, inside < e[:, None], (e > f)[:, None]], axis=1)
    safe = _clip(candidates, 0, len(start) - 1)
    overlap = np.minimum(end[safe], hi[:, None]) - np.maximum(start[safe], lo[:, None])
    overlap = np.where(valid, overlap, -1)
    dominant = safe[np.arange(len(f)), overlap.argmax(axis=1)]
    last = np.maximum(e - 1, 0)
    covered = (
        np.where(held >= 0, np.minimum(end[np.maximum(held, 0)], hi) - lo, 0)
        + (lanes.busy[e] - lanes.busy[f])
        - np.maximum(end[last] - hi, 0) * (e > f)
    )
    fraction = _clip(covered / width[k], 0, 1)
    left[k] = right[k] = dominant
    split[k] = SUB
    shade[k] = _clip(np.ceil(fraction * SHADES), 1, SHADES)


def busy_fraction(lanes: LaneIndex, rows: np.ndarray, t0: float, ns_per_cell: float, cells: int) -> np.ndarray:
    """Per cell, the share (0..1) covered by events of the rows, the rows' shares added up
    and capped: the summary a group row shows."""
    rows = np.asarray(rows, np.int64)
    if not len(rows) or not len(lanes.keys):
        return np.zeros(cells)
    end = lanes.end
    edges = cell_edges(t0, ns_per_cell, cells)
    a, b = edges[:-1], edges[1:]
    first = _first_at(lanes, rows, edges)
    f, e = first[:, :-1], first[:, 1:]
    before = np.maximum(f - 1, 0)
    held = (f - 1 >= lanes.offsets[rows][:, None]) & (end[before] > a)
    carried = np.where(held, np.minimum(end[before], b) - a, 0)
    overshoot = np.maximum(end[np.maximum(e - 1, 0)] - b, 0) * (e > f)
    covered = (carried + lanes.busy[e] - lanes.busy[f] - overshoot).sum(axis=0)
    return _clip(covered / np.maximum(np.diff(edges), 1), 0, 1)


def sampled_values(time_ns: np.ndarray, value: np.ndarray, t0: float, ns_per_cell: float, cells: int) -> np.ndarray:
    """Per cell, the counter's value at the cell's start or any sample inside, the largest
    (NaN before the first sample). Looks at most a few samples per cell."""
    edges = cell_edges(t0, ns_per_cell, cells)
    k = np.searchsorted(time_ns, edges, side="right") - 1  # sample holding at each edge
    probes = np.minimum(k[:-1, None] + np.arange(SUB), k[1:, None])  # the first few inside
    values = np.where(probes >= 0, value[np.maximum(probes, 0)], np.nan)
    out = np.full(cells, np.nan)
    seen = ~np.isnan(values).all(axis=1)
    out[seen] = np.nanmax(values[seen], axis=1)
    return out
