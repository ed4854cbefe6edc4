"""The focus history behind Backspace: most recent first, no repeats, only this module's names."""

from __future__ import annotations

from conftest import FIXTURES

from tui.model.inputs import load_workspace


def test_push_and_pop_in_order():
    ws = load_workspace([str(FIXTURES / "transformer")])
    assert ws.hlo is not None  # parses the main module
    for name in ("dot.35", "dot.35", "ynn_fusion.32", "not-in-this-module", "copy.96"):
        ws.push_focus(name)
    assert ws.focus_history == ["dot.35", "ynn_fusion.32", "not-in-this-module", "copy.96"]
    assert ws.pop_focus() == "copy.96"
    assert ws.pop_focus() == "ynn_fusion.32"  # a name the module does not have is dropped
    assert ws.pop_focus() == "dot.35"
    assert ws.pop_focus() is None


def test_selecting_another_loaded_modules_instruction_opens_that_module(corpus):
    """A profile's tables and roofline hold the ops of every program it ran: choosing one of
    another program selects it in its own module (the selection named it in the module open)."""
    ws = load_workspace([corpus / "traces" / "tracelens_jax08_rocm_attention.xplane.pb"])
    other = next(e for e in ws.modules if e is not ws.main and e.name != ws.main.name)
    ins = next(i for i in other.load().entry.instructions if ws.hlo.instruction(i.name) is None)
    selection = ws.select(instruction=ins)
    assert (selection.module, selection.computation, selection.instruction) == (other.label, ins.computation.name, ins.name)
    assert ws.instruction is ins
