"""Pygments tokens straight into Rich Text, with one fixed palette.

rich.syntax.Syntax does the same with themes, padding and line-number layout, at several
times the cost; the details screen redraws on every selection, so it colours tokens itself.
"""

from __future__ import annotations

from pygments.lexer import Lexer
from pygments.token import Comment, Keyword, Name, Number, Operator, String, Token
from rich.style import Style
from rich.text import Text

_PALETTE = {
    Keyword: Style(color="#ff79c6", bold=True),
    Keyword.Type: Style(color="#f1fa8c"),
    Keyword.Constant: Style(color="#bd93f9"),
    Name.Function: Style(color="#50fa7b", bold=True),
    Name.Variable: Style(color="#8be9fd"),
    Name.Attribute: Style(color="#6fa8dc"),
    Name.Namespace: Style(color="#8be9fd", bold=True),
    Name.Builtin: Style(color="#8be9fd"),
    Name.Decorator: Style(color="#50fa7b"),
    Name.Class: Style(color="#50fa7b", bold=True),
    String: Style(color="#e6db74"),
    Number: Style(color="#bd93f9"),
    Operator: Style(color="#ff79c6"),
    Comment: Style(color="#8a8a8a", italic=True),
}
_CACHE: dict = {}


def token_style(token) -> Style | None:
    """The palette entry of the token type or its nearest ancestor."""
    if token not in _CACHE:
        found, at = None, token
        while at is not Token and found is None:
            found = _PALETTE.get(at)
            at = at.parent
        _CACHE[token] = found
    return _CACHE[token]


def highlight(code: str, lexer: Lexer) -> Text:
    text = Text()
    for token, value in lexer.get_tokens(code):
        text.append(value, style=token_style(token))
    text.rstrip()
    return text


def numbered(lines: list[str], first: int, marked: int, lexer: Lexer) -> Text:
    """Source lines with their numbers, the `marked` line flagged (the lexer must keep blank
    lines: `stripnl=False`)."""
    width = len(str(first + len(lines) - 1))
    body = highlight("\n".join(lines), lexer).split("\n", allow_blank=True)
    out = Text()
    for number, line in enumerate(body, first):
        flag = "❯" if number == marked else " "
        out.append(f"{flag} {number:>{width}} ", style="bold" if number == marked else "dim")
        out.append_text(line)
        out.append("\n")
    out.rstrip()
    return out
