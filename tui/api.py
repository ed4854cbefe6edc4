"""The Python API: `tui.explore(fn, *args)` opens the app on one function; `tui.capture` returns
the Workspace instead (notebooks, tests). Both compile in this process (see capture_function)."""

from __future__ import annotations

import os
import weakref

from tui.model.workspace import Workspace


def capture(fn, *args, profile: bool | int = False, save_to: str | os.PathLike | None = None, **kwargs) -> Workspace:
    """Compile `fn` for these arguments with XLA's dumps on and load what XLA wrote.

    `fn`: a jitted function, a plain function (jitted here), or a `jax.stages.Lowered` /
    `jax.stages.Compiled`. `profile=True` (or a number of runs) also runs it under the JAX
    profiler. `save_to` keeps the capture in that new folder (reopen with `xla-tui DIR`);
    otherwise it lives in a temporary folder removed when the Workspace is garbage-collected.
    """
    from tui.model.capture_function import capture_function
    from tui.model.inputs import load_workspace

    result = capture_function(fn, *args, profile=profile, save_to=save_to, **kwargs)
    try:
        ws = load_workspace([result.folder])
    except BaseException:
        result.cleanup()
        raise
    weakref.finalize(ws, result.cleanup)  # modules are parsed lazily from the folder
    return ws


def explore(fn, *args, profile: bool | int = False, save_to: str | os.PathLike | None = None, **kwargs) -> None:
    """`capture(...)`, then open the app on it; returns when the app is closed. Without a
    terminal (a pipe, a job, a notebook's kernel) nothing is compiled: RuntimeError says to
    call `capture` instead."""
    from tui.app import XlaTuiApp
    from tui.cli import is_terminal

    if not is_terminal():
        raise RuntimeError("tui.explore needs a terminal (stdin or stdout is not one): "
                           "tui.capture(fn, *args) returns the loaded Workspace instead")
    ws = capture(fn, *args, profile=profile, save_to=save_to, **kwargs)
    XlaTuiApp(workspace=ws).run()
