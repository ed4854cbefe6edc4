"""The memory screen (key 3): the program cursor, the buffer table, cross-links, and snapshots.

Pilot tests drive the real app on the committed fixtures (and on programs compiled in the run)
and check what it shows against XLA's own files for the same module.
"""

from __future__ import annotations

import shutil

import numpy as np
from rich.style import Style
from conftest import FIXTURES, main_hlo, screen_text

from tui.app import XlaTuiApp
from tui.model.inputs import load_workspace
from tui.model.memory import SOURCE_COMPUTED, SOURCE_LIVE_RANGE, peak_memory
from tui.model.xla_memory_files import parse_live_range
from tui.screens.details import DetailsScreen
from tui.screens.graph import GraphScreen
from tui.screens.memory import MemoryScreen

TRANSFORMER_LIVE_RANGE = next((FIXTURES / "transformer").glob("module_0014*-live-range.txt"))


async def show_memory(pilot) -> MemoryScreen:
    """Key 3 once what the app loads is in: the memory screen, with or without a program."""
    app = pilot.app
    await app.workers.wait_for_complete()
    await pilot.pause()
    await pilot.press("3")
    await app.workers.wait_for_complete()
    await pilot.pause()
    return app.screen


async def open_memory(pilot) -> MemoryScreen:
    screen = await show_memory(pilot)
    assert isinstance(screen, MemoryScreen) and screen.profile is not None
    return screen


async def test_memory_cursor_moves_and_jumps():
    report = parse_live_range(TRANSFORMER_LIVE_RANGE)
    app = XlaTuiApp(FIXTURES / "transformer")
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await open_memory(pilot)
        profile = screen.profile
        assert profile.source == SOURCE_LIVE_RANGE and (profile.peak_time, profile.peak_bytes) == (
            report.peak_time, report.peak_bytes)
        assert screen.cursor == report.peak_time  # it opens on XLA's peak
        await pilot.press("right", "right", "left")
        assert screen.cursor == report.peak_time + 1
        ins = profile.instruction_at(screen.cursor)
        assert ins.name == report.sequence[screen.cursor]
        text = screen_text(app)
        assert f"▲#{screen.cursor}/{report.max_time} {ins.name}" in text
        assert f"in {len(profile.live_at(screen.cursor))} buffers" in text
        await pilot.press("end")
        assert screen.cursor == report.max_time and "end of program" in screen_text(app)
        await pilot.press("home")
        assert screen.cursor == 0
        await pilot.press("m")
        assert screen.cursor == int(np.argmax(profile.total)) == profile.max_time
        await pilot.press("p")
        assert screen.cursor == report.peak_time
        await pilot.press("shift+right")
        assert screen.cursor > report.peak_time
        # the table lists exactly the buffers live here, largest first
        rows = screen.table.rows
        assert set(rows) == set(profile.live_at(screen.cursor))
        assert list(profile.padded[rows]) == sorted(profile.padded[rows], reverse=True)
        # leaving the screen tells the others where the cursor is
        await pilot.press("1")
        assert isinstance(app.screen, GraphScreen)
        assert app.selection.program_point == screen.cursor


async def test_memory_redraws_for_a_new_terminal_size():
    app = XlaTuiApp(FIXTURES / "transformer")
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await open_memory(pilot)
        await pilot.resize_terminal(90, 28)
        await pilot.pause()
        lines = screen_text(app).splitlines()
        axis = next(line for line in lines if line.rstrip().endswith("┘"))
        assert len(axis.rstrip()) == 90 == len(lines[0])
        assert any(line.startswith(f"▲#{screen.cursor}/") for line in lines)


async def test_memory_selecting_a_buffer_selects_its_instruction():
    app = XlaTuiApp(FIXTURES / "transformer")
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await open_memory(pilot)
        profile, at = screen.profile, screen.cursor
        second = int(screen.table.rows[1])
        await pilot.press("down")
        value = profile.values[second]
        sel = app.selection
        assert (sel.buffer, sel.instruction, sel.program_point) == (value.name, value.instruction.name, at)
        assert screen.cursor == at  # choosing a buffer does not move the program cursor
        assert screen.chart.span == (value.start, value.end)  # its live range is marked on the chart
        chart = screen.chart
        longest = max(profile.values, key=lambda v: v.end - v.start)  # a live range long enough to pass a tick label
        chart.set_span((longest.start, longest.end))
        plain = chart._rows[-1][2]  # the axis line's text, after its gutter: the span in heavy line, tick labels kept
        axis = "".join(segment.text for segment in chart._styled(plain, len(chart._rows) - 1, Style()))
        first, last = (chart._column(t) for t in chart.span)
        assert "━" in axis and axis[:first] == plain[:first] and axis[last + 1:] == plain[last + 1:]
        assert "#" in plain[first:last + 1]  # a tick label falls under it (the test would show nothing otherwise)
        under = axis[first:last + 1]
        assert [c for c in under if c not in "━┷┗┛"] == [c for c in plain[first:last + 1] if c not in "─┴└┘"]
        await pilot.press("2")
        assert isinstance(app.screen, DetailsScreen)
        assert value.instruction.name in screen_text(app)
        await pilot.press("3")
        assert screen.cursor == at and screen.table.current == second
        await pilot.press("g")  # its defining instruction in the graph
        assert isinstance(app.screen, GraphScreen) and app.selection.instruction == value.instruction.name


async def test_buffer_keys_while_another_modules_memory_loads(monkeypatch):
    """Another module selected while the memory screen shows: its profile loads in a worker, and
    the table's keys in the meantime find no buffers of the last module to select (they once
    reached a profile that was gone)."""
    import threading

    import tui.screens.memory

    app = XlaTuiApp(FIXTURES / "transformer")
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await open_memory(pilot)
        gate, real = threading.Event(), tui.screens.memory.memory_profile
        monkeypatch.setattr(tui.screens.memory, "memory_profile", lambda entry: gate.wait(10) and real(entry))
        other = next(m for m in app.workspace.modules if m is not app.workspace.current)
        app.select(module=other.label)
        await pilot.pause()
        assert screen.profile is None and len(screen.table.rows) == 0
        await pilot.press("down", "pagedown", "enter")
        assert app.selection.buffer is None
        gate.set()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert screen.profile is not None and screen.profile.module is other.load()
        assert len(screen.table.rows) > 0


async def test_backspace_comes_back_from_each_jump_of_the_memory_cursor():
    """Backspace was not bound here. It now walks back through where the cursor jumped from
    (home/end, the peaks, a selection made elsewhere); steps are not jumps."""
    app = XlaTuiApp(FIXTURES / "transformer")
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await open_memory(pilot)
        profile = screen.profile
        start = screen.cursor
        await pilot.press("right", "right")  # steps: nothing to come back to
        stepped = start + 2
        await pilot.press("end", "home", "m")
        dot = next(i for i in profile.sequence if i.opcode == "dot")
        app.select(instruction=dot.name)
        await pilot.pause()
        assert screen.cursor == profile.sequence.index(dot)
        for back_to in (profile.max_time, 0, profile.end_time, stepped):
            await pilot.press("backspace")
            assert screen.cursor == back_to
        await pilot.press("backspace")  # nothing earlier: it stays, and says so
        assert screen.cursor == stepped


async def test_memory_follows_an_op_selected_elsewhere():
    app = XlaTuiApp(FIXTURES / "transformer")
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await open_memory(pilot)
        profile = screen.profile
        fusion = next(i for i in profile.sequence[10:] if i.opcode == "fusion")
        inner = next(i for i in fusion.called_computations[0].instructions if i.opcode != "parameter")
        app.select(instruction=inner.name)  # an op inside a fusion: the cursor goes to the fusion
        await pilot.pause()
        assert screen.cursor == profile.sequence.index(fusion)
        await pilot.press("1")
        dot = next(i for i in profile.sequence if i.opcode == "dot")
        app.select(instruction=dot.name)  # chosen while the memory screen is hidden
        await pilot.press("3")
        await pilot.pause()
        assert screen.cursor == profile.sequence.index(dot)


async def test_memory_opens_where_the_op_chosen_elsewhere_runs():
    """The first time the screen opens it shows the selection like every later time: an op
    chosen in another screen (here a bitcast, which has no buffer of its own) at its own point;
    at start, where nothing was chosen (the graph sits on the entry's ROOT), XLA's peak."""
    app = XlaTuiApp(FIXTURES / "transformer")
    async with app.run_test(size=(140, 40)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        hlo = app.workspace.hlo
        bitcasts = [i for i in hlo.entry.instructions if i.opcode == "bitcast"]
        assert bitcasts
        app.select(instruction=bitcasts[len(bitcasts) // 2])
        screen = await open_memory(pilot)
        profile = screen.profile
        point = profile.time_of(bitcasts[len(bitcasts) // 2])
        assert profile.row(f"{bitcasts[len(bitcasts) // 2].name}{{}}") is None and point != profile.peak_time  # none of its own
        assert screen.cursor == point
    app = XlaTuiApp(FIXTURES / "transformer")
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await open_memory(pilot)
        assert app.workspace.instruction.is_root and screen.cursor == screen.profile.peak_time


async def test_memory_sorts_and_groups_by_name_scope_or_line_of_python():
    app = XlaTuiApp(FIXTURES / "transformer")
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await open_memory(pilot)
        profile, rows = screen.profile, screen.table.rows
        await pilot.press("s")
        assert screen.sort == "padding waste" and "padding ▼" in screen_text(app)
        assert list(profile.waste[screen.table.rows]) == sorted(profile.waste[rows], reverse=True)
        await pilot.press("s")
        assert list(profile.start[screen.table.rows]) == sorted(profile.start[rows])
        scopes = dict(screen.scopes.rows)
        assert sum(scopes.values()) == profile.live_bytes(screen.cursor)
        assert any(scope.endswith("/mlp") for scope in scopes)
        await pilot.press("minus", "minus")
        assert screen.depth == 1 and all("/" not in scope for scope, _ in screen.scopes.rows)
        assert "By name scope, depth 1 (L: by line)" in screen_text(app)
        await pilot.press("L")  # which line of the model's Python holds the bytes
        lines = dict(screen.scopes.rows)
        assert screen.by_line and "By line of Python (L: by name scope)" in screen_text(app)
        assert sum(lines.values()) == profile.live_bytes(screen.cursor)
        assert "examples/transformer.py:57" in lines and "(arguments)" in lines
        table = app.screen.table  # its last column follows: each buffer's line (wide enough to show)
        await pilot.resize_terminal(300, 40)
        await pilot.pause()
        header = "".join(segment.text for segment in table.render_line(0))
        first = "".join(segment.text for segment in table.render_line(1)).rstrip(" ▐")
        assert "source line" in header and "name scope" not in header
        assert first.endswith(profile.line_of(int(table.rows[table.top])))
        await pilot.press("plus")  # a depth key goes back to the name scopes, at the depth they were
        assert not screen.by_line and screen.depth == 1 and dict(screen.scopes.rows) == {
            scope: size for scope, size in screen.scopes.rows if "/" not in scope}
        assert "name scope" in "".join(segment.text for segment in table.render_line(0))


async def test_memory_of_hlo_text_alone_is_computed(tmp_path):
    lone = tmp_path / "train_step.txt"
    shutil.copy(next((FIXTURES / "transformer").glob("module_0014*after_optimizations.txt")), lone)
    report = parse_live_range(TRANSFORMER_LIVE_RANGE)
    app = XlaTuiApp(lone)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await open_memory(pilot)
        assert screen.profile.source == SOURCE_COMPUTED
        assert (screen.profile.peak_time, screen.profile.peak_bytes) == (report.peak_time, report.peak_bytes)
        assert SOURCE_COMPUTED in screen_text(app)


async def test_memory_of_a_captured_function_shows_memory_analysis():
    """tui.capture compiles in this process: memory_analysis() gives the totals, XLA's files the peak."""
    import jax
    import jax.numpy as jnp

    import tui
    from tui.model.shapes import human_bytes

    def loss(w, x):
        return jnp.tanh(x @ w).sum()

    ws = tui.capture(jax.jit(jax.grad(loss)), jnp.ones((64, 64)), jnp.ones((32, 64)))
    stats = ws.main.compiled_stats["memory_analysis"]
    app = XlaTuiApp(workspace=ws)
    async with app.run_test(size=(160, 40)) as pilot:
        screen = await open_memory(pilot)
        assert screen.profile.source == SOURCE_LIVE_RANGE
        text = screen_text(app)
        assert "compiled.memory_analysis()" in text
        assert f"arguments {human_bytes(stats['argument_size_in_bytes'])}" in text
        assert f"temporaries {human_bytes(stats['temp_size_in_bytes'])}" in text


async def test_memory_of_a_loop_program(programs):
    """A scan: the while body's instructions have program points of their own."""
    app = XlaTuiApp(main_hlo(programs["scan"]))
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_memory(pilot)
        body = next(i for i in screen.profile.sequence if i.computation.kind == "while body" and i.opcode == "fusion")
        app.select(instruction=body.name)
        await pilot.pause()
        assert screen.cursor == screen.profile.sequence.index(body)
        assert body.name in screen_text(app)
        # Details `m` on a get-tuple-element (the loop's carried weights): the buffer it hands on,
        # not none (it makes no buffer of its own)
        gte = next(i for i in screen.profile.sequence if i.opcode == "get-tuple-element"
                   and screen.profile.row(f"{i.name}{{}}") is None and screen.profile.row_of(i) is not None)
        app.show("details", instruction=gte.name)
        await pilot.pause()
        await pilot.press("m")
        await pilot.pause()
        p, row = screen.profile, screen.selected_row
        assert app.screen is screen and row == p.row_of(gte) and screen.table.current == row
        assert int(p.start[row]) <= screen.cursor <= int(p.end[row])


async def test_memory_says_why_when_there_is_no_profile(programs):
    app = XlaTuiApp(main_hlo(programs["mlp_grad"], "before"))
    async with app.run_test(size=(120, 36)) as pilot:
        await show_memory(pilot)
        text = screen_text(app)
        assert app.screen.profile is None and "not scheduled" in text
        assert not app.screen.table.display and "s Sort" not in text  # no empty table, no keys for it
        await pilot.press("right", "p", "down")  # keys do nothing, and nothing breaks


async def test_a_profile_alone_fills_the_screen_with_its_memory_counters(corpus):
    """No compiled program: the allocator counters of an 8-GPU profile are the memory there is,
    one band each, with a cursor over time that reads them all; program keys give way."""
    from tui.model.memory import memory_counters

    app = XlaTuiApp(corpus / "traces" / "xprof_demo_tf_gpu_multiworker_2020.xplane.pb")
    async with app.run_test(size=(160, 45)) as pilot:
        await show_memory(pilot)
        screen = app.screen
        counters = {c.name: c for c in memory_counters(app.workspace.trace) if c.value.max() > 0}
        times, series = screen.over_time
        assert screen.profile is None and [name for name, _ in series] == sorted(counters)
        assert screen.has_class("-over-time") and not screen.table.display and not screen.trace_chart.display
        highest = max(counters.values(), key=lambda c: c.value.max())
        await pilot.press("home", "p")
        assert screen.cursor > 0 and dict(series)[highest.name][screen.cursor] == highest.value.max()
        for keys in (("home",), ("right", "right"), ("end",)):
            await pilot.press(*keys)
            at = screen.cursor
            assert at == {"home": 0, "right": 2, "end": len(times) - 1}[keys[0]]
            for name, values in series:  # each point: the most the counter held in its slice of time
                counter = counters[name]
                end = times[at + 1] if at + 1 < len(times) else np.inf
                held = [v for t, v in zip(counter.time_ns, counter.value) if t <= times[at]][-1:] or [0]
                during = [v for t, v in zip(counter.time_ns, counter.value) if times[at] <= t < end]
                assert values[at] == max(held + during)
        text = screen_text(app)
        assert f"Highest: {highest.name}" in text and "p Highest point" in text and "XLA's peak" not in text
        before = screen.sort
        await pilot.press("s")  # sorting buffers means nothing here: the key is off
        assert screen.sort == before
        await pilot.press("question_mark")  # and the help lists the keys that work here
        await pilot.pause()
        help_text = screen_text(app)
        assert "Highest point" in help_text and "XLA's peak" not in help_text and "Sort" not in help_text


async def test_a_profile_alone_without_memory_counters_says_so(tmp_path):
    alone = tmp_path / "perfetto_trace.json.gz"  # no xplane beside it: no programs
    shutil.copy(FIXTURES / "transformer" / "profile" / "perfetto_trace.json.gz", alone)
    app = XlaTuiApp(alone)
    async with app.run_test(size=(140, 40)) as pilot:
        await show_memory(pilot)
        assert app.screen.over_time is None and app.screen.has_class("-over-time")
        text = screen_text(app)  # what to do first, then why (a line each: the first was cut before it said what to do)
        assert "No memory to show: open the program's dump or HLO beside the profile" in text
        assert "No compiled program is loaded, and it has no device memory counters" in text


async def test_a_profile_alone_shows_the_memory_of_the_programs_it_holds():
    """The xplane holds the train step's HLO: its memory over the schedule, peak as XLA's."""
    app = XlaTuiApp(FIXTURES / "transformer" / "profile" / "host.xplane.pb")
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await open_memory(pilot)
        assert app.workspace.main.label == "jit_train_step(14)" and not screen.has_class("-over-time")
        xla = peak_memory(load_workspace([FIXTURES / "transformer"]).main)  # the same program, dumped
        assert xla.source == SOURCE_LIVE_RANGE and screen.profile.peak_bytes == xla.bytes
        assert "no device memory counters" in screen_text(app)


async def test_memory_says_when_the_profile_has_no_memory_counters():
    app = XlaTuiApp(FIXTURES / "transformer")
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await open_memory(pilot)
        assert not screen.trace_chart.series
        assert "no device memory counters" in screen_text(app)


async def test_kept_lines_are_what_a_fresh_draw_gives():
    """The table, scope list and chart keep their lines as drawn; after jumps back and forth and
    a buffer chosen they must be what drawing the screen afresh gives."""
    app = XlaTuiApp(FIXTURES / "transformer")
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await open_memory(pilot)
        await pilot.press("end", "home", "p", "end", "p", "down", "down", "up")
        await pilot.pause()
        widgets = (screen.table, screen.scopes, screen.chart)
        kept = [[list(w.render_line(y)) for y in range(w.size.height)] for w in widgets]
        assert all(w.strip_cache for w in widgets)
        for w in widgets:
            w.strip_cache.clear()
        fresh = [[list(w.render_line(y)) for y in range(w.size.height)] for w in widgets]
        assert kept == fresh


async def test_points_kept_or_worked_out_ahead_show_what_a_fresh_look_gives():
    """What a point shows (its buffers in the table's order, the scope totals, the cursor line)
    is kept for points shown lately and worked out ahead while the screen stands still; after
    every key, with the sort order and scope depth changed on the way, it must be what asking
    the profile afresh gives, and a jump to a point worked out ahead must show what was kept."""
    app = XlaTuiApp(FIXTURES / "transformer")
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await open_memory(pilot)
        p = screen.profile
        for key in ("right", "left", "right", "s", "left", "plus", "end", "L", "home", "minus", "end", "s", "p", "L",
                    "m", "s"):
            await pilot.press(key)
            rows = screen.table.rows
            assert list(rows) == list(p.live_at(screen.cursor, screen.sort)), key
            assert screen.scopes.rows == p.scope_totals(screen.cursor, screen.grouping), key
            assert screen.chart.caption == screen._cursor_line(screen.cursor, len(rows)), key
        await pilot.press("home", "right", "right")  # a point whose neighbours are no jump's
        screen._points.clear()  # what is kept from here on was worked out ahead
        screen._still.moved()  # as if no tick had come since the key
        screen.work_ahead()  # two ticks the same: it has stood still
        screen.work_ahead()
        targets = {screen.cursor + 1, screen.cursor - 1, 0, p.end_time, p.peak_time, p.max_time}
        assert len(targets) == 6
        assert screen.by_line  # the lines of Python's totals are worked out ahead too
        assert targets <= {point for point, sort, by in screen._points if (sort, by) == (screen.sort, screen.grouping)}
        ahead = screen._points[(p.end_time, screen.sort, screen.grouping)]
        await pilot.press("end")
        assert screen.table.rows is ahead.rows and list(ahead.rows) == list(p.live_at(p.end_time, screen.sort))


# -- snapshots (committed fixtures only) -------------------------------------------------------

async def _memory_with_a_buffer(pilot) -> None:
    await open_memory(pilot)
    await pilot.press("right", "down", "down")
    pilot.app.clear_notifications()  # the loader's toast about the profile folder, not ours
    await pilot.pause()


async def test_at_a_hand_off_the_cursor_line_says_what_xla_counts():
    """The H100 scan at XLA's peak (#55): a loop's carry and the fusion written over it hold one
    piece of memory there. The curve counts it once; the line says so and what the listed
    buffers' sizes add up to, which here is XLA's peak as its live-range file gives it."""
    from tui.model.shapes import human_bytes

    app = XlaTuiApp(FIXTURES / "gpu_scan")
    async with app.run_test(size=(200, 40)) as pilot:
        screen = await open_memory(pilot)
        await pilot.press("p")
        p = screen.profile
        report = parse_live_range(next((FIXTURES / "gpu_scan").glob("*-live-range.txt")))
        assert screen.cursor == p.peak_time == report.peak_time
        live, shared = p.live_bytes(p.peak_time), p.shared_bytes(p.peak_time)
        assert shared > 0 and live + shared == report.peak_bytes
        assert (f"live {human_bytes(live)} in {len(report.peak_buffers)} buffers (their sizes add up to "
                f"{human_bytes(report.peak_bytes)}: two of them hand on {human_bytes(shared)}, counted once)") in screen_text(app)
        assert int(p.padded[screen.table.rows].sum()) == live + shared  # what the table's sizes add up to


async def _memory_opened(pilot) -> None:
    await open_memory(pilot)
    pilot.app.clear_notifications()
    await pilot.pause()


def test_memory_snapshot_transformer_wide(snap_compare):
    assert snap_compare(XlaTuiApp(FIXTURES / "transformer"), terminal_size=(160, 45), run_before=_memory_with_a_buffer)


def test_memory_snapshot_transformer_small(snap_compare):
    assert snap_compare(XlaTuiApp(FIXTURES / "transformer"), terminal_size=(80, 24), run_before=_memory_opened)


def test_memory_snapshot_sharded(snap_compare):
    assert snap_compare(XlaTuiApp(FIXTURES / "sharded"), terminal_size=(120, 36), run_before=_memory_with_a_buffer)


async def test_Y_copies_the_buffers_at_the_cursor_as_tab_separated_columns():
    app = XlaTuiApp(FIXTURES / "transformer")
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_memory(pilot)
        await pilot.press("p", "Y")
        lines = app.clipboard.splitlines()
        profile, rows = screen.profile, screen.table.rows.tolist()
        assert lines[0].split("\t")[:3] == ["bytes", "buffer", "live"] and len(lines) == 1 + len(rows) > 10
        first = lines[1].split("\t")
        assert int(first[0]) == int(profile.padded[rows[0]]) and first[1] == profile.names[rows[0]]
        assert sum(int(line.split("\t")[0]) for line in lines[1:]) == sum(int(profile.padded[row]) for row in rows)


async def test_on_a_short_program_a_click_and_the_axis_name_the_point_drawn_there():
    """A program of fewer points than the chart has columns draws each point a few columns wide:
    a click anywhere on a point's bar puts the cursor on that point, the tick labels name the
    point drawn under them and the cursor's mark sits on its bar's first column (they were one
    point off: a click on #0's bar chose #1)."""
    from tui.widgets.memory_chart import GUTTER

    app = XlaTuiApp(FIXTURES / "mlp.hlo")
    async with app.run_test(size=(150, 30)) as pilot:
        screen = await open_memory(pilot)
        chart = screen.chart
        n, width = chart._points, chart.plot_width
        assert 2 < n < width // 2
        drawn = (np.arange(width) * n) // width  # the point each column draws (MemoryChart._columns)
        assert (chart._columns(np.arange(n)) == drawn).all()
        assert [chart.point_at(c) for c in range(width)] == drawn.tolist()
        assert [chart._column(k) for k in range(n)] == [int(np.flatnonzero(drawn == k)[0]) for k in range(n)]
        for k in (0, 1, n // 2, n - 1):
            columns = np.flatnonzero(drawn == k)
            await pilot.click(type(chart), offset=(GUTTER + int(columns[len(columns) // 2]), 3))
            assert screen.cursor == k


async def test_each_allocator_band_names_its_own_chip(corpus):
    """A TPU runtime's allocators name no allocator, only the chip (`device 2 allocator
    bytes_reserved`): each band's label says which chip (and, where several counters of one chip
    are shown, which counter), no two alike (they read `bytes_res` for every chip); a GPU's BFC
    allocators keep their own names."""
    from tui.model.memory import memory_counters
    from tui.screens.memory import _band_labels

    app = XlaTuiApp(corpus / "traces" / "xprof_tpu_v6e_inference_4chip.xplane.pb")
    async with app.run_test(size=(160, 45)) as pilot:
        await show_memory(pilot)
        labels = [label for label, _ in app.screen.trace_chart.series]  # beside the program: the two largest
        assert labels == ["device 0", "device 1"]
        names = sorted(c.name for c in memory_counters(app.workspace.trace))
    assert len(names) == 8
    labels = _band_labels(names)  # a profile alone shows them all
    assert len(set(labels)) == 8
    for label, name in zip(labels, names):
        assert label.startswith(f"d{name.split()[1]} ") and label[3:] in name.split()[-1], (label, name)
    assert _band_labels(["GPU_0_bfc bytes_in_use", "GPU_1_bfc bytes_in_use"]) == ["GPU_0_bfc", "GPU_1_bfc"]
