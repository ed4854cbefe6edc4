"""Chrome trace events whose fields have other JSON types than the format's, read as Perfetto reads them.

Writers other than the profilers slip: `ts` as a string ("12.5"), `pid` as 3.0, a number for a
`name`, `null` for a field left out. The typed decoder (trace_chrome) refuses a whole file at the
first such field. Perfetto's JSON importer loads it: a number written as a string is that number,
an id written as a float is cut to an integer, and an event whose `ts` reads as no number is
dropped (a metadata event keeps its place: it needs no time). `mended` does the same to a file's
plain JSON and hands the events back as JSON for the typed decoder, with a line saying what it
changed or dropped. Only files the typed decoder refused come here: their size matters for
memory (plain JSON objects take about 3.6x the text), not for speed.
"""

from __future__ import annotations

import math
from collections import Counter

import msgspec

from tui.model.words import counted

_TIMES = ("ts", "dur")
_IDS = ("pid", "tid")
_TEXTS = ("ph", "name", "cat", "bp")
_DROPPED = {
    "object": ("entry of traceEvents that is not an object", "entries of traceEvents that are not objects"),
    "ph": ("event whose ph is not a string", "events whose ph is not a string"),
    "ts": ("event whose ts is not a number", "events whose ts is not a number"),
}


def mended(doc) -> tuple[bytes, list[str]] | None:
    """`doc` (a file's plain JSON) with every event's fields in the format's types, as JSON, and
    what was changed; None when it holds no list of events (not a Chrome trace at all)."""
    events = doc if isinstance(doc, list) else doc.get("traceEvents") if isinstance(doc, dict) else None
    if not isinstance(events, list) or (events and not any(isinstance(event, dict) for event in events)):
        return None
    fixes = _Fixes()
    kept = [event for k, event in enumerate(events) if fixes.event(k, event)]
    out = kept if isinstance(doc, list) else {**doc, "traceEvents": kept}
    return msgspec.json.encode(out), fixes.notes()


class _Fixes:
    """Puts each event's fields in their types, counting what it changed and what it dropped."""

    def __init__(self):
        self.changed: Counter = Counter()
        self.first_change: str | None = None
        self.dropped: Counter = Counter()  # why (a key of _DROPPED) -> how many
        self.first_drop: dict[str, int] = {}

    def event(self, k: int, event) -> bool:
        """Mend `event` (the k-th) in place; False to drop it."""
        if not isinstance(event, dict):
            return self._drop(k, "object")
        for field in _TEXTS:
            if field in event and not isinstance(event[field], str):
                if field == "ph" and event[field] is not None:
                    return self._drop(k, "ph")
                self._set(k, event, field, _text(event[field]))
        for field in _TIMES:
            if field in event and not _is_number(event[field]):
                number = as_number(event[field])
                if number is None and field == "ts" and event.get("ph") != "M":
                    return self._drop(k, "ts")
                self._set(k, event, field, number)
        for field in _IDS:
            if field in event and not (isinstance(event[field], str) or _is_int(event[field])):
                self._set(k, event, field, _id(event[field], 0))
        if "id" in event and not (event["id"] is None or isinstance(event["id"], str) or _is_int(event["id"])):
            self._set(k, event, "id", _id(event["id"], None))
        if "id2" in event and not (event["id2"] is None or isinstance(event["id2"], dict)):
            self._set(k, event, "id2", None)
        return True

    def _set(self, k: int, event: dict, field: str, value) -> None:
        """Put `value` in `field` (None: leave the field out, as if the writer had)."""
        if self.first_change is None:
            self.first_change = f"traceEvents[{k}].{field} {msgspec.json.encode(event[field]).decode()[:40]}"
        self.changed[field] += 1
        if value is None:
            del event[field]
        else:
            event[field] = value

    def _drop(self, k: int, why: str) -> bool:
        self.dropped[why] += 1
        self.first_drop.setdefault(why, k)
        return False

    def notes(self) -> list[str]:
        out = []
        if self.changed:
            fields = ", ".join(f"{n:,} {field}" for field, n in self.changed.most_common())
            n = sum(self.changed.values())
            out.append(f"{counted(n, 'field')} of another JSON type than the format's {'was' if n == 1 else 'were'} "
                       f"read as Perfetto reads them ({fields}; the first: {self.first_change})")
        for why, n in self.dropped.items():
            one, many = _DROPPED[why]
            out.append(f"{n:,} {one if n == 1 else many} {'was' if n == 1 else 'were'} skipped "
                       f"(the first: traceEvents[{self.first_drop[why]}])")
        return out


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def as_number(value) -> float | None:
    """A number, or a string that reads as a finite one, as Perfetto takes a time (CoerceToTs)
    or a counter's value; else None (true and false are not numbers to it either)."""
    if _is_number(value):
        return float(value)
    if isinstance(value, str):
        try:
            number = float(value)
        except ValueError:
            return None
        return number if math.isfinite(number) else None
    return None


def _id(value, otherwise):
    """A process, thread or event id written some other way: a float cut to an integer (as
    Perfetto's CoerceToUint32), true/false as 1/0; anything else `otherwise`."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, float) and math.isfinite(value):
        return int(value)
    return otherwise


def _text(value) -> str | None:
    """A name, category or phase written as another JSON value: its JSON text; null: left out."""
    return None if value is None else msgspec.json.encode(value).decode()
