"""Focused widgets run their keys' bindings where the keys arrive (tui/widgets/direct_keys.py):
the same session on every pane ends in the same state, key by key, as with Textual's own
bubbling to the app, and the keys bindings took never reach the app."""

from __future__ import annotations

import dataclasses

from conftest import FIXTURES
from textual.app import App

from tui.app import XlaTuiApp
from tui.widgets.direct_keys import DirectKeys

# Widget keys (cursor moves, Enter, zoom), screen keys (`l`, `t`, `T`, `s`, `p`) and app keys
# (digits), on all four panes, with Esc/Backspace back out of what they opened.
SESSION = ["1", "j", "k", "enter", "down", "l", "j", "j", "enter", "l", "backspace",
           "2", "j", "j", "k", "down", "enter",
           "3", "end", "left", "left", "p", "down", "enter", "s",
           "4", "down", "down", "right", "right", "w", "d", "s", "a", "enter", "t", "down", "escape", "T", "escape"]


def state(app: XlaTuiApp) -> tuple:
    screen = app.screen
    view = getattr(screen, "view", None)
    return (type(screen).__name__, dataclasses.astuple(app.selection), type(app.focused).__name__,
            getattr(view, "cursor", None), getattr(view, "window", None))


async def session(monkeypatch, keymap: dict[str, str] | None = None) -> tuple[list[tuple], int]:
    """Each key's resulting state, and how many keys bubbled up to the app."""
    app = XlaTuiApp(FIXTURES / "transformer")
    bubbled = 0
    on_key = App._on_key

    async def counting(self, event) -> None:
        nonlocal bubbled
        bubbled += 1
        await on_key(self, event)

    monkeypatch.setattr(App, "_on_key", counting)
    states = []
    async with app.run_test(size=(160, 45)) as pilot:
        if keymap:
            app.set_keymap(keymap)
        await app.workers.wait_for_complete()
        await pilot.pause()
        for key in SESSION:
            await pilot.press(key)
            await app.workers.wait_for_complete()
            await pilot.pause()
            states.append(state(app))
    return states, bubbled


async def test_a_session_ends_as_with_bubbling_and_bound_keys_stop_at_the_widget(monkeypatch):
    direct, bubbled_direct = await session(monkeypatch)

    async def bubble(self, event) -> None:  # Textual's way: the key goes on up to the app
        pass

    monkeypatch.setattr(DirectKeys, "_on_key", bubble)
    textual, bubbled_textual = await session(monkeypatch)
    assert direct == textual
    assert len({s[0] for s in direct}) == 4  # every pane took keys
    assert bubbled_textual == len(SESSION)  # every key of the session has a binding: none bubbles
    assert bubbled_direct == 0


async def test_with_a_keymap_the_widget_asks_the_app_for_the_whole_walk(monkeypatch):
    """A keymap may rename any binding's keys, so the widget's own map is not enough."""
    keymap = {"no-such-binding": "f12"}
    with_keymap, bubbled = await session(monkeypatch, keymap)
    without, _ = await session(monkeypatch)
    assert with_keymap == without
    assert bubbled == 0


async def test_a_key_after_a_pause_is_drawn_in_one_frame():
    """After a pause the screen's frame timer is due at once. A widget tells the screen of its
    repaint when its queue runs dry, so while another widget the key changed had a message
    queued, the first frame showed part of the key and the next frame the rest (each a whole
    pass of the compositor). End on the memory screen changes the buffer table, the chart's
    cursor and the scope list: one frame."""
    import asyncio

    from test_memory import open_memory
    from textual import events

    app = XlaTuiApp(FIXTURES / "transformer")
    frames: list[set[str]] = []
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await open_memory(pilot)
        drawn = screen._compositor_refresh

        def counting() -> None:
            frames.append({type(w).__name__ for w in screen._dirty_widgets})
            drawn()

        screen._compositor_refresh = counting
        for key in ("end", "home", "end"):
            frames.clear()
            await asyncio.sleep(0.1)  # several frame periods: the timer's next tick is overdue
            app._driver.send_message(events.Key(key, None))  # as a terminal's key arrives
            await pilot._wait_for_screen()  # a message to every widget: each has one queued behind the key
            await pilot.pause()
            assert frames == [{"BufferTable", "MemoryChart", "ScopeList"}], (key, frames)
