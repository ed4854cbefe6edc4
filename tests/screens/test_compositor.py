"""The panes' compositor (tui/widgets/compositor.py) against Textual's own, frame by frame: a
session on every pane (whole new pictures, single lines, a resize) must cut every line into
the same pieces, and write what Textual writes less the cursor moves that write nothing."""

from __future__ import annotations

import re

from conftest import FIXTURES
from textual._compositor import ChopsUpdate, Compositor
from textual.geometry import Region

from tui.app import XlaTuiApp
from tui.widgets.compositor import PINNED_TEXTUAL, FrameChops, FrameCompositor, new_compositor

# A cursor move followed by another, a line's end or the update's end writes nothing.
EMPTY_MOVE = re.compile(r"\x1b\[\d+;\d+H(?=\x1b\[\d+;\d+H|\n|$)")


def pieces(chops) -> list[dict]:
    return [{x: None if strip is None else list(strip) for x, strip in line.items()} for line in chops]


async def test_every_frame_is_cut_and_written_as_textual_does(monkeypatch):
    seen = {"lines": 0, "partial": 0, "full": 0, "moves left out": 0}
    ours = FrameCompositor._render_chops

    def both(self, crop, is_rendered_line):
        # Both cut the very same lines (a widget's first frame after a change may differ from
        # its next: Textual's key panel's does).
        renders = [(region, clip, list(strips)) for region, clip, strips in Compositor._get_renders(self, crop)]
        self._get_renders = lambda crop: iter(renders)
        try:
            mine = ours(self, crop, is_rendered_line)
            theirs = Compositor._render_chops(self, crop, is_rendered_line)
        finally:
            del self._get_renders
        assert pieces(mine) == pieces(theirs)
        seen["lines"] += sum(map(is_rendered_line, range(len(mine))))
        return mine

    monkeypatch.setattr(FrameCompositor, "_render_chops", both)
    app = XlaTuiApp(FIXTURES / "transformer")

    def display(screen, update) -> None:
        if isinstance(update, ChopsUpdate):
            assert isinstance(update, FrameChops)
            mine, theirs = update.render_segments(app.console), ChopsUpdate.render_segments(update, app.console)
            assert mine == EMPTY_MOVE.sub("", theirs) or EMPTY_MOVE.sub("", mine) == EMPTY_MOVE.sub("", theirs)
            seen["partial"] += 1
            seen["moves left out"] += len(EMPTY_MOVE.findall(theirs)) - len(EMPTY_MOVE.findall(mine))
        elif update is not None:
            seen["full"] += 1

    app._display = display
    async with app.run_test(size=(120, 36)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert type(app.screen._compositor) is FrameCompositor
        for keys in (["1", "j", "enter", "j", "l", "j", "l"], ["2", "j", "k"], ["3", "end", "home", "right", "down", "s"],
                     ["4", "w", "d", "down", "right", "m", "t"]):
            for key in keys:
                await pilot.press(key)
                await app.workers.wait_for_complete()
                await pilot.pause()
                app.screen._on_timer_update()  # the frame, now (display sees it)
        app.screen.focused.refresh(Region(3, 1, 7, 2))  # a span inside a widget's line: written up to its end
        app.screen._on_timer_update()
        await pilot.resize_terminal(100, 30)
        await pilot.pause()
        app.screen._on_timer_update()
    assert seen["lines"] > 500 and seen["partial"] > 15 and seen["moves left out"] > 0, seen


def test_another_textual_gets_its_own_compositor(monkeypatch):
    import tui.widgets.compositor as compositor

    assert type(new_compositor()) is FrameCompositor and compositor.textual_version == PINNED_TEXTUAL
    monkeypatch.setattr(compositor, "textual_version", "9.0.0")
    assert type(new_compositor()) is Compositor
