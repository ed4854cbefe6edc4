"""Profile events <-> HLO instructions (tui.model.links) on a profile and a dump captured
from the same JAX program (tests/fixtures/transformer), checked against XLA's own parser and
against the events' own `hlo_op` / `hlo_module` stats; and on the corpus's TPU profile, whose
ops are matched by name inside their `XLA Modules` runs."""

from __future__ import annotations

from collections import Counter, defaultdict

import numpy as np
import pytest
from conftest import FIXTURES, covered_ns

from tui.model.inputs import load_workspace
from tui.model.links import instruction_for_event, module_name, occurrences, op_names, top_ops
from tui.model.trace import load_trace
from tui.model.workspace import Workspace


@pytest.fixture(scope="module")
def ws() -> Workspace:
    workspace = load_workspace([FIXTURES / "transformer"])
    workspace.trace.decode_all()
    return workspace


def op_events(ws: Workspace):
    """Every event whose stats name an HLO op: (track, event index, args)."""
    for track in ws.trace.tracks:
        for i in range(track.count):
            args = track.event_args(i)
            if "hlo_op" in args:
                yield track, i, args


def test_every_op_event_links_to_its_instruction_in_the_dump(ws):
    from jax._src.lib import xla_client

    main = ws.main
    reference = xla_client.hlo.hlo_module_from_text(main.path.read_text())
    xla_names = {ins.name for comp in reference.computations() for ins in comp.instructions()}
    linked = 0
    for track, i, args in op_events(ws):
        assert args["hlo_module"] == main.name == "jit_train_step"
        label, name = instruction_for_event(ws, track, i)
        assert (label, name) == (main.label, args["hlo_op"])
        instruction = main.load().instruction(name)
        assert instruction is not None and instruction.name == track.event_name(i)
        assert name in xla_names  # XLA's parser knows the instruction by that name too
        linked += 1
    assert linked > 300


def test_host_events_link_to_nothing(ws):
    python = next(t for t in ws.trace.tracks if t.name == "python")
    assert all(instruction_for_event(ws, python, i) is None for i in range(python.count))


def test_occurrences_are_every_run_of_the_op(ws):
    counts = Counter(args["hlo_op"] for _, _, args in op_events(ws))
    name, runs = counts.most_common(1)[0]
    assert runs >= 3  # once per profiled step at least
    tracks, found = occurrences(ws.trace, "jit_train_step", name)
    assert len(found) == runs
    pairs = [(ws.trace.tracks[k], int(i)) for k, i in zip(tracks, found)]
    assert all(track.event_args(i)["hlo_op"] == name for track, i in pairs)
    starts = [int(track.start_ns[i]) for track, i in pairs]
    assert starts == sorted(starts)
    assert occurrences(ws.trace, "jit_train_step", "no-such-instruction")[1].size == 0


def test_top_ops_add_up_the_op_events(ws):
    rows = top_ops(ws)
    ops = op_names(ws)
    assert rows and all(row.name in ops for row in rows)
    assert [row.self_ns for row in rows] == sorted((row.self_ns for row in rows), reverse=True)
    by_name: dict[str, list[int]] = {}
    for track, i, args in op_events(ws):
        by_name.setdefault(args["hlo_op"], []).append(int(track.dur_ns[i]))
    assert {row.name: (row.count, row.total_ns) for row in rows} == {
        name: (len(durs), sum(durs)) for name, durs in by_name.items()
    }


def test_op_time_by_category(ws):
    """XProf's Op Profile, top level: each op's time goes to its instruction's category in the
    dump (dots: matmul; fusions: their kind), and the categories add up to the top ops."""
    from tui.model.categories import instruction_category
    from tui.model.links import op_categories, op_instructions

    rows = top_ops(ws)
    categories, of = op_categories(rows, op_instructions(ws, rows))
    module = ws.main.load()
    assert of == [instruction_category(module.instruction(row.name)) for row in rows]
    assert {"matmul", "loop fusion"} <= set(of)
    assert [c.total_ns for c in categories] == sorted((c.total_ns for c in categories), reverse=True)
    for c in categories:
        members = [row for row, name in zip(rows, of) if name == c.name]
        assert (c.count, c.total_ns, c.self_ns) == (sum(r.count for r in members), sum(r.total_ns for r in members),
                                                    sum(r.self_ns for r in members))
        assert (c.min_ns, c.max_ns) == (min(r.min_ns for r in members), max(r.max_ns for r in members))
    assert sum(c.total_ns for c in categories) == sum(row.total_ns for row in rows)


def test_each_ops_achieved_flop_and_byte_rate(ws):
    """Top ops' FLOP/s and bytes/s: the instruction's FLOPs and bytes accessed by XLA's own cost
    analysis (checked against the compiled module's totals in test_cost) times its runs, over
    their time; none for ops the cost model can't see."""
    from tui.model.cost import op_cost
    from tui.model.links import op_byte_rates, op_flop_rates, op_instructions

    rows = top_ops(ws)
    instructions = op_instructions(ws, rows)
    rates, bandwidths = op_flop_rates(rows, instructions), op_byte_rates(rows, instructions)
    dots = [(row, ins, rate) for row, ins, rate in zip(rows, instructions, rates) if ins.opcode == "dot"]
    assert dots
    for row, ins, rate in dots:
        assert rate == op_cost(ins).flops * row.count / (row.total_ns / 1e9) and rate > 1e6
    assert all(rate is None for row, ins, rate in zip(rows, instructions, rates) if op_cost(ins).flops <= 0)
    for row, ins, bandwidth in zip(rows, instructions, bandwidths):
        moved = op_cost(ins).bytes_accessed
        assert bandwidth == (moved * row.count / (row.total_ns / 1e9) if moved > 0 else None)
    assert sum(b is not None for b in bandwidths) > sum(r is not None for r in rates)  # copies move bytes, no FLOPs


def test_a_categorys_rate_is_its_ops_work_over_its_time(ws):
    """XProf's Op Profile rates per category: the category's FLOPs (each op's cost times its
    runs) over all of its time, ops that do no arithmetic counting as time."""
    from tui.model.cost import op_cost
    from tui.model.links import group_rates, op_flop_rates, op_profile

    profile = op_profile(ws)
    rates = group_rates(profile.categories, profile.category_of, profile.ops, profile.rates, profile.waits)
    assert not any(profile.waits)  # a CPU profile of no async ops: every op's time is its work
    assert rates == group_rates(profile.categories, profile.category_of, profile.ops,
                                op_flop_rates(profile.ops, profile.instructions), profile.waits)
    for group, rate in zip(profile.categories, rates):
        members = [(row, ins) for row, ins, of in zip(profile.ops, profile.instructions, profile.category_of) if of == group.name]
        flops = sum(op_cost(ins).flops * row.count for row, ins in members if ins is not None and op_cost(ins).known)
        assert rate == (pytest.approx(flops / (group.total_ns / 1e9)) if flops > 0 else None), group.name
    assert rates[[g.name for g in profile.categories].index("matmul")] > 0


def test_a_categorys_rate_leaves_out_the_time_of_waits(corpus):
    """On a TPU, an async copy's done event times its wait (seconds, while other ops run), and
    gets no rate: its category's bytes/s is the work of its other ops over their own time, not
    over the waits' too (the "layout" category of the v6e profile: a broadcast's 1.2 TB/s, not
    0.018 GB/s)."""
    from tui.model.links import group_rates, op_profile

    ws = load_workspace([corpus / "traces" / "xprof_tpu_v6e_inference_4chip.xplane.pb"])
    profile = op_profile(ws)
    rates = group_rates(profile.categories, profile.category_of, profile.ops, profile.byte_rates, profile.waits)
    layout = [g.name for g in profile.categories].index("layout")
    members = [k for k, of in enumerate(profile.category_of) if of == "layout"]
    waits = [k for k in members if profile.waits[k]]
    rated = [k for k in members if profile.byte_rates[k] is not None]
    assert waits and rated and {profile.instructions[k].opcode for k in waits} == {"copy-start", "copy-done"}
    work = sum(profile.byte_rates[k] * profile.ops[k].total_ns for k in rated)
    own_time = sum(profile.ops[k].total_ns for k in members if not profile.waits[k])
    assert rates[layout] == pytest.approx(work / own_time)
    assert rates[layout] > 1e12 > 1e3 * work / profile.categories[layout].total_ns  # the waits' time would make it a thousandth


def test_tpu_ops_match_by_name_within_their_module(corpus):
    trace = load_trace(corpus / "traces" / "xprof_tpu_v6e_inference_4chip.xplane.pb")
    trace.decode_all()
    modules = next(t for t in trace.tracks if (t.group, t.name) == ("/device:TPU:0", "XLA Modules"))
    ops = next(t for t in trace.tracks if (t.group, t.name) == ("/device:TPU:0", "XLA Ops"))
    i = ops.count // 2
    op = ops.event_name(i)
    j = int(np.searchsorted(modules.start_ns, ops.start_ns[i], side="right")) - 1
    module = module_name(modules.event_name(j))
    assert module != modules.event_name(j) and "(" not in module
    tracks, found = occurrences(trace, module, op)
    assert (trace.tracks.index(ops), i) in set(zip(tracks.tolist(), found.tolist()))
    for k, i in zip(tracks.tolist(), found.tolist()):
        track = trace.tracks[k]
        assert track.event_name(i) == op and track.name in ("XLA Ops", "Async XLA Ops")
        start = int(track.start_ns[i])
        device_modules = next(t for t in trace.tracks if (t.group, t.name) == (track.group, "XLA Modules"))
        j = int(np.searchsorted(device_modules.start_ns, start, side="right")) - 1
        assert module_name(device_modules.event_name(j)) == module and start < device_modules.end_ns[j]
    assert occurrences(trace, "some_other_module", op)[1].size == 0


def test_tpu_op_times_are_the_devices_own(corpus):
    """A TPU op's event on the trace can span more than the device spent on it (an async copy's
    wait, interleaved with other work); its `device_duration_ps` stat is its own time, which
    XProf's op profile adds up (copy-done.4: 77.77 s, not the 70.54 s of its spans), in
    picoseconds (copy-start.1's 400 runs: 681.25 ns, not the 545 ns of rounding each). Each
    row's total is the stat's sum over the op's events, read with ProfileData directly."""
    from jaxlib import _profile_data

    path = corpus / "traces" / "xprof_tpu_v6e_inference_4chip.xplane.pb"
    own, spans = Counter(), Counter()
    for plane in _profile_data.ProfileData.from_file(str(path)).planes:
        for line in plane.lines:
            if plane.name.startswith("/device:TPU") and line.name == "XLA Ops":
                for event in line.events:
                    stats, name = dict(event.stats), event.name.split(" ", 1)[0].lstrip("%")  # the event's HLO text
                    own[name] += stats.get("device_duration_ps", event.duration_ns * 1000) / 1000
                    spans[name] += event.duration_ns
    assert any(abs(own[name] - spans[name]) > 1e9 for name in own)  # seconds apart: the spans would not do
    ws = load_workspace([path])
    rows = top_ops(ws)
    assert rows and all(row.total_ns == pytest.approx(own[row.name], rel=1e-12) for row in rows)
    assert own["copy-start.1"] == 681.25 and min(row.min_ns for row in rows) < 1  # sub-nanosecond copies
    assert max(rows, key=lambda row: row.total_ns).name == "copy-done.4"
    # An op's runs (details, the timeline's t) are the same events: on the `XLA Ops` lines, not
    # the `Async XLA Ops` spans named after an async op's start.
    from tui.model.links import TraceLinks

    entry = next(e for e in ws.modules if e.label == rows[0].program)
    module = entry.load()
    for row in [r for r in rows if r.program == entry.label and r.name.startswith("copy-")]:
        runs = TraceLinks(ws.trace, module, entry.label).occurrences(module.instruction(row.name))
        assert (runs.count, runs.durations_ns.sum()) == (row.count, pytest.approx(row.total_ns, rel=1e-12)), row.name
        tracks, _ = occurrences(ws.trace, entry.name, row.name, entry.label)
        assert len(tracks) == row.count and {ws.trace.tracks[k].name for k in tracks.tolist()} == {"XLA Ops"}


def test_a_top_ops_row_keeps_to_its_own_program(tmp_path):
    """Two programs of one module name (`jit_f(1)`, `jit_f(2)`: recompiled for new shapes) each
    run a `fusion.3`: top ops gives each program a row, and a row's events are that program's
    runs alone. (Hand-written Chrome trace: the corpus's TPU programs share no op names.)"""
    import json

    events = [{"ph": "M", "pid": 1, "name": "process_name", "args": {"name": "/device:TPU:0"}},
              {"ph": "M", "pid": 1, "tid": 1, "name": "thread_name", "args": {"name": "XLA Modules"}},
              {"ph": "M", "pid": 1, "tid": 2, "name": "thread_name", "args": {"name": "XLA Ops"}}]
    for k, (program, dur) in enumerate([("jit_f(1)", 5), ("jit_f(2)", 7), ("jit_f(1)", 5), ("jit_f(2)", 7)]):
        events.append({"ph": "X", "pid": 1, "tid": 1, "name": program, "ts": k * 100, "dur": 50})
        events.append({"ph": "X", "pid": 1, "tid": 2, "name": "fusion.3", "ts": k * 100 + 1, "dur": dur})
    path = tmp_path / "two_programs.json"
    path.write_text(json.dumps({"traceEvents": events}))
    trace = load_trace(path)
    trace.decode_all()  # as the timeline does before its top-ops table
    rows = {row.program: row for row in top_ops(Workspace([], trace=trace))}
    assert {program: (row.count, row.total_ns) for program, row in rows.items()} == {
        "jit_f(1)": (2, 10_000), "jit_f(2)": (2, 14_000)}
    ops = next(k for k, t in enumerate(trace.tracks) if t.name == "XLA Ops")
    for program, expected in (("jit_f(1)", [0, 2]), ("jit_f(2)", [1, 3])):
        tracks, found = occurrences(trace, module_name(program), "fusion.3", program)
        assert tracks.tolist() == [ops, ops] and found.tolist() == expected
    assert occurrences(trace, "jit_f", "fusion.3")[1].tolist() == [0, 1, 2, 3]  # the module: both programs


ROCM_PROFILES = ["tracelens_jax08_rocm_attention", "tracelens_jax08_rocm_conv3d_8gpu", "tracelens_jax_rocm_conv_legacy",
                 "tracelens_jax_rocm_te_fused_attn"]


def kernels_by_profiledata(path) -> list[tuple[str, str | None, str, int, int, tuple]]:
    """(hlo_op, program, kernel name, start, duration, run) of every device event with an
    `hlo_op` stat, read with ProfileData directly: the oracle for the kernel links. The program
    is `hlo_module(program_id)`, or the module alone where the kernel has no `program_id`. The
    run is where, on its line in time order, the stretch of kernels of its op and program that
    it belongs to begins (any other event between two kernels ends a stretch, and so does a
    kernel launched in another run of its program: the host's `module:XLA GPU module`
    annotation of its module that spans the launch with its correlation id, where just one
    does; where none or several do, as runs on several devices at once, that does not split)."""
    from jaxlib import _profile_data

    planes = list(_profile_data.ProfileData.from_file(str(path)).planes)
    launches, annotations = {}, defaultdict(list)  # correlation id -> launch time; module -> (start, end)
    for plane in planes:
        if plane.name.startswith("/device:"):
            continue
        for line in plane.lines:
            for event in line.events:
                if event.name.endswith(":XLA GPU module"):
                    annotations[event.name.removesuffix(":XLA GPU module")].append((event.start_ns, event.end_ns))
                else:
                    stats = dict(event.stats)
                    if "correlation_id" in stats:
                        launches[stats["correlation_id"]] = event.start_ns

    def launched_in(stats) -> tuple | None:
        at = launches.get(stats.get("correlation_id"))
        spans = [span for span in annotations.get(stats.get("hlo_module"), ()) if at is not None and span[0] <= at < span[1]]
        return spans[0] if len(spans) == 1 else None

    found = []
    for p, plane in enumerate(planes):
        if not plane.name.startswith("/device:"):
            continue
        for n, line in enumerate(plane.lines):
            if line.name in ("XLA Ops", "XLA Modules"):
                continue
            previous, previous_launch, run = None, None, None
            for k, event in enumerate(sorted(line.events, key=lambda e: e.start_ns)):
                stats = dict(event.stats)
                key = None
                if "hlo_op" in stats:
                    program = stats.get("hlo_module")
                    if program and "program_id" in stats:
                        program += f"({stats['program_id']})"
                    key, launch = (stats["hlo_op"], program), launched_in(stats)
                    if key != previous or None not in (launch, previous_launch) and launch != previous_launch:
                        run = (p, n, k)
                    found.append((*key, event.name, round(event.start_ns), round(event.duration_ns), run))
                    previous_launch = launch
                previous = key
    return found


@pytest.mark.parametrize("name", ROCM_PROFILES)
def test_gpu_kernels_count_towards_the_op_in_their_stats(corpus, name):
    """GPU kernels are named after the kernel (`Cijk_…`, `loop_convert_fusion.kd`); the op they
    ran is their `hlo_op` stat, its program the `hlo_module` and `program_id` stats. Top ops (a
    row per op and program) and an op's occurrences follow the stats."""
    path = corpus / "traces" / f"{name}.xplane.pb"
    trace = load_trace(path)
    trace.decode_all()
    oracle = kernels_by_profiledata(path)
    assert oracle and any(op != kernel for op, _, kernel, *_ in oracle)  # names alone would miss them
    rows = {(row.name, row.program): row for row in top_ops(Workspace([], trace=trace))}
    by_op = Counter((op, module) for op, module, *_ in oracle)
    assert set(rows) == set(by_op)
    for op, module in by_op:
        runs = Counter()  # a run's time: its kernels' added up
        for o, m, _, _, d, run in oracle:
            if (o, m) == (op, module):
                runs[run] += d
        assert (rows[op, module].count, rows[op, module].total_ns, rows[op, module].max_ns) == (
            len(runs), sum(runs.values()), max(runs.values()))
    if name == "tracelens_jax08_rocm_conv3d_8gpu":  # MIOpen's convolution: an im2col and a GEMM kernel a run
        assert by_op["cudnn-conv.1", "jit_forward_3d_conv(15)"] > rows["cudnn-conv.1", "jit_forward_3d_conv(15)"].count == 40
    if name == "tracelens_jax08_rocm_attention":  # programs here reuse op names: each keeps its own row
        assert len({op for op, _ in by_op}) < len(by_op)
    op, program = Counter((o, m) for o, m, *_ in oracle).most_common(1)[0][0]
    for module, exact in ((module_name(program), program), (module_name(program), None)):  # the program; every one of its module
        tracks, found = occurrences(trace, module, op, exact)
        starts = [int(trace.tracks[k].start_ns[i]) for k, i in zip(tracks.tolist(), found.tolist())]
        expected = sorted((s, d) for o, m, _, s, d, _ in oracle if o == op and (m == exact if exact else module_name(m) == module))
        durations = [int(trace.tracks[k].dur_ns[i]) for k, i in zip(tracks.tolist(), found.tolist())]
        assert starts == sorted(starts) and durations == [d for _, d in expected]  # every run, in time order
    assert occurrences(trace, "no_such_module", op)[1].size == 0
    # A top-ops row's events (Enter on it): the op's kernels, and any event named after the op
    from tui.model.links import events_of_name

    shown = set(zip(*(a.tolist() for a in events_of_name(trace, op))))
    kernels = set(zip(*(a.tolist() for a in occurrences(trace, None, op))))
    named = {(k, i) for k, t in enumerate(trace.tracks) for i in range(t.count) if t.event_name(i) == op}
    assert shown == kernels | named and kernels


def test_an_instructions_runs_on_a_gpu_are_its_kernels(corpus):
    """The details' profile figures (TraceLinks) on a GPU: the kernels whose stats name the
    instruction and its program, not the host's launch events named after the op, nor the
    kernels of the same op in another program of that module (`jit_matmul` ran at five shapes).
    The modules are the programs the profile holds."""
    from tui.model.links import TraceLinks

    path = corpus / "traces" / "tracelens_jax08_rocm_attention.xplane.pb"
    ws = load_workspace([path])
    trace = ws.trace
    oracle = kernels_by_profiledata(path)
    matmuls = [entry for entry in ws.modules if entry.name == "jit_matmul"]
    assert len(matmuls) == 5
    for entry in matmuls:
        module = entry.load()
        ins = next(i for i in module.entry.instructions if i.opcode in ("custom-call", "fusion"))
        links = TraceLinks(trace, module, entry.label)
        runs = links.occurrences(ins)
        expected = [(d, run) for o, m, _, _, d, run in oracle if (o, m) == (ins.name, entry.label)]
        assert runs.count == len({run for _, run in expected}) > 0 and runs.total_ns == sum(d for d, _ in expected), entry.label
        assert all(trace.tracks[k].name.startswith("Stream") for k, _ in runs.events)
        step, where = links.step_ns()
        assert step == sum(d for _, m, _, _, d, _ in oracle if m == entry.label) and "GPU kernels" in where
    every = TraceLinks(trace, matmuls[0].load()).occurrences(matmuls[0].load().instruction("custom-call.1"))
    assert every.count == len({run for o, m, *_, run in oracle if o == "custom-call.1" and module_name(m) == "jit_matmul"})


def test_tpu_program_runs_flow_from_their_enqueue(corpus):
    """XProf's producer/consumer flows: a TPU host's `DoEnqueueProgram` names (in its hidden `_pt`
    / `_p` stats) the context its device's `XLA Modules` run consumes (`_ct` / `_c`). Checked
    against ProfileData read directly, both ways."""
    from jaxlib import _profile_data

    from tui.model.links import correlated

    path = corpus / "traces" / "xprof_tpu_v6e_inference_4chip.xplane.pb"
    producers, consumers, context_of = {}, {}, {}
    for plane in _profile_data.ProfileData.from_file(str(path)).planes:
        for line in plane.lines:
            for event in line.events:
                stats = dict(event.stats)
                where = (plane.name, line.name, event.name, round(event.start_ns))
                if "_p" in stats:
                    producers.setdefault((stats["_pt"], stats["_p"]), set()).add(where)
                if "_c" in stats:
                    consumers.setdefault((stats["_ct"], stats["_c"]), set()).add(where)
                    context_of[where] = (stats["_ct"], stats["_c"])
    trace = load_trace(path)

    def described(pairs):
        return {(t.group, t.name, t.event_name(i), int(t.start_ns[i])) for t, i in ((trace.tracks[k], i) for k, i in pairs)}

    runs = next(k for k, t in enumerate(trace.tracks) if (t.group, t.name) == ("/device:TPU:1", "XLA Modules"))
    checked = 0
    for i in range(0, trace.tracks[runs].count, 17):
        run = (runs, i)
        context = context_of[next(iter(described([run])))]
        linked = correlated(trace, *run)
        assert described(linked) == producers[context]  # the run consumes what its enqueue produced
        assert {name for _, _, name, _ in producers[context]} == {"DoEnqueueProgram"}
        for enqueue in linked:
            assert run in correlated(trace, *enqueue)
            assert consumers[context] <= described(correlated(trace, *enqueue))
        checked += 1
    assert checked >= 5


_SCAN_STEP = """
import sys, jax, jax.numpy as jnp
def body(c, w):
    return jnp.tanh(c @ w), None
@jax.jit
def step(x, ws):
    return jax.lax.scan(body, x, ws)[0]
x = jax.random.normal(jax.random.PRNGKey(0), (256, 256))
ws = jax.random.normal(jax.random.PRNGKey(1), (6, 256, 256)) * 0.05
step(x, ws).block_until_ready()
with jax.profiler.trace(sys.argv[1]):
    for i in range(3):
        x = step(x, ws).block_until_ready()
"""


def test_ops_inside_a_loop_count_once(tmp_path):
    """A scan's body ops run inside its `while` op's events, on the same thread: XProf's op
    stats count each op's self time, so the loop's own time is what is left between them and
    the ops' time is the stretch of time some op ran (the union of their events, worked out
    here from jaxlib's own reader). Counted whole, the `while` was half of the ops' time."""
    import subprocess
    import sys

    from jax.profiler import ProfileData

    from tui.model.links import op_profile, op_time

    script = tmp_path / "scan_step.py"
    script.write_text(_SCAN_STEP)
    subprocess.run([sys.executable, str(script), str(tmp_path / "profile")], check=True, timeout=300,
                   env={**__import__("os").environ, "TF_CPP_MIN_LOG_LEVEL": "3"})
    xplane = next((tmp_path / "profile").rglob("*.xplane.pb"))
    ws = load_workspace([xplane])
    profile = op_profile(ws)
    loop = next(row for row in profile.ops if row.name.startswith("while"))
    assert loop.count == 3 and loop.self_ns < loop.total_ns / 5  # its body's ops ran inside it
    body = [row for row in profile.ops if row.count == 18]  # 6 iterations of 3 steps
    assert body and all(row.self_ns > loop.self_ns / 18 for row in body)
    assert [row.self_ns for row in profile.ops] == sorted((row.self_ns for row in profile.ops), reverse=True)

    ops = {row.name for row in profile.ops}
    union = sum(covered_ns([(e.start_ns, e.start_ns + e.duration_ns) for e in line.events if e.name in ops])
                for plane in ProfileData.from_file(str(xplane)).planes for line in plane.lines)
    assert op_time(profile.ops) == pytest.approx(union, rel=1e-6, abs=len(ops))
    assert sum(row.self_ns for row in profile.categories) == op_time(profile.ops)
