"""XLA's own account of a module's memory: the buffer-assignment and live-range dump files.

XLA writes them beside the optimized module (`<platform>_after_optimizations-buffer-assignment.txt`
and `-live-range.txt`; older XLA put the live ranges at the end of the buffer-assignment file).
They hold the allocations the runtime really makes and the peak XLA computed, so the memory
screen shows these instead of re-deriving them from shapes.

The `-memory-usage-report.txt` beside them gets no parser: it is a rendering of the same
allocations with sizes rounded to KiB/MiB (and, in current XLA, without allocation numbers); its
only extra is a memory-space name per color.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import NamedTuple

from tui.model.errors import InputError, open_regular
from tui.model.memory_room import SIDE_FILE_FACTOR, check_room

HOST_MEMORY_SPACE = 5  # xla::Layout::kHostMemorySpace, the S(5) in a layout

_NUMBER = r"\d[\d ]*"  # newer XLA groups digits with spaces: "113 412 bytes"

_LIVE_RANGE_HEADER = re.compile(r"HloLiveRange \(max (\d+)\):")
_PEAK_HEADER = re.compile(r"  Live ranges at (\d+) \(peak\):")
_PEAK_ROW = re.compile(rf"    (.+): ({_NUMBER}) bytes(?: \(cumulative: ({_NUMBER}) bytes\))?")
_STACK_HEADER = re.compile(rf"  Stack trace breakdown for peak usage: {_NUMBER} bytes")
_STACK_ROW = re.compile(
    rf"(?P<tree>[ │├└─]*)(?P<label>.+?) \([^%()]*%, (?:total: (?P<total>{_NUMBER}) bytes, "
    rf"current: (?P<current>{_NUMBER}) bytes, remaining: {_NUMBER} bytes|(?P<bytes>{_NUMBER}) bytes)\)"
)
_UNKNOWN_SECTION = re.compile(r"  \S.*:")

_ALLOCATION = re.compile(r"allocation (\d+): size (\d+)(.*):")
_PARAMETER = re.compile(r", parameter (\d+), shape \|([^|]*)\| at ShapeIndex (\{[\d,]*\})")
_OUTPUT = re.compile(r", output shape is \|([^|]*)\|")
_COLOR = re.compile(r", color (\d+)")
_VALUE = re.compile(
    r" value: <(\d+) ([^\s{>]+)(\{[\d,]*\})?( \(phi\))?(?: @(\d+))?> \(size=(\d+),offset=(\d+)\): (.*)"
)
_HOST_LAYOUT = re.compile(r"\{[^{}]*S\(5\)[^{}]*\}$")


@dataclass(frozen=True)
class StackEntry:
    """One row of the "Stack trace breakdown for peak usage" tree (depth 0 is a root)."""

    depth: int
    label: str
    bytes: int
    current_bytes: int | None  # bytes of buffers defined right here; None in older XLA


@dataclass
class LiveRangeReport:
    """`HloLiveRange::ToString()`: the flattened schedule, each buffer's [start, end] in it, and the peak."""

    max_time: int
    sequence: list[str]  # instruction names in program order
    buffers: dict[str, tuple[int, int]]  # "dot.1{}" / "tuple.1{0}" -> (start, end), inclusive
    peak_time: int | None = None
    peak_bytes: int | None = None  # the last cumulative value, or the sum of the rows in older XLA
    peak_buffers: list[tuple[str, int]] = field(default_factory=list)  # as printed, largest first
    stack_breakdown: list[StackEntry] = field(default_factory=list)
    path: str | None = None


class AssignedValue(NamedTuple):
    """An HLO value placed in an allocation at [offset, offset + size). A tuple: files hold many."""

    id: int
    instruction: str
    shape_index: str  # "{0}" as printed; "" where XLA prints none (non-tuple instructions)
    is_phi: bool
    color: int
    size: int
    offset: int
    shape: str  # with layout, e.g. "f32[16,128]{1,0}"

    @property
    def buffer_name(self) -> str:
        """The name the live-range file uses for this value."""
        return self.instruction + (self.shape_index or "{}")


@dataclass
class Allocation:
    index: int
    size: int
    color: int = 0
    parameter: int | None = None  # entry parameter number
    parameter_shape: str | None = None
    parameter_index: str | None = None  # ShapeIndex inside that parameter, "{}" for the whole
    output_shape: str | None = None
    flags: frozenset[str] = frozenset()  # constant, thread-local, maybe-live-out, preallocated-temp, ...
    values: list[AssignedValue] = field(default_factory=list)
    line: int = 0

    @property
    def is_parameter(self) -> bool:
        return self.parameter is not None

    @property
    def is_output(self) -> bool:
        return "maybe-live-out" in self.flags

    @property
    def is_temp(self) -> bool:
        return "preallocated-temp" in self.flags

    @property
    def is_constant(self) -> bool:
        return "constant" in self.flags

    @property
    def is_thread_local(self) -> bool:
        return "thread-local" in self.flags

    @property
    def kind(self) -> str:
        """One word for tables: parameter, output, constant, thread-local, temp or other."""
        if self.is_parameter:
            return "parameter"
        for flag, kind in (("maybe-live-out", "output"), ("constant", "constant"),
                           ("thread-local", "thread-local"), ("preallocated-temp", "temp")):
            if flag in self.flags:
                return kind
        return "other"

    @property
    def is_host(self) -> bool:
        """Host memory the way PJRT's memory stats decide it: a value laid out in S(5), else the color."""
        arrays = [v.shape for v in self.values if not v.shape.startswith("(")]
        if arrays:
            return any(_HOST_LAYOUT.search(shape) for shape in arrays)
        return self.color == HOST_MEMORY_SPACE


@dataclass(frozen=True)
class MemoryBreakdown:
    """The byte counts of `compiled.memory_analysis()`, summed from the allocations as PJRT does."""

    argument_bytes: int
    output_bytes: int
    alias_bytes: int  # parameters that are also live out: donated buffers
    temp_bytes: int
    constant_bytes: int
    thread_local_bytes: int


@dataclass
class BufferAssignment:
    allocations: list[Allocation]
    total_bytes: int | None = None  # "Total bytes used", where the file prints it
    live_range: LiveRangeReport | None = None  # older XLA appends it to this file
    path: str | None = None

    @property
    def peak_bytes(self) -> int | None:
        return self.live_range.peak_bytes if self.live_range else None

    @property
    def peak_buffers(self) -> list[tuple[str, int]]:
        return self.live_range.peak_buffers if self.live_range else []

    def breakdown(self, host: bool = False) -> MemoryBreakdown:
        """Totals per kind for device memory, or host memory with `host=True`."""
        chosen = [a for a in self.allocations if a.is_host == host]
        return MemoryBreakdown(
            argument_bytes=sum(a.size for a in chosen if a.is_parameter),
            output_bytes=sum(a.size for a in chosen if a.is_output),
            alias_bytes=sum(a.size for a in chosen if a.is_parameter and a.is_output),
            temp_bytes=sum(a.size for a in chosen if a.is_temp),
            constant_bytes=sum(a.size for a in chosen if a.is_constant),
            thread_local_bytes=sum(a.size for a in chosen if a.is_thread_local),
        )


def parse_live_range(text_or_path: str | os.PathLike) -> LiveRangeReport:
    """Parse a `-live-range.txt` file. A path is anything `os.PathLike`; a `str` is the text."""
    text, path = _read(text_or_path)
    lines = text.split("\n")
    start = _first_content_line(lines)
    if start < len(lines) and lines[start].startswith("HloLiveRange not available"):
        raise InputError(path, f"XLA wrote no live ranges here: {lines[start].strip()!r}", line=start + 1)
    return _parse_live_range_lines(lines, start, path)


def parse_buffer_assignment(text_or_path: str | os.PathLike) -> BufferAssignment:
    """Parse a `-buffer-assignment.txt` file. A path is anything `os.PathLike`; a `str` is the text."""
    text, path = _read(text_or_path)
    lines = text.split("\n")
    i = _first_content_line(lines)
    if i >= len(lines) or lines[i] != "BufferAssignment:":
        raise InputError(path, "not an XLA buffer-assignment file: expected 'BufferAssignment:'", line=i + 1)
    allocations: list[Allocation] = []
    i += 1
    while i < len(lines):
        line = lines[i]
        if line.startswith(" value: ") and allocations:
            allocations[-1].values.append(_value(line, i + 1, path))
        elif line.startswith("allocation "):
            allocations.append(_allocation(line, i + 1, path))
        elif not line.strip():
            break
        else:
            raise InputError(path, f"expected an allocation or a value line, got {_clip(line)}", line=i + 1)
        i += 1
    for expected, allocation in enumerate(allocations):
        if allocation.index != expected:
            problem = f"allocation {allocation.index} out of order (expected {expected})"
            raise InputError(path, problem, line=allocation.line)

    report = BufferAssignment(allocations, path=path)
    # The rest (older XLA): "Total bytes used", the "Used values" list, then the live ranges.
    for j in range(i, len(lines)):
        line = lines[j]
        if line.startswith("Total bytes used: "):
            report.total_bytes = _int_field(line[len("Total bytes used: "):].split(" ")[0], j, path)
        elif line.startswith("HloLiveRange "):
            report.live_range = _parse_live_range_lines(lines, j, path)
            break
    return report


def parse_value_positions(text_or_path: str | os.PathLike) -> list[list[tuple[str, tuple[int, ...]]]]:
    """Each value's positions from a `-buffer-assignment-values.txt` file: (instruction, shape index).

    Newer XLA prints no get-tuple-element lines in the module text (an operand reads `%t#2`), yet
    names them in the live ranges; a value's positions tie such a name to the tuple it reads
    (`get-tuple-element.24` beside `arg_tuple.1 {4}`)."""
    text, path = _read(text_or_path)
    values: list[list[tuple[str, tuple[int, ...]]]] = []
    positions = None
    for line in text.split("\n"):
        if line.startswith("<"):
            positions = None
        elif line == " positions:":
            positions = []
            values.append(positions)
        elif positions is not None and line.startswith("  "):
            name, _, index = line[2:].partition(" ")
            positions.append((name, tuple(int(i) for i in index.strip("{}").split(",") if i)))
        else:
            positions = None
    return values


def _read(text_or_path: str | os.PathLike) -> tuple[str, str | None]:
    path = None if isinstance(text_or_path, str) else os.fspath(text_or_path)
    try:
        if path is None:
            text = text_or_path
        else:
            with open_regular(path) as f:
                size = os.fstat(f.fileno()).st_size
                check_room([path], size * SIDE_FILE_FACTOR)
                text = f.read().decode("utf-8", errors="replace")
    except OSError as err:
        raise InputError(path, f"cannot read: {err.strerror or err}") from None
    return text.replace("\r\n", "\n"), path


def _first_content_line(lines: list[str]) -> int:
    i = 0
    while i < len(lines) and not lines[i].strip():
        i += 1
    return i


def _parse_live_range_lines(lines: list[str], start: int, path: str | None) -> LiveRangeReport:
    header = _LIVE_RANGE_HEADER.fullmatch(lines[start]) if start < len(lines) else None
    if header is None:
        raise InputError(path, "not an XLA live-range file: expected 'HloLiveRange (max N):'", line=start + 1)
    report = LiveRangeReport(max_time=int(header[1]), sequence=[], buffers={}, path=path)
    sequence, buffers = report.sequence, report.buffers
    section = ""
    running = 0
    for i in range(start + 1, len(lines)):
        line = lines[i]
        if line.startswith("    "):  # a row of the current section; the two big ones without regexes
            if section == "InstructionSequence:":
                index, _, name = line[4:].partition(":")
                if index != str(len(sequence)) or not name:
                    raise InputError(path, f"expected instruction {len(sequence)} as 'N:name', got {_clip(line)}",
                                     line=i + 1)
                sequence.append(name)
            elif section == "BufferLiveRange:":
                name, _, span = line[4:].rpartition(":")
                first, _, last = span.partition("-")
                if not (name and first.isdigit() and last.isdigit()):
                    raise InputError(path, f"expected 'name{{index}}:start-end', got {_clip(line)}", line=i + 1)
                buffers[name] = (int(first), int(last))
            elif section == "peak" and (m := _PEAK_ROW.fullmatch(line)):
                size = _int_field(m[2], i, path)
                running += size
                report.peak_buffers.append((m[1], size))
                if m[3] is not None and _int_field(m[3], i, path) != running:
                    problem = f"cumulative {m[3]} bytes is not the running sum {running} of the rows"
                    raise InputError(path, problem, line=i + 1)
                report.peak_bytes = running
            elif section == "stack" and (m := _STACK_ROW.fullmatch(line)):
                depth = max(0, (len(m["tree"]) - 4) // 4)
                total = m["total"] if m["total"] is not None else m["bytes"]
                current = None if m["current"] is None else _int_field(m["current"], i, path)
                report.stack_breakdown.append(StackEntry(depth, m["label"], _int_field(total, i, path), current))
            elif section != "unknown":
                raise InputError(path, f"unexpected line in the live ranges: {_clip(line)}", line=i + 1)
        elif not line or line.isspace():
            continue
        elif line == "  InstructionSequence:" or line == "  BufferLiveRange:":
            section = line.strip()
        elif m := _PEAK_HEADER.fullmatch(line):
            section, report.peak_time, report.peak_bytes = "peak", int(m[1]), 0
        elif _STACK_HEADER.fullmatch(line):
            section = "stack"
        elif _UNKNOWN_SECTION.fullmatch(line):
            section = "unknown"  # a section newer XLA may add: skip its rows
        else:
            raise InputError(path, f"unexpected line in the live ranges: {_clip(line)}", line=i + 1)
    return report


def _allocation(line: str, number: int, path: str | None) -> Allocation:
    m = _ALLOCATION.fullmatch(line)
    if m is None:
        raise InputError(path, f"malformed allocation line: {_clip(line)}", line=number)
    allocation = Allocation(index=int(m[1]), size=int(m[2]), line=number)
    rest = m[3]
    if ", parameter " in rest and (p := _PARAMETER.search(rest)):
        allocation.parameter, allocation.parameter_shape, allocation.parameter_index = int(p[1]), p[2], p[3]
        rest = rest[: p.start()] + rest[p.end():]
    if ", output shape is " in rest and (o := _OUTPUT.search(rest)):
        allocation.output_shape = o[1]
        rest = rest[: o.start()] + rest[o.end():]
    if ", color " in rest and (c := _COLOR.search(rest)):
        allocation.color = int(c[1])
        rest = rest[: c.start()] + rest[c.end():]
    allocation.flags = frozenset(flag for flag in rest.split(", ") if flag)
    return allocation


def _value(line: str, number: int, path: str | None) -> AssignedValue:
    m = _VALUE.fullmatch(line)
    if m is None:
        raise InputError(path, f"malformed value line: {_clip(line)}", line=number)
    return AssignedValue(int(m[1]), m[2], m[3] or "", m[4] is not None, int(m[5] or 0), int(m[6]), int(m[7]), m[8])


def _int_field(digits: str, index: int, path: str | None) -> int:
    try:
        return int(digits.replace(" ", ""))
    except ValueError:
        raise InputError(path, f"expected a byte count, got {digits!r}", line=index + 1) from None


def _clip(line: str) -> str:
    return repr(line if len(line) <= 80 else line[:77] + "...")
