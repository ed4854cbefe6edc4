"""The programs a profile carries, so a profile alone opens on every screen (as in XProf).

While it traces, XLA's profiler keeps each program it saw compiled or loaded as an `HloProto`
(the optimized module) in the xplane's `/host:metadata` plane: one event metadata entry per
program, named as its `XLA Modules` events are (`jit_step(12)`), with the proto in its
`Hlo Proto` stat. XProf's Graph Viewer, Memory Viewer and Op Profile read these; jax.profiler
writes them unless its `enable_hlo_proto` option is off.

Only that plane is read here, field by field (tui/model/protowire.py), and each program is
kept as where its proto lies in the file: it is converted and parsed when it is opened. A Chrome
trace holds no programs; jax.profiler writes it beside the run's xplane, which does.
"""

from __future__ import annotations

import mmap
from pathlib import Path
from typing import NamedTuple

from tui.model.protowire import field_spans

METADATA_PLANE = "/host:metadata"
HLO_PROTO_STAT = "Hlo Proto"
# Field numbers in tsl/profiler/protobuf/xplane.proto.
_SPACE_PLANES = 1
_PLANE_NAME, _PLANE_EVENT_METADATA, _PLANE_STAT_METADATA = 2, 4, 5
_MAP_VALUE = 2
_METADATA_NAME, _EVENT_METADATA_STATS = 2, 5
_STAT_METADATA_ID, _STAT_BYTES = 1, 6


class EmbeddedProgram(NamedTuple):
    name: str  # as the profile names the program: `jit_step(12)`
    start: int  # its HloProto is raw[start:end] of the file
    end: int


def embedded_programs(raw) -> tuple[list[EmbeddedProgram], str | None]:
    """The programs of an XSpace (its bytes), and a note when its metadata plane could not be
    read (the profile itself may still be fine: ProfileData reads the rest)."""
    try:
        for number, plane in field_spans(raw):
            if number == _SPACE_PLANES and isinstance(plane, tuple) and _name(raw, plane) == METADATA_PLANE:
                return _programs(raw, plane), None
    except (ValueError, UnicodeDecodeError) as error:
        return [], f"the programs it holds could not be read ({error})"
    return [], None


def programs_beside(files: list[Path]) -> list[tuple[Path, EmbeddedProgram]]:
    """The programs of the xplanes in the folders of some Chrome trace files (file, program).
    Each xplane is mapped, not read: only its plane headers and metadata plane are touched."""
    found = []
    for folder in dict.fromkeys(f.parent for f in files):
        for xplane in sorted(folder.glob("*.xplane.pb")):
            if not xplane.is_file():  # a pipe would block the open for good; a device is no profile
                continue
            try:
                with open(xplane, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as raw:
                    programs, _ = embedded_programs(raw)
            except (OSError, ValueError):  # unreadable or empty: the trace asked for is what counts
                continue
            found += [(xplane, program) for program in programs]
    return found


def _name(raw, message: tuple[int, int]) -> str | None:
    """Field 2 of a plane or metadata entry: its name (the first fields are small)."""
    for number, value in field_spans(raw, *message):
        if number == _PLANE_NAME and isinstance(value, tuple):
            return bytes(raw[value[0] : value[1]]).decode()
    return None


def _programs(raw, plane: tuple[int, int]) -> list[EmbeddedProgram]:
    stat_ids, entries = set(), []
    for number, value in field_spans(raw, *plane):
        if not isinstance(value, tuple):
            continue
        if number == _PLANE_STAT_METADATA:
            stat = _map_value(raw, value)
            if stat is not None and _name(raw, stat) == HLO_PROTO_STAT:
                stat_ids.update(v for n, v in field_spans(raw, *stat) if n == _STAT_METADATA_ID and isinstance(v, int))
        elif number == _PLANE_EVENT_METADATA:
            entries.append(value)
    programs = []
    for entry in entries:
        metadata = _map_value(raw, entry)
        if metadata is None:
            continue
        name, proto = None, None
        for number, value in field_spans(raw, *metadata):
            if number == _METADATA_NAME and isinstance(value, tuple):
                name = bytes(raw[value[0] : value[1]]).decode()
            elif number == _EVENT_METADATA_STATS and isinstance(value, tuple):
                proto = _bytes_of(raw, value, stat_ids) or proto
        if name and proto is not None:
            programs.append(EmbeddedProgram(name, *proto))
    return sorted(programs, key=_in_compile_order)


def _in_compile_order(program: EmbeddedProgram) -> tuple[int, str]:
    """`jit_step(12)` -> (12, name): the plane keeps its programs in a hash map's order; their
    ids count up as JAX compiles them, which is the order a person remembers."""
    head, _, tail = program.name.rpartition("(")
    number = tail[:-1] if head and tail.endswith(")") else ""
    return (int(number) if number.isdigit() else -1, program.name)


def _map_value(raw, entry: tuple[int, int]) -> tuple[int, int] | None:
    """The value message of a protobuf map entry."""
    return next((v for n, v in field_spans(raw, *entry) if n == _MAP_VALUE and isinstance(v, tuple)), None)


def _bytes_of(raw, stat: tuple[int, int], wanted: set[int]) -> tuple[int, int] | None:
    """Where an XStat's bytes value lies, when it is one of the `wanted` stats."""
    fields = list(field_spans(raw, *stat))
    if not any(n == _STAT_METADATA_ID and v in wanted for n, v in fields):
        return None
    return next((v for n, v in fields if n == _STAT_BYTES and isinstance(v, tuple)), None)
