"""Group the files of an `--xla_dump_to` folder by module.

XLA names every file `[<prefix>.]module_NNNN.<module name>.<suffix>`, where the module name and
some suffixes contain dots (`SyncTensorsGraph.147.sm_8.0_gpu_after_optimizations.txt`), so a name
cannot be split on its own. The stage files (`before_optimizations.*`, `<platform>_after_
optimizations.*`, `debug_options`) and the per-module folder end in suffixes we know; they give
each number its module names, and every other file goes to the longest such name it starts with.
Only file names are read (one `os.scandir`), so folders with thousands of files open at once.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from tui.model.errors import InputError

# `prefix.` is a timestamp (--xla_dump_include_timestamp) or a computation name; lazy, so a
# module name that itself contains "module_" does not move the split.
_MODULE_FILE = re.compile(r"(?:.*?\.)?module_(?P<number>\d{4,})(?:\.(?P<rest>.+))?")

_PLATFORM = r"[A-Za-z]\w*(?:\.\d\w*)*"  # cpu, sm_8.0_gpu, gfx942_gpu: a dot only before a digit
_SIDECAR = r"-buffer-assignment|-buffer-assignment-values|-live-range|-memory-usage-report"
_EXTENSION = (
    r"(?:\.hlo\.pb|\.top_level\.html|\.txt|\.pb|\.pbtxt|\.dot|\.html|\.url|\.riegeli|\.fdo_profile|\.json)(?:\.gz)?"
)
_STAGE_FILE = re.compile(
    rf"(?:(?P<name>.*)\.)?(?:(?P<before>before_optimizations)|(?:(?P<platform>{_PLATFORM})_)?after_optimizations)"
    rf"(?P<sidecar>{_SIDECAR})?(?P<ext>{_EXTENSION})"
)
_FIXED_SUFFIX = re.compile(r"(?:(?P<name>.*)\.)?debug_options")

# (stage, sidecar, extension) -> DumpModule field
_ROLES = {
    ("before", "", ".txt"): "before_text",
    ("before", "", ".hlo.pb"): "before_pb",
    ("after", "", ".txt"): "after_text",
    ("after", "", ".hlo.pb"): "after_pb",
    ("after", "-buffer-assignment", ".txt"): "buffer_assignment",
    ("after", "-live-range", ".txt"): "live_range",
    ("after", "-memory-usage-report", ".txt"): "memory_report",
}


@dataclass
class DumpModule:
    """One compiled module: its HLO at each stage, XLA's memory files and everything else."""

    number: int | None
    name: str
    platform: str = ""
    before_text: Path | None = None
    after_text: Path | None = None
    before_pb: Path | None = None
    after_pb: Path | None = None
    buffer_assignment: Path | None = None
    live_range: Path | None = None
    memory_report: Path | None = None
    other: list[Path] = field(default_factory=list)

    @property
    def label(self) -> str:
        number = "module" if self.number is None else f"module_{self.number:04d}"
        return f"{number}.{self.name}" if self.name else number

    @property
    def hlo_path(self) -> Path | None:
        """The most useful HLO to open: optimized text, optimized proto, then the unoptimized ones."""
        return self.after_text or self.after_pb or self.before_text or self.before_pb

    @property
    def size(self) -> int:
        return _file_size(self.hlo_path)

    def paths(self) -> list[Path]:
        roles = [getattr(self, role) for role in _ROLES.values()]
        return [p for p in roles if p is not None] + self.other


@dataclass
class DumpFolder:
    path: Path
    modules: list[DumpModule]
    warnings: list[str]


def label_parts(label: str) -> tuple[int, str] | None:
    """(number, name) of a module's `label` (`module_0012.jit_f`), or None for another label."""
    m = _module_match(label)
    return (int(m["number"]), m["rest"]) if m else None


def is_dump_folder(path: str | os.PathLike) -> bool:
    """True for a folder holding at least one `module_NNNN.*` entry; stops at the first."""
    try:
        with os.scandir(path) as entries:
            return any(_module_match(entry.name) for entry in entries)
    except OSError:
        return False


def _is_dir(entry: os.DirEntry) -> bool:
    """Whether an entry is a folder; a link that cannot be followed (round in a loop) is none."""
    try:
        return entry.is_dir()
    except OSError:
        return False


def scan_dump(path: str | os.PathLike) -> DumpFolder:
    """Group a dump folder's files per module (which of them is the user's program is
    main_module's choice: it asks the profile too)."""
    folder = Path(path)
    try:
        with os.scandir(folder) as it:
            entries = list(it)
    except OSError as err:
        raise InputError(folder, f"cannot list the dump folder: {err.strerror or err}") from None
    if not entries:
        raise InputError(folder, "the folder is empty; expected files written by --xla_dump_to")

    warnings: list[str] = []
    named: list[tuple[os.DirEntry, int, str]] = []
    anchors: dict[tuple[int, str], DumpModule] = {}
    stray = 0
    for entry in entries:
        m = _module_match(entry.name)
        if m is None:
            stray += not _is_dir(entry)  # a folder beside the modules (a profile, say) is no stray file
            continue
        number, rest = int(m["number"]), m["rest"]
        anchor = _anchor(rest, _is_dir(entry))
        if anchor is None:
            named.append((entry, number, rest))
            continue
        name, role, platform = anchor
        module = anchors.setdefault((number, name), DumpModule(number, name))
        _place(module, role, platform, entry, warnings)
    if not anchors:
        raise InputError(folder, "no module_NNNN.<name>.* files: not an --xla_dump_to folder")

    names_by_number: dict[int, list[str]] = {}
    for number, name in anchors:
        names_by_number.setdefault(number, []).append(name)
    for names in names_by_number.values():
        names.sort(key=len, reverse=True)
    for entry, number, rest in named:
        name = _owner(rest, names_by_number.get(number, []))
        if name is None:
            warnings.append(f"{entry.name}: matches no module in the folder")
        else:
            anchors[(number, name)].other.append(Path(entry.path))
    if stray:
        warnings.append(f"left out {stray} file{'s' * (stray != 1)} not named module_NNNN.*")

    modules = _merge_unnamed(anchors, names_by_number, warnings)
    for module in modules:
        module.other.sort(key=str)
    modules.sort(key=lambda m: (-1 if m.number is None else m.number, m.name))
    return DumpFolder(folder, modules, warnings)


def _module_match(name: str) -> re.Match | None:
    m = _MODULE_FILE.fullmatch(name)
    return m if m is not None and m["rest"] else None


def _anchor(rest: str, is_dir: bool) -> tuple[str, str | None, str] | None:
    """(module name, DumpModule field or None for `other`, platform) for a file whose suffix we know."""
    if is_dir:  # PJRT writes module_NNNN.<name>/ with the compile inputs
        return rest, None, ""
    m = _STAGE_FILE.fullmatch(rest) if "optimizations" in rest else None
    if m is not None:
        stage = "before" if m["before"] else "after"
        role = _ROLES.get((stage, m["sidecar"] or "", m["ext"]))
        return m["name"] or "", role, m["platform"] or ""
    m = _FIXED_SUFFIX.fullmatch(rest) if rest.endswith("debug_options") else None
    if m is not None:
        return m["name"] or "", None, ""
    return None


def _owner(rest: str, names: list[str]) -> str | None:
    """The longest module name that `rest` starts with; "" (a name XLA dropped) matches anything."""
    return next((n for n in names if not n or rest == n or rest.startswith(n + ".")), None)


def _place(module: DumpModule, role: str | None, platform: str, entry: os.DirEntry, warnings: list[str]) -> None:
    path = Path(entry.path)
    if role is None:
        module.other.append(path)
        return
    _assign(module, role, path, warnings)
    if not role.startswith("before"):
        module.platform = module.platform or platform


def _assign(module: DumpModule, role: str, path: Path, warnings: list[str]) -> None:
    if getattr(module, role) is not None:
        warnings.append(f"{path.name}: {module.label} already has a {role.replace('_', ' ')} file; kept as other")
        module.other.append(path)
        return
    setattr(module, role, path)


def _merge_unnamed(
    anchors: dict[tuple[int, str], DumpModule], names_by_number: dict[int, list[str]], warnings: list[str]
) -> list[DumpModule]:
    """XLA drops the module name from file names longer than 255 characters; give those files back
    to the module when the number has exactly one named module."""
    modules = []
    for (number, name), module in anchors.items():
        names = names_by_number[number]
        if name or len(names) != 2:
            modules.append(module)
            continue
        target = anchors[(number, names[0])]
        for role in _ROLES.values():
            path = getattr(module, role)
            if path is not None:
                _assign(target, role, path, warnings)
        target.other.extend(module.other)
        target.platform = target.platform or module.platform
    return modules


def _file_size(path: Path | None) -> int:
    try:
        return 0 if path is None else path.stat().st_size
    except OSError:  # removed since the scan
        return 0

