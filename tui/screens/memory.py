"""Key 3: memory figures of the current module (XLA's own files when the dump has them)."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from tui.model.shapes import human_bytes
from tui.model.workspace import Selection, Workspace
from tui.screens.base import WorkspaceScreen


class MemoryScreen(WorkspaceScreen):
    pane_title = "3 Memory"

    def body(self) -> ComposeResult:
        with VerticalScroll():
            yield Static(id="memory-body")

    def show_workspace(self, ws: Workspace) -> None:
        self._redraw()

    def show_selection(self, old: Selection, new: Selection) -> None:
        if old.module != new.module:
            self._redraw()

    def _redraw(self) -> None:
        from tui.model.memory import peak_memory

        body = self.query_one("#memory-body", Static)
        entry = self.workspace.current
        if entry is None:
            body.update(Text("No module loaded.", style="italic"))
            return
        peak = peak_memory(entry)
        if peak is None:
            body.update(Text("No memory figures for this module.", style="italic"))
            return
        table = Table(title=f"Peak {human_bytes(peak.bytes)} ({peak.source})", title_justify="left")
        table.add_column("buffer")
        table.add_column("bytes", justify="right")
        for name, size in peak.buffers:
            table.add_row(name, human_bytes(size))
        body.update(table)
