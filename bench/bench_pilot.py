"""Keys as a test would time them: the wall time of `await pilot.press(key)`, ours against the
trivial app of bench/keyframe.py, on each screen's busiest keys.

Pilot's `press` waits for the app to go idle: it sleeps in steps of 20 ms until a step passes
with under 1 ms of CPU time (textual/_wait.py), twice. So this figure counts steps, not
milliseconds: a key and its frame that take over 1 ms cost three steps (about 62 ms), under
1 ms two (about 41 ms; the trivial app is near that line and lands on either side from one run
to the next). What it catches is work that runs after a key's frame in a step of its own, which
bench/keyframe.py does not time: a held key's next picture made 20 ms after its frame cost
details' j a fourth step (83 ms) before it was made right after the frame (tui/widgets/still.py).

    python -m bench.bench_pilot [--runs 3] [--presses 25] [case ...]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from pathlib import Path

from bench.keyframe import SIZE, TrivialApp
from bench.workloads import gpt_dump, gpt_hlo

sys.path.insert(0, str(Path(__file__).resolve().parent))
from make_profile import newest_run  # noqa: E402


async def _median_press(app, setup: list[str], keys: list[str], timed: set[str] | None, presses: int) -> float:
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        for key in setup:
            await pilot.press(key)
            await app.workers.wait_for_complete()
            await pilot.pause()
        times = []
        for round_ in range(presses):
            for key in keys:
                start = time.perf_counter()
                await pilot.press(key)
                if round_ >= 3 and (timed is None or key in timed):  # the first rounds warm up
                    times.append(time.perf_counter() - start)
        return statistics.median(times)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--presses", type=int, default=25)
    parser.add_argument("cases", nargs="*", help="run only these (by name)")
    args = parser.parse_args(argv)
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

    from tui.app import XlaTuiApp
    from tui.model.workspace import ModuleEntry, Workspace

    entry = ModuleEntry(label="gpt", name="gpt", path=gpt_hlo(48))
    hlo = entry.load()
    dots = [i for i in hlo.entry.instructions if i.opcode in ("dot", "fusion") and i.operands and i.users]

    def on_a_dot():
        ws = Workspace([entry])
        ws.select(instruction=dots[len(dots) // 2])
        return XlaTuiApp(workspace=ws)

    run = newest_run()
    xplane = next(run.glob("*.xplane.pb")) if run is not None else None
    cases = {
        "graph moves": (on_a_dot, [], ["k", "j"], None),
        "graph new op": (on_a_dot, [], ["j", "enter"], {"enter"}),
        "details j": (on_a_dot, ["2"], ["j"], None),
        "memory right": (lambda: XlaTuiApp(gpt_dump(48)), ["3"], ["right"], None),
        "memory end/home": (lambda: XlaTuiApp(gpt_dump(48)), ["3"], ["end", "home"], None),
    }
    if xplane is not None:
        cases["timeline w/s"] = (lambda: XlaTuiApp(xplane), ["4"], ["w", "s"], None)
        cases["timeline d"] = (lambda: XlaTuiApp(xplane), ["4", "w", "w", "w", "w"], ["d"], None)
    else:
        print("no profile: the timeline cases need `python bench/make_profile.py` first")
    for name in args.cases or cases:
        make, setup, keys, timed = cases[name]
        ratios = []
        for _ in range(args.runs):
            peer = asyncio.run(_median_press(TrivialApp(), [], ["j", "k"], None, args.presses))
            ours = asyncio.run(_median_press(make(), setup, keys, timed, args.presses))
            ratios.append(ours / peer)
            print(f"  {name}: {ours * 1000:.1f} ms vs trivial app {peer * 1000:.1f} ms -> {ours / peer:.2f}", flush=True)
        print(f"{name}: median of {args.runs} ratios {statistics.median(ratios):.2f}", flush=True)


if __name__ == "__main__":
    main()
