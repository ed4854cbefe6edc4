"""The dataflow neighbourhood of one instruction, laid out as a layered graph in terminal cells.

Operands sit above the focused instruction and users below, to a chosen depth. The layout is
Sugiyama's: layers by longest path (so every edge points down), dummy nodes where an edge skips
layers, barycenter sweeps to cut edge crossings (the ordering with the fewest is kept), x
positions pulled towards connected nodes, and orthogonal edge routes whose horizontal runs get
their own rows. The graphs are tens of nodes, so plain Python is fast enough and a layout
library would not earn its dependency; the cost depends on the neighbourhood, never on the
module's size.

`text_rows()` draws the result with box-drawing characters; the graph widget only colours it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Callable, Mapping

import numpy as np

from tui.model.hlo import HloInstruction
from tui.model.words import middle_cut

FAN_LIMIT = 6  # more operands/users than this collapse into a "+N more" node
MORE_STEP = 16  # operands/users one Enter on a "+N more" node shows (a tuple of 900 shows them in steps)
_NONE: Mapping[str, int] = MappingProxyType({})
MAX_TEXT = 28  # widest text inside a box
NODE_HEIGHT = 5  # border, three lines of text, border
GAP = 3  # columns between neighbouring boxes
SWEEPS = 8
Note = Callable[[HloInstruction], str]  # what a box says after its opcode (its measured time), or ""

# Direction bits of a line cell, and the character for each combination.
UP, DOWN, LEFT, RIGHT = 1, 2, 4, 8
_LINE_CHARS = {
    UP: "│", DOWN: "│", UP | DOWN: "│", LEFT: "─", RIGHT: "─", LEFT | RIGHT: "─",
    DOWN | RIGHT: "┌", DOWN | LEFT: "┐", UP | RIGHT: "└", UP | LEFT: "┘",
    UP | DOWN | RIGHT: "├", UP | DOWN | LEFT: "┤", DOWN | LEFT | RIGHT: "┬", UP | LEFT | RIGHT: "┴",
    UP | DOWN | LEFT | RIGHT: "┼",
}
_BOX = {"single": "┌┐└┘─│┬┴", "double": "╔╗╚╝═║╤╧"}
ARROW = "▼"
_CHAR_TABLE = np.array([_LINE_CHARS.get(bits, " ") for bits in range(16)], dtype="<U1")
# A box's border character above or below each cell's vertical line bits: a port where the cell's
# line reaches the box (DOWN into its top, UP out of its bottom), else the border.
_PORTS = {(border, bit, port): {bits: port if bits & bit else border for bits in range(4)}
          for box in _BOX.values() for border, port, bit in ((box[4], box[7], DOWN), (box[4], box[6], UP))}


@dataclass
class Node:
    """A box: an instruction, or a "+N more" stand-in for collapsed operands or users."""

    key: str
    instruction: HloInstruction | None
    lines: tuple[str, str, str]
    layer: int = 0
    x: int = 0
    y: int = 0
    width: int = 0
    height: int = NODE_HEIGHT
    anchor: str | None = None  # "+N more": whose operands/users it stands for
    direction: str = ""  # "+N more": "operands" or "users"
    hidden: int = 0  # "+N more": how many

    @property
    def is_more(self) -> bool:
        return self.anchor is not None

    @property
    def center(self) -> int:
        return self.x + self.width // 2

    def contains(self, x: int, y: int) -> bool:
        return self.x <= x < self.x + self.width and self.y <= y < self.y + self.height


@dataclass
class Edge:
    source: str
    target: str
    points: list[tuple[int, int]] = field(default_factory=list)  # orthogonal polyline, top to bottom


@dataclass
class GraphLayout:
    focus: str
    nodes: dict[str, Node]  # real nodes and "+N more" nodes (no dummies)
    edges: list[Edge]
    layers: list[list[str]]  # keys per layer, top to bottom, dummies included ("~n")
    width: int
    height: int
    crossings: int
    naive_crossings: int  # crossings of the first (discovery) order, for comparison
    _rows: list[str] | None = field(default=None, repr=False, compare=False)  # text_rows, once drawn

    def node_at(self, x: int, y: int) -> Node | None:
        for node in self.nodes.values():
            if node.contains(x, y):
                return node
        return None

    def operands_of(self, key: str) -> list[str]:
        return [e.source for e in self.edges if e.target == key]

    def users_of(self, key: str) -> list[str]:
        return [e.target for e in self.edges if e.source == key]

    def neighbour(self, key: str, direction: str) -> str | None:
        """The node to move to from `key`: up = an operand, down = a user, left/right = same layer."""
        node = self.nodes[key]
        if direction in ("left", "right"):
            row = [k for k in self.layers[node.layer] if k in self.nodes]
            i = row.index(key) + (1 if direction == "right" else -1)
            return row[i] if 0 <= i < len(row) else None
        linked = self.operands_of(key) if direction == "up" else self.users_of(key)
        if not linked:
            layer = node.layer + (-1 if direction == "up" else 1)
            if not 0 <= layer < len(self.layers):
                return None
            linked = [k for k in self.layers[layer] if k in self.nodes]
        return min(linked, key=lambda k: abs(self.nodes[k].center - node.center)) if linked else None

    def text_rows(self) -> list[str]:
        """The graph drawn with box-drawing characters, one string per row (drawn once: a
        layout shown again, as going back shows it, is not drawn again)."""
        if self._rows is None:
            self._rows = draw(self)
        return self._rows


# ---------------------------------------------------------------------------------------------
# Which nodes and edges.


def short_shape(ins: HloInstruction) -> str:
    """dtype[dims], plus the layout only when it is not the default (tiles, memory space, order).
    A tuple's elements are written until the text passes twice a box's width (a loop's state can
    have hundreds, and every caller cuts the text far shorter)."""
    shape = ins.shape
    if shape.is_tuple:
        parts, length = [], 0
        for element in shape.tuple_shapes:
            if length > 2 * MAX_TEXT:
                parts.append("…")
                break
            parts.append(element.dims_text() if element.is_array else element.dtype)
            length += len(parts[-1]) + 2
        return "(" + ", ".join(parts) + ")"
    if not shape.is_array:
        return shape.text
    layout = shape.layout
    plain = layout is None or (
        layout.minor_to_major == tuple(reversed(range(len(shape.dims)))) and not layout.tiles
        and not layout.memory_space and not layout.element_size_bits and layout.tail_padding == 1 and not layout.extra)
    return shape.dims_text() if plain else shape.dims_text() + layout.text


def node_lines(ins: HloInstruction, note: Note | None = None) -> tuple[str, str, str]:
    what = ins.opcode
    if ins.opcode == "fusion" and ins.fusion_kind:
        what += " " + ins.fusion_kind
    elif ins.opcode == "custom-call" and ins.custom_call_target:
        what += " " + ins.custom_call_target
    said = note(ins) if note is not None else ""
    if said:  # the note stays whole in a box's width; the opcode gives way
        what = f"{_cut(what, max(MAX_TEXT - len(said) - 2, 1))}  {said}"
    return ins.name, what, short_shape(ins)


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def neighbourhood(focus: HloInstruction, depth: int, expanded: Mapping[str, int] = _NONE,
                  fan_limit: int = FAN_LIMIT, note: Note | None = None) -> tuple[dict[str, Node], list[tuple[str, str]]]:
    """Nodes within `depth` operand steps above and user steps below `focus`, with the edges
    between them. Wide fan-in/out shows `fan_limit - 1` and a "+N more" node for the rest, and
    as many more as `expanded` says that node was opened to show (by its key); `note` says what
    follows each box's opcode."""
    nodes: dict[str, Node] = {focus.name: Node(focus.name, focus, node_lines(focus, note))}
    order: list[HloInstruction] = [focus]
    more: dict[str, tuple[str, str, list[HloInstruction]]] = {}
    for direction in ("operands", "users"):
        frontier = [focus]
        for _ in range(depth):
            next_frontier = []
            for ins in frontier:
                linked = list(dict.fromkeys(ins.operands)) if direction == "operands" else ins.users
                key = f"+{ins.name}:{direction}"
                shown = fan_limit - 1 + expanded.get(key, 0)
                if len(linked) > shown + 1:  # (one more is drawn rather than a "+1 more")
                    more[key] = (ins.name, direction, linked[shown:])
                    linked = linked[:shown]
                for other in linked:
                    if other.name not in nodes:
                        nodes[other.name] = Node(other.name, other, node_lines(other, note))
                        order.append(other)
                        next_frontier.append(other)
            frontier = next_frontier
    edges = [(op.name, ins.name) for ins in order for op in dict.fromkeys(ins.operands) if op.name in nodes]
    for key, (anchor, direction, rest) in more.items():
        hidden = sum(1 for ins in rest if ins.name not in nodes)
        if hidden:
            label = "operands" if direction == "operands" else "users"
            nodes[key] = Node(key, None, (f"+{hidden} more", f"{label} of", anchor), anchor=anchor,
                              direction=direction, hidden=hidden)
            edges.append((key, anchor) if direction == "operands" else (anchor, key))
    return nodes, edges


# ---------------------------------------------------------------------------------------------
# Layers, order, coordinates, routes.


def layout(focus: HloInstruction, depth: int = 2, expanded: Mapping[str, int] = _NONE,
           fan_limit: int = FAN_LIMIT, note: Note | None = None) -> GraphLayout:
    nodes, edges = neighbourhood(focus, depth, expanded, fan_limit, note)
    layer_of = _layers(focus.name, nodes, edges)
    top = min(layer_of.values())
    for key, node in nodes.items():
        node.layer = layer_of[key] - top
        width = max(len(line) for line in node.lines)
        node.width = min(width, MAX_TEXT) + 4
        name, *rest = node.lines  # the end of a name tells ops apart; a shape's start says most
        node.lines = (middle_cut(name, MAX_TEXT), *(_cut(line, MAX_TEXT) for line in rest))
    layers, chains = _with_dummies(nodes, edges)
    links = [(a, b) for chain in chains for a, b in zip(chain, chain[1:])]
    naive = _crossings(layers, links)
    layers, crossings = _order(layers, links, naive)
    dummies = {k: Node(k, None, ("", "", ""), layer=i, width=1) for i, row in enumerate(layers) for k in row if k.startswith("~")}
    every = {**nodes, **dummies}
    _place_x(layers, links, every)
    routed, height = _route(layers, chains, every)
    width = max((n.x + n.width for n in every.values()), default=0) + 1
    return GraphLayout(focus.name, nodes, routed, layers, width, height, crossings, naive)


def _layers(focus: str, nodes: dict[str, Node], edges: list[tuple[str, str]]) -> dict[str, int]:
    """Operands at minus their longest path to the focus, users at their longest path from it."""
    preds: dict[str, list[str]] = {k: [] for k in nodes}
    succs: dict[str, list[str]] = {k: [] for k in nodes}
    for a, b in edges:
        succs[a].append(b)
        preds[b].append(a)
    below = _longest(focus, succs)
    above = _longest(focus, preds)
    return {k: below[k] if below.get(k, 0) > 0 else -above.get(k, 0) for k in nodes}


def _longest(start: str, step: dict[str, list[str]]) -> dict[str, int]:
    """Longest path length from `start` along `step` to every node it reaches (a DAG)."""
    order, seen, stack = [], {start}, [(start, iter(step[start]))]
    while stack:  # depth-first post order, iteratively
        key, children = stack[-1]
        child = next(children, None)
        if child is None:
            order.append(key)
            stack.pop()
        elif child not in seen:
            seen.add(child)
            stack.append((child, iter(step[child])))
    dist = {start: 0}
    for key in reversed(order):
        for child in step[key]:
            dist[child] = max(dist.get(child, 0), dist[key] + 1)
    return dist


def _with_dummies(nodes: dict[str, Node], edges: list[tuple[str, str]]) -> tuple[list[list[str]], list[list[str]]]:
    """Layers (discovery order) and, per edge, the chain of keys it passes (dummies for long edges)."""
    count = max(n.layer for n in nodes.values()) + 1
    layers: list[list[str]] = [[] for _ in range(count)]
    for key, node in nodes.items():
        layers[node.layer].append(key)
    chains = []
    for a, b in edges:
        chain = [a]
        for layer in range(nodes[a].layer + 1, nodes[b].layer):
            dummy = f"~{len(chains)}.{layer}"
            layers[layer].append(dummy)
            chain.append(dummy)
        chains.append(chain + [b])
    return layers, chains


def _crossings(layers: list[list[str]], links: list[tuple[str, str]]) -> int:
    pos = {k: i for row in layers for i, k in enumerate(row)}
    layer = {k: n for n, row in enumerate(layers) for k in row}
    by_gap: dict[int, list[tuple[int, int]]] = {}
    for a, b in links:
        by_gap.setdefault(layer[a], []).append((pos[a], pos[b]))
    total = 0
    for pairs in by_gap.values():
        pairs.sort()
        for i, (a1, b1) in enumerate(pairs):
            for j in range(i + 1, len(pairs)):
                a2, b2 = pairs[j]
                if b2 < b1 and a2 > a1:
                    total += 1
    return total


def _order(layers: list[list[str]], links: list[tuple[str, str]], crossings: int) -> tuple[list[list[str]], int]:
    """Barycenter sweeps down and up from `layers` (which cross `crossings` times); keep the
    ordering with the fewest crossings."""
    ups: dict[str, list[str]] = {}
    downs: dict[str, list[str]] = {}
    for a, b in links:
        downs.setdefault(a, []).append(b)
        ups.setdefault(b, []).append(a)
    best = [list(row) for row in layers]
    best_count = crossings
    current = [list(row) for row in best]
    seen = set()  # (order, direction) met before: the sweeps from there repeat what they did then
    for sweep in range(SWEEPS if best_count else 0):  # none crossing: no sweep can do better
        down = sweep % 2 == 0
        state = (tuple(map(tuple, current)), down)
        if state in seen:
            break
        seen.add(state)
        rows = range(1, len(current)) if down else range(len(current) - 2, -1, -1)
        for n in rows:
            fixed = current[n - 1] if down else current[n + 1]
            pos = {k: i for i, k in enumerate(fixed)}
            neighbours = ups if down else downs
            row = current[n]

            def barycenter(key: str, i: int) -> float:
                linked = [pos[k] for k in neighbours.get(key, ()) if k in pos]
                return sum(linked) / len(linked) if linked else i

            current[n] = [k for _, _, k in sorted((barycenter(k, i), i, k) for i, k in enumerate(row))]
        count = _crossings(current, links)
        if count < best_count:
            best, best_count = [list(row) for row in current], count
            if count == 0:
                break
    return best, best_count


def _place_x(layers: list[list[str]], links: list[tuple[str, str]], nodes: dict[str, Node]) -> None:
    """Pack each layer, then pull nodes towards the centres of what they connect to."""
    for row in layers:
        x = 1
        for key in row:
            nodes[key].x = x
            x += nodes[key].width + GAP
    ups: dict[str, list[str]] = {}
    downs: dict[str, list[str]] = {}
    for a, b in links:
        downs.setdefault(a, []).append(b)
        ups.setdefault(b, []).append(a)
    for sweep in range(4):
        down = sweep % 2 == 0
        rows = range(1, len(layers)) if down else range(len(layers) - 2, -1, -1)
        for n in rows:
            row = layers[n]
            wanted = []
            for key in row:
                linked = (ups if down else downs).get(key) or (downs if down else ups).get(key) or []
                node = nodes[key]
                if linked:
                    centre = sum(nodes[k].center for k in linked) / len(linked)
                    wanted.append(round(centre) - node.width // 2)
                else:
                    wanted.append(node.x)
            _spread(row, wanted, nodes)
    shift = 1 - min(n.x for n in nodes.values())
    for node in nodes.values():
        node.x += shift


def _spread(row: list[str], wanted: list[int], nodes: dict[str, Node]) -> None:
    """Put each node as near its wanted x as the order and gaps allow (average of both packings)."""
    left, prev_end = [], None
    for key, x in zip(row, wanted):
        x = x if prev_end is None else max(x, prev_end + GAP)
        left.append(x)
        prev_end = x + nodes[key].width
    right, next_start = [0] * len(row), None
    for i in range(len(row) - 1, -1, -1):
        width = nodes[row[i]].width
        x = wanted[i] if next_start is None else min(wanted[i], next_start - GAP - width)
        right[i] = x
        next_start = x
    prev_end = None
    for i, key in enumerate(row):
        x = (left[i] + right[i]) // 2
        if prev_end is not None:
            x = max(x, prev_end + GAP)
        nodes[key].x = x
        prev_end = x + nodes[key].width


def _route(layers: list[list[str]], chains: list[list[str]], nodes: dict[str, Node]) -> tuple[list[Edge], int]:
    """Orthogonal routes: down from a port on the source's bottom, across on a row of its own
    in the gap, down into a port on the target's top."""
    outs: dict[str, list[tuple[str, str]]] = {}
    ins: dict[str, list[tuple[str, str]]] = {}
    for chain in chains:
        for a, b in zip(chain, chain[1:]):
            outs.setdefault(a, []).append((a, b))
            ins.setdefault(b, []).append((a, b))
    port_x: dict[tuple[str, str, str], int] = {}
    for table, other, side in ((outs, 1, "out"), (ins, 0, "in")):
        for key, hops in table.items():
            node = nodes[key]
            hops.sort(key=lambda hop: nodes[hop[other]].center)
            for i, hop in enumerate(hops):
                if node.width == 1:
                    port_x[(*hop, side)] = node.x
                else:
                    port_x[(*hop, side)] = node.x + 1 + (i + 1) * (node.width - 2) // (len(hops) + 1)
    layer_index = {k: n for n, row in enumerate(layers) for k in row}
    gap_tracks: list[dict[tuple[str, str], int]] = [{} for _ in layers]
    for chain in chains:
        for hop in zip(chain, chain[1:]):
            gap_tracks[layer_index[hop[0]]][hop] = 0
    for tracks in gap_tracks:
        runs = {hop: (port_x[(*hop, "out")], port_x[(*hop, "in")]) for hop in tracks}
        tracks.update(_tracks({hop: run for hop, run in runs.items() if run[0] != run[1]}))
    y = 0
    tops = []
    for n, row in enumerate(layers):
        tops.append(y)
        for key in row:
            nodes[key].y = y
        y += NODE_HEIGHT
        if n < len(layers) - 1:
            y += max(gap_tracks[n].values(), default=-1) + 3
    routed = []
    for chain in chains:
        points: list[tuple[int, int]] = []
        for a, b in zip(chain, chain[1:]):
            x0, x1 = port_x[(a, b, "out")], port_x[(a, b, "in")]
            gap_top = tops[layer_index[a]] + NODE_HEIGHT
            if nodes[a].width == 1:
                points.append((x0, tops[layer_index[a]]))
            points.append((x0, gap_top - 1))
            if x0 != x1:
                track_y = gap_top + 1 + gap_tracks[layer_index[a]][(a, b)]
                points += [(x0, track_y), (x1, track_y)]
            points.append((x1, tops[layer_index[b]]))
        routed.append(Edge(chain[0], chain[-1], _simplify(points)))
    return routed, y


def _tracks(runs: dict[tuple[str, str], tuple[int, int]]) -> dict[tuple[str, str], int]:
    """Rows for the horizontal runs of one gap (channel routing).

    A run must lie below every run its target port's descent would cut, and above every run its
    source port's drop would cut; runs that don't overlap share a row. Where both rules apply
    (a true crossing), the target side wins so arrows arrive clean.
    """
    spans = {hop: (min(run), max(run)) for hop, run in runs.items()}
    # Insertion-ordered (dicts, not sets): where the rules make a cycle, which run is put above
    # which depends on the order they are visited in, and a set's order changes from one run of
    # the program to the next (string hashing is seeded per process).
    above: dict[tuple[str, str], dict[tuple[str, str], None]] = {hop: {} for hop in runs}
    for e, (x0, x1) in runs.items():
        for f, (lo, hi) in spans.items():
            if e == f or not (spans[e][0] <= hi and lo <= spans[e][1]):
                continue
            if lo <= x1 <= hi:
                above[e][f] = None  # f above e, so e's descent to its target misses f's run
            elif lo <= x0 <= hi and e not in above[f]:
                above[f][e] = None
    level: dict[tuple[str, str], int] = {}
    for first in runs:  # each run one row below the lowest of those above it, a cycle cut where it closes
        if first in level:
            continue
        path, on_path, pending = [first], {first}, [iter(above[first])]
        while path:
            hop = path[-1]
            deeper = next((f for f in pending[-1] if f not in on_path and f not in level), None)
            if deeper is not None:  # (iteratively: a run can have hundreds above it, a chain as deep)
                path.append(deeper)
                on_path.add(deeper)
                pending.append(iter(above[deeper]))
                continue
            path.pop()
            pending.pop()
            on_path.discard(hop)
            level[hop] = 1 + max((level[f] for f in above[hop] if f not in on_path), default=-1)
    used: dict[int, list[tuple[int, int]]] = {}
    top = max(level.values(), default=-1)
    for hop in sorted(runs, key=lambda h: level[h]):
        lo, hi = spans[hop]
        if any(a <= hi + 1 and lo - 1 <= b for a, b in used.get(level[hop], [])):
            top += 1
            level[hop] = top
        used.setdefault(level[hop], []).append((lo, hi))
    return level


def _simplify(points: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Drop repeated points and the middle of straight runs."""
    out: list[tuple[int, int]] = []
    for p in points:
        if out and out[-1] == p:
            continue
        if len(out) >= 2 and (out[-2][0] == out[-1][0] == p[0] or out[-2][1] == out[-1][1] == p[1]):
            out[-1] = p
        else:
            out.append(p)
    return out


# ---------------------------------------------------------------------------------------------
# Drawing.


def draw(graph: GraphLayout) -> list[str]:
    """Rows of text: boxes over a grid of line cells merged into box-drawing characters.

    The grid is a NumPy array of direction bits turned into characters by a table lookup; each
    bit is set for all the cells of all the edges at once (a re-centre draws thousands of
    cells, and a slice or a Python loop per segment cost most of its frame). Boxes are then
    written into the rows as strings."""
    height, width = graph.height, graph.width
    if not width:
        return [""] * height
    bits: dict[int, list[int]] = {UP: [], DOWN: [], LEFT: [], RIGHT: []}  # flat cell indices
    arrows = []
    for edge in graph.edges:
        for (x0, y0), (x1, y1) in zip(edge.points, edge.points[1:]):
            if x0 == x1:
                lo, hi = sorted((y0, y1))
                bits[UP].extend(range((lo + 1) * width + x0, hi * width + x0 + 1, width))
                bits[DOWN].extend(range(lo * width + x0, (hi - 1) * width + x0 + 1, width))
            else:
                lo, hi = sorted((x0, x1))
                bits[LEFT].extend(range(y0 * width + lo + 1, y0 * width + hi + 1))
                bits[RIGHT].extend(range(y0 * width + lo, y0 * width + hi))
        x, y = edge.points[-1]
        if y > 0:
            arrows.append((y - 1) * width + x)
    cells = np.zeros(height * width, np.uint8)
    for bit, at in bits.items():
        cells[np.array(at, np.intp)] |= bit  # a cell listed twice gets the same bit twice
    chars = _CHAR_TABLE[cells]
    arrows = np.array(arrows, np.intp)
    chars[arrows[cells[arrows] & UP > 0]] = ARROW
    rows = chars.view(f"<U{width}").tolist()
    vertical = (cells & (UP | DOWN)).tobytes().decode("latin-1")  # each cell's vertical bits, as a character
    for node in graph.nodes.values():
        tl, tr, bl, br, h, v, port_down, port_up = _BOX["double" if node.key == graph.focus else "single"]
        x, y, w = node.x, node.y, node.width
        bottom = y + NODE_HEIGHT - 1
        above = vertical[(y - 1) * width + x + 1 : (y - 1) * width + x + w - 1] if y > 0 else ""
        below = vertical[(bottom + 1) * width + x + 1 : (bottom + 1) * width + x + w - 1] if bottom + 1 < height else ""
        ports = [(y, tl + above.ljust(w - 2, "\0").translate(_PORTS[h, DOWN, port_up]) + tr),  # where an edge comes down
                 *((y + 1 + n, v + " " + text.ljust(w - 3) + v) for n, text in enumerate(node.lines)),
                 (bottom, bl + below.ljust(w - 2, "\0").translate(_PORTS[h, UP, port_down]) + br)]
        for at, line in ports:
            rows[at] = rows[at][:x] + line + rows[at][x + w :]
    return rows