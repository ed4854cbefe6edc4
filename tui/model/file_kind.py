"""What a file's first bytes say it is, for the one line that refuses a file named as another kind.

xla-tui picks a reader by the file's name (inputs.py), as users name files: an xplane saved as
`trace.json`, a gzip'd dump kept as `module.hlo`, or HLO text in a `.pb` is refused by the
reader its name chose, in that reader's words ("not JSON at line 2"). Told what the bytes are
instead, the user knows what to rename or unpack.
"""

from __future__ import annotations

import zlib
from pathlib import Path

from tui.model.errors import InputError

_HEAD = 4096


def what_it_is(path: Path) -> str | None:
    """'xplane', 'hlo-proto', 'hlo-text', 'json', 'gzip:<one of those>', or None (not one we know)."""
    try:
        with open(path, "rb") as f:
            head = f.read(_HEAD)
    except OSError:
        return None
    if head[:2] == b"\x1f\x8b":
        try:
            inner = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(head, _HEAD)
        except zlib.error:
            return None
        kind = _kind(inner)
        return f"gzip:{kind}" if kind else None
    return _kind(head)


def _kind(head: bytes) -> str | None:
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if text.startswith(b"HloModule"):
        return "hlo-text"
    if text[:1] in (b"{", b"[") and b"\0" not in head:
        return "json"
    return _proto_kind(head)


def _proto_kind(head: bytes) -> str | None:
    """An XSpace's first field is a plane whose name ("/host:CPU", "/device:GPU:0") comes in its
    first bytes; an HloProto's is the module, whose first field is its name (an HloModuleProto
    starts with the name itself)."""
    if head[:1] != b"\x0a":
        return None
    at = _after_varint(head, 1)  # the first field's length
    if at is None:
        return None
    if head[at:at + 1] == b"\x08":  # the plane's id
        at = _after_varint(head, at + 1)
        if at is None:
            return None
    if head[at:at + 1] == b"\x12":  # the plane's name
        start = _after_varint(head, at + 1)
        if start is not None and head[start:start + 1] == b"/":
            return "xplane"
    if head[at:at + 1] == b"\x0a" or _printable_name(head, at):  # HloProto's module, or HloModuleProto's name
        start = _after_varint(head, at + 1) if head[at:at + 1] == b"\x0a" else at
        if start is not None and (_printable_name(head, start) or head[start:start + 1] == b"\x0a"):
            return "hlo-proto"
    return None


def _after_varint(data: bytes, pos: int) -> int | None:
    for end in range(pos, min(pos + 10, len(data))):
        if data[end] < 0x80:
            return end + 1
    return None


def _printable_name(data: bytes, start: int) -> bool:
    name = data[start:start + 8]
    return len(name) > 0 and all(0x21 <= b < 0x7F for b in name)


_NAMED_AS = {  # the kind a name gives (named_kind), and the names that kind goes by
    "xplane": ("an XSpace profile", "*.xplane.pb"),
    "json": ("JSON", "*.json"),
    "hlo-text": ("HLO text", "*.hlo or *.txt"),
    "hlo-proto": ("a serialized HLO module (HloProto)", "*.hlo.pb"),
}


def named_kind(path: Path) -> str:
    """The reader a file's name picks: 'xplane', 'json' (a Chrome trace), 'hlo-proto' or 'hlo-text'."""
    name = path.name.lower()
    if name.endswith(".xplane.pb"):
        return "xplane"
    if name.endswith((".json", ".json.gz")):
        return "json"
    if name.endswith(".pb"):
        return "hlo-proto"
    return "hlo-text"


def told(error: InputError) -> str:
    """The error's line, with what the file is where its bytes are not what its name says."""
    path = Path(error.path) if error.path else None
    try:
        regular = path is not None and path.is_file()
    except OSError:  # not to be reached (a folder on the way closed to us)
        regular = False
    if not regular:
        return str(error)
    kind = what_it_is(path)
    if kind is None:
        return str(error)
    zipped, kind = kind.startswith("gzip:"), kind.removeprefix("gzip:")
    named = named_kind(path)
    if kind == named and (not zipped or kind == "json"):  # the trace reader unpacks gzip whatever the name
        return str(error)
    words, names = _NAMED_AS[kind]
    if zipped:
        if kind == "json":
            return f"{error} (it is gzip-compressed JSON: name it *.json.gz)"
        return f"{error} (it is gzip-compressed {words}: gunzip it, and name it {names})"
    return f"{error} (it is {words}: name it {names})"
