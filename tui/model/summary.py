"""What `--summary` prints: the loaded facts as one dict, and as text for people."""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING

from tui.model.capture_manifest import error_tail, how_it_ended
from tui.model.errors import InputError
from tui.model.explain import si
from tui.model.shapes import human_bytes
from tui.model.timescale import format_ns
from tui.model.words import counted
from tui.model.workspace import Workspace

if TYPE_CHECKING:
    from tui.model.trace import NameStats


TOP_OPS = 10  # ops listed in a summary
TOP_RUNS = 3  # programs whose runs a summary lists
TOP_PROGRAMS = 4  # programs named in a summary's time by program
TOP_DEVICES = 4  # devices named in its busy line
TOP_STEPS = 3  # the slowest steps named
TOP_SCOPES = 6  # name scopes named in its time by name scope
CAPTURE_KEYS = ("kind", "script", "args", "exit_status", "seconds", "capture_seconds", "error", "profile_note", "started")


def summarize(ws: Workspace) -> dict:
    from tui.model.memory import peak_memory

    modules = []
    errors = list(ws.errors)
    warnings = list(ws.warnings)
    for entry in ws.modules:
        row = {"name": entry.name, "label": entry.label, "file": str(entry.path), "stage": entry.stage,
               "computations": None, "instructions": None, "peak_memory_bytes": None, "peak_memory_source": None,
               "peak_memory_by_space": None, "peak_shared_once_bytes": None, "scheduled": None}
        try:
            hlo = entry.load()
        except InputError as e:
            errors.append(str(e))
            modules.append(row)
            continue
        row["computations"] = len(hlo.computations)
        row["instructions"] = hlo.instruction_count
        row["scheduled"] = hlo.is_scheduled
        peak = peak_memory(entry)
        if peak is not None:
            row["peak_memory_bytes"], row["peak_memory_source"] = peak.bytes, peak.source
            row["peak_memory_by_space"] = peak.by_space or None
            row["peak_shared_once_bytes"] = peak.shared_once
            warnings += peak.skipped
        modules.append(row)
    trace = _trace_facts(ws) if ws.trace is not None else None
    out = {
        "main_module": ws.main.label if ws.main else None,
        "modules": modules,
        "trace": trace,
        "warnings": warnings,
        "errors": errors,
    }
    if ws.capture is not None:
        out["capture"] = {key: ws.capture.get(key) for key in CAPTURE_KEYS} | {"files": len(ws.capture.get("files", []))}
    return out


def _op_time(row: NameStats, total: int) -> dict:
    """An op table's row: its self time (op_time) and that time's share of all ops', beside its
    events' whole time (a `while`'s includes its body's ops)."""
    return {"name": row.name, "count": row.count, "self_us": row.self_ns / 1000.0, "total_us": row.total_ns / 1000.0,
            "share": row.self_ns / total if total else 0.0}


def _trace_facts(ws: Workspace) -> dict:
    """The profile at a glance, as XProf's overview gives it: size, lost data, devices and their
    peaks, steps, the top XLA ops and the allocators' highest memory (decodes every track)."""
    from tui.model.links import op_profile, op_scopes, op_sources, op_time
    from tui.model.memory import memory_counters
    from tui.model.scopes import parting_depth
    from tui.model.utilization import DeviceTime

    trace = ws.trace
    t0, t1 = trace.span
    trace.decode_all()
    facts = {"events": trace.event_count, "tracks": len(trace.tracks), "span_us": (t1 - t0) / 1000.0,
             "lost_data": list(trace.warnings), "run": trace.run, "runs": list(trace.runs)}  # a logdir's run, of its runs
    facts["devices"] = [{"name": d.name, "type": d.device_type, "peak_tflops": d.peak_teraflops_per_second,
                         "peak_hbm_gbps": d.peak_hbm_bw_gigabytes_per_second} for d in trace.devices.values()]
    devices = DeviceTime(trace)
    facts["busy"] = [_busy_facts(b) for b in devices.busy()]
    facts["busy_in_main"] = _busy_in_main(ws, devices)
    facts["program_runs"] = _runs_by_program(trace)
    facts["steps"] = _steps(trace, devices)
    profile = op_profile(ws)
    total = op_time(profile.ops)
    chip = profile.chip
    facts["chip"] = None if chip is None else {"name": chip.name, "peak_flops": chip.peak_flops, "peak_bytes_per_s": chip.peak_bytes,
                                               "peaks_from": chip.source}
    unknown = [None] * len(profile.ops)
    flops_util, bandwidth_util = profile.utilization() or (unknown, unknown)
    facts["top_ops"] = [{"program": row.program, **_op_time(row, total), "flops_per_s": rate, "bytes_per_s": bandwidth,
                         "flops_util": of_flops, "bandwidth_util": of_bandwidth, **_roofline_place(rate, bandwidth, chip)}
                        for row, rate, bandwidth, of_flops, of_bandwidth
                        in zip(profile.ops[:TOP_OPS], profile.rates, profile.byte_rates, flops_util, bandwidth_util)]
    by_program: dict[str | None, int] = {}
    for row in profile.ops:
        by_program[row.program] = by_program.get(row.program, 0) + row.self_ns
    facts["programs"] = [{"name": name, "total_us": ns / 1000.0, "share": ns / total if total else 0.0}
                         for name, ns in sorted(by_program.items(), key=lambda item: -item[1])]
    facts["autotuning"] = {"programs": len({row.program for row in profile.autotuning}),
                           "runs": sum(row.count for row in profile.autotuning),
                           "total_us": sum(row.total_ns for row in profile.autotuning) / 1000.0} if profile.autotuning else None
    facts["op_categories"] = [_op_time(row, total) for row in profile.categories]
    depth = parting_depth(profile.instructions)
    facts["op_scopes"] = {"depth": depth, "scopes": [
        _op_time(row, total) for row in op_scopes(profile.ops, profile.instructions, depth)[0]]} if any(ins is not None for ins in profile.instructions) else None
    facts["op_sources"] = [_op_time(row, total) for row in op_sources(profile.ops, profile.instructions)[0]] if any(
        ins is not None and ins.source for ins in profile.instructions) else None
    facts["memory_counters"] = [{"name": c.name, "max_bytes": int(c.value.max())}
                                for c in memory_counters(trace) if len(c.value) and c.value.max() > 0]
    return facts


def _roofline_place(flops_per_s: float | None, bytes_per_s: float | None, chip) -> dict:
    """An op's place on the roofline chart: its FLOPs per byte and, on a known chip, what bounds it.
    An op that moves bytes and does no FLOPs (its bytes known, so its FLOPs are: none) sits at
    zero FLOPs per byte, memory-bound, as XProf says of a copy or a transpose."""
    intensity = (flops_per_s or 0.0) / bytes_per_s if bytes_per_s else None
    return {"flops_per_byte": intensity, "bound": chip.bound(intensity) if chip is not None and intensity is not None else None}


def _runs_by_program(trace) -> list[dict]:
    """Each program's runs on the devices (XProf's `XLA Modules` line: on a GPU, derived from
    its kernels): how many, on how many devices, and how long one took; most time first, the
    autotuner's trial programs (links.autotuning_programs) last."""
    from tui.model.derived_lines import program_runs_on_devices
    from tui.model.links import autotuning_programs

    by_program: dict[str, list[tuple[str, int]]] = {}
    for device, program, ns in program_runs_on_devices(trace):
        by_program.setdefault(program, []).append((device, ns))
    trials = autotuning_programs(by_program)
    rows = [{"name": name, "runs": len(runs), "devices": len({device for device, _ in runs}),
             "total_us": sum(ns for _, ns in runs) / 1000.0, "mean_us": sum(ns for _, ns in runs) / len(runs) / 1000.0,
             "min_us": min(ns for _, ns in runs) / 1000.0, "max_us": max(ns for _, ns in runs) / 1000.0,
             "autotuning": name in trials}
            for name, runs in by_program.items()]
    return sorted(rows, key=lambda row: (row["autotuning"], -row["total_us"]))


def _steps(trace, devices) -> dict | None:
    """The steps' times, and each step's (XProf's step-time graph): its time and how busy each
    device was in it (a slow step with idle devices waited on the host, its input or a
    collective)."""
    from tui.model.steps import steps as training_steps

    steps = training_steps(trace, devices)
    if not steps:
        return None
    durations = [step.duration_ns for step in steps]
    origin = trace.span[0]
    each = [{"name": step.name, "step_num": step.number, "start_us": (step.start_ns - origin) / 1000.0,
             "duration_us": step.duration_ns / 1000.0,
             "busy": [_busy_facts(b) for b in step.busy]}
            for step in steps]
    return {"count": len(durations), "mean_us": sum(durations) / len(durations) / 1000.0,
            "min_us": min(durations) / 1000.0, "max_us": max(durations) / 1000.0, "each": each}


def _busy_facts(busy) -> dict:
    return {"device": busy.device, "share": busy.share, "busy_us": busy.busy_ns / 1000.0, "window_us": busy.window_ns / 1000.0}


def _busy_in_main(ws: Workspace, busy) -> dict | None:
    """On a GPU, how busy each device was from the main program's first kernel to its last (a
    profile taken from the first call also holds compilation, which the whole span counts);
    `busy` is the devices' DeviceTime."""
    from tui.model.links import event_programs, kernel_tracks, of_program, program_of, program_ran

    trace = ws.trace
    program = program_ran(trace, program_of(ws.main)) if ws.main is not None else None
    program = program or (ws.main.name if ws.main is not None else None)
    windows: dict[str, list[int]] = {}
    for k in kernel_tracks(trace) if program else []:
        track = trace.tracks[k]
        codes, programs = event_programs(track)
        ran = of_program(programs, program)[codes]
        if ran.any():
            lo, hi = int(track.start_ns[ran].min()), int(track.end_ns[ran].max())
            window = windows.setdefault(track.group, [lo, hi])
            window[:] = [min(window[0], lo), max(window[1], hi)]
    devices = [_busy_facts(b) for device, (lo, hi) in windows.items() for b in busy.busy(lo, hi)
               if b.device == device]
    return {"program": program, "devices": devices} if devices else None


def _busy_text(devices: list[dict], windows: bool = True) -> str:
    """Each device's share, and of how long a window (left out where the line gives it)."""
    from tui.model.utilization import busy_text

    return busy_text([(b["device"], b["share"], round(b["window_us"] * 1000) if windows else None)
                      for b in devices], TOP_DEVICES)


def format_summary(summary: dict) -> str:
    lines = []
    capture = summary.get("capture")
    if capture:
        args = " ".join(capture["args"] or [])
        lines.append(f"{capture['kind'] or 'script'}: {capture['script']} {textwrap.shorten(args, 100)}".rstrip())
        lines.append(f"  {how_it_ended(capture['exit_status'])}, ran {capture['seconds'] or 0:.1f} s "
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
            shared = m.get("peak_shared_once_bytes")
            peak = (f"peak {human_bytes(m['peak_memory_bytes'])} ({m['peak_memory_source']}"
                    + (f"; {human_bytes(shared)} with memory two values share (donation, a loop's carry) counted once"
                       if shared else "") + ")"
                    if m["peak_memory_bytes"] is not None
                    else "peak unknown (not scheduled: no program order yet)" if not m["scheduled"]
                    else "peak unknown")
            spaces = m["peak_memory_by_space"] or {}
            if len(spaces) > 1:  # each space's own peak (device and host memory are not one pool)
                peak += " [" + ", ".join(f"{name} {human_bytes(n)}" for name, n in spaces.items()) + "]"
            stage = f", {m['stage']}" if m["stage"] else ""
            lines.append(f" {mark} {m['label']}: {m['computations']} computations, {m['instructions']} instructions, {peak}{stage}")
    trace = summary["trace"]
    if trace is None:
        lines.append("trace: none")
    else:
        warned = len(trace.get("lost_data") or ())
        lost = f"; data lost or skipped ({counted(warned, 'warning')} below)" if warned else ""
        lines.append(f"trace: {counted(trace['events'], 'event')} on {counted(trace['tracks'], 'track')}"
                     f" over {format_ns(trace['span_us'] * 1000, 4)}{lost}")
        if trace.get("runs"):  # a logdir: which of its runs this is (the newest, unless a run folder was opened)
            others = [run for run in trace["runs"] if run != trace["run"]]
            lines.append(f"  run {trace['run']}" + (f" (the others, newest first: {', '.join(others[:5])}"
                                                    f"{', …' if len(others) > 5 else ''})" if others else " (the only one)"))
        lines += _trace_lines(trace)
    for w in summary["warnings"]:
        lines.append(f"warning: {w}")
    for e in summary["errors"]:
        lines.append(f"error: {e}")
    return "\n".join(lines)


def _trace_lines(trace: dict) -> list[str]:
    lines = []
    kinds: dict[str, list[str]] = {}  # devices alike (type and peaks) share a line
    for device in trace["devices"]:
        peaks = [f"{device['peak_tflops']:g} TFLOP/s" if device["peak_tflops"] else "",
                 f"{device['peak_hbm_gbps']:.0f} GB/s" if device["peak_hbm_gbps"] else ""]
        kinds.setdefault(" ".join([device["type"] or "type unknown", *(p for p in peaks if p)]), []).append(device["name"])
    for kind, names in kinds.items():
        which = names[0] if len(names) == 1 else f"{len(names)} devices ({names[0]} … {names[-1]})"
        lines.append(f"  {which}: {kind}")
    busy = trace.get("busy")
    if busy:  # the union of the device's work, from its first event to its last
        lines.append(f"  device busy, from its first event to its last: {_busy_text(busy)}")
    main = trace.get("busy_in_main")
    if main and main["devices"] != busy:  # compilation or other programs in the profile
        lines.append(f"  device busy from {main['program']}'s first kernel to its last: {_busy_text(main['devices'])}")
    runs = [row for row in trace["program_runs"] if not row["autotuning"]]
    trials = [row for row in trace["program_runs"] if row["autotuning"]]
    if runs:
        lines.append("  program runs on the devices (XLA Modules): " + "; ".join(
            f"{row['name']} {row['runs']} on {counted(row['devices'], 'device')}, mean "
            f"{format_ns(row['mean_us'] * 1000, 4)} (min {format_ns(row['min_us'] * 1000, 4)}, "
            f"max {format_ns(row['max_us'] * 1000, 4)})" for row in runs[:TOP_RUNS])
            + (f"; … ({len(runs)} programs)" if len(runs) > TOP_RUNS else "")
            + (f"; and XLA's autotuning: {sum(row['runs'] for row in trials):,} runs of {len(trials)} trial programs"
               f" ({format_ns(sum(row['total_us'] for row in trials) * 1000, 4)})" if trials else ""))
    steps = trace["steps"]
    if steps:
        lines.append(f"  steps: {steps['count']}, mean {format_ns(steps['mean_us'] * 1000, 4)} "
                     f"(min {format_ns(steps['min_us'] * 1000, 4)}, max {format_ns(steps['max_us'] * 1000, 4)})")
        if steps["count"] > 1:
            slowest = sorted(steps["each"], key=lambda step: -step["duration_us"])[:TOP_STEPS]
            lines.append("  slowest steps: " + "; ".join(
                f"{step['name']}{'' if step['step_num'] is None else ' ' + str(step['step_num'])} at "
                f"{format_ns(step['start_us'] * 1000, 4)} took {format_ns(step['duration_us'] * 1000, 4)}"
                + (f" (busy: {_busy_text(step['busy'], windows=False)})" if step["busy"] else "") for step in slowest))
    chip = trace.get("chip")
    if chip:
        lines.append(f"  chip: {chip['name']}, peaks {si(chip['peak_flops'], 'FLOP/s')} and {si(chip['peak_bytes_per_s'], 'B/s')}"
                     f" (from {chip['peaks_from']}; the ops' shares of them in brackets)")
    if trace["top_ops"]:
        lines.append("  top XLA ops (of the ops' time):")
        width = max(len(op["name"]) for op in trace["top_ops"])
        several = len({op["program"] for op in trace["top_ops"]}) > 1  # else the program goes unsaid
        for op in trace["top_ops"]:
            program = f"  in {op['program'] or '(no program)'}" if several else ""
            rate = "".join(f"  {si(op[key], unit)}" + (f" [{op[util]:.1%}]" if op[util] is not None else "")
                           for key, unit, util in (("flops_per_s", "FLOP/s", "flops_util"), ("bytes_per_s", "B/s", "bandwidth_util"))
                           if op[key])
            bound = f"  {op['bound']} bound" if op["bound"] else ""
            lines.append(f"    {op['share']:6.1%}  {op['name'].ljust(width)}  {op['count']:>7,} {'run ' if op['count'] == 1 else 'runs'}  "
                         f"{format_ns(op['self_us'] * 1000, 4)}{rate}{bound}{program}")
    programs = trace["programs"]
    if len(programs) > 1:
        shown = ", ".join(f"{p['name'] or '(no program)'} {p['share']:.1%}" for p in programs[:TOP_PROGRAMS])
        rest = f", … ({len(programs)} programs)" if len(programs) > TOP_PROGRAMS else ""
        lines.append(f"  XLA op time by program: {shown}{rest}")
    tuning = trace.get("autotuning")
    if tuning:
        lines.append(f"  XLA's autotuning, left out of the op time: {tuning['runs']:,} runs of {tuning['programs']} "
                     f"trial programs, {format_ns(tuning['total_us'] * 1000, 4)}")
    if trace["op_categories"]:
        lines.append("  XLA op time by category: " + ", ".join(
            f"{c['name']} {c['share']:.1%}" for c in trace["op_categories"]))
    scopes = trace["op_scopes"]
    if scopes:  # where the JAX name scopes part: which part of the model takes the time
        shown = ", ".join(f"{c['name']} {c['share']:.1%}" for c in scopes["scopes"][:TOP_SCOPES])
        rest = f", … ({len(scopes['scopes'])} scopes)" if len(scopes["scopes"]) > TOP_SCOPES else ""
        lines.append(f"  XLA op time by name scope ({scopes['depth']} deep): {shown}{rest}")
    sources = trace["op_sources"]
    if sources:  # which line of the model's Python takes the time
        shown = ", ".join(f"{c['name']} {c['share']:.1%}" for c in sources[:TOP_SCOPES])
        rest = f", … ({len(sources)} lines)" if len(sources) > TOP_SCOPES else ""
        lines.append(f"  XLA op time by source line: {shown}{rest}")
    for counter in trace["memory_counters"]:
        lines.append(f"  memory: {counter['name']} up to {human_bytes(counter['max_bytes'])}")
    return lines
