"""The bottom line of every screen: the keys that work here, as one widget.

Textual's Footer makes a widget per key; every widget is one more message queue that each
frame's bookkeeping visits, which is most of a cheap frame's cost. This bar shows the same
bindings (focused widget, screen, app; one entry per action; the palette key on the right)
as a single line of text, and a click on a key presses it.
"""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.screen import Screen
from textual.widget import Widget

from tui.widgets.line_cache import LineCache


class KeyBar(LineCache, Widget):
    DEFAULT_CSS = """
    KeyBar { dock: bottom; height: 1; background: $footer-background; color: $footer-description-foreground; }
    KeyBar > .key-bar--key { color: $footer-key-foreground; text-style: bold; }
    KeyBar > .key-bar--disabled { color: $text-disabled; }
    """
    COMPONENT_CLASSES = {"key-bar--key", "key-bar--disabled"}

    def __init__(self) -> None:
        super().__init__()
        self._spots: list[tuple[int, int, str]] = []  # (start, end, key) of each shown binding

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def _bindings_changed(self, screen: Screen) -> None:
        if screen is self.screen:
            self.refresh()

    def render(self) -> Text:
        key_style = self.get_component_rich_style("key-bar--key")
        disabled = self.get_component_rich_style("key-bar--disabled")
        text = Text(no_wrap=True, overflow="ellipsis", end="")
        spots, actions, palette = [], set(), None
        for key, active in self.screen.active_bindings.items():
            binding = active.binding
            if key == self.app.COMMAND_PALETTE_BINDING:
                palette = binding
                continue
            if not binding.show or binding.action in actions:
                continue
            actions.add(binding.action)
            start = len(text)
            text.append(f" {self.app.get_key_display(binding)} ", style=key_style if active.enabled else disabled)
            text.append(f"{binding.description} ", style="" if active.enabled else disabled)
            spots.append((start, len(text), binding.key))
        if palette is not None and self.app.ENABLE_COMMAND_PALETTE:
            label = f" {self.app.get_key_display(palette)} {palette.description} "
            gap = max(1, self.size.width - len(text) - len(label))
            text.append(" " * gap)
            spots.append((len(text), len(text) + len(label), palette.key))
            text.append(f" {self.app.get_key_display(palette)} ", style=key_style)
            text.append(f"{palette.description} ")
        self._spots = spots
        return text

    def on_click(self, event: events.Click) -> None:
        for start, end, key in self._spots:
            if start <= event.x < end:
                self.app.simulate_key(key.split(",")[0])
                return
