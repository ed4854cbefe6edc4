"""Op categories: the groups users scan for (matmuls, fusions by kind, collectives, layout changes).

Every screen colours by these, so an all-gather looks the same in the graph, the schedule,
the memory table and the timeline.
"""

from __future__ import annotations

import re

COLLECTIVES = frozenset({
    "all-reduce", "all-gather", "all-to-all", "reduce-scatter", "collective-permute", "collective-broadcast",
    "ragged-all-to-all", "send", "recv", "send-done", "recv-done",
})
LAYOUT = frozenset({"copy", "transpose", "bitcast", "reshape", "broadcast", "copy-start", "copy-done",
                    "bitcast-convert", "slice", "dynamic-slice", "dynamic-update-slice", "concatenate", "pad",
                    "reverse", "gather", "scatter"})
CONTROL = frozenset({"while", "conditional", "call", "async-start", "async-update", "async-done", "tuple",
                     "get-tuple-element", "after-all", "add-dependency", "opt-barrier", "domain"})
MATMUL = frozenset({"dot", "convolution", "ragged-dot", "scaled-dot"})
REDUCE = frozenset({"reduce", "reduce-window", "select-and-scatter", "sort", "topk", "reduce-precision"})

# Every opcode XLA's HLO parser knows (hlo_opcode.h; tests ask XLA's parser about each).
OPCODES = COLLECTIVES | LAYOUT | CONTROL | MATMUL | REDUCE | frozenset({
    "abs", "acos", "acosh", "add", "all-gather-done", "all-gather-start", "all-reduce-done", "all-reduce-start",
    "and", "asin", "asinh", "atan2", "atanh", "batch-norm-grad", "batch-norm-inference", "batch-norm-training",
    "cbrt", "ceil", "cholesky", "clamp", "collective-permute-done", "collective-permute-start", "compare",
    "complex", "constant", "convert", "cosh", "cosine", "count-leading-zeros", "custom-call", "divide",
    "dynamic-reshape", "erf", "exponential", "exponential-minus-one", "fft", "floor", "fusion",
    "get-dimension-size", "imag", "infeed", "iota", "is-finite", "log", "log-plus-one", "logistic", "map",
    "maximum", "minimum", "multiply", "negate", "not", "or", "outfeed", "parameter", "partition-id", "popcnt",
    "power", "real", "remainder", "replica-id", "rng", "rng-bit-generator", "rng-get-and-update-state",
    "round-nearest-afz", "round-nearest-even", "rsqrt", "select", "set-dimension-size", "shift-left",
    "shift-right-arithmetic", "shift-right-logical", "sign", "sine", "sinh", "sqrt", "stochastic-convert",
    "subtract", "tan", "tanh", "triangular-solve", "xor",
})


def is_opcode(opcode: str) -> bool:
    """Whether XLA knows `opcode`, including the `<op>-start/-update/-done` async spellings of any op."""
    return opcode in OPCODES or async_part(opcode) is not None


def async_part(opcode: str) -> str | None:
    """`async-start`/`-update`/`-done` for an async op, also one printed with syntax sugar
    (`fusion-start`: an op XLA knows with that suffix, as jaxlib prints a proto's async
    wrappers); None for any other op, those with a start and done of their own
    (`all-reduce-start`, `copy-done`) included."""
    if opcode in ("async-start", "async-update", "async-done"):
        return opcode
    if opcode in OPCODES:
        return None
    base, _, part = opcode.rpartition("-")
    return f"async-{part}" if part in ("start", "update", "done") and base in OPCODES else None


# Category names in display order (also the legend order).
CATEGORIES = ("matmul", "fusion", "loop fusion", "input fusion", "output fusion", "custom fusion", "collective",
              "layout", "custom-call", "reduce", "elementwise", "control", "parameter", "constant")

ASYNC_HALVES = ("-start", "-done", "-update")  # an async op's events: `copy-start`, `all-gather-done`
_FUSION_KINDS = {"kLoop": "loop fusion", "kInput": "input fusion", "kOutput": "output fusion", "kCustom": "custom fusion"}


def category(opcode: str, fusion_kind: str | None = None) -> str:
    """The category of an op from its opcode (and fusion kind, when it is a fusion)."""
    if opcode == "fusion":
        return _FUSION_KINDS.get(fusion_kind or "", "fusion")
    base = opcode
    for suffix in ASYNC_HALVES:
        if base.endswith(suffix):
            base = base[: -len(suffix)]
            break
    if base == "fusion":  # a fusion's async wrapper, printed sugared (`fusion-start`)
        return "fusion"
    if base in MATMUL:
        return "matmul"
    if base in COLLECTIVES or opcode in COLLECTIVES:
        return "collective"
    if opcode == "custom-call":
        return "custom-call"
    if opcode == "parameter":
        return "parameter"
    if opcode in ("constant", "iota"):
        return "constant"
    if opcode in LAYOUT:
        return "layout"
    if opcode in CONTROL:
        return "control"
    if opcode in REDUCE:
        return "reduce"
    return "elementwise"


GEMM_TARGETS = ("__cublas$gemm", "__cublas$lt$matmul")  # custom calls of cuBLAS matmuls (and `$f8` ones)
CONVOLUTION_TARGETS = ("__cudnn$conv",)


def instruction_category(ins) -> str:
    """An instruction's category; a custom fusion around a dot or convolution (a GPU's Triton
    or cuBLAS GEMM fusion), and a cuBLAS matmul's or cuDNN convolution's custom call, are matmuls."""
    if ins.opcode == "custom-call" and (ins.custom_call_target or "").startswith(GEMM_TARGETS + CONVOLUTION_TARGETS):
        return "matmul"
    if ins.opcode != "fusion":
        return category(ins.opcode)
    kind = ins.fusion_kind
    if kind == "kCustom" and any(inner.opcode in MATMUL for body in ins.called_computations for inner in body.instructions):
        return "matmul"
    return category(ins.opcode, kind)


_KERNEL_NUMBER = re.compile(r"(?<=[a-z])_\d+$")


def category_of_event_name(name: str) -> str:
    """Category of a profile event named after an HLO op (`fusion.3`, `all-reduce-start.1`, `dot`)."""
    base = name.lstrip("%").split(" ", 1)[0]
    stem = _KERNEL_NUMBER.sub("", base.split(".", 1)[0])  # a GPU kernel's `input_reduce_fusion_5`
    if stem.endswith(("_fusion", "-fusion")) or stem == "fusion":
        return "fusion"
    for prefix in ("convolution", "dot", "cublas", "gemm", "matmul"):
        if prefix in stem:
            return "matmul"
    return category(stem)
