"""Peak memory of a module and where the number comes from.

XLA's own files (`-live-range.txt`, `-buffer-assignment.txt`) are the truth when the dump has
them; `compiled.memory_analysis()` totals come next.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tui.model.workspace import ModuleEntry

SOURCE_LIVE_RANGE = "XLA live-range file"
SOURCE_BUFFER_ASSIGNMENT = "XLA buffer-assignment file"
SOURCE_MEMORY_ANALYSIS = "compiled.memory_analysis()"


@dataclass
class Peak:
    bytes: int
    source: str
    buffers: list[tuple[str, int]] = field(default_factory=list)  # (buffer, bytes) live at the peak


_cache: dict[int, Peak | None] = {}


def peak_memory(entry: ModuleEntry) -> Peak | None:
    key = id(entry)
    if key not in _cache:
        _cache[key] = _peak(entry)
    return _cache[key]


def _peak(entry: ModuleEntry) -> Peak | None:
    from tui.model.xla_memory_files import parse_buffer_assignment, parse_live_range

    if entry.live_range_path is not None:
        report = parse_live_range(entry.live_range_path)
        if report.peak_bytes is not None:
            return Peak(report.peak_bytes, SOURCE_LIVE_RANGE, report.peak_buffers)
    if entry.buffer_assignment_path is not None:
        assignment = parse_buffer_assignment(entry.buffer_assignment_path)
        if assignment.peak_bytes is not None:
            return Peak(assignment.peak_bytes, SOURCE_BUFFER_ASSIGNMENT, assignment.peak_buffers)
    stats = entry.compiled_stats.get("memory_analysis")
    if stats:
        total = (stats.get("argument_size_in_bytes", 0) + stats.get("output_size_in_bytes", 0)
                 - stats.get("alias_size_in_bytes", 0) + stats.get("temp_size_in_bytes", 0))
        return Peak(total, SOURCE_MEMORY_ANALYSIS)
    return None
