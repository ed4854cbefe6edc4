"""HLO text -> HloModule: computations, instructions, operands, users, attributes, stack frames.

The parser reads one instruction per line with a regex for the common case and a careful
path for the rest (tuple shapes, nested layouts, inline operand shapes, multi-line text).
Names, opcodes, shapes and operands are parsed eagerly (shapes are shared through a cache);
attributes stay raw text until a screen asks for them. XLA's C++ parser is the oracle in tests.
"""

from __future__ import annotations

import gc
import re
from functools import cached_property

from tui.model import hlo_attrs
from tui.model.categories import is_opcode
from tui.model.errors import InputError
from tui.model.shapes import Shape, ShapeError, parse_shape, parse_shape_prefix
from tui.model.words import counted


_COMPUTATION_REF = re.compile(r"(?<![\w.\-])(" + "|".join(hlo_attrs.COMPUTATION_KEYS) + r")=(\{[^}]*\}|[^\s,{}]+)")


class HloParseError(InputError):
    """Malformed HLO text, with its 1-based line and column and the offending line."""

    def __init__(self, problem: str, line: int, column: int, line_text: str, path: str | None = None):
        self.line_text = line_text
        super().__init__(path, problem, line, column)

    def __str__(self) -> str:
        snippet = self.line_text.strip()
        if len(snippet) > 100:
            snippet = snippet[:97] + "..."
        return f"{super().__str__()}: {snippet}" if snippet else super().__str__()


class StackFrame:
    """One Python frame from the module's StackFrames table."""

    __slots__ = ("file", "function", "line", "column")

    def __init__(self, file: str, function: str, line: int, column: int):
        self.file, self.function, self.line, self.column = file, function, line, column

    def __repr__(self) -> str:
        return f"{self.file}:{self.line} in {self.function}"


class HloInstruction:
    __slots__ = (
        "name", "opcode", "shape", "operands", "computation", "index", "line_number",
        "_line", "_attr_at", "_arg", "_users", "_attrs", "_metadata", "__weakref__",
    )

    def __init__(self, name, opcode, shape, operands, line, attr_at, arg, line_number):
        self.name: str = name
        self.opcode: str = opcode
        self.shape: Shape = shape
        self.operands: list[HloInstruction] = operands
        self.computation: HloComputation = None  # set when the computation closes
        self.index: int = 0  # position in its computation (program order when scheduled)
        self.line_number: int = line_number
        self._line: str = line
        self._attr_at: int = attr_at
        self._arg: str | None = arg
        self._users: list[HloInstruction] | None = None
        self._attrs: dict[str, str] | None = None
        self._metadata: dict | None = None

    def __repr__(self) -> str:
        return f"<{self.opcode} {self.name}>"

    # -- text -----------------------------------------------------------------
    @property
    def text(self) -> str:
        """The instruction as it was printed (one line, whitespace-trimmed)."""
        return self._line.strip()

    @property
    def attr_text(self) -> str:
        return self._line[self._attr_at :]

    def computation_refs(self) -> list[tuple[str, str]]:
        """(attribute, computation name) for each computation the instruction names, read off its
        attribute text before the metadata (XLA prints them first) without parsing the attributes:
        the parse's depth check reads every fusion's, where a whole parse of each would cost a
        third of the module's parse."""
        line, start = self._line, self._attr_at
        end = line.find("metadata=", start)
        return [(key, name) for key, value in _COMPUTATION_REF.findall(line, start, len(line) if end < 0 else end)
                for name in (hlo_attrs.parse_name_list(value) if value[0] == "{" else (value.lstrip("%"),))]

    @property
    def attrs(self) -> dict[str, str]:
        """Every attribute, raw text values, in printed order."""
        if self._attrs is None:
            self._attrs = hlo_attrs.parse_attributes(self.attr_text)
        return self._attrs

    def attr(self, key: str) -> str | None:
        return self.attrs.get(key)

    # -- graph ----------------------------------------------------------------
    @property
    def users(self) -> list[HloInstruction]:
        if self._users is None:
            self.computation._compute_users()
        return self._users

    @property
    def is_root(self) -> bool:
        return self.computation.root is self

    @property
    def called_computations(self) -> list[HloComputation]:
        module = self.computation.module
        found = []
        for key in hlo_attrs.COMPUTATION_KEYS:
            value = self.attrs.get(key)
            if value:
                found.extend(c for c in (module.computation(n) for n in hlo_attrs.parse_name_list(value)) if c)
        return found

    # -- decoded attributes ---------------------------------------------------
    @property
    def metadata(self) -> dict:
        if self._metadata is None:
            raw = self.attrs.get("metadata")
            self._metadata = hlo_attrs.parse_metadata(raw) if raw else {}
        return self._metadata

    @property
    def op_name(self) -> str:
        return self.metadata.get("op_name", "")

    @property
    def stack(self) -> list[StackFrame]:
        """The Python stack that created this op, innermost frame first (empty if unknown)."""
        frame_id = self.metadata.get("stack_frame_id")
        return self.computation.module.stack(frame_id) if isinstance(frame_id, int) else []

    @property
    def source(self) -> tuple[str, int] | None:
        """(file, line) of the op: metadata's source_file/line, else the innermost stack frame."""
        md = self.metadata
        if md.get("source_file"):
            return md["source_file"], int(md.get("source_line", 0) or 0)
        stack = self.stack
        return (stack[0].file, stack[0].line) if stack else None

    @property
    def fusion_kind(self) -> str | None:
        return self.attrs.get("kind") if self.opcode == "fusion" else None

    @property
    def custom_call_target(self) -> str | None:
        value = self.attrs.get("custom_call_target")
        return hlo_attrs.unquote(value) if value else None

    @property
    def parameter_number(self) -> int | None:
        return int(self._arg) if self.opcode == "parameter" and self._arg and self._arg.strip().isdigit() else None

    @property
    def literal(self) -> str | None:
        """A constant's literal text as printed (`{...}` when XLA elided it)."""
        return self._arg if self.opcode == "constant" else None

    @property
    def sharding(self):
        raw = self.attrs.get("sharding")
        if raw is None:
            return None
        from tui.model.sharding import parse_sharding

        return parse_sharding(raw)


class HloComputation:
    __slots__ = ("name", "instructions", "root", "is_entry", "module", "signature", "line_number", "_by_name", "_users_done")

    def __init__(self, name, instructions, root, is_entry, signature, line_number, by_name):
        self.name: str = name
        self.instructions: list[HloInstruction] = instructions
        self.root: HloInstruction | None = root
        self.is_entry: bool = is_entry
        self.module: HloModule = None
        self.signature: str = signature
        self.line_number: int = line_number
        self._by_name: dict[str, HloInstruction] = by_name
        self._users_done = False

    def __repr__(self) -> str:
        return f"<computation {self.name} ({len(self.instructions)} instructions)>"

    def instruction(self, name: str) -> HloInstruction | None:
        return self._by_name.get(name.lstrip("%"))

    @property
    def parameters(self) -> list[HloInstruction]:
        params = [i for i in self.instructions if i.opcode == "parameter"]
        return sorted(params, key=lambda i: i.parameter_number or 0)

    @property
    def callers(self) -> list[HloInstruction]:
        return self.module.callers(self)

    @property
    def kind(self) -> str:
        """What calls it: entry, fusion, while body/condition, branch, reducer, call, async, ... or unused."""
        return self.module.computation_kind(self)

    def _compute_users(self) -> None:
        if self._users_done:
            return
        for ins in self.instructions:
            ins._users = []
        for ins in self.instructions:
            seen = set()
            for op in ins.operands:
                if id(op) not in seen:
                    seen.add(id(op))
                    op._users.append(ins)
        self._users_done = True


# Computations whose instructions run as ops of the program (the others are inside one op).
_PROGRAM_KINDS = frozenset({"entry", "while body", "while condition", "branch", "called", "async"})

# What each way of being called makes a computation, for `HloComputation.kind`.
_CALL_KIND = {
    "calls": "called", "to_apply": "reducer", "body": "while body", "condition": "while condition",
    "branch_computations": "branch", "true_computation": "branch", "false_computation": "branch",
    "called_computations": "called", "select": "select", "scatter": "scatter", "comparator": "comparator",
}


class HloModule:
    def __init__(self, name: str, header: str, computations: list[HloComputation], entry: HloComputation,
                 sections: dict[str, list[str]], path: str | None, warnings: list[str]):
        self.name = name
        self.header = header
        self.computations = computations
        self.entry = entry
        self.path = path
        self.warnings = warnings
        self._sections = sections
        self._by_name = {c.name: c for c in computations}
        for c in computations:
            c.module = self

    def __repr__(self) -> str:
        return f"<HloModule {self.name}: {len(self.computations)} computations>"

    # -- lookup ---------------------------------------------------------------
    def computation(self, name: str) -> HloComputation | None:
        return self._by_name.get(name.lstrip("%"))

    @cached_property
    def _instructions_by_name(self) -> dict[str, HloInstruction]:
        return {i.name: i for c in self.computations for i in c.instructions}

    def instruction(self, name: str) -> HloInstruction | None:
        """Instruction names are unique in a module; this finds one in any computation."""
        return self._instructions_by_name.get(name.lstrip("%"))

    def instructions(self):
        for c in self.computations:
            yield from c.instructions

    def made_by(self, source: tuple[str, int]) -> list[HloInstruction]:
        """The instructions one line of Python made (file, line), in program order, each
        computation's in turn; those inside an op's computation (a fusion's, a reducer) left out:
        the op stands for them."""
        return self._by_source.get(source, [])

    @cached_property
    def _by_source(self) -> dict[tuple[str, int], list[HloInstruction]]:
        found: dict[tuple[str, int], list[HloInstruction]] = {}
        for computation in self.computations:
            if computation.kind in _PROGRAM_KINDS:
                for ins in computation.instructions:
                    source = ins.source
                    if source is not None:
                        found.setdefault(source, []).append(ins)
        return found

    @cached_property
    def instruction_count(self) -> int:
        return sum(len(c.instructions) for c in self.computations)

    # -- header ---------------------------------------------------------------
    @cached_property
    def attributes(self) -> dict[str, str]:
        return hlo_attrs.parse_attributes(self.header)

    @property
    def is_scheduled(self) -> bool:
        return self.attributes.get("is_scheduled") == "true"

    # -- call graph -----------------------------------------------------------
    @cached_property
    def _callers(self) -> dict[str, list[tuple[HloInstruction, str]]]:
        callers: dict[str, list[tuple[HloInstruction, str]]] = {}
        for ins in self.instructions():
            for key, name in ins.computation_refs():
                callers.setdefault(name, []).append((ins, key))
        return callers

    def callers(self, computation: HloComputation) -> list[HloInstruction]:
        return [ins for ins, _ in self._callers.get(computation.name, [])]

    def computation_kind(self, computation: HloComputation) -> str:
        if computation is self.entry:
            return "entry"
        calls = self._callers.get(computation.name)
        if not calls:
            return "unused"
        ins, key = calls[0]
        if ins.opcode == "fusion":
            return "fusion"
        if ins.opcode.startswith("async-") and key == "calls":
            return "async"
        if key == "to_apply" and ins.opcode in ("call", "sort"):  # to_apply is a reducer's elsewhere
            return "called" if ins.opcode == "call" else "comparator"
        return _CALL_KIND.get(key, "called")

    # -- stack frames ---------------------------------------------------------
    @cached_property
    def _frames(self) -> tuple[dict[int, tuple[StackFrame, int]], bool]:
        """frame id -> (frame, parent id); parent 0 means none."""
        def table(name, pattern):
            out = {}
            for line in self._sections.get(name, []):
                m = re.match(pattern, line.strip())
                if m:
                    out[int(m.group(1))] = m.groups()[1:]
            return out

        files = {k: hlo_attrs.unquote(v[0]) for k, v in table("FileNames", r'(\d+)\s+(".*")$').items()}
        funcs = {k: hlo_attrs.unquote(v[0]) for k, v in table("FunctionNames", r'(\d+)\s+(".*")$').items()}
        locs = table("FileLocations", r"(\d+)\s+\{(.*)\}$")
        frames_raw = table("StackFrames", r"(\d+)\s+\{(.*)\}$")
        frames: dict[int, tuple[StackFrame, int]] = {}
        for fid, (body,) in frames_raw.items():
            f = hlo_attrs.parse_metadata(body)
            loc = hlo_attrs.parse_metadata(locs.get(int(f.get("file_location_id", 0)), ("",))[0])
            frame = StackFrame(
                files.get(int(loc.get("file_name_id", 0)), "?"),
                funcs.get(int(loc.get("function_name_id", 0)), "?"),
                int(loc.get("line", 0)),
                int(loc.get("column", 0)),
            )
            # XLA prints each frame's parent as (1-based parent id) + 1, so 1 means "no parent".
            frames[fid] = (frame, int(f.get("parent_frame_id", 1)) - 1)
        return frames

    def stack(self, frame_id: int) -> list[StackFrame]:
        """Frames from `frame_id` outwards; [] for an unknown (dangling) id."""
        out, seen = [], set()
        frames = self._frames
        while frame_id and frame_id in frames and frame_id not in seen:
            seen.add(frame_id)
            frame, parent = frames[frame_id]
            out.append(frame)
            frame_id = parent
        return out


# ---------------------------------------------------------------------------------------------
# The parser.

_NAME = r"[^\s=,(){}]+"
# `[ROOT ]%name = dtype[dims]{layout} opcode(` — the shape of almost every instruction line.
_FAST = re.compile(r"\s*(ROOT\s+)?%?(" + _NAME + r") = ([a-z][a-z0-9]*\[[^\]]*\](?:\{[^{}]*\})?) ([a-z][\w\-]*)\(")
_HEAD = re.compile(r"\s*(ROOT\s+)?%?(" + _NAME + r")\s*=\s*")
_NEW_INSTRUCTION = re.compile(r"\s*(ROOT\s+)?%?" + _NAME + r" = ")
_OPCODE = re.compile(r"\s*([a-z][\w\-]*)\(")
_COMMENT = re.compile(r"/\*.*?\*/")
_STRING_OR_LINE_COMMENT = re.compile(r'"(?:[^"\\]|\\.)*"|//')
_MODULE = re.compile(r"HloModule\s+([^\s,]+)\s*,?\s*(.*)$")
_SECTIONS = ("FileNames", "FunctionNames", "FileLocations", "StackFrames")
_QUOTED_OR_BRACKET = re.compile(r'"(?:[^"\\]|\\.)*"|[(){}\[\]]')
_LITERAL_ATOM = re.compile(r"\([^()]*\)|[^\s{},()]+")
_NO_OPERAND_ARG = frozenset(("constant", "parameter"))


def parse_hlo(text: str, path: str | None = None) -> HloModule:
    """Parse HLO text as XLA prints it (any version, `%` or not, with or without signatures)."""
    # Tens of thousands of new objects would trigger the cyclic GC dozens of times for nothing:
    # nothing created here is garbage yet.
    enabled = gc.isenabled()
    gc.disable()
    try:
        return _parse_module(text, path)
    finally:
        if enabled:
            gc.enable()


def _unknown_opcodes(computations: list[HloComputation]) -> list[str]:
    """A warning naming opcodes XLA does not know (a typo, or an XLA newer than this list):
    such ops load, drawn as elementwise with no cost rule."""
    unknown = [ins for comp in computations for ins in comp.instructions if not is_opcode(ins.opcode)]
    if not unknown:
        return []
    names = sorted({ins.opcode for ins in unknown})
    listed = ", ".join(names[:5]) + (", ..." if len(names) > 5 else "")
    count = counted(len(unknown), "instruction")
    return [f"{count} with an opcode XLA does not know ({listed}), first at line {unknown[0].line_number}:"
            " shown as elementwise, no cost"]


def _parse_module(text: str, path: str | None) -> HloModule:
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    n = len(lines)
    warnings: list[str] = []

    def error(problem: str, index: int, column: int = 0) -> HloParseError:
        line = lines[index] if 0 <= index < n else ""
        return HloParseError(problem, index + 1, column + 1, line, path)

    i = 0
    while i < n and (not lines[i].strip() or lines[i].lstrip().startswith(("//", "/*"))):
        i = _skip_block_comment(lines, i, error) if lines[i].lstrip().startswith("/*") else i + 1
    name, header = "module", ""
    if i < n and lines[i].startswith("HloModule"):
        m = _MODULE.match(lines[i])
        if m is None:
            raise error("expected 'HloModule <name>'", i)
        name, header = m.group(1), m.group(2)
        _check_balanced(header, lambda problem, col: error(problem, i, col + len(lines[i]) - len(header)))
        i += 1
    elif i < n and not lines[i].rstrip().endswith("{"):
        raise error("not HLO text: expected 'HloModule <name>' or a computation", i)
    else:
        warnings.append("no 'HloModule' header: loaded as a bare computation")

    sections: dict[str, list[str]] = {}
    computations: list[HloComputation] = []
    entry = None
    shape_cache: dict[str, Shape] = {}
    seen_names: set[str] = set()

    while i < n:
        line = lines[i]
        stripped = line.strip()
        if not stripped or stripped.startswith("//"):
            i += 1
            continue
        if stripped.startswith("/*"):
            i = _skip_block_comment(lines, i, error)
            continue
        if "//" in stripped:
            line = _code(lines, i)
            stripped = line.strip()
        if stripped in _SECTIONS:
            body = sections.setdefault(stripped, [])
            i += 1
            while i < n and lines[i].strip():
                body.append(lines[i])
                i += 1
            continue
        if not stripped.endswith("{"):
            raise error("expected a computation ('name {' or 'ENTRY name ... {')", i, len(line) - len(line.lstrip()))
        comp, i = _parse_computation(lines, i, shape_cache, error)
        if comp.name in seen_names:
            raise error(f"computation {comp.name!r} is defined twice", comp.line_number - 1)
        seen_names.add(comp.name)
        computations.append(comp)
        if comp.is_entry:
            if entry is not None:
                raise error("more than one ENTRY computation", comp.line_number - 1)
            entry = comp

    if not computations:
        raise error("no computations: the file ends after the module header", n - 1)
    if entry is None:
        entry = computations[-1]  # XLA's rule when nothing is marked ENTRY
        entry.is_entry = True
    warnings += _unknown_opcodes(computations)
    module = HloModule(name, header, computations, entry, sections, path, warnings)
    _check_call_depth(module, error)
    return module


MAX_CALL_DEPTH = 128  # computations deep; the model follows calls and fusions by recursion (XLA nests a few levels)
_CALLING = frozenset((  # the opcodes whose attributes name computations
    "call", "while", "conditional", "async-start", "fusion", "fusion-start", "map", "reduce", "reduce-window",
    "select-and-scatter", "scatter", "sort", "all-reduce", "all-reduce-start", "reduce-scatter", "custom-call"))


def _check_call_depth(module: HloModule, error) -> None:
    """HloParseError where computations nest (calls, loops, branches, fusions, reducers) more
    than MAX_CALL_DEPTH deep, or call one another in a cycle: refused by line, where following
    them would run Python's stack out. Calls of computations the file lacks are warned of."""
    callees: dict[HloComputation, list] = {}
    by_name = {comp.name: comp for comp in module.computations}
    missing = []
    for comp in module.computations:
        for ins in comp.instructions:
            if ins.opcode in _CALLING:
                for _, name in ins.computation_refs():
                    callee = by_name.get(name)
                    if callee is not None:
                        callees.setdefault(comp, []).append((ins, callee))
                    else:
                        missing.append((ins, name))
    if missing:  # XLA refuses such a module; a fused computation dumped alone names its reducers so
        ins, name = missing[0]
        module.warnings.append(f"{counted(len(missing), 'call')} of a computation not in the file, first {name!r} at line "
                               f"{ins.line_number}: shown without its body")
    height: dict[HloComputation, int] = {}
    for start in callees:
        if start in height:
            continue
        stack, on_path = [(start, 0)], {start}
        while stack:
            comp, k = stack.pop()
            edges = callees.get(comp, [])
            if k < len(edges):
                stack.append((comp, k + 1))
                ins, callee = edges[k]
                if callee in on_path:
                    raise error(f"a cycle of calls: {comp.name!r} calls {callee.name!r}, which leads back to it", ins.line_number - 1)
                if callee not in height:
                    on_path.add(callee)
                    stack.append((callee, 0))
                continue
            on_path.discard(comp)
            tallest = max(edges, key=lambda edge: height[edge[1]], default=None)
            height[comp] = 1 + (height[tallest[1]] if tallest else 0)
            if height[comp] > MAX_CALL_DEPTH:
                raise error(f"computations call one another more than {MAX_CALL_DEPTH} deep from here", tallest[0].line_number - 1)


def _parse_computation(lines, i, shape_cache, error):
    header_index = i
    header = lines[i].strip()[:-1].rstrip()
    is_entry = header.startswith("ENTRY")
    if is_entry:
        header = header[5:].lstrip()
    m = re.match(r"%?(" + _NAME + r")\s*(.*)$", header)
    if m is None:
        raise error("expected a computation name", i)
    comp_name, signature = m.group(1), m.group(2)

    instructions: list[HloInstruction] = []
    by_name: dict[str, HloInstruction] = {}
    root = None
    unresolved = False  # an operand not found above its instruction (see below)
    n = len(lines)
    fast = _FAST.match
    get_shape = shape_cache.get
    i += 1
    while True:
        if i >= n:
            raise error(f"unexpected end of file: computation {comp_name!r} (line {header_index + 1}) is not closed",
                        n - 1, len(lines[-1]))
        line = lines[i]
        if not line or line.isspace():
            i += 1
            continue
        first = line.lstrip()[0]
        if first == "}":
            break
        if first == "/" and line.lstrip().startswith("//"):
            i += 1
            continue
        if first == "/" and line.lstrip().startswith("/*"):
            i = _skip_block_comment(lines, i, error)
            continue
        if "//" in line:
            line = _code(lines, i)
        line_index = i
        # An instruction continues on the next line where its braces do not balance or it ends in
        # '(' or ',' (XLA's parser reads tokens, not lines: `add(\n x,\n y)`, `reduce(x, z),\n
        # dimensions={1}`); a missing ')' is caught where the operand list is read.
        if line.count("{") != line.count("}") or line.rstrip()[-1:] in ("(", ","):
            line, i = _join_continuation(lines, i, error)
        if "/*" in line:
            line = _COMMENT.sub("", line)

        m = fast(line)
        if m is not None:
            is_root, name, shape_text, opcode = m.groups()
            pos = m.end()
            shape = get_shape(shape_text)
            if shape is None:
                shape = _shape(shape_text, shape_cache, error, line_index, m.start(3))
        else:
            h = _HEAD.match(line)
            if h is None:
                raise error("expected an instruction 'name = shape opcode(operands)'", line_index, len(line) - len(line.lstrip()))
            is_root, name = h.group(1), h.group(2)
            try:
                shape, pos = parse_shape_prefix(line, h.end())
            except ShapeError as e:
                raise error(f"malformed shape: {e}", line_index, e.column) from None
            shape_text = line[h.end() : pos]
            shape = shape_cache.setdefault(shape_text, shape)
            o = _OPCODE.match(line, pos)
            if o is None:
                raise error("expected an opcode followed by '('", line_index, pos + 1)
            opcode = o.group(1)
            pos = o.end()

        close = line.find(")", pos)
        if close < 0:
            raise error("unbalanced '(': the operand list is never closed", line_index, pos - 1)
        segment = line[pos:close]
        if "(" in segment or '"' in segment:
            close = _matching_paren(line, pos - 1, error, line_index)
            segment = line[pos:close]
        if opcode in _NO_OPERAND_ARG:
            operands, arg = [], segment
            if opcode == "constant":
                _check_literal(segment, shape, error, line_index, pos)
        else:
            arg = None
            if not segment:
                operands = []
            elif "[" in segment or "(" in segment or " " in segment.replace(", ", ""):
                operands = _operand_names(segment)
            else:
                operands = segment.replace("%", "").replace(" ", "").split(",")
            if operands:
                try:  # XLA's parser reads an operand by a name it has seen: those defined above
                    operands = [by_name[op] for op in operands]
                except KeyError:
                    unresolved = True  # a newer XLA's `tuple#2`, or an operand that is not above
        ins = HloInstruction(name, opcode, shape, operands, line, close + 1, arg, line_index + 1)
        if name in by_name:
            raise error(f"instruction {name!r} is defined twice", line_index, line.find(name))
        by_name[name] = ins
        ins.index = len(instructions)
        instructions.append(ins)
        if is_root:
            if root is not None:
                raise error(f"a second ROOT in {comp_name!r} (the first is {root.name!r}, line {root.line_number})",
                            line_index, len(line) - len(line.lstrip()))
            root = ins
        i += 1

    if not instructions:
        raise error(f"computation {comp_name!r} has no instructions", i)
    if unresolved:
        names = [op for ins in instructions for op in ins.operands if isinstance(op, str)]
        if any("#" in op for op in names):
            instructions = _with_tuple_elements(instructions, by_name, shape_cache, error)
        else:
            ins = next(ins for ins in instructions if ins.operands and isinstance(ins.operands[0], str))
            missing = next(op for op in ins.operands if by_name.get(op) is None or by_name[op].index >= ins.index)
            column = ins._line.find(missing, ins._line.find("("))
            if missing in by_name:
                raise error(f"operand {missing!r} is used before it is defined (line {by_name[missing].line_number})",
                            ins.line_number - 1, column)
            raise error(f"undefined operand {missing!r}", ins.line_number - 1, column)
    for index, ins in enumerate(instructions):
        ins.index = index
    comp = HloComputation(comp_name, instructions, root or instructions[-1], is_entry, signature, header_index + 1, by_name)
    for ins in instructions:
        ins.computation = comp
    return comp, i + 1


def _with_tuple_elements(instructions, by_name, shape_cache, error):
    """Resolve every operand, making the get-tuple-elements that newer XLA prints inline.

    Since JAX 0.11, XLA writes a tuple element as the operand `%name#2` instead of printing a
    get-tuple-element line. Its parser turns each such operand back into a get-tuple-element
    placed just before its first user; so does this one, named as printed (`name#2`, nested
    `name#2#0`), so search, graph, cost and live ranges see the same instructions as in older dumps.
    """
    resolved = []
    for ins in instructions:
        operands = []
        for name in ins.operands:
            if isinstance(name, HloInstruction):
                operands.append(name)
                continue
            if name not in by_name:
                _make_tuple_element(name, ins, by_name, resolved, shape_cache, error)
            operands.append(by_name[name])
        ins.operands = operands
        resolved.append(ins)
    return resolved


def _make_tuple_element(name, user, by_name, resolved, shape_cache, error, written=None):
    """Define `tuple#i` (and `tuple#i#j`, ...) as get-tuple-elements in `resolved`, before `user`."""
    written = written or name
    where, column = user.line_number - 1, user._line.find(written)
    base, hash_, index_text = name.rpartition("#")
    if not hash_ or not index_text.isdigit() or not base:
        raise error(f"undefined operand {written!r}", where, column)
    if base not in by_name:
        _make_tuple_element(base, user, by_name, resolved, shape_cache, error, written)
    tuple_ins = by_name[base]
    index = int(index_text)
    elements = tuple_ins.shape.tuple_shapes
    if elements is None or index >= len(elements):
        raise error(f"operand {written!r}: {base!r} has no tuple element {index} (its shape is {tuple_ins.shape.text})",
                    where, column)
    shape = shape_cache.setdefault(elements[index].text, elements[index])
    line = f"  %{name} = {shape.text} get-tuple-element(%{base}), index={index}"
    element = HloInstruction(name, "get-tuple-element", shape, [tuple_ins], line, line.index(")") + 1, None,
                             user.line_number)
    by_name[name] = element
    resolved.append(element)


def _shape(text, cache, error, line_index, column):
    try:
        shape = parse_shape(text)
    except ShapeError as e:
        raise error(f"malformed shape {text!r}: {e}", line_index, column + e.column) from None
    cache[text] = shape
    return shape


def _depth_change(text: str) -> int:
    depth = 0
    for m in _QUOTED_OR_BRACKET.finditer(text):
        c = m.group()
        if c[0] == '"':
            continue
        depth += 1 if c in "({[" else -1
    return depth


def _check_balanced(text: str, fail) -> None:
    depth = 0
    for m in _QUOTED_OR_BRACKET.finditer(text):
        c = m.group()
        if c[0] == '"':
            continue
        depth += 1 if c in "({[" else -1
        if depth < 0:
            raise fail(f"unbalanced {c!r}", m.start())
    if depth:
        raise fail("unbalanced brackets", 0)


def _without_line_comment(line: str) -> str:
    """`line` up to a `//` comment outside its strings (brackets in a comment are not code)."""
    for m in _STRING_OR_LINE_COMMENT.finditer(line):
        if m.group(0) == "//":
            return line[: m.start()].rstrip()
    return line


def _skip_block_comment(lines: list[str], i: int, error) -> int:
    """Past a `/* ... */` comment that starts line `i` (it may span lines): the index of the
    line to read next, which holds what follows the comment on its last line, if anything."""
    start, at = i, lines[i].find("/*")
    while (end := lines[i].find("*/", at + 2 if i == start else 0)) < 0:
        i += 1
        if i >= len(lines):
            raise error("a /* comment is never closed", start, at)
    rest = lines[i][end + 2:]
    if rest.strip():
        lines[i] = rest
        return i
    return i + 1


def _code(lines: list[str], i: int) -> str:
    """Line `i` without a trailing `//` comment (kept so in `lines`, for what reads it again)."""
    line = lines[i]
    if "//" in line:
        line = lines[i] = _without_line_comment(line)
    return line


def _join_continuation(lines, i, error):
    """An instruction whose brackets don't balance on its line, or that ends in a comma,
    continues on the next ones."""
    start = i
    text = lines[i]
    depth = _depth_change(text)
    if depth < 0:
        raise error("unbalanced closing bracket", i, len(text) - len(text.lstrip()))
    while depth > 0 or text.rstrip().endswith(","):
        i += 1
        if i >= len(lines) or lines[i].strip() == "}" or _NEW_INSTRUCTION.match(lines[i]):
            problem = ("unbalanced brackets: this instruction is never closed (truncated file?)" if depth > 0
                       else "the instruction ends in ',' and nothing follows it")
            raise error(problem, start, len(lines[start]) - len(lines[start].lstrip()))
        nxt = _code(lines, i)
        text += " " + nxt.strip()
        depth += _depth_change(nxt)
    if depth < 0:
        raise error("unbalanced closing bracket", start, len(lines[start]) - len(lines[start].lstrip()))
    return text, i


def _matching_paren(line: str, open_at: int, error, line_index: int) -> int:
    depth = 0
    for m in _QUOTED_OR_BRACKET.finditer(line, open_at):
        c = m.group()
        if c[0] == '"':
            continue
        if c in "({[":
            depth += 1
        else:
            depth -= 1
            if depth == 0:
                return m.start()
    raise error("unbalanced '(' in operand list", line_index, open_at)


def _operand_names(segment: str) -> list[str]:
    """Operand names from a list that may carry inline shapes: `f32[2]{0} %a, (s32[], f32[]) %b`."""
    return [part.split()[-1].lstrip("%") for part in hlo_attrs.split_top_level(segment)]


def _check_literal(literal: str, shape: Shape, error, line_index: int, column: int) -> None:
    """A constant's literal must have as many elements as its shape (elided `{...}` is fine)."""
    text = literal.strip()
    if "..." in text or shape.is_tuple or not shape.is_array:
        return
    if not shape.dims:
        count = len(_LITERAL_ATOM.findall(text.strip("{} ")))
        if count != 1:
            raise error(f"literal {text[:40]!r} does not fit scalar shape {shape.text}", line_index, column)
        return
    if not text.startswith("{"):
        raise error(f"literal for {shape.text} must be a braced list", line_index, column)
    count = len(_LITERAL_ATOM.findall(text))
    if count != shape.element_count:
        raise error(f"literal has {count} elements but shape {shape.dims_text()} needs {shape.element_count}",
                    line_index, column)
