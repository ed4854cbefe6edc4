"""What a whole new picture costs in Textual alone: the floor under the 1.2x key-to-frame bar.

An app whose key only swaps between two full-screen pictures drawn in advance (no work of its
own: each frame hands Textual fresh Strip objects, as a pane that redraws everything must) is
measured like the screens (bench/keyframe.py, against the trivial app, same process). Its
ratio grows with the segments in the picture (each one is cut, joined and encoded per frame):
a zoomed-out timeline frame hands over about 700 new ones. Lines reused from the last frame
cost next to nothing (Textual keeps their encoding), which is why the screens keep every line
they can.

    python bench/bench_floor.py [--segments 1 10 20 40] [--repeats 3] [--rounds 10]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

from keyframe import SIZE, key_to_frame  # noqa: E402
from rich.segment import Segment  # noqa: E402
from rich.style import Style  # noqa: E402
from textual.app import App, ComposeResult  # noqa: E402
from textual.binding import Binding  # noqa: E402
from textual.strip import Strip  # noqa: E402
from textual.widget import Widget  # noqa: E402

from tui.widgets.line_cache import LineCache  # noqa: E402


def picture(seed: int, width: int, height: int, per_line: int) -> list[list[Segment]]:
    """Lines of `per_line` segments, each its own colour (as bars of different events are)."""
    chance = random.Random(seed)
    styles = [Style(color="#ffffff", bgcolor=f"#{chance.randrange(1 << 24):06x}") for _ in range(64)]
    lines = []
    for _ in range(height):
        cuts = [width * k // per_line for k in range(per_line + 1)]
        lines.append([Segment(chance.choice("abcdef") * (b - a), chance.choice(styles)) for a, b in zip(cuts, cuts[1:])])
    return lines


class Picture(LineCache, Widget):
    """Shows one of two pictures; every line handed over is a new Strip (no encoding kept)."""

    DEFAULT_CSS = "Picture { height: 1fr; }"

    def __init__(self, per_line: int, width: int, height: int):
        super().__init__()
        self.pictures = [picture(seed, width, height, per_line) for seed in (1, 2)]
        self.shown, self.drawn = 0, None

    def render_line(self, y: int) -> Strip:
        if self.drawn is None:  # in the styles the screen draws, as the panes build their lines
            self.drawn = [[list(self.drawn_strip(Strip(line))) for line in lines] for lines in self.pictures]
        lines = self.drawn[self.shown]
        if y >= len(lines):
            return Strip.blank(self.view_size.width, self.base_style)
        return Strip(lines[y], self.view_size.width)


class SwapApp(App):
    BINDINGS = [Binding(k, "swap", k) for k in "ws"]

    def __init__(self, per_line: int, size: tuple[int, int]):
        super().__init__()
        self.per_line, self.picture_size = per_line, size

    def compose(self) -> ComposeResult:
        yield Picture(self.per_line, *self.picture_size)

    def action_swap(self) -> None:
        picture = self.query_one(Picture)
        picture.shown ^= 1
        picture.refresh()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--segments", type=int, nargs="+", default=[1, 10, 20, 40])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=10)
    args = parser.parse_args()
    width, height = SIZE
    for per_line in args.segments:
        runs = [key_to_frame(lambda: SwapApp(per_line, (width, height)), ["w", "s"], args.rounds) for _ in range(args.repeats)]
        ratios = [ours / peer for ours, peer in runs]
        ours, peer = runs[ratios.index(statistics.median_low(ratios))]  # a run of the median (the lower of two)
        print(f"new picture, {per_line} segments per line ({per_line * height} in all): key-to-frame {ours * 1000:.2f} ms"
              f" vs trivial app {peer * 1000:.2f} ms -> ratio {statistics.median(ratios):.2f}"
              f" (runs {', '.join(f'{r:.2f}' for r in ratios)}) [{width}x{height}]", flush=True)


if __name__ == "__main__":
    main()
