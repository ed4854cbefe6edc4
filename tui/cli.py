"""`xla-tui [OPTIONS] TARGET [SCRIPT_ARGS...]`: open the UI, or print `--summary`.

Kept free of heavy imports: `xla-tui --help` must answer at once and never load JAX.
"""

from __future__ import annotations

import argparse
import os
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

Options go before TARGET; everything after a script TARGET is passed to the script.
"""


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="xla-tui", usage=USAGE, description=DESCRIPTION,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("target", metavar="TARGET", help="what to open (see above)")
    p.add_argument("script_args", nargs=argparse.REMAINDER, metavar="SCRIPT_ARGS", help="arguments for a script TARGET")
    p.add_argument("--summary", action="store_true", help="print what was loaded instead of opening the UI")
    p.add_argument("--json", action="store_true", help="with --summary: print one JSON object")
    p.add_argument("--main", metavar="MODULE", help="the module to open first (name, label or number)")
    p.add_argument("--profile", metavar="PATH", action="append", default=[],
                   help="also load this profile (xplane.pb, trace JSON or logdir) beside TARGET")
    p.add_argument("--save", metavar="DIR", help="script TARGET: keep the capture in DIR (reopen with `xla-tui DIR`)")
    p.add_argument("--no-profile", action="store_true", help="script TARGET: do not run the profiler")
    p.add_argument("--version", action="version", version="xla-tui 0.1.0")
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.json and not args.summary:
        print("xla-tui: --json only goes with --summary", file=sys.stderr)
        return 2
    # XLA's C++ logging would write over the UI and the summary; the user's script keeps its own.
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

    from tui.model.errors import InputError

    try:
        paths, capture_status = _resolve_target(args)
        if args.summary:
            return _print_summary(paths, args, capture_status)
        from tui.app import XlaTuiApp

        app = XlaTuiApp(*paths, main=args.main)
        app.run()
        if app.load_error:
            raise InputError(None, app.load_error)
        return app.return_code or 0
    except InputError as e:
        print(f"xla-tui: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


def _resolve_target(args) -> tuple[list[str], int | None]:
    """The paths to open; a script target is captured first (its exit status is returned)."""
    from pathlib import Path

    from tui.model.errors import InputError

    target = Path(args.target)
    if target.suffix == ".py":
        if not target.is_file():
            raise InputError(target, "no such script")
        from tui.model.capture import capture_script

        result = capture_script(target, args.script_args, save_to=args.save, profile=not args.no_profile)
        return [str(result.folder)] + args.profile, result.exit_status
    if args.script_args:
        raise InputError(target, f"is not a script, so it takes no arguments (got {' '.join(args.script_args)!r}); "
                                 "options go before TARGET")
    if args.save or args.no_profile:
        raise InputError(target, "--save and --no-profile apply to a script TARGET only")
    return [args.target] + args.profile, None


def _print_summary(paths: list[str], args, capture_status: int | None) -> int:
    import json

    from tui.model.inputs import load_workspace
    from tui.model.summary import format_summary, summarize

    ws = load_workspace(paths, main=args.main)
    summary = summarize(ws)
    print(json.dumps(summary, indent=2) if args.json else format_summary(summary))
    if capture_status:
        return 1
    return 2 if summary["errors"] and not any(m["instructions"] for m in summary["modules"]) else 0
