"""XLA shapes and layouts as printed in HLO text, with their logical and physical sizes.

`parse_shape` is called once per distinct shape string (results are cached), so the parser
can afford to be plain; the HLO parser's speed comes from the cache, not from here.
"""

from __future__ import annotations

import math
import re
from functools import lru_cache

# Bits per element of every XLA primitive type (xla_data.proto's PrimitiveType).
ELEMENT_BITS: dict[str, int] = {
    "pred": 8,
    "s1": 1, "s2": 2, "s4": 4, "s8": 8, "s16": 16, "s32": 32, "s64": 64,
    "u1": 1, "u2": 2, "u4": 4, "u8": 8, "u16": 16, "u32": 32, "u64": 64,
    "f16": 16, "bf16": 16, "f32": 32, "f64": 64,
    "c64": 64, "c128": 128,
    "f8e5m2": 8, "f8e4m3": 8, "f8e4m3fn": 8, "f8e4m3b11fnuz": 8, "f8e3m4": 8,
    "f8e5m2fnuz": 8, "f8e4m3fnuz": 8, "f8e8m0fnu": 8,
    "f6e2m3fn": 6, "f6e3m2fn": 6, "f4e2m1fn": 4,
    "token": 0, "opaque": 0,
}

COMBINE = -1  # a `*` tile dimension: combine this dimension into the next more minor one
MAX_TUPLE_DEPTH = 100  # deeper is refused, named by line and column (programs nest a few levels)
_MOST_BITS = (2**63 - 1) * 8  # an array's bytes must fit an int64, as XLA's ShapeUtil::ValidateShape checks


class ShapeError(ValueError):
    """A shape string that XLA would not print; `column` is 0-based within the string."""

    def __init__(self, message: str, column: int = 0):
        super().__init__(message)
        self.column = column


class Layout:
    """A layout: minor-to-major order, tiles (`T(8,128)(2,1)`), element size (`E(4)`),
    memory space (`S(1)`), tail padding (`L(16)`: the element count rounded up to a multiple),
    and the rarer fields kept raw (`D(...)`, `#(...)`, `P(...)`, ...)."""

    __slots__ = ("minor_to_major", "tiles", "element_size_bits", "memory_space", "dynamic_metadata_bytes",
                 "tail_padding", "extra", "text")

    def __init__(self, minor_to_major, tiles=(), element_size_bits=0, memory_space=0, dynamic_metadata_bytes=0, extra=(),
                 text="", tail_padding=1):
        self.minor_to_major: tuple[int, ...] = tuple(minor_to_major)
        self.tiles: tuple[tuple[int, ...], ...] = tuple(tiles)
        self.element_size_bits: int = element_size_bits
        self.memory_space: int = memory_space
        self.dynamic_metadata_bytes: int = dynamic_metadata_bytes
        self.tail_padding: int = tail_padding
        self.extra: tuple[tuple[str, str], ...] = tuple(extra)  # (tag, raw body) of fields not decoded above
        self.text: str = text

    def __repr__(self) -> str:
        return f"Layout({self.text})"

    def __eq__(self, other) -> bool:
        return isinstance(other, Layout) and self.text == other.text

    def __hash__(self) -> int:
        return hash(self.text)


class Shape:
    """An array, tuple, token or opaque shape. Immutable and shared: one object per distinct text."""

    __slots__ = ("dtype", "dims", "dynamic", "layout", "tuple_shapes", "text", "_sizes")

    def __init__(self, dtype, dims=(), dynamic=(), layout=None, tuple_shapes=None, text=""):
        self.dtype: str = dtype  # "f32", ..., or "tuple"
        self.dims: tuple[int, ...] = tuple(dims)
        self.dynamic: tuple[bool, ...] = tuple(dynamic) if dynamic else (False,) * len(self.dims)
        self.layout: Layout | None = layout
        self.tuple_shapes: tuple[Shape, ...] | None = tuple(tuple_shapes) if tuple_shapes is not None else None
        self.text: str = text
        self._sizes: tuple[int, int] | None = None

    def __repr__(self) -> str:
        return f"Shape({self.text})"

    @property
    def is_tuple(self) -> bool:
        return self.tuple_shapes is not None

    @property
    def is_array(self) -> bool:
        return self.tuple_shapes is None and self.dtype not in ("token", "opaque")

    @property
    def rank(self) -> int:
        return len(self.dims)

    @property
    def element_count(self) -> int:
        return math.prod(self.dims)

    @property
    def element_bits(self) -> int:
        """Bits each element occupies in memory: the layout's `E(n)` if set, else the type's width."""
        if self.layout is not None and self.layout.element_size_bits:
            return self.layout.element_size_bits
        return ELEMENT_BITS.get(self.dtype, 0)

    @property
    def memory_space(self) -> int:
        """The layout's `S(n)`; 0 (default device memory) when absent. Tuples: 0."""
        return self.layout.memory_space if self.layout is not None else 0

    @property
    def byte_size(self) -> int:
        """Logical bytes: elements x element width, sub-byte types packed; tuples sum their leaves."""
        return self._size_pair()[0]

    @property
    def padded_byte_size(self) -> int:
        """Bytes as the device stores it, by XLA's `ShapeUtil::ArraySize`: the first tile level
        rounds the minor dims up to whole tiles (XLA takes sub-tiles to add no padding), `L(n)`
        rounds a tiled array's element count up, `E(n)` packs; without it a sub-byte element takes a byte."""
        return self._size_pair()[1]

    def leaves(self):
        """Array/token leaves with their shape index, depth first: ((0, 1), Shape), ..."""
        if self.tuple_shapes is None:
            yield (), self
            return
        for i, element in enumerate(self.tuple_shapes):
            for index, leaf in element.leaves():
                yield (i, *index), leaf

    def dims_text(self) -> str:
        parts = [("<=" if dyn else "") + str(d) for d, dyn in zip(self.dims, self.dynamic)]
        return f"{self.dtype}[{','.join(parts)}]"

    def _size_pair(self) -> tuple[int, int]:
        if self._sizes is None:
            if self.tuple_shapes is not None:
                pairs = [s._size_pair() for s in self.tuple_shapes]
                self._sizes = (sum(p[0] for p in pairs), sum(p[1] for p in pairs))
            else:
                layout = self.layout
                logical = _bits_to_bytes(self.element_count * ELEMENT_BITS.get(self.dtype, 0))
                stored = self.element_count
                bits = -(-ELEMENT_BITS.get(self.dtype, 0) // 8) * 8  # a byte at least, as XLA stores it unpacked
                if layout is not None:
                    if layout.tiles:  # untiled, XLA sizes the elements alone (L(n) then pads nothing)
                        stored = math.prod(tiled_dims(self.physical_dims(), layout.tiles[:1]))
                        stored = -(-stored // layout.tail_padding) * layout.tail_padding
                    bits = layout.element_size_bits or bits
                physical = _bits_to_bytes(stored * bits) + (layout.dynamic_metadata_bytes if layout is not None else 0)
                self._sizes = (logical, physical)
        return self._sizes

    def physical_dims(self) -> tuple[int, ...]:
        """Dims in memory order, most major first (minor_to_major reversed)."""
        if self.layout is None or len(self.layout.minor_to_major) != len(self.dims):
            return self.dims
        return tuple(self.dims[d] for d in reversed(self.layout.minor_to_major))


def _bits_to_bytes(bits: int) -> int:
    return (bits + 7) // 8


def tiled_dims(physical_dims, tiles) -> tuple[int, ...]:
    """The dims after applying each tile in turn (XLA's tiled layout: pad, reshape, transpose).

    A tile covers the most minor dims; a tile longer than the shape adds leading 1s; `*`
    (COMBINE) folds that dim into the next more minor one before tiling."""
    dims = list(physical_dims)
    for tile in tiles:
        if len(tile) > len(dims):
            dims = [1] * (len(tile) - len(dims)) + dims
        prefix, suffix = dims[: len(dims) - len(tile)], dims[len(dims) - len(tile) :]
        merged, merged_tile, carry = [], [], 1
        for d, t in zip(suffix, tile):
            if t == COMBINE:
                carry *= d
                continue
            merged.append(d * carry)
            merged_tile.append(t)
            carry = 1
        dims = prefix + [-(-d // t) for d, t in zip(merged, merged_tile)] + merged_tile
    return tuple(dims)


_ARRAY = re.compile(r"([a-z][a-z0-9]*)\[([^\]]*)\]")
_LAYOUT_FIELD = re.compile(r"([A-Z]+|#|\*)\(")
_COMMENT = re.compile(r"/\*.*?\*/")


@lru_cache(maxsize=None)
def parse_shape(text: str) -> Shape:
    """Parse one shape as XLA prints it: `f32[3,5]{1,0:T(2,2)}`, `(s32[], bf16[<=8]{0})`, `token[]`."""
    clean = _COMMENT.sub("", text) if "/*" in text else text
    shape, end = _parse_at(clean.strip(), 0)
    rest = clean.strip()[end:]
    if rest.strip():
        raise ShapeError(f"unexpected {rest.strip()[:20]!r} after shape", end)
    shape.text = text
    return shape


def parse_shape_prefix(text: str, pos: int = 0) -> tuple[Shape, int]:
    """Parse the shape starting at text[pos:]; return it and the index just past it."""
    return _parse_at(text, pos)


def _parse_at(text: str, pos: int, depth: int = 0) -> tuple[Shape, int]:
    if text.startswith("(", pos):
        if depth == MAX_TUPLE_DEPTH:
            raise ShapeError(f"tuple shape nested more than {MAX_TUPLE_DEPTH} deep", pos)
        elements = []
        i = pos + 1
        while True:
            while i < len(text) and text[i] == " ":
                i += 1
            if text.startswith(")", i):
                break
            element, i = _parse_at(text, i, depth + 1)
            elements.append(element)
            while i < len(text) and text[i] == " ":
                i += 1
            if text.startswith(",", i):
                i += 1
            elif not text.startswith(")", i):
                raise ShapeError("expected ',' or ')' in tuple shape", i)
        return Shape("tuple", tuple_shapes=elements, text=text[pos : i + 1]), i + 1
    m = _ARRAY.match(text, pos)
    if m is None:
        raise ShapeError(f"expected a shape, got {text[pos:pos + 20]!r}", pos)
    dtype = m.group(1)
    if dtype not in ELEMENT_BITS:
        raise ShapeError(f"unknown element type {dtype!r}", pos)
    dims, dynamic = _parse_dims(m.group(2), m.start(2))
    if math.prod(dims) * ELEMENT_BITS[dtype] > _MOST_BITS:
        raise ShapeError("its size overflows 64 bits (XLA refuses such shapes)", pos)
    end = m.end()
    layout = None
    if text.startswith("{", end):
        close = _matching(text, end, "{", "}")
        layout = _parse_layout(text[end + 1 : close], end + 1, len(dims))
        end = close + 1
    return Shape(dtype, dims, dynamic, layout, text=text[pos:end]), end


def _parse_dims(body: str, column: int) -> tuple[list[int], list[bool]]:
    dims, dynamic = [], []
    if not body.strip():
        return dims, dynamic
    for part in body.split(","):
        part = part.strip()
        dyn = part.startswith("<=")
        if dyn:
            part = part[2:]
        if part == "?":
            dims.append(0)
            dynamic.append(True)
            continue
        if not part.isdigit():
            raise ShapeError(f"bad dimension {part!r}", column)
        dims.append(int(part))
        dynamic.append(dyn)
    return dims, dynamic


def _matching(text: str, start: int, open_: str, close: str) -> int:
    depth = 0
    for i in range(start, len(text)):
        c = text[i]
        if c == open_:
            depth += 1
        elif c == close:
            depth -= 1
            if depth == 0:
                return i
    raise ShapeError(f"unbalanced {open_!r}", start)


def _parse_layout(body: str, column: int, rank: int) -> Layout:
    order_text, _, fields = body.partition(":")
    try:
        minor_to_major = [int(x) for x in order_text.split(",")] if order_text.strip() else []
    except ValueError:
        raise ShapeError(f"bad minor_to_major {order_text!r}", column) from None
    if minor_to_major and sorted(minor_to_major) != list(range(rank)):
        raise ShapeError(f"layout {{{order_text}}} is not a permutation of {rank} dimensions", column)
    tiles, element_bits, memory_space, metadata_bytes, tail, extra = [], 0, 0, 0, 1, []
    i = 0
    while i < len(fields):
        m = _LAYOUT_FIELD.match(fields, i)
        if m is None:
            raise ShapeError(f"bad layout field {fields[i:i + 10]!r}", column + len(order_text) + 1 + i)
        tag = m.group(1)
        groups = []
        j = m.end() - 1
        while j < len(fields) and fields[j] == "(":
            close = _matching(fields, j, "(", ")")
            groups.append(fields[j + 1 : close])
            j = close + 1
        i = j
        if tag == "T":
            tiles = [tuple(COMBINE if x.strip() == "*" else int(x) for x in g.split(",")) for g in groups]
        elif tag in ("E", "S", "M", "L") and len(groups) == 1 and groups[0].strip().isdigit():
            value = int(groups[0])
            if tag == "E":
                element_bits = value
            elif tag == "S":
                memory_space = value
            elif tag == "L":
                tail = max(1, value)
            else:
                metadata_bytes = value
        else:
            extra.append((tag, "".join(f"({g})" for g in groups)))
    return Layout(minor_to_major, tiles, element_bits, memory_space, metadata_bytes, extra, "{" + body + "}", tail)


def human_bytes(n: float) -> str:
    """1536 -> '1.5 KiB'. Binary units, as XLA's own reports use."""
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(n) < 1024 or unit == "TiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} TiB"
