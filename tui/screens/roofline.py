"""`R`: the ops on a roofline chart (XProf's Roofline Model tool), over the screen it was asked
from, with the op under the cursor's figures below. It opens on the selected op where that ran;
Enter closes it on the op under the cursor, for the screen below to show (the timeline its runs,
the graph and details the instruction)."""

from __future__ import annotations

from typing import Callable

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen, Screen
from textual.widgets import Static

from tui.model.explain import si
from tui.model.links import OpProfile
from tui.model.roofline import Point, attainable, points
from tui.model.timescale import format_ns
from tui.widgets.roofline_chart import COMPUTE, CURSOR, MEMORY, ROOF, UNKNOWN, RooflineChart

NO_ROOFLINE = "No op to plot on a roofline: none has both FLOPs and bytes from XLA's cost model (load the program's HLO beside the profile)"


def open_roofline(pane: Screen, profile: OpProfile, chosen: Callable[[int], object]) -> None:
    """Push the chart of the profile's ops over `pane`, on its selected op where that is plotted;
    `chosen` gets the op (its row in the profile) that Enter closed it on. Where no op can be
    plotted (none has both FLOPs and bytes), the pane says so instead."""
    found = points(profile.rates, profile.byte_rates, [row.self_ns for row in profile.ops])
    if not found:
        pane.notify(NO_ROOFLINE, severity="warning")
        return
    selected = pane.workspace.instruction
    start = next((k for k, point in enumerate(found) if selected is not None and profile.instructions[point.op] is selected), 0)
    pane.app.push_screen(RooflineScreen(profile, found, start), lambda op: op is not None and chosen(op))


class RooflineScreen(ModalScreen["int | None"]):
    """Dismissed with the chosen op's row in the profile, or None."""

    DEFAULT_CSS = """
    RooflineScreen { align: center middle; }
    RooflineScreen > Vertical { width: 100%; height: 100%; border: round $accent; background: $surface; padding: 0 1; }
    RooflineScreen Static { height: auto; }
    """
    BINDINGS = [
        Binding("down,j", "step(1)", "Next op by time"),
        Binding("up,k", "step(-1)", "Previous op by time"),
        Binding("right,l", "across(1)", "Next op right"),
        Binding("left,h", "across(-1)", "Next op left"),
        Binding("enter", "choose", "Show this op"),
        Binding("y", "copy", "Copy the op's name"),
        Binding("Y", "copy_points", "Copy every op's figures, tab-separated"),
        Binding("escape,R,q", "dismiss", "Close"),
        # the app's keys, which a modal screen does not pass on: the help, and the screens (closing the chart)
        Binding("question_mark", "app.help", show=False),
        *(Binding(str(k), f"leave('{mode}')", show=False) for k, mode in enumerate(("graph", "details", "memory", "timeline"), 1)),
    ]
    pane_title = "Roofline"

    def __init__(self, profile: OpProfile, points: list[Point], start: int = 0):
        super().__init__()
        self.profile = profile
        self.points = points
        self.chart = RooflineChart(points, profile.chip)
        self.chart.cursor = start
        self.op = Static(self._op_text())  # the op under the cursor (made here: a key may come before compose)
        # the points left to right (ties: the bigger op first), for left/right
        self._across = sorted(range(len(points)), key=lambda k: (points[k].intensity, -points[k].share))

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self._head())
            yield self.chart
            yield self.op

    @property
    def cursor(self) -> int:
        return self.chart.cursor

    def action_step(self, delta: int) -> None:
        self._move(min(max(self.cursor + delta, 0), len(self.points) - 1))

    def action_across(self, delta: int) -> None:
        at = self._across.index(self.cursor)
        self._move(self._across[min(max(at + delta, 0), len(self._across) - 1)])

    def _move(self, cursor: int) -> None:
        self.chart.move_to(cursor)
        self.op.update(self._op_text())

    def action_leave(self, mode: str) -> None:
        self.dismiss(None)
        self.app.switch_mode(mode)

    def action_choose(self) -> None:
        self.dismiss(self.points[self.cursor].op)

    def action_copy(self) -> None:
        name = self.profile.ops[self.points[self.cursor].op].name
        self.app.copy_to_clipboard(name)
        self.notify(f"Copied {name} to the clipboard")

    def action_copy_points(self) -> None:
        """Every plotted op's figures, by time, as tab-separated columns (to plot elsewhere)."""
        self.app.copy_to_clipboard(self.points_text())
        self.notify(f"Copied the {len(self.points):,} ops' figures to the clipboard, tab-separated")

    def points_text(self) -> str:
        chip = self.profile.chip
        lines = ["\t".join(["op", "program", "runs", "time_ns", "share", "flops_per_byte", "flops_per_s", "bytes_per_s",
                             *(["roof_flops_per_s", "bound"] if chip is not None else [])])]
        for point in self.points:
            row = self.profile.ops[point.op]
            cells = [row.name, row.program or "", row.count, row.self_ns, point.share, point.intensity, point.rate,
                     point.rate / point.intensity]
            if chip is not None:
                cells += [attainable(chip, point.intensity), chip.bound(point.intensity)]
            lines.append("\t".join(map(str, cells)))
        return "\n".join(lines)

    def _head(self) -> Text:
        chip, profile = self.profile.chip, self.profile
        text = Text()
        if chip is not None:
            text.append(f"Roofline: {chip.name}", style="bold")
            text.append(f", peaks {si(chip.peak_flops, 'FLOP/s')} and {si(chip.peak_bytes, 'B/s')}, ridge point at "
                        f"{chip.ridge:.3g} FLOP/byte ({chip.source})")
        else:
            text.append("Roofline: no roofs", style="bold")
            text.append(": the profile's device is not in the table of known chips (a host CPU?), so the ops' "
                        "achieved rates are plotted alone")
        plotted = sum(point.share for point in self.points)
        text.append(f"\n{len(self.points):,} of {len(profile.ops):,} ops plotted, {plotted:.1%} of the ops' time (the others "
                    "have no FLOPs, as copies and collectives, or no cost model)\n")
        for label, style in (("● the op below", CURSOR), ("⣿ memory bound", MEMORY), ("⣿ compute bound", COMPUTE),
                             ("⠤ roof", ROOF)) if chip is not None else (("● the op below", CURSOR), ("⣿ an op", UNKNOWN)):
            text.append(label[0], style=style)
            text.append(label[1:] + "  ")
        return text

    def _op_text(self) -> Text:
        point = self.points[self.cursor]
        row = self.profile.ops[point.op]
        text = Text()
        text.append(row.name, style="bold")
        text.append(f"  in {row.program}" if row.program else "")
        text.append(f"  #{self.cursor + 1} of {len(self.points)} by time\n", style="dim")
        text.append(f"{point.intensity:.3g} FLOP/byte, {si(point.rate, 'FLOP/s')} and {si(point.rate / point.intensity, 'B/s')} "
                    f"achieved over {row.count:,} runs ({format_ns(row.self_ns)}, {point.share:.1%} of the ops' time)")
        chip = self.profile.chip
        if chip is not None:
            roof = attainable(chip, point.intensity)
            text.append(f"; {point.rate / roof:.1%} of the roof there ({si(roof, 'FLOP/s')}), {chip.bound(point.intensity)} bound")
        text.append("\n[up/down] ops by time  [left/right] along the chart  [enter] show this op  [y/Y] copy  [?] keys  [esc] close",
                    style="dim")
        return text
