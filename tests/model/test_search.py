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
    named = [h for h in dots if h.name.startswith("dot")]
    assert dots[:len(named)] == named and named  # names that start with the query first
    for part in (named, dots[len(named):]):
        assert [order[id(h)] for h in part] == sorted(order[id(h)] for h in part)  # each in module order


def test_the_op_of_the_name_typed_comes_first(index):
    names = [i.name for i in index.module.instructions()]
    name = next(n for n in names if sum(other.startswith(n) for other in names) > 2)  # fusion.3: fusion.30, ...
    hits = index.find(name.upper())
    assert hits[0].name == name and len(hits) > 2
    assert all(h.name.startswith(name) for h in hits[1:sum(n.startswith(name) for n in names)])


def test_by_name_stack_and_source_line(index):
    module = index.module
    embed = index.find("jvp(embed)")
    assert embed and all("jvp(embed)" in h.op_name for h in embed)
    line = index.find("examples/transformer.py:82")
    expected = [i for i in module.instructions() if i.source and i.source == ("examples/transformer.py", 82)]
    assert line == expected and expected
    short = index.find("examples/transformer.py:8")  # line 8 alone, not 80-89
    assert short == [i for i in module.instructions() if i.source == ("examples/transformer.py", 8)]
    assert not set(short) & set(line)


def test_empty_and_missing(index):
    assert index.find("") == [] and index.find("   ") == []
    assert index.find("no-such-thing-anywhere") == []
    assert len(index.find("fusion", limit=3)) == 3
