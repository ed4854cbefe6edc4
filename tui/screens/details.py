"""Key 2: everything parsed about the selected instruction."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from tui.model.shapes import human_bytes
from tui.model.workspace import Selection, Workspace
from tui.screens.base import WorkspaceScreen


class DetailsScreen(WorkspaceScreen):
    pane_title = "2 Details"

    def body(self) -> ComposeResult:
        with VerticalScroll(id="details"):
            yield Static(id="details-body")

    def show_workspace(self, ws: Workspace) -> None:
        self._redraw()

    def show_selection(self, old: Selection, new: Selection) -> None:
        self._redraw()

    def _redraw(self) -> None:
        body = self.query_one("#details-body", Static)
        ins = self.workspace.instruction if self.workspace else None
        if ins is None:
            body.update(Text("No instruction selected: pick one in the graph screen (1).", style="italic"))
            return
        table = Table.grid(padding=(0, 2))
        table.add_column(style="bold")
        table.add_column()
        table.add_row("name", ins.name)
        table.add_row("opcode", ins.opcode + (f" ({ins.fusion_kind})" if ins.fusion_kind else ""))
        table.add_row("computation", ins.computation.name)
        shape = ins.shape
        table.add_row("shape", shape.text)
        table.add_row("bytes", f"{human_bytes(shape.byte_size)} logical, {human_bytes(shape.padded_byte_size)} padded")
        table.add_row("operands", ", ".join(f"{o.name} {o.shape.text}" for o in ins.operands) or "-")
        table.add_row("users", ", ".join(u.name for u in ins.users) or "-")
        for key, value in ins.attrs.items():
            if not key.startswith("\0"):
                table.add_row(key, Text(value))
        source = ins.source
        if source:
            table.add_row("source", f"{source[0]}:{source[1]}")
        body.update(table)
