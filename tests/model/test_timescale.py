"""The timeline's window arithmetic and ruler (tui.model.timescale)."""

from __future__ import annotations

import math

import pytest

from tui.model.timescale import MIN_NS_PER_CELL, Window, format_ns, tick_step, ticks

SPAN = (1_000, 1_001_000)  # one millisecond


def test_whole_window_shows_the_span():
    window = Window.whole(SPAN, 100)
    assert (window.t0, window.t1) == SPAN
    assert window.ns_per_cell == 10_000
    assert window.column(SPAN[0]) == 0 and window.column(SPAN[1] - 1) == 99


def test_zoom_keeps_the_point_under_the_cursor():
    window = Window.whole(SPAN, 100)
    at = 251_000.0
    column = (at - window.t0) / window.ns_per_cell
    zoomed = window.zoom(0.5, at)
    assert zoomed.width == pytest.approx(window.width / 2)
    assert (at - zoomed.t0) / zoomed.ns_per_cell == pytest.approx(column)
    back = zoomed.zoom(2.0, at)
    assert (back.t0, back.t1) == pytest.approx((window.t0, window.t1))


def test_zoom_stops_at_one_nanosecond_per_cell_and_at_the_whole_trace():
    window = Window.whole(SPAN, 100)
    for _ in range(100):
        window = window.zoom(0.5, 500_000)
    assert window.ns_per_cell == MIN_NS_PER_CELL
    assert window.t0 <= 500_000 < window.t1
    for _ in range(100):
        window = window.zoom(2.0, 500_000)
    assert (window.t0, window.t1) == SPAN


def test_zoom_stops_where_doubles_still_tell_cells_apart():
    """Times since the epoch in nanoseconds (a tracer writing time.time() in microseconds) are
    about 1.7e18, where doubles step by 256 ns: fully zoomed in or fitted to one instant, a
    window there is eight steps a cell, not a width that rounds to nothing."""
    epoch = (1_700_000_000_000_000_000, 1_700_000_000_001_000_000)
    step = math.ulp(float(epoch[1]))
    assert step == 256
    window = Window.whole(epoch, 100)
    for _ in range(100):
        window = window.zoom(0.5, epoch[0] + 500_000)
    assert window.ns_per_cell == pytest.approx(8 * step) and window.contains(epoch[0] + 500_000)
    fitted = window.fit(epoch[0] + 500_000, epoch[0] + 500_000, margin=0.0)
    assert fitted.width == pytest.approx(100 * 8 * step)
    assert [fitted.column(fitted.t0 + k * fitted.ns_per_cell) for k in range(100)] == list(range(100))
    assert Window.whole(SPAN, 100).zoom(1e-9, 500_000).ns_per_cell == MIN_NS_PER_CELL  # near zero: 1 ns a cell


def test_pan_is_clamped_to_the_trace():
    window = Window.whole(SPAN, 100).zoom(0.1, 500_000)
    moved = window.pan(0.5)
    assert moved.t0 - window.t0 == pytest.approx(window.width / 2)
    assert moved.width == pytest.approx(window.width)
    for _ in range(50):
        moved = moved.pan(1.0)
    assert moved.t1 == SPAN[1] and moved.width == pytest.approx(window.width)
    for _ in range(50):
        moved = moved.pan(-1.0)
    assert moved.t0 == SPAN[0]


def test_fit_and_reveal():
    window = Window.whole(SPAN, 100)
    fitted = window.fit(400_000, 500_000)
    assert fitted.t0 == pytest.approx(390_000) and fitted.t1 == pytest.approx(510_000)
    tiny = window.fit(400_000, 400_001)
    assert tiny.width == 100 * MIN_NS_PER_CELL and tiny.contains(400_000)
    narrow = window.zoom(0.01, 100_000)
    assert narrow.reveal(narrow.t0 + 1, narrow.t0 + 2) is narrow  # already in view: no move
    later = narrow.reveal(900_000, 900_010)
    assert later.contains(900_000) and later.width == pytest.approx(narrow.width)
    earlier = later.reveal(200_000, 200_010)
    assert earlier.contains(200_000) and earlier.contains(200_009)


def test_resize_keeps_the_time_range():
    window = Window.whole(SPAN, 100).zoom(0.3, 300_000)
    wider = window.resized(250)
    assert (wider.t0, wider.t1) == (window.t0, window.t1) and wider.cells == 250


@pytest.mark.parametrize(
    "ns, text",
    [(0, "0 ns"), (820, "820 ns"), (1_500, "1.5 us"), (1_500_000, "1.5 ms"), (12_250_000_000, "12.2 s"), (999, "999 ns")],
)
def test_format_ns(ns, text):
    assert format_ns(ns) == text


def test_ticks_are_round_evenly_spaced_and_labelled_from_the_origin():
    for width in (10.0, 3e3, 7.7e6, 3.03e10):
        window = Window(5_000.0, 5_000.0 + width, 172, (0, 10**12))
        marks = ticks(window, origin=5_000)
        step = tick_step(window.ns_per_cell)
        mantissa = step / 10 ** math.floor(math.log10(step))
        assert round(mantissa, 6) in (1, 2, 5, 10)
        assert len(marks) >= 2
        columns = [column for column, _ in marks]
        assert columns == sorted(columns) and all(0 <= c < 172 for c in columns)
        assert min(b - a for a, b in zip(columns, columns[1:])) >= 11
        assert marks[0][1].split()[0].strip("0.") == ""  # the origin is at the window's start


def test_tick_labels_use_the_step_unit():
    window = Window(0.0, 30e9, 170, (0, 30 * 10**9))
    labels = [text for _, text in ticks(window, origin=0)]
    assert labels[:3] == ["0 s", "5 s", "10 s"]  # 176 ms per cell: ticks at least 2.1 s apart
    window = Window(0.0, 4e6, 170, (0, 10**9))
    assert [text for _, text in ticks(window, origin=0)][:3] == ["0 us", "500 us", "1000 us"]
