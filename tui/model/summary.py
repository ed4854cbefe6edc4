"""What `--summary` prints: the loaded facts as one dict, and as text for people."""

from __future__ import annotations

import textwrap

from tui.model.capture_manifest import error_tail
from tui.model.errors import InputError
from tui.model.shapes import human_bytes
from tui.model.timescale import format_ns
from tui.model.workspace import Workspace


CAPTURE_KEYS = ("kind", "script", "args", "exit_status", "seconds", "capture_seconds", "error", "profile_note", "started")


def summarize(ws: Workspace) -> dict:
    from tui.model.memory import peak_memory

    modules = []
    errors = list(ws.errors)
    for entry in ws.modules:
        row = {"name": entry.name, "label": entry.label, "file": str(entry.path), "stage": entry.stage,
               "computations": None, "instructions": None, "peak_memory_bytes": None, "peak_memory_source": None}
        try:
            hlo = entry.load()
        except InputError as e:
            errors.append(str(e))
            modules.append(row)
            continue
        row["computations"] = len(hlo.computations)
        row["instructions"] = hlo.instruction_count
        peak = peak_memory(entry)
        if peak is not None:
            row["peak_memory_bytes"], row["peak_memory_source"] = peak.bytes, peak.source
        modules.append(row)
    trace = None
    if ws.trace is not None:
        t0, t1 = ws.trace.span
        trace = {"events": ws.trace.event_count, "tracks": len(ws.trace.tracks), "span_us": (t1 - t0) / 1000.0,
                 "lost_data": list(ws.trace.warnings)}
    out = {
        "main_module": ws.main.label if ws.main else None,
        "modules": modules,
        "trace": trace,
        "warnings": list(ws.warnings),
        "errors": errors,
    }
    if ws.capture is not None:
        out["capture"] = {key: ws.capture.get(key) for key in CAPTURE_KEYS} | {"files": len(ws.capture.get("files", []))}
    return out


def format_summary(summary: dict) -> str:
    lines = []
    capture = summary.get("capture")
    if capture:
        args = " ".join(capture["args"] or [])
        lines.append(f"{capture['kind'] or 'script'}: {capture['script']} {textwrap.shorten(args, 100)}".rstrip())
        lines.append(f"  exit status {capture['exit_status']}, ran {capture['seconds'] or 0:.1f} s "
                     f"(capture {capture['capture_seconds'] or 0:.1f} s), {capture['files']} files")
        tail = error_tail(capture)
        if tail:
            lines.append("  error:")
            lines.extend(f"    {line}" for line in textwrap.dedent(tail).splitlines())
    lines.append(f"main module: {summary['main_module'] or '(none)'}")
    if summary["modules"]:
        lines.append(f"modules ({len(summary['modules'])}):")
        for m in summary["modules"]:
            mark = "*" if m["label"] == summary["main_module"] else " "
            if m["instructions"] is None:
                lines.append(f" {mark} {m['label']}: not loaded")
                continue
            peak = (f"peak {human_bytes(m['peak_memory_bytes'])} ({m['peak_memory_source']})"
                    if m["peak_memory_bytes"] is not None else "peak unknown")
            stage = f", {m['stage']}" if m["stage"] else ""
            lines.append(f" {mark} {m['label']}: {m['computations']} computations, {m['instructions']} instructions, {peak}{stage}")
    trace = summary["trace"]
    if trace is None:
        lines.append("trace: none")
    else:
        lost = f"; the profiler lost data ({len(trace['lost_data'])} warnings below)" if trace.get("lost_data") else ""
        lines.append(f"trace: {trace['events']} events on {trace['tracks']} tracks over {format_ns(trace['span_us'] * 1000, 4)}{lost}")
    for w in summary["warnings"]:
        lines.append(f"warning: {w}")
    for e in summary["errors"]:
        lines.append(f"error: {e}")
    return "\n".join(lines)
