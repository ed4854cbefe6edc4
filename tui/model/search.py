"""Find instructions anywhere in a module by name, opcode, JAX name stack or source file:line.

The index is one lowercased string per instruction, built once (it decodes every
instruction's metadata, so a 40k-instruction module takes a fraction of a second: build it
off the UI thread). A query is then a substring scan over plain strings, fast enough to run on
every keystroke.
"""

from __future__ import annotations

from tui.model.hlo import HloInstruction, HloModule


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
    return "\n".join(parts).lower()


class InstructionIndex:
    """Every instruction of a module (computations in file order) with its search key."""

    def __init__(self, module: HloModule):
        self.module = module
        self.instructions: list[HloInstruction] = list(module.instructions())
        self.keys: list[str] = [search_key(ins) for ins in self.instructions]

    def find(self, query: str, limit: int | None = None) -> list[HloInstruction]:
        """Instructions whose key contains `query` (case-insensitive), in module order."""
        needle = query.strip().lower()
        if not needle:
            return []
        hits = []
        for ins, key in zip(self.instructions, self.keys):
            if needle in key:
                hits.append(ins)
                if limit is not None and len(hits) >= limit:
                    break
        return hits
