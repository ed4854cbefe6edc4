"""Highlighting with each lexer state's rules joined into one regex gives Pygments' own tokens."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import FIXTURES, REPO
from pygments.lexer import RegexLexer
from pygments.lexers.python import PythonLexer
from pygments.token import Name, String, Text as TextToken
from rich.text import Text

from tui.hlo_lexer import HloLexer
from tui.model.workspace import read_hlo
from tui.widgets.highlight import _JoinedRules, highlight, token_style, tokens

HLO = HloLexer(stripnl=False)
PYTHON = PythonLexer(stripnl=False)


def hlo_texts(corpus: Path) -> list[str]:
    """Every HLO text file of the fixtures, whole and instruction by instruction, and each
    instruction of the corpus's dumps and small modules (its big benchmarks would take a minute)."""
    files = [(path, True) for path in sorted(FIXTURES.rglob("*.txt")) + sorted(FIXTURES.rglob("*.hlo"))]
    for folder in ("dumps", "xla_misc", "xla_cpu_benchmarks"):
        files += [(path, False) for path in sorted((corpus / "hlo" / folder).rglob("*")) if path.suffix in (".txt", ".hlo")]
    texts = []
    for path, whole in files:
        text = path.read_text(errors="replace")
        if "HloModule" not in text[:2000]:
            continue  # buffer assignments, live ranges, thunk listings
        texts += [text] if whole else []
        module = read_hlo(path)
        texts += [ins.text for comp in module.computations for ins in comp.instructions]
    return texts


def test_joined_hlo_rules_give_pygments_tokens(corpus):
    texts = hlo_texts(corpus)
    assert len(texts) > 5000 and _JoinedRules.of(HLO) is not None
    for text in texts:
        assert list(tokens(text, HLO)) == list(HLO.get_tokens(text)), text[:200]


def test_joined_python_rules_give_pygments_tokens():
    """The Python lexer (source excerpts) has rules in other flags (scoped to them once joined)
    and callbacks of groups (called on the rule's own match)."""
    sources = [path.read_text() for folder in ("tui", "examples") for path in sorted((REPO / folder).rglob("*.py"))]
    assert len(sources) > 50 and _JoinedRules.of(PYTHON) is not None
    for source in sources:
        assert list(tokens(source, PYTHON)) == list(PYTHON.get_tokens(source))


class _BackReference(RegexLexer):
    """Rules that refer to their own groups cannot be joined (the numbers move)."""

    tokens = {"root": [(r"(['\"]).*?\1", String), (r"\w+", Name), (r"\s+", TextToken)]}


def test_a_lexer_whose_rules_cannot_be_joined_is_left_to_pygments():
    lexer = _BackReference()
    assert _JoinedRules.of(lexer) is None
    text = "a 'b c' \"d\" e"
    assert list(tokens(text, lexer)) == list(lexer.get_tokens(text))
    assert ("'b c'" in [value for _, value in tokens(text, lexer)])


class _Quoted(RegexLexer):
    """No rule for a line's end (Pygments goes back to the root state there) nor for `!` (an
    error token), and a state entered and left."""

    tokens = {"root": [(r'"', String, "string"), (r"\w+", Name), (r" +", TextToken)],
              "string": [(r'[^"\n]+', String), (r'"', String, "#pop")]}


def test_states_line_ends_and_errors_as_pygments_has_them():
    lexer = _Quoted()
    text = 'a "b c\nd "e" f! "g'
    assert _JoinedRules.of(lexer) is not None
    assert list(tokens(text, lexer)) == list(lexer.get_tokens(text))
    assert ("Token.Error", "!") in [(str(token), value) for token, value in tokens(text, lexer)]


def styles(text: Text) -> list:
    """Each character's style (the last span over it wins, as in rendering)."""
    out = [None] * len(text.plain)
    for span in text.spans:
        for i in range(span.start, span.end):
            out[i] = span.style
    return out


@pytest.mark.parametrize("lexer, source", [
    (HLO, FIXTURES / "mlp.hlo"),
    (PYTHON, REPO / "examples" / "transformer.py"),
])
def test_highlight_colours_each_character_as_pygments_tokens_do(lexer, source):
    code = source.read_text()
    expected = Text()
    for token, value in lexer.get_tokens(code):
        expected.append(value, style=token_style(token))
    expected.rstrip()
    shown = highlight(code, lexer)
    assert shown.plain == expected.plain and styles(shown) == styles(expected)
    assert len(shown.spans) < len(expected.spans)  # runs of one style are one span
