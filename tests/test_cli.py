"""The command line: --help without JAX, --summary (text and JSON), and one clear line for bad input."""

from __future__ import annotations

import gzip
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import FIXTURES, REPO, TerminalOutput

from tui.model.capture_manifest import CAPTURE_MANIFEST
from tui.model.cost import op_cost


def run(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess:
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    return subprocess.run([sys.executable, "-m", "tui", *args], capture_output=True, text=True, cwd=cwd, env=env, timeout=300)


def test_a_folder_closed_to_the_user_is_said_to_be(tmp_path):
    """A folder that may not be listed, or a file in one that may not be looked inside: one
    line that says so (it was a PermissionError for a capture manifest never there)."""
    import shutil

    closed = tmp_path / "closed"
    closed.mkdir()
    (closed / "mlp.hlo").write_bytes((FIXTURES / "mlp.hlo").read_bytes())
    closed.chmod(0)
    as_user = []  # root reads any folder: without the capabilities that let it, as a user would
    if os.geteuid() == 0:
        if shutil.which("setpriv") is None:
            pytest.skip("running as root, and no setpriv to drop the capabilities that ignore permissions")
        as_user = ["setpriv", "--bounding-set=-dac_override,-dac_read_search"]
    try:
        for target, problem in ((closed, "cannot open the folder: Permission denied"),
                                (closed / "mlp.hlo", "cannot reach it: Permission denied")):
            result = subprocess.run([*as_user, sys.executable, "-m", "tui", "--summary", str(target)],
                                    capture_output=True, text=True, cwd=REPO, timeout=120)
            _one_line_error(result, str(target), problem)
    finally:
        closed.chmod(0o755)


def test_help_answers_without_importing_jax():
    probe = ("import sys, tui.cli\n"
             "try:\n    tui.cli.main(['--help'])\nexcept SystemExit:\n    pass\n"
             "print('JAX' if 'jax' in sys.modules else 'NOJAX', 'TEXTUAL' if 'textual' in sys.modules else 'NOTEXTUAL')")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60).stdout
    assert "usage: xla-tui" in out and "NOJAX NOTEXTUAL" in out


def test_summary_json_of_a_dump_with_its_profile():
    result = run("--summary", "--json", str(FIXTURES / "transformer"))
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["main_module"] == "module_0014.jit_train_step"
    main = next(m for m in summary["modules"] if m["label"] == summary["main_module"])
    assert set(main) >= {"name", "file", "computations", "instructions", "peak_memory_bytes", "peak_memory_source"}
    assert main["name"] == "jit_train_step" and main["instructions"] > 500
    # XLA's own live-range file is the truth for the peak, and the summary says so
    live_range = next((FIXTURES / "transformer").glob("module_0014*live-range.txt")).read_text()
    assert f"cumulative: {main['peak_memory_bytes']} bytes" in live_range
    assert main["peak_memory_source"] == "XLA live-range file"
    assert summary["trace"]["events"] > 100 and summary["trace"]["tracks"] >= 1 and summary["trace"]["span_us"] > 0
    # The CPU profile's op events are the module's instructions; their time is split among them
    from tui.model.workspace import read_hlo

    module = read_hlo(Path(main["file"]))
    ops = summary["trace"]["top_ops"]
    assert ops and all(module.instruction(op["name"]) is not None for op in ops)
    assert [op["total_us"] for op in ops] == sorted((op["total_us"] for op in ops), reverse=True)
    assert 0 < sum(op["share"] for op in ops) <= 1
    categories = summary["trace"]["op_categories"]  # all the ops' time, by their instructions' category
    assert abs(sum(c["share"] for c in categories) - 1) < 1e-9 and {"matmul", "loop fusion"} <= {c["name"] for c in categories}
    dots = sum(op["total_us"] for op in ops if module.instruction(op["name"]).opcode == "dot")
    assert all(op["flops_per_s"] > 0 for op in ops if module.instruction(op["name"]).opcode == "dot")
    moved = [op_cost(module.instruction(op["name"])).bytes_accessed for op in ops]  # XLA's cost model's bytes
    assert all(op["bytes_per_s"] == pytest.approx(b * op["count"] / (op["total_us"] / 1e6)) for op, b in zip(ops, moved) if b > 0)
    assert next(c["total_us"] for c in categories if c["name"] == "matmul") >= dots > 0
    scopes = summary["trace"]["op_scopes"]  # all of it again, by JAX name scope where those part
    assert scopes["depth"] == 2 and abs(sum(c["share"] for c in scopes["scopes"]) - 1) < 1e-9
    layers = {c["name"] for c in scopes["scopes"]}  # examples/transformer.py's named scopes, forward and backward
    assert {"jit(train_step)/jvp(layer0)", "jit(train_step)/transpose(jvp(layer1))"} <= layers
    # and by the line of Python each op came from (its metadata's innermost stack frame)
    sources = {c["name"]: c["total_us"] for c in summary["trace"]["op_sources"]}
    expected: dict[str, float] = {}
    for op in ops:
        source = module.instruction(op["name"]).source
        key = f"{source[0]}:{source[1]}" if source else "(no source line)"
        expected[key] = expected.get(key, 0.0) + op["total_us"]
    assert all(sources[key] >= total - 1e-6 for key, total in expected.items())  # top ops are some of the ops
    assert abs(sum(sources.values()) - sum(c["total_us"] for c in categories)) < 1e-6
    assert "examples/transformer.py:57" in sources
    assert summary["warnings"] == [] or all(isinstance(w, str) for w in summary["warnings"])
    assert summary["errors"] == []


def test_summary_says_why_a_module_before_optimizations_has_no_peak():
    """No schedule, no program order: the peak is not guessed, and the summary says why."""
    before = FIXTURES / "transformer" / "module_0014.jit_train_step.before_optimizations.txt"
    row = json.loads(run("--summary", "--json", str(before)).stdout)["modules"][0]
    assert row["scheduled"] is False and row["peak_memory_bytes"] is None and row["instructions"] > 100
    assert "peak unknown (not scheduled" in run("--summary", str(before)).stdout
    after = json.loads(run("--summary", "--json", str(FIXTURES / "mlp.hlo")).stdout)["modules"][0]
    assert after["scheduled"] is True and after["peak_memory_bytes"] > 0


def test_summary_into_a_closed_pipe_ends_quietly():
    """`xla-tui --summary … | head`: the reader leaves early; no traceback, status 0."""
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    proc = subprocess.Popen([sys.executable, "-m", "tui", "--summary", str(FIXTURES / "transformer")], cwd=REPO, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()  # the reader is gone before anything is written
    stderr = proc.communicate(timeout=300)[1].decode()
    assert proc.returncode == 0 and "Traceback" not in stderr and "Broken pipe" not in stderr, stderr


def test_summary_text_of_single_files(tmp_path):
    result = run("--summary", str(FIXTURES / "mlp.hlo"))
    assert result.returncode == 0, result.stderr
    assert "main module: mlp.hlo" in result.stdout and "instructions" in result.stdout
    pb = next((FIXTURES / "sharded").glob("*.hlo.pb"))
    result = run("--summary", "--json", str(pb))
    assert result.returncode == 0, result.stderr
    module = json.loads(result.stdout)["modules"][0]
    text_twin = parse_count(next((FIXTURES / "sharded").glob("*after_optimizations.txt")))
    assert module["instructions"] == text_twin


def parse_count(path: Path) -> int:
    from tui.model.hlo import parse_hlo

    return parse_hlo(path.read_text()).instruction_count


def test_summary_of_real_inputs(corpus):
    result = run("--summary", "--json", str(corpus / "hlo/dumps/ptxla_gpu_sm80"))
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["main_module"] == "module_3879.SyncTensorsGraph.2199"
    assert all(m["peak_memory_bytes"] for m in summary["modules"])
    path = corpus / "traces/xprof_tpu_v6e_inference_4chip.xplane.pb"
    result = run("--summary", "--json", str(path))
    assert result.returncode == 0, result.stderr
    trace = json.loads(result.stdout)["trace"]
    assert trace["events"] > 1000 and trace["tracks"] > 4
    # Devices, peaks and the top ops (XProf's HLO op stats: time on the XLA Ops lines, per op and
    # program) against ProfileData read directly; TPU op events are named by the whole
    # instruction text, and an op's program is the XLA Modules event it started in.
    from collections import Counter

    from jaxlib import _profile_data

    planes = [p for p in _profile_data.ProfileData.from_file(str(path)).planes if p.name.startswith("/device:TPU")]
    assert [d["name"] for d in trace["devices"]] == sorted(p.name for p in planes)
    assert {d["peak_tflops"] for d in trace["devices"]} == {dict(p.stats)["peak_teraflops_per_second"] for p in planes}
    total = Counter()
    for plane in planes:
        runs = [(e.start_ns, e.start_ns + e.duration_ns, e.name) for line in plane.lines if line.name == "XLA Modules"
                for e in line.events]
        for line in (line for line in plane.lines if line.name == "XLA Ops"):
            for event in line.events:  # each op's own device time (its stat), as XProf's op profile adds it up
                program = next((name for a, b, name in runs if a <= event.start_ns < b), None)
                own = dict(event.stats).get("device_duration_ps")
                total[event.name.split(" = ")[0].lstrip("%"), program] += own / 1000 if own is not None else event.duration_ns
    assert len({program for _, program in total}) > 1  # several programs ran
    expected = total.most_common(len(trace["top_ops"]))
    assert [(op["name"], op["program"]) for op in trace["top_ops"]] == [pair for pair, _ in expected]
    assert all(abs(op["total_us"] * 1000 - total[op["name"], op["program"]]) < 1 for op in trace["top_ops"])
    assert abs(trace["top_ops"][0]["share"] - total.most_common(1)[0][1] / sum(total.values())) < 1e-9
    by_program = Counter()
    for (_, program), ns in total.items():
        by_program[program] += ns
    assert [p["name"] for p in trace["programs"]] == [name for name, _ in by_program.most_common()]
    assert [p["total_us"] * 1000 for p in trace["programs"]] == pytest.approx([ns for _, ns in by_program.most_common()], rel=1e-12)
    text = run("--summary", str(path)).stdout
    assert f"XLA op time by program: {by_program.most_common(1)[0][0]} " in text
    # The chip's peaks come from the device planes; each op's rates are shares of them.
    stats = dict(planes[0].stats)
    assert trace["chip"]["peak_flops"] == stats["peak_teraflops_per_second"] * 1e12
    assert trace["chip"]["peak_bytes_per_s"] == stats["peak_hbm_bw_gigabytes_per_second"] * 1e9
    for op in trace["top_ops"]:
        for rate, util, peak in (("flops_per_s", "flops_util", "peak_flops"), ("bytes_per_s", "bandwidth_util", "peak_bytes_per_s")):
            assert op[util] == (None if op[rate] is None else pytest.approx(op[rate] / trace["chip"][peak]))
    assert any(op["bandwidth_util"] for op in trace["top_ops"]) and f"chip: {trace['chip']['name']}, peaks" in text
    # Each op's place on the roofline: FLOPs per byte, and memory bound below the chip's ridge point.
    ridge = trace["chip"]["peak_flops"] / trace["chip"]["peak_bytes_per_s"]
    placed = [op for op in trace["top_ops"] if op["flops_per_s"] and op["bytes_per_s"]]
    assert placed and len(placed) < len(trace["top_ops"])  # the copies have no FLOPs
    for op in trace["top_ops"]:
        if op in placed:
            assert op["flops_per_byte"] == pytest.approx(op["flops_per_s"] / op["bytes_per_s"])
            assert op["bound"] == ("memory" if op["flops_per_byte"] < ridge else "compute")
        elif op["bytes_per_s"]:  # bytes and no FLOPs (a copy): memory-bound, as XProf says
            assert op["flops_per_byte"] == 0.0 and op["bound"] == "memory"
        else:
            assert op["flops_per_byte"] is None and op["bound"] is None
    assert f"[{placed[0]['bandwidth_util']:.1%}]  memory bound" in text


def _one_line_error(result: subprocess.CompletedProcess, *needles: str) -> None:
    assert result.returncode == 2, (result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.stderr and lines[0].startswith("xla-tui: ")
    for needle in needles:
        assert needle in lines[0], lines[0]


def test_bad_inputs_get_one_clear_line(tmp_path):
    _one_line_error(run("--summary", str(tmp_path / "missing.hlo")), "missing.hlo", "no such file")
    (tmp_path / "loop.hlo").symlink_to(tmp_path / "round.hlo")
    (tmp_path / "round.hlo").symlink_to(tmp_path / "loop.hlo")
    _one_line_error(run("--summary", str(tmp_path / "loop.hlo")), "loop.hlo", "a symbolic link loop")
    (tmp_path / "gone.hlo").symlink_to(tmp_path / "removed.hlo")
    _one_line_error(run("--summary", str(tmp_path / "gone.hlo")), "gone.hlo", f"a symbolic link to {tmp_path / 'removed.hlo'}, which does not exist")
    pipe = tmp_path / "pipe.hlo"
    os.mkfifo(pipe)  # opening it to read would wait for a writer for ever
    _one_line_error(run("--summary", str(pipe)), "pipe.hlo", "not a regular file")
    _one_line_error(run("--summary", str(FIXTURES / "mlp.hlo"), "--profile", str(pipe)), "pipe.hlo", "not a regular file")
    _one_line_error(run("--summary", "/dev/zero"), "/dev/zero", "not a regular file")
    empty = tmp_path / "empty.hlo"
    empty.write_text("")
    _one_line_error(run("--summary", str(empty)), "empty.hlo", "empty")
    empty_profile = tmp_path / "host.xplane.pb"
    empty_profile.write_bytes(b"")
    _one_line_error(run("--summary", str(empty_profile)), "host.xplane.pb", "the file is empty")
    binary = tmp_path / "weights.bin"
    binary.write_bytes(bytes(range(256)) * 4)
    _one_line_error(run("--summary", str(binary)), "weights.bin", "binary")
    truncated = tmp_path / "cut.hlo"
    text = (FIXTURES / "mlp.hlo").read_text()
    truncated.write_text(text[: len(text) // 2])
    result = run("--summary", str(truncated))
    _one_line_error(result, "cut.hlo:")
    assert ":" in result.stderr.split("cut.hlo:", 1)[1]  # line:column follow the file name
    not_trace = tmp_path / "config.json"
    not_trace.write_text(json.dumps({"learning_rate": 0.1}))
    _one_line_error(run("--summary", str(not_trace)), "config.json")
    bad_gz = tmp_path / "trace.json.gz"
    bad_gz.write_bytes(gzip.compress(b'{"traceEvents": [')[:-6])
    _one_line_error(run("--summary", str(bad_gz)), "trace.json.gz")
    (tmp_path / "nothing").mkdir()
    _one_line_error(run("--summary", str(tmp_path / "nothing")), "nothing")
    nested = tmp_path / "nested.hlo"  # as deep as Python's stack: a RecursionError's traceback before
    nested.write_text(text.replace("f32[256,64]{1,0} parameter(0)", f"{'(' * 1500}f32[256,64]{{1,0}}{')' * 1500} parameter(0)", 1))
    _one_line_error(run("--summary", str(nested)), "nested.hlo:", "tuple shape nested more than 100 deep")
    deep_json = tmp_path / "deep.json"  # an event's args 5,000 arrays deep: msgspec's RecursionError before
    deep_json.write_text('{"traceEvents": [{"ph": "X", "ts": 0, "dur": 1, "name": "a", "args": {"x": %s1%s}}]}' % ("[" * 5000, "]" * 5000))
    _one_line_error(run("--summary", str(deep_json)), "deep.json", "nested too deeply")
    _one_line_error(run("--summary", str(FIXTURES / "mlp.hlo"), "extra"), "unrecognized arguments: extra")
    _one_line_error(run("--profile-seconds", "soon", str(FIXTURES / "mlp.hlo")), "--profile-seconds", "'soon'")
    script = tmp_path / "train.py"  # none of these runs it
    script.write_text("raise SystemExit('ran')\n")
    for seconds in ("inf", "1e300", "nan", "0"):  # inf and 1e300 were taken, and the profiler's timer raised in the script
        _one_line_error(run("--summary", "--profile-seconds", seconds, str(script)), "--profile-seconds", "at most")
    # an option's prefix is no option: what follows a script stays the script's, however spelled
    _one_line_error(run("--profile-sec", "2", str(script), "--summary"), "unrecognized arguments: --profile-sec")
    _one_line_error(run("--summary", "--profile", str(FIXTURES / "gpu" / "gpu.xplane.pb"), str(script)),
                    "train.py", "--profile goes with an HLO, dump or capture TARGET")
    (tmp_path / "folder.py").mkdir()
    _one_line_error(run("--summary", str(tmp_path / "folder.py")), "folder.py", "is a folder, not a script")
    _one_line_error(run("--summary", "--no-profile", "--profile-python", str(script)),
                    "train.py", "--profile-python: says how to profile, and --no-profile takes no profile")
    (tmp_path / "a_file").touch()
    _one_line_error(run("--summary", "--save", str(tmp_path / "a_file"), str(script)),
                    "a_file", "is a file; a capture is saved to a new or empty folder")
    (tmp_path / "UPPER.PY").mkdir()  # a script by its suffix in any case, as Python runs it
    _one_line_error(run("--summary", str(tmp_path / "UPPER.PY")), "UPPER.PY", "is a folder, not a script")
    # an empty path is the folder xla-tui runs in (any config.json there was read as the trace)
    _one_line_error(run("--summary", ""), "an empty path given")
    _one_line_error(run("--summary", str(FIXTURES / "mlp.hlo"), "--profile", ""), "an empty path given to --profile")


def test_odd_inputs_inside_folders_and_odd_values_get_one_clear_line(tmp_path):
    """Hand-written edge cases around real files: a pipe where a dump or logdir holds a file (it
    waited for a writer for ever), bytes no UTF-8 reader takes in a trace's name, a number past
    a double, a capture manifest with values of the wrong type (tracebacks before), a --profile
    that is no profile (it loaded as one more module); and what the HLO parser passes over is
    said."""
    dump = tmp_path / "dump"
    dump.mkdir()
    os.mkfifo(dump / "module_0001.jit_f.cpu_after_optimizations.txt")
    _one_line_error(run("--summary", str(dump)), "module_0001.jit_f.cpu_after_optimizations.txt", "not a regular file")
    beside = tmp_path / "beside"  # beside a good module, the pipe is one module's error, the rest loads
    shutil.copytree(FIXTURES / "sharded", beside)
    os.mkfifo(beside / "module_0001.jit_f.cpu_after_optimizations.txt")
    loaded = run("--summary", "--json", str(beside))
    assert loaded.returncode == 0 and any("not a regular file" in e for e in json.loads(loaded.stdout)["errors"])
    run_dir = tmp_path / "logdir" / "plugins" / "profile" / "run1"
    run_dir.mkdir(parents=True)
    os.mkfifo(run_dir / "host.xplane.pb")
    _one_line_error(run("--summary", str(tmp_path / "logdir")), "host.xplane.pb", "not a regular file")
    (tmp_path / "huge.json").write_bytes(b'{"traceEvents":[{"ph":"X","pid":1,"tid":1,"ts":1e999,"dur":1,"name":"a"}]}')
    _one_line_error(run("--summary", str(tmp_path / "huge.json")), "huge.json",
                    "a number too large for a double (1e999) at line 1, column 48")
    (tmp_path / "name.json").write_bytes(b'{"traceEvents":[{"ph":"X","pid":1,"tid":1,"ts":1,"dur":2,"name":"a\xffb"}]}')
    odd = run("--summary", "--json", str(tmp_path / "name.json"))  # loads, as a browser reads it
    assert odd.returncode == 0 and json.loads(odd.stdout)["trace"]["events"] == 1
    assert json.loads(odd.stdout)["warnings"] == [
        "name.json: bytes that are not UTF-8 (the first at line 1, column 67) are shown as \ufffd"]
    capture = tmp_path / "capture"
    capture.mkdir()
    for key, value, told in [("dump", None, "'dump' should be a folder's name, not null"),
                             ("exit_status", "0", "'exit_status' should be a whole number, not \"0\""),
                             ("notes", "none", "'notes' should be a list of text"),
                             ("compiled", [{"module": "m", "memory_analysis": {"temp_size_in_bytes": "9"}}],
                              "'compiled' should be a list of {\"module\""),
                             ("format", True, "'format' should be a whole number, not true")]:
        manifest = {"script": "x.py", "exit_status": 0, "dump": "dump", key: value}
        (capture / CAPTURE_MANIFEST).write_text(json.dumps(manifest))  # said as what it should be, not as Python's error
        _one_line_error(run("--summary", str(capture)), CAPTURE_MANIFEST, f"not a capture manifest: {told}")
    _one_line_error(run("--summary", str(FIXTURES / "mlp.hlo"), "--profile", str(FIXTURES / "mlp.hlo")),
                    "mlp.hlo", "--profile takes a profile")
    typo = tmp_path / "typo.hlo"
    typo.write_text((FIXTURES / "mlp.hlo").read_text().replace(" maximum(", " maximumm(", 1))
    summary = json.loads(run("--summary", "--json", str(typo)).stdout)
    assert any("opcode XLA does not know (maximumm)" in w for w in summary["warnings"])


def test_a_file_named_as_another_kind_is_told_as_what_it_is(tmp_path):
    """The reader a file's name picks refuses it in its own words; the line then says what the
    bytes are and what to name them (real files: the GPU xplane and HloProto, HLO text)."""
    hlo_text = (FIXTURES / "mlp.hlo").read_bytes()
    hlo_proto = next((FIXTURES / "gpu").glob("*.hlo.pb"))
    cases = [
        ("trace.json", (FIXTURES / "gpu" / "gpu.xplane.pb").read_bytes(), "(it is an XSpace profile: name it *.xplane.pb)"),
        ("module.hlo", gzip.compress(hlo_text), "(it is gzip-compressed HLO text: gunzip it, and name it *.hlo or *.txt)"),
        ("module.xplane.pb", hlo_proto.read_bytes(), "(it is a serialized HLO module (HloProto): name it *.hlo.pb)"),
        ("module.json", hlo_text, "(it is HLO text: name it *.hlo or *.txt)"),
        ("events.hlo", b'{"traceEvents": []}', "(it is JSON: name it *.json)"),
    ]
    for name, data, told in cases:
        (tmp_path / name).write_bytes(data)
        result = run("--summary", str(tmp_path / name))
        _one_line_error(result, name)
        assert result.stderr.rstrip().endswith(told), result.stderr
    (tmp_path / "empty.json").write_bytes(gzip.compress(b'{"traceEvents": []}'))  # read as it is, whatever its name:
    result = run("--summary", str(tmp_path / "empty.json"))  # its fault is its own, not its name
    _one_line_error(result, "empty.json", "holds no events")
    assert "(it is" not in result.stderr
    (tmp_path / "damaged.xplane.pb").write_bytes((FIXTURES / "gpu" / "gpu.xplane.pb").read_bytes()[:5000])
    result = run("--summary", str(tmp_path / "damaged.xplane.pb"))  # the kind its name says, cut off
    _one_line_error(result, "damaged.xplane.pb")
    assert "(it is" not in result.stderr


def test_running_out_of_a_memory_limit_is_told_as_too_big(tmp_path):
    """Under a memory limit the free-memory check cannot see (`ulimit -v`), a side file too big
    for it (a 1.5 GB live-range file) is one line saying so, exit 2, not `MemoryError`."""
    folder = tmp_path / "dump"
    shutil.copytree(FIXTURES / "transformer", folder)
    os.truncate(next(folder.glob("module_0014*-live-range.txt")), 1500 << 20)
    limit_kib = 1200 << 10  # set by the shell: a preexec_fn would fork this process, which has JAX's threads
    result = subprocess.run(["bash", "-c", f'ulimit -v {limit_kib} && exec "$@"', "bash", sys.executable, "-m", "tui",
                             "--summary", str(folder)], capture_output=True, text=True, timeout=300)
    _one_line_error(result, str(folder), "too big to open here: reading it ran out of the memory this process may use")


def test_a_big_file_of_the_wrong_kind_is_told_at_once(tmp_path):
    """Files named as protos that are not: the byte where the message goes wrong, or protobuf's
    size limit, said before the file is read (3 GiB and 1 GiB sparse files of zeros)."""
    over = tmp_path / "model.pb"
    with open(over, "wb") as f:
        f.truncate(3 << 30)
    _one_line_error(run("--summary", str(over)), "model.pb", "too large for a protobuf message (3.0 GiB")
    zeros = tmp_path / "module.hlo.pb"
    with open(zeros, "wb") as f:
        f.truncate(1 << 30)
    _one_line_error(run("--summary", str(zeros)), "module.hlo.pb", "field number 0 at byte 0")
    cut = tmp_path / "cut.hlo.pb"
    whole = next((FIXTURES / "sharded").glob("*.hlo.pb")).read_bytes()
    cut.write_bytes(whole[: len(whole) // 2])
    result = run("--summary", str(cut))  # where the cut-off field starts, where it would end, where the file does
    _one_line_error(result, "cut.hlo.pb", "cut off: the field at byte 0 runs to byte ", f", past the end at byte {len(cut.read_bytes()):,}")
    runs_to = int(re.search(r"runs to byte ([\d,]+)", result.stderr).group(1).replace(",", ""))
    assert len(cut.read_bytes()) < runs_to <= len(whole)


def test_options_may_follow_a_target_that_is_not_a_script():
    """`xla-tui dump/ --summary --json`: only a script's TARGET takes the arguments after it."""
    before = run("--summary", "--json", str(FIXTURES / "mlp.hlo"))
    after = run(str(FIXTURES / "mlp.hlo"), "--summary", "--json")
    assert before.returncode == after.returncode == 0, after.stderr
    assert json.loads(after.stdout) == json.loads(before.stdout) and json.loads(after.stdout)["modules"]


def test_loading_never_writes_into_the_input_folder(tmp_path):
    folder = tmp_path / "dump"
    shutil.copytree(FIXTURES / "transformer", folder)
    before = sorted((p.relative_to(folder), p.stat().st_mtime_ns) for p in folder.rglob("*"))
    assert run("--summary", str(folder)).returncode == 0
    after = sorted((p.relative_to(folder), p.stat().st_mtime_ns) for p in folder.rglob("*"))
    assert before == after


def test_the_ui_without_a_terminal_says_so_at_once(tmp_path):
    """Piped or run from a job, the UI would draw into the pipe and wait for keys for ever: one
    line instead, before a script target runs."""
    result = run(str(FIXTURES / "mlp.hlo"))
    assert result.returncode == 2 and result.stderr.count("\n") == 1 and "--summary" in result.stderr
    assert result.stdout == ""
    marker = tmp_path / "ran"
    script = tmp_path / "script.py"
    script.write_text(f"open({str(marker)!r}, 'w').close()\n")
    assert run(str(script)).returncode == 2 and not marker.exists()
    # --summary after a script is the script's: said so, and the script does not run
    late = run(str(script), "--summary", "--json")
    assert late.returncode == 2 and late.stderr.count("\n") == 1 and not marker.exists()
    assert "--summary --json after the script is passed to the script" in late.stderr
    assert f"xla-tui --summary --json {script}" in late.stderr
    # a bad input is named first, as the UI would name it
    _one_line_error(run(str(tmp_path / "missing.hlo")), "missing.hlo", "no such file")
    _one_line_error(run(str(tmp_path / "missing.py")), "missing.py", "no such script")
    truncated = tmp_path / "cut.hlo"
    truncated.write_text((FIXTURES / "mlp.hlo").read_text()[:3000])
    result = run(str(truncated))
    _one_line_error(result, "cut.hlo:")
    assert "needs a terminal" not in result.stderr
    # stdin closed (`<&-`): the same line, not a traceback
    closed = subprocess.run(["sh", "-c", f'"{sys.executable}" -m tui "{script}" <&-'], capture_output=True, text=True,
                            cwd=REPO, timeout=300)
    assert closed.returncode == 2 and closed.stderr.count("\n") == 1 and "needs a terminal" in closed.stderr


@pytest.mark.parametrize("flag", ["--json"])
def test_json_needs_summary(flag):
    result = run(flag, str(FIXTURES / "mlp.hlo"))
    assert result.returncode == 2 and "--summary" in result.stderr


@pytest.mark.parametrize("signum", ["SIGTERM", "SIGHUP"])
def test_kill_or_a_closed_ssh_session_hands_the_terminal_back(signum):
    """The UI, told to end by a signal, leaves the alternate screen and mouse reporting (a raw
    exit would leave the user's shell drawing inside them) and exits with 128 + the signal."""
    import pty
    import signal

    main, terminal = pty.openpty()
    env = dict(os.environ, TERM="xterm-256color", COLUMNS="100", LINES="30")
    child = subprocess.Popen([sys.executable, "-m", "tui", str(FIXTURES / "mlp.hlo")], cwd=REPO, env=env,
                             stdin=terminal, stdout=terminal, stderr=terminal, start_new_session=True)
    os.close(terminal)
    out = TerminalOutput(main)
    try:
        out.read_while(lambda: b"Graph" not in out.seen)  # the UI is up
        assert b"\x1b[?1049h" in out.seen, out.seen[-500:]
        child.send_signal(getattr(signal, signum))
        out.read_while(lambda: b"\x1b[?1049l" not in out.seen)
        assert child.wait(timeout=60) == 128 + getattr(signal, signum)
        assert b"\x1b[?1049l" in out.seen and b"Traceback" not in out.seen
    finally:
        child.kill()
        os.close(main)
