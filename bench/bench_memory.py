"""The memory screen on the 48-layer GPT train step: key-to-frame vs a trivial Textual app.

    python -m bench.bench_memory [--layers 48] [--rounds 10]

Target (issue 4): ratio <= 1.2 for moving the program cursor (left/right), the buffer table
(up/down, which also changes the shared selection) and the jumps (p/m, home/end), measured
with bench.keyframe in one process. Unbound keys (x/z) give the floor: what any key costs on
this screen's widget tree before the screen does anything. Also prints how long the screen takes to open (build the
profile in its worker and draw), from XLA's sidecar files and from the HLO text alone.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import statistics
import time

from bench.keyframe import compare
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
    parser.add_argument("--repeats", type=int, default=3, help="comparisons per key group (the machine is shared)")
    args = parser.parse_args()

    from tui.app import XlaTuiApp

    dump = gpt_dump(args.layers)
    text_only = CACHE / f"gpt{args.layers}_text_only"
    text_only.mkdir(exist_ok=True)
    lone = text_only / "train_step.txt"
    if not lone.exists():
        shutil.copy(gpt_hlo(args.layers), lone)
    size = (200, 50)
    for label, path in (("sidecar files", dump), ("HLO text alone", lone)):
        times = [_open_time(path, size) for _ in range(3)]
        print(f"open the memory screen ({label}): {statistics.median(times) * 1000:.0f} ms (median of 3)")

    def app():
        return XlaTuiApp(dump)

    name = f"memory {args.layers} layers"
    summary = []
    for keys in (["x", "z"], ["right", "left"], ["down", "up"], ["p", "m"], ["end", "home"]):
        label = f"{name} {'/'.join(keys)}" + (" (unbound keys: the floor)" if keys == ["x", "z"] else "")
        ratios = [compare(label, app, keys, rounds=args.rounds, setup=_open_screen, size=size)
                  for _ in range(args.repeats)]
        summary.append(f"{label}: median ratio {statistics.median(ratios):.2f} of {args.repeats}")
    print("\n".join(summary))


if __name__ == "__main__":
    main()
