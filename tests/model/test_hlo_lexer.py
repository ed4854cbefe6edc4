"""The HLO Pygments lexer: registered as `hlo`, lossless, and tagging what people scan for."""

from __future__ import annotations

import subprocess
import sys

from conftest import FIXTURES
from pygments.lexers import get_lexer_by_name
from pygments.token import Error, Keyword, Name, String

from tui.hlo_lexer import HloLexer

FILES = sorted(FIXTURES.glob("*/*after_optimizations.txt")) + sorted(FIXTURES.glob("*/*before_optimizations.txt")) + [
    FIXTURES / "mlp.hlo"]


def test_registered_under_its_name():
    assert isinstance(get_lexer_by_name("hlo"), HloLexer)


def test_every_fixture_lexes_losslessly_without_errors():
    lexer = HloLexer()
    for path in FILES:
        text = path.read_text()
        tokens = list(lexer.get_tokens(text))
        assert "".join(value for _, value in tokens).rstrip("\n") == text.rstrip("\n"), path.name
        assert not [value for token, value in tokens if token in Error], path.name


def test_tokens_of_a_real_collective():
    line = next(line for line in (FIXTURES / "sharded" / "module_0000.jit_train_step.cpu_after_optimizations.txt")
                .read_text().splitlines() if " all-reduce(" in line)
    tokens = [(token, value) for token, value in HloLexer().get_tokens(line) if value.strip()]
    assert (Name.Variable, "%all-reduce") in tokens
    assert (Name.Function, "all-reduce") in tokens
    assert (Keyword.Type, "f32[") in tokens
    assert (Name.Attribute, "replica_groups") in tokens
    assert any(token in String for token, value in tokens if "jit(train_step)" in value)


def test_pygmentize_finds_it():
    result = subprocess.run([sys.executable, "-m", "pygments", "-l", "hlo", "-f", "html", str(FIXTURES / "mlp.hlo")],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert '<span class="nf">dot</span>' in result.stdout
