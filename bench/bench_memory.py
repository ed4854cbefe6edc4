"""The memory screen on the 48-layer GPT train step: key-to-frame vs a trivial Textual app.

    python -m bench.bench_memory [--layers 48] [--rounds 10] [--repeat 5]

Target (issue 4): ratio <= 1.2 for moving the program cursor (left/right: back to the point of
a moment ago, whose buffers the screen keeps; right on: a new point at every key), the buffer
table (up/down, which also changes the shared selection) and the jumps (p/m, home/end),
measured with bench.keyframe in one process. Right on and the jumps run again with a pause
before each key (a person reading the screen): the screen works out the points the next keys
show while it stands still (tui/widgets/still.py). Each case runs `--repeat` times, the trivial app beside
ours with keys interleaved, and prints the median of the ratios and the ratio of the medians. Unbound keys (x/z) give the floor: what any
key costs on this screen's widget tree before the screen does anything. Also prints how long
the screen takes to open (the profile built in its worker, then drawn), from XLA's sidecar
files and from the HLO text alone.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import statistics
import time

from bench.keyframe import SIZE, key_to_frame
from bench.workloads import CACHE, gpt_dump, gpt_hlo


async def _open_screen(app, pilot) -> None:
    await pilot.press("3")
    await app.workers.wait_for_complete()
    await pilot.pause()


def _open_time(path, size) -> float:
    """Seconds from pressing 3 (workspace loaded) until the memory screen shows its profile."""
    from tui.app import XlaTuiApp
    from tui.screens.memory import MemoryScreen

    async def run() -> float:
        app = XlaTuiApp(path)
        async with app.run_test(size=size) as pilot:
            await app.workers.wait_for_complete()
            await pilot.pause()
            start = time.perf_counter()
            await _open_screen(app, pilot)
            assert isinstance(app.screen, MemoryScreen) and app.screen.profile is not None
            return time.perf_counter() - start

    return asyncio.run(run())


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--layers", type=int, default=48)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=5, help="comparisons per case (the machine is shared)")
    parser.add_argument("--only", type=int, nargs="*", help="run only these cases (numbered from 1, in the order above)")
    args = parser.parse_args()

    from tui.app import XlaTuiApp

    dump = gpt_dump(args.layers)
    text_only = CACHE / f"gpt{args.layers}_text_only"
    text_only.mkdir(exist_ok=True)
    lone = text_only / "train_step.txt"
    if not lone.exists():
        shutil.copy(gpt_hlo(args.layers), lone)
    if not args.only:
        for label, path in (("sidecar files", dump), ("HLO text alone", lone)):
            times = [_open_time(path, SIZE) for _ in range(3)]
            print(f"open the memory screen ({label}): {statistics.median(times) * 1000:.0f} ms (median of 3)")

    def app():
        return XlaTuiApp(dump)

    pause_s = 0.6  # a person reading the screen
    cases = [
        ("unbound keys x/z (the floor: any key on this screen)", ["x", "z"], 0.0),
        ("program cursor (right/left)", ["right", "left"], 0.0),
        ("program cursor, right on", ["right"], 0.0),
        ("  the same, after a pause", ["right"], pause_s),
        ("buffer table (down/up, selects the buffer)", ["down", "up"], 0.0),
        ("jumps to XLA's peak and the max (p/m)", ["p", "m"], 0.0),
        ("  the same, after a pause", ["p", "m"], pause_s),
        ("jumps to the ends (end/home)", ["end", "home"], 0.0),
        ("  the same, after a pause", ["end", "home"], pause_s),
    ]
    for number, (label, keys, pause) in enumerate(cases, 1):
        if args.only and number not in args.only:
            continue
        label = label.strip()
        peers, ours = [], []
        for _ in range(args.repeat):
            mine, peer = key_to_frame(app, keys, args.rounds, _open_screen, pause_s=pause)
            ours.append(mine)
            peers.append(peer)
        pairs = statistics.median(o / p for o, p in zip(ours, peers))
        print(f"{label}: median of {args.repeat} ratios {pairs:.2f}; median {statistics.median(ours) * 1000:.2f} ms"
              f" vs trivial app {statistics.median(peers) * 1000:.2f} ms -> "
              f"{statistics.median(ours) / statistics.median(peers):.2f} (target <= 1.2)", flush=True)


if __name__ == "__main__":
    main()
