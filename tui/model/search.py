"""Find instructions anywhere in a module by name, opcode, JAX name stack or source file:line.

The index is one lowercased string per instruction, built once (it decodes every
instruction's metadata, so a 40k-instruction module takes a fraction of a second: build it
off the UI thread). A query is then a substring scan over plain strings, fast enough to run on
every keystroke.
"""

from __future__ import annotations

import re

from tui.model.hlo import HloInstruction, HloModule

_LINE = re.compile(r".+:\d+")  # a query that is a file:line


def search_key(ins: HloInstruction) -> str:
    """What a query is matched against: name, opcode (and fusion kind), op_name, file:line."""
    parts = [ins.name, ins.opcode]
    if ins.opcode == "fusion" and ins.fusion_kind:
        parts.append(ins.fusion_kind)
    if ins.op_name:
        parts.append(ins.op_name)
    source = ins.source
    if source:
        parts.append(f"{source[0]}:{source[1]}")
    return "\n".join(parts).lower() + "\n"


class InstructionIndex:
    """Every instruction of a module (computations in file order) with its search key."""

    def __init__(self, module: HloModule):
        self.module = module
        self.instructions: list[HloInstruction] = list(module.instructions())
        self.keys: list[str] = [search_key(ins) for ins in self.instructions]

    def find(self, query: str, limit: int | None = None) -> list[HloInstruction]:
        """Instructions whose key contains `query` (case-insensitive): the one of that name
        first, then those whose name starts with it, then the rest, each in module order. A
        `file:line` query matches that line only (`x.py:4` is not `x.py:40`)."""
        needle = query.strip().lower()
        if not needle:
            return []
        if _LINE.fullmatch(needle):
            needle += "\n"  # each part of a key ends a line
        exact, named, rest = [], [], []
        for ins, key in zip(self.instructions, self.keys):
            if needle in key:
                (exact if key.startswith(needle + "\n") else named if key.startswith(needle) else rest).append(ins)
        hits = exact + named + rest
        return hits if limit is None else hits[:limit]
