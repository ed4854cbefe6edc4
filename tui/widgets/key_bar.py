"""A footer drawn as one line of text: the keys of the focused widget, its screen and the app.

Textual's Footer makes a widget per key; on a screen whose every keypress must cost little
(the timeline) those widgets add up, so this draws the same keys as one widget. A click on a
key runs its action, as in the Footer.
"""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.widget import Widget


class KeyBar(Widget):
    DEFAULT_CSS = """
    KeyBar { height: 1; dock: bottom; background: $footer-background; color: $footer-foreground; }
    KeyBar > .key-bar--key { color: $footer-key-foreground; background: $footer-key-background; text-style: bold; }
    KeyBar > .key-bar--description { color: $footer-description-foreground; }
    """
    COMPONENT_CLASSES = {"key-bar--key", "key-bar--description"}

    def __init__(self) -> None:
        super().__init__()
        self._spans: list[tuple[int, int, object, str]] = []  # (x0, x1, node, action)

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, lambda screen: self.refresh())

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def render(self) -> Text:
        key_style = self.get_component_rich_style("key-bar--key")
        description_style = self.get_component_rich_style("key-bar--description")
        text = Text(no_wrap=True, overflow="ellipsis")
        self._spans = []
        shown = {}
        palette = self.app.COMMAND_PALETTE_BINDING
        for key, (node, binding, enabled, _) in self.screen.active_bindings.items():
            if (binding.show or key == palette) and enabled and binding.action not in shown:
                shown[binding.action] = (node, binding, key == palette)
        for node, binding, is_palette in sorted(shown.values(), key=lambda item: item[2]):
            start = len(text)
            text.append(f" {self.app.get_key_display(binding)} ", key_style)
            text.append(f"{binding.description or 'palette'} ", description_style)
            self._spans.append((start, len(text), node, binding.action))
        return text

    async def on_click(self, event: events.Click) -> None:
        for x0, x1, node, action in self._spans:
            if x0 <= event.x < x1:
                await self.app.run_action(action, node)
                return
