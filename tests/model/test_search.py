"""Finding instructions across every computation by name, opcode, JAX name stack or file:line."""

from __future__ import annotations

import pytest
from conftest import FIXTURES

from tui.model.search import InstructionIndex
from tui.model.workspace import read_hlo


@pytest.fixture(scope="module")
def index():
    return InstructionIndex(read_hlo(FIXTURES / "transformer" / "module_0014.jit_train_step.cpu_after_optimizations.txt"))


def test_by_name_and_opcode_across_computations(index):
    module = index.module
    hits = index.find("REDUCE_MAX")  # case-insensitive; these live inside fusion bodies
    assert hits and all("reduce_max" in h.name or "reduce_max" in h.op_name for h in hits)
    assert {i for i in module.instructions() if "reduce_max" in i.name} <= set(hits)
    assert {h.computation.name for h in hits} - {module.entry.name}
    dots = index.find("dot")
    assert {i for i in module.instructions() if i.opcode == "dot"} <= set(dots)
    order = {id(ins): n for n, ins in enumerate(module.instructions())}
    assert [order[id(h)] for h in dots] == sorted(order[id(h)] for h in dots)  # module order


def test_by_name_stack_and_source_line(index):
    module = index.module
    embed = index.find("jvp(embed)")
    assert embed and all("jvp(embed)" in h.op_name for h in embed)
    line = index.find("examples/transformer.py:82")
    expected = [i for i in module.instructions() if i.source and i.source == ("examples/transformer.py", 82)]
    assert line == expected and expected


def test_empty_and_missing(index):
    assert index.find("") == [] and index.find("   ") == []
    assert index.find("no-such-thing-anywhere") == []
    assert len(index.find("fusion", limit=3)) == 3
