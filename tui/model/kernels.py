"""XProf's GPU Kernel Stats: each GPU kernel's runs, how it was launched, and the ops it ran.

A GPU stream's events are kernel runs, and memcpys and memsets, which are not kernels: left out,
as XProf's Kernel Stats leaves them out. The profiler records each kernel's launch in
a `kernel_details` stat (`regs:74 static_shared:0 dynamic_shared:16384 grid:24,1,1
block:128,1,1 occ_pct:37.5`); XLA's kernels also name their op (links.kernel_ops). One row per
kernel name: its runs' time, the launch of its first run, and the instructions it ran.
"""

from __future__ import annotations

import re
from typing import NamedTuple

import numpy as np

from tui.model.links import event_programs, instruction_in, kernel_ops, kernel_tracks, stream_tracks
from tui.model.shapes import human_bytes
from tui.model.trace import NameStats, Track, name_stats
from tui.model.workspace import Workspace

DETAILS = "kernel_details"
_COPIES = re.compile(r"(memcpy|memset|copy(device|host)to(device|host))", re.IGNORECASE)  # a stream's copies, by name


class KernelStats(NamedTuple):
    rows: list[NameStats]  # one per kernel name, largest total first
    notes: list[str]  # each row's launch and the ops it ran, as one line


def kernel_stats(ws: Workspace) -> KernelStats:
    """Every kernel run on the profile's GPU streams, by kernel name."""
    trace = ws.trace
    streams = stream_tracks(trace) if trace is not None else []
    if not streams:
        return KernelStats([], [])
    ids, durs, selfs, firsts = [], [], [], {}
    with_ops = set(kernel_tracks(trace))
    ops_of: dict[int, set[str]] = {}
    for k in streams:
        track = trace.tracks[k]
        ids.append(track.name_id)
        durs.append(track.dur_ns)
        selfs.append(track.self_ns)
        names, first = np.unique(track.name_id, return_index=True)
        for name_id, i in zip(names.tolist(), first.tolist()):
            firsts.setdefault(name_id, (track, i))
        if k in with_ops:
            _add_ops(ws, track, ops_of)
    ids, durs, selfs = np.concatenate(ids), np.concatenate(durs), np.concatenate(selfs)
    kernel = ~np.array([bool(_COPIES.match(name)) for name in trace.names], bool)[ids]
    rows = name_stats(trace.names, ids[kernel], durs[kernel], selfs[kernel])
    by_name = {name: i for i, name in enumerate(trace.names)}
    notes = []
    for row in rows:
        name_id = by_name[row.name]
        track, i = firsts[name_id]
        notes.append(_note(_launch(track, i), sorted(ops_of.get(name_id, ()))))
    return KernelStats(rows, notes)


def _launch(track: Track, i: int) -> str:
    """`grid 24,1,1 block 128,1,1 74 regs 16.0 KiB smem 37.5% occ`, or '' where the profile does
    not say."""
    raw = track.event_stats(i, (DETAILS,)).get(DETAILS)
    if not raw:
        return ""
    fields = dict(part.split(":", 1) for part in str(raw).split() if ":" in part)
    shared = sum(int(fields.get(key, 0) or 0) for key in ("static_shared", "dynamic_shared"))
    parts = [f"grid {fields['grid']}" if "grid" in fields else "", f"block {fields['block']}" if "block" in fields else "",
             f"{fields['regs']} regs" if "regs" in fields else "", f"{human_bytes(shared)} smem" if shared else "",
             f"{fields['occ_pct']}% occ" if "occ_pct" in fields else ""]
    return " ".join(part for part in parts if part)


def _add_ops(ws: Workspace, track: Track, ops_of: dict[int, set[str]]) -> None:
    """The instructions each kernel name of `track` ran (its `hlo_op`s, CUDA graph nodes resolved)."""
    codes, ops = kernel_ops(track)
    program_codes, programs = event_programs(track)
    ran = np.flatnonzero(codes >= 0)
    _, first = np.unique(np.stack([track.name_id[ran], codes[ran], program_codes[ran]], 1), axis=0, return_index=True)
    found: dict[tuple[str, str | None], str] = {}
    for i in ran[first].tolist():
        op = ops[codes[i]]
        program = programs[program_codes[i]] if program_codes[i] >= 0 else None
        if (op, program) not in found:
            found[op, program] = _instruction_name(ws, program, op)
        if found[op, program]:
            ops_of.setdefault(int(track.name_id[i]), set()).add(found[op, program])


def _instruction_name(ws: Workspace, program: str | None, op: str) -> str:
    """The instruction `op` names, or `op` itself; '' for a CUDA graph node no module explains."""
    found = instruction_in(ws, program, op)
    return found[1].name if found else "" if "#" in op else op


def _note(launched: str, ops: list[str]) -> str:
    ran = ""
    if len(ops) == 1:
        ran = ops[0]
    elif ops:
        ran = f"{len(ops)} ops: " + ", ".join(ops[:3]) + (", …" if len(ops) > 3 else "")
    return "  ".join(part for part in (launched, ran) if part)
