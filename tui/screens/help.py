"""`?`: the keys of the screen you came from, and the app's own."""

from __future__ import annotations

from rich.table import Table
from textual.actions import parse
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Static

GENERAL = [
    ("1 2 3 4", "graph, details, memory, timeline screens"),
    ("ctrl+p", "command palette: modules, computations, screens"),
    ("y", "copy the selection (an op's HLO, an event's name) to the clipboard"),
    ("Y", "copy the view as text (the graph's drawing, the details page, a table as tab-separated columns)"),
    ("?", "this help"),
    ("q", "quit"),
]


class HelpScreen(ModalScreen):
    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll { width: 80%; max-width: 90; height: 80%; border: round $accent; background: $surface; padding: 0 1; }
    """
    BINDINGS = [Binding("escape,question_mark,q", "dismiss", "Close")]

    def __init__(self, under: Screen):
        super().__init__()
        self.under = under

    def _keys(self, key: str) -> str:
        """A binding's keys as the key bar shows them (`}`, `⏎`, `shift+w`), through the app's own display."""
        return " ".join(self.app.get_key_display(Binding(k.strip(), "")) for k in key.split(","))

    def compose(self) -> ComposeResult:
        table = Table.grid(padding=(0, 2))
        table.add_column(style="bold")
        table.add_column()
        table.add_row(f"[u]{getattr(self.under, 'pane_title', '') or 'Screen'}[/u]", "")
        seen = set()
        if getattr(self.under, "has_content", True):  # a pane with nothing to show takes none of its keys
            for node in [self.under, *self.under.query("*")]:
                for binding in getattr(node, "BINDINGS", []):
                    if isinstance(binding, Binding) and binding.description and binding.key not in seen:
                        _, action, parameters = parse(binding.action)
                        if node.check_action(action, parameters) is False:
                            continue  # off on this screen now (a memory screen without a program has no buffer keys)
                        seen.add(binding.key)
                        table.add_row(self._keys(binding.key), binding.description)
            for gesture, description in getattr(self.under, "MOUSE", []):
                table.add_row(gesture, description)
        else:
            table.add_row("", "nothing to show here (the pane says what to open): only the keys below work")
        table.add_row("", "")
        table.add_row("[u]Everywhere[/u]", "")
        for key, description in GENERAL:
            table.add_row(key, description)
        with VerticalScroll():
            yield Static(table)
