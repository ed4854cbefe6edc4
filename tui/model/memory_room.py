"""Whether a profile or an HLO module (text or proto) can be opened in the memory this machine has
free, asked before reading it.

An input too big for memory does not fail cleanly: the kernel kills the process, or the
machine swaps for minutes, and the user learns nothing. What loading takes is close to
proportional to the file (measured on the 590k-event bench profile: an xplane.pb needs about
10x its size, ProfileData's copy of the XSpace most of it; a Chrome trace about 3.3x its JSON,
decompressed; the 48-layer GPT module's HLO text 3.9x its size to parse, besides the text, and
as an `.hlo.pb` 29x the proto's size: jaxlib's module and the text it prints, then the parse). The
factors here are a little lower, so only an input that would almost surely not fit is refused,
with one line saying how much it needs and how much is free.
"""

from __future__ import annotations

from pathlib import Path

from tui.model.errors import InputError
from tui.model.shapes import human_bytes

XPLANE_FACTOR = 8  # bytes of memory per byte of xplane.pb
JSON_FACTOR = 3  # bytes of memory per byte of (decompressed) JSON
PLAIN_JSON_FACTOR = 6  # the same, for a trace whose fields must be mended (chrome_fields): its plain JSON
# objects (3.6x on the bench profile), beside the text and the mended text
HLO_TEXT_FACTOR = 4  # bytes of memory per byte of HLO text: the text and its parse
SIDE_FILE_FACTOR = 4  # the same for XLA's live-range and buffer-assignment files: the text and its rows
HLO_PROTO_FACTOR = 24  # bytes of memory per byte of a serialized HLO module: jaxlib's copy, its text, our parse
GZIP_RATIO = 10  # bytes of JSON per byte of gzip, at least (20 on the bench's perfetto trace)


def available_memory(meminfo: str = "/proc/meminfo", cgroup: str = "/sys/fs/cgroup") -> int | None:
    """Bytes that can be had without swapping: Linux's MemAvailable, or less where a container's
    memory limit (cgroup v2) leaves less, its page cache counted as free (the kernel gives it
    back first); None where neither can be read (not Linux)."""
    free = None
    try:
        with open(meminfo, "rb") as f:
            for line in f:
                if line.startswith(b"MemAvailable:"):
                    free = int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        with open(f"{cgroup}/memory.max", "rb") as f:
            limit = f.read().strip()
        if limit != b"max":
            with open(f"{cgroup}/memory.current", "rb") as f:
                used = int(f.read())
            with open(f"{cgroup}/memory.stat", "rb") as f:  # the page cache it counts can be given back
                cache = next((int(line.split()[1]) for line in f if line.startswith(b"file ")), 0)
            left = max(0, int(limit) - (used - cache))
            free = left if free is None else min(free, left)
    except (OSError, ValueError, IndexError):
        pass
    return free


def check_room(files: list[Path], need: int) -> None:
    """InputError if opening these files (an HLO text or proto, or one profile's files) needs `need`
    bytes of memory (worked out with the factors above) and less is free."""
    free = available_memory()
    if free is not None and need > free:
        what = files[0] if len(files) == 1 else files[0].parent
        raise InputError(what, f"too big to open here: it needs about {human_bytes(need)} of memory "
                               f"and {human_bytes(free)} is free")
