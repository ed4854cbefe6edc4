"""`.hlo.pb` files -> HLO text, converted by jaxlib.

XLA dumps and the profiler write an `HloProto` (the module is its field 1, next to the buffer
assignment); `jax` APIs write the `HloModuleProto` itself. jaxlib reads only the latter, so an
`HloProto` is unwrapped first: one length-delimited field, not a protobuf parser.
"""

from __future__ import annotations

import os

from tui.model.errors import InputError


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    value = shift = 0
    while pos < len(data):
        byte = data[pos]
        value |= (byte & 0x7F) << shift
        pos += 1
        if not byte & 0x80:
            return value, pos
        shift += 7
    raise ValueError("truncated varint")


def _field_one(data: bytes) -> bytes | None:
    """The bytes of field 1 when `data` starts with it as a length-delimited field."""
    if not data or data[0] != 0x0A:
        return None
    try:
        length, start = _varint(data, 1)
    except ValueError:
        return None
    return data[start : start + length] if start + length <= len(data) else None


def hlo_text_from_proto(path: str | os.PathLike) -> str:
    from jax._src.lib import xla_client

    try:
        data = open(path, "rb").read()
    except OSError as e:
        raise InputError(path, f"cannot read: {e.strerror}") from None
    if not data:
        raise InputError(path, "empty file, expected a serialized HloProto or HloModuleProto")
    for candidate in (_field_one(data), data):
        if candidate is None:
            continue
        try:
            module = xla_client.hlo.HloModule.from_serialized_hlo_module_proto(candidate)
        except Exception:  # jaxlib raises its own runtime error type for bad protos
            continue
        return module.to_string()
    raise InputError(path, "not a serialized HloProto or HloModuleProto (truncated, or another kind of .pb file)")
