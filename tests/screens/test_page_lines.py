"""The details page's own layout against Rich's, line for line and cell for cell, on real pages.

`page_lines` lays out Texts without Rich's renderer for speed; here every section of the
details page of real instructions (fusions with fused computations, dots, collectives, sources
with excerpts and stacks) is rendered both ways, at a wide and a narrow width that folds the
HLO text and attribute values."""

from __future__ import annotations

from conftest import FIXTURES
from rich.console import Console
from rich.style import Style
from rich.text import Text

from tui.app import XlaTuiApp
from tui.widgets import page_lines
from tui.screens.graph import GraphHead
from tui.widgets.details_view import DetailsView, Links, fitted, link_row
from tui.widgets.page_lines import KeyValues


def cells(line) -> list[tuple[str, Style]]:
    """(character, style) per cell: where the segments are cut does not matter."""
    return [(char, segment.style or Style.null()) for segment in line for char in segment.text]


def by_rich(part, width: int, console: Console) -> list:
    """The reference: Rich renders Texts and Groups; label/value rows are Rich-wrapped values."""
    if isinstance(part, KeyValues):
        label_width = max(len(label) for label, _ in part.rows) + 2
        room = max(10, width - label_width)
        out = []
        for label, value in part.rows:
            value = value if isinstance(value, Text) else Text(value)
            for n, line in enumerate(value.wrap(console, room)):
                row = Text(no_wrap=True)
                row.append(label.ljust(label_width) if n == 0 else " " * label_width, style="bold")
                row.append_text(line)
                out += console.render_lines(row, console.options.update_width(width), pad=True)
        return out
    if hasattr(part, "renderables"):
        return [line for child in part.renderables for line in by_rich(child, width, console)]
    return console.render_lines(part, console.options.update_width(width), pad=True)


async def test_every_section_is_laid_out_as_rich_lays_it_out():
    app = XlaTuiApp(FIXTURES / "transformer")
    async with app.run_test(size=(160, 45)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.press("2")
        view = app.screen.query_one(DetailsView)
        console = app.console
        entry = app.workspace.hlo.entry.instructions
        fused = [i for i in entry if i.called_computations]
        compared = 0
        for ins in entry[::7] + fused[:10]:
            app.select(instruction=ins)
            await pilot.pause()
            for section in view.page.sections:
                part = section()
                parts = [part.header] if isinstance(part, Links) else [part]
                for width in (158, 37):
                    for one in parts:
                        ours = page_lines.lines(one, width, console)
                        assert [cells(line) for line in ours] == [cells(line) for line in by_rich(one, width, console)]
                        assert all(len(cells(line)) == width for line in ours)
                        compared += len(ours)
                    if isinstance(part, Links):  # rows go out as segments: Rich's Text of the same cells is the oracle
                        for row in [*([part.titles] if part.titles else []), *map(part.row, part.targets)]:
                            assert cells(link_row(row, width)) == cells(rich_row(fitted(row, width), width).render(console, end=""))
        assert compared > 2000


def rich_row(row, width: int) -> Text:
    """A link row as a Rich Text: each cell cut with `… ` or padded to its width (the first, a
    name, cut in its middle: its end tells ops apart), then the row cut or padded to `width`.
    Takes the cells as fitted to the row (the first one's width)."""
    text = Text()
    for k, (cell, style, cell_width) in enumerate(row):
        part = Text(cell, style=style or "")
        if len(part) >= cell_width and k == 0:
            head = (cell_width - 1) - (cell_width - 2) // 3
            part = Text.assemble((cell[:head - 1] + "…" + cell[len(cell) - (cell_width - 1 - head):], style or ""), " ")
        elif len(part) >= cell_width:  # the cut mark in the plain style
            part = Text.assemble((cell[: cell_width - 2], style or ""), "… ")
        text.append_text(part)
        text.append(" " * (cell_width - len(part)))
    text.truncate(width, pad=True)
    return text


async def test_the_graph_heads_and_odd_texts_are_cut_as_rich_cuts_them():
    app = XlaTuiApp(FIXTURES / "sharded")
    async with app.run_test(size=(160, 45)) as pilot:
        await app.workers.wait_for_complete()
        console = app.console
        heads = []
        for ins in list(app.workspace.hlo.instructions())[::5]:
            app.select(instruction=ins)
            await pilot.pause()
            heads.append(app.screen.query_one(GraphHead).text)
        odd = [
            Text.assemble(("a long styled span", "bold"), " then plain words that go on", ("!", "red"), no_wrap=True, overflow="ellipsis"),
            Text.assemble(("cut", "green"), " here and there " * 4, no_wrap=True),
            Text("word " * 20 + "averyveryveryverylongwordthatmustbefolded " + "tail   \n\n  indented ❯ line"),
            Text.assemble(("styled ", "bold"), ("overlapping", "italic"), style="dim"),
            Text("wide 漢字 characters and\ttabs go to Rich"),
            Text(""),
        ]
        odd[3].stylize("underline", 3, 12)  # a span over two others: Rich's own path
        for text in heads + odd:
            for width in (100, 37, 12):
                ours = page_lines.lines(text, width, console)
                assert [cells(line) for line in ours] == [cells(line) for line in by_rich(text, width, console)]


def test_a_rows_first_cell_takes_up_its_slack_within_bounds():
    """The name column gives way on a narrow terminal, so that the last column (an op's time)
    stays whole, and grows on a wide one, never past FIRST_CELL; past that, the columns that may
    grow share what is left, each up to its most (a tiled layout is read whole on a wide
    terminal; it was cut at 10 characters at any width)."""
    row = [("a_long_fusion_name_of_forty_characters_x", None, 30), ("fusion", None, 14), ("1.15 ms 4%", None, 14)]
    assert [width for *_, width in fitted(row, 98)] == [48, 14, 14]
    layouts = [("a", None, 30), ("copy-start", None, 14, 18), ("{3,2,1,0:T(8,128)S(5)}", None, 10, 30), ("12 MiB", None, 10)]
    assert [width for *_, width in fitted(layouts, 82)] == [48, 14, 10, 10]
    assert [width for *_, width in fitted(layouts, 100)] == [48, 18, 24, 10]  # 9 each, the opcode's past its most
    assert [width for *_, width in fitted(layouts, 200)] == [48, 18, 30, 10]
    assert "{3,2,1,0:T(8,128)S(5)}" in cells_text(link_row(layouts, 100))
    assert "{3,2,1,0…" in cells_text(link_row(layouts, 82))  # no room: cut, the last column whole
    assert [width for *_, width in fitted(row, 50)] == [22, 14, 14]
    assert [width for *_, width in fitted(row, 20)] == [16, 14, 14]
    assert cells_text(link_row(row, 50)).endswith("1.15 ms 4%    ")
    assert cells_text(link_row(row, 50)).startswith("a_long_fusion_…ters_x fusion")  # the name's end kept


def cells_text(segments) -> str:
    return "".join(segment.text for segment in segments)


def test_a_text_of_many_runs_is_laid_out_as_rich_lays_it_out():
    """A highlighted constant of thousands of elements: thousands of runs, where each line's
    runs are found by bisection (a scan of every run per line took 90 s on a 1 MB literal)."""
    from tui.hlo_lexer import HloLexer
    from tui.widgets.highlight import highlight

    values = ",".join(str(i % 7) for i in range(3000))
    text = highlight(f'%c = f32[3000]{{0}} constant({{{values}}}), metadata={{op_name="jit(f)/c"}}', HloLexer(stripnl=False))
    assert len(text.spans) > 10 * page_lines._FEW_RUNS
    console = Console(width=200, color_system="truecolor")
    for width in (158, 37):
        for variant in (text, _no_wrap(text, "ellipsis"), _no_wrap(text, "crop")):
            ours = page_lines.lines(variant, width, console)
            assert [cells(line) for line in ours] == [cells(line) for line in by_rich(variant, width, console)]
    assert len(page_lines.lines(text, 37, console)) > 100  # the literal folds into many lines


def _no_wrap(text: Text, overflow: str) -> Text:
    copy = text.copy()
    copy.no_wrap, copy.overflow = True, overflow
    return copy
