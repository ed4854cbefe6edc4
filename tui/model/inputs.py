"""What the user pointed us at -> a Workspace.

One place decides what kind of input a path is (HLO text or proto, dump folder, saved
capture, profile file or logdir) so the CLI, the app and `--summary` agree.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Callable

from tui.model.capture_manifest import CAPTURE_MANIFEST, read_manifest
from tui.model.errors import NOT_A_FILE, InputError, missing
from tui.model.file_kind import named_kind
from tui.model.main_module import Runs, is_helper, module_runs, pick_main
from tui.model.workspace import ModuleEntry, Workspace

Progress = Callable[[str], None]

HLO_TEXT_SUFFIXES = (".hlo", ".txt", ".hlotxt", ".mlir.hlo")


def input_kind(path: Path) -> str:
    """'script', 'capture', 'dump', 'profile', 'hlo-folder', 'hlo-proto', 'hlo-text'; InputError if unknown."""
    try:
        os.stat(path)
    except PermissionError as e:
        raise InputError(path, f"cannot reach it: {e.strerror} (a folder on its path is closed to you)") from None
    except OSError:
        raise missing(path) from None
    if path.is_dir():
        try:
            return _folder_kind(path)
        except PermissionError as e:  # a folder we may not list, or not look inside
            raise InputError(path, f"cannot open the folder: {e.strerror}") from None
    if not path.is_file():  # reading a pipe or a device could wait, or go on, for ever
        raise InputError(path, NOT_A_FILE)
    if path.name.lower().endswith(".py"):
        return "script"
    named = named_kind(path)
    return "profile" if named in ("xplane", "json") else named


def _folder_kind(path: Path) -> str:
    with os.scandir(path):  # listing it needs read permission (looking inside, search permission)
        pass
    if (path / CAPTURE_MANIFEST).is_file():
        return "capture"
    from tui.model.dump import is_dump_folder

    if is_dump_folder(path):
        return "dump"
    if _find_profile_files(path):
        return "profile"
    if _hlo_files(path):
        return "hlo-folder"
    raise InputError(path, "folder holds no XLA dump (module_*), profile (*.xplane.pb, *trace.json*) or HLO files")


def _hlo_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if p.is_file() and p.name.endswith(HLO_TEXT_SUFFIXES + (".hlo.pb",)))


def _find_profile_files(folder: Path) -> list[Path]:
    """Profile files under a logdir (`plugins/profile/<run>/...`) or directly in the folder."""
    found = []
    for root, dirs, files in os.walk(folder):
        dirs.sort()
        for f in files:
            if f.endswith(".xplane.pb") or f.endswith("trace.json.gz") or f.endswith("trace.json"):
                found.append(Path(root) / f)
        if len(found) > 1000:
            break
    return found


def load_workspace(paths: list[str | os.PathLike], main: str | None = None, progress: Progress | None = None,
                   defer_profile_program: bool = False) -> Workspace:
    """Load every input into one Workspace. Raises InputError for the first bad input.

    With `defer_profile_program`, a profile opened alone comes back before its main program is
    parsed (the app shows the timeline meanwhile); load_profile_program finishes it."""
    say = progress or (lambda message: None)
    modules: list[ModuleEntry] = []
    traces = []  # profiles given as such (`--profile`)
    own = {}  # profiles found in a capture or dump -> whose: loaded where none is given
    warnings: list[str] = []
    capture = None
    captured = set()  # profiles a capture took: one it could not take is a warning, not an error
    for raw in paths:
        path = Path(raw)
        kind = input_kind(path)
        say(f"Reading {path} ({kind})")
        if kind == "script":
            raise InputError(path, "is a Python script: run `xla-tui script.py` to capture it (handled by the CLI)")
        if kind == "capture":
            capture = read_manifest(path)
            modules += _capture_modules(path, capture, warnings)
            profile = path / capture["profile"] if capture.get("profile") else None
            if profile is not None and profile.is_dir() and _find_profile_files(profile):
                own[profile] = "the capture's own profile"
                captured.add(profile)
        elif kind == "dump":
            modules += _dump_modules(path, warnings)
            if _find_profile_files(path):
                own[path] = "the profile in the dump folder"
        elif kind == "profile":
            traces.append(path)
        elif kind == "hlo-folder":
            for f in _hlo_files(path):
                modules.append(_file_module(f))
        else:
            modules.append(_file_module(path))

    if traces:  # one inside the folder (`dump/ --profile dump/run.xplane.pb`) is its own, picked
        warnings.extend(f"{whose} ({path}) was replaced by the profile given ({traces[0]})" for path, whose in own.items()
                        if not traces[0].resolve().is_relative_to(path.resolve()))
    traces = traces or list(own)
    trace = None
    if traces:
        from tui.model.trace import load_trace

        say(f"Loading profile {traces[0]}")
        try:
            trace = load_trace(traces[0])
        except InputError as e:
            if traces[0] not in captured:
                raise
            warnings.append(f"the run's profile is left out: {e}")  # a script that ran nothing on a device
        if len(traces) > 1:
            warnings.append(f"only the first profile was loaded ({traces[0]}); {len(traces) - 1} more ignored")
        if trace is not None:
            warnings.extend(trace.warnings)
    runs_from = trace
    if not modules and trace is not None:
        modules = _profile_modules(trace)
        runs_from = _runs_said_by(trace)
    main_entry = _pick_main(modules, main, runs_from) if modules else None
    if not defer_profile_program:
        main_entry = _parsed_program(modules, main_entry, main, runs_from, warnings, say)
    if main is not None and main_entry is None and modules:
        raise InputError(paths[0], f"no module matches --main {main!r} (have: {', '.join(m.label for m in modules[:8])}...)")
    ws = Workspace(modules, main_entry, trace, [str(p) for p in paths])
    ws.warnings.extend(warnings)
    ws.capture = capture
    if main_entry is not None and main_entry.span is None:
        say(f"Parsing {main_entry.label}")
        main_entry.load()
    if main_entry is not None and main_entry.loaded:  # what the parser passed over (an opcode XLA does not know)
        ws.warnings.extend(f"{main_entry.label}: {warning}" for warning in main_entry.load().warnings)
    return ws


def load_profile_program(ws: Workspace, main: str | None = None, progress: Progress | None = None) -> None:
    """Parse the main program of a profile opened alone (load_workspace deferred it): one the
    profile holds cut or bad is left out with a warning, and the next becomes the main module."""
    ws.main = _parsed_program(ws.modules, ws.main, main, _runs_said_by(ws.trace), ws.warnings,
                              progress or (lambda message: None))


def _runs_said_by(trace):
    """The trace that picks a profile's main program by how often it ran: a device profile, whose
    `XLA Modules` lines say so. A CPU profile's programs go by size (counting their runs would
    decode every event before the first frame)."""
    return trace if trace is not None and any(track.name == "XLA Modules" for track in trace.tracks) else None


def _parsed_program(modules: list[ModuleEntry], entry: ModuleEntry | None, main: str | None, runs_from,
                    warnings: list[str], say: Progress) -> ModuleEntry | None:
    """The main module, parsed where it is a profile's program; one it holds cut or bad is left
    out (from `modules`, with a warning) and the next one is tried."""
    while entry is not None and entry.span is not None:
        try:
            say(f"Parsing {entry.label}")
            entry.load()
            break
        except InputError as e:
            warnings.append(f"left out: {e}")
            modules.remove(entry)
            entry = _pick_main(modules, main, runs_from) if modules else None
    return entry


def _profile_modules(trace) -> list[ModuleEntry]:
    """The programs an xplane holds (tui/model/profile_programs.py), each once: what a profile
    opened alone shows on the graph, details and memory screens."""
    from tui.model.links import module_name

    entries: dict[str, ModuleEntry] = {}
    for path, program in trace.programs:
        if program.name not in entries:
            entries[program.name] = ModuleEntry(label=program.name, name=module_name(program.name), path=path,
                                                stage="after optimizations", span=(program.start, program.end))
    return list(entries.values())


def _file_module(path: Path) -> ModuleEntry:
    name = path.name
    for suffix in (".hlo.pb", ".pb") + HLO_TEXT_SUFFIXES:
        if name.endswith(suffix):
            name = name[: -len(suffix)]
            break
    if path.suffix != ".pb":
        _check_looks_like_hlo(path)
    return ModuleEntry(label=path.name, name=name, path=path)


def _check_looks_like_hlo(path: Path) -> None:
    """Fail fast with a clear line on a file that is plainly not HLO text (before a full parse)."""
    try:
        with open(path, "rb") as f:
            head = f.read(4096)
    except OSError as e:
        raise InputError(path, f"cannot read: {e.strerror or e}") from None
    if b"\0" in head:
        raise InputError(path, "binary data: not HLO text (expected a file starting with 'HloModule')")
    if not head.strip():
        raise InputError(path, "empty file: expected HLO text starting with 'HloModule'")


def _dump_modules(folder: Path, warnings: list[str]) -> list[ModuleEntry]:
    from tui.model.dump import scan_dump

    dump = scan_dump(folder)
    warnings.extend(dump.warnings)
    entries = []
    for m in dump.modules:
        hlo_path = m.hlo_path
        if hlo_path is None:
            continue
        after = hlo_path in (m.after_text, m.after_pb)
        other = (m.before_text or m.before_pb) if after else None
        entries.append(ModuleEntry(
            label=m.label, name=m.name, path=hlo_path,
            stage="after optimizations" if after else "before optimizations",
            other_stage_path=other, live_range_path=m.live_range, buffer_assignment_path=m.buffer_assignment,
        ))
    return entries


def _capture_modules(folder: Path, capture: dict, warnings: list[str]) -> list[ModuleEntry]:
    """The modules of a saved capture, with the compiled figures it kept for them."""
    from tui.model.dump import is_dump_folder

    if capture.get("profile_note"):
        warnings.append(capture["profile_note"])
    warnings.extend(capture.get("notes") or [])
    dump = folder / capture["dump"]
    if not is_dump_folder(dump):
        warnings.append(f"no modules: {dump} holds no XLA dump (nothing was compiled, or the folder is gone)")
        return []
    modules = _dump_modules(dump, warnings)
    for stats in capture.get("compiled", []):
        entry = next((m for m in modules if m.label == stats.get("module")), None)
        entry = entry or next((m for m in modules if m.name == stats.get("module")), None)
        if entry is not None:
            entry.compiled_stats = stats
    return modules


def _pick_main(modules: list[ModuleEntry], wanted: str | None, trace) -> ModuleEntry | None:
    """`--main` when given (of several modules it names, as two shapes of one jitted function
    are, the one the default would pick among them); else the module that ran most in the
    profile, else the largest, JAX's helper modules aside (see main_module)."""
    if wanted is not None:
        exact = [entry for entry in modules if entry.label == wanted]
        named = exact or [entry for entry in modules if wanted == entry.name or entry.label.startswith(wanted)
                          or entry.label.endswith("." + wanted)]
        if named:
            return named[0] if len(named) == 1 else _pick_main(named, None, trace)
        if wanted.isdigit():  # the module's number, as the dump's files have it (`module_0008`) or not (`8`)
            from tui.model.dump import label_parts

            numbered = [m for m in modules if (parts := label_parts(m.label)) and parts[0] == int(wanted)]
            return next((m for m in numbered if m.stage != "before optimizations"), numbered[0] if numbered else None)
        return None
    after = [m for m in modules if m.stage != "before optimizations"] or modules
    runs = module_runs(trace, [m.name for m in after]) if trace is not None and len(after) > 1 else None
    if runs:
        runs = _tied_runs_by_time(after, trace, _runs_by_label(after, trace, runs))
    return pick_main(after, name=lambda m: m.name, size=lambda m: m.size, runs=runs, runs_key=lambda m: m.label)


def _tied_runs_by_time(modules: list[ModuleEntry], trace, runs: dict[str, Runs]) -> dict[str, Runs]:
    """The user's modules that ran most and equally often, timed by their programs' events
    where the runs carry no device time (a host's dispatches: main_module.module_runs). An init
    and a whole-epoch scan each ran once: the larger module was the init's (jax.random inlined),
    the time was the epoch's."""
    own = [m for m in modules if m.label in runs and not is_helper(m.name)]
    top = max((runs[m.label].count for m in own), default=0)
    tied = [m for m in own if runs[m.label].count == top]
    if len(tied) < 2 or any(runs[m.label].total_ns for m in tied):
        return runs
    from tui.model.links import program_of
    from tui.model.main_module import program_time

    times = program_time(trace)
    return {**runs, **{m.label: Runs(top, times.get(program_of(m) or "", 0)) for m in tied}}


def _runs_by_label(modules: list[ModuleEntry], trace, runs: dict[str, Runs]) -> dict[str, Runs]:
    """Each module's runs: its name's (module_runs), or where modules share a name (a function
    compiled for two shapes: 20 train steps and one eval batch), its own program's, where the
    profile tells their programs apart (main_module.program_runs; one it has no runs of ran none)."""
    by_label = {m.label: runs[m.name] for m in modules if m.name in runs}
    names = [m.name for m in modules if m.name in runs]
    shared = {name for name in names if names.count(name) > 1}
    if shared:
        from tui.model.links import program_of
        from tui.model.main_module import program_runs

        counts = program_runs(trace)
        told_apart = {m.name for m in modules if m.name in shared and (program_of(m) or "") in counts}
        for m in modules:
            if m.name in told_apart:  # a program of the name that never ran (compiled ahead) ran 0 times
                by_label[m.label] = Runs(counts.get(program_of(m) or "", 0), 0)
    return by_label
