"""Grouping an --xla_dump_to folder per module, on real JAX CPU dumps and the GPU corpus dump."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from conftest import CORPUS
from model_functions import MODEL_FUNCTIONS

from tui.model.dump import is_dump_folder, scan_dump
from tui.model.inputs import load_workspace
from tui.model.errors import InputError

CORPUS_DUMP = CORPUS / "hlo" / "dumps" / "ptxla_gpu_sm80"

PROGRAMS = textwrap.dedent(
    """
    import jax, jax.numpy as jnp

    {MODEL_FUNCTIONS}

    ones = jnp.ones
    mlp_args = ([(ones((64, 128)), ones(128)), (ones((128, 32)), ones(32))], ones((16, 64)), ones((16, 32)))
    jax.jit(jax.grad(mlp_loss))(*mlp_args)
    jax.jit(jax.grad(mlp_loss)).lower(*mlp_args).compile()  # a second jit object: compiled again, same name
    params = {k: ones((32, 32)) for k in ("wq", "wk", "wv", "wo")} | {"w1": ones((32, 128)), "w2": ones((128, 32))}
    jax.jit(jax.value_and_grad(transformer_loss)).lower(params, ones((4, 16, 32))).compile()
    jax.jit(rnn).lower(ones((16, 16)), ones((10, 4, 16)), ones((4, 16))).compile()
    """
).replace("{MODEL_FUNCTIONS}", MODEL_FUNCTIONS)


def make_dump(root: Path, flags: str) -> Path:
    (root / "programs.py").write_text(PROGRAMS)
    env = dict(os.environ, XLA_FLAGS=f"--xla_dump_to={root / 'dump'} {flags}", JAX_PLATFORMS="cpu")
    run = subprocess.run([sys.executable, str(root / "programs.py")],
                         env=env, capture_output=True, text=True, timeout=600)
    if run.returncode != 0:
        pytest.fail(f"the JAX program failed:\n{run.stderr[-4000:]}")
    return root / "dump"


@pytest.fixture(scope="module")
def dump_dir(tmp_path_factory) -> Path:
    return make_dump(tmp_path_factory.mktemp("dump"), "--xla_dump_hlo_as_text --xla_dump_hlo_as_proto")


@pytest.fixture(scope="module")
def pass_dump_dir(tmp_path_factory) -> Path:
    """Timestamped names, per-pass dumps, and modules filtered out except for their PJRT folder."""
    flags = ("--xla_dump_hlo_as_text --xla_dump_include_timestamp --xla_dump_hlo_pass_re=.*"
             " --xla_dump_hlo_module_re=jit_rnn")
    return make_dump(tmp_path_factory.mktemp("pass_dump"), flags)


def module_name_in(hlo_text_path: Path) -> str:
    """The module name as XLA printed it on the first line of the HLO text."""
    with open(hlo_text_path) as f:
        return re.match(r"HloModule ([^\s,]+)", f.readline())[1]


def listing(folder: Path) -> dict[str, tuple[int, int]]:
    return {e.name: (e.stat().st_mtime_ns, e.stat().st_size) for e in os.scandir(folder)}


def test_every_module_found_with_its_stages_paired(dump_dir):
    before = listing(dump_dir)
    folder = scan_dump(dump_dir)
    assert listing(dump_dir) == before  # nothing written or touched
    assert folder.warnings == []

    expected = {(int(re.match(r"module_(\d+)\.", p.name)[1]), module_name_in(p))
                for p in dump_dir.glob("*.before_optimizations.txt")}
    assert {(m.number, m.name) for m in folder.modules} == expected
    assert [(m.number, m.name) for m in folder.modules] == sorted(expected)

    for module in folder.modules:
        assert module.platform == "cpu"
        stages = [module.before_text, module.after_text, module.before_pb, module.after_pb,
                  module.buffer_assignment, module.live_range, module.memory_report]
        assert all(p is not None and p.name.startswith(module.label + ".") for p in stages)
        assert all(p.name.startswith(module.label + ".") or p.name == module.label for p in module.other)
        assert module.after_text.name == f"{module.label}.cpu_after_optimizations.txt"
        assert module_name_in(module.after_text) == module.name
        assert module.hlo_path == module.after_text
        assert module.size == module.after_text.stat().st_size
        assert any(p.name.endswith(".debug_options") for p in module.other)

    every_path = sorted(p.name for m in folder.modules for p in m.paths())
    assert every_path == sorted(before)


def test_after_text_is_what_xla_parses(dump_dir):
    from jax._src.lib import xla_client

    for module in scan_dump(dump_dir).modules:
        assert xla_client.hlo.hlo_module_from_text(module.after_text.read_text()).name == module.name


def test_repeated_compiles_are_separate_modules(dump_dir):
    folder = scan_dump(dump_dir)
    grads = [m for m in folder.modules if m.name == "jit_mlp_loss"]
    assert len(grads) == 2 and grads[0].number != grads[1].number


def test_main_module_is_the_largest_optimized_module(dump_dir):
    """With no profile to say what ran, the user's program is the largest optimized module."""
    largest = max(dump_dir.glob("*.cpu_after_optimizations.txt"), key=lambda p: (p.stat().st_size, p.name))
    assert load_workspace([dump_dir]).main.path == largest


def test_main_module_by_name_label_or_number(dump_dir):
    folder = scan_dump(dump_dir)
    rnn = next(m for m in folder.modules if m.name == "jit_rnn")
    for wanted in ("jit_rnn", rnn.label, str(rnn.number), f"{rnn.number:04d}"):
        assert load_workspace([dump_dir], main=wanted).main.label == rnn.label
    grads = [m.label for m in folder.modules if m.name == "jit_mlp_loss"]
    assert load_workspace([dump_dir], main="jit_mlp_loss").main.label in grads
    assert load_workspace([dump_dir], main=grads[0]).main.label == grads[0]
    with pytest.raises(InputError, match="no module matches --main 'jit_nothing'"):
        load_workspace([dump_dir], main="jit_nothing")


def test_is_dump_folder(dump_dir, tmp_path):
    assert is_dump_folder(dump_dir)
    assert not is_dump_folder(tmp_path)
    assert not is_dump_folder(tmp_path / "missing")
    a_file = next(dump_dir.glob("*.before_optimizations.txt"))
    assert not is_dump_folder(a_file)


def test_not_a_dump_folder_is_an_input_error(tmp_path, dump_dir):
    with pytest.raises(InputError, match="empty"):
        scan_dump(tmp_path)
    (tmp_path / "notes.txt").write_text("hello")
    with pytest.raises(InputError, match="not an --xla_dump_to folder"):
        scan_dump(tmp_path)
    with pytest.raises(InputError, match="cannot list"):
        scan_dump(tmp_path / "missing")
    with pytest.raises(InputError, match="cannot list"):
        scan_dump(next(dump_dir.glob("*.before_optimizations.txt")))


def test_timestamped_and_per_pass_dumps(pass_dump_dir):
    folder = scan_dump(pass_dump_dir)
    assert folder.warnings == []
    rnn = next(m for m in folder.modules if m.name == "jit_rnn")
    assert rnn.platform == "cpu"
    assert re.fullmatch(r"\d+\.module_\d+\.jit_rnn\.cpu_after_optimizations\.txt", rnn.after_text.name)
    assert rnn.before_text is not None and rnn.buffer_assignment is not None
    passes = [p for p in rnn.other if re.search(r"\.jit_rnn\.\d{4}\.", p.name)]
    assert passes and len(passes) == len(list(pass_dump_dir.glob("*.jit_rnn.[0-9][0-9][0-9][0-9].*")))
    assert any(p.name.endswith(".debug_options") and not p.name[0].isdigit() for p in rnn.other)
    # Modules the filter left out keep only PJRT's folder (where this JAX writes one): found, but
    # with no HLO to open.
    skipped = [m for m in folder.modules if m is not rnn]
    assert bool(skipped) == any("jit_rnn" not in name for name in os.listdir(pass_dump_dir))
    assert all(m.hlo_path is None and [p.is_dir() for p in m.other] == [True] for m in skipped)
    assert sorted(p.name for m in folder.modules for p in m.paths()) == sorted(os.listdir(pass_dump_dir))


def corpus() -> Path:
    if not CORPUS_DUMP.is_dir():
        pytest.skip(f"corpus not found at {CORPUS_DUMP}")
    return CORPUS_DUMP


def test_corpus_gpu_dump():
    folder = scan_dump(corpus())
    assert folder.warnings == []
    assert sorted(p.name for m in folder.modules for p in m.paths()) == sorted(os.listdir(CORPUS_DUMP))
    for module in folder.modules:
        assert module.name == module_name_in(module.after_text) == module_name_in(module.before_text)
        assert module.after_text.name == f"{module.label}.{module.platform}_after_optimizations.txt"
        assert module.platform.startswith("sm_") and module.platform.endswith("_gpu")
        assert module.buffer_assignment is not None and module.memory_report is not None
        assert module.live_range is None  # this XLA appended the live ranges to the buffer assignment
    small = next(m for m in folder.modules if m.name == "SyncTensorsGraph.147")
    suffixes = {p.name[len(small.label) + 1:] for p in small.other}
    assert {"ptx", "thunk_sequence.txt", "fused_computation.5.hlo", "fusion.9.ttir"} <= suffixes


def touch(folder: Path, files: dict[str, int]) -> None:
    for name, size in files.items():
        (folder / name).write_bytes(b"x" * size)


def test_names_other_platforms_and_xla_versions_write(tmp_path):
    """File names seen outside CPU dumps; no XLA here to write them, so they are made by hand."""
    touch(tmp_path, {
        "module_0001.jit_f.v2.sm_9.0_gpu_after_optimizations.txt": 50,
        "module_0001.jit_f.v2.sm_9.0_gpu_after_optimizations-buffer-assignment.txt": 5,
        "module_0001.jit_f.v2.before_optimizations.txt": 40,
        "module_0001.jit_f.v2.ir-no-opt.ll": 3,
        "module_0002.jit_g.after_optimizations.txt": 70,  # TPU: no platform prefix
        "module_0002.jit_g.after_optimizations-memory-usage-report.txt": 5,
        "module_0003.a.before_optimizations.txt": 10,  # two processes, one number
        "module_0003.b.before_optimizations.txt": 10,
        "module_0004.jit_h.gfx942_gpu_after_optimizations.hlo.pb": 900,
        "module_0009.orphan.ir-no-opt.ll": 1,
        "xla_dump_manifest.json": 1,
    })
    long_name = "jit_" + "x" * 200
    touch(tmp_path, {
        f"module_0005.{long_name}.before_optimizations.txt": 10,
        "module_0005.cpu_after_optimizations-buffer-assignment-values.txt": 10,
        "module_0005.cpu_after_optimizations.txt": 10,  # XLA drops names over 255 characters
    })
    folder = scan_dump(tmp_path)
    by_label = {m.label: m for m in folder.modules}
    f = by_label["module_0001.jit_f.v2"]
    assert (f.platform, f.after_text.name, f.buffer_assignment is not None) == (
        "sm_9.0_gpu", "module_0001.jit_f.v2.sm_9.0_gpu_after_optimizations.txt", True)
    assert [p.name for p in f.other] == ["module_0001.jit_f.v2.ir-no-opt.ll"]
    g = by_label["module_0002.jit_g"]
    assert (g.platform, g.after_text is not None, g.memory_report is not None) == ("", True, True)
    assert {"module_0003.a", "module_0003.b"} <= set(by_label)
    h = by_label["module_0004.jit_h"]
    assert (h.platform, h.hlo_path, h.size) == ("gfx942_gpu", h.after_pb, 900)
    long = by_label[f"module_0005.{long_name}"]
    assert long.after_text.name == "module_0005.cpu_after_optimizations.txt" and len(long.other) == 1
    assert "module_0005" not in by_label
    assert any("module_0009.orphan.ir-no-opt.ll" in w for w in folder.warnings)
    assert "left out 1 file not named module_NNNN.*" in folder.warnings  # the manifest


def test_folders_beside_the_modules_are_not_strays(tmp_path):
    """A dump folder may hold other folders (a profile the loader reads itself): no warning."""
    touch(tmp_path, {"module_0001.jit_f.before_optimizations.txt": 10})
    (tmp_path / "profile" / "plugins").mkdir(parents=True)
    assert scan_dump(tmp_path).warnings == []


def test_links_round_in_a_loop_beside_the_modules_are_strays(tmp_path):
    """A link that cannot be followed is left out as any other file is, not the whole folder."""
    touch(tmp_path, {"module_0001.jit_f.before_optimizations.txt": 10})
    (tmp_path / "loop_a").symlink_to(tmp_path / "loop_b")
    (tmp_path / "loop_b").symlink_to(tmp_path / "loop_a")
    folder = scan_dump(tmp_path)
    assert [m.label for m in folder.modules] == ["module_0001.jit_f"]
    assert folder.warnings == ["left out 2 files not named module_NNNN.*"]


def test_a_proto_only_folder_has_its_modules_as_protos(tmp_path):
    touch(tmp_path, {
        "module_0001.jit_a.before_optimizations.hlo.pb": 500,
        "module_0001.jit_a.cpu_after_optimizations.hlo.pb": 100,
        "module_0002.jit_b.before_optimizations.hlo.pb": 50,
        "module_0002.jit_b.cpu_after_optimizations.hlo.pb": 300,
    })
    folder = scan_dump(tmp_path)
    assert [m.hlo_path.name for m in folder.modules] == ["module_0001.jit_a.cpu_after_optimizations.hlo.pb",
                                                         "module_0002.jit_b.cpu_after_optimizations.hlo.pb"]
    assert all(m.after_text is None and m.before_pb is not None for m in folder.modules)


def test_an_hlo_text_too_big_for_free_memory_is_refused_after_a_binary_one(monkeypatch, tmp_path):
    """An HLO text needs about 4x its size to read and parse: with less free, one line says so,
    with that much it parses; a binary file is still called binary (from its first bytes)."""
    import tui.model.memory_room as room
    from conftest import FIXTURES

    from tui.model.errors import InputError
    from tui.model.workspace import read_hlo

    path = FIXTURES / "mlp.hlo"
    need = path.stat().st_size * room.HLO_TEXT_FACTOR
    monkeypatch.setattr(room, "available_memory", lambda: need - 1)
    with pytest.raises(InputError, match=r"mlp.hlo: too big to open here: it needs about [\d.]+ KiB of memory"):
        read_hlo(path)
    binary = tmp_path / "weights.hlo"
    binary.write_bytes(bytes(range(256)) * 1024)  # needs more than is free: told binary first
    with pytest.raises(InputError, match="binary data"):
        read_hlo(binary)
    monkeypatch.setattr(room, "available_memory", lambda: need)
    assert read_hlo(path).instruction_count > 0


def test_an_hlo_proto_too_big_for_free_memory_is_refused_before_jaxlib_reads_it(monkeypatch):
    """jaxlib's copy of a serialized module and the text it prints take about 24x the proto's
    size (29x measured on the 48-layer GPT module): with less free, one line says so; with that
    much, the sharded fixture's proto converts and parses."""
    import tui.model.memory_room as room
    from conftest import FIXTURES

    from tui.model.errors import InputError
    from tui.model.workspace import read_hlo

    path = next((FIXTURES / "sharded").glob("*.hlo.pb"))
    need = path.stat().st_size * room.HLO_PROTO_FACTOR
    monkeypatch.setattr(room, "available_memory", lambda: need - 1)
    with pytest.raises(InputError, match=rf"{path.name}: too big to open here: it needs about [\d.]+ [KM]iB of memory"):
        read_hlo(path)
    monkeypatch.setattr(room, "available_memory", lambda: need)
    assert read_hlo(path).instruction_count > 0


def test_an_hlo_text_with_a_byte_order_mark_parses(tmp_path):
    """A byte order mark first (Windows editors write one) is dropped, as XLA drops nothing
    else: the MLP module with one parses to the same instructions; a bad byte after it is
    still named, with its line."""
    from conftest import FIXTURES

    from tui.model.errors import InputError
    from tui.model.workspace import read_hlo

    data = (FIXTURES / "mlp.hlo").read_bytes()
    (tmp_path / "bom.hlo").write_bytes(b"\xef\xbb\xbf" + data)
    plain, marked = read_hlo(FIXTURES / "mlp.hlo"), read_hlo(tmp_path / "bom.hlo")
    assert [i.text for i in marked.entry.instructions] == [i.text for i in plain.entry.instructions]
    assert marked.name == plain.name
    (tmp_path / "latin.hlo").write_bytes(b"\xef\xbb\xbf" + data.replace(b"\n", "\néx".encode() + b"\xe9", 1))
    with pytest.raises(InputError, match=r"latin.hlo:2:3: not UTF-8 text \(byte 0xe9\)"):  # after two characters
        read_hlo(tmp_path / "latin.hlo")
