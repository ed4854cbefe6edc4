"""A Pygments lexer for XLA's HLO text, registered as `hlo` (so `pygmentize -l hlo` works too).

It colours what people scan for: instruction and computation names, opcodes, shapes with their
layouts, attribute keys, strings and numbers, `ROOT`/`ENTRY`, and comments.
"""

from __future__ import annotations

from pygments.lexer import RegexLexer, bygroups, include, words
from pygments.token import Comment, Keyword, Name, Number, Operator, Punctuation, String, Text, Whitespace

_DTYPES = (
    "pred", "s1", "s2", "s4", "s8", "s16", "s32", "s64", "u1", "u2", "u4", "u8", "u16", "u32", "u64",
    "f16", "bf16", "f32", "f64", "c64", "c128", "f8e5m2", "f8e4m3", "f8e4m3fn", "f8e4m3b11fnuz", "f8e3m4",
    "f8e5m2fnuz", "f8e4m3fnuz", "f8e8m0fnu", "f6e2m3fn", "f6e3m2fn", "f4e2m1fn", "token", "opaque",
)


class HloLexer(RegexLexer):
    name = "HLO"
    aliases = ["hlo"]
    filenames = ["*.hlo"]
    mimetypes = ["text/x-hlo"]

    tokens = {
        "root": [
            (r"\s+", Whitespace),
            (r"/\*.*?\*/", Comment.Multiline),
            (r"//.*?$", Comment.Single),
            (r"\b(HloModule)(\s+)([^\s,]+)", bygroups(Keyword.Namespace, Whitespace, Name.Namespace)),
            (words(("ENTRY", "ROOT"), suffix=r"\b"), Keyword),
            (words(("FileNames", "FunctionNames", "FileLocations", "StackFrames"), suffix=r"\b"), Keyword.Declaration),
            include("shape"),
            (r'"(\\\\|\\"|[^"])*"', String.Double),
            (r"%[\w.\-]+", Name.Variable),
            (r"[a-z][\w\-]*(?=\()", Name.Function),  # lookaheads, not bygroups: a callback per token is slow
            (r"[A-Za-z_][\w.\-]*(?==)", Name.Attribute),
            (r"=", Operator),
            (r"-?\d+(\.\d+)?(e[+-]?\d+)?\b", Number),
            (r"\b(true|false|inf|nan)\b", Keyword.Constant),
            (r"->|<=", Operator),
            (r"[{}()\[\],:;]", Punctuation),
            (r"[\w.\-]+", Text),
            (r".", Text),
        ],
        "shape": [
            (words(_DTYPES, prefix=r"\b", suffix=r"(\[)"), Keyword.Type, "dims"),
        ],
        "dims": [
            (r"[\d,<=?]+", Number.Integer),
            (r"\]\{", Keyword.Type, ("#pop", "layout")),
            (r"\]", Keyword.Type, "#pop"),
        ],
        "layout": [
            (r"[\d,]+", Number.Integer),
            (r"[:A-Z*#()]+", Keyword.Type),
            (r"\}", Keyword.Type, "#pop"),
        ],
    }
