"""The top line of every screen: which screen, which module, what is selected, loading progress."""

from __future__ import annotations

from rich.text import Text
from textual.widget import Widget

from tui.model.categories import instruction_category
from tui.widgets.palette import category_style


class StatusBar(Widget):
    DEFAULT_CSS = """
    StatusBar { height: 1; background: $panel; color: $text; }
    """

    def __init__(self, screen_title: str):
        super().__init__()
        self.screen_title = screen_title

    def on_mount(self) -> None:
        self.watch(self.app, "selection", lambda _: self.refresh(), init=False)
        self.watch(self.app, "status", lambda _: self.refresh(), init=False)
        self.watch(self.app, "workspace", lambda _: self.refresh(), init=False)

    def render(self) -> Text:
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append(f" {self.screen_title} ", style="bold reverse")
        ws = self.app.workspace
        if ws is None:
            text.append(f"  {self.app.status}", style="italic")
            return text
        entry = ws.current
        if entry is not None:
            text.append("  ")
            text.append(entry.name, style="bold")
            if entry.stage:
                text.append(f" ({entry.stage})", style="dim")
        sel = ws.selection
        if sel.computation and entry is not None and entry.loaded and sel.computation != entry.load().entry.name:
            text.append(f"  > {sel.computation}", style="dim")
        ins = ws.instruction
        if ins is not None:
            text.append("  | ")
            text.append(ins.name, style=category_style(instruction_category(ins)))
            kind = f" {ins.fusion_kind}" if ins.fusion_kind else ""
            text.append(f" = {ins.opcode}{kind} {ins.shape.text}", style="dim")
        return text
