"""The Textual app: loads the inputs in a worker, then serves four screens over one Workspace."""

from __future__ import annotations

import gc
import os
from pathlib import Path
from typing import Iterable

from textual import events, work
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.reactive import var
from textual.screen import Screen

from tui.model.errors import InputError, unreadable
from tui.model.file_kind import told
from tui.model.workspace import Selection, Workspace
from tui.screens.details import DetailsScreen
from tui.screens.graph import GraphScreen
from tui.screens.help import HelpScreen
from tui.screens.memory import MemoryScreen
from tui.screens.palette import Palette, WorkspaceCommands
from tui.screens.timeline import TimelineScreen

SCREENS = {"graph": "Graph", "details": "Details", "memory": "Memory", "timeline": "Timeline"}
LET_GO_EVERY_S = 10.0  # how often an idle xplane's parsed data is checked for freeing (Trace.let_go_idle)


class XlaTuiApp(App):
    """`XlaTuiApp(*paths)`: the app for those inputs (what the CLI runs)."""

    TITLE = "xla-tui"
    CSS_PATH = "app.tcss"
    MODES = {"graph": GraphScreen, "details": DetailsScreen, "memory": MemoryScreen, "timeline": TimelineScreen}
    DEFAULT_MODE = "graph"
    COMMANDS = App.COMMANDS | {WorkspaceCommands}
    # Textual's own text selection (a plain drag) finds no text in Line API panes: copying gave
    # "DetailsView#details", and a press on a widget just removed stopped the app. Off: the
    # terminal's own selection (shift+drag in most terminals) copies what the screen shows.
    ALLOW_SELECT = False
    BINDINGS = [
        Binding("1", "switch_mode('graph')", "Graph", id="screen.graph"),
        Binding("2", "switch_mode('details')", "Details", id="screen.details"),
        Binding("3", "switch_mode('memory')", "Memory", id="screen.memory"),
        Binding("4", "switch_mode('timeline')", "Timeline", id="screen.timeline"),
        Binding("question_mark", "help", "Keys", id="help"),
        Binding("q", "quit", "Quit", id="quit"),
    ]

    # `var`, not `reactive`: screens watch these and redraw only what changed; a reactive
    # would repaint the whole screen on every selection change.
    workspace: var[Workspace | None] = var(None, always_update=True)
    selection: var[Selection] = var(Selection())
    status: var[str] = var("Starting")
    show_error_banner: var[bool] = var(True)  # a failed script's error, until clicked away

    def __init__(self, *paths: str | os.PathLike, main: str | None = None, workspace: Workspace | None = None):
        super().__init__()
        self.paths = [os.fspath(p) for p in paths]
        self.main_module = main
        self.load_error: str | None = None
        self._preloaded = workspace
        self._freezing: bool | None = None  # whether this app froze what it loaded (see keep_loaded)

    def on_mount(self) -> None:
        self.set_interval(LET_GO_EVERY_S, self._let_go_idle)
        if self._preloaded is not None:
            self._adopt(self._preloaded)
        elif self.paths:
            if _profiles_only(self.paths):
                self.switch_mode("timeline")  # a profile opened alone opens on its timeline, as Perfetto's does
            self.load_inputs()
        else:
            self.status = "Nothing to open: give a script, HLO file, dump folder or profile"

    @work(thread=True, exclusive=True, group="load", exit_on_error=False)
    def load_inputs(self) -> None:
        from tui.model.inputs import load_profile_program, load_workspace

        def progress(message: str) -> None:
            self.call_from_thread(setattr, self, "status", message)

        try:
            ws = load_workspace(self.paths, main=self.main_module, progress=progress, defer_profile_program=True)
            if ws.trace is not None and self.current_mode == "timeline":
                ws.trace.span  # what its span needs is decoded here, not on the UI thread while the timeline adopts it
            first, deferred = ws.main, not ws.parsed  # a profile alone: its timeline shows while its program parses
            self.call_from_thread(self._adopt, ws)
            if deferred:
                load_profile_program(ws, self.main_module, progress)
                self.call_from_thread(self._program_parsed, ws, first)
        except InputError as e:
            self.call_from_thread(self._failed, told(e))
        except Exception as e:  # noqa: BLE001 - input that broke a reader: one line and exit 2, not a spinner for ever
            self.call_from_thread(self._failed, unreadable(self.paths, e))

    def _failed(self, message: str) -> None:
        self.load_error = message
        self.status = message
        self.exit(return_code=2)  # the CLI prints `load_error` as one line once the terminal is back

    def _adopt(self, ws: Workspace) -> None:
        ws.subscribe(lambda old, new: setattr(self, "selection", new))
        self.selection = ws.selection
        self.status = "Ready"
        self.workspace = ws
        self.keep_loaded()
        if ws.warnings:
            self.notify(f"{len(ws.warnings)} warning(s): {ws.warnings[0]}", severity="warning", timeout=6)

    def _program_parsed(self, ws: Workspace, first) -> None:
        """The main program of a profile opened alone is parsed: the screens see the workspace
        again (a program left out for being bad changes the main module and says why)."""
        self.status = "Ready"
        if ws.main is not first:
            ws.select(module=ws.main.label if ws.main else None)
            if ws.warnings:
                self.notify(f"{len(ws.warnings)} warning(s): {ws.warnings[-1]}", severity="warning", timeout=6)
        self.workspace = ws
        self.keep_loaded()

    def keep_loaded(self) -> None:
        """Take what is loaded so far out of the cyclic collector's walks (`gc.freeze`) while the app runs.

        A loaded module or trace lives as long as the app, yet each full collection walks all of
        it: 120-150 ms on the 48-layer GPT, a stall every few hundred keys. Called when a load
        finishes; `on_unmount` hands everything back, so nothing outlives the app frozen (a
        `tui.explore()` caller's objects, extension objects checked for leaks at exit). A host
        program that froze objects itself is left alone.
        """
        if self._freezing is None:
            self._freezing = gc.get_freeze_count() == 0
        if self._freezing:
            gc.freeze()

    def collect_while_idle(self) -> None:
        """A pane is done working ahead and waits for a key: run the cyclic collector's full pass
        now, if anything was made since the last, rather than in the middle of the next burst of
        keys (it walks every object made since the load: the panes' kept lines and pictures)."""
        if gc.isenabled() and gc.get_count()[2]:  # a younger pass ran since the last full one
            gc.collect()

    def _let_go_idle(self) -> None:
        trace = self.workspace.trace if self.workspace is not None else None
        if trace is not None and trace.can_let_go:
            self._let_go(trace)

    @work(thread=True, exclusive=True, group="let-go", exit_on_error=False)
    def _let_go(self, trace) -> None:
        """An xplane's ProfileData, unused for a while, is freed (Trace.let_go_idle): off the UI
        thread, as freeing a few hundred MB takes a moment."""
        trace.let_go_idle()

    def on_unmount(self) -> None:
        if self._freezing:
            gc.unfreeze()
        self._freezing = False  # a screen's load that finishes while the app closes freezes nothing

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, (events.Key, events.MouseEvent, events.Resize)) and self.screen_stack:
            wake = getattr(self.screen_stack[-1], "wake", None)  # its work-ahead tick, stopped while idle
            if wake is not None:
                wake()
        await super().on_event(event)

    # -- actions --------------------------------------------------------------
    def action_help(self) -> None:
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(self.screen))

    def select(self, **changes) -> None:
        """Change the shared selection (no-op before the workspace is loaded)."""
        if self.workspace is not None:
            self.workspace.select(**changes)

    def show(self, screen: str, **selection) -> None:
        """Select, then switch to a screen: the cross-links between panes."""
        self.select(**selection)
        self.switch_mode(screen)

    def show_runs(self, instruction: str) -> None:
        """The timeline, at an op's first run in time, its runs the matches."""
        self.select(instruction=instruction)
        self.switch_mode("timeline")
        self.screen.show_runs(instruction)

    def action_command_palette(self) -> None:
        if self.use_command_palette and not Palette.is_open(self):
            self.push_screen(Palette(id="--command-palette"))

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        for mode, title in SCREENS.items():
            yield SystemCommand(f"Screen: {title}", f"Switch to the {title.lower()} screen", lambda m=mode: self.switch_mode(m))


def _profiles_only(paths: list[str]) -> bool:
    """Whether every input is a profile (a bad one is the loader's to report)."""
    from tui.model.inputs import input_kind

    try:
        return all(input_kind(Path(p)) == "profile" for p in paths)
    except InputError:
        return False
