"""Colours for op categories, chosen to stay distinct in 256-colour terminals."""

from __future__ import annotations

from rich.style import Style

CATEGORY_COLORS: dict[str, str] = {
    "matmul": "#ff5f5f",
    "fusion": "#5fafff",
    "loop fusion": "#5f87ff",
    "input fusion": "#00afd7",
    "output fusion": "#5fd7ff",
    "custom fusion": "#af87ff",
    "collective": "#ffaf00",
    "layout": "#d7d75f",
    "custom-call": "#d787d7",
    "reduce": "#5fd7af",
    "elementwise": "#87d787",
    "control": "#bcbcbc",
    "parameter": "#8a8a8a",
    "constant": "#8a8a8a",
}

_STYLES = {name: Style(color=color) for name, color in CATEGORY_COLORS.items()}


def category_style(category: str) -> Style:
    return _STYLES.get(category, _STYLES["elementwise"])
