"""The child side of `xla-tui script.py`: run the user's script as `python script.py` would.

`capture.py` starts this file as the program of a fresh interpreter (`python capture_child.py
CONFIG SCRIPT ARGS...`; not `python -c`, whose frame's file, `<string>`, is also that of code
the script runs through `exec`, which JAX could then not be told apart from ours). It
imports only the standard library before the script runs, so the script sees a clean process:
its own `sys.argv`, `sys.path[0]`, `__name__ == "__main__"` and environment. Two hooks wait
for JAX to be imported:

- just before JAX starts a backend (when XLA reads `XLA_FLAGS`), our dump flags are appended
  to the script's (not before: a process the script starts earlier would inherit them);
- once the backends exist (XLA has read its flags), ours leave `XLA_FLAGS`, so that the
  script's own subprocesses do not dump into the capture, and the profiler starts; it stops
  when the script ends (once the work it dispatched has run), or earlier when the script
  starts a trace of its own (so theirs still works), or after `profile_seconds`;
- JAX is told that this file's frames are not the user's, so the Python stacks
  it writes into each op's metadata end at the script, as under `python script.py`.

JAX's persistent compilation cache is off (the parent sets JAX_ENABLE_COMPILATION_CACHE, and
a hook keeps it off where the script turns it on): on a hit XLA compiles nothing and writes
only the optimized text, no buffer assignment or live ranges.

What the parent cannot see from the exit status (the script's traceback, whether a profile
was written) goes to a small JSON file.
"""

import importlib.abc
import json
import os
import re
import shutil
import sys
import threading
import time
import traceback


# An --xla_dump_to flag in XLA_FLAGS, its value read as XLA reads one: "…" (a backslash escapes the next character), '…', or a word.
DUMP_TO = re.compile(r'''--xla_dump_to=(?:"(?:\\.|[^"\\])*"|'[^']*'|\S+)''', re.S)
# Flags that make XLA dump less than every module whole: (their value when they do not limit, the
# flag that undoes them). A capture dumps every program XLA compiles, so these are overridden too.
DUMP_LIMITS = {
    "hlo_module_re": ((".*", ""), "--xla_dump_hlo_module_re=.*"),
    "max_hlo_modules": (("-1",), "--xla_dump_max_hlo_modules=-1"),
    "disable_metadata": (("false", "0"), "--xla_dump_disable_metadata=false"),
}
DUMP_LIMIT = re.compile(r'--xla_dump_(' + "|".join(DUMP_LIMITS) + r')(?:=("[^"]*"|\S*))?(?=\s|$)')


class _AfterImport(importlib.abc.MetaPathFinder):
    """Calls `hooks[name](module)` right after the module `name` is first imported."""

    def __init__(self, hooks):
        self.hooks = hooks

    def find_spec(self, name, path, target=None):
        if name not in self.hooks:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None and spec.loader is not None:
                break
        else:
            return None
        spec.loader = _HookedLoader(spec.loader, self.hooks.pop(name))
        return spec

    def install(self):
        for name in list(self.hooks):
            if name in sys.modules:
                self.hooks.pop(name)(sys.modules[name])
        sys.meta_path.insert(0, self)


class _HookedLoader(importlib.abc.Loader):
    """Loads with the real loader (which the module keeps), then calls the hook."""

    def __init__(self, loader, hook):
        self.loader, self.hook = loader, hook

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module):
        module.__spec__.loader = module.__loader__ = self.loader
        self.loader.exec_module(module)
        self.hook(module)


class _Capture:
    def __init__(self, config):
        self.flags = self.added = config["flags"]  # added: ours, and flags undoing a dump limit of the script's (append_flags)
        self.dump_dir = config["dump_dir"]
        self.profile_dir = config["profile_dir"]
        self.profile_python = config["profile_python"]
        self.profile_seconds = config["profile_seconds"]
        self.inherited = DUMP_TO.findall(os.environ.get("XLA_FLAGS", ""))  # the user's, which xla-tui itself notes
        self.result = {"error": None, "profile": None, "profile_note": None, "notes": []}
        self._profiling = False
        self._lock = threading.Lock()

    def append_flags(self):
        current = os.environ.get("XLA_FLAGS", "")
        if not current.endswith(self.added):
            theirs = [flag for flag in DUMP_TO.findall(current) if flag not in self.flags and flag not in self.inherited]
            if theirs:  # XLA takes the last: ours
                self._note(f"the script's own {theirs[-1]} was overridden: its modules are in the capture's dump folder")
            limits = {found.group(1): found for found in DUMP_LIMIT.finditer(current)}  # the last of each counts
            undo = []
            for kind, found in limits.items():
                whole, flag = DUMP_LIMITS[kind]
                if (found.group(2) or "").strip('"') not in whole:  # a bare flag: "" (a bare boolean is true)
                    undo.append(flag)
                    self._note(f"XLA_FLAGS' {found.group(0)} was overridden: the capture dumps every module, whole")
            self.added = " ".join([self.flags, *undo])
            os.environ["XLA_FLAGS"] = f"{current} {self.added}".strip()

    def _note(self, note: str) -> None:
        if note not in self.result["notes"]:
            self.result["notes"].append(note)

    def remove_flags(self):
        """XLA has read its flags once the backends exist: ours leave XLA_FLAGS, so that the
        script's own subprocesses (a worker that runs JAX too) do not dump into the capture's
        folder over its modules."""
        current = os.environ.get("XLA_FLAGS", "")
        if current.endswith(self.added):
            theirs = current[: -len(self.added)].strip()
            if theirs:
                os.environ["XLA_FLAGS"] = theirs
            else:
                del os.environ["XLA_FLAGS"]

    def exclude_our_frames(self, source_info_util):
        """This file, the program that starts the script, is not the user's."""
        source_info_util.register_exclusion(__file__)

    def patch_xla_bridge(self, xla_bridge):
        """`backends()` starts every backend (each through `_init_backend`) on its first call."""
        init_backend, backends = xla_bridge._init_backend, xla_bridge.backends

        def init_backend_with_flags(*args, **kwargs):
            self.append_flags()
            return init_backend(*args, **kwargs)

        def backends_then_profile(*args, **kwargs):
            found = backends(*args, **kwargs)
            self.remove_flags()
            if self.profile_dir is not None:
                self.start_profile()
            return found

        xla_bridge._init_backend = init_backend_with_flags
        xla_bridge.backends = backends_then_profile

    def patch_profiler(self, profiler):
        """A script's own `jax.profiler.trace` would fail while ours runs: ours ends first. One
        started before any backend is not followed by ours: JAX starts the backends while it
        holds its profiler's lock, and ours, starting then, would wait on that lock forever."""
        start_trace = profiler.start_trace

        def start_theirs(*args, **kwargs):
            if self._profiling:
                self.stop_profile("the script started its own profiler trace")
            with self._lock:
                if self.profile_dir is not None:
                    self.profile_dir = None
                    self.result["profile_note"] = ("no profile captured: the script started its own profiler trace "
                                                   "before JAX ran anything (its trace is where it asked)")
            return start_trace(*args, **kwargs)

        profiler.start_trace = start_theirs

    def start_profile(self):
        with self._lock:
            if self.profile_dir is None:
                return
            log_dir, self.profile_dir = self.profile_dir, None  # one attempt
        from jax._src import profiler

        options = profiler.ProfileOptions()
        options.python_tracer_level = 1 if self.profile_python else 0  # the Python tracer doubles run time
        options.enable_hlo_proto = False  # the dump has the modules
        try:
            profiler.start_trace(log_dir, profiler_options=options)
        except RuntimeError as e:  # the script's own trace is running
            self.result["profile_note"] = f"the profiler did not start: {e}"
            return
        self._profiling = True
        self.result["profile"] = log_dir
        if self.profile_seconds is not None:
            timer = threading.Timer(self.profile_seconds, self.stop_profile,
                                    [f"stopped after {self.profile_seconds:g} s (--profile-seconds)"])
            timer.daemon = True
            timer.start()

    def stop_profile(self, note=None):
        with self._lock:
            if not self._profiling:
                return
            self._profiling = False
        from jax._src import profiler

        try:
            profiler.stop_trace()
        except RuntimeError as e:
            note = f"the profile was lost: {e}"
        if note:
            self.result["profile_note"] = note

    def run(self, script):
        """Run the script; return its exit status the way `python script.py` would."""
        status = 0
        try:
            _run_as_main(script)
        except SystemExit as e:
            status = _exit_status(e)
            if not isinstance(e.code, int) and e.code is not None:  # `sys.exit("message")`
                self.result["error"] = str(e.code)
        except BaseException as e:  # noqa: BLE001 - the script's error is what we report
            e.__traceback__ = _script_frames(e.__traceback__)
            self.result["error"] = "".join(traceback.format_exception(type(e), e, e.__traceback__))
            sys.excepthook(type(e), e, e.__traceback__)
            status = 130 if isinstance(e, KeyboardInterrupt) else 1
        finally:
            try:
                _join_script_threads()
            except KeyboardInterrupt:  # Ctrl-C while a thread runs on, as python takes it at exit
                status = 130
            if self._profiling:
                _wait_for_dispatched_work(self.dump_dir)
            self.stop_profile()
            self.note_unused_cache()
        return status

    def note_unused_cache(self):
        """The parent turned JAX's persistent compilation cache off (a hit compiles nothing, so
        XLA would write no files but the optimized text): a script that set one up is told."""
        jax = sys.modules.get("jax")
        folder = getattr(getattr(jax, "config", None), "jax_compilation_cache_dir", None)
        if folder:
            self.result["notes"].append(f"the script's persistent compilation cache ({folder}) was left unused, "
                                        "so that XLA compiled every program and wrote all its files")


def _wait_for_dispatched_work(dump_dir):
    """JAX returns before the device runs what it was given: a script that does not wait for its
    last steps ends with them still queued, and the profile would stop before they ran. Its live
    arrays are waited for; so is work whose results it dropped (`for _ in range(30): f(x)`: 8
    of the 30 were in the profile), by a tiny program run on each device after it (a device
    runs its work in order), where the script compiled anything. XLA dumps that program into a
    folder of its own, removed, but for the folder XLA CPU writes its code into by XLA_FLAGS
    alone, removed from the capture's."""
    jax = sys.modules.get("jax")
    try:
        for array in jax.live_arrays():
            array.block_until_ready()
        if not os.listdir(dump_dir):
            return
        import numpy as np
        import tempfile

        with tempfile.TemporaryDirectory(prefix="xla-tui-drain-") as aside:
            for device in jax.local_devices():
                after = jax.device_put(np.zeros((), np.int32), device)
                program = jax.jit(_xla_tui_drain).lower(after).compile(compiler_options={"xla_dump_to": aside})
                program(after).block_until_ready()
        for name in os.listdir(dump_dir):
            if _xla_tui_drain.__name__ in name:
                path = os.path.join(dump_dir, name)
                shutil.rmtree(path) if os.path.isdir(path) else os.remove(path)
    except Exception:  # noqa: BLE001 - a failed computation is the script's, reported already
        pass


def _xla_tui_drain(after):
    """The program that comes after all the script's work on a device (see _wait_for_dispatched_work)."""
    return after + 1


def _cache_unused(compilation_cache):
    """JAX's persistent compilation cache stays unused even where the script turns it back on
    (`jax.config.update("jax_enable_compilation_cache", True)` overrides the parent's
    environment): a hit compiles nothing, and XLA writes only the optimized text, no buffer
    assignment, live ranges or unoptimized module."""
    compilation_cache.is_cache_used = lambda backend: False
    compilation_cache.is_persistent_cache_enabled = lambda: False


def _exit_status(e):
    if e.code is None:
        return 0
    if isinstance(e.code, int):
        return e.code
    print(e.code, file=sys.stderr)
    return 1


def _script_frames(tb):
    """Drop this file's frames, so the traceback starts in the script (none are left for a
    SyntaxError, which Python prints without a traceback too)."""
    while tb is not None and tb.tb_frame.f_code.co_filename == __file__:
        tb = tb.tb_next
    return tb


def _run_as_main(path):
    """Run the script at `path` (absolute) as `python` runs it: a fresh `__main__` module whose
    `__file__` is absolute, `__builtins__` the builtins module and `__loader__` a source file
    loader, leaving `sys.argv` as given (`runpy.run_path` puts the absolute path in argv[0],
    where `python dir/script.py` leaves `dir/script.py`)."""
    import builtins
    import importlib.machinery
    import io
    import types

    with io.open_code(path) as f:
        code = compile(f.read(), path, "exec", dont_inherit=True)
    module = types.ModuleType("__main__")
    module.__dict__.update(__file__=path, __cached__=None, __builtins__=builtins,
                           __loader__=importlib.machinery.SourceFileLoader("__main__", path))
    sys.modules["__main__"] = module  # to the end, as under python: its threads and atexit handlers pickle its classes
    exec(code, module.__dict__)


def _join_script_threads():
    """Wait for the threads the script left running, as Python does before it exits (their work
    belongs in the profile): every thread not a daemon, but the workers of thread pools, which
    Python stops at exit instead (they would wait for work for ever)."""
    pool = sys.modules.get("concurrent.futures.thread")  # not imported: no pool's workers (nor work of ours in the profile)
    workers = pool._threads_queues if pool is not None else ()
    while True:
        left = [t for t in threading.enumerate() if t is not threading.current_thread() and not t.daemon and t not in workers]
        if not left:
            return
        for t in left:
            t.join()


def main(config_json, script, args):
    config = json.loads(config_json)
    capture = _Capture(config)
    sys.argv = [script, *args]
    sys.path[0] = os.path.dirname(os.path.realpath(script))  # as python does: a linked script's own folder
    _AfterImport({"jax._src.xla_bridge": capture.patch_xla_bridge,
                  "jax._src.profiler": capture.patch_profiler,
                  "jax._src.source_info_util": capture.exclude_our_frames,
                  "jax._src.compilation_cache": _cache_unused}).install()
    started = time.perf_counter()
    status = capture.run(os.path.abspath(script))  # its __file__ absolute, as python makes it
    capture.result["seconds"] = time.perf_counter() - started
    with open(config["result"], "w") as f:
        json.dump(capture.result, f)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (AttributeError, OSError, ValueError):  # the script closed it (or it was never open)
            pass
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2], sys.argv[3:]))
