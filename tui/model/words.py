"""Words for the summary, tables, boxes and info lines: counts (`1 event`, `21,000 events`),
names cut to fit."""

from __future__ import annotations


def counted(n: int, noun: str) -> str:
    """`n` with thousands separators and `noun`, plural unless n is one."""
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


def middle_cut(text: str, width: int) -> str:
    """`text` in `width` characters, `…` for its middle, a third of the room kept for the end
    (the end of an op's name tells ops apart: `….3`, `….12`)."""
    if len(text) <= width:
        return text
    tail = (width - 1) // 3
    return text[: width - 1 - tail] + "…" + (text[-tail:] if tail else "")
