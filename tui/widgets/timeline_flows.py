"""The chosen event's flows drawn over the timeline's rows, as Perfetto draws its arrows.

A flow runs from the earlier event of a pair (a host's launch, an enqueue) to the later (the
kernel, the program's run). In character cells it is a line out of the earlier event's end
along its row, down (or up) the column just left of where the later event starts, and into it
from that corner:

    launch ████──╮
                 │
    kernel       ╰█████

A link whose ends share a row is a line between them ending in an arrowhead (none when both
are out of the window). Columns outside the window are clamped to its edges, so a link to an
event out of view still shows which way it goes; rows out of view are simply not drawn. Where
links cross or meet, their lines join (`├`, `┼`).
"""

from __future__ import annotations

from typing import NamedTuple

from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip


class Link(NamedTuple):
    """One flow in window cells: from the earlier event's row and last column to the later
    event's row and first column."""

    row_from: int
    end_column: int
    row_to: int
    start_column: int


Marks = dict[int, dict[int, str]]  # row -> column -> character

# Each line character by the sides it leaves its cell from (up, down, left, right), and back.
_SIDES = {"─": "lr", "│": "ud", "╮": "dl", "╯": "ul", "╰": "ur", "╭": "dr", "├": "udr", "┤": "udl", "┬": "dlr",
          "┴": "ulr", "┼": "udlr"}
_JOINED = {frozenset(sides): char for char, sides in _SIDES.items()}


def connectors(links: list[Link], cells: int) -> Marks:
    """The characters that draw `links` over rows of `cells` columns."""
    marks: Marks = {}

    def put(row: int, column: int, char: str) -> None:
        if 0 <= column < cells:
            line = marks.setdefault(row, {})
            there = line.get(column)
            if there in _SIDES and char in _SIDES:  # lines that meet join
                char = _JOINED.get(frozenset(_SIDES[there] + _SIDES[char]), char)
            line[column] = char

    for link in links:
        turn = min(max(link.start_column - 1, 0), cells - 1)  # the column the line goes down or up
        for column in range(max(link.end_column + 1, 0), min(turn, cells)):
            put(link.row_from, column, "─")
        if link.row_to == link.row_from:
            if link.end_column < turn and link.start_column > 0 and link.end_column < cells - 1:
                put(link.row_from, turn, "▶")
            continue
        down = link.row_to > link.row_from
        put(link.row_from, turn, "╮" if down else "╯")
        for row in range(min(link.row_from, link.row_to) + 1, max(link.row_from, link.row_to)):
            put(row, turn, "│")
        put(link.row_to, turn, "╰" if down else "╭")
    return marks


def overlaid(line: Strip, marks: dict[int, str], offset: int, style: Style) -> Strip:
    """`line` with `marks` (column -> character, columns counted from `offset`) drawn over it
    (the timeline draws a marked area's bar with it too)."""
    pieces, at = [], 0
    columns = sorted(marks)
    k = 0
    while k < len(columns):
        first = k
        while k + 1 < len(columns) and columns[k + 1] == columns[k] + 1:
            k += 1
        text = "".join(marks[c] for c in columns[first : k + 1])
        start = offset + columns[first]
        pieces += [line.crop(at, start), Strip([Segment(text, style)], len(text))]
        at = start + len(text)
        k += 1
    pieces.append(line.crop(at, line.cell_length))
    return Strip.join(pieces)
