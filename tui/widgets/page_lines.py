"""Rich renderables to lines of segments, laid out as Rich lays them out, at a fraction of the cost.

The details page is drawn again on every selection, and most of that frame went to Rich:
`Text.wrap` makes a Text per line and re-slices every span, `Text.render` keeps a style stack
per span edge, then `split_and_crop_lines` cuts it all up again. What the page holds is plain:
Texts whose spans follow each other without overlapping, in single-width characters, Groups of
those, and label/value rows. Those are cut into styled runs once and wrapped with Rich's own
word divider (same breaks, same output: a test compares every line with Rich's); anything else
(tabs, wide characters, nested spans, justified text, other renderables) goes to Rich itself.
"""

from __future__ import annotations

from bisect import bisect_right

from rich._wrap import divide_line  # Rich's word breaker, so lines break where Rich breaks them
from rich.cells import cell_len
from rich.console import Console, Group
from rich.segment import Segment
from rich.style import Style
from rich.text import Text

Line = list[Segment]
_BOLD = Style(bold=True)
_FEW_RUNS = 64  # a text with more styled runs than this finds each line's by bisection


class KeyValues:
    """Label/value rows with a hanging indent: what a two-column grid shows, at a fraction of
    rich.table's cost (it measures every cell twice)."""

    def __init__(self, rows: list[tuple[str, str | Text]]):
        self.rows = rows

    @property
    def label_width(self) -> int:
        return max((len(label) for label, _ in self.rows), default=0) + 2

    def lines(self, width: int, console: Console) -> list[Line]:
        label_width = self.label_width
        return [line for label, value in self.rows for line in row_lines(label, value, label_width, width, console)]


def row_lines(label: str, value: str | Text, label_width: int, width: int, console: Console) -> list[Line]:
    """One row of a KeyValues: the value folded beside its label."""
    text = value if isinstance(value, Text) else Text(value)
    room = max(10, width - label_width)
    return [_fit([Segment(label.ljust(label_width) if n == 0 else " " * label_width, _BOLD), *line], width)
            for n, line in enumerate(text_lines(text, room, console, pad=False))]


def lines(renderable, width: int, console: Console) -> list[Line]:
    """The renderable's lines, each exactly `width` cells."""
    if isinstance(renderable, Text):
        return text_lines(renderable, width, console)
    if isinstance(renderable, KeyValues):
        return renderable.lines(width, console)
    if isinstance(renderable, Group):
        return [line for part in renderable.renderables for line in lines(part, width, console)]
    return console.render_lines(renderable, console.options.update_width(width), pad=True)


def content_key(renderable) -> tuple | None:
    """A key equal for renderables `lines` lays out alike (at one width), None for those it
    cannot tell."""
    if isinstance(renderable, Text):
        return (renderable.plain, tuple(renderable.spans), renderable.style, renderable.justify,
                renderable.overflow, renderable.no_wrap, renderable.end, renderable.tab_size)
    if isinstance(renderable, str):
        return (renderable,)
    return None


def text_lines(text: Text, width: int, console: Console, pad: bool = True) -> list[Line]:
    """`text` folded at `width` cells the way `console.render_lines(text, pad=pad)` does."""
    runs = _runs(text, console)
    overflow = text.overflow or "fold"
    if (runs is None or text.end != "\n" or text.justify not in (None, "default")
            or (overflow != "fold" and not text.no_wrap)):
        return console.render_lines(text, console.options.update_width(width), pad=pad)
    plain = text.plain
    out: list[Line] = []
    start = 0
    starts = [run[0] for run in runs] if len(runs) > _FEW_RUNS else None
    for end in (*_newlines(plain), len(plain)):
        if text.no_wrap:
            rows = [_cut(runs, start, end, width, overflow == "ellipsis", starts)]
        else:
            rows = [_slice(runs, a, b, starts) for a, b in _wrapped(plain, start, end, width)]
        out += [_fit(row, width) for row in rows] if pad else rows
        start = end + 1
    return out


def _wrapped(plain: str, start: int, end: int, width: int):
    """(start, end) of each line plain[start:end] folds into, as Rich's Text.wrap folds it."""
    if end - start <= width:
        yield start, end
        return
    breaks = [start, *(start + at for at in divide_line(plain[start:end], width)), end]
    for a, b in zip(breaks, breaks[1:]):
        if b - a > width:  # only trailing whitespace can reach past the width
            b = max(a + width, a + len(plain[a:b].rstrip()))
        yield a, min(b, a + width)


def _cut(runs, start: int, end: int, width: int, ellipsis: bool, starts: list[int] | None) -> Line:
    """plain[start:end] cut to `width`; an ellipsis takes the style of the character it replaces."""
    if end - start <= width:
        return _slice(runs, start, end, starts)
    if not ellipsis:
        return _slice(runs, start, start + width, starts)
    last = start + width - 1
    return [*_slice(runs, start, last, starts),
            *(Segment("…", segment.style) for segment in _slice(runs, last, last + 1, starts))]


def _newlines(plain: str):
    at = plain.find("\n")
    while at != -1:
        yield at
        at = plain.find("\n", at + 1)


def _runs(text: Text, console: Console) -> list[tuple[int, int, Style, str]] | None:
    """(start, end, style) covering the text, or None where Rich must do it (see module doc)."""
    plain = text.plain
    if "\t" in plain or (not plain.isascii() and cell_len(plain) != len(plain) - plain.count("\n")):
        return None
    base = _style(text.style, console)
    runs: list[tuple[int, int, Style, str]] = []
    at = 0
    for span in sorted(text.spans, key=lambda s: s.start):
        start, end = max(span.start, 0), min(span.end, len(plain))
        if start < at:
            return None  # nested or overlapping spans
        if start >= end:
            continue
        if start > at:
            runs.append((at, start, base, plain[at:start]))
        runs.append((start, end, base + _style(span.style, console), plain[start:end]))
        at = end
    if at < len(plain):
        runs.append((at, len(plain), base, plain[at:]))
    return runs


def _slice(runs: list[tuple[int, int, Style, str]], a: int, b: int, starts: list[int] | None = None) -> Line:
    """The segments of plain[a:b]: a scan of the runs where they are few, else from the run
    holding `a` (found by bisection in their `starts`) to the one holding b - 1."""
    if starts is None:
        return [Segment(text[max(start, a) - start:min(end, b) - start], style)
                for start, end, style, text in runs if start < b and end > a]
    out = []
    for index in range(max(0, bisect_right(starts, a) - 1), len(runs)):
        start, end, style, text = runs[index]
        if start >= b:
            break
        if end > a:
            out.append(Segment(text[max(start, a) - start:min(end, b) - start], style))
    return out


def _fit(line: Line, width: int) -> Line:
    length = sum(len(segment.text) for segment in line)
    if length < width:
        line.append(Segment(" " * (width - length)))
    elif length > width:
        line = list(Segment.adjust_line_length(line, width))
    return line


_STYLES: dict = {}


def _style(style: str | Style, console: Console) -> Style:
    if isinstance(style, Style):
        return style
    if style not in _STYLES:
        _STYLES[style] = console.get_style(style, default=Style.null())
    return _STYLES[style]
