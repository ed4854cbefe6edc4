"""Random keys, clicks and terminal sizes on every pane never stop the app.

Sessions like these found the crashes fixed when this test was added: a buffer key while
another module's memory loaded, a prompt opened twice, a ruler painted before its view's
resize, Enter on a host's `command_buffer_1` annotation, the palette's page keys on a tiny
terminal, Textual's text selection. Each has a test of its own; these seeds replay sessions
that hit three of them. Every 15 keys the terminal takes a size from 12x3 to 200x50.
"""

from __future__ import annotations

import random

import pytest
from conftest import FIXTURES
from textual.pilot import OutOfBounds
from textual.worker import WorkerCancelled

from textual import events

from tui.app import XlaTuiApp

KEYS = ["1", "2", "3", "4", "j", "k", "h", "l", "enter", "backspace", "up", "down", "left", "right", "w", "s", "a",
        "d", "W", "S", "A", "D", "end", "home", "p", "m", "t", "T", "c", "0", "f", "g", "e", "o", "n", "N", "r", "x",
        "escape", "tab", "slash", "minus", "plus", "pageup", "pagedown", "shift+left", "shift+right",
        "left_square_bracket", "right_square_bracket", "question_mark", "space", "i", "b", "R", "P", "y", "Y"]
SIZES = [(12, 3), (20, 6), (40, 10), (80, 20), (100, 30), (160, 45), (200, 50)]


async def _stay() -> None:
    pass


async def press(app, pilot, key: str) -> None:
    """A key as the terminal sends it, and its frame, without waiting for the app to go idle
    (as keys typed quickly come: workers may still run, a resize may not have reached a view)."""
    event = events.Key(key, key if len(key) == 1 else None)
    event.set_sender(app)
    app._driver.send_message(event)
    await pilot._wait_for_screen()


@pytest.mark.parametrize("fixture, seed", [("transformer", 6), ("transformer", 13), ("gpu", 6)])
async def test_random_keys_clicks_and_sizes_never_stop_the_app(fixture, seed):
    rng = random.Random(seed)
    app = XlaTuiApp(FIXTURES / fixture)
    app.action_quit = _stay  # a click on the key bar's "q Quit" would end the session early
    async with app.run_test(size=(160, 45)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        for i in range(150):
            if i % 15 == 0:
                await pilot.resize_terminal(*rng.choice(SIZES))
            if rng.random() < 0.08:
                try:
                    await pilot.click(offset=(rng.randrange(app.size.width), rng.randrange(app.size.height)))
                except OutOfBounds:
                    pass
            await press(app, pilot, rng.choice(KEYS))
        try:
            await app.workers.wait_for_complete()
        except WorkerCancelled:  # an exclusive worker that a newer one replaced: waiting on it raises
            pass
        await pilot.pause()
        assert app.is_running and app.return_code is None
