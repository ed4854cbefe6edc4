"""The top level of a serialized protobuf message: its fields by number, nested messages untouched.

Two places need only that much. An XLA dump's `.hlo.pb` is an `HloProto` whose field 1 is the
module jaxlib reads; an XSpace keeps the profiler's errors and warnings (fields 2 and 3) beside
the planes that jaxlib's ProfileData reads. One level of the wire format serves both; no schema.
"""

from __future__ import annotations

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


def top_level_fields(data: bytes) -> list[tuple[int, memoryview | int]]:
    """(field number, value) for each top-level field: a length-delimited field's bytes as a
    memoryview, a number otherwise. ValueError if `data` is not a well-formed message."""
    view, pos, fields = memoryview(data), 0, []
    while pos < len(view):
        key, pos = varint(view, pos)
        number, wire = key >> 3, key & 7
        if number == 0:
            raise ValueError("field number 0")
        if wire == _VARINT:
            value, pos = varint(view, pos)
        elif wire in (_I64, _I32):
            size = 8 if wire == _I64 else 4
            value, pos = int.from_bytes(view[pos : pos + size], "little"), pos + size
        elif wire == _LEN:
            size, pos = varint(view, pos)
            value, pos = view[pos : pos + size], pos + size
        else:
            raise ValueError(f"wire type {wire}")
        if pos > len(view):
            raise ValueError("truncated field")
        fields.append((number, value))
    return fields
