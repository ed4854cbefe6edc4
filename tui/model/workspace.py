"""The one model every screen reads: the loaded modules, the profile, and the selection.

Screens hold no data of their own. They read the Workspace and change the selection through
`Workspace.select`, which tells every listener, so a choice made in one screen is the choice
in all of them.
"""

from __future__ import annotations

import dataclasses
import os
import threading
from codecs import BOM_UTF8
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from tui.model.errors import InputError, open_regular
from tui.model.hlo import HloInstruction, HloModule, parse_hlo
from tui.model.memory_room import HLO_TEXT_FACTOR, check_room


@dataclass(frozen=True)
class Selection:
    """What the user is looking at. Names, not objects, so it is cheap to compare and print."""

    module: str | None = None  # ModuleEntry.label
    computation: str | None = None
    instruction: str | None = None
    event: tuple[int, int] | None = None  # (track index, event index) in the trace
    time_range: tuple[int, int] | None = None  # ns
    buffer: str | None = None  # defining instruction of the selected buffer (with shape index)
    program_point: int | None = None  # index into the module's program order (memory screen: XLA's flattened schedule)


@dataclass
class ModuleEntry:
    """One HLO module the user can open; parsed on first use."""

    label: str
    name: str
    path: Path
    stage: str = ""  # "after optimizations" / "before optimizations" / ""
    other_stage_path: Path | None = None
    live_range_path: Path | None = None
    buffer_assignment_path: Path | None = None
    compiled_stats: dict = field(default_factory=dict)  # memory_analysis / cost_analysis from a capture
    span: tuple[int, int] | None = None  # a program a profile holds: where its HloProto lies in `path`
    _hlo: HloModule | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def loaded(self) -> bool:
        return self._hlo is not None

    def load(self) -> HloModule:
        """Parse (once) and return the module; InputError if the file is bad."""
        with self._lock:
            if self._hlo is None:
                try:
                    self._hlo = read_hlo(self.path, self.span)
                except InputError as e:
                    if self.span is None:
                        raise
                    raise InputError(self.path, f"its program {self.label}: {e.problem}", e.line, e.column) from None
            return self._hlo

    @property
    def size(self) -> int:
        if self.span is not None:
            return self.span[1] - self.span[0]
        try:
            return self.path.stat().st_size
        except OSError:
            return 0


def read_hlo(path: str | os.PathLike, span: tuple[int, int] | None = None) -> HloModule:
    """An HLO text file or `.pb` (or the proto in `span` of a file) -> HloModule, with one
    clear InputError for bad files."""
    path = Path(path)
    name = path.name
    if name.endswith(".pb") or span is not None:
        from tui.model.hlo_proto import hlo_text_from_proto

        return parse_hlo(hlo_text_from_proto(path, span), str(path))
    return parse_hlo(read_text(path, what="HLO text"), str(path))


MAX_TEXT_BYTES = 2 << 30


def read_text(path: Path, what: str) -> str:
    """The file's text. A binary file is told from its first 64 KiB, and then one too big for
    the memory that is free (tui/model/memory_room.py), before the rest is read."""
    try:
        with open_regular(path) as f:
            size = os.fstat(f.fileno()).st_size
            if size > MAX_TEXT_BYTES:
                raise InputError(path, f"too large to load as {what} ({size / 2**30:.1f} GiB; the limit is {MAX_TEXT_BYTES >> 30} GiB)")
            if b"\0" in f.read(65536):
                raise InputError(path, f"binary data, not {what}")
            check_room([path], size * HLO_TEXT_FACTOR)
            f.seek(0)
            data = f.read()
    except OSError as e:
        raise InputError(path, f"cannot read: {e.strerror or e}") from None
    data = data.removeprefix(BOM_UTF8)  # UTF-8's byte order mark, which Windows editors write first
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line_start = data.rfind(b"\n", 0, e.start) + 1
        line = data.count(b"\n", 0, line_start) + 1
        column = len(data[line_start : e.start].decode("utf-8")) + 1  # characters: the text before it is UTF-8
        raise InputError(path, f"not UTF-8 text (byte 0x{data[e.start]:02x})", line=line, column=column) from None


Listener = Callable[["Selection", "Selection"], None]
MAX_HISTORY = 200


class Workspace:
    """Modules, trace and selection, plus what went wrong while loading them."""

    def __init__(self, modules: list[ModuleEntry] | None = None, main: ModuleEntry | None = None, trace=None,
                 sources: list[str] | None = None):
        self.modules: list[ModuleEntry] = modules or []
        self.main: ModuleEntry | None = main or (self.modules[0] if self.modules else None)
        self.trace = trace
        self.sources: list[str] = sources or []
        self.warnings: list[str] = []
        self.errors: list[str] = []
        self.capture: dict | None = None  # manifest of a script capture (script, args, exit status, error)
        self.selection = Selection(module=self.main.label if self.main else None)
        self.focus_history: list[str] = []  # instructions the graph was centred on, oldest first
        self._listeners: list[Listener] = []
        self._other_stages: dict[str, ModuleEntry] = {}  # label -> the same module at its other stage
        self.derived: dict[str, tuple] = {}  # what several screens work out from the same inputs: name -> (inputs, result)

    # -- modules --------------------------------------------------------------
    def module(self, label: str | None) -> ModuleEntry | None:
        for entry in self.modules:
            if entry.label == label:
                return entry
        for entry in self._other_stages.values():
            if entry.label == label:
                return entry
        return None

    def other_stage(self, entry: ModuleEntry) -> ModuleEntry | None:
        """The same module before optimizations when `entry` is the optimized one the dump also
        has it for (or back again). Made on first use and kept out of `modules`, which holds one
        row per module (the summary's list)."""
        found = self._other_stages.get(entry.label)
        if found is None and entry.other_stage_path is not None and entry.stage == "after optimizations":
            found = ModuleEntry(label=f"{entry.label} (before optimizations)", name=entry.name,
                                path=entry.other_stage_path, stage="before optimizations")
            self._other_stages[entry.label], self._other_stages[found.label] = found, entry
        return found

    @property
    def parsed(self) -> bool:
        """Whether the main module is parsed (a profile opened alone comes before its program:
        inputs.load_profile_program)."""
        return self.main is None or self.main.loaded

    @property
    def current(self) -> ModuleEntry | None:
        """The module the selection is in."""
        return self.module(self.selection.module) or self.main

    @property
    def hlo(self) -> HloModule | None:
        entry = self.current
        return entry.load() if entry else None

    @property
    def instruction(self) -> HloInstruction | None:
        """The selected instruction, resolved in the current module."""
        if not self.selection.instruction or self.current is None or not self.current.loaded:
            return None
        return self.hlo.instruction(self.selection.instruction)

    # -- focus history --------------------------------------------------------
    def push_focus(self, name: str) -> None:
        """Remember an instruction the user was centred on, for going back (Backspace)."""
        if not self.focus_history or self.focus_history[-1] != name:
            self.focus_history.append(name)
            del self.focus_history[:-MAX_HISTORY]

    def pop_focus(self) -> str | None:
        """The most recent remembered instruction of the current module (older ones of other modules are dropped)."""
        while self.focus_history:
            name = self.focus_history.pop()
            if self.current is not None and self.current.loaded and self.hlo.instruction(name) is not None:
                return name
        return None

    # -- selection ------------------------------------------------------------
    def subscribe(self, listener: Listener) -> Callable[[], None]:
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def select(self, **changes) -> Selection:
        """Change the selection and tell every listener; selecting an instruction sets its computation."""
        ins = changes.get("instruction")
        if isinstance(ins, HloInstruction):
            changes["instruction"] = ins.name
            changes.setdefault("computation", ins.computation.name)
            module, current = ins.computation.module, self.current
            if current is None or not current.loaded or current.load() is not module:  # selects run on every key
                home = next((e.label for e in self.modules if e.loaded and e.load() is module), None)
                if home is not None:  # an instruction of another loaded module (a profile's other program): that module
                    changes.setdefault("module", home)
        elif ins and "computation" not in changes and self.current is not None and self.current.loaded:
            found = self.hlo.instruction(ins)
            if found is not None:
                changes["computation"] = found.computation.name
        if changes.get("instruction", self.selection.instruction) != self.selection.instruction:
            changes.setdefault("buffer", None)  # a buffer chosen is an instruction's: another's is not chosen
        if "module" in changes and changes["module"] != self.selection.module:
            changes.setdefault("computation", None)
            changes.setdefault("instruction", None)
            changes.setdefault("program_point", None)
            changes.setdefault("buffer", None)
        old, new = self.selection, dataclasses.replace(self.selection, **changes)
        if new != old:
            self.selection = new
            for listener in list(self._listeners):
                listener(old, new)
        return new
