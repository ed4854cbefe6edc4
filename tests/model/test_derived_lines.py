"""XProf's derived `XLA Modules` and `XLA Ops` lines of a GPU stream, on the real H100 profiles
(tests/fixtures/gpu: 3 steps, each one CUDA graph; tests/fixtures/gpu_scan: scan bodies as
CUDA graphs, and XLA's autotuning trials). The oracles are the tracks themselves, walked one
event at a time: for ops, every kernel that ran an op is inside exactly one derived span,
consecutive kernels of one op and program launched in one run share it (the autotuner's
fourteen trials of `custom-call.1` are fourteen spans, as in XProf's line, not one 56 ms span
over the idle time between them), and the span runs from the first one's start to the last end; for modules, the kernels whose launches lie inside one of the host's
run annotations (`jit_train_step:XLA GPU module`), by their correlation ids.

(XProf's own converter, run on these files when this was written, gives the same `XLA Modules`
spans: 3 of 3 on gpu, 194 of 199 on gpu_scan, where ours also count a run's memcpy nodes and
the autotuner's redzone checks. Its `XLA Ops` line names a CUDA graph's kernels after their
command buffer; ours, after the instruction each ran.)"""

from __future__ import annotations

import pytest
from conftest import FIXTURES

from tui.model.derived_lines import CORRELATION, KERNELS, RUN_SUFFIX, add_derived_lines, line_name
from tui.model.inputs import load_workspace
from tui.model.links import (find_instruction, instruction_for_event, kernel_ops, event_programs, kernel_tracks,
                             top_ops)


MAIN_PROGRAMS = ("jit_train_step(4635)", "jit_train_step(0)")  # each fixture's step


@pytest.fixture(scope="module", params=["gpu", "gpu_scan"])
def workspace(request):
    folder = FIXTURES / request.param
    return load_workspace([next(folder.glob("*.xplane.pb")), folder])


def _walk(track, runs):
    """The derived spans of a kernel track, worked out kernel by kernel: (start, end, op,
    program, kernels); kernels of one op and program launched in different runs (`runs`, as
    _runs_read gives them: an autotuner's trials) are spans apart."""
    run_of = {launch: number for number, (_, ids) in enumerate(runs) for launch in ids}
    codes, ops = kernel_ops(track)
    program_codes, programs = event_programs(track)
    spans = []
    for i in range(track.count):
        if codes[i] < 0:
            continue
        op, program = ops[codes[i]], programs[program_codes[i]] if program_codes[i] >= 0 else None
        run = run_of.get(str(track.event_args(i).get(CORRELATION)))
        start, end = int(track.start_ns[i]), int(track.start_ns[i] + track.dur_ns[i])
        if spans and spans[-1][2:4] == [op, program] and spans[-1][5] == run:
            spans[-1][1] = max(spans[-1][1], end)
            spans[-1][4] += 1
        else:
            spans.append([start, end, op, program, 1, run])
    return [span[:5] for span in spans]


def test_each_kernel_stream_gets_a_line_of_the_ops_its_kernels_ran(workspace):
    trace = workspace.trace
    files_tracks, events = list(trace.tracks), trace.event_count
    streams = kernel_tracks(trace)
    added = add_derived_lines(workspace)
    assert add_derived_lines(workspace) == []  # once per trace
    assert trace.tracks[: len(files_tracks)] == files_tracks and trace.event_count == events  # not the file's
    module = workspace.main.load()
    ops_lines = [line for line in added if line.name.startswith("XLA Ops")]
    assert len(ops_lines) == len(streams) >= 1
    for k, line in zip(streams, ops_lines):
        stream = trace.tracks[k]
        assert line.derived and line.group == stream.group and line.name == line_name("XLA Ops", stream.name)
        spans = _walk(stream, _runs_read(trace.path)[0])
        assert line.count == len(spans) <= stream.count
        assert sum(n for *_, n in spans) == int((kernel_ops(stream)[0] >= 0).sum())  # each kernel once
        if "gpu_scan" in trace.path:  # the autotuner's trials run one op's kernels back to back
            assert max(n for *_, n in spans) > 1
        assert [(int(s), int(s + d)) for s, d in zip(line.start_ns, line.dur_ns)] == [(s, e) for s, e, *_ in spans]
        assert [line.event_args(i)[KERNELS] for i in range(line.count)] == [n for *_, n in spans]
        for i, (_, _, op, program, _) in enumerate(spans):
            ins = find_instruction(module, op) if program in MAIN_PROGRAMS else None
            if ins is not None:  # named after its instruction, and links to it
                assert line.event_name(i) == ins.name
                assert instruction_for_event(workspace, line, i) == (workspace.main.label, ins.name)


def test_the_lines_count_nothing_twice(workspace):
    """Op tables, a range's aggregate and an op's runs read the kernels alone."""
    before_ops, before_range = top_ops(workspace), workspace.trace.aggregate()
    add_derived_lines(workspace)
    assert top_ops(workspace) == before_ops and workspace.trace.aggregate() == before_range


def _runs_read(path):
    """Read with ProfileData, one event at a time: each host run annotation's module with the
    correlation ids of the launches inside it, and the stream's kernels as (start, end, stats)."""
    from jaxlib import _profile_data

    runs, kernels = [], []
    for plane in _profile_data.ProfileData.from_file(str(path)).planes:
        for line in plane.lines:
            events = [(e.name, round(e.start_ns), round(e.start_ns + e.duration_ns), dict(e.stats)) for e in line.events]
            if plane.name.startswith("/host:"):
                for name, start, end, _ in events:
                    if name.endswith(RUN_SUFFIX):
                        runs.append((name[: -len(RUN_SUFFIX)], {str(stats[CORRELATION]) for _, t, _, stats in events
                                                               if start <= t <= end and CORRELATION in stats}))
            elif line.name.startswith("Stream #14"):
                kernels = [(start, end, stats) for _, start, end, stats in events]
    return runs, kernels


def test_each_run_of_a_program_is_a_span_over_the_kernels_it_launched(workspace):
    trace = workspace.trace
    runs, kernels = _runs_read(trace.path)
    (line,) = [t for t in add_derived_lines(workspace) or trace.tracks if t.derived and t.name == "XLA Modules - from #14"]
    expected = []
    for module, ids in runs:
        mine = [(start, end, stats) for start, end, stats in kernels if str(stats.get(CORRELATION)) in ids]
        if mine:
            program = mine[0][2].get("program_id")
            expected.append((min(start for start, _, _ in mine), max(end for _, end, _ in mine),
                             f"{module}({program})" if program is not None else module, len(mine)))
    expected.sort()
    got = [(int(s), int(s + d), line.event_name(i), line.event_args(i)[KERNELS])
           for i, (s, d) in enumerate(zip(line.start_ns, line.dur_ns))]
    assert got == expected
    if "gpu_scan" not in trace.path:  # the 3 profiled steps, each the whole step's kernels
        assert [(name, n) for *_, name, n in got] == [("jit_train_step(4635)", 111)] * 3


def _scope_parts(ins):
    """An instruction's name scope as parts, the op itself left out (scopes.name_scope's)."""
    from tui.model.scopes import split_scope

    return tuple(split_scope(ins.op_name)[:-1]) if ins is not None and ins.op_name else ()


def _check_scope_line(line, op_spans):
    """`op_spans`: (start, end, scope parts) of the ops the line is made from, in time order.
    Each op with a scope lies, at each level of its scope, in a span of that level named after
    that part; a level's spans do not overlap; a deeper span lies inside its parent's."""
    levels = [line.event_args(i)["scope level"] - 1 for i in range(line.count)]
    spans = [(int(line.start_ns[i]), int(line.end_ns[i]), line.event_name(i), levels[i]) for i in range(line.count)]
    by_level: dict[int, list] = {}
    for span in spans:
        by_level.setdefault(span[3], []).append(span)
    for level, row in by_level.items():
        row.sort()
        assert all(a[1] <= b[0] for a, b in zip(row, row[1:])), level  # no overlap within a level
        if level:
            for start, end, _, _ in row:
                assert any(s <= start and end <= e for s, e, _, _ in by_level[level - 1])
    checked = 0
    for start, end, parts in op_spans:
        for level, part in enumerate(parts):  # (spans touch where one ends as the next begins)
            inside = [s[2] for s in by_level.get(level, []) if s[0] <= start <= s[1]]
            assert part in inside and len(inside) <= 2, (start, level, part, inside)
            checked += 1
    assert checked > 0 and max(levels) == max(len(parts) for *_, parts in op_spans) - 1


def test_the_ops_name_scopes_nest_above_them(workspace):
    """XProf's Framework Name Scope line, from the derived ops line of each GPU stream."""
    from tui.model.derived_lines import SCOPES

    trace = workspace.trace
    add_derived_lines(workspace)
    for ops in [t for t in trace.tracks if t.derived and t.name.startswith("XLA Ops")]:
        (scopes,) = [t for t in trace.tracks if t.derived and t.name == ops.name.replace("XLA Ops", SCOPES)]
        module = workspace.main.load()
        op_spans = []
        for i in range(ops.count):
            args = ops.event_args(i)
            program = f"{args.get('hlo_module')}({args.get('program_id')})"
            ins = module.instruction(ops.event_name(i)) if program in MAIN_PROGRAMS else None
            if _scope_parts(ins):
                op_spans.append((int(ops.start_ns[i]), int(ops.end_ns[i]), _scope_parts(ins)))
        _check_scope_line(scopes, op_spans)
        (runs,) = [t for t in trace.tracks if t.derived and t.name == ops.name.replace("XLA Ops", "XLA Modules")]
        for i in range(scopes.count):  # a step's scopes are its own: none runs on into the next step
            start, end = scopes.event_span(i)
            assert any(s <= start and end <= e for s, e in zip(runs.start_ns.tolist(), runs.end_ns.tolist()))


def test_a_tpus_ops_get_their_name_scopes_too(corpus):
    """On a TPU the line comes from its own XLA Ops line (the v6e profile's programs are in it)."""
    from tui.model.derived_lines import SCOPES, SOURCE
    from tui.model.links import OPS_TRACK

    ws = load_workspace([corpus / "traces" / "xprof_tpu_v6e_inference_4chip.xplane.pb"])
    trace = ws.trace
    added = add_derived_lines(ws)
    devices = sorted({t.group for t in trace.tracks if t.name == OPS_TRACK})
    assert sorted(t.group for t in added if t.name == SCOPES) == devices and {t.name for t in added} == {SCOPES, SOURCE}
    ops = next(t for t in trace.tracks if t.name == OPS_TRACK and t.group == devices[0])
    _check_scope_line(next(t for t in added if t.group == devices[0]), _tpu_op_spans(ws, ops, _scope_parts))


def _tpu_op_spans(ws, ops, label_of) -> list[tuple[int, int, object]]:
    """(start, end, label) of each op of a TPU's XLA Ops line whose instruction (in the program
    running then) `label_of` labels."""
    from tui.model.links import instruction_in, program_runs

    trace = ws.trace
    runs = program_runs(trace, ops)
    op_spans = []
    for i in range(ops.count):
        found = instruction_in(ws, trace.names[runs[i]] if runs[i] >= 0 else None, ops.event_name(i))
        label = label_of(found[1] if found else None)
        if label:
            op_spans.append((int(ops.start_ns[i]), int(ops.end_ns[i]), label))
    return op_spans


def _check_source_line(line, op_spans, runs):
    """`op_spans`: (start, end, `file:line`) of the ops the line is made from, in time order;
    `runs`: (start, end) of their program's runs. Each op lies in a span named after its source;
    spans do not overlap, each holds an op of its name and lies inside one run, and two spans
    in a row of one name lie in different runs (else they would be one)."""
    spans = sorted((int(line.start_ns[i]), int(line.end_ns[i]), line.event_name(i)) for i in range(line.count))
    assert len(spans) > 1 and all(a[1] <= b[0] for a, b in zip(spans, spans[1:]))
    for start, end, source in op_spans:
        inside = [name for s, e, name in spans if s <= start <= e]
        assert source in inside and len(inside) <= 2, (start, source, inside)
    for s, e, name in spans:
        assert any(s <= start <= e and source == name for start, _, source in op_spans), name

    def run_of(t):
        return next((k for k, (a, b) in enumerate(runs) if a <= t <= b), None)

    for s, e, name in spans:  # a run's spans are its own: none runs on into the next run
        assert run_of(s) is not None and runs[run_of(s)][1] >= e, (s, e, name)
    for a, b in zip(spans, spans[1:]):
        if a[2] == b[2]:
            assert run_of(a[0]) != run_of(b[0]), (a, b)


def _source(ins):
    return f"{ins.source[0]}:{ins.source[1]}" if ins is not None and ins.source else None


def test_the_ops_python_lines_lie_above_them(workspace):
    """XProf's Source code line, from the derived ops line of each GPU stream: the line of
    Python each op's instruction came from (its metadata)."""
    from tui.model.derived_lines import SOURCE

    trace = workspace.trace
    add_derived_lines(workspace)
    module = workspace.main.load()
    for ops in [t for t in trace.tracks if t.derived and t.name.startswith("XLA Ops")]:
        (line,) = [t for t in trace.tracks if t.derived and t.name == ops.name.replace("XLA Ops", SOURCE)]
        (runs,) = [t for t in trace.tracks if t.derived and t.name == ops.name.replace("XLA Ops", "XLA Modules")]
        op_spans = []
        for i in range(ops.count):
            args = ops.event_args(i)
            program = f"{args.get('hlo_module')}({args.get('program_id')})"
            source = _source(module.instruction(ops.event_name(i))) if program in MAIN_PROGRAMS else None
            if source:
                op_spans.append((int(ops.start_ns[i]), int(ops.end_ns[i]), source))
        assert len({source for *_, source in op_spans}) > 3  # the model's lines, not one
        _check_source_line(line, op_spans, list(zip(runs.start_ns.tolist(), runs.end_ns.tolist())))
        _spans_open_an_op_of_their_line(workspace, line)


def test_a_tpus_ops_get_their_python_lines_too(corpus):
    from tui.model.derived_lines import SOURCE
    from tui.model.links import MODULES_TRACK, OPS_TRACK

    ws = load_workspace([corpus / "traces" / "xprof_tpu_v6e_inference_4chip.xplane.pb"])
    trace = ws.trace
    added = add_derived_lines(ws)
    group = sorted({t.group for t in trace.tracks if t.name == OPS_TRACK})[0]
    ops = next(t for t in trace.tracks if t.name == OPS_TRACK and t.group == group)
    modules = next(t for t in trace.tracks if t.name == MODULES_TRACK and t.group == group)
    (line,) = [t for t in added if t.group == group and t.name == SOURCE]
    _check_source_line(line, _tpu_op_spans(ws, ops, _source), list(zip(modules.start_ns.tolist(), modules.end_ns.tolist())))
    _spans_open_an_op_of_their_line(ws, line)


def _spans_open_an_op_of_their_line(ws, line):
    """Enter on a span selects its first op (links.instruction_for_event), one its line made."""
    from tui.model.links import instruction_for_event

    for i in range(0, line.count, max(1, line.count // 25)):
        label, name = instruction_for_event(ws, line, i)
        ins = next(entry for entry in ws.modules if entry.label == label).load().instruction(name)
        assert f"{ins.source[0]}:{ins.source[1]}" == line.event_name(i), (i, name)


def test_the_summary_gives_each_programs_runs_on_the_devices(workspace, corpus):
    """XProf's XLA Modules line in numbers: on a GPU its derived runs (the same as the line's),
    on a TPU its own `XLA Modules` events, per program over the 4 chips."""
    from collections import defaultdict

    from tui.model.links import MODULES_TRACK
    from tui.model.summary import format_summary, summarize

    facts = summarize(workspace)["trace"]["program_runs"]
    (line,) = [t for t in add_derived_lines(workspace) or workspace.trace.tracks
               if t.derived and t.name.startswith("XLA Modules")]
    step = next(row for row in facts if row["name"] in MAIN_PROGRAMS)
    durations = [int(line.dur_ns[i]) for i in range(line.count) if line.event_name(i) == step["name"]]
    assert step["runs"] == len(durations) >= 3 and step["devices"] == 1
    assert step["mean_us"] == sum(durations) / len(durations) / 1000.0 and step["max_us"] == max(durations) / 1000.0

    tpu = load_workspace([corpus / "traces" / "xprof_tpu_v6e_inference_4chip.xplane.pb"])
    summary = summarize(tpu)
    runs = defaultdict(list)
    for track in tpu.trace.tracks:
        if track.name == MODULES_TRACK:
            for i in range(track.count):
                runs[track.event_name(i)].append((track.group, int(track.dur_ns[i])))
    rows = {row["name"]: row for row in summary["trace"]["program_runs"]}
    assert set(rows) == set(runs)
    for name, found in runs.items():
        assert rows[name]["runs"] == len(found) and rows[name]["devices"] == len({g for g, _ in found})
        assert rows[name]["total_us"] == sum(ns for _, ns in found) / 1000.0
    busiest = max(rows.values(), key=lambda row: row["total_us"])
    assert f"program runs on the devices (XLA Modules): {busiest['name']} {busiest['runs']} on 4 devices" in format_summary(summary)


ROCM = ["tracelens_jax08_rocm_attention", "tracelens_jax08_rocm_conv3d_8gpu", "tracelens_jax_rocm_te_fused_attn"]


@pytest.mark.parametrize("name", ROCM)
def test_rocm_launches_made_on_threads_of_their_own_find_their_runs(name, corpus):
    """JAX on ROCm launches on HIP threads of their own, not inside the run annotation: a
    kernel's run is then the annotation of its module that its launch's time falls in (on the
    8-GPU profile, 8 runs of one module at once: the one on the thread this launch thread pairs
    with). Read raw with ProfileData: every kernel of a stream is in exactly one span of its
    device's XLA Modules line, the span's kernels were all launched inside one annotation of
    the span's module, one device's runs are on one thread, and each of its runs is a span."""
    from collections import defaultdict

    from jaxlib import _profile_data

    path = corpus / "traces" / f"{name}.xplane.pb"
    runs, launches, kernels = [], {}, defaultdict(list)
    for plane in _profile_data.ProfileData.from_file(str(path)).planes:
        for line in plane.lines:
            for e in line.events:
                stats, start = dict(e.stats), round(e.start_ns)
                if plane.name.startswith("/host:") and e.name.endswith(RUN_SUFFIX):
                    runs.append((start, round(e.start_ns + e.duration_ns), line.name, e.name[: -len(RUN_SUFFIX)]))
                elif plane.name.startswith("/host:") and CORRELATION in stats:
                    launches[str(stats[CORRELATION])] = start
                elif plane.name.startswith("/device:") and CORRELATION in stats and "hlo_module" in stats:
                    kernels[plane.name].append((start, round(e.start_ns + e.duration_ns), str(stats[CORRELATION]),
                                                stats["hlo_module"]))
    workspace = load_workspace([path])
    lines = {t.group: t for t in add_derived_lines(workspace) if t.name.startswith("XLA Modules")}
    assert set(lines) == set(kernels)
    threads = {}
    for device, found in kernels.items():
        line = lines[device]
        spans = [(int(s), int(s + d), line.event_name(i), line.event_args(i)[KERNELS])
                 for i, (s, d) in enumerate(zip(line.start_ns, line.dur_ns))]
        possible = None  # the threads whose runs could hold all of this device's spans
        for start, end, module, count in spans:
            inside = [k for k in found if start <= k[0] and k[1] <= end]
            assert len(inside) == count and {k[3] for k in inside} == {module.split("(")[0]}
            around = {r[2] for r in runs if r[3] == module.split("(")[0] and all(r[0] <= launches[k[2]] < r[1] for k in inside)}
            possible = around if possible is None else possible & around
        assert sum(count for *_, count in spans) == len(found)  # every kernel in a span
        (threads[device],) = possible  # one thread's runs hold them all
        launched_in = {r for r in runs if r[2] == threads[device] and any(r[0] <= launches[k[2]] < r[1] for k in found)}
        assert len(spans) == len(launched_in) >= 3
    assert len(set(threads.values())) == len(threads)  # a thread per device
