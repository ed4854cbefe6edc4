"""What a performance engineer decodes by hand from one HLO instruction, as plain text rows.

Shapes: element width, logical vs padded bytes, the layout in words (minor-to-major order,
each tile level, element size) and the memory space named for the platform. Attributes: each
raw value with a decoding where one helps (contracting dims with sizes, windows, slices,
replica groups as explicit device lists, shardings as a device grid with the per-device shape).
The details screen only lays these rows out.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from pathlib import PurePath

from tui.model import hlo_attrs
from tui.model.hlo import HloInstruction
from tui.model.shapes import ELEMENT_BITS, COMBINE, Shape, human_bytes, tiled_dims
from tui.model.sharding import ShardingError, parse_replica_groups, parse_sharding, parse_source_target_pairs
from tui.model.words import counted

HOST_MEMORY_SPACE = 5  # XLA's Layout::kHostMemorySpace

_FUSION_KINDS = {
    "kLoop": "loop fusion: one loop over the output's elements",
    "kInput": "input fusion: rooted at a reduction, reads more than it writes",
    "kOutput": "output fusion: a dot/convolution with its elementwise consumers",
    "kCustom": "custom fusion: the backend emits it its own way (a library call or a special emitter)",
}


def platform_of(path: str | None, device_names: list[str] = ()) -> str:
    """'TPU', 'GPU', 'CPU' or '' from a dump file's name (`cpu_after_optimizations`), else its
    folders' from the nearest (a CPU dump copied into `tpu_study/` is a CPU's), else a profile's devices."""
    for part in reversed(PurePath(path).parts if path else ()):
        name = "/" + part.lower()
        for key, platform in (("tpu", "TPU"), ("gpu", "GPU"), ("sm_", "GPU"), ("cuda", "GPU"), ("rocm", "GPU"), ("cpu", "CPU")):
            if re.search(rf"[._/]{key}", name):
                return platform
    for device in device_names:
        upper = device.upper()
        for platform in ("TPU", "GPU", "CPU"):
            if platform in upper:
                return platform
        if "NVIDIA" in upper or "AMD" in upper:
            return "GPU"
    return ""


def memory_space_name(space: int, platform: str = "") -> str:
    if space == HOST_MEMORY_SPACE:
        return f"S({space}): host memory (XLA's host memory space, pinned host RAM)"
    if space == 0:
        return {"TPU": "default: HBM", "GPU": "default: device memory (HBM)", "CPU": "default: host RAM"}.get(
            platform, "default: device memory (HBM on accelerators)")
    if space == 1 and platform in ("TPU", ""):
        return "S(1): VMEM, the TPU core's on-chip vector memory" + ("" if platform else " (on TPU)")
    return f"S({space}): platform-specific memory space"


def memory_space_short(space: int, platform: str = "") -> str:
    """A table cell's worth: HBM, VMEM, host, RAM or S(n)."""
    if space == HOST_MEMORY_SPACE:
        return "host"
    if space == 0:
        return {"CPU": "RAM", "": "device"}.get(platform, "HBM")
    if space == 1 and platform in ("TPU", ""):
        return "VMEM"
    return f"S({space})"


def is_partitioned(module) -> bool:
    """After SPMD partitioning shapes are per device. XLA's partitioner names the computation it
    builds `<name>_spmd` (a module dumped right after it, not yet scheduled, is known by that);
    a scheduled module of several partitions has been through it too."""
    entry = module.entry
    if entry is not None and entry.name.endswith("_spmd"):
        return True
    return module.is_scheduled and int(module.attributes.get("num_partitions", "1") or 1) > 1


@dataclass(frozen=True)
class Row:
    label: str
    text: str


def shape_rows(shape: Shape, platform: str = "") -> list[Row]:
    """One block of rows per array leaf of the shape (tuples list each element)."""
    rows: list[Row] = []
    leaves = list(shape.leaves())
    if shape.is_tuple:
        rows.append(Row("tuple", f"{len(leaves)} leaves, {human_bytes(shape.byte_size)} logical, "
                                 f"{human_bytes(shape.padded_byte_size)} padded"))
    for index, leaf in leaves:
        prefix = f"{{{','.join(map(str, index))}}} " if shape.is_tuple else ""
        rows += [Row(prefix + row.label, row.text) for row in _leaf_rows(leaf, platform)]
    return rows


def _leaf_rows(shape: Shape, platform: str) -> list[Row]:
    if not shape.is_array:
        return [Row("type", f"{shape.dtype}: carries no data")]
    bits = ELEMENT_BITS.get(shape.dtype, 0)
    width = counted(bits // 8, "byte") if bits % 8 == 0 else f"{bits} bits"
    rows = [
        Row("dtype", f"{shape.dtype}: {width} per element"),
        Row("dims", f"{shape.dims_text()} = {shape.element_count:,} elements" if shape.dims else "scalar"),
    ]
    logical, padded = shape.byte_size, shape.padded_byte_size
    rows.append(Row("bytes", f"{logical:,} logical ({human_bytes(logical)})"))
    layout = shape.layout
    if padded != logical or layout is not None and (layout.tiles or layout.element_size_bits):
        overhead = f", {ratio_words(padded / logical)} the logical size" if logical else ""
        padded_to = ""
        if layout is not None and layout.tiles:
            in_order = "" if shape.physical_dims() == shape.dims else " (in memory order, most major first)"
            padded_to = f", padded to [{','.join(map(str, padded_dims(shape)))}]{in_order}"
        rows.append(Row("padded", f"{padded:,} bytes ({human_bytes(padded)}){padded_to}{overhead}"))
    if layout is not None:
        rows.append(Row("layout", f"{layout.text}: " + layout_words(shape)))
        for level, tile in enumerate(layout.tiles, 1):
            missing = len(tile) - shape.rank if level == 1 else 0
            rows.append(Row(f"tile {level}", tile_words(tile, level) + (
                f" (the array has {counted(shape.rank, 'dim')}: the tile's other {missing} count as 1)" if missing > 0 else "")))
        if layout.element_size_bits:
            rows.append(Row("element size", f"E({layout.element_size_bits}): each element stored in "
                                            f"{layout.element_size_bits} bits (packed)"))
        elif ELEMENT_BITS.get(shape.dtype, 8) < 8:
            rows.append(Row("element size", f"no E(n): each {ELEMENT_BITS[shape.dtype]}-bit element stored in a byte"))
        if layout.tail_padding > 1:
            rows.append(Row("tail padding", f"L({layout.tail_padding}): the element count rounded up to a multiple "
                                            f"of {layout.tail_padding}" if layout.tiles else
                            f"L({layout.tail_padding}): no effect on an untiled array (XLA sizes its elements alone)"))
        for tag, body in layout.extra:
            rows.append(Row("layout field", f"{tag}{body}"))
    rows.append(Row("memory", memory_space_name(shape.memory_space, platform)))
    return rows


def padded_dims(shape: Shape) -> tuple[int, ...]:
    """Memory-order dims after the first tile level rounds the minor dims up to whole tiles (a
    `*` in the tile folds its dim into the next more minor one first): tiled_dims' tile counts
    times the tile."""
    dims = shape.physical_dims()
    sizes = [t for t in shape.layout.tiles[0] if t != COMBINE] if shape.layout.tiles else []
    if not sizes:
        return tuple(dims)
    tiled = tiled_dims(dims, shape.layout.tiles[:1])  # the dims outside the tile, the tile counts, the tile
    n = len(sizes)
    return tuple(tiled[: -2 * n]) + tuple(count * size for count, size in zip(tiled[-2 * n : -n], sizes))


def ratio_words(ratio: float) -> str:
    """A size ratio to three figures, never in exponent form (1.02x, 1.6x, 205x, 2,048x)."""
    return f"{ratio:,.0f}x" if ratio >= 100 else f"{ratio:.3g}x"


def layout_words(shape: Shape) -> str:
    order = shape.layout.minor_to_major
    if not order:
        return "scalar, no order"
    names = [f"dim {d} ({'<=' if shape.dynamic[d] else ''}{shape.dims[d]})" for d in order]
    default = order == tuple(reversed(range(len(order))))
    text = f"{names[0]} is contiguous"
    if len(names) > 1:
        text += ", then " + ", then ".join(names[1:]) + " (most major)"
    return text + (" — row-major, the default" if default and len(order) > 1 else "")


def tile_words(tile: tuple[int, ...], level: int) -> str:
    shown = "x".join("*" if t == COMBINE else str(t) for t in tile)
    where = "the array's" if level == 1 else f"each level-{level - 1} tile's"
    text = f"T({','.join('*' if t == COMBINE else str(t) for t in tile)}): {shown} tiles over {where} {len(tile)} most minor dims"
    if COMBINE in tile:
        text += " (* folds a dim into the next more minor one)"
    return text


# ---------------------------------------------------------------------------------------------
# Attributes.


@dataclass(frozen=True)
class Attribute:
    key: str
    raw: str
    decoded: str  # "" when the raw text says it all


def attributes(ins: HloInstruction, partitioned: bool = False) -> list[Attribute]:
    """Every attribute of `ins` in printed order, with a decoding where one helps.

    `partitioned`: the module is already SPMD-partitioned, so shapes are per device.
    """
    items = list(ins.attrs.items())
    out = []
    for i, (key, raw) in enumerate(items):
        if key == "device_ids" and out and out[-1].key == "replica_groups":
            continue  # folded into replica_groups below
        if key == "replica_groups" and i + 1 < len(items) and items[i + 1][0] == "device_ids":
            raw = f"{raw}, device_ids={items[i + 1][1]}"  # the mesh form's device list is split off by the comma
        try:
            decoded = _decode(ins, key, raw, partitioned)
        except (ValueError, ShardingError, IndexError, KeyError) as e:
            decoded = f"(cannot decode: {e})"
        out.append(Attribute(key, raw, decoded))
    return out


def _decode(ins: HloInstruction, key: str, raw: str, partitioned: bool) -> str:
    if key in ("lhs_contracting_dims", "lhs_batch_dims", "rhs_contracting_dims", "rhs_batch_dims"):
        operand = ins.operands[0 if key.startswith("lhs") else 1]
        dims = hlo_attrs.parse_int_list(raw)
        return ", ".join(f"dim {d} (size {operand.shape.dims[d]})" for d in dims) or "none"
    if key == "window":
        return window_words(hlo_attrs.parse_window(raw))
    if key == "padding":
        return "; ".join(f"dim {d}: low {lo}, high {hi}" + (f", interior {mid}" if mid else "")
                         for d, (lo, hi, mid) in enumerate(hlo_attrs.parse_padding(raw)))
    if key == "slice":
        return "; ".join(f"dim {d}: [{a}:{b})" + (f" step {s}" if s != 1 else "") + f" -> {len(range(a, b, s))}"
                         for d, (a, b, s) in enumerate(hlo_attrs.parse_slice(raw)))
    if key == "dimensions":
        return dimensions_words(ins, hlo_attrs.parse_int_list(raw))
    if key == "replica_groups":
        return groups_words(parse_replica_groups(raw), *group_mode(ins))
    if key == "source_target_pairs":
        return ", ".join(f"{a}->{b}" for a, b in parse_source_target_pairs(raw))
    if key == "sharding":
        return sharding_words(ins, raw, partitioned)
    if key == "channel_id":
        return "pairs this collective with its peers across devices"
    if key == "backend_config":
        value = hlo_attrs.parse_backend_config(raw)
        return json.dumps(value, indent=2) if isinstance(value, (dict, list)) else ""
    if key == "kind":
        return _FUSION_KINDS.get(raw, "")
    if key in hlo_attrs.COMPUTATION_KEYS:
        module = ins.computation.module
        parts = []
        for name in hlo_attrs.parse_name_list(raw):
            comp = module.computation(name)
            parts.append(f"{name}: {comp.kind}, {len(comp.instructions)} instructions" if comp else f"{name}: not in the module")
        return "; ".join(parts)
    if key == "frontend_attributes":
        return "\n".join(f"{k} = {v}" for k, v in hlo_attrs.parse_frontend_attributes(raw).items())
    if key == "output_to_operand_aliasing":
        return "; ".join(f"output {{{','.join(map(str, o))}}} reuses operand {n} {{{','.join(map(str, i))}}}"
                         for o, n, i in hlo_attrs.parse_output_operand_aliasing(raw))
    if key in _INDEXING:
        return indexing_words(ins, key, raw)
    if key == "feature_group_count" or key == "batch_group_count":
        return group_count_words(ins, key, int(raw))
    if key == "dim_labels":
        labels = hlo_attrs.parse_dim_labels(raw)
        return "; ".join(f"{side}: " + ", ".join(f"{c}=dim {i}" for i, c in enumerate(text)) for side, text in labels.items())
    return ""


def _dims(shape: Shape, dims: list[int], what: str) -> str:
    """`operand dims 0 (size 1000), 2 (size 8)`: dims of `shape`, each with its size."""
    if not dims:
        return f"no {what} dims"
    sizes = ", ".join(f"{d} (size {shape.dims[d]})" if 0 <= d < shape.rank else str(d) for d in dims)
    return f"{what} dim{'s' if len(dims) > 1 else ''} {sizes}"


# Gather's and scatter's dimension numbers, dynamic-slice's sizes: what the dims each names are
# for (empty: worded in indexing_words itself).
_INDEXING = {
    "offset_dims": "output dims holding each slice's own dims (the rest count the slices)",
    "collapsed_slice_dims": "dropped from each slice (each of size 1 in slice_sizes)",
    "start_index_map": "",
    "index_vector_dim": "",
    "slice_sizes": "",
    "operand_batching_dims": "paired one to one with the indices' batching dims",
    "start_indices_batching_dims": "paired one to one with the operand's batching dims",
    "update_window_dims": "each update's window (the rest count the updates)",
    "inserted_window_dims": "not in the updates' window: each update writes one element along them",
    "scatter_dims_to_operand_dims": "",
    "input_batching_dims": "paired one to one with the indices' batching dims",
    "scatter_indices_batching_dims": "paired one to one with the operand's batching dims",
    "dynamic_slice_sizes": "",
}


def indexing_words(ins: HloInstruction, key: str, raw: str) -> str:
    """Gather's and scatter's dimension numbers (and dynamic-slice's sizes) with the sizes of the
    dims they name, in the words of XLA's operation semantics."""
    shapes = [op.shape for op in ins.operands]
    if not shapes or not all(s.is_array for s in shapes):
        return ""
    scatter = ins.opcode == "scatter"
    indices = shapes[(len(shapes) - 1) // 2] if scatter else shapes[1] if len(shapes) > 1 else None
    updates = shapes[-1] if scatter else None
    operand = shapes[0]
    if key == "index_vector_dim":
        k = int(raw)
        if indices is None:
            return ""
        if k >= indices.rank:
            return f"past the indices' last dim: each start index is one number ({indices.element_count:,} of them)"
        count = indices.element_count // max(indices.dims[k], 1)
        return f"indices dim {k} (size {indices.dims[k]}) holds each start index: {count:,} start indices"
    dims = hlo_attrs.parse_int_list(raw)
    if key in ("start_index_map", "scatter_dims_to_operand_dims"):
        return "; ".join(f"start index entry {i} -> operand dim {d} (size {operand.dims[d]})" for i, d in enumerate(dims)
                         if 0 <= d < operand.rank) or "no index entries"
    if key in ("slice_sizes", "dynamic_slice_sizes"):
        ratio = operand.element_count / max(1, math.prod(dims))
        text = (f"{'x'.join(map(str, dims)) or 'a scalar'} of the operand's {'x'.join(map(str, operand.dims))}"
                + (f" (1/{ratio:,.0f} of it)" if ratio > 1 else " (all of it)"))
        if key == "slice_sizes":
            return "each slice is " + text
        return (f"the slice is {text}, starting at operands 1 to {len(shapes) - 1}"
                " (moved back to fit where it would run past the end)")
    role = _INDEXING[key]
    if key == "offset_dims":
        return f"{_dims(ins.shape, dims, 'output')}: {role}"
    if key == "update_window_dims":
        return f"{_dims(updates, dims, 'updates')}: {role}" if updates is not None else ""
    if key in ("start_indices_batching_dims", "scatter_indices_batching_dims"):
        return f"{_dims(indices, dims, 'indices')}: {role}" if indices is not None else ""
    return f"{_dims(operand, dims, 'operand')}: {role}"


def group_count_words(ins: HloInstruction, key: str, count: int) -> str:
    """A convolution's feature_group_count (grouped and depthwise convolutions) or
    batch_group_count (their filter gradients), with the sizes it splits."""
    if count <= 1:
        return "no grouping"
    labels = hlo_attrs.parse_dim_labels(ins.attrs.get("dim_labels", ""))
    lhs = ins.operands[0].shape if ins.operands else None
    letter = "f" if key == "feature_group_count" else "b"
    known = labels and lhs is not None and lhs.is_array and letter in labels["lhs"]
    size = lhs.dims[labels["lhs"].index(letter)] if known else None
    if key == "feature_group_count":
        text = f"the input features split into {count} groups, each convolved with its own kernels"
        if size is not None:
            text += f": {size // count} of the {size} features a group" + (" (depthwise)" if size == count else "")
        return text
    text = f"the batch split into {count} groups, each making its own output features"
    return text + (f": {size // count} of the {size} batch a group" if size is not None else "")


def window_words(window: dict) -> str:
    parts = []
    if "size" in window:
        parts.append("x".join(map(str, window["size"])) + " window")
    for key, label in (("stride", "stride"), ("lhs_dilate", "input dilation"), ("rhs_dilate", "window dilation")):
        if key in window:
            parts.append(f"{label} " + "x".join(map(str, window[key])))
    if "pad" in window:
        parts.append("padding " + ", ".join(f"{p[0]} low/{p[1]} high" for p in window["pad"]))
    reversed_dims = [str(d) for d, flag in enumerate(window.get("rhs_reversal", ())) if flag]
    if reversed_dims:
        parts.append("kernel reversed along window dim" + ("s " if len(reversed_dims) > 1 else " ") + ",".join(reversed_dims))
    return ", ".join(parts)


def dimensions_words(ins: HloInstruction, dims: list[int]) -> str:
    operand = ins.operands[0].shape if ins.operands else None
    opcode = ins.opcode
    if opcode == "broadcast" and operand is not None:
        return ", ".join(f"operand dim {i} -> output dim {d}" for i, d in enumerate(dims)) or "scalar broadcast to every element"
    if opcode == "transpose":
        return ", ".join(f"output dim {i} = operand dim {d}" for i, d in enumerate(dims))
    if opcode == "concatenate" and ins.shape.is_array and dims and dims[0] < ins.shape.rank:
        d = dims[0]
        sizes = [op.shape.dims[d] for op in ins.operands if op.shape.is_array and d < op.shape.rank]
        shown = " + ".join(map(str, sizes[:8])) + (f" + … ({len(sizes) - 8} more)" if len(sizes) > 8 else "")
        return f"joins {counted(len(ins.operands), 'operand')} along dim {d}: {shown} = {ins.shape.dims[d]}"
    if opcode in ("reduce", "reduce-window", "reverse", "sort", "all-gather", "reduce-scatter", "all-to-all"
                  ) and operand is not None and operand.is_array:
        verb = {"reduce": "reduces", "reverse": "reverses", "sort": "sorts along",
                "all-gather": "gathers along", "reduce-scatter": "scatters along", "all-to-all": "exchanges along"}.get(opcode, "over")
        return f"{verb} " + ", ".join(f"dim {d} (size {operand.dims[d]})" for d in dims if d < operand.rank)
    return ""


def _members(group: list[int], longest: int = 16) -> str:
    """A group's devices, each written out; in a group of more than `longest`, a run of five or
    more in equal steps is shortened to its first two and last (`0,8,…,504`)."""
    if len(group) <= longest:
        return ",".join(map(str, group))
    parts, i = [], 0
    while i < len(group):
        j = i + 1
        if j < len(group):
            step = group[j] - group[i]
            while j + 1 < len(group) and group[j + 1] - group[j] == step:
                j += 1
        if j - i >= 4:
            parts.append(f"{group[i]},{group[i + 1]},…,{group[j]}")
            i = j + 1
        else:
            parts.append(str(group[i]))
            i += 1
    return ",".join(parts)


# How a collective's replica_groups name devices (XLA's CollectiveOpGroupMode).
CROSS_REPLICA = "cross-replica"  # replica ids, within each partition (no channel_id)
CROSS_PARTITION = "cross-partition"  # partition ids, within each replica (channel_id, an op without use_global_device_ids)
CROSS_REPLICA_AND_PARTITION = "cross-replica-and-partition"  # replica ids, each with all its partitions
FLATTENED = "flattened"  # global device ids (use_global_device_ids=true)
_GLOBAL_IDS_OPS = frozenset(("all-reduce", "all-reduce-start", "all-gather", "all-gather-start", "reduce-scatter"))


def group_mode(ins: HloInstruction) -> tuple[str, int, int]:
    """(mode, replicas, partitions): how `ins`'s replica_groups are read, from its channel_id
    and use_global_device_ids and the module's replica_count and num_partitions."""
    attrs = ins.computation.module.attributes
    replicas = int(attrs.get("replica_count", "1") or 1)
    partitions = int(attrs.get("num_partitions", "1") or 1)
    if "channel_id" not in ins.attrs:
        mode = CROSS_REPLICA
    elif ins.opcode not in _GLOBAL_IDS_OPS:
        mode = CROSS_PARTITION
    else:
        mode = FLATTENED if ins.attrs.get("use_global_device_ids") == "true" else CROSS_REPLICA_AND_PARTITION
    return mode, replicas, partitions


def groups_words(groups: list[list[int]], mode: str = FLATTENED, replicas: int = 1, partitions: int = 1) -> str:
    """The groups as XLA reads them in `mode` (see group_mode): the ids are devices only where the
    mode says so; otherwise what each group spans across the module's replicas and partitions."""
    if not groups:
        whole = {CROSS_REPLICA: ("replica", replicas), CROSS_PARTITION: ("partition", partitions)}.get(mode)
        if whole is None or replicas * partitions == 1 or whole[1] == replicas * partitions:
            return "one group of all devices"
        other = "partition" if whole[0] == "replica" else "replica"
        return (f"each {other}'s {whole[1]} {whole[0]}s in one group: "
                f"{counted(replicas * partitions // whole[1], 'group')} of size {whole[1]}")
    sizes = {len(g) for g in groups}
    size = f"size {sizes.pop()}" if len(sizes) == 1 else "sizes " + ", ".join(str(len(g)) for g in groups)
    shown = " ".join("{" + _members(g) + "}" for g in groups[:16])
    more = f" ... ({len(groups) - 16} more)" if len(groups) > 16 else ""
    text = f"{counted(len(groups), 'group')} of {size}: {shown}{more}"
    if mode == CROSS_REPLICA and partitions > 1:
        return (f"{text} (replica ids: {counted(len(groups) * partitions, 'group')} in all,"
                f" these in each of the {partitions} partitions)")
    if mode == CROSS_PARTITION and replicas > 1:
        return (f"{text} (partition ids: {counted(len(groups) * replicas, 'group')} in all,"
                f" these in each of the {replicas} replicas)")
    if mode == CROSS_REPLICA_AND_PARTITION and partitions > 1:
        spans = ", ".join(sorted({str(len(g) * partitions) for g in groups}, key=int))
        return (f"{text} (replica ids, each group with all {partitions} partitions of its replicas: "
                f"{spans} devices a group; channel_id without use_global_device_ids)")
    return text


LEAVES_LISTED = 256  # lines of a tuple sharding's leaves (a train step's ROOT has hundreds)


def sharding_words(ins: HloInstruction, raw: str, partitioned: bool) -> str:
    sharding = parse_sharding(raw)
    if sharding.kind == "tuple":
        return "\n".join(_tuple_sharding_lines(ins.shape, sharding, partitioned))
    lines = [sharding.describe()]
    if sharding.kind == "tiled":
        grid = sharding.device_grid()
        lines.append(f"device grid {list(grid.shape)}:")
        lines += ["  " + line for line in _grid_text(grid)]
        if ins.shape.is_array and len(sharding.data_tile_dims) == ins.shape.rank:
            lines += _shard_lines(ins.shape, sharding, partitioned)
    return "\n".join(lines)


def _shard_lines(shape, sharding, partitioned: bool) -> list[str]:
    """What one device holds of an array tiled by `sharding` (in a partitioned module, the
    shape is the shard already: the whole it is a shard of), and the dims that split unevenly."""
    dims = shape.dims
    tiles = sharding.data_tile_dims
    if partitioned:
        whole = [d * t for d, t in zip(dims, tiles)]
        least = [(d - 1) * t + 1 for d, t in zip(dims, tiles)]
        return [f"this module is partitioned: {shape.dims_text()} is one device's shard of "
                f"{shape.dtype}[{','.join(map(str, whole))}]"
                + (f" (or of as little as {shape.dtype}[{','.join(map(str, least))}], padded up to it:"
                   " XLA pads a dim that does not split evenly)" if least != whole else "")]
    shard = sharding.shard_shape(dims)
    lines = [f"each device holds {shape.dtype}[{','.join(map(str, shard))}] of {shape.dims_text()}"]
    for axis, (size, count, part) in enumerate(zip(dims, tiles, shard)):
        if part * count != size:  # XLA pads the last shards
            empty = count - -(-size // part) if part else count
            lines.append(f"dim {axis} ({size}) does not split evenly into {count}: shards of {part} cover "
                         f"{part * count}, {part * count - size} of it padding"
                         + (f"; {empty} of the {count} shards {'is' if empty == 1 else 'are'} only padding"
                            if empty else ""))
    return lines


def _tuple_sharding_lines(shape, sharding, partitioned: bool) -> list[str]:
    """A tuple's sharding, leaf by leaf as XLA keeps it (`HloSharding::tuple_elements`, in the
    order of the shape's leaves): each tiled leaf's shape, sharding and the shard a device
    holds, a run of untiled ones (replicated, ...) a line; then each device grid once, with the
    leaves tiled over it."""
    elements = sharding.elements
    leaves = list(shape.leaves()) if shape.is_tuple else []
    paired = len(leaves) == len(elements)
    names = ["{" + ",".join(map(str, index)) + "}" for index, _ in leaves] if paired else [f"leaf {k}" for k in range(len(elements))]
    lines = [sharding.describe()]
    grids: dict[tuple, tuple] = {}  # (tile dims, devices) -> (a leaf's sharding, the leaves tiled so)
    listed, k = [], 0
    while k < len(elements):
        element = elements[k]
        if element.kind != "tiled":  # a run of leaves sharded alike, none tiled: a line
            end = k + 1
            while end < len(elements) and elements[end].kind != "tiled" and elements[end].describe() == element.describe():
                end += 1
            listed.append(f"{names[k]}: {element.describe()}" if end == k + 1 else
                          f"{names[k]} to {names[end - 1]}: {element.describe()} ({end - k} leaves)")
            k = end
            continue
        grids.setdefault((element.tile_dims, element.devices), (element, []))[1].append(names[k])
        leaf = leaves[k][1] if paired else None
        text = f"{names[k]} {leaf.dims_text()}: " if leaf is not None and leaf.is_array else f"{names[k]}: "
        text += element.describe()
        if leaf is not None and leaf.is_array and len(element.data_tile_dims) == leaf.rank:
            text += "; " + _shard_lines(leaf, element, partitioned)[0].replace("this module is partitioned: ", "")
        listed.append(text)
        k += 1
    lines += listed[:LEAVES_LISTED]
    if len(listed) > LEAVES_LISTED:
        lines.append(f"... {len(listed) - LEAVES_LISTED} more lines")
    if not paired and shape.is_tuple:
        lines.append(f"(the shape has {len(leaves):,} {'leaf' if len(leaves) == 1 else 'leaves'}, the sharding "
                     f"{len(elements):,}: leaves numbered in the sharding's order)")
    for element, tiled in grids.values():
        shown = ", ".join(tiled[:8]) + (f" and {len(tiled) - 8} more" if len(tiled) > 8 else "")
        lines.append(f"device grid {list(element.tile_dims)} of {shown}:")
        lines += ["  " + line for line in _grid_text(element.device_grid())]
    return lines


def _grid_text(grid, most: int = 32, across: int = 24) -> list[str]:
    """A device grid as rows: the last axis of size above 1 across (folded after `across`
    devices, each row then led by its number), the axes before it flattened down; at most
    `most` lines. A large grid that lists the devices in order says so in one line."""
    kept = [n for n in grid.shape if n > 1] or [1]
    devices = [int(v) for v in grid.flat]
    if len(devices) > 64 and devices == list(range(len(devices))):
        return [f"devices {_members(devices)} in order, the last axis fastest"]
    rows = [devices[k : k + kept[-1]] for k in range(0, len(devices), kept[-1])]
    width = max(len(str(v)) for v in devices)
    folded = kept[-1] > across
    label = len(str(len(rows) - 1)) + 3 if len(rows) > 1 else 0  # "[12] "
    lines = []
    for r, row in enumerate(rows):
        cells = [str(v).rjust(width) for v in row]
        for k in range(0, len(cells), across if folded else len(cells)):
            lead = (f"[{r}]".ljust(label)[:label] if k == 0 else " " * label) if folded else ""
            lines.append(lead + " ".join(cells[k : k + across] if folded else cells))
    if len(lines) > most:
        lines = lines[:most] + [f"... {len(lines) - most} more lines"]
    return lines


def source_excerpt_lines(path_text: str, line: int, roots: list[str], context: int = 3) -> tuple[str, int, list[str]] | None:
    """(readable path, first line number, lines) around `line` of a source file, if it can be read.

    Paths in HLO metadata may be relative (JAX strips a prefix); they are tried as given and
    under each of `roots` and their parents.
    """
    from pathlib import Path

    candidates = [Path(path_text)]
    for root in roots:
        base = Path(root).resolve()
        for folder in (base, *base.parents):
            candidates.append(folder / path_text)
    for candidate in candidates:
        try:
            if candidate.is_file():
                text = candidate.read_text(errors="replace").splitlines()
                break
        except OSError:
            continue
    else:
        return None
    if not 1 <= line <= len(text):
        return None
    first = max(1, line - context)
    return str(candidate), first, text[first - 1 : min(len(text), line + context)]


def intensity_words(flops: float, bytes_accessed: float) -> str:
    if flops < 0 or bytes_accessed < 0:
        return "unknown (XLA cannot see inside custom calls)"
    if bytes_accessed == 0:
        return "no memory traffic"
    return f"{flops / bytes_accessed:.3g} FLOP/byte"


def si(value: float, unit: str) -> str:
    """1.5e9, 'FLOP' -> '1.50 GFLOP'."""
    if value < 0:
        return "unknown"
    for prefix, scale in (("P", 1e15), ("T", 1e12), ("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if value >= scale:
            return f"{value / scale:.3g} {prefix}{unit}"
    return f"{value:.3g} {unit}" if value != int(value) else f"{int(value)} {unit}"


def duration(ns: float) -> str:
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("us", 1e3)):
        if ns >= scale:
            return f"{ns / scale:.3g} {unit}"
    return f"{ns:.0f} ns"
