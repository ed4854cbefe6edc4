"""A banner under the status bar when the captured script failed: where and what it raised.

The capture still opens with everything compiled before the error; the banner says so on
every screen until the user clicks it away (the app's `show_error_banner`).
"""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from tui.model.capture_manifest import error_tail


class ErrorBanner(Static):
    DEFAULT_CSS = """
    ErrorBanner { display: none; height: auto; max-height: 5; padding: 0 1; background: $error 30%; }
    ErrorBanner.-shown { display: block; }
    """

    def on_mount(self) -> None:
        self.watch(self.app, "workspace", lambda _: self._refresh_banner(), init=False)
        self.watch(self.app, "show_error_banner", lambda _: self._refresh_banner(), init=True)

    def _refresh_banner(self) -> None:
        ws = self.app.workspace
        capture = ws.capture if ws is not None else None
        tail = error_tail(capture) if capture and self.app.show_error_banner else ""
        self.set_class(bool(tail), "-shown")
        if tail:
            text = Text(f"{capture['script']} failed (exit status {capture['exit_status']}); "
                        "showing what it compiled before that. Click to hide.\n", style="bold")
            text.append(tail)
            self.update(text)

    def on_click(self) -> None:
        self.app.show_error_banner = False
