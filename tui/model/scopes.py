"""Where an instruction came from in the model: its JAX name scope, the `op_name`
(`jit(step)/jit(main)/layer3/attn/dot_general`) without the op itself, cut to a depth; or the
line of Python that made it (`model.py:42`). The memory screen adds bytes up by them, the
timeline time ("which part of my model holds the memory, takes the time")."""

from __future__ import annotations

from tui.model.hlo import HloInstruction

ARGUMENTS_SCOPE = "(arguments)"
NO_SCOPE = "(no op_name)"
NO_SOURCE = "(no source line)"
BY_LINE = "line"  # in place of a depth: group by the line of Python (group_of)
DEEPEST = 12  # the deepest level a table of time by name scope goes to


def split_scope(op_name: str) -> list[str]:
    """`jit(f)/transpose(jvp(a/b))/dot` -> ['jit(f)', 'transpose(jvp(a/b))', 'dot']: slashes inside
    parentheses belong to their component."""
    parts, depth, start = [], 0, 0
    for i, c in enumerate(op_name):
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif c == "/" and depth == 0:
            parts.append(op_name[start:i])
            start = i + 1
    parts.append(op_name[start:])
    return [p for p in parts if p]


def name_scope(ins: HloInstruction, depth: int | None) -> str:
    """The name scope that made an instruction: its op_name without the op itself, cut to
    `depth` parts (None: all); the entry's parameters are the arguments."""
    if ins.opcode == "parameter" and ins.computation is ins.computation.module.entry:
        return ARGUMENTS_SCOPE
    parts = split_scope(ins.op_name)
    if len(parts) > 1:
        parts = parts[:-1]
    return "/".join(parts[:depth]) if parts else NO_SCOPE


def source_line(ins: HloInstruction | None) -> str:
    """`model.py:42`: the line of Python the instruction came from (its metadata)."""
    source = ins.source if ins is not None else None
    return f"{source[0]}:{source[1]}" if source else NO_SOURCE


def group_of(ins: HloInstruction, depth: int | str) -> str:
    """The instruction's name scope `depth` parts deep, or with BY_LINE its line of Python (the
    entry's parameters: the arguments)."""
    if depth != BY_LINE:
        return name_scope(ins, depth)
    if ins.opcode == "parameter" and ins.computation is ins.computation.module.entry:
        return ARGUMENTS_SCOPE
    return source_line(ins)


def parting_depth(instructions: list[HloInstruction | None], most: int = DEEPEST) -> int:
    """The first depth at which the instructions' scopes part (JAX's all start alike,
    `jit(step)/jit(main)`), at most `most`; those without a scope (or unknown: None) aside.
    Scopes that never part (one `jit(f)` holds every op) give the depth of the deepest."""
    known = [ins for ins in instructions if ins is not None]
    for depth in range(1, most):
        if len({name_scope(ins, depth) for ins in known} - {NO_SCOPE, ARGUMENTS_SCOPE}) > 1:
            return depth
    scopes = {name_scope(ins, None) for ins in known} - {NO_SCOPE, ARGUMENTS_SCOPE}
    return min(most, max((len(split_scope(scope)) for scope in scopes), default=1))
