"""Decoding of HLO attribute text (`dimensions={0}, metadata={...}, window={size=3x3}`).

The parser keeps each instruction's attributes as raw text; these helpers turn it into values
only when a screen asks, which keeps loading a 40k-instruction module cheap.
"""

from __future__ import annotations

import json
import re

_STRUCTURE = re.compile(r'"(?:[^"\\]|\\.)*"|[(){}\[\],]')
_METADATA_FIELD = re.compile(r'(\w+)=("(?:[^"\\]|\\.)*"|\{[^{}]*\}|[^\s}]+)')
_OPEN = "({["
_CLOSE = ")}]"


def split_top_level(text: str, sep: str = ",") -> list[str]:
    """Split at `sep` outside brackets and quoted strings."""
    parts, depth, start = [], 0, 0
    for m in _STRUCTURE.finditer(text):
        c = m.group()
        if c[0] == '"':
            continue
        if c in _OPEN:
            depth += 1
        elif c in _CLOSE:
            depth -= 1
        elif c == sep and depth == 0:
            parts.append(text[start : m.start()])
            start = m.end()
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


def parse_attributes(text: str) -> dict[str, str]:
    """`, a=1, b={2,3}` -> {'a': '1', 'b': '{2,3}'} (values raw, order kept)."""
    attrs = {}
    for part in split_top_level(text):
        key, eq, value = part.partition("=")
        attrs[key.strip()] = value.strip() if eq else ""
    return attrs


_ESCAPE = re.compile(r"\\([0-7]{1,3}|x[0-9a-fA-F]{1,2}|.)", re.DOTALL)
_ESCAPED = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "f": "\f", "v": "\v"}


def unquote(value: str) -> str:
    """A C-escaped quoted string as XLA prints it (absl::CEscape) -> its text: `\\'`, `\\"`,
    and the bytes of a name or path beyond ASCII, which XLA writes in octal (`attention_é` is
    `attention_\\303\\251`), read back as UTF-8."""
    if len(value) >= 2 and value[0] == '"' and value[-1] == '"':
        body = value[1:-1]
        if "\\" not in body:
            return body
        if not re.search(r"\\([0-7]|x[0-9a-fA-F])", body):
            return _ESCAPE.sub(lambda m: _ESCAPED.get(m.group(1), m.group(1)), body)
        out, at = bytearray(), 0
        for m in _ESCAPE.finditer(body):
            out += body[at:m.start()].encode()
            code = m.group(1)
            if code[0] in "01234567":
                out.append(int(code, 8) & 0xFF)
            elif code[0] == "x" and len(code) > 1:
                out.append(int(code[1:], 16))
            else:
                out += _ESCAPED.get(code, code).encode()
            at = m.end()
        out += body[at:].encode()
        return out.decode("utf-8", errors="replace")
    return value


def parse_metadata(value: str) -> dict[str, str | int]:
    """`{op_type="dot" op_name="jit(f)/dot" source_line=3}` -> dict; ints become int."""
    body = value.strip()
    if body.startswith("{") and body.endswith("}"):
        body = body[1:-1]
    out: dict[str, str | int] = {}
    for key, raw in _METADATA_FIELD.findall(body):
        if raw.startswith('"'):
            out[key] = unquote(raw)
        elif raw.lstrip("-").isdigit():
            out[key] = int(raw)
        else:
            out[key] = raw
    return out


def parse_int_list(value: str) -> list[int]:
    """`{1,0}` or `{}` -> [1, 0] / []."""
    body = value.strip().strip("{}").strip()
    return [int(x) for x in body.split(",")] if body else []


def parse_name_list(value: str) -> list[str]:
    """`{%a, %b}` or `%a` -> ['a', 'b'] (computation or instruction references)."""
    body = value.strip()
    if body.startswith("{"):
        body = body[1:-1]
    return [x.strip().lstrip("%") for x in body.split(",") if x.strip()]


def parse_slice(value: str) -> list[tuple[int, int, int]]:
    """`{[0:4], [2:8:2]}` -> [(0, 4, 1), (2, 8, 2)]."""
    out = []
    for start, limit, stride in re.findall(r"\[(-?\d+):(-?\d+)(?::(-?\d+))?\]", value):
        out.append((int(start), int(limit), int(stride or 1)))
    return out


def parse_padding(value: str) -> list[tuple[int, int, int]]:
    """`0_0x3_3x1_1_2` -> [(lo, hi, interior), ...] per dimension."""
    dims = []
    for part in value.strip().split("x"):
        nums = [int(n) for n in part.split("_")]
        dims.append((nums[0], nums[1] if len(nums) > 1 else 0, nums[2] if len(nums) > 2 else 0))
    return dims


def parse_window(value: str) -> dict[str, list]:
    """`{size=3x3 stride=2x2 pad=1_1x1_1 lhs_dilate=.. rhs_dilate=.. rhs_reversal=..}` -> dict of per-dim lists."""
    body = value.strip().strip("{}")
    out: dict[str, list] = {}
    for key, raw in re.findall(r"(\w+)=(\S+)", body):
        if key == "pad":
            out[key] = [tuple(int(n) for n in p.split("_")) for p in raw.split("x")]
        else:
            out[key] = [int(n) for n in raw.split("x")]
    return out


def parse_dim_labels(value: str) -> dict[str, str]:
    """`b01f_01io->b01f` -> {'lhs': 'b01f', 'rhs': '01io', 'out': 'b01f'}."""
    m = re.fullmatch(r"\s*(\w+)_(\w+)->(\w+)\s*", value)
    return {"lhs": m.group(1), "rhs": m.group(2), "out": m.group(3)} if m else {}


def parse_backend_config(value: str):
    """backend_config is JSON (GPU/TPU) or an opaque string; return the decoded JSON or the text."""
    text = unquote(value) if value.startswith('"') else value
    if text.startswith("{"):
        try:
            return json.loads(text)
        except (ValueError, RecursionError):  # not JSON, or nested past Python's depth limit: shown raw
            return text
    return text


def parse_frontend_attributes(value: str) -> dict[str, str]:
    body = value.strip()
    if body.startswith("{") and body.endswith("}"):
        body = body[1:-1]
    out = {}
    for part in split_top_level(body):
        key, _, raw = part.partition("=")
        out[key.strip()] = unquote(raw.strip())
    return out


def parse_output_operand_aliasing(value: str) -> list[tuple[tuple[int, ...], int, tuple[int, ...]]]:
    """`{{0}: (1, {}), {}: (0, {1})}` -> [(output_index, operand, operand_index), ...]."""
    out = []
    for o_idx, operand, op_idx in re.findall(r"\{([\d,\s]*)\}:\s*\((\d+),\s*\{([\d,\s]*)\}\)", value):
        to_tuple = lambda s: tuple(int(x) for x in s.split(",") if x.strip())
        out.append((to_tuple(o_idx), int(operand), to_tuple(op_idx)))
    return out


# Attribute keys whose values name called computations.
COMPUTATION_KEYS = (
    "calls", "to_apply", "body", "condition", "branch_computations", "true_computation",
    "false_computation", "called_computations", "select", "scatter", "comparator",
)
