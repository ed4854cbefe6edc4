"""Pygments tokens straight into Rich Text, with one fixed palette.

rich.syntax.Syntax does the same with themes, padding and line-number layout, at several
times the cost; the details screen redraws on every selection, so it colours tokens itself.

A Pygments RegexLexer tries its state's rules one by one at each position, a regex call per
rule: on HLO, where most tokens are matched by the tenth rule or later, that is most of the
details page's highlighting. `tokens` asks once per token instead: each state's rules joined
into one regex of ordered alternatives, which Python's `re` tries in the same order and takes
the first that matches, as Pygments does (the same tokens: tested on every instruction of the
fixtures and the corpus). A lexer whose rules cannot be joined is left to Pygments.
"""

from __future__ import annotations

import re

from pygments.lexer import Lexer, RegexLexer
from pygments.token import Comment, Error, Keyword, Name, Number, Operator, String, Token, Whitespace, _TokenType
from rich.style import Style
from rich.text import Span, Text

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


class _JoinedRules:
    """A RegexLexer's states, each one regex: (the regex, per alternative its rule)."""

    _known: dict[type, _JoinedRules | None] = {}

    def __init__(self, lexer: RegexLexer):
        self.states = {}
        flags = re.compile("", lexer.flags).flags
        for state, rules in lexer._tokens.items():
            patterns = [rexmatch.__self__ for rexmatch, _, _ in rules]
            joined = re.compile("|".join(f"(?P<_{k}>{_scoped(p, flags)})" for k, p in enumerate(patterns)), flags)
            rule_of = {joined.groupindex[f"_{k}"]: rule for k, rule in enumerate(rules)}
            self.states[state] = (joined.match, rule_of)

    @classmethod
    def of(cls, lexer: Lexer) -> _JoinedRules | None:
        """The lexer's rules joined (made once per lexer class); None where Pygments must lex."""
        kind = type(lexer)
        if kind not in cls._known:
            try:
                cls._known[kind] = cls(lexer) if isinstance(lexer, RegexLexer) else None
            except (re.error, ValueError, AttributeError):
                cls._known[kind] = None
        return cls._known[kind] if not lexer.filters else None

    def tokens(self, lexer: RegexLexer, text: str):
        """(token type, text) as `lexer.get_tokens_unprocessed` yields them, index left out."""
        states, pos, stack = self.states, 0, ["root"]
        match, rule_of = states["root"]
        while True:
            m = match(text, pos)
            if m is not None:
                rexmatch, action, new_state = rule_of[m.lastindex]
                if type(action) is _TokenType:
                    yield action, m.group(m.lastindex)
                elif action is not None:
                    for _, token, value in action(lexer, rexmatch(text, pos)):
                        yield token, value
                pos = m.end()
                if new_state is not None:
                    _transition(stack, new_state)
                    match, rule_of = states[stack[-1]]
            elif pos >= len(text):
                return
            elif text[pos] == "\n":  # no rule at a line's end: back to the root state
                stack = ["root"]
                match, rule_of = states["root"]
                yield Whitespace, "\n"
                pos += 1
            else:
                yield Error, text[pos]
                pos += 1


_SCOPED = {re.IGNORECASE: "i", re.MULTILINE: "m", re.DOTALL: "s", re.VERBOSE: "x"}
_GLOBAL_FLAGS = re.compile(r"^\(\?[aiLmsux]+\)")
_GROUP_REFERENCE = re.compile(r"\\[1-9]|\(\?P=|\(\?\(")  # \1, (?P=name), (?(1)yes|no)


def _scoped(pattern: re.Pattern, flags: int) -> str:
    """A rule's pattern as an alternative of a regex compiled with `flags`: its own flags, where
    they differ, scoped to it (`(?i:...)`)."""
    if _GROUP_REFERENCE.search(pattern.pattern):  # group numbers move once rules are joined
        raise ValueError(f"{pattern.pattern!r} refers to a group")
    on, off = pattern.flags & ~flags, flags & ~pattern.flags
    if (on | off) & ~sum(_SCOPED):
        raise ValueError(f"flags {on | off} of {pattern.pattern!r} cannot be scoped")
    text = _GLOBAL_FLAGS.sub("", pattern.pattern, count=1)  # in pattern.flags already
    if not on and not off:
        return text
    letters = "".join(_SCOPED[f] for f in _SCOPED if on & f) + ("-" + "".join(_SCOPED[f] for f in _SCOPED if off & f) if off else "")
    return f"(?{letters}:{text})"


def _transition(stack: list[str], new_state) -> None:
    """A rule's state change, as RegexLexer makes it."""
    if isinstance(new_state, tuple):
        for state in new_state:
            if state == "#pop":
                if len(stack) > 1:
                    stack.pop()
            elif state == "#push":
                stack.append(stack[-1])
            else:
                stack.append(state)
    elif isinstance(new_state, int):
        del stack[max(1, len(stack) + new_state) if abs(new_state) < len(stack) else 1:]
    elif new_state == "#push":
        stack.append(stack[-1])


def tokens(code: str, lexer: Lexer):
    """`lexer.get_tokens(code)`, with a RegexLexer's rules joined (see module doc)."""
    joined = _JoinedRules.of(lexer)
    if joined is None:
        return lexer.get_tokens(code)
    return joined.tokens(lexer, lexer._preprocess_lexer_input(code))


def highlight(code: str, lexer: Lexer) -> Text:
    """`code` coloured by the palette: one span per run of characters of one style."""
    values, spans, at, run_start, run_style = [], [], 0, 0, None
    for token, value in tokens(code, lexer):
        style = _CACHE[token] if token in _CACHE else token_style(token)
        if style is not run_style:
            if run_style is not None and at > run_start:
                spans.append(Span(run_start, at, run_style))
            run_start, run_style = at, style
        values.append(value)
        at += len(value)
    if run_style is not None and at > run_start:
        spans.append(Span(run_start, at, run_style))
    text = Text("".join(values), spans=spans)
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
