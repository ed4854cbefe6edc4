"""The layered layout of an instruction's neighbourhood, on real modules.

Every instruction of the committed transformer train step (entry and fused computations) and
of an 8-device SPMD step is laid out at depths 1-3 and checked: boxes never overlap, operands
sit above their users, edges are orthogonal and run from a source's bottom to a target's top,
and crossing reduction never makes things worse than the discovery order (and over the whole
module makes them much better).
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from conftest import FIXTURES

from tui.model.graph_layout import FAN_LIMIT, MORE_STEP, NODE_HEIGHT, layout, neighbourhood
from tui.model.workspace import read_hlo

TRANSFORMER = FIXTURES / "transformer" / "module_0014.jit_train_step.cpu_after_optimizations.txt"
SHARDED = FIXTURES / "sharded" / "module_0000.jit_train_step.cpu_after_optimizations.txt"


@pytest.fixture(scope="module")
def transformer():
    return read_hlo(TRANSFORMER)


def check(graph, focus) -> None:
    boxes = list(graph.nodes.values())
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            overlap = a.x < b.x + b.width and b.x < a.x + a.width and a.y < b.y + b.height and b.y < a.y + a.height
            assert not overlap, f"{focus.name}: {a.key} overlaps {b.key}"
    for edge in graph.edges:
        source, target = graph.nodes[edge.source], graph.nodes[edge.target]
        assert source.y + NODE_HEIGHT <= target.y, f"{focus.name}: operand {source.key} is not above {target.key}"
        (x0, y0), (x1, y1) = edge.points[0], edge.points[-1]
        assert source.x < x0 < source.x + source.width - 1 and y0 == source.y + NODE_HEIGHT - 1
        assert target.x < x1 < target.x + target.width - 1 and y1 == target.y
        for (ax, ay), (bx, by) in zip(edge.points, edge.points[1:]):
            assert ax == bx or ay == by, f"{focus.name}: edge {edge.source}->{edge.target} is not orthogonal"
    assert graph.crossings <= graph.naive_crossings
    assert graph.crossings == crossings_of(graph)


def crossings_of(graph) -> int:
    """The crossings of the laid-out graph, pair by pair: each edge's chain of links between
    adjacent layers (through its bend points, `~chain.layer`), two links of one gap crossing
    where their ends come in opposite orders."""
    at = {key: (n, i) for n, row in enumerate(graph.layers) for i, key in enumerate(row)}
    links = []
    for k, edge in enumerate(graph.edges):
        top, bottom = at[edge.source][0], at[edge.target][0]
        chain = [edge.source, *(f"~{k}.{layer}" for layer in range(top + 1, bottom)), edge.target]
        links += [(at[p][0], at[p][1], at[q][1]) for p, q in zip(chain, chain[1:])]
    return sum(1 for i, (g1, a1, b1) in enumerate(links) for g2, a2, b2 in links[i + 1 :]
               if g1 == g2 and (a1 - a2) * (b1 - b2) < 0)


def test_every_instruction_lays_out_cleanly(transformer):
    total = naive = 0
    for ins in transformer.instructions():
        for depth in (1, 2, 3):
            graph = layout(ins, depth)
            check(graph, ins)
            total += graph.crossings
            naive += graph.naive_crossings
    assert naive > 0 and total < naive / 2, f"crossing reduction left {total} of {naive} crossings"


def test_sharded_step_lays_out_cleanly():
    module = read_hlo(SHARDED)
    for ins in module.instructions():
        check(layout(ins, 2), ins)


def test_operands_above_users_below(transformer):
    focus = transformer.instruction("ynn_fusion.32")
    graph = layout(focus, 1)
    me = graph.nodes[focus.name]
    operands = {op.name for op in focus.operands}
    users = {u.name for u in focus.users}
    assert set(graph.operands_of(focus.name)) == operands
    assert set(graph.users_of(focus.name)) == users
    assert all(graph.nodes[k].y < me.y for k in operands) and all(graph.nodes[k].y > me.y for k in users)
    assert graph.neighbour(focus.name, "up") in operands
    assert graph.neighbour(focus.name, "down") in users


def test_depth_reaches_further(transformer):
    focus = transformer.instruction("ynn_fusion.32")
    sizes = [len(neighbourhood(focus, depth)[0]) for depth in (1, 2, 3)]
    assert sizes[0] < sizes[1] < sizes[2]
    # depth 2 holds exactly the operands of operands and users of users (before collapsing)
    nodes, _ = neighbourhood(focus, 2, fan_limit=10**6)
    expected = {focus.name}
    for op in focus.operands:
        expected |= {op.name} | {o.name for o in op.operands}
    for user in focus.users:
        expected |= {user.name} | {u.name for u in user.users}
    assert set(nodes) == expected


def test_wide_fan_in_collapses_and_expands(transformer):
    root = transformer.entry.root
    operands = list(dict.fromkeys(root.operands))
    assert len(operands) > FAN_LIMIT
    graph = layout(root, 1)
    more = [n for n in graph.nodes.values() if n.is_more]
    assert len(more) == 1 and more[0].hidden == len(operands) - (FAN_LIMIT - 1)
    assert more[0].lines[0] == f"+{more[0].hidden} more"
    assert sum(1 for n in graph.nodes.values() if n.instruction in operands) == FAN_LIMIT - 1
    expanded = layout(root, 1, {more[0].key: MORE_STEP})
    assert not any(n.is_more for n in expanded.nodes.values())
    assert {n.key for n in expanded.nodes.values()} == {root.name} | {o.name for o in operands}


def test_a_very_wide_fan_in_opens_a_step_at_a_time(transformer):
    """A fusion of 37 operands: 5 and "+32 more"; one step more: 21 and "+16 more"; then all."""
    fusion = transformer.instruction("bitcast_copy_fusion")
    operands = list(dict.fromkeys(fusion.operands))
    assert FAN_LIMIT + MORE_STEP < len(operands) <= FAN_LIMIT + 2 * MORE_STEP
    key = f"+{fusion.name}:operands"
    for steps, drawn in ((0, FAN_LIMIT - 1), (1, FAN_LIMIT - 1 + MORE_STEP), (2, len(operands))):
        graph = layout(fusion, 1, {key: steps * MORE_STEP} if steps else {})
        assert [n.instruction for n in graph.nodes.values() if n.instruction in operands] == operands[:drawn]
        more = [n for n in graph.nodes.values() if n.is_more and n.anchor == fusion.name]
        assert [n.hidden for n in more] == ([len(operands) - drawn] if drawn < len(operands) else [])


def test_drawing_shows_every_box(transformer):
    graph = layout(transformer.instruction("ynn_fusion.32"), 2)
    rows = graph.text_rows()
    assert len(rows) == graph.height and all(len(row) == graph.width for row in rows)
    for node in graph.nodes.values():
        top, name_row = rows[node.y], rows[node.y + 1]
        assert top[node.x] in "┌╔" and top[node.x + node.width - 1] in "┐╗"
        assert name_row[node.x + 2 : node.x + 2 + len(node.lines[0])] == node.lines[0]
    focus = graph.nodes[graph.focus]
    assert rows[focus.y][focus.x] == "╔"  # the focus has a double border
    for edge in graph.edges:
        x, y = edge.points[-1]
        assert rows[y - 1][x] == "▼"


def test_layout_cost_does_not_grow_with_the_module(transformer):
    """The neighbourhood is bounded by depth and fan limit: a root with many operands stays small."""
    graph = layout(transformer.entry.root, 2)
    assert len(graph.nodes) <= 1 + FAN_LIMIT + FAN_LIMIT * FAN_LIMIT


def corpus_modules(corpus):
    files = sorted(p for p in (corpus / "hlo").rglob("*") if p.suffix == ".hlo" or p.name.endswith("optimizations.txt"))
    assert files, f"no HLO modules under {corpus / 'hlo'}"
    return [read_hlo(p) for p in files]


def test_corpus_modules_lay_out_cleanly(corpus):
    """TPU/GPU modules with tuples, async pairs, while loops and huge fan-outs, sampled."""
    for module in corpus_modules(corpus):
        entry = module.entry.instructions
        for ins in entry[:: max(1, len(entry) // 20)]:
            check(layout(ins, 2), ins)


def test_the_drawing_is_the_same_in_every_run():
    """Where the rows of an edge gap's horizontal runs constrain each other in a cycle, the
    drawing depended on set order, which string hashing seeds afresh in each process: the same
    op drew differently from one run to the next (the GPU fixture's input_reduce_fusion.5)."""
    code = ("import sys; from tui.model.graph_layout import layout; from tui.model.workspace import read_hlo;"
            "hlo = read_hlo(sys.argv[1]); main = next(c for c in hlo.computations if c.name == 'main.60');"
            "ops = [i for i in main.instructions if i.name in ('input_reduce_fusion.5', 'tokens.1')];"
            "print('\\n'.join(row for op in ops for depth in (1, 3) for row in layout(op, depth).text_rows()))")
    gpu = FIXTURES / "gpu" / "module_4635.jit_train_step.sm_9.0a_gpu_after_optimizations.txt"
    drawings = set()
    for seed in ("1", "2", "3"):
        run = subprocess.run([sys.executable, "-c", code, str(gpu)], capture_output=True, text=True, check=True,
                             env={**os.environ, "PYTHONHASHSEED": seed})
        assert run.stdout.count("\n") > 20
        drawings.add(run.stdout)
    assert len(drawings) == 1


def test_boxes_of_ops_whose_names_differ_only_at_the_end_read_apart():
    """In the H100 scan's loop body, `loop_dynamic_update_slice_fusion`, `….1`, `….2` feed one
    tuple: their names pass a box's width, and are cut in the middle, keeping the ends."""
    module = read_hlo(FIXTURES / "gpu_scan" / "module_0000.jit_train_step.sm_9.0a_gpu_after_optimizations.txt")
    root = next(c.root for c in module.computations if c.kind == "while body")
    graph = layout(root, 1)
    names = {n.instruction.name: n.lines[0] for n in graph.nodes.values() if n.instruction is not None}
    cut = [name for name, shown in names.items() if shown != name]
    assert cut and all("…" in names[name] and names[name].endswith(name[-3:]) for name in cut)
    assert len(set(names.values())) == len(names)
