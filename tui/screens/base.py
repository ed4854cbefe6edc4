"""What every pane shares: the status bar, the key bar, and redrawing on workspace/selection changes."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widget import Widget
from textual.timer import Timer
from textual.widgets import Static

from tui.model.workspace import Selection, Workspace
from tui.widgets.compositor import new_compositor
from tui.widgets.error_banner import ErrorBanner
from tui.widgets.key_bar import KeyBar
from tui.widgets.line_cache import LineCache
from tui.widgets.status_bar import StatusBar
from tui.widgets import still


class WorkspaceScreen(LineCache, Screen):
    """A pane over the app's Workspace. Subclasses compose `body()` and implement the two hooks.

    Hidden panes don't redraw on every selection change; they catch up when shown again.
    """

    BINDINGS = [Binding("y", "copy", "Copy the selection", show=False),
                Binding("Y", "copy_view", "Copy the view as text", show=False)]
    pane_title = ""
    _ahead_timer: Timer | None = None  # calls work_ahead while the pane is shown
    _idle = False  # the timer is paused because the work ahead is done (see wake)
    shows = "module"  # what the pane is about, "module" or "trace": without it, its keys are off
    # What the pane says when the input lacks what it shows (None: the pane says it itself).
    missing_note: str | None = ("This input has no HLO module (a profile that holds none of its programs: "
                                "a Chrome trace with no xplane beside it, or an xplane taken with "
                                "enable_hlo_proto off). Open an HLO "
                                "file, an --xla_dump_to folder or a script, or add the profile to one with "
                                "`xla-tui DUMP_DIR --profile TRACE`.")

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._compositor = new_compositor()  # Textual's, with less work per changed line

    def compose(self) -> ComposeResult:
        self._status_bar = StatusBar(self.pane_title)
        yield self._status_bar
        self._body = list(self.body())
        yield from self._body
        yield KeyBar()

    def body(self) -> ComposeResult:
        yield from ()

    @property
    def _main_widget(self) -> Widget | None:
        """The pane's first focusable widget (else its first): where the loading spinner goes."""
        return next((w for w in self._body if w.can_focus), self._body[0] if self._body else None)

    @property
    def workspace(self) -> Workspace | None:
        return self.app.workspace

    @property
    def ready(self) -> bool:
        """The workspace is here, and for a pane about a module, its module too (a profile
        opened alone shows its timeline while the app still parses its program)."""
        ws = self.app.workspace
        return ws is not None and (self.shows == "trace" or ws.parsed)

    @property
    def has_content(self) -> bool:
        ws = self.app.workspace
        if ws is None:
            return False
        return ws.trace is not None if self.shows == "trace" else ws.current is not None

    def action_copy(self) -> None:
        """`y`: the pane's selection as text, to the clipboard. Textual sends it as an OSC 52
        escape, which reaches the terminal on the far side of an SSH session where it allows
        that (tmux: `set-clipboard on`)."""
        found = self.copy_text()
        if found is None:
            self.notify("Nothing selected to copy", severity="warning")
            return
        self._copy(*found)

    def action_copy_view(self) -> None:
        """`Y`: what the pane shows, whole, as plain text (a table as tab-separated columns, for a
        spreadsheet; a drawing as its characters, for a bug report)."""
        found = self.view_text()
        if found is None:
            self.notify("Nothing here to copy as text", severity="warning")
            return
        self._copy(*found)

    def _copy(self, what: str, text: str) -> None:
        self.app.copy_to_clipboard(text)
        self.notify(f"Copied {what} to the clipboard ({text.count(chr(10)) + 1:,} lines, {len(text):,} characters)")

    def copy_text(self) -> tuple[str, str] | None:
        """(what it is, its text) of the pane's selection: by default the selected op's HLO."""
        ins = self.workspace.instruction if self.workspace is not None else None
        return None if ins is None else (f"{ins.name}'s HLO", ins.text)

    def view_text(self) -> tuple[str, str] | None:
        """(what it is, its text) of what the pane shows; None where it has no such text."""
        return None

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        """A profile-only input has no graph and an HLO-only one no timeline: such a pane says so,
        and its own keys do nothing (the app's keys, screens, help and quit, stay)."""
        return self.has_content

    def on_mount(self) -> None:
        self._stale = False
        if type(self).work_ahead is not WorkspaceScreen.work_ahead:  # only panes that work ahead tick
            self._ahead_timer = self.set_interval(still.TICK_S, self._tick)
        if not self.ready and self._main_widget is not None:  # a spinner until the inputs are loaded
            self._main_widget.loading = True
        self.watch(self.app, "workspace", self._workspace_changed)
        self.watch(self.app, "selection", self._selection_changed, init=False)

    def _tick(self) -> None:
        if self.work_ahead():
            self._ahead_timer.pause()  # done for what is shown: an idle pane takes no CPU
            self._idle = True
            self.app.collect_while_idle()

    def wake(self) -> None:
        """What the pane shows may change (a key, the mouse, a resize, new data): tick again, a
        whole tick from now (a tick at once would run inside the key that woke it)."""
        if self._idle and self.is_current:
            self._idle = False
            self._ahead_timer.reset()

    def _workspace_changed(self, ws: Workspace | None) -> None:
        self.wake()
        if ws is None:
            return
        if not self.ready:  # the program is still parsing: the app sets the workspace again once it is
            if self._main_widget is not None:
                self._main_widget.loading = True
            return
        if self._main_widget is not None:
            self._main_widget.loading = False
        self.refresh_bindings()  # check_action's answers change once the workspace is here
        self._show_error_banner()
        self.show_workspace(ws)
        if not self.has_content:
            for widget in self.query("*"):
                if widget.can_focus:
                    widget.disabled = True
            if self.missing_note and not self.query(".missing-note"):
                self.mount(Static(self.missing_note, classes="missing-note"), after=self.query_one(StatusBar))

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
        self.wake()
        if not self.ready:
            return
        if self.app.screen is not self:
            self._stale = True
            return
        self.show_selection(old, new)

    def on_screen_suspend(self) -> None:
        if self._ahead_timer is not None:
            self._ahead_timer.pause()

    def on_screen_resume(self) -> None:
        if self._ahead_timer is not None:
            self._idle = False
            self._ahead_timer.resume()
        self._status_bar.refresh()  # it repaints only while its screen is shown
        if getattr(self, "_stale", False) and self.ready:
            self._stale = False
            self.show_selection(Selection(), self.app.selection)
        self.shown_again()

    # -- hooks ----------------------------------------------------------------
    def show_workspace(self, ws: Workspace) -> None:
        """The workspace finished loading (or was replaced)."""

    def show_selection(self, old: Selection, new: Selection) -> None:
        """The shared selection changed."""

    def shown_again(self) -> None:
        """The pane is on screen again, caught up with the selection made while it was not."""

    def work_ahead(self) -> bool:
        """Called every tick while the pane is shown: work for the next key once the view has
        stood still (tui/widgets/still.py). True when nothing is left to do until the view
        changes (the tick then stops until `wake`)."""
        return True
