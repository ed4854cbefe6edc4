"""Key-to-frame time of the timeline screen on the 590k-event GPT profile, against a trivial
Textual app measured the same way in the same process (bench/keyframe.py; target ratio <= 1.2).

Every key measured shows a new window: zoomed fully out, W then S (zoom in one
step and back); zoomed fully in (one nanosecond per cell, in the busiest stretch), D then A
(pan and back) and S then W (zoom out one step and back in). Going back lands on the window of
a moment ago, whose rows the view keeps (tui/widgets/timeline_pictures.py), and deep in a zoom
most rows are one long event whose line the view keeps for any window it fills, so those keys
are also measured with nothing kept (every key paints the whole pane), and D pressed on and on
(a window never shown before at each key): once back to back, once with a pause before each
key (a view left still has the windows of the next zoom and pan keys painted ahead), once held
down (repeats 33 ms apart: the next window in the key's direction is painted after each frame,
tui/widgets/still.py HeldKey), and W held down from fully zoomed out. Also the
cursor keys: left/right between events (zoomed fully in, each step pans to the next event: a
whole new picture, and the event's details below), right on (back to back, then held down) and
up/down between rows (two rows repainted). Last, a walk through new windows, each a zoom or
pan away from the last (D, W, D, S from 21 ns a cell), back to back and at a quick tapper's
pace (0.15 s apart: the view stands still for a tick between keys, and paints the next
windows ahead). Each comparison runs `--repeats` times (other processes on the machine swing
single runs a lot); the median ratio is the figure. Needs `make_profile.py`'s run.

    python bench/bench_timeline.py [--rounds 10] [--repeats 3] [--size 200x50] [--only 7 11]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

from keyframe import compare  # noqa: E402
from make_profile import newest_run  # noqa: E402

from tui.app import XlaTuiApp  # noqa: E402


async def show_timeline(app, pilot) -> None:
    await pilot.press("4")
    await app.workers.wait_for_complete()
    await pilot.pause()


def zoomed_in(track: str):
    """Setup: the cursor on a busy row's event in the middle of the trace (the first row of the
    first track named `track…`, found by name: the rows above it change as nesting is worked
    out), then W until the window is at its narrowest (one nanosecond per cell)."""

    async def setup(app, pilot) -> None:
        await show_timeline(app, pilot)
        view = app.screen.view
        tracks = view.trace.tracks
        on_row = next(k for k, row in enumerate(view.rows)
                      if row.kind == "track" and tracks[row.index].name.startswith(track))
        for _ in range(on_row):
            await pilot.press("down")
        for _ in range(8):
            await pilot.press("w")
        await pilot.press("right")
        while view.window.ns_per_cell > 1.0:
            await pilot.press("W")
        await app.workers.wait_for_complete()
        await pilot.pause()

    return setup


def zoomed_part_way(setup, steps: int = 6):
    """Setup, then S `steps` times: a zoom from which W, S, A and D all show new windows."""

    async def part_way(app, pilot) -> None:
        await setup(app, pilot)
        for _ in range(steps):
            await pilot.press("s")
        await app.workers.wait_for_complete()
        await pilot.pause()

    return part_way


class _Forgetful(dict):
    """A store that keeps nothing."""

    def __setitem__(self, key, value) -> None:
        pass


def nothing_kept(setup):
    """Setup, then no window kept or painted ahead, and no row's line kept for the windows it
    is one event across: every key paints the whole pane."""

    async def without_pictures(app, pilot) -> None:
        await setup(app, pilot)
        view = app.screen.view
        view.pictures.kept = 0
        view._sole_lines = _Forgetful()

    return without_pictures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--size", default="200x50")
    parser.add_argument("--only", type=int, nargs="*", help="run only these cases (numbered from 1, in the order above)")
    args = parser.parse_args()
    size = tuple(int(n) for n in args.size.split("x"))
    run = newest_run()
    if run is None:
        sys.exit("no profile: run `python bench/make_profile.py` first")
    xplane = next(run.glob("*.xplane.pb"))
    print(f"profile: {xplane}")

    def app() -> XlaTuiApp:
        return XlaTuiApp(xplane)

    busy_track = "tf_XLAEigen"  # /host:CPU's first XLA Eigen thread, its row 0
    pause_s = 0.6  # a person reading the screen
    tapping_s = 0.15  # a person tapping different keys quickly
    repeat_s = 0.033  # a held key's repeats (30 a second)
    cases = [
        ("timeline zoomed out, W/S", ["w", "s"], show_timeline, 0.0),
        ("  the same, nothing kept", ["w", "s"], nothing_kept(show_timeline), 0.0),
        ("timeline zoomed in, D/A", ["d", "a"], zoomed_in(busy_track), 0.0),
        ("  the same, nothing kept", ["d", "a"], nothing_kept(zoomed_in(busy_track)), 0.0),
        ("timeline zoomed in, S/W", ["s", "w"], zoomed_in(busy_track), 0.0),
        ("  the same, nothing kept", ["s", "w"], nothing_kept(zoomed_in(busy_track)), 0.0),
        ("timeline zoomed in, D on", ["d"], zoomed_in(busy_track), 0.0),
        ("  the same, after a pause", ["d"], zoomed_in(busy_track), pause_s),
        ("  the same, held down", ["d"], zoomed_in(busy_track), repeat_s),
        ("timeline zoomed out, W held down", ["w"], show_timeline, repeat_s),
        ("timeline cursor, right/left", ["right", "left"], zoomed_in(busy_track), 0.0),
        ("timeline cursor, right on", ["right"], zoomed_in(busy_track), 0.0),
        ("  the same, held down", ["right"], zoomed_in(busy_track), repeat_s),
        ("timeline cursor, down/up", ["down", "up"], zoomed_in(busy_track), 0.0),
        ("timeline new windows, D W D S", ["d", "w", "d", "s"], zoomed_part_way(zoomed_in(busy_track)), 0.0),
        ("  the same, tapped 0.15 s apart", ["d", "w", "d", "s"], zoomed_part_way(zoomed_in(busy_track)), tapping_s),
    ]
    medians = []
    for number, (label, keys, setup, pause) in enumerate(cases, 1):
        if args.only and number not in args.only:
            continue
        ratios = [compare(label.strip(), app, keys, args.rounds, setup, size, pause_s=pause) for _ in range(args.repeats)]
        medians.append((label, statistics.median(ratios)))
    print(f"median ratio of {args.repeats} runs (target <= 1.2):")
    for label, ratio in medians:
        print(f"  {label:<30} {ratio:.2f}")


if __name__ == "__main__":
    main()
