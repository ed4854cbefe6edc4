"""Where a protobuf message whose top level reads is damaged inside: the byte, and the field.

A profile with a flipped or cut byte deep inside passes the top-level framing check
(protowire.check_framing) and then fails in jaxlib's parser, which says only that it failed.
Walking the message again with the schema's nesting finds what that parser trips on: a
nested message whose fields run past its end, or a `string` field that is not UTF-8 (proto3
requires it). Only the fields that hold messages or strings are named here; others are
skipped as the parser skips fields it does not know. It runs only after a parse has failed.
"""

from __future__ import annotations

from tui.model.protowire import field_spans

Schema = dict[int, tuple[str, object]]  # field number -> (its name, "[]" after a repeated one's; "string" or its message's Schema)

_STAT: Schema = {5: ("str_value", "string")}
_EVENT_METADATA: Schema = {2: ("name", "string"), 4: ("display_name", "string"), 5: ("stats[]", _STAT)}
_STAT_METADATA: Schema = {2: ("name", "string"), 3: ("description", "string")}
_LINE: Schema = {2: ("name", "string"), 11: ("display_name", "string"), 4: ("events[]", {4: ("stats[]", _STAT)})}
_PLANE: Schema = {
    2: ("name", "string"),
    3: ("lines[]", _LINE),
    4: ("event_metadata[]", {2: ("value", _EVENT_METADATA)}),  # a map's entries: key 1, value 2
    5: ("stat_metadata[]", {2: ("value", _STAT_METADATA)}),
    6: ("stats[]", _STAT),
}
XSPACE: Schema = {1: ("planes[]", _PLANE), 2: ("errors[]", "string"), 3: ("warnings[]", "string"), 4: ("hostnames[]", "string")}


def first_damage(data, schema: Schema) -> str | None:
    """What is wrong inside `data`, a message of `schema`, and where: `at byte 1,234 (in
    planes[2].lines[0].events[17]): ...`; None if nothing the schema names is damaged."""
    try:
        _walk(data, 0, len(data), schema, "")
    except _Damage as damage:
        return str(damage)
    return None


class _Damage(Exception):
    pass


def _walk(data, start: int, end: int, schema: Schema, path: str) -> None:
    counts: dict[int, int] = {}
    try:
        fields = list(field_spans(data, start, end))
    except ValueError as error:
        raise _Damage(f"{error} (in {path or 'the top level'})") from None
    for number, value in fields:
        known = schema.get(number)
        if known is None or not isinstance(value, tuple):
            continue
        name, kind = known
        if name.endswith("[]"):
            index = counts[number] = counts.get(number, -1) + 1
            name = f"{name[:-2]}[{index}]"
        here = f"{path}.{name}" if path else name
        if kind == "string":
            try:
                bytes(data[value[0] : value[1]]).decode("utf-8")
            except UnicodeDecodeError as error:
                raise _Damage(f"text that is not UTF-8 at byte {value[0] + error.start:,} (in {here})") from None
        else:
            _walk(data, value[0], value[1], kind, here)
