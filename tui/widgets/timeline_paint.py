"""Binned timeline cells -> segments: bars in category colours, eighth-block edges, names inside.

A frame's cost is mostly its segments (Textual filters and encodes each one) and Python work
per cell, so the rows of a track are painted together: colours are small integers, styles are
compared for all cells at once with NumPy, and each run of one style becomes one segment. A
bar's name is written into its own run, so names cost no extra segments.
"""

from __future__ import annotations

import zlib
from typing import Callable

import numpy as np
from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style

from tui.model.categories import CATEGORIES, category_of_event_name
from tui.model.trace_bins import SUB, Cells
from tui.widgets.palette import CATEGORY_COLORS

# Colour numbers. EMPTY is the background; its value is set from the widget's theme.
EMPTY, TEXT, CURSOR, STEP_A, STEP_B, SUMMARY, COUNTER, MARK = range(8)
_FIXED = ["#000000", "#000000", "#ffffff", "#9e9e9e", "#c6c6c6", "#8787af", "#87af87", "#ffd75f"]
_FIRST_CATEGORY = len(_FIXED)
_CATEGORY = {name: _FIRST_CATEGORY + k for k, name in enumerate(CATEGORIES)}
# Events that are not XLA ops (host threads, Python frames) get muted colours chosen by name.
_HOST = ["#8787af", "#87af87", "#af8787", "#87afaf", "#afaf87", "#af87af", "#a8a8a8", "#87a0d7"]
_FIRST_HOST = _FIRST_CATEGORY + len(CATEGORIES)
COLOURS = _FIXED + [CATEGORY_COLORS[name] for name in CATEGORIES] + _HOST
N = len(COLOURS)

# 0: a filled or empty cell; 1-7: that many eighths of the left colour; 8-11: busy shades.
_GLYPHS = np.array(list(" ▏▎▍▌▋▊▉░▒▓█"))
_LEVELS = np.array(list(" ▁▂▃▄▅▆▇█"))


_STYLES: dict[str, list[Style]] = {}  # background -> a painter's styles on it


def name_colour(name: str, op_names: frozenset[str]) -> int:
    """Category colour for XLA ops (known instructions, or names that say what op they are;
    XLA's CPU runtime marks an op's end as `end: <op>`), otherwise a muted colour that stays
    the same for the same name."""
    subject = name.rsplit(": ", 1)[-1]
    category = category_of_event_name(subject)
    if subject in op_names or category != "elementwise":
        return _CATEGORY[category]
    return _FIRST_HOST + zlib.crc32(name.encode()) % len(_HOST)


def key(fg: int, bg: int) -> int:
    """A style as one integer (NumPy compares these for a whole row at once)."""
    return fg * N + bg


class Painter:
    """Every (foreground, background) style, made once per background colour: equal styles are
    then the same object, for every painter on that background (a view makes a new one on a
    resize), which keeps the style caches that look styles up hitting at once; and a key is a
    list index."""

    def __init__(self, background: str):
        self.colours = [background] + COLOURS[1:]
        styles = _STYLES.get(background)
        if styles is None:
            styles = _STYLES[background] = [Style(color=self.colours[fg], bgcolor=self.colours[bg])
                                            for fg in range(N) for bg in range(N)]
        self.styles = styles

    def segments(self, chars: list[str], keys: np.ndarray) -> list[list[Segment]]:
        """Rows of segments, one per run of equal key: `keys` is (rows, cells), `chars` the
        rows' characters flattened."""
        rows, cells = keys.shape
        flat = keys.ravel()
        cut = np.ones(len(flat), bool)
        cut[1:] = flat[1:] != flat[:-1]
        cut[::cells] = True
        starts = np.flatnonzero(cut)
        bounds = np.append(starts, len(flat)).tolist()
        text, styles, make = "".join(chars), self.styles, tuple.__new__
        # tuple.__new__ builds the Segment named tuple without its Python-level __new__: a
        # zoomed-out frame makes about a thousand of them.
        runs = [make(Segment, (text[a:b], styles[k], None)) for a, b, k in zip(bounds, bounds[1:], flat[starts].tolist())]
        first = np.searchsorted(starts, np.arange(rows + 1) * cells).tolist()
        return [runs[a:b] for a, b in zip(first, first[1:])]

    def events(
        self,
        cells: Cells,
        colour_of: Callable[[np.ndarray], np.ndarray],
        name_of: Callable[[int], str],
        cursor: np.ndarray | None = None,
    ) -> list[list[Segment]]:
        """Segments of rows of binned events.

        `colour_of` maps event positions (as in `cells`) to colour numbers, `name_of` one to
        its label; `cursor[r]` is the position drawn in the cursor colour on row r (-1: none).
        A cell whose left and right are the same event is filled, otherwise it is an eighth
        block of the left colour on the right one.
        """
        left, right, split, shade = cells
        left_colour = np.where(left >= 0, colour_of(np.maximum(left, 0)), EMPTY)
        right_colour = np.where(right >= 0, colour_of(np.maximum(right, 0)), EMPTY)
        if cursor is not None:
            marked = cursor[:, None]
            left_colour[(left == marked) & (marked >= 0)] = CURSOR
            right_colour[(right == marked) & (marked >= 0)] = CURSOR
        busy = shade > 0
        full = ~busy & (left == right)
        fg = np.where(full, TEXT, left_colour)
        bg = np.where(full, left_colour, np.where(busy, EMPTY, right_colour))
        chars = _GLYPHS[np.where(busy, SUB - 1 + shade, np.where(full, 0, split))].ravel().tolist()
        _write_names(chars, np.where(full & (left >= 0), left, -1), name_of)
        return self.segments(chars, fg * N + bg)

    def instants(self, columns: np.ndarray, colours: np.ndarray, name_of: Callable[[int], str], cells: int) -> list[Segment]:
        """A row of instant events: a `▼` in the cell of each (the first one's colour where several
        share a cell), its name after it while the row is free up to the next."""
        chars, keys = [" "] * cells, np.full(cells, key(EMPTY, EMPTY))
        inside = np.flatnonzero((columns >= 0) & (columns < cells))
        shown, first = np.unique(columns[inside], return_index=True)
        at = shown.tolist()
        for n, (column, k) in enumerate(zip(at, inside[first].tolist())):
            end = at[n + 1] - 1 if n + 1 < len(at) else cells  # a blank cell before the next marker
            name, room = name_of(k), end - column - 1
            label = "▼" + (name if len(name) <= room else name[: room - 1] + "…" if room >= 3 else "")
            if cell_len(label) != len(label):
                label = "▼"
            chars[column : column + len(label)] = label
            keys[column : column + len(label)] = key(int(colours[k]), EMPTY)
        return self.segments(chars, keys[None, :])[0]

    def levels(self, fraction: np.ndarray, colour: int) -> list[Segment]:
        """A sparkline row: each cell's fraction (0..1, NaN: none) as a block of that height."""
        level = np.ceil(np.clip(np.nan_to_num(fraction), 0, 1) * 8).astype(int)
        keys = np.where(level > 0, key(colour, EMPTY), key(EMPTY, EMPTY))
        return self.segments(_LEVELS[level].tolist(), keys[None, :])[0]


def _write_names(chars: list[str], filled_by: np.ndarray, name_of: Callable[[int], str]) -> None:
    """Write each bar's name over its filled cells (rows x cells, flattened into `chars`)
    where there is room for at least two characters of it."""
    flat = filled_by.ravel()
    cut = np.ones(len(flat), bool)
    cut[1:] = flat[1:] != flat[:-1]
    cut[:: filled_by.shape[1]] = True
    starts = np.flatnonzero(cut)
    ends = np.append(starts[1:], len(flat))
    keep = (flat[starts] >= 0) & (ends - starts >= 3)
    for a, b in zip(starts[keep].tolist(), ends[keep].tolist()):
        name = name_of(int(flat[a]))
        room = b - a - 1
        shown = name if len(name) <= room else name[: room - 1] + "…"
        if cell_len(shown) == len(shown):
            chars[a + 1 : a + 1 + len(shown)] = shown


def fit(text: str, width: int) -> str:
    """`text` cut (with an ellipsis) or padded to exactly `width` characters."""
    if len(text) > width:
        text = text[: max(width - 1, 0)] + "…" if width else ""
    return text.ljust(width)
