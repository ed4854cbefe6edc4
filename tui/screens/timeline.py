"""Key 4: the profile's tracks."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.widgets import DataTable

from tui.model.workspace import Workspace
from tui.screens.base import WorkspaceScreen


class TimelineScreen(WorkspaceScreen):
    pane_title = "4 Timeline"

    def body(self) -> ComposeResult:
        yield DataTable(id="tracks", cursor_type="row")

    def show_workspace(self, ws: Workspace) -> None:
        table = self.query_one(DataTable)
        table.clear(columns=True)
        if ws.trace is None:
            table.add_column("No profile loaded: open an .xplane.pb, a trace JSON or a logdir.")
            return
        table.add_columns("group", "track", "events")
        for track in ws.trace.tracks:
            table.add_row(track.group, track.name, f"{track.count:,}")
