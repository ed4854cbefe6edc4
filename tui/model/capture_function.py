"""`tui.capture(fn, *args)`: compile one function in this process with XLA's dumps on.

XLA reads `XLA_FLAGS` only when the backend starts, which in a notebook happened long ago. Dump
options given as compiler options reach that one compile instead, and XLA writes the same
files as with `--xla_dump_to` (HLO before and after optimization, buffer assignment, live
ranges). A `Compiled` object was compiled already: its optimized HLO is all it can give.
The capture folder has the layout and manifest of a script capture, so it opens the same way.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import time
from datetime import datetime, timezone
from pathlib import Path

import jax

from tui.model.capture import CaptureResult, capture_folder
from tui.model.capture_manifest import write_manifest

DUMP_OPTIONS = {"xla_dump_hlo_as_text": True, "xla_dump_hlo_as_proto": False}
PROFILE_RUNS = 3


def _exclude_our_frames() -> None:
    """JAX writes each op's Python stack into the HLO, up to the first frame it takes for
    JAX's own: ours (this package, lowering the user's function) are not the user's either."""
    from jax._src import source_info_util

    source_info_util.register_exclusion(os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep)


_exclude_our_frames()


def capture_function(fn, *args, profile: bool | int = False, save_to: str | os.PathLike | None = None,
                     **kwargs) -> CaptureResult:
    """Lower and compile `fn` for these arguments with dumps on; with `profile`, run it
    `PROFILE_RUNS` times (or `profile` times) under the JAX profiler.

    `fn` is a jitted function, a plain function (jitted here), a `jax.stages.Lowered` or a
    `jax.stages.Compiled`; for the last two, `args` are only needed to profile, and are what
    the compiled object takes (static arguments left out). The caller's arrays are never
    donated: a function that donates its inputs runs on copies.
    """
    if not (isinstance(profile, bool) or (isinstance(profile, int) and profile >= 0)):  # before any compile
        raise ValueError(f"profile= takes True, False or a number of runs, not {profile!r}")
    existed = save_to is not None and Path(save_to).exists()
    folder, temporary = capture_folder(save_to)
    result = CaptureResult(folder, 0, temporary, {})
    try:
        dump = folder / "dump"
        started = datetime.now(timezone.utc)
        t0 = time.perf_counter()
        compiled, name = _compile(fn, args, kwargs, dump)
        runs = 0 if profile is False else PROFILE_RUNS if profile is True else profile
        profile_note = None
        if runs:
            run_args, run_kwargs = _dynamic_args(fn, args, kwargs)
            profile_note = _profile(compiled, run_args, run_kwargs, runs, folder / "profile")
        seconds = round(time.perf_counter() - t0, 3)
        result.manifest = write_manifest(
            folder, "function", name, [_describe(a) for a in jax.tree.leaves((args, kwargs))], started,
            exit_status=0, seconds=seconds, capture_seconds=seconds, profile_note=profile_note,
            xla_flags=os.environ.get("XLA_FLAGS", ""),
            compiled=[{"module": _module_label(dump, name), **compiled_stats(compiled)}],
        )
    except BaseException:  # the caller's error (a bad argument, a failed compile) is theirs to see
        result.cleanup()
        if not temporary:  # `save_to` as it was (new or empty), for the call that works
            for part in ("dump", "profile"):
                shutil.rmtree(folder / part, ignore_errors=True)
            if not existed:
                with contextlib.suppress(OSError):
                    folder.rmdir()
        raise
    return result


def _compile(fn, args, kwargs, dump: Path):
    """(Compiled, HLO module name); the dump folder gets XLA's files for this compile."""
    if isinstance(fn, jax.stages.Compiled):
        text = fn.as_text()
        name = _hlo_module_name(text)
        dump.mkdir()
        platform = jax.devices()[0].platform
        (dump / f"module_0000.{name}.{platform}_after_optimizations.txt").write_text(text)
        return fn, name
    if isinstance(fn, jax.stages.Lowered):
        lowered = fn
    else:
        jitted = fn if hasattr(fn, "lower") else jax.jit(fn)
        lowered = jitted.lower(*args, **kwargs)
    from jax._src import config

    with config.enable_compilation_cache(False):  # a persistent cache hit compiles nothing: XLA would dump only the text
        compiled = lowered.compile(compiler_options={"xla_dump_to": str(dump), **DUMP_OPTIONS})
    return compiled, _hlo_module_name(compiled.as_text())


def _hlo_module_name(text: str) -> str:
    match = re.match(r"HloModule ([^\s,]+)", text)
    return match.group(1) if match else "module"


def _module_label(dump: Path, name: str) -> str:
    """`module_NNNN.<name>` as XLA named this compile's files (the newest of that name)."""
    from tui.model.dump import scan_dump

    labels = [m.label for m in scan_dump(dump).modules if m.name == name]
    return labels[-1] if labels else name


def compiled_stats(compiled) -> dict:
    """`memory_analysis()` and `cost_analysis()` of a compiled function, as plain numbers."""
    stats = {}
    memory = compiled.memory_analysis()
    if memory is not None:
        stats["memory_analysis"] = {key: getattr(memory, key) for key in dir(memory)
                                    if not key.startswith("_") and isinstance(getattr(memory, key), int)}
    cost = compiled.cost_analysis()
    if isinstance(cost, (list, tuple)):  # older JAX: one dict per device program
        cost = cost[0] if cost else None
    if cost:
        stats["cost_analysis"] = {key: float(value) for key, value in cost.items()}
    return stats


def _dynamic_args(fn, args, kwargs):
    """The arguments the compiled object takes: a jitted function's static ones left out."""
    info = getattr(fn, "_jit_info", None)  # jax.jit's own record of static_argnums/argnames
    if info is None:
        return args, kwargs
    static = {i % len(args) for i in info.static_argnums if -len(args) <= i < len(args)}
    return (tuple(a for i, a in enumerate(args) if i not in static),
            {k: v for k, v in kwargs.items() if k not in info.static_argnames})


def _profile(compiled, args, kwargs, runs: int, log_dir: Path) -> str | None:
    """Run the compiled function `runs` times under the profiler; a note if it could not."""
    donates = any(info.donated for info in jax.tree.leaves(compiled.args_info))
    options = jax.profiler.ProfileOptions()
    options.python_tracer_level = 0
    options.enable_hlo_proto = False
    try:
        jax.profiler.start_trace(log_dir, profiler_options=options)
    except RuntimeError as e:  # the caller's own trace is running
        return f"no profile: {e}"
    try:
        for _ in range(runs):
            run_args = _copies((args, kwargs)) if donates else (args, kwargs)
            jax.block_until_ready(compiled(*run_args[0], **run_args[1]))
    except (TypeError, ValueError) as e:
        return f"the profile is incomplete: calling the compiled function failed: {e}"
    finally:
        jax.profiler.stop_trace()
    return None


def _copies(tree):
    return jax.tree.map(lambda a: a.copy() if isinstance(a, jax.Array) else a, tree)


def _describe(leaf) -> str:
    """`float32[8,32]` for an array, a short repr for anything else."""
    if hasattr(leaf, "shape") and hasattr(leaf, "dtype"):
        return f"{leaf.dtype}[{','.join(map(str, leaf.shape))}]"
    text = repr(leaf)
    return text if len(text) <= 40 else text[:37] + "..."
