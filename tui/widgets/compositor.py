"""Textual's compositor, with less work per changed line and the same output.

A key that changes much of the screen (a new graph, the memory chart's other end, a new
timeline window) spends about as long in Textual's compositor as in the pane's own drawing.
For every changed line of every widget it works out again which widget boundaries (cuts) fall
inside the widget, cuts the widget's line there, and before each piece it writes a cursor move
made as a new Rich `Control`. Here, for the panes:

- `_render_chops`: the cuts inside a widget's line are worked out once per layout (they change
  only when the layout does), and the line of a widget that is alone on it is taken whole;
- `render_segments` (FrameChops): each cursor move is made once per position, and a piece that
  starts where a changed span ends is left out (Textual writes a move and nothing else for it:
  the terminal shows the same, with fewer bytes sent).

The pieces, and what a terminal shows, are those of Textual's own compositor (tested against
it frame by frame). It overrides Textual's private methods, so it is used with the Textual
version pinned in pyproject.toml only; any other gets Textual's own (`new_compositor`).
"""

from __future__ import annotations

from typing import Callable, Sequence

from rich.console import Console
from rich.control import Control
from textual import __version__ as textual_version
from textual._compositor import ChopsUpdate, Compositor
from textual.geometry import Region
from textual.strip import Strip

PINNED_TEXTUAL = "8.2.8"
_MOVES: dict[tuple[int, int], str] = {}  # (x, y) -> the terminal's cursor move there


def new_compositor() -> Compositor:
    """The compositor a pane's screen uses: FrameCompositor on the pinned Textual."""
    return FrameCompositor() if textual_version == PINNED_TEXTUAL else Compositor()


def cursor_move(x: int, y: int) -> str:
    move = _MOVES.get((x, y))
    if move is None:
        move = _MOVES[x, y] = Control.move_to(x, y).segment.text
    return move


class FrameChops(ChopsUpdate):
    """A partial update, written as ChopsUpdate writes it, less the moves that write nothing."""

    def render_segments(self, console: Console) -> str:
        out: list[str] = []
        append = out.append
        chops, chop_ends = self.chops, self.chop_ends
        last_y = self.spans[-1][0]
        for y, x1, x2 in self.spans:
            for end, (x, strip) in zip(chop_ends[y], chops[y].items()):
                if strip is None or x >= x2 or end <= x1:
                    continue
                append(cursor_move(x, y))
                append((strip if end <= x2 else strip.crop(0, x2 - x)).render(console))
            if y != last_y:
                append("\n")
        return "".join(out)


class FrameCompositor(Compositor):
    def __init__(self) -> None:
        super().__init__()
        self._inside_for: list | None = None  # the cuts that _inside was worked out for
        self._inside: dict[tuple[int, int, int], tuple[list[int], list[int]]] = {}

    def render_partial_update(self) -> ChopsUpdate | None:
        update = super().render_partial_update()
        return None if update is None else FrameChops(update.chops, update.spans, update.chop_ends)

    def _render_chops(self, crop: Region, is_rendered_line: Callable[[int], bool]) -> Sequence[dict[int, Strip | None]]:
        """Each line's pieces by the cut they start at, front widgets first (as Textual's)."""
        cuts = self.cuts
        if self._inside_for is not cuts:  # a new layout
            self._inside_for, self._inside = cuts, {}
        inside = self._inside
        chops: list[dict[int, Strip | None]] = [dict.fromkeys(line[:-1]) for line in cuts]
        for region, clip, strips in self._get_renders(crop):
            x, y0, width, height = region.intersection(clip)
            last = x + width
            for y, strip in zip(range(y0, y0 + height), strips):
                if not is_rendered_line(y):
                    continue
                found = inside.get((y, x, last))
                if found is None:
                    at = [cut for cut in cuts[y] if x <= cut <= last]
                    found = inside[y, x, last] = (at, [cut - x for cut in at[1:]])
                at, relative = found
                line = chops[y]
                if len(at) == 2:  # alone on the line: the widget's line is the piece
                    if line.get(at[0]) is None:
                        pieces = [strip] if strip.cell_length == relative[0] else strip.divide(relative)
                        if pieces:
                            line[at[0]] = pieces[0]
                    continue
                for cut, piece in zip(at, strip.divide(relative)):
                    if line.get(cut) is None:
                        line[cut] = piece
        return chops
