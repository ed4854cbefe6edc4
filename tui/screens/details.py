"""Key 2: everything about the selected instruction that people otherwise decode by hand.

The HLO text (highlighted with the project's Pygments lexer), the result shape explained
(bytes, padding, layout, tiles, memory space), operands and users as tables you can follow,
every attribute raw and decoded, where the op came from in Python, its cost by XLA's
conventions and, with a profile, how long it ran and what bounds it.
"""

from __future__ import annotations

from collections import Counter, OrderedDict
from functools import lru_cache
from pathlib import Path

from pygments.lexers.python import PythonLexer
from rich.console import Group
from rich.style import Style
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding

from tui.hlo_lexer import HloLexer
from tui.model import explain
from tui.model.categories import instruction_category
from tui.model.cost import CostModel, known_trip_count
from tui.model.graph_layout import Note, short_shape
from tui.model.hlo import HloInstruction
from tui.model.links import TraceLinks, only_issues_or_waits, program_of
from tui.model.roofline import profile_chip, roofline
from tui.model.scopes import source_line
from tui.model.shapes import human_bytes
from tui.model.workspace import Selection, Workspace
from tui.screens.base import WorkspaceScreen
from tui.screens.op_times import OpTimes
from tui.widgets.details_view import DetailsView, Links, Page, Section, remember
from tui.widgets.highlight import highlight, numbered
from tui.widgets.page_lines import KeyValues
from tui.widgets.palette import category_style
from tui.widgets.still import HeldKey, StillWatch

_LEXER = HloLexer(stripnl=False)
_PYTHON = PythonLexer(stripnl=False)
PAGES_KEPT = 8  # pages of recent and next instructions
TEXT_HEAD, TEXT_TAIL = 12_000, 4_000  # an instruction's text shown (a constant's literal can run to megabytes)
KERNEL_NAME = 60  # a GPU kernel's name is cut here (library kernels' run to hundreds of characters)
# (title, width, and for those that grow on a wide terminal, the most: tiled layouts, long shapes)
_LINK_COLUMNS = (("name", 30), ("opcode", 14, 18), ("shape", 22, 32), ("layout", 10, 30), ("memory", 8), ("bytes", 10))
_TIME_COLUMN = ("time", 14)  # with a profile: the op's time in it and its share of all ops' time


class DetailsScreen(OpTimes, WorkspaceScreen):
    pane_title = "2 Details"
    BINDINGS = [
        Binding("j", "step(1)", "Next op"),
        Binding("k", "step(-1)", "Previous op"),
        Binding("m", "memory", "Its buffer"),
        Binding("t", "timeline", "Its runs"),
        Binding("backspace", "back", "Back"),
        Binding("R", "roofline", "Roofline chart", show=False),
    ]

    def __init__(self):
        super().__init__()
        self._shown: tuple[str | None, str | None] = (None, None)
        self._costs: dict[str, CostModel] = {}
        self._links: dict[str, TraceLinks] = {}
        self._cells: dict[tuple, list] = {}  # (op, platform, note) -> its row in a table of ops, see _row_cells
        self._view: DetailsView | None = None
        self._pages: OrderedDict[tuple[str | None, str], Page] = OrderedDict()  # (module, instruction) -> page, see _keep
        self._still = StillWatch()
        self._held: HeldKey | None = None  # j or k held down: the next page, laid out between repeats

    def body(self) -> ComposeResult:
        view = DetailsView(id="details")
        view.followed = self._followed
        self._held = HeldKey(view)
        yield view

    @property
    def view(self) -> DetailsView:
        if self._view is None:
            self._view = self.query_one(DetailsView)
        return self._view

    def show_workspace(self, ws: Workspace) -> None:
        self._shown = (None, None)
        self._pages.clear()  # laid out for what was loaded before
        self._cells.clear()
        self._still.moved()
        self.time_ops_when_shown()  # op times another pane worked out: on the first page already
        self._redraw()
        self.view.focus()

    def view_text(self) -> tuple[str, str] | None:
        return ("the details page", self.view.plain_text()) if self.instruction is not None else None

    def op_times_changed(self) -> None:
        """The tables of ops get a time column: the pages laid out so far are laid out again."""
        self._pages.clear()
        self._cells.clear()
        self._shown = (None, None)
        self._redraw()

    def show_selection(self, old: Selection, new: Selection) -> None:
        self._redraw()

    # -- actions --------------------------------------------------------------
    @property
    def instruction(self) -> HloInstruction | None:
        return self.workspace.instruction if self.workspace else None

    def action_step(self, delta: int) -> None:
        ins = self.instruction
        if ins is not None:
            order = ins.computation.instructions
            self.app.select(instruction=order[(ins.index + delta) % len(order)])
            self._held.pressed(("step", delta), lambda: self._lay_out_ahead(delta))

    def action_memory(self) -> None:
        """Its buffer in the memory screen: the value of its whole result (or, where that is no
        buffer, its first), where the op runs."""
        if self.instruction is not None:
            name = self.instruction.name
            self.app.show("memory", instruction=name, buffer=f"{name}{{}}")

    def action_timeline(self) -> None:
        if self.instruction is not None:
            self.app.show_runs(self.instruction.name)

    def action_back(self) -> None:
        name = self.workspace.pop_focus() if self.workspace else None
        if name is not None:
            self.app.select(instruction=name)
        else:
            self.notify("No earlier focus", timeout=2)  # as the graph says

    def _followed(self, target) -> None:
        self.workspace.push_focus(self.instruction.name)
        self.app.select(instruction=target)

    # -- drawing --------------------------------------------------------------
    def _redraw(self) -> None:
        ws = self.workspace
        ins = self.instruction
        shown = (ws.selection.module if ws else None, ins.name if ins else None)
        if shown == self._shown:
            return
        if self._shown[1] is not None:
            self._keep(self._shown, self.view.page)
        self._shown = shown
        self._still.moved()
        if ins is None:
            self.view.show([lambda: Text("No instruction selected: pick one in the graph screen (1).", style="italic")])
            return
        kept = self._pages.pop(shown, None)
        self.view.show(kept if kept is not None else self._sections(ins))

    def _keep(self, shown: tuple[str | None, str], page: Page) -> None:
        """Keep a page shown a moment ago (k after j, Backspace) or laid out ahead (the next j or
        k), the least recent let go: showing it again lays nothing out."""
        self._pages[shown] = page
        self._pages.move_to_end(shown)
        while len(self._pages) > PAGES_KEPT:
            self._pages.popitem(last=False)

    def _sections(self, ins: HloInstruction) -> list[Section]:
        ws = self.workspace
        platform = explain.platform_of(str(ws.current.path), [d.device_type or d.name for d in self._devices()])
        return [
            lambda: self._head(ins),
            lambda: highlight(shown_text(ins.text), _LEXER),
            lambda: _section("Result shape", KeyValues([(r.label, r.text) for r in explain.shape_rows(ins.shape, platform)])),
            lambda: self._link_rows("Operands", list(dict.fromkeys(ins.operands)), platform),
            lambda: self._link_rows("Users", ins.users, platform),
            lambda: _section("Attributes", self._attributes(ins)),
            *[lambda c=called: self._link_rows(f"Calls {c.name} ({c.kind})", c.instructions, platform)
              for called in ins.called_computations],
            lambda: _section("Source", self._source(ins)),
            lambda: _section("Cost (XLA's HloCostAnalysis conventions)", KeyValues(_cost_rows(ins, self._cost_model()))),
            lambda: _section("Profile", self._profile(ins, self._cost_model().work(ins))),
            *([lambda: self._link_rows(f"Ops made by the same line of Python, {source_line(ins)}",
                                       ins.computation.module.made_by(ins.source), platform)] if ins.source else []),
        ]

    def work_ahead(self) -> bool:
        """Once the page has stood still for a tick, lay out the pages j and k would show."""
        if self.instruction is None:
            return True
        if not self._still.stood_still(self._shown):
            return self._still.settled
        for step in (1, -1):
            self._lay_out_ahead(step)
        return True

    def _lay_out_ahead(self, step: int) -> None:
        """Lay out (or keep at hand) the page of the op `step` places away in the schedule."""
        ins = self.instruction
        if ins is None:
            return
        order = ins.computation.instructions
        other = order[(ins.index + step) % len(order)]
        key = (self._shown[0], other.name)
        self._keep(key, self._pages.get(key) or self.view.prepare(self._sections(other)))

    def _head(self, ins: HloInstruction) -> Text:
        text = Text()
        text.append(ins.name, style=category_style(instruction_category(ins)) + Style(bold=True))
        kind = f" {ins.fusion_kind}" if ins.fusion_kind else ""
        text.append(f" = {ins.opcode}{kind}", style="bold")
        comp = ins.computation
        text.append(f"   in {comp.name} ({comp.kind}), #{ins.index} of {len(comp.instructions)}"  # from 0, as XLA numbers it
                    + ("  ROOT" if ins.is_root else ""), style="dim")
        text.append("\n[up/down enter] follow an operand or user  [j/k] next/previous op  "
                    "[m] its buffer in the memory screen  [t] its runs in the timeline\n", style="dim italic")
        return text

    def _link_rows(self, title: str, instructions: list[HloInstruction], platform: str) -> Links:
        note = self.op_note
        if not instructions:
            return Links(Text.assemble("\n", (f"{title}: none", "bold")), [], lambda other: [])
        header = Text.assemble("\n", (f"{title} ({len(instructions)})", "bold underline"))
        return Links(header, instructions, lambda other: self._row_cells(other, platform, note), _titles(note is not None))

    def _row_cells(self, other: HloInstruction, platform: str, note: Note | None):
        """An op's row, worked out once: the same op is a row of many pages (an operand of the
        next op, a user of the last); the view keeps its line by this list."""
        key = (other, platform, note)
        found = self._cells.get(key)
        return found if found is not None else remember(self._cells, key, _link_row(other, platform, note))

    def _attributes(self, ins: HloInstruction):
        rows = []
        for row in explain.attributes(ins, explain.is_partitioned(ins.computation.module)):
            if row.key == "metadata":
                continue  # decoded in Source
            value = Text(row.raw if len(row.raw) <= 400 else row.raw[:397] + "...", style="dim" if row.decoded else "")
            if row.decoded:
                value.append("\n" + row.decoded, style="")
            rows.append((row.key or "(flag)", value))
        return KeyValues(rows) if rows else Text("none", style="dim")

    def _source(self, ins: HloInstruction):
        parts = []
        meta = ins.metadata
        rows = []
        for key in ("op_name", "op_type"):
            if meta.get(key):
                rows.append((key, str(meta[key])))
        source = ins.source
        if source:
            rows.append(("file:line", f"{source[0]}:{source[1]}"))
        if not rows:
            return Text("no source metadata", style="dim")
        parts.append(KeyValues(rows))
        if source:
            excerpt = _excerpt(source[0], source[1], str(ins.computation.module.path or ""))
            if excerpt is not None:
                parts += [Text(excerpt[0], style="dim"), excerpt[1]]
        stack = ins.stack
        if stack:
            frames = Text("Python stack, innermost first:\n", style="bold")
            for frame in stack:
                frames.append(f"  {frame.file}:{frame.line}", style="")
                frames.append(f" in {frame.function}\n", style="dim")
            parts.append(frames)
        return Group(*parts)

    def _cost_model(self) -> CostModel:
        label = self.workspace.selection.module
        if label not in self._costs:
            self._costs[label] = CostModel(self.workspace.hlo)
        return self._costs[label]

    def _trace_links(self) -> TraceLinks | None:
        ws = self.workspace
        if ws is None or ws.trace is None:
            return None
        label = ws.selection.module
        if label not in self._links:
            current = ws.current
            self._links[label] = TraceLinks(ws.trace, ws.hlo, program_of(current) if current is not None else None)
        return self._links[label]

    def _devices(self) -> list:
        ws = self.workspace
        return list(ws.trace.devices.values()) if ws is not None and ws.trace is not None else []

    def _profile(self, ins: HloInstruction, cost):
        links = self._trace_links()
        if links is None:
            return Text("no profile loaded", style="dim")
        runs = links.occurrences(ins)
        if not runs.count:
            return Text("this op does not appear in the profile", style="dim")
        step, where = links.step_ns()
        rows = [
            ("occurrences", f"{runs.count}"),
            ("total", explain.duration(runs.total_ns)),
            ("mean / min / max", " / ".join(explain.duration(v) for v in (runs.mean_ns, runs.min_ns, runs.max_ns))),
            ("share", f"{runs.total_ns / step:.1%} of {explain.duration(step)} ({where})" if step else "unknown"),
        ]
        kernels = _kernel_names(links.trace, runs, ins.name)
        if kernels:
            rows.append(("kernels", kernels))
        seconds = runs.mean_ns / 1e9
        if only_issues_or_waits(ins, links.trace):
            half = "waits for" if ins.opcode.endswith("-done") else "starts"
            rows.append(("achieved", f"not measured: this event only {half} the async op, whose work runs between "
                                     "its start and done, beside other ops"))
            return KeyValues(rows)
        if cost.known and seconds > 0:
            rows.append(("achieved", f"{explain.si(cost.flops / seconds, 'FLOP/s')}, "
                                     f"{explain.si(cost.bytes_accessed / seconds, 'B/s')}"))
        chip = profile_chip(self._devices())
        if chip is None:
            names = ", ".join(dict.fromkeys(d.device_type or d.name for d in self._devices())) or "a host CPU"
            rows.append(("bound", f"unknown: the profile's device ({names}) is not in the table of known chips"))
        else:
            line = roofline(cost.flops, cost.bytes_accessed, seconds, chip)
            if line is None:
                rows.append(("bound", f"{chip.name}: unknown (no FLOPs or bytes for this op)"))
            else:
                rows.append(("bound", f"{line.bound} bound on {chip.name} (ridge {chip.ridge:.0f} FLOP/B): "
                                      f"{line.flops_fraction:.1%} of peak FLOP/s, {line.bytes_fraction:.1%} of peak bandwidth"))
            rows.append(("peaks", f"{explain.si(chip.peak_flops, 'FLOP/s')}, {explain.si(chip.peak_bytes, 'B/s')} "
                                  f"(from {chip.source})"))
        return KeyValues(rows)


@lru_cache(maxsize=2)
def _titles(timed: bool) -> list[tuple[str, Style, int]]:
    """The tables' column titles (one list, so the view keeps their line once)."""
    bold = Style(bold=True)
    return [(name, bold, *widths) for name, *widths in _LINK_COLUMNS + ((_TIME_COLUMN,) if timed else ())]


def _link_row(other: HloInstruction, platform: str, note: Note | None = None) -> list[tuple]:
    """An op's row in a table of ops; with `note`, its time in the profile last."""
    shape = other.shape
    cells = [
        other.opcode,
        shape.dims_text() if shape.is_array else short_shape(other),
        shape.layout.text if shape.layout is not None else "",
        explain.memory_space_short(shape.memory_space, platform) if shape.is_array else "",
        human_bytes(shape.byte_size),
    ]
    return [(other.name, category_style(instruction_category(other)), _LINK_COLUMNS[0][1]),
            *((text, None, *widths) for text, (_, *widths) in zip(cells, _LINK_COLUMNS[1:])),
            *([(note(other), None, _TIME_COLUMN[1])] if note is not None else [])]


def _kernel_names(trace, runs, op: str) -> str:
    """What ran the op, when its events are named otherwise (a GPU's kernels): each name with its
    count and time, most time first; empty when the events are the op's own."""
    counts, times = Counter(), Counter()
    for (track, event), duration in zip(runs.events, runs.durations_ns.tolist()):
        name = trace.tracks[track].event_name(event)
        counts[name] += 1
        times[name] += duration
    if set(counts) <= {op}:
        return ""
    return ", ".join(f"{_short(name)} ×{counts[name]} ({explain.duration(times[name])})" for name, _ in times.most_common())


def _short(name: str, most: int = KERNEL_NAME) -> str:
    return name if len(name) <= most else name[: most - 1] + "…"


@lru_cache(maxsize=256)
def _excerpt(path: str, line: int, module_path: str) -> tuple[str, Text] | None:
    """(readable path, numbered and highlighted lines around `line`), or None if unreadable."""
    roots = [str(Path(module_path).parent)] if module_path else []
    found = explain.source_excerpt_lines(path, line, roots + ["."])
    if found is None:
        return None
    readable, first, lines = found
    return readable, numbered(lines, first, line, _PYTHON)


def _cost_rows(ins: HloInstruction, model: CostModel) -> list[tuple[str, str]]:
    cost = model.work(ins)
    rows = [
        ("FLOPs", explain.si(cost.flops, "FLOP")),
        ("transcendentals", explain.si(cost.transcendentals, "")),
        ("bytes accessed", explain.si(cost.bytes_accessed, "B")),
        ("intensity", explain.intensity_words(cost.flops, cost.bytes_accessed)),
    ]
    if ins.opcode == "while":
        rows.append(("trips", _trips(ins, cost)))
    unseen = model.unseen(ins)
    if unseen and ins.opcode != "custom-call":
        rows.append(("not seen", f"custom calls inside ({', '.join(unseen[:3])}{', …' if len(unseen) > 3 else ''}): XLA "
                                 "counts each as -1 FLOP and -1 B, and these figures do too"))
    return rows


def _trips(ins: HloInstruction, cost) -> str:
    said = "one trip of the body and condition, as XLA counts a loop; "
    trips = known_trip_count(ins)
    if trips is None:
        return said + "its trip count is not in the HLO"
    if not cost.known:
        return said + f"it runs {trips} times (known_trip_count)"
    return (said + f"it runs {trips} times (known_trip_count): {explain.si(cost.flops * trips, 'FLOP')}, "
                   f"{explain.si(cost.bytes_accessed * trips, 'B')} in all")


def shown_text(text: str) -> str:
    """An instruction's HLO text, its middle left out past TEXT_HEAD + TEXT_TAIL characters (as
    XLA leaves out a large constant's literal): the attributes and metadata at its end stay, and
    `y` still copies it whole."""
    if len(text) <= TEXT_HEAD + TEXT_TAIL:
        return text
    left_out = len(text) - TEXT_HEAD - TEXT_TAIL
    return f"{text[:TEXT_HEAD]} /* {left_out:,} characters left out: y copies the whole */ {text[-TEXT_TAIL:]}"


def _section(title: str, body) -> Group:
    return Group(Text(""), Text(title, style="bold underline"), body)
