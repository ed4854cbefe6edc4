"""Flow lines in cells (tui/widgets/timeline_flows.py): the edge cases the real profiles in
test_timeline.py do not reach (same row, overlapping events, ends out of the window)."""

from __future__ import annotations

from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

from tui.widgets.timeline_flows import Link, connectors, overlaid


def drawn(marks: dict[int, dict[int, str]], rows: int, cells: int) -> list[str]:
    return ["".join(marks.get(row, {}).get(column, ".") for column in range(cells)) for row in range(rows)]


def test_a_flow_down_and_a_flow_up():
    assert drawn(connectors([Link(0, 1, 3, 6)], 8), 4, 8) == [
        "..───╮..",
        ".....│..",
        ".....│..",
        ".....╰..",
    ]
    assert drawn(connectors([Link(2, 0, 0, 3)], 5), 3, 5) == [
        "..╭..",
        "..│..",
        ".─╯..",
    ]


def test_a_flow_along_one_row_ends_in_an_arrowhead_and_touching_events_get_none():
    assert drawn(connectors([Link(0, 1, 0, 6)], 8), 1, 8) == ["..───▶.."]
    assert connectors([Link(0, 4, 0, 5)], 8) == {}


def test_a_flow_along_one_row_out_of_the_window_on_either_side_draws_nothing():
    assert connectors([Link(0, -9, 0, -2)], 8) == {}  # both ends left of the window
    assert connectors([Link(0, 12, 0, 20)], 8) == {}  # both right
    assert drawn(connectors([Link(0, -9, 0, 3)], 8), 1, 8) == ["──▶....."]  # into the window from the left
    assert drawn(connectors([Link(0, 5, 0, 30)], 8), 1, 8) == ["......─▶"]  # out of it to the right


def test_lines_that_meet_join():
    """Two flows from one event: the second's corner on the first's line, its line past the first's turn."""
    assert drawn(connectors([Link(0, 0, 2, 4), Link(0, 0, 3, 4)], 6), 4, 6) == [
        ".──╮..",
        "...│..",
        "...├..",
        "...╰..",
    ]
    assert drawn(connectors([Link(0, 0, 2, 7), Link(1, 0, 1, 5)], 8), 3, 8) == [
        ".─────╮.",
        ".───▶.│.",
        "......╰.",
    ]
    assert drawn(connectors([Link(1, 0, 2, 4), Link(0, 5, 3, 7)], 8), 4, 8) == [
        "......╮.",
        ".──╮..│.",
        "...╰..│.",
        "......╰.",
    ]
    assert drawn(connectors([Link(1, 0, 1, 8), Link(0, 2, 2, 5)], 8), 3, 8) == [
        "...─╮...",
        ".───┼──▶",
        "....╰...",
    ]


def test_a_later_event_that_starts_before_the_earlier_ends_gets_the_turn_over_the_earlier():
    assert drawn(connectors([Link(0, 6, 1, 3)], 8), 2, 8) == ["..╮.....", "..╰....."]


def test_ends_out_of_the_window_are_clamped_to_its_edges():
    assert drawn(connectors([Link(0, -9, 2, 40)], 6), 3, 6) == ["─────╮", ".....│", ".....╰"]
    assert drawn(connectors([Link(0, -9, 1, -3)], 6), 2, 6) == ["╮.....", "╰....."]


def test_marks_are_drawn_over_a_line_in_runs_and_the_rest_is_kept():
    line = Strip([Segment("ab", Style(bold=True)), Segment("cdefgh")], 8)
    marked = overlaid(line, {1: "─", 2: "─", 3: "╮", 5: "│"}, 1, Style(italic=True))
    assert marked.text == "ab──╮f│h" and marked.cell_length == 8
    assert [(s.text, s.style) for s in marked if s.text in ("──╮", "│")] == [("──╮", Style(italic=True)), ("│", Style(italic=True))]
    assert [s.style for s in marked if s.text == "ab"] == [Style(bold=True)]
