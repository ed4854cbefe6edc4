"""`xla-tui script.py`: run a script in a child Python with XLA's dumps and the profiler on.

XLA reads `XLA_FLAGS` once per process, when JAX starts its backend, so the script runs in a
child interpreter of its own (see capture_child.py) with our dump flags appended to the
user's. Its output passes through live; the capture folder it leaves (dump, profile and a
manifest) opens like any saved capture. Ctrl-C stops the script, not us: what it compiled
until then still opens. SIGTERM and SIGHUP stop it the same way, and the capture is kept for
`xla-tui DIR`, but nothing opens: we were asked to end.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from tui.model.capture_child import DUMP_TO
from tui.model.capture_manifest import write_manifest
from tui.model.errors import InputError

# Text is what we read. Protos add nothing we show; XLA CPU writes its LLVM IR and object files
# with any dump, and no flag turns those off without turning off the HLO too.
DUMP_FLAGS = "--xla_dump_hlo_as_text"
CHILD_RESULT = ".child-result.json"


@dataclass
class CaptureResult:
    folder: Path
    exit_status: int
    temporary: bool  # made by us; `cleanup()` removes it
    manifest: dict
    stopped_by: int | None = None  # SIGTERM or SIGHUP, which stopped the script: xla-tui ends too

    def cleanup(self) -> None:
        if self.temporary:
            shutil.rmtree(self.folder, ignore_errors=True)


def capture_folder(save_to: str | os.PathLike | None) -> tuple[Path, bool]:
    """(folder, temporary): `save_to` (new or empty, created here) or a fresh temporary folder."""
    if save_to is None:
        return Path(tempfile.mkdtemp(prefix="xla-tui-capture-")), True
    folder = Path(save_to)
    if folder.exists() and not folder.is_dir():
        raise InputError(folder, "is a file; a capture is saved to a new or empty folder")
    if folder.exists() and any(folder.iterdir()):
        raise InputError(folder, "already exists and is not an empty folder; a capture is saved to a new or empty one")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise InputError(folder, f"cannot create the capture folder: {e.strerror or e}") from None
    return folder, False


def check_script(script: Path) -> None:
    """InputError unless `script` is a file to run."""
    if script.is_dir():
        raise InputError(script, "is a folder, not a script")
    if not script.is_file():
        raise InputError(script, "no such script")


def dump_flags(dump: Path) -> str:
    """Our flags for XLA_FLAGS. A folder with spaces is quoted, or XLA would dump into the folder
    named by its first word; inside "…", XLA's flag parser (parse_flags_from_env.cc) ends the
    value at a `"` and takes the character after a `\\` as it is, so both are escaped: any path
    passes."""
    text = str(dump)
    if any(c.isspace() for c in text):
        text = '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return f"--xla_dump_to={text} {DUMP_FLAGS}"


def capture_script(script: str | os.PathLike, args: list[str] | tuple[str, ...] = (),
                   save_to: str | os.PathLike | None = None, profile: bool = True, profile_python: bool = False,
                   profile_seconds: float | None = None, stdout_to_stderr: bool = False) -> CaptureResult:
    """Run `python script args...` with dumps (and a profile) going to a capture folder.

    The child gets this interpreter, the current directory and environment, and appends our
    flags to `XLA_FLAGS` only as its JAX starts a backend (a process the script starts before
    that would inherit them, and dump into the capture); with `stdout_to_stderr`, what it
    prints goes to our stderr (our stdout is for a JSON summary). Returns once the script has
    ended, however it ended.
    """
    script = Path(script)
    check_script(script)
    folder, temporary = capture_folder(save_to)
    flags = dump_flags((folder / "dump").resolve())
    config = {
        "flags": flags,
        "dump_dir": str((folder / "dump").resolve()),
        "profile_dir": str((folder / "profile").resolve()) if profile else None,
        "profile_python": profile_python,
        "profile_seconds": profile_seconds,
        "result": str((folder / CHILD_RESULT).resolve()),
    }
    env = dict(os.environ)  # our flags are not in it: the child adds them as its JAX starts, see capture_child
    yours = DUMP_TO.findall(os.environ.get("XLA_FLAGS", ""))
    env["JAX_ENABLE_COMPILATION_CACHE"] = "false"  # a persistent cache hit compiles nothing: XLA would dump only the text
    started = datetime.now(timezone.utc)
    t0 = time.perf_counter()
    command = [sys.executable, str(Path(__file__).with_name("capture_child.py")), json.dumps(config), str(script), *args]
    running: list[subprocess.Popen] = []
    try:
        with _signals_go_to_the_child(running) as stopped_by:
            running.append(subprocess.Popen(command, env=env, stdout=sys.stderr if stdout_to_stderr else None))
            status = _wait_passing_stops_on(running[0], stopped_by)
    except BaseException:  # we are ending (a failed start, a bug): so do the script and the folder
        for child in running:
            child.kill()
            child.wait()
        if temporary:
            shutil.rmtree(folder, ignore_errors=True)
        raise
    capture_seconds = time.perf_counter() - t0
    result = _read_child_result(folder / CHILD_RESULT)
    manifest = write_manifest(
        folder, "script", str(script), list(args), started,
        exit_status=status,
        seconds=round(result.get("seconds", capture_seconds), 3),
        capture_seconds=round(capture_seconds, 3),
        error=result.get("error"),
        profile_note=result.get("profile_note") or _missing_profile(profile, folder / "profile", result),
        notes=[f"XLA_FLAGS' own {flag} was overridden: the modules are in the capture's dump folder" for flag in yours[-1:]]
        + result.get("notes", [])
        + [f"the run was cut short: xla-tui got {signal.Signals(signum).name} while the script ran" for signum in stopped_by[:1]],
        xla_flags=f"{env.get('XLA_FLAGS', '')} {flags}".strip(),
    )
    return CaptureResult(folder, status, temporary, manifest, stopped_by[0] if stopped_by else None)


def _read_child_result(path: Path) -> dict:
    """What the child wrote about the run; nothing when it died before (os._exit, a signal)."""
    try:
        result = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    path.unlink()
    return result


def _missing_profile(wanted: bool, profile_dir: Path, child: dict) -> str | None:
    if not wanted or profile_dir.is_dir():
        return None
    if child and child.get("profile") is None:
        return "no profile: the script never started a JAX backend"
    return "no profile: the script ended before the profiler could write it"


def _wait_passing_stops_on(child: subprocess.Popen, stopped_by: list[int]) -> int:
    """The child's exit status; once SIGTERM or SIGHUP has come (`stopped_by`), the child is sent
    SIGINT, once, so that it ends as on Ctrl-C. Sent from here, not from the signal handler,
    which may run before the child is started."""
    told = False
    while True:
        try:
            return child.wait(timeout=0.1)
        except subprocess.TimeoutExpired:
            if stopped_by and not told:
                child.send_signal(signal.SIGINT)
                told = True


@contextlib.contextmanager
def _signals_go_to_the_child(running: list[subprocess.Popen]):
    """Ctrl-C reaches the whole foreground process group: the script gets KeyboardInterrupt
    and ends; we wait for it and open what it left. SIGTERM and SIGHUP (`kill`, a closed SSH
    session) reach us alone: they are yielded (the list grows) for the caller to stop the
    script as Ctrl-C would, and to end once the capture is saved. A second signal kills the
    scripts in `running` if they do not end. (A Python handler, not SIG_IGN, which the child
    would inherit.)"""
    stopped_by: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield stopped_by
        return
    received = []

    def on_signal(signum, frame):
        received.append(signum)
        if signum != signal.SIGINT:
            stopped_by.append(signum)
        if len(received) > 1:
            for child in running:
                child.kill()

    previous = {signum: signal.signal(signum, on_signal) for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    try:
        yield stopped_by
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
