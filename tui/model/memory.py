"""A module's memory over its program order: live bytes at every point, the peak, and the buffers.

XLA's own files (`-live-range.txt`, `-buffer-assignment.txt`) are the truth when the dump has
them; otherwise the live ranges are rebuilt from the scheduled HLO by XLA's rules
(`tui.model.live_ranges`), which give the same ranges and the same peak. Every number says
where it came from.

Two peaks, on purpose. XLA's peak is the moment `HloLiveRange` reports: it sweeps range starts
and ends in time order and, at equal times, adds the values that start before it removes the
values that ended just before, so it can pick a moment whose own live set is not the largest
(MLP: XLA reports 113,412 bytes at t=15 while t=16 holds 113,924). The curve is the honest
live-bytes-at-each-point; its highest point is `max_live`. Both are shown, each labelled.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from tui.model.errors import InputError
from tui.model.hlo import HloInstruction, HloModule
from tui.model.live_ranges import (
    HANDS_ON, LiveRanges, LiveValue, compute_live_ranges, output_aliases, shape_indices, subshape, xla_byte_size,
)
from tui.model.scopes import BY_LINE, group_of, name_scope
from tui.model.workspace import ModuleEntry

SOURCE_LIVE_RANGE = "XLA live-range file"
SOURCE_BUFFER_ASSIGNMENT = "XLA buffer-assignment file"
SOURCE_MEMORY_ANALYSIS = "compiled.memory_analysis()"
SOURCE_COMPUTED = "computed from the schedule"

KINDS = ("parameter", "output", "temp", "constant", "thread-local", "other")
SORTS = ("size", "padding waste", "program order")


@dataclass
class Peak:
    bytes: int
    source: str
    buffers: list[tuple[str, int]] = field(default_factory=list)  # (buffer, bytes) live at the peak
    time: int | None = None  # program point
    by_space: dict[str, int] = field(default_factory=dict)  # space_name -> MemoryProfile.most_by_space
    skipped: list[str] = field(default_factory=list)  # MemoryProfile.skipped
    shared_once: int | None = None  # the curve's maximum, where memory that values share (a donated
    # parameter and the output written over it, a loop's carry) makes it lower than XLA's peak


@dataclass(frozen=True)
class Totals:
    """What a program holds, by role: `compiled.memory_analysis()`'s breakdown, or ours."""

    arguments: int
    outputs: int
    aliased: int  # outputs that reuse a donated argument's buffer
    temporaries: int
    source: str
    temporaries_note: str = ""  # what "temporaries" means for this source


def handed_on(ins: HloInstruction, index: tuple[int, ...] = ()) -> tuple[HloInstruction, tuple[int, ...]]:
    """The op and shape index of the value at `index` of `ins` that it hands on without making
    it (through get-tuple-elements, bitcasts, the tuples they take apart and calls, whose result
    is their computation's); `ins` itself if it makes it."""
    while ins.operands:
        if ins.opcode == "get-tuple-element":
            index, ins = (int(ins.attr("index")), *index), ins.operands[0]
        elif ins.opcode in HANDS_ON:
            ins = ins.operands[0]
        elif ins.opcode == "tuple" and index and index[0] < len(ins.operands):
            ins, index = ins.operands[index[0]], index[1:]
        elif ins.opcode == "call" and ins.called_computations:
            ins = ins.called_computations[0].root  # a call's result is its computation's
        else:
            break
    return ins, index


def passed_in(module: HloModule, parameter: HloInstruction) -> HloInstruction | None:
    """What the caller passes for a parameter of a while loop's body or condition (its operand),
    a conditional's branch (that branch's operand) or a call (the parameter's operand); None
    for the entry's, or one of a computation nothing calls that way."""
    callers = module.callers(parameter.computation) if parameter.opcode == "parameter" else []
    if not callers:
        return None
    caller = callers[0]
    if caller.opcode == "while":
        return caller.operands[0]
    if caller.opcode == "conditional":
        branches = [c.name for c in caller.called_computations]
        k = branches.index(parameter.computation.name) if parameter.computation.name in branches else -1
        return caller.operands[k + 1] if 0 <= k < len(caller.operands) - 1 else None
    if caller.opcode == "call":
        number = parameter.parameter_number
        return caller.operands[number] if number is not None and number < len(caller.operands) else None
    return None


class MemoryProfile:
    """Live values over the flattened program order, as NumPy columns (one row per value).

    `live[space][t]` is the padded bytes live at program point t in memory space `space`
    (t runs 0..end_time; end_time is "after the last instruction", where outputs still live).
    """

    def __init__(self, module: HloModule, ranges: LiveRanges, source: str, report=None, assignment=None):
        """`report` is XLA's LiveRangeReport the ranges came from (its peak is the truth), or None."""
        self.module = module
        self.sequence = ranges.sequence
        self.end_time = ranges.end_time
        self.source = source
        self.skipped: list[str] = []  # XLA's files beside the module that could not be used, and why
        values = sorted(ranges.values, key=lambda v: (v.start, v.end, v.name))
        self.values: list[LiveValue] = values
        self.names = [v.name for v in values]
        n = len(values)
        self.start = np.fromiter((v.start for v in values), np.int64, n)
        self.end = np.fromiter((v.end for v in values), np.int64, n)
        shapes = [v.shape for v in values]
        self.size = np.fromiter(map(xla_byte_size, shapes), np.int64, n)
        self.padded = np.fromiter((_padded(s) for s in shapes), np.int64, n)
        self.logical = np.fromiter((_logical(s) for s in shapes), np.int64, n)
        self.space = np.fromiter((s.memory_space for s in shapes), np.int64, n)
        self.waste = self.padded - self.logical
        by_name = sorted(range(n), key=lambda i: (values[i].instruction.name, values[i].index))
        self._name_rank = np.empty(n, np.int64)
        self._name_rank[by_name] = np.arange(n)
        self._orders: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}  # live_at: rows ranked, their starts and ends
        self.allocation = np.full(n, -1, np.int64)  # XLA's allocation index, -1 without a buffer assignment
        self.offset = np.zeros(n, np.int64)
        self.assigned_size = np.zeros(n, np.int64)
        self._row_of = {name: i for i, name in enumerate(self.names)}
        self._own_row: dict[str, int] = {}  # instruction name -> its first value's row, by shape index
        for i in sorted(range(n), key=lambda i: values[i].index):
            self._own_row.setdefault(values[i].instruction.name, i)
        self.assignment = assignment
        self.kind = self._kinds()
        if assignment is not None:
            self._assign(assignment)
        # Where each allocation starts if all of them sat in one address space (allocated_bytes).
        sizes = [a.size for a in assignment.allocations] if assignment is not None else []
        self._allocation_base = np.concatenate(([0], np.cumsum(sizes, dtype=np.int64)))
        self.spaces = sorted(set(self.space.tolist())) or [0]
        self._shared_memory_overlaps = self._shared_memory()
        self.live = {s: self._curve(self.padded, self.space == s) for s in self.spaces}
        self.total = sum(self.live.values())
        self.max_time = int(np.argmax(self.total)) if len(self.total) else 0
        self.max_bytes = int(self.total[self.max_time]) if len(self.total) else 0
        self._file_peak_buffers = None
        if report is not None and report.peak_bytes is not None:
            self.peak_time, self.peak_bytes = report.peak_time, report.peak_bytes
            self._file_peak_buffers = report.peak_buffers
        else:
            self.peak_time = self._xla_peak_moment()
            self.peak_bytes = int(self.size[self.live_at(self.peak_time)].sum())
        self.allocated = self._allocated_curve() if assignment is not None else None
        self._time_of = {ins.name: t for t, ins in enumerate(self.sequence)}
        self._scopes: dict[int, tuple[list[str], np.ndarray]] = {}

    # -- building ---------------------------------------------------------------------------
    def _kinds(self) -> np.ndarray:
        """parameter / output / temp / constant per value, from the HLO alone. A value in the
        buffer of one that is live to the end is the output's too (a while loop's carry, in the
        buffer the loop hands back), as XLA places it in the output's allocation."""
        entry = self.module.entry
        codes = np.empty(len(self.values), np.int8)
        to_the_end = {v.buffer for v in self.values if v.end == self.end_time and v.buffer >= 0}
        for i, v in enumerate(self.values):
            op = v.instruction.opcode
            if op == "parameter" and v.instruction.computation is entry:
                kind = "parameter"
            elif op == "constant":
                kind = "constant"
            elif v.end == self.end_time or v.buffer in to_the_end:
                kind = "output"
            else:
                kind = "temp"
            codes[i] = KINDS.index(kind)
        return codes

    def _assign(self, assignment) -> None:
        """Each value's allocation, offset and size in XLA's buffer assignment; its allocation's kind."""
        for allocation in assignment.allocations:
            kind = allocation.kind if allocation.kind in KINDS else "other"
            for value in allocation.values:
                i = self._row_of.get(value.buffer_name)
                if i is not None:
                    self.allocation[i], self.offset[i], self.assigned_size[i] = allocation.index, value.offset, value.size
                    if kind != "other":
                        self.kind[i] = KINDS.index(kind)

    def _shared_memory(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Where two values in one piece of memory are live at once: a loop's carry handed from
        its condition to its body, a donated parameter and the output written over it (one alias
        buffer, or one allocation and offset in XLA's assignment). Their inclusive ranges share
        the hand-off point, where counting each counts the memory twice (XLA's peak, from its own
        sweep, does not). (first row, second row, start, end) of each such overlap."""
        n = len(self.values)
        key = np.fromiter((v.buffer for v in self.values), np.int64, n)
        known = self.allocation >= 0
        key[known] = n + self.allocation[known] * (1 << 40) + self.offset[known]  # XLA's own placement wins
        key[key < 0] = -1 - np.flatnonzero(key < 0)  # a value of its own
        _, inverse, counts = np.unique(key, return_inverse=True, return_counts=True)
        rows = np.flatnonzero(counts[inverse.ravel()] > 1)
        rows = rows[np.lexsort((self.start[rows], key[rows]))]
        a, b = rows[:-1], rows[1:]
        meet = (key[a] == key[b]) & (self.start[b] <= self.end[a])
        a, b = a[meet], b[meet]
        return a, b, self.start[b], np.minimum(self.end[a], self.end[b])

    def _curve(self, sizes: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """Bytes live at each point of the rows chosen (a mask), memory that two values share
        counted once where both are live (_shared_memory)."""
        first, second, start, end = self._shared_memory_overlaps
        both = rows[first] & rows[second]
        return (_curve(self.start[rows], self.end[rows], sizes[rows], self.end_time)
                - _curve(start[both], end[both], np.minimum(sizes[first], sizes[second])[both], self.end_time))

    def _xla_peak_moment(self, rows: np.ndarray | None = None) -> int:
        """HloLiveRange::ComputePeakMemoryMoment: a sweep over range ends that, at each point, adds
        the values starting there before it drops those that ended just before, and keeps the first
        point with the largest running total. It sizes each value by its whole defining
        instruction (a tuple's index table for every element), as XLA does. (`rows`: a mask of
        the values to sweep, all by default.)"""
        sweep = np.fromiter((xla_byte_size(v.instruction.shape) for v in self.values), np.int64, len(self.values))
        start, end = self.start, self.end
        if rows is not None:
            start, end, sweep = start[rows], end[rows], sweep[rows]
        live = _curve(start, end, sweep, self.end_time)
        starting = np.bincount(start, weights=sweep, minlength=self.end_time + 1).astype(np.int64)
        moment = starting.copy()
        moment[1:] += live[:-1]
        return int(np.argmax(moment)) if moment.max(initial=0) > 0 else 0

    # -- queries ----------------------------------------------------------------------------
    def most_by_space(self) -> dict[int, int]:
        """Per memory space, its own peak, found and sized as the peak is (XLA's sweep, XLA's
        sizes) over its values alone: device and host memory are separate pools, each with a
        highest point of its own, and the peak adds them up. With one space, it is the peak."""
        if len(self.spaces) == 1:
            return {self.spaces[0]: self.peak_bytes}
        most = {}
        for space in self.spaces:
            rows = self.space == space
            live = self.live_at(self._xla_peak_moment(rows))
            most[space] = int(self.size[live[rows[live]]].sum())
        return most

    def live_at(self, time: int, order: str = "size") -> np.ndarray:
        """Rows live at `time`, largest first ("size"), most padding first, or by definition:
        every row sorted once per order, then those live kept (keeping rows keeps their order),
        so a cursor move costs two comparisons per value and no sort."""
        if order not in self._orders:
            if order == "padding waste":
                keys = (self._name_rank, -self.padded, -self.waste)
            elif order == "program order":
                keys = (self._name_rank, -self.padded, self.start)
            else:
                keys = (self._name_rank, -self.padded)
            ranked = np.lexsort(keys)
            self._orders[order] = (ranked, self.start[ranked], self.end[ranked])
        ranked, start, end = self._orders[order]
        return ranked[(start <= time) & (end >= time)]

    def live_bytes(self, time: int) -> int:
        return int(self.total[time]) if 0 <= time < len(self.total) else 0

    def shared_bytes(self, time: int) -> int:
        """Of `live_bytes(time)`, the memory two live values hold at once at a hand-off
        (_shared_memory), counted once there: the values' own sizes add up to this much more
        (XLA's sweep counts it twice, which at the scan fixture's peak is XLA's peak)."""
        first, second, start, end = self._shared_memory_overlaps
        now = (start <= time) & (end >= time)
        return int(np.minimum(self.padded[first[now]], self.padded[second[now]]).sum())

    def instruction_at(self, time: int) -> HloInstruction | None:
        return self.sequence[time] if 0 <= time < len(self.sequence) else None

    def time_of(self, ins: HloInstruction) -> int | None:
        """The program point of an instruction, or of the scheduled instruction that runs it
        (the fusion around a fused op, the caller of a reducer)."""
        runner = self._runner(ins)
        return None if runner is None else self._time_of[runner.name]

    def _runner(self, ins: HloInstruction | None) -> HloInstruction | None:
        """The instruction, if scheduled, else the scheduled one that runs it."""
        seen = set()
        while ins is not None and ins.name not in seen:
            seen.add(ins.name)
            if ins.name in self._time_of:
                return ins
            callers = self.module.callers(ins.computation)
            ins = callers[0] if callers else None
        return None

    def row_running(self, ins: HloInstruction) -> int | None:
        """`row_of` the instruction, else of the scheduled one that runs it: a fused op's result
        has no buffer of its own, the fusion's output is where it ends up."""
        found = self.row_of(ins)
        if found is None:
            runner = self._runner(ins)
            found = None if runner is None or runner is ins else self.row_of(runner)
        return found

    def row(self, name: str) -> int | None:
        """The row of a value by its live-range name (`dot.1{}`)."""
        return self._row_of.get(name)

    def row_of(self, ins: HloInstruction) -> int | None:
        """The row of the value an instruction defines (its whole result `{}`, else its first
        element); for one that only hands a value on (a get-tuple-element, a bitcast), that
        value's; None where there is none here (a fused op)."""
        found = self._own_row.get(ins.name)
        index: tuple[int, ...] = ()
        for _ in range(64):  # (a chain of loops, each passing the value on: a few steps)
            if found is not None:
                return found
            source, index = handed_on(ins, index)
            if source is ins and ins.opcode != "parameter":
                return None
            found = self._row_of.get(f"{source.name}{{{','.join(map(str, index))}}}")
            if found is None and not index:
                found = self._own_row.get(source.name)
            if found is None:  # a loop's, branch's or call's parameter without a value of its own: what was passed in
                ins = passed_in(self.module, source)
                if ins is None:
                    return None
        return found

    def shared_once(self) -> int | None:
        """The curve's maximum where it is below XLA's peak because memory two values share (a
        donated parameter and the output written over it, a loop's carry) is counted once; else None."""
        shares = len(self._shared_memory_overlaps[0]) > 0
        return self.max_bytes if shares and self.max_bytes < self.peak_bytes else None

    def allocated_bytes(self, time: int) -> int | None:
        """Bytes of XLA's allocations in use at `time`, memory that two live values share counted
        once (an op writing over its dying operand); None without a buffer assignment."""
        if self.allocated is None:
            return None
        return int(self.allocated[time]) if 0 <= time < len(self.allocated) else 0

    def _allocated_curve(self) -> np.ndarray:
        """`allocated_bytes` at every point. Two live values share bytes only where one's range
        ends as the other's begins (XLA's heap never overlaps values it keeps apart), so the sum
        of assigned sizes is exact except at those points, which get an exact union of intervals."""
        placed = self.allocation >= 0
        sizes = np.where(placed, self.assigned_size, self.padded)
        curve = _curve(self.start, self.end, sizes, self.end_time)
        touching: dict[tuple[int, int], list[int]] = {}
        for i in np.flatnonzero(placed).tolist():
            touching.setdefault((int(self.allocation[i]), int(self.end[i])), []).append(i)
            touching.setdefault((int(self.allocation[i]), int(self.start[i])), []).append(i)
        lo, hi = self.offset, self.offset + self.assigned_size
        shared = {int(self.start[i]) for i in np.flatnonzero(placed).tolist()
                  if any(j != i and lo[j] < hi[i] and lo[i] < hi[j]
                         for j in touching[(int(self.allocation[i]), int(self.start[i]))])}
        for time in shared:
            curve[time] = self._union_bytes(time)
        return curve

    def _union_bytes(self, time: int) -> int:
        rows = np.flatnonzero((self.start <= time) & (self.end >= time))
        placed = rows[self.allocation[rows] >= 0]
        loose = int(self.padded[rows[self.allocation[rows] < 0]].sum())
        lo = self._allocation_base[self.allocation[placed]] + self.offset[placed]
        order = np.argsort(lo, kind="stable")
        lo, hi = lo[order], (lo + self.assigned_size[placed])[order]
        reach = np.concatenate(([0], np.maximum.accumulate(hi)[:-1])) if len(hi) else hi
        return loose + int(np.maximum(0, hi - np.maximum(lo, reach)).sum())

    def peak_buffers(self) -> list[tuple[str, int]]:
        """(name, XLA bytes) live at XLA's peak, largest first, as the live-range file lists them
        (the file's own list when the profile came from one)."""
        if self._file_peak_buffers is not None:
            return self._file_peak_buffers
        rows = self.live_at(self.peak_time, "size")
        rows = rows[np.lexsort((self._name_rank[rows], -self.size[rows]))]
        return [(self.names[i], int(self.size[i])) for i in rows]

    def scope_of(self, row: int) -> str:
        """The full name scope of a row's defining op."""
        return name_scope(self.values[row].instruction, None)

    def line_of(self, row: int) -> str:
        """The line of Python that made a row's defining op (the arguments: `(arguments)`)."""
        return group_of(self.values[row].instruction, BY_LINE)

    def scope_totals(self, time: int, depth: int | str, live: np.ndarray | None = None) -> list[tuple[str, int]]:
        """Padded bytes live at `time` per JAX name scope, cut to `depth` components (BY_LINE: per
        line of Python), largest first (`live`: the rows live at `time` when the caller has them
        already, in any order)."""
        names, ids = self._scope_ids(depth)
        rows = np.flatnonzero((self.start <= time) & (self.end >= time)) if live is None else live
        totals = np.bincount(ids[rows], weights=self.padded[rows], minlength=len(names))
        present = np.flatnonzero(totals > 0)
        order = present[np.argsort(-totals[present], kind="stable")]
        return list(zip([names[i] for i in order.tolist()], totals[order].astype(np.int64).tolist()))

    def _scope_ids(self, depth: int | str) -> tuple[list[str], np.ndarray]:
        if depth not in self._scopes:
            index: dict[str, int] = {}
            ids = np.fromiter((index.setdefault(group_of(v.instruction, depth), len(index)) for v in self.values),
                              np.int64, len(self.values))
            self._scopes[depth] = (list(index), ids)
        return self._scopes[depth]

    def totals(self, stats: dict | None = None) -> Totals:
        """Arguments, outputs, aliased and temporaries: memory_analysis(), XLA's allocations, or ours."""
        if stats:
            return Totals(stats.get("argument_size_in_bytes", 0), stats.get("output_size_in_bytes", 0),
                          stats.get("alias_size_in_bytes", 0), stats.get("temp_size_in_bytes", 0),
                          SOURCE_MEMORY_ANALYSIS, "temp allocation")
        if self.assignment is not None:
            b = self.assignment.breakdown()
            return Totals(b.argument_bytes, b.output_bytes, b.alias_bytes, b.temp_bytes, SOURCE_BUFFER_ASSIGNMENT,
                          "temp allocation")
        kinds = self.kind
        parameter, temp = KINDS.index("parameter"), KINDS.index("temp")
        at_peak = self.live_at(self.peak_time)
        aliased = self._donated_output_bytes()
        root = self.module.entry.root.shape  # every output, a parameter handed back as it is too
        outputs = sum(_padded(sub) for _, sub in shape_indices(root))
        return Totals(int(self.padded[kinds == parameter].sum()), outputs, aliased,
                      int(self.padded[at_peak][kinds[at_peak] == temp].sum()), SOURCE_COMPUTED,
                      "live at the peak")

    def _donated_output_bytes(self) -> int:
        params = {p.parameter_number: p for p in self.module.entry.parameters}
        total = 0
        for number, index in output_aliases(self.module).values():
            if number in params:
                total += _padded(subshape(params[number].shape, index))
        return total


def _curve(start: np.ndarray, end: np.ndarray, sizes: np.ndarray, end_time: int) -> np.ndarray:
    """Bytes live at each point 0..end_time from inclusive [start, end] ranges."""
    delta = np.zeros(end_time + 2, np.int64)
    np.add.at(delta, start, sizes)
    np.add.at(delta, end + 1, -sizes)
    return np.cumsum(delta)[: end_time + 1]


def _padded(shape) -> int:
    return xla_byte_size(shape) if shape.is_tuple else shape.padded_byte_size


def _logical(shape) -> int:
    return xla_byte_size(shape) if shape.is_tuple else shape.byte_size


# -- loading ----------------------------------------------------------------------------------

_profiles: dict[int, tuple[ModuleEntry, MemoryProfile | None, str | None]] = {}


def memory_profile(entry: ModuleEntry) -> MemoryProfile | None:
    """The entry's profile, built once; None when the module has no program order (see `why_no_profile`)."""
    cached = _profiles.get(id(entry))
    if cached is None or cached[0] is not entry:
        try:
            profile, problem = _build(entry), None
        except _NoProfile as e:
            profile, problem = None, str(e)
        cached = _profiles[id(entry)] = (entry, profile, problem)
    return cached[1]


def why_no_profile(entry: ModuleEntry) -> str | None:
    memory_profile(entry)
    return _profiles[id(entry)][2]


class _NoProfile(Exception):
    pass


def _build(entry: ModuleEntry) -> MemoryProfile:
    from tui.model.xla_memory_files import parse_buffer_assignment, parse_live_range

    module = entry.load()
    skipped: list[str] = []  # XLA's files that could not be used, and why
    assignment = None
    if entry.buffer_assignment_path is not None:
        assignment = _try(parse_buffer_assignment, entry.buffer_assignment_path, skipped)
    report, source = None, SOURCE_LIVE_RANGE
    if entry.live_range_path is not None:
        report = _try(parse_live_range, entry.live_range_path, skipped)
    if report is None and assignment is not None and assignment.live_range is not None:
        report, source = assignment.live_range, SOURCE_BUFFER_ASSIGNMENT
    if report is not None:
        path = entry.live_range_path if source == SOURCE_LIVE_RANGE else entry.buffer_assignment_path
        ranges = _ranges_from_report(module, report, path)
        if ranges is not None:
            return _noting(MemoryProfile(module, ranges, source, report, assignment), skipped)
        skipped.append(f"{path}: names instructions or values this module lacks")
    if not module.is_scheduled:
        raise _NoProfile("the module is not scheduled (no program order yet): open the module after optimizations"
                         " (o in the graph, where the dump has it)")
    return _noting(MemoryProfile(module, compute_live_ranges(module), SOURCE_COMPUTED, None, assignment), skipped)


def _noting(profile: MemoryProfile, skipped: list[str]) -> MemoryProfile:
    """`profile`, saying which of XLA's files it could not use, and where its numbers come from instead."""
    profile.skipped = [f"{note} (not used; live ranges: {profile.source})" for note in skipped]
    return profile


def _try(parse, path: os.PathLike, skipped: list[str]):
    """What `parse` makes of XLA's file at `path`, or None, with why in `skipped`."""
    try:
        return parse(path)
    except InputError as error:
        skipped.append(str(error))
        return None


def _ranges_from_report(module: HloModule, report, path: os.PathLike | None) -> LiveRanges | None:
    """XLA's printed ranges on this module's instructions; None if the file names other instructions.

    Get-tuple-elements that the text printed inline (`%t#2`) are named in the file by their
    real names (`get-tuple-element.24`): they are found through XLA's values file beside it."""
    sequence = [module.instruction(name) for name in report.sequence]
    if any(ins is None for ins in sequence):
        _find_elided_tuple_elements(module, report.sequence, sequence, path)
        if any(ins is None for ins in sequence):
            return None
    values = []
    for name, (start, end) in report.buffers.items():
        base, _, index_text = name.rpartition("{")
        ins = module.instruction(base)
        index = tuple(int(x) for x in index_text.rstrip("}").split(",") if x)
        if ins is None or index not in dict(shape_indices(ins.shape)):
            return None
        values.append(LiveValue(ins, index, start, end))
    return LiveRanges(sequence, values)


def _find_elided_tuple_elements(module: HloModule, names: list[str], sequence: list, path) -> None:
    """Fill the unknown points of `sequence` with the `t#i` get-tuple-elements they are, where
    XLA's `-buffer-assignment-values.txt` beside `path` says which tuple element each one reads."""
    from tui.model.xla_memory_files import parse_value_positions

    values_path = _values_file(path)
    if values_path is None or not any("#" in ins.name for ins in module.instructions()):
        return
    try:
        values = parse_value_positions(values_path)
    except InputError:
        return
    unknown = {name for name, ins in zip(names, sequence) if ins is None}
    candidates: dict[str, list[HloInstruction]] = {}
    for positions in values:
        known = [(name, index) for name, index in positions if name not in unknown]
        for name, index in positions:
            if name not in unknown:
                continue
            for tuple_name, tuple_index in known:
                depth = len(tuple_index) - len(index)
                if depth > 0 and tuple_index[depth:] == index:
                    path_text = "".join(f"#{i}" for i in tuple_index[:depth])
                    element = module.instruction(tuple_name + path_text)
                    if element is not None and element not in candidates.setdefault(name, []):
                        candidates[name].append(element)
    for t, name in enumerate(names):
        found = candidates.get(name) if sequence[t] is None else None
        if found:
            sequence[t] = _in_neighbours_computation(found, sequence, t)


def _values_file(path) -> Path | None:
    if path is None:
        return None
    path = Path(path)
    for suffix in ("-live-range.txt", "-buffer-assignment.txt"):
        if path.name.endswith(suffix):
            values = path.with_name(path.name[: -len(suffix)] + "-buffer-assignment-values.txt")
            return values if values.is_file() else None
    return None


def _in_neighbours_computation(found: list[HloInstruction], sequence: list, t: int) -> HloInstruction:
    """Of the get-tuple-elements a name may be (one value read at several tuples), the one in the
    computation of the instructions scheduled next to point `t`."""
    if len(found) > 1:
        near = [ins for ins in (sequence[t - 1] if t else None, sequence[t + 1] if t + 1 < len(sequence) else None)
                if ins is not None]
        for ins in found:
            if any(ins.computation is other.computation for other in near):
                return ins
    return found[0]


# -- the peak, for --summary ------------------------------------------------------------------

def space_name(space: int) -> str:
    """A memory space as people call it: `S(n)` in a layout; 0 is the device's, 5 the host's."""
    return "device" if space == 0 else "host S(5)" if space == 5 else f"S({space})"


def peak_memory(entry: ModuleEntry) -> Peak | None:
    """XLA's peak from its files, else computed from the schedule, else memory_analysis() totals."""
    try:
        profile = memory_profile(entry)
    except InputError:
        profile = None
    if profile is not None:
        by_space = {space_name(space): most for space, most in profile.most_by_space().items()}
        return Peak(profile.peak_bytes, profile.source, profile.peak_buffers(), profile.peak_time, by_space, profile.skipped,
                    profile.shared_once())
    stats = entry.compiled_stats.get("memory_analysis")
    if stats:
        total = (stats.get("argument_size_in_bytes", 0) + stats.get("output_size_in_bytes", 0)
                 - stats.get("alias_size_in_bytes", 0) + stats.get("temp_size_in_bytes", 0))
        return Peak(total, SOURCE_MEMORY_ANALYSIS)
    return None


def memory_counters(trace) -> list:
    """The profile's counter tracks that measure memory (allocator stats, Chrome `C` memory series)."""
    if trace is None:
        return []
    words = ("mem", "byte", "alloc", "heap", "hbm")
    return [c for c in trace.counters if any(w in c.name.lower() for w in words)]
