"""The HLO parser against XLA's own C++ parser, on JAX-generated modules and the real corpus."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import hlo_files, main_hlo

from tui.model.hlo import HloParseError, parse_hlo


def xla_opcode(instruction) -> str:
    """The opcode as XLA itself prints the instruction: `%n = <shape> <opcode>(...`."""
    text = instruction.to_string()
    rest = text.split(" = ", 1)[1]
    if rest.startswith("("):  # a tuple shape: skip to its closing parenthesis
        depth = 0
        for k, c in enumerate(rest):
            depth += {"(": 1, ")": -1}.get(c, 0)
            if depth == 0:
                rest = rest[k + 1 :]
                break
    else:
        rest = rest.split(" ", 1)[1]
    return re.match(r"\s*([\w-]+)\(", rest).group(1)


def xla_name(ins) -> str:
    """The name XLA's parser gives an instruction: a get-tuple-element the text printed inline
    (JAX 0.11's `%t#2`, which we name as printed) it names `t_2`."""
    return ins.name.replace("#", "_") if ins.opcode == "get-tuple-element" else ins.name


def assert_matches_xla(text: str, label: str) -> int:
    """Every computation's instruction names, opcodes and operand names equal XLA's parse."""
    from jax._src.lib import xla_client

    reference = xla_client.hlo.hlo_module_from_text(text)
    ours = parse_hlo(text, label)
    assert not [w for w in ours.warnings if "opcode" in w], label  # every opcode XLA accepted is known
    ours_by_name = {c.name: c for c in ours.computations}
    checked = 0
    assert {c.name for c in reference.computations()} == set(ours_by_name), label
    for ref_comp in reference.computations():
        comp = ours_by_name[ref_comp.name]
        ref = {i.name: i for i in ref_comp.instructions()}
        mine = {xla_name(i): i for i in comp.instructions}
        assert set(ref) == set(mine), f"{label}: {ref_comp.name}"
        for name, ref_ins in ref.items():
            ins = mine[name]
            printed = xla_opcode(ref_ins)
            if ins.opcode.startswith("async-") and ref_ins.opcode.name.startswith("kAsync"):
                # XLA prints an async wrapper sugared by what it wraps: async-start -> sine-start
                assert printed.endswith(ins.opcode[len("async"):]), f"{label}: {name}"
            else:
                assert ins.opcode == printed, f"{label}: {name}"
            assert [xla_name(o) for o in ins.operands] == [o.name for o in ref_ins.operands()], f"{label}: {name}"
            checked += 1
    return checked


def test_every_generated_module_matches_xla(programs):
    checked = 0
    for name, folder in programs.items():
        files = hlo_files(folder)
        assert files, f"{name}: XLA dumped no HLO text"
        for path in files:
            checked += assert_matches_xla(path.read_text(), f"{name}/{path.name}")
    assert checked > 4000


def test_every_corpus_module_matches_xla(corpus):
    from jax._src.lib import xla_client

    files = sorted(corpus.glob("hlo/**/*.hlo")) + sorted(corpus.glob("hlo/dumps/*/*optimizations.txt"))
    assert len(files) >= 17
    accepted = 0
    for path in files:
        text = path.read_text()
        try:
            xla_client.hlo.hlo_module_from_text(text)
        except Exception:
            # The two single-computation fragments in the GPU dump (SOURCES.md): XLA rejects them.
            assert "SyncTensorsGraph.147." in path.name and path.suffix == ".hlo", path
            continue
        assert_matches_xla(text, path.name)
        accepted += 1
    assert accepted >= 15


def test_structure_of_a_scheduled_train_step(programs):
    text = main_hlo(programs["transformer"]).read_text()
    module = parse_hlo(text)
    assert module.is_scheduled
    assert module.entry.is_entry and module.entry.root.is_root
    fusions = [i for i in module.instructions() if i.opcode == "fusion"]
    assert fusions
    for fusion in fusions[:50]:
        called = fusion.called_computations
        assert len(called) == 1 and called[0].kind == "fusion"
        assert fusion.fusion_kind and fusion.fusion_kind.startswith("k")
        assert fusion in called[0].callers
    # users are the inverse of operands
    for ins in module.entry.instructions:
        for op in ins.operands:
            assert ins in op.users
    # every named scope of the model shows up in some op_name
    op_names = {i.op_name for i in module.instructions()}
    assert any("layer" in n for n in op_names)


def test_while_and_conditional_computations_are_classified(programs):
    kinds = set()
    for name in ("scan", "cond", "while_loop"):
        for path in hlo_files(programs[name]):
            module = parse_hlo(path.read_text())
            kinds |= {c.kind for c in module.computations}
    assert {"while body", "while condition", "branch", "entry"} <= kinds


def test_the_ops_one_line_of_python_made(programs):
    """`made_by`: every instruction of the program (not inside an op's own computation: a
    fusion's, a reducer) whose source is that line, in program order; on a scan, the loop body's
    ops too."""
    module = parse_hlo(hlo_files(programs["scan"])[-1].read_text())
    inside_ops = {"fusion", "reducer", "comparator", "select", "scatter"}
    everything = [(c, ins) for c in module.computations for ins in c.instructions if ins.source]
    lines = {ins.source for _, ins in everything}
    assert len(lines) >= 3
    for line in lines:
        expected = [ins for c, ins in everything if ins.source == line and c.kind not in inside_ops]
        assert module.made_by(line) == expected
    body = [ins for c, ins in everything if c.kind == "while body" and ins.opcode != "parameter"]
    assert body and any(ins in module.made_by(ins.source) for ins in body)
    assert module.made_by(("nowhere.py", 1)) == []


def test_a_call_calls_a_computation_of_the_program_and_a_sort_a_comparator():
    """`call`'s computation comes by `to_apply`, as a reducer's does, but it is part of the
    program (JAX's jit inside jit): its ops are ones a line of Python made. A sort's is its
    comparator. (Generated by tests/fixtures/make_fixtures.py.)"""
    from conftest import FIXTURES

    module = parse_hlo((FIXTURES / "gpu_scan" / "module_0000.jit_train_step.before_optimizations.txt").read_text())
    calls = [ins for c in module.computations for ins in c.instructions if ins.opcode == "call"]
    assert calls and all(c.kind == "called" for ins in calls for c in ins.called_computations)
    inside = [ins for call in calls for c in call.called_computations for ins in c.instructions if ins.source]
    assert inside and all(ins in module.made_by(ins.source) for ins in inside)
    sort = parse_hlo("""HloModule m
less {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT lt = pred[] compare(a, b), direction=LT
}
ENTRY e {
  p = f32[8] parameter(0)
  ROOT s = f32[8] sort(p), dimensions={0}, to_apply=less
}
""")
    assert sort.computation("less").kind == "comparator"


def test_stack_frames_resolve_to_the_python_call_chain(tmp_path):
    import jax
    import jax.numpy as jnp

    def inner(x):
        return jnp.sin(x) * 3

    def middle(x):
        return inner(x) + 1

    def outer(x):
        return middle(x) * 2

    text = jax.jit(outer).lower(jnp.ones(4)).compile().as_text()
    module = parse_hlo(text)
    sine = next(i for i in module.instructions() if i.opcode == "sine")
    functions = [f.function.rsplit(".", 1)[-1] for f in sine.stack]  # qualified names
    assert functions[:3] == ["inner", "middle", "outer"]
    assert sine.stack[0].file == __file__
    assert sine.source == (__file__, sine.stack[0].line)
    assert "return jnp.sin(x) * 3" in Path(__file__).read_text().splitlines()[sine.stack[0].line - 1]


def test_names_and_paths_beyond_ascii_read_back(tmp_path):
    """XLA writes a string's bytes beyond ASCII in octal (`attention_\\303\\251`): a name scope
    and a source file named in another alphabet read back as they were written."""
    import importlib.util

    import jax.numpy as jnp

    source = tmp_path / "modèle_été.py"
    source.write_text("import jax\n\ndef f(x):\n    with jax.named_scope('attention_é'):\n        return x * 2\n")
    spec = importlib.util.spec_from_file_location("model_ete", source)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    import jax

    text = jax.jit(module.f).lower(jnp.ones(3)).compile().as_text()
    assert "\\303\\251" in text
    op = next(i for i in parse_hlo(text).instructions() if i.opcode == "multiply")
    assert "/attention_é/" in op.metadata["op_name"] and op.source == (str(source), 5)
    assert op.stack[0].file == str(source)


def test_dangling_stack_frame_ids_are_harmless(corpus):
    # resnet50 has stack_frame_id= in metadata but no StackFrames section (SOURCES.md).
    module = parse_hlo((corpus / "hlo/xla_cpu_benchmarks/resnet50_keras_jax_f32.hlo").read_text())
    with_ids = [i for i in module.instructions() if "stack_frame_id" in i.metadata]
    assert with_ids and all(i.stack == [] for i in with_ids)


def test_stack_frame_tables_of_a_real_module(corpus):
    module = parse_hlo((corpus / "hlo/xla_benchmarks/hlo_torax_iterhybrid_predictor_corrector_f64.hlo").read_text())
    resolved = [i for i in module.instructions() if i.stack]
    assert len(resolved) > 1000
    for ins in resolved[:200]:
        assert all(frame.file.endswith(".py") or frame.file.startswith("<") for frame in ins.stack)
        assert ins.stack[0].line > 0


def test_operands_written_without_spaces_parse_as_xla_does():
    """XLA prints `a, b`; its parser also takes `a,b` and `a , b`, which hand-written HLO has."""
    text = """HloModule m, entry_computation_layout={(f32[4]{0},f32[4]{0})->(f32[4]{0},f32[4]{0})}
ENTRY e {
  a = f32[4]{0} parameter(0)
  b = f32[4]{0} parameter(1)
  s = f32[4]{0} add(a,b)
  m = f32[4]{0} multiply(s , b)
  ROOT t = (f32[4]{0}, f32[4]{0}) tuple(%s,%m)
}"""
    assert assert_matches_xla(text, "no spaces") == 5
    assert [o.name for o in parse_hlo(text).entry.root.operands] == ["s", "m"]


_BROKEN_LINES = """HloModule m

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY e {
  x = f32[4,8]{1,0} parameter(0)
  y = f32[4,8]{1,0} parameter(1)
  z = f32[] constant(0)
  m = f32[4,8]{1,0} multiply(
      x,
      y)
  ROOT r = f32[4]{0} reduce(m, z),
      dimensions={1},
      to_apply=add
}"""


def test_an_instruction_broken_over_lines_parses_as_xla_does():
    """XLA's parser reads tokens, not lines: hand-reformatted HLO breaks an operand list over
    lines (`multiply(\n x,\n y)`) or puts each attribute on a line after a trailing comma. Both
    were refused ("the operand list is never closed", "malformed shape"); a comma with nothing
    after it still says so."""
    assert assert_matches_xla(_BROKEN_LINES, "broken lines") == 8
    reduce = parse_hlo(_BROKEN_LINES).entry.root
    assert reduce.attr("dimensions") == "{1}" and reduce.attr("to_apply") == "add"
    dangling = _BROKEN_LINES.replace("      dimensions={1},\n      to_apply=add\n", "")
    err = _error(dangling)
    assert (err.line, err.problem) == (16, "the instruction ends in ',' and nothing follows it")


_COMMENTED = """/* a comment before the header */
HloModule m, entry_computation_layout={(f32[2]{0}, f32[2]{0})->f32[2]{0}}
/* between
   computations */
add {
  x = f32[] parameter(0) // a comment { with ( brackets
  y = f32[] parameter(1)
  ROOT z = f32[] add(x, y)
}

ENTRY e { // after the brace
  a = f32[2]{0} parameter(0)
  /* alone on its line */
  b = f32[2]{0} parameter(1)
  /* over
     two lines */ s = f32[2]{0} add(a, b)
  c = f32[] constant(0)
  r = f32[] reduce(s, c), dimensions={0}, to_apply=add, metadata={op_name="a//b" source_file="x.py"} // trailing
  ROOT m = f32[2]{0} multiply(s, /*rhs*/ b)
}"""


def test_comments_anywhere_xla_takes_them():
    """XLA's lexer skips `//` and `/* */` comments anywhere; hand-written and test HLO puts them
    on lines of their own, across lines and after braces, with brackets inside. A `//` inside a
    string is not one."""
    assert assert_matches_xla(_COMMENTED, "comments") == 9
    module = parse_hlo(_COMMENTED)
    reduce = next(i for i in module.instructions() if i.opcode == "reduce")
    assert reduce.metadata["op_name"] == "a//b" and reduce.metadata["source_file"] == "x.py"


def test_short_parsable_style_and_inline_operand_shapes(corpus):
    short = parse_hlo((corpus / "hlo/xla_cpu_benchmarks/jax.issue.33666.linx.slow_0428.module_0006.hlo").read_text())
    assert any(i.opcode == "while" for i in short.instructions())
    inline = parse_hlo((corpus / "hlo/xla_misc/mobilenet_v2_ptxla.hlo").read_text())
    conv = next(i for i in inline.instructions() if i.opcode == "convolution")
    assert all(op.name for op in conv.operands) and conv.attrs["dim_labels"]
    no_entry = parse_hlo((corpus / "hlo/xla_misc/large_loop_slow_compile_time.hlo").read_text())
    assert no_entry.entry is no_entry.computations[-1]


def test_attributes_decode_on_a_real_collective(corpus):
    module = parse_hlo((corpus / "hlo/xla_benchmarks/hlo_mixtral_8x7b_bf16_2x8.hlo").read_text())
    all_reduce = next(i for i in module.instructions() if i.opcode == "all-reduce")
    assert all_reduce.attrs["replica_groups"]
    assert all_reduce.called_computations and all_reduce.called_computations[0].kind == "reducer"
    custom = next(i for i in module.instructions() if i.opcode == "custom-call")
    assert custom.custom_call_target
    assert module.attributes["input_output_alias"].startswith("{")


def test_async_wrappers_and_start_done_pairs():
    """Hand-written (XLA on CPU emits no async ops): async-start/done around a wrapped
    computation on another thread, collective start/done pairs, a host-memory copy."""
    from jax._src.lib import xla_client

    text = (Path(__file__).parent / "hlo_edge_cases" / "async_ops.hlo").read_text()
    assert_matches_xla(text, "async_ops.hlo")
    # XLA prints it sugared (`sine-start`, the wrapped computation implied): that parses too
    sugared = parse_hlo(xla_client.hlo.hlo_module_from_text(text).to_string())
    assert sugared.instruction("async-start").opcode == "sine-start"
    assert [o.name for o in sugared.instruction("async-done").operands] == ["async-start"]
    module = parse_hlo(text)
    assert module.computation("wrapped_sine").kind == "async"
    assert module.computation("add").kind == "reducer"  # all-reduce-start's to_apply is no async body
    start = module.instruction("async-start")
    assert start.called_computations == [module.computation("wrapped_sine")]
    assert start.attrs["async_execution_thread"] == '"parallel"'
    assert module.instruction("all-reduce-start").attrs["control-predecessors"] == "{%all-gather-start}"
    assert module.instruction("copy-done").shape.memory_space == 5
    assert module.instruction("a").sharding.describe()


# -- errors: each one names its line and column --------------------------------------------


@pytest.fixture(scope="module")
def mlp_text(programs) -> str:
    return main_hlo(programs["mlp_grad"]).read_text()


def _error(text: str) -> HloParseError:
    with pytest.raises(HloParseError) as info:
        parse_hlo(text, "m.hlo")
    return info.value


def test_undefined_operand_is_located(mlp_text):
    lines = mlp_text.splitlines()
    index = next(k for k, line in enumerate(lines) if re.search(r" add\(%\w", line))
    name = re.search(r" add\(%([\w.]+)", lines[index]).group(1)
    lines[index] = lines[index].replace(f"add(%{name}", "add(%nowhere.7", 1)
    err = _error("\n".join(lines))
    assert err.line == index + 1 and "nowhere.7" in err.problem
    assert lines[index][err.column - 1 :].startswith("nowhere.7")
    assert str(err).startswith(f"m.hlo:{index + 1}:{err.column}: ")


def test_what_xlas_parser_refuses_in_a_real_module_is_located(mlp_text):
    """A real module made wrong as XLA's parser would refuse it (checked: it does): an operand
    used before it is defined (a cycle of two: `c` reads `b`, `b` reads `c`) at the operand, as
    XLA places it; a second ROOT. Calls of a computation the file lacks (XLA refuses those too,
    but a fused computation dumped alone names its reducers so) load, with a warning."""
    from jax._src.lib import xla_client

    lines = mlp_text.splitlines()

    def defined_after(k: int) -> list[str]:
        """Instructions defined after line k in its computation."""
        end = next(j for j in range(k, len(lines)) if lines[j].startswith("}"))
        return [m.group(1) for line in lines[k + 1:end] if (m := re.search(r"%([\w.]+) = ", line))]

    index = next(k for k, line in enumerate(lines) if re.search(r" add\(%\w", line) and defined_after(k))
    later = defined_after(index)[0]
    first = re.search(r" add\(%([\w.]+)", lines[index]).group(1)
    lines[index] = lines[index].replace(f"add(%{first}", f"add(%{later}", 1)
    forward = "\n".join(lines)
    with pytest.raises(Exception):
        xla_client.hlo.hlo_module_from_text(forward)
    err = _error(forward)
    assert err.line == index + 1 and f"operand {later!r} is used before it is defined" in err.problem
    assert lines[index][err.column - 1 :].startswith(later)

    lines = mlp_text.splitlines()
    root = next(k for k, line in enumerate(lines) if line.lstrip().startswith("ROOT")
                and " = " in lines[k - 1] and "parameter(" not in lines[k - 1])
    body = root - 1
    lines[body] = lines[body].replace(lines[body].lstrip(), "ROOT " + lines[body].lstrip(), 1)
    two_roots = "\n".join(lines)
    with pytest.raises(Exception):
        xla_client.hlo.hlo_module_from_text(two_roots)
    err = _error(two_roots)
    assert err.line == root + 1 and "a second ROOT" in err.problem

    fused = next(line for line in mlp_text.splitlines() if "calls=" in line)
    callee = re.search(r"calls=%?([\w.]+)", fused).group(1)
    dangling = mlp_text.replace(f"calls=%{callee}", "calls=%nowhere", 1).replace(f"calls={callee}", "calls=nowhere", 1)
    module = parse_hlo(dangling, "m.hlo")
    assert any("1 call of a computation not in the file, first 'nowhere'" in w for w in module.warnings)


def _call_chain(depth: int, cycle: bool = False, fusions: bool = False) -> str:
    """Hand-written edge case: ENTRY calls c0, c0 calls c1, ... down to c{depth - 2} (a chain
    of `depth` computations with the entry); with `cycle`, the last calls c0 again; with
    `fusions`, each is a loop fusion of the next instead of a call."""
    last = depth - 2

    def calling(callee: str) -> str:
        if fusions:
            return f"ROOT %k = f32[2]{{0}} fusion(f32[2]{{0}} %p), kind=kLoop, calls=%{callee}"
        return f"ROOT %k = f32[2]{{0}} call(f32[2]{{0}} %p), to_apply=%{callee}"

    parts = ["HloModule chain, is_scheduled=true", ""]
    for i in range(last, -1, -1):
        body = calling(f"c{i + 1}") if i < last else calling("c0") if cycle else "ROOT %n = f32[2]{0} negate(f32[2]{0} %p)"
        parts.append(f"%c{i} (p: f32[2]) -> f32[2] {{\n  %p = f32[2]{{0}} parameter(0)\n  {body}\n}}\n")
    parts.append(f"ENTRY %main (p: f32[2]) -> f32[2] {{\n  %p = f32[2]{{0}} parameter(0)\n  {calling('c0')}\n}}\n")
    return "\n".join(parts)


@pytest.mark.parametrize("fusions", [False, True], ids=["calls", "fusions"])
def test_calls_nested_past_the_limit_or_in_a_cycle_are_located(fusions):
    """Calls (or fusions) 128 computations deep load; deeper is refused at the instruction that
    passes the limit (1,500 deep ran Python's stack out in the cost model: a traceback), as is a
    cycle of them."""
    from tui.model.cost import module_cost
    from tui.model.hlo import MAX_CALL_DEPTH

    opcode = "fusion(" if fusions else "call("
    module = parse_hlo(_call_chain(MAX_CALL_DEPTH, fusions=fusions), "m.hlo")
    assert len(module.computations) == MAX_CALL_DEPTH
    assert module_cost(module).flops == 2  # the innermost negate, followed all the way down
    deep = _call_chain(1500, fusions=fusions)
    err = _error(deep)
    assert f"call one another more than {MAX_CALL_DEPTH} deep" in err.problem
    assert opcode in deep.splitlines()[err.line - 1]
    cycle = _call_chain(4, cycle=True, fusions=fusions)
    err = _error(cycle)
    assert "a cycle of calls" in err.problem and opcode in cycle.splitlines()[err.line - 1]


def test_malformed_shape_is_located(mlp_text):
    lines = mlp_text.splitlines()
    index = next(k for k, line in enumerate(lines) if " = f32[" in line and "ROOT" not in line)
    lines[index] = lines[index].replace(" = f32[", " = f32[x", 1)
    err = _error("\n".join(lines))
    assert err.line == index + 1 and "shape" in err.problem


def test_literal_that_does_not_fit_its_shape(mlp_text):
    lines = mlp_text.splitlines()
    entry = next(k for k, line in enumerate(lines) if line.startswith("ENTRY"))
    lines.insert(entry + 1, "  %bad.lit = f32[3]{0} constant({1, 2})")
    err = _error("\n".join(lines))
    assert err.line == entry + 2 and "2 elements" in err.problem


def test_unbalanced_brace_and_truncated_file(mlp_text):
    cut = mlp_text[: len(mlp_text) // 2]
    cut = cut[: cut.rindex("metadata={") + 12]  # stop inside a metadata block
    err = _error(cut)
    assert err.line == cut.count("\n") + 1
    assert "unbalanced" in err.problem or "end of file" in err.problem
    whole_lines = mlp_text[: mlp_text.rindex("\n}")]  # drop the last computation's closing brace
    err = _error(whole_lines)
    assert "not closed" in err.problem


def test_not_hlo_at_all():
    err = _error("allocation 0: size 4, parameter 0\n value: <1 p @0>")
    assert err.line == 1 and "not HLO" in err.problem


def test_unknown_opcodes_and_attributes_are_kept_raw():
    module = parse_hlo(
        "HloModule m\n\nENTRY %e (p: f32[4]) -> f32[4] {\n"
        "  %p = f32[4]{0} parameter(0)\n"
        "  ROOT %x = f32[4]{0} brand-new-op(%p), shiny_attr={a=1, b=\"2\"}\n}\n"
    )
    root = module.entry.root
    assert root.opcode == "brand-new-op" and root.attrs["shiny_attr"] == '{a=1, b="2"}'
    assert module.warnings == [
        "1 instruction with an opcode XLA does not know (brand-new-op), first at line 5: shown as elementwise, no cost"
    ]


_ASK_XLA = """
import sys
from jax._src.lib import xla_client
for opcode in sys.argv[1:]:
    shape = "(f32[2])" if opcode == "tuple" else "f32[2]"
    text = f"HloModule m\\nENTRY e {{ p = f32[2] parameter(0)\\n ROOT r = {shape} {opcode}(nosuch) }}"
    try:
        xla_client.hlo.hlo_module_from_text(text)
    except Exception as error:
        if f"Unknown opcode: {opcode}\\n" in str(error):
            print(opcode)
"""


def test_the_opcodes_we_know_are_the_ones_xla_parses():
    """XLA's parser is asked about each name (in a child process: a malformed instruction can
    abort it); a misspelt name is reported by both."""
    import subprocess
    import sys

    from tui.model.categories import OPCODES, is_opcode

    names = sorted(OPCODES) + ["sine-start", "mulitply", "top-k"]
    done = subprocess.run([sys.executable, "-c", _ASK_XLA, *names], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["mulitply", "top-k"]
    assert [name for name in names if not is_opcode(name)] == ["mulitply", "top-k"]
