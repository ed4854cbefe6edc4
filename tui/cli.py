"""`xla-tui [OPTIONS] TARGET [SCRIPT_ARGS...]`: open the UI, or print `--summary`.

Kept free of heavy imports: `xla-tui --help` must answer at once and never load JAX.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shlex
import sys

USAGE = "xla-tui [OPTIONS] TARGET [SCRIPT_ARGS...]"
DESCRIPTION = """\
Explore XLA programs in the terminal: op graph, op details, memory and timeline.

TARGET is one of:
  script.py               run it, capture every compiled program and a profile, open them
  module.hlo / .txt       HLO text (any XLA version), e.g. *after_optimizations.txt
  module.hlo.pb           a serialized HloProto / HloModuleProto
  DUMP_DIR                an --xla_dump_to folder (the largest module opens; --main picks one)
  *.xplane.pb             a profile; also trace.json(.gz), perfetto_trace.json.gz,
  LOGDIR                  a TensorBoard/JAX logdir (plugins/profile/<run>/)
  CAPTURE_DIR             a folder saved with --save from an earlier capture

Everything after a script TARGET is passed to the script, so xla-tui's options go before it;
with any other TARGET they may go before or after it.
"""


def build_parser(script: bool = True) -> argparse.ArgumentParser:
    """The command line; with `script` false, for a TARGET that is not a script: no SCRIPT_ARGS,
    so options may follow TARGET (`xla-tui dump/ --summary`)."""
    p = _Parser(prog="xla-tui", usage=USAGE, description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter,
                allow_abbrev=False)  # `--profile-sec 2 train.py --summary`: what follows a script is its own (_target_index)
    p.add_argument("target", metavar="TARGET", help="what to open (see above)")
    if script:
        p.add_argument("script_args", nargs=argparse.REMAINDER, metavar="SCRIPT_ARGS", help="arguments for a script TARGET")
    else:
        p.set_defaults(script_args=[])
    p.add_argument("--summary", action="store_true", help="print what was loaded instead of opening the UI")
    p.add_argument("--json", action="store_true", help="with --summary: print one JSON object")
    p.add_argument("--main", metavar="MODULE", help="the module to open first (name, label or number)")
    p.add_argument("--profile", metavar="PATH", action="append", default=[],
                   help="also load this profile (xplane.pb, trace JSON or logdir) beside TARGET")
    p.add_argument("--save", metavar="DIR", help="script TARGET: keep the capture in DIR (reopen with `xla-tui DIR`)")
    p.add_argument("--no-profile", action="store_true", help="script TARGET: do not run the profiler")
    p.add_argument("--profile-seconds", metavar="S", type=_positive_seconds,
                   help="script TARGET: stop the profiler S seconds after JAX starts (keeps long runs' traces small)")
    p.add_argument("--profile-python", action="store_true",
                   help="script TARGET: also trace Python function calls (the script runs about 2x slower)")
    p.add_argument("--version", action="version", version="xla-tui 0.1.0")
    return p


class _Parser(argparse.ArgumentParser):
    """A usage mistake is one line, like any other bad input (argparse adds the whole usage)."""

    def error(self, message: str):
        message = message.replace(", SCRIPT_ARGS", "")  # argparse counts the optional remainder as required
        self.exit(2, f"xla-tui: {message} (see xla-tui --help)\n")


MOST_PROFILE_SECONDS = 7 * 24 * 3600  # a week: past that (inf, 1e300) the profiler's timer cannot be set


def _positive_seconds(text: str) -> float:
    try:
        seconds = float(text)
    except ValueError:
        seconds = -1.0
    if not 0 < seconds <= MOST_PROFILE_SECONDS:
        raise argparse.ArgumentTypeError(f"expected a number of seconds above 0 and at most {MOST_PROFILE_SECONDS:,} "
                                         f"(a week), got {text!r}")
    return seconds


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    at = _target_index(argv)
    if at is not None and _is_script(argv[at]):  # what follows a script is its own, as given (a `--` too)
        args = build_parser(script=False).parse_args(argv[: at + 1])
        args.script_args = argv[at + 1:]
    else:
        args = build_parser(script=False).parse_args(argv)
    if args.json and not args.summary:
        print("xla-tui: --json only goes with --summary", file=sys.stderr)
        return 2
    from tui.model.errors import InputError

    capture = None
    try:
        if "" in (args.target, *args.profile):  # Path("") is the folder xla-tui runs in: not what was meant
            where = " to --profile" if "" in args.profile else ""
            raise InputError(None, f"an empty path given{where}: name a file or folder")
        if not args.summary and not is_terminal():
            return _no_terminal(args)
        _check_profiles(args.profile)
        capture = _capture(args)  # first: the script runs with the user's environment as it is
        if capture is not None and capture.stopped_by:  # `kill`, a closed SSH session: the capture is kept, nothing opens
            return 128 + capture.stopped_by
        # XLA's C++ logging would write over the UI and the summary.
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        paths = ([str(capture.folder)] if capture else [args.target]) + args.profile
        if args.summary:
            return _print_summary(paths, args, _script_status(capture),
                                  str(capture.folder) if capture is not None and capture.temporary else None)
        from tui.app import XlaTuiApp

        app = XlaTuiApp(*paths, main=args.main)
        _end_cleanly_on_hangup(app)
        app.run()
        if app.load_error:
            raise InputError(None, app.load_error)
        return app.return_code or _script_status(capture) or 0
    except InputError as e:
        from tui.model.file_kind import told

        print(f"xla-tui: {told(e)}", file=sys.stderr)
        if capture is not None and capture.temporary:  # the run is not thrown away for a mistyped --main
            capture.temporary = False
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `xla-tui --summary … | head`: the reader has what it wanted
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # nothing left to flush at exit
        return 0
    except Exception as e:  # noqa: BLE001 - odd input that broke a reader: one line, as the app says it
        from tui.model.errors import unreadable

        inputs = ([str(capture.folder)] if capture else [args.target]) + args.profile
        print(f"xla-tui: {unreadable(inputs, e)}", file=sys.stderr)
        return 2
    finally:
        if capture is not None:
            capture.cleanup()
            if not capture.temporary:
                with contextlib.suppress(OSError):  # a closed SSH session took the terminal with it
                    print(f"xla-tui: the capture is saved in {capture.folder}; "
                          f"reopen it with `xla-tui {shlex.quote(str(capture.folder))}`", file=sys.stderr)


def _script_status(capture) -> int | None:
    """What a run that executed a script exits with, after the UI or the summary: the script's
    status, as a shell gives it (128 + N where signal N ended it); None for any other TARGET.
    Reopening a saved capture reads a file, and exits 0 however its script ended."""
    if capture is None:
        return None
    return 128 - capture.exit_status if capture.exit_status < 0 else capture.exit_status


def _check_profiles(paths: list[str]) -> None:
    """InputError for a --profile that is no profile (an HLO file, a dump folder): it would be
    opened as one more module, and the profile asked for never loaded."""
    from pathlib import Path

    from tui.model.errors import InputError
    from tui.model.inputs import input_kind

    for path in paths:
        kind = input_kind(Path(path))
        if kind != "profile":
            raise InputError(path, f"--profile takes a profile (an .xplane.pb, a trace JSON or a logdir), not {_kind_words(kind)}")


def _kind_words(kind: str) -> str:
    return {"hlo-folder": "a folder of HLO files", "dump": "an --xla_dump_to folder", "capture": "a saved capture",
            "script": "a Python script"}.get(kind, "an HLO module")


def _no_terminal(args) -> int:
    """Without a terminal Textual would draw into a pipe or file and wait for keys that never
    come: say so, after naming a bad input as the UI would (a script is not run)."""
    from pathlib import Path

    if _is_script(args.target):
        from tui.model.capture import check_script

        check_script(Path(args.target))
    else:
        from tui.model.inputs import load_workspace

        ws = load_workspace([args.target, *args.profile], main=args.main)
        if ws.main is not None:
            ws.main.load()
    ours = [arg for arg in args.script_args if arg in ("--summary", "--json")]
    if ours:  # `xla-tui train.py --summary`: everything after a script is the script's
        print(f"xla-tui: the UI needs a terminal (stdin or stdout is not one); {' '.join(ours)} after the script "
              f"is passed to the script: put xla-tui's options before it (xla-tui {' '.join(ours)} {args.target} ...)",
              file=sys.stderr)
        return 2
    print("xla-tui: the UI needs a terminal (stdin or stdout is not one): add --summary [--json] to print "
          "what was loaded instead", file=sys.stderr)
    return 2


def _end_cleanly_on_hangup(app=None) -> None:
    """SIGTERM and SIGHUP (`kill`, a closed SSH session) end us by SystemExit instead of on the
    spot, so that `finally` removes a temporary capture; once `app` runs, they ask it to exit,
    so that Textual also hands the terminal back (main screen, no mouse reporting)."""
    import asyncio
    import signal
    import threading

    def end(number: int, frame) -> None:
        try:
            loop = asyncio.get_running_loop()  # the handler runs on the main thread, in the loop
        except RuntimeError:
            loop = None
        if app is None or loop is None or not app.is_running:
            sys.exit(128 + number)
        loop.call_soon_threadsafe(app.exit, None, 128 + number)

    if threading.current_thread() is threading.main_thread():
        for signum in (signal.SIGTERM, signal.SIGHUP):
            signal.signal(signum, end)


def _is_script(target: str) -> bool:
    return target.lower().endswith(".py")


_VALUED = ("--main", "--profile", "--save", "--profile-seconds")  # options that take the next word


def _target_index(argv: list[str]) -> int | None:
    """Where TARGET is in `argv`: the first word that is not an option or an option's value
    (after a `--`, the next word); None where there is none (argparse then says so)."""
    k = 0
    while k < len(argv):
        word = argv[k]
        if word == "--":
            return k + 1 if k + 1 < len(argv) else None
        if not word.startswith("-") or word == "-":
            return k
        k += 2 if word in _VALUED else 1
    return None


def is_terminal() -> bool:
    """Whether stdin and stdout are a terminal (either may be closed: `<&-`)."""
    return all(stream is not None and stream.isatty() for stream in (sys.stdin, sys.stdout))


def _capture(args):
    """Run a script TARGET and return its CaptureResult; None for any other TARGET."""
    from pathlib import Path

    from tui.model.errors import InputError

    target = Path(args.target)
    if _is_script(args.target):
        from tui.model.capture import capture_script

        if args.profile:
            raise InputError(target, "--profile goes with an HLO, dump or capture TARGET: a script's run is profiled by "
                                     "the capture itself (save it with --save, then `xla-tui DIR --profile PATH`)")
        unprofiled = [flag for flag, given in (("--profile-seconds", args.profile_seconds),
                                               ("--profile-python", args.profile_python)) if given]
        if args.no_profile and unprofiled:
            raise InputError(target, f"{', '.join(unprofiled)}: says how to profile, and --no-profile takes no profile")
        _end_cleanly_on_hangup()
        return capture_script(target, args.script_args, save_to=args.save, profile=not args.no_profile,
                              profile_python=args.profile_python, profile_seconds=args.profile_seconds,
                              stdout_to_stderr=args.json)
    script_only = [flag for flag, given in (("--save", args.save), ("--no-profile", args.no_profile),
                                            ("--profile-seconds", args.profile_seconds),
                                            ("--profile-python", args.profile_python)) if given]
    if script_only:
        raise InputError(target, f"{', '.join(script_only)}: only for a script TARGET")
    return None


def _renamed(value, old: str, new: str):
    """`value` (the summary's dicts, lists and strings) with `old` written `new` in every string."""
    if isinstance(value, str):
        return value.replace(old, new)
    if isinstance(value, dict):
        return {key: _renamed(item, old, new) for key, item in value.items()}
    if isinstance(value, list):
        return [_renamed(item, old, new) for item in value]
    return value


def _print_summary(paths: list[str], args, capture_status: int | None, temporary: str | None = None) -> int:
    """The exit status: the script's where it failed (`capture_status`), else 2 where nothing
    could be loaded. With `temporary`, a capture folder removed on exit: the summary calls it
    `<capture>` (in warnings, errors and the modules' files: a path that is gone by the time it
    is read says nothing, and one that looks real misleads)."""
    import json

    from tui.model.inputs import load_workspace
    from tui.model.summary import format_summary, summarize

    ws = load_workspace(paths, main=args.main)
    summary = summarize(ws)
    if capture_status is not None and not args.json:
        print()  # after a script's own output, which need not end its last line
    if temporary:
        summary = _renamed(summary, temporary, "<capture>")
    print(json.dumps(summary, indent=2) if args.json else format_summary(summary))
    if capture_status:
        return capture_status
    return 2 if summary["errors"] and not any(m["instructions"] for m in summary["modules"]) else 0
