"""Profile loading (tui.model.trace) on real profiles: JAX on CPU, and the corpus's traces.

A child process profiles a few train steps of a tiny model twice (two runs of one logdir, each
with its xplane.pb and perfetto_trace.json.gz). The two formats of one run must agree, event
counts are checked against ProfileData and json.load, and the windows, lanes, search and
aggregates against brute force.
"""

from __future__ import annotations

import math

import gzip
import json
import os
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest

from tui.model.errors import InputError
from tui.model.trace import Trace, load_trace
from tui.model.trace_lanes import assign_rows, lane_index, self_times
from tui.model.steps import step_labels, steps
from tui.model.utilization import DeviceTime

PROFILE_SCRIPT = r"""
import sys, time
import jax, jax.numpy as jnp

@jax.jit
def train_step(w, x):
    def loss(w):
        with jax.named_scope("layer"):
            h = jnp.tanh(x @ w["a"])
        return jnp.mean((h @ w["b"]) ** 2)
    value, grads = jax.value_and_grad(loss)(w)
    return jax.tree.map(lambda p, g: p - 0.1 * g, w, grads), value

key = jax.random.PRNGKey(0)
w = {"a": jax.random.normal(key, (256, 1024)), "b": jax.random.normal(key, (1024, 64))}
x = jax.random.normal(key, (512, 256))
w, value = train_step(w, x)
for run in range(2):
    if run:
        time.sleep(1.1)  # run folders are named by the second they start
    with jax.profiler.trace(sys.argv[1], create_perfetto_trace=True):
        for step in range(3):
            with jax.profiler.StepTraceAnnotation("train", step_num=step):
                w, value = train_step(w, x)
        value.block_until_ready()
"""


@pytest.fixture(scope="module")
def logdir(tmp_path_factory) -> Path:
    """A logdir with two runs of a profiled CPU train loop (made in a child process so that the
    test process's JAX settings do not leak into the profile)."""
    out = tmp_path_factory.mktemp("profile")
    env = {k: v for k, v in os.environ.items() if k != "XLA_FLAGS"}
    subprocess.run([sys.executable, "-c", PROFILE_SCRIPT, str(out)], check=True, env=env, timeout=300)
    return out


@pytest.fixture(scope="module")
def runs(logdir) -> list[Path]:
    """The two run folders, oldest first."""
    found = sorted((logdir / "plugins" / "profile").iterdir())
    assert len(found) == 2, found
    return found


@pytest.fixture(scope="module")
def xplane_path(runs) -> Path:
    return next(runs[-1].glob("*.xplane.pb"))


@pytest.fixture(scope="module")
def xtrace(xplane_path) -> Trace:
    return load_trace(xplane_path)


@pytest.fixture(scope="module")
def jtrace(runs) -> Trace:
    return load_trace(runs[-1] / "perfetto_trace.json.gz")


def profile_data_counts(path: Path) -> dict[tuple[str, str], int]:
    """Events per (plane, line), counted by iterating ProfileData directly."""
    from jax._src.lib import _profile_data

    data = _profile_data.ProfileData.from_file(str(path))
    return {(plane.name, line.name): sum(1 for _ in line.events) for plane in data.planes for line in plane.lines}


def json_events(path: Path) -> list[dict]:
    opener = gzip.open if path.name.endswith(".gz") else open
    with opener(path, "rt") as file:
        doc = json.load(file)
    return doc["traceEvents"] if isinstance(doc, dict) else doc


# --- the CPU profile: both formats ---------------------------------------------------------


def test_xplane_event_count_is_exact_before_decoding(xplane_path):
    trace = load_trace(xplane_path)
    assert not any(track.decoded for track in trace.tracks)
    counts = profile_data_counts(xplane_path)
    assert trace.event_count == sum(counts.values()) > 300
    for track in trace.tracks:
        assert track.count == counts[(track.group, track.name)]
    assert len(trace.tracks[0].start_ns) == trace.tracks[0].count
    assert trace.tracks[0].decoded


def test_perfetto_event_count_matches_json_load(runs, jtrace):
    events = json_events(runs[-1] / "perfetto_trace.json.gz")
    assert jtrace.event_count == sum(1 for e in events if e.get("ph") == "X")
    per_thread = defaultdict(int)
    for e in events:
        if e.get("ph") == "X":
            per_thread[(e["pid"], e["tid"])] += 1
    assert sorted(t.count for t in jtrace.tracks) == sorted(per_thread.values())


def test_xplane_and_perfetto_of_one_run_agree(xtrace, jtrace):
    assert xtrace.event_count == jtrace.event_count
    assert xtrace.span == jtrace.span
    jtracks = {(t.group, t.name): t for t in jtrace.tracks}
    assert {(t.group, t.name) for t in xtrace.tracks} == set(jtracks)
    for track in xtrace.tracks:
        other = jtracks[(track.group, track.name)]
        assert track.count == other.count
        np.testing.assert_array_equal(track.start_ns, other.start_ns)
        np.testing.assert_array_equal(track.dur_ns, other.dur_ns)
        np.testing.assert_array_equal(track.depth, other.depth)
        assert [track.event_name(i) for i in range(track.count)] == [other.event_name(i) for i in range(other.count)]


def test_xla_ops_carry_their_hlo_names_and_args(xtrace, jtrace):
    """XLA's CPU thunks are named after their HLO instruction and carry hlo_op / hlo_module."""
    def op_events_of(track):
        return [i for i in range(track.count) if track.event_name(i).startswith(("dot", "fusion", "ynn_fusion"))]

    track = max(xtrace.tracks, key=lambda t: len(op_events_of(t)))  # the thread that runs the ops
    jtrack = next(t for t in jtrace.tracks if (t.group, t.name) == (track.group, track.name))
    op_events = op_events_of(track)
    assert op_events
    for i in op_events[:20]:
        args = track.event_args(i)
        assert args["hlo_op"] == track.event_name(i)
        assert args["hlo_module"] == "jit_train_step"
        assert jtrack.event_args(i)["hlo_op"] == args["hlo_op"]


def test_a_json_traces_step_numbers_are_kept_from_the_load(runs, monkeypatch):
    """The steps' args (their step_num) are kept as the JSON is loaded, so the steps table and
    the summary do not go through the file again for them; other events' args still do."""
    from tui.model import trace_chrome

    trace = load_trace(runs[-1] / "perfetto_trace.json.gz")
    trace.decode_all()
    read = []
    monkeypatch.setattr(trace_chrome, "_decode", lambda *args: read.append(args) or ([], None))
    assert [step.number for step in steps(trace, DeviceTime(trace))] == [0, 1, 2] and read == []
    track = next(t for t in trace.tracks if t.count)
    with pytest.raises(InputError, match="changed since it was loaded"):  # the stubbed read finds no events
        track.event_args(0)
    assert len(read) == 1


def test_steps_and_names_present(xtrace):
    steps = [(t, i) for t, i in xtrace.find("train") if t.event_name(i) == "train"]
    assert len(steps) == 3
    assert [t.event_args(i)["step_num"] for t, i in steps] == [0, 1, 2]
    assert xtrace.groups == ["/host:CPU"]
    assert xtrace.warnings == []


def test_steps_are_the_step_annotations(xtrace, jtrace):
    """`StepTraceAnnotation` events (they carry `step_num`) mark the steps, in both formats."""
    for trace in (xtrace, jtrace):
        trace.decode_all()
        brute = sorted(t.event_span(i) for t, i in trace.find("train") if t.event_name(i) == "train")
        assert [(start, end) for start, end, _ in trace.steps] == brute
        assert len(brute) == 3 and {name for _, _, name in trace.steps} == {"train"}
        # each step's step_num: an int stat in the xplane, a string arg in the JSON
        found = steps(trace, DeviceTime(trace))
        assert [step.number for step in found] == [0, 1, 2]
        assert step_labels(found) == ["train 0", "train 1", "train 2"]  # the steps table's names
    assert xtrace.steps == jtrace.steps
    # names that differ are the labels; repeated names without numbers (or with repeated ones) take places
    one, two = steps(xtrace, DeviceTime(xtrace))[:2]
    assert step_labels([one._replace(name="a"), two._replace(name="b")]) == ["a", "b"]
    assert step_labels([one._replace(number=None), two]) == ["train #1", "train #2"]
    assert step_labels([one, two._replace(number=0)]) == ["train #1", "train #2"]


def test_steps_of_the_devices_step_lines(corpus):
    """XProf's `Steps` lines (a TensorFlow GPU profile: GPU:4 and GPU:6 each ran step 0, 650 ms
    apart) are the steps, named by number; a step is its slowest device's, as XProf's step-time
    graph counts it."""
    trace = load_trace(corpus / "traces" / "xprof_demo_tf_gpu_multiworker_2020.xplane.pb")
    trace.decode_all()
    lines = [t for t in trace.tracks if t.name == "Steps"]
    assert len(lines) == 2 and all(line.count == 1 and line.event_name(0) == "0" for line in lines)
    slowest = max(lines, key=lambda line: int(line.dur_ns[0]))
    assert trace.steps == [(*slowest.event_span(0), "0")]


# --- lanes, windows, search, aggregates against brute force ----------------------------------


def stack_depths(start: list[int], end: list[int]) -> list[int] | None:
    """Nesting depth by a call-stack walk; None if some event overlaps without nesting."""
    stack: list[int] = []
    depths = []
    for s, e in zip(start, end):
        while stack and stack[-1] <= s:
            stack.pop()
        if stack and e > stack[-1]:
            return None
        depths.append(len(stack))
        stack.append(e)
    return depths


def check_rows(track) -> bool:
    """No two events of a row overlap; nested tracks get their stack depth, others the rows of
    holder_rows. Returns whether it was nested."""
    start, end, depth = track.start_ns.tolist(), track.end_ns.tolist(), track.depth.tolist()
    assert start == sorted(start)
    rows = defaultdict(list)
    for s, e, d in zip(start, end, depth):
        rows[d].append((s, e))
    for events in rows.values():
        for (_, e0), (s1, _) in zip(events, events[1:]):
            assert e0 <= s1
    expected = stack_depths(start, end)
    if expected is not None:
        assert depth == expected
        return True
    assert depth == holder_rows(start, end)
    return False


def holder_rows(start: list[int], end: list[int]) -> list[int]:
    """Rows where events overlap without nesting, by brute force over every earlier event: the
    lowest row free at an event's start below the deepest running event holding it whole."""
    placed: list[tuple[int, int, int]] = []  # (start, end, row)
    for s, e in zip(start, end):
        running = [(b, row) for a, b, row in placed if a <= s < b]
        holders = [row for b, row in running if b >= e]
        busy = {row for _, row in running}
        row = max(holders) + 1 if holders else 0
        while row in busy:
            row += 1
        placed.append((s, e, row))
    return [row for _, _, row in placed]


def test_an_event_that_outlives_its_neighbour_leaves_the_calls_in_another_nested_under_it():
    """A [0, 100] and B [50, 1000] overlap without nesting (a Python tracer's call that outlives
    the step it began in): C [200, 900] still nests under B and D [300, 400] under C, with their
    self times; before, C went up to A's free row, above its own parent."""
    start, end = np.array([0, 50, 200, 300]), np.array([100, 1000, 900, 400])
    rows = assign_rows(start, end)
    assert rows.tolist() == [0, 1, 2, 3]
    lanes = lane_index(start, end, rows)
    assert self_times(start, end, lanes.order, lanes.offsets).tolist() == [100, 250, 600, 100]


def test_rows_on_the_cpu_trace(xtrace):
    nested = [check_rows(track) for track in xtrace.tracks]
    assert any(nested)
    assert max(track.lanes for track in xtrace.tracks) >= 3


def test_rows_on_tpu_async_ops(corpus):
    trace = load_trace(corpus / "traces" / "xprof_tpu_v6e_inference_4chip.xplane.pb")
    nested = {(t.group, t.name): check_rows(t) for t in trace.tracks}
    # Async copies overlap one another without nesting: they need rows of their own.
    assert nested[("/device:TPU:0", "Async XLA Ops")] is False
    assert nested[("/device:TPU:0", "XLA Ops")] is True


def windows(trace: Trace, count: int = 25):
    lo, hi = trace.span
    rng = np.random.default_rng(0)
    for _ in range(count):
        a, b = sorted(rng.integers(lo - 1000, hi + 1000, size=2).tolist())
        yield a, b
    yield lo, hi
    yield lo, lo
    yield hi, hi + 10


def test_visible_equals_brute_force(xtrace, corpus):
    tpu = load_trace(corpus / "traces" / "xprof_tpu_v6e_inference_4chip.xplane.pb")
    for trace in (xtrace, tpu):
        for t0, t1 in windows(trace):
            for track in trace.tracks:
                brute = np.flatnonzero((track.start_ns <= t1) & (track.end_ns >= t0))
                np.testing.assert_array_equal(track.visible(t0, t1), brute)


def brute_self_times(track, t0: float = -math.inf, t1: float = math.inf) -> list[int]:
    """Duration minus the durations of events one row down whose nearest container it is; with
    a range, each duration its part inside [t0, t1] (Perfetto's interval intersect)."""
    start, end, depth = track.start_ns.tolist(), track.end_ns.tolist(), track.depth.tolist()
    inside = [max(min(e, t1) - max(s, t0), 0) for s, e in zip(start, end)]
    children = [0] * len(start)
    for k, (s, e, d) in enumerate(zip(start, end, depth)):
        if d == 0:
            continue
        parents = [j for j in range(len(start)) if depth[j] == d - 1 and start[j] <= s]
        if parents:
            j = max(parents, key=lambda j: (start[j], j))
            if end[j] >= e:
                children[j] += inside[k]
    return [part - c for part, c in zip(inside, children)]


def brute_aggregate(tracks, t0, t1, self_of):
    """Per name: count, total, self, min and max over the events inside [t0, t1) for a moment,
    each cut to the range (Perfetto's Slices tab: its interval-intersect table)."""
    rows = defaultdict(list)
    for track in tracks:
        for i in range(track.count):
            s, e = int(track.start_ns[i]), int(track.end_ns[i])
            if s < t1 and (e > t0 or s == e >= t0):  # inside [t0, t1) for a moment, as Perfetto's area selection
                rows[track.event_name(i)].append((max(min(e, t1) - max(s, t0), 0), self_of[id(track)][i]))
    return {
        name: (len(v), sum(d for d, _ in v), sum(x for _, x in v), min(d for d, _ in v), max(d for d, _ in v))
        for name, v in rows.items()
    }


def test_aggregate_equals_brute_force(corpus):
    trace = load_trace(corpus / "traces" / "xprof_tpu_v6e_inference_4chip.xplane.pb")
    tracks = [t for t in trace.tracks if t.group == "/device:TPU:0"]
    self_of = {id(t): brute_self_times(t) for t in tracks}
    for track in tracks:
        assert track.self_ns.tolist() == self_of[id(track)]
    lo, hi = trace.span
    busy = max(tracks, key=lambda t: t.count)
    k = busy.count // 2
    own = (int(busy.start_ns[k]), int(busy.end_ns[k]))  # one event's span: the events touching its edges stay out
    touching = [i for i in range(busy.count) if int(busy.end_ns[i]) == own[0] or int(busy.start_ns[i]) == own[1]]
    assert touching, "the busiest line runs its events back to back"
    for t0, t1 in [(lo, hi), (lo + (hi - lo) // 3, lo + (hi - lo) // 2), (hi + 1, hi + 2), own]:
        stats = trace.aggregate(t0, t1, tracks)
        clipped = {id(t): brute_self_times(t, t0, t1) for t in tracks}
        expected = brute_aggregate(tracks, t0, t1, clipped)
        assert {s.name: (s.count, s.total_ns, s.self_ns, s.min_ns, s.max_ns) for s in stats} == expected
        assert all(s.mean_ns == pytest.approx(s.total_ns / s.count) for s in stats)
        assert [s.total_ns for s in stats] == sorted((s.total_ns for s in stats), reverse=True)


def test_a_range_counts_the_part_of_each_event_inside_it(tmp_path):
    """Hand-written edge case (Perfetto's Slices tab, worked out by hand): a range [20, 70] us
    through an event of [0, 100] with children [10, 30] and [60, 90] counts 50 us of the
    parent, 10 of each child, and the parent's self time there is 30 (it was 100 whole and 50
    self: more than the range itself)."""
    events = [{"ph": "X", "pid": 1, "tid": 1, "ts": ts, "dur": dur, "name": name}
              for name, ts, dur in (("outer", 0, 100), ("inner", 10, 20), ("inner2", 60, 30))]
    path = tmp_path / "nested.json"
    path.write_text(json.dumps(events))
    trace = load_trace(path)
    rows = {row.name: (row.count, row.total_ns, row.self_ns) for row in trace.aggregate(20_000, 70_000)}
    assert rows == {"outer": (1, 50_000, 30_000), "inner": (1, 10_000, 10_000), "inner2": (1, 10_000, 10_000)}
    whole = {row.name: (row.total_ns, row.self_ns) for row in trace.aggregate()}
    assert whole["outer"] == (100_000, 50_000)


def test_aggregate_self_time_on_the_cpu_trace(xtrace):
    track = next(t for t in xtrace.tracks if "train" in (t.event_name(i) for i in range(t.count)))  # Python's thread
    assert track.self_ns.tolist() == brute_self_times(track)
    whole = {s.name: s for s in xtrace.aggregate()}
    assert sum(s.count for s in whole.values()) == xtrace.event_count
    assert whole["train"].count == 3


def test_search_finds_every_match_in_time_order(xtrace):
    tracks, found = xtrace.search("FUSION")
    starts = [int(xtrace.tracks[k].start_ns[i]) for k, i in zip(tracks.tolist(), found.tolist())]
    assert starts == sorted(starts)
    brute = {(k, i) for k, t in enumerate(xtrace.tracks) for i in range(t.count) if "fusion" in t.event_name(i).lower()}
    assert set(zip(tracks.tolist(), found.tolist())) == brute and len(brute) == len(found) > 0
    assert xtrace.search("no event is called this")[1].size == 0


def test_find_equals_brute_force(xtrace):
    found = list(xtrace.find("FUSION"))
    brute = [(t, i) for t in xtrace.tracks for i in range(t.count) if "fusion" in t.event_name(i).lower()]
    assert [(t.name, i) for t, i in found] == [(t.name, i) for t, i in brute]
    assert found
    assert list(xtrace.find("no event is called this")) == []


# --- logdirs and several hosts ----------------------------------------------------------------


def test_logdir_loads_newest_run_and_lists_the_others(logdir, runs):
    trace = load_trace(logdir)
    assert trace.run == runs[-1].name
    assert trace.runs == [runs[-1].name, runs[0].name]
    assert trace.source == "xplane"
    older = load_trace(logdir, run=runs[0].name)
    assert older.event_count == sum(profile_data_counts(next(runs[0].glob("*.xplane.pb"))).values())
    with pytest.raises(InputError, match="no run"):
        load_trace(logdir, run="1999_01_01_00_00_00")
    folder = load_trace(runs[0])  # a run folder itself: its siblings are listed
    assert (folder.run, folder.runs) == (runs[0].name, trace.runs)
    assert folder.event_count == older.event_count


def test_the_summary_of_a_logdir_names_its_run_and_the_others(logdir, runs):
    """`--summary` of a logdir said nothing of which run it read (the timeline's panel did)."""
    from tui.model.inputs import load_workspace
    from tui.model.summary import format_summary, summarize

    summary = summarize(load_workspace([logdir]))
    assert (summary["trace"]["run"], summary["trace"]["runs"]) == (runs[-1].name, [runs[-1].name, runs[0].name])
    assert f"  run {runs[-1].name} (the others, newest first: {runs[0].name})" in format_summary(summary).splitlines()
    alone = summarize(load_workspace([next(runs[0].glob("*.xplane.pb"))]))
    assert alone["trace"]["runs"] == [] and "  run " not in format_summary(alone)


def test_a_logdirs_own_json_files_and_nested_logdirs(runs, tmp_path):
    """A logdir's top often holds a config.json or metrics.json: its run is still the newest
    under plugins/profile (the JSON refused the logdir, or was read as the trace). TensorBoard's
    nested logdirs (`train/`, `eval/`) are runs named by their folder."""
    import shutil

    logdir = tmp_path / "logdir"
    for run in runs:
        shutil.copytree(run, logdir / "plugins" / "profile" / run.name)
    (logdir / "config.json").write_text('{"lr": 0.1}')
    (logdir / "metrics.json").write_text('{"traceEvents": [{"ph": "X", "pid": 1, "tid": 1, "name": "a", "ts": 0, "dur": 1}]}')
    trace = load_trace(logdir)
    assert (trace.run, trace.runs) == (runs[-1].name, [runs[-1].name, runs[0].name])
    assert trace.event_count == load_trace(runs[-1]).event_count and trace.source == "xplane"
    nested = tmp_path / "nested"
    for part, run in zip(("eval", "train"), runs):
        shutil.copytree(run, nested / part / "plugins" / "profile" / run.name)
    (nested / "hparams.json").write_text("{}")
    trace = load_trace(nested)
    assert (trace.run, trace.runs) == (f"train/{runs[-1].name}", [f"train/{runs[-1].name}", f"eval/{runs[0].name}"])
    assert load_trace(nested, run=f"eval/{runs[0].name}").event_count == load_trace(runs[0]).event_count


def test_a_newest_run_that_does_not_read_is_passed_over_with_a_warning(runs, tmp_path):
    """A profiler killed while writing leaves its run cut short: the logdir opens on the newest
    run that reads and says which was passed over and why. Named, or with no run that reads,
    the cut run is still one line of error."""
    import shutil

    profile = tmp_path / "plugins" / "profile"
    for run in runs:
        shutil.copytree(run, profile / run.name)
    cut = profile / "9999_12_31_23_59_59"  # newer than both
    cut.mkdir()
    whole = next(runs[-1].glob("*.xplane.pb")).read_bytes()
    (cut / "host.xplane.pb").write_bytes(whole[: len(whole) // 3])
    trace = load_trace(tmp_path)
    assert trace.run == runs[-1].name and trace.runs[0] == cut.name
    assert trace.event_count == load_trace(runs[-1]).event_count
    warning = trace.warnings[0]
    assert warning.startswith(f"run {cut.name} is newer but could not be read (") and "host.xplane.pb" in warning
    assert warning.endswith(f"run {runs[-1].name} is shown")
    with pytest.raises(InputError, match="host.xplane.pb"):
        load_trace(tmp_path, run=cut.name)
    for run in runs:
        for xplane in (profile / run.name).glob("*.xplane.pb"):
            xplane.write_bytes(b"\x0a\xff")
    with pytest.raises(InputError, match="host.xplane.pb"):  # none reads: the newest's error
        load_trace(tmp_path)


def test_hosts_merge_on_one_time_axis(runs, tmp_path):
    """The two runs' xplanes stand in for two hosts: their profile start times differ by the
    time between the runs, and the later one must be shifted by exactly that."""
    from jax._src.lib import _profile_data

    def start_time(path):
        data = _profile_data.ProfileData.from_file(str(path))
        return dict(data.find_plane_with_name("Task Environment").stats)["profile_start_time"]

    run = tmp_path / "plugins" / "profile" / "2030_01_01_00_00_00"
    run.mkdir(parents=True)
    hosts = []
    for name, src in zip(("host-a", "host-b"), runs):
        path = run / f"{name}.xplane.pb"
        path.write_bytes(next(src.glob("*.xplane.pb")).read_bytes())
        hosts.append(path)
    merged = load_trace(tmp_path)
    alone = [load_trace(path) for path in hosts]
    assert merged.event_count == sum(t.event_count for t in alone)
    assert merged.groups == ["host-a /host:CPU", "host-b /host:CPU"]
    shift = start_time(hosts[1]) - start_time(hosts[0])
    assert shift > 1_000_000_000
    for host, trace, offset in zip(("host-a", "host-b"), alone, (0, shift)):
        for track in trace.tracks:
            same = next(t for t in merged.tracks if (t.group, t.name) == (f"{host} {track.group}", track.name))
            np.testing.assert_array_equal(same.start_ns, track.start_ns + offset)


# --- the corpus ---------------------------------------------------------------------------


def test_tpu_ops_get_op_names_and_devices_their_peaks(corpus):
    path = corpus / "traces" / "xprof_tpu_v6e_inference_4chip.xplane.pb"
    trace = load_trace(path)
    assert trace.event_count == sum(profile_data_counts(path).values())
    ops = next(t for t in trace.tracks if (t.group, t.name) == ("/device:TPU:0", "XLA Ops"))
    names = {ops.event_name(i) for i in range(ops.count)}
    assert "all-reduce" in names and "broadcast.2" in names
    assert not any(" = " in name or name.startswith("%") for name in names)
    args = ops.event_args(0)
    assert args["long_name"].startswith(f"%{ops.event_name(0)} = ")
    assert "device_duration_ps" in args
    assert sorted(trace.devices) == [f"/device:TPU:{i}" for i in range(4)]
    for device in trace.devices.values():
        assert device.device_type == "TPU v6 Lite"
        assert device.peak_teraflops_per_second == 918.0
        assert device.peak_hbm_bw_gigabytes_per_second == pytest.approx(1637.99, abs=0.01)
    assert trace.groups[:4] == [f"/device:TPU:{i}" for i in range(4)]


def test_tf_gpu_allocator_stats_become_counters(corpus):
    from jax._src.lib import _profile_data

    path = corpus / "traces" / "xprof_demo_tf_gpu_multiworker_2020.xplane.pb"
    trace = load_trace(path)
    assert trace.event_count == sum(profile_data_counts(path).values())
    expected = defaultdict(list)
    data = _profile_data.ProfileData.from_file(str(path))
    for line in data.find_plane_with_name("/host:CPU").lines:
        for event in line.events:
            if event.name in ("MemoryAllocation", "MemoryDeallocation"):
                stats = dict(event.stats)
                expected[stats["allocator_name"]].append((round(event.start_ns), stats["bytes_allocated"]))
    counters = {c.name: c for c in trace.counters}
    assert expected
    for allocator, samples in expected.items():
        counter = counters[f"{allocator} bytes_allocated"]
        assert counter.group == "/host:CPU"
        assert sorted(zip(counter.time_ns.tolist(), counter.value.tolist())) == sorted(samples)
    v100 = trace.devices["/device:GPU:0"]
    assert v100.peak_hbm_bw_gigabytes_per_second == pytest.approx(898.048)
    assert v100.peak_teraflops_per_second is None


def test_tpu_allocator_stats_are_a_counter_per_chip(corpus):
    """A TPU runtime's allocation events name no allocator: each chip's (`index_on_host`) is a
    series of its own, as XProf's memory profile keeps them, not four chips' samples in turn."""
    from jax._src.lib import _profile_data

    path = corpus / "traces" / "xprof_tpu_v6e_inference_4chip.xplane.pb"
    trace = load_trace(path)
    trace.decode_all()
    expected = defaultdict(list)
    for plane in _profile_data.ProfileData.from_file(str(path)).planes:
        for line in plane.lines:
            for event in line.events:
                if event.name in ("MemoryAllocation", "MemoryDeallocation"):
                    stats = dict(event.stats)
                    expected[stats["index_on_host"]].append((round(event.start_ns), stats["bytes_allocated"]))
    counters = {c.name: c for c in trace.counters}
    assert len(expected) == 4
    assert "allocator bytes_allocated" not in counters
    for chip, samples in expected.items():
        counter = counters[f"device {chip} allocator bytes_allocated"]
        assert sorted(zip(counter.time_ns.tolist(), counter.value.tolist())) == sorted(samples)


@pytest.mark.parametrize(
    "name",
    [
        "tracelens_jax_rocm_te_fused_attn.xplane.pb",
        "tracelens_jax08_rocm_conv3d_8gpu.xplane.pb",
        "tracelens_jax_rocm_conv_legacy.xplane.pb",
        "tracelens_jax08_rocm_attention.xplane.pb",
    ],
)
def test_rocm_streams_carry_hlo_op_and_module(corpus, name):
    path = corpus / "traces" / name
    trace = load_trace(path)
    assert trace.event_count == sum(profile_data_counts(path).values())
    streams = [t for t in trace.tracks if t.group.startswith("/device:GPU") and t.name.startswith("Stream")]
    assert streams
    tagged = [t.event_args(i) for t in streams for i in range(t.count) if "hlo_op" in t.event_args(i)]
    assert tagged
    assert all(args["hlo_module"].startswith("jit_") for args in tagged)
    for track in trace.tracks:
        check_rows(track)


def test_kineto_chrome_trace(corpus):
    path = corpus / "traces" / "non_xla" / "pytorch_kineto_torch_compile_triton.trace.json.gz"
    events = json_events(path)
    trace = load_trace(path)
    assert trace.source == "chrome"
    assert trace.event_count == sum(1 for e in events if e.get("ph") == "X")
    xs = [e for e in events if e.get("ph") == "X"]
    assert trace.span[0] == min(round(e["ts"] * 1000) for e in xs)
    kernels = [(t, i) for t in trace.tracks for i in range(t.count) if t.event_args(i).get("cat") == "kernel"]
    assert len(kernels) == sum(1 for e in xs if e.get("cat") == "kernel")
    track, i = kernels[0]
    assert "grid" in track.event_args(i)
    assert sum(len(t.instant_ns) for t in trace.tracks) == sum(1 for e in events if e.get("ph") == "i")
    assert len(trace.groups) == len(set(trace.groups))
    for track in trace.tracks:
        check_rows(track)


# --- what the profiler lost -------------------------------------------------------------------


def xspace_file(tmp_path: Path, text: str) -> Path:
    """An XSpace serialized by XLA's own text-proto parser (for edge cases no real file has)."""
    from jax._src.lib import _profile_data

    path = tmp_path / "edge.xplane.pb"
    path.write_bytes(_profile_data.ProfileData.text_proto_to_serialized_xspace(text))
    return path


EDGE_SPACE = """
planes {
  id: 1 name: "/device:GPU:0"
  lines {
    id: 1 name: "Steps" timestamp_ns: 0
    events { metadata_id: 1 offset_ps: 0 duration_ps: 4000000 }
    events { metadata_id: 2 offset_ps: 4000000 duration_ps: 5000000 }
    events { metadata_id: 3 offset_ps: 9000000 duration_ps: 1000000 }
  }
  event_metadata { key: 1 value { id: 1 name: "0" } }
  event_metadata { key: 2 value { id: 2 name: "1" } }
  event_metadata { key: 3 value { id: 3 name: "2" } }
}
planes {
  id: 2 name: "Task Environment"
  stats { metadata_id: 1 uint64_value: 1000000000 }
  stats { metadata_id: 2 uint64_value: 1000010000 }
  stat_metadata { key: 1 value { id: 1 name: "profile_start_time" } }
  stat_metadata { key: 2 value { id: 2 name: "profile_stop_time" } }
}
warnings: "Detected GPU events dropped on host0: Profiler has collected 1000000 driver events and 2000000 device events. 1234 events dropped because activity buffer full."
errors: "CUPTI error: buffer overflow"
"""


def test_dropped_events_and_cut_steps_are_reported(tmp_path):
    trace = load_trace(xspace_file(tmp_path, EDGE_SPACE))
    assert trace.event_count == 3
    text = "\n".join(trace.warnings)
    assert "1234 events dropped" in text
    assert "CUPTI error: buffer overflow" in text
    # The capture lasted 10 us: step '0' starts at its start, step '2' ends at its end.
    assert "step '0' is cut off at the trace start" in text
    assert "step '2' is cut off at the trace end" in text
    assert "step '1'" not in text


def test_lost_data_reaches_the_summary(tmp_path):
    from tui.model.summary import format_summary, summarize
    from tui.model.workspace import Workspace

    trace = load_trace(xspace_file(tmp_path, EDGE_SPACE))
    workspace = Workspace(trace=trace)
    workspace.warnings.extend(trace.warnings)  # as load_workspace does
    summary = summarize(workspace)
    assert summary["trace"]["lost_data"] == trace.warnings and len(trace.warnings) == 4
    text = format_summary(summary)
    assert "data lost or skipped (4 warnings below)" in text
    assert "1234 events dropped" in text


def test_chrome_event_cap_is_reported(runs, monkeypatch):
    import tui.model.trace_chrome as chrome

    path = runs[-1] / "perfetto_trace.json.gz"
    assert not load_trace(path).warnings
    recorded = sum(1 for e in json_events(path) if e.get("ph") == "X")
    monkeypatch.setattr(chrome, "EVENT_CAPS", (recorded,))
    assert any("event cap" in w for w in load_trace(path).warnings)


def test_chrome_phases(tmp_path):
    """Hand-written edge cases: B/E nesting and strays, instants, counters, a cut step."""
    events = [
        {"ph": "M", "pid": 1, "name": "process_name", "args": {"name": "host"}},
        {"ph": "M", "pid": 1, "tid": 7, "name": "thread_name", "args": {"name": "main"}},
        {"ph": "B", "pid": 1, "tid": 7, "ts": 0, "name": "outer", "args": {"a": 1}},
        {"ph": "B", "pid": 1, "tid": 7, "ts": 1, "name": "inner"},
        {"ph": "E", "pid": 1, "tid": 7, "ts": 3, "args": {"b": 2}},
        {"ph": "X", "pid": 1, "tid": 7, "ts": 4, "dur": 1, "name": "leaf"},
        {"ph": "E", "pid": 1, "tid": 7, "ts": 10},
        {"ph": "E", "pid": 1, "tid": 7, "ts": 11},
        {"ph": "B", "pid": 1, "tid": 8, "ts": 2, "name": "never ends"},
        {"ph": "i", "pid": 1, "tid": 7, "ts": 5, "name": "mark", "s": "t"},
        {"ph": "i", "pid": 1, "tid": 7, "ts": 6, "name": "gc", "s": "p"},  # Perfetto: the process's track
        {"ph": "I", "pid": 1, "tid": 8, "ts": 7, "name": "sync", "s": "g"},  # and the trace's own
        {"ph": "C", "pid": 1, "ts": 0, "name": "mem", "args": {"used": 5, "free": 9}},
        {"ph": "C", "pid": 1, "ts": 6, "name": "mem", "args": {"used": 7, "free": 7}},
        {"ph": "C", "pid": 1, "ts": 8, "name": "mem", "args": {"used": "8.5", "free": "none", "note": [1]}},
        {"ph": "X", "pid": 1, "tid": "Steps", "ts": 0, "dur": 2, "name": "0"},
        {"ph": "X", "pid": 1, "tid": "Steps", "ts": 2, "dur": 2, "name": "1"},
        {"ph": "s", "pid": 1, "tid": 7, "ts": 1, "id": 3, "name": "flow"},
        {"ph": "b", "pid": 1, "tid": 7, "ts": 1, "id": 4, "cat": "io", "name": "read"},
        {"ph": "e", "pid": 1, "tid": 7, "ts": 3, "id": 4, "cat": "io", "name": "read"},
        {"pid": 1, "tid": 7, "ts": 6, "dur": 1, "name": "no phase"},  # skipped, and said (it was not)
        {"ph": "", "pid": 1, "tid": 7, "ts": 7, "dur": 1, "name": "empty phase"},
        {},  # as JAX ends its list: nothing to say
    ]
    path = tmp_path / "edge.json"
    path.write_text(json.dumps({"traceEvents": events}))
    trace = load_trace(path)
    assert trace.event_count == 2 + 1 + 1 + 2 + 1  # B/E pairs, the B that never ends, the X leaf, two steps, the async b/e
    main = next(t for t in trace.tracks if t.name == "main")
    assert main.group == "host"
    assert [(main.event_name(i), int(main.start_ns[i]), int(main.dur_ns[i]), int(main.depth[i])) for i in range(3)] == [
        ("outer", 0, 10_000, 0),
        ("inner", 1000, 2000, 1),
        ("leaf", 4000, 1000, 1),
    ]
    assert main.event_args(0) == {"a": 1}
    assert main.event_args(1) == {"b": 2}
    assert main.instant_ns.tolist() == [5000]
    assert [trace.names[i] for i in main.instant_name_id] == ["mark"]
    scoped = {(t.group, t.name): [(int(ns), trace.names[i]) for ns, i in zip(t.instant_ns, t.instant_name_id)]
              for t in trace.tracks if t.name.endswith("instants")}
    assert scoped == {("host", "process instants"): [(6000, "gc")], ("Global", "global instants"): [(7000, "sync")]}
    assert trace.tracks[0].group == "Global"  # the trace's own track first, as Perfetto draws it
    counted = {row.name: (row.count, row.total_ns) for row in trace.aggregate(4000, 6000, instants=True)}
    assert counted["mark"] == (1, 0) and "gc" not in counted and "mark" not in {  # [t0, t1): gc is at 6 us
        row.name for row in trace.aggregate(4000, 6000)}
    assert {row.name: row.count for row in trace.aggregate(6000, 6000, instants=True)}.get("gc") == 1  # a moment
    counters = {c.name: c for c in trace.counters}
    assert counters["mem used"].value.tolist() == [5.0, 7.0, 8.5]  # a number written as a string is read
    assert counters["mem free"].time_ns.tolist() == [0, 6000]
    assert "mem note" not in counters
    assert counters["mem used"].visible(3000, 7000) == slice(0, 2)
    text = "\n".join(trace.warnings)
    assert "1 B events never ended (shown running to the trace's end)" in text
    assert "1 E events without a B" in text
    assert "edge.json: 2 counter values that are not numbers were skipped (2 of 'mem')" in text
    assert "phases not shown were skipped" not in text
    assert "edge.json: 2 events without a phase ('ph') skipped" in text
    read = next(t for t in trace.tracks if t.name == "async io")
    assert (read.group, read.event_name(0), int(read.start_ns[0]), int(read.dur_ns[0])) == ("host", "read", 1000, 2000)
    assert "step '0' is cut off at the trace start" in text
    assert trace.span == (0, 10_000)


def test_chrome_slices_opening_together_nest_in_file_order(tmp_path):
    """As Perfetto nests B/E slices: of those a thread opens at one time, the B first in the
    file is the parent and each later one its child, an E closing the innermost; slices that
    also end together stay so, each with its own args."""
    def event(ph, ts, name="", tid=7, **args):
        return {"ph": ph, "pid": 1, "tid": tid, "ts": ts, "name": name, "args": args}

    events = [
        event("B", 0, "first", n=1), event("B", 0, "second", n=2), event("B", 5, "other", tid=8),
        event("B", 0, "third", n=3), event("E", 10), event("E", 10), event("E", 10), event("E", 9, tid=8),
        event("B", 20, "outer"), event("B", 20, "inner"), event("E", 25), event("E", 30),
    ]
    path = tmp_path / "ties.json"
    path.write_text(json.dumps(events))
    trace = load_trace(path)
    assert trace.event_count == 6
    main = next(t for t in trace.tracks if t.name == "tid 7")
    assert [(main.event_name(i), int(main.start_ns[i]) // 1000, int(main.dur_ns[i]) // 1000, int(main.depth[i]))
            for i in range(main.count)] == [
        ("first", 0, 10, 0), ("second", 0, 10, 1), ("third", 0, 10, 2), ("outer", 20, 10, 0), ("inner", 20, 5, 1)]
    assert [main.event_args(i).get("n") for i in range(3)] == [1, 2, 3]
    assert main.lanes == 3


def test_chrome_slice_that_did_not_end_runs_to_the_trace_end(tmp_path):
    """A B that no E closes is kept, as Perfetto keeps a slice that did not end: it runs to the
    trace's last moment (here a counter sample's, after the last slice ends), nests as its
    times say, counts among the events and says in its args that it did not end."""
    events = [
        {"ph": "B", "pid": 1, "tid": 7, "ts": 0, "name": "outer", "args": {"a": 1}},
        {"ph": "B", "pid": 1, "tid": 7, "ts": 1, "name": "inner"},
        {"ph": "E", "pid": 1, "tid": 7, "ts": 3},
        {"ph": "B", "pid": 1, "tid": 7, "ts": 5, "name": "deeper"},
        {"ph": "X", "pid": 1, "tid": 8, "ts": 2, "dur": 10, "name": "work"},
        {"ph": "C", "pid": 1, "ts": 15, "name": "mem", "args": {"used": 1}},
    ]
    path = tmp_path / "unended.json"
    path.write_text(json.dumps(events))
    trace = load_trace(path)
    main = next(t for t in trace.tracks if t.name == "tid 7")
    assert [(main.event_name(i), int(main.start_ns[i]) // 1000, int(main.end_ns[i]) // 1000, int(main.depth[i]))
            for i in range(main.count)] == [("outer", 0, 15, 0), ("inner", 1, 3, 1), ("deeper", 5, 15, 1)]
    unended = {"did_not_end": "no E event: shown running to the last moment of the trace"}
    assert [main.event_args(i) for i in range(main.count)] == [{"a": 1, **unended}, {}, unended]
    assert trace.span == (0, 15_000)
    assert trace.warnings == ["unended.json: 2 B events never ended (shown running to the trace's end)"]
    from tui.model.summary import summarize
    from tui.model.workspace import Workspace

    assert trace.event_count == summarize(Workspace(trace=trace))["trace"]["events"] == 4


def test_chrome_e_closes_the_slice_it_names_as_perfetto_does(tmp_path):
    """Perfetto's SliceTracker::End closes the innermost open slice of the thread whose category
    (where the E has one; a B without one is not it) and name (where both have one) are the
    E's, not just the innermost: slices left open inside it end where it ended once a later B
    or E comes past that end (MaybeCloseStack); an E that names no open slice is dropped."""
    def event(ph, ts, name="", cat="", tid=7):
        return {"ph": ph, "pid": 1, "tid": tid, "ts": ts, "name": name, "cat": cat}

    events = [
        event("B", 0, "a"), event("B", 1, "b"), event("E", 3, "a"),  # closes a; b stays open
        event("B", 5, "c"), event("E", 6),  # the B at 5 ends b where a ended
        event("B", 10, "d", "x"), event("B", 11, "e"), event("E", 12, cat="x"),  # e has no cat: d closes
        event("E", 13),  # ends e at 12, then finds nothing open: dropped
        event("B", 15, "f"), event("E", 20, "zzz"),  # names nothing open: dropped, f does not end
        {"ph": "X", "pid": 1, "tid": 8, "ts": 0, "dur": 30, "name": "work"},
    ]
    path = tmp_path / "named_ends.json"
    path.write_text(json.dumps(events))
    trace = load_trace(path)
    main = next(t for t in trace.tracks if t.name == "tid 7")
    assert [(main.event_name(i), int(main.start_ns[i]) // 1000, int(main.end_ns[i]) // 1000) for i in range(main.count)] == [
        ("a", 0, 3), ("b", 1, 3), ("c", 5, 6), ("d", 10, 12), ("e", 11, 12), ("f", 15, 30)]
    assert trace.warnings == [
        "named_ends.json: 1 B events never ended (shown running to the trace's end)",
        "named_ends.json: 2 E events without a B (dropped)",
        "named_ends.json: 2 B events cut where a slice around them ended (an E named that slice while they were open)"]


def test_chrome_async_slice_that_did_not_end_runs_to_the_trace_end(tmp_path):
    """An async b (or legacy S) that no e (F) closes is kept, as Perfetto keeps an async slice
    that did not end: it runs to the trace's last moment (here an X's end), counts among the
    events and says in its args that it did not end."""
    events = [
        {"ph": "b", "pid": 1, "tid": 7, "ts": 0, "id": 1, "cat": "io", "name": "read", "args": {"n": 1}},
        {"ph": "b", "pid": 1, "tid": 7, "ts": 1, "id": 2, "cat": "io", "name": "done"},
        {"ph": "e", "pid": 1, "tid": 7, "ts": 4, "id": 2, "cat": "io", "name": "done"},
        {"ph": "S", "pid": 1, "tid": 7, "ts": 5, "id": 3, "cat": "io", "name": "legacy"},
        {"ph": "X", "pid": 1, "tid": 8, "ts": 2, "dur": 18, "name": "work"},
    ]
    path = tmp_path / "unended_async.json"
    path.write_text(json.dumps(events))
    trace = load_trace(path)
    io = next(t for t in trace.tracks if t.name == "async io")
    assert [(io.event_name(i), int(io.start_ns[i]) // 1000, int(io.end_ns[i]) // 1000) for i in range(io.count)] == [
        ("read", 0, 20), ("done", 1, 4), ("legacy", 5, 20)]
    assert [io.event_args(i) for i in range(io.count)] == [
        {"n": 1, "cat": "io", "did_not_end": "no e event: shown running to the last moment of the trace"},
        {"cat": "io"},
        {"cat": "io", "did_not_end": "no F event: shown running to the last moment of the trace"}]
    assert trace.event_count == 4 and trace.span == (0, 20_000)
    assert trace.warnings == ["unended_async.json: 2 async b events never ended (shown running to the trace's end)"]


def test_chrome_parts_beside_the_events_are_named_when_skipped(tmp_path):
    """Catapult's file format also holds Linux ftrace text and CPU profile samples: not shown,
    so said; empty ones are nothing to say. The events load either way, and so do their args."""
    events = [{"ph": "X", "pid": 1, "tid": 2, "ts": 1, "dur": 2, "name": "a", "args": {"k": "v"}}]
    full = tmp_path / "full.json"
    full.write_text(json.dumps({"traceEvents": events, "systemTraceEvents": "# tracer: nop\n  <idle>-0 ...",
                                "samples": [{"cpu": 0, "tid": 2, "ts": 1, "name": "s", "sf": 1, "weight": 1}],
                                "stackFrames": {"1": {"name": "f"}}, "displayTimeUnit": "ns"}))
    empty = tmp_path / "empty.json"
    empty.write_text(json.dumps({"traceEvents": events, "systemTraceEvents": {"events": []}, "samples": []}))
    for path, said in ((full, ["full.json: its systemTraceEvents and samples were skipped (only its traceEvents are shown)"]),
                       (empty, [])):
        trace = load_trace(path)
        assert trace.event_count == 1 and trace.warnings == said
        assert trace.tracks[0].event_args(0) == {"k": "v"}
    from tui.model.summary import format_summary, summarize
    from tui.model.workspace import Workspace

    workspace = Workspace(trace=trace)
    workspace.warnings.extend(trace.warnings)  # as load_workspace does
    assert "trace: 1 event on 1 track over 2 us" in format_summary(summarize(workspace)).splitlines()  # not "1 events"


def test_chrome_async_events_on_a_track_per_category(tmp_path):
    """Async b/e (and the legacy S/F) pair up by category and id (id2 too; an id2.local by process too), nested ones
    one row down, overlapping ones on rows of their own; each category of a process is a track
    after its threads; n is an instant there; an e that closes none is dropped and said, a b
    that none closes runs to the trace's last moment."""
    events = [
        {"ph": "M", "pid": 1, "name": "process_name", "args": {"name": "browser"}},
        {"ph": "X", "pid": 1, "tid": 7, "ts": 0, "dur": 50, "name": "task"},
        {"ph": "b", "pid": 1, "tid": 7, "ts": 0, "id": "0x1", "cat": "net", "name": "fetch", "args": {"url": "a"}},
        {"ph": "b", "pid": 1, "tid": 8, "ts": 2, "id": "0x1", "cat": "net", "name": "dns"},
        {"ph": "b", "pid": 1, "tid": 7, "ts": 3, "id": "0x2", "cat": "net", "name": "fetch"},  # overlaps 0x1
        {"ph": "e", "pid": 1, "tid": 8, "ts": 5, "id": "0x1", "cat": "net", "name": "dns"},
        {"ph": "n", "pid": 1, "tid": 7, "ts": 6, "id": "0x1", "cat": "net", "name": "redirect"},
        {"ph": "e", "pid": 1, "tid": 7, "ts": 10, "id": "0x1", "cat": "net", "args": {"status": 200}},
        {"ph": "e", "pid": 1, "tid": 7, "ts": 12, "id": "0x2", "cat": "net", "name": "fetch"},
        {"ph": "b", "pid": 1, "tid": 7, "ts": 4, "id2": {"local": "0x9"}, "cat": "gpu", "name": "draw"},
        {"ph": "b", "pid": 1, "tid": 7, "ts": 5, "id2": {"local": "0x8"}, "cat": "gpu", "name": "draw"},
        {"ph": "e", "pid": 1, "tid": 7, "ts": 20, "id2": {"local": "0x9"}, "cat": "gpu", "name": "draw"},
        {"ph": "S", "pid": 1, "tid": 7, "ts": 30, "id": 5, "cat": "gpu", "name": "legacy"},
        {"ph": "T", "pid": 1, "tid": 7, "ts": 31, "id": 5, "cat": "gpu", "name": "legacy"},
        {"ph": "F", "pid": 1, "tid": 7, "ts": 40, "id": 5, "cat": "gpu", "name": "legacy"},
        {"ph": "e", "pid": 1, "tid": 7, "ts": 41, "id": 6, "cat": "gpu", "name": "orphan"},
    ]
    path = tmp_path / "async.json"
    path.write_text(json.dumps({"traceEvents": events}))
    trace = load_trace(path)
    assert [(t.group, t.name) for t in trace.tracks] == [("browser", "tid 7"), ("browser", "async gpu"),
                                                         ("browser", "async net")]
    assert trace.event_count == 1 + 3 + 3

    def rows(track):
        return [(track.event_name(i), int(track.start_ns[i]) // 1000, int(track.dur_ns[i]) // 1000, int(track.depth[i]))
                for i in range(track.count)]

    net, gpu = trace.tracks[2], trace.tracks[1]
    assert rows(net) == [("fetch", 0, 10, 0), ("dns", 2, 3, 1), ("fetch", 3, 9, 2)]
    assert net.event_args(0) == {"url": "a", "status": 200, "cat": "net"}
    assert net.instant_ns.tolist() == [6000] and [trace.names[i] for i in net.instant_name_id] == ["redirect"]
    assert rows(gpu) == [("draw", 4, 16, 0), ("draw", 5, 45, 1), ("legacy", 30, 10, 2)]  # 0x8 never ended
    text = "\n".join(trace.warnings)
    assert "1 async b events never ended (shown running to the trace's end)" in text
    assert "1 async e events without a b (dropped)" in text
    assert "skipped (1 'T'; async step" in text


def test_chrome_async_ids_span_processes_unless_local(tmp_path):
    """As Perfetto scopes them: an async `id` or `id2.global` pairs a b and an e written by two
    processes (a request handed from one to the other); an `id2.local` pairs only within one."""
    events = [
        {"ph": "b", "pid": 1, "tid": 1, "ts": 0, "id": "0x7", "cat": "io", "name": "read"},
        {"ph": "e", "pid": 2, "tid": 1, "ts": 3, "id": "0x7", "cat": "io", "name": "read"},
        {"ph": "b", "pid": 1, "tid": 1, "ts": 1, "id2": {"global": "0x8"}, "cat": "net", "name": "send"},
        {"ph": "e", "pid": 2, "tid": 1, "ts": 6, "id2": {"global": "0x8"}, "cat": "net", "name": "send"},
        {"ph": "b", "pid": 1, "tid": 1, "ts": 2, "id2": {"local": "0x9"}, "cat": "net", "name": "mine"},
        {"ph": "e", "pid": 2, "tid": 1, "ts": 4, "id2": {"local": "0x9"}, "cat": "net", "name": "mine"},
    ]
    path = tmp_path / "async_global.json"
    path.write_text(json.dumps(events))
    trace = load_trace(path)
    spans = {(t.name, t.event_name(i), int(t.start_ns[i]), int(t.dur_ns[i])) for t in trace.tracks for i in range(t.count)}
    assert spans == {("async io", "read", 0, 3000), ("async net", "send", 1000, 5000), ("async net", "mine", 2000, 4000)}
    text = "\n".join(trace.warnings)
    assert "1 async b events never ended" in text and "1 async e events without a b" in text


def test_chrome_counter_samples_at_one_time_keep_file_order(tmp_path):
    """Two samples at 1 us, 20 then 5: the later one in the file holds from there (as Perfetto
    keeps them); sorted by value, 20 held."""
    events = [{"ph": "C", "pid": 1, "ts": ts, "name": "live", "args": {"bytes": v}} for ts, v in ((0, 10), (1, 20), (1, 5), (2, 7))]
    path = tmp_path / "counter_tie.json"
    path.write_text(json.dumps(events + [{"ph": "X", "pid": 1, "tid": 1, "ts": 0, "dur": 3, "name": "work"}]))
    counter = load_trace(path).counters[0]
    assert counter.value.tolist() == [10, 20, 5, 7]
    assert counter.value[counter.sample_at(1500)] == 5 and counter.over(1000, 2000).mean == 5


def test_chrome_counter_with_an_id_keeps_its_arg_key(tmp_path):
    """A counter with an id is named as Perfetto names it, `<name> id: <id> <arg key>`, one arg
    or several, so that it is not merged with a counter whose own name is `mem 7`; one without
    an id and with one arg keeps its bare name. Negative values are kept as they are, and so
    are their least and most."""
    def counter(ts, name, args, **more):
        return {"ph": "C", "pid": 1, "ts": ts, "name": name, "args": args, **more}

    events = [
        counter(0, "mem", {"bytes": -5}, id=7), counter(1, "mem", {"bytes": -1500.5}, id=7),
        counter(0, "mem", {"bytes": 3, "count": 2}, id="0x8"),
        counter(0, "mem 7", {"bytes": 9}),
        counter(0, "mem", {"bytes": 1}),
        {"ph": "X", "pid": 1, "tid": 1, "ts": 0, "dur": 3, "name": "work"},
    ]
    path = tmp_path / "counter_ids.json"
    path.write_text(json.dumps(events))
    counters = {c.name: c for c in load_trace(path).counters}
    assert {name: c.value.tolist() for name, c in counters.items()} == {
        "mem": [1], "mem 7": [9], "mem id: 7 bytes": [-5, -1500.5], "mem id: 0x8 bytes": [3], "mem id: 0x8 count": [2]}
    negative = counters["mem id: 7 bytes"]
    assert negative.highest == 0
    assert negative.over(0, 2000)[:4] == (-5, -1500.5, -1500.5, -5)  # first, last, least, most


def test_chrome_threads_of_one_name_in_a_process_are_told_apart(tmp_path):
    """Two threads a process names alike get their tids, as Perfetto's `MainThread 7`; a thread
    of that name in another process keeps its name."""
    events = [{"ph": "M", "pid": pid, "name": "process_name", "args": {"name": "python"}} for pid in (1, 2)]
    events += [{"ph": "M", "pid": pid, "tid": tid, "name": "thread_name", "args": {"name": "MainThread"}}
               for pid, tid in ((1, 5), (2, 7), (2, 8))]
    events += [{"ph": "X", "pid": pid, "tid": tid, "ts": 0, "dur": 1, "name": "work"} for pid, tid in ((1, 5), (2, 7), (2, 8))]
    path = tmp_path / "names.json"
    path.write_text(json.dumps(events))
    assert sorted((t.group, t.name) for t in load_trace(path).tracks) == [
        ("python [pid 1]", "MainThread"), ("python [pid 2]", "MainThread 7"), ("python [pid 2]", "MainThread 8")]


def test_chrome_hosts_named_with_dots_stay_apart(runs, tmp_path):
    """A run folder's per-host Chrome traces named by address: `10.0.0.1.trace.json.gz` is host
    10.0.0.1 (both were `10`, their tracks merged)."""
    run = tmp_path / "plugins" / "profile" / "2030_01_01_00_00_00"
    run.mkdir(parents=True)
    source = next(runs[-1].glob("*.trace.json.gz")).read_bytes()
    for host in ("10.0.0.1", "10.0.0.2"):
        (run / f"{host}.trace.json.gz").write_bytes(source)
    trace = load_trace(tmp_path)
    assert {group.split(" ")[0] for group in trace.groups} == {"10.0.0.1", "10.0.0.2"}
    assert trace.event_count == 2 * load_trace(run / "10.0.0.1.trace.json.gz").event_count


def test_chrome_threads_grouped_however_events_interleave(tmp_path):
    """Events of two threads taking turns in the file, with numbered ids, named ids and ids past
    int64: each thread gets one track holding its events in time order."""
    for tids in ((1, 2), (1, "worker"), (2**64 - 1, 3)):
        events = [{"ph": "X", "pid": 9, "tid": tids[k % 2], "ts": k, "dur": 1, "name": f"e{k}"} for k in range(7)]
        path = tmp_path / "interleaved.json"
        path.write_text(json.dumps(events))
        trace = load_trace(path)
        by_name = {t.name: [t.event_name(i) for i in range(t.count)] for t in trace.tracks}
        named = [tid if isinstance(tid, str) else f"tid {tid}" for tid in tids]
        assert by_name == {named[0]: ["e0", "e2", "e4", "e6"], named[1]: ["e1", "e3", "e5"]}, tids


# --- bad input --------------------------------------------------------------------------------


def one_line_error(path, match: str) -> InputError:
    with pytest.raises(InputError, match=match) as info:
        load_trace(path)
    assert "\n" not in str(info.value)
    assert str(path) in str(info.value)
    return info.value


def test_bad_inputs(tmp_path, runs, xplane_path, corpus):
    one_line_error(tmp_path / "missing.xplane.pb", "no such file")
    gz = (runs[-1] / "perfetto_trace.json.gz").read_bytes()
    (tmp_path / "cut.json.gz").write_bytes(gz[: len(gz) // 2])
    one_line_error(tmp_path / "cut.json.gz", "gzip")
    (tmp_path / "text.json").write_text("this is not JSON")
    one_line_error(tmp_path / "text.json", "not JSON")
    (tmp_path / "other.json").write_text('{"hello": [1, 2]}')
    one_line_error(tmp_path / "other.json", "not a Chrome trace")
    (tmp_path / "list.json").write_text("[1, 2]")
    one_line_error(tmp_path / "list.json", "not a Chrome trace")
    (tmp_path / "empty.json").write_text('{"traceEvents": []}')
    one_line_error(tmp_path / "empty.json", "no events")
    data = xplane_path.read_bytes()
    (tmp_path / "cut.xplane.pb").write_bytes(data[: len(data) // 3])
    one_line_error(tmp_path / "cut.xplane.pb", "not an XSpace")
    one_line_error(corpus / "traces" / "tracelens_jit_forward_3d_conv(15).hlo_proto.pb", "not an XSpace")
    (tmp_path / "empty.xplane.pb").write_bytes(b"")
    one_line_error(tmp_path / "empty.xplane.pb", "the file is empty")
    (tmp_path / "hostname_only.xplane.pb").write_bytes(b"\x22\x01h")  # an XSpace naming a host, with no planes
    one_line_error(tmp_path / "hostname_only.xplane.pb", "the profile holds no events")
    (tmp_path / "logdir" / "plugins" / "profile" / "2024_01_01_00_00_00").mkdir(parents=True)
    one_line_error(tmp_path / "logdir", "no profile here")


def test_damage_deep_in_an_xplane_is_told_by_byte_and_field(tmp_path, xplane_path):
    """A byte flipped inside a plane passes the top-level check and jaxlib's parser only says it
    failed: the walk with the schema's nesting names the byte and the field it lies in."""
    from jax._src.lib import _profile_data

    from tui.model.protowire import field_spans

    data = xplane_path.read_bytes()
    planes = [value for number, value in field_spans(data) if number == 1]
    name = next(value for number, value in field_spans(data, *planes[0]) if number == 2)  # planes[0].name
    bad_name = bytearray(data)
    bad_name[name[1] - 1] = 0xFF  # its last byte: `/host:CP\xff`
    plane, k = next((p, k) for k, p in enumerate(planes) if any(n == 3 for n, _ in field_spans(data, *p)))
    line = next(value for number, value in field_spans(data, *plane) if number == 3)
    event = next(value for number, value in field_spans(data, *line) if number == 4)
    assert data[event[0]] == 0x08  # the event's metadata_id, a varint: made a length-delimited field
    bad_event = bytearray(data)
    bad_event[event[0]] = 0x0A
    for damaged, needle in ((bad_name, f"text that is not UTF-8 at byte {name[1] - 1:,} (in planes[0].name)"),
                            (bad_event, f"(in planes[{k}].lines[0].events[0])")):
        with pytest.raises(RuntimeError):  # what jaxlib says of it: no more than that it failed
            _profile_data.ProfileData.from_serialized_xspace(bytes(damaged))
        (tmp_path / "damaged.xplane.pb").write_bytes(damaged)
        error = one_line_error(tmp_path / "damaged.xplane.pb", "a damaged XSpace profile: ")
        assert str(error).endswith(needle), error


def test_json_errors_say_where(tmp_path, runs):
    """JSON that breaks off or goes wrong is named by line and column (msgspec gives a byte
    offset, or none for a file that ends early); for a .gz, of the decompressed text."""
    text = gzip.decompress((runs[-1] / "perfetto_trace.json.gz").read_bytes())
    lines = text.split(b"\n")
    (tmp_path / "cut.json").write_bytes(text[: len(text) // 2])
    cut = text[: len(text) // 2]
    line, column = cut.count(b"\n") + 1, len(cut) - cut.rfind(b"\n")
    one_line_error(tmp_path / "cut.json", rf"not JSON at line {line}, column {column}: the file ends before the JSON does")
    middle = len(lines) // 2
    bad = b"\n".join(lines[:middle] + [b"{oops" + lines[middle]] + lines[middle + 1:])
    (tmp_path / "bad.json.gz").write_bytes(gzip.compress(bad))
    one_line_error(tmp_path / "bad.json.gz", rf"not JSON at line {middle + 1}, column 2 of the decompressed JSON: .*malformed")
    # cut inside a number (`1e-`: msgspec says malformed) is cut all the same; the same number mid-file is malformed
    (tmp_path / "cut_number.json").write_text('{"traceEvents": [{"ph": "X", "ts": 1e-')
    one_line_error(tmp_path / "cut_number.json", "the file ends before the JSON does")
    (tmp_path / "bad_number.json").write_text('{"traceEvents": [{"ph": "X", "ts": 1e-}, {"ph": "X"}]}')
    one_line_error(tmp_path / "bad_number.json", "malformed: invalid number")


def test_a_file_of_another_kind_is_told_from_its_first_bytes(tmp_path, monkeypatch):
    """A big file that is not a profile is refused on its first bytes, where it goes wrong:
    the readers are made to fail if they get as far as reading a whole file."""
    import tui.model.trace_chrome as chrome
    import tui.model.trace_xplane as xplane

    def read_whole(*args):
        raise AssertionError("read the whole file")

    monkeypatch.setattr(xplane, "_Host", read_whole)
    monkeypatch.setattr(chrome, "_Host", read_whole)
    for name in ("zeros.json", "zeros.xplane.pb"):
        with open(tmp_path / name, "wb") as f:
            f.truncate(64 << 20)  # 64 MiB of zeros (sparse)
    one_line_error(tmp_path / "zeros.json", r"not JSON at line 1, column 1: a Chrome trace starts with '\{' or '\[', not b'\\x00'")
    one_line_error(tmp_path / "zeros.xplane.pb", "not an XSpace profile: field number 0 at byte 0")
    (tmp_path / "log.json.gz").write_bytes(gzip.compress(b"\n\n  Traceback (most recent call last):\n" * 1000))
    one_line_error(tmp_path / "log.json.gz", "not JSON at line 3, column 3 of the decompressed JSON: .* not b'T'")
    (tmp_path / "plain.json.gz").write_bytes(b"# not compressed, not JSON")
    error = one_line_error(tmp_path / "plain.json.gz", "not JSON at line 1, column 1: ")
    assert "decompressed" not in str(error)
    (tmp_path / "bad.xplane.pb").write_bytes(b"\x0a\x02ab\x12\x09short")  # a plane, then a cut-off string
    one_line_error(tmp_path / "bad.xplane.pb", "not an XSpace profile: cut off: the field at byte 4 runs to byte 15, past the end at byte 11")


def test_a_profile_too_big_for_free_memory_is_refused(monkeypatch, runs, xplane_path):
    """What loading needs is worked out from the file's size before it is read: with less
    memory free than that, one line says so; with enough, the same file loads."""
    import tui.model.memory_room as room

    import tui.model.trace_chrome as chrome

    gz = runs[-1] / "perfetto_trace.json.gz"
    json_size = len(gzip.decompress(gz.read_bytes()))
    assert json_size > gz.stat().st_size * room.GZIP_RATIO  # the estimate from its size is a lower bound
    for path, need in ((xplane_path, xplane_path.stat().st_size * room.XPLANE_FACTOR),
                       (gz, json_size * room.JSON_FACTOR)):
        monkeypatch.setattr(room, "available_memory", lambda: need - 1)
        monkeypatch.setattr(chrome, "available_memory", lambda: need - 1)
        one_line_error(path, r"too big to open here: it (needs|expands to more than [\d.]+ [KMG]iB of JSON, which needs) "
                             r"about [\d.]+ [KMG]iB of memory,? and [\d.]+ [KMG]iB is free")
        monkeypatch.setattr(room, "available_memory", lambda: need)
        monkeypatch.setattr(chrome, "available_memory", lambda: need)
        assert load_trace(path).event_count > 0


def test_a_gzip_that_expands_past_free_memory_is_refused_as_it_expands(monkeypatch, tmp_path):
    """A small gzip can expand a thousandfold (a gzip bomb): its size said it fits, but it is
    inflated only as far as free memory allows, then refused in one line."""
    import tui.model.trace_chrome as chrome

    bomb = tmp_path / "bomb.json.gz"
    event = b'{"name": "step", "ph": "X", "ts": 0, "dur": 1, "pid": 1, "tid": 1}'
    bomb.write_bytes(gzip.compress(b'{"traceEvents": [' + event + b" " * (64 << 20) + b"]}", compresslevel=9))
    assert bomb.stat().st_size < 100_000
    free = 12 << 20  # enough for the estimate from its size; the JSON is 64 MiB
    monkeypatch.setattr(chrome, "available_memory", lambda: free)
    inflated = []
    real = chrome.zlib.decompressobj

    class Counting:
        def __init__(self, **kwargs):
            self.inner = real(**kwargs)

        def decompress(self, data, most=0):
            out = self.inner.decompress(data, most)
            inflated.append(len(out))
            return out

        def __getattr__(self, name):
            return getattr(self.inner, name)

    monkeypatch.setattr(chrome.zlib, "decompressobj", Counting)
    one_line_error(bomb, r"too big to open here: it expands to more than 4\.0 MiB of JSON")
    assert max(inflated) <= free // 3 + 1  # stopped as soon as it passed the room, not inflated whole
    monkeypatch.setattr(chrome, "available_memory", lambda: 1 << 30)
    assert load_trace(bomb).event_count == 1  # with room, the same file loads


def test_a_bare_event_list_may_leave_out_its_closing_bracket(tmp_path, runs, jtrace):
    """The trace event format's array form: `[` event, event, ... with the `]` optional (what
    a process that died while tracing leaves). The real profile's events, written so, load
    whole, args included."""
    events = json_events(runs[-1] / "perfetto_trace.json.gz")
    path = tmp_path / "open.json"
    path.write_text("[" + ",\n".join(json.dumps(e) for e in events) + ",\n")
    trace = load_trace(path)
    assert trace.event_count == jtrace.event_count and len(trace.tracks) == len(jtrace.tracks)
    tracks = {(t.group, t.name): t for t in trace.tracks}
    with_args = [(t, i) for t in jtrace.tracks for i in range(t.count) if t.event_args(i)][:50]
    assert with_args and all(tracks[t.group, t.name].event_args(i) == t.event_args(i) for t, i in with_args)


def test_fields_of_another_json_type_are_read_as_perfetto_reads_them(tmp_path, runs, jtrace):
    """The real profile's events rewritten the way other writers slip (times and ids as strings
    or floats, a number for a name, null for a field left out): the typed decoder refuses such a
    file; it loads as the original did, args lined up, with a line saying what was read so.
    Entries that cannot be events (no time, not an object, a phase that is no string) are
    skipped, counted and their args do not shift the others'."""
    events = json_events(runs[-1] / "perfetto_trace.json.gz")
    complete = [e for e in events if e.get("ph") == "X"]
    for k, event in enumerate(complete):
        event["ts"] = repr(event["ts"])  # "12.5"
        if k % 3 == 0:
            event["dur"] = str(event["dur"])
        if k % 5 == 0:
            event["tid"] = float(event["tid"])
    mixed = [*events[:10], {"ph": "X", "pid": 1, "tid": 1, "ts": "later", "dur": 1, "name": "no time", "args": {"x": 1}},
             [1, 2], {"ph": 7, "name": "no phase"}, {"ph": "X", "pid": 1, "tid": 1, "ts": 0, "dur": 1, "name": None}, *events[10:]]
    path = tmp_path / "odd.json"
    path.write_text(json.dumps({"traceEvents": mixed}))
    trace = load_trace(path)
    assert trace.event_count == jtrace.event_count + 1  # the event named null, as one with no name
    tracks = {(t.group, t.name): t for t in trace.tracks}
    for track in jtrace.tracks:
        other = tracks[track.group, track.name]
        np.testing.assert_array_equal(track.start_ns, other.start_ns)
        np.testing.assert_array_equal(track.dur_ns, other.dur_ns)
    with_args = [(t, i) for t in jtrace.tracks for i in range(t.count) if t.event_args(i)][:50]
    assert with_args and all(tracks[t.group, t.name].event_args(i) == t.event_args(i) for t, i in with_args)
    said = [w.removeprefix("odd.json: ") for w in trace.warnings if w.startswith("odd.json: ")]
    changed = len(complete) + -(-len(complete) // 3) + -(-len(complete) // 5) + 1
    assert said[0].startswith(f"{changed:,} fields of another JSON type than the format's were read as Perfetto reads them")
    assert said[1:] == ["1 event whose ts is not a number was skipped (the first: traceEvents[10])",
                        "1 entry of traceEvents that is not an object was skipped (the first: traceEvents[11])",
                        "1 event whose ph is not a string was skipped (the first: traceEvents[12])"]
    (tmp_path / "numbers.json").write_text('{"traceEvents": [1, 2, 3]}')
    one_line_error(tmp_path / "numbers.json", "JSON but not a Chrome trace: Expected `object`, got `int`")


def test_hlo_module_proto_is_not_an_xspace(tmp_path):
    """A protobuf of another kind, made by XLA: an HloModuleProto of a small jitted function."""
    import jax
    import jax.numpy as jnp

    lowered = jax.jit(lambda x: jnp.sin(x) * 2).lower(jnp.ones((4,)))
    path = tmp_path / "module.pb"
    path.write_bytes(lowered.compiler_ir("hlo").as_serialized_hlo_module_proto())
    one_line_error(path, "not an XSpace")


def test_chrome_flow_events_link_the_slices_they_bind_to(tmp_path):
    """Flow events (v1: `s` starts, `t` steps, `f` ends a flow of one id, cat and name) bind to
    a slice of their thread as Perfetto binds them: `s`/`t` to the innermost slice running at
    their time, `f` with `"bp": "e"` too, a plain `f` to the next slice to start there."""
    from tui.model.links import correlated

    def x(tid, ts, dur, name):
        return {"ph": "X", "pid": 1, "tid": tid, "ts": ts, "dur": dur, "name": name}

    def flow(ph, tid, ts, id, **more):
        return {"ph": ph, "pid": 1, "tid": tid, "ts": ts, "id": id, "cat": "c", "name": "n", **more}

    events = [
        x(1, 0, 10, "outer"), x(1, 2, 3, "launch"), x(1, 20, 5, "later"),
        x(2, 8, 4, "kernel"), x(2, 14, 2, "between"), x(2, 30, 2, "next"),
        x(3, 30, 1, "step"), x(3, 40, 1, "end"),
        flow("s", 1, 3, 7), flow("f", 2, 9, 7, bp="e"),  # launch -> kernel (enclosing)
        flow("s", 1, 21, 8), flow("f", 2, 23, 8),  # later -> next (the next slice to start on thread 2)
        flow("s", 1, 1, 9), flow("t", 3, 30.5, 9), flow("f", 3, 35, 9),  # outer -> step -> end (next slice)
        flow("s", 1, 3, 7, cat="other"),  # another cat: another flow, never ended
        flow("f", 4, 3, 7, bp="e"),  # a thread with no slices: nothing to bind to
    ]
    path = tmp_path / "flows.json"
    path.write_text(json.dumps({"traceEvents": events}))
    trace = load_trace(path)
    assert trace.event_count == 8

    def at(name):
        return next((k, i) for k, t in enumerate(trace.tracks) for i in range(t.count) if t.event_name(i) == name)

    def linked(name):
        return sorted(trace.tracks[k].event_name(i) for k, i in correlated(trace, *at(name)))

    assert linked("launch") == ["kernel"] and linked("kernel") == ["launch"]
    assert linked("outer") == ["step"] and linked("step") == ["end", "outer"] and linked("end") == ["step"]
    assert linked("later") == ["next"]  # a plain `f` binds to the next slice at or after it
    assert linked("next") == ["later"] and linked("between") == []


def test_kineto_flows_join_each_launch_to_its_kernel(corpus):
    """A PyTorch profiler trace draws a flow (`ac2g`) from each kernel launch to its kernel; the
    events it joins share a `correlation` arg, which checks every link."""
    path = corpus / "traces" / "non_xla" / "pytorch_kineto_torch_compile_triton.trace.json.gz"
    raw = json.loads(gzip.decompress(path.read_bytes()))["traceEvents"]
    phases = defaultdict(set)
    for event in raw:
        if event.get("ph") in ("s", "f"):
            phases[event["id"]].add(event["ph"])
    started_and_ended = sum(seen == {"s", "f"} for seen in phases.values())
    trace = load_trace(path)
    links = trace.flow_links()
    pairs = {tuple(sorted([a, b])) for a, partners in links.items() for b in partners}
    assert len(pairs) == started_and_ended > 0
    for a, b in pairs:
        args = [trace.tracks[k].event_args(i) for k, i in (a, b)]
        assert args[0]["correlation"] == args[1]["correlation"]
        assert {trace.tracks[k].name.split()[0] for k, _ in (a, b)} == {"thread", "stream"}


def test_an_xplanes_parsed_data_is_let_go_and_parsed_again_for_stats(tmp_path):
    """ProfileData holds about 7x the file: once every track has decoded and it has not been read
    for a while it can go (the app asks every few seconds), and a later stats read parses the
    file again and gives the same stats; a file changed since the load gets one clear error
    instead of stats read from the wrong events."""
    import shutil

    from conftest import FIXTURES

    path = tmp_path / "host.xplane.pb"
    shutil.copy(FIXTURES / "transformer" / "profile" / "host.xplane.pb", path)
    trace = load_trace(path)
    track = max(trace.tracks, key=lambda t: t.count)
    source = track.decode().args_of._source  # the file's ProfileData, shared by its tracks
    some = [i for i in range(track.count) if track.event_args(i)][:5]
    before = [track.event_args(i) for i in some]
    assert before and not trace.let_go_idle(0.0) and source.parsed  # other tracks are still to decode
    trace.decode_all()
    assert not trace.let_go_idle(60.0) and source.parsed  # read just now
    assert trace.let_go_idle(0.0) and not source.parsed
    assert [track.event_args(i) for i in some] == before and source.parsed
    assert trace.let_go_idle(0.0) and not source.parsed
    path.write_bytes(path.read_bytes() + b"\0")
    with pytest.raises(InputError, match="changed since it was loaded"):
        track.event_args(some[0])


def test_the_summary_names_the_slowest_steps(xplane_path, xtrace):
    """Each step's time from the trace's steps; the slowest named first, with where it starts.
    A CPU profile has no devices: no busy shares."""
    from tui.model.inputs import load_workspace
    from tui.model.summary import format_summary, summarize
    from tui.model.timescale import format_ns

    summary = summarize(load_workspace([xplane_path]))
    steps = summary["trace"]["steps"]
    xtrace.decode_all()
    origin = xtrace.span[0]
    assert [(s["start_us"], s["duration_us"], s["busy"]) for s in steps["each"]] == [
        ((start - origin) / 1000, (end - start) / 1000, []) for start, end, _ in xtrace.steps]
    assert [s["step_num"] for s in steps["each"]] == [0, 1, 2]  # the script's, in time order
    slowest = sorted(((start, end, n) for n, (start, end, _) in enumerate(xtrace.steps)), key=lambda step: step[0] - step[1])
    expected = "; ".join(f"train {n} at {format_ns(start - origin, 4)} took {format_ns(end - start, 4)}" for start, end, n in slowest)
    assert f"  slowest steps: {expected}\n" in format_summary(summary)


def test_free_memory_is_the_kernels_or_a_containers_if_less(tmp_path):
    from tui.model.memory_room import available_memory

    meminfo, cgroup = tmp_path / "meminfo", tmp_path / "cgroup"
    meminfo.write_text("MemTotal:       32000000 kB\nMemFree:         1000000 kB\nMemAvailable:   20000000 kB\n")
    assert available_memory(str(meminfo), str(cgroup)) == 20000000 * 1024  # no cgroup files
    cgroup.mkdir()
    (cgroup / "memory.max").write_text("max\n")
    assert available_memory(str(meminfo), str(cgroup)) == 20000000 * 1024  # no limit
    (cgroup / "memory.max").write_text(f"{8 << 30}\n")
    (cgroup / "memory.current").write_text(f"{5 << 30}\n")
    (cgroup / "memory.stat").write_text(f"anon {3 << 30}\nfile {2 << 30}\nkernel 0\n")
    assert available_memory(str(meminfo), str(cgroup)) == 5 << 30  # the limit less what is in use but cache
    assert available_memory(str(tmp_path / "none"), str(cgroup)) == 5 << 30
    assert available_memory(str(tmp_path / "none"), str(tmp_path / "none")) is None


def test_a_json_trace_with_a_byte_order_mark_loads(tmp_path, runs, jtrace):
    """Windows tools write UTF-8's byte order mark first; browsers' trace viewers skip it, and
    so do we: the real profile's JSON with one, plain, gzipped or under a name that does not say
    JSON, loads whole, args included."""
    text = gzip.decompress((runs[-1] / "perfetto_trace.json.gz").read_bytes())
    (tmp_path / "bom.json").write_bytes(b"\xef\xbb\xbf" + text)
    (tmp_path / "bom.json.gz").write_bytes(gzip.compress(b"\xef\xbb\xbf" + text))
    (tmp_path / "bom.trace").write_bytes(b"\xef\xbb\xbf" + text)  # an odd name: told JSON by its first bytes
    for name in ("bom.json", "bom.json.gz", "bom.trace"):
        trace = load_trace(tmp_path / name)
        assert trace.event_count == jtrace.event_count and len(trace.tracks) == len(jtrace.tracks)
        with_args = [(k, i) for k, t in enumerate(jtrace.tracks) for i in range(t.count) if t.event_args(i)][:20]
        assert with_args and all(trace.tracks[k].event_args(i) == jtrace.tracks[k].event_args(i) for k, i in with_args)


def test_bytes_that_are_not_utf8_are_shown_as_replacement_characters(tmp_path, runs, jtrace):
    """A trace written by a tool that puts Latin-1 names in its JSON: as a browser's trace viewer
    reads it, each byte that is not UTF-8 is U+FFFD, and the rest loads as it is, with one
    warning naming the first such byte's line and column (plain and gzipped)."""
    events = json_events(runs[-1] / "perfetto_trace.json.gz")
    named = next(k for k, event in enumerate(events) if event.get("ph") == "X" and event.get("args"))
    events[named] = {**events[named], "name": "@NAME@", "args": {**events[named]["args"], "note": "@ARG@"}}
    text = json.dumps({"traceEvents": events}).encode()
    at = text.index(b'"@NAME@"')
    line, column = text.count(b"\n", 0, at) + 1, at - (text.rfind(b"\n", 0, at) + 1) + 5  # from 1, past `"caf`
    text = text.replace(b"@NAME@", b"caf\xe9 step").replace(b"@ARG@", b"\xff\xfe")
    (tmp_path / "latin1.json").write_bytes(text)
    (tmp_path / "latin1.json.gz").write_bytes(gzip.compress(text))
    for name in ("latin1.json", "latin1.json.gz"):
        trace = load_trace(tmp_path / name)
        assert trace.event_count == jtrace.event_count and len(trace.tracks) == len(jtrace.tracks)
        inside = " of the decompressed JSON" if name.endswith(".gz") else ""
        assert [w for w in trace.warnings if "UTF-8" in w] == [
            f"{name}: bytes that are not UTF-8 (the first at line {line}, column {column}{inside}) are shown as \ufffd"]
        found = [(t, i) for t in trace.tracks for i in range(t.count) if t.event_name(i) == "caf\ufffd step"]
        assert len(found) == 1
        track, i = found[0]
        assert track.event_args(i)["note"] == "\ufffd\ufffd"


def test_a_counter_over_a_stretch_of_time_is_what_its_samples_held():
    """The H100 scan fixture's allocator bytes: the sample in force at a time is the last at or
    before it; over a stretch, the first and last value, least, most, mean and count are those
    of Perfetto's Counters tab (counter_selection_aggregator.ts, written out here as a walk over
    the samples): the samples with ts <= end whose value holds until a time >= start (the next
    sample's, the last one's to the end), the mean their values weighted by how long each held
    inside, over the whole stretch; for stretches before the first sample, inside, starting on
    a sample, and running past the last."""
    from conftest import FIXTURES

    trace = load_trace(FIXTURES / "gpu_scan" / "gpu_scan.xplane.pb")
    counter = max(trace.counters, key=lambda c: len(c.time_ns))
    times, values = counter.time_ns.tolist(), counter.value.tolist()
    assert len(times) > 100 and len(set(values)) > 10

    def walk(t0: int, t1: int):
        held = []  # (value, from, to) of each sample Perfetto counts over [t0, t1]
        for k, (t, v) in enumerate(zip(times, values)):
            after = times[k + 1] if k + 1 < len(times) else float("inf")
            if t <= t1 and after >= t0:
                held.append((v, max(t, t0), min(after, t1)))
        if not held:
            return None
        mean = sum(v * max(b - a, 0) for v, a, b in held) / (t1 - t0)
        return held[0][0], held[-1][0], min(v for v, _, _ in held), max(v for v, _, _ in held), mean, len(held)

    stretches = [(times[0] - 10_000, times[0] - 1), (times[10] - 5, times[200] + 3), (times[0] - 10_000, times[50]),
                 (times[-3] + 1, times[-1] + 10**6), (times[300], times[301]), (times[0], times[-1])]
    for t0, t1 in stretches:
        expected, span = walk(t0, t1), counter.over(t0, t1)
        if expected is None:
            assert span is None
            continue
        assert span[:4] == expected[:4] and span.samples == expected[5]
        assert span.mean == pytest.approx(expected[4], rel=1e-12)
    assert counter.sample_at(times[0] - 1) is None
    for k in (0, 7, 300, len(times) - 1):
        last = max(i for i, t in enumerate(times) if t <= times[k])
        assert counter.sample_at(times[k]) == last and counter.sample_at(times[k] + 0.5) == last


def test_a_counter_steps_where_its_value_changes():
    """Left/right on a counter's row go to where it steps: the first sample after a time whose
    value differs from its predecessor's (or the first sample), or the last such before it; the
    value in force at a time was set by the last such at or before it. The H100 scan fixture's
    allocators: bytes allocated change at every sample, bytes reserved stay 0 (a step from the
    first sample finds no other)."""
    from conftest import FIXTURES

    trace = load_trace(FIXTURES / "gpu_scan" / "gpu_scan.xplane.pb")
    repeating = 0
    for counter in trace.counters:
        times, values = counter.time_ns.tolist(), counter.value.tolist()
        changes = [t for j, t in enumerate(times) if j == 0 or values[j] != values[j - 1]]
        repeating += len(changes) < len(times)
        for t in [times[0] - 5, *times[::7], times[-1], times[-1] + 5, (times[0] + times[-1]) / 2]:
            later, earlier = [c for c in changes if c > t], [c for c in changes if c < t]
            assert counter.next_change(t, 1) == (later[0] if later else None)
            assert counter.next_change(t, -1) == (earlier[-1] if earlier else None)
        for k in range(0, len(times), 5):  # the sample that set the value in force there
            setter = max(j for j, t in enumerate(times) if t <= times[k] and (j == 0 or values[j] != values[j - 1]))
            assert counter.set_by(times[k]) == setter
        assert counter.set_by(times[0] - 1) is None
    assert repeating and repeating < len(trace.counters)
