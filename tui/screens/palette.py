"""The command palette (ctrl+p), with entries for the workspace: modules and computations."""

from __future__ import annotations

from functools import partial

from textual.command import CommandPalette, DiscoveryHit, Hit, Hits, Provider


class WorkspaceCommands(Provider):
    def _commands(self):
        app = self.app
        ws = app.workspace
        if ws is None:
            return
        for entry in ws.modules:
            yield f"Module: {entry.label}", partial(app.show, "graph", module=entry.label), entry.stage or "open this module"
            other = ws.other_stage(entry)
            if other is not None:
                yield f"Module: {other.label}", partial(app.show, "graph", module=other.label), "as the front end handed it to XLA"
        current = ws.current
        if current is not None and current.loaded:
            for comp in current.load().computations:
                root = comp.root.name
                yield (f"Computation: {comp.name}", partial(app.show, "graph", instruction=root, computation=comp.name),
                       f"{comp.kind}, {len(comp.instructions)} instructions")

    async def discover(self) -> Hits:
        for text, callback, help_text in self._commands():
            if text.startswith("Module:"):
                yield DiscoveryHit(text, callback, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for text, callback, help_text in self._commands():
            score = matcher.match(text)
            if score > 0:
                yield Hit(score, matcher.highlight(text), callback, help=help_text)


class Palette(CommandPalette):
    """Textual's command palette, less a crash: its list's page keys raise a KeyError while the
    list has options but no lines laid out for them (a terminal 3 or 4 rows high, where it shows
    none; or the moment options arrive): OptionList._move_page, Textual 8.2.8. There they do
    nothing instead."""

    def _action_command_list(self, action: str) -> None:
        try:
            super()._action_command_list(action)
        except KeyError:
            if action not in ("page_up", "page_down"):
                raise
