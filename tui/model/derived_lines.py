"""XProf's derived lines: what a device's own lines ran, drawn above them.

A GPU profile holds only what its streams ran: kernels named after the kernel (`sm90_xmma_gemm_…`,
a CUDA graph's nodes), memcpys and memsets. XProf's trace viewer adds, above each stream, lines
of what those were (`XLA Modules - from #14`, `XLA Ops - from #14`); and on every device lines
of the model's name scopes and Python lines the ops came from (`Framework Name Scope`, `Source
code`). The same here:

- `XLA Modules`: a span per run of a program, over the kernels it launched. XLA wraps each run
  on the host in an annotation (`jit_step:XLA GPU module`); the kernels launched inside it carry
  the launch's `correlation_id`. Named as a TPU's module events are, `jit_step(12)`, where the
  kernels name their program.
- `XLA Ops`: consecutive kernels of one op in one program drawn as one span, named after its
  instruction where a module of its program has one (a CUDA graph's kernels and memcpy nodes
  resolve as links.kernel_ops says), so the line links to the graph like a TPU's.
- `Framework Name Scope`: from a GPU's derived or a TPU's own `XLA Ops` line, the JAX name
  scopes of the ops' instructions (`jit(step)/transpose(jvp(layer3))/attn`), nested a row per
  level: consecutive ops under one scope are one span ("which layer is running now").
- `Source code`: likewise, the line of Python each op's instruction came from (`model.py:42`):
  consecutive ops from one line are one span ("which line of my model is running now").

They are added when the timeline opens, not by `load_trace`: they are not events of the file
(not in `event_count`), and they need the modules to be named.
"""

from __future__ import annotations

import re
import weakref
from typing import Callable

import numpy as np

from tui.model.hlo import HloInstruction
from tui.model.links import (CORRELATION, HLO_MODULE, HLO_OP, MODULES_TRACK, OPS_TRACK, PROGRAM_ID, instruction_in,
                             event_programs, kernel_ops, kernel_tracks, module_name, module_runs_at,
                             op_program_keys, op_program_of)
from tui.model.scopes import source_line, split_scope
from tui.model.trace import Trace, Track
from tui.model.workspace import Workspace

KERNELS = "kernels"  # a derived event's args: how many kernels it spans
SCOPES = "Framework Name Scope"  # XProf's name for the line of the ops' name scopes
SOURCE = "Source code"  # and for the line of the Python lines they came from
RUN_SUFFIX = ":XLA GPU module"  # XLA's host annotation around one run of a program on a GPU
_STREAM_NUMBER = re.compile(r"#\d+")

Line = tuple[np.ndarray, np.ndarray, list[str], Callable[[int], dict]]  # start, duration, names, args_of
_NO_LINE: Line = (np.zeros(0, np.int64), np.zeros(0, np.int64), [], lambda i: {})


def line_name(kind: str, stream: str) -> str:
    """(`XLA Ops`, `Stream #14(Compute,…)`) -> `XLA Ops - from #14`, as XProf names them."""
    number = _STREAM_NUMBER.search(stream)
    return f"{kind} - from {number.group(0) if number else stream}"


def add_derived_lines(ws: Workspace) -> list[Track]:
    """Give each GPU stream whose kernels name their op (`hlo_op`) its derived `XLA Modules`
    (where the host's runs are in the profile), `XLA Ops`, `Framework Name Scope` and `Source
    code` lines, and each TPU's `XLA Ops` line its `Framework Name Scope` and `Source code`, in
    their device's group; once per trace (a trace that has them is left as it is)."""
    trace = ws.trace
    if trace is None or any(track.derived for track in trace.tracks):
        return []
    added = []

    def add(group: str, name: str, line: Line) -> None:
        if len(line[0]):
            added.append(trace.add_derived(group, name, *line))

    for stream, run_of, host_runs in _streams_and_runs(trace):
        add(stream.group, line_name("XLA Modules", stream.name), _module_runs(stream, run_of, host_runs))
        ops, instructions, first_kernel = _op_runs(ws, stream, run_of)
        add(stream.group, line_name("XLA Ops", stream.name), ops)
        add(stream.group, line_name(SCOPES, stream.name),
            _scope_runs(ops[0], ops[0] + ops[1], instructions, run_of[first_kernel]))
        add(stream.group, line_name(SOURCE, stream.name),
            _source_runs(ops[0], ops[0] + ops[1], instructions, run_of[first_kernel], ops[3]))
    for track in [t for t in trace.tracks if t.name == OPS_TRACK and t.group.startswith("/device:") and not t.derived]:
        programs, runs_started = module_runs_at(trace, track)
        instructions = _instructions_of(ws, track, programs)
        add(track.group, SCOPES, _scope_runs(track.start_ns, track.end_ns, instructions, runs_started))
        add(track.group, SOURCE, _source_runs(track.start_ns, track.end_ns, instructions, runs_started))
    return added


def program_runs_on_devices(trace: Trace) -> list[tuple[str, str, int]]:
    """(device, program, duration in ns) of every run of a program on a device: a TPU's `XLA
    Modules` events, or the runs the GPU's kernels were launched in (as its derived line
    draws them; made here without adding the line)."""
    found = [(t.group, t.event_name(i), int(t.dur_ns[i])) for t in trace.tracks
             if t.name == MODULES_TRACK and t.group.startswith("/device:") and not t.derived for i in range(t.count)]
    for stream, run_of, host_runs in _streams_and_runs(trace):
        _, dur, names, _ = _module_runs(stream, run_of, host_runs)
        found += [(stream.group, name, int(d)) for name, d in zip(names, dur.tolist())]
    return found


def _streams_and_runs(trace: Trace) -> list[tuple[Track, np.ndarray, dict[str, tuple[int, str]]]]:
    """Each GPU stream whose kernels name their op, the run each of its kernels was launched in
    (-1: none known), and its host's runs (_runs_by_launch); decodes every track. Kept for the
    trace (the op tables, the summary and the derived lines each ask)."""
    found = _kept_runs.get(trace)
    if found is None:
        trace.decode_all()
        streams = kernel_tracks(trace)
        runs = _runs_by_launch(trace) if streams else {}
        found = []
        for k in streams:
            stream = trace.tracks[k]
            host_runs = runs.get(_host_of(stream.group), {})
            found.append((stream, _kernel_runs(stream, host_runs), host_runs))
        _kept_runs[trace] = found
    return found


_kept_runs: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def kernel_runs(trace: Trace, stream: Track) -> np.ndarray:
    """Per kernel of a GPU stream, the number of the program run that launched it (-1: none
    known): two runs of a one-op program put that op's kernels back to back on the stream, and
    they are two runs of the op, not one."""
    return next((run_of for track, run_of, _ in _streams_and_runs(trace) if track is stream),
                np.full(stream.count, -1, np.int64))


def _host_of(group: str) -> str:
    """The host a plane is on: `` for one host's file, else the label before its plane name."""
    return group.split("/", 1)[0]


def _runs_by_launch(trace: Trace) -> dict[str, dict[str, tuple[int, str]]]:
    """Per host, the correlation id of each launch made in a run -> (the run's number, its module
    name). A launch is in the run annotation around it on its own thread (CUDA's). Where the
    launches are made on threads of their own (ROCm's HIP threads), it is in the run of its
    module (its `hlo_module`) that its time falls in, on any thread of the host; where several
    threads run that module at once (one per device), in the one on the thread that this launch
    thread's other launches fell in alone."""
    is_run = np.array([name.endswith(RUN_SUFFIX) for name in trace.names], bool)
    found: dict[str, dict[str, tuple[int, str]]] = {}
    runs_of_host: dict[str, list[tuple[int, int, int, str, int]]] = {}  # (start, end, thread, module, number)
    apart: list[Track] = []  # host threads that launch but run no annotation
    number = 0
    for k, track in enumerate(trace.tracks):
        if track.derived or not track.count or not track.group.split("/", 1)[-1].startswith("host:"):
            continue
        runs = np.flatnonzero(is_run[track.name_id])
        codes, values = track.stat_codes(CORRELATION)
        launches = np.flatnonzero(codes >= 0)
        if not len(runs):
            if len(launches):
                apart.append(track)
            continue
        launch_starts = track.start_ns[launches]
        host = _host_of(track.group)
        into = found.setdefault(host, {})
        for r in runs.tolist():
            span = track.event_span(r)
            lo, hi = np.searchsorted(launch_starts, span)
            module = track.event_name(r)[: -len(RUN_SUFFIX)]
            for code in codes[launches[lo:hi]].tolist():
                into[values[code]] = (number, module)
            runs_of_host.setdefault(host, []).append((*span, k, module, number))
            number += 1
    for track in apart:
        _launches_in_runs_elsewhere(track, runs_of_host.get(_host_of(track.group), []),
                                    found.setdefault(_host_of(track.group), {}))
    return found


def _launches_in_runs_elsewhere(track: Track, runs: list[tuple[int, int, int, str, int]], into: dict) -> None:
    """A launch thread's launches, each in the run of its module that its time falls in on
    another thread (see _runs_by_launch); a few thousand launches against every run at a time."""
    codes, values = track.stat_codes(CORRELATION, also=(HLO_MODULE,))
    module_codes, modules = track.stat_codes(HLO_MODULE)
    launches = np.flatnonzero(codes >= 0)
    if not runs or not len(launches):
        return
    start, end, thread, number = (np.array([run[i] for run in runs], np.int64) for i in (0, 1, 2, 4))
    code_of = {name: k for k, name in enumerate(dict.fromkeys([run[3] for run in runs] + modules))}
    run_module = np.array([code_of[run[3]] for run in runs], np.int64)
    module_of = np.array([code_of[m] for m in modules] + [-1], np.int64)[module_codes[launches]]  # -1: none said
    at = track.start_ns[launches]
    fits = []  # per chunk: (launch, run) pairs the launch's time and module fit
    for lo in range(0, len(launches), 4096):
        a, m = at[lo : lo + 4096, None], module_of[lo : lo + 4096, None]
        rows, cols = np.nonzero((start <= a) & (a < end) & ((m < 0) | (run_module == m)))
        fits.append((rows + lo, cols))
    launch, run = (np.concatenate(parts) for parts in zip(*fits))
    choices = np.bincount(launch, minlength=len(launches))
    alone = choices[launch] == 1
    if alone.any():  # the thread this one launches for: where its launches fit one run alone
        partner = np.bincount(thread[run[alone]]).argmax()
        keep = alone | ((choices[launch] > 1) & (thread[run] == partner))
        launch, run = launch[keep], run[keep]
        once = np.bincount(launch, minlength=len(launches))[launch] == 1
        for i, r in zip(launch[once].tolist(), run[once].tolist()):
            into[values[codes[launches[i]]]] = (int(number[r]), runs[r][3])


def _kernel_runs(stream: Track, runs: dict[str, tuple[int, str]]) -> np.ndarray:
    """Per kernel of the stream, the number of the run that launched it (-1: none known)."""
    codes, values = stream.stat_codes(CORRELATION)
    return np.array([runs.get(value, (-1, ""))[0] for value in values] + [-1], np.int64)[codes]


def _module_runs(stream: Track, run_of: np.ndarray, runs: dict[str, tuple[int, str]]) -> Line:
    """A span per run over the stream's kernels it launched (`run_of`); named after their program."""
    ran = np.flatnonzero(run_of >= 0)
    if not len(ran):
        return _NO_LINE
    order = ran[np.argsort(run_of[ran], kind="stable")]
    first = np.flatnonzero(np.r_[True, np.diff(run_of[order]) != 0])
    start = np.minimum.reduceat(stream.start_ns[order], first)
    end = np.maximum.reduceat(stream.end_ns[order], first)
    kernels = np.diff(np.r_[first, len(order)])
    program_codes, programs = event_programs(stream)
    modules = {number: module for number, module in runs.values()}
    names = []
    for k in order[first].tolist():
        code = program_codes[k]
        names.append(programs[code] if code >= 0 else modules[int(run_of[k])])
    by_time = np.argsort(start, kind="stable")
    names = [names[i] for i in by_time.tolist()]
    kernels = kernels[by_time]

    def args_of(i: int) -> dict:
        return {**_program_args(names[i]), KERNELS: int(kernels[i])}

    return start[by_time], (end - start)[by_time], names, args_of


def _op_runs(ws: Workspace, stream: Track, run_of: np.ndarray) -> tuple[Line, list[HloInstruction | None], np.ndarray]:
    """A span per run of consecutive kernels of one op and program in one run of it (`run_of`,
    per kernel: an autotuner's fourteen runs of a one-op program are fourteen spans, as in
    XProf's derived line, not one across the idle time between them), each one's instruction
    and its first kernel; an event's args are made when asked (a selection), from its op's and
    its kernel count."""
    codes, ops = kernel_ops(stream)
    program_codes, programs = event_programs(stream)
    ran = np.flatnonzero(codes >= 0)
    key = op_program_keys(codes[ran], program_codes[ran], programs)
    run = run_of[ran]
    new = np.r_[True, (key[1:] != key[:-1]) | (run[1:] != run[:-1])] if len(key) else np.zeros(0, bool)
    first = np.flatnonzero(new)
    start = stream.start_ns[ran][first]
    end = np.maximum.reduceat(stream.end_ns[ran], first) if len(first) else np.zeros(0, np.int64)
    kernels = np.diff(np.r_[first, len(ran)])
    distinct, which = np.unique(key[first], return_inverse=True)
    named = [_op_named(ws, ops[op], program, programs)
             for op, program in (op_program_of(k, programs) for k in distinct.tolist())]
    which = which.ravel().tolist()

    def args_of(i: int) -> dict:
        return {**named[which[i]][1], KERNELS: int(kernels[i])}

    line = (start, end - start, [named[w][0] for w in which], args_of)
    return line, [named[w][2] for w in which], ran[first]


def _op_named(ws: Workspace, op: str, program_code: int, programs: list[str]) -> tuple[str, dict, HloInstruction | None]:
    """An op's display name (its instruction's, where found), the stats its events carry, and
    its instruction."""
    program = programs[program_code] if program_code >= 0 else None
    found = instruction_in(ws, program, op) if program is not None else None
    name = found[1].name if found else op.partition("#")[0]
    return name, {HLO_OP: name, **(_program_args(program) if program is not None else {})}, found[1] if found else None


def _instructions_of(ws: Workspace, track: Track, programs: np.ndarray) -> list[HloInstruction | None]:
    """Each op event's instruction, in the program (name id, per event) of the `XLA Modules`
    run it started in (a TPU's own `XLA Ops` line), each (program, op) looked up once."""
    trace = ws.trace
    pairs = np.stack([programs, track.name_id.astype(np.int64)], 1)
    distinct, which = np.unique(pairs, axis=0, return_inverse=True)
    found = [instruction_in(ws, trace.names[program] if program >= 0 else None, trace.names[name])
             for program, name in distinct.tolist()]
    return [found[w][1] if found[w] else None for w in which.ravel().tolist()]


def _scope_runs(start: np.ndarray, end: np.ndarray, instructions: list[HloInstruction | None],
                run: np.ndarray) -> Line:
    """Per level of the ops' name scopes, a span per run of consecutive ops under one scope
    (named after that level's part: `layer3`, `attn`) in one run of their program (`run`, per
    op: a new step is a new span); deeper levels nest inside. Ops with no scope (no `op_name`:
    copies XLA added) are passed over."""
    paths: dict[int, tuple[str, ...]] = {}  # per instruction (by id): its scope's parts
    codes, distinct = [], {}
    for ins in instructions:
        if ins is None or not ins.op_name:
            codes.append(-1)
            continue
        code = distinct.setdefault(id(ins), len(distinct))
        if code == len(paths):
            parts = split_scope(ins.op_name)
            paths[code] = tuple(parts[:-1])  # the op itself is not a scope
        codes.append(code)
    scoped = np.flatnonzero(np.array(codes, np.int64) >= 0)
    code_of, start, end, run = np.array(codes, np.int64)[scoped], start[scoped], end[scoped], run[scoped] + 1
    starts, ends, names, levels = [], [], [], []
    for level in range(max((len(path) for path in paths.values()), default=0)):
        prefixes: dict[tuple[str, ...], int] = {}
        key_of = np.array([prefixes.setdefault(path[: level + 1], len(prefixes)) if len(path) > level else -1
                           for path in paths.values()] + [-1], np.int64)
        key = key_of[code_of]
        first, level_ends = _key_runs(key, start, end, run)
        ends.append(level_ends)
        starts.append(start[first])
        parts = {index: prefix[-1] for prefix, index in prefixes.items()}
        names += [parts[k] for k in key[first].tolist()]
        levels.append(np.full(len(first), level))
    if not starts:
        return _NO_LINE
    start, end, depth = np.concatenate(starts), np.concatenate(ends), np.concatenate(levels)
    order = np.lexsort((depth, start))  # by time, the outer scope first where they start together
    names = [names[i] for i in order.tolist()]
    depth = depth[order]
    return start[order], (end - start)[order], names, lambda i: {"scope level": int(depth[i]) + 1}


def _key_runs(key: np.ndarray, start: np.ndarray, end: np.ndarray, run: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where each run of consecutive ops of one key in one program run begins (ops of key -1
    begin none), and where it ends: with its last op, or where the next run starts if ops
    overlapped it (a CUDA graph runs some at once), so a line's spans take one row."""
    if not len(key):
        return np.zeros(0, np.intp), np.zeros(0, np.int64)
    first = np.flatnonzero(np.r_[True, (key[1:] != key[:-1]) | (run[1:] != run[:-1])])
    keep = key[first] >= 0
    last = np.maximum.reduceat(end, first)
    return first[keep], np.minimum(last, np.r_[start[first[1:]], last[-1]])[keep]


def _source_runs(start: np.ndarray, end: np.ndarray, instructions: list[HloInstruction | None],
                 run: np.ndarray, op_args: Callable[[int], dict] | None = None) -> Line:
    """XProf's `Source code` line: a span per run of consecutive ops made by one line of Python
    (their instruction's source metadata, `model.py:42`) in one run of their program. A span's
    stats name its first op (`hlo_op`, and its program from `op_args`, a derived ops line's), so
    Enter on it opens that op, whose details list all the line made."""
    labels: dict[str, int] = {}
    key = np.array([labels.setdefault(source_line(ins), len(labels)) if ins is not None and ins.source else -1
                    for ins in instructions], np.int64)
    known = np.flatnonzero(key >= 0)  # ops without a source (copies XLA added) are passed over
    key, start, end, run = key[known], start[known], end[known], run[known]
    first, ends = _key_runs(key, start, end, run)
    if not len(first):
        return _NO_LINE
    names = list(labels)
    first_op = known[first]

    def args_of(i: int) -> dict:
        k = int(first_op[i])
        program = {stat: value for stat, value in op_args(k).items() if stat in (HLO_MODULE, PROGRAM_ID)} if op_args else {}
        return {HLO_OP: instructions[k].name, **program}

    return start[first], ends - start[first], [names[k] for k in key[first].tolist()], args_of


def _program_args(program: str) -> dict:
    """`jit_step(12)` -> its `hlo_module` and `program_id` stats, as a kernel carries them."""
    module = module_name(program)
    number = program[len(module) + 1: -1]
    return {HLO_MODULE: module, **({PROGRAM_ID: number} if number else {})}
