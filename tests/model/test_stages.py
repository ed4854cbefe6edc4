"""An op found at the other stage of compilation (before/after XLA's optimizations), on the
committed transformer dump (tests/fixtures/make_fixtures.py) and a module with a nested jit."""

from __future__ import annotations

from conftest import FIXTURES

from tui.model.inputs import load_workspace
from tui.model.stages import counterpart, full_op_name


def _inner_stacks(ins, module) -> set[str]:
    """The name stacks of an op and of every op inside what it calls."""
    stacks, todo = {full_op_name(ins, module)}, list(ins.called_computations)
    while todo:
        computation = todo.pop()
        for inner in computation.instructions:
            stacks.add(full_op_name(inner, module))
            todo += inner.called_computations
    return stacks


def _stages():
    ws = load_workspace([FIXTURES / "transformer"])
    after = ws.main
    before = ws.other_stage(after)
    return ws, after, before


def test_the_other_stage_is_made_once_and_kept_out_of_the_module_list():
    ws, after, before = _stages()
    count = len(ws.modules)
    assert after.stage == "after optimizations" and before.stage == "before optimizations"
    assert before.path.name.endswith("before_optimizations.txt") and before.name == after.name
    assert ws.other_stage(after) is before and ws.other_stage(before) is after
    assert ws.module(before.label) is before and len(ws.modules) == count  # --summary lists each module once
    assert load_workspace([FIXTURES / "mlp.hlo"]).other_stage(load_workspace([FIXTURES / "mlp.hlo"]).main) is None


def test_ops_are_found_by_name_stack_both_ways():
    """An op whose name stack is there at the other stage lands on an op a user sees (not one
    inside a fusion) that has it, or holds an op that has it."""
    _, after, before = _stages()
    a, b = after.load(), before.load()
    for source, target in ((a, b), (b, a)):
        stacks = {full_op_name(ins, target) for ins in target.instructions()}
        checked = 0
        for ins in source.instructions():
            stack = full_op_name(ins, source)
            if stack and stack in stacks:
                found = counterpart(ins, target)
                assert stack in _inner_stacks(found, target), ins.name
                assert target.computation_kind(found.computation) not in ("fusion", "async"), ins.name
                checked += 1
        assert checked > 150


def test_a_nested_jit_op_is_found_inside_its_call_and_back_in_its_fusion():
    """After inlining, a fused op carries the whole name stack; before, the op inside the call of
    the nested jit carries it relative to the call."""
    _, after, before = _stages()
    a, b = after.load(), before.load()
    fused = a.instruction("bitcast_concatenate_fusion")
    assert fused.op_name.endswith("/jit(take_along_axis)/scatter-add")
    found = counterpart(fused, b)
    assert found.opcode == "scatter" and found.op_name == "scatter-add"  # relative to the call
    assert b.callers(found.computation)[0].opcode == "call"
    back = counterpart(found, a)
    assert back.computation.is_entry and full_op_name(back, a) == fused.op_name


def test_an_op_xla_folded_away_lands_in_its_scope():
    _, after, before = _stages()
    a, b = after.load(), before.load()
    stacks = {full_op_name(ins, a) for ins in a.instructions()}
    gone = [ins for ins in b.entry.instructions if ins.op_name and full_op_name(ins, b) not in stacks]
    assert len(gone) > 10
    for ins in gone:
        scope = full_op_name(ins, b).rsplit("/", 1)[0]
        found = counterpart(ins, a)
        assert any(stack.startswith(scope) for stack in _inner_stacks(found, a)), ins.name


def _inner_sources(ins, module) -> set:
    """The lines of Python of an op and of every op inside what it calls."""
    sources, todo = {ins.source}, list(ins.called_computations)
    while todo:
        computation = todo.pop()
        for inner in computation.instructions:
            sources.add(inner.source)
            todo += inner.called_computations
    return sources


def test_of_the_ops_sharing_a_name_stack_the_one_from_the_same_line_is_found():
    """A layer's name stack is shared by many ops (`.../attn/dot_general`: the projection and the
    scores): `o` took the first in the module, for 73 of the 195 top-level ops of the optimized
    train step an op of another line of Python. It takes the one made by the same line, doing
    the same work (the scores' fusion `ynn_fusion.53` <-> their `dot_general.40`, both ways)."""
    _, after, before = _stages()
    a, b = after.load(), before.load()
    assert counterpart(a.instruction("ynn_fusion.53"), b).name == "dot_general.40"
    assert counterpart(b.instruction("dot_general.40"), a).name == "ynn_fusion.53"
    for source, target in ((a, b), (b, a)):
        lines: dict[str, set] = {}
        for candidate in target.instructions():
            lines.setdefault(full_op_name(candidate, target), set()).add(candidate.source)
        checked = 0
        for ins in source.entry.instructions:
            stack = full_op_name(ins, source)
            if ins.source is None or len(lines.get(stack, ())) < 2 or ins.source not in lines[stack]:
                continue  # only where the line decides between ops of one stack
            assert ins.source in _inner_sources(counterpart(ins, target), target), ins.name
            checked += 1
        assert checked > 20
