"""The timeline screen (key 4) driven with keys and the mouse on the committed transformer
fixture: an XLA dump and a CPU profile of the same JAX program. Assertions are on the visible
time window, the cursor and the shared selection, checked against the trace model."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from conftest import FIXTURES, screen_text
from shots import SIZES
from tui.model.explain import si

from tui.app import XlaTuiApp
from tui.model.cost import op_cost
from tui.model.links import occurrences, top_ops
from tui.model.shapes import human_bytes
from tui.model.timescale import MIN_NS_PER_CELL
from tui.screens.details import DetailsScreen
from tui.screens.timeline import TimelineScreen
from tui.widgets.timeline import PAN_STEP, PINNED, ZOOM_STEP, Row, TimelineView
from tui.widgets.details_view import DetailsView
from tui.widgets.trace_panel import TracePanel
from textual.widgets import Static

SIZE = (140, 40)


async def open_timeline(pilot) -> TimelineView:
    app = pilot.app
    await app.workers.wait_for_complete()
    await pilot.press("4")
    await app.workers.wait_for_complete()
    await pilot.pause()
    assert isinstance(app.screen, TimelineScreen)
    return app.screen.view


async def open_table(pilot, key: str):
    """The timeline, then the table `key` opens (`t` top ops, `T` by category): (view, panel)."""
    view = await open_timeline(pilot)
    await pilot.press(key)
    await settle(pilot)
    return view, pilot.app.screen.panel


async def settle(pilot) -> None:
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


def window(view):
    return view.window.t0, view.window.t1


def first_row_of(view, track_name: str) -> int:
    return next(i for i, row in enumerate(view.rows) if row.kind == "track" and view.trace.tracks[row.index].name == track_name)


async def open_on_the_client_thread(pilot) -> TimelineView:
    """The timeline with the cursor on the PjRt client thread's row (where the ops run)."""
    view = await open_timeline(pilot)
    await move_to_row(pilot, view, first_row_of(view, "tf_XLAPjRtCpuClient/5463703682951342780"))
    return view


async def move_to_row(pilot, view, target: int) -> None:
    while view.cursor_row < target:
        await pilot.press("down")
    while view.cursor_row > target:
        await pilot.press("up")


async def test_starts_zoomed_out_over_every_track():
    app = XlaTuiApp(FIXTURES / "transformer")
    async with app.run_test(size=SIZE) as pilot:
        view = await open_timeline(pilot)
        trace = app.workspace.trace
        assert window(view) == trace.span
        shown = [row for row in view.rows if row.kind == "track"]
        assert {row.index for row in shown} == set(range(len(trace.tracks)))
        assert len(shown) == sum(track.lanes for track in trace.tracks)
        text = screen_text(app)
        assert "/host:CPU" in text and "python" in text and "39.1 ms" in text


async def test_zoom_about_the_cursor_pan_and_reset():
    app = XlaTuiApp(FIXTURES / "transformer")
    async with app.run_test(size=SIZE) as pilot:
        view = await open_timeline(pilot)
        span = app.workspace.trace.span
        centre = view.cursor_time
        column = (centre - view.window.t0) / view.window.ns_per_cell
        await pilot.press("w")
        assert view.window.width == pytest.approx((span[1] - span[0]) * ZOOM_STEP)
        assert (centre - view.window.t0) / view.window.ns_per_cell == pytest.approx(column)
        await pilot.press("w", "w")
        before = window(view)
        await pilot.press("d")
        assert view.window.t0 - before[0] == pytest.approx(PAN_STEP * (before[1] - before[0]))
        await pilot.press("a")
        assert window(view) == pytest.approx(before)
        await pilot.press("D")
        assert view.window.t0 - before[0] == pytest.approx(min(0.8 * (before[1] - before[0]), span[1] - before[1]))
        await pilot.press("s")
        assert view.window.width == pytest.approx((before[1] - before[0]) / ZOOM_STEP)
        for _ in range(60):
            await pilot.press("W")
        assert view.window.ns_per_cell == MIN_NS_PER_CELL
        await pilot.press("0")
        assert window(view) == span


async def test_a_trace_timed_since_the_epoch_zooms_in_and_fits(tmp_path):
    """Chrome trace times in microseconds since the epoch: fully zoomed in, a mark fitted to
    the window divided by zero (the window's width rounded to nothing at 1.7e18 ns)."""
    import json

    events = [{"ph": "X", "pid": 1, "tid": 1, "ts": 1.7e15 + k * 0.5, "dur": 0.3, "name": f"e{k % 3}"} for k in range(200)]
    path = tmp_path / "epoch.json"
    path.write_text(json.dumps({"traceEvents": events}))
    app = XlaTuiApp(path)
    async with app.run_test(size=SIZE) as pilot:
        view = await open_timeline(pilot)
        for _ in range(60):
            await pilot.press("W")
        assert view.window.width > 0 and view.window.ns_per_cell == 8 * 256
        await pilot.press("down", "shift+right", "shift+right", "escape", "f")
        assert view.window.width > 0 and view.window.ns_per_cell >= 8 * 256
        await pilot.press("0")
        span = app.workspace.trace.span
        assert view.window.t0 == span[0] and view.window.t1 >= span[1]  # the trace is 100 us: under the least width


async def test_arrows_walk_a_row_in_time_order_and_change_rows():
    app = XlaTuiApp(FIXTURES / "transformer")
    async with app.run_test(size=SIZE) as pilot:
        view = await open_timeline(pilot)
        trace = app.workspace.trace
        row = first_row_of(view, "tf_XLAPjRtCpuClient/5463703682951342780") + 1  # its second row
        await move_to_row(pilot, view, row)
        track_index = view.rows[row].index
        track = trace.tracks[track_index]
        _, _, events = track.lane(view.rows[row].lane)
        events = events.tolist()
        assert view.cursor[0] == track_index and view.cursor[1] in events  # the event nearest the cursor time
        k = events.index(view.cursor[1])
        await pilot.press("right")
        assert view.cursor == (track_index, events[k + 1])
        await pilot.press("right", "right")
        assert view.cursor == (track_index, events[k + 3])
        start, end = track.event_span(events[k + 3])
        assert view.window.t0 <= start and end <= view.window.t1  # revealed
        await pilot.press("left")
        assert view.cursor == (track_index, events[k + 2])
        events = events[k + 1 :]
        before = track.event_span(int(events[1]))
        await pilot.press("up")
        above = view.rows[row - 1]
        assert view.cursor_row == row - 1 and view.cursor[0] == above.index
        event = view.cursor[1]
        assert event is not None and track.depth[event] == above.lane
        s, e = track.event_span(event)
        assert s <= sum(before) / 2 < e  # the event over the cursor time, one row up
        assert track.event_name(event) in screen_text(app)


async def test_rows_kept_from_an_earlier_cursor_are_what_a_fresh_paint_draws():
    """Moving the cursor back shows the rows as painted before; they must be what painting the
    rows afresh for that cursor gives."""
    app = XlaTuiApp(FIXTURES / "transformer")
    async with app.run_test(size=SIZE) as pilot:
        view = await open_on_the_client_thread(pilot)
        await pilot.press("right", "down", "right", "up", "down", "up")
        await pilot.pause()
        shown = screen_text(app)
        top = int(view.scroll_offset.y)
        kept = [list(view.render_line(y)) for y in range(view.header_height, view.size.height)]
        assert any(key[1] for key in view._picture.lines)  # a cursor row's picture was reused
        view._redraw()
        fresh = [list(view.render_line(y)) for y in range(view.header_height, view.size.height)]
        assert kept == fresh and int(view.scroll_offset.y) == top
        assert view.trace.tracks[view.cursor[0]].event_name(view.cursor[1]) in shown


async def test_windows_shown_before_or_painted_ahead_come_back_as_a_fresh_paint_draws_them(monkeypatch):
    """S after W (A after D) lands on the window of a moment ago: its rows come back without
    binning anything again; a view left standing still has its next windows painted ahead.
    Either way the lines must be exactly what painting that window afresh draws."""
    import tui.widgets.timeline as timeline
    from tui.model.trace_bins import bin_rows
    from tui.widgets import still

    calls = []

    def counting(*args, **kwargs):
        calls.append(args[1])
        return bin_rows(*args, **kwargs)

    monkeypatch.setattr(timeline, "bin_rows", counting)
    rulers = []
    paint_ruler = TimelineView._paint_ruler
    monkeypatch.setattr(TimelineView, "_paint_ruler", lambda view: rulers.append(view.window) or paint_ruler(view))
    monkeypatch.setattr(still, "TICK_S", 3600)  # the test says when the view stood still
    monkeypatch.setattr(still.HeldKey, "pressed", lambda *_: None)  # and no key is taken as held down
    app = XlaTuiApp(FIXTURES / "transformer")
    async with app.run_test(size=SIZE) as pilot:
        view = await open_on_the_client_thread(pilot)
        await pilot.press("w", "w", "right")
        await pilot.pause()

        def lines():
            return [list(view.render_line(y)) for y in range(view.size.height)]

        def fresh():
            view._redraw()
            return lines()

        async def press(key: str):
            calls.clear()
            await pilot.press(key)
            await pilot.pause()
            return lines()

        before = window(view)
        await press("w")
        assert calls and window(view) != before  # a new window: binned
        rulers.clear()
        back = await press("s")
        assert calls == [] and window(view) == before  # exactly the window it was
        assert rulers == []  # its ruler too
        assert back == fresh()
        calls.clear()
        view.paint_ahead()  # two ticks of a view standing still
        assert calls == []
        view.paint_ahead()
        assert len(calls) >= 4  # zoom in, zoom out, pan left, pan right
        for key, undo in (("a", "d"), ("w", "s"), ("s", "w"), ("d", "a")):
            rulers.clear()
            shown = await press(key)
            assert calls == [] and rulers == [], key
            assert shown == fresh(), key
            await press(undo)
            view.paint_ahead()
            view.paint_ahead()


async def test_a_new_window_repaints_only_the_lines_that_changed_and_shows_what_a_fresh_paint_draws(monkeypatch):
    """Deep in a zoom most rows are one long event (or nothing) across the window: a pan or
    zoom keeps their lines and repaints the rest (and the event's details below, the lines
    that differ). What the screen then shows (the frame Textual composes) must be what
    painting the window and the details afresh shows, after every key."""
    from tui.widgets import still

    monkeypatch.setattr(still, "TICK_S", 3600)  # nothing painted ahead: every key paints
    monkeypatch.setattr(still.HeldKey, "pressed", lambda *_: None)
    app = XlaTuiApp(FIXTURES / "transformer")
    async with app.run_test(size=SIZE) as pilot:
        view = await open_on_the_client_thread(pilot)
        await pilot.press("right")
        while view.window.ns_per_cell > 20:
            await pilot.press("w")
        await pilot.pause()
        repainted = []
        refresh_lines = view.refresh_view_lines
        monkeypatch.setattr(view, "refresh_view_lines", lambda lines: repainted.append(len(list(lines))) or refresh_lines(lines))

        def screen():
            return [list(strip) for strip in app.screen._compositor.render_strips()]

        for key in ("d", "d", "a", "w", "s", "s", "right", "right", "left", "d", "down", "d", "up", "a"):
            repainted.clear()
            await pilot.press(key)
            await pilot.pause()
            shown = screen()
            view._redraw()
            panel = app.screen.panel
            panel.restyled()  # drops every line it keeps
            panel.refresh()
            await pilot.pause()
            assert shown == screen(), key
        assert view._sole_lines  # rows were one event or nothing across the window
        view.pictures.kept = 0
        repainted.clear()
        await pilot.press("d")
        assert repainted and 0 < repainted[-1] < view.size.height - view.header_height  # some lines kept


async def test_a_quick_tappers_pause_is_enough_to_paint_the_next_windows(monkeypatch):
    """With the real tick: 0.15 s after a key (someone tapping different keys quickly) the
    windows that W, S, A and D would show are painted, and the one shown next bins nothing."""
    import asyncio

    import tui.widgets.timeline as timeline
    from tui.model.trace_bins import bin_rows
    from tui.widgets import still

    calls = []
    monkeypatch.setattr(timeline, "bin_rows", lambda *a, **k: calls.append(a[2:4]) or bin_rows(*a, **k))  # the window
    app = XlaTuiApp(FIXTURES / "transformer")
    async with app.run_test(size=SIZE) as pilot:
        view = await open_on_the_client_thread(pilot)
        await pilot.press("w", "w")
        for key in ("d", "w", "a", "s"):
            await pilot.press(key)
            await asyncio.sleep(0.15)
            await pilot.pause()
            centre = view.cursor_time
            ahead = [view.window.zoom(timeline.ZOOM_STEP, centre), view.window.zoom(1 / timeline.ZOOM_STEP, centre),
                     view.window.pan(-timeline.PAN_STEP), view.window.pan(timeline.PAN_STEP)]
            assert still.TICK_S * 2 < 0.15 and all(view.pictures.kept_as(w) is not None for w in ahead), key
        calls.clear()
        shown = ahead[3]
        await pilot.press("d")
        assert window(view) == (shown.t0, shown.t1)
        assert (shown.t0, shown.ns_per_cell) not in calls  # shown as painted ahead (its neighbours may be painted by now)


async def test_a_held_zoom_or_pan_key_has_its_next_window_painted_between_repeats(monkeypatch):
    """D (or W) pressed again right after itself is held down: just after each frame the window
    of its next press is painted, so that press bins nothing and shows what a fresh paint draws.
    A key pressed once does not paint ahead."""

    import tui.widgets.timeline as timeline
    from tui.model.trace_bins import bin_rows
    from tui.widgets import still

    calls = []
    monkeypatch.setattr(timeline, "bin_rows", lambda *a, **k: calls.append(a[2:4]) or bin_rows(*a, **k))  # the window
    monkeypatch.setattr(still, "TICK_S", 3600)  # no painting ahead for a view standing still
    app = XlaTuiApp(FIXTURES / "transformer")
    async with app.run_test(size=SIZE) as pilot:
        view = await open_on_the_client_thread(pilot)
        await pilot.press("w", "w", "w")

        async def press(key: str):
            await pilot.press(key)
            await pilot.pause()  # the frame, and the work it sets going after itself

        for key, step in (("d", lambda w: w.pan(PAN_STEP)), ("w", lambda w: w.zoom(ZOOM_STEP, view.cursor_time))):
            await press("s")
            calls.clear()
            await press(key)  # once: nothing ahead
            assert view.pictures.kept_as(step(view.window)) is None, key
            await press(key)  # again: held
            ahead = step(view.window)
            assert view.pictures.kept_as(ahead) is not None, key
            calls.clear()
            await pilot.press(key)
            assert window(view) == (ahead.t0, ahead.t1)
            shown = [list(view.render_line(y)) for y in range(view.size.height)]
            assert (ahead.t0, ahead.ns_per_cell) not in calls, key  # (the one after it may be painted by now)
            view._redraw()
            assert shown == [list(view.render_line(y)) for y in range(view.size.height)], key

        # Right held, zoomed in so far that each step pans: the window of the next step is painted
        # ahead too, and shows what a fresh paint draws with the cursor on the event stepped to.
        while view.window.ns_per_cell > 1:
            await pilot.press("W")
        await press("right")
        await press("right")
        event, start, end = view._next_event(1)
        ahead = view.window.reveal(start, end)
        assert ahead != view.window and view.pictures.kept_as(ahead) is not None
        calls.clear()
        await pilot.press("right")
        assert view.cursor[1] == event and window(view) == (ahead.t0, ahead.t1)
        shown = [list(view.render_line(y)) for y in range(view.size.height)]
        assert (ahead.t0, ahead.ns_per_cell) not in calls
        view._redraw()
        assert shown == [list(view.render_line(y)) for y in range(view.size.height)]


def test_pictures_keep_the_latest_windows_and_know_them_within_a_thousandth_of_a_cell():
    from tui.model.timescale import Window
    from tui.widgets.timeline_pictures import KEPT, Picture, Pictures

    pictures = Pictures()
    windows = [Window(1000.0 * k, 1000.0 * k + 500.0, 100, (0, 10**6)) for k in range(KEPT + 1)]
    for w in windows:
        pictures.put(w, Picture())
    assert pictures.kept_as(windows[0]) is None  # the oldest was let go
    near = Window(windows[3].t0 + 0.004, windows[3].t1 - 0.004, 100, (0, 10**6))  # 5 ns a cell
    assert pictures.kept_as(near) is windows[3]
    assert pictures.kept_as(Window(windows[3].t0 + 0.01, windows[3].t1, 100, (0, 10**6))) is None
    assert pictures.kept_as(Window(windows[3].t0, windows[3].t1, 99, (0, 10**6))) is None
    found, _ = pictures.find(near)
    assert found is windows[3] and pictures.kept_as(near) is None  # the view holds it now


async def test_enter_selects_an_op_and_enter_again_opens_its_instruction():
    app = XlaTuiApp(FIXTURES / "transformer")
    async with app.run_test(size=SIZE) as pilot:
        view = await open_timeline(pilot)
        trace = app.workspace.trace
        tracks, found = trace.search("dot.")
        view.show_event(int(tracks[0]), int(found[0]))
        await pilot.pause()
        name = trace.tracks[int(tracks[0])].event_name(int(found[0]))
        await pilot.press("enter")
        await settle(pilot)
        selection = app.selection
        assert selection.event == (int(tracks[0]), int(found[0]))
        assert selection.instruction == name and selection.module == app.workspace.main.label
        panel = app.screen.panel
        shown = {key: value for key, value, _ in panel.details}
        assert shown["hlo_op"] == name and shown["hlo_module"] == "jit_train_step"
        assert name in shown["instruction"]
        ins = app.workspace.main.load().instruction(name)  # where in the model it comes from
        assert ins.op_name.startswith(shown["scope"] + "/") and shown["scope"].startswith("jit(train_step)/")
        assert shown["source"] == f"{ins.source[0]}:{ins.source[1]}" and shown["source"].split(":")[0].endswith(".py")
        flops = op_cost(app.workspace.main.load().instruction(name)).flops
        assert flops > 0 and f"{flops:,.0f} FLOP" in shown["cost"]
        start, end = trace.tracks[int(tracks[0])].event_span(int(found[0]))
        rate = flops / ((end - start) / 1e9)
        assert shown["this run"].startswith(si(rate, "FLOP/s") + ", ") and shown["this run"].endswith("B/s")
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, DetailsScreen)
        assert app.workspace.instruction.name == name
        assert name in screen_text(app)


async def test_a_tpu_profile_alone_opens_its_ops_instructions(corpus):
    """The v6e profile holds its programs' HLO: Enter on an XLA op selects its instruction in the
    program it ran in, Enter again shows it (with its TPU tiling), and `t` in its details goes
    back to its runs, only those of that program."""
    app = XlaTuiApp(corpus / "traces" / "xprof_tpu_v6e_inference_4chip.xplane.pb")
    async with app.run_test(size=SIZE) as pilot:
        view = await open_timeline(pilot)
        trace = app.workspace.trace
        tracks, found = trace.search("broadcast_add_fusion.1")
        view.show_event(int(tracks[0]), int(found[0]))
        await pilot.press("enter")
        await settle(pilot)
        program = app.workspace.main
        assert app.selection.module == program.label and program.label.startswith("jit_f(")
        assert app.selection.instruction == "broadcast_add_fusion.1"
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, DetailsScreen) and "T(8,128)" in screen_text(app)
        await pilot.press("t")
        await settle(pilot)
        shown = app.screen.view.matches
        assert len(shown[1]) == len(found) == 400  # 4 chips x 100 steps: every run, and only those


async def test_an_async_copys_wait_gets_no_rate_in_its_details(corpus):
    """A TPU copy-done's event times the wait for the copy, not the copy: its details gave its
    5 GB over that wait as 62 GB/s, where the op tables give it no rate. A fusion's run keeps
    its rate."""
    app = XlaTuiApp(corpus / "traces" / "xprof_tpu_v6e_inference_4chip.xplane.pb")
    async with app.run_test(size=SIZE) as pilot:
        view = await open_timeline(pilot)
        trace = app.workspace.trace

        async def rate_of(name: str) -> str:
            tracks, found = trace.search(name)
            k, i = next((k, i) for k, i in zip(tracks.tolist(), found.tolist())
                        if trace.tracks[k].name == "XLA Ops" and trace.tracks[k].event_name(i) == name)
            view.show_event(k, i)
            await pilot.press("enter")
            await settle(pilot)
            return {key: value for key, value, _ in app.screen.panel.details}["this run"]

        assert (await rate_of("copy-done.4")).startswith("no rate")
        assert (await rate_of("broadcast_add_fusion.1")).endswith("B/s")


async def test_search_steps_through_matches_in_time_order():
    app = XlaTuiApp(FIXTURES / "transformer")
    async with app.run_test(size=SIZE) as pilot:
        view = await open_timeline(pilot)
        trace = app.workspace.trace
        view.cursor_ns = float(trace.span[0])
        await pilot.press("slash")
        await pilot.press(*"fusion")
        await pilot.press("enter")
        tracks, found = trace.search("fusion")
        matches = list(zip(tracks.tolist(), found.tolist()))
        assert view.cursor == matches[0]
        await pilot.press("enter")
        assert view.cursor == matches[1]
        await pilot.press("shift+enter")
        assert view.cursor == matches[0]
        assert f"match 1 of {len(matches)}" in screen_text(app)
        await pilot.press("escape")
        assert not app.screen.query("#timeline-search") and view.has_focus
        await pilot.press("n", "n")
        assert view.cursor == matches[2]
        await pilot.press("N")
        assert view.cursor == matches[1]
        track = trace.tracks[matches[1][0]]
        start, end = track.event_span(matches[1][1])
        assert view.window.t0 <= start and end <= view.window.t1


async def test_marked_range_shows_its_aggregate():
    app = XlaTuiApp(FIXTURES / "transformer")
    async with app.run_test(size=SIZE) as pilot:
        view = await open_timeline(pilot)
        trace = app.workspace.trace
        track_index = next(k for k, t in enumerate(trace.tracks) if t.name.startswith("tf_XLAEigen"))
        track = trace.tracks[track_index]
        longest = int(np.argmax(track.dur_ns))
        view.show_event(track_index, longest)
        await pilot.press("m")
        await settle(pilot)
        span = track.event_span(longest)
        assert app.selection.time_range == span
        panel = app.screen.panel
        assert panel.showing_table
        expected = trace.aggregate(*span)
        assert [(row.name, row.count, row.total_ns) for row in panel.rows] == [
            (row.name, row.count, row.total_ns) for row in expected
        ]
        assert expected[0].count >= 1 and len(expected) > 1
        await pilot.press("shift+right", "shift+right")
        await settle(pilot)
        t0, t1 = app.selection.time_range
        assert t0 == span[0] and t1 > span[1]
        await pilot.press("f")  # the range marked last is what f fits, not the event it began on
        await settle(pilot)
        assert view.window.t0 <= t0 and view.window.t1 >= t1 - 1 and view.window.width < 1.01 * (t1 - t0)
        await pilot.press("escape")
        await settle(pilot)
        assert app.selection.time_range is None and not panel.showing_table


async def test_top_ops_table_and_jumping_to_an_op():
    app = XlaTuiApp(FIXTURES / "transformer")
    async with app.run_test(size=SIZE) as pilot:
        view, panel = await open_table(pilot, "t")
        expected = top_ops(app.workspace)
        assert [row.name for row in panel.rows] == [row.name for row in expected] and expected
        assert expected[0].name in screen_text(app)
        from tui.model.links import op_byte_rates, op_flop_rates, op_instructions
        from tui.widgets.trace_panel import giga

        instructions = op_instructions(app.workspace, expected)
        rates, bandwidths = op_flop_rates(expected, instructions), op_byte_rates(expected, instructions)
        k, rate = next((k, rate) for k, rate in enumerate(rates) if rate is not None)
        header, line = panel._table_line(1).text, panel._table_line(k + 2).text
        assert header.split()[-2:] == ["GFLOP/s", "GB/s"] and line.split()[-2:] == [giga(rate), giga(bandwidths[k])]
        copies = [k for k, ins in enumerate(instructions) if ins is not None and op_cost(ins).flops == 0 and bandwidths[k]]
        assert copies and all(rates[k] is None for k in copies)  # moves data only: a bandwidth, no FLOP rate
        assert [giga(r) for r in (1.219e13, 5.3e9, 5.396e5, 0.0)] == ["12,190", "5.3", "0.00054", "0"]  # no 1.219e+04
        panel.focus()
        await pilot.press("down", "enter")
        name = expected[1].name
        cursor = view.cursor
        assert view.has_focus and app.workspace.trace.tracks[cursor[0]].event_name(cursor[1]) == name
        await pilot.press("t")  # the table again
        await settle(pilot)
        row = 2 + 2 + 2  # the rule and info line, the title and header, then the third row
        await pilot.click(TracePanel, offset=(5, row))  # a click puts the cursor on a row
        assert panel.cursor == 2 and panel.has_focus
        await pilot.double_click(TracePanel, offset=(5, row))  # a double click is Enter on it
        cursor = view.cursor
        assert view.has_focus and app.workspace.trace.tracks[cursor[0]].event_name(cursor[1]) == expected[2].name


async def test_the_top_ops_table_takes_the_keys_and_sorts_by_each_column():
    """`t` opens the table with the keys (arrows, Enter), its ops by self time, as its header
    marks; `s` orders it by the next column, largest first (mean, min, max, GFLOP/s, GB/s,
    total, count, then self again); Enter takes the row shown; `t` again closes it and gives
    the keys back to the timeline."""
    app = XlaTuiApp(FIXTURES / "transformer")
    async with app.run_test(size=SIZE) as pilot:
        view, panel = await open_table(pilot, "t")
        rows = list(panel.rows)

        def shown() -> list[str]:
            return [panel._table_line(k + 2).text.split()[0] for k in range(len(rows))]

        assert panel.has_focus and panel.sort_by == "self" and "▼self" in panel._table_line(1).text
        assert shown() == [row.name for row in sorted(rows, key=lambda row: -row.self_ns)]
        await pilot.press("s", "s", "s", "s")
        assert panel.sort_by == "GFLOP/s"
        await pilot.press("s")
        bandwidths = panel.rates["GB/s"]
        assert panel.sort_by == "GB/s" and shown() == [rows[k].name for k in sorted(
            range(len(rows)), key=lambda k: -(bandwidths[k] if bandwidths[k] is not None else -1.0))]
        await pilot.press("s")
        assert panel.sort_by == "total" and "▼total" in panel._table_line(1).text
        assert shown() == [row.name for row in sorted(rows, key=lambda row: -row.total_ns)]
        await pilot.press("s")  # by count
        chosen = sorted(rows, key=lambda row: -row.count)[1].name
        await pilot.press("down", "enter")
        cursor = view.cursor
        assert view.has_focus and app.workspace.trace.tracks[cursor[0]].event_name(cursor[1]) == chosen
        await pilot.press("t")
        await settle(pilot)
        assert panel.showing_table and panel.has_focus
        await pilot.press("escape")  # the keys back to the timeline, the table still shown
        assert view.has_focus and panel.showing_table
        await pilot.press("t")
        assert not panel.showing_table and view.has_focus


async def an_op_then_back(pilot, view, panel, key: str, groups: list[str]) -> None:
    """In a group's ops: Enter on the first goes to its runs; `key` shows the groups again, and
    once more closes the table."""
    first_op = panel.rows[0].name
    await pilot.press("enter")
    cursor = view.cursor
    assert view.has_focus and pilot.app.workspace.trace.tracks[cursor[0]].event_name(cursor[1]) == first_op
    await pilot.press(key)
    await settle(pilot)
    assert [row.name for row in panel.rows] == groups
    await pilot.press(key)
    assert not panel.showing_table


async def test_op_time_by_category_and_a_categorys_ops():
    """`T`: the top ops added up by category (XProf's Op Profile, with its rate columns); Enter
    on a category lists its ops, Enter on one of those goes to its runs; `T` again: back to the
    categories."""
    from tui.model.links import group_rates, op_byte_rates, op_categories, op_flop_rates, op_instructions

    app = XlaTuiApp(FIXTURES / "transformer")
    async with app.run_test(size=SIZE) as pilot:
        view, panel = await open_table(pilot, "T")
        rows = top_ops(app.workspace)
        categories, of = op_categories(rows, op_instructions(app.workspace, rows))
        assert [row.name for row in panel.rows] == [c.name for c in categories] and len(categories) > 1
        assert "by category" in panel.title
        profile = app.screen._ops  # each category's FLOP/s and bytes/s: its ops' work over its time
        assert panel.rates == {"GFLOP/s": group_rates(categories, of, rows, op_flop_rates(rows, profile.instructions), profile.waits),
                               "GB/s": group_rates(categories, of, rows, op_byte_rates(rows, profile.instructions), profile.waits)}
        panel.focus()
        await pilot.press("down", "enter")
        second = categories[1].name
        assert [row.name for row in panel.rows] == [row.name for row, name in zip(rows, of) if name == second]
        assert panel.title.startswith(f" {second}:")
        await an_op_then_back(pilot, view, panel, "T", [c.name for c in categories])


async def test_op_time_by_name_scope_and_a_scopes_ops():
    """`p`: the top ops added up by JAX name scope, from where the scopes part (layer0, layer1,
    their gradients: `transpose(jvp(layer0))`); `+` a level deeper (attn, mlp), `-` back; Enter
    lists a scope's ops and Enter on one goes to its runs; `p` again: the scopes, then closed."""
    from tui.model.links import group_rates, op_flop_rates, op_instructions, op_scopes

    app = XlaTuiApp(FIXTURES / "transformer")
    async with app.run_test(size=SIZE) as pilot:
        view, panel = await open_table(pilot, "p")
        rows = top_ops(app.workspace)
        instructions = op_instructions(app.workspace, rows)
        scopes, of = op_scopes(rows, instructions, 2)
        assert [row.name for row in panel.rows] == [s.name for s in scopes] and "2 deep" in panel.title
        assert {"jit(train_step)/jvp(layer0)", "jit(train_step)/transpose(jvp(layer1))"} <= {s.name for s in scopes}
        assert sum(s.total_ns for s in scopes) == sum(r.total_ns for r in rows)  # every op once
        assert panel.rates["GFLOP/s"] == group_rates(scopes, of, rows, op_flop_rates(rows, instructions), app.screen._ops.waits)
        await pilot.press("plus")
        deeper = [row.name for row in panel.rows]
        assert "jit(train_step)/jvp(layer0)/mlp" in deeper and "jit(train_step)/jvp(layer0)/attn" in deeper
        await pilot.press("minus")
        assert [row.name for row in panel.rows] == [s.name for s in scopes]
        await pilot.press("enter")
        first = scopes[0].name
        assert [row.name for row in panel.rows] == [row.name for row, name in zip(rows, of) if name == first]
        assert panel.title.startswith(f" {first}:")
        await pilot.press("minus")  # the scope's ops: no levels to change
        assert panel.title.startswith(f" {first}:")
        await an_op_then_back(pilot, view, panel, "p", [s.name for s in scopes])


async def test_op_time_by_source_line_and_a_lines_ops():
    """`L`: the top ops added up by the line of Python their instruction came from; Enter lists
    a line's ops and Enter on one goes to its runs; `L` again: the lines, then closed."""
    from tui.model.links import group_rates, op_byte_rates, op_instructions, op_sources

    app = XlaTuiApp(FIXTURES / "transformer")
    async with app.run_test(size=SIZE) as pilot:
        view, panel = await open_table(pilot, "L")
        rows = top_ops(app.workspace)
        instructions = op_instructions(app.workspace, rows)
        lines, of = op_sources(rows, instructions)
        assert [row.name for row in panel.rows] == [line.name for line in lines] and "source line" in panel.title
        assert sum(line.total_ns for line in lines) == sum(r.total_ns for r in rows)  # every op once
        assert [row.total_ns for row in panel.rows] == sorted((row.total_ns for row in panel.rows), reverse=True)
        assert all(name == f"{ins.source[0]}:{ins.source[1]}" for name, ins in zip(of, instructions) if ins and ins.source)
        assert "examples/transformer.py:57" in of  # the attention's matmuls
        assert panel.rates["GB/s"] == group_rates(lines, of, rows, op_byte_rates(rows, instructions), app.screen._ops.waits)
        await pilot.press("enter")
        first = lines[0].name
        assert [row.name for row in panel.rows] == [row.name for row, name in zip(rows, of) if name == first]
        assert panel.title.startswith(f" {first}:")
        await an_op_then_back(pilot, view, panel, "L", [line.name for line in lines])


async def test_its_runs_from_the_details_screen_jump_to_the_occurrences():
    app = XlaTuiApp(FIXTURES / "transformer")
    async with app.run_test(size=SIZE) as pilot:
        view = await open_timeline(pilot)
        trace = app.workspace.trace
        name = top_ops(app.workspace)[0].name
        app.select(instruction=name)
        await pilot.press("2")
        await settle(pilot)
        assert isinstance(app.screen, DetailsScreen) and app.workspace.instruction.name == name
        await pilot.press("t")  # the details screen's "its runs in the timeline"
        await settle(pilot)
        assert isinstance(app.screen, TimelineScreen)
        tracks, found = occurrences(trace, "jit_train_step", name)
        assert view.cursor == (int(tracks[0]), int(found[0]))
        start, end = trace.tracks[int(tracks[0])].event_span(int(found[0]))
        assert view.window.t0 <= start and end <= view.window.t1
        assert view.window.width < (end - start) * 10
        assert f"match 1 of {len(found)}" in screen_text(app)
        await pilot.press("n")
        assert view.cursor == (int(tracks[1]), int(found[1]))
        app.show("timeline", instruction=trace.tracks[int(tracks[0])].event_name(int(found[0])))  # unchanged: stays
        await settle(pilot)
        assert view.cursor == (int(tracks[1]), int(found[1]))
        # An op whose runs are on several threads, the first thread's first not the earliest:
        # `t` lands on its first run in time (it took the first thread's), and again from
        # there, where the selection (the op, that run) does not change: its runs stay the matches.
        for again in (False, True):
            app.select(instruction="ynn_fusion.57")
            await pilot.press("2")
            await settle(pilot)
            if again:
                await pilot.press("escape")  # the search's matches cleared: `t` makes them again
            await pilot.press("t")
            await settle(pilot)
            tracks, found = occurrences(trace, "jit_train_step", "ynn_fusion.57")
            assert len(set(tracks.tolist())) > 1 and view.cursor == (int(tracks[0]), int(found[0]))
            assert f"match 1 of {len(found)}" in screen_text(app)


async def test_its_runs_before_the_timeline_was_ever_opened():
    """`t` on the details screen opens the timeline for the first time, the tracks still to
    decode: once they are, the op's first run in time, its runs the matches."""
    app = XlaTuiApp(FIXTURES / "transformer")
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        app.select(instruction="ynn_fusion.57")
        await pilot.press("2")
        await settle(pilot)
        await pilot.press("t")
        await settle(pilot)
        await settle(pilot)
        view = app.screen.view
        tracks, found = occurrences(app.workspace.trace, "jit_train_step", "ynn_fusion.57")
        assert view.cursor == (int(tracks[0]), int(found[0])) and f"match 1 of {len(found)}" in screen_text(app)


async def test_a_row_painted_before_the_views_resize_comes_is_the_windows_width(monkeypatch):
    """The terminal made narrower, and the view painting (a key, an op shown from another pane)
    before its resize has reached it: rows and ruler are painted in the window's own width (a
    ruler as wide as the old window on a row as wide as the new one once stopped the app), and
    once the resize comes, in the new width, as a fresh paint draws them."""
    app = XlaTuiApp(FIXTURES / "transformer")
    async with app.run_test(size=SIZE) as pilot:
        view = await open_timeline(pilot)
        resized = TimelineView.on_resize
        monkeypatch.setattr(TimelineView, "on_resize", lambda self: None)  # its Resize still queued
        await pilot.resize_terminal(60, 20)
        await settle(pilot)
        assert view.cells < view.window.cells
        name = top_ops(app.workspace)[0].name
        await pilot.press("1")
        app.show("timeline", instruction=name)
        await settle(pilot)
        await pilot.press("d", "right")
        await settle(pilot)
        assert view.trace.tracks[view.cursor[0]].event_name(view.cursor[1]) is not None
        resized(view)  # the resize arrives
        await settle(pilot)
        assert view.window.cells == view.cells
        shown = [list(view.render_line(y)) for y in range(view.size.height)]
        assert all(sum(len(text) for text, *_ in line) == view.size.width for line in shown)
        view._redraw()
        assert shown == [list(view.render_line(y)) for y in range(view.size.height)]


def _longest_on_the_client_row(view) -> tuple[int, int]:
    """(row, event): the PjRt client thread's first row and its longest outermost event."""
    row = first_row_of(view, "tf_XLAPjRtCpuClient/5463703682951342780")
    track = view.trace.tracks[view.rows[row].index]
    return row, int(np.argmax(track.dur_ns * (track.depth == 0)))


async def test_a_click_on_the_ruler_is_the_time_w_zooms_about():
    """A click on the ruler moves the cursor to that time, off the event it was on: W then
    zooms about the time clicked (the event's middle kept its column, the click was lost)."""
    app = XlaTuiApp(FIXTURES / "transformer")
    async with app.run_test(size=SIZE) as pilot:
        view = await open_timeline(pilot)
        row, event = _longest_on_the_client_row(view)
        view.show_event(view.rows[row].index, event)
        await settle(pilot)
        column = 20 if view.window.column(view.cursor_time) > 60 else 100
        await pilot.click(TimelineView, offset=(view.label_width + column, 0))
        await settle(pilot)
        clicked = view.window.time_at(column + 0.5)
        assert view.cursor[1] is None and view.cursor_time == pytest.approx(clicked)
        await pilot.press("w")
        await settle(pilot)
        assert view.window.column(clicked) == column


async def test_click_selects_and_drag_marks_a_range():
    app = XlaTuiApp(FIXTURES / "transformer")
    async with app.run_test(size=SIZE) as pilot:
        view = await open_timeline(pilot)
        row, event = _longest_on_the_client_row(view)
        start, end = view.trace.tracks[view.rows[row].index].event_span(event)
        column = view.window.column((start + end) / 2)
        y = view.header_height + row - int(view.scroll_offset.y)
        await pilot.click(TimelineView, offset=(view.label_width + column, y))
        await settle(pilot)
        assert view.cursor == (view.rows[row].index, event)
        assert app.selection.event == (view.rows[row].index, event)
        x0, x1 = view.label_width + 10, view.label_width + 40
        await pilot.mouse_down(TimelineView, offset=(x0, y))
        await pilot.hover(TimelineView, offset=(x1, y))
        await pilot.mouse_up(TimelineView, offset=(x1, y))
        await settle(pilot)
        t0, t1 = app.selection.time_range
        assert t0 == pytest.approx(view.window.time_at(10.5), abs=1) and t1 == pytest.approx(view.window.time_at(40.5), abs=1)
        assert app.screen.panel.showing_table


def _in_range_by_name(tracks, t0: int, t1: int) -> dict[str, tuple[int, int]]:
    """name -> (count, total ns) of the tracks' events inside [t0, t1) for a moment (start < t1,
    end > t0, or of no duration and starting in it), each its part inside the range, worked out
    event by event."""
    found: dict[str, tuple[int, int]] = {}
    for track in tracks:
        for i, (start, dur) in enumerate(zip(track.start_ns.tolist(), track.dur_ns.tolist())):
            if start < t1 and (start + dur > t0 or (dur == 0 and start >= t0)):
                count, total = found.get(track.event_name(i), (0, 0))
                found[track.event_name(i)] = (count + 1, total + min(start + dur, t1) - max(start, t0))
    return found


async def test_a_range_dragged_across_rows_counts_their_tracks_only():
    """As Perfetto's area selection: a drag across rows marks a range over the tracks on them
    (their rows get a bar, the panel names them and counts only their events); shift+down and
    shift+up move the area's last row, back to its first row: every track again; Esc clears."""
    app = XlaTuiApp(FIXTURES / "transformer")
    async with app.run_test(size=SIZE) as pilot:
        view = await open_timeline(pilot)
        trace = app.workspace.trace
        starts = [i for i, row in enumerate(view.rows) if row.kind == "track" and row.lane == 0]
        first, last = starts[1], starts[2]  # the first rows of the second and third tracks (an Eigen pool's threads)
        chosen = tuple(dict.fromkeys(view.rows[i].index for i in range(first, last + 1) if view.rows[i].kind in ("track", "instants")))
        assert len(chosen) == 2
        top = view.header_height - int(view.scroll_offset.y)
        x0, x1 = view.label_width + 5, view.label_width + 100
        await pilot.mouse_down(TimelineView, offset=(x0, top + first))
        await pilot.hover(TimelineView, offset=(x1, top + last))
        await pilot.mouse_up(TimelineView, offset=(x1, top + last))
        await settle(pilot)
        t0, t1 = app.selection.time_range
        assert view.marked_tracks == chosen
        panel = app.screen.panel
        assert f"over 2 tracks ({trace.tracks[chosen[0]].name}, {trace.tracks[chosen[1]].name})" in panel.title
        expected = _in_range_by_name([trace.tracks[k] for k in chosen], t0, t1)
        assert {row.name: (row.count, row.total_ns) for row in panel.rows} == expected
        everywhere = _in_range_by_name([t for t in trace.tracks if not t.derived], t0, t1)
        assert sum(c for c, _ in everywhere.values()) > sum(c for c, _ in expected.values())  # the check can fail
        marked = [y for y in range(view.header_height, view.size.height) if view.render_line(y).text.startswith("▌")]
        assert marked and all(view.rows[view._index_at(y)].index in chosen for y in marked)

        await pilot.press("shift+down")  # one row more: the area grows by that row's track
        await settle(pilot)
        grown = tuple(dict.fromkeys(view.rows[i].index for i in range(first, view.cursor_row + 1)
                                    if view.rows[i].kind in ("track", "instants")))
        assert view.marked_tracks == (grown if len(grown) > 1 else None) and app.selection.time_range == (t0, t1)
        for _ in range(view.cursor_row - first):
            await pilot.press("shift+up")
        await settle(pilot)
        assert view.cursor_row == first and view.marked_tracks is None  # one row: every track
        assert [(row.name, row.count) for row in panel.rows] == [(row.name, row.count) for row in trace.aggregate(t0, t1)]
        assert " over " not in panel.title
        await pilot.press("escape")
        await settle(pilot)
        assert view.marked is None and view.marked_tracks is None and app.selection.time_range is None


async def test_a_range_over_a_gpus_rows_counts_its_kernels_once():
    """A GPU's derived lines (XLA Modules, XLA Ops, name scopes, source lines) are its kernels
    again: a range swept over its rows counted each kernel three or four times (1,049 events
    where the stream has 276). The file's tracks are counted, as with the range on one row."""
    app = XlaTuiApp(FIXTURES / "gpu" / "gpu.xplane.pb", FIXTURES / "gpu")
    async with app.run_test(size=SIZE) as pilot:
        view = await open_timeline(pilot)
        trace = view.trace
        gpu = next(i for i, row in enumerate(view.rows) if row.kind == "group" and row.group.startswith("/device:GPU"))
        await move_to_row(pilot, view, gpu)
        await pilot.press("c")  # the GPU's rows in one
        await pilot.press("up", *["shift+right"] * 40, "shift+down")
        await settle(pilot)
        marked = [trace.tracks[k] for k in view.marked_tracks]
        assert any(track.derived for track in marked) and any(not track.derived for track in marked)
        t0, t1 = app.selection.time_range
        expected = _in_range_by_name([track for track in marked if not track.derived], t0, t1)
        assert expected and {row.name: (row.count, row.total_ns) for row in app.screen.panel.rows} == expected


async def test_a_counter_that_goes_negative_is_drawn_from_its_lowest_value(tmp_path):
    """A counter row spans its lowest value (below zero) to its highest, as Perfetto's counter
    track does: -1 between -4 and 2 is drawn half high (it was drawn from zero up, so every
    negative value read as no sample)."""
    path = tmp_path / "negative.trace.json"
    samples = [{"ph": "C", "pid": 1, "ts": ts, "name": "balance", "args": {"v": v}} for ts, v in ((0, -4), (100, 2), (200, -1))]
    path.write_text(json.dumps({"traceEvents": [*samples, {"ph": "X", "pid": 1, "tid": 1, "ts": 0, "dur": 300, "name": "run"}]}))
    app = XlaTuiApp(path)
    async with app.run_test(size=SIZE) as pilot:
        view = await open_timeline(pilot)
        counter = next(row for row in view.rows if row.kind == "counter")
        assert list(view.trace.counters[counter.index].value) == [-4, 2, -1]
        cells = view.render_line(view.rows.index(counter) + 1).text.split("│", 1)[1]  # the ruler is line 0
        thirds = [cells[k * len(cells) // 3 + 2 : (k + 1) * len(cells) // 3 - 2] for k in range(3)]
        assert [set(third) for third in thirds] == [{" "}, {"█"}, {"▄"}]


async def test_a_profile_alone_does_not_say_its_default_selection_has_no_events(corpus):
    """The op selected by default when a profile's program is parsed (its ROOT's computation's
    first op, here a name other programs ran) did not run in that program: nobody chose it, so
    no "has no events" line; an op the user selects that did not run still gets one."""
    app = XlaTuiApp(corpus / "traces" / "tracelens_jax08_rocm_attention.xplane.pb")
    async with app.run_test(size=SIZE) as pilot:
        view = await open_timeline(pilot)
        await settle(pilot)
        default = app.selection.instruction
        assert default in view.trace.names and not len(app.screen._occurrences(default)[1])
        assert "has no events" not in screen_text(app)
        idle = next(ins.name for ins in app.workspace.current.load().entry.instructions if ins.opcode == "parameter")
        app.select(instruction=idle)
        await settle(pilot)
        assert f"The selected instruction {idle} has no events in the profile" in screen_text(app)


async def test_m_on_an_event_of_no_duration_lists_it(tmp_path):
    """`m` on an event of no duration marks a moment: the events running then, it among them
    (it was left out: nothing starts before a range's start and ends after it)."""
    path = tmp_path / "zero.trace.json"
    path.write_text(json.dumps({"traceEvents": [{"ph": "X", "pid": 1, "tid": 1, "ts": 0, "dur": 100, "name": "outer"},
                                                {"ph": "X", "pid": 1, "tid": 1, "ts": 50, "dur": 0, "name": "zero"}]}))
    app = XlaTuiApp(path)
    async with app.run_test(size=SIZE) as pilot:
        view = await open_timeline(pilot)
        track = next(k for k, t in enumerate(view.trace.tracks) if not t.derived)
        view.show_event(track, next(i for i in range(2) if view.trace.tracks[track].event_name(i) == "zero"))
        await pilot.press("m")
        await settle(pilot)
        assert app.selection.time_range == (50_000, 50_000)
        assert sorted((row.name, row.count) for row in app.screen.panel.rows) == [("outer", 1), ("zero", 1)]


async def test_a_range_over_a_collapsed_groups_row_counts_the_groups_tracks():
    """A collapsed group's row stands for its tracks: shift+down onto it takes them all into a
    range marked (shift+right) on the row above it."""
    app = XlaTuiApp(FIXTURES / "gpu_scan" / "gpu_scan.xplane.pb", FIXTURES / "gpu_scan")
    async with app.run_test(size=SIZE) as pilot:
        view = await open_timeline(pilot)
        host = next(i for i, row in enumerate(view.rows) if row.kind == "group" and row.group == "/host:CPU")
        await move_to_row(pilot, view, host)
        await pilot.press("c")  # collapse the host's threads
        await pilot.press("up", "shift+right", "shift+down")
        await settle(pilot)
        above = view.rows[host - 1]
        host_tracks = [k for k, track in enumerate(view.trace.tracks) if track.group == "/host:CPU"]
        assert len(host_tracks) > 10 and view.cursor_row == host
        assert view.marked_tracks == (above.index, *host_tracks)
        t0, t1 = app.selection.time_range
        expected = _in_range_by_name([view.trace.tracks[k] for k in view.marked_tracks], t0, t1)
        assert expected and {row.name: (row.count, row.total_ns) for row in app.screen.panel.rows} == expected
        group_line = view.header_height + host - int(view.scroll_offset.y)
        assert view.render_line(group_line).text.startswith("▌")  # the group's row has the bar too


async def test_a_drag_from_a_pinned_row_counts_the_rows_it_sweeps_on_screen():
    """Pinned rows stay under the ruler while the others scroll: a drag from one of them down
    into the scrolled rows takes the rows it passes on screen, not those scrolled out of sight."""
    app = XlaTuiApp(FIXTURES / "gpu_scan" / "gpu_scan.xplane.pb", FIXTURES / "gpu_scan")
    async with app.run_test(size=SIZE) as pilot:
        view = await open_timeline(pilot)
        await pilot.press(*["down"] * 12, "P")  # pin a stream's row: it stays on top
        await settle(pilot)
        view.scroll_to(y=60, animate=False, immediate=True)
        await settle(pilot)
        shown = view._visible()
        assert view.fixed_rows and shown[view.fixed_rows] > 60  # rows scrolled out of sight between
        x, y0 = view.label_width + 10, view.header_height + view.fixed_rows - 1
        await pilot.mouse_down(TimelineView, offset=(x, y0))
        await pilot.hover(TimelineView, offset=(x + 80, y0 + 4))
        await pilot.mouse_up(TimelineView, offset=(x + 80, y0 + 4))
        await settle(pilot)
        swept = shown[view.fixed_rows - 1:view.fixed_rows + 4]
        assert view.marked_tracks == tuple(dict.fromkeys(view.rows[k].index for k in swept if view.rows[k].kind == "track"))


async def test_a_ranges_rows_are_followed_when_rows_above_them_fold():
    """The rows a range was marked across are found again after the rows above them change (a
    group collapsed): shift+down still grows the area from the row it was marked on."""
    app = XlaTuiApp(FIXTURES / "gpu_scan" / "gpu_scan.xplane.pb", FIXTURES / "gpu_scan")
    async with app.run_test(size=SIZE) as pilot:
        view = await open_timeline(pilot)
        host = next(i for i, row in enumerate(view.rows) if row.kind == "group" and row.group == "/host:CPU")
        first, last = view.rows[host + 1], view.rows[host + 2]
        await move_to_row(pilot, view, host + 1)
        await pilot.press("shift+right", "shift+down")
        await settle(pilot)
        assert view.marked_tracks == (first.index, last.index)
        await pilot.press("home", "c")  # fold the GPU's rows, above
        await settle(pilot)
        assert view.rows.index(first) < host and view.marked_tracks == (first.index, last.index)
        await pilot.press("shift+down")
        await settle(pilot)
        below = view.rows[view.rows.index(last) + 1]
        assert view.cursor_row == view.rows.index(below) and view.marked_tracks == (first.index, last.index, below.index)


async def test_a_drag_past_the_rows_or_onto_the_ruler_ends_on_the_nearest_row():
    app = XlaTuiApp(FIXTURES / "transformer")
    async with app.run_test(size=SIZE) as pilot:
        view = await open_timeline(pilot)
        top, x0, x1 = view.header_height, view.label_width + 5, view.label_width + 100
        assert len(view.rows) + top < SIZE[1] - 10  # lines below the last row to drag to

        async def drag(y0: int, y1: int) -> tuple[int, ...] | None:
            await pilot.mouse_down(TimelineView, offset=(x0, y0))
            await pilot.hover(TimelineView, offset=(x1, y1))
            await pilot.mouse_up(TimelineView, offset=(x1, y1))
            await settle(pilot)
            return view.marked_tracks

        def tracks(first: int, last: int) -> tuple[int, ...]:
            return tuple(dict.fromkeys(row.index for row in view.rows[first:last + 1] if row.kind == "track"))

        assert await drag(top + 7, top + len(view.rows) + 3) == tracks(7, len(view.rows) - 1)
        assert await drag(top + 10, 0) == tracks(0, 10)


async def test_a_range_over_counters_alone_counts_no_events_and_says_so():
    """Marked at the trace's start, before either counter's first sample: nothing to sum up,
    and the panel says why; no row of events is marked."""
    app = XlaTuiApp(FIXTURES / "gpu_scan" / "gpu_scan.xplane.pb", FIXTURES / "gpu_scan")
    async with app.run_test(size=SIZE) as pilot:
        view = await open_timeline(pilot)
        assert [row.kind for row in view.rows[-2:]] == ["counter", "counter"]
        await pilot.press("end", "up", "shift+right", "shift+down")  # the last two rows
        await settle(pilot)
        panel = app.screen.panel
        assert view.marked_tracks == () and view.marked_counters == tuple(row.index for row in view.rows[-2:])
        assert all(view.trace.counters[k].over(*view.marked) is None for k in view.marked_counters)
        assert panel.rows == [] and panel.title == " No counters to sum up here: none has a sample by its end"
        assert not any(view.render_line(y).text.startswith("▌") for y in range(view.header_height, view.size.height))


async def test_a_range_table_is_shown_only_for_the_range_marked_now():
    """Ranges are summed up in a worker: one marked otherwise (or cleared) since is not shown."""
    app = XlaTuiApp(FIXTURES / "transformer")
    async with app.run_test(size=SIZE) as pilot:
        view = await open_timeline(pilot)
        await move_to_row(pilot, view, 7)
        await pilot.press("shift+right", "shift+right", "shift+down")
        await settle(pilot)
        panel, screen = app.screen.panel, app.screen
        t0, t1 = app.selection.time_range
        title, rows = panel.title, panel.rows
        assert " over " in title and rows
        screen._range_ready(t0, t1, [], [], None)  # the same time, every track: not what is marked
        screen._range_ready(t0, t1 + 1, [], [], view.marked_tracks)
        assert panel.title == title and panel.rows == rows
        await pilot.press("escape")
        await settle(pilot)
        screen._range_ready(t0, t1, rows, [], view.marked_tracks)
        assert not panel.showing_table


async def test_a_range_marked_while_the_trace_decodes_keeps_its_table_once_decoded(monkeypatch):
    import threading

    from tui.model import trace as trace_module

    marked, decode_all = threading.Event(), trace_module.Trace.decode_all

    def held(self, progress=None):  # the tracks decode once the test has marked its range
        assert marked.wait(30)
        return decode_all(self, progress)

    monkeypatch.setattr(trace_module.Trace, "decode_all", held)
    app = XlaTuiApp(FIXTURES / "gpu_scan" / "gpu_scan.xplane.pb", FIXTURES / "gpu_scan")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("4")
        await pilot.pause()
        view = app.screen.view
        for _ in range(100):
            if view.rows:
                break
            await pilot.pause(0.05)
        assert view.lanes is None and len(view.rows) > 4  # still decoding
        top, x = view.header_height, view.label_width + 20
        await pilot.mouse_down(TimelineView, offset=(x, top + 1))
        await pilot.hover(TimelineView, offset=(x + 60, top + 4))
        await pilot.mouse_up(TimelineView, offset=(x + 60, top + 4))
        await pilot.pause()
        tracks = view.marked_tracks
        marked.set()
        await settle(pilot)
        await pilot.pause(0.2)
        panel = app.screen.panel
        assert view.lanes is not None and view.marked_tracks == tracks and tracks
        assert panel.showing_table and " over " in panel.title


async def test_the_wheel_scrolls_rows_zooms_with_ctrl_and_pans_with_shift():
    from textual import events

    app = XlaTuiApp(FIXTURES / "transformer")
    async with app.run_test(size=(140, 20)) as pilot:  # short: more rows than fit
        view = await open_timeline(pilot)
        await pilot.press("w", "w")
        y = view.header_height + 2

        async def wheel(kind, x: int, ctrl: bool = False, shift: bool = False) -> None:
            view.post_message(kind(view, x, y, 0, 0, 0, shift, False, ctrl, screen_x=x, screen_y=y))
            await settle(pilot)

        before = window(view)
        assert view.max_scroll_y > 0
        await wheel(events.MouseScrollDown, view.label_width + 5)
        assert view.scroll_offset.y > 0 and window(view) == before  # rows scrolled, time did not
        column = 30
        at = view.window.time_at(column + 0.5)
        await wheel(events.MouseScrollUp, view.label_width + column, ctrl=True)
        assert view.window.width == pytest.approx((before[1] - before[0]) * ZOOM_STEP)
        assert view.window.time_at(column + 0.5) == pytest.approx(at, abs=view.window.ns_per_cell)  # the pointer's time stays put
        await wheel(events.MouseScrollDown, view.label_width + column, ctrl=True)
        assert view.window.width == pytest.approx(before[1] - before[0])
        zoomed = window(view)
        await wheel(events.MouseScrollDown, view.label_width + column, shift=True)
        assert view.window.t0 - zoomed[0] == pytest.approx(PAN_STEP / 2 * (zoomed[1] - zoomed[0]))
        await wheel(events.MouseScrollLeft, view.label_width + column)
        assert window(view) == pytest.approx(zoomed)


async def test_groups_collapse_and_expand():
    app = XlaTuiApp(FIXTURES / "transformer")
    async with app.run_test(size=SIZE) as pilot:
        view = await open_timeline(pilot)
        rows = len(view.rows)
        assert view.rows[0].kind == "group"
        await pilot.press("c")
        assert [row.kind for row in view.rows] == ["group"] and "▸ /host:CPU" in screen_text(app)
        await pilot.press("enter")
        assert len(view.rows) == rows


async def test_shift_p_on_a_groups_head_pins_the_group_above_the_others():
    """On the H100 fixture: Shift+P on the device group's head puts the group (and all its rows)
    above the host's, the cursor staying on it; pinned again, it goes back to its place."""
    app = XlaTuiApp(FIXTURES / "gpu" / "gpu.xplane.pb", FIXTURES / "gpu")
    async with app.run_test(size=(160, 50)) as pilot:
        view = await open_timeline(pilot)
        every = list(view.rows)

        def groups() -> list[str]:
            return [row.group for row in view.rows if row.kind == "group"]

        first, *others = groups()
        last = others[-1]
        device_rows = [row for row in every if row.group == last]
        await move_to_row(pilot, view, every.index(device_rows[0]))  # the last group's head
        await pilot.press("P")
        assert groups() == [last, first, *others[:-1]] and view.pinned == [last] and view.pinned_rows == []
        assert view.rows[: len(device_rows)] == device_rows and sorted(view.rows) == sorted(every)
        assert view.current_row == device_rows[0]
        assert f"↑ {last}" in screen_text(app) and f"▾ {first}" in screen_text(app)
        await pilot.press("P")
        assert view.rows == every and view.pinned == [] and view.current_row == device_rows[0]


async def test_shift_p_on_a_row_pins_its_track_above_every_group():
    """As Perfetto pins one track: Shift+P on a GPU stream's row and on a host thread's puts the
    two side by side at the top, under their own head, each named with its group; the rest stay
    where they were without them. `c` there folds the pinned rows, and showing an event of a
    pinned track unfolds them; pinned again, each goes back to its place."""
    app = XlaTuiApp(FIXTURES / "gpu" / "gpu.xplane.pb", FIXTURES / "gpu")
    async with app.run_test(size=(160, 50)) as pilot:
        view = await open_timeline(pilot)
        trace, every = view.trace, list(view.rows)
        stream = next(row for row in reversed(every) if row.kind == "track" and row.group.startswith("/device:GPU"))
        host = next(row for row in every if row.kind == "track" and row.group.startswith("/host") and row.lane == 0
                    and trace.tracks[row.index].lanes == 1)
        stream_rows = [row for row in every if row.kind in ("track", "instants") and row.index == stream.index]
        await move_to_row(pilot, view, every.index(stream))
        await pilot.press("P")
        await move_to_row(pilot, view, view.rows.index(host))
        await pilot.press("P")
        assert view.pinned_rows == [("track", stream.index), ("track", host.index)] and view.pinned == []
        top = [Row("group", PINNED, -1), *stream_rows, host]
        assert view.rows[: len(top)] == top and view.current_row == host
        assert sorted(view.rows[len(top):]) == sorted(row for row in every if row not in top)  # nothing else moved
        assert [row for row in view.rows[len(top):] if row.kind == "group"] == [row for row in every if row.kind == "group"]
        text = screen_text(app)
        assert "▾ pinned rows" in text and f"CPU › {trace.tracks[host.index].name}"[:20] in text
        await move_to_row(pilot, view, len(view.rows) - 1)  # the rows below scroll; the pinned stay in sight
        assert view.scroll_offset.y > 0 and view.fixed_rows == len(top)
        assert [view._y_of(i) for i in range(len(top))] == [view.header_height + i for i in range(len(top))]
        assert view._y_of(len(view.rows) - 1) is not None and view._y_of(len(top)) is None
        assert "▾ pinned rows" in screen_text(app) and f"CPU › {trace.tracks[host.index].name}"[:20] in screen_text(app)
        await pilot.click(TimelineView, offset=(2, view.header_height + len(top) - 1))  # the host's pinned row
        assert view.current_row == host
        await pilot.press("c")
        assert view.rows[0] == Row("group", PINNED, -1) and view.rows[1] == Row("group", every[0].group, -1)
        assert view.current_row == Row("group", PINNED, -1) and "▸ pinned rows" in screen_text(app)
        view.show_event(stream.index, 0)
        assert view.rows[: len(top)] == top and view.current_row == stream_rows[int(trace.tracks[stream.index].depth[0])]
        await pilot.press("P")
        await move_to_row(pilot, view, view.rows.index(host))
        await pilot.press("P")
        assert view.rows == every and view.pinned_rows == [] and view.current_row == host
        assert "pinned rows" not in screen_text(app)
        counter = next(row for row in every if row.kind == "counter")  # an allocator's bytes: a counter pins too
        await move_to_row(pilot, view, every.index(counter))
        await pilot.press("P")
        assert view.rows[:2] == [Row("group", PINNED, -1), counter] and view.pinned_rows == [("counter", counter.index)]
        assert f"CPU › {trace.counters[counter.index].name}"[:20] in screen_text(app)
        await pilot.press("P")
        assert view.rows == every and view.pinned_rows == []
        for row in (stream, host, counter):  # Shift+P on the pinned rows' head puts them all back
            await move_to_row(pilot, view, view.rows.index(row))
            await pilot.press("P")
        assert len(view.pinned_rows) == 3
        await move_to_row(pilot, view, 0)
        await pilot.press("P")
        assert view.rows == every and view.pinned_rows == [] and view.cursor_row == 0


async def test_a_counter_under_the_cursor_is_summed_up_as_perfetto_sums_one_up():
    """On an allocator's counter row the panel gives its value at the cursor (left/right step to
    its changes), and over the window in view its first and last value, least, most and
    time-weighted mean (as Perfetto's area selection gives a counter's), and its highest; they
    follow a pan, and a marked range gets its own line. On a row with no event under the cursor
    they give way to what was loaded."""
    app = XlaTuiApp(FIXTURES / "gpu_scan")
    async with app.run_test(size=SIZE) as pilot:
        view = await open_timeline(pilot)
        trace, panel = view.trace, app.screen.panel
        row = max((r for r in view.rows if r.kind == "counter"), key=lambda r: len(trace.counters[r.index].time_ns))
        counter = trace.counters[row.index]
        await move_to_row(pilot, view, view.rows.index(row))
        top = int(np.argmax(counter.value))
        peak_ns = int(counter.time_ns[top])
        view.set_window(view.window.fit(peak_ns - 2_000_000, peak_ns + 2_000_000))  # the busiest stretch
        await pilot.pause()

        def shown() -> dict[str, str]:
            return {key: value for key, value, _ in panel.details}

        def held(t) -> float:
            return float(counter.value[counter.sample_at(t)])

        def summed(t0, t1) -> str:
            span = counter.over(t0, t1)
            return f"least {human_bytes(span.least)}, most {human_bytes(span.most)}, mean {human_bytes(span.mean)}"

        assert shown()["counter"].endswith(f"{counter.name}: {len(counter.time_ns):,} samples")
        assert shown()["at the cursor"].startswith(human_bytes(held(view.cursor_time)))
        assert summed(view.window.t0, view.window.t1) in shown()["in view"]
        assert shown()["highest"].startswith(f"{human_bytes(float(counter.value[top]))} at ")
        assert "at the cursor" in screen_text(app) and "time-weighted" in screen_text(app)
        start = view.cursor_time
        steps = [counter.next_change(start, 1)]
        steps.append(counter.next_change(steps[0], 1))
        await pilot.press("right", "right")  # to the counter's next two changes
        assert view.cursor_time == steps[1] and view.current_row == row
        assert shown()["at the cursor"].startswith(f"{human_bytes(held(steps[1]))} since ")
        await pilot.press("left")
        assert view.cursor_time == steps[0] and shown()["at the cursor"].startswith(human_bytes(held(steps[0])))
        before = shown()["in view"]
        await pilot.press("d", "d")
        assert shown()["in view"] != before and summed(view.window.t0, view.window.t1) in shown()["in view"]
        await pilot.press("shift+right", "shift+right")
        await pilot.press("up", "down")  # the range's table showed: back on the counter's row
        assert view.marked is not None and summed(*view.marked) in shown()["marked range"]
        await pilot.press("escape")  # the range let go
        await move_to_row(pilot, view, 0)  # a group's head: no event, no counter: what was loaded, not the counter
        assert view.current_row.kind == "group" and "counter" not in shown() and shown()["profile"]


async def test_a_lower_lane_scrolled_to_the_top_names_its_track():
    """Scrolled so that a track's name row is out of sight above, the first of its lanes in
    sight says whose it is (`↑ python3`); the lanes below it stay unlabelled, and scrolled one
    further, the label moves down with the top."""
    app = XlaTuiApp(FIXTURES / "gpu" / "gpu.xplane.pb", FIXTURES / "gpu")
    async with app.run_test(size=(160, 20)) as pilot:
        view = await open_timeline(pilot)
        trace = view.trace
        k = next(k for k, track in enumerate(trace.tracks) if track.name == "python3")
        lane = view.rows.index(Row("track", trace.tracks[k].group, k, 2))

        def label(y: int) -> str:
            return "".join(segment.text for segment in view.render_line(y))[: view.label_width].strip(" │")

        view.scroll_to(y=lane - 2, animate=False, immediate=True)  # the track's name row at the top
        await pilot.pause()
        assert label(view.header_height) == "python3" and label(view.header_height + 2) == ""
        for top in (lane, lane + 1):
            view.scroll_to(y=top, animate=False, immediate=True)
            await pilot.pause()
            assert view.scroll_offset.y == top and label(view.header_height) == "↑ python3" and label(view.header_height + 1) == ""
            assert "↑ python3" in screen_text(app)


async def test_r_keeps_the_rows_whose_names_hold_the_text_as_you_type():
    app = XlaTuiApp(FIXTURES / "transformer")
    async with app.run_test(size=SIZE) as pilot:
        view = await open_timeline(pilot)
        trace, every = view.trace, list(view.rows)
        await pilot.press("r", *"PYTH")
        assert {trace.tracks[row.index].name for row in view.rows if row.kind != "group"} == {"python"}
        assert [row.kind for row in view.rows][0] == "group" and len(view.rows) < len(every)
        await pilot.press("enter")  # back to the rows; the filter stays, and says so
        assert app.screen.focused is view and view.row_filter == "PYTH" and app.screen.query("#timeline-rows")
        await pilot.press("down", "right")
        assert view.cursor is not None and trace.tracks[view.cursor[0]].name == "python"
        await pilot.press("r", "backspace", "backspace", "backspace", "backspace", *"nothing like it")
        assert view.rows == [] and view.cursor is None
        await pilot.press("escape")  # in the box: every row again
        assert view.rows == every and not app.screen.query("#timeline-rows") and app.screen.focused is view


async def test_a_filter_that_hides_an_events_row_gives_way_when_the_event_is_shown(corpus):
    """On the 4-chip TPU profile: the XLA Ops of every chip and nothing else, then an event of a
    host thread shown from elsewhere (a search) brings every row back."""
    app = XlaTuiApp(corpus / "traces" / "xprof_tpu_v6e_inference_4chip.xplane.pb")
    async with app.run_test(size=SIZE) as pilot:
        view = await open_timeline(pilot)
        trace = view.trace
        await pilot.press("r", *"xla ops", "enter")
        shown = {row.index for row in view.rows if row.kind == "track"}
        assert shown == {k for k, t in enumerate(trace.tracks) if "xla ops" in (t.group + t.name).lower()}
        assert {trace.tracks[k].group for k in shown} == {f"/device:TPU:{n}" for n in range(4)}
        host = next(k for k, t in enumerate(trace.tracks) if t.group == "/host:CPU" and t.count)
        view.show_event(host, 0)
        assert view.row_filter == "" and view.cursor == (host, 0) and len(view.rows) > len(shown)


async def test_without_a_profile_the_screen_says_so():
    app = XlaTuiApp(FIXTURES / "mlp.hlo")
    async with app.run_test(size=(100, 24)) as pilot:
        view = await open_timeline(pilot)
        assert view.trace is None and view.rows == []
        assert "No profile loaded" in screen_text(app)
        await pilot.press("w", "d", "right", "enter", "slash")
        assert isinstance(app.screen, TimelineScreen)


async def test_decoding_runs_in_a_worker_and_tracks_appear_as_they_are_ready():
    """Loading decodes nothing; a profile opened alone opens on its timeline (as Perfetto does),
    whose worker decodes the tracks."""
    from tui.model.inputs import load_workspace

    path = FIXTURES / "transformer" / "profile" / "perfetto_trace.json.gz"
    assert not any(track.decoded for track in load_workspace([path]).trace.tracks)
    app = XlaTuiApp(path)
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await settle(pilot)
        assert isinstance(app.screen, TimelineScreen)
        assert all(track.decoded for track in app.workspace.trace.tracks)
        assert isinstance(app.screen.query_one(TracePanel), TracePanel)
        assert app.screen.view.lanes is not None
        await pilot.press("1")  # the programs it holds are a keypress away
        await settle(pilot)
        assert app.current_mode == "graph" and app.workspace.hlo is not None


# --- snapshots (committed fixture, two sizes) ----------------------------------------------------


async def _select_first_dot(pilot) -> None:
    view = await open_timeline(pilot)
    trace = pilot.app.workspace.trace
    tracks, found = trace.search("dot.")
    view.show_event(int(tracks[0]), int(found[0]))
    await pilot.press("enter")
    await settle(pilot)
    pilot.app.clear_notifications()  # the dump's own load warning, not this screen's
    await pilot.pause()


def test_timeline_overview_with_a_selected_op(snap_compare):
    assert snap_compare(XlaTuiApp(FIXTURES / "transformer"), terminal_size=(120, 36), run_before=_select_first_dot)


def test_timeline_zoomed_range_small(snap_compare):
    async def run_before(pilot) -> None:
        await _select_first_dot(pilot)
        await pilot.press("f", "m")
        await settle(pilot)

    assert snap_compare(XlaTuiApp(FIXTURES / "transformer"), terminal_size=(80, 24), run_before=run_before)


async def _a_gpu_step_fitted(pilot) -> None:
    """The H100 fixture's second step fitted to the screen (its `XLA Modules` run, then `f`),
    and an op selected on the derived `XLA Ops` line in the middle of it."""
    view = await open_timeline(pilot)
    trace = pilot.app.workspace.trace
    runs = next(k for k, track in enumerate(trace.tracks) if track.name == "XLA Modules - from #14")
    view.show_event(runs, 1)
    await pilot.press("f")
    await settle(pilot)
    await _choose_in_the_steps_middle(pilot, "XLA Ops - from #14")


async def _choose_in_the_steps_middle(pilot, track_name: str) -> None:
    """Enter on the event of a track of the H100 fixture in the middle of its second step."""
    view, trace = pilot.app.screen.view, pilot.app.workspace.trace
    runs, chosen = (next(k for k, track in enumerate(trace.tracks) if track.name == name)
                    for name in ("XLA Modules - from #14", track_name))
    middle = sum(trace.tracks[runs].event_span(1)) // 2
    view.show_event(chosen, int(np.searchsorted(trace.tracks[chosen].start_ns, middle)))
    await pilot.press("enter")
    await settle(pilot)
    pilot.app.clear_notifications()
    await pilot.pause()


@SIZES
def test_timeline_gpu_step_with_xprofs_derived_lines(snap_compare, size):
    app = XlaTuiApp(FIXTURES / "gpu" / "gpu.xplane.pb", FIXTURES / "gpu")
    assert snap_compare(app, terminal_size=size, run_before=_a_gpu_step_fitted)


async def _pinned_and_scrolled(pilot) -> None:
    """The H100 step fitted, its compute stream and a host thread pinned (Shift+P on each), then
    the cursor on the last row: the rows below scroll, the pinned stay under the ruler."""
    await _a_gpu_step_fitted(pilot)
    view, trace = pilot.app.screen.view, pilot.app.workspace.trace
    for name in ("Stream #14(Compute)", "Host Threads/900"):
        k = next(k for k, track in enumerate(trace.tracks) if track.name == name)
        await move_to_row(pilot, view, view.rows.index(Row("track", trace.tracks[k].group, k, 0)))
        await pilot.press("P")
    await move_to_row(pilot, view, len(view.rows) - 1)
    await settle(pilot)


@SIZES
def test_timeline_pinned_rows_stay_while_the_rest_scroll(snap_compare, size):
    app = XlaTuiApp(FIXTURES / "gpu" / "gpu.xplane.pb", FIXTURES / "gpu")
    assert snap_compare(app, terminal_size=size, run_before=_pinned_and_scrolled)


async def _a_kernels_flow_from_its_launch(pilot) -> None:
    """The H100 step fitted, `python3` pinned on top (Shift+P), then a kernel in the middle of
    the step chosen (Enter): its flow comes from the CUDA graph's launch on the pinned rows."""
    await _a_gpu_step_fitted(pilot)
    view, trace = pilot.app.screen.view, pilot.app.workspace.trace
    python = next(k for k, track in enumerate(trace.tracks) if track.name == "python3")
    await move_to_row(pilot, view, view.rows.index(Row("track", trace.tracks[python].group, python, 0)))
    await pilot.press("P")
    await _choose_in_the_steps_middle(pilot, "Stream #14(Compute)")


@SIZES
def test_timeline_a_kernels_flow_drawn_from_its_launch(snap_compare, size):
    app = XlaTuiApp(FIXTURES / "gpu" / "gpu.xplane.pb", FIXTURES / "gpu")
    assert snap_compare(app, terminal_size=size, run_before=_a_kernels_flow_from_its_launch)


def _drawn(view: TimelineView, index: int, column: int) -> str:
    """The character the screen shows in cell `column` of row `index`'s time axis (as the view's
    kept lines stand: a line not repainted when it should be shows what it showed before)."""
    line = screen_text(view.app).splitlines()[view.region.y + view._y_of(index)]
    return line[view.region.x + view.label_width + column]


def _flow_drawn(view: TimelineView) -> bool:
    """Whether a flow's line is on screen: any of its characters in the rows' time axis."""
    lines = screen_text(view.app).splitlines()
    left = view.region.x + view.label_width
    rows = lines[view.region.y + view.header_height:view.region.bottom]
    return any(char in "─│╮╯╰╭▶" for line in rows for char in line[left:left + view.window.cells])


def _expected_flow(view: TimelineView, earlier: tuple[int, int], later: tuple[int, int]) -> dict[tuple[int, int], str]:
    """(row, column) -> character of a flow from `earlier` to `later`, worked out from the
    events' times: along the earlier event's row from its last cell, down (or up) the column
    left of the later event's first cell, into it."""
    trace, window = view.trace, view.window
    (a_start, a_end), (b_start, _) = (trace.tracks[k].event_span(i) for k, i in (earlier, later))
    a_row, b_row = (view.rows.index(Row("track", trace.tracks[k].group, k, int(trace.tracks[k].depth[i])))
                    for k, i in (earlier, later))
    last = max(int((a_start - window.t0) // window.ns_per_cell), int(np.ceil((a_end - window.t0) / window.ns_per_cell)) - 1)
    turn = int((b_start - window.t0) // window.ns_per_cell) - 1
    assert 0 < turn < window.cells and a_row != b_row  # the flow is in view, between two rows
    down = b_row > a_row
    drawn = {(a_row, c): "─" for c in range(max(last + 1, 0), turn)}
    drawn |= {(r, turn): "│" for r in range(min(a_row, b_row) + 1, max(a_row, b_row))}
    drawn |= {(a_row, turn): "╮" if down else "╯", (b_row, turn): "╰" if down else "╭"}
    return drawn


async def test_a_chosen_kernels_flow_is_drawn_from_its_launch_and_follows_the_window():
    """Perfetto's flow arrow, in cells: the chosen kernel's line comes from the CUDA graph
    launch that queued it (they share a correlation id), wherever the window puts them; it goes
    when the cursor leaves the kernel."""
    app = XlaTuiApp(FIXTURES / "gpu" / "gpu.xplane.pb", FIXTURES / "gpu")
    async with app.run_test(size=(160, 45)) as pilot:
        await _a_kernels_flow_from_its_launch(pilot)
        view, trace = app.screen.view, app.workspace.trace
        kernel = view.cursor
        assert view.flows is not None and view.flows[0] == kernel and len(view.flows[1]) == 1
        launch = view.flows[1][0]
        assert trace.tracks[launch[0]].event_name(launch[1]).startswith("cuGraphLaunch")
        assert (trace.tracks[launch[0]].event_args(launch[1])["correlation_id"]
                == trace.tracks[kernel[0]].event_args(kernel[1])["correlation_id"])
        expected = _expected_flow(view, launch, kernel)
        assert {at: _drawn(view, *at) for at in expected} == expected
        await pilot.press("a")  # pan: the line moves with the events
        before, expected = expected, _expected_flow(view, launch, kernel)
        assert {at: _drawn(view, *at) for at in expected} == expected
        between = [at for at, char in before.items() if char == "│"]
        assert between and all(_drawn(view, *at) != "│" for at in between)  # not left where it was
        view.collapsed.add(PINNED)  # the launch's rows folded away: the line comes from their group's head
        view.refresh_rows()
        await pilot.pause()
        track = trace.tracks[kernel[0]]
        head, row = view.rows.index(Row("group", PINNED, -1)), view.rows.index(Row("track", track.group, kernel[0], int(track.depth[kernel[1]])))
        turn = int((track.start_ns[kernel[1]] - view.window.t0) // view.window.ns_per_cell) - 1
        assert [_drawn(view, r, turn) for r in range(head, row + 1)] == ["╮", *["│"] * (row - head - 1), "╰"]
        column = [_drawn(view, r, turn) for r in range(head, row + 1)]
        await pilot.press("right")  # the cursor leaves the kernel: its flow is not drawn
        assert "│" not in [_drawn(view, r, turn) for r in range(head + 1, row)]
        await pilot.press("left")  # back on it: drawn again
        assert view.cursor == kernel and [_drawn(view, r, turn) for r in range(head, row + 1)] == column
        await move_to_row(pilot, view, row - 1)
        await pilot.press("c")  # folds the cursor's group: the cursor is on its head, off the kernel
        assert view.cursor != kernel and not _flow_drawn(view)


async def test_a_launch_of_many_kernels_lists_and_draws_a_page_of_them_and_curly_brackets_mark_which_one_to_follow():
    """Perfetto's Ctrl+] / Ctrl+[ in a terminal: a CUDA graph's launch has hundreds of kernels;
    `}` / `{` mark its next / previous one, the page of eight holding it is listed and drawn,
    `]` follows the marked one, and the mark is kept for when `[` comes back to the launch."""
    app = XlaTuiApp(FIXTURES / "gpu" / "gpu.xplane.pb", FIXTURES / "gpu")
    async with app.run_test(size=(160, 45)) as pilot:
        await _a_kernels_flow_from_its_launch(pilot)
        view, trace, screen = app.screen.view, app.workspace.trace, app.screen
        kernel = view.cursor
        correlation = trace.tracks[kernel[0]].event_args(kernel[1])["correlation_id"]
        await pilot.press("left_square_bracket")  # to the CUDA graph's launch
        await settle(pilot)
        launch = view.cursor
        stream = trace.tracks[kernel[0]]
        kernels = [i for i in range(stream.count) if stream.event_args(i).get("correlation_id") == correlation]
        assert len(kernels) > 16

        def listed() -> list[tuple[str, str]]:
            return [(key, value.split(" on ")[0]) for key, value, _ in screen.panel.details if "flow " in key]

        assert view.flows == (launch, tuple((kernel[0], i) for i in kernels[:8]))
        n = len(kernels)
        assert listed() == [(f"▸ flow 1/{n}", f"→ {stream.event_name(kernels[0])}")] + [
            (f"flow {k + 1}/{n}", f"→ {stream.event_name(i)}") for k, i in enumerate(kernels[1:8], 1)]
        assert ("{ } mark another flow, [ ] follow the marked one (▸); the 8 around it are listed and drawn"
                in [value for _, value, _ in screen.panel.details])
        assert _flow_drawn(view)
        for _ in range(15):
            await pilot.press("right_curly_bracket")
        assert view.flows == (launch, tuple((kernel[0], i) for i in kernels[8:16]))  # the second page
        assert listed()[7] == (f"▸ flow 16/{n}", f"→ {stream.event_name(kernels[15])}")
        panel = screen.panel
        line = panel._detail_starts[[key for key, _, _ in panel.details].index(f"▸ flow 16/{n}")]
        assert line >= panel.window_height and panel.top <= line < panel.top + panel.window_height  # scrolled to it
        await pilot.pause()
        assert f"▸ flow 16/{n}" in screen_text(app)
        await pilot.press("right_square_bracket")  # follows the marked kernel, not the first
        await settle(pilot)
        assert view.cursor == (kernel[0], kernels[15])
        await pilot.press("left_square_bracket")  # back to the launch: its mark kept
        await settle(pilot)
        assert view.cursor == launch and listed()[7] == (f"▸ flow 16/{n}", f"→ {stream.event_name(kernels[15])}")
        await pilot.press("right_curly_bracket")  # on to the third page
        assert view.flows == (launch, tuple((kernel[0], i) for i in kernels[16:24]))
        await pilot.press("right_square_bracket")
        await settle(pilot)
        assert view.cursor == (kernel[0], kernels[16])
        await pilot.press("left_square_bracket")
        await settle(pilot)
        for _ in range(17):
            await pilot.press("left_curly_bracket")  # from the seventeenth, round to the last
        last = n - 1
        assert listed()[last % 8] == (f"▸ flow {n}/{n}", f"→ {stream.event_name(kernels[last])}")
        assert view.flows == (launch, tuple((kernel[0], i) for i in kernels[last - last % 8:]))
        await pilot.press("question_mark")  # the help names the keys as they are typed
        await pilot.pause()
        table = app.screen.query_one(Static).content
        keys, descriptions = (column._cells for column in table.columns)
        for key, description in (("}", "Mark the next flow"), ("{", "Mark the previous flow"), ("/", "Search")):
            assert description in descriptions and keys[descriptions.index(description)] == key


async def test_backspace_goes_back_through_the_events_chosen():
    """Backspace was not bound on the timeline. After following flows (a kernel, its launch,
    another of its kernels) it walks back through the events chosen, each chosen again (its
    details, its selection on every screen); with none earlier it stays and says so."""
    app = XlaTuiApp(FIXTURES / "gpu" / "gpu.xplane.pb", FIXTURES / "gpu")
    async with app.run_test(size=(160, 45)) as pilot:
        await _a_kernels_flow_from_its_launch(pilot)
        view, trace = app.screen.view, app.workspace.trace
        kernel = view.cursor
        await pilot.press("left_square_bracket")
        await settle(pilot)
        launch = view.cursor
        await pilot.press("right_curly_bracket", "right_square_bracket")
        await settle(pilot)
        other = view.cursor
        assert len({kernel, launch, other}) == 3
        await pilot.press("left", "left")  # moving the cursor chooses nothing
        for back_to in (other, launch, kernel):
            await pilot.press("backspace")
            await settle(pilot)
            assert view.cursor == back_to and app.selection.event == back_to
            track = trace.tracks[back_to[0]]
            assert app.screen.panel.details[0][1].startswith(track.event_name(back_to[1])[:20])
        for _ in range(4):  # back to the start of the walk (fitting the step chose events too)
            await pilot.press("backspace")
            await settle(pilot)
        first = view.cursor
        await pilot.press("backspace")
        await settle(pilot)
        assert view.cursor == first and any(t.message.startswith("No earlier event") for t in app._notifications)


async def test_a_flow_to_a_folded_group_is_drawn_only_if_the_row_filter_leaves_its_track_in_it():
    app = XlaTuiApp(FIXTURES / "gpu" / "gpu.xplane.pb", FIXTURES / "gpu")
    async with app.run_test(size=(160, 45)) as pilot:
        await _a_gpu_step_fitted(pilot)
        view, trace = app.screen.view, app.workspace.trace
        await move_to_row(pilot, view, view.rows.index(Row("group", "/host:CPU", -1)))
        await pilot.press("c")
        stream = next(k for k, track in enumerate(trace.tracks) if track.name == "Stream #14(Compute)")
        kernel = (stream, int(np.searchsorted(trace.tracks[stream].start_ns, (view.window.t0 + view.window.t1) // 2)))
        view.show_event(*kernel)
        await pilot.press("enter")
        await settle(pilot)
        head, row = view.rows.index(Row("group", "/host:CPU", -1)), view.cursor_row
        turn = int((trace.tracks[stream].start_ns[kernel[1]] - view.window.t0) // view.window.ns_per_cell) - 1
        assert head > row and [_drawn(view, r, turn) for r in range(row, head + 1)] == ["╭", *["│"] * (head - row - 1), "╯"]
        await pilot.press("r", "1", "enter")  # keeps Stream #14 and Host Threads/516: the launch's python3 goes
        await settle(pilot)
        assert view.cursor == kernel and view.flows is not None and Row("group", "/host:CPU", -1) in view.rows
        assert not _flow_drawn(view)


async def test_steps_counters_and_devices_of_a_gpu_profile(corpus):
    """A TensorFlow GPU profile: XProf's Steps line is marked under the ruler, allocator
    stats are drawn as counter rows, and the device's peak bandwidth is listed."""
    app = XlaTuiApp(corpus / "traces" / "xprof_demo_tf_gpu_multiworker_2020.xplane.pb")
    async with app.run_test(size=SIZE) as pilot:
        view = await open_timeline(pilot)
        trace = app.workspace.trace
        assert view.header_height == 2 and trace.steps
        assert "Steps" in screen_text(app).splitlines()[2]
        counters = [row for row in view.rows if row.kind == "counter"]
        assert len(counters) == len(trace.counters) > 0
        await pilot.press("escape")
        facts = {key: value for key, value, _ in app.screen.panel.details}
        assert "898 GB/s" in facts["device"]


async def test_lost_data_is_said_on_screen(tmp_path):
    from model.test_trace import EDGE_SPACE, xspace_file  # a hand-made XSpace: dropped events, cut steps

    app = XlaTuiApp(xspace_file(tmp_path, EDGE_SPACE))
    async with app.run_test(size=SIZE) as pilot:
        await open_timeline(pilot)
        text = screen_text(app)
        assert "data lost or skipped: 4 warning(s)" in text
        assert "1234 events dropped" in text and "cut off at the trace start" in text


def segment_at(strip, column: int):
    for segment in strip:
        if column < segment.cell_length:
            return segment
        column -= segment.cell_length
    raise AssertionError("past the end of the strip")


async def test_bars_and_busy_cells_are_drawn_in_their_ops_colour():
    from tui.model.trace_bins import bin_rows
    from tui.widgets.palette import CATEGORY_COLORS
    from tui.widgets.timeline_paint import COLOURS, name_colour

    app = XlaTuiApp(FIXTURES / "transformer")
    async with app.run_test(size=SIZE) as pilot:
        view = await open_timeline(pilot)
        trace = app.workspace.trace
        # Zoomed out: busy cells, drawn as shades in the colour of the event dominating them.
        busy_seen = 0
        for row_index, row in enumerate(view.rows):
            if row.kind != "track":
                continue
            lanes = trace.tracks[row.index].lane_index()
            cells = bin_rows(lanes, np.array([row.lane]), view.window.t0, view.window.ns_per_cell, view.cells)
            for column in np.flatnonzero(cells.shade[0] > 0).tolist():
                event = int(lanes.order[cells.left[0, column]])
                colour = COLOURS[name_colour(trace.tracks[row.index].event_name(event), view.op_names)]
                segment = segment_at(view._lines[row_index], view.label_width + column)
                assert segment.style.color.triplet.hex == colour
                busy_seen += 1
        assert busy_seen > 20
        # Zoomed in on a dot: a bar with its name, in the matmul colour.
        tracks, found = trace.search("dot.")
        track_index, event = int(tracks[0]), int(found[0])
        view.show_event(track_index, event)
        await pilot.press("f", "up")  # fit the dot, then leave it so it is not drawn as the cursor
        await pilot.pause()
        name = trace.tracks[track_index].event_name(event)
        depth = int(trace.tracks[track_index].depth[event])
        row = next(i for i, r in enumerate(view.rows) if (r.kind, r.index, r.lane) == ("track", track_index, depth))
        bar = next(segment for segment in view._lines[row] if name in segment.text)
        assert bar.style.bgcolor.triplet.hex == CATEGORY_COLORS["matmul"]


async def test_instant_events_are_drawn_on_rows_of_their_own(corpus):
    """Kineto's trace has threads with instants only ('Iteration Start', 'Record Window End', at
    the trace's very end): each gets a row of ▼ markers at their times, the cursor on it lists
    them in the panel, and walking the rows never selects an event there."""
    app = XlaTuiApp(corpus / "traces" / "non_xla" / "pytorch_kineto_torch_compile_triton.trace.json.gz")
    async with app.run_test(size=SIZE) as pilot:
        view = await open_timeline(pilot)
        trace = app.workspace.trace
        with_instants = {k for k, track in enumerate(trace.tracks) if len(track.instant_ns)}
        rows = [i for i, row in enumerate(view.rows) if row.kind == "instants"]
        assert with_instants and {view.rows[i].index for i in rows} == with_instants
        for i in rows:
            track = trace.tracks[view.rows[i].index]
            cells = "".join(segment.text for segment in view._lines[i])[view.label_width:]
            for ns, name_id in zip(track.instant_ns.tolist(), track.instant_name_id.tolist()):
                column = min(view.window.column(ns), view.cells - 1)
                assert cells[column] == "▼", trace.names[name_id]
        assert "▼Iteration Start: PyTorch Profiler" in screen_text(app)
        await move_to_row(pilot, view, rows[-1])
        assert view.cursor is None  # not an event row
        track = trace.tracks[view.rows[rows[-1]].index]
        listed = [value for _, value, _ in app.screen.panel.details]
        assert [trace.names[k] for k in track.instant_name_id.tolist()] == listed[1:]
        await pilot.press("pagedown", "down", "up", "right", "left", "pageup")
        assert view.cursor is None or view.cursor[0] in {k for k, t in enumerate(trace.tracks) if t.count}


def host_trace(tmp_path, *events: dict) -> Path:
    """A Chrome trace of `events` in a process named host (hand-written edge cases)."""
    path = tmp_path / "instants.trace.json"
    host = {"ph": "M", "name": "process_name", "pid": 1, "args": {"name": "host"}}
    path.write_text(json.dumps({"traceEvents": [host, *events]}))
    return path


async def test_instants_beside_events_and_sharing_a_cell(tmp_path):
    """Hand-written edge case: a thread with slices and instants gets an 'instants' row under its
    slices; two instants in one cell make one marker, in the first one's colour."""
    alone = {"ph": "i", "name": "alone", "pid": 1, "tid": 2, "ts": 250, "s": "t"}
    app = XlaTuiApp(host_trace(tmp_path, {"ph": "X", "name": "work", "pid": 1, "tid": 1, "ts": 0, "dur": 1000},
                               {"ph": "i", "name": "mark A", "pid": 1, "tid": 1, "ts": 500, "s": "t"},
                               {"ph": "i", "name": "mark B", "pid": 1, "tid": 1, "ts": 500.001, "s": "t"}, alone))
    async with app.run_test(size=SIZE) as pilot:
        view = await open_timeline(pilot)
        kinds = [(row.kind, view.trace.tracks[row.index].count if row.index >= 0 else None) for row in view.rows]
        assert ("track", 1) in kinds and ("instants", 1) in kinds and ("instants", 0) in kinds
        row = next(i for i, r in enumerate(view.rows) if r.kind == "instants" and view.trace.tracks[r.index].count)
        cells = "".join(segment.text for segment in view._lines[row])
        assert cells.count("▼") == 1 and "mark A" in cells and "mark B" not in cells
        assert "    instants" in cells[: view.label_width]
    # A trace of one instant and nothing else (no complete events, a span of zero): a row, no crash.
    app = XlaTuiApp(host_trace(tmp_path, alone))
    async with app.run_test(size=SIZE) as pilot:
        view = await open_timeline(pilot)
        assert [row.kind for row in view.rows] == ["group", "instants"]
        await pilot.press("down", "down", "right", "w", "s", "up")
        assert "▼alone" in screen_text(app)


async def test_search_and_arrows_find_instants_as_perfetto_finds_them(tmp_path):
    """Hand-written edge case: search finds instants among the events, in one time order (n / N
    put the cursor on the instant's row, at its time); on an instants row left/right step from
    instant to instant, and the panel says which one the cursor is on."""
    app = XlaTuiApp(host_trace(tmp_path, {"ph": "X", "name": "work", "pid": 1, "tid": 1, "ts": 0, "dur": 1000},
                               {"ph": "X", "name": "marking", "pid": 1, "tid": 1, "ts": 600, "dur": 10},
                               {"ph": "i", "name": "mark A", "pid": 1, "tid": 1, "ts": 500, "s": "t", "cat": "marks",
                                "args": {"step": 7, "why": "checkpoint"}},
                               {"ph": "i", "name": "mark C", "pid": 1, "tid": 1, "ts": 800, "s": "t"},
                               {"ph": "i", "name": "other", "pid": 1, "tid": 2, "ts": 300, "s": "t"}))
    async with app.run_test(size=SIZE) as pilot:
        view = await open_timeline(pilot)
        origin = view.trace.span[0]

        def at() -> tuple[str, int]:
            row = view.current_row
            if row.kind == "instants":
                return f"instant on {view.trace.tracks[row.index].name}", round(view.cursor_ns - origin)
            track, event = view.cursor
            return "event", int(view.trace.tracks[track].start_ns[event]) - origin

        def panel() -> dict:
            return {key: value for key, value, _ in app.screen.panel.details}

        view.cursor_ns = float(origin)
        await pilot.press("slash", *"mark", "enter")
        visited = [at()]
        for _ in range(3):
            await pilot.press("enter")
            visited.append(at())
        assert visited == [("instant on tid 1", 500_000), ("event", 600_000), ("instant on tid 1", 800_000),
                           ("instant on tid 1", 500_000)]
        assert panel()["at cursor"] == "mark A  match 1 of 3 (n / N)"
        # Its args and category, as Perfetto lists a selected instant's; one with none lists none.
        assert (panel()["  step"], panel()["  why"], panel()["  cat"]) == ("7", "checkpoint", "marks")
        await pilot.press("shift+enter")
        assert at() == ("instant on tid 1", 800_000) and panel()["at cursor"].startswith("mark C")
        assert not any(key.startswith("  ") for key in panel())
        await pilot.press("escape", "left")  # on the instants row: the previous instant, not a pan
        assert at() == ("instant on tid 1", 500_000)
        window = view.window
        await pilot.press("left")  # none before it: nothing moves
        assert at() == ("instant on tid 1", 500_000) and view.window == window
        await pilot.press("right")
        assert at() == ("instant on tid 1", 800_000) and panel()["at cursor"].startswith("mark C")
        await pilot.press("slash", *"nothing like it", "enter")
        assert "No event name contains 'nothing like it'" in screen_text(app)


async def test_gpu_kernels_take_the_colour_of_the_op_they_ran(corpus):
    """A ROCm profile: `Cijk_…` kernels ran `custom-call.1` (a GEMM library call), `….kd`
    kernels ran fusions; each kernel is drawn in its op's category colour, not a host colour."""
    from tui.model.links import kernel_op_names
    from tui.widgets.timeline_paint import name_colour

    app = XlaTuiApp(corpus / "traces" / "tracelens_jax08_rocm_attention.xplane.pb")
    async with app.run_test(size=SIZE) as pilot:
        view = await open_timeline(pilot)
        trace = app.workspace.trace
        kernels = kernel_op_names(trace)
        assert {op for kernel, op in kernels.items() if kernel.startswith("Cijk_")} == {"custom-call.1"}
        colours = view._name_colours()
        for kernel, op in kernels.items():
            assert colours[trace.names.index(kernel)] == name_colour(op, view.op_names)
        assert any(name_colour(kernel, view.op_names) != name_colour(op, view.op_names) for kernel, op in kernels.items())


async def test_top_ops_keep_programs_that_reuse_an_op_name_apart(corpus):
    """Two programs of a ROCm profile both ran an op of one name: the top-ops table lists it
    once per program (a program column appears), and Enter on a row goes through that
    program's runs alone."""
    app = XlaTuiApp(corpus / "traces" / "tracelens_jax08_rocm_attention.xplane.pb")
    async with app.run_test(size=SIZE) as pilot:
        view = await open_timeline(pilot)
        await pilot.press("t")
        await settle(pilot)
        panel = app.screen.panel
        trace = app.workspace.trace
        names = [row.name for row in panel.rows]
        shared = next(name for name in names if names.count(name) > 1)
        rows = [k for k, row in enumerate(panel.rows) if row.name == shared]
        assert len({panel.rows[k].program for k in rows}) == len(rows) and all(panel.rows[k].program for k in rows)
        assert "program" in screen_text(app)
        row, both = panel.rows[rows[1]], sum(panel.rows[k].count for k in rows)
        panel.focus()
        await pilot.press(*["down"] * rows[1], "enter")
        tracks, found = occurrences(trace, row.program, shared)
        assert len(found) == row.count < both
        assert view.has_focus and view.cursor in set(zip(tracks.tolist(), found.tolist()))
        assert view.matches[1].tolist() == found.tolist()


async def test_flows_link_a_gpu_kernel_and_its_launch(corpus):
    """XProf's flow arrows: a kernel and the host call that launched it share a correlation_id.
    The selected kernel lists its launch; `[` goes to it and `]` comes back."""
    app = XlaTuiApp(corpus / "traces" / "tracelens_jax08_rocm_attention.xplane.pb")
    async with app.run_test(size=(160, 45)) as pilot:
        view = await open_timeline(pilot)
        trace = app.workspace.trace
        stream = next(k for k, t in enumerate(trace.tracks) if t.name.startswith("Stream") and t.count)
        kernel = (stream, 5)
        view.show_event(*kernel)
        await pilot.press("enter")
        await settle(pilot)
        flows = [value for key, value, _ in app.screen.panel.details if key == "flow"]
        assert len(flows) == 1 and flows[0].startswith("← ") and "/host:CPU" in flows[0]
        correlation = trace.tracks[stream].event_args(5)["correlation_id"]
        assert view.flows is not None and view.flows[0] == kernel  # drawn, to the launch
        await pilot.press("left_square_bracket")
        await settle(pilot)
        launch = view.cursor
        assert view.flows == (launch, (kernel,))
        assert launch != kernel and trace.tracks[launch[0]].group == "/host:CPU"
        assert trace.tracks[launch[0]].event_args(launch[1])["correlation_id"] == correlation
        assert trace.tracks[launch[0]].start_ns[launch[1]] <= trace.tracks[stream].start_ns[5]
        await pilot.press("right_square_bracket")
        await settle(pilot)
        assert view.cursor == kernel and app.selection.event == kernel


async def test_a_tpu_program_run_flows_back_to_its_enqueue(corpus):
    """XProf's producer/consumer arrows: a device's `XLA Modules` run lists the host's
    `DoEnqueueProgram` that queued it; `[` goes there and `]` comes back."""
    app = XlaTuiApp(corpus / "traces" / "xprof_tpu_v6e_inference_4chip.xplane.pb")
    async with app.run_test(size=(160, 45)) as pilot:
        view = await open_timeline(pilot)
        trace = app.workspace.trace
        runs = next(k for k, t in enumerate(trace.tracks) if (t.group, t.name) == ("/device:TPU:0", "XLA Modules"))
        run = (runs, 10)
        view.show_event(*run)
        await pilot.press("enter")
        await settle(pilot)
        flows = [value for key, value, _ in app.screen.panel.details if key == "flow"]
        assert len(flows) == 1 and flows[0].startswith("← DoEnqueueProgram on /host:CPU")
        await pilot.press("left_square_bracket")
        await settle(pilot)
        enqueue = view.cursor
        assert trace.tracks[enqueue[0]].event_name(enqueue[1]) == "DoEnqueueProgram" and app.selection.event == enqueue
        assert trace.tracks[enqueue[0]].start_ns[enqueue[1]] < trace.tracks[runs].start_ns[10]
        await pilot.press("right_square_bracket")
        await settle(pilot)
        assert view.cursor == run and app.selection.event == run


async def test_events_without_flows_offer_none():
    app = XlaTuiApp(FIXTURES / "transformer")
    async with app.run_test(size=SIZE) as pilot:
        view = await open_timeline(pilot)
        await _select_first_dot(pilot)
        before = view.cursor
        assert not any(key == "flow" for key, _, _ in app.screen.panel.details)
        await pilot.press("right_square_bracket")
        assert view.cursor == before and "Follow flow" not in screen_text(app)


async def test_flows_in_a_pytorch_profiler_trace(corpus):
    """Kineto's JSON links a launch and its kernel by a `correlation` arg: the same flows."""
    app = XlaTuiApp(corpus / "traces" / "non_xla" / "pytorch_kineto_torch_compile_triton.trace.json.gz")
    async with app.run_test(size=(160, 45)) as pilot:
        view = await open_timeline(pilot)
        trace = app.workspace.trace
        launch = next((k, i) for k, t in enumerate(trace.tracks) for i in range(t.count)
                      if t.event_name(i) == "hipModuleLaunchKernel")
        view.show_event(*launch)
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("right_square_bracket")
        await settle(pilot)
        kernel = view.cursor
        assert kernel != launch and trace.tracks[kernel[0]].name.startswith("stream")
        args = trace.tracks[kernel[0]].event_args(kernel[1])
        assert args["correlation"] == trace.tracks[launch[0]].event_args(launch[1])["correlation"]


async def test_a_cuda_graph_kernel_opens_the_fusion_it_ran_and_back():
    """On the H100 fixture every kernel names the command buffer as its op: Enter on a run of a
    kernel several fusions share (the third of them) selects the fusion XLA ran there, and `t` in
    its details shows exactly that fusion's runs."""
    from tui.model.links import find_instruction, kernel_ops, kernel_tracks

    app = XlaTuiApp(FIXTURES / "gpu" / "gpu.xplane.pb", FIXTURES / "gpu")
    async with app.run_test(size=SIZE) as pilot:
        view = await open_timeline(pilot)
        trace = app.workspace.trace
        (k,) = kernel_tracks(trace)
        codes, ops = kernel_ops(trace.tracks[k])
        i = next(i for i, code in enumerate(codes.tolist()) if ops[code].endswith("#2") and "fusion" in ops[code])
        fusion = find_instruction(app.workspace.main.load(), ops[codes[i]])
        assert fusion.name != trace.tracks[k].event_name(i).replace("_", ".")
        view.show_event(k, i)
        await pilot.press("enter")
        await settle(pilot)
        assert app.selection.event == (k, i) and app.selection.instruction == fusion.name
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, DetailsScreen) and app.workspace.instruction is fusion
        await pilot.press("t")
        await settle(pilot)
        assert isinstance(app.screen, TimelineScreen)
        runs = list(zip(*(a.tolist() for a in occurrences(trace, None, fusion))))
        assert len(runs) == 3 and (k, i) in runs
        assert view.cursor in runs


async def test_k_lists_the_gpu_kernels_with_their_launch_and_ops():
    """XProf's GPU Kernel Stats on the H100 fixture: a row per kernel, its launch from the
    profiler's `kernel_details`, the fusions it ran; Enter makes its runs the matches."""
    from tui.model.links import stream_tracks

    app = XlaTuiApp(FIXTURES / "gpu" / "gpu.xplane.pb", FIXTURES / "gpu")
    async with app.run_test(size=(200, 50)) as pilot:
        view = await open_timeline(pilot)
        trace = app.workspace.trace
        await pilot.press("k")
        await settle(pilot)
        panel = app.screen.panel
        (stream,) = stream_tracks(trace)
        track = trace.tracks[stream]
        kernels = [i for i in range(track.count) if not track.event_name(i).lower().startswith(("memcpy", "memset"))]
        assert panel.has_focus and sum(row.count for row in panel.rows) == len(kernels) < track.count  # not its copies
        assert panel.sort_by == "total" and [row.total_ns for row in panel.rows] == sorted((row.total_ns for row in panel.rows), reverse=True)
        shared = next(k for k, row in enumerate(panel.rows) if row.name == "input_reduce_fusion_1")
        assert panel.notes[shared].startswith("grid 1,1,1 block 1024,1,1 24 regs")
        assert "  4 ops: input_reduce_fusion.1, " in panel.notes[shared]
        assert "input_reduce_fusion_1" in screen_text(app) and "launch" in screen_text(app)
        for _ in range(shared):
            await pilot.press("down")
        await pilot.press("enter")
        await settle(pilot)
        runs = [i for i in range(track.count) if track.event_name(i) == "input_reduce_fusion_1"]
        assert len(runs) == 12 and view.cursor == (stream, runs[0])
        await pilot.press("k")  # the table again, then k closes it
        await settle(pilot)
        assert panel.showing_table
        await pilot.press("k")
        await settle(pilot)
        assert not panel.showing_table


def steps_over_gpus(path, gpus: int) -> None:
    """By hand, PyTorch's naming: a `Steps` line of three steps (20-120, 120-180 and 180-260 us)
    on GPU 0's process, and on each GPU's stream a kernel per step; GPU g's kernels run
    30 + 10g, 45 - 10g and 80 - 10g us of its step."""
    import json

    events = [{"ph": "M", "pid": 100, "tid": 1, "name": "thread_name", "args": {"name": "Steps"}}]
    for name, start, dur in (("1", 20, 100), ("2", 120, 60), ("3", 180, 80)):
        events.append({"ph": "X", "pid": 100, "tid": 1, "name": name, "ts": start, "dur": dur, "cat": "step"})
    for g in range(gpus):
        events += [{"ph": "M", "pid": 100 + g, "name": "process_name", "args": {"name": f"python (GPU {g})"}},
                   {"ph": "M", "pid": 100 + g, "tid": 7, "name": "thread_name", "args": {"name": "stream 7"}}]
        for start, dur in ((20, 30 + 10 * g), (120, 45 - 10 * g), (180, 80 - 10 * g)):
            events.append({"ph": "X", "pid": 100 + g, "tid": 7, "name": "gemm", "ts": start, "dur": dur, "cat": "kernel"})
    events.append({"ph": "X", "pid": 1, "tid": 1, "name": "host", "ts": 0, "dur": 300})  # the steps are inside the trace
    path.write_text(json.dumps({"traceEvents": events}))


async def test_the_steps_median_of_an_even_count_is_the_middle_twos_mean(tmp_path):
    """Hand-written: four steps of 100, 60, 80 and 90 us: the median is 85 us (it read 90, the
    upper middle one, and every 'vs median' with it)."""
    import json

    events = [{"ph": "M", "pid": 100, "tid": 1, "name": "thread_name", "args": {"name": "Steps"}}]
    start = 20
    for name, dur in (("1", 100), ("2", 60), ("3", 80), ("4", 90)):
        events.append({"ph": "X", "pid": 100, "tid": 1, "name": name, "ts": start, "dur": dur, "cat": "step"})
        start += dur
    events.append({"ph": "X", "pid": 1, "tid": 1, "name": "host", "ts": 0, "dur": 400})
    path = tmp_path / "steps.json"
    path.write_text(json.dumps({"traceEvents": events}))
    app = XlaTuiApp(path)
    async with app.run_test(size=(120, 30)) as pilot:
        view, panel = await open_table(pilot, "g")
        assert [row.name for row in panel.rows] == ["1", "2", "3", "4"]
        assert "4 steps, median 85 us (60 us to 100 us)" in screen_text(app)
        assert [panel._table_line(k + 2).text.split()[5] for k in range(4)] == ["+18%", "-29%", "-6%", "+6%"]


async def test_g_lists_the_steps_with_how_busy_each_device_was(tmp_path):
    """XProf's step-time graph as a table: a row per step in time order with its start, time,
    difference from the median and each GPU's busy share; `s` orders by time, Enter zooms to
    the step and makes the steps the matches (n: the next in time); `g` closes it."""
    path = tmp_path / "steps.json"
    steps_over_gpus(path, 2)
    app = XlaTuiApp(path)
    async with app.run_test(size=(120, 30)) as pilot:
        view, panel = await open_table(pilot, "g")
        assert panel.has_focus and [row.name for row in panel.rows] == ["1", "2", "3"]
        header = panel._table_line(1).text.split()
        assert header == ["name", "start", "time", "vs", "median", "GPU", "0", "GPU", "1"]
        lines = [panel._table_line(k + 2).text.split() for k in range(3)]
        assert lines == [["1", "20", "us", "100", "us", "+25%", "30.0%", "40.0%"],  # median 80 us
                         ["2", "120", "us", "60", "us", "-25%", "75.0%", "58.3%"],
                         ["3", "180", "us", "80", "us", "+0%", "100.0%", "87.5%"]]
        assert "3 steps, median 80 us (60 us to 100 us)" in screen_text(app)
        await pilot.press("s")
        assert panel.sort_by == "time" and [panel._table_line(k + 2).text.split()[0] for k in range(3)] == ["1", "3", "2"]
        await pilot.press("s", "s")  # by GPU 0's share, then GPU 1's
        assert panel.sort_by == "GPU 1" and [panel._table_line(k + 2).text.split()[0] for k in range(3)] == ["3", "2", "1"]
        await pilot.press("up", "enter")  # the cursor stayed on step 1, now last: up to step 2
        trace = app.workspace.trace
        steps = next(k for k, track in enumerate(trace.tracks) if track.name == "Steps")
        assert view.has_focus and view.cursor == (steps, 1)
        t0, t1 = window(view)
        assert t0 <= 120_000 and t1 >= 180_000 and t1 - t0 < 2 * 60_000  # fitted to the step
        await pilot.press("n")
        assert view.cursor == (steps, 2) and len(view.matches[1]) == 3
        t0, t1 = window(view)
        assert t0 <= 180_000 and t1 >= 260_000 and t1 - t0 < 2 * 80_000  # step 3, longer, zoomed to whole
        await pilot.press("g")
        await settle(pilot)
        assert panel.showing_table and panel.rows[0].name == "1"
        await pilot.press("g")
        assert not panel.showing_table and view.has_focus


async def test_g_on_many_devices_gives_the_least_mean_and_most_busy(tmp_path):
    """Past four devices, the busy columns are the least, mean and most busy device's share, and
    a note names the two least busy devices."""
    path = tmp_path / "steps.json"
    steps_over_gpus(path, 5)
    app = XlaTuiApp(path)
    async with app.run_test(size=(160, 30)) as pilot:
        _, panel = await open_table(pilot, "g")
        assert panel._table_line(1).text.split()[-9:] == ["min", "busy", "mean", "busy", "max", "busy", "least", "busy", "devices"]
        shares = [[(30 + 10 * g) / 100 for g in range(5)], [(45 - 10 * g) / 60 for g in range(5)],
                  [(80 - 10 * g) / 80 for g in range(5)]]
        for k, each in enumerate(shares):
            cells = panel._table_line(k + 2).text.split()
            assert cells[6:9] == [f"{min(each):.1%}", f"{sum(each) / 5:.1%}", f"{max(each):.1%}"]
        assert panel.notes[1] == "GPU 4 8.3%, GPU 3 25.0%"


async def test_g_on_a_tensorflow_gpu_profile_matches_the_summary(corpus):
    """The TF GPU profile's one step (XProf's `Steps` line): its time and each device's busy
    share, as `--summary --json` gives them (which a test checks against ProfileData)."""
    from tui.model.summary import summarize

    path = corpus / "traces" / "xprof_demo_tf_gpu_multiworker_2020.xplane.pb"
    app = XlaTuiApp(path)
    async with app.run_test(size=(200, 40)) as pilot:
        _, panel = await open_table(pilot, "g")
        (step,) = summarize(app.workspace)["trace"]["steps"]["each"]
        cells = panel._table_line(2).text.split()
        assert cells[0] == step["name"] and [b["device"] for b in step["busy"]] == ["/device:GPU:1", "/device:GPU:4", "/device:GPU:6"]
        assert cells[-3:] == [f"{b['share']:.1%}" for b in step["busy"]] and cells[-2] == "74.9%"
        assert panel._table_line(1).text.split()[-3:] == ["GPU:1", "GPU:4", "GPU:6"]
        assert panel.title.startswith(" 1 step, median 21.31 ms (21.31 ms to 21.31 ms)")  # GPU:6's, the slower


async def test_once_decoded_the_facts_say_how_busy_the_devices_were_and_the_steps_times(corpus):
    """XProf's overview in brief, below the tracks while nothing is selected: each device's busy
    share over its own span and the steps' times, as `--summary` gives them; `g` then lists the
    steps worked out with the decoding. A CPU profile has neither line."""
    from tui.model.summary import summarize
    from tui.model.timescale import format_ns

    app = XlaTuiApp(corpus / "traces" / "xprof_demo_tf_gpu_multiworker_2020.xplane.pb")
    async with app.run_test(size=(200, 50)) as pilot:
        await open_timeline(pilot)
        facts = dict((key, value) for key, value, _ in app.screen.panel.details)
        trace = summarize(app.workspace)["trace"]
        busy = ", ".join(f"{b['device'].removeprefix('/device:')} {b['share']:.1%} of {format_ns(round(b['window_us'] * 1000), 4)}"
                         for b in trace["busy"])
        assert facts["devices busy"] == busy + " (from each one's first event to its last)"
        assert facts["steps"].startswith(f"{trace['steps']['count']}, mean {format_ns(trace['steps']['mean_us'] * 1000, 4)}")
        steps = app.screen._overview
        await pilot.press("g")
        assert app.screen._steps[1] is steps and app.screen.panel.showing_table

    app = XlaTuiApp(FIXTURES / "transformer")
    async with app.run_test(size=SIZE) as pilot:
        await open_timeline(pilot)
        facts = [key for key, _, _ in app.screen.panel.details]
        assert "events" in facts and "devices busy" not in facts and "steps" not in facts


async def test_g_says_when_a_profile_has_no_steps():
    app = XlaTuiApp(FIXTURES / "transformer")
    async with app.run_test(size=SIZE) as pilot:
        _, panel = await open_table(pilot, "g")
        assert panel.rows == [] and "No steps in this profile" in screen_text(app)


async def test_k_says_when_a_profile_has_no_gpu():
    app = XlaTuiApp(FIXTURES / "transformer")
    async with app.run_test(size=SIZE) as pilot:
        await open_timeline(pilot)
        await pilot.press("k")
        await settle(pilot)
        assert app.screen.panel.rows == [] and "No GPU kernels in this profile" in screen_text(app)


async def test_t_on_a_gpu_scan_leaves_the_autotuning_out_and_enter_finds_a_slices_runs():
    """The scan fixture, profiled from its first call: `t` lists the step's ops alone and says
    what XLA's autotuning took; Enter on a weight slice (a memcpy node of a loop body's CUDA
    graph) makes its 12 runs the matches."""
    app = XlaTuiApp(FIXTURES / "gpu_scan" / "gpu_scan.xplane.pb", FIXTURES / "gpu_scan")
    async with app.run_test(size=(200, 50)) as pilot:
        view = await open_timeline(pilot)
        await pilot.press("t")
        await settle(pilot)
        panel = app.screen.panel
        assert panel.showing_table and "XLA's autotuning left out:" in screen_text(app)
        assert {row.program for row in panel.rows} == {"jit_train_step(0)"}
        place = next(k for k, row in enumerate(panel.rows) if row.name == "loop_dynamic_slice_fusion.6")
        for _ in range(place):
            await pilot.press("down")
        await pilot.press("enter")
        await settle(pilot)
        track, event = view.cursor
        assert app.workspace.trace.tracks[track].event_name(event) == "MemcpyD2D"
        assert len(view.matches[1]) == 12


async def test_a_gpu_device_shows_the_ops_its_kernels_ran_above_its_streams():
    """XProf's derived lines head the GPU's group: its program runs, its ops, their name scopes and
    Python lines. An event on
    the ops line is an op's run (consecutive kernels of one op), named after its instruction,
    and Enter selects that."""
    app = XlaTuiApp(FIXTURES / "gpu_scan" / "gpu_scan.xplane.pb", FIXTURES / "gpu_scan")
    async with app.run_test(size=(200, 50)) as pilot:
        view = await open_timeline(pilot)
        trace = app.workspace.trace
        tracks = list(dict.fromkeys(row.index for row in view.rows if row.kind == "track"))
        assert [trace.tracks[k].name for k in tracks[:5]] == [
            "XLA Modules - from #14", "XLA Ops - from #14", "Framework Name Scope - from #14", "Source code - from #14",
            "Stream #14(MemcpyH2D,Memset,Compute,MemcpyD2D,MemcpyOther)"]
        line = trace.tracks[tracks[1]]
        assert line.derived and line.group == "/device:GPU:0"
        assert "18,627 events, 53 tracks and 4 derived" in screen_text(app)
        await move_to_row(pilot, view, first_row_of(view, line.name))
        for _ in range(300):  # past the autotuner's trials, to the step's first op
            await pilot.press("right")
            track, event = view.cursor
            if line.event_args(event).get("program_id") == "0":
                break
        name = line.event_name(event)
        assert trace.tracks[track] is line and app.workspace.main.load().instruction(name) is not None
        await pilot.press("enter")
        await settle(pilot)
        assert app.selection.instruction == name and app.selection.event == (track, event)


async def test_on_a_known_chip_the_op_table_says_how_much_of_its_peaks_each_op_used():
    """XProf's Op Profile columns: on the H100 each op's FLOP/s and bytes/s are also shares of
    the chip's peaks (the details screen's roofline table); a narrow terminal leaves the last
    rate columns out for the names, and `s` sorts only by the columns shown."""
    from tui.model.roofline import profile_chip

    for width, shown in ((200, ["GFLOP/s", "GB/s", "FLOP util", "BW util"]), (130, ["GFLOP/s", "GB/s"])):
        app = XlaTuiApp(FIXTURES / "gpu_scan" / "gpu_scan.xplane.pb", FIXTURES / "gpu_scan")
        async with app.run_test(size=(width, 50)) as pilot:
            await open_table(pilot, "t")
            panel = app.screen.panel
            chip = profile_chip(app.workspace.trace.devices.values())
            assert chip is not None and chip.name == "NVIDIA H100 SXM"
            flops, moved = panel.rates["GFLOP/s"], panel.rates["GB/s"]
            assert panel.rates["FLOP util"] == [None if r is None else r / chip.peak_flops for r in flops]
            assert panel.rates["BW util"] == [None if b is None else b / chip.peak_bytes for b in moved]
            header = panel._table_line(1).text
            assert [c for c in panel.rates if c in header] == shown and len(panel._table_line(2).text.rstrip()) <= width
            k = next(k for k, b in enumerate(moved) if b is not None)
            line = panel._table_line(2 + panel._order.index(k)).text
            assert f"{moved[k] / chip.peak_bytes:.1%}" in line if width == 200 else "%" not in line.split()[-1]
            sorts = []
            for _ in range(6 + len(shown)):
                await pilot.press("s")
                sorts.append(panel.sort_by)
            assert sorts == ["mean", "min", "max", *shown, "total", "count", "self"]  # from self, round again


async def test_a_marked_range_says_how_busy_each_device_was():
    """XProf's duty cycle for a range: a kernel's own span is all busy; a range twice as long
    around it, with nothing else running, is half busy."""
    from tui.model.links import stream_tracks
    from tui.model.utilization import DeviceTime

    app = XlaTuiApp(FIXTURES / "gpu" / "gpu.xplane.pb", FIXTURES / "gpu")
    async with app.run_test(size=(200, 50)) as pilot:
        view = await open_timeline(pilot)
        trace = app.workspace.trace
        (stream,) = stream_tracks(trace)
        track = trace.tracks[stream]
        longest = int(np.argmax(track.dur_ns))
        view.show_event(stream, longest)
        await pilot.press("m")
        await settle(pilot)
        assert app.selection.time_range == track.event_span(longest)
        assert "busy: GPU:0 100.0%" in screen_text(app)
        t0, t1 = track.event_span(longest)
        (around,) = DeviceTime(trace).busy(t0 - (t1 - t0), t1)
        assert around.busy_ns >= t1 - t0 and around.window_ns == 2 * (t1 - t0)


async def test_enter_on_an_event_says_how_busy_each_device_was_while_it_ran():
    """A program's run on the GPU (its `XLA Modules` span) and a host call: the details give the
    device's busy share of the event's time, as a marked range over it would; a CPU profile
    has no devices, and says nothing of them."""
    from tui.model.utilization import DeviceTime

    app = XlaTuiApp(FIXTURES / "gpu" / "gpu.xplane.pb", FIXTURES / "gpu")
    async with app.run_test(size=(200, 50)) as pilot:
        view = await open_timeline(pilot)
        trace = app.workspace.trace
        runs = next(k for k, track in enumerate(trace.tracks) if track.name == "XLA Modules - from #14")
        host = next(k for k, track in enumerate(trace.tracks) if track.name == "python3")
        shares = []
        for k in (runs, host):
            event = int(np.argmax(trace.tracks[k].dur_ns))
            view.show_event(k, event)
            await pilot.press("enter")
            await settle(pilot)
            (busy,) = DeviceTime(trace).busy(*trace.tracks[k].event_span(event))
            assert ("devices busy", f"GPU:0 {busy.share:.1%} of its time", None) in app.screen.panel.details
            shares.append(busy.share)
        assert shares[0] > 0.9 and shares[1] < shares[0]  # the run is nearly all kernels; the host waits too

    app = XlaTuiApp(FIXTURES / "transformer")
    async with app.run_test(size=(200, 50)) as pilot:
        view = await open_timeline(pilot)
        trace = app.workspace.trace
        k = next(k for k, track in enumerate(trace.tracks) if track.count)
        view.show_event(k, 0)
        await pilot.press("enter")
        await settle(pilot)
        details = app.screen.panel.details
        assert details[0][0] == "event" and not any(key == "devices busy" for key, _, _ in details)


async def test_R_plots_the_ops_under_the_chips_roofs_and_enter_finds_an_ops_runs():
    """XProf's Roofline Model on the H100 fixture: `R` opens the chart on the op with the most
    time, a bold dot in its cell; up/down walk the ops by time, left/right along the intensity
    axis; Enter closes it with that op's kernels as the timeline's matches."""
    from tui.screens.roofline import RooflineScreen

    app = XlaTuiApp(FIXTURES / "gpu" / "gpu.xplane.pb", FIXTURES / "gpu")
    async with app.run_test(size=(160, 45)) as pilot:
        view = await open_timeline(pilot)
        await pilot.press("R")
        await settle(pilot)
        roof = app.screen
        assert isinstance(roof, RooflineScreen)
        points, ops = roof.points, roof.profile.ops
        assert roof.cursor == 0 and points[0].share == max(point.share for point in points)
        text = screen_text(app)
        assert "Roofline: NVIDIA H100 SXM, peaks 989 TFLOP/s and 3.35 TB/s" in text
        assert text.count("●") == 2  # the op's dot, and the legend's
        assert f"{ops[points[0].op].name}  in jit_train_step" in text
        await pilot.press("down")
        assert roof.cursor == 1 and ops[points[1].op].name in screen_text(app)
        await pilot.press("right")
        righter = [point.intensity for point in points if point.intensity > points[1].intensity]
        assert points[roof.cursor].intensity == min(righter)
        await pilot.press("left")
        assert points[roof.cursor].intensity <= points[1].intensity
        await pilot.press("up", "up", "up")
        assert roof.cursor == 0
        chosen = ops[points[0].op].name
        await pilot.press("y")
        assert app.clipboard == chosen
        await pilot.press("Y")  # every point's figures, tab-separated, by time
        table = [line.split("\t") for line in app.clipboard.splitlines()]
        assert table[0][:3] == ["op", "program", "runs"] and table[0][-2:] == ["roof_flops_per_s", "bound"]
        assert [cells[0] for cells in table[1:]] == [ops[point.op].name for point in points]
        assert [float(cells[5]) for cells in table[1:]] == [point.intensity for point in points]
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen is not roof and isinstance(app.screen, TimelineScreen)
        trace = app.workspace.trace
        tracks, events = view.matches
        assert len(events) >= ops[points[0].op].count
        # the fusion's Triton kernel, run from the step's CUDA graph (its hlo_op names the command buffer)
        assert {trace.tracks[k].event_name(e) for k, e in zip(tracks.tolist(), events.tolist())} == {chosen.replace(".", "_")}
        # and the op is the selection on every screen, its run under the cursor its event
        assert app.selection.instruction == chosen and app.selection.event == view.cursor
        await pilot.press("2")
        await settle(pilot)
        assert app.workspace.instruction.name == chosen
        assert app.screen.query_one(DetailsView).plain_text().startswith(chosen)


async def test_R_on_a_host_cpu_plots_the_ops_without_roofs_and_esc_closes_it():
    from tui.screens.roofline import RooflineScreen

    app = XlaTuiApp(FIXTURES / "transformer")
    async with app.run_test(size=(120, 36)) as pilot:
        view = await open_timeline(pilot)
        before = view.matches
        await pilot.press("R")
        await settle(pilot)
        roof = app.screen
        assert isinstance(roof, RooflineScreen) and roof.profile.chip is None
        profile = roof.profile
        plottable = [k for k, (r, b) in enumerate(zip(profile.rates, profile.byte_rates)) if r and b]
        assert sorted(point.op for point in roof.points) == plottable
        text = screen_text(app)
        assert "Roofline: no roofs" in text and f"{len(plottable)} of {len(profile.ops)} ops plotted" in text
        assert "of the roof" not in text
        await pilot.press("escape")
        assert isinstance(app.screen, TimelineScreen) and view.matches == before


async def test_the_app_keys_work_over_the_roofline_chart():
    """A modal screen takes none of the app's keys: `?` did nothing over the chart, and 1-4 did
    not change screens. `?` lists the chart's own keys; a screen key closes it and switches."""
    from tui.screens.help import HelpScreen
    from tui.screens.roofline import RooflineScreen

    app = XlaTuiApp(FIXTURES / "transformer")
    async with app.run_test(size=(120, 36)) as pilot:
        await open_timeline(pilot)
        await pilot.press("R")
        await settle(pilot)
        roof = app.screen
        assert isinstance(roof, RooflineScreen)
        await pilot.press("question_mark")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        text = screen_text(app)
        assert "Roofline" in text and "Next op by time" in text and "Show this op" in text
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is roof
        await pilot.press("3")
        await settle(pilot)
        assert app.current_mode == "memory" and not isinstance(app.screen, RooflineScreen)
        await pilot.press("4")
        await settle(pilot)
        assert isinstance(app.screen, TimelineScreen)


@SIZES
def test_timeline_roofline_chart(snap_compare, size):
    async def run_before(pilot) -> None:
        await open_timeline(pilot)
        await pilot.press("R")
        await settle(pilot)
        await pilot.press("down")
        pilot.app.clear_notifications()
        await pilot.pause()

    app = XlaTuiApp(FIXTURES / "gpu" / "gpu.xplane.pb", FIXTURES / "gpu")
    assert snap_compare(app, terminal_size=size, run_before=run_before)


async def test_y_copies_the_name_of_the_event_under_the_cursor():
    """A cuBLAS kernel's name, whole (the bars and the panel cut it), to the clipboard."""
    from tui.model.links import stream_tracks

    app = XlaTuiApp(FIXTURES / "gpu_cublas" / "gpu_cublas.xplane.pb", FIXTURES / "gpu_cublas")
    async with app.run_test(size=(120, 36)) as pilot:
        view = await open_timeline(pilot)
        trace = app.workspace.trace
        (stream,) = stream_tracks(trace)
        names = [trace.tracks[stream].event_name(i) for i in range(trace.tracks[stream].count)]
        longest = max(range(len(names)), key=lambda i: len(names[i]))
        view.show_event(stream, longest)
        await pilot.press("y")
        assert app.clipboard == names[longest] and len(names[longest]) > 60


async def test_Y_copies_the_top_ops_table_as_tab_separated_columns():
    """The `t` table whole, names uncut and every rate column, in the order shown (after `s`)."""
    app = XlaTuiApp(FIXTURES / "gpu_scan" / "gpu_scan.xplane.pb", FIXTURES / "gpu_scan")
    async with app.run_test(size=(100, 30)) as pilot:
        _, panel = await open_table(pilot, "t")
        for _ in range(12):  # round the columns to count
            await pilot.press("s")
            if panel.sort_by == "count":
                break
        await pilot.press("Y")
        lines = app.clipboard.splitlines()
        assert lines[0] == panel.title.strip()
        assert lines[1].split("\t") == ["name", "count", "total", "self", "mean", "min", "max", "% time", *panel.rates]
        assert len(panel.rates) == 4 and len(lines) == 2 + len(panel.rows)
        rows = [line.split("\t") for line in lines[2:]]
        assert [cells[0] for cells in rows] == [panel.rows[k].name for k in panel._order]
        assert [int(cells[1].replace(",", "")) for cells in rows] == sorted((row.count for row in panel.rows), reverse=True)
        await pilot.press("t", "Y")  # the table closed: the trace's facts
        assert app.clipboard.splitlines()[0].startswith("profile\t")


async def test_t_takes_the_op_profile_another_pane_worked_out():
    """The graph works the op profile out first; the timeline's tables take that one, at once,
    and a new one once another module's ops are in it (not the one they were first made from)."""
    from tui.model.links import kept_op_profile

    app = XlaTuiApp(FIXTURES / "transformer")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await settle(pilot)  # the graph's op times
        kept = kept_op_profile(app.workspace)
        assert kept is not None
        await open_timeline(pilot)
        await pilot.press("t")  # no wait for a worker: the table is there in this frame
        assert app.screen.panel.rows is kept.ops
        app.workspace.derived.pop("op_profile")  # as if another module had been parsed since
        await pilot.press("t")  # the open table is of a profile no longer kept: not closed, made again
        await settle(pilot)
        fresh = kept_op_profile(app.workspace)
        assert fresh is not None and fresh is not kept and app.screen.panel.rows is fresh.ops


async def test_c_lists_every_counter_over_the_marked_range_and_enter_goes_to_its_row():
    """`C` sums up every counter over the window in view, or the marked range, a row each (as
    Perfetto's area selection lists counters); `s` sorts by a column; Enter goes to the
    counter's row, its group expanded; `C` again closes the table."""
    app = XlaTuiApp(FIXTURES / "gpu_scan")
    async with app.run_test(size=SIZE) as pilot:
        view = await open_timeline(pilot)
        trace, panel = view.trace, app.screen.panel

        def expected(t0, t1) -> dict[str, list[str]]:
            out = {}
            for counter in trace.counters:
                span = counter.over(t0, t1)
                if span is not None:
                    rate = (span.last - span.first) / ((t1 - t0) / 1e9)  # Perfetto's "Rate /s"
                    out[counter.name] = [  # one group (the host's allocators): named without it
                        human_bytes(span.first), human_bytes(span.last),
                        ("+" if span.last >= span.first else "-") + human_bytes(abs(span.last - span.first)),
                        ("+" if rate >= 0 else "-") + human_bytes(abs(rate)),
                        human_bytes(span.least), human_bytes(span.most), human_bytes(span.mean), f"{span.samples:,}"]
            return out

        def table() -> dict[str, list[str]]:
            lines = panel.plain_text().splitlines()
            assert lines[1].split("\t") == ["name", "first", "last", "change", "rate /s", "least", "most", "mean", "samples"]
            return {line.split("\t")[0]: line.split("\t")[1:] for line in lines[2:]}

        await pilot.press("C")
        assert panel.showing_table and "over the window in view" in panel.title
        assert table() == expected(view.window.t0, view.window.t1) and len(table()) == len(trace.counters) == 4
        await pilot.press("C")  # closed
        assert not panel.showing_table
        busiest = max(trace.counters, key=lambda c: len(c.time_ns))
        marked = (float(busiest.time_ns[40]), float(busiest.time_ns[90]))
        view.mark_range(marked)
        await settle(pilot)
        await pilot.press("C")
        assert "over the marked range" in panel.title and table() == expected(*marked)
        await pilot.press("s", "s", "s")  # by the change, largest first
        spans = {c.name: c.over(*marked) for c in trace.counters if c.over(*marked) is not None}
        assert 0 < len(spans) < len(trace.counters)  # one counter has no sample by the range's end: no row
        assert panel.sort_by == "change" and sorted(spans, key=lambda name: -(spans[name].last - spans[name].first)) \
            == list(table())
        view.collapsed.add(busiest.group)
        view.refresh_rows()
        names = list(table())
        await pilot.press(*["down"] * names.index(busiest.name), "enter")
        index = trace.counters.index(busiest)
        assert view.current_row.kind == "counter" and view.current_row.index == index and view.has_focus
        assert busiest.group not in view.collapsed and panel.details[0][1].endswith(f"{busiest.name}: {len(busiest.time_ns):,} samples")


async def test_a_range_marked_on_counter_rows_sums_up_those_counters():
    """A range marked on a counter's row (shift+right), or across counter rows alone (then
    shift+down), has no events to count: the panel lists those counters over it, as Perfetto's
    area selection over counter tracks does in its Counters tab, each checked against the
    counter's own samples. Grown onto a row of events, it counts that row's events again."""
    app = XlaTuiApp(FIXTURES / "gpu_scan")
    async with app.run_test(size=SIZE) as pilot:
        view = await open_timeline(pilot)
        trace, panel = view.trace, app.screen.panel
        counter_rows = [i for i, row in enumerate(view.rows) if row.kind == "counter"]
        assert len(counter_rows) == len(trace.counters) == 4 and counter_rows == list(range(counter_rows[0], counter_rows[-1] + 1))

        def table() -> dict[str, list[str]]:
            lines = panel.plain_text().splitlines()
            return {line.split("\t")[0]: line.split("\t")[1:] for line in lines[2:]}

        def expected(indices) -> dict[str, list[str]]:
            out = {}
            for k in indices:
                counter, span = trace.counters[k], trace.counters[k].over(*view.marked)
                if span is not None:
                    rate = (span.last - span.first) / ((view.marked[1] - view.marked[0]) / 1e9)
                    out[counter.name] = [human_bytes(span.first), human_bytes(span.last),
                                         ("+" if span.last >= span.first else "-") + human_bytes(abs(span.last - span.first)),
                                         ("+" if rate >= 0 else "-") + human_bytes(abs(rate)),
                                         human_bytes(span.least), human_bytes(span.most), human_bytes(span.mean),
                                         f"{span.samples:,}"]
            return out

        first = counter_rows[0]
        await move_to_row(pilot, view, first)
        times = trace.counters[view.rows[first].index].time_ns
        view.cursor_ns = float(times[len(times) // 2])  # amid its samples
        await pilot.press(*["shift+right"] * 6)
        await settle(pilot)
        one = view.rows[first].index
        assert view.marked is not None and view.marked_counters == (one,) and panel.showing_table
        assert "Counters over the marked range" in panel.title and table() == expected([one]) and len(table()) == 1
        await pilot.press("shift+down")
        await settle(pilot)
        two = (one, view.rows[first + 1].index)
        assert view.marked_counters == two and table() == expected(two) and len(table()) == 2
        await pilot.press("escape")
        await move_to_row(pilot, view, first - 1)  # the row above the counters: a row of events
        assert view.rows[first - 1].kind in ("track", "instants")
        await pilot.press(*["shift+right"] * 6, "shift+down")
        await settle(pilot)
        assert view.marked_tracks and panel.showing_table and panel.title.startswith(" Range ")


async def test_the_info_line_tells_what_is_under_the_mouse_pointer():
    """As Perfetto tells what the pointer is over: an event's name, time and track, or the
    counter's value in force there; off them (the labels' column) and after a zoom, the line
    is the cursor's again."""
    app = XlaTuiApp(FIXTURES / "gpu_scan")
    async with app.run_test(size=SIZE) as pilot:
        view = await open_timeline(pilot)
        trace, panel = view.trace, app.screen.panel
        busiest = max(range(len(trace.counters)), key=lambda k: len(trace.counters[k].time_ns))
        await move_to_row(pilot, view, next(i for i, row in enumerate(view.rows) if row == Row("counter", "/host:CPU", busiest)))
        await move_to_row(pilot, view, view.cursor_row - 8)  # rows of events above it in sight too
        cells = [(x, y) for y in range(view.header_height, view.size.height) for x in range(view.label_width, view.size.width)]
        under = {cell: view._under(*cell) for cell in cells}
        event = next(cell for cell, found in under.items() if found and found[0] == "track")
        counter = next(cell for cell, found in under.items() if found and found[0] == "counter"
                       and trace.counters[found[1]].value[found[2]] > 0)
        resting = str(panel.info)
        await pilot.hover(TimelineView, offset=event)
        _, track, index = under[event]
        assert view._event_at(view._row(view._index_at(event[1])), event[0] - view.label_width) == index
        assert str(panel.info).startswith(f" ↖ {trace.tracks[track].event_name(index)}  ")
        assert str(panel.info).endswith(f"{trace.tracks[track].group} / {trace.tracks[track].name}")
        await pilot.hover(TimelineView, offset=counter)
        _, k, sample = under[counter]
        assert str(panel.info).startswith(f" ↖ {human_bytes(float(trace.counters[k].value[sample]))}  since ")
        assert str(panel.info).endswith(trace.counters[k].name)
        await pilot.hover(TimelineView, offset=(1, counter[1]))  # the row's label: nothing under the pointer
        assert str(panel.info) == resting
        await pilot.hover(TimelineView, offset=event)
        await pilot.press("w")
        assert view._hover is None and str(panel.info) == resting


async def test_a_tables_own_columns_make_room_for_the_names_on_a_narrow_terminal():
    """At 80 columns the counters table keeps the names readable and leaves out its last
    columns (as the op tables leave out rate columns); copied (Y), it has them all."""
    app = XlaTuiApp(FIXTURES / "gpu_scan")
    async with app.run_test(size=(80, 24)) as pilot:
        await open_timeline(pilot)
        await pilot.press("C")
        panel = app.screen.panel
        header, first = (str(panel.render_line(y).text) for y in (3, 4))  # rule, info, title, then these
        assert "first" in header and "samples" not in header and first.startswith(" GPU_0_bfc bytes_allocated ")
        assert panel.plain_text().splitlines()[1].split("\t")[-1] == "samples"


def test_a_counters_values_read_as_bytes_only_where_its_name_says_bytes():
    from tui.screens.timeline import _counter_format

    allocated, depth = _counter_format("GPU_0_bfc bytes_allocated"), _counter_format("queue depth")
    assert allocated(3 * 2**30) == "3.0 GiB" and allocated(-1024.0, sign=True) == "-1.0 KiB"
    assert depth(1234567.0) == "1,234,567" and depth(-3.0, sign=True) == "-3" and depth(0.0, sign=True) == "+0"
    assert depth(0.125) == "0.125" and depth(2.5e-7) == "2.5e-07"


async def test_home_and_end_put_the_cursor_on_the_first_and_last_row_at_once():
    """Textual's own Home/End glided the rows there over a second of frames, the cursor left
    behind; here they move the cursor, and the rows are in place in the next frame."""
    app = XlaTuiApp(FIXTURES / "gpu_scan")
    async with app.run_test(size=SIZE) as pilot:
        view = await open_timeline(pilot)
        assert len(view.rows) > view.view_size.height  # the rows need scrolling
        await pilot.press("end")
        last = len(view.rows) - 1
        assert view.cursor_row == last
        assert view.scroll_offset.y + view.view_size.height - view.header_height - view.fixed_rows > last - view.fixed_rows
        assert not app.animator.is_being_animated(view, "scroll_y")
        await pilot.press("home")
        assert view.cursor_row == 0 and view.scroll_offset.y == 0


async def test_thousands_of_threads_decode_without_a_layout_per_track(tmp_path, monkeypatch):
    """Hand-written edge case: 3,000 threads in 30 processes. Each decoded track used to lay
    every row out again, and the decoding thread waited for it (50k threads: seconds a key,
    for minutes); the rows are now laid out as decoding goes at most every PROGRESS_S, and the
    rows of each process are found once per layout, not by a pass over every track per process."""
    import json

    from tui.screens import timeline

    events = [{"ph": "X", "pid": 1 + i // 100, "tid": i, "ts": i, "dur": 2, "name": f"op{i % 7}"} for i in range(3000)]
    path = tmp_path / "threads.json"
    path.write_text(json.dumps({"traceEvents": events}))
    calls = []
    original = timeline.TimelineScreen._decoding
    monkeypatch.setattr(timeline.TimelineScreen, "_decoding", lambda self, done, total: calls.append(done) or original(self, done, total))
    app = XlaTuiApp(path)
    async with app.run_test(size=SIZE) as pilot:
        view = await open_timeline(pilot)
        assert calls[-1] == 3000 and len(calls) < 300
        groups = [row.group for row in view.rows if row.kind == "group"]
        assert len(groups) == 30 and len(view.rows) == 30 + 3000
        firsts = [view.rows[i + 1] for i, row in enumerate(view.rows) if row.kind == "group"]
        assert [app.workspace.trace.tracks[row.index].group for row in firsts] == groups  # each group heads its own tracks
        await pilot.press("end")
        assert view.cursor_row == len(view.rows) - 1
