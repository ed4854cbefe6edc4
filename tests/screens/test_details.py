"""The details screen driven by keys on real modules: what it says, and where its links go."""

from __future__ import annotations

from conftest import FIXTURES
from shots import SIZES, select, shot
from textual import events

from tui.app import XlaTuiApp
from tui.model.cost import CostModel
from tui.model.explain import si
from tui.screens.details import TEXT_HEAD, TEXT_TAIL
from tui.widgets.details_view import DetailsView
from tui.widgets.viewport import WHEEL_LINES

TRANSFORMER = FIXTURES / "transformer"
SHARDED = FIXTURES / "sharded"


async def details_of(pilot, name: str) -> tuple[DetailsView, str]:
    app = pilot.app
    await app.workers.wait_for_complete()
    await pilot.pause()
    app.select(instruction=name)
    await pilot.press("2")
    view = app.screen.query_one(DetailsView)
    return view, view.plain_text()


async def test_follows_operands_and_users_and_walks_the_schedule():
    app = XlaTuiApp(TRANSFORMER)
    async with app.run_test(size=(160, 45)) as pilot:
        view, _ = await details_of(pilot, "ynn_fusion.32")
        ins = app.workspace.instruction
        operands = list(dict.fromkeys(ins.operands))
        await pilot.press("down", "down", "enter")
        assert app.workspace.instruction is operands[1]
        await pilot.press("backspace")
        assert app.workspace.instruction is ins
        await pilot.press(*["down"] * (len(operands) + 1), "enter")  # past the operands: the first user
        assert app.workspace.instruction is ins.users[0]
        await pilot.press("backspace", *["down"] * (len(operands) + len(ins.users) + 2), "enter")
        body = ins.called_computations[0]
        assert app.workspace.instruction is body.instructions[1]  # the fused computation is listed too
        here = app.workspace.instruction
        await pilot.press("j")
        assert app.workspace.instruction is here.computation.instructions[here.index + 1]
        await pilot.press("k", "k")
        assert app.workspace.instruction is here.computation.instructions[here.index - 1]


async def test_backspace_with_nothing_to_go_back_to_says_so():
    app = XlaTuiApp(TRANSFORMER)
    async with app.run_test(size=(120, 36)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.press("2")
        while app.workspace.pop_focus() is not None:  # whatever the loading selected on its way
            pass
        here = app.workspace.instruction
        await pilot.press("backspace")
        assert app.workspace.instruction is here and any(t.message == "No earlier focus" for t in app._notifications)


async def test_down_picks_the_first_link_however_far_down_the_page_it_is():
    """A ROOT tuple's page is long before its operands (its shapes, its text); on a short
    terminal the first down chose nothing and scrolled one line, and Enter followed nothing,
    for tens of presses. Now it goes to the first operand, scrolled into view."""
    app = XlaTuiApp(TRANSFORMER)
    async with app.run_test(size=(80, 24)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        root = app.workspace.main.load().entry.root
        app.select(instruction=root.name)
        await pilot.press("2")
        view = app.screen.query_one(DetailsView)
        assert not view.page.links  # laid out only as far as seen: the operands are further down
        await pilot.press("down")
        line, target = view.page.links[0]
        assert view.link_at == 0 and view.top <= line < view.top + view.view_size.height
        await pilot.press("enter")
        assert app.workspace.instruction is target is root.operands[0]


async def test_pages_laid_out_ahead_are_what_laying_out_afresh_gives(monkeypatch):
    """A page left standing has the pages of j and k laid out ahead, and pages shown a moment
    ago are kept; those keys then show them without laying anything out, and they read exactly
    as pages made on the spot."""
    from tui.widgets import still

    monkeypatch.setattr(still, "TICK_S", 3600)  # the test says when the page stood still
    app = XlaTuiApp(TRANSFORMER)
    async with app.run_test(size=(160, 45)) as pilot:
        view, _ = await details_of(pilot, "ynn_fusion.32")
        screen, here = app.screen, app.workspace.instruction
        made = []
        sections = screen._sections
        monkeypatch.setattr(screen, "_sections", lambda ins: made.append(ins.name) or sections(ins))
        screen.work_ahead()
        assert made == []  # one tick is not standing still
        screen.work_ahead()
        order = here.computation.instructions
        assert made == [order[here.index + 1].name, order[here.index - 1].name]
        for key, step in (("j", 1), ("k", -1)):
            made.clear()
            await pilot.press(key)
            assert made == [] and app.workspace.instruction is order[here.index + step]
            shown = [list(view.render_line(y)) for y in range(view.size.height)]  # before the whole page is laid out
            ahead = view.plain_text()
            screen._shown = (None, None)
            screen._redraw()
            assert [list(view.render_line(y)) for y in range(view.size.height)] == shown
            assert made == [order[here.index + step].name] and view.plain_text() == ahead
            made.clear()
            app.select(instruction=here)
            await pilot.pause()
            assert made == []  # the page shown a moment ago comes back as it was
            screen.work_ahead()
            screen.work_ahead()


async def test_pages_share_the_lines_they_have_in_common_and_read_as_laid_out_afresh():
    """Pages of one module repeat most of their lines (titles, a shape's rows, an op's row in the
    tables of its neighbours): such a line is laid out and encoded once, and a page made of kept
    lines is, segment for segment, the page laid out with nothing kept."""
    app = XlaTuiApp(TRANSFORMER)
    async with app.run_test(size=(160, 45)) as pilot:
        view, _ = await details_of(pilot, "ynn_fusion.32")
        screen, height = app.screen, view.size.height
        pages, earlier, shared = [], [], 0
        for _ in range(12):
            await pilot.press("j")
            strips = [view.render_line(y) for y in range(height)]
            shared += sum(any(strip is other for other in earlier) for strip in strips)
            earlier += strips
            pages.append((app.workspace.instruction, [list(strip) for strip in strips]))
        assert shared > len(earlier) // 4  # the check can fail: most lines were on an earlier page
        for ins, kept in pages:
            view._laid.clear(), view._shared.clear()
            screen._pages.clear()
            app.select(instruction=ins)
            await pilot.pause()
            assert [list(view.render_line(y)) for y in range(height)] == kept


async def test_a_held_j_has_the_next_page_laid_out_between_repeats(monkeypatch):
    """j pressed again right after itself is held down: just after each page the next one is
    laid out, so the next j lays nothing out. One j alone lays nothing out ahead."""

    from tui.widgets import still

    monkeypatch.setattr(still, "TICK_S", 3600)  # no work ahead for a page standing still
    app = XlaTuiApp(TRANSFORMER)
    async with app.run_test(size=(160, 45)) as pilot:
        view, _ = await details_of(pilot, "ynn_fusion.32")
        screen, order = app.screen, app.workspace.instruction.computation.instructions
        made = []
        sections = screen._sections
        monkeypatch.setattr(screen, "_sections", lambda ins: made.append(ins.name) or sections(ins))

        async def press(key: str) -> None:
            made.clear()
            await pilot.press(key)
            await pilot.pause()  # the frame, and the work it sets going after itself

        start = app.workspace.instruction.index
        await press("j")
        assert made == [order[start + 1].name]  # its own page only
        await press("j")
        assert made == [order[start + 2].name, order[start + 3].name]  # its page, then the next one's
        await press("j")
        assert made == [order[start + 4].name]  # its page was ready; the next one's is laid out
        assert app.workspace.instruction is order[start + 3]


async def test_the_ops_the_same_line_of_python_made_are_links():
    """Below the source: the other ops its line of Python made (dot.35 is one of three from
    transformer.py:70), each a link; Enter on one selects it."""
    app = XlaTuiApp(TRANSFORMER)
    async with app.run_test(size=(160, 45)) as pilot:
        view, text = await details_of(pilot, "dot.35")
        module = app.workspace.instruction.computation.module
        made = module.made_by(("examples/transformer.py", 70))
        assert [ins.name for ins in made] == ["ynn_fusion.30", "dot.35", "copy_bitcast_fusion.4"]
        assert "Ops made by the same line of Python, examples/transformer.py:70 (3)" in text
        targets = [target for _, target in view.page.links]
        assert targets[-3:] == made  # the page's last links
        view.link_at = len(targets) - 1
        await pilot.press("enter")
        assert app.workspace.instruction is made[-1]


@SIZES
async def test_the_tables_of_ops_give_each_ops_time_with_a_profile(size):
    """Operands, users and the ops of the same line each end with the op's time over the profile
    and its share of all ops' time, as its events matched one by one add up (TraceLinks); the
    op profile the graph worked out is taken at once, no worker waited for. At 100 columns the
    name column gives way, so that the time is still shown whole."""
    from tui.model.links import TraceLinks, kept_op_profile, program_of
    from tui.screens.op_times import time_note

    app = XlaTuiApp(TRANSFORMER)
    async with app.run_test(size=size) as pilot:
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.app.workers.wait_for_complete()  # the graph's op times
        ws = app.workspace
        assert kept_op_profile(ws) is not None
        app.select(instruction="dot.35")
        await pilot.press("2")
        text = app.screen.query_one(DetailsView).plain_text()  # no pause: what the first frame shows
        ins = ws.instruction
        links = TraceLinks(ws.trace, ws.hlo, program_of(ws.current))
        everything = sum(row.total_ns for row in kept_op_profile(ws).ops)
        lines = text.splitlines()
        assert "time" in next(line for line in lines if line.startswith("name ")).split()
        shown = [*dict.fromkeys(ins.operands), *ins.users, *ins.computation.module.made_by(ins.source)]
        for other in shown:
            said = time_note(int(links.occurrences(other).durations_ns.sum()), everything)
            name = other.name + " " if size[0] > 100 else other.name[:8]  # cut in its middle where narrow
            assert said and any(line.startswith(name) and line.endswith(said) for line in lines), other.name
            firsts = [line.split()[0] for line in lines if line.startswith(name)]
            assert other.name in firsts or any("…" in first and first.endswith(other.name[-4:]) for first in firsts)  # its end kept


async def test_a_loops_cost_says_it_is_one_trip_and_what_the_trips_add_up_to():
    """XLA's cost analysis counts one trip of a loop: the page says so, and with the trip
    count XLA worked out (backend_config's known_trip_count), what the trips add up to."""
    app = XlaTuiApp(FIXTURES / "gpu_scan")
    async with app.run_test(size=(160, 45)) as pilot:
        await app.workers.wait_for_complete()
        loop = next(i for i in app.workspace.hlo.entry.instructions if i.opcode == "while")
        app.select(instruction=loop)
        await pilot.press("2")
        text = app.screen.query_one(DetailsView).plain_text()
        cost = CostModel(app.workspace.hlo).op(loop)
        trips = int(loop.attr("backend_config").split('"known_trip_count":{"n":"')[1].split('"')[0])
        assert trips > 1
        assert (f"trips            one trip of the body and condition, as XLA counts a loop; it runs {trips} times "
                f"(known_trip_count): {si(cost.flops * trips, 'FLOP')}") in text
        assert "not seen" not in text


async def test_an_ops_cost_says_which_custom_calls_inside_it_xla_counts_as_minus_one(corpus):
    """llama3 8B with context parallelism: a conditional whose branch calls Transformer Engine's
    fused attention; XLA sums that call as -1 FLOP, and the branch's 32 FLOPs come out as 31."""
    app = XlaTuiApp(corpus / "hlo" / "xla_benchmarks" / "hlo_llama3_8b_cp_bf16_1x4.hlo")
    async with app.run_test(size=(160, 45)) as pilot:
        await app.workers.wait_for_complete()
        app.select(instruction="cond.17")
        await pilot.press("2")
        text = app.screen.query_one(DetailsView).plain_text()
        assert ("not seen         custom calls inside (te_fused_attn_forward_ffi): XLA counts each as -1 FLOP and -1 B, "
                "and these figures do too") in text
        branch = next(c for c in app.workspace.instruction.called_computations
                      if any(i.opcode == "custom-call" for i in c.instructions))
        assert any(i.custom_call_target == "te_fused_attn_forward_ffi" for i in branch.instructions)


async def test_a_sharded_all_reduce_explained():
    app = XlaTuiApp(SHARDED)
    async with app.run_test(size=(160, 45)) as pilot:
        reduce = next(i for i in (await _loaded(pilot)).instructions() if i.opcode == "all-reduce")
        _, text = await details_of(pilot, reduce.name)
        assert text.splitlines()[0].startswith(f"{reduce.name} = all-reduce")
        assert "2 groups of size 4: {0,1,2,3} {4,5,6,7}" in text
        assert "f32[64,16] = 1,024 elements" in text and "4,096 logical" in text
        assert "default: host RAM" in text  # a CPU dump
        assert "jit(train_step)/jvp()/dot_general" in text and "examples/sharded.py" in text
        cost = CostModel(app.workspace.hlo).op(reduce)
        assert f"FLOPs            {si(cost.flops, 'FLOP')}" in text and cost.flops == 64 * 16


async def test_profile_figures_of_an_op():
    app = XlaTuiApp(TRANSFORMER)
    async with app.run_test(size=(160, 45)) as pilot:
        await _loaded(pilot)
        _, text = await details_of(pilot, "dot.35")
        assert "occurrences       3" in text
        assert "(all of this module's op events)" in text
        assert "bound             unknown: the profile's device" in text  # a CPU profile: no peak table
        assert "achieved" in text and "FLOP/s" in text
        _, text = await details_of(pilot, "params__embed__.1")
        assert "this op does not appear in the profile" in text


async def test_m_opens_the_ops_own_buffer_where_it_runs():
    """`m` from an op's details: the memory screen shows that op's buffer, highlighted and
    spanned on the chart, with the cursor where the op runs; the first time it opens (not XLA's
    peak), and after another buffer was chosen there (not that one)."""
    from tui.screens.memory import MemoryScreen

    app = XlaTuiApp(TRANSFORMER)
    async with app.run_test(size=(160, 45)) as pilot:
        await _loaded(pilot)
        for op, before in (("bitcast_copy_fusion.1", None), ("dot.35", "multiply_bitcast_fusion{}")):
            if before is not None:  # choose another buffer in the memory screen first
                app.select(instruction=before[:-2], buffer=before)
            await details_of(pilot, op)
            await pilot.press("m")
            await app.workers.wait_for_complete()
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, MemoryScreen) and screen.profile is not None
            profile = screen.profile
            row = profile.row_of(profile.module.instruction(op))
            assert profile.names[row] == f"{op}{{}}" and app.workspace.selection.buffer == f"{op}{{}}"
            assert screen.selected_row == row and screen.table.rows[screen.table.cursor] == row
            assert screen.cursor == profile.time_of(profile.module.instruction(op)) != profile.peak_time
        # An op inside a fusion has no buffer of its own: `m` shows the fusion's, where it runs.
        fusion = profile.module.instruction("bitcast_copy_fusion.1")
        inner = next(i for i in fusion.called_computations[0].instructions if i.opcode != "parameter")
        assert profile.row_of(inner) is None
        app.show("details", instruction=inner.name)
        await pilot.pause()
        await pilot.press("m")
        await pilot.pause()
        row = profile.row_of(fusion)
        assert app.screen is screen and screen.selected_row == row and profile.names[row] == "bitcast_copy_fusion.1{}"
        assert screen.table.rows[screen.table.cursor] == row and screen.cursor == profile.time_of(fusion)


async def test_ops_are_numbered_from_0_as_the_schedule_numbers_them():
    app = XlaTuiApp(TRANSFORMER)
    async with app.run_test(size=(160, 45)) as pilot:
        await _loaded(pilot)
        head = (await details_of(pilot, "dot.35"))[1].splitlines()[0]
        ins = app.workspace.instruction
        assert f"#{ins.index} of {len(ins.computation.instructions)}" in head and ins.computation.instructions[ins.index] is ins


async def test_source_excerpt_and_stack():
    app = XlaTuiApp(TRANSFORMER)
    async with app.run_test(size=(160, 45)) as pilot:
        module = await _loaded(pilot)
        ins = next(i for i in module.entry.instructions if i.source and i.source[0] == "examples/transformer.py")
        _, text = await details_of(pilot, ins.name)
        line = (FIXTURES.parents[1] / "examples" / "transformer.py").read_text().splitlines()[ins.source[1] - 1]
        assert f"❯ {ins.source[1]} {line}".rstrip() in text
        assert "Python stack, innermost first:" in text
        assert all(f"{frame.file}:{frame.line} in {frame.function}" in text for frame in ins.stack)


async def _loaded(pilot):
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    return pilot.app.workspace.hlo


# -- snapshots (committed fixtures only, two terminal sizes) -------------------------------------


@SIZES
def test_details_sharded_all_reduce(snap_compare, size):
    assert snap_compare(XlaTuiApp(SHARDED), terminal_size=size, run_before=shot(select("all-reduce"), "2"))


@SIZES
def test_details_dot_with_profile_and_cost(snap_compare, size):
    assert snap_compare(XlaTuiApp(TRANSFORMER), terminal_size=size, run_before=shot(select("dot.35"), "2", "end"))


async def test_the_page_scrolls_by_keys_and_its_thumb_shows_where():
    app = XlaTuiApp(TRANSFORMER)
    async with app.run_test(size=(100, 30)) as pilot:
        view, text = await details_of(pilot, "dot.35")
        height, total = view.view_size.height, len(text.splitlines())
        assert total > height and view.top == 0
        thumb = view.thumb_rows()
        assert thumb.start == 0 and 0 < len(thumb) < height
        assert [view.render_line(y).text[-1] for y in (0, height - 1)] == ["▐", " "]
        await pilot.press("pagedown")
        assert view.top == height - 1
        await pilot.press("end")
        assert view.top == total - height and view.thumb_rows().stop == height
        last = view.render_line(height - 1).text
        assert text.splitlines()[-1].strip() in last and last[-1] == "▐"
        await pilot.press("home")
        assert view.top == 0
        view.post_message(events.MouseScrollDown(view, 5, 5, 0, 1, 0, False, False, False))
        await pilot.pause()
        assert view.top == WHEEL_LINES  # the wheel scrolls the page, not the screen around it
        view.post_message(events.MouseScrollUp(view, 5, 5, 0, -1, 0, False, False, False))
        await pilot.pause()
        assert view.top == 0


async def test_a_gpu_ops_runs_name_its_kernels(corpus, tmp_path):
    """On a GPU the op's runs are kernels named otherwise (`Cijk_…` for a GEMM custom-call): the
    profile section names them with their count and time. The module is a hand-written stand-in
    with the ROCm profile's module and op names: not one of the profile's programs (jit_matmul
    ran at five shapes), so the runs of all of them count."""
    from collections import Counter

    from model.test_event_links import kernels_by_profiledata

    from tui.model.links import module_name

    profile = corpus / "traces" / "tracelens_jax08_rocm_attention.xplane.pb"
    module = tmp_path / "jit_matmul.hlo"
    module.write_text("""HloModule jit_matmul, is_scheduled=true

ENTRY %main (a: bf16[4096,4096], b: bf16[4096,4096]) -> bf16[4096,4096] {
  %a = bf16[4096,4096]{1,0} parameter(0)
  %b = bf16[4096,4096]{1,0} parameter(1)
  ROOT %custom-call.1 = bf16[4096,4096]{1,0} custom-call(%a, %b), custom_call_target="__cublas$lt$matmul", backend_config={"gemm_backend_config":{"dot_dimension_numbers":{"lhs_contracting_dimensions":["1"],"rhs_contracting_dimensions":["0"],"lhs_batch_dimensions":[],"rhs_batch_dimensions":[]}}}
}
""")
    app = XlaTuiApp(module, profile)
    async with app.run_test(size=(160, 45)) as pilot:
        view, text = await details_of(pilot, "custom-call.1")
        ran = [(name, run) for op, m, name, _, _, run in kernels_by_profiledata(profile)
               if op == "custom-call.1" and module_name(m) == "jit_matmul"]
        kernels = Counter(name for name, _ in ran)
        assert f"occurrences       {len({run for _, run in ran})}" in text  # runs; a run can be several kernels
        flat = " ".join(text[text.index("kernels "):].split())  # the row, unwrapped
        for name, count in kernels.items():
            short = name if len(name) <= 60 else name[:59] + "…"
            assert f"{short} ×{count} (" in flat
        # The ROCm planes name no chip: their capabilities (gfx942, 304 CUs, 192 GiB) are an MI300X,
        # whose ridge a 4096-cube bf16 matmul (1365 FLOPs a byte) is far above.
        assert "compute bound on AMD Instinct MI300X (ridge 247 FLOP/B)" in flat
        assert "peaks 1.31 PFLOP/s, 5.3 TB/s (from the vendor's data sheet)" in flat


async def test_an_async_copys_wait_on_a_tpu_is_not_taken_for_its_work(corpus):
    """copy-done.2 on the v6e host-offload profile: its runs are the core waiting for the copy,
    so the page gives their time but no rate and no roofline bound."""
    app = XlaTuiApp(corpus / "traces" / "xprof_tpu_v6e_inference_4chip.xplane.pb")
    async with app.run_test(size=(160, 45)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        _, text = await details_of(pilot, "copy-done.2")
        flat = " ".join(text.split())
        assert "occurrences 400" in flat
        assert "not measured: this event only waits for the async op" in flat
        assert "bound" not in flat.split("Profile", 1)[1].split("Ops made by", 1)[0]


async def test_y_copies_the_selected_ops_hlo_to_the_clipboard():
    app = XlaTuiApp(TRANSFORMER)
    async with app.run_test(size=(120, 36)) as pilot:
        await details_of(pilot, "dot.35")
        await pilot.press("y")
        copied = app.clipboard
        assert copied == app.workspace.instruction.text and copied.lstrip("%").startswith("dot.35 = f32[64,256]")
        assert any(toast.message.startswith("Copied dot.35's HLO to the clipboard") for toast in app._notifications)


async def test_Y_copies_the_whole_details_page():
    app = XlaTuiApp(TRANSFORMER)
    async with app.run_test(size=(120, 36)) as pilot:
        view, text = await details_of(pilot, "dot.35")
        await pilot.press("Y")
        assert app.clipboard == view.plain_text() and "Result shape" in app.clipboard and "Python stack" in app.clipboard


async def test_a_constant_of_a_million_characters_shows_its_ends_and_copies_whole(tmp_path):
    """XLA's dumps leave large literals out (`constant({...})`), but printed with them a
    constant's line runs to megabytes: the page shows its start and its end (where the metadata
    is) and says what it left out; `y` still copies the instruction whole."""
    n = 200_000
    literal = ",".join(str(i % 7) for i in range(n))
    path = tmp_path / "big_constant.hlo"
    path.write_text(f"""HloModule big_constant, entry_computation_layout={{(f32[{n}]{{0}})->f32[{n}]{{0}}}}

ENTRY %main (p: f32[{n}]) -> f32[{n}] {{
  %p = f32[{n}]{{0}} parameter(0)
  %c = f32[{n}]{{0}} constant({{{literal}}}), metadata={{op_name="jit(f)/weights"}}
  ROOT %add = f32[{n}]{{0}} add(f32[{n}]{{0}} %p, f32[{n}]{{0}} %c)
}}
""")
    app = XlaTuiApp(path)
    async with app.run_test(size=(160, 45)) as pilot:
        view, text = await details_of(pilot, "c")
        whole = app.workspace.instruction.text
        left_out = len(whole) - TEXT_HEAD - TEXT_TAIL
        folded = "".join(text.split())  # the page folds the text at its width
        assert "".join(f"/* {left_out:,} characters left out: y copies the whole */".split()) in folded
        assert 'metadata={op_name="jit(f)/weights"}' in folded
        assert len(text) < TEXT_HEAD + TEXT_TAIL + 10_000
        await pilot.press("y")
        assert app.clipboard == whole and len(whole) > 2 * n
