"""Focused widgets that run a key's binding where the key arrives, instead of after it bubbles.

Textual hands a key to the focused widget, which passes it to its parent, and so on up to the
app, which only then walks the bindings (widget first, then its screen, then the app, each map
copied for the walk) and runs the action. Each hop is a message through a queue, and on the
timeline's cursor keys the hops and copies cost about 0.25 ms of a 3 ms key-to-frame time. A
widget with this mixin makes that walk itself when the key arrives: up from itself to the app,
stopping after a modal screen, a node's bindings left out where a node below it takes the key
as typing (`check_consume_key`), as Textual's walk does, without copying each map. With a
keymap set (it renames keys), it asks the app for the walk (`App._check_bindings`). It stops
the key when a binding took it; a key no binding takes bubbles on as before. (A `key_…`
method then runs only for keys no binding takes; these widgets have none.)

Each widget a key repainted tells the screen so when its own queue next runs dry, and the
screen's first such message starts its frame timer. Back to back, the timer's next tick is a
few milliseconds off; after a pause it is due at once, and while another widget the key
changed still had a message queued (a timer's, a worker's), one frame showed part of the key
and the next frame the rest, each a whole pass of the compositor. So once the binding ran,
every repainted widget tells the screen at once.
"""

from __future__ import annotations

from textual import events
from textual.keys import key_to_character


class DirectKeys:
    """Mix in before the Widget class of a focusable widget."""

    async def _on_key(self, event: events.Key) -> None:
        if self.loading:
            return
        if not await self._run_binding(event.key):
            return
        event.stop()
        event.prevent_default()  # Widget's own `_on_key` (the `key_…` methods) is not needed
        if self.is_attached:  # (a key may have taken the widget off its screen)
            for widget in self.screen.walk_children():  # what the key repainted, told to the screen now
                if widget._repaint_required:
                    widget._check_refresh()

    async def _run_binding(self, key: str) -> bool:
        """Run the first binding of `key` that acts, walking up from here; True if one did."""
        app = self.app
        if app._keymap:
            return await app._check_bindings(key)
        character = key_to_character(key)
        below = []
        for node in self.ancestors_with_self:
            if not any(lower.check_consume_key(key, character) for lower in below):
                for binding in node._bindings.key_to_bindings.get(key, ()):
                    if not binding.priority and await app.run_action(binding.action, node):
                        return True
            if node.is_modal:
                break
            below.append(node)
        return False
