"""The same op before and after XLA's optimizations.

A dump folder holds each module twice: as the front end handed it to XLA and as XLA compiled
it. Fusion, inlining, layout assignment and SPMD partitioning rename and regroup ops, but keep
each op's JAX name stack (`op_name` in its metadata). So an op is found at the other stage by
its name when that survived with the same name stack, else by its name stack: whole (ops inside
a call of a nested jit carry it relative to the call, so the call's is put in front), else an op
of the innermost scope of it that is still there (an op XLA folded away or made from several).
"""

from __future__ import annotations

import bisect
from typing import Callable

from tui.model.hlo import HloInstruction, HloModule

# Computations whose ops are parts of their caller: an op found in one stands for the caller.
_PART_OF_CALLER = frozenset({"fusion", "async", "reducer", "comparator", "select", "scatter"})


def counterpart(ins: HloInstruction, other: HloModule) -> HloInstruction | None:
    """`ins`'s op in `other` (the same module at its other stage), or None when nothing there
    has its name or any part of its name stack."""
    same = other.instruction(ins.name)
    stack = full_op_name(ins, ins.computation.module)
    if same is not None and (not stack or full_op_name(same, other) == stack):
        return same
    if not stack:
        return same
    by_stack: dict[str, list[HloInstruction]] = {}  # ops a user sees first, then ops inside them
    for outer in (True, False):
        for computation in other.computations:
            if (other.computation_kind(computation) not in _PART_OF_CALLER) == outer:
                for candidate in computation.instructions:
                    by_stack.setdefault(full_op_name(candidate, other), []).append(candidate)
    exact = by_stack.get(stack)
    if exact:  # several ops of one name stack (every `dot_general` of a layer): the one most like `ins`
        return _outermost(max(exact, key=_likeness(ins)), other)  # (the first of equals)
    stacks = sorted(by_stack)
    parts = stack.split("/")
    for n in range(len(parts), 0, -1):
        scope = "/".join(parts[:n])
        found = by_stack.get(scope)
        if found is None:  # the first op inside that scope
            k = bisect.bisect_left(stacks, scope + "/")
            found = by_stack[stacks[k]] if k < len(stacks) and stacks[k].startswith(scope + "/") else None
        if found is not None:
            return _outermost(found[0], other)
    return same


_PLUMBING = frozenset({"parameter", "constant", "tuple", "get-tuple-element", "bitcast", "copy"})


def _likeness(ins: HloInstruction) -> Callable[[HloInstruction], tuple[bool, bool, bool]]:
    """How much a candidate looks like `ins`: made by the same line of Python, doing the same
    work (an opcode in common, a fusion's by what it holds: a dot fused is a dot), with the
    same result dims (what is `ins`'s worked out once)."""
    source, work, dims = ins.source, _work(ins), ins.shape.dims
    return lambda candidate: (source is not None and source == candidate.source, bool(work & _work(candidate)),
                              dims == candidate.shape.dims)


def _work(ins: HloInstruction) -> set[str]:
    """The opcodes of an op and of the ops inside what it calls, but for plumbing (parameters,
    tuples, bitcasts...)."""
    found, todo, seen = {ins.opcode}, list(ins.called_computations), set()
    while todo:
        computation = todo.pop()
        if computation.name in seen:
            continue
        seen.add(computation.name)
        for inner in computation.instructions:
            found.add(inner.opcode)
            todo += inner.called_computations
    return found - _PLUMBING


def full_op_name(ins: HloInstruction, module: HloModule) -> str:
    """The op's JAX name stack from the top: inside a called computation (a nested jit not
    inlined yet) the caller's stack goes in front of a relative one."""
    name, computation, seen = ins.op_name, ins.computation, set()
    while name and not computation.is_entry and computation.name not in seen:
        seen.add(computation.name)
        callers = module.callers(computation)
        if not callers or callers[0].opcode != "call":
            break
        outer = callers[0].op_name
        if outer and not name.startswith(outer):
            name = f"{outer}/{name}"
        computation = callers[0].computation
    return name


def _outermost(ins: HloInstruction, module: HloModule) -> HloInstruction:
    """The op a user sees for `ins`: its fusion (or reduce, sort, async wrapper...) when it is a
    part of one, repeatedly."""
    seen = set()
    while module.computation_kind(ins.computation) in _PART_OF_CALLER and ins.computation.name not in seen:
        seen.add(ins.computation.name)
        callers = module.callers(ins.computation)
        if not callers or callers[0].opcode == "call":  # a call's computation is ops of their own
            break
        ins = callers[0]
    return ins
