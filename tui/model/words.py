"""Counts in words, for the summary, tables and info lines: `1 event`, `21,000 events`."""

from __future__ import annotations


def counted(n: int, noun: str) -> str:
    """`n` with thousands separators and `noun`, plural unless n is one."""
    return f"{n:,} {noun}{'' if n == 1 else 's'}"
