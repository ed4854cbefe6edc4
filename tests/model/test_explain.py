"""What the details screen says about shapes and attributes, on real modules and XLA's examples."""

from __future__ import annotations

import math

import numpy as np

from conftest import FIXTURES, REPO, main_hlo

from tui.model import explain
from tui.model.hlo import parse_hlo
from tui.model.shapes import parse_shape
from tui.model.workspace import read_hlo

SHARDED = FIXTURES / "sharded"


def rows(shape: str, platform: str = "") -> dict[str, str]:
    return {row.label: row.text for row in explain.shape_rows(parse_shape(shape), platform)}


def test_padding_of_a_tiled_layout():
    """The profiling chapter's example: f32[3,5] in 2x2 tiles is stored as [4,6]."""
    shown = rows("f32[3,5]{1,0:T(2,2)}")
    assert shown["bytes"].startswith("60 logical")
    assert shown["padded"] == "96 bytes (96 B), padded to [4,6], 1.6x the logical size"
    assert "dim 1 (5) is contiguous, then dim 0 (3) (most major)" in shown["layout"]
    assert shown["tile 1"].startswith("T(2,2): 2x2 tiles over the array's 2 most minor dims")
    bf16 = rows("bf16[3,5]{1,0:T(8,128)(2,1)}")
    assert bf16["padded"].startswith("2,048 bytes") and "padded to [8,128]" in bf16["padded"]
    assert "level-1 tile" in bf16["tile 2"]


def test_padding_words_for_odd_tilings():
    """A tile of more dims than the array pads the missing ones from 1 (ArraySize); an order
    other than the default says its padded dims are in memory order; ratios keep three figures."""
    vector = rows("f32[5]{0:T(8,128)}", "TPU")
    assert vector["padded"] == "4,096 bytes (4.0 KiB), padded to [8,128], 205x the logical size"
    assert vector["tile 1"].endswith("(the array has 1 dim: the tile's other 1 count as 1)")
    assert rows("f32[]{:T(128)}", "TPU")["padded"] == "512 bytes (512 B), padded to [128], 128x the logical size"
    assert rows("f32[3,5]{0,1:T(2,2)}")["padded"].endswith("padded to [6,4] (in memory order, most major first), 1.6x the logical size")
    assert rows("bf16[1000,1000]{1,0:T(8,128)(2,1)}")["padded"].endswith("1.02x the logical size")
    assert "no effect on an untiled array" in rows("f32[100]{0:L(1024)}")["tail padding"]
    # `*` folds a dim into the next more minor one before tiling: [2,7,8] -> 112, [11,10] -> 110 -> 111
    # (the dims said were [2,7,8,12,12], 16,128 elements for the 49,728 bytes given)
    combined = parse_shape("f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}")
    assert rows(combined.text)["padded"].startswith(f"{combined.padded_byte_size:,} bytes") and "padded to [112,111]," in rows(combined.text)["padded"]
    assert combined.padded_byte_size == 112 * 111 * 4


def test_memory_spaces_are_named_for_the_platform():
    assert "VMEM" in rows("f32[8,128]{1,0:S(1)}", "TPU")["memory"]
    assert "host memory" in rows("f32[8]{0:S(5)}", "TPU")["memory"]
    assert rows("f32[8]{0}", "TPU")["memory"] == "default: HBM"
    assert rows("f32[8]{0}", "CPU")["memory"] == "default: host RAM"
    assert "platform-specific" in rows("f32[8]{0:S(1)}", "GPU")["memory"]
    assert explain.platform_of(str(SHARDED / "module_0000.jit_train_step.cpu_after_optimizations.txt")) == "CPU"
    assert explain.platform_of("module_0001.jit_f.sm_9.0_gpu_after_optimizations.txt") == "GPU"
    assert explain.platform_of(None, ["TPU v5 lite"]) == "TPU"
    # the file's own name first: a CPU dump copied into a folder named for a TPU study is a CPU's
    assert explain.platform_of("/home/me/tpu_study/module_0000.jit_f.cpu_after_optimizations.txt") == "CPU"
    assert explain.platform_of("/data/tpu_runs/module_0000.jit_f.after_optimizations.txt") == "TPU"  # else the folders'


def test_sub_byte_and_tuple_shapes():
    shown = rows("s4[16,8]{1,0:E(4)}")
    assert shown["dtype"] == "s4: 4 bits per element" and "E(4)" in shown["element size"]
    tuple_rows = explain.shape_rows(parse_shape("(f32[2]{0}, s32[])"))
    assert tuple_rows[0].label == "tuple" and any(r.label.startswith("{1} dtype") for r in tuple_rows)


def attribute(ins, key):
    return next(a for a in explain.attributes(ins, explain.is_partitioned(ins.computation.module)) if a.key == key)


def test_collectives_of_the_sharded_step():
    module = read_hlo(SHARDED / "module_0000.jit_train_step.cpu_after_optimizations.txt")
    reduce = next(i for i in module.instructions() if i.opcode == "all-reduce")
    groups = attribute(reduce, "replica_groups")
    assert groups.raw == "[2,4]<=[8]" and groups.decoded == "2 groups of size 4: {0,1,2,3} {4,5,6,7}"
    gather = next(i for i in module.instructions() if i.opcode == "all-gather")
    mesh = attribute(gather, "replica_groups")
    assert mesh.raw.startswith("mesh[") and mesh.decoded == "4 groups of size 2: {0,4} {1,5} {2,6} {3,7}"
    assert attribute(gather, "dimensions").decoded == "gathers along dim 0 (size 32)"
    assert "pairs this collective" in attribute(reduce, "channel_id").decoded
    assert "add.clone: reducer" in attribute(reduce, "to_apply").decoded


def test_mesh_groups_with_their_device_list_split_off_by_the_comma():
    text = """HloModule m, num_partitions=4

add { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT s = f32[] add(a, b) }

ENTRY e {
  p = f32[8]{0} parameter(0)
  ROOT r = f32[8]{0} all-reduce(p), channel_id=1, replica_groups=mesh['x'=2,'y'=2], device_ids=(3,1,2,0) {'y'}, use_global_device_ids=true, to_apply=add
}
""".replace("  b =", "\n  b =").replace("  ROOT s", "\n  ROOT s").replace("{ a =", "{\n  a =").replace("(a, b) }", "(a, b)\n}")
    module = parse_hlo(text)
    found = attribute(module.entry.root, "replica_groups")
    assert "device_ids=(3,1,2,0)" in found.raw and found.decoded == "2 groups of size 2: {3,1} {2,0}"
    assert all(a.key != "device_ids" for a in explain.attributes(module.entry.root))


def test_shardings_before_and_after_partitioning_agree():
    """A parameter's per-device shape after SPMD partitioning is the shard the unpartitioned
    module's sharding describes."""
    before = read_hlo(SHARDED / "module_0000.jit_train_step.before_optimizations.txt")
    after = read_hlo(SHARDED / "module_0000.jit_train_step.cpu_after_optimizations.txt")
    assert not explain.is_partitioned(before) and explain.is_partitioned(after)
    compared = 0
    for param in before.entry.parameters:
        if "devices=" not in (param.attr("sharding") or ""):
            continue
        partitioned = next(p for p in after.entry.parameters if p.parameter_number == param.parameter_number)
        shard = param.sharding.shard_shape(param.shape.dims)
        assert partitioned.shape.dims == shard
        text = f"each device holds {param.shape.dtype}[{','.join(map(str, shard))}] of {param.shape.dims_text()}"
        assert text in attribute(param, "sharding").decoded
        assert f"one device's shard of {param.shape.dims_text()}" in attribute(partitioned, "sharding").decoded
        compared += 1
    assert compared >= 4


def test_a_module_dumped_after_partitioning_has_per_device_shapes(corpus):
    """XLA's benchmark Llama (8 partitions, not yet scheduled): `param.4` f32[128256,512] with
    `devices=[1,8]<=[8]` is one device's shard; an all-gather over the 8 devices of its bf16
    copy along dim 1 makes the whole, bf16[128256,4096]."""
    module = read_hlo(corpus / "hlo/xla_benchmarks/hlo_llama31_8b_bf16_1x8.hlo")
    assert not module.is_scheduled and module.entry.name.endswith("_spmd") and explain.is_partitioned(module)
    param = module.instruction("param.4")
    gathered = next(u for c in param.users for u in c.users if u.opcode == "all-gather")
    assert gathered.shape.dims == (128256, 4096) and gathered.attr("dimensions") == "{1}"
    assert "one device's shard of f32[128256,4096]" in attribute(param, "sharding").decoded
    gemma = read_hlo(corpus / "hlo/xla_benchmarks/hlo_gemma4_2b_bf16.hlo")
    assert not explain.is_partitioned(gemma)


def test_a_reversed_kernel_is_said():
    """Hand-written edge case (XLA's parser takes it): `rhs_reversal` flips the kernel along
    the window dims marked 1; it was left out of the window's words."""
    from jax._src.lib import xla_client

    text = """HloModule m

ENTRY e {
  p = f32[1,8,8,4]{3,2,1,0} parameter(0)
  k = f32[3,3,4,4]{3,2,1,0} parameter(1)
  ROOT c = f32[1,8,8,4]{3,2,1,0} convolution(p, k), window={size=3x3 pad=1_1x1_1 rhs_reversal=0x1}, dim_labels=b01f_01io->b01f
}
"""
    assert "rhs_reversal=0x1" in xla_client.hlo.hlo_module_from_text(text).to_string()
    decoded = attribute(parse_hlo(text).entry.root, "window").decoded
    assert decoded == "3x3 window, padding 1 low/1 high, 1 low/1 high, kernel reversed along window dim 1"
    both = parse_hlo(text.replace("rhs_reversal=0x1", "rhs_reversal=1x1")).entry.root
    assert attribute(both, "window").decoded.endswith("kernel reversed along window dims 0,1")


def test_a_backend_config_nested_past_pythons_depth_is_shown_raw():
    """Hand-written edge case: JSON 3,000 objects deep (json's RecursionError crashed the
    details page); as any backend_config that does not decode, it is kept as its text."""
    from tui.model import hlo_attrs

    deep = '{"a":' * 3000 + "1" + "}" * 3000
    assert hlo_attrs.parse_backend_config(deep) == deep
    assert hlo_attrs.parse_backend_config('{"a": {"b": 1}}') == {"a": {"b": 1}}


def test_dot_dimensions_and_backend_config():
    module = read_hlo(FIXTURES / "transformer" / "module_0014.jit_train_step.cpu_after_optimizations.txt")
    dot = next(i for i in module.instructions() if i.opcode == "dot" and i.attr("lhs_contracting_dims"))
    dims = attribute(dot, "lhs_contracting_dims")
    d = int(dims.raw.strip("{}").split(",")[0])
    assert dims.decoded.startswith(f"dim {d} (size {dot.operands[0].shape.dims[d]})")
    fusion = next(i for i in module.instructions() if i.name.startswith("ynn_fusion"))
    assert '"kind": "__ynn_fusion"' in attribute(fusion, "backend_config").decoded


def test_source_excerpt_is_found_from_a_relative_path():
    found = explain.source_excerpt_lines("examples/transformer.py", 82, [str(FIXTURES / "transformer")])
    assert found is not None
    path, first, lines = found
    assert path.endswith("examples/transformer.py") and first == 79
    assert lines[82 - first] == (REPO / "examples" / "transformer.py").read_text().splitlines()[81]
    assert explain.source_excerpt_lines("no/such/file.py", 3, [str(FIXTURES)]) is None


def test_every_corpus_attribute_decodes(corpus):
    """Every attribute of every real module either decodes or needs no decoding."""
    files = sorted(p for p in (corpus / "hlo").rglob("*") if p.suffix == ".hlo" or p.name.endswith("optimizations.txt"))
    seen = set()
    for path in files:
        module = read_hlo(path)
        platform = explain.platform_of(str(path))
        partitioned = explain.is_partitioned(module)
        for ins in module.instructions():
            for row in explain.attributes(ins, partitioned):
                assert not row.decoded.startswith("(cannot decode"), f"{path.name} {ins.name} {row.key}: {row.decoded}"
                seen.add(row.key)
            explain.shape_rows(ins.shape, platform)
    assert {"replica_groups", "sharding", "window", "slice", "backend_config", "dimensions"} <= seen


def test_large_replica_groups_shorten_runs_that_read_back_exactly():
    """A 512-device group is not 512 numbers on the page: runs in equal steps are shortened to
    `first,second,…,last`, which reads back to the same devices."""
    from tui.model.explain import groups_words
    from tui.model.sharding import parse_replica_groups

    def read_back(text: str) -> list[list[int]]:
        groups = []
        for body in text.split(": ", 1)[1].split(" ... (")[0].split("} {"):
            members, parts = [], body.strip("{}").split(",")
            for k, part in enumerate(parts):
                if part == "…":
                    first, second, last = int(parts[k - 2]), int(parts[k - 1]), int(parts[k + 1])
                    members += list(range(second + (second - first), last, second - first))
                else:
                    members.append(int(part))
            groups.append(members)
        return groups

    for raw in ("[1,512]<=[512]", "[8,64]<=[64,8]T(1,0)", "[4,128]<=[512]", "[64,8]<=[8,64]T(1,0)"):
        groups = parse_replica_groups(raw)
        words = groups_words(groups)
        assert read_back(words) == groups[:16], raw
    assert groups_words(parse_replica_groups("[1,512]<=[512]")) == "1 group of size 512: {0,1,…,511}"
    assert groups_words(parse_replica_groups("[2,4]<=[8]")) == "2 groups of size 4: {0,1,2,3} {4,5,6,7}"  # small: all


def test_device_grids_of_many_devices_stay_readable():
    """Shardings over 512 devices (as in the corpus's llama 405B module): devices in order say so
    in one line; any other order is drawn with size-1 axes dropped and wide rows folded under
    their row number, and every device still appears where the grid has it."""
    from tui.model.explain import _grid_text
    from tui.model.sharding import parse_sharding

    assert _grid_text(parse_sharding("{devices=[512,1,1]<=[512]}").device_grid()) == [
        "devices 0,1,…,511 in order, the last axis fastest"]
    assert _grid_text(parse_sharding("{devices=[2,4]<=[8]}").device_grid()) == ["0 1 2 3", "4 5 6 7"]
    grid = parse_sharding("{devices=[2,1,64]<=[64,2]T(1,0)}").device_grid()
    lines = _grid_text(grid)
    assert lines[0].startswith("[0] ") and any(line.startswith("[1] ") for line in lines)
    rows, current = [], None
    for line in lines:
        if line.startswith("["):
            current = []
            rows.append(current)
        current += [int(v) for v in line.split("]")[-1].split()]
    assert rows == grid.reshape(2, 64).tolist()


def test_uneven_shards_are_called_out(programs):
    """XLA pads the last shards of a dim that does not split evenly (12 rows over 8 devices,
    tests/programs.py's `uneven`): the details say how much is padding."""
    from tui.model.explain import sharding_words
    from tui.model.workspace import read_hlo

    module = read_hlo(main_hlo(programs["uneven"], "before"))
    constraint = next(ins for ins in module.entry.instructions if "sharding" in ins.attrs and ins.opcode == "custom-call")
    words = sharding_words(constraint, constraint.attrs["sharding"], False)
    assert "each device holds f32[2,4] of f32[12,4]" in words  # ceil(12 / 8) rows per device
    assert ("dim 0 (12) does not split evenly into 8: shards of 2 cover 16, 4 of it padding; "
            "2 of the 8 shards are only padding") in words


def test_a_tuple_sharding_is_told_leaf_by_leaf(programs):
    """A jitted function's three results, each sharded its own way (out_shardings): the root
    tuple's sharding lists each leaf with its shape, its sharding and the shard a device holds
    (as jax.sharding.NamedSharding.shard_shape gives it), each device grid once, checked
    against XLA's own reading of the sharding; not only counts by kind."""
    import jax
    from jax._src.lib import xla_client
    from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

    from tui.model.explain import sharding_words
    from tui.model.workspace import read_hlo

    module = read_hlo(main_hlo(programs["uneven"], "before"))
    root = module.entry.root
    raw = root.attrs["sharding"]
    xla = xla_client.HloSharding.from_string(raw)
    assert len(xla.tuple_elements()) == 3
    lines = sharding_words(root, raw, False).splitlines()
    mesh = Mesh(np.array(jax.devices()[:1] * 8), ("x",))  # shard shapes need only the mesh's size
    b = (16, 8)
    tall = NamedSharding(mesh, P("x", None)).shard_shape(b)
    wide = NamedSharding(mesh, P(None, "x")).shard_shape(b[::-1])
    assert lines[1] == "{0}: replicated" and xla.tuple_elements()[0].is_replicated()
    assert lines[2] == f"{{1}} f32[16,8]: tiled 8x1 over 8 devices; each device holds f32[{tall[0]},{tall[1]}] of f32[16,8]"
    assert lines[3] == f"{{2}} f32[8,16]: tiled 1x8 over 8 devices; each device holds f32[{wide[0]},{wide[1]}] of f32[8,16]"
    for k in (1, 2):  # each grid once, its devices those of XLA's tile assignment, in order
        element = xla.tuple_elements()[k]
        at = lines.index(f"device grid {element.tile_assignment_dimensions()} of {{{k}}}:")
        assert lines[at + 1].split() == [str(d) for d in element.tile_assignment_devices()]
    assert sum(line.startswith("device grid") for line in lines) == 2


_GROUP_MODES = """HloModule modes, replica_count=2, num_partitions=4

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b)
}

ENTRY e {
  p = f32[8] parameter(0)
  replicas_and_partitions = f32[32] all-gather(p), channel_id=1, replica_groups={{0},{1}}, dimensions={0}
  replicas_only = f32[16] all-gather(p), replica_groups={{0,1}}, dimensions={0}
  partitions = f32[8] all-to-all(p), channel_id=2, replica_groups={{0,1,2,3}}, dimensions={0}
  flattened = f32[16] all-gather(p), channel_id=3, replica_groups={{0,1},{2,3},{4,5},{6,7}}, use_global_device_ids=true, dimensions={0}
  every_replica = f32[8] all-reduce(p), replica_groups={}, to_apply=add
  ROOT t = (f32[32], f32[16], f32[8], f32[16], f32[8]) tuple(replicas_and_partitions, replicas_only, partitions, flattened, every_replica)
}
"""


def test_replica_groups_are_read_in_the_collectives_mode():
    """XLA reads replica_groups by the op's channel_id and use_global_device_ids (its
    CollectiveOpGroupMode): with a channel_id and no use_global_device_ids an all-gather's
    groups are replica ids, each group gathering from every partition of its replicas; each
    all-gather's output is its input times the devices a group, as the words say."""
    import re

    from jax._src.lib import xla_client

    xla_client.hlo.hlo_module_from_text(_GROUP_MODES)  # XLA accepts every one of them
    module = parse_hlo(_GROUP_MODES)
    for ins in module.entry.instructions:
        if ins.opcode != "all-gather":
            continue
        words = attribute(ins, "replica_groups").decoded
        spans = re.search(r"(\d+) devices a group", words)
        devices = int(spans.group(1)) if spans else int(re.search(r"of size (\d+)", words).group(1))
        assert ins.shape.dims[0] == ins.operands[0].shape.dims[0] * devices, (ins.name, words)
    assert "in each of the 4 partitions" in attribute(module.instruction("replicas_only"), "replica_groups").decoded
    assert "partition ids" in attribute(module.instruction("partitions"), "replica_groups").decoded
    assert attribute(module.instruction("every_replica"), "replica_groups").decoded == (
        "each partition's 2 replicas in one group: 4 groups of size 2")


def test_gather_scatter_and_grouped_convolutions_are_decoded():
    """Gather's and scatter's dimension numbers, dynamic-slice's sizes, a depthwise
    convolution's feature_group_count and a concatenate of three: each with the sizes of the
    dims it names, which multiply out to the op's own shapes."""
    import jax
    import jax.numpy as jnp

    def indexing(table, ids, x, kernel, updates):
        depthwise = jax.lax.conv_general_dilated(x, kernel, (1, 1), "SAME", feature_group_count=8,
                                                 dimension_numbers=("NHWC", "HWIO", "NHWC"))
        joined = jnp.concatenate([table, table, table[:3]], axis=0)
        window = jax.lax.dynamic_slice(table, (ids[0], 0), (2, 64))
        return table[ids], table.at[ids].add(updates), depthwise, joined, window

    args = (jnp.ones((1000, 64)), jnp.arange(5), jnp.ones((2, 16, 16, 8)), jnp.ones((3, 3, 1, 8)), jnp.ones((5, 64)))
    module = parse_hlo(jax.jit(indexing).lower(*args).as_text(dialect="hlo"))
    ops = {ins.opcode: ins for comp in module.computations for ins in comp.instructions}
    gather = ops["gather"]
    words = {a.key: a.decoded for a in explain.attributes(gather)}
    starts = int(words["index_vector_dim"].split(": ")[1].split()[0])
    slice_shape = [int(n) for n in words["slice_sizes"].split()[3].split("x")]
    assert starts * math.prod(slice_shape) == gather.shape.element_count  # 5 slices of 1x64 make f32[5,64]
    assert words["collapsed_slice_dims"].startswith("operand dim 0 (size 1000)")
    assert words["start_index_map"] == "start index entry 0 -> operand dim 0 (size 1000)"
    scatter = {a.key: a.decoded for a in explain.attributes(ops["scatter"])}
    assert scatter["update_window_dims"].startswith("updates dim 1 (size 64)")
    assert scatter["inserted_window_dims"].startswith("operand dim 0 (size 1000)")
    conv = attribute(ops["convolution"], "feature_group_count").decoded
    assert conv.endswith("1 of the 8 features a group (depthwise)")
    joined = attribute(ops["concatenate"], "dimensions").decoded
    assert joined == f"joins 3 operands along dim 0: 1000 + 1000 + 3 = {ops['concatenate'].shape.dims[0]}"
    assert ops["concatenate"].shape.dims[0] == 2003
    assert attribute(ops["dynamic-slice"], "dynamic_slice_sizes").decoded.startswith(
        "the slice is 2x64 of the operand's 1000x64 (1/500 of it), starting at operands 1 to 2")


def test_a_partitioned_shard_says_the_whole_may_have_been_padded():
    """After partitioning, f32[2,3] over 8 devices along dim 0 is one shard of at most 16 rows:
    the whole may have been 9 to 16 rows, padded by XLA (JAX compiles f32[10,3] so)."""
    module = parse_hlo("""HloModule part, num_partitions=8

ENTRY main.0_spmd {
  p = f32[2,3]{1,0} parameter(0), sharding={devices=[8,1]<=[8]}
  ROOT c = f32[2,3]{1,0} copy(p), sharding={devices=[8,1]<=[8]}
}
""")
    words = attribute(module.instruction("p"), "sharding").decoded
    assert "one device's shard of f32[16,3] (or of as little as f32[9,3], padded up to it" in words
