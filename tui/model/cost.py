"""FLOPs, transcendentals and bytes accessed per instruction, by XLA's own conventions.

The numbers follow XLA's `HloCostAnalysis` (what `compiled.cost_analysis()` reports), so a
module's total here is the total XLA prints, and a per-op figure is the share XLA would give
that op:

- elementwise ops: one FLOP per output element; exp/log/tanh/rsqrt/... count as
  transcendentals instead; dot: 2 x output elements x contracted size; convolution: 2 x the
  multiply-adds of valid window positions; reduce: the reducer's cost x (input - output
  elements); sort: n x ceil(log2 n); all-reduce: one FLOP per output element.
- bytes accessed: output + operands by default (a tuple result's arrays, a tuple operand's
  pointer table); bitcast/get-tuple-element/parameter/constant touch nothing; a tuple writes
  its pointer table; slices read only what they keep; a fusion
  counts its outputs and each parameter read once (more when a slice, broadcast or reshape
  reads it), not its intermediates; while = one trip of body and condition; conditional =
  the most expensive branch per property; call/async = the called computation.
- custom calls are unknown: XLA records -1 FLOPs and -1 bytes (and sums them as such). A
  cuBLAS matmul's call (`__cublas$gemm`, `__cublas$lt$matmul`) too, in totals: XLA's
  `cost_analysis()` of a GPU program counts it as nothing (checked on an H100: its total is
  the rest's to the FLOP). But an op's own cost (`op_cost`, `CostModel.work`), which its FLOP
  rate and roofline read, counts such a call as the dot its `gemm_backend_config` describes
  (an epilogue's bias or activation left out; its bytes the result and operands): otherwise
  most of a GPU step's FLOPs would be missing from the op tables. A cuDNN convolution's call
  (`__cudnn$conv...`, which XLA's ROCm backend names the same for MIOpen) likewise counts as
  the convolution its window and dim_labels describe, as XLA's GPU cost analysis counts it
  (its output bytes the result alone, not the library's scratch).

Sizes are what the CPU compiler measures (`ShapeUtil::ByteSizeOf`): logical bytes, no tiling
padding, sub-byte types packed when the layout says `E(n)`, and a tuple's pointer table at the
pointer size of the XLA installed (`POINTER_BYTES`).
"""

from __future__ import annotations

import importlib.metadata
import math
from dataclasses import dataclass

from tui.model import hlo_attrs
from tui.model.categories import CONVOLUTION_TARGETS, GEMM_TARGETS
from tui.model.hlo import HloComputation, HloInstruction, HloModule
from tui.model.shapes import ELEMENT_BITS, Shape


def _pointer_bytes() -> int:
    """What XLA's CPU cost analysis counts per tuple element: 8 bytes up to jaxlib 0.10, 4 from
    0.11 (seen on 0.11.2). A module's costs are reckoned as the XLA installed here would."""
    try:
        major, minor = (int(part) for part in importlib.metadata.version("jaxlib").split(".")[:2])
    except (importlib.metadata.PackageNotFoundError, ValueError):
        return 8
    return 4 if (major, minor) >= (0, 11) else 8


POINTER_BYTES = _pointer_bytes()

TRANSCENDENTAL = frozenset({
    "exponential", "exponential-minus-one", "log", "log-plus-one", "logistic", "power", "sqrt", "cbrt", "rsqrt",
    "tanh", "sine", "cosine", "tan", "atan2", "erf",
})
ELEMENTWISE = TRANSCENDENTAL | frozenset({
    "abs", "add", "and", "bitcast-convert", "ceil", "clamp", "compare", "complex", "convert", "count-leading-zeros",
    "divide", "floor", "imag", "is-finite", "maximum", "minimum", "multiply", "negate", "not", "or", "popcnt", "real",
    "reduce-precision", "remainder", "round-nearest-afz", "round-nearest-even", "select", "shift-left",
    "shift-right-arithmetic", "shift-right-logical", "sign", "stochastic-convert", "subtract", "xor",
})
# Ops that only forward pointers or order work: no bytes, no FLOPs.
_FREE = frozenset({"parameter", "constant", "get-tuple-element", "bitcast", "after-all", "add-dependency", "domain"})


@dataclass(frozen=True)
class Cost:
    flops: float = 0.0
    transcendentals: float = 0.0
    bytes_accessed: float = 0.0

    def __add__(self, other: Cost) -> Cost:
        return Cost(self.flops + other.flops, self.transcendentals + other.transcendentals,
                    self.bytes_accessed + other.bytes_accessed)

    def scaled(self, factor: float) -> Cost:
        """The compute of `factor` applications (bytes are not copied from a sub-computation)."""
        return Cost(self.flops * factor, self.transcendentals * factor, 0.0)

    @property
    def known(self) -> bool:
        """False for custom calls (and what contains them): XLA says -1 for what it can't see."""
        return self.flops >= 0 and self.bytes_accessed >= 0

    @property
    def intensity(self) -> float | None:
        """FLOPs per byte accessed (None when either is unknown or there are no bytes)."""
        if not self.known or self.bytes_accessed <= 0:
            return None
        return self.flops / self.bytes_accessed


_UNKNOWN = Cost(-1.0, 0.0, -1.0)


def shape_bytes(shape: Shape) -> int:
    """XLA's `ByteSizeOf` on CPU: a tuple is its pointer table; arrays are packed only with `E(n)`."""
    if shape.is_tuple:
        return POINTER_BYTES * len(shape.tuple_shapes)
    if shape.dtype == "opaque":
        return POINTER_BYTES
    if shape.layout is not None and shape.layout.element_size_bits:
        return (shape.element_count * shape.layout.element_size_bits + 7) // 8
    return shape.element_count * ((ELEMENT_BITS.get(shape.dtype, 0) + 7) // 8)


def written_bytes(shape: Shape) -> int:
    """What an op writes, by XLA's default: its array, or every array of a tuple result (an
    all-to-all's, a copy-start's, a sort's), not the tuple's pointer table (which only a
    `tuple` op is taken to write)."""
    return sum(shape_bytes(leaf) for _, leaf in shape.leaves()) if shape.is_tuple else shape_bytes(shape)


def _elements(shape: Shape) -> int:
    """Elements of an array, or of the first leaf of a tuple (multi-output reduce, sort)."""
    while shape.is_tuple and shape.tuple_shapes:
        shape = shape.tuple_shapes[0]
    return shape.element_count if shape.is_array else 0


class CostModel:
    """Per-instruction costs of one module, computed on demand and cached."""

    def __init__(self, module: HloModule):
        self.module = module
        self._ops: dict[int, Cost] = {}
        self._computations: dict[str, Cost] = {}
        self._unseen: dict[str, tuple[str, ...]] = {}  # computation -> its unknown custom calls' targets (see unseen)

    def total(self) -> Cost:
        """The module's total, as `compiled.cost_analysis()` sums it: the entry's instructions."""
        return self.computation(self.module.entry)

    def computation(self, computation: HloComputation) -> Cost:
        found = self._computations.get(computation.name)
        if found is None:
            found = Cost()
            for ins in computation.instructions:
                found = found + self.op(ins)
            self._computations[computation.name] = found
        return found

    def unseen(self, ins: HloInstruction) -> list[str]:
        """The targets of the custom calls an op's cost takes in from the computations it calls
        (a loop's body, a branch, a fusion's), each counted as XLA counts it, -1 FLOP and -1 byte:
        the op's figure is the rest's less one per call, which reads as a real number."""
        found: dict[str, None] = {}
        for computation in ins.called_computations:
            found.update(dict.fromkeys(self._unseen_in(computation)))
        return list(found)

    def _unseen_in(self, computation: HloComputation) -> tuple[str, ...]:
        found = self._unseen.get(computation.name)
        if found is None:
            targets: dict[str, None] = {}
            for ins in computation.instructions:
                if ins.opcode == "custom-call" and not self.op(ins).known:
                    targets[ins.custom_call_target or "custom-call"] = None
                for called in ins.called_computations:
                    targets.update(dict.fromkeys(self._unseen_in(called)))
            found = self._unseen[computation.name] = tuple(targets)
        return found

    def work(self, ins: HloInstruction) -> Cost:
        """What the op does, for its rates: `op`, except a cuBLAS matmul's or a cuDNN
        convolution's call, which is its dot or convolution here (see the module's docstring)."""
        return _gemm_call(ins) or _convolution_call(ins) or self.op(ins)

    def op(self, ins: HloInstruction) -> Cost:
        found = self._ops.get(id(ins))
        if found is None:
            found = self._ops[id(ins)] = self._measure(ins)
        return found

    # -- the rules ------------------------------------------------------------
    def _measure(self, ins: HloInstruction) -> Cost:
        opcode = ins.opcode
        if opcode in _FREE:
            return Cost()
        if opcode == "custom-call":
            return _UNKNOWN
        default = written_bytes(ins.shape) + sum(shape_bytes(o.shape) for o in ins.operands)
        if opcode in ELEMENTWISE:
            count = ins.shape.element_count if ins.shape.is_array else 0
            if opcode in TRANSCENDENTAL:
                return Cost(0.0, count, default)
            return Cost(count, 0.0, default)
        handler = _HANDLERS.get(opcode)
        if handler is not None:
            return handler(self, ins, default)
        if opcode == "transpose" and _transpose_is_bitcast(ins):
            return Cost()
        return Cost(0.0, 0.0, default)

    def _called(self, ins: HloInstruction, key: str) -> HloComputation | None:
        value = ins.attr(key)
        names = hlo_attrs.parse_name_list(value) if value else []
        return self.module.computation(names[0]) if names else None

    def _dot(self, ins: HloInstruction, default: float) -> Cost:
        lhs = ins.operands[0].shape
        width = math.prod(lhs.dims[d] for d in hlo_attrs.parse_int_list(ins.attr("lhs_contracting_dims") or "{}"))
        return Cost(2.0 * ins.shape.element_count * width, 0.0, default)

    def _convolution(self, ins: HloInstruction, default: float) -> Cost:
        return Cost(2.0 * convolution_fmas(ins), 0.0, default)

    def _reduce(self, ins: HloInstruction, default: float) -> Cost:
        reducer = self._called(ins, "to_apply")
        count = _elements(ins.operands[0].shape) - _elements(ins.shape)
        return self._apply(reducer, count, default)

    def _reduce_window(self, ins: HloInstruction, default: float) -> Cost:
        window = hlo_attrs.parse_window(ins.attr("window") or "{}")
        sizes = window.get("size", [])
        out = _elements(ins.shape)
        count = (math.prod(sizes) - 1) * out
        # XLA's special case: a window over one padded dim that spans it is a reduce + broadcast.
        pads = window.get("pad", [(0, 0)] * len(sizes))
        reduced = [i for i, s in enumerate(sizes) if s != 1]
        padded = [i for i, p in enumerate(pads) if p != (0, 0)]
        if len(reduced) == 1 and len(padded) == 1 and ins.shape.is_array:
            d = reduced[0]
            lo, hi = pads[d]
            if lo and lo == hi and sizes[d] == 2 * lo + 1 and lo == ins.shape.dims[d] - 1:
                span = ins.shape.dims[d]
                count = out // span + span - 1
        return self._apply(self._called(ins, "to_apply"), count, default)

    def _map(self, ins: HloInstruction, default: float) -> Cost:
        return self._apply(self._called(ins, "to_apply"), ins.shape.element_count, default)

    def _apply(self, computation: HloComputation | None, count: int, default: float) -> Cost:
        inner = self.computation(computation).scaled(count) if computation else Cost()
        return Cost(inner.flops, inner.transcendentals, default)

    def _select_and_scatter(self, ins: HloInstruction, default: float) -> Cost:
        window = hlo_attrs.parse_window(ins.attr("window") or "{}")
        source = ins.operands[1].shape.element_count
        select, scatter = self._called(ins, "select"), self._called(ins, "scatter")
        inner = Cost()
        if select:
            inner = inner + self.computation(select).scaled(source * (math.prod(window.get("size", [])) - 1))
        if scatter:
            inner = inner + self.computation(scatter).scaled(source)
        return Cost(inner.flops, inner.transcendentals, default)

    def _sort(self, ins: HloInstruction, default: float) -> Cost:
        n = ins.operands[0].shape.element_count
        return Cost(n * max(0, (n - 1).bit_length()), 0.0, default)

    def _fft(self, ins: HloInstruction, default: float) -> Cost:
        lengths = hlo_attrs.parse_int_list(ins.attr("fft_length") or "{}")
        factors = math.prod(max(1, n).bit_length() - 1 for n in lengths)
        return Cost(2 * 4 * factors * _elements(ins.operands[0].shape), 0.0, default)

    def _cholesky(self, ins: HloInstruction, default: float) -> Cost:
        """n^3/3 a matrix, divided as integers as XLA does; half the operand read, half the result
        written (XLA's HandleCholesky)."""
        a = ins.operands[0].shape
        return Cost(float(a.dims[-1] * _elements(a) // 3) if a.dims else 0.0, 0.0, shape_bytes(a))

    def _triangular_solve(self, ins: HloInstruction, default: float) -> Cost:
        """A multiply-add per element of b and row of a; half of a read (XLA's HandleTriangularSolve)."""
        a, b = ins.operands[0].shape, ins.operands[1].shape
        flops = 2.0 * a.dims[-1] * _elements(b) if a.dims else 0.0
        return Cost(flops, 0.0, shape_bytes(ins.shape) + shape_bytes(a) / 2 + shape_bytes(b))

    def _all_reduce(self, ins: HloInstruction, default: float) -> Cost:
        return Cost(sum(leaf.element_count for _, leaf in ins.shape.leaves() if leaf.is_array), 0.0, default)

    def _rng(self, ins: HloInstruction, default: float) -> Cost:
        count = sum(leaf.element_count for _, leaf in ins.shape.leaves() if leaf.is_array)
        return Cost(0.0, count, default)

    def _tuple(self, ins: HloInstruction, default: float) -> Cost:
        return Cost(0.0, 0.0, shape_bytes(ins.shape))

    def _slice(self, ins: HloInstruction, default: float) -> Cost:
        return Cost(0.0, 0.0, 2 * shape_bytes(ins.shape))

    def _dynamic_slice(self, ins: HloInstruction, default: float) -> Cost:
        return Cost(0.0, 0.0, 2 * shape_bytes(ins.shape) + shape_bytes(ins.operands[1].shape))

    def _dynamic_update_slice(self, ins: HloInstruction, default: float) -> Cost:
        return Cost(0.0, 0.0, 2 * shape_bytes(ins.operands[1].shape) + shape_bytes(ins.operands[2].shape))

    def _gather(self, ins: HloInstruction, default: float) -> Cost:
        return Cost(0.0, 0.0, 2 * shape_bytes(ins.shape) + shape_bytes(ins.operands[1].shape))

    def _scatter(self, ins: HloInstruction, default: float) -> Cost:
        n = (len(ins.operands) - 1) // 2
        updates = ins.operands[n + 1 :]
        total = sum(shape_bytes(u.shape) for u in updates)
        inner = self._apply(self._called(ins, "to_apply"), updates[0].shape.element_count if updates else 0, 0)
        return Cost(inner.flops, inner.transcendentals, 3 * total + shape_bytes(ins.operands[n].shape))

    def _call(self, ins: HloInstruction, default: float) -> Cost:
        called = self._called(ins, "to_apply") or self._called(ins, "calls")
        return self.computation(called) if called else Cost()

    def _async_start(self, ins: HloInstruction, default: float) -> Cost:
        called = self._called(ins, "calls")
        return self.computation(called) if called else Cost(0.0, 0.0, default)

    def _while(self, ins: HloInstruction, default: float) -> Cost:
        total = Cost()
        for key in ("body", "condition"):
            called = self._called(ins, key)
            if called:
                total = total + self.computation(called)
        return total

    def _conditional(self, ins: HloInstruction, default: float) -> Cost:
        branches = [c for c in ins.called_computations]
        costs = [self.computation(c) for c in branches]
        if not costs:
            return Cost()
        return Cost(max(c.flops for c in costs), max(c.transcendentals for c in costs),
                    max(c.bytes_accessed for c in costs))

    def _fusion(self, ins: HloInstruction, default: float) -> Cost:
        body = self._called(ins, "calls")
        if body is None:
            return Cost(0.0, 0.0, default)
        if ins.fusion_kind == "kCustom":
            for inner in body.instructions:
                if inner.opcode in ("gather", "scatter"):
                    return self.op(inner)
        compute = self.computation(body)
        return Cost(compute.flops, compute.transcendentals, self._fusion_bytes(ins.shape, body))

    def _fusion_start(self, ins: HloInstruction, default: float) -> Cost:
        """An async fusion printed with syntax sugar (as jaxlib prints a proto): what the fusion
        it wraps costs (its result is the start's element 1), as the unsugared async-start does."""
        body = self._called(ins, "calls")
        if body is None or not ins.shape.is_tuple or len(ins.shape.tuple_shapes) < 2:
            return Cost(0.0, 0.0, default)
        compute = self.computation(body)
        return Cost(compute.flops, compute.transcendentals, self._fusion_bytes(ins.shape.tuple_shapes[1], body))

    def _fusion_bytes(self, shape: Shape, body: HloComputation) -> float:
        root = body.root
        written = 0
        for index, leaf in shape.leaves():
            if not leaf.is_array:
                continue
            producer = root.operands[index[0]] if len(index) == 1 and root.opcode == "tuple" else root
            if len(index) <= 1 and producer.opcode == "dynamic-update-slice":
                written += shape_bytes(producer.operands[1].shape)
            else:
                written += shape_bytes(leaf)
        constants = sum(shape_bytes(c.shape) for c in body.instructions
                        if c.opcode == "constant" and c.shape.element_count > 1)
        read = sum(_parameter_read_bytes(p) for p in body.parameters)
        return written + constants + read


def module_cost(module: HloModule) -> Cost:
    """The module's total, as XLA's `compiled.cost_analysis()` reports it."""
    return CostModel(module).total()


def op_cost(ins: HloInstruction) -> Cost:
    """One instruction's work, for its rates (CostModel.work; a screen that asks for many
    should keep one CostModel)."""
    return CostModel(ins.computation.module).work(ins)


def _parameter_read_bytes(param: HloInstruction) -> int:
    """Bytes a fusion reads through one parameter: once, unless slices/broadcasts/reshapes read it."""
    if param.shape.is_tuple:
        total = 0
        for index, _ in param.shape.leaves():
            node = param
            for i in index:
                node = next((u for u in node.users if u.opcode == "get-tuple-element" and u.attr("index") == str(i)), node)
            total += _parameter_read_bytes(node) if node is not param else shape_bytes(param.shape)
        return total
    size, shared = 0, False
    for user in param.users:
        op = user.opcode
        if op == "slice":
            size += shape_bytes(user.shape)
        elif op == "dynamic-slice" and user.operands[0] is param:
            size += shape_bytes(user.shape)
        elif op == "dynamic-update-slice" and user.operands[0] is param:
            continue
        elif op in ("broadcast", "reshape"):
            size += shape_bytes(param.shape)
        elif not shared:
            shared = True
            size += shape_bytes(param.shape)
    return size


def convolution_fmas(ins: HloInstruction, result: Shape | None = None) -> int:
    """Multiply-adds of a convolution (or a library call's, whose `result` is the first element
    of its tuple), counting only window positions that land in the input."""
    labels = hlo_attrs.parse_dim_labels(ins.attr("dim_labels") or "")
    if not labels:
        return 0
    lhs, rhs, out = ins.operands[0].shape.dims, ins.operands[1].shape.dims, (result or ins.shape).dims
    window = hlo_attrs.parse_window(ins.attr("window") or "{}")
    spatial = sorted((c for c in labels["lhs"] if c.isdigit()), key=int)  # window dim n is spatial dim n (`b10f`: 0 is third)
    positions = 1
    for n, axis in enumerate(spatial):
        size_in = lhs[labels["lhs"].index(axis)]
        size_k = rhs[labels["rhs"].index(axis)]
        size_out = out[labels["out"].index(axis)]
        stride = _window_value(window, "stride", n, 1)
        low = window.get("pad", [(0, 0)] * len(spatial))[n][0] if n < len(window.get("pad", [])) else 0
        base = _window_value(window, "lhs_dilate", n, 1)
        dilation = _window_value(window, "rhs_dilate", n, 1)
        valid = 0
        for k in range(size_k):
            for o in range(size_out):
                at = o * stride - low + k * dilation
                if at % base == 0 and 0 <= at // base < size_in:
                    valid += 1
        positions *= valid
    feature_groups = int(ins.attr("feature_group_count") or 1)
    batch_groups = int(ins.attr("batch_group_count") or 1)
    batch = lhs[labels["lhs"].index("b")]
    in_features = lhs[labels["lhs"].index("f")]
    out_features = out[labels["out"].index("f")]
    return (in_features // feature_groups) * out_features * (batch // batch_groups) * positions


def _window_value(window: dict, key: str, n: int, default: int) -> int:
    values = window.get(key, [])
    return values[n] if n < len(values) else default


def _transpose_is_bitcast(ins: HloInstruction) -> bool:
    """A transpose whose output is the operand's bytes in the same order (XLA treats it as a bitcast)."""
    src, dst = ins.operands[0].shape, ins.shape
    if src.layout is None or dst.layout is None or src.layout.tiles or dst.layout.tiles:
        return False
    perm = hlo_attrs.parse_int_list(ins.attr("dimensions") or "{}")
    if len(perm) != len(dst.dims):
        return False
    # Output dim i is operand dim perm[i]; physical orders must visit the same operand dims.
    dst_order = [perm[d] for d in dst.layout.minor_to_major if dst.dims[d] != 1]
    src_order = [d for d in src.layout.minor_to_major if src.dims[d] != 1]
    return dst_order == src_order


def _library_result(ins: HloInstruction) -> Shape:
    """A library call's result: its tuple's first element (the second is the library's
    workspace or scratch, which XLA's GPU cost analysis leaves out)."""
    return ins.shape.tuple_shapes[0] if ins.shape.is_tuple else ins.shape


def _library_cost(ins: HloInstruction, flops: float) -> Cost:
    """`flops`, and bytes as an op's: the result and every operand."""
    return Cost(flops, 0.0, shape_bytes(_library_result(ins)) + sum(shape_bytes(o.shape) for o in ins.operands))


def known_trip_count(ins: HloInstruction) -> int | None:
    """A while loop's trip count where XLA worked it out (`known_trip_count` in its backend
    config); XLA's cost analysis counts one trip of the body all the same."""
    config = hlo_attrs.parse_backend_config(ins.attr("backend_config") or "") if ins.opcode == "while" else None
    found = config.get("known_trip_count", {}).get("n") if isinstance(config, dict) else None
    try:
        return int(found) if found is not None else None
    except (TypeError, ValueError):
        return None


def _gemm_call(ins: HloInstruction) -> Cost | None:
    """A cuBLAS matmul's custom call as its dot: 2 x result elements x contracted size."""
    if not (ins.custom_call_target or "").startswith(GEMM_TARGETS) or not ins.operands:
        return None
    config = hlo_attrs.parse_backend_config(ins.attr("backend_config") or "")
    dims = config.get("gemm_backend_config", {}).get("dot_dimension_numbers") if isinstance(config, dict) else None
    if dims is None:
        return None
    lhs = ins.operands[0].shape
    width = math.prod(lhs.dims[int(d)] for d in dims.get("lhs_contracting_dimensions", []))
    return _library_cost(ins, 2.0 * _library_result(ins).element_count * width)


def _convolution_call(ins: HloInstruction) -> Cost | None:
    """A cuDNN (on ROCm, MIOpen) convolution's custom call as its convolution, by the call's own
    window and dim_labels, as XLA's GPU cost analysis counts it."""
    if not (ins.custom_call_target or "").startswith(CONVOLUTION_TARGETS) or len(ins.operands) < 2:
        return None
    fmas = convolution_fmas(ins, _library_result(ins))
    return _library_cost(ins, 2.0 * fmas) if fmas else None


_HANDLERS = {
    "dot": CostModel._dot, "convolution": CostModel._convolution, "reduce": CostModel._reduce,
    "reduce-window": CostModel._reduce_window, "map": CostModel._map, "select-and-scatter": CostModel._select_and_scatter,
    "sort": CostModel._sort, "fft": CostModel._fft, "all-reduce": CostModel._all_reduce,
    "all-reduce-start": CostModel._all_reduce, "rng": CostModel._rng, "rng-bit-generator": CostModel._rng,
    "tuple": CostModel._tuple, "slice": CostModel._slice, "dynamic-slice": CostModel._dynamic_slice,
    "dynamic-update-slice": CostModel._dynamic_update_slice, "gather": CostModel._gather, "scatter": CostModel._scatter,
    "call": CostModel._call, "async-start": CostModel._async_start, "while": CostModel._while,
    "conditional": CostModel._conditional, "fusion": CostModel._fusion, "fusion-start": CostModel._fusion_start,
    "cholesky": CostModel._cholesky, "triangular-solve": CostModel._triangular_solve,
}
