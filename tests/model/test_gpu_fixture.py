"""A real GPU dump and profile of one program: the transformer's train step, 3 steps on an H100
with JAX 0.11 (tests/fixtures/gpu, made by `make_fixtures.py --gpu`).

Newer XLA prints no get-tuple-element lines (an operand reads `%t#2`) and runs the whole step
as one CUDA graph, whose kernels all name the command buffer as their op. XLA's own files in the
dump are the oracles: its `.hlo.pb` of the same module (with the real get-tuple-elements), its
live-range file, and its thunk metadata (which thunk runs which instruction).
"""

from __future__ import annotations

import re
from collections import Counter

import numpy as np
import pytest
from conftest import FIXTURES

from tui.model.hlo import HloParseError, parse_hlo
from tui.model.hlo_proto import hlo_text_from_proto
from tui.model.inputs import load_workspace
from tui.model.kernels import kernel_stats
from tui.model.links import (COMMAND_BUFFER, HLO_OP, TraceLinks, find_instruction, instruction_for_event,
                             kernel_events, kernel_ops, kernel_tracks, op_profile, stream_tracks)
from tui.model.live_ranges import compute_live_ranges
from tui.model.memory import MemoryProfile, memory_profile
from tui.model.roofline import chip_for
from tui.model.xla_memory_files import parse_live_range

GPU = FIXTURES / "gpu"


@pytest.fixture(scope="module")
def workspace():
    return load_workspace([GPU / "gpu.xplane.pb", GPU])


def _file(suffix: str):
    (path,) = GPU.glob(f"*{suffix}")
    return path


def _tuple_elements_as_references(module) -> dict[str, list[tuple]]:
    """Per computation, each instruction but get-tuple-elements as (name, opcode, shape, operands),
    an operand that is a get-tuple-element written `tuple#i` whatever it is named."""

    def ref(ins) -> str:
        if ins.opcode == "get-tuple-element":
            return f"{ref(ins.operands[0])}#{ins.attr('index')}"
        return ins.name

    return {c.name: sorted((i.name, i.opcode, i.shape.text, tuple(ref(o) for o in i.operands))
                           for i in c.instructions if i.opcode != "get-tuple-element")
            for c in module.computations}


def test_inline_tuple_elements_are_the_get_tuple_elements_xla_has(workspace):
    text = _file("gpu_after_optimizations.txt").read_text()
    assert re.search(r"%[\w.]+#\d", text) and " get-tuple-element(" not in text
    ours = parse_hlo(text)
    xla = parse_hlo(hlo_text_from_proto(_file("gpu_after_optimizations.hlo.pb")))  # XLA's module, printed by jaxlib
    assert _tuple_elements_as_references(ours) == _tuple_elements_as_references(xla)
    assert ours.instruction_count == xla.instruction_count
    made = [i for i in ours.instructions() if "#" in i.name]
    assert made and all(i.opcode == "get-tuple-element" for i in made)
    for ins in made:  # each stands just before its first user, with its tuple element's shape
        tuple_ins, index = ins.operands[0], int(ins.attr("index"))
        assert ins.shape.text == tuple_ins.shape.tuple_shapes[index].text
        between = ins.computation.instructions[ins.index + 1 : min(user.index for user in ins.users)]
        assert all("#" in other.name for other in between)


def test_nested_and_wrong_inline_tuple_elements():
    module = parse_hlo("""HloModule m
ENTRY e {
  p = ((f32[2], s32[]), f32[3]) parameter(0)
  ROOT n = f32[2] negate(p#0#0)
}""")
    nested = module.instruction("p#0#0")
    assert nested.operands[0] is module.instruction("p#0") and nested.shape.text == "f32[2]"
    assert [i.name for i in module.entry.instructions] == ["p", "p#0", "p#0#0", "n"]
    for operand, problem in (("p#2", "no tuple element 2"), ("n2#0", "undefined operand 'n2#0'")):
        with pytest.raises(HloParseError, match=problem) as info:
            parse_hlo(f"HloModule m\nENTRY e {{\n  p = (f32[2], f32[3]) parameter(0)\n"
                      f"  ROOT n = f32[2] negate({operand})\n}}")
        assert info.value.line == 4


def test_live_ranges_name_the_elided_get_tuple_elements(workspace):
    entry = workspace.main
    profile = memory_profile(entry)
    assert profile.source == "XLA live-range file"
    report = parse_live_range(entry.live_range_path)
    unnamed = [(name, ins) for name, ins in zip(report.sequence, profile.sequence) if name != ins.name]
    assert unnamed and all(name.startswith("get-tuple-element") and "#" in ins.name for name, ins in unnamed)
    computed = MemoryProfile(entry.load(), compute_live_ranges(entry.load()), "computed")
    assert computed.peak_bytes == profile.peak_bytes == report.peak_bytes


def test_graph_kernels_are_the_instructions_xla_ran(workspace):
    """Every kernel of the CUDA graph is matched to the instruction XLA's thunk metadata names
    for its graph node (node k is the command buffer's thunk k+1): fusions by their kernels, and
    the copies, which all run as the driver's `memcpy32_post`, by their place in the program."""
    thunks = {int(number): name for name, number in re.findall(
        r'profile_annotation: "([^"]*)"\s*thunk_id: (\d+)', _file("thunk_metadata.txt").read_text())}
    module = workspace.main.load()
    (k,) = kernel_tracks(workspace.trace)
    track = workspace.trace.tracks[k]
    codes, ops = kernel_ops(track)
    node_codes, nodes = track.stat_codes("cuda_graph_node_id")
    matched, copies, runs = Counter(), set(), {}
    for i in range(track.count):
        truth = thunks[(int(nodes[node_codes[i]]) & 0xFFFFFFFF) + 1]
        ins = find_instruction(module, ops[codes[i]])
        assert ins is not None and ins.name == truth
        if ins.name not in runs:
            runs[ins.name] = set(kernel_events(track, "jit_train_step", ins).tolist())
        assert i in runs[ins.name]
        assert (ins.opcode == "copy") == (track.event_name(i) == "memcpy32_post")
        matched[ins.name] += 1
        copies.update([ins.name] if ins.opcode == "copy" else [])
    assert set(matched.values()) == {3} and len(copies) == 6  # each ran once a step; the six copies too


def test_the_host_annotation_of_a_command_buffer_is_no_kernel_of_it(workspace):
    """The host's `command_buffer_1` annotation around a graph's launch has no `hlo_op`: it is
    matched by its name like any host event (it once was taken for one of the graph's kernels,
    and Enter on it stopped the app), while the graph's kernels still resolve to their ops."""
    trace = workspace.trace
    kernel_rows = set(kernel_tracks(trace))
    host = [(t, i) for k, t in enumerate(trace.tracks) if k not in kernel_rows
            for i in range(t.count) if t.event_name(i).startswith(COMMAND_BUFFER) and HLO_OP not in t.event_args(i)]
    assert host
    for track, i in host:
        assert instruction_for_event(workspace, track, i) is None  # no instruction has that name
    (k,) = kernel_tracks(trace)
    kernels = trace.tracks[k]
    graph = next(i for i in range(kernels.count) if str(kernels.event_args(i)[HLO_OP]).startswith(COMMAND_BUFFER))
    assert instruction_for_event(workspace, kernels, graph) is not None


def test_a_graphs_kernels_flow_to_its_launch_not_to_each_other(workspace):
    """Every kernel of the CUDA graph shares the `cuGraphLaunch`'s correlation id: a kernel's
    flow is that launch on the host (as XProf draws it), not the graph's other kernels, and the
    launch's flows are its kernels."""
    from tui.model.links import CORRELATION_KEYS, correlated

    trace = workspace.trace
    (k,) = kernel_tracks(trace)
    kernels = trace.tracks[k]
    first = next(i for i in range(kernels.count) if kernels.event_name(i).startswith("input_transpose_fusion"))
    (launch,) = correlated(trace, k, first)
    host = trace.tracks[launch[0]]
    assert host.group.startswith("/host:") and host.event_name(launch[1]).startswith("cuGraphLaunch")
    key = next(key for key in CORRELATION_KEYS if key in kernels.event_args(first))
    siblings = {(k, i) for i in range(kernels.count) if kernels.event_args(i).get(key) == kernels.event_args(first)[key]}
    assert len(siblings) > 100 and set(correlated(trace, *launch)) == siblings


def test_a_fusion_sharing_its_kernel_counts_its_own_runs(workspace):
    module = workspace.main.load()
    shared = [i for i in module.entry.instructions
              if i.opcode == "fusion" and i.metadata.get("deduplicated_name") not in (None, i.name)]
    assert len(shared) > 10
    links = TraceLinks(workspace.trace, module)
    runs = [links.occurrences(ins).count for ins in shared]
    assert runs.count(3) == len(runs)


def test_op_table_and_roofline_on_the_h100(workspace):
    profile = op_profile(workspace)
    named = [row.name for row in profile.ops if workspace.main.load().instruction(row.name) is not None]
    assert len(named) > 0.9 * len(profile.ops)
    assert np.nansum([r for r in profile.rates if r is not None]) > 0
    (device,) = workspace.trace.devices.values()
    assert chip_for(f"{device.device_type} {device.name}").name == "NVIDIA H100 SXM"


def is_copy(name: str) -> bool:
    """A stream's memcpys and memsets, not kernels: XProf's Kernel Stats leaves them out."""
    return name.lower().startswith(("memcpy", "memset", "copydevicetodevice", "copyhosttodevice", "copydevicetohost"))


def test_kernel_stats_account_for_every_run(workspace):
    stats = kernel_stats(workspace)
    (stream,) = stream_tracks(workspace.trace)
    track = workspace.trace.tracks[stream]
    kernels = [i for i in range(track.count) if not is_copy(track.event_name(i))]
    assert len(kernels) < track.count  # the stream also copied
    assert sum(row.count for row in stats.rows) == len(kernels)
    assert sum(row.total_ns for row in stats.rows) == int(track.dur_ns[kernels].sum())
    for row, note in zip(stats.rows, stats.notes):
        runs = [i for i in range(track.count) if track.event_name(i) == row.name]
        assert row.count == len(runs) and row.max_ns == int(track.dur_ns[runs].max())
        details = dict(part.split(":") for part in track.event_args(runs[0])["kernel_details"].split())
        assert note.startswith(f"grid {details['grid']} block {details['block']} {details['regs']} regs")
    ran = dict(zip((row.name for row in stats.rows), stats.notes))
    assert ran["gemm_fusion_dot_9"].endswith("  gemm_fusion_dot.9")  # one fusion, its own kernel
    assert "  4 ops: " in ran["input_reduce_fusion_1"]  # one kernel for four fusions


def test_kernel_stats_of_a_tensorflow_gpu_profile(corpus):
    """Kernels that name no XLA op (TensorFlow's): their launches alone."""
    workspace = load_workspace([corpus / "traces" / "xprof_demo_tf_gpu_multiworker_2020.xplane.pb"])
    stats = kernel_stats(workspace)
    streams = [workspace.trace.tracks[k] for k in stream_tracks(workspace.trace)]
    assert streams and sum(row.count for row in stats.rows) == sum(
        not is_copy(track.event_name(i)) for track in streams for i in range(track.count))
    assert not any(is_copy(row.name) for row in stats.rows)
    assert any("regs" in note for note in stats.notes)
