"""What every pane shares: the status bar, the key bar, and redrawing on workspace/selection changes."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.screen import Screen

from tui.model.workspace import Selection, Workspace
from tui.widgets.error_banner import ErrorBanner
from tui.widgets.key_bar import KeyBar
from tui.widgets.line_cache import LineCache
from tui.widgets.status_bar import StatusBar


class WorkspaceScreen(LineCache, Screen):
    """A pane over the app's Workspace. Subclasses compose `body()` and implement the two hooks.

    Hidden panes don't redraw on every selection change; they catch up when shown again.
    """

    pane_title = ""

    def compose(self) -> ComposeResult:
        self._status_bar = StatusBar(self.pane_title)
        yield self._status_bar
        yield from self.body()
        yield KeyBar()

    def body(self) -> ComposeResult:
        yield from ()

    @property
    def workspace(self) -> Workspace | None:
        return self.app.workspace

    @property
    def ready(self) -> bool:
        return self.app.workspace is not None

    def on_mount(self) -> None:
        self._stale = False
        self.watch(self.app, "workspace", self._workspace_changed)
        self.watch(self.app, "selection", self._selection_changed, init=False)

    def _workspace_changed(self, ws: Workspace | None) -> None:
        if ws is not None:
            self._show_error_banner()
            self.show_workspace(ws)

    def _show_error_banner(self) -> None:
        """Mount, update or remove the banner under the status bar for this workspace."""
        message = ErrorBanner.message(self.app)
        shown = self.query(ErrorBanner)
        if message is None:
            shown.remove()
        elif shown:
            shown.first().update(message)
        else:
            self.mount(ErrorBanner(message), after=0)

    def _selection_changed(self, old: Selection, new: Selection) -> None:
        if not self.ready:
            return
        if self.app.screen is not self:
            self._stale = True
            return
        self.show_selection(old, new)

    def on_screen_resume(self) -> None:
        self._status_bar.refresh()  # it repaints only while its screen is shown
        if getattr(self, "_stale", False) and self.ready:
            self._stale = False
            self.show_selection(Selection(), self.app.selection)

    # -- hooks ----------------------------------------------------------------
    def show_workspace(self, ws: Workspace) -> None:
        """The workspace finished loading (or was replaced)."""

    def show_selection(self, old: Selection, new: Selection) -> None:
        """The shared selection changed."""
