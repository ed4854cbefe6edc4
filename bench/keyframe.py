"""Key-to-frame time: how long from a key press until the next frame exists, as terminal bytes.

Textual's headless driver composes frames but never encodes them, and Pilot's own `press`
waits for the CPU to look idle (sleep-based, noisy on a busy machine). So the key event is
sent the way Pilot sends it, every node's queue is drained, pending layout and refreshes are
applied, and the update Textual would write to a real terminal is encoded to bytes. The time
is the process's CPU time (`time.process_time`): all of that work runs on the event loop's
thread, and CPU time does not count the other programs sharing the machine.

The peer is a trivial Textual app, running beside ours in the same event loop: every key of
ours is measured right after one of the peer's, so both see the machine in the same state.
(Measured one after the other, a busy neighbour could slow the peer's run and not ours, or
the reverse: single runs of the trivial app swung between 1.7 and 3.7 ms a key.) The peer
presses an untimed key before each timed one: right after one of our keys its timed key took
0.5 ms longer (our data had pushed its own out of the CPU's caches), which would flatter us.
With a pause between keys (a person reading, a key held down), each app's timed key comes
after a pause of its own (half of it: ours stay `pause_s` apart), so both find the machine as
a pause leaves it: with the peer warmed up after the pause instead, it took 1.4 ms and our key
1.9 ms; both after a pause, 2.5 ms each (memory screen, End/Home).
Work a key sets going for right after its frame (a held key's next picture) runs before the
next key is sent: with keys back to back it is added to the key's time (the next key would
wait for it), after a pause it is not (it is done before the next key comes).

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
PEER_KEYS = ("j", "k")


class TrivialApp(App):
    """The peer: one label that changes on every key, so every key costs a real frame."""

    BINDINGS = [Binding(k, "bump", k) for k in "wasdjklhn"] + [Binding(k, "bump", k) for k in ("left", "right", "up", "down", "enter")]

    def compose(self) -> ComposeResult:
        yield Static("0", id="counter")
        yield Footer()

    def action_bump(self) -> None:
        label = self.query_one("#counter", Static)
        label.update(str(int(str(label.render())) + 1))


Setup = Callable[[App, object], Awaitable[None]]


async def _serve(app: App, setup: Setup | None, size: tuple[int, int], requests: asyncio.Queue,
                 ready: asyncio.Future) -> None:
    """Run `app` headless; answer each key from `requests` with its key-to-frame CPU time."""

    frames: list[float] = []  # when each frame was out

    def display(screen, update) -> None:  # what a real driver would encode and write
        if update is not None and hasattr(update, "render_segments"):
            update.render_segments(app.console)
            frames.append(time.process_time())

    app._display = display
    async with app.run_test(size=size) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        if setup is not None:
            await setup(app, pilot)
            await pilot.pause()
        ready.set_result(None)
        while (request := await requests.get()) is not None:
            key, answer = request
            frames.clear()
            start = time.process_time()
            await _press(app, pilot, key)
            await _after_frame(app)
            end = time.process_time()
            frame = frames[-1] if frames else end  # the key's last frame (a timer may have drawn it already)
            answer.set_result((frame - start, end - frame))


async def _press(app: App, pilot, key: str) -> None:
    """One key in, one complete frame out."""
    event = events.Key(key, key if len(key) == 1 else None)
    event.set_sender(app)
    app._driver.send_message(event)
    for _ in range(3):  # a key's handlers may post further messages (selection changes, refreshes)
        await pilot._wait_for_screen()
    app.screen._on_timer_update()  # lay out and compose what changed; `display` encodes it


async def _after_frame(app: App) -> None:
    """Run what the key set going for after its frame (Textual's after-refresh callbacks, where
    LineCache.after_frame puts a held key's next picture): the key's frame is out, but a key
    that comes right away waits for it."""
    screen = app.screen
    if screen._callbacks:
        await screen._invoke_and_clear_callbacks()


async def _interleaved(ours: App, keys: Sequence[str], passes: int, setup: Setup | None, size: tuple[int, int],
                       timed: Sequence[str] | None, pause_s: float) -> tuple[list[float], list[float]]:
    loop = asyncio.get_running_loop()
    queues, readies, tasks = [], [], []
    for app, app_setup in ((TrivialApp(), None), (ours, setup)):
        queue, ready = asyncio.Queue(), loop.create_future()
        tasks.append(asyncio.create_task(_serve(app, app_setup, size, queue, ready)))  # each in its own context
        queues.append(queue)
        readies.append(ready)
    try:
        await asyncio.gather(*readies)

        async def press(queue: asyncio.Queue, key: str) -> float:
            """The key's time to its frame, and with no pause, the work after its frame too:
            the next key comes at once, so it waits for that work; after a pause it does not."""
            answer = loop.create_future()
            await queue.put((key, answer))
            frame, after = await answer
            return frame if pause_s else frame + after

        peer_times, our_times = [], []
        for _ in range(passes):
            for key in keys:
                if timed is not None and key not in timed:
                    await asyncio.sleep(pause_s)  # a person between keys: timers run, nothing is timed
                    await press(queues[1], key)
                    continue
                if pause_s:  # each app's key comes after half the pause, our keys pause_s apart
                    await asyncio.sleep(pause_s / 2)
                    peer_times.append(await press(queues[0], PEER_KEYS[0]))
                    await asyncio.sleep(pause_s / 2)
                else:
                    await press(queues[0], PEER_KEYS[1])  # warms the peer up again after our key
                    peer_times.append(await press(queues[0], PEER_KEYS[0]))
                our_times.append(await press(queues[1], key))
    finally:
        for queue in queues:
            await queue.put(None)
        await asyncio.gather(*tasks)
    return our_times, peer_times


def key_to_frame(app_factory: Callable[[], App], keys: Sequence[str], rounds: int = 10, setup: Setup | None = None,
                 size: tuple[int, int] = SIZE, timed: Sequence[str] | None = None, pause_s: float = 0.0) -> tuple[float, float]:
    """Median seconds per key for ours and for the trivial app, over `rounds` passes through
    `keys` (a first pass warms both up and is dropped), each of our timed keys right after one
    of the peer's; with `timed`, only those keys count (the others only set them up); with
    `pause_s`, our keys come that far apart and each app's timed key after half of it (idle,
    untimed: what runs then is not counted)."""
    ours, peer = asyncio.run(_interleaved(app_factory(), keys, rounds + 1, setup, size, timed, pause_s))
    per_pass = len(keys) if timed is None else sum(key in timed for key in keys)
    return statistics.median(ours[per_pass:]), statistics.median(peer[per_pass:])


def compare(label: str, app_factory: Callable[[], App], keys: Sequence[str], rounds: int = 10,
            setup: Setup | None = None, size: tuple[int, int] = SIZE, timed: Sequence[str] | None = None,
            pause_s: float = 0.0) -> float:
    """Print ours vs the trivial app, same keys, same size, interleaved; return the ratio."""
    ours, peer = key_to_frame(app_factory, keys, rounds, setup, size, timed, pause_s)
    ratio = ours / peer
    print(f"{label}: key-to-frame {ours * 1000:.2f} ms vs trivial app {peer * 1000:.2f} ms -> ratio {ratio:.2f}"
          f" (target <= 1.2) [{size[0]}x{size[1]}, median of {rounds} passes]", flush=True)
    return ratio
