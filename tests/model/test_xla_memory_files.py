"""XLA's buffer-assignment and live-range files, made by JAX on CPU, checked against
`compiled.memory_analysis()`, XLA's HLO printer and XLA's other dump files."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from conftest import CORPUS
from model_functions import MODEL_FUNCTIONS

from tui.model.errors import InputError
from tui.model.xla_memory_files import parse_buffer_assignment, parse_live_range

CORPUS_DUMP = CORPUS / "hlo" / "dumps" / "ptxla_gpu_sm80"

PROGRAMS = textwrap.dedent(
    """
    import json, sys
    import numpy as np
    import jax, jax.numpy as jnp
    from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

    {MODEL_FUNCTIONS}

    def spmd_matmul(a, b):
        return jnp.sin(a @ b).sum(axis=0)

    rng = np.random.default_rng(0)
    f32 = lambda *s: jnp.asarray(rng.standard_normal(s), jnp.float32)
    mesh = Mesh(np.array(jax.devices()[:8]).reshape(4, 2), ("x", "y"))
    sharded = lambda *spec: NamedSharding(mesh, P(*spec))
    programs = {
        "mlp_grad": (jax.jit(jax.grad(mlp_loss), keep_unused=True),
                     ([(f32(64, 128), f32(128)), (f32(128, 32), f32(32))], f32(16, 64), f32(16, 32))),
        "transformer_grad": (jax.jit(jax.value_and_grad(transformer_loss), keep_unused=True),
                             ({k: f32(32, 32) for k in ("wq", "wk", "wv", "wo")}
                              | {"w1": f32(32, 128), "w2": f32(128, 32)}, f32(4, 16, 32))),
        "scan_rnn": (jax.jit(rnn, keep_unused=True, donate_argnums=(2,)), (f32(64, 64), f32(100, 8, 64), f32(8, 64))),
        "spmd_matmul": (jax.jit(spmd_matmul, keep_unused=True, in_shardings=(sharded("x", "y"), sharded("y", None)),
                                out_shardings=sharded(None)),
                        (f32(256, 128), f32(128, 512))),
    }
    out = {}
    for key, (fn, args) in programs.items():
        compiled = fn.lower(*args).compile()
        stats = compiled.memory_analysis()
        leaves = jax.tree.leaves(args)
        shardings = jax.tree.leaves(compiled.input_shardings[0])
        out[key] = {
            "module": compiled.as_text().split("\\n", 1)[0].split()[1].rstrip(","),
            "param_bytes": [int(np.prod(s.shard_shape(x.shape))) * x.dtype.itemsize for s, x in zip(shardings, leaves)],
            "stats": {f: getattr(stats, f) for f in dir(stats) if f.endswith("_in_bytes")},
        }
    json.dump(out, open(sys.argv[1], "w"))
    """
).replace("{MODEL_FUNCTIONS}", MODEL_FUNCTIONS)
PROGRAM_KEYS = ("mlp_grad", "transformer_grad", "scan_rnn", "spmd_matmul")


@pytest.fixture(scope="module")
def dump(tmp_path_factory):
    """A real CPU dump of the four programs plus what JAX says about each compiled executable."""
    root = tmp_path_factory.mktemp("xla_memory")
    (root / "programs.py").write_text(PROGRAMS)
    flags = f"--xla_dump_to={root / 'dump'} --xla_dump_hlo_as_text --xla_force_host_platform_device_count=8"
    env = dict(os.environ, XLA_FLAGS=flags, JAX_PLATFORMS="cpu")
    run = subprocess.run([sys.executable, str(root / "programs.py"), str(root / "stats.json")],
                         env=env, capture_output=True, text=True, timeout=600)
    if run.returncode != 0:
        pytest.fail(f"the JAX program failed:\n{run.stderr[-4000:]}")
    return root / "dump", json.loads((root / "stats.json").read_text())


def after_file(dump_dir: Path, module: str, suffix: str) -> Path:
    (path,) = dump_dir.glob(f"module_*.{module}.cpu_after_optimizations{suffix}")
    return path


def every_module(dump_dir: Path) -> list[str]:
    """Every `<label>.cpu_after_optimizations` prefix in the dump, the JAX helper modules included."""
    return sorted(str(p)[: -len("-live-range.txt")] for p in dump_dir.glob("*-live-range.txt"))


def xla_parameters(hlo_text: str) -> dict[str, tuple[int, str]]:
    """Parameter instruction name -> (number, shape without layout), as XLA's own printer writes them."""
    from jax._src.lib import xla_client

    module = xla_client.hlo.hlo_module_from_text(hlo_text)
    found = {}
    for computation in module.computations():
        for instruction in computation.instructions():
            m = re.fullmatch(r"%?(\S+) = (\S+?)(?:\{[^}]*\})? parameter\((\d+)\).*", instruction.to_string())
            if m:
                found[m[1]] = (int(m[3]), m[2])
    return found


def xla_instruction_names(hlo_text: str) -> set[str]:
    from jax._src.lib import xla_client

    module = xla_client.hlo.hlo_module_from_text(hlo_text)
    return {i.name for c in module.computations() for i in c.instructions()}


# ---------------------------------------------------------------- live ranges


def test_live_range_of_every_module(dump):
    dump_dir, _ = dump
    prefixes = every_module(dump_dir)
    assert len(prefixes) > len(PROGRAM_KEYS)
    for prefix in prefixes:
        text = Path(prefix + "-live-range.txt").read_text()
        report = parse_live_range(Path(prefix + "-live-range.txt"))
        assert len(report.sequence) == report.max_time == int(re.match(r"HloLiveRange \(max (\d+)\)", text)[1])
        cumulative = re.findall(r"\(cumulative: (\d+) bytes\)", text)
        assert report.peak_bytes == int(cumulative[-1]) == sum(size for _, size in report.peak_buffers)
        assert report.peak_time == int(re.search(r"Live ranges at (\d+) \(peak\)", text)[1])
        live_at_peak = {name for name, (start, end) in report.buffers.items() if start <= report.peak_time <= end}
        assert {name for name, _ in report.peak_buffers} == live_at_peak
        assert all(start <= end <= report.max_time for start, end in report.buffers.values())
        roots = [e for e in report.stack_breakdown if e.depth == 0]
        assert sum(e.bytes for e in roots) == report.peak_bytes
        hlo_text = Path(prefix + ".txt").read_text()
        names = xla_instruction_names(hlo_text)
        # JAX 0.11 prints get-tuple-elements inline (`%t#2`): the file names them, the text does not
        assert set(report.sequence) <= names or re.search(r"%[\w.-]+#\d", hlo_text)
        assert {name.split("{")[0] for name in report.buffers} <= names


def test_peak_buffer_sizes_are_the_assigned_value_sizes(dump):
    dump_dir, _ = dump
    for prefix in every_module(dump_dir):
        report = parse_live_range(Path(prefix + "-live-range.txt"))
        assignment = parse_buffer_assignment(Path(prefix + "-buffer-assignment.txt"))
        sizes = {v.buffer_name: v.size for a in assignment.allocations for v in a.values}
        assert report.peak_buffers
        assert all(sizes[name] == size for name, size in report.peak_buffers)


def test_stack_breakdown_tree_sums_to_its_parents(dump):
    dump_dir, stats = dump
    report = parse_live_range(after_file(dump_dir, stats["scan_rnn"]["module"], "-live-range.txt"))
    tree = report.stack_breakdown
    assert max(e.depth for e in tree) >= 2  # the scan body nests under the while loop
    for i, parent in enumerate(tree):
        children = []
        for entry in tree[i + 1:]:
            if entry.depth <= parent.depth:
                break
            if entry.depth == parent.depth + 1:
                children.append(entry)
        assert parent.bytes == parent.current_bytes + sum(c.bytes for c in children)


# ---------------------------------------------------------------- buffer assignment


@pytest.mark.parametrize("key", PROGRAM_KEYS)
def test_breakdown_equals_memory_analysis(dump, key):
    """PJRT sums the same allocations: entry parameters, maybe-live-out, parameters aliased with
    an output, and preallocated temps, each split by host/device memory space."""
    dump_dir, stats = dump
    expected = stats[key]["stats"]
    assignment = parse_buffer_assignment(after_file(dump_dir, stats[key]["module"], "-buffer-assignment.txt"))
    device, host = assignment.breakdown(), assignment.breakdown(host=True)
    assert device.argument_bytes == expected["argument_size_in_bytes"]
    assert device.output_bytes == expected["output_size_in_bytes"]
    assert device.alias_bytes == expected["alias_size_in_bytes"]
    assert device.temp_bytes == expected["temp_size_in_bytes"]
    assert host.argument_bytes == expected["host_argument_size_in_bytes"]
    assert host.temp_bytes == expected["host_temp_size_in_bytes"]
    assert sum(a.is_temp for a in assignment.allocations) >= 1


@pytest.mark.parametrize("key", PROGRAM_KEYS)
def test_parameter_allocations_are_the_entry_parameters(dump, key):
    dump_dir, stats = dump
    module = stats[key]["module"]
    hlo_text = after_file(dump_dir, module, ".txt").read_text()
    assignment = parse_buffer_assignment(after_file(dump_dir, module, "-buffer-assignment.txt"))
    parameters = sorted((a for a in assignment.allocations if a.is_parameter), key=lambda a: a.parameter)
    # keep_unused=True: every argument, sharded per device for the SPMD program, is a parameter.
    assert [a.size for a in parameters] == stats[key]["param_bytes"]
    printed = xla_parameters(hlo_text)
    for allocation in parameters:
        assert allocation.parameter_index == "{}"
        defined_here = [printed[v.instruction] for v in allocation.values if v.instruction in printed]
        assert (allocation.parameter, allocation.parameter_shape) in defined_here
    header = hlo_text.split("\n", 1)[0]
    aliased = {int(n) for n in re.findall(r"\{[\d,]*\}: \((\d+), \{[\d,]*\}, (?:may|must)-alias\)", header)}
    assert {a.parameter for a in parameters if a.is_output} == aliased
    assert bool(aliased) == (key == "scan_rnn")


def test_allocations_agree_with_xlas_other_reports(dump):
    """Allocation sizes sum to XLA's "Total bytes used" and to the usage report's total per memory space."""
    dump_dir, _ = dump
    for prefix in every_module(dump_dir):
        assignment = parse_buffer_assignment(Path(prefix + "-buffer-assignment.txt"))
        assert [a.index for a in assignment.allocations] == list(range(len(assignment.allocations)))
        for allocation in assignment.allocations:
            assert allocation.values
            assert all(v.offset + v.size <= allocation.size for v in allocation.values)
            assert allocation.kind in ("parameter", "output", "constant", "thread-local", "temp")
        values_text = Path(prefix + "-buffer-assignment-values.txt").read_text()
        total = int(re.search(r"Total bytes used: (\d+)", values_text)[1])
        assert sum(a.size for a in assignment.allocations) == total
        report = Path(prefix + "-memory-usage-report.txt").read_text()
        per_space = re.findall(r"Memory Space: \S+ \(color=(\d+)\)\nTotal bytes: (\d+)", report)
        by_color = {}
        for a in assignment.allocations:
            by_color[a.color] = by_color.get(a.color, 0) + a.size
        assert by_color == {int(c): int(n) for c, n in per_space}


def test_path_and_text_give_the_same_result(dump):
    dump_dir, stats = dump
    path = after_file(dump_dir, stats["transformer_grad"]["module"], "-buffer-assignment.txt")
    from_path, from_text = parse_buffer_assignment(path), parse_buffer_assignment(path.read_text())
    assert from_path.allocations == from_text.allocations
    assert (from_path.path, from_text.path) == (str(path), None)


# ---------------------------------------------------------------- the GPU corpus


def corpus_file(pattern: str) -> Path:
    if not CORPUS_DUMP.is_dir():
        pytest.skip(f"corpus not found at {CORPUS_DUMP}")
    (path,) = CORPUS_DUMP.glob(pattern)
    return path


@pytest.mark.parametrize("module", ["module_0012", "module_3879"])
def test_corpus_gpu_buffer_assignment(module):
    """Older GPU layout: totals, used values and the live ranges all in one file, peak without cumulative bytes."""
    path = corpus_file(f"{module}.*_after_optimizations-buffer-assignment.txt")
    text = path.read_text()
    assignment = parse_buffer_assignment(path)
    assert len(assignment.allocations) == len(re.findall(r"^allocation \d+:", text, re.M))
    assert assignment.total_bytes == int(re.search(r"^Total bytes used: (\d+)", text, re.M)[1])
    assert sum(a.size for a in assignment.allocations) == assignment.total_bytes

    live = assignment.live_range
    assert live is not None
    assert len(live.sequence) == live.max_time
    assert live.peak_time == int(re.search(r"Live ranges at (\d+) \(peak\)", text)[1])
    rows = re.findall(r"^    (\S+): (\d+) bytes$", text.split("(peak):", 1)[1], re.M)
    assert live.peak_buffers == [(name, int(size)) for name, size in rows]
    assert assignment.peak_bytes == sum(int(size) for _, size in rows)
    defined = {name.split("{")[0] for name in live.buffers}
    assert {name for name, _ in live.peak_buffers} <= defined

    hlo_path = corpus_file(f"{module}.*_after_optimizations.txt")
    printed = xla_parameters(hlo_path.read_text())
    parameters = [a for a in assignment.allocations if a.is_parameter]
    assert parameters
    for allocation in parameters:
        defined_here = [printed[v.instruction] for v in allocation.values if v.instruction in printed]
        assert (allocation.parameter, allocation.parameter_shape) in defined_here
    device = assignment.breakdown()
    assert device.argument_bytes == sum(a.size for a in parameters)
    assert device.temp_bytes == sum(a.size for a in assignment.allocations if a.kind == "temp")


def test_corpus_gpu_usage_report_total():
    path = corpus_file("module_3879.*-buffer-assignment.txt")
    report = corpus_file("module_3879.*-memory-usage-report.txt").read_text()
    assert parse_buffer_assignment(path).total_bytes == int(re.search(r"Total bytes used: (\d+)", report)[1])


# ---------------------------------------------------------------- bad input


def corrupt(text: str, find: str, replace: str) -> tuple[str, int]:
    """The text with the first line containing `find` rewritten, and that line's number."""
    lines = text.split("\n")
    index = next(i for i, line in enumerate(lines) if find in line)
    lines[index] = lines[index].replace(find, replace)
    return "\n".join(lines), index + 1


def test_bad_buffer_assignment_lines_are_reported_with_their_number(dump):
    dump_dir, stats = dump
    text = after_file(dump_dir, stats["mlp_grad"]["module"], "-buffer-assignment.txt").read_text()
    for find, replace in [("size=", "size:"), ("allocation 3: size", "allocation 3: bytes"),
                          ("allocation 2:", "allocation 7:")]:
        bad, line = corrupt(text, find, replace)
        with pytest.raises(InputError) as err:
            parse_buffer_assignment(bad)
        assert err.value.line == line
    with pytest.raises(InputError, match="expected 'BufferAssignment:'"):
        parse_buffer_assignment(text.replace("BufferAssignment:", "Buffers:"))
    with pytest.raises(InputError) as err:
        parse_buffer_assignment(Path(dump_dir / "missing-buffer-assignment.txt"))
    assert "cannot read" in str(err.value)


def test_bad_live_range_lines_are_reported_with_their_number(dump):
    dump_dir, stats = dump
    text = after_file(dump_dir, stats["mlp_grad"]["module"], "-live-range.txt").read_text()
    last_cumulative = re.findall(r"\(cumulative: (\d+) bytes\)", text)[-1]
    bad, line = corrupt(text, f"cumulative: {last_cumulative} bytes", f"cumulative: {int(last_cumulative) + 1} bytes")
    with pytest.raises(InputError, match="running sum") as err:
        parse_live_range(bad)
    assert err.value.line == line
    bad, line = corrupt(text, "    3:", "    4:")
    with pytest.raises(InputError, match="expected instruction 3 ") as err:
        parse_live_range(bad)
    assert err.value.line == line
    bad, line = corrupt(text, "  BufferLiveRange:", "  BufferLiveRange")
    with pytest.raises(InputError) as err:
        parse_live_range(bad)
    assert err.value.line == line
    with pytest.raises(InputError, match="HloLiveRange"):
        parse_live_range("")
    # What XLA writes when the analysis is gone (buffer assignment built from a proto).
    with pytest.raises(InputError, match="no live ranges"):
        parse_live_range("HloLiveRange not available (finalized or constructed from proto)")


def test_live_range_sections_from_other_xla_versions(dump):
    dump_dir, stats = dump
    text = after_file(dump_dir, stats["mlp_grad"]["module"], "-live-range.txt").read_text()
    report = parse_live_range(text)
    # A section this parser does not know is skipped; the one it knows still parse.
    extra = text.replace("  BufferLiveRange:", "  FutureSection:\n    a:b\n  BufferLiveRange:")
    assert parse_live_range(extra).buffers == report.buffers
    # The 2025 stack breakdown printed "(pct%, N bytes)" rows without current/remaining.
    old = re.sub(r"total: (\d[\d ]*) bytes, current: [\d ]+ bytes, remaining: [\d ]+ bytes", r"\1 bytes", text)
    entries = parse_live_range(old).stack_breakdown
    def rows(tree):
        return [(e.depth, e.label, e.bytes) for e in tree]

    assert rows(entries) == rows(report.stack_breakdown)
    assert all(e.current_bytes is None for e in entries)
