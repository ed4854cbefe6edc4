"""Which profile events are which HLO instructions, both ways.

XLA names op events after the instruction they run (`fusion.3`, `dot.35`; TPU `XLA Ops` events
print the whole instruction, which the trace loader shortens to its name), so an instruction's
occurrences are the events with its name. Events are matched by name alone: a profile of
several programs that reuse a name counts the other programs' events too.

Each track gets a name-sorted index on first use, so looking up one instruction costs two
binary searches per track, whatever the trace's size.

The timeline's links (functions below TraceLinks) also read an event's own stats: CPU thunks
and GPU kernels carry `hlo_op` and `hlo_module`, and on TPU an op's module is the enclosing
`XLA Modules` event (named `module(program id)`), which also keeps other programs' ops with
the same name out of an instruction's occurrences.

GPU kernels are named after the kernel, not the op (`Cijk_Ailk_…` runs `custom-call.1`,
`loop_convert_fusion.kd` runs `loop_convert_fusion`): on a GPU's stream tracks the op is the
`hlo_op` stat and the module the `hlo_module` stat, read for all of a track's events at once.
A profile with such kernels counts an op's time there alone: the host events named after ops
are its launches, not its runs. Kernels that ran inside a CUDA graph all name the command
buffer that launched it (`command_buffer_1`); XLA names such a kernel after its fusion, as a C
identifier (`gemm_fusion_dot_9` runs `gemm_fusion_dot.9`), so that name is their op. Fusions
with the same body share one kernel (they have the same `deduplicated_name` in their metadata);
it is named after the first of them that runs it, and the graph's nodes of a shared kernel, in
order, are that fusion and the next ones of its kind in program order (`input_reduce_fusion_1#2`:
the second after `input_reduce_fusion.1`). A graph's memcpy nodes name no kernel of their own:
in node order they are the copies of the computation the graph's kernels belong to, in program
order (the entry's copies; a scan body's weight slices and stacked-output updates). A library's
kernel nodes (cuBLAS, cuDNN: `sm80_xmma_gemm_…`, `void cutlass::Kernel2<…>`) likewise are, in
node order, the calls of that library in the computation, in program order.

One run of an op can be several kernels: a library call launches its own (MIOpen's 3-D
convolution is an im2col kernel and a GEMM; cuBLAS's split-K GEMM, a GEMM and a reduction), one
after the other on the op's stream. Kernels of one op (and program) that follow each other on a
stream are one run (launch_runs): counts, means and FLOP rates are per run, not per kernel.
"""

from __future__ import annotations

import re
import weakref
from collections import Counter
from dataclasses import dataclass
from functools import cached_property
from typing import Iterable, NamedTuple

import numpy as np

from tui.model.categories import ASYNC_HALVES, category_of_event_name, instruction_category
from tui.model.cost import op_cost
from tui.model.dump import label_parts
from tui.model.hlo import HloInstruction, HloModule
from tui.model.roofline import Chip, profile_chip
from tui.model.scopes import NO_SCOPE, name_scope, source_line
from tui.model.trace import NameStats, Trace, Track, name_stats
from tui.model.trace_lanes import self_times_among
from tui.model.workspace import ModuleEntry, Workspace

MODULES_TRACK = "XLA Modules"
OPS_TRACK = "XLA Ops"
HLO_OP, HLO_MODULE, PROGRAM_ID = "hlo_op", "hlo_module", "program_id"
DEVICE_DURATION = "device_duration_ps"  # a TPU op's own time, where its span on the trace is longer
CORRELATION_KEYS = ("correlation_id", "correlation")  # an xplane's GPU stats; a PyTorch profiler trace's args
_PROGRAM_ID = re.compile(r"\(\d+\)$")
GRAPH_NODE = "cuda_graph_node_id"
COMMAND_BUFFER = "command_buffer"  # XLA's name for a CUDA graph of thunks (`command_buffer_1`)
MEMCPY = "memcpy"  # how a graph's copy nodes are named, whatever the case: `memcpy32_post`, `MemcpyD2D`
_NOT_IN_C_NAMES = re.compile(r"[^A-Za-z0-9_]")
CORRELATION = CORRELATION_KEYS[0]
KERNEL_STATS = (HLO_MODULE, PROGRAM_ID, GRAPH_NODE, CORRELATION)  # what op tables and derived lines read of a kernel


@dataclass(frozen=True)
class Occurrences:
    """Where an instruction ran: (track index, event index) pairs and their durations, in ns,
    and which of them begin a run (`starts`; None: each event is a run). A run of several GPU
    kernels (launch_runs) takes their time added up."""

    events: tuple[tuple[int, int], ...]
    durations_ns: np.ndarray
    starts: np.ndarray | None = None

    @cached_property
    def run_ns(self) -> np.ndarray:
        """Each run's time."""
        if self.starts is None or not len(self.durations_ns):
            return self.durations_ns
        return np.add.reduceat(self.durations_ns, np.flatnonzero(self.starts))

    @property
    def count(self) -> int:
        return len(self.run_ns)

    @property
    def total_ns(self) -> int:
        return int(self.durations_ns.sum())

    @property
    def mean_ns(self) -> float:
        return float(self.run_ns.mean()) if self.count else 0.0

    @property
    def min_ns(self) -> int:
        return int(self.run_ns.min()) if self.count else 0

    @property
    def max_ns(self) -> int:
        return int(self.run_ns.max()) if self.count else 0


def op_program_keys(op_codes: np.ndarray, program_codes: np.ndarray, programs: list[str]) -> np.ndarray:
    """One integer per (op code, program code; -1: no program), to group kernels by both."""
    return op_codes.astype(np.int64) * (len(programs) + 1) + program_codes + 1


def op_program_of(key: int, programs: list[str]) -> tuple[int, int]:
    """The (op code, program code; -1: none) an `op_program_keys` key stands for."""
    op, program = divmod(key, len(programs) + 1)
    return op, program - 1


def launch_runs(events: np.ndarray, keys: np.ndarray | None = None, program_runs: np.ndarray | None = None
                ) -> np.ndarray:
    """Per event of `events` (ascending indices into one kernel track, each of some op, `keys`
    telling ops and programs apart; all of one op if None), whether it begins a run: the kernels
    of one run of an op follow each other on its stream, so a kernel right after one of the
    same op and program continues its run, unless a new run of the program launched it
    (`program_runs`, per event: derived_lines.kernel_runs; -1 where not known)."""
    starts = np.ones(len(events), bool)
    if len(events) > 1:
        starts[1:] = events[1:] != events[:-1] + 1
        if keys is not None:
            starts[1:] |= keys[1:] != keys[:-1]
        if program_runs is not None:
            starts[1:] |= program_runs[1:] != program_runs[:-1]
    return starts


def kernel_runs(trace: Trace, stream: Track) -> np.ndarray:
    """derived_lines.kernel_runs (which reads this module's stats: imported when asked)."""
    from tui.model.derived_lines import kernel_runs as runs

    return runs(trace, stream)


class TraceLinks:
    """Events <-> instructions of one module in one trace."""

    def __init__(self, trace, module: HloModule, program: str | None = None):
        self.trace = trace
        self.module = module
        self._program = program  # the one program the module is (program_of): only its runs count
        self._checked = False  # whether _program was checked against the trace (program_ran)
        self._name_ids: dict[str, int] | None = None
        self._step: tuple[int, str] | None = None
        self._index: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        self._found: dict[str, Occurrences] = {}

    @property
    def _ids(self) -> dict[str, int]:
        """Name id of every event name that is an instruction of the module (decodes the trace)."""
        if self._name_ids is None:
            self.trace.decode_all()
            module = self.module
            self._name_ids = {name: i for i, name in enumerate(self.trace.names) if module.instruction(name) is not None}
        return self._name_ids

    @property
    def program(self) -> str | None:
        """The module's program, where the trace ran it; else None, and every run of the module counts."""
        if not self._checked:
            self._program, self._checked = program_ran(self.trace, self._program), True
        return self._program

    def _sorted(self, track_index: int) -> tuple[np.ndarray, np.ndarray]:
        """(event indices ordered by name id, their name ids) for one track."""
        if track_index not in self._index:
            ids = self.trace.tracks[track_index].name_id
            order = np.argsort(ids, kind="stable")
            self._index[track_index] = (order, ids[order])
        return self._index[track_index]

    def occurrences(self, ins: HloInstruction) -> Occurrences:
        found = self._found.get(ins.name)
        if found is None:
            events, durations, starts = [], [], []
            name_id = self._ids.get(ins.name)
            kernels = kernel_tracks(self.trace)
            lines, by_time = op_lines(self.trace), placed(self.trace)
            program_id = -2 if self.program is None else next((k for k, name in enumerate(self.trace.names) if name == self.program), -2)
            for t, track in enumerate(self.trace.tracks):
                if kernels:
                    if t not in kernels:
                        continue
                    hits = kernel_events(track, self.program or self.module.name, ins)
                    starts.append(launch_runs(hits, None, kernel_runs(self.trace, track)[hits]))
                elif name_id is not None and (not lines or t in lines):
                    order, ids = self._sorted(t)
                    hits = np.sort(order[np.searchsorted(ids, name_id, "left") : np.searchsorted(ids, name_id, "right")])
                    if by_time and self.program is not None and len(hits):  # not another program's of that name
                        runs = program_runs(self.trace, track, hits)
                        hits = hits[(runs < 0) | (runs == program_id)]
                    elif not by_time and len(hits):  # a CPU's: by the ops' own stats
                        hits = hits[in_program(track, hits, self.program or self.module.name)]
                else:
                    continue
                events += [(t, int(i)) for i in hits]
                durations.append(op_durations(track)[hits])
            found = Occurrences(tuple(events), np.concatenate(durations) if durations else np.zeros(0, np.int64),
                                np.concatenate(starts) if starts else None)
            self._found[ins.name] = found
        return found

    def step_ns(self) -> tuple[int, str]:
        """Time the module ran in the profile, and where that figure comes from.

        The module's own events on an `XLA Modules` track when the profile has them (TPU, GPU);
        otherwise the sum of all of its op events (CPU profiles have no module events).
        """
        if self._step is None:
            self._step = self._measure_step()
        return self._step

    def _measure_step(self) -> tuple[int, str]:
        name = self.program or self.module.name
        total = 0
        for track in self.trace.tracks:
            if track.name == MODULES_TRACK:
                for i in range(track.count):
                    if track.event_name(i) == name or module_name(track.event_name(i)) == name:
                        total += int(track.dur_ns[i])
        if total:
            return total, f"{name} on {MODULES_TRACK}"
        kernels = kernel_tracks(self.trace)
        if kernels:
            for k in kernels:
                track = self.trace.tracks[k]
                codes, programs = event_programs(track)
                total += int(track.dur_ns[of_program(programs, name)[codes]].sum())
            return total, "all of this module's GPU kernels"
        matched = np.fromiter(self._ids.values(), np.int64, len(self._ids))
        for track in self.trace.tracks:
            hits = np.flatnonzero(np.isin(track.name_id, matched))
            if len(hits):
                total += int(track.dur_ns[hits[in_program(track, hits, name)]].sum())
        return total, "all of this module's op events"


# --- the timeline's links: by the events' own stats, and within their module's runs ------------


def module_name(event_name: str) -> str:
    """`jit_train_step(42)` (an `XLA Modules` event) -> `jit_train_step`."""
    return _PROGRAM_ID.sub("", event_name)


def _enclosing_program(trace: Trace, track: Track, i: int) -> str | None:
    """The program (`module(program id)`) of the `XLA Modules` event running when event `i`
    started, on its device."""
    run = int(program_runs(trace, track, np.array([i]))[0])
    return trace.names[run] if run >= 0 else None


def program_runs(trace: Trace, track: Track, events: np.ndarray | None = None) -> np.ndarray:
    """Per event of a device's track (all, or those at `events`), the name id of the `XLA
    Modules` event (`module(program id)`) running when it started on that device; -1 outside any."""
    return module_runs_at(trace, track, events)[0]


def module_runs_at(trace: Trace, track: Track, events: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Per event of a device's track (all, or those at `events`), the `XLA Modules` event running
    when it started on that device: its name id, and its start (which tells one run of a program
    from the next); -1 outside any."""
    starts = track.start_ns if events is None else track.start_ns[events]
    names, runs = np.full(len(starts), -1, np.int64), np.full(len(starts), -1, np.int64)
    for other in trace.tracks:
        if other.group == track.group and other.name == MODULES_TRACK and other.count:
            k = np.searchsorted(other.start_ns, starts, side="right") - 1
            inside = (k >= 0) & (starts < other.end_ns[np.maximum(k, 0)])
            names[inside] = other.name_id[k[inside]]
            runs[inside] = other.start_ns[k[inside]]
    return names, runs


def modules_for(ws: Workspace, program: str | None) -> list[ModuleEntry]:
    """Modules to look in, best first: those of a program (`jit_f(12)`, or a module name): the
    one that is that very program (a profile's own, labelled so), then the others of its
    module name, optimized text first; or, when the event names none, the current and the
    main module."""
    if not program:
        current, main = ws.current, ws.main
        if current is not None and current.stage == "before optimizations":  # what ran is the optimized one
            current = ws.other_stage(current) or current
        return [entry for entry in (current, None if main is current else main) if entry is not None]
    module = module_name(program)
    named = [entry for entry in ws.modules if entry.name == module]
    return sorted(named, key=lambda entry: (program_of(entry) != program, entry.stage == "before optimizations"))


def program_of(entry: ModuleEntry) -> str | None:
    """The program a module is (`jit_f(12)`), where its label says: a profile's own are labelled
    so, a dump's `module_0012.jit_f` (XLA numbers both by the module's unique id; a dump and a
    profile of different runs may not agree, so a profile that never ran it is not held to it)."""
    if entry.span is not None:
        return entry.label
    dumped = label_parts(entry.label)
    return f"{dumped[1]}({dumped[0]})" if dumped else None


def program_ran(trace: Trace, program: str | None) -> str | None:
    """`program` where the trace ran it (an `XLA Modules` event, a GPU kernel or a CPU op names
    it), else None: a dump and a profile of different runs number their programs differently,
    and then an instruction's runs are all of its module's."""
    if program is None:
        return None
    if program in trace.names or any(program in event_programs(trace.tracks[k])[1] for k in kernel_tracks(trace)):
        return program
    if not placed(trace) and any(  # a CPU's ops name theirs
            program in event_programs(t)[1] for t in trace.tracks if t.count and not t.derived):
        return program
    return None


def placed(trace: Trace) -> bool:
    """Whether the trace places ops in their programs' runs by time (devices' `XLA Modules` lines)."""
    return any(t.name == MODULES_TRACK for t in trace.tracks)


def op_lines(trace: Trace) -> set[int]:
    """The devices' own `XLA Ops` lines (a TPU's): where they exist, an op's runs are their events,
    as XProf's op profile counts them, not the `Async XLA Ops` spans named after an async op's
    start (which may run another op: a `copy-start` span can hold a `copy-done`)."""
    return {k for k, t in enumerate(trace.tracks) if t.name == OPS_TRACK and t.group.startswith("/device:") and not t.derived}


def instruction_for_event(ws: Workspace, track: Track, i: int) -> tuple[str, str] | None:
    """(module label, instruction name) of the instruction event `i` of `track` ran, or None.

    Reads the event's stats (call it off the UI thread: a JSON trace's first args read takes
    about a second) and may parse the module."""
    if ws.trace is None:
        return None
    args = track.event_args(i)
    op = str(args.get("hlo_op") or track.event_name(i))
    module = args.get("hlo_module")
    if module and args.get(PROGRAM_ID) is not None:  # a GPU kernel's program, as a profile's own are named
        module = f"{module}({args[PROGRAM_ID]})"
    module = module or _enclosing_program(ws.trace, track, i)
    if op.startswith(COMMAND_BUFFER) and HLO_OP in args:  # a kernel of a CUDA graph: its own op
        codes, ops = kernel_ops(track)
        op = ops[codes[i]]
    found = instruction_in(ws, module, op)
    return (found[0].label, found[1].name) if found else None


def instruction_in(ws: Workspace, program: str | None, op: str) -> tuple[ModuleEntry, HloInstruction] | None:
    """The instruction an op names (find_instruction) in a module of `program` (a module name,
    with or without its program id), or for none, the current or main module; with its module."""
    for entry in modules_for(ws, program):
        ins = find_instruction(entry.load(), op)
        if ins is not None:
            return entry, ins
    return None


def find_instruction(module: HloModule, op: str) -> HloInstruction | None:
    """The instruction an op names: by name, or by its kernel's name (see kernel_ops)."""
    ins = module.instruction(op)
    if ins is None and "@" in op:
        return _graph_copy(module, op)
    if ins is None and "_" in op:
        kernel, _, node = op.partition("#")
        own, groups = _kernels(module)
        ins = own.get(kernel)
        if ins is not None and node:
            group = groups[_group(ins)]
            k = group.index(ins) + int(node) if node.isdigit() else len(group)
            ins = group[k] if k < len(group) else None
    return ins


def _graph_copy(module: HloModule, op: str) -> HloInstruction | None:
    """A CUDA graph's k-th node of n of a kind with no kernel of XLA's own (`MemcpyD2D#k/n@op`,
    `sm80_xmma_gemm_…#k/n@op`): the k-th of that kind in the computation that ran `op`, in
    program order, where that computation has n (else it is not known which: a computation
    whose thunks are split among graphs). A memcpy node is a copy; a library kernel, a call
    of cuBLAS or cuDNN."""
    node, _, anchor = op.partition("@")
    name, _, place = node.rpartition("#")
    place, _, count = place.partition("/")
    near = find_instruction(module, anchor)
    if near is None or not (place.isdigit() and count.isdigit()):
        return None
    found = _in_program_order(near.computation, "copies" if name.lower().startswith(MEMCPY) else "library calls")
    return found[int(place)] if len(found) == int(count) else None


def _in_program_order(computation, kind: str) -> list[HloInstruction]:
    """A computation's copies (_copies_in) or library calls (_library_calls_in), found once: a
    graph's memcpy nodes number in the hundreds in a deep model's profile, each asking about
    the same few computations (a 58-layer step's took 7 s found again for each)."""
    by_name = _found_in_computations.setdefault(computation.module, {})
    found = by_name.get((kind, computation.name))
    if found is None:
        found = by_name[(kind, computation.name)] = (_copies_in if kind == "copies" else _library_calls_in)(computation)
    return found


_found_in_computations: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
LIBRARY_TARGETS = ("__cublas", "__cudnn")  # custom-call targets XLA runs as a library's kernels


def _library_calls_in(computation) -> list[HloInstruction]:
    """The custom-calls of cuBLAS and cuDNN in a computation, in program order."""
    return [ins for ins in computation.instructions
            if ins.opcode == "custom-call" and (ins.custom_call_target or "").startswith(LIBRARY_TARGETS)]


def _copies_in(computation) -> list[HloInstruction]:
    """The copies XLA runs as memcpy thunks in a computation, in program order: its copy
    instructions, and the fusions that only slice or update a slice (a scan's weights and
    stacked outputs), which XLA runs as memcpys with computed offsets, wrapped or not in an
    async-start that runs them beside the compute stream: the wrapped fusion (as XLA's thunk
    files name it), or the start where the text prints it sugared (`fusion-start`)."""
    found = []
    for ins in computation.instructions:
        if ins.opcode == "async-start" and ins.called_computations:
            ins = ins.called_computations[0].root
        if ins.opcode == "copy" or (ins.opcode in ("fusion", "fusion-start") and _only_moves(ins)):
            found.append(ins)
    return found


def _only_moves(fusion: HloInstruction) -> bool:
    """A fusion whose body is one dynamic-slice or dynamic-update-slice of its parameters (and
    the scalar arithmetic of its offsets)."""
    body = fusion.called_computations[0] if fusion.called_computations else None
    return (body is not None and body.root.opcode in ("dynamic-slice", "dynamic-update-slice")
            and all(ins is body.root or ins.opcode in ("parameter", "bitcast") or ins.shape.element_count == 1
                    for ins in body.instructions))


def instruction_or_name(ws: Workspace, program: str | None, name: str) -> HloInstruction | str:
    """An op table row's instruction, in its program's module, or just its name if none has it."""
    found = instruction_in(ws, program, name)
    return found[1] if found else name


def kernel_name(instruction: str) -> str:
    """The name XLA gives a GPU kernel that runs `instruction` (a C identifier)."""
    return _NOT_IN_C_NAMES.sub("_", instruction)


def _group(ins: HloInstruction) -> str:
    """Fusions XLA compiled to one kernel share a `deduplicated_name`."""
    shared = ins.metadata.get("deduplicated_name") if "deduplicated_name=" in ins.attr_text else None
    return shared or ins.name


_NEVER_KERNELS = frozenset({"get-tuple-element", "tuple", "parameter", "bitcast", "constant"})


def _kernels(module: HloModule) -> tuple[dict[str, HloInstruction], dict[str, list[HloInstruction]]]:
    """Kernel name -> the instruction it is named after; deduplicated name -> the instructions
    sharing that kernel, in program order."""
    found = _by_kernel.get(module)
    if found is None:
        own: dict[str, HloInstruction] = {}
        groups: dict[str, list[HloInstruction]] = {}
        for ins in module.instructions():
            if ins.opcode in _NEVER_KERNELS:  # and JAX 0.11's inline tuple elements (`%t#1`) would take `t_1`
                continue
            own[kernel_name(ins.name)] = ins
            groups.setdefault(_group(ins), []).append(ins)
        found = _by_kernel[module] = (own, groups)
    return found


_by_kernel: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def occurrences(trace: Trace, module: str | None, instruction: HloInstruction | str, program: str | None = None
                ) -> tuple[np.ndarray, np.ndarray]:
    """(track index, event index) of each event that ran `instruction` (or an op of that name),
    in time order.

    On a GPU, its kernels by their `hlo_op` / `hlo_module` stats. Otherwise matched by event
    name: where the profile has `XLA Modules` tracks, events must also lie inside a run of
    `module` on their device, or of that one `program` (`jit_f(2)`: a module name with its
    program id, which then names the module too) when given; elsewhere (CPU) the name alone
    decides."""
    if program:
        module = module_name(program)
    kernels = kernel_tracks(trace)
    if kernels:
        hits = [kernel_events(trace.tracks[k], program or module, instruction) for k in kernels]
        tracks = np.concatenate([np.full(len(h), k, np.int32) for k, h in zip(kernels, hits)])
        found = np.concatenate(hits)
        starts = np.concatenate([trace.tracks[k].start_ns[h] for k, h in zip(kernels, hits)])
        order = np.argsort(starts, kind="stable")
        return tracks[order], found[order]
    if isinstance(instruction, HloInstruction):
        instruction = instruction.name
    tracks, found = trace.events_named(np.array([name == instruction for name in trace.names], bool))
    lines = op_lines(trace)
    if lines:
        keep = np.isin(tracks, list(lines))
        tracks, found = tracks[keep], found[keep]
    if module is None:
        return tracks, found
    if not placed(trace):  # a CPU's: by the ops' own stats
        ours = np.ones(len(found), bool)
        for k in np.unique(tracks).tolist():
            here = np.flatnonzero(tracks == k)
            ours[here] = in_program(trace.tracks[k], found[here], program or module)
        return tracks[ours], found[ours]
    inside = np.zeros(len(found), bool)
    for k in np.unique(tracks).tolist():
        here = np.flatnonzero(tracks == k)
        runs = program_runs(trace, trace.tracks[k], found[here])
        ours = [run for run in np.unique(runs[runs >= 0]).tolist()
                if (trace.names[run] == program if program else module_name(trace.names[run]) == module)]
        inside[here] = np.isin(runs, ours)
    return tracks[inside], found[inside]


def events_of_name(trace: Trace, name: str) -> tuple[np.ndarray, np.ndarray]:
    """(track index, event index), in time order, of the events named `name` and of the GPU
    kernels that ran an op of that name (a row of an op table, whatever its events are called);
    not the derived lines' spans of those kernels (derived_lines)."""
    wanted = np.array([known == name for known in trace.names], bool)
    pairs = {(k, i) for k, i in zip(*(a.tolist() for a in trace.events_named(wanted, by_time=False)))
             if not trace.tracks[k].derived}
    for k in kernel_tracks(trace):
        pairs.update((k, i) for i in kernel_events(trace.tracks[k], None, name).tolist())
    ordered = sorted(pairs, key=lambda pair: int(trace.tracks[pair[0]].start_ns[pair[1]]))
    return np.array([k for k, _ in ordered], np.int32), np.array([i for _, i in ordered], np.intp)


def correlated(trace: Trace, track_index: int, event: int) -> list[tuple[int, int]]:
    """(track index, event index), in time order, of the events XProf joins to this one with a
    flow arrow:

    - those sharing its correlation id on the other side (host or device): a GPU kernel and the
      host's launch of it (the stat is `correlation_id` in an xplane, `correlation` in a PyTorch
      profiler trace). Every kernel of a CUDA graph shares its `cuGraphLaunch`'s id: they are
      each other's siblings, not flows (XProf joins each only to the launch);
    - those at the other end of its producer/consumer contexts: a producer's `_pt`/`_p` (type,
      id) are its consumers' `_ct`/`_c`, as a TPU host's `DoEnqueueProgram` and the device's
      `XLA Modules` run of it. Followed where the profile has devices: on a CPU-only profile
      nearly every thunk has contexts, and finding one's partner would read every event's stats.

    Each track reads a stat once, the first time an event with one is asked about."""
    track = trace.tracks[track_index]
    stats = track.event_stats(event, CORRELATION_KEYS + _CONTEXT_KEYS)
    found: set[tuple[int, int]] = set()
    key = next((key for key in CORRELATION_KEYS if key in stats), None)
    if key is not None:
        shared = list(_events_with(trace, key, stats[key]))
        across = [(k, i) for k, i in shared if trace.tracks[k].group != track.group]
        found.update(across or shared)
    if any(t.group.startswith("/device:") for t in trace.tracks):
        for own_id, own_type, other_id, other_type in _CONTEXTS:
            if own_id in stats:
                found.update(_events_with(trace, other_id, stats[own_id], other_type, stats.get(own_type)))
    found.update(trace.flow_links().get((track_index, event), ()))
    found.discard((track_index, event))
    return sorted(found, key=lambda pair: int(trace.tracks[pair[0]].start_ns[pair[1]]))


_CONTEXT_KEYS = ("_p", "_pt", "_c", "_ct")
_CONTEXTS = (("_p", "_pt", "_c", "_ct"), ("_c", "_ct", "_p", "_pt"))  # a producer's consumers; a consumer's producers


def _events_with(trace: Trace, key: str, value, type_key: str | None = None, type_value=None):
    """(track index, event index) of every event whose `key` stat is `value` (and `type_key` stat
    `type_value`, when given)."""
    wanted, wanted_type = str(value), str(type_value)
    for k, other in enumerate(trace.tracks):
        if not other.count:
            continue
        codes, values = other.stat_codes(key)
        if wanted not in values:
            continue
        hits = np.flatnonzero(codes == values.index(wanted))
        if type_key is not None:
            type_codes, types = other.stat_codes(type_key)
            hits = hits[np.array([c >= 0 and types[c] == wanted_type for c in type_codes[hits].tolist()], bool)]
        yield from ((k, i) for i in hits.tolist())


def stream_tracks(trace: Trace) -> list[int]:
    """A GPU's stream tracks (XProf's `/device:GPU:N` planes; their `Stream #k` lines)."""
    return [k for k, track in enumerate(trace.tracks)
            if track.count and track.group.startswith("/device:") and track.name.startswith("Stream")]


def kernel_tracks(trace: Trace) -> list[int]:
    """The stream tracks whose kernels name their op in an `hlo_op` stat. The first call reads
    that stat of every stream event, and in the same pass the others kernels are asked about
    (KERNEL_STATS); tracks keep them."""
    return [k for k in stream_tracks(trace) if trace.tracks[k].stat_codes(HLO_OP, also=KERNEL_STATS)[1]]


def kernel_ops(track: Track) -> tuple[np.ndarray, list[str]]:
    """The op each event of a kernel track ran, as `Track.stat_codes` gives a stat: its `hlo_op`,
    or, for a kernel inside a CUDA graph (`hlo_op` names the command buffer), its own name, with
    `#k` for the k-th of its graph nodes where it has several (a kernel shared by fusions). A
    graph's memcpy nodes are its copies: `MemcpyD2D#k/n@op`, the k-th of its n, in the graph of
    the kernel that ran `op` (see find_instruction)."""
    found = _kernel_ops.get(track)
    if found is None:
        codes, ops = track.stat_codes(HLO_OP)
        graphs = [code for code, op in enumerate(ops) if op.startswith(COMMAND_BUFFER)]
        if graphs:
            codes, ops = _graph_nodes(track, codes, list(ops), graphs)
        found = _kernel_ops[track] = (codes, ops)
    return found


def _graph_nodes(track: Track, codes: np.ndarray, ops: list[str], graphs: list[int]) -> tuple[np.ndarray, list[str]]:
    """kernel_ops for the events of a CUDA graph: a node id is its graph's id (high 32 bits) and
    its place in the graph."""
    node_codes, nodes = track.stat_codes(GRAPH_NODE)
    numbers = np.array([int(n) for n in nodes] + [-1], np.int64)[node_codes]  # code -1: no node
    inside = np.flatnonzero(np.isin(codes, graphs))
    names = track.names
    copying = np.array([name.lower().startswith(MEMCPY) for name in names], bool)[track.name_id[inside]]
    library = np.array([is_library_kernel(name) for name in names], bool)[track.name_id[inside]] & ~copying
    kernels = inside[~copying & ~library]
    graph_of = {}  # (command buffer op, graph id) -> the op of the graph's first kernel node
    out = codes.copy()
    if len(kernels):
        # each (kernel, graph node) pair once, sorted by kernel then node
        pairs, pair_of = np.unique(np.stack([track.name_id[kernels].astype(np.int64), numbers[kernels]], 1),
                                   axis=0, return_inverse=True)
        kernel_ids = pairs[:, 0]
        first = np.searchsorted(kernel_ids, kernel_ids, "left")
        nodes_of_kernel = np.searchsorted(kernel_ids, kernel_ids, "right") - first
        ops += [names[kernel] if count == 1 else f"{names[kernel]}#{k}"
                for kernel, k, count in zip(kernel_ids.tolist(), (np.arange(len(pairs)) - first).tolist(),
                                            nodes_of_kernel.tolist())]
        out[kernels] = len(ops) - len(pairs) + pair_of.ravel()
        placed, at = np.unique(np.stack([codes[kernels].astype(np.int64), numbers[kernels]], 1), axis=0,
                               return_index=True)
        for (graph, node), i in zip(placed.tolist(), at.tolist()):
            graph_of.setdefault((graph, node >> 32), ops[out[kernels[i]]])
    for ranked in (inside[copying], inside[library]):
        if not len(ranked):
            continue
        # each (graph, node) once, sorted by graph then node: a graph's nodes are one run of rows
        placed, first_event, place_of = np.unique(np.stack([codes[ranked].astype(np.int64), numbers[ranked]], 1),
                                                  axis=0, return_index=True, return_inverse=True)
        keys = [(graph, node >> 32) for graph, node in placed.tolist()]
        sizes = Counter(keys)
        named = [names[n] for n in track.name_id[ranked[first_event]].tolist()]
        place = 0
        for row, key in enumerate(keys):
            place = place + 1 if row and keys[row - 1] == key else 0
            anchor = graph_of.get(key)
            ops.append(f"{named[row]}#{place}/{sizes[key]}" + (f"@{anchor}" if anchor else ""))
        out[ranked] = len(ops) - len(keys) + place_of.ravel()
    return out, ops


_LIBRARY_KERNEL = re.compile(r"[^A-Za-z0-9_]|^(sm\d+_|nvjet|ampere_|volta_|turing_|hopper_)|xmma|cublas|cudnn|cutlass")


def is_library_kernel(name: str) -> bool:
    """A kernel of cuBLAS, cuDNN or CUTLASS (`sm80_xmma_gemm_…_cublas`, `nvjet_tst_…`, `void
    cutlass::Kernel2<…>`), not one XLA generated (named after its instruction, a C identifier)."""
    return bool(_LIBRARY_KERNEL.search(name.removesuffix(".kd")))


_kernel_ops: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def event_programs(track: Track) -> tuple[np.ndarray, list[str]]:
    """The program each event of a track ran in, by its stats (a GPU kernel's, a CPU op's), as
    `Track.stat_codes` gives a stat: `module(program id)` where the event has a `program_id`
    stat beside its `hlo_module` (as a profile's own programs are labelled: two programs of one
    name, `jit_matmul` at two shapes, are told apart), else the module name."""
    found = _event_programs.get(track)
    if found is None:
        module_codes, modules = track.stat_codes(HLO_MODULE, also=(PROGRAM_ID,))
        id_codes, ids = track.stat_codes(PROGRAM_ID)
        pairs, inverse = np.unique(np.stack([module_codes, id_codes], 1), axis=0, return_inverse=True)
        named = pairs[:, 0] >= 0
        programs = [f"{modules[m]}({ids[i]})" if i >= 0 else modules[m] for m, i in pairs[named].tolist()]
        number = np.where(named, np.cumsum(named) - 1, -1)
        found = _event_programs[track] = (number[inverse.ravel()].astype(np.int32), programs)
    return found


_event_programs: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def op_durations(track: Track) -> np.ndarray:
    """Each event's time as its op's statistics count it: on a TPU's `XLA Ops` line, the
    device's own `device_duration_ps` where the event has it (XProf's op profile reads it: the
    trace can draw an op over a stretch up to half again as long, as an async copy's wait that
    other work interleaves), elsewhere its span on the trace. The device's are in fractions of
    a nanosecond (picoseconds, as XProf sums them: a short copy's 250 ps would round to nothing)."""
    if track.name != OPS_TRACK or not track.group.startswith("/device:"):
        return track.dur_ns
    found = _op_durations.get(track)
    if found is None:
        codes, values = track.stat_codes(DEVICE_DURATION)
        own = np.array([float(v) / 1000 for v in values] + [0], np.float64)[codes]
        found = _op_durations[track] = np.where(codes >= 0, own, track.dur_ns)
    return found


_op_durations: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def of_program(programs: list[str], program: str) -> np.ndarray:
    """Per program of `programs`, whether it is `program` (with its id) or, given a module name,
    one of that module; one more entry, False, for code -1 (none)."""
    return np.array([p == program or module_name(p) == program for p in programs] + [False], bool)


def in_program(track: Track, events: np.ndarray, program: str) -> np.ndarray:
    """Whether each of these events (a GPU's kernels, a CPU's ops) ran in `program` (`jit_f(12)`,
    or a module name), by its `hlo_module` stat: ops are named per program (every CPU matmul is
    a `ynn_fusion`), and neither has an `XLA Modules` line of its own to place them by. An event
    that names none counts only on a track where none does (an older jaxlib's)."""
    codes, programs = event_programs(track)
    named = of_program(programs, program)
    named[-1] = not programs
    return named[codes[events]]


def kernel_op_names(trace: Trace) -> dict[str, str]:
    """GPU kernel name -> the op its first run names in `hlo_op` (to colour kernels by their op)."""
    found: dict[str, str] = {}
    for k in kernel_tracks(trace):
        track = trace.tracks[k]
        codes, ops = kernel_ops(track)
        ran = np.flatnonzero(codes >= 0)
        name_ids, first = np.unique(track.name_id[ran], return_index=True)
        for name_id, i in zip(name_ids.tolist(), first.tolist()):
            found.setdefault(trace.names[name_id], ops[codes[ran[i]]].split("#")[0])
    return found


def kernel_events(track: Track, program: str | None, instruction: HloInstruction | str) -> np.ndarray:
    """Events (ascending) of a kernel track that ran `instruction` (or the op of that name), in
    `program` (`jit_f(12)`, or any program of a module name) where the event names its own."""
    codes, ops = kernel_ops(track)
    if isinstance(instruction, HloInstruction):
        wanted = _ops_of(track, instruction.computation.module).get(instruction, [])
    else:
        wanted = [k for k, op in enumerate(ops) if op == instruction]
    if not wanted:
        return np.zeros(0, np.intp)
    hits = np.flatnonzero(np.isin(codes, wanted))
    return hits[in_program(track, hits, program)] if program is not None else hits


def _ops_of(track: Track, module: HloModule) -> dict[HloInstruction, list[int]]:
    """Instruction -> the codes of the kernel ops (kernel_ops) that name it in `module`, every
    op resolved once per track and module (a details screen asks for one instruction a key)."""
    by_module = _ops_by_instruction.get(track)
    if by_module is None:
        by_module = _ops_by_instruction[track] = weakref.WeakKeyDictionary()
    found = by_module.get(module)
    if found is None:
        found = {}
        for k, op in enumerate(kernel_ops(track)[1]):
            ins = find_instruction(module, op)
            if ins is not None:
                found.setdefault(ins, []).append(k)
        by_module[module] = found
    return found


_ops_by_instruction: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def op_names(ws: Workspace) -> frozenset[str]:
    """Names of XLA ops: the instructions of every parsed module and the events of `XLA Ops`
    tracks."""
    names = {ins.name for entry in ws.modules if entry.loaded for ins in entry.load().instructions()}
    if ws.trace is not None:
        for track in ws.trace.tracks:
            if track.name == OPS_TRACK and track.decoded:
                names.update(track.names[k] for k in np.unique(track.name_id).tolist())
    return frozenset(names)


def op_time(rows: Iterable[NameStats]) -> int:
    """The ops' time, as XProf's op stats add it up: each op's self time (a `while`'s body ops,
    drawn inside it, count once, as themselves: the loop only for its own time between them).
    Op tables are ordered and their shares taken by it."""
    return sum(row.self_ns for row in rows)


def top_ops(ws: Workspace) -> list[NameStats]:
    """XProf's HLO op stats: the whole trace's time per XLA op and program, largest self time
    first (op_time).

    Op events by name (on `XLA Ops` tracks where the profile has them, each in the program of
    the `XLA Modules` run it started in), or on a GPU its kernels by the op and module in their
    `hlo_op` / `hlo_module` stats (an op's kernels add up), on a CPU each op event in the
    program its `hlo_module` stat names. Programs that reuse an op name (`fusion.3` in a train
    and an eval step; on a CPU every matmul is a `ynn_fusion`) get a row each."""
    trace = ws.trace
    if trace is None:
        return []
    trace.decode_all()  # every name in the table before it is read by name id
    table = _OpTable()
    kernels = kernel_tracks(trace)
    for k in kernels:
        track = trace.tracks[k]
        codes, ops = kernel_ops(track)
        program_codes, programs = event_programs(track)
        ran = np.flatnonzero(codes >= 0)
        table.add(track, ran, ops, codes[ran], programs, program_codes[ran], runs=kernel_runs(trace, track)[ran])
    if not kernels:
        wanted = op_names(ws)
        is_op = np.array([name in wanted for name in trace.names], bool)
        lines = [t for t in trace.tracks if t.name == OPS_TRACK]  # TPU: not the async ops' spans beside them
        for track in lines or trace.tracks:
            ran = np.flatnonzero(is_op[track.name_id]) if len(is_op) else np.zeros(0, np.intp)
            if lines:
                table.add(track, ran, trace.names, track.name_id[ran], trace.names, program_runs(trace, track)[ran])
            elif len(ran):  # a CPU's: each op in the program its stats name
                program_codes, programs = event_programs(track)
                table.add(track, ran, trace.names, track.name_id[ran], programs, program_codes[ran])
    return sorted(table.stats(), key=lambda row: -row.self_ns)


class OpProfile(NamedTuple):
    """The whole trace's XLA op time: XProf's HLO op stats and its Op Profile's top level."""

    ops: list[NameStats]  # a row per op and program, largest self time first (top_ops), autotuning left out
    rates: list[float | None]  # each op's achieved FLOP/s (op_flop_rates)
    byte_rates: list[float | None]  # and bytes/s (op_byte_rates)
    category_of: list[str]  # each op's category (op_categories)
    categories: list[NameStats]  # the ops' time by category, largest self time first
    instructions: list[HloInstruction | None]  # each op's instruction, where a module has it (op_instructions)
    autotuning: list[NameStats]  # the rows of XLA's autotuning runs (is_autotuning), left out of `ops`
    chip: Chip | None  # the chip it ran on (roofline.profile_chip): None for a host CPU or an unknown chip
    waits: list[bool]  # each op's: its events time only its issue or its wait (only_issues_or_waits)

    def times(self) -> dict[HloInstruction, int]:
        """Each op's self time over the trace by its instruction (the sum of its rows: one per
        program it ran in), for the instructions the loaded modules have."""
        found: dict[HloInstruction, int] = {}
        for row, ins in zip(self.ops, self.instructions):
            if ins is not None:
                found[ins] = found.get(ins, 0) + row.self_ns
        return found

    def utilization(self) -> tuple[list[float | None], list[float | None]] | None:
        """Each op's FLOP/s and bytes/s as shares of the chip's peaks (XProf's utilization
        columns); None off a known chip."""
        if self.chip is None:
            return None
        return ([None if r is None else r / self.chip.peak_flops for r in self.rates],
                [None if b is None else b / self.chip.peak_bytes for b in self.byte_rates])


def op_profile(ws: Workspace) -> OpProfile:
    """Top ops, their FLOP/s and their categories, each op's instruction looked up once. A GPU
    kernel's row is named after the instruction it ran, where a module has it. Kept on the
    workspace for its trace and the modules parsed so far (the graph's boxes and the timeline's
    tables ask for the same, a second or so on a big profile)."""
    profile = kept_op_profile(ws)
    if profile is None:
        profile = _op_profile(ws)
        ws.derived["op_profile"] = (_op_profile_inputs(ws), profile)
    return profile


def kept_op_profile(ws: Workspace) -> OpProfile | None:
    """The op profile worked out before for this trace and these parsed modules, if any."""
    kept = ws.derived.get("op_profile")
    return kept[1] if kept is not None and kept[0] == _op_profile_inputs(ws) else None


def _op_profile_inputs(ws: Workspace) -> tuple:
    return id(ws.trace), tuple(entry.label for entry in ws.modules if entry.loaded)


# The program a capture runs after the script's work to wait for it (capture_child's
# _xla_tui_drain): in the profile, but not the user's.
CAPTURE_DRAIN = "jit__xla_tui_drain"


def _op_profile(ws: Workspace) -> OpProfile:
    rows = [row for row in top_ops(ws) if not row.program or module_name(row.program) != CAPTURE_DRAIN]
    tuning = is_autotuning(rows)
    ops = [row for row, trial in zip(rows, tuning) if not trial]
    instructions = op_instructions(ws, ops)
    ops = [row if ins is None else row._replace(name=ins.name) for row, ins in zip(ops, instructions)]
    categories, category_of = op_categories(ops, instructions)
    waits = [ins is not None and only_issues_or_waits(ins, ws.trace) for ins in instructions]
    ran = [None if wait else ins for ins, wait in zip(instructions, waits)]
    return OpProfile(ops, op_flop_rates(ops, ran), op_byte_rates(ops, ran), category_of, categories,
                     instructions, [row for row, trial in zip(rows, tuning) if trial],
                     profile_chip(ws.trace.devices.values()) if ws.trace is not None else None, waits)


def only_issues_or_waits(ins: HloInstruction, trace: Trace | None) -> bool:
    """Whether an op's events time only its start or its wait: an async op's start or done on
    a TPU's or a host's op line, where the copy or collective itself runs between the two (a
    TPU's `Async XLA Ops` line draws it) while other ops run. Its FLOP/s and bytes/s would be
    its bytes over the issue (a copy-start's 5 GiB in 6 ns: petabytes a second). A GPU's
    kernels are the work itself, start or done."""
    async_op = ins.opcode.endswith(ASYNC_HALVES) or ins.opcode in ("send", "recv")
    return async_op and trace is not None and not kernel_tracks(trace)


def autotuning_programs(programs: Iterable[str | None]) -> set[str]:
    """The programs XLA's GPU autotuner ran: where kernels name their program's id beside its
    module (JAX's do), a program named without an id is one XLA compiled for itself, to time
    candidate kernels for a fusion it is compiling (named after that fusion, `gemm_fusion_dot.3`).
    A profile taken from a program's first call holds such trials."""
    named = {program for program in programs if program}
    if not any(_PROGRAM_ID.search(program) for program in named):
        return set()
    return {program for program in named if not _PROGRAM_ID.search(program)}


def is_autotuning(rows: list[NameStats]) -> list[bool]:
    """Which top-ops rows XLA's GPU autotuner ran (autotuning_programs)."""
    trials = autotuning_programs(row.program for row in rows)
    return [row.program in trials for row in rows]


def op_instructions(ws: Workspace, rows: list[NameStats]) -> list[HloInstruction | None]:
    """Each top-ops row's instruction: in a module of its program (or, for a row naming none,
    the current or main module), None where no module has it."""
    return [found[1] if (found := instruction_in(ws, row.program, row.name)) else None for row in rows]


def op_categories(rows: list[NameStats], instructions: list[HloInstruction | None]) -> tuple[list[NameStats], list[str]]:
    """XProf's Op Profile, its top level: top-ops rows added up by category (matmul, the fusion
    kinds, collectives, layout changes, ...), largest self time first; and each row's category: its
    instruction's (op_instructions), or for an op no module has, read from its name
    (`fusion.3`, `all-reduce-start.1`)."""
    of = [instruction_category(ins) if ins is not None else category_of_event_name(row.name)
          for row, ins in zip(rows, instructions)]
    return _added_up(rows, of), of


def op_scopes(rows: list[NameStats], instructions: list[HloInstruction | None], depth: int) -> tuple[list[NameStats], list[str]]:
    """XProf's Framework Op Stats, for JAX: top-ops rows added up by name scope (the op_name of
    their instruction without the op, cut to `depth` parts: `jit(step)/jit(main)/layer3`),
    largest self time first; and each row's scope. Ops no module has are `(no op_name)`."""
    of = [name_scope(ins, depth) if ins is not None else NO_SCOPE for ins in instructions]
    return _added_up(rows, of), of


def op_sources(rows: list[NameStats], instructions: list[HloInstruction | None]) -> tuple[list[NameStats], list[str]]:
    """Top-ops rows added up by the line of Python their instruction came from, largest self time
    first ("which line of my model takes the device's time"); and each row's line."""
    of = [source_line(ins) for ins in instructions]
    return _added_up(rows, of), of


def _added_up(rows: list[NameStats], keys: list[str]) -> list[NameStats]:
    """Rows added up by key (`keys[k]` is row k's), largest self time first (op_time)."""
    groups: dict[str, list[NameStats]] = {}
    for row, key in zip(rows, keys):
        groups.setdefault(key, []).append(row)
    totals = []
    for name, members in groups.items():
        count, total = sum(r.count for r in members), sum(r.total_ns for r in members)
        totals.append(NameStats(name, count, total, sum(r.self_ns for r in members), total / count,
                                min(r.min_ns for r in members), max(r.max_ns for r in members)))
    return sorted(totals, key=lambda row: -row.self_ns)


def group_rates(groups: list[NameStats], of: list[str], rows: list[NameStats], rates: list[float | None],
                waits: list[bool]) -> list[float | None]:
    """A rate of each group of top-ops rows (`of[k]` is row k's group, as op_categories and
    op_scopes give them): what its ops did in all (FLOPs, bytes) over all its time, ops without
    a rate counting as time only, but for those whose events time only an issue or a wait
    (`waits[k]`: an async copy's done, seconds long while other ops run): their time is not the
    work's, and would make a copy's bytes/s a thousandth of what it was. None for a group none
    of whose ops has a rate."""
    done: dict[str, float] = {}
    waited: dict[str, float] = {}
    for row, group, rate, wait in zip(rows, of, rates, waits):
        if rate is not None:
            done[group] = done.get(group, 0.0) + rate * row.total_ns
        elif wait:
            waited[group] = waited.get(group, 0.0) + row.total_ns
    times = [g.total_ns - waited.get(g.name, 0.0) for g in groups]
    return [done[g.name] / time if g.name in done and time > 0 else None for g, time in zip(groups, times)]


def op_flop_rates(rows: list[NameStats], instructions: list[HloInstruction | None]) -> list[float | None]:
    """Each top-ops row's achieved FLOP/s over all its runs: its instruction's FLOPs (XLA's cost
    model; profiles don't carry them) times its runs over their total time; None where unknown."""
    return _per_second(rows, instructions, "flops")


def op_byte_rates(rows: list[NameStats], instructions: list[HloInstruction | None]) -> list[float | None]:
    """Each top-ops row's achieved bytes/s (the cost model's bytes accessed), as op_flop_rates:
    XProf's memory bandwidth column, what a copy or a slice is judged by."""
    return _per_second(rows, instructions, "bytes_accessed")


def _per_second(rows: list[NameStats], instructions: list[HloInstruction | None], measure: str) -> list[float | None]:
    rates = []
    for row, ins in zip(rows, instructions):
        cost = op_cost(ins) if ins is not None else None
        amount = getattr(cost, measure) if cost is not None and cost.known else 0
        rates.append(amount * row.count / (row.total_ns / 1e9) if amount > 0 and row.total_ns > 0 else None)
    return rates


class _OpTable:
    """Events gathered by (op, program) for `name_stats`."""

    def __init__(self):
        self.keys: dict[tuple[str, str | None], int] = {}
        self.ids, self.durs, self.selfs = [], [], []

    def add(self, track: Track, events: np.ndarray, ops: list[str], op_codes: np.ndarray,
            programs: list[str], program_codes: np.ndarray, runs: np.ndarray | None = None) -> None:
        """Events of `track`, each an op (`ops[op_codes]`) of a program (`programs[program_codes]`; -1: none);
        with `runs` (GPU kernels: the program run that launched each), each stretch of one op's
        kernels in one run is one run of the op (launch_runs)."""
        if not len(events):
            return
        keys = op_program_keys(op_codes, program_codes, programs)
        durs = op_durations(track)[events]
        start = track.start_ns[events]
        nested = track.dur_ns[events] - self_times_among(start, start + track.dur_ns[events])
        selfs = np.maximum(0, durs - nested)  # less its nested ops' time (not the profiler's own events inside it)
        if runs is not None:
            firsts = np.flatnonzero(launch_runs(events, keys, runs))
            keys, durs, selfs = keys[firsts], np.add.reduceat(durs, firsts), np.add.reduceat(selfs, firsts)
        pairs, inverse = np.unique(keys, return_inverse=True)
        ids = [self.keys.setdefault((ops[op], programs[program] if program >= 0 else None), len(self.keys))
               for op, program in (op_program_of(pair, programs) for pair in pairs.tolist())]
        self.ids.append(np.array(ids, np.int64)[inverse.ravel()])
        self.durs.append(durs)
        self.selfs.append(selfs)

    def stats(self) -> list[NameStats]:
        if not self.keys:
            return []
        keys = list(self.keys)
        return name_stats([op for op, _ in keys], np.concatenate(self.ids), np.concatenate(self.durs),
                          np.concatenate(self.selfs), [program for _, program in keys])

