"""`.hlo.pb` files -> HLO text, converted by jaxlib.

XLA dumps and the profiler write an `HloProto` (the module is its field 1, next to the buffer
assignment); `jax` APIs write the `HloModuleProto` itself. jaxlib reads only the latter, so an
`HloProto` is unwrapped first (tui/model/protowire.py: one level of the wire format).
"""

from __future__ import annotations

import os
from pathlib import Path

from tui.model.errors import InputError
from tui.model.memory_room import HLO_PROTO_FACTOR, check_room
from tui.model.protowire import check_framing, top_level_fields

PROTOBUF_LIMIT = 2 << 30  # protobuf parses no message over 2 GiB


def _field_one(data: bytes) -> bytes | None:
    """Field 1 of `data` when it is a message whose first field is length-delimited (an HloProto)."""
    try:
        fields = top_level_fields(data)
    except ValueError:
        return None
    if fields and fields[0][0] == 1 and isinstance(fields[0][1], memoryview):
        return bytes(fields[0][1])
    return None


def _check_framing(path, f) -> int:
    """The file's size; InputError for a file too big for protobuf, or whose top level is not a
    message (a file of another kind is told from where it goes wrong, before gigabytes of it are
    read)."""
    size = os.fstat(f.fileno()).st_size
    if size > PROTOBUF_LIMIT:
        raise InputError(path, f"too large for a protobuf message ({size / 2**30:.1f} GiB; the limit is 2 GiB)")
    try:
        check_framing(f)
    except ValueError as error:
        raise InputError(path, f"not a serialized HloProto or HloModuleProto: {error} (truncated, or "
                               "another kind of file)") from None
    f.seek(0)
    return size


def hlo_text_from_proto(path: str | os.PathLike, span: tuple[int, int] | None = None) -> str:
    """The HLO text of the proto in a file, or in `span` (start, end) of it: a program a
    profile holds (tui/model/profile_programs.py)."""
    try:
        with open(path, "rb") as f:
            if span is None:
                check_room([Path(path)], _check_framing(path, f) * HLO_PROTO_FACTOR)
                data = f.read()
            else:
                check_room([Path(path)], (span[1] - span[0]) * HLO_PROTO_FACTOR)
                f.seek(span[0])
                data = f.read(span[1] - span[0])
    except OSError as e:
        raise InputError(path, f"cannot read: {e.strerror}") from None
    if not data:
        raise InputError(path, "empty file, expected a serialized HloProto or HloModuleProto")
    if span is not None and len(data) < span[1] - span[0]:
        raise InputError(path, "changed since it was loaded (a program it held is cut off): load it again")
    from jaxlib import xla_client  # what jax._src.lib's is, without importing jax (0.4 s)

    for candidate in (_field_one(data), data):
        if candidate is None:
            continue
        try:
            module = xla_client.hlo.HloModule.from_serialized_hlo_module_proto(candidate)
        except Exception:  # jaxlib raises its own runtime error type for bad protos
            continue
        return module.to_string()
    raise InputError(path, "not a serialized HloProto or HloModuleProto (damaged, cut off, or another kind of .pb file)")
