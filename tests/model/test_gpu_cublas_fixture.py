"""A real GPU profile whose matmuls cuBLAS ran inside a CUDA graph: the MLP's gradient on an
H100 with XLA's Triton matmuls off (tests/fixtures/gpu_cublas, made by `make_fixtures.py --gpu
gpu_cublas`). Inside the graph every kernel's `hlo_op` names the command buffer, and cuBLAS's
kernels are named by the library (`void cutlass::Kernel2<…>`, `sm80_xmma_gemm_…_cublas`), not
after an instruction: each is the k-th of the graph's library kernel nodes, which is the k-th
cuBLAS call of its computation in program order.

Two oracles: XLA's thunk files (which instruction each thunk of the command buffer runs, in
order), and the dataflow itself: each matmul's kernel starts after the kernels of its operands
ended in that run, and ends before its users' kernels start."""

from __future__ import annotations

import re

import pytest
from conftest import FIXTURES

from tui.model.cost import op_cost
from tui.model.inputs import load_workspace
from tui.model.links import (GRAPH_NODE, find_instruction, is_library_kernel, kernel_ops, kernel_tracks,
                             op_profile)

FOLDER = FIXTURES / "gpu_cublas"


@pytest.fixture(scope="module")
def workspace():
    return load_workspace([FOLDER / "gpu_cublas.xplane.pb", FOLDER])


def _thunk_instructions(kind: str) -> list[str]:
    """The instructions XLA's thunks of one kind run, in the command buffer's order."""
    (path,) = FOLDER.glob("*thunk_metadata.txt")
    return [name for name, thunk in re.findall(r'profile_annotation: "([^"]*)"\s*thunk_id: \d+\s*}\s*thunk_kind: "(\w+)"',
                                                 path.read_text()) if thunk == kind]


def test_each_library_kernel_is_the_cublas_call_xla_ran_there(workspace):
    module = workspace.main.load()
    (k,) = kernel_tracks(workspace.trace)
    track = workspace.trace.tracks[k]
    codes, ops = kernel_ops(track)
    node_codes, nodes = track.stat_codes(GRAPH_NODE)
    by_node = {}
    for i in range(track.count):
        if codes[i] >= 0 and is_library_kernel(track.event_name(i)):
            ins = find_instruction(module, ops[codes[i]])
            assert ins is not None and ins.custom_call_target == "__cublas$lt$matmul", ops[codes[i]]
            by_node.setdefault(int(nodes[node_codes[i]]), set()).add(ins.name)
    assert all(len(names) == 1 for names in by_node.values())  # a node runs one call, every run
    in_node_order = [next(iter(by_node[node])) for node in sorted(by_node)]
    assert in_node_order == _thunk_instructions("kCublasLtMatmul") and len(in_node_order) == 11


def test_each_matmul_runs_between_its_operands_and_its_users(workspace):
    """Per run of the graph (its correlation id), every instruction's kernel span; a matmul's
    operands' kernels end before it starts, its users' start after it ends."""
    module = workspace.main.load()
    (k,) = kernel_tracks(workspace.trace)
    track = workspace.trace.tracks[k]
    codes, ops = kernel_ops(track)
    runs: dict[str, dict[str, tuple[int, int]]] = {}
    correlation_codes, correlations = track.stat_codes("correlation_id")
    for i in range(track.count):
        ins = find_instruction(module, ops[codes[i]]) if codes[i] >= 0 else None
        if ins is not None and correlation_codes[i] >= 0:
            start, end = track.event_span(i)
            runs.setdefault(correlations[correlation_codes[i]], {})[ins.name] = (start, end)
    def through_elements(instructions, onward):  # a tuple element (`%t#0`) is its tuple's
        for ins in instructions:
            yield from onward(ins) if ins.opcode == "get-tuple-element" else [ins]

    checked = 0
    for spans in runs.values():
        for name, (start, end) in spans.items():
            ins = module.instruction(name)
            if ins.custom_call_target != "__cublas$lt$matmul":
                continue
            for operand in through_elements(ins.operands, lambda gte: gte.operands):
                if operand.name in spans:
                    assert spans[operand.name][1] <= start, (operand.name, name)
                    checked += 1
            for user in through_elements(ins.users, lambda gte: gte.users):
                if user.name in spans:
                    assert end <= spans[user.name][0], (name, user.name)
                    checked += 1
    assert len(runs) == 3 and checked >= 60  # 23 edges between kernels a run


def test_the_matmuls_are_matmuls_with_their_dots_flops(workspace):
    """A cuBLAS call's FLOPs are its dot's (XLA's GPU cost_analysis() counts the call as nothing,
    see tui/model/cost.py): the same as the unoptimized module's dots, one for one (the same
    products, before XLA made them calls)."""
    profile = op_profile(workspace)
    assert all(ins is not None for ins in profile.instructions)  # every op of the step found
    matmuls = [k for k, ins in enumerate(profile.instructions) if ins.custom_call_target]
    assert len(matmuls) == 11 and all(profile.ops[k].count == 3 and profile.category_of[k] == "matmul" for k in matmuls)
    assert all(profile.rates[k] > 0 and profile.byte_rates[k] > 0 for k in matmuls)
    assert max(profile.categories, key=lambda row: row.total_ns).name == "matmul"
    before = workspace.other_stage(workspace.main).load()
    dots = sorted(op_cost(ins).flops for ins in before.instructions() if ins.opcode == "dot")
    assert sorted(op_cost(profile.instructions[k]).flops for k in matmuls) == dots and dots[0] > 0
