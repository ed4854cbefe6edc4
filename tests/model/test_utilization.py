"""Device busy time (tui.model.utilization) against a plain sweep over the events ProfileData
reads from the same xplane, on a real GPU profile and on the TPU corpus profile."""

from __future__ import annotations

import pytest
from conftest import FIXTURES, covered_ns

from tui.model.trace import load_trace
from tui.model.utilization import DeviceTime, _work, device_work


def swept(path, device: str, is_work) -> tuple[int, int, int]:
    """(busy, first start, last end) of a device's work lines, merged one interval at a time."""
    from jax._src.profiler import ProfileData

    spans = []
    for plane in ProfileData.from_file(str(path)).planes:
        if plane.name != device:
            continue
        for line in plane.lines:
            for event in line.events:
                if is_work(line.name, event.name):
                    spans.append((event.start_ns, event.start_ns + event.duration_ns))
    return covered_ns(spans), int(min(spans)[0]), int(max(end for _, end in spans))


def _busy(path, device):
    (found,) = [b for b in DeviceTime(load_trace(path)).busy() if b.device == device]
    return found


def test_a_gpu_is_busy_where_a_kernel_or_copy_runs():
    path = FIXTURES / "gpu" / "gpu.xplane.pb"
    found = _busy(path, "/device:GPU:0")
    busy, first, last = swept(path, "/device:GPU:0", lambda line, name: line.startswith("Stream"))
    assert (found.busy_ns, found.window_ns) == (busy, last - first)
    assert 0.1 < found.share < 0.9  # three small steps: the host keeps it waiting between kernels


def test_a_tpu_waiting_on_its_host_offload_copies_is_not_busy(corpus):
    """The v6e program offloads to host memory: its copy-done events, the core waiting for the
    copies, take most of each step and do not count as work."""
    path = corpus / "traces" / "xprof_tpu_v6e_inference_4chip.xplane.pb"
    found = _busy(path, "/device:TPU:0")

    def is_work(line, name):
        return line == "XLA Ops" and not name.lstrip("%").split(" ")[0].split(".")[0].endswith("-done")

    busy, first, last = swept(path, "/device:TPU:0", is_work)
    assert (found.busy_ns, found.window_ns) == (busy, last - first)
    assert found.share < 0.1


def test_a_window_counts_only_what_lies_inside_it():
    trace = load_trace(FIXTURES / "gpu" / "gpu.xplane.pb")
    devices = DeviceTime(trace)
    (whole,) = devices.busy()
    lo, hi = trace.span
    mid = (lo + hi) // 2
    halves = [devices.busy(lo, mid)[0], devices.busy(mid, hi)[0]]
    assert sum(h.busy_ns for h in halves) == devices.busy(lo, hi)[0].busy_ns == whole.busy_ns
    assert devices.busy(lo, lo + 1)[0].busy_ns in (0, 1)


def clipped_union(spans: list[tuple[int, int]], lo: int, hi: int) -> int:
    """The busy time inside [lo, hi], one interval at a time."""
    busy, reach = 0, lo
    for start, end in sorted((max(s, lo), min(e, hi)) for s, e in spans if e > lo and s < hi):
        busy += max(0, end - max(start, reach))
        reach = max(reach, end)
    return busy


@pytest.mark.parametrize("where", ["gpu", "tpu"])
def test_any_window_is_answered_from_the_merged_intervals(where, corpus):
    """Windows anywhere (inside an interval, across many, in a gap, past the ends, one ns) get
    what a sweep over the work events clipped to the window gives."""
    import random

    path = FIXTURES / "gpu" / "gpu.xplane.pb" if where == "gpu" else corpus / "traces" / "xprof_tpu_v6e_inference_4chip.xplane.pb"
    trace = load_trace(path)
    trace.decode_all()
    times = DeviceTime(trace)
    rng = random.Random(7)
    for device, tracks in device_work(trace).items():
        spans = [(int(s), int(e)) for track in tracks for s, e in zip(*_work(track))]
        first, last = min(s for s, _ in spans), max(e for _, e in spans)
        edges = [t for span in rng.sample(spans, 20) for t in span]
        windows = [(first - 100, last + 100), (first, first + 1)] + [
            tuple(sorted((rng.choice(edges) + rng.randint(-50, 50), rng.randint(first, last)))) for _ in range(200)]
        for lo, hi in windows:
            (found,) = [b for b in times.busy(lo, hi) if b.device == device]
            assert (found.busy_ns, found.window_ns) == (clipped_union(spans, lo, hi), hi - lo)


@pytest.mark.parametrize("name", ["transformer/profile/host.xplane.pb"])
def test_a_cpu_profile_has_no_devices(name):
    assert DeviceTime(load_trace(FIXTURES / name)).busy() == []


def test_a_pytorch_gpu_stream_counts_its_kernels_not_the_annotation_around_them(corpus):
    """A Kineto trace (PyTorch's Chrome JSON): the GPU process's stream holds kernels and a
    `gpu_user_annotation` spanning them; only the kernels, copies and memsets are work."""
    import gzip
    import json

    path = corpus / "traces" / "non_xla" / "pytorch_kineto_torch_compile_triton.trace.json.gz"
    (found,) = DeviceTime(load_trace(path)).busy()
    events = json.loads(gzip.decompress(path.read_bytes()))["traceEvents"]
    work = sorted((e["ts"] * 1000, (e["ts"] + e["dur"]) * 1000) for e in events
                  if e.get("ph") == "X" and e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset"))
    busy, reach = 0.0, None
    for start, end in work:
        busy += max(0.0, end - max(start, reach if reach is not None else start))
        reach = end if reach is None else max(reach, end)
    assert abs(found.busy_ns - busy) <= len(work) and abs(found.window_ns - (max(e for _, e in work) - work[0][0])) <= 2
    assert any(e.get("cat") == "gpu_user_annotation" for e in events)


def test_an_annotation_around_kernels_is_not_work(tmp_path):
    """The same shape by hand, with gaps: kernels at 10-20 and 50-60 us inside an annotation
    spanning 0-100 us; the stream was busy 20 of the 50 us from its first kernel to its last."""
    import json

    def event(name, ts, dur, cat):
        return {"ph": "X", "pid": 2, "tid": 7, "name": name, "ts": ts, "dur": dur, "cat": cat}

    path = tmp_path / "kineto.json"
    path.write_text(json.dumps({"traceEvents": [
        {"ph": "M", "pid": 2, "name": "process_name", "args": {"name": "python (GPU 0)"}},
        {"ph": "M", "pid": 2, "tid": 7, "name": "thread_name", "args": {"name": "stream 7"}},
        event("## step", 0, 100, "gpu_user_annotation"), event("gemm", 10, 10, "kernel"), event("add", 50, 10, "kernel")]}))
    (found,) = DeviceTime(load_trace(path)).busy()
    assert (found.device, found.busy_ns, found.window_ns) == ("python (GPU 0)", 20_000, 50_000)


def test_how_busy_a_gpu_was_while_its_main_program_ran():
    """The scan fixture was profiled from its first call: over the whole span compilation
    dominates; from the train step's first kernel to its last, the busy time is that of every
    kernel, copy and memset inside that window, swept from ProfileData."""
    from jax._src.profiler import ProfileData

    from tui.model.inputs import load_workspace
    from tui.model.summary import format_summary, summarize

    scan = FIXTURES / "gpu_scan"
    summary = summarize(load_workspace([scan / "gpu_scan.xplane.pb", scan]))
    main = summary["trace"]["busy_in_main"]
    (device,) = main["devices"]
    kernels, work = [], []
    for plane in ProfileData.from_file(str(scan / "gpu_scan.xplane.pb")).planes:
        if plane.name == "/device:GPU:0":
            for line in plane.lines:
                for event in line.events:
                    span = (event.start_ns, event.start_ns + event.duration_ns)
                    work.append(span)
                    stats = dict(event.stats)  # (a memset XLA's allocator ran names an id but no module)
                    if (stats.get("hlo_module"), stats.get("program_id")) == ("jit_train_step", 0):
                        kernels.append(span)
    lo, hi = min(s for s, _ in kernels), max(e for _, e in kernels)
    inside = sorted((max(s, lo), min(e, hi)) for s, e in work if e > lo and s < hi)
    busy, reach = 0, lo
    for start, end in inside:
        busy += max(0, end - max(start, reach))
        reach = max(reach, end)
    assert main["program"] == "jit_train_step(0)" and device["device"] == "/device:GPU:0"
    assert abs(device["window_us"] * 1000 - (hi - lo)) < 1 and abs(device["busy_us"] * 1000 - busy) < 1
    assert device["share"] > 3 * summary["trace"]["busy"][0]["share"]
    assert "device busy from jit_train_step(0)'s first kernel to its last: GPU:0" in format_summary(summary)


def test_each_step_says_how_busy_each_device_was_in_it(corpus):
    """XProf's step-time graph: the TensorFlow GPU profile's step, and each device's busy time
    in it, against a sweep of the kernels ProfileData reads inside the step."""
    from jax._src.profiler import ProfileData

    from tui.model.inputs import load_workspace
    from tui.model.summary import summarize

    path = corpus / "traces" / "xprof_demo_tf_gpu_multiworker_2020.xplane.pb"
    steps = summarize(load_workspace([path]))["trace"]["steps"]
    (step,) = steps["each"]
    trace = load_trace(path)
    trace.decode_all()
    ((start, end, name),) = trace.steps
    assert (step["name"], step["start_us"], step["duration_us"]) == (name, (start - trace.span[0]) / 1000, (end - start) / 1000)
    work: dict[str, list[tuple[int, int]]] = {}
    own: dict[str, tuple[int, int]] = {}  # a device's own step 0, where it has a step line (GPU:4 and GPU:6 ran theirs 650 ms apart)
    for plane in ProfileData.from_file(str(path)).planes:
        for line in plane.lines:
            if plane.name.startswith("/device:GPU") and line.name.lower().startswith("stream"):
                work.setdefault(plane.name, []).extend((e.start_ns, e.start_ns + e.duration_ns) for e in line.events)
            if line.name == "Steps":
                own.update({plane.name: (e.start_ns, e.start_ns + e.duration_ns) for e in line.events})
    assert len(own) == 2
    busy = {b["device"]: b for b in step["busy"]}
    assert busy.keys() == {device for device, spans in work.items() if spans}
    for device, b in busy.items():
        lo, hi = own.get(device, (start, end))
        assert b["window_us"] == pytest.approx((hi - lo) / 1000)
        assert b["share"] == pytest.approx(clipped_union(work[device], lo, hi) / (hi - lo), abs=1e-9)
    assert all(0.5 < busy[device]["share"] < 1 for device in own)  # each busy in its own step, none idle in another's


def test_the_slowest_steps_say_how_busy_the_device_was_in_each(tmp_path):
    """By hand: a `Steps` line with two steps over a GPU stream (PyTorch's process naming). The
    longer step, 0-100 us, holds 30 us of kernels; the shorter, 100-160 us, 45 us."""
    import json

    from tui.model.inputs import load_workspace
    from tui.model.summary import format_summary, summarize

    def event(name, ts, dur, tid, cat="kernel"):
        return {"ph": "X", "pid": 2, "tid": tid, "name": name, "ts": ts, "dur": dur, "cat": cat}

    path = tmp_path / "steps.json"
    path.write_text(json.dumps({"traceEvents": [
        {"ph": "M", "pid": 2, "name": "process_name", "args": {"name": "python (GPU 0)"}},
        {"ph": "M", "pid": 2, "tid": 7, "name": "thread_name", "args": {"name": "stream 7"}},
        {"ph": "M", "pid": 2, "tid": 1, "name": "thread_name", "args": {"name": "Steps"}},
        event("1", 0, 100, 1, "step"), event("2", 100, 60, 1, "step"),
        event("gemm", 10, 30, 7), event("add", 110, 45, 7)]}))
    summary = summarize(load_workspace([path]))
    steps = summary["trace"]["steps"]["each"]
    assert [(s["name"], s["duration_us"], [(b["device"], b["busy_us"], b["window_us"]) for b in s["busy"]]) for s in steps] == [
        ("1", 100.0, [("python (GPU 0)", 30.0, 100.0)]), ("2", 60.0, [("python (GPU 0)", 45.0, 60.0)])]
    assert "  slowest steps: 1 at 0 ns took 100 us (busy: python (GPU 0) 30.0%); 2 at 100 us took 60 us (busy: python (GPU 0) 75.0%)\n" in format_summary(summary)
