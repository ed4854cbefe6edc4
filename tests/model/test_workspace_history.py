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
