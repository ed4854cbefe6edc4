"""Shapes and layouts: sizes agree with XLA's buffer assignment and with XLA's tiling rules."""

from __future__ import annotations

import pytest

from tui.model.shapes import ShapeError, parse_shape, tiled_dims


@pytest.mark.parametrize(
    "text, logical, padded",
    [
        # docs/tiled_layout.md and the profiling chapter's examples
        ("f32[3,5]{1,0:T(2,2)}", 60, 96),
        ("bf16[3,5]{1,0:T(8,128)(2,1)}", 30, 2048),
        ("bf16[32,256]{1,0:T(8,128)(2,1,1,1)}", 16384, 16384),
        ("f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}", 2 * 7 * 8 * 11 * 10 * 4, 112 * 111 * 4),
        # a TPU scalar occupies a whole (128) tile
        ("f32[]{:T(128)S(6)}", 4, 512),
        # the minor-to-major order decides which dims get tiled
        ("f32[5,3]{0,1:T(2,2)}", 60, 96),
        # sub-byte types are packed; E(n) sets the stored width
        ("s4[10]{0:E(4)}", 5, 5),
        ("u8[10]{0:E(4)}", 10, 5),
        ("pred[7]", 7, 7),
        ("token[]", 0, 0),
        ("(f32[2], s32[3], ())", 20, 20),
        # XLA's ShapeUtil::ArraySize: without E(n) a sub-byte element takes a byte
        ("s4[1024]{0}", 512, 1024),
        ("s4[8,128]{1,0:T(8,128)}", 512, 1024),
        # L(n) rounds the element count up: 16 tiled elements to 32
        ("f32[3,5]{1,0:T(2,2)L(32)}", 60, 128),
        # ...of a tiled array only: untiled, ArraySize is the elements' bytes
        ("f32[100]{0:L(1024)}", 400, 400),
        # only the first tile level pads (XLA takes sub-tiles to add none): [5,7] by (4,3) is [8,9]
        ("f32[5,7]{1,0:T(4,3)(2,2)}", 140, 288),
        ("u4[1024,7]{1,0:T(2,128)(4,1)E(4)}", 3584, 65536),
    ],
)
def test_sizes(text, logical, padded):
    shape = parse_shape(text)
    assert (shape.byte_size, shape.padded_byte_size) == (logical, padded)


def test_layout_fields():
    shape = parse_shape("f32[5,1024]{1,0:T(8,128)S(5)}")
    assert shape.memory_space == 5
    assert shape.layout.tiles == ((8, 128),)
    assert shape.layout.minor_to_major == (1, 0)
    assert parse_shape("f32[8]{0}").memory_space == 0
    assert parse_shape("f32[8]").layout is None


def test_repeated_tiling_matches_the_docs_figure():
    # docs/tiled_layout.md: an 8x8 array tiled (2,4)(2,1,1,1) becomes (2,2,2,4,2,1,1,1)
    assert tiled_dims((8, 8), [(2, 4), (2, 1, 1, 1)]) == (2, 2, 2, 4, 2, 1, 1, 1)


def test_dynamic_and_tuple_shapes():
    shape = parse_shape("(f32[<=16,4]{1,0}, /*index=1*/s32[])")
    assert shape.is_tuple and len(shape.tuple_shapes) == 2
    assert shape.tuple_shapes[0].dynamic == (True, False)
    assert [index for index, _ in shape.leaves()] == [(0,), (1,)]


@pytest.mark.parametrize("bad", ["f32[3,x]", "q32[3]", "f32[3]{1,0}", "(f32[2], ", "f32[2]{0:T(2}"])
def test_malformed_shapes_raise(bad):
    with pytest.raises(ShapeError):
        parse_shape(bad)


def test_sizes_equal_xla_buffer_assignment(programs):
    """Every array value XLA assigned a buffer to has exactly the size our shape gives it."""
    from tui.model.xla_memory_files import parse_buffer_assignment

    checked = 0
    dtypes = set()
    for folder in programs.values():
        for path in folder.glob("*buffer-assignment.txt"):
            for allocation in parse_buffer_assignment(path).allocations:
                for value in allocation.values:
                    shape = parse_shape(value.shape)
                    if shape.is_tuple:
                        continue  # tuples are pointer tables in memory, not their elements
                    assert shape.padded_byte_size == value.size, (path.name, value)
                    dtypes.add(shape.dtype)
                    checked += 1
    assert checked > 500
    assert {"f32", "s32", "pred"} <= dtypes


def test_sizes_equal_a_real_gpu_buffer_assignment(corpus):
    from tui.model.xla_memory_files import parse_buffer_assignment

    checked = 0
    for path in corpus.glob("hlo/dumps/*/*buffer-assignment.txt"):
        for allocation in parse_buffer_assignment(path).allocations:
            for value in allocation.values:
                shape = parse_shape(value.shape)
                if not shape.is_tuple:
                    assert shape.padded_byte_size == value.size, value
                    checked += 1
    assert checked > 100


def test_tuples_nest_to_a_limit_named_where_it_is_passed():
    """A hundred levels parse (each level's element read); deeper is a ShapeError at the `(` that
    passes the limit, not a RecursionError from Python's stack."""
    from tui.model.shapes import MAX_TUPLE_DEPTH

    shape = parse_shape("(" * MAX_TUPLE_DEPTH + "f32[2]{0}" + ")" * MAX_TUPLE_DEPTH)
    for _ in range(MAX_TUPLE_DEPTH):
        assert shape.dtype == "tuple" and len(shape.tuple_shapes) == 1
        shape = shape.tuple_shapes[0]
    assert shape.dims == (2,)
    with pytest.raises(ShapeError, match=f"nested more than {MAX_TUPLE_DEPTH} deep") as raised:
        parse_shape("(" * 1500 + "f32[2]" + ")" * 1500)
    assert raised.value.column == MAX_TUPLE_DEPTH


def test_an_array_whose_bytes_overflow_64_bits_is_refused():
    """As XLA's ShapeUtil::ValidateShape: f32[2**62] is 2**64 bytes (an OverflowError in the
    memory profile's int64 sizes before); the most an int64 holds still parses."""
    with pytest.raises(ShapeError, match="overflows 64 bits"):
        parse_shape(f"f32[{2**62}]{{0}}")
    with pytest.raises(ShapeError, match="overflows 64 bits"):
        parse_shape(f"(f32[2], bf16[{2**31},{2**32}])")
    assert parse_shape(f"s8[{2**63 - 1}]{{0}}").dims == (2**63 - 1,)
    assert parse_shape(f"s4[{2**63 - 1},2]").dims == (2**63 - 1, 2)
