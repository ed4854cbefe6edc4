"""Binning timeline rows into cells (tui.model.trace_bins) against a brute-force reading of
the same rules, cell by cell, on real profiles: the committed CPU profile of the transformer
fixture (JAX on CPU) and the corpus's TPU profile, whose async ops overlap and need rows of
their own."""

from __future__ import annotations

import bisect
import math

import numpy as np
import pytest
from conftest import FIXTURES

from tui.model.trace import load_trace
from tui.model.trace_bins import SHADES, SUB, bin_rows, busy_fraction, cell_edges, sole_events, window_edges

CPU_PROFILE = FIXTURES / "transformer" / "profile" / "host.xplane.pb"


def windows(span, count=12, seed=0):
    """Random windows from the whole trace down to a few nanoseconds per cell."""
    lo, hi = span
    rng = np.random.default_rng(seed)
    yield float(lo), float(hi)
    yield lo - 1000.0, lo + 5000.0
    for _ in range(count):
        width = (hi - lo) * 10 ** rng.uniform(-6, 0)
        t0 = rng.uniform(lo - width / 4, hi - width * 0.75)
        yield t0, t0 + width


def expected_cell(events, a, b):
    """(left, right, split, shade) of one cell by the module's rules, from the row's events
    [(start, end, position)] sorted by start."""
    width = float(b - a)
    starts = [s for s, _, _ in events]
    k = bisect.bisect_left(starts, a)
    held = events[k - 1] if k and events[k - 1][1] > a else None
    inside = events[k : bisect.bisect_left(starts, b)]
    held_end = held[1] if held else a
    if not inside:
        if held is None:
            return -1, -1, SUB, 0
        if held[1] >= b:
            return held[2], held[2], SUB, 0
        return held[2], -1, int(np.clip(np.rint((held[1] - a) / width * SUB), 1, SUB - 1)), 0
    if len(inside) == 1 and inside[0][1] >= b:
        s, _, pos = inside[0]
        where = int(np.rint((s - a) / width * SUB))
        if where <= 0:
            return pos, pos, SUB, 0
        left = held[2] if held and not (held_end - a) < (s - held_end) else -1
        return left, pos, min(where, SUB - 1), 0
    candidates = ([held] if held else []) + inside[:4] + inside[-1:]
    overlaps = [min(e, b) - max(s, a) for s, e, _ in candidates]
    dominant = candidates[overlaps.index(max(overlaps))][2]
    covered = sum(min(e, b) - max(s, a) for s, e, _ in ([held] if held else []) + inside)
    shade = int(np.clip(math.ceil(min(max(covered / width, 0), 1) * SHADES), 1, SHADES))
    return dominant, dominant, SUB, shade


def check_track(track, cells, windows_):
    lanes = track.lane_index()
    rows = np.arange(len(lanes.offsets) - 1)
    by_row = [
        [(int(lanes.start[k]), int(lanes.end[k]), k) for k in range(lanes.offsets[r], lanes.offsets[r + 1])] for r in rows
    ]
    for t0, t1 in windows_:
        ns = (t1 - t0) / cells
        got = bin_rows(lanes, rows, t0, ns, cells)
        edges = cell_edges(t0, ns, cells).tolist()
        for r in rows:
            for c in range(cells):
                want = expected_cell(by_row[r], edges[c], edges[c + 1])
                have = (int(got.left[r, c]), int(got.right[r, c]), int(got.split[r, c]), int(got.shade[r, c]))
                assert have == want, (track, r, c, t0, t1)


def test_cpu_profile_cells_follow_the_rules():
    trace = load_trace(CPU_PROFILE)
    for track in trace.tracks:
        check_track(track, 61, windows(trace.span))


def test_tpu_async_rows_follow_the_rules(corpus):
    trace = load_trace(corpus / "traces" / "xprof_tpu_v6e_inference_4chip.xplane.pb")
    tracks = [t for t in trace.tracks if t.group == "/device:TPU:0" and t.name in ("XLA Ops", "Async XLA Ops", "Steps")]
    assert tracks and max(t.lanes for t in tracks) > 1
    for track in tracks:
        check_track(track, 47, windows(trace.span, count=6))


def test_a_cell_shows_every_kind_of_content():
    """The rules are not vacuous on real data: zoomed out, busy cells; zoomed in, splits."""
    trace = load_trace(CPU_PROFILE)
    lanes = trace.lanes().index
    rows = np.arange(len(lanes.offsets) - 1)
    lo, hi = trace.span
    out = bin_rows(lanes, rows, lo, (hi - lo) / 120, 120)
    assert (out.shade > 0).sum() > 50
    seen = set()
    for t0, t1 in windows(trace.span, count=40, seed=3):
        got = bin_rows(lanes, rows, t0, (t1 - t0) / 120, 120)
        split = got.left != got.right
        seen |= {"split"} if (split & (got.left >= 0) & (got.right >= 0)).any() else set()
        seen |= {"ends"} if (split & (got.right < 0) & (got.left >= 0)).any() else set()
        seen |= {"starts"} if (split & (got.left < 0) & (got.right >= 0)).any() else set()
        seen |= {"full"} if ((got.left == got.right) & (got.left >= 0) & (got.shade == 0)).any() else set()
    assert seen == {"split", "ends", "starts", "full"}


def test_a_windows_two_edges_are_its_cells_first_and_last():
    """window_edges (sole_events' two lookups) works out the same integers as cell_edges, whose
    float rounding the binning follows: on fractional and whole starts, widths under and over
    a nanosecond a cell, and widths that are not exact in binary."""
    rng = np.random.default_rng(7)
    for _ in range(20000):
        t0 = float(rng.choice([rng.uniform(0, 1e11), rng.integers(0, 10**11), rng.uniform(0, 10)]))
        ns = float(rng.choice([1.0, 1 / 3, 0.1, 10 ** rng.uniform(-3, 7)]))
        cells = int(rng.integers(1, 400))
        edges = cell_edges(t0, ns, cells)
        assert window_edges(t0, ns, cells) == (int(edges[0]), int(edges[-1])), (t0, ns, cells)


@pytest.mark.parametrize("profile", ["cpu", "tpu"])
def test_a_sole_row_is_one_event_or_nothing_in_every_cell(profile, corpus):
    """sole_events against bin_rows: where it names an event, every cell is that event whole;
    where it says empty, every cell is. Windows from the whole trace down to a nanosecond a
    cell, so all three answers occur (a row it cannot vouch for is binned as before)."""
    path = CPU_PROFILE if profile == "cpu" else corpus / "traces" / "xprof_tpu_v6e_inference_4chip.xplane.pb"
    trace = load_trace(path)
    lanes = trace.lanes().index
    rows = np.arange(len(lanes.offsets) - 1)
    lo, hi = trace.span
    rng = np.random.default_rng(5)
    seen = set()
    for _ in range(60):
        ns = 10 ** rng.uniform(0, np.log10((hi - lo) / 80))
        t0 = rng.uniform(lo - 40 * ns, hi - 40 * ns)
        sole = sole_events(lanes, rows, t0, ns, 80)
        got = bin_rows(lanes, rows, t0, ns, 80)
        full = (got.left == got.right) & (got.split == SUB) & (got.shade == 0)
        for r in rows:
            if sole[r] >= -1:
                assert full[r].all() and (got.left[r] == sole[r]).all(), (r, t0, ns)
            seen.add("event" if sole[r] >= 0 else "empty" if sole[r] == -1 else "mixed")
    assert seen == {"event", "empty", "mixed"}


def test_merged_rows_answer_as_each_track_does():
    trace = load_trace(CPU_PROFILE)
    before = {k: (t.lane_index(), t.visible(*trace.span)) for k, t in enumerate(trace.tracks)}
    merged = trace.lanes()
    lo, hi = trace.span
    for k, track in enumerate(trace.tracks):
        old, visible = before[k]
        rows = np.arange(len(old.offsets) - 1)
        own = bin_rows(old, rows, lo, (hi - lo) / 90, 90)
        together = bin_rows(merged.index, rows + merged.first_row[k], lo, (hi - lo) / 90, 90)
        shift = merged.first_slot[k]
        for alone, merged_ in ((own.left, together.left), (own.right, together.right)):
            assert np.array_equal(np.where(alone >= 0, alone + shift, -1), merged_)
        assert np.array_equal(own.split, together.split) and np.array_equal(own.shade, together.shade)
        view = bin_rows(track.lane_index(), rows, lo, (hi - lo) / 90, 90)  # the track's index is now a view
        assert all(np.array_equal(a, b) for a, b in zip(own, view))
        assert np.array_equal(track.visible(*trace.span), visible)  # the view answers as the original
        a, b = merged.first_slot[k], merged.first_slot[k + 1]
        assert np.array_equal(merged.index.order[a:b], old.order)
        assert np.array_equal(merged.name_id[merged.first_slot[k] : merged.first_slot[k + 1]], track.name_id[old.order])


def test_rows_keyed_by_rank_bin_by_the_same_rules(monkeypatch):
    """Where rows times the span would pass int64, keys count starts, not nanoseconds
    (trace_lanes.LaneIndex.axis): forced on the CPU profile, every cell still follows the rules."""
    from tui.model import trace_lanes

    monkeypatch.setattr(trace_lanes, "_KEY_LIMIT", 1)
    trace = load_trace(CPU_PROFILE)
    for track in trace.tracks:
        assert track.lane_index().axis is not None
        check_track(track, 61, windows(trace.span, count=6))


def test_events_years_apart_keep_their_places(tmp_path):
    """A Chrome trace with times since the epoch beside times near zero (a writer's slip) spans
    57 years: its merged rows keyed by nanoseconds would pass int64 and wrap (lookups landing on
    other events); keyed by rank, every cell follows the rules and every event is found where
    it is. Times past what int64 nanoseconds hold are put at the limit, with a warning."""
    import json

    from tui.model.trace_lanes import position

    epoch = 1_795_516_707_716_740.0  # microseconds
    events = []
    for tid in range(12):
        events.append({"ph": "X", "name": "early", "pid": 1, "tid": tid, "ts": tid, "dur": 2})
        events += [{"ph": "X", "name": "late", "pid": 1, "tid": tid, "ts": epoch + 10 * k + tid, "dur": 4 + k % 3}
                   for k in range(5)]
    events.append({"ph": "X", "name": "wild", "pid": 2, "tid": 0, "ts": 1e300, "dur": 1})
    path = tmp_path / "years.json"
    path.write_text(json.dumps({"traceEvents": events}))
    trace = load_trace(path)
    assert any("put at that limit" in warning for warning in trace.warnings)
    merged = trace.lanes()
    assert merged.index.axis is not None and trace.event_count == len(events)
    late = epoch * 1000
    for track in trace.tracks:
        check_track(track, 40, [trace.span, (late - 1e5, late + 2e5), (-10.0, 30_000.0)])
        lanes = track.lane_index()
        for k in range(track.count):
            row = int(np.searchsorted(lanes.offsets, np.flatnonzero(lanes.order == k)[0], side="right")) - 1
            at = position(lanes, row, int(track.start_ns[k]), k)
            assert lanes.order[at] == k


def test_group_summary_is_the_busy_share_of_its_rows():
    trace = load_trace(CPU_PROFILE)
    merged = trace.lanes()
    lanes = merged.index
    for t0, t1 in windows(trace.span, count=8):
        cells = 53
        got = busy_fraction(lanes, merged.first_row, t0, (t1 - t0) / cells, cells)
        edges = cell_edges(t0, (t1 - t0) / cells, cells)
        for c in range(cells):
            a, b = int(edges[c]), int(edges[c + 1])
            covered = 0
            for row in merged.first_row:
                k0, k1 = lanes.offsets[row], lanes.offsets[row + 1]
                covered += sum(max(0, min(int(e), b) - max(int(s), a)) for s, e in zip(lanes.start[k0:k1], lanes.end[k0:k1]))
            assert got[c] == pytest.approx(min(covered / (b - a), 1.0))
