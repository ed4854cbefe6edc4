"""A real GPU profile of a scan: the train step of tests/programs.py's build_scan_train_step on
an H100 with JAX 0.11 (tests/fixtures/gpu_scan, made by `make_fixtures.py --gpu gpu_scan`),
profiled from its first call.

Its layers run in while loops whose bodies are CUDA graphs: the per-layer weight slices and
the stacked activations' updates run there as the graph's memcpy nodes, which name no
instruction. And since XLA compiled the step inside the profile, the profile also holds the
autotuner's trial runs. XLA's thunk files in the dump are the oracle: which thunks each command
buffer holds (`thunk_sequence_after_thunk_passes.txt`) and which instruction each thunk runs
(`thunk_metadata.txt`).
"""

from __future__ import annotations

import re
from collections import Counter

import pytest
from conftest import FIXTURES

from tui.model.inputs import load_workspace
from tui.model.links import find_instruction, kernel_events, kernel_ops, event_programs, kernel_tracks, op_profile
from tui.model.summary import format_summary, summarize

SCAN = FIXTURES / "gpu_scan"
PROGRAM = "jit_train_step(0)"
COPY_THUNKS = ("kCopy", "kDynamicSliceFusion")


@pytest.fixture(scope="module")
def workspace():
    return load_workspace([SCAN / "gpu_scan.xplane.pb", SCAN])


def _file(suffix: str):
    (path,) = SCAN.glob(f"*{suffix}")
    return path


def command_buffers() -> dict[str, list[tuple[str, str, str]]]:
    """XLA's thunk files: per command buffer (`command_buffer_N`, N its first thunk's id), its
    thunks in order as (kind, its kernel's name, the instruction it runs); a dynamic-slice
    fusion's own copy left out."""
    runs = dict((int(number), name) for name, number in re.findall(
        r'profile_annotation: "([^"]*)"\s*thunk_id: (\d+)', _file("thunk_metadata.txt").read_text()))
    buffers: dict[str, list[tuple[str, str, str]]] = {}
    stack: list[tuple[int, list | None]] = []  # (indent, the buffer's thunks, or None for a slice fusion)
    for line in _file("thunk_sequence_after_thunk_passes.txt").read_text().splitlines():
        found = re.match(r"( *)(\d+): (k\w+) *\[[^]]*\] *(\S*)", line)
        if not found:
            continue
        indent, number, kind, kernel = len(found[1]), int(found[2]), found[3], found[4]
        while stack and stack[-1][0] >= indent:
            stack.pop()
        if kind == "kCommandBuffer":
            stack.append((indent, []))
            continue
        inside = next((thunks for _, thunks in reversed(stack)), "outside")
        if inside is None:  # the copy a dynamic-slice fusion runs
            continue
        if isinstance(inside, list):
            if not inside:
                buffers[f"command_buffer_{number}"] = inside
            inside.append((kind, kernel, runs[number]))
        if kind == "kDynamicSliceFusion":
            stack.append((indent, None))
    return buffers


def test_every_kernel_of_the_step_is_the_instruction_xla_ran(workspace):
    """Graph kernels by their names (a kernel shared by fusions of two loop bodies by its graph),
    and the memcpy nodes of the loop bodies' graphs by their place among their graph's copies."""
    buffers = command_buffers()
    module = workspace.main.load()
    (k,) = kernel_tracks(workspace.trace)
    track = workspace.trace.tracks[k]
    codes, ops = kernel_ops(track)
    program_codes, programs = event_programs(track)
    raw_codes, raw_ops = track.stat_codes("hlo_op")
    node_codes, nodes = track.stat_codes("cuda_graph_node_id")
    graph_copies: dict[int, list[int]] = {}  # graph id -> its memcpy nodes, in node order
    for i in range(track.count):
        if program_codes[i] >= 0 and programs[program_codes[i]] == PROGRAM and track.event_name(i).startswith("Memcpy"):
            node = int(nodes[node_codes[i]])
            if node not in graph_copies.setdefault(node >> 32, []):
                graph_copies[node >> 32].append(node)
    checked, kinds, runs = Counter(), Counter(), {}
    for i in range(track.count):
        if program_codes[i] < 0 or programs[program_codes[i]] != PROGRAM:
            continue
        op, name = raw_ops[raw_codes[i]], track.event_name(i)
        if not op.startswith("command_buffer"):
            truth = op
        elif name.startswith("Memcpy"):
            node = int(nodes[node_codes[i]])
            copies = [run for kind, _, run in buffers[op] if kind in COPY_THUNKS]
            truth = copies[sorted(graph_copies[node >> 32]).index(node)]
        else:
            (truth,) = [run for kind, kernel, run in buffers[op] if kind == "kCustomKernel" and kernel == name]
        ins = find_instruction(module, ops[codes[i]])
        assert ins is not None and ins.name == truth, (name, op, ops[codes[i]])
        if ins.name not in runs:
            runs[ins.name] = set(kernel_events(track, PROGRAM, ins).tolist())
        assert i in runs[ins.name]
        checked[ins.name] += 1
        kinds[ins.opcode if name.startswith("Memcpy") else "kernel"] += 1
    assert kinds["fusion"] == 9 * 12  # 3 + 6 slices and updates a layer, 4 layers a step, 3 steps
    assert kinds["copy"] == 3 * 3 and kinds["kernel"] > 200 and set(checked.values()) == {3, 12}


def test_autotuning_is_left_out_of_the_op_time(workspace):
    profile = op_profile(workspace)
    assert {row.program for row in profile.ops} == {PROGRAM}
    module = workspace.main.load()
    tuned = {row.program for row in profile.autotuning}
    assert len(tuned) > 3 and all(module.instruction(name).opcode == "fusion" for name in tuned)
    (k,) = kernel_tracks(workspace.trace)
    program_codes, programs = event_programs(workspace.trace.tracks[k])
    ran = sum(1 for code in program_codes.tolist() if code >= 0 and programs[code] == PROGRAM)
    assert sum(row.count for row in profile.ops) == ran  # every kernel of the step is an op's run
    summary = summarize(workspace)
    text = format_summary(summary)
    assert "XLA's autotuning, left out of the op time:" in text and "(no program)" not in text
    chip, ops = summary["trace"]["chip"], summary["trace"]["top_ops"]
    assert chip["name"] == "NVIDIA H100 SXM" and all(op["bandwidth_util"] == op["bytes_per_s"] / chip["peak_bytes_per_s"] for op in ops)


def test_the_autotuners_trial_programs_are_said_apart_from_the_steps_runs(workspace):
    """--summary's program runs: the step's 3 runs, then the trial programs XLA compiled for
    itself while compiling the step, each named after a fusion of the step's module."""
    summary = summarize(workspace)
    runs = summary["trace"]["program_runs"]
    step = [row for row in runs if not row["autotuning"]]
    trials = [row for row in runs if row["autotuning"]]
    assert [(row["name"], row["runs"]) for row in step] == [(PROGRAM, 3)] and runs[0] == step[0]
    module = workspace.main.load()
    assert len(trials) > 3 and all(module.instruction(row["name"]).opcode == "fusion" for row in trials)
    assert {row["name"] for row in trials} == {row.program for row in op_profile(workspace).autotuning}
    total = sum(row["runs"] for row in trials)
    assert f"; and XLA's autotuning: {total:,} runs of {len(trials)} trial programs" in format_summary(summary)


def test_the_profiles_own_program_links_the_slices_to_their_async_starts():
    """Opened alone, the profile's copy of the program (printed with sugared async wrappers,
    `fusion-start`, whose wrapped fusions have no name) links the memcpy nodes to the starts."""
    alone = load_workspace([SCAN / "gpu_scan.xplane.pb"])
    profile = op_profile(alone)
    slices = [(row, ins) for row, ins in zip(profile.ops, profile.instructions) if row.name.startswith("fusion-start")]
    assert len(slices) == 9 and all(ins.opcode == "fusion-start" and row.count == 12 for row, ins in slices)
    assert not [row.name for row in profile.ops if row.name.startswith("Memcpy")]
    assert {profile.category_of[profile.ops.index(row)] for row, _ in slices} == {"fusion"}
    gemms = [k for k, row in enumerate(profile.ops) if row.name.startswith("gemm_fusion")]
    assert len(gemms) == 6 and {profile.category_of[k] for k in gemms} == {"matmul"}  # Triton GEMMs: kCustom fusions


def test_the_profiles_own_program_has_xlas_peak():
    """The same module as the dump's, printed with sugared async wrappers: the peak computed
    from its schedule is XLA's own (the dump's live-range file), to the byte."""
    from tui.model.live_ranges import compute_live_ranges
    from tui.model.memory import MemoryProfile
    from tui.model.xla_memory_files import parse_live_range

    alone = load_workspace([SCAN / "gpu_scan.xplane.pb"]).main.load()
    assert any(ins.opcode == "fusion-start" for ins in alone.instructions())
    xla = parse_live_range(_file("live-range.txt").read_text())
    assert MemoryProfile(alone, compute_live_ranges(alone), "computed").peak_bytes == xla.peak_bytes


def test_the_profiles_own_program_costs_what_the_dumps_does():
    """A sugared async fusion (`fusion-start`) costs what the fusion it wraps does, as the
    dump's unsugared async-start does: the two prints of the module total the same."""
    from tui.model.cost import CostModel

    alone = CostModel(load_workspace([SCAN / "gpu_scan.xplane.pb"]).main.load()).total()
    dumped = CostModel(load_workspace([SCAN]).main.load()).total()
    assert alone == dumped and alone.bytes_accessed > 0
