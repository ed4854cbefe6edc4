"""Profile events <-> HLO instructions, on the committed profile of the committed train step.

The CPU profiler stamps each op event with the instruction (`hlo_op`) and module
(`hlo_module`) it ran: the links found by name must agree with those stamps.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import FIXTURES

from tui.model.links import TraceLinks
from tui.model.trace import load_trace
from tui.model.workspace import read_hlo


@pytest.fixture(scope="module")
def links():
    module = read_hlo(FIXTURES / "transformer" / "module_0014.jit_train_step.cpu_after_optimizations.txt")
    return TraceLinks(load_trace(FIXTURES / "transformer" / "profile" / "host.xplane.pb"), module)


def test_occurrences_agree_with_the_profilers_own_stamps(links):
    checked = 0
    for ins in links.module.entry.instructions:
        runs = links.occurrences(ins)
        expected = [(t, int(i)) for t, track in enumerate(links.trace.tracks)
                    for i in np.flatnonzero(np.array([track.event_name(j) for j in range(track.count)]) == ins.name)]
        assert sorted(runs.events) == sorted(expected)
        for t, i in runs.events[:2]:
            args = links.trace.tracks[t].event_args(i)
            assert args["hlo_op"] == ins.name and args["hlo_module"] == links.module.name
        checked += runs.count > 0
    assert checked > 50


def test_statistics_of_one_op(links):
    ins = links.module.instruction("dot.35")
    runs = links.occurrences(ins)
    assert runs.count == 3  # the profile holds three steps
    durations = [int(links.trace.tracks[t].dur_ns[i]) for t, i in runs.events]
    assert runs.total_ns == sum(durations) and runs.min_ns == min(durations) and runs.max_ns == max(durations)
    assert runs.mean_ns == pytest.approx(sum(durations) / 3)


def test_ops_that_never_ran(links):
    param = links.module.entry.parameters[0]
    assert links.occurrences(param).count == 0


def test_step_time_without_module_events_is_the_op_time(links):
    total, where = links.step_ns()
    op_time = sum(links.occurrences(ins).total_ns for ins in links.module.instructions())
    assert total == op_time > 0 and "op events" in where


def test_tpu_style_profile_uses_module_events_for_the_step(tmp_path):
    """A TPU trace names op events after the whole instruction (`%fusion.3 = ...`) and has an
    `XLA Modules` line; the step is the module's own time there. Hand-written: no TPU here."""
    import json

    module = read_hlo(FIXTURES / "mlp.hlo")
    ops = [i for i in module.entry.instructions if i.opcode not in ("parameter", "constant", "tuple")][:3]
    events = [
        {"ph": "M", "name": "process_name", "pid": 1, "args": {"name": "/device:TPU:0"}},
        {"ph": "M", "name": "thread_name", "pid": 1, "tid": 1, "args": {"name": "XLA Modules"}},
        {"ph": "M", "name": "thread_name", "pid": 1, "tid": 2, "args": {"name": "XLA Ops"}},
    ]
    for step in range(2):
        start = 1000 * step
        events.append({"ph": "X", "name": f"{module.name}(7)", "pid": 1, "tid": 1, "ts": start, "dur": 900})
        for n, ins in enumerate(ops):
            whole = ins.text[ins.text.index("%"):]  # `%name = shape opcode(...), ...`, as TPU op events print
            events.append({"ph": "X", "name": whole, "pid": 1, "tid": 2, "ts": start + 100 * n, "dur": 50 + n})
    path = tmp_path / "tpu.trace.json"
    path.write_text(json.dumps({"traceEvents": events}))
    links = TraceLinks(load_trace(path), module)
    assert links.step_ns() == (1_800_000, f"{module.name} on XLA Modules")
    for n, ins in enumerate(ops):
        runs = links.occurrences(ins)
        assert runs.count == 2 and runs.total_ns == 2 * (50 + n) * 1000


def test_an_async_ops_start_and_wait_on_a_tpu_get_no_rates(corpus):
    """On the v6e host-offload profile a copy-start's event is its issue (5 GiB in a few ns:
    petabytes a second) and a copy-done's is the core waiting: neither gets a FLOP/s or bytes/s
    (nor a share of the chip's peaks); the fusions beside them keep theirs. On a GPU the same
    opcodes' kernels are the work itself."""
    from tui.model.inputs import load_workspace
    from tui.model.links import op_byte_rates, op_flop_rates, op_profile, only_issues_or_waits

    ws = load_workspace([corpus / "traces" / "xprof_tpu_v6e_inference_4chip.xplane.pb"])
    profile = op_profile(ws)
    asyncs = [k for k, ins in enumerate(profile.instructions) if ins is not None and ins.opcode in ("copy-start", "copy-done")]
    others = [k for k, ins in enumerate(profile.instructions) if ins is not None and ins.opcode == "fusion"]
    assert len(asyncs) >= 8 and others
    flops, moved = profile.utilization()
    assert all(profile.rates[k] is None and profile.byte_rates[k] is None and moved[k] is None for k in asyncs)
    naive = op_byte_rates(profile.ops, profile.instructions)  # what the issue's time would make of them
    assert max(naive[k] for k in asyncs) > 1e15  # a petabyte a second and more
    assert all(profile.byte_rates[k] == naive[k] is not None for k in others)
    assert all(profile.rates[k] == op_flop_rates(profile.ops, profile.instructions)[k] for k in others)
    gpu = load_workspace([FIXTURES / "gpu"])
    copy_start = profile.instructions[asyncs[0]]
    assert only_issues_or_waits(copy_start, ws.trace) and not only_issues_or_waits(copy_start, gpu.trace)


def test_the_op_profile_is_kept_for_its_trace_and_the_modules_parsed():
    """The graph's boxes and the timeline's tables ask for the same op profile: it is worked out
    once, and again when another module is parsed (its ops may be among the profile's)."""
    from tui.model.inputs import load_workspace
    from tui.model.links import op_profile

    ws = load_workspace([FIXTURES / "transformer"])
    first = op_profile(ws)
    assert op_profile(ws) is first and first.ops
    other = next(entry for entry in ws.modules if not entry.loaded)
    other.load()
    again = op_profile(ws)
    assert again is not first and [row.name for row in again.ops] == [row.name for row in first.ops]
    assert op_profile(ws) is again


@pytest.mark.parametrize("fixture", ["gpu", "gpu_cublas", "gpu_scan"])
def test_each_ops_time_is_what_its_runs_add_up_to(fixture):
    """The op profile's time per instruction (what the graph's boxes say) is the sum of the op's
    runs as TraceLinks finds them one op at a time (what the details screen says), on the H100
    fixtures: kernels by `hlo_op`, CUDA graphs' kernels by the fusion they ran, cuBLAS calls."""
    from tui.model.inputs import load_workspace
    from tui.model.links import op_profile, program_of

    folder = FIXTURES / fixture
    ws = load_workspace([next(folder.glob("*.xplane.pb")), folder])
    times = {ins: t for ins, t in op_profile(ws).times().items() if ins.computation.module is ws.hlo}
    links = TraceLinks(ws.trace, ws.hlo, program_of(ws.current))
    assert len(times) > 20
    assert {ins.name: int(links.occurrences(ins).durations_ns.sum()) for ins in times} == {ins.name: t for ins, t in times.items()}
