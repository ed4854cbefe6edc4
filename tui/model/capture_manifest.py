"""The small JSON file that makes a folder a saved capture: what ran, how it ended, which files.

Written by `capture.py` (scripts) and `capture_function.py` (functions), read by `inputs.py`,
shown by `--summary` and the app's error banner. Paths inside are relative to the capture
folder, so a saved capture can be moved or copied to another machine.

Keys: `format`, `kind` ("script" or "function"), `script` (the script or the function's
name), `args`, `cwd`, `started` (ISO time), `exit_status` (0 ok, 1 raised, negative: killed
by that signal), `seconds` (the script's own run time), `capture_seconds` (all of it: the
interpreter's start and the profile's export too), `error` (the traceback, or null),
`dump` and `profile` (folders; profile null when none was taken), `profile_note` (why a
profile is short or missing), `notes` (what else the run did otherwise than asked), `xla_flags` (the
environment's XLA_FLAGS and the capture's dump flags after them, added as the script's JAX starts),
`compiled` (per module label: `memory_analysis` and `cost_analysis` figures), `files`
(every file, relative).
"""

from __future__ import annotations

import json
import os
import re
from datetime import datetime
from pathlib import Path

from tui.model.errors import InputError

CAPTURE_MANIFEST = "xla-tui-capture.json"
FORMAT = 1
REQUIRED = ("script", "exit_status", "dump")


def write_manifest(folder: Path, kind: str, script: str, args: list[str], started: datetime, **fields) -> dict:
    """Write the manifest last, listing every file the capture holds; returns it.

    `fields`: exit_status, seconds, capture_seconds, error, profile_note, notes, xla_flags, compiled.
    """
    files = sorted(str(Path(root, f).relative_to(folder)) for root, _, names in os.walk(folder) for f in names)
    manifest = {
        "format": FORMAT, "kind": kind, "script": script, "args": args, "cwd": os.getcwd(),
        "started": started.isoformat(timespec="seconds"), "error": None, "profile_note": None, "notes": [], "compiled": [],
        **fields,
        "dump": "dump", "profile": "profile" if (folder / "profile").is_dir() else None,
        "files": [f for f in files if f != CAPTURE_MANIFEST],
    }
    (folder / CAPTURE_MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n")
    return manifest


def read_manifest(folder: Path) -> dict:
    """The manifest of a capture folder; InputError if it is not one we can read."""
    path = folder / CAPTURE_MANIFEST
    try:
        manifest = json.loads(path.read_text())
    except OSError as e:
        raise InputError(path, f"cannot read: {e.strerror or e}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise InputError(path, f"not a capture manifest (bad JSON: {e})") from None
    if not isinstance(manifest, dict) or any(key not in manifest for key in REQUIRED):
        raise InputError(path, f"not a capture manifest: needs the keys {', '.join(REQUIRED)}")
    for key, value in manifest.items():
        wrong = _wrong_type(key, value)
        if wrong:
            raise InputError(path, f"not a capture manifest: {key!r} {wrong}, not {json.dumps(value)[:60]}")
    if manifest.get("format", FORMAT) > FORMAT:
        raise InputError(path, f"written by a newer xla-tui (format {manifest['format']}; this one reads {FORMAT})")
    return manifest


_NUMBER = (int, float)
_KINDS = {  # key -> (what it must be, in words; the types that are that; may it be null)
    "format": ("a whole number", int, False), "exit_status": ("a whole number", int, True),
    "seconds": ("a number", _NUMBER, True), "capture_seconds": ("a number", _NUMBER, True),
    "kind": ("text", str, False), "script": ("text", str, False), "cwd": ("text", str, True),
    "started": ("text", str, True), "error": ("text", str, True), "profile_note": ("text", str, True),
    "xla_flags": ("text", str, True), "dump": ("a folder's name", str, False), "profile": ("a folder's name", str, True),
    "args": ("a list of text", list, False), "notes": ("a list of text", list, False),
    "files": ("a list of text", list, False), "compiled": ("a list of figures per module", list, False),
}


def _wrong_type(key: str, value) -> str | None:
    """What `value` should have been, where the manifest's `key` does not hold what xla-tui wrote
    there (a hand-edited or foreign file): said as such, not as the Python error it would cause."""
    if key not in _KINDS:
        return None  # a key of a newer xla-tui: not read
    words, kind, nullable = _KINDS[key]
    if value is None:
        return None if nullable else f"should be {words}"
    if isinstance(value, bool) or not isinstance(value, kind):
        return f"should be {words}"
    if kind is list:
        if key == "compiled":
            if not all(_is_compiled_entry(entry) for entry in value):
                return "should be a list of {\"module\": name, \"memory_analysis\": {...}, \"cost_analysis\": {...}}"
        elif not all(isinstance(item, str) for item in value):
            return f"should be {words}"
    return None


def _is_compiled_entry(entry) -> bool:
    """One module's `memory_analysis()` / `cost_analysis()` figures, as capture_function writes them."""
    if not isinstance(entry, dict) or not isinstance(entry.get("module"), str):
        return False
    figures = [entry.get(key, {}) for key in ("memory_analysis", "cost_analysis")]
    return all(isinstance(f, dict) and all(isinstance(v, _NUMBER) and not isinstance(v, bool) for v in f.values())
               for f in figures)


_JAX_NOTE = "For simplicity, JAX has removed its internal frames"  # after a line of dashes, at a traceback's end
_LIBRARY = re.compile(r"[/\\](site|dist)-packages[/\\]|[/\\]lib[/\\]python3\.\d+[/\\]")  # an installed package's file


def error_tail(manifest: dict, lines: int = 3) -> str:
    """Where and what of the script's error: the traceback's last frame in the user's code, not
    an installed package's (`File "train.py", line 5, in step`), and the last lines of its
    message, without Python's ^^^ marks under the source line or JAX's note on the frames it
    left out; else a line about how it ended."""
    error = (manifest.get("error") or "").strip()
    if error:
        text = error.splitlines()
        note = next((k for k in range(1, len(text)) if text[k].startswith(_JAX_NOTE) and set(text[k - 1]) == {"-"}), None)
        text = [line for line in text[: note - 1 if note else None] if line.strip() and not set(line.strip()) <= set("^~")]
        frames = [k for k, line in enumerate(text) if line.lstrip().startswith('File "')]
        if not frames:
            return "\n".join(text[-lines:])
        own = [k for k in frames if not _LIBRARY.search(text[k])]  # the user's code, not JAX's (a shape error in jnp)
        where = text[(own or frames)[-1]].strip()
        what = [line for line in text[frames[-1] + 1 :] if not line.startswith("    ")]  # its source line left out
        return "\n".join([where, *what[-(lines - 1):]])
    status = manifest.get("exit_status")
    if status is None or status == 0:
        return ""
    return f"the script was {how_it_ended(status)}" if status < 0 else f"the script exited with status {status}"


def how_it_ended(status: int | None) -> str:
    """`exit status 3`, or for a script a signal ended (a negative status), `killed by SIGABRT`."""
    if status is None or status >= 0:
        return f"exit status {status}"
    import signal

    try:
        return f"killed by {signal.Signals(-status).name}"
    except ValueError:
        return f"killed by signal {-status}"
