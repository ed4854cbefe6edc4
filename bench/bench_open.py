"""How soon a profile opened alone is on screen: `xla-tui PROFILE` until its timeline has the
workspace (the keys work from then on), and until its main program is parsed too.

Workload: `make_profile.py`'s 20 GPT train steps on CPU (the xplane, about 590k events, which
holds the train step's 52k-instruction program). Each run is a fresh app in this process;
medians of several runs.

    python bench/bench_open.py [--runs 5]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

from make_profile import newest_run  # noqa: E402

from tui.app import XlaTuiApp  # noqa: E402


class TimedApp(XlaTuiApp):
    """The app, noting when its workspace arrives and when its program is parsed."""

    CSS_PATH = str(ROOT / "tui" / XlaTuiApp.CSS_PATH)  # a subclass elsewhere reads it from here

    def __init__(self, *paths) -> None:
        super().__init__(*paths)
        self.began = time.perf_counter()
        self.times: dict[str, float] = {}

    def _adopt(self, ws) -> None:
        super()._adopt(ws)
        self.times.setdefault("timeline", time.perf_counter() - self.began)

    def _program_parsed(self, ws, first) -> None:
        super()._program_parsed(ws, first)
        self.times.setdefault("program", time.perf_counter() - self.began)


async def one_open(path: Path) -> dict[str, float]:
    app = TimedApp(path)
    async with app.run_test(size=(200, 50)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        app.times.setdefault("program", app.times["timeline"])
        return app.times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    run = newest_run()
    if run is None:
        sys.exit("no profile: run `python bench/make_profile.py` first")
    xplane = next(run.glob("*.xplane.pb"))
    runs = [asyncio.run(one_open(xplane)) for _ in range(args.runs)]
    print(f"profile: {xplane} ({xplane.stat().st_size / 1e6:.1f} MB), opened alone")
    for key, what in (("timeline", "the timeline has the workspace (keys work)"), ("program", "its program is parsed")):
        print(f"  {what}: {statistics.median(r[key] for r in runs):.2f} s (median of {args.runs})")


if __name__ == "__main__":
    main()
