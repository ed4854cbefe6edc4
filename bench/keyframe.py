"""Key-to-frame time: how long from a key press until the next frame exists, as terminal bytes.

Textual's headless driver composes frames but never encodes them, and Pilot's own `press`
waits for the CPU to look idle (sleep-based, noisy on a busy machine). So the key event is
sent the way Pilot sends it, every node's queue is drained, pending layout and refreshes are
applied, and the update Textual would write to a real terminal is encoded to bytes. The time
is the process's CPU time (`time.process_time`): all of that work runs on the event loop's
thread, and CPU time does not count the other programs sharing the machine, which made
wall-clock medians swing by a third between runs. The peer is a trivial Textual app measured
exactly the same way in the same process; screens report the ratio.

    from bench.keyframe import compare
    compare("graph 48 layers", lambda: XlaTuiApp(path), keys=["j", "k"], setup=...)
"""

from __future__ import annotations

import asyncio
import statistics
import time
from typing import Awaitable, Callable, Sequence

from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.widgets import Footer, Static

SIZE = (200, 50)


class TrivialApp(App):
    """The peer: one label that changes on every key, so every key costs a real frame."""

    BINDINGS = [Binding(k, "bump", k) for k in "wasdjklhn"] + [Binding(k, "bump", k) for k in ("left", "right", "up", "down", "enter")]

    def compose(self) -> ComposeResult:
        yield Static("0", id="counter")
        yield Footer()

    def action_bump(self) -> None:
        label = self.query_one("#counter", Static)
        label.update(str(int(str(label.render())) + 1))


async def _measure(app: App, keys: Sequence[str], rounds: int, setup: Callable[[App, object], Awaitable[None]] | None,
                   size: tuple[int, int], timed: Sequence[str] | None = None) -> list[float]:
    times: list[float] = []

    def display(screen, update) -> None:  # what a real driver would encode and write
        if update is not None and hasattr(update, "render_segments"):
            update.render_segments(app.console)

    app._display = display
    async with app.run_test(size=size) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        if setup is not None:
            await setup(app, pilot)
            await pilot.pause()
        for _ in range(rounds):
            for key in keys:
                start = time.process_time()
                await _press(app, pilot, key)
                if timed is None or key in timed:
                    times.append(time.process_time() - start)
    return times


async def _press(app: App, pilot, key: str) -> None:
    """One key in, one complete frame out."""
    event = events.Key(key, key if len(key) == 1 else None)
    event.set_sender(app)
    app._driver.send_message(event)
    for _ in range(3):  # a key's handlers may post further messages (selection changes, refreshes)
        await pilot._wait_for_screen()
    app.screen._on_timer_update()  # lay out and compose what changed; `display` encodes it


def key_to_frame(app_factory: Callable[[], App], keys: Sequence[str], rounds: int = 10,
                 setup: Callable[[App, object], Awaitable[None]] | None = None, size: tuple[int, int] = SIZE,
                 timed: Sequence[str] | None = None) -> float:
    """Median seconds per key over `rounds` passes through `keys` (the first pass is a warm-up);
    with `timed`, only those keys count (the others only set them up)."""
    times = asyncio.run(_measure(app_factory(), keys, rounds + 1, setup, size, timed))
    per_pass = len(keys) if timed is None else sum(key in timed for key in keys)
    return statistics.median(times[per_pass:])


def compare(label: str, app_factory: Callable[[], App], keys: Sequence[str], rounds: int = 10,
            setup: Callable[[App, object], Awaitable[None]] | None = None, size: tuple[int, int] = SIZE) -> float:
    """Print ours vs the trivial app, same keys, same size, same process; return the ratio."""
    peer = key_to_frame(TrivialApp, ["j", "k"], rounds, size=size)
    ours = key_to_frame(app_factory, keys, rounds, setup, size)
    ratio = ours / peer
    print(f"{label}: key-to-frame {ours * 1000:.2f} ms vs trivial app {peer * 1000:.2f} ms -> ratio {ratio:.2f}"
          f" (target <= 1.2) [{size[0]}x{size[1]}, median of {rounds * len(keys)} keys]")
    return ratio
