"""The graph screen driven by keys and clicks on real JAX modules; assertions on the shared selection."""

from __future__ import annotations

from textual import events
from conftest import FIXTURES, main_hlo, screen_text
from shots import SIZES, select, settled, shot

from tui.app import XlaTuiApp
from tui.screens.graph import ChooseComputation, GraphScreen
from tui.widgets.graph_view import GraphView
from tui.widgets.instruction_list import InstructionList

TRANSFORMER = FIXTURES / "transformer"
SHARDED = FIXTURES / "sharded"


async def started(pilot):
    await settled(pilot)
    return pilot.app.screen


def selected(app):
    return app.workspace.instruction


async def test_opens_on_the_root_and_walks_to_neighbours():
    app = XlaTuiApp(TRANSFORMER)
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await started(pilot)
        assert isinstance(screen, GraphScreen)
        root = app.workspace.hlo.entry.root
        assert selected(app) is root and screen.focus_name == root.name
        await pilot.press("k")  # up: an operand
        operand = selected(app)
        assert operand in root.operands and screen.focus_name == root.name  # moved, not re-centred
        await pilot.press("j")  # down: back to a user of it
        assert selected(app) in operand.users
        await pilot.press("up", "enter")  # re-centre on an operand
        centred = selected(app)
        assert centred in root.operands and screen.focus_name == centred.name
        shown_first = screen.view.graph
        await pilot.press("backspace")  # back through the focus history
        assert screen.focus_name == root.name and selected(app) is root
        # Going back shows the layout kept from before, the same as a fresh one; depth is part of it
        from tui.model.graph_layout import layout

        kept = screen.view.graph
        assert kept is not shown_first and kept.text_rows() == layout(root, screen.depth, note=screen.op_note).text_rows()
        await pilot.press("up", "enter", "backspace")
        assert screen.view.graph is kept
        await pilot.press("right_square_bracket")
        assert screen.view.graph is not kept and len(screen.view.graph.nodes) >= len(kept.nodes)


async def test_the_op_under_a_still_cursor_is_laid_out_and_drawn_ahead(monkeypatch):
    """Left on an op for a tick, the graph around it is laid out and drawn ahead: Enter then
    lays out and draws nothing, and shows what a fresh layout draws; going back shows the
    drawing of a moment ago."""
    import tui.screens.graph as graph_screen
    import tui.widgets.graph_view as graph_view
    from tui.model.graph_layout import layout
    from tui.widgets import still

    drawing = graph_view._Drawing
    monkeypatch.setattr(still, "TICK_S", 3600)  # the test says when the cursor stood still
    laid, drawn = [], []
    monkeypatch.setattr(graph_screen, "layout", lambda focus, *a, **k: laid.append(focus.name) or layout(focus, *a, **k))
    monkeypatch.setattr(graph_view, "_Drawing", lambda *a: drawn.append(a[0]) or drawing(*a))
    app = XlaTuiApp(TRANSFORMER)
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await started(pilot)
        await pilot.press("k")  # an operand of the root, not laid out yet
        operand = selected(app)
        laid.clear(), drawn.clear()
        screen.work_ahead()
        assert laid == []  # one tick is not standing still
        screen.work_ahead()
        assert laid == [operand.name] and len(drawn) == 1
        ahead = drawn[0]
        laid.clear(), drawn.clear()
        await pilot.press("enter")
        await pilot.pause()
        assert screen.focus_name == operand.name and screen.view.graph is ahead
        assert laid == [] and drawn == []
        view = screen.view
        shown = [list(view.render_line(y)) for y in range(view.size.height)]
        view.show(layout(operand, screen.depth, note=screen.op_note), cursor=operand.name)  # afresh
        assert [list(view.render_line(y)) for y in range(view.size.height)] == shown
        assert len(drawn) == 1
        laid.clear(), drawn.clear()
        await pilot.press("backspace")  # back to the root: its layout and drawing were kept
        await pilot.pause()
        assert screen.focus_name == app.workspace.hlo.entry.root.name and laid == [] and drawn == []


async def test_left_right_stay_in_a_layer_and_depth_grows_the_graph():
    app = XlaTuiApp(TRANSFORMER)
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await started(pilot)
        view = screen.query_one(GraphView)
        await pilot.press("k")
        first = selected(app)
        await pilot.press("h" if view.graph.neighbour(first.name, "right") is None else "right")
        second = selected(app)
        assert second is not first and view.graph.nodes[second.name].layer == view.graph.nodes[first.name].layer
        small = len(view.graph.nodes)
        await pilot.press("left_square_bracket")
        assert screen.depth == 1 and len(view.graph.nodes) < small
        await pilot.press("right_square_bracket", "right_square_bracket")
        assert screen.depth == 3 and len(view.graph.nodes) > small


async def test_more_node_expands_on_enter():
    app = XlaTuiApp(TRANSFORMER)
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await started(pilot)
        view = screen.query_one(GraphView)
        root = app.workspace.hlo.entry.root
        more = next(n for n in view.graph.nodes.values() if n.is_more)
        assert view.move_to(more.key)
        await pilot.press("enter")
        drawn = {n.key for n in view.graph.nodes.values()}
        assert {op.name for op in root.operands} <= drawn
        assert not any(n.is_more and n.anchor == root.name for n in view.graph.nodes.values())


async def test_a_very_wide_fan_in_opens_a_step_at_a_time_and_the_cursor_stays_on_what_is_left():
    """Enter on "+N more" (a fusion of 37 operands: 5 drawn) draws 16 more and stays on the
    "+N more" left (Enter again: the rest);
    once all are drawn the cursor is on the op they feed, and that op is the selection."""
    app = XlaTuiApp(TRANSFORMER)
    async with app.run_test(size=(160, 45)) as pilot:
        await started(pilot)
        app.select(instruction="bitcast_copy_fusion")
        await pilot.pause()
        view = app.screen.view
        fusion = selected(app)
        operands = list(dict.fromkeys(fusion.operands))
        key = f"+{fusion.name}:operands"
        before = view.graph.nodes[key].hidden
        assert view.move_to(key)
        await pilot.press("enter")
        drawn = set(view.graph.nodes)
        assert view.cursor == key and selected(app) is fusion
        assert {op.name for op in operands[:21]} <= drawn
        assert view.graph.nodes[key].hidden == sum(op.name not in drawn for op in operands[21:]) < before
        await pilot.press("enter")
        assert key not in view.graph.nodes and {op.name for op in operands} <= set(view.graph.nodes)
        assert view.cursor == fusion.name and selected(app) is fusion


async def test_a_new_depth_that_leaves_the_cursors_op_out_selects_where_the_cursor_goes():
    app = XlaTuiApp(TRANSFORMER)
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await started(pilot)
        view = screen.view
        await pilot.press("k", "k")  # two operand steps up: drawn at depth 2, not at 1
        far = selected(app)
        assert view.cursor == far.name != screen.focus_name
        await pilot.press("left_square_bracket")
        assert far.name not in view.graph.nodes
        assert view.cursor == screen.focus_name == selected(app).name


async def test_the_graph_shown_again_after_the_other_stage_was_picked_elsewhere_follows_it():
    """Inside a fusion's schedule, then on the details pane, the palette picks the module before
    optimizations: back on the graph, its opened-callers trail names ops of the other module no
    more (it used to be drawn, op times first, before the graph caught up: an exception)."""
    app = XlaTuiApp(FIXTURES / "gpu_cublas")
    async with app.run_test(size=(160, 45)) as pilot:
        await started(pilot)
        app.select(instruction="loop_broadcast_fusion")
        await pilot.press("e", "l", "2", "ctrl+p", *"before")
        await pilot.pause(0.5)
        await pilot.press("enter")
        await settled(pilot)
        await pilot.press("1")
        await settled(pilot)
        screen = app.screen
        assert isinstance(screen, GraphScreen) and app._exception is None
        assert app.workspace.selection.module.endswith("(before optimizations)")
        assert all(app.workspace.hlo.instruction(name) is not None for name in screen.trail)
        assert app.workspace.hlo.entry.name in screen_text(app)


async def test_boxes_and_the_schedule_say_each_ops_time_in_the_profile():
    """With a profile beside the program, each box says its op's time over the profile (XProf's
    HLO op stats) and its share of all ops' time, and the schedule lists the same: each as the
    op's events matched to it one by one (TraceLinks, the details screen's) add up. An op that
    never ran says nothing."""
    from tui.model.links import TraceLinks, op_profile, program_of
    from tui.model.timescale import format_ns

    app = XlaTuiApp(TRANSFORMER)
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await started(pilot)
        ws = app.workspace
        links = TraceLinks(ws.trace, ws.hlo, program_of(ws.current))
        everything = sum(row.total_ns for row in op_profile(ws).ops)

        def said(ins) -> str:
            total = int(links.occurrences(ins).durations_ns.sum())
            return f"{format_ns(total, 3)} {total / everything:.0%}".replace(" 0%", " <1%") if total else ""

        timed = quiet = 0
        for node in screen.view.graph.nodes.values():
            if node.instruction is not None:
                what = node.lines[1]
                if said(node.instruction):
                    timed += 1
                    assert what.endswith("  " + said(node.instruction)), what
                else:
                    quiet += 1
                    assert what == node.instruction.opcode + (f" {node.instruction.fusion_kind}" if node.instruction.fusion_kind else "")
        assert timed >= 5 and quiet >= 1  # the root tuple takes no time
        assert "boxes: each op's time in the profile" in screen_text(app)
        await pilot.press("l")
        listing = screen.listing
        rows = [(ins, listing._row_strip(k, 160, False).text) for k, ins in enumerate(listing.rows)]
        assert all(said(ins) in text for ins, text in rows) and sum(bool(said(ins)) for ins, _ in rows) > 100


async def test_a_profile_opened_alone_times_its_ops_once_the_graph_is_shown():
    """A profile opened alone starts on the timeline, which decodes first: the op times are
    worked out only once the graph is on screen."""
    from tui.screens.timeline import TimelineScreen

    app = XlaTuiApp(FIXTURES / "gpu" / "gpu.xplane.pb")
    async with app.run_test(size=(160, 45)) as pilot:
        await settled(pilot)
        assert isinstance(app.screen, TimelineScreen) and "op_profile" not in app.workspace.derived
        await pilot.press("1")
        await settled(pilot)
        screen = app.screen
        assert isinstance(screen, GraphScreen) and "op_profile" in app.workspace.derived
        assert any("%" in node.lines[1] for node in screen.view.graph.nodes.values() if node.instruction is not None)


async def test_R_opens_the_roofline_on_the_selected_op_and_enter_selects_another(monkeypatch):
    """From the graph, `R` pressed before the op profile is worked out opens the chart once it
    is, on the selected op; Enter on another op selects its instruction, and the graph follows.
    Without a profile there is no chart, and the screen says why."""
    import threading

    from tui.screens import op_times
    from tui.screens.roofline import RooflineScreen

    worked_out = threading.Event()  # the op profile's worker waits for it
    monkeypatch.setattr(op_times, "op_profile", lambda ws, real=op_times.op_profile: worked_out.wait(10) and real(ws))
    app = XlaTuiApp(FIXTURES / "gpu" / "gpu.xplane.pb", FIXTURES / "gpu")
    async with app.run_test(size=(160, 45)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        app.select(instruction="fusion.229")
        await pilot.press("1", "R")
        assert isinstance(app.screen, GraphScreen)
        assert any(toast.message.startswith("Working out each op's time") for toast in app._notifications)
        worked_out.set()
        await settled(pilot)
        chart = app.screen
        assert isinstance(chart, RooflineScreen)
        here = chart.points[chart.cursor]
        assert chart.profile.instructions[here.op].name == "fusion.229"
        await pilot.press("up" if chart.cursor else "down")
        other = chart.profile.instructions[chart.points[chart.cursor].op]
        assert other is not None and other.name != "fusion.229"
        await pilot.press("enter")
        await settled(pilot)
        assert isinstance(app.screen, GraphScreen) and app.selection.instruction == other.name
        assert app.screen.view.graph.focus == other.name

    app = XlaTuiApp(FIXTURES / "mlp.hlo")
    async with app.run_test(size=(120, 36)) as pilot:
        await settled(pilot)
        await pilot.press("1", "R")
        await settled(pilot)
        assert isinstance(app.screen, GraphScreen)
        assert any(toast.message.startswith("No profile loaded: the roofline chart") for toast in app._notifications)


async def test_another_program_of_the_dump_says_whether_its_ops_ran():
    """Switching to a helper program the profile did not run: its boxes say no time and the head
    says why; back on the train step, the boxes have their times again."""
    app = XlaTuiApp(TRANSFORMER)
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await started(pilot)
        helper = next(entry for entry in app.workspace.modules if entry.label.endswith("jit_stage"))
        app.select(module=helper.label)
        await settled(pilot)
        boxes = [node for node in screen.view.graph.nodes.values() if node.instruction is not None]
        assert app.workspace.hlo.name == "jit_stage" and boxes and not any("%" in node.lines[1] for node in boxes)
        assert "none of this program's ops ran in the profile" in screen_text(app)
        app.select(module=app.workspace.main.label)
        await settled(pilot)
        assert sum("%" in node.lines[1] for node in screen.view.graph.nodes.values()) >= 5
        assert "boxes: each op's time in the profile" in screen_text(app)


async def test_click_selects_a_box():
    app = XlaTuiApp(TRANSFORMER)
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await started(pilot)
        view = screen.query_one(GraphView)
        x0, y0 = view.left - view.pad, view.top  # the view's own scroll position (Viewport)

        def visible(n):
            return 0 <= n.x + 2 - x0 < view.size.width and 0 <= n.y + 1 - y0 < view.size.height

        target = next(n for n in view.graph.nodes.values()
                      if n.instruction is not None and n.key != view.cursor and visible(n))
        offset = (target.x + 2 - x0, target.y + 1 - y0)
        await pilot.click(GraphView, offset=offset)
        assert selected(app) is target.instruction


async def test_a_fusion_opens_in_place_and_escape_returns():
    app = XlaTuiApp(TRANSFORMER)
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await started(pilot)
        fusion = app.workspace.hlo.instruction("ynn_fusion.32")
        app.select(instruction=fusion)
        await pilot.pause()
        assert screen.focus_name == fusion.name
        await pilot.press("e")
        body = fusion.called_computations[0]
        assert selected(app) is body.root and screen.trail == [fusion.name]
        assert f"› {fusion.name}" in screen.query_one("GraphHead").text.plain
        assert app.selection.computation == body.name
        await pilot.press("escape")
        assert selected(app) is fusion and screen.trail == []


async def test_a_while_loop_asks_which_body_to_open(programs):
    app = XlaTuiApp(main_hlo(programs["scan"]))
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await started(pilot)
        loop = next(i for i in app.workspace.hlo.entry.instructions if i.opcode == "while")
        app.select(instruction=loop)
        await pilot.pause()
        if screen.focus_name != loop.name:
            await pilot.press("enter")  # Enter on another box re-centres on it...
        assert screen.focus_name == loop.name
        await pilot.press("enter")  # ...and on the focus opens what it calls
        await pilot.pause()
        assert isinstance(app.screen, ChooseComputation)
        await pilot.press("down", "enter")  # the second choice: the condition
        await pilot.pause()
        condition = loop.called_computations[1]
        assert selected(app).computation is condition and condition.kind == "while condition"
        assert screen.trail == [loop.name]


async def _chooser_for(pilot, opcode: str):
    """`e` on the entry's first op of `opcode`: (that op, the chooser of what it calls)."""
    app = pilot.app
    await started(pilot)
    caller = next(i for i in app.workspace.hlo.entry.instructions if i.opcode == opcode)
    app.select(instruction=caller)
    await pilot.pause()
    await pilot.press("e")
    await pilot.pause()
    assert isinstance(app.screen, ChooseComputation)
    return caller, app.screen


async def test_a_conditional_asks_which_branch_by_its_index(programs):
    app = XlaTuiApp(main_hlo(programs["cond"]))
    async with app.run_test(size=(160, 45)) as pilot:
        cond, chooser = await _chooser_for(pilot, "conditional")
        options = chooser.query_one("OptionList")
        labels = [str(options.get_option_at_index(k).prompt) for k in range(options.option_count)]
        branches = cond.called_computations
        assert labels == [f"branch {k}: {c.name}  ({len(c.instructions)} instruction{'' if len(c.instructions) == 1 else 's'})"
                          for k, c in enumerate(branches)]
        await pilot.press("down", "enter")
        await pilot.pause()
        assert isinstance(app.screen, GraphScreen) and app.screen.trail == [cond.name]
        assert selected(app).computation is branches[1]


async def test_the_computation_chooser_takes_page_keys_on_a_terminal_too_small_to_show_it():
    app = XlaTuiApp(FIXTURES / "gpu_scan")
    async with app.run_test(size=(80, 4)) as pilot:
        await _chooser_for(pilot, "while")
        await pilot.press("pagedown", "pageup", "pagedown")
        await pilot.pause()
        assert app._exception is None and isinstance(app.screen, ChooseComputation)
        await pilot.press("escape")
        assert isinstance(app.screen, GraphScreen)


async def test_schedule_view_lists_program_order_and_filters():
    app = XlaTuiApp(TRANSFORMER)
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await started(pilot)
        await pilot.press("k")
        start = selected(app)
        await pilot.press("l")
        listing = screen.query_one(InstructionList)
        assert listing.display and listing.current is start
        assert listing.rows == start.computation.instructions
        await pilot.press("j")
        assert selected(app) is start.computation.instructions[start.index + 1]
        await pilot.press("f", *"copy", "enter")
        assert listing.rows and all("copy" in i.name or "copy" in i.opcode or "copy" in i.op_name for i in listing.rows)
        chosen = listing.current
        await pilot.press("l")  # back to the graph, centred on the schedule's choice
        assert screen.focus_name == chosen.name and screen.query_one(GraphView).display


async def test_a_schedule_filter_matches_layouts_and_memory_spaces_as_printed(tmp_path):
    """The filter is not case-sensitive, and a shape's layout is upper case (`T(8,128)`, `S(5)`):
    typed as printed, they matched nothing."""
    path = tmp_path / "tiled.hlo"
    path.write_text("HloModule tiled\n\nENTRY main {\n  p0 = f32[8,128]{1,0:T(8,128)} parameter(0)\n"
                    "  a = f32[8,128]{1,0:T(8,128)} add(p0, p0)\n  ROOT c = f32[8,128]{1,0:T(8,128)S(5)} copy(a)\n}\n")
    app = XlaTuiApp(path)
    async with app.run_test(size=(120, 30)) as pilot:
        screen = await started(pilot)
        await pilot.press("l")
        listing = screen.query_one(InstructionList)
        for typed, names in (("S(5)", ["c"]), ("T(8,128)", ["p0", "a", "c"]), ("f32[8,128]{1,0:T(8,128)}", ["p0", "a"])):
            await pilot.press("f", *["backspace"] * 30, *typed, "enter")
            assert [i.name for i in listing.rows] == names, typed


async def test_a_schedule_filter_that_matches_nothing_says_so_where_it_shows():
    """At 120 columns the count came after the legend of op times and was cut off, and an empty
    list said nothing: the count now comes first, and the second line says what happened."""
    app = XlaTuiApp(TRANSFORMER)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await started(pilot)
        await pilot.press("l", "f", *"zzqq", "enter")
        comp = selected(app).computation
        assert not screen.query_one(InstructionList).rows
        text = screen_text(app)
        assert f"schedule of {comp.name}: 0 of {len(comp.instructions)} instructions matching 'zzqq'" in text
        assert "filter 'zzqq': no instruction of this computation matches" in text


async def test_a_schedule_filter_keeps_the_op_it_began_on_and_goes_back_to_it_when_nothing_matches():
    """Typing `copy` moved the selection to the first copy; typing on until nothing matched left
    it there, on an op the user never chose. Now the cursor stays on the op the filter began on
    while that op matches, and comes back to it when nothing does."""
    app = XlaTuiApp(TRANSFORMER)
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await started(pilot)
        await pilot.press("l")
        listing = screen.query_one(InstructionList)
        start = selected(app)
        assert start.opcode != "copy" and "copy" not in start.name
        await pilot.press("f", *"copy")
        moved = selected(app)
        assert moved is listing.current and moved is not start
        await pilot.press(*"zzqq")
        assert not listing.rows and selected(app) is start
        await pilot.press(*["backspace"] * 8, *start.name)
        assert listing.current is start and selected(app) is start


async def test_find_across_computations_with_next_and_previous():
    app = XlaTuiApp(TRANSFORMER)
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await started(pilot)
        await pilot.press("slash", *"reduce_max")
        await app.workers.wait_for_complete()
        await pilot.pause()
        matches = screen.matches
        assert matches and selected(app) is matches[0]
        await pilot.press("enter", "n")
        assert selected(app) is matches[1]
        await pilot.press("N", "N")
        assert selected(app) is matches[-1]
        inside = next(m for m in matches if not m.computation.is_entry)
        app.select(instruction=inside)
        await pilot.pause()
        assert screen.focus_name == inside.name and screen.trail  # found inside a fusion: breadcrumb to it
        assert screen.trail[-1] in {c.name for c in inside.computation.callers}


async def test_a_find_that_matches_nothing_goes_back_and_esc_calls_it_off():
    """Typing on past every match (`dot` matched, `dot-nothing` does not) returns to the op the
    search began on and says nothing matches, instead of staying on a match of the shorter
    query; Esc calls a search off (back where it began), Enter keeps its match."""
    app = XlaTuiApp(TRANSFORMER)
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await started(pilot)
        start = selected(app)
        await pilot.press("slash")
        await app.workers.wait_for_complete()
        await pilot.press(*"dot")
        await pilot.pause()
        assert screen.matches and selected(app) is screen.matches[0] is not start
        await pilot.press(*"-nothing")
        await pilot.pause()
        assert not screen.matches and selected(app) is start
        assert "find 'dot-nothing': no instruction matches" in screen.query_one("GraphHead").text.plain
        await pilot.press(*["backspace"] * 8)
        await pilot.pause()
        assert selected(app) is screen.matches[0]
        await pilot.press("escape")
        await pilot.pause()
        assert selected(app) is start and not screen.matches and not screen.query("#prompt")
        await pilot.press("slash", *"dot", "enter")
        await pilot.pause()
        assert selected(app) is screen.matches[0] is not start and not screen.query("#prompt")


async def test_a_search_is_one_step_back_and_esc_puts_the_graph_back_where_it_began():
    """Typing `dot.3` finds a match at each keystroke: none of them goes into the Backspace
    history; Esc centres the graph on the op it was centred on and selects the op selected
    then; Enter keeps the match, and Backspace goes back to where the search began."""
    app = XlaTuiApp(TRANSFORMER)
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await started(pilot)
        start, focus = selected(app), screen.focus_name
        history = list(app.workspace.focus_history)
        await pilot.press("slash")
        await app.workers.wait_for_complete()
        await pilot.press(*"dot.3")
        await pilot.pause()
        assert selected(app).name.startswith("dot.3") and screen.focus_name != focus
        await pilot.press("escape")
        await pilot.pause()
        assert selected(app) is start and screen.focus_name == focus and app.workspace.focus_history == history
        await pilot.press("slash", *"dot.3", "enter")
        await pilot.pause()
        found = selected(app)
        assert found.name.startswith("dot.3") and screen.focus_name == found.name
        assert app.workspace.focus_history == [*history, focus]
        await pilot.press("backspace")
        assert screen.focus_name == focus


async def test_backspace_after_a_search_that_only_moved_the_cursor_goes_back_where_it_began():
    """A match already drawn only moves the cursor: Enter, then Backspace went one step further
    back than where the search began (to the centre before, here the root)."""
    app = XlaTuiApp(TRANSFORMER)
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await started(pilot)
        await pilot.press("k", "enter")
        await pilot.pause()
        began = selected(app)
        drawn = next(node.instruction for key, node in screen.view.graph.nodes.items()
                     if node.instruction is not None and key != began.name)
        await pilot.press("slash")
        await app.workers.wait_for_complete()
        screen.query_one("#prompt").post_message(events.Paste(drawn.name))  # the whole name at once
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        assert selected(app) is drawn and screen.focus_name == began.name
        await pilot.press("backspace")
        await pilot.pause()
        assert selected(app) is began


async def test_a_search_called_off_before_its_index_is_ready_finds_nothing_later(monkeypatch):
    import threading

    import tui.screens.graph

    gate, real = threading.Event(), tui.screens.graph.InstructionIndex

    def held(module):
        gate.wait(10)
        return real(module)

    monkeypatch.setattr(tui.screens.graph, "InstructionIndex", held)
    app = XlaTuiApp(TRANSFORMER)
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await started(pilot)
        start = selected(app)
        await pilot.press("slash", *"dot", "escape")
        gate.set()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert selected(app) is start and not screen.matches


async def test_a_prompt_opened_again_after_the_focus_left_it_is_one_prompt():
    """The find prompt left open while the focus moved on (tab): `/` again, or the schedule's
    filter, opens one prompt (a second one with the same id stopped the app)."""
    from textual.widgets import Input

    app = XlaTuiApp(TRANSFORMER)
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await started(pilot)
        await pilot.press("slash", *"dot", "tab")
        assert not isinstance(app.focused, Input) and len(screen.query("#prompt")) == 1
        await pilot.press("slash")
        await pilot.pause()
        prompts = screen.query(Input)
        assert len(prompts) == 1 and app.focused is prompts.first() and prompts.first().value == "dot"
        await pilot.press("tab", "l", "f")
        await pilot.pause()
        prompts = screen.query(Input)
        assert len(prompts) == 1 and prompts.first().has_class("filter") and app.focused is prompts.first()


async def test_graph_and_details_select_each_other():
    app = XlaTuiApp(TRANSFORMER)
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await started(pilot)
        await pilot.press("k")
        chosen = selected(app)
        await pilot.press("2")
        details = app.screen
        assert chosen.name in details.query_one("DetailsView").plain_text().splitlines()[0]
        await pilot.press("down", "enter")  # follow the first operand
        operand = list(dict.fromkeys(chosen.operands))[0]
        assert selected(app) is operand
        await pilot.press("1")
        assert app.screen is screen and screen.query_one(GraphView).cursor == operand.name


async def test_jumps_to_memory_and_timeline():
    app = XlaTuiApp(SHARDED)
    async with app.run_test(size=(160, 45)) as pilot:
        await started(pilot)
        reduce = next(i for i in app.workspace.hlo.instructions() if i.opcode == "all-reduce")
        app.select(instruction=reduce)
        await pilot.press("2", "m")
        assert app.current_mode == "memory" and app.selection.instruction == reduce.name
        await pilot.press("2", "t")
        assert app.current_mode == "timeline" and app.selection.instruction == reduce.name


async def test_key_bar_click_presses_the_key():
    app = XlaTuiApp(TRANSFORMER)
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await started(pilot)
        bar = screen.query_one("KeyBar")
        text = bar.render().plain
        await pilot.click("KeyBar", offset=(text.index("Schedule"), 0))
        assert screen.schedule_mode and screen.query_one(InstructionList).display


# -- snapshots (committed fixtures only, two terminal sizes) -------------------------------------


@SIZES
def test_graph_transformer_root(snap_compare, size):
    assert snap_compare(XlaTuiApp(TRANSFORMER), terminal_size=size, run_before=shot("k"))


@SIZES
def test_graph_fusion_opened_in_place(snap_compare, size):
    assert snap_compare(XlaTuiApp(TRANSFORMER), terminal_size=size, run_before=shot(select("ynn_fusion.32"), "e"))


@SIZES
def test_graph_schedule_view(snap_compare, size):
    assert snap_compare(XlaTuiApp(TRANSFORMER), terminal_size=size, run_before=shot("k", "l"))


@SIZES
def test_graph_sharded_all_reduce(snap_compare, size):
    assert snap_compare(XlaTuiApp(SHARDED), terminal_size=size, run_before=shot(select("all-reduce")))


async def test_o_shows_the_op_before_and_after_optimizations():
    """`o` opens the module as the front end handed it to XLA, at the selected fusion's op, and
    back; the key is off (and out of the help) where the input has one stage only."""
    from tui.model.stages import full_op_name

    app = XlaTuiApp(TRANSFORMER)
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await started(pilot)
        ws = app.workspace
        after = ws.current
        fused = after.load().instruction("bitcast_concatenate_fusion")
        app.select(instruction=fused)
        await pilot.pause()
        left = screen.view.current  # a node of the graph about to be left
        await pilot.press("o")
        await started(pilot)
        screen._node_activated(left)  # Enter on it, come late: ignored
        screen._node_highlighted(left)
        assert ws.current.stage == "before optimizations" and ws.current.name == after.name
        found = selected(app)
        assert found.opcode == "scatter" and full_op_name(found, ws.hlo) == fused.op_name
        assert screen.focus_name == found.name and found.name in screen.view.graph.nodes
        assert len(ws.modules) == 4  # the summary's list is unchanged
        await pilot.press("o")
        await started(pilot)
        assert ws.current is after and full_op_name(selected(app), ws.hlo) == fused.op_name
        assert selected(app).computation.is_entry

    app = XlaTuiApp(FIXTURES / "mlp.hlo")
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await started(pilot)
        assert screen.check_action("other_stage", ()) is False
        before = selected(app)
        await pilot.press("o")
        assert selected(app) is before and app.workspace.current.stage == ""


async def test_Y_copies_the_graph_as_drawn_and_the_schedule_as_hlo():
    app = XlaTuiApp(TRANSFORMER)
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await started(pilot)
        app.select(instruction="dot.35")
        await pilot.pause()
        await pilot.press("Y")
        drawn = app.clipboard.splitlines()
        assert drawn == [row.rstrip() for row in screen.view.graph.text_rows()]
        assert any("dot.35" in row for row in drawn) and any("┌" in row for row in drawn) and len(drawn) > 10
        await pilot.press("l")
        await pilot.pause()
        await pilot.press("Y")
        listed = screen.listing.rows
        assert app.clipboard.splitlines() == [ins.text for ins in listed] and len(listed) == len(app.workspace.hlo.entry.instructions)
