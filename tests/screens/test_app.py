"""The app shell: loading in a worker, digits switch screens, help, palette, one shared selection."""

from __future__ import annotations

import gc
import threading

import pytest
from conftest import FIXTURES, screen_text
from textual.widgets import LoadingIndicator

from tui.app import XlaTuiApp
from tui.screens.details import DetailsScreen
from tui.screens.graph import GraphScreen
from tui.screens.help import HelpScreen
from tui.screens.memory import MemoryScreen
from tui.screens.timeline import TimelineScreen


async def test_loads_in_a_worker_and_digits_switch_screens():
    frozen_before = gc.get_freeze_count()  # some JAX versions freeze objects of their own on import
    app = XlaTuiApp(FIXTURES / "transformer")
    async with app.run_test(size=(120, 36)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        ws = app.workspace
        assert ws is not None and app.status == "Ready"
        assert ws.main.name == "jit_train_step" and ws.trace is not None
        assert isinstance(app.screen, GraphScreen)
        for key, screen in (("2", DetailsScreen), ("3", MemoryScreen), ("4", TimelineScreen), ("1", GraphScreen)):
            await pilot.press(key)
            await pilot.pause()
            assert isinstance(app.screen, screen), key
        assert gc.get_freeze_count() > 0  # what was loaded is out of the collector's walks while the app runs
    assert gc.get_freeze_count() == frozen_before  # and handed back when it exits (a host's own left alone)


async def test_the_collectors_full_pass_runs_while_the_app_waits_for_a_key():
    """Keys make garbage and kept lines; the full pass that would fall in a later burst of keys
    (tens of ms on a big module's kept lines) runs once a pane is done working ahead."""
    app = XlaTuiApp(FIXTURES / "transformer")
    async with app.run_test(size=(120, 36)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.press("2")
        full = []

        def counted(phase, info):
            if phase == "stop" and info["generation"] == 2:
                full.append(app.screen._idle)

        gc.callbacks.append(counted)
        try:
            while gc.get_count()[2] == 0 and not full:  # until a younger pass has run since the last full one
                await pilot.press("j")
            await pilot.pause(0.5)  # the pane stands still, works ahead, and goes idle
            # a full pass ran, and only while the app waited for a key (between two keys of the
            # loop, under load, as well as in the pause): none came in the middle of a key
            assert full and all(full) and gc.get_count()[2] == 0
        finally:
            gc.callbacks.remove(counted)


async def test_a_spinner_covers_the_pane_until_the_inputs_are_loaded(monkeypatch):
    import tui.model.inputs

    real, gate = tui.model.inputs.load_workspace, threading.Event()

    def held(*args, **kwargs):
        gate.wait(10)
        return real(*args, **kwargs)

    monkeypatch.setattr(tui.model.inputs, "load_workspace", held)
    app = XlaTuiApp(FIXTURES / "transformer")
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        assert app.workspace is None
        graph = app.screen.view
        assert graph.loading and isinstance(graph._cover_widget, LoadingIndicator)
        gate.set()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.workspace is not None and not graph.loading and graph._cover_widget is None


async def test_a_selection_made_in_one_screen_is_the_selection_in_all():
    app = XlaTuiApp(FIXTURES / "transformer")
    async with app.run_test(size=(120, 36)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        hlo = app.workspace.hlo
        dot = next(i for i in hlo.instructions() if i.opcode in ("dot", "fusion") and i.computation is hlo.entry)
        app.select(instruction=dot.name)
        await pilot.pause()
        assert app.selection.instruction == dot.name and app.selection.computation == hlo.entry.name
        await pilot.press("2")
        await pilot.pause()
        assert app.workspace.instruction is dot
        assert dot.name in screen_text(app).splitlines()[0]


async def test_help_lists_keys_and_closes():
    app = XlaTuiApp(FIXTURES / "mlp.hlo")
    async with app.run_test(size=(100, 30)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        assert "graph, details, memory, timeline" in screen_text(app)
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, GraphScreen)


async def test_the_key_bar_leaves_whole_keys_out_and_keeps_the_help_key():
    """On a narrow terminal the bar was cut mid-word (`t Its    `) and lost `? Keys`: now keys
    that do not fit are left out whole, from the end, `…` marks where, and `?` and the palette
    key stay."""
    from tui.widgets.key_bar import KeyBar

    app = XlaTuiApp(FIXTURES / "transformer")
    async with app.run_test(size=(60, 15)) as pilot:
        await app.workers.wait_for_complete()
        for screen in "1234":
            await pilot.press(screen)
            await pilot.pause()
            bar = app.screen.query_one(KeyBar)
            line = screen_text(app).splitlines()[-1]
            shown = [(app.get_key_display(active.binding), active.binding.description)
                     for active in app.screen.active_bindings.values()]
            pieces = [piece.strip() for piece in line.split("  ") if piece.strip()]
            assert "…" in pieces and "? Keys" in pieces and pieces[-1] == "^p palette", line
            whole = {f"{key} {description}" for key, description in shown}
            assert all(piece in whole for piece in pieces if piece != "…"), (line, whole)  # none cut
            assert [spot[2] for spot in bar._spots][-2:] == ["question_mark", "ctrl+p"]
        await pilot.click(KeyBar, offset=(line.index("? Keys") + 1, 0))  # a click on it presses it
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)


async def test_help_on_a_pane_with_nothing_to_show_lists_only_the_keys_that_work():
    """An HLO file has no profile: the timeline's help listed its 33 keys and 6 gestures, none of
    which did anything."""
    app = XlaTuiApp(FIXTURES / "mlp.hlo")
    async with app.run_test(size=(100, 40)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.press("4", "question_mark")
        await pilot.pause()
        text = screen_text(app)
        assert isinstance(app.screen, HelpScreen) and "nothing to show here (the pane says what to open)" in text
        assert "Zoom in" not in text and "wheel" not in text and "Graph" in text  # the app's keys stay


async def test_help_names_a_screens_mouse_gestures():
    app = XlaTuiApp(FIXTURES / "transformer")
    async with app.run_test(size=(120, 80)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.press("4", "question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        text = screen_text(app)
        assert "ctrl+wheel" in text and "zoom about the pointer" in text and "Mark range" in text


async def test_palette_offers_modules_and_screens():
    from tui.screens.palette import WorkspaceCommands

    app = XlaTuiApp(FIXTURES / "transformer")
    async with app.run_test(size=(120, 36)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        provider = WorkspaceCommands(app.screen)
        texts = [text for text, _, _ in provider._commands()]
        labels = [m.label for m in app.workspace.modules]
        assert all(f"Module: {label}" in texts for label in labels)
        assert any(t.startswith("Computation: ") for t in texts)
        screens = [c.title for c in app.get_system_commands(app.screen)]
        assert {"Screen: Graph", "Screen: Details", "Screen: Memory", "Screen: Timeline"} <= set(screens)


async def test_the_palette_lists_the_best_matches_and_counts_the_rest(monkeypatch):
    """A module's thousands of computations are not all listed at each key typed: the best
    MOST_HITS are, then a line says how many more match; a query that matches fewer lists them all."""
    from tui.screens import palette

    monkeypatch.setattr(palette, "MOST_HITS", 5)
    app = XlaTuiApp(FIXTURES / "transformer")
    async with app.run_test(size=(120, 36)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        provider = palette.WorkspaceCommands(app.screen)
        computations = app.workspace.hlo.computations
        assert len(computations) > 5
        hits = [hit async for hit in provider.search("Computation")]
        assert len(hits) == 6
        assert all(str(hit.match_display).startswith("Computation: ") for hit in hits[:5])
        assert [hit.score for hit in hits[:5]] == sorted((hit.score for hit in hits[:5]), reverse=True)
        assert str(hits[5].match_display) == f"… {len(computations) - 5:,} more match" and hits[5].score == 0
        name = computations[0].name
        few = [hit async for hit in provider.search(f"Computation: {name}")]
        assert 1 <= len(few) <= 5 and not any("more match" in str(hit.match_display) for hit in few)


async def test_the_palette_opens_a_module_and_takes_page_keys_on_a_tiny_terminal():
    """ctrl+p, a module's name, Enter: its graph. On a terminal 4 rows high, where the palette
    shows none of its list, PageUp/PageDown do nothing (Textual's own palette raised there)."""
    from tui.screens.palette import Palette

    app = XlaTuiApp(FIXTURES / "transformer")
    async with app.run_test(size=(120, 36)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        other = next(m for m in app.workspace.modules if m is not app.workspace.current)
        await pilot.press("ctrl+p", *other.label)
        await app.workers.wait_for_complete()
        await pilot.pause(0.3)
        assert isinstance(app.screen, Palette)
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert isinstance(app.screen, GraphScreen) and app.workspace.current is other
    app = XlaTuiApp(FIXTURES / "transformer")
    async with app.run_test(size=(120, 4)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.press("ctrl+p", "pageup", "pagedown", *"Module", "pageup", "pagedown")
        await pilot.pause()
        assert isinstance(app.screen, Palette)
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, Palette) and app.return_code is None


async def test_a_drag_over_a_pane_leaves_the_selecting_to_the_terminal():
    """Textual's own text selection found no text in the panes' lines (a drag over the details
    copied "DetailsView#details"): it is off, and the terminal's own selection is the one."""
    app = XlaTuiApp(FIXTURES / "transformer")
    async with app.run_test(size=(120, 36)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.press("2")
        await pilot.pause()
        await pilot.mouse_down(offset=(2, 4))
        await pilot.hover(offset=(40, 6))
        await pilot.mouse_up(offset=(40, 6))
        await pilot.pause()
        assert not app.screen.selections and app.screen.get_selected_text() is None


async def test_bad_input_exits_with_one_line(tmp_path):
    bad = tmp_path / "broken.hlo"
    bad.write_text("HloModule m\n\nENTRY %e {\n  %a = f32[2]{0} add(%nope, %nope)\n}\n")
    app = XlaTuiApp(bad)
    async with app.run_test(size=(80, 24)) as pilot:
        for _ in range(200):
            if app.load_error is not None:
                break
            await pilot.pause(0.05)
    assert app.return_code == 2
    assert app.load_error.startswith(str(bad)) and "nope" in app.load_error


async def test_a_new_theme_redraws_every_screen_in_its_colours():
    """Widgets keep drawn lines of their own (rows, pages, pictures): a new theme must not leave
    any of them in the old theme's background colours."""
    from tui.widgets.line_cache import LineCache

    app = XlaTuiApp(FIXTURES / "transformer")
    async with app.run_test(size=(140, 40)) as pilot:
        await app.workers.wait_for_complete()

        async def backgrounds() -> dict[str, set[str]]:
            found = {}
            for key in ("1", "l", "2", "3", "4", "t"):  # l: the graph's schedule list; t: the timeline's table
                await pilot.press(key)
                await app.workers.wait_for_complete()
                await pilot.pause()
                for widget in app.screen.query("*"):
                    if isinstance(widget, LineCache) and widget.display and widget.size.area:
                        lines = widget.render_lines(widget.region.reset_offset)
                        found.setdefault(type(widget).__name__, set()).update(
                            segment.style.bgcolor.triplet.hex for line in lines for segment in line
                            if segment.style and segment.style.bgcolor and segment.style.bgcolor.triplet)
            await pilot.press("1", "l")  # the schedule list off again
            return found

        dark = app.theme_variables
        before = await backgrounds()
        app.theme = "textual-light"
        await pilot.pause()
        light = app.theme_variables
        gone = {dark[name].lower() for name in ("background", "surface", "panel")} - {light[name].lower() for name in light if light[name].startswith("#")}
        after = await backgrounds()
        assert any(gone & colours for colours in before.values())  # the check can fail
        assert {name: gone & colours for name, colours in after.items() if gone & colours} == {}


@pytest.mark.parametrize("theme", ["ansi-dark", "ansi-light"])
async def test_every_screen_draws_in_the_ansi_themes(theme):
    """Textual's palette offers themes in the terminal's own colours, whose background is its
    default colour, not a hex one (the timeline's painter could not read `ansi_default`, and
    the pane died on `4`)."""
    app = XlaTuiApp(FIXTURES / "transformer")
    async with app.run_test(size=(120, 40)) as pilot:
        await app.workers.wait_for_complete()
        app.theme = theme
        await pilot.pause()
        for key in ("1", "l", "R", "escape", "2", "3", "4", "w", "t", "escape", "R", "escape", "k", "g"):
            await pilot.press(key)
            await app.workers.wait_for_complete()
            await pilot.pause()
            assert app._exception is None and app.return_code is None, key
        view = app.screen.view
        assert view._painter.colours[0] == "default" and view._lines  # drawn, on the terminal's background


async def test_a_panes_work_ahead_tick_stops_when_done_and_wakes_on_a_key():
    """Each pane ticks while it is shown and has work ahead to do; once that is done for what it
    shows, its tick stops (an idle app takes no CPU) until a key wakes it; a pane not shown does
    not tick."""
    app = XlaTuiApp(FIXTURES / "transformer")
    async with app.run_test(size=(120, 40)) as pilot:
        await app.workers.wait_for_complete()
        graph = app.screen
        calls = []
        work_ahead = graph.work_ahead
        graph.work_ahead = lambda: calls.append(graph._still.settled) or work_ahead()

        async def settled(screen) -> bool:
            for _ in range(40):
                if not screen._ahead_timer._active.is_set():
                    return True
                await pilot.pause(0.05)
            return False

        assert await settled(graph)
        before = graph._still._last
        calls.clear()
        await pilot.pause(0.4)
        assert calls == []  # idle: no tick at all
        await pilot.press("k")  # the cursor moves to an operand: new work ahead
        assert await settled(graph)
        assert calls and graph._still._last != before and graph._still.settled  # it ran for the new view, then stopped
        await pilot.press("2")
        details = app.screen
        assert details is not graph and await settled(details) and details._still.settled
        calls.clear()
        await pilot.press("j", "3")  # a key on another pane does not wake this one
        memory = app.screen
        await app.workers.wait_for_complete()
        assert await settled(memory) and memory._still.settled
        assert calls == [] and not graph._ahead_timer._active.is_set() and not details._ahead_timer._active.is_set()
        await pilot.press("right")  # the memory cursor is the pane's own (no selection changes): the key wakes it
        assert await settled(memory) and memory._still._last[0] == memory.cursor
        assert (memory.cursor + 1, memory.sort, memory.depth) in memory._points  # worked out ahead


def test_a_line_in_a_style_equal_to_one_seen_before_passes_the_filter_as_it_is():
    """Styles are looked up by value: a line drawn in a style made again (another widget's equal
    one, a painter made anew) is left as it is, not copied, where the truecolor filter changes
    nothing; a style it does change is converted."""
    from rich.segment import Segment
    from rich.style import Style
    from textual.color import Color
    from textual.filter import ANSIToTruecolor
    from textual.strip import Strip

    from tui.widgets.line_cache import filtered

    from rich.terminal_theme import DEFAULT_TERMINAL_THEME

    line_filter, background = ANSIToTruecolor(DEFAULT_TERMINAL_THEME), Color.parse("#121212")
    first, again = Style(color="#5fafff", bgcolor="#121212"), Style(color="#5fafff", bgcolor="#121212")
    assert first == again and first is not again
    seen = Strip([Segment("ab", first)])
    assert filtered(seen, line_filter, background) is seen
    line = Strip([Segment("ab", again), Segment("cd", Style(bold=True))])
    assert filtered(line, line_filter, background) is line
    ansi = Strip([Segment("ef", Style(color="red"))])
    converted = filtered(ansi, line_filter, background)
    assert converted is not ansi and converted.text == "ef" and list(converted)[0].style.color.triplet is not None


async def test_lines_handed_over_again_or_drawn_ahead_are_filtered_once():
    """A LineCache widget remembers what fitting and the app's filters made of each line it
    handed over, and lines drawn ahead go through them (and are encoded) before their key: a
    kept line shown again is that same strip, as a fresh pass draws it."""
    from rich.segment import Segment
    from rich.style import Style
    from textual.app import App
    from textual.filter import ANSIToTruecolor
    from textual.strip import Strip
    from textual.widget import Widget

    from tui.widgets.line_cache import LineCache, filtered

    class Pages(LineCache, Widget):
        def __init__(self):
            super().__init__()
            self.page, self.kept = 0, {}

        def line(self, page: int, y: int) -> Strip:
            # ANSI red: a colour the truecolor filter converts, so a filtered line is a new strip
            return self.kept.setdefault((page, y), Strip([Segment(f"page {page} line {y}", Style(color="red"))]))

        def render_line(self, y: int) -> Strip:
            return self.line(self.page, y)

    class OnePane(App):
        def compose(self):
            yield Pages()

    app = OnePane()
    async with app.run_test(size=(40, 6)) as pilot:
        pages = app.query_one(Pages)
        filters = app.get_line_filters()
        assert any(type(f) is ANSIToTruecolor for f in filters)
        background = pages.background_colors[1]

        def fresh(page: int, y: int) -> list:
            strip = pages.line(page, y).adjust_cell_length(40, pages.base_style)
            for line_filter in filters:
                strip = filtered(strip, line_filter, background)
            return list(strip)

        pages.encode_ahead(pages.line(1, y) for y in range(6))  # page 1, drawn ahead
        ahead = {y: pages._passed[id(pages.line(1, y))][1] for y in range(6)}
        assert all(strip is not pages.line(1, y) and strip._render_cache for y, strip in ahead.items())
        for page in (1, 0, 1):
            pages.page = page
            pages.refresh()
            await pilot.pause()
            frame = pages.render_lines(pages.region.reset_offset)
            assert [list(strip) for strip in frame] == [fresh(page, y) for y in range(6)]
            if page == 1:
                assert all(frame[y] is ahead[y] for y in range(6))


async def test_a_profile_alone_shows_its_timeline_while_its_program_parses():
    """The timeline comes first; the main program is parsed after it, in the load worker, and
    its instructions then colour the timeline's op events."""
    from tui.model.inputs import load_workspace

    path = FIXTURES / "gpu_scan" / "gpu_scan.xplane.pb"
    deferred = load_workspace([path], defer_profile_program=True)
    assert deferred.main is not None and not deferred.main.loaded and deferred.trace is not None
    app = XlaTuiApp(path)
    async with app.run_test(size=(120, 36)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.current_mode == "timeline" and app.workspace.main.loaded and app.status == "Ready"
        assert "gemm_fusion_dot.2" in app.screen.view.op_names


async def test_a_profile_whose_main_program_is_damaged_opens_with_the_next(tmp_path):
    """Found bad only after the timeline is up: left out with one warning, and the next program
    becomes the main module."""
    from tui.model.profile_programs import embedded_programs

    raw = bytearray((FIXTURES / "transformer" / "profile" / "host.xplane.pb").read_bytes())
    main = next(p for p in embedded_programs(bytes(raw))[0] if p.name == "jit_train_step(14)")
    raw[main.start : main.start + 64] = b"\xff" * 64
    damaged = tmp_path / "host.xplane.pb"
    damaged.write_bytes(bytes(raw))
    app = XlaTuiApp(damaged)
    async with app.run_test(size=(120, 36)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        ws = app.workspace
        assert ws.main is not None and ws.main.loaded and ws.main.label != "jit_train_step(14)"
        assert ws.selection.module == ws.main.label and ws.hlo is ws.main.load()
        assert [w for w in ws.warnings if w.startswith("left out: ")] and app.return_code is None
