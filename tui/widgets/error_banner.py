"""A banner under the status bar when the captured script failed: where and what it raised.

The capture still opens with everything compiled before the error; the banner says so on
every screen until the user clicks it away (the app's `show_error_banner`). A screen mounts
it only when there is an error to show: every widget on a screen, hidden or not, costs a
little on every frame.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import App
from textual.widgets import Static

from tui.model.capture_manifest import error_tail, how_it_ended


class ErrorBanner(Static):
    DEFAULT_CSS = """
    ErrorBanner { height: auto; max-height: 5; padding: 0 1; background: $error 30%; }
    """

    @staticmethod
    def message(app: App) -> Text | None:
        """What the banner says for the app's workspace (None: no banner)."""
        ws = app.workspace
        capture = ws.capture if ws is not None else None
        tail = error_tail(capture) if capture and app.show_error_banner else ""
        if not tail:
            return None
        text = Text(f"{capture['script']} failed ({how_it_ended(capture['exit_status'])}); "
                    "showing what it compiled before that. Click to hide.\n", style="bold")
        text.append(tail)
        return text

    def on_mount(self) -> None:
        self.watch(self.app, "show_error_banner", lambda shown: shown or self.remove(), init=False)

    def on_click(self) -> None:
        self.app.show_error_banner = False
