"""The programs an xplane holds (its `/host:metadata` plane's `Hlo Proto` stats): read without a
dump, they must be XLA's own modules, and a profile opened alone must link its events to them."""

from __future__ import annotations

import re

import pytest
from conftest import FIXTURES

from tui.model.errors import InputError
from tui.model.hlo import parse_hlo
from tui.model.inputs import load_workspace
from tui.model.links import TraceLinks, instruction_for_event, modules_for, program_of, top_ops
from tui.model.memory import SOURCE_COMPUTED, SOURCE_LIVE_RANGE, memory_counters, peak_memory
from tui.model.profile_programs import embedded_programs
from tui.model.summary import summarize
from tui.model.workspace import ModuleEntry, Workspace, read_hlo

CPU_PROFILE = FIXTURES / "transformer" / "profile" / "host.xplane.pb"


def _signature(module) -> list[tuple]:
    return [(i.name, i.opcode, i.shape.text, tuple(o.name for o in i.operands)) for i in module.instructions()]


def test_the_gpu_profiles_program_is_the_dumps_module():
    """The H100 profile holds the train step it ran; XLA also dumped that module as `.hlo.pb`."""
    ws = load_workspace([FIXTURES / "gpu" / "gpu.xplane.pb"])
    assert ws.main.label == "jit_train_step(4635)" and ws.main.name == "jit_train_step"
    assert ws.main.stage == "after optimizations" and ws.main.path.name == "gpu.xplane.pb"
    dumped = read_hlo(next((FIXTURES / "gpu").glob("*gpu_after_optimizations.hlo.pb")))
    assert _signature(ws.main.load()) == _signature(dumped) and len(_signature(dumped)) > 1000


def test_each_cpu_program_computes_xlas_own_peak():
    """The committed CPU profile and dump come from one process: a program `jit_f(N)` is the
    dump's `module_000N`. Computed from the profile's copy, the peak is XLA's live-range peak."""
    ws = load_workspace([CPU_PROFILE])
    assert ws.main.label == "jit_train_step(14)"  # the program that ran most
    dumped = load_workspace([FIXTURES / "transformer"])
    checked = 0
    for entry in ws.modules:
        number = int(re.search(r"\((\d+)\)$", entry.label).group(1))
        twin = next((m for m in dumped.modules if m.label == f"module_{number:04d}.{entry.name}"), None)
        if twin is None:
            continue
        ours, xla = peak_memory(entry), peak_memory(twin)
        assert ours.source == SOURCE_COMPUTED and xla.source == SOURCE_LIVE_RANGE
        assert ours.bytes == xla.bytes, entry.label
        checked += 1
    assert checked >= 4


def test_a_program_traced_in_this_run_is_the_compiled_module(tmp_path):
    """jax.profiler keeps the programs compiled while it traces (its default options)."""
    import jax
    import jax.numpy as jnp
    from jax._src.lib import xla_client

    def scaled_tanh(x, w):
        return jnp.tanh(x @ w).sum(axis=0) * 2

    x, w = jnp.ones((32, 16)), jnp.ones((16, 8))
    with jax.profiler.trace(str(tmp_path)):
        jitted = jax.jit(scaled_tanh)
        jitted(x, w).block_until_ready()
    compiled = jitted.lower(x, w).compile()
    ws = load_workspace([tmp_path])
    ours = next(m for m in ws.modules if m.name == "jit_scaled_tanh")
    assert re.fullmatch(r"jit_scaled_tanh\(\d+\)", ours.label)
    embedded = ours.load()
    xla = xla_client.hlo.hlo_module_from_text(compiled.as_text())  # XLA's own parser
    assert sorted(i.name for i in embedded.instructions()) == sorted(i.name for c in xla.computations() for i in c.instructions())
    assert _signature(embedded) == _signature(parse_hlo(compiled.as_text()))


def test_tpu_events_link_to_the_program_they_ran_in(corpus):
    """A v6e profile alone: its XLA ops link to the instructions of their own program, and each
    instruction's runs are its events inside that program's runs (as the op table counts them)."""
    ws = load_workspace([corpus / "traces" / "xprof_tpu_v6e_inference_4chip.xplane.pb"])
    assert {m.name for m in ws.modules} == {"jit__psum", "jit_broadcast_in_dim", "jit_f", "jit_convert_element_type"}
    assert ws.main.name == "jit_f"
    trace = ws.trace
    ops = next(k for k, t in enumerate(trace.tracks) if t.group == "/device:TPU:0" and t.name == "XLA Ops")
    track = trace.tracks[ops]
    linked = [instruction_for_event(ws, track, i) for i in range(0, track.count, max(track.count // 40, 1))]
    assert all(found is not None for found in linked)
    main = ws.main.load()
    assert any(label == ws.main.label and main.instruction(name) is not None for label, name in linked)
    links = TraceLinks(trace, main, ws.main.label)
    rows = {row.name: row for row in top_ops(ws) if row.program == ws.main.label}
    for name in ("copy-done", "copy-done.2", "broadcast_add_fusion"):
        assert links.occurrences(main.instruction(name)).count == rows[name].count > 0


def test_programs_are_listed_in_the_order_jax_compiled_them():
    """The metadata plane keeps programs in a hash map's order; they are listed by their ids."""
    with open(CPU_PROFILE, "rb") as f:
        programs, problem = embedded_programs(f.read())
    ids = [int(re.fullmatch(r".*\((\d+)\)", p.name).group(1)) for p in programs]
    assert problem is None and len(ids) > 3 and ids == sorted(ids)
    ws = load_workspace([CPU_PROFILE])
    assert [m["label"] for m in summarize(ws)["modules"]] == [p.name for p in programs]


def test_modules_for_a_program_put_that_program_first():
    entries = [ModuleEntry(label=f"jit_stage({n})", name="jit_stage", path=CPU_PROFILE, span=(0, 1)) for n in (8, 10)]
    ws = Workspace(entries)
    assert [m.label for m in modules_for(ws, "jit_stage(10)")] == ["jit_stage(10)", "jit_stage(8)"]
    assert [m.label for m in modules_for(ws, "jit_stage")] == ["jit_stage(8)", "jit_stage(10)"]
    # a dump's modules are numbered by the same unique id as the profile's programs
    dumped = [ModuleEntry(label=f"module_{n:04d}.jit_stage", name="jit_stage", path=CPU_PROFILE) for n in (8, 10)]
    ws = Workspace(dumped)
    assert [m.label for m in modules_for(ws, "jit_stage(10)")] == ["module_0010.jit_stage", "module_0008.jit_stage"]
    assert [m.label for m in modules_for(ws, "jit_stage(9)")] == ["module_0008.jit_stage", "module_0010.jit_stage"]
    assert [program_of(m) for m in dumped] == ["jit_stage(8)", "jit_stage(10)"]


def test_bad_program_bytes_are_one_clear_error():
    raw = CPU_PROFILE.read_bytes()
    programs, problem = embedded_programs(raw)
    assert problem is None and len(programs) == 8
    first = programs[0]
    cut = ModuleEntry(label=first.name, name="x", path=CPU_PROFILE, span=(first.start + 7, first.end))
    with pytest.raises(InputError, match="not a serialized HloProto"):
        cut.load()
    assert embedded_programs(raw[: first.start + 20])[1].startswith("the programs it holds could not be read")
    assert embedded_programs(b"") == ([], None)  # no planes at all
    assert embedded_programs(bytes(16))[1] == "the programs it holds could not be read (field number 0 at byte 0)"


def test_a_tpu_programs_device_memory_is_what_its_allocator_reserved(corpus):
    """The v6e program offloads to host memory (S(5)): its peak adds device and host bytes, so
    each space's own highest is given too. The device's, found from the schedule alone, is what
    the TPU allocator reserved while it ran (that holds a little more: 16 MB of its own)."""
    ws = load_workspace([corpus / "traces" / "xprof_tpu_v6e_inference_4chip.xplane.pb"])
    peak = peak_memory(ws.main)
    assert set(peak.by_space) == {"device", "S(2)", "host S(5)"}
    assert peak.by_space["host S(5)"] == 3 * 5 * 1024**3  # its three f32[5,1024,1024,256] arguments and outputs
    ws.trace.decode_all()
    reserved = next(c for c in memory_counters(ws.trace) if c.name.endswith("bytes_reserved")).value.max()
    assert peak.by_space["device"] <= reserved <= peak.by_space["device"] * 1.001
    row = next(m for m in summarize(ws)["modules"] if m["label"] == ws.main.label)
    assert row["peak_memory_by_space"] == peak.by_space and row["peak_memory_bytes"] == peak.bytes
    assert sum(peak.by_space.values()) >= peak.bytes  # each space at its own highest, at least its share of the joint one


def test_a_dumps_module_counts_its_own_programs_runs_where_the_profile_ran_it():
    """The H100 dump and profile come from one run: `module_4635.jit_train_step` is the program
    `jit_train_step(4635)`. Paired with a profile of another run (ids that do not match), the
    module's runs are all of its name's, as before."""
    ws = load_workspace([FIXTURES / "gpu"])
    module = ws.main.load()
    assert program_of(ws.main) == "jit_train_step(4635)"
    fusion = module.instruction("gemm_fusion_dot.9")
    same_run = TraceLinks(ws.trace, module, program_of(ws.main))
    other_run = TraceLinks(ws.trace, module, "jit_train_step(7)")
    assert same_run.program == "jit_train_step(4635)" and other_run.program is None
    assert same_run.occurrences(fusion).count == other_run.occurrences(fusion).count == 3  # 3 profiled steps


def test_a_program_the_profile_holds_cut_is_left_out_with_a_warning(tmp_path):
    """The main program's proto damaged inside an otherwise sound profile: the profile opens,
    that program is left out with one line saying which, and the next one is the main module."""
    raw = bytearray(CPU_PROFILE.read_bytes())
    main = next(p for p in embedded_programs(bytes(raw))[0] if p.name == "jit_train_step(14)")
    raw[main.start : main.start + 64] = b"\xff" * 64
    damaged = tmp_path / "host.xplane.pb"
    damaged.write_bytes(bytes(raw))
    ws = load_workspace([damaged])
    assert "jit_train_step(14)" not in {m.label for m in ws.modules} and ws.main is not None and ws.main.loaded
    assert ws.trace is not None and ws.trace.event_count == load_workspace([CPU_PROFILE]).trace.event_count
    assert [w for w in ws.warnings if w.startswith("left out: ")] == [
        f"left out: {damaged}: its program jit_train_step(14): not a serialized HloProto or HloModuleProto "
        "(damaged, cut off, or another kind of .pb file)"]


def test_a_chrome_trace_takes_the_programs_of_the_xplane_beside_it(tmp_path):
    """jax.profiler writes the run's Chrome trace beside its xplane; only the xplane holds the
    programs. Opened alone, the trace gets them, and its op events link to their instructions."""
    beside = load_workspace([CPU_PROFILE.parent / "perfetto_trace.json.gz"])
    own = load_workspace([CPU_PROFILE])
    assert beside.trace.source == "chrome" and [m.label for m in beside.modules] == [m.label for m in own.modules]
    assert beside.main.label == own.main.label == "jit_train_step(14)"
    module = beside.main.load()
    track = next(t for t in beside.trace.tracks if any(module.instruction(t.event_name(i)) for i in range(t.count)))
    i = next(i for i in range(track.count) if module.instruction(track.event_name(i)) is not None)
    assert instruction_for_event(beside, track, i) == (beside.main.label, track.event_name(i))
    alone = tmp_path / "perfetto_trace.json.gz"
    alone.write_bytes((CPU_PROFILE.parent / "perfetto_trace.json.gz").read_bytes())
    assert load_workspace([alone]).modules == []


def test_a_pipe_or_device_named_as_an_xplane_beside_a_chrome_trace_is_passed_over(tmp_path):
    """Opening a pipe waits for a writer for good: the trace opens without it, at once."""
    import os
    import subprocess
    import sys

    trace = tmp_path / "perfetto_trace.json.gz"
    trace.write_bytes((CPU_PROFILE.parent / "perfetto_trace.json.gz").read_bytes())
    os.mkfifo(tmp_path / "host.xplane.pb")
    (tmp_path / "zero.xplane.pb").symlink_to("/dev/zero")
    code = f"from tui.model.inputs import load_workspace; print(load_workspace([{str(trace)!r}]).trace.event_count)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and int(done.stdout) > 0, done.stderr


def test_a_cpu_profiles_main_program_is_its_largest_and_loading_decodes_nothing():
    """A CPU profile has no `XLA Modules` lines to say which program ran most; counting its op
    events would decode every track before the first frame. Its largest program is the main one
    (here the train step, which the dump's runs also pick)."""
    ws = load_workspace([CPU_PROFILE])
    assert not any(track.decoded for track in ws.trace.tracks)
    assert ws.main.size == max(m.size for m in ws.modules)
    assert ws.main.name == load_workspace([FIXTURES / "transformer"]).main.name
