"""Chrome trace JSON (`.json`, `.json.gz`, JAX's perfetto_trace.json.gz, Kineto) -> Trace.

msgspec decodes the events into typed structs (about 3x faster than json.load) and the fields
are pulled into NumPy columns with `map(attrgetter(...))`; args are read from the file again
when an event is first selected (see _LazyArgs). Phases: X (complete), B/E (matched per thread,
innermost first, by the E's name and category where it has them, as Perfetto matches them; a B
that never ends runs to the trace's last moment, as Perfetto draws it),
i/I (instants), C (counters: a value that is not a number, nor a string that reads as one, is
skipped with a warning), M (process/thread names and sort order), s/t/f
(flows, see trace_flows), async b/e/n and the legacy S/F (matched by category and id, each
category of a process on a track of its own, as Perfetto shows them; a b that never ends runs to
the trace's last moment too); others (async steps T/p,
samples, objects) are skipped with a warning.
`ts`/`dur` are microseconds. The file is a `{"traceEvents": [...]}` object or a bare list of
events, whose closing `]` may be missing; JSON that goes wrong is named by line and column.
Fields of another JSON type than the format's are read as Perfetto reads them (chrome_fields).
"""

from __future__ import annotations

import math
import os
import re
import threading
import zlib
from codecs import BOM_UTF8
from collections import Counter, defaultdict
from dataclasses import dataclass
from functools import partial
from itertools import chain, count
from operator import attrgetter, itemgetter
from pathlib import Path
from typing import Callable

import msgspec
import numpy as np

from tui.model.errors import InputError, open_regular
from tui.model.chrome_fields import as_number, mended
from tui.model.memory_room import GZIP_RATIO, JSON_FACTOR, PLAIN_JSON_FACTOR, available_memory, check_room
from tui.model.shapes import human_bytes
from tui.model.trace import CounterTrack, NameTable, Trace, Track
from tui.model.trace_flows import FlowPoint
from tui.model.words import counted

# XLA's xplane -> trace JSON conversion (which writes JAX's *.trace.json.gz and so its
# perfetto_trace.json.gz) keeps exactly the first N events by start time and drops the rest:
# N was 1,000,000 in older XLA and is 5,000,000 now. A trace with exactly N events was cut.
EVENT_CAPS = (1_000_000, 5_000_000)


def _event_struct(ids: type) -> type:
    return msgspec.defstruct(
        "_Event",
        [("ph", str, ""), ("name", str, ""), ("cat", str, ""), ("pid", ids, 0), ("tid", ids, 0),
         ("ts", float, 0.0), ("dur", float, -1.0), ("id", int | str | None, None), ("id2", dict | None, None),
         ("bp", str, ""), ("s", str, ""),
         ("args", msgspec.Raw, msgspec.Raw())],
        gc=False,
    )


# A file's parts beside its events that are not shown: named in a warning when not empty.
_UNSHOWN_PARTS = [("systemTraceEvents", msgspec.Raw, msgspec.Raw()), ("samples", msgspec.Raw, msgspec.Raw())]
_EMPTY = frozenset({b"", b"[]", b'""', b"{}", b"null"})

# Most writers number processes and threads; some name them. The first decoder takes numbers
# only, so their events can be grouped by thread as NumPy columns (see _thread_runs); a file
# with named ids fails it at the first name and is decoded again by the second.
_Event = _event_struct(int)
_NamedIdsEvent = _event_struct(int | str)
_DECODERS = tuple(
    msgspec.json.Decoder(msgspec.defstruct("_File", [("traceEvents", list[event]), *_UNSHOWN_PARTS], gc=False) | list[event])
    for event in (_Event, _NamedIdsEvent)
)
_PLAIN = msgspec.json.Decoder()
_KEY = attrgetter("pid", "tid")
_BUCKET = {"B": "BE", "E": "BE", "I": "i", "b": "async", "e": "async", "n": "async", "S": "async", "F": "async"}
_SHOWN = frozenset({"BE", "i", "C", "M", "s", "t", "f", "async", ""})  # and X, read apart; "": JAX ends the list with {}
_ASYNC_BEGIN, _ASYNC_END = frozenset("bS"), frozenset("eF")


@dataclass(frozen=True, order=True)
class _AsyncTrack:
    """Where a process's async events of one category go, in place of a thread id."""

    cat: str

    @property
    def name(self) -> str:
        return f"async {self.cat}" if self.cat else "async"


@dataclass(frozen=True, order=True)
class _ScopeTrack:
    """Where instants of a wider scope than their thread go (`"s": "p"` or `"g"`), as Perfetto
    puts them: on a track of their process, or of the whole trace (`_GLOBAL` as their pid)."""

    scope: str

    @property
    def name(self) -> str:
        return "global instants" if self.scope == "g" else "process instants"


_GLOBAL = _ScopeTrack("g")


def _decode(path: Path, decoders: tuple[msgspec.json.Decoder, ...] = _DECODERS, mend: bool = False,
            notes: list[str] | None = None):
    """The file's document (a `{"traceEvents": [...]}` object or a bare list of events), by the
    first decoder whose types fit its events, and None; where none fits (or with `mend`: the
    load had to mend it, so its args are read the same way), with its events' fields put in
    their types as Perfetto reads them, and what that changed (chrome_fields). Bytes that are
    not UTF-8 are read as U+FFFD, as a browser reads them, and said so in `notes`."""
    try:
        raw = path.read_bytes()
    except OSError as error:
        raise InputError(path, f"cannot read: {error.strerror or error}") from None
    compressed = raw[:2] == _GZIP
    if compressed:
        raw = _gunzip(path, raw)
    if raw.startswith(BOM_UTF8):  # Windows tools write one first: not JSON, but no error either
        raw = raw[len(BOM_UTF8):]
    try:
        return _decode_json(path, raw, compressed, decoders, mend)
    except UnicodeDecodeError:
        raw, note = _as_utf8(raw, compressed)
    if notes is not None:
        notes.append(note)
    return _decode_json(path, raw, compressed, decoders, mend)


def _as_utf8(raw: bytes, compressed: bool) -> tuple[bytes, str]:
    """`raw` with each byte that is not UTF-8 replaced by U+FFFD, and a note of where the first was."""
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as error:
        at = error.start
    text = raw.decode("utf-8", "replace")
    return text.encode("utf-8"), f"bytes that are not UTF-8 (the first at {_place(raw, at, compressed)}) are shown as \ufffd"


def _place(raw: bytes, at: int, compressed: bool) -> str:
    """Byte `at` of the JSON as a line and column (of the decompressed JSON, for a gzip)."""
    line = raw.count(b"\n", 0, at) + 1
    column = at - (raw.rfind(b"\n", 0, at) + 1) + 1
    return f"line {line}, column {column}{' of the decompressed JSON' if compressed else ''}"


def _decode_json(path: Path, raw: bytes, compressed: bool, decoders: tuple[msgspec.json.Decoder, ...], mend: bool):
    refused = None
    for decoder in () if mend else decoders:
        try:
            return _decoded(decoder, raw, path, compressed), None
        except msgspec.ValidationError as error:
            refused = error
    check_room([path], len(raw) * PLAIN_JSON_FACTOR)
    try:
        plain = _decoded(_PLAIN, raw, path, compressed)
    except msgspec.ValidationError as error:  # JSON itself, typed by nothing: a number no double holds
        raise InputError(path, _too_big_number(raw, str(error), compressed)) from None
    fixed = mended(plain)
    if fixed is None:
        raise InputError(path, f"JSON but not a Chrome trace: {refused or 'no list of events'}")
    del raw
    text, notes = fixed
    try:
        return decoders[-1].decode(text), notes
    except msgspec.ValidationError as error:
        raise InputError(path, f"JSON but not a Chrome trace: {refused or error}") from None


def _gunzip(path: Path, raw: bytes) -> bytes:
    """The gzip's contents, refused once they pass what free memory can load (a small file can
    expand a thousandfold: its size gave only an estimate, GZIP_RATIO). One pass, no copy for a
    gzip of one member (each member is inflated at most to the room left)."""
    free = available_memory()
    room = None if free is None else free // JSON_FACTOR
    parts: list[bytes] = []
    size = 0
    try:
        while raw:
            inflate = zlib.decompressobj(wbits=31)
            parts.append(inflate.decompress(raw) if room is None else inflate.decompress(raw, room - size + 1))
            size += len(parts[-1])
            if room is not None and size > room:
                raise InputError(path, f"too big to open here: it expands to more than {human_bytes(room)} of JSON, "
                                       f"which needs about {human_bytes(size * JSON_FACTOR)} of memory, "
                                       f"and {human_bytes(free)} is free")
            if not inflate.eof:
                raise EOFError("the file ends before the compressed data does")
            raw = inflate.unused_data.lstrip(b"\0")  # gzip pads members with zeros at times
    except (EOFError, zlib.error) as error:
        raise InputError(path, f"truncated or corrupt gzip ({error})") from None
    return parts[0] if len(parts) == 1 else b"".join(parts)


def _events(doc) -> list:
    return doc if isinstance(doc, list) else doc.traceEvents


def _unshown(doc) -> list[str]:
    """The names of the parts beside the events that hold something not shown (Linux ftrace
    text, CPU profile samples)."""
    return [] if isinstance(doc, list) else [name for name, _, _ in _UNSHOWN_PARTS if not _empty(bytes(getattr(doc, name)))]


def _empty(raw: bytes) -> bool:
    """The JSON holds nothing: null, "", [] or {}, or an object of those (`{"events": []}`)."""
    if raw.strip() in _EMPTY:
        return True
    if len(raw) > 4096 or not raw.lstrip().startswith(b"{"):
        return False
    value = msgspec.json.decode(raw)
    return all(part in (None, "", [], {}) for part in value.values())


_GZIP = b"\x1f\x8b"
_HEAD = 1 << 16


def _check_start(path: Path) -> int:
    """InputError unless the file starts as a Chrome trace does (decompressed, for a gzip): `{`
    or `[` after any blanks. A file of another kind is told at once, not after it is read whole.
    Returns the size of its JSON, at least. (A gzip's trailer states it, modulo 4 GiB, but a
    cut-off file's last bytes are no trailer, and it should be called cut off, not big.)"""
    try:
        with open_regular(path) as f:
            head = f.read(_HEAD)
            size = os.fstat(f.fileno()).st_size
    except OSError as error:
        raise InputError(path, f"cannot read: {error.strerror or error}") from None
    compressed = head[:2] == _GZIP
    if compressed:
        try:
            head = zlib.decompressobj(wbits=31).decompress(head, _HEAD)
        except zlib.error as error:
            raise InputError(path, f"truncated or corrupt gzip ({error})") from None
    body = head.removeprefix(BOM_UTF8).lstrip(b" \t\r\n")
    if body and body[:1] not in b"{[":
        at = len(head) - len(body)
        raise InputError(path, _where(head, f"a Chrome trace starts with '{{' or '[', not {body[:1]!r} (byte {at})",
                                      compressed))
    return size * GZIP_RATIO if compressed else size


def _decoded(decoder: msgspec.json.Decoder, raw: bytes, path: Path, compressed: bool):
    """The document; a bare list of events may leave out its closing `]` (the trace event
    format allows it, so that a process that dies while tracing leaves a readable file). JSON
    that goes wrong is an InputError naming its line and column."""
    try:
        try:
            return decoder.decode(raw)
        except msgspec.DecodeError as error:
            body = raw.strip()
            if not body.startswith(b"[") or "truncated" not in str(error):
                raise
            try:
                return decoder.decode(body.rstrip(b",\r\n\t ") + b"]")
            except msgspec.DecodeError:
                raise error from None
    except msgspec.ValidationError:
        raise
    except msgspec.DecodeError as error:
        raise InputError(path, _where(raw, str(error), compressed)) from None
    except RecursionError:  # msgspec's decoder has Python's depth limit
        raise InputError(path, "JSON nested too deeply to read (arrays or objects about a thousand levels deep)") from None


_NUMBER_VALUE = re.compile(rb"[:\[,]\s*(-?\d+(?:\.\d+)?[eE][+-]?\d+|-?\d{309,}(?:\.\d+)?)")


def _too_big_number(raw: bytes, error: str, compressed: bool) -> str:
    """Where the first number past a double's range is (msgspec names only its place in the
    document's structure); a number JSON allows, that no reader can hold."""
    for found in _NUMBER_VALUE.finditer(raw):
        number = found.group(1)
        if math.isinf(float(number)):
            shown = number.decode() if len(number) <= 24 else f"{number[:12].decode()}... ({len(number)} digits)"
            return f"a number too large for a double ({shown}) at {_place(raw, found.start(1), compressed)}"
    return f"not a Chrome trace: {error}"


_BYTE = re.compile(r" \(byte (\d+)\)$")
_STRUCTURE = re.compile(rb"[,:\]}]")  # what follows a value: none after an error means the file ended in it


def _where(raw: bytes, error: str, compressed: bool) -> str:
    """msgspec's error with the place as a line and column (it gives a byte offset, or for a
    file that ends too early, nothing: then the end is the place). An error in the file's last
    token (a number cut after `1e-`, which msgspec calls malformed) is the file ending early."""
    found = _BYTE.search(error)
    at = int(found.group(1)) if found else len(raw)
    cut = "truncated" in error or (error.startswith("JSON is malformed") and not _STRUCTURE.search(raw, at))
    what = "the file ends before the JSON does (cut off?)" if cut else error[: found.start()] if found else error
    return f"not JSON at {_place(raw, at, compressed)}: {what}"


def _args(raw: msgspec.Raw) -> dict:
    if not len(raw):
        return {}
    value = msgspec.json.decode(raw)
    return value if isinstance(value, dict) else {"args": value}


_MOST_NS = 2**62  # times beyond +-146 years from zero are put at it; durations at half that (their sum fits int64)


def _ns(micros: np.ndarray, most: int = _MOST_NS) -> np.ndarray:
    return np.rint(np.minimum(np.maximum(micros * 1000.0, -most), most)).astype(np.int64)


class _Host:
    """One file's events, split by phase and grouped by (pid, tid)."""

    def __init__(self, path: Path, label: str | None):
        self.path = path
        self.label = label
        self.warnings: list[str] = []
        notes: list[str] = []
        doc, mends = _decode(path, notes=notes)
        self.mended = mends is not None  # its args are read mended too
        self.warnings += [f"{path.name}: {note}" for note in [*notes, *(mends or ())]]
        events, unshown = _events(doc), _unshown(doc)
        if unshown:
            self.warnings.append(f"{path.name}: its {' and '.join(unshown)} were skipped (only its traceEvents are shown)")
        self.complete = [event for event in events if event.ph == "X"]
        by_phase: dict[str, list[_Event]] = defaultdict(list)
        for event in [event for event in events if event.ph != "X"]:
            by_phase[_BUCKET.get(event.ph, event.ph)].append(event)
        self.process, self.thread = self._metadata(by_phase["M"])
        self._name_count = Counter(map(self._process_name, self.process))
        self._thread_name_count = Counter((pid, meta.get("thread_name")) for (pid, _), meta in self.thread.items())
        self.pairs = self._match(by_phase["BE"])
        self.async_pairs, async_instants = self._match_async(by_phase["async"])
        self.instants = [_scoped(event) for event in by_phase["i"]] + async_instants
        self.counters = by_phase["C"]
        self.flows = by_phase["s"] + by_phase["t"] + by_phase["f"]
        skipped = Counter({phase: len(events) for phase, events in by_phase.items() if phase not in _SHOWN})
        if skipped:
            phases = ", ".join(f"{n} '{phase}'" for phase, n in sorted(skipped.items()))
            self.warnings.append(
                f"{path.name}: events of phases not shown were skipped ({phases}; async step, sample or object events)")
        unphased = sum(1 for event in by_phase[""] if event.name or event.ts or event.dur >= 0)  # not JAX's closing {}
        if unphased:
            self.warnings.append(f"{path.name}: {counted(unphased, 'event')} without a phase ('ph') skipped")

    def _metadata(self, events: list[_Event]):
        process: dict = defaultdict(dict)
        thread: dict = defaultdict(dict)
        for event in events:
            args = _args(event.args)
            if event.name in ("process_name", "process_labels", "process_sort_index"):
                process[event.pid][event.name] = args.get("name", args.get("labels", args.get("sort_index")))
            elif event.name in ("thread_name", "thread_sort_index"):
                thread[(event.pid, event.tid)][event.name] = args.get("name", args.get("sort_index"))
        return process, thread

    def _match(self, events: list[_Event]) -> list[tuple[_Event, _Event | None]]:
        """B/E pairs as Perfetto's SliceTracker makes them: an E closes the innermost open B of its
        thread that it names, if it names one (its `cat`, its `name`: a B without that cat is not
        it; file order breaks ts ties); a B that none closes is kept with None, as Perfetto keeps
        a slice that did not end. An E that closes a B outside open ones leaves them open until
        the thread's next B or E after it, which ends them where it ended (_close_stack).
        Pairs come in the order their B's opened, so that of slices opening and ending together
        the first in the file is the parent, as Perfetto nests them (ties keep this order)."""
        open_: dict = defaultdict(list)
        closed_inside = set()  # threads whose stack holds a slice an E closed while slices inside it were open
        pairs, unmatched_ends, cut = [], 0, 0
        for event in sorted(events, key=attrgetter("ts")):
            key = _KEY(event)
            stack = open_[key]
            if key in closed_inside:
                cut += _close_stack(stack, event.ts)
                if all(pair[1] is None for pair in stack):
                    closed_inside.discard(key)
            if event.ph == "B":
                pairs.append([event, None])
                stack.append(pairs[-1])
            elif stack and _ends(event, stack[-1][0]):
                stack.pop()[1] = event
            else:
                k = next((k for k in range(len(stack) - 2, -1, -1) if stack[k][1] is None and _ends(event, stack[k][0])), None)
                if k is None:
                    unmatched_ends += 1
                else:
                    stack[k][1] = event
                    closed_inside.add(key)
        for stack in open_.values():
            stack[:] = [pair for pair in stack if pair[1] is None]
        self._say_unpaired(open_, unmatched_ends, "B", "E")
        if cut:
            self.warnings.append(f"{self.path.name}: {counted(cut, 'B event')} cut where a slice around them ended (an E "
                                 "named that slice while they were open)")
        return list(map(tuple, pairs))

    def _match_async(self, events: list[_Event]) -> tuple[list[tuple[_Event, _Event | None]], list[_Event]]:
        """Async slices and instants: an e (or legacy F) closes the latest open b (or S) of its
        category and id (of its process too for an `id2.local`, as Perfetto scopes them), the
        latest of its name where it names one (file order breaks ts ties); a b that none closes is
        kept with None, as Perfetto keeps an async slice that did not end. Each event's thread id
        becomes its category's async track."""
        open_: dict = defaultdict(list)
        pairs, instants, unmatched_ends = [], [], 0
        for event in sorted(events, key=attrgetter("ts")):
            event.tid = _AsyncTrack(event.cat)
            if event.ph == "n":
                instants.append(event)
                continue
            ident = event.id if event.id is not None else repr(sorted(event.id2.items())) if event.id2 else None
            local = event.id is None and bool(event.id2) and "local" in event.id2  # an `id` or `id2.global` spans processes
            stack = open_[(event.pid if local else None, event.cat, ident)]
            if event.ph in _ASYNC_BEGIN:
                stack.append(event)
                continue
            named = [k for k, begin in enumerate(stack) if begin.name == event.name] if event.name else []
            if named or stack:
                pairs.append((stack.pop(named[-1] if named else -1), event))
            else:
                unmatched_ends += 1
        self._say_unpaired(open_, unmatched_ends, "async b", "async e")
        pairs += [(begin, None) for stack in open_.values() for begin in stack]
        return pairs, instants

    def _say_unpaired(self, open_: dict, unmatched_ends: int, begin: str, end: str) -> None:
        """Warn of the begins left open (each stack in `open_`) and the ends that found none."""
        unended = sum(len(stack) for stack in open_.values())
        if unended:
            self.warnings.append(f"{self.path.name}: {unended} {begin} events never ended (shown running to the trace's end)")
        if unmatched_ends:
            self.warnings.append(f"{self.path.name}: {unmatched_ends} {end} events without a {begin.split()[-1]} (dropped)")

    def _process_name(self, pid) -> str:
        meta = self.process.get(pid, {})
        name = meta.get("process_name") or f"pid {pid}"
        return f"{name} ({meta['process_labels']})" if meta.get("process_labels") else name

    def group(self, pid) -> str:
        """The process's name (with its labels), made unique with the pid if names repeat."""
        if pid is _GLOBAL:
            return "Global" if self.label is None else f"{self.label} Global"
        name = self._process_name(pid)
        if self._name_count[name] > 1:
            name += f" [pid {pid}]"
        return name if self.label is None else f"{self.label} {name}"

    def track_name(self, key) -> str:
        tid = key[1]
        if isinstance(tid, (_AsyncTrack, _ScopeTrack)):
            return tid.name
        name = self.thread.get(key, {}).get("thread_name")
        if not name:
            return tid if isinstance(tid, str) else f"tid {tid}"
        return f"{name} {tid}" if self._thread_name_count[(key[0], name)] > 1 else name  # two of one name: Perfetto's `MainThread 7`

    def sort_key(self, key) -> tuple:
        pid, tid = key
        if pid is _GLOBAL:  # the trace's own track first, as Perfetto shows it
            return (False,)
        p_index = self.process.get(pid, {}).get("process_sort_index")
        t_index = self.thread.get(key, {}).get("thread_sort_index")
        return (
            True,
            p_index if isinstance(p_index, (int, float)) else float("inf"),
            isinstance(pid, str),
            pid,
            t_index if isinstance(t_index, (int, float)) else float("inf"),
            isinstance(tid, _ScopeTrack),  # the process's instants, after its threads
            isinstance(tid, _AsyncTrack),  # after the threads; compared only with each other
            isinstance(tid, str),
            tid,
        )


class _ArgsEvent(msgspec.Struct, gc=False):
    ph: str = ""
    cat: str = ""
    args: msgspec.Raw = msgspec.Raw()


class _ArgsFile(msgspec.Struct, gc=False):
    traceEvents: list[_ArgsEvent]


_ARGS_DECODERS = (msgspec.json.Decoder(_ArgsFile | list[_ArgsEvent]),)


# The arg an unended B's (b's, S's) details show, as Perfetto's say its duration "Did not end".
_DID_NOT_END = {begin: b'{"did_not_end": "no %s event: shown running to the last moment of the trace"}' % end.encode()
                for begin, end in (("B", "E"), ("b", "e"), ("S", "F"))}


class _LazyArgs:
    """Args of a file's X events, read from the file again when an event is first selected.

    Holding every event's raw args from the start would cost about as much as the rest of the
    load (a JAX trace has 90 bytes of args per event); most are never looked at. The file's
    size and mtime are checked so a changed file is not misread. Identical args are kept once.
    The few steps' args (their step_num, which the steps table and the summary read) are kept
    from the start, so that reading them does not go through the file again.
    """

    def __init__(self, path: Path, complete: int, pairs: list[tuple[_Event, _Event | None]], kept: dict[int, tuple],
                 mend: bool):
        self.path = path
        self.mend = mend  # the load mended the file's fields: read it the same way, so its events line up
        self.complete = complete  # X events come first in the positions, then B/E pairs
        stat = path.stat()
        self.stamp = (stat.st_size, stat.st_mtime_ns)
        # B/E pairs are few; their args are kept now: (cat, raw JSON of B, of E or that it did not end).
        self.pairs = [(b.cat, tuple(bytes(r) for r in (b.args, _DID_NOT_END[b.ph] if e is None else e.args) if len(r)))
                      for b, e in pairs]
        self.kept = kept  # position of an X event -> (cat, raw JSON of its args)
        self.entries: list | None = None
        self.ids: np.ndarray | None = None
        self.nbytes = sum(len(cat) + sum(map(len, blobs)) for cat, blobs in [*self.pairs, *kept.values()])

    def _read(self) -> None:
        stat = self.path.stat()
        if (stat.st_size, stat.st_mtime_ns) != self.stamp:
            raise InputError(self.path, "changed since it was loaded: load it again to see args")
        events = _events(_decode(self.path, _ARGS_DECODERS, self.mend)[0])
        complete = [event for event in events if event.ph == "X"]
        if len(complete) != self.complete:
            raise InputError(self.path, "changed since it was loaded: load it again to see args")
        keys = list(map(bytes, map(attrgetter("args"), complete)))
        cats = list(map(attrgetter("cat"), complete))
        if any(cats):
            keys = [(cat, (key,)) for cat, key in zip(cats, keys)]
        first: dict = {}  # args -> the first event with them
        firsts = np.fromiter(map(first.setdefault, keys, count()), np.int64, len(keys))
        distinct = np.fromiter(first.values(), np.int64, len(first))  # in the order first seen: ascending
        number = np.empty(len(keys), np.int32)
        number[distinct] = np.arange(len(distinct), dtype=np.int32)
        self.entries = [keys[i] for i in distinct.tolist()]
        self.ids = number[firsts]
        self.nbytes += self.ids.nbytes + sum(
            len(entry) if isinstance(entry, bytes) else len(entry[0]) + sum(map(len, entry[1]))
            for entry in self.entries
        )

    def of(self, positions: np.ndarray, position: int) -> dict:
        """Args of the event at `position` of a track whose events sit at `positions`."""
        k = int(positions[position])
        if k >= self.complete:
            return _merge(*self.pairs[k - self.complete])
        if self.entries is None and k in self.kept:
            return _merge(*self.kept[k])
        if self.entries is None:
            self._read()
        entry = self.entries[self.ids[k]]
        return _merge(*(("", (entry,)) if isinstance(entry, bytes) else entry))


def _merge(cat: str, blobs: tuple) -> dict:
    args = {}
    for blob in blobs:
        args.update(_args(blob))
    args = {key: value for key, value in args.items() if not key.startswith("_")}
    if cat:
        args.setdefault("cat", cat)
    return args


_TRACE_SUFFIXES = (".trace.json.gz", ".trace.json", ".json.gz", ".json")


def _host_label(path: Path) -> str:
    """A host's name from its file in a run folder: `10.0.0.1.trace.json.gz` is host 10.0.0.1
    (as an xplane's `10.0.0.1.xplane.pb`), not `10`."""
    name = path.name
    return next((name[: -len(suffix)] for suffix in _TRACE_SUFFIXES if name.endswith(suffix)), path.stem)


def _counter_tracks(host: _Host) -> list[CounterTrack]:
    """A track per counter and arg: named by the counter alone where it has one arg and no id,
    else with the arg's key, an id said as Perfetto says it (`mem id: 7 bytes`), so that a
    counter named `mem 7` is not taken for counter `mem` of id 7."""
    series: dict[tuple, list[tuple[float, float]]] = defaultdict(list)
    unread = Counter()
    for event in host.counters:
        name = event.name if event.id is None else f"{event.name} id: {event.id}"
        for key, value in _args(event.args).items():
            number = as_number(value)
            if number is None:
                unread[name] += 1
            else:
                series[(host.group(event.pid), name, key, event.id is not None)].append((event.ts, number))
    if unread:
        named = ", ".join(f"{n} of '{name}'" for name, n in unread.most_common(3)) + (", ..." if len(unread) > 3 else "")
        host.warnings.append(f"{host.path.name}: {sum(unread.values())} counter values that are not numbers were skipped ({named})")
    per_counter = defaultdict(int)
    for group, name, _, _ in series:
        per_counter[(group, name)] += 1
    out = []
    for (group, name, key, has_id), samples in sorted(series.items(), key=lambda item: tuple(map(str, item[0]))):
        samples.sort(key=itemgetter(0))  # by time only: samples at one time stay in file order (the last one holds)
        times, values = zip(*samples)
        label = name if per_counter[(group, name)] == 1 and not has_id else f"{name} {key}"
        out.append(CounterTrack(group, label, _ns(np.array(times)), np.array(values, np.float64)))
    return out


def _last_moment(host: _Host, ts: np.ndarray, dur: np.ndarray) -> float:
    """The latest ts, or ts + dur, of the host's events (us): where a B that did not end is
    drawn to, as Perfetto draws one to the end of the trace."""
    ends = ts + np.maximum(dur, 0.0)
    others = chain(host.instants, host.counters, host.flows, chain.from_iterable(host.pairs + host.async_pairs))
    return max([float(ends.max(initial=-np.inf)), *(event.ts for event in others if event is not None)])


def _args_nbytes(args: _LazyArgs, positions: int) -> int:
    return args.nbytes + positions


def _columns(start, dur, name_id, args_of):
    return start, dur, name_id, args_of


def _tracks(host: _Host, table: NameTable, lock, first: int) -> tuple[list[Track], Callable[[], int] | None, list[FlowPoint]]:
    """The host's tracks (the trace's from `first` on), a function giving the bytes their args
    take in memory, and its flow events on threads that have slices."""
    complete, pairs = host.complete, host.pairs + host.async_pairs
    run_keys, run_lengths = _thread_runs(complete)
    pair_keys = [_KEY(b) for b, _ in pairs]
    n = len(complete) + len(pairs)
    ts = np.fromiter(map(attrgetter("ts"), complete), np.float64, len(complete))
    dur = np.fromiter(map(attrgetter("dur"), complete), np.float64, len(complete))
    missing = int(np.count_nonzero(dur < 0))
    if missing:
        host.warnings.append(f"{host.path.name}: {counted(missing, 'X event')} without a duration or with a negative "
                             "one (shown as zero-length)")
    last = _last_moment(host, ts, dur) if any(e is None for _, e in pairs) else 0.0
    pair_ts = np.array([b.ts for b, _ in pairs], np.float64)
    pair_dur = np.array([(last if e is None else e.ts) - b.ts for b, e in pairs], np.float64)
    start_ns = _ns(np.concatenate([ts, pair_ts]))
    dur_ns = _ns(np.maximum(np.concatenate([dur, pair_dur]), 0.0), _MOST_NS // 2)
    wild = int(np.count_nonzero(np.abs(start_ns) == _MOST_NS)) + int(np.count_nonzero(dur_ns == _MOST_NS // 2))
    if wild:
        host.warnings.append(f"{host.path.name}: times past 146 years (ts) or 73 years (dur) were put at that "
                             f"limit ({counted(wild, 'value')})")
    known = len(table.names)
    name_id = table.ids(list(map(attrgetter("name"), complete)) + [b.name for b, _ in pairs])
    _note_steps(complete, name_id[: len(complete)], known, table)
    steps = np.flatnonzero(np.isin(name_id[: len(complete)], list(table.step_ids))).tolist() if table.step_ids else []
    args = _LazyArgs(host.path, len(complete), pairs, {k: (complete[k].cat, (bytes(complete[k].args),)) for k in steps},
                     host.mended)
    has_args = any(map(len, map(attrgetter("args"), complete))) or any(map(attrgetter("cat"), complete)) or bool(pairs)

    instants = defaultdict(list)
    for event in host.instants:  # few: their args are kept raw, read when one is looked at
        instants[_KEY(event)].append((event.ts, event.name, event.cat, bytes(event.args)))
    index = {key: i for i, key in enumerate(sorted(set(run_keys) | set(pair_keys) | set(instants), key=host.sort_key))}
    run_track = np.fromiter(map(index.__getitem__, run_keys), np.int32, len(run_keys))
    pair_track = np.fromiter(map(index.__getitem__, pair_keys), np.int32, len(pair_keys))
    track_of = np.concatenate([np.repeat(run_track, run_lengths), pair_track])
    order = np.argsort(track_of, kind="stable")
    bounds = np.searchsorted(track_of[order], np.arange(len(index) + 1))
    tracks = []
    for key, k in index.items():
        sel = order[bounds[k] : bounds[k + 1]]
        args_of = partial(args.of, sel.astype(np.int32)) if has_args else None
        marks = sorted(instants.get(key, ()), key=itemgetter(0, 1))
        marks_ns = _ns(np.array([mark[0] for mark in marks], np.float64))
        marks_id = table.ids([mark[1] for mark in marks])
        marks_args = [(cat, (blob,) if blob else ()) for _, _, cat, blob in marks]
        load = partial(_columns, start_ns[sel], dur_ns[sel], name_id[sel], args_of)
        tracks.append(Track(host.group(key[0]), host.track_name(key), len(sel), table, lock, load, (marks_ns, marks_id),
                            lambda k, marks_args=marks_args: _merge(*marks_args[k])))
    shown = [e for e in host.flows if e.id is not None and _KEY(e) in index]
    flow_ns = _ns(np.fromiter(map(attrgetter("ts"), shown), np.float64, len(shown))).tolist()
    flows = [FlowPoint(first + index[_KEY(e)], at, e.ph, e.bp == "e", (e.id, e.cat, e.name)) for e, at in zip(shown, flow_ns)]
    return tracks, (partial(_args_nbytes, args, 4 * n) if has_args else None), flows


def _ends(end: _Event, begin: _Event) -> bool:
    """Whether an E may close this B, as Perfetto matches them: by category where the E has one
    (a B without one is not it), by name where both have one."""
    return (not end.cat or end.cat == begin.cat) and (not end.name or not begin.name or end.name == begin.name)


def _close_stack(stack: list, ts: float) -> int:
    """Perfetto's MaybeCloseStack, before a B or E at `ts` on the thread: slices that ended are
    taken off, and those still open inside one that ended before `ts` end where it did (how
    many, returned). Entries are [B, its E or None]."""
    cut, open_inside = 0, False
    for k in range(len(stack) - 1, -1, -1):
        begin, end = stack[k]
        if end is None:
            open_inside = True
        elif not open_inside:
            del stack[k]
        elif ts > end.ts:
            for pair in stack[k + 1:]:
                pair[1] = msgspec.structs.replace(end, args=msgspec.Raw())
                cut += 1
            del stack[k:]
            open_inside = False
    return cut


def _scoped(event):
    """An instant of process (`"s": "p"`) or global (`"g"`) scope, moved to that scope's track;
    a thread's (`"t"`, the default) stays on its thread."""
    if event.s == "p":
        event.tid = _ScopeTrack("p")
    elif event.s == "g":
        event.pid, event.tid = _GLOBAL, _GLOBAL
    return event


def _thread_runs(events: list) -> tuple[list, np.ndarray]:
    """The (pid, tid) of each run of consecutive events of one thread, and the runs' lengths.

    Writers list a thread's events together, so runs are few, and numbered ids compared as
    NumPy columns cost far less than a (pid, tid) tuple per event. Named ids (or ids past
    int64) make every event its own run.
    """
    n = len(events)
    if n and type(events[0]) is _Event:
        try:
            pid = np.fromiter(map(attrgetter("pid"), events), np.int64, n)
            tid = np.fromiter(map(attrgetter("tid"), events), np.int64, n)
        except OverflowError:
            pass
        else:
            starts = np.flatnonzero((pid[1:] != pid[:-1]) | (tid[1:] != tid[:-1])) + 1
            starts = np.concatenate([[0], starts])
            return [_KEY(events[k]) for k in starts.tolist()], np.diff(np.append(starts, n))
    return list(map(_KEY, events)), np.ones(n, np.int64)


def _note_steps(complete: list[_Event], name_id: np.ndarray, known: int, table: NameTable) -> None:
    """Names new to the table whose first event's args hold `step_num` mark steps."""
    for k in table.first_uses(name_id, known).tolist():
        if b'"step_num"' in bytes(complete[k].args):
            table.step_ids.add(int(name_id[k]))


def _cut_steps(tracks: list[Track], span: tuple[int, int]) -> list[str]:
    """Steps touching the first or last moment of the trace were probably cut off there."""
    notes = []
    lo, hi = span
    for track in tracks:
        if track.name == "Steps" and track.count:
            for i in sorted({0, track.count - 1}):
                edge = "start" if track.start_ns[i] <= lo else "end" if track.end_ns[i] >= hi else None
                if edge:
                    notes.append(
                        f"{track.group} {track.name}: step {track.event_name(i)!r} is cut off at the trace {edge}; "
                        "its time is incomplete"
                    )
    return notes


def read_chrome(files: list[Path]) -> Trace:
    """One Chrome trace, or several hosts' traces of one run (each on its own clock)."""
    check_room(files, sum(map(_check_start, files)) * JSON_FACTOR)
    table, lock = NameTable(), threading.RLock()
    tracks, counters, warnings, args_sizes, flows = [], [], [], [], []
    for path in files:
        host = _Host(path, None if len(files) == 1 else _host_label(path))
        host_tracks, args_size, host_flows = _tracks(host, table, lock, len(tracks))
        tracks += host_tracks
        flows += host_flows
        args_sizes += [args_size] if args_size else []
        counters += _counter_tracks(host)
        warnings += host.warnings
        if len(host.complete) in EVENT_CAPS:
            last = max(e.ts for e in host.complete)
            warnings.append(
                f"{path.name}: exactly {len(host.complete):,} events, the profiler's event cap: "
                f"events after {last:.0f} us were dropped"
            )
    if len(files) > 1:
        warnings.append("Chrome traces carry no common clock: the hosts' times are shown as written, not aligned")
    if not tracks and not counters:
        raise InputError(files[0], "the trace holds no events")
    if any(track.name == "Steps" for track in tracks):
        timed = [track for track in tracks if track.count]
        span = (min(int(t.start_ns[0]) for t in timed), max(int(t.end_ns.max()) for t in timed))
        warnings += _cut_steps(tracks, span)
    path = str(files[0]) if len(files) == 1 else str(files[0].parent)

    def args_nbytes() -> int:
        return sum(size() for size in args_sizes)

    return Trace(path, "chrome", tracks, table, lock, {}, warnings, counters, args_nbytes, flow_points=flows)
