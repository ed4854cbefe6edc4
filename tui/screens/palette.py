"""The command palette (ctrl+p), with entries for the workspace: modules and computations."""

from __future__ import annotations

from functools import partial

from textual.command import CommandPalette, DiscoveryHit, Hit, Hits, Provider

MOST_HITS = 100  # matches listed at once (the best); the rest are counted


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
        """The best MOST_HITS matches, then a line counting the rest: the palette makes each hit
        it lists into styled text, about 60 us apiece, so the 48-layer module's 4,400
        computations took 0.3 s to list at every key typed, and nobody reads past a screenful."""
        matcher = self.matcher(query)
        scored = [(score, text, callback, help_text) for text, callback, help_text in self._commands()
                  if (score := matcher.match(text)) > 0]
        scored.sort(key=lambda hit: -hit[0])  # stable: equal scores stay in the workspace's order
        for score, text, callback, help_text in scored[:MOST_HITS]:
            yield Hit(score, matcher.highlight(text), callback, help=help_text)
        if len(scored) > MOST_HITS:
            yield Hit(0, f"… {len(scored) - MOST_HITS:,} more match", lambda: None,
                      help="type more of the name to narrow the list")


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
