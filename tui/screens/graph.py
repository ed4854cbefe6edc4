"""Key 1: the dataflow around the selected instruction, drawn as a graph; or the computation's schedule.

The graph re-centres only when the selection leaves what is drawn (or on Enter); moving the
cursor to a neighbour just moves the highlight. Called computations (fusion bodies, while
body/condition, branches, calls, async wrapped computations) open in place with a breadcrumb.
The schedule list and the text prompts are mounted only while in use: every widget on screen
adds to the cost of each frame. With a profile of the program, each box and schedule row says
the op's time in it (the op profile, worked out once in a worker and kept on the workspace).
"""

from __future__ import annotations

from collections import OrderedDict

from rich.segment import Segment
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import ModalScreen
from textual.strip import Strip
from textual.widget import AwaitRemove, Widget
from textual.widgets import Input, OptionList
from textual.widgets.option_list import Option

from tui.model.categories import CATEGORIES
from tui.model.errors import InputError
from tui.model.graph_layout import MORE_STEP, GraphLayout, Node, layout
from tui.model.hlo import HloComputation, HloInstruction
from tui.model.search import InstructionIndex
from tui.model.stages import counterpart
from tui.model.words import counted
from tui.model.workspace import Selection, Workspace
from tui.screens.base import WorkspaceScreen
from tui.screens.op_times import OpTimes
from tui.widgets import page_lines
from tui.widgets.graph_view import GraphView
from tui.widgets.instruction_list import InstructionList
from tui.widgets.line_cache import LineCache
from tui.widgets.palette import category_style
from tui.widgets.still import StillWatch

MIN_DEPTH, MAX_DEPTH, DEFAULT_DEPTH = 1, 6, 2
LAYOUTS_KEPT = 64  # recent graph layouts kept for going back
_PROMPTS = {
    "search": "find in all computations: name, opcode, op_name or file:line",
    "filter": "filter the schedule: name, opcode, shape or op_name",
}


class GraphScreen(OpTimes, WorkspaceScreen):
    pane_title = "1 Graph"
    BINDINGS = [
        Binding("left_square_bracket", "depth(-1)", "Depth -", show=False),
        Binding("right_square_bracket", "depth(1)", "Depth +", show=False),
        Binding("e", "open", "Open"),
        Binding("escape", "leave", "Up a level", show=False),
        Binding("backspace", "back", "Back"),
        Binding("l", "toggle_schedule", "Schedule"),
        Binding("slash", "prompt('search')", "Find"),
        Binding("n", "next_match(1)", "Next match", show=False),
        Binding("N", "next_match(-1)", "Previous match", show=False),
        Binding("f", "prompt('filter')", "Filter schedule", show=False),
        Binding("o", "other_stage", "Before/after optimizations", show=False),
        Binding("R", "roofline", "Roofline chart", show=False),
    ]

    def __init__(self):
        super().__init__()
        self.depth = DEFAULT_DEPTH
        self.focus_name: str | None = None  # the instruction the graph is centred on
        self.trail: list[str] = []  # callers whose computations were opened, outermost first
        self.expanded: dict[str, int] = {}  # "+N more" node -> how many more it was opened to show
        self.schedule_mode = False
        self.query_text = ""
        self._search_from: str | None = None  # the op selected when the find prompt opened (Esc goes back to it)
        self._filter_from: HloInstruction | None = None  # the op under the schedule's cursor when the filter prompt opened
        self._search_focus: str | None = None  # and the op the graph was centred on then
        self._no_match = False  # the find prompt's query matches nothing (said in the head while it is open)
        self.matches: list[HloInstruction] = []
        self.match_at = 0
        self._module: str | None = None
        self._graph_stale = False
        self._indexes: dict[str, InstructionIndex] = {}
        self._layouts: OrderedDict[tuple, GraphLayout] = OrderedDict()  # the last few, newest last
        self._view: GraphView | None = None
        self._listing: InstructionList | None = None
        self._still = StillWatch()

    def body(self) -> ComposeResult:
        yield GraphHead()
        view = GraphView(id="graph")
        view.highlighted, view.activated = self._node_highlighted, self._node_activated
        yield view

    @property
    def view(self) -> GraphView:
        if self._view is None:  # kept: a DOM query on every key costs a fifth of a millisecond
            self._view = self.query_one(GraphView)
        return self._view

    @property
    def listing(self) -> InstructionList:
        """The schedule list, mounted the first time it is shown."""
        if self._listing is None:
            self._listing = InstructionList(id="instructions")
            self._listing.highlighted = self._listing_highlighted
            self._listing.chosen = self._listing_chosen
            self._listing.display = False
            self._listing.note = self.op_note
            self.mount(self._listing, after=self.view)
        return self._listing

    # -- workspace and selection ---------------------------------------------
    def show_workspace(self, ws: Workspace) -> None:
        hlo = ws.hlo
        if hlo is None:
            return
        self._module = ws.selection.module
        self.focus_name, self.trail, self.expanded = None, [], {}
        self.time_ops_when_shown()
        self.matches, self.query_text = [], ""
        if ws.instruction is None:
            self.app.select(instruction=hlo.entry.root)
        self.show_selection(Selection(), ws.selection)
        self.view.focus()

    def show_selection(self, old: Selection, new: Selection) -> None:
        if new.module != self._module:
            self.show_workspace(self.workspace)
            return
        ins = self.workspace.instruction
        if ins is None:
            return
        if self.schedule_mode:
            self._graph_stale = True
            self._list_computation(ins)
        elif not self.view.move_to(ins.name):
            self.centre(ins)

    def work_ahead(self) -> bool:
        """Once the cursor has stood still for a tick, lay out and draw the graph around the op
        under it: Enter then shows it as drawn."""
        view = self.view
        if self.schedule_mode or self.focus_name is None:
            return True
        if not self._still.stood_still((self.focus_name, view.cursor, self.depth, frozenset(self.expanded.items()), id(view.graph))):
            return self._still.settled
        node = view.current
        if node is not None and node.instruction is not None and node.key != self.focus_name:
            view.prepare(self._layout(node.instruction))
        return True

    def centre(self, ins: HloInstruction, remember: bool = True) -> None:
        """Lay the graph out around `ins` (the expensive step: only when what is drawn changes)."""
        if ins.computation.module is not self.workspace.hlo:
            return  # a click or Enter on the graph of a module the selection has left since (o)
        if remember and self.focus_name and self.focus_name != ins.name:
            self.workspace.push_focus(self.focus_name)
        self._still.moved()
        self.focus_name = ins.name
        self._graph_stale = False
        self._fix_trail(ins.computation)
        self.view.show(self._layout(ins), cursor=ins.name)
        self._show_head()

    def _relayout(self, cursor: str | None = None) -> None:
        """Lay the graph out again around its focus (a new depth, a "+N more" opened, op times):
        the cursor stays where it was if that is still drawn, else goes to `cursor` (else the
        focus), and the op under it is the selection."""
        focus = self.workspace.hlo.instruction(self.focus_name) if self.focus_name else None
        if focus is None:
            return
        view = self.view
        graph = self._layout(focus)
        view.show(graph, cursor=view.cursor if view.cursor in graph.nodes else cursor)
        self._show_head()
        node = view.current
        if node is not None and node.instruction is not None and node.instruction is not self.workspace.instruction:
            self.app.select(instruction=node.instruction)

    def _layout(self, focus: HloInstruction) -> GraphLayout:
        """The graph around `focus` as drawn now; the last LAYOUTS_KEPT are kept, so going back
        (Backspace, or Enter on where you came from) costs no layout."""
        key = (id(focus.computation.module), focus.name, self.depth, frozenset(self.expanded.items()))
        found = self._layouts.pop(key, None)
        if found is None:
            found = layout(focus, self.depth, dict(self.expanded), note=self.op_note)
        self._layouts[key] = found
        while len(self._layouts) > LAYOUTS_KEPT:
            self._layouts.popitem(last=False)
        return found

    def view_text(self) -> tuple[str, str] | None:
        """The graph as drawn (box-drawing characters), or the schedule's rows as HLO."""
        if self.schedule_mode and self._listing is not None:
            return "the schedule's HLO", "\n".join(ins.text for ins in self.listing.rows)
        graph = self.view.graph
        return None if graph is None else ("the graph", "\n".join(row.rstrip() for row in graph.text_rows()))

    def op_times_changed(self) -> None:
        self._layouts.clear()
        if self._listing is not None:
            self._listing.set_note(self.op_note)
        if not self.schedule_mode:
            self._relayout()
        else:
            self._graph_stale = True
            self._show_head()

    def _fix_trail(self, computation: HloComputation) -> None:
        """Keep the opened-callers trail if it still leads to `computation`, else follow first callers."""
        hlo = self.workspace.hlo
        callers = [hlo.instruction(name) for name in self.trail]
        if all(c is not None for c in callers) and (
                (not callers and computation.is_entry)
                or (callers and computation in callers[-1].called_computations and callers[0].computation.is_entry)):
            return
        trail, comp, seen = [], computation, set()
        while not comp.is_entry and comp.callers and comp.name not in seen:
            seen.add(comp.name)
            caller = comp.callers[0]
            trail.append(caller.name)
            comp = caller.computation
        self.trail = list(reversed(trail))

    def _show_head(self) -> None:
        """Line 1: where you are (breadcrumb, depth, schedule). Line 2: search results or the legend."""
        hlo = self.workspace.hlo
        focus = hlo.instruction(self.focus_name) if self.focus_name else self.workspace.instruction
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append(hlo.entry.name, style="bold")
        for name in self.trail:
            caller = hlo.instruction(name)
            called = caller.called_computations
            inner = focus.computation if focus is not None and focus.computation in called else called[0]
            text.append(f" › {caller.name} ", style="bold")
            text.append(f"→ {inner.kind} {inner.name}", style="dim")
        text.append(f"   depth {self.depth} ([ ])", style="dim")
        unmatched = False
        if self.schedule_mode and focus is not None:  # before the legend of times: cut last on a narrow screen
            comp = focus.computation
            shown = len(self.listing.rows)
            text.append(f"   schedule of {comp.name}: {shown} of {len(comp.instructions)} instructions", style="dim")
            if self.listing.filter_text:
                text.append(f" matching '{self.listing.filter_text}' (f to change)", style="dim")
                unmatched = not shown
        if self.op_note is not None:
            if id(hlo) not in self.op_timed_modules:
                text.append("   none of this program's ops ran in the profile", style="dim")
            elif focus is not None and focus.computation.kind == "fusion":
                text.append("   a fused op has no time of its own: the fusion's has it", style="dim")
            else:
                text.append(f"   {'times' if self.schedule_mode else 'boxes'}: each op's time in the profile, and its "
                            "share of all ops' time", style="dim")
        text.append("\n")
        if self.matches:
            ins = self.matches[self.match_at]
            text.append(f"find '{self.query_text}': {self.match_at + 1}/{len(self.matches)} ", style="bold")
            text.append(f"{ins.name} = {ins.opcode} in {ins.computation.name}   n/N: next/previous", style="dim")
        elif self._no_match:
            text.append(f"find '{self.query_text}': no instruction matches", style="bold")
            text.append("   Esc: back to where the search began", style="dim")
        elif unmatched:
            text.append(f"filter '{self.listing.filter_text}': no instruction of this computation matches", style="bold")
            text.append("   f: change it (empty: every instruction)", style="dim")
        else:
            for name in CATEGORIES:
                text.append("■ ", style=category_style(name))
                text.append(name + "  ", style="dim")
        self.query_one(GraphHead).show(text)

    # -- graph events ---------------------------------------------------------
    def _node_highlighted(self, node: Node) -> None:
        self._still.moved()
        ins = node.instruction
        if ins is not None and ins.computation.module is self.workspace.hlo:  # not a module left since (o)
            self.app.select(instruction=ins)

    def _node_activated(self, node: Node) -> None:
        if node.is_more:  # MORE_STEP more drawn; the cursor stays on it while some are left
            self.expanded[node.key] = self.expanded.get(node.key, 0) + MORE_STEP
            self._relayout(cursor=node.anchor)
        elif node.key == self.focus_name:
            self.action_open()
        else:
            self.centre(node.instruction)

    # -- actions --------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple) -> bool | None:
        if action == "other_stage":  # only where the dump has the module at both stages
            ws = self.workspace
            return ws is not None and ws.current is not None and ws.other_stage(ws.current) is not None
        return super().check_action(action, parameters)

    def action_other_stage(self) -> None:
        """The same module before (or after) XLA's optimizations, at the selected op's counterpart
        (tui/model/stages.py); parsed off the UI thread the first time."""
        ws = self.workspace
        other = ws.other_stage(ws.current)
        if not other.loaded:
            self.notify(f"Reading {other.label}...", timeout=2)
        self._open_stage(other, ws.instruction)

    @work(thread=True, exclusive=True, group="other-stage", exit_on_error=False)
    def _open_stage(self, other, ins: HloInstruction | None) -> None:
        try:
            hlo = other.load()
        except InputError as error:
            self.app.call_from_thread(self.notify, str(error), severity="error", timeout=6)
            return
        found = counterpart(ins, hlo) if ins is not None else None
        if found is None and ins is not None:
            self.app.call_from_thread(
                self.notify, f"{ins.name} has no counterpart there: showing the entry's root", timeout=4)
        self.app.call_from_thread(self.app.select, module=other.label, instruction=found or hlo.entry.root)

    def action_depth(self, delta: int) -> None:
        depth = max(MIN_DEPTH, min(MAX_DEPTH, self.depth + delta))
        if depth != self.depth:
            self.depth = depth
            self._relayout()

    def action_open(self) -> None:
        ins = self.workspace.instruction if self.workspace else None
        if ins is None:
            return
        called = ins.called_computations
        if len(called) == 1:
            self.open_computation(ins, called[0])
        elif called:
            self.app.push_screen(ChooseComputation(ins), lambda name: name and self.open_computation(
                ins, self.workspace.hlo.computation(name)))
        else:
            self.notify(f"{ins.name} calls no computation", timeout=3)

    def open_computation(self, caller: HloInstruction, computation: HloComputation) -> None:
        self.trail = self.trail[: self._trail_depth(caller)] + [caller.name]
        if self.schedule_mode:
            self.action_toggle_schedule()
        self._go(computation.root)

    def _trail_depth(self, caller: HloInstruction) -> int:
        """How much of the trail leads to the caller's own computation."""
        hlo = self.workspace.hlo
        for i, name in enumerate(self.trail):
            if caller.computation in hlo.instruction(name).called_computations:
                return i + 1
        return 0

    def _go(self, ins: HloInstruction, remember: bool = True) -> None:
        """Centre on `ins` and select it (centring first, so the selection finds it drawn)."""
        if not self.schedule_mode:
            self.centre(ins, remember)
        self.app.select(instruction=ins)

    def action_leave(self) -> None:
        searching = any(prompt.has_class("search") for prompt in self.query("#prompt"))
        if self._close_prompt() is not None:
            if searching:  # Esc in the find prompt: the search is called off (Enter keeps its match)
                self.matches, self._no_match = [], False
                self._back_to_search_start()
                self._show_head()
            return
        if self.matches:
            self.matches = []
            self._show_head()
        elif self.trail:
            self._go(self.workspace.hlo.instruction(self.trail.pop()))

    def action_back(self) -> None:
        name = self.workspace.pop_focus() if self.workspace else None
        if name is None:
            self.notify("No earlier focus", timeout=2)
            return
        self._go(self.workspace.hlo.instruction(name), remember=False)

    def action_toggle_schedule(self) -> None:
        if not self.ready:
            return
        self._close_prompt()
        self.schedule_mode = not self.schedule_mode
        ins = self.workspace.instruction
        listing = self.listing
        listing.display = self.schedule_mode
        self.view.display = not self.schedule_mode
        if self.schedule_mode:
            if ins is not None:
                self._list_computation(ins)
            listing.focus()
        else:
            if ins is not None and (self._graph_stale or not self.view.move_to(ins.name)):
                self.centre(ins)
            self.view.focus()
        self._show_head()

    def _list_computation(self, ins: HloInstruction) -> None:
        listing = self.listing
        if listing.computation is not ins.computation:
            listing.set_instructions(ins.computation.instructions, keep=ins)
            self._show_head()
        listing.select_instruction(ins)

    def _listing_highlighted(self, instruction: HloInstruction) -> None:
        self.app.select(instruction=instruction)

    def _listing_chosen(self, instruction: HloInstruction) -> None:
        self.app.select(instruction=instruction)
        self.action_toggle_schedule()

    # -- prompts: find and filter ----------------------------------------------
    async def action_prompt(self, kind: str) -> None:
        if not self.ready or (kind == "filter" and not self.schedule_mode):
            return
        closing = self._close_prompt()
        if closing is not None:  # one left open (the focus moved off it): gone before the new one takes its id
            await closing
        value = self.query_text if kind == "search" else self.listing.filter_text
        if kind == "search":
            self._search_from, self._search_focus = self.workspace.selection.instruction, self.focus_name
        else:
            self._filter_from = self.listing.current
        prompt = Input(value=value, placeholder=_PROMPTS[kind], id="prompt", classes=kind)
        self.mount(prompt, before=self.query_one("KeyBar"))
        prompt.focus()
        if kind == "search" and self._module not in self._indexes:
            self.notify("Indexing the module for search...", timeout=2)
            self._build_index(self.workspace.hlo, self._module)

    def _close_prompt(self) -> AwaitRemove | None:
        """Close the open prompt, if any: its removal (to await where its id is taken again)."""
        prompts = self.query("#prompt")
        if not prompts:
            return None
        removing = prompts.remove()
        (self.listing if self.schedule_mode else self.view).focus()
        return removing

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.has_class("filter"):  # the cursor stays on the op it was on while that matches
            origin = self._filter_from
            self.listing.set_filter(event.value, keep=origin)
            if self.listing.current is None and origin is not None:
                self.app.select(instruction=origin)  # nothing matches: the op the filter began on, not its last match
            self._show_head()
        else:
            self._run_search(event.value)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        searched = event.input.has_class("search")
        self._close_prompt()
        if self._no_match:  # Enter on a query that matches nothing: the search is over, where it began
            self._no_match = False
            self._show_head()
        elif searched and self._search_from not in (None, self.workspace.selection.instruction):
            # Enter keeps the match: Backspace goes back to the op selected where the search began
            # (whether or not the match moved the graph's centre: one already drawn only moves the cursor)
            self.workspace.push_focus(self._search_from)

    @work(thread=True, exclusive=True, group="search-index")
    def _build_index(self, module, label: str) -> None:
        index = InstructionIndex(module)
        self.app.call_from_thread(self._index_ready, label, index)

    def _index_ready(self, label: str, index: InstructionIndex) -> None:
        self.app.keep_loaded()
        self._indexes[label] = index
        if label == self._module and self.query_text and self.query("#prompt.search"):  # (not a search called off)
            self._run_search(self.query_text)

    def _run_search(self, query: str) -> None:
        self.query_text = query
        index = self._indexes.get(self._module)
        if index is None:
            return
        self.matches = index.find(query)
        self.match_at = 0
        if self.matches:
            self._show_match(self.matches[0])
        else:
            self._back_to_search_start()  # a match of a shorter query is no answer to this one
        self._no_match = bool(query) and not self.matches
        self._show_head()

    def _show_match(self, ins: HloInstruction) -> None:
        """Select a match, the graph centred on it where it is not drawn, with no step in the focus
        history: each keystroke of a query finds one (Enter keeps the last: on_input_submitted)."""
        if not self.schedule_mode and not self.view.move_to(ins.name):
            self.centre(ins, remember=False)
        self.app.select(instruction=ins)

    def _back_to_search_start(self) -> None:
        """The graph centred where it was when the search began, the op selected then selected."""
        hlo = self.workspace.hlo
        focus = hlo.instruction(self._search_focus) if self._search_focus else None
        if focus is not None and focus.name != self.focus_name and not self.schedule_mode:
            self.centre(focus, remember=False)
        if self._search_from is not None and self._search_from != self.workspace.selection.instruction:
            self.app.select(instruction=self._search_from)

    def action_next_match(self, step: int) -> None:
        if self.matches:
            self.match_at = (self.match_at + step) % len(self.matches)
            self._show_match(self.matches[self.match_at])
            self._show_head()


class GraphHead(LineCache, Widget):
    """Two lines above the graph, drawn with the Line API: an update costs no layout pass, and
    none of `render()`'s Text -> Visual conversion (a few milliseconds on every re-centre)."""

    DEFAULT_CSS = """
    GraphHead { height: 2; }
    """

    def __init__(self) -> None:
        super().__init__()
        self.text = Text()
        self._lines: list[Strip] = []
        self._lines_width = -1

    def show(self, text: Text) -> None:
        """Show `text` (the same text again, as on most re-centres, costs nothing)."""
        if text.plain == self.text.plain and text.spans == self.text.spans:
            return
        self.text = text
        self._lines_width = -1
        self.refresh()

    def restyled(self) -> None:
        self._lines_width = -1

    def render_line(self, y: int) -> Strip:
        width = self.view_size.width
        if self._lines_width != width:
            base = self.base_style
            rows = page_lines.lines(self.text, width, self.app.console)
            self._lines = [Strip(Segment.apply_style(row, base), width) for row in rows]
            self._lines_width = width
        return self._lines[y] if y < len(self._lines) else Strip.blank(width, self.base_style)


_ROLES = {"true_computation": "branch true", "false_computation": "branch false"}  # a conditional on a pred


class _Options(OptionList):
    """Textual's OptionList less the crash Palette (tui/screens/palette.py) guards its own list
    against: page keys raise a KeyError while no line is laid out for the options (a terminal a
    few rows high), OptionList._move_page, Textual 8.2.8. There they do nothing instead."""

    def _move_page(self, direction) -> None:
        try:
            super()._move_page(direction)
        except KeyError:
            pass


class ChooseComputation(ModalScreen[str]):
    """Which of an instruction's called computations to open (while: body or condition, ...)."""

    DEFAULT_CSS = """
    ChooseComputation { align: center middle; }
    ChooseComputation > OptionList { width: 70%; max-width: 100; height: auto; max-height: 70%; border: round $accent; }
    """
    BINDINGS = [Binding("escape", "dismiss", "Cancel")]

    def __init__(self, caller: HloInstruction):
        super().__init__()
        self.caller = caller

    def compose(self) -> ComposeResult:
        module = self.caller.computation.module
        roles: dict[str, list[str]] = {}  # computation -> what it is to the caller (a branch can be two)
        branch = 0
        for key, name in self.caller.computation_refs():
            if key == "branch_computations":
                role, branch = f"branch {branch}", branch + 1
            else:
                role = _ROLES.get(key) or module.computation(name).kind
            roles.setdefault(name, []).append(role)
        called = dict.fromkeys(c.name for c in self.caller.called_computations)  # in the order the caller lists them
        yield _Options(*(Option(f"{', '.join(roles.get(name) or [module.computation(name).kind])}: {name}  "
                                f"({counted(len(module.computation(name).instructions), 'instruction')})", id=name)
                         for name in called))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)
