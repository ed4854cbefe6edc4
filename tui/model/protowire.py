"""The fields of a serialized protobuf message by number, nested messages left as bytes.

Three places need only that much. An XLA dump's `.hlo.pb` is an `HloProto` whose field 1 is the
module jaxlib reads; an XSpace keeps the profiler's errors and warnings (fields 2 and 3) beside
the planes that jaxlib's ProfileData reads, and the programs it saw in one small plane of them
(tui/model/profile_programs.py). The wire format, a level at a time, serves all three; no schema.
"""

from __future__ import annotations

import mmap
from typing import BinaryIO, Iterator

_VARINT, _I64, _LEN, _I32 = 0, 1, 2, 5


def varint(data, pos: int) -> tuple[int, int]:
    """The varint at `pos` and the position after it; ValueError if it is cut off or too long."""
    value = shift = 0
    while pos < len(data) and shift < 64:
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, pos
        shift += 7
    raise ValueError("truncated or overlong varint")


def check_framing(f: BinaryIO) -> None:
    """ValueError (naming the byte) unless an open file's top level reads as a message. It is
    walked over a map of the file, each length-delimited field skipped by its length, so a file
    of gigabytes costs microseconds and is not read in; an empty file is an empty message."""
    if f.seek(0, 2):
        with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as raw:
            for _ in field_spans(raw):
                pass


def top_level_fields(data: bytes) -> list[tuple[int, memoryview | int]]:
    """(field number, value) for each top-level field: a length-delimited field's bytes as a
    memoryview, a number otherwise. ValueError if `data` is not a well-formed message."""
    view = memoryview(data)
    return [(number, view[value[0] : value[1]] if isinstance(value, tuple) else value)
            for number, value in field_spans(view)]


def field_spans(data, start: int = 0, end: int | None = None) -> Iterator[tuple[int, tuple[int, int] | int]]:
    """(field number, value) for each field of the message in data[start:end], as they are
    read: a length-delimited field's value as its (start, end) in `data`, so a nested message
    is read the same way and a large one is not copied; a number otherwise. ValueError where
    the message is not well formed, saying at which byte (the start of the field, and for one
    cut off, where it would end and where the data does)."""
    pos, end = start, len(data) if end is None else end
    while pos < end:
        at = pos
        try:
            key, pos = varint(data, pos)
            number, wire = key >> 3, key & 7
            if number == 0:
                raise ValueError("field number 0")
            if wire == _VARINT:
                value, pos = varint(data, pos)
            elif wire in (_I64, _I32):
                size = 8 if wire == _I64 else 4
                value, pos = int.from_bytes(data[pos : pos + size], "little"), pos + size
            elif wire == _LEN:
                size, pos = varint(data, pos)
                value, pos = (pos, pos + size), pos + size
            else:
                raise ValueError(f"wire type {wire}")
        except ValueError as error:
            raise ValueError(f"{error} at byte {at:,}") from None
        if pos > end:  # a cut-off file: where its last field starts, and how far short it falls
            raise ValueError(f"cut off: the field at byte {at:,} runs to byte {pos:,}, past the end at byte {end:,}")
        yield number, value
