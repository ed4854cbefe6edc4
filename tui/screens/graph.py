"""Key 1: the module's computations and the instructions of the chosen one, in program order."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from tui.model.workspace import Selection, Workspace
from tui.screens.base import WorkspaceScreen
from tui.widgets.instruction_list import InstructionList


class GraphScreen(WorkspaceScreen):
    pane_title = "1 Graph"

    def body(self) -> ComposeResult:
        with Horizontal():
            yield OptionList(id="computations")
            yield InstructionList(id="instructions")

    def show_workspace(self, ws: Workspace) -> None:
        options = self.query_one("#computations", OptionList)
        options.clear_options()
        hlo = ws.hlo
        if hlo is None:
            return
        for comp in hlo.computations:
            options.add_option(Option(f"{comp.name}  [dim]{comp.kind} · {len(comp.instructions)}[/]", id=comp.name))
        self._show_computation(ws.selection.computation or hlo.entry.name)
        self.query_one(InstructionList).focus()

    def _show_computation(self, name: str) -> None:
        comp = self.workspace.hlo.computation(name) or self.workspace.hlo.entry
        options = self.query_one("#computations", OptionList)
        options.highlighted = options.get_option_index(comp.name)
        listing = self.query_one(InstructionList)
        keep = self.workspace.instruction
        listing.set_instructions(comp.instructions, keep if keep is not None and keep.computation is comp else None)

    def show_selection(self, old: Selection, new: Selection) -> None:
        if new.module != old.module:
            self.show_workspace(self.workspace)
            return
        listing = self.query_one(InstructionList)
        ins = self.workspace.instruction
        if ins is not None and (not listing.rows or listing.rows[0].computation is not ins.computation):
            self._show_computation(ins.computation.name)
        if ins is not None:
            listing.select_instruction(ins)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self._show_computation(event.option.id)
        self.query_one(InstructionList).focus()

    def on_instruction_list_chosen(self, event: InstructionList.Chosen) -> None:
        self.app.select(instruction=event.instruction)

    def on_instruction_list_highlighted(self, event: InstructionList.Highlighted) -> None:
        self.app.select(instruction=event.instruction)
