"""Draws a GraphLayout (tui/model/graph_layout.py) and moves a cursor over its boxes.

Line API: each row of the drawing becomes a Strip once per layout; a cursor move repaints only
the name lines of the two boxes involved, so moving costs the same on a 40-instruction program as on
a 40k-instruction one. Colours follow the op categories; the focus has a double border.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Callable

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding
from textual.geometry import Region, Size
from textual.strip import Strip
from textual.widget import Widget

from tui.model.categories import instruction_category
from tui.model.graph_layout import GraphLayout, Node
from tui.widgets.direct_keys import DirectKeys
from tui.widgets.line_cache import LineCache
from tui.widgets.viewport import Viewport
from tui.widgets.palette import category_style

DRAWINGS_KEPT = 16
_EDGE = Style(color="#808080")
_MORE = Style(color="#8a8a8a", italic=True)
_CURSOR = Style(reverse=True)


def node_style(node: Node, focus: bool) -> Style:
    if node.instruction is None:
        return _MORE
    style = category_style(instruction_category(node.instruction))
    return style + Style(bold=True) if focus else style


class GraphView(DirectKeys, LineCache, Viewport, Widget, can_focus=True):
    DEFAULT_CSS = """
    GraphView { height: 1fr; }
    """
    BINDINGS = [
        Binding("up,k", "move('up')", "Operand", show=False),
        Binding("down,j", "move('down')", "User", show=False),
        Binding("left,h", "move('left')", "Left", show=False),
        Binding("right", "move('right')", "Right", show=False),
        Binding("enter", "activate", "Re-centre/expand/open"),
    ]

    def __init__(self, *, id: str | None = None):
        super().__init__(id=id)
        self.graph: GraphLayout | None = None
        self.cursor: str | None = None
        # Told the box the cursor moved to, and the box Enter (or a double click) chose: calls,
        # not messages, so the screen's answer is in the same frame (a message comes a frame later).
        self.highlighted: Callable[[Node], None] = lambda node: None
        self.activated: Callable[[Node], None] = lambda node: None
        self._rows: _Drawing | None = None  # the drawing, centred, styled, as wide as the view or wider
        self._rows_width = -1  # view width the rows were built for
        self._drawings: OrderedDict[int, tuple[GraphLayout, _Drawing]] = OrderedDict()  # recent and ahead, by id(layout)
        self._marked: dict[int, Strip] = {}  # rows of the cursor's box, highlighted

    @property
    def pad(self) -> int:
        """Columns left of the drawing: a graph narrower than the view is centred."""
        return self._pad_for(self.graph) if self.graph else 0

    def _pad_for(self, graph: GraphLayout) -> int:
        return max(0, (self.view_size.width - graph.width) // 2)

    # -- data -----------------------------------------------------------------
    def show(self, graph: GraphLayout, cursor: str | None = None) -> None:
        self.graph = graph
        self.cursor = cursor if cursor in graph.nodes else graph.focus
        self._rows_width = -1
        self._marked.clear()
        self.set_extent(Size(graph.width + self.pad, graph.height))
        self.refresh()
        self._reveal(True)

    def prepare(self, graph: GraphLayout) -> None:
        """Draw `graph` ahead (all its rows, up to a few screens), for `show` to take later."""
        drawing = self._drawing(graph)
        self.encode_ahead(drawing.strip(row) for row in range(min(graph.height, 4 * self.view_size.height)))

    def _drawing(self, graph: GraphLayout) -> _Drawing:
        """The drawing of `graph` at this width: one drawn ahead or shown a moment ago (Backspace,
        Enter back on where you came from) is taken as it is; the least recent are let go (all of
        them on a restyle)."""
        width = self.view_size.width
        found = self._drawings.pop(id(graph), None)
        if found is None or found[0] is not graph or found[1].width != width:
            found = graph, _Drawing(graph, self._pad_for(graph), width, self.base_style)
        self._drawings[id(graph)] = found  # holding the layout keeps its id from being reused
        while len(self._drawings) > DRAWINGS_KEPT:
            self._drawings.popitem(last=False)
        return found[1]

    def on_resize(self) -> None:
        if self.graph is not None:
            self.show(self.graph, self.cursor)

    def restyled(self) -> None:
        self._rows_width = -1
        self._drawings.clear()
        self._marked.clear()

    @property
    def current(self) -> Node | None:
        return self.graph.nodes.get(self.cursor) if self.graph and self.cursor else None

    def move_to(self, key: str) -> bool:
        """Put the cursor on `key` without announcing it; False when it is not drawn."""
        if self.graph is None or key not in self.graph.nodes:
            return False
        if key != self.cursor:
            old = self.current
            self.cursor = key
            self._marked.clear()
            self._repaint(old)
            self._repaint(self.current)
            self._reveal()
        return True

    def _repaint(self, node: Node | None) -> None:
        if node is not None:
            self.repaint_rows(node.y + 1)

    def _reveal(self, centre: bool = False) -> None:
        node = self.current
        if node is None:
            return
        region = Region(node.x + self.pad, node.y, node.width, node.height)
        self.reveal(region, centre)

    # -- input ----------------------------------------------------------------
    def action_move(self, direction: str) -> None:
        if self.graph is None or self.cursor is None:
            return
        key = self.graph.neighbour(self.cursor, direction)
        if key is not None and self.move_to(key):
            self.highlighted(self.current)

    def action_activate(self) -> None:
        if self.current is not None:
            self.activated(self.current)

    def on_click(self, event: events.Click) -> None:
        if self.graph is None:
            return
        node = self.graph.node_at(event.x + self.left - self.pad, event.y + self.top)
        if node is None:
            return
        if self.move_to(node.key):
            self.highlighted(node)
        if event.chain >= 2:
            self.activated(node)

    def on_focus(self) -> None:
        self._marked.clear()
        self._repaint(self.current)

    def on_blur(self) -> None:
        self._marked.clear()
        self._repaint(self.current)

    # -- rendering ------------------------------------------------------------
    def render_line(self, y: int) -> Strip:
        width = self.view_size.width
        row = y + self.top
        if self.graph is None or row >= self.graph.height:
            return Strip.blank(width, self.base_style)
        if self._rows_width != width:
            self._rows = self._drawing(self.graph)
            self._rows_width = width
            self._marked.clear()
        strip = self._marked.get(row)
        if strip is None:
            strip = self._rows.strip(row)
            node = self.current
            if node is not None and row == node.y + 1:  # the cursor: its box's name line
                style = _CURSOR if self.has_focus else Style(bgcolor="#3a3a3a")
                x = node.x + self.pad
                before, box, after = strip.divide([x, x + node.width, strip.cell_length])
                strip = self._marked[row] = Strip.join([before, box.apply_style(style), after])
        left = self.left
        return strip if left == 0 and strip.cell_length == width else strip.crop(left, left + width)


class _Drawing:
    """The graph's rows as Strips (edges grey, each box in its category's colour), each built
    the first time it is shown: a tall graph costs only the rows on screen."""

    def __init__(self, graph: GraphLayout, pad: int, width: int, base: Style):
        self.text = graph.text_rows()
        self.by_row: list[list[Node]] = [[] for _ in self.text]
        for node in sorted(graph.nodes.values(), key=lambda n: n.x):
            for y in range(node.y, node.y + node.height):
                self.by_row[y].append(node)
        self.width = width  # the view's
        self.pad, self.full, self.base, self.edge = pad, max(width, graph.width + pad), base, base + _EDGE
        self.styles = {key: base + node_style(node, key == graph.focus) for key, node in graph.nodes.items()}
        self.strips: dict[int, Strip] = {}

    def strip(self, row: int) -> Strip:
        found = self.strips.get(row)
        if found is None:
            text, at = self.text[row], 0
            segments = [Segment(" " * self.pad, self.base)]
            for node in self.by_row[row]:
                if node.x > at:
                    segments.append(Segment(text[at : node.x], self.edge))
                segments.append(Segment(text[node.x : node.x + node.width], self.styles[node.key]))
                at = node.x + node.width
            if at < len(text):
                segments.append(Segment(text[at:], self.edge))
            segments.append(Segment(" " * (self.full - self.pad - len(text)), self.base))
            found = self.strips[row] = Strip(segments, self.full)
        return found
