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


_MORE = " … "  # where keys that do not fit were left out (`?` lists them all)


def _length(entry) -> int:
    """Cells an entry takes: ` k description `."""
    return len(entry[0]) + len(entry[1]) + 3


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
        """The keys in order, then the palette's on the right. Where they do not all fit, whole
        keys are left out from the end, with `…` where they were, and `?` (which lists them
        all) is kept: a key is never cut in the middle of its name."""
        key_style = self.get_component_rich_style("key-bar--key")
        disabled = self.get_component_rich_style("key-bar--disabled")
        entries, actions, palette = [], set(), None  # (key shown, description, enabled, key, kept)
        for key, active in self.screen.active_bindings.items():
            binding = active.binding
            if key == self.app.COMMAND_PALETTE_BINDING:
                palette = binding
                continue
            if not binding.show or binding.action in actions:
                continue
            actions.add(binding.action)
            entries.append((self.app.get_key_display(binding), binding.description, active.enabled, binding.key,
                            binding.id == "help"))
        right = ((self.app.get_key_display(palette), palette.description, True, palette.key, True)
                 if palette is not None and self.app.ENABLE_COMMAND_PALETTE else None)  # the palette's, on the right
        width = self.size.width
        room = width - (_length(right) + 1 if right else 0)
        if sum(map(_length, entries)) > room:  # the kept ones, and `… `, take their room first
            kept = [entry for entry in entries if entry[4]]
            left = room - sum(map(_length, kept)) - len(_MORE)
            shown = []
            for entry in entries:
                if not entry[4] and _length(entry) <= left:
                    shown.append(entry)
                    left -= _length(entry)
                elif not entry[4]:
                    left = -1  # keys stay in order: none after the first left out
            entries = [*shown, None, *kept]
        text = Text(no_wrap=True, overflow="ellipsis", end="")
        spots = []
        for entry in entries:
            if entry is None:
                text.append(_MORE, style=disabled)
                continue
            shown_key, description, enabled, key, _ = entry
            start = len(text)
            text.append(f" {shown_key} ", style=key_style if enabled else disabled)
            text.append(f"{description} ", style="" if enabled else disabled)
            spots.append((start, len(text), key))
        if right:
            shown_key, description, _, key, _ = right
            text.append(" " * max(1, width - len(text) - _length(right)))
            spots.append((len(text), len(text) + _length(right), key))
            text.append(f" {shown_key} ", style=key_style)
            text.append(f"{description} ")
        self._spots = spots
        return text

    def on_click(self, event: events.Click) -> None:
        for start, end, key in self._spots:
            if start <= event.x < end:
                self.app.simulate_key(key.split(",")[0])
                return
